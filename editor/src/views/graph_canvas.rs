//! The node-graph canvas both graph views draw on: nodes with a title, a few lines and labelled
//! output pins; wires drawn above the nodes (solid, dashed or dotted, with an arrow and a
//! label); lanes and comment frames behind them; a minimap. It owns the view (pan, zoom, fit),
//! the selection and the gestures (move, box select, link drags that drop anywhere on a node),
//! and reports what the designer asked for as [`CanvasEvent`]s: the views turn those into ops.
//!
//! Zoom levels: at [`DETAIL_SCALE`] and above a node shows everything; below it collapses to a
//! title chip whose text keeps a readable size on screen; the zoom never goes below
//! [`MIN_SCALE`], where a chip is still readable (the minimap shows the rest).

use std::collections::{BTreeMap, BTreeSet};

use egui::emath::TSTransform;
use egui::{
    Align2, Color32, CornerRadius, CursorIcon, FontId, Key, Modifiers, Pos2, Rect, Sense, Shape, Stroke, StrokeKind,
    UiBuilder, Vec2,
};
use serde::{Deserialize, Serialize};

/// The zoom at and above which nodes show their lines and pins.
pub const DETAIL_SCALE: f32 = 0.85;
/// The smallest zoom: title chips are still readable there.
pub const MIN_SCALE: f32 = 0.25;
/// The zoom at and above which a node keeps its size and shows as many lines as fit at a
/// readable size; below it, it shrinks to a title chip.
pub const COMPACT_SCALE: f32 = 0.38;
/// The largest zoom.
pub const MAX_SCALE: f32 = 2.0;
/// The smallest text drawn, in screen points.
pub const MIN_TEXT_POINTS: f32 = 11.0;

const HEADER_HEIGHT: f32 = 30.0;
const ROW_HEIGHT: f32 = 19.0;
const TITLE_SIZE: f32 = 15.0;
const LINE_SIZE: f32 = 13.0;
const PIN_RADIUS: f32 = 6.0;
const LANE_PADDING: f32 = 24.0;
const LANE_HEADER: f32 = 28.0;

/// How a wire is stroked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireDash {
    /// A full line.
    Solid,
    /// Long dashes (locked paths, links that live in rules).
    Dashed,
    /// Dots.
    Dotted,
}

/// An output pin of a node: one kind of link leaving it.
#[derive(Clone, Debug, PartialEq)]
pub struct CanvasPin {
    /// Its label (also what tests and screen readers find, with the node's title).
    pub label: String,
    /// Its colour and that of the wires a drag from it starts.
    pub colour: Color32,
}

/// A node as the canvas draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct CanvasNode {
    /// The item's id (unique in the graph).
    pub id: String,
    /// Top-left corner in graph units.
    pub pos: Pos2,
    /// Width in graph units.
    pub width: f32,
    /// An icon drawn before the title, in its colour.
    pub icon: (String, Color32),
    /// The title: what the node's widget is called.
    pub title: String,
    /// The title when zoomed out to a chip (the label without the id); empty: the title.
    pub short_title: String,
    /// Lines under the title, each in its colour (token, duration, text preview…).
    pub lines: Vec<(String, Color32)>,
    /// Output pins, top to bottom on the right edge.
    pub pins: Vec<CanvasPin>,
    /// Room for the view's own widgets under the lines (graph units; 0 for none).
    pub body_height: f32,
    /// The lane the node is drawn in (acts: their token).
    pub lane: Option<String>,
    /// A mark drawn around the node (the preview's running act), with its words.
    pub mark: Option<(Color32, String)>,
}

impl CanvasNode {
    /// The node's rectangle at full detail (graph units).
    pub fn full_rect(&self) -> Rect {
        let rows = self.lines.len().max(self.pins.len()) as f32;
        let height = HEADER_HEIGHT + rows * ROW_HEIGHT + self.body_height + 8.0;
        Rect::from_min_size(self.pos, Vec2::new(self.width, height))
    }

    /// The node's rectangle at `scale`: the full one, or its title chip when zoomed out.
    fn rect_at(&self, scale: f32) -> Rect {
        if scale >= COMPACT_SCALE {
            self.full_rect()
        } else {
            Rect::from_min_size(self.pos, Vec2::new(self.width, chip_height(scale)))
        }
    }
}

/// A chip's height: its title readable on screen at `scale`.
fn chip_height(scale: f32) -> f32 {
    HEADER_HEIGHT.max((MIN_TEXT_POINTS + 9.0) / scale)
}

/// A wire from a node's pin to another node.
#[derive(Clone, Debug, PartialEq)]
pub struct CanvasEdge {
    /// Unique among the graph's edges: what selection and deletion name.
    pub key: String,
    /// The start node's id.
    pub from: String,
    /// The start node's pin.
    pub pin: usize,
    /// The end node's id.
    pub to: String,
    /// Its colour.
    pub colour: Color32,
    /// Its stroke.
    pub dash: WireDash,
    /// A short label on the wire (a chance, a condition); none for none.
    pub label: Option<String>,
    /// What the wire is, in words (shown on hover; what tests and screen readers find).
    pub about: String,
}

/// A lane: the band behind the nodes of one group (acts of one token).
#[derive(Clone, Debug, PartialEq)]
pub struct CanvasLane {
    /// The group key the nodes name in [`CanvasNode::lane`].
    pub key: String,
    /// Its heading.
    pub label: String,
    /// Its tint.
    pub colour: Color32,
}

/// A comment frame the designer placed (editor data, stored beside the project).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Comment {
    /// Top-left corner and size in graph units: x, y, width, height.
    pub rect: (f32, f32, f32, f32),
    /// Its words (the first line is its heading).
    pub text: String,
}

impl Comment {
    fn rect(&self) -> Rect {
        let (x, y, w, h) = self.rect;
        Rect::from_min_size(Pos2::new(x, y), Vec2::new(w.max(80.0), h.max(40.0)))
    }

    fn set_rect(&mut self, rect: Rect) {
        let round = |v: f32| (v * 10.0).round() / 10.0;
        self.rect = (round(rect.min.x), round(rect.min.y), round(rect.width()), round(rect.height()));
    }
}

/// What a graph shows this frame.
#[derive(Clone, Debug, Default)]
pub struct CanvasScene {
    /// The nodes.
    pub nodes: Vec<CanvasNode>,
    /// The wires.
    pub edges: Vec<CanvasEdge>,
    /// The lanes (none: no lanes drawn).
    pub lanes: Vec<CanvasLane>,
    /// What a node is called in menus ("act", "node").
    pub noun: &'static str,
}

/// What the designer asked for on the canvas this frame.
#[derive(Clone, Debug, PartialEq)]
pub enum CanvasEvent {
    /// Select one node's item (a click, or a box that caught one node).
    Select(String),
    /// Open the node's item (a double click).
    Open(String),
    /// Move nodes by an offset (graph units), at the end of a drag.
    Move(Vec<String>, Vec2),
    /// Link `from`'s pin to `to`.
    Connect {
        /// Start node.
        from: String,
        /// Its pin.
        pin: usize,
        /// End node.
        to: String,
    },
    /// A link drag ended where it could not link; the words say why.
    Refused(String),
    /// Delete these nodes and edges (by key), as one step.
    Delete {
        /// Node ids.
        nodes: Vec<String>,
        /// Edge keys.
        edges: Vec<String>,
    },
    /// Copy these nodes.
    Copy(Vec<String>),
    /// Paste, with the clipboard's text when the platform gave it.
    Paste(Option<String>, Pos2),
    /// Make a new node at this point (graph units).
    NewNode(Pos2),
    /// The comments changed (store them).
    CommentsChanged,
}

/// A view change waiting for the next frame (it needs the view's rectangle).
#[derive(Clone, Debug, PartialEq)]
enum ViewRequest {
    Fit,
    FrameSelection,
    CentreOn(String),
}

/// A gesture in progress.
#[derive(Clone, Debug, PartialEq)]
enum Gesture {
    /// Nodes being moved, by this much so far (graph units).
    Move(Vec2),
    /// A wire dragged from a pin, now at this point (graph units).
    Link { from: String, pin: usize, at: Pos2 },
    /// A selection box from this corner (graph units).
    Box(Pos2),
    /// A comment moved (with the nodes inside it) or resized.
    Comment { index: usize, resize: bool, delta: Vec2, inside: Vec<String> },
}

