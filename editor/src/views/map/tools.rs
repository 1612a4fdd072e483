//! The tile-map editor's tools as pure functions on a [`TileMap`]: each returns whether it
//! changed the map, so the tab emits an edit only for real changes. Tiles are named by their
//! cell and base level (a [`TileRef`]), never by their index in the column.

use std::collections::{BTreeSet, VecDeque};
use std::sync::Arc;

use actforge_runtime::map::{Face, MapError, ResizeReport, resize_tile_map};
use actforge_runtime::model::{
    Column, Corners, Faces, Id, MAX_TILE_HEIGHT, MAX_Z_LEVELS, Paint, PaletteEntry, PaletteId, Placement, Prop, Tile,
    TileMap,
};

/// One tile of a map: its cell and base level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileRef {
    /// Cell x.
    pub cell_x: u16,
    /// Cell y.
    pub cell_y: u16,
    /// Base level.
    pub z: u16,
}

/// A corner of a tile's top.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Corner {
    /// At (x_min, y_min).
    X0Y0,
    /// At (x_max, y_min).
    X1Y0,
    /// At (x_min, y_max).
    X0Y1,
    /// At (x_max, y_max).
    X1Y1,
}

impl Corner {
    /// The corner nearest a point at (`across_x`, `across_y`) (0..1 within the cell).
    pub fn nearest(across_x: f32, across_y: f32) -> Self {
        match (across_x >= 0.5, across_y >= 0.5) {
            (false, false) => Self::X0Y0,
            (true, false) => Self::X1Y0,
            (false, true) => Self::X0Y1,
            (true, true) => Self::X1Y1,
        }
    }

    fn of_mut<T>(self, corners: &mut Corners<T>) -> &mut T {
        match self {
            Self::X0Y0 => &mut corners.x0y0,
            Self::X1Y0 => &mut corners.x1y0,
            Self::X0Y1 => &mut corners.x0y1,
            Self::X1Y1 => &mut corners.x1y1,
        }
    }

    /// The two corners along a side face (none for top and bottom: every corner).
    pub fn of_side(face: Face) -> &'static [Corner] {
        match face {
            Face::NegX => &[Self::X0Y0, Self::X0Y1],
            Face::PosX => &[Self::X1Y0, Self::X1Y1],
            Face::NegY => &[Self::X0Y0, Self::X1Y0],
            Face::PosY => &[Self::X0Y1, Self::X1Y1],
            Face::Top | Face::Bottom => &[Self::X0Y0, Self::X1Y0, Self::X0Y1, Self::X1Y1],
        }
    }
}

/// The side of a cell nearest a point at (`across_x`, `across_y`) (0..1 within the cell).
pub fn nearest_side(across_x: f32, across_y: f32) -> Face {
    let distances =
        [(across_x, Face::NegX), (1.0 - across_x, Face::PosX), (across_y, Face::NegY), (1.0 - across_y, Face::PosY)];
    distances.into_iter().min_by(|a, b| a.0.total_cmp(&b.0)).map_or(Face::NegX, |(_, face)| face)
}

fn face_mut<T: Default + PartialEq>(faces: &mut Faces<T>, face: Face) -> &mut T {
    match face {
        Face::NegX => &mut faces.neg_x,
        Face::NegY => &mut faces.neg_y,
        Face::PosX => &mut faces.pos_x,
        Face::PosY => &mut faces.pos_y,
        Face::Bottom => &mut faces.bottom,
        Face::Top => &mut faces.top,
    }
}

fn column_position(map: &TileMap, cell_x: u16, cell_y: u16) -> Result<usize, usize> {
    map.columns.binary_search_by_key(&(cell_y, cell_x), |column| (column.y, column.x))
}

/// The tiles on a cell (empty outside the map or for an empty cell).
pub fn tiles_at(map: &TileMap, cell_x: u16, cell_y: u16) -> &[Tile] {
    match column_position(map, cell_x, cell_y) {
        Ok(at) => map.columns.get(at).map_or(&[], |column| column.tiles.as_slice()),
        Err(_) => &[],
    }
}

