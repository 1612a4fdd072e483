//! The inspector: a form for the selected item of any kind.
//!
//! The form is generic over the item's serde representation (JSON values): every field the
//! file holds gets a widget by its type, with field-specific widgets where the model says
//! more: formulas (the `Walk` finds them) are monospace with their parse error and value,
//! references are chips with a searchable picker, `#rrggbbaa` texts get a colour picker,
//! enumerations a drop-down, lists add/remove/reorder buttons. Fields still at their
//! default (not written to the file) are listed by name and can be set. The whole item can
//! also be edited as RON text. Each change becomes one [`Op`] that the app applies after the
//! frame; the document is never changed while drawing.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use actforge_runtime::formula::{FormulaSet, ProjectNames};
use actforge_runtime::model::{Expr, FieldPath, PathSegment, Visitor};
use actforge_runtime::{Kind, Project};
use egui::{Color32, RichText};
use egui_phosphor::regular as icon;
use serde_json::Value;

use crate::document::{ItemKey, Op, SharedItem, item_from_json, item_from_ron, where_used};
use crate::requests::{Request, Requests};
use crate::style::{kind_icon, kind_text_colour};
use crate::workspace::Workspace;

/// What the inspector asks the app to do after the frame.
#[derive(Clone, Debug)]
pub enum InspectorAction {
    /// Apply an edit; edits with the same gesture merge into one undo step.
    Edit {
        /// The change.
        op: Op,
        /// Undo step name.
        label: String,
        /// The widget being edited (a text field being typed into, a value being dragged).
        gesture: Option<u64>,
    },
    /// The gesture ended (focus left the field, the drag stopped).
    EndGesture,
    /// Select another item.
    Select(ItemKey),
    /// Rename the item, rewriting its references.
    Rename {
        /// The item.
        key: ItemKey,
        /// The new id.
        to: String,
    },
}

/// What a path of the item is, as far as the model's walk knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FieldMeta {
    Formula,
    Reference(Kind),
}

/// Inspector state kept between frames (text being typed that is not yet an edit).
#[derive(Default)]
pub struct InspectorState {
    /// The id being typed in the rename field, for this item.
    rename: Option<(ItemKey, String)>,
    /// The RON text being edited, for this item, with its last parse error.
    ron: Option<(ItemKey, String, Option<String>)>,
    /// Picker search text.
    picker_filter: String,
    /// Enumeration variants by (kind, path) (probed once from serde's error message).
    variants: BTreeMap<(Kind, String), Option<Vec<String>>>,
    /// Why the last field could not be set from the form.
    absent_note: Option<String>,
    /// Named formulas and names of the project, rebuilt when the revision changes.
    formulas: Option<(u64, FormulaSet, ProjectNames)>,
    /// A field to bring into view and mark (a diagnostic was clicked): the item, the field's
    /// path (`next_acts[2].act`) and whether it has been scrolled to.
    jump: Option<(ItemKey, String, bool)>,
    /// Fields left at their default inside nested structures, by path (`effects`,
    /// `next_acts/0`), for this item at this revision.
    nested_absent: Option<(ItemKey, u64, BTreeMap<String, Vec<String>>)>,
}

impl InspectorState {
    /// Brings `field` of `key` into view and marks it, next time the item's form is drawn.
    pub fn jump_to(&mut self, key: ItemKey, field: String) {
        self.jump = Some((key, field, false));
    }

    /// The field marked by the last jump, once the form has shown it.
    pub fn jumped_to(&self) -> Option<&str> {
        self.jump.as_ref().filter(|(_, _, shown)| *shown).map(|(_, field, _)| field.as_str())
    }
}

/// Everything the inspector reads while drawing.
pub struct InspectorInput<'a> {
    /// The project (read-only).
    pub project: &'a Project,
    /// The document revision (caches compare it).
    pub revision: u64,
    /// The selected item.
    pub key: &'a ItemKey,
    /// Whether it has unsaved changes.
    pub dirty: bool,
    /// Its diagnostics, as (field path, message).
    pub problems: Vec<(String, String)>,
}

/// Draws the inspector for `input.key`, pushing what should change into `actions`.
pub fn inspector_ui(
    ui: &mut egui::Ui,
    input: &InspectorInput<'_>,
    state: &mut InspectorState,
    actions: &mut Vec<InspectorAction>,
) {
    let key = input.key;
    let Some(item) = crate::document::get_item(input.project, key.kind, &key.id) else {
        ui.label(format!("There is no {key} any more."));
        return;
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new(kind_icon(key.kind)).size(22.0).color(kind_text_colour(key.kind, ui.visuals())));
        let dirty = if input.dirty { " ●" } else { "" };
        let name = if item.item_label().is_empty() { key.id.as_str() } else { item.item_label() };
        ui.heading(format!("{} · {}{dirty}", key.kind.label(), name.replace('\n', " ")));
    });
    if input.revision != state.formulas.as_ref().map_or(u64::MAX, |(revision, ..)| *revision) {
        let names = ProjectNames::new(input.project);
        let named: Vec<(String, String)> = input
            .project
            .formulas
            .iter()
            .map(|formula| (formula.id.as_str().to_owned(), formula.expr.text().to_owned()))
            .collect();
        let (set, _) = FormulaSet::build(&named, &names);
        state.formulas = Some((input.revision, set, names));
    }
    rename_ui(ui, key, state, actions);
    for (path, message) in &input.problems {
        let at = if path.is_empty() { String::new() } else { format!("{path}: ") };
        ui.colored_label(crate::style::severity_colour(actforge_runtime::Severity::Error), format!("{at}{message}"));
    }
    ui.separator();
    let json = match item.to_json() {
        Ok(json) => json,
        Err(error) => {
            ui.label(format!("This item cannot be shown as a form: {error}"));
            return;
        }
    };
    let mut meta = MetaCollector::default();
    item.walk_dyn(&mut meta);
    let fresh = state.nested_absent.as_ref().is_some_and(|(k, revision, _)| k == key && *revision == input.revision);
    if !fresh {
        state.nested_absent = Some((key.clone(), input.revision, nested_absent_fields(key.kind, &json)));
    }
    let nested_absent = state.nested_absent.as_ref().map(|(_, _, found)| found.clone()).unwrap_or_default();
    let mut form = Form {
        project: input.project,
        key,
        meta: &meta.found,
        state,
        changed: None,
        gesture_ended: false,
        selected: None,
        nested_absent: &nested_absent,
        add_field: None,
        manifest_json: None,
    };
    let mut edited = json.clone();
    egui::ScrollArea::vertical().id_salt("inspector_scroll").auto_shrink([false, false]).show(ui, |ui| {
        form.object_ui(ui, &mut Vec::new(), &mut edited, true);
        absent_fields_ui(ui, &mut form, &item, &mut edited);
        if let Some((path, name)) = form.add_field.take() {
            add_nested_field(&mut form, &mut edited, &path, &name);
        }
        ui.add_space(8.0);
        where_used_ui(ui, input.project, key, actions);
        ui.add_space(8.0);
        ron_ui(ui, &item, key, &mut *form.state, actions);
    });
    if let Some(target) = form.selected.take() {
        actions.push(InspectorAction::Select(target));
    }
    if form.gesture_ended {
        actions.push(InspectorAction::EndGesture);
    }
    if let Some((label, gesture)) = form.changed
        && edited != json
    {
        // Ids stay as they are here: a new id is a rename, which rewrites references.
        if let Some(object) = edited.as_object_mut() {
            object.insert("id".to_owned(), Value::String(key.id.clone()));
        }
        if let Ok(new_item) = item_from_json(key.kind, edited) {
            actions.push(InspectorAction::Edit { op: Op::put(new_item), label, gesture });
        }
    }
}

