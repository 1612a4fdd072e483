//! The preview's game: a runtime [`Session`] on the compiled document, the designer's inputs as
//! playtest lines (FORMAT.md §7), and deterministic replay of those inputs after every edit and
//! every jump back in the log. No egui here: the logic is tested headless.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use actforge_runtime::engine::{Choice, Content, Session, Status};
use actforge_runtime::model::{ActId, Id, MapNode};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::Validation;
use actforge_runtime::{Kind, Project};

use crate::document::Document;

/// The speeds the preview plays at (game seconds per real second).
pub const SPEEDS: [u32; 3] = [1, 2, 10];

/// Most event lines kept for the events list.
const EVENTS_KEPT: usize = 200;

/// A playing preview's time between frames when nothing counts down: only the clock label
/// moves, and two frames a second show it (a frame every tick cost most of a core on llvmpipe).
pub const CLOCK_FRAME: Duration = Duration::from_millis(500);

/// Engine steps (actions, expiries, act completions) a replay may take before it is cut: each
/// step is bounded by the engine, but a long log on content that loops would otherwise hold
/// the editor's frame for seconds after every edit.
pub const REPLAY_BUDGET: u64 = 2_000_000;

/// Engine steps one input given live may take (the frame waits for it): a longer wait is cut
/// where it got to and logged as the time that passed.
pub const INPUT_BUDGET: u64 = 100_000;

/// What the graph views highlight for a running preview.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PreviewHighlight {
    /// Acts running (or ready) in a window now.
    pub acts: BTreeSet<ActId>,
    /// The campaign's current node.
    pub node: Option<Id<MapNode>>,
    /// The nodes the campaign walked through, in order (the current one last).
    pub path: Vec<Id<MapNode>>,
}

/// The preview's game and its input log (editor state, not part of the document).
pub struct PreviewGame {
    content: Option<Arc<Content>>,
    /// The document revision last compiled.
    compiled_revision: Option<u64>,
    /// Why the current revision did not compile (the preview keeps the last good game).
    errors: Vec<String>,
    session: Option<Session>,
    seed: u64,
    /// Every input the designer gave, as playtest lines (`slot basket hedgerow`, `wait 30`…).
    log: Vec<String>,
    /// How many inputs of the log the session has played (less than `log.len()` after a jump back).
    played: usize,
    /// A line run before the log, e.g. `run forage` for "play from here".
    start: Option<String>,
    playing: bool,
    speed: u32,
    /// Ticks owed to the clock but not yet whole.
    tick_fraction: f64,
    /// Why the game restarted or an input was refused (shown until the next input).
    notice: Option<String>,
    /// The script log of what happened, newest last.
    events: Vec<String>,
    /// The campaign nodes walked through.
    node_path: Vec<Id<MapNode>>,
    /// Engine steps a replay may take ([`REPLAY_BUDGET`]).
    replay_budget: u64,
    /// The thread that compiles and replays, started with the first job.
    worker: Option<Worker>,
    /// The job whose result the game waits for, if any.
    pending: Option<Pending>,
    /// Inputs given while a job ran: played onto its result, in order.
    queued: Vec<String>,
    /// How long a frame waits for a job before showing the old game as busy (`None`: until
    /// it is done, so library callers and tests see the result at once).
    foreground_wait: Option<Duration>,
    /// Called from the worker when a result is ready (the editor asks for a repaint).
    waker: Option<Waker>,
    /// The language the game plays in (empty: the source language; or the pseudo-locale).
    language: String,
}

/// Called from the worker thread when a result is ready.
pub type Waker = Arc<dyn Fn() + Send + Sync>;

/// A compile-and-replay job the game waits for.
struct Pending {
    generation: u64,
    /// Set by [`PreviewGame::stop`]: the worker returns the game at the input it reached.
    stop: Arc<AtomicBool>,
    started: Instant,
    compiling: bool,
}

