//! The act-chain graph: acts as nodes (title, token, duration, a line of their text), every
//! link between them as a wire in its kind's colour and stroke, lanes by token and the
//! designer's comment frames, on the shared [`GraphCanvas`]. Dragging from a pin and dropping
//! anywhere on an act links them; Delete removes the selected links and acts; Ctrl+C/Ctrl+V
//! copy acts with the links among them; every edit is one undoable op.
//!
//! Positions: an act the designer moved keeps its place in the editor's layout file; the others
//! are placed once by the layered layout and then stay put until "Lay out again", so a changed
//! link never moves a node.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actforge_runtime::model::{Act, ActLink, Id, Rule};
use actforge_runtime::{Kind, Project};
use egui::{Color32, Pos2, Rect, RichText, Vec2};
use egui_phosphor::regular as icon;

use super::act_links::{
    ActEdge, LinkKind, act_edges, fresh_act_id, link_op, remove_modifier_links, without_direct_edge, without_link,
};
use super::graph_canvas::{
    CanvasEdge, CanvasEvent, CanvasLane, CanvasNode, CanvasPin, CanvasScene, GraphCanvas, WireDash,
};
use super::graph_layout::{Spacing, layered_layout};
use super::{GraphHighlight, HIGHLIGHT_COLOUR, LayoutStore, name_colour, paint_highlight_path};
use crate::document::{ItemKey, Op, SharedItem, where_used};
use crate::panels::inspector::InspectorAction;
use crate::style::{kind_colour, kind_icon};

/// The kind folder name acts' positions and comments are stored under.
const LAYOUT_KIND: &str = "acts";
/// An act node's width (graph units).
const NODE_WIDTH: f32 = 210.0;
/// The spacing of the automatic layout: a node and room for wires and their labels.
const SPACING: Spacing = Spacing { layer: 270.0, row: 110.0, component_gap: 90.0 };

/// An act as the graph shows it (rebuilt from the document; never saved).
#[derive(Clone, Debug)]
pub struct ActNode {
    /// The act's id.
    pub id: String,
    label: String,
    token: Option<String>,
    duration: String,
    text: String,
    initial: bool,
    edges: Vec<ActEdge>,
    /// The output pins, one per kind of link.
    outputs: Vec<LinkKind>,
}

impl ActNode {
    fn new(project: &Project, act: &Act) -> Self {
        let edges = act_edges(project, act);
        let mut outputs = vec![LinkKind::Next, LinkKind::Alt, LinkKind::Spawned];
        for edge in &edges {
            if !outputs.contains(&edge.kind) {
                outputs.push(edge.kind);
            }
        }
        Self {
            id: act.id.as_str().to_owned(),
            label: act.label.clone(),
            token: act.token.as_ref().map(|token| token.as_str().to_owned()),
            duration: act.duration_ticks.text().to_owned(),
            text: act.text.clone(),
            initial: act.initial,
            edges,
            outputs,
        }
    }

    /// The node's title (what tests and screen readers find).
    pub fn header_text(&self) -> String {
        if self.label.is_empty() || self.label == self.id {
            format!("Act {}", self.id)
        } else {
            format!("{} · {}", self.label.replace('\n', " "), self.id)
        }
    }

    fn lines(&self, visuals: &egui::Visuals) -> Vec<(String, Color32)> {
        let mut lines = Vec::new();
        let token = match &self.token {
            Some(token) => format!("{} {token}", kind_icon(Kind::Token)),
            None => format!("{} no token", kind_icon(Kind::Token)),
        };
        let initial = if self.initial { format!("  {} initial", icon::FLAG) } else { String::new() };
        lines.push((format!("{token}{initial}"), name_colour(self.token.as_deref().unwrap_or("-"))));
        let duration = if self.duration.is_empty() || self.duration == "0" {
            format!("{} at once", icon::TIMER)
        } else {
            format!("{} {} ticks", icon::TIMER, self.duration)
        };
        lines.push((duration, visuals.text_color()));
        let text = self.text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.is_empty() {
            lines.push((format!("“{text}”"), visuals.weak_text_color()));
        }
        lines
    }
}

/// What the graph reads while drawing.
pub struct GraphInput<'a> {
    /// The project (read-only).
    pub project: &'a Project,
    /// The document revision (the scene is rebuilt when it moves).
    pub revision: u64,
    /// The app's selection (drawn outlined).
    pub selection: Option<&'a ItemKey>,
    /// The project folder (stored positions live there); none for bundles.
    pub folder: Option<&'a Path>,
}

/// A deletion waiting for the designer's yes: acts other items still use.
struct PendingDelete {
    acts: Vec<String>,
    edges: Vec<String>,
    users: Vec<ItemKey>,
}

