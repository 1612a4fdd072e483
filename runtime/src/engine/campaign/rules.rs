//! The campaign as a host of the rules core: tests count in the player's hand, stat modifiers
//! change meters (their thresholds run rules one level deeper), path modifiers warn or end the
//! campaign (FORMAT.md §14).

use rand_core::Rng as _;

use crate::model::{
    CardId, CardPick, Expr, FragmentRef, HandModifier, HandOp, Location, PathModifier, PathOp, Rule, StatModifier,
};

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
        let mut env = self.env();
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

    fn hand_modifiers(&mut self, list: &'a [HandModifier], rule: Option<&'a Rule>, _ctx: &mut Depth) {
        let id = rule.map_or("", |rule| rule.id.as_str());
        for modifier in list {
            if self.ended() {
                return;
            }
            let amount = Step::value(self, &modifier.amount);
            if !amount.is_finite() {
                self.warn(format!("rule `{id}`: the hand modifier's amount is not a number"));
                continue;
            }
            // At most a thousand copies or cards: a content typo must not stall the session.
            let count = amount.abs().round().min(1000.0) as usize;
            let card = match &modifier.card {
                CardPick::Target => self.target.clone(),
                CardPick::Result => self.state.last_result.clone(),
                CardPick::A => self.synth.as_ref().and_then(|frame| if frame.solo { None } else { frame.a.clone() }),
                CardPick::B => self.synth.as_ref().and_then(|frame| frame.b.clone()),
                CardPick::Card(card) => Some(card.clone()),
            };
            let needs_card = matches!(modifier.op, HandOp::Add | HandOp::Remove | HandOp::Boost | HandOp::ToDeckTop);
            let card = match card {
                Some(card) => card,
                None if needs_card => {
                    let which = match modifier.card {
                        CardPick::Target => "the play names no card",
                        CardPick::A | CardPick::B => "no synthesis is under way (or B was played alone)",
                        _ => "no synthesis has produced a card yet",
                    };
                    self.warn(format!("rule `{id}`: the hand modifier {:?} does nothing: {which}", modifier.op));
                    continue;
                }
                None => CardId::default(),
            };
            match modifier.op {
                HandOp::Add => {
                    for _ in 0..count {
                        self.state.hand.push(card.clone());
                    }
                    self.events.push(Event::HandChanged { card, count: count as i64 });
                }
                HandOp::Remove => {
                    let mut removed = 0i64;
                    for _ in 0..count {
                        if !self.take_from_hand(&card, false) {
                            break;
                        }
                        removed = removed.saturating_add(1);
                    }
                    self.events.push(Event::HandChanged { card, count: removed.saturating_neg() });
                }
                // A boost of 0 changes nothing (e.g. a mutation that does not pass on).
                HandOp::Boost if amount == 0.0 => {}
                HandOp::Boost => {
                    if modifier.property.is_empty() {
                        self.warn(format!("rule `{id}`: a Boost names no property"));
                        continue;
                    }
                    let boosts = self.state.boosts.entry(card.clone()).or_default();
                    *boosts.entry(modifier.property.clone()).or_insert(0.0) += amount;
                    self.events.push(Event::CardBoosted {
                        card,
                        property: modifier.property.clone(),
                        amount: crate::number::show_value(amount, None),
                    });
                }
                HandOp::ToDeckTop | HandOp::Draw | HandOp::DiscardToDeckTop | HandOp::SinkTop => {
                    self.pile_modifier(modifier, card, count, id);
                }
            }
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

impl Step<'_> {
    /// A hand modifier that works on the current draw pile.
    fn pile_modifier(&mut self, modifier: &HandModifier, card: CardId, count: usize, rule: &str) {
        let Some(deck) = self.state.deck.clone() else {
            self.warn(format!("rule `{rule}`: the hand modifier {:?} needs a card cycle's deck", modifier.op));
            return;
        };
        let moved: Vec<CardId> = match modifier.op {
            HandOp::ToDeckTop => {
                let pile = self.state.piles.entry(deck.clone()).or_default();
                for _ in 0..count {
                    pile.insert(0, card.clone());
                }
                vec![card; count]
            }
            HandOp::Draw => {
                let before = self.state.hand.len();
                self.draw(count);
                self.state.hand.get(before..).map(<[CardId]>::to_vec).unwrap_or_default()
            }
            HandOp::DiscardToDeckTop => {
                let keep = self.state.discard.len().saturating_sub(count);
                let taken = self.state.discard.split_off(keep);
                // The discard pile's top card ends on top of the draw pile.
                let pile = self.state.piles.entry(deck.clone()).or_default();
                for card in &taken {
                    pile.insert(0, card.clone());
                }
                taken
            }
            HandOp::SinkTop => {
                let pile = self.state.piles.get(&deck).cloned().unwrap_or_default();
                let (top, rest) = pile.split_at(count.min(pile.len()));
                // No `keep` aspect: every card looked at goes to the bottom.
                let (kept, sunk): (Vec<CardId>, Vec<CardId>) = top
                    .iter()
                    .cloned()
                    .partition(|card| modifier.keep.is_some() && self.fits(card, modifier.keep.as_ref()));
                let mut changed = kept;
                changed.extend_from_slice(rest);
                changed.extend(sunk.iter().cloned());
                self.state.piles.insert(deck.clone(), changed);
                sunk
            }
            HandOp::Add | HandOp::Remove | HandOp::Boost => return,
        };
        self.events.push(Event::PileChanged { deck, op: modifier.op, cards: moved });
    }
}
