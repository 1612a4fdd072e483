//! The Table tab: the items of one kind as rows and their simple fields as columns (for cards,
//! also one column per aspect: how many of it the card holds), sortable by any column,
//! filtered by id or label, every cell edited in place as an op. This is where designers
//! balance numbers across many items.
//!
//! Rows and columns are both virtualised: only the rows in view are laid out (egui_extras'
//! `TableBuilder::rows`) and only the cells of columns in view get widgets. The row order is
//! worked out when the kind, filter, sort or set of items changes, not on every edit, so a
//! row does not jump away while its cell is being edited.

use std::cmp::Ordering;

use actforge_runtime::schema::item_schema;
use actforge_runtime::{Kind, Project};
use egui::RichText;
use egui_extras::{Column as TableColumn, TableBuilder};
use serde_json::{Map, Value};

use crate::document::{Document, ItemKey, Op, get_item, item_from_json};
use crate::panels::inspector::{InspectorAction, humanise, is_designer_text};
use crate::style::{kind_icon, kind_text_colour};

/// Height of a row, in points.
const ROW_HEIGHT: f32 = 22.0;
/// Width of a value column, in points.
const VALUE_WIDTH: f32 = 96.0;
/// Width of the id column, in points.
const ID_WIDTH: f32 = 170.0;

/// What a column shows.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum ColumnKey {
    /// A top-level field of the item.
    Field(String),
    /// How many of an aspect a card holds (its `fragments`).
    Aspect(String),
}

/// How a field's cells are edited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CellKind {
    Bool,
    Integer,
    Number,
    Text,
    Formula,
    Reference(Kind),
    Choice,
    Count,
}

/// One column: what it shows, its title and how its cells are edited.
#[derive(Clone, Debug)]
struct ColumnSpec {
    key: ColumnKey,
    title: String,
    cell: CellKind,
    /// The variants of an enum column.
    choices: Vec<String>,
}

/// The sorted column and whether it is descending.
type Sort = Option<(ColumnKey, bool)>;

/// What a layout was worked out for: kind, filter, sort and the item ids it saw.
type MadeFor = (Kind, String, Sort, Vec<String>);

/// The rows and columns worked out for one kind, filter and sort.
#[derive(Debug, Default)]
struct Layout {
    /// What they were worked out for: kind, filter, sort and the item ids they saw.
    made_for: Option<MadeFor>,
    /// The document revision the ids were listed at.
    revision: u64,
    columns: Vec<ColumnSpec>,
    /// Item ids in row order.
    rows: Vec<String>,
}

/// The Table tab's state.
#[derive(Debug)]
pub struct TableView {
    kind: Kind,
    filter: String,
    /// The sorted column and whether it is descending.
    sort: Sort,
    layout: Layout,
    /// Whether the kind follows the selection (until the designer picks one).
    follow_selection: bool,
}

impl Default for TableView {
    fn default() -> Self {
        Self { kind: Kind::Card, filter: String::new(), sort: None, layout: Layout::default(), follow_selection: true }
    }
}

/// The simple top-level fields of a kind (its schema's scalar properties, designer texts
/// other than the label left out), in declaration order.
fn field_columns(kind: Kind) -> Vec<ColumnSpec> {
    let root = item_schema(kind);
    let Some(properties) = root.get("properties").and_then(Value::as_object) else { return Vec::new() };
    properties
        .iter()
        .filter(|(name, _)| *name != "id" && *name != "text_key" && !is_designer_text(name))
        .filter_map(|(name, schema)| {
            let (cell, choices) = cell_of(root, schema)?;
            Some(ColumnSpec { key: ColumnKey::Field(name.clone()), title: humanise(name), cell, choices })
        })
        .collect()
}

