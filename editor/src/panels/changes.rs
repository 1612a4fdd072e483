//! The Changes tab: merge conflicts side by side with a side to keep per field, and what
//! differs from the saved files, field by field (issue 33).

use std::collections::HashMap;
use std::path::PathBuf;

use actforge_runtime::project::diff::{FieldChange, count_fields, diff_items, diff_trees, show_change, show_value};
use actforge_runtime::project::merge::{FieldConflict, Side};
use egui_phosphor::regular as icon;

use crate::document::{Document, ItemKey, get_item};
use crate::requests::{Request, Requests};
use crate::workspace::Workspace;

/// At most this many changed fields are listed per item (then a count of the rest).
const FIELDS_SHOWN: usize = 40;

/// The tab's state: the side chosen for each conflict, and the unsaved diff of a revision.
#[derive(Default)]
pub struct ChangesPanel {
    /// Per conflict file, the side kept for each of its fields (ours until chosen).
    choices: HashMap<PathBuf, Vec<Side>>,
    /// The document revision `unsaved` was found for, and what differs then.
    unsaved: Option<(u64, Vec<Unsaved>)>,
}

/// One item (or `project.ron`) that differs from its saved file.
struct Unsaved {
    /// The item; `None` for the manifest or the translations.
    key: Option<ItemKey>,
    /// What is shown for it when it is no item (`project.ron`, `locales/`).
    file: &'static str,
    /// "added", "removed" or the fields' count.
    summary: String,
    fields: Vec<FieldChange>,
}

impl ChangesPanel {
    /// Draws the tab.
    pub fn ui(&mut self, ui: &mut egui::Ui, workspace: &Workspace, requests: &mut Requests) {
        let Workspace::Open(open) = workspace else {
            ui.label("No project is open.");
            return;
        };
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            if !open.conflicts.is_empty() {
                self.choices.retain(|path, _| open.conflicts.iter().any(|conflict| conflict.path == *path));
                ui.heading(format!("{}  Merge conflicts", icon::GIT_MERGE));
                ui.label(format!(
                    "{} changed the same fields on both sides of a git merge. The project holds ours until you \
                     choose: pick a side for each field, then Resolve. Saving leaves the file alone until then.",
                    if open.conflicts.len() == 1 {
                        "One item".to_owned()
                    } else {
                        format!("{} items", open.conflicts.len())
                    }
                ));
                for conflict in &open.conflicts {
                    let key = ItemKey::new(conflict.kind, conflict.id.clone());
                    let choices = self
                        .choices
                        .entry(conflict.path.clone())
                        .or_insert_with(|| vec![Side::Ours; conflict.conflicts.len()]);
                    choices.resize(conflict.conflicts.len(), Side::Ours);
                    conflict_ui(ui, &key, &conflict.path, &conflict.conflicts, choices, requests);
                }
                ui.separator();
            }
            self.unsaved_ui(ui, &open.document, requests);
        });
    }

    fn unsaved_ui(&mut self, ui: &mut egui::Ui, document: &Document, requests: &mut Requests) {
        ui.heading(format!("{}  Unsaved changes", icon::GIT_DIFF));
        let revision = document.revision();
        if self.unsaved.as_ref().is_none_or(|(found, _)| *found != revision) {
            self.unsaved = Some((revision, unsaved_changes(document)));
        }
        let Some((_, unsaved)) = &self.unsaved else { return };
        if unsaved.is_empty() {
            ui.label("Nothing unsaved: every item is as its file holds it.");
            return;
        }
        ui.label(if unsaved.len() == 1 {
            "One item differs from its saved file (Save writes it):".to_owned()
        } else {
            format!("{} items differ from their saved files (Save writes them):", unsaved.len())
        });
        for change in unsaved {
            let title = match &change.key {
                Some(key) => format!("{key}: {}", change.summary),
                None => format!("{}: {}", change.file, change.summary),
            };
            let header =
                egui::CollapsingHeader::new(title).id_salt(("unsaved", &change.key, change.file)).default_open(true);
            let response = header.show(ui, |ui| {
                egui::Grid::new(("unsaved_fields", &change.key, change.file)).striped(true).num_columns(2).show(
                    ui,
                    |ui| {
                        for field in change.fields.iter().take(FIELDS_SHOWN) {
                            ui.monospace(if field.field.is_empty() { "(whole item)" } else { &field.field });
                            ui.label(show_change(field));
                            ui.end_row();
                        }
                    },
                );
                if change.fields.len() > FIELDS_SHOWN {
                    ui.weak(format!("… and {} more fields", change.fields.len() - FIELDS_SHOWN));
                }
            });
            if response.header_response.double_clicked()
                && let Some(key) = &change.key
            {
                requests.send(Request::Select(key.clone()));
            }
        }
    }
}