/// The tile `tile`, if there is one.
pub fn tile(map: &TileMap, tile: TileRef) -> Option<&Tile> {
    tiles_at(map, tile.cell_x, tile.cell_y).iter().find(|t| t.z == tile.z)
}

/// Whether the tiles of a column overlap no other (each tile's levels are its own).
fn column_fits(tiles: &[Tile]) -> bool {
    tiles.windows(2).all(|pair| match pair {
        [low, high] => low.top_z() <= u32::from(high.z),
        _ => true,
    }) && tiles.iter().all(|t| t.top_z() <= u32::from(MAX_Z_LEVELS))
}

/// Changes the tile `at` with `change` when the result still fits its column; returns
/// whether the map changed.
fn change_tile(map: &mut TileMap, at: TileRef, change: impl FnOnce(&mut Tile)) -> bool {
    let Ok(position) = column_position(map, at.cell_x, at.cell_y) else { return false };
    let Some(column) = map.columns.get_mut(position) else { return false };
    let mut tiles = column.tiles.clone();
    let Some(target) = tiles.iter_mut().find(|t| t.z == at.z) else { return false };
    change(target);
    if !column_fits(&tiles) || tiles == column.tiles {
        return false;
    }
    Arc::make_mut(column).tiles = tiles;
    true
}

/// Adds a unit cube at level `z` of a cell when the level is free; returns whether it did.
pub fn add_tile(map: &mut TileMap, cell_x: u16, cell_y: u16, z: u16) -> bool {
    if cell_x >= map.width || cell_y >= map.depth || u32::from(z) >= u32::from(MAX_Z_LEVELS) {
        return false;
    }
    let cube = Tile::cube(z);
    match column_position(map, cell_x, cell_y) {
        Ok(at) => {
            let Some(column) = map.columns.get_mut(at) else { return false };
            let mut tiles = column.tiles.clone();
            let insert_at = tiles.partition_point(|t| t.z < z);
            tiles.insert(insert_at, cube);
            if !column_fits(&tiles) {
                return false;
            }
            Arc::make_mut(column).tiles = tiles;
        }
        Err(at) => map.columns.insert(at, Arc::new(Column { x: cell_x, y: cell_y, tiles: vec![cube] })),
    }
    true
}

/// Removes the tile covering level `z` of a cell (none: nothing happens); empty columns go.
pub fn remove_tile_at_level(map: &mut TileMap, cell_x: u16, cell_y: u16, z: u16) -> bool {
    let Some(base) = tiles_at(map, cell_x, cell_y)
        .iter()
        .find(|t| t.z <= z && u32::from(z) < t.top_z().max(u32::from(t.z) + 1))
        .map(|t| t.z)
    else {
        return false;
    };
    remove_tile(map, TileRef { cell_x, cell_y, z: base })
}

/// Removes one tile; empty columns go.
pub fn remove_tile(map: &mut TileMap, at: TileRef) -> bool {
    let Ok(position) = column_position(map, at.cell_x, at.cell_y) else { return false };
    let Some(column) = map.columns.get_mut(position) else { return false };
    if !column.tiles.iter().any(|t| t.z == at.z) {
        return false;
    }
    Arc::make_mut(column).tiles.retain(|t| t.z != at.z);
    if column.tiles.is_empty() {
        map.columns.remove(position);
    }
    true
}

/// The cells of the rectangle spanned by two corner cells (inclusive).
pub fn rect_cells(from: (u16, u16), to: (u16, u16)) -> impl Iterator<Item = (u16, u16)> {
    let (x0, x1) = (from.0.min(to.0), from.0.max(to.0));
    let (y0, y1) = (from.1.min(to.1), from.1.max(to.1));
    (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| (x, y)))
}

