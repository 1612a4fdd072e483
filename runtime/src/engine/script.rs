//! Scripted play: a playtest is a text file of player actions, waits and expectations run
//! against a [`Session`] (`actforge play`, golden tests, the preview's saved input logs).
//! FORMAT.md §7 describes the format.

use std::fmt::Write as _;

use serde::Serialize;

use super::core;
use super::table::script::stacks;
use super::tactics::compass_name;
use super::{Choice, Event, Place, Session, Status, TokenKey};

/// A script line that failed: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScriptError {
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub message: String,
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
}

/// An event and the tick at the end of the step that produced it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TimedEvent {
    /// Game time after the step.
    pub tick: u64,
    /// What happened.
    pub event: Event,
}

impl Session {
    /// The value of a formula over the table, e.g. `table.card.kitten` or `anywhere.aspect.furry`
    /// (and over the boards, in board play).
    pub fn query(&self, formula: &str) -> Result<f64, String> {
        if let Some(value) = self.campaign_query(formula) {
            return value;
        }
        if let Some(value) = self.turn_query(formula) {
            return value;
        }
        if self.board.is_some() {
            return self.board_query(formula);
        }
        self.table_query(formula)
    }

    /// Runs a playtest script; stops at the first line that fails.
    pub fn run_script(&mut self, script: &str) -> Result<ScriptReport, ScriptError> {
        let mut report = ScriptReport::default();
        self.run_script_into(script, &mut report)?;
        Ok(report)
    }

    /// Runs a playtest script, adding to `report` (which keeps what ran before a failing line).
    pub fn run_script_into(&mut self, script: &str, report: &mut ScriptReport) -> Result<(), ScriptError> {
        for (index, raw) in script.lines().enumerate() {
            let line = raw.split_once(" #").map_or(raw, |(code, _)| code).trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fail = |message: String| ScriptError { line: index + 1, message };
            let entry = self.script_line(line, report).map_err(fail)?;
            report.log.push(format!("[{:>6}] {line}{entry}", self.state.tick));
        }
        Ok(())
    }

    pub(super) fn script_line(&mut self, line: &str, report: &mut ScriptReport) -> Result<String, String> {
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let mut words = rest.split_whitespace();
        let choice = match command {
            "slot" => {
                let card_type = words.next().ok_or("usage: slot CARD TOKEN [PLACE]")?;
                let token = self.token_arg(words.next())?;
                let place: Option<usize> = words.next().map(str::parse).transpose().map_err(|_| "PLACE is a number")?;
                let card = self.free_card(card_type).ok_or_else(|| format!("no free `{card_type}` card to pick up"))?;
                self.choices()
                    .into_iter()
                    .find(|choice| matches!(choice, Choice::Slot { card: c, token: t, place: p } if *c == card && *t == token && place.is_none_or(|want| want == *p)))
                    .ok_or_else(|| format!("no open slot of that window accepts `{card_type}`"))?
            }
            "unslot" => {
                let token = self.token_arg(words.next())?;
                let place: usize = words.next().map_or(Ok(0), str::parse).map_err(|_| "PLACE is a number")?;
                Choice::Unslot { token, place }
            }
            "start" => Choice::Start { token: self.token_arg(words.next())? },
            "close" => Choice::Close { token: self.token_arg(words.next())? },
            "flip" => {
                let card_type = words.next().ok_or("usage: flip CARD")?;
                let card = self
                    .state
                    .cards
                    .iter()
                    .filter(|(_, card)| card.face_down && card.card.as_str() == card_type)
                    .min_by_key(|(_, card)| !matches!(card.place, Place::Table))
                    .map(|(key, _)| *key)
                    .ok_or_else(|| format!("no face-down `{card_type}` card"))?;
                Choice::Flip { card }
            }
            "collect" => Choice::Collect { token: self.token_arg(words.next())? },
            "move" | "use" | "face" => self.tactics_line(command, rest)?,
            "wait" if rest.starts_with(|c: char| !c.is_ascii_digit()) => self.tactics_line(command, rest)?,
            "play" => self.play_choice(rest)?,
            "end-turn" => Choice::EndTurn,
            "run" => {
                let act = words.next().ok_or("usage: run ACT")?;
                let events = self.force_act(act)?;
                self.record(events, report);
                return Ok(String::new());
            }
            "jump" => {
                let node = words.next().ok_or("usage: jump NODE")?;
                self.jump_to_node(node)?;
                return Ok(String::new());
            }
            "go" => Choice::MoveToNode { node: crate::model::Id::new(words.next().ok_or("usage: go NODE")?) },
            "end-phase" => Choice::EndPhase,
            "smelt" => {
                let (Some(a), Some(b)) = (words.next(), words.next()) else {
                    return Err("usage: smelt A B".to_owned());
                };
                Choice::Synthesize { a: crate::model::Id::new(a), b: crate::model::Id::new(b) }
            }
            "wait" => {
                let amount = words.next().ok_or("usage: wait TICKS or wait SECONDSs")?;
                let ticks = match amount.strip_suffix('s') {
                    Some(seconds) => seconds
                        .parse::<u64>()
                        .map(|s| s.saturating_mul(u64::from(self.content.project.manifest.settings.ticks_per_second)))
                        .map_err(|_| format!("`{amount}` is not a number of seconds"))?,
                    None => amount.parse::<u64>().map_err(|_| format!("`{amount}` is not a number of ticks"))?,
                };
                let events = self.advance(ticks);
                let mut note = String::new();
                for event in &events {
                    if let Event::ActCompleted { act, .. } = event {
                        let _ = write!(note, "  completed {act};");
                    }
                }
                self.record(events, report);
                return Ok(note);
            }
            "expect" => {
                report.expectations += 1;
                return self.expect(rest);
            }
            other => match self.board_script_line(other, rest, report) {
                Some(result) => return result,
                None => {
                    return Err(format!(
                        "unknown command `{other}` (slot, unslot, start, collect, close, flip, wait, run, move, use, \
                         play, end-turn, go, jump, end-phase, smelt, expect, roll, place, ability, setup)"
                    ));
                }
            },
        };
        let events = self.apply(&choice).map_err(|_| self.why_not(&choice))?;
        self.record(events, report);
        Ok(String::new())
    }

