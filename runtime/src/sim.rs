//! Monte Carlo simulation: many seeded runs of a project through the [`Session`] API, spread
//! across threads, folded into a [`Summary`] (outcomes, lengths, hit counts, dead content, stat
//! distributions) and compared with [`diff`].
//!
//! Runs are folded in run order whatever the thread count, so the same seed gives the same
//! summary on one thread or on many.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::policy::{Move, RandomPolicy};
use crate::engine::{Choice, Content, Event, Session};

pub mod shard;

/// Summary format version, written into every summary (`actforge sim --json`).
pub const SUMMARY_VERSION: u32 = 1;
/// Buckets of each histogram in a summary.
pub const HISTOGRAM_BUCKETS: usize = 12;

/// How the simulated player chooses.
#[derive(Clone, Debug, PartialEq)]
pub enum Policy {
    /// Uniformly among the legal choices, starting and collecting acts half the time.
    Random,
    /// The choice whose result scores highest; ties are broken at random. On boards the score
    /// is the mover's score minus the best other side's; elsewhere it is the given formula.
    Greedy {
        /// The formula to maximise (required outside board content).
        score: Option<String>,
    },
    /// A playtest script (FORMAT.md §7) first, then random play.
    Script(Arc<str>),
    /// Board play: the i-th policy plays the i-th entry board's side (random past the list),
    /// e.g. random against greedy.
    Sides(Vec<Policy>),
}

impl Policy {
    /// The policy's name in summaries.
    pub fn name(&self) -> String {
        match self {
            Self::Random => "random".to_owned(),
            Self::Greedy { .. } => "greedy".to_owned(),
            Self::Script(_) => "script".to_owned(),
            Self::Sides(sides) => sides.iter().map(Policy::name).collect::<Vec<_>>().join(" vs "),
        }
    }
}

/// [`SimOptions::max_steps`] unless asked otherwise: far above what a game's run does (the
/// bundled packs' longest random run takes a few thousand), far below an endless loop's.
pub const DEFAULT_MAX_STEPS: u64 = 100_000;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Number of runs.
    pub runs: usize,
    /// Seed of the first run; run `i` plays with a seed derived from it and `i`.
    pub seed: u64,
    /// The player.
    pub policy: Policy,
    /// Moves after which a run stops as `unfinished` (games such as act tables need not end).
    pub max_moves: usize,
    /// Engine steps (player actions, expiries and act completions, as [`crate::engine::Counters`]
    /// counts them) after which a run stops as `cut`: an instant-act loop does thousands of
    /// completions a move, so moves alone do not bound a run. A count, never wall-clock time, so
    /// the same seed cuts at the same place everywhere.
    pub max_steps: u64,
    /// Worker threads (0: one per core).
    pub threads: usize,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self { runs: 1000, seed: 1, policy: Policy::Random, max_moves: 2000, max_steps: DEFAULT_MAX_STEPS, threads: 0 }
    }
}

/// Shared between a running simulation and whoever watches it: runs done, and a cancel flag.
#[derive(Debug, Default)]
pub struct Progress {
    done: AtomicUsize,
    cancel: AtomicBool,
}

impl Progress {
    /// Runs finished so far.
    pub fn done(&self) -> usize {
        self.done.load(Ordering::Relaxed)
    }

    /// Asks the simulation to stop; runs not yet started are skipped.
    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// Whether [`Progress::cancel`] was called.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// Why a simulation could not run.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The options make no sense (e.g. greedy without a score for this content).
    #[error("{0}")]
    Options(String),
    /// The score formula does not compile or cannot be read from the state.
    #[error("score formula: {0}")]
    Score(String),
    /// A run's script stopped at a line.
    #[error("run {run} (seed {seed}): script line {line}: {message}")]
    Script {
        /// The run, from 0.
        run: usize,
        /// Its seed.
        seed: u64,
        /// The failing line, from 1.
        line: usize,
        /// Why.
        message: String,
    },
    /// The worker pool could not start.
    #[error("could not start {0} worker threads")]
    Threads(usize),
    /// Cancelled before every run finished.
    #[error("cancelled after {0} runs")]
    Cancelled(usize),
}

/// Minimum, maximum, mean, quartiles and a histogram of one measured value over the runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Distribution {
    /// Runs that measured it.
    pub count: usize,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Mean.
    pub mean: f64,
    /// Median (nearest rank).
    pub median: f64,
    /// 10th percentile (nearest rank).
    pub p10: f64,
    /// 90th percentile (nearest rank).
    pub p90: f64,
    /// Equal-width buckets from `min` to `max`: `(low, high, runs)`; the last includes `max`.
    pub histogram: Vec<(f64, f64, usize)>,
}

impl Distribution {
    /// The distribution of `values` (NaNs are left out).
    pub fn of(values: &[f64]) -> Self {
        let mut sorted: Vec<f64> = values.iter().copied().filter(|value| !value.is_nan()).collect();
        sorted.sort_by(f64::total_cmp);
        let (Some(&min), Some(&max)) = (sorted.first(), sorted.last()) else { return Self::default() };
        let count = sorted.len();
        let rank = |fraction: f64| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, clippy::cast_precision_loss)]
            let at = ((fraction * count as f64).ceil() as usize).clamp(1, count) - 1;
            sorted.get(at).copied().unwrap_or(min)
        };
        #[allow(clippy::cast_precision_loss)]
        let mean = sorted.iter().sum::<f64>() / count as f64;
        let buckets = if max > min { HISTOGRAM_BUCKETS } else { 1 };
        #[allow(clippy::cast_precision_loss)]
        let width = (max - min) / buckets as f64;
        let mut histogram: Vec<(f64, f64, usize)> = (0..buckets)
            .map(|bucket| {
                #[allow(clippy::cast_precision_loss)]
                let low = min + width * bucket as f64;
                (low, if bucket + 1 == buckets { max } else { low + width }, 0)
            })
            .collect();
        for value in &sorted {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let bucket = if width > 0.0 { (((value - min) / width) as usize).min(buckets - 1) } else { 0 };
            if let Some(entry) = histogram.get_mut(bucket) {
                entry.2 += 1;
            }
        }
        Self { count, min, max, mean, median: rank(0.5), p10: rank(0.1), p90: rank(0.9), histogram }
    }
}