/// The canvas's state between frames.
pub struct GraphCanvas {
    id: egui::Id,
    /// Graph units to screen points.
    transform: TSTransform,
    /// A view change to make next frame.
    request: Option<ViewRequest>,
    /// Nodes selected (ids).
    selected_nodes: BTreeSet<String>,
    /// Edges selected (keys).
    selected_edges: BTreeSet<String>,
    /// The comment selected.
    selected_comment: Option<usize>,
    gesture: Option<Gesture>,
    /// Lanes collapsed to their heading.
    collapsed: BTreeSet<String>,
    /// The comment whose text is being edited.
    editing_comment: Option<usize>,
    /// Node rectangles drawn last frame (graph units).
    rects: BTreeMap<String, Rect>,
    /// The smallest text drawn last frame (screen points).
    smallest_text: Option<f32>,
    /// Edges drawn last frame, with their key.
    drawn_edges: Vec<(String, [Pos2; 2])>,
    /// How each edge drawn last frame was stroked, by key.
    drawn_dashes: BTreeMap<String, WireDash>,
    /// The words shown at the cursor while a link drag is over a node.
    link_hint: Option<(bool, String)>,
    /// Whether keys go to the canvas (the last press was in it).
    active: bool,
    /// Where the context menu was opened (graph units): what it adds goes there.
    menu_at: Pos2,
    /// The comment just opened for writing takes the keyboard next frame.
    focus_comment: bool,
    /// The lanes' headings this frame (wire labels keep off them).
    lane_headings: Vec<Rect>,
}

impl GraphCanvas {
    /// A canvas with its own id (two canvases must not share one).
    pub fn new(id: &str) -> Self {
        Self {
            id: egui::Id::new(("graph_canvas", id)),
            transform: TSTransform::IDENTITY,
            request: Some(ViewRequest::Fit),
            selected_nodes: BTreeSet::new(),
            selected_edges: BTreeSet::new(),
            selected_comment: None,
            gesture: None,
            collapsed: BTreeSet::new(),
            editing_comment: None,
            rects: BTreeMap::new(),
            smallest_text: None,
            drawn_edges: Vec::new(),
            drawn_dashes: BTreeMap::new(),
            link_hint: None,
            active: false,
            menu_at: Pos2::ZERO,
            focus_comment: false,
            lane_headings: Vec::new(),
        }
    }

    /// Fits the whole graph into the view next frame.
    pub fn fit(&mut self) {
        self.request = Some(ViewRequest::Fit);
    }

    /// Centres the node `id` next frame.
    pub fn centre_on(&mut self, id: &str) {
        self.request = Some(ViewRequest::CentreOn(id.to_owned()));
    }

    /// Graph units to screen points, as last drawn.
    pub fn transform(&self) -> TSTransform {
        self.transform
    }

    /// Node rectangles drawn last frame (graph units), by id.
    pub fn drawn_nodes(&self) -> &BTreeMap<String, Rect> {
        &self.rects
    }

    /// The edges drawn last frame (keys), each with its two ends (graph units).
    pub fn drawn_edges(&self) -> &[(String, [Pos2; 2])] {
        &self.drawn_edges
    }

    /// How the edge `key` was stroked last frame (none: not drawn).
    pub fn drawn_dash(&self, key: &str) -> Option<WireDash> {
        self.drawn_dashes.get(key).copied()
    }

    /// The smallest text drawn last frame, in screen points.
    pub fn smallest_text(&self) -> Option<f32> {
        self.smallest_text
    }

    /// The selected nodes.
    pub fn selected_nodes(&self) -> &BTreeSet<String> {
        &self.selected_nodes
    }

    /// The selected edges (keys).
    pub fn selected_edges(&self) -> &BTreeSet<String> {
        &self.selected_edges
    }

    /// Selects exactly these nodes (the app's selection moved), leaving edges unselected.
    pub fn select_only(&mut self, ids: impl IntoIterator<Item = String>) {
        self.selected_nodes = ids.into_iter().collect();
        self.selected_edges.clear();
    }

    /// Whether the lane `key` is collapsed.
    pub fn is_collapsed(&self, key: &str) -> bool {
        self.collapsed.contains(key)
    }

