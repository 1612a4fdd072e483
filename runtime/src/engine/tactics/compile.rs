//! What a battle compiles once when it starts: how each formula lookup reads the battle, the
//! map's grid, the units placed with their stats.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand_pcg::Pcg64Mcg;

use crate::formula::names::GameName;
use crate::formula::{EffectSearch, EquipSearch, Lookup, Scope};
use crate::map::{Spot, TileGrid, standing_spots};
use crate::model::{Id, Scheduler, SchedulerKind, SkillKind, TileMap};

use crate::engine::Event;
use crate::engine::content::Content;

use super::{LIVE_STREAM, MAX_IDLE_TICKS, NameMap, StatSet, TacticsState, UnitState};

/// What a lookup reads in a battle.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Acc {
    Actor(String),
    Target(String),
    TargetIsNull,
    TargetIsNotNull,
    Skill(String),
    Arg(String),
    ActorStatus(String),
    TargetStatus(String),
    /// An equipment search and the parameter it reads (empty: only `exists`).
    Equip(EquipSearch, String),
    /// An `effect(…)` search.
    Effect(EffectSearch),
    /// Bare `effect`: the last effect of the running skill.
    EffectValue,
    /// `reacted-skill.effect`: the effect a reaction replies to.
    ReactedEffectValue,
    /// `reacted-skill.NAME`.
    ReactedSkill(String),
    /// `reaction.NAME`.
    Reaction(String),
    UnitStat(String, String),
    TeamAlive(String),
    Tick,
    Turns,
    Missing,
}

/// The battle-wide names of [`GameName`] (`unit.ID.STAT`, `team.NAME.alive`, `battle.tick`,
/// `battle.turns`) and the skill arguments (`arg.*`).
pub(super) fn battle_accessor(name: &str) -> Acc {
    // No battle name is a bare word, so which bare words are stats does not matter here.
    match GameName::parse(name, |_| false) {
        GameName::Arg(name) if name.starts_with("arg.") => Acc::Arg(name),
        GameName::Reaction(param) => Acc::Reaction(param),
        GameName::UnitStat(id, stat) if !stat.is_empty() => Acc::UnitStat(id, stat),
        GameName::TeamAlive(team) => Acc::TeamAlive(team),
        GameName::BattleTick => Acc::Tick,
        GameName::BattleTurns => Acc::Turns,
        _ => Acc::Missing,
    }
}

pub(super) fn accessor(lookup: &Lookup) -> Acc {
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
        Scope::Equip(ref search) => Acc::Equip(EquipSearch::clone(search), name),
        Scope::Effect(ref search) => Acc::Effect(EffectSearch::clone(search)),
        Scope::EffectValue => Acc::EffectValue,
        Scope::ReactedEffectValue => Acc::ReactedEffectValue,
        Scope::ReactedSkill => Acc::ReactedSkill(name),
        _ => Acc::Missing,
    }
}

/// What does not change during a battle (but for set-up lines): the map and how each formula
/// slot reads it.
#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub(super) map: Id<TileMap>,
    pub(super) grid: TileGrid,
    pub(super) accessors: Vec<Acc>,
    /// Unit keys in placement order: the scheduler's order and its tie-break.
    pub(super) order: Vec<String>,
    /// The battle began with units of two or more teams (the default win rule applies).
    pub(super) contested: bool,
    /// The content, for the formulas read live (stats, limits, status amounts).
    pub(super) content: Arc<Content>,
    /// The map's scheduler.
    pub(super) scheduler: Scheduler,
    /// Team-round schedulers: the teams in the order they play.
    pub(super) teams: Vec<String>,
    /// Some skill of the project has passive effects: only then does reading a stat look
    /// through the unit's skills (stats are read at every scheduler tick).
    pub(super) skill_passives: bool,
    /// The stats some equipment's or skill's passive effect of the project changes: reading
    /// any other stat looks through the unit's statuses only.
    pub(super) passive_stats: StatSet,
    /// Lines of sight kept for the map's geometry (none: the grid is not the map's).
    pub(super) sight: Option<Arc<crate::map::SightMemo>>,
    /// What the scheduler reads at every idle tick (speeds, maxCT, hp, the limits of `ct`,
    /// the win conditions) reads neither `ct`, nor the clock, nor the generator: between two
    /// ticks only what ticking itself changes may differ (see `TacticsState::run_quiet_ticks`).
    pub(super) quiet: bool,
    /// Each unit's usable skills, kept (see [`super::skills::UsableSkills`]).
    pub(super) usable: super::skills::UsableSkills,
}