/// How a schema's values are edited in a cell, if they can be.
fn cell_of(root: &Value, schema: &Value) -> Option<(CellKind, Vec<String>)> {
    let schema = actforge_runtime::schema::resolve(root, schema);
    if let Some(kind) = schema.get(actforge_runtime::schema::KIND_EXTENSION).and_then(Value::as_str) {
        return Kind::from_folder(kind).map(|kind| (CellKind::Reference(kind), Vec::new()));
    }
    if schema.get(actforge_runtime::schema::FORMULA_EXTENSION).is_some_and(|flag| flag == true) {
        return Some((CellKind::Formula, Vec::new()));
    }
    if let Some(options) = schema.get("oneOf").and_then(Value::as_array) {
        let names: Option<Vec<String>> =
            options.iter().map(|option| option.get("const").and_then(Value::as_str).map(str::to_owned)).collect();
        return names.map(|names| (CellKind::Choice, names));
    }
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    match types.iter().find(|kind| **kind != "null").copied() {
        Some("boolean") => Some((CellKind::Bool, Vec::new())),
        Some("integer") => Some((CellKind::Integer, Vec::new())),
        Some("number") => Some((CellKind::Number, Vec::new())),
        Some("string") if schema.get(actforge_runtime::schema::COLOUR_EXTENSION).is_none() => {
            Some((CellKind::Text, Vec::new()))
        }
        _ => None,
    }
}

/// The value a cell shows and sorts by.
fn cell_value(json: &Value, key: &ColumnKey) -> Value {
    match key {
        ColumnKey::Field(name) => json.get(name).cloned().unwrap_or(Value::Null),
        ColumnKey::Aspect(aspect) => Value::from(aspect_count(json, aspect)),
    }
}

/// How many of `aspect` a card's JSON holds (its fragment counts that are whole numbers).
fn aspect_count(card: &Value, aspect: &str) -> i64 {
    card.get("fragments")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|held| held.get("fragment").and_then(|f| f.get("Aspect")).and_then(Value::as_str) == Some(aspect))
        .map(|held| held.get("count").map_or(Some(1), Value::as_i64).unwrap_or(0))
        .sum()
}

/// Sets how many of `aspect` a card's JSON holds: the first entry takes the count, others go;
/// 0 removes the aspect.
fn set_aspect_count(card: &mut Value, aspect: &str, count: i64) {
    let Some(object) = card.as_object_mut() else { return };
    let fragments = object.entry("fragments").or_insert_with(|| Value::Array(Vec::new()));
    let Some(list) = fragments.as_array_mut() else { return };
    let is_it =
        |held: &Value| held.get("fragment").and_then(|f| f.get("Aspect")).and_then(Value::as_str) == Some(aspect);
    let first = list.iter().position(is_it);
    let mut at = 0;
    list.retain(|held| {
        let keep = !is_it(held) || Some(at) == first;
        at += 1;
        keep
    });
    match list.iter_mut().find(|held| is_it(held)) {
        Some(held) if count > 0 => {
            if let Some(held) = held.as_object_mut() {
                held.insert("count".to_owned(), Value::from(count));
            }
        }
        Some(_) => list.retain(|held| !is_it(held)),
        None if count > 0 => {
            let mut held = Map::new();
            held.insert("fragment".to_owned(), serde_json::json!({ "Aspect": aspect }));
            held.insert("count".to_owned(), Value::from(count));
            list.push(Value::Object(held));
        }
        None => {}
    }
}

/// Orders two cell values: numbers by value, then texts, then the rest.
fn compare(a: &Value, b: &Value) -> Ordering {
    match (a.as_f64(), b.as_f64()) {
        (Some(a), Some(b)) => a.total_cmp(&b),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => text_of(a).cmp(&text_of(b)),
    }
}

/// A value as a cell's text.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        Value::Bool(flag) => flag.to_string(),
        other => other.to_string(),
    }
}

impl TableView {
    /// The kind shown.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// Shows `kind`'s items.
    pub fn show_kind(&mut self, kind: Kind) {
        self.kind = kind;
        self.follow_selection = false;
    }

    /// The ids of the rows shown, in order (after the last frame).
    pub fn row_ids(&self) -> &[String] {
        &self.layout.rows
    }

