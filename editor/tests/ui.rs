//! egui_kittest UI tests: find widgets by label, click, type, check the document.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::{ActforgeApp, Selection, default_project_path};
use actforge_editor::document::{ItemKey, get_item, where_used};
use actforge_runtime::Kind;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness_at(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    harness
}

fn harness() -> Harness<'static, ActforgeApp> {
    harness_at(&default_project_path())
}

/// A copy of the lighthouse demo in a temporary folder (tests that save write there).
fn lighthouse_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path(), dir.path()).unwrap();
    dir
}

/// Focuses the text field labelled `label` and types `text` into it, as one gesture.
fn type_into(harness: &mut Harness<'static, ActforgeApp>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    harness.run_steps(1);
    harness.get_by_label(label).type_text(text);
    harness.run_steps(2);
}

fn select(harness: &mut Harness<'static, ActforgeApp>, group: &str, entry: &str) {
    harness.get_by_label_contains(group).click();
    harness.run_steps(2);
    harness.get_by_label_contains(entry).click();
    harness.run_steps(3);
}

fn label_of(app: &ActforgeApp, kind: Kind, id: &str) -> String {
    get_item(app.project().unwrap(), kind, id).unwrap().item_label().to_owned()
}

#[test]
fn the_browser_lists_every_kind_with_counts_and_selecting_shows_the_file() {
    let mut harness = harness();
    assert_eq!(harness.state().project().map(|p| p.acts.len()), Some(7));
    for label in ["Acts (7)", "Cards (9)", "Tile maps (1)", "Node maps (1)", "Skills (3)"] {
        harness.get_by_label_contains(label);
    }
    select(&mut harness, "Acts (7)", "Tend the Lamp · tend_the_lamp");
    assert_eq!(harness.state().selection(), Some(&Selection { kind: Kind::Act, id: "tend_the_lamp".to_owned() }));
    harness.get_by_label("Act tend_the_lamp");
    harness.get_by_label_contains("duration_ticks: 100");
    // The inspector shows the same item as a form.
    harness.get_by_label("Act · Tend the Lamp");
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
    let mut harness = harness_at(&dir.path().join("missing"));
    harness.get_by_label("The project could not be opened");
    harness.get_by_role_and_label(Role::Button, "Reload from disk").click();
    harness.run_steps(2);
    harness.get_by_label("The project could not be opened");
}

#[test]
fn clicking_a_diagnostic_selects_its_item() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("project.ron"), "(schema_version: 1, name: \"Broken\")").unwrap();
    std::fs::create_dir_all(dir.path().join("acts")).unwrap();
    std::fs::write(dir.path().join("acts").join("start.ron"), "(id: \"start\", next_acts: [(act: \"gone\")])").unwrap();
    let mut harness = harness_at(dir.path());
    // Named from the project folder, not the whole path to it.
    let row = harness.get_by_label_contains("there is no act `gone`");
    let text = format!("{row:?}");
    assert!(text.contains("acts/start.ron:"), "{text}");
    assert!(!text.contains(&dir.path().display().to_string()), "{text}");
    harness.get_by_label_contains("there is no act `gone`").click();
    harness.run_steps(3);
    assert_eq!(harness.state().selection(), Some(&Selection { kind: Kind::Act, id: "start".to_owned() }));
    // The inspector brings the field the diagnostic names into view and marks it.
    assert_eq!(harness.state().inspector_jumped_to(), Some("next_acts[0].act"));
}

