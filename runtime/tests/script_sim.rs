//! Playtest scripts beyond one game (FORMAT.md §7): `repeat N` … `end` blocks with their bound
//! and line numbers, `expect sim` lines over many random runs from the script's state (share,
//! mean, dead content), their determinism and cap, and the `outcome.…` names.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::path::PathBuf;
use std::time::Instant;

use actforge_runtime::engine::Session;
use actforge_runtime::engine::script::{MAX_SCRIPT_STEPS, ScriptError, ScriptOptions, ScriptReport};
use actforge_runtime::model::{Act, Id, Project};
use actforge_runtime::project::load_folder;

fn knucklebones() -> Project {
    let folder = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/knucklebones");
    load_folder(&folder).unwrap().project
}

fn session() -> Session {
    Session::new(knucklebones(), 7).unwrap()
}

fn run_with(session: &mut Session, script: &str, options: &ScriptOptions) -> (ScriptReport, Result<(), ScriptError>) {
    let mut report = ScriptReport::default();
    let result = session.run_script_with(script, options, &mut report);
    (report, result)
}

fn fails(script: &str) -> ScriptError {
    let (_, result) = run_with(&mut session(), script, &ScriptOptions::default());
    result.expect_err("the script should fail")
}

#[test]
fn repeat_runs_its_lines_n_times_and_blocks_nest() {
    let mut session = session();
    let script = "repeat 3\n  wait 5\n  repeat 2 # inner\n    wait 1\n  end\nend\nrepeat 0\n  wait 1000\nend\nwait 1\n";
    let (report, result) = run_with(&mut session, script, &ScriptOptions::default());
    result.unwrap();
    assert_eq!(session.state().tick, 3 * (5 + 2) + 1);
    assert_eq!(report.log.len(), 3 * 3 + 1, "{:#?}", report.log);
}

#[test]
fn a_failure_inside_a_repeat_names_the_line_and_the_repetition() {
    let script = "# two lines of comment\n\nrepeat 5\n  create card die\n  expect table.card.die < 3\nend\n";
    let error = fails(script);
    assert_eq!(error.line, 5);
    assert_eq!(error.repetitions, [(3, 5)]);
    assert_eq!(error.to_string(), "line 5 (repetition 3 of 5): `table.card.die < 3` does not hold; table.card.die = 3");
    assert_eq!(error.why(), "in repetition 3 of 5: `table.card.die < 3` does not hold; table.card.die = 3");
    let nested = fails("repeat 2\n  repeat 4\n    create card die\n    expect table.card.die < 6\n  end\nend\n");
    assert_eq!(
        nested.to_string(),
        "line 4 (repetition 2 of 2, inner repetition 2 of 4): `table.card.die < 6` does not hold; table.card.die = 6"
    );
}

#[test]
fn unclosed_repeats_stray_ends_and_bad_counts_name_their_line() {
    let unclosed = fails("wait 1\nrepeat 2\n  wait 1\n  repeat 3\n  wait 1\n  end\n");
    assert_eq!((unclosed.line, unclosed.message.as_str()), (2, "this `repeat` block is never closed by an `end` line"));
    let stray = fails("wait 1\nend\n");
    assert_eq!((stray.line, stray.message.as_str()), (2, "`end` without a `repeat` block to close"));
    let count = fails("repeat many\nend\n");
    assert_eq!(count.line, 1);
    assert!(count.message.contains("not `many`"), "{}", count.message);
    let deep = fails(&format!("{}wait 1\n", "repeat 1\n".repeat(17)));
    assert_eq!(deep.line, 17);
    assert!(deep.message.contains("at most 16 deep"), "{}", deep.message);
}

