//! Chunked meshes of a tile grid: one opaque and one invisible (collision-only) buffer set
//! per 32×32 columns, hidden faces culled, per-face paint through a texture atlas, per-face
//! shading; rebuilt per chunk after an edit.

use std::collections::BTreeSet;

use rayon::prelude::*;

use crate::model::{Colour, Paint, PaletteLookup, Tile, TileMap};

use super::MapScale;
use super::cull::{CullScratch, VisibleTile, face_bit, visible_faces};
use super::geometry::{Face, TileSolid};
use super::grid::{CHUNK_SIDE, TileGrid, is_plain_box};

/// A rectangle of the atlas texture, in UV units (0..1, v down the picture).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UvRect {
    /// Left edge.
    pub u_min: f32,
    /// Top edge.
    pub v_min: f32,
    /// Right edge.
    pub u_max: f32,
    /// Bottom edge.
    pub v_max: f32,
}

impl UvRect {
    /// The UV of a point `across` (0 left … 1 right) and `up` (0 bottom … 1 top) of the picture.
    pub fn at(self, across: f32, up: f32) -> [f32; 2] {
        [self.u_min + (self.u_max - self.u_min) * across, self.v_max - (self.v_max - self.v_min) * up]
    }
}

/// Where each palette entry's tiles lie in the atlas texture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AtlasLayout {
    /// By palette index: the rectangle of each tile of the entry (one for a single picture or
    /// a flat colour, one per tile of a sliced sheet, row-major).
    pub rects: Vec<Vec<UvRect>>,
    /// The rectangle unpainted faces (and paint naming no entry or tile) use.
    pub unpainted: UvRect,
}

impl AtlasLayout {
    /// Cells along each side of the square atlas [`AtlasLayout::grid`] lays out for `cells`
    /// tiles (one more cell holds the unpainted picture).
    pub fn cells_per_side(cells: usize) -> usize {
        let cells = cells.saturating_add(1);
        let side = cells.isqrt();
        if side.saturating_mul(side) < cells { side + 1 } else { side }
    }

    /// A square atlas of `cell_px`-pixel cells in rows holding every tile of every entry
    /// (`tiles[i]` tiles for palette entry i, in order), then the unpainted picture; each
    /// rectangle is drawn in by half a texel so filtering never reads the next cell.
    pub fn grid(tiles: &[usize], cell_px: u32) -> Self {
        let total: usize = tiles.iter().sum();
        let side = Self::cells_per_side(total);
        let texture_px = side as f32 * cell_px as f32;
        let half_texel = if texture_px > 0.0 { 0.5 / texture_px } else { 0.0 };
        let cell = 1.0 / side as f32;
        let rect = |at: usize| {
            let (column, row) = ((at % side) as f32, (at / side) as f32);
            UvRect {
                u_min: column * cell + half_texel,
                v_min: row * cell + half_texel,
                u_max: (column + 1.0) * cell - half_texel,
                v_max: (row + 1.0) * cell - half_texel,
            }
        };
        let mut next = 0;
        let rects = tiles
            .iter()
            .map(|count| {
                let first = next;
                next += count;
                (first..next).map(rect).collect()
            })
            .collect();
        Self { rects, unpainted: rect(total) }
    }

    /// The atlas cell of each tile, in order: the cell index [`AtlasLayout::grid`] gives tile
    /// `tile` of entry `entry`.
    pub fn cell_of(tiles: &[usize], entry: usize, tile: usize) -> Option<usize> {
        let count = *tiles.get(entry)?;
        (tile < count).then(|| tiles.iter().take(entry).sum::<usize>() + tile)
    }

    /// The rectangle of tile `tile` of palette entry `entry`, None when there is no such tile.
    pub fn tile_rect(&self, entry: usize, tile: u16) -> Option<UvRect> {
        self.rects.get(entry).and_then(|tiles| tiles.get(usize::from(tile))).copied()
    }
}

