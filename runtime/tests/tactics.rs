//! The tactics system through the Session API: the CT scheduler's order, move choices equal
//! to the map's reachable spots, skills with formula damage, hit types and facings, status
//! durations, win conditions, the scripted skirmish and random play that must not panic.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: stats are exact small numbers

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::map::{Occupant, ReachParams, Spot, SpotMap, TileGrid, reach_path};
use actforge_runtime::model::{
    Column, EffectTarget, Expr, HitType, Id, InterveningSpace, LineMoveEffect, Placement, Project, Region, RegionShape,
    Skill, SkillKind, StatEffect, StatusEffect, Tile, TileMap, Unit, WinCondition,
};
use actforge_runtime::project::load_folder;

fn workspace() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn skirmish() -> Project {
    load_folder(&workspace().join("content/srpg-skirmish")).unwrap().project
}

fn stats(pairs: &[(&str, &str)]) -> BTreeMap<String, Expr> {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), Expr::new(*value))).collect()
}

/// A flat 6×6 field with a two-level block at (5, 5); units `a`, `b`, `c` (speeds 10, 7, 10;
/// `b` on team red) with `walk` (3 cells, climb 1), `jab` (adjacent, hp −(c.atk − t.def), +2
/// from behind) and `slow` (adjacent, status `slowed`: speed −3 for 5 ticks).
fn field() -> Project {
    let mut project = Project::new("field");
    let mut columns = Vec::new();
    for y in 0..6u16 {
        for x in 0..6u16 {
            let tiles = if (x, y) == (5, 5) { vec![Tile::cube(0), Tile::cube(1)] } else { vec![Tile::cube(0)] };
            columns.push(Arc::new(Column { x, y, tiles }));
        }
    }
    let place = |unit: &str, x: u16, y: u16, facing_degrees: f32| Placement {
        unit: Id::new(unit),
        team: String::new(),
        x,
        y,
        z: None,
        facing_degrees,
    };
    project.tile_maps.insert(TileMap {
        id: Id::new("field"),
        width: 6,
        depth: 6,
        columns,
        placements: vec![place("a", 1, 1, 0.0), place("b", 2, 1, 0.0), place("c", 1, 4, 90.0)],
        ..TileMap::default()
    });
    for (id, team, speed) in [("a", "blue", "10"), ("b", "red", "7"), ("c", "blue", "10")] {
        project.units.insert(Unit {
            id: Id::new(id),
            team: team.to_owned(),
            stats: stats(&[
                ("hp", "20"),
                ("ct", "0"),
                ("speed", speed),
                ("atk", "9"),
                ("def", "4"),
                ("move", "3"),
                ("jump", "1"),
            ]),
            skills: vec![Id::new("walk"), Id::new("jab"), Id::new("slow")],
            ..Unit::default()
        });
    }
    project.skills.insert(Skill {
        id: Id::new("walk"),
        kind: SkillKind::Move,
        target_region: Region {
            space: actforge_runtime::model::InterveningSpace::Path,
            radius_max: Expr::new("c.move"),
            z_up_max: Expr::new("c.jump"),
            z_down_max: Expr::new("2"),
            can_cross_enemies: false,
            ..Region::default()
        },
        ..Skill::default()
    });
    let adjacent = Region {
        radius_min: Expr::new("1"),
        radius_max: Expr::new("1"),
        z_up_max: Expr::new("1"),
        z_down_max: Expr::new("1"),
        can_target_friends: false,
        ..Region::default()
    };
    project.skills.insert(Skill {
        id: Id::new("jab"),
        target_region: adjacent.clone(),
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![StatEffect {
                target: EffectTarget::Target,
                stat: "hp".to_owned(),
                value: Expr::new("-(c.atk - t.def + targeted-side{back: 2; default: 0})"),
                ..StatEffect::default()
            }],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("slow"),
        target_region: adjacent,
        hit_types: vec![HitType {
            label: "Slowed".to_owned(),
            stat_effects: Vec::new(),
            status_effects: vec![StatusEffect {
                name: "slowed".to_owned(),
                duration_ticks: Expr::new("5"),
                stat_effects: vec![StatEffect {
                    stat: "speed".to_owned(),
                    value: Expr::new("-3"),
                    ..StatEffect::default()
                }],
                ..StatusEffect::default()
            }],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

fn turn(session: &Session) -> Option<String> {
    session.tactics().unwrap().active_unit().map(str::to_owned)
}

fn hp(session: &Session, unit: &str) -> f64 {
    session.tactics().unwrap().stat(unit, "hp").unwrap()
}

#[test]
fn the_ct_scheduler_gives_turns_by_speed_with_placement_order_breaking_ties() {
    let mut session = Session::new(field(), 1).unwrap();
    let mut order = Vec::new();
    for _ in 0..6 {
        let unit = turn(&session).unwrap();
        order.push((unit.clone(), session.tactics().unwrap().tick));
        session.apply(&Choice::WaitUnit { unit }).unwrap();
    }
    // a and c reach 100 CT at tick 10 (a placed first); waiting costs 30, so both are back at
    // tick 13; b (speed 7) reaches 105 at tick 15; a and c again at tick 16.
    let expected = [("a", 10), ("c", 10), ("a", 13), ("c", 13), ("b", 15), ("a", 16)];
    let expected: Vec<(String, u64)> = expected.iter().map(|(unit, tick)| ((*unit).to_owned(), *tick)).collect();
    assert_eq!(order, expected);
    assert!(session.apply(&Choice::WaitUnit { unit: "b".to_owned() }).is_err(), "not b's turn");
}

#[test]
fn move_choices_are_the_reachable_spots_and_moving_costs_ct() {
    let mut session = Session::new(field(), 1).unwrap();
    assert_eq!(turn(&session).as_deref(), Some("a"));
    let moves: BTreeSet<(u16, u16, u16)> = session
        .choices()
        .into_iter()
        .filter_map(|choice| match choice {
            Choice::MoveUnit { unit, x, y, z } if unit == "a" => Some((x, y, z)),
            _ => None,
        })
        .collect();
    let map = field().tile_maps.get("field").unwrap().clone();
    let grid = TileGrid::from_map(&map).unwrap();
    let occupants = SpotMap::from([(Spot::new(2, 1, 1), Occupant::Enemy), (Spot::new(1, 4, 1), Occupant::Ally)]);
    let mut params = ReachParams::movement(3, 1.0, 2.0);
    params.can_cross_enemies = false;
    let reach = reach_path(&grid, Spot::new(1, 1, 1), &params, &occupants).unwrap();
    let expected: BTreeSet<(u16, u16, u16)> = reach
        .stops()
        .filter(|spot| *spot != Spot::new(1, 1, 1))
        .map(|spot| (spot.cell_x, spot.cell_y, spot.level))
        .collect();
    assert_eq!(moves, expected);
    assert!(!moves.contains(&(2, 1, 1)), "nobody stands on the enemy");
    assert!(!moves.contains(&(1, 4, 1)), "nor on the ally");
    assert!(moves.contains(&(1, 3, 1)) && !moves.contains(&(5, 5, 2)));
    let events = session.apply(&Choice::MoveUnit { unit: "a".to_owned(), x: 1, y: 3, z: 1 }).unwrap();
    assert!(events.contains(&Event::UnitMoved {
        unit: "a".to_owned(),
        skill: Id::new("walk"),
        from: [1, 1, 1],
        to: [1, 3, 1],
        steps: 2
    }));
    let battle = session.tactics().unwrap();
    assert_eq!(battle.stat("a", "ct"), Some(70.0), "moveCT 30");
    assert_eq!(battle.unit("a").unwrap().facing, 90.0, "faces along its last step");
    assert!(!session.choices().iter().any(|choice| matches!(choice, Choice::MoveUnit { .. })), "one move a turn");
}

#[test]
fn a_skill_hits_with_damage_from_formulas_and_facing() {
    let mut session = Session::new(field(), 1).unwrap();
    let jab = Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("jab"), x: 2, y: 1, z: 1 };
    assert!(session.choices().contains(&jab));
    let events = session.apply(&jab).unwrap();
    // b faces +x, away from a standing west of it: a hits it from behind, 9 − 4 + 2.
    assert!(events.contains(&Event::UnitDamaged { unit: "b".to_owned(), amount: 7.0, hp: 13.0 }), "{events:?}");
    assert_eq!(hp(&session, "b"), 13.0);
    assert_eq!(session.tactics().unwrap().stat("a", "ct"), Some(60.0), "actCT 40");
    assert!(session.apply(&jab).is_err(), "one action a turn");
    let query = session.query("unit.b.hp + team.blue.alive").unwrap();
    assert_eq!(query, 15.0);
}

#[test]
fn a_status_lasts_its_duration_and_changes_stats_while_it_lasts() {
    let mut session = Session::new(field(), 1).unwrap();
    session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("slow"), x: 2, y: 1, z: 1 }).unwrap();
    let battle = session.tactics().unwrap();
    assert_eq!(battle.stat("b", "speed"), Some(4.0));
    assert_eq!(battle.unit("b").unwrap().stats.get("speed"), Some(&7.0), "the stored value is unchanged");
    let at = battle.tick;
    let mut expired_at = None;
    for _ in 0..4 {
        let unit = turn(&session).unwrap();
        let events = session.apply(&Choice::WaitUnit { unit }).unwrap();
        if expired_at.is_none()
            && events.contains(&Event::UnitStatusExpired { unit: "b".to_owned(), status: "slowed".to_owned() })
        {
            expired_at = Some(session.tactics().unwrap().tick);
        }
    }
    assert!(expired_at.is_some_and(|tick| tick >= at + 5), "expired after 5 ticks: {expired_at:?} from {at}");
    assert_eq!(session.tactics().unwrap().stat("b", "speed"), Some(7.0));
}

#[test]
fn the_last_team_standing_wins_and_a_win_condition_ends_it_earlier() {
    let mut project = field();
    project.units.get_mut("b").unwrap().stats.insert("hp".to_owned(), Expr::new("5"));
    let mut session = Session::new(project.clone(), 1).unwrap();
    let events =
        session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("jab"), x: 2, y: 1, z: 1 }).unwrap();
    assert!(events.contains(&Event::UnitDefeated { unit: "b".to_owned() }));
    assert!(events.contains(&Event::UnitTeamWon { team: "blue".to_owned() }));
    assert_eq!(session.tactics().unwrap().winner(), Some("blue"));
    assert!(session.choices().is_empty());
    session.run_script("expect winner blue\nexpect unit b defeated\nexpect turn none").unwrap();

    // A data-driven condition: red wins as soon as any blue unit is below 20 hp (here: never
    // reached) or the battle passes tick 12.
    project.tile_maps.get_mut("field").unwrap().win_conditions =
        vec![WinCondition { team: "red".to_owned(), when: Expr::new("battle.tick > 12 or unit.a.hp < 20") }];
    let mut session = Session::new(project, 1).unwrap();
    session.run_script("expect turn a\nwait a\nexpect turn c\nwait c\nexpect winner red").unwrap();
}

