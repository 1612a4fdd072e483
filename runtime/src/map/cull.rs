//! Hidden-face culling: which faces of a tile are fully covered by its neighbours. Faces whose
//! edges lie on whole levels (most of any map) are decided with integers; the rest (ramps,
//! insets, baselines) with the exact span test of `geometry::side_covered`.

use crate::model::{Corners, Tile};

use super::geometry::{Face, SideSpan, TileSolid, side_covered};
use super::grid::TileGrid;

/// The bit of `face` in a visibility mask.
pub(crate) const fn face_bit(face: Face) -> u8 {
    1 << face as u8
}

/// Whether a tile may hide a face of `of`: opaque tiles hide any face, invisible tiles only
/// faces of other invisible tiles (you see through them).
fn may_hide(hider: &Tile, of: &Tile) -> bool {
    !hider.invisible || of.invisible
}

/// A side face's parts: its own inset, the insets of the two sides across it, and the
/// heights and baselines of its two corners.
struct SideParts {
    inset: f32,
    across: [f32; 2],
    heights: [u8; 2],
    baselines: [u8; 2],
}

fn corners_of<T: Copy>(corners: &Corners<T>, face: Face) -> [T; 2] {
    match face {
        Face::NegX => [corners.x0y0, corners.x0y1],
        Face::PosX => [corners.x1y0, corners.x1y1],
        Face::NegY | Face::Bottom | Face::Top => [corners.x0y0, corners.x1y0],
        Face::PosY => [corners.x0y1, corners.x1y1],
    }
}

fn side_parts(tile: &Tile, face: Face) -> SideParts {
    let insets = &tile.insets;
    let (inset, across) = match face {
        Face::NegX => (insets.neg_x, [insets.neg_y, insets.pos_y]),
        Face::PosX => (insets.pos_x, [insets.neg_y, insets.pos_y]),
        Face::NegY | Face::Bottom | Face::Top => (insets.neg_y, [insets.neg_x, insets.pos_x]),
        Face::PosY => (insets.pos_y, [insets.neg_x, insets.pos_x]),
    };
    SideParts { inset, across, heights: corners_of(&tile.heights, face), baselines: corners_of(&tile.baselines, face) }
}

/// The whole levels `low..high` that `tile`'s face on `face` covers over the full width of the
/// cell side; None when that face is inset from the side or narrower than it.
#[allow(clippy::float_cmp)] // an inset of exactly 0 puts the face exactly on the side
fn full_side_levels(tile: &Tile, face: Face) -> Option<(u32, u32)> {
    let parts = side_parts(tile, face);
    if parts.inset != 0.0 || parts.across != [0.0, 0.0] {
        return None;
    }
    let [b0, b1] = parts.baselines;
    let [h0, h1] = parts.heights;
    let z = u32::from(tile.z);
    let (bottom_inset, top_inset) = (tile.insets.bottom, tile.insets.top);
    if bottom_inset == 0.0 && top_inset == 0.0 {
        return Some((z + u32::from(b0.max(b1)), z + u32::from(h0.min(h1))));
    }
    let low = (z as f32 + f32::from(b0.max(b1)) + bottom_inset).ceil();
    let high = (z as f32 + f32::from(h0.min(h1)) - top_inset).floor();
    (high > low).then_some((low as u32, high as u32))
}

/// For a face on the cell side whose bottom and top edges are level at whole levels: its
/// levels `low..high` and whether it spans the side's full width.
#[allow(clippy::float_cmp)] // as in `full_side_levels`
fn aligned_face_levels(tile: &Tile, face: Face) -> Option<(u32, u32, bool)> {
    let parts = side_parts(tile, face);
    let [b0, b1] = parts.baselines;
    let [h0, h1] = parts.heights;
    let level = parts.inset == 0.0 && b0 == b1 && h0 == h1 && tile.insets.bottom == 0.0 && tile.insets.top == 0.0;
    let z = u32::from(tile.z);
    level.then_some((z + u32::from(b0), z + u32::from(h0), parts.across == [0.0, 0.0]))
}

