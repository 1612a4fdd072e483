//! Schedulers of a battle (FORMAT.md §12, `spec/srpgck.md` §d, seed 001 "Schedulers"): the
//! team-round schedulers (pick any once; points per round), CT costs coalesced at the end of a
//! turn, and charged skills that resolve on a later tick; their playtest lines and "why not?".
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: stats are exact small numbers

use std::collections::BTreeMap;
use std::sync::Arc;

use actforge_runtime::engine::{Choice, Event, Session, Subject};
use actforge_runtime::model::{
    Column, Expr, HitType, Id, Placement, Project, Region, Scheduler, SchedulerKind, Skill, SkillKind, StatEffect,
    Tile, TileMap, Unit,
};
use actforge_runtime::project::Sources;
use actforge_runtime::validate::validate;

/// A flat 8×3 field: `a1` (blue) at (0, 1), `a2` (blue) at (1, 1), `b1` (red) at (7, 1),
/// each with hp 20, ct 0, speed 10 (a1), 10 (a2), 5 (b1); skills `walk` (5 cells), `jab`
/// (adjacent: hp −5) and `meteor` (3 cells, hits the spot only: hp −7, with `delay`).
fn field(scheduler: Scheduler, delay: &str) -> Project {
    let mut project = Project::new("sched");
    let columns =
        (0..3u16).flat_map(|y| (0..8u16).map(move |x| Arc::new(Column { x, y, tiles: vec![Tile::cube(0)] }))).collect();
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
        width: 8,
        depth: 3,
        columns,
        placements: vec![place("a1", 0), place("a2", 1), place("b1", 7)],
        scheduler,
        ..TileMap::default()
    });
    for (id, team, speed) in [("a1", "blue", "10"), ("a2", "blue", "10"), ("b1", "red", "5")] {
        project.units.insert(Unit {
            id: Id::new(id),
            team: team.to_owned(),
            stats: [("hp", "20"), ("ct", "0"), ("speed", speed)]
                .iter()
                .map(|(name, value)| ((*name).to_owned(), Expr::new(*value)))
                .collect::<BTreeMap<_, _>>(),
            skills: vec![Id::new("walk"), Id::new("jab"), Id::new("meteor")],
            ..Unit::default()
        });
    }
    project.skills.insert(Skill {
        id: Id::new("walk"),
        kind: SkillKind::Move,
        target_region: Region { radius_max: Expr::new("5"), ..Region::default() },
        ..Skill::default()
    });
    let hit = |amount: &str| HitType {
        label: "Hit".to_owned(),
        stat_effects: vec![StatEffect { stat: "hp".to_owned(), value: Expr::new(amount), ..StatEffect::default() }],
        ..HitType::default()
    };
    project.skills.insert(Skill {
        id: Id::new("jab"),
        target_region: Region { radius_min: Expr::new("1"), radius_max: Expr::new("1"), ..Region::default() },
        hit_types: vec![hit("-5")],
        ..Skill::default()
    });
    project.skills.insert(Skill {
        id: Id::new("meteor"),
        params: BTreeMap::from([("speed".to_owned(), Expr::new("5"))]),
        target_region: Region { radius_max: Expr::new("7"), ..Region::default() },
        hit_types: vec![hit("-7")],
        delay: Expr::new(delay),
        ..Skill::default()
    });
    project.manifest.entry.tile_map = Some(Id::new("field"));
    project
}

fn rounds(kind: SchedulerKind) -> Scheduler {
    Scheduler { kind, ..Scheduler::default() }
}

fn pick(unit: &str) -> Choice {
    Choice::PickUnit { unit: unit.to_owned() }
}

fn wait(unit: &str) -> Choice {
    Choice::WaitUnit { unit: unit.to_owned() }
}

fn hp(session: &Session, unit: &str) -> f64 {
    session.tactics().unwrap().stat(unit, "hp").unwrap()
}

