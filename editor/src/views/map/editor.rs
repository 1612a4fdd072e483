//! The Tile map tab: the map view plus the tools (build, reshape, paint, invisible, stamp,
//! markers), their options in a side panel, resizing and the runtime's overlays. Every brush
//! stroke is one undo step: each change during the stroke is an edit of the same gesture,
//! and releasing the button ends the gesture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use actforge_runtime::Kind;
use actforge_runtime::Project;
use actforge_runtime::engine::{Content, TacticsState};
use actforge_runtime::map::{Face, PickHit, SightParams, Spot, line_of_sight, spot_point, standing_spots};
use actforge_runtime::model::{Colour, Paint, PaletteEntry, PaletteId, Terrain, TileMap, Tileset};
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;

use super::render::Slicing;
use super::tools::{self, Corner, Region, TileRef, UnitPlacing, nearest_side};
use super::{CellTint, MapViewState, Overlays, PropBox, SightLine, UnitMarker, map_view_ui};
use crate::document::{Document, ItemKey, Op};
use crate::panels::inspector::InspectorAction;

/// A tool of the tab; number keys 1–6 pick them in this order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Tool {
    /// Add or remove tiles on the edited level.
    #[default]
    Build,
    /// Ramps, heights, baselines, insets.
    Reshape,
    /// Paint faces from the palette.
    Paint,
    /// Make tiles invisible (collision only) or visible.
    Invisible,
    /// Copy a rectangle and stamp it elsewhere.
    Stamp,
    /// Unit and prop markers.
    Markers,
}

impl Tool {
    /// Every tool, in number-key order.
    pub const ALL: [Tool; 6] = [Tool::Build, Tool::Reshape, Tool::Paint, Tool::Invisible, Tool::Stamp, Tool::Markers];

    /// The tool's name.
    pub fn label(self) -> &'static str {
        match self {
            Tool::Build => "Build",
            Tool::Reshape => "Reshape",
            Tool::Paint => "Paint",
            Tool::Invisible => "Invisible",
            Tool::Stamp => "Stamp",
            Tool::Markers => "Markers",
        }
    }

    fn icon(self) -> &'static str {
        match self {
            Tool::Build => icon::CUBE,
            Tool::Reshape => icon::MOUNTAINS,
            Tool::Paint => icon::PAINT_BRUSH,
            Tool::Invisible => icon::EYE_SLASH,
            Tool::Stamp => icon::STAMP,
            Tool::Markers => icon::MAP_PIN,
        }
    }
}

/// What the Build tool does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BuildMode {
    /// Click or drag adds tiles.
    #[default]
    Add,
    /// Click or drag removes tiles.
    Remove,
    /// Drag a rectangle of tiles.
    AddRectangle,
    /// Drag a rectangle to clear.
    RemoveRectangle,
}

/// What the Paint tool does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PaintMode {
    /// The face under the cursor.
    #[default]
    Face,
    /// Every face of the tile.
    Tile,
    /// The face and the connected faces of the same paint.
    FloodFill,
    /// Pick the paint of a face.
    Eyedropper,
}

/// What the Reshape tool does (click raises, Shift+click lowers).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReshapeMode {
    /// The top corner nearest the cursor.
    #[default]
    Corner,
    /// The top edge nearest the cursor.
    Edge,
    /// The whole top.
    Height,
    /// The bottom (baseline).
    Baseline,
    /// Set the inset of the clicked face.
    Inset,
}

/// What the Markers tool places.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MarkerMode {
    /// A unit placement.
    #[default]
    Unit,
    /// A prop.
    Prop,
    /// Remove the markers standing on the level under the cursor.
    Remove,
    /// Choose the unit the overlays follow.
    SelectUnit,
}

/// A stroke in progress: its undo gesture and what it last acted on.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Stroke {
    gesture: u64,
    /// The cell the stroke started on (rectangles).
    start_cell: Option<(u16, u16)>,
    /// The tile and face acted on last, so holding still does not repeat it.
    last: Option<(u16, u16, u16, Face)>,
}

