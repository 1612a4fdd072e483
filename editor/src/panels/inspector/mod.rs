//! The inspector: a form for the selected item of any kind, drawn from the kind's JSON
//! Schema (`actforge_runtime::schema`, generated from the model's types).
//!
//! Every field shows in declaration order (identity and designer text first), whether the
//! file holds it or not; each gets the widget its schema asks for: references as chips with
//! a picker that can also make a new target, formulas with their value or error, enums as a
//! variant picker with each variant's doc, options that can be set and cleared, lists and
//! maps that start empty, nested structures, colours, multi-line texts with the substitution
//! syntax coloured. Each change becomes one [`Op`] that the app applies after the frame; an
//! edit the item cannot take is shown at its field with why, never dropped. The Item tab
//! edits the whole item as text.

mod form;
mod shape;
mod text;

use std::collections::{BTreeMap, BTreeSet};

use actforge_runtime::engine::Session;
use actforge_runtime::formula::{FormulaSet, ProjectNames};
use actforge_runtime::model::Manifest;
use actforge_runtime::schema::{item_schema, manifest_schema};
use actforge_runtime::{Project, Severity};
use egui::RichText;
use serde_json::Value;

use crate::document::{AnyItem, ItemKey, Op, item_from_json, where_used};
use crate::requests::{Request, Requests};
use crate::style::{kind_icon, kind_text_colour, severity_colour};
use crate::workspace::Workspace;
use form::{Change, Form};
pub use form::{humanise, path_text};
pub use text::{highlighted, is_designer_text};

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

/// An edit the item could not take: kept, with why, until the designer fixes or discards it.
#[derive(Clone, Debug)]
struct Rejected {
    key: ItemKey,
    /// The field edited.
    path: Vec<String>,
    /// Why the item does not take it.
    message: String,
    /// The item's JSON with the edit.
    value: Value,
    /// The item's JSON the edit was made on (a change of the item drops the rejected edit).
    base: Value,
}

/// Inspector state kept between frames (text being typed that is not yet an edit).
#[derive(Default)]
pub struct InspectorState {
    /// The id being typed in the rename field, for this item.
    rename: Option<(ItemKey, String)>,
    /// Picker search text.
    picker_filter: String,
    /// Named formulas and names of the project, rebuilt when the revision changes.
    formulas: Option<(u64, FormulaSet, ProjectNames)>,
    /// A field to bring into view and mark (a diagnostic was clicked): the item, the field's
    /// path (`next_acts[2].act`) and whether it has been scrolled to.
    jump: Option<(ItemKey, String, bool)>,
    /// The last edit the item could not take.
    rejected: Option<Rejected>,
    /// New names being typed for map fields, by the map's path.
    new_keys: BTreeMap<String, String>,
    /// JSON texts being typed that do not parse yet, by path.
    json_drafts: BTreeMap<String, String>,
    /// Formula fields showing their values in the preview's running game, by path.
    live_values: BTreeSet<String>,
    /// The selected item as JSON and what refers to it, for one revision: serialising the item
    /// and walking the whole project every frame cost more than drawing the form.
    shown: Option<Shown>,
}

/// What the inspector draws for one item at one revision.
struct Shown {
    revision: u64,
    key: ItemKey,
    json: Result<Value, String>,
    uses: Vec<(ItemKey, actforge_runtime::model::FieldPath)>,
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
    /// The preview's running game, if any: formula fields can show their values in it.
    pub live: Option<&'a Session>,
    /// The document, when the inspector shows one: after an edit, what it draws is worked out
    /// again from the items the edit changed only.
    pub document: Option<&'a crate::document::Document>,
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
    let shown_item = shown(state, input, &*item);
    let uses = shown_item.uses.clone();
    let json = match &shown_item.json {
        Ok(json) => json.clone(),
        Err(error) => {
            ui.label(format!("This item cannot be shown as a form: {error}"));
            return;
        }
    };
    // An edit the item refused stays on screen, with why, until fixed or discarded; a change
    // of the item itself (an undo, a reload) drops it.
    if state.rejected.as_ref().is_some_and(|rejected| rejected.key != *key || rejected.base != json) {
        state.rejected = None;
    }
    if let Some(rejected) = &state.rejected {
        let mut discard = false;
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(
                severity_colour(Severity::Error),
                format!("Your edit of {} is not applied: {}", path_text(&rejected.path), rejected.message),
            );
            discard = ui.button("Discard the edit").on_hover_text("Show the item as it is").clicked();
        });
        if discard {
            state.rejected = None;
        }
    }
    let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, message) in &input.problems {
        problems.entry(path.clone()).or_default().push(message.clone());
    }
    // Problems of the whole item (no field) are listed above the form; the others at their field.
    for message in problems.get("").into_iter().flatten() {
        ui.colored_label(severity_colour(Severity::Error), message.as_str());
    }
    ui.separator();
    let root = item_schema(key.kind);
    let Some(properties) = root.get("properties").and_then(Value::as_object) else {
        ui.label("This kind has no schema.");
        return;
    };
    let mut edited = state.rejected.as_ref().map_or_else(|| json.clone(), |rejected| rejected.value.clone());
    let shown = edited.clone();
    let mut form = Form {
        project: input.project,
        root,
        key,
        hidden: &["id", "text_key"],
        open: &[],
        original: &json,
        state,
        problems: &problems,
        changed: None,
        gesture_ended: false,
        selected: None,
        created: Vec::new(),
        live: input.live,
    };
    egui::ScrollArea::vertical().id_salt("inspector_scroll").auto_shrink([false, false]).show(ui, |ui| {
        if let Some(object) = edited.as_object_mut() {
            form.object_ui(ui, &mut Vec::new(), properties, object, true);
        }
        ui.add_space(8.0);
        where_used_ui(ui, &uses, actions);
    });
    let (changed, created, selected, gesture_ended) = (form.changed, form.created, form.selected, form.gesture_ended);
    if let Some(target) = selected {
        actions.push(InspectorAction::Select(target));
    }
    if gesture_ended {
        actions.push(InspectorAction::EndGesture);
    }
    if let Some(change) = changed
        && edited != shown
    {
        apply_edit(key, edited, json, change, created, state, actions);
    }
}