    /// Draws the canvas in the rest of `ui`; `can_link(from, pin, to)` says what a link drag
    /// would do (Ok: its words; Err: why not), `body` draws a node's own widgets in the room it
    /// asked for. Returns what the designer asked for.
    #[allow(clippy::too_many_lines)] // one frame: view, layer, nodes, pins, wires, labels, gestures, in paint order
    pub fn show(
        &mut self,
        ui: &mut egui::Ui,
        scene: &CanvasScene,
        comments: &mut Vec<Comment>,
        can_link: &dyn Fn(&str, usize, &str) -> Result<String, String>,
        body: &mut dyn FnMut(&mut egui::Ui, &CanvasNode),
    ) -> Vec<CanvasEvent> {
        let mut events = Vec::new();
        let view = super::visible_view(ui);
        // Drawn in the tab's own layer in screen space (text laid out at its size on screen
        // stays crisp; widgets report where they are); only the views' own widgets in node
        // bodies live in a layer that scales with the zoom.
        let (_, background) = ui.allocate_exact_size(view.size(), Sense::click_and_drag());
        let background = background.on_hover_cursor(CursorIcon::Default);
        self.apply_request(scene, view);
        let layer = egui::LayerId::new(ui.layer_id().order, self.id.with("layer"));
        // The canvas takes keys after a press inside it, until a press elsewhere, while no
        // text field has the keyboard (egui's focus does not stay on a canvas).
        if let Some(press) =
            ui.input(|input| input.pointer.any_pressed().then(|| input.pointer.interact_pos()).flatten())
        {
            self.active = view.contains(press) && ui.ctx().layer_id_at(press) == Some(ui.layer_id());
        }
        let focused = self.active && ui.memory(|memory| memory.focused().is_none());
        if focused {
            let pass = ui.ctx().cumulative_pass_nr();
            ui.ctx().data_mut(|data| data.insert_temp(egui::Id::new(KEYS_ID), pass));
        }
        let space_down = focused && ui.input(|input| input.key_down(Key::Space));

        // Pan (middle drag, space + drag) and zoom (wheel, pinch) about the pointer.
        let pan = background.dragged_by(egui::PointerButton::Middle)
            || (space_down && background.dragged_by(egui::PointerButton::Primary));
        if pan {
            self.transform.translation += background.drag_delta();
        }
        let pointer_in_view = ui.input(|input| input.pointer.hover_pos()).filter(|p| view.contains(*p));
        if let Some(pointer) = pointer_in_view
            && ui.ctx().layer_id_at(pointer) == Some(ui.layer_id())
        {
            let (scroll, zoom) = ui.input(|input| (input.smooth_scroll_delta, input.zoom_delta()));
            let factor = zoom * (scroll.y / 400.0).exp();
            if (factor - 1.0).abs() > f32::EPSILON {
                self.zoom_about(pointer, factor);
            }
        }
        let scale = self.transform.scaling;
        let detailed = scale >= DETAIL_SCALE;
        ui.ctx().set_sublayer(ui.layer_id(), layer);
        ui.ctx().set_transform_layer(layer, self.transform);
        let graph_view = self.transform.inverse() * view;
        let painter = GraphPainter { painter: ui.painter().with_clip_rect(view), to_screen: self.transform };
        painter.rect_filled(graph_view, 0.0, ui.visuals().extreme_bg_color);
        paint_grid(&painter, graph_view, scale, ui.visuals().faint_bg_color);
        let place = GraphUi { to_screen: self.transform, layer, clip: view };
        let mut smallest = f32::INFINITY;
        let mut note_text = |size_graph: f32| smallest = smallest.min(size_graph * scale);

        let pointer = ui.input(|input| input.pointer.hover_pos()).map(|p| self.transform.inverse() * p);
        let moving = match &self.gesture {
            Some(Gesture::Move(delta)) => Some(*delta),
            _ => None,
        };
        let comment_drag = match &self.gesture {
            Some(Gesture::Comment { resize: false, delta, inside, .. }) => Some((*delta, inside.clone())),
            _ => None,
        };
        let offset_of = |id: &str, selected: &BTreeSet<String>| -> Vec2 {
            let mut offset = Vec2::ZERO;
            if let Some(delta) = moving
                && selected.contains(id)
            {
                offset += delta;
            }
            if let Some((delta, inside)) = &comment_drag
                && inside.iter().any(|inner| inner == id)
            {
                offset += *delta;
            }
            offset
        };

        // Where every node is this frame (collapsed lanes hide theirs).
        let mut rects: BTreeMap<String, Rect> = BTreeMap::new();
        for node in &scene.nodes {
            if node.lane.as_ref().is_some_and(|lane| self.collapsed.contains(lane)) {
                continue;
            }
            let rect = node.rect_at(scale).translate(offset_of(&node.id, &self.selected_nodes));
            rects.insert(node.id.clone(), rect);
        }

        // Comments, then lanes, behind everything.
        self.comments_ui(ui, &place, &painter, comments, &rects, scale, &mut events, &mut note_text);
        let lane_anchor = self.lanes_ui(ui, &place, &painter, scene, &rects, scale, &mut note_text);

        // Nodes.
        let mut node_responses: Vec<(usize, egui::Response)> = Vec::new();
        for (index, node) in scene.nodes.iter().enumerate() {
            let Some(&rect) = rects.get(&node.id) else { continue };
            let response = place.interact(ui, rect, self.id.with(("node", &node.id)), Sense::click_and_drag());
            response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &node.title));
            if !rect.intersects(graph_view) {
                continue;
            }
            let selected = self.selected_nodes.contains(&node.id);
            let hovered_target =
                matches!(self.gesture, Some(Gesture::Link { .. })) && pointer.is_some_and(|p| rect.contains(p));
            paint_node(ui, &place, &painter, node, rect, scale, selected, hovered_target, &mut note_text);
            if detailed && node.body_height > 0.0 {
                let rows = node.lines.len().max(node.pins.len()) as f32;
                let top = rect.top() + HEADER_HEIGHT + rows * ROW_HEIGHT;
                let body_rect = Rect::from_min_size(
                    Pos2::new(rect.left() + 8.0, top),
                    Vec2::new(rect.width() - 16.0, node.body_height),
                );
                let mut child = place.child(ui, body_rect, ("body", &node.id));
                body(&mut child, node);
                note_text(LINE_SIZE);
            }
            node_responses.push((index, response));
        }

        // Pins (detailed only): a drag from one starts a link.
        let mut pin_started: Option<(String, usize)> = None;
        {
            // Zoomed out, a node keeps one handle: its first pin, on its right edge.
            let radius = PIN_RADIUS / scale.min(1.0);
            for node in &scene.nodes {
                let Some(&rect) = rects.get(&node.id) else { continue };
                let shown = if detailed { node.pins.len() } else { node.pins.len().min(1) };
                for (pin_index, pin) in node.pins.iter().enumerate().take(shown) {
                    let centre = if detailed { pin_centre(rect, pin_index) } else { rect.right_center() };
                    let hit = Rect::from_center_size(centre, Vec2::splat(radius * 3.0));
                    let response =
                        place.interact(ui, hit, self.id.with(("pin", &node.id, pin_index)), Sense::click_and_drag());
                    response.widget_info(|| {
                        egui::WidgetInfo::labeled(
                            egui::WidgetType::Button,
                            true,
                            format!("{} link from {}", pin.label, node.title),
                        )
                    });
                    let response = response.on_hover_cursor(CursorIcon::Crosshair);
                    let fill = if response.hovered() { Color32::WHITE } else { pin.colour };
                    painter.circle(
                        centre,
                        radius,
                        fill,
                        Stroke::new(1.5 / scale.min(1.0), Color32::from_black_alpha(160)),
                    );
                    if response.drag_started() {
                        pin_started = Some((node.id.clone(), pin_index));
                    }
                }
            }
        }
        if let Some((from, pin)) = pin_started {
            let at = pointer.unwrap_or_default();
            self.gesture = Some(Gesture::Link { from, pin, at });
        }

        // Wires, above the nodes.
        let anchor = |id: &str| -> Option<Rect> { rects.get(id).copied().or_else(|| lane_anchor.get(id).copied()) };
        let mut hovered_edge: Option<usize> = None;
        let mut best = 7.0 / scale;
        let mut wire_points: Vec<Option<Vec<Pos2>>> = Vec::with_capacity(scene.edges.len());
        self.drawn_edges.clear();
        self.drawn_dashes.clear();
        for (index, edge) in scene.edges.iter().enumerate() {
            let (Some(from), Some(to)) = (anchor(&edge.from), anchor(&edge.to)) else {
                wire_points.push(None);
                continue;
            };
            let start = if detailed && rects.contains_key(&edge.from) {
                pin_centre(from, edge.pin)
            } else {
                from.right_center()
            };
            let end = Pos2::new(to.left(), to.top() + HEADER_HEIGHT.min(to.height()) / 2.0);
            self.drawn_edges.push((edge.key.clone(), [start, end]));
            self.drawn_dashes.insert(edge.key.clone(), edge.dash);
            let points = wire_curve(start, end);
            let bounds = Rect::from_points(&points).expand(4.0);
            if !bounds.intersects(graph_view) {
                wire_points.push(None);
                continue;
            }
            if self.gesture.is_none()
                && let Some(p) = pointer
                && bounds.expand(best).contains(p)
            {
                let distance = polyline_distance(&points, p);
                if distance < best {
                    best = distance;
                    hovered_edge = Some(index);
                }
            }
            wire_points.push(Some(points));
        }
        for (index, edge) in scene.edges.iter().enumerate() {
            let Some(Some(points)) = wire_points.get(index) else { continue };
            let selected = self.selected_edges.contains(&edge.key);
            let hovered = hovered_edge == Some(index);
            let width = if selected || hovered { 4.0 } else { 2.0 };
            let colour = if hovered { edge.colour.gamma_multiply(1.3) } else { edge.colour };
            if selected {
                painter.add(Shape::line(points.clone(), Stroke::new(8.0, colour.gamma_multiply(0.35))));
            }
            paint_wire(&painter, points, Stroke::new(width / scale.max(0.5), colour), edge.dash, scale);
            paint_arrow(&painter, points, colour, scale);
        }

        // Wire labels: readable chips at the wire's middle, clickable.
        let mut clicked_edge: Option<usize> = None;
        for (index, edge) in scene.edges.iter().enumerate() {
            let Some(Some(points)) = wire_points.get(index) else { continue };
            let Some(&middle) = points.get(points.len() / 2) else { continue };
            let id = self.id.with(("edge", &edge.key));
            let label_rect = edge.label.as_ref().map(|label| {
                let size = (MIN_TEXT_POINTS + 1.0) / scale.min(1.0);
                note_text(size);
                let galley = painter.layout_no_wrap(label.clone(), FontId::proportional(size), edge.colour);
                let size = painter.size(&galley) + Vec2::new(8.0, 4.0) / scale.min(1.0);
                // The label goes at the point along the wire where it covers the least: a node
                // weighs more than a lane's heading; the middle wins ties.
                let covered = |rect: &Rect| -> f32 {
                    let area = |other: &Rect| other.intersect(*rect).area().max(0.0);
                    let nodes: f32 = rects.values().filter(|node| node.intersects(*rect)).map(area).sum();
                    let headings: f32 =
                        self.lane_headings.iter().filter(|heading| heading.intersects(*rect)).map(area).sum();
                    nodes * 10.0 + headings
                };
                let rect = [12, 8, 16, 5, 19, 3, 21]
                    .iter()
                    .filter_map(|&at| points.get(at))
                    .map(|&at| Rect::from_center_size(at, size))
                    .fold(None, |best: Option<(f32, Rect)>, rect| {
                        let cost = covered(&rect);
                        match best {
                            Some((best_cost, _)) if best_cost <= cost => best,
                            _ => Some((cost, rect)),
                        }
                    })
                    .map_or_else(|| Rect::from_center_size(middle, size), |(_, rect)| rect);
                painter.rect_filled(rect, 4.0, ui.visuals().panel_fill.gamma_multiply(0.92));
                painter.rect_stroke(rect, 4.0, Stroke::new(1.0, edge.colour), StrokeKind::Inside);
                painter.galley(rect.center() - painter.size(&galley) / 2.0, galley, edge.colour);
                rect
            });
            let hit = label_rect.unwrap_or_else(|| Rect::from_center_size(middle, Vec2::splat(12.0 / scale)));
            let response = place.interact(ui, hit, id, Sense::click());
            response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &edge.about));
            if response.clicked() {
                clicked_edge = Some(index);
            }
            if hovered_edge == Some(index) || response.hovered() {
                hovered_edge = Some(index);
            }
        }
        if let Some(index) = hovered_edge
            && let Some(edge) = scene.edges.get(index)
        {
            egui::Tooltip::always_open(
                ui.ctx().clone(),
                ui.layer_id(),
                self.id.with("edge_tip"),
                egui::PopupAnchor::Pointer,
            )
            .gap(12.0)
            .show(|ui| {
                ui.label(&edge.about);
                ui.label(egui::RichText::new("Click to select · Delete removes it").weak());
            });
            if background.clicked() || node_responses.iter().any(|(_, response)| response.clicked()) {
                clicked_edge = Some(index);
            }
        }

        // Clicks and drags on nodes.
        let modifiers = ui.input(|input| input.modifiers);
        let mut node_clicked = false;
        for (index, response) in &node_responses {
            let Some(node) = scene.nodes.get(*index) else { continue };
            if response.clicked() && clicked_edge.is_none() {
                node_clicked = true;
                self.selected_edges.clear();
                self.selected_comment = None;
                if modifiers.shift || modifiers.command {
                    if !self.selected_nodes.remove(&node.id) {
                        self.selected_nodes.insert(node.id.clone());
                    }
                } else {
                    self.selected_nodes = BTreeSet::from([node.id.clone()]);
                    events.push(CanvasEvent::Select(node.id.clone()));
                }
            }
            if response.double_clicked() {
                events.push(CanvasEvent::Open(node.id.clone()));
            }
            if response.drag_started_by(egui::PointerButton::Primary) && !space_down {
                if !self.selected_nodes.contains(&node.id) {
                    self.selected_nodes = BTreeSet::from([node.id.clone()]);
                    self.selected_edges.clear();
                    events.push(CanvasEvent::Select(node.id.clone()));
                }
                self.gesture = Some(Gesture::Move(Vec2::ZERO));
            }
            if response.dragged_by(egui::PointerButton::Primary)
                && let Some(Gesture::Move(delta)) = &mut self.gesture
            {
                *delta += response.drag_delta() / scale;
            }
            response.context_menu(|ui| {
                if ui.button("Select in inspector").clicked() {
                    events.push(CanvasEvent::Select(node.id.clone()));
                    ui.close();
                }
                if ui.button("Delete").clicked() {
                    let mut nodes: Vec<String> = self.selected_nodes.iter().cloned().collect();
                    if !self.selected_nodes.contains(&node.id) {
                        nodes = vec![node.id.clone()];
                    }
                    events.push(CanvasEvent::Delete { nodes, edges: Vec::new() });
                    ui.close();
                }
            });
        }
        if let Some(index) = clicked_edge
            && let Some(edge) = scene.edges.get(index)
        {
            if !(modifiers.shift || modifiers.command) {
                self.selected_nodes.clear();
                self.selected_edges.clear();
            }
            self.selected_edges.insert(edge.key.clone());
            self.selected_comment = None;
        }

        // The gesture under way.
        let released = ui.input(|input| input.pointer.any_released());
        match self.gesture.clone() {
            Some(Gesture::Move(delta)) if released => {
                if delta != Vec2::ZERO {
                    events.push(CanvasEvent::Move(self.selected_nodes.iter().cloned().collect(), delta));
                }
                self.gesture = None;
            }
            Some(Gesture::Move(_)) => {}
            Some(Gesture::Link { from, pin, at }) => {
                let at = pointer.unwrap_or(at);
                let target = scene
                    .nodes
                    .iter()
                    .rev()
                    .find(|node| rects.get(&node.id).is_some_and(|rect| rect.expand(6.0 / scale).contains(at)));
                let verdict = target.map(|node| can_link(&from, pin, &node.id));
                let colour = scene
                    .nodes
                    .iter()
                    .find(|node| node.id == from)
                    .and_then(|node| node.pins.get(pin))
                    .map_or(Color32::WHITE, |pin| pin.colour);
                let start =
                    rects.get(&from).map(|rect| if detailed { pin_centre(*rect, pin) } else { rect.right_center() });
                if let Some(start) = start {
                    let points = wire_curve(start, at);
                    paint_wire(&painter, &points, Stroke::new(3.0 / scale.max(0.5), colour), WireDash::Solid, scale);
                }
                self.link_hint = verdict.as_ref().map(|verdict| match verdict {
                    Ok(words) => (true, words.clone()),
                    Err(why) => (false, why.clone()),
                });
                if released {
                    match (target, verdict) {
                        (Some(node), Some(Ok(_))) => {
                            events.push(CanvasEvent::Connect { from, pin, to: node.id.clone() });
                        }
                        (_, Some(Err(why))) => events.push(CanvasEvent::Refused(why)),
                        _ => events.push(CanvasEvent::Refused(
                            "Nothing linked: drop the wire on a node (anywhere on it)".to_owned(),
                        )),
                    }
                    self.gesture = None;
                    self.link_hint = None;
                } else {
                    self.gesture = Some(Gesture::Link { from, pin, at });
                    ui.ctx().set_cursor_icon(CursorIcon::Grabbing);
                }
            }
            Some(Gesture::Box(start)) => {
                let end = pointer.unwrap_or(start);
                let area = Rect::from_two_pos(start, end);
                painter.rect(
                    area,
                    0.0,
                    ui.visuals().selection.bg_fill.gamma_multiply(0.15),
                    Stroke::new(1.0 / scale, ui.visuals().selection.stroke.color),
                    StrokeKind::Inside,
                );
                if released {
                    let caught: BTreeSet<String> =
                        rects.iter().filter(|(_, rect)| area.intersects(**rect)).map(|(id, _)| id.clone()).collect();
                    if !(modifiers.shift || modifiers.command) {
                        self.selected_nodes.clear();
                        self.selected_edges.clear();
                    }
                    self.selected_nodes.extend(caught);
                    if let [only] = self.selected_nodes.iter().collect::<Vec<_>>().as_slice() {
                        events.push(CanvasEvent::Select((*only).clone()));
                    }
                    self.gesture = None;
                }
            }
            Some(Gesture::Comment { index, resize, delta, inside }) => {
                if released {
                    if let Some(comment) = comments.get_mut(index) {
                        let rect = comment.rect();
                        let moved = if resize {
                            Rect::from_min_size(rect.min, (rect.size() + delta).max(Vec2::new(80.0, 40.0)))
                        } else {
                            rect.translate(delta)
                        };
                        comment.set_rect(moved);
                        events.push(CanvasEvent::CommentsChanged);
                    }
                    if !resize && !inside.is_empty() && delta != Vec2::ZERO {
                        events.push(CanvasEvent::Move(inside, delta));
                    }
                    self.gesture = None;
                }
            }
            None => {
                if background.drag_started_by(egui::PointerButton::Primary)
                    && !space_down
                    && let Some(start) = ui.input(|input| input.pointer.press_origin())
                {
                    self.gesture = Some(Gesture::Box(self.transform.inverse() * start));
                }
            }
        }
        if background.clicked() && clicked_edge.is_none() && !node_clicked {
            self.selected_nodes.clear();
            self.selected_edges.clear();
            self.selected_comment = None;
            self.editing_comment = None;
        }
        if background.secondary_clicked()
            && let Some(at) = background.interact_pointer_pos()
        {
            self.menu_at = self.transform.inverse() * at;
        }
        let at = self.menu_at;
        background.context_menu(|ui| {
            if ui.button(format!("New {} here", scene.noun)).clicked() {
                events.push(CanvasEvent::NewNode(at));
                ui.close();
            }
            if ui.button("Add a comment here").clicked() {
                let mut comment = Comment::default();
                comment.set_rect(Rect::from_min_size(at, Vec2::new(320.0, 180.0)));
                comments.push(comment);
                self.editing_comment = Some(comments.len() - 1);
                self.focus_comment = true;
                events.push(CanvasEvent::CommentsChanged);
                ui.close();
            }
        });
        if let Some((ok, words)) = &self.link_hint
            && matches!(self.gesture, Some(Gesture::Link { .. }))
        {
            let colour = if *ok { Color32::from_rgb(0x7f, 0xd1, 0x6d) } else { ui.visuals().error_fg_color };
            egui::Tooltip::always_open(
                ui.ctx().clone(),
                ui.layer_id(),
                self.id.with("link_tip"),
                egui::PopupAnchor::Pointer,
            )
            .gap(16.0)
            .show(|ui| ui.label(egui::RichText::new(words).color(colour)));
        }

        // Keys, while the canvas has the focus.
        if focused && self.editing_comment.is_none() {
            self.keys_ui(ui, comments, &rects, pointer.unwrap_or(graph_view.center()), &mut events);
        }

        self.minimap_ui(ui, &rects, view);
        self.rects = rects;
        self.smallest_text = smallest.is_finite().then_some(smallest);
        events
    }

    fn apply_request(&mut self, scene: &CanvasScene, view: Rect) {
        let Some(request) = self.request.take() else { return };
        let content = |filter: &dyn Fn(&CanvasNode) -> bool| {
            scene.nodes.iter().filter(|node| filter(node)).map(CanvasNode::full_rect).reduce(Rect::union)
        };
        let target = match &request {
            ViewRequest::Fit => content(&|_| true),
            ViewRequest::FrameSelection => content(&|node| self.selected_nodes.contains(&node.id)),
            ViewRequest::CentreOn(id) => content(&|node| node.id == *id),
        };
        let Some(target) = target else {
            if scene.nodes.is_empty() {
                self.transform = TSTransform::new(view.min.to_vec2() + Vec2::new(40.0, 40.0), 1.0);
            }
            return;
        };
        // Fit at the largest zoom that shows it; a fit that would go below the detail level
        // tries again with the chips' smaller rectangles.
        let mut fitted = super::fit_transform(target, view, MIN_SCALE);
        if fitted.scaling < DETAIL_SCALE && matches!(request, ViewRequest::Fit | ViewRequest::FrameSelection) {
            let chips = scene
                .nodes
                .iter()
                .filter(|node| request == ViewRequest::Fit || self.selected_nodes.contains(&node.id))
                .map(|node| node.rect_at(fitted.scaling))
                .reduce(Rect::union)
                .unwrap_or(target);
            fitted = super::fit_transform(chips, view, MIN_SCALE);
        }
        if let ViewRequest::CentreOn(_) = request {
            fitted = super::centre_on(target.center(), view, self.transform.scaling.max(DETAIL_SCALE));
        }
        self.transform = fitted;
    }

    fn zoom_about(&mut self, pointer: Pos2, factor: f32) {
        let wanted = (self.transform.scaling * factor).clamp(MIN_SCALE, MAX_SCALE);
        let in_graph = self.transform.inverse() * pointer;
        self.transform = TSTransform::new(pointer.to_vec2() - in_graph.to_vec2() * wanted, wanted);
    }

    #[allow(clippy::too_many_arguments)] // the parts of one frame, passed apart to keep borrows short
    fn comments_ui(
        &mut self,
        ui: &mut egui::Ui,
        place: &GraphUi,
        painter: &GraphPainter,
        comments: &mut [Comment],
        rects: &BTreeMap<String, Rect>,
        scale: f32,
        events: &mut Vec<CanvasEvent>,
        note_text: &mut dyn FnMut(f32),
    ) {
        let gesture = self.gesture.clone();
        for (index, comment) in comments.iter_mut().enumerate() {
            let mut rect = comment.rect();
            if let Some(Gesture::Comment { index: moving, resize, delta, .. }) = &gesture
                && *moving == index
            {
                rect = if *resize {
                    Rect::from_min_size(rect.min, (rect.size() + *delta).max(Vec2::new(80.0, 40.0)))
                } else {
                    rect.translate(*delta)
                };
            }
            let selected = self.selected_comment == Some(index);
            let tint = Color32::from_rgb(0xd8, 0xc0, 0x6a);
            painter.rect(
                rect,
                6.0,
                tint.gamma_multiply(0.08),
                Stroke::new(if selected { 2.5 } else { 1.0 } / scale.min(1.0), tint.gamma_multiply(0.8)),
                StrokeKind::Inside,
            );
            let heading_size = (TITLE_SIZE).max(MIN_TEXT_POINTS / scale);
            note_text(heading_size);
            let heading_height = heading_size + 10.0;
            let heading = Rect::from_min_size(rect.min, Vec2::new(rect.width(), heading_height));
            let first_line = match comment.text.lines().next() {
                Some(line) if !line.trim().is_empty() => line.to_owned(),
                _ => "Comment".to_owned(),
            };
            if self.editing_comment == Some(index) {
                let edit_rect = Rect::from_min_size(rect.min + Vec2::new(6.0, 4.0), rect.size() - Vec2::new(12.0, 8.0));
                let mut child = place.screen_child(ui, edit_rect, ("comment_text", index));
                let edit = child.add(
                    egui::TextEdit::multiline(&mut comment.text)
                        .desired_width(edit_rect.width() * scale)
                        .desired_rows(3)
                        .hint_text("Comment"),
                );
                edit.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::TextEdit, true, "Comment text"));
                if std::mem::take(&mut self.focus_comment) {
                    edit.request_focus();
                }
                if edit.changed() {
                    events.push(CanvasEvent::CommentsChanged);
                }
                if edit.lost_focus() {
                    self.editing_comment = None;
                }
                continue;
            }
            painter.text(
                heading.left_center() + Vec2::new(8.0, 0.0),
                Align2::LEFT_CENTER,
                &first_line,
                FontId::proportional(heading_size),
                tint,
            );
            let rest: Vec<&str> = comment.text.lines().skip(1).collect();
            if !rest.is_empty() {
                let size = LINE_SIZE.max(MIN_TEXT_POINTS / scale);
                note_text(size);
                let galley = painter.layout(
                    rest.join("\n"),
                    FontId::proportional(size),
                    ui.visuals().text_color(),
                    rect.width() - 16.0,
                );
                painter.galley(heading.left_bottom() + Vec2::new(8.0, 2.0), galley, Color32::PLACEHOLDER);
            }
            let response = place.interact(ui, heading, self.id.with(("comment", index)), Sense::click_and_drag());
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::WidgetType::Button, true, format!("Comment {first_line}"))
            });
            let unit = 1.0 / scale.min(1.0);
            let grip = Rect::from_center_size(rect.right_bottom() - Vec2::splat(8.0 * unit), Vec2::splat(14.0 * unit));
            let resize = place.interact(ui, grip, self.id.with(("comment_grip", index)), Sense::drag());
            let resize = resize.on_hover_cursor(CursorIcon::ResizeNwSe);
            painter.line_segment([grip.left_bottom(), grip.right_top()], Stroke::new(1.5 / scale, tint));
            if response.clicked() {
                self.selected_comment = Some(index);
                self.selected_nodes.clear();
                self.selected_edges.clear();
            }
            if response.double_clicked() {
                self.editing_comment = Some(index);
                self.focus_comment = true;
            }
            if response.drag_started() {
                let inside = rects.iter().filter(|(_, r)| rect.contains_rect(**r)).map(|(id, _)| id.clone()).collect();
                self.gesture = Some(Gesture::Comment { index, resize: false, delta: Vec2::ZERO, inside });
            }
            if resize.drag_started() {
                self.gesture = Some(Gesture::Comment { index, resize: true, delta: Vec2::ZERO, inside: Vec::new() });
            }
            if (response.dragged() || resize.dragged())
                && let Some(Gesture::Comment { delta, .. }) = &mut self.gesture
            {
                *delta += if response.dragged() { response.drag_delta() } else { resize.drag_delta() } / scale;
            }
        }
    }

    /// Draws the lanes behind their nodes, with a heading that collapses them; returns where
    /// the nodes of a collapsed lane are drawn instead (its heading chip), by node id.
    #[allow(clippy::too_many_arguments)] // the parts of one frame, passed apart to keep borrows short
    fn lanes_ui(
        &mut self,
        ui: &mut egui::Ui,
        place: &GraphUi,
        painter: &GraphPainter,
        scene: &CanvasScene,
        rects: &BTreeMap<String, Rect>,
        scale: f32,
        note_text: &mut dyn FnMut(f32),
    ) -> BTreeMap<String, Rect> {
        let mut anchors = BTreeMap::new();
        self.lane_headings.clear();
        let heading_size = TITLE_SIZE.max((MIN_TEXT_POINTS + 1.0) / scale);
        let mut collapsed_row = 0.0;
        for lane in &scene.lanes {
            let members: Vec<&CanvasNode> =
                scene.nodes.iter().filter(|node| node.lane.as_deref() == Some(lane.key.as_str())).collect();
            if members.is_empty() {
                continue;
            }
            let collapsed = self.collapsed.contains(&lane.key);
            let heading_height = LANE_HEADER.max(heading_size + 10.0);
            let area = if collapsed {
                let first =
                    members.iter().map(|node| node.pos).fold(Pos2::new(f32::INFINITY, f32::INFINITY), Pos2::min);
                let rect = Rect::from_min_size(
                    first - Vec2::new(LANE_PADDING, LANE_PADDING + heading_height) + Vec2::new(0.0, collapsed_row),
                    Vec2::new(280.0_f32.max(heading_size * 16.0), heading_height),
                );
                collapsed_row += 0.0;
                for node in &members {
                    anchors.insert(node.id.clone(), rect);
                }
                rect
            } else {
                let Some(content) = members.iter().filter_map(|node| rects.get(&node.id)).copied().reduce(Rect::union)
                else {
                    continue;
                };
                let rect = content.expand(LANE_PADDING);
                Rect::from_min_max(rect.min - Vec2::new(0.0, heading_height), rect.max)
            };
            painter.rect(
                area,
                8.0,
                lane.colour.gamma_multiply(0.07),
                Stroke::new(1.0 / scale.min(1.0), lane.colour.gamma_multiply(0.5)),
                StrokeKind::Inside,
            );
            note_text(heading_size);
            let arrow = if collapsed { "▶" } else { "▼" };
            let words = if collapsed {
                format!("{arrow} {} ({} acts)", lane.label, members.len())
            } else {
                format!("{arrow} {}", lane.label)
            };
            let galley = painter.layout_no_wrap(words, FontId::proportional(heading_size), lane.colour);
            let area = Rect::from_min_size(
                area.min,
                Vec2::new(area.width().max(painter.size(&galley).x + 24.0), area.height()),
            );
            let heading = Rect::from_min_size(area.min, Vec2::new(area.width(), heading_height));
            self.lane_headings.push(heading);
            painter.rect(
                area,
                8.0,
                lane.colour.gamma_multiply(0.07),
                Stroke::new(1.0 / scale.min(1.0), lane.colour.gamma_multiply(0.5)),
                StrokeKind::Inside,
            );
            painter.galley(heading.left_center() + Vec2::new(8.0, -painter.size(&galley).y / 2.0), galley, lane.colour);
            let response = place.interact(ui, heading, self.id.with(("lane", &lane.key)), Sense::click());
            let name =
                if collapsed { format!("Expand lane {}", lane.label) } else { format!("Collapse lane {}", lane.label) };
            response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &name));
            let response = response.on_hover_text(if collapsed {
                "Show this lane's acts"
            } else {
                "Fold this lane to its heading"
            });
            if response.clicked() && !self.collapsed.remove(&lane.key) {
                self.collapsed.insert(lane.key.clone());
            }
        }
        anchors
    }

    fn keys_ui(
        &mut self,
        ui: &mut egui::Ui,
        comments: &mut Vec<Comment>,
        rects: &BTreeMap<String, Rect>,
        pointer: Pos2,
        events: &mut Vec<CanvasEvent>,
    ) {
        let (delete, frame, home, all, escape, copy, paste, paste_key) = ui.input_mut(|input| {
            let delete =
                input.consume_key(Modifiers::NONE, Key::Delete) || input.consume_key(Modifiers::NONE, Key::Backspace);
            let frame = input.consume_key(Modifiers::NONE, Key::F);
            let home = input.consume_key(Modifiers::NONE, Key::Home);
            let all = input.consume_key(Modifiers::COMMAND, Key::A);
            let escape = input.consume_key(Modifiers::NONE, Key::Escape);
            let copy = input.events.iter().any(|event| matches!(event, egui::Event::Copy))
                || input.consume_key(Modifiers::COMMAND, Key::C);
            let paste = input.events.iter().find_map(|event| match event {
                egui::Event::Paste(text) => Some(text.clone()),
                _ => None,
            });
            let paste_key = input.consume_key(Modifiers::COMMAND, Key::V);
            (delete, frame, home, all, escape, copy, paste, paste_key)
        });
        if delete {
            if let Some(index) = self.selected_comment.take() {
                if index < comments.len() {
                    comments.remove(index);
                    events.push(CanvasEvent::CommentsChanged);
                }
            } else if !self.selected_nodes.is_empty() || !self.selected_edges.is_empty() {
                events.push(CanvasEvent::Delete {
                    nodes: self.selected_nodes.iter().cloned().collect(),
                    edges: self.selected_edges.iter().cloned().collect(),
                });
                self.selected_edges.clear();
            }
        }
        if frame {
            self.request =
                Some(if self.selected_nodes.is_empty() { ViewRequest::Fit } else { ViewRequest::FrameSelection });
        }
        if home {
            self.request = Some(ViewRequest::Fit);
        }
        if all {
            self.selected_nodes = rects.keys().cloned().collect();
        }
        if escape {
            self.selected_nodes.clear();
            self.selected_edges.clear();
            self.gesture = None;
        }
        if copy && !self.selected_nodes.is_empty() {
            events.push(CanvasEvent::Copy(self.selected_nodes.iter().cloned().collect()));
        }
        if paste.is_some() || paste_key {
            events.push(CanvasEvent::Paste(paste, pointer));
        }
    }

    /// A small map of the whole graph in the view's corner, when the graph does not fit; a
    /// click or drag on it moves the view there.
    fn minimap_ui(&mut self, ui: &mut egui::Ui, rects: &BTreeMap<String, Rect>, view: Rect) {
        let Some(content) = rects.values().copied().reduce(Rect::union) else { return };
        let seen = self.transform.inverse() * view;
        if seen.contains_rect(content) {
            return;
        }
        let size = Vec2::new(200.0, 140.0).min(view.size() * 0.3);
        let frame = Rect::from_min_size(view.right_bottom() - size - Vec2::splat(10.0), size);
        let whole = content.union(seen);
        let scale = (frame.width() / whole.width()).min(frame.height() / whole.height());
        let origin = frame.center() - whole.center().to_vec2() * scale;
        let to_map = |p: Pos2| origin + p.to_vec2() * scale;
        let painter = ui.painter().clone().with_clip_rect(frame);
        painter.rect_filled(frame, 4.0, ui.visuals().panel_fill.gamma_multiply(0.95));
        for (id, rect) in rects {
            let colour = if self.selected_nodes.contains(id) {
                ui.visuals().selection.stroke.color
            } else {
                ui.visuals().weak_text_color()
            };
            painter.rect_filled(Rect::from_min_max(to_map(rect.min), to_map(rect.max)), 1.0, colour);
        }
        painter.rect_stroke(
            Rect::from_min_max(to_map(seen.min), to_map(seen.max)),
            2.0,
            Stroke::new(1.5, ui.visuals().selection.stroke.color),
            StrokeKind::Inside,
        );
        painter.rect_stroke(frame, 4.0, ui.visuals().widgets.noninteractive.bg_stroke, StrokeKind::Inside);
        let response = ui.interact(frame, self.id.with("minimap"), Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "Minimap"));
        if (response.clicked() || response.dragged())
            && let Some(p) = response.interact_pointer_pos()
        {
            let target = ((p - origin) / scale).to_pos2();
            self.transform = super::centre_on(target, view, self.transform.scaling);
        }
    }
}

