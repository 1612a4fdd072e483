//! One-off evaluation of a formula, as `actforge eval` does it: values given by lookup, extra
//! named formulas, and optionally a project whose named formulas and stats are readable.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::ast::{Ast, AstKind, Lookup, Scope, Side};
use super::compile::{Compiled, Env, FormulaSet, Issue, LookupSlot, NameCheck, Names};
use super::error::FormulaError;
use super::names::ProjectNames;
use super::parser::parse;
use super::print::lookup_text;
use super::trace::{FormulaTrace, TraceOut};
use crate::model::{Project, StatValue};

/// What to evaluate a formula with.
#[derive(Clone, Debug, Default)]
pub struct Query<'a> {
    /// A project whose named formulas (`f.`) and stats (`gdp`, `stat.gdp`) can be read.
    pub project: Option<&'a Project>,
    /// Values by lookup text (`c.PA`, `Element`, `arg.currentHitType`).
    pub values: BTreeMap<String, f64>,
    /// Extra named formulas `(name, text)`, read as `f.NAME`; they replace project formulas
    /// of the same name.
    pub defines: Vec<(String, String)>,
    /// Seed of the random draws.
    pub seed: u64,
    /// The side facing branches see.
    pub facing: Option<Side>,
}

/// Why a query could not be evaluated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueryError {
    /// A `--set NAME=…` whose NAME is not a lookup.
    BadName {
        /// The text given.
        text: String,
        /// Why.
        error: FormulaError,
    },
    /// A named formula (from the project or a define) does not compile.
    Named {
        /// Its name.
        name: String,
        /// Its text.
        text: String,
        /// Why.
        error: FormulaError,
    },
    /// The formula itself does not compile.
    Formula {
        /// Why.
        error: FormulaError,
    },
}

/// The canonical lookup text of `name` (`c . PA` → `c.PA`), or why it is not a lookup.
/// Searches without a parameter (`equip(weapon)`, what `exists` asks about) are lookups too.
pub fn lookup_key(name: &str) -> Result<String, FormulaError> {
    let not_a_name = |span| FormulaError::new("expected a name such as `c.PA`, `Element` or `stat.gdp`", span);
    // Parsed as the argument of `exists(…)`, which accepts every kind of lookup; spans are
    // shifted back by the 7 characters of `exists(`.
    let wrapped = format!("exists({name})");
    match parse(&wrapped) {
        Ok(Ast { kind: AstKind::Exists(lookup), .. }) => Ok(lookup_text(&lookup)),
        Ok(ast) => Err(not_a_name(ast.span)),
        Err(error) => {
            let shift = |at: usize| at.saturating_sub(7).min(name.len());
            let span = super::error::Span::new(shift(error.span.start), shift(error.span.end));
            Err(match parse(name) {
                Err(direct) => direct,
                Ok(_) => not_a_name(span),
            })
        }
    }
}

/// Names known to a query: the values given, then what the project defines.
struct QueryNames<'a> {
    given: BTreeSet<String>,
    project: Option<ProjectNames>,
    stats: &'a BTreeSet<String>,
}

impl Names for QueryNames<'_> {
    fn check(&self, lookup: &Lookup) -> NameCheck {
        let text = lookup_text(lookup);
        if self.given.contains(&text) || (lookup.scope == Scope::Auto && self.stats.contains(&text)) {
            return NameCheck::Known;
        }
        let hint = format!("give it a value with --set {text}=NUMBER");
        match &self.project {
            Some(names) => match names.check(lookup) {
                NameCheck::Unknown(why) => NameCheck::Unknown(format!("{why}; or {hint}")),
                _ => NameCheck::Unknown(format!(
                    "the project names it, but there is no game running to read it from; {hint}"
                )),
            },
            None => NameCheck::Unknown(hint),
        }
    }
}

/// The stat a lookup reads, if it reads one (`gdp` or `stat.gdp`).
fn stat_of<'p>(project: &'p Project, lookup: &Lookup) -> Option<&'p crate::model::Stat> {
    if lookup.scope != Scope::Auto {
        return None;
    }
    let id = lookup.name.strip_prefix("stat.").unwrap_or(&lookup.name);
    project.stats.get(id)
}

/// Evaluates `text` for `query`.
pub fn evaluate(text: &str, query: &Query<'_>) -> Result<f64, QueryError> {
    evaluate_into(text, query, None)
}

/// Evaluates `text` for `query` by tracing it: each sub-expression's value, what made it false
/// marked (the root's value is [`evaluate`]'s).
pub fn trace(text: &str, query: &Query<'_>) -> Result<FormulaTrace, QueryError> {
    let mut out = None;
    let value = evaluate_into(text, query, Some(&mut out))?;
    // Tracing parses what compiled, so the trace is always there; a lone value otherwise.
    Ok(out.unwrap_or_else(|| FormulaTrace {
        span: super::error::Span::new(0, text.len()),
        text: text.to_owned(),
        value: Some(value),
        makes_false: false,
        role: super::trace::Role::Value,
        children: Vec::new(),
    }))
}

