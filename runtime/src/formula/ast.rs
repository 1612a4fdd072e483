//! The syntax tree of a formula, as parsed (`spec/srpgck.md` §c.2).

use super::error::Span;

/// A binary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `div` (divide and truncate toward zero)
    IntDiv,
    /// `%` (remainder; sign follows the dividend)
    Rem,
    /// `^` (right-associative)
    Pow,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `and` (both sides always evaluated)
    And,
    /// `or` (both sides always evaluated)
    Or,
}

impl BinaryOp {
    /// Left binding power (`spec/srpgck.md` §c.3).
    pub fn binding_power(self) -> u8 {
        match self {
            Self::Pow => 30,
            Self::Mul | Self::Div | Self::IntDiv | Self::Rem => 20,
            Self::Add | Self::Sub => 10,
            Self::Eq | Self::Ne | Self::Lt | Self::Le | Self::Gt | Self::Ge => 5,
            Self::And | Self::Or => 3,
        }
    }

    /// Whether `a op b op c` groups to the right.
    pub fn is_right_associative(self) -> bool {
        self == Self::Pow
    }

    /// How the operator is written.
    pub fn text(self) -> &'static str {
        match self {
            Self::Add => "+",
            Self::Sub => "-",
            Self::Mul => "*",
            Self::Div => "/",
            Self::IntDiv => "div",
            Self::Rem => "%",
            Self::Pow => "^",
            Self::Eq => "==",
            Self::Ne => "!=",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
            Self::And => "and",
            Self::Or => "or",
        }
    }
}

/// A builtin function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// `abs(x)`
    Abs,
    /// `trunc(x)`: toward zero
    Trunc,
    /// `root(x)` / `root(x, n)`
    Root,
    /// `mean(a, …)`
    Mean,
    /// `min(a, …)`
    Min,
    /// `max(a, …)`
    Max,
    /// `random()`, `random(h)`, `random(l, h)`
    Random,
    /// `clamp(x)`, `clamp(x, lo)`, `clamp(x, lo, hi)`
    Clamp,
    /// `floor(x)`
    Floor,
    /// `ceil(x)`
    Ceil,
    /// `round(x)`: half to even
    Round,
    /// `any(a, …)`: one argument chosen at random, the others not evaluated
    Any,
}

impl Builtin {
    /// How the builtin is written.
    pub fn text(self) -> &'static str {
        match self {
            Self::Abs => "abs",
            Self::Trunc => "trunc",
            Self::Root => "root",
            Self::Mean => "mean",
            Self::Min => "min",
            Self::Max => "max",
            Self::Random => "random",
            Self::Clamp => "clamp",
            Self::Floor => "floor",
            Self::Ceil => "ceil",
            Self::Round => "round",
            Self::Any => "any",
        }
    }

    /// The allowed number of arguments (`spec/srpgck.md` §c.4).
    pub fn arity(self) -> (usize, usize) {
        match self {
            Self::Abs | Self::Trunc | Self::Floor | Self::Ceil | Self::Round => (1, 1),
            Self::Root => (1, 2),
            Self::Random => (0, 2),
            Self::Clamp => (1, 3),
            Self::Mean | Self::Min | Self::Max | Self::Any => (1, usize::MAX),
        }
    }
}

