//! The map module: tile solids (insets, ramps, baselines), meshing with hidden-face culling
//! and incremental rebuilds, picking, standing heights, resizing, reachability with ramps,
//! walls, leaps and Z levels, paths, and line of sight.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // a test: geometry here is exact in f32

use std::collections::BTreeMap;

use actforge_runtime::map::{
    AtlasLayout, ChunkKey, Face, LineMoveParams, MapError, MapMesher, MapScale, MeshStyle, Occupant, ReachParams,
    SightMemo, SightParams, Spot, SpotMap, TileGrid, TileSolid, UvRect, WalkStop, arc_shot, chunks_touched, face_shade,
    line_move, line_of_sight, pick, reach_line, reach_line_kept, reach_path, reach_pick, resize_tile_map,
    sight_blocker, signed_dz, spot_point, spot_tags, spot_terrain, standing_height, standing_spots,
};
use actforge_runtime::model::{
    Column, Corners, Faces, Id, Paint, PaletteEntry, PaletteLookup, Placement, Prop, Terrain, Tile, TileMap,
};

fn cube(z: u16) -> Tile {
    Tile::cube(z)
}

/// A tile at `z` with corner heights (x0y0, x1y0, x0y1, x1y1).
fn shaped(z: u16, [x0y0, x1y0, x0y1, x1y1]: [u8; 4]) -> Tile {
    Tile { heights: Corners { x0y0, x1y0, x0y1, x1y1 }, ..Tile::cube(z) }
}

/// Cubes from level 0 up to (not including) `top`.
fn stack(top: u16) -> Vec<Tile> {
    (0..top).map(cube).collect()
}

fn grid(width: u16, depth: u16, columns: Vec<((u16, u16), Vec<Tile>)>) -> TileGrid {
    let mut grid = TileGrid::new(width, depth).unwrap();
    for ((x, y), tiles) in columns {
        grid.set_column(x, y, tiles).unwrap();
    }
    grid
}

/// A `width` × `depth` floor of cubes at level 0 (standing level 1), with some columns replaced.
fn floor(width: u16, depth: u16, replaced: Vec<((u16, u16), Vec<Tile>)>) -> TileGrid {
    let mut columns: BTreeMap<(u16, u16), Vec<Tile>> = BTreeMap::new();
    for y in 0..depth {
        for x in 0..width {
            columns.insert((x, y), vec![cube(0)]);
        }
    }
    for (cell, tiles) in replaced {
        columns.insert(cell, tiles);
    }
    grid(width, depth, columns.into_iter().collect())
}

/// Palette entries `a` and `b`, flat colours.
fn two_entries() -> Vec<PaletteEntry> {
    ["a", "b"].map(|id| PaletteEntry { id: id.into(), ..PaletteEntry::default() }).to_vec()
}

fn style() -> MeshStyle {
    MeshStyle {
        scale: MapScale { cell_size: 1.0, level_height: 1.0 },
        bottom_faces: true,
        atlas: AtlasLayout::grid(&[1, 1], 16),
        lookup: PaletteLookup::new(&two_entries()),
        tints: vec![[255, 0, 0, 255], [0, 255, 0, 255]],
        unpainted_tint: [255; 4],
    }
}

fn faces(grid: &TileGrid) -> usize {
    MapMesher::new(grid, style()).face_count()
}

// ---------------------------------------------------------------- geometry

#[test]
fn a_cube_fills_its_cell_and_level() {
    let solid = TileSolid::new(2, 3, &cube(4));
    assert_eq!((solid.x_min, solid.x_max, solid.y_min, solid.y_max), (2.0, 3.0, 3.0, 4.0));
    assert_eq!(solid.bottom, Corners::splat(4.0));
    assert_eq!(solid.top, Corners::splat(5.0));
    assert_eq!(solid.face_quad(Face::Top), [[2.0, 3.0, 5.0], [3.0, 3.0, 5.0], [3.0, 4.0, 5.0], [2.0, 4.0, 5.0]]);
}

#[test]
fn insets_move_faces_inward() {
    let tile =
        Tile { insets: Faces { neg_x: 0.25, pos_x: 0.125, neg_y: 0.5, pos_y: 0.0, bottom: 0.25, top: 0.5 }, ..cube(1) };
    let solid = TileSolid::new(0, 0, &tile);
    assert_eq!((solid.x_min, solid.x_max, solid.y_min, solid.y_max), (0.25, 0.875, 0.5, 1.0));
    assert_eq!(solid.bottom, Corners::splat(1.25));
    assert_eq!(solid.top, Corners::splat(1.5));
    // The −x face sits on x = 0.25, from y 0.5 to 1, from 1.25 up to 1.5.
    assert_eq!(solid.face_quad(Face::NegX), [[0.25, 1.0, 1.25], [0.25, 0.5, 1.25], [0.25, 0.5, 1.5], [0.25, 1.0, 1.5]]);
}

#[test]
fn unequal_corner_heights_make_a_ramp() {
    // Rises towards +y: the y1 corners are two levels up, the y0 corners one.
    let ramp = shaped(0, [1, 1, 2, 2]);
    assert_eq!(ramp.max_height(), 2);
    let solid = TileSolid::new(0, 0, &ramp);
    assert_eq!(solid.top, Corners { x0y0: 1.0, x1y0: 1.0, x0y1: 2.0, x1y1: 2.0 });
    // Side faces are trapezoids: the −x face goes from 1 high at y 0 to 2 high at y 1.
    assert_eq!(solid.face_quad(Face::NegX), [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 2.0]]);
    assert_eq!(solid.top_height_at(0.5, 0.25), Some(1.25));
    assert_eq!(solid.top_height_at(0.1, 0.75), Some(1.75));
    assert_eq!(solid.edge_top_height(Face::NegY), 1.0);
    assert_eq!(solid.edge_top_height(Face::PosY), 2.0);
    assert_eq!(solid.edge_top_height(Face::NegX), 1.5);
    assert_eq!(solid.top_height_at(1.5, 0.5), None);
}

#[test]
fn one_raised_corner_folds_along_the_other_diagonal() {
    let solid = TileSolid::new(0, 0, &shaped(0, [1, 1, 1, 3]));
    // x1y0–x0y1 are level: that diagonal is the fold, so half the top stays flat.
    assert!(!solid.top_uses_main_diagonal());
    assert_eq!(solid.top_height_at(0.25, 0.25), Some(1.0));
    assert_eq!(solid.top_height_at(1.0, 1.0), Some(3.0));
    assert_eq!(solid.top_height_at(0.75, 0.75), Some(2.0));
    // The mesh's top quad starts on the fold so its triangles (0,1,2), (0,2,3) split there.
    let quad = solid.face_quad(Face::Top);
    assert_eq!((quad[0], quad[2]), ([1.0, 0.0, 1.0], [0.0, 1.0, 1.0]));
}

#[test]
fn baselines_raise_the_bottom_corners() {
    let tile = Tile { baselines: Corners { x0y0: 0, x1y0: 1, x0y1: 0, x1y1: 1 }, ..shaped(2, [2, 2, 2, 2]) };
    let solid = TileSolid::new(0, 0, &tile);
    assert_eq!(solid.bottom, Corners { x0y0: 2.0, x1y0: 3.0, x0y1: 2.0, x1y1: 3.0 });
    assert_eq!(solid.top, Corners::splat(4.0));
}

// ---------------------------------------------------------------- meshing

#[test]
fn a_lone_cube_has_six_faces_of_four_vertices() {
    let grid = grid(4, 4, vec![((1, 1), vec![cube(0)])]);
    let mesher = MapMesher::new(&grid, style());
    assert_eq!(mesher.face_count(), 6);
    let chunk = mesher.chunk(ChunkKey::default()).unwrap();
    assert_eq!(chunk.opaque.positions.len(), 24);
    assert_eq!(chunk.opaque.indices.len(), 36);
    assert!(chunk.invisible.is_empty());
    let without_bottoms = MapMesher::new(&grid, MeshStyle { bottom_faces: false, ..style() });
    assert_eq!(without_bottoms.face_count(), 5);
}

#[test]
fn mesh_vertices_are_in_world_space_with_insets_and_ramps() {
    let ramp = Tile { insets: Faces { pos_x: 0.5, ..Faces::default() }, ..shaped(1, [1, 1, 2, 2]) };
    let grid = grid(4, 4, vec![((2, 3), vec![ramp])]);
    let mesher = MapMesher::new(&grid, MeshStyle { scale: MapScale { cell_size: 2.0, level_height: 0.5 }, ..style() });
    let buffers = &mesher.chunks()[0].opaque;
    // The top face: x from 2 to 2.5 cells (4 to 5 world), y 3 to 4 cells (6 to 8), rising from
    // level 2 (1 world) at y 3 to level 3 (1.5 world) at y 4.
    let top: Vec<[f32; 3]> = buffers.positions.iter().copied().filter(|p| p[2] >= 1.0).collect();
    for corner in [[4.0, 6.0, 1.0], [5.0, 6.0, 1.0], [4.0, 8.0, 1.5], [5.0, 8.0, 1.5]] {
        assert!(top.contains(&corner), "{corner:?} missing from {top:?}");
    }
    assert!(buffers.positions.iter().all(|p| (4.0..=5.0).contains(&p[0]) && (6.0..=8.0).contains(&p[1])));
    assert!(buffers.positions.iter().all(|p| (0.5..=1.5).contains(&p[2])));
}