#[test]
fn impossible_script_lines_say_why_and_what_is_possible() {
    let mut session = Session::new(field(), 1).unwrap();
    let error = session.run_script("move a 5 5").unwrap_err();
    assert!(error.message.contains("that unit cannot move there now; possible now:"), "{}", error.message);
    assert!(error.message.contains("move a 1 2 1") && error.message.contains("wait a"), "{}", error.message);
    let error = session.run_script("wait b").unwrap_err();
    assert!(error.message.contains("not that unit's turn"), "{}", error.message);
    let error = session.run_script("move zed 1 1").unwrap_err();
    assert!(error.message.contains("no unit `zed`"), "{}", error.message);
    session.run_script("expect refused use a jab 1 4\nmove a 1 3\nexpect unit a at 1 3 1").unwrap();
}

#[test]
fn the_scripted_skirmish_ends_exactly_as_written() {
    let script = std::fs::read_to_string(workspace().join("content/srpg-skirmish/tests/srpg_skirmish.play")).unwrap();
    let mut hashes = Vec::new();
    for _ in 0..2 {
        let mut session = Session::new(skirmish(), 3).unwrap();
        let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
        assert!(report.expectations >= 10, "{}", report.expectations);
        assert_eq!(session.tactics().unwrap().winner(), Some("blue"));
        hashes.push(session.state_hash());
    }
    assert_eq!(hashes[0], hashes[1]);
}