#[test]
fn editing_a_field_in_the_inspector_changes_the_document_and_undo_restores_it() {
    let mut harness = harness();
    select(&mut harness, "Cards (9)", "Ember · ember");
    type_into(&mut harness, "Label", " glow");
    let label = label_of(harness.state(), Kind::Card, "ember");
    assert!(label.contains("glow"), "{label}");
    let key = ItemKey::new(Kind::Card, "ember");
    assert!(harness.state().document().unwrap().is_dirty(&key));
    assert!(harness.state().title().starts_with('●'));
    assert_eq!(harness.state().history().undo_len(), 1);
    // Typing more into the same field is the same gesture: still one step.
    harness.get_by_label("Label").type_text("s");
    harness.run_steps(2);
    assert_eq!(harness.state().history().undo_len(), 1);

    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(label_of(harness.state(), Kind::Card, "ember"), "Ember");
    assert!(!harness.state().document().unwrap().is_dirty(&key));
    assert!(!harness.state().title().starts_with('●'));

    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z);
    harness.run_steps(2);
    assert!(label_of(harness.state(), Kind::Card, "ember").contains("glows"));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Y);
    harness.run_steps(2);
    assert!(label_of(harness.state(), Kind::Card, "ember").contains("glows"));
}

#[test]
fn renaming_an_id_rewrites_every_reference_in_one_undo_step() {
    let mut harness = harness();
    select(&mut harness, "Aspects (4)", "fuel");
    let old = ItemKey::new(Kind::Aspect, "fuel");
    let users = where_used(harness.state().project().unwrap(), &old).len();
    assert!(users >= 4, "{users}");
    harness.get_by_label("Id").focus();
    harness.run_steps(1);
    for _ in 0.."fuel".len() {
        harness.key_press(Key::Backspace);
    }
    harness.get_by_label("Id").type_text("lamp_fuel");
    harness.run_steps(1);
    harness.get_by_role_and_label(Role::Button, "Rename").click();
    harness.run_steps(3);
    let new = ItemKey::new(Kind::Aspect, "lamp_fuel");
    let project = harness.state().project().unwrap();
    assert!(!project.contains(Kind::Aspect, "fuel"));
    assert_eq!(where_used(project, &new).len(), users);
    assert!(where_used(project, &old).is_empty());
    assert_eq!(harness.state().selection(), Some(&new));
    assert_eq!(harness.state().history().undo_len(), 1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    let project = harness.state().project().unwrap();
    assert!(project.contains(Kind::Aspect, "fuel"));
    assert_eq!(where_used(project, &old).len(), users);
    assert!(!harness.state().document().unwrap().has_unsaved_changes());
}

#[test]
fn deleting_a_referenced_item_lists_its_users_and_waits_for_confirmation() {
    let mut harness = harness();
    select(&mut harness, "Aspects (4)", "fuel");
    harness.get_by_role_and_label(Role::Button, "Edit").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Delete item").click();
    // A new window is sized in its first frames: click once it has settled.
    harness.run_steps(4);
    harness.get_by_label_contains("is still used by");
    harness.get_by_label_contains("card `ember`");
    assert!(harness.state().project().unwrap().contains(Kind::Aspect, "fuel"));
    harness.get_by_role_and_label(Role::Button, "Keep the item").click();
    harness.run_steps(4);
    assert!(harness.state().project().unwrap().contains(Kind::Aspect, "fuel"));
    assert!(harness.query_by_label_contains("is still used by").is_none());
}

#[test]
fn quick_open_finds_an_item_by_label() {
    let mut harness = harness();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::P);
    harness.run_steps(3);
    harness.get_by_label("Find an item").type_text("lamp oil");
    harness.run_steps(2);
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    assert_eq!(harness.state().selection(), Some(&ItemKey::new(Kind::Card, "lamp_oil")));
    assert!(harness.query_by_label("Find an item").is_none());
}

#[test]
fn the_command_palette_runs_a_command_by_name() {
    let mut harness = harness();
    assert!(harness.state().is_dark());
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::P);
    harness.run_steps(3);
    harness.get_by_label("Find a command").type_text("theme");
    harness.run_steps(2);
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    assert!(!harness.state().is_dark());
}

