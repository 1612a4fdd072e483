//! What a system lends the rules core.

use crate::model::{
    ActModifier, BoardModifier, CardModifier, DeckModifier, Expr, FragmentRef, HandModifier, Location, PathModifier,
    Rule, RuleModifier, StatModifier, TableModifier, Test,
};

use crate::engine::content::Content;

/// A context that knows how deep it is in rules nested inside rules.
pub(crate) trait Nested {
    /// The nesting depth.
    fn depth(&self) -> usize;
    /// Sets the nesting depth.
    fn set_depth(&mut self, depth: usize);
}

/// The context of a system whose rules need no more than their depth (turns, campaign, boards:
/// what a rule reads is the system's own state).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Depth(pub usize);

impl Nested for Depth {
    fn depth(&self) -> usize {
        self.0
    }
    fn set_depth(&mut self, depth: usize) {
        self.0 = depth;
    }
}

/// A system that accepts rules, as the rules core sees it. `'c` is the content's lifetime:
/// rules, tests and formulas are borrowed from it while the host changes.
///
/// Effects reach the host one modifier category at a time, in this order: act, card, table,
/// stat, deck, rule, board, path (only non-empty lists); each default warns that the category
/// does nothing in this system.
pub(crate) trait RulesHost<'c> {
    /// Where a rule is evaluated: the table's context (scope, matches, queued modifiers), or
    /// another system's [`Depth`].
    type Context: Nested;

    /// The compiled content.
    fn content(&self) -> &'c Content;

    /// The system's name in warnings ("the turns system").
    fn system(&self) -> &'static str;

    /// Reports something the content asked for that could not be carried out; play goes on.
    fn warn(&mut self, message: String);

    /// The work this step has done (the host keeps one per step).
    fn work(&mut self) -> &mut super::StepWork;

    /// One evaluation of requirements began (for the session's counters).
    fn evaluated(&mut self) {}

    /// Whether rules no longer run (the system's game has ended).
    fn stopped(&self) -> bool {
        false
    }

    /// The value of a formula in a context (NaN when it has none).
    fn value(&mut self, expr: &'c Expr, ctx: &Self::Context) -> f64;

    /// The trace of a formula in a context, evaluated as [`RulesHost::value`] evaluates it
    /// (every sub-expression's value, the false parts marked); none where the host cannot
    /// trace (the board's own compiled codes).
    fn trace(&mut self, _expr: &'c Expr, _ctx: &Self::Context) -> Option<crate::formula::FormulaTrace> {
        None
    }

    /// How many of `fragment` are at `location` in a context.
    fn count(&mut self, location: Location, fragment: &'c FragmentRef, ctx: &Self::Context) -> i64;

    /// What a test without a fragment counts at `location`: 0, except where the host has a
    /// list to count (the table's matched cards, `spec/cultistlike.md` §2.2).
    fn count_unnamed(&mut self, _location: Location, _ctx: &Self::Context) -> i64 {
        0
    }

    /// 64 bits from the session's generator (random test ops).
    fn random_bits(&mut self) -> u64;

    /// A card test (`spec/cultistlike.md` §2.5) filtering the context's matched cards, given
    /// the test's constant and right side; none where there are no matches to filter (the test
    /// is then decided like any other).
    fn card_test(&mut self, _test: &'c Test, _constant: i64, _right: i64, _ctx: &mut Self::Context) -> Option<bool> {
        None
    }

    /// The fresh context of an and/or sub-rule, `depth` deep.
    fn sub_context(&self, ctx: &Self::Context, depth: usize) -> Self::Context;

    /// A rule's requirements held: it runs now (its effects follow).
    fn rule_runs(&mut self, _rule: &'c Rule, _ctx: &mut Self::Context) {}

    /// A rule ran, its furthermore rules included.
    fn rule_ran(&mut self, _rule: &'c Rule, _ctx: &mut Self::Context) {}

    /// Readies the context for a furthermore rule (and again after them): the table's matches
    /// start over.
    fn furthermore_context(&mut self, _ctx: &mut Self::Context) {}

    /// After every modifier category, before the furthermore rules.
    fn modifiers_done(&mut self, _rule: Option<&'c Rule>, _ctx: &mut Self::Context) {}

    /// Act modifiers.
    fn act_modifiers(&mut self, _list: &'c [ActModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("act", rule);
    }

    /// Card modifiers.
    fn card_modifiers(&mut self, _list: &'c [CardModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("card", rule);
    }

    /// Table modifiers.
    fn table_modifiers(&mut self, _list: &'c [TableModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("table", rule);
    }

    /// Stat modifiers.
    fn stat_modifiers(&mut self, _list: &'c [StatModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("stat", rule);
    }

    /// Deck modifiers.
    fn deck_modifiers(&mut self, _list: &'c [DeckModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("deck", rule);
    }

    /// Rule modifiers (rule-collection changes).
    fn rule_modifiers(&mut self, _list: &'c [RuleModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("rule", rule);
    }

    /// Board modifiers.
    fn board_modifiers(&mut self, _list: &'c [BoardModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("board", rule);
    }

    /// Path modifiers.
    fn path_modifiers(&mut self, _list: &'c [PathModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("path", rule);
    }

    /// Hand modifiers (the campaign's hand, piles and per-card state).
    fn hand_modifiers(&mut self, _list: &'c [HandModifier], rule: Option<&'c Rule>, _ctx: &mut Self::Context) {
        self.not_here("hand", rule);
    }

    /// Warns that a modifier category does nothing in this system.
    fn not_here(&mut self, category: &str, rule: Option<&'c Rule>) {
        let system = self.system();
        let message = match rule {
            Some(rule) => format!("rule `{}`: {category} modifiers do nothing in {system}", rule.id),
            None => format!("{category} modifiers do nothing in {system}"),
        };
        self.warn(message);
    }
}