#[test]
fn the_skirmish_knight_bashes_the_raider_away_and_turns_north() {
    let script =
        std::fs::read_to_string(workspace().join("content/srpg-skirmish/tests/srpg_skirmish_bash.play")).unwrap();
    let mut session = Session::new(skirmish(), 3).unwrap();
    let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert_eq!(report.expectations, 8);
    let pushes: Vec<&Event> = report.events.iter().map(|logged| &logged.event).collect();
    assert!(
        pushes.contains(&&Event::UnitPushed {
            unit: "raider".to_owned(),
            by: "knight".to_owned(),
            from: [5, 3, 1],
            to: [7, 3, 1],
            steps: 2,
            remaining: 0,
            drop: 0.0,
            collided: Vec::new(),
        }),
        "{pushes:?}"
    );
}

#[test]
fn the_skirmish_pack_is_canonical_and_validates_without_warnings() {
    let root = workspace().join("content/srpg-skirmish");
    let loaded = load_folder(&root).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    for (relative, text) in actforge_runtime::project::render_files(&loaded.project).unwrap() {
        assert_eq!(std::fs::read_to_string(root.join(&relative)).unwrap(), text, "{}", relative.display());
    }
    let found = actforge_runtime::validate::validate(&loaded.project, &loaded.sources, Some(&root));
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn random_play_never_panics_and_replays_to_the_same_hash() {
    for (project, seed) in [(skirmish(), 5), (field(), 9)] {
        let mut hashes = Vec::new();
        for _ in 0..2 {
            let mut session = Session::new(project.clone(), seed).unwrap();
            let mut pick = 0x9E37_79B9_7F4A_7C15_u64 ^ seed;
            for _ in 0..400 {
                pick ^= pick << 13;
                pick ^= pick >> 7;
                pick ^= pick << 17;
                let choices = session.choices();
                if choices.is_empty() {
                    session.advance(pick % 50);
                    continue;
                }
                // Prefer actions over waiting so battles get somewhere.
                let choice = &choices[(pick % choices.len() as u64) as usize];
                session.apply(choice).unwrap();
            }
            hashes.push(session.state_hash());
        }
        assert_eq!(hashes[0], hashes[1]);
    }
}

/// The field with `shove` for `a`: adjacent, 1.5 damage (not rounded), then the target is
/// pushed `c.push` (2) cells away from `a`.
fn shove_field() -> Project {
    let mut project = field();
    project.skills.insert(Skill {
        id: Id::new("shove"),
        target_region: Region {
            radius_min: Expr::new("1"),
            radius_max: Expr::new("1"),
            z_up_max: Expr::new("1"),
            z_down_max: Expr::new("1"),
            can_target_friends: false,
            ..Region::default()
        },
        hit_types: vec![HitType {
            label: "Shoved".to_owned(),
            stat_effects: vec![StatEffect { stat: "hp".to_owned(), value: Expr::new("-1.5"), ..StatEffect::default() }],
            line_moves: vec![LineMoveEffect {
                target: EffectTarget::Target,
                region: Region {
                    shape: RegionShape::LineMove,
                    space: InterveningSpace::LineMove,
                    radius_max: Expr::new("c.push"),
                    z_up_max: Expr::new("1"),
                    z_down_max: Expr::new("2"),
                    can_cross_walls: false,
                    can_cross_enemies: false,
                    ..Region::default()
                },
            }],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    let a = project.units.get_mut("a").unwrap();
    a.stats.insert("push".to_owned(), Expr::new("2"));
    a.skills.push(Id::new("shove"));
    project
}

fn pushed(events: &[Event]) -> Vec<&Event> {
    events.iter().filter(|event| matches!(event, Event::UnitPushed { .. })).collect()
}

#[test]
fn a_shove_pushes_the_target_away_and_stops_before_a_unit() {
    let mut session = Session::new(shove_field(), 1).unwrap();
    let events =
        session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("shove"), x: 2, y: 1, z: 1 }).unwrap();
    // Stat values are exact in events: 1.5 damage leaves 18.5.
    assert!(events.contains(&Event::UnitDamaged { unit: "b".to_owned(), amount: 1.5, hp: 18.5 }), "{events:?}");
    assert_eq!(
        pushed(&events),
        vec![&Event::UnitPushed {
            unit: "b".to_owned(),
            by: "a".to_owned(),
            from: [2, 1, 1],
            to: [4, 1, 1],
            steps: 2,
            remaining: 0,
            drop: 0.0,
            collided: Vec::new(),
        }]
    );
    session.run_script("expect unit b at 4 1 1\nexpect unit b hp 18.5").unwrap();

    // With `c` two cells behind `b`, the push stops after one cell and names `c`.
    let mut project = shove_field();
    project.tile_maps.get_mut("field").unwrap().placements[2].x = 4;
    project.tile_maps.get_mut("field").unwrap().placements[2].y = 1;
    let mut session = Session::new(project, 1).unwrap();
    session.run_script("expect turn a").unwrap();
    let events =
        session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("shove"), x: 2, y: 1, z: 1 }).unwrap();
    assert_eq!(
        pushed(&events),
        vec![&Event::UnitPushed {
            unit: "b".to_owned(),
            by: "a".to_owned(),
            from: [2, 1, 1],
            to: [3, 1, 1],
            steps: 1,
            remaining: 1,
            drop: 0.0,
            collided: vec!["c".to_owned()],
        }]
    );
}

#[test]
fn a_shove_climbs_one_level_and_the_map_edge_stops_it() {
    // `b` stands at (4, 5) next to the two-level block at (5, 5); `a` shoves it east from (3, 5):
    // it climbs onto the block (a rise of 1), then meets the map's edge.
    let mut project = shove_field();
    let placements = &mut project.tile_maps.get_mut("field").unwrap().placements;
    (placements[0].x, placements[0].y) = (3, 5);
    (placements[1].x, placements[1].y) = (4, 5);
    project.units.get_mut("a").unwrap().stats.insert("push".to_owned(), Expr::new("3"));
    let mut session = Session::new(project, 1).unwrap();
    let events =
        session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("shove"), x: 4, y: 5, z: 1 }).unwrap();
    assert_eq!(
        pushed(&events),
        vec![&Event::UnitPushed {
            unit: "b".to_owned(),
            by: "a".to_owned(),
            from: [4, 5, 1],
            to: [5, 5, 2],
            steps: 1,
            remaining: 2,
            drop: 0.0,
            collided: Vec::new(),
        }]
    );
}