/// The worker thread's end of the preview: jobs go in, results come out. Dropping it ends the
/// thread once its job is done.
struct Worker {
    jobs: mpsc::Sender<Job>,
    results: mpsc::Receiver<JobResult>,
    /// The newest job's generation: an older job still running gives up at its next input.
    latest: Arc<AtomicU64>,
}

/// Compile (when `project` is given) and replay the log onto the content.
/// The items changed since an earlier revision: that revision and the items (kind, id).
type Delta = (u64, Vec<(Kind, String)>);

/// A project revision to compile: the project, its revision and the changes since the last one.
type ToCompile = (Project, u64, Option<Delta>);

/// Items by kind and id.
type ItemSet = BTreeSet<(Kind, String)>;

struct Job {
    generation: u64,
    project: Option<Project>,
    /// The language to play `project` in (empty: as written).
    language: String,
    /// The document revision of `project`.
    revision: u64,
    /// The items changed since an earlier revision compiled, so the worker validates again
    /// only what the edit touched.
    delta: Option<Delta>,
    content: Option<Arc<Content>>,
    seed: u64,
    start: Option<String>,
    /// The inputs to play (the log up to the played point).
    inputs: Vec<String>,
    budget: u64,
    stop: Arc<AtomicBool>,
    waker: Option<Waker>,
}

/// What a job did.
struct JobResult {
    generation: u64,
    /// The replayed game, or why the project did not compile.
    outcome: Result<Replayed, Vec<String>>,
}

/// A replay's game and what it had to change in the log.
struct Replayed {
    content: Arc<Content>,
    session: Session,
    events: Vec<String>,
    path: Vec<Id<MapNode>>,
    /// Why the replay did not play every input (shown as the notice).
    notice: Option<String>,
    /// The start line no longer applied and was dropped with the log.
    start_dropped: bool,
    /// An input no longer applied: the game restarted with an empty log.
    restarted: bool,
    /// Inputs played (fewer than given when cut or stopped; the rest stay in the log).
    played: usize,
}

impl Default for PreviewGame {
    fn default() -> Self {
        Self {
            content: None,
            compiled_revision: None,
            errors: Vec::new(),
            session: None,
            seed: 1,
            log: Vec::new(),
            played: 0,
            start: None,
            playing: false,
            speed: 1,
            tick_fraction: 0.0,
            notice: None,
            events: Vec::new(),
            node_path: Vec::new(),
            replay_budget: REPLAY_BUDGET,
            worker: None,
            pending: None,
            queued: Vec::new(),
            foreground_wait: None,
            waker: None,
            language: String::new(),
        }
    }
}

impl PreviewGame {
    /// The running session, once the content compiled.
    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// Why the document's current revision does not compile (empty when it does).
    pub fn errors(&self) -> &[String] {
        &self.errors
    }

    /// Why the game restarted or the last input was refused.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Takes the notice away (its words are shown elsewhere, e.g. at the field that caused it).
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// Every input given, including any past the jump-back point.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// How many inputs of the log are played.
    pub fn played(&self) -> usize {
        self.played
    }

    /// What happened, as script log lines, newest last.
    pub fn events(&self) -> &[String] {
        &self.events
    }

    /// The seed the game starts from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Whether the clock runs by itself.
    pub fn is_playing(&self) -> bool {
        self.playing
    }

    /// Game seconds per real second.
    pub fn speed(&self) -> u32 {
        self.speed
    }

    /// The line run before the log ("play from here"), if any.
    pub fn start_line(&self) -> Option<&str> {
        self.start.as_deref()
    }

    /// Compiles `project` when `revision` is new and replays the inputs onto the new content so
    /// the game keeps its place. Content with errors keeps the last good game and lists them.
    /// The work runs on the worker thread; the frame waits for it at most the foreground wait.
    pub fn sync(&mut self, project: &Project, revision: u64) {
        if self.compiled_revision == Some(revision) {
            return;
        }
        self.compiled_revision = Some(revision);
        self.send_job(Some((project.clone(), revision, None)));
    }