/// The Tile map tab's state.
#[derive(Debug, Default)]
pub struct MapEditor {
    /// The view (camera, level, slicing).
    pub view: MapViewState,
    /// The active tool.
    pub tool: Tool,
    /// Build options.
    pub build_mode: BuildMode,
    /// Paint options.
    pub paint_mode: PaintMode,
    /// The palette entry and tile painted (None: unpainted).
    pub paint: Option<Paint>,
    /// The palette panel (entries, tiles, import by path).
    pub palette: super::palette_panel::PalettePanel,
    /// Reshape options.
    pub reshape_mode: ReshapeMode,
    /// The inset the Inset mode sets.
    pub inset: f32,
    /// Marker options.
    pub marker_mode: MarkerMode,
    /// The unit type placed.
    pub unit: String,
    /// The team of the units placed (empty: the unit's own).
    pub team: String,
    /// The facing of the units placed, degrees counter-clockwise from +x.
    pub facing_degrees: f32,
    /// The prop label placed.
    pub prop_label: String,
    /// The size of the props placed: cells along x, cells along y, levels up.
    pub prop_size: (u16, u16, u16),
    /// Copy (false) or stamp (true) with the Stamp tool.
    pub stamping: bool,
    /// The copied region.
    pub clipboard: Option<Region>,
    /// The placement the overlays follow: its cell and standing level.
    pub overlay_unit: Option<(u16, u16, u16)>,
    /// Show the reachable tiles of the overlay unit.
    pub show_reach: bool,
    /// Show the line of sight to the hovered tile.
    pub show_sight: bool,
    /// Show the path to the hovered tile.
    pub show_path: bool,
    /// Where the overlay unit can move, as the battle computes it (see `refresh_reach`).
    reach: Option<ReachCache>,
    resize_to: Option<(u16, u16, i32, i32)>,
    new_colour: Color32,
    stroke: Option<Stroke>,
    strokes: u64,
    /// The map the tab edits (by id).
    map_id: Option<String>,
    status: String,
    /// An "Import PNG…" dialog waiting for the designer.
    import_dialog: Option<Receiver<Vec<PathBuf>>>,
    /// What the last picture import said (errors stay until the next import).
    import_message: Option<(bool, String)>,
}

/// The overlay unit's moves at the start of a battle, for one document revision.
#[derive(Debug)]
struct ReachCache {
    revision: u64,
    unit: (u16, u16, u16),
    /// Each spot it can end on, with the route there.
    routes: BTreeMap<Spot, Vec<Spot>>,
    /// Why no moves could be computed (the project does not compile).
    problem: Option<String>,
}

/// The map the tab edits: the selected tile map, else the last one edited, else the first.
fn chosen_map<'a>(project: &'a Project, selection: Option<&ItemKey>, remembered: Option<&str>) -> Option<&'a TileMap> {
    selection
        .filter(|key| key.kind == Kind::TileMap)
        .and_then(|key| project.tile_maps.get(&key.id))
        .or_else(|| remembered.and_then(|id| project.tile_maps.get(id)))
        .or_else(|| project.tile_maps.iter().next())
}

fn colour32(colour: Colour) -> Color32 {
    if colour.a == 0 { Color32::WHITE } else { Color32::from_rgba_unmultiplied(colour.r, colour.g, colour.b, colour.a) }
}

impl MapEditor {
    /// The map the tab shows, by id.
    pub fn map_id(&self) -> Option<&str> {
        self.map_id.as_deref()
    }

