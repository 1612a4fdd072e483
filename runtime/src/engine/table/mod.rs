//! The table system (`spec/cultistlike.md` §2): acts run in token windows, cards move through
//! slots, rules test and modify, decks are drawn, cards decay.
//!
//! This file holds the table's state: card instances, token windows and decks, and how the
//! holders nest (§2.1); read-only for everything outside the engine. `step/` is what one step
//! does, `rules.rs` its rule contexts and what it lends the rules core (`core/`), `env.rs` the formula environment, `listing.rs`
//! the choices, `session.rs` and `script.rs` the Session's table methods and playtest lines.

pub mod bars;
mod env;
pub(crate) mod listing;
pub(crate) mod rules;
pub(crate) mod script;
mod session;
pub(crate) mod step;
pub mod text;

pub(crate) use step::Engine;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::{ActId, AspectId, CardId, DeckId, RuleId, SlotId, TokenId};

/// A card instance; stable for the whole session (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct CardKey(pub u32);

/// A token instance (and its act window); stable for the whole session (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TokenKey(pub u32);

/// Idle slot places of a stock window (a token's default; a window's own are
/// [`Window::idle_range`]).
pub const IDLE_PLACES: usize = crate::model::STOCK_IDLE_PLACES as usize;
/// The run slot place of a stock window (a window's own are [`Window::run_range`]).
pub const RUN_PLACE: usize = IDLE_PLACES;
/// All slot places of a stock window.
pub const PLACES: usize = IDLE_PLACES + crate::model::STOCK_RUN_PLACES as usize;

/// The status text of a mutator card type (§2.11.5): the `TEXT` of a label `{{TEXT}}`, if the
/// label is one.
pub fn mutator_text(label: &str) -> Option<&str> {
    label.strip_prefix("{{")?.strip_suffix("}}")
}

/// A concrete fragment: an aspect or a card type.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Fragment {
    /// An aspect.
    Aspect(AspectId),
    /// A card type.
    Card(CardId),
}

/// Counts of aspects held directly (never zero), in id order. A sorted list rather than a
/// map: a card holds a few aspects and a session is cloned often (`choices`, simulation).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct AspectCounts(Vec<(AspectId, i64)>);

impl AspectCounts {
    /// Whether both hold the same counts of copies of the same ids: a cheap test that compares
    /// ids by address, so it may answer `false` for equal counts (never `true` for different).
    #[inline]
    pub fn same_shared(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && std::iter::zip(&self.0, &other.0).all(|((a, n), (b, m))| n == m && a.shares_text(b))
    }

    /// How many of `aspect` are held (0 when none).
    pub fn get(&self, aspect: &AspectId) -> i64 {
        // A card holds a few aspects: one pass, where `Id`'s equality compares addresses
        // first (the engine stores the content's own ids) and texts of equal length only.
        self.0.iter().find(|(held, _)| held == aspect).map_or(0, |(_, count)| *count)
    }

    /// Adds `delta` (may be negative) to `aspect`; counts never go below 0 and 0 is not kept.
    pub fn adjust(&mut self, aspect: &AspectId, delta: i64) {
        match self.0.binary_search_by(|(held, _)| held.cmp(aspect)) {
            Ok(at) => {
                let Some((_, count)) = self.0.get_mut(at) else { return };
                *count = count.saturating_add(delta).max(0);
                if *count == 0 {
                    self.0.remove(at);
                }
            }
            Err(at) if delta > 0 => self.0.insert(at, (aspect.clone(), delta)),
            Err(_) => {}
        }
    }

    /// The held aspects and their counts, in id order.
    pub fn iter(&self) -> impl Iterator<Item = (&AspectId, i64)> {
        self.0.iter().map(|(aspect, count)| (aspect, *count))
    }

    /// Holds nothing any more.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

/// Where a card instance is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Place {
    /// Lying on the table.
    Table,
    /// In slot place `place` of a window.
    Slot(TokenKey, usize),
    /// Consumed into or created inside a window (its decay pauses there).
    Consumed(TokenKey),
    /// In a window's result lane, waiting to be collected.
    Lane(TokenKey),
    /// A sub-card inside another card.
    InCard(CardKey),
}

impl Place {
    /// The holder a card at this place is in: its window, its parent card or the table.
    pub(crate) fn holder(self) -> Holder {
        match self {
            Self::Table => Holder::Table,
            Self::Slot(token, _) | Self::Consumed(token) | Self::Lane(token) => Holder::Window(token),
            Self::InCard(parent) => Holder::Card(parent),
        }
    }
}

