//! Map speed: meshing a 256×256×16 map about 30% full (terrain: stacked cubes under a
//! rolling height field, with ramps, inset tiles, overhangs and invisible tiles), against a
//! naive full rebuild without culling (the peer) in the same run; re-meshing after a
//! one-tile edit; reachability on 64×64 with range 8.
//!
//! Floors on the 2-core reference machine: full mesh ≤ 20 ms, re-mesh after a one-tile
//! edit ≤ 0.5 ms, reachability (64×64, range 8) ≤ 1 ms. After the measurements the bench
//! prints each result as a ratio to the peer and to its floor.
//!
//! The full mesh is timed three ways: rebuilding into the mesher's buffers on rayon's pool
//! (what the editor does after a resize or a palette change), the same on one thread, and a
//! first build into new buffers (which also pays for the operating system handing out ~50 MB
//! of fresh pages). The peer rebuilds into its own reused buffers too. A scattered 30% fill
//! (every cell of the volume filled at random: few neighbours, little to cull) is the worst
//! case; it has no floor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::indexing_slicing)] // a benchmark: failing loudly is right

use std::hint::black_box;

use actforge_runtime::map::{
    AtlasLayout, Face, MapMesher, MapScale, MeshBuffers, MeshStyle, ReachParams, SightParams, SpotMap, TileGrid,
    TileSolid, face_shade, pick, reach_line, reach_path, standing_spots,
};
use actforge_runtime::model::{Corners, Faces, Paint, PaletteEntry, PaletteLookup, Tile};
use actforge_tests::{Rng, criterion_mean_ns};
use criterion::Criterion;

const GROUP: &str = "map";
const SIDE: u16 = 256;
const LEVELS: u16 = 16;
const PALETTE: usize = 6;

/// Paint with palette entry `p{index}` (the bench's palette: `p0` … `p5`).
fn paint(index: u16) -> Paint {
    Paint::new(format!("p{index}").as_str(), 0)
}

/// Terrain: a stack of painted cubes under a rolling height field (mean about 4.8 of 16
/// levels), topped now and then by a ramp, an inset tile, an overhang or an invisible tile.
fn terrain(side: u16, seed: u64) -> TileGrid {
    let mut rng = Rng::new(seed);
    let mut grid = TileGrid::new(side, side).unwrap();
    let (sides, tops) = (paint(4), [0, 1, 2, 3, 4, 5].map(paint));
    let painted = |z: u16, top: u16| Tile {
        paint: Faces { top: tops.get(usize::from(top)).copied(), ..Faces::splat(Some(sides)) },
        ..Tile::cube(z)
    };
    for y in 0..side {
        for x in 0..side {
            let (fx, fy) = (f32::from(x), f32::from(y));
            let wave = 2.6 * (fx * 0.21).sin() * (fy * 0.17).cos() + 1.4 * ((fx + 2.0 * fy) * 0.07).sin();
            let noise = rng.below(3) as f32 - 1.0;
            let height = (4.3 + wave + noise).round().clamp(1.0, f32::from(LEVELS - 3)) as u16;
            let mut tiles: Vec<Tile> = (0..height).map(|z| painted(z, height % 4)).collect();
            match rng.below(100) {
                0..=5 => {
                    let rise = [[1, 1, 2, 2], [1, 2, 1, 2], [2, 2, 1, 1], [2, 1, 2, 1]][rng.below(4)];
                    let [x0y0, x1y0, x0y1, x1y1] = rise;
                    tiles.push(Tile { heights: Corners { x0y0, x1y0, x0y1, x1y1 }, ..painted(height, 5) });
                }
                6..=8 => tiles.push(Tile {
                    insets: Faces { neg_x: 0.25, pos_x: 0.25, neg_y: 0.25, pos_y: 0.25, top: 0.5, bottom: 0.0 },
                    ..painted(height, 5)
                }),
                9..=11 => tiles.push(painted(height + 2, 1)),
                12 => tiles.push(Tile { invisible: true, ..Tile::cube(height) }),
                _ => {}
            }
            grid.set_column(x, y, tiles).unwrap();
        }
    }
    grid
}

/// Every cell of the side × side × 16 volume filled with probability 30%.
fn scattered(side: u16, seed: u64) -> TileGrid {
    let mut rng = Rng::new(seed);
    let mut grid = TileGrid::new(side, side).unwrap();
    for y in 0..side {
        for x in 0..side {
            let tiles = (0..LEVELS).filter(|_| rng.chance(30)).map(Tile::cube).collect();
            grid.set_column(x, y, tiles).unwrap();
        }
    }
    grid
}