    /// Works out the columns and the row order again when what they depend on moved.
    fn lay_out(&mut self, project: &Project, revision: u64) {
        // Nothing to do while neither the view nor the document moved (most frames).
        let same_view = matches!(&self.layout.made_for, Some((kind, filter, sort, _))
            if *kind == self.kind && *filter == self.filter && *sort == self.sort);
        if same_view && self.layout.revision == revision {
            return;
        }
        let ids = project.entries(self.kind).iter().map(|(id, _)| (*id).to_owned()).collect();
        let made_for = (self.kind, self.filter.clone(), self.sort.clone(), ids);
        self.layout.revision = revision;
        if self.layout.made_for.as_ref() == Some(&made_for) {
            return;
        }
        let mut columns = field_columns(self.kind);
        if self.kind == Kind::Card {
            // The numbers designers balance come right after the label.
            let at =
                usize::from(columns.first().is_some_and(|column| column.key == ColumnKey::Field("label".to_owned())));
            let aspects: Vec<ColumnSpec> = project
                .aspects
                .iter()
                .map(|aspect| ColumnSpec {
                    key: ColumnKey::Aspect(aspect.id.as_str().to_owned()),
                    title: if aspect.label.is_empty() { aspect.id.as_str().to_owned() } else { aspect.label.clone() },
                    cell: CellKind::Count,
                    choices: Vec::new(),
                })
                .collect();
            columns.splice(at..at, aspects);
        }
        let filter = self.filter.to_lowercase();
        let mut rows: Vec<(String, Value)> = project
            .entries(self.kind)
            .into_iter()
            .filter(|(id, label)| filter.is_empty() || id.contains(&filter) || label.to_lowercase().contains(&filter))
            .map(|(id, _)| (id.to_owned(), Value::Null))
            .collect();
        if let Some((key, descending)) = &self.sort {
            for (id, value) in &mut rows {
                let json = get_item(project, self.kind, id).and_then(|item| item.to_json().ok()).unwrap_or_default();
                *value = cell_value(&json, key);
            }
            // Stable: equal values keep id order.
            rows.sort_by(|a, b| {
                let order = compare(&a.1, &b.1);
                if *descending { order.reverse() } else { order }
            });
        }
        self.layout =
            Layout { made_for: Some(made_for), revision, columns, rows: rows.into_iter().map(|(id, _)| id).collect() };
    }

    /// Draws the tab; cell edits become `actions`, a click on a row's id selects it.
    pub fn ui(
        &mut self,
        ui: &mut egui::Ui,
        document: &Document,
        selection: Option<&ItemKey>,
        actions: &mut Vec<InspectorAction>,
    ) {
        let project = document.project();
        if self.follow_selection
            && let Some(selected) = selection
        {
            self.kind = selected.kind;
        }
        self.toolbar_ui(ui, project);
        self.lay_out(project, document.revision());
        let shown = self.layout.rows.len();
        ui.label(
            RichText::new(format!(
                "{shown} of {} {} · {} columns · click a title to sort · cells edit in place (undoable)",
                project.count(self.kind),
                self.kind.plural_label().to_lowercase(),
                self.layout.columns.len()
            ))
            .weak(),
        );
        ui.separator();
        self.table_ui(ui, project, actions);
    }

    /// The kind picker and the filter.
    fn toolbar_ui(&mut self, ui: &mut egui::Ui, project: &Project) {
        ui.horizontal(|ui| {
            let label = ui.label("Kind");
            egui::ComboBox::from_id_salt("table_kind")
                .selected_text(format!("{} {}", kind_icon(self.kind), self.kind.plural_label()))
                .show_ui(ui, |ui| {
                    for &kind in Kind::ALL {
                        let text = format!("{} {} ({})", kind_icon(kind), kind.plural_label(), project.count(kind));
                        if ui.selectable_label(kind == self.kind, text).clicked() {
                            self.show_kind(kind);
                        }
                    }
                })
                .response
                .labelled_by(label.id);
            let label = ui.label("Filter");
            ui.add(egui::TextEdit::singleline(&mut self.filter).hint_text("id or label").desired_width(160.0))
                .labelled_by(label.id);
        });
    }

