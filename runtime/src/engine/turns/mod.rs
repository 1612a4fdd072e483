//! The turns system (`spec/cardsim.md`, FORMAT.md §13): a hand of issue cards with options, a
//! rule collection run by step each turn (equal steps in a seeded shuffle), stats stored or
//! computed by formula, deferred messages, warnings that continue and errors that stop, and
//! "end of history" when hand and deck are both empty.
//!
//! It shares the engine's core: the content's compiled formulas and game-state accessors, the
//! rules core (`core/`, through `rules.rs`), the session's seeded generator and its outcome.
//! What is particular to turns lives here: [`TurnsState`] and the turn step.

mod env;
mod rules;
mod script;
mod session;
mod step;

use env::TurnsEnv;
use step::Turns;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::model::{CardId, DeckId, Id, RuleId, Stat, StatOrder, StatValue, TurnConfig, slugify};
use crate::number::{round_to, show_value};

use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::table::Outcome;

/// The outcome when the hand and the deck are both empty.
pub const END_OF_HISTORY: &str = "end of history";

/// The outcome when `max_turns` turns have been played.
pub const TURN_LIMIT: &str = "the last turn was played";

/// How deep computed stats may read other computed stats (a cycle reads NaN past it).
const MAX_STAT_DEPTH: usize = 16;

/// A message to the player. Plain text for now; a struct so that formatted text can be added
/// without breaking what reads `text`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Message {
    /// The text.
    pub text: String,
}

/// One stat as the player sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatLine {
    /// The stat's id.
    pub id: Id<Stat>,
    /// Its display name (its label, or its id when it has none).
    pub name: String,
    /// The exact value.
    pub value: f64,
    /// The value rounded to the stat's decimals (the exact value when it has no rounding).
    pub shown: f64,
    /// The shown value as text (`12.50` with two decimals).
    pub text: String,
    /// Shown only in debug mode.
    pub hidden: bool,
}

/// The state of the turns system: turn counter, hand, draw pile, rule collection, stored stats
/// and the last turn's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnsState {
    /// The turn config played.
    pub config: Id<TurnConfig>,
    /// The current turn, from 1.
    pub turn: u32,
    /// The cards in the hand, in the order they arrived.
    pub hand: Vec<CardId>,
    /// The deck drawn from, if any.
    pub deck_id: Option<DeckId>,
    /// The draw pile, next card first.
    pub deck: Vec<CardId>,
    /// The rule collection, in the order rules were added (each rule at most once).
    pub rules: Vec<RuleId>,
    /// The values of stored stats.
    pub stored: BTreeMap<Id<Stat>, f64>,
    /// The messages reported at the end of the last turn.
    pub messages: Vec<Message>,
    /// The warnings reported during the last turn.
    pub warnings: Vec<String>,
    /// How the turns ended, once they have (it ends the whole game unless the table is in play).
    pub outcome: Option<Outcome>,
}

impl Hash for TurnsState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.config.hash(state);
        self.turn.hash(state);
        self.hand.hash(state);
        self.deck_id.hash(state);
        self.deck.hash(state);
        self.rules.hash(state);
        crate::engine::hash_values(&self.stored, state);
        self.messages.hash(state);
        self.warnings.hash(state);
        self.outcome.hash(state);
    }
}

impl TurnsState {
    /// The turn config a project plays: `entry.turn_config`, else its first turn config by id.
    pub(super) fn config_of(content: &Content) -> Option<&TurnConfig> {
        let project = &content.project;
        match &project.manifest.entry.turn_config {
            Some(id) => project.turn_configs.get(id.as_str()),
            None => project.turn_configs.iter().next(),
        }
    }

    /// Starts the turns system when the project has a turn config: stats at their starting
    /// values (in declaration order), the draw pile, the initial hand drawn up to the limit.
    pub(crate) fn start(content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) -> Option<Self> {
        let config = Self::config_of(content)?;
        let mut state = Self {
            config: config.id.clone(),
            turn: 1,
            hand: config.initial_hand.clone(),
            deck_id: config.draw_deck.clone(),
            deck: Vec::new(),
            rules: Vec::new(),
            stored: BTreeMap::new(),
            messages: Vec::new(),
            warnings: Vec::new(),
            outcome: None,
        };
        for rule in &config.rules {
            if !state.rules.contains(rule) {
                state.rules.push(rule.clone());
            }
        }
        let mut turns = Turns {
            content,
            state: &mut state,
            rng,
            events,
            deferred: None,
            messages: Vec::new(),
            work: crate::engine::core::StepWork::default(),
        };
        for stat in declaration_order(content) {
            if let StatValue::Stored(expr) = &stat.value {
                let value = turns.value(expr);
                turns.set_stat(stat, value);
            }
        }
        if let Some(deck) = config.draw_deck.as_ref().and_then(|id| content.deck(id.as_str())) {
            turns.refill(deck);
        }
        turns.draw_up(config);
        Some(state)
    }

    /// The stats as the player sees them, in the config's order; hidden ones only in debug mode.
    fn stat_lines(&self, content: &Content, rng: &Pcg64Mcg, debug: bool) -> Vec<StatLine> {
        let order = Self::config_of(content).map_or(StatOrder::Declaration, |config| config.stat_order);
        let mut stats = declaration_order(content);
        if order == StatOrder::VisibleThenAlphabetical {
            stats.sort_by_cached_key(|stat| (stat.hidden, display_name(stat).to_lowercase(), stat.id.clone()));
        }
        let mut rng = rng.clone();
        stats
            .into_iter()
            .filter(|stat| debug || !stat.hidden)
            .map(|stat| {
                let mut env = TurnsEnv {
                    content,
                    accessors: &content.accessors,
                    stored: &self.stored,
                    turn: self.turn,
                    rng: &mut rng,
                    depth: 0,
                    table: None,
                };
                let value = env.stat(&stat.id);
                StatLine {
                    id: stat.id.clone(),
                    name: display_name(stat).to_owned(),
                    value,
                    shown: round_to(value, stat.rounding),
                    text: show_value(value, stat.rounding),
                    hidden: stat.hidden,
                }
            })
            .collect()
    }
}

/// A stat's display name: its label, or its id.
pub(super) fn display_name(stat: &Stat) -> &str {
    if stat.label.trim().is_empty() { stat.id.as_str() } else { &stat.label }
}

/// The project's stats in declaration order: by `order`, then id.
pub(super) fn declaration_order(content: &Content) -> Vec<&Stat> {
    let mut stats: Vec<&Stat> = content.project.stats.iter().collect();
    stats.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    stats
}

/// The options of a card, each with the word a script names it by: its label as a slug.
pub fn option_word(label: &str, index: usize) -> String {
    let word = slugify(label);
    if word.is_empty() { index.saturating_add(1).to_string() } else { word }
}
