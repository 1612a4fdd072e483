//! The turns system (`spec/cardsim.md`) through the Session API: rule order by step with
//! seeded ties, deferred rule-collection changes, self-removing rules, stored and computed
//! stats with rounding and both orderings, warnings vs errors, end of history, random play and
//! the issues-sim golden playtest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::path::PathBuf;

use actforge_runtime::engine::policy::RandomPolicy;
use actforge_runtime::engine::turns::END_OF_HISTORY;
use actforge_runtime::engine::{Choice, ChoiceError, Event, Outcome, Session};
use actforge_runtime::model::{
    Card, CardOption, Deck, Effects, Expr, Id, PathModifier, PathOp, Project, Requirements, Rule, RuleModifier, RuleOp,
    Stat, StatModifier, StatOp, StatOrder, StatValue, TurnConfig,
};
use actforge_runtime::number::{round_to, show_value};
use actforge_runtime::project::load_folder;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn issues_sim() -> Project {
    load_folder(&workspace().join("content/issues-sim")).unwrap().project
}

fn stat(id: &str, label: &str, value: StatValue) -> Stat {
    Stat { id: Id::new(id), label: label.into(), value, ..Stat::default() }
}

fn add(stat: &str, value: &str) -> StatModifier {
    StatModifier { stat: Id::new(stat), op: StatOp::Add, value: Expr::new(value) }
}

fn rule(id: &str, step: i32) -> Rule {
    Rule { id: Id::new(id), step, ..Rule::default() }
}

fn option(label: &str, rules: &[&str]) -> CardOption {
    CardOption { label: label.into(), rules: rules.iter().map(|id| Id::new(*id)).collect(), ..CardOption::default() }
}

/// A small council: stats `a` (stored 10), `b` (computed a·2/3, 2 decimals), `h` (hidden);
/// cards `memo` (options "Push" a+1, "Shove" a+5) and `note` ("Read"), a deck of `cards`, and
/// the given rule collection.
fn council(rules: Vec<Rule>, collection: &[&str], deck: &[&str], hand_limit: i64) -> Project {
    let mut project = Project::default();
    project.stats.insert(Stat { order: 1, ..stat("a", "Alpha", StatValue::Stored(Expr::int(10))) });
    project.stats.insert(Stat {
        rounding: Some(2),
        order: 2,
        ..stat("b", "beta", StatValue::Computed(Expr::new("a * 2 / 3")))
    });
    project.stats.insert(Stat { hidden: true, order: 0, ..stat("h", "Hidden", StatValue::Stored(Expr::int(0))) });
    project.stats.insert(Stat { order: 3, ..stat("log", "Log", StatValue::Stored(Expr::int(0))) });
    let mut rules = rules;
    rules.push(Rule {
        effects: Effects { stat_modifiers: vec![add("a", "1")], ..Effects::default() },
        ..rule("push", 0)
    });
    rules.push(Rule {
        effects: Effects { stat_modifiers: vec![add("a", "5")], ..Effects::default() },
        ..rule("shove", 0)
    });
    for rule in rules {
        project.rules.insert(rule);
    }
    project.cards.insert(Card {
        id: Id::new("memo"),
        options: vec![option("Push", &["push"]), option("Shove", &["shove"])],
        ..Card::default()
    });
    project.cards.insert(Card { id: Id::new("note"), options: vec![option("Read", &[])], ..Card::default() });
    project.decks.insert(Deck {
        id: Id::new("pile"),
        fragments: deck.iter().map(|id| Id::new(*id)).collect(),
        ..Deck::default()
    });
    project.turn_configs.insert(TurnConfig {
        id: Id::new("council"),
        hand_limit: Expr::int(hand_limit),
        draw_deck: Some(Id::new("pile")),
        rules: collection.iter().map(|id| Id::new(*id)).collect(),
        ..TurnConfig::default()
    });
    project
}

fn ran(events: &[Event]) -> Vec<String> {
    events
        .iter()
        .filter_map(|event| match event {
            Event::TurnRuleRan { rule } => Some(rule.to_string()),
            _ => None,
        })
        .collect()
}

fn stat_value(session: &Session, id: &str) -> f64 {
    session.turn_stats(true).into_iter().find(|line| line.id.as_str() == id).unwrap().value
}

fn many_memos() -> Vec<&'static str> {
    vec!["memo"; 40]
}