#[test]
fn saved_edits_are_there_after_reopening_and_only_changed_files_are_written() {
    let dir = lighthouse_copy();
    let before = std::fs::read_to_string(dir.path().join("cards").join("ash.ron")).unwrap();
    let mut harness = harness_at(dir.path());
    select(&mut harness, "Cards (9)", "Ember · ember");
    type_into(&mut harness, "Label", " glow");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    assert!(!harness.state().document().unwrap().has_unsaved_changes());
    assert!(harness.state().log().iter().any(|line| line.contains("1 files written")), "{:?}", harness.state().log());
    assert_eq!(std::fs::read_to_string(dir.path().join("cards").join("ash.ron")).unwrap(), before);
    let reopened = harness_at(dir.path());
    assert!(label_of(reopened.state(), Kind::Card, "ember").contains("glow"));
}

#[test]
fn unsaved_edits_are_autosaved_and_offered_back_after_a_crash() {
    let dir = lighthouse_copy();
    let recovery = tempfile::tempdir().unwrap();
    let mut harness = Harness::builder().with_size([1280.0, 800.0]).build_ui_state(
        |ui, app: &mut ActforgeApp| app.ui(ui),
        ActforgeApp::new(dir.path().to_owned()).with_recovery(recovery.path()),
    );
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().set_autosave_seconds(0.0);
    harness.run_steps(3);
    select(&mut harness, "Cards (9)", "Ember · ember");
    type_into(&mut harness, "Label", " glow");
    harness.run_steps(1);
    assert_eq!(std::fs::read_dir(recovery.path()).unwrap().count(), 1);
    // The "crash": the app goes away without saving.
    drop(harness);

    let mut harness = Harness::builder().with_size([1280.0, 800.0]).build_ui_state(
        |ui, app: &mut ActforgeApp| app.ui(ui),
        ActforgeApp::new(dir.path().to_owned()).with_recovery(recovery.path()),
    );
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    assert_eq!(label_of(harness.state(), Kind::Card, "ember"), "Ember");
    harness.get_by_role_and_label(Role::Button, "Recover edits").click();
    harness.run_steps(3);
    assert!(label_of(harness.state(), Kind::Card, "ember").contains("glow"));
    assert!(harness.state().document().unwrap().is_dirty(&ItemKey::new(Kind::Card, "ember")));
    // Saving removes the recovery file.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(3);
    assert_eq!(std::fs::read_dir(recovery.path()).unwrap().count(), 0);
}

/// Runs frames until `done` holds (file events arrive from another thread), at most ~5 s.
fn run_until(harness: &mut Harness<'static, ActforgeApp>, done: impl Fn(&Harness<'static, ActforgeApp>) -> bool) {
    for _ in 0..100 {
        harness.run_steps(1);
        if done(harness) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the condition never held; log: {:?}", harness.state().log());
}

fn write_ember(dir: &Path, label: &str) {
    let file = dir.join("cards").join("ember.ron");
    let text = std::fs::read_to_string(&file).unwrap().replace("label: \"Ember\"", &format!("label: \"{label}\""));
    std::fs::write(file, text).unwrap();
}

#[test]
fn an_item_changed_on_disk_reloads_as_an_undoable_step() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    write_ember(dir.path(), "Ember from outside");
    run_until(&mut harness, |h| label_of(h.state(), Kind::Card, "ember") == "Ember from outside");
    let key = ItemKey::new(Kind::Card, "ember");
    // The document equals the file: nothing unsaved.
    assert!(!harness.state().document().unwrap().is_dirty(&key));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(label_of(harness.state(), Kind::Card, "ember"), "Ember");
    // Undone, the document differs from the file again.
    assert!(harness.state().document().unwrap().is_dirty(&key));
}