/// The id field: typing keeps a draft; Enter or the button renames with every reference.
fn rename_ui(ui: &mut egui::Ui, key: &ItemKey, state: &mut InspectorState, actions: &mut Vec<InspectorAction>) {
    if state.rename.as_ref().is_none_or(|(for_key, _)| for_key != key) {
        state.rename = Some((key.clone(), key.id.clone()));
    }
    let Some((_, draft)) = state.rename.as_mut() else { return };
    ui.horizontal(|ui| {
        let label = ui.label("Id");
        let response = ui.add(egui::TextEdit::singleline(draft).desired_width(200.0).font(egui::TextStyle::Monospace));
        let response = response.labelled_by(label.id).on_hover_text("The item's id; renaming rewrites every reference");
        let problem = actforge_runtime::model::slug_problem(draft);
        let enter = response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
        let clicked = ui
            .add_enabled(*draft != key.id && problem.is_none(), egui::Button::new("Rename"))
            .on_hover_text("Give the item this id and rewrite every reference to it")
            .clicked();
        if (enter || clicked) && *draft != key.id && problem.is_none() {
            actions.push(InspectorAction::Rename { key: key.clone(), to: draft.clone() });
        }
        if let Some(problem) = problem.filter(|_| *draft != key.id) {
            ui.colored_label(crate::style::severity_colour(actforge_runtime::Severity::Error), problem);
        }
    });
}

/// Collects what the walk knows about each path.
#[derive(Default)]
struct MetaCollector {
    found: BTreeMap<String, FieldMeta>,
}

impl Visitor for MetaCollector {
    fn reference(&mut self, path: &FieldPath, target: Kind, _slug: &str) {
        self.found.insert(path_key(path), FieldMeta::Reference(target));
    }
    fn expr(&mut self, path: &FieldPath, _expr: &Expr) {
        self.found.insert(path_key(path), FieldMeta::Formula);
    }
}

/// A path as `a/0/b` (struct fields and map keys alike, as JSON sees them).
fn path_key(path: &FieldPath) -> String {
    let parts: Vec<String> = path
        .0
        .iter()
        .map(|segment| match segment {
            PathSegment::Field(name) => (*name).to_owned(),
            PathSegment::Index(at) => at.to_string(),
            PathSegment::Key(key) => key.clone(),
        })
        .collect();
    parts.join("/")
}

/// A path for people (`next_acts[2].act`).
fn path_text(path: &[String]) -> String {
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

/// The form being drawn for one item.
struct Form<'a> {
    project: &'a Project,
    key: &'a ItemKey,
    meta: &'a BTreeMap<String, FieldMeta>,
    state: &'a mut InspectorState,
    /// The undo label and gesture of the change made this frame.
    changed: Option<(String, Option<u64>)>,
    gesture_ended: bool,
    /// A reference chip clicked: select its target.
    selected: Option<ItemKey>,
    /// Fields at their default inside nested structures, by path.
    nested_absent: &'a BTreeMap<String, Vec<String>>,
    /// A nested field asked for: the structure's path and the field's name.
    add_field: Option<(Vec<String>, String)>,
    /// The manifest's form value, when the form edits `project.ron` (not an item).
    manifest_json: Option<Value>,
}

