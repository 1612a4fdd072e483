//! egui_kittest flows of the File menu: the built-in file dialog (no desktop portal), new
//! project, export, import, quitting with unsaved edits, the Project settings tab and
//! `project.ron` changed on disk. Widgets are found by label, clicked and typed into.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::commands::UiCommand;
use actforge_runtime::project::{load_bundle, load_folder};
use egui::accesskit::Role;
use egui::{Key, Modifiers, ViewportCommand, ViewportEvent, ViewportId};
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

/// A copy of the lighthouse demo in a temporary folder.
fn lighthouse_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path(), dir.path()).unwrap();
    dir
}

/// Opens the menu `menu` and clicks `command` in it.
fn menu(harness: &mut Harness<'static, ActforgeApp>, menu: &str, command: UiCommand) {
    harness.get_by_role_and_label(Role::Button, menu).click();
    harness.run_steps(2);
    let shortcut = command.shortcut_text(&harness.ctx);
    // A menu entry is named by its icon, label and shortcut (empty or not).
    let entry = format!("{}  {} {shortcut}", command.icon(), command.label());
    harness.get_by_role_and_label(Role::Button, &entry).click();
    // A new window is sized in its first frames: look at it once it has settled.
    harness.run_steps(4);
}

/// Edit → Preferences → Always use the built-in file dialog (as a machine without a portal).
fn use_the_built_in_dialog(harness: &mut Harness<'static, ActforgeApp>) {
    harness.get_by_role_and_label(Role::Button, "Edit").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Preferences").click();
    harness.run_steps(2);
    harness.get_by_label("Always use the built-in file dialog").click();
    harness.run_steps(2);
    assert!(harness.state().uses_built_in_file_dialog());
}

/// Focuses the text field labelled `label` and types `text` into it.
fn type_into(harness: &mut Harness<'static, ActforgeApp>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    harness.run_steps(1);
    harness.get_by_label(label).type_text(text);
    harness.run_steps(2);
}

/// Types `path` into the built-in dialog's path field and confirms it.
fn answer_dialog(harness: &mut Harness<'static, ActforgeApp>, field: &str, button: &str, path: &Path) {
    type_into(harness, field, &path.display().to_string());
    harness.get_by_role_and_label(Role::Button, button).click();
    harness.run_steps(4);
}

/// Types into the selected item's label in the inspector: an unsaved edit.
fn edit_a_card(harness: &mut Harness<'static, ActforgeApp>) {
    harness.get_by_label_contains("Cards (9)").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Ember · ember").click();
    harness.run_steps(3);
    type_into(harness, "Label", " glow");
    assert!(harness.state().document().unwrap().has_unsaved_changes());
}

/// Runs frames until `done` holds (files and workers answer from other threads), at most ~10 s.
fn run_until(harness: &mut Harness<'static, ActforgeApp>, done: impl Fn(&Harness<'static, ActforgeApp>) -> bool) {
    for _ in 0..200 {
        harness.run_steps(1);
        if done(harness) {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the condition never held; log: {:?}", harness.state().log());
}

/// The viewport commands the app sent in the last frame.
fn sent(harness: &Harness<'static, ActforgeApp>) -> Vec<ViewportCommand> {
    harness.output().viewport_output.get(&ViewportId::ROOT).map(|output| output.commands.clone()).unwrap_or_default()
}

#[test]
fn without_a_portal_new_project_opens_the_built_in_dialog_and_a_typed_folder_becomes_the_project() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    use_the_built_in_dialog(&mut harness);
    let target = tempfile::tempdir().unwrap();
    // A folder that is not empty is refused, and the designer is told so at once.
    menu(&mut harness, "File", UiCommand::NewProject);
    harness.get_by_label("New project: choose an empty folder");
    answer_dialog(&mut harness, "Folder path", "Use this folder", dir.path());
    harness.get_by_label("New project failed");
    harness.get_by_role_and_label(Role::Button, "OK").click();
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.name, "The Lighthouse");

    let fresh = target.path().join("fresh_start");
    menu(&mut harness, "File", UiCommand::NewProject);
    answer_dialog(&mut harness, "Folder path", "Use this folder", &fresh);
    assert!(fresh.join("project.ron").is_file());
    assert_eq!(harness.state().project().unwrap().item_count(), 0);
    assert_eq!(harness.state().project().unwrap().manifest.name, "fresh_start");
    assert!(harness.query_by_label("New project: choose an empty folder").is_none(), "the dialog closed");

    // A folder that is not a project is refused: the open project stays.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::O);
    harness.run_steps(4);
    answer_dialog(&mut harness, "Folder path", "Use this folder", target.path());
    harness.get_by_label("Not a project folder");
    harness.get_by_role_and_label(Role::Button, "OK").click();
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.name, "fresh_start");

    // Cancelling is a cancel, said quietly; nothing changes.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::O);
    harness.run_steps(4);
    harness.get_by_label("Open a project folder");
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    harness.run_steps(3);
    assert!(harness.query_by_label("Open a project folder").is_none());
    assert!(harness.state().log().last().unwrap().ends_with("cancelled"), "{:?}", harness.state().log());
    assert_eq!(harness.state().project().unwrap().manifest.name, "fresh_start");
}

