//! Units and skills for the tactics system (`spec/srpgck.md` §b–§d).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Id;
use super::table::StatOp;
use super::value::{Colour, Expr, default_true, is_default, is_true};
use super::walk::impl_walk;

/// Lower and upper limits of a unit stat; a limit stops movement past it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// Lowest value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<Expr>,
    /// Highest value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<Expr>,
}

impl_walk!(Limits { min, max });

/// A unit type: a character that stands on a tile map.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Unit {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Unit>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Marker colour.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
    /// Picture, relative to the project folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub art: Option<String>,
    /// Default team.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub team: String,
    /// Base stats by name (hp, speed, ct…), each a formula evaluated with the unit as `c`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub stats: BTreeMap<String, Expr>,
    /// Limits of stats by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, Limits>,
    /// Skills the unit can use.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Id<Skill>>,
    /// Equipment slots the unit has (a name once per slot: `["hand", "hand", "body"]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<String>,
    /// Equipment the unit wields when a battle starts, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub equipment: Vec<Id<Equipment>>,
}
impl_walk!(Unit { stats, limits, skills, equipment });

/// A piece of equipment (seed 001 "Equipment"): it takes slots on its wielder, belongs to
/// categories `equip(…)` searches match, has parameters, changes the wielder's stats, grants
/// skills and puts statuses on the wielder while it is worn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Equipment {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Equipment>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Slots it takes on its wielder, a name once per slot (`["hand", "hand"]` for two hands).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<String>,
    /// Categories it belongs to (`["weapon", "sword"]`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// Named parameters (read as `equip.NAME`, `equip(…).NAME`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Expr>,
    /// Passive changes to the wielder's stats while it is worn (formulas read live, `c` the
    /// wielder, `equip.NAME` this item's parameters).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passive_effects: Vec<StatEffect>,
    /// Skills the wielder can use while it is worn (after its own).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skills: Vec<Id<Skill>>,
    /// Statuses the wielder has while it is worn (put on with it, taken off with it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub status_effects: Vec<StatusEffect>,
}
impl_walk!(Equipment { params, passive_effects, skills, status_effects });

/// Which scheduler decides whose turn it is in a battle (`spec/srpgck.md` §d; seed 001
/// "Schedulers").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum SchedulerKind {
    /// Charge time: each tick every unit's `ct` grows by its `speed`; the first at `maxCT` acts.
    #[default]
    Ct,
    /// Team rounds, pick any once: the teams take rounds; in its round a team picks each of
    /// its units once, in any order, and may end the round sooner.
    TeamRounds,
    /// Team rounds with points: a team has `points_per_round` activations a round; a unit
    /// may be picked again, each time with fewer action points to move with.
    TeamPoints,
}

/// How a battle on a map schedules turns (FORMAT.md §12).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Scheduler {
    /// Which scheduler.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub kind: SchedulerKind,
    /// CT: a turn's costs are added up and taken off its `ct` at once when the turn ends
    /// (SRPGCK's `coalesceCTDecrements`).
    #[serde(skip_serializing_if = "is_default")]
    pub coalesce_ct: bool,
    /// Team rounds: the teams in the order they play (empty: in the order of their first
    /// placement).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<String>,
    /// Points: activations a team has each round (default 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_per_round: Option<u32>,
    /// Points: action points of a unit's first activation in a round (`c` the unit; default 10).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit_points: Option<Expr>,
    /// Points: each later activation of a unit in the same round has this times the action
    /// points of the one before (`c` the unit; default 0.75).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_diminish: Option<Expr>,
    /// Points: action points a cell walked costs (`c` the unit; default 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub move_points: Option<Expr>,
}
impl_walk!(Scheduler { unit_points, points_diminish, move_points });

/// The kind of a skill.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum SkillKind {
    /// Moves the unit to a reachable tile.
    Move,
    /// Targets a region and applies effects.
    #[default]
    Action,
}

/// Shape of a region (`spec/srpgck.md` §b.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum RegionShape {
    /// Manhattan radius in x/y with a vertical window.
    #[default]
    Cylinder,
    /// Manhattan radius in x/y/z.
    Sphere,
    /// A straight line.
    Line,
    /// A knockback/shove walk.
    LineMove,
    /// An angular sector.
    Cone,
    /// Only the unit's own tile.
    SelfOnly,
    /// Sub-regions repeated around the unit.
    NWay,
    /// The union of sub-regions.
    Compound,
}

