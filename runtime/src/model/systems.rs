//! Kinds for the turn, campaign, synthesis and board systems: named formulas, stats,
//! turn configurations, eras, syntheses and boards.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::table::{CardId, DeckId, RuleId, SlotId};
use super::value::{Colour, Expr, is_default};
use super::{AspectId, Id, walk::impl_walk};

/// A named formula, read by other formulas as `f.<id>`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Formula {
    /// Unique id (the name after `f.`).
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Formula>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Threshold {
    /// The value.
    pub at: Expr,
    /// Which way it must be crossed.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub crossing: Crossing,
    /// The rule run when it is crossed.
    pub rule: RuleId,
}
impl_walk!(Threshold { at, rule });

/// A named number of the game state (CardSim stats, era-synthesis meters).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Stat {
    /// Unique id (the name formulas read).
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Stat>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// What it measures.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Stored or computed.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum StatOrder {
    /// By each stat's `order`, then id.
    #[default]
    Declaration,
    /// Visible before hidden, then alphabetical by label, case-insensitive.
    VisibleThenAlphabetical,
}

/// A turn-based game setup (CardSim turn model, era-synthesis days).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct TurnConfig {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<TurnConfig>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
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
    #[schemars(!skip_serializing_if)]
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
            text_key: String::new(),
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Era {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Era>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
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
            text_key: String::new(),
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Synthesis {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Synthesis>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
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
    /// The stat that gains a point when the most probable candidate was chosen and failed
    /// (insight, spec era-synthesis §1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insight: Option<Id<Stat>>,
    /// What summoning any candidate outright costs from the insight stat, spending an A and a B
    /// (spec era-synthesis §1; 0: not offered).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub insight_cost: Expr,
    /// Rules run at each dawn once per card the synthesis drew by the uniform fallback (no
    /// candidate shared a tag) that the player still holds (spec era-synthesis §4.3: +2 entropy
    /// a day).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallback_daily: Vec<RuleId>,
    /// What removing such a card costs, paid as the synthesis is (0: it cannot be removed).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub fallback_removal_cost: Expr,
    /// The dice check after each synthesis (a revelation, spec era-synthesis §4.5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revelation: Option<DiceCheck>,
    /// The revelations a successful check grants, one drawn at random among those not yet
    /// granted (the list starts over once every one has been; spec era-synthesis §8).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub revelations: Vec<Revelation>,
    /// The card that stands in for A when B is played alone (`synthesize-alone B`; spec
    /// era-synthesis §4.7: its tags weigh 1; none: B cannot be played alone).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<CardId>,
    /// A bound to an A on the field: what B gathers from A each dawn and what triggering
    /// the pair costs (none: cards cannot be bound).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bond: Option<Bond>,
    /// The cards the player may summon right after a failure, in the failed card's place
    /// (spec era-synthesis §4.6; none: no extra summon).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extras: Option<DeckId>,
    /// Rules run after an extra summon (they read `synth.result.*` and `synth.extra.*`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_rules: Vec<RuleId>,
    /// The card that joins the hand when the synthesis fails and no extra card is summoned
    /// in its place (the failure product).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_product: Option<CardId>,
}

/// A one-shot revelation (spec era-synthesis §8).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Revelation {
    /// Name, a slug unique within the synthesis.
    pub id: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// What it does, for the player.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Rules run when it is granted (they read the synthesis under way as `synth.*`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
}
impl_walk!(Revelation { rules });

/// How a B bound to an A on the field gathers A's tendencies (spec era-synthesis §4.7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Bond {
    /// Each dawn, B's property (value) grows by A's property (key): e.g. `flow_tendency` →
    /// `field_flow`.
    pub gather: BTreeMap<String, String>,
    /// What triggering a bound pair costs.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub cost: Expr,
    /// The stat it is paid from (none: the synthesis's meter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_stat: Option<Id<Stat>>,
}
impl_walk!(Bond { cost, cost_stat });
impl_walk!(Synthesis {
    candidates,
    tags,
    temperature,
    success_chance,
    on_success,
    on_failure,
    insight,
    insight_cost,
    fallback_daily,
    fallback_removal_cost,
    revelation,
    revelations,
    stand_in,
    bond,
    extras,
    extra_rules,
    failure_product
});

