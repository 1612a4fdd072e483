//! The map drawn on the CPU: the runtime's chunk meshes (hidden faces already culled) are
//! projected with the camera, back faces and off-screen faces dropped, the rest sorted back to
//! front (painter's algorithm: cell by cell from the farthest, bottom to top within a cell)
//! into one egui [`Mesh`], textured with the palette atlas
//! when the palette has pictures. The built mesh is kept until the camera, the view's size,
//! the map, the atlas or the slicing changes; a tile edit re-meshes only the chunks it touches.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use actforge_runtime::map::{ChunkKey, ChunkMesh, MapMesher, MeshBuffers, MeshStyle, TileGrid};
use actforge_runtime::model::{Column, Tile, TileMap};
use egui::epaint::{Vertex, WHITE_UV};
use egui::{Color32, Mesh, Pos2, Rect, TextureId};

use super::camera::ViewFrame;

/// Opacity of tiles above the edited level when they are ghosted.
pub const GHOST_ALPHA: u8 = 45;

/// The source of chunk stamps: unique in the process, so a chunk of a new scene (another map,
/// a new cut) never carries the stamp of one already uploaded to the GPU.
static NEXT_STAMP: AtomicU64 = AtomicU64::new(1);

fn next_stamp() -> u64 {
    NEXT_STAMP.fetch_add(1, Ordering::Relaxed)
}

/// What happens to the tiles above the edited level.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Slicing {
    /// Every tile drawn.
    #[default]
    ShowAll,
    /// Tiles above the edited level drawn faint.
    GhostAbove,
    /// Tiles above the edited level not drawn.
    HideAbove,
}

/// A map's grids and meshes, split at a level: tiles based at or below it, and the ones above.
#[derive(Debug)]
pub struct MapScene {
    /// The map as last taken in.
    map: TileMap,
    /// Every tile (overlays and the runtime's queries).
    full: TileGrid,
    /// Tiles based at or below the cut (drawn and picked).
    below: TileGrid,
    /// Tiles based above the cut.
    above: TileGrid,
    below_mesher: MapMesher,
    above_mesher: MapMesher,
    /// Highest base level of the "below" part; `u16::MAX`: nothing is above.
    cut: u16,
    /// Bumped on every change of what is drawn.
    revision: u64,
    /// Tiles per palette entry (as the pictures slice; missing entries: 1).
    tiles: Vec<usize>,
    /// A stamp per chunk of `below_mesher` (same order), new each time the chunk is meshed:
    /// the GPU path re-uploads a chunk when its stamp changes.
    below_stamps: Vec<u64>,
    /// The same for `above_mesher`.
    above_stamps: Vec<u64>,
    /// How many columns reach each level (their highest tile's top): the map's bounds, kept
    /// up to date by the cells an edit changes rather than by a walk over every column.
    column_tops: BTreeMap<u32, u32>,
}

/// The level a column's tiles reach (0 for none): its last tile is its highest.
fn column_top(tiles: &[Tile]) -> u32 {
    tiles.last().map_or(0, Tile::top_z)
}

/// How many columns of `map` reach each level.
fn column_tops_of(map: &TileMap) -> BTreeMap<u32, u32> {
    let mut tops = BTreeMap::new();
    for column in &map.columns {
        *tops.entry(column_top(&column.tiles)).or_insert(0) += 1;
    }
    tops
}

/// The mesh style of `map`: palette tints shaded per face, UVs in the palette atlas holding
/// `tiles` tiles per entry.
fn style_of(map: &TileMap, tiles: &[usize]) -> MeshStyle {
    MeshStyle::of(map, super::palette::atlas_layout(map, tiles))
}

fn split(tiles: &[Tile], cut: u16) -> (Vec<Tile>, Vec<Tile>) {
    tiles.iter().cloned().partition(|tile| tile.z <= cut)
}

