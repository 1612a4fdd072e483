//! egui_kittest flows of the graph editors as a designer uses them: the pointer and the keys
//! only (wheel zoom, drags from pins dropped on node bodies, clicks on wires, Delete, box
//! select, copy and paste), at the default 1280×800 window.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::ActforgeApp;
use actforge_editor::commands::UiCommand;
use actforge_editor::views::graph_canvas::WireDash;
use egui::{Event, Modifiers, Pos2, Vec2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

use super::{content, copy_of, on_screen, wheel};

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

/// A primary click at a screen point.
fn click_at(harness: &mut Harness<'static, ActforgeApp>, at: Pos2) {
    harness.hover_at(at);
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    harness.run_steps(2);
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

fn next_acts(harness: &Harness<'static, ActforgeApp>, id: &str) -> Vec<String> {
    let project = harness.state().project().unwrap();
    project.acts.get(id).unwrap().next_acts.iter().map(|link| link.act.as_str().to_owned()).collect()
}

/// Presses at `from`, moves in steps and lets go at `to` (screen points).
fn drag(harness: &mut Harness<'static, ActforgeApp>, from: Pos2, to: Pos2) {
    harness.hover_at(from);
    harness.run_steps(1);
    harness.drag_at(from);
    harness.run_steps(1);
    for step in 1..=4 {
        harness.hover_at(from + (to - from) * (step as f32 / 4.0));
        harness.run_steps(1);
    }
    harness.drop_at(to);
    harness.run_steps(3);
}

#[test]
fn a_wire_dropped_anywhere_on_an_act_links_it_and_undo_removes_it() {
    let dir = copy_of(&content("lighthouse"));
    let mut harness = act_graph(dir.path());
    let undo_before = harness.state().history().undo_len();
    let pin = on_screen(&harness, "next link from Comb the Beach · comb_the_beach").center();
    // Not on a pin: low on the target's body.
    let body = on_screen(&harness, "Bonfire · bonfire_burns");
    drag(&mut harness, pin, Pos2::new(body.center().x, body.bottom() - 4.0));
    assert!(next_acts(&harness, "comb_the_beach").contains(&"bonfire_burns".to_owned()));
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    // Dropped on the empty canvas: nothing is linked, and the graph says so.
    let pin = on_screen(&harness, "next link from Comb the Beach · comb_the_beach").center();
    drag(&mut harness, pin, pin + Vec2::new(0.0, 140.0));
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    harness.get_by_label_contains("drop the wire on a node");
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    harness.run_steps(3);
    assert!(!next_acts(&harness, "comb_the_beach").contains(&"bonfire_burns".to_owned()));
}

#[test]
fn a_refused_link_says_why_at_the_drop() {
    let dir = copy_of(&content("lighthouse"));
    let mut harness = act_graph(dir.path());
    let undo_before = harness.state().history().undo_len();
    // Watch the Sea already leads to Something in the Surf.
    let pin = on_screen(&harness, "next link from Watch the Sea · watch_the_sea").center();
    let target = on_screen(&harness, "Something in the Surf · letter_from_the_sea").center();
    drag(&mut harness, pin, target);
    assert_eq!(harness.state().history().undo_len(), undo_before);
    harness.get_by_label_contains("already has the next link");
}

#[test]
fn a_clicked_link_is_deleted_with_the_delete_key_in_one_step() {
    let dir = copy_of(&content("lighthouse"));
    let mut harness = act_graph(dir.path());
    let undo_before = harness.state().history().undo_len();
    let before = next_acts(&harness, "watch_the_sea");
    let label = on_screen(
        &harness,
        "next link: Watch the Sea · watch_the_sea → Something in the Surf · letter_from_the_sea (30%)",
    );
    click_at(&mut harness, label.center());
    assert_eq!(harness.state().graph_views().act.canvas().selected_edges().len(), 1);
    harness.key_press(egui::Key::Delete);
    harness.run_steps(3);
    let after = next_acts(&harness, "watch_the_sea");
    assert_eq!(after.len() + 1, before.len(), "{before:?} → {after:?}");
    assert!(!after.contains(&"letter_from_the_sea".to_owned()));
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
}

#[test]
fn every_link_of_the_bundled_graphs_is_drawn() {
    for pack in ["lighthouse", "act-demo"] {
        let harness = act_graph(&content(pack));
        let project = harness.state().project().unwrap();
        let links: usize =
            project.acts.iter().map(|act| actforge_editor::views::act_links::act_edges(project, act).len()).sum();
        let drawn = harness.state().graph_views().act.canvas().drawn_edges();
        assert_eq!(drawn.len(), links, "{pack}: {drawn:?}");
        // Each wire can be found by what it is.
        for (key, _) in drawn {
            assert!(!key.is_empty());
        }
        // At the opening fit no text is smaller than 11 points.
        let smallest = harness.state().graph_views().act.canvas().smallest_text().unwrap();
        assert!(smallest >= 10.99, "{pack}: text drawn at {smallest} points");
    }
}

#[test]
fn moved_acts_stay_where_they_were_put_when_links_change() {
    let dir = copy_of(&content("lighthouse"));
    let mut harness = act_graph(dir.path());
    let node = on_screen(&harness, "Tend the Lamp · tend_the_lamp");
    drag(&mut harness, node.center(), node.center() + Vec2::new(30.0, 60.0));
    let placed = harness.state().graph_views().act.positions();
    let pin = on_screen(&harness, "next link from Comb the Beach · comb_the_beach").center();
    let body = on_screen(&harness, "A Quiet Night · quiet_night").center();
    drag(&mut harness, pin, body);
    assert!(next_acts(&harness, "comb_the_beach").contains(&"quiet_night".to_owned()));
    assert_eq!(harness.state().graph_views().act.positions(), placed);
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::Z);
    harness.run_steps(3);
    assert_eq!(harness.state().graph_views().act.positions(), placed);
}

#[test]
fn a_box_selects_acts_that_delete_together_and_paste_back() {
    let dir = copy_of(&content("lighthouse"));
    let mut harness = act_graph(dir.path());
    let a = on_screen(&harness, "Watch the Sea · watch_the_sea");
    let b = on_screen(&harness, "Something in the Surf · letter_from_the_sea");
    // From beside the first to the middle of the second: a box selects what it touches.
    drag(&mut harness, a.left_top() - Vec2::splat(6.0), b.center());
    let selected = harness.state().graph_views().act.canvas().selected_nodes().clone();
    assert_eq!(selected.len(), 2, "{selected:?}");
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::C);
    harness.run_steps(2);
    let undo_before = harness.state().history().undo_len();
    harness.key_press(egui::Key::Delete);
    harness.run_steps(3);
    if let Some(anyway) = harness.query_by_label("Delete anyway") {
        anyway.click();
        harness.run_steps(3);
    }
    let project = harness.state().project().unwrap();
    assert!(project.acts.get("watch_the_sea").is_none() && project.acts.get("letter_from_the_sea").is_none());
    assert!(!next_acts(&harness, "tend_the_lamp").contains(&"watch_the_sea".to_owned()));
    assert_eq!(harness.state().history().undo_len(), undo_before + 1);
    // Pasted back: copies under new ids, the link between them kept.
    harness.hover_at(a.center());
    harness.key_press_modifiers(Modifiers::COMMAND, egui::Key::V);
    harness.run_steps(3);
    let project = harness.state().project().unwrap();
    let copy = project.acts.get("watch_the_sea_copy").expect("pasted");
    let targets: Vec<&str> = copy.next_acts.iter().map(|link| link.act.as_str()).collect();
    assert_eq!(targets, ["letter_from_the_sea_copy", "quiet_night"]);
}

