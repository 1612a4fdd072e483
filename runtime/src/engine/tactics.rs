//! The tactics system (`spec/srpgck.md` §b–§d): units on a tile map with stats from formulas,
//! the CT scheduler, move skills whose reachable spots are the choices, action skills with
//! target and effect regions, hit types, status effects with durations and win conditions.
//! FORMAT.md §12 describes what content means here; everything comes from the project.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::formula::{Env, Lookup, Scope, Side, Slot};
use crate::map::{
    LineMoveParams, Occupant, Reach, ReachParams, SightParams, Spot, TileGrid, arc_shot, line_move, line_of_sight,
    reach_line, reach_path, reach_pick, signed_dz, standing_spots,
};
use crate::model::{
    EffectTarget, Expr, FacingLock, Id, InterveningSpace, LineMoveEffect, Region, RegionShape, Skill, SkillKind,
    StatOp, TileMap,
};

use super::content::Content;
use super::{Choice, ChoiceError, Event, Session};

/// Ticks the scheduler runs looking for the next turn before it gives up (nobody gains CT).
const MAX_IDLE_TICKS: u64 = 100_000;

/// How deep skill parameters may read each other before the value is NaN (a cycle guard).
const MAX_PARAM_DEPTH: u8 = 16;

/// The scheduler's settings (`spec/srpgck.md` §d): read from each unit's stats, else these.
const SPEED: (&str, f64) = ("speed", 1.0);
const MAX_CT: (&str, f64) = ("maxCT", 100.0);
const ACTIVATION_CT: (&str, f64) = ("activationCT", 30.0);
const MOVE_CT: (&str, f64) = ("moveCT", 30.0);
const PER_TILE_CT: (&str, f64) = ("perTileCT", 0.0);
const ACT_CT: (&str, f64) = ("actCT", 40.0);

/// A status that stops a unit's CT from growing (SRPGCK's `jumping`).
const FROZEN_STATUS: &str = "jumping";

/// The directions a unit can turn to at the end of its turn: name and degrees
/// (counter-clockwise from +x, +y being north).
pub const COMPASS: [(&str, u16); 4] = [("east", 0), ("north", 90), ("west", 180), ("south", 270)];

/// The compass name of a facing in degrees (the degrees themselves when it is none of the four).
pub fn compass_name(facing: u16) -> String {
    COMPASS
        .iter()
        .find(|(_, degrees)| *degrees == facing)
        .map_or_else(|| facing.to_string(), |(name, _)| (*name).to_owned())
}

/// What a lookup reads in a battle.
#[derive(Clone, Debug, PartialEq)]
enum Acc {
    Actor(String),
    Target(String),
    TargetIsNull,
    TargetIsNotNull,
    Skill(String),
    Arg(String),
    ActorStatus(String),
    TargetStatus(String),
    UnitStat(String, String),
    TeamAlive(String),
    Tick,
    Turns,
    Missing,
}

/// The battle-wide names (`unit.ID.STAT`, `team.NAME.alive`, `battle.tick`, `battle.turns`).
fn battle_accessor(name: &str) -> Acc {
    if name.starts_with("arg.") {
        return Acc::Arg(name.to_owned());
    }
    let parts: Vec<&str> = name.split('.').collect();
    match parts.as_slice() {
        ["unit", id, stat @ ..] if !stat.is_empty() => Acc::UnitStat((*id).to_owned(), stat.join(".")),
        ["team", team, "alive"] => Acc::TeamAlive((*team).to_owned()),
        ["battle", "tick"] => Acc::Tick,
        ["battle", "turns"] => Acc::Turns,
        _ => Acc::Missing,
    }
}

fn accessor(lookup: &Lookup) -> Acc {
    let name = lookup.name.clone();
    match lookup.scope {
        Scope::Actor => Acc::Actor(name),
        Scope::Target => Acc::Target(name),
        Scope::TargetIsNull => Acc::TargetIsNull,
        Scope::TargetIsNotNull => Acc::TargetIsNotNull,
        Scope::Skill => Acc::Skill(name),
        Scope::ActorStatus => Acc::ActorStatus(name),
        Scope::TargetStatus => Acc::TargetStatus(name),
        Scope::Auto => battle_accessor(&name),
        _ => Acc::Missing,
    }
}

/// What does not change during a battle: the map and how each formula slot reads it.
#[derive(Debug)]
struct Setup {
    map: Id<TileMap>,
    grid: TileGrid,
    accessors: Vec<Acc>,
    /// Unit keys in placement order: the scheduler's order and its tie-break.
    order: Vec<String>,
    /// The battle began with units of two or more teams (the default win rule applies).
    contested: bool,
}

/// A status effect on a unit.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveStatus {
    /// Its type name.
    pub name: String,
    /// Scheduler ticks left.
    pub remaining: u64,
    /// Passive changes (stat, how, amount evaluated when it was applied).
    pub effects: Vec<(String, StatOp, f64)>,
}

/// A unit in a battle.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitState {
    /// The unit type.
    pub unit: Id<crate::model::Unit>,
    /// Its team in this battle.
    pub team: String,
    /// Where it stands.
    pub spot: Spot,
    /// Facing in degrees, counter-clockwise from +x.
    pub facing: f64,
    /// Stored (base) stats; effective values add the statuses (see [`TacticsState::stat`]).
    pub stats: BTreeMap<String, f64>,
    /// Limits by stat, evaluated at the start.
    pub limits: BTreeMap<String, (Option<f64>, Option<f64>)>,
    /// Status effects, oldest first.
    pub statuses: Vec<ActiveStatus>,
    /// Out of the battle (its hp fell to 0 or below).
    pub defeated: bool,
    /// Takes turns (has `ct` and `speed` stats).
    pub scheduled: bool,
    /// The unit it rides (it stands on the mount's spot and moves with it).
    pub mount: Option<String>,
}

/// Whose turn it is and what they did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Turn {
    /// The unit.
    pub unit: String,
    /// Moved this turn.
    pub moved: bool,
    /// Used an action skill this turn.
    pub acted: bool,
}

/// A battle: units on a map, the scheduler's clock, whose turn it is, the winner.
#[derive(Clone, Debug)]
pub struct TacticsState {
    setup: Arc<Setup>,
    /// Scheduler ticks so far.
    pub tick: u64,
    /// Turns started so far.
    pub turns: u64,
    units: BTreeMap<String, UnitState>,
    /// The unit whose turn it is.
    pub active: Option<Turn>,
    /// The winning team once the battle has ended.
    pub winner: Option<String>,
}

impl Hash for TacticsState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.setup.map.hash(state);
        self.tick.hash(state);
        self.turns.hash(state);
        self.active.hash(state);
        self.winner.hash(state);
        for (key, unit) in &self.units {
            key.hash(state);
            unit.unit.hash(state);
            unit.team.hash(state);
            unit.spot.hash(state);
            unit.facing.to_bits().hash(state);
            unit.defeated.hash(state);
            unit.mount.hash(state);
            super::hash_values(&unit.stats, state);
            for status in &unit.statuses {
                status.name.hash(state);
                status.remaining.hash(state);
                for (stat, op, amount) in &status.effects {
                    stat.hash(state);
                    op.hash(state);
                    amount.to_bits().hash(state);
                }
            }
        }
    }
}

/// Who is evaluating a formula, against whom, with which skill, aimed where.
#[derive(Clone, Copy, Default)]
struct Ctx<'a> {
    actor: Option<&'a str>,
    target: Option<&'a str>,
    skill: Option<&'a Skill>,
    point: Option<Spot>,
    hit_type: f64,
}

struct TacticsEnv<'a> {
    content: &'a Content,
    state: &'a TacticsState,
    ctx: Ctx<'a>,
    rng: &'a mut Pcg64Mcg,
    depth: u8,
}

fn flag(value: bool) -> f64 {
    if value { 1.0 } else { 0.0 }
}

/// Degrees wrapped into 0..360.
fn wrap_degrees(degrees: f64) -> f64 {
    degrees.rem_euclid(360.0)
}

/// The shortest signed difference `a − b` in degrees, in −180..180.
fn degrees_between(a: f64, b: f64) -> f64 {
    let d = wrap_degrees(a - b);
    if d >= 180.0 { d - 360.0 } else { d }
}

/// The side of `y` that `x` sees (`spec/srpgck.md` §c.5).
fn side_between(x: &UnitState, y: &UnitState) -> Side {
    let xa = wrap_degrees(x.facing);
    let ya = wrap_degrees(y.facing);
    let dx = f64::from(y.spot.cell_x) - f64::from(x.spot.cell_x);
    let dy = f64::from(y.spot.cell_y) - f64::from(x.spot.cell_y);
    let inter = dy.atan2(dx).to_degrees();
    if degrees_between(inter, xa).abs() >= 45.0 {
        return Side::Away;
    }
    let rel = wrap_degrees(ya - xa);
    if (45.0..135.0).contains(&rel) {
        Side::Left
    } else if (135.0..225.0).contains(&rel) {
        Side::Front
    } else if (225.0..315.0).contains(&rel) {
        Side::Right
    } else {
        Side::Back
    }
}

