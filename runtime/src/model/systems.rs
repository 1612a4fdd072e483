//! Kinds for the turn, campaign, synthesis and board systems: named formulas, stats,
//! turn configurations, eras, syntheses and boards.

use serde::{Deserialize, Serialize};

use super::table::{CardId, DeckId, RuleId, SlotId};
use super::value::{Colour, Expr, is_default};
use super::{AspectId, Id, walk::impl_walk};

/// A named formula, read by other formulas as `f.<id>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Formula {
    /// Unique id (the name after `f.`).
    pub id: Id<Formula>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// What it computes and why.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The formula.
    pub expr: Expr,
}
impl_walk!(Formula { expr });

/// How a stat gets its value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StatValue {
    /// A stored number, starting at the formula's value.
    Stored(Expr),
    /// Computed from a formula whenever it is read.
    Computed(Expr),
}

impl super::walk::Walk for StatValue {
    fn walk(&self, path: &mut super::FieldPath, visitor: &mut dyn super::Visitor) {
        match self {
            Self::Stored(expr) | Self::Computed(expr) => expr.walk(path, visitor),
        }
    }
    fn walk_mut(&mut self, path: &mut super::FieldPath, visitor: &mut dyn super::VisitorMut) {
        match self {
            Self::Stored(expr) | Self::Computed(expr) => expr.walk_mut(path, visitor),
        }
    }
}

impl StatValue {
    /// Whether the stat holds a stored number (else it is computed when read).
    pub fn is_stored(&self) -> bool {
        matches!(self, Self::Stored(_))
    }

    /// The formula, whether stored (initial value) or computed.
    pub fn expr(&self) -> &Expr {
        match self {
            Self::Stored(expr) | Self::Computed(expr) => expr,
        }
    }
}

impl Default for StatValue {
    fn default() -> Self {
        Self::Stored(Expr::default())
    }
}

/// Which way a value must cross a threshold to fire it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Crossing {
    /// From below `at` to at least `at`.
    #[default]
    Rising,
    /// From at least `at` to below `at`.
    Falling,
    /// Either way.
    Either,
}

/// A threshold of a meter: crossing `at` runs `rule`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    /// The value.
    pub at: Expr,
    /// Which way it must be crossed.
    #[serde(default, skip_serializing_if = "is_default")]
    pub crossing: Crossing,
    /// The rule run when it is crossed.
    pub rule: RuleId,
}
impl_walk!(Threshold { at, rule });

/// A named number of the game state (CardSim stats, era-synthesis meters).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Stat {
    /// Unique id (the name formulas read).
    pub id: Id<Stat>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// What it measures.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Stored or computed.
    #[serde(skip_serializing_if = "is_default")]
    pub value: StatValue,
    /// Shown only in debug mode.
    #[serde(skip_serializing_if = "is_default")]
    pub hidden: bool,
    /// Shown rounded to this many decimals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rounding: Option<u8>,
    /// Lowest value a stored stat can take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<Expr>,
    /// Highest value a stored stat can take.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<Expr>,
    /// Values that fire rules when crossed (meters).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub thresholds: Vec<Threshold>,
    /// Position in declaration order (ties broken by id).
    #[serde(skip_serializing_if = "is_default")]
    pub order: i32,
    /// Bar and chart colour.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
}
impl_walk!(Stat { value, min, max, thresholds });

/// How stats are listed to the player.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StatOrder {
    /// By each stat's `order`, then id.
    #[default]
    Declaration,
    /// Visible before hidden, then alphabetical by label, case-insensitive.
    VisibleThenAlphabetical,
}

/// A turn-based game setup (CardSim turn model, era-synthesis days).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TurnConfig {
    /// Unique id.
    pub id: Id<TurnConfig>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes for designers.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The player draws back up to this many cards each turn.
    pub hand_limit: Expr,
    /// Where cards are drawn from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_deck: Option<DeckId>,
    /// Cards in the hand at the start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub initial_hand: Vec<CardId>,
    /// The rule collection at the start; each turn runs it by step.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
    /// How stats are listed.
    #[serde(skip_serializing_if = "is_default")]
    pub stat_order: StatOrder,
    /// The game ends after this many turns, if set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<Expr>,
    /// The era the game starts in, if eras are used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_era: Option<Id<Era>>,
}
impl_walk!(TurnConfig { hand_limit, draw_deck, initial_hand, rules, max_turns, first_era });

impl Default for TurnConfig {
    fn default() -> Self {
        Self {
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            hand_limit: Expr::int(5),
            draw_deck: None,
            initial_hand: Vec::new(),
            rules: Vec::new(),
            stat_order: StatOrder::default(),
            max_turns: None,
            first_era: None,
        }
    }
}

/// An era: a stretch of turns with its own rules, followed by the next era of the cycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Era {
    /// Unique id.
    pub id: Id<Era>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// What changes in this era.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Header colour.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
    /// How many turns the era lasts.
    pub duration_turns: Expr,
    /// Rules added to the collection while the era lasts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
    /// The era that follows (the cycle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<Id<Era>>,
}
impl_walk!(Era { duration_turns, rules, next });

impl Default for Era {
    fn default() -> Self {
        Self {
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            colour: Colour::default(),
            duration_turns: Expr::int(7),
            rules: Vec::new(),
            next: None,
        }
    }
}

/// A synthesis: two inputs make one of the candidate cards, chosen by shared tags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Synthesis {
    /// Unique id.
    pub id: Id<Synthesis>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes for designers.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// The cards that can result.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<DeckId>,
    /// The aspects that count as tags; empty = every aspect.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<AspectId>,
    /// Softmax temperature over the tag scores.
    pub temperature: Expr,
    /// Success chance of the chosen candidate, in percent.
    pub success_chance: Expr,
    /// Rules run when the synthesis succeeds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_success: Vec<RuleId>,
    /// Rules run when it fails.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_failure: Vec<RuleId>,
}
impl_walk!(Synthesis { candidates, tags, temperature, success_chance, on_success, on_failure });

impl Default for Synthesis {
    fn default() -> Self {
        Self {
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            candidates: None,
            tags: Vec::new(),
            temperature: Expr::int(1),
            success_chance: Expr::int(100),
            on_success: Vec::new(),
            on_failure: Vec::new(),
        }
    }
}

/// A board: a grid of slots with coordinates, optionally facing another board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Board {
    /// Unique id.
    pub id: Id<Board>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes for designers.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Number of columns.
    pub columns: u32,
    /// Number of rows.
    pub rows: u32,
    /// Which cards a cell accepts; none: any card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell_slot: Option<SlotId>,
    /// The board whose column k faces this board's column k.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facing: Option<Id<Board>>,
    /// Board colour.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
}
impl_walk!(Board { cell_slot, facing });

impl Default for Board {
    fn default() -> Self {
        Self {
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            columns: 3,
            rows: 3,
            cell_slot: None,
            facing: None,
            colour: Colour::default(),
        }
    }
}
