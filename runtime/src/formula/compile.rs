//! Compilation: every name resolved once to a slot (or a named formula's index), constants
//! folded, and a tree of nodes that evaluates without hashing or allocating.

use indexmap::IndexSet;
use rustc_hash::{FxBuildHasher, FxHashMap as HashMap};

use super::ast::{Ast, AstKind, Builtin, Case, Lookup, Scope, Side};
use super::code::{Node, Program, Unary, flag};
use super::error::{FormulaError, Span};
use super::parser::parse;
use super::print::lookup_text;

/// A resolved name: an index into a [`FormulaSet`]'s lookups. The environment that evaluates
/// formulas binds each slot to a value or an accessor of the game state once.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LookupSlot(pub u32);

/// Something an evaluation could not decide, reported to the environment (the value is NaN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Issue {
    /// No case of a `cond` matched and there is no default.
    NoCondCase,
    /// No key of a `switch` matched and there is no default.
    NoSwitchCase,
    /// The weights of a `random {…}` summed below the roll and there is no default.
    RandomWeightsTooLow,
    /// A facing branch had no case for the side (or no facing is known here).
    NoFacingCase,
}

/// What formulas read: the values of slots, random numbers, facings. The game engine, the
/// preview and `actforge eval` each implement it.
pub trait Env {
    /// The value of a slot (NaN when it has none here).
    fn value(&mut self, slot: LookupSlot) -> f64;
    /// Whether the slot can be looked up here (`exists`, `lookup`).
    fn has(&mut self, slot: LookupSlot) -> bool;
    /// 64 random bits from the session's seeded generator.
    fn random_bits(&mut self) -> u64;
    /// The side the actor sees the target from (`targeted`), or the target the actor
    /// (`targeter`); only Front, Left, Right, Back or Away.
    fn facing(&mut self, targeted: bool) -> Option<Side> {
        let _ = targeted;
        None
    }
    /// Called when an evaluation could not decide and gave NaN.
    fn issue(&mut self, issue: Issue) {
        let _ = issue;
    }
    /// Whether reading slots here (`value`, `has`) only reads: it draws no random number,
    /// reports no issue and changes nothing. Then an `and` or `or` whose left side decides
    /// leaves out a right side that only reads too ([`FormulaSet::reads`]): nothing could tell.
    fn reads_only_read(&self) -> bool {
        false
    }
}

/// Whether a name exists where a formula is used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameCheck {
    /// The name is known.
    Known,
    /// The name is not known; the message says what would be.
    Unknown(String),
    /// Names of this kind cannot be checked here (the engine decides at run time).
    Unchecked,
}

/// What names exist where a formula is compiled.
pub trait Names {
    /// Whether `lookup` names something here. Named formulas (`f.`) are checked by the
    /// formula set itself.
    fn check(&self, lookup: &Lookup) -> NameCheck;
}

/// Names are not checked: everything resolves and the environment decides at run time.
#[derive(Clone, Copy, Debug, Default)]
pub struct AnyNames;

impl Names for AnyNames {
    fn check(&self, _lookup: &Lookup) -> NameCheck {
        NameCheck::Unchecked
    }
}

/// A compiled formula, evaluated with the [`FormulaSet`] it was compiled against.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    node: Node,
    /// Named formulas it references, with where (for cycle reports).
    references: Vec<(u32, Span)>,
}

impl Compiled {
    /// A formula that is always NaN (one with errors).
    fn nan() -> Self {
        Self { node: Node::Const(f64::NAN), references: Vec::new() }
    }

    /// The value, when the formula is a constant.
    pub fn constant(&self) -> Option<f64> {
        match self.node {
            Node::Const(value) => Some(value),
            _ => None,
        }
    }
}

/// One named formula of a set.
#[derive(Clone, Debug)]
struct Named {
    name: String,
    text: String,
    compiled: Compiled,
}

/// The named formulas of a project and the lookups every formula compiled against it uses.
#[derive(Clone, Debug, Default)]
pub struct FormulaSet {
    /// Every lookup used, by slot index.
    lookups: IndexSet<Lookup, FxBuildHasher>,
    named: Vec<Named>,
    named_index: HashMap<String, u32>,
    /// Whether each named formula only reads ([`FormulaSet::reads`]), the formulas it calls
    /// included: worked out once, so an `and` built at every evaluation does not walk them.
    named_only_reads: Vec<bool>,
}

/// A problem with one named formula while building a set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedError {
    /// The formula's name.
    pub name: String,
    /// What is wrong (the span is in that formula's text).
    pub error: FormulaError,
}

