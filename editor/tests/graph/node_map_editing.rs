//! egui_kittest flows of the node-map editor as a designer uses it: the pointer and the keys
//! only (wheel zoom, a drag from a node's pin dropped on another node's body, a click on a
//! path's label, Delete), at the default 1280×800 window.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::commands::UiCommand;
use actforge_editor::views::graph_canvas::{COMPACT_SCALE, DETAIL_SCALE, WireDash};
use actforge_editor::views::node_map::MAP_TO_GRAPH;
use actforge_runtime::model::NodeMap;
use egui::{Event, Modifiers, Pos2, Rect, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use super::{copy_of, on_screen, wheel};

/// The editor on `path` at 1280×800, showing the Node map tab.
fn node_map(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(2);
    harness.state_mut().request(UiCommand::NodeMap);
    harness.run_steps(4);
    harness
}

fn coast_route(harness: &Harness<'static, ActforgeApp>) -> NodeMap {
    harness.state().project().unwrap().node_maps.get("coast_route").unwrap().clone()
}

/// Where the node `id` is on screen.
fn node_on_screen(harness: &Harness<'static, ActforgeApp>, id: &str) -> Rect {
    let view = &harness.state().graph_views().node_map;
    view.graph_to_screen() * *view.drawn_nodes().get(id).unwrap()
}

/// Zooms in about the point between two nodes until the map shows its pins and bodies.
fn zoom_to_detail_between(harness: &mut Harness<'static, ActforgeApp>, a: &str, b: &str) {
    for _ in 0..10 {
        if harness.state().graph_views().node_map.graph_to_screen().scaling >= DETAIL_SCALE {
            break;
        }
        let between = node_on_screen(harness, a).center().lerp(node_on_screen(harness, b).center(), 0.5);
        wheel(harness, between, 1.0);
    }
    assert!(harness.state().graph_views().node_map.graph_to_screen().scaling >= DETAIL_SCALE);
}

/// A drag from the pin of `from` dropped on the middle of `to`'s body.
fn drag_path(harness: &mut Harness<'static, ActforgeApp>, from: &str, to: &str) {
    let pin = on_screen(harness, &format!("path link from {from}")).center();
    let target = node_on_screen(harness, to).center();
    harness.hover_at(pin);
    harness.run_steps(1);
    harness.drag_at(pin);
    harness.run_steps(1);
    for step in 1..=6 {
        harness.hover_at(pin.lerp(target, step as f32 / 6.0));
        harness.run_steps(1);
    }
    harness.drop_at(target);
    harness.run_steps(4);
}

#[test]
fn a_drag_from_a_pin_dropped_on_a_node_body_adds_a_path() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let undo_before = harness.state().history().undo_len();
    zoom_to_detail_between(&mut harness, "fish_market", "chapel");
    drag_path(&mut harness, "Fish Market · fish_market", "chapel");
    let map = coast_route(&harness);
    assert!(
        map.edges.iter().any(|edge| edge.from.as_str() == "fish_market" && edge.to.as_str() == "chapel"),
        "{:?} / {:?}",
        map.edges,
        harness.state().graph_views().node_map.message()
    );
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    // The new path is a solid wire of its own.
    let scene = harness.state().graph_views().node_map.scene();
    let wire = scene.edges.iter().find(|edge| edge.from == "fish_market" && edge.to == "chapel").unwrap();
    assert_eq!(wire.dash, WireDash::Solid);
}

#[test]
fn the_map_opens_fitted_with_its_nodes_lines_shown() {
    let harness = node_map(&default_project_path());
    let view = harness.state().graph_views().node_map.graph_to_screen();
    // Fitted, yet not folded to title chips: the kind, properties and affixes show.
    assert!(view.scaling >= COMPACT_SCALE, "{view:?}");
    let smallest = harness.state().graph_views().node_map.canvas().smallest_text().unwrap();
    assert!(smallest >= actforge_editor::views::graph_canvas::MIN_TEXT_POINTS - 0.01, "{smallest}");
}

#[test]
fn a_locked_path_is_drawn_dashed_with_its_condition_on_the_wire() {
    let harness = node_map(&default_project_path());
    let scene = harness.state().graph_views().node_map.scene();
    let locked = scene.edges.iter().find(|edge| edge.from == "harbour" && edge.to == "tide_caves").unwrap();
    assert_eq!(locked.dash, WireDash::Dashed);
    assert!(locked.label.as_deref().is_some_and(|label| label.contains("storm < 3")), "{locked:?}");
    let open = scene.edges.iter().find(|edge| edge.from == "fish_market" && edge.to == "smithy").unwrap();
    assert_eq!(open.dash, WireDash::Solid);
    assert!(open.label.as_deref().is_some_and(|label| label.contains("cost 1")), "{open:?}");
    // And the canvas drew them so.
    let canvas = harness.state().graph_views().node_map.canvas();
    assert_eq!(canvas.drawn_dash(&locked.key), Some(WireDash::Dashed));
    assert_eq!(canvas.drawn_dash(&open.key), Some(WireDash::Solid));
}