/// A dice check: roll `dice` dice of `sides` sides; a sum above `above` succeeds. When it fails
/// and the synthesis failed too, a second roll succeeds at `retry_at_least` or more.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DiceCheck {
    /// How many dice.
    pub dice: u32,
    /// Sides of each die.
    pub sides: u32,
    /// The first roll succeeds when its sum is greater than this.
    pub above: i64,
    /// The second roll (only after a failed synthesis) succeeds at this sum or more; none: no retry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_at_least: Option<i64>,
    /// The stat that gains a point on success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stat: Option<Id<Stat>>,
    /// Rules run on success.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_success: Vec<RuleId>,
}
impl_walk!(DiceCheck { stat, on_success });

impl Default for DiceCheck {
    /// The seed's revelation roll: 2d6 above 7, then at least 7 after a failed synthesis.
    fn default() -> Self {
        Self { dice: 2, sides: 6, above: 7, retry_at_least: Some(7), stat: None, on_success: Vec::new() }
    }
}

impl Default for Synthesis {
    fn default() -> Self {
        Self {
            text_key: String::new(),
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            candidates: None,
            tags: Vec::new(),
            temperature: Expr::int(1),
            success_chance: Expr::int(100),
            on_success: Vec::new(),
            on_failure: Vec::new(),
            insight: None,
            insight_cost: Expr::default(),
            fallback_daily: Vec::new(),
            fallback_removal_cost: Expr::default(),
            revelation: None,
            revelations: Vec::new(),
            stand_in: None,
            bond: None,
            extras: None,
            extra_rules: Vec::new(),
            failure_product: None,
        }
    }
}

/// A board: a grid of slots with coordinates, optionally facing another board.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Board {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Board>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
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
    /// The die this board's side rolls each turn (its `faces` property, default 6); none:
    /// the board takes no part in board play.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub die: Option<CardId>,
    /// Cards with a `board_play` this side starts with (used up when played).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hand: Vec<CardId>,
    /// The side's score (read as `board.ID.score`), evaluated with `board.own` = this board.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub score: Option<Expr>,
    /// A value `roll` (1..=faces) can come up only while this is non-zero; none: any value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roll_filter: Option<Expr>,
    /// Dice slide towards row 1 when a die below them leaves the column.
    #[serde(skip_serializing_if = "is_default")]
    pub compact: bool,
    /// Named numbers of the board and their start values (`board.ID.var.NAME`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub vars: BTreeMap<String, i64>,
    /// Named numbers of each column and their start values (`board.ID.colK.var.NAME`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub column_vars: BTreeMap<String, i64>,
    /// Named numbers of each cell and their start values (`cell.var.NAME` for the context cell).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cell_vars: BTreeMap<String, i64>,
    /// Variables of this board (board, column or cell) its own side does not see: other sides
    /// set them (a trap). The side's view, and so its policy, reads their start values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub secret: Vec<String>,
    /// While this is non-zero after a roll (and its `on_roll` rules), the side does not see its
    /// own die until it is placed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hide_roll: Option<Expr>,
    /// Rules run after this side rolled (`die.value` is the roll).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_roll: Vec<RuleId>,
    /// Rules run after a die was placed on this board (`cell.*` and `column.*` name its cell).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_place: Vec<RuleId>,
    /// Rules run at the end of each of this side's turns.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_turn_end: Vec<RuleId>,
}
impl_walk!(Board { cell_slot, facing, die, hand, score, roll_filter, hide_roll, on_roll, on_place, on_turn_end });

impl Default for Board {
    fn default() -> Self {
        Self {
            text_key: String::new(),
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            columns: 3,
            rows: 3,
            cell_slot: None,
            facing: None,
            colour: Colour::default(),
            die: None,
            hand: Vec::new(),
            score: None,
            roll_filter: None,
            compact: false,
            vars: BTreeMap::new(),
            column_vars: BTreeMap::new(),
            cell_vars: BTreeMap::new(),
            secret: Vec::new(),
            hide_roll: None,
            on_roll: Vec::new(),
            on_place: Vec::new(),
            on_turn_end: Vec::new(),
        }
    }
}