#[test]
fn two_adjacent_cubes_share_no_face() {
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![cube(0)]), ((2, 1), vec![cube(0)])])), 10);
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![cube(0)]), ((1, 2), vec![cube(0)])])), 10);
    // Stacked: the top of the lower and the bottom of the upper go.
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![cube(0), cube(1)])])), 10);
    // With a level between them nothing is hidden.
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![cube(0), cube(2)])])), 12);
    // Diagonal neighbours hide nothing.
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![cube(0)]), ((2, 2), vec![cube(0)])])), 12);
}

#[test]
fn a_solid_block_shows_only_its_outside() {
    let columns = (0..3).flat_map(|y| (0..3).map(move |x| ((x, y), stack(3)))).collect();
    // 3×3×3 cubes: 9 squares on each of the 6 sides.
    assert_eq!(faces(&grid(8, 8, columns)), 54);
}

#[test]
fn an_inset_neighbour_does_not_hide_a_face() {
    let inset = |faces: Faces<f32>| Tile { insets: faces, ..cube(0) };
    // Inset on the facing side: neither face lies on the shared side.
    let facing =
        grid(4, 4, vec![((1, 1), vec![cube(0)]), ((2, 1), vec![inset(Faces { neg_x: 0.25, ..Faces::default() })])]);
    assert_eq!(faces(&facing), 12);
    // Inset across (narrower in y): it does not cover the cube's face, the cube covers its face.
    let narrow =
        grid(4, 4, vec![((1, 1), vec![cube(0)]), ((2, 1), vec![inset(Faces { pos_y: 0.25, ..Faces::default() })])]);
    assert_eq!(faces(&narrow), 11);
    // A top inset leaves a gap under the tile above: both faces stay.
    let lowered = grid(4, 4, vec![((1, 1), vec![inset(Faces { top: 0.25, ..Faces::default() }), cube(1)])]);
    assert_eq!(faces(&lowered), 12);
}

#[test]
fn ramps_hide_and_are_hidden_only_where_fully_covered() {
    // A ramp rising towards +y (1 → 2 levels) beside two stacked cubes on its +x side.
    let grid = grid(4, 4, vec![((1, 1), vec![shaped(0, [1, 1, 2, 2])]), ((2, 1), vec![cube(0), cube(1)])]);
    // Ramp: its +x trapezoid lies inside the 2-high stack → hidden; 5 faces left.
    // Stack: the lower cube's −x square is inside the ramp's side → hidden; the upper cube's is
    // not (the ramp is only 1 high at y 0) → shown. Stack: 10 faces − 1.
    assert_eq!(faces(&grid), 5 + 9);
}

#[test]
fn a_tall_face_is_hidden_by_a_stack_of_cubes() {
    let tall = shaped(0, [3, 3, 3, 3]);
    // The tall tile loses its +x face; the stack (3 × 6 − 4 inner faces) its three −x squares.
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![tall.clone()]), ((2, 1), stack(3))])), 5 + (14 - 3));
    // With a level missing in the stack, the tall face shows; the two cubes' −x squares still go.
    let gapped = vec![cube(0), cube(2)];
    assert_eq!(faces(&grid(4, 4, vec![((1, 1), vec![tall]), ((2, 1), gapped)])), 6 + 5 + 5);
}

#[test]
fn invisible_tiles_are_meshed_apart_and_hide_only_invisible_faces() {
    let ghost = Tile { invisible: true, ..cube(0) };
    let grid = grid(4, 4, vec![((1, 1), vec![cube(0)]), ((2, 1), vec![ghost.clone()]), ((3, 1), vec![ghost])]);
    let mesher = MapMesher::new(&grid, style());
    let chunk = &mesher.chunks()[0];
    // The cube's +x face stays (you see through the ghost); the ghosts hide each other's
    // shared faces and the one against the cube.
    assert_eq!(chunk.opaque.face_count(), 6);
    assert_eq!(chunk.invisible.face_count(), 12 - 2 - 1);
}

#[test]
fn paint_picks_the_atlas_rectangle_and_tint() {
    let atlas = AtlasLayout::grid(&[1, 1], 16);
    // 2 entries + unpainted → a 2×2 atlas of 32 pixels: cell 0 top-left, cell 2 bottom-left.
    let half_texel = 0.5 / 32.0;
    assert_eq!(
        atlas.rects[0][0],
        UvRect { u_min: half_texel, v_min: half_texel, u_max: 0.5 - half_texel, v_max: 0.5 - half_texel }
    );
    assert_eq!(atlas.unpainted.v_min, 0.5 + half_texel);
    assert_eq!(atlas.tile_rect(9, 0), None);
    assert_eq!(atlas.tile_rect(0, 1), None);
    assert_eq!([0, 1, 3, 4, 8, 9].map(AtlasLayout::cells_per_side), [1, 2, 2, 3, 3, 4]);

    let painted = Tile { paint: Faces { top: Some(Paint::new("b", 0)), ..Faces::default() }, ..cube(0) };
    let grid = grid(2, 2, vec![((0, 0), vec![painted])]);
    let mesher = MapMesher::new(&grid, style());
    let buffers = &mesher.chunks()[0].opaque;
    let rect = atlas.rects[1][0];
    for at in 0..buffers.positions.len() {
        let [u, v] = buffers.uvs[at];
        let is_top = buffers.normals[at] == [0.0, 0.0, 1.0];
        if is_top {
            assert!((rect.u_min..=rect.u_max).contains(&u) && (rect.v_min..=rect.v_max).contains(&v));
            assert_eq!(buffers.colours[at], [0, 255, 0, 255]);
        } else {
            let unpainted = atlas.unpainted;
            assert!(
                (unpainted.u_min..=unpainted.u_max).contains(&u) && (unpainted.v_min..=unpainted.v_max).contains(&v)
            );
            let shade = face_shade(buffers.normals[at]);
            assert!(shade < 1.0);
            assert_eq!(buffers.colours[at][0], (255.0 * shade).round() as u8);
        }
    }
    assert_eq!(face_shade([0.0, 0.0, 1.0]), 1.0);
    // The picture's top edge is at +y on the top face.
    let top_uvs: Vec<[f32; 2]> =
        (0..buffers.positions.len()).filter(|at| buffers.normals[*at][2] == 1.0).map(|at| buffers.uvs[at]).collect();
    let y1 = (0..buffers.positions.len())
        .find(|at| buffers.normals[*at][2] == 1.0 && buffers.positions[*at][1] == 1.0)
        .unwrap();
    assert_eq!(buffers.uvs[y1][1], rect.v_min);
    assert_eq!(top_uvs.len(), 4);
}

#[test]
fn triangles_wind_counter_clockwise_seen_from_outside() {
    let grid = grid(2, 2, vec![((0, 0), vec![shaped(0, [1, 2, 1, 3])])]);
    let mesher = MapMesher::new(&grid, style());
    let buffers = &mesher.chunks()[0].opaque;
    for triangle in buffers.indices.chunks(3) {
        let [a, b, c] = [0, 1, 2].map(|k| buffers.positions[triangle[k] as usize]);
        let (e1, e2) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        let n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
        let normal = buffers.normals[triangle[0] as usize];
        assert!(n[0] * normal[0] + n[1] * normal[1] + n[2] * normal[2] > 0.0, "triangle {triangle:?} faces inward");
    }
}

/// A deterministic bumpy map spanning several chunks, with ramps, insets, overhangs and ghosts.
fn bumpy(width: u16, depth: u16) -> TileGrid {
    let mut grid = TileGrid::new(width, depth).unwrap();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for y in 0..depth {
        for x in 0..width {
            let height = 1 + next(5) as u16;
            let mut tiles = stack(height);
            match next(10) {
                0 => tiles
                    .push(shaped(height, [[1, 1, 2, 2], [1, 2, 1, 2], [2, 2, 1, 1], [1, 1, 1, 2]][next(4) as usize])),
                4 => tiles.push(shaped(height, [3, 3, 3, 3])),
                5 => tiles.push(shaped(height, [1, 3, 2, 3])),
                1 => tiles.push(Tile { insets: Faces { neg_x: 0.25, top: 0.5, ..Faces::default() }, ..cube(height) }),
                2 => tiles.push(cube(height + 2)),
                3 => tiles.push(Tile { invisible: true, ..cube(height) }),
                _ => {}
            }
            grid.set_column(x, y, tiles).unwrap();
        }
    }
    grid
}