/// Content the runs never reached, by kind (ids in id order).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeadContent {
    /// Acts no run started.
    pub acts: Vec<String>,
    /// Cards no run created, drew, rolled or played.
    pub cards: Vec<String>,
    /// Card options (`card/option`, from 1) no run played (turns and board cards).
    pub options: Vec<String>,
    /// Skills no unit used (tactics).
    pub skills: Vec<String>,
    /// Nodes of the campaign's map no run stood on.
    pub nodes: Vec<String>,
    /// Eras no campaign run reached.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub eras: Vec<String>,
    /// Grades of the campaign's map no run ended with.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grades: Vec<String>,
    /// Revelations of the campaign's synthesis no run was granted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub revelations: Vec<String>,
}

impl DeadContent {
    /// Whether nothing is dead.
    pub fn is_empty(&self) -> bool {
        self.acts.is_empty()
            && self.cards.is_empty()
            && self.options.is_empty()
            && self.skills.is_empty()
            && self.nodes.is_empty()
            && self.eras.is_empty()
            && self.grades.is_empty()
            && self.revelations.is_empty()
    }
}

/// How one board side fared with one ability card over the runs (FORMAT.md §15).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AbilityStats {
    /// Plays over all runs.
    pub plays: usize,
    /// Runs in which the side played it at least once.
    pub runs_played: usize,
    /// Of those, runs the side won (by score or at once).
    pub wins_played: usize,
    /// Of those wins, wins at once by a `Win` modifier (Knucklebones' Exodia).
    pub instant_wins_played: usize,
    /// Runs in which the side held it and never played it.
    pub runs_not_played: usize,
    /// Of those, runs the side won.
    pub wins_not_played: usize,
    /// Of those wins, wins at once.
    pub instant_wins_not_played: usize,
}

impl AbilityStats {
    /// The side's win rate in runs where it played the card (NaN without such runs).
    #[allow(clippy::cast_precision_loss)]
    pub fn win_rate_played(&self) -> f64 {
        self.wins_played as f64 / self.runs_played as f64
    }

    /// The side's win rate in runs where it held the card and never played it.
    #[allow(clippy::cast_precision_loss)]
    pub fn win_rate_not_played(&self) -> f64 {
        self.wins_not_played as f64 / self.runs_not_played as f64
    }
}

/// What a simulation found (the `actforge sim --json` document; FORMAT.md §14).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// [`SUMMARY_VERSION`].
    pub version: u32,
    /// Runs folded in.
    pub runs: usize,
    /// The first seed.
    pub seed: u64,
    /// The policy's name.
    pub policy: String,
    /// Runs per outcome: `won:SIDE`, `draw`, `ended:OUTCOME`, `stopped`, `won`/`lost` (campaigns),
    /// `unfinished` (the move cap), `cut` (the step budget: an endless loop, not a finished game).
    pub outcomes: BTreeMap<String, usize>,
    /// Runs per campaign grade (campaigns that ended with one).
    pub grades: BTreeMap<String, usize>,
    /// Moves (choices applied and waits) per run.
    pub moves: Distribution,
    /// Game time per run, in ticks (table content).
    pub ticks: Distribution,
    /// Turns begun per run (boards, tactics units, turns; days of a campaign).
    pub turns: Distribution,
    /// Engine steps (actions, expiries, act completions) per run: at most about
    /// [`SimOptions::max_steps`], since a wait past it stops where it got to.
    #[serde(default)]
    pub steps: Distribution,
    /// Act completions per act, over all runs.
    pub act_completions: BTreeMap<String, usize>,
    /// Runs in which each act started at least once.
    pub act_runs: BTreeMap<String, usize>,
    /// Runs in which each card was seen (created, drawn, rolled or played).
    pub card_runs: BTreeMap<String, usize>,
    /// Plays per card option (`card/option`), over all runs.
    pub option_plays: BTreeMap<String, usize>,
    /// Uses per skill, over all runs.
    pub skill_uses: BTreeMap<String, usize>,
    /// Runs in which the player stood on each campaign node.
    pub node_runs: BTreeMap<String, usize>,
    /// Runs in which each era began (the first era counts).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub era_runs: BTreeMap<String, usize>,
    /// Runs in which each revelation was granted.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub revelation_runs: BTreeMap<String, usize>,
    /// What no run reached.
    pub dead: DeadContent,
    /// Final value of each stat, score and unit stat, over the runs that have it.
    pub stats: BTreeMap<String, Distribution>,
    /// Board play: the policy of each side (board id → `random`, `greedy`, …).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub side_policies: BTreeMap<String, String>,
    /// Board play: runs each side won (by score or at once).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub side_wins: BTreeMap<String, usize>,
    /// Board play: runs each side won at once by a `Win` modifier (Exodia), also counted in
    /// `side_wins`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub instant_wins: BTreeMap<String, usize>,
    /// Board play: per `SIDE/CARD` of each side's starting hand, plays and win rates when
    /// played and when not.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub abilities: BTreeMap<String, AbilityStats>,
}