fn grids_of(full: &TileGrid, cut: u16) -> Option<(TileGrid, TileGrid)> {
    let mut below = TileGrid::new(full.width(), full.depth()).ok()?;
    let mut above = TileGrid::new(full.width(), full.depth()).ok()?;
    for cell_y in 0..full.depth() {
        for cell_x in 0..full.width() {
            let tiles = full.column(i32::from(cell_x), i32::from(cell_y));
            if tiles.is_empty() {
                continue;
            }
            let (low, high) = split(tiles, cut);
            below.set_column(cell_x, cell_y, low).ok()?;
            above.set_column(cell_x, cell_y, high).ok()?;
        }
    }
    Some((below, above))
}

/// The cells whose columns differ between two maps of the same size. Columns are shared
/// between a map and its edited copy, so most are told equal by their pointers alone: a tile
/// edit of a large map costs a pointer comparison per column, not a tile comparison.
fn changed_cells(old: &[Arc<Column>], new: &[Arc<Column>]) -> Vec<(u16, u16)> {
    let mut changed = Vec::new();
    let (mut old_iter, mut new_iter) = (old.iter().peekable(), new.iter().peekable());
    loop {
        match (old_iter.peek(), new_iter.peek()) {
            (None, None) => break,
            // Before reading either column: a shared column is the same cell, unchanged, and
            // the pointers sit side by side in the lists while the columns are all over the heap.
            (Some(a), Some(b)) if Arc::ptr_eq(a, b) => {
                old_iter.next();
                new_iter.next();
            }
            (Some(a), Some(b)) if (a.y, a.x) == (b.y, b.x) => {
                if a.tiles != b.tiles {
                    changed.push((a.x, a.y));
                }
                old_iter.next();
                new_iter.next();
            }
            (Some(a), Some(b)) if (a.y, a.x) < (b.y, b.x) => {
                changed.push((a.x, a.y));
                old_iter.next();
            }
            (Some(a), None) => {
                changed.push((a.x, a.y));
                old_iter.next();
            }
            (_, Some(b)) => {
                changed.push((b.x, b.y));
                new_iter.next();
            }
        }
    }
    changed
}

impl MapScene {
    /// The scene of `map` cut at `cut` (None: nothing above); None for a map of no valid size.
    /// Every palette entry is one tile (see [`MapScene::with_tiles`]).
    pub fn new(map: &TileMap, cut: Option<u16>) -> Option<Self> {
        Self::with_tiles(map, cut, &[])
    }

    /// The scene of `map` with `tiles` tiles per palette entry (sliced sheets).
    pub fn with_tiles(map: &TileMap, cut: Option<u16>, tiles: &[usize]) -> Option<Self> {
        let full = TileGrid::from_map(map).ok()?;
        let cut = cut.unwrap_or(u16::MAX);
        let (below, above) = grids_of(&full, cut)?;
        let style = style_of(map, tiles);
        let below_mesher = MapMesher::new(&below, style.clone());
        let above_mesher = MapMesher::new(&above, style);
        let tiles = tiles.to_vec();
        let stamp = next_stamp();
        let below_stamps = vec![stamp; below_mesher.chunks().len()];
        let above_stamps = vec![stamp; above_mesher.chunks().len()];
        Some(Self {
            column_tops: column_tops_of(map),
            map: map.clone(),
            full,
            below,
            above,
            below_mesher,
            above_mesher,
            cut,
            revision: 0,
            tiles,
            below_stamps,
            above_stamps,
        })
    }

    /// Tiles per palette entry the scene meshes with.
    pub fn tiles(&self) -> &[usize] {
        &self.tiles
    }

    /// [`MapScene::sync`] with `tiles` tiles per palette entry (re-meshes all when they change).
    pub fn sync_tiles(&mut self, map: &TileMap, cut: Option<u16>, tiles: &[usize]) -> bool {
        tiles.clone_into(&mut self.tiles);
        self.sync(map, cut)
    }

    /// The map as last taken in.
    pub fn map(&self) -> &TileMap {
        &self.map
    }

    /// Every tile of the map.
    pub fn full_grid(&self) -> &TileGrid {
        &self.full
    }

    /// The tiles at or below the cut: what is drawn solid and picked.
    pub fn below_grid(&self) -> &TileGrid {
        &self.below
    }

    /// The level the highest tile reaches (at least 1).
    pub fn top_level(&self) -> u32 {
        self.column_tops.keys().next_back().copied().unwrap_or(0).max(1)
    }

