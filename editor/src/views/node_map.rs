//! The node-map editor: the nodes of one node map (DAG sandbox maps, `spec/era-synthesis.md` §6)
//! by kind, icon and colour, with their properties and affixes; each path an output row of its
//! start node with its unlock condition edited in place (compiled as typed: errors show at
//! once). A connection that would close a cycle is refused with the cycle named. Node positions
//! are the map's own `x`/`y` (document data), so moving a node is an undoable op.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use actforge_runtime::formula::{FormulaSet, ProjectNames};
use actforge_runtime::model::{EdgeStyle, Expr, Id, MapEdge, MapNode, NodeKind, NodeMap};
use actforge_runtime::{Kind, Project};
use egui::emath::TSTransform;
use egui::{Color32, Pos2, Rect, RichText, Stroke, Vec2};
use egui_phosphor::regular as icon;
use egui_snarl::ui::{PinInfo, SnarlPin, SnarlStyle, SnarlViewer, SnarlWidget, WireStyle};
use egui_snarl::{InPin, InPinId, NodeId, OutPin, OutPinId, Snarl};

use super::{
    GraphHighlight, HIGHLIGHT_COLOUR, fit_again, fit_transform, highlighted_frame, name_colour, paint_highlight_path,
    visible_view,
};
use crate::document::{ItemKey, Op, SharedItem};
use crate::panels::inspector::InspectorAction;
use crate::style::{kind_colour, kind_text_colour};

/// Graph units per map unit (map positions are small; nodes need room: at the campaign view's
/// usual 180-unit column spacing a node with an unlock field and a property fits with a gap).
const MAP_TO_GRAPH: f32 = 1.8;

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

/// A path as the node's output row shows it.
#[derive(Clone, Debug)]
struct EdgeRow {
    to: String,
    style: EdgeStyle,
    unlock: String,
    cost: String,
}

/// A map node as the graph shows it (rebuilt from the document; never saved).
#[derive(Clone, Debug)]
pub struct MapNodeView {
    /// The node's id.
    pub id: String,
    label: String,
    kind: NodeKind,
    start: bool,
    properties: Vec<(String, String)>,
    affixes: Vec<String>,
    /// The paths leaving the node, one output pin each (the last pin starts a new path).
    edges: Vec<EdgeRow>,
}

impl MapNodeView {
    fn new(map: &NodeMap, node: &MapNode) -> Self {
        let edges = map
            .edges
            .iter()
            .filter(|edge| edge.from == node.id)
            .map(|edge| EdgeRow {
                to: edge.to.as_str().to_owned(),
                style: edge.style,
                unlock: edge.unlock.as_ref().map(|expr| expr.text().to_owned()).unwrap_or_default(),
                cost: edge.cost.text().to_owned(),
            })
            .collect();
        Self {
            id: node.id.as_str().to_owned(),
            label: node.label.clone(),
            kind: node.kind.clone(),
            start: map.start.as_ref() == Some(&node.id),
            properties: node.properties.iter().map(|(name, expr)| (name.clone(), expr.text().to_owned())).collect(),
            affixes: node.affixes.clone(),
            edges,
        }
    }

    /// The widget label of the node's header button.
    pub fn header_text(&self) -> String {
        if self.label.is_empty() || self.label == self.id {
            format!("Node {}", self.id)
        } else {
            format!("{} · {}", self.label, self.id)
        }
    }
}

