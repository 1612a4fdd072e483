//! Quitting: Quit (Ctrl+Q) and closing the window ask "Save / Discard / Cancel" while there
//! are unsaved edits. The window's close is cancelled until the designer answers (eframe's
//! close request and `ViewportCommand::CancelClose`); the answer is a request, and a save
//! that fails keeps the window open with the reason.

use egui::RichText;

use crate::app::ActforgeApp;
use crate::document::Document;
use crate::requests::{QuitAnswer, Request};

/// The open "quit with unsaved changes?" question.
#[derive(Debug, Default)]
pub struct QuitPrompt {
    /// Why saving failed, after the designer chose Save.
    pub error: Option<String>,
}

impl ActforgeApp {
    fn has_unsaved_changes(&self) -> bool {
        self.document().is_some_and(Document::has_unsaved_changes)
    }

    /// Quit: closes now, or asks first while there are unsaved edits.
    pub(crate) fn quit(&mut self) {
        if self.has_unsaved_changes() {
            self.quit_prompt.get_or_insert_with(QuitPrompt::default);
        } else {
            self.closing = true;
        }
    }

    /// The window's close button (or the desktop) asked to close: with unsaved edits the close
    /// is cancelled and the question asked instead.
    pub(crate) fn window_close_requested(&mut self, ctx: &egui::Context) {
        if self.closing || !self.has_unsaved_changes() {
            self.closing = true;
            return;
        }
        ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        self.quit_prompt.get_or_insert_with(QuitPrompt::default);
    }

    /// The question; the answer is a request, carried out after the frame.
    pub(crate) fn quit_ui(&mut self, ctx: &egui::Context) {
        let Some(prompt) = &self.quit_prompt else { return };
        let unsaved =
            self.document().map_or(0, |document| document.dirty_items().len() + usize::from(document.manifest_dirty()));
        let mut answer = None;
        egui::Window::new("Quit Actforge")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(format!("There are unsaved changes ({unsaved} unsaved). Save them before quitting?"));
                if let Some(error) = &prompt.error {
                    ui.colored_label(
                        crate::style::severity_colour(actforge_runtime::Severity::Error),
                        format!("Saving failed, so the editor stays open: {error}"),
                    );
                }
                ui.add_space(6.0);
                ui.horizontal(|ui| {
                    if ui.button(RichText::new("Save").strong()).on_hover_text("Save the changes, then quit").clicked()
                    {
                        answer = Some(QuitAnswer::Save);
                    }
                    if ui.button("Discard").on_hover_text("Quit without saving; the changes are lost").clicked() {
                        answer = Some(QuitAnswer::Discard);
                    }
                    if ui.button("Cancel").on_hover_text("Keep editing").clicked() {
                        answer = Some(QuitAnswer::Cancel);
                    }
                });
            });
        if ctx.input(|input| input.key_pressed(egui::Key::Escape)) {
            answer = Some(QuitAnswer::Cancel);
        }
        if let Some(answer) = answer {
            self.requests.send(Request::AnswerQuit(answer));
        }
    }

    /// Carries out the designer's answer.
    pub(crate) fn answer_quit(&mut self, answer: QuitAnswer) {
        if self.quit_prompt.is_none() {
            return;
        }
        match answer {
            QuitAnswer::Cancel => {
                self.quit_prompt = None;
                self.log.push("Quit cancelled".to_owned());
            }
            QuitAnswer::Discard => {
                self.quit_prompt = None;
                if let Some(recovery) = &self.recovery {
                    // Discarded on purpose: not offered back at the next start.
                    recovery.clear();
                }
                self.log.push("Quit without saving".to_owned());
                self.closing = true;
            }
            QuitAnswer::Save => {
                let logged = self.log.len();
                self.save();
                if self.has_unsaved_changes() {
                    let why = self.log.get(logged..).and_then(<[String]>::last).cloned();
                    let why = why.unwrap_or_else(|| "the changes are still unsaved".to_owned());
                    self.quit_prompt = Some(QuitPrompt { error: Some(why) });
                } else {
                    self.quit_prompt = None;
                    self.closing = true;
                }
            }
        }
    }
}