impl TacticsState {
    /// Sets up the battle of `entry.tile_map`, if the project names one with placements, and
    /// runs the scheduler to the first turn.
    pub(crate) fn start(content: &Arc<Content>, rng: &mut Pcg64Mcg) -> Option<(Self, Vec<Event>)> {
        let project = &content.project;
        let map = project.tile_maps.get(project.manifest.entry.tile_map.as_ref()?.as_str())?;
        if map.placements.is_empty() {
            return None;
        }
        let mut events = Vec::new();
        let (mut state, keys) = Self::placed(content, map, &mut events)?;
        if keys.is_empty() {
            return Some((state, events)); // the map's grid could not be built: nobody is placed
        }
        state.check_end(content, rng, &mut events);
        state.schedule(content, rng, MAX_IDLE_TICKS, &mut events);
        Some((state, events))
    }

    /// Where the unit of `map`'s placement number `placement` can move as the battle on `map`
    /// starts (before anyone acts), with the route to each spot: its move skills' regions with
    /// its own stats, the others placed as occupants. Empty when the placement places nobody.
    /// The editor's reach overlay, so that it shows what the battle will.
    pub fn start_moves(content: &Arc<Content>, map: &TileMap, placement: usize) -> BTreeMap<Spot, Vec<Spot>> {
        let mut routes = BTreeMap::new();
        let Some((state, keys)) = Self::placed(content, map, &mut Vec::new()) else { return routes };
        let Some(key) = keys.get(placement).and_then(Option::as_deref) else { return routes };
        let Some(from) = state.units.get(key).map(|unit| unit.spot) else { return routes };
        // The battle's own stream would be seeded by the session; formulas read here see a fixed one.
        let mut rng = Pcg64Mcg::new(LIVE_STREAM);
        for (_, skill) in state.usable_skills(content, key, SkillKind::Move) {
            let found = state.move_routes(content, &mut rng, key, skill, (from, 0.0));
            for spot in found.ends() {
                if let (std::collections::btree_map::Entry::Vacant(entry), Some(route)) =
                    (routes.entry(spot), found.path(spot))
                {
                    entry.insert(route);
                }
            }
        }
        routes
    }

