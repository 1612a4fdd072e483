// The language compares numbers exactly (`==`, `switch` keys), as the reference does.
#![allow(clippy::float_cmp)]
//! The evaluator: a compiled tree turned into nested closures specialised for one
//! environment type. Leaves and leaf operations fuse into their parents (`c.atk * 1.5 - t.def`,
//! `if c.lvl > t.lvl: …` and `floor(c.luck / 10)` are one closure each: the inner operation is
//! one jump on a variant naming both operator and leaf shape, inlined, not a call), and so does
//! one operation on a leaf operation and at most one leaf (a [`Shape`]: `if` with constant
//! branches, a single-argument function, `+ - * /` or a two-argument `max`/`min` with a
//! constant or slot): a second jump, inlined in its parent's closure, instead of a closure of its
//! own (the bench's damage formula makes three calls instead of six, 15% faster though it runs
//! more instructions: jumps cost less than calls and the floats they spill). Each operator is
//! its own closure and the environment's accessors inline; evaluation does no hashing and no
//! allocation. (Measured against a bytecode interpreter and a tree walker: half their time.)
//! `floor`, `ceil`, `trunc` and `round` are inline arithmetic with the library's bits, not the
//! library's call (see [`floor`]).
//! What remains between a program and the native closure: one indirect call per operation
//! that is neither a leaf operation nor a shape (the damage formula's `+`, `max` and `*`, the
//! closure none) with its register saves and the floats spilled around it, the jumps of each
//! fused operation (whose operators are data; the closure's are code), `max`'s NaN rules, and
//! the `Env`'s checked slot reads where the closure has its values in registers. (Flattening
//! a left-leaning chain of operations into one closure with a step per operation, each a
//! jump on its operator and one on its operand's kind, was tried: in a loop it was a third
//! slower than the nested closures and written out step by step still slower, as shared
//! jumps are guessed wrong where each closure's own jumps are not.)

use std::sync::Arc;

use super::ast::{BinaryOp, Side};
use super::compile::{Env, FormulaSet, Issue, LookupSlot};

/// A single-argument builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Unary {
    Abs,
    Trunc,
    Floor,
    Ceil,
    Round,
    Sqrt,
    Clamp01,
}

/// A compiled node: names resolved, constants folded; turned into a [`Program`] to run.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Node {
    Const(f64),
    Value(LookupSlot),
    Formula(u32),
    Neg(Box<Node>),
    Not(Box<Node>),
    Binary(BinaryOp, Box<[Node; 2]>),
    If(Box<[Node; 3]>),
    Unary(Unary, Box<Node>),
    Root(Box<Node>, Box<Node>),
    Clamp(Box<Node>, Box<Node>, Box<Node>),
    Min(Box<[Node]>),
    Max(Box<[Node]>),
    Mean(Box<[Node]>),
    Random(Box<Node>, Box<Node>),
    Any(Box<[Node]>),
    Exists(LookupSlot),
    LookupOr(LookupSlot, Box<Node>),
    Cond(Box<[(Node, Node)]>, Option<Box<Node>>),
    Switch(Box<Node>, Box<[(Node, Node)]>, Option<Box<Node>>),
    RandomBranch(Box<[(Node, Node)]>, Option<Box<Node>>),
    Facing(bool, Box<[Option<Node>; 8]>),
}

impl Node {
    /// Folds a pure operation (no state, no random) on constants into a constant, with the
    /// same functions the closures use.
    pub(super) fn folded(self) -> Self {
        let value = |node: &Node| match node {
            Self::Const(value) => Some(*value),
            _ => None,
        };
        let folded = match &self {
            Self::Neg(x) => value(x).map(|x| -x),
            Self::Not(x) => value(x).map(|x| flag(!truth(x))),
            Self::Unary(function, x) => value(x).map(|x| function.apply(x)),
            Self::Binary(op, operands) => {
                let [a, b] = &**operands;
                value(a).zip(value(b)).map(|(a, b)| apply(*op, a, b))
            }
            Self::Root(x, n) => value(x).zip(value(n)).map(|(x, n)| root(x, n)),
            Self::If(parts) => {
                let [c, a, b] = &**parts;
                value(c).zip(value(a)).zip(value(b)).map(|((c, a), b)| if truth(c) { a } else { b })
            }
            Self::Clamp(x, low, high) => {
                value(x).zip(value(low)).zip(value(high)).map(|((x, low), high)| clamp(x, low, high))
            }
            Self::Min(nodes) => {
                nodes.iter().try_fold(f64::INFINITY, |result, node| Some(min_step(result, value(node)?)))
            }
            Self::Max(nodes) => nodes.iter().try_fold(f64::NAN, |result, node| Some(max_step(result, value(node)?))),
            Self::Mean(nodes) => {
                nodes.iter().try_fold(0.0, |sum, node| Some(sum + value(node)?)).map(|sum| sum / nodes.len() as f64)
            }
            _ => None,
        };
        folded.map_or(self, Self::Const)
    }
}

/// What [`Node::reads`] asks of each named formula a node calls: whether it only reads (its
/// slots handed to the callback given, where they are wanted).
pub(super) type NamedReads<'a> = dyn FnMut(u32, &mut dyn FnMut(LookupSlot)) -> bool + 'a;

impl Node {
    /// Hands each slot this node reads to `slot` and asks `named` about each named formula it
    /// calls (whether it only reads, handing its slots to `slot` as wanted); false when
    /// evaluating it may do more than read: draw random numbers (its value then depends on the
    /// generator) or report an [`Issue`] (a `cond` or `switch` without a default, a facing
    /// branch).
    pub(super) fn reads(&self, slot: &mut dyn FnMut(LookupSlot), named: &mut NamedReads<'_>) -> bool {
        let all = |nodes: &[Node], slot: &mut dyn FnMut(LookupSlot), named: &mut NamedReads<'_>| {
            nodes.iter().all(|node| node.reads(slot, named))
        };
        let pairs = |cases: &[(Node, Node)], slot: &mut dyn FnMut(LookupSlot), named: &mut NamedReads<'_>| {
            cases.iter().all(|(key, value)| key.reads(slot, named) && value.reads(slot, named))
        };
        match self {
            Self::Const(_) => true,
            // `any` draws which argument to evaluate; a facing branch reports an issue where no
            // facing is known, whatever its cases.
            Self::Random(..) | Self::RandomBranch(..) | Self::Any(..) | Self::Facing(..) => false,
            Self::Value(read) | Self::Exists(read) => {
                slot(*read);
                true
            }
            Self::LookupOr(read, default) => {
                slot(*read);
                default.reads(slot, named)
            }
            Self::Formula(index) => named(*index, slot),
            Self::Neg(x) | Self::Not(x) | Self::Unary(_, x) => x.reads(slot, named),
            Self::Binary(_, pair) => all(pair.as_slice(), slot, named),
            Self::If(parts) => all(parts.as_slice(), slot, named),
            Self::Root(x, n) => x.reads(slot, named) && n.reads(slot, named),
            Self::Clamp(x, low, high) => [x, low, high].iter().all(|node| node.reads(slot, named)),
            Self::Min(nodes) | Self::Max(nodes) | Self::Mean(nodes) => all(nodes, slot, named),
            Self::Cond(cases, default) => {
                pairs(cases, slot, named) && default.as_ref().is_some_and(|node| node.reads(slot, named))
            }
            Self::Switch(key, cases, default) => {
                key.reads(slot, named)
                    && pairs(cases, slot, named)
                    && default.as_ref().is_some_and(|node| node.reads(slot, named))
            }
        }
    }
}

