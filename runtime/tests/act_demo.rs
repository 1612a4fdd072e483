//! The `content/act-demo` pack (the winter apothecary): it is canonical and validates, it
//! compiles into a session, it has the acts and tokens it promises, its golden playtest passes,
//! and random play never panics, replays to the same state and sees cards decay.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::fmt::Write as _;
use std::path::PathBuf;

use actforge_runtime::engine::policy::{Move, RandomPolicy};
use actforge_runtime::engine::{Event, Outcome, Session};
use actforge_runtime::model::Project;
use actforge_runtime::project::load_folder;
use actforge_runtime::{Severity, validate::validate};

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn root() -> PathBuf {
    workspace().join("content/act-demo")
}

fn pack() -> Project {
    load_folder(&root()).unwrap().project
}

/// Every card with its place and every window with its status, act, title and texts.
fn describe(session: &Session) -> String {
    let state = session.state();
    let mut out = format!("tick {}\n", state.tick);
    for (key, window) in &state.windows {
        let _ = writeln!(
            out,
            "  token {key:?} {}: {:?} act {:?} alt {:?} title {:?} text {:?} end {:?}",
            window.token, window.status, window.active, window.pending_alt, window.title, window.text, window.end_text
        );
    }
    for (key, card) in &state.cards {
        let _ = writeln!(out, "  card {key:?}: {} {}", card.card, session.describe_place(*key));
    }
    out
}

const SPRING: &str = "Spring comes to the village, and the apothecary is still open.";
const MOURNING: &str = "Two graves by midwinter. The village stops knocking.";

/// Files below `path` (1 for a file).
fn count_files(path: &std::path::Path) -> usize {
    if path.is_dir() { std::fs::read_dir(path).unwrap().map(|e| count_files(&e.unwrap().path())).sum() } else { 1 }
}

#[test]
fn the_pack_is_canonical_and_validates_without_errors() {
    let root = root();
    let loaded = load_folder(&root).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    let files = actforge_runtime::project::render_files(&loaded.project).unwrap();
    for (relative, text) in &files {
        assert_eq!(&std::fs::read_to_string(root.join(relative)).unwrap(), text, "{}", relative.display());
    }
    // One item per file and nothing else: every `.ron` file in the folder is one the writer
    // prints (the pack's playtests in `tests/` are not content).
    let on_disk: usize = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| !path.ends_with("tests"))
        .map(|path| count_files(&path))
        .sum();
    assert_eq!(on_disk, files.len());
    // What `actforge check` runs.
    let found = validate(&loaded.project, &loaded.sources, Some(&root));
    assert!(found.iter().all(|d| d.severity != Severity::Error), "{found:?}");
    assert!(found.is_empty(), "warnings too: {found:?}");
    // Its sample language (a pseudo-translation) is complete and current.
    assert_eq!(loaded.project.manifest.localisation.languages, ["en-XA"]);
    let translations = actforge_runtime::locale::check_locales(&loaded.project, Some(&root));
    assert!(translations.is_empty(), "{translations:?}");
}

#[test]
fn the_pack_compiles_and_uses_the_table_system() {
    let project = pack();
    assert!(project.acts.len() >= 15, "{} acts", project.acts.len());
    assert!(project.tokens.len() >= 3, "{} tokens", project.tokens.len());
    // Only the table system: no maps, boards or turns.
    assert_eq!(
        project.tile_maps.len() + project.node_maps.len() + project.boards.len() + project.turn_configs.len(),
        0
    );
    let acts: Vec<_> = project.acts.iter().collect();
    let initial_tokens: std::collections::BTreeSet<_> =
        acts.iter().filter(|act| act.initial).filter_map(|act| act.token.clone()).collect();
    assert!(initial_tokens.len() >= 3, "initial acts on {initial_tokens:?}");
    assert!(acts.iter().any(|act| !act.alt_acts.is_empty()), "an alt act");
    assert!(acts.iter().any(|act| !act.spawned_acts.is_empty()), "a spawned act");
    let links = || acts.iter().flat_map(|act| act.next_acts.iter().chain(&act.alt_acts));
    assert!(links().any(|link| link.rule.is_some()), "a link decided by a rule");
    assert!(links().any(|link| !link.chance.is_zero()), "a link with a chance");
    let ends = acts.iter().flat_map(|act| &act.effects.path_modifiers).filter(|m| format!("{:?}", m.op) == "EndGame");
    assert_eq!(ends.count(), 2, "a winning and a losing ending");
    let slots: Vec<_> = project.slots.iter().collect();
    assert!(slots.iter().any(|slot| !slot.essential.is_empty()));
    assert!(slots.iter().any(|slot| !slot.forbidden.is_empty()));
    assert!(slots.iter().any(|slot| !slot.spawn_tests.is_empty()));
    let decks: Vec<_> = project.decks.iter().collect();
    assert!(decks.len() >= 2);
    assert!(decks.iter().any(|deck| deck.shuffle && deck.replenish));
    assert!(decks.iter().any(|deck| deck.default_fragment.is_some()));
    let cards: Vec<_> = project.cards.iter().collect();
    assert!(cards.iter().filter(|card| card.decay_to.is_some() && !card.lifetime_ticks.is_zero()).count() >= 3);
    assert!(cards.iter().any(|card| card.unique));
    let session = Session::new(project, 11).unwrap();
    assert_eq!(session.state().windows.len(), 5);
    assert_eq!(session.state().table.len(), 5);
}

