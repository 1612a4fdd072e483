//! Live stats and statuses in a battle (FORMAT.md §12): derived stats and limits follow their
//! inputs, status amounts read the unit that holds the status, per-tick effects (poison,
//! regen) on the global clock or the unit's own, stacking rules, the set-up lines and checks
//! for statuses, their `check` diagnostics and the "why not?" reasons that name them.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: stats are exact small numbers

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session, Subject};
use actforge_runtime::model::{
    Column, EffectTarget, Expr, HitType, Id, Limits, Placement, Project, Region, Skill, StatEffect, StatOp,
    StatusClock, StatusEffect, StatusStacking, Tile, TileMap, Unit,
};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::validate;

fn stats(pairs: &[(&str, &str)]) -> BTreeMap<String, Expr> {
    pairs.iter().map(|(name, value)| ((*name).to_owned(), Expr::new(*value))).collect()
}

fn change(stat: &str, value: &str) -> StatEffect {
    StatEffect { stat: stat.to_owned(), value: Expr::new(value), ..StatEffect::default() }
}

/// A flat 5×5 field: `a` (blue, speed 10, def 2) at (1, 1) facing `b` (red, speed 5, def 4)
/// at (2, 1). Both have `vit` 5, `maxhp` = `c.vit * 4`, `hp` = `c.maxhp` within 0..`c.maxhp`,
/// and the skills `jab` (adjacent: hp −5) and `afflict` (adjacent: puts on `statuses`).
fn field(statuses: Vec<StatusEffect>) -> Project {
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
    for (id, team, speed, def) in [("a", "blue", "10", "2"), ("b", "red", "5", "4")] {
        project.units.insert(Unit {
            id: Id::new(id),
            team: team.to_owned(),
            stats: stats(&[
                ("vit", "5"),
                ("maxhp", "c.vit * 4"),
                ("hp", "c.maxhp"),
                ("ct", "0"),
                ("speed", speed),
                ("atk", "9"),
                ("def", def),
            ]),
            limits: BTreeMap::from([(
                "hp".to_owned(),
                Limits { min: Some(Expr::new("0")), max: Some(Expr::new("c.maxhp")) },
            )]),
            skills: vec![Id::new("jab"), Id::new("afflict")],
            ..Unit::default()
        });
    }
    let adjacent = Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() };
    project.skills.insert(Skill {
        id: Id::new("jab"),
        target_region: adjacent.clone(),
        hit_types: vec![HitType {
            label: "Hit".to_owned(),
            stat_effects: vec![change("hp", "-5")],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("afflict"),
        target_region: adjacent,
        hit_types: vec![HitType { label: "Afflicted".to_owned(), status_effects: statuses, ..HitType::default() }],
        ..Skill::default()
    });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

fn status(name: &str, ticks: &str) -> StatusEffect {
    StatusEffect { name: name.to_owned(), duration_ticks: Expr::new(ticks), ..StatusEffect::default() }
}

fn stat(session: &Session, unit: &str, name: &str) -> f64 {
    session.tactics().unwrap().stat(unit, name).unwrap()
}

fn afflict() -> Choice {
    Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("afflict"), x: 2, y: 1, z: 1 }
}

/// Lets turns pass (each unit waits) until `until` holds, at most 40 turns.
fn wait_until(session: &mut Session, until: impl Fn(&Session) -> bool) -> Vec<Event> {
    let mut events = Vec::new();
    for _ in 0..40 {
        if until(session) {
            return events;
        }
        let Some(unit) = session.tactics().unwrap().active_unit().map(str::to_owned) else { break };
        events.extend(session.apply(&Choice::WaitUnit { unit }).unwrap());
    }
    assert!(until(session), "not reached in 40 turns");
    events
}

#[test]
fn derived_stats_and_limits_follow_their_inputs_live() {
    let mut session = Session::new(field(Vec::new()), 1).unwrap();
    assert_eq!(stat(&session, "a", "maxhp"), 20.0);
    // SRPGCK reads `maxhp: c.vit * 4` whenever it is asked: vit 20 gives 80, and hp, which
    // nothing has changed yet, follows maxhp; its limit (max `c.maxhp`) follows too.
    session.run_script("set unit a vit 20\nexpect unit a maxhp 80\nexpect unit a hp 80\nset unit b hp 15").unwrap();
    session.run_script("set unit a hp 70\nexpect unit a hp 70").unwrap();
    let error = session.run_script("set unit a hp 81").unwrap_err();
    assert!(error.message.contains("81 is above the max of a's hp, 80"), "{error}");
    // b's hp was changed: it holds its number now, whatever maxhp does.
    session.run_script("set unit b vit 10\nexpect unit b maxhp 40\nexpect unit b hp 15").unwrap();
    // A hit on a live stat stores the changed value: hp 20 − 5.
    let mut session = Session::new(field(Vec::new()), 1).unwrap();
    let jab = Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("jab"), x: 2, y: 1, z: 1 };
    let events = session.apply(&jab).unwrap();
    assert!(events.contains(&Event::UnitDamaged { unit: "b".to_owned(), amount: 5.0, hp: 15.0 }), "{events:?}");
    session.run_script("set unit b vit 10\nexpect unit b maxhp 40\nexpect unit b hp 15").unwrap();
    // The shown base values of live stats are brought up to date after each step.
    assert_eq!(session.tactics().unwrap().unit("b").unwrap().stats.get("maxhp"), Some(&40.0));
}

