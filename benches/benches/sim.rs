//! Simulation speed: random Knucklebones games on one thread and on two (the peer is the
//! one-thread run of the same games), and runs per second for every content pack.
//!
//! Floors (issue 31): 10,000 random Knucklebones games ≤ 0.25 s on 2 cores; 1 → 2 threads speed-up ≥ 1.8×;
//! on one thread ≥ 300 random srpg-skirmish runs/s (goal 2,000) and ≥ 1,000 lighthouse runs/s
//! (goal 5,000), each also shown against the Knucklebones games of the same run (issue 31).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::cast_precision_loss
)] // a benchmark

/// The allocator the `actforge` binary uses, so the timings are what designers get.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;

use actforge_runtime::engine::Content;
use actforge_runtime::project::load_folder;
use actforge_runtime::sim::{Progress, SimOptions, simulate};
use actforge_tests::{content, criterion_mean_ns};
use criterion::Criterion;

const GROUP: &str = "sim";
/// Knucklebones games per timed simulation.
const GAMES: usize = 1000;
/// Runs per timed simulation of the other packs (their games are longer).
const PACK_RUNS: usize = 20;
const PACKS: [&str; 5] = ["knucklebones", "issues-sim", "srpg-skirmish", "era-synthesis", "lighthouse"];
/// One-thread runs/s floors and goals (issue 31): pack, floor, goal.
const FLOORS: [(&str, f64, f64); 2] = [("srpg-skirmish", 300.0, 2000.0), ("lighthouse", 1000.0, 5000.0)];

fn compiled(pack: &str) -> Arc<Content> {
    Arc::new(Content::compile(load_folder(&content(pack)).unwrap().project).unwrap())
}

fn sim(content: &Arc<Content>, runs: usize, threads: usize) -> usize {
    let options = SimOptions { runs, seed: 1, threads, max_moves: 2000, ..SimOptions::default() };
    simulate(content, &options, &Progress::default()).unwrap().runs
}

fn main() {
    let packs: Vec<(&str, Arc<Content>)> = PACKS.iter().map(|pack| (*pack, compiled(pack))).collect();
    let mut criterion = Criterion::default().configure_from_args();
    {
        let mut group = criterion.benchmark_group(GROUP);
        group.sample_size(10);
        let knucklebones = &packs[0].1;
        for threads in [1, 2] {
            group.bench_function(format!("knucklebones_{GAMES}_threads_{threads}"), |b| {
                b.iter(|| black_box(sim(knucklebones, GAMES, threads)));
            });
        }
        for (pack, content) in &packs {
            group.bench_function(format!("pack_{pack}_{PACK_RUNS}_runs_threads_1"), |b| {
                b.iter(|| black_box(sim(content, PACK_RUNS, 1)));
            });
        }
        group.finish();
    }
    criterion.final_summary();

    println!("\nsimulation (random policy, seed 1)");
    let one = criterion_mean_ns(GROUP, &format!("knucklebones_{GAMES}_threads_1"));
    let two = criterion_mean_ns(GROUP, &format!("knucklebones_{GAMES}_threads_2"));
    if let (Some(one), Some(two)) = (one, two) {
        let per_10k = two * (10_000 / GAMES) as f64 / 1e9;
        println!(
            "  knucklebones: {:.0} games/s on 1 thread, {:.0} on 2 → 10,000 games in {per_10k:.2} s (floor ≤ 0.25 s); \
             speed-up {:.2}× (floor ≥ 1.8×)",
            GAMES as f64 / (one / 1e9),
            GAMES as f64 / (two / 1e9),
            one / two
        );
    }
    let runs_per_second = |pack: &str| {
        criterion_mean_ns(GROUP, &format!("pack_{pack}_{PACK_RUNS}_runs_threads_1"))
            .map(|ns| PACK_RUNS as f64 / (ns / 1e9))
    };
    // The peer: Knucklebones games timed in the same run, so a loaded machine shows as such.
    let peer = runs_per_second("knucklebones");
    for (pack, _) in &packs {
        let Some(rate) = runs_per_second(pack) else { continue };
        let mut line = format!("  {pack:14} {rate:9.1} runs/s on one thread");
        if let Some((_, floor, goal)) = FLOORS.iter().find(|(name, _, _)| name == pack) {
            let _ = write!(line, " = {:.2}× the floor of {floor:.0} (goal {goal:.0})", rate / floor);
            if let Some(peer) = peer {
                let _ = write!(line, "; 1 run per {:.0} Knucklebones games", peer / rate);
            }
        }
        println!("{line}");
    }
}
