//! Where units can move and aim: reach, region shapes and spaces, line moves, mounts
//! (`spec/srpgck.md` §b.4–§b.8).

use std::collections::BTreeMap;
use std::sync::Arc;

use rand_pcg::Pcg64Mcg;

use crate::formula::Side;
use crate::map::{
    LineMoveParams, Occupant, Reach, ReachParams, SightParams, Spot, SpotMap, SpotSet, TileGrid, arc_shot, line_move,
    line_reaches, reach_fly, reach_line, reach_line_kept, reach_path_kept, reach_pick_kept, signed_dz, spot_tags,
    spot_terrain,
};
use crate::model::{Expr, FacingLock, InterveningSpace, Region, RegionShape, Skill, SkillKind};

use super::env::{Perspective, eval_expr};
use super::memo::{Answer, Question, TacticsMemo};
use super::{Standing, TacticsState, UnitState};
use crate::engine::content::Content;
use crate::engine::core;

/// Degrees wrapped into 0..360.
pub(super) fn wrap_degrees(degrees: f64) -> f64 {
    degrees.rem_euclid(360.0)
}

/// The shortest signed difference `a − b` in degrees, in −180..180.
pub(super) fn degrees_between(a: f64, b: f64) -> f64 {
    let d = wrap_degrees(a - b);
    if d >= 180.0 { d - 360.0 } else { d }
}

