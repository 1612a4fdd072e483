//! The map view's camera: orbit around a target, pan, zoom, four isometric presets, free
//! rotation, orthographic or perspective; projects world points to the screen and casts the
//! picking ray back through a screen point. World space is the runtime's (z up).

use egui::{Pos2, Rect, Vec2};
use serde::{Deserialize, Serialize};

/// How the view projects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Projection {
    /// Parallel lines stay parallel (the classic tactics look).
    #[default]
    Orthographic,
    /// Far things are smaller.
    Perspective,
}

/// Pitch of the isometric presets: the true isometric angle, atan(1/√2).
pub const ISO_PITCH_RADIANS: f32 = 0.615_479_7;

/// Lowest and highest pitch free rotation allows: never level with the ground, never straight down.
const PITCH_RANGE_RADIANS: (f32, f32) = (0.08, 1.55);

/// Nearest depth drawn in perspective (world units in front of the eye).
pub const NEAR_DEPTH: f32 = 0.05;

/// An orbiting camera.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Camera {
    /// The world point looked at and orbited around.
    pub target: [f32; 3],
    /// Angle around z from +x to the eye, in radians.
    pub yaw_radians: f32,
    /// Angle above the ground plane of the eye, in radians.
    pub pitch_radians: f32,
    /// World distance from the target to the eye.
    pub distance: f32,
    /// Orthographic or perspective.
    pub projection: Projection,
    /// Field of view across the view's shorter side (perspective), also setting the orthographic
    /// scale at the target.
    pub fov_y_radians: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            target: [5.0, 5.0, 0.0],
            yaw_radians: iso_yaw(0),
            pitch_radians: ISO_PITCH_RADIANS,
            distance: 20.0,
            projection: Projection::Orthographic,
            fov_y_radians: 0.8,
        }
    }
}

/// The yaw of isometric preset `preset` (0..4, a quarter turn apart; 0 looks from −x −y).
pub fn iso_yaw(preset: u8) -> f32 {
    // Preset 0 puts the eye at −x −y: the origin corner is nearest.
    std::f32::consts::FRAC_PI_4 * 5.0 + std::f32::consts::FRAC_PI_2 * f32::from(preset % 4)
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

fn normalized(a: [f32; 3]) -> [f32; 3] {
    let length = dot(a, a).sqrt();
    if length > 0.0 && length.is_finite() { a.map(|c| c / length) } else { [0.0, 0.0, 1.0] }
}

fn add_scaled(a: [f32; 3], b: [f32; 3], s: f32) -> [f32; 3] {
    [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s]
}

impl Camera {
    /// The camera framing a `width` × `depth` × `height` (world units) box from isometric preset 0.
    pub fn framing(size: [f32; 3]) -> Self {
        let [width, depth, height] = size;
        let radius = (width * width + depth * depth + height * height).sqrt().max(1.0) * 0.5;
        let fov = Self::default().fov_y_radians;
        Self {
            target: [width * 0.5, depth * 0.5, height * 0.25],
            distance: radius / (fov * 0.5).tan(),
            ..Self::default()
        }
    }

    /// Looks from isometric preset `preset` (0..4), keeping target, distance and projection.
    pub fn set_iso_preset(&mut self, preset: u8) {
        self.yaw_radians = iso_yaw(preset);
        self.pitch_radians = ISO_PITCH_RADIANS;
    }

    /// Turns around the target by a screen drag (points).
    pub fn orbit(&mut self, drag: Vec2) {
        self.yaw_radians = (self.yaw_radians - drag.x * 0.01).rem_euclid(std::f32::consts::TAU);
        self.pitch_radians = (self.pitch_radians + drag.y * 0.01).clamp(PITCH_RANGE_RADIANS.0, PITCH_RANGE_RADIANS.1);
    }

    /// Moves the target so the scene follows a screen drag (points) in a view of `rect`.
    pub fn pan(&mut self, drag: Vec2, rect: Rect) {
        let frame = self.frame(rect);
        let per_point = 1.0 / frame.pixels_per_unit_at_target.max(1e-6);
        self.target = add_scaled(self.target, frame.right, -drag.x * per_point);
        self.target = add_scaled(self.target, frame.up, drag.y * per_point);
    }

    /// Zooms by `factor` (> 1 comes closer).
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance / factor).clamp(0.5, 5000.0);
        }
    }

    /// The eye's unit offset from the target.
    fn eye_direction(&self) -> [f32; 3] {
        let (sin_yaw, cos_yaw) = self.yaw_radians.sin_cos();
        let (sin_pitch, cos_pitch) = self.pitch_radians.sin_cos();
        [cos_pitch * cos_yaw, cos_pitch * sin_yaw, sin_pitch]
    }

    /// The projection of this camera into the screen rectangle `rect`.
    pub fn frame(&self, rect: Rect) -> ViewFrame {
        let offset = self.eye_direction();
        let eye = add_scaled(self.target, offset, self.distance);
        let forward = offset.map(|c| -c);
        let right = normalized(cross(forward, [0.0, 0.0, 1.0]));
        let up = cross(right, forward);
        // The field of view spans the shorter side, so a framed map fits a narrow view too.
        let focal = rect.width().min(rect.height()).max(1.0) / (2.0 * (self.fov_y_radians * 0.5).tan().max(1e-3));
        ViewFrame {
            eye,
            forward,
            right,
            up,
            centre: rect.center(),
            rect,
            focal,
            orthographic: self.projection == Projection::Orthographic,
            pixels_per_unit_at_target: focal / self.distance.max(1e-3),
        }
    }
}

