//! Scripted play: a playtest is a text file of player actions, waits and expectations run
//! against a [`Session`] (`actforge play`, golden tests, the preview's saved input logs).
//! FORMAT.md §7 describes the format.

use std::fmt::Write as _;

use serde::Serialize;

mod repeat;
mod sim;

pub use repeat::{MAX_REPEAT_DEPTH, MAX_SCRIPT_STEPS};
pub use sim::{DEFAULT_SIM_RUNS, MAX_SIM_RUNS};

use super::core;
use super::system::System;
use super::{Choice, Event, Session};
use crate::formula::{FormulaTrace, TraceOut};

/// A script line that failed: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}{}: {message}", repeat::in_parentheses(.repetitions))]
pub struct ScriptError {
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub message: String,
    /// Inside `repeat` blocks: which repetition of how many, outermost block first.
    pub repetitions: Vec<(usize, usize)>,
}

impl ScriptError {
    /// The message with the repetition it failed in, if any (`in repetition 3 of 5: …`), for
    /// reports that print the line number apart.
    pub fn why(&self) -> String {
        if self.repetitions.is_empty() {
            return self.message.clone();
        }
        format!("in {}: {}", repeat::repetition_words(&self.repetitions), self.message)
    }
}

/// How a script runs beyond its own lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptOptions {
    /// Caps the runs of every `expect sim` line (`actforge test --max-sim-runs N`).
    pub max_sim_runs: Option<usize>,
    /// Worker threads of an `expect sim` line's runs (0: one per core); the verdict is the same
    /// on any number.
    pub sim_threads: usize,
}

/// What a script did: one log line per step and every event with its tick.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ScriptReport {
    /// Human-readable log.
    pub log: Vec<String>,
    /// How many `expect` lines passed.
    pub expectations: usize,
    /// Everything that happened, in order (`actforge play --trace`).
    pub events: Vec<TimedEvent>,
    /// What a reader should know although every line held, e.g. an `expect sim` line whose
    /// runs were capped (`line 12: … (capped at 100 of 2000 runs)`).
    pub notes: Vec<String>,
}

/// What a playtest line asks a system for.
pub(crate) enum Line {
    /// A choice, applied by the script (refused with why and what is possible instead).
    Choose(Choice),
    /// Done already; the log notes this.
    Done(String),
}

/// The seed a playtest asks for on its first line (`seed N`), if it does.
pub fn script_seed(script: &str) -> Option<u64> {
    let first = script
        .lines()
        .map(|raw| raw.split_once(" #").map_or(raw, |(code, _)| code).trim())
        .find(|line| !line.is_empty() && !line.starts_with('#'))?;
    first.strip_prefix("seed ")?.trim().parse().ok()
}

/// `expect choices LINE; LINE; …` (exactly these choices now, in any order), `expect choices
/// none` and `expect choices include LINE`: the choices written as the script lines that make
/// them, as `possible now:` lists them.
fn expect_choices(session: &Session, args: &str) -> Result<String, String> {
    use std::collections::BTreeSet;
    let offered: BTreeSet<String> = session.choices().iter().map(|choice| session.describe_choice(choice)).collect();
    let normal = |line: &str| line.split_whitespace().collect::<Vec<_>>().join(" ");
    let listed = |lines: &BTreeSet<String>| {
        if lines.is_empty() { "none".to_owned() } else { lines.iter().cloned().collect::<Vec<_>>().join("; ") }
    };
    if let Some(line) = args.strip_prefix("include ").map(normal) {
        return if offered.contains(&line) {
            Ok(String::new())
        } else {
            Err(format!("`{line}` is not a choice now (the choices: {})", listed(&offered)))
        };
    }
    if args.is_empty() {
        return Err(
            "usage: expect choices LINE; LINE; …, expect choices none or expect choices include LINE".to_owned()
        );
    }
    let wanted: BTreeSet<String> =
        if args == "none" { BTreeSet::new() } else { args.split(';').map(normal).filter(|l| !l.is_empty()).collect() };
    if wanted == offered {
        return Ok(String::new());
    }
    let missing: Vec<&str> = wanted.difference(&offered).map(String::as_str).collect();
    let extra: Vec<&str> = offered.difference(&wanted).map(String::as_str).collect();
    let mut why = format!("the choices are {}", listed(&offered));
    if !missing.is_empty() {
        let _ = write!(why, "; not offered: {}", missing.join("; "));
    }
    if !extra.is_empty() {
        let _ = write!(why, "; also offered: {}", extra.join("; "));
    }
    Err(why)
}