/// The side of `y` that `x` sees (`spec/srpgck.md` §c.5).
pub(super) fn side_between(x: &UnitState, y: &UnitState) -> Side {
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
pub(super) fn facing_towards(from: Spot, to: Spot) -> Option<f64> {
    let dx = f64::from(to.cell_x) - f64::from(from.cell_x);
    let dy = f64::from(to.cell_y) - f64::from(from.cell_y);
    if dx == 0.0 && dy == 0.0 {
        return None;
    }
    Some(wrap_degrees((dy.atan2(dx).to_degrees() / 90.0).round() * 90.0))
}

/// A line-move direction locked as the region asks (`spec/srpgck.md` §b.8): cardinal to the
/// nearest axis, ordinal to the diagonal of its quadrant, cardinal+ordinal to the nearest 45°.
pub(super) fn locked_direction(degrees: f64, lock: FacingLock) -> f64 {
    let degrees = wrap_degrees(degrees);
    match lock {
        FacingLock::Free => degrees,
        FacingLock::Cardinal => wrap_degrees((degrees / 90.0).round() * 90.0),
        FacingLock::Ordinal => wrap_degrees((degrees / 90.0).floor() * 90.0 + 45.0),
        FacingLock::CardinalOrdinal => wrap_degrees((degrees / 45.0).round() * 45.0),
    }
}

/// The way from `from` to `to` in degrees; None when they share a cell.
pub(super) fn direction_towards(from: Spot, to: Spot) -> Option<f64> {
    let dx = f64::from(to.cell_x) - f64::from(from.cell_x);
    let dy = f64::from(to.cell_y) - f64::from(from.cell_y);
    (dx != 0.0 || dy != 0.0).then(|| wrap_degrees(dy.atan2(dx).to_degrees()))
}

/// The cells of a line region (§b.4, SRPGCK's perpendicular fixed), each with the heights
/// (levels above the centre) of the axis over it: steps `r_min..=r_max` of one cell along the
/// axis, which points `theta` (radians) across the map and `phi` up, so a step covers
/// `cos phi` cells and rises `sin phi` levels; `w_min..=width` cells to each side.
pub(super) fn line_cells(
    center: Spot,
    (theta, phi): (f64, f64),
    (r_min, r_max): (u16, u16),
    (w_min, width): (u16, u16),
) -> BTreeMap<(i64, i64), Vec<f64>> {
    let (cos, sin) = (theta.cos(), theta.sin());
    let mut found: BTreeMap<(i64, i64), Vec<f64>> = BTreeMap::new();
    for along in r_min..=r_max {
        let (flat, axis) = (f64::from(along) * phi.cos(), f64::from(along) * phi.sin());
        for across in i64::from(width).saturating_neg()..=i64::from(width) {
            if across.unsigned_abs() < u64::from(w_min) {
                continue;
            }
            let across = across as f64;
            let x = i64::from(center.cell_x).saturating_add((flat * cos - across * sin).round() as i64);
            let y = i64::from(center.cell_y).saturating_add((flat * sin + across * cos).round() as i64);
            found.entry((x, y)).or_default().push(axis);
        }
    }
    found
}

/// The cells a route crosses (the sum of its steps' grid distances; rises are free).
pub(super) fn path_cells(path: &[Spot]) -> f64 {
    path.windows(2).filter_map(|pair| pair.first().zip(pair.get(1))).map(|(a, b)| f64::from(a.xy_distance(*b))).sum()
}

/// What walking `path` spent of a Path-space radius: each tile entered costs its terrain's
/// move cost, a leap's gap cells one each (FORMAT.md §9 "Terrain").
pub(super) fn walk_cost(grid: &TileGrid, path: &[Spot]) -> f64 {
    path.windows(2)
        .filter_map(|pair| pair.first().zip(pair.get(1)))
        .map(|(a, b)| {
            let entered = spot_terrain(grid, *b).map_or(1.0, |terrain| f64::from(terrain.move_cost.max(0)));
            f64::from(a.xy_distance(*b).saturating_sub(1)) + entered
        })
        .sum()
}

/// A region's line-move walk settings.
pub(super) fn walk_params(region: &Region, numbers: &RegionNumbers) -> LineMoveParams {
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

/// A region's formulas evaluated for one use.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RegionNumbers {
    pub(super) radius_min: f64,
    pub(super) radius_max: f64,
    pub(super) z_up_min: f64,
    pub(super) z_up_max: f64,
    pub(super) z_down_min: f64,
    pub(super) z_down_max: f64,
    pub(super) xy_direction: f64,
    pub(super) z_direction: f64,
    pub(super) xy_arc_min: f64,
    pub(super) xy_arc_max: f64,
    pub(super) z_arc_min: f64,
    pub(super) z_arc_max: f64,
    pub(super) forward_clip_max: f64,
    pub(super) line_width_min: f64,
    pub(super) line_width_max: f64,
    pub(super) n_ways: f64,
    pub(super) fly_ceiling: f64,
}

/// A count from a formula value: NaN and negatives are 0.
pub(super) fn cells(value: f64) -> u16 {
    if value.is_finite() && value > 0.0 { value.floor().min(f64::from(u16::MAX)) as u16 } else { 0 }
}

/// A level window bound: NaN is 0.
pub(super) fn levels(value: f64) -> f32 {
    if value.is_nan() { 0.0 } else { value as f32 }
}

/// How lines and arcs of `region` see: tiles block unless it may cross walls (§b.7).
fn sight_of(region: &Region) -> SightParams {
    SightParams { tiles_block: !region.can_cross_walls, ..SightParams::default() }
}

/// A shape's reach settings: the region's numbers and flags, searching `extra` cells beyond
/// `radius_max` (a line's width, the arc range bonus).
/// `no_enter` is the mask of the region's `no_enter_tags` on the battle's grid.
fn region_params(region: &Region, numbers: &RegionNumbers, extra: u16, no_enter: u64) -> ReachParams {
    let cylinder = region.shape == RegionShape::Cylinder;
    ReachParams {
        radius_min: if cylinder { cells(numbers.radius_min) } else { 0 },
        radius_max: cells(numbers.radius_max).saturating_add(extra),
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
        no_enter,
    }
}

/// Whether the offset `[dx, dy, rise]` from the centre lies in a cone (§b.4) whose axis
/// points `theta` across the map and `phi` up (radians): at most `r_max` cells and levels
/// away (|dx| + |dy| + |rise|, as a sphere) and at least `radius_min` straight away; off the
/// axis by `xy_arc_min..=xy_arc_max` degrees across and `z_arc_min..=z_arc_max` degrees up
/// or down (either side, with SRPGCK's tolerance of half a cell: 0.5/distance radians); and
/// no further along the axis than `forward_clip_max` when that is above 0.
fn cone_holds(numbers: &RegionNumbers, (theta, phi): (f64, f64), [dx, dy, rise]: [f64; 3], r_max: u16) -> bool {
    let flat = dx.hypot(dy);
    let distance = flat.hypot(rise);
    if distance == 0.0 {
        return numbers.radius_min <= 0.0 || numbers.radius_min.is_nan();
    }
    let tolerance = (0.5 / distance).to_degrees();
    let arc = |off: f64, min: f64, max: f64| off.abs() >= min - tolerance && off.abs() <= max + tolerance;
    let across = degrees_between(dy.atan2(dx).to_degrees(), theta.to_degrees());
    let up = degrees_between(rise.atan2(flat).to_degrees(), phi.to_degrees());
    let forward = (dx * theta.cos() + dy * theta.sin()) * phi.cos() + rise * phi.sin();
    let clip = numbers.forward_clip_max;
    dx.abs() + dy.abs() + rise.abs() <= f64::from(r_max)
        && (numbers.radius_min.is_nan() || distance >= numbers.radius_min)
        && arc(across, numbers.xy_arc_min, numbers.xy_arc_max)
        && arc(up, numbers.z_arc_min, numbers.z_arc_max)
        && (clip.is_nan() || clip <= 0.0 || forward <= clip + 1e-9)
}

/// Where a move can end, with the search its routes are read off (none: a teleport or a
/// jump, whose route is the start and the end).
#[derive(Clone, Debug)]
pub(crate) struct Routes {
    from: Spot,
    reach: Option<Arc<Reach>>,
    ends: SpotSet,
}

impl Routes {
    /// Where the move can end, in order.
    pub(crate) fn ends(&self) -> impl Iterator<Item = Spot> + '_ {
        self.ends.iter().copied()
    }

    /// The route to `end` (the start and the end included); None when the move cannot end there.
    pub(crate) fn path(&self, end: Spot) -> Option<Vec<Spot>> {
        if !self.ends.contains(&end) {
            return None;
        }
        match &self.reach {
            Some(reach) => reach.path_to(end),
            None => Some(vec![self.from, end]),
        }
    }
}

