//! The map view's GPU path, safe side: which renderer draws (the window's support, the
//! `ACTFORGE_MAP_RENDERER` setting, a failed shader), the camera as a GL matrix equal to the
//! CPU projection ([`ViewFrame`]), and the chunk bookkeeping: a chunk's vertex data is packed
//! and queued for upload only when the scene re-meshed it (its stamp changed). The GL calls
//! themselves are in the `actforge-map-gl` crate.

use std::collections::BTreeMap;

use actforge_map_gl::{ChunkUpload, DrawList, SharedMapGl, VERTEX_BYTES};
use actforge_runtime::map::{ChunkKey, MeshBuffers};
use egui::Color32;

use super::camera::{NEAR_DEPTH, ViewFrame};
use super::render::{GHOST_ALPHA, MapScene, Slicing};

/// The environment variable choosing the map renderer: `cpu`, `gpu` or `auto` (unset: auto).
pub const RENDERER_ENV: &str = "ACTFORGE_MAP_RENDERER";

/// What the designer (or a test script) asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Preference {
    /// The GPU when the window offers it, else the CPU.
    #[default]
    Auto,
    /// Always the CPU.
    Cpu,
    /// The GPU (still the CPU when the window cannot: there is nothing else to draw with).
    Gpu,
}

impl Preference {
    /// The preference an `ACTFORGE_MAP_RENDERER` value names (None: unset); an error names a
    /// value that is none of `cpu`, `gpu`, `auto`.
    pub fn parse(value: Option<&str>) -> Result<Self, String> {
        match value.map(|value| value.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "auto") => Ok(Self::Auto),
            Some("cpu") => Ok(Self::Cpu),
            Some("gpu") => Ok(Self::Gpu),
            Some(other) => Err(format!("{RENDERER_ENV}={other} is not cpu, gpu or auto: taken as auto")),
        }
    }
}

/// What the window's GL context offers, probed once when the window opens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlReport {
    /// Bits of the depth buffer (0: none).
    pub depth_bits: u32,
    /// Whether the map shader compiled and linked (the compiler's message if not).
    pub shader: Result<(), String>,
}

/// Which renderer the map views use, and why the CPU one when it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// The GPU path.
    Gpu,
    /// The CPU path, for the reason given.
    Cpu(String),
}

/// The renderer for `preference` in a window whose GL context reports `gl` (None: no GL
/// context, as in headless tests).
pub fn choose(preference: Preference, gl: Option<&GlReport>) -> Support {
    if preference == Preference::Cpu {
        return Support::Cpu(format!("{RENDERER_ENV}=cpu"));
    }
    let Some(gl) = gl else { return Support::Cpu("no OpenGL context".to_owned()) };
    if gl.depth_bits == 0 {
        return Support::Cpu("the window has no depth buffer".to_owned());
    }
    match &gl.shader {
        Ok(()) => Support::Gpu,
        Err(why) => Support::Cpu(format!("the map shader failed: {why}")),
    }
}

fn support_id() -> egui::Id {
    egui::Id::new("actforge_map_renderer_support")
}

/// Decides the renderer of every map view in `ctx` from the environment and the window's GL
/// context (None: none): call once when the window opens. Without it views draw on the CPU.
pub fn install(ctx: &egui::Context, gl: Option<&eframe::glow::Context>) {
    let value = std::env::var(RENDERER_ENV).ok();
    let preference = Preference::parse(value.as_deref()).unwrap_or_else(|warning| {
        eprintln!("warning: {warning}");
        Preference::Auto
    });
    let report =
        gl.map(|gl| GlReport { depth_bits: actforge_map_gl::depth_bits(gl), shader: actforge_map_gl::probe(gl) });
    let support = choose(preference, report.as_ref());
    if let Support::Cpu(why) = &support
        && preference != Preference::Cpu
    {
        eprintln!("note: the map view draws on the CPU: {why}");
    }
    ctx.data_mut(|data| data.insert_temp(support_id(), support));
}

