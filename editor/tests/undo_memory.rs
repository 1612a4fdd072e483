//! Undo memory of one gesture: a brush stroke over many cells of a large tile map keeps one
//! copy of the map in the history, not one per cell. Counted with a counting allocator, in a
//! test binary of its own so no other test allocates meanwhile.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::print_stdout)] // test code: a panic is a failed test

use std::sync::Arc;

use actforge_editor::document::{Document, History, Op};
use actforge_runtime::Project;
use actforge_runtime::model::{Column, Paint, Tile, TileMap};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Bytes live on the heap now.
fn live() -> isize {
    let stats = ALLOCATOR.stats();
    stats.bytes_allocated as isize - stats.bytes_deallocated as isize + stats.bytes_reallocated
}

/// A 256×256 map, 16 levels, about 30% of the cells filled to a deterministic height.
fn big_map() -> TileMap {
    let mut map = TileMap { id: "island".into(), width: 256, depth: 256, ..TileMap::default() };
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    for y in 0..256u16 {
        for x in 0..256u16 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            if state % 10 < 3 {
                let height = (state >> 8) % 16 + 1;
                map.columns.push(Arc::new(Column { x, y, tiles: (0..height as u16).map(Tile::cube).collect() }));
            }
        }
    }
    map
}

/// Paints `cells` columns, one edit each, all in one gesture (as the paint tool's stroke
/// does); returns the bytes the history holds afterwards and the bytes of one map.
fn stroke(cells: usize) -> (isize, isize) {
    let mut project = Project::new("Undo memory");
    let before_map = live();
    project.tile_maps.insert(big_map());
    let one_map = live() - before_map;
    let mut document = Document::new(project);
    let mut history = History::new();
    let paints: Vec<Paint> = (0..7).map(|i| Paint::new(format!("p{i}").as_str(), 0)).collect();
    for cell in 0..cells {
        let mut edited = document.project().tile_maps.get("island").unwrap().clone();
        let column = cell % edited.columns.len();
        for tile in &mut Arc::make_mut(&mut edited.columns[column]).tiles {
            tile.paint.top = paints.get(cell % 7).copied();
        }
        history.apply(&mut document, Op::put(Arc::new(edited)), "Paint", Some(1)).unwrap();
    }
    history.end_gesture();
    assert_eq!(history.undo_len(), 1, "one stroke, one undo step");
    let with_history = live();
    drop(history);
    let held = with_history - live();
    drop(document);
    (held, one_map)
}

/// Cells painted: 60 by default (a debug build copies the 12 MB map once per cell);
/// `ACTFORGE_STROKE_CELLS=1000` gives the figure the issue asks for.
fn cells() -> usize {
    std::env::var("ACTFORGE_STROKE_CELLS").ok().and_then(|cells| cells.parse().ok()).unwrap_or(60)
}

#[test]
fn a_long_stroke_keeps_at_most_one_copy_of_the_map() {
    let cells = cells();
    let (held, one_map) = stroke(cells);
    println!("256×256×16 map, 30% filled: one copy {one_map} bytes; history after a {cells}-cell stroke {held} bytes");
    assert!(one_map > 1_000_000, "the map is large: {one_map} bytes");
    assert!(held <= one_map + one_map / 10, "the history holds {held} bytes; one map is {one_map}");
}
