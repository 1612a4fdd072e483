//! The solid of one tile in grid space: its footprint after side insets and the bottom and
//! top height of each corner (baselines, corner heights, top and bottom insets).

use crate::model::{Corners, Faces, Tile};

use super::grid::MAX_INSET;

/// A face of a tile, in SRPGCK's face order (−x, −y, +x, +y, bottom, top).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    /// Looks towards −x.
    NegX,
    /// Looks towards −y.
    NegY,
    /// Looks towards +x.
    PosX,
    /// Looks towards +y.
    PosY,
    /// Looks down (−z).
    Bottom,
    /// Looks up (+z).
    Top,
}

impl Face {
    /// Every face, in SRPGCK's order.
    pub const ALL: [Self; 6] = [Self::NegX, Self::NegY, Self::PosX, Self::PosY, Self::Bottom, Self::Top];

    /// The four side faces.
    pub const SIDES: [Self; 4] = [Self::NegX, Self::NegY, Self::PosX, Self::PosY];

    /// The value of this face in `faces`.
    pub fn of<T: Default + PartialEq + Copy>(self, faces: &Faces<T>) -> T {
        match self {
            Self::NegX => faces.neg_x,
            Self::NegY => faces.neg_y,
            Self::PosX => faces.pos_x,
            Self::PosY => faces.pos_y,
            Self::Bottom => faces.bottom,
            Self::Top => faces.top,
        }
    }

    /// The face looking the other way.
    #[must_use]
    pub const fn opposite(self) -> Self {
        match self {
            Self::NegX => Self::PosX,
            Self::NegY => Self::PosY,
            Self::PosX => Self::NegX,
            Self::PosY => Self::NegY,
            Self::Bottom => Self::Top,
            Self::Top => Self::Bottom,
        }
    }

    /// The cell step towards which a side face looks ((0, 0) for top and bottom).
    pub const fn cell_step(self) -> (i32, i32) {
        match self {
            Self::NegX => (-1, 0),
            Self::NegY => (0, -1),
            Self::PosX => (1, 0),
            Self::PosY => (0, 1),
            Self::Bottom | Self::Top => (0, 0),
        }
    }

    /// The outward unit normal in grid space (for sides and flat tops and bottoms).
    pub const fn axis_normal(self) -> [f32; 3] {
        match self {
            Self::NegX => [-1.0, 0.0, 0.0],
            Self::NegY => [0.0, -1.0, 0.0],
            Self::PosX => [1.0, 0.0, 0.0],
            Self::PosY => [0.0, 1.0, 0.0],
            Self::Bottom => [0.0, 0.0, -1.0],
            Self::Top => [0.0, 0.0, 1.0],
        }
    }
}

/// A tile's hexahedron in grid space.
///
/// The footprint is the cell moved in by the side insets; each corner of it has a bottom
/// (`z + baseline + bottom inset`) and a top (`z + height − top inset`, never below the bottom).
/// Unequal corner heights make a ramp: the top is two triangles split along the diagonal whose
/// ends differ least in height (ties: x0y0–x1y1), the same split the mesh and picking use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TileSolid {
    /// Footprint's low x.
    pub x_min: f32,
    /// Footprint's high x.
    pub x_max: f32,
    /// Footprint's low y.
    pub y_min: f32,
    /// Footprint's high y.
    pub y_max: f32,
    /// Bottom height of each corner, in levels.
    pub bottom: Corners<f32>,
    /// Top height of each corner, in levels.
    pub top: Corners<f32>,
}

/// A vertical edge span of a side face: along-axis extent and heights at its two ends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SideSpan {
    /// Low end along the side (y for ±x faces, x for ±y faces).
    pub along_min: f32,
    /// High end along the side.
    pub along_max: f32,
    /// Bottom height at the low and high end.
    pub bottom: [f32; 2],
    /// Top height at the low and high end.
    pub top: [f32; 2],
}

impl SideSpan {
    /// Bottom and top heights at `along` (inside the span), linearly between the ends.
    fn heights_at(&self, along: f32) -> (f32, f32) {
        let length = self.along_max - self.along_min;
        let t = if length > 0.0 { ((along - self.along_min) / length).clamp(0.0, 1.0) } else { 0.0 };
        let lerp = |pair: [f32; 2]| pair[0] + (pair[1] - pair[0]) * t;
        (lerp(self.bottom), lerp(self.top))
    }
}