    /// As [`Self::sync`] for `document`'s current revision: after an edit, only the items it
    /// changed (and those that read them) are validated again.
    pub fn sync_document(&mut self, document: &Document) {
        let revision = document.revision();
        if self.compiled_revision == Some(revision) {
            return;
        }
        let delta = self.compiled_revision.and_then(|base| {
            let changes = document.changes_since(base)?;
            // New translations change texts of any item: compile whole.
            if changes.locales && !self.language.is_empty() {
                return None;
            }
            Some((base, changes.items.into_iter().map(|key| (key.kind, key.id)).collect()))
        });
        self.compiled_revision = Some(revision);
        self.send_job(Some((document.project().clone(), revision, delta)));
    }

    /// The language the game plays in (empty: the source language).
    pub fn language(&self) -> &str {
        &self.language
    }

    /// Plays in `language` (a language of the project, the pseudo-locale, or empty for the
    /// source language) from the next sync on: the content compiles again and the inputs
    /// replay, so the game keeps its place.
    pub fn set_language(&mut self, language: &str) {
        if self.language != language {
            language.clone_into(&mut self.language);
            self.compiled_revision = None;
        }
    }

    /// How long a call waits for the worker before returning with the job still running
    /// (`None`, the default: until it is done). The editor window waits a few milliseconds, so a
    /// quick replay shows at once and a slow one shows the old game marked busy.
    pub fn set_foreground_wait(&mut self, wait: Option<Duration>) {
        self.foreground_wait = wait;
    }

    /// Sets what the worker calls when a result is ready (the editor asks egui for a frame).
    pub fn set_waker(&mut self, waker: Waker) {
        self.waker = Some(waker);
    }

    /// Whether a waker is set.
    pub fn has_waker(&self) -> bool {
        self.waker.is_some()
    }

    /// While a job runs: how long it has run and whether it compiles (else it only replays).
    pub fn busy(&self) -> Option<(Duration, bool)> {
        self.pending.as_ref().map(|pending| (pending.started.elapsed(), pending.compiling))
    }

    /// Inputs given while a job runs, to be played onto its result.
    pub fn queued(&self) -> &[String] {
        &self.queued
    }

    /// Asks the running job to stop at the next input: the game shows the state it reached and
    /// the later inputs stay in the log.
    pub fn stop(&self) {
        if let Some(pending) = &self.pending {
            pending.stop.store(true, Ordering::Relaxed);
        }
    }

    /// Takes a finished job's result, if any (the editor calls it every frame).
    pub fn poll(&mut self) {
        self.wait(Some(Duration::ZERO));
    }