/// Adds (or removes) tiles at level `z` on every cell of a rectangle; returns whether any changed.
pub fn fill_rect(map: &mut TileMap, from: (u16, u16), to: (u16, u16), z: u16, add: bool) -> bool {
    let mut changed = false;
    for (x, y) in rect_cells(from, to) {
        changed |= if add { add_tile(map, x, y, z) } else { remove_tile_at_level(map, x, y, z) };
    }
    changed
}

/// Paints one face of a tile with `paint` (a palette entry id and tile; None: unpainted).
pub fn paint_face(map: &mut TileMap, at: TileRef, face: Face, paint: Option<Paint>) -> bool {
    change_tile(map, at, |t| *face_mut(&mut t.paint, face) = paint)
}

/// Paints every face of a tile.
pub fn paint_tile(map: &mut TileMap, at: TileRef, paint: Option<Paint>) -> bool {
    change_tile(map, at, |t| t.paint = Faces::splat(paint))
}

/// The paint of a face (the eyedropper); None for an unpainted face or no tile.
pub fn paint_of(map: &TileMap, at: TileRef, face: Face) -> Option<Paint> {
    tile(map, at).and_then(|t| face.of(&t.paint))
}

/// Tiles whose `face` touches the same face of `at` across a shared edge: for tops and
/// bottoms the side neighbours' tiles whose top (bottom) lies within a level; for sides the
/// tiles stacked right on it and the neighbours along the face's plane that overlap it in height.
fn face_neighbours(map: &TileMap, at: TileRef, face: Face) -> Vec<TileRef> {
    let Some(this) = tile(map, at) else { return Vec::new() };
    let (low, high) = (i64::from(this.z), i64::from(this.top_z()));
    let mut out = Vec::new();
    let steps: &[(i32, i32)] = match face {
        Face::Top | Face::Bottom => &[(-1, 0), (1, 0), (0, -1), (0, 1)],
        Face::NegX | Face::PosX => &[(0, -1), (0, 1), (0, 0)],
        Face::NegY | Face::PosY => &[(-1, 0), (1, 0), (0, 0)],
    };
    for &(dx, dy) in steps {
        let (x, y) = (i32::from(at.cell_x) + dx, i32::from(at.cell_y) + dy);
        let (Ok(x), Ok(y)) = (u16::try_from(x), u16::try_from(y)) else { continue };
        for other in tiles_at(map, x, y) {
            let (other_low, other_high) = (i64::from(other.z), i64::from(other.top_z()));
            // A top (bottom) covered by a tile right on (under) it is not a face to paint.
            let covered = match face {
                Face::Top => tiles_at(map, x, y).iter().any(|t| u32::from(t.z) == other.top_z()),
                Face::Bottom => tiles_at(map, x, y).iter().any(|t| t.top_z() == u32::from(other.z)),
                _ => false,
            };
            let touches = !covered
                && match face {
                    Face::Top => (other_high - high).abs() <= 1,
                    Face::Bottom => (other_low - low).abs() <= 1,
                    // Sides: stacked in the same column, or overlapping beside it.
                    _ if (dx, dy) == (0, 0) => other_low == high || other_high == low,
                    _ => other_low < high && low < other_high,
                };
            if touches && !((dx, dy) == (0, 0) && other.z == this.z) {
                out.push(TileRef { cell_x: x, cell_y: y, z: other.z });
            }
        }
    }
    out
}

/// Paints `face` of `at` and every face of that direction connected to it that had the same
/// paint (see `face_neighbours`); returns whether anything changed.
pub fn flood_fill(map: &mut TileMap, at: TileRef, face: Face, paint: Option<Paint>) -> bool {
    let Some(start) = tile(map, at) else { return false };
    let old = face.of(&start.paint);
    if old == paint {
        return false;
    }
    let mut seen = BTreeSet::from([at]);
    let mut queue = VecDeque::from([at]);
    let mut region = Vec::new();
    while let Some(next) = queue.pop_front() {
        region.push(next);
        for neighbour in face_neighbours(map, next, face) {
            if paint_of(map, neighbour, face) == old && seen.insert(neighbour) {
                queue.push_back(neighbour);
            }
        }
    }
    let mut changed = false;
    for tile_ref in region {
        changed |= paint_face(map, tile_ref, face, paint);
    }
    changed
}

