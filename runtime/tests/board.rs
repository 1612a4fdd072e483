//! Boards through the Session API with the Knucklebones pack (content/knucklebones): placement,
//! destruction in the facing column, column scoring, the diagonal bonus, Exodia, the four
//! ability cards, the game's end and winner, random play and the golden playtest.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: scores are exact integers

use std::fmt::Write as _;
use std::path::PathBuf;

use actforge_runtime::engine::policy::{Move, RandomPolicy};
use actforge_runtime::engine::{Choice, Event, Outcome, Session};
use actforge_runtime::model::{Expr, Id, Project};
use actforge_runtime::project::load_folder;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn knucklebones() -> Project {
    load_folder(&workspace().join("content/knucklebones")).unwrap().project
}

/// A session where player one is to play.
fn session(seed: u64) -> Session {
    let mut session = Session::new(knucklebones(), seed).unwrap();
    run(&mut session, "setup turn player_one");
    session
}

fn run(session: &mut Session, script: &str) {
    if let Err(error) = session.run_script(script) {
        panic!("{error}\nboards:\n{}", session.board().map(describe).unwrap_or_default());
    }
}

fn describe(state: &actforge_runtime::engine::board::BoardState) -> String {
    actforge_runtime::engine::board::describe_boards(state, true)
}

fn query(session: &Session, formula: &str) -> f64 {
    session.query(formula).unwrap()
}

#[test]
fn placement_fills_a_column_from_row_one_and_turns_alternate() {
    let mut s = session(1);
    run(
        &mut s,
        "expect turn player_one
         setup die 4
         place player_one 2
         expect cell player_one 2 1 4
         expect cell player_one 2 2 empty
         expect turn player_two
         setup die 5
         place die player_two 3
         expect turn player_one
         setup die 1
         place player_one 2
         expect cell player_one 2 2 1
         expect board.player_one.filled == 2
         expect board.player_two.c3r1 == 5",
    );
    // A turn not yet rolled: `place` rolls first.
    let before = s.board().unwrap().game.turn;
    run(&mut s, "place player_two 1\nexpect turn player_one");
    assert_eq!(s.board().unwrap().game.turn, before + 1);
    assert!(query(&s, "board.player_two.c1r1") >= 1.0);
}

#[test]
fn placing_destroys_equal_dice_in_the_facing_column_only() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_two 1 1 3
         setup cell player_two 1 2 5
         setup cell player_two 1 3 3
         setup cell player_two 2 1 3
         setup die 3
         place player_one 1
         expect cell player_two 1 1 5
         expect cell player_two 1 2 empty
         expect cell player_two 1 3 empty
         expect cell player_two 2 1 3
         expect cell player_one 1 1 3",
    );
}

#[test]
fn columns_score_each_value_times_its_count_squared() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_one 1 1 2
         setup cell player_one 1 2 2
         setup cell player_one 1 3 2
         expect board.player_one.col1.score == 18
         setup cell player_one 2 1 4
         setup cell player_one 2 2 4
         setup cell player_one 2 3 1
         expect board.player_one.col2.score == 17
         setup cell player_one 3 1 5
         expect board.player_one.col3.score == 5
         expect score player_one 40
         expect board.player_one.col2.count4 == 2
         expect board.player_one.col2.total == 9
         expect board.player_one.row1.total == 11
         expect score player_two 0",
    );
}

#[test]
fn a_diagonal_of_equal_values_adds_twelve_times_the_value() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_one 1 1 3
         setup cell player_one 2 1 1
         setup cell player_one 2 2 3
         setup cell player_one 3 1 1
         setup cell player_one 3 2 2
         setup cell player_one 3 3 3
         expect board.player_one.diag1.equal == 1
         expect board.player_one.diag2.equal == 0
         expect f.diagonal_bonus == 36",
    );
    // Columns 3 + (1+3) + (1+2+3) = 13, plus the bonus 4·(3+3+3) = 36.
    run(&mut s, "expect score player_one 49");
}

#[test]
fn exodia_wins_at_once() {
    let mut s = session(1);
    // An X of fives but for the bottom-right corner, which the die completes.
    run(
        &mut s,
        "setup cell player_one 1 1 5
         setup cell player_one 1 2 1
         setup cell player_one 1 3 5
         setup cell player_one 2 1 2
         setup cell player_one 2 2 5
         setup cell player_one 3 1 5
         setup cell player_one 3 2 4
         setup die 5
         place player_one 3
         expect winner player_one
         expect refused place player_two 1",
    );
    assert!(query(&s, "board.player_one.free") > 0.0, "the game ended before a board filled");
    assert!(s.choices().is_empty());
}