/// The node-map editor's state between frames.
#[derive(Default)]
pub struct NodeMapView {
    /// The map shown (none: the selected or first one).
    map_id: Option<String>,
    snarl: Snarl<MapNodeView>,
    built: Option<(u64, String)>,
    placed: BTreeMap<NodeId, Pos2>,
    /// Names and named formulas, to compile unlock conditions as they are typed.
    formulas: Option<(u64, FormulaSet, ProjectNames)>,
    highlight: GraphHighlight,
    drawn_highlight: BTreeSet<String>,
    rects: BTreeMap<NodeId, Rect>,
    fit: bool,
    /// The fit asked for is a second try, made once the nodes have their drawn sizes.
    refitted: bool,
    to_global: TSTransform,
    requested: Vec<(String, String)>,
    message: Option<String>,
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
        self.snarl
            .nodes_ids_data()
            .filter_map(|(id, node)| Some((node.value.id.clone(), *self.rects.get(&id)?)))
            .collect()
    }

    /// From graph space to the screen, as last drawn.
    pub fn graph_to_screen(&self) -> TSTransform {
        self.to_global
    }

    /// Draws the picker and the map; edits become `actions`, refusals also go to `log`.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        project: &Project,
        revision: u64,
        selection: Option<&ItemKey>,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        if let Some(key) = selection.filter(|key| key.kind == Kind::NodeMap)
            && project.node_maps.get(&key.id).is_some()
        {
            self.map_id = Some(key.id.clone());
        }
        if self.map_id.as_ref().is_none_or(|id| project.node_maps.get(id).is_none()) {
            self.map_id = project.node_maps.iter().next().map(|map| map.id.as_str().to_owned());
        }
        self.toolbar_ui(ui, project, actions);
        let Some(map) = self.map_id.as_ref().and_then(|id| project.node_maps.get(id)) else {
            ui.label("This project has no node map yet.");
            return;
        };
        if self.formulas.as_ref().is_none_or(|(at, _, _)| *at != revision) {
            let names = ProjectNames::new(project);
            let named: Vec<(String, String)> =
                project.formulas.iter().map(|f| (f.id.as_str().to_owned(), f.expr.text().to_owned())).collect();
            let (set, _) = FormulaSet::build(&named, &names);
            self.formulas = Some((revision, set, names));
        }
        let key = (revision, map.id.as_str().to_owned());
        if self.built.as_ref() != Some(&key) {
            if self.built.as_ref().is_none_or(|(_, id)| *id != key.1) {
                self.fit = true;
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
        self.store_moves(ui, map, actions);
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui, project: &Project, actions: &mut Vec<InspectorAction>) {
        ui.horizontal(|ui| {
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
                actions.push(InspectorAction::Select(ItemKey::new(Kind::NodeMap, id.clone())));
                self.map_id = Some(id);
            }
            if ui.button(format!("{} Zoom to fit", icon::FRAME_CORNERS)).clicked() {
                self.fit = true;
            }
            ui.add(
                egui::Label::new(
                    RichText::new("Drag from a node's last pin to another node to add a path; right-click for more.")
                        .weak(),
                )
                .truncate(),
            );
        });
    }

    fn rebuild(&mut self, map: &NodeMap) {
        let mut snarl = Snarl::new();
        let mut node_of: BTreeMap<&str, NodeId> = BTreeMap::new();
        self.placed.clear();
        for node in &map.nodes {
            let at = Pos2::new(node.x * MAP_TO_GRAPH, node.y * MAP_TO_GRAPH);
            let id = snarl.insert_node(at, MapNodeView::new(map, node));
            node_of.insert(node.id.as_str(), id);
            self.placed.insert(id, at);
        }
        for node in &map.nodes {
            let Some(&from) = node_of.get(node.id.as_str()) else { continue };
            let targets = map.edges.iter().filter(|edge| edge.from == node.id);
            for (output, edge) in targets.enumerate() {
                if let Some(&to) = node_of.get(edge.to.as_str()) {
                    snarl.connect(OutPinId { node: from, output }, InPinId { node: to, input: 0 });
                }
            }
        }
        self.snarl = snarl;
        self.rects.clear();
    }

    fn graph_ui(
        &mut self,
        ui: &mut egui::Ui,
        map: &NodeMap,
        actions: &mut Vec<InspectorAction>,
        log: &mut Vec<String>,
    ) {
        let view = visible_view(ui);
        let fitting = std::mem::take(&mut self.fit);
        if fitting && fit_again(&mut self.refitted, &self.snarl, &self.rects) {
            self.fit = true;
            ui.ctx().request_repaint();
        }
        let transform = if fitting {
            let rect_of = |id: NodeId, pos: Pos2| {
                self.rects.get(&id).copied().unwrap_or_else(|| Rect::from_min_size(pos, Vec2::new(180.0, 120.0)))
            };
            self.snarl
                .nodes_pos_ids()
                .map(|(id, pos, _)| rect_of(id, pos))
                .reduce(egui::Rect::union)
                .map(|content| fit_transform(content, view, 0.1))
        } else {
            None
        };
        let Some((_, formulas, names)) = self.formulas.as_mut() else { return };
        let mut viewer = MapViewer {
            map,
            formulas,
            names,
            highlight: &self.highlight,
            actions,
            log,
            message: &mut self.message,
            rects: &mut self.rects,
            drawn_highlight: BTreeSet::new(),
            transform,
            to_global: self.to_global,
            changed: None,
        };
        SnarlWidget::new().id_salt(("node_map", map.id.as_str())).style(graph_style()).show(
            &mut self.snarl,
            &mut viewer,
            ui,
        );
        let MapViewer { drawn_highlight, to_global, changed, .. } = viewer;
        self.drawn_highlight = drawn_highlight;
        self.to_global = to_global;
        if let Some((changed, label, gesture)) = changed {
            actions.push(InspectorAction::Edit { op: Op::put(Arc::new(changed) as SharedItem), label, gesture });
        }
        self.paint_path(ui, view);
    }

    fn paint_path(&self, ui: &egui::Ui, view: Rect) {
        if self.highlight.path.len() < 2 {
            return;
        }
        let rect_by_node: BTreeMap<&str, Rect> = self
            .snarl
            .nodes_ids_data()
            .filter_map(|(id, node)| Some((node.value.id.as_str(), *self.rects.get(&id)?)))
            .collect();
        paint_highlight_path(ui, view, "node_map_path", &self.highlight.path, &rect_by_node, self.to_global);
    }

    /// Moved nodes become one op (the map's new positions) when the drag ends.
    fn store_moves(&mut self, ui: &egui::Ui, map: &NodeMap, actions: &mut Vec<InspectorAction>) {
        if ui.input(|input| input.pointer.any_down()) {
            return;
        }
        let mut changed = map.clone();
        let mut moved = Vec::new();
        for (id, pos, node) in self.snarl.nodes_pos_ids() {
            if self.placed.get(&id).is_some_and(|placed| *placed != pos)
                && let Some(target) = changed.nodes.iter_mut().find(|n| n.id.as_str() == node.id)
            {
                let round = |v: f32| (v / MAP_TO_GRAPH * 10.0).round() / 10.0;
                target.x = round(pos.x);
                target.y = round(pos.y);
                moved.push(node.id.clone());
                self.placed.insert(id, pos);
            }
        }
        if !moved.is_empty() {
            let label = format!("Move {} in {}", moved.join(", "), map.id);
            actions.push(InspectorAction::Edit { op: Op::put(Arc::new(changed) as SharedItem), label, gesture: None });
        }
    }
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
            let label = format!("Add the path {from} → {to} in {}", map.id);
            actions.push(InspectorAction::Edit { op: Op::put(Arc::new(changed) as SharedItem), label, gesture: None });
        }
        Err(why) => {
            log.push(format!("Node map {}: {why}", map.id));
            *message = Some(why);
        }
    }
}