/// The act-chain graph's state between frames.
pub struct ActGraphView {
    canvas: GraphCanvas,
    /// The acts shown, rebuilt when the revision or the filter moves.
    nodes: Vec<ActNode>,
    /// Edge keys to what they are: start act and the link.
    edge_of: BTreeMap<String, (String, ActEdge)>,
    /// The revision and token filter the nodes were built for.
    built: Option<(u64, Option<String>)>,
    /// Where the acts the designer never moved were placed (kept until "Lay out again").
    auto: BTreeMap<String, Pos2>,
    token_filter: Option<String>,
    lanes: bool,
    find: String,
    store: LayoutStore,
    store_folder: Option<PathBuf>,
    /// The project folder the layout was last read for (`store_folder` is none when it did not read).
    store_read_from: Option<PathBuf>,
    store_dirty: bool,
    highlight: GraphHighlight,
    /// Acts drawn with the highlight in the last frame.
    drawn_highlight: BTreeSet<String>,
    /// The act under the pointer last frame.
    hovered: Option<String>,
    /// Connections asked for outside a drag (tests, menus), done next frame like a drag's.
    requested: Vec<(String, LinkKind, String)>,
    message: Option<String>,
    /// The app selection last seen, to follow it when it moves elsewhere.
    seen_selection: Option<ItemKey>,
    /// Acts copied with Ctrl+C (also on the system clipboard as RON).
    copied: Option<String>,
    confirm: Option<PendingDelete>,
}

impl Default for ActGraphView {
    fn default() -> Self {
        Self {
            canvas: GraphCanvas::new("acts"),
            nodes: Vec::new(),
            edge_of: BTreeMap::new(),
            built: None,
            auto: BTreeMap::new(),
            token_filter: None,
            lanes: true,
            find: String::new(),
            store: LayoutStore::default(),
            store_folder: None,
            store_read_from: None,
            store_dirty: false,
            highlight: GraphHighlight::default(),
            drawn_highlight: BTreeSet::new(),
            hovered: None,
            requested: Vec::new(),
            message: None,
            seen_selection: None,
            copied: None,
            confirm: None,
        }
    }
}

impl ActGraphView {
    /// Sets what the preview highlights (running acts, the path so far).
    pub fn set_highlight(&mut self, highlight: GraphHighlight) {
        self.highlight = highlight;
    }

    /// The act under the pointer last frame.
    pub fn hovered(&self) -> Option<&str> {
        self.hovered.as_deref()
    }

    /// The acts drawn highlighted in the last frame.
    pub fn drawn_highlight(&self) -> &BTreeSet<String> {
        &self.drawn_highlight
    }

    /// Asks to link `from` to `to` with `kind`, through the same path a dragged wire takes.
    pub fn request_connect(&mut self, from: &str, kind: LinkKind, to: &str) {
        self.requested.push((from.to_owned(), kind, to.to_owned()));
    }

    /// Where each shown act is, in graph units (top-left corners).
    pub fn positions(&self) -> BTreeMap<String, (f32, f32)> {
        self.nodes
            .iter()
            .map(|node| {
                let at = self.position(&node.id);
                (node.id.clone(), (at.x, at.y))
            })
            .collect()
    }

    /// The canvas (its transform, drawn nodes and wires, selection).
    pub fn canvas(&self) -> &GraphCanvas {
        &self.canvas
    }

    /// Centres the act `id` at a zoom that shows its details, next frame.
    pub fn centre_on(&mut self, id: &str) {
        self.canvas.centre_on(id);
    }

    /// The last message (refusals, save problems).
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    fn position(&self, id: &str) -> Pos2 {
        self.store.get(LAYOUT_KIND, id).or_else(|| self.auto.get(id).copied()).unwrap_or(Pos2::ZERO)
    }

    /// Rebuilds the nodes if the revision or the filter moved.
    pub fn rebuild_if_needed(&mut self, project: &Project, revision: u64, folder: Option<&Path>) {
        if self.store_read_from.as_deref() != folder {
            self.store_read_from = folder.map(Path::to_path_buf);
            match folder.map(LayoutStore::load).transpose() {
                Ok(store) => {
                    self.store = store.unwrap_or_default();
                    self.store_folder = folder.map(Path::to_path_buf);
                }
                Err(error) => {
                    // The designer's placements may still be in that file: lay out anew, and
                    // never write over it.
                    self.store = LayoutStore::default();
                    self.store_folder = None;
                    self.message =
                        Some(format!("The stored graph layout does not read ({error}); moved acts are not stored"));
                }
            }
            self.built = None;
            self.auto.clear();
            self.canvas.fit();
        }
        let key = (revision, self.token_filter.clone());
        if self.built.as_ref() == Some(&key) {
            return;
        }
        self.rebuild(project);
        self.built = Some(key);
    }

