//! Node maps: directed acyclic graphs of nodes joined by paths
//! (the sandbox maps of `spec/era-synthesis.md` §6).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Id;
use super::systems::{Era, Stat, Synthesis};
use super::table::{AspectId, CardId, RuleId};
use super::value::{Expr, is_default};
use super::walk::impl_walk;

/// What a node is; designers may add their own kinds by name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub enum NodeKind {
    /// A plain node (may carry terrain affixes).
    #[default]
    Normal,
    /// A home node holding a core.
    Home,
    /// Triggers an event.
    Anecdote,
    /// Enhances a card once, then becomes normal.
    Forge,
    /// A safe house.
    Safehouse,
    /// A designer-defined kind.
    Custom(String),
}

/// How a path is drawn; dashed paths are usually locked behind a condition.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum EdgeStyle {
    /// A plain path.
    #[default]
    Solid,
    /// A blurred or locked path.
    Dashed,
}

/// A node of a node map.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct MapNode {
    /// Id, unique within the map.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<MapNode>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Text shown when the node is inspected or entered.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// What the node is.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub kind: NodeKind,
    /// Position in map space (x right, y down), in map units.
    pub x: f32,
    /// See `x`.
    pub y: f32,
    /// Named numbers of the node (capture cost, strength…), read by formulas.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, Expr>,
    /// Terrain affixes, e.g. `hidden_from_patrols`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub affixes: Vec<String>,
    /// Rules run when the player enters the node.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
    /// Choices offered when the player enters the node (after its rules): the campaign waits
    /// until one is taken (an anecdote's choice).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<NodeOption>,
}
impl_walk!(MapNode { properties, rules, options });

/// A choice a node offers when the player enters it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct NodeOption {
    /// Name, a slug unique within the node.
    pub id: String,
    /// What the button says.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// What it means, for the player.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Offered only while this formula is non-zero (none: always).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub when: Option<Expr>,
    /// Rules run when it is chosen.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
}
impl_walk!(NodeOption { when, rules });

/// A directed path between two nodes of the same map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MapEdge {
    /// Start node.
    pub from: Id<MapNode>,
    /// End node.
    pub to: Id<MapNode>,
    /// How it is drawn.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub style: EdgeStyle,
    /// The path is usable only while this formula is non-zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unlock: Option<Expr>,
    /// What taking the path costs.
    #[serde(default, skip_serializing_if = "Expr::is_zero")]
    pub cost: Expr,
}

impl_walk!(MapEdge { unlock, cost });

/// A node map.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct NodeMap {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<NodeMap>,
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
    /// Where the player starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<Id<MapNode>>,
    /// The nodes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<MapNode>,
    /// The paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<MapEdge>,
    /// Campaign: the meter path costs are paid from (its `min` is the credit limit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_stat: Option<Id<Stat>>,
    /// Campaign: the era the cycle starts with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_era: Option<Id<Era>>,
    /// Campaign: the dice rolled as each era begins for who goes first (seed 003 §5): on
    /// success its `stat` is set to 1 (the player first), else 0, and `on_success` runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_player: Option<super::systems::DiceCheck>,
    /// Campaign: the phases of a day, in order (none: a day is one phase).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<Phase>,
    /// Campaign: rules run when the player enters a node of a designer-defined kind.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub kind_rules: BTreeMap<String, Vec<RuleId>>,
    /// Campaign: rules run whenever the player captures a node (after the node's own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_capture: Vec<RuleId>,
    /// Campaign: units that walk their route one node each day.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patrols: Vec<Patrol>,
    /// Campaign: the cards the player holds at the start (inputs of the synthesis).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hand: Vec<CardId>,
    /// Campaign: the synthesis the player may trigger with two cards of the hand.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<Id<Synthesis>>,
    /// Campaign: what triggering the synthesis costs, paid from `synthesis_cost_stat`.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub synthesis_cost: Expr,
    /// Campaign: the meter the synthesis is paid from (none: `cost_stat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis_cost_stat: Option<Id<Stat>>,
    /// Campaign: the aspect a card needs to be the synthesis's first input (A); none: any card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis_a: Option<AspectId>,
    /// Campaign: the aspect a card needs to be the second input (B); none: any card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis_b: Option<AspectId>,
    /// Campaign: the player has won once this formula is non-zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub win: Option<Expr>,
    /// Campaign: the player has lost once this formula is non-zero (checked before `win`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lose: Option<Expr>,
    /// Campaign: the grade of the end state is the first whose formula is non-zero.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub grades: Vec<Grade>,
    /// Campaign: the card cycle (decks, the draw, playing cards, the discard pile).
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub cards: CardCycle,
    /// Campaign: battles between the cards of the hand and an enemy roster.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub battles: BattleRules,
}
impl_walk!(NodeMap {
    nodes,
    edges,
    cost_stat,
    first_era,
    first_player,
    phases,
    kind_rules,
    on_capture,
    patrols,
    hand,
    synthesis,
    synthesis_cost,
    synthesis_cost_stat,
    synthesis_a,
    synthesis_b,
    win,
    lose,
    grades,
    cards,
    battles
});