/// Longest chain of named formulas referencing each other (keeps evaluation's stack bounded).
pub const MAX_FORMULA_CHAIN: usize = 16;

impl FormulaSet {
    /// A set with no named formulas.
    pub fn new() -> Self {
        Self::default()
    }

    /// Compiles named formulas `(name, text)`; each may reference any other as `f.NAME`.
    /// Formulas with errors or in a cycle evaluate to NaN and are reported.
    pub fn build(named: &[(String, String)], names: &dyn Names) -> (Self, Vec<NamedError>) {
        let mut set = Self::default();
        for (index, (name, text)) in named.iter().enumerate() {
            set.named_index.insert(name.clone(), index as u32);
            set.named.push(Named { name: name.clone(), text: text.clone(), compiled: Compiled::nan() });
        }
        let mut errors = Vec::new();
        for (index, (name, text)) in named.iter().enumerate() {
            match set.compile(text, names) {
                Ok(compiled) => {
                    if let Some(slot) = set.named.get_mut(index) {
                        slot.compiled = compiled;
                    }
                }
                Err(error) => errors.push(NamedError { name: name.clone(), error }),
            }
        }
        errors.extend(set.break_cycles());
        let mut known = vec![None; set.named.len()];
        set.named_only_reads = (0..set.named.len() as u32).map(|index| set.named_purity(index, &mut known)).collect();
        (set, errors)
    }

    /// Whether the named formula at `index` only reads, remembered in `known` (cycles were
    /// broken, so this recursion ends, at most [`MAX_FORMULA_CHAIN`] deep).
    fn named_purity(&self, index: u32, known: &mut Vec<Option<bool>>) -> bool {
        if let Some(Some(only)) = known.get(index as usize) {
            return *only;
        }
        let only = self
            .named_node(index)
            .is_none_or(|node| node.reads(&mut |_| {}, &mut |index, _| self.named_purity(index, known)));
        if let Some(entry) = known.get_mut(index as usize) {
            *entry = Some(only);
        }
        only
    }

    /// Whether the named formula at `index` only reads (an index without a formula is NaN,
    /// which reads nothing).
    pub(super) fn named_only_reads(&self, index: u32) -> bool {
        self.named_only_reads.get(index as usize).copied().unwrap_or_else(|| self.named_node(index).is_none())
    }

    /// Hands the slots the named formula at `index` reads to `slot` unless `seen` lists it
    /// (each formula once); false when it does more than read.
    fn named_reads(&self, index: u32, slot: &mut dyn FnMut(LookupSlot), seen: &mut Vec<u32>) -> bool {
        if seen.contains(&index) {
            return true;
        }
        seen.push(index);
        self.named_node(index)
            .is_none_or(|node| node.reads(slot, &mut |index, slot| self.named_reads(index, slot, seen)))
    }