impl Unary {
    /// The function's value at `x`.
    #[inline]
    pub(super) fn apply(self, x: f64) -> f64 {
        match self {
            Self::Abs => x.abs(),
            Self::Trunc => trunc(x),
            Self::Floor => floor(x),
            Self::Ceil => ceil(x),
            // Unity's rounding: half to even.
            Self::Round => round_ties_even(x),
            Self::Sqrt => x.sqrt(),
            Self::Clamp01 => clamp(x, 0.0, 1.0),
        }
    }
}

/// `a op b`. Called with a constant `op` inside each operator's closure, so it inlines to
/// the one operation.
#[inline]
pub(super) fn apply(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        // Truncates toward zero; a division by zero gives ±inf or NaN, as `/` does.
        BinaryOp::IntDiv => trunc(a / b),
        BinaryOp::Rem => rem(a, b),
        BinaryOp::Pow => a.powf(b),
        BinaryOp::Eq => flag(a == b),
        BinaryOp::Ne => flag(a != b),
        BinaryOp::Lt => flag(a < b),
        BinaryOp::Le => flag(a <= b),
        BinaryOp::Gt => flag(a > b),
        BinaryOp::Ge => flag(a >= b),
        // Both sides are evaluated (they may draw random numbers; see `Builder::logic`).
        BinaryOp::And => flag(truth(a) & truth(b)),
        BinaryOp::Or => flag(truth(a) | truth(b)),
    }
}

/// `truth(a op b)`, with comparisons answered directly.
#[allow(clippy::inline_always)] // called with a constant `op` in each pair's arm: must fold to one comparison
#[inline(always)]
fn test(op: BinaryOp, a: f64, b: f64) -> bool {
    match op {
        BinaryOp::Eq => a == b,
        BinaryOp::Ne => a != b,
        BinaryOp::Lt => a < b,
        BinaryOp::Le => a <= b,
        BinaryOp::Gt => a > b,
        BinaryOp::Ge => a >= b,
        BinaryOp::And => truth(a) & truth(b),
        BinaryOp::Or => truth(a) | truth(b),
        _ => truth(apply(op, a, b)),
    }
}

/// `root(x, n)`: the n-th root.
#[inline]
pub(super) fn root(x: f64, n: f64) -> f64 {
    x.powf(1.0 / n)
}

/// A formula ready to evaluate in environments of type `E`: build it once with
/// [`FormulaSet::program`], evaluate it as often as needed.
///
/// `'e` is how long environments of type `E` may live (`E` may borrow the game state).
pub struct Program<'e, E: ?Sized + 'e> {
    run: Run<'e, E>,
}

/// A node's closure.
type Run<'e, E> = Box<dyn Fn(&mut E) -> f64 + Send + Sync + 'e>;
/// A named formula's closure, shared by every formula that references it.
type Shared<'e, E> = Arc<dyn Fn(&mut E) -> f64 + Send + Sync + 'e>;

impl<E: ?Sized> std::fmt::Debug for Program<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Program")
    }
}

impl<'e, E: Env + ?Sized + 'e> Program<'e, E> {
    /// The formula's value in `env`.
    #[inline]
    pub fn eval(&self, env: &mut E) -> f64 {
        (self.run)(env)
    }

    /// Builds the closures of `node`; `named` caches the set's named formulas already built.
    pub(super) fn build(node: &Node, set: &FormulaSet, named: &mut Vec<Option<Shared<'e, E>>>) -> Self {
        Self { run: Builder { set, named }.node(node) }
    }
}

/// Builds closures, sharing named formulas.
struct Builder<'a, 'e, E: ?Sized + 'e> {
    set: &'a FormulaSet,
    named: &'a mut Vec<Option<Shared<'e, E>>>,
}

/// An operand its parent's closure reads itself, without a call: a constant, a slot, a leaf
/// operation (`c.atk * 1.5`, `c.lvl > t.lvl`) or, failing those, a call of the operand's closure.
trait Operand<E: ?Sized>: Send + Sync {
    /// The operand's value in `env`.
    fn get(&self, env: &mut E) -> f64;

    /// Whether the operand is true in `env` (as a condition): comparisons give their answer
    /// directly instead of a 0 or 1 to test again.
    #[allow(clippy::inline_always)] // part of the parent's closure, never a call of its own
    #[inline(always)]
    fn test(&self, env: &mut E) -> bool {
        truth(self.get(env))
    }
}

/// A constant operand.
struct Constant(f64);

impl<E: ?Sized> Operand<E> for Constant {
    #[inline]
    fn get(&self, _: &mut E) -> f64 {
        self.0
    }
}

/// A slot's value.
struct Read(LookupSlot);

impl<E: Env + ?Sized> Operand<E> for Read {
    #[inline]
    fn get(&self, env: &mut E) -> f64 {
        env.value(self.0)
    }
}

