//! The Preview tab: the embedded runtime plays the edited content live. Controls (play, pause,
//! step, speed, seed, restart), the input log with a scrubber, the view of each system the
//! project uses, the synthesis table, and saving the inputs as a playtest script.

mod session;
mod views;

use std::path::PathBuf;
use std::sync::mpsc::{Receiver, channel};

use actforge_runtime::Project;
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;

pub use session::{PreviewGame, PreviewHighlight, SPEEDS};

use crate::document::{Document, ItemKey};

/// The Preview tab's state (editor state, never part of the document).
#[derive(Default)]
pub struct PreviewPanel {
    /// The game and its input log.
    pub game: PreviewGame,
    /// Show hidden stats.
    debug: bool,
    /// The synthesis table's chosen synthesis and inputs.
    synthesis: views::SynthesisPick,
    /// The time of the last frame that ran the clock.
    last_time: Option<f64>,
    /// A "Save as playtest…" dialog waiting for the designer.
    save_dialog: Option<(Receiver<Option<PathBuf>>, String)>,
    /// What the last save did.
    saved: Option<String>,
    /// The tactics map's camera and view.
    map_view: crate::views::map::MapViewState,
}

impl PreviewPanel {
    /// The tactics map's view (camera, last frame), e.g. to find a tile on screen.
    pub fn map_view(&self) -> &crate::views::map::MapViewState {
        &self.map_view
    }

    /// Sets the folder the tactics map's palette pictures are read from.
    pub fn set_project_folder(&mut self, folder: &std::path::Path) {
        if self.map_view.project_folder.as_deref() != Some(folder) {
            self.map_view.project_folder = Some(folder.to_owned());
        }
    }

    /// Draws the tab: compiles and replays when the document moved, runs the clock, shows the
    /// game. Items the designer clicks (an act, a card) are pushed to `select`.
    pub fn ui(&mut self, ui: &mut egui::Ui, document: Option<&Document>, select: &mut Vec<ItemKey>) {
        let Some(document) = document else {
            ui.label("Open a project to play it here.");
            return;
        };
        self.game.sync(document.project(), document.revision());
        self.run_clock(ui);
        self.take_save_answer();
        self.controls_ui(ui, document.project());
        self.log_ui(ui);
        self.messages_ui(ui);
        ui.separator();
        let Some(session) = self.game.session() else {
            ui.label(RichText::new("Fix the errors above (the Diagnostics tab lists them too) to play.").weak());
            return;
        };
        let mut wants = views::Wants::default();
        let debug = &mut self.debug;
        let synthesis = &mut self.synthesis;
        let map_view = &mut self.map_view;
        let choices = session.choices();
        if views::has_table(session) {
            egui::Panel::left("preview_table_cards").resizable(true).default_size(150.0).min_size(120.0).show(
                ui,
                |ui| {
                    egui::ScrollArea::vertical().id_salt("preview_cards_scroll").show(ui, |ui| {
                        views::table_cards_ui(ui, session, &choices, &mut wants.chosen);
                    });
                },
            );
        }
        egui::ScrollArea::vertical().id_salt("preview_scroll").auto_shrink([false, false]).show(ui, |ui| {
            views::choices_ui(ui, session, &choices, &mut wants.chosen);
            views::systems_ui(ui, session, &choices, debug, map_view, &mut wants, select);
            views::synthesis_ui(ui, session, synthesis, &mut wants.lines);
            views::events_ui(ui, self.game.events());
        });
        for choice in wants.chosen {
            self.game.choose(&choice);
        }
        for line in wants.lines {
            self.game.input(&line);
        }
        if let Some(line) = wants.play_from {
            self.game.play_from(line);
        }
    }

    /// Runs the clock by the time since the last frame while playing.
    fn run_clock(&mut self, ui: &egui::Ui) {
        let now = ui.input(|input| input.time);
        let elapsed = self.last_time.map_or(0.0, |last| (now - last).clamp(0.0, 0.25));
        self.last_time = Some(now);
        if self.game.is_playing() {
            self.game.tick_clock(elapsed);
            ui.ctx().request_repaint();
        }
    }

    fn controls_ui(&mut self, ui: &mut egui::Ui, project: &Project) {
        ui.horizontal_wrapped(|ui| {
            let playing = self.game.is_playing();
            let (glyph, label) = if playing { (icon::PAUSE, "Pause") } else { (icon::PLAY, "Play") };
            let can_play = self.game.session().is_some();
            if ui
                .add_enabled(can_play, egui::Button::new(format!("{glyph} {label}")))
                .on_hover_text("Run the game clock (F5)")
                .clicked()
            {
                self.game.set_playing(!playing);
            }
            if ui
                .add_enabled(can_play, egui::Button::new(format!("{} Step", icon::SKIP_FORWARD)))
                .on_hover_text("Move the clock to the next timer or decay (F10)")
                .clicked()
            {
                self.game.step();
            }
            ui.separator();
            for speed in SPEEDS {
                let text = format!("{speed}×");
                if ui
                    .selectable_label(self.game.speed() == speed, text)
                    .on_hover_text("Game seconds per second")
                    .clicked()
                {
                    self.game.set_speed(speed);
                }
            }
            ui.separator();
            ui.label("Seed");
            let mut seed = self.game.seed();
            if ui.add(egui::DragValue::new(&mut seed)).on_hover_text("The seed the game starts from").changed() {
                self.game.set_seed(seed);
            }
            if ui.button(format!("{} Restart", icon::ARROW_COUNTER_CLOCKWISE)).on_hover_text("Start over").clicked() {
                self.game.restart();
            }
            if ui
                .add_enabled(
                    self.game.played() > 0,
                    egui::Button::new(format!("{} Save as playtest…", icon::FLOPPY_DISK)),
                )
                .on_hover_text("Save the inputs as a script `actforge play` runs")
                .clicked()
            {
                self.ask_save(project);
            }
            if let Some(session) = self.game.session() {
                ui.separator();
                let per_second = f64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
                let tick = session.state().tick;
                ui.label(RichText::new(format!("tick {tick} ({:.1} s)", tick as f64 / per_second)).monospace())
                    .on_hover_text(format!("State hash {:016x}", session.state_hash()));
            }
        });
    }

