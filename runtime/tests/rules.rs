//! One rules core: the same rule content gives the same answers in every system that runs
//! rules — the table (an act's furthermore rules), the turns system (its rule collection), the
//! campaign (a phase's rules) and board play (a board's `on_roll` rules).
//!
//! Each probe rule holds or not; for each system a marker rule requires the probe (`and`) and,
//! when it runs, leaves a mark the test reads back through the session: a card at the table, a
//! stat in the turns and the campaign, a board variable in board play.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::collections::BTreeMap;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::model::{
    Act, ActModifier, Board, BoardModifier, BoardOp, Card, Effects, Expr, FragmentRef, Id, Location, MapNode, NodeMap,
    Phase, Project, Requirements, Rule, RuleId, Stat, StatModifier, StatOp, StatValue, Test, TestOp, Token, TurnConfig,
};

/// The card every system holds exactly one of: at the table it lies on the table, elsewhere
/// it is in the hand (tests count it; every location is the hand outside the table).
const COIN: &str = "coin";

/// The probe whose marker refers to itself through `furthermore`.
const ECHO: &str = "echo";

/// How many times the echo's marker runs before the depth limit cuts it: the first run is one
/// level deep, and at 32 its own `and` rule would be 33 deep.
const ECHOES: u32 = 31;

/// A test counting coins anywhere: `coins OP constant`.
fn coins(op: TestOp, constant: i64) -> Test {
    Test {
        loc1: Location::Anywhere,
        fragment1: Some(FragmentRef::Card(Id::new(COIN))),
        op,
        constant: Expr::int(constant),
        ..Test::default()
    }
}

fn rule(id: &str, invert: bool, requirements: Requirements) -> Rule {
    Rule { id: Id::new(id), invert, requirements, ..Rule::default() }
}

fn condition(text: &str) -> Requirements {
    Requirements { condition: Some(Expr::new(text)), ..Requirements::default() }
}

fn tests(list: Vec<Test>) -> Requirements {
    Requirements { tests: list, ..Requirements::default() }
}

fn ids(list: &[&str]) -> Vec<RuleId> {
    list.iter().map(|id| Id::new(*id)).collect()
}

/// The probe rules and whether each holds.
fn probes() -> Vec<(Rule, bool)> {
    let mut failing_can_fail = coins(TestOp::Equal, 2);
    failing_can_fail.can_fail = true;
    vec![
        (rule("plain", false, Requirements::default()), true),
        (rule("inverted", true, Requirements::default()), false),
        (rule("cond_zero", false, condition("0")), false),
        (rule("cond_nan", false, condition("0 / 0")), false),
        (rule("cond_negative", false, condition("-2")), true),
        (rule("inverted_nan", true, condition("0 / 0")), true),
        (rule("test_holds", false, tests(vec![coins(TestOp::Equal, 1)])), true),
        (rule("test_fails", false, tests(vec![coins(TestOp::Equal, 2)])), false),
        (rule("test_can_fail", false, tests(vec![failing_can_fail, coins(TestOp::MoreOrEqual, 1)])), true),
        (rule("inverted_test", true, tests(vec![coins(TestOp::Equal, 2)])), true),
        (
            rule("and_all", false, Requirements { and: ids(&["plain", "cond_negative"]), ..Requirements::default() }),
            true,
        ),
        (
            rule("and_one_fails", false, Requirements { and: ids(&["plain", "cond_zero"]), ..Requirements::default() }),
            false,
        ),
        (rule("or_one", false, Requirements { or: ids(&["cond_zero", "plain"]), ..Requirements::default() }), true),
        (
            rule("or_none", false, Requirements { or: ids(&["cond_zero", "cond_nan"]), ..Requirements::default() }),
            false,
        ),
        (rule("chain", false, Requirements { and: ids(&["chain_2"]), ..Requirements::default() }), true),
        (rule("chain_2", false, Requirements { and: ids(&["cond_negative"]), ..Requirements::default() }), true),
        // Holds; its marker runs itself again as a furthermore rule until the depth limit cuts
        // it with a warning (see ECHOES).
        (rule(ECHO, false, Requirements::default()), true),
        // constant × left beats any roll in 0..100 / 0 beats none.
        (rule("challenge_sure", false, tests(vec![coins(TestOp::RandomChallenge, 100)])), true),
        (
            rule(
                "challenge_never",
                false,
                tests(vec![Test { op: TestOp::RandomChallenge, constant: Expr::int(100), ..Test::default() }]),
            ),
            false,
        ),
        // left / (left + right) = 1 beats a draw in [0, 1].
        (rule("clash_sure", false, tests(vec![coins(TestOp::RandomClash, 0)])), true),
    ]
}