/// A summary for the fields too large to edit as a form, which a tab of their own edits
/// (a tile map's columns: thousands of tiles); None for every other field.
fn edited_in_a_tab(kind: Kind, name: &str, value: &Value) -> Option<String> {
    if kind != Kind::TileMap || name != "columns" {
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
    fn gesture(&self, path: &[String]) -> u64 {
        egui::Id::new(("inspector", &self.key.kind, &self.key.id, path)).value()
    }

    fn mark(&mut self, path: &[String], response: &egui::Response, continuous: bool) {
        if response.changed() {
            let gesture = continuous.then(|| self.gesture(path));
            self.changed = Some((format!("Edit {}", path_text(path)), gesture));
        }
        if response.lost_focus() || response.drag_stopped() {
            self.gesture_ended = true;
        }
    }

    fn object_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, value: &mut Value, top: bool) {
        let Some(object) = value.as_object_mut() else { return };
        // Simple fields sit in label | value grids; a structure or a list takes the panel's
        // whole width below its own header, so nesting indents a little instead of starting
        // each level in the column right of the last.
        let label_width = object
            .keys()
            .map(|name| {
                egui::WidgetText::from(RichText::new(humanise(name)).strong())
                    .into_galley(ui, Some(egui::TextWrapMode::Extend), f32::INFINITY, egui::TextStyle::Body)
                    .size()
                    .x
            })
            .fold(0.0, f32::max);
        let mut run = Vec::new();
        let names: Vec<String> = object.keys().filter(|name| !(top && *name == "id")).cloned().collect();
        for (at, name) in names.iter().enumerate() {
            let Some(field) = object.get_mut(name) else { continue };
            path.push(name.clone());
            // A field edited in a tab of its own shows as a one-line summary.
            let compound =
                self.is_compound(path, field) && !(top && edited_in_a_tab(self.key.kind, name, field).is_some());
            path.pop();
            if !compound {
                run.push(name.clone());
            }
            let run_ends = compound || at + 1 == names.len();
            if run_ends && !run.is_empty() {
                self.fields_grid(ui, path, object, &std::mem::take(&mut run), top, label_width);
            }
            if compound && let Some(field) = object.get_mut(name) {
                self.section_ui(ui, path, name, field);
            }
        }
        let absent = if top { None } else { self.nested_absent.get(&path.join("/")) };
        if let Some(absent) = absent.filter(|absent| !absent.is_empty()) {
            let name = format!("Set a field of {}", path_text(path));
            let menu = ui.menu_button(format!("{}  Set a field", egui_phosphor::regular::PLUS), |ui| {
                ui.label(RichText::new("Fields at their default (not written to the file)").weak());
                for name in absent {
                    if ui.button(humanise(name)).on_hover_text(format!("Set the field `{name}`")).clicked() {
                        self.add_field = Some((path.clone(), name.clone()));
                        ui.close();
                    }
                }
            });
            // Short on screen; the structure's path is in the tooltip and the accessible name.
            let response = menu.response.on_hover_text(name.as_str());
            response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, name.as_str()));
        }
    }

    /// Whether the value at `path` is a structure or a list (edited in a section of its own)
    /// rather than a single value (edited on the label's row).
    fn is_compound(&self, path: &[String], value: &Value) -> bool {
        let edited_as_one =
            matches!(self.meta.get(&path.join("/")), Some(FieldMeta::Reference(_) | FieldMeta::Formula));
        !edited_as_one && matches!(value, Value::Array(_) | Value::Object(_))
    }

    /// The simple fields `names` of `object` as label | value rows.
    fn fields_grid(
        &mut self,
        ui: &mut egui::Ui,
        path: &mut Vec<String>,
        object: &mut serde_json::Map<String, Value>,
        names: &[String],
        top: bool,
        label_width: f32,
    ) {
        let first = names.first().map_or("", String::as_str);
        egui::Grid::new(("inspector_grid", path.clone(), first))
            .num_columns(2)
            .striped(top)
            .spacing([12.0, 6.0])
            .min_col_width(label_width)
            .show(ui, |ui| {
                for name in names {
                    let Some(field) = object.get_mut(name) else { continue };
                    if top && let Some(summary) = edited_in_a_tab(self.key.kind, name, field) {
                        ui.label(RichText::new(humanise(name)).strong());
                        // Wrapped: a grid's cells do not wrap text, and a long summary would
                        // widen the grid past the panel's edge.
                        ui.add(egui::Label::new(RichText::new(summary).weak()).wrap());
                        ui.end_row();
                        continue;
                    }
                    path.push(name.clone());
                    let label = ui.label(RichText::new(humanise(name)).strong()).on_hover_text(path_text(path));
                    self.mark_jump(ui, path, &label);
                    ui.vertical(|ui| self.value_ui(ui, path, field, label.id));
                    ui.end_row();
                    path.pop();
                }
            });
    }

    /// A structure or list field: its name and size as a header that folds, its contents
    /// indented below.
    fn section_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, name: &str, field: &mut Value) {
        path.push(name.to_owned());
        let id = ui.make_persistent_id(("inspector_section", &*path));
        egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, opens_by_default(field))
            .show_header(ui, |ui| {
                let label = ui.label(RichText::new(humanise(name)).strong()).on_hover_text(path_text(path));
                self.mark_jump(ui, path, &label);
                ui.label(RichText::new(size_text(field)).weak());
            })
            .body(|ui| self.compound_ui(ui, path, field));
        path.pop();
    }

    /// The contents of a structure or a list.
    fn compound_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, value: &mut Value) {
        match value {
            Value::Array(list) => self.list_ui(ui, path, list),
            _ => self.object_ui(ui, path, value, false),
        }
    }

    /// Marks the row of the field a diagnostic pointed at, and scrolls to it once.
    fn mark_jump(&mut self, ui: &egui::Ui, path: &[String], label: &egui::Response) {
        let Some((key, field, shown)) = self.state.jump.as_mut() else { return };
        if key != self.key || *field != path_text(path) {
            return;
        }
        let colour = crate::style::severity_colour(actforge_runtime::Severity::Error);
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

    fn value_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, value: &mut Value, label: egui::Id) {
        let meta = self.meta.get(&path.join("/")).copied();
        match (meta, &mut *value) {
            (Some(FieldMeta::Reference(kind)), Value::String(slug)) => self.reference_ui(ui, path, kind, slug),
            // A reference inside an enumeration variant, e.g. `Aspect("light")`.
            (Some(FieldMeta::Reference(kind)), Value::Object(variant)) if variant.len() == 1 => {
                if let Some((_, Value::String(slug))) = variant.iter_mut().next() {
                    self.reference_ui(ui, path, kind, slug);
                }
            }
            (Some(FieldMeta::Formula), _) => self.formula_ui(ui, path, value, label),
            (_, Value::Bool(flag)) => {
                let response = ui.checkbox(flag, "").labelled_by(label);
                self.mark(path, &response, false);
            }
            (_, Value::Number(number)) => {
                let response = if let Some(mut int) = number.as_i64() {
                    let response = ui.add(egui::DragValue::new(&mut int)).labelled_by(label);
                    *number = int.into();
                    response
                } else {
                    let mut float = number.as_f64().unwrap_or_default();
                    let response = ui.add(egui::DragValue::new(&mut float).speed(0.01)).labelled_by(label);
                    if let Some(new) = serde_json::Number::from_f64(float) {
                        *number = new;
                    }
                    response
                };
                self.mark(path, &response, true);
            }
            (_, Value::String(text)) => self.string_ui(ui, path, text, label),
            (_, Value::Array(list)) => self.list_ui(ui, path, list),
            (_, Value::Object(_)) => self.object_ui(ui, path, value, false),
            (_, Value::Null) => {
                ui.label(RichText::new("none").weak());
            }
        }
    }

    fn string_ui(&mut self, ui: &mut egui::Ui, path: &[String], text: &mut String, label: egui::Id) {
        if let Some(colour) = parse_colour(text) {
            ui.horizontal(|ui| {
                let mut rgba = colour;
                let response = ui.color_edit_button_srgba(&mut rgba).on_hover_text("Pick a colour");
                if rgba != colour {
                    *text = format!("#{:02x}{:02x}{:02x}{:02x}", rgba.r(), rgba.g(), rgba.b(), rgba.a());
                }
                self.mark(path, &response, true);
                ui.monospace(text.as_str());
            });
            return;
        }
        if let Some(variants) = self.variants(path) {
            let mut chosen = text.clone();
            egui::ComboBox::from_id_salt(("inspector_enum", path)).selected_text(humanise(text)).show_ui(ui, |ui| {
                for variant in &variants {
                    ui.selectable_value(&mut chosen, variant.clone(), humanise(variant));
                }
            });
            if chosen != *text {
                *text = chosen;
                self.changed = Some((format!("Edit {}", path_text(path)), None));
            }
            return;
        }
        let multiline = text.contains('\n') || text.len() > 60;
        // Ids from the path: a message appearing above must not move focus to another field.
        let edit = if multiline {
            egui::TextEdit::multiline(text).desired_rows(3).desired_width(f32::INFINITY)
        } else {
            egui::TextEdit::singleline(text).desired_width(f32::INFINITY)
        }
        .id_salt(("inspector_text", path));
        let response = ui.add(edit).labelled_by(label);
        self.mark(path, &response, true);
    }

    /// The variants of an enumeration at `path`, found by asking serde about an unknown one.
    fn variants(&mut self, path: &[String]) -> Option<Vec<String>> {
        let cache_key = (
            self.key.kind,
            path.iter().filter(|part| part.parse::<usize>().is_err()).cloned().collect::<Vec<_>>().join("/"),
        );
        if let Some(found) = self.state.variants.get(&cache_key) {
            return found.clone();
        }
        let found = crate::document::get_item(self.project, self.key.kind, &self.key.id)
            .and_then(|item| item.to_json().ok())
            .and_then(|mut json| {
                let slot = value_at_mut(&mut json, path)?;
                *slot = Value::String("\u{1}probe".to_owned());
                let error = item_from_json(self.key.kind, json).err()?;
                expected_variants(&error)
            });
        self.state.variants.insert(cache_key, found.clone());
        found
    }

    fn reference_ui(&mut self, ui: &mut egui::Ui, path: &[String], kind: Kind, slug: &mut String) {
        let exists = self.project.contains(kind, slug);
        let label = self
            .project
            .entries(kind)
            .into_iter()
            .find(|(id, _)| *id == slug.as_str())
            .map(|(_, label)| label.to_owned());
        // The manifest's optional references (`entry.tile_map`) are empty while unset.
        let optional = self.manifest_json.is_some() && path.last().is_some_and(|part| part.parse::<usize>().is_err());
        ui.horizontal(|ui| {
            let colour = if exists {
                kind_text_colour(kind, ui.visuals())
            } else if optional && slug.is_empty() {
                ui.visuals().weak_text_color()
            } else {
                crate::style::severity_colour(actforge_runtime::Severity::Error)
            };
            let shown = match &label {
                _ if optional && slug.is_empty() => "none".to_owned(),
                Some(label) if !label.is_empty() && label != slug => format!("{} {label} · {slug}", kind_icon(kind)),
                _ => format!("{} {slug}", kind_icon(kind)),
            };
            let chip = egui::Button::new(RichText::new(shown.as_str()).color(colour)).corner_radius(10.0).truncate();
            let hover = if exists {
                format!("Open the {} {}", kind.label().to_lowercase(), shown.trim_start_matches(kind_icon(kind)).trim())
            } else if optional && slug.is_empty() {
                format!("No {} is set: pick one with the pencil", kind.label().to_lowercase())
            } else {
                format!("There is no {} `{slug}`", kind.label().to_lowercase())
            };
            // Truncated to leave room for the change menu: in a nested list the panel can be
            // narrower than the two, and they would run past its edge.
            let spacing = ui.spacing();
            // The menu's button shows a pencil and its arrow, both about an icon wide.
            let change_width = spacing.icon_width * 2.0 + spacing.icon_spacing + spacing.button_padding.x * 2.0;
            // A grid cell's available width is not bounded by the panel; its clip rect is.
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
            let menu = egui::ComboBox::from_id_salt(("inspector_ref", path))
                .selected_text(icon::PENCIL_SIMPLE)
                .width(0.0)
                .show_ui(ui, |ui| {
                    ui.add(egui::TextEdit::singleline(&mut self.state.picker_filter).hint_text("search"));
                    if optional && ui.selectable_label(slug.is_empty(), "None").clicked() {
                        chosen = Some(String::new());
                    }
                    let filter = self.state.picker_filter.to_lowercase();
                    for (id, label) in self
                        .project
                        .entries(kind)
                        .into_iter()
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
                        if ui.selectable_label(id == slug.as_str(), text).clicked() {
                            chosen = Some(id.to_owned());
                        }
                    }
                });
            let response = menu.response.on_hover_text(format!("Pick another {}", kind.label().to_lowercase()));
            // The pencil alone is not a name: assistive technology (and tests) hear the field.
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::WidgetType::ComboBox, true, format!("Change {}", path_text(path)))
            });
            if let Some(chosen) = chosen
                && chosen != *slug
            {
                *slug = chosen;
                self.changed = Some((format!("Edit {}", path_text(path)), None));
            }
        });
    }

    fn formula_ui(&mut self, ui: &mut egui::Ui, path: &[String], value: &mut Value, label: egui::Id) {
        let mut text = match &*value {
            Value::String(text) => text.clone(),
            Value::Number(number) => number.to_string(),
            other => other.to_string(),
        };
        let response = ui
            .add(
                egui::TextEdit::singleline(&mut text)
                    .font(egui::TextStyle::Monospace)
                    .desired_width(f32::INFINITY)
                    .id_salt(("inspector_formula", path)),
            )
            .labelled_by(label);
        if response.changed() {
            // Integers are written as numbers (as Expr serialises them), anything else as text.
            *value = Expr::new(text.clone()).as_int().map_or_else(|| Value::String(text.clone()), Value::from);
        }
        self.mark(path, &response, true);
        let Some((_, set, names)) = self.state.formulas.as_mut() else { return };
        match set.compile(&text, &*names) {
            Ok(compiled) => match compiled.constant() {
                Some(constant) if constant.is_finite() => {
                    ui.label(RichText::new(format!("= {constant}")).weak());
                }
                _ => {
                    ui.label(RichText::new("depends on the game state").weak());
                }
            },
            Err(error) => {
                let start = text.get(..error.span.start.min(text.len())).map_or(0, |before| before.chars().count());
                let width = text
                    .get(error.span.start.min(text.len())..error.span.end.min(text.len()))
                    .map_or(1, |inside| inside.chars().count().max(1));
                let caret = format!("{}{}", " ".repeat(start), "^".repeat(width));
                let colour = crate::style::severity_colour(actforge_runtime::Severity::Error);
                ui.label(RichText::new(format!("{text}\n{caret}")).monospace().color(colour));
                ui.label(RichText::new(&error.message).color(colour));
            }
        }
    }

    fn list_ui(&mut self, ui: &mut egui::Ui, path: &mut Vec<String>, list: &mut Vec<Value>) {
        let mut remove = None;
        let mut swap = None;
        let count = list.len();
        for (at, element) in list.iter_mut().enumerate() {
            path.push(at.to_string());
            let what = path_text(path);
            let mut controls = |ui: &mut egui::Ui| {
                ui.label(RichText::new(format!("{}", at + 1)).weak());
                if ui
                    .add_enabled(at > 0, egui::Button::new(egui_phosphor::regular::ARROW_UP).small())
                    .on_hover_text(format!("Move {what} up"))
                    .clicked()
                {
                    swap = Some(at - 1);
                }
                if ui
                    .add_enabled(at + 1 < count, egui::Button::new(egui_phosphor::regular::ARROW_DOWN).small())
                    .on_hover_text(format!("Move {what} down"))
                    .clicked()
                {
                    swap = Some(at);
                }
                if ui
                    .add(egui::Button::new(egui_phosphor::regular::X).small())
                    .on_hover_text(format!("Remove {what}"))
                    .clicked()
                {
                    remove = Some(at);
                }
            };
            if self.is_compound(path, element) {
                // The element's own fields fold below its controls, using the whole width.
                let id = ui.make_persistent_id(("inspector_element", &*path));
                egui::collapsing_header::CollapsingState::load_with_default_open(
                    ui.ctx(),
                    id,
                    opens_by_default(element),
                )
                .show_header(ui, |ui| {
                    controls(ui);
                    ui.label(RichText::new(size_text(element)).weak());
                })
                .body(|ui| self.compound_ui(ui, path, element));
            } else {
                ui.horizontal(|ui| {
                    controls(ui);
                    let label = ui.label("").id;
                    ui.vertical(|ui| self.value_ui(ui, path, element, label));
                });
            }
            path.pop();
        }
        let what = path_text(path);
        if ui
            .button(format!("{} Add", egui_phosphor::regular::PLUS))
            .on_hover_text(format!("Add an element to {what}"))
            .clicked()
        {
            let element = list.last().cloned().or_else(|| self.probe_element(path));
            if let Some(element) = element {
                list.push(element);
                self.changed = Some((format!("Add to {what}"), None));
            }
        }
        if let Some(at) = remove
            && at < list.len()
        {
            list.remove(at);
            self.changed = Some((format!("Remove from {what}"), None));
        }
        if let Some(at) = swap
            && at + 1 < list.len()
        {
            list.swap(at, at + 1);
            self.changed = Some((format!("Reorder {what}"), None));
        }
    }

    /// A first element for an empty list: the simplest value the item accepts there.
    fn probe_element(&self, path: &[String]) -> Option<Value> {
        let first = format!("{}/0", path.join("/"));
        if let (Some(_), Some(FieldMeta::Reference(kind))) = (&self.manifest_json, self.meta.get(&first)) {
            // A start list of the manifest begins with the project's first item of its kind.
            let id = self.project.entries(*kind).into_iter().next().map(|(id, _)| id.to_owned());
            return Some(Value::String(id.unwrap_or_default()));
        }
        let json = match &self.manifest_json {
            Some(json) => json.clone(),
            None => crate::document::get_item(self.project, self.key.kind, &self.key.id)?.to_json().ok()?,
        };
        CANDIDATES.iter().find_map(|candidate| {
            let mut probe = json.clone();
            let slot = value_at_mut(&mut probe, path)?;
            *slot = Value::Array(vec![candidate()]);
            let accepted = match &self.manifest_json {
                Some(_) => manifest_from_form(probe, 0).is_ok(),
                None => item_from_json(self.key.kind, probe).is_ok(),
            };
            accepted.then(candidate)
        })
    }
}