    /// Waits up to `timeout` (`None`: without limit) for the pending job, applying its result.
    pub fn wait(&mut self, timeout: Option<Duration>) {
        let deadline = timeout.and_then(|timeout| Instant::now().checked_add(timeout));
        while let Some(pending) = &self.pending {
            let Some(worker) = &self.worker else {
                self.pending = None;
                break;
            };
            let result = match deadline {
                None => worker.results.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                Some(deadline) => worker.results.recv_timeout(deadline.saturating_duration_since(Instant::now())),
            };
            match result {
                Ok(result) if result.generation == pending.generation => {
                    self.pending = None;
                    self.apply(result.outcome);
                }
                // An older job's result: a newer one is on its way.
                Ok(_) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => break,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    // The worker died (it cannot panic on content, but say so if it does).
                    self.pending = None;
                    self.worker = None;
                    self.queued.clear();
                    self.notice =
                        Some("The preview's worker stopped unexpectedly; edit or restart to try again.".into());
                }
            }
        }
    }

    /// Hands a job to the worker (compiling `project` when given) and waits the foreground wait.
    fn send_job(&mut self, project: Option<ToCompile>) {
        if project.is_none() && self.content.is_none() {
            return;
        }
        if project.is_none() && self.pending.as_ref().is_some_and(|pending| pending.compiling) {
            // The running job compiles an edit: replaying the old content now would lose it.
            // Forget the revision so the next sync compiles again with these inputs.
            self.compiled_revision = None;
            return;
        }
        let worker = self.worker.get_or_insert_with(Worker::spawn);
        let generation = worker.latest.load(Ordering::Relaxed).wrapping_add(1);
        worker.latest.store(generation, Ordering::Relaxed);
        if let Some(older) = &self.pending {
            // The older job is superseded: end its current wait at once.
            older.stop.store(true, Ordering::Relaxed);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let compiling = project.is_some();
        let (project, revision, delta) = match project {
            Some((project, revision, delta)) => (Some(project), revision, delta),
            None => (None, 0, None),
        };
        let job = Job {
            generation,
            project,
            language: self.language.clone(),
            revision,
            delta,
            content: self.content.clone(),
            seed: self.seed,
            start: self.start.clone(),
            inputs: self.log.iter().take(self.played).cloned().collect(),
            budget: self.replay_budget,
            stop: Arc::clone(&stop),
            waker: self.waker.clone(),
        };
        if worker.jobs.send(job).is_err() {
            self.worker = None;
            self.notice = Some("The preview's worker stopped unexpectedly; edit or restart to try again.".into());
            return;
        }
        self.pending = Some(Pending { generation, stop, started: Instant::now(), compiling });
        self.wait(self.foreground_wait);
    }

    /// Forgets the compiled content so the next [`Self::sync`] compiles again (another project opened).
    pub fn reset(&mut self) {
        *self = Self { seed: self.seed, speed: self.speed, ..Self::default() };
    }

    /// Starts over from the entry with an empty log.
    pub fn restart(&mut self) {
        self.log.clear();
        self.played = 0;
        self.start = None;
        self.notice = None;
        self.replay();
    }

    /// Starts over from `line` (e.g. `run ACT` or `place NODE`) with an empty log.
    pub fn play_from(&mut self, line: String) {
        self.log.clear();
        self.played = 0;
        self.start = Some(line);
        self.notice = None;
        self.replay();
    }

    /// Plays the game again from `seed` with the same inputs.
    pub fn set_seed(&mut self, seed: u64) {
        if seed != self.seed {
            self.seed = seed;
            self.replay();
        }
    }

    /// Sets how many engine steps a replay may take (tests use a small one).
    pub fn set_replay_budget(&mut self, steps: u64) {
        self.replay_budget = steps;
    }

    /// Sets the speed (one of [`SPEEDS`]).
    pub fn set_speed(&mut self, speed: u32) {
        self.speed = speed.clamp(1, 100);
    }

    /// Starts or stops the clock.
    pub fn set_playing(&mut self, playing: bool) {
        self.playing = playing && self.session.is_some();
        self.tick_fraction = 0.0;
    }

    /// Plays the first `count` inputs again from the start: a jump back (or forward again) in the log.
    pub fn jump_to(&mut self, count: usize) {
        self.played = count.min(self.log.len());
        self.playing = false;
        self.replay();
    }

    /// Plays the start line and the first `played` inputs again on the current content (on the
    /// worker thread, as [`Self::sync`]).
    fn replay(&mut self) {
        self.send_job(None);
    }

    /// Takes a job's result: the replayed game, or the errors that kept the last good game.
    fn apply(&mut self, outcome: Result<Replayed, Vec<String>>) {
        match outcome {
            Ok(replayed) => {
                self.errors.clear();
                self.content = Some(replayed.content);
                self.session = Some(replayed.session);
                self.events = replayed.events;
                self.node_path = replayed.path;
                if replayed.start_dropped {
                    self.start = None;
                }
                if replayed.restarted || replayed.start_dropped {
                    self.log.clear();
                }
                if replayed.played < self.played || replayed.restarted || replayed.start_dropped {
                    self.playing = false;
                }
                self.played = replayed.played.min(self.log.len());
                if replayed.notice.is_some() {
                    self.notice = replayed.notice;
                }
            }
            Err(errors) => {
                self.errors = errors;
                self.playing = false;
            }
        }
        let queued = std::mem::take(&mut self.queued);
        if self.played < self.log.len() && !queued.is_empty() {
            // Played after a cut they would drop the inputs not replayed; keep the log instead.
            let count = queued.len();
            let inputs =
                if count == 1 { "input given during the replay was" } else { "inputs given during the replay were" };
            let notice = self.notice.take().unwrap_or_default();
            self.notice = Some(format!(
                "{notice} The {count} {inputs} not played, so that the log keeps the inputs after the cut."
            ));
            return;
        }
        for line in queued {
            self.input(&line);
        }
    }

    /// Gives the game one input (a playtest line). An input after a jump back drops the inputs
    /// that followed. A refused input changes nothing and leaves a notice.
    pub fn input(&mut self, line: &str) -> bool {
        if self.pending.is_some() {
            // The shown game is about to be replaced: play the input onto the new one.
            self.queued.push(line.to_owned());
            return true;
        }
        let Some(session) = &mut self.session else { return false };
        let mut trial = session.clone();
        let work = trial.counters();
        trial.set_step_limit(work.steps.saturating_add(work.act_completions).saturating_add(INPUT_BUDGET));
        let tick_before = trial.state().tick;
        let mut events = Vec::new();
        match run_line(&mut trial, line, &mut events) {
            Ok(()) => {
                let cut = trial.over_step_limit().then(|| {
                    // A cut wait is logged as the time that passed, so a replay reaches this state.
                    let waited = trial.state().tick.saturating_sub(tick_before);
                    let logged =
                        if line.trim_start().starts_with("wait ") { format!("wait {waited}") } else { line.to_owned() };
                    let notice = format!(
                        "`{line}` was cut after {INPUT_BUDGET} steps of play, {waited} ticks in (a loop that runs \
                         without the player?); the log keeps `{logged}`."
                    );
                    (logged, notice)
                });
                trial.set_step_limit(u64::MAX);
                let (line, notice) = match &cut {
                    Some((logged, notice)) => (logged.as_str(), Some(notice.clone())),
                    None => (line, None),
                };
                *session = trial;
                self.log.truncate(self.played);
                let merged = merge_wait(self.log.last(), line);
                match (merged, self.log.last_mut()) {
                    (Some(total), Some(last)) => *last = total,
                    _ => self.log.push(line.to_owned()),
                }
                self.played = self.log.len();
                self.notice = notice;
                if self.notice.is_some() {
                    self.playing = false;
                }
                self.events.append(&mut events);
                trim_events(&mut self.events);
                note_node(session, &mut self.node_path);
                if session.state().outcome.is_some() {
                    self.playing = false;
                }
                true
            }
            Err(why) => {
                self.notice = Some(format!("`{line}` is not possible: {why}"));
                false
            }
        }
    }

    /// Applies a choice of the session as its playtest line.
    pub fn choose(&mut self, choice: &Choice) -> bool {
        let Some(session) = &self.session else { return false };
        let line = session.describe_choice(choice);
        self.input(&line)
    }

    /// Moves the clock to the next timer or decay expiry (one game second when nothing is due).
    pub fn step(&mut self) {
        let Some(session) = &self.session else { return };
        let per_second = u64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
        let ticks = session.next_due().map_or(per_second, |due| due.saturating_sub(session.state().tick).max(1));
        self.input(&format!("wait {ticks}"));
    }

    /// Runs the clock for `seconds` of real time while playing; returns whether time moved.
    pub fn tick_clock(&mut self, seconds: f64) -> bool {
        if !self.playing || self.pending.is_some() {
            return false;
        }
        let Some(session) = &self.session else { return false };
        let per_second = f64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
        self.tick_fraction += seconds.max(0.0) * f64::from(self.speed) * per_second;
        let whole = self.tick_fraction.floor();
        if whole < 1.0 {
            return false;
        }
        self.tick_fraction -= whole;
        self.input(&format!("wait {}", whole as u64))
    }

    /// While playing, the real time until the next frame shows something new (none while
    /// paused, or while the worker replays, when the clock waits). The game changes by itself
    /// only on ticks: the next frame comes at the tick something is due (an act ends, a decay
    /// runs out), at the tick a countdown drawn last looks different (`shown_change_in` ticks
    /// from now: its text, or its bar by a point), and at least every [`CLOCK_FRAME`] for the
    /// clock label.
    pub fn until_next_frame(&self, shown_change_in: Option<u64>) -> Option<Duration> {
        let next_tick = self.until_next_tick()?;
        let session = self.session.as_ref()?;
        let due_in = session.next_due().map(|due| due.saturating_sub(session.state().tick));
        let clock = next_tick.max(CLOCK_FRAME);
        let Some(ticks) = [due_in, shown_change_in].into_iter().flatten().min() else { return Some(clock) };
        let per_second = f64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
        let tick_time = Duration::from_secs_f64(1.0 / (per_second * f64::from(self.speed.max(1))));
        // The first of those ticks is `next_tick` away, each later one a tick's time further.
        let until =
            next_tick.saturating_add(tick_time.saturating_mul(u32::try_from(ticks.max(1) - 1).unwrap_or(u32::MAX)));
        Some(until.min(clock))
    }

    /// While playing, the real time until the next whole tick is due. None when paused.
    pub fn until_next_tick(&self) -> Option<Duration> {
        if !self.playing || self.pending.is_some() {
            return None;
        }
        let session = self.session.as_ref()?;
        let per_second = f64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
        let ticks_per_real_second = per_second * f64::from(self.speed.max(1));
        let left = (1.0 - self.tick_fraction).clamp(0.0, 1.0);
        Some(Duration::from_secs_f64(left / ticks_per_real_second))
    }

    /// The inputs played so far as a playtest script `actforge play` runs.
    pub fn playtest_script(&self, project_name: &str) -> String {
        let mut script = format!(
            "# Recorded in the Actforge preview: {project_name}.\n\
             # Run with: actforge play <project> <this file> (the seed line sets the seed)\n\
             seed {}\n",
            self.seed
        );
        if let Some(start) = &self.start {
            script.push_str(start);
            script.push('\n');
        }
        for line in self.log.iter().take(self.played) {
            script.push_str(line);
            script.push('\n');
        }
        script
    }

    /// What the graph views should highlight now.
    pub fn highlight(&self) -> PreviewHighlight {
        let Some(session) = &self.session else { return PreviewHighlight::default() };
        let mut acts = BTreeSet::new();
        for window in session.state().windows.values() {
            if let Some(act) = &window.active {
                acts.insert(act.clone());
            }
            if let Status::Ready(act) = &window.status {
                acts.insert(act.clone());
            }
        }
        let node = session.campaign().map(|campaign| campaign.node.clone());
        PreviewHighlight { acts, node, path: self.node_path.clone() }
    }
}