    /// Finds reference cycles and over-long chains, reports them and makes the formulas on
    /// them NaN so evaluation always ends.
    fn break_cycles(&mut self) -> Vec<NamedError> {
        // Depth-first search with colours; the path gives the cycle's names.
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            Active,
            Done,
        }
        let mut errors = Vec::new();
        let count = self.named.len();
        let mut marks = vec![Mark::New; count];
        let mut broken = vec![false; count];
        for start in 0..count {
            if marks.get(start) != Some(&Mark::New) {
                continue;
            }
            let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
            if let Some(mark) = marks.get_mut(start) {
                *mark = Mark::Active;
            }
            while let Some(&(node, next)) = stack.last() {
                let reference = self.named.get(node).and_then(|named| named.compiled.references.get(next)).copied();
                let Some((target, span)) = reference else {
                    if let Some(mark) = marks.get_mut(node) {
                        *mark = Mark::Done;
                    }
                    stack.pop();
                    continue;
                };
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                let target = target as usize;
                match marks.get(target).copied() {
                    Some(Mark::Active) => {
                        let from = stack.iter().position(|(n, _)| *n == target).unwrap_or(0);
                        let path: Vec<usize> = stack.iter().skip(from).map(|(n, _)| *n).collect();
                        let mut names: Vec<String> = path
                            .iter()
                            .filter_map(|n| self.named.get(*n))
                            .map(|named| format!("f.{}", named.name))
                            .collect();
                        names.push(format!("f.{}", self.named.get(target).map_or("?", |named| named.name.as_str())));
                        for n in &path {
                            if let Some(flag) = broken.get_mut(*n) {
                                *flag = true;
                            }
                        }
                        errors.push(NamedError {
                            name: self.named.get(node).map(|named| named.name.clone()).unwrap_or_default(),
                            error: FormulaError::new(
                                format!("named formulas refer to each other in a cycle: {}", names.join(" → ")),
                                span,
                            ),
                        });
                    }
                    Some(Mark::New) => {
                        if stack.len() >= MAX_FORMULA_CHAIN {
                            if let Some(flag) = broken.get_mut(node) {
                                *flag = true;
                            }
                            errors.push(NamedError {
                                name: self.named.get(node).map(|named| named.name.clone()).unwrap_or_default(),
                                error: FormulaError::new(
                                    format!("named formulas refer to each other more than {MAX_FORMULA_CHAIN} deep"),
                                    span,
                                ),
                            });
                            continue;
                        }
                        if let Some(mark) = marks.get_mut(target) {
                            *mark = Mark::Active;
                        }
                        stack.push((target, 0));
                    }
                    _ => {}
                }
            }
        }
        for (named, broken) in self.named.iter_mut().zip(broken) {
            if broken {
                named.compiled = Compiled::nan();
            }
        }
        errors
    }

    /// The compiled tree of the named formula at `index`.
    pub(super) fn named_node(&self, index: u32) -> Option<&Node> {
        self.named.get(index as usize).map(|named| &named.compiled.node)
    }

    /// The index of the named formula `name`.
    pub(super) fn named_index_of(&self, name: &str) -> Option<u32> {
        self.named_index.get(name).copied()
    }

    /// The slot of a lookup already interned (by compiling a formula that reads it).
    pub(super) fn slot_of(&self, lookup: &Lookup) -> Option<LookupSlot> {
        self.lookups.get_index_of(lookup).map(|index| LookupSlot(index as u32))
    }

    /// The value of the named formula at `index` (NaN when there is none), as `f.NAME` gives it.
    pub(super) fn eval_index<E: Env + ?Sized>(&self, index: u32, env: &mut E) -> f64 {
        match self.named_node(index) {
            Some(node) => Program::<E>::build(node, self, &mut Vec::new()).eval(env),
            None => f64::NAN,
        }
    }

    /// The slot of a lookup, interning it.
    fn slot(&mut self, lookup: &Lookup) -> LookupSlot {
        if let Some(index) = self.lookups.get_index_of(lookup) {
            return LookupSlot(index as u32);
        }
        LookupSlot(self.lookups.insert_full(lookup.clone()).0 as u32)
    }

    /// Every lookup formulas of this set read, by slot index: the environment binds them.
    pub fn lookups(&self) -> impl ExactSizeIterator<Item = &Lookup> {
        self.lookups.iter()
    }

    /// The slots `compiled` reads, those of the named formulas it calls included (in no
    /// particular order, possibly repeated); None when evaluating it may do more than read:
    /// draw random numbers or report an [`Issue`].
    pub fn reads(&self, compiled: &Compiled) -> Option<Vec<LookupSlot>> {
        let (mut slots, mut seen) = (Vec::new(), Vec::new());
        let only = compiled
            .node
            .reads(&mut |slot| slots.push(slot), &mut |index, slot| self.named_reads(index, slot, &mut seen));
        only.then_some(slots)
    }

    /// The lookup of a slot.
    pub fn lookup(&self, slot: LookupSlot) -> Option<&Lookup> {
        self.lookups.get_index(slot.0 as usize)
    }

    /// The names of the named formulas, in the order given to [`FormulaSet::build`].
    pub fn formula_names(&self) -> impl Iterator<Item = &str> {
        self.named.iter().map(|named| named.name.as_str())
    }

    /// The text of a named formula.
    pub fn formula_text(&self, name: &str) -> Option<&str> {
        let index = *self.named_index.get(name)?;
        self.named.get(index as usize).map(|named| named.text.as_str())
    }

    /// Parses and compiles `text` against this set.
    pub fn compile(&mut self, text: &str, names: &dyn Names) -> Result<Compiled, FormulaError> {
        let ast = parse(text)?;
        self.compile_ast(&ast, names)
    }

    /// Compiles a parsed formula against this set.
    pub fn compile_ast(&mut self, ast: &Ast, names: &dyn Names) -> Result<Compiled, FormulaError> {
        let mut compiler = Compiler { set: self, names, references: Vec::new() };
        let node = compiler.node(ast)?;
        let references = compiler.references;
        Ok(Compiled { node, references })
    }

    /// Makes `compiled` (compiled against this set) ready to evaluate, as often as needed, in
    /// environments of type `E`.
    pub fn program<'e, E: Env + ?Sized + 'e>(&self, compiled: &Compiled) -> Program<'e, E> {
        Program::build(&compiled.node, self, &mut Vec::new())
    }

    /// Evaluates `compiled` once in `env` (builds its program each time: for one-off values;
    /// hold a [`FormulaSet::program`] to evaluate repeatedly). A constant, a single read
    /// (`c.move`) or a leaf operation is worked out directly, as its program would: building
    /// one costs more than running it, and engines whose environments borrow the state cannot
    /// keep programs.
    pub fn eval<E: Env + ?Sized>(&self, compiled: &Compiled, env: &mut E) -> f64 {
        if let Some(value) = super::code::eval_leaf(&compiled.node, env) {
            return value;
        }
        self.program::<E>(compiled).eval(env)
    }

    /// Evaluates the named formula `name`; NaN when there is none.
    pub fn eval_named<E: Env + ?Sized>(&self, name: &str, env: &mut E) -> f64 {
        match self.named_index.get(name).and_then(|index| self.named.get(*index as usize)) {
            Some(named) => self.program::<E>(&named.compiled).eval(env),
            None => f64::NAN,
        }
    }
}

