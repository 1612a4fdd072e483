//! Graph views on the shared [`graph_canvas`]: the act-chain graph ([`act_graph`]) and the
//! node-map editor ([`node_map`]), with the automatic layered [`graph_layout`] the act graph uses.
//!
//! Neither view keeps graph data of its own: each rebuilds its scene from the document when the
//! revision (or its filter or map) changes and turns the canvas's events (connect, delete,
//! move, copy, paste) into [`crate::document::Op`]s. Positions the designer gives acts and the
//! comment frames of both views are editor data beside the project ([`LayoutStore`],
//! `.actforge/graph_layout.ron`), never part of the runtime bundle; node-map nodes keep their
//! positions in the map itself.

pub mod act_graph;
pub mod act_links;
pub mod formula;
pub mod graph_canvas;
pub mod graph_layout;
pub mod map;
pub mod node_map;
pub mod table;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use actforge_runtime::project::write_atomic;
use egui::emath::TSTransform;
use egui::{Color32, Pos2, Rect, Vec2};
use serde::{Deserialize, Serialize};

/// Both graph views' state, one field of the app.
#[derive(Default)]
pub struct GraphViews {
    /// The act-chain graph.
    pub act: act_graph::ActGraphView,
    /// The node-map editor.
    pub node_map: node_map::NodeMapView,
}

impl GraphViews {
    /// Sets the preview's highlight on both views.
    pub fn set_highlight(&mut self, highlight: &GraphHighlight) {
        self.act.set_highlight(highlight.clone());
        self.node_map.set_highlight(highlight.clone());
    }

    /// The act under the pointer in the act graph last frame.
    pub fn hovered_act(&self) -> Option<&str> {
        self.act.hovered()
    }

    /// Draws the act-chain tab (`folder`: the project folder, or a bundle's path).
    pub fn act_ui(
        &mut self,
        ui: &mut egui::Ui,
        document: &crate::document::Document,
        selection: Option<&crate::document::ItemKey>,
        folder: &Path,
        actions: &mut Vec<crate::panels::inspector::InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let input = act_graph::GraphInput {
            project: document.project(),
            revision: document.revision(),
            selection,
            folder: folder.is_dir().then_some(folder),
        };
        self.act.ui(ui, &input, actions, log);
    }

    /// Draws the node-map tab (`folder`: the project folder, or a bundle's path).
    pub fn node_map_ui(
        &mut self,
        ui: &mut egui::Ui,
        document: &crate::document::Document,
        selection: Option<&crate::document::ItemKey>,
        folder: &Path,
        actions: &mut Vec<crate::panels::inspector::InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let input = node_map::NodeMapInput {
            project: document.project(),
            revision: document.revision(),
            selection,
            folder: folder.is_dir().then_some(folder),
        };
        self.node_map.ui(ui, &input, actions, log);
    }
}

/// What the preview marks in the graph views: the running acts or the current node, and the
/// path taken so far (typed ids as text, in the order they were visited).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GraphHighlight {
    /// Acts running now (act ids).
    pub acts: BTreeSet<String>,
    /// The current node(s) of the shown node map (node ids).
    pub nodes: BTreeSet<String>,
    /// Acts or nodes visited so far, in order; consecutive pairs are drawn as a bold path.
    pub path: Vec<String>,
    /// Why an act (the one under the pointer) cannot start now: its id and the reasons.
    pub why_not: Option<(String, Vec<String>)>,
}

impl GraphHighlight {
    /// Whether nothing is highlighted.
    pub fn is_empty(&self) -> bool {
        self.acts.is_empty() && self.nodes.is_empty() && self.path.is_empty()
    }
}

/// The glow around highlighted nodes and the colour of the bold path.
pub const HIGHLIGHT_COLOUR: Color32 = Color32::from_rgb(0xff, 0xd5, 0x4f);

/// Paints the highlight's path over a graph: a bold line from each node to the next, given the
/// nodes' rects in graph space by id and the graph-to-screen transform.
fn paint_highlight_path(
    ui: &egui::Ui,
    view: egui::Rect,
    layer: &str,
    path: &[String],
    rect_by_id: &std::collections::BTreeMap<&str, egui::Rect>,
    to_global: egui::emath::TSTransform,
) {
    let painter =
        ui.ctx().layer_painter(egui::LayerId::new(egui::Order::Foreground, egui::Id::new(layer))).with_clip_rect(view);
    for pair in path.windows(2) {
        if let [a, b] = pair
            && let (Some(a), Some(b)) = (rect_by_id.get(a.as_str()), rect_by_id.get(b.as_str()))
        {
            painter.line_segment(
                [to_global * a.right_center(), to_global * b.left_center()],
                egui::Stroke::new(5.0, HIGHLIGHT_COLOUR.gamma_multiply(0.8)),
            );
        }
    }
}

/// Designer-placed positions of graph nodes, by item kind and id, kept beside the project in
/// `.actforge/graph_layout.ron` (editor data: not exported, not validated).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LayoutStore {
    /// Positions by kind folder name (`acts`) then id: (x, y) in graph units.
    pub positions: BTreeMap<String, BTreeMap<String, (f32, f32)>>,
    /// The designer's comment frames, by graph (`acts`, `node_map/ID`).
    pub comments: BTreeMap<String, Vec<graph_canvas::Comment>>,
}