impl Worker {
    /// Starts the thread. It takes the newest job waiting (older ones are superseded), runs it
    /// and sends the result; it ends when the game drops its end of the channel.
    fn spawn() -> Self {
        let (jobs, job_receiver) = mpsc::channel::<Job>();
        let (result_sender, results) = mpsc::channel();
        let latest = Arc::new(AtomicU64::new(0));
        let newest = Arc::clone(&latest);
        let spawned = std::thread::Builder::new().name("actforge-preview".into()).spawn(move || {
            let mut state = WorkerState::default();
            while let Ok(mut job) = job_receiver.recv() {
                while let Ok(newer) = job_receiver.try_recv() {
                    job = superseded_by(job, newer);
                }
                let (generation, waker) = (job.generation, job.waker.clone());
                let Some(outcome) = run_job(job, &newest, &mut state) else { continue };
                if result_sender.send(JobResult { generation, outcome }).is_err() {
                    break;
                }
                if let Some(waker) = waker {
                    waker();
                }
            }
        });
        if spawned.is_err() {
            // No thread (the system refused one): the channel is closed, and the first wait
            // says the worker stopped.
            return Self { jobs: mpsc::channel().0, results, latest };
        }
        Self { jobs, results, latest }
    }
}

/// `newer`, which replaces `older` before it ran: an edit `older` compiled is carried over
/// (its changed items join `newer`'s) so that `newer`'s changes still start from a revision
/// the worker validated.
fn superseded_by(older: Job, mut newer: Job) -> Job {
    match (&older.project, &newer.project) {
        (Some(_), Some(_)) => {
            newer.delta = match (older.delta, newer.delta.take()) {
                (Some((base, mut items)), Some((from, more))) if from == older.revision => {
                    items.extend(more);
                    Some((base, items))
                }
                _ => None,
            };
            newer
        }
        // A replay of the content `older` was to compile: compile it, with the newer inputs.
        (Some(_), None) => Job { project: older.project, revision: older.revision, delta: older.delta, ..newer },
        _ => newer,
    }
}