    /// Draws the tab: tool panel left, the view in the middle. Palette pictures are read from
    /// and imported into `folder`, the project's folder. Edits go to `actions`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        document: Option<&Document>,
        folder: &Path,
        selection: Option<&ItemKey>,
        actions: &mut Vec<InspectorAction>,
    ) {
        let Some(document) = document else {
            ui.label("No project is open.");
            return;
        };
        let project = document.project();
        // The map changes only through the document: while its revision stands, the view
        // need not compare a large map with the one it drew.
        self.view.map_revision = Some(document.revision());
        let Some(map) = chosen_map(project, selection, self.map_id.as_deref()) else {
            ui.label("This project has no tile maps yet.");
            return;
        };
        self.map_id = Some(map.id.as_str().to_owned());
        if self.view.project_folder.as_deref() != Some(folder) {
            self.view.project_folder = Some(folder.to_owned());
        }
        self.view.outline_invisible = true;
        self.take_pictures(ui, folder, map, actions);
        self.keys(ui, map);
        egui::Panel::left("tile_map_tools").resizable(true).default_size(230.0).show(ui, |ui| {
            egui::ScrollArea::vertical().show(ui, |ui| self.side_panel_ui(ui, project, map, actions));
        });
        egui::Panel::bottom("tile_map_status").show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label(format!("{} · {}×{} · level {}", map.label, map.width, map.depth, self.view.edited_level));
                ui.separator();
                ui.label(RichText::new(&self.status).weak());
            });
        });
        self.refresh_reach(document, map);
        let overlays = self.overlays(project, map);
        let view = map_view_ui(ui, &mut self.view, map, &overlays);
        self.status = match (view.hovered, view.hovered_cell) {
            (Some(hit), _) => {
                format!("Cell ({}, {}) tile at level {} · {:?} face", hit.cell_x, hit.cell_y, hit.tile_z, hit.face)
            }
            (None, Some((x, y))) => format!("Cell ({x}, {y}) on level {}", self.view.edited_level),
            (None, None) => String::new(),
        };
        self.strokes_ui(ui, &view, map, actions);
    }

    /// Number keys pick a tool, Up/Down change the edited level (not while typing).
    fn keys(&mut self, ui: &egui::Ui, map: &TileMap) {
        if ui.ctx().egui_wants_keyboard_input() || !ui.ui_contains_pointer() {
            return;
        }
        let keys =
            [egui::Key::Num1, egui::Key::Num2, egui::Key::Num3, egui::Key::Num4, egui::Key::Num5, egui::Key::Num6];
        ui.input(|input| {
            for (key, tool) in keys.into_iter().zip(Tool::ALL) {
                if input.key_pressed(key) {
                    self.tool = tool;
                }
            }
            let top = map.columns.iter().filter_map(|c| c.tiles.last()).map(|t| t.top_z() as u16).max().unwrap_or(0);
            if input.key_pressed(egui::Key::ArrowUp) {
                self.view.edited_level = self.view.edited_level.saturating_add(1).min(top.saturating_add(8));
            }
            if input.key_pressed(egui::Key::ArrowDown) {
                self.view.edited_level = self.view.edited_level.saturating_sub(1);
            }
        });
    }

    fn next_gesture(&mut self) -> u64 {
        self.strokes += 1;
        egui::Id::new(("tile map stroke", self.strokes)).value()
    }

    /// Turns presses, drags and releases in the view into strokes of the active tool.
    fn strokes_ui(
        &mut self,
        ui: &egui::Ui,
        view: &super::MapViewResponse,
        map: &TileMap,
        actions: &mut Vec<InspectorAction>,
    ) {
        let primary_down = ui.input(|input| input.pointer.primary_down());
        let pressing = primary_down && (view.response.is_pointer_button_down_on() || self.stroke.is_some());
        let shift = ui.input(|input| input.modifiers.shift);
        if pressing || view.response.clicked() {
            let stroke = match self.stroke {
                Some(stroke) => stroke,
                None => Stroke { gesture: self.next_gesture(), start_cell: view.hovered_cell, last: None },
            };
            let stroke = self.stroke_step(stroke, view, map, shift, actions);
            self.stroke = Some(stroke);
        }
        if !pressing && let Some(stroke) = self.stroke.take() {
            self.finish_stroke(stroke, view, map, actions);
            actions.push(InspectorAction::EndGesture);
        }
    }

    /// One frame of a stroke: applies the tool where the cursor is, once per tile and face.
    fn stroke_step(
        &mut self,
        mut stroke: Stroke,
        view: &super::MapViewResponse,
        map: &TileMap,
        shift: bool,
        actions: &mut Vec<InspectorAction>,
    ) -> Stroke {
        let rectangle = matches!(self.build_mode, BuildMode::AddRectangle | BuildMode::RemoveRectangle);
        if (self.tool == Tool::Build && rectangle) || (self.tool == Tool::Stamp && !self.stamping) {
            return stroke; // applied when the button is released
        }
        let level = self.view.edited_level;
        // Markers stand on the tile top under the cursor (a bridge deck or the ground under it).
        let spot = if self.tool == Tool::Markers {
            self.view.scene().and_then(|scene| self.view.hover_cell_spot(scene.full_grid()))
        } else {
            None
        };
        let target = match (self.tool, spot, view.hovered, view.hovered_cell) {
            (Tool::Markers, Some(spot), _, _) => Some((spot.cell_x, spot.cell_y, spot.level, Face::Top)),
            (Tool::Build | Tool::Markers | Tool::Stamp, _, _, Some((x, y))) => Some((x, y, level, Face::Top)),
            (_, _, Some(hit), _) => Some((hit.cell_x, hit.cell_y, hit.tile_z, hit.face)),
            _ => None,
        };
        let Some(target) = target else { return stroke };
        if stroke.last == Some(target) {
            return stroke;
        }
        stroke.last = Some(target);
        let mut edited = map.clone();
        let label = self.apply_tool(&mut edited, view.hovered.as_ref(), target, shift);
        if let Some(label) = label
            && edited != *map
        {
            actions.push(InspectorAction::Edit { op: Op::put(Arc::new(edited)), label, gesture: Some(stroke.gesture) });
        }
        stroke
    }

    /// Applies the active tool at `target` (cell, level or tile base, face); returns the undo label.
    fn apply_tool(
        &mut self,
        map: &mut TileMap,
        hit: Option<&PickHit>,
        target: (u16, u16, u16, Face),
        shift: bool,
    ) -> Option<String> {
        let (x, y, z, face) = target;
        let at = TileRef { cell_x: x, cell_y: y, z };
        let delta = if shift { -1 } else { 1 };
        let across = hit.map_or((0.5, 0.5), |hit| (hit.grid_point[0] - f32::from(x), hit.grid_point[1] - f32::from(y)));
        let (changed, label) = match self.tool {
            Tool::Build if self.build_mode == BuildMode::Remove => {
                (tools::remove_tile_at_level(map, x, y, z), "Remove tiles")
            }
            Tool::Build => (tools::add_tile(map, x, y, z), "Add tiles"),
            Tool::Paint => match self.paint_mode {
                PaintMode::Face => (tools::paint_face(map, at, face, self.paint), "Paint faces"),
                PaintMode::Tile => (tools::paint_tile(map, at, self.paint), "Paint tiles"),
                PaintMode::FloodFill => (tools::flood_fill(map, at, face, self.paint), "Flood fill"),
                PaintMode::Eyedropper => {
                    if tools::tile(map, at).is_some() {
                        self.paint = tools::paint_of(map, at, face);
                    }
                    (false, "Eyedropper")
                }
            },
            Tool::Reshape => match self.reshape_mode {
                ReshapeMode::Corner => {
                    let corner = Corner::nearest(across.0, across.1);
                    (tools::raise_corners(map, at, &[corner], delta), "Reshape corner")
                }
                ReshapeMode::Edge => {
                    let side = if face == Face::Top { nearest_side(across.0, across.1) } else { face };
                    (tools::raise_corners(map, at, Corner::of_side(side), delta), "Reshape edge")
                }
                ReshapeMode::Height => {
                    (tools::raise_corners(map, at, Corner::of_side(Face::Top), delta), "Change tile height")
                }
                ReshapeMode::Baseline => (tools::raise_baseline(map, at, delta), "Change baseline"),
                ReshapeMode::Inset => (tools::set_inset(map, at, face, self.inset), "Set inset"),
            },
            Tool::Invisible => {
                let invisible = !tools::tile(map, at).is_some_and(|t| t.invisible);
                (tools::set_invisible(map, at, invisible), "Toggle invisible")
            }
            Tool::Stamp => match &self.clipboard {
                Some(region) => (tools::paste_region(map, region, x, y), "Stamp region"),
                None => (false, "Stamp region"),
            },
            Tool::Markers => self.apply_marker(map, x, y, z),
        };
        changed.then(|| label.to_owned())
    }

    fn apply_marker(&mut self, map: &mut TileMap, x: u16, y: u16, z: u16) -> (bool, &'static str) {
        match self.marker_mode {
            MarkerMode::Unit => {
                let placing = UnitPlacing {
                    unit: self.unit.clone(),
                    team: self.team.clone(),
                    facing_degrees: self.facing_degrees,
                };
                (tools::place_unit(map, (x, y, z), &placing), "Place unit")
            }
            MarkerMode::Prop => (tools::place_prop(map, (x, y, z), &self.prop_label, self.prop_size), "Place prop"),
            MarkerMode::Remove => (tools::remove_markers(map, (x, y, z)), "Remove markers"),
            MarkerMode::SelectUnit => {
                if map.placements.iter().any(|p| (p.x, p.y, tools::placement_level(map, p)) == (x, y, z)) {
                    self.overlay_unit = Some((x, y, z));
                }
                (false, "Select unit")
            }
        }
    }

    /// At release: rectangles and copies act on the cells between press and release.
    fn finish_stroke(
        &mut self,
        stroke: Stroke,
        view: &super::MapViewResponse,
        map: &TileMap,
        actions: &mut Vec<InspectorAction>,
    ) {
        let (Some(from), Some(to)) = (stroke.start_cell, view.hovered_cell) else { return };
        let level = self.view.edited_level;
        match (self.tool, self.build_mode) {
            (Tool::Build, BuildMode::AddRectangle | BuildMode::RemoveRectangle) => {
                let mut edited = map.clone();
                let add = self.build_mode == BuildMode::AddRectangle;
                if tools::fill_rect(&mut edited, from, to, level, add) {
                    let label = if add { "Add a rectangle of tiles" } else { "Clear a rectangle of tiles" };
                    let op = Op::put(Arc::new(edited));
                    actions.push(InspectorAction::Edit { op, label: label.to_owned(), gesture: Some(stroke.gesture) });
                }
            }
            (Tool::Stamp, _) if !self.stamping => {
                self.clipboard = Some(tools::copy_region(map, from, to));
                self.stamping = true;
            }
            _ => {}
        }
    }
}