/// Whether the tiles `rest` (a neighbour column from the first tile that reaches above `of`'s
/// base) cover levels `low..high` of their `side` over its full width, one after another.
fn chain_covers(rest: &[Tile], of: &Tile, side: Face, low: u32, high: u32) -> bool {
    let mut reach = low;
    for tile in rest {
        // Tiles do not overlap, so a level left uncovered here stays uncovered.
        if u32::from(tile.z) > reach {
            return false;
        }
        if may_hide(tile, of)
            && let Some((from, to)) = full_side_levels(tile, side)
            && from <= reach
        {
            reach = reach.max(to);
        }
        if reach >= high {
            return true;
        }
    }
    false
}

/// Scratch space reused across chunks.
#[derive(Clone, Debug, Default)]
pub(crate) struct CullScratch {
    spans: Vec<SideSpan>,
}

/// Whether the side `face` of `tile` (on `cell`) is fully covered by the column across it;
/// `cursor` is the first tile of that column that can still reach this tile or any above it.
fn side_hidden(
    grid: &TileGrid,
    tile: &Tile,
    cell: (u16, u16),
    face: Face,
    cursor: &mut usize,
    scratch: &mut CullScratch,
) -> bool {
    let (step_x, step_y) = face.cell_step();
    let (next_x, next_y) = (i32::from(cell.0) + step_x, i32::from(cell.1) + step_y);
    // Nothing across reaches this tile's base: its face shows (and the column stays unread).
    if tile.z >= grid.solid_below(next_x, next_y).ceiling {
        return false;
    }
    let neighbour = grid.column(next_x, next_y);
    if neighbour.is_empty() {
        return false;
    }
    // Tiles are visited bottom to top, so neighbour tiles ending at or below this one's base
    // can be skipped for good; the first visit jumps there by binary search (tops grow up a
    // column; if broken content breaks that, fewer coverers are seen and more faces shown).
    if *cursor == 0 {
        *cursor = neighbour.partition_point(|below| below.top_z() <= u32::from(tile.z));
    }
    while neighbour.get(*cursor).is_some_and(|below| below.top_z() <= u32::from(tile.z)) {
        *cursor += 1;
    }
    let rest = neighbour.get(*cursor..).unwrap_or_default();
    let opposite = face.opposite();
    if let Some((low, high, full_width)) = aligned_face_levels(tile, face) {
        if chain_covers(rest, tile, opposite, low, high) {
            return true;
        }
        // Each level is covered by at most one tile; across the full width it must be one
        // of the full-width tiles the chain looked at.
        if full_width {
            return false;
        }
    }
    let Some(span) = TileSolid::new(cell.0, cell.1, tile).side_span(face, cell.0, cell.1) else {
        return false;
    };
    // A non-empty column is inside the map, so both coordinates fit.
    let (next_x, next_y) = (next_x as u16, next_y as u16);
    scratch.spans.clear();
    let top_z = tile.top_z();
    for other in rest {
        if u32::from(other.z) >= top_z {
            break;
        }
        if may_hide(other, tile)
            && let Some(other_span) = TileSolid::new(next_x, next_y, other).side_span(opposite, next_x, next_y)
        {
            scratch.spans.push(other_span);
        }
    }
    side_covered(&span, scratch.spans.iter())
}

/// Whether `upper` rests flush on `lower`: `lower`'s top is level and whole, and `upper`'s
/// bottom is level at that same height.
#[allow(clippy::float_cmp)] // zero insets are exactly zero
fn rests_flush(lower: &Tile, upper: &Tile) -> bool {
    let heights = lower.heights.to_array();
    u32::from(upper.z) == lower.top_z()
        && heights.iter().all(|height| *height == heights[0])
        && lower.insets.top == 0.0
        && upper.baselines == Corners::default()
        && upper.insets.bottom == 0.0
}

/// Whether `cover`'s footprint covers all of `of`'s (its side insets are no larger).
fn footprint_covers(cover: &Tile, of: &Tile) -> bool {
    let (c, o) = (&cover.insets, &of.insets);
    c.neg_x <= o.neg_x && c.pos_x <= o.pos_x && c.neg_y <= o.neg_y && c.pos_y <= o.pos_y
}