/// How a map is meshed: scale, bottom faces, atlas and the palette's tints.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshStyle {
    /// Grid to world.
    pub scale: MapScale,
    /// Whether bottom faces are meshed.
    pub bottom_faces: bool,
    /// Palette index and tile → atlas rectangle.
    pub atlas: AtlasLayout,
    /// Entry ids → palette indices, resolved once per palette.
    pub lookup: PaletteLookup,
    /// Tint of each palette entry (sRGB with alpha), multiplied by the face's shade.
    pub tints: Vec<[u8; 4]>,
    /// Tint of unpainted faces.
    pub unpainted_tint: [u8; 4],
}

/// A palette colour as a tint: the default transparent colour means "no tint" (white).
fn tint_of(colour: Colour) -> [u8; 4] {
    if colour.a == 0 { [255; 4] } else { [colour.r, colour.g, colour.b, colour.a] }
}

impl MeshStyle {
    /// The style of `map` with `atlas` (e.g. `AtlasLayout::grid(&tile_counts, 64)`).
    pub fn of(map: &TileMap, atlas: AtlasLayout) -> Self {
        Self {
            scale: MapScale::of(map),
            bottom_faces: map.bottom_faces,
            atlas,
            lookup: PaletteLookup::new(&map.palette),
            tints: map.palette.iter().map(|entry| tint_of(entry.colour)).collect(),
            unpainted_tint: [255; 4],
        }
    }

    /// The tint and atlas rectangle of a face's paint: the unpainted ones for no paint, an id
    /// the palette lacks or a tile past the entry's sheet.
    pub fn resolve(&self, paint: Option<Paint>) -> ([u8; 4], UvRect) {
        paint
            .and_then(|paint| {
                let entry = self.lookup.index(paint.entry)?;
                Some((self.tints.get(entry).copied()?, self.atlas.tile_rect(entry, paint.tile)?))
            })
            .unwrap_or((self.unpainted_tint, self.atlas.unpainted))
    }
}

/// Plain vertex and index buffers; every face is a quad of its own 4 vertices (2 triangles),
/// so each face carries its own UVs, normal and colour.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshBuffers {
    /// World-space positions (z up).
    pub positions: Vec<[f32; 3]>,
    /// World-space unit normals, one per face repeated on its vertices.
    pub normals: Vec<[f32; 3]>,
    /// Atlas UVs.
    pub uvs: Vec<[f32; 2]>,
    /// sRGB tint × face shade, with the tint's alpha.
    pub colours: Vec<[u8; 4]>,
    /// Triangles, counter-clockwise seen from outside, indexing the vertex buffers.
    pub indices: Vec<u32>,
}

impl MeshBuffers {
    /// Empties the buffers, keeping their memory for the next build.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.normals.clear();
        self.uvs.clear();
        self.colours.clear();
        self.indices.clear();
    }

    /// Faces (quads) in the buffers.
    pub fn face_count(&self) -> usize {
        self.indices.len() / 6
    }

    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }
}

/// A chunk's position in chunks: it covers cells `chunk_x * 32 ..` and `chunk_y * 32 ..`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChunkKey {
    /// Chunk column.
    pub chunk_x: u16,
    /// Chunk row.
    pub chunk_y: u16,
}

impl ChunkKey {
    /// The chunk holding cell (`cell_x`, `cell_y`).
    pub const fn of_cell(cell_x: u16, cell_y: u16) -> Self {
        Self { chunk_x: cell_x / CHUNK_SIDE, chunk_y: cell_y / CHUNK_SIDE }
    }
}

/// The mesh of one chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkMesh {
    /// Which chunk.
    pub key: ChunkKey,
    /// Visible tiles.
    pub opaque: MeshBuffers,
    /// Invisible (collision-only) tiles: the editor draws them translucent, play does not.
    pub invisible: MeshBuffers,
}

impl ChunkMesh {
    /// Faces in both buffer sets.
    pub fn face_count(&self) -> usize {
        self.opaque.face_count() + self.invisible.face_count()
    }
}

/// Unit vector towards the light (−0.3, −0.5, 1): tops brightest, then −y, −x, +x/+y, bottoms.
const LIGHT: [f32; 3] = [-0.259_161, -0.431_934, 0.863_868];
/// Share of the shade every face gets whatever its direction.
const AMBIENT: f32 = 0.45;