/// The probes, a coin, and one marker rule per probe made by `mark`.
fn base(mark: impl Fn(&str) -> Rule) -> Project {
    let mut project = Project::new("rules");
    project.cards.insert(Card { id: Id::new(COIN), label: "Coin".into(), ..Card::default() });
    for (probe, _) in probes() {
        let mut marker = mark(probe.id.as_str());
        if probe.id.as_str() == ECHO {
            marker.effects.furthermore = vec![marker.id.clone()];
        }
        project.rules.insert(marker);
        project.rules.insert(probe);
    }
    project
}

fn marker(system: &str, probe: &str, effects: Effects) -> Rule {
    Rule {
        id: Id::new(format!("{system}_{probe}")),
        requirements: Requirements { and: ids(&[probe]), ..Requirements::default() },
        effects,
        ..Rule::default()
    }
}

fn markers(system: &str) -> Vec<RuleId> {
    probes().iter().map(|(probe, _)| Id::new(format!("{system}_{}", probe.id))).collect()
}

/// Stored stats `ran_PROBE` at 0, raised by 1 when a stat marker runs.
fn stat_markers(project: &mut Project) {
    for (probe, _) in probes() {
        project.stats.insert(Stat {
            id: Id::new(format!("ran_{}", probe.id)),
            value: StatValue::Stored(Expr::int(0)),
            ..Stat::default()
        });
    }
}

fn stat_marker(system: &str) -> impl Fn(&str) -> Rule {
    let system = system.to_owned();
    move |probe| {
        let effects = Effects {
            stat_modifiers: vec![StatModifier {
                stat: Id::new(format!("ran_{probe}")),
                op: StatOp::Add,
                value: Expr::int(1),
            }],
            ..Effects::default()
        };
        marker(&system, probe, effects)
    }
}

/// Whether the warning of rules nesting too deeply was reported.
fn nested_too_deeply(events: &[Event]) -> bool {
    events.iter().any(|event| match event {
        Event::Warning(text) | Event::TurnWarning(text) => text.contains("rules nest too deeply"),
        _ => false,
    })
}

/// Checks the marks a system left: one per probe that holds, none for the others, and
/// [`ECHOES`] for the echo.
fn check(system: &str, marks: impl Fn(&str) -> f64) {
    for (probe, holds) in probes() {
        let expected = if probe.id.as_str() == ECHO { f64::from(ECHOES) } else { f64::from(u8::from(holds)) };
        assert_eq!(marks(probe.id.as_str()), expected, "{system}: marks of `{}`", probe.id);
    }
}

#[test]
fn the_table_runs_the_probes_as_an_acts_furthermore_rules() {
    let mut project = base(|probe| {
        let effects = Effects {
            act_modifiers: vec![ActModifier {
                fragment: Some(FragmentRef::Card(Id::new(format!("mark_{probe}")))),
                level: Expr::int(1),
                ..ActModifier::default()
            }],
            ..Effects::default()
        };
        marker("table", probe, effects)
    });
    for (probe, _) in probes() {
        project.cards.insert(Card { id: Id::new(format!("mark_{}", probe.id)), ..Card::default() });
    }
    project.manifest.entry.cards = vec![Id::new(COIN)];
    project.manifest.entry.tokens = vec![Id::new("bench")];
    project.tokens.insert(Token { id: Id::new("bench"), ..Token::default() });
    project.acts.insert(Act {
        id: Id::new("probe"),
        token: Some(Id::new("bench")),
        effects: Effects { furthermore: markers("table"), ..Effects::default() },
        ..Act::default()
    });
    let mut session = Session::new(project, 7).unwrap();
    let events = session.force_act("probe").unwrap();
    assert!(nested_too_deeply(&events), "{events:?}");
    check("table", |probe| session.query(&format!("anywhere.card.mark_{probe}")).unwrap());
}

