//! The act-chain graph: acts as nodes, their links (next, alt, spawned, branch-out, force,
//! callback, game over) as wires, one output pin and one colour per kind of link. Dragging a
//! wire links two acts, cutting one unlinks them, both as undoable ops; acts without a stored
//! position are placed by the layered layout.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actforge_runtime::model::{Act, Id};
use actforge_runtime::{Kind, Project};
use egui::emath::TSTransform;
use egui::{Pos2, Rect, RichText, Stroke, Vec2};
use egui_phosphor::regular as icon;
use egui_snarl::ui::{PinInfo, SnarlPin, SnarlStyle, SnarlViewer, SnarlWidget};
use egui_snarl::{InPin, InPinId, NodeId, OutPin, OutPinId, Snarl};

use super::act_links::{ActEdge, LinkKind, act_edges, delete_act_op, fresh_act_id, link_op, unlink_op, without_link};
use super::graph_layout::{Spacing, layered_layout};
use super::{
    GraphHighlight, HIGHLIGHT_COLOUR, LayoutStore, centre_on, fit_again, fit_transform, highlighted_frame,
    paint_highlight_path, visible_view,
};
use crate::document::{ItemKey, Op, SharedItem};
use crate::panels::inspector::InspectorAction;
use crate::style::{kind_colour, kind_icon, kind_text_colour};

/// The kind folder name acts' positions are stored under.
const LAYOUT_KIND: &str = "acts";

/// An act as the graph shows it (rebuilt from the document; never saved).
#[derive(Clone, Debug)]
pub struct ActNode {
    /// The act's id.
    pub id: String,
    label: String,
    token: Option<String>,
    duration: String,
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
            initial: act.initial,
            edges,
            outputs,
        }
    }

    /// The widget label of the node's header button (what tests and screen readers find).
    pub fn header_text(&self) -> String {
        if self.label.is_empty() || self.label == self.id {
            format!("Act {}", self.id)
        } else {
            format!("{} · {}", self.label.replace('\n', " "), self.id)
        }
    }
}

/// What the graph reads while drawing.
pub struct GraphInput<'a> {
    /// The project (read-only).
    pub project: &'a Project,
    /// The document revision (the snarl is rebuilt when it moves).
    pub revision: u64,
    /// The app's selection (drawn outlined).
    pub selection: Option<&'a ItemKey>,
    /// The project folder (stored positions live there); none for bundles.
    pub folder: Option<&'a Path>,
}

/// The act-chain graph's state between frames.
#[derive(Default)]
pub struct ActGraphView {
    snarl: Snarl<ActNode>,
    /// The revision and token filter the snarl was built for.
    built: Option<(u64, Option<String>)>,
    /// Positions as last placed, to see what the designer moved.
    placed: BTreeMap<NodeId, Pos2>,
    token_filter: Option<String>,
    find: String,
    store: LayoutStore,
    store_folder: Option<PathBuf>,
    /// The project folder the layout was last read for (`store_folder` is none when it did not read).
    store_read_from: Option<PathBuf>,
    store_dirty: bool,
    highlight: GraphHighlight,
    /// Acts drawn with the highlight in the last frame.
    drawn_highlight: BTreeSet<String>,
    /// Node rectangles (graph units) of the last frame.
    rects: BTreeMap<NodeId, Rect>,
    /// A transform to apply next frame (zoom to fit, go to a found act).
    set_transform: Option<Transform>,
    /// The fit asked for is a second try, made once the nodes have their drawn sizes.
    refitted: bool,
    to_global: TSTransform,
    /// Connections asked for outside a drag (tests, menus), done next frame like a drag's.
    requested: Vec<(String, LinkKind, String)>,
    message: Option<String>,
    /// The snarl's own node selection last frame.
    snarl_selected: Vec<NodeId>,
}

/// A view change waiting for the next frame (it needs the view's rectangle).
#[derive(Clone, Debug)]
enum Transform {
    Fit,
    CentreOn(String),
}

impl ActGraphView {
    /// Sets what the preview highlights (running acts, the path so far).
    pub fn set_highlight(&mut self, highlight: GraphHighlight) {
        self.highlight = highlight;
    }

    /// The acts drawn highlighted in the last frame.
    pub fn drawn_highlight(&self) -> &BTreeSet<String> {
        &self.drawn_highlight
    }

    /// Asks to link `from` to `to` with `kind`, through the same path a dragged wire takes.
    pub fn request_connect(&mut self, from: &str, kind: LinkKind, to: &str) {
        self.requested.push((from.to_owned(), kind, to.to_owned()));
    }

