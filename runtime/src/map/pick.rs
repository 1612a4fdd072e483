//! Ray picking against the tile solids (the same triangles the mesh draws) and standing
//! heights on them.

use std::cmp::Ordering;

use crate::model::MAX_Z_LEVELS;

use super::MapScale;
use super::geometry::{Face, TileSolid};
use super::grid::TileGrid;

/// What a ray hit first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PickHit {
    /// Cell x.
    pub cell_x: u16,
    /// Cell y.
    pub cell_y: u16,
    /// Index of the tile in its column (bottom first).
    pub tile_index: usize,
    /// Base level of that tile.
    pub tile_z: u16,
    /// The face hit.
    pub face: Face,
    /// The hit point in grid space.
    pub grid_point: [f32; 3],
    /// The hit point in world space ([`first_hit_on_segment`] knows no scale: there it is
    /// the grid point).
    pub world_point: [f32; 3],
    /// Distance from the ray's origin: world units for [`pick`], grid units for
    /// [`first_hit_on_segment`].
    pub distance: f32,
}

/// Where a point stands: the top surface below it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stand {
    /// Height of the surface, in levels (grid space).
    pub height: f32,
    /// Index of the tile in its column.
    pub tile_index: usize,
    /// The tile's standing level (its base plus its highest corner).
    pub level: u16,
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Barycentric slack so rays along the seam of two triangles or faces still hit one of them.
const EDGE_SLACK: f32 = 1e-5;

/// Ray parameter where `origin + t·direction` enters the front of triangle (a, b, c)
/// (counter-clockwise seen from the front); back faces and parallel rays miss
/// (Möller–Trumbore).
fn enter_triangle(origin: [f32; 3], direction: [f32; 3], triangle: [[f32; 3]; 3]) -> Option<f32> {
    let [corner, second, third] = triangle;
    let edge1 = sub(second, corner);
    let edge2 = sub(third, corner);
    let across = cross(direction, edge2);
    let det = dot(edge1, across);
    // det = −direction · normal: positive exactly when the ray meets the front.
    if det <= 1e-12 {
        return None;
    }
    let inverse = 1.0 / det;
    let from_corner = sub(origin, corner);
    let along1 = dot(from_corner, across) * inverse;
    if !(-EDGE_SLACK..=1.0 + EDGE_SLACK).contains(&along1) {
        return None;
    }
    let up = cross(from_corner, edge1);
    let along2 = dot(direction, up) * inverse;
    if along2 < -EDGE_SLACK || along1 + along2 > 1.0 + EDGE_SLACK {
        return None;
    }
    Some(dot(edge2, up) * inverse)
}

/// A hit in grid space, before it is dressed as a [`PickHit`].
struct Cast {
    t: f32,
    cell: (u16, u16),
    tile_index: usize,
    tile_z: u16,
    face: Face,
}

impl Cast {
    /// This hit as a [`PickHit`] at `grid_point` (and `world_point`), `distance` from the start.
    fn dressed(&self, grid_point: [f32; 3], world_point: [f32; 3], distance: f32) -> PickHit {
        PickHit {
            cell_x: self.cell.0,
            cell_y: self.cell.1,
            tile_index: self.tile_index,
            tile_z: self.tile_z,
            face: self.face,
            grid_point,
            world_point,
            distance,
        }
    }
}

/// The nearest front face hit in one column with `t` in `t_min..=t_max`.
fn hit_in_column(
    grid: &TileGrid,
    cell: (u16, u16),
    origin: [f32; 3],
    direction: [f32; 3],
    (t_min, t_max): (f32, f32),
    include_invisible: bool,
) -> Option<Cast> {
    let mut best: Option<Cast> = None;
    for (tile_index, tile) in grid.column(i32::from(cell.0), i32::from(cell.1)).iter().enumerate() {
        if tile.invisible && !include_invisible {
            continue;
        }
        let solid = TileSolid::new(cell.0, cell.1, tile);
        for face in Face::ALL {
            let [q0, q1, q2, q3] = solid.face_quad(face);
            let t = enter_triangle(origin, direction, [q0, q1, q2])
                .or_else(|| enter_triangle(origin, direction, [q0, q2, q3]));
            if let Some(t) = t
                && (t_min..=t_max).contains(&t)
                && best.as_ref().is_none_or(|best| t < best.t)
            {
                best = Some(Cast { t, cell, tile_index, tile_z: tile.z, face });
            }
        }
    }
    best
}