    pub(super) fn record(&self, events: Vec<Event>, report: &mut ScriptReport) {
        let tick = self.state.tick;
        report.events.extend(events.into_iter().map(|event| TimedEvent { tick, event }));
    }

    /// Why a choice is refused, and what the player could do instead.
    fn why_not(&self, choice: &Choice) -> String {
        let campaign_why;
        let why = match choice {
            Choice::Start { .. } => "that window is not ready to start",
            Choice::Collect { .. } => "that window has no results to collect",
            Choice::Unslot { .. } => "no card the player can take out is in that slot place",
            Choice::Slot { .. } => "that slot does not take the card",
            Choice::Close { .. } => "only an idle or ready window with cards in its slots can be closed",
            Choice::Flip { .. } => "that card cannot be turned over now",
            Choice::RollDie { .. } | Choice::PlaceOnBoard { .. } | Choice::PlayBoardCard { .. } => {
                self.board_why_not(choice)
            }
            Choice::MoveUnit { .. } => "that unit cannot move there now",
            Choice::UseSkill { .. } => "that unit cannot use that skill there now",
            Choice::WaitUnit { .. } | Choice::FaceUnit { .. } => "it is not that unit's turn",
            Choice::PlayOption { .. } | Choice::EndTurn => self.why_not_turn(choice),
            Choice::MoveToNode { .. } | Choice::EndPhase | Choice::Synthesize { .. } => {
                campaign_why = self.why_not_campaign(choice);
                campaign_why.as_str()
            }
        };
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
        let token_name = |token: TokenKey| {
            let Some(window) = self.state.window(token) else { return "?".to_owned() };
            let nth = self.state.windows.iter().filter(|(key, w)| w.token == window.token && **key <= token).count();
            if nth > 1 { format!("{}#{nth}", window.token) } else { window.token.to_string() }
        };
        match choice {
            Choice::Slot { card, token, place } => {
                let card_type = self.state.card(*card).map_or("?", |card| card.card.as_str());
                format!("slot {card_type} {} {place}", token_name(*token))
            }
            Choice::Unslot { token, place } => format!("unslot {} {place}", token_name(*token)),
            Choice::Start { token } => format!("start {}", token_name(*token)),
            Choice::Collect { token } => format!("collect {}", token_name(*token)),
            Choice::Close { token } => format!("close {}", token_name(*token)),
            Choice::Flip { card } => format!("flip {}", self.state.card(*card).map_or("?", |card| card.card.as_str())),
            Choice::RollDie { .. } | Choice::PlaceOnBoard { .. } | Choice::PlayBoardCard { .. } => {
                self.describe_board_choice(choice)
            }
            Choice::MoveUnit { unit, x, y, z } => format!("move {unit} {x} {y} {z}"),
            Choice::UseSkill { unit, skill, x, y, z } => format!("use {unit} {skill} {x} {y} {z}"),
            Choice::WaitUnit { unit } => format!("wait {unit}"),
            Choice::FaceUnit { unit, facing } => format!("face {unit} {}", compass_name(*facing)),
            Choice::PlayOption { .. } | Choice::EndTurn => self.describe_turn_choice(choice),
            Choice::MoveToNode { .. } | Choice::EndPhase | Choice::Synthesize { .. } => {
                Self::describe_campaign_choice(choice)
            }
        }
    }

