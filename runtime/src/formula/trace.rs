// The language compares numbers exactly (`==`, `switch` keys), as the fast path does.
#![allow(clippy::float_cmp)]
//! Tracing evaluation: a formula's parsed tree walked node by node in the same environment
//! the compiled fast path uses, keeping every sub-expression's value and marking the parts
//! that made a false condition false (for hover values in the editor and "why not"
//! explanations). It mirrors [`super::code`]'s semantics exactly (same operations, same order
//! of reads and random draws), so its root value is the fast path's value; the fast path itself
//! is untouched.

use super::ast::{Ast, AstKind, BinaryOp, Builtin, Lookup, Scope, Side};
use super::code::{Unary, apply, clamp, flag, index_below, max_step, min_step, root, side_index, truth, unit};
use super::compile::{AnyNames, Compiled, Env, FormulaSet, Issue};
use super::error::Span;

/// Deepest node kept in a trace: deeper sub-expressions are evaluated by the fast path and
/// shown as one value (keeps the walk's stack bounded, like the parser's
/// [`super::parser::MAX_DEPTH`]; left-leaning chains such as `a + b + c + …` nest without
/// parentheses).
pub const MAX_TRACE_DEPTH: usize = 96;

/// Most nodes kept in a trace: past that, sub-expressions are evaluated by the fast path and
/// shown as one value each.
pub const MAX_TRACE_NODES: usize = 2000;

/// What a traced node does, as far as explaining a false value needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A value with no parts that explain it further (a number, a lookup, arithmetic…).
    Value,
    /// `a and b`.
    And,
    /// `a or b`.
    Or,
    /// `not x`.
    Not,
    /// A comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`).
    Compare,
    /// A branch (`if`, `cond`, `switch`, `random {…}`, a facing branch, `any`, `lookup`): the
    /// child whose value it gives, if one was taken.
    Branch(Option<usize>),
}

/// One sub-expression of a traced formula.
#[derive(Clone, Debug, PartialEq)]
pub struct FormulaTrace {
    /// Where it is in the formula's text (byte offsets).
    pub span: Span,
    /// Its text, as written.
    pub text: String,
    /// Its value; none when it was not evaluated (a branch not taken).
    pub value: Option<f64>,
    /// Whether it is (part of) what made the whole formula false.
    pub makes_false: bool,
    /// What it does.
    pub role: Role,
    /// Its sub-expressions, in text order.
    pub children: Vec<FormulaTrace>,
}

impl FormulaTrace {
    /// The root's value (NaN when not evaluated, which only sub-expressions can be).
    pub fn value_or_nan(&self) -> f64 {
        self.value.unwrap_or(f64::NAN)
    }

    /// Every node, depth first, parents before children.
    pub fn nodes(&self) -> Vec<&FormulaTrace> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(node) = stack.pop() {
            out.push(node);
            stack.extend(node.children.iter().rev());
        }
        out
    }

    /// The innermost node whose span holds the byte `at` (the root if none does).
    pub fn innermost_at(&self, at: usize) -> &FormulaTrace {
        let mut node = self;
        while let Some(child) = node.children.iter().find(|child| child.span.start <= at && at < child.span.end) {
            node = child;
        }
        node
    }

    /// The nodes that made the formula false, outermost first.
    pub fn false_parts(&self) -> Vec<&FormulaTrace> {
        self.nodes().into_iter().filter(|node| node.makes_false).collect()
    }

    /// Marks what made this node's (false) value false.
    fn blame(&mut self) {
        // Only zero is false (NaN counts as true).
        if self.value != Some(0.0) {
            return;
        }
        match self.role {
            Role::And | Role::Or => {
                for child in &mut self.children {
                    if child.value == Some(0.0) {
                        child.blame();
                    }
                }
            }
            Role::Branch(Some(taken)) => match self.children.get_mut(taken) {
                Some(child) => child.blame(),
                None => self.makes_false = true,
            },
            Role::Value | Role::Not | Role::Compare | Role::Branch(None) => self.makes_false = true,
        }
    }
}