    /// The table itself: headers that sort, rows of cells that edit.
    fn table_ui(&mut self, ui: &mut egui::Ui, project: &Project, actions: &mut Vec<InspectorAction>) {
        let mut edits: Vec<(String, ColumnKey, Value, bool)> = Vec::new();
        let mut select = None;
        let mut sort_by = None;
        let kind = self.kind;
        let columns = &self.layout.columns;
        let rows = &self.layout.rows;
        let sort = &self.sort;
        egui::ScrollArea::horizontal().id_salt("table_scroll").show(ui, |ui| {
            TableBuilder::new(ui)
                .id_salt(("table", kind))
                .striped(true)
                .vscroll(true)
                .column(TableColumn::exact(ID_WIDTH))
                .columns(TableColumn::exact(VALUE_WIDTH), columns.len())
                .header(ROW_HEIGHT + 4.0, |mut header| {
                    header.col(|ui| {
                        ui.strong("Id");
                    });
                    for column in columns {
                        header.col(|ui| {
                            let arrow = match sort {
                                Some((key, descending)) if *key == column.key => {
                                    if *descending {
                                        " ⏷"
                                    } else {
                                        " ⏶"
                                    }
                                }
                                _ => "",
                            };
                            let title = format!("{}{arrow}", column.title);
                            if ui
                                .add(egui::Button::new(RichText::new(title).strong()).frame(false).truncate())
                                .on_hover_text(format!("{}: click to sort", column.title))
                                .clicked()
                            {
                                sort_by = Some(column.key.clone());
                            }
                        });
                    }
                })
                .body(|body| {
                    body.rows(ROW_HEIGHT, rows.len(), |mut row| {
                        let Some(id) = rows.get(row.index()) else { return };
                        let Some(json) = get_item(project, kind, id).and_then(|item| item.to_json().ok()) else {
                            return;
                        };
                        row.col(|ui| {
                            let text = RichText::new(format!("{} {id}", kind_icon(kind)))
                                .color(kind_text_colour(kind, ui.visuals()));
                            if ui
                                .add(egui::Button::new(text).frame(false).truncate())
                                .on_hover_text("Select this item")
                                .clicked()
                            {
                                select = Some(ItemKey::new(kind, id.clone()));
                            }
                        });
                        for column in columns {
                            row.col(|ui| {
                                // Columns out of view get no widget: only their space.
                                if !ui.clip_rect().intersects(ui.max_rect()) {
                                    return;
                                }
                                let value = cell_value(&json, &column.key);
                                if let Some((new, continuous)) =
                                    cell_ui(ui, project, column, &value, (id.as_str(), &column.key))
                                {
                                    edits.push((id.clone(), column.key.clone(), new, continuous));
                                }
                            });
                        }
                    });
                });
        });
        if let Some(key) = sort_by {
            self.sort = match &self.sort {
                Some((current, false)) if *current == key => Some((key, true)),
                Some((current, true)) if *current == key => None,
                _ => Some((key, false)),
            };
        }
        if let Some(key) = select {
            actions.push(InspectorAction::Select(key));
        }
        for (id, key, value, continuous) in edits {
            if let Some(action) = edit_action(project, kind, &id, &key, value, continuous) {
                actions.push(action);
            }
        }
    }
}

/// The edit of one cell as one op (typing and dragging merge per cell), if the item takes it.
fn edit_action(
    project: &Project,
    kind: Kind,
    id: &str,
    key: &ColumnKey,
    value: Value,
    continuous: bool,
) -> Option<InspectorAction> {
    let mut json = get_item(project, kind, id)?.to_json().ok()?;
    match key {
        ColumnKey::Field(name) => {
            json.as_object_mut()?.insert(name.clone(), value);
        }
        ColumnKey::Aspect(aspect) => set_aspect_count(&mut json, aspect, value.as_i64().unwrap_or(0)),
    }
    let item = item_from_json(kind, json).ok()?;
    let column = match key {
        ColumnKey::Field(name) => name.clone(),
        ColumnKey::Aspect(aspect) => format!("aspect {aspect}"),
    };
    let gesture = continuous.then(|| egui::Id::new(("table_cell", kind, id, key)).value());
    Some(InspectorAction::Edit { op: Op::put(item), label: format!("Edit {column} of {kind} `{id}`"), gesture })
}

