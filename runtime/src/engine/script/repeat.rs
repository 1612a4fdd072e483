//! `repeat N` … `end` blocks of a playtest (FORMAT.md §7): the script is read into a tree of
//! lines and blocks first, so an unclosed `repeat`, a stray `end` or a script that would run
//! too many lines fails before anything runs, naming its line.

use std::fmt::Write as _;

use super::{ScriptError, ScriptOptions, ScriptReport, Session};

/// Most lines one run of a script executes, each repetition's lines counted (a repetition of
/// an empty block counts one): a hostile `repeat 1000000000` fails at once instead of running.
pub const MAX_SCRIPT_STEPS: usize = 100_000;

/// Most `repeat` blocks open inside one another.
pub const MAX_REPEAT_DEPTH: usize = 16;

/// A script line, or a block of lines repeated.
#[derive(Debug)]
enum Item<'a> {
    /// A line to run (comments stripped) and its number in the file, from 1.
    Line { number: usize, text: &'a str },
    /// `repeat times` at line `number`, with the lines up to its `end`.
    Repeat { number: usize, times: usize, body: Vec<Item<'a>> },
}

impl Item<'_> {
    fn number(&self) -> usize {
        match self {
            Self::Line { number, .. } | Self::Repeat { number, .. } => *number,
        }
    }
}

/// Lines executed by `items`, saturating (a repetition counts at least one).
fn steps(items: &[Item<'_>]) -> usize {
    items.iter().fold(0_usize, |total, item| {
        let cost = match item {
            Item::Line { .. } => 1,
            Item::Repeat { times, body, .. } => times.saturating_mul(steps(body).max(1)),
        };
        total.saturating_add(cost)
    })
}

/// A block still open while the script is read: its line, count and lines so far.
struct Open<'a> {
    number: usize,
    times: usize,
    body: Vec<Item<'a>>,
}

/// Reads the script into lines and blocks.
fn parse(script: &str) -> Result<Vec<Item<'_>>, ScriptError> {
    let mut top: Vec<Item<'_>> = Vec::new();
    let mut open: Vec<Open<'_>> = Vec::new();
    for (index, raw) in script.lines().enumerate() {
        let number = index.saturating_add(1);
        let fail = |message: String| ScriptError { line: number, message, repetitions: Vec::new() };
        let text = raw.split_once(" #").map_or(raw, |(code, _)| code).trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let (command, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        match command {
            "repeat" => {
                let rest = rest.trim();
                let times = rest.parse::<usize>().map_err(|_| {
                    fail(format!(
                        "`repeat` takes how many times to run the lines up to its `end` (`repeat 5`), not `{rest}`"
                    ))
                })?;
                if open.len() >= MAX_REPEAT_DEPTH {
                    return Err(fail(format!("`repeat` blocks nest at most {MAX_REPEAT_DEPTH} deep")));
                }
                open.push(Open { number, times, body: Vec::new() });
            }
            "end" => {
                if !rest.trim().is_empty() {
                    return Err(fail(format!(
                        "`end` closes a `repeat` block and takes nothing, not `{}`",
                        rest.trim()
                    )));
                }
                let Some(block) = open.pop() else {
                    return Err(fail("`end` without a `repeat` block to close".to_owned()));
                };
                let item = Item::Repeat { number: block.number, times: block.times, body: block.body };
                match open.last_mut() {
                    Some(outer) => outer.body.push(item),
                    None => top.push(item),
                }
            }
            _ => {
                let item = Item::Line { number, text };
                match open.last_mut() {
                    Some(outer) => outer.body.push(item),
                    None => top.push(item),
                }
            }
        }
    }
    if let Some(block) = open.last() {
        return Err(ScriptError {
            line: block.number,
            message: "this `repeat` block is never closed by an `end` line".to_owned(),
            repetitions: Vec::new(),
        });
    }
    Ok(top)
}

/// Refuses a script that would run more than [`MAX_SCRIPT_STEPS`] lines, naming the first
/// top-level line (usually a `repeat`) that takes it over the bound.
fn check_steps(items: &[Item<'_>]) -> Result<(), ScriptError> {
    let mut total = 0_usize;
    for item in items {
        let cost = steps(std::slice::from_ref(item));
        total = total.saturating_add(cost);
        if total > MAX_SCRIPT_STEPS {
            let runs = if cost == usize::MAX { "more than can be counted".to_owned() } else { cost.to_string() };
            return Err(ScriptError {
                line: item.number(),
                message: format!(
                    "the script would run too many lines: this block runs {runs} of them and a script runs at most \
                     {MAX_SCRIPT_STEPS} in all (each repetition counted)"
                ),
                repetitions: Vec::new(),
            });
        }
    }
    Ok(())
}

/// `repetition 3 of 5`, with the inner blocks' after it (`, inner repetition 1 of 2`).
pub(super) fn repetition_words(repetitions: &[(usize, usize)]) -> String {
    let mut words = String::new();
    for (depth, (at, of)) in repetitions.iter().enumerate() {
        if depth > 0 {
            words.push_str(", inner ");
        }
        let _ = write!(words, "repetition {at} of {of}");
    }
    words
}

/// ` (repetition 3 of 5)` after a line number; nothing outside `repeat` blocks.
pub(super) fn in_parentheses(repetitions: &[(usize, usize)]) -> String {
    if repetitions.is_empty() { String::new() } else { format!(" ({})", repetition_words(repetitions)) }
}

impl Session {
    /// Runs a playtest script with `options` (caps of `expect sim` lines), adding to `report`
    /// (which keeps what ran before a failing line). `repeat N` … `end` blocks run their lines
    /// N times; the script is checked for unclosed blocks and its bound of
    /// [`MAX_SCRIPT_STEPS`] lines before any line runs.
    pub fn run_script_with(
        &mut self,
        script: &str,
        options: &ScriptOptions,
        report: &mut ScriptReport,
    ) -> Result<(), ScriptError> {
        let items = parse(script)?;
        check_steps(&items)?;
        let mut repetitions = Vec::new();
        self.run_items(&items, options, report, &mut repetitions)
    }

    fn run_items(
        &mut self,
        items: &[Item<'_>],
        options: &ScriptOptions,
        report: &mut ScriptReport,
        repetitions: &mut Vec<(usize, usize)>,
    ) -> Result<(), ScriptError> {
        for item in items {
            match item {
                Item::Line { number, text } => {
                    self.run_line(text, *number, options, report).map_err(|message| ScriptError {
                        line: *number,
                        message,
                        repetitions: repetitions.clone(),
                    })?;
                }
                Item::Repeat { times, body, .. } => {
                    for at in 1..=*times {
                        repetitions.push((at, *times));
                        let result = self.run_items(body, options, report, repetitions);
                        repetitions.pop();
                        result?;
                    }
                }
            }
        }
        Ok(())
    }
}