struct Compiler<'a> {
    set: &'a mut FormulaSet,
    names: &'a dyn Names,
    references: Vec<(u32, Span)>,
}

type Compiling<T> = Result<T, FormulaError>;

impl Compiler<'_> {
    fn lookup(&mut self, lookup: &Lookup, span: Span, inside_exists: bool) -> Compiling<Node> {
        if lookup.scope == Scope::Formula {
            return match self.set.named_index.get(&lookup.name) {
                Some(index) => {
                    self.references.push((*index, span));
                    Ok(Node::Formula(*index))
                }
                None if inside_exists => Ok(Node::Const(f64::NAN)),
                None => Err(FormulaError::new(format!("there is no named formula `{}`", lookup.name), span)),
            };
        }
        if !inside_exists {
            if matches!(lookup.scope, Scope::ActorStatus | Scope::TargetStatus) {
                return Err(FormulaError::new(
                    format!("`{}` has no value; ask `exists({})` instead", lookup_text(lookup), lookup_text(lookup)),
                    span,
                ));
            }
            if let NameCheck::Unknown(hint) = self.names.check(lookup) {
                let mut message = format!("unknown name `{}`", lookup_text(lookup));
                if !hint.is_empty() {
                    message.push_str("; ");
                    message.push_str(&hint);
                }
                return Err(FormulaError::new(message, span));
            }
        }
        Ok(Node::Value(self.set.slot(lookup)))
    }

    fn nodes(&mut self, asts: &[Ast]) -> Compiling<Box<[Node]>> {
        asts.iter().map(|ast| self.node(ast)).collect::<Compiling<Vec<_>>>().map(Vec::into_boxed_slice)
    }

    fn cases(&mut self, cases: &[Case]) -> Compiling<Box<[(Node, Node)]>> {
        cases
            .iter()
            .map(|(key, value)| Ok((self.node(key)?, self.node(value)?)))
            .collect::<Compiling<Vec<_>>>()
            .map(Vec::into_boxed_slice)
    }

    fn boxed(&mut self, ast: Option<&Ast>) -> Compiling<Option<Box<Node>>> {
        ast.map(|ast| self.node(ast).map(Box::new)).transpose()
    }

    /// A node of the tree. The arms that recurse along long chains (operators, `not`, `-`,
    /// `if`) stay here and keep this frame small, since a chain of operators recurses once per
    /// operator; the rest is in [`Self::other_node`], whose larger frame is paid once per use.
    fn node(&mut self, ast: &Ast) -> Compiling<Node> {
        let node = match &ast.kind {
            AstKind::Number(value) => Node::Const(*value),
            AstKind::Bool(value) => Node::Const(flag(*value)),
            AstKind::Neg(operand) => Node::Neg(Box::new(self.node(operand)?)).folded(),
            AstKind::Not(operand) => Node::Not(Box::new(self.node(operand)?)).folded(),
            AstKind::Binary(op, operands) => {
                let [left, right] = &**operands;
                Node::Binary(*op, Box::new([self.node(left)?, self.node(right)?])).folded()
            }
            _ => self.other_node(ast)?,
        };
        Ok(node)
    }

    #[inline(never)]
    fn other_node(&mut self, ast: &Ast) -> Compiling<Node> {
        let node = match &ast.kind {
            AstKind::Number(_) | AstKind::Bool(_) | AstKind::Neg(_) | AstKind::Not(_) | AstKind::Binary(..) => {
                self.node(ast)?
            }
            AstKind::If(parts) => {
                let [condition, then, otherwise] = &**parts;
                Node::If(Box::new([self.node(condition)?, self.node(then)?, self.node(otherwise)?])).folded()
            }
            AstKind::Call(function, args) => self.call(*function, args, ast.span)?.folded(),
            AstKind::Exists(lookup) => match self.lookup(lookup, ast.span, true)? {
                Node::Value(slot) => Node::Exists(slot),
                Node::Formula(_) => Node::Const(1.0),
                _ => Node::Const(0.0),
            },
            AstKind::LookupOr(lookup, default) => {
                let default = Box::new(self.node(default)?);
                match self.lookup(lookup, ast.span, true)? {
                    Node::Value(slot) => Node::LookupOr(slot, default),
                    Node::Formula(index) => Node::Formula(index),
                    _ => *default,
                }
            }
            AstKind::Lookup(lookup) => self.lookup(lookup, ast.span, false)?,
            AstKind::Cond(cases, default) => Node::Cond(self.cases(cases)?, self.boxed(default.as_deref())?),
            AstKind::Switch(subject, cases, default) => {
                Node::Switch(Box::new(self.node(subject)?), self.cases(cases)?, self.boxed(default.as_deref())?)
            }
            AstKind::RandomBranch(cases, default) => {
                Node::RandomBranch(self.cases(cases)?, self.boxed(default.as_deref())?)
            }
            AstKind::Facing { targeted, cases } => {
                let mut table: [Option<Node>; 8] = Default::default();
                for (side, value) in cases {
                    if let Some(entry) = table.get_mut(side_index(*side)) {
                        *entry = Some(self.node(value)?);
                    }
                }
                Node::Facing(*targeted, Box::new(table))
            }
        };
        Ok(node)
    }

    fn boxed_node(&mut self, ast: &Ast) -> Compiling<Box<Node>> {
        self.node(ast).map(Box::new)
    }

    fn call(&mut self, function: Builtin, args: &[Ast], span: Span) -> Compiling<Node> {
        let constant = |value: f64| Box::new(Node::Const(value));
        Ok(match (function, args) {
            (Builtin::Abs, [x]) => Node::Unary(Unary::Abs, self.boxed_node(x)?),
            (Builtin::Trunc, [x]) => Node::Unary(Unary::Trunc, self.boxed_node(x)?),
            (Builtin::Floor, [x]) => Node::Unary(Unary::Floor, self.boxed_node(x)?),
            (Builtin::Ceil, [x]) => Node::Unary(Unary::Ceil, self.boxed_node(x)?),
            (Builtin::Round, [x]) => Node::Unary(Unary::Round, self.boxed_node(x)?),
            (Builtin::Root, [x]) => Node::Unary(Unary::Sqrt, self.boxed_node(x)?),
            (Builtin::Root, [x, n]) => Node::Root(self.boxed_node(x)?, self.boxed_node(n)?),
            (Builtin::Clamp, [x]) => Node::Unary(Unary::Clamp01, self.boxed_node(x)?),
            // `clamp(x, lo)` clamps to [lo, 1], as the reference does.
            (Builtin::Clamp, [x, low]) => Node::Clamp(self.boxed_node(x)?, self.boxed_node(low)?, constant(1.0)),
            (Builtin::Clamp, [x, low, high]) => {
                Node::Clamp(self.boxed_node(x)?, self.boxed_node(low)?, self.boxed_node(high)?)
            }
            (Builtin::Random, []) => Node::Random(constant(0.0), constant(1.0)),
            (Builtin::Random, [high]) => Node::Random(constant(0.0), self.boxed_node(high)?),
            (Builtin::Random, [low, high]) => Node::Random(self.boxed_node(low)?, self.boxed_node(high)?),
            (Builtin::Min, [_, ..]) => Node::Min(self.nodes(args)?),
            (Builtin::Max, [_, ..]) => Node::Max(self.nodes(args)?),
            (Builtin::Mean, [_, ..]) => Node::Mean(self.nodes(args)?),
            (Builtin::Any, [_, ..]) => Node::Any(self.nodes(args)?),
            _ => return Err(FormulaError::new(format!("wrong number of arguments to `{}`", function.text()), span)),
        })
    }
}

fn side_index(side: Side) -> usize {
    Side::ALL.iter().position(|s| *s == side).unwrap_or(0)
}