/// The cardinal direction (0, 90, 180, 270) nearest to the way from `from` to `to`; None
/// when they share a cell.
fn facing_towards(from: Spot, to: Spot) -> Option<f64> {
    let dx = f64::from(to.cell_x) - f64::from(from.cell_x);
    let dy = f64::from(to.cell_y) - f64::from(from.cell_y);
    if dx == 0.0 && dy == 0.0 {
        return None;
    }
    Some(wrap_degrees((dy.atan2(dx).to_degrees() / 90.0).round() * 90.0))
}

/// A line-move direction locked as the region asks (`spec/srpgck.md` §b.8): cardinal to the
/// nearest axis, ordinal to the diagonal of its quadrant, cardinal+ordinal to the nearest 45°.
fn locked_direction(degrees: f64, lock: FacingLock) -> f64 {
    let degrees = wrap_degrees(degrees);
    match lock {
        FacingLock::Free => degrees,
        FacingLock::Cardinal => wrap_degrees((degrees / 90.0).round() * 90.0),
        FacingLock::Ordinal => wrap_degrees((degrees / 90.0).floor() * 90.0 + 45.0),
        FacingLock::CardinalOrdinal => wrap_degrees((degrees / 45.0).round() * 45.0),
    }
}

/// The way from `from` to `to` in degrees; None when they share a cell.
fn direction_towards(from: Spot, to: Spot) -> Option<f64> {
    let dx = f64::from(to.cell_x) - f64::from(from.cell_x);
    let dy = f64::from(to.cell_y) - f64::from(from.cell_y);
    (dx != 0.0 || dy != 0.0).then(|| wrap_degrees(dy.atan2(dx).to_degrees()))
}

/// The cells of a line region (§b.4, SRPGCK's perpendicular fixed): `along` cells out along
/// `theta` (radians) from `center`, `across` cells to each side.
fn line_cells(
    center: Spot,
    theta: f64,
    (r_min, r_max): (u16, u16),
    (w_min, width): (u16, u16),
) -> BTreeSet<(i64, i64)> {
    let (cos, sin) = (theta.cos(), theta.sin());
    let mut found = BTreeSet::new();
    for along in r_min..=r_max {
        for across in -i64::from(width)..=i64::from(width) {
            if across.unsigned_abs() < u64::from(w_min) {
                continue;
            }
            let (along, across) = (f64::from(along), across as f64);
            let x = i64::from(center.cell_x) + (along * cos - across * sin).round() as i64;
            let y = i64::from(center.cell_y) + (along * sin + across * cos).round() as i64;
            found.insert((x, y));
        }
    }
    found
}

/// A region's line-move walk settings.
fn walk_params(region: &Region, numbers: &RegionNumbers) -> LineMoveParams {
    LineMoveParams {
        amount: cells(numbers.radius_max),
        z_up_max: levels(numbers.z_up_max),
        z_down_max: levels(numbers.z_down_max),
        can_cross_walls: region.can_cross_walls,
        can_cross_units: region.can_cross_enemies,
        perform_fall: region.perform_fall,
        can_glide: region.can_glide,
    }
}

fn apply_op(op: StatOp, old: f64, amount: f64) -> f64 {
    match op {
        StatOp::Add => old + amount,
        StatOp::Set => amount,
        StatOp::Multiply => old * amount,
    }
}

/// A change limited as SRPGCK limits stats: a limit stops movement past it and never
/// pushes a value back towards the range.
fn limited(old: f64, new: f64, limits: Option<&(Option<f64>, Option<f64>)>) -> f64 {
    let Some((min, max)) = limits else { return new };
    let mut value = new;
    if let Some(max) = max
        && value > old
        && value > *max
    {
        value = max.max(old);
    }
    if let Some(min) = min
        && value < old
        && value < *min
    {
        value = min.min(old);
    }
    value
}

fn eval_expr(content: &Content, state: &TacticsState, ctx: Ctx<'_>, rng: &mut Pcg64Mcg, expr: &Expr, depth: u8) -> f64 {
    if let Some(value) = expr.as_int() {
        return value as f64;
    }
    let Some(compiled) = content.formula(expr) else { return f64::NAN };
    let mut env = TacticsEnv { content, state, ctx, rng, depth };
    content.formulas().eval(compiled, &mut env)
}

impl TacticsEnv<'_> {
    fn unit_stat(&self, key: Option<&str>, name: &str) -> f64 {
        key.and_then(|key| self.state.stat(key, name)).unwrap_or(f64::NAN)
    }

    fn has_status(&self, key: Option<&str>, name: &str) -> bool {
        key.and_then(|key| self.state.units.get(key))
            .is_some_and(|unit| unit.statuses.iter().any(|status| status.name == name))
    }

    fn skill_param(&mut self, name: &str) -> f64 {
        if name.starts_with("arg.") {
            return self.arg(name);
        }
        if name == "hitType" {
            return self.ctx.hit_type;
        }
        let Some(expr) = self.ctx.skill.and_then(|skill| skill.params.get(name)) else { return f64::NAN };
        if self.depth >= MAX_PARAM_DEPTH {
            return f64::NAN;
        }
        eval_expr(self.content, self.state, self.ctx, self.rng, expr, self.depth + 1)
    }

    /// The `arg.*` values (`spec/srpgck.md` §c.6) for the aimed spot.
    fn arg(&self, name: &str) -> f64 {
        let Some(point) = self.ctx.point else { return f64::NAN };
        let actor = self.ctx.actor.and_then(|key| self.state.units.get(key));
        let start = actor.map_or(point, |unit| unit.spot);
        let (px, py, pz) = (f64::from(point.cell_x), f64::from(point.cell_y), f64::from(point.level));
        let (sx, sy, sz) = (f64::from(start.cell_x), f64::from(start.cell_y), f64::from(start.level));
        let (dx, dy, dz) = ((px - sx).abs(), (py - sy).abs(), (pz - sz).abs());
        let there = self.state.unit_at(point).and_then(|key| self.state.units.get(key));
        let same_team = there.zip(actor).map(|(there, actor)| there.team == actor.team);
        match name {
            "arg.distance" => (dx * dx + dy * dy + dz * dz).sqrt(),
            "arg.distance.xy" => (dx * dx + dy * dy).sqrt(),
            "arg.mdistance" => dx + dy + dz,
            "arg.mdistance.xy" => dx + dy,
            "arg.dx" => dx,
            "arg.dy" => dy,
            "arg.dz" => dz,
            "arg.x" => px,
            "arg.y" => py,
            "arg.z" => pz,
            "arg.pos.x" => sx,
            "arg.pos.y" => sy,
            "arg.pos.z" => sz,
            "arg.sameTeam" | "arg.isAlly" => flag(same_team == Some(true)),
            "arg.otherTeam" | "arg.isEnemy" => flag(same_team == Some(false)),
            "arg.angle.xy" => {
                if dx == 0.0 && dy == 0.0 {
                    actor.map_or(0.0, |unit| unit.facing)
                } else {
                    wrap_degrees((py - sy).atan2(px - sx).to_degrees())
                }
            }
            "arg.currentHitType" => self.ctx.hit_type,
            _ => f64::NAN,
        }
    }
}

