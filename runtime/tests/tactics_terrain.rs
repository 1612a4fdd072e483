//! Terrain (FORMAT.md §9 "Terrain", §12): palette entries give the tiles whose top they paint
//! a move cost, a defence number and tags; walks spend the cost, regions refuse tags, and
//! formulas read `c.tile.*`, `t.tile.*` and `arg.tile.*`. Pictures are rows y, columns x; a
//! digit is the level of a spot the unit can move to, `.` none; in a ground plan `m` is mud
//! (cost 2, defence 3) and `w` water (tag `water`), anything else plain floor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: small exact numbers

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::model::{
    Column, Expr, Faces, HitType, Id, InterveningSpace, Paint, PaletteEntry, Placement, Project, Region, Skill,
    SkillKind, StatEffect, Terrain, Tile, TileMap, Unit,
};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::validate;

const MUD: &str = "mud";
const WATER: &str = "water";

fn palette() -> Vec<PaletteEntry> {
    vec![
        PaletteEntry {
            id: MUD.into(),
            label: "mud".to_owned(),
            terrain: Terrain { move_cost: 2, defence: 3.0, tags: vec!["mud".to_owned()] },
            ..PaletteEntry::default()
        },
        PaletteEntry {
            id: WATER.into(),
            label: "water".to_owned(),
            terrain: Terrain { tags: vec!["water".to_owned()], ..Terrain::default() },
            ..PaletteEntry::default()
        },
    ]
}

/// A floor cube whose top is painted with `paint`.
fn floor(paint: Option<&str>) -> Tile {
    Tile { paint: Faces { top: paint.map(|id| Paint::new(id, 0)), ..Faces::default() }, ..Tile::cube(0) }
}