impl TacticsState {
    /// Whether `key` may ride `other` with `region` (§b.4 step 3): the region may mount
    /// friends (enemies); `other` has a non-zero `mountable` stat, rides nobody and carries
    /// nobody; `key` has a non-zero `canMount` stat (default 1) and carries nobody.
    pub(super) fn can_mount(&self, key: &str, other: &str, region: &Region) -> bool {
        // Asked of every unit for every region listed; most regions mount nobody.
        if !region.can_mount_friends && !region.can_mount_enemies {
            return false;
        }
        let (Some(unit), Some(mount)) = (self.units.get(key), self.units.get(other)) else { return false };
        let side_allows = if unit.team == mount.team { region.can_mount_friends } else { region.can_mount_enemies };
        side_allows
            && key != other
            && !mount.defeated
            && mount.mount.is_none()
            && self.rider_of(other).is_none()
            && self.rider_of(key).is_none()
            && self.stat(other, "mountable").is_some_and(core::truthy)
            && self.stat(key, "canMount").is_none_or(core::truthy)
    }

    /// Everyone else as `key` sees them moving with `region`: the units it may ride (and the
    /// one it rides, which it may leave) are mounts.
    /// `standing`: who stands where, already gathered.
    fn move_occupants_in(&self, standing: &Standing<'_>, key: &str, region: &Region) -> SpotMap<Occupant> {
        let mut occupants = self.occupants_in(standing, Some(key));
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

    /// Everyone else on the map as `key` sees them (a rider for its mount's spot).
    pub(super) fn occupants(&self, key: Option<&str>) -> SpotMap<Occupant> {
        self.occupants_in(&self.standing(), key)
    }

    /// [`Self::occupants`] with who stands where already gathered (a region asks it, then its
    /// targeting flags ask who stands on each spot: one gathering serves both).
    fn occupants_in(&self, standing: &Standing<'_>, key: Option<&str>) -> SpotMap<Occupant> {
        let mover = key.and_then(|key| self.units.get(key));
        let team = mover.map(|unit| unit.team.as_str());
        let own = mover.map(|unit| unit.spot);
        standing
            .iter()
            // The mover's own mount (or rider) shares its spot: that spot is the mover's.
            .filter(|(spot, _)| Some(**spot) != own)
            .map(|(spot, (_, shown))| {
                (*spot, if Some(shown.team.as_str()) == team { Occupant::Ally } else { Occupant::Enemy })
            })
            .collect()
    }

    pub(super) fn numbers(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        region: &Region,
    ) -> RegionNumbers {
        let mut eval = |expr: &Expr| eval_expr(content, self, ctx, rng, expr, 0);
        RegionNumbers {
            radius_min: eval(&region.radius_min),
            radius_max: eval(&region.radius_max),
            z_up_min: eval(&region.z_up_min),
            z_up_max: eval(&region.z_up_max),
            z_down_min: eval(&region.z_down_min),
            z_down_max: eval(&region.z_down_max),
            xy_direction: eval(&region.xy_direction),
            z_direction: eval(&region.z_direction),
            xy_arc_min: eval(&region.xy_arc_min),
            xy_arc_max: eval(&region.xy_arc_max),
            z_arc_min: eval(&region.z_arc_min),
            z_arc_max: eval(&region.z_arc_max),
            forward_clip_max: eval(&region.forward_clip_max),
            line_width_min: eval(&region.line_width_min),
            line_width_max: eval(&region.line_width_max),
            n_ways: eval(&region.n_ways),
            fly_ceiling: eval(&region.fly_ceiling),
        }
    }

    /// Where `key` can move with its move skills (the start excluded), with the skill that
    /// reaches each spot first in the unit's list.
    pub(super) fn move_spots(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        memo: &TacticsMemo,
    ) -> SpotMap<usize> {
        let Some(unit) = self.units.get(key) else { return SpotMap::new() };
        // Replaced move skills do not walk; the others in their sorted order, each spot going
        // to the first that reaches it (a stable sort keeps that one first).
        let mut spots: Vec<(Spot, usize)> = Vec::new();
        for (at, skill) in self.usable_skills(content, key, SkillKind::Move) {
            spots.extend(
                self.kept_routes(content, rng, key, (at, skill), unit.spot, memo).ends().map(|spot| (spot, at)),
            );
        }
        spots.sort_by_key(|(spot, _)| *spot);
        spots.dedup_by_key(|(spot, _)| *spot);
        SpotMap::from(spots)
    }

    /// [`Self::move_routes`] of the unit's move skill number `at` from `from` (nothing spent),
    /// answered by `memo` when it already knows them.
    pub(super) fn kept_routes(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        (at, skill): (usize, &Skill),
        from: Spot,
        memo: &TacticsMemo,
    ) -> Arc<Routes> {
        let question = Question::Routes(key.to_owned(), at, from, 0);
        let answer = memo.answer(question, rng, |rng| {
            Answer::Routes(Arc::new(self.move_routes(content, rng, key, skill, (from, 0.0))))
        });
        match answer {
            Answer::Routes(routes) => routes,
            _ => Arc::new(self.move_routes(content, rng, key, skill, (from, 0.0))),
        }
    }

    /// The move skills of `key` with their numbers in its list.
    pub(super) fn move_skills<'c>(&self, content: &'c Content, key: &str) -> Vec<(usize, &'c Skill)> {
        // A replaced move skill does not walk (skill replacement, FORMAT.md §12).
        self.usable_skills(content, key, SkillKind::Move)
    }