impl Env for TacticsEnv<'_> {
    fn value(&mut self, slot: Slot) -> f64 {
        let setup = Arc::clone(&self.state.setup);
        let Some(acc) = setup.accessors.get(slot.0 as usize) else { return f64::NAN };
        match acc {
            Acc::Actor(name) => self.unit_stat(self.ctx.actor, name),
            Acc::Target(name) => self.unit_stat(self.ctx.target, name),
            Acc::TargetIsNull => flag(self.ctx.target.is_none()),
            Acc::TargetIsNotNull => flag(self.ctx.target.is_some()),
            Acc::Skill(name) => self.skill_param(name),
            Acc::Arg(name) => self.arg(name),
            Acc::UnitStat(id, stat) => self.unit_stat(Some(id), stat),
            Acc::TeamAlive(team) => self.state.alive(team) as f64,
            Acc::Tick => self.state.tick as f64,
            Acc::Turns => self.state.turns as f64,
            // A status has no value: it is only asked about with exists().
            Acc::ActorStatus(_) | Acc::TargetStatus(_) | Acc::Missing => f64::NAN,
        }
    }

    fn has(&mut self, slot: Slot) -> bool {
        let setup = Arc::clone(&self.state.setup);
        let Some(acc) = setup.accessors.get(slot.0 as usize) else { return false };
        let base = |key: Option<&str>, name: &str| {
            key.and_then(|key| self.state.units.get(key)).is_some_and(|unit| unit.stats.contains_key(name))
        };
        match acc {
            Acc::Actor(name) => base(self.ctx.actor, name),
            Acc::Target(name) => base(self.ctx.target, name),
            Acc::UnitStat(id, name) => base(Some(id), name),
            Acc::Skill(name) => {
                name.starts_with("arg.") || self.ctx.skill.is_some_and(|skill| skill.params.contains_key(name))
            }
            Acc::ActorStatus(name) => self.has_status(self.ctx.actor, name),
            Acc::TargetStatus(name) => self.has_status(self.ctx.target, name),
            Acc::Arg(_) => self.ctx.point.is_some(),
            Acc::TargetIsNull | Acc::TargetIsNotNull | Acc::TeamAlive(_) | Acc::Tick | Acc::Turns => true,
            Acc::Missing => false,
        }
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn facing(&mut self, targeted: bool) -> Option<Side> {
        let actor = self.state.units.get(self.ctx.actor?)?;
        let target = self.state.units.get(self.ctx.target?)?;
        Some(if targeted { side_between(actor, target) } else { side_between(target, actor) })
    }
}

/// A region's formulas evaluated for one use.
#[derive(Clone, Copy, Debug, Default)]
struct RegionNumbers {
    radius_min: f64,
    radius_max: f64,
    z_up_min: f64,
    z_up_max: f64,
    z_down_min: f64,
    z_down_max: f64,
    xy_direction: f64,
    xy_arc_min: f64,
    xy_arc_max: f64,
    line_width_min: f64,
    line_width_max: f64,
    n_ways: f64,
}

/// A count from a formula value: NaN and negatives are 0.
fn cells(value: f64) -> u16 {
    if value.is_finite() && value > 0.0 { value.floor().min(f64::from(u16::MAX)) as u16 } else { 0 }
}

/// A level window bound: NaN is 0.
fn levels(value: f64) -> f32 {
    if value.is_nan() { 0.0 } else { value as f32 }
}

impl TacticsState {
    /// Sets up the battle of `entry.tile_map`, if the project names one with placements, and
    /// runs the scheduler to the first turn.
    pub(super) fn start(content: &Content, rng: &mut Pcg64Mcg) -> Option<(Self, Vec<Event>)> {
        let project = &content.project;
        let map = project.tile_maps.get(project.manifest.entry.tile_map.as_ref()?.as_str())?;
        if map.placements.is_empty() {
            return None;
        }
        let mut events = Vec::new();
        let grid = match TileGrid::from_map(map) {
            Ok(grid) => grid,
            Err(error) => {
                events.push(Event::Warning(format!("the battle map cannot be used: {error}")));
                return Some((Self::empty(content, map, TileGrid::new(1, 1).ok()?), events));
            }
        };
        let mut state = Self::empty(content, map, grid);
        let mut order = Vec::new();
        let mut placed: BTreeMap<String, usize> = BTreeMap::new();
        for placement in &map.placements {
            let Some(unit) = project.units.get(placement.unit.as_str()) else { continue };
            let count = placed.entry(unit.id.as_str().to_owned()).or_insert(0);
            *count += 1;
            let key = if *count == 1 { unit.id.as_str().to_owned() } else { format!("{}#{count}", unit.id) };
            let spots = standing_spots(&state.setup.grid, placement.x, placement.y);
            let spot = match placement.z {
                None => spots.last().copied(),
                Some(z) => spots.iter().copied().min_by_key(|spot| spot.level.abs_diff(z)),
            };
            let Some(spot) = spot else {
                events.push(Event::Warning(format!(
                    "{key} is placed at ({}, {}), where nobody can stand; it stays out of the battle",
                    placement.x, placement.y
                )));
                continue;
            };
            let team = if placement.team.is_empty() { unit.team.clone() } else { placement.team.clone() };
            state.units.insert(
                key.clone(),
                UnitState {
                    unit: unit.id.clone(),
                    team,
                    spot,
                    facing: f64::from(placement.facing_degrees),
                    stats: BTreeMap::new(),
                    limits: BTreeMap::new(),
                    statuses: Vec::new(),
                    defeated: false,
                    scheduled: unit.stats.contains_key("ct") && unit.stats.contains_key("speed"),
                    mount: None,
                },
            );
            order.push(key.clone());
            state.compute_stats(content, rng, &key, unit);
            if !unit.stats.contains_key("ct") || !unit.stats.contains_key("speed") {
                events.push(Event::Warning(format!("{key} has no `ct` or no `speed` stat: it never gets a turn")));
            }
        }
        let teams: BTreeSet<&str> = state.units.values().map(|unit| unit.team.as_str()).collect();
        let contested = teams.len() > 1;
        if let Some(setup) = Arc::get_mut(&mut state.setup) {
            setup.order = order;
            setup.contested = contested;
        }
        state.check_end(content, rng, &mut events);
        state.schedule(content, rng, MAX_IDLE_TICKS, &mut events);
        Some((state, events))
    }

    fn empty(content: &Content, map: &TileMap, grid: TileGrid) -> Self {
        let accessors = content.formulas().lookups().map(accessor).collect();
        Self {
            setup: Arc::new(Setup { map: map.id.clone(), grid, accessors, order: Vec::new(), contested: false }),
            tick: 0,
            turns: 0,
            units: BTreeMap::new(),
            active: None,
            winner: None,
        }
    }

