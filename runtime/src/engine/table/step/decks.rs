//! Decks: filling, drawing and deck modifiers (§2.12).

use super::Engine;

use crate::engine::table::rules::Target;
use crate::engine::table::{Fragment, Holder, Place};
use crate::model::{CardId, DeckOp, FragmentCount, FragmentRef};

impl Engine<'_> {
    fn fill(&mut self, deck: &crate::model::DeckId) -> Vec<CardId> {
        let Some(definition) = self.content.deck(deck.as_str()) else { return Vec::new() };
        let entries = definition.fragments.clone();
        if definition.shuffle {
            crate::engine::core::shuffle_deck(entries, definition.shuffle_mode, |n| self.below(n))
        } else {
            entries
        }
    }

    /// Draws from a deck (§2.12).
    fn draw(&mut self, deck: &crate::model::DeckId) -> Option<CardId> {
        let definition = self.content.deck(deck.as_str())?;
        if !self.state.decks.contains_key(deck) {
            let filled = self.fill(deck);
            self.state.decks.insert(deck.clone(), filled);
        }
        if self.state.decks.get(deck).is_some_and(Vec::is_empty) && definition.replenish {
            let filled = self.fill(deck);
            self.state.decks.insert(deck.clone(), filled);
        }
        let remaining_len = self.state.decks.get(deck).map_or(0, Vec::len);
        if remaining_len == 0 {
            return definition.default_fragment.clone();
        }
        let at = if definition.random { self.below(remaining_len) } else { 0 };
        let remaining = self.state.decks.get_mut(deck)?;
        if definition.infinite { remaining.get(at).cloned() } else { Some(remaining.remove(at)) }
    }

    /// Draws the entry at an offset from the first `card_type` (DrawNext/DrawPrevious).
    fn draw_at_offset(&mut self, deck: &crate::model::DeckId, card_type: &CardId, offset: isize) -> Option<CardId> {
        let infinite = self.content.deck(deck.as_str())?.infinite;
        if !self.state.decks.contains_key(deck) {
            let filled = self.fill(deck);
            self.state.decks.insert(deck.clone(), filled);
        }
        let remaining = self.state.decks.get_mut(deck)?;
        let found = remaining.iter().position(|entry| entry == card_type)?;
        let at = found.checked_add_signed(offset)?;
        if at >= remaining.len() {
            return None;
        }
        if infinite { remaining.get(at).cloned() } else { Some(remaining.remove(at)) }
    }

    /// Creates a drawn card in the scope: face down, tagged, with the deck's memory.
    fn create_drawn(&mut self, deck: &crate::model::DeckId, card_type: &CardId, scope: Holder) {
        let content = self.content;
        let place = match scope {
            Holder::Window(token) => Place::Consumed(token),
            Holder::Card(key) => Place::InCard(key),
            _ => return,
        };
        let Some(key) = self.create_card(card_type, place) else { return };
        self.set_free(key, false);
        let Some(definition) = content.deck(deck.as_str()) else { return };
        if let Some(card) = self.state.cards.get_mut(&key) {
            card.face_down = true;
        }
        for tag in &definition.tag_on {
            self.add_fragment(Holder::Card(key), &FragmentCount::new(tag.clone(), 1), 1);
        }
        if let Some(memory) = &definition.memory_fragment {
            let memory = match memory {
                FragmentRef::Aspect(id) => Some(Fragment::Aspect(id.clone())),
                FragmentRef::Card(id) => Some(Fragment::Card(id.clone())),
                _ => None,
            };
            if let Some(card) = self.state.cards.get_mut(&key) {
                card.memory = memory;
            }
        }
    }

    pub(crate) fn perform_deck(&mut self, op: DeckOp, deck: &crate::model::DeckId, target: &Target, scope: Holder) {
        let content = self.content;
        let targets: Vec<CardId> = match target {
            Target::Fragment(Fragment::Card(card_type)) => vec![card_type.clone()],
            Target::Cards(cards) => cards.iter().filter_map(|key| self.type_of(*key)).collect(),
            _ => Vec::new(),
        };
        match op {
            DeckOp::Draw => {
                // A unique card that exists is drawn again, three draws at most.
                for _ in 0..3 {
                    let Some(card_type) = self.draw(deck) else { return };
                    let unique = content.card(card_type.as_str()).is_some_and(|c| c.unique);
                    if unique && self.state.cards.values().any(|c| c.card == card_type) {
                        continue;
                    }
                    self.create_drawn(deck, &card_type, scope);
                    return;
                }
            }
            DeckOp::DrawNext | DeckOp::DrawPrevious => {
                let offset = if op == DeckOp::DrawNext { 1 } else { -1 };
                for card_type in targets {
                    if let Some(drawn) = self.draw_at_offset(deck, &card_type, offset) {
                        self.create_drawn(deck, &drawn, scope);
                    }
                }
            }
            DeckOp::Add | DeckOp::AddFront => {
                if !self.state.decks.contains_key(deck) {
                    let filled = self.fill(deck);
                    self.state.decks.insert(deck.clone(), filled);
                }
                if let Some(remaining) = self.state.decks.get_mut(deck) {
                    for card_type in targets {
                        if op == DeckOp::Add {
                            remaining.push(card_type);
                        } else {
                            remaining.insert(0, card_type);
                        }
                    }
                }
            }
            DeckOp::ForwardShift => match target {
                Target::Fragment(fragment) => self.forward_shift(deck, fragment, scope),
                // A card list shifts as each listed card's type would (§2.7.5), the types
                // taken before any card is shifted.
                Target::Cards(_) => {
                    for card_type in targets {
                        self.forward_shift(deck, &Fragment::Card(card_type), scope);
                    }
                }
                Target::None => {}
            },
        }
    }

    /// ForwardShift (§2.7.5): every card in the scope matching `fragment` becomes the deck's
    /// entry after its own type, drawn as DrawNext draws.
    fn forward_shift(&mut self, deck: &crate::model::DeckId, fragment: &Fragment, scope: Holder) {
        for key in self.state.cards_of(scope) {
            if !self.holds(key, fragment) {
                continue;
            }
            let Some(own) = self.type_of(key) else { continue };
            if let Some(next) = self.draw_at_offset(deck, &own, 1) {
                self.transform(key, &next);
            }
        }
    }
}