    /// The route of a move of `key` to `to` with its skill number `at` (start and end included).
    pub(super) fn move_path(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        (key, at): (&str, usize),
        to: Spot,
        memo: &TacticsMemo,
    ) -> Vec<Spot> {
        let Some(unit) = self.units.get(key) else { return vec![to] };
        let skill = self.skill_ids(content, key).get(at).and_then(|id| content.skill(id.as_str()));
        let Some(skill) = skill else { return vec![unit.spot, to] };
        self.kept_routes(content, rng, key, (at, skill), unit.spot, memo)
            .path(to)
            .unwrap_or_else(|| vec![unit.spot, to])
    }

    /// Where a move of `key` with the move skill `skill` can end when it sets out from `from`
    /// having already used `spent` cells of its radius (a waypointed move's later legs), each
    /// with its route (`from` and the end included). The whole target region counts (FORMAT.md
    /// §12): its shape, its space (`Path` walks and leaps, `Fly` flies, `Pick` teleports,
    /// `Line` and `Arc` jump to spots in sight or in range of a throw), its predicate and
    /// targeting flags; a move ends on nobody but a unit it may ride, and on an enemy only
    /// with `can_halt_at_enemies`.
    pub(super) fn move_routes(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        skill: &Skill,
        (from, spent): (Spot, f64),
    ) -> Routes {
        let mut routes = Routes { from, reach: None, ends: SpotSet::new() };
        let Some(unit) = self.units.get(key) else { return routes };
        let region = &skill.target_region;
        let ctx = Perspective { actor: Some(key), skill: Some(skill), ..Perspective::default() };
        let grid = &self.setup.grid;
        let standing = self.standing();
        let occupants = self.move_occupants_in(&standing, key, region);
        match region.space {
            InterveningSpace::Path | InterveningSpace::Fly => {
                let mut n = self.numbers(content, rng, ctx, region);
                n.radius_max -= spent;
                let mut params = ReachParams::movement(cells(n.radius_max), levels(n.z_up_max), levels(n.z_down_max));
                params.radius_min = cells(n.radius_min);
                params.z_up_min = levels(n.z_up_min);
                params.z_down_min = levels(n.z_down_min);
                params.use_absolute_dz = region.use_absolute_dz;
                params.can_cross_walls = region.can_cross_walls;
                params.can_cross_enemies = region.can_cross_enemies;
                params.mount_step_bonus = region.use_mounting_step_bonus;
                params.no_enter = self.no_enter_mask(region);
                let reach = if region.space == InterveningSpace::Fly {
                    let ceiling = eval_expr(content, self, ctx, rng, &region.fly_ceiling, 0);
                    let ceiling =
                        (ceiling.is_finite() && ceiling > 0.0).then(|| from.level.saturating_add(cells(ceiling)));
                    reach_fly(grid, from, &params, ceiling, &occupants).map(Arc::new)
                } else {
                    reach_path_kept(grid, from, &params, &occupants)
                };
                let Ok(reach) = reach else { return routes };
                let ends: SpotSet = reach.stops().collect();
                // The shape cut in Pick space (a flight's without the height window), then the
                // targeting flags and predicate; a cylinder is the search itself.
                let ends = if region.shape == RegionShape::Cylinder {
                    self.targeting(content, rng, ctx, region, &standing, ends)
                } else {
                    let mut open = region.clone();
                    if region.space == InterveningSpace::Fly {
                        open.z_up_min = Expr::default();
                        open.z_down_min = Expr::default();
                        open.z_up_max = Expr::new("1024");
                        open.z_down_max = Expr::new("1024");
                    }
                    let shaped = self.region_spots_in(
                        content,
                        rng,
                        ctx,
                        &open,
                        InterveningSpace::Pick,
                        (from, unit.facing, spent),
                    );
                    ends.intersection(&shaped).copied().collect()
                };
                // The routes are read off the search when one is walked (`Routes::path`).
                routes.ends = ends;
                routes.reach = Some(reach);
            }
            _ => {
                // Teleports and jumps: no path, the route is the start and the end.
                routes.ends = self.region_spots_in(content, rng, ctx, region, region.space, (from, unit.facing, spent));
            }
        }
        // Few others stand anywhere: the ends under those the move may not halt on are taken
        // out one by one, rather than asking at every end who is there.
        for (spot, occupant) in occupants.iter() {
            let halts = match occupant {
                Occupant::MountAlly => true,
                Occupant::MountEnemy => region.can_halt_at_enemies,
                Occupant::Ally | Occupant::Enemy => false,
            };
            if !halts {
                routes.ends.remove(spot);
            }
        }
        routes.ends.retain(|end| *end != from && spot_tags(grid, *end).is_some());
        routes
    }

