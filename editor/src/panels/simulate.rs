//! The Simulate panel: seeded Monte Carlo runs of the open project in the background, with
//! progress and cancel, charts of outcomes and distributions, dead content that opens the item,
//! and what moved since a kept baseline.

use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::Instant;

use actforge_runtime::engine::Content;
use actforge_runtime::sim::{Change, Distribution, Policy, Progress, SimOptions, Summary, diff, simulate};
use actforge_runtime::{Kind, Project};
use egui::RichText;
use egui_phosphor::regular as icon;

use crate::document::ItemKey;

/// A simulation running on a worker thread.
struct Running {
    progress: Arc<Progress>,
    result: Receiver<Result<Summary, String>>,
    runs: usize,
    started: Instant,
}

/// Which player the panel simulates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PanelPolicy {
    Random,
    Greedy,
    /// Board play: the first side random, the second greedy.
    RandomVsGreedy,
    /// Board play: the first side greedy, the second random.
    GreedyVsRandom,
}

/// The panel's settings, the running simulation and the last results (editor state, not part
/// of the document).
pub struct SimPanel {
    runs: usize,
    seed: u64,
    policy: PanelPolicy,
    score: String,
    max_moves: usize,
    running: Option<Running>,
    /// The last simulation's summary, or why it failed.
    result: Option<Result<Summary, String>>,
    /// Seconds the last simulation took.
    seconds: f64,
    baseline: Option<Summary>,
    /// The final value whose histogram is shown.
    stat: Option<String>,
}

impl Default for SimPanel {
    fn default() -> Self {
        Self {
            runs: 1000,
            seed: 1,
            policy: PanelPolicy::Random,
            score: String::new(),
            max_moves: 2000,
            running: None,
            result: None,
            seconds: 0.0,
            baseline: None,
            stat: None,
        }
    }
}

impl SimPanel {
    /// Whether a simulation is running.
    pub fn is_running(&self) -> bool {
        self.running.is_some()
    }

    /// The last simulation's summary, if it succeeded.
    pub fn summary(&self) -> Option<&Summary> {
        self.result.as_ref().and_then(|result| result.as_ref().ok())
    }

    /// Starts a simulation of `project` on a worker thread (the project is copied: edits made
    /// while it runs do not change it).
    pub fn start(&mut self, project: &Project) {
        self.cancel();
        let options = SimOptions {
            runs: self.runs,
            seed: self.seed,
            policy: match self.policy {
                PanelPolicy::Random => Policy::Random,
                PanelPolicy::Greedy => {
                    Policy::Greedy { score: (!self.score.trim().is_empty()).then(|| self.score.trim().to_owned()) }
                }
                PanelPolicy::RandomVsGreedy => Policy::Sides(vec![Policy::Random, Policy::Greedy { score: None }]),
                PanelPolicy::GreedyVsRandom => Policy::Sides(vec![Policy::Greedy { score: None }, Policy::Random]),
            },
            max_moves: self.max_moves,
            threads: 0,
            ..SimOptions::default()
        };
        let progress = Arc::new(Progress::default());
        let (sender, result) = channel();
        let project = project.clone();
        let worker_progress = Arc::clone(&progress);
        std::thread::spawn(move || {
            let outcome = match Content::compile(project) {
                Ok(content) => {
                    simulate(&Arc::new(content), &options, &worker_progress).map_err(|error| error.to_string())
                }
                Err(error) => Err(format!(
                    "the project cannot be played until its errors are fixed ({} problems; see Diagnostics)",
                    error.problems.len()
                )),
            };
            // The panel may be gone (the editor closed): nobody to tell.
            let _ = sender.send(outcome);
        });
        self.running = Some(Running { progress, result, runs: self.runs, started: Instant::now() });
    }

    /// Stops the running simulation, if any; its partial results are dropped.
    pub fn cancel(&mut self) {
        if let Some(running) = self.running.take() {
            running.progress.cancel();
        }
    }