/// How the space between the unit and a tile must be crossed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum InterveningSpace {
    /// Anywhere in the shape.
    #[default]
    Pick,
    /// A walkable path.
    Path,
    /// A straight line of sight.
    Line,
    /// A ballistic arc.
    Arc,
    /// Only with the line-move shape.
    LineMove,
    /// Flight through open air: any rise or drop, around tiles, never above `fly_ceiling`.
    Fly,
}

/// A region of tiles around a unit: where a skill can target, or what it affects.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Region {
    /// Shape.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub shape: RegionShape,
    /// How tiles must be reached.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub space: InterveningSpace,
    /// Smallest distance.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub radius_min: Expr,
    /// Largest distance.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub radius_max: Expr,
    /// Smallest climb that counts as "up".
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_up_min: Expr,
    /// Largest climb.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_up_max: Expr,
    /// Smallest drop that counts as "down".
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_down_min: Expr,
    /// Largest drop.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_down_max: Expr,
    /// Direction in the x/y plane, degrees (line, cone, line-move, n-way).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub xy_direction: Expr,
    /// Elevation, degrees.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_direction: Expr,
    /// Cone: smallest x/y angle.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub xy_arc_min: Expr,
    /// Cone: largest x/y angle.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub xy_arc_max: Expr,
    /// Cone: smallest elevation angle.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_arc_min: Expr,
    /// Cone: largest elevation angle.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub z_arc_max: Expr,
    /// Cone: forward clip distance (0 = none).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub forward_clip_max: Expr,
    /// Line: smallest width offset.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub line_width_min: Expr,
    /// Line: largest width offset.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub line_width_max: Expr,
    /// Fly space: the highest a flight may rise, in levels above the centre (0 = no limit).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub fly_ceiling: Expr,
    /// Per-tile test; non-zero keeps the tile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub predicate: Option<Expr>,
    /// N-way: how many copies around the unit.
    #[serde(skip_serializing_if = "Expr::is_one")]
    #[schemars(!skip_serializing_if)]
    pub n_ways: Expr,
    /// N-way and compound parts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subregions: Vec<Region>,
    /// Terrain tags (FORMAT.md §9) a walk never enters and the region never holds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub no_enter_tags: Vec<String>,
    /// Height limits are measured from the start tile, not per step.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub use_absolute_dz: bool,
    /// May pass under ceilings and over walls.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub can_cross_walls: bool,
    /// May pass through enemies.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub can_cross_enemies: bool,
    /// May stop on enemies.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub can_halt_at_enemies: bool,
    /// May target enemies.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub can_target_enemies: bool,
    /// May target friends.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub can_target_friends: bool,
    /// May target the unit itself.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub can_target_self: bool,
    /// Lower targets give more range (arcs).
    #[serde(skip_serializing_if = "is_default")]
    pub use_arc_range_bonus: bool,
    /// Steps onto or off a mount may climb or drop one level more.
    #[serde(skip_serializing_if = "is_default")]
    pub use_mounting_step_bonus: bool,
    /// May end on a friend and ride it.
    #[serde(skip_serializing_if = "is_default")]
    pub can_mount_friends: bool,
    /// May end on an enemy and ride it.
    #[serde(skip_serializing_if = "is_default")]
    pub can_mount_enemies: bool,
    /// Line-move: how the walk's direction is locked.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub facing_lock: FacingLock,
    /// Line-move: falls down to the ground below when the walk leaves an edge.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub perform_fall: bool,
    /// Line-move: keeps its height over gaps while steps remain.
    #[serde(skip_serializing_if = "is_default")]
    pub can_glide: bool,
}

/// How a line-move walk's direction is locked (`spec/srpgck.md` §b.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum FacingLock {
    /// The raw angle.
    Free,
    /// The nearest of ±x, ±y.
    #[default]
    Cardinal,
    /// The nearest diagonal.
    Ordinal,
    /// The nearest of the eight 45° directions.
    CardinalOrdinal,
}
impl_walk!(Region {
    radius_min,
    radius_max,
    z_up_min,
    z_up_max,
    z_down_min,
    z_down_max,
    xy_direction,
    z_direction,
    xy_arc_min,
    xy_arc_max,
    z_arc_min,
    z_arc_max,
    forward_clip_max,
    line_width_min,
    line_width_max,
    fly_ceiling,
    predicate,
    n_ways,
    subregions
});

