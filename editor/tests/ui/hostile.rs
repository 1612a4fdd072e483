//! Issue 27.9: the editor under hostile content. Each finding of the issue, opened as a
//! project, leaves the editor drawing frames, the preview says what went wrong, and nothing on
//! disk changes; a long replay shows as busy with a Stop button, and Stop works.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::ActforgeApp;
use actforge_editor::commands::UiCommand;
use actforge_runtime::Project;
use actforge_runtime::model::{
    Act, ActLink, ActModifier, Card, Effects, Expr, FragmentCount, Id, Rule, Slot, Stat, StatModifier, StatOp,
    StatValue, Token, TurnConfig,
};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// A table with one token and its act `spin` (duration `duration`), its own next act.
fn spinning(duration: &str) -> Project {
    let mut project = Project::new("hostile");
    project.slots.insert(Slot { id: Id::new("seat"), ..Default::default() });
    project.cards.insert(Card { id: Id::new("pebble"), label: "Pebble".into(), ..Card::default() });
    project.tokens.insert(Token { id: Id::new("wheel"), slot: Some(Id::new("seat")), ..Default::default() });
    project.manifest.entry.tokens = vec![Id::new("wheel")];
    project.manifest.entry.cards = vec![Id::new("pebble")];
    project.acts.insert(Act {
        id: Id::new("spin"),
        token: Some(Id::new("wheel")),
        initial: true,
        duration_ticks: Expr::new(duration),
        next_acts: vec![ActLink::to("spin")],
        ..Act::default()
    });
    project
}

/// The findings, each as a project.
fn hostile_projects() -> Vec<(&'static str, Project)> {
    let flat = vec!["1"; 8_000].join("+");
    let mut huge = spinning("1");
    huge.acts.get_mut("spin").unwrap().effects = Effects {
        act_modifiers: vec![ActModifier {
            fragment: Some(actforge_runtime::model::FragmentRef::Card(Id::new("pebble"))),
            level: Expr::int(10_000_000),
            ..ActModifier::default()
        }],
        ..Effects::default()
    };
    // A card that holds two of itself, on the table from the start.
    huge.cards.insert(Card {
        id: Id::new("nest"),
        label: "Nest".into(),
        fragments: vec![FragmentCount::new(actforge_runtime::model::FragmentRef::Card(Id::new("nest")), 2)],
        ..Card::default()
    });
    huge.manifest.entry.cards.push(Id::new("nest"));
    let mut fan = Project::new("fan");
    fan.cards.insert(Card { id: Id::new("coin"), label: "Coin".into(), ..Card::default() });
    fan.stats.insert(Stat { id: Id::new("ran"), value: StatValue::Stored(Expr::int(0)), ..Stat::default() });
    fan.rules.insert(Rule {
        id: Id::new("twice"),
        effects: Effects {
            stat_modifiers: vec![StatModifier { stat: Id::new("ran"), op: StatOp::Add, value: Expr::int(1) }],
            furthermore: vec![Id::new("twice"), Id::new("twice")],
            ..Effects::default()
        },
        ..Rule::default()
    });
    fan.turn_configs.insert(TurnConfig {
        id: Id::new("turns"),
        initial_hand: vec![Id::new("coin")],
        rules: vec![Id::new("twice")],
        ..TurnConfig::default()
    });
    vec![
        ("a flat formula of 8,000 operators", spinning(&flat)),
        ("ten million cards and a card that holds itself", huge),
        ("a rule that runs itself twice", fan),
        ("an instant act that is its own next act", spinning("0")),
        ("a duration of 0/0", spinning("0/0")),
    ]
}

fn open(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    // As the window does: a frame never waits long for the preview's worker.
    harness.state_mut().set_preview_wait(Some(std::time::Duration::from_millis(5)));
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(2);
    harness
}

/// Draws frames until the preview's worker is done, as a designer watching would.
fn until_idle(harness: &mut Harness<'static, ActforgeApp>) {
    for _ in 0..1_000 {
        harness.run_steps(1);
        if harness.state().preview().game.busy().is_none() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the preview's worker did not finish");
}

fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = Vec::new();
    for entry in walk(root) {
        all.push((entry.display().to_string(), std::fs::read(&entry).unwrap()));
    }
    all.sort();
    all
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() { found.extend(walk(&path)) } else { found.push(path) }
    }
    found
}

#[test]
fn each_hostile_project_opens_and_the_preview_says_what_went_wrong() {
    for (what, project) in hostile_projects() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        actforge_runtime::project::save_new_folder(&project, &root).unwrap();
        let before = files(&root);
        let mut harness = open(&root);
        until_idle(&mut harness);
        let app = harness.state();
        assert!(app.document().is_some(), "{what}: the project opened");
        let game = &app.preview().game;
        assert!(game.session().is_some() || !game.errors().is_empty(), "{what}: the preview plays or lists errors");
        match what {
            "a flat formula of 8,000 operators" => {
                assert!(game.errors().iter().any(|error| error.contains("operators")), "{what}: {:?}", game.errors());
            }
            "a duration of 0/0" => {
                assert!(!app.diagnostics().is_empty(), "{what}: the check flags it");
            }
            _ => {}
        }
        drop(harness);
        assert_eq!(files(&root), before, "{what}: nothing on disk changed");
    }
}

/// A long replay shows as busy with a Stop button; the frame keeps coming, and Stop shows the
/// game where the replay got to, with the later inputs kept in the log.
#[test]
fn a_long_replay_shows_busy_and_stop_ends_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("p");
    actforge_runtime::project::save_new_folder(&spinning("1"), &root).unwrap();
    let mut harness = open(&root);
    until_idle(&mut harness);
    {
        let game = &mut harness.state_mut().preview_mut().game;
        game.set_foreground_wait(None);
        assert!(game.input("run spin"));
        for _ in 0..8 {
            // Each wait is cut at the budget of one input: 100,000 steps.
            assert!(game.input("wait 1000000000000"));
            assert!(game.input("expect act wheel spin"));
        }
        game.set_foreground_wait(Some(std::time::Duration::ZERO));
    }
    harness.run_steps(1);
    // Back one input: the game is replayed to input 16, on the worker.
    harness.get_by_label_contains("Back one input").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Replaying the inputs…");
    harness.get_by_label_contains("Stop").click();
    until_idle(&mut harness);
    harness.get_by_label_contains("The replay was stopped at input");
    assert_eq!(harness.state().preview().game.log().len(), 17, "every input stays in the log");
}
