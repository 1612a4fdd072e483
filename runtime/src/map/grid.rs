//! `TileGrid`: a dense, checked copy of a tile map's columns, indexed by cell, that every map
//! algorithm reads; and resizing that keeps each column at its (x, y).

use std::sync::Arc;

use crate::model::{
    Column, Corners, Faces, MAX_MAP_SIDE, MAX_TILE_HEIGHT, MAX_Z_LEVELS, PaletteEntry, PaletteLookup, Terrain, Tile,
    TileMap,
};

use super::MapError;
use super::spots::{SpotCache, SpotTable};

/// Columns along each side of a mesh chunk: meshes are built and rebuilt 32×32 columns at a time.
pub const CHUNK_SIDE: u16 = 32;

/// Largest inset of a face, and of two opposite side faces together: every solid keeps some size.
pub const MAX_INSET: f32 = 0.99;

/// The columns of a map, one per cell (`y * width + x`), each sorted by level.
///
/// Built from a [`TileMap`] with every value clamped into range (see [`TileGrid::from_map`]);
/// the editor keeps it in step with the document by calling [`TileGrid::set_column`] for the
/// cells an edit touched.
#[derive(Clone, Debug, PartialEq)]
pub struct TileGrid {
    width: u16,
    depth: u16,
    columns: Vec<Vec<Tile>>,
    /// Per cell: its solid prefix and ceiling; culling decides buried tiles and faces above
    /// a neighbour's ceiling without reading the tiles.
    solid_below: Vec<SolidPrefix>,
    /// The palette's terrain, by palette index: what a tile's top paint means to a walk.
    terrain: Vec<Terrain>,
    /// Palette entry ids to palette indices.
    lookup: PaletteLookup,
    /// Per palette index: its tags as bits of [`TileGrid::tag_mask`].
    terrain_tags: Vec<u64>,
    /// The tags the palette uses, sorted; tag i is bit i of a mask (the first 64 only).
    tag_names: Vec<String>,
    /// The standing spots, worked out when a search first asks (see [`TileGrid::spot_table`]).
    spots: SpotCache,
}

/// The terrain of unpainted tops and of paint outside the palette: plain ground.
static PLAIN_TERRAIN: Terrain = Terrain { move_cost: 1, defence: 0.0, tags: Vec::new() };

/// Most distinct terrain tags a map's walks can tell apart (the bits of a mask).
pub const MAX_TERRAIN_TAGS: usize = 64;

/// What a resize dropped because it fell outside the new bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResizeReport {
    /// Non-empty columns dropped.
    pub dropped_columns: usize,
    /// Tiles in those columns.
    pub dropped_tiles: usize,
    /// Unit placements dropped (only [`resize_tile_map`] moves placements).
    pub dropped_placements: usize,
    /// Props dropped (only [`resize_tile_map`] moves props).
    pub dropped_props: usize,
}

fn check_size(width: u16, depth: u16) -> Result<(), MapError> {
    if (1..=MAX_MAP_SIDE).contains(&width) && (1..=MAX_MAP_SIDE).contains(&depth) {
        Ok(())
    } else {
        Err(MapError::BadSize { width: u32::from(width), depth: u32::from(depth) })
    }
}

/// `value` clamped to `0..=MAX_INSET`; NaN and infinities become 0.
fn clamp_inset(value: f32) -> f32 {
    if value.is_finite() { value.clamp(0.0, MAX_INSET) } else { 0.0 }
}

/// Two opposite side insets scaled down together when they would meet.
fn clamp_inset_pair(low: f32, high: f32) -> (f32, f32) {
    let (low, high) = (clamp_inset(low), clamp_inset(high));
    let sum = low + high;
    if sum > MAX_INSET { (low * MAX_INSET / sum, high * MAX_INSET / sum) } else { (low, high) }
}