/// A one-level floor laid out by `plan` (rows y; `m` mud, `w` water, else plain); unit `a`
/// (blue, first) at `at` with the move skill `walk` (region `walk`) and the action `hit`
/// (adjacent, hp − (10 − t.tile.defence)); `b` (red) at `foe`.
fn project(plan: &[&str], at: (u16, u16), foe: (u16, u16), walk: Region) -> Project {
    let mut project = Project::new("terrain");
    let mut columns = Vec::new();
    for (y, row) in plan.iter().enumerate() {
        for (x, mark) in row.chars().enumerate() {
            let paint = match mark {
                'm' => Some(MUD),
                'w' => Some(WATER),
                _ => None,
            };
            columns.push(Arc::new(Column { x: x as u16, y: y as u16, tiles: vec![floor(paint)] }));
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
    project.tile_maps.insert(TileMap {
        id: Id::new("marsh"),
        width: plan.first().map_or(1, |row| row.len() as u16),
        depth: plan.len() as u16,
        palette: palette(),
        columns,
        placements: vec![place("a", at), place("b", foe)],
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
        skills: vec![Id::new("walk"), Id::new("hit")],
        ..Unit::default()
    });
    project.units.insert(Unit { id: Id::new("b"), team: "red".to_owned(), stats: stats("0"), ..Unit::default() });
    project.skills.insert(Skill {
        id: Id::new("walk"),
        kind: SkillKind::Move,
        target_region: walk,
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("hit"),
        target_region: Region { radius_min: n("1"), radius_max: n("1"), ..Region::default() },
        hit_types: vec![HitType {
            stat_effects: vec![StatEffect {
                stat: "hp".to_owned(),
                value: n("-(10 - t.tile.defence) - c.tile.tag.water"),
                ..StatEffect::default()
            }],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.manifest.entry.tile_map = Some(Id::new("marsh"));
    project
}

fn n(value: &str) -> Expr {
    Expr::new(value)
}

fn walk(radius: &str) -> Region {
    Region {
        space: InterveningSpace::Path,
        radius_max: n(radius),
        z_up_max: n("1"),
        z_down_max: n("1"),
        can_cross_enemies: false,
        ..Region::default()
    }
}

fn session(project: Project) -> Session {
    let session = Session::new(project, 1).unwrap();
    assert_eq!(session.tactics().unwrap().active_unit(), Some("a"));
    session
}

/// Where `a` can move.
fn spots(session: &Session) -> BTreeSet<(u16, u16, u16)> {
    session
        .choices()
        .into_iter()
        .filter_map(|choice| match choice {
            Choice::MoveUnit { x, y, z, .. } => Some((x, y, z)),
            _ => None,
        })
        .collect()
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

#[test]
fn a_walk_spends_each_entered_tiles_move_cost() {
    // A band of mud down x = 2 (cost 2 to enter): radius 3 from (0, 2) reaches x = 2 on
    // its row only (1 + 2) and never beyond it; plain ground elsewhere costs 1 a step.
    let plan = ["..m..", "..m..", "..m..", "..m..", "..m.."];
    let scene = session(project(&plan, (0, 2), (4, 4), walk("3")));
    assert_eq!(spots(&scene), picture(&["11...", "11...", ".11..", "11...", "11..."]));
    // Radius 4: one cell past the mud on the start's row, the mud one row either side.
    let scene = session(project(&plan, (0, 2), (4, 4), walk("4")));
    assert_eq!(spots(&scene), picture(&["11...", "111..", ".111.", "111..", "11..."]));
    // The same map unpainted: a plain diamond of radius 3.
    let plain = [".....", ".....", ".....", ".....", "....."];
    let scene = session(project(&plain, (0, 2), (4, 4), walk("3")));
    assert_eq!(spots(&scene), picture(&["11...", "111..", ".111.", "111..", "11..."]));
}

#[test]
fn a_walk_goes_round_mud_when_that_is_cheaper() {
    // Straight through three mud cells costs 2 + 2 + 2 + 1 = 7; round them on row 1, 6 steps.
    let plan = [".mmm.", ".....", "....."];
    let mut scene = session(project(&plan, (0, 0), (4, 2), walk("6")));
    assert!(spots(&scene).contains(&(4, 0, 1)));
    let events = scene.apply(&Choice::MoveUnit { unit: "a".to_owned(), x: 4, y: 0, z: 1 }).unwrap();
    assert!(
        events.iter().any(|event| matches!(event, Event::UnitMoved { to: [4, 0, 1], steps: 6, .. })),
        "six cells walked, not four through the mud: {events:?}"
    );
}

#[test]
fn no_enter_tags_keep_walks_teleports_and_targets_off_water() {
    // A river down x = 2 with no bridge.
    let plan = ["..w..", "..w..", "..w.."];
    let dry = |region: Region| Region { no_enter_tags: vec!["water".to_owned()], ..region };
    let scene = session(project(&plan, (0, 1), (4, 2), dry(walk("4"))));
    assert_eq!(spots(&scene), picture(&["11...", ".1...", "11..."]), "the walk stops at the bank");
    // Without the tag, water is plain ground (cost 1).
    let scene = session(project(&plan, (0, 1), (4, 2), walk("4")));
    assert_eq!(spots(&scene), picture(&["1111.", ".1111", "1111."]));
    // A teleport lands on either bank but never in the river.
    let teleport = dry(Region { radius_max: n("3"), z_up_max: n("1"), z_down_max: n("1"), ..Region::default() });
    let scene = session(project(&plan, (0, 1), (4, 2), teleport));
    assert_eq!(spots(&scene), picture(&["11...", ".1.1.", "11..."]));
}

#[test]
fn a_leap_crosses_a_river_it_may_not_enter() {
    // The river is a channel one level down: a leap (z_down_max 2: one cell) clears it and
    // lands on the far bank (its gap cell and landing spend 2 of the radius 3), which walking
    // down into the water could not reach.
    let mut project = project(&["..w..", "..w..", "..w.."], (0, 1), (4, 2), Region::default());
    let map = project.tile_maps.iter().next().unwrap().clone();
    let mut map = map;
    for column in &mut map.columns {
        if column.x != 2 {
            let column = Arc::make_mut(column);
            column.tiles.insert(0, Tile::cube(0));
            column.tiles[1].z = 1;
        }
    }
    project.tile_maps.insert(map);
    let leap = Region { no_enter_tags: vec!["water".to_owned()], z_down_max: n("2"), ..walk("3") };
    project.skills.insert(Skill {
        id: Id::new("walk"),
        kind: SkillKind::Move,
        target_region: leap,
        ..Skill::default()
    });
    let scene = session(project);
    assert_eq!(spots(&scene), picture(&["22...", ".2.2.", "22..."]));
}

#[test]
fn formulas_read_the_terrain_under_the_actor_the_target_and_the_aimed_spot() {
    // b stands in mud (defence 3): hit takes 10 − 3 = 7; a stands in water (+1).
    let plan = ["wm.", "..."];
    let mut scene = session(project(&plan, (0, 0), (1, 0), walk("1")));
    let state = scene.tactics().unwrap();
    assert_eq!(state.stat("b", "tile.defence"), Some(3.0));
    assert_eq!(state.stat("b", "tile.move_cost"), Some(2.0));
    assert_eq!(state.stat("b", "tile.tag.mud"), Some(1.0));
    assert_eq!(state.stat("a", "tile.tag.mud"), Some(0.0));
    assert_eq!(state.stat("a", "tile.tag.water"), Some(1.0));
    assert_eq!(state.stat("a", "tile.defence"), Some(0.0));
    scene.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("hit"), x: 1, y: 0, z: 1 }).unwrap();
    assert_eq!(scene.tactics().unwrap().stat("b", "hp"), Some(20.0 - 7.0 - 1.0));
}

#[test]
fn a_predicate_reads_the_aimed_spots_terrain() {
    // A teleport onto mud only.
    let plan = ["..m", ".m.", "..."];
    let region = Region {
        radius_max: n("2"),
        z_up_max: n("1"),
        z_down_max: n("1"),
        predicate: Some(n("arg.tile.tag.mud")),
        ..Region::default()
    };
    let scene = session(project(&plan, (0, 0), (2, 2), region));
    assert_eq!(spots(&scene), picture(&["..1", ".1."]));
}

#[test]
fn check_reports_bad_terrain_and_unknown_tags() {
    let mut project = project(&["..."], (0, 0), (2, 0), walk("2"));
    let mut map = project.tile_maps.iter().next().unwrap().clone();
    map.palette[0].terrain.move_cost = -1;
    map.palette[1].terrain.tags.push("deep water".to_owned());
    project.tile_maps.insert(map);
    let mut walk = walk("2");
    walk.no_enter_tags = vec!["lava".to_owned()];
    project.skills.insert(Skill {
        id: Id::new("walk"),
        kind: SkillKind::Move,
        target_region: walk,
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("hit"),
        params: BTreeMap::from([
            ("odd".to_owned(), n("t.tile.tag.lava")),
            ("bad".to_owned(), n("c.tile.height")),
            ("fine".to_owned(), n("t.tile.defence + c.tile.tag.water + arg.tile.move_cost")),
        ]),
        ..Skill::default()
    });
    let messages: Vec<String> =
        validate(&project, &Sources::default(), None).into_iter().map(|d| format!("{d}")).collect();
    let has = |text: &str| messages.iter().any(|message| message.contains(text));
    assert!(has("move_cost must be 0 or more (it is -1)"), "{messages:#?}");
    assert!(has("the terrain tag name `deep water` cannot be read by formulas"), "{messages:#?}");
    assert!(has("no palette entry has the terrain tag `lava`; it keeps nothing out"), "{messages:#?}");
    assert!(
        has("unknown name `t.tile.tag.lava`; no palette entry has the terrain tag `lava` (tags: "),
        "{messages:#?}"
    );
    assert!(has("`tile.height` is not a terrain property"), "{messages:#?}");
    assert!(!messages.iter().any(|message| message.contains("fine")), "{messages:#?}");
}

#[test]
fn a_waypointed_move_spends_the_terrain_cost_of_each_leg() {
    // Through the mud at (1, 0) (cost 2) to (3, 0) spends 4 of radius 4; (4, 0) is one too far.
    let plan = [".m...", "....."];
    let via = vec![[1, 0, 1]];
    let mut scene = session(project(&plan, (0, 0), (4, 1), walk("4")));
    let far = Choice::MoveUnitVia { unit: "a".to_owned(), via: via.clone(), x: 4, y: 0, z: 1 };
    let error = scene.apply(&far).unwrap_err().to_string();
    assert!(error.contains("out of reach from (1, 0, 1) (2 cells spent)"), "{error}");
    let near = Choice::MoveUnitVia { unit: "a".to_owned(), via, x: 3, y: 0, z: 1 };
    let events = scene.apply(&near).unwrap();
    assert!(events.iter().any(|event| matches!(event, Event::UnitMoved { to: [3, 0, 1], steps: 3, .. })), "{events:?}");
}

#[test]
fn why_not_names_refused_terrain_and_the_maps_move_costs() {
    use actforge_runtime::engine::Subject;
    let plan = ["..w..", "..m..", "....."];
    let dry = Region { no_enter_tags: vec!["water".to_owned()], ..walk("2") };
    let scene = session(project(&plan, (0, 1), (4, 2), dry));
    let why =
        |at| format!("{:?}", scene.explain(&Subject::Move { unit: "a".to_owned(), at, via: Vec::new() }).unwrap());
    let water = why((2, 0, 1));
    assert!(water.contains("its terrain is refused by the move skill: `water` (walk)"), "{water}");
    let beyond = why((3, 1, 1));
    assert!(beyond.contains("walks spend terrain move costs here (mud 2)"), "{beyond}");
}

#[test]
fn set_terrain_repaints_a_top_mid_battle_and_the_walk_follows() {
    // Plain ground: radius 3 from (0, 2) is a diamond; mud down x = 2 set by playtest lines
    // shrinks it as a painted band does.
    let plain = [".....", ".....", ".....", ".....", "....."];
    let mut scene = session(project(&plain, (0, 2), (4, 4), walk("3")));
    let before = scene.state_hash();
    let lines: Vec<String> = (0..5).map(|y| format!("set terrain 2 {y} 1 mud")).collect();
    scene.run_script(&lines.join("\n")).unwrap();
    assert_eq!(spots(&scene), picture(&["11...", "11...", ".11..", "11...", "11..."]));
    assert_ne!(scene.state_hash(), before, "the repainted tops are part of the state");
    // `none` unpaints: plain again.
    let lines: Vec<String> = (0..5).map(|y| format!("set terrain 2 {y} 1 none")).collect();
    scene.run_script(&lines.join("\n")).unwrap();
    assert_eq!(spots(&scene), picture(&["11...", "111..", ".111.", "111..", "11..."]));
    for (line, why) in [
        ("set terrain 2 2 1 lava", "the map's palette has no entry `lava` (it has: mud, water)"),
        ("set terrain 2 2 4 mud", "(2, 2, 4) is not a standing spot (levels there: 1)"),
        ("set terrain 2 2 mud", "usage: set terrain X Y Z ENTRY[#TILE] (or none)"),
    ] {
        let error = scene.run_script(line).unwrap_err();
        assert!(error.message.contains(why), "{line}: {error}");
    }
}
