//! The table system (`spec/cultistlike.md` §2.8–§2.16): moving cards, slots, the act
//! lifecycle, performing modifiers, decks, decay and texts.

use std::borrow::Cow;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use super::Event;
use super::content::Content;
use super::rules::{Ctx, Target};
use super::state::{
    CardInstance, CardKey, Decay, Fragment, Holder, IDLE_PLACES, OpenSlot, PendingToken, Place, RUN_PLACE, Status,
    TableState, TokenKey, Window,
};
use super::text::interpolate;
use crate::model::{ActId, ActLink, ActOp, CardId, CardOp, DeckOp, FragmentCount, FragmentRef, PathOp, RuleId, SlotId};
use crate::model::{TableOp, TokenId};

/// Most act completions in one step: beyond, an instant-act loop is cut with a warning.
const MAX_COMPLETIONS_PER_STEP: usize = 10_000;
/// Most passes of slot recomputation before giving up on a window (cards keep leaving).
const MAX_SLOT_PASSES: usize = 16;

/// One step of work on the table: the content, the state and the generator, borrowed.
pub(super) struct Engine<'a> {
    pub content: &'a Content,
    pub state: &'a mut TableState,
    pub rng: &'a mut Pcg64Mcg,
    pub events: &'a mut Vec<Event>,
    /// Windows whose running act completes at once, in order.
    pub instant: Vec<TokenKey>,
    completions: usize,
    /// Requirements evaluated (act entry tests, slot and text rules, rules), for [`super::Counters`].
    pub evaluations: u64,
    /// Lists [`Engine::slots_to_open`] fills, kept between its calls in a step (windows are
    /// checked several times a step).
    slot_lists: SlotLists<'a>,
}

/// Reused lists of [`Engine::slots_to_open`].
#[derive(Default)]
struct SlotLists<'a> {
    to_open: Vec<&'a SlotId>,
    candidates: Vec<&'a SlotId>,
    aspects: Vec<&'a crate::model::Aspect>,
}

impl<'a> Engine<'a> {
    /// An engine working on `state`.
    pub fn new(
        content: &'a Content,
        state: &'a mut TableState,
        rng: &'a mut Pcg64Mcg,
        events: &'a mut Vec<Event>,
    ) -> Self {
        Self {
            content,
            state,
            rng,
            events,
            instant: Vec::new(),
            completions: 0,
            evaluations: 0,
            slot_lists: SlotLists::default(),
        }
    }

