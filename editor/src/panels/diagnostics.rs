//! The Diagnostics tab: validation's findings, one line each; a click opens the item at the field.

use std::path::Path;

use egui::RichText;

use crate::document::ItemKey;
use crate::requests::{Request, Requests};
use crate::style::{severity_colour, severity_icon};
use crate::workspace::Workspace;

/// The Diagnostics tab: files are named from `project_folder`.
pub fn ui(ui: &mut egui::Ui, workspace: &Workspace, project_folder: &Path, requests: &mut Requests) {
    let Workspace::Open(open) = workspace else { return };
    let diagnostics = &open.diagnostics;
    if diagnostics.is_empty() {
        ui.label(RichText::new("No problems found.").weak());
    }
    let row_height = ui.spacing().interact_size.y;
    egui::ScrollArea::vertical().auto_shrink([false, false]).show_rows(
        ui,
        row_height,
        diagnostics.len(),
        |ui, range| {
            for diagnostic in diagnostics.get(range).unwrap_or_default() {
                ui.horizontal(|ui| {
                    ui.label(
                        RichText::new(severity_icon(diagnostic.severity)).color(severity_colour(diagnostic.severity)),
                    );
                    // Files named from the project folder; one line each (the rows are
                    // fixed-height for long lists), the whole text on hover.
                    let mut shown = diagnostic.clone();
                    if let Some(inside) =
                        diagnostic.file.as_ref().and_then(|file| file.strip_prefix(project_folder).ok())
                    {
                        shown.file = Some(inside.to_path_buf());
                    }
                    let text = shown.to_string();
                    let response = ui
                        .add(egui::Label::new(text.as_str()).truncate().sense(egui::Sense::click()))
                        .on_hover_text(text.as_str());
                    if response.clicked()
                        && let Some((kind, id)) = &diagnostic.item
                    {
                        let key = ItemKey::new(*kind, id.clone());
                        requests.send(match &diagnostic.field {
                            Some(field) => Request::SelectField(key, field.clone()),
                            None => Request::Select(key),
                        });
                    }
                });
            }
        },
    );
}
