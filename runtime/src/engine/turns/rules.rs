//! The turns system as a host of the rules core: tests count in the hand, stats change through
//! stat modifiers, the deck and the rule collection through theirs, and a rule that runs
//! reports its text as a message (FORMAT.md §13).

use rand_core::Rng as _;

use crate::model::{
    DeckModifier, Expr, FragmentRef, Location, PathModifier, PathOp, Rule, RuleModifier, RuleOp, StatModifier,
    StatValue,
};

use super::Message;
use super::env::TurnsEnv;
use super::step::Turns;
use crate::engine::content::Content;
use crate::engine::core::{self, Depth, RulesHost};
use crate::engine::{Event, Outcome};

impl<'a> RulesHost<'a> for Turns<'a> {
    fn work(&mut self) -> &mut crate::engine::core::StepWork {
        &mut self.work
    }

    type Context = Depth;

    fn content(&self) -> &'a Content {
        self.content
    }

    fn system(&self) -> &'static str {
        "the turns system"
    }

    fn warn(&mut self, message: String) {
        Turns::warn(self, message);
    }

    fn stopped(&self) -> bool {
        self.ended()
    }

    fn value(&mut self, expr: &'a Expr, _ctx: &Depth) -> f64 {
        Turns::value(self, expr)
    }

    fn trace(&mut self, expr: &'a Expr, _ctx: &Depth) -> Option<crate::formula::FormulaTrace> {
        Turns::trace(self, expr)
    }

    /// Every location is the hand: a card type counts its cards, an aspect is summed over them.
    fn count(&mut self, _location: Location, fragment: &'a FragmentRef, _ctx: &Depth) -> i64 {
        let content = self.content;
        let mut env = TurnsEnv {
            content,
            accessors: &content.accessors,
            stored: &self.state.stored,
            turn: self.state.turn,
            rng: &mut *self.rng,
            depth: 0,
            table: None,
        };
        core::hand_count(content, &self.state.hand, fragment, |expr| env.expr(expr))
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn sub_context(&self, _ctx: &Depth, depth: usize) -> Depth {
        Depth(depth)
    }

    fn rule_runs(&mut self, rule: &'a Rule, _ctx: &mut Depth) {
        self.events.push(Event::TurnRuleRan { rule: rule.id.clone() });
    }

    fn stat_modifiers(&mut self, list: &'a [StatModifier], rule: Option<&'a Rule>, _ctx: &mut Depth) {
        let content = self.content;
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            let Some(stat) = content.project.stats.get(modifier.stat.as_str()) else { continue };
            if matches!(stat.value, StatValue::Computed(_)) {
                self.warn(format!("rule `{id}`: the stat `{}` is computed; it cannot be changed", stat.id));
                continue;
            }
            let amount = Turns::value(self, &modifier.value);
            let old = self.stat_value(&stat.id);
            self.set_stat(stat, modifier.op.apply(old, amount));
        }
    }

    fn deck_modifiers(&mut self, list: &'a [DeckModifier], rule: Option<&'a Rule>, _ctx: &mut Depth) {
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            self.deck_modifier(id, modifier.op, modifier.deck.as_ref(), modifier.fragment.as_ref());
        }
    }

    fn rule_modifiers(&mut self, list: &'a [RuleModifier], _rule: Option<&'a Rule>, _ctx: &mut Depth) {
        for modifier in list {
            self.change_rules(modifier.clone());
        }
    }

    fn path_modifiers(&mut self, list: &'a [PathModifier], rule: Option<&'a Rule>, _ctx: &mut Depth) {
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            match modifier.op {
                PathOp::Warning => self.warn(modifier.text.clone()),
                PathOp::Error => self.end_game(Outcome::Stopped(modifier.text.clone())),
                PathOp::EndGame => self.end_game(Outcome::Ended(modifier.text.clone())),
                other => {
                    self.warn(format!("rule `{id}`: the path modifier {other:?} does nothing in the turns system"));
                }
            }
        }
    }

    /// The rule's text is this turn's message (`[stat]` shows the stat after its changes).
    fn modifiers_done(&mut self, rule: Option<&'a Rule>, _ctx: &mut Depth) {
        if let Some(rule) = rule
            && !rule.text.trim().is_empty()
        {
            let text = self.substitute(&rule.text);
            self.messages.push(Message { text });
        }
    }

    fn rule_ran(&mut self, rule: &'a Rule, _ctx: &mut Depth) {
        if rule.remove_self {
            self.change_rules(RuleModifier { op: RuleOp::Remove, rule: rule.id.clone() });
        }
    }
}