#[test]
fn an_edit_rebuilds_only_touched_chunks_and_matches_a_full_build() {
    let mut grid = bumpy(80, 70);
    let mut mesher = MapMesher::new(&grid, style());
    assert_eq!(mesher.chunks().len(), 9);
    let edits: [((u16, u16), Vec<Tile>, usize); 5] = [
        ((40, 40), vec![cube(0), shaped(1, [1, 3, 1, 3])], 1),
        ((32, 10), vec![], 2),
        ((31, 63), stack(9), 3),
        ((63, 64), vec![cube(3)], 3),
        ((79, 69), stack(2), 1),
    ];
    for ((x, y), tiles, chunk_count) in edits {
        grid.set_column(x, y, tiles).unwrap();
        let rebuilt = mesher.update(&grid, [(x, y)]);
        assert_eq!(rebuilt.len(), chunk_count, "edit at ({x}, {y}) rebuilt {rebuilt:?}");
        let fresh = MapMesher::new(&grid, style());
        assert_eq!(mesher.chunks(), fresh.chunks(), "after the edit at ({x}, {y})");
    }
    assert_eq!(
        chunks_touched(80, 70, [(32, 31)]).into_iter().collect::<Vec<_>>(),
        [ChunkKey { chunk_x: 0, chunk_y: 0 }, ChunkKey { chunk_x: 1, chunk_y: 0 }, ChunkKey { chunk_x: 1, chunk_y: 1 }]
    );
    // A resized grid is rebuilt whole.
    grid.resize(40, 40, 0, 0).unwrap();
    assert_eq!(mesher.update(&grid, [(1, 1)]).len(), 4);
    assert_eq!(mesher.chunks(), MapMesher::new(&grid, style()).chunks());
}

/// Whether a grid point is inside `tile`'s solid on cell (x, y) (flat bottoms only, as in `bumpy`).
fn inside(cell: (u16, u16), tile: &Tile, point: [f32; 3]) -> bool {
    let solid = TileSolid::new(cell.0, cell.1, tile);
    let bottom = solid.bottom.to_array().into_iter().fold(f32::INFINITY, f32::min);
    solid.top_height_at(point[0], point[1]).is_some_and(|top| point[2] >= bottom && point[2] <= top)
}

#[test]
fn culled_faces_are_exactly_the_covered_ones() {
    // Brute force: a face is covered when points just outside it, spread over its two
    // triangles, all lie inside tiles that may hide it (opaque ones; invisible ones only hide
    // invisible faces). The mesh must hold exactly the faces that are not covered.
    const SAMPLES: u16 = 10;
    let grid = bumpy(20, 20);
    let mesher = MapMesher::new(&grid, style());
    let key = |quad: &[[f32; 3]]| quad.iter().flat_map(|p| p.map(f32::to_bits)).collect::<Vec<u32>>();
    let mut emitted = std::collections::BTreeSet::new();
    for chunk in mesher.chunks() {
        for buffers in [&chunk.opaque, &chunk.invisible] {
            for quad in buffers.positions.chunks(4) {
                assert!(emitted.insert(key(quad)), "a face is meshed twice");
            }
        }
    }
    let (mut shown, mut hidden) = (0, 0);
    for y in 0..20u16 {
        for x in 0..20u16 {
            for (index, tile) in grid.column(i32::from(x), i32::from(y)).iter().enumerate() {
                let solid = TileSolid::new(x, y, tile);
                for face in Face::ALL {
                    let quad = solid.face_quad(face);
                    let normal = face.axis_normal();
                    let mut uncovered = false;
                    for triangle in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
                        let inner = (1..SAMPLES).flat_map(|a| (1..SAMPLES - a).map(move |b| (a, b)));
                        for (a, b) in inner {
                            let (a, b) = (f32::from(a) / f32::from(SAMPLES), f32::from(b) / f32::from(SAMPLES));
                            let c = 1.0 - a - b;
                            let mut point = [0.0; 3];
                            for axis in 0..3 {
                                point[axis] = triangle[0][axis] * c
                                    + triangle[1][axis] * a
                                    + triangle[2][axis] * b
                                    + normal[axis] * 1e-3;
                            }
                            let covered = [(0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)].into_iter().any(|(dx, dy)| {
                                let cell = (i32::from(x) + dx, i32::from(y) + dy);
                                grid.column(cell.0, cell.1).iter().enumerate().any(|(other_index, other)| {
                                    let same = (dx, dy, other_index) == (0, 0, index);
                                    let may_hide = !other.invisible || tile.invisible;
                                    !same && may_hide && inside((cell.0 as u16, cell.1 as u16), other, point)
                                })
                            });
                            uncovered |= !covered;
                        }
                    }
                    let in_mesh = emitted.contains(&key(&quad));
                    assert_eq!(in_mesh, uncovered, "({x}, {y}) tile {index} {face:?} {tile:?}");
                    if uncovered { shown += 1 } else { hidden += 1 }
                }
            }
        }
    }
    assert_eq!(shown, mesher.face_count());
    assert!(hidden > shown, "a dense map hides most faces: {hidden} hidden, {shown} shown");
}

// ---------------------------------------------------------------- picking and heights

fn world(grid_point: [f32; 3]) -> [f32; 3] {
    MapScale::default().world_from_grid(grid_point)
}

#[test]
fn a_ray_from_above_hits_the_top_face() {
    let grid = grid(6, 6, vec![((2, 3), vec![cube(0), cube(1)]), ((4, 4), vec![cube(0)])]);
    let hit = pick(&grid, MapScale::default(), world([2.5, 3.5, 20.0]), [0.0, 0.0, -1.0], false).unwrap();
    assert_eq!((hit.cell_x, hit.cell_y, hit.tile_index, hit.tile_z, hit.face), (2, 3, 1, 1, Face::Top));
    assert_eq!(hit.grid_point, [2.5, 3.5, 2.0]);
    assert_eq!(hit.world_point, [2.5, 3.5, 1.0]);
    assert_eq!(hit.distance, 9.0);
}

#[test]
fn a_slanted_ray_hits_the_side_it_meets_first() {
    let grid = grid(6, 6, vec![((2, 3), vec![cube(0), cube(1)]), ((4, 3), stack(6))]);
    // From −x, level with the lower cube's middle: its −x face.
    let hit = pick(&grid, MapScale::default(), world([0.0, 3.5, 0.5]), [1.0, 0.0, 0.0], false).unwrap();
    assert_eq!((hit.cell_x, hit.tile_index, hit.face), (2, 0, Face::NegX));
    // From +x towards −x: the tall column at x 4 is in the way.
    let hit = pick(&grid, MapScale::default(), world([5.9, 3.5, 1.5]), [-1.0, 0.0, 0.0], false).unwrap();
    assert_eq!((hit.cell_x, hit.tile_index, hit.face), (4, 1, Face::PosX));
    // Down and towards −y (one level per cell in grid space: a level is half a cell in the
    // world): it meets the upper cube's +y side.
    let hit = pick(&grid, MapScale::default(), world([2.5, 5.5, 3.2]), [0.0, -1.0, -0.5], false).unwrap();
    assert_eq!((hit.cell_x, hit.cell_y, hit.tile_index, hit.face), (2, 3, 1, Face::PosY));
    assert!((hit.grid_point[1] - 4.0).abs() < 1e-5 && (hit.grid_point[2] - 1.7).abs() < 1e-5, "{hit:?}");
    // Twice as steep, it reaches the lower cube's side instead.
    let hit = pick(&grid, MapScale::default(), world([2.5, 5.5, 3.2]), [0.0, -1.0, -1.0], false).unwrap();
    assert_eq!((hit.cell_y, hit.tile_index, hit.face), (3, 0, Face::PosY));
    assert!(pick(&grid, MapScale::default(), world([0.5, 0.5, 5.0]), [0.0, 0.0, -1.0], false).is_none());
    assert!(pick(&grid, MapScale::default(), world([0.5, 0.5, 5.0]), [0.0, 0.0, 0.0], false).is_none());
    assert!(pick(&grid, MapScale::default(), [f32::NAN, 0.0, 0.0], [0.0, 0.0, -1.0], false).is_none());
}