impl Default for Region {
    fn default() -> Self {
        Self {
            shape: RegionShape::default(),
            space: InterveningSpace::default(),
            radius_min: Expr::default(),
            radius_max: Expr::default(),
            z_up_min: Expr::default(),
            z_up_max: Expr::default(),
            z_down_min: Expr::default(),
            z_down_max: Expr::default(),
            xy_direction: Expr::default(),
            z_direction: Expr::default(),
            xy_arc_min: Expr::default(),
            xy_arc_max: Expr::default(),
            z_arc_min: Expr::default(),
            z_arc_max: Expr::default(),
            forward_clip_max: Expr::default(),
            line_width_min: Expr::default(),
            line_width_max: Expr::default(),
            fly_ceiling: Expr::default(),
            predicate: None,
            n_ways: Expr::one(),
            subregions: Vec::new(),
            no_enter_tags: Vec::new(),
            use_absolute_dz: true,
            can_cross_walls: true,
            can_cross_enemies: true,
            can_halt_at_enemies: true,
            can_target_enemies: true,
            can_target_friends: true,
            can_target_self: true,
            use_arc_range_bonus: false,
            use_mounting_step_bonus: false,
            can_mount_friends: false,
            can_mount_enemies: false,
            facing_lock: FacingLock::default(),
            perform_fall: true,
            can_glide: false,
        }
    }
}

/// Who a skill effect changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum EffectTarget {
    /// Each targeted unit.
    #[default]
    Target,
    /// The acting unit.
    Actor,
}

/// Which clock a status counts its duration and its per-tick effects on (`spec/srpgck.md` §d).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum StatusClock {
    /// The scheduler's ticks: one a tick.
    #[default]
    Global,
    /// The holder's own time: its effective `speed` a tick (SRPGCK's "ticks in local time").
    Unit,
}

/// What putting a status on a unit that has one of the same name does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum StatusStacking {
    /// The new one takes the place of the old ones (not of an unremovable one or one of a
    /// higher priority: then the new one is not put on).
    #[default]
    Replace,
    /// The new one is added: each counts down and changes stats on its own.
    Cumulative,
}

/// A status effect a skill applies for a while.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StatusEffect {
    /// Its type name (read by `exists(status.NAME)`).
    pub name: String,
    /// How long it lasts, in ticks of its clock (evaluated when it is put on).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub duration_ticks: Expr,
    /// The clock its duration and per-tick effects count on.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub clock: StatusClock,
    /// What it does to a status of the same name the unit has.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub stacking: StatusStacking,
    /// Against a status of the same name: a lower priority cannot replace a higher one.
    #[serde(skip_serializing_if = "is_default")]
    pub priority: i32,
    /// Lasts the whole battle (its duration is not used) and is never replaced.
    #[serde(skip_serializing_if = "is_default")]
    pub unremovable: bool,
    /// Passive changes to the holder's stats while it lasts (formulas read live, `c` the holder).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stat_effects: Vec<StatEffect>,
    /// Changes to the holder's stored stats each `tick_interval` of its clock (poison, regen;
    /// formulas with `c` the holder).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tick_effects: Vec<StatEffect>,
    /// How many ticks of its clock between two rounds of `tick_effects`.
    #[serde(skip_serializing_if = "Expr::is_one")]
    #[schemars(!skip_serializing_if)]
    pub tick_interval: Expr,
}

impl Default for StatusEffect {
    fn default() -> Self {
        Self {
            name: String::new(),
            duration_ticks: Expr::default(),
            clock: StatusClock::default(),
            stacking: StatusStacking::default(),
            priority: 0,
            unremovable: false,
            stat_effects: Vec::new(),
            tick_effects: Vec::new(),
            tick_interval: Expr::one(),
        }
    }
}

impl_walk!(StatusEffect { duration_ticks, stat_effects, tick_effects, tick_interval });

/// A change to a unit stat.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StatEffect {
    /// Who is changed.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub target: EffectTarget,
    /// The stat name.
    pub stat: String,
    /// How.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: StatOp,
    /// By how much.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub value: Expr,
    /// Reactable types of the effect (`attack`, `melee`…): reactions trigger on them and
    /// `effect(… by TYPES)` searches match them (a hit's effects only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reactable_types: Vec<String>,
}

impl_walk!(StatEffect { value });