#[test]
fn a_full_board_ends_the_game_and_the_higher_score_wins() {
    let mut s = session(1);
    let mut setup = String::new();
    for (column, row) in [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (3, 1), (3, 2)] {
        writeln!(setup, "setup cell player_one {column} {row} 1").unwrap();
    }
    run(&mut s, &setup);
    // Player one: 9 + 9 + (1·2·2 + 2) + the ones' diagonal 12 = 36; player two: 6·3·3 = 54.
    run(
        &mut s,
        "setup cell player_two 1 1 6
         setup cell player_two 1 2 6
         setup cell player_two 1 3 6
         setup die 2
         place player_one 3
         expect score player_one 36
         expect score player_two 54
         expect winner player_two",
    );
    let ended = s.board().unwrap().game.outcome.clone().unwrap();
    assert_eq!(ended.winner.unwrap().as_str(), "player_two");
    assert!(s.apply(&Choice::RollDie { board: Id::new("player_two") }).is_err(), "the game has ended");
}

#[test]
fn equal_scores_draw() {
    let mut s = session(1);
    // Player one: ones, twos, then 1 1 3: 9 + 18 + 7 = 34, no equal diagonal.
    // Player two: 4·2·2 + 3·2·2 + 6 = 34.
    run(
        &mut s,
        "setup cell player_one 1 1 1
         setup cell player_one 1 2 1
         setup cell player_one 1 3 1
         setup cell player_one 2 1 2
         setup cell player_one 2 2 2
         setup cell player_one 2 3 2
         setup cell player_one 3 1 1
         setup cell player_one 3 2 1
         setup cell player_two 1 1 4
         setup cell player_two 1 2 4
         setup cell player_two 2 1 3
         setup cell player_two 2 2 3
         setup cell player_two 3 1 6
         setup die 3
         place player_one 3
         expect score player_one 34
         expect score player_two 34
         expect winner draw",
    );
}

#[test]
fn destiny_die_fixes_the_parity_of_the_next_roll_only() {
    for seed in 0..40 {
        let mut s = session(seed);
        run(&mut s, "ability destiny_die odd\nexpect board.player_one.var.destiny == 2\nroll");
        let die = s.board().unwrap().game.die.clone().unwrap();
        assert_eq!(die.value % 2, 1, "seed {seed}");
        run(&mut s, "expect board.player_one.var.destiny == 0\nexpect hand player_one thief shield twister");
        let mut s = session(seed);
        run(&mut s, "ability destiny_die even\nroll");
        assert_eq!(s.board().unwrap().game.die.as_ref().unwrap().value % 2, 0, "seed {seed}");
    }
}

#[test]
fn thief_takes_a_die_into_the_facing_column() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_two 2 1 4
         setup cell player_two 2 2 6
         ability thief 2,1
         expect cell player_one 2 1 4
         expect cell player_two 2 1 6
         expect cell player_two 2 2 empty
         expect hand player_one destiny_die shield twister
         expect turn player_two
         expect die none",
    );
    // No free cell in the own column facing it: not possible.
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_two 1 1 4
         setup cell player_one 1 1 1
         setup cell player_one 1 2 2
         setup cell player_one 1 3 3
         expect refused ability thief 1,1",
    );
    let error = s.run_script("ability thief 1,1").unwrap_err();
    assert!(error.message.contains("possible now:"), "{error}");
    assert!(error.message.contains("roll"), "{error}");
}

#[test]
fn shield_protects_a_column_for_three_opponent_turns() {
    let mut s = session(1);
    run(
        &mut s,
        "setup turn player_two
         ability shield 1
         expect board.player_two.col1.var.shield == 3
         expect turn player_one
         setup cell player_two 1 1 2
         expect refused ability thief 1,1
         setup die 2
         place player_one 1
         expect cell player_two 1 1 2
         expect cell player_one 1 1 empty
         expect board.player_two.col1.var.shield == 2",
    );
    // Two more opponent turns and the shield is gone.
    run(
        &mut s,
        "setup die 6
         place player_two 3
         setup die 6
         place player_one 3
         expect board.player_two.col1.var.shield == 1
         setup die 5
         place player_two 2
         setup die 5
         place player_one 2
         expect board.player_two.col1.var.shield == 0
         setup die 3
         place player_two 3
         setup die 2
         place player_one 1
         expect cell player_two 1 1 empty",
    );
}