    /// The battle state of `map` with its units placed (no turn given yet), and each
    /// placement's unit key (None: it placed nobody; no keys at all: the map's grid is unusable).
    fn placed(content: &Arc<Content>, map: &TileMap, events: &mut Vec<Event>) -> Option<(Self, Vec<Option<String>>)> {
        let project = &content.project;
        let mut keys = Vec::with_capacity(map.placements.len());
        let grid = match TileGrid::from_map(map) {
            Ok(grid) => grid,
            Err(error) => {
                events.push(Event::Warning(format!("the battle map cannot be used: {error}")));
                return Some((Self::empty(content, map, TileGrid::new(1, 1).ok()?), keys));
            }
        };
        let mut state = Self::empty(content, map, grid);
        // The grid is the map's own: lines traced on it hold for every battle on the map.
        Arc::make_mut(&mut state.setup).sight = Some(content.sight_memo(map.id.as_str()));
        let mut order = Vec::new();
        let mut placed: BTreeMap<String, usize> = BTreeMap::new();
        for placement in &map.placements {
            keys.push(None);
            let Some(unit) = project.units.get(placement.unit.as_str()) else { continue };
            let count = placed.entry(unit.id.as_str().to_owned()).or_insert(0);
            *count = count.saturating_add(1);
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
                    stats: super::StatMap::default(),
                    live: super::StatSet::default(),
                    statuses: Vec::new(),
                    defeated: false,
                    // Team rounds give turns to every unit; CT only to those with `ct` and `speed`.
                    scheduled: map.scheduler.kind != SchedulerKind::Ct
                        || (unit.stats.contains_key("ct") && unit.stats.contains_key("speed")),
                    mount: None,
                    equipment: Vec::new(),
                },
            );
            order.push(key.clone());
            if let Some(last) = keys.last_mut() {
                *last = Some(key.clone());
            }
            state.base_stats(&key, unit);
            for id in &unit.equipment {
                if let Some(equipment) = project.equipment.get(id.as_str()) {
                    state.wield(&key, equipment, events);
                }
            }
            if map.scheduler.kind == SchedulerKind::Ct
                && (!unit.stats.contains_key("ct") || !unit.stats.contains_key("speed"))
            {
                events.push(Event::Warning(format!("{key} has no `ct` or no `speed` stat: it never gets a turn")));
            }
        }
        let teams: BTreeSet<&str> = state.units.values().map(|unit| unit.team.as_str()).collect();
        let contested = teams.len() > 1;
        // The round order: as the map lists the teams, else by their first placement.
        let mut round_teams = map.scheduler.teams.clone();
        if round_teams.is_empty() {
            for key in &order {
                if let Some(team) = state.units.get(key).map(|unit| &unit.team)
                    && !round_teams.contains(team)
                {
                    round_teams.push(team.clone());
                }
            }
        }
        if let Some(setup) = Arc::get_mut(&mut state.setup) {
            setup.order = order;
            setup.contested = contested;
            setup.teams = round_teams;
        }
        Some((state, keys))
    }

    fn empty(content: &Arc<Content>, map: &TileMap, grid: TileGrid) -> Self {
        let accessors: Vec<Acc> = content.formulas().lookups().map(accessor).collect();
        let quiet = quiet_ticks(content, map, &accessors);
        Self {
            setup: Arc::new(Setup {
                map: map.id.clone(),
                grid,
                accessors,
                order: Vec::new(),
                contested: false,
                content: Arc::clone(content),
                scheduler: map.scheduler.clone(),
                teams: Vec::new(),
                skill_passives: content.project.skills.iter().any(|skill| !skill.passive_effects.is_empty()),
                passive_stats: passive_stats(&content.project),
                sight: None,
                quiet,
                usable: super::skills::UsableSkills::default(),
            }),
            tick: 0,
            turns: 0,
            units: NameMap::default(),
            active: None,
            winner: None,
            pending_ct: 0.0,
            action_points: None,
            charging: Vec::new(),
            round: None,
            repainted: BTreeMap::new(),
        }
    }

    /// Base stats: a number is stored; a formula stays live (it is read whenever the stat is,
    /// with the unit as `c`) until something changes the stat. The limits are read live too.
    fn base_stats(&mut self, key: &str, unit: &crate::model::Unit) {
        let Some(state) = self.units.get_mut(key) else { return };
        for (name, expr) in &unit.stats {
            // A formula stands for NaN in the shown values until the first refresh.
            let shown = expr.as_int().map_or(f64::NAN, |value| value as f64);
            if expr.as_int().is_none() {
                state.live.insert(name.clone(), ());
            }
            state.stats.insert(name.clone(), shown);
        }
    }
}

/// The stats the passive effects of the project's equipment and skills change.
fn passive_stats(project: &crate::model::Project) -> StatSet {
    let equipment = project.equipment.iter().flat_map(|equipment| equipment.passive_effects.iter());
    let skills = project.skills.iter().flat_map(|skill| skill.passive_effects.iter());
    let mut stats = StatSet::default();
    for effect in equipment.chain(skills) {
        stats.insert(effect.stat.clone(), ());
    }
    stats
}

