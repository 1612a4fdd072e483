//! A whole editor frame on a project of 10,000 cards (50 aspects, 200 acts): the browser, the
//! inspector on a card, the Table tab showing every card, the status bar; headless egui (as
//! kittest runs it, tessellation included) at 1600×1000. Timed at rest and in the frame after
//! an edit of the selected card (validation, the inspector's and the table's caches brought up
//! to date). The peer in the same run: an empty egui frame of the same size.
//!
//! Floor: 8 ms a frame.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing)] // a benchmark: failing loudly is right

use std::collections::BTreeSet;
use std::sync::Arc;

use actforge_editor::app::ActforgeApp;
use actforge_editor::commands::UiCommand;
use actforge_editor::document::{ItemKey, Op};
use actforge_runtime::model::{Act, Aspect, Card, FragmentCount, FragmentRef, Id};
use actforge_runtime::project::save_folder;
use actforge_runtime::{Kind, Project};
use actforge_tests::{Rng, criterion_mean_ns};
use criterion::Criterion;

const GROUP: &str = "editor_frame";
const CARDS: usize = 10_000;
const ASPECTS: usize = 50;
const ACTS: usize = 200;
const FLOOR_MS: f64 = 8.0;

fn project() -> Project {
    let mut rng = Rng::new(5);
    let mut project = Project::new("Frame bench");
    for a in 0..ASPECTS {
        project.aspects.insert(Aspect {
            id: Id::new(format!("aspect_{a:02}")),
            label: format!("Aspect {a}"),
            ..Aspect::default()
        });
    }
    for c in 0..CARDS {
        let fragments = (0..3)
            .map(|_| FragmentCount::new(FragmentRef::Aspect(Id::new(format!("aspect_{:02}", rng.below(ASPECTS)))), 1))
            .collect();
        project.cards.insert(Card {
            id: Id::new(format!("card_{c:05}")),
            label: format!("Card {c}"),
            description: format!("The card number {c}, with a line of text."),
            fragments,
            ..Card::default()
        });
    }
    for a in 0..ACTS {
        project.acts.insert(Act { id: Id::new(format!("act_{a:03}")), label: format!("Act {a}"), ..Act::default() });
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
    let folder = tempfile::tempdir().unwrap();
    save_folder(&project(), folder.path(), &BTreeSet::new()).unwrap();
    let ctx = egui::Context::default();
    ActforgeApp::setup(&ctx);
    let mut app = ActforgeApp::new(folder.path().to_owned());
    let selected = ItemKey::new(Kind::Card, "card_00042");
    let frame = |app: &mut ActforgeApp| {
        let output = ctx.run_ui(input(), |ui| app.ui(ui));
        ctx.tessellate(output.shapes, output.pixels_per_point).len()
    };
    frame(&mut app);
    app.select(selected.clone());
    app.request(UiCommand::TableView);
    for _ in 0..5 {
        frame(&mut app);
    }
    assert_eq!(app.project().unwrap().cards.len(), CARDS);
    let empty = || {
        let output = ctx.run_ui(input(), |ui| {
            egui::CentralPanel::default().show(ui, |_| {});
        });
        ctx.tessellate(output.shapes, output.pixels_per_point).len()
    };

    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group(GROUP);
    group.sample_size(20);
    group.bench_function("frame_at_rest", |b| b.iter(|| frame(&mut app)));
    let mut count = 0_u64;
    group.bench_function("frame_after_an_edit", |b| {
        b.iter(|| {
            count += 1;
            let mut card = app.project().unwrap().cards.get(&selected.id).unwrap().clone();
            card.description = format!("Edited {count} times.");
            assert!(app.apply_edit(Op::put(Arc::new(card)), "Edit the description"));
            frame(&mut app)
        });
    });
    group.bench_function("peer_empty_frame", |b| b.iter(empty));
    group.finish();
    criterion.final_summary();

    let ms = |name: &str| criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6);
    let peer = ms("peer_empty_frame");
    println!("\nwhole editor frame, 10,000 cards (mean; vs the empty-frame peer; vs the floor of {FLOOR_MS} ms):");
    for name in ["frame_at_rest", "frame_after_an_edit"] {
        if let Some(ms) = ms(name) {
            let vs_peer = peer.map_or_else(|| "n/a".to_owned(), |peer| format!("{:.1}×", ms / peer));
            println!("  {name:<22} {ms:8.3} ms   vs peer {vs_peer:>7}   vs floor: {:.2}", ms / FLOOR_MS);
        }
    }
    if let Some(peer) = peer {
        println!("  {:<22} {peer:8.3} ms", "peer (empty frame)");
    }
}