/// How a stat changed, for a reaction trigger.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum StatChange {
    /// It went up or down.
    #[default]
    Change,
    /// It went up.
    Increase,
    /// It went down.
    Decrease,
    /// An effect changed it by nothing.
    NoChange,
    /// Any effect on it.
    Any,
}

/// A stat change that triggers a reaction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct StatTrigger {
    /// The stat.
    pub stat: String,
    /// How it changed.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub change: StatChange,
}

/// What a skill does in reply to another unit's skill (seed 001 "Reactions"): when the
/// skill's holder is a target of an action skill and a trigger is met, the attacker in
/// `region` gets the reaction's hit type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Reaction {
    /// Changes to the attacker's stats (by the action) that trigger it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attacker_stat_changes: Vec<StatTrigger>,
    /// Changes to the reacting unit's stats that trigger it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defender_stat_changes: Vec<StatTrigger>,
    /// Reactable types of effects on the attacker that trigger it (any one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub attacker_effect_types: Vec<String>,
    /// Reactable types of effects on the reacting unit that trigger it (any one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub defender_effect_types: Vec<String>,
    /// Named parameters (read as `reaction.NAME`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Expr>,
    /// Where, from the reacting unit, the attacker must stand to be reached.
    pub region: Region,
    /// Chooses the hit type (read as `reaction.hitType`): an index into `hit_types`, clamped.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub hit_type: Expr,
    /// Effects by hit type: `Target` is the attacker, `Actor` the reacting unit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hit_types: Vec<HitType>,
}

impl_walk!(Reaction { params, region, hit_type, hit_types });

/// One hit type's effects (e.g. normal hit, critical, miss).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct HitType {
    /// Name shown in logs.
    pub label: String,
    /// Stat changes applied.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stat_effects: Vec<StatEffect>,
    /// Status effects applied to each target.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub status_effects: Vec<StatusEffect>,
    /// Knockback, shove or throw walks, after the stat and status effects.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub line_moves: Vec<LineMoveEffect>,
}

impl_walk!(HitType { stat_effects, status_effects, line_moves });

/// A knockback, shove or throw (`spec/srpgck.md` §b.8): the unit walks in a straight line.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct LineMoveEffect {
    /// Who is moved: each target (away from the actor) or the actor (along its facing).
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub target: EffectTarget,
    /// The walk: `radius_max` steps, `xy_direction` added to the direction, the `z_up_max`
    /// and `z_down_max` window, `facing_lock`, `can_cross_walls`, `can_cross_enemies` (any
    /// unit), `perform_fall`, `can_glide`.
    pub region: Region,
}

impl_walk!(LineMoveEffect { region });

/// A skill: a move or an action a unit can use.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Skill {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<Skill>,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Move or action.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub kind: SkillKind,
    /// Its group, levels separated by `//` ("Act//Black Magic"); empty: none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub group: String,
    /// Its place within its group: lower first (ties keep the unit's list order).
    #[serde(skip_serializing_if = "is_default")]
    pub sorting: i32,
    /// The skill it replaces while the unit has it: a skill id, `GROUP//ID`, or a group
    /// ending in `//` (every skill of that group); empty: none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub replaces: String,
    /// Between skills replacing the same skill, the highest wins (the others are replaced too).
    #[serde(skip_serializing_if = "is_default")]
    pub replacement_priority: i32,
    /// Named parameters (read as `skill.NAME`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub params: BTreeMap<String, Expr>,
    /// Where the skill can be aimed.
    pub target_region: Region,
    /// What an aimed tile affects.
    pub effect_region: Region,
    /// Chooses the hit type: its value is an index into `hit_types`, clamped to the last.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub hit_type: Expr,
    /// Effects by hit type.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hit_types: Vec<HitType>,
    /// Charged skill: scheduler ticks before it resolves at the spot aimed at (evaluated
    /// when used; 0 = at once). The skill parameter `speed` (default 1) is taken off it
    /// each tick (SRPGCK's delayed skill activations).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub delay: Expr,
    /// Passive changes to the stats of the unit that has the skill (formulas read live, `c`
    /// the unit, `skill.NAME` this skill's parameters); after equipment, before statuses.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub passive_effects: Vec<StatEffect>,
    /// What the skill does in reply when its holder is hit (a counter-attack).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reaction: Option<Reaction>,
}
impl_walk!(Skill { params, target_region, effect_region, hit_type, hit_types, delay, passive_effects, reaction });
