//! The campaign's card cycle (FORMAT.md §14 "Cards"; `spec/era-synthesis.md` §5): decks cut at a
//! random third, the draw up to the hand limit at the start of the draw phase, extra draws for
//! a cost, upright and reversed cards played for a cost onto the discard pile, which is shuffled
//! back in part when a pile runs out, and cards discarded from the hand, which go back to their
//! decks at the end of the day.

use rand_core::Rng as _;

use crate::model::{CampaignDeck, CardId, CardPlay, Id, NodeMap, Stat};

use super::env::unit;
use super::step::{Refusal, Step};
use crate::engine::Event;
use crate::number::show_value;

/// Most cards one draw takes, however large the hand limit (a content typo must not stall).
const MAX_DRAW: usize = 200;

impl<'a> Step<'a> {
    /// The meter card plays and extra draws are paid from: the cycle's, else the map's.
    fn card_cost_stat(&self) -> Option<&'a Id<Stat>> {
        let map: &'a NodeMap = self.map;
        map.cards.cost_stat.as_ref().or(map.cost_stat.as_ref())
    }

    /// The deck of the current era: the first whose `eras` lists it, else one for every era.
    fn era_deck(&self) -> Option<&CampaignDeck> {
        let decks = &self.map.cards.decks;
        let era = self.state.era.as_ref();
        decks
            .iter()
            .find(|deck| era.is_some_and(|era| deck.eras.contains(era)))
            .or_else(|| decks.iter().find(|deck| deck.eras.is_empty()))
    }

    /// Whether drawing from `deck` now is off-era (the deck lists eras, not the current one).
    fn off_era(&self, deck: &CampaignDeck) -> bool {
        !deck.eras.is_empty() && self.state.era.as_ref().is_none_or(|era| !deck.eras.contains(era))
    }

    /// Fills every deck's pile (cut at a random third when the deck says so) and picks the
    /// era's deck; nothing when the map has no decks.
    pub(super) fn start_cards(&mut self) {
        let map = self.map;
        for deck in &map.cards.decks {
            let mut pile = deck.cards.clone();
            if deck.start_at_third && !pile.is_empty() {
                let third = usize::try_from(self.rng.next_u64() % 3).unwrap_or(0);
                let cut = third.saturating_mul(pile.len()) / 3;
                pile.rotate_left(cut);
            }
            self.state.piles.insert(deck.id.clone(), pile);
        }
        self.state.deck = self.era_deck().or_else(|| map.cards.decks.first()).map(|deck| deck.id.clone());
    }

    /// At a new era: its deck becomes the one drawn from (when it has one).
    pub(super) fn era_changed(&mut self) {
        if let Some(deck) = self.era_deck() {
            self.state.deck = Some(deck.id.clone());
        }
    }

    /// Whether the current phase is the card cycle's draw phase.
    pub(super) fn in_draw_phase(&self) -> bool {
        let cards = &self.map.cards;
        if cards.decks.is_empty() {
            return false;
        }
        match &cards.draw_phase {
            Some(name) => self.state.phase_name(self.map) == name,
            None => self.state.phase == 0,
        }
    }

    /// At the start of the draw phase: draws up to the hand limit from the chosen deck.
    pub(super) fn draw_up(&mut self) {
        let limit = self.value(&self.map.cards.hand_limit);
        if !limit.is_finite() {
            self.warn(format!(
                "the hand limit `{}` is not a number: nothing is drawn",
                self.map.cards.hand_limit.text()
            ));
            return;
        }
        let missing = (limit.floor() - self.state.hand.len() as f64).clamp(0.0, MAX_DRAW as f64) as usize;
        if missing > 0 {
            self.draw(missing);
        }
    }

    /// Draws `count` cards from the chosen deck (its off-era rules first), shuffling part of
    /// the discard pile back in when its pile runs out; stops when nothing is left to draw.
    pub(super) fn draw(&mut self, count: usize) {
        let cards = &self.map.cards;
        let Some(deck) = self.state.deck.as_ref().and_then(|id| cards.decks.iter().find(|deck| deck.id == *id)) else {
            return;
        };
        if self.off_era(deck) {
            self.run_rules(&cards.off_era);
        }
        for _ in 0..count {
            if self.state.piles.get(&deck.id).is_none_or(Vec::is_empty) && !self.reshuffle(&deck.id) {
                break;
            }
            let Some(card) =
                self.state.piles.get_mut(&deck.id).filter(|pile| !pile.is_empty()).map(|pile| pile.remove(0))
            else {
                break;
            };
            let chance = self.value(&cards.reversed_chance);
            let reversed = chance > 0.0 && unit(self.rng) < chance;
            self.state.hand.push(card.clone());
            if reversed {
                let count = self.state.reversed.entry(card.clone()).or_insert(0);
                *count = count.saturating_add(1);
            }
            self.events.push(Event::CardDrawn { card, reversed, deck: deck.id.clone() });
        }
    }

    /// The pile of `deck` is empty: the `on_empty` rules run, then a share of the discard pile
    /// (picked at random) is shuffled into it. False when there was nothing to shuffle back.
    fn reshuffle(&mut self, deck: &str) -> bool {
        if self.state.discard.is_empty() {
            return false;
        }
        let cards = &self.map.cards;
        self.run_rules(&cards.on_empty);
        let share = self.value(&cards.reshuffle_share);
        let share = if share.is_finite() { share.clamp(0.0, 1.0) } else { 0.5 };
        let total = self.state.discard.len();
        let back = ((total as f64 * share).round() as usize).clamp(1, total);
        let mut taken = Vec::with_capacity(back);
        for _ in 0..back {
            let left = self.state.discard.len() as u64;
            let at = usize::try_from(self.rng.next_u64().checked_rem(left).unwrap_or(0)).unwrap_or(0);
            if at < self.state.discard.len() {
                taken.push(self.state.discard.remove(at));
            }
        }
        let returned = u32::try_from(taken.len()).unwrap_or(u32::MAX);
        self.state.piles.entry(deck.to_owned()).or_default().extend(taken);
        self.events.push(Event::PileReshuffled { deck: deck.to_owned(), cards: returned });
        true
    }

    /// Whether the hand holds a reversed (`reversed`) or an upright copy of `card`.
    fn holds(&self, card: &CardId, reversed: bool) -> bool {
        let held = self.state.hand.iter().filter(|held| *held == card).count();
        let flipped = self.state.reversed.get(card).copied().unwrap_or(0) as usize;
        if reversed { flipped > 0 } else { held > flipped }
    }

    /// Takes one copy of `card` out of the hand: a reversed one when `reversed`, else an
    /// upright one (a reversed one only when no upright copy is left). False when none is held.
    pub(super) fn take_from_hand(&mut self, card: &CardId, reversed: bool) -> bool {
        let held = self.state.hand.iter().filter(|held| *held == card).count();
        let flipped = self.state.reversed.get(card).copied().unwrap_or(0) as usize;
        let take_reversed = reversed || held <= flipped;
        if held == 0 || (reversed && flipped == 0) {
            return false;
        }
        if let Some(at) = self.state.hand.iter().position(|held| held == card) {
            self.state.hand.remove(at);
        }
        if take_reversed && let Some(count) = self.state.reversed.get_mut(card) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                self.state.reversed.remove(card);
            }
        }
        self.unmark_fallback(card, false);
        true
    }

    /// Puts a card played (or used up by a synthesis) on the discard pile (only with a card cycle).
    pub(super) fn discard(&mut self, card: CardId) {
        if !self.map.cards.decks.is_empty() {
            self.state.discard.push(card);
        }
    }

    /// What playing `card` (`reversed` or not, on `target` or not) costs now, or why it cannot
    /// be played.
    pub(super) fn play_cost(&mut self, card: &CardId, reversed: bool, target: Option<&CardId>) -> Result<f64, Refusal> {
        let play = self.map.cards.plays.iter().find(|play| play.card == *card).ok_or(Refusal::NotPlayable)?;
        if self.in_draw_phase() {
            return Err(Refusal::DrawPhase);
        }
        if !self.holds(card, reversed) {
            return Err(Refusal::NotInHand);
        }
        match (&play.target, target) {
            (Some(_), None) => return Err(Refusal::NeedsTarget),
            (None, Some(_)) => return Err(Refusal::TakesNoTarget),
            (Some(aspect), Some(target)) => {
                let held = self.state.hand.iter().filter(|held| *held == target).count();
                if held < if target == card { 2 } else { 1 } || !self.fits(target, Some(aspect)) {
                    return Err(Refusal::BadTarget);
                }
            }
            (None, None) => {}
        }
        let cost = self.value(&play.cost);
        self.affordable_from(self.card_cost_stat(), cost)
    }

    /// Plays a card: pays, takes it from the hand to the discard pile, runs its rules (their
    /// hand modifiers' `Target` is `target`).
    pub(super) fn play(&mut self, card: &CardId, reversed: bool, target: Option<&CardId>, cost: f64) {
        let Some(play) = self.map.cards.plays.iter().find(|play| play.card == *card) else { return };
        self.pay_from(self.card_cost_stat(), cost);
        self.take_from_hand(card, reversed);
        self.discard(card.clone());
        self.events.push(Event::CardPlayed { card: card.clone(), reversed, cost: show_value(cost, None) });
        let rules = rules_of(play, reversed);
        self.target = target.cloned();
        self.run_rules(rules);
        self.target = None;
    }

    /// The cards of the hand a play of `card` may name (none when it names no card).
    pub(super) fn play_targets(&self, card: &CardId) -> Vec<CardId> {
        let Some(aspect) =
            self.map.cards.plays.iter().find(|play| play.card == *card).and_then(|play| play.target.as_ref())
        else {
            return Vec::new();
        };
        let mut out: Vec<CardId> = Vec::new();
        for held in &self.state.hand {
            if !out.contains(held) && self.fits(held, Some(aspect)) {
                out.push(held.clone());
            }
        }
        out
    }

    /// What one more card costs now, or why none can be drawn.
    pub(super) fn extra_draw_cost(&mut self) -> Result<f64, Refusal> {
        let cards = &self.map.cards;
        if cards.extra_draw_cost.is_zero() {
            return Err(Refusal::NoExtraDraws);
        }
        if !self.in_draw_phase() {
            return Err(Refusal::NotDrawPhase);
        }
        let pile_empty = self.state.deck.as_ref().and_then(|deck| self.state.piles.get(deck)).is_none_or(Vec::is_empty);
        if pile_empty && self.state.discard.is_empty() {
            return Err(Refusal::NothingToDraw);
        }
        let cost = self.value(&cards.extra_draw_cost);
        self.affordable_from(self.card_cost_stat(), cost)
    }

    /// Pays for and draws one more card.
    pub(super) fn draw_extra(&mut self, cost: f64) {
        self.pay_from(self.card_cost_stat(), cost);
        self.draw(1);
    }

    /// Whether the player may switch the draw to `deck` now.
    pub(super) fn deck_choice(&self, deck: &str) -> Result<(), Refusal> {
        if !self.map.cards.decks.iter().any(|known| known.id == deck) {
            return Err(Refusal::NoDeck);
        }
        if !self.in_draw_phase() {
            return Err(Refusal::NotDrawPhase);
        }
        if self.state.deck.as_deref() == Some(deck) {
            return Err(Refusal::SameDeck);
        }
        Ok(())
    }

    /// Whether the player may discard a copy of `card` (`reversed` or not) from the hand now.
    pub(super) fn discard_choice(&self, card: &CardId, reversed: bool) -> Result<(), Refusal> {
        let cards = &self.map.cards;
        if cards.decks.is_empty() {
            return Err(Refusal::NoDeck);
        }
        let allowed = match &cards.discard_phase {
            Some(name) => self.state.phase_name(self.map) == name,
            None => !self.in_draw_phase(),
        };
        if !allowed {
            return Err(Refusal::NotDiscardPhase);
        }
        if !self.holds(card, reversed) {
            return Err(Refusal::NotInHand);
        }
        Ok(())
    }

    /// Discards a card from the hand: it goes back to its deck at the end of the day.
    pub(super) fn discard_from_hand(&mut self, card: &CardId, reversed: bool) {
        if self.take_from_hand(card, reversed) {
            self.state.returning.push(card.clone());
            self.events.push(Event::CardDiscarded { card: card.clone() });
        }
    }

    /// At the end of the day: the cards discarded from the hand go back to each one's deck (the
    /// first that lists it), to the bottom for a card with the bottom aspect, else to the top
    /// (the last discarded ends on top); cards of no deck leave the game. Cards played stay on
    /// the discard pile.
    pub(super) fn return_discards(&mut self) {
        if self.state.returning.is_empty() {
            return;
        }
        let cards = &self.map.cards;
        let mut returned = 0u32;
        for card in std::mem::take(&mut self.state.returning) {
            let Some(deck) = cards.decks.iter().find(|deck| deck.cards.contains(&card)) else { continue };
            let bottom = cards.bottom_aspect.is_some() && self.fits(&card, cards.bottom_aspect.as_ref());
            let pile = self.state.piles.entry(deck.id.clone()).or_default();
            if bottom {
                pile.push(card);
            } else {
                pile.insert(0, card);
            }
            returned = returned.saturating_add(1);
        }
        self.events.push(Event::DiscardsReturned { cards: returned });
    }
}

/// The rules a play runs: the reversed ones when played reversed and it has some.
fn rules_of(play: &CardPlay, reversed: bool) -> &[crate::model::RuleId] {
    if reversed && !play.reversed.is_empty() { &play.reversed } else { &play.upright }
}
