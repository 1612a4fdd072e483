//! The Item tab: the selected item's file text, or why the project did not open.

use actforge_runtime::Severity;
use egui::RichText;

use crate::document::{ItemKey, get_item};
use crate::style::{kind_icon, kind_text_colour, severity_colour};
use crate::workspace::Workspace;

/// The Item tab: the selected item's RON text, or why the project did not open.
pub fn ui(ui: &mut egui::Ui, workspace: &Workspace, selection: Option<&ItemKey>) {
    match workspace {
        Workspace::Failed { message } => {
            ui.heading(RichText::new("The project could not be opened").color(severity_colour(Severity::Error)));
            ui.label(message.as_str());
            ui.label("Fix the problem and press Reload.");
        }
        Workspace::Open(open) => {
            let Some(selection) = selection else {
                ui.heading("Welcome");
                ui.label("Choose an item in the project browser on the left, or press Ctrl+P to find one by name.");
                ui.label(format!("This project has {} items.", open.document.project().item_count()));
                return;
            };
            let Some(item) = get_item(open.document.project(), selection.kind, &selection.id) else {
                ui.label(format!("There is no {selection} any more."));
                return;
            };
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(kind_icon(selection.kind))
                        .size(22.0)
                        .color(kind_text_colour(selection.kind, ui.visuals())),
                );
                ui.heading(format!("{} {}", selection.kind.label(), selection.id));
            });
            if let Some(file) = open.sources.item_file(selection.kind, &selection.id) {
                ui.label(RichText::new(file.display().to_string()).weak());
            }
            ui.separator();
            egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
                ui.add(egui::Label::new(RichText::new(item.ron_text()).monospace()).selectable(true));
            });
        }
    }
}
