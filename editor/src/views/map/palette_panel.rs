//! The Paint tool's palette panel: the entries (swatch, label, id; up, down, delete), the
//! tiles of a sliced sheet to pick from, renaming the chosen entry's id, and importing a PNG by
//! its typed path with tileset slicing (tile size, margin, spacing) and a live preview of the
//! slicing grid. Paint names an entry id and a tile, so none of this repaints other faces;
//! deleting an entry that faces use asks first and is one undo step with the unpainting.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use actforge_runtime::model::{Paint, PaletteId, TileMap, Tileset};
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;

use super::palette::{self, PaletteTextures};
use super::tools;
use crate::document::Op;
use crate::panels::inspector::InspectorAction;

/// A picture read for the slicing preview, by its path and modification time.
struct Preview {
    path: PathBuf,
    modified: Option<std::time::SystemTime>,
    picture: Result<(egui::TextureHandle, [u32; 2]), String>,
}

/// The palette panel's own state (the paint itself is the tool's).
pub struct PalettePanel {
    /// The PNG path typed for importing.
    pub import_path: String,
    /// Whether the import slices the picture into tiles.
    pub slice: bool,
    /// The slicing of the next import.
    pub tileset: Tileset,
    /// The entry whose deletion waits for an answer, and how many faces use it.
    pending_delete: Option<(PaletteId, usize)>,
    /// The id being typed for the chosen entry.
    rename_to: String,
    /// The entry `rename_to` was started for.
    renaming: Option<PaletteId>,
    preview: Option<Preview>,
}

impl Default for PalettePanel {
    fn default() -> Self {
        Self {
            import_path: String::new(),
            slice: true,
            tileset: Tileset { tile_width: 16, tile_height: 16, margin: 0, spacing: 0 },
            pending_delete: None,
            rename_to: String::new(),
            renaming: None,
            preview: None,
        }
    }
}

impl std::fmt::Debug for PalettePanel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PalettePanel")
            .field("import_path", &self.import_path)
            .field("slice", &self.slice)
            .field("tileset", &self.tileset)
            .field("pending_delete", &self.pending_delete)
            .finish_non_exhaustive()
    }
}

/// Pixels of a tile button.
const TILE_BUTTON: f32 = 28.0;

fn edit(actions: &mut Vec<InspectorAction>, map: TileMap, label: String) {
    actions.push(InspectorAction::Edit { op: Op::put(Arc::new(map)), label, gesture: None });
}

/// Names a widget for screen readers and tests.
fn name(response: &egui::Response, kind: egui::WidgetType, selected: Option<bool>, text: &str) {
    response.widget_info(|| match selected {
        Some(selected) => egui::WidgetInfo::selected(kind, true, selected, text),
        None => egui::WidgetInfo::labeled(kind, true, text),
    });
}