#[test]
fn team_rounds_pick_any_unit_once_per_round() {
    let mut session = Session::new(field(rounds(SchedulerKind::TeamRounds), "0"), 1).unwrap();
    let battle = session.tactics().unwrap();
    // Nobody's turn: blue (the first team placed) picks any of its units, or ends its round.
    assert_eq!(battle.active_unit(), None);
    assert_eq!(battle.round.as_ref().unwrap().team, "blue");
    assert_eq!(
        session.choices(),
        vec![pick("a1"), pick("a2"), Choice::EndRound { team: "blue".to_owned() }],
        "units without picking order"
    );
    // a2 goes first although a1 was placed first; then only a1 is left to pick.
    let events = session.apply(&pick("a2")).unwrap();
    assert_eq!(events, vec![Event::UnitTurnStarted { unit: "a2".to_owned() }]);
    session.apply(&wait("a2")).unwrap();
    assert_eq!(session.choices(), vec![pick("a1"), Choice::EndRound { team: "blue".to_owned() }]);
    let refused = session.apply(&pick("a2")).unwrap_err().to_string();
    assert!(refused.contains("a2 has had its turn this round"), "{refused}");
    // The last unit's turn ends the round; a round's end is one scheduler tick.
    session.apply(&pick("a1")).unwrap();
    let events = session.apply(&wait("a1")).unwrap();
    assert!(events.contains(&Event::TeamRoundStarted { team: "red".to_owned(), round: 2 }), "{events:?}");
    assert_eq!(session.tactics().unwrap().tick, 1);
    // Red may not pick a blue unit; "why not?" says whose round it is.
    let why = session.explain(&Subject::Pick { unit: "a1".to_owned() }).unwrap();
    assert_eq!(why[0].text, "it is red's round, and a1 is of blue", "{why:?}");
    // A team may end its round before picking everyone.
    session.run_script("expect round red\npass red\nexpect round blue").unwrap();
    assert_eq!(session.tactics().unwrap().round.as_ref().unwrap().number, 3);
    // The script lines: pick, then the unit's turn as usual.
    session.run_script("pick a1\nexpect turn a1\nmove a1 2 1\nuse a1 jab 3 1\nwait a1\nexpect turn none").unwrap();
    let error = session.run_script("pick a1").unwrap_err().to_string();
    assert!(error.contains("a1 has had its turn this round"), "{error}");
}

#[test]
fn team_points_diminish_each_activation_and_limit_walking() {
    let scheduler = Scheduler {
        kind: SchedulerKind::TeamPoints,
        points_per_round: Some(2),
        unit_points: Some(Expr::new("4")),
        points_diminish: Some(Expr::new("0.5")),
        move_points: Some(Expr::new("1")),
        ..Scheduler::default()
    };
    let mut session = Session::new(field(scheduler, "0"), 1).unwrap();
    session.run_script("expect round blue\nexpect points 2\npick a2\nexpect points 1\nexpect ap 4").unwrap();
    // 4 points reach 4 cells, not the walk's 5.
    let why = session.explain(&Subject::Move { unit: "a2".to_owned(), at: (6, 1, 1), via: Vec::new() }).unwrap();
    assert_eq!(why[0].text, "a2 has 4 action points left, 1 a cell: not enough to walk there", "{why:?}");
    assert!(
        session.explain(&Subject::Move { unit: "a2".to_owned(), at: (5, 1, 1), via: Vec::new() }).unwrap().is_empty()
    );
    // Walking again while points last: 2 cells, then 2 more, then no more.
    session.run_script("move a2 3 1\nexpect ap 2\nmove a2 5 1\nexpect ap 0").unwrap();
    assert!(!session.choices().iter().any(|choice| matches!(choice, Choice::MoveUnit { .. })));
    // Acting with no points left ends the activation by itself.
    let events =
        session.apply(&Choice::UseSkill { unit: "a2".to_owned(), skill: Id::new("jab"), x: 6, y: 1, z: 1 }).unwrap();
    assert!(events.contains(&Event::UnitTurnEnded { unit: "a2".to_owned() }), "{events:?}");
    // Picked again in the same round: half the points.
    session.run_script("pick a2\nexpect ap 2\nexpect points 0\nwait a2").unwrap();
    // The points are spent: red's round begins.
    session.run_script("expect round red\nexpect points 2").unwrap();
    let error = session.run_script("set ap 3").unwrap_err().to_string();
    assert!(error.contains("no unit has action points now"), "{error}");
    session.run_script("set points 5\nexpect points 5").unwrap();
}

#[test]
fn ct_costs_coalesced_at_the_end_of_the_turn() {
    let plain = rounds(SchedulerKind::Ct);
    let coalesced = Scheduler { coalesce_ct: true, ..Scheduler::default() };
    let mut session = Session::new(field(plain, "0"), 1).unwrap();
    // a1 (speed 10, placed first) reaches maxCT 100 at tick 10.
    session.run_script("expect turn a1\nexpect unit a1 ct 100\nmove a1 0 0\nexpect unit a1 ct 70").unwrap();
    session.run_script("use a1 jab 1 0\nexpect unit a1 ct 30\nwait a1\nexpect unit a1 ct 0").unwrap();
    let mut session = Session::new(field(coalesced, "0"), 1).unwrap();
    // Coalesced, the turn's costs wait for its end and come off at once.
    session
        .run_script("expect turn a1\nmove a1 0 0\nexpect unit a1 ct 100\nuse a1 jab 1 0\nexpect unit a1 ct 100")
        .unwrap();
    let events = session.apply(&wait("a1")).unwrap();
    assert_eq!(events[0], Event::UnitTurnEnded { unit: "a1".to_owned() });
    session.run_script("expect unit a1 ct 0").unwrap();
}

