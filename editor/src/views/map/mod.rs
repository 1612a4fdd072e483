//! The tile-map view: a reusable widget drawing a [`TileMap`] in 3D on the CPU (see
//! [`render`]), with orbit, pan and zoom, isometric presets, Z-level slicing, a grid on the
//! edited level, hover picking through the runtime's ray `pick`, and overlays (tinted cells,
//! unit billboards and markers, prop boxes, a path, a line of sight; see [`overlay`]). The Tile
//! map tab ([`editor`]) adds the tools; a read-only preview uses [`map_view_ui`] alone.

pub mod camera;
pub mod editor;
pub mod gpu;
pub mod overlay;
pub mod palette;
pub mod palette_panel;
pub mod render;
pub mod tools;

use actforge_runtime::map::{Face, MapScale, PickHit, Spot, TileGrid, TileSolid, pick, standing_spots};
use actforge_runtime::model::TileMap;
use egui::{Color32, Pos2, Rect, Sense, Shape, Stroke};

use camera::{Camera, ViewFrame};
use palette::PaletteTextures;
use render::{FrameBuild, MapScene, Slicing};

/// A tinted standing spot: drawn on the top of the tile whose top is at `level` (sloped on a
/// ramp; see [`overlay::tint_corners`]), or as a flat square when no tile ends there.
#[derive(Clone, Debug, PartialEq)]
pub struct CellTint {
    /// Cell x.
    pub cell_x: u16,
    /// Cell y.
    pub cell_y: u16,
    /// The standing level (the top of the tile stood on).
    pub level: u16,
    /// Fill colour (with alpha).
    pub colour: Color32,
}

/// A unit standing on a spot: its art upright as a billboard, else a disc with a label.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitMarker {
    /// Cell x.
    pub cell_x: u16,
    /// Cell y.
    pub cell_y: u16,
    /// The standing level.
    pub level: u16,
    /// Text next to the unit.
    pub label: String,
    /// Team (or disc) colour: the disc, or the ring at a billboard's feet.
    pub colour: Color32,
    /// The acting (or selected) unit: drawn with a ring.
    pub active: bool,
    /// Facing in degrees counter-clockwise from +x, drawn as an arrow on the ground; None: none drawn.
    pub facing_degrees: Option<f32>,
    /// The unit's picture, relative to the project folder (`Unit.art`); None: a disc.
    pub art: Option<String>,
}

/// A prop: a translucent box of its size standing on a spot.
#[derive(Clone, Debug, PartialEq)]
pub struct PropBox {
    /// Cell x of the box's low corner.
    pub cell_x: u16,
    /// Cell y of the box's low corner.
    pub cell_y: u16,
    /// The level its bottom stands on.
    pub level: u16,
    /// Cells along x, cells along y, levels up.
    pub size: (u16, u16, u16),
    /// Text over the box.
    pub label: String,
    /// Box colour.
    pub colour: Color32,
}

/// A line of sight between two grid points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SightLine {
    /// The looker's eye (grid space).
    pub from: [f32; 3],
    /// The point looked at (grid space).
    pub to: [f32; 3],
    /// Whether nothing blocks it.
    pub clear: bool,
}

/// What is drawn over the map.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlays {
    /// Tinted cells (reachable tiles, targets).
    pub tinted_cells: Vec<CellTint>,
    /// Units.
    pub units: Vec<UnitMarker>,
    /// Props.
    pub props: Vec<PropBox>,
    /// A path, as grid points in order.
    pub path: Vec<[f32; 3]>,
    /// A line of sight.
    pub sight: Option<SightLine>,
}