/// `expect event NAME [FIELD=VALUE]...`: an event of that name with those fields happened so
/// far in the script (`expect event ActCompleted act=tend_the_lamp`).
fn expect_event(report: &ScriptReport, args: &str) -> Result<String, String> {
    let mut words = args.split_whitespace();
    let name = words.next().ok_or("usage: expect event NAME [FIELD=VALUE]...")?;
    let mut wanted = Vec::new();
    for word in words {
        let (field, value) = word.split_once('=').ok_or_else(|| format!("`{word}` is not FIELD=VALUE"))?;
        wanted.push((format!("{field}: {value:?}"), format!("{field}: {value}")));
    }
    let found = report.events.iter().any(|timed| {
        let text = format!("{:?}", timed.event);
        let named = text.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '(']));
        named
            && wanted.iter().all(|(quoted, plain)| {
                text.contains(quoted.as_str())
                    || text.contains(&format!("{plain},"))
                    || text.contains(&format!("{plain} }}"))
            })
    });
    if found {
        return Ok(String::new());
    }
    let seen: Vec<String> = report.events.iter().rev().take(5).map(|timed| format!("{:?}", timed.event)).collect();
    if seen.is_empty() {
        return Err(format!("no {name} event like that happened (no event has happened yet)"));
    }
    Err(format!("no {name} event like that happened (the last ones: {})", seen.join("; ")))
}

/// An event and the tick it happened at (for a choice: the tick it was made at; during a
/// wait: the tick the timer or decay expired at).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedEvent {
    /// Game time when it happened.
    pub tick: u64,
    /// What happened.
    pub event: Event,
}

impl Session {
    /// The value of a formula over the table, e.g. `table.card.kitten` or `anywhere.aspect.furry`
    /// (and over the boards, in board play); `outcome.…` names (FORMAT.md §7) read how the game
    /// ended.
    pub fn query(&self, formula: &str) -> Result<f64, String> {
        self.query_traced(formula, None)
    }

    /// The value of a formula over the current state, traced: every sub-expression's value and
    /// what made it false, evaluated as [`Session::query`] evaluates it (same scope, same value;
    /// random draws read a copy of the generator, so nothing changes).
    pub fn trace_formula(&self, text: &str) -> Result<FormulaTrace, String> {
        let mut out = None;
        self.query_traced(text, Some(&mut out))?;
        out.ok_or_else(|| format!("`{text}` could not be traced"))
    }

    /// [`Session::query`], traced into `out` when given.
    fn query_traced(&self, formula: &str, mut out: TraceOut<'_>) -> Result<f64, String> {
        let formula = &*self.with_outcome_names(formula)?;
        System::QUERY_ORDER
            .into_iter()
            .find_map(|system| self.query_in(system, formula, out.as_deref_mut()))
            .unwrap_or_else(|| self.table_query_traced(formula, out))
    }

    /// Runs a playtest script; stops at the first line that fails.
    pub fn run_script(&mut self, script: &str) -> Result<ScriptReport, ScriptError> {
        let mut report = ScriptReport::default();
        self.run_script_into(script, &mut report)?;
        Ok(report)
    }

    /// Runs a playtest script, adding to `report` (which keeps what ran before a failing line).
    pub fn run_script_into(&mut self, script: &str, report: &mut ScriptReport) -> Result<(), ScriptError> {
        self.run_script_with(script, &ScriptOptions::default(), report)
    }

    /// One line of a script, logged: `expect sim` here (it needs the options), every other
    /// line through [`Session::script_line`].
    fn run_line(
        &mut self,
        line: &str,
        number: usize,
        options: &ScriptOptions,
        report: &mut ScriptReport,
    ) -> Result<(), String> {
        let entry = match sim::sim_expectation(line) {
            Some(rest) => {
                report.expectations = report.expectations.saturating_add(1);
                self.expect_sim(rest, number, options, report)?
            }
            None => self.script_line(line, report)?,
        };
        report.log.push(format!("[{:>6}] {line}{entry}", self.state.tick));
        Ok(())
    }

