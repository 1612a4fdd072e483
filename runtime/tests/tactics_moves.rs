//! Every movement kind of FORMAT.md §12 on small hand-built maps: walks, teleports (Pick
//! space), flights (Fly space, under a ceiling), the move region's shape, predicate and
//! targeting flags, and waypointed moves. Pictures are rows y, columns x; a digit is the level
//! of a spot the unit can move to, `.` none.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session, Subject};
use actforge_runtime::model::{
    Column, Expr, Id, InterveningSpace, Placement, Project, Region, RegionShape, Skill, SkillKind, Tile, TileMap, Unit,
};

/// A `width` × `depth` map of floor cubes (standing level 1) unless `stacks` says how many
/// cubes a column has (0: a pit); unit `a` (team blue, its turn first) at `at` with the move
/// skill `probe`; `others` are (id, team, cell).
struct Scene {
    width: u16,
    depth: u16,
    stacks: Vec<((u16, u16), u16)>,
    at: (u16, u16),
    others: Vec<(&'static str, &'static str, (u16, u16))>,
}

impl Scene {
    fn flat(width: u16, depth: u16, at: (u16, u16)) -> Self {
        Self { width, depth, stacks: Vec::new(), at, others: Vec::new() }
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
        let mut project = Project::new("moves");
        let stacks: BTreeMap<(u16, u16), u16> = self.stacks.iter().copied().collect();
        let mut columns = Vec::new();
        for y in 0..self.depth {
            for x in 0..self.width {
                let cubes = stacks.get(&(x, y)).copied().unwrap_or(1);
                if cubes > 0 {
                    columns.push(Arc::new(Column { x, y, tiles: (0..cubes).map(Tile::cube).collect() }));
                }
            }
        }
        let place = |unit: &str, (x, y): (u16, u16)| Placement {
            unit: Id::new(unit),
            team: String::new(),
            x,
            y,
            z: None,
            facing_degrees: 0.0,
        };
        let mut placements = vec![place("a", self.at)];
        placements.extend(self.others.iter().map(|(id, _, cell)| place(id, *cell)));
        project.tile_maps.insert(TileMap {
            id: Id::new("board"),
            width: self.width,
            depth: self.depth,
            columns,
            placements,
            ..TileMap::default()
        });
        let stats = |ct: &str| -> BTreeMap<String, Expr> {
            [("hp", "20"), ("ct", ct), ("speed", "1"), ("perTileCT", "5")]
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
            kind: SkillKind::Move,
            target_region: region,
            ..Skill::default()
        });
        project.manifest.entry.tile_map = Some(Id::new("board"));
        project
    }

    fn session(&self, region: Region) -> Session {
        let session = Session::new(self.project(region), 1).unwrap();
        assert_eq!(session.tactics().unwrap().active_unit(), Some("a"));
        session
    }

    /// Where `a` can move with `region`.
    fn spots(&self, region: Region) -> BTreeSet<(u16, u16, u16)> {
        self.session(region)
            .choices()
            .into_iter()
            .filter_map(|choice| match choice {
                Choice::MoveUnit { x, y, z, .. } => Some((x, y, z)),
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

fn region(space: InterveningSpace, radius: &str) -> Region {
    Region { space, radius_max: n(radius), z_up_max: n("1"), z_down_max: n("1"), ..Region::default() }
}

#[test]
fn a_walk_stops_at_a_wall_and_a_teleport_in_pick_space_lands_beyond_it() {
    // A wall 4 cubes high (standing level 4) down x = 2: too high to climb or to land on.
    let scene = Scene::flat(5, 3, (0, 1)).wall(2, 4);
    let walk = scene.spots(region(InterveningSpace::Path, "3"));
    assert_eq!(walk, picture(&["11...", ".1...", "11..."]));
    let teleport = scene.spots(region(InterveningSpace::Pick, "3"));
    assert_eq!(teleport, picture(&["11...", ".1.1.", "11..."]));
}

#[test]
fn a_flight_rises_over_a_wall_only_under_a_high_enough_ceiling() {
    // The wall's top is a standing spot at level 3; the far side is at level 1.
    let scene = Scene::flat(5, 3, (0, 1)).wall(2, 3);
    let fly = |ceiling: &str| Region { fly_ceiling: n(ceiling), ..region(InterveningSpace::Fly, "4") };
    // No ceiling: over the wall (its top too, whatever z_up_max says), 4 cells of travel.
    assert_eq!(scene.spots(fly("0")), picture(&["1131.", ".1311", "1131."]));
    // Feet at most 1 level above the start (level 2): the wall (top 3) cannot be crossed.
    assert_eq!(scene.spots(fly("1")), picture(&["11...", ".1...", "11..."]));
    // Up to level 3: over it, standing on it too.
    assert_eq!(scene.spots(fly("2")), picture(&["1131.", ".1311", "1131."]));
}

#[test]
fn a_flight_crosses_pits_and_passes_over_enemies() {
    // A pit (no tiles) at x = 1; an enemy at (3, 0) in a corridor one cell deep.
    let scene = Scene::flat(5, 1, (0, 0)).stack((1, 0), 0).with("foe", "red", (3, 0));
    // z_down_max 2: leaps of one cell.
    let walk = Region { can_cross_enemies: false, z_down_max: n("2"), ..region(InterveningSpace::Path, "4") };
    assert_eq!(scene.spots(walk), picture(&["..1.."]), "a walk leaps the pit, then the enemy blocks");
    let fly = Region { can_cross_enemies: false, ..region(InterveningSpace::Fly, "4") };
    assert_eq!(scene.spots(fly), picture(&["..1.1"]), "a flight goes over the pit and over the enemy");
}

#[test]
fn a_move_region_keeps_its_shape_predicate_and_never_lands_on_a_unit() {
    let scene = Scene::flat(5, 5, (2, 2)).with("pal", "blue", (2, 0)).with("foe", "red", (4, 2));
    // A cross: a line of 1..2 cells along each of the four ways, in Path space.
    let line = Region {
        shape: RegionShape::NWay,
        space: InterveningSpace::Path,
        radius_max: n("2"),
        z_up_max: n("1"),
        z_down_max: n("1"),
        n_ways: n("4"),
        subregions: vec![Region {
            shape: RegionShape::Line,
            radius_min: n("1"),
            radius_max: n("2"),
            ..Region::default()
        }],
        ..Region::default()
    };
    // The ally's and the enemy's spots are never moved to.
    assert_eq!(scene.spots(line.clone()), picture(&[".....", "..1..", "11.1.", "..1..", "..1.."]));
    // A predicate keeps row y = 2 only; a teleport in Pick space keeps it too.
    let row = Region { predicate: Some(n("arg.y == 2")), ..line };
    assert_eq!(scene.spots(row), picture(&["", "", "11.1."]));
    let teleport = Region { predicate: Some(n("arg.y == 2")), ..region(InterveningSpace::Pick, "2") };
    assert_eq!(scene.spots(teleport), picture(&["", "", "11.1."]));
}

#[test]
fn a_teleport_costs_ct_by_the_cells_it_spans_and_faces_where_it_went() {
    let scene = Scene::flat(5, 3, (0, 1)).wall(2, 4);
    let mut session = scene.session(region(InterveningSpace::Pick, "3"));
    let events = session.apply(&Choice::MoveUnit { unit: "a".to_owned(), x: 3, y: 1, z: 1 }).unwrap();
    assert!(events.iter().any(|event| matches!(event, Event::UnitMoved { steps: 3, to: [3, 1, 1], .. })), "{events:?}");
}

#[test]
fn a_waypointed_move_follows_its_waypoints_within_the_radius() {
    let scene = Scene::flat(5, 5, (0, 0));
    let walk = region(InterveningSpace::Path, "4");
    let moved = |via: Vec<[u16; 3]>| {
        let mut session = scene.session(walk.clone());
        let choice = Choice::MoveUnitVia { unit: "a".to_owned(), via, x: 2, y: 2, z: 1 };
        session.apply(&choice).map(|events| {
            let facing = session.tactics().unwrap().unit("a").unwrap().facing;
            let steps = events.iter().find_map(|event| match event {
                Event::UnitMoved { steps, .. } => Some(*steps),
                _ => None,
            });
            (facing, steps, session.tactics().unwrap().unit("a").unwrap().stats.get("ct").copied())
        })
    };
    // Up the y axis first: the last step is +x (east).
    assert_eq!(moved(vec![[0, 2, 1]]), Ok((0.0, Some(4), Some(100.0 - 30.0 - 20.0))));
    // Along x first: the last step is +y (north).
    assert_eq!(moved(vec![[2, 0, 1]]), Ok((90.0, Some(4), Some(50.0))));
    // Two waypoints, the second on the first leg's way back is fine while the radius lasts.
    assert_eq!(moved(vec![[1, 0, 1], [1, 2, 1]]), Ok((0.0, Some(4), Some(50.0))));
    // 3 cells to (0, 3), then 3 more: the radius (4) is spent.
    let refused = moved(vec![[0, 3, 1]]).unwrap_err().to_string();
    assert!(refused.contains("the end (2, 2, 1) is out of reach from (0, 3, 1) (3 cells spent)"), "{refused}");
    let refused = moved(vec![[4, 4, 1]]).unwrap_err().to_string();
    assert!(refused.contains("waypoint 1 (4, 4, 1) is out of reach"), "{refused}");
}

#[test]
fn why_not_a_waypointed_move_names_the_leg_that_is_out_of_reach() {
    let scene = Scene::flat(5, 5, (0, 0));
    let session = scene.session(region(InterveningSpace::Path, "4"));
    let subject = session.parse_subject("move:a:2,2,1:via:0,3,1").unwrap();
    let via = vec![(0, 3, 1)];
    assert_eq!(subject, Subject::Move { unit: "a".to_owned(), at: (2, 2, 1), via });
    let why = session.explain(&subject).unwrap();
    assert_eq!(why.len(), 1, "{why:?}");
    assert_eq!(
        why[0].to_string(),
        "move of a to (2, 2, 1) via (0, 3, 1): with probe, the end (2, 2, 1) is out of reach from (0, 3, 1) (3 cells spent)"
    );
    // Through (0, 2, 1) the same end is in reach: nothing to explain.
    assert!(session.explain(&session.parse_subject("move:a:2,2,1:via:0,2,1").unwrap()).unwrap().is_empty());
    let error = session.parse_subject("move:a:2,2,1:over:0,2,1").unwrap_err();
    assert!(error.contains("only `:via:X,Y,Z` waypoints follow"), "{error}");
}
