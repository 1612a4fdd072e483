//! Equipment in a battle (FORMAT.md §3 "equipment/", §12 "Equipment"): `equip(…)` searches and
//! `exists(equip(…))`, the stat chain equipment → skills → statuses, the skills and statuses
//! equipment grants while it is worn, the set-up lines and the `check` diagnostics.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: stats are exact small numbers

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Session, Subject};
use actforge_runtime::model::{
    Column, EffectTarget, Equipment, Expr, HitType, Id, Placement, Project, Region, Skill, StatEffect, StatOp,
    StatusEffect, Tile, TileMap, Unit,
};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::validate;

fn exprs(pairs: &[(&str, &str)]) -> BTreeMap<String, Expr> {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), Expr::new(*value))).collect()
}

fn change(stat: &str, value: &str) -> StatEffect {
    StatEffect { stat: stat.to_owned(), value: Expr::new(value), ..StatEffect::default() }
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|name| (*name).to_owned()).collect()
}

/// Each search the test reads, stored by the `probe` skill into a stat of the actor.
const PROBES: [(&str, &str); 11] = [
    ("r_first", "equip(weapon).power"),
    ("r_sum", "equip(weapon get sum).power"),
    ("r_max", "equip(weapon get max).power"),
    ("r_min", "equip(weapon get min).power"),
    ("second", "equip(weapon get 2).power"),
    ("r_mean", "equip(weapon get mean).power"),
    ("dagger", "equip(dagger in hand).power"),
    ("armed", "exists(equip(weapon))"),
    ("gloved", "exists(equip(armour in hand))"),
    ("target_armed", "exists(t.equip(weapon))"),
    ("worn_guard", "lookup(equip(armour).guard, 0)"),
];