/// Declares [`Pair`]: one variant per operator and leaf shape, so reading a pair is one jump
/// on its variant straight to the operation (a separate branch on the shape, then on the
/// operator, cost twice that).
macro_rules! pairs {
    ($($op:ident: $slot_const:ident, $const_slot:ident, $slot_slot:ident;)*) => {
        /// A binary operation on two leaves (constants or slots, not both constants), computed
        /// in its parent's closure: one jump on the variant instead of a call.
        #[derive(Clone, Copy)]
        enum Pair {
            $(
                $slot_const(LookupSlot, f64),
                $const_slot(f64, LookupSlot),
                $slot_slot(LookupSlot, LookupSlot),
            )*
        }

        impl Pair {
            /// `slot op k`.
            fn slot_const(op: BinaryOp, slot: LookupSlot, k: f64) -> Self {
                match op {
                    $(BinaryOp::$op => Self::$slot_const(slot, k),)*
                }
            }

            /// `k op slot`.
            fn const_slot(op: BinaryOp, k: f64, slot: LookupSlot) -> Self {
                match op {
                    $(BinaryOp::$op => Self::$const_slot(k, slot),)*
                }
            }

            /// `a op b`.
            fn slot_slot(op: BinaryOp, a: LookupSlot, b: LookupSlot) -> Self {
                match op {
                    $(BinaryOp::$op => Self::$slot_slot(a, b),)*
                }
            }
        }

        impl<E: Env + ?Sized> Operand<E> for Pair {
            #[inline(always)]
            fn get(&self, env: &mut E) -> f64 {
                match *self {
                    $(
                        Self::$slot_const(a, k) => apply(BinaryOp::$op, env.value(a), k),
                        Self::$const_slot(k, b) => apply(BinaryOp::$op, k, env.value(b)),
                        Self::$slot_slot(a, b) => {
                            let x = env.value(a);
                            apply(BinaryOp::$op, x, env.value(b))
                        }
                    )*
                }
            }

            #[inline(always)]
            fn test(&self, env: &mut E) -> bool {
                match *self {
                    $(
                        Self::$slot_const(a, k) => test(BinaryOp::$op, env.value(a), k),
                        Self::$const_slot(k, b) => test(BinaryOp::$op, k, env.value(b)),
                        Self::$slot_slot(a, b) => {
                            let x = env.value(a);
                            test(BinaryOp::$op, x, env.value(b))
                        }
                    )*
                }
            }
        }
    };
}

pairs! {
    Add: AddSlotConst, AddConstSlot, AddSlotSlot;
    Sub: SubSlotConst, SubConstSlot, SubSlotSlot;
    Mul: MulSlotConst, MulConstSlot, MulSlotSlot;
    Div: DivSlotConst, DivConstSlot, DivSlotSlot;
    IntDiv: IntDivSlotConst, IntDivConstSlot, IntDivSlotSlot;
    Rem: RemSlotConst, RemConstSlot, RemSlotSlot;
    Pow: PowSlotConst, PowConstSlot, PowSlotSlot;
    Eq: EqSlotConst, EqConstSlot, EqSlotSlot;
    Ne: NeSlotConst, NeConstSlot, NeSlotSlot;
    Lt: LtSlotConst, LtConstSlot, LtSlotSlot;
    Le: LeSlotConst, LeConstSlot, LeSlotSlot;
    Gt: GtSlotConst, GtConstSlot, GtSlotSlot;
    Ge: GeSlotConst, GeConstSlot, GeSlotSlot;
    And: AndSlotConst, AndConstSlot, AndSlotSlot;
    Or: OrSlotConst, OrConstSlot, OrSlotSlot;
}

/// `node` as a [`Pair`], if it is a binary operation on two leaves.
fn pair(node: &Node) -> Option<Pair> {
    let Node::Binary(op, operands) = node else { return None };
    match &**operands {
        [Node::Value(a), Node::Const(k)] => Some(Pair::slot_const(*op, *a, *k)),
        [Node::Const(k), Node::Value(b)] => Some(Pair::const_slot(*op, *k, *b)),
        [Node::Value(a), Node::Value(b)] => Some(Pair::slot_slot(*op, *a, *b)),
        _ => None,
    }
}

/// What a [`Shape`] does with its leaf operation's value `v`: one variant per operation and
/// operand shape, so it is one jump on the variant (the other operand, if any, is a constant or
/// a slot read after `v`, keeping left-to-right order).
#[derive(Clone, Copy)]
enum Outer {
    /// `if v: then; otherwise` with constant branches.
    Choose(f64, f64),
    Neg,
    Abs,
    Trunc,
    Floor,
    Ceil,
    Round,
    Sqrt,
    Clamp01,
    /// `v + k`, `v + slot`, `k + v`, and the same for `-`, `*`, `/`.
    AddConst(f64),
    AddRead(LookupSlot),
    ConstAdd(f64),
    SubConst(f64),
    SubRead(LookupSlot),
    ConstSub(f64),
    MulConst(f64),
    MulRead(LookupSlot),
    ConstMul(f64),
    DivConst(f64),
    DivRead(LookupSlot),
    ConstDiv(f64),
    /// `max(v, k)`, `max(k, v)`, `min(v, k)`, `min(k, v)`.
    MaxConst(f64),
    ConstMax(f64),
    MinConst(f64),
    ConstMin(f64),
}

/// An operation on a leaf operation and at most one leaf (`c.atk * 1.5 - t.def`,
/// `if c.lvl > t.lvl: 1.2; 1.0`, `floor(c.luck / 10)`, `max(0, c.atk - t.def)`), computed in
/// its parent's closure: two jumps (the leaf operation's, then the outer operation's) where a
/// closure of its own cost a call, its frame, and the parent's floats spilled around it.
#[derive(Clone, Copy)]
struct Shape {
    pair: Pair,
    outer: Outer,
}

