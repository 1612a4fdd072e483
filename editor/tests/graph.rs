//! egui_kittest tests of the graph views: act chains and node maps.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::commands::UiCommand;
use actforge_editor::views::GraphHighlight;
use actforge_editor::views::act_links::LinkKind;
use actforge_editor::views::graph_canvas::DETAIL_SCALE;
use actforge_editor::views::graph_layout::{Spacing, layered_layout};
use actforge_runtime::model::ActLink;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn content(name: &str) -> PathBuf {
    default_project_path().parent().unwrap().join(name)
}

/// A copy of a project folder in a temporary folder (the graph stores positions beside it).
fn copy_of(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(from, dir.path()).unwrap();
    dir
}

/// Where the widget labelled `label` is on screen (the canvas draws in screen space).
fn on_screen(harness: &Harness<'static, ActforgeApp>, label: &str) -> egui::Rect {
    harness.get_by_label(label).rect()
}

/// `lines` lines of the mouse wheel over `at` (screen points).
fn wheel(harness: &mut Harness<'static, ActforgeApp>, at: egui::Pos2, lines: f32) {
    harness.hover_at(at);
    harness.run_steps(1);
    harness.event(egui::Event::MouseWheel {
        unit: egui::MouseWheelUnit::Line,
        delta: egui::Vec2::new(0.0, lines),
        phase: egui::TouchPhase::Move,
        modifiers: egui::Modifiers::NONE,
    });
    harness.run_steps(6);
}

fn harness_at(path: &Path, command: UiCommand) -> Harness<'static, ActforgeApp> {
    harness_sized(path, command, [1600.0, 1000.0])
}

/// The editor on `path` in a window of `size`, showing what `command` opens.
fn harness_sized(path: &Path, command: UiCommand, size: [f32; 2]) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size(size)
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(2);
    harness.state_mut().request(command);
    harness.run_steps(4);
    harness
}

fn next_acts(app: &ActforgeApp, id: &str) -> Vec<ActLink> {
    app.project().unwrap().acts.get(id).unwrap().next_acts.clone()
}

/// Connecting two acts goes through the code a dropped wire runs (`emit_link`, called by the
/// viewer's `connect`): the next link is in the document, one undo step removes it.
#[test]
fn connecting_two_acts_creates_the_next_link_and_undo_removes_it() {
    let dir = copy_of(&content("act-demo"));
    let mut harness = harness_at(dir.path(), UiCommand::ActGraph);
    let before = next_acts(harness.state(), "walk_home");
    let undo_before = harness.state().history().undo_len();
    harness.state_mut().graph_views_mut().act.request_connect("walk_home", LinkKind::Next, "spring_thaw");
    harness.run_steps(3);
    let after = next_acts(harness.state(), "walk_home");
    assert_eq!(after.len(), before.len() + 1);
    assert_eq!(after.last().unwrap().act.as_str(), "spring_thaw");
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    // The graph shows the new wire after its rebuild: relinking is refused as a repeat.
    harness.state_mut().graph_views_mut().act.request_connect("walk_home", LinkKind::Next, "spring_thaw");
    harness.run_steps(2);
    assert!(harness.state().graph_views().act.message().is_some_and(|m| m.contains("already")));
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(3);
    assert_eq!(next_acts(harness.state(), "walk_home"), before);
}

#[test]
fn a_node_map_connection_that_would_close_a_cycle_is_refused() {
    let dir = copy_of(&default_project_path());
    let mut harness = harness_at(dir.path(), UiCommand::NodeMap);
    let map_before = harness.state().project().unwrap().node_maps.get("coast_route").unwrap().clone();
    let undo_before = harness.state().history().undo_len();
    harness.state_mut().graph_views_mut().node_map.request_connect("headland", "harbour");
    harness.run_steps(3);
    let message = harness.state().graph_views().node_map.message().unwrap().to_owned();
    assert!(message.contains("cycle") && message.contains("headland → harbour"), "{message}");
    harness.get_by_label_contains("would close the cycle");
    assert!(harness.state().log().iter().any(|line| line.contains("would close the cycle")));
    assert_eq!(harness.state().project().unwrap().node_maps.get("coast_route").unwrap(), &map_before);
    assert_eq!(harness.state().history().undo_len(), undo_before);
    // A path that keeps the map acyclic is added, as one undo step.
    harness.state_mut().graph_views_mut().node_map.request_connect("fish_market", "chapel");
    harness.run_steps(3);
    let edges = &harness.state().project().unwrap().node_maps.get("coast_route").unwrap().edges;
    assert!(edges.iter().any(|edge| edge.from.as_str() == "fish_market" && edge.to.as_str() == "chapel"));
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
}

