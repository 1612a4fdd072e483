//! Every region shape and field of FORMAT.md §12 on small hand-built maps: the exact spots a
//! skill can be aimed at, drawn as pictures (row y, column x; a digit is the level of the
//! spot that can be aimed at, `.` none).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Session};
use actforge_runtime::model::{
    Column, Expr, HitType, Id, InterveningSpace, Placement, Project, Region, RegionShape, Skill, Tile, TileMap, Unit,
};

/// A `width` × `depth` map: every column a floor cube (standing level 1) unless `stacks`
/// gives it another number of cubes; unit `a` (team blue, its turn first) at `at` facing
/// `facing` with the skill `probe` aimed over `region`; `others` are (id, team, cell).
struct Scene {
    width: u16,
    depth: u16,
    stacks: Vec<((u16, u16), u16)>,
    at: (u16, u16),
    facing: f32,
    others: Vec<(&'static str, &'static str, (u16, u16))>,
}

impl Scene {
    fn flat(width: u16, depth: u16, at: (u16, u16)) -> Self {
        Self { width, depth, stacks: Vec::new(), at, facing: 0.0, others: Vec::new() }
    }

    fn stack(mut self, cell: (u16, u16), cubes: u16) -> Self {
        self.stacks.push((cell, cubes));
        self
    }

    /// A wall of `cubes` cubes along column x = `x`.
    fn wall(mut self, x: u16, cubes: u16) -> Self {
        for y in 0..self.depth {
            self.stacks.push(((x, y), cubes));
        }
        self
    }

    fn with(mut self, id: &'static str, team: &'static str, cell: (u16, u16)) -> Self {
        self.others.push((id, team, cell));
        self
    }

    fn project(&self, region: Region) -> Project {
        let mut project = Project::new("regions");
        let stacks: BTreeMap<(u16, u16), u16> = self.stacks.iter().copied().collect();
        let mut columns = Vec::new();
        for y in 0..self.depth {
            for x in 0..self.width {
                let cubes = stacks.get(&(x, y)).copied().unwrap_or(1);
                columns.push(Arc::new(Column { x, y, tiles: (0..cubes).map(Tile::cube).collect() }));
            }
        }
        let place = |unit: &str, (x, y): (u16, u16), facing_degrees: f32| Placement {
            unit: Id::new(unit),
            team: String::new(),
            x,
            y,
            z: None,
            facing_degrees,
        };
        let mut placements = vec![place("a", self.at, self.facing)];
        placements.extend(self.others.iter().map(|(id, _, cell)| place(id, *cell, 0.0)));
        project.tile_maps.insert(TileMap {
            id: Id::new("board"),
            width: self.width,
            depth: self.depth,
            columns,
            placements,
            ..TileMap::default()
        });
        let stats = |ct: &str| -> BTreeMap<String, Expr> {
            [("hp", "20"), ("ct", ct), ("speed", "1")]
                .iter()
                .map(|(name, value)| ((*name).to_owned(), Expr::new(*value)))
                .collect()
        };
        project.units.insert(Unit {
            id: Id::new("a"),
            team: "blue".to_owned(),
            stats: stats("100"),
            skills: vec![Id::new("probe")],
            ..Unit::default()
        });
        for (id, team, _) in &self.others {
            project.units.insert(Unit {
                id: Id::new(*id),
                team: (*team).to_owned(),
                stats: stats("0"),
                ..Unit::default()
            });
        }
        project.skills.insert(Skill {
            id: Id::new("probe"),
            target_region: region,
            hit_types: vec![HitType { label: "Hit".to_owned(), ..HitType::default() }],
            ..Skill::default()
        });
        project.manifest.entry.tile_map = Some(Id::new("board"));
        project
    }

    /// Where `a` can aim `probe` with `region`.
    fn spots(&self, region: Region) -> BTreeSet<(u16, u16, u16)> {
        let session = Session::new(self.project(region), 1).unwrap();
        assert_eq!(session.tactics().unwrap().active_unit(), Some("a"));
        session
            .choices()
            .into_iter()
            .filter_map(|choice| match choice {
                Choice::UseSkill { skill, x, y, z, .. } if skill.as_str() == "probe" => Some((x, y, z)),
                _ => None,
            })
            .collect()
    }
}

