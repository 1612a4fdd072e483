//! Issue 28.14: the board ops the seed's further cards need (destroy across columns, an extra
//! placement, a twin die, setting the die's value, cards after the roll, cell variables) and
//! hidden information (`Session::view`, `Session::seen_by`), with content/knucklebones-extended.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::path::PathBuf;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::model::{Id, Project};
use actforge_runtime::project::load_folder;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/knucklebones-extended")
}

fn extended() -> Project {
    load_folder(&root()).unwrap().project
}

fn session(seed: u64, script: &str) -> Session {
    let mut session = Session::new(extended(), seed).unwrap();
    if let Err(error) = session.run_script(script) {
        panic!("{error}");
    }
    session
}

fn apply(session: &mut Session, choice: &Choice) -> Vec<Event> {
    session.apply(choice).unwrap_or_else(|error| panic!("{choice:?}: {error:?}"))
}

#[test]
fn the_pack_is_canonical_and_validates_without_warnings() {
    let loaded = load_folder(&root()).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    for (relative, text) in actforge_runtime::project::render_files(&loaded.project).unwrap() {
        assert_eq!(std::fs::read_to_string(root().join(&relative)).unwrap(), text, "{}", relative.display());
    }
    let found = actforge_runtime::validate::validate(&loaded.project, &loaded.sources, Some(&root()));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_trap_is_secret_from_the_trapped_side_and_a_hidden_die_from_its_roller() {
    let s = session(3, "setup turn player_one\nability ground_trap 2,1");
    let board = s.board().unwrap();
    let (_, two) = board.side("player_two").unwrap();
    assert_eq!(board.cell_var(two, 2, 1, "trap"), Some(1));
    // Player one set it and sees it; player two does not.
    let seen_by_one = s.view("player_one").unwrap();
    let seen_by_two = s.view("player_two").unwrap();
    let trap =
        |view: &actforge_runtime::engine::board::BoardView| board.cell_var(&view.game.sides[1], 2, 1, "trap").unwrap();
    assert_eq!(trap(&seen_by_one), 1);
    assert_eq!(trap(&seen_by_two), 0);

    // Foggy sight: player two's next roll is hidden from player two only, until placed.
    let mut s = session(3, "setup turn player_one\nability foggy_sight\nroll 2\nplace player_one 1\nroll 5");
    let two = s.view("player_two").unwrap();
    assert!(two.die_hidden);
    assert_eq!(two.game.die.as_ref().unwrap().value, 0);
    let one = s.view("player_one").unwrap();
    assert!(!one.die_hidden);
    assert_eq!(one.game.die.as_ref().unwrap().value, 5);
    // Its policy weighs every value the die could show, in games where rolls are not foretold.
    let worlds = s.seen_by("player_two");
    let values: Vec<i64> = worlds.iter().map(|w| w.board().unwrap().game.die.as_ref().unwrap().value).collect();
    assert_eq!(values, vec![1, 2, 3, 4, 5, 6]);
    apply(&mut s, &Choice::PlaceOnBoard { board: Id::new("player_two"), column: 2 });
    assert!(!s.view("player_two").unwrap().die_hidden);
    assert_eq!(s.board().unwrap().game.sides[1].cell(2, 1).unwrap().value, 5);
}

#[test]
fn seen_by_does_not_foretell_the_next_roll() {
    // The real game and the seen one roll from different generators: over many positions the
    // seen roll differs from the real one about five times in six.
    let mut differ = 0;
    for seed in 0..60 {
        let s = session(seed, "setup turn player_one");
        let mut real = s.clone();
        let mut seen = s.seen_by("player_one").remove(0);
        let roll = Choice::RollDie { board: Id::new("player_one") };
        apply(&mut real, &roll);
        apply(&mut seen, &roll);
        let value = |s: &Session| s.board().unwrap().game.die.as_ref().unwrap().value;
        differ += usize::from(value(&real) != value(&seen));
    }
    assert!((35..=58).contains(&differ), "{differ} of 60 seen rolls differ from the real ones");
}

#[test]
fn the_trapped_side_s_seen_game_has_no_trap_and_the_real_one_springs_it() {
    // Player one's trap waits at 1,1 of player two's empty board; a 6 is rolled for player two.
    // In the game player two sees, column 1 scores like any other; in the real one the die dies.
    let mut into_trap = 0;
    for seed in 0..40 {
        let s = session(seed, "setup turn player_one\nability ground_trap 1,1\nroll 1\nplace player_one 3\nroll 6");
        let worlds = s.seen_by("player_two");
        assert_eq!(worlds.len(), 1);
        let trial = |world: &Session, column: u32| {
            let mut trial = world.clone();
            trial.apply(&Choice::PlaceOnBoard { board: Id::new("player_two"), column }).unwrap();
            trial.query("board.player_two.score").unwrap()
        };
        assert_eq!(trial(&worlds[0], 1), 6.0, "the seen game knows no trap");
        let mut real = s.clone();
        assert_eq!(trial(&real, 1), 0.0, "the real game destroys the trapped die");
        let events = apply(&mut real, &Choice::PlaceOnBoard { board: Id::new("player_two"), column: 1 });
        into_trap += usize::from(events.iter().any(|event| matches!(event, Event::BoardDestroyed { .. })));
    }
    assert_eq!(into_trap, 40);
}

#[test]
fn destroyer_extra_dice_and_twins_follow_their_ops() {
    // Destroyer: every 3 of player two's board, column by column, leaves; column 2 compacts.
    let mut s = session(
        1,
        "setup turn player_one
         set cell player_two 1 1 3
         set cell player_two 2 1 3
         set cell player_two 2 2 5
         set cell player_two 3 1 3
         ability destroyer",
    );
    let events = s.run_script("roll 3").unwrap().events;
    let destroyed = events.iter().filter(|e| matches!(e.event, Event::BoardDestroyed { .. })).count();
    assert_eq!(destroyed, 3);
    assert_eq!(s.board().unwrap().game.sides[1].cell(2, 1).unwrap().value, 5);

    // Doubler on a board with one free cell left: the copy is lost with a warning and the turn ends.
    let mut s = session(
        1,
        "setup turn player_one
         set cell player_one 1 1 1
         set cell player_one 1 2 2
         set cell player_one 1 3 3
         set cell player_one 2 1 4
         set cell player_one 2 2 5
         set cell player_one 2 3 6
         set cell player_one 3 1 1
         set cell player_one 3 2 2
         ability doubler
         roll 4",
    );
    let events = apply(&mut s, &Choice::PlaceOnBoard { board: Id::new("player_one"), column: 3 });
    assert!(events.iter().any(|e| matches!(e, Event::Warning(w) if w.contains("no free cell for its extra die"))));
    assert!(s.board().unwrap().game.outcome.is_some(), "the full board ends the game");

    // Twin die into a column with one free cell: the twin finds no room; nothing else happens.
    let mut s = session(
        1,
        "setup turn player_one\nset cell player_one 2 1 6\nset cell player_one 2 2 6\nability twin_die\nroll 2",
    );
    let events = apply(&mut s, &Choice::PlaceOnBoard { board: Id::new("player_one"), column: 2 });
    assert!(!events.iter().any(|e| matches!(e, Event::BoardDieAdded { .. })));
    assert_eq!(s.board().unwrap().game.sides[0].cell(2, 3).unwrap().value, 2);
}

#[test]
fn reroll_rolls_the_die_in_hand_again_through_the_roll_filter() {
    // With an odd destiny still set (setup var skips the roll that forgets it), every re-roll is odd.
    for seed in 0..30 {
        let mut s = session(seed, "setup turn player_one\nroll 2\nsetup var player_one destiny 2");
        let events = s.run_script("ability reroll").unwrap().events;
        let rolled: Vec<i64> = events
            .iter()
            .filter_map(|e| match e.event {
                Event::BoardRolled { value, .. } => Some(value),
                _ => None,
            })
            .collect();
        assert_eq!(rolled.len(), 1);
        assert_eq!(rolled[0] % 2, 1, "seed {seed}: rolled {rolled:?}");
        assert_eq!(s.board().unwrap().game.die.as_ref().unwrap().value, rolled[0]);
    }
}

#[test]
fn new_ops_and_fields_are_checked() {
    let mut project = extended();
    let board = project.boards.get_mut("player_one").unwrap();
    board.secret.push("nothing_here".to_owned());
    let rule = project.rules.get_mut("set_trap").unwrap();
    rule.effects.board_modifiers[0].var = "pit".to_owned();
    let rule = project.rules.get_mut("reroll_die").unwrap();
    rule.effects.board_modifiers[0].all_columns = true;
    let formula = project.formulas.get_mut("facing_match").unwrap();
    formula.expr = actforge_runtime::model::Expr::from("cell.var.pit > 0");
    let found = actforge_runtime::validate::validate(&project, &actforge_runtime::project::Sources::default(), None);
    let messages: Vec<String> = found.iter().map(|d| d.message.clone()).collect();
    let has = |text: &str| messages.iter().any(|m| m.contains(text));
    assert!(has("`nothing_here` is not a variable of this board"), "{messages:#?}");
    assert!(has("no board declares `pit` in its cell_vars"), "{messages:#?}");
    assert!(has("Reroll ignores all_columns"), "{messages:#?}");
    assert!(has("no board has the cell variable `pit`"), "{messages:#?}");
}

#[test]
fn why_not_says_when_a_card_is_played() {
    let s = session(1, "setup turn player_one");
    let why = s.explain(&s.parse_subject("ability:reroll").unwrap()).unwrap();
    assert!(why[0].text.contains("played after rolling"), "{why:?}");
    let s = session(1, "setup turn player_one\nroll 3");
    let why = s.explain(&s.parse_subject("ability:doubler").unwrap()).unwrap();
    assert!(why[0].text.contains("played before rolling"), "{why:?}");
    let refused = session(1, "setup turn player_one").run_script("ability reroll").unwrap_err();
    assert!(refused.message.contains("played after rolling, before placing"), "{}", refused.message);
}
