//! The Preview tab: the embedded runtime plays the edited content live. Controls (play, pause,
//! step, speed, seed, restart), the input log with a scrubber, the view of each system the
//! project uses, the synthesis table, and saving the inputs as a playtest script.

pub(crate) mod art;
mod battle;
mod board;
mod countdown;
mod edit;
mod session;
mod table;
mod views;

use std::path::Path;

use actforge_runtime::Project;
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;

pub use session::{CLOCK_FRAME, INPUT_BUDGET, PreviewGame, PreviewHighlight, REPLAY_BUDGET, SPEEDS, Waker};

use crate::document::{Document, ItemKey};

/// A playing preview's shortest time between frames: at most 30 a second, however fast its
/// clock ticks (a frame then moves the clock by several ticks).
const FASTEST_FRAME: std::time::Duration = std::time::Duration::from_micros(33_334);

/// Added to the time until the next tick, so a frame woken a little early still finds it due
/// (else it draws nothing new and waits a further frame).
const TICK_SLACK: std::time::Duration = std::time::Duration::from_millis(2);

/// Asks for a frame that starts `delay` from now. egui starts a frame asked for "after
/// `delay`" one frame's time early, so that it is shown by then; a frame that must see a moment
/// pass (a tick due) would then come too early and draw nothing new.
#[track_caller] // egui's repaint causes then name the caller
pub(crate) fn frame_in(ctx: &egui::Context, delay: std::time::Duration) {
    let frame_time = ctx.input(|input| input.predicted_dt);
    let early = std::time::Duration::try_from_secs_f32(frame_time).unwrap_or_default();
    ctx.request_repaint_after(delay.saturating_add(early));
}

/// The Preview tab's state (editor state, never part of the document).
#[derive(Default)]
pub struct PreviewPanel {
    /// The game and its input log.
    pub game: PreviewGame,
    /// The debug toggle, card art and the board's pick.
    looks: views::Looks,
    /// The synthesis table's chosen synthesis and inputs.
    synthesis: views::SynthesisPick,
    /// The time of the last frame that ran the clock.
    last_time: Option<f64>,
    /// The "Save as playtest…" window: the test's name and the expectations to add.
    save_form: Option<SaveForm>,
    /// What the last save did.
    saved: Option<String>,
    /// The tactics map's camera and view.
    map_view: crate::views::map::MapViewState,
    /// The "Edit the state" row's pickers and fields.
    state_edit: edit::StateEdit,
    /// Start the clock as soon as the game has compiled (`ACTFORGE_PREVIEW_AUTOPLAY`).
    autoplay: bool,
}

impl PreviewPanel {
    /// The tactics map's view (camera, last frame), e.g. to find a tile on screen.
    pub fn map_view(&self) -> &crate::views::map::MapViewState {
        &self.map_view
    }

    /// Starts the clock at the current speed once the game has compiled (at once if it has).
    pub fn play_when_ready(&mut self) {
        self.autoplay = true;
    }

    /// Sets the folder the tactics map's palette pictures are read from.
    pub fn set_project_folder(&mut self, folder: &std::path::Path) {
        if self.map_view.project_folder.as_deref() != Some(folder) {
            self.map_view.project_folder = Some(folder.to_owned());
        }
        self.looks.art.set_folder(Some(folder));
    }

