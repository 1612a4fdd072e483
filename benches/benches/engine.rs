//! Engine speed: random-policy playthroughs of the imported Cultistlike Demo1 (act completions
//! and rule evaluations per second, single-threaded) and clone + state hash of a demo-sized
//! session in mid game. Our own table content of similar size (act-demo, 17 acts) and the
//! lighthouse demo (which mixes the table with a battle, turns, boards and a campaign) are
//! played too.
//!
//! Floors: ≥ 100,000 act completions/s; clone + state hash ≤ 10 µs. The references in the same
//! run (clone alone, hash alone) show where the time goes on a noisy machine.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::cast_precision_loss)] // a benchmark

/// The allocator the `actforge` binary uses, so the timings are what designers get.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::sync::Arc;

use actforge_runtime::engine::policy::RandomPolicy;
use actforge_runtime::engine::{Content, Session};
use actforge_runtime::import::import_cultistlike;
use actforge_runtime::project::load_folder;
use actforge_tests::{content, criterion_mean_ns, repo_root, shared_fixture};
use criterion::Criterion;

const GROUP: &str = "engine";
/// Moves per playthrough (a game of Demo1 runs out of new content well before).
const MOVES: usize = 400;
/// Seeds cycled through, so the timed work is the work counted below.
const SEEDS: u64 = 64;

/// Completions and evaluations per playthrough, averaged over the seeds.
fn work_per_playthrough(content: &Arc<Content>) -> (f64, f64) {
    let (mut completions, mut evaluations) = (0, 0);
    for seed in 0..SEEDS {
        let mut session = Session::from_content(Arc::clone(content), seed);
        RandomPolicy::new(seed).play(&mut session, MOVES);
        completions += session.counters().act_completions;
        evaluations += session.counters().rule_evaluations;
    }
    (completions as f64 / SEEDS as f64, evaluations as f64 / SEEDS as f64)
}

fn benches(c: &mut Criterion, demo1: &Arc<Content>, act_demo: &Arc<Content>, lighthouse: &Arc<Content>) {
    let mut group = c.benchmark_group(GROUP);
    for (name, content) in
        [("playthrough_demo1", demo1), ("playthrough_act_demo", act_demo), ("playthrough_lighthouse", lighthouse)]
    {
        let mut seed = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                seed = (seed + 1) % SEEDS;
                let mut session = Session::from_content(Arc::clone(content), seed);
                RandomPolicy::new(seed).play(&mut session, MOVES);
                black_box(session.state_hash())
            });
        });
    }
    // Mid game: S1–S6 of the acceptance playtest (Kitten, cakes, four tokens, a running decay…).
    let script = std::fs::read_to_string(repo_root().join("tests/playtests/cultistlike_demo1.play")).unwrap();
    let mut session = Session::from_content(Arc::clone(demo1), 1);
    session.run_script(&script[..script.find("\n# S5:").unwrap()]).unwrap();
    group.bench_function("clone_and_hash", |b| b.iter(|| black_box(&session).clone().state_hash()));
    group.bench_function("reference_clone", |b| b.iter(|| black_box(&session).clone()));
    group.bench_function("reference_hash", |b| b.iter(|| black_box(&session).state_hash()));
    group.finish();
    println!("mid-game session: {} cards, {} tokens", session.state().cards.len(), session.state().windows.len());
}

fn main() {
    let (project, _) = import_cultistlike(&shared_fixture("cultistlike-demo1")).unwrap();
    let demo1 = Arc::new(Content::compile(project).unwrap());
    let pack = |name: &str| Arc::new(Content::compile(load_folder(&content(name)).unwrap().project).unwrap());
    let (act_demo, lighthouse) = (pack("act-demo"), pack("lighthouse"));
    let work = [
        ("playthrough_demo1", work_per_playthrough(&demo1)),
        ("playthrough_act_demo", work_per_playthrough(&act_demo)),
        ("playthrough_lighthouse", work_per_playthrough(&lighthouse)),
    ];

    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion, &demo1, &act_demo, &lighthouse);
    criterion.final_summary();

    println!("\nengine (random policy, {MOVES} moves per playthrough, single thread)");
    for (name, (completions, evaluations)) in work {
        if let Some(ns) = criterion_mean_ns(GROUP, name) {
            let per_second = 1e9 / ns;
            // The floor is for table content (the imported demo, or ours of its size); most of
            // the lighthouse's time goes to its battle's reach and line-of-sight searches.
            let floor = if name == "playthrough_lighthouse" { "mixed systems, no floor" } else { "floor ≥ 100,000" };
            println!(
                "  {name:24} {:8.1} µs per playthrough, {completions:6.1} completions, {evaluations:7.1} evaluations \
                 → {:9.0} completions/s ({floor}), {:10.0} evaluations/s",
                ns / 1000.0,
                completions * per_second,
                evaluations * per_second
            );
        }
    }
    if let (Some(both), Some(clone), Some(hash)) = (
        criterion_mean_ns(GROUP, "clone_and_hash"),
        criterion_mean_ns(GROUP, "reference_clone"),
        criterion_mean_ns(GROUP, "reference_hash"),
    ) {
        println!(
            "  clone + state hash       {:8.2} µs (floor ≤ 10 µs) = clone {:.2} µs + hash {:.2} µs",
            both / 1000.0,
            clone / 1000.0,
            hash / 1000.0
        );
    }
}
