//! The Log tab: what the editor did (saves, undo, errors), oldest first.

use egui::RichText;

/// The Log tab.
pub fn ui(ui: &mut egui::Ui, log: &[String]) {
    egui::ScrollArea::vertical().auto_shrink([false, false]).stick_to_bottom(true).show(ui, |ui| {
        if log.is_empty() {
            ui.label(RichText::new("Nothing happened yet.").weak());
        }
        for line in log {
            ui.label(line.as_str());
        }
    });
}