#[test]
fn twister_swaps_two_own_dice_and_rescores() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_one 1 1 2
         setup cell player_one 1 2 5
         setup cell player_one 2 1 5
         expect score player_one 12
         ability twister 1,1 2,1
         expect cell player_one 1 1 5
         expect cell player_one 2 1 2
         expect score player_one 22",
    );
}

#[test]
fn impossible_inputs_say_why_and_what_is_possible() {
    let mut s = session(1);
    let error = s.run_script("place player_two 1").unwrap_err();
    assert!(error.message.contains("not that board's turn"), "{error}");
    assert!(error.message.contains("possible now: roll, ability destiny_die even"), "{error}");
    run(&mut s, "setup die 3");
    let error = s.run_script("ability shield 1").unwrap_err();
    assert!(error.message.contains("before rolling"), "{error}");
    assert!(error.message.contains("place player_one 1"), "{error}");
}

#[test]
fn choices_list_rolls_cards_and_columns() {
    let s = session(1);
    let choices = s.choices();
    assert!(matches!(choices[0], Choice::RollDie { .. }), "{choices:?}");
    // Destiny twice (even, odd), shield on each of three columns; nothing to steal or swap yet.
    assert_eq!(choices.len(), 1 + 2 + 3, "{choices:?}");
    let mut s = session(1);
    run(&mut s, "roll");
    assert_eq!(s.choices().len(), 3);
}

#[test]
fn random_games_end_and_replay_to_the_same_state() {
    let play = |seed: u64| {
        let mut session = Session::new(knucklebones(), seed).unwrap();
        let mut policy = RandomPolicy::new(seed);
        let mut events = 0;
        for _ in 0..400 {
            match policy.step(&mut session) {
                Move::Stuck => break,
                Move::Chose(_, happened) | Move::Waited(_, happened) => events += happened.len(),
            }
        }
        (session.state_hash(), events, session)
    };
    let mut winners = [0; 3];
    for seed in 0..300 {
        let (hash, events, session) = play(seed);
        let outcome =
            session.board().unwrap().game.outcome.clone().unwrap_or_else(|| panic!("seed {seed} did not end"));
        winners[match outcome.winner.as_ref().map(Id::as_str) {
            Some("player_one") => 0,
            Some(_) => 1,
            None => 2,
        }] += 1;
        let (again, again_events, _) = play(seed);
        assert_eq!((hash, events), (again, again_events), "seed {seed}");
        assert!(session.state().outcome.is_some());
    }
    assert!(winners[0] > 50 && winners[1] > 50, "{winners:?}");
}

#[test]
fn a_score_that_draws_is_drawn_wherever_a_condition_reads_it() {
    // A score read on the right of an `and` whose left side decides would be left out if it
    // only read. This one draws, so the games must be those of the score read on the left.
    let play = |condition: &str, seed: u64| {
        let mut project = knucklebones();
        for board in ["player_one", "player_two"] {
            project.boards.get_mut(board).unwrap().score = Some(Expr::new("random(1) + f.total"));
        }
        let rule = project.rules.get_mut("shield_reflects").unwrap();
        rule.requirements.condition = Some(Expr::new(condition));
        let mut session = Session::new(project, seed).unwrap();
        let mut policy = RandomPolicy::new(seed);
        let mut log = Vec::new();
        for _ in 0..400 {
            match policy.step(&mut session) {
                Move::Stuck => break,
                Move::Chose(_, happened) | Move::Waited(_, happened) => log.push(happened),
            }
        }
        (session.state_hash(), log)
    };
    for seed in 0..20 {
        let right = play("facing_column.var.shield > 0 and board.own.score > -1", seed);
        let left = play("board.own.score > -1 and facing_column.var.shield > 0", seed);
        assert!(right.1.len() > 10, "seed {seed}: a game was played");
        assert_eq!(right, left, "seed {seed}");
    }
}