/// A running decay.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Decay {
    /// The type it becomes; none: the card vanishes.
    pub into: Option<CardId>,
    /// Ticks left while not paused (the shrink animation's ticks included).
    pub remaining: u64,
}

/// One card in the world.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct CardInstance {
    /// Its card type.
    pub card: CardId,
    /// Its own (local) aspect counts.
    pub aspects: AspectCounts,
    /// Its sub-cards, in order.
    pub children: Vec<CardKey>,
    /// Where it is.
    pub place: Place,
    /// Its memory fragment.
    pub memory: Option<Fragment>,
    /// The player could pick it up (counted by the `free` location).
    pub free: bool,
    /// Drawn from a deck and not yet turned over.
    pub face_down: bool,
    /// Its decay, if one runs.
    pub decay: Option<Decay>,
    /// The mutator card type whose status it shows while that mutator runs (§2.11.5).
    pub mutator: Option<CardId>,
}

/// What a window is doing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Status {
    /// No act; the player may fill the idle slots.
    #[default]
    Idle,
    /// An initial act can start.
    Ready(ActId),
    /// An act runs.
    Running,
    /// The chain finished; results wait in the lane.
    Finished,
}

/// An open slot place.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct OpenSlot {
    /// The slot type.
    pub slot: SlotId,
    /// The card in it.
    pub card: Option<CardKey>,
    /// The counts of the slot's fragments added with the card, when some are formulas (so
    /// that taking it out removes what was added); empty when every count is a number.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<i64>,
}

/// A token on the table with its act window.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Window {
    /// The token type.
    pub token: TokenId,
    /// What it is doing.
    pub status: Status,
    /// Slot places: idle places first, then the run places (as many as its token holds).
    pub places: Vec<Option<OpenSlot>>,
    /// How many of `places` are idle places.
    pub idle_places: usize,
    /// Cards consumed into or created by the act (direct children of the window).
    pub consumed: Vec<CardKey>,
    /// Results waiting to be collected.
    pub lane: Vec<CardKey>,
    /// The window's own aspects.
    pub aspects: AspectCounts,
    /// The act that was started (alt switches do not change it).
    pub active: Option<ActId>,
    /// The alt act the run will complete as, if any.
    pub pending_alt: Option<ActId>,
    /// The alt candidates rolled when the act started.
    pub alt_list: Vec<ActId>,
    /// Tick at which the running act completes.
    pub timer_end: Option<u64>,
    /// Duration of the running act in ticks (for progress bars).
    pub timer_total: u64,
    /// The matched cards of the last successful entry attempt.
    pub saved_matches: Vec<CardKey>,
    /// The memory fragment.
    pub memory: Option<Fragment>,
    /// The callback act (kept until replaced).
    pub callback: Option<ActId>,
    /// Run the callback next.
    pub do_callback: bool,
    /// Acts branched out of, most recent last.
    pub call_stack: Vec<ActId>,
    /// Forced next act (path modifier), this completion only.
    pub forced: Option<ActId>,
    /// Branch-out act (path modifier), this completion only.
    pub branch: Option<ActId>,
    /// Rule run at the start of the first run (spawned acts).
    pub start_rule: Option<RuleId>,
    /// Title shown.
    pub title: String,
    /// Text shown.
    pub text: String,
    /// End text of the chain.
    pub end_text: String,
    /// Needs its re-evaluation at the end of the step.
    pub dirty: bool,
}

impl Window {
    /// A new idle window of `token` with `idle_places` idle and `run_places` run slot places
    /// (each at most [`crate::model::MAX_WINDOW_PLACES`]).
    pub fn new(token: TokenId, idle_places: usize, run_places: usize) -> Self {
        let most = crate::model::MAX_WINDOW_PLACES as usize;
        let (idle_places, run_places) = (idle_places.min(most), run_places.min(most));
        Self {
            token,
            status: Status::Idle,
            places: vec![None; idle_places.saturating_add(run_places)],
            idle_places,
            consumed: Vec::new(),
            lane: Vec::new(),
            aspects: AspectCounts::default(),
            active: None,
            pending_alt: None,
            alt_list: Vec::new(),
            timer_end: None,
            timer_total: 0,
            saved_matches: Vec::new(),
            memory: None,
            callback: None,
            do_callback: false,
            call_stack: Vec::new(),
            forced: None,
            branch: None,
            start_rule: None,
            title: String::new(),
            text: String::new(),
            end_text: String::new(),
            dirty: true,
        }
    }