#[test]
fn a_line_move_target_region_is_the_walk_up_to_the_unit_it_meets() {
    // `charge`: a line-move region 4 cells along the facing (a faces east, b is next to it).
    let mut project = field();
    project.skills.insert(Skill {
        id: Id::new("charge"),
        target_region: Region {
            shape: RegionShape::LineMove,
            space: InterveningSpace::LineMove,
            radius_max: Expr::new("4"),
            z_up_max: Expr::new("1"),
            z_down_max: Expr::new("1"),
            can_cross_walls: false,
            can_cross_enemies: false,
            ..Region::default()
        },
        hit_types: vec![HitType { label: "Hit".to_owned(), ..HitType::default() }],
        ..Skill::default()
    });
    project.units.get_mut("a").unwrap().skills.push(Id::new("charge"));
    let session = Session::new(project.clone(), 1).unwrap();
    let aimed = |session: &Session| -> Vec<(u16, u16, u16)> {
        session
            .choices()
            .into_iter()
            .filter_map(|choice| match choice {
                Choice::UseSkill { skill, x, y, z, .. } if skill.as_str() == "charge" => Some((x, y, z)),
                _ => None,
            })
            .collect()
    };
    assert_eq!(aimed(&session), vec![(2, 1, 1)]);
    // Facing north (90°) the walk passes two cells and meets `c` at (1, 4): that spot ends it.
    project.tile_maps.get_mut("field").unwrap().placements[0].facing_degrees = 90.0;
    let session = Session::new(project, 1).unwrap();
    assert_eq!(aimed(&session), vec![(1, 2, 1), (1, 3, 1), (1, 4, 1)]);
}

