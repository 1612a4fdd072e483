//! Listing the table's choices for [`Session::choices`]: which cards the player could move
//! into which slot places, besides starts, collects, closes, unslots and flips.
//!
//! A table can hold a hundred cards and few open places, and from one step to the next only
//! a few cards change. A [`ListingCache`] keeps what each card is (movable, face down) and
//! files the movable cards without sub-cards under classes that share a type and aspects;
//! acceptance by counts is the same for a whole class (20 cakes are two classes), so a place
//! asks each class once (the answer is kept too) and then lists only the cards of the
//! classes it accepts. Between listings the cache redoes only the cards the state logged as
//! changed ([`Cards::changed_since`]).
//!
//! The random player lists the same choices into a [`TableListing`], which keeps each
//! place's slot choices as the cards it accepts, and builds only the choice it draws.

use std::mem::ManuallyDrop;
use std::sync::{Mutex, PoisonError};

use rand_pcg::Pcg64Mcg;

use super::step::{self, Engine};
use super::{CardInstance, CardKey, Cards, Place, Status, TableState, TokenKey};
use crate::engine::{Choice, Session};
use crate::model::Slot;

/// Which cards [`Session::choices_where`] considers moving into slots.
#[derive(Clone, Copy)]
pub(crate) enum Moving {
    /// Every card.
    All,
    /// This card only (checking a slot choice).
    Only(CardKey),
    /// No card (choices that move none).
    None,
}

/// No class: the card holds sub-cards (or cannot move).
const NO_CLASS: u32 = u32::MAX;
/// Most classes kept before the cache starts over (a long game that keeps making new kinds of
/// cards must not grow it without end).
const MOST_KEPT_CLASSES: usize = 1024;

/// What a listing found a card to be.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Sort {
    /// Free and in play: it could move into a slot.
    movable: bool,
    /// Face down and in play: it could be flipped.
    flippable: bool,
    /// Its kept class (`NO_CLASS`: it holds sub-cards, or cannot move).
    class: u32,
}

/// What listing choices worked out, kept between listings of one session (see the module).
/// Not part of the state: a copied session starts with an empty one.
#[derive(Default)]
pub(crate) struct ListingCache(Mutex<Kept>);

impl Clone for ListingCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for ListingCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ListingCache")
    }
}

/// The contents of a [`ListingCache`].
#[derive(Default)]
struct Kept {
    /// Where the state's change log stood when this was brought up to date; none: never.
    seen: Option<(u64, u64)>,
    /// Every card, in key order, with what it is.
    sorts: Vec<(CardKey, Sort)>,
    /// The classes met, each with its movable cards in key order.
    classes: Vec<KeptClass>,
    /// The movable cards that hold sub-cards, in key order: acceptance counts the sub-cards,
    /// so each is asked alone.
    with_sub_cards: Vec<CardKey>,
    /// The cards that could be flipped, in key order.
    flippable: Vec<CardKey>,
    /// Per class, whether the slot [`Kept::accepted`] asks about takes it (a buffer kept
    /// between listings).
    taken: Vec<bool>,
    /// The cards a place accepts by counts (a buffer kept between listings).
    accepted: Vec<CardKey>,
}

/// A class of cards in [`Kept`].
struct KeptClass {
    /// The address of its type's id text. Ids copied from the content share it; a card whose
    /// ids were built apart only gets a class of its own (a miss, never a wrong answer).
    type_at: usize,
    /// A copy of a card of the class, for acceptance by counts.
    card: CardInstance,
    /// The slots (by address in the content) that accept or refuse it by counts.
    accepts: Vec<(usize, bool)>,
    /// Its movable cards, in key order.
    members: Vec<CardKey>,
}

/// Adds `key` to a list in key order (new cards have the greatest keys: usually at the end).
fn file(list: &mut Vec<CardKey>, key: CardKey) {
    if list.last().is_none_or(|last| *last < key) {
        list.push(key);
    } else if let Err(at) = list.binary_search(&key) {
        list.insert(at, key);
    }
}

/// Removes `key` from a list in key order.
fn unfile(list: &mut Vec<CardKey>, key: CardKey) {
    if let Ok(at) = list.binary_search(&key) {
        list.remove(at);
    }
}

impl Kept {
    /// Brings the cache up to date with `cards`: the changed cards only, or all of them.
    fn sync(&mut self, cards: &Cards) {
        if let Some(changed) = self.seen.and_then(|seen| cards.changed_since(seen)) {
            // A card changed several times in a step is sorted once.
            let mut changed = changed.to_vec();
            changed.sort_unstable();
            changed.dedup();
            for key in changed {
                self.update(key, cards.get(&key));
            }
        } else {
            let classes = std::mem::take(&mut self.classes);
            *self = Self::default();
            // Classes (and what accepts them) stay valid: they depend on the content only.
            self.classes = classes;
            self.classes.iter_mut().for_each(|class| class.members.clear());
            for (key, card) in cards {
                let sort = self.sort(card);
                self.sorts.push((*key, sort));
                self.add(*key, sort);
            }
        }
        self.seen = Some(cards.changes_seen());
    }