#[test]
fn rules_run_by_step_and_equal_steps_shuffle_with_the_seed() {
    let rules = vec![rule("first", -1), rule("t1", 1), rule("t2", 1), rule("t3", 1), rule("t4", 1), rule("last", 7)];
    let project = council(rules, &["last", "t1", "t2", "t3", "t4", "first"], &many_memos(), 2);
    let order = |seed: u64| {
        let mut session = Session::new(project.clone(), seed).unwrap();
        ran(&session.apply(&Choice::EndTurn).unwrap())
    };
    let mut orders = std::collections::BTreeSet::new();
    for seed in 0..24 {
        let names = order(seed);
        assert_eq!(names.len(), 6);
        assert_eq!(names[0], "first");
        assert_eq!(names[5], "last");
        let mut middle = names[1..5].to_vec();
        middle.sort();
        assert_eq!(middle, ["t1", "t2", "t3", "t4"]);
        assert_eq!(names, order(seed), "same seed, same order");
        orders.insert(names);
    }
    assert!(orders.len() > 1, "different seeds give different orders among equal steps");
}

#[test]
fn collection_changes_while_rules_run_wait_for_the_end_of_the_run() {
    let changer = Rule {
        effects: Effects {
            rule_modifiers: vec![
                RuleModifier { op: RuleOp::Add, rule: Id::new("late") },
                RuleModifier { op: RuleOp::Remove, rule: Id::new("victim") },
            ],
            ..Effects::default()
        },
        ..rule("changer", 0)
    };
    let rules = vec![changer, rule("late", 1), rule("victim", 2)];
    let project = council(rules, &["changer", "victim"], &many_memos(), 2);
    let mut session = Session::new(project, 1).unwrap();
    let first = session.apply(&Choice::EndTurn).unwrap();
    assert_eq!(ran(&first), ["changer", "victim"], "the removed rule still runs; the added one waits");
    let added = first.iter().position(|e| matches!(e, Event::TurnRuleAdded { rule } if rule.as_str() == "late"));
    let last_ran = first.iter().rposition(|e| matches!(e, Event::TurnRuleRan { .. }));
    assert!(added > last_ran, "the change applies after every rule ran");
    let collection: Vec<&str> = session.turns().unwrap().rules.iter().map(Id::as_str).collect();
    assert_eq!(collection, ["changer", "late"]);
    let second = session.apply(&Choice::EndTurn).unwrap();
    assert_eq!(ran(&second), ["changer", "late"]);
}

#[test]
fn an_option_changes_the_collection_at_once() {
    let adder = Rule {
        effects: Effects {
            rule_modifiers: vec![RuleModifier { op: RuleOp::Add, rule: Id::new("late") }],
            ..Effects::default()
        },
        ..rule("adder", 0)
    };
    let mut project = council(vec![adder, rule("late", 1)], &[], &many_memos(), 2);
    project.cards.get_mut("note").unwrap().options = vec![option("Decree", &["adder"])];
    project.decks.get_mut("pile").unwrap().fragments = vec![Id::new("note"), Id::new("memo")];
    let mut session = Session::new(project, 1).unwrap();
    let events = session.apply(&Choice::PlayOption { card: Id::new("note"), option: 0 }).unwrap();
    assert_eq!(ran(&events), ["adder", "late"], "the option's rule runs, then the collection with `late` in it");
}

#[test]
fn a_rule_that_removes_itself_runs_once() {
    let once = Rule {
        remove_self: true,
        text: "Once only.".into(),
        effects: Effects { stat_modifiers: vec![add("log", "1")], ..Effects::default() },
        ..rule("once", 0)
    };
    let project = council(vec![once, rule("always", 1)], &["once", "always"], &many_memos(), 2);
    let mut session = Session::new(project, 5).unwrap();
    let first = session.apply(&Choice::EndTurn).unwrap();
    assert_eq!(ran(&first), ["once", "always"]);
    assert!(first.iter().any(|e| matches!(e, Event::TurnRuleRemoved { rule } if rule.as_str() == "once")));
    assert_eq!(session.turns().unwrap().messages[0].text, "Once only.");
    let second = session.apply(&Choice::EndTurn).unwrap();
    assert_eq!(ran(&second), ["always"]);
    assert!(session.turns().unwrap().messages.is_empty(), "messages are the last turn's");
    assert_eq!(stat_value(&session, "log"), 1.0);
}