#[test]
fn the_golden_playtest_passes_and_ends_in_spring() {
    let script = std::fs::read_to_string(workspace().join("content/act-demo/tests/act_demo.play")).unwrap();
    let mut hashes = Vec::new();
    for _ in 0..2 {
        let mut session = Session::new(pack(), 11).unwrap();
        let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}\n{}", describe(&session)));
        assert!(report.expectations >= 80, "{} expectations", report.expectations);
        assert_eq!(session.state().tick, 1610);
        assert_eq!(session.state().outcome, Some(Outcome::Ended(SPRING.to_owned())));
        let events: Vec<&Event> = report.events.iter().map(|timed| &timed.event).collect();
        let decayed: Vec<(&str, &str)> = events
            .iter()
            .filter_map(|event| match event {
                Event::CardTransformed { from, to, .. } => Some((from.as_str(), to.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(
            decayed,
            [("feverish_patient", "gravely_ill"), ("fresh_herb", "withered_herb"), ("feverish_patient", "gravely_ill")]
        );
        let spawned = events.iter().filter(|event| matches!(event, Event::TokenCreated { .. })).count();
        assert_eq!(spawned, 3, "the village came knocking after each brew");
        hashes.push(session.state_hash());
    }
    assert_eq!(hashes[0], hashes[1]);
}

#[test]
fn a_strong_draught_sells_for_two_pennies() {
    let mut session = Session::new(pack(), 11).unwrap();
    let script = "
        slot basket hedgerow
        start hedgerow
        wait 6s
        collect hedgerow
        slot fresh_herb workbench
        slot recipe_book workbench
        start workbench
        wait 7s
        collect workbench
        slot strong_draught market
        expect act market sell_remedy
        start market
        expect text market \"You set out Strong Draught on the stall.\"
        wait 3s
        expect end market \"Sold, for 2 penny(s).\"
        expect lane market coin*2
        collect market
        expect table.card.coin == 3 and anywhere.aspect.remedy == 0
    ";
    session.run_script(script).unwrap_or_else(|error| panic!("{error}\n{}", describe(&session)));
}

/// Plays `moves` random moves; returns the state hash, the moves made, the first move at which
/// a card decayed (a transform: this pack transforms cards only by decay) and the session.
fn random_play(seed: u64, moves: usize) -> (u64, usize, Option<usize>, Session) {
    let mut session = Session::new(pack(), seed).unwrap();
    let mut policy = RandomPolicy::new(seed);
    let mut made = 0;
    let mut first_decay = None;
    for _ in 0..moves {
        let events = match policy.step(&mut session) {
            Move::Stuck => break,
            Move::Chose(_, events) | Move::Waited(_, events) => events,
        };
        made += 1;
        assert!(session.query("anywhere.card.recipe_book").unwrap() <= 1.0, "the recipe book is unique");
        if first_decay.is_none() && events.iter().any(|event| matches!(event, Event::CardTransformed { .. })) {
            first_decay = Some(made);
        }
    }
    (session.state_hash(), made, first_decay, session)
}

#[test]
fn random_play_replays_and_sees_cards_decay() {
    for seed in 0..6 {
        let (hash, moves, first_decay, mut session) = random_play(seed, 600);
        let (again, again_moves, again_decay, _) = random_play(seed, 600);
        assert_eq!((hash, moves, first_decay), (again, again_moves, again_decay), "seed {seed}");
        let first_decay = first_decay.unwrap_or_else(|| panic!("seed {seed}: no decay\n{}", describe(&session)));
        assert!(first_decay <= 300, "seed {seed}: first decay at move {first_decay}");
        // A random apothecary treats nobody well: the fever spreads, two neighbours die and
        // the hearth's next night ends the game (well within the moves given).
        assert!(moves < 600, "seed {seed}: still playing");
        assert_eq!(session.state().outcome, Some(Outcome::Ended(MOURNING.to_owned())), "seed {seed}");
        let graves = session.state().cards.values().filter(|card| card.card.as_str() == "grave").count();
        assert!(graves >= 2, "seed {seed}: {graves} graves");
        // A grave is no longer a patient (its `on_decay_into` rule cleared the aspects).
        session
            .run_script("expect table.aspect.patient == table.card.feverish_patient + table.card.gravely_ill")
            .unwrap();
    }
}