impl FormulaSet {
    /// Evaluates `ast` (parsed from `text`) in `env`, keeping each sub-expression's value, and
    /// marks what made it false when it is. Compile the same text against this set first (the
    /// fast path does): its lookups must be interned here, or they read as missing. The root's
    /// value equals [`FormulaSet::eval`]'s, random draws and reports to `env` included.
    pub fn trace<E: Env + ?Sized>(&self, ast: &Ast, text: &str, env: &mut E) -> FormulaTrace {
        let mut tracer = Tracer { set: self, spare: None, text, nodes: 0 };
        let mut trace = tracer.node(ast, env, 0);
        trace.blame();
        trace
    }
}

/// Where a one-off evaluation puts its trace when the caller wants one.
pub type TraceOut<'a> = Option<&'a mut Option<FormulaTrace>>;

impl FormulaSet {
    /// `compiled` (compiled from `text` against this set) evaluated in `env`: by the fast path,
    /// or, when `out` is given, by tracing, the trace left in `out` (same value either way).
    pub fn eval_or_trace<E: Env + ?Sized>(
        &self,
        compiled: &Compiled,
        text: &str,
        env: &mut E,
        out: TraceOut<'_>,
    ) -> f64 {
        match (out, super::parser::parse(text)) {
            (Some(out), Ok(ast)) => {
                let trace = self.trace(&ast, text, env);
                let value = trace.value_or_nan();
                *out = Some(trace);
                value
            }
            _ => self.eval(compiled, env),
        }
    }
}

/// The walk's state.
struct Tracer<'s> {
    set: &'s FormulaSet,
    /// A copy of the set to compile sub-expressions past the limits into (compiling interns
    /// lookups, and they are all interned already, so the copy's slots are the set's).
    spare: Option<FormulaSet>,
    text: &'s str,
    /// Nodes kept so far.
    nodes: usize,
}