    /// The acts shown: all, or the chains of the filtered token.
    fn shown_acts<'a>(&self, project: &'a Project) -> Vec<&'a Act> {
        let Some(token) = &self.token_filter else { return project.acts.iter().collect() };
        let mut shown: BTreeSet<&str> = BTreeSet::new();
        let mut queue: Vec<&str> = project
            .acts
            .iter()
            .filter(|act| act.token.as_ref().is_some_and(|t| t.as_str() == token))
            .map(|act| act.id.as_str())
            .collect();
        while let Some(id) = queue.pop() {
            if !shown.insert(id) {
                continue;
            }
            if let Some(act) = project.acts.get(id) {
                for edge in act_edges(project, act) {
                    if let Some(target) = project.acts.get(&edge.to) {
                        queue.push(target.id.as_str());
                    }
                }
            }
        }
        project.acts.iter().filter(|act| shown.contains(act.id.as_str())).collect()
    }

    fn rebuild(&mut self, project: &Project) {
        self.nodes = self.shown_acts(project).into_iter().map(|act| ActNode::new(project, act)).collect();
        self.edge_of.clear();
        for node in &self.nodes {
            for (n, edge) in node.edges.iter().enumerate() {
                let key = format!("{}|{}|{}|{n}", node.id, edge.kind.label(), edge.to);
                self.edge_of.insert(key, (node.id.clone(), edge.clone()));
            }
        }
        let unplaced: Vec<&ActNode> = self
            .nodes
            .iter()
            .filter(|node| self.store.get(LAYOUT_KIND, &node.id).is_none() && !self.auto.contains_key(&node.id))
            .collect();
        if unplaced.is_empty() {
            return;
        }
        let laid = self.layout(project);
        if self.auto.is_empty() && self.store.positions.get(LAYOUT_KIND).is_none_or(BTreeMap::is_empty) {
            self.auto = laid;
            return;
        }
        // A few new acts among placed ones: each goes where the layout would put it, moved down
        // until it covers no other act.
        let unplaced: Vec<String> = unplaced.into_iter().map(|node| node.id.clone()).collect();
        for id in unplaced {
            let mut at = laid.get(&id).copied().unwrap_or(Pos2::ZERO);
            let taken: Vec<Rect> = self
                .nodes
                .iter()
                .filter(|node| {
                    node.id != id
                        && (self.store.get(LAYOUT_KIND, &node.id).is_some() || self.auto.contains_key(&node.id))
                })
                .map(|node| Rect::from_min_size(self.position(&node.id), Vec2::new(NODE_WIDTH, SPACING.row - 10.0)))
                .collect();
            let mut tries = 0;
            while tries < 500
                && taken
                    .iter()
                    .any(|rect| rect.intersects(Rect::from_min_size(at, Vec2::new(NODE_WIDTH, SPACING.row - 10.0))))
            {
                at.y += SPACING.row;
                tries += 1;
            }
            self.auto.insert(id, at);
        }
    }

    /// Where the layered layout puts every shown act; with lanes on, the acts of each token
    /// stacked in a band of their own, in the layers the whole graph gives them.
    fn layout(&self, project: &Project) -> BTreeMap<String, Pos2> {
        let ids: Vec<&str> = self.nodes.iter().map(|node| node.id.as_str()).collect();
        let edges: Vec<(&str, &str)> = self
            .nodes
            .iter()
            .flat_map(|node| node.edges.iter().map(|edge| (node.id.as_str(), edge.to.as_str())))
            .collect();
        let laid = layered_layout(&ids, &edges, SPACING);
        let at = |id: &str| laid.get(id).map_or(Pos2::ZERO, |&(x, y)| Pos2::new(x, y));
        if !self.lanes {
            return ids.iter().map(|id| ((*id).to_owned(), at(id))).collect();
        }
        let mut order: Vec<Option<String>> =
            project.tokens.iter().map(|token| Some(token.id.as_str().to_owned())).collect();
        order.push(None);
        let mut placed = BTreeMap::new();
        let mut top = 0.0;
        for lane in order {
            let mut members: Vec<&ActNode> = self.nodes.iter().filter(|node| node.token == lane).collect();
            if members.is_empty() {
                continue;
            }
            members.sort_by(|a, b| {
                let (a, b) = (at(&a.id), at(&b.id));
                a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y))
            });
            let mut rows_in_layer: BTreeMap<i64, f32> = BTreeMap::new();
            let mut deepest: f32 = 0.0;
            for node in members {
                let p = at(&node.id);
                let row = rows_in_layer.entry(p.x.round() as i64).or_insert(0.0);
                placed.insert(node.id.clone(), Pos2::new(p.x, top + *row));
                *row += SPACING.row;
                deepest = deepest.max(*row);
            }
            top += deepest + SPACING.component_gap;
        }
        placed
    }

    /// Draws the toolbar, legend and graph; edits become `actions`, messages for the log `log`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        input: &GraphInput<'_>,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        self.rebuild_if_needed(input.project, input.revision, input.folder);
        for (from, kind, to) in std::mem::take(&mut self.requested) {
            emit_link(input.project, &from, kind, &to, actions, &mut self.message);
        }
        self.follow_selection(input.selection);
        self.toolbar_ui(ui, input.project, actions);
        // The toolbar may have asked for a new layout or filter: the graph drawn below shows it.
        self.rebuild_if_needed(input.project, input.revision, input.folder);
        legend_ui(ui);
        if let Some(message) = &self.message {
            ui.label(RichText::new(message).color(ui.visuals().warn_fg_color));
        }
        self.graph_ui(ui, input, actions, log);
        self.confirm_ui(ui, input.project, actions);
        self.save_store(log);
    }

    /// Selects in the graph the act the app selected elsewhere (the browser, the inspector).
    fn follow_selection(&mut self, selection: Option<&ItemKey>) {
        if self.seen_selection.as_ref() == selection {
            return;
        }
        self.seen_selection = selection.cloned();
        if let Some(key) = selection.filter(|key| key.kind == Kind::Act) {
            if !self.canvas.selected_nodes().contains(&key.id) || self.canvas.selected_nodes().len() != 1 {
                self.canvas.select_only([key.id.clone()]);
            }
        } else {
            self.canvas.select_only([]);
        }
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, project: &Project, actions: &mut Vec<InspectorAction>) {
        ui.horizontal_wrapped(|ui| {
            if ui
                .button(format!("{} New act", icon::PLUS))
                .on_hover_text("Add an act (right-click the graph to place one)")
                .clicked()
            {
                let at = self
                    .nodes
                    .iter()
                    .map(|node| self.position(&node.id))
                    .fold(Pos2::ZERO, |a, b| Pos2::new(a.x.max(b.x), a.y.max(b.y)))
                    + Vec2::new(0.0, SPACING.row);
                self.new_act(project, at, actions);
            }
            ui.label("Token");
            let shown = self.token_filter.clone().unwrap_or_else(|| "All tokens".to_owned());
            let mut filter = self.token_filter.clone();
            egui::ComboBox::from_id_salt("act_graph_token").selected_text(shown).show_ui(ui, |ui| {
                ui.selectable_value(&mut filter, None, "All tokens");
                for token in &project.tokens {
                    ui.selectable_value(&mut filter, Some(token.id.as_str().to_owned()), token.id.as_str());
                }
            });
            if filter != self.token_filter {
                self.token_filter = filter;
                self.canvas.fit();
            }
            ui.checkbox(&mut self.lanes, "Lanes by token")
                .on_hover_text("Draw the acts of each token in a band of their own");
            if ui.button(format!("{} Fit", icon::FRAME_CORNERS)).on_hover_text("Show the whole graph (Home)").clicked()
            {
                self.canvas.fit();
            }
            if ui
                .button(format!("{} Lay out again", icon::TREE_STRUCTURE))
                .on_hover_text("Forget moved positions and place every act automatically (in lanes when they are on)")
                .clicked()
            {
                self.store.clear(LAYOUT_KIND);
                self.store_dirty = true;
                self.auto.clear();
                self.built = None;
                self.canvas.fit();
            }
            ui.label(icon::MAGNIFYING_GLASS);
            let label = ui.label("Find act");
            ui.add(egui::TextEdit::singleline(&mut self.find).hint_text("id or label").desired_width(140.0))
                .labelled_by(label.id);
        });
        let query = self.find.trim().to_lowercase();
        if query.is_empty() {
            return;
        }
        ui.horizontal_wrapped(|ui| {
            let found = self
                .nodes
                .iter()
                .filter(|node| node.id.contains(&query) || node.label.to_lowercase().contains(&query))
                .take(8)
                .map(|node| (node.id.clone(), node.header_text()))
                .collect::<Vec<_>>();
            if found.is_empty() {
                ui.label(RichText::new("No act shown matches.").weak());
            }
            for (id, text) in found {
                if ui.button(format!("Go to {text}")).clicked() {
                    self.canvas.centre_on(&id);
                    self.canvas.select_only([id.clone()]);
                    actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, id)));
                }
            }
        });
    }

    fn scene(&self, ui: &egui::Ui, project: &Project) -> CanvasScene {
        let visuals = ui.visuals();
        let nodes = self
            .nodes
            .iter()
            .map(|node| {
                let running = self.highlight.acts.contains(&node.id);
                CanvasNode {
                    id: node.id.clone(),
                    pos: self.position(&node.id),
                    width: NODE_WIDTH,
                    icon: (kind_icon(Kind::Act).to_owned(), kind_colour(Kind::Act)),
                    title: node.header_text(),
                    short_title: if node.label.is_empty() { node.id.clone() } else { node.label.replace('\n', " ") },
                    lines: node.lines(visuals),
                    pins: node
                        .outputs
                        .iter()
                        .map(|kind| CanvasPin { label: kind.label().to_owned(), colour: kind.colour() })
                        .collect(),
                    body_height: 0.0,
                    lane: self.lanes.then(|| node.token.clone().unwrap_or_default()),
                    mark: running.then(|| (HIGHLIGHT_COLOUR, format!("Running: {}", node.id))),
                }
            })
            .collect();
        let title_of: BTreeMap<&str, String> =
            self.nodes.iter().map(|node| (node.id.as_str(), node.header_text())).collect();
        let edges = self
            .edge_of
            .iter()
            .filter_map(|(key, (from, edge))| {
                let node = self.nodes.iter().find(|node| node.id == *from)?;
                let pin = node.outputs.iter().position(|kind| *kind == edge.kind)?;
                let to_title = title_of.get(edge.to.as_str())?;
                let words = edge.label();
                let gate = if words.is_empty() { String::new() } else { format!(" ({words})") };
                Some(CanvasEdge {
                    key: key.clone(),
                    from: from.clone(),
                    pin,
                    to: edge.to.clone(),
                    colour: edge.kind.colour(),
                    // Links that live in rules are dashed; spawns dotted; the rest solid.
                    dash: if !edge.is_direct() {
                        WireDash::Dashed
                    } else if matches!(edge.kind, LinkKind::Spawned | LinkKind::SpawnToken) {
                        WireDash::Dotted
                    } else {
                        WireDash::Solid
                    },
                    label: (!words.is_empty()).then_some(words),
                    about: format!("{} link: {} → {to_title}{gate}", edge.kind.label(), node.header_text()),
                })
            })
            .collect();
        let lanes = if self.lanes {
            let mut lanes: Vec<CanvasLane> = project
                .tokens
                .iter()
                .map(|token| CanvasLane {
                    key: token.id.as_str().to_owned(),
                    label: if token.label.is_empty() {
                        token.id.as_str().to_owned()
                    } else {
                        format!("{} · {}", token.label, token.id)
                    },
                    colour: name_colour(token.id.as_str()),
                })
                .collect();
            lanes.push(CanvasLane { key: String::new(), label: "No token".to_owned(), colour: name_colour("-") });
            lanes
        } else {
            Vec::new()
        };
        CanvasScene { nodes, edges, lanes, noun: "act" }
    }

    /// Notes the act under the pointer and, while the preview runs, shows why it cannot start
    /// now beside the pointer (the app works the reasons out for the act hovered last frame).
    fn why_not_ui(&mut self, ui: &egui::Ui) {
        let transform = self.canvas.transform();
        let pointer = ui.input(|input| input.pointer.hover_pos()).filter(|at| ui.clip_rect().contains(*at));
        self.hovered = pointer.and_then(|at| {
            let at = transform.inverse() * at;
            self.canvas.drawn_nodes().iter().find(|(_, rect)| rect.contains(at)).map(|(id, _)| id.clone())
        });
        let Some((act, reasons)) = &self.highlight.why_not else { return };
        if reasons.is_empty() || self.hovered.as_ref() != Some(act) {
            return;
        }
        let layer = egui::LayerId::new(egui::Order::Foreground, egui::Id::new("act_graph_why_not"));
        egui::Tooltip::always_open(
            ui.ctx().clone(),
            layer,
            egui::Id::new(("act_graph_why_not", act)),
            egui::PopupAnchor::Pointer,
        )
        .show(|ui| {
            ui.label(RichText::new(format!("Why can {act} not start now?")).strong());
            for reason in reasons {
                ui.label(format!("• {reason}"));
            }
        });
    }

    fn graph_ui(
        &mut self,
        ui: &mut egui::Ui,
        input: &GraphInput<'_>,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let scene = self.scene(ui, input.project);
        let project = input.project;
        let nodes = &self.nodes;
        let can_link = |from: &str, pin: usize, to: &str| -> Result<String, String> {
            let kind = nodes
                .iter()
                .find(|node| node.id == from)
                .and_then(|node| node.outputs.get(pin))
                .copied()
                .ok_or_else(|| "That pin is gone".to_owned())?;
            link_check(project, from, kind, to)
        };
        let mut comments = self.store.comments.get(LAYOUT_KIND).cloned().unwrap_or_default();
        let events = self.canvas.show(ui, &scene, &mut comments, &can_link, &mut |_, _| {});
        self.drawn_highlight = scene
            .nodes
            .iter()
            .filter(|node| node.mark.is_some() && self.canvas.drawn_nodes().contains_key(&node.id))
            .map(|node| node.id.clone())
            .collect();
        for event in events {
            match event {
                CanvasEvent::Select(id) | CanvasEvent::Open(id) => {
                    self.seen_selection = Some(ItemKey::new(Kind::Act, id.clone()));
                    actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, id)));
                }
                CanvasEvent::Move(ids, delta) => {
                    for id in ids {
                        let at = self.position(&id) + delta;
                        self.store.set(LAYOUT_KIND, &id, at);
                    }
                    self.store_dirty = true;
                }
                CanvasEvent::Connect { from, pin, to } => {
                    if let Some(kind) =
                        self.nodes.iter().find(|node| node.id == from).and_then(|node| node.outputs.get(pin))
                    {
                        emit_link(project, &from, *kind, &to, actions, &mut self.message);
                    }
                }
                CanvasEvent::Refused(why) => {
                    log.push(format!("Act graph: {why}"));
                    self.message = Some(why);
                }
                CanvasEvent::Delete { nodes, edges } => self.delete(project, nodes, edges, actions),
                CanvasEvent::Copy(ids) => self.copy(ui, project, &ids),
                CanvasEvent::Paste(text, at) => self.paste(project, text.as_deref(), at, actions, log),
                CanvasEvent::NewNode(at) => self.new_act(project, at, actions),
                CanvasEvent::CommentsChanged => {
                    self.store.comments.insert(LAYOUT_KIND.to_owned(), comments.clone());
                    self.store_dirty = true;
                }
            }
        }
        self.why_not_ui(ui);
        if self.highlight.path.len() >= 2 {
            let rects: BTreeMap<&str, Rect> =
                self.canvas.drawn_nodes().iter().map(|(id, rect)| (id.as_str(), *rect)).collect();
            paint_highlight_path(
                ui,
                ui.clip_rect(),
                "act_graph_path",
                &self.highlight.path,
                &rects,
                self.canvas.transform(),
            );
        }
    }

    fn new_act(&mut self, project: &Project, at: Pos2, actions: &mut Vec<InspectorAction>) {
        let id = fresh_act_id(project);
        let act = Act { id: Id::new(&id), label: "New act".to_owned(), ..Act::default() };
        self.store.set(LAYOUT_KIND, &id, at);
        self.store_dirty = true;
        actions.push(InspectorAction::Edit {
            op: Op::put(Arc::new(act)),
            label: format!("New act {id}"),
            gesture: None,
        });
        actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, id.clone())));
        self.canvas.select_only([id]);
    }

    /// Deletes the selected links and acts as one step; acts other items still use wait for
    /// the designer's yes, with those items listed.
    fn delete(&mut self, project: &Project, acts: Vec<String>, edges: Vec<String>, actions: &mut Vec<InspectorAction>) {
        let mut users: BTreeSet<ItemKey> = BTreeSet::new();
        for id in &acts {
            for (user, _) in where_used(project, &ItemKey::new(Kind::Act, id.clone())) {
                // Links from acts are removed with the act; those users need no warning.
                if user.kind != Kind::Act {
                    users.insert(user);
                }
            }
        }
        let pending = PendingDelete { acts, edges, users: users.into_iter().collect() };
        if pending.users.is_empty() {
            self.delete_now(project, &pending, actions);
        } else {
            self.confirm = Some(pending);
        }
    }

    fn delete_now(&mut self, project: &Project, pending: &PendingDelete, actions: &mut Vec<InspectorAction>) {
        let mut changed: BTreeMap<String, Act> = BTreeMap::new();
        let current = |changed: &BTreeMap<String, Act>, id: &str| {
            changed.get(id).cloned().or_else(|| project.acts.get(id).cloned())
        };
        // Links that live in rules are cut in the rule that holds them.
        let mut rules: BTreeMap<String, Rule> = BTreeMap::new();
        for key in &pending.edges {
            let Some((from, edge)) = self.edge_of.get(key) else { continue };
            if let Some(rule_id) = edge.via.last() {
                let Some(mut rule) = rules.get(rule_id).cloned().or_else(|| project.rules.get(rule_id).cloned()) else {
                    continue;
                };
                remove_modifier_links(&mut rule.effects, |kind, to| kind == edge.kind && to == edge.to);
                rules.insert(rule_id.clone(), rule);
            } else if let Some(act) = current(&changed, from)
                && let Some(without) = without_direct_edge(&act, edge)
            {
                changed.insert(from.clone(), without);
            }
        }
        let doomed: BTreeSet<&str> = pending.acts.iter().map(String::as_str).collect();
        for act in project.acts.iter().filter(|act| !doomed.contains(act.id.as_str())) {
            let Some(mut kept) = current(&changed, act.id.as_str()) else { continue };
            for id in &doomed {
                for kind in LinkKind::ALL {
                    if let Some(without) = without_link(&kept, kind, Some(id)) {
                        kept = without;
                    }
                }
            }
            if kept != *act {
                changed.insert(act.id.as_str().to_owned(), kept);
            }
        }
        let mut ops: Vec<Op> = doomed
            .iter()
            .filter(|id| project.acts.get(id).is_some())
            .map(|id| Op::remove(ItemKey::new(Kind::Act, *id)))
            .collect();
        ops.extend(changed.into_values().map(|act| Op::put(Arc::new(act) as SharedItem)));
        ops.extend(
            rules
                .into_iter()
                .filter(|(id, rule)| project.rules.get(id) != Some(rule))
                .map(|(_, rule)| Op::put(Arc::new(rule) as SharedItem)),
        );
        if ops.is_empty() {
            return;
        }
        let label = match (pending.acts.len(), pending.edges.len()) {
            (0, 1) => pending.edges.first().and_then(|key| self.edge_of.get(key)).map_or_else(
                || "Delete a link".to_owned(),
                |(from, edge)| format!("Unlink {from} → {} ({})", edge.to, edge.kind.label()),
            ),
            (0, n) => format!("Delete {n} links"),
            (1, 0) => format!("Delete act {} and its links", pending.acts.join("")),
            (a, e) => format!("Delete {a} acts and {e} links"),
        };
        actions.push(InspectorAction::Edit { op: Op::Batch(ops), label, gesture: None });
        self.canvas.select_only([]);
    }

    fn confirm_ui(&mut self, ui: &egui::Ui, project: &Project, actions: &mut Vec<InspectorAction>) {
        let Some(pending) = &self.confirm else { return };
        let mut answer = None;
        egui::Window::new("Delete acts that are used?")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, Vec2::ZERO)
            .show(ui.ctx(), |ui| {
                ui.label(format!("{} is still used by:", pending.acts.join(", ")));
                for user in pending.users.iter().take(12) {
                    ui.label(format!("• {user}"));
                }
                if pending.users.len() > 12 {
                    ui.label(format!("… and {} more", pending.users.len() - 12));
                }
                ui.label(
                    RichText::new("Links from acts are removed with it; the others will name a missing act.").weak(),
                );
                ui.horizontal(|ui| {
                    if ui.button("Delete anyway").clicked() {
                        answer = Some(true);
                    }
                    if ui.button("Keep").clicked() {
                        answer = Some(false);
                    }
                });
            });
        if let Some(delete) = answer
            && let Some(pending) = self.confirm.take()
            && delete
        {
            self.delete_now(project, &pending, actions);
        }
    }

    /// Copies acts as RON (the system clipboard and the graph's own).
    fn copy(&mut self, ui: &egui::Ui, project: &Project, ids: &[String]) {
        let acts: Vec<&Act> = ids.iter().filter_map(|id| project.acts.get(id)).collect();
        let positions: Vec<(f32, f32)> = acts
            .iter()
            .map(|act| {
                let p = self.position(act.id.as_str());
                (p.x, p.y)
            })
            .collect();
        match ron::ser::to_string(&(acts, positions)) {
            Ok(text) => {
                ui.ctx().copy_text(text.clone());
                self.message = Some(format!("Copied {} act(s)", ids.len()));
                self.copied = Some(text);
            }
            Err(error) => self.message = Some(format!("Could not copy: {error}")),
        }
    }

    /// Pastes copied acts at `at` under fresh ids, the links among them following the copies.
    fn paste(
        &mut self,
        project: &Project,
        text: Option<&str>,
        at: Pos2,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let parsed = |text: &str| ron::from_str::<(Vec<Act>, Vec<(f32, f32)>)>(text).ok();
        let Some((acts, positions)) = text.and_then(parsed).or_else(|| self.copied.as_deref().and_then(parsed)) else {
            self.message = Some("Nothing to paste: copy acts first (Ctrl+C in this graph)".to_owned());
            return;
        };
        let mut taken: BTreeSet<String> = project.acts.iter().map(|act| act.id.as_str().to_owned()).collect();
        let mut renamed: BTreeMap<String, String> = BTreeMap::new();
        for act in &acts {
            let base = format!("{}_copy", act.id);
            let id = std::iter::once(base.clone())
                .chain((2..=u32::MAX).map(|n| format!("{base}_{n}")))
                .find(|id| !taken.contains(id))
                .unwrap_or(base);
            taken.insert(id.clone());
            renamed.insert(act.id.as_str().to_owned(), id);
        }
        let origin = positions
            .iter()
            .fold(Pos2::new(f32::INFINITY, f32::INFINITY), |a, &(x, y)| Pos2::new(a.x.min(x), a.y.min(y)));
        let relink = |links: &mut Vec<ActLink>| {
            for link in links {
                if let Some(new) = renamed.get(link.act.as_str()) {
                    link.act = Id::new(new);
                }
            }
        };
        let mut ops = Vec::new();
        for (act, &(x, y)) in acts.into_iter().zip(positions.iter()) {
            let Some(id) = renamed.get(act.id.as_str()).cloned() else { continue };
            let mut copy = act.clone();
            copy.id = Id::new(&id);
            relink(&mut copy.next_acts);
            relink(&mut copy.alt_acts);
            relink(&mut copy.spawned_acts);
            for modifier in &mut copy.effects.table_modifiers {
                if let Some(new) = renamed.get(modifier.act.as_str()) {
                    modifier.act = Id::new(new);
                }
            }
            for modifier in &mut copy.effects.path_modifiers {
                if let Some(new) = modifier.act.as_ref().and_then(|act| renamed.get(act.as_str())) {
                    modifier.act = Some(Id::new(new));
                }
            }
            let offset = if origin.x.is_finite() { Vec2::new(x - origin.x, y - origin.y) } else { Vec2::ZERO };
            self.store.set(LAYOUT_KIND, &id, at + offset);
            ops.push(Op::put(Arc::new(copy) as SharedItem));
        }
        self.store_dirty = true;
        let count = ops.len();
        actions.push(InspectorAction::Edit {
            op: Op::Batch(ops),
            label: format!("Paste {count} act(s)"),
            gesture: None,
        });
        log.push(format!("Act graph: pasted {count} act(s)"));
        self.canvas.select_only(renamed.into_values());
    }

    /// Writes the act graph's places and comments into the layout file: read again first and
    /// only its own entries replaced, so what the node map stored since is kept.
    fn save_store(&mut self, log: &mut Vec<String>) {
        if !std::mem::take(&mut self.store_dirty) {
            return;
        }
        let Some(folder) = &self.store_folder else { return };
        match self.store.save_own(folder, |key| key == LAYOUT_KIND) {
            Ok(stored) => self.store = stored,
            Err(error) => log.push(format!("Could not store the act graph layout: {error}")),
        }
    }
}