/// Asks for PNG files to import (a file dialog on a worker thread; the answer comes later).
fn ask_pictures() -> Receiver<Vec<PathBuf>> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let dialog = rfd::AsyncFileDialog::new()
            .set_title("Import PNG pictures into the palette")
            .add_filter("PNG picture", &["png", "PNG"]);
        let picked = pollster::block_on(dialog.pick_files())
            .map(|files| files.iter().map(|file| file.path().to_path_buf()).collect())
            .unwrap_or_default();
        // The editor may have closed meanwhile: nobody to tell.
        let _ = sender.send(picked);
    });
    receiver
}

impl MapEditor {
    fn side_panel_ui(
        &mut self,
        ui: &mut egui::Ui,
        project: &Project,
        map: &TileMap,
        actions: &mut Vec<InspectorAction>,
    ) {
        ui.heading("Tools");
        ui.horizontal_wrapped(|ui| {
            for (number, tool) in Tool::ALL.into_iter().enumerate() {
                ui.selectable_value(&mut self.tool, tool, format!("{} {}", tool.icon(), tool.label()))
                    .on_hover_text(format!("Key {}", number + 1));
            }
        });
        ui.separator();
        match self.tool {
            Tool::Build => {
                ui.radio_value(&mut self.build_mode, BuildMode::Add, "Add tiles");
                ui.radio_value(&mut self.build_mode, BuildMode::Remove, "Remove tiles");
                ui.radio_value(&mut self.build_mode, BuildMode::AddRectangle, "Add a rectangle");
                ui.radio_value(&mut self.build_mode, BuildMode::RemoveRectangle, "Clear a rectangle");
            }
            Tool::Reshape => self.reshape_options_ui(ui),
            Tool::Paint => self.paint_options_ui(ui, map, actions),
            Tool::Invisible => {
                ui.label("Click a tile to make it invisible (collision only) or visible again.");
            }
            Tool::Stamp => {
                ui.radio_value(&mut self.stamping, false, "Copy a rectangle (drag)");
                ui.add_enabled_ui(self.clipboard.is_some(), |ui| {
                    ui.radio_value(&mut self.stamping, true, "Stamp (click or drag)")
                });
                if let Some(region) = &self.clipboard {
                    ui.label(format!("Copied {}×{} cells", region.width, region.depth));
                }
            }
            Tool::Markers => self.marker_options_ui(ui, project),
        }
        ui.separator();
        self.view_options_ui(ui, map);
        ui.separator();
        self.overlay_options_ui(ui, map);
        ui.separator();
        self.resize_ui(ui, map, actions);
    }