/// One cell's widget; returns the new value when it changed (and whether the change is part
/// of a continuous gesture).
fn cell_ui(
    ui: &mut egui::Ui,
    project: &Project,
    column: &ColumnSpec,
    value: &Value,
    cell: (&str, &ColumnKey),
) -> Option<(Value, bool)> {
    let id = egui::Id::new(("table_cell_widget", cell));
    match column.cell {
        CellKind::Bool => {
            let mut flag = value.as_bool().unwrap_or_default();
            ui.checkbox(&mut flag, "").changed().then(|| (Value::Bool(flag), false))
        }
        CellKind::Integer | CellKind::Count => {
            let mut number = value.as_i64().unwrap_or_default();
            let response = ui.add(egui::DragValue::new(&mut number));
            response.changed().then(|| (Value::from(number), true))
        }
        CellKind::Number => {
            let mut number = value.as_f64().unwrap_or_default();
            let response = ui.add(egui::DragValue::new(&mut number).speed(0.01));
            response.changed().then(|| (serde_json::Number::from_f64(number).map_or(Value::Null, Value::Number), true))
        }
        CellKind::Text | CellKind::Formula => {
            let mut text = text_of(value);
            let edit = egui::TextEdit::singleline(&mut text).id(id).desired_width(f32::INFINITY);
            let edit = if column.cell == CellKind::Formula { edit.font(egui::TextStyle::Monospace) } else { edit };
            if !ui.add(edit).changed() {
                return None;
            }
            let new = if column.cell == CellKind::Formula {
                actforge_runtime::model::Expr::new(text.clone())
                    .as_int()
                    .map_or_else(|| Value::String(text.clone()), Value::from)
            } else {
                Value::String(text)
            };
            Some((new, true))
        }
        CellKind::Choice => {
            let current = text_of(value);
            let mut chosen = None;
            egui::ComboBox::from_id_salt(id).selected_text(humanise(&current)).width(VALUE_WIDTH - 8.0).show_ui(
                ui,
                |ui| {
                    for choice in &column.choices {
                        if ui.selectable_label(*choice == current, humanise(choice)).clicked() {
                            chosen = Some(choice.clone());
                        }
                    }
                },
            );
            chosen.filter(|choice| *choice != current).map(|choice| (Value::String(choice), false))
        }
        CellKind::Reference(kind) => {
            let current = text_of(value);
            let mut chosen = None;
            let colour = if current.is_empty() || project.contains(kind, &current) {
                kind_text_colour(kind, ui.visuals())
            } else {
                crate::style::severity_colour(actforge_runtime::Severity::Error)
            };
            let shown = if current.is_empty() { "—".to_owned() } else { current.clone() };
            egui::ComboBox::from_id_salt(id)
                .selected_text(RichText::new(shown).color(colour))
                .width(VALUE_WIDTH - 8.0)
                .show_ui(ui, |ui| {
                    for (target, label) in project.entries(kind).into_iter().take(300) {
                        let text = if label.is_empty() { target.to_owned() } else { format!("{label} · {target}") };
                        if ui.selectable_label(target == current, text).clicked() {
                            chosen = Some(target.to_owned());
                        }
                    }
                });
            chosen.filter(|target| *target != current).map(|target| (Value::String(target), false))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn aspect_counts_are_read_and_set_on_the_first_entry() {
        let mut card = serde_json::json!({ "id": "c", "fragments": [
            { "fragment": { "Aspect": "fire" } },
            { "fragment": { "Aspect": "fire" }, "count": 2 },
            { "fragment": { "Card": "x" } },
        ]});
        assert_eq!(aspect_count(&card, "fire"), 3);
        set_aspect_count(&mut card, "fire", 5);
        assert_eq!(aspect_count(&card, "fire"), 5);
        assert_eq!(card["fragments"].as_array().unwrap().len(), 2, "one entry per aspect");
        set_aspect_count(&mut card, "fire", 0);
        assert_eq!(aspect_count(&card, "fire"), 0);
        set_aspect_count(&mut card, "water", 2);
        assert_eq!(aspect_count(&card, "water"), 2);
        assert_eq!(card["fragments"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn cards_show_their_simple_fields_in_declaration_order() {
        let titles: Vec<String> = field_columns(Kind::Card).into_iter().map(|column| column.title).collect();
        assert_eq!(titles.first().map(String::as_str), Some("Label"));
        assert!(titles.contains(&"Unique".to_owned()) && titles.contains(&"Lifetime ticks".to_owned()), "{titles:?}");
        assert!(!titles.contains(&"Description".to_owned()), "long texts are edited in the inspector");
    }
}
