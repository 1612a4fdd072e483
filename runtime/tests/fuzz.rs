//! Fuzzing on stable Rust (issue 27: hostile input cannot crash the tools). Three targets, each
//! run for a fixed number of cases in the normal `cargo test` run:
//!
//! * `formulas`: text from a grammar of the formula language (numbers including huge and
//!   NaN-like literals, names, dotted and scoped lookups, calls, operators, branches, deep
//!   nesting, long flat chains, raw bytes mixed in) through `parse`, `canonical_text`,
//!   `FormulaSet::compile`/`build`, evaluation and tracing;
//! * `ron_*`: real item files and bundles of the packs in `content/`, mutated (byte flips,
//!   splices of RON tokens, `1e309`, `-9223372036854775809`, deep nesting, huge strings,
//!   control characters), through `fast_ron::from_str` (held equal to `ron`), `parse_bundle`
//!   and `load_folder` (then compiled and played a little when it loads clean);
//! * `scripts`: playtest scripts from a grammar of FORMAT.md §7 (every command, hostile
//!   arguments, nested `repeat` blocks, the packs' own playtest lines and the choices the game
//!   offers) through `Session::run_script_with` on a session of every pack.
//!
//! Each case `i` is a `Unstructured` over bytes from a SplitMix64 generator seeded with the
//! target's name, the base seed and `i`, so a failure reproduces exactly: its message names the
//! target, the base seed and the case, and prints the generated input. Knobs (environment):
//!
//! * `ACTFORGE_FUZZ_CASES=N`: N cases per target instead of the defaults (kept small enough for
//!   a debug `cargo test` on two cores), e.g.
//!   `ACTFORGE_FUZZ_CASES=100000 cargo test -p actforge-runtime --test fuzz --release`;
//! * `ACTFORGE_FUZZ_SEED=S`: another base seed (new cases; the default is fixed);
//! * `ACTFORGE_FUZZ_CASE=I`: only case I (to reproduce a failure);
//! * `ACTFORGE_FUZZ_VERBOSE=1`: print every input before it runs (a stack overflow aborts the
//!   process without a message; the last input printed is the culprit).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test

use std::collections::BTreeMap;
use std::fmt::{Debug, Write as _};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use actforge_runtime::diagnostic::{Diagnostic, Position};
use actforge_runtime::engine::Session;
use actforge_runtime::engine::script::{ScriptOptions, ScriptReport};
use actforge_runtime::formula::query::{Query, QueryError, evaluate, trace};
use actforge_runtime::formula::{AnyNames, FormulaError, FormulaSet, ValuesEnv, canonical, lookup_text, parse};
use actforge_runtime::model::{Item, Items, KindVisitor, Manifest, Project};
use actforge_runtime::project::ron_format::to_ron_string;
use actforge_runtime::project::{BundleFormat, ProjectError, bundle_text, fast_ron, load_folder, parse_bundle};
use arbitrary::{Arbitrary, Unstructured};

// ---------------------------------------------------------------------------------------------
// The harness
// ---------------------------------------------------------------------------------------------

/// The default base seed: fixed, so every run of the suite tries the same cases.
const BASE_SEED: u64 = 0x00AC_7F09_2027_0001;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|value| value.trim().parse().ok())
}

fn base_seed() -> u64 {
    env_number("ACTFORGE_FUZZ_SEED").unwrap_or(BASE_SEED)
}

fn verbose() -> bool {
    std::env::var("ACTFORGE_FUZZ_VERBOSE").is_ok_and(|value| !value.is_empty() && value != "0")
}

/// SplitMix64: tiny, seeded, the same everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The bytes of case `case` of `target`: up to `max_len` of them.
fn case_bytes(target: &str, case: u64, max_len: usize) -> Vec<u8> {
    let name = target
        .bytes()
        .fold(0xCBF2_9CE4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01B3));
    let mut rng = SplitMix(base_seed() ^ name ^ case.wrapping_mul(0xD1B5_4A32_D192_ED03));
    let len = (rng.next() % (max_len as u64 + 1)) as usize;
    let mut bytes = Vec::with_capacity(len + 8);
    while bytes.len() < len {
        bytes.extend_from_slice(&rng.next().to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

/// Runs `cases` cases of `target` (or `ACTFORGE_FUZZ_CASES`, or only `ACTFORGE_FUZZ_CASE`):
/// each generates an input from its bytes and checks it; a panic or an `Err` fails the test
/// with the case and its input. Returns the number of cases run.
fn fuzz<I: Debug>(
    target: &str,
    cases: u64,
    max_len: usize,
    mut generate: impl FnMut(&mut Unstructured<'_>) -> arbitrary::Result<I>,
    mut check: impl FnMut(&I) -> Result<(), String>,
) -> u64 {
    let cases = env_number("ACTFORGE_FUZZ_CASES").unwrap_or(cases);
    let range = match env_number("ACTFORGE_FUZZ_CASE") {
        Some(only) => only..only + 1,
        None => 0..cases,
    };
    let started = Instant::now();
    let mut ran = 0;
    for case in range {
        let bytes = case_bytes(target, case, max_len);
        let Ok(input) = generate(&mut Unstructured::new(&bytes)) else { continue };
        if verbose() {
            eprintln!("fuzz {target} case {case}: {input:?}");
        }
        let outcome = catch_unwind(AssertUnwindSafe(|| check(&input)));
        let why = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(why)) => Some(why),
            Err(panic) => Some(format!(
                "panicked: {}",
                panic
                    .downcast_ref::<String>()
                    .map(String::as_str)
                    .or_else(|| panic.downcast_ref::<&str>().copied())
                    .unwrap_or("(no message)")
            )),
        };
        if let Some(why) = why {
            panic!(
                "fuzz target `{target}` failed on case {case} (reproduce with ACTFORGE_FUZZ_SEED={} \
                 ACTFORGE_FUZZ_CASE={case}): {why}\ninput: {input:#?}",
                base_seed()
            );
        }
        ran += 1;
    }
    eprintln!("fuzz {target}: {ran} cases in {:.2?}", started.elapsed());
    ran
}

/// `text` with at most `max` characters, for messages.
fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        format!("{}…", text.chars().take(max).collect::<String>())
    }
}

// ---------------------------------------------------------------------------------------------
// Formulas
// ---------------------------------------------------------------------------------------------

