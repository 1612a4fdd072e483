//! Tile-map geometry and queries (`spec/srpgck.md` §a, §b): the solid of each tile, chunked
//! meshes with hidden-face culling, ray picking, standing heights, resizing, reachability,
//! paths and line of sight. Pure data in, plain buffers out: the editor draws them.
//!
//! Spaces. *Grid space*: cell (x, y) covers `x..x+1` × `y..y+1`, level z covers `z..z+1`,
//! z is up. *World space*: grid space scaled by the map's cell size (x, y) and level height
//! (z); meshes and picking rays are in world space, everything else in grid space.
//!
//! Content is never trusted: [`TileGrid::from_map`] clamps what `validate` reports as errors
//! (FORMAT.md §9 lists how), so no map content makes these functions panic.

mod cull;
mod geometry;
mod grid;
mod mesh;
mod pick;
mod reach;
mod spot_sets;
mod spots;
mod walk;

pub use geometry::{Face, TileSolid};
pub use grid::{CHUNK_SIDE, MAX_INSET, MAX_TERRAIN_TAGS, ResizeReport, TileGrid, resize_tile_map};
pub use mesh::{
    AtlasLayout, ChunkKey, ChunkMesh, MapMesher, MeshBuffers, MeshStyle, UvRect, chunks_touched, face_shade,
};
pub use pick::{PickHit, Stand, first_hit_on_segment, pick, standing_height};
pub use reach::{
    Occupant, Reach, ReachNode, ReachParams, SightMemo, SightParams, Spot, line_of_sight, line_reaches, reach_fly,
    reach_line, reach_line_kept, reach_path, reach_pick, sight_blocker, signed_dz, spot_point, spot_tags, spot_terrain,
    standing_spots,
};
pub(crate) use reach::{reach_path_kept, reach_pick_kept};
pub use spot_sets::{SpotMap, SpotSet};
pub use walk::{ArcShot, LineMoveParams, LineMoveWalk, WalkStop, arc_shot, line_move};

use crate::model::{MAX_MAP_SIDE, TileMap};

/// Why a map operation was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MapError {
    /// A width or depth outside `1..=MAX_MAP_SIDE`.
    #[error("a map is 1 to {MAX_MAP_SIDE} cells wide and deep; {width}×{depth} is not")]
    BadSize {
        /// The width asked for.
        width: u32,
        /// The depth asked for.
        depth: u32,
    },
    /// A cell outside the map.
    #[error("the cell ({cell_x}, {cell_y}) is outside the {width}×{depth} map")]
    OutsideMap {
        /// Cell x.
        cell_x: u32,
        /// Cell y.
        cell_y: u32,
        /// Map width.
        width: u16,
        /// Map depth.
        depth: u16,
    },
    /// A position that is not the top of a tile with room to stand.
    #[error("({cell_x}, {cell_y}) level {level} is not a standing spot")]
    NotASpot {
        /// Cell x.
        cell_x: u16,
        /// Cell y.
        cell_y: u16,
        /// Standing level.
        level: u16,
    },
}

/// World size of a cell side and of a level: world space = grid space × this.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapScale {
    /// World length of a cell side (x and y).
    pub cell_size: f32,
    /// World height of one level (z).
    pub level_height: f32,
}

impl Default for MapScale {
    fn default() -> Self {
        Self { cell_size: 1.0, level_height: 0.5 }
    }
}

impl MapScale {
    /// The scale of `map`; a size that is not a positive number falls back to the default.
    pub fn of(map: &TileMap) -> Self {
        let positive = |value: f32, fallback: f32| if value.is_finite() && value > 0.0 { value } else { fallback };
        let default = Self::default();
        Self {
            cell_size: positive(map.cell_size, default.cell_size),
            level_height: positive(map.level_height, default.level_height),
        }
    }

    /// A grid-space point in world space.
    pub fn world_from_grid(self, grid_point: [f32; 3]) -> [f32; 3] {
        let [x, y, z] = grid_point;
        [x * self.cell_size, y * self.cell_size, z * self.level_height]
    }

    /// A world-space point (or direction) in grid space.
    pub fn grid_from_world(self, world_point: [f32; 3]) -> [f32; 3] {
        let [x, y, z] = world_point;
        [x / self.cell_size, y / self.cell_size, z / self.level_height]
    }
}