/// The view's state: camera, edited level, slicing and the cached scene and frame.
#[derive(Debug)]
pub struct MapViewState {
    /// The camera.
    pub camera: Camera,
    /// The edited Z level: the grid is drawn on it, slicing cuts above it.
    pub edited_level: u16,
    /// What happens to the tiles above the edited level.
    pub slicing: Slicing,
    /// Draw the grid on the edited level.
    pub show_grid: bool,
    /// Dragging with the primary button orbits (read-only previews); else only the secondary does.
    pub primary_drag_orbits: bool,
    /// The project folder palette pictures are read from (None: pictures are not drawn).
    pub project_folder: Option<std::path::PathBuf>,
    /// The palette atlas.
    pub textures: PaletteTextures,
    /// Draw invisible tiles as wireframes (the Tile map tab); else they are not drawn (play).
    pub outline_invisible: bool,
    /// Unit pictures (billboards), read from the project folder.
    pub art: crate::preview::art::ArtCache,
    /// The caller's change counter of the map (e.g. the document's revision): while it and the
    /// cut stand, the map is taken as unchanged without comparing it. None: compare every frame.
    pub map_revision: Option<u64>,
    /// The revision and cut the scene was last synced at.
    synced: Option<(u64, Option<u16>)>,
    scene: Option<MapScene>,
    /// The map the camera was framed for.
    framed_for: Option<String>,
    build: FrameBuild,
    built_for: Option<(Camera, Rect, u64, Slicing, Option<egui::TextureId>)>,
    last_frame: Option<ViewFrame>,
    hovered: Option<PickHit>,
    /// The invisible tiles' solids and the scene revision they were gathered at.
    invisible: Option<(u64, Vec<TileSolid>)>,
    drawn_billboards: usize,
    /// The GPU path's chunk bookkeeping and GL store.
    gpu: gpu::GpuView,
    /// The renderer of the last frame.
    in_use: gpu::InUse,
}

impl Default for MapViewState {
    fn default() -> Self {
        Self {
            camera: Camera::default(),
            edited_level: 0,
            slicing: Slicing::ShowAll,
            show_grid: true,
            primary_drag_orbits: false,
            project_folder: None,
            textures: PaletteTextures::default(),
            outline_invisible: false,
            art: crate::preview::art::ArtCache::default(),
            map_revision: None,
            synced: None,
            scene: None,
            framed_for: None,
            build: FrameBuild::default(),
            built_for: None,
            last_frame: None,
            hovered: None,
            invisible: None,
            drawn_billboards: 0,
            gpu: gpu::GpuView::default(),
            in_use: gpu::InUse::None,
        }
    }
}

/// What happened in the view this frame.
#[derive(Debug)]
pub struct MapViewResponse {
    /// The widget's response (clicks, drags with the primary button).
    pub response: egui::Response,
    /// The face under the pointer (tiles above the edited level are not picked while sliced).
    pub hovered: Option<PickHit>,
    /// The cell of the edited level's plane under the pointer.
    pub hovered_cell: Option<(u16, u16)>,
    /// The face clicked with the primary button this frame.
    pub clicked: Option<PickHit>,
}

impl MapViewState {
    /// The projection of the last frame drawn (None before the first).
    pub fn last_frame(&self) -> Option<&ViewFrame> {
        self.last_frame.as_ref()
    }

    /// The face under the pointer in the last frame.
    pub fn hovered(&self) -> Option<PickHit> {
        self.hovered
    }

    /// The standing spot on the tile under the pointer in the last frame (its top).
    pub fn hover_cell_spot(&self, grid: &TileGrid) -> Option<Spot> {
        let hit = self.hovered?;
        let spots = standing_spots(grid, hit.cell_x, hit.cell_y);
        let tile = grid.column(i32::from(hit.cell_x), i32::from(hit.cell_y)).get(hit.tile_index)?;
        spots.iter().find(|spot| u32::from(spot.level) == tile.top_z()).or(spots.last()).copied()
    }

    /// The scene (grids and meshes) of the map drawn last.
    pub fn scene(&self) -> Option<&MapScene> {
        self.scene.as_ref()
    }

    /// Faces in the last built frame.
    pub fn drawn_faces(&self) -> usize {
        self.build.drawn_faces
    }

    /// Units drawn as pictures (billboards) in the last frame.
    pub fn drawn_billboards(&self) -> usize {
        self.drawn_billboards
    }

    /// Gathers the solids of the invisible tiles drawn (below the cut) again after a change.
    fn invisible_solids(&mut self) {
        let Some(scene) = self.scene.as_ref() else { return };
        if self.invisible.as_ref().is_none_or(|(revision, _)| *revision != scene.revision()) {
            let grid = scene.below_grid();
            let mut solids = Vec::new();
            for cell_y in 0..grid.depth() {
                for cell_x in 0..grid.width() {
                    let column = grid.column(i32::from(cell_x), i32::from(cell_y));
                    solids.extend(column.iter().filter(|t| t.invisible).map(|t| TileSolid::new(cell_x, cell_y, t)));
                }
            }
            self.invisible = Some((scene.revision(), solids));
        }
    }

