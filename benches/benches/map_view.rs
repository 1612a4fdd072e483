//! The tile-map view's CPU cost per frame for a generated 128×128×8 map (terrain of painted
//! cubes with ramps and a few invisible tiles), built headlessly:
//!
//! * `frame_orbit`: the camera turns every frame, so the projected, back-to-front sorted mesh
//!   is rebuilt each time (the worst steady case: orbiting);
//! * `frame_steady`: nothing changed: the document's revision stands, so the cached mesh is
//!   reused without comparing the map;
//! * `frame_after_tile_edit`: one tile toggled, then the frame: the map diff, the chunk
//!   re-mesh and the mesh rebuild (a tile edit shows in the next frame at this cost);
//! * `egui_frame_orbit`: a whole egui frame (the widget in a panel, with grid and hover
//!   picking) plus tessellation, camera turning: what the editor pays before the GPU;
//! * the floor `floor_face_walk`: only walking the runtime mesher's faces and projecting
//!   their corners (no culling, sorting or mesh building).
//!
//! Budget on the 2-core reference machine: ≤ 8 ms per frame. The bench prints each result
//! against the floor and the budget.
//!
//! The GPU path on a 256×256×16 terrain about 30% full (`actforge_tests::terrain_map`), the
//! CPU side of a frame up to the vertex data handed to GL (GL itself cannot run headless),
//! each beside the CPU renderer's frame on the same map (the peer):
//!
//! * `gpu_orbit_256`: the camera turns; nothing is re-uploaded, only the matrix and the draw
//!   list are made (floor: ≤ 2 ms); peer `cpu_orbit_256`;
//! * `gpu_after_tile_edit_256`: one tile toggled, then the frame: the map diff, the touched
//!   chunk re-meshed and packed for upload (floor: ≤ 1 ms); peer `cpu_after_tile_edit_256`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing)] // a benchmark: failing loudly is right

use std::hint::black_box;
use std::sync::Arc;

use actforge_editor::views::map::camera::ViewFrame;
use actforge_editor::views::map::render::Slicing;
use actforge_editor::views::map::tools;
use actforge_editor::views::map::{MapViewState, Overlays, map_view_ui};
use actforge_runtime::model::{Colour, Column, Corners, Faces, Paint, PaletteEntry, Tile, TileMap};
use actforge_tests::{Rng, criterion_mean_ns};
use criterion::Criterion;
use egui::{Pos2, Rect};

const GROUP: &str = "map_view";
const SIDE: u16 = 128;
const LEVELS: u16 = 8;
const BUDGET_MS: f64 = 8.0;
/// The GPU path's floors on the 256×256×16 map (CPU side of a frame).
const GPU_ORBIT_FLOOR_MS: f64 = 2.0;
const GPU_EDIT_FLOOR_MS: f64 = 1.0;
/// Frames are built textured (UVs into a palette atlas): the dearer of the two paths.
const ATLAS: Option<egui::TextureId> = Some(egui::TextureId::User(1));

/// Rolling terrain 1..=8 levels high, tops painted by height, ramps on 6% of the columns and
/// an invisible tile on 1%.
fn terrain() -> TileMap {
    let mut rng = Rng::new(5);
    let mut columns = Vec::new();
    for y in 0..SIDE {
        for x in 0..SIDE {
            let (fx, fy) = (f32::from(x), f32::from(y));
            let wave = 2.0 * (fx * 0.13).sin() * (fy * 0.11).cos() + 1.0 * ((fx + fy) * 0.05).sin();
            let height = (4.0 + wave).round().clamp(1.0, f32::from(LEVELS - 1)) as u16;
            let paint = |index: u16| Some(Paint::new(format!("p{index}").as_str(), 0));
            let (top, sides) = (paint(height % 4), paint(4));
            let mut tiles: Vec<Tile> =
                (0..height).map(|z| Tile { paint: Faces { top, ..Faces::splat(sides) }, ..Tile::cube(z) }).collect();
            match rng.below(100) {
                0..=5 => tiles.push(Tile {
                    heights: Corners { x0y0: 1, x1y0: 2, x0y1: 1, x1y1: 2 },
                    paint: Faces::splat(paint(1)),
                    ..Tile::cube(height)
                }),
                6 => tiles.push(Tile { invisible: true, ..Tile::cube(height) }),
                _ => {}
            }
            columns.push(Arc::new(Column { x, y, tiles }));
        }
    }
    let palette = (0..5)
        .map(|i| PaletteEntry {
            id: format!("p{i}").as_str().into(),
            label: format!("P{i}"),
            image: None,
            colour: Colour::rgb(40 * i, 200 - 30 * i, 90),
            ..PaletteEntry::default()
        })
        .collect();
    TileMap { id: "bench".into(), width: SIDE, depth: SIDE, palette, columns, ..TileMap::default() }
}

