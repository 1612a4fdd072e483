//! The form of one item, drawn from its kind's schema: every field in declaration order,
//! whether the file holds it or not (a field at its default shows the default and is written
//! once edited), each with the widget its schema asks for.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use actforge_runtime::engine::Session;
use actforge_runtime::model::Expr;
use actforge_runtime::{Kind, Project, Severity};
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;
use serde_json::{Map, Value};

use super::InspectorState;
use super::shape::{Defaults, Nullable, Shape, Variant, inner_of, local_ids, shape_of, variant_of};
use super::text::{is_designer_text, text_editor};
use crate::document::{ItemKey, SharedItem};
use crate::style::{kind_icon, kind_text_colour, severity_colour};

/// A change made this frame: where, its undo name, and the gesture it belongs to.
#[derive(Clone, Debug)]
pub struct Change {
    /// The field's path.
    pub path: Vec<String>,
    /// The undo step's name.
    pub label: String,
    /// Typing and dragging merge into one step per field.
    pub gesture: Option<u64>,
}

/// The form being drawn for one item.
pub struct Form<'a> {
    /// The project, read-only.
    pub project: &'a Project,
    /// The item's schema.
    pub root: &'a Value,
    /// The item.
    pub key: &'a ItemKey,
    /// Top-level fields not drawn (an item's id: the rename field edits it).
    pub hidden: &'a [&'a str],
    /// Sections that start open even while empty, by path (`entry.tokens`).
    pub open: &'a [&'a str],
    /// The item as JSON as it is (before this frame's edit).
    pub original: &'a Value,
    /// State kept between frames.
    pub state: &'a mut InspectorState,
    /// Validation's problems by field path (`next_acts[2].act`).
    pub problems: &'a BTreeMap<String, Vec<String>>,
    /// The change made this frame.
    pub changed: Option<Change>,
    /// Focus left a field or a drag ended: the gesture is over.
    pub gesture_ended: bool,
    /// A reference chip was clicked: select its target.
    pub selected: Option<ItemKey>,
    /// Items made this frame from a picker's "New KIND…", applied with the edit as one step.
    pub created: Vec<SharedItem>,
    /// The preview's running game, if any: formula fields can show their values in it.
    pub live: Option<&'a Session>,
}

/// A path for people (`next_acts[2].act`).
pub fn path_text(path: &[String]) -> String {
    let mut text = String::new();
    for part in path {
        if part.parse::<usize>().is_ok() {
            let _ = write!(text, "[{part}]");
        } else if text.is_empty() {
            text.push_str(part);
        } else {
            let _ = write!(text, ".{part}");
        }
    }
    text
}