#[test]
fn quitting_with_unsaved_edits_asks_and_cancel_keeps_the_window_and_discard_closes_it() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    edit_a_card(&mut harness);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(4);
    harness.get_by_label("Quit Actforge");
    assert!(!harness.state().is_closing());
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    harness.run_steps(3);
    assert!(harness.query_by_label("Quit Actforge").is_none());
    assert!(!harness.state().is_closing());
    assert!(!sent(&harness).contains(&ViewportCommand::Close));

    // The window's close button: the close is cancelled and the same question asked.
    harness.input_mut().viewports.entry(ViewportId::ROOT).or_default().events.push(ViewportEvent::Close);
    harness.run_steps(1);
    assert!(sent(&harness).contains(&ViewportCommand::CancelClose));
    harness.run_steps(3);
    harness.get_by_role_and_label(Role::Button, "Discard").click();
    harness.run_steps(2);
    assert!(harness.state().is_closing());
    assert!(sent(&harness).contains(&ViewportCommand::Close));
    // Nothing was written.
    let ember = std::fs::read_to_string(dir.path().join("cards/ember.ron")).unwrap();
    assert!(!ember.contains("glow"));
}

#[test]
fn quitting_and_saving_writes_the_edits_then_closes() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    edit_a_card(&mut harness);
    menu(&mut harness, "File", UiCommand::Quit);
    // The toolbar has a Save too: the question's is the one in the window, below it.
    let save = harness
        .get_all_by_role_and_label(Role::Button, "Save")
        .max_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .unwrap();
    save.click();
    harness.run_steps(2);
    assert!(harness.state().is_closing());
    let ember = std::fs::read_to_string(dir.path().join("cards/ember.ron")).unwrap();
    assert!(ember.contains("Ember glow"), "{ember}");
}

#[test]
fn quitting_without_unsaved_edits_closes_at_once() {
    let mut harness = harness_at(&default_project_path());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(2);
    assert!(harness.state().is_closing());
    assert!(harness.query_by_label("Quit Actforge").is_none());
}

#[test]
fn export_bundle_writes_a_json_bundle_with_the_unsaved_edits_that_the_runtime_reads() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    use_the_built_in_dialog(&mut harness);
    edit_a_card(&mut harness);
    menu(&mut harness, "File", UiCommand::ExportBundle);
    harness.get_by_role_and_label(Role::Button, "JSON bundle…").click();
    harness.run_steps(4);
    harness.get_by_label("Export the project as a JSON bundle");
    let out = tempfile::tempdir().unwrap();
    // No extension typed: the bundle gets its format's.
    answer_dialog(&mut harness, "File path", "Save to this file", &out.path().join("lighthouse"));
    let file = out.path().join("lighthouse.json");
    let loaded = load_bundle(&file).unwrap();
    assert!(loaded.project.cards.get("ember").unwrap().label.contains("glow"));
    assert_eq!(loaded.project.item_count(), harness.state().project().unwrap().item_count());
    assert!(std::fs::read_to_string(&file).unwrap().trim_start().starts_with('{'), "JSON, not RON");
    assert!(harness.state().log().last().unwrap().contains("as a JSON bundle"), "{:?}", harness.state().log());
    // Exporting writes elsewhere: the project's own edits are still unsaved.
    assert!(harness.state().document().unwrap().has_unsaved_changes());
}