#[test]
fn an_item_changed_on_disk_with_unsaved_edits_raises_a_conflict() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    select(&mut harness, "Cards (9)", "Ember · ember");
    type_into(&mut harness, "Label", " glow");
    write_ember(dir.path(), "Ember from outside");
    run_until(&mut harness, |h| h.query_by_label("Take theirs").is_some());
    // A new window is sized in its first frames: click once it has settled.
    harness.run_steps(3);
    // Nothing was overwritten: my edit is still there.
    assert!(label_of(harness.state(), Kind::Card, "ember").contains("glow"));
    // Show both: my version and the file's, side by side.
    harness.get_by_label("Show both").click();
    harness.run_steps(3);
    harness.get_by_label("Mine");
    harness.get_by_label("On disk");
    // Mine shows in the item tab and in the conflict's left column.
    assert_eq!(harness.query_all_by_label_contains("label: \"Ember glow\"").count(), 2);
    harness.get_by_label_contains("label: \"Ember from outside\"");
    harness.get_by_role_and_label(Role::Button, "Take theirs").click();
    harness.run_steps(2);
    assert_eq!(label_of(harness.state(), Kind::Card, "ember"), "Ember from outside");
    assert!(!harness.state().document().unwrap().is_dirty(&ItemKey::new(Kind::Card, "ember")));
    // Taking theirs is undoable: my edit comes back.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert!(label_of(harness.state(), Kind::Card, "ember").contains("glow"));
}

/// Runs frames until the Simulate panel has a result (the simulation runs on worker threads).
fn run_until_simulated(harness: &mut Harness<'static, ActforgeApp>) {
    for _ in 0..600 {
        harness.run_steps(1);
        if !harness.state().sim_panel().is_running() {
            harness.run_steps(2);
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the simulation did not finish; log: {:?}", harness.state().log());
}

#[test]
fn simulating_charts_the_runs_lists_dead_content_that_opens_and_compares_with_a_baseline() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path().join("../knucklebones"), dir.path()).unwrap();
    std::fs::create_dir_all(dir.path().join("acts")).unwrap();
    std::fs::write(
        dir.path().join("acts/orphan_act.ron"),
        "(\n    id: \"orphan_act\",\n    label: \"Nothing leads here\",\n)\n",
    )
    .unwrap();
    let mut harness = harness_at(dir.path());
    harness.key_press(Key::F6);
    harness.run_steps(2);
    run_until_simulated(&mut harness);
    let summary = harness.state().sim_panel().summary().expect("a summary").clone();
    assert_eq!(summary.runs, 1000);
    assert_eq!(summary.outcomes.values().sum::<usize>(), 1000);
    assert_eq!(summary.dead.acts, ["orphan_act"]);
    harness.get_by_label_contains("1000 runs, first seed 1, random play");
    harness.get_by_label_contains("Never reached in 1000 runs");

    // A dead act is a link to the act.
    harness.get_by_label("orphan_act").click();
    harness.run_steps(3);
    assert_eq!(harness.state().selection(), Some(&Selection { kind: Kind::Act, id: "orphan_act".to_owned() }));

    // Kept as the baseline, the same seed plays the same games again: nothing moved.
    harness.get_by_label_contains("Keep as baseline").click();
    harness.run_steps(2);
    harness.get_by_label(&format!("{}  Run", egui_phosphor::regular::PLAY)).click();
    harness.run_steps(2);
    run_until_simulated(&mut harness);
    harness.get_by_label_contains("Since the baseline");
    harness.get_by_label("Nothing moved.");
}

#[test]
fn find_in_project_lists_texts_inside_items_and_opens_the_one_clicked() {
    let hits = actforge_editor::document::search_text(
        &actforge_runtime::project::load_folder(&default_project_path()).unwrap().project,
        "ONE MORE NIGHT",
        50,
    );
    let hit = hits.iter().find(|hit| hit.key.id == "tend_the_lamp").expect("the act's end text");
    assert_eq!(hit.field, "end_text");
    assert_eq!(hit.snippet, "The lamp is lit for one more night.");

    let mut harness = harness();
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::F);
    harness.run_steps(3);
    harness.get_by_label("Find text").type_text("one more night");
    harness.run_steps(3);
    harness.get_by_label_contains("tend_the_lamp · end_text").click();
    harness.run_steps(3);
    assert_eq!(harness.state().selection(), Some(&Selection { kind: Kind::Act, id: "tend_the_lamp".to_owned() }));
    // Nothing matches: the window says so.
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::F);
    harness.run_steps(3);
    harness.get_by_label("Find text").type_text("no such words anywhere");
    harness.run_steps(3);
    harness.get_by_label("No text matches.");
}