fn clamped_inset(value: f32) -> f32 {
    if value.is_finite() { value.clamp(0.0, MAX_INSET) } else { 0.0 }
}

impl TileSolid {
    /// The solid of `tile` standing on cell (`cell_x`, `cell_y`).
    pub fn new(cell_x: u16, cell_y: u16, tile: &Tile) -> Self {
        // Most tiles have no insets: skip clamping six zeros.
        let insets = if tile.insets == Faces::default() {
            Faces::default()
        } else {
            let raw = &tile.insets;
            Faces {
                neg_x: clamped_inset(raw.neg_x),
                neg_y: clamped_inset(raw.neg_y),
                pos_x: clamped_inset(raw.pos_x),
                pos_y: clamped_inset(raw.pos_y),
                bottom: clamped_inset(raw.bottom),
                top: clamped_inset(raw.top),
            }
        };
        let (left, front) = (f32::from(cell_x), f32::from(cell_y));
        let (bottom, top) = Self::heights(tile, insets.bottom, insets.top);
        // The grid keeps opposite insets apart; a raw tile is clamped so the footprint never inverts.
        let x_min = left + insets.neg_x;
        let y_min = front + insets.neg_y;
        Self {
            x_min,
            x_max: (left + 1.0 - insets.pos_x).max(x_min),
            y_min,
            y_max: (front + 1.0 - insets.pos_y).max(y_min),
            bottom,
            top,
        }
    }

    /// The bottom and top height of each corner of `tile`, with its bottom and top insets.
    fn heights(tile: &Tile, bottom_inset: f32, top_inset: f32) -> (Corners<f32>, Corners<f32>) {
        let base = f32::from(tile.z);
        let bottom_of = |baseline: u8| base + f32::from(baseline) + bottom_inset;
        let top_of = |height: u8, bottom: f32| (base + f32::from(height) - top_inset).max(bottom);
        let baselines = &tile.baselines;
        let bottom = Corners {
            x0y0: bottom_of(baselines.x0y0),
            x1y0: bottom_of(baselines.x1y0),
            x0y1: bottom_of(baselines.x0y1),
            x1y1: bottom_of(baselines.x1y1),
        };
        let heights = &tile.heights;
        let top = Corners {
            x0y0: top_of(heights.x0y0, bottom.x0y0),
            x1y0: top_of(heights.x1y0, bottom.x1y0),
            x0y1: top_of(heights.x0y1, bottom.x0y1),
            x1y1: top_of(heights.x1y1, bottom.x1y1),
        };
        (bottom, top)
    }

    /// [`Self::edge_top_height`] of the solid of `tile` (wherever it stands), without working
    /// out the rest of the solid: walks ask it for every step they try.
    pub(crate) fn tile_edge_top_height(tile: &Tile, face: Face) -> f32 {
        if tile.insets == Faces::default() {
            // Only the edge's corners, each as `heights` works it out with no insets (adding a
            // zero inset to a sum of whole levels changes no bit).
            let base = f32::from(tile.z);
            let (h, b) = (&tile.heights, &tile.baselines);
            let corner = |height: u8, baseline: u8| (base + f32::from(height)).max(base + f32::from(baseline));
            let edge = |one: f32, other: f32| (one + other) * 0.5;
            return match face {
                Face::NegX => edge(corner(h.x0y0, b.x0y0), corner(h.x0y1, b.x0y1)),
                Face::PosX => edge(corner(h.x1y0, b.x1y0), corner(h.x1y1, b.x1y1)),
                Face::NegY => edge(corner(h.x0y0, b.x0y0), corner(h.x1y0, b.x1y0)),
                Face::PosY => edge(corner(h.x0y1, b.x0y1), corner(h.x1y1, b.x1y1)),
                Face::Bottom | Face::Top => {
                    (corner(h.x0y0, b.x0y0) + corner(h.x1y0, b.x1y0) + corner(h.x0y1, b.x0y1) + corner(h.x1y1, b.x1y1))
                        * 0.25
                }
            };
        }
        let (bottom_inset, top_inset) = (clamped_inset(tile.insets.bottom), clamped_inset(tile.insets.top));
        let (bottom, top) = Self::heights(tile, bottom_inset, top_inset);
        let solid = Self { x_min: 0.0, x_max: 0.0, y_min: 0.0, y_max: 0.0, bottom, top };
        solid.edge_top_height(face)
    }

