//! The node-map editor: the nodes of one node map (DAG sandbox maps, `spec/era-synthesis.md` §6)
//! on the shared [`GraphCanvas`], by kind (icon, colour), with their label, properties and
//! affixes; each path a wire (dashed when it is locked), labelled with its unlock condition and
//! cost, and edited in place in its start node's body (the condition compiled as typed: errors
//! show under the field). Dragging from a node's pin and dropping anywhere on another node adds
//! a path; one that would close a cycle is refused with the cycle named. Delete, copy and paste
//! work on nodes and paths; the designer's comment frames (regions) live beside the project.
//!
//! Node positions are the map's own `x`/`y` (document data), so moving nodes is an undoable op.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actforge_runtime::formula::{FormulaSet, ProjectNames};
use actforge_runtime::model::{EdgeStyle, Expr, Id, MapEdge, MapNode, NodeKind, NodeMap};
use actforge_runtime::{Kind, Project};
use egui::emath::TSTransform;
use egui::{Color32, FontId, Pos2, Rect, RichText, Vec2};
use egui_phosphor::regular as icon;
use serde::{Deserialize, Serialize};

use super::graph_canvas::{
    CanvasEdge, CanvasEvent, CanvasNode, CanvasPin, CanvasScene, Comment, GraphCanvas, WireDash,
};
use super::{GraphHighlight, HIGHLIGHT_COLOUR, LayoutStore, name_colour, paint_highlight_path};
use crate::document::{ItemKey, Op, SharedItem};
use crate::panels::inspector::InspectorAction;
use crate::style::readable_text_colour;

/// Graph units per map unit (map positions are small; nodes need room: at the campaign view's
/// usual 180-unit column spacing a node and a wire label fit side by side, and the bundled
/// map fitted into its tab at 1280×800 still shows its nodes' lines, not only their titles).
pub const MAP_TO_GRAPH: f32 = 1.7;
/// A node's width (graph units): room for a path's name, its style button and its unlock field,
/// with a gap for the wire labels before the next column.
const NODE_WIDTH: f32 = 200.0;
/// The widest a node grows to show its whole title (graph units): the next column still
/// starts after a gap at the campaign view's usual spacing.
const NODE_MAX_WIDTH: f32 = 250.0;
/// The canvas's title size and the room around a title (icon, margins), to size nodes to it.
const TITLE_SIZE: f32 = 15.0;
const TITLE_MARGINS: f32 = 46.0;
/// A path row in a node's body: its name with the style button, then its unlock field.
const PATH_ROW_HEIGHT: f32 = 50.0;
/// The text size of a path's name and of the messages under its unlock field.
const ROW_TEXT_SIZE: f32 = 12.0;
/// The comments of a map are stored under this prefix and the map's id.
const COMMENTS_PREFIX: &str = "node_map/";
/// The colour of an open path.
const OPEN_COLOUR: Color32 = Color32::from_rgb(0x8f, 0xb8, 0xde);
/// The colour of a locked path (it has an unlock condition or is drawn dashed).
const LOCKED_COLOUR: Color32 = Color32::from_rgb(0xe0, 0xa8, 0x5a);

/// The icon of a node kind.
pub fn node_kind_icon(kind: &NodeKind) -> &'static str {
    match kind {
        NodeKind::Normal => icon::CIRCLE,
        NodeKind::Home => icon::HOUSE,
        NodeKind::Anecdote => icon::CHAT_TEXT,
        NodeKind::Forge => icon::HAMMER,
        NodeKind::Safehouse => icon::SHIELD,
        NodeKind::Custom(_) => icon::STAR,
    }
}

/// The colour of a node kind (designer-defined kinds get a colour from their name).
pub fn node_kind_colour(kind: &NodeKind) -> Color32 {
    match kind {
        NodeKind::Normal => Color32::from_rgb(0x9a, 0xa9, 0xb8),
        NodeKind::Home => Color32::from_rgb(0x7f, 0xd1, 0x6d),
        NodeKind::Anecdote => Color32::from_rgb(0x5b, 0xa4, 0xe6),
        NodeKind::Forge => Color32::from_rgb(0xf0, 0x93, 0x3b),
        NodeKind::Safehouse => Color32::from_rgb(0xc7, 0x7d, 0xd8),
        NodeKind::Custom(name) => name_colour(name),
    }
}

fn kind_name(kind: &NodeKind) -> String {
    match kind {
        NodeKind::Custom(name) => name.clone(),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The nodes from which `to` can be reached (including `to`), following the map's paths.
fn reaching(map: &NodeMap, to: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut queue = vec![to.to_owned()];
    while let Some(node) = queue.pop() {
        if found.insert(node.clone()) {
            queue.extend(
                map.edges.iter().filter(|edge| edge.to.as_str() == node).map(|edge| edge.from.as_str().to_owned()),
            );
        }
    }
    found
}

/// A path from `from` to `to` along the map's paths, if there is one (nodes in order).
fn path_between(map: &NodeMap, from: &str, to: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from.to_owned()]);
    let mut seen = BTreeSet::from([from.to_owned()]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            let mut path = vec![node.clone()];
            let mut at = node;
            while let Some(previous) = came_from.get(&at) {
                path.push(previous.clone());
                at = previous.clone();
            }
            path.reverse();
            return Some(path);
        }
        for edge in map.edges.iter().filter(|edge| edge.from.as_str() == node) {
            if seen.insert(edge.to.as_str().to_owned()) {
                came_from.insert(edge.to.as_str().to_owned(), node.clone());
                queue.push_back(edge.to.as_str().to_owned());
            }
        }
    }
    None
}