#[test]
fn computed_stats_follow_stored_ones_and_round_for_display() {
    let mut session = Session::new(council(Vec::new(), &[], &many_memos(), 2), 1).unwrap();
    let b = session.turn_stats(false).into_iter().find(|line| line.id.as_str() == "b").unwrap();
    assert_eq!(b.value, 20.0 / 3.0);
    assert_eq!(b.shown, 6.67);
    assert_eq!(b.text, "6.67");
    session.apply(&Choice::PlayOption { card: Id::new("memo"), option: 1 }).unwrap();
    assert_eq!(stat_value(&session, "a"), 15.0);
    assert_eq!(stat_value(&session, "b"), 10.0);
    assert_eq!(session.query("b + stat.a + turn").unwrap(), 10.0 + 15.0 + 2.0);
    assert_eq!(round_to(2.345, Some(2)), 2.35);
    assert_eq!(round_to(-1.5, Some(0)), -2.0);
    assert_eq!(show_value(3.0, None), "3");
    assert_eq!(show_value(3.0, Some(1)), "3.0");
    assert_eq!(show_value(f64::NAN, Some(1)), "NaN");
}

#[test]
fn stored_stats_keep_their_limits() {
    let mut project = council(Vec::new(), &[], &many_memos(), 2);
    project.stats.get_mut("a").unwrap().max = Some(Expr::int(12));
    let mut session = Session::new(project, 1).unwrap();
    let events = session.apply(&Choice::PlayOption { card: Id::new("memo"), option: 1 }).unwrap();
    assert_eq!(stat_value(&session, "a"), 12.0);
    assert!(events.contains(&Event::StatChanged { stat: Id::new("a"), value: "12".into() }));
}

#[test]
fn stats_list_in_declaration_order_or_visible_then_alphabetical() {
    let mut project = council(Vec::new(), &[], &many_memos(), 2);
    let names = |session: &Session, debug| -> Vec<String> {
        session.turn_stats(debug).into_iter().map(|line| line.name).collect()
    };
    let session = Session::new(project.clone(), 1).unwrap();
    assert_eq!(names(&session, true), ["Hidden", "Alpha", "beta", "Log"], "by order, then id");
    assert_eq!(names(&session, false), ["Alpha", "beta", "Log"], "hidden stats only in debug mode");
    project.turn_configs.get_mut("council").unwrap().stat_order = StatOrder::VisibleThenAlphabetical;
    let session = Session::new(project, 1).unwrap();
    assert_eq!(names(&session, true), ["Alpha", "beta", "Log", "Hidden"], "visible first, case-insensitive");
}

#[test]
fn warnings_continue_and_errors_stop_the_game() {
    let warn = Rule {
        requirements: Requirements { condition: Some(Expr::new("a > 12")), ..Requirements::default() },
        effects: Effects {
            path_modifiers: vec![PathModifier { op: PathOp::Warning, text: "a is high".into(), act: None }],
            ..Effects::default()
        },
        ..rule("warn", 0)
    };
    let stop = Rule {
        requirements: Requirements { condition: Some(Expr::new("a > 18")), ..Requirements::default() },
        effects: Effects {
            path_modifiers: vec![PathModifier { op: PathOp::Error, text: "a broke the town".into(), act: None }],
            ..Effects::default()
        },
        ..rule("stop", 5)
    };
    let project = council(vec![warn, stop, rule("after", 9)], &["warn", "stop", "after"], &many_memos(), 2);
    let mut session = Session::new(project, 1).unwrap();
    let shove = Choice::PlayOption { card: Id::new("memo"), option: 1 };
    let events = session.apply(&shove).unwrap();
    assert!(events.contains(&Event::TurnWarning("a is high".into())));
    assert_eq!(session.turns().unwrap().warnings, ["a is high"]);
    assert!(session.state().outcome.is_none(), "a warning lets play go on");
    assert!(session.choices().contains(&shove));
    let events = session.apply(&shove).unwrap();
    assert!(events.contains(&Event::TurnError("a broke the town".into())));
    assert!(events.contains(&Event::GameEnded { outcome: "a broke the town".into() }));
    assert!(!ran(&events).contains(&"after".to_owned()), "an error stops the rules at once");
    assert_eq!(session.state().outcome, Some(Outcome::Stopped("a broke the town".into())));
    assert!(session.choices().is_empty());
    assert_eq!(session.apply(&Choice::EndTurn), Err(ChoiceError::GameEnded));
}