#[test]
fn the_knucklebones_playtest_passes() {
    let script = std::fs::read_to_string(workspace().join("content/knucklebones/tests/knucklebones.play")).unwrap();
    let mut hashes = Vec::new();
    for _ in 0..2 {
        let mut session = Session::new(knucklebones(), 7).unwrap();
        let report = session
            .run_script(&script)
            .unwrap_or_else(|error| panic!("{error}\nboards:\n{}", session.board().map(describe).unwrap_or_default()));
        assert_eq!(report.expectations, 29, "{report:?}");
        assert_eq!(query(&session, "board.player_one.score"), 36.0);
        assert_eq!(session.state().outcome, Some(Outcome::Ended("player_one wins".to_owned())));
        assert!(report.events.iter().any(|event| matches!(event.event, Event::BoardGameEnded { .. })));
        hashes.push(session.state_hash());
    }
    assert_eq!(hashes[0], hashes[1]);
}

#[test]
fn the_pack_is_canonical_and_validates_without_warnings() {
    let root = workspace().join("content/knucklebones");
    let loaded = load_folder(&root).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    for (relative, text) in actforge_runtime::project::render_files(&loaded.project).unwrap() {
        assert_eq!(std::fs::read_to_string(root.join(&relative)).unwrap(), text, "{}", relative.display());
    }
    let found = actforge_runtime::validate::validate(&loaded.project, &loaded.sources, Some(&root));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn set_cell_takes_a_face_of_the_die_and_keeps_a_compact_column_without_gaps() {
    let mut s = session(1);
    run(&mut s, "set cell player_one 1 1 3\nsetup cell player_one 1 2 3\nset cell player_one 2 1 6");
    run(
        &mut s,
        "expect column-score player_one 1 12\nexpect column-score player_one 2 6\nexpect column-score player_one 3 0",
    );
    assert_eq!(query(&s, "board.player_one.col1.score"), 12.0);
    let hash = s.state_hash();
    for (line, why) in [
        ("set cell player_one 3 1 9", "player_one's die `die` has faces 1 to 6: it cannot show 9"),
        ("set cell player_one 3 1 0", "it cannot show 0"),
        ("set cell player_one 3 1 -2", "it cannot show -2"),
        ("set cell player_one 3 1 99999999999999999999999", "is not a die value or empty"),
        ("set cell player_one 3 1 six", "`six` is not a die value or empty"),
        ("set cell player_one 3 2 4", "a die at 3,2 would float over the empty cell 3,1"),
        ("set cell player_one 2 3 4", "a die at 2,3 would float over the empty cell 2,2"),
        ("set cell player_one 1 1 empty", "emptying 1,1 would leave the die at 1,2 floating"),
        ("set cell player_one 4 1 2", "player_one has no cell 4,1 (columns 1..=3, rows 1..=3)"),
        ("set cell player_one 1 0 2", "player_one has no cell 1,0"),
        ("set cell player_one x 1 2", "`x` is not a column number"),
        ("set cell player_three 1 1 2", "no board `player_three` in play"),
        ("set cell player_one 1 1", "usage: set cell BOARD C R VALUE|empty"),
        ("setup die 7", "the die `die` has faces 1 to 6: it cannot show 7"),
        ("expect column-score player_one 4 0", "player_one has no column `4` (columns 1..=3)"),
        ("expect column-score player_one 1 13", "score of player_one's column 1 is 12, expected 13"),
        ("expect column-score player_one 1", "usage: expect column-score BOARD COLUMN N"),
    ] {
        let error = s.run_script(line).unwrap_err();
        assert!(error.message.contains(why), "{line}: {}", error.message);
    }
    assert_eq!(s.state_hash(), hash, "a refused set-up line changes nothing");
    // The top die of a column may go; then the one below it.
    run(&mut s, "set cell player_one 1 2 empty\nset cell player_one 1 1 empty\nexpect column-score player_one 1 0");
}

#[test]
fn expect_choices_lists_the_board_turn_as_script_lines() {
    let mut s = session(1);
    run(&mut s, "expect choices include roll\nexpect choices include ability shield 2\nsetup die 4");
    run(&mut s, "expect choices place player_one 3; place player_one 1; place player_one 2");
    let error = s.run_script("expect choices roll").unwrap_err();
    assert!(
        error.message.contains("the choices are place player_one 1; place player_one 2; place player_one 3"),
        "{error}"
    );
    assert!(error.message.contains("not offered: roll"), "{error}");
}

#[test]
fn place_unit_is_not_a_board_line() {
    let mut s = session(1);
    let error = s.run_script("place unit knight 1 1").unwrap_err();
    assert!(error.message.contains("this project sets up no battle"), "{error}");
}

#[test]
fn the_knucklebones_set_up_playtest_passes() {
    let script = std::fs::read_to_string(workspace().join("content/knucklebones/tests/setup_and_checks.play")).unwrap();
    let mut s = Session::new(knucklebones(), 7).unwrap();
    let report = s.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert!(report.expectations >= 10, "{}", report.expectations);
}

#[test]
fn why_not_an_ability_says_what_the_board_lacks() {
    use actforge_runtime::engine::Subject;
    let mut session = session(7);
    let twister = Subject::Ability { card: "twister".to_owned(), option: 0 };
    let reasons = session.explain(&twister).unwrap();
    assert_eq!(reasons[0].item, "ability `twister`");
    assert_eq!(reasons[0].text, "no target: it needs two dice on its own board");
    assert!(session.explain(&Subject::Ability { card: "shield".to_owned(), option: 0 }).unwrap().is_empty());
    assert_eq!(session.parse_subject("ability:twister").unwrap(), twister);
    run(&mut session, "roll");
    let rolled = session.explain(&Subject::Ability { card: "shield".to_owned(), option: 0 }).unwrap();
    assert_eq!(rolled[0].text, "it is played before rolling, and the die is rolled");
}

#[test]
fn shield_thief_and_twister_are_the_whole_turn_and_destiny_is_not() {
    let mut s = session(1);
    run(
        &mut s,
        "ability shield 2
         expect turn player_two
         expect die none
         expect refused place player_one 1
         ability destiny_die odd
         expect turn player_two
         roll
         place player_two 1
         expect turn player_one",
    );
    let board = s.board().unwrap();
    assert_eq!(board.game.turn, 3);
    // Twister too: two dice, no roll after it.
    run(
        &mut s,
        "setup cell player_one 1 1 2
         setup cell player_one 3 1 5
         ability twister 1,1 3,1
         expect cell player_one 1 1 5
         expect turn player_two",
    );
}

#[test]
fn thiefs_stolen_die_counts_as_the_placement() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_two 3 1 6
         setup cell player_two 3 2 6
         setup cell player_two 3 3 2
         ability thief 3,1
         expect cell player_one 3 1 6
         expect cell player_two 3 1 2
         expect cell player_two 3 2 empty
         expect turn player_two",
    );
}

