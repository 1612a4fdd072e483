//! The project browser: items by kind with a filter, counts, unsaved marks, a + per kind,
//! a context menu per item, files that did not load marked with their error; and the two
//! questions asked from it: the new id of a rename, and whether to delete an item other
//! items still use.

use actforge_runtime::{Kind, Severity};
use egui::RichText;

use crate::app::ActforgeApp;
use crate::commands::UiCommand;
use crate::document::ItemKey;
use crate::panels::inspector::InspectorAction;
use crate::requests::{Request, Requests};
use crate::style::{kind_icon, kind_text_colour, severity_colour, severity_icon};
use crate::workspace::{BrokenFile, Workspace};

/// Kinds with more items than this list them in their own scroll area, laying out only the
/// visible rows.
const BROWSER_ROWS_SHOWN_WHOLE: usize = 100;

/// The project browser tab: `filter` narrows the items by id or label.
pub fn ui(
    ui: &mut egui::Ui,
    workspace: &Workspace,
    filter: &mut String,
    selection: Option<&ItemKey>,
    requests: &mut Requests,
) {
    ui.horizontal(|ui| {
        ui.label(egui_phosphor::regular::MAGNIFYING_GLASS);
        let label = ui.label("Filter");
        ui.add(egui::TextEdit::singleline(filter).hint_text("id or label").desired_width(f32::INFINITY))
            .labelled_by(label.id)
            .on_hover_text("Show only items whose id or label contains this text");
    });
    ui.separator();
    let Workspace::Open(open) = workspace else {
        ui.label("No project is open.");
        return;
    };
    let project = open.document.project();
    let broken = open.broken_files();
    let filter = filter.to_lowercase();
    let matches =
        |id: &str, label: &str| filter.is_empty() || id.contains(&filter) || label.to_lowercase().contains(&filter);
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        for &kind in Kind::ALL {
            let entries: Vec<(&str, &str)> =
                project.entries(kind).into_iter().filter(|(id, label)| matches(id, label)).collect();
            let broken: Vec<&BrokenFile> =
                broken.iter().filter(|file| file.key.kind == kind && matches(&file.key.id, "")).collect();
            let id = ui.make_persistent_id(("browser_kind", kind));
            let state = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, false);
            let header = state.show_header(ui, |ui| {
                let count = entries.len() + broken.len();
                let title = RichText::new(format!("{}  {} ({count})", kind_icon(kind), kind.plural_label()))
                    .color(kind_text_colour(kind, ui.visuals()));
                let title = ui.add(egui::Label::new(title).sense(egui::Sense::click()));
                if !broken.is_empty() {
                    let colour = severity_colour(Severity::Error);
                    ui.label(
                        RichText::new(format!("{} {}", severity_icon(Severity::Error), broken.len())).color(colour),
                    )
                    .on_hover_text("Files of this kind that do not load: select one to fix it");
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    let command = UiCommand::NewItem(kind);
                    let response = ui
                        .add(egui::Button::new(egui_phosphor::regular::PLUS).small().frame(false))
                        .on_hover_text(format!("{} (from a template)", command.label()));
                    // The icon alone is not a name: assistive technology and tests read this.
                    response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, command.label()));
                    if response.clicked() {
                        requests.send(Request::Command(command));
                    }
                });
                title
            });
            let (_, title, _) = header.body(|ui| {
                if entries.is_empty() && broken.is_empty() {
                    ui.label(
                        RichText::new(format!("No {} yet: + makes one", kind.plural_label().to_lowercase())).weak(),
                    );
                }
                for file in &broken {
                    broken_row(ui, file, selection, requests);
                }
                let mut rows = |ui: &mut egui::Ui, range: std::ops::Range<usize>| {
                    for (id, label) in entries.get(range).unwrap_or_default() {
                        let key = ItemKey::new(kind, *id);
                        let dirty = open.document.is_dirty(&key);
                        let conflicted = open.conflicts.iter().any(|c| c.kind == kind && c.id == *id);
                        item_row(ui, &key, label, (dirty, conflicted), selection, requests);
                    }
                };
                if entries.len() > BROWSER_ROWS_SHOWN_WHOLE {
                    // Only the visible rows are laid out: big projects stay fast.
                    let row_height = ui.spacing().interact_size.y;
                    egui::ScrollArea::vertical().id_salt(("browser_rows", kind)).max_height(420.0).show_rows(
                        ui,
                        row_height,
                        entries.len(),
                        rows,
                    );
                } else {
                    rows(ui, 0..entries.len());
                }
            });
            // The kind's name folds and unfolds it too, not only the arrow.
            if title.inner.clicked() {
                let mut state = egui::collapsing_header::CollapsingState::load_with_default_open(ui.ctx(), id, false);
                state.toggle(ui);
                state.store(ui.ctx());
            }
        }
    });
}