#[test]
fn a_status_raising_an_input_raises_the_derived_stat_and_its_amount_reads_the_holder() {
    // `vigour`: vit + 5; `weak`: atk − the holder's def (b: 4; a, who puts it on, has 2).
    let vigour = StatusEffect { stat_effects: vec![change("vit", "5")], ..status("vigour", "50") };
    let weak = StatusEffect { stat_effects: vec![change("atk", "-c.def")], ..status("weak", "50") };
    let mut session = Session::new(field(vec![vigour, weak]), 1).unwrap();
    session.apply(&afflict()).unwrap();
    assert_eq!(stat(&session, "b", "vit"), 10.0);
    assert_eq!(stat(&session, "b", "maxhp"), 40.0, "maxhp reads the effective vit");
    assert_eq!(stat(&session, "b", "atk"), 5.0, "9 − b's def 4, not a's 2");
    // The amount is read live: b's def changes, so does the penalty.
    session.run_script("set unit b def 1\nexpect unit b atk 8").unwrap();
}

#[test]
fn poison_ticks_on_the_global_clock_and_ends_with_its_duration() {
    // 10 ticks, hp −2 every 4: at ticks 4 and 8 of its clock.
    let poison = StatusEffect {
        tick_effects: vec![change("hp", "-2")],
        tick_interval: Expr::new("4"),
        ..status("poison", "10")
    };
    let mut session = Session::new(field(vec![poison]), 1).unwrap();
    let events = session.apply(&afflict()).unwrap();
    assert!(events.contains(&Event::UnitStatusAdded { unit: "b".to_owned(), status: "poison".to_owned(), ticks: 10 }));
    session.run_script("expect unit b status poison ticks 10").unwrap();
    let events = wait_until(&mut session, |session| session.tactics().unwrap().unit("b").unwrap().statuses.is_empty());
    let hits: Vec<&Event> =
        events.iter().filter(|event| matches!(event, Event::UnitDamaged { unit, .. } if unit == "b")).collect();
    assert_eq!(hits.len(), 2, "{events:?}");
    assert!(events.contains(&Event::UnitStatusExpired { unit: "b".to_owned(), status: "poison".to_owned() }));
    assert_eq!(stat(&session, "b", "hp"), 16.0);
    session.run_script("expect unit b status poison none").unwrap();
}

#[test]
fn regen_on_the_units_own_clock_counts_its_speed_and_stops_at_the_limit() {
    // b's speed is 5: 40 ticks of its time last 8 scheduler ticks; +3 hp every 10 of them, so
    // four rounds, but hp stops at its max (c.maxhp, 20).
    let regen = StatusEffect {
        clock: StatusClock::Unit,
        tick_effects: vec![change("hp", "3")],
        tick_interval: Expr::new("10"),
        ..status("regen", "40")
    };
    let mut session = Session::new(field(vec![regen]), 1).unwrap();
    session.run_script("set unit b hp 10").unwrap();
    let at = session.tactics().unwrap().tick;
    session.apply(&afflict()).unwrap();
    let events = wait_until(&mut session, |session| session.tactics().unwrap().unit("b").unwrap().statuses.is_empty());
    let ended = session.tactics().unwrap().tick;
    assert!(events.contains(&Event::UnitStatusExpired { unit: "b".to_owned(), status: "regen".to_owned() }));
    assert_eq!(stat(&session, "b", "hp"), 20.0, "10 + 3 + 3 + 3, then 1 to the max");
    assert!(ended >= at + 8, "it lasted 8 scheduler ticks at least: {at}..{ended}");
    // The set-up line takes the status's duration, in ticks of its own clock.
    let mut session =
        Session::new(field(vec![StatusEffect { clock: StatusClock::Unit, ..status("regen", "40") }]), 1).unwrap();
    session.run_script("set unit b status regen\nexpect unit b status regen ticks 40").unwrap();
    assert_eq!(session.tactics().unwrap().unit("b").unwrap().statuses[0].remaining, 40.0);
}

