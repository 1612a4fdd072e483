//! The campaign system (`spec/era-synthesis.md` §1, §2, §5–§7; FORMAT.md §14): the player walks
//! a node map (a DAG) from its start, paying each path's cost from a meter that may run into
//! credit down to its `min`; entering a node captures it and fires what its kind does; dashed
//! paths open while their unlock formula holds; patrols walk their routes each day and retake
//! weak captured nodes; two cards of the hand may be synthesized by the map's synthesis; days run
//! through phases, eras rotate in their cycle, meters fire rules when they cross thresholds,
//! and the content's formulas decide win, loss and the grade.
//!
//! It shares the engine's core: compiled formulas and accessors, the rules core (`core/`,
//! through `rules.rs`: stat and path modifiers), stats, the session's seeded generator and
//! outcome. Stored stats are the
//! turns system's when the project also plays turns (one set of values), else the campaign's.

mod battle;
mod cards;
mod env;
mod field;
mod rules;
mod script;
mod session;
mod step;

use step::Refusal;

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::Serialize;

use crate::model::{CardId, Era, Id, MapNode, NodeKind, NodeMap, Stat};

use crate::engine::Session;
use crate::engine::content::Content;

/// How deep formulas may read computed stats and node properties (a cycle reads NaN past it).
const MAX_READ_DEPTH: usize = 16;

/// The affix that hides the player from patrols on a node.
pub const HIDDEN_AFFIX: &str = "hidden_from_patrols";

/// How a campaign ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct CampaignResult {
    /// Whether the player won.
    pub won: bool,
    /// The grade (its id), when one applied.
    pub grade: Option<String>,
    /// The outcome in words.
    pub outcome: String,
}

/// A card fighting in a campaign battle.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fighter {
    /// Its key: the card's id, `ID#2` for a second copy.
    pub key: String,
    /// The card.
    pub card: CardId,
    /// Life left.
    pub life: f64,
}

impl Hash for Fighter {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key.hash(state);
        self.card.hash(state);
        self.life.to_bits().hash(state);
    }
}

/// A campaign battle under way: the player's fighters (cards of the hand) against the enemy's.
#[derive(Clone, Debug, PartialEq, Serialize, Hash)]
pub struct Battle {
    /// The trigger's id.
    pub id: String,
    /// The player's fighters, in hand order.
    pub player: Vec<Fighter>,
    /// The enemy's fighters, in roster order.
    pub enemy: Vec<Fighter>,
    /// Blows struck by the player so far.
    pub round: u32,
}

/// An A and a B bound on the field: B gathers A's tendencies each dawn.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Bound {
    /// The A card.
    pub a: CardId,
    /// The B card.
    pub b: CardId,
    /// What B has gathered (B's property → amount added to it).
    pub gathered: BTreeMap<String, f64>,
}

impl Hash for Bound {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.a.hash(state);
        self.b.hash(state);
        crate::engine::hash_values(&self.gathered, state);
    }
}

/// The state of a campaign: where the player is, what is captured, the patrols, the calendar,
/// the meters (when no turns system holds them) and the result.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CampaignState {
    /// The node map played.
    pub map: Id<NodeMap>,
    /// The player's node.
    pub node: Id<MapNode>,
    /// Nodes the player has stood on.
    pub visited: BTreeSet<Id<MapNode>>,
    /// Nodes the player holds.
    pub captured: BTreeSet<Id<MapNode>>,
    /// Forges already used (they play as normal nodes since).
    pub spent: BTreeSet<Id<MapNode>>,
    /// Each patrol's place on its route (patrol id → index into the route).
    pub patrols: BTreeMap<String, usize>,
    /// The day, from 1.
    pub day: u32,
    /// The phase of the day, an index into the map's phases.
    pub phase: usize,
    /// The current era.
    pub era: Option<Id<Era>>,
    /// The day within the era, from 1.
    pub era_day: u32,
    /// Paths taken.
    pub moves: u32,
    /// Nodes retaken by patrols.
    pub retaken: u32,
    /// The cards the player holds, in the order they came.
    pub hand: Vec<CardId>,
    /// How many of the hand's copies of each card are reversed (card cycle).
    pub reversed: BTreeMap<CardId, u32>,
    /// Each deck's draw pile, top first (card cycle; deck id → cards).
    pub piles: BTreeMap<String, Vec<CardId>>,
    /// The discard pile: cards played and synthesis inputs, oldest first (card cycle).
    pub discard: Vec<CardId>,
    /// Cards discarded from the hand today: back to their decks at the end of the day.
    pub returning: Vec<CardId>,
    /// The deck the draw takes from (card cycle).
    pub deck: Option<String>,
    /// How many of the hand's copies of each card came from the synthesis's uniform fallback.
    pub fallbacks: BTreeMap<CardId, u32>,
    /// Eras begun, the first included.
    pub eras: u32,
    /// The battle under way (nothing else can be done meanwhile).
    pub battle: Option<Battle>,
    /// Battles fought and won.
    pub battles: (u32, u32),
    /// Battle triggers whose condition held after the last step (they start again only after
    /// it fell back to 0).
    pub holding: BTreeSet<String>,
    /// The node whose options wait for the player's choice (nothing else can be done meanwhile).
    pub choosing: Option<Id<MapNode>>,
    /// Syntheses triggered.
    pub syntheses: u32,
    /// Syntheses that failed.
    pub failures: u32,
    /// Per-card state: how each card's properties have changed (hand modifier `Boost`), for
    /// every copy the player holds, for the rest of the campaign.
    pub boosts: BTreeMap<CardId, BTreeMap<String, f64>>,
    /// A and B cards bound on the field, in the order they were bound.
    pub bonds: Vec<Bound>,
    /// The last card a synthesis or summon produced.
    pub last_result: Option<CardId>,
    /// The card whose synthesis just failed, while an extra card may be summoned in its place
    /// (until the next step that is not the extra summon).
    pub failed: Option<CardId>,
    /// Cards of the hand that raided today.
    pub raided: BTreeSet<CardId>,
    /// Revelations granted since their list last started over.
    pub revealed: BTreeSet<String>,
    /// Stored stat values, when the project plays no turns system (else the turns hold them).
    pub meters: BTreeMap<Id<Stat>, f64>,
    /// How the campaign ended, once it has.
    pub result: Option<CampaignResult>,
}