/// A flat 5×5 field: `a` (blue; hands and a body; a sword, a dagger and mail) at (1, 1) next
/// to `b` (red, nothing worn) at (2, 1). The sword (power 7, `bonus` 3) adds its bonus to atk
/// and grants `slash`; the dagger has power 2; the mail puts on `warded` (def +2) while worn.
fn field() -> Project {
    let mut project = Project::new("field");
    let columns =
        (0..5u16).flat_map(|y| (0..5u16).map(move |x| Arc::new(Column { x, y, tiles: vec![Tile::cube(0)] }))).collect();
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
        width: 5,
        depth: 5,
        columns,
        placements: vec![place("a", 1), place("b", 2)],
        ..TileMap::default()
    });
    let mut stats = exprs(&[("hp", "20"), ("ct", "0"), ("atk", "9"), ("def", "1")]);
    stats.extend(PROBES.iter().map(|(name, _)| ((*name).to_owned(), Expr::new("0"))));
    project.units.insert(Unit {
        id: Id::new("a"),
        team: "blue".to_owned(),
        stats: {
            let mut stats = stats.clone();
            stats.insert("speed".to_owned(), Expr::new("10"));
            stats
        },
        skills: vec![Id::new("probe")],
        slots: names(&["hand", "hand", "body"]),
        equipment: vec![Id::new("sword"), Id::new("dagger"), Id::new("mail")],
        ..Unit::default()
    });
    project.units.insert(Unit {
        id: Id::new("b"),
        team: "red".to_owned(),
        stats: {
            let mut stats = stats;
            stats.insert("speed".to_owned(), Expr::new("5"));
            stats
        },
        skills: vec![Id::new("probe")],
        slots: names(&["hand"]),
        ..Unit::default()
    });
    equip(&mut project);
    let adjacent = Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() };
    project.skills.insert(Skill {
        id: Id::new("probe"),
        target_region: adjacent.clone(),
        hit_types: vec![HitType {
            label: "Probe".to_owned(),
            stat_effects: PROBES
                .iter()
                .map(|(name, formula)| StatEffect {
                    target: EffectTarget::Actor,
                    op: StatOp::Set,
                    ..change(name, formula)
                })
                .collect(),
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("slash"),
        target_region: adjacent,
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![change("hp", "-(equip(sword).power)")],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

/// The sword (power 7, `bonus` 3: adds it to atk, grants `slash`), the dagger (power 2) and
/// the mail (puts on `warded`, def +2, while worn).
fn equip(project: &mut Project) {
    project.equipment.insert(Equipment {
        id: Id::new("sword"),
        slots: names(&["hand"]),
        categories: names(&["weapon", "sword"]),
        params: exprs(&[("power", "7"), ("bonus", "3")]),
        passive_effects: vec![change("atk", "equip.bonus")],
        skills: vec![Id::new("slash")],
        ..Equipment::default()
    });
    project.equipment.insert(Equipment {
        id: Id::new("dagger"),
        slots: names(&["hand"]),
        categories: names(&["weapon", "dagger"]),
        params: exprs(&[("power", "2")]),
        ..Equipment::default()
    });
    project.equipment.insert(Equipment {
        id: Id::new("mail"),
        slots: names(&["body"]),
        categories: names(&["armour"]),
        params: exprs(&[("guard", "5")]),
        status_effects: vec![StatusEffect {
            name: "warded".to_owned(),
            stat_effects: vec![change("def", "2")],
            ..StatusEffect::default()
        }],
        ..Equipment::default()
    });
}

fn stat(session: &Session, unit: &str, name: &str) -> f64 {
    session.tactics().unwrap().stat(unit, name).unwrap()
}

fn use_skill(unit: &str, skill: &str, x: u16) -> Choice {
    Choice::UseSkill { unit: unit.to_owned(), skill: Id::new(skill), x, y: 1, z: 1 }
}

#[test]
fn equip_searches_read_the_parameters_of_matching_equipment() {
    let project = field();
    assert!(
        validate(&project, &Sources::memory(), None).is_empty(),
        "{:?}",
        validate(&project, &Sources::memory(), None)
    );
    let mut session = Session::new(project, 1).unwrap();
    assert_eq!(session.tactics().unwrap().active_unit(), Some("a"));
    session.apply(&use_skill("a", "probe", 2)).unwrap();
    // Sword (7) then dagger (2), in the order the unit lists them; mail is no weapon.
    for (name, expected) in [
        ("r_first", 7.0),
        ("r_sum", 9.0),
        ("r_max", 7.0),
        ("r_min", 2.0),
        ("second", 2.0),
        ("r_mean", 4.5),
        ("dagger", 2.0),
        ("armed", 1.0),
        ("gloved", 0.0),
        ("target_armed", 0.0),
        ("worn_guard", 5.0),
    ] {
        assert_eq!(stat(&session, "a", name), expected, "{name}");
    }
}

#[test]
fn stats_change_by_equipment_then_skills_then_statuses() {
    let mut project = field();
    // A skill's passive doubles atk, a status adds 1: (9 + 3) × 2 + 1, in SRPGCK's order.
    project.skills.get_mut("probe").unwrap().passive_effects =
        vec![StatEffect { op: StatOp::Multiply, ..change("atk", "2") }];
    project.equipment.get_mut("mail").unwrap().status_effects[0].stat_effects.push(change("atk", "1"));
    let session = Session::new(project, 1).unwrap();
    assert_eq!(stat(&session, "a", "atk"), 25.0);
    // b wears nothing: only the skill's passive.
    assert_eq!(stat(&session, "b", "atk"), 18.0);
    assert_eq!(stat(&session, "a", "def"), 3.0);
}

#[test]
fn equipment_grants_its_skills_and_statuses_while_it_is_worn() {
    let mut session = Session::new(field(), 1).unwrap();
    assert!(session.choices().contains(&use_skill("a", "slash", 2)), "{:?}", session.choices());
    session.run_script("expect unit a equip sword\nexpect unit a status warded\nexpect unit a def 3").unwrap();
    // Taking the mail off takes its status off; putting it back puts it on again.
    session
        .run_script("set unit a equip mail off\nexpect unit a equip mail none\nexpect unit a status warded none")
        .unwrap();
    session.run_script("expect unit a def 1\nset unit a equip mail\nexpect unit a def 3").unwrap();
    // Without the sword: no slash, and atk loses the sword's bonus.
    session.run_script("expect unit a atk 12\nset unit a equip sword off\nexpect unit a atk 9").unwrap();
    assert!(!session.choices().contains(&use_skill("a", "slash", 2)));
    let why = session.explain(&Subject::Skill { unit: "a".to_owned(), skill: "slash".to_owned(), at: None }).unwrap();
    assert_eq!(why[0].text, "a has no action skill `slash`: it comes with `sword`, which a does not wield");
    // Both hands are taken again by two daggers' worth: a third hand item does not fit.
    session.run_script("set unit a equip dagger").unwrap();
    let error = session.run_script("set unit a equip sword").unwrap_err();
    assert!(error.message.contains("`sword` takes 1 `hand` slot(s) and a has 0 free"), "{error}");
    let error = session.run_script("set unit b equip bow").unwrap_err();
    assert!(error.message.contains("there is no equipment `bow` (the project has: dagger, mail, sword)"), "{error}");
    // Slash reads the sword's power: b takes 7.
    let mut session = Session::new(field(), 1).unwrap();
    session.apply(&use_skill("a", "slash", 2)).unwrap();
    assert_eq!(stat(&session, "b", "hp"), 13.0);
}

#[test]
fn set_up_can_put_on_a_status_only_equipment_grants() {
    // `warded` comes only with the mail: set-up finds it there and gives b its +2 def.
    let mut session = Session::new(field(), 1).unwrap();
    let before = stat(&session, "b", "def");
    session
        .run_script("expect unit b status warded none\nset unit b status warded 3\nexpect unit b status warded ticks 3")
        .unwrap();
    assert_eq!(stat(&session, "b", "def"), before + 2.0);
    let error = session.run_script("set unit b status frozen 2").unwrap_err();
    assert!(error.message.contains("no skill or item puts on a status `frozen` (statuses: warded)"), "{error}");
}

#[test]
fn the_status_notes_say_a_worn_status_lasts_while_its_equipment_is_worn() {
    let session = Session::new(field(), 1).unwrap();
    assert_eq!(session.tactics().unwrap().status_notes("a"), vec!["warded (def +2; while mail is worn)".to_owned()]);
}

#[test]
fn check_reports_equipment_that_does_not_fit_and_searches_that_never_match() {
    let mut project = field();
    project.units.get_mut("b").unwrap().equipment = vec![Id::new("sword"), Id::new("dagger"), Id::new("mail")];
    project.skills.get_mut("slash").unwrap().hit_types[0].stat_effects = vec![
        change("hp", "-(equip(bow).power)"),
        change("hp", "-(equip(weapon in feet).power)"),
        change("hp", "-(equip(weapon).speed)"),
    ];
    project.equipment.get_mut("mail").unwrap().status_effects[0].duration_ticks = Expr::new("5");
    project.equipment.get_mut("mail").unwrap().passive_effects = vec![change("def", "t.def")];
    let found: Vec<String> = validate(&project, &Sources::memory(), None).iter().map(ToString::to_string).collect();
    for expected in [
        "equipment[1]: `dagger` needs 1 `hand` (free: 0) slot(s) the unit does not have free",
        "equipment[2]: `mail` needs 1 `body` (free: 0) slot(s)",
        "no equipment has the category `bow` (equipment has: armour, dagger, sword, weapon)",
        "no equipment has the slot `feet` (equipment has: body, hand)",
        "no equipment has the parameter `speed` (equipment has: bonus, guard, power)",
        "status_effects[0].duration_ticks: an equipment's status lasts while the equipment is worn",
        "passive_effects[0].value: an equipment's passive amounts are read with `c` the unit that wields it, and no \
         target or skill: t.def reads NaN here",
    ] {
        assert!(found.iter().any(|message| message.contains(expected)), "{expected}\n{found:#?}");
    }
}