    /// Draws the tab: compiles and replays when the document moved, runs the clock, shows the
    /// game. Items the designer clicks (an act, a card) are pushed to `select`.
    pub fn ui(&mut self, ui: &mut egui::Ui, document: Option<&Document>, select: &mut Vec<ItemKey>) {
        let Some(document) = document else {
            ui.label("Open a project to play it here.");
            return;
        };
        if !self.game.has_waker() {
            let ctx = ui.ctx().clone();
            self.game.set_waker(std::sync::Arc::new(move || ctx.request_repaint()));
        }
        self.game.poll();
        self.game.sync_document(document);
        if self.autoplay && self.game.session().is_some() {
            self.autoplay = false;
            self.game.set_playing(true);
        }
        self.run_clock(ui);
        countdown::forget(ui.ctx());
        self.save_form_ui(ui, document.project());
        self.controls_ui(ui, document.project());
        self.state_edit_ui(ui);
        self.log_ui(ui);
        self.messages_ui(ui);
        self.busy_ui(ui);
        ui.separator();
        let Some(session) = self.game.session() else {
            ui.label(RichText::new("Fix the errors above (the Diagnostics tab lists them too) to play.").weak());
            return;
        };
        let mut wants = views::Wants::default();
        let looks = &mut self.looks;
        let synthesis = &mut self.synthesis;
        let map_view = &mut self.map_view;
        let choices = session.choices();
        if table::has_table(session) {
            egui::Panel::left("preview_table_cards").resizable(true).default_size(150.0).min_size(120.0).show(
                ui,
                |ui| {
                    egui::ScrollArea::vertical().id_salt("preview_cards_scroll").show(ui, |ui| {
                        table::table_cards_ui(ui, session, &choices, looks, &mut wants.chosen);
                    });
                },
            );
        }
        egui::ScrollArea::vertical().id_salt("preview_scroll").auto_shrink([false, false]).show(ui, |ui| {
            views::choices_ui(ui, session, &choices, &mut wants.chosen);
            views::systems_ui(ui, session, &choices, looks, map_view, &mut wants, select);
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
        // Drawn: the countdowns noted when they next look different.
        if let Some(next) = self.game.until_next_frame(countdown::nearest(ui.ctx())) {
            frame_in(ui.ctx(), (next + TICK_SLACK).max(FASTEST_FRAME));
        }
    }

    /// Runs the clock by the time since the last frame while playing.
    fn run_clock(&mut self, ui: &egui::Ui) {
        let now = ui.input(|input| input.time);
        // Frames may be a clock frame apart; a longer gap (a stalled window) is not made up.
        let longest = 2.0 * session::CLOCK_FRAME.as_secs_f64();
        let elapsed = self.last_time.map_or(0.0, |last| (now - last).clamp(0.0, longest));
        self.last_time = Some(now);
        if self.game.is_playing() {
            // The next frame is asked for once the preview is drawn (`ui`).
            self.game.tick_clock(elapsed);
        }
    }

    /// The language the game plays in: the source, each language of the project, or the
    /// pseudo-locale (accented, longer, bracketed: clipped and untranslated text stands out).
    fn language_ui(&mut self, ui: &mut egui::Ui, project: &Project) {
        use actforge_runtime::locale::{PSEUDO_LOCALE, saved_languages};
        ui.separator();
        let source = format!("Source ({})", project.manifest.localisation.source_language);
        let name = |language: &str| match language {
            "" => source.clone(),
            PSEUDO_LOCALE => "Pseudo-locale".to_owned(),
            language => language.to_owned(),
        };
        let current = self.game.language().to_owned();
        let mut chosen = current.clone();
        let response = ui
            .menu_button(format!("{} {}", egui_phosphor::regular::GLOBE, name(&current)), |ui| {
                let mut item = |ui: &mut egui::Ui, language: &str, hint: Option<&str>| {
                    let clicked = ui.selectable_label(current == language, name(language));
                    let clicked = match hint {
                        Some(hint) => clicked.on_hover_text(hint),
                        None => clicked,
                    };
                    if clicked.clicked() {
                        language.clone_into(&mut chosen);
                        ui.close();
                    }
                };
                item(ui, "", None);
                for language in saved_languages(project) {
                    item(ui, language, None);
                }
                item(
                    ui,
                    PSEUDO_LOCALE,
                    Some("Every text accented, 40% longer and bracketed: clipped or hard-coded text stands out"),
                );
            })
            .response
            .on_hover_text(
                "Language: what the preview plays in (texts without a translation stay in the source language)",
            );
        // Found by what it is for, not by the language it shows.
        ui.ctx().accesskit_node_builder(response.id, |node| node.set_label("Language"));
        if chosen != current {
            self.game.set_language(&chosen);
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
                .on_hover_text(
                    "Save the inputs, and checks of what is on the table now, as a test in the project's tests/",
                )
                .clicked()
            {
                self.ask_save(project);
            }
            self.language_ui(ui, project);
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

    /// While the worker compiles or replays: what it does, for how long, and a way to stop it.
    fn busy_ui(&self, ui: &mut egui::Ui) {
        let Some((elapsed, compiling)) = self.game.busy() else { return };
        ui.horizontal_wrapped(|ui| {
            ui.add(egui::Spinner::new());
            let what = if compiling { "Compiling the edit and replaying the inputs" } else { "Replaying the inputs" };
            let queued = self.game.queued().len();
            let queued = match queued {
                0 => String::new(),
                1 => "; 1 input waits to be played".to_owned(),
                n => format!("; {n} inputs wait to be played"),
            };
            ui.label(format!("{what}… {:.1} s{queued}. The game below is the one before.", elapsed.as_secs_f32()));
            if ui
                .button(format!("{} Stop", icon::STOP))
                .on_hover_text("Show the game at the input the replay reached; the later inputs stay in the log")
                .clicked()
            {
                self.game.stop();
            }
        });
        // The spinner and the elapsed time move while the worker works.
        ui.ctx().request_repaint_after(std::time::Duration::from_millis(100));
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

    /// "Edit the state": the row's set-up line goes to the game as an input; a refused one says
    /// why at the row.
    fn state_edit_ui(&mut self, ui: &mut egui::Ui) {
        let Some(session) = self.game.session() else { return };
        if let Some(line) = self.state_edit.ui(ui, session) {
            let applied = self.game.input(&line);
            // A refusal is said at the row, not again above the game.
            let why = (!applied).then(|| self.game.take_notice().unwrap_or_else(|| "the edit was refused".to_owned()));
            self.state_edit.set_refused(why);
        }
    }

    /// Opens the "Save as playtest…" window with a fresh name and the checks the state offers.
    fn ask_save(&mut self, project: &Project) {
        let taken = |name: &str| {
            self.map_view
                .project_folder
                .as_ref()
                .is_some_and(|folder| folder.join("tests").join(format!("{name}.play")).exists())
        };
        let name = (1..=999).map(|n| format!("preview_{n}")).find(|name| !taken(name)).unwrap_or_default();
        let checks = self.game.session().map(|session| offered_checks(session, project)).unwrap_or_default();
        self.save_form =
            Some(SaveForm { name, checks: checks.into_iter().map(|check| (check, true)).collect(), error: None });
    }

    /// The "Save as playtest…" window: a name, the expectations to tick, Save and Cancel.
    fn save_form_ui(&mut self, ui: &egui::Ui, project: &Project) {
        let Some(form) = &mut self.save_form else { return };
        let mut answer = None;
        let centre = ui.ctx().content_rect().center();
        egui::Window::new("Save as playtest")
            .collapsible(false)
            .resizable(true)
            .pivot(egui::Align2::CENTER_CENTER)
            .default_pos(centre)
            .show(ui.ctx(), |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Test name");
                    ui.text_edit_singleline(&mut form.name).labelled_by(label.id);
                });
                ui.label(
                    RichText::new(
                        "Saved as tests/NAME.play in the project: the inputs so far, then the checks ticked below. \
                     The Tests panel (F7) and `actforge test` run it.",
                    )
                    .weak(),
                );
                ui.label(
                    RichText::new(format!("It plays with seed {} (its first line says so).", self.game.seed())).weak(),
                );
                ui.label(RichText::new("Check what holds now:").strong());
                egui::ScrollArea::vertical().max_height(220.0).show(ui, |ui| {
                    for (check, ticked) in &mut form.checks {
                        ui.checkbox(ticked, check.as_str());
                    }
                });
                if let Some(error) = &form.error {
                    ui.label(RichText::new(error).color(ui.visuals().error_fg_color));
                }
                ui.horizontal(|ui| {
                    if ui.button("Save test").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(false);
                    }
                });
            });
        match answer {
            Some(false) => self.save_form = None,
            Some(true) => {
                let folder = self.map_view.project_folder.clone().filter(|folder| folder.is_dir());
                let result = match folder {
                    None => Err("a bundle has no tests/ folder: open the project folder to save tests".to_owned()),
                    Some(folder) => self.save_test(&folder, project),
                };
                match result {
                    Ok(saved) => {
                        self.saved = Some(saved);
                        self.save_form = None;
                    }
                    Err(error) => {
                        if let Some(form) = &mut self.save_form {
                            form.error = Some(error);
                        }
                    }
                }
            }
            None => {}
        }
    }

    /// Writes the form's test into `folder/tests/`; what it did, or why not.
    fn save_test(&self, folder: &Path, project: &Project) -> Result<String, String> {
        let Some(form) = &self.save_form else { return Err("nothing to save".to_owned()) };
        let name = form.name.trim();
        let slug = !name.is_empty()
            && name.len() <= 64
            && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        if !slug {
            return Err(format!("`{name}` is not a test name: use lowercase letters, digits, _ and -"));
        }
        let file = folder.join("tests").join(format!("{name}.play"));
        if file.exists() {
            return Err(format!("tests/{name}.play exists already: choose another name"));
        }
        let mut script = self.game.playtest_script(&project.manifest.name);
        let checks: Vec<&str> =
            form.checks.iter().filter(|(_, ticked)| *ticked).map(|(check, _)| check.as_str()).collect();
        if !checks.is_empty() {
            script.push_str("# What held when it was saved:\n");
            for check in &checks {
                script.push_str(check);
                script.push('\n');
            }
        }
        std::fs::create_dir_all(folder.join("tests")).map_err(|error| error.to_string())?;
        save_playtest(&file, &script).map_err(|error| format!("could not save {}: {error}", file.display()))?;
        Ok(format!("Saved tests/{name}.play with {} check(s); F7 runs the project's tests", checks.len()))
    }
}

/// A "Save as playtest…" window's state.
struct SaveForm {
    /// The test's name (its file name without `.play`).
    name: String,
    /// Expectations of the state now, each ticked or not.
    checks: Vec<(String, bool)>,
    /// Why the last Save did not save.
    error: Option<String>,
}

/// The expectations the state offers: each window's status, the count of each card type on
/// the table, and each stat that has a value.
fn offered_checks(session: &actforge_runtime::engine::Session, project: &Project) -> Vec<String> {
    let mut checks = Vec::new();
    let state = session.state();
    let mut seen: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for window in state.windows.values() {
        let nth = seen.entry(window.token.as_str()).or_insert(0);
        *nth += 1;
        let name = if *nth > 1 { format!("{}#{nth}", window.token) } else { window.token.to_string() };
        let status = match window.status {
            actforge_runtime::engine::Status::Idle => "idle",
            actforge_runtime::engine::Status::Ready(_) => "ready",
            actforge_runtime::engine::Status::Running => "running",
            actforge_runtime::engine::Status::Finished => "finished",
        };
        checks.push(format!("expect status {name} {status}"));
    }
    for card in &project.cards {
        let formula = format!("table.card.{}", card.id);
        if let Ok(count) = session.query(&formula)
            && count > 0.0
        {
            checks.push(format!("expect {formula} == {count}"));
        }
    }
    for stat in &project.stats {
        if let Ok(value) = session.query(stat.id.as_str())
            && value.is_finite()
        {
            checks.push(format!("expect {} == {value}", stat.id));
        }
    }
    checks
}

/// Writes a playtest script atomically (a temporary file beside it, then a rename).
pub fn save_playtest(path: &std::path::Path, script: &str) -> std::io::Result<()> {
    actforge_runtime::project::write_atomic(path, script.as_bytes())
}