/// The value at `path` (field names and list indices) inside `value`.
fn value_at_mut<'v>(value: &'v mut Value, path: &[String]) -> Option<&'v mut Value> {
    path.iter().try_fold(value, |value, part| match value {
        Value::Object(map) => map.get_mut(part),
        Value::Array(list) => part.parse::<usize>().ok().and_then(|at| list.get_mut(at)),
        _ => None,
    })
}

/// Values tried, simplest first, where the type of a field or element is not known.
const CANDIDATES: &[fn() -> Value] = &[
    || Value::Object(serde_json::Map::new()),
    || Value::String(String::new()),
    || Value::from(0),
    || Value::Bool(false),
    || Value::Null,
];

/// How big a structure or list is, as its header shows it: "3 fields", "1 item", "empty".
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

/// Whether a structure or list shows its contents until folded: long lists start folded so
/// the fields after them stay in reach.
fn opens_by_default(value: &Value) -> bool {
    value.as_array().is_none_or(|list| list.len() <= LONG_LIST)
}

/// How many elements make a list long enough to start folded.
const LONG_LIST: usize = 8;

/// `snake_case` as "Snake case".
fn humanise(name: &str) -> String {
    let spaced = name.replace('_', " ");
    let mut chars = spaced.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
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

/// The variants serde lists in "unknown variant `x`, expected one of `A`, `B`".
fn expected_variants(error: &str) -> Option<Vec<String>> {
    if !error.contains("unknown variant") {
        return None;
    }
    let (_, list) = error.split_once("expected ")?;
    let variants: Vec<String> = list.split('`').skip(1).step_by(2).map(str::to_owned).collect();
    (!variants.is_empty()).then_some(variants)
}

/// The fields serde lists in "unknown field `x`, expected one of `a`, `b`" (or "expected `a`").
fn expected_fields(error: &str) -> Option<Vec<String>> {
    let (_, list) = error.split_once("unknown field")?.1.split_once("expected ")?;
    let fields: Vec<String> = list.split('`').skip(1).step_by(2).map(str::to_owned).collect();
    (!fields.is_empty()).then_some(fields)
}

/// For every structure nested in the item's JSON form (not the item itself), the fields it
/// leaves at their default: found by asking serde about a field no structure has.
fn nested_absent_fields(kind: Kind, json: &Value) -> BTreeMap<String, Vec<String>> {
    const PROBE: &str = "__actforge_probe";
    fn visit(
        kind: Kind,
        root: &Value,
        value: &Value,
        path: &mut Vec<String>,
        found: &mut BTreeMap<String, Vec<String>>,
    ) {
        match value {
            Value::Object(map) => {
                if !path.is_empty() {
                    let mut probe = root.clone();
                    if let Some(Value::Object(object)) = value_at_mut(&mut probe, path) {
                        object.insert(PROBE.to_owned(), Value::Null);
                        if let Err(error) = item_from_json(kind, probe)
                            && let Some(fields) = expected_fields(&error)
                        {
                            let absent: Vec<String> =
                                fields.into_iter().filter(|name| !map.contains_key(name)).collect();
                            found.insert(path.join("/"), absent);
                        }
                    }
                }
                for (name, field) in map {
                    path.push(name.clone());
                    visit(kind, root, field, path, found);
                    path.pop();
                }
            }
            Value::Array(list) => {
                for (at, element) in list.iter().enumerate() {
                    path.push(at.to_string());
                    visit(kind, root, element, path, found);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut found = BTreeMap::new();
    visit(kind, json, json, &mut Vec::new(), &mut found);
    found
}

/// Sets `name` inside the structure at `path` to the first value the item accepts and writes
/// (a default would not be written): a number, a flag, a text, then a list of one simplest
/// element.
fn add_nested_field(form: &mut Form<'_>, edited: &mut Value, path: &[String], name: &str) {
    let mut candidates: Vec<Value> =
        vec![Value::from(1), Value::Bool(true), Value::String("new".to_owned()), Value::Object(serde_json::Map::new())];
    candidates.extend(CANDIDATES.iter().map(|element| Value::Array(vec![element()])));
    let accepted = candidates.into_iter().find_map(|candidate| {
        let mut probe = edited.clone();
        value_at_mut(&mut probe, path)?.as_object_mut()?.insert(name.to_owned(), candidate);
        let mut written = item_from_json(form.key.kind, probe.clone()).ok()?.to_json().ok()?;
        value_at_mut(&mut written, path)?.as_object()?.contains_key(name).then_some(probe)
    });
    let mut full = path.to_vec();
    full.push(name.to_owned());
    match accepted {
        Some(probe) => {
            *edited = probe;
            form.changed = Some((format!("Set {}", path_text(&full)), None));
        }
        None => form.state.absent_note = Some(format!("`{}`: add it in the RON text below.", path_text(&full))),
    }
}

/// The fields the file leaves out because they hold their default: set one to edit it.
fn absent_fields_ui(ui: &mut egui::Ui, form: &mut Form<'_>, item: &SharedItem, edited: &mut Value) {
    let Some(object) = edited.as_object() else { return };
    let absent: Vec<&'static str> =
        item.field_names().iter().copied().filter(|name| !object.contains_key(*name)).collect();
    if absent.is_empty() {
        return;
    }
    ui.add_space(6.0);
    let mut added = None;
    egui::CollapsingHeader::new(format!("Fields at their default ({})", absent.len()))
        .id_salt("inspector_absent")
        .show(ui, |ui| {
            ui.label(RichText::new("These are not written to the file. Set one to give it a value.").weak());
            ui.horizontal_wrapped(|ui| {
                for name in absent {
                    if ui.button(humanise(name)).on_hover_text(format!("Set the field `{name}`")).clicked() {
                        added = Some(name);
                    }
                }
            });
        });
    let Some(name) = added else { return };
    // The first value the item accepts that is not the default (which would not be written).
    let candidates: [fn() -> Value; 4] =
        [|| Value::from(1), || Value::Bool(true), || Value::String("new".to_owned()), || Value::Array(Vec::new())];
    let accepted = candidates.iter().find_map(|candidate| {
        let mut probe = edited.clone();
        probe.as_object_mut()?.insert(name.to_owned(), candidate());
        let parsed = item_from_json(form.key.kind, probe.clone()).ok()?;
        let json = parsed.to_json().ok()?;
        json.as_object()?.contains_key(name).then_some(probe)
    });
    match accepted {
        Some(probe) => {
            *edited = probe;
            form.changed = Some((format!("Set {name}"), None));
        }
        None => {
            form.state.absent_note = Some(format!("`{name}` holds a structure or list: add it in the RON text below."));
        }
    }
}

/// Every item that refers to this one, each a link.
fn where_used_ui(ui: &mut egui::Ui, project: &Project, key: &ItemKey, actions: &mut Vec<InspectorAction>) {
    let uses = where_used(project, key);
    egui::CollapsingHeader::new(format!("Used by ({})", uses.len()))
        .id_salt("inspector_where_used")
        .default_open(true)
        .show(ui, |ui| {
            if uses.is_empty() {
                ui.label(RichText::new("Nothing refers to this item.").weak());
            }
            for (user, path) in uses.iter().take(500) {
                let text = format!("{} {} · {path}", kind_icon(user.kind), user.id);
                if ui
                    .link(RichText::new(text).color(kind_text_colour(user.kind, ui.visuals())))
                    .on_hover_text(format!("Select the {user}"))
                    .clicked()
                {
                    actions.push(InspectorAction::Select(user.clone()));
                }
            }
        });
}

/// The whole item as RON text; applying parses it into one edit (the id stays).
fn ron_ui(
    ui: &mut egui::Ui,
    item: &SharedItem,
    key: &ItemKey,
    state: &mut InspectorState,
    actions: &mut Vec<InspectorAction>,
) {
    if let Some(note) = &state.absent_note {
        ui.label(RichText::new(note).weak());
    }
    egui::CollapsingHeader::new("RON text").id_salt("inspector_ron").show(ui, |ui| {
        let current = item.ron_text();
        if state.ron.as_ref().is_none_or(|(for_key, ..)| for_key != key) {
            state.ron = Some((key.clone(), current.clone(), None));
        }
        let Some((_, text, error)) = state.ron.as_mut() else { return };
        let label = ui.label("Item as RON");
        ui.add(egui::TextEdit::multiline(text).code_editor().desired_width(f32::INFINITY).desired_rows(8))
            .labelled_by(label.id);
        ui.horizontal(|ui| {
            if ui
                .add_enabled(*text != current, egui::Button::new("Apply text"))
                .on_hover_text("Replace the item with this text")
                .clicked()
            {
                match item_from_ron(key.kind, text) {
                    Ok(parsed) if parsed.item_id() == key.id => {
                        *error = None;
                        actions.push(InspectorAction::Edit {
                            op: Op::put(parsed),
                            label: "Edit as text".to_owned(),
                            gesture: None,
                        });
                    }
                    Ok(_) => *error = Some("the text has another id: use the Id field to rename".to_owned()),
                    Err(problem) => *error = Some(problem),
                }
            }
            if ui
                .add_enabled(*text != current, egui::Button::new("Discard text"))
                .on_hover_text("Show the item as it is")
                .clicked()
            {
                current.clone_into(text);
                *error = None;
            }
        });
        if let Some(error) = error {
            ui.colored_label(crate::style::severity_colour(actforge_runtime::Severity::Error), error.as_str());
        }
    });
}

/// The Project settings form: `project.ron`'s manifest drawn by the same form as items
/// (texts, numbers, references as chips with pickers; the optional ones can be set to none),
/// grouped as project, play settings and where each system starts. Each change is one
/// [`Op::SetManifest`] (a text typed into is one gesture); a change the manifest cannot take
/// is not applied and says why under its field's group, as validation's `problems` (field
/// path, message) do.
pub fn manifest_form_ui(
    ui: &mut egui::Ui,
    project: &Project,
    problems: &[(String, String)],
    state: &mut InspectorState,
    actions: &mut Vec<InspectorAction>,
) {
    /// Where play starts, system by system: (caption, fields of `entry`).
    const SYSTEMS: &[(&str, &[&str])] = &[
        ("Table: tokens and cards on the table at the start", &["tokens", "cards"]),
        ("Turns: the turn set-up", &["turn_config"]),
        ("Tactics: the battle map", &["tile_map"]),
        ("Campaign: the campaign map", &["node_map"]),
        ("Boards: the boards in play", &["boards"]),
    ];
    let manifest = &project.manifest;
    let Some(json) = manifest_form_value(manifest) else {
        ui.label("project.ron cannot be shown as a form.");
        return;
    };
    let meta = manifest_meta(manifest);
    // Validation's problems and a change that was not applied, each shown under its field's
    // group (project, play settings, each start), the rest at the top.
    let mut messages: Vec<(String, String)> = problems
        .iter()
        .map(|(path, message)| {
            (path.clone(), if path.is_empty() { message.clone() } else { format!("{path}: {message}") })
        })
        .collect();
    if let Some(note) = &state.absent_note {
        messages.push((note.split(':').next().unwrap_or_default().to_owned(), note.clone()));
    }
    let error = crate::style::severity_colour(actforge_runtime::Severity::Error);
    let messages_ui = |ui: &mut egui::Ui, group: &str| {
        for (path, text) in &messages {
            if manifest_group(path) == group {
                ui.colored_label(error, text.as_str());
            }
        }
    };
    messages_ui(ui, "");
    let key = ItemKey::new(Kind::Act, "project.ron");
    let no_absent = BTreeMap::new();
    let mut form = Form {
        project,
        key: &key,
        meta: &meta.found,
        state,
        changed: None,
        gesture_ended: false,
        selected: None,
        nested_absent: &no_absent,
        add_field: None,
        manifest_json: Some(json.clone()),
    };
    let mut edited = json.clone();
    egui::ScrollArea::vertical().id_salt("project_settings_scroll").auto_shrink([false, false]).show(ui, |ui| {
        let Some(object) = edited.as_object_mut() else { return };
        let label_width = 140.0;
        ui.strong("Project");
        form.fields_grid(
            ui,
            &mut Vec::new(),
            object,
            &["name".to_owned(), "description".to_owned()],
            false,
            label_width,
        );
        messages_ui(ui, "project");
        ui.add_space(8.0);
        ui.strong("Play settings");
        if let Some(Value::Object(settings)) = object.get_mut("settings") {
            let names: Vec<String> = settings.keys().cloned().collect();
            form.fields_grid(ui, &mut vec!["settings".to_owned()], settings, &names, false, label_width);
        }
        messages_ui(ui, "settings");
        ui.add_space(8.0);
        ui.strong("Where play starts");
        let Some(Value::Object(entry)) = object.get_mut("entry") else { return };
        let mut path = vec!["entry".to_owned()];
        for (caption, names) in SYSTEMS {
            ui.label(RichText::new(*caption).weak());
            for name in *names {
                let Some(field) = entry.get_mut(*name) else { continue };
                if field.is_array() {
                    form.section_ui(ui, &mut path, name, field);
                } else {
                    form.fields_grid(ui, &mut path, entry, &[(*name).to_owned()], false, label_width);
                }
                messages_ui(ui, &format!("entry.{name}"));
            }
        }
    });
    if let Some(target) = form.selected.take() {
        actions.push(InspectorAction::Select(target));
    }
    if form.gesture_ended {
        actions.push(InspectorAction::EndGesture);
    }
    if let Some((label, gesture)) = form.changed.take()
        && edited != json
    {
        manifest_edit(manifest, edited, (&label, gesture), form.state, actions);
    }
}

/// The edit the form made of the manifest as one `Op::SetManifest`, or why it is not applied
/// (kept to show under the field's group).
fn manifest_edit(
    manifest: &actforge_runtime::model::Manifest,
    edited: Value,
    (label, gesture): (&str, Option<u64>),
    state: &mut InspectorState,
    actions: &mut Vec<InspectorAction>,
) {
    match manifest_from_form(edited, manifest.schema_version) {
        Ok(changed) if changed != *manifest => {
            state.absent_note = None;
            let label = format!("{label} (project settings)");
            actions.push(InspectorAction::Edit { op: Op::SetManifest(Box::new(changed)), label, gesture });
        }
        Ok(_) => {}
        Err(error) => {
            let field = label.split_once(' ').map_or(label, |(_, field)| field);
            state.absent_note = Some(format!("{field}: not applied: {error}"));
        }
    }
}

/// What each path of the manifest's form is: the walk reports the references that are set;
/// the unset optional ones, and the elements of empty lists, are found by walking a copy with
/// each set.
fn manifest_meta(manifest: &actforge_runtime::model::Manifest) -> MetaCollector {
    let mut meta = MetaCollector::default();
    let mut probe = manifest.clone();
    probe.entry.turn_config.get_or_insert_with(|| "probe".into());
    probe.entry.tile_map.get_or_insert_with(|| "probe".into());
    probe.entry.node_map.get_or_insert_with(|| "probe".into());
    probe.entry.tokens.push("probe".into());
    probe.entry.cards.push("probe".into());
    probe.entry.boards.push("probe".into());
    actforge_runtime::model::walk_item(&probe, &mut meta);
    meta
}

/// The group of the Project settings form a field path (`entry.tokens[1]`) is shown in:
/// `project`, `settings`, `entry.tokens`…, or none (the top).
fn manifest_group(path: &str) -> String {
    if path.starts_with("name") || path.starts_with("description") {
        "project".to_owned()
    } else if path.starts_with("settings") {
        "settings".to_owned()
    } else if let Some(rest) = path.strip_prefix("entry.") {
        format!("entry.{}", rest.split(['[', '.']).next().unwrap_or_default())
    } else {
        String::new()
    }
}

/// The manifest as the form edits it: every field present (the file leaves defaults out),
/// unset optional references as empty texts, the schema version left out (not the designer's).
fn manifest_form_value(manifest: &actforge_runtime::model::Manifest) -> Option<Value> {
    let mut json = serde_json::to_value(manifest).ok()?;
    let object = json.as_object_mut()?;
    object.remove("schema_version");
    object.entry("description").or_insert_with(|| Value::String(String::new()));
    object.insert("settings".to_owned(), serde_json::to_value(&manifest.settings).ok()?);
    let entry = &manifest.entry;
    let optional = |id: Option<String>| Value::String(id.unwrap_or_default());
    let mut points = serde_json::Map::new();
    points.insert("tokens".to_owned(), serde_json::to_value(&entry.tokens).ok()?);
    points.insert("cards".to_owned(), serde_json::to_value(&entry.cards).ok()?);
    points.insert("turn_config".to_owned(), optional(entry.turn_config.as_ref().map(ToString::to_string)));
    points.insert("tile_map".to_owned(), optional(entry.tile_map.as_ref().map(ToString::to_string)));
    points.insert("node_map".to_owned(), optional(entry.node_map.as_ref().map(ToString::to_string)));
    points.insert("boards".to_owned(), serde_json::to_value(&entry.boards).ok()?);
    object.insert("entry".to_owned(), Value::Object(points));
    Some(json)
}

/// The manifest back from the form's value: empty optional references are unset again.
fn manifest_from_form(mut json: Value, schema_version: u32) -> Result<actforge_runtime::model::Manifest, String> {
    if let Some(object) = json.as_object_mut() {
        object.insert("schema_version".to_owned(), Value::from(schema_version));
        if let Some(Value::Object(entry)) = object.get_mut("entry") {
            entry.retain(|_, value| value.as_str() != Some(""));
        }
    }
    serde_json::from_value(json).map_err(|error| error.to_string())
}

/// The Inspector tab: the form of the selected item, with validation's problems at their fields.
pub fn tab_ui(
    ui: &mut egui::Ui,
    workspace: &Workspace,
    selection: Option<&ItemKey>,
    state: &mut InspectorState,
    requests: &mut Requests,
) {
    let Workspace::Open(open) = workspace else {
        ui.label("No project is open.");
        return;
    };
    let Some(key) = selection else {
        ui.label(RichText::new("Select an item to edit its fields here.").weak());
        return;
    };
    let problems = open
        .diagnostics
        .iter()
        .filter(|d| d.item.as_ref().is_some_and(|(kind, id)| *kind == key.kind && *id == key.id))
        .map(|d| (d.field.clone().unwrap_or_default(), d.message.clone()))
        .collect();
    let input = InspectorInput {
        project: open.document.project(),
        revision: open.document.revision(),
        key,
        dirty: open.document.is_dirty(key),
        problems,
    };
    let mut actions = Vec::new();
    inspector_ui(ui, &input, state, &mut actions);
    requests.extend(actions.into_iter().map(Request::Inspector));
}