/// The renderer decided for `ctx` (the CPU when [`install`] was not called).
pub fn support_in(ctx: &egui::Context) -> Support {
    ctx.data(|data| data.get_temp(support_id())).unwrap_or_else(|| Support::Cpu("no OpenGL context".to_owned()))
}

/// The renderer a view drew its last frame with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum InUse {
    /// Nothing drawn yet.
    #[default]
    None,
    /// The GPU path.
    Gpu,
    /// The CPU path, for the reason given.
    Cpu(String),
}

impl InUse {
    /// A short text for the view's corner.
    pub fn label(&self) -> String {
        match self {
            Self::None => String::new(),
            Self::Gpu => "GPU".to_owned(),
            Self::Cpu(why) => format!("CPU ({why})"),
        }
    }
}

/// The world box the map's tiles lie in: (min, max) corners.
pub type Bounds = ([f32; 3], [f32; 3]);

/// Depth range (near, far) along the view direction that holds `bounds`, as the CPU path draws
/// it: everything in orthographic views (which see behind the eye too), from
/// [`NEAR_DEPTH`] in perspective.
fn depth_range(frame: &ViewFrame, (low, high): Bounds) -> (f32, f32) {
    let (mut nearest, mut farthest) = (f32::INFINITY, f32::NEG_INFINITY);
    for corner in 0..8 {
        let point = [
            if corner & 1 == 0 { low[0] } else { high[0] },
            if corner & 2 == 0 { low[1] } else { high[1] },
            if corner & 4 == 0 { low[2] } else { high[2] },
        ];
        let [x, y, z] = point;
        let ([eye_x, eye_y, eye_z], [forward_x, forward_y, forward_z]) = (frame.eye, frame.forward);
        let depth = (x - eye_x) * forward_x + (y - eye_y) * forward_y + (z - eye_z) * forward_z;
        nearest = nearest.min(depth);
        farthest = farthest.max(depth);
    }
    let margin = (farthest - nearest).abs() * 0.01 + 0.01;
    let (mut near, mut far) = (nearest - margin, farthest + margin);
    if !frame.orthographic {
        near = near.max(NEAR_DEPTH);
    }
    if far <= near || !near.is_finite() || !far.is_finite() {
        far = near.max(NEAR_DEPTH) + 1.0;
    }
    (near, far)
}