/// Faces counted by [`visible_faces`], per buffer set.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct FaceCounts {
    /// Faces of opaque tiles.
    pub opaque: usize,
    /// Faces of invisible tiles.
    pub invisible: usize,
}

/// A tile with at least one visible face.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VisibleTile {
    /// Its cell.
    pub cell: (u16, u16),
    /// Its index in the column.
    pub index: u16,
    /// Its visible faces (`face_bit`).
    pub mask: u8,
}

/// The tiles of chunk cells `x_range` × `y_range` that show a face, row by row, bottom tile
/// first, appended to `visible`.
pub(crate) fn visible_faces(
    grid: &TileGrid,
    x_range: std::ops::Range<u16>,
    y_range: std::ops::Range<u16>,
    bottom_faces: bool,
    visible: &mut Vec<VisibleTile>,
    scratch: &mut CullScratch,
) -> FaceCounts {
    let mut counts = FaceCounts::default();
    for cell_y in y_range {
        for cell_x in x_range.clone() {
            let cell = (cell_x, cell_y);
            let (x, y) = (i32::from(cell_x), i32::from(cell_y));
            let column = grid.column(x, y);
            if column.is_empty() {
                continue;
            }
            // Tiles inside the column's solid prefix are decided by the prefixes alone: a side
            // is hidden when the neighbour's prefix reaches as high, the top when the prefix
            // goes on above, the bottom when the tile is not at level 0.
            let solid = grid.solid_below(x, y);
            let solid_top = u32::from(solid.top);
            let neighbour_tops = Face::SIDES.map(|face| {
                let (step_x, step_y) = face.cell_step();
                u32::from(grid.solid_below(x + step_x, y + step_y).top)
            });
            // Prefix tiles ending at or below `deep` show nothing; they are skipped unread
            // (found by a binary search over the prefix, whose tops only grow).
            let deep = neighbour_tops.into_iter().fold(solid_top.saturating_sub(1), u32::min);
            let prefix = column.get(..usize::from(solid.tiles)).unwrap_or_default();
            let deep_from = usize::from(bottom_faces).min(prefix.len());
            let deep_to = if solid.unit_cubes {
                (deep as usize).min(prefix.len())
            } else {
                prefix.partition_point(|tile| tile.top_z() <= deep)
            }
            .max(deep_from);
            let mut cursors = [0usize; 4];
            let shown = (0..deep_from).chain(deep_to..column.len());
            for (index, tile) in shown.filter_map(|index| Some((index, column.get(index)?))) {
                let top = tile.top_z();
                let buried = top <= solid_top;
                let mut mask = 0u8;
                for ((face, cursor), neighbour_top) in Face::SIDES.into_iter().zip(&mut cursors).zip(neighbour_tops) {
                    let hidden =
                        (buried && top <= neighbour_top) || side_hidden(grid, tile, cell, face, cursor, scratch);
                    if !hidden {
                        mask |= face_bit(face);
                    }
                }
                let top_hidden = (buried && top < solid_top)
                    || column.get(index + 1).is_some_and(|above| {
                        rests_flush(tile, above) && may_hide(above, tile) && footprint_covers(above, tile)
                    });
                if !top_hidden {
                    mask |= face_bit(Face::Top);
                }
                if bottom_faces {
                    let bottom_hidden = (buried && tile.z > 0)
                        || index.checked_sub(1).and_then(|at| column.get(at)).is_some_and(|below| {
                            rests_flush(below, tile) && may_hide(below, tile) && footprint_covers(below, tile)
                        });
                    if !bottom_hidden {
                        mask |= face_bit(Face::Bottom);
                    }
                }
                if mask == 0 {
                    continue;
                }
                let faces = mask.count_ones() as usize;
                if tile.invisible {
                    counts.invisible += faces;
                } else {
                    counts.opaque += faces;
                }
                // A column holds at most 256 tiles (one per level).
                visible.push(VisibleTile { cell, index: index as u16, mask });
            }
        }
    }
    counts
}
