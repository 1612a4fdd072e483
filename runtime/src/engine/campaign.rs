//! The campaign system (`spec/era-synthesis.md` §1, §2, §5–§7; FORMAT.md §14): the player walks
//! a node map (a DAG) from its start, paying each path's cost from a meter that may run into
//! credit down to its `min`; entering a node captures it and fires what its kind does; dashed
//! paths open while their unlock formula holds; patrols walk their routes each day and retake
//! weak captured nodes; two cards of the hand may be smelted by the map's synthesis; days run
//! through phases, eras rotate in their cycle, meters fire rules when they cross thresholds,
//! and the content's formulas decide win, loss and the grade.
//!
//! It shares the engine's core: compiled formulas and accessors, rules (requirements, stat and
//! path modifiers), stats, the session's seeded generator and outcome. Stored stats are the
//! turns system's when the project also plays turns (one set of values), else the campaign's.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::formula::{Env, FormulaSet, ProjectNames, Slot};
use crate::model::{
    CardId, Crossing, Era, Expr, FragmentRef, Id, MapNode, NodeKind, NodeMap, PathOp, Project, Requirements, RuleId,
    Stat, StatOp, StatValue,
};

use super::content::{Accessor, Content};
use super::rules::MAX_RULE_DEPTH;
use super::state::Outcome;
use super::{Choice, ChoiceError, Event, Session};
use crate::number::show_value;

/// How deep formulas may read computed stats and node properties (a cycle reads NaN past it).
const MAX_READ_DEPTH: usize = 16;

/// The affix that hides the player from patrols on a node.
pub const HIDDEN_AFFIX: &str = "hidden_from_patrols";

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
    pub(super) fn of(parts: &[&str], project: &Project) -> Option<Self> {
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
    /// Syntheses triggered.
    pub syntheses: u32,
    /// Syntheses that failed.
    pub failures: u32,
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
        self.syntheses.hash(state);
        self.failures.hash(state);
        super::hash_values(&self.meters, state);
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

    /// The current phase's name (`day` for a map without phases).
    pub fn phase_name<'m>(&self, map: &'m NodeMap) -> &'m str {
        map.phases.get(self.phase).map_or("day", |phase| phase.name.as_str())
    }
}