    /// A waypointed move of `key` (FORMAT.md §12): with the first of its move skills that
    /// gets through, a move to each waypoint in turn and then to `to`, each leg setting out
    /// from the last with the radius the earlier legs left; the skill's number and the whole
    /// route. Err says which leg is out of reach.
    pub(super) fn waypoint_route(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        via: &[Spot],
        to: Spot,
    ) -> Result<(usize, Vec<Spot>), String> {
        let start = self.units.get(key).map(|unit| unit.spot).ok_or_else(|| format!("no unit `{key}`"))?;
        let skills = self.move_skills(content, key);
        let mut why = format!("{key} has no move skill");
        for (at, skill) in skills {
            let mut route = vec![start];
            let (mut from, mut spent) = (start, 0.0);
            let mut failed = None;
            for (leg, stop) in via.iter().chain([&to]).enumerate() {
                let last = leg == via.len();
                let routes = self.move_routes(content, rng, key, skill, (from, spent));
                let fits = routes.ends.contains(stop) && (last || self.unit_at(*stop).is_none());
                let Some(path) = routes.path(*stop).filter(|_| fits) else {
                    failed = Some(format!(
                        "with {}, {} ({}, {}, {}) is out of reach from ({}, {}, {}) ({} spent)",
                        skill.id,
                        if last { "the end".to_owned() } else { format!("waypoint {}", leg.saturating_add(1)) },
                        stop.cell_x,
                        stop.cell_y,
                        stop.level,
                        from.cell_x,
                        from.cell_y,
                        from.level,
                        if (spent - 1.0).abs() < f64::EPSILON { "1 cell".to_owned() } else { format!("{spent} cells") },
                    ));
                    break;
                };
                spent += if skill.target_region.space == InterveningSpace::Path {
                    walk_cost(&self.setup.grid, &path)
                } else {
                    path_cells(&path)
                };
                route.extend(path.into_iter().skip(1));
                from = *stop;
            }
            match failed {
                None => return Ok((at, route)),
                Some(reason) => why = reason,
            }
        }
        Err(why)
    }

    /// The spots of `region` around `center` facing `facing` (`spec/srpgck.md` §b.4): the
    /// shape, the intervening space, the predicate and the targeting flags.
    pub(super) fn region_spots(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        region: &Region,
        center: Spot,
        facing: f64,
    ) -> SpotSet {
        self.region_spots_in(content, rng, ctx, region, region.space, (center, facing, 0.0))
    }