/// The map with a path `from` → `to` added, or why it is refused (a cycle, a self-path, a
/// repeat, an unknown node).
pub fn connect_nodes(map: &NodeMap, from: &str, to: &str) -> Result<NodeMap, String> {
    for end in [from, to] {
        if !map.nodes.iter().any(|node| node.id.as_str() == end) {
            return Err(format!("there is no node `{end}` in the map `{}`", map.id));
        }
    }
    if from == to {
        return Err(format!("a path cannot lead from `{from}` to itself"));
    }
    if map.edges.iter().any(|edge| edge.from.as_str() == from && edge.to.as_str() == to) {
        return Err(format!("the path {from} → {to} exists already"));
    }
    if reaching(map, from).contains(to)
        && let Some(back) = path_between(map, to, from)
    {
        return Err(format!(
            "Refused: the path {from} → {to} would close the cycle {from} → {} (a node map must stay acyclic)",
            back.join(" → ")
        ));
    }
    let mut changed = map.clone();
    changed.edges.push(MapEdge {
        from: Id::new(from),
        to: Id::new(to),
        style: EdgeStyle::Solid,
        unlock: None,
        cost: Expr::default(),
    });
    Ok(changed)
}

/// The map without the paths `from` → `to`; `None` if there is none.
pub fn disconnect_nodes(map: &NodeMap, from: &str, to: &str) -> Option<NodeMap> {
    let mut changed = map.clone();
    changed.edges.retain(|edge| !(edge.from.as_str() == from && edge.to.as_str() == to));
    (changed.edges.len() != map.edges.len()).then_some(changed)
}

/// The map without the node `id` and its paths (and not starting there any more).
pub fn delete_node(map: &NodeMap, id: &str) -> NodeMap {
    let mut changed = map.clone();
    changed.nodes.retain(|node| node.id.as_str() != id);
    changed.edges.retain(|edge| edge.from.as_str() != id && edge.to.as_str() != id);
    if changed.start.as_ref().is_some_and(|start| start.as_str() == id) {
        changed.start = None;
    }
    changed
}

/// Whether a path is locked: it has an unlock condition, or the designer drew it dashed.
pub fn is_locked(edge: &MapEdge) -> bool {
    edge.unlock.as_ref().is_some_and(|unlock| !unlock.text().trim().is_empty()) || edge.style == EdgeStyle::Dashed
}

/// A path as its start node's body shows it.
#[derive(Clone, Debug)]
struct EdgeRow {
    to: String,
    style: EdgeStyle,
    unlock: String,
    /// Why the unlock condition does not compile (none: it does, or there is none).
    error: Option<String>,
}

/// A map node as the graph shows it (rebuilt from the document; never saved).
#[derive(Clone, Debug)]
pub struct MapNodeView {
    /// The node's id.
    pub id: String,
    label: String,
    kind: NodeKind,
    start: bool,
    at: Pos2,
    properties: Vec<(String, String)>,
    affixes: Vec<String>,
    rules: usize,
    /// The paths leaving the node, each a row of its body.
    edges: Vec<EdgeRow>,
}

impl MapNodeView {
    fn new(map: &NodeMap, node: &MapNode, compile: &mut dyn FnMut(&str) -> Option<String>) -> Self {
        let edges = map
            .edges
            .iter()
            .filter(|edge| edge.from == node.id)
            .map(|edge| {
                let unlock = edge.unlock.as_ref().map(|expr| expr.text().to_owned()).unwrap_or_default();
                let error = if unlock.trim().is_empty() { None } else { compile(&unlock) };
                EdgeRow { to: edge.to.as_str().to_owned(), style: edge.style, unlock, error }
            })
            .collect();
        Self {
            id: node.id.as_str().to_owned(),
            label: node.label.clone(),
            kind: node.kind.clone(),
            start: map.start.as_ref() == Some(&node.id),
            at: Pos2::new(node.x * MAP_TO_GRAPH, node.y * MAP_TO_GRAPH),
            properties: node.properties.iter().map(|(name, expr)| (name.clone(), expr.text().to_owned())).collect(),
            affixes: node.affixes.clone(),
            rules: node.rules.len(),
            edges,
        }
    }

    /// The node's title (what tests and screen readers find).
    pub fn header_text(&self) -> String {
        if self.label.is_empty() || self.label == self.id {
            format!("Node {}", self.id)
        } else {
            format!("{} · {}", self.label, self.id)
        }
    }

    fn lines(&self, visuals: &egui::Visuals) -> Vec<(String, Color32)> {
        let mut kind = kind_name(&self.kind);
        if self.start {
            let _ = write!(kind, "  {} start", icon::FLAG);
        }
        if self.rules > 0 {
            let _ = write!(kind, "  {} {}", icon::GEAR, self.rules);
        }
        // Lines stay readable when zoomed out to the compact nodes: no weak colours.
        let mut lines = vec![(kind, readable_text_colour(node_kind_colour(&self.kind), visuals))];
        for (name, value) in &self.properties {
            lines.push((format!("{name} = {value}"), visuals.text_color()));
        }
        if !self.affixes.is_empty() {
            lines.push((format!("{} {}", icon::TAG, self.affixes.join(", ")), visuals.text_color()));
        }
        lines
    }