    /// The card in slot place `place`.
    pub fn slotted(&self, place: usize) -> Option<CardKey> {
        self.places.get(place).and_then(|open| open.as_ref()).and_then(|open| open.card)
    }

    /// The place range of the current status (idle places, or the run places while running).
    pub fn status_places(&self) -> std::ops::Range<usize> {
        if self.status == Status::Running { self.run_range() } else { self.idle_range() }
    }

    /// The idle slot places.
    pub fn idle_range(&self) -> std::ops::Range<usize> {
        0..self.idle_places.min(self.places.len())
    }

    /// The run slot places (after the idle ones).
    pub fn run_range(&self) -> std::ops::Range<usize> {
        self.idle_places.min(self.places.len())..self.places.len()
    }
}

/// A token spawned during a step, created at its end.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct PendingToken {
    /// The token type.
    pub token: TokenId,
    /// The act it starts at once.
    pub auto_run: Option<ActId>,
    /// The memory fragment of the spawner.
    pub memory: Option<Fragment>,
}

/// Every card in the world by key, in key order. A sorted list rather than a tree: keys only
/// grow, so a new card is appended, a lookup is a binary search over packed keys, and the
/// engine walks every card several times a step (choices, timers, counts). Hashes, prints and
/// serialises exactly like the `BTreeMap` it replaces.
///
/// It also logs which cards could have changed (any mutable access logs the card), so listing
/// choices keeps what it worked out and redoes only the cards that changed since. The log is
/// not part of the state: equality, hashing and printing ignore it.
#[derive(Default)]
pub struct Cards {
    keys: Vec<CardKey>,
    instances: Vec<CardInstance>,
    changes: ChangeLog,
    /// Where each key is: `index[key - base]` is its position + 1 (0: no such card). Keys are
    /// given out in order, so this stays about as long as the list and a lookup is one read.
    index: Vec<u32>,
    base: u32,
}

/// The cards logged by [`Cards`] as changed, in order.
struct ChangeLog {
    /// Which list of cards this is: a new list, a copy or a cleared list gets a new one, so
    /// a reader of another list's log starts over.
    generation: u64,
    /// How many changes were dropped from the front of `keys` (the log keeps the recent ones).
    dropped: u64,
    keys: Vec<CardKey>,
}

/// Most changes kept in a [`ChangeLog`]; a reader further behind starts over.
const MOST_LOGGED_CHANGES: usize = 512;

/// A new generation for a [`ChangeLog`], unique in the process.
fn new_generation() -> u64 {
    static GENERATIONS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    GENERATIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Default for ChangeLog {
    fn default() -> Self {
        Self { generation: new_generation(), dropped: 0, keys: Vec::new() }
    }
}

impl ChangeLog {
    fn note(&mut self, key: CardKey) {
        if self.keys.len() >= MOST_LOGGED_CHANGES {
            self.dropped = self.dropped.saturating_add(self.keys.len() as u64);
            self.keys.clear();
        }
        self.keys.push(key);
    }
}

impl Clone for Cards {
    fn clone(&self) -> Self {
        // A copy changes apart from the original: its log starts empty, in a new generation.
        Self {
            keys: self.keys.clone(),
            instances: self.instances.clone(),
            changes: ChangeLog::default(),
            index: self.index.clone(),
            base: self.base,
        }
    }
}

impl PartialEq for Cards {
    fn eq(&self, other: &Self) -> bool {
        self.keys == other.keys && self.instances == other.instances
    }
}
impl Eq for Cards {}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "the index is kept by key from `base`, the smallest key listed, so a listed key is never below it; \
              positions fit in u32 (a table of 4 billion cards does not fit in memory)"
)]
impl Cards {
    /// The position of card `key`.
    fn position(&self, key: CardKey) -> Option<usize> {
        let slot = self.index.get(key.0.checked_sub(self.base)? as usize)?;
        (*slot as usize).checked_sub(1)
    }

    /// Rebuilds the index from the keys (after an insertion before the last key, or when
    /// many removed keys lead it).
    fn reindex(&mut self) {
        self.index.clear();
        let Some(first) = self.keys.first() else { return };
        self.base = first.0;
        for (at, key) in self.keys.iter().enumerate() {
            let offset = (key.0 - self.base) as usize;
            if self.index.len() <= offset {
                self.index.resize(offset + 1, 0);
            }
            if let Some(slot) = self.index.get_mut(offset) {
                *slot = at as u32 + 1;
            }
        }
    }