impl<E: Env + ?Sized> Operand<E> for Shape {
    #[allow(clippy::inline_always)] // part of the parent's closure, never a call of its own
    #[inline(always)]
    fn get(&self, env: &mut E) -> f64 {
        // A comparison chooses with its answer, not with a 0 or 1 made of it and tested again.
        if let Outer::Choose(then, otherwise) = self.outer {
            return if self.pair.test(env) { then } else { otherwise };
        }
        let v = self.pair.get(env);
        match self.outer {
            // Answered above, without `v`.
            Outer::Choose(..) => v,
            Outer::Neg => -v,
            Outer::Abs => Unary::Abs.apply(v),
            Outer::Trunc => Unary::Trunc.apply(v),
            Outer::Floor => Unary::Floor.apply(v),
            Outer::Ceil => Unary::Ceil.apply(v),
            Outer::Round => Unary::Round.apply(v),
            Outer::Sqrt => Unary::Sqrt.apply(v),
            Outer::Clamp01 => Unary::Clamp01.apply(v),
            Outer::AddConst(k) => apply(BinaryOp::Add, v, k),
            Outer::AddRead(slot) => apply(BinaryOp::Add, v, env.value(slot)),
            Outer::ConstAdd(k) => apply(BinaryOp::Add, k, v),
            Outer::SubConst(k) => apply(BinaryOp::Sub, v, k),
            Outer::SubRead(slot) => apply(BinaryOp::Sub, v, env.value(slot)),
            Outer::ConstSub(k) => apply(BinaryOp::Sub, k, v),
            Outer::MulConst(k) => apply(BinaryOp::Mul, v, k),
            Outer::MulRead(slot) => apply(BinaryOp::Mul, v, env.value(slot)),
            Outer::ConstMul(k) => apply(BinaryOp::Mul, k, v),
            Outer::DivConst(k) => apply(BinaryOp::Div, v, k),
            Outer::DivRead(slot) => apply(BinaryOp::Div, v, env.value(slot)),
            Outer::ConstDiv(k) => apply(BinaryOp::Div, k, v),
            Outer::MaxConst(k) => max_step(v, k),
            Outer::ConstMax(k) => max_step(k, v),
            Outer::MinConst(k) => min_step(v, k),
            Outer::ConstMin(k) => min_step(k, v),
        }
    }
}

/// `node` as a [`Shape`], if it is one.
fn shape(node: &Node) -> Option<Shape> {
    let unary = |outer: Outer, x: &Node| pair(x).map(|pair| Shape { pair, outer });
    match node {
        Node::If(parts) => match &**parts {
            [condition, Node::Const(then), Node::Const(otherwise)] => {
                unary(Outer::Choose(*then, *otherwise), condition)
            }
            _ => None,
        },
        Node::Neg(x) => unary(Outer::Neg, x),
        Node::Unary(function, x) => {
            let outer = match function {
                Unary::Abs => Outer::Abs,
                Unary::Trunc => Outer::Trunc,
                Unary::Floor => Outer::Floor,
                Unary::Ceil => Outer::Ceil,
                Unary::Round => Outer::Round,
                Unary::Sqrt => Outer::Sqrt,
                Unary::Clamp01 => Outer::Clamp01,
            };
            unary(outer, x)
        }
        Node::Binary(op, operands) => {
            let [a, b] = &**operands;
            let outer = match (op, a, b) {
                (BinaryOp::Add, _, Node::Const(k)) => Outer::AddConst(*k),
                (BinaryOp::Add, _, Node::Value(slot)) => Outer::AddRead(*slot),
                (BinaryOp::Add, Node::Const(k), _) => return unary(Outer::ConstAdd(*k), b),
                (BinaryOp::Sub, _, Node::Const(k)) => Outer::SubConst(*k),
                (BinaryOp::Sub, _, Node::Value(slot)) => Outer::SubRead(*slot),
                (BinaryOp::Sub, Node::Const(k), _) => return unary(Outer::ConstSub(*k), b),
                (BinaryOp::Mul, _, Node::Const(k)) => Outer::MulConst(*k),
                (BinaryOp::Mul, _, Node::Value(slot)) => Outer::MulRead(*slot),
                (BinaryOp::Mul, Node::Const(k), _) => return unary(Outer::ConstMul(*k), b),
                (BinaryOp::Div, _, Node::Const(k)) => Outer::DivConst(*k),
                (BinaryOp::Div, _, Node::Value(slot)) => Outer::DivRead(*slot),
                (BinaryOp::Div, Node::Const(k), _) => return unary(Outer::ConstDiv(*k), b),
                _ => return None,
            };
            unary(outer, a)
        }
        Node::Max(nodes) => match &**nodes {
            [a, Node::Const(k)] => unary(Outer::MaxConst(*k), a),
            [Node::Const(k), b] => unary(Outer::ConstMax(*k), b),
            _ => None,
        },
        Node::Min(nodes) => match &**nodes {
            [a, Node::Const(k)] => unary(Outer::MinConst(*k), a),
            [Node::Const(k), b] => unary(Outer::ConstMin(*k), b),
            _ => None,
        },
        _ => None,
    }
}

/// `node`'s value in `env` without a program, if it is a constant, a slot, a leaf operation
/// or a [`Shape`]: the very operands a parent's closure reads itself, read the same way.
#[inline]
pub(super) fn eval_leaf<E: Env + ?Sized>(node: &Node, env: &mut E) -> Option<f64> {
    match node {
        Node::Const(k) => Some(*k),
        Node::Value(slot) => Some(env.value(*slot)),
        _ => match pair(node) {
            Some(pair) => Some(pair.get(env)),
            None => shape(node).map(|shape| shape.get(env)),
        },
    }
}

/// Any other operand: its own closure, called.
struct Call<'e, E: ?Sized + 'e>(Run<'e, E>);

impl<'e, E: ?Sized + 'e> Operand<E> for Call<'e, E> {
    #[inline]
    fn get(&self, env: &mut E) -> f64 {
        (self.0)(env)
    }
}

/// An operand sorted by how its parent reads it.
enum Arg<'e, E: ?Sized + 'e> {
    Constant(f64),
    Read(LookupSlot),
    Pair(Pair),
    Shape(Shape),
    Call(Run<'e, E>),
}

/// The closure computing `f(a)`.
fn unary_closure<'e, E: ?Sized + 'e>(a: impl Operand<E> + 'e, f: impl Fn(f64) -> f64 + Send + Sync + 'e) -> Run<'e, E> {
    Box::new(move |env: &mut E| f(a.get(env)))
}

/// The closure computing `f(a, b)`, `a` read first.
fn binary_closure<'e, E: ?Sized + 'e>(
    a: impl Operand<E> + 'e,
    b: impl Operand<E> + 'e,
    f: impl Fn(f64, f64) -> f64 + Send + Sync + 'e,
) -> Run<'e, E> {
    Box::new(move |env: &mut E| {
        let x = a.get(env);
        f(x, b.get(env))
    })
}

/// The closure computing `f(a, b)` for an `a` of a known kind and any `b`.
fn binary_closure_b<'e, E: Env + ?Sized + 'e>(
    a: impl Operand<E> + 'e,
    b: Arg<'e, E>,
    f: impl Fn(f64, f64) -> f64 + Send + Sync + 'e,
) -> Run<'e, E> {
    match b {
        Arg::Constant(k) => binary_closure(a, Constant(k), f),
        Arg::Read(slot) => binary_closure(a, Read(slot), f),
        Arg::Pair(pair) => binary_closure(a, pair, f),
        Arg::Shape(shape) => binary_closure(a, shape, f),
        Arg::Call(run) => binary_closure(a, Call(run), f),
    }
}