    /// The input log: a scrubber over the inputs and the inputs themselves.
    fn log_ui(&mut self, ui: &mut egui::Ui) {
        let total = self.game.log().len();
        let mut played = self.game.played();
        ui.horizontal(|ui| {
            ui.label(format!("{} Inputs", icon::LIST_NUMBERS));
            if ui
                .add_enabled(played > 0, egui::Button::new(format!("{} Back one input", icon::CARET_LEFT)))
                .on_hover_text("Replay the game without the last input played")
                .clicked()
            {
                played -= 1;
            }
            let slider = egui::Slider::new(&mut played, 0..=total.max(1)).integer().text(format!("of {total} played"));
            ui.add_enabled(total > 0, slider).on_hover_text("Jump to any earlier input: the game is replayed to it");
            if ui
                .add_enabled(played < total, egui::Button::new(format!("Forward one input {}", icon::CARET_RIGHT)))
                .on_hover_text("Replay the next input of the log again")
                .clicked()
            {
                played += 1;
            }
        });
        if played.min(total) != self.game.played() {
            self.game.jump_to(played);
        }
        egui::CollapsingHeader::new(format!("Input log ({total})")).id_salt("preview_input_log").show(ui, |ui| {
            let mut jump = None;
            if let Some(start) = self.game.start_line() {
                ui.label(RichText::new(format!("from: {start}")).monospace().weak());
            }
            for (index, line) in self.game.log().iter().enumerate() {
                let played = index < self.game.played();
                let text = RichText::new(format!("{:>3}  {line}", index + 1)).monospace();
                let text = if played { text } else { text.weak() };
                if ui
                    .selectable_label(index + 1 == self.game.played(), text)
                    .on_hover_text("Replay up to here")
                    .clicked()
                {
                    jump = Some(index + 1);
                }
            }
            if let Some(count) = jump {
                self.game.jump_to(count);
            }
        });
    }

    fn messages_ui(&self, ui: &mut egui::Ui) {
        let warning = Color32::from_rgb(0xf2, 0xb3, 0x3d);
        if let Some(notice) = self.game.notice() {
            ui.label(RichText::new(format!("{} {notice}", icon::WARNING)).color(warning));
        }
        if let Some(saved) = &self.saved {
            ui.label(RichText::new(format!("{} {saved}", icon::CHECK)).weak());
        }
        let errors = self.game.errors();
        if !errors.is_empty() {
            let error = Color32::from_rgb(0xf0, 0x5d, 0x5d);
            // Only a game that compiled before can go on playing.
            let what_plays = if self.game.session().is_some() {
                "the preview keeps playing the last content that compiled"
            } else {
                "nothing can play until they are fixed"
            };
            let count = if errors.len() == 1 { "1 error".to_owned() } else { format!("{} errors", errors.len()) };
            ui.label(
                RichText::new(format!("{} The edited content has {count}; {what_plays}.", icon::X_CIRCLE)).color(error),
            );
            for line in errors.iter().take(8) {
                ui.label(RichText::new(line).color(error).small());
            }
        }
    }

    /// Asks where to save the inputs as a playtest (a file dialog on a worker thread).
    fn ask_save(&mut self, project: &Project) {
        let script = self.game.playtest_script(&project.manifest.name);
        let (sender, receiver) = channel();
        std::thread::spawn(move || {
            let dialog = rfd::AsyncFileDialog::new()
                .set_title("Save the preview's inputs as a playtest")
                .add_filter("Playtest script", &["play"])
                .set_file_name("preview.play");
            let picked = pollster::block_on(dialog.save_file()).map(|handle| handle.path().to_path_buf());
            let _ = sender.send(picked);
        });
        self.save_dialog = Some((receiver, script));
    }

    fn take_save_answer(&mut self) {
        let Some((receiver, _)) = &self.save_dialog else { return };
        let Ok(answer) = receiver.try_recv() else { return };
        let Some((_, script)) = self.save_dialog.take() else { return };
        if let Some(path) = answer {
            self.saved = Some(match save_playtest(&path, &script) {
                Ok(()) => format!("Saved the inputs to {}", path.display()),
                Err(error) => format!("Could not save {}: {error}", path.display()),
            });
        }
    }
}

/// Writes a playtest script atomically (a temporary file beside it, then a rename).
pub fn save_playtest(path: &std::path::Path, script: &str) -> std::io::Result<()> {
    actforge_runtime::project::write_atomic(path, script.as_bytes())
}