    /// The card `key`.
    pub fn get(&self, key: &CardKey) -> Option<&CardInstance> {
        self.position(*key).and_then(|at| self.instances.get(at))
    }

    /// The card `key`, to change.
    pub fn get_mut(&mut self, key: &CardKey) -> Option<&mut CardInstance> {
        let at = self.position(*key)?;
        self.changes.note(*key);
        self.instances.get_mut(at)
    }

    /// The card `key` with its stored key.
    pub fn get_key_value(&self, key: &CardKey) -> Option<(&CardKey, &CardInstance)> {
        let at = self.position(*key)?;
        Some((self.keys.get(at)?, self.instances.get(at)?))
    }

    /// Whether card `key` exists.
    pub fn contains_key(&self, key: &CardKey) -> bool {
        self.position(*key).is_some()
    }

    /// Puts `card` at `key`; returns the card it replaced.
    pub fn insert(&mut self, key: CardKey, card: CardInstance) -> Option<CardInstance> {
        self.changes.note(key);
        if let Some(at) = self.position(key) {
            return self.instances.get_mut(at).map(|old| std::mem::replace(old, card));
        }
        if self.keys.last().is_none_or(|last| *last < key) {
            // A new card: appended, its key given the next place in the index.
            if self.keys.is_empty() {
                self.index.clear();
                self.base = key.0;
            }
            let offset = (key.0 - self.base) as usize;
            self.index.resize(offset + 1, 0);
            if let Some(slot) = self.index.get_mut(offset) {
                *slot = self.keys.len() as u32 + 1;
            }
            self.keys.push(key);
            self.instances.push(card);
        } else {
            let at = self.keys.partition_point(|k| *k < key);
            self.keys.insert(at, key);
            self.instances.insert(at, card);
            self.reindex();
        }
        None
    }

    /// Removes card `key` and returns it.
    pub fn remove(&mut self, key: &CardKey) -> Option<CardInstance> {
        let at = self.position(*key)?;
        self.changes.note(*key);
        self.keys.remove(at);
        let card = self.instances.remove(at);
        if let Some(slot) = self.index.get_mut((key.0 - self.base) as usize) {
            *slot = 0;
        }
        // The cards after it moved one place down.
        for later in self.keys.get(at..).unwrap_or_default() {
            if let Some(slot) = self.index.get_mut((later.0 - self.base) as usize) {
                *slot -= 1;
            }
        }
        // Drop a long run of removed keys from the front of the index (the oldest cards are
        // often the first to go).
        let leading = self.keys.first().map_or(self.index.len(), |first| (first.0 - self.base) as usize);
        if leading > 64 && leading > self.index.len() / 2 {
            self.reindex();
        }
        Some(card)
    }

    /// Every card with its key, in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&CardKey, &CardInstance)> + ExactSizeIterator {
        self.keys.iter().zip(&self.instances)
    }

    /// Every card, in key order.
    pub fn values(&self) -> std::slice::Iter<'_, CardInstance> {
        self.instances.iter()
    }

    /// Every card, in key order, to change.
    pub fn values_mut(&mut self) -> std::slice::IterMut<'_, CardInstance> {
        self.changes = ChangeLog::default();
        self.instances.iter_mut()
    }

    /// Every key, in order.
    pub fn keys(&self) -> std::slice::Iter<'_, CardKey> {
        self.keys.iter()
    }

    /// How many cards there are.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there is no card.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Removes every card.
    pub fn clear(&mut self) {
        self.keys.clear();
        self.instances.clear();
        self.index.clear();
        self.changes = ChangeLog::default();
    }

    /// Where the change log stands: its generation and how many changes it has seen.
    pub(super) fn changes_seen(&self) -> (u64, u64) {
        (self.changes.generation, self.changes.dropped.saturating_add(self.changes.keys.len() as u64))
    }

    /// The cards logged as changed since a reader stood at `seen` (from
    /// [`Cards::changes_seen`]), in order and maybe repeated; none when the log no longer
    /// reaches back that far or is another list's.
    pub(super) fn changed_since(&self, seen: (u64, u64)) -> Option<&[CardKey]> {
        let (generation, count) = seen;
        if generation != self.changes.generation || count < self.changes.dropped {
            return None;
        }
        self.changes.keys.get(usize::try_from(count.checked_sub(self.changes.dropped)?).ok()?..)
    }
}

