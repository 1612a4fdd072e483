//! Balance targets in a playtest (FORMAT.md §7): `expect sim` lines play many random games
//! from the script's current state through the `sim` module and check a share, a mean or that
//! no content went unreached; and the `outcome.…` names that let a formula read how a game
//! ended.

use std::borrow::Cow;
use std::fmt::Write as _;

use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

use super::{ScriptOptions, ScriptReport, Session};
use crate::engine::Outcome;
use crate::engine::core;
use crate::formula::lexer::{Symbol, TokenKind, tokenize};
use crate::sim::{DeadContent, Policy, Progress, SimOptions, simulate_from};

/// Runs of an `expect sim` line that names none.
pub const DEFAULT_SIM_RUNS: usize = 200;

/// Most runs one `expect sim` line may ask for.
pub const MAX_SIM_RUNS: usize = 100_000;

/// What an `expect sim` line checks over its runs.
enum SimCheck {
    /// `P(FORMULA) in A..B`: the share of runs whose final state makes the formula non-zero.
    Share { formula: String, low: f64, high: f64 },
    /// `mean(FORMULA) in A..B`: the formula's mean over the runs where it is a number.
    Mean { formula: String, low: f64, high: f64 },
    /// `no dead content`: every act, card, option, skill and node is reached by some run.
    NoDeadContent,
}

/// The rest of an `expect sim` line (after `expect sim`), or none when `line` is another line.
/// `expect sim > 3` (a stat called `sim`) stays a formula expectation.
pub(super) fn sim_expectation(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("expect")?.trim_start().strip_prefix("sim")?;
    let after = rest.trim_start();
    let ours = after.starts_with(':')
        || ["runs", "seed"].iter().any(|word| {
            after.strip_prefix(word).is_some_and(|tail| tail.starts_with(|c: char| c.is_whitespace() || c == ':'))
        });
    ours.then_some(after)
}

/// `[runs N] [seed S]: CHECK` → runs, seed and check.
fn parse(rest: &str, default_seed: u64) -> Result<(usize, u64, SimCheck), String> {
    const USAGE: &str =
        "usage: expect sim [runs N] [seed S]: P(FORMULA) in A..B | mean(FORMULA) in A..B | no dead content";
    let (head, check) = rest.split_once(':').ok_or(USAGE)?;
    let mut runs = DEFAULT_SIM_RUNS;
    let mut seed = default_seed;
    let mut words = head.split_whitespace();
    while let Some(word) = words.next() {
        let value = words.next().ok_or_else(|| format!("`{word}` needs a number; {USAGE}"))?;
        match word {
            "runs" => runs = value.parse().map_err(|_| format!("`{value}` is not a number of runs"))?,
            "seed" => seed = value.parse().map_err(|_| format!("`{value}` is not a seed (a whole number)"))?,
            _ => return Err(format!("`{word}` is not `runs` or `seed`; {USAGE}")),
        }
    }
    if runs == 0 || runs > MAX_SIM_RUNS {
        return Err(format!("an `expect sim` line plays 1 to {MAX_SIM_RUNS} runs, not {runs}"));
    }
    let check = check.trim();
    if check == "no dead content" {
        return Ok((runs, seed, SimCheck::NoDeadContent));
    }
    let (measure, range) = check.rsplit_once(" in ").ok_or(USAGE)?;
    let (low, high) = range.trim().split_once("..").ok_or_else(|| format!("`{}` is not a range A..B", range.trim()))?;
    let number = |text: &str| {
        text.trim()
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite())
            .ok_or_else(|| format!("`{text}` is not a number"))
    };
    let (low, high) = (number(low)?, number(high)?);
    if low > high {
        return Err(format!("the range {low}..{high} is empty"));
    }
    let measure = measure.trim();
    let inner = |prefix: &str| {
        measure.strip_prefix(prefix).and_then(|rest| rest.strip_suffix(')')).map(|formula| formula.trim().to_owned())
    };
    if let Some(formula) = inner("P(") {
        Ok((runs, seed, SimCheck::Share { formula, low, high }))
    } else if let Some(formula) = inner("mean(") {
        Ok((runs, seed, SimCheck::Mean { formula, low, high }))
    } else {
        Err(format!("`{measure}` is not P(FORMULA) or mean(FORMULA); {USAGE}"))
    }
}