#[test]
fn the_game_ends_in_the_end_of_history_when_hand_and_deck_are_empty() {
    let mut session = Session::new(council(Vec::new(), &[], &["memo", "note"], 1), 1).unwrap();
    assert_eq!(session.turns().unwrap().hand.len(), 1);
    session.apply(&Choice::PlayOption { card: Id::new("memo"), option: 0 }).unwrap();
    let events = session.apply(&Choice::PlayOption { card: Id::new("note"), option: 0 }).unwrap();
    assert!(events.contains(&Event::GameEnded { outcome: END_OF_HISTORY.into() }));
    assert_eq!(session.state().outcome, Some(Outcome::Ended(END_OF_HISTORY.into())));
    assert_eq!(session.turns().unwrap().turn, 3);
}

#[test]
fn impossible_inputs_say_why_and_what_is_possible() {
    let mut session = Session::new(council(Vec::new(), &[], &["memo", "note"], 1), 1).unwrap();
    let error = session.run_script("play note read\n").unwrap_err();
    assert!(error.message.contains("not in the hand"), "{}", error.message);
    assert!(error.message.contains("possible now: play memo push, play memo shove, end-turn"), "{}", error.message);
    let error = session.run_script("play memo jump\n").unwrap_err();
    assert!(error.message.contains("it has: push, shove"), "{}", error.message);
    session.run_script("play memo 2\nexpect stat a 15\nexpect turn 2\nexpect hand note\n").unwrap();
}

#[test]
fn random_play_never_panics_and_replays_to_the_same_hash() {
    for seed in 0..12 {
        let play = || {
            let mut session = Session::new(issues_sim(), seed).unwrap();
            let mut policy = RandomPolicy::new(seed + 100);
            let moves = policy.play(&mut session, 200);
            (moves, session.state_hash(), session.state().outcome.clone())
        };
        let (moves, hash, outcome) = play();
        assert!(outcome.is_some(), "seed {seed}: every game ends (after {moves} moves)");
        assert_eq!(play(), (moves, hash, outcome), "seed {seed} replays exactly");
    }
}

#[test]
fn the_issues_sim_golden_playtest_passes() {
    let script = std::fs::read_to_string(workspace().join("content/issues-sim/tests/issues_sim.play")).unwrap();
    let project = issues_sim();
    let seed = project.manifest.settings.seed;
    let mut session = Session::new(project, seed).unwrap();
    let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert!(report.expectations >= 20);
    assert_eq!(session.state().outcome, Some(Outcome::Ended(END_OF_HISTORY.into())));
}

#[test]
fn issues_sim_checks_clean_and_is_in_canonical_layout() {
    let root = workspace().join("content/issues-sim");
    let loaded = load_folder(&root).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let problems = actforge_runtime::validate::validate(
        &loaded.project,
        &actforge_runtime::project::Sources::default(),
        Some(&root),
    );
    assert!(problems.is_empty(), "{problems:?}");
    assert!(loaded.project.cards.len() >= 10 && loaded.project.stats.len() >= 6);
    for (relative, text) in actforge_runtime::project::render_files(&loaded.project).unwrap() {
        assert_eq!(std::fs::read_to_string(root.join(&relative)).unwrap(), text, "{relative:?} is not canonical");
    }
}

#[test]
fn set_stat_stores_a_value_within_the_stats_limits_or_says_why_not() {
    let mut session = Session::new(issues_sim(), 3).unwrap();
    // The stat holds the exact value; it shows rounded to its decimals (none).
    session.run_script("set stat treasury 12.5\nexpect stat treasury 13\nset stat tax_rate 1").unwrap();
    assert_eq!(stat_value(&session, "treasury"), 12.5);
    assert_eq!(stat_value(&session, "tax_rate"), 1.0);
    // Huge but finite is a number; a stat without limits takes it.
    session.run_script("set stat population 1e300").unwrap();
    assert_eq!(stat_value(&session, "population"), 1e300);
    let hash = session.state_hash();
    for (line, why) in [
        ("set stat gold 1", "there is no stat `gold` (there are: "),
        ("set stat treasury lots", "`lots` is not a number"),
        ("set stat treasury NaN", "`NaN` is not a number (NaN)"),
        ("set stat treasury inf", "`inf` is not a finite number"),
        ("set stat treasury -inf", "`-inf` is not a finite number"),
        ("set stat treasury 1e999", "`1e999` is not a finite number"),
        ("set stat happiness 101", "101 is above the max of stat happiness, 100"),
        ("set stat tax_rate -0.5", "-0.5 is below the min of stat tax_rate, 0"),
        ("set stat approval 3", "stat `approval` is computed by its formula"),
        ("set stat treasury", "usage: set stat STAT VALUE"),
        ("set stat treasury 1 2", "usage: set stat STAT VALUE"),
        ("set meter treasury 1", "the project has no campaign"),
        ("set wealth 1", "set aspect CARD ASPECT N, set stat STAT VALUE (turns)"),
    ] {
        let error = session.run_script(line).unwrap_err();
        assert!(error.message.contains(why), "{line}: {}", error.message);
    }
    assert_eq!(session.state_hash(), hash, "a refused set-up line changes nothing");
}

