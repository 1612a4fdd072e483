//! Scripted play: a playtest is a text file of player actions, waits and expectations run
//! against a [`Session`] (`actforge play`, golden tests, the preview's saved input logs).
//! FORMAT.md §7 describes the format.

use std::fmt::Write as _;

use super::table::Engine;
use super::{CardKey, Choice, Place, Session, Status, TokenKey};

/// A script line that failed: where and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScriptError {
    /// 1-based line number.
    pub line: usize,
    /// What went wrong.
    pub message: String,
}

/// What a script did: one log line per step.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScriptReport {
    /// Human-readable log.
    pub log: Vec<String>,
    /// How many `expect` lines passed.
    pub expectations: usize,
}

impl Session {
    /// The window of `name`: a token id (the first of that type in registry order) or
    /// `ID#N` for the N-th (from 1).
    pub fn find_token(&self, name: &str) -> Option<TokenKey> {
        let (id, nth) = match name.split_once('#') {
            Some((id, n)) => (id, n.parse::<usize>().ok()?.checked_sub(1)?),
            None => (name, 0),
        };
        self.state.windows.iter().filter(|(_, window)| window.token.as_str() == id).nth(nth).map(|(key, _)| *key)
    }

    /// The value of a formula over the table, e.g. `table.card.kitten` or `anywhere.aspect.furry`.
    pub fn query(&self, formula: &str) -> Result<f64, String> {
        let mut state = self.state.clone();
        let mut rng = self.rng.clone();
        let mut events = Vec::new();
        let mut engine = Engine::new(&self.content, &mut state, &mut rng, &mut events);
        engine.query(formula).map_err(|error| error.render(formula))
    }

    /// Runs a playtest script; stops at the first line that fails.
    pub fn run_script(&mut self, script: &str) -> Result<ScriptReport, ScriptError> {
        let mut report = ScriptReport::default();
        for (index, raw) in script.lines().enumerate() {
            let line = raw.split_once(" #").map_or(raw, |(code, _)| code).trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let fail = |message: String| ScriptError { line: index + 1, message };
            let entry = self.script_line(line, &mut report).map_err(fail)?;
            report.log.push(format!("[{:>6}] {line}{entry}", self.state.tick));
        }
        Ok(report)
    }

    fn token_arg(&self, name: Option<&str>) -> Result<TokenKey, String> {
        let name = name.ok_or("name a token")?;
        self.find_token(name).ok_or_else(|| {
            let known: Vec<&str> = self.state.windows.values().map(|window| window.token.as_str()).collect();
            format!("no token `{name}` on the table (there are: {})", known.join(", "))
        })
    }

    /// The first free card of a type the player can pick up: table first, then result lanes.
    fn free_card(&self, card_type: &str) -> Option<CardKey> {
        let of_type =
            |key: &&CardKey| self.state.card(**key).is_some_and(|card| card.card.as_str() == card_type && card.free);
        let on_table = self.state.table.iter().find(of_type).copied();
        on_table.or_else(|| self.state.windows.values().flat_map(|window| window.lane.iter()).find(of_type).copied())
    }

    fn script_line(&mut self, line: &str, report: &mut ScriptReport) -> Result<String, String> {
        let (command, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let rest = rest.trim();
        let mut words = rest.split_whitespace();
        match command {
            "slot" => {
                let card_type = words.next().ok_or("usage: slot CARD TOKEN [PLACE]")?;
                let token = self.token_arg(words.next())?;
                let place: Option<usize> = words.next().map(str::parse).transpose().map_err(|_| "PLACE is a number")?;
                let card = self.free_card(card_type).ok_or_else(|| format!("no free `{card_type}` card to pick up"))?;
                let choice = self
                    .choices()
                    .into_iter()
                    .find(|choice| matches!(choice, Choice::Slot { card: c, token: t, place: p } if *c == card && *t == token && place.is_none_or(|want| want == *p)))
                    .ok_or_else(|| format!("no open slot of that window accepts `{card_type}`"))?;
                self.apply(&choice).map_err(|error| error.to_string())?;
                Ok(String::new())
            }
            "unslot" => {
                let token = self.token_arg(words.next())?;
                let place: usize = words.next().map_or(Ok(0), str::parse).map_err(|_| "PLACE is a number")?;
                self.apply(&Choice::Unslot { token, place }).map_err(|error| error.to_string())?;
                Ok(String::new())
            }
            "start" => {
                let token = self.token_arg(words.next())?;
                self.apply(&Choice::Start { token }).map_err(|_| "that window is not ready to start".to_owned())?;
                Ok(String::new())
            }
            "collect" => {
                let token = self.token_arg(words.next())?;
                self.apply(&Choice::Collect { token })
                    .map_err(|_| "that window has no results to collect".to_owned())?;
                Ok(String::new())
            }
            "wait" => {
                let amount = words.next().ok_or("usage: wait TICKS or wait SECONDSs")?;
                let ticks = match amount.strip_suffix('s') {
                    Some(seconds) => seconds
                        .parse::<u64>()
                        .map(|s| s * u64::from(self.content.project.manifest.settings.ticks_per_second))
                        .map_err(|_| format!("`{amount}` is not a number of seconds"))?,
                    None => amount.parse::<u64>().map_err(|_| format!("`{amount}` is not a number of ticks"))?,
                };
                let events = self.advance(ticks);
                let mut note = String::new();
                for event in &events {
                    if let super::Event::ActCompleted { act, .. } = event {
                        let _ = write!(note, "  completed {act};");
                    }
                }
                Ok(note)
            }
            "expect" => {
                report.expectations += 1;
                self.expect(rest)
            }
            other => Err(format!("unknown command `{other}` (slot, unslot, start, collect, wait, expect)")),
        }
    }

    fn expect(&self, rest: &str) -> Result<String, String> {
        let (what, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let quoted = |args: &str| -> Result<(String, String), String> {
            let (token, text) =
                args.trim().split_once(char::is_whitespace).ok_or("usage: expect title|text TOKEN \"…\"")?;
            let text = text.trim();
            let text =
                text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).ok_or("put the expected text in quotes")?;
            Ok((token.to_owned(), text.replace("\\n", "\n")))
        };
        match what {
            "title" | "text" => {
                let (token, expected) = quoted(args)?;
                let window = self
                    .token_arg(Some(&token))
                    .and_then(|key| self.state.window(key).ok_or_else(|| "gone".to_owned()))?;
                let actual = if what == "title" { &window.title } else { &window.text };
                if *actual == expected {
                    Ok(String::new())
                } else {
                    Err(format!("{what} of {token} is {actual:?}, expected {expected:?}"))
                }
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
                if actual == want { Ok(String::new()) } else { Err(format!("{token} is {actual}, expected {want}")) }
            }
            _ => {
                let value = self.query(rest)?;
                if value != 0.0 && !value.is_nan() {
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

    /// Where a card is, in words (for logs and the CLI).
    pub fn describe_place(&self, key: CardKey) -> String {
        let token_name =
            |token: TokenKey| self.state.window(token).map_or("?", |window| window.token.as_str()).to_owned();
        match self.state.card(key).map(|card| card.place) {
            None => "gone".to_owned(),
            Some(Place::Table) => "table".to_owned(),
            Some(Place::Slot(token, at)) => format!("{} slot {at}", token_name(token)),
            Some(Place::Consumed(token)) => format!("in {}", token_name(token)),
            Some(Place::Lane(token)) => format!("{} results", token_name(token)),
            Some(Place::InCard(parent)) => format!("inside card {}", parent.0),
        }
    }
}