/// A painter taking graph units: shapes are moved and scaled to the screen; text is laid out
/// at its size on screen (so it stays crisp) and placed where its graph position lands.
struct GraphPainter {
    painter: egui::Painter,
    to_screen: TSTransform,
}

impl GraphPainter {
    fn add(&self, shape: impl Into<Shape>) {
        let mut shape = shape.into();
        shape.transform(self.to_screen);
        self.painter.add(shape);
    }

    fn extend(&self, shapes: impl IntoIterator<Item = Shape>) {
        let to_screen = self.to_screen;
        self.painter.extend(shapes.into_iter().map(|mut shape| {
            shape.transform(to_screen);
            shape
        }));
    }

    fn rect_filled(&self, rect: Rect, radius: impl Into<CornerRadius>, fill: Color32) {
        self.add(Shape::rect_filled(rect, radius, fill));
    }

    fn rect(&self, rect: Rect, radius: impl Into<CornerRadius>, fill: Color32, stroke: Stroke, kind: StrokeKind) {
        self.add(egui::epaint::RectShape::new(rect, radius, fill, stroke, kind));
    }

    fn rect_stroke(&self, rect: Rect, radius: impl Into<CornerRadius>, stroke: Stroke, kind: StrokeKind) {
        self.add(Shape::rect_stroke(rect, radius, stroke, kind));
    }