/// The spots a picture shows (row y, column x; a digit is a level).
fn picture(rows: &[&str]) -> BTreeSet<(u16, u16, u16)> {
    let mut spots = BTreeSet::new();
    for (y, row) in rows.iter().enumerate() {
        for (x, mark) in row.chars().enumerate() {
            if let Some(level) = mark.to_digit(10) {
                spots.insert((x as u16, y as u16, level as u16));
            }
        }
    }
    spots
}

fn n(value: &str) -> Expr {
    Expr::new(value)
}

#[test]
fn a_cylinder_keeps_the_diamond_between_its_radii_inside_its_height_window() {
    // (4, 3) is one level up (kept: z_up_max 1), (1, 3) two (left out).
    let scene = Scene::flat(7, 7, (3, 3)).stack((4, 3), 2).stack((1, 3), 3);
    let region = Region { radius_min: n("1"), radius_max: n("2"), z_up_max: n("1"), ..Region::default() };
    let expected = picture(&["", "...1", "..111", "..1.21", "..111", "...1"]);
    assert_eq!(scene.spots(region), expected);
}

#[test]
fn line_space_is_blocked_by_tiles_only_when_walls_cannot_be_crossed() {
    // A wall four cubes tall along x = 4; its top is outside the height window.
    let scene = Scene::flat(7, 7, (2, 3)).wall(4, 4);
    let region = |can_cross_walls: bool| Region {
        space: InterveningSpace::Line,
        radius_min: n("1"),
        radius_max: n("3"),
        can_cross_walls,
        ..Region::default()
    };
    let hidden = picture(&["..1", ".111", "1111", "11.1", "1111", ".111", "..1"]);
    assert_eq!(scene.spots(region(false)), hidden);
    // SRPGCK's default (can_cross_walls on) sees through walls (§b.7); before, tiles always blocked.
    let mut through = hidden;
    through.insert((5, 3, 1));
    assert_eq!(scene.spots(region(true)), through);
    // Path space walks around nothing here: the wall cannot be climbed, so the same spots.
    let path = Region { space: InterveningSpace::Path, ..region(true) };
    assert_eq!(scene.spots(path), picture(&["..1", ".111", "1111", "11.1", "1111", ".111", "..1"]));
}

#[test]
fn arc_space_flies_over_walls_only_when_they_may_be_crossed() {
    // A wall ten cubes tall: no arc of range 3 clears it.
    let scene = Scene::flat(7, 7, (2, 3)).wall(4, 10);
    let region = |can_cross_walls: bool| Region {
        space: InterveningSpace::Arc,
        radius_min: n("1"),
        radius_max: n("3"),
        can_cross_walls,
        ..Region::default()
    };
    let hidden = picture(&["..1", ".111", "1111", "11.1", "1111", ".111", "..1"]);
    assert_eq!(scene.spots(region(false)), hidden);
    let mut through = hidden;
    through.insert((5, 3, 1));
    assert_eq!(scene.spots(region(true)), through);
}

#[test]
fn a_sphere_counts_rises_as_distance() {
    // (4, 3) is two levels up: 1 + 2 = 3 away, outside radius 2; (3, 4) one up: 2 away.
    let scene = Scene::flat(7, 7, (3, 3)).stack((4, 3), 3).stack((3, 4), 2);
    let sphere = Region {
        shape: RegionShape::Sphere,
        radius_max: n("2"),
        z_up_max: n("2"),
        z_down_max: n("2"),
        ..Region::default()
    };
    assert_eq!(scene.spots(sphere.clone()), picture(&["", "...1", "..111", ".111.1", "..121", "...1"]));
    // The cylinder of the same radius keeps (4, 3).
    let cylinder = Region { shape: RegionShape::Cylinder, ..sphere };
    assert_eq!(scene.spots(cylinder), picture(&["", "...1", "..111", ".11131", "..121", "...1"]));
}