/// `snake_case` or `CamelCase` as "Snake case", "Camel case".
pub fn humanise(name: &str) -> String {
    let mut spaced = String::with_capacity(name.len() + 4);
    let mut previous_lower = false;
    for c in name.chars() {
        if c == '_' {
            spaced.push(' ');
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower {
            spaced.push(' ');
            spaced.extend(c.to_lowercase());
        } else {
            spaced.push(c);
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    let mut chars = spaced.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// The width a field may take here: what the layout offers, but never past the panel's edge
/// (a grid cell's available width is not bounded by the panel; its clip rect is).
fn room(ui: &egui::Ui) -> f32 {
    ui.available_width().min(ui.clip_rect().right() - ui.cursor().left()).max(40.0)
}

/// The widget that names a value's widget for assistive technology (and tests): its field's
/// label, when it has one on screen.
type Label = Option<egui::Id>;

/// Names a response by a [`Label`], when there is one.
trait Named {
    fn named(self, label: Label) -> Self;
}

impl Named for egui::Response {
    fn named(self, label: Label) -> Self {
        match label {
            Some(id) => self.labelled_by(id),
            None => self,
        }
    }
}

/// How many make a list long enough to start folded.
const LONG_LIST: usize = 8;

/// Whether a value of this shape takes a section of its own (a structure or list) rather
/// than one row.
fn is_compound(root: &Value, shape: &Shape<'_>, value: &Value) -> bool {
    match shape {
        Shape::List(_) | Shape::Map(_) | Shape::Object(..) => true,
        Shape::Optional(option) => !value.is_null() && is_compound(root, &inner_of(root, option).0, value),
        Shape::Enum(variants) => {
            let data = variant_of(value).and_then(|name| variants.iter().find(|v| v.name == name)).and_then(|v| v.data);
            data.is_some_and(|data| {
                let inner = value.as_object().and_then(|map| map.values().next()).unwrap_or(&Value::Null);
                is_compound(root, &shape_of(root, data), inner)
            })
        }
        _ => false,
    }
}

/// "3 fields", "1 item", "empty".
fn size_text(value: &Value) -> String {
    let (count, one, many) = match value {
        Value::Array(list) => (list.len(), "item", "items"),
        Value::Object(object) => (object.len(), "field", "fields"),
        _ => return String::new(),
    };
    match count {
        0 => "empty".to_owned(),
        1 => format!("1 {one}"),
        _ => format!("{count} {many}"),
    }
}

/// A `#rrggbb` or `#rrggbbaa` colour.
fn parse_colour(text: &str) -> Option<Color32> {
    let hex = text.strip_prefix('#')?;
    if !(hex.len() == 6 || hex.len() == 8) || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let byte = |at: usize| hex.get(at..at + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok());
    let alpha = if hex.len() == 8 { byte(6)? } else { 255 };
    Some(Color32::from_rgba_unmultiplied(byte(0)?, byte(2)?, byte(4)?, alpha))
}

/// A summary for the fields too large to edit as a form, which a tab of their own edits
/// (a tile map's columns: thousands of tiles); None for every other field.
fn edited_in_a_tab(kind: Kind, path: &[String], value: &Value) -> Option<String> {
    if kind != Kind::TileMap || path != ["columns"] {
        return None;
    }
    let columns = value.as_array().map_or(0, Vec::len);
    let tiles: usize = value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|column| column.get("tiles").and_then(Value::as_array).map(Vec::len))
        .sum();
    Some(format!("{tiles} tiles in {columns} columns: edit them in the Tile map tab (Ctrl+Shift+T)"))
}

impl Form<'_> {
    fn defaults(&self) -> Defaults<'_> {
        Defaults { root: self.root, project: self.project, item: self.original }
    }

    fn gesture(&self, path: &[String]) -> u64 {
        egui::Id::new(("inspector", &self.key.kind, &self.key.id, path)).value()
    }

    /// Records a change of the field at `path` (`continuous`: typing or dragging, merged).
    fn note(&mut self, path: &[String], verb: &str, continuous: bool) {
        let gesture = continuous.then(|| self.gesture(path));
        self.changed = Some(Change { path: path.to_vec(), label: format!("{verb} {}", path_text(path)), gesture });
    }

    /// Notes a widget's change and the end of its gesture.
    fn mark(&mut self, path: &[String], response: &egui::Response, continuous: bool) -> bool {
        if response.lost_focus() || response.drag_stopped() {
            self.gesture_ended = true;
        }
        if response.changed() {
            self.note(path, "Edit", continuous);
            return true;
        }
        false
    }

    /// The fields of a structure in declaration order; `top` is the item itself (its id is
    /// edited by the rename field). Fields the value lacks show their default and are written
    /// once edited.
    pub fn object_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        properties: &Map<String, Value>,
        object: &mut Map<String, Value>,
        top: bool,
    ) {
        let names: Vec<&String> =
            properties.keys().filter(|name| !(top && self.hidden.contains(&name.as_str()))).collect();
        let label_width = names
            .iter()
            .map(|name| {
                egui::WidgetText::from(RichText::new(humanise(name)).strong())
                    .into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Body)
                    .size()
                    .x
            })
            .fold(0.0, f32::max);
        let mut run: Vec<&String> = Vec::new();
        for (at, name) in names.iter().enumerate() {
            let Some(schema) = properties.get(name.as_str()) else { continue };
            let value = object.get(name.as_str()).cloned().unwrap_or_else(|| self.defaults().value_of(schema));
            path.push((*name).clone());
            let summary = top && edited_in_a_tab(self.key.kind, path, &value).is_some();
            let compound = !summary && is_compound(self.root, &shape_of(self.root, schema), &value);
            path.pop();
            if !compound {
                run.push(name);
            }
            if (compound || at + 1 == names.len()) && !run.is_empty() {
                self.fields_grid(ui, path, properties, object, &std::mem::take(&mut run), label_width);
            }
            if compound {
                self.section_ui(ui, path, name, schema, object);
            }
        }
    }

    /// The value of field `name` of `object` (its default when absent); a changed value is
    /// written into `object`.
    fn with_field(
        &mut self,
        path: &mut Vec<String>,
        name: &str,
        schema: &Value,
        object: &mut Map<String, Value>,
        draw: impl FnOnce(&mut Self, &mut Vec<String>, &mut Value),
    ) {
        let before = self.changed.is_some();
        let mut value = object.get(name).cloned().unwrap_or_else(|| self.defaults().value_of(schema));
        path.push(name.to_owned());
        draw(self, path, &mut value);
        path.pop();
        if !before && self.changed.is_some() {
            object.insert(name.to_owned(), value);
        }
    }

    /// Simple fields as label | value rows.
    fn fields_grid(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        properties: &Map<String, Value>,
        object: &mut Map<String, Value>,
        names: &[&String],
        label_width: f32,
    ) {
        let first = names.first().map_or("", |name| name.as_str());
        egui::Grid::new(("inspector_grid", path.clone(), first))
            .num_columns(2)
            .striped(path.is_empty())
            .spacing([12.0, 6.0])
            .min_col_width(label_width)
            .show(ui, |ui| {
                for name in names {
                    let Some(schema) = properties.get(name.as_str()) else { continue };
                    path.push((*name).clone());
                    let description = schema.get("description").and_then(Value::as_str).unwrap_or_default();
                    let present = object.contains_key(name.as_str());
                    let mut title = RichText::new(humanise(name)).strong();
                    if !present {
                        title = title.weak();
                    }
                    let hover = if present {
                        format!("{}\n\n{description}", path_text(path))
                    } else {
                        format!("{}: at its default (not written to the file)\n\n{description}", path_text(path))
                    };
                    let label = ui.label(title).on_hover_text(hover);
                    self.mark_jump(ui, path, &label);
                    let summary =
                        object.get(name.as_str()).and_then(|value| edited_in_a_tab(self.key.kind, path, value));
                    path.pop();
                    if let Some(summary) = summary {
                        // Wrapped: a grid's cells do not wrap, and a long summary would widen it.
                        ui.add(egui::Label::new(RichText::new(summary).weak()).wrap());
                    } else {
                        ui.vertical(|ui| {
                            self.with_field(path, name, schema, object, |form, path, value| {
                                form.value_ui(ui, path, schema, value, Some(label.id));
                                form.problems_ui(ui, path);
                            });
                        });
                    }
                    ui.end_row();
                }
            });
    }

    /// A structure, list or map field: its name and size as a header that folds, its
    /// contents indented below.
    fn section_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        name: &str,
        schema: &Value,
        object: &mut Map<String, Value>,
    ) {
        self.with_field(path, name, schema, object, |form, path, value| {
            let id = ui.make_persistent_id(("inspector_section", &form.key.kind, &form.key.id, &*path));
            let open = (value.as_array().is_none_or(|list| list.len() <= LONG_LIST) && !is_empty(value))
                || form.open.contains(&path_text(path).as_str());
            let description = schema.get("description").and_then(Value::as_str).unwrap_or_default().to_owned();
            let header = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, open)
                .show_header(ui, |ui| {
                    let label = ui
                        .add(egui::Label::new(RichText::new(humanise(name)).strong()).sense(egui::Sense::click()))
                        .on_hover_text(format!("{}\n\n{description}", path_text(path)));
                    form.mark_jump(ui, path, &label);
                    ui.label(RichText::new(size_text(value)).weak());
                    label.clicked()
                });
            let (_, title, _) = header.body(|ui| {
                let label = None;
                form.value_ui(ui, path, schema, value, label);
                form.problems_ui(ui, path);
            });
            // The field's name folds and unfolds it too, not only the arrow.
            if title.inner {
                let mut state = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, open);
                state.toggle(ui);
                state.store(ui.ctx());
            }
        });
    }

    /// Validation's problems with the field at `path`, under it.
    fn problems_ui(&self, ui: &mut egui::Ui, path: &[String]) {
        let at = path_text(path);
        for message in self.problems.get(&at).into_iter().flatten() {
            ui.colored_label(severity_colour(Severity::Error), message.as_str());
        }
        if let Some(rejected) = self.state.rejected.as_ref().filter(|r| r.key == *self.key && r.path == path) {
            ui.colored_label(severity_colour(Severity::Error), format!("Not applied: {}", rejected.message));
        }
    }

    /// Marks the row of the field a diagnostic pointed at, and scrolls to it once.
    fn mark_jump(&mut self, ui: &egui::Ui, path: &[String], label: &egui::Response) {
        let Some((key, field, shown)) = self.state.jump.as_mut() else { return };
        if key != self.key || *field != path_text(path) {
            return;
        }
        let colour = severity_colour(Severity::Error);
        ui.painter().rect_stroke(
            label.rect.expand(3.0),
            3.0,
            egui::Stroke::new(2.0, colour),
            egui::StrokeKind::Outside,
        );
        if !*shown {
            label.scroll_to_me(Some(egui::Align::Center));
            *shown = true;
        }
    }

    /// The widget for a value of `schema`.
    pub fn value_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        schema: &Value,
        value: &mut Value,
        label: Label,
    ) {
        let shape = shape_of(self.root, schema);
        self.shape_ui(ui, path, &shape, value, label);
    }

    fn shape_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        shape: &Shape<'_>,
        value: &mut Value,
        label: Label,
    ) {
        match shape {
            Shape::Reference(kind) => {
                let mut slug = value.as_str().unwrap_or_default().to_owned();
                if self.reference_ui(ui, path, *kind, &mut slug) {
                    *value = Value::String(slug);
                }
            }
            Shape::Local(collection) => self.local_ui(ui, path, collection, value),
            Shape::Formula => self.formula_ui(ui, path, value, label),
            Shape::Colour => self.colour_ui(ui, path, value),
            Shape::Bool => {
                let mut flag = value.as_bool().unwrap_or_default();
                let response = ui.checkbox(&mut flag, "").named(label);
                if self.mark(path, &response, false) {
                    *value = Value::Bool(flag);
                }
            }
            Shape::Integer { min, max } => {
                let mut number = value.as_f64().unwrap_or_default();
                let response =
                    ui.add(egui::DragValue::new(&mut number).range(*min..=*max).fixed_decimals(0)).named(label);
                if self.mark(path, &response, true) {
                    *value = Value::from(number.round() as i64);
                }
            }
            Shape::Number => {
                let mut number = value.as_f64().unwrap_or_default();
                let response = ui.add(egui::DragValue::new(&mut number).speed(0.01)).named(label);
                if self.mark(path, &response, true)
                    && let Some(number) = serde_json::Number::from_f64(number)
                {
                    *value = Value::Number(number);
                }
            }
            Shape::Text => {
                let mut text = value.as_str().unwrap_or_default().to_owned();
                let id = egui::Id::new(("inspector_text", &self.key.kind, &self.key.id, &*path));
                let designer = path.last().is_some_and(|name| is_designer_text(name)) || text.contains('\n');
                let response = if designer {
                    text_editor(ui, &mut text, id).named(label)
                } else {
                    ui.add(egui::TextEdit::singleline(&mut text).desired_width(room(ui)).id(id)).named(label)
                };
                if self.mark(path, &response, true) {
                    *value = Value::String(text);
                }
            }
            Shape::Enum(variants) => self.enum_ui(ui, path, variants, value, label),
            Shape::Optional(option) => self.optional_ui(ui, path, option, value, label),
            Shape::List(items) => self.list_ui(ui, path, items, value),
            Shape::Map(values) => self.map_ui(ui, path, values, value),
            Shape::Object(properties, _) => {
                if !value.is_object() {
                    *value = Value::Object(Map::new());
                }
                if let Value::Object(object) = value {
                    self.object_ui(ui, path, properties, object, false);
                }
            }
            Shape::Other => self.json_ui(ui, path, value, label),
        }
    }

    /// An enum: a variant picker (each variant's doc on hover) and, for a variant with data,
    /// the data's widget beside or below it.
    fn enum_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        variants: &[Variant<'_>],
        value: &mut Value,
        label: Label,
    ) {
        let current = variant_of(value).map(str::to_owned).unwrap_or_default();
        let mut chosen = None;
        let picker_id = egui::Id::new(("inspector_enum", &*path));
        let picker_name = format!("Variant of {}", path_text(path));
        let draw_picker = |ui: &mut egui::Ui, chosen: &mut Option<usize>| {
            let response =
                egui::ComboBox::from_id_salt(picker_id).selected_text(humanise(&current)).show_ui(ui, |ui| {
                    for (at, variant) in variants.iter().enumerate() {
                        let option = ui.selectable_label(variant.name == current, humanise(variant.name));
                        let option = if variant.description.is_empty() {
                            option
                        } else {
                            option.on_hover_text(variant.description)
                        };
                        if option.clicked() && variant.name != current {
                            *chosen = Some(at);
                        }
                    }
                });
            let description = variants.iter().find(|v| v.name == current).map_or("", |v| v.description);
            let response = response.response.named(label);
            // Named for assistive technology (and tests) by the field it chooses for.
            response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::ComboBox, true, picker_name.as_str()));
            if !description.is_empty() {
                response.on_hover_text(description);
            }
        };
        let data = variants.iter().find(|variant| variant.name == current).and_then(|variant| variant.data);
        match data {
            Some(data)
                if !is_compound(
                    self.root,
                    &shape_of(self.root, data),
                    value.as_object().and_then(|m| m.values().next()).unwrap_or(&Value::Null),
                ) =>
            {
                ui.horizontal(|ui| {
                    draw_picker(ui, &mut chosen);
                    self.variant_data_ui(ui, path, &current, data, value);
                });
            }
            Some(data) => {
                draw_picker(ui, &mut chosen);
                self.variant_data_ui(ui, path, &current, data, value);
            }
            None => draw_picker(ui, &mut chosen),
        }
        if let Some(variant) = chosen.and_then(|at| variants.get(at)) {
            *value = self.defaults().variant_value(variant);
            self.note(path, "Edit", false);
        }
    }

    /// The data of the variant `name` held by `value` (`{"Aspect": "light"}`).
    fn variant_data_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        name: &str,
        data: &Value,
        value: &mut Value,
    ) {
        let Some(inner) = value.as_object_mut().and_then(|map| map.get_mut(name)) else { return };
        let label = None;
        self.value_ui(ui, path, data, inner, label);
    }

    /// An option: "none" with a button that sets it, or its value with a button that clears it.
    fn optional_ui(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        option: &Nullable<'_>,
        value: &mut Value,
        label: Label,
    ) {
        let what = path_text(path);
        if value.is_null() {
            ui.horizontal(|ui| {
                ui.label(RichText::new("none").weak());
                let button =
                    ui.small_button(format!("{} Set", icon::PLUS)).on_hover_text(format!("Give {what} a value"));
                let name = format!("Set {what}");
                button.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, name.as_str()));
                if button.clicked() {
                    *value = self.defaults().value_in(option);
                    self.note(path, "Set", false);
                }
            });
            return;
        }
        let (shape, _) = inner_of(self.root, option);
        let mut clear = false;
        if is_compound(self.root, &shape, value) {
            let button = ui.small_button(format!("{} Clear", icon::X)).on_hover_text(format!("Leave {what} unset"));
            let name = format!("Unset {what}");
            button.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, name.as_str()));
            if button.clicked() {
                clear = true;
            }
            self.shape_ui(ui, path, &shape, value, label);
        } else {
            ui.horizontal(|ui| {
                // The clear button first: the value may take the rest of the row.
                let button = ui.small_button(icon::X).on_hover_text(format!("Leave {what} unset"));
                let name = format!("Unset {what}");
                button.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, name.as_str()));
                if button.clicked() {
                    clear = true;
                }
                self.shape_ui(ui, path, &shape, value, label);
            });
        }
        if clear {
            *value = Value::Null;
            self.note(path, "Clear", false);
        }
    }

    /// A list: each element with up, down and remove; Add appends a new element that reads.
    fn list_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, items: &Value, value: &mut Value) {
        if !value.is_array() {
            *value = Value::Array(Vec::new());
        }
        let Value::Array(list) = value else { return };
        let (mut remove, mut swap) = (None, None);
        let count = list.len();
        let item_shape = shape_of(self.root, items);
        for (at, element) in list.iter_mut().enumerate() {
            path.push(at.to_string());
            let what = path_text(path);
            let mut controls = |ui: &mut egui::Ui| {
                ui.label(RichText::new(format!("{}", at + 1)).weak());
                if ui
                    .add_enabled(at > 0, egui::Button::new(icon::ARROW_UP).small())
                    .on_hover_text(format!("Move {what} up"))
                    .clicked()
                {
                    swap = Some(at - 1);
                }
                if ui
                    .add_enabled(at + 1 < count, egui::Button::new(icon::ARROW_DOWN).small())
                    .on_hover_text(format!("Move {what} down"))
                    .clicked()
                {
                    swap = Some(at);
                }
                if ui.add(egui::Button::new(icon::X).small()).on_hover_text(format!("Remove {what}")).clicked() {
                    remove = Some(at);
                }
            };
            if is_compound(self.root, &item_shape, element) {
                let id = ui.make_persistent_id(("inspector_element", &self.key.kind, &self.key.id, &*path));
                egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, true)
                    .show_header(ui, |ui| {
                        controls(ui);
                        ui.label(RichText::new(element_summary(element)).weak());
                    })
                    .body(|ui| {
                        let label = None;
                        self.shape_ui(ui, path, &item_shape, element, label);
                        self.problems_ui(ui, path);
                    });
            } else {
                ui.horizontal(|ui| {
                    controls(ui);
                    let label = None;
                    ui.vertical(|ui| {
                        self.shape_ui(ui, path, &item_shape, element, label);
                        self.problems_ui(ui, path);
                    });
                });
            }
            path.pop();
        }
        let what = path_text(path);
        let add = ui.button(format!("{} Add", icon::PLUS)).on_hover_text(format!("Add an element to {what}"));
        // Many lists have an Add button: assistive technology (and tests) read which.
        let name = format!("Add to {what}");
        add.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, name.as_str()));
        if add.clicked() {
            let mut element = self.defaults().value_of(items);
            give_fresh_id(self.root, items, path, list, &mut element);
            list.push(element);
            self.note(path, "Add to", false);
        }
        if let Some(at) = remove.filter(|at| *at < list.len()) {
            list.remove(at);
            self.note(path, "Remove from", false);
        }
        if let Some(at) = swap.filter(|at| at + 1 < list.len()) {
            list.swap(at, at + 1);
            self.note(path, "Reorder", false);
        }
    }

    /// Named values: each key with its value and a remove button; a new key is typed and added.
    fn map_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, values: &Value, value: &mut Value) {
        if !value.is_object() {
            *value = Value::Object(Map::new());
        }
        let Value::Object(map) = value else { return };
        let mut remove = None;
        let keys: Vec<String> = map.keys().cloned().collect();
        egui::Grid::new(("inspector_map", path.clone())).num_columns(3).spacing([8.0, 4.0]).show(ui, |ui| {
            for key in keys {
                let Some(entry) = map.get_mut(&key) else { continue };
                path.push(key.clone());
                let label = Some(ui.label(RichText::new(&key).monospace()).id);
                ui.vertical(|ui| {
                    self.value_ui(ui, path, values, entry, label);
                    self.problems_ui(ui, path);
                });
                if ui.small_button(icon::X).on_hover_text(format!("Remove {}", path_text(path))).clicked() {
                    remove = Some(key.clone());
                }
                path.pop();
                ui.end_row();
            }
        });
        let draft_key = path_text(path);
        let draft = self.state.new_keys.entry(draft_key.clone()).or_default();
        let mut add = None;
        ui.horizontal(|ui| {
            let label = ui.label("New name");
            let response =
                ui.add(egui::TextEdit::singleline(draft).desired_width(120.0).hint_text("name")).labelled_by(label.id);
            let enter = response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
            let taken = map.contains_key(draft.trim());
            let can = !draft.trim().is_empty() && !taken;
            let button = ui.add_enabled(can, egui::Button::new(format!("{} Add", icon::PLUS)));
            let button = button.on_hover_text(format!("Add a value named this to {draft_key}"));
            if taken {
                ui.colored_label(severity_colour(Severity::Error), "this name is taken");
            }
            if can && (button.clicked() || enter) {
                add = Some(draft.trim().to_owned());
            }
        });
        if let Some(name) = add {
            map.insert(name, self.defaults().value_of(values));
            self.state.new_keys.remove(&draft_key);
            self.note(path, "Add to", false);
        }
        if let Some(key) = remove {
            map.remove(&key);
            self.note(path, "Remove from", false);
        }
    }

    /// A value the form has no widget for: its JSON text, read back when it parses.
    fn json_ui(&mut self, ui: &mut egui::Ui, path: &[String], value: &mut Value, label: Label) {
        let key = path_text(path);
        let shown = self.state.json_drafts.get(&key).cloned().unwrap_or_else(|| value.to_string());
        let mut text = shown;
        let response = ui
            .add(egui::TextEdit::singleline(&mut text).font(egui::TextStyle::Monospace).desired_width(room(ui)))
            .named(label);
        if response.changed() {
            match serde_json::from_str::<Value>(&text) {
                Ok(parsed) => {
                    *value = parsed;
                    self.state.json_drafts.remove(&key);
                    self.note(path, "Edit", true);
                }
                Err(error) => {
                    self.state.json_drafts.insert(key.clone(), text);
                    ui.colored_label(severity_colour(Severity::Error), error.to_string());
                }
            }
        }
        if response.lost_focus() {
            self.gesture_ended = true;
        }
    }

    /// A colour: a picker and its `#rrggbbaa` text.
    fn colour_ui(&mut self, ui: &mut egui::Ui, path: &[String], value: &mut Value) {
        let text = value.as_str().unwrap_or("#00000000").to_owned();
        let colour = parse_colour(&text).unwrap_or(Color32::TRANSPARENT);
        ui.horizontal(|ui| {
            let mut rgba = colour;
            let response = ui.color_edit_button_srgba(&mut rgba).on_hover_text("Pick a colour");
            if rgba != colour {
                *value = Value::String(format!("#{:02x}{:02x}{:02x}{:02x}", rgba.r(), rgba.g(), rgba.b(), rgba.a()));
                self.note(path, "Edit", true);
            }
            if response.drag_stopped() || response.lost_focus() {
                self.gesture_ended = true;
            }
            ui.monospace(text);
        });
    }

    /// A local id (a node of this node map): a picker of the item's own ids.
    fn local_ui(&mut self, ui: &mut egui::Ui, path: &[String], collection: &str, value: &mut Value) {
        let current = value.as_str().unwrap_or_default().to_owned();
        let ids = local_ids(self.original, collection);
        let missing = !ids.contains(&current);
        let mut chosen = None;
        let shown = if current.is_empty() { "(choose)".to_owned() } else { current.clone() };
        let text =
            if missing { RichText::new(shown).color(severity_colour(Severity::Error)) } else { RichText::new(shown) };
        let picker = egui::ComboBox::from_id_salt(("inspector_local", path)).selected_text(text).show_ui(ui, |ui| {
            for id in &ids {
                if ui.selectable_label(*id == current, id.as_str()).clicked() {
                    chosen = Some(id.clone());
                }
            }
            if ids.is_empty() {
                ui.label(RichText::new(format!("No {collection} yet: add one above")).weak());
            }
        });
        let name = format!("Change {}", path_text(path));
        picker.response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::ComboBox, true, name.as_str()));
        if let Some(id) = chosen.filter(|id| *id != current) {
            *value = Value::String(id);
            self.note(path, "Edit", false);
        }
    }

    /// A reference: a chip naming the target (a click selects it) and a picker of every item
    /// of the kind, with "New KIND…" to create one and point here in the same undo step.
    fn reference_ui(&mut self, ui: &mut egui::Ui, path: &[String], kind: Kind, slug: &mut String) -> bool {
        let exists = self.project.contains(kind, slug);
        let entries = self.project.entries(kind);
        let label = entries.iter().find(|(id, _)| *id == slug.as_str()).map(|(_, label)| (*label).to_owned());
        let mut changed = false;
        ui.horizontal(|ui| {
            let colour = if exists { kind_text_colour(kind, ui.visuals()) } else { severity_colour(Severity::Error) };
            let shown = match &label {
                Some(label) if !label.is_empty() && label != slug => format!("{} {label} · {slug}", kind_icon(kind)),
                _ if slug.is_empty() => format!("{} (choose a {})", kind_icon(kind), kind.label().to_lowercase()),
                _ => format!("{} {slug}", kind_icon(kind)),
            };
            let chip = egui::Button::new(RichText::new(shown.as_str()).color(colour)).corner_radius(10.0).truncate();
            let hover = if exists {
                format!("Open the {} {}", kind.label().to_lowercase(), shown.trim_start_matches(kind_icon(kind)).trim())
            } else if slug.is_empty() {
                format!("No {} chosen: pick one, or make a new one", kind.label().to_lowercase())
            } else {
                format!("There is no {} `{slug}`", kind.label().to_lowercase())
            };
            // Truncated to leave room for the picker: in a nested list the panel can be
            // narrower than the two, and they would run past its edge.
            let spacing = ui.spacing();
            let change_width = spacing.icon_width * 2.0 + spacing.icon_spacing + spacing.button_padding.x * 2.0;
            let room = ui.available_width().min(ui.clip_rect().right() - ui.cursor().left());
            let chip_width = (room - change_width - spacing.item_spacing.x).max(spacing.icon_width * 2.0);
            let chip = ui.scope(|ui| {
                ui.set_max_width(chip_width);
                ui.add(chip)
            });
            if chip.inner.on_hover_text(hover).clicked() && exists {
                self.selected = Some(ItemKey::new(kind, slug.clone()));
            }
            let mut chosen = None;
            let mut create = false;
            let new_label = format!("{} New {}…", icon::PLUS, kind.label().to_lowercase());
            let menu = egui::ComboBox::from_id_salt(("inspector_ref", path))
                .selected_text(icon::PENCIL_SIMPLE)
                .width(0.0)
                .show_ui(ui, |ui| {
                    ui.add(egui::TextEdit::singleline(&mut self.state.picker_filter).hint_text("search"));
                    let filter = self.state.picker_filter.to_lowercase();
                    for (id, label) in entries
                        .iter()
                        .filter(|(id, label)| {
                            filter.is_empty() || id.contains(&filter) || label.to_lowercase().contains(&filter)
                        })
                        .take(200)
                    {
                        let text = if label.is_empty() {
                            format!("{} {id}", kind_icon(kind))
                        } else {
                            format!("{} {label} · {id}", kind_icon(kind))
                        };
                        if ui.selectable_label(*id == slug.as_str(), text).clicked() {
                            chosen = Some((*id).to_owned());
                        }
                    }
                    ui.separator();
                    if ui
                        .selectable_label(false, new_label.as_str())
                        .on_hover_text(format!(
                            "Make a new {} from a template and use it here",
                            kind.label().to_lowercase()
                        ))
                        .clicked()
                    {
                        create = true;
                    }
                });
            // The pencil alone is not a name: assistive technology (and tests) read which field.
            let name = format!("Change {}", path_text(path));
            menu.response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::ComboBox, true, name.as_str()));
            menu.response.on_hover_text(format!("Pick another {}, or make a new one", kind.label().to_lowercase()));
            if create {
                let id = crate::templates::fresh_id(self.project, kind);
                let item = crate::templates::new_item(self.project, kind, &id);
                self.created.push(item);
                slug.clone_from(&id);
                changed = true;
                self.changed = Some(Change {
                    path: path.to_vec(),
                    label: format!("New {} `{id}` for {}", kind.label().to_lowercase(), path_text(path)),
                    gesture: None,
                });
            } else if let Some(chosen) = chosen.filter(|chosen| chosen != slug) {
                *slug = chosen;
                changed = true;
                self.note(path, "Edit", false);
            }
        });
        changed
    }

    /// A formula: monospace text, its value when constant, its error under a caret; with a
    /// preview running, its values there on demand. Stacked, so what follows the field stays in
    /// view in a narrow inspector.
    fn formula_ui(&mut self, ui: &mut egui::Ui, path: &[String], value: &mut Value, label: Label) {
        ui.vertical(|ui| self.formula_field_ui(ui, path, value, label));
    }

    fn formula_field_ui(&mut self, ui: &mut egui::Ui, path: &[String], value: &mut Value, label: Label) {
        let mut text = match &*value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut text)
                    .font(egui::TextStyle::Monospace)
                    .desired_width(room(ui))
                    .id_salt(("inspector_formula", path)),
            )
            .named(label);
        if self.mark(path, &response, true) {
            // Integers are written as numbers (as Expr serialises them), anything else as text.
            *value = Expr::new(text.clone()).as_int().map_or_else(|| Value::String(text.clone()), Value::from);
        }
        let Some((_, set, names)) = self.state.formulas.as_mut() else { return };
        match set.compile(&text, &*names) {
            Ok(compiled) => match compiled.constant() {
                Some(constant) if constant.is_finite() => {
                    ui.label(RichText::new(format!("= {constant}")).weak());
                }
                _ => match self.live {
                    Some(session) => self.live_values_ui(ui, path, &text, session),
                    None => {
                        ui.label(RichText::new("depends on the game state").weak());
                    }
                },
            },
            Err(error) => {
                let start = text.get(..error.span.start.min(text.len())).map_or(0, |before| before.chars().count());
                let width = text
                    .get(error.span.start.min(text.len())..error.span.end.min(text.len()))
                    .map_or(1, |inside| inside.chars().count().max(1));
                let caret = format!("{}{}", " ".repeat(start), "^".repeat(width));
                let colour = severity_colour(Severity::Error);
                ui.label(RichText::new(format!("{text}\n{caret}")).monospace().color(colour));
                ui.label(RichText::new(&error.message).color(colour));
            }
        }
    }
}