    fn reshape_options_ui(&mut self, ui: &mut egui::Ui) {
        ui.label("Click raises, Shift+click lowers.");
        ui.radio_value(&mut self.reshape_mode, ReshapeMode::Corner, "Corner (ramp)");
        ui.radio_value(&mut self.reshape_mode, ReshapeMode::Edge, "Edge (ramp)");
        ui.radio_value(&mut self.reshape_mode, ReshapeMode::Height, "Tile height");
        ui.radio_value(&mut self.reshape_mode, ReshapeMode::Baseline, "Baseline");
        ui.radio_value(&mut self.reshape_mode, ReshapeMode::Inset, "Face inset");
        if self.reshape_mode == ReshapeMode::Inset {
            ui.add(egui::Slider::new(&mut self.inset, 0.0..=0.9).text("Inset"));
        }
    }

    fn paint_options_ui(&mut self, ui: &mut egui::Ui, map: &TileMap, actions: &mut Vec<InspectorAction>) {
        ui.radio_value(&mut self.paint_mode, PaintMode::Face, "Paint a face");
        ui.radio_value(&mut self.paint_mode, PaintMode::Tile, "Paint all faces of a tile");
        ui.radio_value(&mut self.paint_mode, PaintMode::FloodFill, "Flood fill connected faces");
        ui.radio_value(&mut self.paint_mode, PaintMode::Eyedropper, "Eyedropper");
        ui.label(RichText::new("Palette").strong());
        self.palette.entries_ui(ui, map, &self.view.textures, &mut self.paint, actions);
        for problem in self.view.textures.problems() {
            ui.label(RichText::new(format!("{} {problem}", icon::WARNING)).color(ui.visuals().error_fg_color));
        }
        ui.horizontal(|ui| {
            let importing = self.import_dialog.is_some();
            let button = ui.add_enabled(!importing, egui::Button::new(format!("{} Import PNG…", icon::IMAGE)));
            if button.on_hover_text("Copy PNG pictures into the project's textures folder and add them to the palette; you can also drop PNG files on this tab").clicked() {
                self.import_dialog = Some(ask_pictures());
            }
        });
        if let Some((ok, message)) = &self.import_message {
            let colour = if *ok { ui.visuals().weak_text_color() } else { ui.visuals().error_fg_color };
            ui.label(RichText::new(message).color(colour));
        }
        let folder = self.view.project_folder.clone();
        if let Some((path, tileset)) = self.palette.import_ui(ui, folder.as_deref())
            && let Some(folder) = folder
        {
            self.import_with(&[path], tileset, &folder, map, actions);
        }
        ui.horizontal(|ui| {
            ui.color_edit_button_srgba(&mut self.new_colour);
            if ui.button("Add colour").clicked() {
                // Palette colours are opaque: a transparent one would mean "no tint".
                let [r, g, b, _] = self.new_colour.to_srgba_unmultiplied();
                let a = 255;
                let mut edited = map.clone();
                let entry = PaletteEntry {
                    id: PaletteId::default(),
                    label: format!("Colour {}", map.palette.len() + 1),
                    image: None,
                    tileset: None,
                    colour: Colour { r, g, b, a },
                    terrain: Terrain::default(),
                };
                let id = tools::add_palette_entry(&mut edited, entry);
                self.paint = Some(Paint { entry: id, tile: 0 });
                let op = Op::put(Arc::new(edited));
                actions.push(InspectorAction::Edit { op, label: "Add a palette colour".to_owned(), gesture: None });
            }
        });
    }

