//! egui_kittest UI tests of the project browser: find widgets by label, click, type, check.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use actforge_editor::app::{ActforgeApp, Selection, default_project_path};
use actforge_runtime::Kind;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness() -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(default_project_path()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    harness
}

#[test]
fn the_browser_lists_every_kind_with_counts_and_selecting_shows_the_file() {
    let mut harness = harness();
    assert_eq!(harness.state().project().map(|p| p.acts.len()), Some(7));
    for label in ["Acts (7)", "Cards (9)", "Tile maps (1)", "Node maps (1)", "Skills (3)"] {
        harness.get_by_label_contains(label);
    }
    harness.get_by_label_contains("Acts (7)").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Tend the Lamp · tend_the_lamp").click();
    harness.run_steps(2);
    assert_eq!(harness.state().selection(), Some(&Selection { kind: Kind::Act, id: "tend_the_lamp".to_owned() }));
    harness.get_by_label("Act tend_the_lamp");
    harness.get_by_label_contains("duration_ticks: 100");
}

#[test]
fn the_filter_narrows_every_kind() {
    let mut harness = harness();
    harness.get_by_label("Filter").focus();
    harness.get_by_label("Filter").type_text("ember");
    harness.run_steps(2);
    harness.get_by_label_contains("Cards (1)");
    harness.get_by_label_contains("Acts (0)");
    harness.get_by_label_contains("Cards (1)").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Ember · ember");
    assert!(harness.query_by_label_contains("Ash · ash").is_none());
}

#[test]
fn a_project_that_cannot_open_shows_why_and_keeps_running() {
    let dir = tempfile::tempdir().unwrap();
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().join("missing")));
    harness.run_steps(2);
    harness.get_by_label("The project could not be opened");
    let reload = format!("{} Reload", egui_phosphor::regular::ARROWS_CLOCKWISE);
    harness.get_by_role_and_label(egui::accesskit::Role::Button, &reload).click();
    harness.run_steps(2);
    harness.get_by_label("The project could not be opened");
}

#[test]
fn clicking_a_diagnostic_selects_its_item() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("project.ron"), "(schema_version: 1, name: \"Broken\")").unwrap();
    std::fs::create_dir_all(dir.path().join("acts")).unwrap();
    std::fs::write(dir.path().join("acts").join("start.ron"), "(id: \"start\", next_acts: [(act: \"gone\")])").unwrap();
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    harness.run_steps(2);
    harness.get_by_label_contains("there is no act `gone`").click();
    harness.run_steps(2);
    assert_eq!(harness.state().selection(), Some(&Selection { kind: Kind::Act, id: "start".to_owned() }));
}