impl Form<'_> {
    /// A "values" toggle; on, the formula traced over the preview's running game, each part's
    /// value on hover and what makes it false in red.
    fn live_values_ui(&mut self, ui: &mut egui::Ui, path: &[String], text: &str, session: &Session) {
        let key = path_text(path);
        let mut on = self.state.live_values.contains(&key);
        // The value now, without opening the trace: a designer tuning a formula watches it.
        if let Ok(now) = session.query(text) {
            ui.label(
                RichText::new(format!("= {} in the preview now", actforge_runtime::number::show_value(now, None)))
                    .weak(),
            );
        }
        let toggle = ui.toggle_value(&mut on, format!("{} values in the preview", icon::EYE)).on_hover_text(
            "Show this formula's parts with their values in the running preview (read over the whole game)",
        );
        if toggle.changed() {
            if on {
                self.state.live_values.insert(key);
            } else {
                self.state.live_values.remove(&key);
            }
        }
        if !on {
            return;
        }
        match session.trace_formula(text) {
            Ok(trace) => {
                crate::views::formula::trace_ui(ui, &trace);
            }
            Err(error) => {
                let first = error.lines().next().unwrap_or_default();
                ui.label(RichText::new(format!("The running preview cannot read it: {first}")).weak());
            }
        }
    }
}

