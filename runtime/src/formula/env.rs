//! An environment of fixed values, bound by lookup text (`c.PA`, `Element`, `stat.gdp`),
//! with a seeded random generator: for `actforge eval`, tests and benchmarks.

use std::collections::BTreeMap;

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::ast::Side;
use super::compile::{Env, FormulaSet, Issue, LookupSlot};
use super::print::lookup_text;

/// Values for the lookups of a [`FormulaSet`], and a seeded generator for random draws.
#[derive(Clone, Debug)]
pub struct ValuesEnv {
    /// Value of each slot of the set, or none.
    values: Vec<Option<f64>>,
    rng: Pcg64Mcg,
    /// The side used by facing branches, if any.
    pub facing: Option<Side>,
    /// What evaluations could not decide.
    pub issues: Vec<Issue>,
}

impl ValuesEnv {
    /// Binds `values` (by lookup text) to the slots of `set`; other slots have no value.
    /// Build it after compiling: slots interned later have no value.
    pub fn new(set: &FormulaSet, values: &BTreeMap<String, f64>, seed: u64) -> Self {
        let values = set.lookups().map(|lookup| values.get(&lookup_text(lookup)).copied()).collect();
        Self { values, rng: Pcg64Mcg::seed_from_u64(seed), facing: None, issues: Vec::new() }
    }

    /// Sets the value of a slot directly (fast updates in loops).
    pub fn set(&mut self, slot: LookupSlot, value: f64) {
        if let Some(entry) = self.values.get_mut(slot.0 as usize) {
            *entry = Some(value);
        }
    }
}

impl Env for ValuesEnv {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        self.values.get(slot.0 as usize).copied().flatten().unwrap_or(f64::NAN)
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        self.values.get(slot.0 as usize).is_some_and(Option::is_some)
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn facing(&mut self, _targeted: bool) -> Option<Side> {
        self.facing
    }

    fn issue(&mut self, issue: Issue) {
        self.issues.push(issue);
    }
}