    /// Base stats: each formula with the unit as `c`, repeated until they settle (a stat may
    /// read another), then the limits.
    fn compute_stats(&mut self, content: &Content, rng: &mut Pcg64Mcg, key: &str, unit: &crate::model::Unit) {
        for _ in 0..=unit.stats.len() {
            let mut changed = false;
            for (name, expr) in &unit.stats {
                let ctx = Ctx { actor: Some(key), ..Ctx::default() };
                let value = eval_expr(content, self, ctx, rng, expr, 0);
                if let Some(state) = self.units.get_mut(key)
                    && state.stats.get(name).is_none_or(|old| old.to_bits() != value.to_bits())
                {
                    state.stats.insert(name.clone(), value);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for (name, limits) in &unit.limits {
            let ctx = Ctx { actor: Some(key), ..Ctx::default() };
            let min = limits.min.as_ref().map(|expr| eval_expr(content, self, ctx, rng, expr, 0));
            let max = limits.max.as_ref().map(|expr| eval_expr(content, self, ctx, rng, expr, 0));
            if let Some(state) = self.units.get_mut(key) {
                state.limits.insert(name.clone(), (min, max));
            }
        }
    }

    /// The battle map.
    pub fn map(&self) -> &Id<TileMap> {
        &self.setup.map
    }

    /// The battle map's grid.
    pub fn grid(&self) -> &TileGrid {
        &self.setup.grid
    }

    /// Every unit by key (the unit id; `ID#N` for the N-th placement of the same unit).
    pub fn units(&self) -> impl Iterator<Item = (&str, &UnitState)> {
        self.units.iter().map(|(key, unit)| (key.as_str(), unit))
    }

    /// One unit.
    pub fn unit(&self, key: &str) -> Option<&UnitState> {
        self.units.get(key)
    }

    /// The unit whose turn it is.
    pub fn active_unit(&self) -> Option<&str> {
        self.active.as_ref().map(|turn| turn.unit.as_str())
    }

    /// The winning team, once the battle has ended.
    pub fn winner(&self) -> Option<&str> {
        self.winner.as_deref()
    }

    /// A unit's effective stat: the stored value changed by its statuses in order, within its
    /// limits; also the pseudo-stats `position.x/y/z`, `size.x/y/z`, `isMounted`, `isMounting`.
    pub fn stat(&self, key: &str, name: &str) -> Option<f64> {
        let unit = self.units.get(key)?;
        let pseudo = match name {
            "position.x" => Some(f64::from(unit.spot.cell_x)),
            "position.y" => Some(f64::from(unit.spot.cell_y)),
            "position.z" => Some(f64::from(unit.spot.level)),
            "size.x" | "size.y" => Some(1.0),
            "size.z" => Some(2.0),
            "isMounted" => Some(flag(self.rider_of(key).is_some())),
            "isMounting" => Some(flag(unit.mount.is_some())),
            _ => None,
        };
        if pseudo.is_some() {
            return pseudo;
        }
        let stored = *unit.stats.get(name)?;
        let mut value = stored;
        for status in &unit.statuses {
            for (stat, op, amount) in &status.effects {
                if stat == name {
                    value = apply_op(*op, value, *amount);
                }
            }
        }
        Some(limited(stored, value, unit.limits.get(name)))
    }

    fn setting(&self, key: &str, (name, default): (&str, f64)) -> f64 {
        self.stat(key, name).filter(|value| value.is_finite()).unwrap_or(default)
    }

    /// How many units of `team` are still in the battle.
    pub fn alive(&self, team: &str) -> usize {
        self.units.values().filter(|unit| !unit.defeated && unit.team == team).count()
    }

    /// The unit standing on `spot`: a rider before its mount (`spec/srpgck.md` §a.7).
    pub fn unit_at(&self, spot: Spot) -> Option<&str> {
        let here = || self.units.iter().filter(|(_, unit)| !unit.defeated && unit.spot == spot);
        here().find(|(_, unit)| unit.mount.is_some()).or_else(|| here().next()).map(|(key, _)| key.as_str())
    }

    /// The unit riding `key`, if any.
    pub fn rider_of(&self, key: &str) -> Option<&str> {
        self.units
            .iter()
            .find(|(_, unit)| !unit.defeated && unit.mount.as_deref() == Some(key))
            .map(|(rider, _)| rider.as_str())
    }

    /// Whether `key` may ride `other` with `region` (§b.4 step 3): the region may mount
    /// friends (enemies); `other` has a non-zero `mountable` stat, rides nobody and carries
    /// nobody; `key` has a non-zero `canMount` stat (default 1) and carries nobody.
    fn can_mount(&self, key: &str, other: &str, region: &Region) -> bool {
        let (Some(unit), Some(mount)) = (self.units.get(key), self.units.get(other)) else { return false };
        let side_allows = if unit.team == mount.team { region.can_mount_friends } else { region.can_mount_enemies };
        side_allows
            && key != other
            && !mount.defeated
            && mount.mount.is_none()
            && self.rider_of(other).is_none()
            && self.rider_of(key).is_none()
            && self.stat(other, "mountable").is_some_and(|value| value != 0.0 && !value.is_nan())
            && self.stat(key, "canMount").is_none_or(|value| value != 0.0)
    }

    /// Everyone else as `key` sees them moving with `region`: the units it may ride (and the
    /// one it rides, which it may leave) are mounts.
    fn move_occupants(&self, key: &str, region: &Region) -> BTreeMap<Spot, Occupant> {
        let mut occupants = self.occupants(Some(key));
        let riding = self.units.get(key).and_then(|unit| unit.mount.as_deref());
        let team = self.units.get(key).map(|unit| unit.team.as_str());
        for (other, unit) in &self.units {
            if riding == Some(other.as_str()) || self.can_mount(key, other, region) {
                let enemy = Some(unit.team.as_str()) != team;
                occupants.insert(unit.spot, if enemy { Occupant::MountEnemy } else { Occupant::MountAlly });
            }
        }
        occupants
    }

    /// The value of a battle-wide name for queries (`unit.ID.STAT`, `team.NAME.alive`,
    /// `battle.tick`, `battle.turns`); None for names the battle does not answer.
    pub fn lookup_value(&self, lookup: &Lookup) -> Option<f64> {
        if lookup.scope != Scope::Auto {
            return None;
        }
        match battle_accessor(&lookup.name) {
            Acc::UnitStat(id, stat) => Some(self.stat(&id, &stat).unwrap_or(f64::NAN)),
            Acc::TeamAlive(team) => Some(self.alive(&team) as f64),
            Acc::Tick => Some(self.tick as f64),
            Acc::Turns => Some(self.turns as f64),
            _ => None,
        }
    }

    /// Everyone else on the map as `key` sees them (a rider for its mount's spot).
    fn occupants(&self, key: Option<&str>) -> BTreeMap<Spot, Occupant> {
        let team = key.and_then(|key| self.units.get(key)).map(|unit| unit.team.as_str());
        let own = self.spot_of(key);
        let mut occupants = BTreeMap::new();
        for (other, unit) in &self.units {
            // The mover's own mount (or rider) shares its spot: that spot is the mover's.
            if unit.defeated || Some(other.as_str()) == key || Some(unit.spot) == own {
                continue;
            }
            let shown = self.unit_at(unit.spot).and_then(|top| self.units.get(top)).unwrap_or(unit);
            let occupant = if Some(shown.team.as_str()) == team { Occupant::Ally } else { Occupant::Enemy };
            occupants.insert(unit.spot, occupant);
        }
        occupants
    }

    fn spot_of(&self, key: Option<&str>) -> Option<Spot> {
        key.and_then(|key| self.units.get(key)).map(|unit| unit.spot)
    }

    fn numbers(&self, content: &Content, rng: &mut Pcg64Mcg, ctx: Ctx<'_>, region: &Region) -> RegionNumbers {
        let mut eval = |expr: &Expr| eval_expr(content, self, ctx, rng, expr, 0);
        RegionNumbers {
            radius_min: eval(&region.radius_min),
            radius_max: eval(&region.radius_max),
            z_up_min: eval(&region.z_up_min),
            z_up_max: eval(&region.z_up_max),
            z_down_min: eval(&region.z_down_min),
            z_down_max: eval(&region.z_down_max),
            xy_direction: eval(&region.xy_direction),
            xy_arc_min: eval(&region.xy_arc_min),
            xy_arc_max: eval(&region.xy_arc_max),
            line_width_min: eval(&region.line_width_min),
            line_width_max: eval(&region.line_width_max),
            n_ways: eval(&region.n_ways),
        }
    }

    /// Where `key` can walk with its move skills (the start excluded), with the skill that
    /// reaches each spot first in the unit's list.
    fn move_spots(&self, content: &Content, rng: &mut Pcg64Mcg, key: &str) -> BTreeMap<Spot, usize> {
        let mut spots = BTreeMap::new();
        let Some(unit) = self.units.get(key) else { return spots };
        let Some(model) = content.project.units.get(unit.unit.as_str()) else { return spots };
        for (at, skill_id) in model.skills.iter().enumerate() {
            let Some(skill) = content.project.skills.get(skill_id.as_str()) else { continue };
            if skill.kind != SkillKind::Move {
                continue;
            }
            let Some(reach) = self.move_reach(content, rng, key, skill) else { continue };
            for spot in reach.stops().filter(|spot| *spot != unit.spot) {
                spots.entry(spot).or_insert(at);
            }
        }
        spots
    }

    /// The path of a move of `key` to `to` with its skill number `at` (start and end included).
    fn move_path(&self, content: &Content, rng: &mut Pcg64Mcg, key: &str, at: usize, to: Spot) -> Vec<Spot> {
        let fallback = |from: Spot| vec![from, to];
        let Some(unit) = self.units.get(key) else { return vec![to] };
        let skill = content
            .project
            .units
            .get(unit.unit.as_str())
            .and_then(|model| model.skills.get(at))
            .and_then(|id| content.project.skills.get(id.as_str()));
        let Some(skill) = skill else { return fallback(unit.spot) };
        self.move_reach(content, rng, key, skill)
            .and_then(|reach| reach.path_to(to))
            .unwrap_or_else(|| fallback(unit.spot))
    }

    /// Where `key` can walk with the move skill `skill` (Path space; mounts it may ride can
    /// be stopped on, with the mounting step bonus when the region asks for it).
    fn move_reach(&self, content: &Content, rng: &mut Pcg64Mcg, key: &str, skill: &Skill) -> Option<Reach> {
        let unit = self.units.get(key)?;
        let region = &skill.target_region;
        let ctx = Ctx { actor: Some(key), skill: Some(skill), ..Ctx::default() };
        let n = self.numbers(content, rng, ctx, region);
        let mut params = ReachParams::movement(cells(n.radius_max), levels(n.z_up_max), levels(n.z_down_max));
        params.radius_min = cells(n.radius_min);
        params.z_up_min = levels(n.z_up_min);
        params.z_down_min = levels(n.z_down_min);
        params.use_absolute_dz = region.use_absolute_dz;
        params.can_cross_walls = region.can_cross_walls;
        params.can_cross_enemies = region.can_cross_enemies;
        params.mount_step_bonus = region.use_mounting_step_bonus;
        reach_path(&self.setup.grid, unit.spot, &params, &self.move_occupants(key, region)).ok()
    }

    /// The spots of `region` around `center` facing `facing` (`spec/srpgck.md` §b.4): the
    /// shape, the intervening space, the predicate and the targeting flags.
    fn region_spots(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Ctx<'_>,
        region: &Region,
        center: Spot,
        facing: f64,
    ) -> BTreeSet<Spot> {
        let n = self.numbers(content, rng, ctx, region);
        let mut spots: BTreeSet<Spot> = match region.shape {
            RegionShape::SelfOnly => BTreeSet::from([center]),
            RegionShape::Compound => {
                let mut all = BTreeSet::new();
                for sub in &region.subregions {
                    all.extend(self.region_spots(content, rng, ctx, sub, center, facing));
                }
                all
            }
            RegionShape::NWay => {
                let ways = cells(n.n_ways).max(1);
                let mut all = BTreeSet::new();
                for way in 0..ways {
                    let yaw = facing + n.xy_direction + 360.0 * f64::from(way) / f64::from(ways);
                    for sub in &region.subregions {
                        all.extend(self.region_spots(content, rng, ctx, sub, center, yaw));
                    }
                }
                all
            }
            RegionShape::LineMove => {
                // The spots the walk (§b.8) passes, the start left out, and the units it meets.
                let direction = locked_direction(facing + n.xy_direction, region.facing_lock);
                let occupants = self.occupants(ctx.actor);
                let walk = line_move(&self.setup.grid, center, direction, &walk_params(region, &n), &occupants);
                let mut spots: BTreeSet<Spot> = walk.path.into_iter().filter(|spot| *spot != center).collect();
                spots.extend(walk.collided);
                spots
            }
            _ => self.shaped(region, &n, ctx.actor, center, facing),
        };
        let actor_team = ctx.actor.and_then(|key| self.units.get(key)).map(|unit| unit.team.as_str());
        spots.retain(|spot| match self.unit_at(*spot) {
            None => true,
            Some(key) if Some(key) == ctx.actor => region.can_target_self,
            Some(key) => {
                let same = self.units.get(key).map(|unit| unit.team.as_str()) == actor_team;
                // A unit the actor may ride counts too (§b.4 step 3).
                let mountable = ctx.actor.is_some_and(|actor| self.can_mount(actor, key, region));
                (if same { region.can_target_friends } else { region.can_target_enemies }) || mountable
            }
        });
        if let Some(predicate) = &region.predicate {
            spots.retain(|spot| {
                let point_ctx = Ctx { target: self.unit_at(*spot), point: Some(*spot), ..ctx };
                let value = eval_expr(content, self, point_ctx, rng, predicate, 0);
                value != 0.0
            });
        }
        spots
    }

    /// Cylinder, sphere, line, line-move and cone shapes with their intervening space.
    fn shaped(
        &self,
        region: &Region,
        numbers: &RegionNumbers,
        actor: Option<&str>,
        center: Spot,
        facing: f64,
    ) -> BTreeSet<Spot> {
        let grid = &self.setup.grid;
        let occupants = self.occupants(actor);
        let line_like = region.shape == RegionShape::Line;
        let width = if line_like { cells(numbers.line_width_max) } else { 0 };
        let cylinder = region.shape == RegionShape::Cylinder;
        // SRPGCK's arc range bonus (§b.4): the search reaches max(z window)/2 further, then
        // each spot keeps radius − rise/2 (lower spots are reached further, higher nearer).
        let arc_bonus = if cylinder && region.use_arc_range_bonus {
            cells(numbers.z_down_max.max(numbers.z_up_max) / 2.0)
        } else {
            0
        };
        let params = ReachParams {
            radius_min: if cylinder { cells(numbers.radius_min) } else { 0 },
            radius_max: cells(numbers.radius_max).saturating_add(width).saturating_add(arc_bonus),
            z_up_min: levels(numbers.z_up_min),
            z_up_max: levels(numbers.z_up_max),
            z_down_min: levels(numbers.z_down_min),
            z_down_max: levels(numbers.z_down_max),
            use_absolute_dz: region.use_absolute_dz,
            can_cross_walls: region.can_cross_walls,
            can_cross_enemies: region.can_cross_enemies,
            // Who may be targeted is decided after the shape, by the targeting flags.
            can_halt_at_enemies: true,
            can_halt_at_allies: true,
            clearance: 1,
            leap_cells: 0,
            mount_step_bonus: region.use_mounting_step_bonus,
        };
        let sight = SightParams::default();
        let reach = match (region.shape, region.space) {
            (RegionShape::Cylinder, InterveningSpace::Path) => reach_path(grid, center, &params, &occupants),
            (RegionShape::Cylinder, InterveningSpace::Line) => reach_line(grid, center, &params, &sight, &occupants),
            _ => reach_pick(grid, center, &params, &occupants),
        };
        let Ok(reach) = reach else { return BTreeSet::new() };
        let pool = reach.nodes().filter(|node| node.can_stop || node.spot == center).map(|node| node.spot);
        if cylinder {
            let radius = f64::from(cells(numbers.radius_max));
            let within = |spot: &Spot| {
                let xy = spot.xy_distance(center);
                // With the arc range bonus each spot keeps radius − rise/2.
                xy >= u32::from(params.radius_min)
                    && (arc_bonus == 0
                        || f64::from(xy) <= radius - f64::from(signed_dz(grid, center, *spot).unwrap_or(0.0)) / 2.0)
            };
            let kept: BTreeSet<Spot> = pool.filter(within).collect();
            // Path and Line spaces were the search itself.
            return match region.space {
                InterveningSpace::Arc => self.arced(region, numbers, center, &occupants, kept),
                _ => kept,
            };
        }
        let (r_min, r_max) = (cells(numbers.radius_min), cells(numbers.radius_max));
        let theta = (facing + numbers.xy_direction).to_radians();
        let line_cells = if line_like {
            line_cells(center, theta, (r_min, r_max), (cells(numbers.line_width_min), width))
        } else {
            BTreeSet::new()
        };
        let in_shape = |spot: Spot| {
            let xy = spot.xy_distance(center);
            match region.shape {
                RegionShape::Sphere => {
                    let dz = signed_dz(grid, center, spot).unwrap_or(0.0).abs();
                    let distance = f64::from(xy) + f64::from(dz);
                    distance >= f64::from(r_min) && distance <= f64::from(r_max)
                }
                RegionShape::Line => line_cells.contains(&(i64::from(spot.cell_x), i64::from(spot.cell_y))),
                _ => {
                    // Cone: within the radius and the arc either side of the direction.
                    if xy == 0 {
                        return r_min == 0;
                    }
                    let dx = f64::from(spot.cell_x) - f64::from(center.cell_x);
                    let dy = f64::from(spot.cell_y) - f64::from(center.cell_y);
                    let off = degrees_between(dy.atan2(dx).to_degrees(), theta.to_degrees()).abs();
                    let tolerance = (0.5 / f64::from(xy)).to_degrees();
                    xy >= u32::from(r_min)
                        && xy <= u32::from(r_max)
                        && off >= numbers.xy_arc_min - tolerance
                        && off <= numbers.xy_arc_max + tolerance
                }
            }
        };
        let shaped: BTreeSet<Spot> = pool.filter(|spot| in_shape(*spot)).collect();
        match region.space {
            InterveningSpace::Line => shaped
                .into_iter()
                .filter(|spot| *spot == center || line_of_sight(grid, center, *spot, &sight))
                .collect(),
            InterveningSpace::Path => {
                let Ok(walk) = reach_path(grid, center, &params, &occupants) else { return BTreeSet::new() };
                shaped.into_iter().filter(|spot| walk.get(*spot).is_some()).collect()
            }
            InterveningSpace::Arc => self.arced(region, numbers, center, &occupants, shaped),
            InterveningSpace::Pick | InterveningSpace::LineMove => shaped,
        }
    }

    /// The spots a ballistic arc from `center` reaches (§b.7): launch speed from the range
    /// `max(radius_max, line_width_max)`, the flight clear of tiles and of enemies that
    /// cannot be crossed.
    fn arced(
        &self,
        region: &Region,
        numbers: &RegionNumbers,
        center: Spot,
        occupants: &BTreeMap<Spot, Occupant>,
        spots: BTreeSet<Spot>,
    ) -> BTreeSet<Spot> {
        let grid = &self.setup.grid;
        let range = numbers.radius_max.max(numbers.line_width_max);
        let range = if range.is_finite() { range.max(0.0) as f32 } else { 0.0 };
        let blockers: Vec<Spot> = if region.can_cross_enemies {
            Vec::new()
        } else {
            occupants.iter().filter(|(_, occupant)| **occupant == Occupant::Enemy).map(|(spot, _)| *spot).collect()
        };
        let sight = SightParams::default();
        spots
            .into_iter()
            .filter(|spot| *spot == center || arc_shot(grid, center, *spot, range, &sight, &blockers).is_some())
            .collect()
    }

    /// Where `key` can aim `skill` now.
    fn target_spots(&self, content: &Content, rng: &mut Pcg64Mcg, key: &str, skill: &Skill) -> BTreeSet<Spot> {
        let Some(unit) = self.units.get(key) else { return BTreeSet::new() };
        let ctx = Ctx { actor: Some(key), skill: Some(skill), ..Ctx::default() };
        self.region_spots(content, rng, ctx, &skill.target_region, unit.spot, unit.facing)
    }

    /// The action skills of `key`, in its list's order.
    fn action_skills<'c>(&self, content: &'c Content, key: &str) -> Vec<&'c Skill> {
        let Some(unit) = self.units.get(key) else { return Vec::new() };
        let Some(model) = content.project.units.get(unit.unit.as_str()) else { return Vec::new() };
        model
            .skills
            .iter()
            .filter_map(|id| content.project.skills.get(id.as_str()))
            .filter(|skill| skill.kind == SkillKind::Action)
            .collect()
    }

    /// What the active unit can do: move (to each reachable spot), use each action skill (at
    /// each spot it can aim at), or end its turn.
    pub(super) fn choices(&self, content: &Content, rng: &mut Pcg64Mcg) -> Vec<Choice> {
        let Some(turn) = self.active.as_ref().filter(|_| self.winner.is_none()) else { return Vec::new() };
        let key = turn.unit.as_str();
        let mut choices = Vec::new();
        if !turn.moved {
            for spot in self.move_spots(content, rng, key).into_keys() {
                choices.push(Choice::MoveUnit { unit: key.to_owned(), x: spot.cell_x, y: spot.cell_y, z: spot.level });
            }
        }
        if !turn.acted {
            for skill in self.action_skills(content, key) {
                for spot in self.target_spots(content, rng, key, skill) {
                    choices.push(Choice::UseSkill {
                        unit: key.to_owned(),
                        skill: skill.id.clone(),
                        x: spot.cell_x,
                        y: spot.cell_y,
                        z: spot.level,
                    });
                }
            }
        }
        choices.push(Choice::WaitUnit { unit: key.to_owned() });
        for facing in COMPASS.map(|(_, degrees)| degrees) {
            choices.push(Choice::FaceUnit { unit: key.to_owned(), facing });
        }
        choices
    }

    /// Applies a tactics choice; refused (nothing changes) unless it is possible now.
    pub(super) fn apply(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        choice: &Choice,
    ) -> Result<Vec<Event>, String> {
        if self.winner.is_some() {
            return Err("the battle has ended".to_owned());
        }
        let Some(turn) = self.active.clone() else { return Err("it is nobody's turn".to_owned()) };
        let mut events = Vec::new();
        match choice {
            Choice::MoveUnit { unit, x, y, z } => {
                let to = Spot::new(*x, *y, *z);
                if *unit != turn.unit || turn.moved {
                    return Err(format!("{unit} cannot move now"));
                }
                let Some(at) = self.move_spots(content, rng, unit).get(&to).copied() else {
                    return Err(format!("{unit} cannot reach ({x}, {y}, {z})"));
                };
                self.move_unit(content, rng, unit, at, to, &mut events);
            }
            Choice::UseSkill { unit, skill, x, y, z } => {
                let at = Spot::new(*x, *y, *z);
                let usable = self.action_skills(content, unit).into_iter().find(|known| known.id == *skill);
                let Some(skill) = usable.filter(|_| *unit == turn.unit && !turn.acted) else {
                    return Err(format!("{unit} cannot use {skill} now"));
                };
                if !self.target_spots(content, rng, unit, skill).contains(&at) {
                    return Err(format!("{unit} cannot aim {} at ({x}, {y}, {z})", skill.id));
                }
                self.use_skill(content, rng, unit, skill, at, &mut events);
            }
            Choice::WaitUnit { unit } => {
                if *unit != turn.unit {
                    return Err(format!("it is {}'s turn, not {unit}'s", turn.unit));
                }
                self.end_turn(&mut events);
            }
            Choice::FaceUnit { unit, facing } => {
                if *unit != turn.unit {
                    return Err(format!("it is {}'s turn, not {unit}'s", turn.unit));
                }
                if !COMPASS.iter().any(|(_, degrees)| degrees == facing) {
                    return Err(format!("{unit} can face 0, 90, 180 or 270 degrees, not {facing}"));
                }
                if let Some(state) = self.units.get_mut(unit) {
                    state.facing = f64::from(*facing);
                }
                events.push(Event::UnitFaced { unit: unit.clone(), facing: *facing });
                self.end_turn(&mut events);
            }
            _ => return Err("not a tactics choice".to_owned()),
        }
        self.check_end(content, rng, &mut events);
        self.schedule(content, rng, MAX_IDLE_TICKS, &mut events);
        Ok(events)
    }

    fn move_unit(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        at: usize,
        to: Spot,
        events: &mut Vec<Event>,
    ) {
        let path = self.move_path(content, rng, key, at, to);
        let Some(from) = self.units.get(key).map(|unit| unit.spot) else { return };
        let length: u32 =
            path.windows(2).filter_map(|pair| pair.first().zip(pair.get(1))).map(|(a, b)| a.xy_distance(*b)).sum();
        let last_step = path.len().checked_sub(2).and_then(|at| path.get(at)).copied().unwrap_or(from);
        let cost = self.setting(key, PER_TILE_CT) * f64::from(length) + self.setting(key, MOVE_CT);
        // Ending on another unit (the move region allowed it) is riding it.
        let mount = self.unit_at(to).filter(|other| *other != key).map(str::to_owned);
        let left = self.units.get(key).and_then(|unit| unit.mount.clone());
        self.place_unit(key, to);
        if let Some(unit) = self.units.get_mut(key) {
            unit.mount.clone_from(&mount);
            if let Some(facing) = facing_towards(last_step, to) {
                unit.facing = facing;
            }
        }
        self.spend_ct(key, cost);
        if let Some(turn) = self.active.as_mut() {
            turn.moved = true;
        }
        events.push(Event::UnitMoved {
            unit: key.to_owned(),
            from: [from.cell_x, from.cell_y, from.level],
            to: [to.cell_x, to.cell_y, to.level],
            steps: length,
        });
        if let Some(mount) = left.filter(|left| Some(left) != mount.as_ref()) {
            events.push(Event::UnitDismounted { unit: key.to_owned(), mount });
        }
        if let Some(mount) = mount {
            events.push(Event::UnitMounted { unit: key.to_owned(), mount });
        }
    }

    fn spend_ct(&mut self, key: &str, cost: f64) {
        if let Some(unit) = self.units.get_mut(key)
            && let Some(ct) = unit.stats.get("ct").copied()
        {
            let new = limited(ct, ct - cost, unit.limits.get("ct"));
            unit.stats.insert("ct".to_owned(), new);
        }
    }

    fn use_skill(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        skill: &Skill,
        at: Spot,
        events: &mut Vec<Event>,
    ) {
        let Some(origin) = self.units.get(key).map(|unit| unit.spot) else { return };
        let facing = facing_towards(origin, at);
        if let (Some(unit), Some(facing)) = (self.units.get_mut(key), facing) {
            unit.facing = facing;
        }
        let actor_facing = self.units.get(key).map_or(0.0, |unit| unit.facing);
        events.push(Event::UnitUsedSkill {
            unit: key.to_owned(),
            skill: skill.id.clone(),
            at: [at.cell_x, at.cell_y, at.level],
        });
        let ctx = Ctx { actor: Some(key), skill: Some(skill), point: Some(at), ..Ctx::default() };
        let affected = self.region_spots(content, rng, ctx, &skill.effect_region, at, actor_facing);
        let targets: Vec<String> = affected.iter().filter_map(|spot| self.unit_at(*spot)).map(str::to_owned).collect();
        for target in &targets {
            if self.units.get(target).is_none_or(|unit| unit.defeated) {
                continue;
            }
            let point = self.units.get(target).map(|unit| unit.spot);
            let ctx = Ctx { actor: Some(key), target: Some(target), skill: Some(skill), point, hit_type: 0.0 };
            let chosen = eval_expr(content, self, ctx, rng, &skill.hit_type, 0);
            let last = skill.hit_types.len().saturating_sub(1);
            let index = if chosen.is_finite() { (chosen.max(0.0) as usize).min(last) } else { 0 };
            let Some(hit) = skill.hit_types.get(index) else { continue };
            let ctx = Ctx { hit_type: index as f64, ..ctx };
            events.push(Event::UnitHit { unit: target.clone(), by: key.to_owned(), hit: hit.label.clone() });
            for effect in &hit.stat_effects {
                let who = match effect.target {
                    EffectTarget::Target => target.as_str(),
                    EffectTarget::Actor => key,
                };
                let value = eval_expr(content, self, ctx, rng, &effect.value, 0);
                self.change_stat(who, &effect.stat, effect.op, value, events);
            }
            for status in &hit.status_effects {
                let ticks = eval_expr(content, self, ctx, rng, &status.duration_ticks, 0);
                let effects: Vec<(String, StatOp, f64)> = status
                    .stat_effects
                    .iter()
                    .map(|effect| {
                        (effect.stat.clone(), effect.op, eval_expr(content, self, ctx, rng, &effect.value, 0))
                    })
                    .collect();
                let remaining = if ticks.is_finite() && ticks >= 1.0 { ticks as u64 } else { 0 };
                if remaining == 0 {
                    continue;
                }
                if let Some(unit) = self.units.get_mut(target) {
                    // The same status again starts over instead of stacking.
                    unit.statuses.retain(|old| old.name != status.name);
                    unit.statuses.push(ActiveStatus { name: status.name.clone(), remaining, effects });
                }
                events.push(Event::UnitStatusAdded {
                    unit: target.clone(),
                    status: status.name.clone(),
                    ticks: remaining,
                });
            }
            for line_move in &hit.line_moves {
                self.push_unit(content, rng, ctx, line_move, events);
            }
        }
        let cost = self.setting(key, ACT_CT);
        self.spend_ct(key, cost);
        if let Some(turn) = self.active.as_mut() {
            turn.acted = true;
        }
        self.check_defeats(events);
    }

    /// A knockback, shove or throw (§b.8): the target walks away from the actor (the actor
    /// along its facing; a target on the actor's cell too), `xy_direction` added, locked.
    fn push_unit(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Ctx<'_>,
        effect: &LineMoveEffect,
        events: &mut Vec<Event>,
    ) {
        let (Some(key), Some(target)) = (ctx.actor, ctx.target) else { return };
        let mover = match effect.target {
            EffectTarget::Target => target,
            EffectTarget::Actor => key,
        };
        // A unit the hit has just brought to 0 hp falls where it stands.
        if self.stat(mover, "hp").is_some_and(|hp| hp <= 0.0) {
            return;
        }
        let (Some(actor), Some(moved)) = (self.units.get(key), self.units.get(mover)) else { return };
        let from = moved.spot;
        let base = match effect.target {
            EffectTarget::Target => direction_towards(actor.spot, from).unwrap_or(actor.facing),
            EffectTarget::Actor => actor.facing,
        };
        let numbers = self.numbers(content, rng, ctx, &effect.region);
        let direction = locked_direction(base + numbers.xy_direction, effect.region.facing_lock);
        let params = walk_params(&effect.region, &numbers);
        let walk = line_move(&self.setup.grid, from, direction, &params, &self.occupants(Some(mover)));
        let collided: Vec<String> =
            walk.collided.iter().filter_map(|spot| self.unit_at(*spot)).map(str::to_owned).collect();
        // A rider pushed off its mount leaves it.
        let left = self.units.get_mut(mover).and_then(|unit| unit.mount.take());
        self.place_unit(mover, walk.end);
        if let Some(mount) = left {
            events.push(Event::UnitDismounted { unit: mover.to_owned(), mount });
        }
        events.push(Event::UnitPushed {
            unit: mover.to_owned(),
            by: key.to_owned(),
            from: [from.cell_x, from.cell_y, from.level],
            to: [walk.end.cell_x, walk.end.cell_y, walk.end.level],
            steps: walk.steps,
            remaining: walk.remaining,
            drop: walk.drop,
            collided,
        });
    }

    /// Puts a unit on a spot; its rider goes with it.
    fn place_unit(&mut self, key: &str, to: Spot) {
        let rider = self.rider_of(key).map(str::to_owned);
        for moved in [Some(key.to_owned()), rider].into_iter().flatten() {
            if let Some(unit) = self.units.get_mut(&moved) {
                unit.spot = to;
            }
        }
    }

    fn change_stat(&mut self, key: &str, stat: &str, op: StatOp, amount: f64, events: &mut Vec<Event>) {
        let Some(unit) = self.units.get_mut(key) else { return };
        let Some(old) = unit.stats.get(stat).copied() else {
            events.push(Event::Warning(format!("{key} has no stat `{stat}` to change")));
            return;
        };
        if amount.is_nan() {
            events.push(Event::Warning(format!("the change to {key}'s `{stat}` is not a number")));
            return;
        }
        let new = limited(old, apply_op(op, old, amount), unit.limits.get(stat));
        unit.stats.insert(stat.to_owned(), new);
        if stat == "hp" && new < old {
            events.push(Event::UnitDamaged { unit: key.to_owned(), amount: old - new, hp: new });
        } else {
            events.push(Event::UnitStatChanged { unit: key.to_owned(), stat: stat.to_owned(), value: new });
        }
    }

    fn check_defeats(&mut self, events: &mut Vec<Event>) {
        let fallen: Vec<String> = self
            .units
            .keys()
            .filter(|key| {
                self.units.get(*key).is_some_and(|unit| !unit.defeated)
                    && self.stat(key, "hp").is_some_and(|hp| hp <= 0.0)
            })
            .cloned()
            .collect();
        for key in fallen {
            if let Some(unit) = self.units.get_mut(&key) {
                unit.defeated = true;
                unit.statuses.clear();
                unit.mount = None;
            }
            // The rider of a fallen mount stands where it fell.
            for rider in self.units.values_mut().filter(|unit| unit.mount.as_deref() == Some(key.as_str())) {
                rider.mount = None;
            }
            events.push(Event::UnitDefeated { unit: key.clone() });
            if self.active_unit() == Some(key.as_str()) {
                self.active = None;
                events.push(Event::UnitTurnEnded { unit: key });
            }
        }
    }

    fn end_turn(&mut self, events: &mut Vec<Event>) {
        let Some(turn) = self.active.take() else { return };
        let cost = self.setting(&turn.unit, ACTIVATION_CT);
        self.spend_ct(&turn.unit, cost);
        events.push(Event::UnitTurnEnded { unit: turn.unit });
    }

    /// Ends the battle when a win condition holds (in order), or by default when only one
    /// team has units standing.
    fn check_end(&mut self, content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) {
        if self.winner.is_some() {
            return;
        }
        let conditions = content
            .project
            .tile_maps
            .get(self.setup.map.as_str())
            .map(|map| map.win_conditions.as_slice())
            .unwrap_or_default();
        let mut winner = None;
        for condition in conditions {
            let value = eval_expr(content, self, Ctx::default(), rng, &condition.when, 0);
            if value != 0.0 && !value.is_nan() {
                winner = Some(condition.team.clone());
                break;
            }
        }
        if winner.is_none() && conditions.is_empty() && self.setup.contested {
            let standing: BTreeSet<&str> =
                self.units.values().filter(|unit| !unit.defeated).map(|unit| unit.team.as_str()).collect();
            if standing.len() <= 1 {
                winner = Some(standing.first().map_or_else(String::new, |team| (*team).to_owned()));
            }
        }
        if let Some(team) = winner {
            self.active = None;
            events.push(Event::UnitTeamWon { team: team.clone() });
            self.winner = Some(team);
        }
    }

    /// Runs the scheduler until a turn starts, the battle ends or `limit` ticks pass; the win
    /// conditions are tried after every tick (they may read `battle.tick`).
    fn schedule(&mut self, content: &Content, rng: &mut Pcg64Mcg, limit: u64, events: &mut Vec<Event>) {
        let setup = Arc::clone(&self.setup);
        for _ in 0..=limit {
            if self.active.is_some() || self.winner.is_some() {
                return;
            }
            let ready = setup.order.iter().find(|key| {
                self.units.get(*key).is_some_and(|unit| unit.scheduled && !unit.defeated)
                    && self.stat(key, "ct").is_some_and(|ct| ct >= self.setting(key, MAX_CT))
            });
            if let Some(key) = ready {
                let max_ct = self.setting(key, MAX_CT);
                if let Some(unit) = self.units.get_mut(key) {
                    unit.stats.insert("ct".to_owned(), max_ct);
                }
                self.active = Some(Turn { unit: key.clone(), moved: false, acted: false });
                self.turns += 1;
                events.push(Event::UnitTurnStarted { unit: key.clone() });
                return;
            }
            self.tick_once(events);
            self.check_end(content, rng, events);
        }
        if self.active.is_none() && self.winner.is_none() && limit == MAX_IDLE_TICKS {
            events.push(Event::Warning(format!("no unit reached its maxCT in {MAX_IDLE_TICKS} ticks")));
        }
    }

    /// One scheduler tick: CT grows by speed (not while `jumping`), statuses count down.
    fn tick_once(&mut self, events: &mut Vec<Event>) {
        let setup = Arc::clone(&self.setup);
        for key in &setup.order {
            let Some(unit) = self.units.get(key) else { continue };
            if unit.defeated {
                continue;
            }
            let frozen = unit.statuses.iter().any(|status| status.name == FROZEN_STATUS);
            if unit.scheduled && !frozen {
                let speed = self.setting(key, SPEED);
                if let Some(ct) = self.stat(key, "ct").and_then(|_| unit.stats.get("ct").copied()) {
                    let new = limited(ct, ct + speed, unit.limits.get("ct"));
                    if let Some(unit) = self.units.get_mut(key) {
                        unit.stats.insert("ct".to_owned(), new);
                    }
                }
            }
            if let Some(unit) = self.units.get_mut(key) {
                let mut expired = Vec::new();
                for status in &mut unit.statuses {
                    status.remaining = status.remaining.saturating_sub(1);
                    if status.remaining == 0 {
                        expired.push(status.name.clone());
                    }
                }
                unit.statuses.retain(|status| status.remaining > 0);
                for status in expired {
                    events.push(Event::UnitStatusExpired { unit: key.clone(), status });
                }
            }
        }
        self.tick += 1;
    }

    /// Lets up to `ticks` scheduler ticks pass while it is nobody's turn.
    pub(super) fn advance(&mut self, content: &Content, rng: &mut Pcg64Mcg, ticks: u64) -> Vec<Event> {
        let mut events = Vec::new();
        if ticks > 0 {
            self.schedule(content, rng, ticks - 1, &mut events);
        }
        events
    }

    /// The highest standing spot of a cell, for script lines that leave the level out.
    pub fn top_spot(&self, x: u16, y: u16) -> Option<Spot> {
        standing_spots(&self.setup.grid, x, y).last().copied()
    }
}

impl Session {
    /// The battle, when the project sets one up (`entry.tile_map` with placements).
    pub fn tactics(&self) -> Option<&TacticsState> {
        self.tactics.as_ref()
    }