fn style() -> MeshStyle {
    MeshStyle {
        scale: MapScale { cell_size: 1.0, level_height: 0.5 },
        bottom_faces: true,
        atlas: AtlasLayout::grid(&[1; PALETTE], 64),
        lookup: PaletteLookup::new(
            &(0..PALETTE)
                .map(|i| PaletteEntry { id: format!("p{i}").as_str().into(), ..PaletteEntry::default() })
                .collect::<Vec<_>>(),
        ),
        tints: vec![[255; 4]; PALETTE],
        unpainted_tint: [255; 4],
    }
}

/// The peer: a naive full rebuild that emits all six faces of every tile into one buffer set
/// per 32×32 chunk (reused from the last build), with the same vertex data (world positions,
/// face normal, atlas UVs, shaded colour), and no culling.
fn naive_mesh(grid: &TileGrid, style: &MeshStyle, chunks: &mut Vec<MeshBuffers>) {
    let side = 32u16;
    let count = usize::from(grid.depth().div_ceil(side)) * usize::from(grid.width().div_ceil(side));
    chunks.resize_with(count, MeshBuffers::default);
    let mut outs = chunks.iter_mut();
    for chunk_y in 0..grid.depth().div_ceil(side) {
        for chunk_x in 0..grid.width().div_ceil(side) {
            let out = outs.next().unwrap();
            out.clear();
            for y in chunk_y * side..((chunk_y + 1) * side).min(grid.depth()) {
                for x in chunk_x * side..((chunk_x + 1) * side).min(grid.width()) {
                    for tile in grid.column(i32::from(x), i32::from(y)) {
                        let solid = TileSolid::new(x, y, tile);
                        for face in Face::ALL {
                            let quad = solid.face_quad(face).map(|p| style.scale.world_from_grid(p));
                            let (d1, d2) = (
                                [quad[2][0] - quad[0][0], quad[2][1] - quad[0][1], quad[2][2] - quad[0][2]],
                                [quad[3][0] - quad[1][0], quad[3][1] - quad[1][1], quad[3][2] - quad[1][2]],
                            );
                            let n = [
                                d1[1] * d2[2] - d1[2] * d2[1],
                                d1[2] * d2[0] - d1[0] * d2[2],
                                d1[0] * d2[1] - d1[1] * d2[0],
                            ];
                            let length = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                            let normal = n.map(|v| v / length);
                            let shade = face_shade(normal);
                            let grey = (255.0 * shade) as u8;
                            let (_, rect) = style.resolve(face.of(&tile.paint));
                            let base = out.positions.len() as u32;
                            for (corner, position) in quad.into_iter().enumerate() {
                                out.positions.push(position);
                                out.normals.push(normal);
                                out.uvs.push(rect.at(
                                    f32::from(u8::from(corner == 1 || corner == 2)),
                                    f32::from(u8::from(corner >= 2)),
                                ));
                                out.colours.push([grey, grey, grey, 255]);
                            }
                            out.indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
                        }
                    }
                }
            }
        }
    }
}

fn mesh_benches(c: &mut Criterion) {
    let grid = terrain(SIDE, 7);
    let volume = f64::from(SIDE) * f64::from(SIDE) * f64::from(LEVELS);
    let culled = MapMesher::new(&grid, style()).face_count();
    let mut naive_chunks = Vec::new();
    naive_mesh(&grid, &style(), &mut naive_chunks);
    let naive: usize = naive_chunks.iter().map(MeshBuffers::face_count).sum();
    println!(
        "terrain {SIDE}×{SIDE}×{LEVELS}: {} tiles ({:.1}% full), {culled} faces after culling, {naive} without",
        grid.tile_count(),
        100.0 * grid.tile_count() as f64 / volume
    );
    let scatter = scattered(SIDE, 11);
    println!(
        "scattered {SIDE}×{SIDE}×{LEVELS}: {} tiles ({:.1}% full), {} faces after culling",
        scatter.tile_count(),
        100.0 * scatter.tile_count() as f64 / volume,
        MapMesher::new(&scatter, style()).face_count()
    );

    let mut group = c.benchmark_group(GROUP);
    group.sample_size(20);
    let mut mesher = MapMesher::new(&grid, style());
    group.bench_function("full_mesh", |b| b.iter(|| black_box(mesher.rebuild_all(black_box(&grid)))));
    let one_thread = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    group.bench_function("full_mesh_one_thread", |b| {
        b.iter(|| one_thread.install(|| black_box(mesher.rebuild_all(black_box(&grid)))));
    });
    group.bench_function("full_mesh_first_build", |b| {
        b.iter_with_large_drop(|| MapMesher::new(black_box(&grid), style()));
    });
    group.bench_function("peer_naive_full_mesh", |b| {
        b.iter(|| naive_mesh(black_box(&grid), &style(), &mut naive_chunks));
    });
    group.bench_function("full_mesh_scattered", |b| {
        b.iter_with_large_drop(|| MapMesher::new(black_box(&scatter), style()));
    });

    // One tile toggled in a chunk's interior (one chunk rebuilt) and at a chunk corner (three).
    let mut edited = grid.clone();
    let mut edit_at = |cell: (u16, u16), name: &str, group: &mut criterion::BenchmarkGroup<'_, _>| {
        let original = edited.column(i32::from(cell.0), i32::from(cell.1)).to_vec();
        let mut raised = original.clone();
        raised.push(Tile::cube(raised.last().map_or(0, |tile| tile.z + 1)));
        let mut mesher = MapMesher::new(&edited, style());
        let mut flip = false;
        group.bench_function(name, |b| {
            b.iter(|| {
                flip = !flip;
                edited.set_column(cell.0, cell.1, if flip { raised.clone() } else { original.clone() }).unwrap();
                black_box(mesher.update(&edited, [cell]))
            });
        });
        edited.set_column(cell.0, cell.1, original).unwrap();
    };
    edit_at((100, 70), "edit_one_tile", &mut group);
    edit_at((127, 96), "edit_one_tile_chunk_corner", &mut group);

    let camera = [-20.0, -30.0, 60.0];
    let towards = [128.5 - camera[0], 100.5 - camera[1], 2.0 - camera[2]];
    assert!(pick(&grid, style().scale, camera, towards, false).is_some());
    group.bench_function("pick_camera_ray", |b| {
        b.iter(|| pick(black_box(&grid), style().scale, camera, towards, false));
    });
    group.finish();
}

