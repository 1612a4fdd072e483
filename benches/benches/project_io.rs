//! Project I/O speed on a synthetic project of 10,000 items: folder load, bundle load (RON
//! and JSON) and save (RON), with a plain serde_json load of the same bundle as the peer in
//! the same run.
//!
//! Floors on the 2-core reference machine: bundle load ≤ 100 ms, folder load ≤ 300 ms.
//! After the measurements the bench prints each result as a ratio to the peer and to its
//! floor (ratios hold up on noisy shared machines better than absolute times).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a benchmark: failing loudly is right

use std::collections::BTreeSet;
use std::hint::black_box;
use std::path::Path;

use actforge_runtime::model::Bundle;
use actforge_runtime::project::{BundleFormat, bundle_text, load_bundle, load_folder, save_folder};
use actforge_tests::{criterion_mean_ns, synthetic_project};
use criterion::Criterion;

const ITEMS: usize = 10_000;
const GROUP: &str = "project_io";

fn benches(c: &mut Criterion, folder: &Path, bundles: &Path) {
    let project = synthetic_project(ITEMS, 42);
    let ron_text = bundle_text(&project, BundleFormat::Ron).unwrap();
    let json_text = bundle_text(&project, BundleFormat::Json).unwrap();
    let ron_file = bundles.join("bundle.ron");
    let json_file = bundles.join("bundle.json");
    std::fs::write(&ron_file, &ron_text).unwrap();
    std::fs::write(&json_file, &json_text).unwrap();
    println!(
        "{} items; RON bundle {:.1} MiB, JSON bundle {:.1} MiB",
        project.item_count(),
        ron_text.len() as f64 / 1_048_576.0,
        json_text.len() as f64 / 1_048_576.0
    );
    let mut group = c.benchmark_group(GROUP);
    group.sample_size(10);
    // Loads are timed from the file to the project in memory; freeing the result afterwards
    // is not part of a load (iter_with_large_drop).
    group.bench_function("folder_load", |b| b.iter_with_large_drop(|| load_folder(folder).unwrap()));
    group.bench_function("bundle_load_ron", |b| b.iter_with_large_drop(|| load_bundle(&ron_file).unwrap()));
    group.bench_function("bundle_load_json", |b| b.iter_with_large_drop(|| load_bundle(&json_file).unwrap()));
    group
        .bench_function("bundle_save_ron", |b| b.iter(|| black_box(bundle_text(&project, BundleFormat::Ron).unwrap())));
    group.bench_function("peer_serde_json_bundle_load", |b| {
        b.iter_with_large_drop(|| {
            serde_json::from_str::<Bundle>(&std::fs::read_to_string(&json_file).unwrap()).unwrap()
        });
    });
    group.finish();
}

/// The mean time of a finished benchmark, in milliseconds.
fn mean_ms(name: &str) -> Option<f64> {
    criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6)
}

fn main() {
    let folder = tempfile::tempdir().unwrap();
    save_folder(&synthetic_project(ITEMS, 42), folder.path(), &BTreeSet::new()).unwrap();
    let bundles = tempfile::tempdir().unwrap();
    let mut criterion = Criterion::default().configure_from_args();
    benches(&mut criterion, folder.path(), bundles.path());
    criterion.final_summary();

    let peer = mean_ms("peer_serde_json_bundle_load");
    println!("\nratios (mean time / peer serde_json bundle load; mean time / floor):");
    for (name, floor_ms) in
        [("folder_load", 300.0), ("bundle_load_ron", 100.0), ("bundle_load_json", 100.0), ("bundle_save_ron", 100.0)]
    {
        if let Some(ms) = mean_ms(name) {
            let vs_peer = peer.map_or_else(|| "n/a".to_owned(), |peer| format!("{:.2}×", ms / peer));
            println!("  {name:<18} {ms:8.1} ms   vs peer {vs_peer:>7}   vs floor {floor_ms} ms: {:.2}", ms / floor_ms);
        }
    }
    if let Some(peer) = peer {
        println!("  {:<18} {peer:8.1} ms", "peer (serde_json)");
    }
}