/// What the worker keeps between jobs, so that an edit validates and compiles only what it
/// changed.
#[derive(Default)]
struct WorkerState {
    /// The validation of the last revision validated, and that revision.
    validated: Option<(Validation, u64)>,
    /// The last content compiled and the items changed since (edits with errors do not compile).
    compiled: Option<(Arc<Content>, ItemSet)>,
}

/// Validates `project` (bringing the kept validation up to date when `delta` starts from its
/// revision, else anew) and compiles it (recompiling the kept content when the changes since
/// it are known, else whole).
fn compile(
    project: Project,
    revision: u64,
    delta: Option<Delta>,
    state: &mut WorkerState,
) -> Result<Arc<Content>, actforge_runtime::engine::ContentError> {
    let sources = Sources::default();
    let validation = match (state.validated.take(), delta) {
        (Some((mut validation, at)), Some((base, items))) if at == base => {
            validation.update(&project, &sources, None, items.iter().map(|(kind, id)| (*kind, id.as_str())));
            if let Some((_, since)) = &mut state.compiled {
                since.extend(items);
            }
            validation
        }
        _ => {
            state.compiled = None;
            Validation::new(&project, &sources, None)
        }
    };
    let compiled = match &state.compiled {
        Some((content, since)) => {
            Content::recompile(content, &project, since.iter().map(|(kind, id)| (*kind, id.as_str())), &validation)
        }
        None => Content::compile_validated(project, &validation),
    };
    state.validated = Some((validation, revision));
    let content = Arc::new(compiled?);
    state.compiled = Some((Arc::clone(&content), BTreeSet::new()));
    Ok(content)
}