#[test]
fn a_ray_from_far_away_hits_what_a_near_one_hits() {
    // An orthographic camera's rays start far behind the map; f32 loses the thin hits there
    // unless the ray is first brought to the map's box.
    let grid = grid(8, 8, vec![((2, 3), vec![cube(0), cube(1)]), ((5, 5), vec![shaped(0, [1, 1, 3, 3])])]);
    let direction: [f32; 3] = [0.3, 0.45, -0.84];
    let length = (direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]).sqrt();
    for (target, face) in [([2.37, 3.61, 1.0], Face::Top), ([5.5, 5.5, 1.0], Face::Top)] {
        for distance in [5.0, 1_000.0, 20_000.0, 200_000.0] {
            let origin = std::array::from_fn(|i| target[i] - direction[i] / length * distance);
            let hit = pick(&grid, MapScale::default(), origin, direction, false)
                .unwrap_or_else(|| panic!("missed {target:?} from {distance}"));
            assert_eq!(hit.face, face, "from {distance}");
            let off = (0..3).map(|i| (hit.world_point[i] - target[i]).abs()).fold(0.0, f32::max);
            assert!(off < 0.05, "from {distance}: {hit:?}");
        }
    }
}

#[test]
fn picking_lands_on_a_ramp_and_skips_invisible_tiles_unless_asked() {
    let ramp = shaped(0, [1, 1, 3, 3]);
    let ghost = Tile { invisible: true, ..cube(4) };
    let grid = grid(4, 4, vec![((1, 1), vec![ramp, ghost])]);
    let scale = MapScale { cell_size: 2.0, level_height: 1.0 };
    let down = [0.0, 0.0, -1.0];
    let hit = pick(&grid, scale, [3.0, 3.0, 10.0], down, false).unwrap();
    assert_eq!((hit.tile_index, hit.face), (0, Face::Top));
    assert!((hit.grid_point[2] - 2.0).abs() < 1e-5, "{hit:?}");
    let hit = pick(&grid, scale, [3.0, 3.0, 10.0], down, true).unwrap();
    assert_eq!((hit.tile_index, hit.face, hit.grid_point[2]), (1, Face::Top, 5.0));
}

#[test]
fn standing_height_interpolates_on_ramps() {
    let grid = grid(4, 4, vec![((1, 1), vec![shaped(0, [1, 1, 3, 3])]), ((2, 1), vec![cube(0), cube(4)])]);
    let stand = standing_height(&grid, 1.5, 1.25, None).unwrap();
    assert_eq!((stand.height, stand.tile_index, stand.level), (1.5, 0, 3));
    assert_eq!(standing_height(&grid, 1.5, 1.75, None).unwrap().height, 2.5);
    // A bridge column: the top by default, the ground under a limit.
    assert_eq!(standing_height(&grid, 2.5, 1.5, None).unwrap().height, 5.0);
    assert_eq!(standing_height(&grid, 2.5, 1.5, Some(3.0)).unwrap().height, 1.0);
    assert!(standing_height(&grid, 0.5, 0.5, None).is_none());
    assert!(standing_height(&grid, -1.0, 0.5, None).is_none());
}

// ---------------------------------------------------------------- grid, content and resize

fn map_with(columns: Vec<Column>) -> TileMap {
    TileMap {
        id: Id::new("m"),
        width: 6,
        depth: 4,
        columns: columns.into_iter().map(std::sync::Arc::new).collect(),
        ..TileMap::default()
    }
}

#[test]
fn resize_keeps_every_tile_at_its_cell() {
    let columns = vec![
        Column { x: 0, y: 0, tiles: vec![cube(0)] },
        Column { x: 5, y: 0, tiles: vec![cube(0), cube(1)] },
        Column { x: 2, y: 1, tiles: vec![shaped(0, [1, 1, 2, 2])] },
        Column { x: 1, y: 3, tiles: vec![cube(3)] },
        Column { x: 5, y: 3, tiles: vec![cube(7)] },
    ];
    let map = map_with(columns);
    let mut grid = TileGrid::from_map(&map).unwrap();
    // Narrower and deeper: rows must not slide (a flat y·width + x copy would move them).
    let report = grid.resize(4, 6, 0, 0).unwrap();
    assert_eq!((report.dropped_columns, report.dropped_tiles), (2, 3));
    assert_eq!(grid.column(0, 0), [cube(0)]);
    assert_eq!(grid.column(2, 1), [shaped(0, [1, 1, 2, 2])]);
    assert_eq!(grid.column(1, 3), [cube(3)]);
    assert_eq!(grid.tile_count(), 3);
    // Wider again: everything left is where it was.
    grid.resize(9, 6, 0, 0).unwrap();
    assert_eq!(grid.column(1, 3), [cube(3)]);
    // Shifted: columns move together.
    grid.resize(9, 6, 2, 1).unwrap();
    assert_eq!(grid.column(3, 4), [cube(3)]);
    assert_eq!(grid.column(4, 2), [shaped(0, [1, 1, 2, 2])]);
    assert!(matches!(grid.resize(0, 3, 0, 0), Err(MapError::BadSize { .. })));
}

#[test]
fn resizing_the_model_moves_columns_placements_and_props() {
    let mut map = map_with(vec![
        Column { x: 0, y: 0, tiles: vec![cube(0)] },
        Column { x: 5, y: 0, tiles: vec![cube(0)] },
        Column { x: 3, y: 2, tiles: vec![cube(0), cube(1)] },
    ]);
    map.placements =
        vec![Placement { unit: Id::new("knight"), team: String::new(), x: 3, y: 2, z: None, facing_degrees: 0.0 }];
    map.props = vec![Prop { x: 5, y: 3, ..Prop::default() }];
    let report = resize_tile_map(&mut map, 5, 4, -1, 1).unwrap();
    assert_eq!(
        (report.dropped_columns, report.dropped_tiles, report.dropped_placements, report.dropped_props),
        (1, 1, 0, 1)
    );
    assert_eq!((map.width, map.depth), (5, 4));
    let cells: Vec<(u16, u16, usize)> = map.columns.iter().map(|c| (c.x, c.y, c.tiles.len())).collect();
    assert_eq!(cells, [(4, 1, 1), (2, 3, 2)]);
    assert_eq!((map.placements[0].x, map.placements[0].y), (2, 3));
    assert!(resize_tile_map(&mut map, 2000, 4, 0, 0).is_err());
}

#[test]
fn broken_content_is_clamped_not_fatal() {
    let wild = Tile {
        z: 255,
        heights: Corners { x0y0: 0, x1y0: 200, x0y1: 1, x1y1: 1 },
        baselines: Corners::splat(9),
        insets: Faces { neg_x: f32::NAN, pos_x: 0.9, neg_y: -3.0, pos_y: f32::INFINITY, bottom: 7.0, top: 0.5 },
        paint: Faces::splat(Some(Paint::new("nowhere", 400))),
        invisible: false,
    };
    let map = map_with(vec![
        Column { x: 2, y: 2, tiles: vec![cube(5), wild, cube(0)] },
        Column { x: 2, y: 2, tiles: vec![cube(2)] },
        Column { x: 60, y: 1, tiles: vec![cube(0)] },
    ]);
    let grid = TileGrid::from_map(&map).unwrap();
    let column = grid.column(2, 2);
    assert_eq!(column.iter().map(|t| t.z).collect::<Vec<_>>(), [0, 2, 5, 192]);
    let clamped = &column[3];
    assert_eq!(clamped.heights, Corners { x0y0: 1, x1y0: 64, x0y1: 1, x1y1: 1 });
    assert_eq!(clamped.baselines, Corners { x0y0: 0, x1y0: 9, x0y1: 0, x1y1: 0 });
    assert!(clamped.insets.to_array().iter().all(|v| v.is_finite() && (0.0..1.0).contains(v)));
    assert!(clamped.insets.neg_x + clamped.insets.pos_x < 1.0);
    assert_eq!(grid.tile_count(), 4);
    // Everything still meshes, picks and paths.
    let mesher = MapMesher::new(&grid, style());
    assert!(mesher.face_count() > 0);
    assert!(mesher.chunks()[0].opaque.positions.iter().flatten().all(|v| v.is_finite()));
    pick(&grid, MapScale::default(), [2.2, 2.1, 200.0], [0.0, 0.0, -1.0], true).unwrap();
    for spot in standing_spots(&grid, 2, 2) {
        reach_path(&grid, spot, &ReachParams::default(), &SpotMap::new()).unwrap();
    }
    let bad = TileMap { width: 0, ..map };
    assert_eq!(TileGrid::from_map(&bad), Err(MapError::BadSize { width: 0, depth: 4 }));
    let grid = TileGrid::new(3, 3).unwrap();
    assert!(matches!(grid.clone().set_column(3, 0, vec![]), Err(MapError::OutsideMap { .. })));
}

#[test]
fn grid_round_trips_through_the_model() {
    let mut map = map_with(vec![
        Column { x: 4, y: 0, tiles: vec![cube(0), shaped(1, [1, 2, 1, 2])] },
        Column { x: 1, y: 2, tiles: vec![cube(3)] },
    ]);
    let grid = TileGrid::from_map(&map).unwrap();
    let before = map.clone();
    grid.write_to(&mut map);
    assert_eq!(map, before);
}

// ---------------------------------------------------------------- spots and reachability

