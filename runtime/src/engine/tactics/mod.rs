//! The tactics system (`spec/srpgck.md` §b–§d): units on a tile map with stats from formulas,
//! the CT scheduler, move skills whose reachable spots are the choices, action skills with
//! target and effect regions, hit types, status effects with durations and win conditions.
//! FORMAT.md §12 describes what content means here; everything comes from the project.

mod check;
mod compile;
mod env;
mod forecast;
mod memo;
#[cfg(test)]
mod quiet_tests;
mod regions;
mod rounds;
mod script;
mod session;
mod skills;
mod stat_names;
mod step;

pub use forecast::{FORECAST_TRIALS, SkillForecast, UnitForecast};
pub(crate) use memo::TacticsMemo;
pub(crate) use step::TacticsListing;

pub use check::{FormulaProblem, formula_problems};
use compile::{Acc, Setup, battle_accessor};
pub use skills::names_skill;

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::formula::{Lookup, Scope};
use crate::map::{Spot, SpotMap, TileGrid, spot_terrain, standing_spots};
use crate::model::{Equipment, Expr, Id, Skill, StatEffect, StatOp, StatusEffect, Terrain, TileMap};

use env::{Perspective, eval_expr};
use stat_names::Name;

/// Who stands on each spot, by key (see [`TacticsState::standing`]).
pub(super) type Standing<'s> = SpotMap<(&'s str, &'s UnitState)>;
pub use stat_names::{NameMap, StatMap, StatSet};

use crate::engine::content::Content;

/// Ticks the scheduler runs looking for the next turn before it gives up (nobody gains CT).
pub(super) const MAX_IDLE_TICKS: u64 = 100_000;

/// How deep skill parameters may read each other before the value is NaN (a cycle guard).
pub(super) const MAX_PARAM_DEPTH: u8 = 16;

/// The scheduler's settings (`spec/srpgck.md` §d): read from each unit's stats, else these.
pub(super) const SPEED: (&str, f64) = ("speed", 1.0);

pub(super) const MAX_CT: (&str, f64) = ("maxCT", 100.0);

pub(super) const ACTIVATION_CT: (&str, f64) = ("activationCT", 30.0);

pub(super) const MOVE_CT: (&str, f64) = ("moveCT", 30.0);

pub(super) const PER_TILE_CT: (&str, f64) = ("perTileCT", 0.0);

pub(super) const ACT_CT: (&str, f64) = ("actCT", 40.0);

/// The seed of the fixed stream `random` draws from in formulas read live (stats, limits,
/// status amounts): reading them must not use up the battle's draws.
const LIVE_STREAM: u128 = 0x5eed_0f11;

/// A status that stops a unit's CT from growing (SRPGCK's `jumping`).
pub(super) const FROZEN_STATUS: &str = "jumping";

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

/// A status effect on a unit.
#[derive(Clone, Debug, PartialEq)]
pub struct ActiveStatus {
    /// Its type name.
    pub name: String,
    /// Ticks of its clock left (an unremovable one does not count down).
    pub remaining: f64,
    /// Ticks of its clock since it was put on (its per-tick effects come every `interval`).
    pub elapsed: f64,
    /// Ticks of its clock between two rounds of its per-tick effects (evaluated when put on).
    pub interval: f64,
    /// Its definition: clock, stacking, passive and per-tick effects (their amounts are read
    /// live, with `c` the holder).
    pub definition: StatusEffect,
    /// The equipment that puts it on while it is worn (it does not count down then, and
    /// comes off with the equipment).
    pub worn: Option<Id<Equipment>>,
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
    /// Base stats by name: the stored value, or for a stat in `live` its formula's value when
    /// last shown (reads evaluate the formula; see [`TacticsState::stat`]).
    pub stats: StatMap,
    /// Stats that still follow their formula (nothing has changed them yet).
    pub live: StatSet,
    /// Status effects, oldest first.
    pub statuses: Vec<ActiveStatus>,
    /// Out of the battle (its hp fell to 0 or below).
    pub defeated: bool,
    /// Takes turns (has `ct` and `speed` stats).
    pub scheduled: bool,
    /// The unit it rides (it stands on the mount's spot and moves with it).
    pub mount: Option<String>,
    /// The equipment it wields, in order.
    pub equipment: Vec<Id<Equipment>>,
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

/// A charged skill waiting to resolve (`spec/srpgck.md` §d, delayed skill activations).
#[derive(Clone, Debug, PartialEq)]
pub struct Charge {
    /// The unit that used it.
    pub unit: String,
    /// The skill.
    pub skill: Id<crate::model::Skill>,
    /// The spot aimed at.
    pub at: Spot,
    /// Ticks of delay left (the skill's `speed` parameter comes off each tick).
    pub remaining: f64,
}

/// A team round of the team-round schedulers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Round {
    /// The team whose round it is.
    pub team: String,
    /// Rounds started so far.
    pub number: u64,
    /// Units given a turn this round, with how many times (points: activations).
    pub picked: BTreeMap<String, u32>,
    /// Points: activations the team has left this round.
    pub points: u32,
    /// The team ended its round.
    pub ended: bool,
}

