//! The synthesis beyond two cards of the hand (FORMAT.md §14 "Bonds, B alone, extras and
//! raids"; `spec/era-synthesis.md` §4.6, §4.7): an A and a B bound on the field, B gathering A's
//! tendencies each dawn and the pair triggered later; B played alone with the synthesis's
//! stand-in in A's place; an extra card summoned in a failed card's place; and the free strike
//! outside battles of the cards the raid names (the failure products).

use std::collections::BTreeMap;

use crate::model::{CardId, Id, Stat};

use super::Bound;
use super::env::SynthFrame;
use super::step::{Inputs, Refusal, Step};
use crate::engine::{Choice, Event};
use crate::number::show_value;

impl<'a> Step<'a> {
    fn synthesis_rules(&self) -> Option<&'a crate::model::Synthesis> {
        let content = self.content;
        self.map.synthesis.as_ref().and_then(|id| content.project.syntheses.get(id.as_str()))
    }

    fn no_moves_now(&self) -> bool {
        self.map.phases.get(self.state.phase).is_some_and(|phase| phase.no_moves)
    }

    /// Plays a choice of the field when it is possible now; false when it is not.
    pub(super) fn apply_field(&mut self, choice: &Choice) -> bool {
        match choice {
            Choice::Bind { a, b } => self.bind_check(a, b).map(|()| self.bind(a, b)).is_ok(),
            Choice::Trigger { a, b } => self.trigger_cost(a, b).map(|cost| self.trigger(a, b, cost)).is_ok(),
            Choice::SynthesizeAlone { b } => self.alone_cost(b).map(|cost| self.synthesize_alone(b, cost)).is_ok(),
            Choice::SummonExtra { card } => self.extra_check(card).map(|()| self.summon_extra(card)).is_ok(),
            Choice::Raid { card } => self.raid_check(card).map(|()| self.raid(card)).is_ok(),
            _ => false,
        }
    }

    /// Whether `a` and `b` of the hand may be bound on the field now.
    pub(super) fn bind_check(&self, a: &CardId, b: &CardId) -> Result<(), Refusal> {
        if self.synthesis_rules().is_none_or(|synthesis| synthesis.bond.is_none()) {
            return Err(Refusal::NoBond);
        }
        if self.no_moves_now() {
            return Err(Refusal::Phase);
        }
        self.synthesis_inputs(a, b)
    }

    /// Binds `a` and `b`: both leave the hand for the field.
    pub(super) fn bind(&mut self, a: &CardId, b: &CardId) {
        self.take_from_hand(a, false);
        self.take_from_hand(b, false);
        self.state.bonds.push(Bound { a: a.clone(), b: b.clone(), gathered: BTreeMap::new() });
        self.events.push(Event::CardsBound { a: a.clone(), b: b.clone() });
    }

    /// At dawn: each bound B gathers its A's tendencies (the bond's `gather`, A's properties as
    /// the player holds them; a property that is not a number gathers nothing).
    pub(super) fn gather(&mut self) {
        let Some(bond) = self.synthesis_rules().and_then(|synthesis| synthesis.bond.as_ref()) else { return };
        for at in 0..self.state.bonds.len() {
            let Some(a) = self.state.bonds.get(at).map(|bound| bound.a.clone()) else { continue };
            for (from, into) in &bond.gather {
                let value = self.card_property(&a, from);
                if value.is_finite()
                    && let Some(bound) = self.state.bonds.get_mut(at)
                {
                    *bound.gathered.entry(into.clone()).or_insert(0.0) += value;
                }
            }
        }
    }

    /// The first bond of `a` and `b` on the field.
    fn bond_of(&self, a: &CardId, b: &CardId) -> Option<usize> {
        self.state.bonds.iter().position(|bound| bound.a == *a && bound.b == *b)
    }

    fn bond_stat(&self) -> Option<&'a Id<Stat>> {
        let bond = self.synthesis_rules().and_then(|synthesis| synthesis.bond.as_ref());
        bond.and_then(|bond| bond.cost_stat.as_ref()).or_else(|| self.synthesis_stat())
    }

    /// What triggering the bound pair costs now, or why it cannot be triggered.
    pub(super) fn trigger_cost(&mut self, a: &CardId, b: &CardId) -> Result<f64, Refusal> {
        let bond = self.synthesis_rules().and_then(|synthesis| synthesis.bond.as_ref()).ok_or(Refusal::NoBond)?;
        if self.no_moves_now() {
            return Err(Refusal::Phase);
        }
        self.bond_of(a, b).ok_or(Refusal::NotBound)?;
        let cost = self.cost_with(a, b, false, &bond.cost);
        self.affordable_from(self.bond_stat(), cost)
    }

    /// Triggers the synthesis of the bound pair with what B gathered.
    pub(super) fn trigger(&mut self, a: &CardId, b: &CardId, cost: f64) {
        let Some(at) = self.bond_of(a, b) else { return };
        let inputs = Inputs { a: a.clone(), b: b.clone(), solo: false, bond: Some(at) };
        self.run_synthesis(&inputs, cost, self.bond_stat());
    }

    /// What triggering the synthesis with `b` alone costs now (as with two cards), or why not.
    pub(super) fn alone_cost(&mut self, b: &CardId) -> Result<f64, Refusal> {
        let synthesis = self.synthesis_rules().ok_or(Refusal::NoSynthesis)?;
        if synthesis.stand_in.is_none() {
            return Err(Refusal::NoStandIn);
        }
        if self.no_moves_now() {
            return Err(Refusal::Phase);
        }
        if !self.state.hand.contains(b) {
            return Err(Refusal::NotInHand);
        }
        if !self.fits(b, self.map.synthesis_b.as_ref()) {
            return Err(Refusal::WrongInputs);
        }
        let stand_in = synthesis.stand_in.clone().unwrap_or_default();
        let cost = self.cost_with(&stand_in, b, true, &self.map.synthesis_cost);
        self.affordable_from(self.synthesis_stat(), cost)
    }

    /// Triggers the synthesis with `b` alone: the stand-in takes A's place (`synth.solo` is 1).
    pub(super) fn synthesize_alone(&mut self, b: &CardId, cost: f64) {
        let Some(stand_in) = self.synthesis_rules().and_then(|synthesis| synthesis.stand_in.clone()) else { return };
        let inputs = Inputs { a: stand_in, b: b.clone(), solo: true, bond: None };
        self.run_synthesis(&inputs, cost, self.synthesis_stat());
    }

    /// Whether `card` may be summoned in the failed card's place now.
    pub(super) fn extra_check(&self, card: &CardId) -> Result<(), Refusal> {
        let content = self.content;
        let synthesis = self.synthesis_rules().ok_or(Refusal::NoSynthesis)?;
        if self.state.failed.is_none() {
            return Err(Refusal::NoFailure);
        }
        let extras = synthesis.extras.as_ref().and_then(|deck| content.project.decks.get(deck.as_str()));
        if !extras.is_some_and(|deck| deck.fragments.contains(card)) {
            return Err(Refusal::NotAnExtra);
        }
        Ok(())
    }

    /// Summons `card` in the failed card's place: the failure product (when one joined the
    /// hand) leaves it, `card` joins it, and the synthesis's `extra_rules` run (they read the
    /// failed card as `synth.result.*` and `card` as `synth.extra.*`).
    pub(super) fn summon_extra(&mut self, card: &CardId) {
        let Some(synthesis) = self.synthesis_rules() else { return };
        let Some(failed) = self.state.failed.take() else { return };
        if let Some(product) = &synthesis.failure_product
            && self.take_from_hand(product, false)
        {
            self.events.push(Event::HandChanged { card: product.clone(), count: -1 });
        }
        self.state.hand.push(card.clone());
        self.state.last_result = Some(card.clone());
        self.events.push(Event::ExtraSummoned { failed: failed.clone(), card: card.clone() });
        self.synth = Some(SynthFrame { result: Some(failed), extra: Some(card.clone()), ..SynthFrame::default() });
        self.run_rules(&synthesis.extra_rules);
        self.synth = None;
    }

    /// The extras that may be summoned now (in their deck's order).
    pub(super) fn open_extras(&self) -> Vec<CardId> {
        let content = self.content;
        let Some(deck) = self
            .synthesis_rules()
            .and_then(|synthesis| synthesis.extras.as_ref())
            .and_then(|deck| content.project.decks.get(deck.as_str()))
        else {
            return Vec::new();
        };
        let mut out: Vec<CardId> = Vec::new();
        for card in &deck.fragments {
            if !out.contains(card) && self.extra_check(card).is_ok() {
                out.push(card.clone());
            }
        }
        out
    }

    /// Whether `card` may raid now.
    pub(super) fn raid_check(&self, card: &CardId) -> Result<(), Refusal> {
        let raid = self.map.battles.raid.as_ref().ok_or(Refusal::NoRaid)?;
        if !self.state.hand.contains(card) || !self.fits(card, Some(&raid.aspect)) {
            return Err(Refusal::NotARaider);
        }
        if self.state.raided.contains(card) {
            return Err(Refusal::Raided);
        }
        Ok(())
    }

    /// `card` strikes the raid's `against` card with the battles' damage formula; the damage
    /// comes off the raid's stat.
    pub(super) fn raid(&mut self, card: &CardId) {
        let content = self.content;
        let Some(raid) = self.map.battles.raid.as_ref() else { return };
        self.state.raided.insert(card.clone());
        let life = |step: &mut Self, card: &CardId| {
            let life = step.card_property(card, "life");
            if life.is_finite() { life } else { 0.0 }
        };
        let attacker = super::Fighter { key: card.to_string(), card: card.clone(), life: life(self, card) };
        let defender = super::Fighter {
            key: raid.against.to_string(),
            card: raid.against.clone(),
            life: life(self, &raid.against),
        };
        let damage = self.blow(&attacker, &defender);
        self.events.push(Event::Raided {
            card: card.clone(),
            against: raid.against.clone(),
            damage: show_value(damage, None),
        });
        if let Some(stat) = content.project.stats.get(raid.stat.as_str()) {
            let value = self.stat_value(&stat.id);
            self.set_stat(stat, value - damage, &mut crate::engine::core::Depth(0));
        }
    }

    /// The cards of the hand that may raid now.
    pub(super) fn open_raids(&self) -> Vec<CardId> {
        let mut out: Vec<CardId> = Vec::new();
        for card in &self.state.hand {
            if !out.contains(card) && self.raid_check(card).is_ok() {
                out.push(card.clone());
            }
        }
        out
    }
}