/// Draws map nodes and turns the snarl's edits into ops.
struct MapViewer<'a> {
    map: &'a NodeMap,
    formulas: &'a mut FormulaSet,
    names: &'a ProjectNames,
    highlight: &'a GraphHighlight,
    actions: &'a mut Vec<InspectorAction>,
    log: &'a mut Vec<String>,
    message: &'a mut Option<String>,
    rects: &'a mut BTreeMap<NodeId, Rect>,
    drawn_highlight: BTreeSet<String>,
    transform: Option<TSTransform>,
    to_global: TSTransform,
    /// The map changed by a widget in a node (one per frame), its undo label and gesture.
    changed: Option<(NodeMap, String, Option<u64>)>,
}

impl MapViewer<'_> {
    fn ends(snarl: &Snarl<MapNodeView>, from: &OutPin, to: &InPin) -> Option<(String, String)> {
        Some((snarl.get_node(from.id.node)?.id.clone(), snarl.get_node(to.id.node)?.id.clone()))
    }

    /// The unlock condition field of one path, with its error as typed.
    fn unlock_ui(&mut self, ui: &mut egui::Ui, from: &str, row: &EdgeRow) {
        let mut text = row.unlock.clone();
        let field_id = egui::Id::new(("unlock", self.map.id.as_str(), from, row.to.as_str()));
        let label = ui.label(RichText::new(format!("{from} → {}", row.to)).small());
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut text)
                    .id(field_id)
                    .hint_text("unlock (always)")
                    .code_editor()
                    .desired_width(130.0),
            )
            .labelled_by(label.id);
        if response.changed() {
            let mut changed = self.map.clone();
            for edge in changed.edges.iter_mut().filter(|e| e.from.as_str() == from && e.to.as_str() == row.to) {
                edge.unlock = (!text.trim().is_empty()).then(|| Expr::new(text.clone()));
            }
            let label = format!("Edit the unlock of {from} → {} in {}", row.to, self.map.id);
            self.changed = Some((changed, label, Some(field_id.value())));
        }
        if response.lost_focus() {
            self.actions.push(InspectorAction::EndGesture);
        }
        if !text.trim().is_empty()
            && let Err(error) = self.formulas.compile(&text, self.names)
        {
            ui.label(RichText::new(error.message).small().color(ui.visuals().error_fg_color));
        }
    }
}