#[test]
fn every_shape_in_line_space_stops_at_an_enemy_that_cannot_be_crossed() {
    // A strip: a at x = 1, enemy b at x = 3. Before, a Sphere in Line space aimed through b.
    let scene = Scene::flat(7, 1, (1, 0)).with("b", "red", (3, 0));
    for shape in [RegionShape::Cylinder, RegionShape::Sphere, RegionShape::Cone, RegionShape::Line] {
        let region = Region {
            shape,
            space: InterveningSpace::Line,
            radius_max: n("4"),
            xy_arc_max: n("180"),
            line_width_max: n("0"),
            can_cross_enemies: false,
            can_target_self: false,
            ..Region::default()
        };
        let expected: BTreeSet<_> = match shape {
            // The line runs east only, from the unit's facing.
            RegionShape::Line => picture(&["..11"]),
            _ => picture(&["1.11"]),
        };
        assert_eq!(scene.spots(region.clone()), expected, "{shape:?}");
        let crossing = Region { can_cross_enemies: true, ..region };
        let expected = match shape {
            RegionShape::Line => picture(&["..1111"]),
            _ => picture(&["1.1111"]),
        };
        assert_eq!(scene.spots(crossing), expected, "{shape:?} crossing enemies");
    }
}

#[test]
fn a_line_runs_along_the_facing_with_its_width_and_height_window() {
    // (4, 4) is one level up: outside the window of 0.
    let scene = Scene::flat(7, 7, (1, 3)).stack((4, 4), 2);
    let line = Region {
        shape: RegionShape::Line,
        radius_min: n("1"),
        radius_max: n("4"),
        line_width_max: n("1"),
        ..Region::default()
    };
    assert_eq!(scene.spots(line.clone()), picture(&["", "", "..1111", "..1111", "..11.1"]));
    let sides = Region { line_width_min: n("1"), ..line.clone() };
    assert_eq!(scene.spots(sides), picture(&["", "", "..1111", "", "..11.1"]));
    // xy_direction turns the line from the facing: 90° is north (+y).
    let north = Region { xy_direction: n("90"), line_width_max: n("0"), ..line };
    assert_eq!(scene.spots(north), picture(&["", "", "", "", ".1", ".1", ".1"]));
}

#[test]
fn z_direction_tilts_a_line_and_its_height_window_follows_the_axis() {
    // A staircase east of a: x = 2, 3, 4, 5 stand at levels 2, 3, 4, 5.
    let scene = Scene::flat(7, 7, (1, 3)).wall(2, 2).wall(3, 3).wall(4, 4).wall(5, 5);
    let line = |z_direction: &str| Region {
        shape: RegionShape::Line,
        radius_min: n("1"),
        radius_max: n("4"),
        z_direction: n(z_direction),
        z_up_max: n("1"),
        z_down_max: n("1"),
        ..Region::default()
    };
    // 45° up: four steps of 0.71 cells and 0.71 levels reach x = 2, 2, 3, 4 (axis 0.7, 1.4,
    // 2.1, 2.8 levels up), each step of the stair within a level of the axis.
    assert_eq!(scene.spots(line("45")), picture(&["", "", "", "..234"]));
    // Level: only the first step is within a level of the centre.
    assert_eq!(scene.spots(line("0")), picture(&["", "", "", "..2"]));
}

#[test]
fn a_cone_keeps_its_arc_its_forward_clip_and_its_z_arc() {
    let scene = Scene::flat(9, 9, (4, 4));
    let cone = Region {
        shape: RegionShape::Cone,
        radius_min: n("1"),
        radius_max: n("3"),
        xy_arc_max: n("45"),
        ..Region::default()
    };
    // Within 45° of east (plus half a cell of tolerance: (5, 5) at 45° is in, (5, 6) at 63° out).
    assert_eq!(scene.spots(cone.clone()), picture(&["", "", "", ".....11", ".....111", ".....11"]));
    // forward_clip_max: no further than 1 cell along the axis.
    let clipped = Region { forward_clip_max: n("1"), ..cone.clone() };
    assert_eq!(scene.spots(clipped), picture(&["", "", "", ".....1", ".....1", ".....1"]));
    // xy_arc_min: a hollow cone (the axis itself left out).
    let hollow = Region { xy_arc_min: n("30"), ..cone.clone() };
    assert_eq!(scene.spots(hollow), picture(&["", "", "", ".....11", "", ".....11"]));
    // (6, 4) one level up is 26.6° above the centre: only a z arc of 20° (+12.8° tolerance)
    // takes it in; the height window must allow it too.
    let hill = Scene::flat(9, 9, (4, 4)).stack((6, 4), 2);
    let flat_only = Region { z_up_max: n("1"), ..cone.clone() };
    assert_eq!(hill.spots(flat_only.clone()), picture(&["", "", "", ".....11", ".....1.1", ".....11"]));
    let sloped = Region { z_arc_max: n("20"), ..flat_only };
    assert_eq!(hill.spots(sloped), picture(&["", "", "", ".....11", ".....121", ".....11"]));
    assert_eq!(
        hill.spots(Region { z_arc_max: n("20"), ..cone }),
        picture(&["", "", "", ".....11", ".....1.1", ".....11"])
    );
}

