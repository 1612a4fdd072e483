//! What the map view draws over the tile mesh: tints lying on the tops of the tiles they name
//! (sloped on ramps), units as billboards of their art (else discs) with a facing arrow, props
//! as boxes of their size, and invisible tiles as wireframes. Units and props are drawn from
//! the farthest to the nearest, so a nearer one covers a farther one.

use actforge_runtime::map::{Face, MapScale, TileGrid, TileSolid};
use actforge_runtime::model::Tile;
use egui::{Color32, Pos2, Rect, Shape, Stroke};

use super::camera::ViewFrame;
use super::{Overlays, PropBox, UnitMarker};
use crate::preview::art::{Art, ArtCache};

/// How far a tint stays inside its tile's footprint, in cells.
const TINT_INSET: f32 = 0.06;
/// How far a tint floats over the surface, in levels (so it is not hidden in the face).
const TINT_LIFT: f32 = 0.03;
/// A unit's height (its billboard, its disc's stalk), in levels.
pub const UNIT_HEIGHT: f32 = 1.5;

/// The tile a unit on the standing spot (`cell_x`, `cell_y`, `level`) stands on: the one whose
/// top is at `level`. None on bare ground (level 0) or when no tile ends there.
pub fn standing_tile(grid: &TileGrid, cell_x: u16, cell_y: u16, level: u16) -> Option<&Tile> {
    grid.column(i32::from(cell_x), i32::from(cell_y)).iter().find(|tile| tile.top_z() == u32::from(level))
}

/// The corners of a tint on a standing spot, grid space: its tile's top face moved in by a
/// margin and lifted a little, each corner at the height of the top there, so a tint on a ramp
/// lies on the slope. The order is the tile top's: triangles (0, 1, 2) and (0, 2, 3) split it
/// along the same diagonal the mesh does. Without a tile ending at `level`, a flat square.
pub fn tint_corners(grid: &TileGrid, cell_x: u16, cell_y: u16, level: u16) -> [[f32; 3]; 4] {
    let Some(tile) = standing_tile(grid, cell_x, cell_y, level) else {
        let (x, y, z) = (f32::from(cell_x), f32::from(cell_y), f32::from(level) + TINT_LIFT);
        let (low_x, high_x, low_y, high_y) =
            (x + TINT_INSET, x + 1.0 - TINT_INSET, y + TINT_INSET, y + 1.0 - TINT_INSET);
        return [[low_x, low_y, z], [high_x, low_y, z], [high_x, high_y, z], [low_x, high_y, z]];
    };
    let solid = TileSolid::new(cell_x, cell_y, tile);
    let (centre_x, centre_y) = solid.footprint_centre();
    let (half_x, half_y) = ((solid.x_max - solid.x_min) * 0.5, (solid.y_max - solid.y_min) * 0.5);
    solid.face_quad(Face::Top).map(|[x, y, z]| {
        let inward = |value: f32, centre: f32, half: f32| value + (centre - value).signum() * TINT_INSET.min(half);
        let (x, y) = (inward(x, centre_x, half_x), inward(y, centre_y, half_y));
        [x, y, solid.top_height_at(x, y).unwrap_or(z) + TINT_LIFT]
    })
}

/// Where a unit on the standing spot (`cell_x`, `cell_y`, `level`) has its feet, grid space:
/// the middle of its tile's top at the height there (on a ramp, below the spot's level).
pub fn foot_point(grid: &TileGrid, cell_x: u16, cell_y: u16, level: u16) -> [f32; 3] {
    let flat = [f32::from(cell_x) + 0.5, f32::from(cell_y) + 0.5, f32::from(level)];
    let Some(tile) = standing_tile(grid, cell_x, cell_y, level) else { return flat };
    let solid = TileSolid::new(cell_x, cell_y, tile);
    let (x, y) = solid.footprint_centre();
    solid.top_height_at(x, y).map_or(flat, |z| [x, y, z])
}