/// A battle: units on a map, the scheduler's clock, whose turn it is, the winner.
#[derive(Clone, Debug)]
pub struct TacticsState {
    setup: Arc<Setup>,
    /// Scheduler ticks so far.
    pub tick: u64,
    /// Turns started so far.
    pub turns: u64,
    units: NameMap<UnitState>,
    /// The unit whose turn it is.
    pub active: Option<Turn>,
    /// The winning team once the battle has ended.
    pub winner: Option<String>,
    /// CT costs of the turn so far, when the scheduler coalesces them.
    pub pending_ct: f64,
    /// Points scheduler: the active unit's action points left.
    pub action_points: Option<f64>,
    /// Charged skills waiting to resolve, in the order they were used.
    pub charging: Vec<Charge>,
    /// Team-round schedulers: the round under way.
    pub round: Option<Round>,
    /// Tops repainted by set-up lines (`set terrain`), by standing spot: part of the state.
    pub repainted: BTreeMap<(u16, u16, u16), Option<crate::model::Paint>>,
}

impl Hash for TacticsState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.setup.map.hash(state);
        self.tick.hash(state);
        self.turns.hash(state);
        self.active.hash(state);
        self.winner.hash(state);
        self.pending_ct.to_bits().hash(state);
        self.action_points.map(f64::to_bits).hash(state);
        self.round.hash(state);
        self.repainted.hash(state);
        for charge in &self.charging {
            charge.unit.hash(state);
            charge.skill.hash(state);
            charge.at.hash(state);
            charge.remaining.to_bits().hash(state);
        }
        for (key, unit) in &self.units {
            key.hash(state);
            unit.unit.hash(state);
            unit.team.hash(state);
            unit.spot.hash(state);
            unit.facing.to_bits().hash(state);
            unit.defeated.hash(state);
            unit.mount.hash(state);
            unit.equipment.hash(state);
            crate::engine::hash_values(&unit.stats, state);
            unit.live.hash(state);
            for status in &unit.statuses {
                status.name.hash(state);
                status.remaining.to_bits().hash(state);
                status.elapsed.to_bits().hash(state);
                status.interval.to_bits().hash(state);
                status.worn.hash(state);
            }
        }
    }
}

pub(super) fn flag(value: bool) -> f64 {
    if value { 1.0 } else { 0.0 }
}

pub(super) fn apply_op(op: StatOp, old: f64, amount: f64) -> f64 {
    match op {
        StatOp::Add => old + amount,
        StatOp::Set => amount,
        StatOp::Multiply => old * amount,
    }
}