#[test]
fn f_frames_the_selection_and_home_fits_the_graph() {
    let mut harness = act_graph(&content("act-demo"));
    let fitted = harness.state().graph_views().act.canvas().transform();
    let node = on_screen(&harness, "Walk Home · walk_home");
    click_at(&mut harness, node.center());
    assert_eq!(harness.state().selection().map(|key| key.id.as_str()), Some("walk_home"));
    harness.key_press(egui::Key::F);
    harness.run_steps(2);
    let framed = harness.state().graph_views().act.canvas().transform();
    assert!(framed.scaling > fitted.scaling, "{fitted:?} → {framed:?}");
    harness.key_press(egui::Key::Home);
    harness.run_steps(2);
    assert_eq!(harness.state().graph_views().act.canvas().transform(), fitted);
}

#[test]
fn a_link_that_lives_in_a_rule_is_drawn_dashed_and_cut_in_its_rule() {
    let dir = copy_of(&content("lighthouse"));
    let mut harness = act_graph(dir.path());
    let about = "spawn token link: Comb the Beach · comb_the_beach → Bonfire · bonfire_burns (via rule summon_help)";
    let key = {
        let canvas = harness.state().graph_views().act.canvas();
        let (key, _) =
            canvas.drawn_edges().iter().find(|(key, _)| key.starts_with("comb_the_beach|spawn token|")).unwrap();
        assert_eq!(canvas.drawn_dash(key), Some(WireDash::Dashed));
        key.clone()
    };
    assert!(!key.is_empty());
    let label = on_screen(&harness, about);
    click_at(&mut harness, label.center());
    harness.key_press(egui::Key::Delete);
    harness.run_steps(3);
    let project = harness.state().project().unwrap();
    let rule = project.rules.get("summon_help").unwrap();
    assert!(rule.effects.table_modifiers.is_empty(), "{:?}", rule.effects.table_modifiers);
    assert!(harness.state().graph_views().act.canvas().drawn_edges().iter().all(|(k, _)| *k != key));
}