    /// [`Self::region_spots`] with the intervening space `space` (subregions are cut in Pick
    /// space and their union goes through the parent's space, §b.4), `spent` cells of the
    /// radius already used (a waypointed move's later legs).
    fn region_spots_in(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        region: &Region,
        space: InterveningSpace,
        (center, facing, spent): (Spot, f64, f64),
    ) -> SpotSet {
        let mut n = self.numbers(content, rng, ctx, region);
        n.radius_max -= spent;
        let standing = self.standing();
        let spots: SpotSet = match region.shape {
            RegionShape::SelfOnly | RegionShape::Compound | RegionShape::NWay => {
                let mut all = SpotSet::new();
                if region.shape == RegionShape::SelfOnly {
                    all.insert(center);
                } else if region.shape == RegionShape::Compound {
                    for sub in &region.subregions {
                        all.extend(self.region_spots_in(
                            content,
                            rng,
                            ctx,
                            sub,
                            InterveningSpace::Pick,
                            (center, facing, spent),
                        ));
                    }
                } else {
                    let ways = cells(n.n_ways).max(1);
                    for way in 0..ways {
                        let yaw = facing + n.xy_direction + 360.0 * f64::from(way) / f64::from(ways);
                        for sub in &region.subregions {
                            all.extend(self.region_spots_in(
                                content,
                                rng,
                                ctx,
                                sub,
                                InterveningSpace::Pick,
                                (center, yaw, spent),
                            ));
                        }
                    }
                }
                let no_enter = self.no_enter_mask(region);
                let params = region_params(region, &n, 0, no_enter);
                self.through_space(region, &n, space, &params, &self.occupants_in(&standing, ctx.actor), center, all)
            }
            RegionShape::LineMove => {
                // The spots the walk (§b.8) passes, the start left out, and the units it meets.
                let direction = locked_direction(facing + n.xy_direction, region.facing_lock);
                let occupants = self.occupants_in(&standing, ctx.actor);
                let walk = line_move(&self.setup.grid, center, direction, &walk_params(region, &n), &occupants);
                let mut spots: SpotSet = walk.path.into_iter().filter(|spot| *spot != center).collect();
                spots.extend(walk.collided);
                spots
            }
            _ => self.shaped(region, &n, space, &self.occupants_in(&standing, ctx.actor), center, facing),
        };
        self.targeting(content, rng, ctx, region, &standing, spots)
    }

    /// The targeting flags and the predicate of `region` applied to `spots` (§b.4 step 3).
    fn targeting(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        region: &Region,
        standing: &Standing<'_>,
        mut spots: SpotSet,
    ) -> SpotSet {
        let actor_team = ctx.actor.and_then(|key| self.units.get(key)).map(|unit| unit.team.as_str());
        let no_enter = self.no_enter_mask(region);
        if no_enter != 0 {
            // Refused terrain is never in the region (the unit's own spot aside).
            let grid = &self.setup.grid;
            let center = ctx.actor.and_then(|key| self.units.get(key)).map(|unit| unit.spot);
            spots.retain(|spot| {
                Some(*spot) == center || spot_tags(grid, *spot).is_some_and(|tags| tags & no_enter == 0)
            });
        }
        // Few stand anywhere: the spots of those the region may not take are taken out one by
        // one, rather than asking at every spot who stands there.
        for (spot, (key, unit)) in standing.iter() {
            let allowed = if Some(*key) == ctx.actor {
                region.can_target_self
            } else {
                let same = Some(unit.team.as_str()) == actor_team;
                // A unit the actor may ride counts too (§b.4 step 3).
                let mountable = ctx.actor.is_some_and(|actor| self.can_mount(actor, key, region));
                (if same { region.can_target_friends } else { region.can_target_enemies }) || mountable
            };
            if !allowed {
                spots.remove(spot);
            }
        }
        if let Some(predicate) = &region.predicate {
            spots.retain(|spot| {
                let target = standing.get(spot).map(|(key, _)| *key);
                let point_ctx = Perspective { target, point: Some(*spot), ..ctx };
                let value = eval_expr(content, self, point_ctx, rng, predicate, 0);
                core::truthy(value)
            });
        }
        spots
    }