/// `project` in `language` (empty: as written).
fn localise(project: Project, language: &str) -> Project {
    if language.is_empty() { project } else { actforge_runtime::locale::localised(&project, language) }
}

/// Compiles (when asked) and replays; `None` when a newer job superseded this one.
fn run_job(job: Job, latest: &AtomicU64, state: &mut WorkerState) -> Option<Result<Replayed, Vec<String>>> {
    let superseded = || latest.load(Ordering::Relaxed) != job.generation;
    let content = match job.project {
        Some(project) => match compile(localise(project, &job.language), job.revision, job.delta, state) {
            Ok(content) => content,
            Err(error) => return Some(Err(error.problems.iter().map(ToString::to_string).collect())),
        },
        None => job.content?,
    };
    if superseded() {
        return None;
    }
    let fresh = |content: &Arc<Content>| {
        let mut session = Session::from_content(Arc::clone(content), job.seed);
        session.set_step_limit(job.budget);
        // Stop (or a newer job) ends a long wait early; the replay then says where it stopped.
        session.set_interrupt(Some(Arc::clone(&job.stop)));
        session
    };
    let mut session = fresh(&content);
    let mut events = Vec::new();
    let mut path = Vec::new();
    note_node(&session, &mut path);
    if let Some(start) = &job.start
        && let Err(why) = run_line(&mut session, start, &mut events)
    {
        let mut session = fresh(&content);
        session.set_step_limit(u64::MAX);
        session.set_interrupt(None);
        return Some(Ok(Replayed {
            content,
            session,
            events: Vec::new(),
            path,
            notice: Some(format!("Could not start from `{start}`: {why}. Playing from the start instead.")),
            start_dropped: true,
            restarted: false,
            played: 0,
        }));
    }
    let total = job.inputs.len();
    let (mut notice, mut restarted, mut played) = (None, false, total);
    for (index, line) in job.inputs.iter().enumerate() {
        if superseded() {
            return None;
        }
        if job.stop.load(Ordering::Relaxed) {
            notice = Some(stopped_notice(index, total));
            played = index;
            break;
        }
        if session.over_step_limit() {
            // Cut, not restarted: every input stays in the log, past the jump-back point.
            notice = Some(cut_notice(index, total, job.budget));
            played = index;
            break;
        }
        if let Err(why) = run_line(&mut session, line, &mut events) {
            notice = Some(format!(
                "Restarted: input {} `{line}` no longer applies to the edited content ({why}).",
                index + 1
            ));
            restarted = true;
            played = 0;
            events.clear();
            path.clear();
            session = fresh(&content);
            note_node(&session, &mut path);
            break;
        }
        note_node(&session, &mut path);
        if superseded() {
            return None;
        }
        // The input itself may have been cut short (its wait ended early).
        let cut = session.over_step_limit();
        if cut || job.stop.load(Ordering::Relaxed) {
            notice =
                Some(if cut { cut_notice(index + 1, total, job.budget) } else { stopped_notice(index + 1, total) });
            played = index + 1;
            break;
        }
    }
    // The budget and the stop button were the replay's; the game then plays on without them.
    session.set_step_limit(u64::MAX);
    session.set_interrupt(None);
    trim_events(&mut events);
    Some(Ok(Replayed { content, session, events, path, notice, start_dropped: false, restarted, played }))
}