/// Whether every formula the scheduler's idle ticks read is blind to what ticking changes:
/// the win conditions, the limits of `ct` and every formula the stats `speed`, `maxCT` and
/// `hp` are made of (the units' base formulas and limits, passive effects, the stat effects
/// of every status a skill, reaction or item puts on), and so on for the stats those read.
/// None may draw random numbers, read `battle.tick` or `ct`, or read anything but stats,
/// team counts, turns and statuses; nothing but the scheduler may change `ct`.
fn quiet_ticks(content: &Content, map: &TileMap, accessors: &[Acc]) -> bool {
    let project = &content.project;
    let hits = project.skills.iter().flat_map(|skill| {
        skill.hit_types.iter().chain(skill.reaction.iter().flat_map(|reaction| reaction.hit_types.iter()))
    });
    let statuses: Vec<&crate::model::StatusEffect> = hits
        .flat_map(|hit| hit.status_effects.iter())
        .chain(project.equipment.iter().flat_map(|item| item.status_effects.iter()))
        .collect();
    let passives = project.equipment.iter().flat_map(|item| item.passive_effects.iter());
    let passives: Vec<&crate::model::StatEffect> =
        passives.chain(project.skills.iter().flat_map(|skill| skill.passive_effects.iter())).collect();
    let changes_ct = |effect: &&crate::model::StatEffect| effect.stat == "ct";
    if passives.iter().any(changes_ct)
        || statuses.iter().flat_map(|status| status.stat_effects.iter()).any(|e| changes_ct(&e))
    {
        return false;
    }
    let limits = |stat: &str| {
        project
            .units
            .iter()
            .filter_map(|unit| unit.limits.get(stat))
            .flat_map(|limits| limits.min.iter().chain(limits.max.iter()))
            .collect::<Vec<_>>()
    };
    let mut read: BTreeSet<String> = BTreeSet::new();
    let mut pending: Vec<String> = vec!["speed".to_owned(), "maxCT".to_owned(), "hp".to_owned()];
    // The stats a formula reads go to `pending`; false when it is not blind to ticking.
    let blind = |expr: &crate::model::Expr, pending: &mut Vec<String>| {
        if expr.as_int().is_some() {
            return true;
        }
        let Some(compiled) = content.formula(expr) else { return true }; // NaN, always
        let Some(slots) = content.formulas().reads(compiled) else { return false };
        slots.iter().all(|slot| match accessors.get(slot.0 as usize) {
            Some(Acc::Actor(name) | Acc::Target(name) | Acc::UnitStat(_, name)) => {
                pending.push(name.clone());
                name != "ct"
            }
            Some(
                Acc::TeamAlive(_)
                | Acc::Turns
                | Acc::TargetIsNull
                | Acc::TargetIsNotNull
                | Acc::ActorStatus(_)
                | Acc::TargetStatus(_)
                | Acc::Missing,
            ) => true,
            _ => false,
        })
    };
    let mut first: Vec<&crate::model::Expr> = map.win_conditions.iter().map(|condition| &condition.when).collect();
    first.extend(limits("ct"));
    if !first.into_iter().all(|expr| blind(expr, &mut pending)) {
        return false;
    }
    while let Some(stat) = pending.pop() {
        if !read.insert(stat.clone()) {
            continue;
        }
        let base = project.units.iter().filter_map(|unit| unit.stats.get(&stat));
        let effects = passives
            .iter()
            .copied()
            .chain(statuses.iter().flat_map(|status| status.stat_effects.iter()))
            .filter(|effect| effect.stat == stat)
            .map(|effect| &effect.value);
        let formulas: Vec<&crate::model::Expr> = base.chain(limits(&stat)).chain(effects).collect();
        if !formulas.into_iter().all(|expr| blind(expr, &mut pending)) {
            return false;
        }
    }
    true
}