#[test]
fn spots_are_tile_tops_with_room_above() {
    let grid = grid(3, 3, vec![((1, 1), vec![cube(0), cube(1), cube(3), shaped(4, [1, 1, 2, 2])])]);
    // Level 1 is covered by the cube on it; 2 has one free level; 4 touches the ramp at 4.
    assert_eq!(standing_spots(&grid, 1, 1), [Spot::new(1, 1, 2), Spot::new(1, 1, 6)]);
    // A unit on the ramp stands in the middle of its slope.
    assert_eq!(spot_point(&grid, Spot::new(1, 1, 6)), Some([1.5, 1.5, 5.5]));
    assert_eq!(spot_point(&grid, Spot::new(1, 1, 1)), None);
}

#[test]
fn height_differences_use_edges_so_ramps_are_gentle() {
    let grid = grid(4, 1, vec![((0, 0), vec![cube(0)]), ((1, 0), vec![shaped(0, [1, 3, 1, 3])]), ((2, 0), stack(3))]);
    let (ground, ramp, cliff) = (Spot::new(0, 0, 1), Spot::new(1, 0, 3), Spot::new(2, 0, 3));
    assert_eq!(signed_dz(&grid, ground, ramp), Some(0.0));
    assert_eq!(signed_dz(&grid, ramp, cliff), Some(0.0));
    assert_eq!(signed_dz(&grid, cliff, ramp), Some(0.0));
    assert_eq!(signed_dz(&grid, ground, cliff), Some(2.0));
    assert_eq!(signed_dz(&grid, ground, Spot::new(0, 0, 2)), None);
}

fn per_step(radius: u16, up: f32, down: f32) -> ReachParams {
    ReachParams { use_absolute_dz: false, ..ReachParams::movement(radius, up, down) }
}

fn nobody() -> SpotMap<Occupant> {
    SpotMap::new()
}

#[test]
fn terrain_costs_and_tags_come_from_the_top_paint() {
    // A corridor: (1, 0) mud (cost 3), (2, 0) a sand top (cost 0) over a mud side, (3, 0) water.
    let painted = |top: Option<&str>, side: Option<&str>| {
        let paint = |id: Option<&str>| id.map(|id| Paint::new(id, 0));
        vec![Tile { paint: Faces { top: paint(top), neg_y: paint(side), ..Faces::default() }, ..cube(0) }]
    };
    let mut grid = floor(
        5,
        1,
        vec![
            ((1, 0), painted(Some("mud"), None)),
            ((2, 0), painted(Some("sand"), Some("mud"))),
            ((3, 0), painted(Some("water"), None)),
        ],
    );
    let entry = |id: &str, move_cost: i32, tags: &[&str]| PaletteEntry {
        id: id.into(),
        terrain: Terrain { move_cost, defence: 1.5, tags: tags.iter().map(|tag| (*tag).to_owned()).collect() },
        ..PaletteEntry::default()
    };
    // Listed in another order than painted: paint names entries, not positions.
    grid.set_palette(&[entry("water", 1, &["water", "deep"]), entry("mud", 3, &["mud"]), entry("sand", 0, &[])]);
    let start = Spot::new(0, 0, 1);
    let steps = |params: &ReachParams| -> Vec<(u16, u16)> {
        reach_path(&grid, start, params, &nobody())
            .unwrap()
            .nodes()
            .map(|node| (node.spot.cell_x, node.steps))
            .collect()
    };
    // 3 into the mud, 0 onto the sand, 1 into the water, 1 beyond.
    assert_eq!(steps(&ReachParams::movement(5, 1.0, 1.0)), [(0, 0), (1, 3), (2, 3), (3, 4), (4, 5)]);
    assert_eq!(steps(&ReachParams::movement(3, 1.0, 1.0)), [(0, 0), (1, 3), (2, 3)]);
    let dry = ReachParams { no_enter: grid.tag_mask(["water"]), ..ReachParams::movement(5, 1.0, 1.0) };
    assert_eq!(steps(&dry), [(0, 0), (1, 3), (2, 3)]);
    assert_eq!(grid.tag_mask(["deep", "water"]).count_ones(), 2);
    assert_eq!(grid.tag_mask(["lava"]), 0);
    // A side face's paint means nothing; unpainted tops are plain ground.
    assert_eq!(spot_terrain(&grid, Spot::new(2, 0, 1)).map(|t| t.move_cost), Some(0));
    assert_eq!(spot_terrain(&grid, start), Some(&Terrain::default()));
    assert_eq!(spot_tags(&grid, Spot::new(3, 0, 1)), Some(grid.tag_mask(["water", "deep"])));
    assert_eq!(spot_tags(&grid, Spot::new(3, 0, 2)), None);
}

#[test]
fn a_search_sees_every_change_to_the_grid_since_the_last_one() {
    // Searches keep what they worked out per grid state (standing spots, terrain, searches
    // done): a column set or a palette taken afterwards must show in the next search.
    let mut grid = floor(5, 1, vec![]);
    let start = Spot::new(0, 0, 1);
    let params = ReachParams::movement(4, 1.0, 1.0);
    let ends = |grid: &TileGrid| -> Vec<(u16, u16)> {
        reach_path(grid, start, &params, &nobody()).unwrap().stops().map(|spot| (spot.cell_x, spot.level)).collect()
    };
    assert_eq!(ends(&grid), [(0, 1), (1, 1), (2, 1), (3, 1), (4, 1)]);
    // A wall at x 2: nothing beyond it.
    grid.set_column(2, 0, stack(4)).unwrap();
    assert_eq!(ends(&grid), [(0, 1), (1, 1)]);
    // Lowered to a step: climbed and crossed.
    grid.set_column(2, 0, stack(2)).unwrap();
    assert_eq!(ends(&grid), [(0, 1), (1, 1), (2, 2), (3, 1), (4, 1)]);
    // Paint that costs 3 at x 1 (the palette comes after the paint): the budget runs out sooner.
    let mud = Tile { paint: Faces { top: Some(Paint::new("mud", 0)), ..Faces::default() }, ..cube(0) };
    grid.set_column(1, 0, vec![mud]).unwrap();
    assert_eq!(ends(&grid), [(0, 1), (1, 1), (2, 2), (3, 1), (4, 1)], "no palette yet: plain ground");
    let terrain = Terrain { move_cost: 3, ..Terrain::default() };
    grid.set_palette(&[PaletteEntry { id: "mud".into(), terrain, ..PaletteEntry::default() }]);
    assert_eq!(ends(&grid), [(0, 1), (1, 1), (2, 2)]);
    // A copy keeps the answers of the grid it was copied from, and changes apart from it.
    let mut copy = grid.clone();
    copy.set_column(1, 0, vec![cube(0)]).unwrap();
    assert_eq!(ends(&copy), [(0, 1), (1, 1), (2, 2), (3, 1), (4, 1)]);
    assert_eq!(ends(&grid), [(0, 1), (1, 1), (2, 2)]);
}

#[test]
fn on_flat_ground_reach_is_a_diamond_and_paths_are_shortest() {
    let grid = floor(9, 9, vec![]);
    let start = Spot::new(4, 4, 1);
    let reach = reach_path(&grid, start, &ReachParams::movement(3, 2.0, 3.0), &nobody()).unwrap();
    let stops: Vec<Spot> = reach.stops().collect();
    assert_eq!(stops.len(), 1 + 4 + 8 + 12);
    assert!(stops.iter().all(|spot| spot.xy_distance(start) <= 3));
    let mut sorted = stops.clone();
    sorted.sort();
    assert_eq!(stops, sorted, "results come out ordered by spot");
    let path = reach.path_to(Spot::new(2, 3, 1)).unwrap();
    assert_eq!(path.len(), 4);
    assert_eq!((path[0], path[3]), (start, Spot::new(2, 3, 1)));
    assert!(path.windows(2).all(|pair| pair[0].xy_distance(pair[1]) == 1));
    assert_eq!(reach.get(Spot::new(2, 3, 1)).unwrap().steps, 3);
    assert!(reach.path_to(Spot::new(0, 0, 1)).is_none());
    // Same input, same output.
    assert_eq!(reach, reach_path(&grid, start, &ReachParams::movement(3, 2.0, 3.0), &nobody()).unwrap());
    assert!(matches!(
        reach_path(&grid, Spot::new(4, 4, 2), &ReachParams::default(), &nobody()),
        Err(MapError::NotASpot { .. })
    ));
}

#[test]
fn path_length_is_bounded_in_every_direction() {
    // SRPGCK pruned with `distance + dx + dy > R`: steps towards −x or −y subtract, so only the
    // exact-equality check capped them. Here every direction costs one step.
    let grid = floor(11, 11, vec![]);
    let start = Spot::new(5, 5, 1);
    let reach = reach_path(&grid, start, &ReachParams::movement(2, 1.0, 1.0), &nobody()).unwrap();
    assert_eq!(reach.len(), 13);
    assert!(reach.nodes().all(|node| node.steps <= 2 && node.spot.xy_distance(start) <= 2));
    assert!(reach.get(Spot::new(2, 5, 1)).is_none() && reach.get(Spot::new(5, 2, 1)).is_none());
}