/// The shade factor (0..=1) of a face with the world-space unit `normal`; a flat top is 1.
pub fn face_shade(normal: [f32; 3]) -> f32 {
    let lit = (normal[0] * LIGHT[0] + normal[1] * LIGHT[1] + normal[2] * LIGHT[2]).max(0.0);
    let top = AMBIENT + (1.0 - AMBIENT) * LIGHT[2];
    ((AMBIENT + (1.0 - AMBIENT) * lit) / top).min(1.0)
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// The shade of each axis-aligned face, in `Face` order.
fn axis_shades() -> [f32; 6] {
    Face::ALL.map(|face| face_shade(face.axis_normal()))
}

/// Appends one face of `tile` to `out`; faces with no area are skipped.
fn emit_face(
    out: &mut MeshBuffers,
    style: &MeshStyle,
    shades: &[f32; 6],
    solid: &TileSolid,
    face: Face,
    tile: &Tile,
    cell: (u16, u16),
) {
    let quad = solid.face_quad(face);
    let scale = style.scale;
    let world = [
        scale.world_from_grid(quad[0]),
        scale.world_from_grid(quad[1]),
        scale.world_from_grid(quad[2]),
        scale.world_from_grid(quad[3]),
    ];
    let axis = match face {
        // A side is a trapezoid in its cell side's plane; it has no area when its top meets
        // its bottom at both ends.
        Face::NegX | Face::NegY | Face::PosX | Face::PosY => quad[3][2] > quad[0][2] || quad[2][2] > quad[1][2],
        Face::Top => solid.top_is_flat(),
        Face::Bottom => solid.bottom_is_flat(),
    };
    let (normal, shade) = if axis {
        (face.axis_normal(), shades.get(face as usize).copied().unwrap_or(1.0))
    } else {
        // The cross product of the diagonals is the quad's mean normal (exact for planar quads).
        let [nx, ny, nz] = cross(sub(world[2], world[0]), sub(world[3], world[1]));
        let length = (nx * nx + ny * ny + nz * nz).sqrt();
        if length <= 1e-12 || !length.is_finite() {
            return;
        }
        let normal = [nx / length, ny / length, nz / length];
        (normal, face_shade(normal))
    };
    let (tint, rect) = style.resolve(face.of(&tile.paint));
    let colour = shaded(tint, shade);
    let (cell_x, cell_y) = (f32::from(cell.0), f32::from(cell.1));
    let (base, height) = (f32::from(tile.z), f32::from(tile.max_height()));
    // Cell-relative UVs: insets crop the picture instead of squeezing it; side pictures span
    // the tile's full height and read left to right seen from outside.
    let uv = |[x, y, z]: [f32; 3]| {
        let (across_x, across_y, up) = (x - cell_x, y - cell_y, (z - base) / height);
        match face {
            Face::Top | Face::Bottom => rect.at(across_x, across_y),
            Face::NegX => rect.at(1.0 - across_y, up),
            Face::PosX => rect.at(across_y, up),
            Face::NegY => rect.at(across_x, up),
            Face::PosY => rect.at(1.0 - across_x, up),
        }
    };
    push_quad(out, world, normal, [uv(quad[0]), uv(quad[1]), uv(quad[2]), uv(quad[3])], colour);
}

/// Appends the visible faces (`mask`) of a plain box (see `grid::is_plain_box`): every face is a
/// full rectangle, so positions, normals and UVs come straight from the cell and the levels.
fn emit_box(out: &mut MeshBuffers, style: &MeshStyle, shades: &[f32; 6], tile: &Tile, cell: (u16, u16), mask: u8) {
    let MapScale { cell_size, level_height } = style.scale;
    // The same products as `MapScale::world_from_grid` on the solid's corners, so shared
    // corners with neighbouring (non-box) tiles are bit-identical: no cracks.
    let (x0, y0) = (f32::from(cell.0) * cell_size, f32::from(cell.1) * cell_size);
    let (x1, y1) = ((f32::from(cell.0) + 1.0) * cell_size, (f32::from(cell.1) + 1.0) * cell_size);
    let (z0, z1) = (f32::from(tile.z) * level_height, (tile.top_z() as f32) * level_height);
    for face in Face::ALL {
        if mask & face_bit(face) == 0 {
            continue;
        }
        // The corners in `TileSolid::face_quad`'s order, and where each sits on the picture
        // (0 or 1 across, 0 or 1 up).
        let (world, picture): ([[f32; 3]; 4], [(f32, f32); 4]) = match face {
            Face::NegX => (
                [[x0, y1, z0], [x0, y0, z0], [x0, y0, z1], [x0, y1, z1]],
                [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            ),
            Face::PosX => (
                [[x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]],
                [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            ),
            Face::NegY => (
                [[x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]],
                [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            ),
            Face::PosY => (
                [[x1, y1, z0], [x0, y1, z0], [x0, y1, z1], [x1, y1, z1]],
                [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            ),
            Face::Top => (
                [[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]],
                [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)],
            ),
            Face::Bottom => (
                [[x0, y0, z0], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0]],
                [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (1.0, 0.0)],
            ),
        };
        let (tint, rect) = style.resolve(face.of(&tile.paint));
        let shade = shades.get(face as usize).copied().unwrap_or(1.0);
        push_quad(out, world, face.axis_normal(), picture.map(|(across, up)| rect.at(across, up)), shaded(tint, shade));
    }
}

/// `tint` × `shade`, with the tint's alpha.
fn shaded([r, g, b, a]: [u8; 4], shade: f32) -> [u8; 4] {
    // Shades are in 0..=1, so adding ½ and truncating rounds.
    let channel = |value: u8| (f32::from(value) * shade + 0.5) as u8;
    [channel(r), channel(g), channel(b), a]
}

/// Appends one quad (two triangles) with one normal and colour.
fn push_quad(out: &mut MeshBuffers, world: [[f32; 3]; 4], normal: [f32; 3], uvs: [[f32; 2]; 4], colour: [u8; 4]) {
    let first = out.positions.len() as u32;
    out.positions.extend_from_slice(&world);
    out.normals.extend_from_slice(&[normal; 4]);
    out.uvs.extend_from_slice(&uvs);
    out.colours.extend_from_slice(&[colour; 4]);
    out.indices.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
}

/// Scratch space reused across chunk builds.
#[derive(Clone, Debug, Default)]
struct MeshScratch {
    visible: Vec<VisibleTile>,
    cull: CullScratch,
}

impl MeshBuffers {
    /// Makes room for `faces` more quads, so a build never copies its buffers while growing.
    fn reserve_faces(&mut self, faces: usize) {
        let vertices = faces * 4;
        self.positions.reserve(vertices);
        self.normals.reserve(vertices);
        self.uvs.reserve(vertices);
        self.colours.reserve(vertices);
        self.indices.reserve(faces * 6);
    }
}

/// Builds the mesh of chunk `key` into `out` (its buffers are reused): first which faces are
/// visible, then the buffers, sized once.
fn mesh_chunk(grid: &TileGrid, style: &MeshStyle, key: ChunkKey, out: &mut ChunkMesh, scratch: &mut MeshScratch) {
    out.key = key;
    out.opaque.clear();
    out.invisible.clear();
    let x_start = u32::from(key.chunk_x) * u32::from(CHUNK_SIDE);
    let y_start = u32::from(key.chunk_y) * u32::from(CHUNK_SIDE);
    // Both ends are at most the map side (≤ 1024).
    let x_range = x_start as u16..(x_start + u32::from(CHUNK_SIDE)).min(u32::from(grid.width())) as u16;
    let y_range = y_start as u16..(y_start + u32::from(CHUNK_SIDE)).min(u32::from(grid.depth())) as u16;
    scratch.visible.clear();
    let counts = visible_faces(grid, x_range, y_range, style.bottom_faces, &mut scratch.visible, &mut scratch.cull);
    out.opaque.reserve_faces(counts.opaque);
    out.invisible.reserve_faces(counts.invisible);
    let shades = axis_shades();
    for shown in &scratch.visible {
        let (cell_x, cell_y) = shown.cell;
        let Some(tile) = grid.column(i32::from(cell_x), i32::from(cell_y)).get(usize::from(shown.index)) else {
            continue;
        };
        let buffers = if tile.invisible { &mut out.invisible } else { &mut out.opaque };
        if is_plain_box(tile) {
            emit_box(buffers, style, &shades, tile, shown.cell, shown.mask);
            continue;
        }
        let solid = TileSolid::new(cell_x, cell_y, tile);
        for face in Face::ALL {
            if shown.mask & face_bit(face) != 0 {
                emit_face(buffers, style, &shades, &solid, face, tile, shown.cell);
            }
        }
    }
}

/// The chunks whose meshes depend on the given cells: each cell's own chunk, and the chunk
/// across a chunk border the cell lies on (its faces there are culled against the cell).
pub fn chunks_touched(
    width: u16,
    depth: u16,
    edited_cells: impl IntoIterator<Item = (u16, u16)>,
) -> BTreeSet<ChunkKey> {
    let chunks_x = width.div_ceil(CHUNK_SIDE);
    let chunks_y = depth.div_ceil(CHUNK_SIDE);
    let mut touched = BTreeSet::new();
    for (cell_x, cell_y) in edited_cells {
        if cell_x >= width || cell_y >= depth {
            continue;
        }
        let key = ChunkKey::of_cell(cell_x, cell_y);
        touched.insert(key);
        let (in_x, in_y) = (cell_x % CHUNK_SIDE, cell_y % CHUNK_SIDE);
        if in_x == 0 && key.chunk_x > 0 {
            touched.insert(ChunkKey { chunk_x: key.chunk_x - 1, ..key });
        }
        if in_x == CHUNK_SIDE - 1 && key.chunk_x + 1 < chunks_x {
            touched.insert(ChunkKey { chunk_x: key.chunk_x + 1, ..key });
        }
        if in_y == 0 && key.chunk_y > 0 {
            touched.insert(ChunkKey { chunk_y: key.chunk_y - 1, ..key });
        }
        if in_y == CHUNK_SIDE - 1 && key.chunk_y + 1 < chunks_y {
            touched.insert(ChunkKey { chunk_y: key.chunk_y + 1, ..key });
        }
    }
    touched
}

/// The meshes of a whole map, chunk by chunk, kept up to date edit by edit.
#[derive(Clone, Debug)]
pub struct MapMesher {
    style: MeshStyle,
    width: u16,
    depth: u16,
    chunks_x: u16,
    chunks: Vec<ChunkMesh>,
    scratch: MeshScratch,
}

impl MapMesher {
    /// Meshes every chunk of `grid`.
    pub fn new(grid: &TileGrid, style: MeshStyle) -> Self {
        let mut mesher =
            Self { style, width: 0, depth: 0, chunks_x: 0, chunks: Vec::new(), scratch: MeshScratch::default() };
        mesher.rebuild_all(grid);
        mesher
    }

    /// The style the meshes were built with.
    pub fn style(&self) -> &MeshStyle {
        &self.style
    }

    /// Changes the style (atlas, palette tints, scale) and rebuilds everything.
    pub fn set_style(&mut self, grid: &TileGrid, style: MeshStyle) {
        self.style = style;
        self.rebuild_all(grid);
    }

    /// Every chunk, row by row (`chunk_y`, then `chunk_x`).
    pub fn chunks(&self) -> &[ChunkMesh] {
        &self.chunks
    }

    /// One chunk.
    pub fn chunk(&self, key: ChunkKey) -> Option<&ChunkMesh> {
        if key.chunk_x >= self.chunks_x {
            return None;
        }
        self.chunks.get(usize::from(key.chunk_y) * usize::from(self.chunks_x) + usize::from(key.chunk_x))
    }

    /// Faces in every chunk.
    pub fn face_count(&self) -> usize {
        self.chunks.iter().map(ChunkMesh::face_count).sum()
    }

    /// Rebuilds every chunk (after a resize or a style change); returns their keys. Chunks
    /// are built in parallel (rayon); the result does not depend on the number of threads.
    pub fn rebuild_all(&mut self, grid: &TileGrid) -> Vec<ChunkKey> {
        self.width = grid.width();
        self.depth = grid.depth();
        self.chunks_x = self.width.div_ceil(CHUNK_SIDE);
        let chunks_y = self.depth.div_ceil(CHUNK_SIDE);
        let count = usize::from(self.chunks_x) * usize::from(chunks_y);
        self.chunks.resize_with(count, ChunkMesh::default);
        let keys: Vec<ChunkKey> = (0..chunks_y)
            .flat_map(|chunk_y| (0..self.chunks_x).map(move |chunk_x| ChunkKey { chunk_x, chunk_y }))
            .collect();
        let style = &self.style;
        self.chunks.par_iter_mut().zip(&keys).for_each_init(MeshScratch::default, |scratch, (chunk, key)| {
            mesh_chunk(grid, style, *key, chunk, scratch);
        });
        keys
    }

    /// Rebuilds only the chunks the edited cells touch (see [`chunks_touched`]); everything
    /// when the grid's size changed. Returns the rebuilt chunks' keys, sorted.
    pub fn update(&mut self, grid: &TileGrid, edited_cells: impl IntoIterator<Item = (u16, u16)>) -> Vec<ChunkKey> {
        if grid.width() != self.width || grid.depth() != self.depth {
            return self.rebuild_all(grid);
        }
        let touched = chunks_touched(self.width, self.depth, edited_cells);
        let chunks_x = usize::from(self.chunks_x).max(1);
        // Chunk i of the row-major list.
        let key_of = |index: usize| ChunkKey { chunk_x: (index % chunks_x) as u16, chunk_y: (index / chunks_x) as u16 };
        let mut jobs: Vec<(ChunkKey, &mut ChunkMesh)> = self
            .chunks
            .iter_mut()
            .enumerate()
            .map(|(index, chunk)| (key_of(index), chunk))
            .filter(|(key, _)| touched.contains(key))
            .collect();
        if let [(key, chunk)] = jobs.as_mut_slice() {
            mesh_chunk(grid, &self.style, *key, chunk, &mut self.scratch);
        } else {
            // Several chunks (an edit on a chunk border, a brush stroke): build them in parallel.
            let style = &self.style;
            jobs.into_par_iter().for_each_init(MeshScratch::default, |scratch, (key, chunk)| {
                mesh_chunk(grid, style, key, chunk, scratch);
            });
        }
        touched.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Faces;

    /// The plain-box shortcut writes exactly what the general path writes.
    #[test]
    fn box_shortcut_matches_the_general_path() {
        let palette: Vec<crate::model::PaletteEntry> = ["a", "b", "c"]
            .into_iter()
            .map(|id| crate::model::PaletteEntry { id: id.into(), ..Default::default() })
            .collect();
        let style = MeshStyle {
            scale: MapScale { cell_size: 0.3, level_height: 0.7 },
            bottom_faces: true,
            atlas: AtlasLayout::grid(&[1, 1, 4], 32),
            lookup: PaletteLookup::new(&palette),
            tints: vec![[200, 100, 50, 255], [10, 20, 30, 128], [255; 4]],
            unpainted_tint: [90, 90, 90, 255],
        };
        let shades = axis_shades();
        let painted = Faces {
            neg_x: Some(Paint::new("a", 0)),
            pos_y: Some(Paint::new("b", 0)),
            top: Some(Paint::new("c", 2)),
            bottom: Some(Paint::new("gone", 0)),
            ..Faces::default()
        };
        for (tile, cell) in [
            (Tile::cube(0), (0, 0)),
            (Tile { paint: painted, ..Tile::cube(5) }, (17, 913)),
            (Tile { heights: crate::model::Corners::splat(3), paint: painted, ..Tile::cube(40) }, (1023, 1)),
        ] {
            assert!(is_plain_box(&tile));
            let mut shortcut = MeshBuffers::default();
            emit_box(&mut shortcut, &style, &shades, &tile, cell, 0b11_1111);
            let mut general = MeshBuffers::default();
            let solid = TileSolid::new(cell.0, cell.1, &tile);
            for face in Face::ALL {
                emit_face(&mut general, &style, &shades, &solid, face, &tile, cell);
            }
            assert_eq!(shortcut, general, "{tile:?} on {cell:?}");
        }
    }
}