#[test]
fn a_hostile_repeat_fails_at_once_before_any_line_runs() {
    let started = Instant::now();
    let mut session = session();
    let script = "wait 1\nrepeat 1000000000\n  repeat 1000000000\n    wait 1\n  end\nend\n";
    let (report, result) = run_with(&mut session, script, &ScriptOptions::default());
    let error = result.unwrap_err();
    assert_eq!(error.line, 2);
    assert!(error.message.contains(&format!("at most {MAX_SCRIPT_STEPS}")), "{}", error.message);
    assert!(report.log.is_empty() && session.state().tick == 0, "nothing ran");
    // Empty blocks count one line per repetition, so they cannot spin either.
    assert_eq!(fails("repeat 99999\nend\nrepeat 2\nend\n").line, 3);
    // Exactly the bound runs.
    let (_, result) = run_with(
        &mut Session::new(knucklebones(), 7).unwrap(),
        &format!("repeat {MAX_SCRIPT_STEPS}\nend\n"),
        &ScriptOptions::default(),
    );
    result.unwrap();
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn expect_sim_measures_a_share_over_runs_from_the_current_state() {
    let mut session = session();
    let script = "expect turn player_one\nexpect sim runs 200 seed 1: P(outcome.won.player_one) in 0..1\n";
    let (report, result) = run_with(&mut session, script, &ScriptOptions::default());
    result.unwrap();
    assert_eq!(report.expectations, 2);
    let logged = &report.log[1];
    assert!(logged.contains("P(outcome.won.player_one) = 0.") && logged.contains(" of 200 runs)"), "{logged}");
    // The same line with a range it misses fails with the measured share, the count and the range.
    let error = fails("expect sim runs 200 seed 1: P(outcome.won.player_one) in 0.99..1\n");
    assert_eq!(error.line, 1);
    assert!(error.message.starts_with("P(outcome.won.player_one) = 0."), "{}", error.message);
    assert!(error.message.contains(" of 200 runs), expected in 0.99..1"), "{}", error.message);
    // Every run ends: a side wins or it is a draw.
    let script =
        "expect sim runs 100 seed 2: P(outcome.won.player_one or outcome.won.player_two or outcome.draw) in 1..1";
    run_with(&mut self::session(), script, &ScriptOptions::default()).1.unwrap();
    let script =
        "expect sim runs 100 seed 2: P(outcome.ended) in 1..1\nexpect sim seed 2: P(outcome.unfinished) in 0..0";
    run_with(&mut self::session(), script, &ScriptOptions::default()).1.unwrap();
}

#[test]
fn expect_sim_starts_from_the_script_s_state_not_the_project_s_start() {
    // Player one starts with two columns of sixes (set up outside the rules): it wins far more
    // often than from the project's start, where the same line fails.
    let line = "expect sim runs 100 seed 3: P(outcome.won.player_one) in 0.75..1\n";
    let script = format!(
        "setup cell player_one 1 1 6\nsetup cell player_one 1 2 6\nsetup cell player_one 1 3 6\n\
         setup cell player_one 2 1 6\nsetup cell player_one 2 2 6\nsetup cell player_one 2 3 6\n{line}"
    );
    let (report, result) = run_with(&mut session(), &script, &ScriptOptions::default());
    result.unwrap_or_else(|error| panic!("{error}\n{:#?}", report.log));
    let from_start = fails(line);
    assert!(from_start.message.contains("expected in 0.75..1"), "{}", from_start.message);
}

#[test]
fn expect_sim_means_and_dead_content() {
    let (report, result) = run_with(
        &mut session(),
        "expect sim runs 50: mean(board.player_one.score) in 1..500\nexpect sim runs 200: no dead content\n",
        &ScriptOptions::default(),
    );
    result.unwrap();
    assert!(report.log[0].contains("mean(board.player_one.score) = ") && report.log[0].contains("over 50 runs"));
    let error = fails("expect sim runs 50 seed 4: mean(board.player_one.score) in 0..1\n");
    assert!(error.message.contains(", expected in 0..1"), "{}", error.message);
    let mut orphaned = knucklebones();
    orphaned.acts.insert(Act { id: Id::new("orphan_act"), label: "Nothing leads here".into(), ..Act::default() });
    let mut session = Session::new(orphaned, 7).unwrap();
    let (_, result) = run_with(&mut session, "expect sim: no dead content\n", &ScriptOptions::default());
    assert_eq!(result.unwrap_err().message, "no run reached acts orphan_act (in 200 runs)");
}

#[test]
fn expect_sim_gives_the_same_verdict_on_any_number_of_threads() {
    let script = "expect sim runs 300 seed 9: P(outcome.won.player_two) in 0..0.01\n";
    let verdicts: Vec<String> = [1, 2, 3, 1]
        .into_iter()
        .map(|threads| {
            let options = ScriptOptions { sim_threads: threads, ..ScriptOptions::default() };
            run_with(&mut session(), script, &options).1.unwrap_err().message
        })
        .collect();
    assert!(verdicts.iter().all(|verdict| *verdict == verdicts[0]), "{verdicts:#?}");
}

#[test]
fn a_cap_plays_fewer_runs_and_says_so() {
    let options = ScriptOptions { max_sim_runs: Some(20), ..ScriptOptions::default() };
    let script = "expect sim runs 2000 seed 1: P(outcome.ended) in 1..1\n";
    let (report, result) = run_with(&mut session(), script, &options);
    result.unwrap();
    assert_eq!(
        report.notes,
        ["line 1: expect sim runs 2000 seed 1: P(outcome.ended) in 1..1 (capped at 20 of 2000 runs)"]
    );
    assert!(
        report.log[0].ends_with("P(outcome.ended) = 1 (20 of 20 runs) (capped at 20 of 2000 runs)"),
        "{}",
        report.log[0]
    );
    let error = run_with(&mut session(), "expect sim runs 2000: P(outcome.ended) in 0..0.5\n", &options).1.unwrap_err();
    assert_eq!(error.message, "P(outcome.ended) = 1 (20 of 20 runs) (capped at 20 of 2000 runs), expected in 0..0.5");
    // Without a cap, no note.
    let (report, _) = run_with(&mut session(), "expect sim runs 20: P(outcome.ended) in 1..1\n", &options);
    assert!(report.notes.is_empty());
}

#[test]
fn bad_sim_lines_say_why() {
    assert!(fails("expect sim runs 0: no dead content").message.contains("1 to 100000 runs"));
    assert!(fails("expect sim runs 1000000: no dead content").message.contains("1 to 100000 runs"));
    assert!(fails("expect sim: P(outcome.ended) in 0.6..0.4").message.contains("is empty"));
    assert!(fails("expect sim: outcome.ended in 0..1").message.contains("is not P(FORMULA) or mean(FORMULA)"));
    assert!(fails("expect sim: P(outcome.nope) in 0..1").message.contains("`outcome.nope` is not an outcome name"));
    assert_eq!(fails("expect sim runs lots: no dead content").message, "`lots` is not a number of runs");
    assert!(fails("expect sim runs: no dead content").message.contains("`runs` needs a number; usage: expect sim"));
    assert!(fails("expect sim runs 3 often 3: no dead content").message.contains("`often` is not `runs` or `seed`"));
    assert!(fails("expect sim: P(1 +) in 0..1").message.starts_with("`1 +`:"));
}

#[test]
fn outcome_names_read_how_the_game_ended() {
    let mut session = session();
    assert_eq!(session.query("outcome.ended").unwrap(), 0.0);
    assert_eq!(session.query("outcome.unfinished + outcome.draw").unwrap(), 1.0);
    session
        .run_script("setup cell player_one 1 1 6\nsetup cell player_one 1 2 6\nsetup cell player_one 1 3 6")
        .unwrap();
    let mut moves = 0;
    let mut policy = actforge_runtime::engine::policy::RandomPolicy::new(5);
    while policy.step(&mut session) != actforge_runtime::engine::policy::Move::Stuck && moves < 500 {
        moves += 1;
    }
    assert_eq!(session.query("outcome.ended").unwrap(), 1.0);
    let one = session.query("outcome.won.player_one").unwrap();
    let two = session.query("outcome.won.player_two").unwrap();
    let draw = session.query("outcome.draw").unwrap();
    assert_eq!(one + two + draw, 1.0);
    let text = if one == 1.0 { "outcome.ended.player_one_wins" } else { "outcome.ended.player_two_wins" };
    assert_eq!(session.query(text).unwrap(), if draw == 1.0 { 0.0 } else { 1.0 });
    assert!(session.query("outcome.wins").unwrap_err().contains("is not an outcome name"));
    // A name padded in place: a later error still points at its own column.
    let error = session.query("outcome.won.player_one + )").unwrap_err();
    assert!(error.contains(')'), "{error}");
}