    /// Whether the top is split along x0y0–x1y1 (else along x1y0–x0y1).
    pub fn top_uses_main_diagonal(&self) -> bool {
        let t = &self.top;
        (t.x1y0 - t.x0y1).abs() >= (t.x0y0 - t.x1y1).abs()
    }

    /// Whether the bottom is split along x0y0–x1y1 (else along x1y0–x0y1).
    pub fn bottom_uses_main_diagonal(&self) -> bool {
        let b = &self.bottom;
        (b.x1y0 - b.x0y1).abs() >= (b.x0y0 - b.x1y1).abs()
    }

    /// The four corners of `face`, counter-clockwise seen from outside; the quad's two
    /// triangles are (0, 1, 2) and (0, 2, 3).
    pub fn face_quad(&self, face: Face) -> [[f32; 3]; 4] {
        let (x0, x1, y0, y1) = (self.x_min, self.x_max, self.y_min, self.y_max);
        let (b, t) = (&self.bottom, &self.top);
        match face {
            Face::NegX => [[x0, y1, b.x0y1], [x0, y0, b.x0y0], [x0, y0, t.x0y0], [x0, y1, t.x0y1]],
            Face::PosX => [[x1, y0, b.x1y0], [x1, y1, b.x1y1], [x1, y1, t.x1y1], [x1, y0, t.x1y0]],
            Face::NegY => [[x0, y0, b.x0y0], [x1, y0, b.x1y0], [x1, y0, t.x1y0], [x0, y0, t.x0y0]],
            Face::PosY => [[x1, y1, b.x1y1], [x0, y1, b.x0y1], [x0, y1, t.x0y1], [x1, y1, t.x1y1]],
            Face::Top if self.top_uses_main_diagonal() => {
                [[x0, y0, t.x0y0], [x1, y0, t.x1y0], [x1, y1, t.x1y1], [x0, y1, t.x0y1]]
            }
            Face::Top => [[x1, y0, t.x1y0], [x1, y1, t.x1y1], [x0, y1, t.x0y1], [x0, y0, t.x0y0]],
            Face::Bottom if self.bottom_uses_main_diagonal() => {
                [[x0, y0, b.x0y0], [x0, y1, b.x0y1], [x1, y1, b.x1y1], [x1, y0, b.x1y0]]
            }
            Face::Bottom => [[x1, y0, b.x1y0], [x0, y0, b.x0y0], [x0, y1, b.x0y1], [x1, y1, b.x1y1]],
        }
    }

    /// Whether (`grid_x`, `grid_y`) is on the footprint (edges included).
    pub fn footprint_contains(&self, grid_x: f32, grid_y: f32) -> bool {
        (self.x_min..=self.x_max).contains(&grid_x) && (self.y_min..=self.y_max).contains(&grid_y)
    }

    /// The footprint's centre.
    pub fn footprint_centre(&self) -> (f32, f32) {
        ((self.x_min + self.x_max) * 0.5, (self.y_min + self.y_max) * 0.5)
    }

    /// Height of the top surface at (`grid_x`, `grid_y`), on the same two triangles the
    /// mesh draws; None off the footprint.
    pub fn top_height_at(&self, grid_x: f32, grid_y: f32) -> Option<f32> {
        if !self.footprint_contains(grid_x, grid_y) {
            return None;
        }
        let fraction = |value: f32, low: f32, high: f32| {
            if high > low { ((value - low) / (high - low)).clamp(0.0, 1.0) } else { 0.0 }
        };
        let u = fraction(grid_x, self.x_min, self.x_max);
        let v = fraction(grid_y, self.y_min, self.y_max);
        let t = &self.top;
        Some(if self.top_uses_main_diagonal() {
            if u >= v {
                t.x0y0 + u * (t.x1y0 - t.x0y0) + v * (t.x1y1 - t.x1y0)
            } else {
                t.x0y0 + v * (t.x0y1 - t.x0y0) + u * (t.x1y1 - t.x0y1)
            }
        } else if u + v <= 1.0 {
            t.x0y0 + u * (t.x1y0 - t.x0y0) + v * (t.x0y1 - t.x0y0)
        } else {
            t.x1y1 + (1.0 - u) * (t.x0y1 - t.x1y1) + (1.0 - v) * (t.x1y0 - t.x1y1)
        })
    }