    /// Changes of what is drawn so far (a cache key).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Faces meshed (below and above the cut).
    pub fn face_count(&self) -> usize {
        self.below_mesher.face_count() + self.above_mesher.face_count()
    }

    /// The meshes below the cut.
    pub fn below_mesher(&self) -> &MapMesher {
        &self.below_mesher
    }

    /// The chunks below the cut (`above` false) or above it, each with its stamp: a number
    /// that changes whenever the chunk is meshed again (and differs between scenes).
    pub fn stamped_chunks(&self, above: bool) -> impl Iterator<Item = (&ChunkMesh, u64)> {
        let (mesher, stamps) =
            if above { (&self.above_mesher, &self.above_stamps) } else { (&self.below_mesher, &self.below_stamps) };
        mesher.chunks().iter().zip(stamps.iter().copied())
    }

    /// Takes in `map` and the cut: re-meshes only the chunks of the cells that changed, or
    /// everything after a resize, a palette or scale change, or a new cut. Returns whether
    /// anything changed.
    pub fn sync(&mut self, map: &TileMap, cut: Option<u16>) -> bool {
        let cut = cut.unwrap_or(u16::MAX);
        let resized = (map.width, map.depth) != (self.map.width, self.map.depth);
        let style = style_of(map, &self.tiles);
        if resized || cut != self.cut || style != *self.below_mesher.style() {
            if let Some(rebuilt) = Self::with_tiles(map, Some(cut), &self.tiles) {
                let revision = self.revision + 1;
                *self = rebuilt;
                self.revision = revision;
            }
            return true;
        }
        // One walk over the columns finds what changed (no separate whole-map comparison).
        let cells = changed_cells(&self.map.columns, &map.columns);
        if cells.is_empty() && without_columns(&self.map) == without_columns(map) {
            return false;
        }
        self.revision += 1;
        if !cells.is_empty() {
            // Only the changed columns are rebuilt: building the whole grid again would cost a
            // large map's edit frame several milliseconds.
            let column_at = |map: &TileMap, cell_x: u16, cell_y: u16| {
                let at = map.columns.binary_search_by_key(&(cell_y, cell_x), |column| (column.y, column.x)).ok()?;
                map.columns.get(at).map(Arc::clone)
            };
            for &(cell_x, cell_y) in &cells {
                // The tops count the map's own columns (the kept map is the one before the edit).
                if let Some(old) = column_at(&self.map, cell_x, cell_y) {
                    let old_top = column_top(&old.tiles);
                    if let Some(count) = self.column_tops.get_mut(&old_top) {
                        *count = count.saturating_sub(1);
                        if *count == 0 {
                            self.column_tops.remove(&old_top);
                        }
                    }
                }
                let new = column_at(map, cell_x, cell_y);
                if let Some(new) = &new {
                    *self.column_tops.entry(column_top(&new.tiles)).or_insert(0) += 1;
                }
                let tiles = new.map(|column| column.tiles.clone()).unwrap_or_default();
                // The cells come from the maps' own columns: inside the grid.
                let _ = self.full.set_column(cell_x, cell_y, tiles);
                let (low, high) = split(self.full.column(i32::from(cell_x), i32::from(cell_y)), cut);
                let _ = self.below.set_column(cell_x, cell_y, low);
                let _ = self.above.set_column(cell_x, cell_y, high);
            }
            let below = self.below_mesher.update(&self.below, cells.iter().copied());
            restamp(&self.below_mesher, &mut self.below_stamps, &below);
            let above = self.above_mesher.update(&self.above, cells.iter().copied());
            restamp(&self.above_mesher, &mut self.above_stamps, &above);
        }
        take_in_place(&mut self.map, map, &cells);
        true
    }
}

/// New stamps for the re-meshed chunks `keys` of `mesher` (a resize re-meshes all: new list).
fn restamp(mesher: &MapMesher, stamps: &mut Vec<u64>, keys: &[ChunkKey]) {
    let chunks = mesher.chunks();
    if stamps.len() != chunks.len() {
        let stamp = next_stamp();
        stamps.clear();
        stamps.resize(chunks.len(), stamp);
        return;
    }
    for key in keys {
        if let Some(at) = chunks.iter().position(|chunk| chunk.key == *key)
            && let Some(stamp) = stamps.get_mut(at)
        {
            *stamp = next_stamp();
        }
    }
}