#[test]
fn the_active_unit_chooses_its_facing_as_it_ends_its_turn() {
    let mut session = Session::new(field(), 1).unwrap();
    let choices = session.choices();
    let faces: Vec<&Choice> = choices.iter().filter(|choice| matches!(choice, Choice::FaceUnit { .. })).collect();
    assert_eq!(faces.len(), 4);
    assert_eq!(session.describe_choice(faces[1]), "face a north");
    let events = session.apply(&Choice::FaceUnit { unit: "a".to_owned(), facing: 270 }).unwrap();
    assert_eq!(events[0], Event::UnitFaced { unit: "a".to_owned(), facing: 270 });
    assert_eq!(events[1], Event::UnitTurnEnded { unit: "a".to_owned() });
    assert_eq!(session.tactics().unwrap().unit("a").unwrap().facing, 270.0);
    // `wait` keeps the facing; `face` takes names or degrees; only the active unit turns.
    session.run_script("expect turn c\nface c west\nexpect unit c facing 180\nexpect unit a facing 270").unwrap();
    assert!(session.apply(&Choice::FaceUnit { unit: "a".to_owned(), facing: 45 }).is_err());
    session.run_script("expect turn a\nwait a\nexpect unit a facing 270").unwrap();
}

/// The field with `c` mountable, `walk` able to mount friends (with or without the mounting
/// step bonus) and a three-cube column at (1, 5) (a rise of 2 from the floor next to `c`).
fn mount_field(step_bonus: bool) -> Project {
    let mut project = field();
    project.units.get_mut("c").unwrap().stats.insert("mountable".to_owned(), Expr::new("1"));
    let walk = &mut project.skills.get_mut("walk").unwrap().target_region;
    walk.can_mount_friends = true;
    walk.use_mounting_step_bonus = step_bonus;
    let map = project.tile_maps.get_mut("field").unwrap();
    for column in &mut map.columns {
        if (column.x, column.y) == (1, 5) {
            Arc::make_mut(column).tiles = vec![Tile::cube(0), Tile::cube(1), Tile::cube(2)];
        }
    }
    project
}

/// Ends turns until it is `unit`'s.
fn wait_for(session: &mut Session, unit: &str) {
    for _ in 0..20 {
        match turn(session) {
            Some(active) if active == unit => return,
            Some(active) => {
                session.apply(&Choice::WaitUnit { unit: active }).unwrap();
            }
            None => panic!("nobody's turn"),
        }
    }
    panic!("{unit} never got a turn");
}

fn can_move_to(session: &Session, unit: &str, spot: (u16, u16, u16)) -> bool {
    session.choices().contains(&Choice::MoveUnit { unit: unit.to_owned(), x: spot.0, y: spot.1, z: spot.2 })
}

#[test]
fn a_unit_mounts_a_friend_rides_with_it_and_gets_the_step_bonus() {
    let mut session = Session::new(mount_field(true), 1).unwrap();
    // `b` (an enemy) is not mountable, `c` is: a may end its move on c.
    assert!(can_move_to(&session, "a", (1, 4, 1)));
    assert!(!can_move_to(&session, "a", (2, 1, 1)));
    let events = session.apply(&Choice::MoveUnit { unit: "a".to_owned(), x: 1, y: 4, z: 1 }).unwrap();
    assert!(events.contains(&Event::UnitMounted { unit: "a".to_owned(), mount: "c".to_owned() }), "{events:?}");
    session.run_script("expect unit a isMounting 1\nexpect unit c isMounted 1\nexpect unit c isMounting 0").unwrap();
    // The rider is targeted before its mount (§a.7): b's jab at (1, 4) would hit a.
    assert_eq!(session.tactics().unwrap().unit_at(Spot::new(1, 4, 1)), Some("a"));
    session.apply(&Choice::WaitUnit { unit: "a".to_owned() }).unwrap();
    // The mount walks and carries its rider.
    wait_for(&mut session, "c");
    session.run_script("move c 2 4\nexpect unit a at 2 4 1\nexpect unit c at 2 4 1\nwait c").unwrap();
    // The rider walks off and leaves its mount where it is.
    wait_for(&mut session, "a");
    assert!(can_move_to(&session, "a", (2, 5, 1)));
    let events = session.apply(&Choice::MoveUnit { unit: "a".to_owned(), x: 2, y: 5, z: 1 }).unwrap();
    assert!(events.contains(&Event::UnitDismounted { unit: "a".to_owned(), mount: "c".to_owned() }), "{events:?}");
    session.run_script("expect unit a isMounting 0\nexpect unit c isMounted 0\nexpect unit c at 2 4 1").unwrap();
}

#[test]
fn the_mounting_step_bonus_lets_a_rider_climb_one_level_more_off_its_mount() {
    for (bonus, reaches) in [(true, true), (false, false)] {
        let mut session = Session::new(mount_field(bonus), 1).unwrap();
        session.apply(&Choice::MoveUnit { unit: "a".to_owned(), x: 1, y: 4, z: 1 }).unwrap();
        session.apply(&Choice::WaitUnit { unit: "a".to_owned() }).unwrap();
        wait_for(&mut session, "a");
        // (1, 5) is 2 levels up from the mount's spot; a's jump is 1.
        assert_eq!(can_move_to(&session, "a", (1, 5, 3)), reaches, "step bonus {bonus}");
    }
}

