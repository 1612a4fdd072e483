//! Table fidelity to `spec/cultistlike.md` (issue 28): deck shuffle modes, formulas in counts
//! and lifetimes, the matched-cards count of a test without a fragment, and ForwardShift on
//! matched cards.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: counts are exact integers

use actforge_runtime::engine::{Choice, Event, Session, Status, Subject};
use actforge_runtime::model::{
    Act, Aspect, Card, Deck, DeckModifier, DeckOp, Effects, Expr, FragmentCount, FragmentRef, Id, Location, Project,
    Requirements, ShuffleMode, Slot, Test, Token,
};
use actforge_runtime::project::{load_folder, save_new_folder};
use actforge_runtime::validate::validate;

fn aspect(id: &str) -> FragmentRef {
    FragmentRef::Aspect(Id::new(id))
}

/// A `desk` token with a `tray` slot taking any card, the aspect `heat`, the cards of `cards`
/// (each also on the table at the start) and one act, `work`, run on the desk in 10 ticks.
fn desk(cards: &[&str], work: Act) -> Project {
    let mut project = Project::default();
    project.manifest.entry.tokens = vec![Id::new("desk")];
    project.manifest.entry.cards = cards.iter().map(|card| Id::new(*card)).collect();
    project.aspects.insert(Aspect { id: Id::new("heat"), ..Aspect::default() });
    for card in cards {
        project.cards.insert(Card { id: Id::new(*card), label: (*card).to_owned(), ..Card::default() });
    }
    project.slots.insert(Slot { id: Id::new("tray"), accept_all: true, ..Slot::default() });
    project.tokens.insert(Token { id: Id::new("desk"), slot: Some(Id::new("tray")), ..Token::default() });
    project.acts.insert(Act {
        id: Id::new("work"),
        token: Some(Id::new("desk")),
        initial: true,
        duration_ticks: Expr::int(10),
        ..work
    });
    project
}

/// Puts the first free card of type `card` into the desk's first slot place.
fn put(session: &mut Session, card: &str) {
    let token = session.find_token("desk").unwrap();
    let card = *session.state().cards.iter().find(|(_, c)| c.card.as_str() == card && c.free).unwrap().0;
    session.apply(&Choice::Slot { card, token, place: 0 }).unwrap();
}

/// Starts the desk's act and lets it finish; the events of the run.
fn run(session: &mut Session) -> Vec<Event> {
    let token = session.find_token("desk").unwrap();
    let mut events = session.apply(&Choice::Start { token }).unwrap();
    events.extend(session.advance(10));
    events
}

// ---------------------------------------------------------------------------------------
// 1. Deck order

const ENTRIES: [&str; 5] = ["first", "second", "third", "fourth", "fifth"];
const CYCLES: usize = 4;