impl<'c> IntoIterator for &'c Cards {
    type Item = (&'c CardKey, &'c CardInstance);
    type IntoIter = std::iter::Zip<std::slice::Iter<'c, CardKey>, std::slice::Iter<'c, CardInstance>>;
    fn into_iter(self) -> Self::IntoIter {
        self.keys.iter().zip(&self.instances)
    }
}

/// Hashes, prints and serialises a key-sorted list of pairs exactly as a `BTreeMap` of them
/// (hashes of states, printed states and exported states stay as they were).
macro_rules! like_a_btree_map {
    ($list:ty) => {
        impl std::hash::Hash for $list {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                // As `BTreeMap` hashes: the length, then each pair.
                state.write_usize(self.len());
                for pair in self {
                    pair.hash(state);
                }
            }
        }

        impl std::fmt::Debug for $list {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_map().entries(self).finish()
            }
        }

        impl Serialize for $list {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_map(self)
            }
        }
    };
}

like_a_btree_map!(Cards);
like_a_btree_map!(Windows);

/// How the game ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Outcome {
    /// An `EndGame` path modifier named this outcome.
    Ended(String),
    /// An `Error` path modifier stopped the game with this message.
    Stopped(String),
}

/// The whole table.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct TableState {
    /// Game time in ticks.
    pub tick: u64,
    /// Every card in the world.
    pub cards: Cards,
    /// Cards on the table, in order of placement.
    pub table: Vec<CardKey>,
    /// Tokens in registry order (keys grow, so this is creation order).
    pub windows: Windows,
    /// The remaining entries of every deck in use.
    pub decks: BTreeMap<DeckId, Vec<CardId>>,
    /// Tokens to create at the end of the step.
    pub pending_tokens: Vec<PendingToken>,
    /// Set once the game has ended.
    pub outcome: Option<Outcome>,
    pub(super) next_card: u32,
    pub(super) next_token: u32,
}

/// The windows of the tokens on the table by key, in key order (registry order: keys grow). A
/// sorted list rather than a tree: a table has a handful of windows, and the engine looks them
/// up at every turn of a step. Hashes, prints and serialises exactly like a `BTreeMap`.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Windows(Vec<(TokenKey, Window)>);

impl Windows {
    fn position(&self, key: TokenKey) -> Result<usize, usize> {
        self.0.binary_search_by_key(&key, |(key, _)| *key)
    }

    /// The window of token `key`.
    pub fn get(&self, key: &TokenKey) -> Option<&Window> {
        self.position(*key).ok().and_then(|at| self.0.get(at)).map(|(_, window)| window)
    }

    /// The window of token `key`, to change.
    pub fn get_mut(&mut self, key: &TokenKey) -> Option<&mut Window> {
        self.position(*key).ok().and_then(|at| self.0.get_mut(at)).map(|(_, window)| window)
    }

    /// Whether token `key` has a window.
    pub fn contains_key(&self, key: &TokenKey) -> bool {
        self.position(*key).is_ok()
    }

    /// Puts `window` at `key`; returns the window it replaced.
    pub fn insert(&mut self, key: TokenKey, window: Window) -> Option<Window> {
        match self.position(key) {
            Ok(at) => self.0.get_mut(at).map(|(_, old)| std::mem::replace(old, window)),
            Err(at) => {
                self.0.insert(at, (key, window));
                None
            }
        }
    }

    /// Removes the window of token `key` and returns it.
    pub fn remove(&mut self, key: &TokenKey) -> Option<Window> {
        let at = self.position(*key).ok()?;
        Some(self.0.remove(at).1)
    }

    /// Every window with its key, in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&TokenKey, &Window)> + ExactSizeIterator {
        self.0.iter().map(|(key, window)| (key, window))
    }

    /// Every window, in key order.
    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Window> + ExactSizeIterator {
        self.0.iter().map(|(_, window)| window)
    }

    /// Every key, in order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &TokenKey> + ExactSizeIterator {
        self.0.iter().map(|(key, _)| key)
    }

    /// How many windows there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no window.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Removes every window.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<'w> IntoIterator for &'w Windows {
    type Item = (&'w TokenKey, &'w Window);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'w, (TokenKey, Window)>,
        fn(&'w (TokenKey, Window)) -> (&'w TokenKey, &'w Window),
    >;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(key, window)| (key, window))
    }
}