    /// Imports the pictures the dialog answered or the designer dropped on the tab.
    fn take_pictures(&mut self, ui: &egui::Ui, folder: &Path, map: &TileMap, actions: &mut Vec<InspectorAction>) {
        let mut paths: Vec<PathBuf> =
            ui.input(|input| input.raw.dropped_files.iter().map(|file| file.path().to_owned()).collect::<Vec<_>>());
        if let Some(receiver) = &self.import_dialog {
            match receiver.try_recv() {
                Ok(picked) => {
                    paths.extend(picked);
                    self.import_dialog = None;
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {
                    ui.ctx().request_repaint_after(std::time::Duration::from_millis(200));
                }
                Err(std::sync::mpsc::TryRecvError::Disconnected) => self.import_dialog = None,
            }
        }
        if !paths.is_empty() {
            self.import_pictures(&paths, folder, map, actions);
        }
    }

    /// Imports PNG files into the map's palette as one undo step and picks the last for painting.
    pub fn import_pictures(
        &mut self,
        paths: &[PathBuf],
        folder: &Path,
        map: &TileMap,
        actions: &mut Vec<InspectorAction>,
    ) {
        self.import_with(paths, None, folder, map, actions);
    }

    /// Imports PNG files, sliced by `tileset` when given, as one undo step; picks the last
    /// (its tile 0) for painting.
    fn import_with(
        &mut self,
        paths: &[PathBuf],
        tileset: Option<Tileset>,
        folder: &Path,
        map: &TileMap,
        actions: &mut Vec<InspectorAction>,
    ) {
        let mut edited = map.clone();
        let (mut added, mut problems) = (Vec::new(), Vec::new());
        for path in paths {
            match super::palette::import_png(folder, path, tileset) {
                Ok(entry) => {
                    added.push(entry.label.clone());
                    let id = tools::add_palette_entry(&mut edited, entry);
                    self.paint = Some(Paint { entry: id, tile: 0 });
                }
                Err(error) => problems.push(error.to_string()),
            }
        }
        if !added.is_empty() {
            self.tool = Tool::Paint;
            let label = format!("Import {} into the palette", added.join(", "));
            actions.push(InspectorAction::Edit { op: Op::put(Arc::new(edited)), label, gesture: None });
        }
        self.import_message = Some(if problems.is_empty() {
            (true, format!("Imported {}", added.join(", ")))
        } else {
            (false, problems.join("\n"))
        });
    }

    fn marker_options_ui(&mut self, ui: &mut egui::Ui, project: &Project) {
        ui.radio_value(&mut self.marker_mode, MarkerMode::Unit, "Place a unit");
        ui.radio_value(&mut self.marker_mode, MarkerMode::Prop, "Place a prop");
        ui.radio_value(&mut self.marker_mode, MarkerMode::Remove, "Remove markers");
        ui.radio_value(&mut self.marker_mode, MarkerMode::SelectUnit, "Select a unit for the overlays");
        if self.unit.is_empty()
            && let Some(first) = project.units.iter().next()
        {
            first.id.as_str().clone_into(&mut self.unit);
        }
        egui::ComboBox::from_label("Unit type").selected_text(self.unit.clone()).show_ui(ui, |ui| {
            for unit in project.units.iter() {
                ui.selectable_value(&mut self.unit, unit.id.as_str().to_owned(), unit.id.as_str());
            }
        });
        ui.horizontal(|ui| {
            let label = ui.label("Team");
            ui.add(egui::TextEdit::singleline(&mut self.team).desired_width(90.0).hint_text("the unit's"))
                .labelled_by(label.id)
                .on_hover_text("The placed unit's team in the battle; empty: the unit type's own team");
            let mut teams: Vec<&str> = project.units.iter().map(|unit| unit.team.as_str()).collect();
            teams.extend(project.tile_maps.iter().flat_map(|map| map.placements.iter().map(|p| p.team.as_str())));
            teams.retain(|team| !team.is_empty());
            teams.sort_unstable();
            teams.dedup();
            egui::ComboBox::from_id_salt("marker_teams").selected_text("Teams").width(70.0).show_ui(ui, |ui| {
                ui.selectable_value(&mut self.team, String::new(), "The unit's own");
                for team in teams {
                    ui.selectable_value(&mut self.team, team.to_owned(), team);
                }
            });
        });
        ui.horizontal(|ui| {
            ui.label("Facing");
            for (name, degrees) in [("E", 0.0), ("N", 90.0), ("W", 180.0), ("S", 270.0)] {
                #[allow(clippy::float_cmp)] // the buttons set these exact values
                let chosen = self.facing_degrees == degrees;
                if ui.selectable_label(chosen, name).on_hover_text(format!("Face {degrees}°")).clicked() {
                    self.facing_degrees = degrees;
                }
            }
            ui.add(egui::DragValue::new(&mut self.facing_degrees).range(0.0..=359.0).suffix("°"))
                .on_hover_text("Degrees counter-clockwise from +x (east)");
        });
        ui.horizontal(|ui| {
            let label = ui.label("Prop label");
            ui.text_edit_singleline(&mut self.prop_label).labelled_by(label.id);
        });
        if self.prop_size == (0, 0, 0) {
            self.prop_size = (1, 1, 1);
        }
        ui.horizontal(|ui| {
            ui.label("Prop size");
            ui.add(egui::DragValue::new(&mut self.prop_size.0).range(1..=64).prefix("x "));
            ui.add(egui::DragValue::new(&mut self.prop_size.1).range(1..=64).prefix("y "));
            ui.add(egui::DragValue::new(&mut self.prop_size.2).range(1..=64).prefix("z "));
        })
        .response
        .on_hover_text("Cells along x, cells along y, levels up");
        ui.label(RichText::new("Units and props stand on the tile top under the cursor").weak());
    }

    fn view_options_ui(&mut self, ui: &mut egui::Ui, map: &TileMap) {
        ui.label(RichText::new("View").strong());
        ui.horizontal(|ui| {
            ui.label("Edited level");
            ui.add(egui::DragValue::new(&mut self.view.edited_level).range(0..=255));
        });
        ui.label(RichText::new("Up/Down arrows change the level").weak());
        egui::ComboBox::from_label("Above the level")
            .selected_text(match self.view.slicing {
                Slicing::ShowAll => "Show",
                Slicing::GhostAbove => "Ghost",
                Slicing::HideAbove => "Hide",
            })
            .show_ui(ui, |ui| {
                ui.selectable_value(&mut self.view.slicing, Slicing::ShowAll, "Show");
                ui.selectable_value(&mut self.view.slicing, Slicing::GhostAbove, "Ghost");
                ui.selectable_value(&mut self.view.slicing, Slicing::HideAbove, "Hide");
            });
        ui.checkbox(&mut self.view.show_grid, "Grid on the edited level");
        let mut perspective = self.view.camera.projection == super::camera::Projection::Perspective;
        if ui.checkbox(&mut perspective, "Perspective").changed() {
            self.view.camera.projection = if perspective {
                super::camera::Projection::Perspective
            } else {
                super::camera::Projection::Orthographic
            };
        }
        ui.horizontal_wrapped(|ui| {
            for preset in 0..4_u8 {
                if ui.button(format!("Iso {}", preset + 1)).on_hover_text("Isometric view from one corner").clicked() {
                    self.view.camera.set_iso_preset(preset);
                }
            }
            if ui.button("Frame map").clicked() {
                let scale = actforge_runtime::map::MapScale::of(map);
                let projection = self.view.camera.projection;
                self.view.camera = super::camera::Camera::framing([
                    f32::from(map.width) * scale.cell_size,
                    f32::from(map.depth) * scale.cell_size,
                    4.0 * scale.level_height,
                ]);
                self.view.camera.projection = projection;
            }
        });
        ui.label(RichText::new("Right drag orbits, Shift+right drag or middle drag pans, wheel zooms").weak());
    }

    fn overlay_options_ui(&mut self, ui: &mut egui::Ui, map: &TileMap) {
        ui.label(RichText::new("Overlays").strong());
        let name = |(x, y, z): (u16, u16, u16)| {
            map.placements
                .iter()
                .find(|p| (p.x, p.y, tools::placement_level(map, p)) == (x, y, z))
                .map_or_else(String::new, |p| format!("{} at ({x}, {y}, {z})", p.unit.as_str()))
        };
        let selected = self.overlay_unit.map_or_else(|| "None".to_owned(), name);
        egui::ComboBox::from_label("Overlay unit").selected_text(selected).show_ui(ui, |ui| {
            ui.selectable_value(&mut self.overlay_unit, None, "None");
            for placement in &map.placements {
                let at = (placement.x, placement.y, tools::placement_level(map, placement));
                ui.selectable_value(&mut self.overlay_unit, Some(at), name(at));
            }
        });
        ui.checkbox(&mut self.show_reach, "Reachable tiles")
            .on_hover_text("Where the unit can move when the battle starts, with its own move skills");
        if let Some(problem) = self.reach.as_ref().and_then(|reach| reach.problem.as_ref()) {
            ui.label(RichText::new(problem).color(ui.visuals().warn_fg_color));
        }
        ui.checkbox(&mut self.show_path, "Path preview to the hovered tile");
        ui.checkbox(&mut self.show_sight, "Line of sight to the hovered tile");
    }

    fn resize_ui(&mut self, ui: &mut egui::Ui, map: &TileMap, actions: &mut Vec<InspectorAction>) {
        ui.label(RichText::new("Map size").strong());
        let (mut width, mut depth, mut shift_x, mut shift_y) = self.resize_to.unwrap_or((map.width, map.depth, 0, 0));
        ui.horizontal(|ui| {
            ui.label("Width");
            ui.add(egui::DragValue::new(&mut width).range(1..=1024));
            ui.label("Depth");
            ui.add(egui::DragValue::new(&mut depth).range(1..=1024));
        });
        ui.horizontal(|ui| {
            ui.label("Shift x");
            ui.add(egui::DragValue::new(&mut shift_x).range(-1024..=1024));
            ui.label("Shift y");
            ui.add(egui::DragValue::new(&mut shift_y).range(-1024..=1024));
        });
        self.resize_to = Some((width, depth, shift_x, shift_y));
        if ui.button("Resize map").clicked() {
            let mut edited = map.clone();
            match tools::resize(&mut edited, width, depth, shift_x, shift_y) {
                Ok(report) => {
                    let label = format!("Resize map to {width}×{depth} ({} columns dropped)", report.dropped_columns);
                    actions.push(InspectorAction::Edit { op: Op::put(Arc::new(edited)), label, gesture: None });
                    self.resize_to = None;
                }
                Err(error) => self.status = error.to_string(),
            }
        }
    }

    /// Computes the overlay unit's moves again when the document or the unit changed: the
    /// battle's own (`TacticsState::start_moves`: its move skills, its stats, the others placed).
    fn refresh_reach(&mut self, document: &Document, map: &TileMap) {
        let Some(unit) = self.overlay_unit.filter(|_| self.show_reach || self.show_path) else {
            self.reach = None;
            return;
        };
        let revision = document.revision();
        if self.reach.as_ref().is_some_and(|reach| reach.revision == revision && reach.unit == unit) {
            return;
        }
        let index = map.placements.iter().position(|p| (p.x, p.y, tools::placement_level(map, p)) == unit);
        let (routes, problem) = match (index, Content::compile(document.project().clone())) {
            (Some(index), Ok(content)) => (TacticsState::start_moves(&Arc::new(content), map, index), None),
            (None, _) => (BTreeMap::new(), None),
            (Some(_), Err(error)) => {
                (BTreeMap::new(), Some(format!("No reach: the project does not compile ({error})")))
            }
        };
        self.reach = Some(ReachCache { revision, unit, routes, problem });
    }

    /// Units and props, plus the battle's reach, path and sight for the overlay unit.
    fn overlays(&self, project: &Project, map: &TileMap) -> Overlays {
        let mut overlays = Overlays::default();
        let Some(scene) = self.view.scene() else { return overlays };
        let grid = scene.full_grid();
        for placement in &map.placements {
            let level = tools::placement_level(map, placement);
            let unit = project.units.get(placement.unit.as_str());
            let colour = unit.map_or(Color32::LIGHT_BLUE, |unit| colour32(unit.colour));
            overlays.units.push(UnitMarker {
                cell_x: placement.x,
                cell_y: placement.y,
                level,
                label: placement.unit.as_str().to_owned(),
                colour,
                active: self.overlay_unit == Some((placement.x, placement.y, level)),
                facing_degrees: Some(placement.facing_degrees),
                art: unit.and_then(|unit| unit.art.clone()),
            });
        }
        for prop in &map.props {
            overlays.props.push(PropBox {
                cell_x: prop.x,
                cell_y: prop.y,
                level: prop.z,
                size: prop.size,
                label: prop.label.clone(),
                colour: colour32(prop.colour),
            });
        }
        let start = self.overlay_unit.and_then(|(x, y, level)| {
            let spots = standing_spots(grid, x, y);
            spots.iter().copied().min_by_key(|spot| spot.level.abs_diff(level))
        });
        let Some(start) = start else { return overlays };
        let hovered: Option<Spot> = self.view.hover_cell_spot(grid);
        if let Some(reach) = self.reach.as_ref().filter(|reach| Some(reach.unit) == self.overlay_unit) {
            if self.show_reach {
                overlays.tinted_cells.extend(reach.routes.keys().map(|spot| CellTint {
                    cell_x: spot.cell_x,
                    cell_y: spot.cell_y,
                    level: spot.level,
                    colour: Color32::from_rgba_unmultiplied(80, 160, 255, 90),
                }));
            }
            if self.show_path
                && let Some(path) = hovered.and_then(|spot| reach.routes.get(&spot))
            {
                overlays.path =
                    path.iter().filter_map(|&spot| spot_point(grid, spot)).map(|[x, y, z]| [x, y, z + 0.1]).collect();
            }
        }
        if self.show_sight
            && let Some(target) = hovered
        {
            let sight = SightParams::default();
            let eye = spot_point(grid, start).map(|[x, y, z]| [x, y, z + sight.eye_height]);
            let aim = spot_point(grid, target).map(|[x, y, z]| [x, y, z + sight.target_height]);
            if let (Some(from), Some(to)) = (eye, aim) {
                overlays.sight = Some(SightLine { from, to, clear: line_of_sight(grid, start, target, &sight) });
            }
        }
        overlays
    }

    /// The overlay unit's reachable spots as last computed (the battle's moves at its start).
    pub fn reach_spots(&self) -> Vec<Spot> {
        self.reach.as_ref().map(|reach| reach.routes.keys().copied().collect()).unwrap_or_default()
    }
}