    /// The node's width: its whole title, within bounds.
    fn width(&self, ui: &egui::Ui) -> f32 {
        let title = ui.ctx().fonts_mut(|fonts| {
            fonts.layout_no_wrap(self.header_text(), FontId::proportional(TITLE_SIZE), Color32::PLACEHOLDER).size().x
        });
        (title + TITLE_MARGINS).clamp(NODE_WIDTH, NODE_MAX_WIDTH)
    }

    /// The room the body needs: a row per path, and its error's lines under it.
    fn body_height(&self, ui: &egui::Ui, width: f32) -> f32 {
        let width = width - 16.0;
        self.edges
            .iter()
            .map(|row| {
                let error = row.error.as_ref().map_or(0.0, |error| {
                    let galley = ui.ctx().fonts_mut(|fonts| {
                        fonts.layout(error.clone(), FontId::proportional(ROW_TEXT_SIZE), Color32::PLACEHOLDER, width)
                    });
                    galley.size().y + 4.0
                });
                PATH_ROW_HEIGHT + error
            })
            .sum()
    }
}

/// What copy puts on the clipboard: nodes and the paths among them (named fields, so a copy
/// of acts never reads as one of nodes).
#[derive(Debug, Serialize, Deserialize)]
struct CopiedNodes {
    map_nodes: Vec<MapNode>,
    map_paths: Vec<MapEdge>,
}

/// The node-map editor's state between frames.
pub struct NodeMapView {
    canvas: GraphCanvas,
    /// The map shown (none: the selected or first one).
    map_id: Option<String>,
    /// The nodes of the shown map, rebuilt when the revision or the map moves.
    nodes: Vec<MapNodeView>,
    /// Edge keys to their ends.
    edge_of: BTreeMap<String, (String, String)>,
    built: Option<(u64, String)>,
    /// Names and named formulas, to compile unlock conditions as they are typed.
    formulas: Option<(u64, FormulaSet, ProjectNames)>,
    highlight: GraphHighlight,
    drawn_highlight: BTreeSet<String>,
    /// What the canvas was given last frame.
    scene: CanvasScene,
    requested: Vec<(String, String)>,
    message: Option<String>,
    /// The app selection last seen, to follow it when it moves elsewhere.
    seen_selection: Option<ItemKey>,
    /// Nodes copied with Ctrl+C (also on the system clipboard as RON).
    copied: Option<String>,
    /// The editor's layout file (this view owns only its maps' comments in it).
    store: LayoutStore,
    store_folder: Option<PathBuf>,
    /// The project folder the layout was last read for (`store_folder` is none when it did not read).
    store_read_from: Option<PathBuf>,
    store_dirty: bool,
}

impl Default for NodeMapView {
    fn default() -> Self {
        Self {
            canvas: GraphCanvas::new("node_map"),
            map_id: None,
            nodes: Vec::new(),
            edge_of: BTreeMap::new(),
            built: None,
            formulas: None,
            highlight: GraphHighlight::default(),
            drawn_highlight: BTreeSet::new(),
            scene: CanvasScene::default(),
            requested: Vec::new(),
            message: None,
            seen_selection: None,
            copied: None,
            store: LayoutStore::default(),
            store_folder: None,
            store_read_from: None,
            store_dirty: false,
        }
    }
}

/// What the node map reads while drawing.
pub struct NodeMapInput<'a> {
    /// The project (read-only).
    pub project: &'a Project,
    /// The document revision (the nodes are rebuilt when it moves).
    pub revision: u64,
    /// The app's selection (a node map there is the one shown).
    pub selection: Option<&'a ItemKey>,
    /// The project folder (comments live there); none for bundles.
    pub folder: Option<&'a Path>,
}

impl NodeMapView {
    /// Sets what the preview highlights (the current node, the path taken so far).
    pub fn set_highlight(&mut self, highlight: GraphHighlight) {
        self.highlight = highlight;
    }

    /// The nodes drawn highlighted in the last frame.
    pub fn drawn_highlight(&self) -> &BTreeSet<String> {
        &self.drawn_highlight
    }

    /// The map shown, by id.
    pub fn map_id(&self) -> Option<&str> {
        self.map_id.as_deref()
    }

    /// The last message (a refused connection, a problem).
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Asks to join `from` to `to` by a path, through the same path a dragged wire takes.
    pub fn request_connect(&mut self, from: &str, to: &str) {
        self.requested.push((from.to_owned(), to.to_owned()));
    }

    /// Where each node of the shown map was drawn last frame (graph space), by node id.
    pub fn drawn_nodes(&self) -> BTreeMap<String, Rect> {
        self.canvas.drawn_nodes().clone()
    }

    /// From graph space to the screen, as last drawn.
    pub fn graph_to_screen(&self) -> TSTransform {
        self.canvas.transform()
    }

    /// The canvas (its transform, drawn nodes and wires, selection).
    pub fn canvas(&self) -> &GraphCanvas {
        &self.canvas
    }

    /// What the canvas was given to draw last frame: the nodes and the paths with their strokes.
    pub fn scene(&self) -> &CanvasScene {
        &self.scene
    }