/// A copy of `map` without its columns (the large part).
fn without_columns(map: &TileMap) -> TileMap {
    // Every field named, so that a new field cannot be forgotten here.
    let TileMap {
        id,
        text_key,
        label,
        description,
        width,
        depth,
        cell_size,
        level_height,
        bottom_faces,
        palette,
        columns: _,
        placements,
        props,
        win_conditions,
        scheduler,
        wait_facing,
    } = map;
    TileMap {
        id: id.clone(),
        text_key: text_key.clone(),
        label: label.clone(),
        description: description.clone(),
        width: *width,
        depth: *depth,
        cell_size: *cell_size,
        level_height: *level_height,
        bottom_faces: *bottom_faces,
        palette: palette.clone(),
        columns: Vec::new(),
        placements: placements.clone(),
        props: props.clone(),
        win_conditions: win_conditions.clone(),
        scheduler: scheduler.clone(),
        wait_facing: *wait_facing,
    }
}

/// Makes `kept` equal to `map` when only the columns of `cells` differ: patches those columns
/// and copies the other fields, so a tile edit does not clone a large map's every column.
fn take_in_place(kept: &mut TileMap, map: &TileMap, cells: &[(u16, u16)]) {
    for &(cell_x, cell_y) in cells {
        let key = |column: &Arc<Column>| (column.y, column.x);
        let new = map.columns.binary_search_by_key(&(cell_y, cell_x), key).ok().and_then(|at| map.columns.get(at));
        match (kept.columns.binary_search_by_key(&(cell_y, cell_x), key), new) {
            (Ok(at), Some(new)) => {
                if let Some(old) = kept.columns.get_mut(at) {
                    *old = Arc::clone(new);
                }
            }
            (Ok(at), None) => {
                kept.columns.remove(at);
            }
            (Err(at), Some(new)) => kept.columns.insert(at, Arc::clone(new)),
            (Err(_), None) => {}
        }
    }
    let columns = std::mem::take(&mut kept.columns);
    *kept = TileMap { columns, ..without_columns(map) };
    debug_assert!(kept == map, "the kept map is the map taken in");
}

/// One face projected on the screen.
#[derive(Clone, Copy, Debug)]
struct ScreenFace {
    corners: [Pos2; 4],
    /// Atlas UVs of the corners.
    uvs: [Pos2; 4],
    colour: Color32,
}

/// Scratch buffers and the result of a frame build, reused frame to frame.
#[derive(Debug, Default)]
pub struct FrameBuild {
    faces: Vec<ScreenFace>,
    /// (draw order key, face index).
    order: Vec<(u64, u32)>,
    /// The depth-sorted mesh of the last build.
    pub mesh: Arc<Mesh>,
    /// Faces in the mesh.
    pub drawn_faces: usize,
}

/// A float as a key that sorts in ascending order.
fn ascending_key(value: f32) -> u32 {
    let bits = value.to_bits();
    if bits & 0x8000_0000 == 0 { bits | 0x8000_0000 } else { !bits }
}

/// Where a face is drawn in the painter's order: cells from the farthest to the nearest,
/// and within a cell from the bottom up. Every tile lies within its cell and the camera looks
/// down, so along any ray a nearer cell's faces and a higher tile's faces come first: this
/// order is right where sorting single faces by their depth is not (a big side face next to
/// a small top face).
fn draw_key(frame: &ViewFrame, cell_size: f32, positions: &[[f32; 3]], normal: [f32; 3]) -> u64 {
    let count = positions.len().max(1) as f32;
    let [x, y, z] = positions.iter().fold([0.0; 3], |[x, y, z], [px, py, pz]| [x + px, y + py, z + pz]);
    let [normal_x, normal_y, normal_z] = normal;
    // Nudged inward: a side face lies on its cell's border.
    let nudge = cell_size * 0.01;
    let (inside_x, inside_y, inside_z) =
        (x / count - normal_x * nudge, y / count - normal_y * nudge, z / count - normal_z * nudge);
    let [eye_x, eye_y, _] = frame.eye;
    let centre_x = ((inside_x / cell_size).floor() + 0.5) * cell_size - eye_x;
    let centre_y = ((inside_y / cell_size).floor() + 0.5) * cell_size - eye_y;
    let cell_depth = if frame.orthographic {
        let [forward_x, forward_y, _] = frame.forward;
        centre_x * forward_x + centre_y * forward_y
    } else {
        centre_x.hypot(centre_y)
    };
    (u64::from(!ascending_key(cell_depth)) << 32) | u64::from(ascending_key(inside_z))
}

