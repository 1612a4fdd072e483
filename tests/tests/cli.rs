//! The `actforge` command line end to end: check, export, import, new and fmt, run in-process
//! through the same entry point as the binary (the editor crate also runs the real binary).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

mod common;

use std::fs;

use actforge_cli::{Exit, run_args};
use actforge_tests::content;
use common::{actforge, path};

#[test]
fn check_passes_on_the_demo_and_summarises_it() {
    let demo = content("lighthouse");
    let (outcome, out, err) = actforge(&["check", path(&demo)]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert_eq!(out, "");
    assert!(err.contains(": 0 errors, 0 warnings;"), "{err}");
    assert!(err.contains("acts"), "{err}");
}

#[test]
fn check_prints_path_line_col_and_fails_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("broken");
    let (outcome, ..) = actforge(&["new", path(&project)]);
    assert_eq!(outcome, Exit::Success);
    fs::write(
        project.join("acts").join("start.ron"),
        "(\n    id: \"start\",\n    next_acts: [(act: \"missing\")],\n)\n",
    )
    .unwrap();
    fs::write(project.join("cards").join("bad.ron"), "(\n    id: \"bad\",\n    label: 12,\n)\n").unwrap();
    let (outcome, out, err) = actforge(&["check", path(&project)]);
    assert_eq!(outcome, Exit::Failure);
    let start = project.join("acts").join("start.ron");
    let bad = project.join("cards").join("bad.ron");
    assert!(
        out.contains(&format!(
            "{}:3:23: error: act `start`, next_acts[0].act: there is no act `missing`",
            start.display()
        )),
        "{out}"
    );
    assert!(out.contains(&format!("{}:3:12: error: this file is not valid RON", bad.display())), "{out}");
    assert!(err.contains("2 errors"), "{err}");
}

#[test]
fn export_then_import_restores_the_same_files_in_both_formats() {
    let demo = content("lighthouse");
    for format in ["ron", "json"] {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join(format!("bundle.{format}"));
        let (outcome, out, err) = actforge(&["export", path(&demo), "-o", path(&bundle), "--format", format]);
        assert_eq!(outcome, Exit::Success, "{err}");
        assert!(out.starts_with("exported "), "{out}");
        let text = fs::read_to_string(&bundle).unwrap();
        assert!(text.contains("schema_version"));
        if format == "json" {
            let value: serde_json::Value = serde_json::from_str(&text).unwrap();
            assert_eq!(value["format"], "actforge-bundle");
        }
        let restored = dir.path().join("restored");
        let (outcome, out, err) = actforge(&["import", "bundle", path(&bundle), "-o", path(&restored)]);
        assert_eq!(outcome, Exit::Success, "{err}");
        assert!(out.contains("restored"), "{out}");
        let (outcome, out, _) = actforge(&["fmt", "--check", path(&restored)]);
        assert_eq!(outcome, Exit::Success, "{out}");
        for entry in fs::read_dir(demo.join("acts")).unwrap() {
            let file = entry.unwrap().path();
            let twin = restored.join("acts").join(file.file_name().unwrap());
            assert_eq!(fs::read(&file).unwrap(), fs::read(&twin).unwrap(), "{}", file.display());
        }
        assert_eq!(fs::read(demo.join("project.ron")).unwrap(), fs::read(restored.join("project.ron")).unwrap());
    }
}

#[test]
fn import_refuses_a_folder_that_has_content() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("b.ron");
    actforge(&["export", path(&content("lighthouse")), "-o", path(&bundle)]);
    fs::write(dir.path().join("keep.txt"), "mine").unwrap();
    let (outcome, _, err) = actforge(&["import", "bundle", path(&bundle), "-o", path(dir.path())]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("is not empty"), "{err}");
    assert_eq!(fs::read_to_string(dir.path().join("keep.txt")).unwrap(), "mine");
}

#[test]
fn export_refuses_a_project_with_errors_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    actforge(&["new", path(&project)]);
    fs::write(project.join("acts").join("a.ron"), "(id: \"a\", token: Some(\"nobody\"))").unwrap();
    let bundle = dir.path().join("b.ron");
    let (outcome, _, err) = actforge(&["export", path(&project), "-o", path(&bundle)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("there is no token `nobody`"), "{err}");
    assert!(!bundle.exists());
    let (outcome, ..) = actforge(&["export", path(&project), "-o", path(&bundle), "--force"]);
    assert_eq!(outcome, Exit::Success);
    assert!(bundle.exists());
}

#[test]
fn new_creates_an_empty_valid_project_and_refuses_to_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("my_game");
    let (outcome, out, _) = actforge(&["new", path(&project)]);
    assert_eq!(outcome, Exit::Success);
    assert!(out.contains("\"my_game\""), "{out}");
    assert!(project.join("project.ron").is_file());
    assert!(project.join("acts").is_dir());
    let (outcome, ..) = actforge(&["check", path(&project)]);
    assert_eq!(outcome, Exit::Success);
    let (outcome, _, err) = actforge(&["new", path(&project)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("not empty"), "{err}");
}