/// `tile` with every value in range: heights 1..=64, each baseline below its height, insets
/// in `0..=MAX_INSET` (opposite side insets together too), and the tile below the top level.
pub(crate) fn sanitize_tile(mut tile: Tile) -> Tile {
    let clamp_height = |h: u8| h.clamp(1, MAX_TILE_HEIGHT);
    let heights = &mut tile.heights;
    *heights = Corners {
        x0y0: clamp_height(heights.x0y0),
        x1y0: clamp_height(heights.x1y0),
        x0y1: clamp_height(heights.x0y1),
        x1y1: clamp_height(heights.x1y1),
    };
    let h = tile.heights;
    let b = &mut tile.baselines;
    *b = Corners {
        x0y0: b.x0y0.min(h.x0y0 - 1),
        x1y0: b.x1y0.min(h.x1y0 - 1),
        x0y1: b.x0y1.min(h.x0y1 - 1),
        x1y1: b.x1y1.min(h.x1y1 - 1),
    };
    let insets = tile.insets;
    let (neg_x, pos_x) = clamp_inset_pair(insets.neg_x, insets.pos_x);
    let (neg_y, pos_y) = clamp_inset_pair(insets.neg_y, insets.pos_y);
    tile.insets =
        Faces { neg_x, neg_y, pos_x, pos_y, bottom: clamp_inset(insets.bottom), top: clamp_inset(insets.top) };
    let highest_base = MAX_Z_LEVELS - u16::from(tile.max_height());
    tile.z = tile.z.min(highest_base);
    tile
}

/// Whether `tile` is an opaque, level, full box: heights all equal, no baselines, no insets.
pub(crate) fn is_plain_box(tile: &Tile) -> bool {
    let heights = tile.heights.to_array();
    !tile.invisible
        && heights.iter().all(|height| *height == heights[0])
        && tile.baselines == Corners::default()
        && tile.insets == Faces::default()
}

/// What culling needs to know of a column without reading its tiles: the bottom run of
/// plain boxes resting on each other from level 0, and the highest level any tile reaches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SolidPrefix {
    /// Levels `0..top` are filled by plain boxes …
    pub top: u16,
    /// … namely the column's first `tiles` tiles.
    pub tiles: u16,
    /// No tile reaches above this level.
    pub ceiling: u16,
    /// Every prefix tile is one level high (then tile i ends at level i + 1).
    pub unit_cubes: bool,
}

fn solid_prefix(tiles: &[Tile]) -> SolidPrefix {
    let mut prefix = SolidPrefix { unit_cubes: true, ..SolidPrefix::default() };
    for tile in tiles {
        if tile.z != prefix.top || !is_plain_box(tile) {
            break;
        }
        // Tiles end at or below MAX_Z_LEVELS (256), and a column has at most 256 of them.
        prefix.top = tile.top_z() as u16;
        prefix.tiles += 1;
        prefix.unit_cubes &= tile.max_height() == 1;
    }
    prefix.ceiling = tiles.iter().map(Tile::top_z).max().unwrap_or(0) as u16;
    prefix
}

impl TileGrid {
    /// An empty `width` × `depth` grid.
    pub fn new(width: u16, depth: u16) -> Result<Self, MapError> {
        check_size(width, depth)?;
        let cells = usize::from(width) * usize::from(depth);
        Ok(Self {
            width,
            depth,
            columns: vec![Vec::new(); cells],
            solid_below: vec![SolidPrefix::default(); cells],
            terrain: Vec::new(),
            lookup: PaletteLookup::default(),
            terrain_tags: Vec::new(),
            tag_names: Vec::new(),
            spots: SpotCache::default(),
        })
    }

    /// Takes the terrain of `palette` (FORMAT.md §9 "Terrain"): an entry is what a top painted
    /// with its id (any tile) costs to enter and which tags it carries.
    pub fn set_palette(&mut self, palette: &[PaletteEntry]) {
        // Move costs and tags are in the spot table.
        self.spots.clear();
        let mut names: Vec<String> = palette.iter().flat_map(|entry| entry.terrain.tags.iter().cloned()).collect();
        names.sort();
        names.dedup();
        names.truncate(MAX_TERRAIN_TAGS);
        self.terrain = palette.iter().map(|entry| entry.terrain.clone()).collect();
        self.terrain_tags = palette
            .iter()
            .map(|entry| {
                entry.terrain.tags.iter().fold(0, |mask, tag| {
                    mask | names.binary_search(tag).map_or(0, |bit| 1u64.checked_shl(bit as u32).unwrap_or(0))
                })
            })
            .collect();
        self.tag_names = names;
        self.lookup = PaletteLookup::new(palette);
    }

    /// The palette index a tile's top paint names, if it names an entry of the palette.
    fn top_entry(&self, tile: &Tile) -> Option<usize> {
        tile.paint.top.and_then(|paint| self.lookup.index(paint.entry))
    }

    /// The bits of the named tags (names no palette entry carries have none).
    pub fn tag_mask<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> u64 {
        names.into_iter().fold(0, |mask, name| {
            mask | self
                .tag_names
                .binary_search_by(|known| known.as_str().cmp(name))
                .map_or(0, |bit| 1u64.checked_shl(bit as u32).unwrap_or(0))
        })
    }