/// A holder: something that contains cards and aspects (§2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// The whole world.
    Root,
    /// The table.
    Table,
    /// An act window and everything in it.
    Window(TokenKey),
    /// Only the slot places of a window.
    Slots(TokenKey),
    /// A card (itself and its sub-cards).
    Card(CardKey),
}

impl TableState {
    /// The card instance `key`.
    pub fn card(&self, key: CardKey) -> Option<&CardInstance> {
        self.cards.get(&key)
    }

    /// The window of token `key`.
    pub fn window(&self, key: TokenKey) -> Option<&Window> {
        self.windows.get(&key)
    }

    /// Calls `f` on `key` and its sub-cards, depth first.
    fn visit_tree(&self, key: CardKey, f: &mut impl FnMut(CardKey, &CardInstance)) {
        if let Some(card) = self.cards.get(&key) {
            f(key, card);
            for child in &card.children {
                self.visit_tree(*child, f);
            }
        }
    }

    /// The top-level cards of a window in hierarchy order: slots, lane, consumed.
    fn window_roots(window: &Window) -> impl Iterator<Item = CardKey> + '_ {
        window
            .places
            .iter()
            .filter_map(|open| open.as_ref().and_then(|open| open.card))
            .chain(window.lane.iter().copied())
            .chain(window.consumed.iter().copied())
    }

    /// Every card inside `holder`, depth first in hierarchy order.
    pub fn cards_of(&self, holder: Holder) -> Vec<CardKey> {
        let mut out = Vec::new();
        self.for_each_card(holder, &mut |key, _| out.push(key));
        out
    }

    /// Calls `f` on every card inside `holder`, depth first in hierarchy order (no list built:
    /// counting runs at every test).
    pub fn for_each_card(&self, holder: Holder, f: &mut impl FnMut(CardKey, &CardInstance)) {
        match holder {
            Holder::Root => {
                for key in &self.table {
                    self.visit_tree(*key, f);
                }
                for window in self.windows.values() {
                    for key in Self::window_roots(window) {
                        self.visit_tree(key, f);
                    }
                }
            }
            Holder::Table => {
                for key in &self.table {
                    self.visit_tree(*key, f);
                }
            }
            Holder::Window(token) => {
                if let Some(window) = self.windows.get(&token) {
                    for key in Self::window_roots(window) {
                        self.visit_tree(key, f);
                    }
                }
            }
            Holder::Slots(token) => {
                if let Some(window) = self.windows.get(&token) {
                    for key in window.places.iter().filter_map(|open| open.as_ref().and_then(|open| open.card)) {
                        self.visit_tree(key, f);
                    }
                }
            }
            Holder::Card(key) => self.visit_tree(key, f),
        }
    }

    /// How many of `fragment` are in `holder` (§2.1.1); with `free_only`, only free cards
    /// count (window aspects are not counted as free: the intended meaning of `free`).
    pub fn count(&self, holder: Holder, fragment: &Fragment, free_only: bool) -> i64 {
        let mut total: i64 = 0;
        match fragment {
            Fragment::Card(card_type) => self.for_each_card(holder, &mut |_, card| {
                if (!free_only || card.free) && card.card == *card_type {
                    total = total.saturating_add(1);
                }
            }),
            Fragment::Aspect(aspect) => {
                self.for_each_card(holder, &mut |_, card| {
                    if !free_only || card.free {
                        total = total.saturating_add(card.aspects.get(aspect));
                    }
                });
                let in_windows = |window: &Window| window.aspects.get(aspect);
                if !free_only {
                    total = total.saturating_add(match holder {
                        Holder::Root => self.windows.values().map(in_windows).fold(0, i64::saturating_add),
                        Holder::Window(token) => self.windows.get(&token).map_or(0, in_windows),
                        Holder::Table | Holder::Slots(_) | Holder::Card(_) => 0,
                    });
                }
            }
        }
        total
    }

    /// Every distinct aspect present in a window (on the window or on its cards), in id order.
    pub fn aspects_in_window(&self, token: TokenKey) -> Vec<AspectId> {
        // A list sorted and deduplicated once: a window holds a handful of aspects, and a
        // set's node per aspect cost more than the whole sort.
        let mut found = Vec::new();
        if let Some(window) = self.windows.get(&token) {
            found.extend(window.aspects.iter().map(|(aspect, _)| aspect.clone()));
        }
        self.for_each_card(Holder::Window(token), &mut |_, card| {
            found.extend(card.aspects.iter().map(|(aspect, _)| aspect.clone()));
        });
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The window a card is in (directly or inside another card), if any.
    pub fn window_of(&self, key: CardKey) -> Option<TokenKey> {
        let mut at = key;
        for _ in 0..=self.cards.len() {
            match self.cards.get(&at)?.place {
                Place::Table => return None,
                Place::Slot(token, _) | Place::Consumed(token) | Place::Lane(token) => return Some(token),
                Place::InCard(parent) => at = parent,
            }
        }
        None
    }

    /// Whether the decay of a card at `place` is paused: it sits (directly or in a card) inside
    /// an act.
    pub fn decay_paused_at(&self, place: Place) -> bool {
        let mut place = place;
        for _ in 0..=self.cards.len() {
            match place {
                Place::Consumed(_) => return true,
                Place::InCard(parent) => match self.cards.get(&parent) {
                    Some(card) => place = card.place,
                    None => return false,
                },
                Place::Table | Place::Slot(..) | Place::Lane(_) => return false,
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // a test

    use std::collections::BTreeMap;
    use std::hash::Hash as _;

    use proptest::prelude::*;

    use super::*;

    fn card(n: u32) -> CardInstance {
        CardInstance {
            card: CardId::new(format!("c{n}")),
            aspects: AspectCounts::default(),
            children: Vec::new(),
            place: Place::Table,
            memory: None,
            free: true,
            face_down: false,
            decay: None,
            mutator: None,
        }
    }

    proptest! {
        /// `Cards` answers, iterates, hashes and prints like the `BTreeMap` it replaces,
        /// whatever the order of insertions (mostly new keys, sometimes old ones) and removals.
        #[test]
        fn cards_behave_like_a_btree_map(ops in proptest::collection::vec((0u8..4, 0u32..300), 0..400)) {
            let mut cards = Cards::default();
            let mut model = BTreeMap::new();
            let mut next = 0;
            for (op, n) in ops {
                match op {
                    0 | 1 => {
                        next += 1 + n % 3;
                        cards.insert(CardKey(next), card(n));
                        model.insert(CardKey(next), card(n));
                    }
                    2 => {
                        prop_assert_eq!(cards.remove(&CardKey(n)), model.remove(&CardKey(n)));
                    }
                    _ => {
                        cards.insert(CardKey(n), card(n + 1));
                        model.insert(CardKey(n), card(n + 1));
                    }
                }
                prop_assert_eq!(cards.len(), model.len());
            }
            for n in 0..=next + 1 {
                prop_assert_eq!(cards.get(&CardKey(n)), model.get(&CardKey(n)));
            }
            prop_assert!(cards.iter().eq(model.iter()));
            let hash = |value: &dyn Fn(&mut rustc_hash::FxHasher)| {
                let mut hasher = rustc_hash::FxHasher::default();
                value(&mut hasher);
                std::hash::Hasher::finish(&hasher)
            };
            prop_assert_eq!(hash(&|h| cards.hash(h)), hash(&|h| model.hash(h)));
            prop_assert_eq!(format!("{cards:?}"), format!("{model:?}"));
            prop_assert!(cards.clone() == cards);
            cards.clear();
            prop_assert!(cards.get(&CardKey(1)).is_none() && cards.is_empty());
        }
    }

    #[test]
    fn the_change_log_names_changed_cards_and_starts_over_when_it_cannot() {
        let mut cards = Cards::default();
        cards.insert(CardKey(1), card(1));
        cards.insert(CardKey(2), card(2));
        let seen = cards.changes_seen();
        assert_eq!(cards.changed_since(seen), Some(&[][..]));
        let _ = cards.get_mut(&CardKey(2));
        cards.remove(&CardKey(1));
        assert_eq!(cards.changed_since(seen), Some(&[CardKey(2), CardKey(1)][..]));
        // A copy changes apart from the original; so does a cleared list.
        assert_eq!(cards.clone().changed_since(seen), None);
        for _ in 0..MOST_LOGGED_CHANGES {
            let _ = cards.get_mut(&CardKey(2));
        }
        assert_eq!(cards.changed_since(seen), None, "the log no longer reaches back that far");
        let seen = cards.changes_seen();
        cards.clear();
        assert_eq!(cards.changed_since(seen), None);
    }
}
