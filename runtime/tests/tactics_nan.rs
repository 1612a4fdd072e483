//! No silent NaN in battles (issue 29.10, FORMAT.md §12): `check` reports each lookup that
//! cannot resolve where its formula is read, at its file:line:col, and a NaN that still
//! happens in play is a warning event naming the formula.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::model::{
    Column, Expr, Formula, HitType, Id, Placement, Project, Region, Skill, StatEffect, Tile, TileMap, Unit,
    WinCondition,
};
use actforge_runtime::project::{Sources, load_folder, save_new_folder};
use actforge_runtime::validate::validate;

/// `a` (blue) at (1, 1) next to `b` (red) at (2, 1) on a flat 4×3 field; `jab` (adjacent)
/// hits with `damage` as the hp change, `hit` as its hit type.
fn field(damage: &str, hit: &str) -> Project {
    let mut project = Project::new("nan");
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
        ..TileMap::default()
    });
    // Only `b` has an `armour`: `c.armour` reads NaN when `a` uses a skill.
    for (id, team, armour) in [("a", "blue", None), ("b", "red", Some(("armour", "2")))] {
        project.units.insert(Unit {
            id: Id::new(id),
            team: team.to_owned(),
            stats: [("hp", "20"), ("ct", "0"), ("speed", "10"), ("atk", "6")]
                .into_iter()
                .chain(armour)
                .map(|(name, value)| (name.to_owned(), Expr::new(value)))
                .collect::<BTreeMap<_, _>>(),
            skills: vec![Id::new("jab")],
            ..Unit::default()
        });
    }
    project.skills.insert(Skill {
        id: Id::new("jab"),
        params: BTreeMap::from([("power".to_owned(), Expr::new("3"))]),
        target_region: Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() },
        hit_type: Expr::new(hit),
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![StatEffect { stat: "hp".to_owned(), value: Expr::new(damage), ..StatEffect::default() }],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

fn messages(project: &Project) -> Vec<String> {
    validate(project, &Sources::memory(), None).iter().map(ToString::to_string).collect()
}

#[test]
fn check_reports_each_lookup_that_reads_nan_where_it_is_used() {
    let mut project = field("-(c.atk + skill.powr + c.armour + t.armour)", "skill.arg.dx - 1");
    // A unit's stat has no target; a win condition has no `c`; a named formula is read where
    // it is used; `exists` and `lookup(…, default)` have fallbacks and are fine.
    let unit = project.units.get_mut("a").unwrap();
    unit.stats.insert("guard".to_owned(), Expr::new("t.atk + lookup(c.nothing, 1)"));
    project.formulas.insert(Formula { id: Id::new("edge"), expr: Expr::new("c.atk - c.armour"), ..Formula::default() });
    project.skills.get_mut("jab").unwrap().params.insert("bonus".to_owned(), Expr::new("f.edge"));
    project.tile_maps.get_mut("field").unwrap().win_conditions =
        vec![WinCondition { team: "blue".to_owned(), when: Expr::new("c.hp <= 0 or exists(c.status.x)") }];
    let found = messages(&project);
    for expected in [
        "skill `jab`, hit_types[0].stat_effects[0].value: `skill.powr` reads NaN: skill `jab` has no parameter `powr`",
        "skill `jab`, hit_types[0].stat_effects[0].value: `c.armour` reads NaN for a: no stat `armour` (a skill's effects)",
        "unit `a`, stats[\"guard\"]: `t.atk` reads NaN: a unit's stats and limits (read with `c` the unit only) has no target",
        "skill `jab`, params[\"bonus\"]: `f.edge` reads `c.armour` reads NaN for a: no stat `armour`",
        "tile map `field`, win_conditions[0].when: `c.hp` reads NaN: a win condition",
    ] {
        assert!(found.iter().any(|message| message.contains(expected)), "{expected}\n{found:#?}");
    }
    let quiet = ["c.nothing", "c.atk`", "t.armour"];
    assert!(!found.iter().any(|message| quiet.iter().any(|name| message.contains(name))), "{found:#?}");
    assert!(!found.iter().any(|message| message.contains("arg.dx")), "{found:#?}");
    // The same project with its lookups right is clean.
    let clean = messages(&field("-(c.atk + skill.power - t.hp / 10)", "0"));
    assert!(clean.is_empty(), "{clean:#?}");
}

#[test]
fn check_places_the_lookup_at_its_file_line_and_column() {
    let project = field("-(c.atk + c.armour)", "0");
    let dir = tempfile::tempdir().unwrap();
    save_new_folder(&project, dir.path()).unwrap();
    let loaded = load_folder(dir.path()).unwrap();
    let found = validate(&loaded.project, &loaded.sources, Some(dir.path()));
    let diagnostic = found.iter().find(|diagnostic| diagnostic.message.contains("c.armour")).expect("reported");
    let text = std::fs::read_to_string(dir.path().join("skills/jab.ron")).unwrap();
    let (line, row) = text.lines().enumerate().find(|(_, row)| row.contains("c.armour")).unwrap();
    let position = diagnostic.position.expect("placed");
    assert_eq!(position.line, line + 1, "{diagnostic}");
    // The column is the lookup's own, inside the formula's string.
    assert_eq!(position.col, row.find("c.armour").unwrap() + 1, "{diagnostic}");
    assert!(diagnostic.to_string().contains("jab.ron"), "{diagnostic}");
}

#[test]
fn a_nan_in_play_is_a_warning_naming_the_formula() {
    let mut session = Session::new(field("-(c.atk + c.armour)", "c.armour"), 1).unwrap();
    let events =
        session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("jab"), x: 2, y: 1, z: 1 }).unwrap();
    let warnings: Vec<&String> =
        events.iter().filter_map(|event| if let Event::Warning(text) = event { Some(text) } else { None }).collect();
    assert!(warnings.iter().any(|text| text.starts_with("jab's hit_type `c.armour` is NaN")), "{warnings:?}");
    assert!(
        warnings.iter().any(|text| text.starts_with("jab's effect on b's `hp` `-(c.atk + c.armour)` is NaN")),
        "{warnings:?}"
    );
    assert_eq!(session.tactics().unwrap().stat("b", "hp"), Some(20.0));
}