/// The formula environment of the campaign: stats (stored, or computed when read), campaign
/// names and node properties; table counts have no value here.
struct CampaignEnv<'a> {
    content: &'a Content,
    accessors: &'a [Accessor],
    map: &'a NodeMap,
    state: &'a CampaignState,
    stored: &'a BTreeMap<Id<Stat>, f64>,
    rng: &'a mut Pcg64Mcg,
    depth: usize,
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

    fn expr(&mut self, expr: &Expr) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let content = self.content;
        content.formula(expr).map_or(f64::NAN, |compiled| content.formulas().eval(compiled, self))
    }

    fn stat(&mut self, id: &Id<Stat>) -> f64 {
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
    fn value(&mut self, slot: Slot) -> f64 {
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
    fn has(&mut self, slot: Slot) -> bool {
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
fn unit(rng: &mut Pcg64Mcg) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}

fn truthy(value: f64) -> bool {
    value != 0.0 && !value.is_nan()
}

/// One step of the campaign: content, map, state, the stored stats, generator and events.
struct Step<'a> {
    content: &'a Content,
    map: &'a NodeMap,
    state: &'a mut CampaignState,
    stored: &'a mut BTreeMap<Id<Stat>, f64>,
    rng: &'a mut Pcg64Mcg,
    events: &'a mut Vec<Event>,
}

impl Step<'_> {
    /// The formula environment over this step's state.
    fn env(&mut self) -> CampaignEnv<'_> {
        CampaignEnv {
            content: self.content,
            accessors: &self.content.accessors,
            map: self.map,
            state: self.state,
            stored: self.stored,
            rng: &mut *self.rng,
            depth: 0,
        }
    }

    fn value(&mut self, expr: &Expr) -> f64 {
        self.env().expr(expr)
    }

    fn stat_value(&mut self, id: &Id<Stat>) -> f64 {
        self.env().stat(id)
    }

    fn warn(&mut self, message: String) {
        self.events.push(Event::Warning(message));
    }

    fn ended(&self) -> bool {
        self.state.result.is_some()
    }

    /// The lowest value a stat may take (its `min`; none: no limit).
    fn floor_of(&mut self, stat: &Stat) -> f64 {
        match &stat.min {
            Some(min) => {
                let min = self.value(min);
                if min.is_nan() { f64::NEG_INFINITY } else { min }
            }
            None => f64::NEG_INFINITY,
        }
    }

    /// Sets a stored stat within its limits, reports it, and runs the rules of every threshold
    /// it crossed (in the stat's order).
    fn set_stat(&mut self, stat: &Stat, value: f64, depth: usize) {
        let old = self.stat_value(&stat.id);
        let mut value = value;
        if let Some(max) = &stat.max {
            let max = self.value(max);
            if value > max {
                value = max;
            }
        }
        let min = self.floor_of(stat);
        if value < min {
            value = min;
        }
        self.stored.insert(stat.id.clone(), value);
        if old.to_bits() == value.to_bits() {
            return;
        }
        self.events.push(Event::StatChanged { stat: stat.id.clone(), value: show_value(value, stat.rounding) });
        for threshold in &stat.thresholds {
            let at = self.value(&threshold.at);
            let rising = old < at && value >= at;
            let falling = old >= at && value < at;
            let crossed = match threshold.crossing {
                Crossing::Rising => rising,
                Crossing::Falling => falling,
                Crossing::Either => rising || falling,
            };
            if crossed {
                self.events.push(Event::ThresholdCrossed { stat: stat.id.clone(), rule: threshold.rule.clone() });
                self.run_rule(&threshold.rule, depth + 1);
            }
        }
    }

    /// Whether requirements hold: the condition, then and/or rules. Tests count cards at table
    /// locations, which a campaign has none of: a test passes only when it `can_fail`.
    fn holds(&mut self, requirements: &Requirements, invert: bool, depth: usize) -> bool {
        let mut passed = requirements.tests.iter().all(|test| test.can_fail);
        if passed && let Some(condition) = &requirements.condition {
            passed = truthy(self.value(condition));
        }
        if passed {
            passed = requirements.and.iter().all(|rule| self.rule_holds(rule, depth + 1));
        }
        if passed && !requirements.or.is_empty() {
            passed = requirements.or.iter().any(|rule| self.rule_holds(rule, depth + 1));
        }
        passed != invert
    }

    fn rule_holds(&mut self, id: &RuleId, depth: usize) -> bool {
        let content = self.content;
        depth <= MAX_RULE_DEPTH
            && content
                .project
                .rules
                .get(id.as_str())
                .is_some_and(|rule| self.holds(&rule.requirements, rule.invert, depth))
    }

    /// Runs a rule when its requirements hold: stat modifiers, path modifiers (`EndGame`,
    /// `Warning`), then its `furthermore` rules.
    fn run_rule(&mut self, id: &RuleId, depth: usize) {
        if depth > MAX_RULE_DEPTH {
            self.warn(format!("rule `{id}`: rules nest too deeply (a threshold or rule refers to itself); it is cut"));
            return;
        }
        let content = self.content;
        let Some(rule) = content.rule(id.as_str()) else { return };
        if self.ended() || !self.holds(&rule.requirements, rule.invert, depth) {
            return;
        }
        self.events.push(Event::CampaignRuleRan { rule: id.clone() });
        let effects = &rule.effects;
        if !(effects.act_modifiers.is_empty()
            && effects.card_modifiers.is_empty()
            && effects.table_modifiers.is_empty()
            && effects.deck_modifiers.is_empty()
            && effects.rule_modifiers.is_empty())
        {
            self.warn(format!("rule `{id}`: only stat and path modifiers act in the campaign"));
        }
        for modifier in &effects.stat_modifiers {
            let Some(stat) = content.project.stats.get(modifier.stat.as_str()) else { continue };
            if !stat.value.is_stored() {
                self.warn(format!("rule `{id}`: the stat `{}` is computed; it cannot be changed", stat.id));
                continue;
            }
            let amount = self.value(&modifier.value);
            let current = self.stat_value(&stat.id);
            let value = match modifier.op {
                StatOp::Add => current + amount,
                StatOp::Set => amount,
                StatOp::Multiply => current * amount,
            };
            self.set_stat(stat, value, depth);
        }
        for modifier in &effects.path_modifiers {
            match modifier.op {
                PathOp::Warning => self.warn(modifier.text.clone()),
                PathOp::EndGame | PathOp::GameOver | PathOp::Error => {
                    let won = self.map.win.clone().is_some_and(|win| truthy(self.value(&win)));
                    self.end(won, Some(&modifier.text));
                }
                _ => self.warn(format!("rule `{id}`: the path op {:?} does nothing in the campaign", modifier.op)),
            }
        }
        for next in &effects.furthermore {
            self.run_rule(next, depth + 1);
        }
    }

    fn run_rules(&mut self, rules: &[RuleId]) {
        for rule in rules {
            self.run_rule(rule, 0);
        }
    }

    /// Ends the campaign: the result first (grades read `campaign.won`), then the first grade
    /// that holds.
    fn end(&mut self, won: bool, text: Option<&str>) {
        if self.ended() {
            return;
        }
        self.state.result = Some(CampaignResult { won, grade: None, outcome: String::new() });
        let map = self.map;
        let grade = map.grades.iter().find(|grade| truthy(self.value(&grade.when)));
        let verdict = if won { "victory" } else { "defeat" };
        let outcome = match (&text, grade) {
            (Some(text), _) if !text.is_empty() => (*text).to_owned(),
            (_, Some(grade)) if !grade.label.is_empty() => format!("{verdict}: {}", grade.label),
            (_, Some(grade)) => format!("{verdict}: {}", grade.id),
            _ => verdict.to_owned(),
        };
        let grade = grade.map(|grade| grade.id.clone());
        self.state.result = Some(CampaignResult { won, grade: grade.clone(), outcome: outcome.clone() });
        self.events.push(Event::CampaignEnded { won, grade });
        self.events.push(Event::GameEnded { outcome });
    }

    /// Loss is checked before victory: a step that meets both loses.
    fn check_end(&mut self) {
        if self.ended() {
            return;
        }
        let map = self.map;
        if map.lose.as_ref().is_some_and(|lose| truthy(self.value(lose))) {
            self.end(false, None);
        } else if map.win.as_ref().is_some_and(|win| truthy(self.value(win))) {
            self.end(true, None);
        }
    }

    /// What a path costs now; none when it cannot be taken (no such path from here, locked,
    /// its cost not a number, or paying it would pass the meter's credit limit).
    fn path_cost(&mut self, to: &Id<MapNode>) -> Result<f64, Refusal> {
        let map = self.map;
        let edge =
            map.edges.iter().find(|edge| edge.from == self.state.node && edge.to == *to).ok_or(Refusal::NoPath)?;
        if map.phases.get(self.state.phase).is_some_and(|phase| phase.no_moves) {
            return Err(Refusal::Phase);
        }
        if let Some(unlock) = &edge.unlock
            && !truthy(self.value(unlock))
        {
            return Err(Refusal::Locked);
        }
        let cost = self.value(&edge.cost);
        self.affordable(cost)
    }

    /// `cost` when it is a number ≥ 0 that `cost_stat` can pay within its credit limit.
    fn affordable(&mut self, cost: f64) -> Result<f64, Refusal> {
        if !cost.is_finite() || cost < 0.0 {
            return Err(Refusal::BadCost);
        }
        if let Some(stat) = self.map.cost_stat.as_ref().and_then(|id| self.content.project.stats.get(id.as_str())) {
            let floor = self.floor_of(stat);
            if self.stat_value(&stat.id) - cost < floor - 1e-9 {
                return Err(Refusal::Credit);
            }
        }
        Ok(cost)
    }

    /// Pays `cost` from `cost_stat` (thresholds fire).
    fn pay(&mut self, cost: f64) {
        let content = self.content;
        if let Some(stat) = self.map.cost_stat.as_ref().and_then(|id| content.project.stats.get(id.as_str()))
            && cost != 0.0
        {
            let current = self.stat_value(&stat.id);
            self.set_stat(stat, current - cost, 0);
        }
    }

    /// Whether a card has the aspect an input needs (any card when the map names none).
    fn fits(&self, card: &CardId, aspect: Option<&crate::model::AspectId>) -> bool {
        aspect.is_none_or(|aspect| {
            self.content.card(card.as_str()).is_some_and(|card| {
                card.fragments.iter().any(|held| matches!(&held.fragment, FragmentRef::Aspect(id) if id == aspect))
            })
        })
    }

    /// What triggering the synthesis with `a` and `b` costs now, or why it cannot be.
    fn synthesis_cost(&mut self, a: &CardId, b: &CardId) -> Result<f64, Refusal> {
        let map = self.map;
        if map.synthesis.is_none() {
            return Err(Refusal::NoSynthesis);
        }
        if map.phases.get(self.state.phase).is_some_and(|phase| phase.no_moves) {
            return Err(Refusal::Phase);
        }
        let held = |card: &CardId| self.state.hand.iter().filter(|held| *held == card).count();
        if held(a) == 0 || held(b) < if a == b { 2 } else { 1 } {
            return Err(Refusal::NotInHand);
        }
        if !self.fits(a, map.synthesis_a.as_ref()) || !self.fits(b, map.synthesis_b.as_ref()) {
            return Err(Refusal::WrongInputs);
        }
        let cost = self.value(&map.synthesis_cost);
        self.affordable(cost)
    }

    /// Triggers the synthesis: its table from the meters' values now, a candidate drawn by
    /// share, a success roll against its chance; both inputs leave the hand, the result joins
    /// it on success; then the synthesis's `on_success` or `on_failure` rules. A table that
    /// cannot be worked out (a content error) is a warning and changes nothing.
    fn synthesize(&mut self, a: &CardId, b: &CardId, cost: f64) {
        let map = self.map;
        let content = self.content;
        let Some(id) = &map.synthesis else { return };
        let mut values = BTreeMap::new();
        for stat in &content.project.stats {
            let value = self.stat_value(&stat.id);
            if !value.is_nan() {
                values.insert(stat.id.as_str().to_owned(), value);
            }
        }
        let table =
            match crate::synthesis::probability_table(&content.project, id.as_str(), a.as_str(), b.as_str(), &values) {
                Ok(table) => table,
                Err(error) => {
                    self.warn(format!("synthesis `{id}`: {error}"));
                    return;
                }
            };
        let roll = unit(self.rng);
        let mut total = 0.0;
        let chosen = table
            .candidates
            .iter()
            .find(|candidate| {
                total += candidate.share;
                roll < total
            })
            .or_else(|| table.candidates.last());
        let Some(chosen) = chosen else { return };
        let success = unit(self.rng) * 100.0 < chosen.success;
        self.pay(cost);
        for input in [a, b] {
            if let Some(at) = self.state.hand.iter().position(|held| held == input) {
                self.state.hand.remove(at);
            }
        }
        self.state.syntheses = self.state.syntheses.saturating_add(1);
        if success {
            self.state.hand.push(chosen.card.clone());
        } else {
            self.state.failures = self.state.failures.saturating_add(1);
        }
        self.events.push(Event::Synthesized {
            a: a.clone(),
            b: b.clone(),
            result: chosen.card.clone(),
            chance: show_value(chosen.success, None),
            success,
        });
        let Some(synthesis) = content.project.syntheses.get(id.as_str()) else { return };
        self.run_rules(if success { &synthesis.on_success } else { &synthesis.on_failure });
        let most_probable = table.candidates.iter().map(|candidate| candidate.share).fold(0.0, f64::max);
        if !success
            && chosen.share >= most_probable
            && let Some(stat) = synthesis.insight.as_ref().and_then(|id| content.project.stats.get(id.as_str()))
        {
            let value = self.stat_value(&stat.id);
            self.set_stat(stat, value + 1.0, 0);
            self.events.push(Event::InsightGained { stat: stat.id.clone() });
        }
        if let Some(check) = &synthesis.revelation {
            let mut revealed = self.dice_check(check, check.above.saturating_add(1));
            if !revealed
                && !success
                && let Some(at_least) = check.retry_at_least
            {
                revealed = self.dice_check(check, at_least);
            }
            if revealed {
                if let Some(stat) = check.stat.as_ref().and_then(|id| content.project.stats.get(id.as_str())) {
                    let value = self.stat_value(&stat.id);
                    self.set_stat(stat, value + 1.0, 0);
                }
                self.run_rules(&check.on_success);
            }
        }
    }

    /// Rolls a dice check's dice from the session's generator; succeeds at `at_least` or more.
    fn dice_check(&mut self, check: &crate::model::DiceCheck, at_least: i64) -> bool {
        let sides = u64::from(check.sides.max(1));
        // At most 100 dice: a content typo must not stall the session.
        let dice: Vec<i64> =
            (0..check.dice.min(100)).map(|_| i64::try_from(self.rng.next_u64() % sides).unwrap_or(0) + 1).collect();
        let success = dice.iter().sum::<i64>() >= at_least;
        self.events.push(Event::DiceChecked { dice, success });
        success
    }

    /// Takes a path: pays, moves, captures, and does what the node's kind does.
    fn move_to(&mut self, to: &Id<MapNode>, cost: f64) {
        let map = self.map;
        self.pay(cost);
        let from = std::mem::replace(&mut self.state.node, to.clone());
        self.state.moves = self.state.moves.saturating_add(1);
        self.events.push(Event::CampaignMoved { from, to: to.clone(), cost: show_value(cost, None) });
        self.state.visited.insert(to.clone());
        let captured = self.state.captured.insert(to.clone());
        if captured {
            self.events.push(Event::NodeCaptured { node: to.clone() });
        }
        if let Some(node) = map.nodes.iter().find(|node| node.id == *to) {
            self.enter(node);
        }
        if captured {
            self.run_rules(&map.on_capture);
        }
    }

    /// What a node's kind does when the player enters it.
    fn enter(&mut self, node: &MapNode) {
        let map = self.map;
        let to = &node.id;
        match &node.kind {
            // A forge works once, then plays as a normal node.
            NodeKind::Forge if self.state.spent.contains(to) => {}
            NodeKind::Forge => {
                self.state.spent.insert(to.clone());
                self.run_rules(&node.rules);
            }
            NodeKind::Custom(kind) => {
                self.run_rules(&node.rules);
                if let Some(rules) = map.kind_rules.get(kind) {
                    self.run_rules(rules);
                }
            }
            NodeKind::Normal | NodeKind::Home | NodeKind::Anecdote | NodeKind::Safehouse => {
                self.run_rules(&node.rules);
            }
        }
    }

    /// Ends the phase; after the last one the day ends (patrols walk, the calendar and the era
    /// cycle move on) and the next day's first phase begins.
    fn end_phase(&mut self) {
        let map = self.map;
        if self.state.phase + 1 < map.phases.len() {
            self.state.phase += 1;
            self.begin_phase(false);
            return;
        }
        self.walk_patrols();
        if self.ended() {
            return;
        }
        self.state.day = self.state.day.saturating_add(1);
        self.state.era_day = self.state.era_day.saturating_add(1);
        self.state.phase = 0;
        let content = self.content;
        let era = self.state.era.as_ref().and_then(|id| content.project.eras.get(id.as_str()));
        if let Some(era) = era {
            let length = self.value(&era.duration_turns);
            let length = if length.is_finite() && length >= 1.0 { length } else { 1.0 };
            if f64::from(self.state.era_day) > length {
                let next = era.next.clone().unwrap_or_else(|| era.id.clone());
                self.state.era = Some(next.clone());
                self.state.era_day = 1;
                self.events.push(Event::EraStarted { era: next });
            }
        }
        self.begin_phase(true);
    }

    /// Reports the phase and runs its rules (at dawn, the current era's rules first).
    fn begin_phase(&mut self, new_day: bool) {
        let map = self.map;
        let content = self.content;
        self.events.push(Event::PhaseStarted { day: self.state.day, phase: self.state.phase_name(map).to_owned() });
        if new_day && let Some(era) = self.state.era.as_ref().and_then(|id| content.project.eras.get(id.as_str())) {
            self.run_rules(&era.rules);
        }
        if let Some(phase) = map.phases.get(self.state.phase) {
            self.run_rules(&phase.rules);
        }
    }

    /// Every patrol steps to the next node of its route; a captured node it reaches whose
    /// `strength` is below the patrol's is retaken (never the start, a home or a safehouse).
    fn walk_patrols(&mut self) {
        let map = self.map;
        for patrol in &map.patrols {
            if patrol.route.is_empty() {
                continue;
            }
            let at = self.state.patrols.get(&patrol.id).copied().unwrap_or(0);
            let next = (at + 1) % patrol.route.len();
            self.state.patrols.insert(patrol.id.clone(), next);
            let Some(node_id) = patrol.route.get(next) else { continue };
            self.events.push(Event::PatrolMoved { patrol: patrol.id.clone(), node: node_id.clone() });
            let Some(node) = map.nodes.iter().find(|node| node.id == *node_id) else { continue };
            let protected =
                matches!(node.kind, NodeKind::Home | NodeKind::Safehouse) || map.start.as_ref() == Some(node_id);
            if protected || !self.state.captured.contains(node_id) {
                continue;
            }
            let strength = node.properties.get("strength").map_or(0.0, |expr| self.value(expr));
            let patrol_strength = self.value(&patrol.strength);
            if strength < patrol_strength {
                self.state.captured.remove(node_id);
                self.state.retaken = self.state.retaken.saturating_add(1);
                self.events.push(Event::NodeRetaken { node: node_id.clone(), patrol: patrol.id.clone() });
                self.run_rules(&patrol.on_retake);
            }
        }
    }
}