/// The part `t_enter..=t_exit` of `t_min..=t_max` where `origin + t·direction` (grid space)
/// is inside the map's box; None when the ray misses it or is not finite.
fn box_span(grid: &TileGrid, origin: [f32; 3], direction: [f32; 3], (t_min, t_max): (f32, f32)) -> Option<(f32, f32)> {
    let high = [f32::from(grid.width()), f32::from(grid.depth()), f32::from(MAX_Z_LEVELS)];
    let (mut t_enter, mut t_exit) = (t_min, t_max);
    for ((o, d), high) in origin.into_iter().zip(direction).zip(high) {
        if d.abs() < 1e-30 {
            if !(0.0..=high).contains(&o) {
                return None;
            }
        } else {
            let (a, b) = ((0.0 - o) / d, (high - o) / d);
            t_enter = t_enter.max(a.min(b));
            t_exit = t_exit.min(a.max(b));
        }
    }
    // A non-finite ray gives NaN, which compares as unordered: no hit.
    if t_enter.partial_cmp(&t_exit).is_none_or(Ordering::is_gt) {
        return None;
    }
    Some((t_enter, t_exit))
}

/// The first front face along `origin + t·direction` (grid space) for `t` in `t_min..=t_max`:
/// columns are walked in the ray's order (2D DDA), so the first column with a hit holds the
/// nearest one.
fn cast(
    grid: &TileGrid,
    origin: [f32; 3],
    direction: [f32; 3],
    (t_min, t_max): (f32, f32),
    include_invisible: bool,
) -> Option<Cast> {
    let (t_enter, t_exit) = box_span(grid, origin, direction, (t_min, t_max))?;
    let [ox, oy, _] = origin;
    let [dx, dy, _] = direction;
    let max_x = i32::from(grid.width()) - 1;
    let max_y = i32::from(grid.depth()) - 1;
    let mut cell_x = ((ox + dx * t_enter).floor() as i32).clamp(0, max_x);
    let mut cell_y = ((oy + dy * t_enter).floor() as i32).clamp(0, max_y);
    let axis = |o: f32, d: f32, cell: i32| -> (i32, f32, f32) {
        if d > 0.0 {
            (1, (cell as f32 + 1.0 - o) / d, 1.0 / d)
        } else if d < 0.0 {
            (-1, (cell as f32 - o) / d, -1.0 / d)
        } else {
            (0, f32::INFINITY, f32::INFINITY)
        }
    };
    let (step_x, mut next_x, delta_x) = axis(ox, dx, cell_x);
    let (step_y, mut next_y, delta_y) = axis(oy, dy, cell_y);
    let most_cells = usize::from(grid.width()) + usize::from(grid.depth()) + 2;
    for _ in 0..most_cells {
        // Inside the map: the coordinates fit u16.
        let cell = (cell_x as u16, cell_y as u16);
        if let Some(hit) = hit_in_column(grid, cell, origin, direction, (t_min, t_max), include_invisible) {
            return Some(hit);
        }
        if next_x < next_y {
            if next_x > t_exit {
                break;
            }
            cell_x += step_x;
            next_x += delta_x;
        } else {
            if next_y > t_exit {
                break;
            }
            cell_y += step_y;
            next_y += delta_y;
        }
        if !grid.contains(cell_x, cell_y) {
            break;
        }
    }
    None
}