    /// Cylinder, sphere, line and cone shapes with their intervening space.
    fn shaped(
        &self,
        region: &Region,
        numbers: &RegionNumbers,
        space: InterveningSpace,
        occupants: &SpotMap<Occupant>,
        center: Spot,
        facing: f64,
    ) -> SpotSet {
        let grid = &self.setup.grid;
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
        let params = region_params(region, numbers, width.saturating_add(arc_bonus), self.no_enter_mask(region));
        if cylinder {
            let reach = match space {
                InterveningSpace::Path => reach_path_kept(grid, center, &params, occupants),
                InterveningSpace::Line => match &self.setup.sight {
                    Some(memo) => {
                        reach_line_kept(grid, center, &params, &sight_of(region), occupants, memo).map(Arc::new)
                    }
                    None => reach_line(grid, center, &params, &sight_of(region), occupants).map(Arc::new),
                },
                _ => reach_pick_kept(grid, center, &params, occupants),
            };
            let Ok(reach) = reach else { return SpotSet::new() };
            let radius = f64::from(cells(numbers.radius_max));
            let within = |spot: &Spot| {
                let xy = spot.xy_distance(center);
                // With the arc range bonus each spot keeps radius − rise/2.
                xy >= u32::from(params.radius_min)
                    && (arc_bonus == 0
                        || f64::from(xy) <= radius - f64::from(signed_dz(grid, center, *spot).unwrap_or(0.0)) / 2.0)
            };
            let kept = reach.nodes().filter(|node| node.can_stop || node.spot == center).map(|node| node.spot);
            let kept: SpotSet = kept.filter(within).collect();
            // Path and Line spaces were the search itself.
            return match space {
                InterveningSpace::Arc => self.arced(region, numbers, center, occupants, kept),
                InterveningSpace::Fly => self.through_space(region, numbers, space, &params, occupants, center, kept),
                _ => kept,
            };
        }
        // Lines and cones measure their height window from their axis, not from the centre,
        // so their candidates are every spot in reach, at any height (§b.4 step 1).
        let axial = matches!(region.shape, RegionShape::Line | RegionShape::Cone);
        let pool_params = if axial {
            ReachParams {
                z_up_min: 0.0,
                z_up_max: f32::INFINITY,
                z_down_min: 0.0,
                z_down_max: f32::INFINITY,
                use_absolute_dz: true,
                mount_step_bonus: false,
                ..params
            }
        } else {
            params
        };
        let Ok(pool) = reach_pick_kept(grid, center, &pool_params, occupants) else { return SpotSet::new() };
        let pool = pool.nodes().filter(|node| node.can_stop || node.spot == center).map(|node| node.spot);
        let (r_min, r_max) = (cells(numbers.radius_min), cells(numbers.radius_max));
        let theta = (facing + numbers.xy_direction).to_radians();
        let phi = numbers.z_direction.to_radians();
        let line_cells = if line_like {
            line_cells(center, (theta, phi), (r_min, r_max), (cells(numbers.line_width_min), width))
        } else {
            BTreeMap::new()
        };
        let bonus = if region.use_mounting_step_bonus { 1.0 } else { 0.0 };
        // The height window around the axis (§b.4 step 4, the step bonus included).
        let window = |offset: f64| {
            const SLACK: f64 = 1e-6;
            offset <= f64::from(levels(numbers.z_up_max)) + bonus + SLACK
                && offset >= -f64::from(levels(numbers.z_down_max)) - bonus - SLACK
                && (offset <= -f64::from(levels(numbers.z_down_min)) + SLACK
                    || offset >= f64::from(levels(numbers.z_up_min)) - SLACK)
        };
        let in_shape = |spot: Spot| {
            let rise = f64::from(signed_dz(grid, center, spot).unwrap_or(0.0));
            let dx = f64::from(spot.cell_x) - f64::from(center.cell_x);
            let dy = f64::from(spot.cell_y) - f64::from(center.cell_y);
            match region.shape {
                RegionShape::Sphere => {
                    let distance = dx.abs() + dy.abs() + rise.abs();
                    distance >= f64::from(r_min) && distance <= f64::from(r_max)
                }
                RegionShape::Line => line_cells
                    .get(&(i64::from(spot.cell_x), i64::from(spot.cell_y)))
                    .is_some_and(|axis| axis.iter().any(|height| window(rise - height))),
                _ => {
                    cone_holds(numbers, (theta, phi), [dx, dy, rise], r_max) && {
                        let distance = (dx * dx + dy * dy + rise * rise).sqrt();
                        window(rise - distance * phi.sin())
                    }
                }
            }
        };
        let shaped: SpotSet = pool.filter(|spot| in_shape(*spot)).collect();
        self.through_space(region, numbers, space, &params, occupants, center, shaped)
    }

