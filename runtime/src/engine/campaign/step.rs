//! One campaign step: paths, synthesis, phases and days, patrols, rules, meters and the end.

use std::collections::BTreeMap;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::model::{CardId, Crossing, Expr, FragmentRef, Id, MapNode, NodeKind, NodeMap, RuleId, Stat, StatValue};

use super::env::{CampaignEnv, SynthFrame, unit};
use super::{CampaignResult, CampaignState};
use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::core::{self, Depth};
use crate::number::show_value;

/// One step of the campaign: content, map, state, the stored stats, generator and events.
pub(super) struct Step<'a> {
    pub(super) content: &'a Content,
    pub(super) map: &'a NodeMap,
    pub(super) state: &'a mut CampaignState,
    pub(super) stored: &'a mut BTreeMap<Id<Stat>, f64>,
    pub(super) rng: &'a mut Pcg64Mcg,
    pub(super) events: &'a mut Vec<Event>,
    /// The rules run so far in this step (bounded).
    pub(super) work: crate::engine::core::StepWork,
    /// The synthesis whose rules run now (`synth.*` in formulas).
    pub(super) synth: Option<SynthFrame>,
    /// The card the play or option being worked out names (hand modifiers' `Target`).
    pub(super) target: Option<CardId>,
}

/// What a synthesis works on: A (the stand-in when B is played alone) and B, from the hand or
/// from a bond on the field (its index).
pub(super) struct Inputs {
    pub(super) a: CardId,
    pub(super) b: CardId,
    pub(super) solo: bool,
    pub(super) bond: Option<usize>,
}