#[test]
fn walls_force_paths_around_them() {
    // A wall 3 levels high along x = 3, open only at y = 4.
    let wall: Vec<((u16, u16), Vec<Tile>)> = (0..4).map(|y| ((3, y), stack(4))).collect();
    let grid = floor(7, 5, wall);
    let start = Spot::new(1, 1, 1);
    let params = ReachParams::movement(12, 2.0, 3.0);
    let reach = reach_path(&grid, start, &params, &nobody()).unwrap();
    let across = Spot::new(5, 1, 1);
    // Around through (3, 4): 2 right, 3 up, 2 right, 3 down... = 4 + 3 + 3 = 10.
    assert_eq!(reach.get(across).unwrap().steps, 10);
    assert!(reach.path_to(across).unwrap().contains(&Spot::new(3, 4, 1)));
    // The wall's top is 3 up: out of the window.
    assert!(reach.get(Spot::new(3, 1, 4)).is_none());
    // Allowed to climb 3, the wall top is a stop and the way across is short.
    let climber = reach_path(&grid, start, &ReachParams::movement(12, 3.0, 3.0), &nobody()).unwrap();
    assert!(climber.get(Spot::new(3, 1, 4)).unwrap().can_stop);
    assert_eq!(climber.get(across).unwrap().steps, 4);
}

#[test]
fn a_ramp_makes_a_cliff_climbable_step_by_step() {
    // ground(1) → ramp rising 1 → 3 along +x → top of a 3-stack.
    let ramp = shaped(0, [1, 3, 1, 3]);
    let climb = grid(4, 1, vec![((0, 0), vec![cube(0)]), ((1, 0), vec![ramp]), ((2, 0), stack(3)), ((3, 0), stack(3))]);
    let reach = reach_path(&climb, Spot::new(0, 0, 1), &per_step(5, 1.0, 1.0), &nobody()).unwrap();
    assert_eq!(reach.stops().collect::<Vec<_>>(), [0, 1, 2, 3].map(|x| Spot::new(x, 0, if x == 0 { 1 } else { 3 })));
    assert_eq!(reach.get(Spot::new(3, 0, 3)).unwrap().climb, 0.0);
    // The same cliff without the ramp: a 2-level step, too high.
    let cliff = grid(4, 1, vec![((0, 0), vec![cube(0)]), ((1, 0), stack(3)), ((2, 0), stack(3))]);
    let reach = reach_path(&cliff, Spot::new(0, 0, 1), &per_step(5, 1.0, 1.0), &nobody()).unwrap();
    assert_eq!(reach.len(), 1);
}

#[test]
fn z_levels_a_bridge_gives_two_spots_per_cell() {
    // A deck at level 4 over x = 1..=3 of row 0 (a cube under it at level 0 and one at 3),
    // reached by stairs at x = 0: (0, 2) two high, (0, 1) three, (0, 0) four.
    let mut replaced = vec![((0, 2), stack(2)), ((0, 1), stack(3)), ((0, 0), stack(4))];
    for x in 1..=3 {
        replaced.push(((x, 0), vec![cube(0), cube(3)]));
    }
    let grid = floor(5, 3, replaced);
    assert_eq!(standing_spots(&grid, 2, 0), [Spot::new(2, 0, 1), Spot::new(2, 0, 4)]);
    let start = Spot::new(1, 1, 1);
    let reach = reach_path(&grid, start, &per_step(8, 1.0, 1.0), &nobody()).unwrap();
    // Under the bridge along the row, and up the stairs onto the deck.
    assert!(reach.get(Spot::new(3, 0, 1)).unwrap().can_stop);
    assert_eq!(reach.get(Spot::new(3, 0, 1)).unwrap().steps, 3);
    assert_eq!(
        reach.path_to(Spot::new(3, 0, 4)).unwrap(),
        [(1, 1, 1), (1, 2, 1), (0, 2, 2), (0, 1, 3), (0, 0, 4), (1, 0, 4), (2, 0, 4), (3, 0, 4)]
            .map(|(x, y, level)| Spot::new(x, y, level))
    );
    // A unit three levels tall does not fit under the deck (two free levels): with walls
    // crossable it may pass there but not stop; otherwise it cannot go there at all.
    let tall = ReachParams { clearance: 3, ..per_step(8, 1.0, 1.0) };
    let reach = reach_path(&grid, start, &tall, &nobody()).unwrap();
    assert!(!reach.get(Spot::new(2, 0, 1)).unwrap().can_stop);
    assert!(reach.get(Spot::new(4, 0, 1)).unwrap().can_stop);
    let blocked = reach_path(&grid, start, &ReachParams { can_cross_walls: false, ..tall }, &nobody()).unwrap();
    assert!((1..=3).all(|x| blocked.get(Spot::new(x, 0, 1)).is_none()));
    assert_eq!(blocked.get(Spot::new(4, 0, 1)).unwrap().steps, 4);
}

#[test]
fn a_ceiling_blocks_climbing_only_when_walls_cannot_be_crossed() {
    // The start has a roof two levels up; the next cell is one level higher.
    let grid = floor(3, 1, vec![((0, 0), vec![cube(0), cube(2)]), ((1, 0), stack(2))]);
    let start = Spot::new(0, 0, 1);
    let open = reach_path(&grid, start, &per_step(3, 1.0, 1.0), &nobody()).unwrap();
    assert!(open.get(Spot::new(1, 0, 2)).is_some());
    let walls = ReachParams { can_cross_walls: false, ..per_step(3, 1.0, 1.0) };
    let closed = reach_path(&grid, start, &walls, &nobody()).unwrap();
    assert_eq!(closed.len(), 1);
}

#[test]
fn a_spot_exactly_at_the_climb_limit_can_be_chosen() {
    // SRPGCK's validity rule made a tile exactly z_up_max higher pass-only (>=); we stop there.
    let grid = floor(3, 1, vec![((1, 0), stack(3))]);
    let reach = reach_path(&grid, Spot::new(0, 0, 1), &ReachParams::movement(3, 2.0, 2.0), &nobody()).unwrap();
    assert!(reach.get(Spot::new(1, 0, 3)).unwrap().can_stop);
    let reach = reach_path(&grid, Spot::new(0, 0, 1), &ReachParams::movement(3, 1.5, 2.0), &nobody()).unwrap();
    assert!(reach.get(Spot::new(1, 0, 3)).is_none());
}

#[test]
fn minimum_rise_and_radius_make_spots_pass_only() {
    let grid = floor(5, 1, vec![((2, 0), stack(2))]);
    // With both minima set, a chosen spot is at least 1 up or 1 down, and at least 2 away.
    let params = ReachParams { radius_min: 2, z_up_min: 1.0, z_down_min: 1.0, ..ReachParams::movement(4, 2.0, 2.0) };
    let reach = reach_pick(&grid, Spot::new(0, 0, 1), &params, &nobody()).unwrap();
    assert_eq!(reach.stops().collect::<Vec<_>>(), [Spot::new(2, 0, 2)]);
    assert_eq!(reach.len(), 5, "the others are shown, not chosen");
    // With only the up minimum set, level spots pass (dz ≤ −0), as in SRPGCK.
    let params = ReachParams { radius_min: 2, z_up_min: 1.0, ..ReachParams::movement(4, 2.0, 2.0) };
    let reach = reach_pick(&grid, Spot::new(0, 0, 1), &params, &nobody()).unwrap();
    assert_eq!(reach.stops().map(|spot| spot.cell_x).collect::<Vec<_>>(), [2, 3, 4]);
}

#[test]
fn leaps_cross_gaps_and_count_the_cells_they_span() {
    let grid = grid(6, 1, vec![((0, 0), stack(3)), ((1, 0), stack(3)), ((3, 0), stack(3)), ((4, 0), stack(3))]);
    let start = Spot::new(0, 0, 3);
    let reach = reach_path(&grid, start, &per_step(6, 1.0, 2.0), &nobody()).unwrap();
    let landing = reach.get(Spot::new(3, 0, 3)).unwrap();
    assert!(landing.leap);
    assert_eq!((landing.steps, landing.leaps, landing.prev), (3, 1, Some(Spot::new(1, 0, 3))));
    assert_eq!(reach.get(Spot::new(4, 0, 3)).unwrap().steps, 4);
    // Too short a range for the leap's two cells.
    assert!(reach_path(&grid, start, &per_step(2, 1.0, 2.0), &nobody()).unwrap().get(Spot::new(3, 0, 3)).is_none());
    // No leaping: the gap stops the walk.
    let grounded = ReachParams { leap_cells: 0, ..per_step(6, 1.0, 2.0) };
    assert_eq!(reach_path(&grid, start, &grounded, &nobody()).unwrap().len(), 2);
    // Walking is preferred when it is as short: fill the gap's floor one level lower.
    let filled = floor(6, 1, vec![((0, 0), stack(3)), ((1, 0), stack(3)), ((2, 0), stack(2)), ((3, 0), stack(3))]);
    let walked = reach_path(&filled, start, &per_step(6, 1.0, 2.0), &nobody()).unwrap();
    assert!(!walked.get(Spot::new(3, 0, 3)).unwrap().leap);
}