/// The closure computing `f(a, b)` for an `a` of a known kind and any `b`, a shape called
/// through a closure of its own (see [`Builder::binary_plain_with`]).
fn binary_closure_plain_b<'e, E: Env + ?Sized + 'e>(
    a: impl Operand<E> + 'e,
    b: Arg<'e, E>,
    f: impl Fn(f64, f64) -> f64 + Send + Sync + 'e,
) -> Run<'e, E> {
    match b {
        Arg::Constant(k) => binary_closure(a, Constant(k), f),
        Arg::Read(slot) => binary_closure(a, Read(slot), f),
        Arg::Pair(pair) => binary_closure(a, pair, f),
        Arg::Shape(shape) => binary_closure(a, Call(shape_closure(shape)), f),
        Arg::Call(run) => binary_closure(a, Call(run), f),
    }
}

/// The closure of `a or b` (`OR`) or `a and b` whose `b` only reads, for an `a` of a known
/// kind (see [`Builder::logic`]).
fn logic_closure_b<'e, E: Env + ?Sized + 'e, const OR: bool>(a: impl Operand<E> + 'e, b: Arg<'e, E>) -> Run<'e, E> {
    match b {
        Arg::Constant(k) => logic_closure::<E, OR>(a, Constant(k)),
        Arg::Read(slot) => logic_closure::<E, OR>(a, Read(slot)),
        Arg::Pair(pair) => logic_closure::<E, OR>(a, pair),
        Arg::Shape(shape) => logic_closure::<E, OR>(a, Call(shape_closure(shape))),
        Arg::Call(run) => logic_closure::<E, OR>(a, Call(run)),
    }
}

/// The closure of `a or b` (`OR`) or `a and b`, `b` left out where `a` decides and reading
/// only reads.
fn logic_closure<'e, E: Env + ?Sized + 'e, const OR: bool>(
    a: impl Operand<E> + 'e,
    b: impl Operand<E> + 'e,
) -> Run<'e, E> {
    Box::new(move |env: &mut E| {
        let left = a.test(env);
        if left == OR && env.reads_only_read() {
            return flag(OR);
        }
        let right = b.test(env);
        flag(if OR { left | right } else { left & right })
    })
}

/// A shape's own closure, for parents that do not read shapes themselves.
fn shape_closure<'e, E: Env + ?Sized + 'e>(shape: Shape) -> Run<'e, E> {
    Box::new(move |env: &mut E| shape.get(env))
}