/// A phase of a campaign day (dawn, noon, dusk…).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Phase {
    /// Name, a slug unique within the map (read as `phase.NAME`).
    pub name: String,
    /// Rules run when the phase begins.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
    /// The player cannot move along paths during this phase.
    #[serde(skip_serializing_if = "is_default")]
    pub no_moves: bool,
}
impl_walk!(Phase { rules });

/// A patrol: walks its route (looping) one node at the end of each day, at no cost.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Patrol {
    /// Name, a slug unique within the map.
    pub id: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// The nodes it walks, in order; each consecutive pair (and last → first) joined by a path.
    pub route: Vec<Id<MapNode>>,
    /// A captured node whose `strength` property is below this is retaken when the patrol arrives.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub strength: Expr,
    /// Rules run when it retakes a node.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_retake: Vec<RuleId>,
}
impl_walk!(Patrol { strength, on_retake });

/// A victory or defeat grade, decided from the end state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Grade {
    /// Name, a slug unique within the map.
    pub id: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// The grade applies when this is non-zero (read at the end; `campaign.won` tells the result).
    pub when: Expr,
}
impl_walk!(Grade { when });

/// The campaign's card cycle (`spec/era-synthesis.md` §5; FORMAT.md §14 "Cards"): decks drawn up
/// to a hand limit at the start of the draw phase, cards played for a cost with upright or
/// reversed effects, and a discard pile that goes back to the decks at the end of each day.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CardCycle {
    /// The decks; the first whose `eras` lists the current era is the era's deck.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<CampaignDeck>,
    /// The phase whose start draws the hand up to `hand_limit` (none: the first phase). No card
    /// is played in it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_phase: Option<String>,
    /// How many cards the draw fills the hand to (a formula, read at each draw).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub hand_limit: Expr,
    /// The meter card plays and extra draws are paid from (none: the map's `cost_stat`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_stat: Option<Id<Stat>>,
    /// What one more card costs during the draw phase (0: no extra draws).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub extra_draw_cost: Expr,
    /// The chance (0 to 1) that a drawn card comes reversed.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub reversed_chance: Expr,
    /// Rules run at each draw from a deck whose `eras` does not list the current era.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub off_era: Vec<RuleId>,
    /// Rules run when a draw finds the deck's pile empty, before part of the discard pile
    /// (the cards played) is shuffled back into it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_empty: Vec<RuleId>,
    /// The share (0 to 1) of the discard pile shuffled back into an empty pile.
    pub reshuffle_share: Expr,
    /// The phase in which the player may discard cards from the hand (none: any phase but the
    /// draw phase); they go back to their deck at the end of the day.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discard_phase: Option<String>,
    /// A card discarded from the hand with this aspect goes back to the bottom of its deck
    /// (others: the top).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bottom_aspect: Option<AspectId>,
    /// What playing each card costs and does.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plays: Vec<CardPlay>,
}
impl_walk!(CardCycle {
    decks,
    hand_limit,
    cost_stat,
    extra_draw_cost,
    reversed_chance,
    off_era,
    on_empty,
    reshuffle_share,
    bottom_aspect,
    plays
});

