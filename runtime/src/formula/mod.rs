//! The formula language: the one expression language of Actforge (tests, conditions,
//! amounts, stats, scores, path unlocks, queries).
//!
//! `lexer` → `parser` (Pratt, with spans) → `compile` (names resolved once to slots, constants
//! folded) → evaluation against an [`Env`] with no hashing or allocation. `trace` walks the parsed tree
//! instead, keeping every sub-expression's value (for hover values and "why not"); `print` gives the
//! canonical form; `names` says which names a project defines; `env` has a simple
//! environment of fixed values for `actforge eval` and tests.

pub mod ast;
pub mod code;
pub mod compile;
pub mod env;
pub mod error;
pub mod lexer;
pub mod names;
pub mod parser;
pub mod print;
pub mod query;
pub mod rename;
pub mod trace;

pub use ast::{Ast, AstKind, Change, EffectSearch, EquipSearch, Holder, Lookup, Merge, Scope, Side};
pub use code::Program;
pub use compile::{AnyNames, Compiled, Env, FormulaSet, Issue, LookupSlot, NameCheck, NamedError, Names};
pub use env::ValuesEnv;
pub use error::{FormulaError, Span};
pub use names::ProjectNames;
pub use parser::parse;
pub use print::{canonical, lookup_text};
pub use trace::{FormulaTrace, Role, TraceOut};

/// Parses `text` and returns its canonical form.
pub fn canonical_text(text: &str) -> Result<String, FormulaError> {
    parse(text).map(|ast| canonical(&ast))
}