    /// Takes in a finished simulation's result.
    fn poll(&mut self) {
        let Some(running) = &self.running else { return };
        let received = match running.result.try_recv() {
            Ok(result) => Some(result),
            Err(std::sync::mpsc::TryRecvError::Empty) => None,
            // The worker ended without answering: say so rather than spin forever.
            Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                Some(Err("the simulation stopped without a result (see the log of the terminal)".to_owned()))
            }
        };
        if let Some(result) = received {
            self.seconds = running.started.elapsed().as_secs_f64();
            self.running = None;
            if let Ok(summary) = &result
                && self.stat.as_ref().is_none_or(|stat| !summary.stats.contains_key(stat))
            {
                self.stat = summary.stats.keys().next().cloned();
            }
            self.result = Some(result);
        }
    }

    /// Draws the panel; clicking dead content asks to select that item.
    pub fn ui(&mut self, ui: &mut egui::Ui, project: Option<&Project>, select: &mut Vec<ItemKey>) {
        self.poll();
        if self.running.is_some() {
            // The worker reports through the channel: look again soon.
            ui.ctx().request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.settings_ui(ui, project);
        ui.separator();
        match &self.result {
            None if self.running.is_none() => {
                ui.label(RichText::new("Press Run to play the project many times with seeded random players.").weak());
            }
            None => {}
            Some(Err(message)) => {
                ui.colored_label(ui.visuals().error_fg_color, format!("{} {message}", icon::WARNING));
            }
            Some(Ok(_)) => {
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| self.results_ui(ui, project, select));
            }
        }
    }

    fn settings_ui(&mut self, ui: &mut egui::Ui, project: Option<&Project>) {
        ui.horizontal_wrapped(|ui| {
            let label = ui.label("Runs");
            ui.add(egui::DragValue::new(&mut self.runs).range(1..=1_000_000).speed(10)).labelled_by(label.id);
            let label = ui.label("Seed");
            ui.add(egui::DragValue::new(&mut self.seed)).labelled_by(label.id);
            let label = ui.label("Max moves");
            ui.add(egui::DragValue::new(&mut self.max_moves).range(1..=1_000_000).speed(10)).labelled_by(label.id);
            egui::ComboBox::from_label("Player")
                .selected_text(match self.policy {
                    PanelPolicy::Random => "Random",
                    PanelPolicy::Greedy => "Greedy",
                    PanelPolicy::RandomVsGreedy => "Random vs greedy",
                    PanelPolicy::GreedyVsRandom => "Greedy vs random",
                })
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.policy, PanelPolicy::Random, "Random");
                    ui.selectable_value(&mut self.policy, PanelPolicy::Greedy, "Greedy");
                    // Board content only: one policy per side, in entry order.
                    if project.is_some_and(|project| !project.manifest.entry.boards.is_empty()) {
                        ui.selectable_value(&mut self.policy, PanelPolicy::RandomVsGreedy, "Random vs greedy");
                        ui.selectable_value(&mut self.policy, PanelPolicy::GreedyVsRandom, "Greedy vs random");
                    }
                });
            if self.policy == PanelPolicy::Greedy {
                let label = ui.label("Score");
                ui.add(
                    egui::TextEdit::singleline(&mut self.score).hint_text("formula to maximise").desired_width(160.0),
                )
                .labelled_by(label.id)
                .on_hover_text("Greedy play applies the choice whose result scores highest (boards: own lead)");
            }
        });
        ui.horizontal(|ui| {
            if let Some(running) = &self.running {
                let done = running.progress.done();
                #[allow(clippy::cast_precision_loss)]
                let fraction = done as f32 / running.runs.max(1) as f32;
                ui.add(
                    egui::ProgressBar::new(fraction)
                        .text(format!("{done} / {} runs", running.runs))
                        .desired_width(220.0),
                );
                if ui.button(format!("{}  Cancel", icon::STOP)).clicked() {
                    self.cancel();
                }
            } else if ui
                .add_enabled(project.is_some(), egui::Button::new(format!("{}  Run", icon::PLAY)))
                .on_hover_text("Play the project's current content (unsaved edits included)")
                .clicked()
                && let Some(project) = project
            {
                self.start(project);
            }
            let summary = self.summary().cloned();
            if ui
                .add_enabled(summary.is_some(), egui::Button::new(format!("{}  Keep as baseline", icon::PUSH_PIN)))
                .on_hover_text("Compare the next simulations with this one")
                .clicked()
            {
                self.baseline = summary;
            }
            if self.baseline.is_some() && ui.button(format!("{}  Clear baseline", icon::X)).clicked() {
                self.baseline = None;
            }
        });
    }

    fn results_ui(&mut self, ui: &mut egui::Ui, project: Option<&Project>, select: &mut Vec<ItemKey>) {
        let Some(Ok(summary)) = &self.result else { return };
        ui.label(format!(
            "{} runs, first seed {}, {} play, in {:.2} s",
            summary.runs, summary.seed, summary.policy, self.seconds
        ));
        // What needs the designer's attention first: content never reached, then what moved.
        dead_ui(ui, summary, project, select);
        if let Some(baseline) = &self.baseline {
            changes_ui(ui, &diff(baseline, summary));
        }
        ui.separator();
        ui.columns(2, |columns| {
            if let [left, right] = columns {
                left.strong("Outcomes");
                counts_chart(left, "sim_outcomes", &summary.outcomes, summary.runs);
                if !summary.grades.is_empty() {
                    left.strong("Grades");
                    counts_chart(left, "sim_grades", &summary.grades, summary.runs);
                }
                right.strong("Turns per run");
                histogram(right, "sim_turns", &summary.turns);
                right.strong("Moves per run");
                histogram(right, "sim_moves", &summary.moves);
            }
        });
        abilities_ui(ui, summary);
        if !summary.stats.is_empty() {
            ui.horizontal(|ui| {
                ui.strong("Final value");
                let selected = self.stat.clone().unwrap_or_default();
                egui::ComboBox::from_id_salt("sim_stat").selected_text(selected).show_ui(ui, |ui| {
                    for name in summary.stats.keys() {
                        ui.selectable_value(&mut self.stat, Some(name.clone()), name);
                    }
                });
            });
            if let Some(distribution) = self.stat.as_ref().and_then(|stat| summary.stats.get(stat)) {
                ui.label(format!(
                    "mean {:.2} · min {} · median {} · max {}",
                    distribution.mean, distribution.min, distribution.median, distribution.max
                ));
                histogram(ui, "sim_stat_histogram", distribution);
            }
        }
    }
}