#[test]
fn import_cultistlike_asks_for_the_assets_then_a_new_folder_and_opens_the_imported_project() {
    let mut harness = harness_at(&default_project_path());
    use_the_built_in_dialog(&mut harness);
    menu(&mut harness, "File", UiCommand::ImportCultistlike);
    harness.get_by_label("Import Cultistlike: choose the folder with the Unity assets");
    answer_dialog(&mut harness, "Folder path", "Use this folder", &actforge_tests::fixture("cultistlike-small"));
    harness.get_by_label("Import Cultistlike: choose an empty folder for the new project");
    let out = tempfile::tempdir().unwrap();
    let into = out.path().join("imported");
    answer_dialog(&mut harness, "Folder path", "Use this folder", &into);
    run_until(&mut harness, |h| !h.state().is_importing());
    harness.run_steps(2);
    assert!(into.join("project.ron").is_file());
    let project = harness.state().project().unwrap();
    assert!(project.item_count() > 0);
    assert!(harness.state().log().iter().any(|line| line.starts_with("Imported ")), "{:?}", harness.state().log());
}

#[test]
fn the_project_settings_tab_edits_the_seed_and_a_start_token_and_save_writes_project_ron() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    menu(&mut harness, "File", UiCommand::ProjectSettings);
    harness.get_by_label_contains("Project settings · The Lighthouse");
    // The seed: typed, then Enter.
    harness.get_by_label("Seed").focus();
    harness.run_steps(1);
    harness.get_by_label("Seed").type_text("42");
    harness.run_steps(1);
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    assert_eq!(harness.state().project().unwrap().manifest.settings.seed, 42);
    // The second start token, picked from the project's tokens.
    harness.get_by_label("Change entry.tokens[1]").click();
    harness.run_steps(3);
    harness.get_by_label_contains("· bonfire").click();
    harness.run_steps(3);
    let tokens = |h: &Harness<'static, ActforgeApp>| {
        h.state().project().unwrap().manifest.entry.tokens.iter().map(ToString::to_string).collect::<Vec<_>>()
    };
    assert_eq!(tokens(&harness), ["lamp_room", "bonfire"]);
    assert_eq!(harness.state().history().undo_len(), 2, "one step per edit");
    harness.get_by_label_contains("Project settings · The Lighthouse ●");

    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(3);
    let saved = load_folder(dir.path()).unwrap().project.manifest;
    assert_eq!(saved.settings.seed, 42);
    assert_eq!(saved.entry.tokens.iter().map(ToString::to_string).collect::<Vec<_>>(), ["lamp_room", "bonfire"]);
    assert!(!harness.state().document().unwrap().has_unsaved_changes());
}

#[test]
fn an_optional_start_can_be_unset_and_undo_brings_it_back() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    menu(&mut harness, "File", UiCommand::ProjectSettings);
    // Below the fold of the tab at this window size: scroll to it first.
    harness.get_by_label("Unset entry.tile_map").scroll_to_me();
    // Scrolling is animated over a few frames.
    harness.run_steps(20);
    harness.get_by_label("Unset entry.tile_map").click();
    harness.run_steps(3);
    assert!(harness.state().project().unwrap().manifest.entry.tile_map.is_none());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.entry.tile_map.as_ref().unwrap().as_str(), "island");
}

fn write_seed(dir: &Path, seed: u64) {
    let file = dir.join("project.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    let text = text.replace("seed: 7", &format!("seed: {seed}"));
    std::fs::write(file, text).unwrap();
}

#[test]
fn project_ron_changed_on_disk_reloads_as_an_undoable_step() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    write_seed(dir.path(), 99);
    run_until(&mut harness, |h| h.state().project().unwrap().manifest.settings.seed == 99);
    assert!(!harness.state().document().unwrap().has_unsaved_changes(), "the document equals the file");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.settings.seed, 7);
    assert!(harness.state().document().unwrap().manifest_dirty(), "undone, it differs from the file again");
}