#[test]
fn a_shield_reflects_a_matching_die_onto_the_attacker() {
    let mut s = session(1);
    run(
        &mut s,
        "setup turn player_two
         ability shield 2
         setup cell player_two 2 1 4
         setup cell player_two 2 2 3
         setup die 3
         place player_one 2
         expect cell player_one 2 1 empty
         expect cell player_two 2 2 3
         setup turn player_one
         setup die 5
         place player_one 2
         expect cell player_one 2 1 5
         expect cell player_two 2 1 4",
    );
    // Unshielded, the same die destroys instead.
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_two 2 1 4
         setup cell player_two 2 2 3
         setup die 3
         place player_one 2
         expect cell player_one 2 1 3
         expect cell player_two 2 2 empty",
    );
}

#[test]
fn twister_rechecks_both_swapped_columns_against_the_facing_board() {
    let mut s = session(1);
    run(
        &mut s,
        "setup cell player_one 1 1 2
         setup cell player_one 3 1 5
         setup cell player_two 1 1 5
         setup cell player_two 1 2 1
         setup cell player_two 3 1 2
         setup cell player_two 3 2 2
         ability twister 1,1 3,1
         expect cell player_one 1 1 5
         expect cell player_one 3 1 2
         expect cell player_two 1 1 1
         expect cell player_two 1 2 empty
         expect cell player_two 3 1 empty
         expect board.player_two.filled == 1",
    );
    // A shielded facing column reflects a swapped die that matches it.
    let mut s = session(1);
    run(
        &mut s,
        "setup turn player_two
         ability shield 1
         setup cell player_two 1 1 5
         setup cell player_one 1 1 2
         setup cell player_one 3 1 5
         ability twister 1,1 3,1
         expect cell player_one 1 1 empty
         expect cell player_one 3 1 2
         expect cell player_two 1 1 5",
    );
    // Both swapped dice in one column: the first is reflected, the second slides down into its
    // cell and is checked there (it is reflected too).
    let mut s = session(1);
    run(
        &mut s,
        "setup turn player_two
         ability shield 1
         setup cell player_two 1 1 3
         setup cell player_two 1 2 5
         setup cell player_one 1 1 5
         setup cell player_one 1 2 3
         ability twister 1,1 1,2
         expect cell player_one 1 1 empty
         expect cell player_one 1 2 empty
         expect cell player_two 1 1 3
         expect cell player_two 1 2 5",
    );
}