#[test]
fn the_turns_system_runs_the_probes_in_its_rule_collection() {
    let mut project = base(stat_marker("turns"));
    stat_markers(&mut project);
    project.turn_configs.insert(TurnConfig {
        id: Id::new("turns"),
        initial_hand: vec![Id::new(COIN)],
        rules: markers("turns"),
        ..TurnConfig::default()
    });
    let mut session = Session::new(project, 7).unwrap();
    let events = session.apply(&Choice::EndTurn).unwrap();
    assert!(nested_too_deeply(&events), "{events:?}");
    check("turns", |probe| session.query(&format!("ran_{probe}")).unwrap());
}

#[test]
fn the_campaign_runs_the_probes_as_its_first_phases_rules() {
    let mut project = base(stat_marker("campaign"));
    stat_markers(&mut project);
    project.node_maps.insert(NodeMap {
        id: Id::new("map"),
        start: Some(Id::new("home")),
        nodes: vec![MapNode { id: Id::new("home"), ..MapNode::default() }],
        phases: vec![Phase { name: "dawn".into(), rules: markers("campaign"), no_moves: false }],
        hand: vec![Id::new(COIN)],
        ..NodeMap::default()
    });
    project.manifest.entry.node_map = Some(Id::new("map"));
    let session = Session::new(project, 7).unwrap();
    assert!(nested_too_deeply(session.start_events()), "{:?}", session.start_events());
    check("campaign", |probe| session.campaign_stat(&format!("ran_{probe}")).unwrap());
}

#[test]
fn board_play_runs_the_probes_when_the_die_is_rolled() {
    let mut project = base(|probe| {
        let effects = Effects {
            board_modifiers: vec![BoardModifier {
                op: BoardOp::SetVar,
                var: format!("ran_{probe}"),
                value: Expr::new(format!("board.own.var.ran_{probe} + 1")),
                ..BoardModifier::default()
            }],
            ..Effects::default()
        };
        marker("board", probe, effects)
    });
    project.cards.insert(Card { id: Id::new("d6"), ..Card::default() });
    let vars: BTreeMap<String, i64> = probes().iter().map(|(probe, _)| (format!("ran_{}", probe.id), 0)).collect();
    project.boards.insert(Board {
        id: Id::new("felt"),
        die: Some(Id::new("d6")),
        hand: vec![Id::new(COIN)],
        vars,
        on_roll: markers("board"),
        ..Board::default()
    });
    project.manifest.entry.boards = vec![Id::new("felt")];
    let mut session = Session::new(project, 7).unwrap();
    let events = session.apply(&Choice::RollDie { board: Id::new("felt") }).unwrap();
    assert!(nested_too_deeply(&events), "{events:?}");
    let state = session.board().unwrap();
    let (_, side) = state.side("felt").unwrap();
    check("board", |probe| {
        let at = state.var_names().iter().position(|name| *name == format!("ran_{probe}")).unwrap();
        side.vars[at] as f64
    });
}

/// Issue 27.3: a rule that names itself twice in `furthermore` would run 2^depth times; the
/// step's budget of rule runs cuts it with a warning, in every system that runs rules.
#[test]
fn a_rule_that_fans_out_is_cut_by_the_step_s_budget_of_rule_runs() {
    let mut project = Project::new("fan");
    project.cards.insert(Card { id: Id::new(COIN), label: "Coin".into(), ..Card::default() });
    project.stats.insert(Stat { id: Id::new("ran"), value: StatValue::Stored(Expr::int(0)), ..Stat::default() });
    project.rules.insert(Rule {
        id: Id::new("twice"),
        effects: Effects {
            stat_modifiers: vec![StatModifier { stat: Id::new("ran"), op: StatOp::Add, value: Expr::int(1) }],
            furthermore: ids(&["twice", "twice"]),
            ..Effects::default()
        },
        ..Rule::default()
    });
    project.turn_configs.insert(TurnConfig {
        id: Id::new("turns"),
        initial_hand: vec![Id::new(COIN)],
        rules: ids(&["twice"]),
        ..TurnConfig::default()
    });
    let mut session = Session::new(project, 7).unwrap();
    let events = session.apply(&Choice::EndTurn).unwrap();
    let cut = events.iter().any(|event| match event {
        Event::Warning(text) | Event::TurnWarning(text) => text.contains("rules ran in one step"),
        _ => false,
    });
    assert!(cut, "{events:?}");
    let ran = session.query("ran").unwrap();
    assert!(ran > 1_000.0 && ran <= 100_000.0, "ran {ran} times");
}