/// Whether `from` may link to `to` with `kind`: the words of the link, or why not.
fn link_check(project: &Project, from: &str, kind: LinkKind, to: &str) -> Result<String, String> {
    let target = project.acts.get(to).ok_or_else(|| format!("there is no act `{to}`"))?;
    if matches!(kind, LinkKind::Spawned) && target.token.is_none() {
        return Err(format!(
            "{to} has no token: a spawned act starts in a new token of its own token type (set {to}'s token first)"
        ));
    }
    if project.acts.get(from).is_some_and(|act| {
        act_edges(project, act).iter().any(|edge| edge.is_direct() && edge.kind == kind && edge.to == to)
    }) {
        return Err(format!("{from} already has the {} link to {to}", kind.label()));
    }
    Ok(format!("Link {} → {to}", kind.label()))
}

/// Pushes the op linking two acts, or notes why not.
fn emit_link(
    project: &Project,
    from: &str,
    kind: LinkKind,
    to: &str,
    actions: &mut Vec<InspectorAction>,
    message: &mut Option<String>,
) {
    if let Err(why) = link_check(project, from, kind, to) {
        *message = Some(format!("Not linked: {why}"));
        return;
    }
    match link_op(project, from, kind, to) {
        Some((op, label)) => {
            *message = None;
            actions.push(InspectorAction::Edit { op, label, gesture: None });
        }
        None => *message = Some(format!("{from} already has the {} link to {to}", kind.label())),
    }
}

/// The legend: each kind of link in its colour, and the gestures.
fn legend_ui(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Links:").weak());
        for kind in LinkKind::ALL {
            ui.label(RichText::new(format!("■ {}", kind.label())).color(kind.colour()));
        }
        ui.label(
            RichText::new(
                "· drag from a pin onto an act to link · wheel zooms · middle-drag pans · F frames · Delete removes",
            )
            .weak(),
        );
    });
}