fn rect() -> Rect {
    Rect::from_min_size(Pos2::ZERO, egui::vec2(1280.0, 800.0))
}

/// The floor: every face of the mesher's buffers visited and its corners projected.
fn face_walk(state: &MapViewState, frame: &ViewFrame) -> f32 {
    let mut sum = 0.0;
    for chunk in state.scene().unwrap().below_mesher().chunks() {
        for position in &chunk.opaque.positions {
            if let Some((screen, depth)) = frame.project(*position) {
                sum += screen.x + depth;
            }
        }
    }
    sum
}

fn frame_benches(c: &mut Criterion) {
    let map = terrain();
    let mut state = MapViewState::default();
    state.slicing = Slicing::ShowAll;
    // As in the Tile map tab: the document's revision says when the map may have changed.
    let mut revision = 0;
    state.map_revision = Some(revision);
    let frame = state.prepare(&map, rect(), ATLAS).unwrap();
    println!(
        "map {SIDE}×{SIDE}×{LEVELS}: {} tiles, {} faces meshed, {} drawn from the framing camera",
        map.columns.iter().map(|c| c.tiles.len()).sum::<usize>(),
        state.scene().unwrap().face_count(),
        state.drawn_faces()
    );
    let mut group = c.benchmark_group(GROUP);
    group.sample_size(30);
    group.bench_function("floor_face_walk", |b| b.iter(|| black_box(face_walk(&state, &frame))));
    group.bench_function("frame_orbit", |b| {
        b.iter(|| {
            state.camera.orbit(egui::vec2(3.0, 0.0));
            black_box(state.prepare(black_box(&map), rect(), ATLAS))
        });
    });
    group.bench_function("frame_steady", |b| b.iter(|| black_box(state.prepare(black_box(&map), rect(), ATLAS))));
    let mut edited = map.clone();
    let mut flip = false;
    group.bench_function("frame_after_tile_edit", |b| {
        b.iter(|| {
            flip = !flip;
            revision += 1;
            state.map_revision = Some(revision);
            if flip {
                tools::add_tile(&mut edited, 60, 70, 12);
            } else {
                tools::remove_tile_at_level(&mut edited, 60, 70, 12);
            }
            black_box(state.prepare(black_box(&edited), rect(), ATLAS))
        });
    });
    let ctx = egui::Context::default();
    let mut view = MapViewState::default();
    view.slicing = Slicing::ShowAll;
    view.map_revision = Some(0);
    let overlays = Overlays::default();
    group.bench_function("egui_frame_orbit", |b| {
        b.iter(|| {
            view.camera.orbit(egui::vec2(3.0, 0.0));
            let input = egui::RawInput {
                screen_rect: Some(rect()),
                events: vec![egui::Event::PointerMoved(Pos2::new(640.0, 400.0))],
                ..egui::RawInput::default()
            };
            let output = ctx.run_ui(input, |ui| {
                map_view_ui(ui, &mut view, &map, &overlays);
            });
            black_box(ctx.tessellate(output.shapes, output.pixels_per_point))
        });
    });
    group.finish();
}

