//! The project browser: items by kind, a filter, counts, unsaved marks; and the question
//! asked before deleting an item that other items still use.

use actforge_runtime::Kind;
use egui::RichText;

use crate::app::ActforgeApp;
use crate::commands::UiCommand;
use crate::document::ItemKey;
use crate::requests::{Request, Requests};
use crate::style::{kind_icon, kind_text_colour};
use crate::workspace::Workspace;

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
    let filter = filter.to_lowercase();
    egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
        for &kind in Kind::ALL {
            let entries: Vec<(&str, &str)> = project
                .entries(kind)
                .into_iter()
                .filter(|(id, label)| {
                    filter.is_empty() || id.contains(&filter) || label.to_lowercase().contains(&filter)
                })
                .collect();
            let title = RichText::new(format!("{}  {} ({})", kind_icon(kind), kind.plural_label(), entries.len()))
                .color(kind_text_colour(kind, ui.visuals()));
            egui::CollapsingHeader::new(title).id_salt(kind).default_open(false).show(ui, |ui| {
                if entries.is_empty() {
                    ui.label(RichText::new(format!("No {} yet", kind.plural_label().to_lowercase())).weak());
                }
                let mut rows = |ui: &mut egui::Ui, range: std::ops::Range<usize>| {
                    for (id, label) in entries.get(range).unwrap_or_default() {
                        let key = ItemKey::new(kind, *id);
                        let selected = selection == Some(&key);
                        let dirty = if open.document.is_dirty(&key) { " ●" } else { "" };
                        let text = if label.is_empty() || label == id {
                            (*id).to_owned()
                        } else {
                            format!("{} · {id}", label.replace('\n', " "))
                        };
                        let response = ui.selectable_label(selected, format!("{}  {text}{dirty}", kind_icon(kind)));
                        if response.clicked() {
                            requests.send(Request::Select(key));
                        }
                        if response.double_clicked() && kind == Kind::TileMap {
                            requests.send(Request::Command(UiCommand::TileMapEditor));
                        }
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
        }
    });
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
}