impl Step<'_> {
    /// The formula environment over this step's state.
    pub(super) fn env(&mut self) -> CampaignEnv<'_> {
        CampaignEnv {
            content: self.content,
            accessors: &self.content.accessors,
            map: self.map,
            state: self.state,
            stored: self.stored,
            rng: &mut *self.rng,
            depth: 0,
            fight: None,
            synth: self.synth.as_ref(),
        }
    }

    pub(super) fn value(&mut self, expr: &Expr) -> f64 {
        self.env().expr(expr)
    }

    /// A card's property as the player holds it (its formula plus boosts; NaN: none).
    pub(super) fn card_property(&mut self, card: &CardId, property: &str) -> f64 {
        self.env().card_property(card, property)
    }

    /// The value of `expr` for one blow: `fight.attacker.*` and `fight.defender.*` read `fight`.
    pub(super) fn fight_value(&mut self, expr: &Expr, fight: &super::env::Blow) -> f64 {
        let mut env = self.env();
        env.fight = Some(fight);
        env.expr(expr)
    }

    pub(super) fn trace(&mut self, expr: &Expr) -> Option<crate::formula::FormulaTrace> {
        self.env().expr_trace(expr)
    }

    pub(super) fn stat_value(&mut self, id: &Id<Stat>) -> f64 {
        self.env().stat(id)
    }

    pub(super) fn warn(&mut self, message: String) {
        self.events.push(Event::Warning(message));
    }

    pub(super) fn ended(&self) -> bool {
        self.state.result.is_some()
    }

    /// The lowest value a stat may take (its `min`; none: no limit).
    pub(super) fn floor_of(&mut self, stat: &Stat) -> f64 {
        match &stat.min {
            Some(min) => {
                let min = self.value(min);
                if min.is_nan() { f64::NEG_INFINITY } else { min }
            }
            None => f64::NEG_INFINITY,
        }
    }

    /// Sets a stored stat within its limits, reports it, and runs the rules of every threshold
    /// it crossed (in the stat's order).
    pub(super) fn set_stat(&mut self, stat: &Stat, value: f64, ctx: &mut Depth) {
        let old = self.stat_value(&stat.id);
        let mut value = value;
        if let Some(max) = &stat.max {
            let max = self.value(max);
            if value > max {
                value = max;
            }
        }
        let min = self.floor_of(stat);
        if value < min {
            value = min;
        }
        self.stored.insert(stat.id.clone(), value);
        if old.to_bits() == value.to_bits() {
            return;
        }
        self.events.push(Event::StatChanged { stat: stat.id.clone(), value: show_value(value, stat.rounding) });
        for threshold in &stat.thresholds {
            let at = self.value(&threshold.at);
            let rising = old < at && value >= at;
            let falling = old >= at && value < at;
            let crossed = match threshold.crossing {
                Crossing::Rising => rising,
                Crossing::Falling => falling,
                Crossing::Either => rising || falling,
            };
            if crossed {
                self.events.push(Event::ThresholdCrossed { stat: stat.id.clone(), rule: threshold.rule.clone() });
                core::run_rule(self, &threshold.rule, ctx);
            }
        }
    }

    /// Runs each rule of a list through the rules core (FORMAT.md §14).
    pub(super) fn run_rules(&mut self, rules: &[RuleId]) {
        core::run_rules(self, rules, &mut Depth(0));
    }

    /// Ends the campaign: the result first (grades read `campaign.won`), then the first grade
    /// that holds.
    pub(super) fn end(&mut self, won: bool, text: Option<&str>) {
        if self.ended() {
            return;
        }
        self.state.result = Some(CampaignResult { won, grade: None, outcome: String::new() });
        let map = self.map;
        let grade = map.grades.iter().find(|grade| core::truthy(self.value(&grade.when)));
        let verdict = if won { "victory" } else { "defeat" };
        let outcome = match (&text, grade) {
            (Some(text), _) if !text.is_empty() => (*text).to_owned(),
            (_, Some(grade)) if !grade.label.is_empty() => format!("{verdict}: {}", grade.label),
            (_, Some(grade)) => format!("{verdict}: {}", grade.id),
            _ => verdict.to_owned(),
        };
        let grade = grade.map(|grade| grade.id.clone());
        self.state.result = Some(CampaignResult { won, grade: grade.clone(), outcome: outcome.clone() });
        self.events.push(Event::CampaignEnded { won, grade });
        self.events.push(Event::GameEnded { outcome });
    }

    /// Loss is checked before victory: a step that meets both loses.
    pub(super) fn check_end(&mut self) {
        if self.ended() {
            return;
        }
        let map = self.map;
        if map.lose.as_ref().is_some_and(|lose| core::truthy(self.value(lose))) {
            self.end(false, None);
        } else if map.win.as_ref().is_some_and(|win| core::truthy(self.value(win))) {
            self.end(true, None);
        }
    }

    /// What a path costs now; none when it cannot be taken (no such path from here, locked,
    /// its cost not a number, or paying it would pass the meter's credit limit).
    pub(super) fn path_cost(&mut self, to: &Id<MapNode>) -> Result<f64, Refusal> {
        let map = self.map;
        let edge =
            map.edges.iter().find(|edge| edge.from == self.state.node && edge.to == *to).ok_or(Refusal::NoPath)?;
        if map.phases.get(self.state.phase).is_some_and(|phase| phase.no_moves) {
            return Err(Refusal::Phase);
        }
        if let Some(unlock) = &edge.unlock
            && !core::truthy(self.value(unlock))
        {
            return Err(Refusal::Locked);
        }
        let cost = self.value(&edge.cost);
        self.affordable(cost)
    }

    /// `cost` when it is a number ≥ 0 that `cost_stat` can pay within its credit limit.
    pub(super) fn affordable(&mut self, cost: f64) -> Result<f64, Refusal> {
        self.affordable_from(self.map.cost_stat.as_ref(), cost)
    }

    /// `cost` when it is a number ≥ 0 that `stat` (none: free) can pay within its credit limit.
    pub(super) fn affordable_from(&mut self, stat: Option<&Id<Stat>>, cost: f64) -> Result<f64, Refusal> {
        if !cost.is_finite() || cost < 0.0 {
            return Err(Refusal::BadCost);
        }
        if let Some(stat) = stat.and_then(|id| self.content.project.stats.get(id.as_str())) {
            let floor = self.floor_of(stat);
            if self.stat_value(&stat.id) - cost < floor - 1e-9 {
                return Err(Refusal::Credit);
            }
        }
        Ok(cost)
    }

    /// Pays `cost` from `cost_stat` (thresholds fire).
    pub(super) fn pay(&mut self, cost: f64) {
        self.pay_from(self.map.cost_stat.as_ref(), cost);
    }

    /// Pays `cost` from `stat` (none: free; thresholds fire).
    pub(super) fn pay_from(&mut self, stat: Option<&Id<Stat>>, cost: f64) {
        let content = self.content;
        if let Some(stat) = stat.and_then(|id| content.project.stats.get(id.as_str()))
            && cost != 0.0
        {
            let current = self.stat_value(&stat.id);
            self.set_stat(stat, current - cost, &mut Depth(0));
        }
    }

    /// Whether a card has the aspect an input needs (any card when the map names none).
    pub(super) fn fits(&self, card: &CardId, aspect: Option<&crate::model::AspectId>) -> bool {
        aspect.is_none_or(|aspect| {
            self.content.card(card.as_str()).is_some_and(|card| {
                card.fragments.iter().any(|held| matches!(&held.fragment, FragmentRef::Aspect(id) if id == aspect))
            })
        })
    }

    /// Whether the hand holds `a` and `b` (two copies when they are one card) and they fit the
    /// synthesis's inputs (A first, then B).
    pub(super) fn synthesis_inputs(&self, a: &CardId, b: &CardId) -> Result<(), Refusal> {
        let map = self.map;
        let held = |card: &CardId| self.state.hand.iter().filter(|held| *held == card).count();
        if held(a) == 0 || held(b) < if a == b { 2 } else { 1 } {
            return Err(Refusal::NotInHand);
        }
        if !self.fits(a, map.synthesis_a.as_ref()) || !self.fits(b, map.synthesis_b.as_ref()) {
            return Err(Refusal::WrongInputs);
        }
        Ok(())
    }

    /// What triggering the synthesis with `a` and `b` costs now, or why it cannot be.
    pub(super) fn synthesis_cost(&mut self, a: &CardId, b: &CardId) -> Result<f64, Refusal> {
        let map = self.map;
        if map.synthesis.is_none() {
            return Err(Refusal::NoSynthesis);
        }
        if map.phases.get(self.state.phase).is_some_and(|phase| phase.no_moves) {
            return Err(Refusal::Phase);
        }
        self.synthesis_inputs(a, b)?;
        let cost = self.cost_with(a, b, false, &map.synthesis_cost);
        self.affordable_from(self.synthesis_stat(), cost)
    }

    /// The value of a synthesis cost with `a` and `b` readable as `synth.a.*` and `synth.b.*`
    /// (a B's decoration changes what the synthesis costs).
    pub(super) fn cost_with(&mut self, a: &CardId, b: &CardId, solo: bool, cost: &Expr) -> f64 {
        let frame = SynthFrame { a: Some(a.clone()), b: Some(b.clone()), solo, ..SynthFrame::default() };
        let before = self.synth.replace(frame);
        let value = self.value(cost);
        self.synth = before;
        value
    }

    /// Triggers the synthesis with `a` and `b` of the hand, paid from its meter.
    pub(super) fn synthesize(&mut self, a: &CardId, b: &CardId, cost: f64) {
        let inputs = Inputs { a: a.clone(), b: b.clone(), solo: false, bond: None };
        self.run_synthesis(&inputs, cost, self.synthesis_stat());
    }

    /// Triggers the synthesis: its table from the meters' values now (the cards as the player
    /// holds them, B with what it gathered), a candidate drawn by share, a success roll against
    /// its chance; the inputs leave the hand (or the field) for the discard pile, the result
    /// joins the hand on success, the failure product on failure; then the synthesis's
    /// `on_success` or `on_failure` rules, insight and the revelation roll. A table that cannot
    /// be worked out (a content error) is a warning and changes nothing.
    pub(super) fn run_synthesis(&mut self, inputs: &Inputs, cost: f64, paid_from: Option<&Id<Stat>>) {
        let map = self.map;
        let content = self.content;
        let Some(id) = &map.synthesis else { return };
        let Some(synthesis) = content.project.syntheses.get(id.as_str()) else { return };
        let mut values = BTreeMap::new();
        for stat in &content.project.stats {
            let value = self.stat_value(&stat.id);
            if !value.is_nan() {
                values.insert(stat.id.as_str().to_owned(), value);
            }
        }
        values.insert("synth.solo".to_owned(), if inputs.solo { 1.0 } else { 0.0 });
        let gathered = inputs.bond.and_then(|at| self.state.bonds.get(at)).map(|bond| bond.gathered.clone());
        let boosts = &self.state.boosts;
        let adjust = |role: &str, card: &crate::model::Card| {
            let mut out = boosts.get(&card.id).cloned().unwrap_or_default();
            if role == "b"
                && let Some(gathered) = &gathered
            {
                for (name, more) in gathered {
                    *out.entry(name.clone()).or_insert(0.0) += more;
                }
            }
            out
        };
        let table = match crate::synthesis::adjusted_table(
            &content.project,
            id.as_str(),
            inputs.a.as_str(),
            inputs.b.as_str(),
            &values,
            &adjust,
        ) {
            Ok(table) => table,
            Err(error) => {
                self.warn(format!("synthesis `{id}`: {error}"));
                return;
            }
        };
        let roll = unit(self.rng);
        let mut total = 0.0;
        let chosen = table
            .candidates
            .iter()
            .find(|candidate| {
                total += candidate.share;
                roll < total
            })
            .or_else(|| table.candidates.last());
        let Some(chosen) = chosen else { return };
        let success = unit(self.rng) * 100.0 < chosen.success;
        self.pay_from(paid_from, cost);
        self.use_up(inputs);
        self.state.syntheses = self.state.syntheses.saturating_add(1);
        if success {
            self.state.hand.push(chosen.card.clone());
            self.state.last_result = Some(chosen.card.clone());
            if !table.shared_tags {
                let marks = self.state.fallbacks.entry(chosen.card.clone()).or_insert(0);
                *marks = marks.saturating_add(1);
            }
        } else {
            self.state.failures = self.state.failures.saturating_add(1);
            if synthesis.extras.is_some() {
                self.state.failed = Some(chosen.card.clone());
            }
            if let Some(product) = &synthesis.failure_product {
                self.state.hand.push(product.clone());
                self.events.push(Event::HandChanged { card: product.clone(), count: 1 });
            }
        }
        self.events.push(Event::Synthesized {
            a: inputs.a.clone(),
            b: inputs.b.clone(),
            result: chosen.card.clone(),
            chance: show_value(chosen.success, None),
            success,
        });
        self.synth = Some(SynthFrame {
            a: Some(inputs.a.clone()),
            b: Some(inputs.b.clone()),
            result: Some(chosen.card.clone()),
            extra: None,
            solo: inputs.solo,
            gathered: gathered.unwrap_or_default(),
            shared: table.shared,
            success,
        });
        self.run_rules(if success { &synthesis.on_success } else { &synthesis.on_failure });
        let most_probable = table.candidates.iter().map(|candidate| candidate.share).fold(0.0, f64::max);
        if !success
            && chosen.share >= most_probable
            && let Some(stat) = synthesis.insight.as_ref().and_then(|id| content.project.stats.get(id.as_str()))
        {
            let value = self.stat_value(&stat.id);
            self.set_stat(stat, value + 1.0, &mut Depth(0));
            self.events.push(Event::InsightGained { stat: stat.id.clone() });
        }
        self.reveal(synthesis, success);
        self.synth = None;
    }

    /// The synthesis's inputs leave the hand (or the field) for the discard pile.
    fn use_up(&mut self, inputs: &Inputs) {
        match inputs.bond {
            Some(at) if at < self.state.bonds.len() => {
                let bond = self.state.bonds.remove(at);
                self.discard(bond.a);
                self.discard(bond.b);
            }
            Some(_) => {}
            None => {
                let taken: &[&CardId] = if inputs.solo { &[&inputs.b] } else { &[&inputs.a, &inputs.b] };
                for input in taken {
                    if self.take_from_hand(input, false) {
                        self.discard((*input).clone());
                    }
                }
            }
        }
    }

    /// The revelation roll after a synthesis (a second roll after a failure), then a
    /// revelation granted on success.
    fn reveal(&mut self, synthesis: &crate::model::Synthesis, success: bool) {
        let content = self.content;
        if let Some(check) = &synthesis.revelation {
            let mut revealed = self.dice_check(check, check.above.saturating_add(1));
            if !revealed
                && !success
                && let Some(at_least) = check.retry_at_least
            {
                revealed = self.dice_check(check, at_least);
            }
            if revealed {
                if let Some(stat) = check.stat.as_ref().and_then(|id| content.project.stats.get(id.as_str())) {
                    let value = self.stat_value(&stat.id);
                    self.set_stat(stat, value + 1.0, &mut Depth(0));
                }
                self.run_rules(&check.on_success);
                self.grant_revelation(synthesis);
            }
        }
    }

    /// Grants one of the synthesis's revelations, drawn at random among those not granted
    /// since the list last started over, and runs its rules.
    fn grant_revelation<'s>(&mut self, synthesis: &'s crate::model::Synthesis) {
        if synthesis.revelations.is_empty() || self.ended() {
            return;
        }
        let open = |state: &CampaignState| -> Vec<&'s crate::model::Revelation> {
            synthesis.revelations.iter().filter(|revelation| !state.revealed.contains(&revelation.id)).collect()
        };
        let mut left = open(self.state);
        if left.is_empty() {
            self.state.revealed.clear();
            left = open(self.state);
        }
        let at = usize::try_from(self.rng.next_u64().checked_rem(left.len() as u64).unwrap_or(0)).unwrap_or(0);
        let Some(revelation) = left.get(at).copied() else { return };
        self.state.revealed.insert(revelation.id.clone());
        self.events.push(Event::RevelationGranted { revelation: revelation.id.clone() });
        self.run_rules(&revelation.rules);
    }

    /// What summoning `result` with `a` and `b` costs in insight now, or why it cannot be: the
    /// synthesis's input rules, a candidate of its deck, enough insight.
    pub(super) fn summon_cost(&mut self, a: &CardId, b: &CardId, result: &CardId) -> Result<f64, Refusal> {
        let content = self.content;
        let map = self.map;
        let synthesis = map.synthesis.as_ref().and_then(|id| content.project.syntheses.get(id.as_str()));
        let Some(synthesis) = synthesis.filter(|synthesis| !synthesis.insight_cost.is_zero()) else {
            return Err(Refusal::NoSummon);
        };
        if map.phases.get(self.state.phase).is_some_and(|phase| phase.no_moves) {
            return Err(Refusal::Phase);
        }
        self.synthesis_inputs(a, b)?;
        let candidates = synthesis.candidates.as_ref().and_then(|deck| content.project.decks.get(deck.as_str()));
        if !candidates.is_some_and(|deck| deck.fragments.contains(result)) {
            return Err(Refusal::NotACandidate);
        }
        let cost = self.value(&synthesis.insight_cost);
        if !cost.is_finite() || cost < 0.0 {
            return Err(Refusal::BadCost);
        }
        // Insight is never borrowed: the stat must hold the whole cost, whatever its `min`.
        let have = synthesis.insight.as_ref().map_or(f64::NAN, |stat| self.stat_value(stat));
        if have.is_nan() || have + 1e-9 < cost {
            return Err(Refusal::NoInsight);
        }
        Ok(cost)
    }

    /// Summons `result` outright: the insight is spent, both inputs go to the discard pile, the
    /// result joins the hand and the synthesis's `on_success` rules run (a C card is born).
    pub(super) fn summon(&mut self, a: &CardId, b: &CardId, result: &CardId, cost: f64) {
        let content = self.content;
        let Some(synthesis) = self.map.synthesis.as_ref().and_then(|id| content.project.syntheses.get(id.as_str()))
        else {
            return;
        };
        self.pay_from(synthesis.insight.as_ref(), cost);
        for input in [a, b] {
            if self.take_from_hand(input, false) {
                self.discard(input.clone());
            }
        }
        self.state.hand.push(result.clone());
        self.events.push(Event::Summoned {
            a: a.clone(),
            b: b.clone(),
            result: result.clone(),
            cost: show_value(cost, None),
        });
        self.run_rules(&synthesis.on_success);
    }

    /// What removing a fallback copy of `card` costs now, or why it cannot be removed.
    pub(super) fn removal_cost(&mut self, card: &CardId) -> Result<f64, Refusal> {
        let content = self.content;
        let map = self.map;
        let synthesis = map.synthesis.as_ref().and_then(|id| content.project.syntheses.get(id.as_str()));
        let Some(synthesis) = synthesis.filter(|synthesis| !synthesis.fallback_removal_cost.is_zero()) else {
            return Err(Refusal::NoRemoval);
        };
        if self.state.fallbacks.get(card).copied().unwrap_or(0) == 0 {
            return Err(Refusal::NotAFallback);
        }
        let cost = self.value(&synthesis.fallback_removal_cost);
        self.affordable_from(self.synthesis_stat(), cost)
    }

    /// Pays for and removes a fallback copy of `card` from the game.
    pub(super) fn remove_fallback(&mut self, card: &CardId, cost: f64) {
        self.pay_from(self.synthesis_stat(), cost);
        if let Some(at) = self.state.hand.iter().position(|held| held == card) {
            self.state.hand.remove(at);
        }
        self.unmark_fallback(card, true);
        self.events.push(Event::CardRemoved { card: card.clone(), cost: show_value(cost, None) });
    }

    /// After a copy of `card` left the hand: one fallback mark less when `marked`, and never
    /// more marks than copies held.
    pub(super) fn unmark_fallback(&mut self, card: &CardId, marked: bool) {
        let held = self.state.hand.iter().filter(|held| *held == card).count();
        if let Some(marks) = self.state.fallbacks.get_mut(card) {
            if marked {
                *marks = marks.saturating_sub(1);
            }
            *marks = (*marks).min(u32::try_from(held).unwrap_or(u32::MAX));
            if *marks == 0 {
                self.state.fallbacks.remove(card);
            }
        }
    }

    /// At dawn: the synthesis's `fallback_daily` rules, once per fallback card held.
    pub(super) fn fallback_dawn(&mut self) {
        let content = self.content;
        let Some(synthesis) = self.map.synthesis.as_ref().and_then(|id| content.project.syntheses.get(id.as_str()))
        else {
            return;
        };
        if synthesis.fallback_daily.is_empty() {
            return;
        }
        let held: u32 = self.state.fallbacks.values().sum();
        for _ in 0..held.min(1000) {
            self.run_rules(&synthesis.fallback_daily);
        }
    }

    /// As an era begins: the first-player dice; success sets its stat to 1 (else 0) and runs
    /// its `on_success` rules.
    pub(super) fn roll_first_player(&mut self) {
        let map = self.map;
        let Some(check) = &map.first_player else { return };
        let first = self.dice_check(check, check.above.saturating_add(1));
        if let Some(stat) = check.stat.as_ref().and_then(|id| self.content.project.stats.get(id.as_str())) {
            self.set_stat(stat, if first { 1.0 } else { 0.0 }, &mut Depth(0));
        }
        if first {
            self.run_rules(&check.on_success);
        }
    }

    /// Rolls a dice check's dice from the session's generator; succeeds at `at_least` or more.
    fn dice_check(&mut self, check: &crate::model::DiceCheck, at_least: i64) -> bool {
        let sides = u64::from(check.sides.max(1));
        // At most 100 dice: a content typo must not stall the session.
        let dice: Vec<i64> = (0..check.dice.min(100))
            .map(|_| i64::try_from(self.rng.next_u64().checked_rem(sides).unwrap_or(0)).unwrap_or(0).saturating_add(1))
            .collect();
        let success = dice.iter().sum::<i64>() >= at_least;
        self.events.push(Event::DiceChecked { dice, success });
        success
    }

    /// Takes a path: pays, moves, captures, and does what the node's kind does.
    pub(super) fn move_to(&mut self, to: &Id<MapNode>, cost: f64) {
        let map = self.map;
        self.pay(cost);
        let from = std::mem::replace(&mut self.state.node, to.clone());
        self.state.moves = self.state.moves.saturating_add(1);
        self.events.push(Event::CampaignMoved { from, to: to.clone(), cost: show_value(cost, None) });
        self.state.visited.insert(to.clone());
        let captured = self.state.captured.insert(to.clone());
        if captured {
            self.events.push(Event::NodeCaptured { node: to.clone() });
        }
        if let Some(node) = map.nodes.iter().find(|node| node.id == *to) {
            self.enter(node);
        }
        if captured {
            self.run_rules(&map.on_capture);
        }
        if let Some(node) = map.nodes.iter().find(|node| node.id == *to) {
            self.offer_options(node);
        }
    }

    /// The options the player may choose between now: the waiting node's, those whose `when`
    /// holds (node id, option id).
    pub(super) fn open_options(&mut self) -> Vec<(Id<MapNode>, String)> {
        let map = self.map;
        let Some(node) = self.state.choosing.as_ref().and_then(|id| map.nodes.iter().find(|node| node.id == *id))
        else {
            return Vec::new();
        };
        let mut open = Vec::new();
        for option in &node.options {
            if option.when.as_ref().is_none_or(|when| core::truthy(self.value(when))) {
                open.push((node.id.clone(), option.id.clone()));
            }
        }
        open
    }

    /// Takes an option of the waiting node: the campaign goes on, then its rules run.
    pub(super) fn choose_option(&mut self, node: &Id<MapNode>, option: &str) {
        let map = self.map;
        let Some(chosen) = map
            .nodes
            .iter()
            .find(|known| known.id == *node)
            .and_then(|known| known.options.iter().find(|known| known.id == option))
        else {
            return;
        };
        self.state.choosing = None;
        self.events.push(Event::NodeOptionChosen { node: node.clone(), option: option.to_owned() });
        self.run_rules(&chosen.rules);
    }

    /// After a node's rules: its options that hold are offered and the campaign waits (none
    /// holding: nothing is offered).
    fn offer_options(&mut self, node: &MapNode) {
        if node.options.is_empty() || self.ended() {
            return;
        }
        self.state.choosing = Some(node.id.clone());
        let open: Vec<String> = self.open_options().into_iter().map(|(_, option)| option).collect();
        if open.is_empty() {
            self.state.choosing = None;
            return;
        }
        self.events.push(Event::NodeOptionsOffered { node: node.id.clone(), options: open });
    }

    /// What a node's kind does when the player enters it.
    fn enter(&mut self, node: &MapNode) {
        let map = self.map;
        let to = &node.id;
        match &node.kind {
            // A forge works once, then plays as a normal node.
            NodeKind::Forge if self.state.spent.contains(to) => {}
            NodeKind::Forge => {
                self.state.spent.insert(to.clone());
                self.run_rules(&node.rules);
            }
            NodeKind::Custom(kind) => {
                self.run_rules(&node.rules);
                if let Some(rules) = map.kind_rules.get(kind) {
                    self.run_rules(rules);
                }
            }
            NodeKind::Normal | NodeKind::Home | NodeKind::Anecdote | NodeKind::Safehouse => {
                self.run_rules(&node.rules);
            }
        }
    }

    /// Ends the phase; after the last one the day ends (patrols walk, the calendar and the era
    /// cycle move on) and the next day's first phase begins.
    pub(super) fn end_phase(&mut self) {
        let map = self.map;
        if self.state.phase.saturating_add(1) < map.phases.len() {
            self.state.phase = self.state.phase.saturating_add(1);
            self.begin_phase(false);
            return;
        }
        self.walk_patrols();
        if self.ended() {
            return;
        }
        self.return_discards();
        self.state.day = self.state.day.saturating_add(1);
        self.state.era_day = self.state.era_day.saturating_add(1);
        self.state.phase = 0;
        let content = self.content;
        let era = self.state.era.as_ref().and_then(|id| content.project.eras.get(id.as_str()));
        if let Some(era) = era {
            let length = self.value(&era.duration_turns);
            let length = if length.is_finite() && length >= 1.0 { length } else { 1.0 };
            if f64::from(self.state.era_day) > length {
                let next = era.next.clone().unwrap_or_else(|| era.id.clone());
                self.state.era = Some(next.clone());
                self.state.era_day = 1;
                self.events.push(Event::EraStarted { era: next });
                self.state.eras = self.state.eras.saturating_add(1);
                self.era_changed();
                self.roll_first_player();
            }
        }
        self.begin_phase(true);
    }

    /// Reports the phase and runs its rules (at dawn, the current era's rules first).
    pub(super) fn begin_phase(&mut self, new_day: bool) {
        let map = self.map;
        let content = self.content;
        self.events.push(Event::PhaseStarted { day: self.state.day, phase: self.state.phase_name(map).to_owned() });
        if new_day && let Some(era) = self.state.era.as_ref().and_then(|id| content.project.eras.get(id.as_str())) {
            self.run_rules(&era.rules);
        }
        if new_day && self.state.day > 1 {
            self.fallback_dawn();
            self.gather();
            self.state.raided.clear();
        }
        if let Some(phase) = map.phases.get(self.state.phase) {
            self.run_rules(&phase.rules);
        }
        // After the rules: a dawn rule that grants flow raises a hand limit that reads it.
        if self.in_draw_phase() && !self.ended() {
            self.draw_up();
        }
    }

    /// Every patrol steps to the next node of its route; a captured node it reaches whose
    /// `strength` is below the patrol's is retaken (never the start, a home or a safehouse).
    fn walk_patrols(&mut self) {
        let map = self.map;
        for patrol in &map.patrols {
            if patrol.route.is_empty() {
                continue;
            }
            let at = self.state.patrols.get(&patrol.id).copied().unwrap_or(0);
            let next = at.saturating_add(1).checked_rem(patrol.route.len()).unwrap_or(0);
            self.state.patrols.insert(patrol.id.clone(), next);
            let Some(node_id) = patrol.route.get(next) else { continue };
            self.events.push(Event::PatrolMoved { patrol: patrol.id.clone(), node: node_id.clone() });
            let Some(node) = map.nodes.iter().find(|node| node.id == *node_id) else { continue };
            let protected =
                matches!(node.kind, NodeKind::Home | NodeKind::Safehouse) || map.start.as_ref() == Some(node_id);
            if protected || !self.state.captured.contains(node_id) {
                continue;
            }
            let strength = node.properties.get("strength").map_or(0.0, |expr| self.value(expr));
            let patrol_strength = self.value(&patrol.strength);
            if strength < patrol_strength {
                self.state.captured.remove(node_id);
                self.state.retaken = self.state.retaken.saturating_add(1);
                self.events.push(Event::NodeRetaken { node: node_id.clone(), patrol: patrol.id.clone() });
                self.run_rules(&patrol.on_retake);
            }
        }
    }
}