    /// Height of the top surface at the middle of a side's edge (the mean of its two corners,
    /// `spec/srpgck.md` §b.2); for top and bottom, the mean of all four corners.
    pub fn edge_top_height(&self, face: Face) -> f32 {
        let t = &self.top;
        match face {
            Face::NegX => (t.x0y0 + t.x0y1) * 0.5,
            Face::PosX => (t.x1y0 + t.x1y1) * 0.5,
            Face::NegY => (t.x0y0 + t.x1y0) * 0.5,
            Face::PosY => (t.x0y1 + t.x1y1) * 0.5,
            Face::Bottom | Face::Top => (t.x0y0 + t.x1y0 + t.x0y1 + t.x1y1) * 0.25,
        }
    }

    /// Whether every top corner is at the same height.
    #[allow(clippy::float_cmp)] // heights are sums of small integers and one shared inset: exact
    pub fn top_is_flat(&self) -> bool {
        let t = &self.top;
        t.x0y0 == t.x1y0 && t.x0y0 == t.x0y1 && t.x0y0 == t.x1y1
    }

    /// Whether every bottom corner is at the same height.
    #[allow(clippy::float_cmp)] // as in `top_is_flat`
    pub fn bottom_is_flat(&self) -> bool {
        let b = &self.bottom;
        b.x0y0 == b.x1y0 && b.x0y0 == b.x0y1 && b.x0y0 == b.x1y1
    }

    /// Whether this footprint covers all of `other`'s.
    pub fn footprint_covers(&self, other: &Self) -> bool {
        self.x_min <= other.x_min && self.x_max >= other.x_max && self.y_min <= other.y_min && self.y_max >= other.y_max
    }

    /// The side face's span when it lies on the side of cell (`cell_x`, `cell_y`); None when
    /// the face is inset from the cell's side (or `face` is top or bottom).
    #[allow(clippy::float_cmp)] // an inset of exactly 0 puts the face exactly on the cell side
    pub(crate) fn side_span(&self, face: Face, cell_x: u16, cell_y: u16) -> Option<SideSpan> {
        let (x, y) = (f32::from(cell_x), f32::from(cell_y));
        let (b, t) = (&self.bottom, &self.top);
        match face {
            Face::NegX => (self.x_min == x).then_some(SideSpan {
                along_min: self.y_min,
                along_max: self.y_max,
                bottom: [b.x0y0, b.x0y1],
                top: [t.x0y0, t.x0y1],
            }),
            Face::PosX => (self.x_max == x + 1.0).then_some(SideSpan {
                along_min: self.y_min,
                along_max: self.y_max,
                bottom: [b.x1y0, b.x1y1],
                top: [t.x1y0, t.x1y1],
            }),
            Face::NegY => (self.y_min == y).then_some(SideSpan {
                along_min: self.x_min,
                along_max: self.x_max,
                bottom: [b.x0y0, b.x1y0],
                top: [t.x0y0, t.x1y0],
            }),
            Face::PosY => (self.y_max == y + 1.0).then_some(SideSpan {
                along_min: self.x_min,
                along_max: self.x_max,
                bottom: [b.x0y1, b.x1y1],
                top: [t.x0y1, t.x1y1],
            }),
            Face::Bottom | Face::Top => None,
        }
    }
}

/// Whether the neighbour spans `covers` (a chain of tiles on the far side of the same cell
/// side, bottom first) cover all of `face`. Conservative: a face is only reported covered
/// when the union of neighbour spans provably contains it at every point along the side.
pub(crate) fn side_covered<'a>(face: &SideSpan, covers: impl IntoIterator<Item = &'a SideSpan>) -> bool {
    // `reach` is a straight line along the side, below the union of the chain's spans, from
    // the face's bottom upwards; every span used must start at or below it at both ends
    // (then it does so everywhere between, both being straight).
    let mut reach = face.bottom;
    let covered = |reach: [f32; 2]| reach[0] >= face.top[0] && reach[1] >= face.top[1];
    if covered(reach) {
        return true;
    }
    for span in covers {
        if span.along_min > face.along_min || span.along_max < face.along_max {
            continue;
        }
        let (bottom_low, top_low) = span.heights_at(face.along_min);
        let (bottom_high, top_high) = span.heights_at(face.along_max);
        if bottom_low > reach[0] || bottom_high > reach[1] {
            continue;
        }
        // The union now covers up to max(reach, span top) everywhere; that maximum is not a
        // straight line when the two cross, so keep whichever of the two lines is higher overall.
        if top_low + top_high > reach[0] + reach[1] {
            reach = [top_low, top_high];
        }
        if covered(reach) {
            return true;
        }
    }
    false
}