#[test]
fn an_arc_region_reaches_further_downhill_with_the_arc_range_bonus() {
    // `a` stands on a three-cube column at (1, 1) (level 3); everything near is floor (level 1).
    let lob_field = |bonus: bool| {
        let mut project = field();
        let map = project.tile_maps.get_mut("field").unwrap();
        for column in &mut map.columns {
            if (column.x, column.y) == (1, 1) {
                Arc::make_mut(column).tiles = vec![Tile::cube(0), Tile::cube(1), Tile::cube(2)];
            }
        }
        project.skills.insert(Skill {
            id: Id::new("lob"),
            target_region: Region {
                space: InterveningSpace::Arc,
                radius_max: Expr::new("2"),
                z_up_max: Expr::new("2"),
                z_down_max: Expr::new("2"),
                use_arc_range_bonus: bonus,
                can_target_friends: false,
                can_target_self: false,
                ..Region::default()
            },
            hit_types: vec![HitType { label: "Hit".to_owned(), ..HitType::default() }],
            ..Skill::default()
        });
        project.units.get_mut("a").unwrap().skills.push(Id::new("lob"));
        project
    };
    let aimed = |bonus: bool| -> BTreeSet<(u16, u16, u16)> {
        let session = Session::new(lob_field(bonus), 1).unwrap();
        session
            .choices()
            .into_iter()
            .filter_map(|choice| match choice {
                Choice::UseSkill { skill, x, y, z, .. } if skill.as_str() == "lob" => Some((x, y, z)),
                _ => None,
            })
            .collect()
    };
    let within = |radius: u16| -> BTreeSet<(u16, u16, u16)> {
        let mut cells = BTreeSet::new();
        for y in 0..6u16 {
            for x in 0..6u16 {
                let distance = x.abs_diff(1) + y.abs_diff(1);
                // Not a itself, not its friend c at (1, 4).
                if distance >= 1 && distance <= radius && (x, y) != (1, 4) {
                    cells.insert((x, y, 1));
                }
            }
        }
        cells
    };
    // 2 levels down: radius 2 − (−2)/2 = 3 with the bonus; 2 without.
    assert_eq!(aimed(true), within(3));
    assert_eq!(aimed(false), within(2));
}

#[test]
fn the_battles_set_up_warnings_are_kept_with_the_session() {
    let mut project = field();
    // `c` loses its speed: it never gets a turn, and the session says so from the start.
    if let Some(unit) = project.units.get_mut("c") {
        unit.stats.remove("speed");
    }
    let session = Session::new(project, 1).unwrap();
    let warned = |text: &str| {
        session.start_events().iter().any(|event| matches!(event, Event::Warning(warning) if warning.contains(text)))
    };
    assert!(warned("c has no `ct` or no `speed` stat"), "{:?}", session.start_events());
    assert!(!Session::new(field(), 1).unwrap().start_events().iter().any(|event| matches!(event, Event::Warning(_))));
}

#[test]
fn set_up_lines_place_a_unit_and_set_its_stats_or_say_why_not() {
    let mut project = field();
    let map = project.tile_maps.iter().next().unwrap().id.clone();
    let mut map = project.tile_maps.get(map.as_str()).unwrap().clone();
    map.columns
        .iter_mut()
        .filter(|column| (column.x, column.y) == (0, 5))
        .for_each(|column| Arc::make_mut(column).tiles.clear());
    project.tile_maps.insert(map);
    let mut session = Session::new(project, 1).unwrap();
    // Without Z, the top standing level of the cell; the block at (5, 5) stands at level 2.
    session.run_script("place unit b 5 5\nexpect unit b at 5 5 2\nplace unit c 3 3 1\nexpect unit c at 3 3 1").unwrap();
    session.run_script("set unit a atk 12.5\nexpect unit a atk 12.5\nset unit b hp 1e300").unwrap();
    assert_eq!(session.tactics().unwrap().stat("a", "atk"), Some(12.5));
    let hash = session.state_hash();
    for (line, why) in [
        ("place unit zed 1 1", "no unit `zed` in the battle (there are: a, b, c)"),
        ("place unit a 6 0", "(6, 0) is off the map: field is 6 cells wide and 6 deep (x 0..5, y 0..5)"),
        ("place unit a 70000 1", "`70000` is not a valid cell x"),
        ("place unit a -1 1", "`-1` is not a valid cell x"),
        ("place unit a 0 5", "no unit can stand on (0, 5): it has no tiles"),
        ("place unit a 5 5 1", "no unit can stand at level 1 of (5, 5) (its standing levels: 2)"),
        ("place unit a 3 3", "c stands at (3, 3, 1)"),
        ("place unit a 1", "usage: place unit UNIT X Y [Z]"),
        ("set unit a luck 3", "a has no stat `luck` (it has: "),
        ("set unit a position.x 3", "use `place unit a X Y [Z]`"),
        ("set unit a hp many", "`many` is not a number"),
        ("set unit a hp NaN", "`NaN` is not a number (NaN)"),
        ("set unit a hp inf", "`inf` is not a finite number"),
        ("set unit a hp 1e999", "`1e999` is not a finite number"),
        ("set unit a hp", "usage: set unit UNIT STAT VALUE"),
    ] {
        let error = session.run_script(line).unwrap_err();
        assert!(error.message.contains(why), "{line}: {}", error.message);
    }
    assert_eq!(session.state_hash(), hash, "a refused set-up line changes nothing");
    // A unit's own spot is free for it.
    session.run_script("place unit a 1 1\nexpect unit a at 1 1 1").unwrap();
    // hp 0 defeats the unit as a hit would; then it is out of the battle.
    let report = session.run_script("set unit b hp 0\nexpect unit b defeated").unwrap();
    assert!(report.events.iter().any(|timed| timed.event == Event::UnitDefeated { unit: "b".to_owned() }));
    let error = session.run_script("place unit b 4 4").unwrap_err();
    assert!(error.message.contains("the battle has ended") || error.message.contains("b is defeated"), "{error}");
}