    /// Draws the picker and the map; edits become `actions`, refusals also go to `log`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        input: &NodeMapInput<'_>,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let project = input.project;
        self.read_store_if_needed(input.folder);
        if let Some(key) = input.selection.filter(|key| key.kind == Kind::NodeMap)
            && project.node_maps.get(&key.id).is_some()
        {
            self.map_id = Some(key.id.clone());
        }
        if self.map_id.as_ref().is_none_or(|id| project.node_maps.get(id).is_none()) {
            self.map_id = project.node_maps.iter().next().map(|map| map.id.as_str().to_owned());
        }
        self.follow_selection(input.selection);
        let map = self.map_id.as_ref().and_then(|id| project.node_maps.get(id));
        self.toolbar_ui(ui, project, map, actions);
        let Some(map) = map else {
            ui.label("This project has no node map yet.");
            return;
        };
        if self.formulas.as_ref().is_none_or(|(at, _, _)| *at != input.revision) {
            let names = ProjectNames::new(project);
            let named: Vec<(String, String)> =
                project.formulas.iter().map(|f| (f.id.as_str().to_owned(), f.expr.text().to_owned())).collect();
            let (set, _) = FormulaSet::build(&named, &names);
            self.formulas = Some((input.revision, set, names));
        }
        let key = (input.revision, map.id.as_str().to_owned());
        if self.built.as_ref() != Some(&key) {
            if self.built.as_ref().is_none_or(|(_, id)| *id != key.1) {
                self.canvas.fit();
                self.canvas.select_only([]);
            }
            self.rebuild(map);
            self.built = Some(key);
        }
        for (from, to) in std::mem::take(&mut self.requested) {
            connect_or_refuse(map, &from, &to, actions, &mut self.message, log);
        }
        if let Some(message) = &self.message {
            ui.label(RichText::new(message).color(ui.visuals().warn_fg_color));
        }
        self.graph_ui(ui, map, actions, log);
        self.save_store(log);
    }

    /// Reads the layout file when the project folder changed.
    fn read_store_if_needed(&mut self, folder: Option<&Path>) {
        if self.store_read_from.as_deref() == folder {
            return;
        }
        self.store_read_from = folder.map(Path::to_path_buf);
        match folder.map(LayoutStore::load).transpose() {
            Ok(store) => {
                self.store = store.unwrap_or_default();
                self.store_folder = folder.map(Path::to_path_buf);
            }
            Err(error) => {
                // The designer's comments may still be in that file: never write over it.
                self.store = LayoutStore::default();
                self.store_folder = None;
                self.message =
                    Some(format!("The stored graph layout does not read ({error}); comments are not stored"));
            }
        }
        self.built = None;
    }

    /// Clears the canvas's selection when the app's moves to another item: nodes have no item
    /// of their own, so only their map's selection keeps them selected.
    fn follow_selection(&mut self, selection: Option<&ItemKey>) {
        if self.seen_selection.as_ref() == selection {
            return;
        }
        self.seen_selection = selection.cloned();
        let this_map = selection.is_some_and(|key| key.kind == Kind::NodeMap && Some(&key.id) == self.map_id.as_ref());
        if !this_map {
            self.canvas.select_only([]);
        }
    }

    fn toolbar_ui(
        &mut self,
        ui: &mut egui::Ui,
        project: &Project,
        map: Option<&NodeMap>,
        actions: &mut Vec<InspectorAction>,
    ) {
        ui.horizontal_wrapped(|ui| {
            ui.label("Node map");
            let mut chosen = self.map_id.clone();
            egui::ComboBox::from_id_salt("node_map_picker")
                .selected_text(chosen.clone().unwrap_or_else(|| "(none)".to_owned()))
                .show_ui(ui, |ui| {
                    for map in &project.node_maps {
                        ui.selectable_value(&mut chosen, Some(map.id.as_str().to_owned()), map.id.as_str());
                    }
                });
            if chosen != self.map_id
                && let Some(id) = chosen
            {
                let key = ItemKey::new(Kind::NodeMap, id.clone());
                self.seen_selection = Some(key.clone());
                actions.push(InspectorAction::Select(key));
                self.map_id = Some(id);
            }
            let Some(map) = map else { return };
            if ui
                .button(format!("{} New node", icon::PLUS))
                .on_hover_text("Add a node (right-click the map to place one)")
                .clicked()
            {
                let right = self.nodes.iter().map(|node| node.at.x).fold(0.0, f32::max);
                let top = self.nodes.iter().map(|node| node.at.y).fold(f32::INFINITY, f32::min);
                let at = Pos2::new(right + NODE_WIDTH + 100.0, if top.is_finite() { top } else { 0.0 });
                self.new_node(map, at, actions);
            }
            if ui.button(format!("{} Fit", icon::FRAME_CORNERS)).on_hover_text("Show the whole map (Home)").clicked() {
                self.canvas.fit();
            }
            self.selected_node_ui(ui, map, actions);
        });
        ui.horizontal(|ui| {
            ui.label(RichText::new("Paths:").weak());
            ui.label(RichText::new("solid: open").color(OPEN_COLOUR));
            ui.label(RichText::new(format!("dashed {}: locked", icon::LOCK)).color(LOCKED_COLOUR));
            ui.add(
                egui::Label::new(
                    RichText::new("· drag a pin onto a node: new path · zoom in to edit unlocks · right-click: new node or comment")
                        .weak(),
                )
                .truncate(),
            );
        });
    }

    /// The selected node's own edits (the canvas's node menu has no room for them): start
    /// here and its kind.
    fn selected_node_ui(&mut self, ui: &mut egui::Ui, map: &NodeMap, actions: &mut Vec<InspectorAction>) {
        let selected = self.canvas.selected_nodes();
        let (Some(id), 1) = (selected.first().cloned(), selected.len()) else { return };
        let Some(node) = map.nodes.iter().find(|node| node.id.as_str() == id) else { return };
        ui.separator();
        ui.label(RichText::new(format!("{} {id}", node_kind_icon(&node.kind))).color(node_kind_colour(&node.kind)));
        let is_start = map.start.as_ref().is_some_and(|start| start.as_str() == id);
        if ui
            .add_enabled(!is_start, egui::Button::new(format!("{} Start here", icon::FLAG)))
            .on_hover_text("The player starts on this node")
            .clicked()
        {
            let mut changed = map.clone();
            changed.start = Some(Id::new(&id));
            push_map(actions, changed, format!("Start {} at {id}", map.id));
        }
        let mut kind = node.kind.clone();
        let label = ui.label("Kind");
        egui::ComboBox::from_id_salt("node_map_kind")
            .selected_text(format!("{} {}", node_kind_icon(&kind), kind_name(&kind)))
            .show_ui(ui, |ui| {
                for choice in
                    [NodeKind::Normal, NodeKind::Home, NodeKind::Anecdote, NodeKind::Forge, NodeKind::Safehouse]
                {
                    let text = format!("{} {}", node_kind_icon(&choice), kind_name(&choice));
                    ui.selectable_value(&mut kind, choice, text);
                }
            })
            .response
            .labelled_by(label.id);
        if kind != node.kind {
            let mut changed = map.clone();
            for target in changed.nodes.iter_mut().filter(|n| n.id.as_str() == id) {
                target.kind = kind.clone();
            }
            push_map(actions, changed, format!("Make {id} a {} node", kind_name(&kind)));
        }
    }

    fn rebuild(&mut self, map: &NodeMap) {
        let mut compile = |text: &str| -> Option<String> {
            let (_, formulas, names) = self.formulas.as_mut()?;
            formulas.compile(text, &*names).err().map(|error| error.message)
        };
        self.nodes = map.nodes.iter().map(|node| MapNodeView::new(map, node, &mut compile)).collect();
        self.edge_of = map
            .edges
            .iter()
            .enumerate()
            .map(|(n, edge)| (edge_key(n, edge), (edge.from.as_str().to_owned(), edge.to.as_str().to_owned())))
            .collect();
    }

    fn build_scene(&self, ui: &egui::Ui, map: &NodeMap) -> CanvasScene {
        let visuals = ui.visuals();
        let nodes = self
            .nodes
            .iter()
            .map(|node| {
                let width = node.width(ui);
                CanvasNode {
                    id: node.id.clone(),
                    pos: node.at,
                    width,
                    icon: (node_kind_icon(&node.kind).to_owned(), node_kind_colour(&node.kind)),
                    title: node.header_text(),
                    short_title: if node.label.is_empty() { node.id.clone() } else { node.label.clone() },
                    lines: node.lines(visuals),
                    pins: vec![CanvasPin { label: "path".to_owned(), colour: OPEN_COLOUR }],
                    body_height: node.body_height(ui, width),
                    lane: None,
                    mark: self
                        .highlight
                        .nodes
                        .contains(&node.id)
                        .then(|| (HIGHLIGHT_COLOUR, format!("Current: {}", node.id))),
                }
            })
            .collect();
        let edges = map
            .edges
            .iter()
            .enumerate()
            .map(|(n, edge)| {
                let locked = is_locked(edge);
                let unlock = edge.unlock.as_ref().map(|expr| expr.text().trim()).filter(|text| !text.is_empty());
                let cost = (!edge.cost.is_zero()).then(|| format!("cost {}", edge.cost.text()));
                let mut label: Vec<String> = Vec::new();
                if let Some(unlock) = unlock {
                    label.push(format!("{} {unlock}", icon::LOCK));
                } else if locked {
                    label.push(icon::LOCK.to_owned());
                }
                label.extend(cost.clone());
                let mut about = format!("Path {} → {}", edge.from, edge.to);
                match unlock {
                    Some(unlock) => {
                        let _ = write!(about, ", unlocked when {unlock}");
                    }
                    None if locked => about.push_str(", drawn locked"),
                    None => {}
                }
                if let Some(cost) = cost {
                    let _ = write!(about, ", {cost}");
                }
                CanvasEdge {
                    key: edge_key(n, edge),
                    from: edge.from.as_str().to_owned(),
                    pin: 0,
                    to: edge.to.as_str().to_owned(),
                    colour: if locked { LOCKED_COLOUR } else { OPEN_COLOUR },
                    dash: if locked { WireDash::Dashed } else { WireDash::Solid },
                    label: (!label.is_empty()).then(|| label.join(" · ")),
                    about,
                }
            })
            .collect();
        CanvasScene { nodes, edges, lanes: Vec::new(), noun: "node" }
    }

    fn graph_ui(
        &mut self,
        ui: &mut egui::Ui,
        map: &NodeMap,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        self.scene = self.build_scene(ui, map);
        let comments_key = format!("{COMMENTS_PREFIX}{}", map.id);
        let mut comments = self.store.comments.get(&comments_key).cloned().unwrap_or_default();
        let can_link = |from: &str, _pin: usize, to: &str| -> Result<String, String> {
            connect_nodes(map, from, to).map(|_| format!("Add the path {from} → {to}"))
        };
        let mut changed: Option<(NodeMap, String, Option<u64>)> = None;
        let mut ended_gesture = false;
        let events = {
            let Self { canvas, nodes, scene, .. } = self;
            let mut body = |ui: &mut egui::Ui, node: &CanvasNode| {
                let Some(view) = nodes.iter().find(|view| view.id == node.id) else { return };
                for row in &view.edges {
                    if let Some(edit) = path_row_ui(ui, map, &view.id, row) {
                        match edit {
                            RowEdit::Changed(map, label, gesture) => changed = Some((*map, label, gesture)),
                            RowEdit::EndGesture => ended_gesture = true,
                        }
                    }
                }
            };
            canvas.show(ui, scene, &mut comments, &can_link, &mut body)
        };
        if let Some((map, label, gesture)) = changed {
            actions.push(InspectorAction::Edit { op: Op::put(Arc::new(map) as SharedItem), label, gesture });
        }
        if ended_gesture {
            actions.push(InspectorAction::EndGesture);
        }
        self.drawn_highlight = self
            .scene
            .nodes
            .iter()
            .filter(|node| node.mark.is_some() && self.canvas.drawn_nodes().contains_key(&node.id))
            .map(|node| node.id.clone())
            .collect();
        for event in events {
            self.handle(ui, map, event, &comments_key, &comments, actions, log);
        }
        if self.highlight.path.len() >= 2 {
            let rects: BTreeMap<&str, Rect> =
                self.canvas.drawn_nodes().iter().map(|(id, rect)| (id.as_str(), *rect)).collect();
            paint_highlight_path(
                ui,
                ui.clip_rect(),
                "node_map_path",
                &self.highlight.path,
                &rects,
                self.canvas.transform(),
            );
        }
    }

    /// Turns one thing the designer asked for on the canvas into ops.
    #[allow(clippy::too_many_arguments)] // one event, with the frame's parts it needs
    fn handle(
        &mut self,
        ui: &egui::Ui,
        map: &NodeMap,
        event: CanvasEvent,
        comments_key: &str,
        comments: &[Comment],
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        match event {
            CanvasEvent::Select(_) | CanvasEvent::Open(_) => {
                // A node is part of its map: the inspector shows the map.
                let key = ItemKey::new(Kind::NodeMap, map.id.as_str());
                self.seen_selection = Some(key.clone());
                actions.push(InspectorAction::Select(key));
            }
            CanvasEvent::Move(ids, delta) => move_nodes(map, &ids, delta, actions),
            CanvasEvent::Connect { from, to, .. } => {
                connect_or_refuse(map, &from, &to, actions, &mut self.message, log);
            }
            CanvasEvent::Refused(why) => {
                log.push(format!("Node map {}: {why}", map.id));
                self.message = Some(why);
            }
            CanvasEvent::Delete { nodes, edges } => self.delete(map, &nodes, &edges, actions),
            CanvasEvent::Copy(ids) => self.copy(ui, map, &ids),
            CanvasEvent::Paste(text, at) => self.paste(map, text.as_deref(), at, actions, log),
            CanvasEvent::NewNode(at) => self.new_node(map, at, actions),
            CanvasEvent::CommentsChanged => {
                self.store.comments.insert(comments_key.to_owned(), comments.to_vec());
                self.store_dirty = true;
            }
        }
    }

    /// Adds a node at `at` (graph units) and selects it.
    fn new_node(&mut self, map: &NodeMap, at: Pos2, actions: &mut Vec<InspectorAction>) {
        let mut changed = map.clone();
        let taken: BTreeSet<&str> = map.nodes.iter().map(|node| node.id.as_str()).collect();
        let id = fresh_id("node", |id| taken.contains(id));
        let round = |v: f32| (v / MAP_TO_GRAPH).round();
        changed.nodes.push(MapNode { id: Id::new(&id), x: round(at.x), y: round(at.y), ..MapNode::default() });
        push_map(actions, changed, format!("New node {id} in {}", map.id));
        self.canvas.select_only([id]);
    }

    /// Deletes the selected paths and nodes (with their paths) as one op.
    fn delete(&mut self, map: &NodeMap, nodes: &[String], edges: &[String], actions: &mut Vec<InspectorAction>) {
        let mut changed = map.clone();
        let mut paths = Vec::new();
        for key in edges {
            let Some((from, to)) = self.edge_of.get(key) else { continue };
            if let Some(without) = disconnect_nodes(&changed, from, to) {
                changed = without;
                paths.push(format!("{from} → {to}"));
            }
        }
        for id in nodes {
            changed = delete_node(&changed, id);
        }
        if changed == *map {
            return;
        }
        let label = match (nodes, paths.as_slice()) {
            ([], [path]) => format!("Remove the path {path} in {}", map.id),
            ([], paths) => format!("Remove {} paths in {}", paths.len(), map.id),
            ([node], []) => format!("Delete node {node} in {}", map.id),
            (nodes, paths) => format!("Delete {} nodes and {} paths in {}", nodes.len(), paths.len(), map.id),
        };
        push_map(actions, changed, label);
        self.canvas.select_only([]);
    }

    /// Copies nodes and the paths among them as RON (the system clipboard and the view's own).
    fn copy(&mut self, ui: &egui::Ui, map: &NodeMap, ids: &[String]) {
        let chosen: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
        let copied = CopiedNodes {
            map_nodes: map.nodes.iter().filter(|node| chosen.contains(node.id.as_str())).cloned().collect(),
            map_paths: map
                .edges
                .iter()
                .filter(|edge| chosen.contains(edge.from.as_str()) && chosen.contains(edge.to.as_str()))
                .cloned()
                .collect(),
        };
        match ron::ser::to_string(&copied) {
            Ok(text) => {
                ui.ctx().copy_text(text.clone());
                self.message = Some(format!("Copied {} node(s)", copied.map_nodes.len()));
                self.copied = Some(text);
            }
            Err(error) => self.message = Some(format!("Could not copy: {error}")),
        }
    }

    /// Pastes copied nodes at `at` (graph units) under fresh ids, with the paths among them,
    /// as one op.
    fn paste(
        &mut self,
        map: &NodeMap,
        text: Option<&str>,
        at: Pos2,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let parsed = |text: &str| ron::from_str::<CopiedNodes>(text).ok();
        let Some(copied) = text.and_then(parsed).or_else(|| self.copied.as_deref().and_then(parsed)) else {
            self.message = Some("Nothing to paste: copy nodes first (Ctrl+C in this map)".to_owned());
            return;
        };
        if copied.map_nodes.is_empty() {
            return;
        }
        let mut taken: BTreeSet<String> = map.nodes.iter().map(|node| node.id.as_str().to_owned()).collect();
        let mut renamed: BTreeMap<String, String> = BTreeMap::new();
        for node in &copied.map_nodes {
            let id = fresh_id(&format!("{}_copy", node.id), |id| taken.contains(id));
            taken.insert(id.clone());
            renamed.insert(node.id.as_str().to_owned(), id);
        }
        let origin = copied
            .map_nodes
            .iter()
            .fold(Pos2::new(f32::INFINITY, f32::INFINITY), |a, node| Pos2::new(a.x.min(node.x), a.y.min(node.y)));
        let round = |v: f32| (v * 10.0).round() / 10.0;
        let mut changed = map.clone();
        for node in &copied.map_nodes {
            let Some(id) = renamed.get(node.id.as_str()) else { continue };
            let mut copy = node.clone();
            copy.id = Id::new(id);
            copy.x = round(at.x / MAP_TO_GRAPH + node.x - origin.x);
            copy.y = round(at.y / MAP_TO_GRAPH + node.y - origin.y);
            changed.nodes.push(copy);
        }
        for edge in &copied.map_paths {
            if let (Some(from), Some(to)) = (renamed.get(edge.from.as_str()), renamed.get(edge.to.as_str())) {
                let mut copy = edge.clone();
                copy.from = Id::new(from);
                copy.to = Id::new(to);
                changed.edges.push(copy);
            }
        }
        let count = renamed.len();
        push_map(actions, changed, format!("Paste {count} node(s) in {}", map.id));
        log.push(format!("Node map {}: pasted {count} node(s)", map.id));
        self.canvas.select_only(renamed.into_values());
    }

    /// Writes this view's comments into the layout file: read again first, so what the act
    /// graph stored since is kept.
    fn save_store(&mut self, log: &mut Vec<String>) {
        if !std::mem::take(&mut self.store_dirty) {
            return;
        }
        let Some(folder) = &self.store_folder else { return };
        match self.store.save_own(folder, |key| key.starts_with(COMMENTS_PREFIX)) {
            Ok(stored) => self.store = stored,
            Err(error) => log.push(format!("Could not store the node map comments: {error}")),
        }
    }
}