impl PalettePanel {
    /// The palette list: "Unpainted", then every entry; picking one sets `paint`.
    pub fn entries_ui(
        &mut self,
        ui: &mut egui::Ui,
        map: &TileMap,
        textures: &PaletteTextures,
        paint: &mut Option<Paint>,
        actions: &mut Vec<InspectorAction>,
    ) {
        ui.horizontal(|ui| {
            swatch(ui, Color32::WHITE, None);
            if ui.selectable_label(paint.is_none(), "Unpainted").clicked() {
                *paint = None;
            }
        });
        let tiles = palette::tile_counts(map, textures.tile_counts());
        let layout = palette::atlas_layout(map, &tiles);
        let texture = textures.texture();
        let uv_of = |entry: usize, tile: u16| {
            layout
                .tile_rect(entry, tile)
                .map(|uv| egui::Rect::from_min_max(egui::pos2(uv.u_min, uv.v_min), egui::pos2(uv.u_max, uv.v_max)))
        };
        let last = map.palette.len().saturating_sub(1);
        for (at, entry) in map.palette.iter().enumerate() {
            let chosen = paint.is_some_and(|paint| paint.entry == entry.id);
            let picture = texture
                .filter(|_| entry.image.is_some())
                .zip(uv_of(at, paint.filter(|_| chosen).map_or(0, |p| p.tile)));
            ui.horizontal(|ui| {
                swatch(ui, colour32(entry.colour), picture);
                let text = if entry.label.is_empty() { entry.id.to_string() } else { entry.label.clone() };
                let count = tiles.get(at).copied().unwrap_or(1);
                let hover = format!(
                    "id `{}` · {} · {count} tile{}",
                    entry.id,
                    entry.image.as_deref().unwrap_or("flat colour"),
                    if count == 1 { "" } else { "s" }
                );
                if ui.selectable_label(chosen, text).on_hover_text(hover).clicked() && !chosen {
                    *paint = Some(Paint { entry: entry.id, tile: 0 });
                }
                ui.label(RichText::new(entry.id.as_str()).weak().small());
                let up = ui.add_enabled(at > 0, egui::Button::new(icon::ARROW_UP).small());
                name(&up, egui::WidgetType::Button, None, &format!("Move {} up", entry.id));
                let down = ui.add_enabled(at < last, egui::Button::new(icon::ARROW_DOWN).small());
                name(&down, egui::WidgetType::Button, None, &format!("Move {} down", entry.id));
                let delete = ui.add(egui::Button::new(icon::TRASH).small()).on_hover_text("Delete this entry");
                name(&delete, egui::WidgetType::Button, None, &format!("Delete {}", entry.id));
                for (clicked, up) in [(up.clicked(), true), (down.clicked(), false)] {
                    let mut edited = map.clone();
                    if clicked && tools::move_palette_entry(&mut edited, entry.id, up) {
                        edit(actions, edited, format!("Move palette entry {}", entry.id));
                    }
                }
                if delete.clicked() {
                    match tools::faces_using(map, entry.id) {
                        0 => self.delete(map, entry.id, paint, actions),
                        used => self.pending_delete = Some((entry.id, used)),
                    }
                }
            });
            if self.pending_delete.is_some_and(|(id, _)| id == entry.id) {
                self.delete_question_ui(ui, map, paint, actions);
            }
            if chosen && count_of(&tiles, at) > 1 {
                ui.horizontal_wrapped(|ui| {
                    ui.spacing_mut().item_spacing = egui::vec2(2.0, 2.0);
                    for tile in 0..count_of(&tiles, at).min(usize::from(u16::MAX)) {
                        let tile = tile as u16;
                        let selected = paint.is_some_and(|paint| paint.tile == tile);
                        let button = match texture.zip(uv_of(at, tile)) {
                            Some((texture, uv)) => egui::Button::image(
                                egui::Image::new((texture, egui::vec2(TILE_BUTTON, TILE_BUTTON)))
                                    .uv(uv)
                                    .tint(colour32(entry.colour)),
                            ),
                            None => egui::Button::new(format!("{tile}")),
                        };
                        let response = ui.add(button.selected(selected)).on_hover_text(format!("{}#{tile}", entry.id));
                        if selected {
                            ui.painter().rect_stroke(
                                response.rect.expand(1.0),
                                2.0,
                                egui::Stroke::new(2.0, Color32::from_rgb(255, 220, 80)),
                                egui::StrokeKind::Outside,
                            );
                        }
                        name(
                            &response,
                            egui::WidgetType::SelectableLabel,
                            Some(selected),
                            &format!("Tile {tile} of {}", entry.id),
                        );
                        if response.clicked() {
                            *paint = Some(Paint { entry: entry.id, tile });
                        }
                    }
                });
            }
        }
        self.rename_ui(ui, map, paint, actions);
    }

    /// "N faces use 'stone'. Delete it and leave those faces unpainted?" with Delete / Cancel.
    fn delete_question_ui(
        &mut self,
        ui: &mut egui::Ui,
        map: &TileMap,
        paint: &mut Option<Paint>,
        actions: &mut Vec<InspectorAction>,
    ) {
        let Some((id, used)) = self.pending_delete else { return };
        egui::Frame::group(ui.style()).show(ui, |ui| {
            let faces = if used == 1 { "1 face uses" } else { &format!("{used} faces use") };
            ui.label(format!("{faces} '{id}'. Delete it and leave those faces unpainted?"));
            ui.horizontal(|ui| {
                if ui.button("Delete").clicked() {
                    self.delete(map, id, paint, actions);
                }
                if ui.button("Cancel").clicked() {
                    self.pending_delete = None;
                }
            });
        });
    }