#[test]
fn an_unlock_condition_is_edited_in_place_with_live_errors() {
    let dir = copy_of(&default_project_path());
    let mut harness = harness_at(dir.path(), UiCommand::NodeMap);
    // The unlock fields are in the nodes' bodies, drawn when zoomed in close: wheel in on the
    // harbour (the map opens fitted, its nodes showing their titles and lines).
    for _ in 0..10 {
        let view = harness.state().graph_views().node_map.graph_to_screen();
        if view.scaling >= DETAIL_SCALE {
            break;
        }
        let harbour = view * harness.state().graph_views().node_map.drawn_nodes()["harbour"];
        harness.hover_at(harbour.center());
        harness.run_steps(1);
        harness.event(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Line,
            delta: egui::Vec2::new(0.0, 1.0),
            phase: egui::TouchPhase::Move,
            modifiers: egui::Modifiers::NONE,
        });
        harness.run_steps(4);
    }
    harness.get_by_label("harbour → tide_caves").focus();
    harness.run_steps(1);
    harness.get_by_label("harbour → tide_caves").type_text(" + no_such_name");
    harness.run_steps(3);
    let edge = harness.state().project().unwrap().node_maps.get("coast_route").unwrap().edges[1].clone();
    assert_eq!(edge.unlock.unwrap().text(), "storm < 3 + no_such_name");
    // The error shows under the field (the diagnostics list has it too, after the file name).
    let under_field = harness
        .query_all_by_label_contains("unknown name `no_such_name`")
        .filter(|node| format!("{node:?}").contains("\"unknown name `no_such_name`"))
        .count();
    assert_eq!(under_field, 1);
}

#[test]
fn the_layout_is_deterministic_and_stable_across_a_rebuild() {
    let nodes = ["a", "b", "c", "d", "e"];
    let edges = [("a", "b"), ("a", "c"), ("c", "d"), ("b", "d"), ("d", "e"), ("e", "a")];
    assert_eq!(layered_layout(&nodes, &edges, Spacing::default()), layered_layout(&nodes, &edges, Spacing::default()));
    // In the editor: the same positions in two windows, and after a rebuild (edit, undo).
    let dir = copy_of(&content("act-demo"));
    let mut harness = harness_at(dir.path(), UiCommand::ActGraph);
    let first = harness.state().graph_views().act.positions();
    assert_eq!(first.len(), 17);
    let other = harness_at(dir.path(), UiCommand::ActGraph);
    assert_eq!(other.state().graph_views().act.positions(), first);
    harness.state_mut().graph_views_mut().act.request_connect("walk_home", LinkKind::Alt, "forage");
    harness.run_steps(3);
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(3);
    assert_eq!(harness.state().graph_views().act.positions(), first);
}

#[test]
fn a_fixed_highlight_is_drawn_on_the_running_act_and_the_current_node() {
    let mut harness = harness_at(&content("act-demo"), UiCommand::ActGraph);
    let highlight = GraphHighlight {
        acts: BTreeSet::from(["forage".to_owned()]),
        nodes: BTreeSet::new(),
        path: vec!["forage".to_owned(), "walk_home".to_owned()],
        why_not: None,
    };
    harness.state_mut().graph_views_mut().set_highlight(&highlight);
    harness.run_steps(2);
    harness.get_by_label("Running: forage");
    assert_eq!(harness.state().graph_views().act.drawn_highlight(), &BTreeSet::from(["forage".to_owned()]));

    let mut harness = harness_at(&default_project_path(), UiCommand::NodeMap);
    let highlight = GraphHighlight { nodes: BTreeSet::from(["smithy".to_owned()]), ..GraphHighlight::default() };
    harness.state_mut().graph_views_mut().set_highlight(&highlight);
    harness.run_steps(2);
    harness.get_by_label("Current: smithy");
    assert_eq!(harness.state().graph_views().node_map.drawn_highlight(), &BTreeSet::from(["smithy".to_owned()]));
}

#[test]
fn node_map_nodes_are_as_wide_as_their_contents_and_do_not_overlap() {
    let mut harness = harness_at(&default_project_path(), UiCommand::NodeMap);
    harness.run_steps(2);
    let drawn = harness.state().graph_views().node_map.drawn_nodes();
    let map = harness.state().project().unwrap().node_maps.get("coast_route").unwrap();
    assert_eq!(drawn.len(), map.nodes.len(), "every node is drawn: {drawn:?}");
    for (id, rect) in &drawn {
        // Two pins, a short name, a 130-point unlock field: a node stretched to the view's
        // width once covered its neighbours.
        assert!(rect.width() < 320.0, "{id} is {} wide", rect.width());
        for (other, other_rect) in drawn.range::<String, _>((std::ops::Bound::Excluded(id), std::ops::Bound::Unbounded))
        {
            assert!(!rect.intersects(*other_rect), "{id} {rect:?} overlaps {other} {other_rect:?}");
        }
    }
}

#[test]
fn a_node_map_opens_zoomed_to_fit_its_tab_at_the_default_window_size() {
    let harness = harness_sized(&default_project_path(), UiCommand::NodeMap, [1280.0, 800.0]);
    // The tab lies between the project browser and the inspector.
    let tab_right = harness.get_by_label_contains("Select an item to edit").rect().left();
    let tab_left = harness.get_by_label_contains("Aspects (").rect().right();
    let view = harness.state().graph_views().node_map.graph_to_screen();
    let drawn = harness.state().graph_views().node_map.drawn_nodes();
    assert!(!drawn.is_empty());
    for (id, rect) in drawn {
        let on_screen = view * rect;
        assert!(on_screen.left() > tab_left && on_screen.right() < tab_right, "{id} is drawn at {on_screen:?}");
    }
}

// The graph editors' pointer-and-key flows, in this test binary (one link of the GUI stack
// for all of them keeps CI short).
#[path = "graph/act_graph_editing.rs"]
mod act_graph_editing;
#[path = "graph/node_map_editing.rs"]
mod node_map_editing;