fn with_alpha([r, g, b, a]: [u8; 4], alpha: u8) -> Color32 {
    let alpha = ((u16::from(a) * u16::from(alpha)) / 255) as u8;
    Color32::from_rgba_unmultiplied(r, g, b, alpha)
}

impl FrameBuild {
    /// Projects the faces of `buffers` into the face list, dropping back faces, faces behind
    /// the eye and faces wholly off screen.
    fn project(&mut self, frame: &ViewFrame, cell_size: f32, buffers: &MeshBuffers, alpha: u8) {
        let visible = frame.rect.expand(2.0);
        let quads = buffers
            .positions
            .chunks_exact(4)
            .zip(buffers.normals.chunks_exact(4))
            .zip(buffers.colours.chunks_exact(4))
            .zip(buffers.uvs.chunks_exact(4));
        for (((positions, normals), colours), face_uvs) in quads {
            let (Some(&first), Some(&normal), Some(&colour)) = (positions.first(), normals.first(), colours.first())
            else {
                continue;
            };
            if frame.faces_away(first, normal) {
                continue;
            }
            let mut corners = [Pos2::ZERO; 4];
            let mut projected = true;
            for (corner, &world) in corners.iter_mut().zip(positions) {
                let Some((screen, _)) = frame.project(world) else {
                    projected = false;
                    break;
                };
                *corner = screen;
            }
            if !projected || !visible.intersects(Rect::from_points(&corners)) {
                continue;
            }
            let mut uvs = [WHITE_UV; 4];
            for (uv, &[u, v]) in uvs.iter_mut().zip(face_uvs) {
                *uv = Pos2::new(u, v);
            }
            let index = self.faces.len() as u32;
            self.faces.push(ScreenFace { corners, uvs, colour: with_alpha(colour, alpha) });
            self.order.push((draw_key(frame, cell_size, positions, normal), index));
        }
    }

    /// Builds the view of `scene` through `frame`: the solid part (invisible tiles are not
    /// faces: the Tile map tab outlines them, see `overlay`),
    /// the part above the cut ghosted (or left out). With `atlas` the faces are textured with
    /// the palette's pictures; without, they are flat colours.
    pub fn build(&mut self, scene: &MapScene, frame: &ViewFrame, slicing: Slicing, atlas: Option<TextureId>) {
        self.faces.clear();
        self.order.clear();
        let cell_size = actforge_runtime::map::MapScale::of(scene.map()).cell_size;
        for chunk in scene.below_mesher.chunks() {
            self.project(frame, cell_size, &chunk.opaque, 255);
        }
        if slicing == Slicing::GhostAbove {
            for chunk in scene.above_mesher.chunks() {
                self.project(frame, cell_size, &chunk.opaque, GHOST_ALPHA);
            }
        }
        self.order.sort_unstable_by_key(|&(key, _)| key);
        let mut mesh = atlas.map_or_else(Mesh::default, Mesh::with_texture);
        mesh.vertices.reserve(self.order.len() * 4);
        mesh.indices.reserve(self.order.len() * 6);
        for &(_, index) in &self.order {
            let Some(face) = self.faces.get(index as usize) else { continue };
            let first = mesh.vertices.len() as u32;
            let uvs = if atlas.is_some() { face.uvs } else { [WHITE_UV; 4] };
            for (pos, uv) in face.corners.into_iter().zip(uvs) {
                mesh.vertices.push(Vertex { pos, uv, color: face.colour });
            }
            mesh.indices.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
        }
        self.drawn_faces = self.order.len();
        self.mesh = Arc::new(mesh);
    }
}