    /// Where each shown act is, in graph units (the snarl's current positions).
    pub fn positions(&self) -> BTreeMap<String, (f32, f32)> {
        self.snarl.nodes_pos_ids().map(|(_, pos, node)| (node.id.clone(), (pos.x, pos.y))).collect()
    }

    /// The last message (refusals, save problems).
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// Rebuilds the snarl if the revision or the filter moved.
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
        }
        let key = (revision, self.token_filter.clone());
        if self.built.as_ref() == Some(&key) {
            return;
        }
        if self.built.is_none() {
            self.set_transform = Some(Transform::Fit);
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
        let acts = self.shown_acts(project);
        let nodes: Vec<ActNode> = acts.iter().map(|act| ActNode::new(project, act)).collect();
        let ids: Vec<&str> = nodes.iter().map(|node| node.id.as_str()).collect();
        let edges: Vec<(&str, &str)> =
            nodes.iter().flat_map(|node| node.edges.iter().map(|edge| (node.id.as_str(), edge.to.as_str()))).collect();
        let auto = layered_layout(&ids, &edges, Spacing::default());
        let mut snarl = Snarl::new();
        let mut node_of: BTreeMap<String, NodeId> = BTreeMap::new();
        self.placed.clear();
        for node in &nodes {
            let at = self
                .store
                .get(LAYOUT_KIND, &node.id)
                .unwrap_or_else(|| auto.get(&node.id).map_or(Pos2::ZERO, |&(x, y)| Pos2::new(x, y)));
            let id = snarl.insert_node(at, node.clone());
            node_of.insert(node.id.clone(), id);
            self.placed.insert(id, at);
        }
        for node in &nodes {
            let Some(&from) = node_of.get(&node.id) else { continue };
            for edge in &node.edges {
                let output = node.outputs.iter().position(|kind| *kind == edge.kind);
                if let (Some(output), Some(&to)) = (output, node_of.get(&edge.to)) {
                    snarl.connect(OutPinId { node: from, output }, InPinId { node: to, input: 0 });
                }
            }
        }
        self.snarl = snarl;
        self.rects.clear();
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
        self.toolbar_ui(ui, input.project, actions);
        legend_ui(ui);
        if let Some(message) = &self.message {
            ui.label(RichText::new(message).color(ui.visuals().warn_fg_color));
        }
        self.graph_ui(ui, input, actions);
        self.store_moves(ui, log);
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, project: &Project, actions: &mut Vec<InspectorAction>) {
        ui.horizontal(|ui| {
            ui.label("Token filter");
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
                self.set_transform = Some(Transform::Fit);
            }
            if ui.button(format!("{} Zoom to fit", icon::FRAME_CORNERS)).clicked() {
                self.set_transform = Some(Transform::Fit);
            }
            if ui
                .button(format!("{} Lay out again", icon::TREE_STRUCTURE))
                .on_hover_text("Forget moved positions and place every act automatically")
                .clicked()
            {
                self.store.clear(LAYOUT_KIND);
                self.store_dirty = true;
                self.built = None;
            }
            ui.label(icon::MAGNIFYING_GLASS);
            let label = ui.label("Find act");
            ui.add(egui::TextEdit::singleline(&mut self.find).hint_text("id or label").desired_width(160.0))
                .labelled_by(label.id);
        });
        let query = self.find.trim().to_lowercase();
        if query.is_empty() {
            return;
        }
        ui.horizontal_wrapped(|ui| {
            let found = self
                .snarl
                .nodes()
                .filter(|node| node.id.contains(&query) || node.label.to_lowercase().contains(&query))
                .take(8)
                .map(|node| (node.id.clone(), node.header_text()))
                .collect::<Vec<_>>();
            if found.is_empty() {
                ui.label(RichText::new("No act shown matches.").weak());
            }
            for (id, text) in found {
                if ui.button(format!("Go to {text}")).clicked() {
                    self.set_transform = Some(Transform::CentreOn(id.clone()));
                    actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, id)));
                }
            }
        });
    }

    fn graph_ui(&mut self, ui: &mut egui::Ui, input: &GraphInput<'_>, actions: &mut Vec<InspectorAction>) {
        let view = visible_view(ui);
        let wanted = self.set_transform.take();
        let transform = wanted.as_ref().and_then(|wanted| self.transform_for(wanted, view));
        if matches!(wanted, Some(Transform::Fit)) && fit_again(&mut self.refitted, &self.snarl, &self.rects) {
            self.set_transform = wanted;
            ui.ctx().request_repaint();
        }
        let mut viewer = ActViewer {
            project: input.project,
            selection: input.selection,
            highlight: &self.highlight,
            actions,
            message: &mut self.message,
            rects: &mut self.rects,
            drawn_highlight: BTreeSet::new(),
            transform,
            to_global: self.to_global,
            detailed: self.to_global.scaling >= DETAIL_SCALE,
            new_act_at: None,
            delete: None,
        };
        let snarl_id = egui::Id::new("act_graph");
        SnarlWidget::new().id(snarl_id).style(graph_style()).show(&mut self.snarl, &mut viewer, ui);
        let ActViewer { drawn_highlight, to_global, new_act_at, delete, .. } = viewer;
        // A node clicked in the snarl (it selects it) selects its act in the app.
        let selected = egui_snarl::ui::get_selected_nodes(snarl_id, ui.ctx());
        if selected != self.snarl_selected {
            if let [node] = selected.as_slice()
                && let Some(act) = self.snarl.get_node(*node)
                && input.selection.is_none_or(|key| key.kind != Kind::Act || key.id != act.id)
            {
                actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, act.id.clone())));
            }
            self.snarl_selected = selected;
        }
        self.drawn_highlight = drawn_highlight;
        self.to_global = to_global;
        if let Some(at) = new_act_at {
            let id = fresh_act_id(input.project);
            let act = Act { id: Id::new(&id), label: "New act".to_owned(), ..Act::default() };
            self.store.set(LAYOUT_KIND, &id, at);
            self.store_dirty = true;
            actions.push(InspectorAction::Edit {
                op: Op::put(Arc::new(act)),
                label: format!("New act {id}"),
                gesture: None,
            });
            actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, id)));
        }
        if let Some(id) = delete
            && let Some(op) = delete_act_op(input.project, &id)
        {
            actions.push(InspectorAction::Edit { op, label: format!("Delete act {id} and its links"), gesture: None });
        }
        self.paint_path(ui, view);
    }

    /// The transform a pending view change asks for, from the last frame's node rectangles.
    fn transform_for(&self, wanted: &Transform, view: Rect) -> Option<TSTransform> {
        let rect_of = |id: NodeId, pos: Pos2| {
            self.rects.get(&id).copied().unwrap_or_else(|| Rect::from_min_size(pos, Vec2::new(180.0, 120.0)))
        };
        match wanted {
            Transform::Fit => {
                let content =
                    self.snarl.nodes_pos_ids().map(|(id, pos, _)| rect_of(id, pos)).reduce(egui::Rect::union)?;
                Some(fit_transform(content, view, 0.1))
            }
            Transform::CentreOn(target) => {
                let (id, pos, _) = self.snarl.nodes_pos_ids().find(|(_, _, node)| node.id == *target)?;
                Some(centre_on(rect_of(id, pos).center(), view, self.to_global.scaling.max(0.6)))
            }
        }
    }

    /// The bold path of the highlight, over the graph.
    fn paint_path(&self, ui: &egui::Ui, view: Rect) {
        if self.highlight.path.len() < 2 {
            return;
        }
        let rect_by_act: BTreeMap<&str, Rect> = self
            .snarl
            .nodes_ids_data()
            .filter_map(|(id, node)| Some((node.value.id.as_str(), *self.rects.get(&id)?)))
            .collect();
        paint_highlight_path(ui, view, "act_graph_path", &self.highlight.path, &rect_by_act, self.to_global);
    }

    /// Stores the positions the designer dragged acts to, and writes them once the drag ends.
    fn store_moves(&mut self, ui: &egui::Ui, log: &mut Vec<String>) {
        for (id, pos, node) in self.snarl.nodes_pos_ids() {
            if self.placed.get(&id).is_some_and(|placed| *placed != pos) {
                self.store.set(LAYOUT_KIND, &node.id, pos);
                self.placed.insert(id, pos);
                self.store_dirty = true;
            }
        }
        if self.store_dirty && !ui.input(|input| input.pointer.any_down()) {
            self.store_dirty = false;
            if let Some(folder) = &self.store_folder
                && let Err(error) = self.store.save(folder)
            {
                log.push(format!(
                    "Could not store the graph layout in {}: {error}",
                    LayoutStore::file(folder).display()
                ));
            }
        }
    }
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
    match link_op(project, from, kind, to) {
        Some((op, label)) => {
            *message = None;
            actions.push(InspectorAction::Edit { op, label, gesture: None });
        }
        None => *message = Some(format!("{from} already has the {} link to {to}", kind.label())),
    }
}