#[test]
fn expect_choices_lists_the_offered_options_as_script_lines() {
    let mut session = Session::new(issues_sim(), 3).unwrap();
    session
        .run_script(
            "expect choices include play harbour_plan build_the_harbour\nset stat treasury 50\n\
             expect choices end-turn ;play harbour_plan shelve_it; play budget_crisis raise_taxes; \
             play budget_crisis cut_services; play factory_proposal approve_the_factory; play factory_proposal refuse",
        )
        .unwrap();
    let error = session.run_script("expect choices include play harbour_plan build_the_harbour").unwrap_err();
    assert!(error.message.contains("is not a choice now (the choices: "), "{error}");
    let error = session.run_script("expect choices end-turn; play harbour_plan build_the_harbour").unwrap_err();
    assert!(error.message.contains("not offered: play harbour_plan build_the_harbour"), "{error}");
    assert!(error.message.contains("also offered: play budget_crisis cut_services"), "{error}");
    let error = session.run_script("expect choices none").unwrap_err();
    assert!(error.message.contains("also offered:"), "{error}");
    let error = session.run_script("expect choices").unwrap_err();
    assert!(error.message.contains("usage: expect choices"), "{error}");
    // A card in the hand shows its label.
    session.run_script("expect label harbour_plan \"The harbour plan\"").unwrap();
    let error = session.run_script("expect label harbour_plan \"Harbour\"").unwrap_err();
    assert!(error.message.contains("shows \"The harbour plan\", expected \"Harbour\""), "{error}");
    let error = session.run_script("expect label festival \"Festival\"").unwrap_err();
    assert!(error.message.contains("no `festival` card is in play"), "{error}");
}

#[test]
fn the_issues_sim_set_up_playtest_passes() {
    let script = std::fs::read_to_string(workspace().join("content/issues-sim/tests/setup_and_checks.play")).unwrap();
    let mut session = Session::new(issues_sim(), 3).unwrap();
    let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert!(report.expectations >= 10, "{}", report.expectations);
}

#[test]
fn why_not_an_option_names_its_condition_with_the_values() {
    use actforge_runtime::engine::Subject;
    let mut session = Session::new(issues_sim(), 1).unwrap();
    // Turns go by until the hand holds an option its condition keeps out.
    for _ in 0..40 {
        let turns = session.turns().unwrap();
        for card in turns.hand.clone() {
            let options = session.content().project.cards.get(card.as_str()).unwrap().options.clone();
            for (option, offered) in options.iter().enumerate() {
                let Some(condition) = &offered.condition else { continue };
                let subject = Subject::Option { card: card.to_string(), option };
                let reasons = session.explain(&subject).unwrap();
                let offered_now = session.choices().contains(&Choice::PlayOption { card: card.clone(), option });
                assert_eq!(reasons.is_empty(), offered_now, "{reasons:?}");
                if let Some(reason) = reasons.first() {
                    assert_eq!(reason.item, format!("option `{}` of {card}", offered.label));
                    assert!(reason.text.starts_with(&format!("needs `{}`: ", condition.text())), "{reason:?}");
                    assert!(reason.text.contains(" is "), "the values it reads: {reason:?}");
                    // The condition rides traced: what makes it false is marked.
                    let trace = reason.trace.as_ref().expect("the option's condition is traced");
                    assert!(!trace.false_parts().is_empty(), "{trace:?}");
                    let word = actforge_runtime::engine::turns::option_word(&offered.label, option);
                    assert_eq!(session.parse_subject(&format!("option:{card}:{word}")).unwrap(), subject);
                    return;
                }
            }
        }
        if session.apply(&Choice::EndTurn).is_err() {
            break;
        }
    }
    panic!("no option was ever kept out by its condition");
}