/// [`evaluate`], traced into `out` when given.
fn evaluate_into(text: &str, query: &Query<'_>, out: TraceOut<'_>) -> Result<f64, QueryError> {
    let mut values = BTreeMap::new();
    for (name, value) in &query.values {
        let key = lookup_key(name).map_err(|error| QueryError::BadName { text: name.clone(), error })?;
        values.insert(key, *value);
    }
    let stats: BTreeSet<String> = query
        .project
        .map(|project| project.stats.ids().flat_map(|id| [id.to_string(), format!("stat.{id}")]).collect())
        .unwrap_or_default();
    let names = QueryNames {
        given: values.keys().cloned().collect(),
        project: query.project.map(ProjectNames::new),
        stats: &stats,
    };

    let mut named: Vec<(String, String)> = query
        .project
        .map(|project| project.formulas.iter().map(|f| (f.id.as_str().to_owned(), f.expr.text().to_owned())).collect())
        .unwrap_or_default();
    for (name, define) in &query.defines {
        named.retain(|(existing, _)| existing != name);
        named.push((name.clone(), define.clone()));
    }
    let (mut set, errors) = FormulaSet::build(&named, &names);
    // Only the named formulas this text reaches must make sense here: a synthesis temperature
    // need not give values to the names of an unrelated success formula.
    let reached = reached_formulas(text, &named);
    if let Some(error) = errors.into_iter().find(|error| reached.contains(error.name.as_str())) {
        let text = named.iter().find(|(name, _)| *name == error.name).map(|(_, text)| text.clone()).unwrap_or_default();
        return Err(QueryError::Named { name: error.name, text, error: error.error });
    }
    let compiled = set.compile(text, &names).map_err(|error| QueryError::Formula { error })?;

    // Stats of the project read their starting value (a stored stat) or their formula.
    let mut stat_formulas: Vec<Option<Rc<Compiled>>> = Vec::new();
    if let Some(project) = query.project {
        let lookups: Vec<Lookup> = set.lookups().cloned().collect();
        for lookup in &lookups {
            let formula = stat_of(project, lookup).and_then(|stat| {
                let expr = match &stat.value {
                    StatValue::Stored(expr) | StatValue::Computed(expr) => expr,
                };
                set.compile(expr.text(), &names).ok().map(Rc::new)
            });
            stat_formulas.push(formula);
        }
    }
    let mut env = QueryEnv {
        set: &set,
        values: set.lookups().map(|lookup| values.get(&lookup_text(lookup)).copied()).collect(),
        stat_formulas,
        rng: Pcg64Mcg::seed_from_u64(query.seed),
        facing: query.facing,
        depth: 0,
    };
    Ok(set.eval_or_trace(&compiled, text, &mut env, out))
}

/// The named formulas `text` refers to (`f.NAME`), directly or through other named formulas.
/// Read from the text without whitespace; a name it cannot see is simply not excused from errors.
fn reached_formulas<'n>(text: &str, named: &'n [(String, String)]) -> BTreeSet<&'n str> {
    let mentions = |text: &str, name: &str| {
        let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let needle = format!("f.{name}");
        compact.match_indices(&needle).any(|(at, _)| {
            let before = compact.get(..at).and_then(|head| head.chars().next_back());
            let after = compact.get(at + needle.len()..).and_then(|tail| tail.chars().next());
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    let mut queue: Vec<&str> = vec![text];
    while let Some(current) = queue.pop() {
        for (name, body) in named {
            if !reached.contains(name.as_str()) && mentions(current, name) {
                reached.insert(name.as_str());
                queue.push(body.as_str());
            }
        }
    }
    reached
}

/// Evaluation environment of a query.
struct QueryEnv<'a> {
    set: &'a FormulaSet,
    values: Vec<Option<f64>>,
    stat_formulas: Vec<Option<Rc<Compiled>>>,
    rng: Pcg64Mcg,
    facing: Option<Side>,
    /// Guards stats that read each other in a loop.
    depth: usize,
}

impl Env for QueryEnv<'_> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        let index = slot.0 as usize;
        if let Some(value) = self.values.get(index).copied().flatten() {
            return value;
        }
        let Some(Some(formula)) = self.stat_formulas.get(index).cloned() else { return f64::NAN };
        if self.depth > 32 {
            return f64::NAN;
        }
        self.depth += 1;
        let value = self.set.eval(&formula, self);
        self.depth -= 1;
        value
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        let index = slot.0 as usize;
        self.values.get(index).is_some_and(Option::is_some)
            || self.stat_formulas.get(index).is_some_and(Option::is_some)
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn facing(&mut self, _targeted: bool) -> Option<Side> {
        self.facing
    }

    fn issue(&mut self, _issue: Issue) {}
}