impl<'e, E: Env + ?Sized + 'e> Builder<'_, 'e, E> {
    /// The closure of a binary operation rare on shapes (`div`, `%`, `^`, `==`, `!=`, `and`,
    /// `or`, `root`): a shape operand is called, so these operations do not each carry
    /// the inlined shape code of every operand combination (the evaluator's code for one
    /// environment type: 444 KB without shapes, 1.12 MB with them under every operator,
    /// 851 KB so).
    #[inline(never)]
    fn binary_plain_with(
        &mut self,
        a: &Node,
        b: &Node,
        op: impl Fn(f64, f64) -> f64 + Copy + Send + Sync + 'e,
    ) -> Run<'e, E> {
        let (a, b) = (self.arg(a), self.arg(b));
        match a {
            Arg::Constant(k) => binary_closure_plain_b(Constant(k), b, op),
            Arg::Read(slot) => binary_closure_plain_b(Read(slot), b, op),
            Arg::Pair(pair) => binary_closure_plain_b(pair, b, op),
            Arg::Shape(shape) => binary_closure_plain_b(Call(shape_closure(shape)), b, op),
            Arg::Call(run) => binary_closure_plain_b(Call(run), b, op),
        }
    }

    /// One binary operation's closure. A function of its own (one copy per operation) keeps
    /// the frame small that [`Self::node`] recursion pays once per operator of a chain.
    #[inline(never)]
    fn binary_with(
        &mut self,
        a: &Node,
        b: &Node,
        op: impl Fn(f64, f64) -> f64 + Copy + Send + Sync + 'e,
    ) -> Run<'e, E> {
        let (a, b) = (self.arg(a), self.arg(b));
        match a {
            Arg::Constant(k) => binary_closure_b(Constant(k), b, op),
            Arg::Read(slot) => binary_closure_b(Read(slot), b, op),
            Arg::Pair(pair) => binary_closure_b(pair, b, op),
            Arg::Shape(shape) => binary_closure_b(shape, b, op),
            Arg::Call(run) => binary_closure_b(Call(run), b, op),
        }
    }

    /// The closure of `a or b` (`OR`) or `a and b`. Both sides are evaluated, as the language
    /// says, except that a right side that only reads ([`Node::reads`]) is left out where the
    /// left decides and the environment's reads only read ([`Env::reads_only_read`]): no value,
    /// draw or report could differ, and a rule's `shield > 0 and f.facing_match` then reads
    /// one value instead of twelve.
    #[inline(never)]
    fn logic<const OR: bool>(&mut self, a: &Node, b: &Node) -> Run<'e, E> {
        let op = if OR { BinaryOp::Or } else { BinaryOp::And };
        let set = self.set;
        if !b.reads(&mut |_| {}, &mut |index, _| set.named_only_reads(index)) {
            return self.binary_plain_with(a, b, move |x, y| apply(op, x, y));
        }
        let (a, b) = (self.arg(a), self.arg(b));
        match a {
            Arg::Constant(k) => logic_closure_b::<E, OR>(Constant(k), b),
            Arg::Read(slot) => logic_closure_b::<E, OR>(Read(slot), b),
            Arg::Pair(pair) => logic_closure_b::<E, OR>(pair, b),
            Arg::Shape(shape) => logic_closure_b::<E, OR>(Call(shape_closure(shape)), b),
            Arg::Call(run) => logic_closure_b::<E, OR>(Call(run), b),
        }
    }

    /// One single-argument function's closure (in a function of its own, as
    /// [`Self::binary_with`]).
    #[inline(never)]
    fn unary_with(&mut self, x: &Node, f: impl Fn(f64) -> f64 + Copy + Send + Sync + 'e) -> Run<'e, E> {
        match self.arg(x) {
            // Folded away when compiling; kept for completeness.
            Arg::Constant(k) => unary_closure(Constant(k), f),
            Arg::Read(slot) => unary_closure(Read(slot), f),
            Arg::Pair(pair) => unary_closure(pair, f),
            Arg::Shape(shape) => unary_closure(shape, f),
            Arg::Call(run) => unary_closure(Call(run), f),
        }
    }

    /// The closure of `if condition: then; otherwise`, the condition read in it.
    fn choice(&mut self, condition: impl Operand<E> + 'e, then: &Node, otherwise: &Node) -> Run<'e, E> {
        if let (Node::Const(a), Node::Const(b)) = (then, otherwise) {
            let (a, b) = (*a, *b);
            return Box::new(move |env: &mut E| if condition.test(env) { a } else { b });
        }
        let (then, otherwise) = (self.node(then), self.node(otherwise));
        Box::new(move |env: &mut E| if condition.test(env) { then(env) } else { otherwise(env) })
    }

    /// How a parent reads `node`: leaves and leaf operations in its own closure, the rest
    /// through a call.
    fn arg(&mut self, node: &Node) -> Arg<'e, E> {
        match node {
            Node::Const(k) => Arg::Constant(*k),
            Node::Value(slot) => Arg::Read(*slot),
            _ => match (pair(node), shape(node)) {
                (Some(pair), _) => Arg::Pair(pair),
                (None, Some(shape)) => Arg::Shape(shape),
                (None, None) => Arg::Call(self.node(node)),
            },
        }
    }

    fn nodes(&mut self, nodes: &[Node]) -> Box<[Run<'e, E>]> {
        nodes.iter().map(|node| self.node(node)).collect()
    }

    fn cases(&mut self, cases: &[(Node, Node)]) -> Box<[(Run<'e, E>, Run<'e, E>)]> {
        cases.iter().map(|(key, value)| (self.node(key), self.node(value))).collect()
    }

    /// The default branch, or a closure that reports `issue` and gives NaN.
    fn default(&mut self, default: Option<&Node>, issue: Issue) -> Run<'e, E> {
        match default {
            Some(node) => self.node(node),
            None => Box::new(move |env: &mut E| {
                env.issue(issue);
                f64::NAN
            }),
        }
    }

    fn named(&mut self, index: u32) -> Shared<'e, E> {
        let at = index as usize;
        if let Some(Some(shared)) = self.named.get(at) {
            return Arc::clone(shared);
        }
        let shared: Shared<'e, E> = match self.set.named_node(index) {
            // Cycles were broken when the set was built, so this recursion ends.
            Some(node) => Arc::from(self.node(node)),
            None => Arc::new(|_: &mut E| f64::NAN),
        };
        if self.named.len() <= at {
            self.named.resize(at + 1, None);
        }
        if let Some(entry) = self.named.get_mut(at) {
            *entry = Some(Arc::clone(&shared));
        }
        shared
    }

    fn node(&mut self, node: &Node) -> Run<'e, E> {
        match node {
            Node::Const(value) => {
                let value = *value;
                Box::new(move |_: &mut E| value)
            }
            Node::Value(slot) => {
                let slot = *slot;
                Box::new(move |env: &mut E| env.value(slot))
            }
            Node::Formula(index) => {
                let named = self.named(*index);
                Box::new(move |env: &mut E| named(env))
            }
            Node::Neg(x) => self.unary_with(x, |v| -v),
            Node::Not(x) => self.unary_with(x, |v| flag(!truth(v))),
            Node::Unary(function, x) => match function {
                Unary::Abs => self.unary_with(x, |v| Unary::Abs.apply(v)),
                Unary::Trunc => self.unary_with(x, |v| Unary::Trunc.apply(v)),
                Unary::Floor => self.unary_with(x, |v| Unary::Floor.apply(v)),
                Unary::Ceil => self.unary_with(x, |v| Unary::Ceil.apply(v)),
                Unary::Round => self.unary_with(x, |v| Unary::Round.apply(v)),
                Unary::Sqrt => self.unary_with(x, |v| Unary::Sqrt.apply(v)),
                Unary::Clamp01 => self.unary_with(x, |v| Unary::Clamp01.apply(v)),
            },
            Node::Binary(op, operands) => {
                let [a, b] = &**operands;
                // One closure type per operator, each with its operation inlined.
                match op {
                    BinaryOp::Add => self.binary_with(a, b, |x, y| apply(BinaryOp::Add, x, y)),
                    BinaryOp::Sub => self.binary_with(a, b, |x, y| apply(BinaryOp::Sub, x, y)),
                    BinaryOp::Mul => self.binary_with(a, b, |x, y| apply(BinaryOp::Mul, x, y)),
                    BinaryOp::Div => self.binary_with(a, b, |x, y| apply(BinaryOp::Div, x, y)),
                    BinaryOp::IntDiv => self.binary_plain_with(a, b, |x, y| apply(BinaryOp::IntDiv, x, y)),
                    BinaryOp::Rem => self.binary_plain_with(a, b, |x, y| apply(BinaryOp::Rem, x, y)),
                    BinaryOp::Pow => self.binary_plain_with(a, b, |x, y| apply(BinaryOp::Pow, x, y)),
                    BinaryOp::Eq => self.binary_plain_with(a, b, |x, y| apply(BinaryOp::Eq, x, y)),
                    BinaryOp::Ne => self.binary_plain_with(a, b, |x, y| apply(BinaryOp::Ne, x, y)),
                    BinaryOp::Lt => self.binary_with(a, b, |x, y| apply(BinaryOp::Lt, x, y)),
                    BinaryOp::Le => self.binary_with(a, b, |x, y| apply(BinaryOp::Le, x, y)),
                    BinaryOp::Gt => self.binary_with(a, b, |x, y| apply(BinaryOp::Gt, x, y)),
                    BinaryOp::Ge => self.binary_with(a, b, |x, y| apply(BinaryOp::Ge, x, y)),
                    BinaryOp::And => self.logic::<false>(a, b),
                    BinaryOp::Or => self.logic::<true>(a, b),
                }
            }
            _ => self.other_node(node),
        }
    }

    /// The nodes that do not chain: their larger frame is paid once per use, not per operator.
    #[inline(never)]
    #[allow(clippy::too_many_lines)] // one arm per node kind reads best in one place
    fn other_node(&mut self, node: &Node) -> Run<'e, E> {
        match node {
            Node::Const(_)
            | Node::Value(_)
            | Node::Formula(_)
            | Node::Neg(_)
            | Node::Not(_)
            | Node::Unary(..)
            | Node::Binary(..) => self.node(node),
            Node::If(parts) => {
                let [condition, then, otherwise] = &**parts;
                match self.arg(condition) {
                    Arg::Constant(k) => self.choice(Constant(k), then, otherwise),
                    Arg::Read(slot) => self.choice(Read(slot), then, otherwise),
                    Arg::Pair(pair) => self.choice(pair, then, otherwise),
                    Arg::Shape(shape) => self.choice(shape, then, otherwise),
                    Arg::Call(run) => self.choice(Call(run), then, otherwise),
                }
            }
            Node::Root(x, n) => self.binary_plain_with(x, n, root),
            Node::Clamp(x, low, high) => {
                let (x, low, high) = (self.node(x), self.node(low), self.node(high));
                Box::new(move |env: &mut E| {
                    let x = x(env);
                    let low = low(env);
                    clamp(x, low, high(env))
                })
            }
            Node::Min(nodes) => {
                if let [a, b] = &**nodes {
                    return self.binary_with(a, b, min_step);
                }
                let nodes = self.nodes(nodes);
                Box::new(move |env: &mut E| {
                    nodes.iter().fold(f64::INFINITY, |result, node| min_step(result, node(env)))
                })
            }
            Node::Max(nodes) => {
                if let [a, b] = &**nodes {
                    return self.binary_with(a, b, max_step);
                }
                let nodes = self.nodes(nodes);
                Box::new(move |env: &mut E| nodes.iter().fold(f64::NAN, |result, node| max_step(result, node(env))))
            }
            Node::Mean(nodes) => {
                let nodes = self.nodes(nodes);
                let count = nodes.len() as f64;
                Box::new(move |env: &mut E| nodes.iter().fold(0.0, |sum, node| sum + node(env)) / count)
            }
            Node::Random(low, high) => {
                let (low, high) = (self.node(low), self.node(high));
                Box::new(move |env: &mut E| {
                    let low = low(env);
                    let high = high(env);
                    low + unit(env) * (high - low)
                })
            }
            Node::Any(nodes) => {
                let nodes = self.nodes(nodes);
                Box::new(move |env: &mut E| {
                    let at = index_below(env, nodes.len());
                    nodes.get(at).map_or(f64::NAN, |node| node(env))
                })
            }
            Node::Exists(slot) => {
                let slot = *slot;
                Box::new(move |env: &mut E| flag(env.has(slot)))
            }
            Node::LookupOr(slot, default) => {
                let (slot, default) = (*slot, self.node(default));
                Box::new(move |env: &mut E| if env.has(slot) { env.value(slot) } else { default(env) })
            }
            Node::Cond(cases, default) => {
                let (cases, default) = (self.cases(cases), self.default(default.as_deref(), Issue::NoCondCase));
                Box::new(move |env: &mut E| {
                    for (condition, value) in &cases {
                        if truth(condition(env)) {
                            return value(env);
                        }
                    }
                    default(env)
                })
            }
            Node::Switch(subject, cases, default) => {
                let subject = self.node(subject);
                let (cases, default) = (self.cases(cases), self.default(default.as_deref(), Issue::NoSwitchCase));
                Box::new(move |env: &mut E| {
                    let subject = subject(env);
                    for (key, value) in &cases {
                        if key(env) == subject {
                            return value(env);
                        }
                    }
                    default(env)
                })
            }
            Node::RandomBranch(cases, default) => {
                let (cases, default) =
                    (self.cases(cases), self.default(default.as_deref(), Issue::RandomWeightsTooLow));
                Box::new(move |env: &mut E| {
                    let roll = unit(env);
                    let mut sum = 0.0;
                    for (weight, value) in &cases {
                        sum += weight(env);
                        if sum >= roll {
                            return value(env);
                        }
                    }
                    default(env)
                })
            }
            Node::Facing(targeted, cases) => {
                let targeted = *targeted;
                let table: Box<[Option<Run<'e, E>>]> =
                    cases.iter().map(|case| case.as_ref().map(|node| self.node(node))).collect();
                Box::new(move |env: &mut E| {
                    let pick = |side: Side| table.get(side_index(side)).and_then(Option::as_ref);
                    // Without a skill (no actor and target) there is no side: NaN, as in the reference.
                    let chosen = env.facing(targeted).and_then(|side| {
                        pick(side)
                            .or_else(|| matches!(side, Side::Left | Side::Right).then(|| pick(Side::Sides)).flatten())
                            .or_else(|| (side != Side::Away).then(|| pick(Side::Towards)).flatten())
                            .or_else(|| pick(Side::Default))
                    });
                    if let Some(node) = chosen {
                        node(env)
                    } else {
                        env.issue(Issue::NoFacingCase);
                        f64::NAN
                    }
                })
            }
        }
    }
}