#[test]
fn thief_into_the_last_free_cell_ends_the_game() {
    let mut s = session(1);
    let mut script = String::new();
    for (c, r, v) in [(1, 1, 1), (1, 2, 2), (1, 3, 3), (2, 1, 4), (2, 2, 5), (2, 3, 6), (3, 1, 1), (3, 2, 2)] {
        writeln!(script, "setup cell player_one {c} {r} {v}").unwrap();
    }
    script.push_str("setup cell player_two 3 1 6\nability thief 3,1\nexpect board.player_one.free == 0");
    run(&mut s, &script);
    assert!(s.board().unwrap().game.outcome.is_some(), "{}", describe(s.board().unwrap()));
    assert!(s.choices().is_empty());
}

#[test]
fn a_roll_with_no_free_cell_ends_the_game_by_score_with_a_warning() {
    let mut s = session(1);
    let mut script = String::new();
    for c in 1..=3 {
        for r in 1..=3 {
            writeln!(script, "setup cell player_one {c} {r} {}", c + r).unwrap();
        }
    }
    run(&mut s, &script);
    let events = s.apply(&Choice::RollDie { board: Id::new("player_one") }).unwrap();
    assert!(events.iter().any(|event| matches!(event, Event::Warning(text) if text.contains("no free cell"))));
    assert!(events.iter().any(|event| matches!(event, Event::BoardGameEnded { .. })));
    assert_eq!(s.state().outcome, Some(Outcome::Ended("player_one wins".to_owned())));
}

#[test]
fn board_scores_read_what_the_score_queries_read() {
    for seed in 0..20 {
        let mut s = session(seed);
        let mut policy = RandomPolicy::new(seed);
        for moves in 0..60 {
            let scores = s.board_scores();
            assert_eq!(scores.len(), 2, "two sides");
            for (board, score) in scores {
                let queried = query(&s, &format!("board.{board}.score"));
                assert!(
                    score == queried || (score.is_nan() && queried.is_nan()),
                    "seed {seed}, move {moves}: {board} scores {score}, its query {queried}"
                );
            }
            if matches!(policy.step(&mut s), Move::Stuck) {
                break;
            }
        }
    }
}

/// The simulation's threads play sessions of one content at once: a session's board state
/// holds its own copies of the ids it copies at every step (boards, hands, dice), so no two
/// threads write to one id's shared count; within the session a card keeps one copy.
#[test]
fn sessions_own_the_ids_their_boards_copy() {
    use std::sync::Arc;
    let content = Arc::new(actforge_runtime::engine::Content::compile(knucklebones()).unwrap());
    let mut first = Session::from_content(Arc::clone(&content), 1);
    let second = Session::from_content(Arc::clone(&content), 2);
    let board = content.project.boards.get("player_one").unwrap();
    let thief = board.hand.iter().find(|card| card.as_str() == "thief").unwrap();
    for session in [&first, &second] {
        let state = session.board().unwrap();
        let side = state.game.sides.iter().find(|side| side.board.as_str() == "player_one").unwrap();
        assert!(!side.board.shares_text(&board.id), "the side's board id is the content's");
        let held = side.hand.iter().find(|card| card.as_str() == "thief").unwrap();
        assert!(!held.shares_text(thief), "a hand card's id is the content's");
        let other = state.game.sides.iter().find(|side| side.board.as_str() == "player_two").unwrap();
        let also_held = other.hand.iter().find(|card| card.as_str() == "thief").unwrap();
        assert!(held.shares_text(also_held), "one session copies a card's id once");
    }
    let one = &first.board().unwrap().game.sides[0].board;
    let two = &second.board().unwrap().game.sides[0].board;
    assert!(!one.shares_text(two), "two sessions share a board id");
    // A rolled die is of the session's own copy of the die's card type too.
    let active = first.board().unwrap().game.active;
    let mover = first.board().unwrap().game.sides[active].board.clone();
    first.apply(&Choice::RollDie { board: mover }).unwrap();
    let die = first.board().unwrap().game.die.clone().unwrap();
    let content_die = board.die.as_ref().unwrap();
    assert_eq!(die.card.as_str(), content_die.as_str());
    assert!(!die.card.shares_text(content_die), "the rolled die's card id is the content's");
}