    /// The spots of `spots` that `space` reaches from `center` (§b.4 step 2): Line space
    /// those in sight (tiles block unless the region may cross walls, enemies unless it may
    /// cross them), Path space those a path with `params` reaches, Arc space those a
    /// ballistic arc reaches; Pick space keeps them all.
    #[allow(clippy::too_many_arguments)] // the region's numbers, flags and where they apply
    fn through_space(
        &self,
        region: &Region,
        numbers: &RegionNumbers,
        space: InterveningSpace,
        params: &ReachParams,
        occupants: &SpotMap<Occupant>,
        center: Spot,
        spots: SpotSet,
    ) -> SpotSet {
        let grid = &self.setup.grid;
        match space {
            InterveningSpace::Line => {
                let sight = sight_of(region);
                spots.into_iter().filter(|spot| line_reaches(grid, center, *spot, params, &sight, occupants)).collect()
            }
            InterveningSpace::Path => {
                let Ok(walk) = reach_path_kept(grid, center, params, occupants) else { return SpotSet::new() };
                spots.into_iter().filter(|spot| walk.get(*spot).is_some()).collect()
            }
            InterveningSpace::Arc => self.arced(region, numbers, center, occupants, spots),
            InterveningSpace::Fly => {
                let ceiling = (numbers.fly_ceiling.is_finite() && numbers.fly_ceiling > 0.0)
                    .then(|| center.level.saturating_add(cells(numbers.fly_ceiling)));
                let Ok(flight) = reach_fly(grid, center, params, ceiling, occupants) else { return SpotSet::new() };
                spots.into_iter().filter(|spot| flight.get(*spot).is_some()).collect()
            }
            InterveningSpace::Pick | InterveningSpace::LineMove => spots,
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
        occupants: &SpotMap<Occupant>,
        spots: SpotSet,
    ) -> SpotSet {
        let grid = &self.setup.grid;
        let range = numbers.radius_max.max(numbers.line_width_max);
        let range = if range.is_finite() { range.max(0.0) as f32 } else { 0.0 };
        let blockers: Vec<Spot> = if region.can_cross_enemies {
            Vec::new()
        } else {
            occupants.iter().filter(|(_, occupant)| **occupant == Occupant::Enemy).map(|(spot, _)| *spot).collect()
        };
        let sight = sight_of(region);
        spots
            .into_iter()
            .filter(|spot| *spot == center || arc_shot(grid, center, *spot, range, &sight, &blockers).is_some())
            .collect()
    }

    /// The tag bits of `region`'s `no_enter_tags` on the battle's grid.
    fn no_enter_mask(&self, region: &Region) -> u64 {
        self.setup.grid.tag_mask(region.no_enter_tags.iter().map(String::as_str))
    }

    /// [`Self::target_spots`] of one of the unit's own action skills, answered by `memo` when it
    /// already knows them.
    pub(super) fn kept_targets(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        skill: &Skill,
        memo: &TacticsMemo,
    ) -> Arc<SpotSet> {
        let answer = memo.answer(Question::Targets(key.to_owned(), skill.id.clone()), rng, |rng| {
            Answer::Targets(Arc::new(self.target_spots(content, rng, key, skill)))
        });
        match answer {
            Answer::Targets(spots) => spots,
            _ => Arc::new(self.target_spots(content, rng, key, skill)),
        }
    }

    /// Where `key` can aim `skill` now.
    pub(super) fn target_spots(&self, content: &Content, rng: &mut Pcg64Mcg, key: &str, skill: &Skill) -> SpotSet {
        let Some(unit) = self.units.get(key) else { return SpotSet::new() };
        let ctx = Perspective { actor: Some(key), skill: Some(skill), ..Perspective::default() };
        self.region_spots(content, rng, ctx, &skill.target_region, unit.spot, unit.facing)
    }

    /// The action skills of `key` it can use (not replaced, not passive; its own, then those its
    /// equipment grants), grouped and sorted.
    pub(super) fn action_skills<'c>(&self, content: &'c Content, key: &str) -> Vec<&'c Skill> {
        self.usable_skills(content, key, SkillKind::Action)
            .into_iter()
            .map(|(_, skill)| skill)
            .filter(|skill| !is_passive(skill))
            .collect()
    }
}

/// A skill that only reacts or changes stats (SRPGCK's plain Skill, no action): no hit types,
/// and a reaction or passive effects. It is never a choice.
pub(super) fn is_passive(skill: &Skill) -> bool {
    skill.hit_types.is_empty() && (skill.reaction.is_some() || !skill.passive_effects.is_empty())
}