/// Moves nodes by `delta` (graph units) as one op on the map's positions.
fn move_nodes(map: &NodeMap, ids: &[String], delta: Vec2, actions: &mut Vec<InspectorAction>) {
    let mut changed = map.clone();
    let round = |v: f32| (v * 10.0).round() / 10.0;
    let mut moved = Vec::new();
    for node in changed.nodes.iter_mut().filter(|node| ids.iter().any(|id| id == node.id.as_str())) {
        node.x = round(node.x + delta.x / MAP_TO_GRAPH);
        node.y = round(node.y + delta.y / MAP_TO_GRAPH);
        moved.push(node.id.as_str().to_owned());
    }
    if changed != *map {
        push_map(actions, changed, format!("Move {} in {}", moved.join(", "), map.id));
    }
}

/// `base`, or `base_2`, `base_3`… : the first that is not `taken`.
fn fresh_id(base: &str, taken: impl Fn(&str) -> bool) -> String {
    // Bounded, so a predicate that takes every id cannot spin it forever.
    (1..=100_000_u32)
        .map(|n| if n == 1 { base.to_owned() } else { format!("{base}_{n}") })
        .find(|id| !taken(id))
        .unwrap_or_else(|| base.to_owned())
}

/// A path's key among the canvas's edges: its place in the map's list and its ends.
fn edge_key(index: usize, edge: &MapEdge) -> String {
    format!("{index}|{}|{}", edge.from, edge.to)
}

