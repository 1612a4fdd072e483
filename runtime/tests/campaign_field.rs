//! The synthesis beyond two cards of the hand (FORMAT.md §14 "Bonds, B alone, extras and
//! raids", "Hand modifiers", "Revelations"): an A and a B bound on the field gathering A's
//! tendencies each dawn, B played alone with the stand-in, decoration / descent / mutation read
//! as `synth.b.*`, the failure product and the extra summon in its place, the raid, cards played
//! on a target, per-card boosts, the pile modifiers and revelations drawn without repeats. A
//! small project written here; every number is worked out by hand.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::path::Path;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::model::Id;
use actforge_runtime::project::load_folder;
use actforge_runtime::{Severity, validate::validate};

fn write(root: &Path, file: &str, text: &str) {
    let path = root.join(file);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A (`ra`: fire 2, flow tendency 3, entropy tendency 1) and B (`gb`: fire 1, field flow 2,
/// decoration −1, descent 2, mutation 1); the only candidate `c1` succeeds exactly when B's field
/// flow reaches 8 or B is played alone. The synthesis costs `3 + decoration` flow; a bound pair
/// costs 3 compute. `x1` (3 points) is the extra; `slag` the failure product, which raids `wall`
/// (defence 1) off `enemy_core`. The revelation check always succeeds; its two revelations add 1
/// and 10 to `score`.
#[allow(clippy::too_many_lines)] // one project, written out in full
fn project(root: &Path, hand: &str, synthesis_extra: &str) -> Session {
    write(
        root,
        "project.ron",
        r#"(schema_version: 1, name: "Field", settings: (seed: 1), entry: (node_map: Some("land")))"#,
    );
    for (stat, value) in [("flow", 20), ("compute", 10), ("entropy", 0), ("score", 0), ("enemy_core", 30)] {
        write(root, &format!("stats/{stat}.ron"), &format!(r#"(id: "{stat}", value: Stored({value}))"#));
    }
    for aspect in ["card_a", "card_b", "card_c", "fire", "water", "product"] {
        write(root, &format!("aspects/{aspect}.ron"), &format!(r#"(id: "{aspect}")"#));
    }
    let cards = [
        (
            "ra",
            r#"[(fragment: Aspect("card_a")), (fragment: Aspect("fire"), count: 2)]"#,
            r#"{"flow_tendency": 3, "entropy_tendency": 1}"#,
        ),
        (
            "gb",
            r#"[(fragment: Aspect("card_b")), (fragment: Aspect("fire"))]"#,
            r#"{"field_flow": 2, "field_entropy": 0, "decoration": -1, "descent": 2, "mutation": 1}"#,
        ),
        (
            "c1",
            r#"[(fragment: Aspect("card_c")), (fragment: Aspect("fire"))]"#,
            r#"{"target_flow": 8, "attack": 3, "defence": 1, "life": 5}"#,
        ),
        ("stand", r#"[(fragment: Aspect("fire")), (fragment: Aspect("water"))]"#, "{}"),
        ("x1", r#"[(fragment: Aspect("card_c"))]"#, r#"{"points": 3, "attack": 1, "life": 2}"#),
        (
            "slag",
            r#"[(fragment: Aspect("card_c")), (fragment: Aspect("product"))]"#,
            r#"{"attack": 4, "defence": 0, "life": 3}"#,
        ),
        ("wall", "[]", r#"{"defence": 1, "life": 10}"#),
        ("mark", "[]", "{}"),
        ("copier", "[]", "{}"),
        ("sinker", "[]", "{}"),
        ("star", "[]", "{}"),
        ("drawer", "[]", "{}"),
        ("d1", "[]", "{}"),
        ("d2", "[]", "{}"),
        ("d3", r#"[(fragment: Aspect("card_c"))]"#, "{}"),
    ];
    for (card, fragments, properties) in cards {
        write(
            root,
            &format!("cards/{card}.ron"),
            &format!(r#"(id: "{card}", fragments: {fragments}, properties: {properties})"#),
        );
    }
    write(root, "decks/cs.ron", r#"(id: "cs", fragments: ["c1"])"#);
    write(root, "decks/extras.ron", r#"(id: "extras", fragments: ["x1"])"#);
    let rules = [
        (
            "born",
            r#"stat_modifiers: [(stat: "entropy", value: "synth.b.descent")], hand_modifiers: [(op: Boost, card: Result, property: "attack", amount: "synth.b.mutation * (1 - synth.solo)")]"#,
        ),
        (
            "extra_entropy",
            r#"stat_modifiers: [(stat: "entropy", value: "abs(synth.result.target_flow - synth.extra.points)")]"#,
        ),
        ("one", r#"stat_modifiers: [(stat: "score", value: 1)]"#),
        ("ten", r#"stat_modifiers: [(stat: "score", value: 10)]"#),
        ("temper", r#"hand_modifiers: [(op: Boost, property: "attack", amount: 2)]"#),
        ("copy_top", r"hand_modifiers: [(op: ToDeckTop)]"),
        ("sink", r#"hand_modifiers: [(op: SinkTop, amount: 3, keep: Some("card_c"))]"#),
        ("from_discard", r"hand_modifiers: [(op: DiscardToDeckTop, amount: 2)]"),
        ("draw_two", r"hand_modifiers: [(op: Draw, amount: 2)]"),
    ];
    for (rule, effects) in rules {
        write(root, &format!("rules/{rule}.ron"), &format!(r#"(id: "{rule}", effects: ({effects}))"#));
    }
    write(
        root,
        "syntheses/smelt.ron",
        &format!(
            r#"(
    id: "smelt",
    candidates: Some("cs"),
    tags: ["fire", "water"],
    temperature: 1,
    success_chance: "100 * (synth.b.field_flow >= 8 or synth.solo)",
    on_success: ["born"],
    revelation: Some((dice: 1, sides: 1, above: 0, retry_at_least: None)),
    revelations: [(id: "one", rules: ["one"]), (id: "ten", rules: ["ten"])],
    bond: Some((gather: {{"flow_tendency": "field_flow", "entropy_tendency": "field_entropy"}}, cost: 3, cost_stat: Some("compute"))),
    extras: Some("extras"),
    extra_rules: ["extra_entropy"],
    failure_product: Some("slag"),
    {synthesis_extra}
)"#
        ),
    );
    write(
        root,
        "node_maps/land.ron",
        &format!(
            r#"(
    id: "land",
    nodes: [(id: "home", x: 0, y: 0)],
    cost_stat: Some("flow"),
    phases: [(name: "dawn", no_moves: true), (name: "noon")],
    hand: {hand},
    synthesis: Some("smelt"),
    synthesis_cost: "3 + synth.b.decoration",
    synthesis_a: Some("card_a"),
    synthesis_b: Some("card_b"),
    cards: (
        decks: [(id: "main", cards: ["d1", "d2", "d3"])],
        cost_stat: Some("flow"),
        plays: [
            (card: "mark", upright: ["temper"], target: Some("card_c")),
            (card: "copier", upright: ["copy_top"], target: Some("card_c")),
            (card: "sinker", upright: ["sink"]),
            (card: "star", upright: ["from_discard"]),
            (card: "drawer", upright: ["draw_two"]),
        ],
    ),
    battles: (raid: Some((aspect: "product", against: "wall", stat: "enemy_core"))),
)"#
        ),
    );
    let project = load_folder(root).unwrap().project;
    let problems = validate(&project, &actforge_runtime::project::Sources::memory(), None);
    assert!(!problems.iter().any(|p| p.severity == Severity::Error), "{problems:?}");
    Session::new(project, 1).unwrap()
}

fn run(session: &mut Session, script: &str) -> Vec<Event> {
    let report = session
        .run_script(script)
        .unwrap_or_else(|error| panic!("{error}\n{}", session.describe_campaign().join("\n")));
    report.events.into_iter().map(|timed| timed.event).collect()
}

fn refused(session: &mut Session, script: &str) -> String {
    session.run_script(script).expect_err("the line is refused").message
}

fn query(session: &Session, formula: &str) -> f64 {
    session.query(formula).unwrap_or_else(|error| panic!("{formula}: {error}"))
}

fn boost(session: &Session, card: &str, property: &str) -> f64 {
    let campaign = session.campaign().unwrap();
    campaign.boosts.get(&Id::new(card)).and_then(|boosts| boosts.get(property)).copied().unwrap_or(0.0)
}

#[test]
fn a_bound_b_gathers_a_s_tendencies_each_dawn_and_the_pair_is_triggered_for_compute() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["ra", "gb"]"#, "");
    run(&mut session, "end-phase\nbind ra gb");
    let campaign = session.campaign().unwrap();
    assert!(campaign.hand.is_empty(), "both cards left the hand: {:?}", campaign.hand);
    assert_eq!(query(&session, "campaign.bonds"), 1.0);
    // Not yet gathered enough: field flow 2 + 3 after one dawn = 5 < 8 (a 0% chance).
    run(&mut session, "end-phase\nend-phase");
    assert_eq!(session.campaign().unwrap().bonds[0].gathered.get("field_flow"), Some(&3.0));
    assert_eq!(session.campaign().unwrap().bonds[0].gathered.get("field_entropy"), Some(&1.0));
    // After the second dawn: 2 + 6 = 8, the chance is 100%.
    run(&mut session, "end-phase\nend-phase");
    assert_eq!(session.campaign().unwrap().bonds[0].gathered.get("field_flow"), Some(&6.0));
    let events = run(&mut session, "trigger ra gb");
    assert!(
        events.iter().any(|e| matches!(e, Event::Synthesized { success: true, result, .. } if result.as_str() == "c1"))
    );
    // 3 compute, not the synthesis's flow.
    assert_eq!(query(&session, "compute"), 7.0);
    assert_eq!(query(&session, "flow"), 20.0);
    // Descent: entropy + 2; mutation: the result's attack + 1 (B was not alone).
    assert_eq!(query(&session, "entropy"), 2.0);
    assert_eq!(boost(&session, "c1", "attack"), 1.0);
    let campaign = session.campaign().unwrap();
    assert_eq!(campaign.hand, vec![Id::new("c1")]);
    assert!(campaign.bonds.is_empty());
    // The revelation check always succeeds: one of the two revelations was granted.
    assert_eq!(campaign.revealed.len(), 1);
    assert!([1.0, 10.0].contains(&query(&session, "score")));
    // Nothing is bound any more.
    assert!(refused(&mut session, "trigger ra gb").contains("no such A and B are bound"));
}

#[test]
fn a_failure_leaves_its_product_which_an_extra_summon_replaces_and_entropy_rises_by_the_gap() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["ra", "gb"]"#, "");
    // Field flow 2: a 0% chance. Decoration −1: the synthesis costs 2 flow.
    let events = run(&mut session, "end-phase\nsynthesize ra gb");
    assert!(events.iter().any(|e| matches!(e, Event::Synthesized { success: false, .. })));
    assert_eq!(query(&session, "flow"), 18.0);
    assert_eq!(session.campaign().unwrap().hand, vec![Id::new("slag")]);
    assert!(session.choices().contains(&Choice::SummonExtra { card: Id::new("x1") }));
    run(&mut session, "summon-extra x1");
    assert_eq!(session.campaign().unwrap().hand, vec![Id::new("x1")]);
    // |c1's target flow 8 − x1's 3 points| = 5.
    assert_eq!(query(&session, "entropy"), 5.0);
    assert!(refused(&mut session, "summon-extra x1").contains("no synthesis has just failed"));
}

#[test]
fn the_failure_product_raids_once_a_day_for_free_and_the_extra_summon_closes_after_another_step() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["ra", "gb"]"#, "");
    run(&mut session, "end-phase\nsynthesize ra gb\nraid slag");
    // max(1, attack 4 − defence 1) = 3 off the enemy core.
    assert_eq!(query(&session, "enemy_core"), 27.0);
    assert_eq!(query(&session, "flow"), 18.0, "the raid is free");
    assert!(refused(&mut session, "raid slag").contains("raided today already"));
    assert!(refused(&mut session, "summon-extra x1").contains("no synthesis has just failed"));
    run(&mut session, "end-phase\nend-phase\nraid slag");
    assert_eq!(query(&session, "enemy_core"), 24.0);
}

#[test]
fn b_alone_takes_the_stand_in_and_its_mutation_does_not_pass_on() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["gb"]"#, "");
    assert!(
        refused(&mut session, "end-phase\nsynthesize-alone gb").contains("no stand-in"),
        "without a stand-in B cannot be played alone"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["gb"]"#, r#"stand_in: Some("stand"),"#);
    let events = run(&mut session, "end-phase\nsynthesize-alone gb");
    assert!(events.iter().any(|e| matches!(e, Event::Synthesized { a, success: true, .. } if a.as_str() == "stand")));
    assert_eq!(query(&session, "flow"), 18.0);
    assert_eq!(query(&session, "entropy"), 2.0, "descent still applies");
    assert_eq!(boost(&session, "c1", "attack"), 0.0, "mutation does not pass on");
}

#[test]
fn a_play_on_a_target_boosts_that_card_and_the_pile_modifiers_move_cards_as_described() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["mark", "copier", "sinker", "star", "drawer", "c1"]"#, "");
    run(&mut session, "end-phase");
    let why = refused(&mut session, "play mark");
    assert!(why.contains("played on a card"), "{why}");
    assert!(session.choices().contains(&Choice::PlayCard {
        card: Id::new("mark"),
        reversed: false,
        target: Some(Id::new("c1"))
    }));
    run(&mut session, "play mark on c1");
    assert_eq!(boost(&session, "c1", "attack"), 2.0);
    let pile = |session: &Session| {
        session.campaign().unwrap().piles["main"].iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(pile(&session), "d1 d2 d3");
    run(&mut session, "play copier on c1");
    assert_eq!(pile(&session), "c1 d1 d2 d3");
    // The top three: c1 (a C card) stays, d1 and d2 sink in order.
    run(&mut session, "play sinker");
    assert_eq!(pile(&session), "c1 d3 d1 d2");
    // Discard pile (oldest first): mark copier sinker star; its top two go on top, star last.
    run(&mut session, "play star");
    assert_eq!(pile(&session), "star sinker c1 d3 d1 d2");
    run(&mut session, "play drawer");
    let hand: Vec<String> = session.campaign().unwrap().hand.iter().map(ToString::to_string).collect();
    assert_eq!(hand, ["c1", "star", "sinker"]);
    assert_eq!(pile(&session), "c1 d3 d1 d2");
}

#[test]
fn revelations_are_drawn_without_repeats_until_every_one_was_granted() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"["ra", "gb", "ra", "gb", "ra", "gb"]"#, "");
    run(&mut session, "end-phase\nsynthesize ra gb\nsynthesize ra gb");
    // Both revelations, one each: 1 + 10.
    assert_eq!(query(&session, "score"), 11.0);
    assert_eq!(query(&session, "campaign.revealed"), 2.0);
    // The list starts over.
    run(&mut session, "synthesize ra gb");
    assert_eq!(query(&session, "campaign.revealed"), 1.0);
    assert!([12.0, 21.0].contains(&query(&session, "score")));
}
