//! The preview's game: a runtime [`Session`] on the compiled document, the designer's inputs as
//! playtest lines (FORMAT.md §7), and deterministic replay of those inputs after every edit and
//! every jump back in the log. No egui here: the logic is tested headless.

use std::collections::BTreeSet;
use std::sync::Arc;

use actforge_runtime::Project;
use actforge_runtime::engine::{Choice, Content, Session, Status};
use actforge_runtime::model::{ActId, Id, MapNode};

/// The speeds the preview plays at (game seconds per real second).
pub const SPEEDS: [u32; 3] = [1, 2, 10];

/// Most event lines kept for the events list.
const EVENTS_KEPT: usize = 200;

/// Engine steps (actions, expiries, act completions) a replay may take before it is cut: each
/// step is bounded by the engine, but a long log on content that loops would otherwise hold
/// the editor's frame for seconds after every edit.
pub const REPLAY_BUDGET: u64 = 2_000_000;

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
    pub fn sync(&mut self, project: &Project, revision: u64) {
        if self.compiled_revision == Some(revision) {
            return;
        }
        self.compiled_revision = Some(revision);
        match Content::compile(project.clone()) {
            Ok(content) => {
                self.errors.clear();
                self.content = Some(Arc::new(content));
                self.replay();
            }
            Err(error) => {
                self.errors = error.problems.iter().map(ToString::to_string).collect();
                self.playing = false;
            }
        }
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

    /// Builds a new session and plays the start line and the first `played` inputs onto it; an input
    /// that no longer applies restarts the game with a notice saying why.
    fn replay(&mut self) {
        let Some(content) = &self.content else { return };
        let mut session = Session::from_content(Arc::clone(content), self.seed);
        let mut events = Vec::new();
        let mut path = Vec::new();
        note_node(&session, &mut path);
        if let Some(start) = &self.start
            && let Err(why) = run_line(&mut session, start, &mut events)
        {
            self.notice = Some(format!("Could not start from `{start}`: {why}. Playing from the start instead."));
            self.start = None;
            self.log.clear();
            self.played = 0;
            session = Session::from_content(Arc::clone(content), self.seed);
        }
        for (index, line) in self.log.iter().take(self.played).enumerate() {
            let work = session.counters();
            if work.steps.saturating_add(work.act_completions) > self.replay_budget {
                // Cut, not restarted: every input stays in the log, past the jump-back point.
                self.notice = Some(format!(
                    "The replay was cut at input {index} of {}: the content did more than {} steps of play to get \
                     there (a loop that runs without the player?). The game shows the state after input {index}; \
                     the later inputs are kept in the log.",
                    self.played, self.replay_budget
                ));
                self.played = index;
                self.playing = false;
                break;
            }
            if let Err(why) = run_line(&mut session, line, &mut events) {
                self.notice = Some(format!(
                    "Restarted: input {} `{line}` no longer applies to the edited content ({why}).",
                    index + 1
                ));
                self.log.clear();
                self.played = 0;
                self.playing = false;
                session = Session::from_content(Arc::clone(content), self.seed);
                events.clear();
                path.clear();
                note_node(&session, &mut path);
                break;
            }
            note_node(&session, &mut path);
        }
        trim_events(&mut events);
        self.events = events;
        self.node_path = path;
        self.session = Some(session);
    }

    /// Gives the game one input (a playtest line). An input after a jump back drops the inputs
    /// that followed. A refused input changes nothing and leaves a notice.
    pub fn input(&mut self, line: &str) -> bool {
        let Some(session) = &mut self.session else { return false };
        let mut trial = session.clone();
        let mut events = Vec::new();
        match run_line(&mut trial, line, &mut events) {
            Ok(()) => {
                *session = trial;
                self.log.truncate(self.played);
                let merged = merge_wait(self.log.last(), line);
                match (merged, self.log.last_mut()) {
                    (Some(total), Some(last)) => *last = total,
                    _ => self.log.push(line.to_owned()),
                }
                self.played = self.log.len();
                self.notice = None;
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
        if !self.playing {
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