    /// The terrain of a tile: that of its top face's paint; plain ground (cost 1, defence 0,
    /// no tags) when the top is unpainted or names an entry the palette does not have.
    pub fn terrain(&self, tile: &Tile) -> &Terrain {
        self.top_entry(tile).and_then(|index| self.terrain.get(index)).unwrap_or(&PLAIN_TERRAIN)
    }

    /// Steps a walk spends entering `tile`: its terrain's `move_cost`, negatives read as 0.
    pub fn move_cost(&self, tile: &Tile) -> u16 {
        u16::try_from(self.terrain(tile).move_cost.max(0)).unwrap_or(u16::MAX)
    }

    /// The tag bits of `tile`'s terrain (see [`TileGrid::tag_mask`]).
    pub fn tile_tags(&self, tile: &Tile) -> u64 {
        self.top_entry(tile).and_then(|index| self.terrain_tags.get(index)).copied().unwrap_or(0)
    }

    /// The grid of `map`. Refused only for a size outside `1..=MAX_MAP_SIDE`; otherwise what
    /// `validate` reports is clamped: columns outside the map are left out, two columns of one
    /// cell are merged, tiles are sorted by level, and each tile's values are put in range.
    pub fn from_map(map: &TileMap) -> Result<Self, MapError> {
        let mut grid = Self::new(map.width, map.depth)?;
        for column in &map.columns {
            if let Some(cell) = grid.index(i32::from(column.x), i32::from(column.y))
                && let Some(tiles) = grid.columns.get_mut(cell)
            {
                tiles.extend(column.tiles.iter().cloned().map(sanitize_tile));
            }
        }
        for (tiles, solid) in grid.columns.iter_mut().zip(&mut grid.solid_below) {
            tiles.sort_by_key(|tile| tile.z);
            *solid = solid_prefix(tiles);
        }
        grid.set_palette(&map.palette);
        Ok(grid)
    }

    /// Cells along x.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Cells along y.
    pub fn depth(&self) -> u16 {
        self.depth
    }

    /// Whether (`cell_x`, `cell_y`) is inside the map.
    pub fn contains(&self, cell_x: i32, cell_y: i32) -> bool {
        self.index(cell_x, cell_y).is_some()
    }

    fn index(&self, cell_x: i32, cell_y: i32) -> Option<usize> {
        let x = usize::try_from(cell_x).ok()?;
        let y = usize::try_from(cell_y).ok()?;
        (x < usize::from(self.width) && y < usize::from(self.depth)).then(|| y * usize::from(self.width) + x)
    }

    /// The tiles of a cell, bottom first; empty outside the map.
    pub fn column(&self, cell_x: i32, cell_y: i32) -> &[Tile] {
        self.index(cell_x, cell_y).and_then(|at| self.columns.get(at)).map_or(&[], Vec::as_slice)
    }

    /// The cell's solid prefix (empty outside the map).
    pub(crate) fn solid_below(&self, cell_x: i32, cell_y: i32) -> SolidPrefix {
        self.index(cell_x, cell_y).and_then(|at| self.solid_below.get(at)).copied().unwrap_or_default()
    }

    /// Replaces the tiles of a cell (clamped and sorted as in [`TileGrid::from_map`]).
    pub fn set_column(&mut self, cell_x: u16, cell_y: u16, tiles: Vec<Tile>) -> Result<(), MapError> {
        let outside = MapError::OutsideMap {
            cell_x: u32::from(cell_x),
            cell_y: u32::from(cell_y),
            width: self.width,
            depth: self.depth,
        };
        let Some(at) = self.index(i32::from(cell_x), i32::from(cell_y)) else {
            return Err(outside);
        };
        let (Some(column), Some(solid)) = (self.columns.get_mut(at), self.solid_below.get_mut(at)) else {
            return Err(outside);
        };
        *column = tiles.into_iter().map(sanitize_tile).collect();
        column.sort_by_key(|tile| tile.z);
        *solid = solid_prefix(column);
        self.spots.clear();
        Ok(())
    }

    /// The standing spots of the grid as it is now, in one table (built at the first call
    /// after a change).
    pub(crate) fn spot_table(&self) -> &SpotTable {
        self.spots.get(self)
    }

    /// How many tiles the map holds.
    pub fn tile_count(&self) -> usize {
        self.columns.iter().map(Vec::len).sum()
    }