/// `if x < low then low else if x > high then high else x` (NaN stays NaN).
pub(super) fn clamp(x: f64, low: f64, high: f64) -> f64 {
    if x < low {
        low
    } else if x > high {
        high
    } else {
        x
    }
}

/// 2^52: every `f64` this large is a whole number, and every whole number below it converts
/// to and from `i64` exactly.
const WHOLE_FROM: f64 = 4_503_599_627_370_496.0;

// The rounding functions below give the library's bits (the sign of a zero result included)
// without its call: the x86-64 baseline has no rounding instruction, so `f64::floor` is a call
// into a bit-twiddling routine with a branch on the size of `x` (a fifth of the formula bench's
// samples under perf, the closure's included). Whole numbers from 2^52 up, infinities and NaN
// are their own result.

/// `x.trunc()`.
#[inline]
fn trunc(x: f64) -> f64 {
    if x.abs() < WHOLE_FROM { (x as i64 as f64).copysign(x) } else { x }
}

/// `x.floor()`: a negative fraction truncates up, so it steps down one.
#[inline]
fn floor(x: f64) -> f64 {
    if x.abs() < WHOLE_FROM {
        let t = x as i64 as f64;
        (if t > x { t - 1.0 } else { t }).copysign(x)
    } else {
        x
    }
}

/// `x.ceil()`: a positive fraction truncates down, so it steps up one.
#[inline]
fn ceil(x: f64) -> f64 {
    if x.abs() < WHOLE_FROM {
        let t = x as i64 as f64;
        (if t < x { t + 1.0 } else { t }).copysign(x)
    } else {
        x
    }
}