#[test]
fn charged_skills_resolve_on_a_later_tick() {
    let mut session = Session::new(field(Scheduler::default(), "12"), 1).unwrap();
    session.run_script("expect turn a1").unwrap();
    let tick = session.tactics().unwrap().tick;
    // Aimed at b1's spot: nothing happens yet; the skill charges.
    let events =
        session.apply(&Choice::UseSkill { unit: "a1".to_owned(), skill: Id::new("meteor"), x: 7, y: 1, z: 1 }).unwrap();
    assert!(
        events.contains(&Event::UnitSkillCharging {
            unit: "a1".to_owned(),
            skill: Id::new("meteor"),
            at: [7, 1, 1],
            delay: 12.0
        }),
        "{events:?}"
    );
    assert!(!events.iter().any(|event| matches!(event, Event::UnitHit { .. })), "{events:?}");
    assert_eq!(hp(&session, "b1"), 20.0);
    session.run_script("expect charging a1 meteor ticks 12").unwrap();
    // a1 ends its turn; a2 is next (same tick). Its speed parameter 5 takes 12 off in 3 ticks.
    session.apply(&wait("a1")).unwrap();
    assert_eq!(session.tactics().unwrap().active_unit(), Some("a2"));
    let events = session.apply(&wait("a2")).unwrap();
    let used = events.iter().position(|event| matches!(event, Event::UnitUsedSkill { .. })).expect("resolved");
    assert_eq!(events[used], Event::UnitUsedSkill { unit: "a1".to_owned(), skill: Id::new("meteor"), at: [7, 1, 1] });
    assert_eq!(hp(&session, "b1"), 13.0);
    assert_eq!(session.tactics().unwrap().tick, tick + 3);
    session.run_script("expect charging none").unwrap();
}

#[test]
fn a_charged_skill_of_a_defeated_unit_is_cancelled() {
    let mut session = Session::new(field(Scheduler::default(), "12"), 1).unwrap();
    session.run_script("use a1 meteor 7 1\nwait a1\nset unit a1 hp 0").unwrap();
    let events = session.apply(&wait("a2")).unwrap();
    assert!(
        events.contains(&Event::UnitSkillCancelled { unit: "a1".to_owned(), skill: Id::new("meteor") }),
        "{events:?}"
    );
    assert_eq!(hp(&session, "b1"), 20.0);
}

#[test]
fn check_reports_scheduler_settings_that_do_nothing() {
    let ct_with_points = Scheduler {
        teams: vec!["blue".to_owned()],
        points_per_round: Some(3),
        move_points: Some(Expr::new("2")),
        ..Scheduler::default()
    };
    let mut project = field(ct_with_points, "-2");
    project.skills.get_mut("walk").unwrap().delay = Expr::new("3");
    let zero_points = Scheduler {
        kind: SchedulerKind::TeamPoints,
        coalesce_ct: true,
        teams: vec!["blue".to_owned()],
        points_per_round: Some(0),
        ..Scheduler::default()
    };
    let mut found: Vec<String> = validate(&project, &Sources::memory(), None).iter().map(ToString::to_string).collect();
    let mut placed = field(zero_points, "0");
    placed.tile_maps.get_mut("field").unwrap().placements[2].team = "red".to_owned();
    found.extend(validate(&placed, &Sources::memory(), None).iter().map(ToString::to_string));
    for expected in [
        "scheduler.teams: teams (the round order) is only used by the team-round schedulers",
        "scheduler.points_per_round: points_per_round is only used by the points scheduler",
        "scheduler.move_points: move_points is only used by the points scheduler",
        "delay: delay cannot be negative (it is -2)",
        "delay: a move skill does not charge",
        "scheduler.coalesce_ct: coalesce_ct is only used by the CT scheduler",
        "scheduler.points_per_round: a team with 0 points a round can never pick a unit",
        "scheduler.teams: team `red` is placed but not in the round order: it never plays",
    ] {
        assert!(found.iter().any(|message| message.contains(expected)), "{expected}\n{found:#?}");
    }
    let fine = validate(&field(rounds(SchedulerKind::TeamPoints), "5"), &Sources::memory(), None);
    assert!(fine.is_empty(), "{fine:?}");
}
