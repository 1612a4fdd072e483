//! egui_kittest flows of traced formulas: the workbench and the inspector show each part's
//! value on hover, and what makes a false formula false.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use actforge_editor::commands::UiCommand;
use egui::{Key, Modifiers};
use egui_kittest::kittest::Queryable;

use super::{harness, select, type_into};

#[test]
fn the_workbench_shows_a_part_s_value_on_hover_and_what_makes_a_formula_false() {
    let mut harness = harness();
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::E);
    harness.run_steps(3);
    type_into(&mut harness, "Formula text", "1 + 123456789 + 2");
    harness.get_by_label_contains("whole formula: 123456792 · hover a part for its value");
    // The middle of the text is the long number: hovering it shows its own value.
    harness.get_by_label("1 + 123456789 + 2").hover();
    harness.run_steps(2);
    harness.get_by_label("123456789 = 123456789");

    let mut harness = super::harness();
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::E);
    harness.run_steps(3);
    type_into(&mut harness, "Formula text", "2 > 1 and 3 < 1");
    harness.get_by_label_contains("red: what makes it false");
    // The false comparison is on the right: hover its middle.
    let node = harness.get_by_label("2 > 1 and 3 < 1");
    let rect = node.rect();
    let right = egui::pos2(rect.left() + rect.width() * 13.0 / 15.0, rect.center().y);
    harness.hover_at(right);
    harness.run_steps(2);
    harness.get_by_label("3 < 1 = 0 (makes it false)");
}

#[test]
fn a_formula_field_shows_its_values_in_the_running_preview() {
    let mut harness = harness();
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    assert!(harness.state().preview().game.session().is_some());
    select(&mut harness, "Rules (12)", "storm_breaks");
    harness.get_by_label_contains("values in the preview").click();
    harness.run_steps(3);
    harness.get_by_label_contains("red: what makes it false");
    let node = harness.get_by_label("storm >= 8");
    let rect = node.rect();
    // `storm` is the first word.
    harness.hover_at(egui::pos2(rect.left() + 4.0, rect.center().y));
    harness.run_steps(2);
    harness.get_by_label_contains("storm = ");
}
