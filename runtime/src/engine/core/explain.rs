//! "Why not?": requirements evaluated as [`super::rules::evaluate`] does, writing down in words
//! what failed and with which values. Run it on a copy of the session: random tests draw.

use crate::formula::FormulaTrace;
use crate::model::{FragmentRef, Location, Requirements, Test, TestOp};

use super::host::{Nested, RulesHost};
use super::rules::{decide, evaluate_rule, number};
use super::{MAX_RULE_DEPTH, truthy};

/// Whether `requirements` hold; when they do not, `why` gets a line for what failed, and
/// `traces` the trace of each condition that failed (its sub-expressions' values in the rule's
/// own context, what made it false marked).
pub(crate) fn explain<'c, H: RulesHost<'c>>(
    host: &mut H,
    requirements: &'c Requirements,
    invert: bool,
    ctx: &mut H::Context,
    why: &mut Vec<String>,
    traces: &mut Vec<FormulaTrace>,
) -> bool {
    if ctx.depth() > MAX_RULE_DEPTH {
        why.push("rules nest too deeply".to_owned());
        return false;
    }
    if invert {
        let mut inner = Vec::new();
        let held = explain(host, requirements, false, ctx, &mut inner, &mut Vec::new());
        if held {
            why.push("an inverted rule's requirements hold".to_owned());
        }
        return !held;
    }
    for test in &requirements.tests {
        let (passed, words) = explain_test(host, test, ctx);
        if !passed && !test.can_fail {
            why.push(words);
            return false;
        }
    }
    if let Some(condition) = &requirements.condition {
        let value = host.value(condition, ctx);
        if !truthy(value) {
            why.push(format!("needs `{}` to be non-zero: it is {value}", condition.text()));
            // Traced again (on the same copy): a condition that draws may draw differently.
            traces.extend(host.trace(condition, ctx).filter(|trace| !truthy(trace.value_or_nan())));
            return false;
        }
    }
    let depth = ctx.depth().saturating_add(1);
    for rule in &requirements.and {
        let mut sub = host.sub_context(ctx, depth);
        let Some(found) = host.content().rule(rule.as_str()) else {
            why.push(format!("needs rule {rule}, which does not exist"));
            return false;
        };
        let mut inner = Vec::new();
        if !explain(host, &found.requirements, found.invert, &mut sub, &mut inner, traces) {
            why.push(format!("needs rule {rule}: {}", inner.join("; ")));
            return false;
        }
    }
    if requirements.or.is_empty() {
        return true;
    }
    for rule in &requirements.or {
        let mut sub = host.sub_context(ctx, depth);
        if evaluate_rule(host, rule, &mut sub) {
            return true;
        }
    }
    let names: Vec<&str> = requirements.or.iter().map(crate::model::Id::as_str).collect();
    why.push(format!("needs one of the rules {}: none passes", names.join(", ")));
    false
}

/// One test: whether it holds, and in words what it needs and what there is.
fn explain_test<'c, H: RulesHost<'c>>(host: &mut H, test: &'c Test, ctx: &mut H::Context) -> (bool, String) {
    let constant = number(host, &test.constant, ctx);
    let right = match &test.fragment2 {
        None => constant,
        Some(fragment) => constant.saturating_mul(host.count(test.loc2, fragment, ctx)),
    };
    let left = match &test.fragment1 {
        None => host.count_unnamed(test.loc1, ctx),
        Some(fragment) => host.count(test.loc1, fragment, ctx),
    };
    let what = match &test.fragment1 {
        Some(fragment) => fragment_words(fragment),
        None if test.loc1 == crate::model::Location::MatchedCards => "cards".to_owned(),
        None => "nothing".to_owned(),
    };
    let right_words = match &test.fragment2 {
        None => right.to_string(),
        Some(fragment) => format!("{constant} × {} {} ({right})", fragment_words(fragment), place_words(test.loc2)),
    };
    // A card test filters the matches card by card when it runs; here it is decided on the
    // counts, which says the same when no card passes it.
    let passed = decide(host, test.op, constant, left, right);
    let words = match test.op {
        TestOp::RandomChallenge => {
            format!("a random draw on {what} {} ({left} × {constant} in 100) failed", place_words(test.loc1))
        }
        TestOp::RandomClash => format!("a random clash of {what} ({left}) against {right_words} failed"),
        op => format!("needs {what} {} {right_words} {}: {left}", op_words(op), place_words(test.loc1)),
    };
    (passed, words)
}

fn fragment_words(fragment: &FragmentRef) -> String {
    match fragment {
        FragmentRef::Aspect(id) => id.as_str().to_owned(),
        FragmentRef::Card(id) => format!("card {id}"),
        FragmentRef::ThisFragment => "this fragment".to_owned(),
        FragmentRef::ThisCard => "this card".to_owned(),
        FragmentRef::MatchedCards => "matched cards".to_owned(),
        FragmentRef::MemoryFragment => "the memory".to_owned(),
    }
}

fn place_words(location: Location) -> &'static str {
    match location {
        Location::Scope => "in the window",
        Location::Slots => "in the slots",
        Location::Heap => "in the heap",
        Location::Table => "on the table",
        Location::MatchedCards => "among the matched cards",
        Location::Anywhere => "anywhere",
        Location::Free => "free anywhere",
    }
}

fn op_words(op: TestOp) -> &'static str {
    match op {
        TestOp::MoreOrEqual => "≥",
        TestOp::Equal => "=",
        TestOp::LessOrEqual => "≤",
        TestOp::More => ">",
        TestOp::NotEqual => "≠",
        TestOp::Less => "<",
        TestOp::Mod => "divisible by",
        TestOp::RandomChallenge | TestOp::RandomClash => "against",
    }
}