    /// Sorts card `key` again (`card`: none when it left the world).
    fn update(&mut self, key: CardKey, card: Option<&CardInstance>) {
        let at = self.sorts.binary_search_by_key(&key, |(key, _)| *key);
        let before = at.ok().and_then(|at| self.sorts.get(at)).map(|(_, sort)| sort.class);
        let sort = card.map(|card| self.sort_like(card, before));
        match (at, sort) {
            (Ok(at), Some(sort)) => {
                let Some((_, old)) = self.sorts.get_mut(at) else { return };
                if *old != sort {
                    let old = std::mem::replace(old, sort);
                    self.remove(key, old);
                    self.add(key, sort);
                }
            }
            (Ok(at), None) => {
                let (_, old) = self.sorts.remove(at);
                self.remove(key, old);
            }
            (Err(at), Some(sort)) => {
                self.sorts.insert(at, (key, sort));
                self.add(key, sort);
            }
            (Err(_), None) => {}
        }
    }

    fn add(&mut self, key: CardKey, sort: Sort) {
        if sort.flippable {
            file(&mut self.flippable, key);
        }
        if sort.movable {
            match self.classes.get_mut(sort.class as usize) {
                Some(class) => file(&mut class.members, key),
                None => file(&mut self.with_sub_cards, key),
            }
        }
    }

    fn remove(&mut self, key: CardKey, sort: Sort) {
        if sort.flippable {
            unfile(&mut self.flippable, key);
        }
        if sort.movable {
            match self.classes.get_mut(sort.class as usize) {
                Some(class) => unfile(&mut class.members, key),
                None => unfile(&mut self.with_sub_cards, key),
            }
        }
    }

    fn sort(&mut self, card: &CardInstance) -> Sort {
        self.sort_like(card, None)
    }

    /// What `card` is, trying first the class it had (`before`): most changes move a card
    /// without changing its type or aspects.
    fn sort_like(&mut self, card: &CardInstance, before: Option<u32>) -> Sort {
        let in_play = matches!(card.place, Place::Table | Place::Lane(_) | Place::Slot(..));
        let movable = card.free && in_play;
        let class = if movable && card.children.is_empty() { self.class_of(card, before) } else { NO_CLASS };
        Sort { movable, flippable: card.face_down && in_play, class }
    }

    fn class_of(&mut self, card: &CardInstance, before: Option<u32>) -> u32 {
        let type_at = card.card.as_str().as_ptr() as usize;
        let same = |class: &KeptClass| class.type_at == type_at && class.card.aspects.same_shared(&card.aspects);
        if let Some(before) = before
            && self.classes.get(before as usize).is_some_and(same)
        {
            return before;
        }
        if let Some(found) = self.classes.iter().position(same) {
            return found as u32;
        }
        self.classes.push(KeptClass { type_at, card: card.clone(), accepts: Vec::new(), members: Vec::new() });
        self.classes.len().saturating_sub(1) as u32
    }

    /// Whether `slot` accepts the kept class `class` by counts, worked out once.
    fn accepts(&mut self, class: usize, slot: &Slot, state: &TableState) -> bool {
        let Some(kept) = self.classes.get_mut(class) else { return false };
        let at = std::ptr::from_ref(slot) as usize;
        if let Some((_, accepts)) = kept.accepts.iter().find(|(slot_at, _)| *slot_at == at) {
            return *accepts;
        }
        // A card without sub-cards is accepted by its own type and aspects alone.
        let accepts = step::card_accepted_by_counts(slot, state, CardKey(u32::MAX), Some(&kept.card));
        kept.accepts.push((at, accepts));
        accepts
    }