    fn circle(&self, centre: Pos2, radius: f32, fill: Color32, stroke: Stroke) {
        self.add(Shape::circle_filled(centre, radius, fill));
        self.add(Shape::circle_stroke(centre, radius, stroke));
    }

    fn line_segment(&self, points: [Pos2; 2], stroke: Stroke) {
        self.add(Shape::line_segment(points, stroke));
    }

    /// Lays out a job whose sizes are in graph units.
    fn layout_job(&self, mut job: egui::text::LayoutJob) -> std::sync::Arc<egui::Galley> {
        let scale = self.to_screen.scaling;
        for section in &mut job.sections {
            section.format.font_id.size *= scale;
        }
        job.wrap.max_width *= scale;
        self.painter.layout_job(job)
    }

    fn layout_no_wrap(&self, text: String, font: FontId, colour: Color32) -> std::sync::Arc<egui::Galley> {
        self.layout_job(egui::text::LayoutJob::simple_singleline(text, font, colour))
    }

    fn layout(&self, text: String, font: FontId, colour: Color32, wrap_width: f32) -> std::sync::Arc<egui::Galley> {
        self.layout_job(egui::text::LayoutJob::simple(text, font, colour, wrap_width))
    }

    /// A galley's size in graph units.
    fn size(&self, galley: &egui::Galley) -> Vec2 {
        galley.size() / self.to_screen.scaling
    }