#[test]
fn stacking_replaces_or_adds_and_unremovable_or_higher_priority_statuses_stay() {
    let slow = |stacking, priority, unremovable| StatusEffect {
        stacking,
        priority,
        unremovable,
        stat_effects: vec![change("speed", "-1")],
        ..status("slowed", "30")
    };
    // Replace (the default): the second one starts over, one stack.
    let mut session = Session::new(field(vec![slow(StatusStacking::Replace, 0, false)]), 1).unwrap();
    session
        .run_script("set unit b status slowed 5\nset unit b status slowed\nexpect unit b status slowed stacks 1")
        .unwrap();
    session.run_script("expect unit b status slowed ticks 30\nexpect unit b speed 4").unwrap();
    // Cumulative: each one counts.
    let mut session = Session::new(field(vec![slow(StatusStacking::Cumulative, 0, false)]), 1).unwrap();
    session.apply(&afflict()).unwrap();
    session
        .run_script("set unit b status slowed\nexpect unit b status slowed stacks 2\nexpect unit b speed 3")
        .unwrap();
    // Unremovable: it never runs out and nothing replaces it.
    let mut session = Session::new(field(vec![slow(StatusStacking::Replace, 0, true)]), 1).unwrap();
    session.apply(&afflict()).unwrap();
    session.run_script("expect unit b status slowed ticks unremovable").unwrap();
    let events = session.apply(&Choice::WaitUnit { unit: "a".to_owned() }).unwrap();
    assert!(!events.iter().any(|event| matches!(event, Event::UnitStatusExpired { .. })));
    let error = session.run_script("set unit b status slowed 5").unwrap_err();
    assert!(error.message.contains("cannot replace (unremovable or of a higher priority)"), "{error}");
    // Set-up is outside the rules: `off` takes it away.
    session
        .run_script("set unit b status slowed off\nexpect unit b status slowed none\nexpect unit b speed 5")
        .unwrap();
    // A lower priority does not replace a higher one.
    let mut project = field(vec![slow(StatusStacking::Replace, 2, false)]);
    project.skills.insert(Skill {
        id: Id::new("hinder"),
        target_region: Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() },
        hit_types: vec![HitType {
            label: "Hindered".to_owned(),
            status_effects: vec![StatusEffect { stat_effects: vec![change("speed", "-4")], ..status("slowed", "9") }],
            ..HitType::default()
        }],
        ..Skill::default()
    });
    project.units.get_mut("a").unwrap().skills.push(Id::new("hinder"));
    let mut session = Session::new(project, 1).unwrap();
    session.apply(&afflict()).unwrap();
    session.apply(&Choice::WaitUnit { unit: "a".to_owned() }).unwrap();
    wait_until(&mut session, |session| session.tactics().unwrap().active_unit() == Some("a"));
    let events =
        session.apply(&Choice::UseSkill { unit: "a".to_owned(), skill: Id::new("hinder"), x: 2, y: 1, z: 1 }).unwrap();
    assert!(!events.iter().any(|event| matches!(event, Event::UnitStatusAdded { .. })), "{events:?}");
    assert_eq!(stat(&session, "b", "speed"), 4.0, "the priority 2 slow stays");
}

#[test]
fn poison_can_defeat_a_unit_between_turns_and_end_the_battle() {
    let poison = StatusEffect { tick_effects: vec![change("hp", "-1")], ..status("poison", "100") };
    let mut session = Session::new(field(vec![poison]), 1).unwrap();
    session.run_script("set unit b hp 3").unwrap();
    session.apply(&afflict()).unwrap();
    let events = wait_until(&mut session, |session| session.tactics().unwrap().winner().is_some());
    assert!(events.contains(&Event::UnitDefeated { unit: "b".to_owned() }), "{events:?}");
    session.run_script("expect winner blue\nexpect unit b defeated").unwrap();
}

#[test]
fn status_set_up_lines_say_why_not() {
    let mut session = Session::new(field(vec![status("dazed", "c.def * 2")]), 1).unwrap();
    for (line, why) in [
        ("set unit b status frozen", "no skill or item puts on a status `frozen` (statuses: dazed)"),
        ("set unit b status dazed", "the duration of `dazed` is the formula `c.def * 2`: give the ticks"),
        ("set unit b status dazed 0", "a status lasts at least 1 tick"),
        ("set unit b status dazed off", "b has no status `dazed`"),
        ("set unit b status", "usage: set unit UNIT status NAME [TICKS|off]"),
    ] {
        let error = session.run_script(line).unwrap_err();
        assert!(error.message.contains(why), "{line}: {}", error.message);
    }
    session.run_script("set unit b status dazed 3\nexpect unit b status dazed").unwrap();
    let error = session.run_script("expect unit b status dazed stacks 2").unwrap_err();
    assert!(error.message.contains("b's `dazed` statuses is 1, expected 2"), "{}", error.message);
}