    /// The cards `slot` accepts by counts, in key order, into `out`: whole classes, and each
    /// card with sub-cards on its own.
    fn accepted(&mut self, slot: &Slot, state: &TableState, out: &mut Vec<CardKey>) {
        out.clear();
        let mut taken = std::mem::take(&mut self.taken);
        taken.clear();
        let (mut sources, mut count) = (0u32, 0usize);
        for class in 0..self.classes.len() {
            let members = self.classes.get(class).map_or(0, |class| class.members.len());
            let accepts = members > 0 && self.accepts(class, slot, state);
            if accepts {
                sources = sources.saturating_add(1);
                count = count.saturating_add(members);
            }
            taken.push(accepts);
        }
        let holders = self.with_sub_cards.iter().copied().filter(|key| {
            state.card(*key).is_some_and(|card| step::card_accepted_by_counts(slot, state, *key, Some(card)))
        });
        // Each source is in key order. With one, or few cards of many, the sources are joined
        // and sorted; with many cards of several, one walk over every card in key order picks
        // them (sorting them took a twentieth of a lighthouse run). The same cards, in the
        // same order, either way.
        if sources > 0
            && count.saturating_mul(8) >= self.sorts.len()
            && !(sources == 1 && self.with_sub_cards.is_empty())
        {
            let mut holders = holders.peekable();
            for (key, sort) in &self.sorts {
                if !sort.movable {
                    continue;
                }
                let picked = match taken.get(sort.class as usize) {
                    Some(accepts) => *accepts,
                    None => holders.next_if_eq(key).is_some(),
                };
                if picked {
                    out.push(*key);
                }
            }
        } else {
            for (class, accepts) in self.classes.iter().zip(&taken) {
                if *accepts {
                    out.extend_from_slice(&class.members);
                }
            }
            let before = out.len();
            out.extend(holders);
            if out.len() > before {
                sources = sources.saturating_add(1);
            }
            if sources > 1 {
                out.sort_unstable();
            }
        }
        self.taken = taken;
    }

    /// Whether any card could move.
    fn any_movable(&self) -> bool {
        !self.with_sub_cards.is_empty() || self.classes.iter().any(|class| !class.members.is_empty())
    }
}

impl Session {
    /// The choices `wanted` keeps, in the order of [`Session::choices`]; acceptance is only
    /// worked out for the slot choices it keeps, of the cards `movable` names; face-down cards
    /// are only looked for when `flips` (a flip is wanted).
    pub(crate) fn choices_where(&self, movable: Moving, flips: bool, wanted: impl Fn(&Choice) -> bool) -> Vec<Choice> {
        let mut choices = Vec::new();
        self.list_where(movable, flips, wanted, &mut choices);
        choices
    }

    /// The table's choices but starts and collects, in the order of [`Session::choices`],
    /// counted (for the random player); none when there are none.
    pub(crate) fn table_listing(&self) -> Option<TableListing> {
        if self.table_offers_nothing() {
            return None;
        }
        let mut listing = TableListing { entries: Vec::with_capacity(8), cards: Vec::with_capacity(64) };
        self.list_where(
            Moving::All,
            true,
            |choice| !matches!(choice, Choice::Start { .. } | Choice::Collect { .. }),
            &mut listing,
        );
        (!listing.entries.is_empty()).then_some(listing)
    }

    /// Whether the table has ended or holds no window and no card, so that it offers nothing:
    /// then no buffer is made and no lock taken (board games ask at every move).
    fn table_offers_nothing(&self) -> bool {
        self.state.outcome.is_some() || (self.state.windows.is_empty() && self.state.cards.is_empty())
    }

    /// [`Session::choices_where`] into `out`.
    fn list_where<S: ChoiceSink>(
        &self,
        movable: Moving,
        flips: bool,
        wanted: impl Fn(&Choice) -> bool,
        choices: &mut S,
    ) {
        if self.table_offers_nothing() {
            return;
        }
        let push = |choices: &mut S, choice: Choice| {
            if wanted(&choice) {
                choices.add(choice);
            }
        };
        let mut kept = self.listing.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.classes.len() > MOST_KEPT_CLASSES {
            *kept = Kept::default();
        }
        kept.sync(&self.state.cards);
        if flips {
            for key in &kept.flippable {
                push(choices, Choice::Flip { card: *key });
            }
        }
        // The one card to try, for `Moving::Only`.
        let only = match movable {
            Moving::Only(key) => kept
                .sorts
                .binary_search_by_key(&key, |(key, _)| *key)
                .ok()
                .and_then(|at| kept.sorts.get(at))
                .filter(|(_, sort)| sort.movable)
                .map(|(key, sort)| (*key, *sort)),
            Moving::All | Moving::None => None,
        };
        let any_movable = match movable {
            Moving::All => kept.any_movable(),
            Moving::Only(_) => only.is_some(),
            Moving::None => false,
        };
        // A slot's card rule may draw random numbers: it is evaluated on a copy, made only
        // when one is needed.
        let mut scratch: Option<(TableState, Pcg64Mcg)> = None;
        let mut accepted = std::mem::take(&mut kept.accepted);
        for (token, window) in &self.state.windows {
            match &window.status {
                Status::Ready(_) => push(choices, Choice::Start { token: *token }),
                Status::Finished => push(choices, Choice::Collect { token: *token }),
                Status::Idle | Status::Running => {}
            }
            let holds_cards = window.idle_range().any(|place| window.slotted(place).is_some());
            if matches!(window.status, Status::Idle | Status::Ready(_)) && holds_cards {
                push(choices, Choice::Close { token: *token });
            }
            if window.status == Status::Finished {
                continue;
            }
            for place in window.status_places() {
                let Some(open) = window.places.get(place).and_then(Option::as_ref) else { continue };
                let locked =
                    open.card.is_some() && !open.card.is_some_and(|key| self.state.card(key).is_some_and(|c| c.free));
                if open.card.is_some() && !locked {
                    push(choices, Choice::Unslot { token: *token, place });
                }
                if locked || !any_movable {
                    continue;
                }
                let Some(slot) = self.content.slot(open.slot.as_str()) else { continue };
                // Counts first, once per class: most places accept none of the cards, and
                // then the cards are not gone through at all.
                match only {
                    Some((key, sort)) => {
                        accepted.clear();
                        let by_counts = if sort.class == NO_CLASS {
                            step::accepts_by_counts(slot, &self.state, key)
                        } else {
                            kept.accepts(sort.class as usize, slot, &self.state)
                        };
                        if by_counts {
                            accepted.push(key);
                        }
                    }
                    None => kept.accepted(slot, &self.state, &mut accepted),
                }
                for key in &accepted {
                    if open.card == Some(*key) {
                        continue;
                    }
                    // A slot choice owns nothing, so nothing needs dropping (the drop's call per
                    // card and place was a seventieth of a lighthouse run).
                    let choice = ManuallyDrop::new(Choice::Slot { card: *key, token: *token, place });
                    if !wanted(&choice) {
                        continue;
                    }
                    let accepted = slot.accept_all || slot.card_rule.is_none() || {
                        let (state, rng) = scratch.get_or_insert_with(|| (self.state.clone(), self.rng.clone()));
                        let mut events = Vec::new();
                        Engine::new(&self.content, state, rng, &mut events).accepts(&open.slot, *key)
                    };
                    if accepted {
                        choices.add_slot(*key, *token, place);
                    }
                }
            }
        }
        kept.accepted = accepted;
    }
}