/// Raises (`delta` > 0) or lowers the top of some corners of a tile by whole levels (1 to
/// `MAX_TILE_HEIGHT`): one corner or one edge makes a ramp.
pub fn raise_corners(map: &mut TileMap, at: TileRef, corners: &[Corner], delta: i8) -> bool {
    change_tile(map, at, |t| {
        for &corner in corners {
            let height = corner.of_mut(&mut t.heights);
            *height = height.saturating_add_signed(delta).clamp(1, MAX_TILE_HEIGHT);
        }
    })
}

/// Sets every corner of a tile to `height` levels (a flat top).
pub fn set_height(map: &mut TileMap, at: TileRef, height: u8) -> bool {
    change_tile(map, at, |t| t.heights = Corners::splat(height.clamp(1, MAX_TILE_HEIGHT)))
}

/// Raises (or lowers) the bottom of every corner by whole levels, staying under the top.
pub fn raise_baseline(map: &mut TileMap, at: TileRef, delta: i8) -> bool {
    change_tile(map, at, |t| {
        let lowest_top = t.heights.to_array().into_iter().min().unwrap_or(1);
        let base = t.baselines.x0y0.saturating_add_signed(delta).min(lowest_top.saturating_sub(1));
        t.baselines = Corners::splat(base);
    })
}

/// Moves one face inward by `inset` (a fraction of a cell for sides, of a level for top and
/// bottom; clamped to 0..0.95).
pub fn set_inset(map: &mut TileMap, at: TileRef, face: Face, inset: f32) -> bool {
    let inset = if inset.is_finite() { inset.clamp(0.0, 0.95) } else { 0.0 };
    change_tile(map, at, |t| *face_mut(&mut t.insets, face) = inset)
}

/// Makes a tile invisible (collision only) or visible again.
pub fn set_invisible(map: &mut TileMap, at: TileRef, invisible: bool) -> bool {
    change_tile(map, at, |t| t.invisible = invisible)
}

/// A copied rectangle of columns, cells relative to its low corner.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Region {
    /// Cells along x.
    pub width: u16,
    /// Cells along y.
    pub depth: u16,
    /// The columns, at cells relative to the region.
    pub columns: Vec<Column>,
}

/// Copies the columns of a rectangle of cells.
pub fn copy_region(map: &TileMap, from: (u16, u16), to: (u16, u16)) -> Region {
    let (x0, y0) = (from.0.min(to.0), from.1.min(to.1));
    let columns = rect_cells(from, to)
        .filter_map(|(x, y)| {
            let tiles = tiles_at(map, x, y);
            (!tiles.is_empty()).then(|| Column { x: x - x0, y: y - y0, tiles: tiles.to_vec() })
        })
        .collect();
    Region { width: from.0.abs_diff(to.0) + 1, depth: from.1.abs_diff(to.1) + 1, columns }
}

/// Stamps a region with its low corner on (`cell_x`, `cell_y`): its cells' columns replace
/// the map's (empty cells of the region clear the map's); cells outside the map are left out.
pub fn paste_region(map: &mut TileMap, region: &Region, cell_x: u16, cell_y: u16) -> bool {
    let mut changed = false;
    for y in 0..region.depth {
        for x in 0..region.width {
            let (Some(target_x), Some(target_y)) = (cell_x.checked_add(x), cell_y.checked_add(y)) else { continue };
            if target_x >= map.width || target_y >= map.depth {
                continue;
            }
            let tiles =
                region.columns.iter().find(|c| (c.x, c.y) == (x, y)).map(|c| c.tiles.clone()).unwrap_or_default();
            changed |= set_column(map, target_x, target_y, tiles);
        }
    }
    changed
}

