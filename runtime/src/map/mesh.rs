//! Chunked meshes of a tile grid: one opaque and one invisible (collision-only) buffer set
//! per 32×32 columns, hidden faces culled, per-face paint through a texture atlas, per-face
//! shading; rebuilt per chunk after an edit.

use std::collections::BTreeSet;

use crate::model::{Colour, Tile, TileMap};

use super::MapScale;
use super::geometry::{Face, SideSpan, TileSolid, side_covered};
use super::grid::{CHUNK_SIDE, TileGrid};

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

/// Where each palette entry's picture lies in the atlas texture.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AtlasLayout {
    /// The rectangle of palette entry `i`.
    pub rects: Vec<UvRect>,
    /// The rectangle unpainted faces (and paint indices outside the palette) use.
    pub unpainted: UvRect,
}

impl AtlasLayout {
    /// Cells along each side of the square atlas [`AtlasLayout::grid`] lays out for `entries`
    /// palette entries (one more cell holds the unpainted picture).
    pub fn cells_per_side(entries: usize) -> usize {
        let cells = entries.saturating_add(1);
        let mut side = 1usize;
        while side.saturating_mul(side) < cells {
            side += 1;
        }
        side
    }

    /// A square atlas of `cell_px`-pixel cells in rows: palette entry `i` in cell `i`, the
    /// unpainted picture in cell `entries`; each rectangle is drawn in by half a texel so
    /// filtering never reads the next cell.
    pub fn grid(entries: usize, cell_px: u32) -> Self {
        let side = Self::cells_per_side(entries);
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
        Self { rects: (0..entries).map(rect).collect(), unpainted: rect(entries) }
    }

    /// The rectangle for a face's paint.
    pub fn rect(&self, paint: Option<u16>) -> UvRect {
        paint.and_then(|index| self.rects.get(usize::from(index))).copied().unwrap_or(self.unpainted)
    }
}