/// A number literal, from ordinary to hostile.
#[derive(Arbitrary, Debug)]
enum Num {
    Small(u8),
    Decimal(u16, u16),
    LeadingDot(u16),
    TrailingDot(u16),
    Big(u64),
    /// A run of N nines (310 and more overflow to infinity).
    Nines(u16),
    /// `0.000…1`
    Tiny(u16),
    Float(f64),
    Word(NumWord),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum NumWord {
    Exp309,
    ExpNeg,
    NaN,
    Inf,
    NegInf,
    MinI64,
    U64Over,
    Hex,
    Underscore,
    TwoDots,
    Max53,
}

impl Num {
    fn render(&self, out: &mut String) {
        match self {
            Self::Small(n) => write!(out, "{n}").unwrap(),
            Self::Decimal(a, b) => write!(out, "{a}.{b}").unwrap(),
            Self::LeadingDot(n) => write!(out, ".{n}").unwrap(),
            Self::TrailingDot(n) => write!(out, "{n}.").unwrap(),
            Self::Big(n) => write!(out, "{n}").unwrap(),
            Self::Nines(n) => out.push_str(&"9".repeat(usize::from(*n % 700) + 1)),
            Self::Tiny(n) => write!(out, "0.{}1", "0".repeat(usize::from(*n % 400))).unwrap(),
            Self::Float(f) => write!(out, "{f}").unwrap(),
            Self::Word(word) => out.push_str(match word {
                NumWord::Exp309 => "1e309",
                NumWord::ExpNeg => "1e-400",
                NumWord::NaN => "NaN",
                NumWord::Inf => "inf",
                NumWord::NegInf => "-inf",
                NumWord::MinI64 => "9223372036854775808",
                NumWord::U64Over => "18446744073709551616",
                NumWord::Hex => "0x1F",
                NumWord::Underscore => "1_000",
                NumWord::TwoDots => "1.2.3",
                NumWord::Max53 => "9007199254740993",
            }),
        }
    }
}

/// A name: an ordinary identifier, one of the names formulas really use, a keyword, or junk.
#[derive(Arbitrary, Debug)]
enum Name {
    Known(u8),
    Letters(u8, u8),
    Raw(String),
}

const KNOWN_NAMES: &[&str] = &[
    "a",
    "b",
    "x",
    "hp",
    "PA",
    "Element",
    "gdp",
    "stat",
    "table",
    "card",
    "kitten",
    "anywhere",
    "aspect",
    "furry",
    "one",
    "two",
    "three",
    "isNull",
    "isNotNull",
    "front",
    "left",
    "back",
    "away",
    "sides",
    "towards",
    "default",
    "max",
    "div",
    "if",
    "not",
    "c",
    "t",
    "f",
    "equip",
    "effect",
    "weapon",
    "hand",
    "outcome",
    "won",
    "unit",
    "node",
    "captured",
    "board",
    "score",
    "campaign",
    "day",
    "_",
    "a1",
    "é",
    "ünïcode",
    "sqrt",
    "cond",
    "switch",
    "random",
];

impl Name {
    fn render(&self, out: &mut String) {
        match self {
            Self::Known(index) => out.push_str(KNOWN_NAMES[usize::from(*index) % KNOWN_NAMES.len()]),
            Self::Letters(first, len) => {
                out.push(char::from(b'a' + first % 26));
                for at in 0..*len % 40 {
                    out.push(char::from(b'a' + (first.wrapping_add(at)) % 26));
                }
            }
            Self::Raw(text) => out.push_str(text),
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ScopeWord {
    C,
    T,
    F,
    Skill,
    SkillItem,
    ReactedSkill,
    ReactedSkillItem,
    ReactedSkillEffect,
    Item,
    Status,
    Mount,
    Mounter,
    CMount,
    TMounter,
    CStatus,
    CSkill,
    TIsNull,
    TIsNotNull,
    TEffect,
    CItem,
    Effect,
}

impl ScopeWord {
    fn text(self) -> &'static str {
        match self {
            Self::C => "c.",
            Self::T => "t.",
            Self::F => "f.",
            Self::Skill => "skill.",
            Self::SkillItem => "skill.item.",
            Self::ReactedSkill => "reacted-skill.",
            Self::ReactedSkillItem => "reacted-skill.item.",
            Self::ReactedSkillEffect => "reacted-skill.effect",
            Self::Item => "item.",
            Self::Status => "status.",
            Self::Mount => "mount.",
            Self::Mounter => "mounter.",
            Self::CMount => "c.mount.",
            Self::TMounter => "t.mounter.",
            Self::CStatus => "c.status.",
            Self::CSkill => "c.skill.",
            Self::TIsNull => "t.isNull",
            Self::TIsNotNull => "t.isNotNull",
            Self::TEffect => "t.effect",
            Self::CItem => "c.item.",
            Self::Effect => "effect",
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum MergeWord {
    First,
    Last,
    Min,
    Max,
    Mean,
    Sum,
    Nth(u32),
    Zero,
    Junk,
}

impl MergeWord {
    fn render(self, out: &mut String) {
        out.push_str(" get ");
        match self {
            Self::First => out.push_str("first"),
            Self::Last => out.push_str("last"),
            Self::Min => out.push_str("min"),
            Self::Max => out.push_str("max"),
            Self::Mean => out.push_str("mean"),
            Self::Sum => out.push_str("sum"),
            Self::Nth(n) => write!(out, "{n}").unwrap(),
            Self::Zero => out.push_str("0.5"),
            Self::Junk => out.push('('),
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ChangeWord {
    Any,
    Change,
    Increase,
    Decrease,
    NoChange,
}

/// A lookup: a dotted name, a scoped one, an equipment or effect search.
#[derive(Arbitrary, Debug)]
enum LookupGen {
    Plain(Name, Vec<Name>),
    Scoped(ScopeWord, Vec<Name>),
    Equip {
        target: Option<bool>,
        categories: Vec<Name>,
        slots: Option<Vec<Name>>,
        merge: Option<MergeWord>,
        name: Option<Name>,
    },
    Effect {
        reacted: bool,
        changes: Vec<ChangeWord>,
        stats: Option<Vec<Name>>,
        by: Option<Vec<Name>>,
        merge: Option<MergeWord>,
    },
    Parenthesised(Box<LookupGen>, Vec<Name>),
}

fn render_names(names: &[Name], separator: &str, out: &mut String) {
    for (at, name) in names.iter().enumerate() {
        if at > 0 {
            out.push_str(separator);
        }
        name.render(out);
    }
}

impl LookupGen {
    fn render(&self, out: &mut String) {
        match self {
            Self::Plain(first, rest) => {
                first.render(out);
                for name in rest {
                    out.push('.');
                    name.render(out);
                }
            }
            Self::Scoped(scope, names) => {
                out.push_str(scope.text());
                render_names(names, ".", out);
            }
            Self::Equip { target, categories, slots, merge, name } => {
                out.push_str(match target {
                    None => "equip",
                    Some(false) => "c.equip",
                    Some(true) => "t.mount.equip",
                });
                out.push('(');
                render_names(categories, ", ", out);
                if let Some(slots) = slots {
                    out.push_str(" in ");
                    render_names(slots, ", ", out);
                }
                if let Some(merge) = merge {
                    merge.render(out);
                }
                out.push(')');
                if let Some(name) = name {
                    out.push('.');
                    name.render(out);
                }
            }
            Self::Effect { reacted, changes, stats, by, merge } => {
                out.push_str(if *reacted { "reacted-skill.effect(" } else { "effect(" });
                for (at, change) in changes.iter().enumerate() {
                    if at > 0 {
                        out.push_str(", ");
                    }
                    out.push_str(match change {
                        ChangeWord::Any => "any",
                        ChangeWord::Change => "change",
                        ChangeWord::Increase => "increase",
                        ChangeWord::Decrease => "decrease",
                        ChangeWord::NoChange => "no-change",
                    });
                }
                if let Some(stats) = stats {
                    out.push_str(" in ");
                    render_names(stats, ", ", out);
                }
                if let Some(by) = by {
                    out.push_str(" by ");
                    render_names(by, ", ", out);
                }
                if let Some(merge) = merge {
                    merge.render(out);
                }
                out.push(')');
            }
            Self::Parenthesised(inner, names) => {
                out.push('(');
                inner.render(out);
                out.push(')');
                for name in names {
                    out.push('.');
                    name.render(out);
                }
            }
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    IntDiv,
    Rem,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// Not an operator of the language.
    Bang,
    Assign,
}

impl Op {
    fn text(self) -> &'static str {
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
            Self::Bang => "!",
            Self::Assign => "=",
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Func {
    Abs,
    Trunc,
    Root,
    Mean,
    Min,
    Max,
    Random,
    Clamp,
    Floor,
    Ceil,
    Round,
    Any,
    Sqrt,
    Exists,
    Lookup,
}

impl Func {
    fn text(self) -> &'static str {
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
            Self::Sqrt => "sqrt",
            Self::Exists => "exists",
            Self::Lookup => "lookup",
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum BranchWord {
    Cond,
    Random,
    TargetedSide,
    TargeterSide,
}

/// One token of the language (or near it), placed anywhere.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum Tok {
    Op(Op),
    Open,
    Close,
    OpenBrace,
    CloseBrace,
    Comma,
    Colon,
    Semicolon,
    Dot,
    If,
    Not,
    Default,
    Get,
    In,
    By,
    SwitchOpen,
    CondOpen,
    Quote,
    Hash,
    Nul,
    Newline,
    Escape,
    Bidi,
}

impl Tok {
    fn text(self) -> &'static str {
        match self {
            Self::Op(op) => op.text(),
            Self::Open => "(",
            Self::Close => ")",
            Self::OpenBrace => "{",
            Self::CloseBrace => "}",
            Self::Comma => ",",
            Self::Colon => ":",
            Self::Semicolon => ";",
            Self::Dot => ".",
            Self::If => "if",
            Self::Not => "not",
            Self::Default => "default",
            Self::Get => "get",
            Self::In => "in",
            Self::By => "by",
            Self::SwitchOpen => "switch (",
            Self::CondOpen => "cond {",
            Self::Quote => "\"",
            Self::Hash => "#",
            Self::Nul => "\0",
            Self::Newline => "\n",
            Self::Escape => "\u{1b}[31m",
            Self::Bidi => "\u{202e}",
        }
    }
}

/// An expression of the formula language, or something near one.
#[derive(Arbitrary, Debug)]
enum Expr {
    Num(Num),
    Bool(bool),
    Lookup(LookupGen),
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(Box<Expr>, Op, Box<Expr>),
    Paren(Box<Expr>),
    Call(Func, Vec<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    Cases(BranchWord, Vec<(Expr, Expr)>, Option<Box<Expr>>),
    Switch(Box<Expr>, Vec<(Expr, Expr)>, Option<Box<Expr>>),
    Exists(LookupGen),
    LookupOr(LookupGen, Box<Expr>),
    /// N pairs of parentheses around the expression.
    Nest(u8, Box<Expr>),
    /// N prefix operators before it.
    Prefixes(u8, bool, Box<Expr>),
    /// The expression N+1 times joined by the operator (up to past `MAX_OPERATORS`).
    Chain(Op, u16, Box<Expr>),
    /// `if` nested in its own else part N times.
    IfChain(u8, Box<Expr>),
    Token(Tok),
    Juxtaposed(Vec<Expr>),
    Raw(String),
    Bytes(Vec<u8>),
}

/// Rendered texts stop growing past this many bytes (nested chains multiply).
const MAX_TEXT: usize = 200_000;

impl Expr {
    #[allow(clippy::too_many_lines)] // one arm per form
    fn render(&self, out: &mut String, spacing: Spacing) {
        if out.len() > MAX_TEXT {
            out.push('1');
            return;
        }
        let gap = spacing.text();
        match self {
            Self::Num(num) => num.render(out),
            Self::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Self::Lookup(lookup) => lookup.render(out),
            Self::Neg(inner) => {
                out.push('-');
                inner.render(out, spacing);
            }
            Self::Not(inner) => {
                out.push_str("not ");
                inner.render(out, spacing);
            }
            Self::Binary(left, op, right) => {
                left.render(out, spacing);
                out.push_str(gap);
                out.push_str(op.text());
                out.push_str(gap);
                right.render(out, spacing);
            }
            Self::Paren(inner) => {
                out.push('(');
                inner.render(out, spacing);
                out.push(')');
            }
            Self::Call(func, args) => {
                out.push_str(func.text());
                out.push('(');
                for (at, arg) in args.iter().enumerate() {
                    if at > 0 {
                        out.push(',');
                        out.push_str(gap);
                    }
                    arg.render(out, spacing);
                }
                out.push(')');
            }
            Self::If(condition, then, otherwise) => {
                out.push_str("if ");
                condition.render(out, spacing);
                out.push(':');
                out.push_str(gap);
                then.render(out, spacing);
                out.push(';');
                out.push_str(gap);
                otherwise.render(out, spacing);
            }
            Self::Cases(word, cases, default) => {
                out.push_str(match word {
                    BranchWord::Cond => "cond {",
                    BranchWord::Random => "random {",
                    BranchWord::TargetedSide => "targeted-side {",
                    BranchWord::TargeterSide => "targeter-side {",
                });
                render_cases(cases, default.as_deref(), out, spacing);
            }
            Self::Switch(subject, cases, default) => {
                out.push_str("switch (");
                subject.render(out, spacing);
                out.push_str(") {");
                render_cases(cases, default.as_deref(), out, spacing);
            }
            Self::Exists(lookup) => {
                out.push_str("exists(");
                lookup.render(out);
                out.push(')');
            }
            Self::LookupOr(lookup, default) => {
                out.push_str("lookup(");
                lookup.render(out);
                out.push_str(", ");
                default.render(out, spacing);
                out.push(')');
            }
            Self::Nest(depth, inner) => {
                let depth = usize::from(*depth);
                out.push_str(&"(".repeat(depth));
                inner.render(out, spacing);
                out.push_str(&")".repeat(depth));
            }
            Self::Prefixes(count, not, inner) => {
                for _ in 0..*count {
                    out.push_str(if *not { "not " } else { "-" });
                }
                inner.render(out, spacing);
            }
            Self::Chain(op, count, inner) => {
                let mut part = String::new();
                inner.render(&mut part, spacing);
                let joint = format!("{gap}{}{gap}", op.text());
                let count = usize::from(*count % 1_100);
                out.push_str(&part);
                for _ in 0..count {
                    if out.len() > MAX_TEXT {
                        break;
                    }
                    out.push_str(&joint);
                    out.push_str(&part);
                }
            }
            Self::IfChain(count, inner) => {
                for at in 0..*count {
                    write!(out, "if x == {at}: {at};{gap}").unwrap();
                }
                inner.render(out, spacing);
            }
            Self::Token(token) => out.push_str(token.text()),
            Self::Juxtaposed(parts) => {
                for part in parts {
                    part.render(out, spacing);
                    out.push_str(gap);
                }
            }
            Self::Raw(text) => out.push_str(text),
            Self::Bytes(bytes) => out.push_str(&String::from_utf8_lossy(bytes)),
        }
    }
}

fn render_cases(cases: &[(Expr, Expr)], default: Option<&Expr>, out: &mut String, spacing: Spacing) {
    for (at, (key, value)) in cases.iter().enumerate() {
        if at > 0 {
            out.push(';');
            out.push_str(spacing.text());
        }
        key.render(out, spacing);
        out.push_str(": ");
        value.render(out, spacing);
    }
    if let Some(default) = default {
        out.push_str("; default: ");
        default.render(out, spacing);
    }
    out.push('}');
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Spacing {
    Space,
    None,
    Newline,
    Tabs,
}

impl Spacing {
    fn text(self) -> &'static str {
        match self {
            Self::Space => " ",
            Self::None => "",
            Self::Newline => "\n",
            Self::Tabs => "\t \t",
        }
    }
}

/// One formula case: the formula and up to three named formulas (`f.one`, `f.two`, `f.three`)
/// it and each other may read.
#[derive(Arbitrary, Debug)]
struct FormulaGen {
    main: Expr,
    named: Vec<Expr>,
    spacing: Spacing,
}

/// What a formula case runs on: the texts, rendered.
#[derive(Debug)]
struct FormulaCase {
    text: String,
    named: Vec<(String, String)>,
}

impl FormulaGen {
    fn rendered(&self) -> FormulaCase {
        let mut text = String::new();
        self.main.render(&mut text, self.spacing);
        let named = self
            .named
            .iter()
            .take(3)
            .zip(["one", "two", "three"])
            .map(|(expr, name)| {
                let mut body = String::new();
                expr.render(&mut body, self.spacing);
                (name.to_owned(), body)
            })
            .collect();
        FormulaCase { text, named }
    }
}

/// An error's span lies inside `text`, on character boundaries.
fn span_inside(error: &FormulaError, text: &str) -> Result<(), String> {
    let span = error.span;
    if span.start > span.end
        || span.end > text.len()
        || !text.is_char_boundary(span.start)
        || !text.is_char_boundary(span.end)
    {
        return Err(format!(
            "the error `{}` has span {span:?}, outside the text of {} bytes",
            error.message,
            text.len()
        ));
    }
    if error.message.is_empty() {
        return Err("an error without a message".to_owned());
    }
    let _ = error.render(text);
    let _ = error.column(text);
    Ok(())
}

fn same_number(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

fn check_formula(case: &FormulaCase) -> Result<(), String> {
    let text = case.text.as_str();
    match parse(text) {
        Err(error) => span_inside(&error, text)?,
        Ok(ast) => {
            let printed = canonical(&ast);
            let again = parse(&printed).map_err(|error| {
                format!("the canonical form `{}` does not parse: {}", clip(&printed, 300), error.render(&printed))
            })?;
            if again != ast {
                return Err(format!("the canonical form `{}` parses to another tree", clip(&printed, 300)));
            }
            let twice = canonical(&again);
            if twice != printed {
                return Err(format!("canonical is not stable: `{}` then `{}`", clip(&printed, 300), clip(&twice, 300)));
            }
        }
    }

    // Compiled against any names, evaluated with no values and with every value given.
    let mut set = FormulaSet::new();
    match set.compile(text, &AnyNames) {
        Err(error) => span_inside(&error, text)?,
        Ok(compiled) => {
            let _ = set.eval(&compiled, &mut ValuesEnv::new(&set, &BTreeMap::new(), 1));
            let values: BTreeMap<String, f64> = set
                .lookups()
                .enumerate()
                .map(|(at, lookup)| (lookup_text(lookup), [1.5, 0.0, -3.0, f64::NAN, f64::INFINITY][at % 5]))
                .collect();
            let mut env = ValuesEnv::new(&set, &values, 7);
            let mut copy = env.clone();
            let fast = set.eval(&compiled, &mut env);
            if let Ok(ast) = parse(text) {
                let traced = set.trace(&ast, text, &mut copy);
                if !same_number(traced.value_or_nan(), fast) {
                    return Err(format!(
                        "the trace's root value {} is not the fast path's {fast}",
                        traced.value_or_nan()
                    ));
                }
            }
        }
    }

    // Named formulas that read each other (cycles included), then the formula reading them.
    let (mut set, errors) = FormulaSet::build(&case.named, &AnyNames);
    for named in &errors {
        let body = case.named.iter().find(|(name, _)| *name == named.name).map_or("", |(_, body)| body.as_str());
        // A cycle is reported on the whole formula; a parse error inside its text.
        if named.error.span.end > body.len() {
            return Err(format!(
                "named formula `{}`: error `{}` at {:?} past its text",
                named.name, named.error.message, named.error.span
            ));
        }
    }
    for (name, _) in &case.named {
        let _ = set.eval_named(name, &mut ValuesEnv::new(&set, &BTreeMap::new(), 3));
    }
    if let Ok(compiled) = set.compile(text, &AnyNames) {
        let _ = set.eval(&compiled, &mut ValuesEnv::new(&set, &BTreeMap::new(), 3));
    }

    // `actforge eval`: the query path and its trace agree.
    let query = Query { defines: case.named.clone(), seed: 5, ..Query::default() };
    match (evaluate(text, &query), trace(text, &query)) {
        (Ok(value), Ok(traced)) => {
            if !same_number(value, traced.value_or_nan()) {
                return Err(format!("eval gives {value}, its trace {}", traced.value_or_nan()));
            }
        }
        (Err(QueryError::Formula { error }), Err(_)) => span_inside(&error, text)?,
        (Err(QueryError::Named { text: body, error, .. }), Err(_)) => span_inside(&error, &body)?,
        (Err(error), Err(_)) => {
            return Err(format!("unexpected query error {error:?}"));
        }
        (value, traced) => {
            return Err(format!("eval and trace disagree: {value:?} / {:?}", traced.map(|t| t.value)));
        }
    }
    Ok(())
}

#[test]
fn formulas_parse_compile_and_evaluate_without_panicking() {
    let ran = fuzz(
        "formulas",
        3_000,
        1_024,
        |u| FormulaGen::arbitrary(u).map(|generated| generated.rendered()),
        check_formula,
    );
    assert!(ran > 0);
}

// ---------------------------------------------------------------------------------------------
// RON: item files, bundles, project folders
// ---------------------------------------------------------------------------------------------

fn content_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content")
}

const PACKS: &[&str] = &["act-demo", "knucklebones", "lighthouse", "srpg-skirmish", "era-synthesis", "issues-sim"];

/// Every item file of the packs: (pack, kind folder, file name, text), in a fixed order.
fn item_files() -> Vec<(String, String, String, String)> {
    let mut files = Vec::new();
    for pack in PACKS {
        let root = content_root().join(pack);
        let mut folders: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().map(|entry| entry.unwrap().path()).collect();
        folders.sort();
        for folder in folders.into_iter().filter(|path| path.is_dir()) {
            let kind = folder.file_name().unwrap().to_string_lossy().into_owned();
            if actforge_runtime::model::Kind::from_folder(&kind).is_none() {
                continue;
            }
            let mut names: Vec<PathBuf> =
                std::fs::read_dir(&folder).unwrap().map(|entry| entry.unwrap().path()).collect();
            names.sort();
            for path in names.into_iter().filter(|path| path.extension().is_some_and(|ext| ext == "ron")) {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                files.push(((*pack).to_owned(), kind.clone(), name, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    files
}

/// What a mutation splices in.
#[derive(Arbitrary, Debug)]
enum Splice {
    Token(RonToken),
    /// N opening brackets of one kind (past `ron`'s and the fast reader's limits of 128).
    Deep(u16, u8),
    /// A string of N characters.
    HugeString(u16),
    Control(u8),
    Char(char),
    Text(String),
    Number(Num),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum RonToken {
    Open,
    Close,
    OpenBracket,
    CloseBracket,
    OpenBrace,
    CloseBrace,
    Quote,
    Comma,
    Colon,
    Some,
    None,
    True,
    Unit,
    RawString,
    BlockComment,
    LineComment,
    Exp309,
    BelowI64,
    AboveU64,
    NaN,
    Inf,
    NegInf,
    Char,
    BadEscape,
    BadUnicode,
    Surrogate,
    Extension,
    Ident,
    Bom,
}

impl RonToken {
    fn text(self) -> &'static str {
        match self {
            Self::Open => "(",
            Self::Close => ")",
            Self::OpenBracket => "[",
            Self::CloseBracket => "]",
            Self::OpenBrace => "{",
            Self::CloseBrace => "}",
            Self::Quote => "\"",
            Self::Comma => ",",
            Self::Colon => ":",
            Self::Some => "Some(",
            Self::None => "None",
            Self::True => "true",
            Self::Unit => "()",
            Self::RawString => "r#\"raw \"# string\"#",
            Self::BlockComment => "/* unclosed",
            Self::LineComment => "// comment\n",
            Self::Exp309 => "1e309",
            Self::BelowI64 => "-9223372036854775809",
            Self::AboveU64 => "18446744073709551616",
            Self::NaN => "NaN",
            Self::Inf => "inf",
            Self::NegInf => "-inf",
            Self::Char => "'x'",
            Self::BadEscape => "\"\\q\"",
            Self::BadUnicode => "\"\\u{110000}\"",
            Self::Surrogate => "\"\\u{d800}\"",
            Self::Extension => "#![enable(implicit_some)]",
            Self::Ident => "Custom",
            Self::Bom => "\u{feff}",
        }
    }
}

impl Splice {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Self::Token(token) => token.text().as_bytes().to_vec(),
            Self::Deep(count, kind) => ["(", "[", "{", "Some(", "[(", "{\"a\":"][usize::from(*kind) % 6]
                .repeat(usize::from(*count % 3_000))
                .into_bytes(),
            Self::HugeString(len) => format!("\"{}\"", "é".repeat(usize::from(*len) * 4)).into_bytes(),
            Self::Control(byte) => vec![byte % 32],
            Self::Char(c) => c.to_string().into_bytes(),
            Self::Text(text) => text.as_bytes().to_vec(),
            Self::Number(num) => {
                let mut text = String::new();
                num.render(&mut text);
                text.into_bytes()
            }
        }
    }
}

/// One edit of a file's bytes; positions are taken modulo the length.
#[derive(Arbitrary, Debug)]
enum Edit {
    Flip {
        at: u32,
        bits: u8,
    },
    Delete {
        at: u32,
        len: u8,
    },
    Insert {
        at: u32,
        what: Splice,
    },
    Replace {
        at: u32,
        len: u8,
        what: Splice,
    },
    /// Replaces the N-th number of the text.
    Number {
        nth: u16,
        what: Splice,
    },
    Duplicate {
        at: u32,
        len: u16,
        to: u32,
    },
    Truncate {
        at: u32,
    },
    /// Replaces the N-th number with another number (the file stays RON).
    NumberValue {
        nth: u16,
        value: NumberValue,
    },
    /// Puts text inside the N-th string (escaped: the file stays RON).
    InString {
        nth: u16,
        text: String,
    },
}

/// A number that is still RON, hostile to what reads it.
#[derive(Arbitrary, Debug)]
enum NumberValue {
    Signed(i64),
    Unsigned(u64),
    Float(f64),
    Small(i8),
    Word(u8),
}

impl NumberValue {
    fn text(&self) -> String {
        match self {
            Self::Signed(n) => n.to_string(),
            Self::Unsigned(n) => n.to_string(),
            Self::Float(f) if f.is_finite() => format!("{f:?}"),
            Self::Float(_) => "1e308".to_owned(),
            Self::Small(n) => n.to_string(),
            Self::Word(n) => {
                ["0", "-1", "-0.0", "4294967296", "65536", "256", "1e300", "-1e300", "0.1", "9007199254740993"]
                    [usize::from(*n) % 10]
                    .to_owned()
            }
        }
    }
}

/// Byte offsets just after the opening quote of each string in `bytes`.
fn string_starts(bytes: &[u8]) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut inside = false;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if inside => at += 1,
            b'"' => {
                inside = !inside;
                if inside {
                    starts.push(at + 1);
                }
            }
            _ => {}
        }
        at += 1;
    }
    starts
}

fn apply_edits(mut bytes: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for edit in edits.iter().take(8) {
        let len = bytes.len();
        let at = |value: u32| if len == 0 { 0 } else { value as usize % (len + 1) };
        match edit {
            Edit::Flip { at: place, bits } => {
                if len > 0 {
                    bytes[*place as usize % len] ^= (*bits).max(1);
                }
            }
            Edit::Delete { at: place, len: count } => {
                let start = at(*place);
                let end = (start + usize::from(*count)).min(len);
                bytes.drain(start..end);
            }
            Edit::Insert { at: place, what } => {
                let start = at(*place);
                bytes.splice(start..start, what.bytes());
            }
            Edit::Replace { at: place, len: count, what } => {
                let start = at(*place);
                let end = (start + usize::from(*count)).min(len);
                bytes.splice(start..end, what.bytes());
            }
            Edit::Number { nth, what } => {
                let numbers: Vec<(usize, usize)> = number_ranges(&bytes);
                if !numbers.is_empty() {
                    let (start, end) = numbers[usize::from(*nth) % numbers.len()];
                    bytes.splice(start..end, what.bytes());
                }
            }
            Edit::Duplicate { at: place, len: count, to } => {
                let start = at(*place);
                let end = (start + usize::from(*count)).min(len);
                let piece = bytes[start..end].to_vec();
                let to = at(*to);
                bytes.splice(to..to, piece);
            }
            Edit::Truncate { at: place } => bytes.truncate(at(*place)),
            Edit::NumberValue { nth, value } => {
                let numbers = number_ranges(&bytes);
                if !numbers.is_empty() {
                    let (start, end) = numbers[usize::from(*nth) % numbers.len()];
                    bytes.splice(start..end, value.text().into_bytes());
                }
            }
            Edit::InString { nth, text } => {
                let starts = string_starts(&bytes);
                if !starts.is_empty() {
                    let start = starts[usize::from(*nth) % starts.len()];
                    let escaped = text.escape_default().to_string();
                    bytes.splice(start..start, escaped.into_bytes());
                }
            }
        }
    }
    bytes
}

/// Byte ranges of the runs of digits (with a sign, a dot) in `bytes`.
fn number_ranges(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut ranges = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_digit() {
            let start = if at > 0 && bytes[at - 1] == b'-' { at - 1 } else { at };
            while at < bytes.len() && (bytes[at].is_ascii_digit() || bytes[at] == b'.') {
                at += 1;
            }
            ranges.push((start, at));
        } else {
            at += 1;
        }
    }
    ranges
}

/// A mutated item file: which one (an index into the pack files) and the edits.
#[derive(Debug)]
struct FileMutation {
    file: u16,
    edits: Vec<Edit>,
}

impl FileMutation {
    /// The file and at least one edit.
    fn generate(u: &mut Unstructured<'_>) -> arbitrary::Result<Self> {
        let file = u.arbitrary()?;
        // Half the time one edit that keeps the file RON (so it loads and plays), else any.
        if u.arbitrary::<bool>()? {
            let edit = if u.arbitrary::<bool>()? {
                Edit::NumberValue { nth: u.arbitrary()?, value: u.arbitrary()? }
            } else {
                Edit::InString { nth: u.arbitrary()?, text: u.arbitrary()? }
            };
            return Ok(Self { file, edits: vec![edit] });
        }
        let mut edits = vec![u.arbitrary()?];
        edits.extend(many(u, 5)?);
        Ok(Self { file, edits })
    }
}

/// A position inside `text`: line 1.. up to its line count, column 1.. up to the line's length + 1.
fn position_inside(position: Position, text: &str) -> bool {
    let lines: Vec<&str> = text.split('\n').collect();
    position.line >= 1
        && position.line <= lines.len()
        && position.col >= 1
        && position.col <= lines[position.line - 1].chars().count() + 1
}

/// An error diagnostic about `text` has a line and column inside it (a warning need not).
fn placed_inside(diagnostic: &Diagnostic, text: &str) -> Result<(), String> {
    if !diagnostic.is_error() {
        return Ok(());
    }
    match diagnostic.position {
        Some(position) if position_inside(position, text) => Ok(()),
        Some(position) => Err(format!("`{diagnostic}` is at {position:?}, outside the file")),
        None => Err(format!("the error `{diagnostic}` has no line:col")),
    }
}

/// Reads `text` as one item of kind `T`: the fast reader may give up, never differ from `ron`.
struct SameAsRon<'a> {
    kind: &'a str,
    text: &'a str,
    result: Result<(), String>,
}

impl KindVisitor for SameAsRon<'_> {
    fn visit<T: Item>(&mut self, _items: &Items<T>) {
        if T::KIND.folder() == self.kind {
            self.result = same_as_ron::<T>(self.text);
        }
    }
}

fn same_as_ron<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) -> Result<(), String> {
    let Some(fast) = fast_ron::from_str::<T>(text) else { return Ok(()) };
    let slow = ron::from_str::<T>(text).map_err(|error| format!("the fast reader read what `ron` refuses: {error}"))?;
    let (fast, slow) = (to_ron_string(&fast), to_ron_string(&slow));
    if fast.as_ref().ok() != slow.as_ref().ok() {
        return Err(format!("the fast reader read another value than `ron`:\n{fast:?}\n{slow:?}"));
    }
    Ok(())
}

#[test]
fn mutated_item_files_read_the_same_fast_and_slow_without_panicking() {
    let files = item_files();
    let ran = fuzz(
        "ron_items",
        2_000,
        512,
        |u| {
            let mutation = FileMutation::generate(u)?;
            let (pack, kind, name, text) = &files[usize::from(mutation.file) % files.len()];
            let bytes = apply_edits(text.as_bytes().to_vec(), &mutation.edits);
            Ok((format!("{pack}/{kind}/{name}"), kind.clone(), String::from_utf8_lossy(&bytes).into_owned()))
        },
        |(_, kind, text)| {
            let mut visitor = SameAsRon { kind, text, result: Ok(()) };
            Project::default().visit_kinds(&mut visitor);
            visitor.result?;
            same_as_ron::<Manifest>(text)
        },
    );
    assert!(ran > 0);
}

/// A pack copied once into a temporary folder; each case writes one mutated file into it and
/// puts the original back afterwards.
struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy_tree(&path, &target);
        } else {
            std::fs::copy(&path, &target).unwrap();
        }
    }
}

#[test]
fn a_mutated_item_file_in_a_project_folder_is_a_placed_diagnostic() {
    let files = item_files();
    let scratches: BTreeMap<&str, Scratch> = PACKS
        .iter()
        .map(|pack| {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join(pack);
            copy_tree(&content_root().join(pack), &root);
            // The playtests are not loaded; removing them keeps the copy small.
            let _ = std::fs::remove_dir_all(root.join("tests"));
            (*pack, Scratch { _dir: dir, root })
        })
        .collect();
    let mut played = 0_u64;
    let ran = fuzz(
        "ron_folder",
        300,
        512,
        |u| {
            let mutation = FileMutation::generate(u)?;
            let index = usize::from(mutation.file) % files.len();
            let (_, _, _, text) = &files[index];
            let bytes = apply_edits(text.as_bytes().to_vec(), &mutation.edits);
            // Valid UTF-8 shown as text (`Debug` escapes it); other bytes as bytes.
            Ok((index, String::from_utf8(bytes.clone()).map_err(|_| bytes)))
        },
        |(index, mutated)| {
            let (pack, kind, name, original) = &files[*index];
            let root = &scratches[pack.as_str()].root;
            let path = root.join(kind).join(name);
            let bytes: &[u8] = match mutated {
                Ok(text) => text.as_bytes(),
                Err(bytes) => bytes,
            };
            std::fs::write(&path, bytes).unwrap();
            let loaded = load_folder(root);
            std::fs::write(&path, original).unwrap();
            let loaded = loaded.map_err(|error| format!("the folder did not load at all: {error}"))?;
            let text = String::from_utf8_lossy(bytes);
            for diagnostic in &loaded.diagnostics {
                if diagnostic.file.as_deref() == Some(path.as_path()) {
                    placed_inside(diagnostic, &text)?;
                }
            }
            let failed = loaded.protected.contains(&path);
            if !failed {
                // It loaded: validation, compiling and a little play must not panic either.
                if let Ok(mut session) = Session::new(loaded.project, 1) {
                    played += 1;
                    for _ in 0..3 {
                        let choices = session.choices();
                        let Some(choice) = choices.first() else { break };
                        let _ = session.describe_choice(choice);
                        let _ = session.apply(choice);
                        let _ = session.advance(60);
                    }
                    let _ = session.state_hash();
                }
            }
            Ok(())
        },
    );
    eprintln!("fuzz ron_folder: {played} mutated packs loaded clean and were played");
    assert!(ran > 0);
}

#[test]
fn a_mutated_bundle_opens_or_is_a_placed_error() {
    let bundles: Vec<(String, String)> = PACKS
        .iter()
        .flat_map(|pack| {
            let project = load_folder(&content_root().join(pack)).unwrap().project;
            [BundleFormat::Ron, BundleFormat::Json]
                .into_iter()
                .map(|format| (format!("{pack}.{format:?}"), bundle_text(&project, format).unwrap()))
                .collect::<Vec<_>>()
        })
        .collect();
    let mut opened = 0;
    let ran = fuzz(
        "ron_bundles",
        500,
        512,
        |u| {
            let mutation = FileMutation::generate(u)?;
            let (name, text) = &bundles[usize::from(mutation.file) % bundles.len()];
            let bytes = apply_edits(text.as_bytes().to_vec(), &mutation.edits);
            Ok(Bundle { name: name.clone(), text: String::from_utf8_lossy(&bytes).into_owned(), mutation })
        },
        |bundle| {
            let path = Path::new("fuzz.bundle.ron");
            match parse_bundle(&bundle.text, path) {
                Ok(loaded) => {
                    opened += 1;
                    for diagnostic in &loaded.diagnostics {
                        if diagnostic.position.is_some() {
                            placed_inside(diagnostic, &bundle.text)?;
                        }
                    }
                    Ok(())
                }
                Err(ProjectError::Unreadable(diagnostic)) => {
                    // Whole-file facts (not a bundle, no version) need no place; parse errors do.
                    if diagnostic.message.contains("not valid") || diagnostic.position.is_some() {
                        placed_inside(&diagnostic, &bundle.text)?;
                    }
                    Ok(())
                }
                Err(ProjectError::NewerSchema { .. }) => Ok(()),
                Err(error) => Err(format!("unexpected error {error}")),
            }
        },
    );
    eprintln!("fuzz ron_bundles: {opened} of {ran} mutated bundles opened");
    assert!(ran > 0);
}

/// A mutated bundle: `Debug` shows the bundle and the edits (the text is large).
struct Bundle {
    name: String,
    mutation: FileMutation,
    text: String,
}

impl Debug for Bundle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "bundle of {} ({} bytes after the edits) with {:#?}", self.name, self.text.len(), self.mutation.edits)
    }
}

// ---------------------------------------------------------------------------------------------
// Playtest scripts
// ---------------------------------------------------------------------------------------------

/// What a pack offers the script generator: its ids and words, its playtests' lines, and the
/// lines of the choices at its start.
struct Pack {
    name: &'static str,
    session: Session,
    words: Vec<String>,
    lines: Vec<String>,
}

fn pack(name: &'static str) -> Pack {
    let root = content_root().join(name);
    let project = load_folder(&root).unwrap().project;
    let session = Session::new(project, 1).unwrap();
    let mut words: Vec<String> = Vec::new();
    let mut lines: Vec<String> = session.choices().iter().map(|choice| session.describe_choice(choice)).collect();
    for file in item_files().into_iter().filter(|(pack, ..)| pack == name) {
        words.push(file.2.trim_end_matches(".ron").to_owned());
    }
    let mut tests: Vec<PathBuf> =
        std::fs::read_dir(root.join("tests")).unwrap().map(|entry| entry.unwrap().path()).collect();
    tests.sort();
    for test in tests {
        for line in std::fs::read_to_string(&test).unwrap().lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            words.extend(line.split_whitespace().map(str::to_owned));
            lines.push(line.to_owned());
        }
    }
    words.sort();
    words.dedup();
    Pack { name, session, words, lines }
}

/// A number argument of a script line.
#[derive(Arbitrary, Debug)]
enum ScriptNum {
    Small(u8),
    Big(u64),
    Negative(i64),
    Seconds(u16),
    Decimal(u8, u8),
    Word(ScriptNumWord),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum ScriptNumWord {
    Zero,
    U64Max,
    U64Over,
    LastTick,
    PastLastTick,
    NaN,
    Inf,
    Exp999,
    MinusZero,
    Plus,
    Empty,
    HugeSeconds,
}

impl ScriptNum {
    fn render(&self, out: &mut String) {
        match self {
            Self::Small(n) => write!(out, "{n}").unwrap(),
            Self::Big(n) => write!(out, "{n}").unwrap(),
            Self::Negative(n) => write!(out, "{}", -i128::from(n.unsigned_abs())).unwrap(),
            Self::Seconds(n) => write!(out, "{n}s").unwrap(),
            Self::Decimal(a, b) => write!(out, "{a}.{b}").unwrap(),
            Self::Word(word) => out.push_str(match word {
                ScriptNumWord::Zero => "0",
                ScriptNumWord::U64Max => "18446744073709551615",
                ScriptNumWord::U64Over => "18446744073709551616",
                ScriptNumWord::LastTick => "9007199254740992",
                ScriptNumWord::PastLastTick => "9007199254740993",
                ScriptNumWord::NaN => "NaN",
                ScriptNumWord::Inf => "inf",
                ScriptNumWord::Exp999 => "1e999",
                ScriptNumWord::MinusZero => "-0",
                ScriptNumWord::Plus => "+5",
                ScriptNumWord::Empty => "",
                ScriptNumWord::HugeSeconds => "18446744073709551615s",
            }),
        }
    }
}

/// A word argument: an id or word of the pack, or something hostile.
#[derive(Arbitrary, Debug)]
enum Arg {
    Known(u16),
    /// `ID#N`
    Numbered(u16, ScriptNum),
    Num(ScriptNum),
    /// `ID*N` (lanes and holds)
    Times(u16, ScriptNum),
    /// `ASPECT=N` / `FIELD=VALUE`
    Assign(u16, ScriptNum),
    /// `C,R` or `X,Y,Z`
    Coords(ScriptNum, ScriptNum, Option<ScriptNum>),
    Quoted(String),
    Control(u8),
    Long(u16),
    Raw(String),
    Formula(Expr),
}

impl Arg {
    fn render(&self, pack: &Pack, out: &mut String) {
        let word = |index: &u16| pack.words[usize::from(*index) % pack.words.len()].as_str();
        match self {
            Self::Known(index) => out.push_str(word(index)),
            Self::Numbered(index, n) => {
                out.push_str(word(index));
                out.push('#');
                n.render(out);
            }
            Self::Num(n) => n.render(out),
            Self::Times(index, n) => {
                out.push_str(word(index));
                out.push('*');
                n.render(out);
            }
            Self::Assign(index, n) => {
                out.push_str(word(index));
                out.push('=');
                n.render(out);
            }
            Self::Coords(x, y, z) => {
                x.render(out);
                out.push(',');
                y.render(out);
                if let Some(z) = z {
                    out.push(',');
                    z.render(out);
                }
            }
            Self::Quoted(text) => write!(out, "\"{text}\"").unwrap(),
            Self::Control(byte) => out.push(char::from(byte % 32)),
            Self::Long(len) => out.push_str(&"x".repeat(usize::from(*len) * 8)),
            Self::Raw(text) => out.push_str(text),
            Self::Formula(expr) => expr.render(out, Spacing::Space),
        }
    }
}

/// The commands of FORMAT.md §7 (and near misses).
const COMMANDS: &[&str] = &[
    "seed",
    "slot",
    "unslot",
    "start",
    "collect",
    "close",
    "flip",
    "wait",
    "run",
    "jump",
    "go",
    "create card",
    "create token",
    "set aspect",
    "set stat",
    "set meter",
    "set unit",
    "place unit",
    "set cell",
    "setup cell",
    "setup die",
    "setup turn",
    "roll",
    "place",
    "ability",
    "play",
    "end-turn",
    "end-phase",
    "synthesize",
    "move",
    "use",
    "face",
    "expect",
    "expect status",
    "expect title",
    "expect text",
    "expect end",
    "expect act",
    "expect alt",
    "expect slots",
    "expect lane",
    "expect holds",
    "expect timer",
    "expect event",
    "expect label",
    "expect refused",
    "expect not possible",
    "expect possible",
    "expect choices",
    "expect choices include",
    "expect choices none",
    "expect score",
    "expect column-score",
    "expect cell",
    "expect winner",
    "expect die",
    "expect turn",
    "expect hand",
    "expect stat",
    "expect message",
    "expect warning",
    "expect node",
    "expect meter",
    "expect grade",
    "expect day",
    "expect era",
    "expect phase",
    "expect unit",
    "end",
    "repeat",
    "set",
    "expect sim",
    "Wait",
    "slot\t",
    "",
];

/// A line of a playtest.
#[derive(Arbitrary, Debug)]
enum ScriptLine {
    Command(u8, Vec<Arg>),
    /// `expect possible|refused|not possible LINE`
    Nested(u8, Box<ScriptLine>),
    Repeat(RepeatCount, Vec<ScriptLine>),
    /// `expect sim [runs N] [seed S]: …`
    Sim(Option<ScriptNum>, Option<ScriptNum>, SimClaim),
    /// A line of the pack's own playtests or a choice the game offered at its start.
    Corpus(u16),
    Comment(String),
    Blank,
    Raw(String),
    /// A line with a carriage return, a trailing comment, odd spacing.
    Decorated(Box<ScriptLine>, u8),
}

#[derive(Arbitrary, Debug)]
enum RepeatCount {
    Few(u8),
    Hostile(ScriptNum),
}

#[derive(Arbitrary, Debug)]
enum SimClaim {
    Share(Expr, ScriptNum, ScriptNum),
    Mean(Expr, ScriptNum, ScriptNum),
    NoDeadContent,
    Junk(String),
}

impl ScriptLine {
    fn render(&self, pack: &Pack, depth: usize, out: &mut String) {
        if out.len() > MAX_TEXT {
            return;
        }
        let indent = "  ".repeat(depth.min(20));
        match self {
            Self::Command(command, args) => {
                out.push_str(&indent);
                out.push_str(COMMANDS[usize::from(*command) % COMMANDS.len()]);
                for arg in args.iter().take(12) {
                    out.push(' ');
                    arg.render(pack, out);
                }
                out.push('\n');
            }
            Self::Nested(how, line) => {
                out.push_str(&indent);
                out.push_str(["expect possible ", "expect refused ", "expect not possible "][usize::from(*how) % 3]);
                let mut inner = String::new();
                line.render(pack, 0, &mut inner);
                out.push_str(inner.lines().next().unwrap_or_default());
                out.push('\n');
            }
            Self::Repeat(count, body) => {
                out.push_str(&indent);
                out.push_str("repeat ");
                match count {
                    RepeatCount::Few(n) => write!(out, "{}", n % 4).unwrap(),
                    RepeatCount::Hostile(n) => n.render(out),
                }
                out.push('\n');
                for line in body {
                    line.render(pack, depth + 1, out);
                }
                out.push_str(&indent);
                out.push_str("end\n");
            }
            Self::Sim(runs, seed, claim) => {
                out.push_str(&indent);
                out.push_str("expect sim");
                if let Some(runs) = runs {
                    out.push_str(" runs ");
                    runs.render(out);
                }
                if let Some(seed) = seed {
                    out.push_str(" seed ");
                    seed.render(out);
                }
                out.push_str(": ");
                match claim {
                    SimClaim::Share(expr, low, high) | SimClaim::Mean(expr, low, high) => {
                        out.push_str(if matches!(claim, SimClaim::Share(..)) { "P(" } else { "mean(" });
                        expr.render(out, Spacing::Space);
                        out.push_str(") in ");
                        low.render(out);
                        out.push_str("..");
                        high.render(out);
                    }
                    SimClaim::NoDeadContent => out.push_str("no dead content"),
                    SimClaim::Junk(text) => out.push_str(text),
                }
                out.push('\n');
            }
            Self::Corpus(index) => {
                let lines = &pack.lines;
                if !lines.is_empty() {
                    out.push_str(&indent);
                    out.push_str(&lines[usize::from(*index) % lines.len()]);
                }
                out.push('\n');
            }
            Self::Comment(text) => {
                out.push_str("# ");
                out.push_str(&text.replace('\n', " "));
                out.push('\n');
            }
            Self::Blank => out.push('\n'),
            Self::Raw(text) => {
                out.push_str(text);
                out.push('\n');
            }
            Self::Decorated(line, how) => {
                let mut inner = String::new();
                line.render(pack, depth, &mut inner);
                let inner = inner.trim_end_matches('\n');
                match how % 4 {
                    0 => write!(out, "{inner}\r\n").unwrap(),
                    1 => writeln!(out, "{inner} # a comment").unwrap(),
                    2 => writeln!(out, "\t{}  ", inner.replace(' ', "   ")).unwrap(),
                    _ => writeln!(out, "{inner}#no space").unwrap(),
                }
            }
        }
    }
}

/// Up to `max` values, for as long as the bytes last (`Vec`'s own `Arbitrary` stops early).
fn many<'a, T: Arbitrary<'a>>(u: &mut Unstructured<'a>, max: usize) -> arbitrary::Result<Vec<T>> {
    let mut values = Vec::new();
    while !u.is_empty() && values.len() < max {
        values.push(T::arbitrary(u)?);
    }
    Ok(values)
}

/// One part of a script: a move the game offers at that point (found by playing the script's
/// moves so far while it is generated), a short wait, or a line from the grammar.
#[derive(Debug)]
enum ScriptPart {
    Play(u8),
    Wait(u16),
    Line(ScriptLine),
}

/// A script for `pack`: up to 60 parts, for as long as the bytes last.
fn generate_script(u: &mut Unstructured<'_>, pack: &Pack) -> arbitrary::Result<String> {
    let mut playing = pack.session.clone();
    let mut script = String::new();
    let mut parts = 0;
    while !u.is_empty() && parts < 60 {
        parts += 1;
        // Mostly moves, so the script gets somewhere before a hostile line stops it.
        let part = match u.arbitrary::<u8>()? % 8 {
            0..=4 => ScriptPart::Play(u.arbitrary()?),
            5 => ScriptPart::Wait(u.arbitrary()?),
            _ => ScriptPart::Line(u.arbitrary()?),
        };
        match part {
            ScriptPart::Play(index) => {
                let choices = playing.choices();
                if choices.is_empty() {
                    continue;
                }
                let choice = &choices[usize::from(index) % choices.len()];
                writeln!(script, "{}", playing.describe_choice(choice)).unwrap();
                let _ = playing.apply(choice);
            }
            ScriptPart::Wait(ticks) => {
                let ticks = u64::from(ticks) * u64::from(ticks);
                writeln!(script, "wait {ticks}").unwrap();
                let _ = playing.advance(ticks);
            }
            ScriptPart::Line(line) => line.render(pack, 0, &mut script),
        }
    }
    Ok(script)
}

/// A script case: the pack and the script text.
struct ScriptCase {
    pack: usize,
    name: &'static str,
    script: String,
}

impl Debug for ScriptCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "pack {} script:", self.name)?;
        for line in self.script.lines() {
            writeln!(f, "    {line:?}")?;
        }
        Ok(())
    }
}