    fn galley(&self, at: Pos2, galley: std::sync::Arc<egui::Galley>, fallback: Color32) {
        self.painter.galley((self.to_screen * at).round(), galley, fallback);
    }

    fn text(&self, at: Pos2, align: Align2, text: &str, font: FontId, colour: Color32) {
        let galley = self.layout_no_wrap(text.to_owned(), font, colour);
        let rect = align.anchor_size(self.to_screen * at, galley.size());
        self.painter.galley(rect.min.round(), galley, colour);
    }
}

/// Widgets placed in graph units: the canvas's own in the tab's layer, at their place on screen;
/// the views' body widgets in a layer that scales with the zoom.
struct GraphUi {
    to_screen: TSTransform,
    layer: egui::LayerId,
    clip: Rect,
}

impl GraphUi {
    fn interact(&self, ui: &egui::Ui, rect: Rect, id: egui::Id, sense: Sense) -> egui::Response {
        let on_screen = self.to_screen * rect;
        ui.interact(on_screen.intersect(self.clip), id, sense)
    }

    /// A child ui for widgets at `rect` (graph units), drawn at their size on screen.
    fn screen_child(&self, ui: &mut egui::Ui, rect: Rect, salt: impl std::hash::Hash + std::fmt::Debug) -> egui::Ui {
        let mut child = ui.new_child(UiBuilder::new().max_rect(self.to_screen * rect).id_salt(salt));
        child.set_clip_rect(self.clip);
        child
    }