/// A new list element with an `id` of its own (a node map's node, a palette entry) gets one
/// its list does not use yet (`node_2`), so it reads and checks at once.
fn give_fresh_id(root: &Value, items: &Value, path: &[String], list: &[Value], element: &mut Value) {
    let has_id = actforge_runtime::schema::resolve(root, items)
        .get("properties")
        .and_then(|properties| properties.get("id"))
        .is_some_and(|id| matches!(super::shape::shape_of(root, id), Shape::Text));
    let Some(object) = element.as_object_mut().filter(|_| has_id) else { return };
    let base = path.last().map_or("item", |name| name.strip_suffix('s').unwrap_or(name)).to_owned();
    let taken = |id: &str| list.iter().any(|other| other.get("id").and_then(Value::as_str) == Some(id));
    let id = (1..=list.len() + 1).map(|n| format!("{base}_{n}")).find(|id| !taken(id)).unwrap_or(base);
    object.insert("id".to_owned(), Value::String(id));
}

/// Whether a structure or list holds nothing (sections of empty values start folded).
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Array(list) => list.is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::Null => true,
        _ => false,
    }
}

/// A one-line summary of a list element for its header: its label or id, else its first
/// field in words (`Fragment: Aspect light`), else its size.
fn element_summary(element: &Value) -> String {
    let named = ["label", "id", "act", "rule", "stat"]
        .iter()
        .find_map(|name| element.get(*name).and_then(Value::as_str).filter(|text| !text.is_empty()));
    if let Some(name) = named {
        return name.to_owned();
    }
    match element {
        Value::Object(map) => map
            .iter()
            .next()
            .map_or_else(|| size_text(element), |(name, value)| format!("{}: {}", humanise(name), short_value(value))),
        _ => short_value(element),
    }
}

/// A value in a few words: a text or number as it is, an enum variant as its name and data.
fn short_value(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Number(number) => number.to_string(),
        Value::Bool(flag) => if *flag { "yes" } else { "no" }.to_owned(),
        Value::Null => "none".to_owned(),
        Value::Object(map) if map.len() == 1 => {
            map.iter().next().map_or_else(String::new, |(name, inner)| format!("{name} {}", short_value(inner)))
        }
        other => size_text(other),
    }
}

#[cfg(test)]
mod tests {
    use super::humanise;

    #[test]
    fn names_read_as_words() {
        assert_eq!(humanise("duration_ticks"), "Duration ticks");
        assert_eq!(humanise("MoreOrEqual"), "More or equal");
        assert_eq!(humanise("MatchedCards"), "Matched cards");
        assert_eq!(humanise("col2"), "Col2");
        assert_eq!(humanise("NWay"), "NWay");
    }
}