/// How a map is meshed: scale, bottom faces, atlas and the palette's tints.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshStyle {
    /// Grid to world.
    pub scale: MapScale,
    /// Whether bottom faces are meshed.
    pub bottom_faces: bool,
    /// Palette index → atlas rectangle.
    pub atlas: AtlasLayout,
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
    /// The style of `map` with `atlas` (e.g. `AtlasLayout::grid(map.palette.len(), 64)`).
    pub fn of(map: &TileMap, atlas: AtlasLayout) -> Self {
        Self {
            scale: MapScale::of(map),
            bottom_faces: map.bottom_faces,
            atlas,
            tints: map.palette.iter().map(|entry| tint_of(entry.colour)).collect(),
            unpainted_tint: [255; 4],
        }
    }

    fn tint(&self, paint: Option<u16>) -> [u8; 4] {
        paint.and_then(|index| self.tints.get(usize::from(index))).copied().unwrap_or(self.unpainted_tint)
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

/// Appends one face of `tile` to `out`; faces with no area are skipped.
fn emit_face(out: &mut MeshBuffers, style: &MeshStyle, solid: &TileSolid, face: Face, tile: &Tile, cell: (u16, u16)) {
    let quad = solid.face_quad(face);
    let world = quad.map(|grid_point| style.scale.world_from_grid(grid_point));
    // The cross product of the diagonals is the quad's mean normal (exact for planar quads).
    let [nx, ny, nz] = cross(sub(world[2], world[0]), sub(world[3], world[1]));
    let length = (nx * nx + ny * ny + nz * nz).sqrt();
    if length <= 1e-12 || !length.is_finite() {
        return;
    }
    let normal = [nx / length, ny / length, nz / length];
    let paint = face.of(&tile.paint);
    let shade = face_shade(normal);
    let [r, g, b, a] = style.tint(paint);
    let shaded = |channel: u8| (f32::from(channel) * shade).round() as u8;
    let colour = [shaded(r), shaded(g), shaded(b), a];
    let rect = style.atlas.rect(paint);
    let (cell_x, cell_y) = (f32::from(cell.0), f32::from(cell.1));
    let (base, height) = (f32::from(tile.z), f32::from(tile.max_height()));
    let base_index = out.positions.len() as u32;
    for (grid_point, world_point) in quad.iter().zip(world) {
        let across_x = grid_point[0] - cell_x;
        let across_y = grid_point[1] - cell_y;
        let up = (grid_point[2] - base) / height;
        // Cell-relative UVs: insets crop the picture instead of squeezing it; side pictures
        // span the tile's full height and read left to right seen from outside.
        let uv = match face {
            Face::Top | Face::Bottom => rect.at(across_x, across_y),
            Face::NegX => rect.at(1.0 - across_y, up),
            Face::PosX => rect.at(across_y, up),
            Face::NegY => rect.at(across_x, up),
            Face::PosY => rect.at(1.0 - across_x, up),
        };
        out.positions.push(world_point);
        out.normals.push(normal);
        out.uvs.push(uv);
        out.colours.push(colour);
    }
    out.indices.extend_from_slice(&[
        base_index,
        base_index + 1,
        base_index + 2,
        base_index,
        base_index + 2,
        base_index + 3,
    ]);
}

/// Whether a tile may hide a face of `of`: opaque tiles hide any face, invisible tiles only
/// faces of other invisible tiles (you see through them).
fn may_hide(hider: &Tile, of: &Tile) -> bool {
    !hider.invisible || of.invisible
}

/// Whether `upper` hides the top of `lower` (and `lower` the bottom of `upper`): both faces
/// flat, at the same height, and the hiding footprint covering the hidden one.
#[allow(clippy::float_cmp)] // flat faces of tiles resting on each other meet exactly
fn flat_faces_meet(lower: &TileSolid, upper: &TileSolid) -> bool {
    lower.top_is_flat() && upper.bottom_is_flat() && lower.top.x0y0 == upper.bottom.x0y0
}

/// Per-side scan state while a column's tiles are meshed bottom to top.
struct SideScan {
    /// First tile of the neighbour column that can still reach the current tile.
    cursor: usize,
}

/// Whether the neighbour column across `face` fully covers the face `span` of `tile`.
#[allow(clippy::too_many_arguments)] // the meshing loop's state, passed down without a struct per call
fn neighbour_covers(
    grid: &TileGrid,
    tile: &Tile,
    face: Face,
    cell: (u16, u16),
    span: &SideSpan,
    scan: &mut SideScan,
    scratch: &mut Vec<SideSpan>,
) -> bool {
    let (step_x, step_y) = face.cell_step();
    let (neighbour_x, neighbour_y) = (i32::from(cell.0) + step_x, i32::from(cell.1) + step_y);
    let neighbour = grid.column(neighbour_x, neighbour_y);
    if neighbour.is_empty() {
        return false;
    }
    // A non-empty column is inside the map, so both coordinates fit.
    let (neighbour_x, neighbour_y) = (neighbour_x as u16, neighbour_y as u16);
    // Tiles are visited bottom to top, so neighbour tiles ending at or below this one's base
    // can be skipped for good.
    while neighbour.get(scan.cursor).is_some_and(|below| below.top_z() <= u32::from(tile.z)) {
        scan.cursor += 1;
    }
    scratch.clear();
    let top_z = tile.top_z();
    for other in neighbour.get(scan.cursor..).unwrap_or_default() {
        if u32::from(other.z) >= top_z {
            break;
        }
        if may_hide(other, tile)
            && let Some(other_span) =
                TileSolid::new(neighbour_x, neighbour_y, other).side_span(face.opposite(), neighbour_x, neighbour_y)
        {
            scratch.push(other_span);
        }
    }
    side_covered(span, scratch.iter())
}

/// Builds the mesh of chunk `key` into `out` (its buffers are reused).
fn mesh_chunk(grid: &TileGrid, style: &MeshStyle, key: ChunkKey, out: &mut ChunkMesh) {
    out.key = key;
    out.opaque.clear();
    out.invisible.clear();
    let x_start = u32::from(key.chunk_x) * u32::from(CHUNK_SIDE);
    let y_start = u32::from(key.chunk_y) * u32::from(CHUNK_SIDE);
    let x_end = (x_start + u32::from(CHUNK_SIDE)).min(u32::from(grid.width()));
    let y_end = (y_start + u32::from(CHUNK_SIDE)).min(u32::from(grid.depth()));
    let mut scratch = Vec::new();
    for cell_y in y_start..y_end {
        for cell_x in x_start..x_end {
            // Both are below the map side (≤ 1024).
            let cell = (cell_x as u16, cell_y as u16);
            let column = grid.column(cell_x as i32, cell_y as i32);
            let mut scans = [0, 1, 2, 3].map(|_| SideScan { cursor: 0 });
            for (index, tile) in column.iter().enumerate() {
                let solid = TileSolid::new(cell.0, cell.1, tile);
                let buffers = if tile.invisible { &mut out.invisible } else { &mut out.opaque };
                for (face, scan) in Face::SIDES.into_iter().zip(&mut scans) {
                    let hidden = solid
                        .side_span(face, cell.0, cell.1)
                        .is_some_and(|span| neighbour_covers(grid, tile, face, cell, &span, scan, &mut scratch));
                    if !hidden {
                        emit_face(buffers, style, &solid, face, tile, cell);
                    }
                }
                let above =
                    column.get(index + 1).filter(|above| u32::from(above.z) == tile.top_z() && may_hide(above, tile));
                let top_hidden = above.is_some_and(|above| {
                    let above_solid = TileSolid::new(cell.0, cell.1, above);
                    flat_faces_meet(&solid, &above_solid) && above_solid.footprint_covers(&solid)
                });
                if !top_hidden {
                    emit_face(buffers, style, &solid, Face::Top, tile, cell);
                }
                if style.bottom_faces {
                    let below = index
                        .checked_sub(1)
                        .and_then(|at| column.get(at))
                        .filter(|below| below.top_z() == u32::from(tile.z) && may_hide(below, tile));
                    let bottom_hidden = below.is_some_and(|below| {
                        let below_solid = TileSolid::new(cell.0, cell.1, below);
                        flat_faces_meet(&below_solid, &solid) && below_solid.footprint_covers(&solid)
                    });
                    if !bottom_hidden {
                        emit_face(buffers, style, &solid, Face::Bottom, tile, cell);
                    }
                }
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
}

impl MapMesher {
    /// Meshes every chunk of `grid`.
    pub fn new(grid: &TileGrid, style: MeshStyle) -> Self {
        let mut mesher = Self { style, width: 0, depth: 0, chunks_x: 0, chunks: Vec::new() };
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

    /// Rebuilds every chunk (after a resize or a style change); returns their keys.
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
        for (key, chunk) in keys.iter().zip(&mut self.chunks) {
            mesh_chunk(grid, &self.style, *key, chunk);
        }
        keys
    }

    /// Rebuilds only the chunks the edited cells touch (see [`chunks_touched`]); everything
    /// when the grid's size changed. Returns the rebuilt chunks' keys, sorted.
    pub fn update(&mut self, grid: &TileGrid, edited_cells: impl IntoIterator<Item = (u16, u16)>) -> Vec<ChunkKey> {
        if grid.width() != self.width || grid.depth() != self.depth {
            return self.rebuild_all(grid);
        }
        let touched = chunks_touched(self.width, self.depth, edited_cells);
        for key in &touched {
            let at = usize::from(key.chunk_y) * usize::from(self.chunks_x) + usize::from(key.chunk_x);
            if let Some(chunk) = self.chunks.get_mut(at) {
                mesh_chunk(grid, &self.style, *key, chunk);
            }
        }
        touched.into_iter().collect()
    }
}