/// `x.round_ties_even()`: adding 2^52 leaves no fraction bits, so the addition itself rounds,
/// half to even (the default rounding); subtracting 2^52 again is exact.
#[inline]
fn round_ties_even(x: f64) -> f64 {
    if x.abs() < WHOLE_FROM { ((x.abs() + WHOLE_FROM) - WHOLE_FROM).copysign(x) } else { x }
}

/// `a % b`, bit for bit as `fmod` gives it. Integer operands within ±2^53 (the dice, turn and
/// parity tests of most content) take the integer remainder, which is exact there, instead of
/// the library's `fmod` loop; its sign is `a`'s, a zero result included (`-4 % 2` is `-0`).
/// Anything else (fractions, NaN, infinities, a zero divisor, larger values) goes to `%`.
#[inline]
pub(super) fn rem(a: f64, b: f64) -> f64 {
    // 2^53: every integer up to it is an `f64`, and `i64` holds it without overflow.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if a.abs() <= EXACT && b.abs() <= EXACT && b != 0.0 {
        let (x, y) = (a as i64, b as i64);
        if x as f64 == a && y as f64 == b {
            // `y` is not 0 and `x` is not `i64::MIN`: the remainder exists.
            return (x.wrapping_rem(y) as f64).copysign(a);
        }
    }
    a % b
}

/// NaN counts as true, as in the reference (NaN != 0).
#[inline]
pub(super) fn truth(x: f64) -> bool {
    x != 0.0
}

#[inline]
pub(super) fn flag(b: bool) -> f64 {
    if b { 1.0 } else { 0.0 }
}

/// `min(a, b)` where any NaN makes the result NaN.
#[inline]
pub(super) fn min_step(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b < a {
        b
    } else {
        a
    }
}

/// `max(a, b)` where NaN is ignored unless both are NaN.
#[inline]
pub(super) fn max_step(a: f64, b: f64) -> f64 {
    if !b.is_nan() && (a.is_nan() || b > a) { b } else { a }
}

/// A number in [0, 1], both ends included (the reference's `Random.value`).
pub(super) fn unit(env: &mut (impl Env + ?Sized)) -> f64 {
    const MAX: f64 = ((1u64 << 53) - 1) as f64;
    (env.random_bits() >> 11) as f64 / MAX
}

/// A uniform index below `n` (n ≥ 1).
pub(super) fn index_below(env: &mut (impl Env + ?Sized), n: usize) -> usize {
    (((env.random_bits() >> 32) * n as u64) >> 32) as usize
}

pub(super) fn side_index(side: Side) -> usize {
    Side::ALL.iter().position(|s| *s == side).unwrap_or(0)
}

#[cfg(test)]
mod arithmetic_tests {
    use proptest::prelude::*;

    use super::rem;

    /// The same bits as `%`, so `-0` and `0` and every NaN payload count.
    fn same(a: f64, b: f64) {
        let (fast, slow) = (rem(a, b), a % b);
        assert!(
            fast.to_bits() == slow.to_bits() || (fast.is_nan() && slow.is_nan()),
            "{a} % {b}: {fast} ({:#x}) but fmod gives {slow} ({:#x})",
            fast.to_bits(),
            slow.to_bits()
        );
    }

    #[test]
    fn rem_matches_fmod_at_the_edges() {
        const EXACT: f64 = 9_007_199_254_740_992.0;
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            3.0,
            -3.0,
            4.0,
            -4.0,
            0.5,
            -2.5,
            7.25,
            EXACT,
            -EXACT,
            EXACT - 1.0,
            EXACT + 2.0,
            -EXACT - 2.0,
            1e300,
            -1e300,
            f64::MAX,
            f64::MIN,
            f64::MIN_POSITIVE,
            5e-324,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            9.223_372_036_854_776e18,
            -9.223_372_036_854_776e18,
        ];
        for a in edges {
            for b in edges {
                same(a, b);
            }
        }
    }

    /// The same bits as the library's rounding (any NaN for NaN).
    fn same_rounding(x: f64) {
        let pairs = [
            ("trunc", super::trunc(x), x.trunc()),
            ("floor", super::floor(x), x.floor()),
            ("ceil", super::ceil(x), x.ceil()),
            ("round_ties_even", super::round_ties_even(x), x.round_ties_even()),
        ];
        for (name, fast, library) in pairs {
            assert!(
                fast.to_bits() == library.to_bits() || (fast.is_nan() && library.is_nan()),
                "{name}({x:e}): {fast:e} but the library gives {library:e}"
            );
        }
    }

    #[test]
    fn rounding_matches_the_library_at_the_edges() {
        const WHOLE: f64 = 4_503_599_627_370_496.0;
        let mut edges = vec![
            0.0,
            0.5,
            1.0,
            1.5,
            2.5,
            0.499_999_999_999_999_94,
            1e-300,
            5e-324,
            WHOLE,
            WHOLE - 0.5,
            WHOLE - 1.0,
            WHOLE + 1.0,
            WHOLE * 2.0,
            9.223_372_036_854_776e18,
            f64::MAX,
            f64::INFINITY,
            f64::NAN,
        ];
        edges.extend((0..64).map(|step| f64::from(step) * 0.25));
        for x in edges {
            same_rounding(x);
            same_rounding(-x);
            same_rounding(f64::from_bits(x.to_bits().wrapping_add(1)));
            same_rounding(-f64::from_bits(x.to_bits().wrapping_sub(1)));
        }
    }

    proptest! {
        #[test]
        fn rem_matches_fmod_on_integers(a in -100_000i64..100_000, b in -100i64..100) {
            same(a as f64, b as f64);
        }

        #[test]
        fn rem_matches_fmod_on_wide_integers(a in any::<i64>(), b in any::<i64>()) {
            same(a as f64, b as f64);
            same((a >> 10) as f64, (b >> 40) as f64);
        }

        #[test]
        fn rem_matches_fmod_on_any_bits(a in any::<u64>(), b in any::<u64>()) {
            same(f64::from_bits(a), f64::from_bits(b));
        }

        #[test]
        fn rem_matches_fmod_on_any_number(a in any::<f64>(), b in any::<f64>()) {
            same(a, b);
        }

        #[test]
        fn rounding_matches_the_library_on_any_bits(bits in any::<u64>()) {
            same_rounding(f64::from_bits(bits));
        }

        #[test]
        fn rounding_matches_the_library_on_fractions(whole in -100_000i64..100_000, eighths in 0u8..8) {
            same_rounding(whole as f64 + f64::from(eighths) / 8.0);
        }
    }
}