/// The legend: each kind of link in its colour.
fn legend_ui(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Links:").weak());
        for kind in LinkKind::ALL {
            ui.label(RichText::new(format!("■ {}", kind.label())).color(kind.colour()));
        }
    });
}

/// The snarl style shared by both graph views.
pub(super) fn graph_style() -> SnarlStyle {
    SnarlStyle {
        collapsible: Some(false),
        wire_width: Some(2.0),
        crisp_magnified_text: Some(false),
        ..SnarlStyle::new()
    }
}

/// Draws acts and turns the snarl's edits into ops.
struct ActViewer<'a> {
    project: &'a Project,
    selection: Option<&'a ItemKey>,
    highlight: &'a GraphHighlight,
    actions: &'a mut Vec<InspectorAction>,
    message: &'a mut Option<String>,
    rects: &'a mut BTreeMap<NodeId, Rect>,
    drawn_highlight: BTreeSet<String>,
    transform: Option<TSTransform>,
    to_global: TSTransform,
    /// Whether nodes show their bodies and pin labels: zoomed far out their text cannot be read,
    /// and laying it out for hundreds of acts would cost the frame.
    detailed: bool,
    new_act_at: Option<Pos2>,
    delete: Option<String>,
}

/// The zoom below which act nodes show only their header.
const DETAIL_SCALE: f32 = 0.6;

