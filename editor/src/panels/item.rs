//! The Item tab: the selected item's text as it is now, editable as text in an explicit mode
//! (Apply or Cancel; a text that does not read says why at its line and column); a file that
//! did not load opens here as text to be fixed; or why the project did not open.

use actforge_runtime::Severity;
use egui::RichText;

use crate::document::{ItemKey, Op, TextError, get_item, parse_item_text};
use crate::panels::inspector::InspectorAction;
use crate::requests::{Request, Requests};
use crate::style::{kind_icon, kind_text_colour, severity_colour, severity_icon};
use crate::workspace::{BrokenFile, Workspace};

/// The text being edited in the Item tab, kept between frames.
#[derive(Debug, Default)]
pub struct ItemTextState {
    draft: Option<Draft>,
}

impl ItemTextState {
    /// Whether the text of `key` is being edited.
    pub fn is_editing(&self, key: &ItemKey) -> bool {
        self.draft.as_ref().is_some_and(|draft| draft.key == *key)
    }
}

/// An edit of one item's text.
#[derive(Debug)]
struct Draft {
    key: ItemKey,
    /// The text editing began from: the item as it was then, or the file as it is on disk.
    base: String,
    /// The text as typed.
    text: String,
    /// Why the text did not read, the last time Apply was pressed.
    error: Option<TextError>,
    /// The item's text once an applied edit has landed: the draft closes when the item
    /// reads so (an edit the document refused keeps the draft and the designer's text).
    applied: Option<String>,
}

/// The Item tab.
pub fn ui(
    ui: &mut egui::Ui,
    workspace: &Workspace,
    selection: Option<&ItemKey>,
    state: &mut ItemTextState,
    requests: &mut Requests,
) {
    let open = match workspace {
        Workspace::Failed { message } => {
            ui.heading(RichText::new("The project could not be opened").color(severity_colour(Severity::Error)));
            ui.label(message.as_str());
            ui.label("Fix the problem and press Reload.");
            return;
        }
        Workspace::Open(open) => open,
    };
    let Some(key) = selection else {
        ui.heading("Welcome");
        ui.label("Choose an item in the project browser on the left, or press Ctrl+P to find one by name.");
        ui.label("The + beside each kind in the browser makes a new item.");
        ui.label(format!("This project has {} items.", open.document.project().item_count()));
        return;
    };
    ui.horizontal(|ui| {
        ui.label(RichText::new(kind_icon(key.kind)).size(22.0).color(kind_text_colour(key.kind, ui.visuals())));
        ui.heading(format!("{} {}", key.kind.label(), key.id));
    });
    if let Some(item) = get_item(open.document.project(), key.kind, &key.id) {
        if let Some(file) = open.sources.item_file(key.kind, &key.id) {
            ui.label(RichText::new(file.display().to_string()).weak());
        }
        let current = item.ron_text();
        if let Some(draft) = state.draft.as_ref().filter(|draft| draft.key == *key)
            && draft.applied.as_deref() == Some(current.as_str())
        {
            state.draft = None;
        }
        ui.separator();
        item_text_ui(ui, key, &current, state, requests);
    } else if let Some(file) = open.broken_files().into_iter().find(|file| file.key == *key) {
        broken_file_ui(ui, &file, state, requests);
    } else {
        ui.label(format!("There is no {key} any more."));
    }
}

/// An item that loaded: its text now, or the edit of it.
fn item_text_ui(ui: &mut egui::Ui, key: &ItemKey, current: &str, state: &mut ItemTextState, requests: &mut Requests) {
    match state.draft.as_mut().filter(|draft| draft.key == *key) {
        None => {
            let edit = ui
                .button(format!("{}  Edit as text", egui_phosphor::regular::PENCIL_SIMPLE))
                .on_hover_text("Edit the item's RON text; Apply replaces the item in one undo step");
            if edit.clicked() {
                state.draft = Some(Draft {
                    key: key.clone(),
                    base: current.to_owned(),
                    text: current.to_owned(),
                    error: None,
                    applied: None,
                });
                return;
            }
            egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
                ui.add(egui::Label::new(RichText::new(current).monospace()).selectable(true));
            });
        }
        Some(draft) => {
            if draft.base != current && draft.applied.is_none() {
                ui.colored_label(
                    severity_colour(Severity::Warning),
                    "The item changed since you began editing its text (an undo, a form edit or a reload): \
                     Apply replaces it with your text.",
                );
            }
            if draft_ui(ui, draft, "Apply replaces the item with this text (one undo step)", requests) {
                state.draft = None;
            }
        }
    }
}

