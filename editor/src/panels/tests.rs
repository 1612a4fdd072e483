//! The Tests panel: the project's own playtests (`tests/*.play`), run in the background on the
//! content as it is now (unsaved edits included), each with pass or fail; a failed test shows
//! its script with the failing line marked and why.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, channel};

use actforge_cli::test::{TestOutcome, TestScript, project_tests, run_test};
use actforge_runtime::Project;
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;

/// A run on a worker thread.
struct Running {
    done: Arc<AtomicUsize>,
    total: usize,
    result: Receiver<Vec<TestOutcome>>,
}

/// The panel's last results and the run under way (editor state, not part of the document).
#[derive(Default)]
pub struct TestsPanel {
    running: Option<Running>,
    /// The last run's outcomes, in file order.
    outcomes: Vec<TestOutcome>,
    /// The test whose script is shown, by name.
    shown: Option<String>,
    /// Why the tests could not be listed.
    problem: Option<String>,
}

impl TestsPanel {
    /// The last run's outcomes.
    pub fn outcomes(&self) -> &[TestOutcome] {
        &self.outcomes
    }

    /// Whether a run is under way.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// Runs every test of the project folder `folder` on `project` (as edited) in the background.
    pub fn run_all(&mut self, project: &Project, folder: &Path) {
        let files = match project_tests(folder) {
            Ok(files) => files,
            Err(error) => {
                self.problem = Some(format!("{}: {error}", folder.join("tests").display()));
                return;
            }
        };
        self.problem = None;
        let scripts: Vec<TestScript> = files.iter().map(|file| TestScript::from_file(file)).collect();
        let project = project.clone();
        let seed = project.manifest.settings.seed;
        let done = Arc::new(AtomicUsize::new(0));
        let (send, result) = channel();
        let counter = Arc::clone(&done);
        let total = scripts.len();
        std::thread::spawn(move || {
            let mut outcomes = Vec::with_capacity(scripts.len());
            for script in &scripts {
                outcomes.push(run_test(&project, seed, script));
                counter.fetch_add(1, Ordering::Relaxed);
            }
            // The panel may be gone (the project closed): nobody to tell.
            let _ = send.send(outcomes);
        });
        self.running = Some(Running { done, total, result });
    }

    /// Draws the panel; `folder` is the project folder (none: a bundle, which has no tests here).
    pub fn ui(&mut self, ui: &mut egui::Ui, project: Option<&Project>, folder: Option<&Path>) {
        self.poll(ui.ctx());
        let (Some(project), Some(folder)) = (project, folder) else {
            ui.label("Open a project folder to run its tests.");
            return;
        };
        let files = project_tests(folder).unwrap_or_default();
        ui.horizontal(|ui| {
            let run = ui.add_enabled(
                self.running.is_none() && !files.is_empty(),
                egui::Button::new(format!("{} Run all tests", icon::PLAY)),
            );
            if run.clicked() {
                self.run_all(project, folder);
            }
            ui.label(RichText::new(format!("{} test(s) in {}", files.len(), folder.join("tests").display())).weak());
        });
        if let Some(problem) = &self.problem {
            ui.label(RichText::new(problem).color(ui.visuals().error_fg_color));
        }
        if let Some(running) = &self.running {
            let done = running.done.load(Ordering::Relaxed);
            ui.add(
                egui::ProgressBar::new(done as f32 / running.total.max(1) as f32)
                    .text(format!("Running {done} of {}", running.total)),
            );
        }
        if files.is_empty() {
            ui.label(
                "This project has no tests yet. A test is a playtest script (FORMAT.md §7) saved as \
                 tests/NAME.play in the project folder: it plays from the start and checks what it \
                 expects. Run them here or with `actforge test`.",
            );
            return;
        }
        if !self.outcomes.is_empty() {
            let failed = self.outcomes.iter().filter(|outcome| !outcome.passed()).count();
            let colour = if failed == 0 { Color32::from_rgb(0x7f, 0xd1, 0x6d) } else { ui.visuals().error_fg_color };
            ui.label(RichText::new(format!("{} passed, {failed} failed", self.outcomes.len() - failed)).color(colour));
        }
        egui::ScrollArea::vertical().id_salt("tests_list").show(ui, |ui| {
            for outcome in &self.outcomes {
                ui.horizontal(|ui| match &outcome.failure {
                    None => {
                        ui.label(RichText::new(icon::CHECK_CIRCLE).color(Color32::from_rgb(0x7f, 0xd1, 0x6d)));
                        ui.label(format!("{} · {} expectations held", outcome.name, outcome.expectations));
                    }
                    Some((line, why)) => {
                        ui.label(RichText::new(icon::X_CIRCLE).color(ui.visuals().error_fg_color));
                        let text = format!("{} · line {line}: {why}", outcome.name);
                        if ui.link(text).on_hover_text("Show the script at this line").clicked() {
                            self.shown = Some(outcome.name.clone());
                        }
                    }
                });
            }
            let shown = self.shown.as_ref().and_then(|name| self.outcomes.iter().find(|outcome| &outcome.name == name));
            if let Some(outcome) = shown {
                ui.separator();
                script_ui(ui, outcome);
            }
        });
    }

    /// Takes the results of a finished run.
    fn poll(&mut self, ctx: &egui::Context) {
        let Some(running) = &self.running else { return };
        match running.result.try_recv() {
            Ok(outcomes) => {
                self.outcomes = outcomes;
                self.running = None;
                // Open the first failure at once: what the designer ran the tests for.
                self.shown = self.outcomes.iter().find(|outcome| !outcome.passed()).map(|outcome| outcome.name.clone());
            }
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                ctx.request_repaint_after(std::time::Duration::from_millis(50));
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                self.running = None;
                self.problem = Some("the test run stopped before it finished".to_owned());
            }
        }
    }
}

/// A failed test's script with line numbers, the failing line marked and why under it.
fn script_ui(ui: &mut egui::Ui, outcome: &TestOutcome) {
    let file: &PathBuf = &outcome.file;
    ui.label(RichText::new(file.display().to_string()).strong());
    let Ok(text) = std::fs::read_to_string(file) else {
        ui.label("The script cannot be read any more.");
        return;
    };
    let failing = outcome.failure.as_ref().map(|(line, _)| *line);
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let row = format!("{number:>4}  {line}");
        if Some(number) == failing {
            let response = ui.label(
                RichText::new(row)
                    .monospace()
                    .color(ui.visuals().error_fg_color)
                    .background_color(ui.visuals().error_fg_color.gamma_multiply(0.15)),
            );
            if let Some((_, why)) = &outcome.failure {
                ui.label(RichText::new(format!("      ↳ {why}")).color(ui.visuals().error_fg_color));
            }
            response.scroll_to_me(Some(egui::Align::Center));
        } else {
            ui.label(RichText::new(row).monospace());
        }
    }
}