    /// The renderer the last frame was drawn with.
    pub fn renderer(&self) -> &gpu::InUse {
        &self.in_use
    }

    /// Chunks packed for the GPU in the last GPU frame (0: nothing re-uploaded).
    pub fn packed_chunks(&self) -> usize {
        self.gpu.packed_last_frame()
    }

    /// Takes in `map` (re-meshing what changed) and, when the camera, size, map or `atlas`
    /// changed, rebuilds the projected mesh for `rect`. Returns the frame's projection. Public
    /// for the bench: this is the CPU cost of a frame.
    pub fn prepare(&mut self, map: &TileMap, rect: Rect, atlas: Option<egui::TextureId>) -> Option<ViewFrame> {
        self.sync_scene(map);
        let scene = self.scene.as_ref()?;
        let frame = self.camera.frame(rect);
        let key = (self.camera, rect, scene.revision(), self.slicing, atlas);
        if self.built_for != Some(key) {
            self.build.build(scene, &frame, self.slicing, atlas);
            self.built_for = Some(key);
        }
        self.last_frame = Some(frame);
        Some(frame)
    }

    /// The GPU path's [`MapViewState::prepare`]: takes in `map`, packs the chunks re-meshed
    /// since the last frame for upload and returns the projection and what the GPU draws.
    /// Public for the bench: this is the CPU cost of a GPU frame (everything before GL).
    pub fn prepare_gpu(
        &mut self,
        map: &TileMap,
        rect: Rect,
        atlas: Option<egui::TextureId>,
    ) -> Option<(ViewFrame, actforge_map_gl::DrawList)> {
        self.sync_scene(map);
        let scene = self.scene.as_ref()?;
        let frame = self.camera.frame(rect);
        let list = self.gpu.frame(scene, &frame, self.slicing, atlas);
        self.build.drawn_faces = gpu::GpuView::faces_of(scene, &list);
        // The CPU mesh is not kept up to date meanwhile: rebuild it if the CPU path takes over.
        self.built_for = None;
        self.last_frame = Some(frame);
        Some((frame, list))
    }

    /// Takes in `map`: re-meshes what changed (a new scene for another map) and frames the
    /// camera on a map seen for the first time.
    fn sync_scene(&mut self, map: &TileMap) {
        let cut = (self.slicing != Slicing::ShowAll).then_some(self.edited_level);
        let token = self.map_revision.map(|revision| (revision, cut));
        let tiles = self.textures.tile_counts();
        match &mut self.scene {
            Some(scene) if scene.map().id == map.id => {
                if token.is_none() || token != self.synced || scene.tiles() != tiles {
                    scene.sync_tiles(map, cut, tiles);
                }
            }
            _ => {
                self.scene = MapScene::with_tiles(map, cut, tiles);
                // A new scene counts its revisions from 0 again.
                self.invisible = None;
                self.gpu.scene_replaced();
            }
        }
        self.synced = token;
        if self.framed_for.as_deref() != Some(map.id.as_str()) {
            let scale = MapScale::of(map);
            let top = map.columns.iter().filter_map(|c| c.tiles.last()).map(|t| t.top_z() as f32).fold(1.0, f32::max);
            self.camera = Camera::framing([
                f32::from(map.width) * scale.cell_size,
                f32::from(map.depth) * scale.cell_size,
                top * scale.level_height,
            ]);
            self.framed_for = Some(map.id.as_str().to_owned());
        }
    }

    /// The depth-sorted mesh of the last frame.
    pub fn frame_mesh(&self) -> std::sync::Arc<egui::Mesh> {
        self.build.mesh.clone()
    }

    /// The face under a screen point in the last frame drawn.
    pub fn pick_at(&self, screen: Pos2) -> Option<PickHit> {
        let (frame, scene) = (self.last_frame.as_ref()?, self.scene.as_ref()?);
        let (origin, direction) = frame.ray(screen);
        pick(scene.below_grid(), MapScale::of(scene.map()), origin, direction, true)
    }