/// Most engine steps one fuzzed script may take: far above what its few lines need, far below
/// a hang.
const MAX_SCRIPT_ENGINE_STEPS: u64 = 5_000_000;

#[test]
fn fuzzed_playtest_scripts_fail_on_a_line_or_run_without_panicking() {
    let packs: Vec<Pack> = PACKS.iter().map(|name| pack(name)).collect();
    let options = ScriptOptions { max_sim_runs: Some(2), sim_threads: 1 };
    let mut most_steps = 0;
    let mut failed_lines = 0;
    let ran = fuzz(
        "scripts",
        600,
        768,
        |u| {
            let index = usize::from(u.arbitrary::<u8>()?) % packs.len();
            let pack = &packs[index];
            let script = generate_script(u, pack)?;
            Ok(ScriptCase { pack: index, name: pack.name, script })
        },
        |case| {
            let mut session = packs[case.pack].session.clone();
            let before = session.counters().steps;
            let mut report = ScriptReport::default();
            let result = session.run_script_with(&case.script, &options, &mut report);
            let steps = session.counters().steps - before;
            most_steps = most_steps.max(steps);
            if steps > MAX_SCRIPT_ENGINE_STEPS {
                return Err(format!("the script took {steps} engine steps"));
            }
            if let Err(error) = result {
                failed_lines += 1;
                let lines = case.script.lines().count();
                if error.line == 0 || error.line > lines {
                    return Err(format!("the error `{error}` names line {}, the script has {lines}", error.line));
                }
                if error.message.is_empty() {
                    return Err(format!("the error at line {} has no message", error.line));
                }
                if error.repetitions.iter().any(|(at, of)| *at == 0 || at > of) {
                    return Err(format!("bad repetitions in `{error}`"));
                }
            }
            // The session is still usable.
            for choice in session.choices() {
                let _ = session.describe_choice(&choice);
            }
            let _ = session.state_hash();
            let _ = session.query("1 + 1");
            Ok(())
        },
    );
    eprintln!(
        "fuzz scripts: {failed_lines} of {ran} scripts stopped at a failing line; at most {most_steps} engine steps"
    );
    assert!(ran > 0);
}