/// Where a lookup reads from (`spec/srpgck.md` §c.6, with the bugs it lists fixed).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    /// A bare name: the context decides (game state, skill parameter, stat…).
    Auto,
    /// `f.NAME`: a named formula.
    Formula,
    /// `c.NAME`: a stat of the acting character.
    Actor,
    /// `t.NAME`: a stat of the target.
    Target,
    /// `t.isNull`: 1 when there is no target.
    TargetIsNull,
    /// `t.isNotNull`: 1 when there is a target.
    TargetIsNotNull,
    /// `skill.NAME` (also `c.skill.` / `t.skill.`): a parameter of the running skill.
    Skill,
    /// `mount.NAME`: a stat of the character the actor rides.
    ActorMount,
    /// `mounter.NAME`: a stat of the actor's rider.
    ActorMounter,
    /// `t.mount.NAME`: a stat of the character the target rides.
    TargetMount,
    /// `t.mounter.NAME`: a stat of the target's rider.
    TargetMounter,
    /// `status.NAME` / `c.status.NAME`: whether the actor has a status effect (exists only).
    ActorStatus,
    /// `t.status.NAME`: whether the target has a status effect (exists only).
    TargetStatus,
    /// `item.NAME`: a parameter of the item involved.
    Item,
    /// `reacted-skill.NAME`: a parameter of the skill being reacted to.
    ReactedSkill,
    /// `reacted-skill.item.NAME`: a parameter of that skill's item.
    ReactedItem,
    /// `equip(…).NAME`: an equipment parameter of the actor (or of `holder`).
    Equip(Box<EquipSearch>),
    /// `effect(…)`: a search over the effects applied by the running (or reacted) skill.
    Effect(Box<EffectSearch>),
    /// Bare `effect`: the value of the last effect applied by the running skill.
    EffectValue,
    /// `reacted-skill.effect`: the value of the last effect of the skill being reacted to.
    ReactedEffectValue,
}

/// Whose equipment an `equip` search looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Holder {
    /// The acting character (`equip`, `c.equip`).
    Actor,
    /// The target (`t.equip`).
    Target,
    /// The actor's mount (`mount.equip`).
    ActorMount,
    /// The target's mount (`t.mount.equip`).
    TargetMount,
}

/// How the values found by a search are combined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Merge {
    /// The first (the default).
    #[default]
    First,
    /// The last.
    Last,
    /// The smallest.
    Min,
    /// The largest.
    Max,
    /// The mean.
    Mean,
    /// The sum (0 when nothing matched).
    Sum,
    /// The n-th, from 1.
    Nth(u32),
}

/// An equipment search: `equip(categories in slots get merge).param`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EquipSearch {
    /// Whose equipment.
    pub holder: Option<Holder>,
    /// Every one must be among the item's categories.
    pub categories: Vec<String>,
    /// One of them must be among the item's slots (empty: any slot).
    pub slots: Vec<String>,
    /// How matching items' values combine.
    pub merge: Merge,
}

/// The kind of stat change an effect made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    /// Any effect.
    Any,
    /// The stat changed.
    Change,
    /// The stat went up.
    Increase,
    /// The stat went down.
    Decrease,
    /// The stat stayed the same.
    NoChange,
}

impl Change {
    /// How it is written.
    pub fn text(self) -> &'static str {
        match self {
            Self::Any => "any",
            Self::Change => "change",
            Self::Increase => "increase",
            Self::Decrease => "decrease",
            Self::NoChange => "no-change",
        }
    }
}

/// An effect search: `effect(changes in stats by categories get merge)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EffectSearch {
    /// Search the skill being reacted to instead of the running one.
    pub reacted: bool,
    /// The record matches if any of these describes its change (empty: `change`).
    pub changes: Vec<Change>,
    /// The changed stat must be one of these (empty: any).
    pub stats: Vec<String>,
    /// Every one must be among the effect's reactable types.
    pub categories: Vec<String>,
    /// How matching records' values combine.
    pub merge: Merge,
}

/// A lookup: a scope and a (possibly dotted) name.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lookup {
    /// Where it reads from.
    pub scope: Scope,
    /// The name, e.g. `PA` or `arg.angle.xy`; empty for searches without a parameter.
    pub name: String,
}

/// A side of a facing branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// Face to face.
    Front,
    /// On the left.
    Left,
    /// On the right.
    Right,
    /// From behind.
    Back,
    /// Not facing at all.
    Away,
    /// Left or right.
    Sides,
    /// Any side but away.
    Towards,
    /// Anything else.
    Default,
}

impl Side {
    /// Every side, in the order cases are stored and printed.
    pub const ALL: [Side; 8] =
        [Side::Front, Side::Left, Side::Right, Side::Back, Side::Away, Side::Sides, Side::Towards, Side::Default];

