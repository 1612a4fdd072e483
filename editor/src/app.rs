//! The editor window: for now a project browser (items by kind), a read-only view of the
//! selected item's file, and the diagnostics of the project.

use std::path::{Path, PathBuf};

use actforge_runtime::project::{Loaded, item_text};
use actforge_runtime::validate::validate;
use actforge_runtime::{Diagnostic, Kind, Project, Severity};
use egui::RichText;

use crate::cli::open_project;
use crate::style::{install_fonts, kind_colour, kind_icon, severity_colour, severity_icon};

/// The bundled demo project, opened when no project is named.
pub fn default_project_path() -> PathBuf {
    let relative = Path::new("content").join("lighthouse");
    if relative.is_dir() {
        return relative;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// The selected item: its kind and id (not an index, so it survives reloads).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    /// Kind of the item.
    pub kind: Kind,
    /// Id of the item.
    pub id: String,
}

/// What the browser shows: a loaded project, or why it could not be opened.
enum Workspace {
    Open { loaded: Box<Loaded>, diagnostics: Vec<Diagnostic> },
    Failed { message: String },
}

/// The editor application.
pub struct ActforgeApp {
    path: PathBuf,
    workspace: Workspace,
    filter: String,
    selection: Option<Selection>,
    /// A reload asked for during the frame, done after it (the project is read-only while drawing).
    reload_requested: bool,
}

impl ActforgeApp {
    /// Opens the project (folder or bundle) at `path`; a project that fails to open shows why.
    pub fn new(path: PathBuf) -> Self {
        let workspace = Self::open(&path);
        Self { path, workspace, filter: String::new(), selection: None, reload_requested: false }
    }

    fn open(path: &Path) -> Workspace {
        match open_project(path) {
            Ok(loaded) => {
                let root = path.is_dir().then_some(path);
                let mut diagnostics = loaded.diagnostics.clone();
                diagnostics.extend(validate(&loaded.project, &loaded.sources, root));
                Workspace::Open { loaded: Box::new(loaded), diagnostics }
            }
            Err(error) => Workspace::Failed { message: error.to_string() },
        }
    }

    /// Prepares fonts and style; call once with the window's context.
    pub fn setup(ctx: &egui::Context) {
        install_fonts(ctx);
    }

    /// The loaded project, if it opened.
    pub fn project(&self) -> Option<&Project> {
        match &self.workspace {
            Workspace::Open { loaded, .. } => Some(&loaded.project),
            Workspace::Failed { .. } => None,
        }
    }

    /// The selected item.
    pub fn selection(&self) -> Option<&Selection> {
        self.selection.as_ref()
    }

    /// Draws the whole window into `ui`.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        egui::Panel::top("top_bar").show(ui, |ui| self.top_bar_ui(ui));
        egui::Panel::bottom("diagnostics").resizable(true).default_size(140.0).show(ui, |ui| {
            self.diagnostics_ui(ui);
        });
        egui::Panel::left("project_browser").resizable(true).default_size(280.0).show(ui, |ui| {
            self.browser_ui(ui);
        });
        egui::CentralPanel::default().show(ui, |ui| self.item_ui(ui));

        if std::mem::take(&mut self.reload_requested) {
            self.workspace = Self::open(&self.path);
        }
    }

    fn top_bar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(format!("{} Actforge", egui_phosphor::regular::FOLDER_OPEN)).strong());
            ui.separator();
            let name = self.project().map_or_else(String::new, |project| project.manifest.name.clone());
            ui.label(RichText::new(name).heading());
            ui.label(RichText::new(self.path.display().to_string()).weak());
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                let reload = ui
                    .button(format!("{} Reload", egui_phosphor::regular::ARROWS_CLOCKWISE))
                    .on_hover_text("Read the project from disk again");
                if reload.clicked() {
                    self.reload_requested = true;
                }
            });
        });
    }

    fn browser_ui(&mut self, ui: &mut egui::Ui) {
        ui.heading("Project");
        ui.horizontal(|ui| {
            ui.label(egui_phosphor::regular::MAGNIFYING_GLASS);
            let label = ui.label("Filter");
            ui.add(egui::TextEdit::singleline(&mut self.filter).hint_text("id or label").desired_width(f32::INFINITY))
                .labelled_by(label.id)
                .on_hover_text("Show only items whose id or label contains this text");
        });
        ui.separator();
        let Workspace::Open { loaded, .. } = &self.workspace else {
            ui.label("No project is open.");
            return;
        };
        let project = &loaded.project;
        let filter = self.filter.to_lowercase();
        let mut clicked = None;
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
                    .color(kind_colour(kind));
                egui::CollapsingHeader::new(title).id_salt(kind).default_open(false).show(ui, |ui| {
                    if entries.is_empty() {
                        ui.label(RichText::new(format!("No {} yet", kind.plural_label().to_lowercase())).weak());
                    }
                    for (id, label) in entries {
                        let selected = self.selection.as_ref().is_some_and(|s| s.kind == kind && s.id == id);
                        let text = if label.is_empty() || label == id {
                            id.to_owned()
                        } else {
                            format!("{} · {id}", label.replace('\n', " "))
                        };
                        let response = ui.selectable_label(selected, format!("{}  {text}", kind_icon(kind)));
                        if response.clicked() {
                            clicked = Some(Selection { kind, id: id.to_owned() });
                        }
                    }
                });
            }
        });
        if clicked.is_some() {
            self.selection = clicked;
        }
    }

    fn item_ui(&mut self, ui: &mut egui::Ui) {
        match &self.workspace {
            Workspace::Failed { message } => {
                ui.heading(RichText::new("The project could not be opened").color(severity_colour(Severity::Error)));
                ui.label(message);
                ui.label("Fix the problem and press Reload.");
            }
            Workspace::Open { loaded, .. } => {
                let Some(selection) = &self.selection else {
                    ui.heading("Welcome");
                    ui.label("Choose an item in the project browser on the left to see its file.");
                    ui.label(format!("This project has {} items.", loaded.project.item_count()));
                    return;
                };
                let text = item_file_text(&loaded.project, selection);
                ui.horizontal(|ui| {
                    ui.label(RichText::new(kind_icon(selection.kind)).size(22.0).color(kind_colour(selection.kind)));
                    ui.heading(format!("{} {}", selection.kind.label(), selection.id));
                });
                if let Some(file) = loaded.sources.item_file(selection.kind, &selection.id) {
                    ui.label(RichText::new(file.display().to_string()).weak());
                }
                ui.separator();
                egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
                    ui.add(egui::Label::new(RichText::new(text).monospace()).selectable(true));
                });
            }
        }
    }

    fn diagnostics_ui(&mut self, ui: &mut egui::Ui) {
        let Workspace::Open { diagnostics, .. } = &self.workspace else {
            return;
        };
        let errors = diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
        let warnings = diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
        ui.horizontal(|ui| {
            ui.strong("Diagnostics");
            ui.label(
                RichText::new(format!("{} {errors}", severity_icon(Severity::Error)))
                    .color(severity_colour(Severity::Error)),
            );
            ui.label(
                RichText::new(format!("{} {warnings}", severity_icon(Severity::Warning)))
                    .color(severity_colour(Severity::Warning)),
            );
        });
        let mut clicked = None;
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            if diagnostics.is_empty() {
                ui.label(RichText::new("No problems found.").weak());
            }
            for diagnostic in diagnostics {
                ui.horizontal(|ui| {
                    ui.label(
                        RichText::new(severity_icon(diagnostic.severity)).color(severity_colour(diagnostic.severity)),
                    );
                    let response = ui.add(egui::Label::new(diagnostic.to_string()).sense(egui::Sense::click()));
                    if response.clicked() {
                        clicked.clone_from(&diagnostic.item);
                    }
                });
            }
        });
        if let Some((kind, id)) = clicked {
            self.selection = Some(Selection { kind, id });
        }
    }
}

/// The item's file text as saving would write it.
fn item_file_text(project: &Project, selection: &Selection) -> String {
    struct Find<'a> {
        selection: &'a Selection,
        text: Option<String>,
    }
    impl actforge_runtime::model::KindVisitor for Find<'_> {
        fn visit<T: actforge_runtime::model::Item>(&mut self, items: &actforge_runtime::model::Items<T>) {
            if T::KIND == self.selection.kind
                && let Some(item) = items.get(&self.selection.id)
            {
                self.text = Some(item_text(item).unwrap_or_else(|error| error.to_string()));
            }
        }
    }
    let mut find = Find { selection, text: None };
    project.visit_kinds(&mut find);
    find.text.unwrap_or_else(|| {
        format!("There is no {} `{}` any more.", selection.kind.label().to_lowercase(), selection.id)
    })
}

impl eframe::App for ActforgeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        ActforgeApp::ui(self, ui);
    }
}