impl ActViewer<'_> {
    fn pin_link(snarl: &Snarl<ActNode>, from: &OutPin, to: &InPin) -> Option<(String, LinkKind, String)> {
        let source = snarl.get_node(from.id.node)?;
        let kind = *source.outputs.get(from.id.output)?;
        Some((source.id.clone(), kind, snarl.get_node(to.id.node)?.id.clone()))
    }
}

impl SnarlViewer<ActNode> for ActViewer<'_> {
    fn title(&mut self, node: &ActNode) -> String {
        node.header_text()
    }

    fn node_frame(
        &mut self,
        default: egui::Frame,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<ActNode>,
    ) -> egui::Frame {
        let Some(act) = snarl.get_node(node) else { return default };
        if self.highlight.acts.contains(&act.id) {
            self.drawn_highlight.insert(act.id.clone());
            return highlighted_frame(default);
        }
        if self.selection.is_some_and(|key| key.kind == Kind::Act && key.id == act.id) {
            return default.stroke(Stroke::new(2.5, kind_colour(Kind::Act)));
        }
        default
    }

    fn show_header(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<ActNode>,
    ) {
        let Some(act) = snarl.get_node(node) else { return };
        if !self.detailed {
            ui.label(RichText::new(act.header_text()).strong());
            if self.highlight.acts.contains(&act.id) {
                ui.label(RichText::new(format!("Running: {}", act.id)).color(HIGHLIGHT_COLOUR));
            }
            return;
        }
        ui.horizontal(|ui| {
            ui.label(RichText::new(kind_icon(Kind::Act)).color(kind_text_colour(Kind::Act, ui.visuals())));
            if act.initial {
                ui.label(RichText::new(icon::FLAG).color(LinkKind::Spawned.colour()))
                    .on_hover_text("Initial act: the player may start it");
            }
            if ui.add(egui::Button::new(RichText::new(act.header_text()).strong()).frame(false)).clicked() {
                self.actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, act.id.clone())));
            }
            if self.highlight.acts.contains(&act.id) {
                ui.label(RichText::new(format!("Running: {}", act.id)).color(HIGHLIGHT_COLOUR));
            }
        });
    }

    fn inputs(&mut self, _node: &ActNode) -> usize {
        1
    }

    fn show_input(&mut self, _pin: &InPin, ui: &mut egui::Ui, _snarl: &mut Snarl<ActNode>) -> impl SnarlPin + 'static {
        if self.detailed {
            ui.label(RichText::new("in").weak().small());
        }
        PinInfo::circle().with_fill(kind_colour(Kind::Act))
    }

    fn outputs(&mut self, node: &ActNode) -> usize {
        node.outputs.len()
    }

    fn show_output(&mut self, pin: &OutPin, ui: &mut egui::Ui, snarl: &mut Snarl<ActNode>) -> impl SnarlPin + 'static {
        let kind = snarl
            .get_node(pin.id.node)
            .and_then(|node| node.outputs.get(pin.id.output).copied())
            .unwrap_or(LinkKind::Next);
        if self.detailed {
            ui.label(RichText::new(kind.label()).small().color(kind.colour()));
        }
        PinInfo::triangle().with_fill(kind.colour()).with_wire_color(kind.colour()).with_wire_style(kind.wire_style())
    }

    fn has_body(&mut self, _node: &ActNode) -> bool {
        self.detailed
    }

    fn show_body(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<ActNode>,
    ) {
        let Some(act) = snarl.get_node(node) else { return };
        ui.vertical(|ui| {
            if let Some(token) = &act.token {
                ui.label(
                    RichText::new(format!("{} {token}", kind_icon(Kind::Token)))
                        .small()
                        .color(kind_text_colour(Kind::Token, ui.visuals())),
                );
            }
            if act.duration != "0" && !act.duration.is_empty() {
                ui.label(RichText::new(format!("{} {} ticks", icon::TIMER, act.duration)).small());
            }
            for edge in act.edges.iter().filter(|edge| edge.gate.is_some()) {
                let gate = edge.gate.as_deref().unwrap_or_default();
                ui.label(
                    RichText::new(format!("{} → {} · {gate}", edge.kind.label(), edge.to))
                        .small()
                        .color(edge.kind.colour()),
                );
            }
        });
    }

    fn final_node_rect(&mut self, node: NodeId, rect: Rect, _ui: &mut egui::Ui, _snarl: &mut Snarl<ActNode>) {
        self.rects.insert(node, rect);
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<ActNode>) {
        // The snarl is left as it is: the op changes the document, and the next rebuild shows it.
        if let Some((from, kind, to)) = Self::pin_link(snarl, from, to) {
            emit_link(self.project, &from, kind, &to, self.actions, self.message);
        }
    }

    fn disconnect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<ActNode>) {
        if let Some((from, kind, to)) = Self::pin_link(snarl, from, to)
            && let Some((op, label)) = unlink_op(self.project, &from, kind, Some(&to))
        {
            self.actions.push(InspectorAction::Edit { op, label, gesture: None });
        }
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<ActNode>) {
        let Some(node) = snarl.get_node(pin.id.node) else { return };
        if let Some(kind) = node.outputs.get(pin.id.output)
            && let Some((op, label)) = unlink_op(self.project, &node.id, *kind, None)
        {
            self.actions.push(InspectorAction::Edit { op, label, gesture: None });
        }
    }

    fn drop_inputs(&mut self, pin: &InPin, snarl: &mut Snarl<ActNode>) {
        let Some(target) = snarl.get_node(pin.id.node).map(|node| node.id.clone()) else { return };
        let mut ops = Vec::new();
        for act in &self.project.acts {
            let mut changed = act.clone();
            for kind in LinkKind::ALL {
                if let Some(without) = without_link(&changed, kind, Some(&target)) {
                    changed = without;
                }
            }
            if changed != *act {
                ops.push(Op::put(Arc::new(changed) as SharedItem));
            }
        }
        if !ops.is_empty() {
            self.actions.push(InspectorAction::Edit {
                op: Op::Batch(ops),
                label: format!("Unlink every link to {target}"),
                gesture: None,
            });
        }
    }

    fn has_graph_menu(&mut self, _pos: Pos2, _snarl: &mut Snarl<ActNode>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: Pos2, ui: &mut egui::Ui, _snarl: &mut Snarl<ActNode>) {
        if ui.button(format!("{} New act here", icon::PLUS)).clicked() {
            self.new_act_at = Some(pos);
            ui.close();
        }
    }

    fn has_node_menu(&mut self, _node: &ActNode) -> bool {
        true
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<ActNode>,
    ) {
        let Some(act) = snarl.get_node(node) else { return };
        if ui.button("Select in inspector").clicked() {
            self.actions.push(InspectorAction::Select(ItemKey::new(Kind::Act, act.id.clone())));
            ui.close();
        }
        if ui.button(format!("{} Delete act and its links", icon::TRASH)).clicked() {
            self.delete = Some(act.id.clone());
            ui.close();
        }
    }

    fn current_transform(&mut self, to_global: &mut TSTransform, _snarl: &mut Snarl<ActNode>) {
        if let Some(transform) = self.transform.take() {
            *to_global = transform;
        }
        self.to_global = *to_global;
    }
}