/// Why a path cannot be taken now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refusal {
    NoPath,
    Phase,
    Locked,
    BadCost,
    Credit,
    NoSynthesis,
    NotInHand,
    WrongInputs,
}

impl Refusal {
    fn words(self) -> &'static str {
        match self {
            Self::NoPath => "no path leads there from the player's node",
            Self::Phase => "the player cannot move during this phase",
            Self::Locked => "that path is locked (its unlock condition does not hold)",
            Self::BadCost => "the cost is not a number of 0 or more",
            Self::Credit => "paying that cost would go past the meter's credit limit",
            Self::NoSynthesis => "the map has no synthesis",
            Self::NotInHand => "the hand does not hold those cards",
            Self::WrongInputs => "those cards cannot be the synthesis's inputs (A first, then B)",
        }
    }
}

/// The stored stats in declaration order (by `order`, then id) with their start values, kept
/// within their limits; a formula may read stats declared before it.
fn start_meters(content: &Content, map: &NodeMap, state: &mut CampaignState, rng: &mut Pcg64Mcg) {
    let mut stats: Vec<&Stat> = content.project.stats.iter().filter(|stat| stat.value.is_stored()).collect();
    stats.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    let mut stored = std::mem::take(&mut state.meters);
    for stat in stats {
        let StatValue::Stored(expr) = &stat.value else { continue };
        let mut events = Vec::new();
        let mut step = Step { content, map, state, stored: &mut stored, rng, events: &mut events };
        let mut value = step.value(expr);
        if let Some(max) = &stat.max {
            value = value.min(step.value(max));
        }
        value = value.max(step.floor_of(stat));
        stored.insert(stat.id.clone(), value);
    }
    state.meters = stored;
}

