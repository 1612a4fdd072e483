//! The campaign as a host of the rules core: tests count in the player's hand, stat modifiers
//! change meters (their thresholds run rules one level deeper), path modifiers warn or end the
//! campaign (FORMAT.md §14).

use rand_core::Rng as _;

use crate::model::{Expr, FragmentRef, Location, PathModifier, PathOp, Rule, StatModifier};

use super::env::CampaignEnv;
use super::step::Step;
use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::core::{self, Depth, RulesHost};

impl<'a> RulesHost<'a> for Step<'a> {
    fn work(&mut self) -> &mut crate::engine::core::StepWork {
        &mut self.work
    }

    type Context = Depth;

    fn content(&self) -> &'a Content {
        self.content
    }

    fn system(&self) -> &'static str {
        "the campaign"
    }

    fn warn(&mut self, message: String) {
        Step::warn(self, message);
    }

    fn stopped(&self) -> bool {
        self.ended()
    }

    fn value(&mut self, expr: &'a Expr, _ctx: &Depth) -> f64 {
        Step::value(self, expr)
    }

    fn trace(&mut self, expr: &'a Expr, _ctx: &Depth) -> Option<crate::formula::FormulaTrace> {
        Step::trace(self, expr)
    }

    /// Every location is the player's hand: a card type counts its cards, an aspect is summed.
    fn count(&mut self, _location: Location, fragment: &'a FragmentRef, _ctx: &Depth) -> i64 {
        let content = self.content;
        let mut env = CampaignEnv {
            content,
            accessors: &content.accessors,
            map: self.map,
            state: self.state,
            stored: self.stored,
            rng: &mut *self.rng,
            depth: 0,
            fight: None,
        };
        let hand = env.state.hand.as_slice();
        core::hand_count(content, hand, fragment, |expr| env.expr(expr))
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn sub_context(&self, _ctx: &Depth, depth: usize) -> Depth {
        Depth(depth)
    }

    fn rule_runs(&mut self, rule: &'a Rule, _ctx: &mut Depth) {
        self.events.push(Event::CampaignRuleRan { rule: rule.id.clone() });
    }

    fn stat_modifiers(&mut self, list: &'a [StatModifier], rule: Option<&'a Rule>, ctx: &mut Depth) {
        let content = self.content;
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            let Some(stat) = content.project.stats.get(modifier.stat.as_str()) else { continue };
            if !stat.value.is_stored() {
                self.warn(format!("rule `{id}`: the stat `{}` is computed; it cannot be changed", stat.id));
                continue;
            }
            let amount = Step::value(self, &modifier.value);
            let current = self.stat_value(&stat.id);
            self.set_stat(stat, modifier.op.apply(current, amount), ctx);
        }
    }

    fn path_modifiers(&mut self, list: &'a [PathModifier], rule: Option<&'a Rule>, _ctx: &mut Depth) {
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            match modifier.op {
                PathOp::Warning => self.warn(modifier.text.clone()),
                PathOp::EndGame | PathOp::GameOver | PathOp::Error => {
                    let won = self.map.win.clone().is_some_and(|win| core::truthy(Step::value(self, &win)));
                    self.end(won, Some(&modifier.text));
                }
                _ => self.warn(format!("rule `{id}`: the path op {:?} does nothing in the campaign", modifier.op)),
            }
        }
    }
}