/// A camera fixed to a screen rectangle: world → screen and screen → ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ViewFrame {
    /// The eye (world).
    pub eye: [f32; 3],
    /// Unit view direction.
    pub forward: [f32; 3],
    /// Unit screen-right direction (world).
    pub right: [f32; 3],
    /// Unit screen-up direction (world).
    pub up: [f32; 3],
    /// Screen point the view direction goes through.
    pub centre: Pos2,
    /// The view's screen rectangle.
    pub rect: Rect,
    /// Perspective focal length, in points.
    pub focal: f32,
    /// Orthographic projection.
    pub orthographic: bool,
    /// Points per world unit at the target's depth (the orthographic scale).
    pub pixels_per_unit_at_target: f32,
}

impl ViewFrame {
    /// The screen point and the depth (world units along the view direction) of a world point;
    /// None behind the near plane in perspective.
    pub fn project(&self, world: [f32; 3]) -> Option<(Pos2, f32)> {
        let d = sub(world, self.eye);
        let depth = dot(d, self.forward);
        let (x, y) = (dot(d, self.right), dot(d, self.up));
        let scale = if self.orthographic {
            self.pixels_per_unit_at_target
        } else {
            if depth < NEAR_DEPTH {
                return None;
            }
            self.focal / depth
        };
        Some((Pos2::new(self.centre.x + x * scale, self.centre.y - y * scale), depth))
    }

    /// Whether a face through `world_point` with outward `normal` looks away from the eye.
    pub fn faces_away(&self, world_point: [f32; 3], normal: [f32; 3]) -> bool {
        if self.orthographic {
            dot(normal, self.forward) >= 0.0
        } else {
            dot(normal, sub(world_point, self.eye)) >= 0.0
        }
    }

    /// The world-space ray (origin, unit direction) through a screen point.
    pub fn ray(&self, screen: Pos2) -> ([f32; 3], [f32; 3]) {
        let (x, y) = (screen.x - self.centre.x, self.centre.y - screen.y);
        if self.orthographic {
            let scale = self.pixels_per_unit_at_target.max(1e-6);
            let on_plane = add_scaled(add_scaled(self.eye, self.right, x / scale), self.up, y / scale);
            // Start well behind the eye: an orthographic view sees what is behind it too (the
            // runtime's pick brings a far origin to the map's box before testing faces).
            (add_scaled(on_plane, self.forward, -10_000.0), self.forward)
        } else {
            let direction = add_scaled(add_scaled(self.forward, self.right, x / self.focal), self.up, y / self.focal);
            (self.eye, normalized(direction))
        }
    }
}