/// A share or mean in few digits (`0.31`, `12.5`).
fn short(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = if text.contains('.') { text.trim_end_matches('0').trim_end_matches('.') } else { &text };
    text.to_owned()
}

/// `acts a, b; cards c` for what no run reached.
fn dead_list(dead: &DeadContent) -> String {
    let kinds = [
        ("acts", &dead.acts),
        ("cards", &dead.cards),
        ("options", &dead.options),
        ("skills", &dead.skills),
        ("nodes", &dead.nodes),
        ("eras", &dead.eras),
        ("grades", &dead.grades),
    ];
    let parts: Vec<String> = kinds
        .iter()
        .filter(|(_, ids)| !ids.is_empty())
        .map(|(kind, ids)| format!("{kind} {}", ids.join(", ")))
        .collect();
    parts.join("; ")
}

/// A formula's outcome path as words after `outcome` (`outcome.won.p1` → `["won", "p1"]`).
fn outcome_value(session: &Session, words: &[&str]) -> Result<bool, String> {
    let ended = crate::sim::ended(session);
    let text = match &session.state.outcome {
        Some(Outcome::Ended(text)) => Some(text.as_str()),
        _ => session.campaign().and_then(|campaign| campaign.result.as_ref()).map(|result| result.outcome.as_str()),
    };
    let board = session.board().and_then(|board| board.game.outcome.as_ref());
    let winner = board
        .and_then(|outcome| outcome.winner.as_ref().map(ToString::to_string))
        .or_else(|| session.tactics().and_then(|battle| battle.winner()).map(str::to_owned));
    let campaign = session.campaign().and_then(|campaign| campaign.result.as_ref());
    Ok(match words {
        ["ended"] => ended,
        ["unfinished"] => !ended,
        ["ended", slug] => text.is_some_and(|text| outcome_slug(text) == *slug),
        ["stopped"] => matches!(session.state.outcome, Some(Outcome::Stopped(_))),
        ["draw"] => board.is_some_and(|outcome| outcome.winner.is_none()),
        ["won", id] => winner.as_deref() == Some(*id),
        ["won"] => campaign.is_some_and(|result| result.won),
        ["lost"] => campaign.is_some_and(|result| !result.won),
        _ => {
            return Err(format!(
                "`outcome.{}` is not an outcome name (outcome.ended, outcome.ended.TEXT, outcome.unfinished, \
                 outcome.stopped, outcome.draw, outcome.won.SIDE, outcome.won, outcome.lost)",
                words.join(".")
            ));
        }
    })
}

/// An outcome's text as one name: lower case, each run of other characters than letters,
/// digits and `_` one `_` (`player_one wins` → `player_one_wins`).
pub(crate) fn outcome_slug(text: &str) -> String {
    let mut slug = String::new();
    for c in text.trim().chars() {
        if c.is_alphanumeric() || c == '_' {
            slug.extend(c.to_lowercase());
        } else if !slug.ends_with('_') {
            slug.push('_');
        }
    }
    slug.trim_matches('_').to_owned()
}

impl Session {
    /// Gives the session's generator a new seed (the state stays as it is), so copies of one
    /// state play on differently (`expect sim`).
    pub(crate) fn reseed(&mut self, seed: u64) {
        self.rng = Pcg64Mcg::seed_from_u64(seed);
    }

