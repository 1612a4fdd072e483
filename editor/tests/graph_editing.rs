//! egui_kittest flows of the graph editors as a designer uses them: the pointer and the keys
//! only (wheel zoom, drags from pins dropped on node bodies, clicks on wires, Delete, box
//! select, copy and paste), at the default 1280×800 window.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::{Path, PathBuf};

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::commands::UiCommand;
use egui::{Event, Modifiers, MouseWheelUnit, Pos2, TouchPhase, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn content(name: &str) -> PathBuf {
    default_project_path().parent().unwrap().join(name)
}

fn copy_of(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(from, dir.path()).unwrap();
    dir
}

/// The editor on `path` at 1280×800, showing the Act chains tab.
fn act_graph(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(2);
    harness.state_mut().request(UiCommand::ActGraph);
    harness.run_steps(4);
    harness
}

/// Where the widget labelled `label` in the act graph is on screen (widgets in the graph report
/// their rectangles in graph units).
fn on_screen(harness: &Harness<'static, ActforgeApp>, label: &str) -> egui::Rect {
    harness.state().graph_views().act.canvas().transform() * harness.get_by_label(label).rect()
}

fn wheel(harness: &mut Harness<'static, ActforgeApp>, at: Pos2, lines: f32) {
    harness.hover_at(at);
    harness.run_steps(1);
    harness.event(Event::MouseWheel {
        unit: MouseWheelUnit::Line,
        delta: Vec2::new(0.0, lines),
        phase: TouchPhase::Move,
        modifiers: Modifiers::NONE,
    });
    harness.run_steps(6);
}

#[test]
fn the_wheel_zooms_about_the_pointer() {
    let mut harness = act_graph(&content("lighthouse"));
    let before = harness.state().graph_views().act.canvas().transform();
    let node = on_screen(&harness, "Tend the Lamp · tend_the_lamp").center();
    wheel(&mut harness, node, 2.0);
    let after = harness.state().graph_views().act.canvas().transform();
    assert!(after.scaling > before.scaling * 1.2, "{before:?} → {after:?}");
    // The point under the pointer stays put.
    let moved = (after * (before.inverse() * node)) - node;
    assert!(moved.length() < 2.0, "moved by {moved:?}");
}
