//! The formula environment of the turns system: stats (stored, or computed on reading), the turn
//! number, card properties.

use std::collections::BTreeMap;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::formula::{Env, FormulaTrace, LookupSlot};
use crate::model::{Expr, Id, Stat};

use super::MAX_STAT_DEPTH;
use crate::engine::content::{Accessor, Content};

/// The formula environment of the turns system: stats (stored, or computed on reading), the
/// turn number, card properties; table counts have no value here.
pub(super) struct TurnsEnv<'a> {
    pub(super) content: &'a Content,
    pub(super) accessors: &'a [Accessor],
    pub(super) stored: &'a BTreeMap<Id<Stat>, f64>,
    pub(super) turn: u32,
    pub(super) rng: &'a mut Pcg64Mcg,
    pub(super) depth: usize,
    /// The table, for counts in queries over a project that plays both systems.
    pub(super) table: Option<(&'a crate::engine::table::Engine<'a>, &'a crate::engine::table::rules::RuleContext)>,
}

impl TurnsEnv<'_> {
    pub(super) fn stat(&mut self, id: &Id<Stat>) -> f64 {
        if let Some(value) = self.stored.get(id) {
            return *value;
        }
        let Some(stat) = self.content.project.stats.get(id.as_str()) else { return f64::NAN };
        if self.depth >= MAX_STAT_DEPTH {
            return f64::NAN;
        }
        let mut inner = TurnsEnv {
            content: self.content,
            accessors: &self.content.accessors,
            stored: self.stored,
            turn: self.turn,
            rng: &mut *self.rng,
            depth: self.depth.saturating_add(1),
            table: None,
        };
        inner.expr(stat.value.expr())
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let content = self.content;
        content.formula(expr).map_or(f64::NAN, |compiled| content.formulas().eval(compiled, self))
    }

    /// The trace of an expression's formula, as [`Self::expr`] evaluates it (none when it
    /// has no compiled formula, e.g. a plain number).
    pub(super) fn expr_trace(&mut self, expr: &Expr) -> Option<FormulaTrace> {
        let content = self.content;
        let compiled = content.formula(expr)?;
        let mut out = None;
        content.formulas().eval_or_trace(compiled, expr.text(), self, Some(&mut out));
        out
    }
}

impl Env for TurnsEnv<'_> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(id)) => {
                let id = id.clone();
                self.stat(&id)
            }
            Some(Accessor::Turn) => f64::from(self.turn),
            Some(Accessor::Constant(value)) => *value,
            Some(Accessor::Count(location, fragment)) => self.table.map_or(f64::NAN, |(engine, ctx)| {
                let fragment = crate::engine::table::rules::Resolved::Fragment(fragment.clone());
                engine.count_at(*location, Some(&fragment), ctx) as f64
            }),
            Some(Accessor::Cards(location)) => {
                self.table.map_or(f64::NAN, |(engine, ctx)| engine.count_at(*location, None, ctx) as f64)
            }
            Some(Accessor::Name(_) | Accessor::Missing) | None => f64::NAN,
        }
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(_) | Accessor::Turn | Accessor::Constant(_)) => true,
            Some(Accessor::Count(..) | Accessor::Cards(_)) => self.table.is_some(),
            Some(Accessor::Name(_) | Accessor::Missing) | None => false,
        }
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }
}