    /// The cell of the edited level's plane under a screen point in the last frame drawn.
    pub fn plane_cell_at(&self, screen: Pos2) -> Option<(u16, u16)> {
        let (frame, scene) = (self.last_frame.as_ref()?, self.scene.as_ref()?);
        let map = scene.map();
        let scale = MapScale::of(map);
        let (origin, direction) = frame.ray(screen);
        let plane_z = f32::from(self.edited_level) * scale.level_height;
        if direction[2].abs() < 1e-6 {
            return None;
        }
        let t = (plane_z - origin[2]) / direction[2];
        if t < 0.0 {
            return None;
        }
        let x = (origin[0] + direction[0] * t) / scale.cell_size;
        let y = (origin[1] + direction[1] * t) / scale.cell_size;
        let inside = (0.0..f32::from(map.width)).contains(&x) && (0.0..f32::from(map.depth)).contains(&y);
        inside.then(|| (x.floor() as u16, y.floor() as u16))
    }

    /// The screen point of a grid-space point in the last frame drawn.
    pub fn screen_of_grid(&self, grid_point: [f32; 3]) -> Option<Pos2> {
        let (frame, scene) = (self.last_frame.as_ref()?, self.scene.as_ref()?);
        frame.project(MapScale::of(scene.map()).world_from_grid(grid_point)).map(|(screen, _)| screen)
    }

    fn camera_input(&mut self, ui: &egui::Ui, response: &egui::Response) {
        let rect = response.rect;
        if response.dragged_by(egui::PointerButton::Secondary)
            || (self.primary_drag_orbits && response.dragged_by(egui::PointerButton::Primary))
        {
            if ui.input(|input| input.modifiers.shift) {
                self.camera.pan(response.drag_delta(), rect);
            } else {
                self.camera.orbit(response.drag_delta());
            }
        }
        if response.dragged_by(egui::PointerButton::Middle) {
            self.camera.pan(response.drag_delta(), rect);
        }
        if response.hovered() {
            let scroll = ui.input(|input| input.smooth_scroll_delta.y);
            if scroll != 0.0 {
                self.camera.zoom((scroll * 0.003).exp());
            }
        }
    }
}