/// The twelve edges of a tile's solid, grid space.
pub fn solid_edges(solid: &TileSolid) -> [[[f32; 3]; 2]; 12] {
    let (x0, x1, y0, y1) = (solid.x_min, solid.x_max, solid.y_min, solid.y_max);
    let (b, t) = (&solid.bottom, &solid.top);
    let bottom = [[x0, y0, b.x0y0], [x1, y0, b.x1y0], [x1, y1, b.x1y1], [x0, y1, b.x0y1]];
    let top = [[x0, y0, t.x0y0], [x1, y0, t.x1y0], [x1, y1, t.x1y1], [x0, y1, t.x0y1]];
    let [b0, b1, b2, b3] = bottom;
    let [t0, t1, t2, t3] = top;
    [
        [b0, b1],
        [b1, b2],
        [b2, b3],
        [b3, b0],
        [t0, t1],
        [t1, t2],
        [t2, t3],
        [t3, t0],
        [b0, t0],
        [b1, t1],
        [b2, t2],
        [b3, t3],
    ]
}

/// The eight corners of a prop's box, grid space: x, y and z low (0) or high (1) by bit.
pub fn prop_corners(prop: &PropBox) -> [[f32; 3]; 8] {
    let (x, y, z) = (f32::from(prop.cell_x), f32::from(prop.cell_y), f32::from(prop.level));
    let (size_x, size_y, size_z) = prop.size;
    let far = [f32::from(size_x.max(1)), f32::from(size_y.max(1)), f32::from(size_z.max(1))];
    std::array::from_fn(|bits| {
        let pick = |bit: usize, low: f32, length: f32| if bits & (1 << bit) == 0 { low } else { low + length };
        [pick(0, x, far[0]), pick(1, y, far[1]), pick(2, z, far[2])]
    })
}

/// A box's faces by the corner numbers of [`prop_corners`] (drawn from both sides).
const BOX_FACES: [[usize; 4]; 6] = [[0, 2, 6, 4], [1, 3, 7, 5], [0, 1, 5, 4], [2, 3, 7, 6], [0, 1, 3, 2], [4, 5, 7, 6]];
/// A box's edges by corner numbers.
const BOX_EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

/// What draws the overlays of one frame.
pub(super) struct OverlayPainter<'a> {
    pub painter: &'a egui::Painter,
    pub frame: &'a ViewFrame,
    pub scale: MapScale,
    pub grid: &'a TileGrid,
    pub text: Color32,
}

