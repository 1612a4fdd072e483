//! Skill groups, sorting and replacement, and a facing chosen freely at the end of a turn
//! where the map allows it (issue 29.9, FORMAT.md §12, seed 001 "Skill" and "Wait").
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Session, Subject};
use actforge_runtime::model::{
    Column, Expr, FacingLock, HitType, Id, Placement, Project, Region, Skill, SkillKind, StatEffect, Tile, TileMap,
    Unit,
};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::validate;

fn skill(id: &str, group: &str, sorting: i32) -> Skill {
    Skill {
        id: Id::new(id),
        group: group.to_owned(),
        sorting,
        target_region: Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() },
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![StatEffect { stat: "hp".to_owned(), value: Expr::new("-1"), ..StatEffect::default() }],
            ..HitType::default()
        }],
        ..Skill::default()
    }
}

/// `a` (blue) at (1, 1) next to `b` (red) at (2, 1); `a` lists `skills` (any of `attack`,
/// `fire`, `ice`, `heal`, `fire_blade`, `walk`, `run`).
fn field(skills: &[&str], wait_facing: FacingLock) -> Project {
    let mut project = Project::new("skills");
    let columns =
        (0..3u16).flat_map(|y| (0..4u16).map(move |x| Arc::new(Column { x, y, tiles: vec![Tile::cube(0)] }))).collect();
    let place = |unit: &str, x: u16| Placement {
        unit: Id::new(unit),
        team: String::new(),
        x,
        y: 1,
        z: None,
        facing_degrees: 0.0,
    };
    project.tile_maps.insert(TileMap {
        id: Id::new("field"),
        width: 4,
        depth: 3,
        columns,
        placements: vec![place("a", 1), place("b", 2)],
        wait_facing,
        ..TileMap::default()
    });
    for (id, team, list) in [("a", "blue", skills), ("b", "red", &["attack"][..])] {
        project.units.insert(Unit {
            id: Id::new(id),
            team: team.to_owned(),
            stats: [("hp", "20"), ("ct", "0"), ("speed", "10")]
                .iter()
                .map(|(name, value)| ((*name).to_owned(), Expr::new(*value)))
                .collect::<BTreeMap<_, _>>(),
            skills: list.iter().map(|id| Id::new(*id)).collect(),
            ..Unit::default()
        });
    }
    project.skills.insert(skill("attack", "Act", 0));
    project.skills.insert(skill("fire", "Act//Black Magic", 2));
    project.skills.insert(skill("ice", "Act//Black Magic", 1));
    project.skills.insert(skill("heal", "Act//White Magic", 0));
    // A weapon's attack: it replaces Act//attack (seed 001's example).
    project.skills.insert(Skill {
        replaces: "Act//attack".to_owned(),
        replacement_priority: 1,
        ..skill("fire_blade", "Act", 0)
    });
    let walk = |id: &str, radius: &str| Skill {
        id: Id::new(id),
        kind: SkillKind::Move,
        group: "Move".to_owned(),
        target_region: Region { radius_max: Expr::new(radius), ..Region::default() },
        ..Skill::default()
    };
    project.skills.insert(walk("walk", "1"));
    // Boots: `run` replaces `walk` (a plain id).
    project.skills.insert(Skill { replaces: "walk".to_owned(), replacement_priority: 1, ..walk("run", "2") });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

fn skills_in_choices(session: &Session) -> Vec<String> {
    let mut seen = Vec::new();
    for choice in session.choices() {
        if let Choice::UseSkill { skill, .. } = choice
            && !seen.contains(&skill.to_string())
        {
            seen.push(skill.to_string());
        }
    }
    seen
}

#[test]
fn skills_are_offered_by_group_then_sorting_then_the_units_list() {
    let session = Session::new(field(&["heal", "fire", "attack", "ice"], FacingLock::Cardinal), 1).unwrap();
    // Act, then Act//Black Magic (ice sorts before fire), then Act//White Magic.
    assert_eq!(skills_in_choices(&session), ["attack", "ice", "fire", "heal"]);
    let mut session = session;
    session.run_script("expect unit a skills attack ice fire heal").unwrap();
}

#[test]
fn a_skill_replaces_another_while_the_unit_has_it() {
    let mut session = Session::new(field(&["attack", "fire_blade", "walk", "run"], FacingLock::Cardinal), 1).unwrap();
    assert_eq!(skills_in_choices(&session), ["fire_blade"]);
    session.run_script("expect unit a skills fire_blade run").unwrap();
    // The boots' run reaches 2 cells where walk reached 1.
    assert!(session.choices().contains(&Choice::MoveUnit { unit: "a".to_owned(), x: 0, y: 0, z: 1 }));
    let why = session.explain(&Subject::Skill { unit: "a".to_owned(), skill: "attack".to_owned(), at: None }).unwrap();
    assert_eq!(why[0].text, "`attack` is replaced by a's `fire_blade` (replaces `Act//attack`, priority 1)");
    let error = session.run_script("use a attack 2 1").unwrap_err().to_string();
    assert!(error.contains("cannot use that skill"), "{error}");
}

#[test]
fn the_highest_replacement_priority_wins_and_a_group_path_replaces_the_group() {
    let mut project = field(&["fire", "ice", "heal", "fire_blade", "attack"], FacingLock::Cardinal);
    // heal replaces all of Act//Black Magic//; fire_blade and a rival both replace attack.
    project.skills.get_mut("heal").unwrap().replaces = "Act//Black Magic//".to_owned();
    project.skills.insert(Skill {
        replaces: "attack".to_owned(),
        replacement_priority: 5,
        ..skill("ice_blade", "Act", 1)
    });
    project.units.get_mut("a").unwrap().skills.push(Id::new("ice_blade"));
    let mut session = Session::new(project, 1).unwrap();
    // ice_blade (5) wins over fire_blade (1), which is replaced too.
    session.run_script("expect unit a skills ice_blade heal").unwrap();
    let why =
        session.explain(&Subject::Skill { unit: "a".to_owned(), skill: "fire_blade".to_owned(), at: None }).unwrap();
    assert!(why[0].text.starts_with("`fire_blade` is replaced by a's `ice_blade`"), "{why:?}");
}

#[test]
fn wait_facing_is_chosen_freely_where_the_map_allows() {
    let faces = |session: &Session| -> Vec<u16> {
        session
            .choices()
            .into_iter()
            .filter_map(|choice| if let Choice::FaceUnit { facing, .. } = choice { Some(facing) } else { None })
            .collect()
    };
    let face = |facing| Choice::FaceUnit { unit: "a".to_owned(), facing };
    let mut cardinal = Session::new(field(&["attack"], FacingLock::Cardinal), 1).unwrap();
    assert_eq!(faces(&cardinal), [0, 90, 180, 270]);
    let refused = cardinal.apply(&face(45)).unwrap_err().to_string();
    assert!(refused.contains("a can face 0, 90, 180, 270 here (the map's wait_facing Cardinal), not 45"), "{refused}");
    let mut ordinal = Session::new(field(&["attack"], FacingLock::Ordinal), 1).unwrap();
    assert_eq!(faces(&ordinal), [45, 135, 225, 315]);
    ordinal.run_script("face a northeast\nexpect unit a facing 45").unwrap();
    let mut free = Session::new(field(&["attack"], FacingLock::Free), 1).unwrap();
    assert_eq!(faces(&free), [0, 45, 90, 135, 180, 225, 270, 315]);
    free.run_script("face a 200\nexpect unit a facing 200").unwrap();
    assert!(free.apply(&Choice::FaceUnit { unit: "b".to_owned(), facing: 360 }).is_err());
}

#[test]
fn check_reports_replacements_that_name_nothing() {
    let mut project = field(&["attack"], FacingLock::Cardinal);
    project.skills.get_mut("fire").unwrap().replaces = "Act//nothing".to_owned();
    project.skills.get_mut("ice").unwrap().replaces = "ice".to_owned();
    project.skills.get_mut("heal").unwrap().group = "Act////White".to_owned();
    project.skills.get_mut("attack").unwrap().replacement_priority = 3;
    let found: Vec<String> = validate(&project, &Sources::memory(), None).iter().map(ToString::to_string).collect();
    for expected in [
        "skill `fire`, replaces: `Act//nothing` names no skill",
        "skill `ice`, replaces: a skill cannot replace itself",
        "skill `heal`, group: `Act////White` has an empty level",
        "skill `attack`, replacement_priority: replacement_priority is only used with replaces",
    ] {
        assert!(found.iter().any(|message| message.contains(expected)), "{expected}\n{found:#?}");
    }
    let clean = validate(&field(&["attack"], FacingLock::Cardinal), &Sources::memory(), None);
    assert!(clean.is_empty(), "{clean:#?}");
}