#[test]
fn a_leap_is_measured_at_its_landing() {
    // SRPGCK's absolute branch measured start → take-off for a leap, letting it land far too
    // low. Start 4 up, take-off 3, a ground-level gap, landing at 1 (3 below the start).
    let low_landing = grid(4, 1, vec![((0, 0), stack(4)), ((1, 0), stack(3)), ((2, 0), stack(1)), ((3, 0), stack(1))]);
    let params = ReachParams::movement(5, 1.0, 2.0);
    let reach = reach_path(&low_landing, Spot::new(0, 0, 4), &params, &nobody()).unwrap();
    assert_eq!(reach.nodes().map(|node| node.spot).collect::<Vec<_>>(), [Spot::new(0, 0, 4), Spot::new(1, 0, 3)]);
    // Landing at 2 (2 below the start) is inside the window.
    let high_landing = grid(4, 1, vec![((0, 0), stack(4)), ((1, 0), stack(3)), ((2, 0), stack(1)), ((3, 0), stack(2))]);
    let reach = reach_path(&high_landing, Spot::new(0, 0, 4), &params, &nobody()).unwrap();
    assert!(reach.get(Spot::new(3, 0, 2)).unwrap().leap);
}

#[test]
fn enemies_block_and_allies_are_passed() {
    let grid = floor(5, 1, vec![]);
    let start = Spot::new(0, 0, 1);
    let middle = Spot::new(2, 0, 1);
    let stops = |params: ReachParams, occupant: Occupant| -> Vec<u16> {
        let occupants = SpotMap::from([(middle, occupant)]);
        reach_path(&grid, start, &params, &occupants).unwrap().stops().map(|spot| spot.cell_x).collect()
    };
    let walk = ReachParams::movement(4, 1.0, 1.0);
    assert_eq!(stops(walk, Occupant::Enemy), [0, 1]);
    assert_eq!(stops(ReachParams { can_cross_enemies: true, ..walk }, Occupant::Enemy), [0, 1, 3, 4]);
    assert_eq!(stops(ReachParams { can_halt_at_enemies: true, ..walk }, Occupant::Enemy), [0, 1, 2]);
    assert_eq!(stops(walk, Occupant::Ally), [0, 1, 3, 4]);
    assert_eq!(stops(ReachParams { can_halt_at_allies: true, ..walk }, Occupant::Ally), [0, 1, 2, 3, 4]);
}

#[test]
fn pick_space_needs_no_path() {
    // Behind a wall too high to climb, still in a Pick region.
    let grid = floor(5, 1, vec![((2, 0), stack(6))]);
    let params = ReachParams { use_absolute_dz: false, ..ReachParams::movement(4, 1.0, 1.0) };
    let pick_stops: Vec<u16> =
        reach_pick(&grid, Spot::new(0, 0, 1), &params, &nobody()).unwrap().stops().map(|s| s.cell_x).collect();
    assert_eq!(pick_stops, [0, 1, 2, 3, 4]);
    let path_stops: Vec<u16> =
        reach_path(&grid, Spot::new(0, 0, 1), &params, &nobody()).unwrap().stops().map(|s| s.cell_x).collect();
    assert_eq!(path_stops, [0, 1]);
}

// ---------------------------------------------------------------- line of sight

#[test]
fn a_wall_blocks_line_of_sight() {
    let grid = floor(7, 3, vec![((3, 1), stack(5))]);
    let sight = SightParams::default();
    let (looker, hidden, seen) = (Spot::new(1, 1, 1), Spot::new(5, 1, 1), Spot::new(5, 0, 1));
    assert!(!line_of_sight(&grid, looker, hidden, &sight));
    let blocker = sight_blocker(&grid, looker, hidden, &sight).unwrap();
    assert_eq!((blocker.cell_x, blocker.cell_y, blocker.face), (3, 1, Face::NegX));
    assert!(line_of_sight(&grid, Spot::new(1, 0, 1), seen, &sight));
    assert!(line_of_sight(&grid, looker, Spot::new(2, 1, 1), &sight));
    // From the wall's top a unit sees over its edge, though not straight down its side.
    assert!(line_of_sight(&grid, Spot::new(3, 1, 5), Spot::new(6, 1, 1), &sight));
    assert!(!line_of_sight(&grid, Spot::new(3, 1, 5), Spot::new(4, 1, 1), &sight));
    assert!(!line_of_sight(&grid, looker, Spot::new(5, 1, 2), &sight), "not a spot");

    let region = reach_line(&grid, looker, &ReachParams::movement(5, 9.0, 9.0), &sight, &nobody()).unwrap();
    assert!(region.get(hidden).is_none());
    assert!(region.get(Spot::new(2, 1, 1)).is_some());
    // The wall's top is out of sight from its foot.
    assert!(region.get(Spot::new(3, 1, 5)).is_none());
}

#[test]
fn invisible_walls_block_sight_unless_told_not_to() {
    let ghosts = (0..5).map(|level| Tile { invisible: true, ..cube(level) }).collect();
    let grid = floor(7, 1, vec![((3, 0), ghosts)]);
    let (from, to) = (Spot::new(1, 0, 1), Spot::new(5, 0, 1));
    assert!(!line_of_sight(&grid, from, to, &SightParams::default()));
    assert!(line_of_sight(&grid, from, to, &SightParams { invisible_blocks: false, ..SightParams::default() }));
}

#[test]
fn lines_may_end_on_an_enemy_but_not_pass_one() {
    let grid = floor(7, 1, vec![]);
    let enemy = Spot::new(3, 0, 1);
    let occupants = SpotMap::from([(enemy, Occupant::Enemy)]);
    let params = ReachParams { can_halt_at_enemies: true, ..ReachParams::movement(5, 2.0, 2.0) };
    let seen: Vec<u16> = reach_line(&grid, Spot::new(1, 0, 1), &params, &SightParams::default(), &occupants)
        .unwrap()
        .stops()
        .map(|spot| spot.cell_x)
        .collect();
    assert_eq!(seen, [0, 1, 2, 3]);
    let through = ReachParams { can_cross_enemies: true, ..params };
    let seen = reach_line(&grid, Spot::new(1, 0, 1), &through, &SightParams::default(), &occupants).unwrap();
    assert_eq!(seen.stops().count(), 7);
}

#[test]
fn kept_lines_of_sight_answer_as_traced_ones() {
    // A wall, an enemy in the open and one behind the wall: every spot from several lookers,
    // twice over one memo (the second time every line is answered from it).
    let grid = floor(7, 4, vec![((3, 1), stack(5)), ((3, 2), stack(2))]);
    let occupants = SpotMap::from([(Spot::new(5, 0, 1), Occupant::Enemy), (Spot::new(5, 1, 1), Occupant::Enemy)]);
    let params = ReachParams { can_halt_at_enemies: true, ..ReachParams::movement(6, 9.0, 9.0) };
    let memo = SightMemo::default();
    for sight in [SightParams::default(), SightParams { eye_height: 3.0, ..SightParams::default() }] {
        for _ in 0..2 {
            for looker in [Spot::new(1, 1, 1), Spot::new(0, 3, 1), Spot::new(3, 1, 5), Spot::new(6, 2, 1)] {
                let traced = reach_line(&grid, looker, &params, &sight, &occupants).unwrap();
                let kept = reach_line_kept(&grid, looker, &params, &sight, &occupants, &memo).unwrap();
                assert_eq!(kept, traced, "from {looker:?} with {sight:?}");
            }
        }
    }
}

fn walk_params(amount: u16) -> LineMoveParams {
    LineMoveParams { amount, z_up_max: 1.0, z_down_max: 1.0, ..LineMoveParams::default() }
}