/// Where a listing puts the choices it finds.
trait ChoiceSink {
    /// Adds the next choice.
    fn add(&mut self, choice: Choice);

    /// Adds the next choice, moving `card` into `place` of `token`'s window.
    fn add_slot(&mut self, card: CardKey, token: TokenKey, place: usize) {
        self.add(Choice::Slot { card, token, place });
    }
}

impl ChoiceSink for Vec<Choice> {
    fn add(&mut self, choice: Choice) {
        self.push(choice);
    }
}

/// The table's choices counted, in listing order: each place's slot choices are kept as the
/// cards it accepts, and only the choice drawn is built (see [`Session::table_listing`]).
pub(crate) struct TableListing {
    /// The choices in order, runs of slot choices into one place as one entry.
    entries: Vec<Listed>,
    /// The cards of the runs.
    cards: Vec<CardKey>,
}

/// One entry of a [`TableListing`].
enum Listed {
    /// A choice that moves no card into a slot.
    One(Choice),
    /// Moving each of `cards[from..to]` into `place` of `token`'s window.
    Slots { token: TokenKey, place: usize, from: usize, to: usize },
}

impl Listed {
    /// How many choices the entry stands for.
    fn len(&self) -> usize {
        match self {
            Self::One(_) => 1,
            Self::Slots { from, to, .. } => to.saturating_sub(*from),
        }
    }
}

impl ChoiceSink for TableListing {
    fn add(&mut self, choice: Choice) {
        match choice {
            Choice::Slot { card, token, place } => self.add_slot(card, token, place),
            other => self.entries.push(Listed::One(other)),
        }
    }

    #[inline]
    fn add_slot(&mut self, card: CardKey, token: TokenKey, place: usize) {
        let at = self.cards.len();
        self.cards.push(card);
        match self.entries.last_mut() {
            Some(Listed::Slots { token: run_token, place: run_place, to, .. })
                if *run_token == token && *run_place == place && *to == at =>
            {
                *to = at.saturating_add(1);
            }
            _ => self.entries.push(Listed::Slots { token, place, from: at, to: at.saturating_add(1) }),
        }
    }
}

impl TableListing {
    /// How many choices there are.
    pub(crate) fn len(&self) -> usize {
        self.entries.iter().map(Listed::len).sum()
    }

    /// The choice numbered `at` (from 0, in listing order); None past the last.
    pub(crate) fn nth(&self, mut at: usize) -> Option<Choice> {
        for entry in &self.entries {
            let count = entry.len();
            if at >= count {
                at = at.saturating_sub(count);
                continue;
            }
            return match entry {
                Listed::One(choice) => Some(choice.clone()),
                Listed::Slots { token, place, from, .. } => {
                    let card = *self.cards.get(from.saturating_add(at))?;
                    Some(Choice::Slot { card, token: *token, place: *place })
                }
            };
        }
        None
    }
}