/// One conflicted item: a row per field with base, ours and theirs side by side, each side a
/// choice.
fn conflict_ui(
    ui: &mut egui::Ui,
    key: &ItemKey,
    path: &std::path::Path,
    conflicts: &[FieldConflict],
    choices: &mut [Side],
    requests: &mut Requests,
) {
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.horizontal(|ui| {
            ui.strong(format!("{} {key}", icon::WARNING));
            ui.weak(path.display().to_string());
            if ui.small_button("Select").on_hover_text("Show the item in the inspector").clicked() {
                requests.send(Request::Select(key.clone()));
            }
        });
        egui::Grid::new(("conflict", path)).striped(true).num_columns(4).spacing([16.0, 6.0]).show(ui, |ui| {
            ui.strong("Field");
            ui.strong("Base (before both)");
            ui.strong("Ours (this branch)");
            ui.strong("Theirs (merged in)");
            ui.end_row();
            for (conflict, choice) in conflicts.iter().zip(choices.iter_mut()) {
                ui.monospace(&conflict.field);
                ui.weak(show_value(conflict.base.as_ref(), 40));
                for side in [Side::Ours, Side::Theirs] {
                    let value = conflict.value(side);
                    let text = format!("{} {}", side_word(side), show_value(value, 40));
                    ui.radio_value(choice, side, text)
                        .on_hover_text(value.map_or_else(|| "(not there)".to_owned(), pretty));
                }
                ui.end_row();
            }
        });
        ui.horizontal(|ui| {
            if ui.button("Keep all ours").clicked() {
                choices.fill(Side::Ours);
            }
            if ui.button("Take all theirs").clicked() {
                choices.fill(Side::Theirs);
            }
            let resolve = egui::Button::new(format!("{} Resolve {key}", icon::CHECK));
            if ui.add(resolve).on_hover_text("Apply the chosen sides as one undoable edit").clicked() {
                requests.send(Request::ResolveMergeConflict { path: path.to_path_buf(), choices: choices.to_vec() });
            }
        });
    });
}

fn side_word(side: Side) -> &'static str {
    match side {
        Side::Ours => "Ours:",
        Side::Theirs => "Theirs:",
        Side::Base => "Base:",
    }
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string())
}

/// Every item that differs from its saved file, with the fields that differ.
fn unsaved_changes(document: &Document) -> Vec<Unsaved> {
    let mut unsaved = Vec::new();
    if document.manifest_dirty() {
        let fields = diff_items(document.saved_manifest(), &document.project().manifest);
        unsaved.push(Unsaved { key: None, file: "project.ron", summary: count_fields(fields.len()), fields });
    }
    if document.locales_dirty() {
        let fields = diff_items(document.saved_locales(), &document.project().locales);
        unsaved.push(Unsaved { key: None, file: "locales/", summary: count_fields(fields.len()), fields });
    }
    for key in document.dirty_items() {
        let saved = document.saved_content(key).and_then(|item| item.to_json().ok());
        let current = get_item(document.project(), key.kind, &key.id).and_then(|item| item.to_json().ok());
        let (summary, fields) = match (&saved, &current) {
            (None, Some(_)) => ("added (not saved yet)".to_owned(), Vec::new()),
            (Some(_), None) => ("removed (its file goes at the next save)".to_owned(), Vec::new()),
            (Some(saved), Some(current)) => {
                let fields = diff_trees(saved, current);
                (count_fields(fields.len()), fields)
            }
            (None, None) => continue,
        };
        unsaved.push(Unsaved { key: Some(key.clone()), file: "", summary, fields });
    }
    unsaved
}
