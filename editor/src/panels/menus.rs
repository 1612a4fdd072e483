//! The menu bar, the toolbar and the status bar, all fed by [`UiCommand`].

use egui::RichText;

use crate::app::ActforgeApp;
use crate::commands::UiCommand;
use crate::requests::Request;
use crate::style::{severity_colour, severity_icon};
use crate::workspace::Workspace;
use actforge_runtime::Severity;

impl ActforgeApp {
    /// A toolbar button for `command`: its icon, named by its label for assistive technology.
    fn command_button(&mut self, ui: &mut egui::Ui, command: UiCommand, enabled: bool) {
        let shortcut = command.shortcut_text(ui.ctx());
        let hover = if shortcut.is_empty() {
            command.description().to_owned()
        } else {
            format!("{} ({shortcut})", command.description())
        };
        let button = egui::Button::new(command.icon());
        let response =
            ui.add_enabled(enabled, button).on_hover_text(hover).on_disabled_hover_text(command.description());
        // The icon alone is not a name: give assistive technology (and tests) the command's label.
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, enabled, command.label()));
        if response.clicked() {
            self.requests.send(Request::Command(command));
        }
    }

    /// A menu entry for `command`, with its shortcut.
    fn menu_item(&mut self, ui: &mut egui::Ui, command: UiCommand) {
        let enabled = self.enabled(command);
        let button = egui::Button::new(format!("{}  {}", command.icon(), command.label()))
            .shortcut_text(command.shortcut_text(ui.ctx()));
        if ui.add_enabled(enabled, button).on_hover_text(command.description()).clicked() {
            self.requests.send(Request::Command(command));
            ui.close();
        }
    }

    /// A menu entry for a setting that is on or off, with a check mark.
    fn menu_toggle(&mut self, ui: &mut egui::Ui, command: UiCommand, on: bool) {
        let mark = if on { egui_phosphor::regular::CHECK_SQUARE } else { egui_phosphor::regular::SQUARE };
        let button = egui::Button::new(format!("{mark}  {}", command.label()));
        let response = ui.add(button).on_hover_text(command.description());
        response.widget_info(|| egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, on, command.label()));
        if response.clicked() {
            self.requests.send(Request::Command(command));
            ui.close();
        }
    }

    /// The recently opened projects, each a button that opens it in place of this one.
    fn recent_projects_ui(&mut self, ui: &mut egui::Ui) {
        if self.recent.is_empty() {
            ui.label(RichText::new("No recent projects").weak());
        }
        let current = self.path.canonicalize().unwrap_or_else(|_| self.path.clone());
        for path in self.recent.clone() {
            let button = egui::Button::new(format!("{}  {}", egui_phosphor::regular::FOLDER_OPEN, path.display()));
            if ui.add_enabled(path != current, button).on_hover_text("Open this project").clicked() {
                self.requests.send(Request::OpenProject(path));
                ui.close();
            }
        }
    }

    /// File, Edit, View and Play.
    pub(crate) fn menu_bar_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                self.menu_item(ui, UiCommand::NewProject);
                self.menu_item(ui, UiCommand::OpenProject);
                ui.menu_button(format!("{}  Recent projects", egui_phosphor::regular::CLOCK_COUNTER_CLOCKWISE), |ui| {
                    self.recent_projects_ui(ui);
                });
                ui.separator();
                self.menu_item(ui, UiCommand::Save);
                self.menu_item(ui, UiCommand::SaveAs);
                self.menu_item(ui, UiCommand::Reload);
                ui.separator();
                self.menu_item(ui, UiCommand::ProjectSettings);
                self.menu_item(ui, UiCommand::Changes);
                ui.separator();
                self.menu_item(ui, UiCommand::ImportCultistlike);
                self.menu_item(ui, UiCommand::ExportBundle);
                ui.separator();
                self.menu_item(ui, UiCommand::Quit);
            });
            ui.menu_button("Edit", |ui| {
                self.menu_item(ui, UiCommand::Undo);
                self.menu_item(ui, UiCommand::Redo);
                ui.separator();
                self.menu_item(ui, UiCommand::Duplicate);
                self.menu_item(ui, UiCommand::Delete);
                ui.separator();
                ui.menu_button(format!("{}  Preferences", egui_phosphor::regular::SLIDERS_HORIZONTAL), |ui| {
                    let built_in = self.dialogs.always_built_in;
                    self.menu_toggle(ui, UiCommand::ToggleBuiltInFileDialog, built_in);
                    let light = !self.dark;
                    self.menu_toggle(ui, UiCommand::ToggleTheme, light);
                });
            });
            ui.menu_button("View", |ui| {
                self.menu_item(ui, UiCommand::CommandPalette);
                self.menu_item(ui, UiCommand::QuickOpen);
                self.menu_item(ui, UiCommand::FindInProject);
                ui.separator();
                self.menu_item(ui, UiCommand::Simulate);
                self.menu_item(ui, UiCommand::RunTests);
                self.menu_item(ui, UiCommand::FormulaWorkbench);
                self.menu_item(ui, UiCommand::ActGraph);
                self.menu_item(ui, UiCommand::NodeMap);
                self.menu_item(ui, UiCommand::TileMapEditor);
                self.menu_item(ui, UiCommand::TableView);
                self.menu_item(ui, UiCommand::Strings);
                ui.separator();
                self.menu_item(ui, UiCommand::MaximisePane);
                self.menu_item(ui, UiCommand::ToggleTheme);
                self.menu_item(ui, UiCommand::ResetLayout);
            });
            ui.menu_button("Play", |ui| {
                self.menu_item(ui, UiCommand::PlayPause);
                self.menu_item(ui, UiCommand::StepPreview);
                self.menu_item(ui, UiCommand::RestartPreview);
                self.menu_item(ui, UiCommand::PlayFromHere);
            });
        });
    }

    /// The toolbar under the menus.
    pub(crate) fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            for command in [UiCommand::NewProject, UiCommand::OpenProject, UiCommand::Save, UiCommand::Reload] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            for command in [UiCommand::Undo, UiCommand::Redo] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            for command in [UiCommand::PlayPause, UiCommand::StepPreview, UiCommand::RestartPreview] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            for command in [
                UiCommand::QuickOpen,
                UiCommand::FindInProject,
                UiCommand::CommandPalette,
                UiCommand::Simulate,
                UiCommand::MaximisePane,
                UiCommand::ToggleTheme,
            ] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            self.command_button(ui, UiCommand::ProjectSettings, self.enabled(UiCommand::ProjectSettings));
            let name = self.project().map_or_else(String::new, |project| project.manifest.name.clone());
            // The project's name opens its settings, as the gear beside it does.
            let response = ui
                .add(egui::Label::new(RichText::new(name).strong()).sense(egui::Sense::click()))
                .on_hover_text("Double-click for the project settings");
            if response.double_clicked() {
                self.requests.send(Request::Command(UiCommand::ProjectSettings));
            }
            ui.label(RichText::new(self.path.display().to_string()).weak());
            if let Some(job) = &self.import {
                ui.separator();
                ui.spinner();
                ui.label(format!("Importing {}…", job.source().display()));
            }
        });
    }

    /// The status bar: project, unsaved count, maximised pane, problems, the preview's state.
    pub(crate) fn status_bar_ui(&self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let Workspace::Open(open) = &self.workspace else {
                ui.label("No project open");
                return;
            };
            let project = open.document.project();
            ui.label(format!("{} · {} items", project.manifest.name, project.item_count()));
            ui.separator();
            let unsaved = open.document.dirty_items().len()
                + usize::from(open.document.manifest_dirty())
                + usize::from(open.document.locales_dirty());
            ui.label(if unsaved == 0 { "All saved".to_owned() } else { format!("{unsaved} unsaved") });
            if self.is_maximised() {
                ui.separator();
                let shortcut = UiCommand::MaximisePane.shortcut_text(ui.ctx());
                ui.label(format!(
                    "{} One pane maximised: {shortcut} restores the others",
                    egui_phosphor::regular::ARROWS_OUT
                ));
            }
            ui.separator();
            let errors = open.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
            let warnings = open.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
            ui.label(
                RichText::new(format!("{} {errors}", severity_icon(Severity::Error)))
                    .color(severity_colour(Severity::Error)),
            );
            ui.label(
                RichText::new(format!("{} {warnings}", severity_icon(Severity::Warning)))
                    .color(severity_colour(Severity::Warning)),
            );
            if let Some(session) = self.preview.game.session() {
                ui.separator();
                let state = if self.preview.game.is_playing() { "playing" } else { "paused" };
                ui.label(format!(
                    "Preview {state} · tick {} · seed {} · hash {:016x}",
                    session.state().tick,
                    self.preview.game.seed(),
                    session.state_hash()
                ));
            }
        });
    }
}