impl Session {
    /// The campaign's state, when the project's entry names a node map.
    pub fn campaign(&self) -> Option<&CampaignState> {
        self.campaign.as_ref()
    }

    /// Starts the campaign of `entry.node_map`: the player on the start node (captured), the
    /// first era's first day, meters at their start values, the first phase's rules run.
    pub(super) fn start_campaign(&mut self, events: &mut Vec<Event>) {
        let content = Arc::clone(&self.content);
        let Some(map) =
            content.project.manifest.entry.node_map.as_ref().and_then(|id| content.project.node_maps.get(id.as_str()))
        else {
            return;
        };
        let Some(start) = map.start.clone().or_else(|| map.nodes.first().map(|node| node.id.clone())) else { return };
        let mut state = CampaignState {
            map: map.id.clone(),
            node: start.clone(),
            visited: BTreeSet::from([start.clone()]),
            captured: BTreeSet::from([start]),
            spent: BTreeSet::new(),
            patrols: map.patrols.iter().map(|patrol| (patrol.id.clone(), 0)).collect(),
            day: 1,
            phase: 0,
            era: map.first_era.clone(),
            era_day: 1,
            moves: 0,
            retaken: 0,
            hand: map.hand.clone(),
            syntheses: 0,
            failures: 0,
            meters: BTreeMap::new(),
            result: None,
        };
        if self.turns.is_none() {
            start_meters(&content, map, &mut state, &mut self.rng);
        }
        self.campaign = Some(state);
        self.campaign_step(events, |step| {
            if let Some(era) = step.state.era.clone() {
                step.events.push(Event::EraStarted { era });
            }
            step.begin_phase(true);
        });
    }