/// What a card played on a board is aimed at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum BoardTarget {
    /// Nothing (options may still be chosen).
    #[default]
    Nothing,
    /// One column of the player's own board.
    OwnColumn,
    /// One die on the player's own board.
    OwnDie,
    /// Two different dice on the player's own board.
    OwnDicePair,
    /// One die on the facing board.
    FacingDie,
    /// One cell of the player's own board, empty or not.
    OwnCell,
    /// One cell of the facing board, empty or not (a trap).
    FacingCell,
}

/// When in a turn a board card can be played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum BoardTiming {
    /// Before the die is rolled.
    #[default]
    BeforeRoll,
    /// After the roll, before the die is placed (`die.value` is the roll).
    AfterRoll,
}

/// How a card is played on a board (an ability card): its target, options and rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BoardPlay {
    /// What the player aims it at.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub target: BoardTarget,
    /// Before or after the roll (one card per turn either way).
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub timing: BoardTiming,
    /// Labels of options the player picks one of (read as `option`, from 1); empty: none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// Playable at a target only while this is non-zero (`cell.*`, `column.*`, `option` name it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Expr>,
    /// Rules run when it is played, in the target's context.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
}
impl_walk!(BoardPlay { condition, rules });

/// Which board a board modifier works on, seen from the side whose rule runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum BoardSide {
    /// The side's own board.
    #[default]
    Own,
    /// The board facing it.
    Facing,
}

/// Operation of a [`BoardModifier`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum BoardOp {
    /// Remove every die of value `value` from the context column of `board`, or from every
    /// column when `all_columns` (then `value` is worked out per column, `column.*` naming it).
    #[default]
    DestroyInColumn,
    /// Move the target die (`cell`) into the first free cell of the own board's column facing it.
    TakeTarget,
    /// Swap the two target dice.
    SwapTargets,
    /// Set the board variable `var` of `board` to `value`.
    SetVar,
    /// Set the column variable `var` of `board`: of the context column, or of every column
    /// when `all_columns` (then `column.*` names each column in turn).
    SetColumnVar,
    /// The side owning `board` wins now.
    Win,
    /// The game ends: the highest `score` wins, equal scores draw.
    EndByScore,
    /// The turn ends once the action running this rule is done: `on_turn_end` rules run and
    /// the next side's turn begins (a die rolled and not placed is discarded).
    EndTurn,
    /// The own board's dice at the context cell and a pair's second cell count as placed: the
    /// side's `on_place` rules run with each as the context (after `TakeTarget`, the taken die).
    CountAsPlaced,
    /// Remove the die at the context cell, on whichever board holds it.
    DestroyTarget,
    /// After the turn's die is placed, the side places another die showing `value` before
    /// its turn ends (lost when its board has no free cell).
    ExtraDie,
    /// A die showing `value` goes into the first free cell of the context column of `board`
    /// (nothing when it is full); it does not count as placed.
    AddDie,
    /// The turn's die, rolled and not yet placed, shows `value` (at least 1).
    SetDieValue,
    /// The turn's die is rolled again through `roll_filter` (`on_roll` rules do not run again).
    Reroll,
    /// Set the cell variable `var` of `board` at the context cell's place, or of every cell
    /// when `all_columns`.
    SetCellVar,
}

/// A board modifier: changes dice, variables, or ends a board game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BoardModifier {
    /// What to do.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: BoardOp,
    /// Which board, seen from the side whose rule runs.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub board: BoardSide,
    /// The variable, for `SetVar`, `SetColumnVar` and `SetCellVar`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub var: String,
    /// The die value or the variable's new value.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub value: Expr,
    /// `SetColumnVar` and `DestroyInColumn` work on every column, `SetCellVar` on every cell.
    #[serde(skip_serializing_if = "is_default")]
    pub all_columns: bool,
}
impl_walk!(BoardModifier { value });
