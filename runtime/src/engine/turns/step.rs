//! One turn step: options, the rule collection, stats, the deck and the hand.

use std::fmt::Write as _;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::model::{DeckId, DeckOp, Expr, FragmentRef, Id, RuleId, RuleModifier, RuleOp, Stat, TurnConfig};
use crate::number::show_value;

use super::env::TurnsEnv;
use super::{END_OF_HISTORY, Message, TURN_LIMIT, TurnsState};
use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::core::{self, Depth};
use crate::engine::table::Outcome;

/// One step of the turns system: content, state, generator, the session's outcome and the
/// events produced.
pub(super) struct Turns<'a> {
    pub(super) content: &'a Content,
    pub(super) state: &'a mut TurnsState,
    pub(super) rng: &'a mut Pcg64Mcg,
    pub(super) events: &'a mut Vec<Event>,
    /// Rule-collection changes requested while the collection runs, applied after it.
    pub(super) deferred: Option<Vec<RuleModifier>>,
    /// Messages of this turn, reported at its end.
    pub(super) messages: Vec<Message>,
    /// The rules run so far in this step (bounded).
    pub(super) work: crate::engine::core::StepWork,
}

impl Turns<'_> {
    fn env(&mut self) -> TurnsEnv<'_> {
        TurnsEnv {
            content: self.content,
            accessors: &self.content.accessors,
            stored: &self.state.stored,
            turn: self.state.turn,
            rng: &mut *self.rng,
            depth: 0,
            table: None,
        }
    }

    pub(super) fn value(&mut self, expr: &Expr) -> f64 {
        self.env().expr(expr)
    }

    pub(super) fn trace(&mut self, expr: &Expr) -> Option<crate::formula::FormulaTrace> {
        self.env().expr_trace(expr)
    }

    pub(super) fn stat_value(&mut self, id: &Id<Stat>) -> f64 {
        self.env().stat(id)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { core::below(self.rng.next_u64(), n) }
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for index in (1..items.len()).rev() {
            let other = self.below(index.saturating_add(1));
            items.swap(index, other);
        }
    }

    pub(super) fn ended(&self) -> bool {
        self.state.outcome.is_some()
    }

    pub(super) fn warn(&mut self, message: String) {
        self.state.warnings.push(message.clone());
        self.events.push(Event::TurnWarning(message));
    }

    pub(super) fn end_game(&mut self, outcome: Outcome) {
        if self.state.outcome.is_some() {
            return;
        }
        let text = match &outcome {
            Outcome::Ended(text) => text.clone(),
            Outcome::Stopped(text) => {
                self.events.push(Event::TurnError(text.clone()));
                text.clone()
            }
        };
        self.state.outcome = Some(outcome);
        self.events.push(Event::GameEnded { outcome: text });
    }

    /// Sets a stored stat, kept within its limits, and reports the change.
    pub(super) fn set_stat(&mut self, stat: &Stat, value: f64) {
        let mut value = value;
        if let Some(max) = &stat.max {
            let max = self.value(max);
            if value > max {
                value = max;
            }
        }
        if let Some(min) = &stat.min {
            let min = self.value(min);
            if value < min {
                value = min;
            }
        }
        let old = self.state.stored.insert(stat.id.clone(), value);
        if old.is_none_or(|old| old.to_bits() != value.to_bits()) {
            self.events.push(Event::StatChanged { stat: stat.id.clone(), value: show_value(value, stat.rounding) });
        }
    }

    /// Runs a rule through the rules core (FORMAT.md §13): when its requirements hold, performs
    /// its effects, reports its text and, if it asks to, leaves the collection.
    pub(super) fn run_rule(&mut self, id: &RuleId) -> bool {
        core::run_rule(self, id, &mut Depth(0))
    }

    /// `[stat_id]` in a message becomes the stat's shown value; other brackets stay.
    pub(super) fn substitute(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('[') {
            let (before, after) = rest.split_at(open);
            out.push_str(before);
            let inner = after.get(1..).unwrap_or_default();
            let Some(close) = inner.find(']') else {
                out.push_str(after);
                return out;
            };
            let name = inner.get(..close).unwrap_or_default();
            let content = self.content;
            match content.project.stats.get(name) {
                Some(stat) => {
                    let value = self.stat_value(&stat.id);
                    out.push_str(&show_value(value, stat.rounding));
                }
                None => {
                    let _ = write!(out, "[{name}]");
                }
            }
            rest = inner.get(close.saturating_add(1)..).unwrap_or_default();
        }
        out.push_str(rest);
        out
    }

    /// Adds or removes a rule now, or after the collection has run while it runs.
    pub(super) fn change_rules(&mut self, change: RuleModifier) {
        if let Some(deferred) = &mut self.deferred {
            deferred.push(change);
            return;
        }
        match change.op {
            RuleOp::Add if !self.state.rules.contains(&change.rule) => {
                self.state.rules.push(change.rule.clone());
                self.events.push(Event::TurnRuleAdded { rule: change.rule });
            }
            RuleOp::Remove if self.state.rules.contains(&change.rule) => {
                self.state.rules.retain(|rule| *rule != change.rule);
                self.events.push(Event::TurnRuleRemoved { rule: change.rule });
            }
            RuleOp::Add | RuleOp::Remove => {}
        }
    }

    /// A deck modifier in the turns system: `Add`/`AddFront` put a card into the draw pile,
    /// `Draw` draws the next card into the hand.
    pub(super) fn deck_modifier(&mut self, rule: &str, op: DeckOp, deck: Option<&DeckId>, card: Option<&FragmentRef>) {
        if deck != self.state.deck_id.as_ref() {
            self.warn(format!("rule `{rule}`: the deck modifier names a deck other than the turn config's draw deck"));
            return;
        }
        match (op, card) {
            (DeckOp::Add, Some(FragmentRef::Card(card))) => self.state.deck.push(card.clone()),
            (DeckOp::AddFront, Some(FragmentRef::Card(card))) => self.state.deck.insert(0, card.clone()),
            (DeckOp::Draw, _) => self.draw(),
            _ => self.warn(format!(
                "rule `{rule}`: in the turns system a deck modifier draws, or adds a card (`fragment: Card(\"…\")`)"
            )),
        }
    }

    /// Draws the next card of the pile into the hand (refilling a replenishing deck).
    fn draw(&mut self) {
        let content = self.content;
        let deck = self.state.deck_id.as_ref().and_then(|id| content.deck(id.as_str()));
        if self.state.deck.is_empty()
            && let Some(deck) = deck.filter(|deck| deck.replenish)
        {
            self.refill(deck);
        }
        if self.state.deck.is_empty() {
            return;
        }
        let at = if deck.is_some_and(|deck| deck.random) { self.below(self.state.deck.len()) } else { 0 };
        let card = if deck.is_some_and(|deck| deck.infinite) {
            self.state.deck.get(at).cloned()
        } else if at < self.state.deck.len() {
            Some(self.state.deck.remove(at))
        } else {
            None
        };
        if let Some(card) = card {
            self.state.hand.push(card.clone());
            self.events.push(Event::TurnCardDrawn { card });
        }
    }

    pub(super) fn refill(&mut self, deck: &crate::model::Deck) {
        self.state.deck.clone_from(&deck.fragments);
        if deck.shuffle {
            let pile = std::mem::take(&mut self.state.deck);
            self.state.deck = core::shuffle_deck(pile, deck.shuffle_mode, |n| self.below(n));
        }
    }

    /// Draws up to the hand limit; the game ends when hand and deck are both empty.
    pub(super) fn draw_up(&mut self, config: &TurnConfig) {
        let limit = self.value(&config.hand_limit);
        let limit = if limit.is_finite() { limit.max(0.0) as usize } else { 0 };
        let mut tries = 0;
        while self.state.hand.len() < limit && tries < limit {
            let before = self.state.hand.len();
            self.draw();
            if self.state.hand.len() == before {
                break;
            }
            tries = tries.saturating_add(1);
        }
        if self.state.hand.is_empty() && self.state.deck.is_empty() {
            self.end_game(Outcome::Ended(END_OF_HISTORY.to_owned()));
        }
    }

    /// The rule collection in running order: by step, equal steps shuffled with the seed.
    fn running_order(&mut self) -> Vec<RuleId> {
        let content = self.content;
        let step = |rule: &RuleId| content.rule(rule.as_str()).map_or(0, |rule| rule.step);
        let mut order = self.state.rules.clone();
        order.sort_by_key(|rule| step(rule));
        let mut start = 0;
        while start < order.len() {
            let first = order.get(start).map(&step);
            let len =
                order.get(start..).map_or(0, |rest| rest.iter().take_while(|rule| Some(step(rule)) == first).count());
            if let Some(run) = order.get_mut(start..start.saturating_add(len)) {
                self.shuffle(run);
            }
            start = start.saturating_add(len.max(1));
        }
        order
    }

    /// Steps 5–9: run the collection, apply its deferred changes, count the turn, draw, report.
    pub(super) fn finish_turn(&mut self, config: &TurnConfig) {
        if !self.ended() {
            self.deferred = Some(Vec::new());
            for rule in self.running_order() {
                if self.ended() {
                    break;
                }
                self.run_rule(&rule);
            }
            let changes = self.deferred.take().unwrap_or_default();
            for change in changes {
                self.change_rules(change);
            }
        }
        if !self.ended() {
            self.state.turn = self.state.turn.saturating_add(1);
            self.events.push(Event::TurnStarted { turn: self.state.turn });
            let last = config.max_turns.as_ref().map(|max| self.value(max));
            if last.is_some_and(|last| f64::from(self.state.turn) > last) {
                self.end_game(Outcome::Ended(TURN_LIMIT.to_owned()));
            } else {
                self.draw_up(config);
            }
        }
        self.report();
    }

    /// Step 9: the turn's messages are reported.
    fn report(&mut self) {
        let messages = std::mem::take(&mut self.messages);
        for message in &messages {
            self.events.push(Event::MessageShown(message.clone()));
        }
        self.state.messages = messages;
    }
}