    /// The tactics choices now (on a copy of the generator: region formulas may draw).
    pub(super) fn tactics_choices(&self) -> Vec<Choice> {
        let mut rng = self.rng.clone();
        self.tactics.as_ref().map(|battle| battle.choices(&self.content, &mut rng)).unwrap_or_default()
    }

    /// Applies a tactics choice; None for the other systems' choices.
    pub(super) fn apply_tactics(&mut self, choice: &Choice) -> Option<Result<Vec<Event>, ChoiceError>> {
        if !matches!(
            choice,
            Choice::MoveUnit { .. } | Choice::UseSkill { .. } | Choice::WaitUnit { .. } | Choice::FaceUnit { .. }
        ) {
            return None;
        }
        let Some(battle) = self.tactics.as_mut() else {
            return Some(Err(ChoiceError::NotPossible("there is no battle".to_owned())));
        };
        let content = Arc::clone(&self.content);
        // Refused choices leave everything as it was, the generator included.
        let mut rng = self.rng.clone();
        let mut trial = battle.clone();
        let result = trial.apply(&content, &mut rng, choice);
        Some(match result {
            Ok(events) => {
                *battle = trial;
                self.rng = rng;
                self.counters.add(1, &events, 0);
                Ok(events)
            }
            Err(why) => Err(ChoiceError::NotPossible(why)),
        })
    }
}

/// A number in a script line.
fn number<T: std::str::FromStr>(word: Option<&str>, what: &str) -> Result<T, String> {
    let word = word.ok_or_else(|| format!("give {what}"))?;
    word.parse().map_err(|_| format!("`{word}` is not a valid {what}"))
}

/// A value as scripts and queries print it: whole numbers without a fraction.
fn shown(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 { format!("{value:.0}") } else { format!("{value}") }
}

impl Session {
    fn battle(&self) -> Result<&TacticsState, String> {
        self.tactics
            .as_ref()
            .ok_or_else(|| "this project sets up no battle (entry.tile_map with placements)".to_owned())
    }