#[test]
fn a_comment_placed_on_the_canvas_is_written_in_and_stored_beside_the_project() {
    let dir = copy_of(&content("lighthouse"));
    // A comment on the node map, stored before: the act graph keeps it when it stores its own.
    let layout = dir.path().join(".actforge").join("graph_layout.ron");
    std::fs::create_dir_all(layout.parent().unwrap()).unwrap();
    std::fs::write(
        &layout,
        "(comments: {\"node_map/coast_route\": [(rect: (0.0, 0.0, 200.0, 90.0), text: \"Harbour\")]})\n",
    )
    .unwrap();
    let mut harness = act_graph(dir.path());
    let tend = on_screen(&harness, "Tend the Lamp · tend_the_lamp");
    let empty = Pos2::new(tend.center().x, tend.top() - 60.0);
    harness.hover_at(empty);
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(Event::PointerButton {
            pos: empty,
            button: egui::PointerButton::Secondary,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    harness.run_steps(2);
    harness.get_by_label("Add a comment here").click();
    harness.run_steps(3);
    // The new frame takes the keyboard at once.
    harness.event(Event::Text("Night shift".to_owned()));
    harness.run_steps(3);
    let stored = std::fs::read_to_string(dir.path().join(".actforge/graph_layout.ron")).unwrap();
    assert!(stored.contains("Night shift") && stored.contains("Harbour"), "{stored}");
}

#[test]
fn f11_maximises_the_pane_under_the_pointer_after_a_click_in_the_graph() {
    let mut harness = act_graph(&content("lighthouse"));
    let node = on_screen(&harness, "Tend the Lamp · tend_the_lamp");
    click_at(&mut harness, node.center());
    // The pointer then rests over the graph: F11 maximises its pane, not the one with focus.
    harness.key_press(egui::Key::F11);
    harness.run_steps(3);
    assert!(harness.state().is_maximised());
    assert!(harness.query_by_label_contains("No problems found").is_none(), "the diagnostics are put aside");
    harness.get_by_label("Tend the Lamp · tend_the_lamp");
}

#[test]
fn a_folded_lane_hides_its_acts_and_keeps_their_wires() {
    let mut harness = act_graph(&content("lighthouse"));
    let links = harness.state().graph_views().act.canvas().drawn_edges().len();
    harness.get_by_label("Collapse lane Lamp Room · lamp_room").click();
    harness.run_steps(3);
    assert!(harness.query_by_label("Tend the Lamp · tend_the_lamp").is_none());
    assert!(harness.state().graph_views().act.canvas().is_collapsed("lamp_room"));
    // The wires of the folded acts now leave from the lane's heading.
    assert_eq!(harness.state().graph_views().act.canvas().drawn_edges().len(), links);
    harness.get_by_label("Expand lane Lamp Room · lamp_room").click();
    harness.run_steps(3);
    harness.get_by_label("Tend the Lamp · tend_the_lamp");
}

#[test]
fn a_middle_drag_or_space_drag_pans_the_graph() {
    let mut harness = act_graph(&content("lighthouse"));
    let before = harness.state().graph_views().act.canvas().transform();
    let tend = on_screen(&harness, "Tend the Lamp · tend_the_lamp");
    let from = Pos2::new(tend.center().x, tend.top() - 40.0);
    let to = from + Vec2::new(80.0, 30.0);
    harness.hover_at(from);
    harness.run_steps(1);
    harness.event(Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Middle,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    harness.run_steps(1);
    for step in 1..=4 {
        harness.hover_at(from + (to - from) * (step as f32 / 4.0));
        harness.run_steps(1);
    }
    harness.event(Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Middle,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    harness.run_steps(2);
    let panned = harness.state().graph_views().act.canvas().transform();
    assert!((panned.scaling - before.scaling).abs() < 1e-6, "a pan keeps the zoom");
    let moved = panned.translation - before.translation;
    assert!((moved - (to - from)).length() < 12.0, "moved by {moved:?}");
    // Space held with a left drag pans too, and selects nothing.
    click_at(&mut harness, from);
    harness.key_down(egui::Key::Space);
    drag(&mut harness, to, from);
    harness.key_up(egui::Key::Space);
    harness.run_steps(2);
    let back = harness.state().graph_views().act.canvas().transform();
    assert!((back.translation - before.translation).length() < 20.0, "{before:?} → {back:?}");
    assert!(harness.state().graph_views().act.canvas().selected_nodes().is_empty());
}