    /// A child ui for widgets at `rect` (graph units), scaled with the zoom.
    fn child(&self, ui: &mut egui::Ui, rect: Rect, salt: impl std::hash::Hash + std::fmt::Debug) -> egui::Ui {
        let mut child = ui.new_child(UiBuilder::new().layer_id(self.layer).max_rect(rect).id_salt(salt));
        child.set_clip_rect(self.to_screen.inverse() * self.clip);
        child
    }
}

/// Where a canvas notes the pass in which it had the keys.
const KEYS_ID: &str = "graph_canvas_has_keys";

/// Whether a graph canvas had the keys in the last pass (the app's shortcuts then leave it the
/// keys it uses).
pub fn has_keys(ctx: &egui::Context) -> bool {
    let pass = ctx.cumulative_pass_nr();
    ctx.data(|data| data.get_temp::<u64>(egui::Id::new(KEYS_ID))).is_some_and(|at| at + 1 >= pass)
}

/// Whether the canvas uses this shortcut (Delete, F, Home, select all, copy, paste, Escape).
pub fn is_canvas_key(shortcut: egui::KeyboardShortcut) -> bool {
    let plain = shortcut.modifiers.is_none();
    let command = shortcut.modifiers == Modifiers::COMMAND;
    (plain && matches!(shortcut.logical_key, Key::Delete | Key::Backspace | Key::F | Key::Home | Key::Escape))
        || (command && matches!(shortcut.logical_key, Key::A | Key::C | Key::V))
}

/// The centre of a node's output pin `index` (graph units).
fn pin_centre(rect: Rect, index: usize) -> Pos2 {
    Pos2::new(rect.right(), rect.top() + HEADER_HEIGHT + (index as f32 + 0.5) * ROW_HEIGHT)
}

/// A faint dot grid, thinned out when zoomed out.
fn paint_grid(painter: &GraphPainter, area: Rect, scale: f32, colour: Color32) {
    let step = if scale >= 0.5 { 40.0 } else { 160.0 };
    let x0 = (area.left() / step).floor() * step;
    let y0 = (area.top() / step).floor() * step;
    let columns = ((area.width() / step) as usize).min(400);
    let rows = ((area.height() / step) as usize).min(400);
    let mut shapes = Vec::with_capacity(columns * rows / 4);
    for column in 0..=columns {
        for row in 0..=rows {
            let p = Pos2::new(x0 + column as f32 * step, y0 + row as f32 * step);
            shapes.push(Shape::rect_filled(Rect::from_center_size(p, Vec2::splat(2.0 / scale)), 0.0, colour));
        }
    }
    painter.extend(shapes);
}