fn point_at(origin: [f32; 3], direction: [f32; 3], t: f32) -> [f32; 3] {
    [origin[0] + direction[0] * t, origin[1] + direction[1] * t, origin[2] + direction[2] * t]
}

/// The first tile face a world-space ray enters (e.g. from the camera through the mouse).
/// Invisible tiles are hit only with `include_invisible` (the editor's view). None for a
/// zero or non-finite direction, or when the ray misses every tile.
pub fn pick(
    grid: &TileGrid,
    scale: MapScale,
    world_origin: [f32; 3],
    world_direction: [f32; 3],
    include_invisible: bool,
) -> Option<PickHit> {
    let length = dot(world_direction, world_direction).sqrt();
    if !(length.is_finite() && length > 0.0) {
        return None;
    }
    let unit = world_direction.map(|d| d / length);
    // Scaling the direction into grid space keeps t in world units.
    let origin = scale.grid_from_world(world_origin);
    let direction = scale.grid_from_world(unit);
    // Start the cast a unit before the ray enters the map's box: from a far origin (an
    // orthographic camera's) the face tests would lose thin hits to f32 rounding.
    let (t_enter, _) = box_span(grid, origin, direction, (0.0, f32::INFINITY))?;
    let skipped = (t_enter - 1.0).max(0.0);
    let near_origin = point_at(origin, direction, skipped);
    let hit = cast(grid, near_origin, direction, (0.0, f32::INFINITY), include_invisible)?;
    let grid_point = point_at(near_origin, direction, hit.t);
    Some(hit.dressed(grid_point, scale.world_from_grid(grid_point), skipped + hit.t))
}

/// The first tile face entered strictly between two grid-space points (their ends excluded
/// by a hair, so a segment may start or end on a surface); None when the way is clear.
pub fn first_hit_on_segment(
    grid: &TileGrid,
    grid_from: [f32; 3],
    grid_to: [f32; 3],
    include_invisible: bool,
) -> Option<PickHit> {
    let direction = sub(grid_to, grid_from);
    let length = dot(direction, direction).sqrt();
    if !(length.is_finite() && length > 0.0) {
        return None;
    }
    let margin = 1e-4 / length;
    let hit = cast(grid, grid_from, direction, (margin, 1.0 - margin), include_invisible)?;
    let grid_point = point_at(grid_from, direction, hit.t);
    Some(hit.dressed(grid_point, grid_point, hit.t * length))
}

/// The highest top surface at grid point (`grid_x`, `grid_y`) that is not above
/// `max_height` levels (None: no limit), on the tile's triangles (ramps interpolate);
/// invisible tiles count (they are collision). None when no tile is under the point.
pub fn standing_height(grid: &TileGrid, grid_x: f32, grid_y: f32, max_height: Option<f32>) -> Option<Stand> {
    if !(grid_x.is_finite() && grid_y.is_finite()) {
        return None;
    }
    let (cell_x, cell_y) = (grid_x.floor(), grid_y.floor());
    if !(0.0..f32::from(grid.width())).contains(&cell_x) || !(0.0..f32::from(grid.depth())).contains(&cell_y) {
        return None;
    }
    let (cell_x, cell_y) = (cell_x as u16, cell_y as u16);
    let limit = max_height.map_or(f32::INFINITY, |limit| limit + 1e-4);
    let mut best: Option<Stand> = None;
    for (tile_index, tile) in grid.column(i32::from(cell_x), i32::from(cell_y)).iter().enumerate() {
        let height = TileSolid::new(cell_x, cell_y, tile).top_height_at(grid_x, grid_y);
        if let Some(height) = height
            && height <= limit
            && best.is_none_or(|best| height >= best.height)
        {
            // `sanitize_tile` keeps every tile below MAX_Z_LEVELS, so its top fits u16.
            best = Some(Stand { height, tile_index, level: tile.top_z() as u16 });
        }
    }
    best
}