#[test]
fn opening_another_project_keeps_unsaved_edits_from_being_lost() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    select(&mut harness, "Acts (7)", "Tend the Lamp · tend_the_lamp");
    type_into(&mut harness, "Label", " now");
    let knucklebones = default_project_path().join("../knucklebones");
    harness.state_mut().open_project(knucklebones.clone());
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.name, "The Lighthouse");
    assert!(harness.state().log().iter().any(|line| line.contains("there are unsaved changes")));
    // Saved, the other project opens in its place.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(3);
    harness.state_mut().open_project(knucklebones);
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.name, "Knucklebones");
    assert_eq!(harness.state().selection(), None);
}

#[test]
fn the_formula_tab_edits_a_named_formula_against_sample_inputs_and_shows_errors() {
    let mut harness = harness();
    select(&mut harness, "Formulas (2)", "Beacon strength · beacon_strength");
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::E);
    harness.run_steps(3);
    harness.get_by_label("Named formula f.beacon_strength");
    // `hope` is a stat of the project: no sample needed, its start value is read.
    harness.get_by_label_contains("= ");
    type_into(&mut harness, "Formula text", " + c.bonus");
    let formula = |harness: &Harness<'static, ActforgeApp>| {
        harness.state().project().unwrap().formulas.get("beacon_strength").unwrap().expr.text().to_owned()
    };
    assert_eq!(formula(&harness), "clamp(hope / 10, 0, 1) * 100 + c.bonus");
    // The new name gets a sample input.
    harness.get_by_label("c.bonus");
    // A syntax error shows with a caret under the offending character.
    type_into(&mut harness, "Formula text", " +");
    harness.get_by_label_contains("^");
    // Typing was one gesture per focus: undo goes back to the file's text.
    harness.key_press(Key::Escape);
    harness.run_steps(2);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(3);
    assert_eq!(formula(&harness), "clamp(hope / 10, 0, 1) * 100");
}

#[test]
fn save_as_writes_the_edited_project_to_a_new_folder_and_new_creates_an_empty_one() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    select(&mut harness, "Acts (7)", "Tend the Lamp · tend_the_lamp");
    type_into(&mut harness, "Label", " now");
    let target = tempfile::tempdir().unwrap();
    let copy = target.path().join("copy");
    harness.state_mut().save_as(copy.clone());
    harness.run_steps(2);
    let written = std::fs::read_to_string(copy.join("acts/tend_the_lamp.ron")).unwrap();
    assert!(written.contains("label: \"Tend the Lamp now\""), "{written}");
    let original = std::fs::read_to_string(dir.path().join("acts/tend_the_lamp.ron")).unwrap();
    assert!(original.contains("label: \"Tend the Lamp\","), "the original is left as it was");
    assert!(!harness.state().title().contains('●'), "{}", harness.state().title());
    assert_eq!(label_of(harness.state(), Kind::Act, "tend_the_lamp"), "Tend the Lamp now");
    // A folder that is not empty is refused, with the reason in the log.
    harness.state_mut().save_as(dir.path().to_owned());
    assert!(harness.state().log().last().unwrap().contains("Save as failed"), "{:?}", harness.state().log());

    let fresh = target.path().join("fresh");
    harness.state_mut().new_project_in(fresh.clone());
    harness.run_steps(2);
    assert!(fresh.join("project.ron").is_file());
    assert_eq!(harness.state().project().unwrap().item_count(), 0);
}

#[test]
fn a_field_left_at_its_default_inside_a_structure_can_be_set_from_the_form() {
    let mut harness = harness();
    select(&mut harness, "Rules (12)", "Door bolted · door_bolted");
    let rule = |harness: &Harness<'static, ActforgeApp>| {
        harness.state().project().unwrap().rules.get("door_bolted").unwrap().effects.clone()
    };
    assert!(rule(&harness).card_modifiers.is_empty());
    // The empty list shows (folded) with the other fields at their default: open it and add.
    harness.get_by_label("Card modifiers").click();
    harness.run_steps(3);
    harness.get_by_label("Add to effects.card_modifiers").click();
    harness.run_steps(3);
    assert_eq!(rule(&harness).card_modifiers.len(), 1, "a list of one simplest modifier");
    assert!(harness.state().document().unwrap().is_dirty(&ItemKey::new(Kind::Rule, "door_bolted")));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(3);
    assert!(rule(&harness).card_modifiers.is_empty());
}