fn set_column(map: &mut TileMap, cell_x: u16, cell_y: u16, tiles: Vec<Tile>) -> bool {
    match (column_position(map, cell_x, cell_y), tiles.is_empty()) {
        (Ok(at), true) => {
            map.columns.remove(at);
            true
        }
        (Ok(at), false) => match map.columns.get_mut(at) {
            Some(column) if column.tiles != tiles => {
                Arc::make_mut(column).tiles = tiles;
                true
            }
            _ => false,
        },
        (Err(at), false) => {
            map.columns.insert(at, Arc::new(Column { x: cell_x, y: cell_y, tiles }));
            true
        }
        (Err(_), true) => false,
    }
}

/// Resizes the map keeping its contents (moved by the shift); see the runtime's `resize_tile_map`.
pub fn resize(map: &mut TileMap, width: u16, depth: u16, shift_x: i32, shift_y: i32) -> Result<ResizeReport, MapError> {
    resize_tile_map(map, width, depth, shift_x, shift_y)
}

/// The standing level of a column's top (the top of its highest tile; 0 on an empty cell).
pub fn top_level(map: &TileMap, cell_x: u16, cell_y: u16) -> u16 {
    tiles_at(map, cell_x, cell_y).last().map_or(0, |tile| u16::try_from(tile.top_z()).unwrap_or(u16::MAX))
}

/// The level a placement stands on: its `z`, else the top of its column.
pub fn placement_level(map: &TileMap, placement: &Placement) -> u16 {
    placement.z.unwrap_or_else(|| top_level(map, placement.x, placement.y))
}

/// What the Markers tool writes into a placed unit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitPlacing {
    /// The unit type.
    pub unit: String,
    /// Its team in the battle; empty: the unit's own.
    pub team: String,
    /// Facing in degrees, counter-clockwise from +x.
    pub facing_degrees: f32,
}

/// Places a unit on the standing spot (`cell_x`, `cell_y`, `level`), replacing the unit
/// already standing there (a unit on another level of the cell stays).
pub fn place_unit(map: &mut TileMap, (cell_x, cell_y, level): (u16, u16, u16), placing: &UnitPlacing) -> bool {
    if cell_x >= map.width || cell_y >= map.depth || placing.unit.is_empty() {
        return false;
    }
    let facing_degrees =
        if placing.facing_degrees.is_finite() { placing.facing_degrees.rem_euclid(360.0) } else { 0.0 };
    let placement = Placement {
        unit: Id::new(&placing.unit),
        team: placing.team.trim().to_owned(),
        x: cell_x,
        y: cell_y,
        z: Some(level),
        facing_degrees,
    };
    let at = map.placements.iter().position(|p| (p.x, p.y, placement_level(map, p)) == (cell_x, cell_y, level));
    match at.and_then(|at| map.placements.get_mut(at)) {
        Some(existing) if *existing == placement => return false,
        Some(existing) => *existing = placement,
        None => map.placements.push(placement),
    }
    true
}

/// Places a prop whose box of `size` (cells, cells, levels; each at least 1, kept inside the
/// map) stands on level `z` of a cell, replacing a prop standing there.
pub fn place_prop(map: &mut TileMap, (cell_x, cell_y, z): (u16, u16, u16), label: &str, size: (u16, u16, u16)) -> bool {
    if cell_x >= map.width || cell_y >= map.depth {
        return false;
    }
    let size = (
        size.0.clamp(1, map.width - cell_x),
        size.1.clamp(1, map.depth - cell_y),
        size.2.clamp(1, MAX_Z_LEVELS.saturating_sub(z).max(1)),
    );
    let prop = Prop { label: label.to_owned(), x: cell_x, y: cell_y, z, size, ..Prop::default() };
    if let Some(existing) = map.props.iter_mut().find(|p| (p.x, p.y, p.z) == (cell_x, cell_y, z)) {
        if *existing == prop {
            return false;
        }
        *existing = prop;
    } else {
        map.props.push(prop);
    }
    true
}