/// World → clip space for GL (column-major) such that a point lands on the screen point
/// [`ViewFrame::project`] gives it inside `frame.rect` (the paint callback's viewport), with a
/// depth range covering `bounds`.
pub fn view_projection(frame: &ViewFrame, bounds: Bounds) -> [f32; 16] {
    let (width, height) = (frame.rect.width().max(1.0), frame.rect.height().max(1.0));
    let (near, far) = depth_range(frame, bounds);
    let dot = |a: [f32; 3], b: [f32; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let (right, up, forward, eye) = (frame.right, frame.up, frame.forward, frame.eye);
    // Rows of the matrix: clip = row · (p, 1); p − eye is folded into the last column.
    let row = |axis: [f32; 3], scale: f32, offset: f32| {
        [axis[0] * scale, axis[1] * scale, axis[2] * scale, -dot(axis, eye) * scale + offset]
    };
    // The CPU centres the view on `frame.centre`, which is the rect's centre.
    let rows = if frame.orthographic {
        let scale = frame.pixels_per_unit_at_target;
        let z_scale = 2.0 / (far - near);
        [
            row(right, 2.0 * scale / width, 0.0),
            row(up, 2.0 * scale / height, 0.0),
            row(forward, z_scale, -near * z_scale - 1.0),
            [0.0, 0.0, 0.0, 1.0],
        ]
    } else {
        let (a, b) = ((far + near) / (far - near), -2.0 * far * near / (far - near));
        [
            row(right, 2.0 * frame.focal / width, 0.0),
            row(up, 2.0 * frame.focal / height, 0.0),
            row(forward, a, b),
            row(forward, 1.0, 0.0),
        ]
    };
    let mut matrix = [0.0; 16];
    for (at, value) in matrix.iter_mut().enumerate() {
        // Column-major: element (row r, column c) at c * 4 + r.
        let (column, row) = (at / 4, at % 4);
        *value = rows.get(row).and_then(|r| r.get(column)).copied().unwrap_or(0.0);
    }
    matrix
}

/// The screen point of `world` through `matrix` in `rect` (what GL draws), or None behind the eye.
pub fn screen_through(matrix: &[f32; 16], rect: egui::Rect, world: [f32; 3]) -> Option<egui::Pos2> {
    let clip: Vec<f32> = (0..4)
        .map(|row| {
            (0..4)
                .map(|column| {
                    let m = matrix.get(column * 4 + row).copied().unwrap_or(0.0);
                    m * world.get(column).copied().unwrap_or(1.0)
                })
                .sum()
        })
        .collect();
    let (x, y, w) = (clip.first()?, clip.get(1)?, clip.get(3)?);
    if *w <= 0.0 {
        return None;
    }
    let (ndc_x, ndc_y) = (x / w, y / w);
    Some(egui::pos2(rect.center().x + ndc_x * rect.width() * 0.5, rect.center().y - ndc_y * rect.height() * 0.5))
}

/// A chunk's GPU slot: the part of the scene (below or above the cut) and the chunk.
pub fn slot(above: bool, key: ChunkKey) -> u64 {
    (u64::from(above) << 32) | (u64::from(key.chunk_y) << 16) | u64::from(key.chunk_x)
}

/// Packs `buffers` into `out` in [`VERTEX_BYTES`] vertices: position, UV, colour premultiplied
/// as the CPU path's egui vertices are.
pub fn pack(buffers: &MeshBuffers, out: &mut ChunkUpload) {
    out.vertices.clear();
    out.vertices.reserve(buffers.positions.len() * VERTEX_BYTES);
    let vertices = buffers.positions.iter().zip(&buffers.uvs).zip(&buffers.colours);
    for ((position, uv), &[r, g, b, a]) in vertices {
        let mut vertex = [0_u8; VERTEX_BYTES];
        let floats = position.iter().chain(uv);
        for (bytes, value) in vertex.chunks_exact_mut(4).zip(floats) {
            bytes.copy_from_slice(&value.to_ne_bytes());
        }
        if let Some(colour) = vertex.get_mut(20..24) {
            colour.copy_from_slice(&Color32::from_rgba_unmultiplied(r, g, b, a).to_array());
        }
        out.vertices.extend_from_slice(&vertex);
    }
    out.indices.clone_from(&buffers.indices);
}

/// A view's GPU side: its GL chunks, and the stamp of each chunk handed over.
#[derive(Debug, Default)]
pub struct GpuView {
    /// The GL renderer's chunk store (made on the first GPU frame).
    map_gl: Option<SharedMapGl>,
    /// Slot → stamp of the chunk data handed over, and whether it had faces (an empty chunk
    /// meshed again while still empty is nothing to upload).
    handed: BTreeMap<u64, (u64, bool)>,
    /// Chunks packed in the last frame.
    packed_last_frame: usize,
    /// The scene revision the bounds were measured at, and the bounds.
    bounds: Option<(u64, Bounds)>,
}

impl GpuView {
    /// The chunk store, made on first use.
    pub fn map_gl(&mut self) -> &SharedMapGl {
        self.map_gl.get_or_insert_with(actforge_map_gl::shared)
    }

    /// Why the GL side failed (the view then draws on the CPU).
    pub fn failure(&self) -> Option<String> {
        let map_gl = self.map_gl.as_ref()?;
        let map_gl = map_gl.lock().ok()?;
        map_gl.failure().map(str::to_owned)
    }

    /// A new scene (another map) replaced the last: what was measured at its revisions is stale.
    pub fn scene_replaced(&mut self) {
        self.bounds = None;
    }

    /// Whether the GL side has painted (made its objects) yet; until then a failure could still
    /// come, so the view asks for another frame to show it.
    pub fn is_ready(&self) -> bool {
        self.map_gl.as_ref().and_then(|map_gl| map_gl.lock().ok()).is_some_and(|map_gl| map_gl.is_ready())
    }

    /// Chunks packed for upload in the last frame.
    pub fn packed_last_frame(&self) -> usize {
        self.packed_last_frame
    }

    /// The chunks of `scene` whose data has not been handed over at their current stamp,
    /// packed (None: a slot no longer in the scene, to delete). Marks them handed over.
    pub fn collect_uploads(&mut self, scene: &MapScene) -> Vec<(u64, Option<ChunkUpload>)> {
        let mut uploads = Vec::new();
        let mut seen = Vec::new();
        for above in [false, true] {
            for (chunk, stamp) in scene.stamped_chunks(above) {
                let slot = slot(above, chunk.key);
                seen.push(slot);
                let had_faces = match self.handed.get(&slot) {
                    Some(&(handed, _)) if handed == stamp => continue,
                    Some(&(_, had_faces)) => had_faces,
                    None => false,
                };
                let has_faces = !chunk.opaque.is_empty();
                self.handed.insert(slot, (stamp, has_faces));
                if has_faces {
                    let mut upload = ChunkUpload::default();
                    pack(&chunk.opaque, &mut upload);
                    uploads.push((slot, Some(upload)));
                } else if had_faces {
                    uploads.push((slot, None));
                }
            }
        }
        seen.sort_unstable();
        self.handed.retain(|slot, &mut (_, had_faces)| {
            let kept = seen.binary_search(slot).is_ok();
            if !kept && had_faces {
                uploads.push((*slot, None));
            }
            kept
        });
        uploads
    }

    /// Hands the changed chunks of `scene` to the GL side and returns what this frame draws.
    pub fn frame(
        &mut self,
        scene: &MapScene,
        frame: &ViewFrame,
        slicing: Slicing,
        atlas: Option<egui::TextureId>,
    ) -> DrawList {
        let uploads = self.collect_uploads(scene);
        self.packed_last_frame = uploads.iter().filter(|(_, upload)| upload.is_some()).count();
        if !uploads.is_empty() {
            let map_gl = self.map_gl();
            let mut map_gl = map_gl.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            for (slot, upload) in uploads {
                map_gl.queue(slot, upload);
            }
        }
        let bounds = match self.bounds {
            Some((revision, bounds)) if revision == scene.revision() => bounds,
            _ => {
                let bounds = bounds_of(scene);
                self.bounds = Some((scene.revision(), bounds));
                bounds
            }
        };
        let drawn = |above: bool| {
            scene
                .stamped_chunks(above)
                .filter(|(chunk, _)| !chunk.opaque.is_empty())
                .map(|(chunk, _)| slot(above, chunk.key))
                .collect::<Vec<_>>()
        };
        DrawList {
            view_projection: view_projection(frame, bounds),
            atlas,
            solid: drawn(false),
            ghost: if slicing == Slicing::GhostAbove { drawn(true) } else { Vec::new() },
            ghost_alpha: f32::from(GHOST_ALPHA) / 255.0,
        }
    }

    /// Faces in the chunks `list` draws.
    pub fn faces_of(scene: &MapScene, list: &DrawList) -> usize {
        [(false, &list.solid), (true, &list.ghost)]
            .into_iter()
            .flat_map(|(above, slots)| {
                scene
                    .stamped_chunks(above)
                    .filter(move |(chunk, _)| slots.contains(&slot(above, chunk.key)))
                    .map(|(chunk, _)| chunk.opaque.face_count())
            })
            .sum()
    }
}

/// The world box of the scene's meshes (the map's footprint, up to its highest tile).
fn bounds_of(scene: &MapScene) -> Bounds {
    let map = scene.map();
    let scale = actforge_runtime::map::MapScale::of(map);
    let top = scene.top_level() as f32;
    (
        [0.0, 0.0, 0.0],
        [f32::from(map.width) * scale.cell_size, f32::from(map.depth) * scale.cell_size, top * scale.level_height],
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::views::map::camera::{Camera, Projection};
    use actforge_runtime::model::{Column, Tile, TileMap};
    use std::sync::Arc;

    fn block_map(side: u16) -> TileMap {
        let columns = (0..side)
            .flat_map(|y| (0..side).map(move |x| Arc::new(Column { x, y, tiles: vec![Tile::cube(0), Tile::cube(1)] })))
            .collect();
        TileMap { id: "blocks".into(), width: side, depth: side, columns, ..TileMap::default() }
    }

    #[test]
    fn the_matrix_puts_points_where_the_cpu_projection_does() {
        let rect = egui::Rect::from_min_size(egui::pos2(30.0, 50.0), egui::vec2(900.0, 500.0));
        let bounds = ([0.0, 0.0, 0.0], [20.0, 16.0, 6.0]);
        for projection in [Projection::Orthographic, Projection::Perspective] {
            for (yaw, pitch) in [(0.3, 0.6), (2.5, 1.2), (4.4, 0.2)] {
                let camera = Camera {
                    target: [10.0, 8.0, 1.0],
                    yaw_radians: yaw,
                    pitch_radians: pitch,
                    distance: 30.0,
                    projection,
                    fov_y_radians: 0.8,
                };
                let frame = camera.frame(rect);
                let matrix = view_projection(&frame, bounds);
                for point in [[0.0, 0.0, 0.0], [20.0, 16.0, 6.0], [3.5, 12.25, 2.0], [10.0, 8.0, 1.0], [17.0, 1.0, 4.5]]
                {
                    let (cpu, _) = frame.project(point).unwrap();
                    let gpu = screen_through(&matrix, rect, point).unwrap();
                    assert!((cpu - gpu).length() < 0.01, "{projection:?} {yaw} {pitch} {point:?}: {cpu:?} vs {gpu:?}");
                }
            }
        }
    }

    #[test]
    fn the_depth_range_holds_the_map_and_nearer_means_smaller_depth() {
        let rect = egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(800.0, 600.0));
        let bounds = ([0.0, 0.0, 0.0], [20.0, 20.0, 5.0]);
        for projection in [Projection::Orthographic, Projection::Perspective] {
            let camera = Camera { projection, ..Camera::framing([20.0, 20.0, 5.0]) };
            let frame = camera.frame(rect);
            let matrix = view_projection(&frame, bounds);
            let ndc_z = |p: [f32; 3]| {
                let component =
                    |row: usize| (0..4).map(|c| matrix[c * 4 + row] * [p[0], p[1], p[2], 1.0][c]).sum::<f32>();
                component(2) / component(3)
            };
            for point in [[0.0, 0.0, 0.0], [20.0, 20.0, 5.0], [0.0, 20.0, 5.0], [20.0, 0.0, 0.0]] {
                let z = ndc_z(point);
                assert!((-1.0..=1.0).contains(&z), "{projection:?} {point:?}: {z}");
            }
            // The eye is at −x −y (preset 0): the origin corner is nearer than the far one.
            assert!(ndc_z([0.0, 0.0, 0.0]) < ndc_z([20.0, 20.0, 0.0]), "{projection:?}");
        }
    }

    #[test]
    fn a_tile_edit_hands_over_only_its_chunk() {
        let mut map = block_map(64);
        let mut scene = MapScene::new(&map, None).unwrap();
        let mut view = GpuView::default();
        let first = view.collect_uploads(&scene);
        // 2 × 2 chunks below the cut, each with faces; the 4 above are empty (nothing to upload).
        assert_eq!(first.len(), 4);
        assert!(first.iter().all(|(_, upload)| upload.is_some()));
        assert!(view.collect_uploads(&scene).is_empty(), "nothing changed, nothing handed over");
        // A cell inside chunk (1, 0), away from its borders.
        let column = map.columns.iter_mut().find(|c| (c.x, c.y) == (40, 10)).unwrap();
        Arc::make_mut(column).tiles.push(Tile::cube(2));
        assert!(scene.sync(&map, None));
        let second = view.collect_uploads(&scene);
        let slots: Vec<u64> = second.iter().map(|(slot, _)| *slot).collect();
        assert_eq!(slots, vec![slot(false, ChunkKey { chunk_x: 1, chunk_y: 0 })]);
        let upload = second[0].1.as_ref().unwrap();
        assert_eq!(upload.vertices.len(), scene.below_mesher().chunks()[1].opaque.positions.len() * VERTEX_BYTES);
    }

    #[test]
    fn the_scene_top_follows_edits_up_and_down() {
        let mut map = block_map(40);
        let mut scene = MapScene::new(&map, None).unwrap();
        assert_eq!(scene.top_level(), 2, "two unit cubes per column");
        let at = map.columns.iter().position(|c| (c.x, c.y) == (7, 9)).unwrap();
        Arc::make_mut(&mut map.columns[at]).tiles.push(Tile::cube(5));
        assert!(scene.sync(&map, None));
        assert_eq!(scene.top_level(), 6, "a cube at level 5 reaches 6");
        // An edit elsewhere keeps the top; removing the tall cube brings it back down.
        let other = map.columns.iter().position(|c| (c.x, c.y) == (30, 2)).unwrap();
        Arc::make_mut(&mut map.columns[other]).tiles.pop();
        assert!(scene.sync(&map, None));
        assert_eq!(scene.top_level(), 6);
        Arc::make_mut(&mut map.columns[at]).tiles.pop();
        assert!(scene.sync(&map, None));
        assert_eq!(scene.top_level(), 2);
        assert!((bounds_of(&scene).1[2] - 2.0 * map.level_height).abs() < 1e-6);
    }

    #[test]
    fn a_new_scene_hands_over_every_chunk_again() {
        let map = block_map(40);
        let mut view = GpuView::default();
        let scene = MapScene::new(&map, None).unwrap();
        assert!(!view.collect_uploads(&scene).is_empty());
        // Another cut: the scene is meshed again with new stamps.
        let scene = MapScene::new(&map, Some(0)).unwrap();
        let again = view.collect_uploads(&scene);
        assert_eq!(again.iter().filter(|(_, upload)| upload.is_some()).count(), 8, "4 chunks below, 4 above");
    }

    #[test]
    fn the_renderer_follows_the_setting_and_falls_back_to_the_cpu() {
        let fine = GlReport { depth_bits: 24, shader: Ok(()) };
        assert_eq!(Preference::parse(None), Ok(Preference::Auto));
        assert_eq!(Preference::parse(Some("CPU")), Ok(Preference::Cpu));
        assert_eq!(Preference::parse(Some("gpu")), Ok(Preference::Gpu));
        assert!(Preference::parse(Some("vulkan")).unwrap_err().contains("vulkan"));
        assert_eq!(choose(Preference::Auto, Some(&fine)), Support::Gpu);
        assert_eq!(choose(Preference::Gpu, Some(&fine)), Support::Gpu);
        assert_eq!(choose(Preference::Cpu, Some(&fine)), Support::Cpu("ACTFORGE_MAP_RENDERER=cpu".to_owned()));
        assert_eq!(choose(Preference::Gpu, None), Support::Cpu("no OpenGL context".to_owned()));
        let flat = GlReport { depth_bits: 0, shader: Ok(()) };
        assert_eq!(choose(Preference::Auto, Some(&flat)), Support::Cpu("the window has no depth buffer".to_owned()));
        let broken = GlReport { depth_bits: 24, shader: Err("0:1: syntax error".to_owned()) };
        assert!(matches!(choose(Preference::Auto, Some(&broken)), Support::Cpu(why) if why.contains("syntax error")));
        // Headless (no `install`): the CPU.
        assert_eq!(support_in(&egui::Context::default()), Support::Cpu("no OpenGL context".to_owned()));
    }
}
