//! Evaluating requirements and running rules and effects, generic over the host.

use crate::model::{Effects, Requirements, Rule, RuleId, Test, TestOp};

use super::host::{Nested, RulesHost};
use super::{MAX_RULE_DEPTH, MAX_RULE_RUNS_PER_STEP, NESTED_TOO_DEEPLY, below, compare, truthy, unit, whole};

/// Evaluates requirements (`spec/cultistlike.md` §2.6 `evaluate`): past the depth limit it
/// warns and fails; `invert` negates the rest; tests in order (a failing test fails the rule
/// unless it `can_fail`); then the condition; then every `and` rule and one of the `or` rules,
/// each in a fresh sub-context one level deeper. `force` only attempts the tests (the table
/// records their matches) and passes.
pub(crate) fn evaluate<'c, H: RulesHost<'c>>(
    host: &mut H,
    requirements: &'c Requirements,
    invert: bool,
    force: bool,
    ctx: &mut H::Context,
) -> bool {
    host.evaluated();
    if ctx.depth() > MAX_RULE_DEPTH {
        host.warn(NESTED_TOO_DEEPLY.to_owned());
        return false;
    }
    if invert && !force {
        return !evaluate(host, requirements, false, false, ctx);
    }
    for test in &requirements.tests {
        let passed = test_holds(host, test, ctx);
        if !force && !test.can_fail && !passed {
            return false;
        }
    }
    if force {
        return true;
    }
    if let Some(condition) = &requirements.condition
        && !truthy(host.value(condition, ctx))
    {
        return false;
    }
    let depth = ctx.depth().saturating_add(1);
    for rule in &requirements.and {
        let mut sub = host.sub_context(ctx, depth);
        if !evaluate_rule(host, rule, &mut sub) {
            return false;
        }
    }
    for rule in &requirements.or {
        let mut sub = host.sub_context(ctx, depth);
        if evaluate_rule(host, rule, &mut sub) {
            return true;
        }
    }
    requirements.or.is_empty()
}

/// Evaluates rule `id` in `ctx` (a missing rule fails).
pub(crate) fn evaluate_rule<'c, H: RulesHost<'c>>(host: &mut H, id: &RuleId, ctx: &mut H::Context) -> bool {
    let Some(rule) = host.content().rule(id.as_str()) else { return false };
    evaluate(host, &rule.requirements, rule.invert, false, ctx)
}

/// Attempts one test: its constant, the right side (the constant times the count of
/// `fragment2`, if any), the left side (the count of `fragment1`; without one, what the host
/// counts unnamed: the matched cards at the table's `MatchedCards`, else 0), then the
/// comparison or the random op's draw. A card test goes to the host first.
pub(crate) fn test_holds<'c, H: RulesHost<'c>>(host: &mut H, test: &'c Test, ctx: &mut H::Context) -> bool {
    let constant = number(host, &test.constant, ctx);
    let right = match &test.fragment2 {
        None => constant,
        Some(fragment) => constant.saturating_mul(host.count(test.loc2, fragment, ctx)),
    };
    if test.card_test
        && let Some(passed) = host.card_test(test, constant, right, ctx)
    {
        return passed;
    }
    let left = match &test.fragment1 {
        None => host.count_unnamed(test.loc1, ctx),
        Some(fragment) => host.count(test.loc1, fragment, ctx),
    };
    decide(host, test.op, constant, left, right)
}

/// A whole number from an expression in a context: a plain integer, or its formula's value
/// truncated (NaN gives 0).
pub(crate) fn number<'c, H: RulesHost<'c>>(host: &mut H, expr: &'c crate::model::Expr, ctx: &H::Context) -> i64 {
    match expr.as_int() {
        Some(value) => value,
        None => whole(host.value(expr, ctx)),
    }
}