/// Removes the units and props standing on level `level` of a cell (others on the cell stay).
pub fn remove_markers(map: &mut TileMap, (cell_x, cell_y, level): (u16, u16, u16)) -> bool {
    let before = map.placements.len() + map.props.len();
    let placements = std::mem::take(&mut map.placements);
    map.placements =
        placements.into_iter().filter(|p| (p.x, p.y, placement_level(map, p)) != (cell_x, cell_y, level)).collect();
    map.props.retain(|p| (p.x, p.y, p.z) != (cell_x, cell_y, level));
    before != map.placements.len() + map.props.len()
}

/// Adds a palette entry, giving it an id unique in the map (from its label) when it has none
/// or a taken one; returns the id.
pub fn add_palette_entry(map: &mut TileMap, mut entry: PaletteEntry) -> PaletteId {
    if entry.id.is_empty() || map.palette.iter().any(|other| other.id == entry.id) {
        let label = if entry.id.is_empty() { entry.label.clone() } else { entry.id.as_str().to_owned() };
        entry.id = super::palette::new_entry_id(map, &label);
    }
    let id = entry.id;
    map.palette.push(entry);
    id
}

/// How many faces of `map` are painted with the entry `id` (any tile).
pub fn faces_using(map: &TileMap, id: PaletteId) -> usize {
    map.columns
        .iter()
        .flat_map(|column| &column.tiles)
        .flat_map(|tile| tile.paint.to_array())
        .filter(|paint| paint.is_some_and(|paint| paint.entry == id))
        .count()
}

/// Deletes the palette entry `id` and unpaints the faces that used it; returns whether it was
/// there.
pub fn delete_palette_entry(map: &mut TileMap, id: PaletteId) -> bool {
    let before = map.palette.len();
    map.palette.retain(|entry| entry.id != id);
    if map.palette.len() == before {
        return false;
    }
    // Only the columns painted with the entry are copied (the others stay shared).
    let painted = |tile: &Tile| tile.paint.to_array().into_iter().flatten().any(|paint| paint.entry == id);
    for column in map.columns.iter_mut().filter(|column| column.tiles.iter().any(painted)) {
        for tile in &mut Arc::make_mut(column).tiles {
            for paint in tile.paint.iter_mut() {
                if paint.is_some_and(|paint| paint.entry == id) {
                    *paint = None;
                }
            }
        }
    }
    true
}

/// Moves the palette entry `id` one place up (`up`) or down; paint names ids, so no face
/// changes. Returns whether it moved.
pub fn move_palette_entry(map: &mut TileMap, id: PaletteId, up: bool) -> bool {
    let Some(at) = map.palette.iter().position(|entry| entry.id == id) else { return false };
    let other = if up { at.checked_sub(1) } else { Some(at + 1).filter(|next| *next < map.palette.len()) };
    let Some(other) = other else { return false };
    map.palette.swap(at, other);
    true
}

/// Renames the palette entry `from` to `to` and every face painted with it; refused (false)
/// when `to` is not a slug or another entry has it.
pub fn rename_palette_entry(map: &mut TileMap, from: PaletteId, to: &str) -> bool {
    if actforge_runtime::model::slug_problem(to).is_some() || from.as_str() == to {
        return false;
    }
    let to = PaletteId::new(to);
    if map.palette.iter().any(|entry| entry.id == to) {
        return false;
    }
    let Some(entry) = map.palette.iter_mut().find(|entry| entry.id == from) else { return false };
    entry.id = to;
    let painted = |tile: &Tile| tile.paint.to_array().into_iter().flatten().any(|paint| paint.entry == from);
    for column in map.columns.iter_mut().filter(|column| column.tiles.iter().any(painted)) {
        for tile in &mut Arc::make_mut(column).tiles {
            for paint in tile.paint.iter_mut().flatten() {
                if paint.entry == from {
                    paint.entry = to;
                }
            }
        }
    }
    true
}