/// A file that did not load: its text from disk, editable; Apply brings the item in.
fn broken_file_ui(ui: &mut egui::Ui, file: &BrokenFile, state: &mut ItemTextState, requests: &mut Requests) {
    ui.label(RichText::new(file.path.display().to_string()).weak());
    let colour = severity_colour(Severity::Error);
    let why = file.problem.as_ref().map_or_else(|| "This file did not load.".to_owned(), ToString::to_string);
    ui.colored_label(colour, format!("{} This file does not load: {why}", severity_icon(Severity::Error)));
    ui.label("Fix the text below and press Apply (or fix the file on disk: the editor takes it in).");
    ui.separator();
    let reload = state.draft.as_ref().is_none_or(|draft| draft.key != file.key);
    if reload || ui.button("Read the file again").on_hover_text("Discard the edits here and show the file").clicked() {
        let (text, error) = match std::fs::read_to_string(&file.path) {
            Ok(text) => {
                let error = parse_item_text(file.key.kind, &text).err();
                (text, error)
            }
            Err(error) => (String::new(), Some(TextError { message: error.to_string(), line: 1, col: 1 })),
        };
        state.draft = Some(Draft { key: file.key.clone(), base: String::new(), text, error, applied: None });
    }
    if let Some(draft) = state.draft.as_mut().filter(|draft| draft.key == file.key) {
        // The file's own text counts as a change: applying it unchanged is how a file fixed
        // outside the editor comes in.
        draft_ui(ui, draft, "Apply reads this text as the item; saving writes it to the file", requests);
    }
}

/// The text editor of a draft with Apply and Cancel; returns whether the draft is done with
/// (cancelled).
fn draft_ui(ui: &mut egui::Ui, draft: &mut Draft, apply_hint: &str, requests: &mut Requests) -> bool {
    let mut cancelled = false;
    ui.horizontal(|ui| {
        let changed = draft.text != draft.base;
        if ui.add_enabled(changed, egui::Button::new("Apply")).on_hover_text(apply_hint).clicked() {
            apply(draft, requests);
        }
        if ui.button("Cancel").on_hover_text("Stop editing the text; the item stays as it is").clicked() {
            cancelled = true;
        }
        if draft.applied.is_some() {
            ui.label(RichText::new("Applying…").weak());
        }
    });
    if let Some(error) = &draft.error {
        error_ui(ui, &draft.text, error);
    }
    let label = ui.label(RichText::new("Item as RON text").weak());
    egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
        let response = ui.add(
            egui::TextEdit::multiline(&mut draft.text)
                .code_editor()
                .desired_width(f32::INFINITY)
                .desired_rows(20)
                .id_salt(("item_text", &draft.key)),
        );
        response.labelled_by(label.id);
    });
    cancelled
}

/// Reads the draft: an item with the draft's id is sent as one edit; anything else is an
/// error kept at its line and column.
fn apply(draft: &mut Draft, requests: &mut Requests) {
    match parse_item_text(draft.key.kind, &draft.text) {
        Ok(item) if item.item_id() == draft.key.id => {
            draft.error = None;
            draft.applied = Some(item.ron_text());
            let label = format!("Edit the {} as text", draft.key);
            requests.send(Request::Inspector(InspectorAction::Edit { op: Op::put(item), label, gesture: None }));
        }
        Ok(item) => {
            let line = draft.text.lines().position(|line| line.trim_start().starts_with("id")).map_or(1, |at| at + 1);
            draft.error = Some(TextError {
                message: format!(
                    "the text names the id `{}`, not `{}`: rename the item with Rename (F2) instead",
                    item.item_id(),
                    draft.key.id
                ),
                line,
                col: 1,
            });
        }
        Err(error) => draft.error = Some(error),
    }
}

/// Where the text does not read: the line, a caret under the column, and why.
fn error_ui(ui: &mut egui::Ui, text: &str, error: &TextError) {
    let colour = severity_colour(Severity::Error);
    ui.colored_label(colour, format!("Line {}, column {}: {}", error.line, error.col, error.message));
    if let Some(line) = text.lines().nth(error.line.saturating_sub(1)) {
        let caret = format!("{}^", " ".repeat(error.col.saturating_sub(1)));
        ui.label(RichText::new(format!("{line}\n{caret}")).monospace().color(colour));
    }
}