/// What one run did: everything [`fold`] needs of it. Shards (`actforge sim --shard`) carry
/// these, since medians and histograms do not merge from summaries (FORMAT.md §15).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    outcome: String,
    /// The run passed [`SimOptions::max_steps`].
    #[serde(default, skip_serializing_if = "is_false")]
    cut: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    grade: Option<String>,
    moves: usize,
    ticks: u64,
    turns: usize,
    steps: u64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    act_completions: BTreeMap<String, usize>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    acts_started: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    cards: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    option_plays: BTreeMap<String, usize>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    skill_uses: BTreeMap<String, usize>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    nodes: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    eras: BTreeSet<String>,
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    revelations: BTreeSet<String>,
    /// Final values; JSON has no NaN or infinity, so those are written as text.
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "stat_values")]
    stats: Vec<(String, f64)>,
    /// Board cards played per `(side's board, card)`; a list, since JSON keys are text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty", with = "board_plays")]
    board_plays: BTreeMap<(String, String), usize>,
    /// The board game's winner and whether the win was instant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    board_winner: Option<(String, bool)>,
    /// What [`simulate_from`]'s `measure` read from the final state (not in shards: `sim` has
    /// no measure).
    #[serde(skip)]
    measured: f64,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_false(value: &bool) -> bool {
    !*value
}

/// `(name, value)` lists whose values may be NaN or infinite: finite values as JSON numbers
/// (which round-trip exactly), the others as `"NaN"`, `"inf"`, `"-inf"`.
mod stat_values {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(untagged)]
    enum Value {
        Number(f64),
        Text(String),
    }

    pub(super) fn serialize<S: Serializer>(stats: &[(String, f64)], serializer: S) -> Result<S::Ok, S::Error> {
        let values: Vec<(&str, Value)> = stats
            .iter()
            .map(|(name, value)| {
                let value = if value.is_finite() { Value::Number(*value) } else { Value::Text(value.to_string()) };
                (name.as_str(), value)
            })
            .collect();
        values.serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<(String, f64)>, D::Error> {
        Vec::<(String, Value)>::deserialize(deserializer)?
            .into_iter()
            .map(|(name, value)| match value {
                Value::Number(number) => Ok((name, number)),
                Value::Text(text) => match text.as_str() {
                    "NaN" | "inf" | "-inf" => Ok((name, text.parse().unwrap_or(f64::NAN))),
                    other => Err(serde::de::Error::custom(format!(
                        "stat `{name}`: `{other}` is not a number (nor NaN, inf, -inf)"
                    ))),
                },
            })
            .collect()
    }
}

/// A map keyed by `(board, card)` as a list of `[board, card, plays]`.
mod board_plays {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    type Plays = BTreeMap<(String, String), usize>;