impl SnarlViewer<MapNodeView> for MapViewer<'_> {
    fn title(&mut self, node: &MapNodeView) -> String {
        node.header_text()
    }

    fn node_frame(
        &mut self,
        default: egui::Frame,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<MapNodeView>,
    ) -> egui::Frame {
        let Some(data) = snarl.get_node(node) else { return default };
        if self.highlight.nodes.contains(&data.id) {
            self.drawn_highlight.insert(data.id.clone());
            return highlighted_frame(default);
        }
        default.stroke(Stroke::new(1.5, node_kind_colour(&data.kind).gamma_multiply(0.8)))
    }

    fn show_header(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<MapNodeView>,
    ) {
        let Some(data) = snarl.get_node(node) else { return };
        ui.horizontal(|ui| {
            let colour = node_kind_colour(&data.kind);
            ui.label(RichText::new(node_kind_icon(&data.kind)).color(colour)).on_hover_text(kind_name(&data.kind));
            if data.start {
                ui.label(RichText::new(icon::FLAG).color(kind_text_colour(Kind::NodeMap, ui.visuals())))
                    .on_hover_text("Start node");
            }
            if ui.add(egui::Button::new(RichText::new(data.header_text()).strong()).frame(false)).clicked() {
                self.actions.push(InspectorAction::Select(ItemKey::new(Kind::NodeMap, self.map.id.as_str())));
            }
            if self.highlight.nodes.contains(&data.id) {
                ui.label(RichText::new(format!("Current: {}", data.id)).color(HIGHLIGHT_COLOUR));
            }
        });
    }

    fn inputs(&mut self, _node: &MapNodeView) -> usize {
        1
    }

    fn show_input(
        &mut self,
        _pin: &InPin,
        ui: &mut egui::Ui,
        _snarl: &mut Snarl<MapNodeView>,
    ) -> impl SnarlPin + 'static {
        ui.label(RichText::new("in").weak().small());
        PinInfo::circle().with_fill(kind_colour(Kind::NodeMap))
    }

    fn outputs(&mut self, node: &MapNodeView) -> usize {
        node.edges.len() + 1
    }

    fn show_output(
        &mut self,
        pin: &OutPin,
        ui: &mut egui::Ui,
        snarl: &mut Snarl<MapNodeView>,
    ) -> impl SnarlPin + 'static {
        let Some(data) = snarl.get_node(pin.id.node).cloned() else { return PinInfo::circle() };
        let Some(row) = data.edges.get(pin.id.output) else {
            ui.add(egui::Label::new(RichText::new("new path").weak().small()).extend());
            return PinInfo::circle().with_fill(Color32::GRAY);
        };
        // Right-aligned, hugging the pin: snarl lays outputs out right to left, and a
        // left-aligned column there would stretch the node to all the width it is offered.
        ui.with_layout(egui::Layout::top_down(egui::Align::Max), |ui| {
            self.unlock_ui(ui, &data.id, row);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let dashed = row.style == EdgeStyle::Dashed;
                let text = if dashed { "dashed" } else { "solid" };
                if ui.small_button(text).on_hover_text("Switch between a solid and a dashed (locked) path").clicked() {
                    let mut changed = self.map.clone();
                    for edge in
                        changed.edges.iter_mut().filter(|e| e.from.as_str() == data.id && e.to.as_str() == row.to)
                    {
                        edge.style = if dashed { EdgeStyle::Solid } else { EdgeStyle::Dashed };
                    }
                    self.changed =
                        Some((changed, format!("Restyle {} → {} in {}", data.id, row.to, self.map.id), None));
                }
                if row.cost != "0" && !row.cost.is_empty() {
                    ui.label(RichText::new(format!("cost {}", row.cost)).small());
                }
            });
        });
        match row.style {
            EdgeStyle::Solid => {
                PinInfo::circle().with_fill(kind_colour(Kind::NodeMap)).with_wire_style(WireStyle::Bezier5)
            }
            EdgeStyle::Dashed => PinInfo::square().with_fill(Color32::from_gray(120)).with_wire_style(WireStyle::Line),
        }
    }

    fn has_body(&mut self, node: &MapNodeView) -> bool {
        !(node.properties.is_empty() && node.affixes.is_empty())
    }

    fn show_body(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<MapNodeView>,
    ) {
        let Some(data) = snarl.get_node(node) else { return };
        ui.vertical(|ui| {
            for (name, value) in &data.properties {
                ui.label(RichText::new(format!("{name} = {value}")).small().monospace());
            }
            if !data.affixes.is_empty() {
                ui.label(RichText::new(data.affixes.join(", ")).small().italics());
            }
        });
    }

    fn final_node_rect(&mut self, node: NodeId, rect: Rect, _ui: &mut egui::Ui, _snarl: &mut Snarl<MapNodeView>) {
        self.rects.insert(node, rect);
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<MapNodeView>) {
        if let Some((from, to)) = Self::ends(snarl, from, to) {
            connect_or_refuse(self.map, &from, &to, self.actions, self.message, self.log);
        }
    }

    fn disconnect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<MapNodeView>) {
        if let Some((from, to)) = Self::ends(snarl, from, to)
            && let Some(changed) = disconnect_nodes(self.map, &from, &to)
        {
            self.changed = Some((changed, format!("Remove the path {from} → {to} in {}", self.map.id), None));
        }
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<MapNodeView>) {
        let Some(data) = snarl.get_node(pin.id.node) else { return };
        if let Some(row) = data.edges.get(pin.id.output)
            && let Some(changed) = disconnect_nodes(self.map, &data.id, &row.to)
        {
            self.changed =
                Some((changed, format!("Remove the path {} → {} in {}", data.id, row.to, self.map.id), None));
        }
    }

    fn drop_inputs(&mut self, _pin: &InPin, _snarl: &mut Snarl<MapNodeView>) {}

    fn has_graph_menu(&mut self, _pos: Pos2, _snarl: &mut Snarl<MapNodeView>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: Pos2, ui: &mut egui::Ui, _snarl: &mut Snarl<MapNodeView>) {
        if ui.button(format!("{} New node here", icon::PLUS)).clicked() {
            let mut changed = self.map.clone();
            let mut id = "node".to_owned();
            let mut n = 2;
            while changed.nodes.iter().any(|node| node.id.as_str() == id) {
                id = format!("node_{n}");
                n += 1;
            }
            let round = |v: f32| (v / MAP_TO_GRAPH).round();
            changed.nodes.push(MapNode { id: Id::new(&id), x: round(pos.x), y: round(pos.y), ..MapNode::default() });
            self.changed = Some((changed, format!("New node {id} in {}", self.map.id), None));
            ui.close();
        }
    }

    fn has_node_menu(&mut self, _node: &MapNodeView) -> bool {
        true
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut egui::Ui,
        snarl: &mut Snarl<MapNodeView>,
    ) {
        let Some(data) = snarl.get_node(node) else { return };
        let id = data.id.clone();
        if ui.button(format!("{} Start here", icon::FLAG)).clicked() {
            let mut changed = self.map.clone();
            changed.start = Some(Id::new(&id));
            self.changed = Some((changed, format!("Start {} at {id}", self.map.id), None));
            ui.close();
        }
        ui.menu_button("Kind", |ui| {
            for kind in [NodeKind::Normal, NodeKind::Home, NodeKind::Anecdote, NodeKind::Forge, NodeKind::Safehouse] {
                if ui.button(format!("{} {}", node_kind_icon(&kind), kind_name(&kind))).clicked() {
                    let mut changed = self.map.clone();
                    for target in changed.nodes.iter_mut().filter(|n| n.id.as_str() == id) {
                        target.kind = kind.clone();
                    }
                    self.changed = Some((changed, format!("Make {id} a {} node", kind_name(&kind)), None));
                    ui.close();
                }
            }
        });
        if ui.button(format!("{} Delete node and its paths", icon::TRASH)).clicked() {
            self.changed = Some((delete_node(self.map, &id), format!("Delete node {id} in {}", self.map.id), None));
            ui.close();
        }
    }

    fn current_transform(&mut self, to_global: &mut TSTransform, _snarl: &mut Snarl<MapNodeView>) {
        if let Some(transform) = self.transform.take() {
            *to_global = transform;
        }
        self.to_global = *to_global;
    }
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
}

fn graph_style() -> SnarlStyle {
    SnarlStyle {
        collapsible: Some(false),
        wire_width: Some(2.0),
        crisp_magnified_text: Some(false),
        ..SnarlStyle::new()
    }
}