impl Hash for CampaignState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.map.hash(state);
        self.node.hash(state);
        self.visited.hash(state);
        self.captured.hash(state);
        self.spent.hash(state);
        self.patrols.hash(state);
        self.day.hash(state);
        self.phase.hash(state);
        self.era.hash(state);
        self.era_day.hash(state);
        self.moves.hash(state);
        self.retaken.hash(state);
        self.hand.hash(state);
        self.reversed.hash(state);
        self.piles.hash(state);
        self.discard.hash(state);
        self.returning.hash(state);
        self.deck.hash(state);
        self.choosing.hash(state);
        self.fallbacks.hash(state);
        self.eras.hash(state);
        self.battle.hash(state);
        self.battles.hash(state);
        self.holding.hash(state);
        self.syntheses.hash(state);
        self.failures.hash(state);
        for (card, boosts) in &self.boosts {
            card.hash(state);
            crate::engine::hash_values(boosts, state);
        }
        self.bonds.hash(state);
        self.last_result.hash(state);
        self.failed.hash(state);
        self.raided.hash(state);
        self.revealed.hash(state);
        crate::engine::hash_values(&self.meters, state);
        self.result.hash(state);
    }
}

impl CampaignState {
    /// The node a patrol stands on.
    pub fn patrol_node<'m>(&self, map: &'m NodeMap, patrol: &str) -> Option<&'m Id<MapNode>> {
        let route = &map.patrols.iter().find(|p| p.id == patrol)?.route;
        route.get(self.patrols.get(patrol).copied().unwrap_or(0))
    }

    /// Whether a patrol stands on or next to (along a path) the player's node, which is not a
    /// safehouse or hidden by its affix.
    pub fn seen(&self, map: &NodeMap) -> bool {
        let Some(here) = map.nodes.iter().find(|node| node.id == self.node) else { return false };
        if here.kind == NodeKind::Safehouse || here.affixes.iter().any(|affix| affix == HIDDEN_AFFIX) {
            return false;
        }
        map.patrols.iter().filter_map(|patrol| self.patrol_node(map, &patrol.id)).any(|at| {
            *at == self.node
                || map.edges.iter().any(|edge| {
                    (edge.from == *at && edge.to == self.node) || (edge.to == *at && edge.from == self.node)
                })
        })
    }

    /// The hand in order, each card with whether it is reversed. Copies of a card are
    /// interchangeable: the last copies are the reversed ones.
    pub fn hand_cards(&self) -> Vec<(&CardId, bool)> {
        let mut flipped = self.reversed.clone();
        let mut cards: Vec<(&CardId, bool)> = self
            .hand
            .iter()
            .rev()
            .map(|card| {
                let reversed = flipped.get_mut(card).filter(|count| **count > 0).is_some_and(|count| {
                    *count = count.saturating_sub(1);
                    true
                });
                (card, reversed)
            })
            .collect();
        cards.reverse();
        cards
    }

    /// The current phase's name (`day` for a map without phases).
    pub fn phase_name<'m>(&self, map: &'m NodeMap) -> &'m str {
        map.phases.get(self.phase).map_or("day", |phase| phase.name.as_str())
    }
}

/// How many of `seeds` end with each grade when the random policy plays up to `moves` moves
/// from each seed (the policy seeded alike): keys are grade ids, `won`/`lost` for an end without
/// a grade, and `unfinished`. For seeing a campaign's balance; deterministic.
pub fn grade_distribution(content: &Arc<Content>, seeds: std::ops::Range<u64>, moves: usize) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for seed in seeds {
        let mut session = Session::from_content(Arc::clone(content), seed);
        crate::engine::policy::RandomPolicy::new(seed).play(&mut session, moves);
        let key = match session.campaign().and_then(|campaign| campaign.result.as_ref()) {
            None => "unfinished".to_owned(),
            Some(CampaignResult { grade: Some(grade), .. }) => grade.clone(),
            Some(CampaignResult { won: true, .. }) => "won".to_owned(),
            Some(CampaignResult { won: false, .. }) => "lost".to_owned(),
        };
        let count = counts.entry(key).or_insert(0u32);
        *count = count.saturating_add(1);
    }
    counts
}