#[test]
fn a_line_move_walks_climbs_one_step_and_stops_before_a_wall() {
    // Row y = 0: floor (level 1), a step up at x = 2 (level 2), a wall at x = 4 (level 5).
    let grid = floor(7, 1, vec![((2, 0), stack(2)), ((3, 0), stack(2)), ((4, 0), stack(5))]);
    let walk = line_move(&grid, Spot::new(0, 0, 1), 0.0, &walk_params(6), &SpotMap::new());
    assert_eq!(walk.path, vec![Spot::new(0, 0, 1), Spot::new(1, 0, 1), Spot::new(2, 0, 2), Spot::new(3, 0, 2)]);
    assert_eq!((walk.end, walk.steps, walk.remaining, walk.stop), (Spot::new(3, 0, 2), 3, 3, WalkStop::Wall));
    // Walls that may be crossed are walked through, but nobody ends inside one: it backs up.
    let through = LineMoveParams { can_cross_walls: true, ..walk_params(5) };
    let walk = line_move(&grid, Spot::new(0, 0, 1), 0.0, &through, &SpotMap::new());
    assert_eq!((walk.end, walk.steps, walk.stop), (Spot::new(5, 0, 1), 5, WalkStop::Done));
    let through = LineMoveParams { can_cross_walls: true, ..walk_params(4) };
    let walk = line_move(&grid, Spot::new(0, 0, 1), 0.0, &through, &SpotMap::new());
    assert_eq!(walk.end, Spot::new(3, 0, 2), "ends in the wall at x = 4: backs up");
    // The edge of the map stops it; −x from x = 0 goes nowhere.
    let walk = line_move(&grid, Spot::new(0, 0, 1), 180.0, &walk_params(3), &SpotMap::new());
    assert_eq!((walk.end, walk.steps, walk.remaining, walk.stop), (Spot::new(0, 0, 1), 0, 3, WalkStop::Edge));
}

#[test]
fn a_line_move_falls_off_a_ledge_counting_the_drop_beyond_the_window() {
    // A plateau (level 4) for x ≤ 1, floor (level 1) beyond: a fall of 3 with z_down_max 1.
    let grid = floor(5, 1, vec![((0, 0), stack(4)), ((1, 0), stack(4))]);
    let walk = line_move(&grid, Spot::new(0, 0, 4), 0.0, &walk_params(3), &SpotMap::new());
    assert_eq!(walk.path, vec![Spot::new(0, 0, 4), Spot::new(1, 0, 4), Spot::new(2, 0, 1), Spot::new(3, 0, 1)]);
    assert_eq!((walk.end, walk.drop), (Spot::new(3, 0, 1), 2.0));
    // A glider keeps its height while steps remain and comes down at the end.
    let glide = LineMoveParams { can_glide: true, ..walk_params(3) };
    let walk = line_move(&grid, Spot::new(0, 0, 4), 0.0, &glide, &SpotMap::new());
    assert_eq!(walk.path, vec![Spot::new(0, 0, 4), Spot::new(1, 0, 4), Spot::new(3, 0, 1)]);
    assert_eq!((walk.end, walk.drop), (Spot::new(3, 0, 1), 2.0));
    // Without falling it stops at the edge of the plateau (it would hang in the air).
    let no_fall = LineMoveParams { perform_fall: false, ..walk_params(3) };
    let walk = line_move(&grid, Spot::new(0, 0, 4), 0.0, &no_fall, &SpotMap::new());
    assert_eq!(walk.end, Spot::new(1, 0, 4));
}

#[test]
fn a_line_move_stops_before_a_unit_and_locks_nothing_itself() {
    let grid = floor(6, 6, vec![]);
    let occupants = SpotMap::from([(Spot::new(3, 1, 1), Occupant::Enemy)]);
    let walk = line_move(&grid, Spot::new(1, 1, 1), 0.0, &walk_params(4), &occupants);
    assert_eq!(
        (walk.end, walk.stop, walk.collided.clone()),
        (Spot::new(2, 1, 1), WalkStop::Unit, vec![Spot::new(3, 1, 1)])
    );
    let crossing = LineMoveParams { can_cross_units: true, ..walk_params(2) };
    let walk = line_move(&grid, Spot::new(1, 1, 1), 0.0, &crossing, &occupants);
    assert_eq!(walk.end, Spot::new(2, 1, 1), "would end on the unit: backs up");
    let crossing = LineMoveParams { can_cross_units: true, ..walk_params(3) };
    let walk = line_move(&grid, Spot::new(1, 1, 1), 0.0, &crossing, &occupants);
    assert_eq!((walk.end, walk.collided), (Spot::new(4, 1, 1), vec![Spot::new(3, 1, 1)]));
    // A direction that is not a number (a broken formula) moves nobody.
    let walk = line_move(&grid, Spot::new(1, 1, 1), f64::NAN, &walk_params(4), &occupants);
    assert_eq!((walk.end, walk.steps, walk.path.len()), (Spot::new(1, 1, 1), 0, 1));
    // A diagonal (45°) walk: each step of length 1 rounds to a cell.
    let walk = line_move(&grid, Spot::new(0, 0, 1), 45.0, &walk_params(4), &SpotMap::new());
    assert_eq!(walk.path, vec![Spot::new(0, 0, 1), Spot::new(1, 1, 1), Spot::new(2, 2, 1), Spot::new(3, 3, 1)]);
}

#[test]
fn a_ballistic_arc_clears_a_wall_a_line_cannot_and_needs_the_speed() {
    // A wall 3 levels above the floor between x = 0 and x = 4.
    let grid = floor(5, 1, vec![((2, 0), stack(4))]);
    let (from, to) = (Spot::new(0, 0, 1), Spot::new(4, 0, 1));
    let sight = SightParams::default();
    assert!(!line_of_sight(&grid, from, to, &sight));
    // Range 6: speed √58.8, the steep angle atan((v² + √D)/(g·d)) = 70.2° peaks 2.65 levels up.
    let shot = arc_shot(&grid, from, to, 6.0, &sight, &[]).unwrap();
    assert!((shot.angle_degrees - 70.18).abs() < 0.01, "the steep lob: {shot:?}");
    assert!((shot.speed - (9.8_f64 * 6.0).sqrt()).abs() < 1e-9);
    // Range 4: the steep lob (56.3°) peaks at 3.39 and meets the wall (top at 4); the flat
    // one too. Range 3 cannot carry 4 cells at all.
    assert_eq!(arc_shot(&grid, from, to, 4.0, &sight, &[]), None);
    assert_eq!(arc_shot(&grid, from, to, 3.0, &sight, &[]), None);
    // Under a ceiling the steep lob hits it and the flat one the wall.
    let mut roofed = floor(5, 1, vec![((2, 0), stack(4))]);
    for x in [0, 1, 3, 4] {
        roofed.set_column(x, 0, vec![cube(0), cube(3)]).unwrap();
    }
    assert_eq!(arc_shot(&roofed, from, to, 6.0, &sight, &[]), None);
    // Under a low roof over open ground only the flat shot (12.69°) fits, and a unit on the
    // way blocks it.
    let mut low = floor(5, 1, vec![]);
    for x in 0..5 {
        low.set_column(x, 0, vec![cube(0), cube(3)]).unwrap();
    }
    let flat = arc_shot(&low, from, to, 6.0, &sight, &[]).unwrap();
    assert!((flat.angle_degrees - 12.69).abs() < 0.01, "{flat:?}");
    assert_eq!(arc_shot(&low, from, to, 6.0, &sight, &[Spot::new(2, 0, 1)]), None);
}

#[test]
fn a_prop_size_round_trips_and_is_left_out_when_one_cell() {
    let sized = Prop { label: "crate".to_owned(), x: 1, y: 2, z: 0, size: (2, 1, 3), ..Prop::default() };
    let text = ron::to_string(&sized).unwrap();
    assert!(text.contains("size:(2,1,3)"), "{text}");
    assert_eq!(ron::from_str::<Prop>(&text).unwrap(), sized);
    let plain = Prop { label: "rock".to_owned(), ..Prop::default() };
    let text = ron::to_string(&plain).unwrap();
    assert!(!text.contains("size"), "{text}");
    assert_eq!(ron::from_str::<Prop>("(label: \"rock\")").unwrap().size, (1, 1, 1));
}

#[test]
fn a_prop_of_no_size_or_past_the_edge_is_an_error() {
    use actforge_runtime::project::Sources;
    use actforge_runtime::validate::validate;
    let check = |prop: Prop| -> Vec<String> {
        let mut project = actforge_runtime::Project::new("props");
        let mut map = map_with(vec![Column { x: 0, y: 0, tiles: vec![cube(0)] }]);
        map.props = vec![prop];
        project.tile_maps.insert(map);
        validate(&project, &Sources::default(), None)
            .into_iter()
            .map(|d| format!("{d}"))
            .filter(|d| d.contains("prop"))
            .collect()
    };
    assert!(check(Prop { x: 4, y: 2, size: (2, 2, 1), ..Prop::default() }).is_empty());
    let flat = check(Prop { size: (1, 0, 1), ..Prop::default() });
    assert!(flat.iter().any(|d| d.contains("props[0].size") && d.contains("at least 1")), "{flat:?}");
    let wide = check(Prop { x: 5, y: 0, size: (2, 1, 1), ..Prop::default() });
    assert!(wide.iter().any(|d| d.contains("does not fit the 6×4 map")), "{wide:?}");
}