#[test]
fn fmt_rewrites_hand_written_files_in_the_canonical_layout() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    actforge(&["new", path(&project)]);
    let file = project.join("aspects").join("salt.ron");
    fs::write(&file, "(id:\"salt\",label:\"Salt\")").unwrap();
    let (outcome, out, _) = actforge(&["fmt", "--check", path(&project)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(out.contains("salt.ron: not in canonical layout"), "{out}");
    let (outcome, ..) = actforge(&["fmt", path(&project)]);
    assert_eq!(outcome, Exit::Success);
    assert_eq!(fs::read_to_string(&file).unwrap(), "(\n    id: \"salt\",\n    label: \"Salt\",\n)\n");
}

#[test]
fn help_is_available_for_every_command() {
    for args in [
        &["--help"][..],
        &["check", "--help"],
        &["export", "--help"],
        &["import", "bundle", "--help"],
        &["new", "--help"],
        &["fmt", "--help"],
        &["sim", "--help"],
        &["sim-merge", "--help"],
        &["merge", "--help"],
        &["diff", "--help"],
    ] {
        let argv = std::iter::once("actforge").chain(args.iter().copied());
        let error = run_args(argv, &mut Vec::new(), &mut Vec::new()).unwrap_err();
        assert_eq!(error.kind(), clap::error::ErrorKind::DisplayHelp, "{args:?}");
        assert!(error.to_string().contains("Usage: actforge"), "{args:?}");
    }
}

#[test]
fn eval_prints_values_nan_and_infinities() {
    for (args, expected) in [
        (&["eval", "1 + 2 * 3"][..], "7"),
        (&["eval", "--", "-2^2"], "4"),
        (&["eval", "--set", "c.PA=7", "--set", "t.Zodiac=3", "c.PA * 2 + t.Zodiac"], "17"),
        (&["eval", "--set", "arg.currentHitType=1", "arg.currentHitType + 1"], "2"),
        (&["eval", "--set", "Element=2", "Element"], "2"),
        (&["eval", "--set", "a=10", "--set", "b=4", "--set", "c=3", "a - (b - c)"], "9"),
        (&["eval", "0/0"], "NaN"),
        (&["eval", "1/0"], "inf"),
        (&["eval", "--", "-1/0"], "-inf"),
        (&["eval", "--define", "dmg=c.PA*2", "--define", "a.b=f.dmg+1", "--set", "c.PA=3", "f.a.b"], "7"),
        (&["eval", "--seed", "5", "any(1, 1, 1)"], "1"),
        (&["eval", "--parse", "if x:2;3*4"], "if x: 2; 3 * 4"),
        (&["eval", "--parse", "a-(b-d)"], "a - (b - d)"),
    ] {
        let (outcome, out, err) = actforge(args);
        assert_eq!(outcome, Exit::Success, "{args:?}: {err}");
        assert_eq!(out, format!("{expected}\n"), "{args:?}");
    }
    let with = |seed: &str| actforge(&["eval", "--seed", seed, "random(100)"]).1;
    assert_eq!(with("9"), with("9"), "the same seed gives the same draw");
    assert_ne!(with("9"), with("10"));
}

#[test]
fn eval_reads_a_projects_formulas_and_stats() {
    let demo = content("lighthouse");
    let (outcome, out, err) = actforge(&["eval", "--project", path(&demo), "f.beacon_strength"]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert_eq!(out, "50\n", "hope starts at 5: clamp(5/10, 0, 1) * 100");
    let (_, out, _) = actforge(&["eval", "--project", path(&demo), "--set", "hope=9", "f.beacon_strength + stat.oil"]);
    assert_eq!(out, "93\n");
}

#[test]
fn a_bad_formula_exits_1_with_the_message_and_a_caret() {
    let (outcome, out, err) = actforge(&["eval", "max(a<b, 1)"]);
    assert_eq!(outcome, Exit::Failure);
    assert_eq!(out, "");
    assert_eq!(
        err,
        "error: expected `,` or `)` in `max(…)`, found `<` (put comparisons, `and` and `or` inside an argument in parentheses)\n  max(a<b, 1)\n       ^\n"
    );
    let (outcome, _, err) = actforge(&["eval", "x + 1"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("unknown name `x`; give it a value with --set x=NUMBER"), "{err}");
    let (outcome, _, err) = actforge(&["eval", "--define", "a=f.b", "--define", "b=f.a", "f.a"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("cycle: f.a → f.b → f.a"), "{err}");
    let (outcome, _, err) = actforge(&["eval", "--set", "c.PA=x", "c.PA"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("NAME=NUMBER"), "{err}");
    let (outcome, _, _) = actforge(&["eval", "--parse", "1 +"]);
    assert_eq!(outcome, Exit::Failure);
}

#[test]
fn check_reports_formula_errors_at_their_character() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    actforge(&["new", path(&project)]);
    fs::write(
        project.join("stats").join("gdp.ron"),
        "(\n    id: \"gdp\",\n    value: Computed(\"f.tax * gdpp\"),\n)\n",
    )
    .unwrap();
    fs::write(project.join("formulas").join("tax.ron"), "(\n    id: \"tax\",\n    expr: \"0.1 +\",\n)\n").unwrap();
    fs::write(project.join("formulas").join("a.ron"), "(\n    id: \"a\",\n    expr: \"f.b\",\n)\n").unwrap();
    fs::write(project.join("formulas").join("b.ron"), "(\n    id: \"b\",\n    expr: \"1 + f.a\",\n)\n").unwrap();
    let (outcome, out, _) = actforge(&["check", path(&project)]);
    assert_eq!(outcome, Exit::Failure);
    let stat = project.join("stats").join("gdp.ron");
    let tax = project.join("formulas").join("tax.ron");
    let b = project.join("formulas").join("b.ron");
    assert!(out.contains(&format!("{}:3:30: error: stat `gdp`, value: unknown name `gdpp`", stat.display())), "{out}");
    assert!(
        out.contains(&format!("{}:3:17: error: formula `tax`, expr: the formula ends too early", tax.display())),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "{}:3:16: error: formula `b`, expr: named formulas refer to each other in a cycle: f.a → f.b → f.a",
            b.display()
        )),
        "{out}"
    );
}

#[test]
fn play_runs_a_playtest_and_reports_the_failing_line() {
    let demo = content("lighthouse");
    let script = actforge_tests::repo_root().join("content/lighthouse/tests/lighthouse_lamp.play");
    let (outcome, out, err) = actforge(&["play", path(&demo), path(&script)]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    assert!(out.contains("completed tend_the_lamp"), "{out}");
    assert!(out.contains("card ember #"), "{out}");
    assert!(out.contains("ok: 7 expectation(s) held"), "{out}");

    let dir = tempfile::tempdir().unwrap();
    let failing = dir.path().join("fail.play");
    std::fs::write(&failing, "slot lamp_oil lamp_room\nstart lamp_room\nexpect status lamp_room finished\n").unwrap();
    let (outcome, _, err) = actforge(&["play", path(&demo), path(&failing)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("fail.play:line 3: status of lamp_room is \"running\", expected \"finished\""), "{err}");
    // The log of what ran before the failing line is still printed.
    assert!(out_contains_line(&actforge(&["play", path(&demo), path(&failing)]).1, "start lamp_room"));

    // An input that is not possible says what was.
    let illegal = dir.path().join("illegal.play");
    std::fs::write(&illegal, "start lamp_room\n").unwrap();
    let (outcome, _, err) = actforge(&["play", path(&demo), "--script", path(&illegal)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(
        err.contains("illegal.play:line 1: that window is not ready to start; possible now: slot lamp_oil lamp_room 0"),
        "{err}"
    );
}

fn out_contains_line(out: &str, text: &str) -> bool {
    out.lines().any(|line| line.ends_with(text))
}

#[test]
fn play_lets_time_pass_and_answers_queries() {
    let demo = content("lighthouse");
    let script = actforge_tests::repo_root().join("content/lighthouse/tests/lighthouse_lamp.play");
    let (outcome, out, err) = actforge(&[
        "play",
        path(&demo),
        "--script",
        path(&script),
        "--until-ticks",
        "5000",
        "--query",
        "table.cards",
        "--query",
        "1/0",
        "--trace",
    ]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    assert!(out.contains("at tick 5000:"), "{out}");
    assert!(out.contains("\n1/0 = inf\n"), "{out}");
    assert!(out.contains("ActCompleted { token: TokenKey(0), act: \"tend_the_lamp\" }"), "{out}");

    // Without a script: the start state; --json gives one object with the queries and the table.
    let (outcome, out, err) = actforge(&["play", path(&demo), "--json", "--query", "table.card.lamp_oil"]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["tick"], 0);
    assert_eq!(json["ok"], true);
    assert_eq!(json["queries"][0]["value"], 1.0);
    assert_eq!(json["tokens"][0]["token"], "lamp_room");
    assert_eq!(json["tokens"][0]["status"], "Idle");
    assert!(json.get("events").is_none());

    // A query that does not compile is an error with a caret, and exit 1.
    let (outcome, _, err) = actforge(&["play", path(&demo), "--query", "table.card.("]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("error: query table.card.("), "{err}");
}

#[test]
fn synth_prints_the_probability_table_of_two_inputs() {
    use actforge_runtime::model::{Card, Deck, Expr, FragmentCount, FragmentRef, Id, Synthesis};
    let card = |id: &str, tags: &[(&str, i64)], flow: &str| Card {
        id: Id::new(id),
        fragments: tags
            .iter()
            .map(|(tag, n)| FragmentCount { fragment: FragmentRef::Aspect(Id::new(*tag)), count: Expr::int(*n) })
            .collect(),
        properties: [("flow".to_owned(), Expr::new(flow))].into(),
        ..Card::default()
    };
    let mut project = actforge_runtime::Project::default();
    for (id, tags) in [("fire", "Fire"), ("water", "Water"), ("spirit", "Spirit")] {
        project.aspects.insert(actforge_runtime::model::Aspect {
            id: Id::new(id),
            label: tags.to_owned(),
            ..Default::default()
        });
    }
    project.cards.insert(card("ember", &[("fire", 2), ("spirit", 1)], "3"));
    project.cards.insert(card("mist", &[("water", 1), ("spirit", 1)], "5"));
    project.cards.insert(card("phoenix", &[("fire", 1), ("spirit", 1)], "4"));
    project.cards.insert(card("steam", &[("fire", 1), ("water", 1)], "8"));
    project.decks.insert(Deck {
        id: Id::new("era_one"),
        fragments: vec![Id::new("phoenix"), Id::new("steam")],
        ..Deck::default()
    });
    project.syntheses.insert(Synthesis {
        id: Id::new("forge"),
        candidates: Some(Id::new("era_one")),
        temperature: Expr::new("2"),
        success_chance: Expr::new("100 - abs(synth.b.flow - synth.result.flow) * 10 - entropy"),
        ..Synthesis::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("forge");
    actforge_runtime::project::save_new_folder(&project, &root).unwrap();

    let (outcome, out, err) = actforge(&["synthesis", path(&root), "forge", "ember", "mist", "--set", "entropy=5"]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "synthesis forge: ember + mist (temperature 2)");
    // V = fire 2, spirit 2, water 1: phoenix 4, steam 3; shares 62.2 % / 37.8 %;
    // success 100 − 10 − 5 = 85 % and 100 − 30 − 5 = 65 %.
    let words = |line: &str| line.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(words(lines[1]), ["candidate", "score", "share", "success", "overall"]);
    assert_eq!(words(lines[2]), ["phoenix", "4", "62.2%", "85.0%", "52.9%"], "{out}");
    assert_eq!(words(lines[3]), ["steam", "3", "37.8%", "65.0%", "24.5%"], "{out}");
    assert_eq!(words(lines[4]), ["(fails)", "22.6%"], "{out}");

    let (outcome, out, _) = actforge(&["synth", path(&root), "forge", "ember", "mist", "--set", "entropy=5", "--json"]);
    assert_eq!(outcome, Exit::Success);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["candidates"][0]["card"], "phoenix");
    assert_eq!(json["candidates"][1]["success"], 0.65);

    // A name without a value is an error that says which.
    let (outcome, _, err) = actforge(&["synth", path(&root), "forge", "ember", "mist"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("success_chance of synthesis `forge`") && err.contains("entropy"), "{err}");
    let (outcome, _, err) = actforge(&["synth", path(&root), "forge", "ember", "dragon"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("there is no card `dragon`"), "{err}");
}

#[test]
fn play_runs_the_knucklebones_golden_game_and_explains_refusals() {
    let pack = content("knucklebones");
    let script = actforge_tests::repo_root().join("content/knucklebones/tests/knucklebones.play");
    let (outcome, out, err) = actforge(&[
        "play",
        path(&pack),
        "--script",
        path(&script),
        "--seed",
        "7",
        "--query",
        "board.player_one.score",
        "--query",
        "board.player_two.col1.score",
    ]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    assert!(out.contains("place player_two 3  rolled 3;  destroyed 3 at player_one 3,1;"), "{out}");
    assert!(out.contains("game over: player_one wins;"), "{out}");
    assert!(out.contains("board player_two: hand [destiny_die]"), "{out}");
    assert!(out.contains("    row 3: 4 1 1"), "{out}");
    assert!(out.contains("\nboard.player_one.score = 36\n"), "{out}");
    assert!(out.contains("\nboard.player_two.col1.score = 16\n"), "{out}");
    // Issue 28.15: the scores are printed with the board, each with its columns and bonus.
    assert!(out.contains("\n  score player_one: 36 (columns "), "{out}");
    assert!(out.contains("\n  winner: player_one\n"), "{out}");
    assert!(out.contains("ok: 29 expectation(s) held"), "{out}");

    // An impossible input says why and what is possible, as script lines.
    let dir = tempfile::tempdir().unwrap();
    let illegal = dir.path().join("illegal.play");
    std::fs::write(&illegal, "roll\nability shield 1\n").unwrap();
    let (outcome, _, err) = actforge(&["play", path(&pack), "--script", path(&illegal), "--seed", "7"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(
        err.contains("illegal.play:line 2: that card is played before rolling; possible now: place player_one 1, place player_one 2, place player_one 3"),
        "{err}"
    );
    let (outcome, out, err) = actforge(&["check", path(&pack)]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
}

#[test]
fn play_runs_the_skirmish_battle_with_unit_queries() {
    let skirmish = content("srpg-skirmish");
    let (outcome, out, err) = actforge(&["check", path(&skirmish)]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    let (outcome, out, err) = actforge(&["fmt", path(&skirmish), "--check"]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    let script = actforge_tests::repo_root().join("content/srpg-skirmish/tests/srpg_skirmish.play");
    let (outcome, out, err) = actforge(&[
        "play",
        path(&skirmish),
        "--script",
        path(&script),
        "--query",
        "unit.knight.hp",
        "--query",
        "team.blue.alive",
    ]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    assert!(out.contains("unit.knight.hp = 24"), "{out}");
    assert!(out.contains("team.blue.alive = 1"), "{out}");
    assert!(out.contains("winner blue"), "{out}");
    assert!(out.contains("unit hexer (red) at 0 2 1 defeated"), "{out}");
    assert!(out.contains("unit knight (blue) at 0 3 1: hp 24, ct 60 [], wields longsword, kite_shield"), "{out}");

    // An impossible move says why and what was possible.
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.play");
    std::fs::write(&bad, "move raider 0 0\n").unwrap();
    let (outcome, _, err) = actforge(&["play", path(&skirmish), path(&bad)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("bad.play:line 1: that unit cannot move there now; possible now: move raider"), "{err}");
    assert!(err.contains("wait raider"), "{err}");
}

#[test]
fn play_runs_the_issues_sim_golden_playtest_and_reads_stats() {
    let project = content("issues-sim");
    let (outcome, out, err) = actforge(&["check", path(&project)]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert!(err.contains(": 0 errors, 0 warnings;"), "{err}");
    let script = actforge_tests::repo_root().join("content/issues-sim/tests/issues_sim.play");
    let (outcome, out, err) = actforge(&[
        "play",
        path(&project),
        "--script",
        path(&script),
        "--query",
        "round(treasury)",
        "--query",
        "round(stat.tax_rate * 100) + turn",
    ]);
    assert_eq!(outcome, Exit::Success, "{out}\n{err}");
    assert!(out.contains("\nround(treasury) = 133\n"), "{out}");
    assert!(out.contains("\nround(stat.tax_rate * 100) + turn = 24\n"), "{out}");
    assert!(out.contains("  stat treasury \"Treasury\" = 133"), "{out}");
    assert!(out.contains("  stat pollution \"Pollution\" = 27 (hidden)"), "{out}");
    assert!(out.contains("outcome: Ended(\"end of history\")"), "{out}");
    assert!(out.contains("expectation(s) held"), "{out}");

    // An option that is not offered says why and what is.
    let dir = tempfile::tempdir().unwrap();
    let illegal = dir.path().join("illegal.play");
    std::fs::write(&illegal, "play festival hold_a_festival\n").unwrap();
    let (outcome, _, err) = actforge(&["play", path(&project), "--script", path(&illegal)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(
        err.contains(
            "illegal.play:line 1: `festival` is not in the hand; possible now: play budget_crisis raise_taxes,"
        ),
        "{err}"
    );
    assert!(err.contains("play harbour_plan build_the_harbour, play harbour_plan shelve_it, end-turn"), "{err}");
}

#[test]
fn sim_summaries_are_the_same_on_any_thread_count_and_diff_against_a_baseline() {
    let pack = content("knucklebones");
    let sim = |threads: &str, seed: &str| {
        let (outcome, out, err) =
            actforge(&["sim", path(&pack), "--runs", "300", "--seed", seed, "--threads", threads, "--json"]);
        assert_eq!(outcome, Exit::Success, "{err}");
        out
    };
    let one = sim("1", "5");
    assert_eq!(one, sim("2", "5"));
    let summary: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert_eq!(summary["runs"], 300);
    assert_eq!(summary["policy"], "random");
    let outcomes = summary["outcomes"].as_object().unwrap();
    assert_eq!(outcomes.values().map(|count| count.as_u64().unwrap()).sum::<u64>(), 300);
    assert!(summary["stats"]["board.player_one.score"]["mean"].as_f64().unwrap() > 0.0);
    assert_eq!(summary["dead"]["cards"], serde_json::json!([]));

    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("before.json");
    std::fs::write(&baseline, &one).unwrap();
    let (outcome, out, err) =
        actforge(&["sim", path(&pack), "--runs", "300", "--seed", "6", "--baseline", path(&baseline)]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert!(out.contains("changes since the baseline"), "{out}");
    assert!(out.contains("outcome ended:player_one wins (share)"), "{out}");
    assert!(out.contains("dead content (never reached in 300 runs)\n  none"), "{out}");

    // A policy per side: the sides and abilities sections, and the same in the CSV.
    let (outcome, out, err) = actforge(&["sim", path(&pack), "--runs", "20", "--policy", "random,greedy"]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert!(out.contains("20 runs, first seed 7, random vs greedy play"), "{out}");
    assert!(out.contains("\nsides\n  player_one                   random "), "{out}");
    assert!(out.contains("\nabilities (side/card"), "{out}");
    assert!(out.contains("  player_two/thief "), "{out}");
    let (outcome, out, _) = actforge(&["sim", path(&pack), "--runs", "20", "--policy", "greedy,random", "--csv"]);
    assert_eq!(outcome, Exit::Success);
    assert!(out.contains("side_policy,player_one,greedy\n"), "{out}");
    assert!(out.contains("ability,player_one/shield.runs_played,"), "{out}");
    let (outcome, _, err) = actforge(&["sim", path(&pack), "--runs", "2", "--policy", "random,clever"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("unknown side policy `clever`"), "{err}");

    let (outcome, out, _) = actforge(&["sim", path(&pack), "--runs", "20", "--csv"]);
    assert_eq!(outcome, Exit::Success);
    assert!(out.starts_with("section,name,value\nrun,runs,20\n"), "{out}");
    assert!(out.contains("\nvalue,board.player_one.score.mean,"), "{out}");
}

/// The text summary without its last line, where `sim` says how long it took and `sim-merge`
/// how many shards it merged.
fn without_footer(text: &str) -> &str {
    let body = text.trim_end_matches('\n');
    body.rsplit_once('\n').map_or(body, |(body, _)| body)
}

/// Plays shards `shards` of `actforge sim ARGS… --shard K/N --json` into files in `dir`.
fn write_shards(dir: &std::path::Path, args: &[&str], shards: &[(usize, usize)]) -> Vec<std::path::PathBuf> {
    shards
        .iter()
        .map(|(shard, of)| {
            let spec = format!("{shard}/{of}");
            let mut command = args.to_vec();
            command.extend(["--shard", &spec, "--json"]);
            let (outcome, out, err) = actforge(&command);
            assert_eq!(outcome, Exit::Success, "{command:?}: {err}");
            let file = dir.join(format!("shard-{shard}-of-{of}.json"));
            fs::write(&file, out).unwrap();
            file
        })
        .collect()
}

#[test]
fn sim_merge_of_three_shards_prints_byte_for_byte_what_one_machine_prints() {
    // Board play with abilities, a campaign with eras and grades, a table with ticks and acts,
    // a battle with unit stats.
    for (pack, runs, extra) in [
        ("knucklebones", "50", &["--policy", "random,greedy"][..]),
        ("era-synthesis", "31", &[][..]),
        ("lighthouse", "20", &["--max-moves", "300"][..]),
        ("srpg-skirmish", "7", &["--max-moves", "40"][..]),
    ] {
        let project = content(pack);
        let mut args = vec!["sim", path(&project), "--runs", runs, "--seed", "11"];
        args.extend(extra);
        let dir = tempfile::tempdir().unwrap();
        let files = write_shards(dir.path(), &args, &[(1, 3), (2, 3), (3, 3)]);
        // Any order of the files merges the same.
        let merge_args = |format: &[&'static str]| {
            let mut command = vec!["sim-merge", path(&files[2]), path(&files[0]), path(&files[1])];
            command.extend(format);
            command
        };
        for format in [&["--json"][..], &["--csv"], &[]] {
            let mut single = args.clone();
            single.extend(format);
            let (outcome, one, err) = actforge(&single);
            assert_eq!(outcome, Exit::Success, "{pack}: {err}");
            let (outcome, merged, err) = actforge(&merge_args(format));
            assert_eq!(outcome, Exit::Success, "{pack} {format:?}: {err}");
            if format.is_empty() {
                assert_eq!(without_footer(&merged), without_footer(&one), "{pack}: text");
                assert!(merged.ends_with(&format!("\n{runs} runs merged from 3 shards\n")), "{merged}");
                assert!(one.contains(&format!("{runs} runs, first seed 11")), "{one}");
            } else {
                assert_eq!(merged, one, "{pack} {format:?}");
            }
        }
    }
}

#[test]
fn sim_shards_slice_runs_in_contiguous_blocks_whatever_the_thread_count() {
    let project = content("knucklebones");
    let dir = tempfile::tempdir().unwrap();
    let args = ["sim", path(&project), "--runs", "10", "--seed", "3"];
    let files = write_shards(dir.path(), &args, &[(1, 4), (2, 4), (3, 4), (4, 4)]);
    let shard: serde_json::Value = serde_json::from_str(&fs::read_to_string(&files[1]).unwrap()).unwrap();
    assert_eq!(shard["format"], "actforge-sim-shard");
    assert_eq!(shard["version"], 1);
    assert_eq!((shard["shard"].as_u64(), shard["shards"].as_u64()), (Some(2), Some(4)));
    // 10 runs over 4 shards: runs 0-1, 2-4, 5-6, 7-9.
    assert_eq!(shard["first_run"], 2);
    assert_eq!(shard["records"].as_array().unwrap().len(), 3);
    let parameters = &shard["parameters"];
    assert_eq!((parameters["runs"].as_u64(), parameters["seed"].as_u64()), (Some(10), Some(3)));
    assert!(parameters["content_hash"].as_str().unwrap().starts_with("fnv1a64:"), "{parameters}");
    assert_eq!(parameters["project"], "Knucklebones");
    let other_dir = tempfile::tempdir().unwrap();
    let again = write_shards(other_dir.path(), &[&args[..], &["--threads", "1"]].concat(), &[(2, 4)]);
    assert_eq!(fs::read_to_string(&again[0]).unwrap(), fs::read_to_string(&files[1]).unwrap());
    // More shards than runs: some shards are empty (here the first) and still needed.
    let tiny = ["sim", path(&project), "--runs", "2", "--seed", "3"];
    let files = write_shards(dir.path(), &tiny, &[(1, 3), (2, 3), (3, 3)]);
    let (outcome, merged, err) = actforge(&["sim-merge", path(&files[0]), path(&files[1]), path(&files[2]), "--json"]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert_eq!(merged, actforge(&[&tiny[..], &["--json"]].concat()).1);
}

#[test]
fn sim_shard_refuses_bad_k_of_n_and_combinations_it_does_not_support() {
    let project = content("knucklebones");
    let usage = |args: &[&str]| {
        let argv = ["actforge", "sim", path(&project), "--runs", "4"].into_iter().chain(args.iter().copied());
        run_args(argv, &mut Vec::new(), &mut Vec::new()).unwrap_err().to_string()
    };
    for (spec, why) in [
        ("0/3", "K must be between 1 and 3"),
        ("4/3", "K must be between 1 and 3"),
        ("1/0", "N must be at least 1"),
        ("two/3", "K `two` is not a whole number"),
        ("3", "no `/`"),
    ] {
        let message = usage(&["--shard", spec, "--json"]);
        assert!(message.contains(why) && message.contains("K/N"), "{spec}: {message}");
    }
    let message = usage(&["--shard", "1/2"]);
    assert!(message.contains("--json"), "{message}");
    let message = usage(&["--shard", "1/2", "--json", "--baseline", "before.json"]);
    assert!(message.contains("--baseline") && message.contains("cannot be used with"), "{message}");
    let message = usage(&["--shard", "1/2", "--csv"]);
    assert!(message.contains("--csv") && message.contains("cannot be used with"), "{message}");
    let argv = ["actforge", "sim-merge"];
    let message = run_args(argv, &mut Vec::new(), &mut Vec::new()).unwrap_err().to_string();
    assert!(message.contains("<SHARD>"), "{message}");
}

#[test]
fn sim_merge_refuses_hostile_shards_and_names_the_problem() {
    let project = content("knucklebones");
    let dir = tempfile::tempdir().unwrap();
    let args = ["sim", path(&project), "--runs", "9", "--seed", "2"];
    let files = write_shards(dir.path(), &args, &[(1, 3), (2, 3), (3, 3)]);
    let [one, two, three] = [&files[0], &files[1], &files[2]];
    let text = fs::read_to_string(two).unwrap();
    let write = |name: &str, content: &str| {
        let file = dir.path().join(name);
        fs::write(&file, content).unwrap();
        file
    };
    let refused = |shards: &[&std::path::Path]| {
        let mut command = vec!["sim-merge"];
        command.extend(shards.iter().map(|file| path(file)));
        let (outcome, out, err) = actforge(&command);
        assert_eq!(outcome, Exit::Failure, "{shards:?}: {out}");
        assert_eq!(out, "");
        err
    };
    let truncated = write("truncated.json", &text[..text.len() / 2]);
    let err = refused(&[one, &truncated, three]);
    assert!(err.contains("truncated.json: not JSON"), "{err}");
    let garbage = write("garbage.json", "PK\u{3}\u{4} not json at all");
    assert!(refused(&[one, &garbage, three]).contains("garbage.json: not JSON"));
    let summary = write("summary.json", &actforge(&[&args[..], &["--json"]].concat()).1);
    let err = refused(&[one, &summary, three]);
    assert!(err.contains("summary.json: not a shard") && err.contains("--shard K/N --json"), "{err}");
    let future = write("future.json", &text.replacen("\"version\":1", "\"version\":99", 1));
    assert!(refused(&[one, &future, three]).contains("future.json: shard version 99; this actforge reads version 1"));
    let cut = write("cut.json", &text.replacen("\"records\":[{", "\"records\":[{\"outcome\":7,", 1));
    assert!(refused(&[one, &cut, three]).contains("cut.json: not a whole shard"));
    let missing = dir.path().join("nowhere.json");
    assert!(refused(&[one, &missing, three]).contains("nowhere.json"));

    // Shards of another simulation.
    let other_dir = tempfile::tempdir().unwrap();
    let other = write_shards(other_dir.path(), &["sim", path(&project), "--runs", "9", "--seed", "5"], &[(2, 3)]);
    let err = refused(&[one, &other[0], three]);
    assert!(err.contains("are shards of different simulations: seed 2 vs 5"), "{err}");
    let steps = write_shards(other_dir.path(), &[&args[..], &["--max-steps", "500"]].concat(), &[(2, 3)]);
    assert!(refused(&[one, &steps[0], three]).contains("max_steps 100000 vs 500"));
    let edited = write("edited.json", &text.replacen("\"content_hash\":\"fnv1a64:", "\"content_hash\":\"fnv1a64:0", 1));
    assert!(refused(&[one, &edited, three]).contains("content_hash (the content)"));

    // Overlapping, duplicate, missing shards.
    let halves = write_shards(other_dir.path(), &args, &[(1, 2)]);
    let err = refused(&[one, &halves[0], three]);
    assert!(err.contains("shard count N 3 vs 2"), "{err}");
    let err = refused(&[one, two, two, three]);
    assert!(err.contains("shard 2/3 is given twice") && err.contains("shard-2-of-3.json"), "{err}");
    let err = refused(&[one, three]);
    assert!(err.contains("shard 2/3 of 3 missing"), "{err}");
    let err = refused(&[three]);
    assert!(err.contains("shard 1/3, 2/3 of 3 missing"), "{err}");
    // A shard whose runs do not match its K/N (a record dropped, or relabelled as another K).
    let shard: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut dropped = shard.clone();
    dropped["records"].as_array_mut().unwrap().pop();
    let dropped = write("dropped.json", &dropped.to_string());
    let err = refused(&[one, &dropped, three]);
    assert!(
        err.contains("dropped.json: shard 2/3 of 9 runs should hold 3 runs from run 3 (from 0), but holds 2"),
        "{err}"
    );
    let mut relabelled = shard;
    relabelled["shard"] = serde_json::json!(1);
    let relabelled = write("relabelled.json", &relabelled.to_string());
    let err = refused(&[&relabelled, two, three]);
    assert!(err.contains("should hold 3 runs from run 0 (from 0), but holds 3 from run 3"), "{err}");
}

#[test]
fn sim_refuses_bad_policies_and_baselines_with_a_reason() {
    let lighthouse = content("lighthouse");
    let (outcome, _, err) = actforge(&["sim", path(&lighthouse), "--runs", "3", "--policy", "greedy"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("greedy play needs a score formula"), "{err}");
    let (outcome, _, err) = actforge(&["sim", path(&lighthouse), "--policy", "clever"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("unknown policy `clever`"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, "{ not json").unwrap();
    let (outcome, _, err) = actforge(&["sim", path(&lighthouse), "--runs", "3", "--baseline", path(&broken)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("broken.json: not a summary"), "{err}");
    let script = dir.path().join("start.play");
    std::fs::write(&script, "wait 10\n").unwrap();
    let (outcome, out, err) =
        actforge(&["sim", path(&lighthouse), "--runs", "4", "--max-moves", "50", "--policy", "script", path(&script)]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert!(out.contains("4 runs, first seed"), "{out}");
    assert!(out.contains("script play"), "{out}");
}

#[test]
fn schema_prints_the_bundle_schema_or_writes_it_atomically() {
    let (outcome, printed, err) = actforge(&["schema"]);
    assert_eq!(outcome, Exit::Success, "{err}");
    let schema: serde_json::Value = serde_json::from_str(&printed).unwrap();
    let version = actforge_runtime::model::SCHEMA_VERSION;
    assert_eq!(schema["$id"], format!("https://actforge.invalid/schema/bundle-v{version}.json"));
    assert_eq!(schema["x-actforge-schema-version"], version);
    assert_eq!(schema["properties"]["cards"]["items"]["$ref"], "#/$defs/Card");
    assert_eq!(schema["$defs"]["Card"]["properties"]["decay_to"]["x-actforge-kind"], "cards");

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("schemas").join("bundle.schema.json");
    let (outcome, out, err) = actforge(&["schema", "-o", path(&file)]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert!(out.starts_with(&format!("wrote the bundle schema (version {version}) to ")), "{out}");
    assert_eq!(fs::read_to_string(&file).unwrap(), printed);

    // A folder in the way is an error with the path, not a panic.
    let blocked = dir.path().join("schemas");
    let (outcome, _, err) = actforge(&["schema", "--output", path(&blocked)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.starts_with(&format!("error: {}:", blocked.display())), "{err}");
}

#[test]
fn test_runs_every_pack_s_own_playtests() {
    for pack in [
        "act-demo",
        "era-synthesis",
        "issues-sim",
        "knucklebones",
        "knucklebones-extended",
        "lighthouse",
        "srpg-skirmish",
    ] {
        let (outcome, out, err) = actforge(&["test", path(&content(pack))]);
        assert_eq!(outcome, Exit::Success, "{pack}: {out}{err}");
        assert!(out.contains(" passed, 0 failed") && !out.starts_with("0 passed"), "{pack}: {out}");
    }
    let (_, out, _) = actforge(&["test", path(&content("srpg-skirmish"))]);
    assert!(
        out.contains("ok     srpg_skirmish (")
            && out.contains("ok     srpg_skirmish_bash (8 expectations)")
            && out.contains("ok     srpg_skirmish_venom (")
            && out.contains("ok     srpg_skirmish_moves (")
            && out.contains("ok     srpg_skirmish_terrain (7 expectations)")
            && out.contains("ok     srpg_skirmish_riposte (")
            && out.contains("ok     setup_and_checks ("),
        "{out}"
    );
    assert!(out.ends_with("7 passed, 0 failed\n"), "{out}");
}

#[test]
fn test_names_the_first_failing_line_and_fails() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&content("lighthouse"), dir.path()).unwrap();
    fs::write(
        dir.path().join("tests").join("wrong_count.play"),
        "# the lamp is idle, then a wrong count\nexpect status lamp_room idle\nexpect table.card.ember == 3\n",
    )
    .unwrap();
    let (outcome, out, _) = actforge(&["test", path(dir.path())]);
    assert_eq!(outcome, Exit::Failure, "{out}");
    assert!(out.contains("ok     lighthouse_lamp (7 expectations)"), "{out}");
    assert!(out.contains("FAILED wrong_count"), "{out}");
    assert!(
        out.contains("tests/wrong_count.play:3: `table.card.ember == 3` does not hold; table.card.ember = 0"),
        "{out}"
    );
    assert!(out.ends_with("2 passed, 1 failed\n"), "{out}");
    // A filter runs only the tests it names; JSON says the same.
    let (outcome, out, _) = actforge(&["test", path(dir.path()), "--filter", "lamp"]);
    assert_eq!(outcome, Exit::Success, "{out}");
    assert!(out.ends_with("1 passed, 0 failed\n") && !out.contains("wrong_count"), "{out}");
    let (_, out, _) = actforge(&["test", path(dir.path()), "--json"]);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["failed"], 1);
    let failed = json["tests"].as_array().unwrap().iter().find(|test| test["name"] == "wrong_count").unwrap();
    assert_eq!(failed["line"], 3);
    assert_eq!(failed["passed"], false);
    // A bundle carries its tests only when asked; they run from it, and come back on import.
    let plain = dir.path().join("plain.ron");
    actforge(&["export", path(dir.path()), "-o", path(&plain), "--force"]);
    let (outcome, out, _) = actforge(&["test", path(&plain)]);
    assert_eq!(outcome, Exit::Success);
    assert!(out.contains("export a bundle --with-tests") && out.ends_with("0 passed, 0 failed\n"), "{out}");
    let bundle = dir.path().join("bundle.json");
    let (_, out, _) =
        actforge(&["export", path(dir.path()), "-o", path(&bundle), "--format", "json", "--with-tests", "--force"]);
    assert!(out.contains("with 3 playtest(s)"), "{out}");
    let (outcome, out, _) = actforge(&["test", path(&bundle)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(out.contains("tests/wrong_count.play:3:") && out.ends_with("2 passed, 1 failed\n"), "{out}");
    let restored = dir.path().join("restored");
    actforge(&["import", "bundle", path(&bundle), "-o", path(&restored)]);
    assert_eq!(
        fs::read_to_string(restored.join("tests").join("lighthouse_lamp.play")).unwrap(),
        fs::read_to_string(content("lighthouse").join("tests").join("lighthouse_lamp.play")).unwrap()
    );
}

#[test]
fn play_explains_why_an_act_cannot_start() {
    let (outcome, out, err) =
        actforge(&["play", path(&content("lighthouse")), "--explain", "tend_the_lamp", "--explain", "nothing_here"]);
    assert_eq!(outcome, Exit::Success, "{err}");
    assert!(out.contains("why not tend_the_lamp:\n  Tend the Lamp (tend_the_lamp): "), "{out}");
    assert!(out.contains("Tend the Lamp (tend_the_lamp): needs fuel ≥ 1 in the window: 0"), "{out}");
    assert!(err.contains("--explain nothing_here: there is no act `nothing_here`"), "{err}");
}

#[test]
fn test_caps_the_runs_of_expect_sim_lines_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&content("knucklebones"), dir.path()).unwrap();
    let tests = dir.path().join("tests");
    fs::write(
        tests.join("sim.play"),
        "expect sim runs 5000 seed 1: P(outcome.ended) in 1..1\nrepeat 3\n  expect sim runs 5000: P(outcome.won.player_one) in 0..1\nend\n",
    )
    .unwrap();
    let (outcome, out, _) = actforge(&["test", path(dir.path()), "--filter", "sim", "--max-sim-runs", "40"]);
    assert_eq!(outcome, Exit::Success, "{out}");
    assert!(out.contains("ok     sim (4 expectations)"), "{out}");
    assert!(
        out.contains(
            "tests/sim.play: line 1: expect sim runs 5000 seed 1: P(outcome.ended) in 1..1 (capped at 40 of 5000 runs)"
        ),
        "{out}"
    );
    assert_eq!(out.matches("tests/sim.play: line 3: ").count(), 1, "a repeated line is noted once: {out}");
    // A failing line inside a repeat names its repetition; JSON carries the cap too.
    fs::write(tests.join("fail.play"), "repeat 2\n  expect sim runs 5000 seed 2: P(outcome.draw) in 0.5..1\nend\n")
        .unwrap();
    let (outcome, out, _) = actforge(&["test", path(dir.path()), "--filter", "fail", "--max-sim-runs", "40"]);
    assert_eq!(outcome, Exit::Failure, "{out}");
    assert!(out.contains("tests/fail.play:2: in repetition 1 of 2: P(outcome.draw) = "), "{out}");
    assert!(out.contains(" of 40 runs) (capped at 40 of 5000 runs), expected in 0.5..1"), "{out}");
    let (_, json, _) = actforge(&["test", path(dir.path()), "--filter", "fail", "--max-sim-runs", "40", "--json"]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["tests"][0]["line"], 2);
    assert_eq!(json["tests"][0]["notes"].as_array().unwrap().len(), 1);
    // The same script, seed and cap give the same output every time.
    let again = actforge(&["test", path(dir.path()), "--filter", "fail", "--max-sim-runs", "40"]).1;
    assert_eq!(again, out);
}

/// Issue 27.6: commands that run a project refuse one that lost items to files that did not
/// load (they ran without them and said nothing), unless `--allow-broken`, which warns loudly;
/// an item "file" that is a folder names its path.
#[test]
fn running_commands_refuse_a_project_that_did_not_load_whole_unless_allow_broken() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("lighthouse");
    actforge_tests::copy_dir(&content("lighthouse"), &project).unwrap();
    fs::write(project.join("cards").join("broken.ron"), "(\n    id: \"broken\",\n    label: ,\n)\n").unwrap();
    fs::create_dir(project.join("cards").join("folder.ron")).unwrap();
    let broken = project.join("cards").join("broken.ron");
    let folder = project.join("cards").join("folder.ron");
    for command in [
        vec!["play", path(&project)],
        vec!["sim", path(&project), "--runs", "2"],
        vec!["test", path(&project)],
        vec!["synthesis", path(&project), "forge", "ember", "mist"],
        vec!["eval", "--project", path(&project), "1 + 1"],
    ] {
        let (outcome, out, err) = actforge(&command);
        assert_eq!(outcome, Exit::Failure, "{command:?}: {out}{err}");
        assert!(err.contains(&broken.display().to_string()), "{command:?}: {err}");
        assert!(err.contains(&folder.display().to_string()), "{command:?}: {err}");
        assert!(err.contains("did not load whole") && err.contains("--allow-broken"), "{command:?}: {err}");
    }
    let (outcome, out, err) = actforge(&["play", path(&project), "--allow-broken", "--query", "1 + 1"]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert!(err.contains("warning: running WITHOUT"), "{err}");
    assert!(out.contains("1 + 1 = 2"), "{out}");
}

#[test]
fn play_prints_aspect_bars_without_hidden_aspects_unless_asked() {
    use actforge_runtime::model::{Aspect, Card, FragmentCount, FragmentRef, Id, Project};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("stone");
    let mut project = Project::new("stone");
    project.manifest.entry.cards = vec![Id::new("stone")];
    project.aspects.insert(Aspect { id: Id::new("warmth"), ..Aspect::default() });
    project.aspects.insert(Aspect { id: Id::new("curse"), hidden: true, ..Aspect::default() });
    project.cards.insert(Card {
        id: Id::new("stone"),
        fragments: vec![
            FragmentCount::new(FragmentRef::Aspect(Id::new("warmth")), 2),
            FragmentCount::new(FragmentRef::Aspect(Id::new("curse")), 1),
        ],
        ..Card::default()
    });
    actforge_runtime::project::save_new_folder(&project, &root).unwrap();
    let (outcome, out, err) = actforge(&["play", path(&root)]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert!(out.contains("  card stone #0: table; aspects warmth 2\n"), "{out}");
    assert!(!out.contains("curse"), "{out}");
    let (_, out, _) = actforge(&["play", path(&root), "--show-hidden"]);
    assert!(out.contains("  card stone #0: table; aspects curse 1 (hidden), warmth 2\n"), "{out}");
    let (_, out, _) = actforge(&["play", path(&root), "--json"]);
    assert!(out.contains("\"aspects\": {\n        \"warmth\": 2\n      }"), "{out}");
}

/// Issue 33: the merge driver merges field by field, writes a conflict file `check` places at
/// line:col, and `diff` names what changed; `new` sets up git's attributes.
#[test]
fn merge_driver_merges_fields_writes_conflicts_check_reports_and_diff_names_changes() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    actforge(&["new", path(&project)]);
    assert!(fs::read_to_string(project.join(".gitattributes")).unwrap().contains("*.ron merge=actforge"));
    let act =
        |label: &str, text: &str| format!("(\n    id: \"hello\",\n    label: \"{label}\",\n    text: \"{text}\",\n)\n");
    let (base, ours, theirs) = (dir.path().join("base"), dir.path().join("ours"), dir.path().join("theirs"));
    fs::write(&base, act("Hello", "Once.")).unwrap();
    fs::write(&ours, act("Hi", "Once.")).unwrap();
    fs::write(&theirs, act("Hello", "Twice.")).unwrap();
    let file = project.join("acts").join("hello.ron");
    let (outcome, out, err) =
        actforge(&["merge", path(&base), path(&ours), path(&theirs), "-o", path(&file), "--path", "acts/hello.ron"]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert_eq!(fs::read_to_string(&file).unwrap(), act("Hi", "Twice."));

    // The saved project becomes the "before" of a diff.
    let before = dir.path().join("before");
    actforge(&["new", path(&before)]);
    fs::write(before.join("acts").join("hello.ron"), act("Hello", "Twice.")).unwrap();

    fs::write(&theirs, act("Hey", "Twice.")).unwrap();
    let (outcome, out, _) =
        actforge(&["merge", path(&base), path(&ours), path(&theirs), "-o", path(&file), "--path", "acts/hello.ron"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(out.contains("CONFLICT acts/hello.ron: one field was changed on both sides: label"), "{out}");
    let (outcome, out, _) = actforge(&["check", path(&project)]);
    assert_eq!(outcome, Exit::Failure);
    let text = fs::read_to_string(&file).unwrap();
    let (line, col) = text
        .lines()
        .enumerate()
        .find_map(|(at, line)| line.find("(field: \"label\"").map(|col| (at + 1, col + 1)))
        .unwrap();
    assert!(
        out.contains(&format!("{}:{line}:{col}: error: act `hello`, label: merge conflict in `label`", file.display())),
        "{out}\n{text}"
    );
    // fmt leaves a conflict file alone.
    actforge(&["fmt", path(&project)]);
    assert_eq!(fs::read_to_string(&file).unwrap(), text);

    // A side that is not valid RON is merged line by line, with git's markers where both changed.
    fs::write(&ours, "(\n    id: \"hello\",\n    label: \"Hi\",\n    text: \"Once.\"\n").unwrap();
    let out_file = dir.path().join("out.ron");
    let (outcome, out, err) = actforge(&[
        "merge",
        path(&base),
        path(&ours),
        path(&theirs),
        "-o",
        path(&out_file),
        "--path",
        "acts/hello.ron",
    ]);
    assert_eq!(outcome, Exit::Failure, "{out}");
    assert!(err.contains("acts/hello.ron: cannot merge by field (ours does not load as act:"), "{err}");
    let text = fs::read_to_string(&out_file).unwrap();
    assert!(
        text.starts_with("<<<<<<< ours\n(\n") && text.contains("=======\n") && text.ends_with(">>>>>>> theirs\n"),
        "{text}"
    );

    fs::write(before.join("cards").join("salt.ron"), "(\n    id: \"salt\",\n)\n").unwrap();
    let (outcome, out, _) = actforge(&["diff", path(&before), path(&project)]);
    assert_eq!(outcome, Exit::Success);
    assert_eq!(
        out,
        "~ project.ron: 1 field changed\n    name: \"before\" -> \"p\"\n- card salt\n~ act hello: 1 field changed\n    label: \"Hello\" -> \"Hi\"\n"
    );
}

#[test]
fn strings_extract_import_check_and_export_carry_a_translation_from_a_new_project() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    actforge(&["new", path(&project)]);
    fs::write(
        project.join("cards").join("coin.ron"),
        "(\n    id: \"coin\",\n    label: \"Coin\",\n    description: \"You have [coin] of them, \\\"worn\\\".\",\n)\n",
    )
    .unwrap();
    for (extension, translate) in [
        ("csv", Box::new(|text: &str| text.replace(",Coin,,", ",Coin,Pièce,")) as Box<dyn Fn(&str) -> String>),
        (
            "po",
            Box::new(|text: &str| text.replacen("msgid \"Coin\"\nmsgstr \"\"", "msgid \"Coin\"\nmsgstr \"Pièce\"", 1)),
        ),
        (
            "xliff",
            Box::new(|text: &str| {
                text.replacen(
                    "<source>Coin</source>\n",
                    "<source>Coin</source>\n        <target state=\"translated\">Pièce</target>\n",
                    1,
                )
            }),
        ),
    ] {
        // Each format starts untranslated.
        let _ = fs::remove_dir_all(project.join("locales"));
        let table = dir.path().join(format!("strings.{extension}"));
        let (outcome, out, err) = actforge(&["strings", "extract", path(&project), "-o", path(&table), "--lang", "fr"]);
        assert_eq!(outcome, Exit::Success, "{out}{err}");
        assert!(out.contains("wrote 2 texts"), "{out}");
        let text = fs::read_to_string(&table).unwrap();
        assert!(text.contains("cards.coin.label") && text.contains("cards.coin.description"), "{text}");
        fs::write(&table, translate(&text)).unwrap();
        let (outcome, out, err) = actforge(&["strings", "import", path(&project), path(&table)]);
        assert_eq!(outcome, Exit::Success, "{extension}: {out}{err}");
        assert!(out.contains("imported `fr`"), "{out}");
        let locale = fs::read_to_string(project.join("locales/fr/cards.ron")).unwrap();
        assert!(locale.contains("\"coin.label\": (text: \"Pièce\", source: \"Coin\")"), "{extension}: {locale}");
        // Extracting again gives the same file, translation included.
        let again = dir.path().join(format!("again.{extension}"));
        actforge(&["strings", "extract", path(&project), "-o", path(&again), "--lang", "fr"]);
        assert_eq!(fs::read_to_string(&again).unwrap(), translate(&text), "{extension}");
    }
    assert!(fs::read_to_string(project.join("project.ron")).unwrap().contains("languages: [\"fr\"]"));

    // `check` reports what is missing, then what is stale and a lost placeholder.
    let (_, out, _) = actforge(&["check", path(&project)]);
    assert!(out.contains("`fr`: 1 of 2 texts are not translated: cards.coin.description"), "{out}");
    let locale = project.join("locales/fr/cards.ron");
    let text = fs::read_to_string(&locale).unwrap().replace(
        "\"coin.label\"",
        "\"coin.description\": (text: \"Vous en avez, usées.\", source: \"Old.\"),\n    \"coin.label\"",
    );
    fs::write(&locale, text).unwrap();
    let (outcome, out, _) = actforge(&["check", path(&project)]);
    assert_eq!(outcome, Exit::Failure, "{out}");
    assert!(
        out.contains("locales/fr/cards.ron:4:5: warning: the `fr` translation of `cards.coin.description` is stale"),
        "{out}"
    );
    assert!(out.contains("locales/fr/cards.ron:4:5: error: the `fr` translation of `cards.coin.description` must keep its source's placeholders ([coin]): lost [coin]"), "{out}");

    // Bundles carry the chosen languages.
    fs::write(&locale, "{\"coin.label\": (text: \"Pièce\", source: \"Coin\")}\n").unwrap();
    let bundle = dir.path().join("game.ron");
    let (outcome, out, err) = actforge(&["export", path(&project), "-o", path(&bundle), "--lang", "fr"]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert!(fs::read_to_string(&bundle).unwrap().contains("\"cards.coin.label\": (text: \"Pièce\", source: \"Coin\")"));
    actforge(&["export", path(&project), "-o", path(&bundle), "--lang", "none"]);
    assert!(!fs::read_to_string(&bundle).unwrap().contains("Pièce"));
    let (outcome, _, err) = actforge(&["export", path(&project), "-o", path(&bundle), "--lang", "de"]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("`de` is not a language of the project (it has: fr)"), "{err}");
    // A language with an error stops a whole export, but not one that leaves it out.
    fs::create_dir_all(project.join("locales/de")).unwrap();
    fs::write(project.join("locales/de/cards.ron"), "{\"coin.description\": (text: \"Münze\", source: \"x\")}\n")
        .unwrap();
    let (outcome, _, err) = actforge(&["export", path(&project), "-o", path(&bundle)]);
    assert_eq!(outcome, Exit::Failure, "{err}");
    assert!(err.contains("the `de` translation of `cards.coin.description` must keep"), "{err}");
    let (outcome, out, err) = actforge(&["export", path(&project), "-o", path(&bundle), "--lang", "fr"]);
    assert_eq!(outcome, Exit::Success, "{out}{err}");
    assert!(out.contains("(languages: fr)"), "{out}");
    let (outcome, _, err) = actforge(&["strings", "extract", path(&project), "-o", path(&dir.path().join("x.txt"))]);
    assert_eq!(outcome, Exit::Failure);
    assert!(err.contains("a string table ends in .csv, .po (.pot) or .xliff (.xlf)"), "{err}");
}