impl<'a> Step<'a> {
    /// The meter the synthesis (and the removal of its stray cards) is paid from.
    pub(super) fn synthesis_stat(&self) -> Option<&'a Id<Stat>> {
        let map: &'a NodeMap = self.map;
        map.synthesis_cost_stat.as_ref().or(map.cost_stat.as_ref())
    }
}

/// Why a path cannot be taken now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    NoPath,
    Phase,
    Locked,
    BadCost,
    Credit,
    NoSynthesis,
    NotInHand,
    WrongInputs,
    NotPlayable,
    DrawPhase,
    NotDrawPhase,
    NoExtraDraws,
    NothingToDraw,
    NoDeck,
    SameDeck,
    NotDiscardPhase,
    NoSummon,
    NotACandidate,
    NoInsight,
    Choosing,
    NoRemoval,
    NotAFallback,
    NoBattle,
    NoFighter,
    NoTarget,
    InBattle,
    NeedsTarget,
    TakesNoTarget,
    BadTarget,
    NoStandIn,
    NoBond,
    NotBound,
    NoFailure,
    NotAnExtra,
    NoRaid,
    NotARaider,
    Raided,
}

impl Refusal {
    pub(super) fn words(self) -> &'static str {
        match self {
            Self::NoPath => "no path leads there from the player's node",
            Self::Phase => "the player cannot move during this phase",
            Self::Locked => "that path is locked (its unlock condition does not hold)",
            Self::BadCost => "the cost is not a number of 0 or more",
            Self::Credit => "paying that cost would go past the meter's credit limit",
            Self::NoSynthesis => "the map has no synthesis",
            Self::NotInHand => "the hand does not hold those cards",
            Self::WrongInputs => "those cards cannot be the synthesis's inputs (A first, then B)",
            Self::NotPlayable => "the card cycle says nothing about playing that card (no `plays` entry)",
            Self::DrawPhase => "no card is played during the draw phase",
            Self::NotDrawPhase => "that is only possible during the draw phase",
            Self::NoExtraDraws => "the card cycle has no extra draws (`extra_draw_cost` is 0)",
            Self::NothingToDraw => "the deck's pile and the discard pile are empty",
            Self::NoDeck => "the card cycle has no such deck",
            Self::SameDeck => "the draw already takes from that deck",
            Self::NotDiscardPhase => "cards are discarded from the hand only in the card cycle's discard phase",
            Self::NoSummon => "the map's synthesis has no insight summon (`insight_cost` is 0)",
            Self::NotACandidate => "that card is not a candidate of the synthesis (its `candidates` deck)",
            Self::NoInsight => "not enough insight",
            Self::Choosing => "the node just entered waits for a choice of its options",
            Self::NoRemoval => "the map's synthesis removes no card (`fallback_removal_cost` is 0)",
            Self::NotAFallback => "the hand holds no copy of that card drawn by the synthesis's uniform fallback",
            Self::NoBattle => "no battle is under way",
            Self::NoFighter => "no fighter of the player's stands by that name",
            Self::NoTarget => "no enemy fighter stands by that name",
            Self::InBattle => "a battle is under way: strike with a fighter",
            Self::NeedsTarget => "that card is played on a card of the hand (`play CARD on TARGET`)",
            Self::TakesNoTarget => "that card is not played on another card",
            Self::BadTarget => "the hand holds no such target with the aspect the play needs",
            Self::NoStandIn => "the map's synthesis has no stand-in for A (`stand_in`): B cannot be played alone",
            Self::NoBond => "the map's synthesis binds no cards (no `bond`)",
            Self::NotBound => "no such A and B are bound on the field",
            Self::NoFailure => "no synthesis has just failed",
            Self::NotAnExtra => "that card is not one of the synthesis's extras (its `extras` deck)",
            Self::NoRaid => "the map's battles have no raids (no `raid`)",
            Self::NotARaider => "the hand holds no such card with the raid's aspect",
            Self::Raided => "that card has raided today already",
        }
    }
}

/// The stored stats in declaration order (by `order`, then id) with their start values, kept
/// within their limits; a formula may read stats declared before it.
pub(super) fn start_meters(content: &Content, map: &NodeMap, state: &mut CampaignState, rng: &mut Pcg64Mcg) {
    let mut stats: Vec<&Stat> = content.project.stats.iter().filter(|stat| stat.value.is_stored()).collect();
    stats.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    let mut stored = std::mem::take(&mut state.meters);
    for stat in stats {
        let StatValue::Stored(expr) = &stat.value else { continue };
        let mut events = Vec::new();
        let mut step = Step {
            content,
            map,
            state,
            stored: &mut stored,
            rng,
            events: &mut events,
            work: crate::engine::core::StepWork::default(),
            synth: None,
            target: None,
        };
        let mut value = step.value(expr);
        if let Some(max) = &stat.max {
            value = value.min(step.value(max));
        }
        value = value.max(step.floor_of(stat));
        stored.insert(stat.id.clone(), value);
    }
    state.meters = stored;
}