/// The selected item's JSON and users at this revision, worked out when either changed.
fn shown<'s>(state: &'s mut InspectorState, input: &InspectorInput<'_>, item: &dyn AnyItem) -> &'s Shown {
    let key = input.key;
    let stale = state.shown.as_ref().is_none_or(|shown| shown.revision != input.revision || shown.key != *key);
    if stale {
        // The same item at a later revision: only the items changed since are read again.
        let later = state.shown.take().filter(|shown| shown.key == *key).and_then(|shown| {
            let changes = input.document?.changes_since(shown.revision)?;
            let json = if changes.items.contains(key) { item.to_json() } else { shown.json };
            let uses = crate::document::where_used_after(input.project, key, shown.uses, &changes.items);
            Some(Shown { revision: input.revision, key: key.clone(), json, uses })
        });
        state.shown = later;
    }
    state.shown.get_or_insert_with(|| Shown {
        revision: input.revision,
        key: key.clone(),
        json: item.to_json(),
        uses: where_used(input.project, key),
    })
}

/// Turns the form's edited JSON into one edit (with any items a picker made), or keeps it as
/// a rejected edit with serde's reason.
fn apply_edit(
    key: &ItemKey,
    mut edited: Value,
    base: Value,
    change: Change,
    created: Vec<crate::document::SharedItem>,
    state: &mut InspectorState,
    actions: &mut Vec<InspectorAction>,
) {
    // Ids stay as they are here: a new id is a rename, which rewrites references.
    if let Some(object) = edited.as_object_mut() {
        object.insert("id".to_owned(), Value::String(key.id.clone()));
    }
    match item_from_json(key.kind, edited.clone()) {
        Ok(item) => {
            state.rejected = None;
            let op = if created.is_empty() {
                Op::put(item)
            } else {
                Op::Batch(created.into_iter().map(Op::put).chain(std::iter::once(Op::put(item))).collect())
            };
            actions.push(InspectorAction::Edit { op, label: change.label, gesture: change.gesture });
        }
        Err(message) => {
            state.rejected = Some(Rejected { key: key.clone(), path: change.path, message, value: edited, base });
        }
    }
}

/// The key the Project settings form is kept under (its gestures, its refused edit).
fn manifest_key() -> ItemKey {
    ItemKey::new(actforge_runtime::Kind::Act, "project.ron")
}