/// A change limited as SRPGCK limits stats: a limit stops movement past it and never
/// pushes a value back towards the range.
pub(super) fn limited(old: f64, new: f64, limits: Option<&(Option<f64>, Option<f64>)>) -> f64 {
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

impl TacticsState {
    /// The battle map.
    pub fn map(&self) -> &Id<TileMap> {
        &self.setup.map
    }

    /// The battle map's grid.
    pub fn grid(&self) -> &TileGrid {
        &self.setup.grid
    }

    /// Repaints the top of the tile `spot` stands on (its terrain changes from now on); refused
    /// when `spot` is not a standing spot of the map.
    pub(crate) fn repaint_top(&mut self, spot: Spot, paint: Option<crate::model::Paint>) -> Result<(), String> {
        let (x, y) = (spot.cell_x, spot.cell_y);
        let mut column = self.setup.grid.column(i32::from(x), i32::from(y)).to_vec();
        let standing = standing_spots(&self.setup.grid, x, y).contains(&spot);
        let tile = column.iter_mut().find(|tile| tile.top_z() == u32::from(spot.level)).filter(|_| standing);
        let Some(tile) = tile else {
            let levels: Vec<String> =
                standing_spots(&self.setup.grid, x, y).iter().map(|spot| spot.level.to_string()).collect();
            return Err(format!(
                "({x}, {y}, {}) is not a standing spot (levels there: {})",
                spot.level,
                if levels.is_empty() { "none".to_owned() } else { levels.join(", ") }
            ));
        };
        tile.paint.top = paint;
        Arc::make_mut(&mut self.setup).grid.set_column(x, y, column).map_err(|error| error.to_string())?;
        self.repainted.insert((x, y, spot.level), paint);
        Ok(())
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

    /// A unit's effective stat: its base value (the stored number, or its formula read now
    /// with the unit as `c` while nothing has changed it) changed by its statuses in order
    /// (their amounts read now, `c` the unit), within its limits; also the pseudo-stats
    /// `position.x/y/z`, `size.x/y/z`, `isMounted`, `isMounting` and the terrain under it,
    /// `tile.move_cost`, `tile.defence`, `tile.tag.NAME`.
    pub fn stat(&self, key: &str, name: &str) -> Option<f64> {
        self.stat_at(key, name, 0)
    }

    /// [`Self::stat`] read `depth` formulas deep (a cycle of stats reads NaN).
    pub(super) fn stat_at(&self, key: &str, name: &str, depth: u8) -> Option<f64> {
        self.stat_of(key, self.units.get(key)?, name, depth)
    }

    /// [`Self::stat_at`] of the unit `key`, already looked up (the scheduler reads stats of
    /// every unit at every tick).
    pub(super) fn stat_of(&self, key: &str, unit: &UnitState, name: &str, depth: u8) -> Option<f64> {
        let pseudo = match name {
            "position.x" => Some(f64::from(unit.spot.cell_x)),
            "position.y" => Some(f64::from(unit.spot.cell_y)),
            "position.z" => Some(f64::from(unit.spot.level)),
            "size.x" | "size.y" => Some(1.0),
            "size.z" => Some(2.0),
            "isMounted" => Some(flag(self.rider_of(key).is_some())),
            "isMounting" => Some(flag(unit.mount.is_some())),
            _ => name.strip_prefix("tile.").map(|property| self.tile_value(unit.spot, property)),
        };
        if pseudo.is_some() {
            return pseudo;
        }
        let named = Name::new(name);
        let base = self.base_stat_named(key, unit, named, depth)?;
        let mut value = base;
        let mut changed = false;
        // SRPGCK's chain: equipment, then skills, then statuses, each in order.
        let content = &self.setup.content;
        let mut apply = |effects: &[StatEffect], ctx: Perspective<'_>| {
            for effect in effects.iter().filter(|effect| effect.stat == name) {
                value = apply_op(effect.op, value, self.live_value_in(ctx, &effect.value, depth));
                changed = true;
            }
        };
        // Equipment and skills change only the stats their passive effects name (`ct`, read at
        // every scheduler tick, usually none): for any other stat the unit's equipment is not
        // even looked up.
        let passive = self.setup.passive_stats.contains_name(named);
        if passive {
            for equipment in self.worn_by(unit) {
                let ctx = Perspective { actor: Some(key), equipment: Some(equipment), ..Perspective::default() };
                apply(&equipment.passive_effects, ctx);
            }
        }
        // The unit's skills then its equipment's, each once (no list is built: stats are read
        // often); none to look through when no skill of the project has passive effects.
        if self.setup.skill_passives && passive {
            let own = content.unit(unit.unit.as_str()).map(|model| model.skills.as_slice()).unwrap_or_default();
            let granted = self.worn_by(unit).flat_map(|equipment| equipment.skills.iter());
            for (at, id) in own.iter().chain(granted).enumerate() {
                let Some(skill) = content.skill(id.as_str()).filter(|skill| !skill.passive_effects.is_empty()) else {
                    continue;
                };
                let seen = own.iter().chain(self.worn_by(unit).flat_map(|equipment| equipment.skills.iter())).take(at);
                if seen.into_iter().any(|earlier| earlier == id) {
                    continue;
                }
                let ctx = Perspective { actor: Some(key), skill: Some(skill), ..Perspective::default() };
                apply(&skill.passive_effects, ctx);
            }
        }
        for status in &unit.statuses {
            apply(&status.definition.stat_effects, Perspective { actor: Some(key), ..Perspective::default() });
        }
        if !changed {
            return Some(base);
        }
        Some(limited(base, value, self.limits_at(key, name, depth).as_ref()))
    }

    /// A terrain property of the tile under `spot` (FORMAT.md §9 "Terrain"): `move_cost`,
    /// `defence`, `tag.NAME` (1 or 0); NaN for any other name.
    pub(super) fn tile_value(&self, spot: Spot, property: &str) -> f64 {
        let plain = Terrain::default();
        let terrain = spot_terrain(&self.setup.grid, spot).unwrap_or(&plain);
        match property {
            "move_cost" => f64::from(terrain.move_cost),
            "defence" => terrain.defence,
            _ => property.strip_prefix("tag.").map_or(f64::NAN, |tag| flag(terrain.tags.iter().any(|t| t == tag))),
        }
    }

    /// A unit's base stat: the stored number, or its formula's value now while it is live.
    pub(super) fn base_stat(&self, key: &str, name: &str, depth: u8) -> Option<f64> {
        self.base_stat_of(key, self.units.get(key)?, name, depth)
    }

    /// [`Self::base_stat`] of the unit `key`, already looked up (stats are read often).
    fn base_stat_of(&self, key: &str, unit: &UnitState, name: &str, depth: u8) -> Option<f64> {
        self.base_stat_named(key, unit, Name::new(name), depth)
    }

    /// [`Self::base_stat_of`] of a name already packed.
    fn base_stat_named(&self, key: &str, unit: &UnitState, named: Name<'_>, depth: u8) -> Option<f64> {
        if !unit.live.contains_name(named) {
            return unit.stats.get_name(named).copied();
        }
        let name = named.text();
        let formula = self.setup.content.unit(unit.unit.as_str())?.stats.get(name)?;
        Some(self.live_value(key, formula, depth))
    }

    /// A unit's limits of a stat, their formulas read now with the unit as `c`.
    pub(super) fn limits_at(&self, key: &str, name: &str, depth: u8) -> Option<(Option<f64>, Option<f64>)> {
        let unit = self.units.get(key)?;
        let limits = self.setup.content.unit(unit.unit.as_str())?.limits.get(name)?;
        let read = |expr: &Option<Expr>| expr.as_ref().map(|expr| self.live_value(key, expr, depth));
        Some((read(&limits.min), read(&limits.max)))
    }

    /// A unit's limits of a stat now (`min`, `max`), if it has any.
    pub fn limits(&self, key: &str, name: &str) -> Option<(Option<f64>, Option<f64>)> {
        self.limits_at(key, name, 0)
    }

    /// A formula read live for a unit (a stat, a limit, a status amount): the unit is `c`,
    /// there is no target nor skill, and `random` draws from a fixed stream, so reading a stat
    /// never changes the battle.
    fn live_value(&self, key: &str, expr: &Expr, depth: u8) -> f64 {
        self.live_value_in(Perspective { actor: Some(key), ..Perspective::default() }, expr, depth)
    }

    /// [`Self::live_value`] in a perspective (an equipment's or a skill's passive effect).
    fn live_value_in(&self, ctx: Perspective<'_>, expr: &Expr, depth: u8) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        if depth >= MAX_PARAM_DEPTH {
            return f64::NAN;
        }
        let mut rng = rand_pcg::Pcg64Mcg::new(LIVE_STREAM);
        eval_expr(&self.setup.content, self, ctx, &mut rng, expr, depth.saturating_add(1))
    }

    /// The equipment a unit wields now, in order (ids the project lacks are skipped).
    pub(super) fn worn(&self, key: &str) -> impl Iterator<Item = &Equipment> {
        let content = &self.setup.content;
        let worn = self.units.get(key).map(|unit| unit.equipment.as_slice()).unwrap_or_default();
        worn.iter().filter_map(|id| content.equipment(id.as_str()))
    }

    /// [`Self::worn`] of a unit already looked up.
    fn worn_by<'s>(&'s self, unit: &'s UnitState) -> impl Iterator<Item = &'s Equipment> {
        let content = &self.setup.content;
        unit.equipment.iter().filter_map(|id| content.equipment(id.as_str()))
    }

    /// The ids of a unit's skills: its own, then those its equipment grants, each once.
    pub(super) fn skill_ids<'c>(&self, content: &'c Content, key: &str) -> Vec<&'c Id<Skill>> {
        let Some(unit) = self.units.get(key) else { return Vec::new() };
        let own = content.unit(unit.unit.as_str()).map(|model| model.skills.as_slice()).unwrap_or_default();
        let granted = unit
            .equipment
            .iter()
            .filter_map(|id| content.equipment(id.as_str()))
            .flat_map(|equipment| equipment.skills.iter());
        let mut ids: Vec<&Id<Skill>> = Vec::new();
        for id in own.iter().chain(granted) {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
        ids
    }

    /// A unit's skills (see [`Self::skill_ids`]).
    pub(super) fn skills_of<'c>(&self, content: &'c Content, key: &str) -> Vec<&'c Skill> {
        self.skill_ids(content, key).iter().filter_map(|id| content.skill(id.as_str())).collect()
    }

    /// Puts equipment on a unit: it wields it from now on, and the equipment's statuses are put
    /// on it for as long as it is worn.
    pub(super) fn wield(&mut self, key: &str, equipment: &Equipment, events: &mut Vec<crate::engine::Event>) {
        let Some(unit) = self.units.get_mut(key) else { return };
        unit.equipment.push(equipment.id.clone());
        for status in &equipment.status_effects {
            let worn = StatusEffect { unremovable: true, ..status.clone() };
            let interval = self.live_value(key, &status.tick_interval, 0);
            self.add_status(key, &worn, 0.0, interval, Some(&equipment.id), events);
        }
    }

    /// Takes the first `id` off a unit with the statuses it put on; false when it wields none.
    pub(super) fn unwield(&mut self, key: &str, id: &str) -> bool {
        let Some(unit) = self.units.get_mut(key) else { return false };
        let Some(at) = unit.equipment.iter().position(|worn| worn.as_str() == id) else { return false };
        unit.equipment.remove(at);
        let still = unit.equipment.iter().any(|worn| worn.as_str() == id);
        if !still {
            unit.statuses.retain(|status| status.worn.as_ref().is_none_or(|worn| worn.as_str() != id));
        }
        true
    }

    /// Slots of a unit that no equipment takes now, by name.
    pub(super) fn free_slots(&self, key: &str) -> BTreeMap<String, usize> {
        let mut free = BTreeMap::new();
        let Some(unit) = self.units.get(key) else { return free };
        let content = &self.setup.content;
        for slot in content.unit(unit.unit.as_str()).map(|model| model.slots.as_slice()).unwrap_or_default() {
            let counted = free.entry(slot.clone()).or_insert(0_usize);
            *counted = counted.saturating_add(1);
        }
        for equipment in self.worn(key) {
            for slot in &equipment.slots {
                if let Some(left) = free.get_mut(slot) {
                    *left = left.saturating_sub(1);
                }
            }
        }
        free
    }

    /// Stores a base stat: from now on it holds this number instead of following its formula.
    pub(super) fn store_stat(&mut self, key: &str, name: &str, value: f64) {
        if let Some(unit) = self.units.get_mut(key) {
            unit.live.remove(name);
            // The scheduler stores `ct` every tick: no new key when the stat is there.
            match unit.stats.get_mut(name) {
                Some(stored) => *stored = value,
                None => {
                    unit.stats.insert(name.to_owned(), value);
                }
            }
        }
    }

    /// Brings the shown values of live stats up to date (they are read live anyway).
    pub(super) fn refresh_live(&mut self) {
        // It runs after every step: the values are read in the order units and their live stats
        // are walked, then stored walking them in that same order (no names copied).
        let mut shown = Vec::new();
        for (key, unit) in &self.units {
            for name in unit.live.keys() {
                shown.push(self.base_stat_of(key, unit, name, 0).unwrap_or(f64::NAN));
            }
        }
        if shown.is_empty() {
            return;
        }
        let mut values = shown.into_iter();
        for unit in self.units.values_mut() {
            for name in unit.live.keys() {
                let Some(value) = values.next() else { return };
                if let Some(stored) = unit.stats.get_mut(name) {
                    *stored = value;
                }
            }
        }
    }

    /// The unit's statuses in words, with the amounts they change its stats by now and the
    /// ticks left: "slowed (speed -3, def -2; 34 ticks left)".
    pub fn status_notes(&self, key: &str) -> Vec<String> {
        let Some(unit) = self.units.get(key) else { return Vec::new() };
        let show = |value: f64| crate::number::show_value(value, None);
        unit.statuses
            .iter()
            .map(|status| {
                let definition = &status.definition;
                let mut parts: Vec<String> = definition
                    .stat_effects
                    .iter()
                    .map(|effect| {
                        let amount = self.live_value(key, &effect.value, 0);
                        match effect.op {
                            StatOp::Add if amount >= 0.0 => format!("{} +{}", effect.stat, show(amount)),
                            StatOp::Add => format!("{} {}", effect.stat, show(amount)),
                            StatOp::Multiply => format!("{} ×{}", effect.stat, show(amount)),
                            StatOp::Set => format!("{} = {}", effect.stat, show(amount)),
                        }
                    })
                    .collect();
                for effect in &definition.tick_effects {
                    let amount = self.live_value(key, &effect.value, 0);
                    let every = show(status.interval);
                    parts.push(match effect.op {
                        StatOp::Add if amount >= 0.0 => {
                            format!("{} +{} every {every} ticks", effect.stat, show(amount))
                        }
                        StatOp::Add => format!("{} {} every {every} ticks", effect.stat, show(amount)),
                        StatOp::Multiply => format!("{} ×{} every {every} ticks", effect.stat, show(amount)),
                        StatOp::Set => format!("{} = {} every {every} ticks", effect.stat, show(amount)),
                    });
                }
                let clock = match definition.clock {
                    crate::model::StatusClock::Global => "",
                    crate::model::StatusClock::Unit => " of its own time",
                };
                let left = if let Some(worn) = &status.worn {
                    format!("while {worn} is worn")
                } else if definition.unremovable {
                    "unremovable".to_owned()
                } else {
                    format!("{} ticks{clock} left", show(status.remaining))
                };
                if parts.is_empty() {
                    format!("{} ({left})", status.name)
                } else {
                    format!("{} ({}; {left})", status.name, parts.join(", "))
                }
            })
            .collect()
    }

    pub(super) fn setting(&self, key: &str, (name, default): (&str, f64)) -> f64 {
        self.stat(key, name).filter(|value| value.is_finite()).unwrap_or(default)
    }

    /// [`Self::setting`] of the unit `key`, already looked up.
    pub(super) fn setting_of(&self, key: &str, unit: &UnitState, (name, default): (&str, f64)) -> f64 {
        self.stat_of(key, unit, name, 0).filter(|value| value.is_finite()).unwrap_or(default)
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

    /// Who stands on each spot, as [`Self::unit_at`] answers for it (a rider before its
    /// mount): for questions about many spots at once.
    pub(super) fn standing(&self) -> Standing<'_> {
        let mut all: Vec<(Spot, (&str, &UnitState))> = Vec::with_capacity(self.units.len());
        all.extend(
            self.units.iter().filter(|(_, unit)| !unit.defeated).map(|(key, unit)| (unit.spot, (key.as_str(), unit))),
        );
        // Stable: the units on one spot stay in key order.
        all.sort_by_key(|(spot, _)| *spot);
        // One entry per spot, in place: the first rider in key order, else the first unit in
        // key order (`dedup_by` hands the later entry first, the one kept second).
        all.dedup_by(|(spot, later), (kept_spot, kept)| {
            if spot != kept_spot {
                return false;
            }
            if later.1.mount.is_some() && kept.1.mount.is_none() {
                std::mem::swap(later, kept);
            }
            true
        });
        SpotMap::from(all)
    }

    /// The unit riding `key`, if any.
    pub fn rider_of(&self, key: &str) -> Option<&str> {
        self.units
            .iter()
            .find(|(_, unit)| !unit.defeated && unit.mount.as_deref() == Some(key))
            .map(|(rider, _)| rider.as_str())
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

    /// The highest standing spot of a cell, for script lines that leave the level out.
    pub fn top_spot(&self, x: u16, y: u16) -> Option<Spot> {
        standing_spots(&self.setup.grid, x, y).last().copied()
    }
}