#[test]
fn clicking_a_path_label_then_delete_removes_it_in_one_undo_step() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let before = coast_route(&harness);
    let undo_before = harness.state().history().undo_len();
    let label = on_screen(&harness, "Path fish_market → smithy, cost 1").center();
    harness.hover_at(label);
    harness.run_steps(1);
    harness.drag_at(label);
    harness.run_steps(1);
    harness.drop_at(label);
    harness.run_steps(2);
    harness.key_press(egui::Key::Delete);
    harness.run_steps(4);
    let after = coast_route(&harness);
    assert_eq!(after.edges.len(), before.edges.len() - 1);
    assert!(!after.edges.iter().any(|edge| edge.from.as_str() == "fish_market" && edge.to.as_str() == "smithy"));
    assert_eq!(after.nodes, before.nodes, "only the path goes");
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(3);
    assert_eq!(coast_route(&harness), before);
}

#[test]
fn a_drop_that_would_close_a_cycle_leaves_the_map_unchanged_and_says_why() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let before = coast_route(&harness);
    let undo_before = harness.state().history().undo_len();
    zoom_to_detail_between(&mut harness, "fish_market", "smithy");
    drag_path(&mut harness, "Smithy · smithy", "fish_market");
    assert_eq!(coast_route(&harness), before);
    assert_eq!(harness.state().history().undo_len(), undo_before);
    let message = harness.state().graph_views().node_map.message().unwrap().to_owned();
    assert!(message.contains("would close the cycle") && message.contains("smithy → fish_market"), "{message}");
    harness.get_by_label_contains("would close the cycle");
    assert!(harness.state().log().iter().any(|line| line.contains("would close the cycle")));
}

/// A press and release at `at` with the primary button.
fn click_at(harness: &mut Harness<'static, ActforgeApp>, at: Pos2) {
    harness.hover_at(at);
    harness.run_steps(1);
    harness.drag_at(at);
    harness.run_steps(1);
    harness.drop_at(at);
    harness.run_steps(3);
}

/// A right click at `at` (opens the canvas's context menu).
fn right_click_at(harness: &mut Harness<'static, ActforgeApp>, at: Pos2) {
    harness.hover_at(at);
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        harness.run_steps(1);
    }
    harness.run_steps(2);
}

/// A drag with the primary button from `from` to `to`, in steps.
fn drag(harness: &mut Harness<'static, ActforgeApp>, from: Pos2, to: Pos2) {
    harness.hover_at(from);
    harness.run_steps(1);
    harness.drag_at(from);
    harness.run_steps(1);
    for step in 1..=6 {
        harness.hover_at(from.lerp(to, step as f32 / 6.0));
        harness.run_steps(1);
    }
    harness.drop_at(to);
    harness.run_steps(4);
}

#[test]
fn dragging_a_node_moves_it_in_the_map_as_one_undo_step() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let before = coast_route(&harness);
    let undo_before = harness.state().history().undo_len();
    let scale = harness.state().graph_views().node_map.graph_to_screen().scaling;
    let chapel = node_on_screen(&harness, "chapel").center();
    drag(&mut harness, chapel, chapel + Vec2::new(0.0, 60.0));
    let after = coast_route(&harness);
    let moved = |map: &NodeMap| map.nodes.iter().find(|node| node.id.as_str() == "chapel").map(|node| (node.x, node.y));
    let (x0, y0) = moved(&before).unwrap();
    let (x1, y1) = moved(&after).unwrap();
    assert!((x1 - x0).abs() < 0.01, "moved sideways from {x0} to {x1}");
    // 60 points on screen, in map units (the graph shows the map MAP_TO_GRAPH times larger).
    let expected = 60.0 / scale / MAP_TO_GRAPH;
    assert!((y1 - y0 - expected).abs() < 0.2, "moved by {} instead of {expected}", y1 - y0);
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(3);
    assert_eq!(coast_route(&harness), before);
}

#[test]
fn copied_nodes_paste_under_fresh_ids_with_the_path_between_them() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let undo_before = harness.state().history().undo_len();
    let fish_market = node_on_screen(&harness, "fish_market").center();
    click_at(&mut harness, fish_market);
    let smithy = node_on_screen(&harness, "smithy").center();
    harness.hover_at(smithy);
    harness.run_steps(1);
    harness.event_modifiers(
        Event::PointerButton {
            pos: smithy,
            button: egui::PointerButton::Primary,
            pressed: true,
            modifiers: Modifiers::SHIFT,
        },
        Modifiers::SHIFT,
    );
    harness.run_steps(1);
    harness.event_modifiers(
        Event::PointerButton {
            pos: smithy,
            button: egui::PointerButton::Primary,
            pressed: false,
            modifiers: Modifiers::SHIFT,
        },
        Modifiers::SHIFT,
    );
    harness.run_steps(3);
    assert_eq!(harness.state().graph_views().node_map.canvas().selected_nodes().len(), 2);
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::C);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::V);
    harness.run_steps(4);
    let map = coast_route(&harness);
    assert!(map.nodes.iter().any(|node| node.id.as_str() == "fish_market_copy"), "{:?}", map.nodes);
    assert!(map.nodes.iter().any(|node| node.id.as_str() == "smithy_copy"));
    assert!(map.edges.iter().any(|edge| edge.from.as_str() == "fish_market_copy" && edge.to.as_str() == "smithy_copy"));
    assert_eq!(map.edges.len(), 7, "only the path among the copies is copied");
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    // The copies are selected: Delete removes them (and their path) in one more step.
    harness.key_press(egui::Key::Delete);
    harness.run_steps(4);
    let map = coast_route(&harness);
    assert_eq!(map.nodes.len(), 6);
    assert_eq!(map.edges.len(), 6);
    assert_eq!(harness.state().history().undo_len(), undo_before + 2);
}