    /// Runs `body` as one campaign step over the stored stats (the turns system's when it
    /// runs), then checks the end; the session ends with the campaign when the table is idle.
    fn campaign_step<R>(&mut self, events: &mut Vec<Event>, body: impl FnOnce(&mut Step<'_>) -> R) -> Option<R> {
        let content = Arc::clone(&self.content);
        let campaign = self.campaign.as_mut()?;
        let map = content.project.node_maps.get(campaign.map.as_str())?;
        let mut stored = match self.turns.as_mut() {
            Some(turns) => std::mem::take(&mut turns.stored),
            None => std::mem::take(&mut campaign.meters),
        };
        let mut step =
            Step { content: &content, map, state: campaign, stored: &mut stored, rng: &mut self.rng, events };
        let result = body(&mut step);
        step.check_end();
        match self.turns.as_mut() {
            Some(turns) => turns.stored = stored,
            None => campaign.meters = stored,
        }
        let table_idle = self.state.windows.is_empty() && self.state.cards.is_empty();
        if table_idle
            && self.state.outcome.is_none()
            && let Some(result) = &campaign.result
        {
            self.state.outcome = Some(Outcome::Ended(result.outcome.clone()));
        }
        Some(result)
    }

    /// A read-only step over copies of the campaign, its stats and the generator (not the
    /// table): for choices, refusals and queries.
    fn campaign_look<R>(&self, body: impl FnOnce(&mut Step<'_>) -> R) -> Option<R> {
        let mut campaign = self.campaign.clone()?;
        let map = self.content.project.node_maps.get(campaign.map.as_str())?;
        let mut stored = match &self.turns {
            Some(turns) => turns.stored.clone(),
            None => std::mem::take(&mut campaign.meters),
        };
        let mut rng = self.rng.clone();
        let mut events = Vec::new();
        let mut step = Step {
            content: &self.content,
            map,
            state: &mut campaign,
            stored: &mut stored,
            rng: &mut rng,
            events: &mut events,
        };
        Some(body(&mut step))
    }

    /// The campaign choices: each path from the player's node that can be taken now (in the
    /// map's order), then `EndPhase`.
    /// "Play from here": puts the player on `node` of the campaign's map (visited and captured),
    /// outside the rules; nothing is paid and no node effect runs.
    pub fn jump_to_node(&mut self, node: &str) -> Result<(), String> {
        let content = Arc::clone(&self.content);
        let campaign = self.campaign.as_mut().ok_or("the project has no campaign (no node map in its entry)")?;
        let map = content
            .project
            .node_maps
            .get(campaign.map.as_str())
            .ok_or_else(|| format!("there is no node map `{}`", campaign.map))?;
        let target = map.nodes.iter().find(|n| n.id.as_str() == node).ok_or_else(|| {
            let known: Vec<&str> = map.nodes.iter().map(|n| n.id.as_str()).collect();
            format!("node map `{}` has no node `{node}` (it has: {})", map.id, known.join(", "))
        })?;
        campaign.node = target.id.clone();
        campaign.visited.insert(target.id.clone());
        campaign.captured.insert(target.id.clone());
        Ok(())
    }

    pub(super) fn campaign_choices(&self) -> Vec<Choice> {
        let Some(campaign) = &self.campaign else { return Vec::new() };
        if campaign.result.is_some() || self.state.outcome.is_some() {
            return Vec::new();
        }
        let mut choices = self
            .campaign_look(|step| {
                let map = step.map;
                let here = step.state.node.clone();
                let mut choices: Vec<Choice> = map
                    .edges
                    .iter()
                    .filter(|edge| edge.from == here)
                    .filter(|edge| step.path_cost(&edge.to).is_ok())
                    .map(|edge| Choice::MoveToNode { node: edge.to.clone() })
                    .collect::<Vec<_>>();
                let mut kinds: Vec<CardId> = Vec::new();
                for card in &step.state.hand {
                    if !kinds.contains(card) {
                        kinds.push(card.clone());
                    }
                }
                for a in &kinds {
                    for b in &kinds {
                        if step.synthesis_cost(a, b).is_ok() {
                            choices.push(Choice::Synthesize { a: a.clone(), b: b.clone() });
                        }
                    }
                }
                choices
            })
            .unwrap_or_default();
        choices.push(Choice::EndPhase);
        choices
    }

    /// Plays a campaign choice.
    pub(super) fn apply_campaign(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        if self.campaign.as_ref().is_none_or(|campaign| campaign.result.is_some()) {
            return Err(if self.campaign.is_some() {
                ChoiceError::GameEnded
            } else {
                ChoiceError::NotPossible(format!("{choice:?}"))
            });
        }
        let mut events = Vec::new();
        let done = match choice {
            Choice::MoveToNode { node } => self.campaign_step(&mut events, |step| match step.path_cost(node) {
                Ok(cost) => {
                    step.move_to(node, cost);
                    true
                }
                Err(_) => false,
            }),
            Choice::EndPhase => self.campaign_step(&mut events, |step| {
                step.end_phase();
                true
            }),
            Choice::Synthesize { a, b } => self.campaign_step(&mut events, |step| match step.synthesis_cost(a, b) {
                Ok(cost) => {
                    step.synthesize(a, b, cost);
                    true
                }
                Err(_) => false,
            }),
            _ => None,
        };
        if done != Some(true) {
            return Err(ChoiceError::NotPossible(format!("{choice:?}")));
        }
        self.counters.steps += 1;
        Ok(events)
    }

    /// Why a campaign choice is refused.
    pub(super) fn why_not_campaign(&self, choice: &Choice) -> String {
        match (choice, &self.campaign) {
            (_, None) => "the project has no campaign (no entry node map)".to_owned(),
            (_, Some(campaign)) if campaign.result.is_some() => "the campaign has ended".to_owned(),
            (Choice::MoveToNode { node }, Some(_)) => self
                .campaign_look(|step| step.path_cost(node).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::Synthesize { a, b }, Some(_)) => self
                .campaign_look(|step| step.synthesis_cost(a, b).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            _ => "the phase cannot end now".to_owned(),
        }
    }

    /// The value of a formula that reads campaign names, over the campaign (None when the
    /// formula reads none of them, or no campaign runs; stats when no turns system runs).
    pub(super) fn campaign_query(&self, formula: &str) -> Option<Result<f64, String>> {
        self.campaign.as_ref()?;
        let content = &self.content;
        let mut set: FormulaSet = content.formulas().clone();
        let compiled = match set.compile(formula, &ProjectNames::new(&content.project)) {
            Ok(compiled) => compiled,
            Err(error) => return Some(Err(error.render(formula))),
        };
        let accessors: Vec<Accessor> =
            set.lookups().map(|lookup| super::content::accessor(lookup, &content.project)).collect();
        let ours = accessors.iter().any(|accessor| match accessor {
            Accessor::Campaign(_) => true,
            Accessor::Stat(_) | Accessor::Turn => self.turns.is_none(),
            _ => false,
        });
        if !ours {
            return None;
        }
        self.campaign_look(|step| {
            let mut env = CampaignEnv {
                content: step.content,
                accessors: &accessors,
                map: step.map,
                state: step.state,
                stored: step.stored,
                rng: &mut *step.rng,
                depth: 0,
            };
            Ok(set.eval(&compiled, &mut env))
        })
    }

    /// The value of a stat as the campaign reads it.
    pub fn campaign_stat(&self, stat: &str) -> Option<f64> {
        self.campaign.as_ref()?;
        self.campaign_look(|step| step.stat_value(&Id::new(stat)))
    }

    /// The campaign in words (for `actforge play` and failed expectations).
    pub fn describe_campaign(&self) -> Vec<String> {
        let Some(campaign) = &self.campaign else { return Vec::new() };
        let Some(map) = self.content.project.node_maps.get(campaign.map.as_str()) else { return Vec::new() };
        let era = campaign.era.as_ref().map_or("none", |era| era.as_str());
        let mut lines = vec![format!(
            "campaign {}: day {} ({}), era {era} day {}, at {}",
            campaign.map,
            campaign.day,
            campaign.phase_name(map),
            campaign.era_day,
            campaign.node
        )];
        let captured: Vec<&str> = campaign.captured.iter().map(Id::as_str).collect();
        lines.push(format!("  captured: {}", captured.join(" ")));
        let hand: Vec<&str> = campaign.hand.iter().map(Id::as_str).collect();
        lines.push(format!("  hand: {}", hand.join(" ")));
        for patrol in &map.patrols {
            let at = campaign.patrol_node(map, &patrol.id).map_or("?", |node| node.as_str());
            lines.push(format!("  patrol {} at {at}", patrol.id));
        }
        let mut stats: Vec<&Stat> = self.content.project.stats.iter().collect();
        stats.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
        for stat in stats {
            let value = self.campaign_stat(stat.id.as_str()).unwrap_or(f64::NAN);
            lines.push(format!("  meter {} = {}", stat.id, show_value(value, stat.rounding)));
        }
        if let Some(result) = &campaign.result {
            lines.push(format!("  ended: {}", result.outcome));
        }
        lines
    }

    /// A campaign choice as the script line that makes it.
    pub(super) fn describe_campaign_choice(choice: &Choice) -> String {
        match choice {
            Choice::MoveToNode { node } => format!("go {node}"),
            Choice::Synthesize { a, b } => format!("smelt {a} {b}"),
            _ => "end-phase".to_owned(),
        }
    }

    /// A script's campaign expectations: `node NODE`, `meter NAME OP N`, `grade NAME|none`,
    /// `day N`, `era ID`, `phase NAME`.
    pub(super) fn expect_campaign(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        let campaign = self.campaign.as_ref()?;
        let map = self.content.project.node_maps.get(campaign.map.as_str())?;
        let same = |name: &str, actual: &str, want: &str| {
            if actual == want { Ok(String::new()) } else { Err(format!("{name} is {actual}, expected {want}")) }
        };
        let result = match what {
            "node" => same("the player's node", campaign.node.as_str(), args.trim()),
            "grade" => {
                let grade = campaign.result.as_ref().and_then(|result| result.grade.as_deref()).unwrap_or("none");
                same("the grade", grade, args.trim())
            }
            // `expect day N`; anything else after `day` is left to the formula reading.
            "day" => {
                let want = args.trim().parse::<u32>().ok()?;
                same("the day", &campaign.day.to_string(), &want.to_string())
            }
            "era" => same("the era", campaign.era.as_ref().map_or("none", |era| era.as_str()), args.trim()),
            "phase" => same("the phase", campaign.phase_name(map), args.trim()),
            // Boards have `expect hand BOARD …` too: a map without cards leaves the word to them.
            "hand" if map.synthesis.is_some() || !map.hand.is_empty() => {
                let mut want: Vec<&str> = args.split_whitespace().collect();
                let mut have: Vec<&str> = campaign.hand.iter().map(Id::as_str).collect();
                want.sort_unstable();
                have.sort_unstable();
                same("the hand", &have.join(" "), &want.join(" "))
            }
            "meter" => {
                let mut words = args.split_whitespace();
                let (Some(name), Some(op), Some(want), None) = (words.next(), words.next(), words.next(), words.next())
                else {
                    return Some(Err("usage: expect meter NAME OP N (OP: == != < <= > >=)".to_owned()));
                };
                let Ok(want) = want.parse::<f64>() else {
                    return Some(Err(format!("`{want}` is not a number")));
                };
                if self.content.project.stats.get(name).is_none() {
                    return Some(Err(format!("there is no meter `{name}`")));
                }
                let value = self.campaign_stat(name).unwrap_or(f64::NAN);
                let holds = match op {
                    "==" => (value - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "!=" => (value - want).abs() > 1e-9 * want.abs().max(1.0),
                    "<" => value < want,
                    "<=" => value <= want,
                    ">" => value > want,
                    ">=" => value >= want,
                    _ => return Some(Err(format!("`{op}` is not a comparison (== != < <= > >=)"))),
                };
                if holds {
                    Ok(String::new())
                } else {
                    Err(format!("meter {name} is {}, expected {op} {want}", show_value(value, None)))
                }
            }
            _ => return None,
        };
        Some(result)
    }
}

/// How many of `seeds` end with each grade when the random policy plays up to `moves` moves
/// from each seed (the policy seeded alike): keys are grade ids, `won`/`lost` for an end without
/// a grade, and `unfinished`. For seeing a campaign's balance; deterministic.
pub fn grade_distribution(content: &Arc<Content>, seeds: std::ops::Range<u64>, moves: usize) -> BTreeMap<String, u32> {
    let mut counts = BTreeMap::new();
    for seed in seeds {
        let mut session = Session::from_content(Arc::clone(content), seed);
        super::policy::RandomPolicy::new(seed).play(&mut session, moves);
        let key = match session.campaign().and_then(|campaign| campaign.result.as_ref()) {
            None => "unfinished".to_owned(),
            Some(CampaignResult { grade: Some(grade), .. }) => grade.clone(),
            Some(CampaignResult { won: true, .. }) => "won".to_owned(),
            Some(CampaignResult { won: false, .. }) => "lost".to_owned(),
        };
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}