    pub(super) fn serialize<S: Serializer>(plays: &Plays, serializer: S) -> Result<S::Ok, S::Error> {
        let rows: Vec<(&str, &str, usize)> =
            plays.iter().map(|((board, card), count)| (board.as_str(), card.as_str(), *count)).collect();
        rows.serialize(serializer)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Plays, D::Error> {
        let rows = Vec::<(String, String, usize)>::deserialize(deserializer)?;
        Ok(rows.into_iter().map(|(board, card, count)| ((board, card), count)).collect())
    }
}

impl RunRecord {
    fn note(&mut self, project: &crate::model::Project, event: &Event) {
        match event {
            Event::ActStarted { act, .. } => meet(&mut self.acts_started, act.as_str()),
            Event::ActCompleted { act, .. } => count(&mut self.act_completions, act.as_str()),
            Event::CardCreated { card_type, .. } => meet(&mut self.cards, card_type.as_str()),
            Event::CardTransformed { to, .. } | Event::CardMutated { mutator: Some(to), .. } => {
                meet(&mut self.cards, to.as_str());
            }
            Event::BoardCardPlayed { board, card, option } => {
                // Keys are copied only when first counted: cards are played many times a run
                // (the few keys are looked through, not searched with a key made to search).
                let (board, card, option) = (board.as_str(), card.as_str(), (*option).max(1));
                match self.board_plays.iter_mut().find(|((b, c), _)| b == board && c == card) {
                    Some((_, plays)) => *plays += 1,
                    None => {
                        self.board_plays.insert((board.to_owned(), card.to_owned()), 1);
                    }
                }
                meet(&mut self.cards, card);
                let is_key = |key: &str| {
                    key.strip_prefix(card)
                        .and_then(|rest| rest.strip_prefix('/'))
                        .is_some_and(|number| number.parse::<u32>().ok() == Some(option))
                };
                match self.option_plays.iter_mut().find(|(key, _)| is_key(key)) {
                    Some((_, plays)) => *plays += 1,
                    None => {
                        self.option_plays.insert(format!("{card}/{option}"), 1);
                    }
                }
            }
            Event::TurnOptionPlayed { card, option } => {
                meet(&mut self.cards, card.as_str());
                let options = project.cards.get(card.as_str()).map_or(&[][..], |card| card.options.as_slice());
                let index = options.iter().position(|known| known.label == *option).map_or(0, |at| at + 1);
                *self.option_plays.entry(format!("{card}/{index}")).or_default() += 1;
            }
            Event::TurnCardDrawn { card }
            | Event::CardDrawn { card, .. }
            | Event::ExtraSummoned { card, .. }
            | Event::HandChanged { card, .. } => meet(&mut self.cards, card.as_str()),
            Event::Synthesized { a, b, result, .. } | Event::Summoned { a, b, result, .. } => {
                for card in [a, b, result] {
                    meet(&mut self.cards, card.as_str());
                }
            }
            Event::BattleStarted { player, enemy, .. } => {
                // Fighter keys are card ids, `ID#2` for a second copy.
                for card in player.iter().chain(enemy).filter_map(|key| key.split('#').next()) {
                    meet(&mut self.cards, card);
                }
            }
            Event::EraStarted { era } => meet(&mut self.eras, era.as_str()),
            Event::Raided { card, against, .. } => {
                meet(&mut self.cards, card.as_str());
                meet(&mut self.cards, against.as_str());
            }
            Event::RevelationGranted { revelation } => meet(&mut self.revelations, revelation),
            Event::UnitUsedSkill { skill, .. } | Event::UnitMoved { skill, .. } => {
                count(&mut self.skill_uses, skill.as_str());
            }
            Event::BoardTurn { .. } | Event::UnitTurnStarted { .. } | Event::TurnStarted { .. } => self.turns += 1,
            _ => {}
        }
    }
}

/// Adds `name` to `met`, copied only when it is new: a run names the same few acts, cards and
/// skills at almost every step.
fn meet(met: &mut BTreeSet<String>, name: &str) {
    if !met.contains(name) {
        met.insert(name.to_owned());
    }
}

/// Counts one more of `name`, copied only when it is first counted.
fn count(counts: &mut BTreeMap<String, usize>, name: &str) {
    match counts.get_mut(name) {
        Some(count) => *count += 1,
        None => {
            counts.insert(name.to_owned(), 1);
        }
    }
}

/// The seed of run `run` of a simulation seeded with `seed` (SplitMix64: neighbouring runs
/// get unrelated seeds).
pub fn run_seed(seed: u64, run: usize) -> u64 {
    let mut z = seed.wrapping_add((run as u64).wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Where the runs of a simulation start.
#[derive(Clone, Copy)]
enum Start<'a> {
    /// A fresh session of the content, seeded with the run's seed.
    Content(&'a Arc<Content>),
    /// A copy of a session (e.g. mid-playtest) whose generator is reseeded with the run's seed.
    Session(&'a Session),
}

impl Start<'_> {
    fn content(&self) -> &Arc<Content> {
        match self {
            Self::Content(content) => content,
            Self::Session(session) => session.content(),
        }
    }

    fn session(&self, seed: u64) -> Session {
        match self {
            Self::Content(content) => Session::from_content(Arc::clone(content), seed),
            Self::Session(session) => {
                let mut copy = (*session).clone();
                copy.reseed(seed);
                copy
            }
        }
    }

    /// The state every run starts from, as folding reads it (starting hands, cards present).
    fn initial(&self) -> Session {
        match self {
            Self::Content(content) => Session::from_content(Arc::clone(content), 0),
            Self::Session(session) => (*session).clone(),
        }
    }
}

/// Reads a number from a run's final state (see [`simulate_from`]).
pub type Measure<'a> = &'a (dyn Fn(&Session) -> f64 + Sync);

/// Runs the simulation and folds the runs into a summary. `progress` counts finished runs and
/// can cancel; a cancelled simulation returns [`SimError::Cancelled`].
pub fn simulate(content: &Arc<Content>, options: &SimOptions, progress: &Progress) -> Result<Summary, SimError> {
    simulate_runs(Start::Content(content), options, progress, None).map(|(summary, _)| summary)
}

/// Like [`simulate`], but every run starts from a copy of `start` (a session at some point of a
/// playtest) whose generator is reseeded with the run's seed; `measure` reads each run's final
/// state and its values come back in run order. Cards present in `start` count as seen.
pub fn simulate_from(
    start: &Session,
    options: &SimOptions,
    progress: &Progress,
    measure: Measure<'_>,
) -> Result<(Summary, Vec<f64>), SimError> {
    simulate_runs(Start::Session(start), options, progress, Some(measure))
}

/// Plays the runs `runs` (indices into the whole simulation of `options.runs`) from fresh
/// sessions of `content` and returns them in run order, with what folding them needs: run `i`
/// is the same run whichever slice plays it, so slices fold into [`simulate`]'s summary.
pub fn simulate_records(
    content: &Arc<Content>,
    options: &SimOptions,
    runs: Range<usize>,
    progress: &Progress,
) -> Result<(FoldContext, Vec<RunRecord>), SimError> {
    let start = Start::Content(content);
    let records = play_runs(start, options, runs, progress, None)?;
    Ok((FoldContext::of(&start.initial(), options), records))
}

fn simulate_runs(
    start: Start<'_>,
    options: &SimOptions,
    progress: &Progress,
    measure: Option<Measure<'_>>,
) -> Result<(Summary, Vec<f64>), SimError> {
    let records = play_runs(start, options, 0..options.runs, progress, measure)?;
    let measured = records.iter().map(|record| record.measured).collect();
    Ok((fold(&FoldContext::of(&start.initial(), options), &records), measured))
}

fn play_runs(
    start: Start<'_>,
    options: &SimOptions,
    runs: Range<usize>,
    progress: &Progress,
    measure: Option<Measure<'_>>,
) -> Result<Vec<RunRecord>, SimError> {
    let content = start.content();
    check_policy(content, &options.policy)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .build()
        .map_err(|_| SimError::Threads(options.threads))?;
    let records: Vec<Option<Result<RunRecord, SimError>>> = pool.install(|| {
        runs.into_par_iter()
            .map(|run| {
                if progress.cancelled() {
                    return None;
                }
                let record = play_run(start, options, run, measure);
                progress.done.fetch_add(1, Ordering::Relaxed);
                Some(record)
            })
            .collect()
    });
    let mut finished = Vec::with_capacity(records.len());
    for record in records {
        match record {
            Some(record) => finished.push(record?),
            None => return Err(SimError::Cancelled(progress.done())),
        }
    }
    Ok(finished)
}

/// Refuses a policy that cannot play this content before any run starts.
fn check_policy(content: &Arc<Content>, policy: &Policy) -> Result<(), SimError> {
    let session = Session::from_content(Arc::clone(content), 0);
    match policy {
        Policy::Greedy { score: Some(score) } => session.query(score).map(|_| ()).map_err(SimError::Score),
        Policy::Greedy { score: None } if session.board().is_none() => Err(SimError::Options(
            "greedy play needs a score formula to maximise for this content (--score EXPR); \
             only board content has a built-in score"
                .to_owned(),
        )),
        Policy::Sides(_) if session.board().is_none() => {
            Err(SimError::Options("a policy per side needs board content (entry boards with a die)".to_owned()))
        }
        Policy::Sides(sides) => sides.iter().try_for_each(|policy| match policy {
            Policy::Script(_) | Policy::Sides(_) => {
                Err(SimError::Options("a side's policy is random or greedy".to_owned()))
            }
            policy => check_policy(content, policy),
        }),
        _ => Ok(()),
    }
}

fn play_run(
    start: Start<'_>,
    options: &SimOptions,
    run: usize,
    measure: Option<Measure<'_>>,
) -> Result<RunRecord, SimError> {
    let seed = run_seed(options.seed, run);
    let content = start.content();
    let mut session = start.session(seed);
    // A wait that would pass the budget stops where it got to, so no move runs on unbounded.
    session.set_step_limit(options.max_steps);
    let mut record = RunRecord::default();
    // The era the run starts in began before any move.
    if let Some(era) = session.campaign().and_then(|campaign| campaign.era.as_ref()) {
        record.eras.insert(era.to_string());
    }
    let mut random = RandomPolicy::new(seed ^ 0x5EED);
    if let Policy::Script(script) = &options.policy {
        let report = session.run_script(script).map_err(|error| SimError::Script {
            run,
            seed,
            line: error.line,
            message: error.message.clone(),
        })?;
        for timed in &report.events {
            record.note(&content.project, &timed.event);
        }
    }
    let mut greedy_rng = Pcg64Mcg::seed_from_u64(seed ^ 0x6EED);
    while record.moves < options.max_moves {
        let mut policy = &options.policy;
        if let Policy::Sides(sides) = policy {
            let active = session.board().map_or(0, |board| board.game.active);
            policy = sides.get(active).unwrap_or(&Policy::Random);
        }
        let step = match policy {
            Policy::Greedy { score } => greedy_step(&mut session, score.as_deref(), &mut greedy_rng, &mut random),
            Policy::Random | Policy::Script(_) | Policy::Sides(_) => random.step(&mut session),
        };
        match step {
            Move::Chose(_, events) | Move::Waited(_, events) => {
                for event in &events {
                    record.note(&content.project, event);
                }
            }
            Move::Stuck => break,
        }
        record.moves += 1;
        let work = session.counters();
        if work.steps.saturating_add(work.act_completions) > options.max_steps {
            record.cut = true;
            break;
        }
    }
    if let Some(board) = session.board() {
        // Rolls do not name the die's card type: the dice left on the boards do.
        let dice = board.game.sides.iter().flat_map(|side| side.cells.iter().flatten()).chain(&board.game.die);
        record.cards.extend(dice.map(|die| die.card.to_string()));
        record.board_winner = board
            .game
            .outcome
            .as_ref()
            .and_then(|outcome| outcome.winner.as_ref().map(|winner| (winner.to_string(), outcome.instant)));
    }
    if let Some(campaign) = session.campaign() {
        record.nodes.extend(campaign.visited.iter().map(ToString::to_string));
        record.cards.extend(campaign.hand.iter().map(ToString::to_string));
        record.turns = campaign.day as usize;
        record.grade = campaign.result.as_ref().and_then(|result| result.grade.clone());
    }
    record.outcome = if record.cut { "cut".to_owned() } else { outcome(&session) };
    record.ticks = session.state().tick;
    let work = session.counters();
    record.steps = work.steps.saturating_add(work.act_completions);
    record.stats = final_stats(&session);
    record.measured = measure.map_or(f64::NAN, |measure| measure(&session));
    Ok(record)
}

/// One greedy move: every choice is tried on copies of the game as the mover sees it
/// ([`Session::seen_by`]: no secrets, no foreknowledge of rolls, every value a hidden die could
/// show) and the best average score applied; when there is none, time passes as for the random
/// player.
fn greedy_step(session: &mut Session, score: Option<&str>, rng: &mut Pcg64Mcg, random: &mut RandomPolicy) -> Move {
    if ended(session) {
        return Move::Stuck;
    }
    let choices = session.choices();
    if choices.is_empty() {
        return random.step(session);
    }
    let formula = score.map_or_else(|| board_score(session), str::to_owned);
    let mover =
        session.board().and_then(|board| board.game.sides.get(board.game.active)).map(|side| side.board.clone());
    let worlds = match &mover {
        Some(mover) => session.seen_by(mover.as_str()),
        None => vec![session.clone()],
    };
    let mut best: Vec<&Choice> = Vec::new();
    let mut best_score = f64::NEG_INFINITY;
    for choice in &choices {
        let (mut total, mut tried) = (0.0, 0u32);
        for world in &worlds {
            let mut trial = world.clone();
            if trial.apply(choice).is_err() {
                continue;
            }
            let value = trial.query(&formula).unwrap_or(f64::NEG_INFINITY);
            total += if value.is_nan() { f64::NEG_INFINITY } else { value };
            tried += 1;
        }
        if tried == 0 {
            continue;
        }
        let value = total / f64::from(tried);
        let value = if value.is_nan() { f64::NEG_INFINITY } else { value };
        if value > best_score {
            best_score = value;
            best.clear();
        }
        if value >= best_score {
            best.push(choice);
        }
    }
    #[allow(clippy::cast_possible_truncation)]
    let pick = (rng.next_u64() % best.len().max(1) as u64) as usize;
    let Some(choice) = best.get(pick).map(|choice| (*choice).clone()) else { return random.step(session) };
    let events = session.apply(&choice).unwrap_or_default();
    Move::Chose(choice, events)
}

/// The board score of the side to move: its score minus the best other side's.
fn board_score(session: &Session) -> String {
    let Some(board) = session.board() else { return "0".to_owned() };
    let game = &board.game;
    let Some(mover) = game.sides.get(game.active) else { return "0".to_owned() };
    let others: Vec<String> = game
        .sides
        .iter()
        .filter(|side| side.board != mover.board)
        .map(|side| format!("board.{}.score", side.board))
        .collect();
    match others.as_slice() {
        [] => format!("board.{}.score", mover.board),
        [other] => format!("board.{}.score - {other}", mover.board),
        _ => format!("board.{}.score - max({})", mover.board, others.join(", ")),
    }
}

/// Whether the game has ended in any system.
pub(crate) fn ended(session: &Session) -> bool {
    session.state().outcome.is_some()
        || session.board().is_some_and(|board| board.game.outcome.is_some())
        || session.tactics().is_some_and(|battle| battle.winner().is_some())
        || session.turns().is_some_and(|turns| turns.outcome.is_some())
        || session.campaign().is_some_and(|campaign| campaign.result.is_some())
}

/// How a run ended, as a summary key.
fn outcome(session: &Session) -> String {
    use crate::engine::Outcome;
    let table = |outcome: &Outcome| match outcome {
        Outcome::Ended(name) => format!("ended:{name}"),
        Outcome::Stopped(_) => "stopped".to_owned(),
    };
    if let Some(outcome) = &session.state().outcome {
        return table(outcome);
    }
    if let Some(outcome) = session.board().and_then(|board| board.game.outcome.as_ref()) {
        return outcome.winner.as_ref().map_or_else(|| "draw".to_owned(), |winner| format!("won:{winner}"));
    }
    if let Some(winner) = session.tactics().and_then(|battle| battle.winner()) {
        return format!("won:{winner}");
    }
    if let Some(outcome) = session.turns().and_then(|turns| turns.outcome.as_ref()) {
        return table(outcome);
    }
    if let Some(result) = session.campaign().and_then(|campaign| campaign.result.as_ref()) {
        return if result.won { "won" } else { "lost" }.to_owned();
    }
    "unfinished".to_owned()
}

/// The values a run ends with: visible turn stats, board scores, unit stats of the battle.
fn final_stats(session: &Session) -> Vec<(String, f64)> {
    let mut stats: Vec<(String, f64)> =
        session.turn_stats(false).into_iter().map(|line| (format!("stat.{}", line.id), line.value)).collect();
    // Read directly: compiling `board.ID.score` as a query took a fifth of a Knucklebones run.
    stats.extend(session.board_scores().into_iter().map(|(board, score)| (format!("board.{board}.score"), score)));
    if let Some(campaign) = session.campaign() {
        stats.extend(campaign.meters.iter().map(|(id, value)| (format!("stat.{id}"), *value)));
    }
    if let Some(battle) = session.tactics() {
        for (key, _) in battle.units() {
            if let Some(hp) = battle.stat(key, "hp") {
                stats.push((format!("unit.{key}.hp"), hp));
            }
        }
    }
    stats
}

/// What folding runs into a [`Summary`] reads from the content and the options besides the
/// runs, so that runs played on other machines fold without the project (`actforge sim-merge`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FoldContext {
    /// The first seed.
    pub seed: u64,
    /// The policy's name.
    pub policy: String,
    /// Board play: each side's board and the distinct cards of its starting hand, sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hands: Vec<(String, Vec<String>)>,
    /// Board play: the policy of each side.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub side_policies: BTreeMap<String, String>,
    /// What a run can reach, by kind and in id order (cards present at the start are left out:
    /// they count as seen); what no run reached of it is the summary's dead content.
    pub reachable: DeadContent,
}

impl FoldContext {
    /// The context of runs that start from `start` and play with `options`.
    pub fn of(start: &Session, options: &SimOptions) -> Self {
        // Each side's starting hand: the cards it could play or not.
        let hands: Vec<(String, Vec<String>)> = start.board().map_or_else(Vec::new, |board| {
            board
                .game
                .sides
                .iter()
                .map(|side| {
                    let mut hand: Vec<String> = side.hand.iter().map(ToString::to_string).collect();
                    hand.sort();
                    hand.dedup();
                    (side.board.to_string(), hand)
                })
                .collect()
        });
        let mut side_policies = BTreeMap::new();
        for (at, (side, _)) in hands.iter().enumerate() {
            let policy = match &options.policy {
                Policy::Sides(sides) => sides.get(at).map_or_else(|| "random".to_owned(), Policy::name),
                policy => policy.name(),
            };
            side_policies.insert(side.clone(), policy);
        }
        Self { seed: options.seed, policy: options.policy.name(), hands, side_policies, reachable: reachable(start) }
    }
}

/// A starting card's keys in a fold: its run records' `(side, card)` and its ability `side/card`.
type AbilityKeys = ((String, String), String);

/// Adds `count` to `key`'s count, copying the key only when it is first counted.
fn bump(map: &mut BTreeMap<String, usize>, key: &str, count: usize) {
    match map.get_mut(key) {
        Some(total) => *total += count,
        None => {
            map.insert(key.to_owned(), count);
        }
    }
}

/// Folds runs, in run order, into a summary.
#[allow(clippy::cast_precision_loss)]
pub fn fold(context: &FoldContext, records: &[RunRecord]) -> Summary {
    let mut summary = Summary {
        version: SUMMARY_VERSION,
        runs: records.len(),
        seed: context.seed,
        policy: context.policy.clone(),
        side_policies: context.side_policies.clone(),
        ..Summary::default()
    };
    let mut stats: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    // Each starting card's keys, made once: a fold of 10,000 runs looked each up 10,000 times.
    let hands: Vec<(&String, Vec<AbilityKeys>)> = context
        .hands
        .iter()
        .map(|(side, hand)| {
            let keys = hand.iter().map(|card| ((side.clone(), card.clone()), format!("{side}/{card}"))).collect();
            (side, keys)
        })
        .collect();
    for record in records {
        bump(&mut summary.outcomes, &record.outcome, 1);
        if let Some(grade) = &record.grade {
            bump(&mut summary.grades, grade, 1);
        }
        for node in &record.nodes {
            bump(&mut summary.node_runs, node, 1);
        }
        for era in &record.eras {
            bump(&mut summary.era_runs, era, 1);
        }
        for revelation in &record.revelations {
            bump(&mut summary.revelation_runs, revelation, 1);
        }
        for (act, count) in &record.act_completions {
            bump(&mut summary.act_completions, act, *count);
        }
        for act in &record.acts_started {
            bump(&mut summary.act_runs, act, 1);
        }
        for card in &record.cards {
            bump(&mut summary.card_runs, card, 1);
        }
        for (option, count) in &record.option_plays {
            bump(&mut summary.option_plays, option, *count);
        }
        for (skill, count) in &record.skill_uses {
            bump(&mut summary.skill_uses, skill, *count);
        }
        for (name, value) in &record.stats {
            stats.entry(name.clone()).or_default().push(*value);
        }
        if let Some((winner, instant)) = &record.board_winner {
            bump(&mut summary.side_wins, winner, 1);
            if *instant {
                bump(&mut summary.instant_wins, winner, 1);
            }
        }
        for (side, keys) in &hands {
            let won = record.board_winner.as_ref().filter(|(winner, _)| winner == *side);
            let instant = won.is_some_and(|(_, instant)| *instant);
            for (play_key, ability) in keys {
                let plays = record.board_plays.get(play_key).copied().unwrap_or(0);
                if !summary.abilities.contains_key(ability) {
                    summary.abilities.insert(ability.clone(), AbilityStats::default());
                }
                let Some(entry) = summary.abilities.get_mut(ability) else { continue };
                entry.plays += plays;
                if plays > 0 {
                    entry.runs_played += 1;
                    entry.wins_played += usize::from(won.is_some());
                    entry.instant_wins_played += usize::from(instant);
                } else {
                    entry.runs_not_played += 1;
                    entry.wins_not_played += usize::from(won.is_some());
                    entry.instant_wins_not_played += usize::from(instant);
                }
            }
        }
    }
    let column = |value: fn(&RunRecord) -> f64| records.iter().map(value).collect::<Vec<f64>>();
    summary.moves = Distribution::of(&column(|record| record.moves as f64));
    summary.ticks = Distribution::of(&column(|record| record.ticks as f64));
    summary.turns = Distribution::of(&column(|record| record.turns as f64));
    summary.steps = Distribution::of(&column(|record| record.steps as f64));
    summary.stats = stats.into_iter().map(|(name, values)| (name, Distribution::of(&values))).collect();
    summary.dead = dead_content(&context.reachable, &summary);
    summary
}

/// What the content defines that a run from `start` can reach. Cards present when a run starts
/// count as seen, so they are left out.
fn reachable(start: &Session) -> DeadContent {
    let project = &start.content().project;
    let mut seen_cards: BTreeSet<String> = BTreeSet::new();
    seen_cards.extend(start.state().cards.values().map(|card| card.card.to_string()));
    if let Some(board) = start.board() {
        for side in &board.game.sides {
            seen_cards.extend(side.hand.iter().map(ToString::to_string));
        }
    }
    if let Some(turns) = start.turns() {
        seen_cards.extend(turns.hand.iter().chain(&turns.deck).map(ToString::to_string));
    }
    let mut options = Vec::new();
    for card in project.cards.iter() {
        let id = &card.id;
        let count = card.options.len().max(card.board_play.as_ref().map_or(0, |play| play.options.len()));
        options.extend((1..=count).map(|index| format!("{id}/{index}")));
    }
    let map = start.campaign().and_then(|campaign| project.node_maps.get(campaign.map.as_str()));
    DeadContent {
        acts: project.acts.iter().map(|act| act.id.to_string()).collect(),
        cards: project.cards.iter().map(|card| card.id.to_string()).filter(|id| !seen_cards.contains(id)).collect(),
        options,
        nodes: map.map(|map| map.nodes.iter().map(|node| node.id.to_string()).collect()).unwrap_or_default(),
        eras: if start.campaign().is_some() {
            project.eras.iter().map(|era| era.id.to_string()).collect()
        } else {
            Vec::new()
        },
        grades: map.map(|map| map.grades.iter().map(|grade| grade.id.clone()).collect()).unwrap_or_default(),
        revelations: map
            .and_then(|map| map.synthesis.as_ref())
            .and_then(|id| project.syntheses.get(id.as_str()))
            .map(|synthesis| synthesis.revelations.iter().map(|revelation| revelation.id.clone()).collect())
            .unwrap_or_default(),
        skills: if start.tactics().is_some() {
            project.skills.iter().map(|skill| skill.id.to_string()).collect()
        } else {
            Vec::new()
        },
    }
}

/// What of `reachable` no run of `summary` reached.
fn dead_content(reachable: &DeadContent, summary: &Summary) -> DeadContent {
    let unreached = |ids: &[String], reached: &dyn Fn(&String) -> bool| -> Vec<String> {
        ids.iter().filter(|id| !reached(id)).cloned().collect()
    };
    DeadContent {
        acts: unreached(&reachable.acts, &|id| summary.act_runs.contains_key(id)),
        cards: unreached(&reachable.cards, &|id| summary.card_runs.contains_key(id)),
        options: unreached(&reachable.options, &|id| summary.option_plays.contains_key(id)),
        skills: unreached(&reachable.skills, &|id| summary.skill_uses.contains_key(id)),
        nodes: unreached(&reachable.nodes, &|id| summary.node_runs.contains_key(id)),
        eras: unreached(&reachable.eras, &|id| summary.era_runs.contains_key(id)),
        grades: unreached(&reachable.grades, &|id| summary.grades.contains_key(id)),
        revelations: unreached(&reachable.revelations, &|id| summary.revelation_runs.contains_key(id)),
    }
}

/// One value that moved between two summaries.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// What moved, e.g. `outcome won:player_one (share)` or `stat stat.gdp mean`.
    pub what: String,
    /// Its value in the first summary.
    pub before: f64,
    /// Its value in the second.
    pub after: f64,
}

/// What moved from `before` to `after`: outcome shares, mean lengths, mean stats, act and option
/// frequencies per run, and content that became dead or alive. Unchanged values are left out.
pub fn diff(before: &Summary, after: &Summary) -> Vec<Change> {
    let mut changes = Vec::new();
    #[allow(clippy::cast_precision_loss)]
    let share = |count: usize, runs: usize| if runs == 0 { 0.0 } else { count as f64 / runs as f64 };
    let push = |changes: &mut Vec<Change>, what: String, before: f64, after: f64| {
        let moved = if before.is_nan() || after.is_nan() {
            before.is_nan() != after.is_nan()
        } else {
            (before - after).abs() > 1e-9
        };
        if moved {
            changes.push(Change { what, before, after });
        }
    };
    let keys = |a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>| {
        a.keys().chain(b.keys()).cloned().collect::<BTreeSet<String>>()
    };
    for key in keys(&before.grades, &after.grades) {
        let count = |summary: &Summary| summary.grades.get(&key).copied().unwrap_or(0);
        push(
            &mut changes,
            format!("grade {key} (share)"),
            share(count(before), before.runs),
            share(count(after), after.runs),
        );
    }
    for key in keys(&before.outcomes, &after.outcomes) {
        let count = |summary: &Summary| summary.outcomes.get(&key).copied().unwrap_or(0);
        push(
            &mut changes,
            format!("outcome {key} (share)"),
            share(count(before), before.runs),
            share(count(after), after.runs),
        );
    }
    for (name, pick) in [
        ("moves", (|s: &Summary| s.moves.mean) as fn(&Summary) -> f64),
        ("ticks", |s: &Summary| s.ticks.mean),
        ("turns", |s: &Summary| s.turns.mean),
    ] {
        push(&mut changes, format!("{name} (mean)"), pick(before), pick(after));
    }
    let stat_names: BTreeSet<&String> = before.stats.keys().chain(after.stats.keys()).collect();
    for name in stat_names {
        let mean = |summary: &Summary| summary.stats.get(name).map_or(f64::NAN, |d| d.mean);
        push(&mut changes, format!("{name} (mean)"), mean(before), mean(after));
    }
    for (label, map) in [
        ("act runs", (|s: &Summary| &s.act_runs) as fn(&Summary) -> &BTreeMap<String, usize>),
        ("option plays", |s: &Summary| &s.option_plays),
        ("card runs", |s: &Summary| &s.card_runs),
        ("node runs", |s: &Summary| &s.node_runs),
        ("era runs", |s: &Summary| &s.era_runs),
        ("revelation runs", |s: &Summary| &s.revelation_runs),
    ] {
        for key in keys(map(before), map(after)) {
            let count = |summary: &Summary| map(summary).get(&key).copied().unwrap_or(0);
            push(
                &mut changes,
                format!("{label} {key} (per run)"),
                share(count(before), before.runs),
                share(count(after), after.runs),
            );
        }
    }
    changes
}