#[test]
fn a_comment_frame_is_stored_beside_the_project_and_moves_the_nodes_inside_it() {
    let dir = copy_of(&default_project_path());
    // An act the designer placed in the act graph: the node map keeps it when it stores its comments.
    let layout = dir.path().join(".actforge").join("graph_layout.ron");
    std::fs::create_dir_all(layout.parent().unwrap()).unwrap();
    std::fs::write(&layout, "(positions: {\"acts\": {\"tend_the_lamp\": (10.0, 20.0)}})\n").unwrap();
    let mut harness = node_map(dir.path());
    let before = coast_route(&harness);
    // Right-click just above and left of the Chapel: a new comment starts there.
    let chapel = node_on_screen(&harness, "chapel");
    right_click_at(&mut harness, chapel.left_top() - Vec2::new(6.0, 12.0));
    let add = harness.get_by_label("Add a comment here").rect().center();
    click_at(&mut harness, add);
    // The new frame takes the keyboard at once; Escape ends the writing.
    harness.event(Event::Text("Cave road".to_owned()));
    harness.run_steps(3);
    harness.key_press(egui::Key::Escape);
    harness.run_steps(3);
    let stored = std::fs::read_to_string(&layout).unwrap();
    assert!(
        stored.contains("node_map/coast_route") && stored.contains("Cave road") && stored.contains("tend_the_lamp"),
        "{stored}"
    );
    // Dragging the comment by its heading moves the Chapel inside it, as a map edit.
    let scale = harness.state().graph_views().node_map.graph_to_screen().scaling;
    let heading = on_screen(&harness, "Comment Cave road").left_center() + Vec2::new(10.0, 0.0);
    drag(&mut harness, heading, heading + Vec2::new(40.0, 0.0));
    let after = coast_route(&harness);
    let x = |map: &NodeMap, id: &str| map.nodes.iter().find(|node| node.id.as_str() == id).unwrap().x;
    assert!((x(&after, "chapel") - x(&before, "chapel") - 40.0 / scale / MAP_TO_GRAPH).abs() < 0.2);
    assert!((x(&after, "smithy") - x(&before, "smithy")).abs() < 0.01, "a node outside the frame stays");
}

#[test]
fn a_box_drawn_on_the_background_selects_nodes_and_delete_removes_them_in_one_step() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let undo_before = harness.state().history().undo_len();
    // From above-left of the Fish Market to the middle of the Smithy (the top row only).
    let fish_market = node_on_screen(&harness, "fish_market");
    let smithy = node_on_screen(&harness, "smithy");
    drag(&mut harness, fish_market.left_top() - Vec2::new(20.0, 20.0), smithy.center());
    let selected = harness.state().graph_views().node_map.canvas().selected_nodes().clone();
    assert_eq!(selected.into_iter().collect::<Vec<_>>(), ["fish_market", "smithy"]);
    harness.key_press(egui::Key::Delete);
    harness.run_steps(4);
    let map = coast_route(&harness);
    assert_eq!(map.nodes.len(), 4, "{:?}", map.nodes);
    assert!(map.edges.iter().all(|edge| !["fish_market", "smithy"].contains(&edge.from.as_str())
        && !["fish_market", "smithy"].contains(&edge.to.as_str())));
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    // A click on the background clears the selection.
    let below = node_on_screen(&harness, "chapel").center_bottom() + Vec2::new(0.0, 40.0);
    click_at(&mut harness, below);
    assert!(harness.state().graph_views().node_map.canvas().selected_nodes().is_empty());
}

#[test]
fn a_node_is_made_where_the_background_was_right_clicked() {
    let dir = copy_of(&default_project_path());
    let mut harness = node_map(dir.path());
    let view = harness.state().graph_views().node_map.graph_to_screen();
    let at = node_on_screen(&harness, "chapel").center_bottom() + Vec2::new(0.0, 60.0);
    right_click_at(&mut harness, at);
    let new = harness.get_by_label_contains("New node here").rect().center();
    click_at(&mut harness, new);
    let map = coast_route(&harness);
    let node = map.nodes.iter().find(|node| node.id.as_str() == "node").expect("a new node");
    let expected = view.inverse() * at;
    assert!((node.x - (expected.x / MAP_TO_GRAPH).round()).abs() < 0.01, "{node:?} for {expected:?}");
    assert!((node.y - (expected.y / MAP_TO_GRAPH).round()).abs() < 0.01, "{node:?} for {expected:?}");
    assert_eq!(harness.state().graph_views().node_map.canvas().selected_nodes().len(), 1);
}
