//! Cards: creating, copying, moving, destroying and transforming them (§2.11).

use super::{Engine, MAX_CARD_NESTING, MAX_CARDS_CREATED_PER_STEP, MAX_CARDS_IN_PLAY, remove_first};

use crate::engine::Event;
use crate::engine::table::rules::RuleContext;
use crate::engine::table::{CardInstance, CardKey, Decay, Fragment, Holder, Place};
use crate::model::{CardId, FragmentCount, FragmentRef};

impl Engine<'_> {
    /// Creates a card of `card_type` at `place` (§2.11.1); none when it is unique and exists.
    pub fn create_card(&mut self, card_type: &CardId, place: Place) -> Option<CardKey> {
        self.create_nested(card_type, place, 0)
    }

    /// Whether one more card may be created in this step; the first refusal warns.
    fn may_create(&mut self) -> bool {
        let in_play = self.state.cards.len();
        if self.created < MAX_CARDS_CREATED_PER_STEP && in_play < MAX_CARDS_IN_PLAY {
            return true;
        }
        if !self.creation_cut {
            self.creation_cut = true;
            self.warn(format!(
                "no more cards are created in this step: {} were created in it and {in_play} are in play (at most \
                 {MAX_CARDS_CREATED_PER_STEP} a step and {MAX_CARDS_IN_PLAY} in play)",
                self.created
            ));
        }
        false
    }

    /// [`Self::create_card`] for a card created inside `depth` others.
    fn create_nested(&mut self, card_type: &CardId, place: Place, depth: usize) -> Option<CardKey> {
        if !self.may_create() {
            return None;
        }
        let content = self.content;
        let Some(card) = content.card(card_type.as_str()) else {
            self.warn(format!("there is no card `{card_type}`"));
            return None;
        };
        if card.unique && self.state.cards.values().any(|existing| existing.card == *card_type) {
            return None;
        }
        let key = CardKey(self.state.next_card);
        let Some(next) = self.state.next_card.checked_add(1) else {
            self.warn("no more cards can be created: every card key has been used");
            return None;
        };
        self.state.next_card = next;
        self.created = self.created.saturating_add(1);
        // The content's own id: every instance of a type then shares one text, and comparing
        // types is a pointer comparison.
        let card_type = &card.id;
        let mut instance = CardInstance {
            card: card_type.clone(),
            aspects: crate::engine::table::AspectCounts::default(),
            children: Vec::new(),
            place,
            memory: Some(Fragment::Card(card_type.clone())),
            free: true,
            face_down: false,
            decay: None,
            mutator: None,
        };
        let mut sub_cards = Vec::new();
        // Counts are read where the card is created (its window, parent card or the table).
        let here = RuleContext::new(place.holder(), 0);
        for FragmentCount { fragment, count } in &card.fragments {
            let count = self.number(count, &here).max(0);
            match fragment {
                FragmentRef::Aspect(aspect) => instance.aspects.adjust(content.canonical_aspect(aspect), count),
                FragmentRef::Card(sub) => sub_cards.push((sub.clone(), count)),
                _ => {}
            }
        }
        if card.memory_from_first
            && let Some(first) = card.fragments.iter().find_map(|entry| match &entry.fragment {
                FragmentRef::Aspect(aspect) => Some(aspect.clone()),
                _ => None,
            })
        {
            instance.memory = Some(Fragment::Aspect(first));
        }
        self.state.cards.insert(key, instance);
        let lifetime = self.lifetime(card, key);
        if lifetime > 0
            && let Some(instance) = self.state.cards.get_mut(&key)
        {
            instance.decay =
                Some(Decay { into: card.decay_to.clone(), remaining: lifetime.saturating_add(content.shrink_ticks) });
        }
        self.attach(key, place);
        self.events.push(Event::CardCreated { card: key, card_type: card_type.clone() });
        if depth >= MAX_CARD_NESTING && !sub_cards.is_empty() {
            self.warn(format!(
                "cards of `{card_type}` nest more than {MAX_CARD_NESTING} deep; the inner ones are not created"
            ));
            sub_cards.clear();
        }
        for (sub, count) in sub_cards {
            for _ in 0..count {
                let Some(child) = self.create_nested(&sub, Place::InCard(key), depth.saturating_add(1)) else { break };
                self.set_free(child, false);
            }
        }
        Some(key)
    }

    /// A copy of a card (same type, local aspects and memory; §2.11.2) at `place`.
    pub(crate) fn duplicate(&mut self, key: CardKey, place: Place) -> Option<CardKey> {
        if !self.may_create() {
            return None;
        }
        let original = self.state.card(key)?.clone();
        let copy = self.create_card(&original.card, place)?;
        let sub_cards = self.state.card(copy).map(|card| card.children.clone()).unwrap_or_default();
        for child in sub_cards {
            self.destroy(child);
        }
        if let Some(card) = self.state.cards.get_mut(&copy) {
            card.aspects = original.aspects;
            card.memory = original.memory;
        }
        Some(copy)
    }

    pub(crate) fn set_free(&mut self, key: CardKey, free: bool) {
        if let Some(card) = self.state.cards.get_mut(&key) {
            card.free = free;
        }
    }

    /// Puts a detached card at `place`.
    fn attach(&mut self, key: CardKey, place: Place) {
        let Some(card) = self.state.cards.get_mut(&key) else { return };
        card.place = place;
        match place {
            Place::Table => self.state.table.push(key),
            Place::Slot(token, at) => {
                if let Some(open) =
                    self.state.windows.get_mut(&token).and_then(|w| w.places.get_mut(at)).and_then(Option::as_mut)
                {
                    open.card = Some(key);
                }
            }
            Place::Consumed(token) => {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    window.consumed.push(key);
                }
            }
            Place::Lane(token) => {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    window.lane.push(key);
                }
            }
            Place::InCard(parent) => {
                if let Some(card) = self.state.cards.get_mut(&parent) {
                    card.children.push(key);
                }
            }
        }
        self.touch_at(place);
    }

    /// Takes a card out of wherever it is (it stays in the world, placeless until attached).
    pub(crate) fn detach(&mut self, key: CardKey) {
        let Some(place) = self.state.card(key).map(|card| card.place) else { return };
        self.touch_at(place);
        match place {
            Place::Table => remove_first(&mut self.state.table, key),
            Place::Slot(token, at) => {
                if let Some(open) =
                    self.state.windows.get_mut(&token).and_then(|w| w.places.get_mut(at)).and_then(Option::as_mut)
                    && open.card == Some(key)
                {
                    open.card = None;
                }
            }
            Place::Consumed(token) => {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    remove_first(&mut window.consumed, key);
                }
            }
            Place::Lane(token) => {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    remove_first(&mut window.lane, key);
                }
            }
            Place::InCard(parent) => {
                if let Some(card) = self.state.cards.get_mut(&parent) {
                    remove_first(&mut card.children, key);
                }
            }
        }
    }

    /// Moves a card to `place`.
    pub(crate) fn move_card(&mut self, key: CardKey, place: Place) {
        self.detach(key);
        self.attach(key, place);
    }

    /// Removes a card and its sub-cards from the world.
    pub fn destroy(&mut self, key: CardKey) {
        if !self.state.cards.contains_key(&key) {
            return;
        }
        self.detach(key);
        for sub in self.state.cards_of(Holder::Card(key)) {
            if let Some(card) = self.state.cards.remove(&sub) {
                self.events.push(Event::CardDestroyed { card: sub, card_type: card.card });
            }
        }
    }

    /// The lifetime in ticks of card `key` as a `card` (0: it never decays), its formula
    /// read in the card's own context, as decay rules are.
    pub(crate) fn lifetime(&mut self, card: &crate::model::Card, key: CardKey) -> u64 {
        let ctx = RuleContext::new(Holder::Card(key), 0);
        self.number(&card.lifetime_ticks, &ctx).max(0) as u64
    }

    /// Turns a card into another type, keeping its aspects and sub-cards (§2.11.4); into a
    /// mutator type, the card keeps its type and shows the mutator's status until it ends.
    pub(crate) fn transform(&mut self, key: CardKey, into: &CardId) {
        let Some(new_type) = self.content.card(into.as_str()) else {
            self.warn(format!("there is no card `{into}` to transform into"));
            return;
        };
        if crate::engine::table::mutator_text(&new_type.label).is_some() {
            // The mutator's lifetime is read on the card it marks.
            let lifetime = self.lifetime(new_type, key);
            // §2.11.5: the card "decays into its own type" after the mutator's lifetime, which
            // ends the status (the transform back below).
            let shrink = self.content.shrink_ticks;
            let Some(card) = self.state.cards.get_mut(&key) else { return };
            card.mutator = Some(new_type.id.clone());
            card.decay = Some(Decay { into: Some(card.card.clone()), remaining: lifetime.saturating_add(shrink) });
            self.events.push(Event::CardMutated { card: key, mutator: Some(new_type.id.clone()) });
            self.touch(key);
            return;
        }
        let into = &new_type.id;
        let Some(card) = self.state.cards.get_mut(&key) else { return };
        let ended_mutator = card.mutator.take().is_some();
        let from = std::mem::replace(&mut card.card, into.clone());
        // The new type's lifetime is read on the card as it now is.
        let lifetime = self.lifetime(new_type, key);
        let decay = (lifetime > 0).then(|| Decay {
            into: new_type.decay_to.clone(),
            remaining: lifetime.saturating_add(self.content.shrink_ticks),
        });
        let Some(card) = self.state.cards.get_mut(&key) else { return };
        card.decay = decay;
        if ended_mutator && from == *into {
            // A mutator ended: the card is back to its own type and plain label.
            self.events.push(Event::CardMutated { card: key, mutator: None });
        } else {
            self.events.push(Event::CardTransformed { card: key, from, to: into.clone() });
        }
        self.touch(key);
    }

    /// Adds `count` (may be negative) to a holder's own aspect, never below 0.
    pub(crate) fn adjust_aspect(&mut self, holder: Holder, aspect: &crate::model::AspectId, count: i64) {
        let counts = match holder {
            Holder::Window(token) => self.state.windows.get_mut(&token).map(|window| &mut window.aspects),
            Holder::Card(key) => self.state.cards.get_mut(&key).map(|card| &mut card.aspects),
            _ => None,
        };
        if let Some(counts) = counts {
            counts.adjust(self.content.canonical_aspect(aspect), count);
        }
        match holder {
            Holder::Window(token) => self.mark(token),
            Holder::Card(key) => self.touch(key),
            _ => {}
        }
    }
}