fn stopped_notice(index: usize, total: usize) -> String {
    format!(
        "The replay was stopped at input {index} of {total} (a long wait may have ended early). The game shows the \
         state it reached; the later inputs are kept in the log."
    )
}

fn cut_notice(index: usize, total: usize, budget: u64) -> String {
    format!(
        "The replay was cut at input {index} of {total}: the content did more than {budget} steps of play to get \
         there (a loop that runs without the player?). The game shows the state after input {index}; the later \
         inputs are kept in the log."
    )
}

/// Runs one playtest line, collecting its log lines into `events`.
fn run_line(session: &mut Session, line: &str, events: &mut Vec<String>) -> Result<(), String> {
    let report = session.run_script(line).map_err(|error| error.message)?;
    events.extend(report.log);
    Ok(())
}

/// `wait A` then `wait B` is `wait A+B` (waiting is additive: the clock processes every expiry
/// in between either way), so a running clock leaves one log entry, not one per frame.
fn merge_wait(last: Option<&String>, line: &str) -> Option<String> {
    let waited = |text: &str| text.strip_prefix("wait ").and_then(|ticks| ticks.parse::<u64>().ok());
    let (before, now) = (waited(last?)?, waited(line)?);
    Some(format!("wait {}", before.saturating_add(now)))
}

fn trim_events(events: &mut Vec<String>) {
    let excess = events.len().saturating_sub(EVENTS_KEPT);
    events.drain(..excess);
}

/// Adds the campaign's node to the path when it moved.
fn note_node(session: &Session, path: &mut Vec<Id<MapNode>>) {
    if let Some(campaign) = session.campaign()
        && path.last() != Some(&campaign.node)
    {
        path.push(campaign.node.clone());
    }
}
