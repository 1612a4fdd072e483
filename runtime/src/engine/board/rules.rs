//! Board play as a host of the rules core: a rule's context is the side whose rule runs, its
//! column and cell (held by the [`Run`]); tests count in that side's hand; board modifiers change
//! the boards and an `EndGame` path modifier ends the game (FORMAT.md §11).

use rand_core::Rng as _;

use crate::model::{BoardModifier, Expr, FragmentRef, Location, PathModifier, PathOp, Rule};

use super::step::Run;
use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::core::{self, Depth, RulesHost};

/// A run of board play lent to the rules core with the content its rules come from.
pub(super) struct BoardRules<'c, 'r> {
    pub(super) content: &'c Content,
    pub(super) run: &'r mut Run,
    /// The rules run so far in this step (bounded).
    pub(super) work: crate::engine::core::StepWork,
}

impl<'c> RulesHost<'c> for BoardRules<'c, '_> {
    fn work(&mut self) -> &mut crate::engine::core::StepWork {
        &mut self.work
    }

    type Context = Depth;

    fn content(&self) -> &'c Content {
        self.content
    }

    fn system(&self) -> &'static str {
        "board play"
    }

    fn warn(&mut self, message: String) {
        self.run.events.push(Event::Warning(message));
    }

    fn stopped(&self) -> bool {
        self.run.game.outcome.is_some()
    }

    fn value(&mut self, expr: &'c Expr, _ctx: &Depth) -> f64 {
        self.run.value_of(self.content, expr)
    }

    /// Every location is the hand of the side whose rule runs.
    fn count(&mut self, _location: Location, fragment: &'c FragmentRef, _ctx: &Depth) -> i64 {
        let own = self.run.focus.own;
        let hand = self.run.game.sides.get(own).map(|side| side.hand.clone()).unwrap_or_default();
        let content = self.content;
        core::hand_count(content, &hand, fragment, |expr| self.run.value_of(content, expr))
    }

    fn random_bits(&mut self) -> u64 {
        self.run.rng.next_u64()
    }

    fn sub_context(&self, _ctx: &Depth, depth: usize) -> Depth {
        Depth(depth)
    }

    fn board_modifiers(&mut self, list: &'c [BoardModifier], _rule: Option<&'c Rule>, _ctx: &mut Depth) {
        for modifier in list {
            self.run.modify(self.content, modifier);
        }
    }

    fn path_modifiers(&mut self, list: &'c [PathModifier], rule: Option<&'c Rule>, _ctx: &mut Depth) {
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            match modifier.op {
                PathOp::EndGame => self.run.end(None, Some(modifier.text.clone())),
                PathOp::Warning => self.warn(modifier.text.clone()),
                op => self.warn(format!("rule `{id}`: the path op {op:?} does nothing in board play")),
            }
        }
    }
}
