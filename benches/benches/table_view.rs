//! Table tab speed: one headless frame (egui without a GPU, as kittest runs it, tessellation
//! included) of the Table tab showing 10,000 cards with 50 aspect columns, at 1600×1000; the
//! same after a cell edit (a new revision: the rows keep their order); and, as the peer, an
//! empty frame of the same size. Floor: 8 ms a frame (rows and columns virtualised).
//! After the measurements the bench prints each result with its ratio to the peer and floor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing)] // a benchmark: failing loudly is right

use actforge_editor::document::{Document, Op};
use actforge_editor::panels::inspector::InspectorAction;
use actforge_editor::views::table::TableView;
use actforge_runtime::model::{Aspect, Card, FragmentCount, FragmentRef, Id};
use actforge_runtime::{Kind, Project};
use actforge_tests::{Rng, criterion_mean_ns};
use criterion::Criterion;

const GROUP: &str = "table_view";
const CARDS: usize = 10_000;
const ASPECTS: usize = 50;
const FLOOR_MS: f64 = 8.0;

/// 10,000 cards, each holding three of 50 aspects.
fn project() -> Project {
    let mut rng = Rng::new(11);
    let mut project = Project::new("Table bench");
    for a in 0..ASPECTS {
        project.aspects.insert(Aspect {
            id: Id::new(format!("aspect_{a:02}")),
            label: format!("Aspect {a}"),
            ..Aspect::default()
        });
    }
    for c in 0..CARDS {
        let fragments = (0..3)
            .map(|_| {
                let aspect = format!("aspect_{:02}", rng.below(ASPECTS));
                FragmentCount::new(FragmentRef::Aspect(Id::new(aspect)), 1 + rng.below(4) as i64)
            })
            .collect();
        project.cards.insert(Card {
            id: Id::new(format!("card_{c:05}")),
            label: format!("Card {c}"),
            fragments,
            ..Card::default()
        });
    }
    project
}

fn input() -> egui::RawInput {
    egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1600.0, 1000.0))),
        ..egui::RawInput::default()
    }
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let mut document = Document::new(project());
    let ctx = egui::Context::default();
    let mut table = TableView::default();
    table.show_kind(Kind::Card);
    let frame = |table: &mut TableView, document: &Document| {
        let mut actions: Vec<InspectorAction> = Vec::new();
        let output = ctx.run_ui(input(), |ui| {
            egui::CentralPanel::default().show(ui, |ui| table.ui(ui, document, None, &mut actions));
        });
        ctx.tessellate(output.shapes, output.pixels_per_point).len()
    };
    for _ in 0..3 {
        frame(&mut table, &document);
    }
    assert_eq!(table.row_ids().len(), CARDS);
    let empty = || {
        let output = ctx.run_ui(input(), |ui| {
            egui::CentralPanel::default().show(ui, |_| {});
        });
        ctx.tessellate(output.shapes, output.pixels_per_point).len()
    };

    let mut group = criterion.benchmark_group(GROUP);
    group.sample_size(20);
    group.bench_function("frame_10000_cards_50_aspects", |b| b.iter(|| frame(&mut table, &document)));
    group.bench_function("frame_after_a_cell_edit", |b| {
        let mut count = 0_i64;
        b.iter(|| {
            // A new revision of one card, as a cell edit makes it.
            count += 1;
            let mut card = document.project().cards.get("card_00000").unwrap().clone();
            card.fragments[0] = FragmentCount::new(card.fragments[0].fragment.clone(), 1 + count % 5);
            document.apply(Op::put(std::sync::Arc::new(card))).unwrap();
            frame(&mut table, &document)
        });
    });
    group.bench_function("peer_empty_frame", |b| b.iter(empty));
    group.finish();
    criterion.final_summary();

    let ms = |name: &str| criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6);
    let peer = ms("peer_empty_frame");
    println!("\nratios (mean time / peer empty frame; mean time / floor {FLOOR_MS} ms):");
    for name in ["frame_10000_cards_50_aspects", "frame_after_a_cell_edit"] {
        if let Some(ms) = ms(name) {
            let vs_peer = peer.map_or_else(|| "n/a".to_owned(), |peer| format!("{:.1}×", ms / peer));
            println!("  {name:<30} {ms:8.3} ms   vs peer {vs_peer:>7}   floor: {:.3}", ms / FLOOR_MS);
        }
    }
    if let Some(peer) = peer {
        println!("  {:<30} {peer:8.3} ms", "peer (empty frame)");
    }
}