    fn delete(&mut self, map: &TileMap, id: PaletteId, paint: &mut Option<Paint>, actions: &mut Vec<InspectorAction>) {
        self.pending_delete = None;
        let mut edited = map.clone();
        if tools::delete_palette_entry(&mut edited, id) {
            if paint.is_some_and(|paint| paint.entry == id) {
                *paint = None;
            }
            edit(actions, edited, format!("Delete palette entry {id}"));
        }
    }

    /// The chosen entry's id, editable: renaming rewrites the faces that use it (one edit).
    fn rename_ui(
        &mut self,
        ui: &mut egui::Ui,
        map: &TileMap,
        paint: &mut Option<Paint>,
        actions: &mut Vec<InspectorAction>,
    ) {
        let Some(chosen) = paint.map(|paint| paint.entry).filter(|id| map.palette.iter().any(|e| e.id == *id)) else {
            return;
        };
        if self.renaming != Some(chosen) {
            self.renaming = Some(chosen);
            chosen.as_str().clone_into(&mut self.rename_to);
        }
        ui.horizontal(|ui| {
            let label = ui.label("Entry id");
            ui.add(egui::TextEdit::singleline(&mut self.rename_to).desired_width(100.0)).labelled_by(label.id);
            let problem = actforge_runtime::model::slug_problem(&self.rename_to).or_else(|| {
                (self.rename_to != chosen.as_str() && map.palette.iter().any(|e| e.id.as_str() == self.rename_to))
                    .then(|| format!("another entry has the id `{}`", self.rename_to))
            });
            let changed = self.rename_to != chosen.as_str();
            let button = ui.add_enabled(changed && problem.is_none(), egui::Button::new("Rename"));
            let button = match &problem {
                Some(problem) if changed => button.on_disabled_hover_text(problem.as_str()),
                _ => button.on_hover_text("Renames the id and every face painted with it"),
            };
            if button.clicked() {
                let mut edited = map.clone();
                if tools::rename_palette_entry(&mut edited, chosen, &self.rename_to) {
                    let to = PaletteId::new(&self.rename_to);
                    if let Some(paint) = paint {
                        paint.entry = to;
                    }
                    self.renaming = Some(to);
                    edit(actions, edited, format!("Rename palette entry {chosen} to {to}"));
                }
            }
        });
    }

    /// Import by typed path (file dialogs are not always at hand): slicing fields and a preview
    /// of the slicing grid over the picture. Returns the path and slicing to import when the
    /// Import button is pressed.
    pub fn import_ui(&mut self, ui: &mut egui::Ui, folder: Option<&Path>) -> Option<(PathBuf, Option<Tileset>)> {
        ui.label(RichText::new("Import a tileset").strong());
        ui.horizontal(|ui| {
            let label = ui.label("PNG path");
            ui.add(
                egui::TextEdit::singleline(&mut self.import_path).hint_text("textures/sheet.png").desired_width(140.0),
            )
            .labelled_by(label.id);
        });
        ui.checkbox(&mut self.slice, "Slice into tiles");
        if self.slice {
            egui::Grid::new("tileset slicing").num_columns(4).show(ui, |ui| {
                let field = |ui: &mut egui::Ui, text: &str, value: &mut u32, min: u32| {
                    let label = ui.label(text);
                    ui.add(egui::DragValue::new(value).range(min..=4096).suffix(" px")).labelled_by(label.id);
                };
                field(ui, "Tile width", &mut self.tileset.tile_width, 1);
                field(ui, "Tile height", &mut self.tileset.tile_height, 1);
                ui.end_row();
                field(ui, "Margin", &mut self.tileset.margin, 0);
                field(ui, "Spacing", &mut self.tileset.spacing, 0);
                ui.end_row();
            });
        }
        let path = self.resolved_path(folder);
        self.preview_ui(ui, path.as_deref());
        let ready = path.as_ref().is_some_and(|path| path.is_file());
        let pressed = ui.add_enabled(ready, egui::Button::new(format!("{} Import", icon::IMAGE))).clicked();
        (pressed && ready).then(|| path.map(|path| (path, self.slice.then_some(self.tileset)))).flatten()
    }