impl Default for CardCycle {
    fn default() -> Self {
        Self {
            decks: Vec::new(),
            draw_phase: None,
            hand_limit: Expr::default(),
            cost_stat: None,
            extra_draw_cost: Expr::default(),
            reversed_chance: Expr::default(),
            off_era: Vec::new(),
            on_empty: Vec::new(),
            reshuffle_share: Expr::new("0.5"),
            discard_phase: None,
            bottom_aspect: None,
            plays: Vec::new(),
        }
    }
}

/// A deck of the card cycle: its cards in order, and the eras it belongs to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CampaignDeck {
    /// Name, a slug unique within the map.
    pub id: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// The cards, in the order they are drawn (a card may be listed several times).
    pub cards: Vec<CardId>,
    /// The eras this deck belongs to (empty: every era; drawing it is never off-era).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub eras: Vec<Id<Era>>,
    /// The cycle starts at a random third of the deck (0, 1/3 or 2/3 in), as in the seed.
    #[serde(skip_serializing_if = "is_default")]
    pub start_at_third: bool,
}
impl_walk!(CampaignDeck { cards, eras });

/// What playing a card of the hand costs and does, upright or reversed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CardPlay {
    /// The card.
    pub card: CardId,
    /// What playing it costs, paid from the cycle's `cost_stat`.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub cost: Expr,
    /// Rules run when it is played upright.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub upright: Vec<RuleId>,
    /// Rules run when it is played reversed (none: the upright rules).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reversed: Vec<RuleId>,
    /// The play names a card of the hand with this aspect (`play CARD on TARGET`); its hand
    /// modifiers work on `Target` (none: the play names no card).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<AspectId>,
}
impl_walk!(CardPlay { card, cost, upright, reversed, target });

/// How the campaign's battles play (FORMAT.md §14 "Battles"): the cards of the hand that can
/// fight against an enemy roster, blow by blow.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BattleRules {
    /// The aspect a card of the hand needs to fight for the player (none: any card with a `life`
    /// property).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fighter_aspect: Option<AspectId>,
    /// The damage of one blow: reads `fight.attacker.PROP` and `fight.defender.PROP` (the cards'
    /// properties; `life` is the life left). None: `max(1, attack − defence)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub damage: Option<Expr>,
    /// The enemy strikes first in each exchange while this is non-zero (e.g. `initiative == 0`
    /// after the era's first-player dice); none: the player first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enemy_first: Option<Expr>,
    /// How the enemy picks whom to strike: the player's fighter with the highest value (reads
    /// `fight.defender.PROP`); ties go to the first in the hand. None: the least life left.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enemy_target: Option<Expr>,
    /// The stat the surviving enemies' attack is taken from when the player loses (core life).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core_stat: Option<Id<Stat>>,
    /// The battles and when they start.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<BattleTrigger>,
    /// Cards that may strike the enemy once a day outside battles, for free (the synthesis's
    /// failure products, spec era-synthesis §4.6).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raid: Option<Raid>,
}
impl_walk!(BattleRules { fighter_aspect, damage, enemy_first, enemy_target, core_stat, triggers, raid });

/// A free strike outside battles: a card of the hand with `aspect` hits `against` with the
/// battles' damage formula, once a day, and the damage comes off `stat`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Raid {
    /// The aspect a card needs to raid.
    pub aspect: AspectId,
    /// The card standing for the enemy (its properties are the defender's).
    pub against: CardId,
    /// The stat the damage comes off (e.g. the enemy core's life).
    pub stat: Id<Stat>,
}
impl_walk!(Raid { aspect, against, stat });

/// A battle of the campaign: it starts after a step in which its condition became true.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct BattleTrigger {
    /// Name, a slug unique within the map.
    pub id: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// The battle starts when this becomes non-zero (it must fall back to 0 to start again).
    pub when: Expr,
    /// The enemy's fighters, in order (card ids; each fights with its card's properties).
    pub enemies: Vec<CardId>,
    /// Rules run when the player wins.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_win: Vec<RuleId>,
    /// Rules run when the player loses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub on_loss: Vec<RuleId>,
}
impl_walk!(BattleTrigger { when, enemies, on_win, on_loss });
