//! Slots: acceptance, which slots open, grabbing, slotting and taking out (§2.9).

use super::{Engine, MAX_SLOT_PASSES, accepts_by_counts};

use crate::engine::table::rules::RuleContext;
use crate::engine::table::{CardKey, Holder, OpenSlot, Place, Status, TokenKey};
use crate::model::{FragmentCount, FragmentRef, SlotId};

impl<'a> Engine<'a> {
    /// Whether `slot` accepts card `key` (§2.9.3).
    pub fn accepts(&mut self, slot: &SlotId, key: CardKey) -> bool {
        let content = self.content;
        let Some(slot) = content.slot(slot.as_str()) else { return false };
        if !accepts_by_counts(slot, self.state, key) {
            return false;
        }
        match &slot.card_rule {
            Some(rule) if !slot.accept_all => {
                let mut ctx = RuleContext::new(Holder::Card(key), 0);
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
        let mut ctx = RuleContext::new(Holder::Window(token), 0);
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
                    *place = Some(OpenSlot { slot: slot.clone(), card: None, added: Vec::new() });
                }
                self.refresh_grab(token, at);
            }
            self.slot_lists.to_open = to_open;
            return;
        }
        self.warn("slots kept changing while they were recomputed; stopped");
    }

    pub(crate) fn close_place(&mut self, token: TokenKey, at: usize) {
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
    pub(crate) fn offer_to_grab_slots(&mut self, keys: &[CardKey]) {
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
        let holder = Holder::Window(token);
        let counts: Vec<i64> = slot.fragments.iter().map(|entry| self.fragment_count(holder, entry)).collect();
        for (entry, count) in slot.fragments.iter().zip(&counts) {
            self.add_counted(holder, &entry.fragment, *count, 1);
        }
        if slot.fragments.iter().any(|entry| entry.count.as_int().is_none())
            && let Some(Some(open)) = self.state.windows.get_mut(&token).and_then(|w| w.places.get_mut(at))
        {
            open.added = counts;
        }
        self.mark(token);
    }

    /// Takes the card out of a place back to the table (§2.8.6, §2.9.5). With `first_rule`,
    /// emptying a first slot returns every idle-slotted card too.
    pub(crate) fn take_out(&mut self, token: TokenKey, at: usize, first_rule: bool) {
        let content = self.content;
        let Some(open) = self.state.window(token).and_then(|w| w.places.get(at).cloned().flatten()) else { return };
        let Some(key) = open.card else { return };
        self.move_card(key, Place::Table);
        self.set_free(key, true);
        if let Some(slot) = content.slot(open.slot.as_str()) {
            let holder = Holder::Window(token);
            for (index, entry) in slot.fragments.iter().enumerate() {
                let count = match open.added.get(index) {
                    Some(added) => *added,
                    None => self.fragment_count(holder, entry),
                };
                self.add_counted(holder, &entry.fragment, count, -1);
            }
            if let Some(Some(place)) = self.state.windows.get_mut(&token).and_then(|w| w.places.get_mut(at)) {
                place.added.clear();
            }
        }
        let (idle_places, first_run_place) =
            self.state.window(token).map_or((0..0, 0), |w| (w.idle_range(), w.run_range().start));
        if first_rule && (at == 0 || at == first_run_place) {
            for idle in idle_places {
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
        for at in window.idle_range() {
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
    pub(crate) fn add_fragment(&mut self, holder: Holder, entry: &FragmentCount, sign: i64) {
        let count = self.fragment_count(holder, entry);
        self.add_counted(holder, &entry.fragment, count, sign);
    }

    /// The count of a slot or act fragment entry, its formula read in the context of the
    /// holder receiving it (its window or card); never negative.
    fn fragment_count(&mut self, holder: Holder, entry: &FragmentCount) -> i64 {
        self.number(&entry.count, &RuleContext::new(holder, 0)).max(0)
    }

    /// Adds (`sign` 1) or removes (`sign` -1) `count` of a fragment in a holder.
    fn add_counted(&mut self, holder: Holder, fragment: &FragmentRef, count: i64, sign: i64) {
        match fragment {
            FragmentRef::Aspect(aspect) => self.adjust_aspect(holder, aspect, sign.saturating_mul(count)),
            FragmentRef::Card(card_type) => {
                let Holder::Window(token) = holder else { return };
                if sign > 0 {
                    for _ in 0..count {
                        // Once refused, always refused in this step (creations cut, or a unique card exists).
                        let Some(key) = self.create_card(card_type, Place::Consumed(token)) else { break };
                        self.set_free(key, false);
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
}