impl Tracer<'_> {
    fn leaf(&self, ast: &Ast, value: Option<f64>, role: Role, children: Vec<FormulaTrace>) -> FormulaTrace {
        let text = self.text.get(ast.span.start..ast.span.end).unwrap_or_default().to_owned();
        FormulaTrace { span: ast.span, text, value, makes_false: false, role, children }
    }

    /// A node that was not evaluated, with its text only.
    fn skipped(&self, ast: &Ast) -> FormulaTrace {
        self.leaf(ast, None, Role::Value, Vec::new())
    }

    fn named(&self, name: &str, env: &mut (impl Env + ?Sized)) -> Option<f64> {
        self.set.named_index_of(name).map(|index| self.set.eval_index(index, env))
    }

    fn value(&self, lookup: &Lookup, env: &mut (impl Env + ?Sized)) -> f64 {
        if lookup.scope == Scope::Formula {
            return self.named(&lookup.name, env).unwrap_or(f64::NAN);
        }
        self.set.slot_of(lookup).map_or(f64::NAN, |slot| env.value(slot))
    }

    fn has(&self, lookup: &Lookup, env: &mut (impl Env + ?Sized)) -> bool {
        if lookup.scope == Scope::Formula {
            return self.set.named_index_of(&lookup.name).is_some();
        }
        self.set.slot_of(lookup).is_some_and(|slot| env.has(slot))
    }

    /// `ast` evaluated by the fast path, shown as one value.
    #[inline(never)]
    fn fast(&mut self, ast: &Ast, env: &mut (impl Env + ?Sized)) -> FormulaTrace {
        let spare = self.spare.get_or_insert_with(|| self.set.clone());
        let value = match spare.compile_ast(ast, &AnyNames) {
            Ok(compiled) => spare.eval(&compiled, env),
            Err(_) => f64::NAN,
        };
        self.leaf(ast, Some(value), Role::Value, Vec::new())
    }

    fn all(&mut self, asts: &[Ast], env: &mut (impl Env + ?Sized), depth: usize) -> Vec<FormulaTrace> {
        asts.iter().map(|ast| self.node(ast, env, depth)).collect()
    }

    /// A node of the trace. The arms that recurse along long chains (operators, `not`, `-`)
    /// stay here and keep this frame small: the walk may go [`MAX_TRACE_DEPTH`] deep before
    /// [`Self::fast`] compiles what is left, and that compiling recurses too, on the same stack.
    /// The rest is in [`Self::other_node`], whose larger frame is paid once per use.
    fn node(&mut self, ast: &Ast, env: &mut (impl Env + ?Sized), depth: usize) -> FormulaTrace {
        if depth > MAX_TRACE_DEPTH || self.nodes >= MAX_TRACE_NODES {
            return self.fast(ast, env);
        }
        self.nodes = self.nodes.saturating_add(1);
        let inner = depth.saturating_add(1);
        let value = |node: &FormulaTrace| node.value_or_nan();
        match &ast.kind {
            AstKind::Number(number) => self.leaf(ast, Some(*number), Role::Value, Vec::new()),
            AstKind::Bool(bool) => self.leaf(ast, Some(flag(*bool)), Role::Value, Vec::new()),
            AstKind::Neg(operand) => {
                let operand = self.node(operand, env, inner);
                self.leaf(ast, Some(-value(&operand)), Role::Value, vec![operand])
            }
            AstKind::Not(operand) => {
                let operand = self.node(operand, env, inner);
                self.leaf(ast, Some(flag(!truth(value(&operand)))), Role::Not, vec![operand])
            }
            AstKind::Binary(op, operands) => {
                let [left, right] = &**operands;
                let left = self.node(left, env, inner);
                let right = self.node(right, env, inner);
                let result = apply(*op, value(&left), value(&right));
                let role = match op {
                    BinaryOp::And => Role::And,
                    BinaryOp::Or => Role::Or,
                    BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => {
                        Role::Compare
                    }
                    _ => Role::Value,
                };
                self.leaf(ast, Some(result), role, vec![left, right])
            }
            _ => self.other_node(ast, env, inner),
        }
    }

    #[inline(never)]
    #[allow(clippy::too_many_lines)] // one arm per node kind, as in the compiler
    fn other_node(&mut self, ast: &Ast, env: &mut (impl Env + ?Sized), inner: usize) -> FormulaTrace {
        let value = |node: &FormulaTrace| node.value_or_nan();
        match &ast.kind {
            AstKind::Number(_) | AstKind::Bool(_) | AstKind::Neg(_) | AstKind::Not(_) | AstKind::Binary(..) => {
                self.node(ast, env, inner)
            }
            AstKind::If(parts) => {
                let [condition, then, otherwise] = &**parts;
                let condition = self.node(condition, env, inner);
                let (then, otherwise, taken) = if truth(value(&condition)) {
                    (self.node(then, env, inner), self.skipped(otherwise), 1)
                } else {
                    (self.skipped(then), self.node(otherwise, env, inner), 2)
                };
                let result = if taken == 1 { value(&then) } else { value(&otherwise) };
                self.leaf(ast, Some(result), Role::Branch(Some(taken)), vec![condition, then, otherwise])
            }
            AstKind::Call(function, args) => self.call(ast, *function, args, env, inner),
            AstKind::Exists(lookup) => {
                let result = flag(self.has(lookup, env));
                self.leaf(ast, Some(result), Role::Value, Vec::new())
            }
            AstKind::LookupOr(lookup, default) => {
                if lookup.scope == Scope::Formula {
                    // A named formula that exists is read; the default is not evaluated.
                    if let Some(result) = self.named(&lookup.name, env) {
                        let default = self.skipped(default);
                        return self.leaf(ast, Some(result), Role::Value, vec![default]);
                    }
                } else if self.has(lookup, env) {
                    let result = self.value(lookup, env);
                    let default = self.skipped(default);
                    return self.leaf(ast, Some(result), Role::Value, vec![default]);
                }
                let default = self.node(default, env, inner);
                let result = value(&default);
                self.leaf(ast, Some(result), Role::Branch(Some(0)), vec![default])
            }
            AstKind::Lookup(lookup) => {
                let result = self.value(lookup, env);
                self.leaf(ast, Some(result), Role::Value, Vec::new())
            }
            AstKind::Cond(cases, default) => {
                let mut children = Vec::new();
                let mut chosen = None;
                for (condition, case_value) in cases {
                    if chosen.is_some() {
                        children.push(self.skipped(condition));
                        children.push(self.skipped(case_value));
                        continue;
                    }
                    let condition = self.node(condition, env, inner);
                    let holds = truth(value(&condition));
                    children.push(condition);
                    if holds {
                        chosen = Some(children.len());
                        children.push(self.node(case_value, env, inner));
                    } else {
                        children.push(self.skipped(case_value));
                    }
                }
                self.finish_branch(ast, children, chosen, default.as_deref(), Issue::NoCondCase, env, inner)
            }
            AstKind::Switch(subject, cases, default) => {
                let subject = self.node(subject, env, inner);
                let key_of = value(&subject);
                let mut children = vec![subject];
                let mut chosen = None;
                for (key, case_value) in cases {
                    if chosen.is_some() {
                        children.push(self.skipped(key));
                        children.push(self.skipped(case_value));
                        continue;
                    }
                    let key = self.node(key, env, inner);
                    let matches = value(&key) == key_of;
                    children.push(key);
                    if matches {
                        chosen = Some(children.len());
                        children.push(self.node(case_value, env, inner));
                    } else {
                        children.push(self.skipped(case_value));
                    }
                }
                self.finish_branch(ast, children, chosen, default.as_deref(), Issue::NoSwitchCase, env, inner)
            }
            AstKind::RandomBranch(cases, default) => {
                let roll = unit(env);
                let mut sum = 0.0;
                let mut children = Vec::new();
                let mut chosen = None;
                for (weight, case_value) in cases {
                    if chosen.is_some() {
                        children.push(self.skipped(weight));
                        children.push(self.skipped(case_value));
                        continue;
                    }
                    let weight = self.node(weight, env, inner);
                    sum += value(&weight);
                    children.push(weight);
                    if sum >= roll {
                        chosen = Some(children.len());
                        children.push(self.node(case_value, env, inner));
                    } else {
                        children.push(self.skipped(case_value));
                    }
                }
                self.finish_branch(ast, children, chosen, default.as_deref(), Issue::RandomWeightsTooLow, env, inner)
            }
            AstKind::Facing { targeted, cases } => self.facing(ast, *targeted, cases, env, inner),
        }
    }

    /// A `cond`, `switch` or `random {…}` after its cases: the chosen case's value, else the
    /// default's, else NaN reported as `issue`.
    #[allow(clippy::too_many_arguments)] // the branch's parts, as the walk has them
    fn finish_branch(
        &mut self,
        ast: &Ast,
        mut children: Vec<FormulaTrace>,
        chosen: Option<usize>,
        default: Option<&Ast>,
        issue: Issue,
        env: &mut (impl Env + ?Sized),
        depth: usize,
    ) -> FormulaTrace {
        let (result, taken) = match (chosen, default) {
            (Some(at), default) => {
                if let Some(default) = default {
                    children.push(self.skipped(default));
                }
                (children.get(at).map_or(f64::NAN, FormulaTrace::value_or_nan), Some(at))
            }
            (None, Some(default)) => {
                let default = self.node(default, env, depth);
                let result = default.value_or_nan();
                children.push(default);
                (result, Some(children.len().saturating_sub(1)))
            }
            (None, None) => {
                env.issue(issue);
                (f64::NAN, None)
            }
        };
        self.leaf(ast, Some(result), Role::Branch(taken), children)
    }

    fn facing(
        &mut self,
        ast: &Ast,
        targeted: bool,
        cases: &[(Side, Ast)],
        env: &mut (impl Env + ?Sized),
        depth: usize,
    ) -> FormulaTrace {
        // The compiled table keeps the last case of each side.
        let pick = |side: Side| cases.iter().rposition(|(case, _)| side_index(*case) == side_index(side));
        let chosen = env.facing(targeted).and_then(|side| {
            pick(side)
                .or_else(|| matches!(side, Side::Left | Side::Right).then(|| pick(Side::Sides)).flatten())
                .or_else(|| (side != Side::Away).then(|| pick(Side::Towards)).flatten())
                .or_else(|| pick(Side::Default))
        });
        let mut children = Vec::new();
        for (at, (_, case)) in cases.iter().enumerate() {
            if Some(at) == chosen {
                children.push(self.node(case, env, depth));
            } else {
                children.push(self.skipped(case));
            }
        }
        let result = if let Some(child) = chosen.and_then(|at| children.get(at)) {
            child.value_or_nan()
        } else {
            env.issue(Issue::NoFacingCase);
            f64::NAN
        };
        self.leaf(ast, Some(result), Role::Branch(chosen), children)
    }

    fn call(
        &mut self,
        ast: &Ast,
        function: Builtin,
        args: &[Ast],
        env: &mut (impl Env + ?Sized),
        depth: usize,
    ) -> FormulaTrace {
        let unary = |function: Builtin| match function {
            Builtin::Abs => Some(Unary::Abs),
            Builtin::Trunc => Some(Unary::Trunc),
            Builtin::Floor => Some(Unary::Floor),
            Builtin::Ceil => Some(Unary::Ceil),
            Builtin::Round => Some(Unary::Round),
            Builtin::Root => Some(Unary::Sqrt),
            Builtin::Clamp => Some(Unary::Clamp01),
            _ => None,
        };
        if function == Builtin::Any {
            // One argument chosen at random; the others are not evaluated.
            let at = if args.is_empty() { 0 } else { index_below(env, args.len()) };
            let children: Vec<FormulaTrace> = args
                .iter()
                .enumerate()
                .map(|(index, arg)| if index == at { self.node(arg, env, depth) } else { self.skipped(arg) })
                .collect();
            let result = children.get(at).map_or(f64::NAN, FormulaTrace::value_or_nan);
            let taken = (at < children.len()).then_some(at);
            return self.leaf(ast, Some(result), Role::Branch(taken), children);
        }
        let children = self.all(args, env, depth);
        let values: Vec<f64> = children.iter().map(FormulaTrace::value_or_nan).collect();
        let result = match (function, values.as_slice()) {
            (Builtin::Root, [x, n]) => root(*x, *n),
            (Builtin::Clamp, [x, low]) => clamp(*x, *low, 1.0),
            (Builtin::Clamp, [x, low, high]) => clamp(*x, *low, *high),
            (function, [x]) if unary(function).is_some() => unary(function).map_or(f64::NAN, |unary| unary.apply(*x)),
            // The same arithmetic as the compiled `random(0, 1)` and `random(0, h)`.
            (Builtin::Random, []) => 0.0 + unit(env) * (1.0 - 0.0),
            (Builtin::Random, [high]) => 0.0 + unit(env) * (*high - 0.0),
            (Builtin::Random, [low, high]) => *low + unit(env) * (*high - *low),
            (Builtin::Min, [_, ..]) => values.iter().fold(f64::INFINITY, |result, x| min_step(result, *x)),
            (Builtin::Max, [_, ..]) => values.iter().fold(f64::NAN, |result, x| max_step(result, *x)),
            (Builtin::Mean, [_, ..]) => values.iter().fold(0.0, |sum, x| sum + x) / values.len() as f64,
            // The compiler refuses other argument counts.
            _ => f64::NAN,
        };
        self.leaf(ast, Some(result), Role::Value, children)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::formula::{FormulaError, ValuesEnv, parse};

    /// The fast path's value and the trace of `text` with `values`, each from a fresh
    /// environment seeded alike.
    fn both(text: &str, values: &[(&str, f64)], named: &[(&str, &str)]) -> (f64, FormulaTrace) {
        let named: Vec<(String, String)> =
            named.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
        let (mut set, errors) = FormulaSet::build(&named, &AnyNames);
        assert!(errors.is_empty(), "{errors:?}");
        let compiled = set.compile(text, &AnyNames).expect("compiles");
        let values: BTreeMap<String, f64> = values.iter().map(|(name, value)| ((*name).to_owned(), *value)).collect();
        let fast = set.eval(&compiled, &mut ValuesEnv::new(&set, &values, 7));
        let ast = parse(text).expect("parses");
        let trace = set.trace(&ast, text, &mut ValuesEnv::new(&set, &values, 7));
        (fast, trace)
    }

    fn find<'t>(trace: &'t FormulaTrace, text: &str) -> &'t FormulaTrace {
        trace.nodes().into_iter().find(|node| node.text == text).unwrap_or_else(|| panic!("no node `{text}`"))
    }

    fn false_texts(trace: &FormulaTrace) -> Vec<&str> {
        trace.false_parts().into_iter().map(|node| node.text.as_str()).collect()
    }

    #[test]
    fn spans_texts_and_values_of_sub_expressions() {
        let (fast, trace) = both("2 * c.fuel + 1", &[("c.fuel", 3.0)], &[]);
        assert_eq!(fast, 7.0);
        assert_eq!(trace.value, Some(7.0));
        assert_eq!(trace.span, Span::new(0, 14));
        let product = find(&trace, "2 * c.fuel");
        assert_eq!((product.span, product.value), (Span::new(0, 10), Some(6.0)));
        let fuel = find(&trace, "c.fuel");
        assert_eq!((fuel.span, fuel.value), (Span::new(4, 10), Some(3.0)));
        assert_eq!(trace.innermost_at(5).text, "c.fuel");
        assert!(trace.false_parts().is_empty(), "a non-zero value has no false part");
    }

    #[test]
    fn a_false_and_marks_its_false_operand() {
        let (fast, trace) = both("a > 1 and b < 5", &[("a", 3.0), ("b", 9.0)], &[]);
        assert_eq!((fast, trace.value), (0.0, Some(0.0)));
        assert_eq!(false_texts(&trace), ["b < 5"]);
        assert!(!find(&trace, "a > 1").makes_false);
    }

    #[test]
    fn a_false_or_marks_both_operands() {
        let (_, trace) = both("a == 2 or not b", &[("a", 3.0), ("b", 1.0)], &[]);
        assert_eq!(trace.value, Some(0.0));
        assert_eq!(false_texts(&trace), ["a == 2", "not b"]);
    }

    #[test]
    fn a_false_lookup_or_number_is_its_own_false_part() {
        let (_, trace) = both("(a and 1) and false", &[("a", 0.0)], &[]);
        assert_eq!(false_texts(&trace), ["a", "false"]);
    }

    #[test]
    fn branches_keep_the_taken_side_and_blame_it() {
        let (fast, trace) = both("if a > 0: b >= 2; 5", &[("a", 1.0), ("b", 1.0)], &[]);
        assert_eq!((fast, trace.value), (0.0, Some(0.0)));
        assert_eq!(find(&trace, "5").value, None, "the branch not taken is not evaluated");
        assert_eq!(false_texts(&trace), ["b >= 2"]);
        let (_, trace) = both("cond { a > 5: 1; a > 0: b; default: 3 }", &[("a", 1.0), ("b", 0.0)], &[]);
        assert_eq!(trace.value, Some(0.0));
        assert_eq!(find(&trace, "3").value, None);
        assert_eq!(false_texts(&trace), ["b"]);
    }

    #[test]
    fn named_formulas_and_missing_values_read_as_the_fast_path_does() {
        let (fast, trace) = both("f.double + lookup(x, 4) + exists(y)", &[("c.hp", 2.0)], &[("double", "c.hp * 2")]);
        assert_eq!((fast, trace.value), (8.0, Some(8.0)));
        assert_eq!(find(&trace, "f.double").value, Some(4.0));
    }

    #[test]
    fn thousands_of_nodes_stay_within_the_limits_and_keep_their_value() {
        // 11 sums of 90 (each a left-leaning chain 90 deep), themselves summed: 990 leaves (989
        // operators, within the parser's 1,000), about 100 deep.
        let group = format!("({})", vec!["a"; 90].join(" + "));
        let text = vec![group; 11].join(" + ");
        let (fast, trace) = both(&text, &[("a", 1.0)], &[]);
        assert_eq!(fast, 990.0);
        assert_eq!(trace.value, Some(990.0));
        // The nodes walked, plus one value for each part left when the walk stopped.
        assert!(trace.nodes().len() <= MAX_TRACE_NODES + 200, "{}", trace.nodes().len());
        // Past the limits a part is one value, evaluated by the fast path.
        let deepest = trace.nodes().into_iter().filter(|node| node.children.is_empty() && node.text.len() > 1).count();
        assert!(deepest > 0);
    }

    #[test]
    fn a_chain_as_deep_as_the_fast_path_takes_keeps_its_value() {
        let text = vec!["a"; 140].join(" * ");
        let (fast, trace) = both(&text, &[("a", 1.0)], &[]);
        assert_eq!((fast, trace.value), (1.0, Some(1.0)));
    }

    #[test]
    fn every_fused_shape_gives_the_trace_value() {
        // Each operation the evaluator fuses with a leaf operation (P) inside its parent's
        // closure, on leaf operations of each shape, with NaN (`xp` has no value), zero and signs.
        let outers = [
            "if P: 1.2; 1.0",
            "-(P)",
            "abs(P)",
            "trunc(P)",
            "floor(P)",
            "ceil(P)",
            "round(P)",
            "root(P)",
            "clamp(P)",
            "P + 2",
            "P + mp",
            "2 + P",
            "P - 2",
            "P - mp",
            "2 - P",
            "P * 2",
            "P * xp",
            "2 * P",
            "P / 2",
            "P / mp",
            "2 / P",
            "max(P, 0)",
            "max(0, P)",
            "min(P, 0)",
            "min(0, P)",
        ];
        let pairs = ["hp * 1.5", "0.5 / hp", "hp - mp", "hp > mp", "xp + 1", "hp == xp", "mp and hp", "hp % 2"];
        for outer in outers {
            for pair in pairs {
                let inner = outer.replace('P', &format!("({pair})"));
                // As a whole formula, as an operand of a parent on both sides, and of a parent
                // that calls it (`%`).
                let texts =
                    [inner.clone(), format!("1 + ({inner})"), format!("({inner}) * hp"), format!("({inner}) % 7")];
                for text in texts {
                    for (hp, mp) in [(-2.5, 1.0), (0.0, 0.0), (3.5, 2.0), (2.0, 2.0)] {
                        let (fast, trace) = both(&text, &[("hp", hp), ("mp", mp)], &[]);
                        let traced = trace.value_or_nan();
                        assert!(
                            fast.to_bits() == traced.to_bits() || (fast.is_nan() && traced.is_nan()),
                            "{text} with hp {hp}, mp {mp}: fast {fast}, traced {traced}"
                        );
                    }
                }
            }
        }
    }

    /// A random formula over the names `hp`, `mp`, `xp` (xp has no value), with every kind of node.
    fn formula() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let leaf = prop_oneof![
            (0u8..12).prop_map(|n| n.to_string()),
            Just("0.5".to_owned()),
            Just("hp".to_owned()),
            Just("mp".to_owned()),
            Just("xp".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            Just("exists(xp)".to_owned()),
            Just("exists(f.none)".to_owned()),
            Just("random()".to_owned()),
            Just("f.twice".to_owned()),
        ];
        leaf.prop_recursive(5, 40, 4, |inner| {
            let op = prop_oneof![
                Just("+"),
                Just("-"),
                Just("*"),
                Just("/"),
                Just("div"),
                Just("%"),
                Just("^"),
                Just("=="),
                Just("!="),
                Just("<"),
                Just("<="),
                Just(">"),
                Just(">="),
                Just("and"),
                Just("or"),
            ];
            let call = prop_oneof![
                Just("abs"),
                Just("trunc"),
                Just("root"),
                Just("floor"),
                Just("ceil"),
                Just("round"),
                Just("clamp"),
                Just("random")
            ];
            let many = prop_oneof![Just("min"), Just("max"), Just("mean"), Just("any")];
            prop_oneof![
                (inner.clone(), op, inner.clone()).prop_map(|(a, op, b)| format!("({a} {op} {b})")),
                inner.clone().prop_map(|x| format!("-({x})")),
                inner.clone().prop_map(|x| format!("not ({x})")),
                (call, inner.clone()).prop_map(|(f, x)| format!("{f}({x})")),
                (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("clamp({x}, {y})")),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(x, y, z)| format!("clamp({x}, {y}, {z})")),
                (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("random({x}, {y})")),
                (inner.clone(), inner.clone()).prop_map(|(x, y)| format!("root({x}, {y})")),
                (many, proptest::collection::vec(inner.clone(), 1..4))
                    .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, a, b)| format!("(if {c}: {a}; {b})")),
                (prop_oneof![Just("hp"), Just("xp"), Just("f.twice"), Just("f.none")], inner.clone())
                    .prop_map(|(x, d)| format!("lookup({x}, {d})")),
                (inner.clone(), inner.clone(), inner.clone(), proptest::bool::ANY).prop_map(|(c, v, d, has)| {
                    let default = if has { format!("; default: {d}") } else { String::new() };
                    format!("cond {{ {c}: {v}{default} }}")
                }),
                (inner.clone(), inner.clone(), inner.clone(), proptest::bool::ANY).prop_map(|(s, k, v, has)| {
                    let default = if has { format!("; default: {s}") } else { String::new() };
                    format!("switch ({s}) {{ {k}: {v}{default} }}")
                }),
                (inner.clone(), inner.clone(), inner, proptest::bool::ANY).prop_map(|(w, v, d, has)| {
                    let default = if has { format!("; default: {d}") } else { String::new() };
                    format!("random {{ {w}: {v}{default} }}")
                }),
            ]
        })
    }

    proptest::proptest! {
        #[test]
        fn the_trace_gives_the_fast_path_value(
            text in formula(),
            hp in -4.0f64..4.0,
            mp in proptest::sample::select(vec![0.0, 1.0, 2.0, -1.0, 0.5]),
            seed in 0u64..1000,
        ) {
            // Every generated formula is valid: none is skipped.
            let invalid = |error: FormulaError| proptest::test_runner::TestCaseError::fail(format!("{text}: {error:?}"));
            let ast = parse(&text).map_err(invalid)?;
            let named = vec![("twice".to_owned(), "hp * 2".to_owned())];
            let (mut set, _) = FormulaSet::build(&named, &AnyNames);
            let compiled = set.compile(&text, &AnyNames).map_err(invalid)?;
            let values: BTreeMap<String, f64> = [("hp".to_owned(), hp), ("mp".to_owned(), mp)].into();
            let mut fast_env = ValuesEnv::new(&set, &values, seed);
            let fast = set.eval(&compiled, &mut fast_env);
            let mut trace_env = ValuesEnv::new(&set, &values, seed);
            let trace = set.trace(&ast, &text, &mut trace_env);
            let traced = trace.value_or_nan();
            proptest::prop_assert!(
                fast == traced || (fast.is_nan() && traced.is_nan()),
                "{text}: fast {fast}, traced {traced}"
            );
            proptest::prop_assert_eq!(fast_env.issues, trace_env.issues);
            for node in trace.nodes() {
                proptest::prop_assert_eq!(text.get(node.span.start..node.span.end), Some(node.text.as_str()));
            }
        }
    }
}