/// A comparison, or a random op's draw (§2.5): `RandomChallenge` passes when
/// `constant × left` beats a roll in 0..100; `RandomClash` when `left / (left + right)` beats a
/// uniform draw in [0, 1] (no draw when both are 0).
pub(crate) fn decide<'c, H: RulesHost<'c>>(host: &mut H, op: TestOp, constant: i64, left: i64, right: i64) -> bool {
    match op {
        TestOp::RandomChallenge => constant.saturating_mul(left) > below(host.random_bits(), 100) as i64,
        TestOp::RandomClash => {
            let sum = left.saturating_add(right);
            sum > 0 && (left as f64 / sum as f64) > unit(host.random_bits())
        }
        _ => compare(op, left, right),
    }
}

/// Runs rule `id` (`run(rule, ctx)`): unless the host has stopped, one level deeper it
/// evaluates the rule and, when it passes, performs its effects. Returns whether it passed.
pub(crate) fn run_rule<'c, H: RulesHost<'c>>(host: &mut H, id: &RuleId, ctx: &mut H::Context) -> bool {
    let Some(rule) = host.content().rule(id.as_str()) else { return false };
    if host.stopped() || !spend_rule_run(host) {
        return false;
    }
    let depth = ctx.depth();
    ctx.set_depth(depth.saturating_add(1));
    let passed = evaluate(host, &rule.requirements, rule.invert, false, ctx);
    if passed {
        host.rule_runs(rule, ctx);
        execute(host, &rule.effects, Some(rule), ctx);
        host.rule_ran(rule, ctx);
    }
    ctx.set_depth(depth);
    passed
}

/// Counts one rule run against the step's budget; false (after one warning) once it is spent.
fn spend_rule_run<'c, H: RulesHost<'c>>(host: &mut H) -> bool {
    let work = host.work();
    if work.cut {
        return false;
    }
    work.rule_runs = work.rule_runs.saturating_add(1);
    if work.rule_runs <= MAX_RULE_RUNS_PER_STEP {
        return true;
    }
    work.cut = true;
    host.warn(format!(
        "more than {MAX_RULE_RUNS_PER_STEP} rules ran in one step (does a rule name itself more than once in \
         furthermore?); the step's remaining rules are cut"
    ));
    false
}

/// Runs each rule of a list in turn, each in `ctx`.
pub(crate) fn run_rules<'c, H: RulesHost<'c>>(host: &mut H, rules: &[RuleId], ctx: &mut H::Context) {
    for rule in rules {
        run_rule(host, rule, ctx);
    }
}

/// `execute` (§2.6): each non-empty modifier category to the host in the fixed order (act,
/// card, table, stat, deck, rule, board, path), then the furthermore rules, each in a context
/// made ready again.
pub(crate) fn execute<'c, H: RulesHost<'c>>(
    host: &mut H,
    effects: &'c Effects,
    rule: Option<&'c Rule>,
    ctx: &mut H::Context,
) {
    if !effects.act_modifiers.is_empty() {
        host.act_modifiers(&effects.act_modifiers, rule, ctx);
    }
    if !effects.card_modifiers.is_empty() {
        host.card_modifiers(&effects.card_modifiers, rule, ctx);
    }
    if !effects.table_modifiers.is_empty() {
        host.table_modifiers(&effects.table_modifiers, rule, ctx);
    }
    if !effects.stat_modifiers.is_empty() {
        host.stat_modifiers(&effects.stat_modifiers, rule, ctx);
    }
    if !effects.deck_modifiers.is_empty() {
        host.deck_modifiers(&effects.deck_modifiers, rule, ctx);
    }
    if !effects.rule_modifiers.is_empty() {
        host.rule_modifiers(&effects.rule_modifiers, rule, ctx);
    }
    if !effects.board_modifiers.is_empty() {
        host.board_modifiers(&effects.board_modifiers, rule, ctx);
    }
    if !effects.hand_modifiers.is_empty() {
        host.hand_modifiers(&effects.hand_modifiers, rule, ctx);
    }
    if !effects.path_modifiers.is_empty() {
        host.path_modifiers(&effects.path_modifiers, rule, ctx);
    }
    host.modifiers_done(rule, ctx);
    for further in &effects.furthermore {
        host.furthermore_context(ctx);
        run_rule(host, further, ctx);
    }
    host.furthermore_context(ctx);
}