impl LayoutStore {
    /// The file of a project folder's stored layout.
    pub fn file(folder: &Path) -> PathBuf {
        folder.join(".actforge").join("graph_layout.ron")
    }

    /// The stored layout of the project folder (empty if there is none), or why it does not read.
    pub fn load(folder: &Path) -> Result<Self, String> {
        let file = Self::file(folder);
        match std::fs::read_to_string(&file) {
            Ok(text) => ron::from_str(&text).map_err(|error| format!("{}: {error}", file.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(error) => Err(format!("{}: {error}", file.display())),
        }
    }

    /// Writes the layout into the project folder atomically (sorted keys, one entry a line).
    pub fn save(&self, folder: &Path) -> Result<(), String> {
        let file = Self::file(folder);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).map_err(|error| error.to_string())?;
        }
        let config = ron::ser::PrettyConfig::default().indentor("  ".to_owned());
        let text = ron::ser::to_string_pretty(self, config).map_err(|error| error.to_string())?;
        write_atomic(&file, format!("{text}\n").as_bytes()).map_err(|error| error.to_string())
    }

    /// Stores this layout's entries that `owns` names (position kinds and comment keys) into
    /// the folder's file, read again first so what another view stored since is kept; returns
    /// the layout as now stored. A view owns its entries: the act graph `acts`, each node map
    /// `node_map/ID`.
    pub fn save_own(&self, folder: &Path, owns: impl Fn(&str) -> bool) -> Result<Self, String> {
        let mut merged = Self::load(folder)?;
        merged.positions.retain(|key, _| !owns(key));
        merged.positions.extend(
            self.positions.iter().filter(|(key, _)| owns(key)).map(|(key, places)| (key.clone(), places.clone())),
        );
        merged.comments.retain(|key, _| !owns(key));
        merged.comments.extend(
            self.comments
                .iter()
                .filter(|(key, comments)| owns(key) && !comments.is_empty())
                .map(|(key, comments)| (key.clone(), comments.clone())),
        );
        merged.save(folder)?;
        Ok(merged)
    }

    /// The stored position of `id` of the kind folder `kind`.
    pub fn get(&self, kind: &str, id: &str) -> Option<Pos2> {
        self.positions.get(kind).and_then(|ids| ids.get(id)).map(|&(x, y)| Pos2::new(x, y))
    }

    /// Stores a position (rounded to a tenth, so the file stays stable).
    pub fn set(&mut self, kind: &str, id: &str, at: Pos2) {
        let round = |v: f32| (v * 10.0).round() / 10.0;
        self.positions.entry(kind.to_owned()).or_default().insert(id.to_owned(), (round(at.x), round(at.y)));
    }

    /// Forgets the positions of one kind (auto layout again).
    pub fn clear(&mut self, kind: &str) {
        self.positions.remove(kind);
    }
}

/// The transform (graph → screen) that shows `content` (graph units) whole and centred in
/// `view` (screen), scaled at most 1 and at least `min_scale`.
pub fn fit_transform(content: Rect, view: Rect, min_scale: f32) -> TSTransform {
    let margin = 24.0;
    let size = content.size().max(Vec2::splat(1.0));
    let room = (view.size() - Vec2::splat(2.0 * margin)).max(Vec2::splat(1.0));
    let scale = (room.x / size.x).min(room.y / size.y).clamp(min_scale, 1.0);
    TSTransform::new(view.center().to_vec2() - content.center().to_vec2() * scale, scale)
}

/// The part of the graph's area that is on screen: a toolbar wider than the tab widens the
/// available rectangle past the tab's edge, and a fit to that would put nodes out of sight.
pub fn visible_view(ui: &egui::Ui) -> Rect {
    ui.available_rect_before_wrap().intersect(ui.clip_rect())
}

/// The transform that centres `point` (graph units) in `view` at `scale`.
pub fn centre_on(point: Pos2, view: Rect, scale: f32) -> TSTransform {
    TSTransform::new(view.center().to_vec2() - point.to_vec2() * scale, scale)
}

/// A deterministic colour for a designer-defined name (FNV-1a over its bytes, as a hue).
pub fn name_colour(name: &str) -> Color32 {
    let hash = name
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3));
    let hue = (hash % 360) as f32 / 360.0;
    egui::ecolor::Hsva::new(hue, 0.55, 0.85, 1.0).into()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_layout_store_round_trips_with_sorted_keys() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = LayoutStore::default();
        store.set("acts", "b", Pos2::new(1.04, 2.0));
        store.set("acts", "a", Pos2::new(3.0, 4.0));
        store.save(dir.path()).unwrap();
        let text = std::fs::read_to_string(LayoutStore::file(dir.path())).unwrap();
        assert!(text.find("\"a\"").unwrap() < text.find("\"b\"").unwrap(), "{text}");
        let loaded = LayoutStore::load(dir.path()).unwrap();
        assert_eq!(loaded, store);
        assert_eq!(loaded.get("acts", "b"), Some(Pos2::new(1.0, 2.0)));
    }

    #[test]
    fn fitting_shows_the_whole_content() {
        let content = Rect::from_min_max(Pos2::new(0.0, 0.0), Pos2::new(2000.0, 1000.0));
        let view = Rect::from_min_max(Pos2::new(0.0, 0.0), Pos2::new(1000.0, 600.0));
        let fit = fit_transform(content, view, 0.05);
        assert!(view.contains(fit * content.min) && view.contains(fit * content.max));
    }
}