    /// A uniform integer in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.rng.next_u64() % n as u64) as usize }
    }

    /// A uniform number in [0, 1].
    pub fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / ((1u64 << 53) - 1) as f64
    }

    /// Reports something the content did that could not be carried out.
    pub fn warn(&mut self, message: impl Into<String>) {
        self.events.push(Event::Warning(message.into()));
    }

    fn mark(&mut self, token: TokenKey) {
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.dirty = true;
        }
    }

    /// Marks the window a card is in as changed.
    fn touch(&mut self, key: CardKey) {
        if let Some(token) = self.state.window_of(key) {
            self.mark(token);
        }
    }

    /// Marks the window a card at `place` is in as changed (as [`Engine::touch`], from where
    /// the card is, without looking it up).
    fn touch_at(&mut self, place: Place) {
        match place {
            Place::Table => {}
            Place::Slot(token, _) | Place::Consumed(token) | Place::Lane(token) => self.mark(token),
            Place::InCard(parent) => self.touch(parent),
        }
    }

    // ----- cards -------------------------------------------------------------------------

    /// Creates a card of `card_type` at `place` (§2.11.1); none when it is unique and exists.
    pub fn create_card(&mut self, card_type: &CardId, place: Place) -> Option<CardKey> {
        let content = self.content;
        let Some(card) = content.card(card_type.as_str()) else {
            self.warn(format!("there is no card `{card_type}`"));
            return None;
        };
        if card.unique && self.state.cards.values().any(|existing| existing.card == *card_type) {
            return None;
        }
        let key = CardKey(self.state.next_card);
        self.state.next_card += 1;
        // The content's own id: every instance of a type then shares one text, and comparing
        // types is a pointer comparison.
        let card_type = &card.id;
        let mut instance = CardInstance {
            card: card_type.clone(),
            aspects: super::state::AspectCounts::default(),
            children: Vec::new(),
            place,
            memory: Some(Fragment::Card(card_type.clone())),
            free: true,
            face_down: false,
            decay: None,
        };
        let mut sub_cards = Vec::new();
        for FragmentCount { fragment, count } in &card.fragments {
            let count = count.as_int().unwrap_or(1).max(0);
            match fragment {
                FragmentRef::Aspect(aspect) => instance.aspects.adjust(content.canonical_aspect(aspect), count),
                FragmentRef::Card(sub) => sub_cards.extend(std::iter::repeat_n(sub.clone(), count as usize)),
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
        let lifetime = card.lifetime_ticks.as_int().unwrap_or(0);
        if lifetime > 0 {
            instance.decay =
                Some(Decay { into: card.decay_to.clone(), remaining: lifetime as u64 + content.shrink_ticks });
        }
        self.state.cards.insert(key, instance);
        self.attach(key, place);
        self.events.push(Event::CardCreated { card: key, card_type: card_type.clone() });
        for sub in sub_cards {
            if let Some(child) = self.create_card(&sub, Place::InCard(key)) {
                self.set_free(child, false);
            }
        }
        Some(key)
    }

    /// A copy of a card (same type, local aspects and memory; §2.11.2) at `place`.
    fn duplicate(&mut self, key: CardKey, place: Place) -> Option<CardKey> {
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

    fn set_free(&mut self, key: CardKey, free: bool) {
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
    fn detach(&mut self, key: CardKey) {
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
    fn move_card(&mut self, key: CardKey, place: Place) {
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

    /// Turns a card into another type, keeping its aspects and sub-cards (§2.11.4).
    fn transform(&mut self, key: CardKey, into: &CardId) {
        let Some(new_type) = self.content.card(into.as_str()) else {
            self.warn(format!("there is no card `{into}` to transform into"));
            return;
        };
        let lifetime = new_type.lifetime_ticks.as_int().unwrap_or(0);
        let decay = (lifetime > 0)
            .then(|| Decay { into: new_type.decay_to.clone(), remaining: lifetime as u64 + self.content.shrink_ticks });
        let into = &new_type.id;
        let Some(card) = self.state.cards.get_mut(&key) else { return };
        let from = std::mem::replace(&mut card.card, into.clone());
        card.decay = decay;
        self.events.push(Event::CardTransformed { card: key, from, to: into.clone() });
        self.touch(key);
    }

    /// Adds `count` (may be negative) to a holder's own aspect, never below 0.
    fn adjust_aspect(&mut self, holder: Holder, aspect: &crate::model::AspectId, count: i64) {
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

    // ----- slots -------------------------------------------------------------------------

    /// Whether `slot` accepts card `key` (§2.9.3).
    pub fn accepts(&mut self, slot: &SlotId, key: CardKey) -> bool {
        let content = self.content;
        let Some(slot) = content.slot(slot.as_str()) else { return false };
        if !accepts_by_counts(slot, self.state, key) {
            return false;
        }
        match &slot.card_rule {
            Some(rule) if !slot.accept_all => {
                let mut ctx = Ctx::new(Holder::Card(key), 0);
                ctx.this_card = Some(key);
                let Some(rule) = content.rule(rule.as_str()) else { return false };
                self.evaluate(&rule.requirements, rule.invert, false, &mut ctx)
            }
            _ => true,
        }
    }

    /// Whether `slot` opens in `token`'s window (§2.9.1 `opens`).
    fn opens(&mut self, slot: &SlotId, token: TokenKey) -> bool {
        let content = self.content;
        let Some(slot) = content.slot(slot.as_str()) else { return false };
        if slot.spawn_tests.is_empty() && slot.spawn_rule.is_none() {
            return true;
        }
        let mut ctx = Ctx::new(Holder::Window(token), 0);
        for test in &slot.spawn_tests {
            if !self.attempt_test(test, &mut ctx) && !test.can_fail {
                return false;
            }
        }
        match &slot.spawn_rule {
            Some(rule) => self.evaluate_rule(rule, Holder::Window(token), 1),
            None => true,
        }
    }

    /// The slots a window should show now (§2.9.1), borrowed from the content, into `to_open`.
    fn slots_to_open(&mut self, token: TokenKey, to_open: &mut Vec<&'a SlotId>) {
        let content = self.content;
        to_open.clear();
        let Some(window) = self.state.window(token) else { return };
        let mut candidates = std::mem::take(&mut self.slot_lists.candidates);
        candidates.clear();
        if window.status == Status::Running {
            if let Some(act) = window.active.as_ref().and_then(|act| content.act(act.as_str())) {
                candidates.extend(&act.slots);
                if !act.ignore_global_slots {
                    candidates.extend(&content.all_acts_slots);
                }
            }
        } else {
            let token_type = &window.token;
            if let Some(slot) = content.token(token_type.as_str()).and_then(|t| t.slot.as_ref()) {
                to_open.push(slot);
            }
            // The window's aspects, each once, in id order (as content items: no id is copied).
            let mut aspects = std::mem::take(&mut self.slot_lists.aspects);
            aspects.clear();
            aspects.extend(window.aspects.iter().filter_map(|(aspect, _)| content.aspect(aspect.as_str())));
            self.state.for_each_card(Holder::Window(token), &mut |_, card| {
                if let Some(card) = content.card(card.card.as_str()) {
                    candidates.extend(&card.slots);
                }
                aspects.extend(card.aspects.iter().filter_map(|(aspect, _)| content.aspect(aspect.as_str())));
            });
            aspects.sort_unstable_by(|a, b| a.id.cmp(&b.id));
            aspects.dedup_by(|a, b| std::ptr::eq(*a, *b));
            for aspect in &aspects {
                candidates.extend(&aspect.slots);
            }
            self.slot_lists.aspects = aspects;
            candidates.extend(
                content
                    .token_slots
                    .iter()
                    .filter(|(_, only)| only.as_ref().is_none_or(|only| only == token_type))
                    .map(|(slot, _)| slot),
            );
        }
        for &slot in &candidates {
            let definition = content.slot(slot.as_str());
            let unique = definition.is_some_and(|s| s.unique);
            // A slot without spawn tests or rule opens: `opens` is only asked of the others.
            let unconditional = definition.is_some_and(|s| s.spawn_tests.is_empty() && s.spawn_rule.is_none());
            if (!unique || !to_open.contains(&slot)) && (unconditional || self.opens(slot, token)) {
                to_open.push(slot);
            }
        }
        self.slot_lists.candidates = candidates;
    }

    /// Recomputes a window's open slots (§2.9.2).
    pub fn recompute_slots(&mut self, token: TokenKey) {
        for _ in 0..MAX_SLOT_PASSES {
            let Some(window) = self.state.window(token) else { return };
            if window.status == Status::Finished {
                return;
            }
            let places = window.status_places();
            let mut to_open = std::mem::take(&mut self.slot_lists.to_open);
            self.slots_to_open(token, &mut to_open);
            let mut returned = false;
            for at in places.clone() {
                let Some(open) = self.state.window(token).and_then(|w| w.places.get(at)).and_then(Option::as_ref)
                else {
                    continue;
                };
                if let Some(position) = to_open.iter().position(|slot| **slot == open.slot) {
                    to_open.remove(position);
                } else {
                    if open.card.is_some() {
                        self.take_out(token, at, false);
                        returned = true;
                    }
                    self.close_place(token, at);
                }
            }
            if returned {
                self.slot_lists.to_open = to_open;
                continue;
            }
            if !self.content.grab_slots.is_empty() {
                for at in places.clone() {
                    let waits = self
                        .state
                        .window(token)
                        .and_then(|w| w.places.get(at))
                        .and_then(Option::as_ref)
                        .is_some_and(|open| open.card.is_none() && self.content.grab_slots.contains(&open.slot));
                    if waits {
                        self.refresh_grab(token, at);
                    }
                }
            }
            for slot in to_open.drain(..) {
                let free_place = places.clone().find(|at| {
                    self.state.window(token).is_some_and(|w| w.places.get(*at).is_some_and(Option::is_none))
                });
                let Some(at) = free_place else { break };
                if let Some(place) = self.state.windows.get_mut(&token).and_then(|w| w.places.get_mut(at)) {
                    *place = Some(OpenSlot { slot: slot.clone(), card: None });
                }
                self.refresh_grab(token, at);
            }
            self.slot_lists.to_open = to_open;
            return;
        }
        self.warn("slots kept changing while they were recomputed; stopped");
    }

    fn close_place(&mut self, token: TokenKey, at: usize) {
        if let Some(place) = self.state.windows.get_mut(&token).and_then(|w| w.places.get_mut(at)) {
            *place = None;
        }
    }

    /// A grab slot that is open and empty looks for a card (§2.9.6).
    fn refresh_grab(&mut self, token: TokenKey, at: usize) {
        let content = self.content;
        let Some(open) = self.state.window(token).and_then(|w| w.places.get(at)).and_then(Option::as_ref) else {
            return;
        };
        if open.card.is_some() || !content.grab_slots.contains(&open.slot) {
            return;
        }
        let Some(slot) = content.slot(open.slot.as_str()) else { return };
        // Most slots grab nothing: the slot id is only copied for those that do.
        if !slot.grab && !slot.act_grab {
            return;
        }
        let open = open.clone();
        if slot.grab {
            let candidates: Vec<CardKey> = self.state.cards_of(Holder::Root);
            for key in candidates {
                let top_level = !matches!(self.state.card(key).map(|card| card.place), Some(Place::InCard(_)));
                if top_level && self.state.card(key).is_some_and(|card| card.free) && self.accepts(&open.slot, key) {
                    self.slot_card(key, token, at);
                    return;
                }
            }
        } else if slot.act_grab {
            let inside = self.state.window(token).map(|w| w.consumed.clone()).unwrap_or_default();
            for key in inside {
                if self.accepts(&open.slot, key) {
                    self.set_free(key, true);
                    self.slot_card(key, token, at);
                    return;
                }
            }
        }
    }

    /// Offers cards that entered play, in order, to waiting grab slots: each goes to the first
    /// open, empty place (windows in registry order) whose grab slot accepts it.
    fn offer_to_grab_slots(&mut self, keys: &[CardKey]) {
        let content = self.content;
        if content.grab_slots.is_empty() {
            return;
        }
        // The places waiting now, found once; a place filled on the way is skipped after.
        let waiting: Vec<(TokenKey, usize)> = self
            .state
            .windows
            .iter()
            .flat_map(|(token, window)| {
                window.status_places().filter_map(move |at| {
                    let open = window.places.get(at)?.as_ref()?;
                    let grabs = open.card.is_none()
                        && content.grab_slots.contains(&open.slot)
                        && content.slot(open.slot.as_str()).is_some_and(|s| s.grab);
                    grabs.then_some((*token, at))
                })
            })
            .collect();
        for &key in keys {
            for &(token, at) in &waiting {
                let Some(open) = self.state.window(token).and_then(|w| w.places.get(at)).and_then(Option::as_ref)
                else {
                    continue;
                };
                if open.card.is_some() {
                    continue;
                }
                let slot = open.slot.clone();
                if self.state.card(key).is_some_and(|card| card.free) && self.accepts(&slot, key) {
                    self.slot_card(key, token, at);
                    break;
                }
            }
        }
    }

    /// Puts a card into an open place (§2.9.4); the old card returns to the table.
    pub fn slot_card(&mut self, key: CardKey, token: TokenKey, at: usize) {
        let content = self.content;
        let Some(open) = self.state.window(token).and_then(|w| w.places.get(at).cloned().flatten()) else { return };
        let Some(slot) = content.slot(open.slot.as_str()) else { return };
        if open.card.is_some() {
            self.take_out(token, at, true);
        }
        // A card taken from a first slot elsewhere empties that window's idle slots.
        if let Some(Place::Slot(from_token, from_at)) = self.state.card(key).map(|card| card.place) {
            self.take_out(from_token, from_at, true);
        }
        self.move_card(key, Place::Slot(token, at));
        self.set_free(key, !slot.card_lock);
        if let Some(card) = self.state.cards.get_mut(&key) {
            card.face_down = false;
        }
        for entry in &slot.fragments {
            self.add_fragment(Holder::Window(token), entry, 1);
        }
        self.mark(token);
    }

    /// Takes the card out of a place back to the table (§2.8.6, §2.9.5). With `first_rule`,
    /// emptying a first slot returns every idle-slotted card too.
    fn take_out(&mut self, token: TokenKey, at: usize, first_rule: bool) {
        let content = self.content;
        let Some(open) = self.state.window(token).and_then(|w| w.places.get(at).cloned().flatten()) else { return };
        let Some(key) = open.card else { return };
        self.move_card(key, Place::Table);
        self.set_free(key, true);
        if let Some(slot) = content.slot(open.slot.as_str()) {
            for entry in &slot.fragments {
                self.add_fragment(Holder::Window(token), entry, -1);
            }
        }
        if first_rule && (at == 0 || at == RUN_PLACE) {
            for idle in 0..IDLE_PLACES {
                if idle != at {
                    self.take_out(token, idle, false);
                }
            }
            if let Some(window) = self.state.windows.get_mut(&token)
                && window.status != Status::Running
            {
                window.status = Status::Idle;
            }
        }
        self.mark(token);
    }

    /// The player takes a card out of a slot place.
    pub fn take_out_by_player(&mut self, token: TokenKey, at: usize) {
        self.take_out(token, at, true);
    }

    /// The player closes an Idle or Ready window: every idle-slotted card returns to the
    /// table and the window is Idle (§2.8.6). Running and Finished windows do not change.
    pub fn close_window(&mut self, token: TokenKey) {
        let Some(window) = self.state.window(token) else { return };
        if matches!(window.status, Status::Running | Status::Finished) {
            return;
        }
        for at in 0..IDLE_PLACES {
            self.take_out(token, at, false);
        }
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Idle;
        }
        self.mark(token);
    }

    /// The player turns a face-down card face up (§2.8.6); the window it is in re-evaluates.
    pub fn flip(&mut self, key: CardKey) {
        if let Some(card) = self.state.cards.get_mut(&key) {
            card.face_down = false;
        }
        self.touch(key);
    }

    /// Adds (`sign` 1) or removes (`sign` -1) a slot or act fragment in a holder.
    fn add_fragment(&mut self, holder: Holder, entry: &FragmentCount, sign: i64) {
        let count = entry.count.as_int().unwrap_or(1).max(0);
        match &entry.fragment {
            FragmentRef::Aspect(aspect) => self.adjust_aspect(holder, aspect, sign * count),
            FragmentRef::Card(card_type) => {
                let Holder::Window(token) = holder else { return };
                if sign > 0 {
                    for _ in 0..count {
                        if let Some(key) = self.create_card(card_type, Place::Consumed(token)) {
                            self.set_free(key, false);
                        }
                    }
                } else {
                    let direct = self.state.window(token).map(|w| w.consumed.clone()).unwrap_or_default();
                    let removed: Vec<CardKey> = direct
                        .into_iter()
                        .filter(|key| self.type_of(*key).as_ref() == Some(card_type))
                        .take(count as usize)
                        .collect();
                    for key in removed {
                        self.destroy(key);
                    }
                }
            }
            _ => {}
        }
    }

    // ----- acts --------------------------------------------------------------------------

    /// Entry attempt of an act in a window: the matches when it passes (§2.8).
    fn try_entry(&mut self, act: &ActId, token: TokenKey) -> Option<Vec<CardKey>> {
        let content = self.content;
        let act = content.act(act.as_str())?;
        let mut ctx = Ctx::new(Holder::Window(token), 0);
        self.evaluate(&act.requirements, false, false, &mut ctx).then(|| ctx.into_matched(self.state))
    }

    /// Tries acts in order; the first that passes is chosen and its matches saved.
    fn attempt(&mut self, acts: &[ActId], token: TokenKey) -> Option<ActId> {
        for act in acts {
            if let Some(matches) = self.try_entry(act, token) {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    window.saved_matches = matches;
                }
                return Some(act.clone());
            }
        }
        None
    }

    /// A candidate list from links (§2.8.1).
    fn build(&mut self, links: &[ActLink], random_order: bool, token: TokenKey) -> Vec<ActId> {
        if let [single] = links
            && single.chance.is_zero()
            && single.rule.is_none()
        {
            return vec![single.act.clone()];
        }
        let mut result = Vec::new();
        for link in links {
            let keep = if let Some(rule) = &link.rule {
                self.evaluate_rule(rule, Holder::Window(token), 1)
            } else {
                let ctx = Ctx::new(Holder::Window(token), 0);
                let chance = self.number(&link.chance, &ctx);
                (self.below(100) as i64) < chance
            };
            if keep {
                if random_order {
                    let at = self.below(result.len() + 1);
                    result.insert(at, link.act.clone());
                } else {
                    result.push(link.act.clone());
                }
            }
        }
        result
    }

    /// The status check of a window (§2.8 "check").
    pub fn check(&mut self, token: TokenKey) {
        let content = self.content;
        let Some(window) = self.state.windows.get_mut(&token) else { return };
        window.dirty = false;
        let finished = window.status == Status::Finished;
        let running = window.status == Status::Running;
        // The token type as the content's own item: its id is not copied.
        let token_type = content.token(window.token.as_str());
        if !finished {
            self.recompute_slots(token);
        }
        if !finished && !running {
            let initial = token_type.and_then(|t| content.initial_acts.get(&t.id)).map_or(&[][..], Vec::as_slice);
            let candidate = self.attempt(initial, token);
            let first_slotted = self.state.window(token).is_some_and(|w| w.slotted(0).is_some());
            match candidate.and_then(|act| content.act(act.as_str())) {
                Some(act) if first_slotted => {
                    let text = self.rule_text(&act.text, &act.text_rules, token);
                    if let Some(window) = self.state.windows.get_mut(&token) {
                        if !matches!(&window.status, Status::Ready(ready) if *ready == act.id) {
                            window.status = Status::Ready(act.id.clone());
                        }
                        show(&mut window.title, &act.label);
                        show(&mut window.text, &text);
                    }
                }
                _ => self.show_idle(token),
            }
            return;
        }
        match self.state.window(token).map(|w| &w.status) {
            Some(Status::Running) => {
                let alts = self.state.window(token).map(|w| w.alt_list.clone()).unwrap_or_default();
                let chosen = self.attempt(&alts, token);
                self.set_pending_alt(token, chosen);
            }
            Some(Status::Finished) => {
                let lane_empty = self.state.window(token).is_some_and(|w| w.lane.is_empty());
                if lane_empty {
                    self.return_to_idle(token);
                    if token_type.is_some_and(|t| t.dissolve) {
                        self.dissolve(token);
                    }
                }
            }
            Some(Status::Idle | Status::Ready(_)) | None => {}
        }
    }

    fn show_idle(&mut self, token: TokenKey) {
        let content = self.content;
        let Some(window) = self.state.window(token) else { return };
        let token_type = content.token(window.token.as_str());
        let (title, text) = match token_type {
            Some(t) => (t.label.as_str(), self.rule_text(&t.description, &t.text_rules, token)),
            None => ("", Cow::Borrowed("")),
        };
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Idle;
            show(&mut window.title, title);
            show(&mut window.text, &text);
        }
    }

    fn set_pending_alt(&mut self, token: TokenKey, chosen: Option<ActId>) {
        let content = self.content;
        let Some(window) = self.state.window(token) else { return };
        let changed = window.pending_alt != chosen;
        let shown = chosen.clone().or_else(|| window.active.clone());
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.pending_alt.clone_from(&chosen);
        }
        if changed {
            self.events.push(Event::AltChanged { token, act: chosen });
        }
        if let Some(act) = shown.and_then(|act| content.act(act.as_str())) {
            let text = self.rule_text(&act.text, &act.text_rules, token);
            if let Some(window) = self.state.windows.get_mut(&token) {
                if !text.is_empty() {
                    show(&mut window.text, &text);
                }
                if !act.label.is_empty() {
                    show(&mut window.title, &act.label);
                }
            }
        }
    }

    /// The player starts a Ready window.
    pub fn start(&mut self, token: TokenKey) -> bool {
        let Some(Status::Ready(act)) = self.state.window(token).map(|w| w.status.clone()) else { return false };
        self.run(token, &act);
        true
    }

    /// `run(act)` (§2.8.2).
    pub fn run(&mut self, token: TokenKey, act_id: &ActId) {
        let content = self.content;
        let Some(act) = content.act(act_id.as_str()) else {
            self.warn(format!("there is no act `{act_id}`"));
            return;
        };
        let Some(window) = self.state.windows.get_mut(&token) else { return };
        window.active = Some(act_id.clone());
        window.forced = None;
        window.branch = None;
        let start_rule = window.start_rule.take();
        let places = window.status_places();
        if let Some(rule) = start_rule {
            let mut ctx = Ctx::new(Holder::Window(token), 0);
            self.run_rule(&rule, &mut ctx);
            self.close(ctx);
        }
        // The slotted cards are consumed; their slot fragments stay in the window.
        for at in places {
            if let Some(key) = self.state.window(token).and_then(|w| w.slotted(at)) {
                self.move_card(key, Place::Consumed(token));
                self.set_free(key, false);
            }
            self.close_place(token, at);
        }
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Running;
            window.pending_alt = None;
        }
        self.events.push(Event::ActStarted { token, act: act_id.clone() });
        self.recompute_slots(token);
        let alts = self.build(&act.alt_acts, act.random_alt, token);
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.alt_list.clone_from(&alts);
        }
        let chosen = self.attempt(&alts, token);
        self.set_pending_alt(token, chosen);
        let ctx = Ctx::new(Holder::Window(token), 0);
        let duration = self.number(&act.duration_ticks, &ctx).max(0) as u64;
        let now = self.state.tick;
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.timer_total = duration;
            window.timer_end = (duration > 0).then_some(now + duration);
        }
        if duration == 0 {
            self.instant.push(token);
        }
    }

    /// Completes the running act of a window (§2.8.3).
    pub fn complete(&mut self, token: TokenKey) {
        let content = self.content;
        self.completions += 1;
        if self.completions > MAX_COMPLETIONS_PER_STEP {
            self.warn("more than 10000 acts completed in one step (an instant-act loop?); the chain is finished");
            self.finish(token);
            return;
        }
        let Some(window) = self.state.windows.get_mut(&token) else { return };
        window.timer_end = None;
        let Some(act_id) = window.pending_alt.clone().or_else(|| window.active.clone()) else { return };
        let Some(act) = content.act(act_id.as_str()) else { return };
        // 2: run slot cards are consumed.
        if let Some(key) = self.state.window(token).and_then(|w| w.slotted(RUN_PLACE)) {
            self.move_card(key, Place::Consumed(token));
            self.set_free(key, false);
        }
        self.close_place(token, RUN_PLACE);
        // 3: the act's fragments.
        for entry in &act.fragments {
            self.add_fragment(Holder::Window(token), entry, 1);
        }
        // 4: triggers of cards, then of aspects.
        self.run_completion_triggers(token);
        // 5: the act's own effects, against the saved matches.
        let mut own = Ctx::new(Holder::Window(token), 0);
        let saved = self.state.window(token).map(|w| w.saved_matches.clone()).unwrap_or_default();
        own.matches = super::rules::Matches::Listed(saved);
        self.execute(&act.effects, &mut own);
        self.close(own);
        self.events.push(Event::ActCompleted { token, act: act_id.clone() });
        if !self.state.windows.contains_key(&token) {
            return; // game over removed the window
        }
        // 6: spawned acts.
        for spawned in self.build(&act.spawned_acts, false, token) {
            self.spawn_act(&spawned, token);
        }
        // 7: end text.
        let end_text = self.rule_text(&act.end_text, &act.end_text_rules, token);
        if let Some(window) = self.state.windows.get_mut(&token)
            && !end_text.is_empty()
        {
            show(&mut window.end_text, &end_text);
        }
        // 8: what runs next.
        // Only these four fields decide what runs next (the window's texts are not copied).
        let Some(window) = self.state.window(token).map(|w| NextRun {
            forced: w.forced.clone(),
            branch: w.branch.clone(),
            do_callback: w.do_callback,
            callback: w.callback.clone(),
        }) else {
            return;
        };
        if let Some(forced) = window.forced {
            self.force_start(token, &forced);
            return;
        }
        if let Some(branch) = window.branch
            && let Some(matches) = self.try_entry(&branch, token)
        {
            if let Some(w) = self.state.windows.get_mut(&token) {
                w.saved_matches = matches;
                w.call_stack.push(act_id.clone());
            }
            self.run(token, &branch);
            return;
        }
        if window.do_callback {
            if let Some(w) = self.state.windows.get_mut(&token) {
                w.do_callback = false;
            }
            if let Some(callback) = window.callback
                && self.attempt(std::slice::from_ref(&callback), token).is_some()
            {
                self.run(token, &callback);
                return;
            }
        }
        let list = self.build(&act.next_acts, act.random_next, token);
        let mut chosen = self.attempt(&list, token);
        while chosen.is_none() {
            let Some(popped) = self.state.windows.get_mut(&token).and_then(|w| w.call_stack.pop()) else { break };
            let Some(popped_act) = content.act(popped.as_str()) else { continue };
            let list = self.build(&popped_act.next_acts, popped_act.random_next, token);
            chosen = self.attempt(&list, token);
        }
        match chosen {
            Some(next) => self.run(token, &next),
            None => self.finish(token),
        }
    }

    /// The triggers of a completing act's window (§2.8.3 step 4): each card's rules, then
    /// each aspect's, in one context.
    fn run_completion_triggers(&mut self, token: TokenKey) {
        let content = self.content;
        let mut triggers = Ctx::new(Holder::Window(token), 0);
        for key in self.state.cards_of(Holder::Window(token)) {
            let Some(card_type) = self.state.card(key).map(|card| &card.card) else { continue };
            let Some(card) = content.card(card_type.as_str()).filter(|card| !card.rules.is_empty()) else { continue };
            triggers.this_card = Some(key);
            triggers.this_fragment = Some(Fragment::Card(card.id.clone()));
            for rule in &card.rules {
                self.run_rule(rule, &mut triggers);
            }
        }
        triggers.this_card = None;
        for aspect_id in self.state.aspects_in_window(token) {
            let Some(aspect) = content.aspect(aspect_id.as_str()).filter(|aspect| !aspect.rules.is_empty()) else {
                continue;
            };
            triggers.this_fragment = Some(Fragment::Aspect(aspect_id));
            for rule in &aspect.rules {
                self.run_rule(rule, &mut triggers);
            }
        }
        self.close(triggers);
    }

    /// Forced start (§2.8.4), as intended: the entry only records matches and always passes.
    pub fn force_start(&mut self, token: TokenKey, act_id: &ActId) {
        let content = self.content;
        if let Some(act) = content.act(act_id.as_str()) {
            let mut ctx = Ctx::new(Holder::Window(token), 0);
            self.evaluate(&act.requirements, false, true, &mut ctx);
            let matches = ctx.into_matched(self.state);
            if let Some(window) = self.state.windows.get_mut(&token) {
                window.saved_matches = matches;
            }
        }
        self.run(token, act_id);
    }

    /// The chain ends: results go to the lane (§2.8.5).
    fn finish(&mut self, token: TokenKey) {
        let Some(window) = self.state.window(token) else { return };
        let consumed = window.consumed.clone();
        for key in &consumed {
            self.move_card(*key, Place::Lane(token));
            self.set_free(*key, true);
        }
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Finished;
            window.text = window.end_text.clone();
            window.timer_end = None;
        }
        self.events.push(Event::ChainFinished { token });
        self.offer_to_grab_slots(&consumed);
        self.check(token);
    }

    /// The player collects a finished window's results.
    pub fn collect(&mut self, token: TokenKey) -> bool {
        let Some(window) = self.state.window(token) else { return false };
        if window.status != Status::Finished {
            return false;
        }
        for key in window.lane.clone() {
            self.move_card(key, Place::Table);
            self.set_free(key, true);
            if let Some(card) = self.state.cards.get_mut(&key) {
                card.face_down = false;
            }
        }
        self.check(token);
        true
    }

    fn return_to_idle(&mut self, token: TokenKey) {
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Idle;
            window.active = None;
            window.pending_alt = None;
            window.alt_list.clear();
            window.text.clear();
            window.end_text.clear();
            window.title.clear();
            window.aspects.clear();
            window.saved_matches.clear();
        }
        self.recompute_slots(token);
        self.show_idle(token);
    }

    fn dissolve(&mut self, token: TokenKey) {
        for key in self.state.cards_of(Holder::Window(token)) {
            self.move_card(key, Place::Table);
        }
        self.state.windows.remove(&token);
        self.events.push(Event::TokenDissolved { token });
    }

    /// Registers a token for creation at the end of the step (§2.13).
    fn spawn_token(&mut self, token_type: &TokenId, auto_run: Option<ActId>, near: Option<TokenKey>) {
        let content = self.content;
        let Some(definition) = content.token(token_type.as_str()) else {
            self.warn(format!("there is no token `{token_type}`"));
            return;
        };
        if definition.unique && self.state.windows.values().any(|window| window.token == *token_type) {
            return;
        }
        let memory = near.and_then(|token| self.state.window(token)).and_then(|window| window.memory.clone());
        self.state.pending_tokens.push(PendingToken { token: token_type.clone(), auto_run, memory });
    }

    fn spawn_act(&mut self, act_id: &ActId, near: TokenKey) {
        let content = self.content;
        let Some(token_type) = content.act(act_id.as_str()).and_then(|act| act.token.clone()) else {
            self.warn(format!("act `{act_id}` has no token, so it cannot be spawned"));
            return;
        };
        self.spawn_token(&token_type, Some(act_id.clone()), Some(near));
    }

    /// Creates the tokens registered during the step.
    pub fn create_pending_tokens(&mut self) {
        let content = self.content;
        for pending in std::mem::take(&mut self.state.pending_tokens) {
            let key = TokenKey(self.state.next_token);
            self.state.next_token += 1;
            let mut window = Window::new(pending.token.clone());
            window.memory = pending.memory;
            self.state.windows.insert(key, window);
            self.events.push(Event::TokenCreated { token: key, token_type: pending.token });
            if let Some(act) = pending.auto_run {
                if let Some(window) = self.state.windows.get_mut(&key) {
                    window.start_rule = content.act(act.as_str()).and_then(|a| a.on_spawn.clone());
                }
                self.force_start(key, &act);
            } else {
                self.recompute_slots(key);
                self.show_idle(key);
                if let Some(window) = self.state.windows.get_mut(&key) {
                    window.dirty = false;
                }
            }
        }
    }

    /// Completes instant acts until none is left.
    pub fn drain_instant(&mut self) {
        while !self.instant.is_empty() {
            let token = self.instant.remove(0);
            let running =
                self.state.window(token).is_some_and(|w| w.status == Status::Running && w.timer_end.is_none());
            if running {
                self.complete(token);
            }
        }
    }

    /// The end of a step: instant chains, spawned tokens, re-evaluations (§2.16).
    pub fn end_step(&mut self) {
        for _ in 0..MAX_SLOT_PASSES * 4 {
            self.drain_instant();
            if !self.state.pending_tokens.is_empty() {
                self.create_pending_tokens();
                continue;
            }
            let dirty: Vec<TokenKey> =
                self.state.windows.iter().filter(|(_, window)| window.dirty).map(|(key, _)| *key).collect();
            if dirty.is_empty() && self.instant.is_empty() {
                return;
            }
            for token in dirty {
                self.check(token);
            }
        }
    }

    // ----- performing modifiers ----------------------------------------------------------

    /// Closes a context: performs its queues in order (§2.7.1).
    pub fn close(&mut self, ctx: Ctx) {
        let depth = ctx.depth;
        let scope = ctx.scope;
        let queues = ctx.queues;
        let mut destroy = queues.destroy;
        for (op, target, level, all) in queues.act {
            self.perform_act(op, target, level, all, scope, depth, &mut destroy);
        }
        for (op, targets, what, level) in queues.card {
            for key in targets {
                if self.state.cards.contains_key(&key) {
                    self.perform_card(op, key, &what, level, scope);
                }
            }
        }
        for modifier in queues.table {
            let Holder::Window(token) = scope else { continue };
            let content = self.content;
            match modifier.op {
                TableOp::SpawnAct => self.spawn_act(&modifier.act, token),
                TableOp::SpawnToken => {
                    if let Some(token_type) = content.act(modifier.act.as_str()).and_then(|a| a.token.clone()) {
                        self.spawn_token(&token_type, None, Some(token));
                    }
                }
            }
        }
        for modifier in queues.path {
            let Holder::Window(token) = scope else { continue };
            self.perform_path(&modifier, token);
        }
        for (op, deck, target) in queues.deck {
            let Some(deck) = deck else { continue };
            self.perform_deck(op, &deck, &target, scope);
        }
        for key in destroy {
            self.destroy(key);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn perform_act(
        &mut self,
        op: ActOp,
        target: Target,
        level: i64,
        all: bool,
        scope: Holder,
        depth: usize,
        destroy: &mut Vec<CardKey>,
    ) {
        let place = match scope {
            Holder::Window(token) => Place::Consumed(token),
            Holder::Card(key) => Place::InCard(key),
            _ => return,
        };
        match op {
            ActOp::Adjust => match target {
                Target::None => {}
                Target::Cards(cards) => {
                    for key in cards {
                        if level > 0 {
                            for _ in 0..level {
                                if let Some(copy) = self.duplicate(key, place) {
                                    self.set_free(copy, false);
                                }
                            }
                        } else if level < 0
                            && self.state.cards_of(scope).contains(&key)
                            && Some(key) != scope_card(scope)
                        {
                            self.detach(key);
                            destroy.push(key);
                        }
                    }
                }
                Target::Fragment(Fragment::Card(card_type)) => {
                    if level > 0 {
                        for _ in 0..level {
                            if let Some(key) = self.create_card(&card_type, place) {
                                self.set_free(key, false);
                            }
                        }
                    } else if level < 0 {
                        let inside: Vec<CardKey> = self
                            .state
                            .cards_of(scope)
                            .into_iter()
                            .filter(|key| {
                                Some(*key) != scope_card(scope) && self.type_of(*key).as_ref() == Some(&card_type)
                            })
                            .take(level.unsigned_abs() as usize)
                            .collect();
                        for key in inside {
                            self.detach(key);
                            destroy.push(key);
                        }
                    }
                }
                Target::Fragment(Fragment::Aspect(aspect)) => self.adjust_aspect(scope, &aspect, level),
            },
            ActOp::Grab => {
                let Holder::Window(token) = scope else { return };
                let candidates = self.resolve_anywhere(&target);
                let tries = if all { candidates.len() } else { usize::try_from(level.max(0)).unwrap_or(0) };
                for key in candidates.into_iter().take(tries) {
                    if self.state.card(key).is_some_and(|card| card.free) {
                        if let Some(Place::Slot(from, at)) = self.state.card(key).map(|card| card.place) {
                            self.take_out(from, at, true);
                        }
                        self.move_card(key, Place::Consumed(token));
                        self.set_free(key, false);
                    }
                }
            }
            ActOp::Expulse => {
                for key in self.resolve_anywhere(&target) {
                    if let Some(Place::Slot(from, at)) = self.state.card(key).map(|card| card.place) {
                        self.take_out(from, at, true);
                    } else {
                        self.move_card(key, Place::Table);
                    }
                    self.set_free(key, true);
                }
            }
            ActOp::SetMemory => {
                let memory = match target {
                    Target::Fragment(fragment) => Some(fragment),
                    Target::Cards(cards) => {
                        cards.first().and_then(|key| self.state.card(*key)).and_then(|card| card.memory.clone())
                    }
                    Target::None => return,
                };
                match scope {
                    Holder::Window(token) => {
                        if let Some(window) = self.state.windows.get_mut(&token) {
                            window.memory = memory;
                        }
                    }
                    Holder::Card(key) => {
                        if let Some(card) = self.state.cards.get_mut(&key) {
                            card.memory = memory;
                        }
                    }
                    _ => {}
                }
            }
            ActOp::RunTriggers => self.run_triggers(target, scope, depth),
        }
    }

    /// RunTriggers: the target's rules run now in a new context on the window, closed at once.
    fn run_triggers(&mut self, target: Target, scope: Holder, depth: usize) {
        let Holder::Window(_) = scope else { return };
        let mut ctx = Ctx::new(scope, depth + 1);
        let content = self.content;
        match target {
            Target::None => {}
            Target::Fragment(fragment) => {
                let rules: Vec<RuleId> = match &fragment {
                    Fragment::Aspect(id) => content.aspect(id.as_str()).map(|a| a.rules.clone()),
                    Fragment::Card(id) => content.card(id.as_str()).map(|c| c.rules.clone()),
                }
                .unwrap_or_default();
                ctx.this_fragment = Some(fragment);
                for rule in &rules {
                    self.run_rule(rule, &mut ctx);
                }
            }
            Target::Cards(cards) => {
                for key in cards {
                    let Some(card_type) = self.type_of(key) else { continue };
                    let rules = content.card(card_type.as_str()).map(|c| c.rules.clone()).unwrap_or_default();
                    ctx.this_card = Some(key);
                    ctx.this_fragment = Some(Fragment::Card(card_type));
                    for rule in &rules {
                        self.run_rule(rule, &mut ctx);
                    }
                }
            }
        }
        if depth < super::rules::MAX_RULE_DEPTH {
            self.close(ctx);
        } else {
            self.warn("triggers run each other too deeply; stopped");
        }
    }

    /// Cards a Grab or Expulse target means, searched in the whole world.
    fn resolve_anywhere(&self, target: &Target) -> Vec<CardKey> {
        match target {
            Target::None => Vec::new(),
            Target::Cards(cards) => cards.clone(),
            Target::Fragment(fragment) => self
                .state
                .cards_of(Holder::Root)
                .into_iter()
                .filter(|key| !matches!(self.state.card(*key).map(|c| c.place), Some(Place::InCard(_))))
                .filter(|key| self.holds(*key, fragment))
                .collect(),
        }
    }

    /// FragmentAdditive on one target card (§2.7.3).
    fn fragment_additive(&mut self, key: CardKey, what: &Target, level: i64) {
        match what {
            Target::Fragment(Fragment::Aspect(aspect)) => self.adjust_aspect(Holder::Card(key), aspect, level),
            Target::Fragment(Fragment::Card(card_type)) => {
                if level > 0 {
                    for _ in 0..level {
                        if let Some(sub) = self.create_card(card_type, Place::InCard(key)) {
                            self.set_free(sub, false);
                        }
                    }
                } else {
                    let subs: Vec<CardKey> = self.state.card(key).map(|c| c.children.clone()).unwrap_or_default();
                    let removed: Vec<CardKey> = subs
                        .into_iter()
                        .filter(|sub| self.type_of(*sub).as_ref() == Some(card_type))
                        .take(level.unsigned_abs() as usize)
                        .collect();
                    for sub in removed {
                        self.destroy(sub);
                    }
                }
            }
            Target::Cards(cards) => {
                for listed in cards {
                    if level > 0 {
                        for _ in 0..level {
                            if let Some(copy) = self.duplicate(*listed, Place::InCard(key)) {
                                self.set_free(copy, false);
                            }
                        }
                    } else if level < 0 && self.state.cards_of(Holder::Card(key)).contains(listed) && *listed != key {
                        self.destroy(*listed);
                    }
                }
            }
            Target::None => {}
        }
    }

    fn perform_card(&mut self, op: CardOp, key: CardKey, what: &Target, level: i64, scope: Holder) {
        match op {
            CardOp::FragmentAdditive => self.fragment_additive(key, what, level),
            CardOp::FragmentSet => {
                if let Target::Fragment(fragment) = what {
                    let current = self.state.count(Holder::Card(key), fragment, false);
                    self.fragment_additive(key, what, level - current);
                }
            }
            CardOp::Transform => {
                if level <= 0 {
                    return;
                }
                let types: Vec<CardId> = match what {
                    Target::Fragment(Fragment::Card(card_type)) => vec![card_type.clone()],
                    Target::Cards(cards) => cards.iter().filter_map(|listed| self.type_of(*listed)).collect(),
                    _ => return,
                };
                let place = match scope {
                    Holder::Window(token) => Place::Consumed(token),
                    Holder::Card(card) => Place::InCard(card),
                    _ => return,
                };
                for card_type in types {
                    self.transform(key, &card_type);
                    for _ in 1..level {
                        if let Some(copy) = self.duplicate(key, place) {
                            self.set_free(copy, false);
                        }
                    }
                }
            }
            CardOp::Decay => {
                let (into, ticks) = if let Target::Fragment(Fragment::Card(card_type)) = what {
                    (Some(card_type.clone()), level.max(0) as u64)
                } else {
                    let Some(card) = self.type_of(key).and_then(|t| self.content.card(t.as_str())) else {
                        return;
                    };
                    (card.decay_to.clone(), card.lifetime_ticks.as_int().unwrap_or(0).max(0) as u64)
                };
                let shrink = self.content.shrink_ticks;
                if let Some(card) = self.state.cards.get_mut(&key) {
                    card.decay = Some(Decay { into, remaining: ticks + shrink });
                }
            }
            CardOp::SetMemory => {
                let memory = match what {
                    Target::Fragment(Fragment::Aspect(aspect)) => Some(Fragment::Aspect(aspect.clone())),
                    Target::Cards(cards) if !cards.is_empty() => {
                        cards.first().and_then(|first| self.state.card(*first)).and_then(|c| c.memory.clone())
                    }
                    Target::None => None,
                    _ => return,
                };
                if let Some(card) = self.state.cards.get_mut(&key) {
                    card.memory = memory;
                }
            }
            CardOp::Spread => {
                let Target::Cards(cards) = what else { return };
                for listed in cards {
                    let Some(listed_card) = self.state.card(*listed).cloned() else { continue };
                    let has_same = self.state.card(key).is_some_and(|card| {
                        card.children.iter().any(|sub| {
                            self.state
                                .card(*sub)
                                .is_some_and(|s| s.card == listed_card.card && s.memory == listed_card.memory)
                        })
                    });
                    if !has_same && let Some(copy) = self.duplicate(*listed, Place::InCard(key)) {
                        self.set_free(copy, false);
                    }
                }
            }
        }
    }

    fn perform_path(&mut self, modifier: &crate::model::PathModifier, token: TokenKey) {
        let act = modifier.act.clone();
        match modifier.op {
            PathOp::BranchOut | PathOp::ForceAct | PathOp::SetCallback => {
                let Some(window) = self.state.windows.get_mut(&token) else { return };
                match modifier.op {
                    PathOp::BranchOut if act.is_some() => window.branch = act,
                    PathOp::ForceAct if act.is_some() => window.forced = act,
                    PathOp::SetCallback => window.callback = act,
                    _ => {}
                }
            }
            PathOp::Callback => {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    window.do_callback = true;
                }
            }
            PathOp::GameOver => self.game_over(act),
            PathOp::EndGame => {
                self.state.outcome.get_or_insert(super::state::Outcome::Ended(modifier.text.clone()));
                self.events.push(Event::GameEnded { outcome: modifier.text.clone() });
            }
            PathOp::Warning => self.warn(modifier.text.clone()),
            PathOp::Error => {
                self.state.outcome.get_or_insert(super::state::Outcome::Stopped(modifier.text.clone()));
                self.events.push(Event::GameEnded { outcome: modifier.text.clone() });
            }
        }
    }

    /// Game over (§2.15): everything is cleared and `act` starts in a new token.
    fn game_over(&mut self, act: Option<ActId>) {
        self.state.cards.clear();
        self.state.table.clear();
        self.state.windows.clear();
        self.state.decks.clear();
        self.state.pending_tokens.clear();
        self.instant.clear();
        self.events.push(Event::GameOver { act: act.clone() });
        if let Some(act) = act
            && let Some(token_type) = self.content.act(act.as_str()).and_then(|a| a.token.clone())
        {
            self.spawn_token(&token_type, Some(act), None);
        }
    }

    // ----- decks -------------------------------------------------------------------------

    fn fill(&mut self, deck: &crate::model::DeckId) -> Vec<CardId> {
        let Some(definition) = self.content.deck(deck.as_str()) else { return Vec::new() };
        let mut entries = definition.fragments.clone();
        if definition.shuffle {
            // Intended behaviour: a uniform shuffle (the original's insertion always put the
            // first entry last).
            for at in (1..entries.len()).rev() {
                let other = self.below(at + 1);
                entries.swap(at, other);
            }
        }
        entries
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

    fn perform_deck(&mut self, op: DeckOp, deck: &crate::model::DeckId, target: &Target, scope: Holder) {
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
            DeckOp::ForwardShift => {
                let Target::Fragment(fragment) = target else { return };
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
    }

    // ----- decay and time ----------------------------------------------------------------

    /// A card's decay finished (§2.11.6).
    pub fn decay_done(&mut self, key: CardKey) {
        let content = self.content;
        let Some(card) = self.state.cards.get_mut(&key) else { return };
        let Some(decay) = card.decay.take() else { return };
        let old_type = card.card.clone();
        if let Some(rule) = content.card(old_type.as_str()).and_then(|c| c.on_decay_complete.clone()) {
            self.run_card_rule(&rule, key);
        }
        match decay.into {
            Some(into) => {
                self.transform(key, &into);
                if let Some(rule) = content.card(into.as_str()).and_then(|c| c.on_decay_into.clone()) {
                    self.run_card_rule(&rule, key);
                }
            }
            None => self.destroy(key),
        }
    }

    fn run_card_rule(&mut self, rule: &RuleId, key: CardKey) {
        let mut ctx = Ctx::new(Holder::Card(key), 0);
        ctx.this_card = Some(key);
        ctx.this_fragment = self.type_of(key).map(Fragment::Card);
        self.run_rule(rule, &mut ctx);
        self.close(ctx);
    }

    // ----- texts -------------------------------------------------------------------------

    /// A text with its text rules (§2.10), interpolated against the window.
    pub fn rule_text(&mut self, fallback: &'a str, rules: &[RuleId], token: TokenKey) -> Cow<'a, str> {
        let content = self.content;
        let mut chosen = fallback;
        if !rules.is_empty() {
            let mut ctx = Ctx::new(Holder::Window(token), 0);
            for rule_id in rules {
                let Some(rule) = content.rule(rule_id.as_str()) else { continue };
                if self.evaluate(&rule.requirements, rule.invert, false, &mut ctx) {
                    chosen = &rule.text;
                    break;
                }
            }
        }
        // Blocks and substitutions all start with `[`: a text without one is shown as written.
        if !chosen.contains('[') {
            return Cow::Borrowed(chosen);
        }
        let state = &*self.state;
        let first_label = state
            .window(token)
            .and_then(|w| w.saved_matches.first())
            .and_then(|key| state.card(*key))
            .and_then(|card| content.card(card.card.as_str()))
            .map_or("", |card| card.label.as_str());
        let in_window = state.aspects_in_window(token);
        Cow::Owned(interpolate(chosen, first_label, |name| {
            let aspect = Fragment::Aspect(name.into());
            let in_window = in_window.iter().any(|a| a.as_str() == name);
            if in_window {
                state.count(Holder::Window(token), &aspect, false)
            } else {
                state.count(Holder::Window(token), &Fragment::Card(name.into()), false)
            }
        }))
    }
}

/// Writes `text` into `shown` unless it says that already (windows are re-shown at every
/// step; most steps change no text, and then nothing is allocated).
fn show(shown: &mut String, text: &str) {
    if shown != text {
        text.clone_into(shown);
    }
}

/// Removes `key` from a list of cards. A card is listed once where it is, so the search stops
/// at the first (a table of 80 cards is not scanned to its end at every move).
fn remove_first(list: &mut Vec<CardKey>, key: CardKey) {
    if let Some(at) = list.iter().position(|k| *k == key) {
        list.remove(at);
    }
}

/// What a window's completed act left for what runs next (path modifiers, §2.8.3 step 8).
struct NextRun {
    forced: Option<ActId>,
    branch: Option<ActId>,
    do_callback: bool,
    callback: Option<ActId>,
}

/// The card a card scope is (not counted as inside itself for removals).
fn scope_card(scope: Holder) -> Option<CardKey> {
    match scope {
        Holder::Card(key) => Some(key),
        _ => None,
    }
}

/// The part of slot acceptance that only reads the card (§2.9.3): accept all, essential,
/// forbidden and required counts. The card rule, which may draw random numbers, comes after.
pub(super) fn accepts_by_counts(slot: &crate::model::Slot, state: &TableState, key: CardKey) -> bool {
    card_accepted_by_counts(slot, state, key, state.card(key))
}

/// [`accepts_by_counts`] of a card already looked up (`card` is `key`'s instance, if any).
pub(super) fn card_accepted_by_counts(
    slot: &crate::model::Slot,
    state: &TableState,
    key: CardKey,
    card: Option<&CardInstance>,
) -> bool {
    if slot.accept_all {
        return true;
    }
    // A card without sub-cards is counted in place (listing choices asks this of every card
    // for every slot); a card holding others walks its tree.
    let leaf = card.filter(|card| card.children.is_empty());
    let count = |entry: &FragmentCount| {
        let have = match (&entry.fragment, leaf) {
            (FragmentRef::Aspect(id), Some(card)) => card.aspects.get(id),
            (FragmentRef::Card(id), Some(card)) => i64::from(card.card == *id),
            (FragmentRef::Aspect(id), None) => state.count(Holder::Card(key), &Fragment::Aspect(id.clone()), false),
            (FragmentRef::Card(id), None) => state.count(Holder::Card(key), &Fragment::Card(id.clone()), false),
            _ => return (0, 1),
        };
        (have, entry.count.as_int().unwrap_or(1))
    };
    slot.essential.iter().all(|entry| {
        let (have, need) = count(entry);
        have >= need
    }) && !slot.forbidden.iter().any(|entry| {
        let (have, limit) = count(entry);
        have >= limit
    }) && (slot.required.is_empty()
        || slot.required.iter().any(|entry| {
            let (have, need) = count(entry);
            have >= need
        }))
}