/// Board play: each side's policy and wins, and per side and ability card how often it was
/// played and the side's win rate when it was and when it was not (instant wins apart).
fn abilities_ui(ui: &mut egui::Ui, summary: &Summary) {
    if summary.side_policies.is_empty() {
        return;
    }
    #[allow(clippy::cast_precision_loss)]
    let share = |count: usize, of: usize| {
        if of == 0 { "–".to_owned() } else { format!("{:.1}%", count as f64 * 100.0 / of as f64) }
    };
    ui.separator();
    ui.strong("Sides");
    egui::Grid::new("sim_sides").striped(true).show(ui, |ui| {
        for (side, policy) in &summary.side_policies {
            let wins = summary.side_wins.get(side).copied().unwrap_or(0);
            let instant = summary.instant_wins.get(side).copied().unwrap_or(0);
            ui.label(side);
            ui.label(policy);
            ui.label(format!("won {}", share(wins, summary.runs)));
            ui.label(format!("instant wins {instant}")).on_hover_text("Won at once by a Win modifier (Exodia)");
            ui.end_row();
        }
    });
    if summary.abilities.is_empty() {
        return;
    }
    ui.strong("Abilities");
    egui::Grid::new("sim_abilities").striped(true).show(ui, |ui| {
        for title in ["side / card", "played in", "plays", "won when played", "won when not", "instant wins"] {
            ui.label(RichText::new(title).weak());
        }
        ui.end_row();
        for (key, stats) in &summary.abilities {
            ui.label(key);
            ui.label(share(stats.runs_played, summary.runs));
            ui.label(stats.plays.to_string());
            ui.label(share(stats.wins_played, stats.runs_played));
            ui.label(share(stats.wins_not_played, stats.runs_not_played));
            ui.label(format!("{} / {}", stats.instant_wins_played, stats.instant_wins_not_played))
                .on_hover_text("Instant wins (Exodia) when played / when not");
            ui.end_row();
        }
    });
}