    /// How the side is written.
    pub fn text(self) -> &'static str {
        match self {
            Self::Front => "front",
            Self::Left => "left",
            Self::Right => "right",
            Self::Back => "back",
            Self::Away => "away",
            Self::Sides => "sides",
            Self::Towards => "towards",
            Self::Default => "default",
        }
    }

    /// The side spelled `text`.
    pub fn from_text(text: &str) -> Option<Side> {
        Self::ALL.into_iter().find(|side| side.text() == text)
    }
}

/// A node of the syntax tree with its span. Equality ignores spans, so a tree printed and
/// parsed again compares equal.
#[derive(Clone, Debug)]
pub struct Ast {
    /// What it is.
    pub kind: AstKind,
    /// Where it is in the text.
    pub span: Span,
}

impl PartialEq for Ast {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind
    }
}

impl Ast {
    /// A node.
    pub fn new(kind: AstKind, span: Span) -> Self {
        Self { kind, span }
    }

    /// Calls `visit` with every lookup of the tree, in text order.
    pub fn each_lookup<'a>(&'a self, visit: &mut dyn FnMut(&'a Lookup)) {
        let cases = |cases: &'a [Case], visit: &mut dyn FnMut(&'a Lookup)| {
            for (key, value) in cases {
                key.each_lookup(visit);
                value.each_lookup(visit);
            }
        };
        match &self.kind {
            AstKind::Number(_) | AstKind::Bool(_) => {}
            AstKind::Neg(inner) | AstKind::Not(inner) => inner.each_lookup(visit),
            AstKind::Binary(_, pair) => pair.iter().for_each(|part| part.each_lookup(visit)),
            AstKind::If(parts) => parts.iter().for_each(|part| part.each_lookup(visit)),
            AstKind::Call(_, args) => args.iter().for_each(|arg| arg.each_lookup(visit)),
            AstKind::Exists(lookup) | AstKind::Lookup(lookup) => visit(lookup),
            AstKind::LookupOr(lookup, default) => {
                visit(lookup);
                default.each_lookup(visit);
            }
            AstKind::Cond(list, default) | AstKind::RandomBranch(list, default) => {
                cases(list, visit);
                if let Some(default) = default {
                    default.each_lookup(visit);
                }
            }
            AstKind::Switch(key, list, default) => {
                key.each_lookup(visit);
                cases(list, visit);
                if let Some(default) = default {
                    default.each_lookup(visit);
                }
            }
            AstKind::Facing { cases, .. } => cases.iter().for_each(|(_, value)| value.each_lookup(visit)),
        }
    }
}

/// One case of `cond`, `switch` or `random {…}`: a condition, key or weight, and a value.
pub type Case = (Ast, Ast);

/// What a node is.
#[derive(Clone, Debug, PartialEq)]
pub enum AstKind {
    /// A number (never negative; `-2` is a negation).
    Number(f64),
    /// `true` (1) or `false` (0).
    Bool(bool),
    /// `-x`
    Neg(Box<Ast>),
    /// `not x`
    Not(Box<Ast>),
    /// `a op b` (one box for both operands: formulas are parsed often, mostly into small trees)
    Binary(BinaryOp, Box<[Ast; 2]>),
    /// `if c: a; b`
    If(Box<[Ast; 3]>),
    /// `name(args…)`
    Call(Builtin, Vec<Ast>),
    /// `exists(lookup)`
    Exists(Lookup),
    /// `lookup(lookup, default)`
    LookupOr(Lookup, Box<Ast>),
    /// A lookup.
    Lookup(Lookup),
    /// `cond { c: v; …; default: d }`
    Cond(Vec<Case>, Option<Box<Ast>>),
    /// `switch (x) { k: v; …; default: d }`
    Switch(Box<Ast>, Vec<Case>, Option<Box<Ast>>),
    /// `random { weight: v; …; default: d }`
    RandomBranch(Vec<Case>, Option<Box<Ast>>),
    /// `targeted-side {…}` (`targeted` true) or `targeter-side {…}`: cases in [`Side::ALL`] order.
    Facing {
        /// `targeted-side` (the actor looks at the target) or `targeter-side`.
        targeted: bool,
        /// The value for each side that has a case.
        cases: Vec<(Side, Ast)>,
    },
}