/// The GPU path's frames on the 256×256×16 map, each beside the CPU renderer's (the peer).
fn gpu_benches(c: &mut Criterion) {
    let map = actforge_tests::terrain_map(256, 16, 7);
    let views = || {
        let mut view = MapViewState::default();
        view.map_revision = Some(0);
        view
    };
    let (mut gpu, mut cpu) = (views(), views());
    gpu.prepare_gpu(&map, rect(), ATLAS).unwrap();
    cpu.prepare(&map, rect(), ATLAS).unwrap();
    println!(
        "map 256×256×16: {} tiles, {} faces meshed, {} drawn by the GPU path, {} by the CPU path",
        map.columns.iter().map(|c| c.tiles.len()).sum::<usize>(),
        gpu.scene().unwrap().face_count(),
        gpu.drawn_faces(),
        cpu.drawn_faces()
    );
    let mut group = c.benchmark_group(GROUP);
    group.sample_size(10);
    group.bench_function("gpu_orbit_256", |b| {
        b.iter(|| {
            gpu.camera.orbit(egui::vec2(3.0, 0.0));
            black_box(gpu.prepare_gpu(black_box(&map), rect(), ATLAS))
        });
    });
    assert_eq!(gpu.packed_chunks(), 0, "orbiting re-uploads nothing");
    group.bench_function("cpu_orbit_256", |b| {
        b.iter(|| {
            cpu.camera.orbit(egui::vec2(3.0, 0.0));
            black_box(cpu.prepare(black_box(&map), rect(), ATLAS))
        });
    });
    // A cell inside chunk (1, 2), away from its borders: one chunk re-meshed per edit.
    let edit = |view: &mut MapViewState, edited: &mut actforge_runtime::model::TileMap, flip: &mut bool| {
        *flip = !*flip;
        view.map_revision = view.map_revision.map(|revision| revision + 1);
        if *flip {
            tools::add_tile(edited, 60, 70, 15);
        } else {
            tools::remove_tile_at_level(edited, 60, 70, 15);
        }
    };
    let (mut edited, mut flip) = (map.clone(), false);
    edit(&mut gpu, &mut edited, &mut flip);
    gpu.prepare_gpu(&edited, rect(), ATLAS).unwrap();
    assert_eq!(gpu.packed_chunks(), 1, "a one-tile edit packs its one chunk");
    group.bench_function("gpu_after_tile_edit_256", |b| {
        b.iter(|| {
            edit(&mut gpu, &mut edited, &mut flip);
            black_box(gpu.prepare_gpu(black_box(&edited), rect(), ATLAS))
        });
    });
    group.bench_function("cpu_after_tile_edit_256", |b| {
        b.iter(|| {
            edit(&mut cpu, &mut edited, &mut flip);
            black_box(cpu.prepare(black_box(&edited), rect(), ATLAS))
        });
    });
    group.finish();
}

/// The mean time of a finished benchmark, in milliseconds.
fn mean_ms(name: &str) -> Option<f64> {
    criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6)
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    frame_benches(&mut criterion);
    gpu_benches(&mut criterion);
    criterion.final_summary();
    let floor = mean_ms("floor_face_walk");
    println!("\nratios (mean time / floor face walk; mean time / {BUDGET_MS} ms budget):");
    for name in ["frame_orbit", "frame_steady", "frame_after_tile_edit", "egui_frame_orbit", "floor_face_walk"] {
        if let Some(ms) = mean_ms(name) {
            let vs_floor = floor.map_or_else(|| "n/a".to_owned(), |floor| format!("{:.2}×", ms / floor));
            println!("  {name:<24} {ms:9.4} ms   vs floor {vs_floor:>8}   budget: {:.3}", ms / BUDGET_MS);
        }
    }
    println!("\nGPU path, 256×256×16 (mean time / its floor; / the CPU renderer's frame, the peer):");
    for (name, peer, floor) in [
        ("gpu_orbit_256", "cpu_orbit_256", GPU_ORBIT_FLOOR_MS),
        ("gpu_after_tile_edit_256", "cpu_after_tile_edit_256", GPU_EDIT_FLOOR_MS),
    ] {
        if let (Some(ms), Some(peer_ms)) = (mean_ms(name), mean_ms(peer)) {
            println!(
                "  {name:<24} {ms:9.4} ms   floor {floor} ms: {:.3}   {peer} {peer_ms:9.3} ms: {:.4}×",
                ms / floor,
                ms / peer_ms
            );
        }
    }
}
