//! The formula environment of the table: game-state names read counts at locations in a context.

use crate::formula::{Compiled, Env, FormulaError, FormulaSet, FormulaTrace, LookupSlot, ProjectNames, TraceOut};
use crate::model::Expr;

use super::rules::{Resolved, RuleContext};
use crate::engine::content::Accessor;
use crate::engine::table::Holder;
use crate::engine::table::step::Engine;

/// The formula environment of a context: game-state names read the table.
struct TableEnv<'a> {
    engine: &'a Engine<'a>,
    accessors: &'a [Accessor],
    ctx: &'a RuleContext,
    bits: &'a mut dyn FnMut() -> u64,
}

impl Env for TableEnv<'_> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Count(location, fragment)) => {
                self.engine.count_at(*location, Some(&Resolved::Fragment(fragment.clone())), self.ctx) as f64
            }
            Some(Accessor::Cards(location)) => self.engine.count_at(*location, None, self.ctx) as f64,
            Some(Accessor::Constant(value)) => *value,
            // Stats and the turn belong to the turns system (`turns/`); the table has none.
            Some(Accessor::Stat(_) | Accessor::Turn | Accessor::Name(_) | Accessor::Missing) | None => f64::NAN,
        }
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        !matches!(
            self.accessors.get(slot.0 as usize),
            Some(Accessor::Stat(_) | Accessor::Turn | Accessor::Name(_) | Accessor::Missing) | None
        )
    }

    fn random_bits(&mut self) -> u64 {
        (self.bits)()
    }
}

impl Engine<'_> {
    /// A number from an expression in a context: a plain integer, or its formula's value
    /// rounded towards zero (NaN gives 0).
    pub(crate) fn number(&mut self, expr: &Expr, ctx: &RuleContext) -> i64 {
        if let Some(value) = expr.as_int() {
            value
        } else {
            let value = self.formula_value(expr, ctx);
            if value.is_finite() { value as i64 } else { 0 }
        }
    }

    /// The value of an expression's formula in a context (NaN when it has none).
    pub(crate) fn formula_value(&mut self, expr: &Expr, ctx: &RuleContext) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let content = self.content;
        let Some(compiled) = content.formula(expr) else { return f64::NAN };
        self.eval_in(content.formulas(), compiled, expr.text(), &content.accessors, ctx, None)
    }

    /// The trace of an expression's formula in a context, as [`Self::formula_value`] evaluates
    /// it (none when it has no compiled formula).
    pub(crate) fn formula_trace(&mut self, expr: &Expr, ctx: &RuleContext) -> Option<FormulaTrace> {
        let content = self.content;
        let compiled = content.formula(expr)?;
        let mut trace = None;
        self.eval_in(content.formulas(), compiled, expr.text(), &content.accessors, ctx, Some(&mut trace));
        trace
    }

    /// Evaluates compiled code in a context. The environment reads the engine while random
    /// draws advance a copy of its generator, written back afterwards.
    /// With `out`, the evaluation is traced from `text` into it.
    fn eval_in(
        &mut self,
        set: &FormulaSet,
        compiled: &Compiled,
        text: &str,
        accessors: &[Accessor],
        ctx: &RuleContext,
        out: TraceOut<'_>,
    ) -> f64 {
        let mut rng = self.rng.clone();
        let value = {
            let mut bits = || rand_core::Rng::next_u64(&mut rng);
            let this: &Engine<'_> = self;
            let mut env = TableEnv { engine: this, accessors, ctx, bits: &mut bits };
            set.eval_or_trace(compiled, text, &mut env, out)
        };
        *self.rng = rng;
        value
    }

    /// The value of a formula over the whole table (`LOCATION.card.ID` and friends; `scope`
    /// means the whole world here), for scripts and the preview.
    /// `other` answers the names another system (tactics) knows, before the table is asked.
    pub(crate) fn query(
        &mut self,
        text: &str,
        other: &dyn Fn(&crate::formula::Lookup) -> Option<f64>,
        out: TraceOut<'_>,
    ) -> Result<f64, FormulaError> {
        let content = self.content;
        let mut set = content.formulas().clone();
        let compiled = set.compile(text, &ProjectNames::new(&content.project))?;
        let accessors: Vec<Accessor> = set
            .lookups()
            .map(|lookup| {
                other(lookup)
                    .map_or_else(|| crate::engine::content::accessor(lookup, &content.project), Accessor::Constant)
            })
            .collect();
        let ctx = RuleContext::new(Holder::Root, 0);
        Ok(self.eval_in(&set, &compiled, text, &accessors, &ctx, out))
    }
}
