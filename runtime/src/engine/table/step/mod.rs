//! One step of the table (`spec/cultistlike.md` §2.8–§2.16): an [`Engine`] borrows the content, the
//! state, the generator and the event list; its methods move cards, open slots, run acts, perform
//! modifiers, draw from decks, decay cards and choose texts (one file per part).

mod acts;
mod cards;
mod decay;
mod decks;
mod modifiers;
mod slots;
mod texts;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::core;
use crate::engine::table::{CardInstance, CardKey, Fragment, Holder, Place, TableState, TokenKey};
use crate::model::{ActId, FragmentCount, FragmentRef, SlotId};

/// Most act completions in one step: beyond, an instant-act loop is cut with a warning.
pub(crate) const MAX_COMPLETIONS_PER_STEP: usize = 10_000;

pub(crate) use crate::model::MAX_CARDS_CREATED_PER_STEP;

/// Most cards in play at once; beyond, nothing more is created (with a warning).
pub(crate) const MAX_CARDS_IN_PLAY: usize = 100_000;

/// How deeply cards may hold cards that were created inside them (a card type that holds
/// itself would otherwise nest without end).
const MAX_CARD_NESTING: usize = 16;

/// Most passes of slot recomputation before giving up on a window (cards keep leaving).
const MAX_SLOT_PASSES: usize = 16;

/// One step of work on the table: the content, the state and the generator, borrowed.
pub(crate) struct Engine<'a> {
    pub content: &'a Content,
    pub state: &'a mut TableState,
    pub rng: &'a mut Pcg64Mcg,
    pub events: &'a mut Vec<Event>,
    /// Windows whose running act completes at once, in order.
    pub instant: Vec<TokenKey>,
    completions: usize,
    /// The rules run so far in this step (bounded).
    pub work: crate::engine::core::StepWork,
    /// Cards created so far in this step (at most [`MAX_CARDS_CREATED_PER_STEP`]).
    created: usize,
    /// Creation ran out of budget in this step (its warning is given once).
    creation_cut: bool,
    /// Requirements evaluated (act entry tests, slot and text rules, rules), for [`crate::engine::Counters`].
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
            work: crate::engine::core::StepWork::default(),
            created: 0,
            creation_cut: false,
        }
    }

    /// A uniform integer in `0..n` (0 when `n` is 0, with no draw).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { core::below(self.rng.next_u64(), n) }
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
pub(crate) fn accepts_by_counts(slot: &crate::model::Slot, state: &TableState, key: CardKey) -> bool {
    card_accepted_by_counts(slot, state, key, state.card(key))
}

/// What card `key` (`card`, its instance, if any) holds of a slot's count entry, and the count
/// the entry names: `(have, count)`.
pub(crate) fn slot_count(
    state: &TableState,
    key: CardKey,
    card: Option<&CardInstance>,
    entry: &FragmentCount,
) -> (i64, i64) {
    // A card without sub-cards is counted in place (listing choices asks this of every card
    // for every slot); a card holding others walks its tree.
    let leaf = card.filter(|card| card.children.is_empty());
    let have = match (&entry.fragment, leaf) {
        (FragmentRef::Aspect(id), Some(card)) => card.aspects.get(id),
        (FragmentRef::Card(id), Some(card)) => i64::from(card.card == *id),
        (FragmentRef::Aspect(id), None) => state.count(Holder::Card(key), &Fragment::Aspect(id.clone()), false),
        (FragmentRef::Card(id), None) => state.count(Holder::Card(key), &Fragment::Card(id.clone()), false),
        _ => return (0, 1),
    };
    (have, entry.count.as_int().unwrap_or(1))
}

/// [`accepts_by_counts`] of a card already looked up (`card` is `key`'s instance, if any).
pub(crate) fn card_accepted_by_counts(
    slot: &crate::model::Slot,
    state: &TableState,
    key: CardKey,
    card: Option<&CardInstance>,
) -> bool {
    if slot.accept_all {
        return true;
    }
    let count = |entry: &FragmentCount| slot_count(state, key, card, entry);
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
