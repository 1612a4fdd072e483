//! The formula environment of the campaign: stats (stored, or computed when read), campaign
//! names and node properties.

use std::collections::BTreeMap;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::formula::{Env, LookupSlot};
use crate::model::{Era, Expr, Id, MapNode, NodeMap, Project, Stat};

use super::{CampaignState, MAX_READ_DEPTH};
use crate::engine::content::{Accessor, Content};

/// A campaign name a formula reads (FORMAT.md §14).
#[derive(Clone, Debug, PartialEq)]
pub enum CampaignRead {
    /// `campaign.day`: the day, from 1.
    Day,
    /// `campaign.phase`: the phase of the day, from 1.
    Phase,
    /// `era.turn`: the day within the current era, from 1.
    EraDay,
    /// `campaign.captured`: how many nodes are captured.
    Captured,
    /// `campaign.retaken`: how many nodes patrols have retaken.
    Retaken,
    /// `campaign.moves`: how many paths the player has taken.
    Moves,
    /// `campaign.stealthy`: 1 while no patrol sees the player.
    Stealthy,
    /// `campaign.won`: 1 once the campaign is won.
    Won,
    /// `campaign.lost`: 1 once the campaign is lost.
    Lost,
    /// `campaign.ended`: 1 once the campaign is over.
    Ended,
    /// `campaign.hand`: how many cards the player holds.
    Hand,
    /// `campaign.syntheses`: syntheses triggered.
    Syntheses,
    /// `campaign.failures`: syntheses that failed.
    Failures,
    /// `era.ID`: 1 while the era runs.
    Era(Id<Era>),
    /// `phase.NAME`: 1 during the phase.
    PhaseNamed(String),
    /// `node.ID.visited`.
    Visited(Id<MapNode>),
    /// `node.ID.captured`.
    NodeCaptured(Id<MapNode>),
    /// `node.ID.here`: 1 while the player stands there.
    Here(Id<MapNode>),
    /// `node.ID.patrolled`: 1 while a patrol stands there.
    Patrolled(Id<MapNode>),
    /// `node.ID.spent`: 1 once a forge has been used.
    Spent(Id<MapNode>),
    /// `node.ID.PROPERTY`.
    Property(Id<MapNode>, String),
    /// `node.current.PROPERTY`: a property of the player's node.
    CurrentProperty(String),
}

impl CampaignRead {
    /// The campaign name a dotted lookup reads, if it is one.
    pub(crate) fn of(parts: &[&str], project: &Project) -> Option<Self> {
        let read = match parts {
            ["campaign", "day"] => Self::Day,
            ["campaign", "phase"] => Self::Phase,
            ["campaign", "captured"] => Self::Captured,
            ["campaign", "retaken"] => Self::Retaken,
            ["campaign", "moves"] => Self::Moves,
            ["campaign", "stealthy"] => Self::Stealthy,
            ["campaign", "won"] => Self::Won,
            ["campaign", "lost"] => Self::Lost,
            ["campaign", "ended"] => Self::Ended,
            ["campaign", "hand"] => Self::Hand,
            ["campaign", "syntheses"] => Self::Syntheses,
            ["campaign", "failures"] => Self::Failures,
            ["era", "turn"] => Self::EraDay,
            ["era", id] if project.eras.get(id).is_some() => Self::Era(Id::new(*id)),
            ["phase", name] => Self::PhaseNamed((*name).to_owned()),
            ["node", "current", property] => Self::CurrentProperty((*property).to_owned()),
            ["node", id, what] => {
                let node = Id::new(*id);
                match *what {
                    "visited" => Self::Visited(node),
                    "captured" => Self::NodeCaptured(node),
                    "here" => Self::Here(node),
                    "patrolled" => Self::Patrolled(node),
                    "spent" => Self::Spent(node),
                    property => Self::Property(node, property.to_owned()),
                }
            }
            _ => return None,
        };
        Some(read)
    }
}

/// The formula environment of the campaign: stats (stored, or computed when read), campaign
/// names and node properties; table counts have no value here.
pub(super) struct CampaignEnv<'a> {
    pub(super) content: &'a Content,
    pub(super) accessors: &'a [Accessor],
    pub(super) map: &'a NodeMap,
    pub(super) state: &'a CampaignState,
    pub(super) stored: &'a BTreeMap<Id<Stat>, f64>,
    pub(super) rng: &'a mut Pcg64Mcg,
    pub(super) depth: usize,
}