#[test]
fn set_unit_keeps_a_stat_within_its_limits_and_the_battle_ends_when_its_leader_falls() {
    let mut session = Session::new(skirmish(), 3).unwrap();
    let error = session.run_script("set unit knight hp 40").unwrap_err();
    assert!(error.message.contains("40 is above the max of knight's hp, 32"), "{error}");
    let error = session.run_script("set unit knight hp -1").unwrap_err();
    assert!(error.message.contains("-1 is below the min of knight's hp, 0"), "{error}");
    let error = session.run_script("place unit knight 6 7").unwrap_err();
    assert!(error.message.contains("raider stands at (6, 7"), "{error}");
    session.run_script("place unit knight 6 6\nexpect unit knight at 6 6\nset unit knight hp 0").unwrap();
    assert_eq!(session.tactics().unwrap().winner(), Some("red"));
    let error = session.run_script("set unit raider hp 3").unwrap_err();
    assert!(error.message.contains("the battle has ended"), "{error}");
    // The unit whose turn it is falls: its turn ends and the next one's begins.
    let mut session = Session::new(skirmish(), 3).unwrap();
    session
        .run_script(
            "expect turn raider
set unit raider hp 0
expect unit raider defeated",
        )
        .unwrap();
    let next = session.tactics().unwrap().active_unit().map(str::to_owned);
    assert!(next.is_some() && next.as_deref() != Some("raider"), "{next:?}");
}

#[test]
fn the_skirmish_set_up_playtest_passes() {
    let script =
        std::fs::read_to_string(workspace().join("content/srpg-skirmish/tests/setup_and_checks.play")).unwrap();
    let mut session = Session::new(skirmish(), 3).unwrap();
    let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert!(report.expectations >= 10, "{}", report.expectations);
}

#[test]
fn why_not_a_skill_says_whose_turn_it_is_and_where_it_cannot_aim() {
    use actforge_runtime::engine::Subject;
    let mut session = Session::new(skirmish(), 3).unwrap();
    session.run_script("expect turn raider").unwrap();
    let skill = |unit: &str, skill: &str, at| Subject::Skill { unit: unit.to_owned(), skill: skill.to_owned(), at };
    let knight = session.explain(&skill("knight", "strike", None)).unwrap();
    assert_eq!(knight[0].item, "skill `strike` of knight");
    assert_eq!(knight[0].text, "it is raider's turn");
    assert!(
        session.explain(&skill("raider", "strike", None)).unwrap()[0].text.contains("has no action skill `strike`")
    );
    let far = session.explain(&skill("raider", "shoot", Some((0, 0, 0)))).unwrap();
    assert!(far[0].text.contains("(0, 0, 0) is not a target in range"), "{far:?}");
    assert!(session.explain(&skill("raider", "shoot", None)).unwrap().is_empty(), "it can shoot somewhere");
    assert_eq!(session.parse_subject("skill:raider:shoot:0,0,0").unwrap(), skill("raider", "shoot", Some((0, 0, 0))));
    session.run_script("move raider 5 3 1\nuse raider shoot 5 0 1").unwrap();
    let again = session.explain(&skill("raider", "shoot", None)).unwrap();
    assert_eq!(again[0].text, "raider already used a skill this turn");
    let walk = session.explain(&Subject::Move { unit: "raider".to_owned(), at: (1, 1, 1), via: Vec::new() }).unwrap();
    assert_eq!(walk[0].text, "raider already moved this turn");
}