    /// The non-empty columns, sorted by (y, x), as the model stores them.
    pub fn to_columns(&self) -> Vec<Arc<Column>> {
        let width = usize::from(self.width).max(1);
        self.columns
            .iter()
            .enumerate()
            .filter(|(_, tiles)| !tiles.is_empty())
            .map(|(at, tiles)| {
                Arc::new(Column { x: (at % width) as u16, y: (at / width) as u16, tiles: tiles.clone() })
            })
            .collect()
    }

    /// Writes the size and columns into `map`, leaving its other fields alone.
    pub fn write_to(&self, map: &mut TileMap) {
        map.width = self.width;
        map.depth = self.depth;
        map.columns = self.to_columns();
    }

    /// Resizes to `width` × `depth`, moving every column by (`shift_x`, `shift_y`) cells: each
    /// column keeps its (x, y) (plus the shift); columns that land outside are dropped and counted.
    pub fn resize(&mut self, width: u16, depth: u16, shift_x: i32, shift_y: i32) -> Result<ResizeReport, MapError> {
        let mut resized = Self::new(width, depth)?;
        let mut report = ResizeReport::default();
        let old_width = usize::from(self.width).max(1);
        for (at, tiles) in std::mem::take(&mut self.columns).into_iter().enumerate() {
            if tiles.is_empty() {
                continue;
            }
            let new_x = i64::try_from(at % old_width).unwrap_or(i64::MAX).saturating_add(i64::from(shift_x));
            let new_y = i64::try_from(at / old_width).unwrap_or(i64::MAX).saturating_add(i64::from(shift_y));
            let target = i32::try_from(new_x)
                .ok()
                .zip(i32::try_from(new_y).ok())
                .and_then(|(x, y)| resized.index(x, y))
                .and_then(|cell| resized.columns.get_mut(cell));
            if let Some(column) = target {
                *column = tiles;
            } else {
                report.dropped_columns += 1;
                report.dropped_tiles += tiles.len();
            }
        }
        for (tiles, solid) in resized.columns.iter_mut().zip(&mut resized.solid_below) {
            *solid = solid_prefix(tiles);
        }
        resized.terrain = std::mem::take(&mut self.terrain);
        resized.terrain_tags = std::mem::take(&mut self.terrain_tags);
        resized.tag_names = std::mem::take(&mut self.tag_names);
        *self = resized;
        Ok(report)
    }
}

/// Moves a cell coordinate by `shift`; None when it leaves `0..side`.
fn shifted(value: u16, shift: i32, side: u16) -> Option<u16> {
    let moved = i64::from(value) + i64::from(shift);
    u16::try_from(moved).ok().filter(|v| *v < side)
}

/// Resizes `map` to `width` × `depth`, moving its columns, placements and props by
/// (`shift_x`, `shift_y`) cells. Everything keeps its (x, y) (plus the shift); what lands
/// outside the new bounds is dropped and counted. Columns stay sorted by (y, x).
pub fn resize_tile_map(
    map: &mut TileMap,
    width: u16,
    depth: u16,
    shift_x: i32,
    shift_y: i32,
) -> Result<ResizeReport, MapError> {
    check_size(width, depth)?;
    let mut report = ResizeReport::default();
    let mut columns = Vec::with_capacity(map.columns.len());
    for mut column in std::mem::take(&mut map.columns) {
        if let (Some(x), Some(y)) = (shifted(column.x, shift_x, width), shifted(column.y, shift_y, depth)) {
            let moved = Arc::make_mut(&mut column);
            moved.x = x;
            moved.y = y;
            columns.push(column);
        } else {
            report.dropped_columns += usize::from(!column.tiles.is_empty());
            report.dropped_tiles += column.tiles.len();
        }
    }
    columns.sort_by_key(|column| (column.y, column.x));
    map.columns = columns;
    let before = map.placements.len();
    map.placements.retain_mut(|placement| {
        match (shifted(placement.x, shift_x, width), shifted(placement.y, shift_y, depth)) {
            (Some(x), Some(y)) => {
                placement.x = x;
                placement.y = y;
                true
            }
            _ => false,
        }
    });
    report.dropped_placements = before - map.placements.len();
    let before = map.props.len();
    map.props.retain_mut(|prop| match (shifted(prop.x, shift_x, width), shifted(prop.y, shift_y, depth)) {
        (Some(x), Some(y)) => {
            prop.x = x;
            prop.y = y;
            true
        }
        _ => false,
    });
    report.dropped_props = before - map.props.len();
    map.width = width;
    map.depth = depth;
    Ok(report)
}