    pub(super) fn script_line(&mut self, line: &str, report: &mut ScriptReport) -> Result<String, String> {
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        for system in System::ALL {
            let Some(line) = self.command_in(system, command, rest, report) else { continue };
            return match line? {
                Line::Done(note) => Ok(note),
                Line::Choose(choice) => {
                    let events = self.apply(&choice).map_err(|_| self.why_not(&choice))?;
                    self.record(events, report);
                    Ok(String::new())
                }
            };
        }
        match command {
            "wait" => {
                let amount = rest.split_whitespace().next().ok_or("usage: wait TICKS or wait SECONDSs")?;
                let ticks = match amount.strip_suffix('s') {
                    Some(seconds) => seconds
                        .parse::<u64>()
                        .map(|s| s.saturating_mul(u64::from(self.content.project.manifest.settings.ticks_per_second)))
                        .map_err(|_| format!("`{amount}` is not a number of seconds"))?,
                    None => amount.parse::<u64>().map_err(|_| format!("`{amount}` is not a number of ticks"))?,
                };
                if ticks > self.ticks_left() {
                    return Err(format!(
                        "`wait {amount}` would pass the last tick of game time ({}; it is tick {} now)",
                        super::MAX_TICK,
                        self.state.tick
                    ));
                }
                let events = self.advance_timed(ticks);
                let mut note = String::new();
                for timed in &events {
                    if let Event::ActCompleted { act, .. } = &timed.event {
                        let _ = write!(note, "  completed {act};");
                    }
                }
                report.events.extend(events);
                Ok(note)
            }
            "seed" => {
                // Read before the session starts (`script_seed`); here it only checks that the
                // session did start from it.
                let wanted: u64 = rest.parse().map_err(|_| format!("`{rest}` is not a seed (a whole number)"))?;
                if !report.log.is_empty() {
                    return Err("`seed` must be the script's first line".to_owned());
                }
                if wanted != self.seed {
                    return Err(format!(
                        "this playtest plays with seed {wanted} but the game started from seed {}: run it with \
                         --seed {wanted} (`actforge test` and `actforge play` read the seed line)",
                        self.seed
                    ));
                }
                Ok(String::new())
            }
            "expect" => {
                report.expectations = report.expectations.saturating_add(1);
                match rest.strip_prefix("event ") {
                    Some(args) => expect_event(report, args.trim()),
                    None => self.expect(rest),
                }
            }
            "set" => Err(format!(
                "`set {rest}`: set aspect CARD ASPECT N, set stat STAT VALUE (turns), set meter METER VALUE and set boost CARD PROPERTY VALUE \
                 (campaign), set unit UNIT STAT VALUE (battle) or set cell BOARD C R VALUE|empty (boards)"
            )),
            other => Err(format!(
                "unknown command `{other}` (seed, repeat, end, slot, unslot, start, collect, close, flip, wait, run, create, set, \
                 move, use, face, play, end-turn, go, jump, end-phase, synthesize, expect, roll, place, ability, setup)"
            )),
        }
    }

    pub(super) fn record(&self, events: Vec<Event>, report: &mut ScriptReport) {
        let tick = self.state.tick;
        report.events.extend(events.into_iter().map(|event| TimedEvent { tick, event }));
    }

    /// Why a choice is refused, and what the player could do instead.
    fn why_not(&self, choice: &Choice) -> String {
        let why = self.why_not_in(System::of(choice), choice);
        if self.tactics().is_some_and(|battle| battle.winner().is_some()) {
            return "the battle has ended".to_owned();
        }
        if self.state.outcome.is_some() {
            return "the game has ended".to_owned();
        }
        let legal: Vec<String> = self.choices().iter().map(|choice| self.describe_choice(choice)).collect();
        if legal.is_empty() {
            format!("{why}; nothing is possible now but waiting")
        } else {
            format!("{why}; possible now: {}", legal.join(", "))
        }
    }

    /// A choice as the script line that makes it.
    pub fn describe_choice(&self, choice: &Choice) -> String {
        self.describe_in(System::of(choice), choice)
    }

    /// An expectation: `refused LINE`, a system's own words (in [`System::EXPECT_ORDER`]), or a
    /// formula that must hold.
    fn expect(&self, rest: &str) -> Result<String, String> {
        let (what, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let args = args.trim();
        if what == "choices" {
            return expect_choices(self, args);
        }
        if what == "possible" {
            let mut trial = self.clone();
            return match trial.script_line(args, &mut ScriptReport::default()) {
                Ok(_) => Ok(String::new()),
                Err(why) => Err(format!("`{args}` is not possible now: {why}")),
            };
        }
        let refused = args.strip_prefix("possible ").filter(|_| what == "not").map(str::trim);
        if let Some(args) = refused.or((what == "refused").then_some(args)) {
            let mut trial = self.clone();
            return match trial.script_line(args, &mut ScriptReport::default()) {
                Ok(_) => Err(format!("`{args}` was possible")),
                Err(_) => Ok(String::new()),
            };
        }
        for system in System::EXPECT_ORDER {
            if let Some(result) = self.expect_in(system, what, args) {
                return result;
            }
        }
        let value = self.query(rest)?;
        if core::truthy(value) {
            Ok(String::new())
        } else {
            Err(format!("`{rest}` does not hold{}", self.describe_counts(rest)))
        }
    }

    /// Helps read a failed expectation: the values of the counts it mentions.
    fn describe_counts(&self, formula: &str) -> String {
        let mut out = String::new();
        for word in formula.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.')) {
            if word.contains('.')
                && let Ok(value) = self.query(word)
            {
                let _ = write!(out, "; {word} = {value}");
            }
        }
        out
    }
}
