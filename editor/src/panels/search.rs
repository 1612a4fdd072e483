//! The command palette, quick open (items by id or label) and find in project (text inside
//! items), in one window.

use actforge_runtime::Kind;
use egui::RichText;

use crate::app::ActforgeApp;
use crate::commands::UiCommand;
use crate::document::{Document, ItemKey, TextHit, search_text};
use crate::requests::Request;
use crate::style::{kind_icon, kind_text_colour};
use crate::workspace::Workspace;

/// What the palette window finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaletteMode {
    /// Commands by name.
    Commands,
    /// Items by id or label (quick open).
    Items,
    /// Text inside items (find in project).
    Text,
}

/// The command palette, quick open or find in project, while shown.
pub struct Palette {
    mode: PaletteMode,
    query: String,
    focus: bool,
    /// Text hits for `searched` at document revision `searched_at` (worked out when either moves).
    hits: Vec<TextHit>,
    searched: String,
    searched_at: u64,
}

impl Palette {
    /// A palette in `mode` with an empty query, focused.
    pub fn new(mode: PaletteMode) -> Self {
        Self { mode, query: String::new(), focus: true, hits: Vec::new(), searched: String::new(), searched_at: 0 }
    }
}

/// Most text hits listed by find in project.
const TEXT_HITS_SHOWN: usize = 200;

impl ActforgeApp {
    /// The palette window while one is shown; what is chosen becomes a request.
    pub(crate) fn palette_ui(&mut self, ctx: &egui::Context) {
        let enabled: Vec<bool> = UiCommand::ALL.iter().map(|&command| self.enabled(command)).collect();
        let Some(palette) = self.palette.as_mut() else { return };
        let mut close = ctx.input(|input| input.key_pressed(egui::Key::Escape));
        let mut chosen = None;
        let (title, hint, prompt) = match palette.mode {
            PaletteMode::Commands => ("Command palette", "command", "Find a command"),
            PaletteMode::Items => ("Quick open", "id or label", "Find an item"),
            PaletteMode::Text => ("Find in project", "text in labels, texts, formulas", "Find text"),
        };
        egui::Window::new(title)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_TOP, [0.0, 60.0])
            .default_width(480.0)
            .show(ctx, |ui| {
                let label = ui.label(prompt);
                let response = ui
                    .add(egui::TextEdit::singleline(&mut palette.query).hint_text(hint).desired_width(f32::INFINITY))
                    .labelled_by(label.id);
                if std::mem::take(&mut palette.focus) {
                    response.request_focus();
                }
                let enter = ui.input(|input| input.key_pressed(egui::Key::Enter));
                let query = palette.query.to_lowercase();
                egui::ScrollArea::vertical().max_height(360.0).show(ui, |ui| {
                    if palette.mode == PaletteMode::Text {
                        let Workspace::Open(open) = &self.workspace else { return };
                        chosen = text_hits_ui(ui, palette, &open.document, enter);
                    } else if palette.mode == PaletteMode::Items {
                        let Workspace::Open(open) = &self.workspace else { return };
                        let project = open.document.project();
                        let mut shown = 0;
                        for &kind in Kind::ALL {
                            for (id, label) in project.entries(kind) {
                                if shown >= 50 {
                                    break;
                                }
                                if !(query.is_empty() || id.contains(&query) || label.to_lowercase().contains(&query)) {
                                    continue;
                                }
                                shown += 1;
                                let text = if label.is_empty() { id.to_owned() } else { format!("{label} · {id}") };
                                let response = ui.selectable_label(
                                    false,
                                    RichText::new(format!("{} {text}", kind_icon(kind)))
                                        .color(kind_text_colour(kind, ui.visuals())),
                                );
                                if response.clicked() || (enter && shown == 1) {
                                    chosen = Some(Request::Select(ItemKey::new(kind, id)));
                                }
                            }
                        }
                        if shown == 0 {
                            ui.label(RichText::new("No item matches.").weak());
                        }
                    } else {
                        let mut shown = 0;
                        for (&command, &enabled) in UiCommand::ALL.iter().zip(&enabled) {
                            if command == UiCommand::CommandPalette || !command.label().to_lowercase().contains(&query)
                            {
                                continue;
                            }
                            shown += 1;
                            let button = egui::Button::new(format!("{}  {}", command.icon(), command.label()))
                                .shortcut_text(command.shortcut_text(ui.ctx()))
                                .frame(false);
                            if ui.add_enabled(enabled, button).clicked() || (enter && enabled && shown == 1) {
                                chosen = Some(Request::Command(command));
                            }
                        }
                    }
                });
            });
        if let Some(chosen) = chosen {
            self.requests.send(chosen);
            close = true;
        }
        if close {
            self.palette = None;
        }
    }
}

/// Find in project's hits for the palette's query (searched again when the query or the
/// document moved); the hit clicked (or the first, on Enter) is selected.
fn text_hits_ui(ui: &mut egui::Ui, palette: &mut Palette, document: &Document, enter: bool) -> Option<Request> {
    let revision = document.revision();
    if palette.searched != palette.query || palette.searched_at != revision {
        palette.hits = search_text(document.project(), &palette.query, TEXT_HITS_SHOWN);
        palette.searched.clone_from(&palette.query);
        palette.searched_at = revision;
    }
    if palette.hits.is_empty() && !palette.query.trim().is_empty() {
        ui.label(RichText::new("No text matches.").weak());
    }
    let mut chosen = None;
    for (index, hit) in palette.hits.iter().enumerate() {
        let kind = hit.key.kind;
        let text = RichText::new(format!("{} {} · {}", kind_icon(kind), hit.key.id, hit.field))
            .color(kind_text_colour(kind, ui.visuals()));
        let response = ui.selectable_label(false, text).on_hover_text(hit.snippet.as_str());
        ui.label(RichText::new(hit.snippet.as_str()).weak().small());
        if response.clicked() || (enter && index == 0) {
            chosen = Some(Request::Select(hit.key.clone()));
        }
    }
    if palette.hits.len() >= TEXT_HITS_SHOWN {
        ui.label(RichText::new(format!("Only the first {TEXT_HITS_SHOWN} are shown.")).weak());
    }
    chosen
}