    #[allow(clippy::too_many_lines)] // one flat match over every system's expectation words
    fn expect(&self, rest: &str) -> Result<String, String> {
        let (what, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let args = args.trim();
        let compare = |name: &str, actual: String, expected: String| {
            if actual == expected {
                Ok(String::new())
            } else {
                Err(format!("{name} is {actual:?}, expected {expected:?}"))
            }
        };
        if let Some(result) = self.expect_turn(what, args) {
            return result;
        }
        if let Some(result) = self.expect_campaign(what, args) {
            return result;
        }
        match what {
            "unit" | "turn" | "winner" if self.tactics.is_some() => self.tactics_expect(what, args),
            "title" | "text" | "end" => {
                let (token, text) =
                    args.split_once(char::is_whitespace).ok_or("usage: expect title|text|end TOKEN \"…\"")?;
                let text = text.trim();
                let expected = text
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .ok_or("put the expected text in quotes")?;
                let window = self.window_arg(token)?;
                let actual = match what {
                    "title" => &window.title,
                    "text" => &window.text,
                    _ => &window.end_text,
                };
                compare(&format!("{what} of {token}"), actual.clone(), expected.replace("\\n", "\n"))
            }
            "status" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect status TOKEN idle|ready|running|finished|gone")?;
                let want = words.next().ok_or("name a status")?;
                let actual = match self.find_token(token).and_then(|key| self.state.window(key)) {
                    None => "gone",
                    Some(window) => match window.status {
                        Status::Idle => "idle",
                        Status::Ready(_) => "ready",
                        Status::Running => "running",
                        Status::Finished => "finished",
                    },
                };
                compare(&format!("status of {token}"), actual.to_owned(), want.to_owned())
            }
            "act" | "alt" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect act|alt TOKEN ACT|none")?;
                let want = words.next().ok_or("name an act (or none)")?;
                let window = self.window_arg(token)?;
                let actual = if what == "alt" {
                    window.pending_alt.as_ref()
                } else {
                    match &window.status {
                        Status::Ready(act) => Some(act),
                        Status::Running => window.active.as_ref(),
                        Status::Idle | Status::Finished => None,
                    }
                };
                compare(
                    &format!("{what} of {token}"),
                    actual.map_or("none", |act| act.as_str()).to_owned(),
                    want.to_owned(),
                )
            }
            "slots" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect slots TOKEN SLOT...")?;
                let window = self.window_arg(token)?;
                let open: Vec<&str> = window
                    .status_places()
                    .filter_map(|place| window.places.get(place).and_then(Option::as_ref))
                    .map(|open| open.slot.as_str())
                    .collect();
                compare(&format!("open slots of {token}"), open.join(" "), words.collect::<Vec<_>>().join(" "))
            }
            "lane" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect lane TOKEN CARD[*N]...")?;
                let window = self.window_arg(token)?;
                let types = window.lane.iter().filter_map(|key| self.state.card(*key)).map(|card| card.card.as_str());
                compare(&format!("results of {token}"), stacks(types), words.collect::<Vec<_>>().join(" "))
            }
            "refused" => {
                let mut trial = self.clone();
                match trial.script_line(args, &mut ScriptReport::default()) {
                    Ok(_) => Err(format!("`{args}` was possible")),
                    Err(_) => Ok(String::new()),
                }
            }
            _ => {
                if let Some(result) = self.board_expect(what, args) {
                    return result;
                }
                let value = self.query(rest)?;
                if core::truthy(value) {
                    Ok(String::new())
                } else {
                    Err(format!("`{rest}` does not hold{}", self.describe_counts(rest)))
                }
            }
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