#[test]
fn nested_fields_and_reference_menus_stay_inside_the_window_at_the_default_size() {
    let mut harness = harness();
    let window_right = 1280.0;
    // An act modifier's card reference sits four levels deep; a placement's unit two.
    // Each structure and list is headed by its size: the act's effects hold one field, the
    // island's palette three colours.
    for (group, entry, reference, size) in [
        ("Acts (7)", "Bonfire · bonfire_burns", "Ember · ember", "1 field"),
        ("Tile maps (1)", "The Island · island", "The Keeper · keeper", "3 items"),
    ] {
        select(&mut harness, group, entry);
        // (A prop's size is a list of three too: several headers may read "3 items".)
        assert!(harness.query_all_by_label(size).next().is_some(), "{entry}: no header reads {size}");
        let chip = harness.get_by_label_contains(reference);
        assert!(chip.rect().right() <= window_right, "{reference} ends at {}", chip.rect().right());
        for role in [Role::ComboBox, Role::TextInput, Role::SpinButton] {
            for node in harness.query_all_by_role(role) {
                let right = node.rect().right();
                assert!(right <= window_right, "{entry}: a {role:?} ends at {right}, past the window");
            }
        }
    }
}

#[test]
fn f11_lets_the_tile_map_fill_the_window_and_brings_the_other_panes_back() {
    let mut harness = harness();
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::T);
    harness.run_steps(3);
    let narrow = harness.get_by_label("Tile map view").rect().width();
    harness.get_by_label_contains("Acts (7)");
    harness.get_by_label_contains("Select an item to edit");

    harness.key_press(Key::F11);
    harness.run_steps(3);
    assert!(harness.state().is_maximised());
    assert!(harness.query_by_label_contains("Acts (7)").is_none(), "the browser is put aside");
    assert!(harness.query_by_label_contains("Select an item to edit").is_none(), "the inspector is put aside");
    harness.get_by_label_contains("One pane maximised");
    let wide = harness.get_by_label("Tile map view").rect().width();
    assert!(wide > narrow + 400.0, "the view grew from {narrow} to {wide}");

    harness.key_press(Key::F11);
    harness.run_steps(3);
    assert!(!harness.state().is_maximised());
    harness.get_by_label_contains("Acts (7)");
    harness.get_by_label_contains("Select an item to edit");
    let back = harness.get_by_label("Tile map view").rect().width();
    assert!((back - narrow).abs() < 1.0, "the tile map is still in front, at its old size ({back} vs {narrow})");
}

#[test]
fn an_empty_scratch_formula_invites_typing_instead_of_showing_an_error() {
    let mut harness = harness();
    harness.key_press_modifiers(Modifiers::COMMAND | Modifiers::SHIFT, Key::E);
    harness.run_steps(3);
    harness.get_by_label_contains("Scratch formula");
    harness.get_by_label_contains("Type a formula to see its value");
    assert!(harness.query_by_label_contains("ends too early").is_none());
    type_into(&mut harness, "Formula text", "2 * 3 +");
    harness.get_by_label_contains("^");
    assert!(harness.query_by_label_contains("Type a formula to see its value").is_none());
}

// The Tests panel's flow, in this test binary (one link of the GUI stack).
#[path = "ui/tests_panel.rs"]
mod tests_panel;

// Traced formulas in the workbench and the inspector, in this test binary too.
#[path = "ui/formula_trace.rs"]
mod formula_trace;

// The editor under hostile content (issue 27.9), in this test binary too.
#[path = "ui/hostile.rs"]
mod hostile;
