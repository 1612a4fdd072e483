//! Graph view speed: the layered layout of a generated 500-act chain with branches (alt links,
//! skips ahead, spawns and a few callbacks back), against a plain topological sort of the same
//! graph (the floor's peer: any layout must at least order the nodes); and headless frames of
//! the act-chain graph view (egui without a GPU, as kittest runs it), tessellation included:
//! 500 acts at the opening fit, 500 acts zoomed in to full node bodies, 2,000 acts at the fit.
//!
//! Floors on the 2-core reference machine: layout ≤ 200 ms, a frame ≤ 16 ms of CPU (33 ms for
//! 2,000 acts). After the
//! measurements the bench prints each result with its ratio to the peer and to its floor.
//! (This bench builds the editor: the graph view is what it times.)
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing)] // a benchmark: failing loudly is right

use std::collections::VecDeque;
use std::hint::black_box;

use actforge_editor::document::Document;
use actforge_editor::views::GraphViews;
use actforge_editor::views::act_links::act_edges;
use actforge_editor::views::graph_canvas::DETAIL_SCALE;
use actforge_editor::views::graph_layout::{Spacing, crossings, layered_layout};
use actforge_runtime::Project;
use actforge_runtime::model::{Act, ActLink, Id, PathModifier, PathOp};
use actforge_tests::{Rng, criterion_mean_ns};
use criterion::Criterion;

const GROUP: &str = "graph";
const ACTS: usize = 500;

/// A chain of 500 acts: each leads to the next; one in five has an alt two ahead, one in seven
/// skips five ahead (40%), one in eleven spawns an act ten ahead, one in 25 sets a callback to
/// an earlier act (a cycle the layout must break).
fn chain_project(seed: u64, acts: usize) -> Project {
    let mut rng = Rng::new(seed);
    let id = |i: usize| format!("act_{i:04}");
    let mut project = Project::default();
    for i in 0..acts {
        let mut act =
            Act { id: Id::new(id(i)), label: format!("Act {i}"), duration_ticks: 30_i64.into(), ..Act::default() };
        if i + 1 < acts {
            act.next_acts.push(ActLink::to(&id(i + 1)));
        }
        if i % 5 == 0 && i + 2 < acts {
            act.alt_acts.push(ActLink::to(&id(i + 2)));
        }
        if i % 7 == 0 && i + 5 < acts {
            act.next_acts.insert(0, ActLink { chance: 40_i64.into(), ..ActLink::to(&id(i + 5)) });
        }
        if i % 11 == 0 && i + 10 < acts {
            act.spawned_acts.push(ActLink::to(&id(i + 10)));
        }
        if i % 25 == 24 {
            let back = rng.below(i);
            act.effects.path_modifiers.push(PathModifier {
                op: PathOp::SetCallback,
                act: Some(Id::new(id(back))),
                text: String::new(),
            });
        }
        act.initial = i == 0;
        project.acts.insert(act);
    }
    project
}

fn graph_of(project: &Project) -> (Vec<String>, Vec<(String, String)>) {
    let ids = project.acts.iter().map(|act| act.id.as_str().to_owned()).collect();
    let edges = project
        .acts
        .iter()
        .flat_map(|act| act_edges(project, act).into_iter().map(|edge| (act.id.as_str().to_owned(), edge.to)))
        .collect();
    (ids, edges)
}

/// The peer: Kahn's topological order of the same graph (edges back ignored).
fn topological_order(ids: &[&str], edges: &[(&str, &str)]) -> Vec<usize> {
    let index: std::collections::BTreeMap<&str, usize> = ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    let mut successors = vec![Vec::new(); ids.len()];
    let mut inputs = vec![0_usize; ids.len()];
    for (a, b) in edges {
        let (a, b) = (index[a], index[b]);
        if a < b {
            successors[a].push(b);
            inputs[b] += 1;
        }
    }
    let mut ready: VecDeque<usize> = (0..ids.len()).filter(|&n| inputs[n] == 0).collect();
    let mut order = Vec::with_capacity(ids.len());
    while let Some(node) = ready.pop_front() {
        order.push(node);
        for &child in &successors[node] {
            inputs[child] -= 1;
            if inputs[child] == 0 {
                ready.push_back(child);
            }
        }
    }
    order
}

