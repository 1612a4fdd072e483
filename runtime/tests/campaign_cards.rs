//! The campaign's card cycle (FORMAT.md §14 "Cards"): the dawn draw to the hand limit, extra
//! draws for flow, playing upright and reversed cards for a cost, the discard pile going back
//! to the decks at the end of the day (top, or bottom by aspect), an empty pile's penalty and
//! the share of the discard pile shuffled back, era decks and the off-era penalty, and the
//! refusals that say why. A small project written here; every number is worked out by hand.
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

/// Two eras of one day each; the `main` deck (a1 a2 a3 b1) belongs to `first`, `other` (x) to
/// `second`; flow pays for plays (1 each) and extra draws (3); `sinks` cards go to the bottom.
fn project(root: &Path, cycle_extra: &str) -> Session {
    write(
        root,
        "project.ron",
        r#"(schema_version: 1, name: "Cycle", settings: (seed: 1), entry: (node_map: Some("land")))"#,
    );
    write(root, "stats/flow.ron", r#"(id: "flow", value: Stored(10), min: Some("0"))"#);
    write(root, "stats/score.ron", r#"(id: "score", value: Stored(0))"#);
    write(root, "stats/flip.ron", r#"(id: "flip", value: Stored(0))"#);
    write(root, "stats/gold.ron", r#"(id: "gold", value: Stored(5), min: Some("0"))"#);
    write(root, "aspects/sinks.ron", r#"(id: "sinks")"#);
    for card in ["a1", "a2", "a3", "x"] {
        write(root, &format!("cards/{card}.ron"), &format!(r#"(id: "{card}")"#));
    }
    write(root, "cards/b1.ron", r#"(id: "b1", fragments: [(fragment: Aspect("sinks"))])"#);
    for (rule, stat, value) in
        [("gain", "score", 1), ("lose", "score", -1), ("penalty", "score", 10), ("off", "score", 100)]
    {
        write(
            root,
            &format!("rules/{rule}.ron"),
            &format!(r#"(id: "{rule}", effects: (stat_modifiers: [(stat: "{stat}", value: {value})]))"#),
        );
    }
    write(root, "eras/first.ron", r#"(id: "first", duration_turns: 1, next: Some("second"))"#);
    write(root, "eras/second.ron", r#"(id: "second", duration_turns: 1, next: Some("first"))"#);
    write(
        root,
        "node_maps/land.ron",
        &format!(
            r#"(
    id: "land",
    nodes: [(id: "home", x: 0, y: 0)],
    cost_stat: Some("flow"),
    first_era: Some("first"),
    phases: [(name: "dawn", no_moves: true), (name: "noon")],
    cards: (
        decks: [
            (id: "main", cards: ["a1", "a2", "a3", "b1"], eras: ["first"]),
            (id: "other", cards: ["x"], eras: ["second"]),
        ],
        draw_phase: Some("dawn"),
        hand_limit: 3,
        extra_draw_cost: 3,
        reversed_chance: "flip",
        off_era: ["off"],
        on_empty: ["penalty"],
        bottom_aspect: Some("sinks"),
        plays: [
            (card: "a1", cost: 1, upright: ["gain"], reversed: ["lose"]),
            (card: "a2", cost: 1, upright: ["gain"]),
            (card: "b1", upright: ["gain"]),
        ],
        {cycle_extra}
    ),
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

fn query(session: &Session, formula: &str) -> f64 {
    session.query(formula).unwrap_or_else(|error| panic!("{formula}: {error}"))
}

#[test]
fn the_dawn_draws_to_the_limit_cards_play_for_flow_and_discards_return_to_their_deck() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), "");
    // Dawn of day 1: three cards off the top of `main`; one (b1) is left in its pile.
    run(&mut session, "expect hand a1 a2 a3\nexpect campaign.draw_pile == 1\nexpect phase dawn");
    // No card is played at dawn; one more costs 3 flow; the other deck may be chosen.
    let choices = session.choices();
    assert!(!choices.iter().any(|c| matches!(c, Choice::PlayCard { .. } | Choice::DiscardCard { .. })), "{choices:?}");
    assert!(choices.contains(&Choice::DrawCard), "{choices:?}");
    assert!(choices.contains(&Choice::UseDeck { deck: "other".to_owned() }), "{choices:?}");
    let events = run(&mut session, "draw\nexpect hand a1 a2 a3 b1\nexpect meter flow == 7");
    assert!(events.contains(&Event::CardDrawn { card: Id::new("b1"), reversed: false, deck: "main".to_owned() }));
    // Both piles are empty now: nothing is left to draw.
    let error = session.run_script("draw").unwrap_err();
    assert!(error.message.contains("the deck's pile and the discard pile are empty"), "{error}");
    // At noon: a1 costs 1 and scores 1 (onto the discard pile); a2 and b1 are discarded from
    // the hand (they go back to `main` tonight); a3 has no play.
    run(&mut session, "end-phase\nplay a1\ndiscard a2\ndiscard b1\nexpect meter flow == 6\nexpect meter score == 1");
    run(&mut session, "expect hand a3\nexpect campaign.discard == 1");
    let error = session.run_script("play a3").unwrap_err();
    assert!(error.message.contains("no `plays` entry"), "{error}");
    // The day ends: a2 goes on top of `main`, b1 (it `sinks`) to the bottom. The era `second`
    // begins and its deck `other` is drawn from: x, then its pile is empty, so the `penalty`
    // rule runs (score + 10) and half of the discard pile (a1, at least one card) comes back.
    let events = run(&mut session, "end-phase\nexpect era second\nexpect hand a3 x a1\nexpect campaign.discard == 0");
    assert!(events.contains(&Event::DiscardsReturned { cards: 2 }), "{events:?}");
    assert!(events.contains(&Event::PileReshuffled { deck: "other".to_owned(), cards: 1 }), "{events:?}");
    assert_eq!(query(&session, "campaign.off_era"), 0.0);
    assert_eq!(query(&session, "score"), 11.0);
    // Drawing from `main` now is off-era: the `off` rule runs (score + 100) before each draw.
    let events = run(&mut session, "use-deck main\nexpect campaign.off_era == 1\ndraw\nexpect hand a3 x a1 a2");
    assert!(events.contains(&Event::CardDrawn { card: Id::new("a2"), reversed: false, deck: "main".to_owned() }));
    // With 2 flow and a floor of 0, another draw would pass the credit limit.
    let error = session.run_script("set meter flow 2\ndraw").unwrap_err();
    assert!(error.message.contains("paying that cost would go past the meter's credit limit"), "{error}");
    run(
        &mut session,
        "set meter flow 3\ndraw\nexpect hand a3 x a1 a2 b1\nexpect meter score == 211\nexpect meter flow == 0",
    );
}

#[test]
fn an_empty_pile_shuffles_the_share_of_the_discard_pile_back_after_its_penalty() {
    for (share, back, left) in [("", 2, 1), ("reshuffle_share: 1,", 3, 0)] {
        let dir = tempfile::tempdir().unwrap();
        let mut session = project(dir.path(), share);
        // Day 1: a1, a2 and b1 played (3 on the discard pile), a3 discarded from the hand.
        run(&mut session, "draw\nend-phase\nplay a1\nplay a2\nplay b1\ndiscard a3\nexpect campaign.discard == 3");
        // Day 2 draws 3 from `other`: x, then its empty pile runs `penalty` once and takes back
        // round(3 × share) cards of the discard pile, picked at random (at least one).
        let events = run(&mut session, "end-phase\nexpect era second\nexpect meter score == 13");
        assert!(events.contains(&Event::PileReshuffled { deck: "other".to_owned(), cards: back }), "{events:?}");
        assert_eq!(query(&session, "campaign.hand"), 3.0);
        assert_eq!(query(&session, "campaign.discard"), f64::from(left));
        assert_eq!(query(&session, "campaign.draw_pile"), f64::from(back - 2));
    }
}

#[test]
fn reversed_cards_play_their_reversed_rules() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), "");
    // With `flip` at 1 every drawn card comes reversed.
    run(&mut session, "set meter flip 1\ndraw\nexpect hand a1 a2 a3 b1\nexpect campaign.reversed == 1");
    let error = session.run_script("end-phase\nplay b1").unwrap_err();
    assert!(error.message.contains("the hand does not hold those cards"), "{error}");
    // b1 is reversed and has no reversed rules: its upright ones run.
    run(&mut session, "play b1 reversed\nexpect meter score == 1\nplay a1\nexpect meter score == 2");
    let error = session.run_script("play a1 reversed").unwrap_err();
    assert!(error.message.contains("the hand does not hold those cards"), "{error}");
    assert_eq!(query(&session, "campaign.reversed"), 0.0);
}

#[test]
fn a_reversed_copy_plays_its_reversed_rules_and_the_hand_says_which_copy_is_reversed() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), "");
    // Day 1 with flip 0 draws a1 a2 a3 upright; day 2 (flip 1) draws x and then, from the
    // discard pile, a1 (played on day 1), both reversed; a2 and a3 went back to `main`.
    run(&mut session, "end-phase\nplay a1\ndiscard a2\ndiscard a3\nset meter flip 1\nend-phase");
    run(&mut session, "expect hand x a1\nexpect campaign.reversed == 2\nend-phase");
    assert!(session.describe_campaign().iter().any(|line| line == "  hand: x (reversed) a1 (reversed)"));
    run(&mut session, "play a1 reversed\nexpect meter score == 10\nexpect meter flow == 8");
}

#[test]
fn check_reports_an_unknown_draw_phase_and_twice_named_decks_and_plays() {
    let dir = tempfile::tempdir().unwrap();
    project(dir.path(), "");
    let map = dir.path().join("node_maps/land.ron");
    let text = std::fs::read_to_string(&map).unwrap();
    let broken = text
        .replace(r#"draw_phase: Some("dawn")"#, r#"draw_phase: Some("sunrise")"#)
        .replace(r#"(id: "other", cards: ["x"]"#, r#"(id: "main", cards: []"#)
        .replace(r#"(card: "b1", upright: ["gain"])"#, r#"(card: "a1")"#);
    std::fs::write(&map, broken).unwrap();
    let project = load_folder(dir.path()).unwrap().project;
    let problems: Vec<String> = validate(&project, &actforge_runtime::project::Sources::memory(), None)
        .iter()
        .map(|problem| {
            format!("{:?} {}: {}", problem.severity, problem.field.as_deref().unwrap_or(""), problem.message)
        })
        .collect();
    let has = |text: &str| problems.iter().any(|problem| problem.contains(text));
    assert!(has("cards.draw_phase: the map has no phase `sunrise` (its phases: dawn, noon)"), "{problems:#?}");
    assert!(has("cards.decks[1].id: two decks are called `main`"), "{problems:#?}");
    assert!(has("Warning cards.decks[1].cards: the deck has no cards"), "{problems:#?}");
    assert!(has("cards.plays[2].card: `a1` is played by an earlier entry"), "{problems:#?}");
}

#[test]
fn the_cycle_may_pay_from_its_own_meter() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = project(dir.path(), r#"cost_stat: Some("gold"),"#);
    // Draws and plays pay gold; flow (the map's path meter) stays at 10.
    run(&mut session, "draw\nend-phase\nplay a1\nexpect meter gold == 1\nexpect meter flow == 10");
    let error = session.run_script("set meter gold 0\nplay a2").unwrap_err();
    assert!(error.message.contains("credit limit"), "{error}");
}