    /// The typed path, relative paths read from the project folder.
    fn resolved_path(&self, folder: Option<&Path>) -> Option<PathBuf> {
        let typed = self.import_path.trim();
        if typed.is_empty() {
            return None;
        }
        let path = PathBuf::from(typed);
        Some(match folder {
            Some(folder) if path.is_relative() => folder.join(path),
            _ => path,
        })
    }

    /// The picture at `path` with the slicing grid drawn over it, and how it slices.
    fn preview_ui(&mut self, ui: &mut egui::Ui, path: Option<&Path>) {
        let Some(path) = path else { return };
        let modified = std::fs::metadata(path).and_then(|meta| meta.modified()).ok();
        let stale = self.preview.as_ref().is_none_or(|preview| preview.path != path || preview.modified != modified);
        if stale {
            let picture = palette::read_png(path).map_err(|error| error.to_string()).map(|picture| {
                let size = [picture.width() as usize, picture.height() as usize];
                let image = egui::ColorImage::from_rgba_unmultiplied(size, picture.as_raw());
                let options = egui::TextureOptions::NEAREST;
                (ui.ctx().load_texture("tileset preview", image, options), [picture.width(), picture.height()])
            });
            self.preview = Some(Preview { path: path.to_owned(), modified, picture });
        }
        let Some(preview) = &self.preview else { return };
        let (texture, [width, height]) = match &preview.picture {
            Ok(picture) => picture,
            Err(problem) => {
                ui.label(RichText::new(problem).color(ui.visuals().error_fg_color));
                return;
            }
        };
        let scale = (200.0 / *width.max(height) as f32).clamp(0.25, 8.0);
        let size = egui::vec2(*width as f32 * scale, *height as f32 * scale);
        let response = ui.add(egui::Image::new((texture.id(), size)));
        let rect = response.rect;
        if self.slice {
            let tileset = self.tileset;
            let grid = tileset.grid(*width, *height);
            let painter = ui.painter_at(rect.expand(1.0));
            let stroke = egui::Stroke::new(1.0, Color32::from_rgb(255, 220, 80));
            for tile in 0..grid.tiles().min(4096) {
                if let Some(pixels) = tileset.tile_rect(*width, *height, tile) {
                    let min = rect.min + egui::vec2(pixels.x as f32, pixels.y as f32) * scale;
                    let tile_rect =
                        egui::Rect::from_min_size(min, egui::vec2(pixels.width as f32, pixels.height as f32) * scale);
                    painter.rect_stroke(tile_rect, 0.0, stroke, egui::StrokeKind::Inside);
                }
            }
            let text = format!("{width}×{height} px · {} × {} = {} tiles", grid.columns, grid.rows, grid.tiles());
            ui.label(RichText::new(text).small());
            if let Some(problem) = tileset.problem(*width, *height) {
                ui.label(
                    RichText::new(format!("{} {problem}", icon::WARNING)).color(ui.visuals().warn_fg_color).small(),
                );
            }
        } else {
            ui.label(RichText::new(format!("{width}×{height} px · one tile")).small());
        }
    }
}

fn count_of(tiles: &[usize], at: usize) -> usize {
    tiles.get(at).copied().unwrap_or(1)
}

/// A palette colour as an egui colour; the default transparent colour means white (no tint).
pub fn colour32(colour: actforge_runtime::model::Colour) -> Color32 {
    if colour.a == 0 { Color32::WHITE } else { Color32::from_rgba_unmultiplied(colour.r, colour.g, colour.b, colour.a) }
}

/// A palette entry's swatch: its picture from the atlas (tinted), else its colour.
pub fn swatch(ui: &mut egui::Ui, colour: Color32, picture: Option<(egui::TextureId, egui::Rect)>) {
    let (rect, _) = ui.allocate_exact_size(egui::vec2(18.0, 18.0), egui::Sense::hover());
    match picture {
        Some((texture, uv)) => {
            ui.painter().image(texture, rect, uv, colour);
        }
        None => {
            ui.painter().rect_filled(rect, 2.0, colour);
        }
    }
}