impl OverlayPainter<'_> {
    fn project(&self, grid_point: [f32; 3]) -> Option<Pos2> {
        self.frame.project(self.scale.world_from_grid(grid_point)).map(|(screen, _)| screen)
    }

    fn depth(&self, grid_point: [f32; 3]) -> f32 {
        self.frame.project(self.scale.world_from_grid(grid_point)).map_or(f32::INFINITY, |(_, depth)| depth)
    }

    /// Tints, the path and the line of sight (flat things, under the units).
    pub fn ground(&self, overlays: &Overlays) {
        for tint in &overlays.tinted_cells {
            let corners = tint_corners(self.grid, tint.cell_x, tint.cell_y, tint.level);
            if let Some(points) = corners.into_iter().map(|p| self.project(p)).collect::<Option<Vec<Pos2>>>() {
                let mut mesh = egui::Mesh::default();
                for point in points {
                    mesh.colored_vertex(point, tint.colour);
                }
                mesh.add_triangle(0, 1, 2);
                mesh.add_triangle(0, 2, 3);
                self.painter.add(Shape::mesh(mesh));
            }
        }
        if overlays.path.len() >= 2
            && let Some(points) = overlays.path.iter().map(|&p| self.project(p)).collect::<Option<Vec<Pos2>>>()
        {
            self.painter.add(Shape::line(points, Stroke::new(3.0, Color32::from_rgb(250, 240, 120))));
        }
        if let Some(sight) = overlays.sight
            && let (Some(a), Some(b)) = (self.project(sight.from), self.project(sight.to))
        {
            let colour = if sight.clear { Color32::from_rgb(120, 230, 255) } else { Color32::from_rgb(255, 90, 90) };
            self.painter.add(Shape::dashed_line(&[a, b], Stroke::new(2.0, colour), 6.0, 4.0));
        }
    }

    /// Props and units, the farthest first. Returns how many units were drawn as billboards.
    pub fn standing(&self, overlays: &Overlays, art: &ArtCache, ctx: &egui::Context) -> usize {
        enum Thing<'a> {
            Prop(&'a PropBox),
            Unit(&'a UnitMarker, [f32; 3]),
        }
        let mut things: Vec<(f32, Thing<'_>)> = Vec::new();
        for prop in &overlays.props {
            let corners = prop_corners(prop);
            let centre = corners.iter().fold([0.0; 3], |[x, y, z], p| [x + p[0] / 8.0, y + p[1] / 8.0, z + p[2] / 8.0]);
            things.push((self.depth(centre), Thing::Prop(prop)));
        }
        for unit in &overlays.units {
            let foot = foot_point(self.grid, unit.cell_x, unit.cell_y, unit.level);
            things.push((self.depth(foot), Thing::Unit(unit, foot)));
        }
        things.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut billboards = 0;
        for (_, thing) in things {
            match thing {
                Thing::Prop(prop) => self.prop(prop),
                Thing::Unit(unit, foot) => {
                    let picture = unit.art.as_deref().and_then(|path| match art.get(ctx, path) {
                        Art::Ready(texture) => Some(texture),
                        Art::Loading | Art::Missing(_) => None,
                    });
                    if self.unit(unit, foot, picture.as_ref()) {
                        billboards += 1;
                    }
                }
            }
        }
        billboards
    }

    /// A prop: a translucent box in its colour, faces far to near, edges outlined, its label on top.
    fn prop(&self, prop: &PropBox) {
        let corners = prop_corners(prop);
        let [r, g, b, _] = prop.colour.to_srgba_unmultiplied();
        let fill = Color32::from_rgba_unmultiplied(r, g, b, 70);
        let mut faces: Vec<(f32, [usize; 4])> = BOX_FACES
            .iter()
            .map(|face| {
                let centre = face
                    .iter()
                    .filter_map(|&at| corners.get(at))
                    .fold([0.0; 3], |[x, y, z], p| [x + p[0] / 4.0, y + p[1] / 4.0, z + p[2] / 4.0]);
                (self.depth(centre), *face)
            })
            .collect();
        faces.sort_by(|a, b| b.0.total_cmp(&a.0));
        let screen: Option<Vec<Pos2>> = corners.iter().map(|&p| self.project(p)).collect();
        let Some(screen) = screen else { return };
        for (_, face) in faces {
            let points: Vec<Pos2> = face.iter().filter_map(|&at| screen.get(at).copied()).collect();
            self.painter.add(Shape::convex_polygon(points, fill, Stroke::NONE));
        }
        let edge = Stroke::new(1.5, Color32::from_rgb(r, g, b));
        for (a, b) in BOX_EDGES {
            if let (Some(&a), Some(&b)) = (screen.get(a), screen.get(b)) {
                self.painter.line_segment([a, b], edge);
            }
        }
        let (size_x, size_y, size_z) = prop.size;
        let top = [
            f32::from(prop.cell_x) + f32::from(size_x.max(1)) * 0.5,
            f32::from(prop.cell_y) + f32::from(size_y.max(1)) * 0.5,
            f32::from(prop.level) + f32::from(size_z.max(1)),
        ];
        if let Some(at) = self.project(top) {
            self.label(at, egui::Align2::CENTER_BOTTOM, &prop.label);
        }
    }

    /// A name over the map: dark-edged, so it reads on light and dark tiles alike.
    fn label(&self, at: Pos2, align: egui::Align2, text: &str) {
        let font = egui::FontId::proportional(12.0);
        self.painter.text(at + egui::vec2(1.0, 1.0), align, text, font.clone(), Color32::from_black_alpha(200));
        self.painter.text(at, align, text, font, self.text);
    }

    /// A ring lying on the ground around `foot`, `radius` cells wide.
    fn ring(&self, foot: [f32; 3], radius: f32, stroke: Stroke) {
        let points: Option<Vec<Pos2>> = (0..20)
            .map(|step| {
                let angle = step as f32 / 20.0 * std::f32::consts::TAU;
                self.project([foot[0] + radius * angle.cos(), foot[1] + radius * angle.sin(), foot[2] + TINT_LIFT])
            })
            .collect();
        if let Some(points) = points {
            self.painter.add(Shape::closed_line(points, stroke));
        }
    }

    /// A unit: its picture standing upright on `foot` when it has one (true), else a disc on a
    /// stalk; the team colour at the feet, the facing as an arrow on the ground, a ring when active.
    fn unit(&self, unit: &UnitMarker, foot: [f32; 3], picture: Option<&egui::TextureHandle>) -> bool {
        let (Some(feet), Some(head)) = (self.project(foot), self.project([foot[0], foot[1], foot[2] + UNIT_HEIGHT]))
        else {
            return false;
        };
        if let Some(degrees) = unit.facing_degrees {
            let (sin, cos) = degrees.to_radians().sin_cos();
            let at = |length: f32, across: f32| {
                self.project([
                    foot[0] + cos * length - sin * across,
                    foot[1] + sin * length + cos * across,
                    foot[2] + TINT_LIFT,
                ])
            };
            let stroke = Stroke::new(2.5, unit.colour);
            if let (Some(tail), Some(tip), Some(left), Some(right)) =
                (at(0.1, 0.0), at(0.48, 0.0), at(0.34, 0.1), at(0.34, -0.1))
            {
                self.painter.line_segment([tail, tip], stroke);
                self.painter.add(Shape::convex_polygon(vec![tip, left, right], unit.colour, Stroke::NONE));
            }
        }
        let height = (feet - head).length();
        if let Some(texture) = picture {
            self.ring(foot, 0.36, Stroke::new(3.0, unit.colour));
            let size = texture.size_vec2();
            let height = height.max(8.0);
            let width = if size.y > 0.0 { height * size.x / size.y } else { height };
            let rect = Rect::from_min_max(
                egui::pos2(feet.x - width * 0.5, feet.y - height),
                egui::pos2(feet.x + width * 0.5, feet.y),
            );
            let uv = Rect::from_min_max(Pos2::ZERO, egui::pos2(1.0, 1.0));
            self.painter.image(texture.id(), rect, uv, Color32::WHITE);
            if unit.active {
                self.ring(foot, 0.46, Stroke::new(2.0, Color32::from_rgb(255, 220, 80)));
            }
            let label_at = egui::pos2(rect.right() + 3.0, rect.center().y);
            self.label(label_at, egui::Align2::LEFT_CENTER, &unit.label);
            true
        } else {
            let radius = (height * 0.3).clamp(4.0, 18.0);
            let body = feet + (head - feet) * 0.5;
            self.painter.line_segment([feet, body], Stroke::new(2.0, unit.colour));
            self.painter.circle(body, radius, unit.colour, Stroke::new(1.5, Color32::BLACK));
            if unit.active {
                self.painter.circle_stroke(body, radius + 4.0, Stroke::new(2.0, Color32::from_rgb(255, 220, 80)));
            }
            let label_at = body + egui::vec2(radius + 3.0, 0.0);
            self.label(label_at, egui::Align2::LEFT_CENTER, &unit.label);
            false
        }
    }

    /// The edges of `solids` (invisible tiles: their collision, not drawn as faces).
    pub fn wireframes(&self, solids: &[TileSolid]) {
        let stroke = Stroke::new(1.0, Color32::from_rgba_unmultiplied(120, 220, 255, 170));
        for solid in solids {
            for [a, b] in solid_edges(solid) {
                if let (Some(a), Some(b)) = (self.project(a), self.project(b)) {
                    self.painter.line_segment([a, b], stroke);
                }
            }
        }
    }
}