/// The editor's reach overlay asks `start_moves`: it must be the battle's own moves for the
/// unit, read from its move skill with its stats (the archer walks 4, not a default 3).
#[test]
fn start_moves_are_the_battle_s_moves_of_the_first_unit() {
    use actforge_runtime::engine::{Content, TacticsState};
    use std::sync::Arc;
    let project = skirmish();
    let map = project.tile_maps.get("ridge").unwrap().clone();
    let session = Session::new(project.clone(), 1).unwrap();
    let battle = session.tactics().unwrap();
    let active = battle.active_unit().unwrap().to_owned();
    let index = map.placements.iter().position(|p| p.unit.as_str() == active).unwrap();
    let battle_moves: BTreeSet<Spot> = session
        .choices()
        .into_iter()
        .filter_map(|choice| match choice {
            Choice::MoveUnit { unit, x, y, z } if unit == active => Some(Spot { cell_x: x, cell_y: y, level: z }),
            _ => None,
        })
        .collect();
    let content = Arc::new(Content::compile(project).unwrap());
    let start: BTreeSet<Spot> = TacticsState::start_moves(&content, &map, index).into_keys().collect();
    assert!(!start.is_empty());
    assert_eq!(start, battle_moves, "{active}");
    // The archer (move 4) reaches a cell four steps away, which the default region (3) does not.
    let archer = map.placements.iter().position(|p| p.unit.as_str() == "archer").unwrap();
    let from = map.placements[archer].clone();
    let far = TacticsState::start_moves(&content, &map, archer)
        .into_keys()
        .map(|spot| spot.cell_x.abs_diff(from.x) + spot.cell_y.abs_diff(from.y))
        .max();
    assert_eq!(far, Some(4));
}

/// Listing the choices keeps what it worked out (reach, routes, aimable spots) for applying the
/// choice made (issue 31): applying a listed choice must do exactly what applying it on a copy
/// that listed nothing does, also when the move and aim regions draw random numbers (then the
/// kept answers hold only for the generator state they were worked out from).
#[test]
fn applying_a_listed_choice_does_what_applying_it_unlisted_does() {
    let plain = skirmish();
    let mut drawing = skirmish();
    for skill in drawing.skills.iter_mut() {
        match skill.id.as_str() {
            "step" => skill.target_region.radius_max = Expr::new("c.move - 1 + random(0, 2)"),
            "shoot" => skill.target_region.radius_max = Expr::new("4 + random(0, 2)"),
            _ => {}
        }
    }
    for (project, seed) in [(plain, 5), (drawing.clone(), 5), (drawing, 11)] {
        let mut session = Session::new(project, seed).unwrap();
        // The picks come from a plain counter, so both sessions see the same choices.
        let mut pick = usize::try_from(seed).unwrap();
        for step in 0..80 {
            if session.tactics().is_some_and(|battle| battle.winner().is_some()) {
                break;
            }
            let mut unlisted = session.clone();
            let choices = session.choices();
            if choices.is_empty() {
                break;
            }
            pick = pick.wrapping_mul(31).wrapping_add(17);
            let choice = &choices[pick % choices.len()];
            // A region that draws may refuse a listed choice (the listing drew before it aimed):
            // then both must refuse it alike.
            let listed_events = format!("{:?}", session.apply(choice));
            let unlisted_events = format!("{:?}", unlisted.apply(choice));
            assert_eq!(listed_events, unlisted_events, "step {step}: {choice:?}");
            assert_eq!(session.state_hash(), unlisted.state_hash(), "step {step}: {choice:?}");
        }
    }
}

#[test]
fn a_refused_choice_changes_nothing_though_choices_are_applied_in_place() {
    // The session applies a battle choice to the battle itself (no copy to fall back on):
    // every refusal must come before the first change, whatever the choice and the state.
    let mut session = Session::new(skirmish(), 7).unwrap();
    let mut pick = 7_usize;
    for step in 0..150 {
        let Some(battle) = session.tactics() else { break };
        if battle.winner().is_some() {
            break;
        }
        let active = battle.active.as_ref().map_or_else(|| "archer".to_owned(), |turn| turn.unit.clone());
        let other = battle.units().map(|(key, _)| key.to_owned()).find(|key| *key != active).unwrap();
        let refusals = [
            Choice::MoveUnit { unit: active.clone(), x: 200, y: 200, z: 1 },
            Choice::MoveUnit { unit: other.clone(), x: 0, y: 0, z: 1 },
            Choice::MoveUnitVia { unit: active.clone(), via: vec![[0, 0, 99]], x: 1, y: 1, z: 1 },
            Choice::UseSkill { unit: active.clone(), skill: Id::new("strike"), x: 300, y: 0, z: 0 },
            Choice::UseSkill { unit: active.clone(), skill: Id::new("no_such_skill"), x: 0, y: 0, z: 0 },
            Choice::WaitUnit { unit: other.clone() },
            Choice::FaceUnit { unit: active.clone(), facing: 400 },
            Choice::FaceUnit { unit: other, facing: 0 },
            Choice::PickUnit { unit: active.clone() },
            Choice::EndRound { team: "blue".to_owned() },
        ];
        for refused in refusals {
            let (hash, choices) = (session.state_hash(), session.choices());
            assert!(session.apply(&refused).is_err(), "step {step}: {refused:?} was taken");
            assert_eq!(session.state_hash(), hash, "step {step}: {refused:?} changed the battle");
            assert_eq!(session.choices(), choices, "step {step}: {refused:?} changed the choices");
        }
        let choices = session.choices();
        if choices.is_empty() {
            break;
        }
        pick = pick.wrapping_mul(31).wrapping_add(17);
        session.apply(&choices[pick % choices.len()]).unwrap();
    }
}