/// The Project settings form: `project.ron`'s manifest drawn from its schema by the same form
/// as items (its schema version left out: not the designer's). Every change is one
/// [`Op::SetManifest`] (a text typed into is one gesture); a change the manifest cannot take
/// stays at its field with why. `problems` are validation's findings as (field, message).
pub fn manifest_form_ui(
    ui: &mut egui::Ui,
    project: &Project,
    problems: &[(String, String)],
    state: &mut InspectorState,
    actions: &mut Vec<InspectorAction>,
) {
    let manifest = &project.manifest;
    let Ok(json) = serde_json::to_value(manifest) else {
        ui.label("project.ron cannot be shown as a form.");
        return;
    };
    let key = manifest_key();
    if state.rejected.as_ref().is_some_and(|rejected| rejected.key == key && rejected.base != json) {
        state.rejected = None;
    }
    let mut by_field: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, message) in problems {
        by_field.entry(path.clone()).or_default().push(message.clone());
    }
    for message in by_field.get("").into_iter().flatten() {
        ui.colored_label(severity_colour(Severity::Error), message.as_str());
    }
    let root = manifest_schema();
    let Some(properties) = root.get("properties").and_then(Value::as_object) else { return };
    let mut edited = match &state.rejected {
        Some(rejected) if rejected.key == key => rejected.value.clone(),
        _ => json.clone(),
    };
    let shown = edited.clone();
    let mut form = Form {
        project,
        root,
        key: &key,
        hidden: &["schema_version"],
        // Where play starts is what a new project needs first.
        open: &["settings", "entry", "entry.tokens", "entry.cards", "entry.boards"],
        original: &json,
        state,
        problems: &by_field,
        changed: None,
        gesture_ended: false,
        selected: None,
        created: Vec::new(),
        live: None,
    };
    egui::ScrollArea::vertical().id_salt("project_settings_scroll").auto_shrink([false, false]).show(ui, |ui| {
        if let Some(object) = edited.as_object_mut() {
            form.object_ui(ui, &mut Vec::new(), properties, object, true);
        }
    });
    let (changed, created, selected, gesture_ended) = (form.changed, form.created, form.selected, form.gesture_ended);
    if let Some(target) = selected {
        actions.push(InspectorAction::Select(target));
    }
    if gesture_ended {
        actions.push(InspectorAction::EndGesture);
    }
    let Some(change) = changed.filter(|_| edited != shown) else { return };
    match serde_json::from_value::<Manifest>(edited.clone()) {
        Ok(new) if new != *manifest || !created.is_empty() => {
            state.rejected = None;
            let set = Op::SetManifest(Box::new(new));
            let op = if created.is_empty() {
                set
            } else {
                Op::Batch(created.into_iter().map(Op::put).chain(std::iter::once(set)).collect())
            };
            let label = format!("{} (project settings)", change.label);
            actions.push(InspectorAction::Edit { op, label, gesture: change.gesture });
        }
        Ok(_) => state.rejected = None,
        Err(error) => {
            state.rejected =
                Some(Rejected { key, path: change.path, message: error.to_string(), value: edited, base: json });
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
            ui.colored_label(severity_colour(Severity::Error), problem);
        }
    });
}

/// Every item that refers to this one, each a link.
fn where_used_ui(
    ui: &mut egui::Ui,
    uses: &[(ItemKey, actforge_runtime::model::FieldPath)],
    actions: &mut Vec<InspectorAction>,
) {
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

/// The Inspector tab: the form of the selected item, with validation's problems at their fields.
pub fn tab_ui(
    ui: &mut egui::Ui,
    workspace: &Workspace,
    selection: Option<&ItemKey>,
    live: Option<&Session>,
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
    if !open.document.project().contains(key.kind, &key.id) && open.broken_files().iter().any(|file| file.key == *key) {
        ui.label(format!(
            "The file of the {key} does not load: fix its text in the Item tab, and its form comes back."
        ));
        return;
    }
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
        live,
        document: Some(&open.document),
    };
    let mut actions = Vec::new();
    inspector_ui(ui, &input, state, &mut actions);
    requests.extend(actions.into_iter().map(Request::Inspector));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use actforge_runtime::Kind;
    use serde_json::json;

    use super::*;

    #[test]
    fn an_edit_the_item_cannot_take_is_kept_with_why_and_nothing_is_applied() {
        let key = ItemKey::new(Kind::Act, "a");
        let mut state = InspectorState::default();
        let mut actions = Vec::new();
        let change = Change { path: vec!["initial".to_owned()], label: "Edit initial".to_owned(), gesture: None };
        let edited = json!({ "id": "a", "initial": "perhaps" });
        apply_edit(&key, edited.clone(), json!({ "id": "a" }), change.clone(), Vec::new(), &mut state, &mut actions);
        assert!(actions.is_empty(), "nothing applied");
        let rejected = state.rejected.clone().unwrap();
        assert_eq!((rejected.path.as_slice(), &rejected.value), (["initial".to_owned()].as_slice(), &edited));
        assert!(rejected.message.contains("boolean"), "{}", rejected.message);
        // A value that reads is applied as one edit and the refused one is forgotten.
        apply_edit(
            &key,
            json!({ "id": "a", "initial": true }),
            json!({ "id": "a" }),
            change,
            Vec::new(),
            &mut state,
            &mut actions,
        );
        assert!(state.rejected.is_none());
        assert!(matches!(actions.as_slice(), [InspectorAction::Edit { .. }]));
    }
}
