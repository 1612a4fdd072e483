//! Edit-to-preview latency on a synthetic project of 10,000 items: one text edit of a card →
//! the project validated (the Diagnostics tab's list), the preview's content compiled on its
//! worker and its game replayed (10 inputs), as the editor does it (`Open::revalidate`, then
//! `PreviewGame::sync_document`, waited for). The peer in the same run: the whole-project
//! path the editor took before (full validation, full compile, the same replay).
//!
//! Floor: 16 ms for the edit (goal 4 ms).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::panic)] // a benchmark: failing loudly is right

use std::collections::BTreeSet;
use std::hint::black_box;
use std::sync::Arc;

use actforge_editor::document::Op;
use actforge_editor::preview::PreviewGame;
use actforge_editor::workspace::Workspace;
use actforge_runtime::engine::{Content, Session};
use actforge_runtime::model::StatValue;
use actforge_runtime::project::{Sources, save_folder};
use actforge_runtime::validate::validate;
use actforge_tests::{criterion_mean_ns, synthetic_project};
use criterion::Criterion;

const ITEMS: usize = 10_000;
const GROUP: &str = "edit";
const FLOOR_MS: f64 = 16.0;
/// Inputs the preview replays after each edit (waits of 10 ticks: the log merges them into one).
const INPUTS: usize = 10;

fn main() {
    let folder = tempfile::tempdir().unwrap();
    let mut project = synthetic_project(ITEMS, 42);
    // The preview plays only content without errors: the generator's rules change stats that
    // compute their value, so here every stat stores it.
    for stat in project.stats.iter_mut() {
        if let StatValue::Computed(expr) = &stat.value {
            stat.value = StatValue::Stored(expr.clone());
        }
    }
    save_folder(&project, folder.path(), &BTreeSet::new()).unwrap();
    let Workspace::Open(mut open) = Workspace::open(folder.path()) else { panic!("the project did not open") };
    let root = Some(folder.path());
    let card = open.document.project().cards.ids().nth(17).unwrap().as_str().to_owned();
    let mut game = PreviewGame::default();
    game.sync_document(&open.document);
    assert!(game.errors().is_empty(), "{:?}", game.errors());
    for _ in 0..INPUTS {
        assert!(game.input("wait 10"));
    }
    let mut count = 0_u64;
    let mut edit = |open: &mut actforge_editor::workspace::Open| {
        count += 1;
        let mut item = open.document.project().cards.get(&card).unwrap().clone();
        item.description = format!("Edited {count} times.");
        open.document.apply(Op::put(Arc::new(item))).unwrap();
    };

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group(GROUP);
    group.sample_size(10);
    group.bench_function("edit_to_preview", |b| {
        b.iter(|| {
            edit(&mut open);
            open.revalidate(root);
            game.sync_document(&open.document);
            black_box((open.diagnostics.len(), game.played()))
        });
    });
    assert_eq!(game.played(), game.log().len());
    assert!(game.errors().is_empty());
    group.bench_function("peer_whole_project_path", |b| {
        b.iter(|| {
            edit(&mut open);
            let project = open.document.project();
            let diagnostics = validate(project, &Sources::default(), root).len();
            let content = Arc::new(Content::compile(project.clone()).unwrap());
            let mut session = Session::from_content(content, 1);
            for _ in 0..INPUTS {
                session.run_script("wait 10").unwrap();
            }
            black_box((diagnostics, session.state_hash()))
        });
    });
    group.finish();
    criterion.final_summary();
    let ms = |name: &str| criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6);
    println!("\none card edit → validated, compiled, replayed ({ITEMS} items, mean; vs the floor of {FLOOR_MS} ms):");
    let peer = ms("peer_whole_project_path");
    for name in ["edit_to_preview", "peer_whole_project_path"] {
        if let Some(ms) = ms(name) {
            let vs_peer = peer.map_or_else(|| "n/a".to_owned(), |peer| format!("{:.2}×", ms / peer));
            println!("  {name:<24} {ms:8.2} ms   vs peer {vs_peer:>7}   vs floor: {:.2}", ms / FLOOR_MS);
        }
    }
}