#[test]
fn why_not_names_the_statuses_that_change_the_units_stats() {
    let mut project = field(Vec::new());
    project.skills.insert(Skill {
        id: Id::new("walk"),
        kind: actforge_runtime::model::SkillKind::Move,
        target_region: Region {
            space: actforge_runtime::model::InterveningSpace::Path,
            radius_max: Expr::new("c.move"),
            z_up_max: Expr::new("1"),
            z_down_max: Expr::new("1"),
            ..Region::default()
        },
        ..Skill::default()
    });
    let a = project.units.get_mut("a").unwrap();
    a.skills.push(Id::new("walk"));
    a.stats.insert("move".to_owned(), Expr::new("3"));
    project.skills.get_mut("afflict").unwrap().hit_types[0].status_effects = vec![StatusEffect {
        stat_effects: vec![change("move", "-2")],
        tick_effects: vec![change("hp", "-1")],
        tick_interval: Expr::new("5"),
        ..status("mired", "20")
    }];
    let mut session = Session::new(project, 1).unwrap();
    session.run_script("set unit a status mired").unwrap();
    let why = session.explain(&Subject::Move { unit: "a".to_owned(), at: (4, 1, 1), via: Vec::new() }).unwrap();
    assert!(
        why[0].text.contains("its statuses: mired (move -2, hp -1 every 5 ticks; 20 ticks left)"),
        "{}",
        why[0].text
    );
}

#[test]
fn check_reports_bad_status_values() {
    let bad = vec![
        StatusEffect { tick_interval: Expr::new("0"), tick_effects: vec![change("hp", "-1")], ..status("a", "5") },
        StatusEffect { unremovable: true, ..status("b", "5") },
        status("c", "0"),
        status("d", "-3"),
        StatusEffect { tick_interval: Expr::new("3"), ..status("e", "5") },
        StatusEffect {
            tick_effects: vec![StatEffect { target: EffectTarget::Actor, op: StatOp::Add, ..change("hp", "1") }],
            ..status("f", "5")
        },
        status("", "5"),
        StatusEffect { stat_effects: vec![change("def", "-(t.def + skill.power) + c.def")], ..status("h", "5") },
    ];
    let project = field(bad);
    let found: Vec<String> = validate(&project, &Sources::memory(), None).iter().map(ToString::to_string).collect();
    for expected in [
        "status_effects[0].tick_interval: tick_interval must be above 0 (it is 0)",
        "status_effects[1].duration_ticks: an unremovable status lasts the whole battle",
        "status_effects[2].duration_ticks: a status lasting 0 ticks is never put on",
        "status_effects[3].duration_ticks: duration_ticks cannot be negative (it is -3)",
        "status_effects[4].tick_interval: tick_interval is only used by tick_effects, and there are none",
        "status_effects[5].tick_effects[0].target: a status changes the unit that holds it",
        "status_effects[6].name: a status needs a name",
        "status_effects[7].stat_effects[0].value: a status's amounts are read with `c` the unit that holds it, \
         and no target or skill: t.def, skill.power reads NaN here",
    ] {
        assert!(found.iter().any(|message| message.contains(expected)), "{expected}\n{found:#?}");
    }
    assert!(
        validate(&field(vec![status("fine", "5")]), &Sources::memory(), None).is_empty(),
        "{:?}",
        validate(&field(vec![status("fine", "5")]), &Sources::memory(), None)
    );
}

#[test]
fn why_not_says_a_jumping_unit_waits_for_a_turn_that_does_not_come() {
    let mut session = Session::new(field(vec![status("jumping", "50")]), 1).unwrap();
    session.run_script("expect turn a\nset unit b status jumping").unwrap();
    let why = session.explain(&Subject::Skill { unit: "b".to_owned(), skill: "jab".to_owned(), at: None }).unwrap();
    assert_eq!(why[0].text, "it is a's turn, and b is `jumping`: its CT does not grow");
}

#[test]
fn the_skirmish_venom_playtest_passes() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/srpg-skirmish");
    let project = actforge_runtime::project::load_folder(&root).unwrap().project;
    let script = std::fs::read_to_string(root.join("tests/srpg_skirmish_venom.play")).unwrap();
    let mut session = Session::new(project, 3).unwrap();
    let report = session.run_script(&script).unwrap_or_else(|error| panic!("{error}"));
    assert!(report.expectations >= 15, "{}", report.expectations);
    assert_eq!(session.tactics().unwrap().stat("mystic", "hp"), Some(15.0));
}