impl CampaignEnv<'_> {
    /// Evaluates content's formula one level deeper (computed stats, node properties).
    fn nested(&mut self, expr: &Expr) -> f64 {
        if self.depth >= MAX_READ_DEPTH {
            return f64::NAN;
        }
        let mut inner = CampaignEnv {
            content: self.content,
            accessors: &self.content.accessors,
            map: self.map,
            state: self.state,
            stored: self.stored,
            rng: &mut *self.rng,
            depth: self.depth + 1,
        };
        inner.expr(expr)
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let content = self.content;
        content.formula(expr).map_or(f64::NAN, |compiled| content.formulas().eval(compiled, self))
    }

    pub(super) fn stat(&mut self, id: &Id<Stat>) -> f64 {
        if let Some(value) = self.stored.get(id) {
            return *value;
        }
        let content = self.content;
        match content.project.stats.get(id.as_str()) {
            Some(stat) => self.nested(stat.value.expr()),
            None => f64::NAN,
        }
    }

    fn property(&mut self, node: &Id<MapNode>, property: &str) -> f64 {
        let map = self.map;
        let value = map.nodes.iter().find(|n| n.id == *node).and_then(|n| n.properties.get(property));
        value.map_or(f64::NAN, |expr| self.nested(expr))
    }

    fn read(&mut self, read: &CampaignRead) -> f64 {
        let state = self.state;
        let flag = |yes: bool| if yes { 1.0 } else { 0.0 };
        let won = state.result.as_ref().map(|result| result.won);
        match read {
            CampaignRead::Day => f64::from(state.day),
            CampaignRead::Phase => (state.phase + 1) as f64,
            CampaignRead::EraDay => f64::from(state.era_day),
            CampaignRead::Captured => state.captured.len() as f64,
            CampaignRead::Retaken => f64::from(state.retaken),
            CampaignRead::Moves => f64::from(state.moves),
            CampaignRead::Stealthy => flag(!state.seen(self.map)),
            CampaignRead::Won => flag(won == Some(true)),
            CampaignRead::Lost => flag(won == Some(false)),
            CampaignRead::Ended => flag(won.is_some()),
            CampaignRead::Hand => state.hand.len() as f64,
            CampaignRead::Syntheses => f64::from(state.syntheses),
            CampaignRead::Failures => f64::from(state.failures),
            CampaignRead::Era(id) => flag(state.era.as_ref() == Some(id)),
            CampaignRead::PhaseNamed(name) => flag(state.phase_name(self.map) == name),
            CampaignRead::Visited(node) => flag(state.visited.contains(node)),
            CampaignRead::NodeCaptured(node) => flag(state.captured.contains(node)),
            CampaignRead::Here(node) => flag(state.node == *node),
            CampaignRead::Patrolled(node) => {
                flag(self.map.patrols.iter().any(|patrol| state.patrol_node(self.map, &patrol.id) == Some(node)))
            }
            CampaignRead::Spent(node) => flag(state.spent.contains(node)),
            CampaignRead::Property(node, property) => self.property(node, property),
            CampaignRead::CurrentProperty(property) => {
                let node = state.node.clone();
                self.property(&node, property)
            }
        }
    }
}

impl Env for CampaignEnv<'_> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(id)) => {
                let id = id.clone();
                self.stat(&id)
            }
            Some(Accessor::Turn) => f64::from(self.state.day),
            Some(Accessor::Constant(value)) => *value,
            Some(Accessor::Campaign(read)) => {
                let read = read.clone();
                self.read(&read)
            }
            Some(Accessor::Count(..) | Accessor::Cards(_) | Accessor::Missing) | None => f64::NAN,
        }
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(_) | Accessor::Turn | Accessor::Constant(_)) => true,
            Some(Accessor::Campaign(read)) => !self.read(&read.clone()).is_nan(),
            Some(Accessor::Count(..) | Accessor::Cards(_) | Accessor::Missing) | None => false,
        }
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// A uniform draw in 0..1 from the session's generator.
pub(super) fn unit(rng: &mut Pcg64Mcg) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

pub(super) fn truthy(value: f64) -> bool {
    value != 0.0 && !value.is_nan()
}