#[test]
fn a_change_on_disk_wakes_the_idle_editor_which_otherwise_asks_for_no_frame() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    harness.run();
    assert!(!harness.ctx.has_requested_repaint(), "an idle editor asks for no frame, not even a later one");
    write_seed(dir.path(), 99);
    // No frames are drawn while waiting: only the watcher's thread can ask for one.
    let woke = (0..200).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        harness.ctx.has_requested_repaint()
    });
    assert!(woke, "the watcher asked for a frame when project.ron changed");
    harness.run_steps(1);
    assert_eq!(harness.state().project().unwrap().manifest.settings.seed, 99, "that frame took the change in");
}

#[test]
fn project_ron_changed_on_disk_with_unsaved_settings_raises_a_conflict() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    menu(&mut harness, "File", UiCommand::ProjectSettings);
    type_into(&mut harness, "Name", " at dusk");
    harness.key_press(Key::Enter);
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.name, "The Lighthouse at dusk");
    write_seed(dir.path(), 99);
    run_until(&mut harness, |h| h.query_by_label("Take theirs").is_some());
    harness.run_steps(3);
    harness.get_by_label_contains("The project settings (project.ron) changed");
    // Nothing was overwritten.
    assert_eq!(harness.state().project().unwrap().manifest.settings.seed, 7);
    harness.get_by_role_and_label(Role::Button, "Take theirs").click();
    harness.run_steps(2);
    let manifest = &harness.state().project().unwrap().manifest;
    assert_eq!((manifest.name.as_str(), manifest.settings.seed), ("The Lighthouse", 99));
    assert!(!harness.state().document().unwrap().has_unsaved_changes());
}

#[test]
fn adding_to_an_empty_start_list_picks_the_projects_first_token() {
    let dir = lighthouse_copy();
    let manifest = "(schema_version: 1, name: \"Bare start\")\n";
    std::fs::write(dir.path().join("project.ron"), manifest).unwrap();
    let mut harness = harness_at(dir.path());
    menu(&mut harness, "File", UiCommand::ProjectSettings);
    harness.get_by_label("Add to entry.tokens").click();
    harness.run_steps(3);
    let tokens = harness.state().project().unwrap().manifest.entry.tokens.clone();
    assert_eq!(tokens.iter().map(ToString::to_string).collect::<Vec<_>>(), ["bonfire"]);
    harness.get_by_label("Change entry.tokens[0]");
}

#[test]
fn a_save_that_fails_while_quitting_keeps_the_window_open_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    let bundle = sub.join("lighthouse.json");
    let project = load_folder(&default_project_path()).unwrap().project;
    actforge_runtime::project::export_bundle(&project, &bundle, actforge_runtime::project::BundleFormat::Json).unwrap();
    let mut harness = harness_at(&bundle);
    edit_a_card(&mut harness);
    // The bundle's folder becomes a file: the save cannot write there.
    std::fs::remove_dir_all(&sub).unwrap();
    std::fs::write(&sub, "in the way").unwrap();
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Q);
    harness.run_steps(4);
    let save = harness
        .get_all_by_role_and_label(Role::Button, "Save")
        .max_by(|a, b| a.rect().top().total_cmp(&b.rect().top()))
        .unwrap();
    save.click();
    harness.run_steps(3);
    assert!(!harness.state().is_closing());
    harness.get_by_label_contains("Saving failed, so the editor stays open");
    assert!(harness.state().document().unwrap().has_unsaved_changes());
}

#[test]
fn a_seed_below_the_schemas_minimum_is_held_at_it() {
    let dir = lighthouse_copy();
    let mut harness = harness_at(dir.path());
    menu(&mut harness, "File", UiCommand::ProjectSettings);
    harness.get_by_label("Seed").focus();
    harness.run_steps(1);
    harness.get_by_label("Seed").type_text("-5");
    harness.run_steps(1);
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    // The schema says a seed is a whole number from 0: the field keeps it there.
    assert_eq!(harness.state().project().unwrap().manifest.settings.seed, 0);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().manifest.settings.seed, 7);
}