/// Pushes the op putting the changed map.
fn push_map(actions: &mut Vec<InspectorAction>, changed: NodeMap, label: String) {
    actions.push(InspectorAction::Edit { op: Op::put(Arc::new(changed) as SharedItem), label, gesture: None });
}

/// Pushes the op adding a path, or refuses it with a message (shown and logged).
fn connect_or_refuse(
    map: &NodeMap,
    from: &str,
    to: &str,
    actions: &mut Vec<InspectorAction>,
    message: &mut Option<String>,
    log: &mut Vec<String>,
) {
    match connect_nodes(map, from, to) {
        Ok(changed) => {
            *message = None;
            push_map(actions, changed, format!("Add the path {from} → {to} in {}", map.id));
        }
        Err(why) => {
            log.push(format!("Node map {}: {why}", map.id));
            *message = Some(why);
        }
    }
}

/// What a path's row in a node's body changed.
enum RowEdit {
    /// The map with the edit, its undo label and the gesture it belongs to.
    Changed(Box<NodeMap>, String, Option<u64>),
    /// The unlock field lost the focus: the typing gesture ended.
    EndGesture,
}

/// One path in its start node's body: its name and style, its unlock condition edited in place
/// and the condition's error (compiled when the document changed) under it.
fn path_row_ui(ui: &mut egui::Ui, map: &NodeMap, from: &str, row: &EdgeRow) -> Option<RowEdit> {
    let mut edit = None;
    let dashed = row.style == EdgeStyle::Dashed;
    let label = ui
        .horizontal(|ui| {
            let label = ui.label(RichText::new(format!("{from} → {}", row.to)).size(ROW_TEXT_SIZE));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let text = if dashed { "dashed" } else { "solid" };
                let toggle = ui.small_button(text).on_hover_text("Switch between a solid and a dashed (locked) path");
                // Every path has this button: its name says which path it restyles.
                toggle.widget_info(|| {
                    egui::WidgetInfo::labeled(
                        egui::WidgetType::Button,
                        true,
                        format!("Style of {from} → {}: {text}", row.to),
                    )
                });
                if toggle.clicked() {
                    let mut changed = map.clone();
                    for edge in changed.edges.iter_mut().filter(|e| e.from.as_str() == from && e.to.as_str() == row.to)
                    {
                        edge.style = if dashed { EdgeStyle::Solid } else { EdgeStyle::Dashed };
                    }
                    let label = format!("Restyle {from} → {} in {}", row.to, map.id);
                    edit = Some(RowEdit::Changed(Box::new(changed), label, None));
                }
            });
            label
        })
        .inner;
    let mut text = row.unlock.clone();
    let field_id = egui::Id::new(("unlock", map.id.as_str(), from, row.to.as_str()));
    let response = ui
        .add(
            egui::TextEdit::singleline(&mut text)
                .id(field_id)
                .hint_text("unlock (always)")
                .code_editor()
                .desired_width(ui.available_width()),
        )
        .labelled_by(label.id);
    if response.changed() {
        let mut changed = map.clone();
        for edge in changed.edges.iter_mut().filter(|e| e.from.as_str() == from && e.to.as_str() == row.to) {
            edge.unlock = (!text.trim().is_empty()).then(|| Expr::new(text.clone()));
        }
        let label = format!("Edit the unlock of {from} → {} in {}", row.to, map.id);
        edit = Some(RowEdit::Changed(Box::new(changed), label, Some(field_id.value())));
    } else if response.lost_focus() {
        edit = Some(RowEdit::EndGesture);
    }
    if let Some(error) = &row.error {
        ui.label(RichText::new(error).size(ROW_TEXT_SIZE).color(ui.visuals().error_fg_color));
    }
    ui.add_space(4.0);
    edit
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn map() -> NodeMap {
        let node = |id: &str| MapNode { id: Id::new(id), ..MapNode::default() };
        let mut map = NodeMap { id: Id::new("m"), nodes: vec![node("a"), node("b"), node("c")], ..NodeMap::default() };
        map = connect_nodes(&map, "a", "b").unwrap();
        connect_nodes(&map, "b", "c").unwrap()
    }

    #[test]
    fn a_path_closing_a_cycle_is_refused_with_the_cycle_named() {
        let why = connect_nodes(&map(), "c", "a").unwrap_err();
        assert!(why.contains("c → a → b → c"), "{why}");
        assert!(connect_nodes(&map(), "a", "a").is_err());
        assert!(connect_nodes(&map(), "a", "b").is_err());
        assert_eq!(connect_nodes(&map(), "a", "c").unwrap().edges.len(), 3);
    }

    #[test]
    fn deleting_a_node_drops_its_paths() {
        let changed = delete_node(&map(), "b");
        assert_eq!(changed.nodes.len(), 2);
        assert!(changed.edges.is_empty());
    }

    #[test]
    fn a_path_is_locked_by_its_condition_or_its_style() {
        let mut map = map();
        assert!(!is_locked(&map.edges[0]));
        map.edges[0].unlock = Some(Expr::new("storm < 3".to_owned()));
        assert!(is_locked(&map.edges[0]));
        map.edges[1].style = EdgeStyle::Dashed;
        assert!(is_locked(&map.edges[1]));
    }
}
