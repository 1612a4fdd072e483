//! Issue 33 in the editor: a project opened with a merge conflict shows it side by side in the
//! Changes tab, a side is chosen per field by clicking, and Resolve writes the item; the same
//! tab lists unsaved changes field by field.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::document::{ItemKey, Op, get_item, item_from_json};
use actforge_runtime::Kind;
use actforge_runtime::project::merge::{FileRole, merge_file};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness_at(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1400.0, 900.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    harness
}

/// Runs frames until `done` holds (the file watcher answers from its thread), at most ~10 s.
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

/// An act file with this label and text.
fn act(label: &str, text: &str) -> String {
    format!("(\n    id: \"brew_draught\",\n    label: \"{label}\",\n    text: \"{text}\",\n)\n")
}

#[test]
fn a_merge_conflict_is_resolved_side_by_side_and_written_then_unsaved_edits_are_listed_by_field() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path().parent().unwrap().join("act-demo"), dir.path()).unwrap();
    // Two branches: we retitled the act and changed its text; they retitled it too.
    let merged = merge_file(
        FileRole::Item(Kind::Act),
        Some(&act("Brew by the Book", "Steep it.")),
        &act("Brew Boldly", "Steep it twice."),
        &act("Brew Carefully", "Steep it."),
    )
    .unwrap();
    assert_eq!(merged.conflicts.len(), 1);
    let file = dir.path().join("acts").join("brew_draught.ron");
    std::fs::write(&file, &merged.text).unwrap();

    let mut harness = harness_at(dir.path());
    assert!(harness.state().has_merge_conflicts());
    // The Changes tab came forward on its own, with the three versions side by side.
    harness.get_by_label_contains("changed the same fields on both sides");
    harness.get_by_label("Base (before both)");
    harness.get_by_label("\"Brew by the Book\"");
    harness.get_by_label("Ours: \"Brew Boldly\"");
    assert!(harness.state().diagnostics().iter().any(|d| d.message.starts_with("merge conflict in `label`")));
    // The browser marks the item.
    harness.get_by_label_contains("Acts (").click();
    harness.run_steps(2);
    harness.get_by_label_contains(&format!("brew_draught {} merge conflict", egui_phosphor::regular::GIT_MERGE));

    harness.get_by_label("Theirs: \"Brew Carefully\"").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Resolve act `brew_draught`").click();
    harness.run_steps(3);

    let key = ItemKey::new(Kind::Act, "brew_draught");
    let item = get_item(harness.state().project().unwrap(), Kind::Act, "brew_draught").unwrap();
    assert_eq!(item.item_label(), "Brew Carefully");
    assert!(!harness.state().has_merge_conflicts());
    assert!(harness.state().diagnostics().iter().all(|d| !d.message.starts_with("merge conflict")));
    // The file is the plain item again, with our clean change kept.
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("(\n    id: \"brew_draught\""), "{text}");
    assert!(text.contains("Brew Carefully") && text.contains("Steep it twice."), "{text}");
    assert!(!harness.state().document().unwrap().is_dirty(&key));

    // An edit shows in the tab as the field it changed, before and after.
    let mut tree = item.to_json().unwrap();
    tree["label"] = "Brew Gently".into();
    let edited = item_from_json(Kind::Act, tree).unwrap();
    assert!(harness.state_mut().apply_edit(Op::put(edited), "Rename the act"));
    harness.run_steps(3);
    harness.get_by_label_contains("One item differs from its saved file");
    harness.get_by_label_contains("act `brew_draught`: 1 field changed");
    harness.get_by_label("\"Brew Carefully\" -> \"Brew Gently\"");
}

#[test]
fn a_git_merge_while_the_editor_is_open_brings_its_conflict_into_the_changes_tab() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path().parent().unwrap().join("act-demo"), dir.path()).unwrap();
    let mut harness = harness_at(dir.path());
    assert!(!harness.state().has_merge_conflicts());
    // git writes the driver's conflict file into the open project.
    let merged = merge_file(
        FileRole::Item(Kind::Act),
        Some(&act("Brew by the Book", "Steep it.")),
        &act("Brew Boldly", "Steep it."),
        &act("Brew Carefully", "Steep it."),
    )
    .unwrap();
    let file = dir.path().join("acts").join("brew_draught.ron");
    std::fs::write(&file, &merged.text).unwrap();
    run_until(&mut harness, |h| h.state().has_merge_conflicts());
    harness.run_steps(3);
    let item = get_item(harness.state().project().unwrap(), Kind::Act, "brew_draught").unwrap();
    assert_eq!(item.item_label(), "Brew Boldly", "the document holds our side");
    assert!(harness.state().diagnostics().iter().any(|d| d.message.starts_with("merge conflict in `label`")));
    // Keeping ours (the default) writes the plain item.
    harness.get_by_label_contains("Resolve act `brew_draught`").click();
    harness.run_steps(3);
    assert!(!harness.state().has_merge_conflicts());
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("(\n") && text.contains("Brew Boldly"), "{text}");
}
