//! The Project settings tab: `project.ron` (name, description, ticks per second, seed and
//! where each system starts) as a form, drawn by the inspector's form machinery; every change
//! is one undoable [`Op::SetManifest`](crate::document::Op::SetManifest).

use std::path::Path;

use actforge_runtime::project::MANIFEST_FILE;
use egui::RichText;

use crate::panels::inspector::{InspectorState, manifest_form_ui};
use crate::requests::{Request, Requests};
use crate::workspace::Workspace;

/// The Project settings tab; `project_path` is the folder (or bundle) the project is in.
pub fn ui(
    ui: &mut egui::Ui,
    workspace: &Workspace,
    project_path: &Path,
    state: &mut InspectorState,
    requests: &mut Requests,
) {
    let Workspace::Open(open) = workspace else {
        ui.label("No project is open.");
        return;
    };
    let document = &open.document;
    let manifest = &document.project().manifest;
    ui.horizontal(|ui| {
        ui.label(RichText::new(egui_phosphor::regular::GEAR_SIX).size(22.0));
        let dirty = if document.manifest_dirty() { " ●" } else { "" };
        let name = if manifest.name.is_empty() { "Untitled" } else { manifest.name.as_str() };
        ui.heading(format!("Project settings · {name}{dirty}"));
    });
    let file = if project_path.is_dir() {
        project_path.join(MANIFEST_FILE).display().to_string()
    } else {
        format!("{} (a bundle)", project_path.display())
    };
    ui.label(RichText::new(format!("{file} · schema version {}", manifest.schema_version)).weak());
    ui.separator();
    // Validation's findings about project.ron, with the field they name.
    let problems: Vec<(String, String)> = open
        .diagnostics
        .iter()
        .filter(|d| d.item.is_none() && d.file.as_ref().is_some_and(|file| file.ends_with(MANIFEST_FILE)))
        .map(|d| (d.field.clone().unwrap_or_default(), d.message.clone()))
        .collect();
    let mut actions = Vec::new();
    manifest_form_ui(ui, document.project(), &problems, state, &mut actions);
    requests.extend(actions.into_iter().map(Request::Inspector));
}