    fn unit_arg<'s>(battle: &'s TacticsState, name: Option<&str>) -> Result<&'s str, String> {
        let name = name.ok_or("name a unit")?;
        battle.units.get_key_value(name).map(|(key, _)| key.as_str()).ok_or_else(|| {
            let known: Vec<&str> = battle.units.keys().map(String::as_str).collect();
            format!("no unit `{name}` in the battle (there are: {})", known.join(", "))
        })
    }

    /// The choice a tactics script line makes: `move UNIT X Y [Z]`, `use UNIT SKILL X Y [Z]`,
    /// `wait UNIT`. Without Z, the level the unit can use there (else the top of the cell).
    pub(super) fn tactics_line(&self, command: &str, rest: &str) -> Result<Choice, String> {
        let battle = self.battle()?;
        let mut words = rest.split_whitespace();
        let unit = Self::unit_arg(battle, words.next())?.to_owned();
        let skill = if command == "use" {
            Some(Id::<Skill>::new(words.next().ok_or("usage: use UNIT SKILL X Y [Z]")?))
        } else {
            None
        };
        if command == "wait" {
            return Ok(Choice::WaitUnit { unit });
        }
        if command == "face" {
            let word = words.next().ok_or("usage: face UNIT east|north|west|south (or 0|90|180|270)")?;
            let facing = COMPASS
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(word))
                .map(|(_, degrees)| *degrees)
                .map_or_else(|| number::<u16>(Some(word), "direction (east, north, west, south)"), Ok)?;
            return Ok(Choice::FaceUnit { unit, facing });
        }
        let x: u16 = number(words.next(), "cell x")?;
        let y: u16 = number(words.next(), "cell y")?;
        let z: Option<u16> = words.next().map(|word| number(Some(word), "level")).transpose()?;
        let make = |z: u16| match &skill {
            Some(skill) => Choice::UseSkill { unit: unit.clone(), skill: skill.clone(), x, y, z },
            None => Choice::MoveUnit { unit: unit.clone(), x, y, z },
        };
        if let Some(z) = z {
            return Ok(make(z));
        }
        let possible = self.tactics_choices();
        let found = standing_spots(battle.grid(), x, y)
            .into_iter()
            .rev()
            .map(|spot| make(spot.level))
            .find(|choice| possible.contains(choice));
        Ok(found.unwrap_or_else(|| make(battle.top_spot(x, y).map_or(0, |spot| spot.level))))
    }

    /// `expect unit UNIT hp N` (any stat), `expect unit UNIT at X Y [Z]`, `expect unit UNIT
    /// defeated|standing`, `expect unit UNIT status NAME`, `expect unit UNIT facing DEGREES`,
    /// `expect turn UNIT|none`, `expect winner TEAM|none`.
    pub(super) fn tactics_expect(&self, what: &str, args: &str) -> Result<String, String> {
        let battle = self.battle()?;
        let mut words = args.split_whitespace();
        let compare = |name: String, actual: String, expected: String| {
            if actual == expected { Ok(String::new()) } else { Err(format!("{name} is {actual}, expected {expected}")) }
        };
        match what {
            "turn" => {
                let want = words.next().ok_or("usage: expect turn UNIT|none")?;
                compare("the turn".to_owned(), battle.active_unit().unwrap_or("none").to_owned(), want.to_owned())
            }
            "winner" => {
                let want = words.next().ok_or("usage: expect winner TEAM|none")?;
                compare("the winner".to_owned(), battle.winner().unwrap_or("none").to_owned(), want.to_owned())
            }
            _ => {
                let key = Self::unit_arg(battle, words.next())?;
                let unit = battle.unit(key).ok_or("no such unit")?;
                let property = words.next().ok_or("usage: expect unit UNIT STAT N | at X Y [Z] | defeated | …")?;
                let rest: Vec<&str> = words.collect();
                match property {
                    "at" => {
                        let spot = unit.spot;
                        let actual = if rest.len() >= 3 {
                            format!("{} {} {}", spot.cell_x, spot.cell_y, spot.level)
                        } else {
                            format!("{} {}", spot.cell_x, spot.cell_y)
                        };
                        compare(format!("{key}'s place"), actual, rest.join(" "))
                    }
                    "defeated" | "standing" => compare(
                        key.to_owned(),
                        if unit.defeated { "defeated" } else { "standing" }.to_owned(),
                        property.to_owned(),
                    ),
                    "status" => {
                        let name = rest.first().ok_or("name a status")?;
                        let has: Vec<&str> = unit.statuses.iter().map(|status| status.name.as_str()).collect();
                        if has.contains(name) {
                            Ok(String::new())
                        } else {
                            Err(format!("{key} has no status `{name}` (it has: {})", has.join(", ")))
                        }
                    }
                    "facing" => compare(format!("{key}'s facing"), shown(unit.facing), rest.join(" ")),
                    stat => {
                        let expected: f64 = number(rest.first().copied(), "number")?;
                        let actual = battle.stat(key, stat).ok_or_else(|| format!("{key} has no stat `{stat}`"))?;
                        if (actual - expected).abs() < 1e-9 {
                            Ok(String::new())
                        } else {
                            Err(format!("{key}'s {stat} is {}, expected {}", shown(actual), shown(expected)))
                        }
                    }
                }
            }
        }
    }
}
