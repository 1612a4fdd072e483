//! The scheduler's quiet ticks (`TacticsState::run_quiet_ticks`): when they may be taken, and
//! that a battle played with them is the very battle played tick by tick.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // a test

use std::hash::{Hash as _, Hasher as _};
use std::sync::Arc;

use rand_pcg::Pcg64Mcg;

use super::{TacticsMemo, TacticsState};
use crate::engine::Event;
use crate::engine::content::Content;
use crate::model::{Expr, Project, StatEffect};

fn skirmish() -> Project {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/srpg-skirmish");
    crate::project::load_folder(&root).unwrap().project
}

fn quiet(project: Project) -> bool {
    let content = Arc::new(Content::compile(project).unwrap());
    let (battle, _) = TacticsState::start(&content, &mut Pcg64Mcg::new(1)).unwrap();
    battle.setup.quiet
}

/// Plays `moves` random choices (the picks from their own stream) with the quiet ticks on or
/// off: every step's events, the final state's hash and the tick reached.
fn play(content: &Arc<Content>, seed: u64, moves: usize, quiet: bool) -> (Vec<Vec<Event>>, u64, u64) {
    let mut rng = Pcg64Mcg::new(u128::from(seed));
    let (mut battle, first) = TacticsState::start(content, &mut rng).unwrap();
    Arc::make_mut(&mut battle.setup).quiet = quiet;
    let mut memo = TacticsMemo::default();
    let mut log = vec![first];
    let mut pick = 0x9E37_79B9_7F4A_7C15_u64 ^ seed;
    for _ in 0..moves {
        pick ^= pick << 13;
        pick ^= pick >> 7;
        pick ^= pick << 17;
        let listing = battle.listing(content, &mut rng.clone(), &memo);
        let count = listing.len() as u64;
        let events = match listing.nth((pick % count.max(1)) as usize) {
            Some(choice) => battle.apply(content, &mut rng, &choice, &memo).unwrap(),
            None => battle.advance(content, &mut rng, 50),
        };
        memo.clear();
        log.push(events);
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    battle.hash(&mut hasher);
    (log, hasher.finish(), battle.tick)
}

#[test]
fn quiet_ticks_play_the_very_battle_ticked_one_by_one() {
    let content = Arc::new(Content::compile(skirmish()).unwrap());
    for seed in 1..=4 {
        let quick = play(&content, seed, 400, true);
        let ticked = play(&content, seed, 400, false);
        assert!(quick.2 > 100, "seed {seed}: the battle got somewhere ({} ticks)", quick.2);
        assert_eq!(quick.0.len(), ticked.0.len());
        for (step, (a, b)) in quick.0.iter().zip(&ticked.0).enumerate() {
            assert_eq!(a, b, "seed {seed}, step {step}");
        }
        assert_eq!((quick.1, quick.2), (ticked.1, ticked.2), "seed {seed}");
    }
}

#[test]
fn ticks_are_quiet_only_when_nothing_read_at_each_tick_sees_the_clock_ct_or_the_generator() {
    // The skirmish reads hp, speed, maxCT and team counts at each tick: quiet.
    assert!(quiet(skirmish()));
    let with_win = |when: &str| {
        let mut project = skirmish();
        let map = project.tile_maps.get_mut("ridge").unwrap();
        map.win_conditions[0].when = Expr::new(when);
        project
    };
    assert!(quiet(with_win("team.red.alive == 0 and unit.knight.maxhp > 1")));
    // The clock, a draw, `ct` itself, or a stat whose formula reads `ct`.
    assert!(!quiet(with_win("battle.tick >= 300")));
    assert!(!quiet(with_win("random(1) > 2")));
    assert!(!quiet(with_win("any(team.red.alive, 0) == 0")));
    assert!(!quiet(with_win("unit.knight.ct > 1000")));
    let mut project = with_win("unit.knight.wis > 3");
    project.units.get_mut("knight").unwrap().stats.insert("wis".to_owned(), Expr::new("c.ct / 10"));
    assert!(!quiet(project));
    // A status's effect on speed read at each tick, with a draw; a passive effect on `ct`.
    let mut project = skirmish();
    let hex = project.skills.get_mut("hex").unwrap();
    hex.hit_types[0].status_effects[0].stat_effects[0].value = Expr::new("random(-3, -1)");
    assert!(!quiet(project));
    let mut project = skirmish();
    let charm = project.equipment.get_mut("charm").unwrap();
    charm.passive_effects.push(StatEffect { stat: "ct".to_owned(), value: Expr::int(5), ..StatEffect::default() });
    assert!(!quiet(project));
}