/// Draws `map` with `overlays` into the space left in `ui`; the secondary button orbits
/// (with Shift: pans), the middle button pans, the wheel zooms.
pub fn map_view_ui(ui: &mut egui::Ui, state: &mut MapViewState, map: &TileMap, overlays: &Overlays) -> MapViewResponse {
    let size = ui.available_size().max(egui::vec2(64.0, 64.0));
    let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "Tile map view"));
    state.camera_input(ui, &response);
    if orbit_every_frame() {
        state.camera.orbit(egui::vec2(2.0, 0.0));
        ui.ctx().request_repaint();
    }
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, ui.visuals().extreme_bg_color);
    let atlas = state.textures.sync(ui.ctx(), map, state.project_folder.as_deref());
    let use_gpu = match (gpu::support_in(ui.ctx()), state.gpu.failure()) {
        (gpu::Support::Gpu, None) => Ok(()),
        (gpu::Support::Gpu, Some(why)) => Err(format!("GL failed: {why}")),
        (gpu::Support::Cpu(why), _) => Err(why),
    };
    let prepared = match use_gpu {
        Ok(()) => state.prepare_gpu(map, rect, atlas).map(|(frame, list)| {
            painter.add(actforge_map_gl::paint_callback(rect, state.gpu.map_gl(), list));
            // The shader is built at the first paint: if it fails, the next frame says so. A
            // view scrolled out of sight is not painted, so asking again would repaint forever.
            if !state.gpu.is_ready() && ui.is_rect_visible(rect) {
                ui.ctx().request_repaint();
            }
            state.in_use = gpu::InUse::Gpu;
            frame
        }),
        Err(why) => state.prepare(map, rect, atlas).inspect(|_| {
            if state.in_use == gpu::InUse::Gpu {
                // The GL side failed while drawing the last frame: show the CPU's at once.
                ui.ctx().request_repaint();
            }
            painter.add(Shape::Mesh(state.frame_mesh()));
            state.in_use = gpu::InUse::Cpu(why);
        }),
    };
    let Some(frame) = prepared else {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "This map has no valid size",
            egui::FontId::default(),
            Color32::RED,
        );
        return MapViewResponse { response, hovered: None, hovered_cell: None, clicked: None };
    };
    // Which renderer draws, small in a corner: a designer or tester can tell the two apart.
    painter.text(
        rect.right_bottom() + egui::vec2(-4.0, -2.0),
        egui::Align2::RIGHT_BOTTOM,
        state.in_use.label(),
        egui::FontId::proportional(10.0),
        ui.visuals().weak_text_color(),
    );
    let scale = MapScale::of(map);
    let project = |grid: [f32; 3]| frame.project(scale.world_from_grid(grid)).map(|(screen, _)| screen);
    if state.show_grid {
        draw_grid(&painter, map, f32::from(state.edited_level), &project, ui.visuals().weak_text_color());
    }
    state.art.set_folder(state.project_folder.as_deref());
    if state.outline_invisible {
        state.invisible_solids();
    }
    let mut billboards = 0;
    if let Some(scene) = state.scene.as_ref() {
        let text = ui.visuals().strong_text_color();
        let overlay_painter =
            overlay::OverlayPainter { painter: &painter, frame: &frame, scale, grid: scene.full_grid(), text };
        if state.outline_invisible
            && let Some((_, solids)) = &state.invisible
        {
            overlay_painter.wireframes(solids);
        }
        overlay_painter.ground(overlays);
        billboards = overlay_painter.standing(overlays, &state.art, ui.ctx());
    }
    state.drawn_billboards = billboards;
    let pointer = response.hover_pos();
    let hovered = pointer.and_then(|at| state.pick_at(at));
    let hovered_cell = pointer.and_then(|at| state.plane_cell_at(at));
    state.hovered = hovered;
    if let (Some(hit), Some(scene)) = (hovered, state.scene()) {
        outline_face(&painter, scene, &hit, &project);
    }
    let clicked = if response.clicked() { hovered } else { None };
    MapViewResponse { response, hovered, hovered_cell, clicked }
}

/// Whether `ACTFORGE_MAP_ORBIT=1` asks every map view to turn its camera a little each frame
/// (and to draw continuously): `scripts/map-fps.sh` measures frame rates with it.
fn orbit_every_frame() -> bool {
    static ORBIT: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ORBIT.get_or_init(|| std::env::var_os("ACTFORGE_MAP_ORBIT").is_some_and(|value| value == "1"))
}

fn outline_face(painter: &egui::Painter, scene: &MapScene, hit: &PickHit, project: &impl Fn([f32; 3]) -> Option<Pos2>) {
    let column = scene.below_grid().column(i32::from(hit.cell_x), i32::from(hit.cell_y));
    let Some(tile) = column.get(hit.tile_index) else { return };
    let quad = TileSolid::new(hit.cell_x, hit.cell_y, tile).face_quad(hit.face);
    let points: Option<Vec<Pos2>> = quad.into_iter().map(project).collect();
    if let Some(points) = points {
        let fill = if hit.face == Face::Top { Color32::from_white_alpha(40) } else { Color32::from_white_alpha(25) };
        painter.add(Shape::convex_polygon(points, fill, Stroke::new(2.0, Color32::from_rgb(255, 220, 80))));
    }
}

fn draw_grid(
    painter: &egui::Painter,
    map: &TileMap,
    level: f32,
    project: &impl Fn([f32; 3]) -> Option<Pos2>,
    colour: Color32,
) {
    let stroke = Stroke::new(1.0, colour.gamma_multiply(0.6));
    let (width, depth) = (f32::from(map.width), f32::from(map.depth));
    for x in 0..=map.width {
        let x = f32::from(x);
        if let (Some(a), Some(b)) = (project([x, 0.0, level]), project([x, depth, level])) {
            painter.line_segment([a, b], stroke);
        }
    }
    for y in 0..=map.depth {
        let y = f32::from(y);
        if let (Some(a), Some(b)) = (project([0.0, y, level]), project([width, y, level])) {
            painter.line_segment([a, b], stroke);
        }
    }
}