    /// `formula` with each `outcome.…` path replaced by its value, 1 or 0, padded to the path's
    /// length so that error columns still point into the text as written; an unknown outcome
    /// name is an error. A text that does not lex is left as it is (the query says why).
    pub(super) fn with_outcome_names<'a>(&self, formula: &'a str) -> Result<Cow<'a, str>, String> {
        if !formula.contains("outcome") {
            return Ok(Cow::Borrowed(formula));
        }
        let Ok(tokens) = tokenize(formula) else { return Ok(Cow::Borrowed(formula)) };
        let mut replacements: Vec<(usize, usize, &str)> = Vec::new();
        let mut index = 0;
        while let Some(token) = tokens.get(index) {
            let after_dot = index
                .checked_sub(1)
                .and_then(|before| tokens.get(before))
                .is_some_and(|before| before.kind == TokenKind::Symbol(Symbol::Dot));
            if token.kind != TokenKind::Ident("outcome") || after_dot {
                index = index.saturating_add(1);
                continue;
            }
            let mut words = Vec::new();
            let mut end = token.span.end;
            let mut next = index.saturating_add(1);
            while let (Some(dot), Some(name)) = (tokens.get(next), tokens.get(next.saturating_add(1))) {
                match (dot.kind, name.kind) {
                    (TokenKind::Symbol(Symbol::Dot), TokenKind::Ident(word)) => {
                        words.push(word);
                        end = name.span.end;
                        next = next.saturating_add(2);
                    }
                    _ => break,
                }
            }
            if !words.is_empty() {
                let value = if outcome_value(self, &words)? { "1" } else { "0" };
                replacements.push((token.span.start, end, value));
            }
            index = next;
        }
        if replacements.is_empty() {
            return Ok(Cow::Borrowed(formula));
        }
        let mut out = formula.to_owned();
        for (start, end, value) in replacements.into_iter().rev() {
            let width = end.saturating_sub(start).max(value.len());
            if let Some(range) = out.get(start..end).map(|_| start..end) {
                out.replace_range(range, &format!("{value:<width$}"));
            }
        }
        Ok(Cow::Owned(out))
    }

    /// `expect sim [runs N] [seed S]: …` at script line `number`: plays the runs from a copy of
    /// this state and checks what they did; a capped line is noted in `report`.
    pub(super) fn expect_sim(
        &self,
        rest: &str,
        number: usize,
        options: &ScriptOptions,
        report: &mut ScriptReport,
    ) -> Result<String, String> {
        let (asked, seed, check) = parse(rest, self.seed)?;
        let runs = options.max_sim_runs.map_or(asked, |cap| asked.min(cap.max(1)));
        let capped = if runs < asked { format!(" (capped at {runs} of {asked} runs)") } else { String::new() };
        let note = format!("line {number}: expect sim {}{capped}", rest.trim());
        if !capped.is_empty() && !report.notes.contains(&note) {
            report.notes.push(note);
        }
        let formula = match &check {
            SimCheck::Share { formula, .. } | SimCheck::Mean { formula, .. } => {
                self.query(formula).map_err(|error| format!("`{formula}`: {error}"))?;
                Some(formula.as_str())
            }
            SimCheck::NoDeadContent => None,
        };
        let sim =
            SimOptions { runs, seed, policy: Policy::Random, threads: options.sim_threads, ..SimOptions::default() };
        let measure =
            |session: &Session| formula.map_or(f64::NAN, |formula| session.query(formula).unwrap_or(f64::NAN));
        let (summary, values) = simulate_from(self, &sim, &Progress::default(), &measure)
            .map_err(|error| format!("simulation: {error}"))?;
        let mut note = String::new();
        match check {
            SimCheck::Share { formula, low, high } => {
                let hits = values.iter().filter(|value| core::truthy(**value)).count();
                #[allow(clippy::cast_precision_loss)]
                let share = hits as f64 / runs.max(1) as f64;
                let measured = format!("P({formula}) = {} ({hits} of {runs} runs){capped}", short(share));
                if !(low..=high).contains(&share) {
                    return Err(format!("{measured}, expected in {}..{}", short(low), short(high)));
                }
                let _ = write!(note, "  {measured}");
            }
            SimCheck::Mean { formula, low, high } => {
                let numbers: Vec<f64> = values.iter().copied().filter(|value| !value.is_nan()).collect();
                #[allow(clippy::cast_precision_loss)]
                let mean = numbers.iter().sum::<f64>() / numbers.len().max(1) as f64;
                let over = if numbers.len() == runs {
                    format!("over {runs} runs")
                } else {
                    format!("over the {} of {runs} runs where it is a number", numbers.len())
                };
                let measured = format!("mean({formula}) = {} {over}{capped}", short(mean));
                if numbers.is_empty() || !(low..=high).contains(&mean) {
                    return Err(format!("{measured}, expected in {}..{}", short(low), short(high)));
                }
                let _ = write!(note, "  {measured}");
            }
            SimCheck::NoDeadContent => {
                if !summary.dead.is_empty() {
                    return Err(format!("no run reached {} (in {runs} runs){capped}", dead_list(&summary.dead)));
                }
                let _ = write!(note, "  every act, card and option reached in {runs} runs{capped}");
            }
        }
        Ok(note)
    }
}