/// One item's row: click selects, double-click opens a tile map's editor, right-click offers
/// what can be done with it.
fn item_row(
    ui: &mut egui::Ui,
    key: &ItemKey,
    label: &str,
    (dirty, conflicted): (bool, bool),
    selection: Option<&ItemKey>,
    requests: &mut Requests,
) {
    let kind = key.kind;
    let selected = selection == Some(key);
    let dirty = match (dirty, conflicted) {
        (_, true) => format!(" {} merge conflict", egui_phosphor::regular::GIT_MERGE),
        (true, false) => " ●".to_owned(),
        (false, false) => String::new(),
    };
    let text = if label.is_empty() || label == key.id {
        key.id.clone()
    } else {
        format!("{} · {}", label.replace('\n', " "), key.id)
    };
    let mut response = ui.selectable_label(selected, format!("{}  {text}{dirty}", kind_icon(kind)));
    if conflicted {
        response =
            response.on_hover_text("Its file holds a merge conflict: choose a side per field in the Changes tab");
    }
    if response.clicked() {
        requests.send(Request::Select(key.clone()));
        if conflicted {
            requests.send(Request::Command(UiCommand::Changes));
        }
    }
    if response.double_clicked() && kind == Kind::TileMap {
        requests.send(Request::Command(UiCommand::TileMapEditor));
    }
    response.context_menu(|ui| {
        // The commands act on the selection: select the row first, then run them in order.
        for command in [UiCommand::Rename, UiCommand::Duplicate, UiCommand::Delete] {
            if ui.button(format!("{}  {}", command.icon(), command.label())).clicked() {
                requests.send(Request::Select(key.clone()));
                requests.send(Request::Command(command));
                ui.close();
            }
        }
        ui.separator();
        let new = UiCommand::NewItem(kind);
        if ui.button(format!("{}  {}", new.icon(), new.label())).clicked() {
            requests.send(Request::Command(new));
            ui.close();
        }
    });
}

/// A file that did not load: marked with its error; selecting it opens its text to fix it.
fn broken_row(ui: &mut egui::Ui, file: &BrokenFile, selection: Option<&ItemKey>, requests: &mut Requests) {
    let colour = severity_colour(Severity::Error);
    let selected = selection == Some(&file.key);
    let text =
        RichText::new(format!("{} {} · does not load", severity_icon(Severity::Error), file.key.id)).color(colour);
    let why = file.problem.as_ref().map_or_else(|| "This file did not load.".to_owned(), ToString::to_string);
    if ui.selectable_label(selected, text).on_hover_text(why).clicked() {
        requests.send(Request::Select(file.key.clone()));
    }
}

impl ActforgeApp {
    /// Asks before deleting an item other items still use; the answer is a request.
    pub(crate) fn confirm_delete_ui(&mut self, ctx: &egui::Context) {
        let Some((key, users)) = &self.confirm_delete else { return };
        let mut decision = None;
        egui::Window::new("Delete item")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(format!("The {key} is still used by {} items:", users.len()));
                egui::ScrollArea::vertical().max_height(200.0).show(ui, |ui| {
                    for user in users {
                        ui.label(
                            RichText::new(format!("{} {user}", kind_icon(user.kind)))
                                .color(kind_text_colour(user.kind, ui.visuals())),
                        );
                    }
                });
                ui.label("Their references will dangle (validation reports them). Delete can be undone.");
                ui.horizontal(|ui| {
                    if ui.button("Delete anyway").clicked() {
                        decision = Some(true);
                    }
                    if ui.button("Keep the item").clicked() {
                        decision = Some(false);
                    }
                });
            });
        if let Some(delete) = decision {
            self.requests.send(Request::AnswerDelete { delete });
        }
    }

    /// Deletes the item waiting for confirmation, or keeps it, as the designer answered.
    pub(crate) fn answer_delete(&mut self, delete: bool) {
        if let Some((key, _)) = self.confirm_delete.take()
            && delete
        {
            self.delete_now(key);
        }
    }

    /// The rename window (F2, or Rename… on a row): the new id is checked as it is typed;
    /// renaming is a request that rewrites every reference in one undo step.
    pub(crate) fn rename_ui(&mut self, ctx: &egui::Context) {
        let Some((key, draft)) = self.renaming.as_mut() else { return };
        let mut close = ctx.input(|input| input.key_pressed(egui::Key::Escape));
        let mut rename = false;
        let taken =
            self.workspace.project().is_some_and(|project| *draft != key.id && project.contains(key.kind, draft));
        let problem = actforge_runtime::model::slug_problem(draft)
            .or_else(|| taken.then(|| format!("another {} already has this id", key.kind.label().to_lowercase())));
        egui::Window::new(format!("Rename {}", key.kind.label().to_lowercase()))
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(format!("New id for the {key}; every reference to it follows."));
                let label = ui.label("New id");
                let response =
                    ui.add(egui::TextEdit::singleline(draft).font(egui::TextStyle::Monospace)).labelled_by(label.id);
                if !response.has_focus() && !response.lost_focus() {
                    response.request_focus();
                }
                if let Some(problem) = &problem {
                    ui.colored_label(severity_colour(Severity::Error), problem.as_str());
                }
                let enter = response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
                ui.horizontal(|ui| {
                    let can = problem.is_none() && *draft != key.id;
                    if ui.add_enabled(can, egui::Button::new("Rename")).clicked() || (enter && can) {
                        rename = true;
                    }
                    if ui.button("Cancel").clicked() {
                        close = true;
                    }
                });
            });
        if rename && let Some((key, to)) = self.renaming.take() {
            self.requests.send(Request::Inspector(InspectorAction::Rename { key, to }));
        } else if close {
            self.renaming = None;
        }
    }
}