#[test]
fn z_direction_aims_a_cone_down_a_cliff() {
    // a stands on three cubes (level 3) above a floor at level 1.
    let scene = Scene::flat(9, 9, (4, 4)).stack((4, 4), 3);
    let cone = |z_direction: &str| Region {
        shape: RegionShape::Cone,
        radius_min: n("1"),
        radius_max: n("4"),
        z_direction: n(z_direction),
        z_up_max: n("1"),
        z_down_max: n("1"),
        ..Region::default()
    };
    // 45° down: (6, 4) is 2 cells out and 2 levels down, on the axis.
    assert_eq!(scene.spots(cone("-45")), picture(&["", "", "", "", "......1"]));
    // Level, everything below is two levels under the axis.
    assert_eq!(scene.spots(cone("0")), BTreeSet::new());
}

#[test]
fn n_way_copies_its_subregions_around_the_unit() {
    let scene = Scene::flat(7, 7, (3, 3));
    let ahead = Region { shape: RegionShape::Line, radius_min: n("2"), radius_max: n("2"), ..Region::default() };
    let four =
        Region { shape: RegionShape::NWay, n_ways: n("4"), subregions: vec![ahead.clone()], ..Region::default() };
    assert_eq!(scene.spots(four), picture(&["", "...1", "", ".1...1", "", "...1"]));
    // Two ways turned 45°: (3 + 2·0.71, 3 + 2·0.71) rounds to (4, 4), the other way to (2, 2).
    let two = Region {
        shape: RegionShape::NWay,
        n_ways: n("2"),
        xy_direction: n("45"),
        subregions: vec![ahead],
        ..Region::default()
    };
    assert_eq!(scene.spots(two), picture(&["", "", "..1", "", "....1"]));
}

#[test]
fn a_compound_is_the_union_of_its_parts_in_pick_space_then_its_own_space() {
    // A wall three cubes tall at (5, 3), outside every height window.
    let scene = Scene::flat(7, 7, (3, 3)).stack((5, 3), 3);
    let far = Region {
        shape: RegionShape::Line,
        // Its own space is ignored inside a compound (§b.4).
        space: InterveningSpace::Line,
        can_cross_walls: false,
        radius_min: n("2"),
        radius_max: n("3"),
        ..Region::default()
    };
    let near = Region { radius_min: n("1"), radius_max: n("1"), ..Region::default() };
    let compound = Region { shape: RegionShape::Compound, subregions: vec![far, near], ..Region::default() };
    assert_eq!(scene.spots(compound.clone()), picture(&["", "", "...1", "..1.1.1", "...1"]));
    let in_sight = Region { space: InterveningSpace::Line, can_cross_walls: false, ..compound };
    assert_eq!(scene.spots(in_sight), picture(&["", "", "...1", "..1.1", "...1"]));
}

#[test]
fn self_only_is_the_unit_itself() {
    let scene = Scene::flat(5, 5, (2, 2));
    let own = Region { shape: RegionShape::SelfOnly, ..Region::default() };
    assert_eq!(scene.spots(own.clone()), BTreeSet::from([(2, 2, 1)]));
    assert_eq!(scene.spots(Region { can_target_self: false, ..own }), BTreeSet::new());
}

#[test]
fn a_predicate_and_the_targeting_flags_filter_any_shape() {
    // An ally west, an enemy east.
    let scene = Scene::flat(7, 7, (3, 3)).with("c", "blue", (2, 3)).with("b", "red", (4, 3));
    let around = Region { radius_max: n("2"), ..Region::default() };
    assert_eq!(scene.spots(around.clone()), picture(&["", "...1", "..111", ".11111", "..111", "...1"]));
    let enemies = Region { can_target_friends: false, can_target_self: false, ..around.clone() };
    assert_eq!(scene.spots(enemies), picture(&["", "...1", "..111", ".1..11", "..111", "...1"]));
    // Only empty spots east of the centre column.
    let east_and_empty = Region { predicate: Some(n("t.isNull and arg.x >= 3")), ..around };
    assert_eq!(scene.spots(east_and_empty), picture(&["", "...1", "...11", ".....1", "...11", "...1"]));
}
