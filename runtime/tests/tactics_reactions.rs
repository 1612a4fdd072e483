//! Reactions in a battle (FORMAT.md §12 "Reactions"): counter-attacks set off by an effect's
//! reactable types or by stat changes, the attacker within the reaction's region, and the
//! `reaction.*`, `effect`, `effect(…)` and `reacted-skill.…` lookups.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: stats are exact small numbers

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session};
use actforge_runtime::model::{
    Column, EffectTarget, Expr, HitType, Id, Placement, Project, Reaction, Region, Skill, StatChange, StatEffect,
    StatOp, StatTrigger, Tile, TileMap, Unit,
};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::validate;

fn exprs(pairs: &[(&str, &str)]) -> BTreeMap<String, Expr> {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), Expr::new(*value))).collect()
}

fn change(stat: &str, value: &str) -> StatEffect {
    StatEffect { stat: stat.to_owned(), value: Expr::new(value), ..StatEffect::default() }
}

/// A stored result: `stat` of `target` set to `value`.
fn store(target: EffectTarget, stat: &str, value: &str) -> StatEffect {
    StatEffect { target, op: StatOp::Set, ..change(stat, value) }
}

fn adjacent() -> Region {
    Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() }
}

/// A flat 6×3 field: `a` (blue, fast) at (1, 1) with `jab` (adjacent, power 1: hp −5, a
/// `melee` `attack`; then it stores `effect` and `effect(decrease in hp get sum)` in its own
/// `latest` and `tally`) and `lob` (2 to 3 cells: hp −1, no types); `b` (red) at (2, 1) with
/// `reaction`'s skill `riposte`.
fn field(reaction: Reaction) -> Project {
    let mut project = Project::new("field");
    let columns =
        (0..3u16).flat_map(|y| (0..6u16).map(move |x| Arc::new(Column { x, y, tiles: vec![Tile::cube(0)] }))).collect();
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
        width: 6,
        depth: 3,
        columns,
        placements: vec![place("a", 1), place("b", 2)],
        ..TileMap::default()
    });
    let results = [("latest", "0"), ("tally", "0"), ("echo", "0"), ("seen", "0"), ("index", "9")];
    for (id, team, speed) in [("a", "blue", "10"), ("b", "red", "5")] {
        let mut stats = exprs(&[("hp", "20"), ("ct", "0"), ("speed", speed)]);
        stats.extend(exprs(&results));
        let skills = if id == "a" { vec![Id::new("jab"), Id::new("lob")] } else { vec![Id::new("riposte")] };
        project.units.insert(Unit { id: Id::new(id), team: team.to_owned(), stats, skills, ..Unit::default() });
    }
    project.skills.insert(Skill {
        id: Id::new("jab"),
        params: exprs(&[("power", "1")]),
        target_region: adjacent(),
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![
                StatEffect { reactable_types: vec!["melee".to_owned(), "attack".to_owned()], ..change("hp", "-5") },
                store(EffectTarget::Actor, "latest", "effect"),
                store(EffectTarget::Actor, "tally", "effect(decrease in hp get sum)"),
            ],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("lob"),
        target_region: Region { radius_min: Expr::new("2"), radius_max: Expr::new("3"), ..Region::default() },
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![change("hp", "-1")],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.skills.insert(Skill { id: Id::new("riposte"), reaction: Some(reaction), ..Skill::default() });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

/// A counter of `reaction.power` + the reacted skill's power, at an adjacent attacker, that
/// stores what it reacts to.
fn counter(types: &[&str], stats: Vec<StatTrigger>) -> Reaction {
    Reaction {
        defender_effect_types: types.iter().map(|kind| (*kind).to_owned()).collect(),
        defender_stat_changes: stats,
        params: exprs(&[("power", "2")]),
        region: adjacent(),
        hit_types: vec![HitType {
            label: "Counter".to_owned(),
            stat_effects: vec![
                change("hp", "-(reaction.power + reacted-skill.power)"),
                store(EffectTarget::Target, "echo", "reacted-skill.effect"),
                store(EffectTarget::Actor, "seen", "reacted-skill.effect(decrease in hp by melee get sum)"),
                store(EffectTarget::Actor, "index", "reaction.hitType"),
            ],
            ..HitType::default()
        }],
        ..Reaction::default()
    }
}

fn stat(session: &Session, unit: &str, name: &str) -> f64 {
    session.tactics().unwrap().stat(unit, name).unwrap()
}

fn use_skill(skill: &str, x: u16) -> Choice {
    Choice::UseSkill { unit: "a".to_owned(), skill: Id::new(skill), x, y: 1, z: 1 }
}

#[test]
fn a_counter_attack_replies_to_a_melee_hit_and_reads_what_it_reacts_to() {
    let project = field(counter(&["melee"], Vec::new()));
    assert!(
        validate(&project, &Sources::memory(), None).is_empty(),
        "{:?}",
        validate(&project, &Sources::memory(), None)
    );
    let mut session = Session::new(project, 1).unwrap();
    assert_eq!(session.tactics().unwrap().active_unit(), Some("a"));
    let events = session.apply(&use_skill("jab", 2)).unwrap();
    let reacted = Event::UnitReacted { unit: "b".to_owned(), skill: Id::new("riposte"), against: "a".to_owned() };
    assert!(events.contains(&reacted), "{events:?}");
    // The jab's own effects: `effect` is its last effect's amount, the search sums its hp drops.
    assert_eq!(stat(&session, "a", "latest"), -5.0);
    assert_eq!(stat(&session, "a", "tally"), -5.0);
    assert_eq!(stat(&session, "b", "hp"), 15.0);
    // The counter: 2 + the jab's power 1; it reads the effect it replies to (the hp −5) and
    // searches the jab's effects; its hit type is 0.
    assert_eq!(stat(&session, "a", "hp"), 17.0);
    assert_eq!(stat(&session, "a", "echo"), -5.0);
    assert_eq!(stat(&session, "b", "seen"), -5.0);
    assert_eq!(stat(&session, "b", "index"), 0.0);
}

#[test]
fn no_reaction_without_its_trigger_out_of_its_region_or_from_a_fallen_unit() {
    // A hit without the `melee` type sets nothing off.
    let mut session = Session::new(field(counter(&["fire"], Vec::new())), 1).unwrap();
    let events = session.apply(&use_skill("jab", 2)).unwrap();
    assert!(!events.iter().any(|event| matches!(event, Event::UnitReacted { .. })), "{events:?}");
    assert_eq!(stat(&session, "a", "hp"), 20.0);
    // A stat trigger: any drop of hp sets it off, even from a lob without types, but the lob
    // comes from 2 cells away, out of the counter's reach.
    let drop = vec![StatTrigger { stat: "hp".to_owned(), change: StatChange::Decrease }];
    let mut session = Session::new(field(counter(&[], drop.clone())), 1).unwrap();
    session.run_script("place unit b 3 1").unwrap();
    let events = session.apply(&use_skill("lob", 3)).unwrap();
    assert!(!events.iter().any(|event| matches!(event, Event::UnitReacted { .. })), "{events:?}");
    // Next to it, the same trigger replies to the jab.
    let mut session = Session::new(field(counter(&[], drop.clone())), 1).unwrap();
    session.apply(&use_skill("jab", 2)).unwrap();
    assert_eq!(stat(&session, "a", "hp"), 17.0);
    // An increase does not set off a trigger on decreases.
    let rise = vec![StatTrigger { stat: "hp".to_owned(), change: StatChange::Increase }];
    let mut session = Session::new(field(counter(&[], rise)), 1).unwrap();
    session.apply(&use_skill("jab", 2)).unwrap();
    assert_eq!(stat(&session, "a", "hp"), 20.0);
    // A unit the hit defeats does not reply.
    let mut session = Session::new(field(counter(&["melee"], drop)), 1).unwrap();
    session.run_script("set unit b hp 5").unwrap();
    let events = session.apply(&use_skill("jab", 2)).unwrap();
    assert!(events.contains(&Event::UnitDefeated { unit: "b".to_owned() }), "{events:?}");
    assert_eq!(stat(&session, "a", "hp"), 20.0);
}

#[test]
fn check_reports_reactions_that_never_happen_and_lookups_that_never_resolve() {
    let mut project = field(Reaction { region: adjacent(), ..Reaction::default() });
    project.skills.get_mut("lob").unwrap().hit_types[0].stat_effects =
        vec![change("hp", "-(reaction.reach)"), change("hp", "effect(decrease in hp by frost get sum)")];
    let found: Vec<String> = validate(&project, &Sources::memory(), None).iter().map(ToString::to_string).collect();
    for expected in [
        "reaction: a reaction with no stat changes and no effect types to react to never happens",
        "reaction.hit_types: a reaction without hit types has no effect",
        "no skill's reaction has the parameter `reach`",
        "no effect has the reactable type `frost` (effects have: attack, melee)",
    ] {
        assert!(found.iter().any(|message| message.contains(expected)), "{expected}\n{found:#?}");
    }
}