fn reach_benches(c: &mut Criterion) {
    let grid = terrain(64, 3);
    let start = *standing_spots(&grid, 32, 32).last().unwrap();
    let params = ReachParams::movement(8, 2.0, 3.0);
    let nobody: SpotMap<_> = SpotMap::new();
    let enemies: SpotMap<_> = [(30, 33), (35, 30), (33, 36), (27, 31)]
        .into_iter()
        .filter_map(|(x, y)| {
            standing_spots(&grid, x, y).last().map(|spot| (*spot, actforge_runtime::map::Occupant::Enemy))
        })
        .collect();
    let reach = reach_path(&grid, start, &params, &enemies).unwrap();
    let per_step = ReachParams { use_absolute_dz: false, ..params };
    println!(
        "reach 64×64 from {start:?}, range 8: {} spots reached ({} per step), {} choosable",
        reach.len(),
        reach_path(&grid, start, &per_step, &enemies).unwrap().len(),
        reach.stops().count()
    );
    let mut group = c.benchmark_group(GROUP);
    group.bench_function("reach_64_r8", |b| b.iter(|| reach_path(black_box(&grid), start, &params, &enemies)));
    group.bench_function("reach_64_r8_per_step", |b| {
        b.iter(|| reach_path(black_box(&grid), start, &per_step, &enemies));
    });
    group.bench_function("line_of_sight_region_64_r8", |b| {
        b.iter(|| reach_line(black_box(&grid), start, &params, &SightParams::default(), &nobody));
    });
    group.finish();
}

/// The mean time of a finished benchmark, in milliseconds.
fn mean_ms(name: &str) -> Option<f64> {
    criterion_mean_ns(GROUP, name).map(|ns| ns / 1e6)
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    mesh_benches(&mut criterion);
    reach_benches(&mut criterion);
    criterion.final_summary();

    let peer = mean_ms("peer_naive_full_mesh");
    println!("\nratios (mean time / peer naive full rebuild; mean time / floor):");
    for (name, floor_ms) in [
        ("full_mesh", Some(20.0)),
        ("full_mesh_one_thread", Some(20.0)),
        ("full_mesh_first_build", Some(20.0)),
        ("full_mesh_scattered", None),
        ("edit_one_tile", Some(0.5)),
        ("edit_one_tile_chunk_corner", Some(0.5)),
        ("reach_64_r8", Some(1.0)),
        ("reach_64_r8_per_step", Some(1.0)),
        ("line_of_sight_region_64_r8", None),
        ("pick_camera_ray", None),
    ] {
        if let Some(ms) = mean_ms(name) {
            let vs_peer = peer.map_or_else(|| "n/a".to_owned(), |peer| format!("{:.3}×", ms / peer));
            let vs_floor =
                floor_ms.map_or_else(|| "no floor".to_owned(), |floor| format!("floor {floor} ms: {:.3}", ms / floor));
            println!("  {name:<28} {ms:9.4} ms   vs peer {vs_peer:>8}   {vs_floor}");
        }
    }
    if let Some(peer) = peer {
        println!("  {:<28} {peer:9.4} ms", "peer (naive, no culling)");
    }
}