fn layout_benches(criterion: &mut Criterion) {
    let project = chain_project(7, ACTS);
    let (ids, edges) = graph_of(&project);
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let edges: Vec<(&str, &str)> = edges.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let placed = layered_layout(&ids, &edges, Spacing::default());
    assert_eq!(placed.len(), ACTS);
    println!(
        "500-act chain: {} links, {} crossings between adjacent layers after layout",
        edges.len(),
        crossings(&placed, &edges)
    );
    let mut group = criterion.benchmark_group(GROUP);
    group.sample_size(20);
    group.bench_function("layout_500_acts", |b| {
        b.iter(|| layered_layout(black_box(&ids), black_box(&edges), Spacing::default()));
    });
    group.bench_function("peer_topological_sort_500", |b| {
        b.iter(|| topological_order(black_box(&ids), black_box(&edges)));
    });
    group.finish();
}

/// Frames of the act graph with `acts` acts: at the opening fit (`at` none), or centred on an
/// act at full detail.
fn frame_bench(criterion: &mut Criterion, name: &str, acts: usize, at: Option<&str>) {
    let document = Document::new(chain_project(7, acts));
    let ctx = egui::Context::default();
    let mut views = GraphViews::default();
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1600.0, 1000.0))),
        ..egui::RawInput::default()
    };
    let frame = |views: &mut GraphViews| {
        let (mut actions, mut log) = (Vec::new(), Vec::new());
        let output = ctx.run_ui(input(), |ui| {
            views.act_ui(ui, &document, None, std::path::Path::new(""), &mut actions, &mut log);
        });
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        assert!(actions.is_empty() && log.is_empty());
        primitives.len()
    };
    // The first frames build the nodes, lay them out and fit the view.
    for _ in 0..3 {
        frame(&mut views);
    }
    if let Some(id) = at {
        views.act.centre_on(id);
        frame(&mut views);
        assert!(views.act.canvas().transform().scaling >= DETAIL_SCALE);
    }
    assert_eq!(views.act.positions().len(), acts);
    assert!(!views.act.canvas().drawn_nodes().is_empty());
    let mut group = criterion.benchmark_group(GROUP);
    group.sample_size(20);
    group.bench_function(name, |b| b.iter(|| frame(&mut views)));
    group.finish();
}

fn frame_benches(criterion: &mut Criterion) {
    frame_bench(criterion, "frame_500_acts", ACTS, None);
    frame_bench(criterion, "frame_500_acts_detail", ACTS, Some("act_0250"));
    frame_bench(criterion, "frame_2000_acts", 2000, None);
}

fn mean_ms(name: &str) -> Option<f64> {
    criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6)
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    layout_benches(&mut criterion);
    frame_benches(&mut criterion);
    criterion.final_summary();

    let peer = mean_ms("peer_topological_sort_500");
    println!("\nratios (mean time / peer topological sort; mean time / floor):");
    for (name, floor_ms) in [
        ("layout_500_acts", 200.0),
        ("frame_500_acts", 16.0),
        ("frame_500_acts_detail", 16.0),
        ("frame_2000_acts", 33.0),
    ] {
        if let Some(ms) = mean_ms(name) {
            let vs_peer = peer.map_or_else(|| "n/a".to_owned(), |peer| format!("{:.1}×", ms / peer));
            println!("  {name:<28} {ms:9.4} ms   vs peer {vs_peer:>8}   floor {floor_ms} ms: {:.3}", ms / floor_ms);
        }
    }
    if let Some(peer) = peer {
        println!("  {:<28} {peer:9.4} ms", "peer (topological sort)");
    }
}
