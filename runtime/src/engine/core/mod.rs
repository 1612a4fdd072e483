//! The rules core: the one evaluator of requirements (tests, condition, and/or sub-rules,
//! invert) and the one runner of rules and effects, shared by every system that accepts rules
//! (the table, turns, the campaign and boards) through a small host trait, [`RulesHost`].
//!
//! The core owns the semantics: the depth limit and its warning, `invert`, tests in order with
//! `can_fail`, the truth of a condition ([`truthy`]), `and`/`or` sub-rules, the random test ops,
//! and running effects: each modifier category handed to the host in one fixed order, then
//! `furthermore`. A host supplies what is particular to it: counting a fragment at a location,
//! a formula's value in its context, random bits, warnings, and performing each modifier kind
//! (a kind it does not perform warns that it does nothing there). Every function is generic
//! over the host, so each system gets its own monomorphised copy and nothing is dynamic in the
//! table's hot path.

mod explain;
mod host;
mod rules;

pub(crate) use explain::explain;
pub(crate) use host::{Depth, Nested, RulesHost};
pub(crate) use rules::{decide, evaluate, evaluate_rule, execute, run_rule, run_rules, test_holds};

use crate::model::{CardId, Expr, FragmentRef, TestOp};

use super::content::Content;

/// Deepest nesting of rules inside rules (and/or, furthermore, thresholds, triggers run by
/// modifiers); deeper content is a cycle and fails with a warning instead of recursing forever.
pub(crate) const MAX_RULE_DEPTH: usize = 32;

/// Most rules one step may run. Depth alone does not bound the work: a rule that names itself
/// twice in `furthermore` runs 2^depth times. Past this the step is cut with a warning.
pub(crate) const MAX_RULE_RUNS_PER_STEP: u32 = 100_000;

/// The work one step of a system has done, against [`MAX_RULE_RUNS_PER_STEP`].
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StepWork {
    /// Rules run (evaluated) so far in the step.
    rule_runs: u32,
    /// The budget ran out: no further rule runs in this step.
    cut: bool,
}

/// The warning when rules nest deeper than [`MAX_RULE_DEPTH`].
pub(crate) const NESTED_TOO_DEEPLY: &str =
    "rules nest too deeply (a rule refers to itself through and/or/furthermore); it fails";

/// Whether a formula's value counts as true where a condition is asked: non-zero and not NaN.
/// (Inside formulas `not`, `and`, `or` and `if` treat NaN as true, as FORMAT.md §5 says.)
#[inline]
pub(crate) fn truthy(value: f64) -> bool {
    value != 0.0 && !value.is_nan()
}

/// A formula's value as a whole number where the model takes one: truncated towards zero,
/// NaN and infinities 0.
#[inline]
pub(crate) fn whole(value: f64) -> i64 {
    if value.is_finite() { value as i64 } else { 0 }
}

/// A uniform integer in `0..n` from 64 random bits (0 when `n` is 0).
#[inline]
pub(crate) fn below(bits: u64, n: usize) -> usize {
    bits.checked_rem(n as u64).unwrap_or(0) as usize
}

/// Puts a deck's entries in shuffled order (`spec/cultistlike.md` §2.12): `below(n)` gives a
/// uniform integer in `0..n` (0 for an empty range, with no draw).
pub(crate) fn shuffle_deck<T>(
    entries: Vec<T>,
    mode: crate::model::ShuffleMode,
    mut below: impl FnMut(usize) -> usize,
) -> Vec<T> {
    match mode {
        crate::model::ShuffleMode::Uniform => {
            let mut entries = entries;
            for at in (1..entries.len()).rev() {
                let other = below(at.saturating_add(1));
                entries.swap(at, other);
            }
            entries
        }
        crate::model::ShuffleMode::Insertion => {
            // As the original: each entry goes before a random one of those placed so far
            // (index in `0..len`, never at the end), so the first entry always ends last.
            let mut shuffled = Vec::with_capacity(entries.len());
            for entry in entries {
                let at = below(shuffled.len()).min(shuffled.len());
                shuffled.insert(at, entry);
            }
            shuffled
        }
    }
}

/// A uniform number in [0, 1] from 64 random bits.
#[inline]
pub(crate) fn unit(bits: u64) -> f64 {
    (bits >> 11) as f64 / ((1u64 << 53) - 1) as f64
}

/// A test's comparison of two counts (`spec/cultistlike.md` §2.5); the random ops are decided
/// by the core with the host's generator.
pub(crate) fn compare(op: TestOp, left: i64, right: i64) -> bool {
    match op {
        TestOp::MoreOrEqual => left >= right,
        TestOp::Equal => left == right,
        TestOp::LessOrEqual => left <= right,
        TestOp::More => left > right,
        TestOp::NotEqual => left != right,
        TestOp::Less => left < right,
        // Intended behaviour: a modulus of 0 fails instead of raising an error.
        TestOp::Mod => right != 0 && left.checked_rem(right) == Some(0),
        TestOp::RandomChallenge | TestOp::RandomClash => false,
    }
}

/// How many of a fragment a hand of card types holds: cards of a type, or an aspect summed over
/// the cards' fragment counts (each count's formula valued by `value`, non-finite ones left out);
/// special fragments count 0. The turns system, the campaign and boards count in a hand.
pub(crate) fn hand_count(
    content: &Content,
    hand: &[CardId],
    fragment: &FragmentRef,
    mut value: impl FnMut(&Expr) -> f64,
) -> i64 {
    match fragment {
        FragmentRef::Card(id) => hand.iter().filter(|card| *card == id).count() as i64,
        FragmentRef::Aspect(id) => {
            let mut total: i64 = 0;
            for card in hand {
                let Some(card) = content.card(card.as_str()) else { continue };
                for held in &card.fragments {
                    if matches!(&held.fragment, FragmentRef::Aspect(aspect) if aspect == id) {
                        let count = value(&held.count);
                        if count.is_finite() {
                            total = total.saturating_add(count as i64);
                        }
                    }
                }
            }
            total
        }
        _ => 0,
    }
}