/// The card types drawn, in order, by one act drawing `CYCLES` times the whole replenishing
/// deck of [`ENTRIES`] shuffled in `mode`.
fn drawn(mode: ShuffleMode, seed: u64) -> Vec<String> {
    let mut cards = vec!["spark"];
    cards.extend(ENTRIES);
    let draw = DeckModifier { deck: Some(Id::new("bag")), ..DeckModifier::default() };
    let work = Act {
        effects: Effects { deck_modifiers: vec![draw; ENTRIES.len() * CYCLES], ..Effects::default() },
        ..Act::default()
    };
    let mut project = desk(&cards, work);
    project.manifest.entry.cards = vec![Id::new("spark")];
    project.decks.insert(Deck {
        id: Id::new("bag"),
        fragments: ENTRIES.iter().map(|entry| Id::new(*entry)).collect(),
        shuffle: true,
        shuffle_mode: mode,
        replenish: true,
        ..Deck::default()
    });
    let mut session = Session::new(project, seed).unwrap();
    put(&mut session, "spark");
    run(&mut session)
        .into_iter()
        .filter_map(|event| match event {
            Event::CardCreated { card_type, .. } => Some(card_type.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_insertion_shuffle_draws_the_first_listed_entry_last_in_every_cycle() {
    let mut orders = std::collections::BTreeSet::new();
    for seed in 0..200 {
        let drawn = drawn(ShuffleMode::Insertion, seed);
        assert_eq!(drawn.len(), ENTRIES.len() * CYCLES, "seed {seed}: {drawn:?}");
        for cycle in drawn.chunks(ENTRIES.len()) {
            assert_eq!(cycle.last().map(String::as_str), Some("first"), "seed {seed}: {drawn:?}");
            let mut sorted = cycle.to_vec();
            sorted.sort();
            let mut all: Vec<String> = ENTRIES.iter().map(|e| (*e).to_owned()).collect();
            all.sort();
            assert_eq!(sorted, all, "a cycle draws every entry once: {drawn:?}");
            orders.insert(cycle.to_vec());
        }
    }
    // The other four are in every order (4! = 24) in front of it.
    assert_eq!(orders.len(), 24, "{orders:?}");
}

#[test]
fn the_uniform_shuffle_stays_the_default_and_draws_the_first_entry_anywhere() {
    assert_eq!(Deck::default().shuffle_mode, ShuffleMode::Uniform);
    let mut places = std::collections::BTreeSet::new();
    for seed in 0..50 {
        for cycle in drawn(ShuffleMode::Uniform, seed).chunks(ENTRIES.len()) {
            places.insert(cycle.iter().position(|entry| entry == "first").unwrap());
        }
    }
    assert_eq!(places.len(), ENTRIES.len(), "{places:?}");
}

// ---------------------------------------------------------------------------------------
// 2. Formulas in counts and lifetimes

#[test]
fn formulas_in_card_counts_and_lifetimes_are_evaluated() {
    let mut project = desk(&["ember", "ash"], Act::default());
    let ember = project.cards.get_mut("ember").unwrap();
    ember.fragments = vec![FragmentCount { fragment: aspect("heat"), count: Expr::new("1 + 2") }];
    // Read on the card itself, as a decay rule would: 10 × 3 heat = 30 ticks.
    ember.lifetime_ticks = Expr::new("10 * scope.aspect.heat");
    ember.decay_to = Some(Id::new("ash"));
    project.manifest.entry.cards = vec![Id::new("ember")];
    let mut session = Session::new(project, 1).unwrap();
    assert_eq!(session.query("anywhere.aspect.heat").unwrap(), 3.0, "the count formula, not 1");
    // 30 ticks plus the half-second shrink (5 ticks).
    session.advance(34);
    assert_eq!(session.query("anywhere.card.ember").unwrap(), 1.0);
    session.advance(1);
    assert_eq!(session.query("anywhere.card.ash").unwrap(), 1.0, "the lifetime formula, not 'never decays'");
}

#[test]
fn formulas_in_slot_and_act_fragment_counts_are_evaluated_and_a_slot_removes_what_it_added() {
    let work = Act {
        fragments: vec![FragmentCount { fragment: aspect("heat"), count: Expr::new("2 * 2") }],
        ..Act::default()
    };
    let mut project = desk(&["spark", "stone", "stick"], work);
    // 10 minus the cards on the table: 8 with one of the three cards slotted.
    project.slots.get_mut("tray").unwrap().fragments =
        vec![FragmentCount { fragment: aspect("heat"), count: Expr::new("10 - table.cards") }];
    let mut session = Session::new(project.clone(), 1).unwrap();
    put(&mut session, "spark");
    assert_eq!(session.query("anywhere.aspect.heat").unwrap(), 8.0);
    let token = session.find_token("desk").unwrap();
    session.apply(&Choice::Unslot { token, place: 0 }).unwrap();
    assert_eq!(session.query("anywhere.aspect.heat").unwrap(), 0.0, "the 8 added are removed (not 10 - 3 = 7)");

    project.slots.get_mut("tray").unwrap().fragments.clear();
    let mut session = Session::new(project, 1).unwrap();
    put(&mut session, "spark");
    run(&mut session);
    assert_eq!(session.query("anywhere.aspect.heat").unwrap(), 4.0, "the act's count formula, not 1");
}

#[test]
fn check_says_where_a_count_cannot_be_a_formula() {
    let mut project = desk(&["spark"], Act::default());
    project.slots.get_mut("tray").unwrap().required =
        vec![FragmentCount { fragment: aspect("heat"), count: Expr::new("table.cards") }];
    let dir = tempfile::tempdir().unwrap();
    save_new_folder(&project, dir.path()).unwrap();
    let loaded = load_folder(dir.path()).unwrap();
    let found = validate(&loaded.project, &loaded.sources, Some(dir.path()));
    let error = found
        .iter()
        .find(|d| d.message.contains("must be a whole number"))
        .unwrap_or_else(|| panic!("no error about the formula: {found:#?}"));
    assert!(error.file.as_ref().is_some_and(|file| file.ends_with("slots/tray.ron")), "{error}");
    assert!(error.position.is_some(), "{error}");
    assert!(error.message.contains("`table.cards`"), "{error}");
    let shown = error.to_string();
    let text = std::fs::read_to_string(dir.path().join("slots/tray.ron")).unwrap();
    let position = error.position.unwrap();
    let line = text.lines().nth(position.line - 1).unwrap();
    assert!(line.contains("table.cards"), "{shown} points at `{line}`");
}

// ---------------------------------------------------------------------------------------
// 5. A test at MatchedCards without a fragment counts the matched cards

fn matched_cards_at_least(count: i64) -> Act {
    Act {
        requirements: Requirements {
            tests: vec![Test { loc1: Location::MatchedCards, constant: Expr::int(count), ..Test::default() }],
            ..Requirements::default()
        },
        ..Act::default()
    }
}

#[test]
fn a_test_at_matched_cards_without_a_fragment_counts_the_matched_cards() {
    let status = |count: i64| {
        let mut session = Session::new(desk(&["spark"], matched_cards_at_least(count)), 1).unwrap();
        put(&mut session, "spark");
        let token = session.find_token("desk").unwrap();
        session.state().window(token).unwrap().status.clone()
    };
    assert_eq!(status(1), Status::Ready(Id::new("work")), "one card in the window: 1 matched card ≥ 1");
    assert_eq!(status(2), Status::Idle, "but not ≥ 2");
}

#[test]
fn why_not_names_the_matched_cards_a_fragmentless_test_counts() {
    let mut session = Session::new(desk(&["spark"], matched_cards_at_least(2)), 1).unwrap();
    put(&mut session, "spark");
    let reasons = session.explain(&Subject::Act { act: "work".to_owned(), window: None }).unwrap();
    let texts: Vec<String> = reasons.iter().map(|reason| reason.text.clone()).collect();
    assert!(texts.iter().any(|text| text.starts_with("needs cards ≥ 2") && text.ends_with(": 1")), "{texts:?}");
}

// ---------------------------------------------------------------------------------------
// 8. ForwardShift on matched cards

#[test]
fn forward_shift_on_matched_cards_moves_each_to_the_next_entry_of_the_deck() {
    let shift = DeckModifier {
        op: DeckOp::ForwardShift,
        deck: Some(Id::new("ages")),
        fragment: Some(FragmentRef::MatchedCards),
        ..DeckModifier::default()
    };
    let work = Act { effects: Effects { deck_modifiers: vec![shift], ..Effects::default() }, ..Act::default() };
    let mut project = desk(&["young", "adult", "old"], work);
    project.manifest.entry.cards = vec![Id::new("young")];
    project.decks.insert(Deck {
        id: Id::new("ages"),
        fragments: vec![Id::new("young"), Id::new("adult"), Id::new("old")],
        ..Deck::default()
    });
    let mut session = Session::new(project, 1).unwrap();
    put(&mut session, "young");
    let events = run(&mut session);
    assert!(
        events.iter().any(|event| matches!(event, Event::CardTransformed { from, to, .. }
            if from.as_str() == "young" && to.as_str() == "adult")),
        "{events:?}"
    );
    assert_eq!(session.query("anywhere.card.adult").unwrap(), 1.0);
    assert_eq!(session.query("anywhere.card.young").unwrap(), 0.0);
    let left: Vec<&str> = session.state().decks["ages"].iter().map(Id::as_str).collect();
    assert_eq!(left, ["young", "old"], "the entry taken is gone from the deck");
}