/// A bar per key, as a share of the runs.
fn counts_chart(ui: &mut egui::Ui, id: &str, counts: &std::collections::BTreeMap<String, usize>, runs: usize) {
    #[allow(clippy::cast_precision_loss)]
    let bars: Vec<egui_plot::Bar> = counts
        .iter()
        .enumerate()
        .map(|(at, (name, count))| {
            egui_plot::Bar::new(at as f64, *count as f64 * 100.0 / runs.max(1) as f64).name(name).width(0.7)
        })
        .collect();
    let names: Vec<String> = counts.keys().cloned().collect();
    egui_plot::Plot::new(id)
        .height(130.0)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .y_axis_label("% of runs")
        .x_axis_formatter(move |mark, _| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let at = mark.value.round() as usize;
            if (mark.value - mark.value.round()).abs() < 1e-6 {
                names.get(at).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .show(ui, |plot| plot.bar_chart(egui_plot::BarChart::new("runs", bars)));
}

/// A distribution's histogram.
fn histogram(ui: &mut egui::Ui, id: &str, distribution: &Distribution) {
    if distribution.count == 0 {
        ui.label(RichText::new("no value").weak());
        return;
    }
    #[allow(clippy::cast_precision_loss)]
    let bars: Vec<egui_plot::Bar> = distribution
        .histogram
        .iter()
        .map(|(low, high, runs)| {
            let width = (high - low).max(0.5);
            egui_plot::Bar::new((low + high) / 2.0, *runs as f64)
                .width(width * 0.95)
                .name(format!("{low:.1}–{high:.1}"))
        })
        .collect();
    egui_plot::Plot::new(id)
        .height(110.0)
        .allow_zoom(false)
        .allow_drag(false)
        .allow_scroll(false)
        .y_axis_label("runs")
        .show(ui, |plot| plot.bar_chart(egui_plot::BarChart::new("runs", bars)));
}

/// How a dead id finds the item to open.
type KeyOf<'a> = dyn Fn(&str) -> Option<ItemKey> + 'a;

/// The dead content, each id a link to its item.
fn dead_ui(ui: &mut egui::Ui, summary: &Summary, project: Option<&Project>, select: &mut Vec<ItemKey>) {
    let dead = &summary.dead;
    ui.strong(format!("{}  Never reached in {} runs", icon::SKULL, summary.runs));
    if dead.is_empty() {
        ui.label(RichText::new("Nothing: every act, card, option, skill, node, era and grade was reached.").weak());
        return;
    }
    let node_map = |node: &str| {
        project.and_then(|project| {
            project
                .node_maps
                .iter()
                .find(|map| map.nodes.iter().any(|n| n.id.as_str() == node))
                .map(|map| map.id.to_string())
        })
    };
    // The map whose grades they are: the project's entry node map.
    let campaign_map = project
        .and_then(|project| project.manifest.entry.node_map.as_ref())
        .map(|map| ItemKey::new(Kind::NodeMap, map.as_str()));
    // The synthesis whose revelations they are: the campaign map's.
    let synthesis = project
        .zip(campaign_map.as_ref())
        .and_then(|(project, map)| project.node_maps.get(map.id.as_str()))
        .and_then(|map| map.synthesis.as_ref())
        .map(|id| ItemKey::new(Kind::Synthesis, id.as_str()));
    let groups: [(&str, &Vec<String>, &KeyOf); 8] = [
        ("Acts", &dead.acts, &|id| Some(ItemKey::new(Kind::Act, id))),
        ("Cards", &dead.cards, &|id| Some(ItemKey::new(Kind::Card, id))),
        ("Options", &dead.options, &|id| id.split_once('/').map(|(card, _)| ItemKey::new(Kind::Card, card))),
        ("Skills", &dead.skills, &|id| Some(ItemKey::new(Kind::Skill, id))),
        ("Nodes", &dead.nodes, &|id| node_map(id).map(|map| ItemKey::new(Kind::NodeMap, map))),
        ("Eras", &dead.eras, &|id| Some(ItemKey::new(Kind::Era, id))),
        ("Grades never ended with", &dead.grades, &|_| campaign_map.clone()),
        ("Revelations never granted", &dead.revelations, &|_| synthesis.clone()),
    ];
    for (title, ids, key_of) in groups {
        if ids.is_empty() {
            continue;
        }
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{title}:"));
            for id in ids {
                if ui.link(id.as_str()).on_hover_text("Open this item").clicked()
                    && let Some(key) = key_of(id)
                {
                    select.push(key);
                }
            }
        });
    }
}

/// What moved since the baseline.
fn changes_ui(ui: &mut egui::Ui, changes: &[Change]) {
    ui.strong(format!("{}  Since the baseline", icon::ARROWS_LEFT_RIGHT));
    if changes.is_empty() {
        ui.label(RichText::new("Nothing moved.").weak());
        return;
    }
    egui::Grid::new("sim_changes").striped(true).show(ui, |ui| {
        for change in changes {
            ui.label(change.what.as_str());
            ui.label(format!("{:.3}", change.before));
            ui.label(format!("{:.3}", change.after));
            let delta = change.after - change.before;
            let colour =
                if delta > 0.0 { egui::Color32::from_rgb(90, 170, 90) } else { egui::Color32::from_rgb(200, 90, 80) };
            ui.label(RichText::new(format!("{delta:+.3}")).color(colour));
            ui.end_row();
        }
    });
}