#[allow(clippy::too_many_arguments, clippy::too_many_lines)] // one node's drawing at each zoom level, from the frame's parts
fn paint_node(
    ui: &mut egui::Ui,
    place: &GraphUi,
    painter: &GraphPainter,
    node: &CanvasNode,
    rect: Rect,
    scale: f32,
    selected: bool,
    link_target: bool,
    note_text: &mut dyn FnMut(f32),
) {
    let visuals = ui.visuals();
    let fill = visuals.widgets.noninteractive.bg_fill;
    let (icon, icon_colour) = &node.icon;
    let radius = CornerRadius::same(6);
    if let Some((colour, _)) = &node.mark {
        painter.rect_filled(rect.expand(6.0), 10.0, colour.gamma_multiply(0.35));
    }
    painter.rect_filled(rect, radius, fill);
    let stroke = if link_target {
        Stroke::new(3.0 / scale.min(1.0), Color32::from_rgb(0x7f, 0xd1, 0x6d))
    } else if selected {
        Stroke::new(2.5 / scale.min(1.0), visuals.selection.stroke.color)
    } else if let Some((colour, _)) = &node.mark {
        Stroke::new(3.0, *colour)
    } else {
        Stroke::new(1.0 / scale.min(1.0), visuals.widgets.noninteractive.bg_stroke.color)
    };
    // A coloured band on the left says what kind of item this is, at every zoom.
    painter.rect_filled(
        Rect::from_min_size(rect.min, Vec2::new(5.0 / scale.min(1.0), rect.height())),
        CornerRadius { nw: 6, sw: 6, ne: 0, se: 0 },
        *icon_colour,
    );
    painter.rect_stroke(rect, radius, stroke, StrokeKind::Inside);
    let text_colour = visuals.strong_text_color();
    if let Some((colour, words)) = &node.mark {
        let size = LINE_SIZE.max(MIN_TEXT_POINTS / scale);
        note_text(size);
        painter.text(
            rect.right_top() + Vec2::new(0.0, -4.0),
            Align2::RIGHT_BOTTOM,
            words,
            FontId::proportional(size),
            *colour,
        );
        let response = place.interact(
            ui,
            Rect::from_min_size(rect.left_top() - Vec2::new(0.0, size + 6.0), Vec2::new(rect.width(), size + 4.0)),
            egui::Id::new(("node_mark", &node.id)),
            Sense::hover(),
        );
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Label, true, words));
    }
    if scale < DETAIL_SCALE {
        // A chip: the title at a readable size on screen, cut to the node's width.
        let size = (MIN_TEXT_POINTS + 1.0) / scale;
        note_text(size);
        let short = if node.short_title.is_empty() { &node.title } else { &node.short_title };
        let room = rect.width() - 12.0 / scale.min(1.0);
        let one_line = |text: String, size: f32, colour: Color32| {
            let mut job = egui::text::LayoutJob::simple_singleline(text, FontId::proportional(size), colour);
            job.wrap = egui::text::TextWrapping::truncate_at_width(room.max(10.0));
            painter.layout_job(job)
        };
        let left = rect.left() + 8.0 / scale.min(1.0);
        if scale < COMPACT_SCALE {
            let galley = one_line(format!("{icon} {short}"), size, text_colour);
            painter.galley(Pos2::new(left, rect.center().y - painter.size(&galley).y / 2.0), galley, text_colour);
            return;
        }
        // Compact: the title (on two lines if need be), then as many lines as fit, all at a
        // readable size on screen.
        let mut job = egui::text::LayoutJob::simple(
            format!("{icon} {short}"),
            FontId::proportional(size),
            text_colour,
            room.max(10.0),
        );
        job.wrap.max_rows = 2;
        let galley = painter.layout_job(job);
        let gap = 3.0 / scale;
        let mut top = rect.top() + gap;
        top += painter.size(&galley).y + gap;
        painter.galley(Pos2::new(left, rect.top() + gap), galley, text_colour);
        let line_size = MIN_TEXT_POINTS / scale;
        for (line, colour) in &node.lines {
            if top + line_size * 1.3 > rect.bottom() {
                break;
            }
            note_text(line_size);
            let galley = one_line(line.clone(), line_size, *colour);
            let height = painter.size(&galley).y;
            painter.galley(Pos2::new(left, top), galley, *colour);
            top += height + gap * 0.5;
        }
        return;
    }
    note_text(TITLE_SIZE);
    let header = Rect::from_min_size(rect.min, Vec2::new(rect.width(), HEADER_HEIGHT));
    painter.text(
        header.left_center() + Vec2::new(12.0, 0.0),
        Align2::LEFT_CENTER,
        icon,
        FontId::proportional(TITLE_SIZE),
        *icon_colour,
    );
    let mut job =
        egui::text::LayoutJob::simple_singleline(node.title.clone(), FontId::proportional(TITLE_SIZE), text_colour);
    job.wrap = egui::text::TextWrapping::truncate_at_width(rect.width() - 42.0);
    let galley = painter.layout_job(job);
    painter.galley(
        Pos2::new(header.left() + 32.0, header.center().y - painter.size(&galley).y / 2.0),
        galley,
        text_colour,
    );
    let pin_room = node
        .pins
        .iter()
        .map(|pin| {
            painter.size(&painter.layout_no_wrap(pin.label.clone(), FontId::proportional(LINE_SIZE), pin.colour)).x
        })
        .fold(0.0, f32::max);
    for (row, (line, colour)) in node.lines.iter().enumerate() {
        note_text(LINE_SIZE);
        let top = rect.top() + HEADER_HEIGHT + row as f32 * ROW_HEIGHT;
        let mut job = egui::text::LayoutJob::simple_singleline(line.clone(), FontId::proportional(LINE_SIZE), *colour);
        let room = rect.width() - 20.0 - if row < node.pins.len() { pin_room + 14.0 } else { 0.0 };
        job.wrap = egui::text::TextWrapping::truncate_at_width(room.max(20.0));
        let galley = painter.layout_job(job);
        painter.galley(
            Pos2::new(rect.left() + 12.0, top + (ROW_HEIGHT - painter.size(&galley).y) / 2.0),
            galley,
            *colour,
        );
    }
    for (row, pin) in node.pins.iter().enumerate() {
        note_text(LINE_SIZE);
        let centre = pin_centre(rect, row);
        painter.text(
            centre - Vec2::new(PIN_RADIUS + 5.0, 0.0),
            Align2::RIGHT_CENTER,
            &pin.label,
            FontId::proportional(LINE_SIZE),
            pin.colour,
        );
    }
}

/// A wire's curve from `start` (leaving right) to `end` (entering left), as points.
fn wire_curve(start: Pos2, end: Pos2) -> Vec<Pos2> {
    let reach = ((end.x - start.x).abs() * 0.5).clamp(60.0, 240.0);
    let back = end.x < start.x + 20.0;
    let lift = if back { ((end.y - start.y).abs() * 0.25).max(80.0) } else { 0.0 };
    let c1 = start + Vec2::new(reach, if back { -lift.copysign(start.y - end.y + 0.1) } else { 0.0 });
    let c2 = end - Vec2::new(reach, if back { lift.copysign(start.y - end.y + 0.1) } else { 0.0 });
    let bezier = egui::epaint::CubicBezierShape::from_points_stroke(
        [start, c1, c2, end],
        false,
        Color32::TRANSPARENT,
        Stroke::NONE,
    );
    (0..=24).map(|step| bezier.sample(step as f32 / 24.0)).collect()
}

fn paint_wire(painter: &GraphPainter, points: &[Pos2], stroke: Stroke, dash: WireDash, scale: f32) {
    let unit = 1.0 / scale.min(1.0);
    match dash {
        WireDash::Solid => {
            painter.add(Shape::line(points.to_vec(), stroke));
        }
        WireDash::Dashed => {
            painter.extend(Shape::dashed_line(points, stroke, 10.0 * unit, 7.0 * unit));
        }
        WireDash::Dotted => {
            painter.extend(Shape::dotted_line(points, stroke.color, 7.0 * unit, stroke.width * 0.8));
        }
    }
}

fn paint_arrow(painter: &GraphPainter, points: &[Pos2], colour: Color32, scale: f32) {
    let (Some(&tip), Some(&before)) = (points.last(), points.get(points.len().saturating_sub(3))) else { return };
    let direction = (tip - before).normalized();
    if !direction.is_finite() {
        return;
    }
    let size = 9.0 / scale.min(1.0);
    let side = direction.rot90() * size * 0.5;
    let back = tip - direction * size;
    painter.add(Shape::convex_polygon(vec![tip, back + side, back - side], colour, Stroke::NONE));
}

/// The distance from `p` to a polyline.
fn polyline_distance(points: &[Pos2], p: Pos2) -> f32 {
    points
        .windows(2)
        .filter_map(|pair| match pair {
            [a, b] => {
                let ab = *b - *a;
                let t = if ab.length_sq() > 0.0 { ((p - *a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0) } else { 0.0 };
                Some((*a + ab * t).distance(p))
            }
            _ => None,
        })
        .fold(f32::INFINITY, f32::min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wire_is_found_near_its_curve_and_not_far_from_it() {
        let points = wire_curve(Pos2::new(0.0, 0.0), Pos2::new(300.0, 100.0));
        assert!(polyline_distance(&points, Pos2::new(150.0, 50.0)) < 5.0);
        assert!(polyline_distance(&points, Pos2::new(150.0, 200.0)) > 50.0);
    }

    #[test]
    fn chips_keep_their_title_readable() {
        for scale in [MIN_SCALE, 0.4, 0.6, 0.84] {
            assert!(chip_height(scale) * scale >= MIN_TEXT_POINTS + 9.0 - 0.01);
        }
    }
}
