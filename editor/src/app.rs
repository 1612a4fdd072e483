//! The editor window: a docked workspace (project browser, item file, inspector, diagnostics,
//! log) over one [`Document`], with menus, a toolbar and a command palette fed by
//! [`UiCommand`].
//!
//! While drawing, the document is read-only: panels push [`Pending`] requests, and the app
//! carries them out after the frame (`apply_pending`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use actforge_runtime::project::{BundleFormat, Sources, export_bundle, item_path, save_folder};
use actforge_runtime::validate::validate;
use actforge_runtime::{Diagnostic, Kind, Project, Severity};
use egui::RichText;
use egui_dock::{DockArea, DockState, NodeIndex, SurfaceIndex, TabPath, TabViewer};
use serde::{Deserialize, Serialize};

use crate::commands::UiCommand;
use crate::document::{
    Document, History, ItemKey, Op, SharedItem, TextHit, get_item, item_from_ron, same_content, search_text, where_used,
};
use crate::formula_editor::FormulaWorkbench;
use crate::inspector::{InspectorAction, InspectorInput, InspectorState, inspector_ui};
use crate::map_view::editor::MapEditor;
use crate::preview::PreviewPanel;
use crate::recovery::{Recovery, recovery_ops};
use crate::simulate::SimPanel;
use crate::style::{install_fonts, kind_icon, kind_text_colour, severity_colour, severity_icon};
use crate::views::{GraphHighlight, GraphViews};
use crate::watch::FolderWatch;
use actforge_runtime::project::open_project;

/// The bundled demo project, opened when no project is named.
pub fn default_project_path() -> PathBuf {
    let relative = Path::new("content").join("lighthouse");
    if relative.is_dir() {
        return relative;
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(relative)
}

/// The selected item: its kind and id (not an index, so it survives edits and reloads).
pub type Selection = ItemKey;

/// Kinds with more items than this list them in their own scroll area, laying out only the
/// visible rows.
const BROWSER_ROWS_SHOWN_WHOLE: usize = 100;

/// A dock tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Tab {
    /// Items by kind.
    Project,
    /// The selected item's file text.
    Item,
    /// The form of the selected item.
    Inspector,
    /// Validation results.
    Diagnostics,
    /// What the editor did (saves, undo, errors).
    Log,
    /// Monte Carlo runs of the content, charted.
    Simulate,
    /// The formula workbench.
    Formula,
    /// The embedded runtime playing the edited content.
    Preview,
    /// The act-chain graph.
    ActGraph,
    /// The node-map editor.
    NodeMap,
    /// The tile-map editor.
    TileMap,
}

impl Tab {
    fn title(self) -> &'static str {
        match self {
            Tab::Project => "Project",
            Tab::Item => "Item",
            Tab::Inspector => "Inspector",
            Tab::Diagnostics => "Diagnostics",
            Tab::Log => "Log",
            Tab::Simulate => "Simulate",
            Tab::Formula => "Formula",
            Tab::Preview => "Preview",
            Tab::ActGraph => "Act chains",
            Tab::NodeMap => "Node map",
            Tab::TileMap => "Tile map",
        }
    }
}

/// The starting layout: browser left, item centre, inspector right, diagnostics and log below.
fn default_layout() -> DockState<Tab> {
    let mut dock = DockState::new(vec![Tab::Item, Tab::Preview, Tab::ActGraph, Tab::NodeMap, Tab::TileMap]);
    let surface = dock.main_surface_mut();
    let [centre, _browser] = surface.split_left(NodeIndex::root(), 0.22, vec![Tab::Project]);
    let [centre, _inspector] = surface.split_right(centre, 0.6, vec![Tab::Inspector, Tab::Formula]);
    let _ = surface.split_below(centre, 0.7, vec![Tab::Diagnostics, Tab::Log, Tab::Simulate]);
    dock
}

/// Something asked for while drawing, done after the frame.
#[derive(Clone, Debug)]
pub enum Pending {
    /// A command (menu, toolbar, palette, shortcut).
    Command(UiCommand),
    /// An inspector request (an edit, a rename, a selection).
    Inspector(InspectorAction),
    /// Select an item.
    Select(ItemKey),
    /// Open another project folder or bundle.
    OpenProject(PathBuf),
    /// Select an item and bring one of its fields into view in the inspector.
    SelectField(ItemKey, String),
    /// Add a line to the log.
    Log(String),
}

/// An open project.
struct Open {
    document: Document,
    sources: Sources,
    /// Files that did not load: never overwritten.
    protected: BTreeSet<PathBuf>,
    /// What loading reported (kept until the next load).
    load_diagnostics: Vec<Diagnostic>,
    /// Loading's diagnostics plus validation of the current revision.
    diagnostics: Vec<Diagnostic>,
    diagnostics_revision: u64,
}

impl Open {
    fn revalidate(&mut self, root: Option<&Path>) {
        let mut diagnostics = self.load_diagnostics.clone();
        diagnostics.extend(validate(self.document.project(), &self.sources, root));
        self.diagnostics = diagnostics;
        self.diagnostics_revision = self.document.revision();
    }
}

/// What the workspace shows: an open project, or why it could not be opened.
enum Workspace {
    Open(Box<Open>),
    Failed { message: String },
}

impl Workspace {
    /// The open project, if it opened.
    fn project(&self) -> Option<&Project> {
        match self {
            Workspace::Open(open) => Some(open.document.project()),
            Workspace::Failed { .. } => None,
        }
    }
}

/// What the palette window finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PaletteMode {
    /// Commands by name.
    Commands,
    /// Items by id or label (quick open).
    Items,
    /// Text inside items (find in project).
    Text,
}

/// The command palette, quick open or find in project, while shown.
struct Palette {
    mode: PaletteMode,
    query: String,
    focus: bool,
    /// Text hits for `searched` at document revision `searched_at` (worked out when either moves).
    hits: Vec<TextHit>,
    searched: String,
    searched_at: u64,
}

impl Palette {
    fn new(mode: PaletteMode) -> Self {
        Self { mode, query: String::new(), focus: true, hits: Vec::new(), searched: String::new(), searched_at: 0 }
    }
}

/// Most text hits listed by find in project.
const TEXT_HITS_SHOWN: usize = 200;

/// Settings kept between runs (eframe storage).
#[derive(Serialize, Deserialize)]
struct Settings {
    dark: bool,
    recent: Vec<PathBuf>,
    dock: Option<DockState<Tab>>,
}

const SETTINGS_KEY: &str = "actforge_editor";

/// The editor application.
pub struct ActforgeApp {
    path: PathBuf,
    workspace: Workspace,
    history: History,
    filter: String,
    selection: Option<ItemKey>,
    dock: DockState<Tab>,
    /// The whole layout while one pane is maximised (`dock` then holds that pane alone).
    restore_layout: Option<DockState<Tab>>,
    pending: Vec<Pending>,
    palette: Option<Palette>,
    inspector: InspectorState,
    log: Vec<String>,
    dark: bool,
    applied_theme: Option<bool>,
    recent: Vec<PathBuf>,
    title: String,
    /// A delete waiting for confirmation: the item and what still refers to it.
    confirm_delete: Option<(ItemKey, Vec<ItemKey>)>,
    /// Where unsaved edits are autosaved (none in tests that do not ask for it).
    recovery: Option<Recovery>,
    /// Seconds between autosaves of unsaved edits.
    autosave_seconds: f64,
    /// The revision last autosaved, and when.
    autosaved: Option<(u64, f64)>,
    /// Edits found in the recovery file at start, waiting for the designer's choice.
    offer_recovery: Option<Vec<Op>>,
    /// The project folder's watcher (none for bundles, or when watching failed).
    watch: Option<FolderWatch>,
    /// Items changed on disk while they had unsaved edits, waiting for the designer's choice.
    conflicts: Vec<Conflict>,
    /// The Simulate panel (its settings and last results).
    sim: SimPanel,
    /// The Formula tab.
    formula: FormulaWorkbench,
    /// The Preview tab: the runtime playing the document.
    preview: PreviewPanel,
    /// A folder dialog waiting for the designer.
    dialog: Option<FolderDialog>,
    /// The act-chain and node-map graph views.
    graphs: GraphViews,
    /// The Tile map tab.
    map_editor: MapEditor,
}

/// What a folder picked in a file dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FolderPurpose {
    New,
    Open,
    SaveAs,
}

/// A file dialog open on a worker thread: what it is for, and where its answer arrives.
struct FolderDialog {
    purpose: FolderPurpose,
    answer: std::sync::mpsc::Receiver<Option<PathBuf>>,
}

/// An item changed on disk while it had unsaved edits.
struct Conflict {
    key: ItemKey,
    /// The file's content (`None`: the file was removed).
    theirs: Option<SharedItem>,
    /// Both versions shown side by side.
    show_both: bool,
}

impl ActforgeApp {
    /// Opens the project (folder or bundle) at `path`; a project that fails to open shows why.
    pub fn new(path: PathBuf) -> Self {
        let workspace = Self::open(&path);
        let mut app = Self {
            path,
            workspace,
            history: History::new(),
            filter: String::new(),
            selection: None,
            dock: default_layout(),
            restore_layout: None,
            pending: Vec::new(),
            palette: None,
            inspector: InspectorState::default(),
            log: Vec::new(),
            dark: true,
            applied_theme: None,
            recent: Vec::new(),
            title: String::new(),
            confirm_delete: None,
            recovery: None,
            autosave_seconds: 3.0,
            autosaved: None,
            offer_recovery: None,
            watch: None,
            conflicts: Vec::new(),
            sim: SimPanel::default(),
            formula: FormulaWorkbench::default(),
            preview: PreviewPanel::default(),
            dialog: None,
            graphs: GraphViews::default(),
            map_editor: MapEditor::default(),
        };
        let opened = app.path.clone();
        app.note_opened(&opened);
        app.start_watching();
        app
    }

    fn start_watching(&mut self) {
        self.watch = None;
        if !(self.path.is_dir() && matches!(self.workspace, Workspace::Open(_))) {
            return;
        }
        match FolderWatch::start(&self.path) {
            Ok(watch) => self.watch = Some(watch),
            Err(error) => self.log.push(format!("Not watching {} for changes: {error}", self.path.display())),
        }
    }

    /// Takes in item files changed by someone else: reloads those without unsaved edits (one
    /// undoable step each), raises a conflict for the others. Our own saves match what the
    /// document knows is on disk and are ignored.
    fn check_disk(&mut self) {
        let Some(watch) = &self.watch else { return };
        let (keys, problem) = watch.changed_items();
        if let Some(problem) = problem {
            self.log.push(format!("Watching the project folder: {problem}"));
        }
        for key in keys {
            let file = self.path.join(item_path(key.kind, &key.id));
            let theirs = match std::fs::read_to_string(&file) {
                Ok(text) => match item_from_ron(key.kind, &text) {
                    Ok(item) if item.item_id() == key.id => Some(item),
                    Ok(_) => {
                        self.log.push(format!("{} changed on disk but names another id: not taken in", file.display()));
                        continue;
                    }
                    Err(error) => {
                        self.log.push(format!("{} changed on disk but does not read: {error}", file.display()));
                        continue;
                    }
                },
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
                Err(error) => {
                    self.log.push(format!("{} changed on disk but cannot be read: {error}", file.display()));
                    continue;
                }
            };
            let Workspace::Open(open) = &mut self.workspace else { return };
            if same_content(open.document.saved_content(&key).as_ref(), theirs.as_ref()) {
                continue;
            }
            if open.document.is_dirty(&key) {
                // A second event for the same change (editors write in steps) keeps the open
                // conflict as the designer left it.
                let known =
                    self.conflicts.iter().any(|c| c.key == key && same_content(c.theirs.as_ref(), theirs.as_ref()));
                if known {
                    continue;
                }
                self.conflicts.retain(|conflict| conflict.key != key);
                self.conflicts.push(Conflict { key, theirs, show_both: false });
            } else {
                self.take_theirs(&key, theirs, "Reload");
            }
        }
    }

    /// Makes the item what its file holds, as one undoable step, and records that as saved.
    fn take_theirs(&mut self, key: &ItemKey, theirs: Option<SharedItem>, verb: &str) {
        let op = Op::SetItem { key: key.clone(), item: theirs.clone() };
        if self.edit(op, &format!("{verb} {key} from disk"), None)
            && let Workspace::Open(open) = &mut self.workspace
        {
            open.document.set_saved_content(key, theirs);
        }
    }

    fn conflict_ui(&mut self, ctx: &egui::Context) {
        let Some(conflict) = self.conflicts.first_mut() else { return };
        let Workspace::Open(open) = &self.workspace else { return };
        let mine = get_item(open.document.project(), conflict.key.kind, &conflict.key.id);
        let mut decision = None;
        egui::Window::new("Changed on disk")
            .collapsible(false)
            .resizable(true)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                let what = if conflict.theirs.is_some() { "changed" } else { "was removed" };
                ui.label(format!("The {} {what} on disk while you have unsaved edits of it.", conflict.key));
                ui.horizontal(|ui| {
                    if ui.button("Keep mine").on_hover_text("Keep your edits; saving will overwrite the file").clicked()
                    {
                        decision = Some(false);
                    }
                    if ui.button("Take theirs").on_hover_text("Replace your edits with the file (undoable)").clicked() {
                        decision = Some(true);
                    }
                    ui.toggle_value(&mut conflict.show_both, "Show both");
                });
                if conflict.show_both {
                    let text =
                        |item: Option<&SharedItem>| item.map_or_else(|| "(no file)".to_owned(), |item| item.ron_text());
                    ui.columns(2, |columns| {
                        if let [left, right] = columns {
                            left.strong("Mine");
                            left.monospace(text(mine.as_ref()));
                            right.strong("On disk");
                            right.monospace(text(conflict.theirs.as_ref()));
                        }
                    });
                }
            });
        let Some(take) = decision else { return };
        let conflict = self.conflicts.remove(0);
        if take {
            self.take_theirs(&conflict.key, conflict.theirs, "Take");
        } else if let Workspace::Open(open) = &mut self.workspace {
            // The file is what it is now; the designer's version stays unsaved.
            open.document.set_saved_content(&conflict.key, conflict.theirs);
            self.log.push(format!("Kept your edits of the {}", conflict.key));
        }
    }

    /// As [`ActforgeApp::new`], with the layout, theme and recent projects of the last run.
    pub fn with_storage(path: PathBuf, storage: Option<&dyn eframe::Storage>) -> Self {
        let mut app = Self::new(path);
        if let Some(settings) = storage.and_then(|storage| eframe::get_value::<Settings>(storage, SETTINGS_KEY)) {
            app.dark = settings.dark;
            app.recent = settings.recent;
            if let Some(dock) = settings.dock {
                app.dock = dock;
            }
            let opened = app.path.clone();
            app.note_opened(&opened);
        }
        app.with_recovery(&Recovery::default_folder())
    }

    /// Autosaves unsaved edits into `folder`, and offers the edits a previous session left
    /// there (it did not end cleanly).
    #[must_use]
    pub fn with_recovery(mut self, folder: &Path) -> Self {
        self.attach_recovery(folder);
        self
    }

    fn attach_recovery(&mut self, folder: &Path) {
        let recovery = Recovery::new(folder, &self.path);
        self.offer_recovery = None;
        if let (Some(recovered), Some(project)) = (recovery.read(), self.project()) {
            let ops = recovery_ops(project, &recovered);
            if ops.is_empty() {
                recovery.clear();
            } else {
                self.offer_recovery = Some(ops);
            }
        }
        self.recovery = Some(recovery);
    }

    /// Sets the seconds between autosaves (tests use 0).
    pub fn set_autosave_seconds(&mut self, seconds: f64) {
        self.autosave_seconds = seconds;
    }

    fn open(path: &Path) -> Workspace {
        match open_project(path) {
            Ok(loaded) => {
                let mut open = Open {
                    document: Document::new(loaded.project),
                    sources: loaded.sources,
                    protected: loaded.protected,
                    load_diagnostics: loaded.diagnostics,
                    diagnostics: Vec::new(),
                    diagnostics_revision: 0,
                };
                open.revalidate(path.is_dir().then_some(path));
                Workspace::Open(Box::new(open))
            }
            Err(error) => Workspace::Failed { message: error.to_string() },
        }
    }

    fn note_opened(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        self.recent.retain(|known| *known != path);
        self.recent.insert(0, path);
        self.recent.truncate(10);
    }

    /// Prepares fonts and style; call once with the window's context.
    pub fn setup(ctx: &egui::Context) {
        install_fonts(ctx);
    }

    /// The project, if it opened.
    pub fn project(&self) -> Option<&Project> {
        self.document().map(Document::project)
    }

    /// The document, if the project opened.
    pub fn document(&self) -> Option<&Document> {
        match &self.workspace {
            Workspace::Open(open) => Some(&open.document),
            Workspace::Failed { .. } => None,
        }
    }

    /// The selected item.
    pub fn selection(&self) -> Option<&Selection> {
        self.selection.as_ref()
    }

    /// Selects an item (as clicking it in the browser does).
    pub fn select(&mut self, key: ItemKey) {
        self.selection = Some(key);
    }

    /// The graph views (act chains, node map): their highlight, state and requests.
    pub fn graph_views_mut(&mut self) -> &mut GraphViews {
        &mut self.graphs
    }

    /// The graph views, read-only.
    pub fn graph_views(&self) -> &GraphViews {
        &self.graphs
    }

    /// The Tile map tab's state (tools, view).
    pub fn map_editor(&self) -> &MapEditor {
        &self.map_editor
    }

    /// The undo history.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The log lines, oldest first.
    pub fn log(&self) -> &[String] {
        &self.log
    }

    /// The window title (project name, `●` while unsaved).
    pub fn title(&self) -> String {
        match &self.workspace {
            Workspace::Open(open) => open.document.title(),
            Workspace::Failed { .. } => "Actforge".to_owned(),
        }
    }

    /// Asks for a command, as a menu or shortcut would; done after the next frame.
    pub fn request(&mut self, command: UiCommand) {
        self.pending.push(Pending::Command(command));
    }

    /// Whether the dark theme is on.
    pub fn is_dark(&self) -> bool {
        self.dark
    }

    /// Draws the whole window into `ui`, then carries out what was asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.pending.extend(UiCommand::pressed(&ctx).into_iter().map(Pending::Command));
        if self.applied_theme != Some(self.dark) {
            ctx.set_theme(if self.dark { egui::Theme::Dark } else { egui::Theme::Light });
            self.applied_theme = Some(self.dark);
        }
        egui::Panel::top("menu_bar").show(ui, |ui| self.menu_bar_ui(ui));
        egui::Panel::top("toolbar").show(ui, |ui| self.toolbar_ui(ui));
        egui::Panel::bottom("status_bar").show(ui, |ui| self.status_bar_ui(ui));
        self.highlight_preview_in_graphs();
        egui::CentralPanel::default().frame(egui::Frame::NONE).show(ui, |ui| self.dock_ui(ui));
        self.palette_ui(&ctx);
        self.confirm_delete_ui(&ctx);
        self.recovery_ui(&ctx);
        self.conflict_ui(&ctx);
        self.apply_pending();
        self.take_dialog_answer(&ctx);
        self.check_disk();
        if self.watch.is_some() {
            // File events arrive on another thread: look again soon even without input.
            ctx.request_repaint_after(std::time::Duration::from_millis(500));
        }
        self.autosave(&ctx);
        let title = self.title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
    }

    /// The graph views show what the preview runs: its acts, its campaign node and the path walked.
    fn highlight_preview_in_graphs(&mut self) {
        if self.preview.game.session().is_none() {
            return;
        }
        let running = self.preview.game.highlight();
        self.graphs.set_highlight(&GraphHighlight {
            acts: running.acts.iter().map(ToString::to_string).collect(),
            nodes: running.node.iter().map(ToString::to_string).collect(),
            path: running.path.iter().map(ToString::to_string).collect(),
        });
    }

    fn command_button(&mut self, ui: &mut egui::Ui, command: UiCommand, enabled: bool) {
        let shortcut = command.shortcut_text(ui.ctx());
        let hover = if shortcut.is_empty() {
            command.description().to_owned()
        } else {
            format!("{} ({shortcut})", command.description())
        };
        let button = egui::Button::new(command.icon());
        let response =
            ui.add_enabled(enabled, button).on_hover_text(hover).on_disabled_hover_text(command.description());
        // The icon alone is not a name: give assistive technology (and tests) the command's label.
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, enabled, command.label()));
        if response.clicked() {
            self.pending.push(Pending::Command(command));
        }
    }

    fn menu_item(&mut self, ui: &mut egui::Ui, command: UiCommand) {
        let enabled = self.enabled(command);
        let button = egui::Button::new(format!("{}  {}", command.icon(), command.label()))
            .shortcut_text(command.shortcut_text(ui.ctx()));
        if ui.add_enabled(enabled, button).on_hover_text(command.description()).clicked() {
            self.pending.push(Pending::Command(command));
            ui.close();
        }
    }

    fn enabled(&self, command: UiCommand) -> bool {
        let open = matches!(self.workspace, Workspace::Open(_));
        match command {
            UiCommand::Save => self.document().is_some_and(Document::has_unsaved_changes),
            UiCommand::NewProject | UiCommand::OpenProject => self.dialog.is_none(),
            UiCommand::SaveAs => open && self.dialog.is_none(),
            UiCommand::Undo => self.history.undo_label().is_some(),
            UiCommand::Redo => self.history.redo_label().is_some(),
            UiCommand::Duplicate | UiCommand::Delete => open && self.selection.is_some(),
            UiCommand::QuickOpen
            | UiCommand::FindInProject
            | UiCommand::Simulate
            | UiCommand::FormulaWorkbench
            | UiCommand::ActGraph
            | UiCommand::NodeMap
            | UiCommand::TileMapEditor
            | UiCommand::PlayPause
            | UiCommand::StepPreview
            | UiCommand::RestartPreview => open,
            UiCommand::PlayFromHere => open && self.selection.as_ref().is_some_and(|key| key.kind == Kind::Act),
            UiCommand::Reload
            | UiCommand::CommandPalette
            | UiCommand::ToggleTheme
            | UiCommand::ResetLayout
            | UiCommand::MaximisePane => true,
        }
    }

    fn menu_bar_ui(&mut self, ui: &mut egui::Ui) {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("File", |ui| {
                self.menu_item(ui, UiCommand::NewProject);
                self.menu_item(ui, UiCommand::OpenProject);
                ui.separator();
                self.menu_item(ui, UiCommand::Save);
                self.menu_item(ui, UiCommand::SaveAs);
                self.menu_item(ui, UiCommand::Reload);
                ui.separator();
                ui.label(RichText::new("Recent projects").weak());
                for path in self.recent.clone() {
                    let current = path == self.path.canonicalize().unwrap_or_else(|_| self.path.clone());
                    let button =
                        egui::Button::new(format!("{}  {}", egui_phosphor::regular::FOLDER_OPEN, path.display()));
                    if ui.add_enabled(!current, button).on_hover_text("Open this project").clicked() {
                        self.pending.push(Pending::OpenProject(path));
                        ui.close();
                    }
                }
            });
            ui.menu_button("Edit", |ui| {
                self.menu_item(ui, UiCommand::Undo);
                self.menu_item(ui, UiCommand::Redo);
                ui.separator();
                self.menu_item(ui, UiCommand::Duplicate);
                self.menu_item(ui, UiCommand::Delete);
            });
            ui.menu_button("View", |ui| {
                self.menu_item(ui, UiCommand::CommandPalette);
                self.menu_item(ui, UiCommand::QuickOpen);
                self.menu_item(ui, UiCommand::FindInProject);
                ui.separator();
                self.menu_item(ui, UiCommand::Simulate);
                self.menu_item(ui, UiCommand::FormulaWorkbench);
                self.menu_item(ui, UiCommand::ActGraph);
                self.menu_item(ui, UiCommand::NodeMap);
                self.menu_item(ui, UiCommand::TileMapEditor);
                ui.separator();
                self.menu_item(ui, UiCommand::MaximisePane);
                self.menu_item(ui, UiCommand::ToggleTheme);
                self.menu_item(ui, UiCommand::ResetLayout);
            });
            ui.menu_button("Play", |ui| {
                self.menu_item(ui, UiCommand::PlayPause);
                self.menu_item(ui, UiCommand::StepPreview);
                self.menu_item(ui, UiCommand::RestartPreview);
                self.menu_item(ui, UiCommand::PlayFromHere);
            });
        });
    }

    fn toolbar_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            for command in [UiCommand::OpenProject, UiCommand::Save, UiCommand::Reload] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            for command in [UiCommand::Undo, UiCommand::Redo] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            for command in [UiCommand::PlayPause, UiCommand::StepPreview, UiCommand::RestartPreview] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            for command in [
                UiCommand::QuickOpen,
                UiCommand::FindInProject,
                UiCommand::CommandPalette,
                UiCommand::Simulate,
                UiCommand::MaximisePane,
                UiCommand::ToggleTheme,
            ] {
                self.command_button(ui, command, self.enabled(command));
            }
            ui.separator();
            let name = self.project().map_or_else(String::new, |project| project.manifest.name.clone());
            ui.label(RichText::new(name).strong());
            ui.label(RichText::new(self.path.display().to_string()).weak());
        });
    }

    fn status_bar_ui(&self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            let Workspace::Open(open) = &self.workspace else {
                ui.label("No project open");
                return;
            };
            let project = open.document.project();
            ui.label(format!("{} · {} items", project.manifest.name, project.item_count()));
            ui.separator();
            let unsaved = open.document.dirty_items().len() + usize::from(open.document.manifest_dirty());
            ui.label(if unsaved == 0 { "All saved".to_owned() } else { format!("{unsaved} unsaved") });
            if self.is_maximised() {
                ui.separator();
                let shortcut = UiCommand::MaximisePane.shortcut_text(ui.ctx());
                ui.label(format!(
                    "{} One pane maximised: {shortcut} restores the others",
                    egui_phosphor::regular::ARROWS_OUT
                ));
            }
            ui.separator();
            let errors = open.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
            let warnings = open.diagnostics.iter().filter(|d| d.severity == Severity::Warning).count();
            ui.label(
                RichText::new(format!("{} {errors}", severity_icon(Severity::Error)))
                    .color(severity_colour(Severity::Error)),
            );
            ui.label(
                RichText::new(format!("{} {warnings}", severity_icon(Severity::Warning)))
                    .color(severity_colour(Severity::Warning)),
            );
            if let Some(session) = self.preview.game.session() {
                ui.separator();
                let state = if self.preview.game.is_playing() { "playing" } else { "paused" };
                ui.label(format!(
                    "Preview {state} · tick {} · seed {} · hash {:016x}",
                    session.state().tick,
                    self.preview.game.seed(),
                    session.state_hash()
                ));
            }
        });
    }

    fn dock_ui(&mut self, ui: &mut egui::Ui) {
        let Self {
            dock,
            workspace,
            filter,
            selection,
            inspector,
            log,
            pending,
            sim,
            formula,
            preview,
            graphs,
            path,
            map_editor,
            ..
        } = self;
        let mut viewer = Tabs {
            workspace,
            filter,
            selection,
            inspector,
            log,
            pending,
            sim,
            formula,
            preview,
            graphs,
            path,
            map_editor,
        };
        DockArea::new(dock)
            .style(egui_dock::Style::from_egui(ui.style()))
            .show_close_buttons(false)
            .show_leaf_close_all_buttons(false)
            .show_inside(ui, &mut viewer);
    }

    fn palette_ui(&mut self, ctx: &egui::Context) {
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
                                    chosen = Some(Pending::Select(ItemKey::new(kind, id)));
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
                                chosen = Some(Pending::Command(command));
                            }
                        }
                    }
                });
            });
        if let Some(chosen) = chosen {
            self.pending.push(chosen);
            close = true;
        }
        if close {
            self.palette = None;
        }
    }

    /// Carries out everything asked for during the frame, in order.
    fn apply_pending(&mut self) {
        for pending in std::mem::take(&mut self.pending) {
            match pending {
                Pending::Command(command) => self.run(command),
                Pending::Select(key) => self.selection = Some(key),
                Pending::OpenProject(path) => self.open_project(path),
                Pending::Log(line) => self.log.push(line),
                Pending::SelectField(key, field) => {
                    self.inspector.jump_to(key.clone(), field);
                    self.selection = Some(key);
                    self.show_tab(Tab::Inspector);
                }
                Pending::Inspector(action) => match action {
                    InspectorAction::Edit { op, label, gesture } => {
                        self.edit(op, &label, gesture);
                    }
                    InspectorAction::EndGesture => self.history.end_gesture(),
                    InspectorAction::Select(key) => self.selection = Some(key),
                    InspectorAction::Rename { key, to } => {
                        let label = format!("Rename {key} to `{to}`");
                        let renamed = ItemKey::new(key.kind, to.clone());
                        if self.edit(Op::Rename { key, to }, &label, None) {
                            self.selection = Some(renamed);
                        }
                    }
                },
            }
        }
        let root = self.path.is_dir().then(|| self.path.clone());
        if let Workspace::Open(open) = &mut self.workspace
            && open.diagnostics_revision != open.document.revision()
        {
            open.revalidate(root.as_deref());
        }
    }

    /// Applies an edit through the history; logs and returns whether it applied.
    fn edit(&mut self, op: Op, label: &str, gesture: Option<u64>) -> bool {
        let Workspace::Open(open) = &mut self.workspace else { return false };
        match self.history.apply(&mut open.document, op, label, gesture) {
            Ok(()) => {
                if gesture.is_none() {
                    self.log.push(label.to_owned());
                }
                true
            }
            Err(error) => {
                self.log.push(format!("{label} failed: {error}"));
                false
            }
        }
    }

    fn run(&mut self, command: UiCommand) {
        match command {
            UiCommand::Save => self.save(),
            UiCommand::Reload => self.reload(),
            UiCommand::Undo | UiCommand::Redo => {
                let Workspace::Open(open) = &mut self.workspace else { return };
                let result = if command == UiCommand::Undo {
                    self.history.undo(&mut open.document)
                } else {
                    self.history.redo(&mut open.document)
                };
                match result {
                    Ok(Some(label)) => self.log.push(format!("{}: {label}", command.label())),
                    Ok(None) => {}
                    Err(error) => self.log.push(format!("{} failed: {error}", command.label())),
                }
            }
            UiCommand::CommandPalette => self.palette = Some(Palette::new(PaletteMode::Commands)),
            UiCommand::QuickOpen => self.palette = Some(Palette::new(PaletteMode::Items)),
            UiCommand::FindInProject => self.palette = Some(Palette::new(PaletteMode::Text)),
            UiCommand::Duplicate => self.duplicate(),
            UiCommand::Delete => self.delete(),
            UiCommand::ToggleTheme => self.dark = !self.dark,
            UiCommand::ResetLayout => {
                self.dock = default_layout();
                self.restore_layout = None;
            }
            UiCommand::MaximisePane => self.toggle_maximised(),
            UiCommand::Simulate => self.simulate(),
            UiCommand::NewProject => self.ask_folder(FolderPurpose::New, "New project: choose an empty folder"),
            UiCommand::OpenProject => self.ask_folder(FolderPurpose::Open, "Open a project folder"),
            UiCommand::SaveAs => self.ask_folder(FolderPurpose::SaveAs, "Save the project into a new, empty folder"),
            UiCommand::FormulaWorkbench => self.show_tab(Tab::Formula),
            UiCommand::PlayPause => {
                self.show_tab(Tab::Preview);
                let playing = self.preview.game.is_playing();
                self.preview.game.set_playing(!playing);
            }
            UiCommand::StepPreview => {
                self.show_tab(Tab::Preview);
                self.preview.game.step();
            }
            UiCommand::RestartPreview => {
                self.show_tab(Tab::Preview);
                self.preview.game.restart();
            }
            UiCommand::PlayFromHere => self.play_from_here(),
            UiCommand::ActGraph => self.show_tab(Tab::ActGraph),
            UiCommand::NodeMap => self.show_tab(Tab::NodeMap),
            UiCommand::TileMapEditor => self.show_tab(Tab::TileMap),
        }
    }

    fn duplicate(&mut self) {
        let (Some(key), Some(project)) = (self.selection.clone(), self.project()) else { return };
        let Some(item) = get_item(project, key.kind, &key.id) else { return };
        let id = (2..=u32::MAX)
            .map(|n| format!("{}_{n}", key.id))
            .find(|id| !project.contains(key.kind, id))
            .unwrap_or_else(|| format!("{}_copy", key.id));
        let copy = ItemKey::new(key.kind, id.clone());
        if self.edit(Op::put(item.with_id(&id)), &format!("Duplicate {key} as `{id}`"), None) {
            self.selection = Some(copy);
        }
    }

    /// Deletes the selected item; while other items still refer to it, asks first and lists them.
    fn delete(&mut self) {
        let (Some(key), Some(project)) = (self.selection.clone(), self.project()) else { return };
        let users: BTreeSet<ItemKey> =
            where_used(project, &key).into_iter().map(|(user, _)| user).filter(|user| *user != key).collect();
        if users.is_empty() {
            self.delete_now(key);
        } else {
            self.confirm_delete = Some((key, users.into_iter().collect()));
        }
    }

    #[allow(clippy::needless_pass_by_value)] // the key is taken out of the confirmation it answers
    fn delete_now(&mut self, key: ItemKey) {
        if self.edit(Op::remove(key.clone()), &format!("Delete {key}"), None) && self.selection.as_ref() == Some(&key) {
            self.selection = None;
        }
    }

    fn confirm_delete_ui(&mut self, ctx: &egui::Context) {
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
        if let Some(delete) = decision
            && let Some((key, _)) = self.confirm_delete.take()
            && delete
        {
            self.delete_now(key);
        }
    }

    /// Writes the project to the recovery file every few seconds while it has unsaved edits;
    /// removes the file once nothing is unsaved.
    fn autosave(&mut self, ctx: &egui::Context) {
        let (Some(recovery), Workspace::Open(open)) = (&self.recovery, &self.workspace) else { return };
        if self.offer_recovery.is_some() {
            // The file holds edits the designer has not decided about yet: keep it as it is.
            return;
        }
        if !open.document.has_unsaved_changes() {
            if self.autosaved.take().is_some() {
                recovery.clear();
            }
            return;
        }
        let now = ctx.input(|input| input.time);
        let revision = open.document.revision();
        match self.autosaved {
            Some((saved, _)) if saved == revision => return,
            Some((_, at)) if now - at < self.autosave_seconds => {
                ctx.request_repaint_after(std::time::Duration::from_secs_f64(self.autosave_seconds - (now - at)));
                return;
            }
            _ => {}
        }
        match recovery.write(open.document.project()) {
            Ok(()) => self.autosaved = Some((revision, now)),
            Err(error) => {
                self.log.push(format!("Autosave to {} failed: {error}", recovery.file().display()));
                // Try again after the interval, not every frame.
                self.autosaved = Some((u64::MAX, now));
            }
        }
    }

    fn recovery_ui(&mut self, ctx: &egui::Context) {
        let Some(ops) = &self.offer_recovery else { return };
        let mut decision = None;
        egui::Window::new("Unsaved edits found")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(format!(
                    "The last session ended with {} unsaved changes to this project. Recover them? (Recovering can be undone; nothing is written until you save.)",
                    ops.len()
                ));
                ui.horizontal(|ui| {
                    if ui.button("Recover edits").clicked() {
                        decision = Some(true);
                    }
                    if ui.button("Discard them").clicked() {
                        decision = Some(false);
                    }
                });
            });
        let Some(recover) = decision else { return };
        let Some(ops) = self.offer_recovery.take() else { return };
        if recover {
            self.edit(Op::Batch(ops), "Recover unsaved edits", None);
        } else if let Some(recovery) = &self.recovery {
            recovery.clear();
            self.log.push("Discarded the unsaved edits of the last session".to_owned());
        }
    }

    /// Writes what changed since the last save, each file atomically; files of removed or
    /// renamed items are deleted. Bundles are rewritten whole.
    fn save(&mut self) {
        let Workspace::Open(open) = &mut self.workspace else { return };
        let project = open.document.project();
        let result = if self.path.is_dir() {
            save_folder(project, &self.path, &open.protected).map(|report| {
                let mut removed = 0;
                for key in open.document.dirty_items() {
                    let file = self.path.join(item_path(key.kind, &key.id));
                    if !project.contains(key.kind, &key.id)
                        && !open.protected.contains(&file)
                        && std::fs::remove_file(&file).is_ok()
                    {
                        removed += 1;
                    }
                }
                format!("Saved: {} files written, {removed} removed", report.written.len())
            })
        } else {
            let json = self.path.extension().is_some_and(|ext| ext.eq_ignore_ascii_case("json"));
            let format = if json { BundleFormat::Json } else { BundleFormat::Ron };
            export_bundle(project, &self.path, format).map(|()| format!("Saved the bundle {}", self.path.display()))
        };
        match result {
            Ok(message) => {
                open.document.mark_saved();
                self.log.push(message);
            }
            Err(error) => self.log.push(format!("Save failed: {error}")),
        }
    }

    /// Whether one pane fills the window (the rest of the layout is kept aside).
    pub fn is_maximised(&self) -> bool {
        self.restore_layout.is_some()
    }

    /// Lets the focused pane fill the window, or puts the whole layout back with the tab that
    /// was in front still in front (and any tab opened meanwhile added to it).
    fn toggle_maximised(&mut self) {
        if let Some(whole) = self.restore_layout.take() {
            let front = self.dock.find_active_focused().map(|(_, tab)| *tab);
            let shown: Vec<Tab> = self.dock.iter_all_tabs().map(|(_, tab)| *tab).collect();
            self.dock = whole;
            for tab in shown {
                if self.dock.find_tab(&tab).is_none() {
                    self.dock.push_to_focused_leaf(tab);
                }
            }
            if let Some(front) = front {
                self.show_tab(front);
            }
            return;
        }
        // With no pane focused yet, the centre's (where the item and its editors open).
        let focused = self.dock.focused_leaf().or_else(|| self.dock.find_tab(&Tab::Item).map(TabPath::node_path));
        let Some(leaf) = focused.and_then(|path| self.dock.leaf(path).ok()) else { return };
        let (tabs, active) = (leaf.tabs().to_vec(), leaf.active);
        let mut alone = DockState::new(tabs);
        let _ = alone.set_active_tab(TabPath::new(SurfaceIndex::main(), NodeIndex::root(), active));
        self.restore_layout = Some(std::mem::replace(&mut self.dock, alone));
    }

    /// Brings a tab to the front, adding it back if the layout lost it.
    fn show_tab(&mut self, tab: Tab) {
        if let Some(found) = self.dock.find_tab(&tab) {
            // Found just now, so it is there to activate; its pane is where the designer now
            // works (what "Maximise" maximises).
            let _ = self.dock.set_active_tab(found);
            self.dock.set_focused_node_and_surface(found.node_path());
        } else {
            self.dock.push_to_focused_leaf(tab);
        }
    }

    /// Starts the preview with the selected act running (nodes: the preview's campaign map offers
    /// "Play from here" on each node).
    fn play_from_here(&mut self) {
        let Some(key) = self.selection.clone().filter(|key| key.kind == Kind::Act) else { return };
        let line = format!("run {}", key.id);
        self.show_tab(Tab::Preview);
        if let Workspace::Open(open) = &self.workspace {
            self.preview.game.sync(open.document.project(), open.document.revision());
        }
        self.preview.game.play_from(line.clone());
        self.log.push(format!("Preview: play from `{line}`"));
    }

    /// Shows the Simulate panel and starts a run of the current content.
    fn simulate(&mut self) {
        self.show_tab(Tab::Simulate);
        if let Workspace::Open(open) = &self.workspace {
            self.sim.start(open.document.project());
            self.log.push("Simulation started".to_owned());
        }
    }

    /// Opens rfd's folder dialog (the desktop portal) on a worker thread; the answer is taken
    /// in by a later frame, so the editor keeps drawing meanwhile.
    fn ask_folder(&mut self, purpose: FolderPurpose, title: &str) {
        if self.dialog.is_some() {
            return;
        }
        let (sender, answer) = std::sync::mpsc::channel();
        let dialog = rfd::AsyncFileDialog::new().set_title(title);
        let spawned = std::thread::Builder::new().name("folder dialog".to_owned()).spawn(move || {
            let picked = pollster::block_on(dialog.pick_folder()).map(|folder| folder.path().to_owned());
            // The editor may have closed meanwhile: nobody to tell.
            let _ = sender.send(picked);
        });
        match spawned {
            Ok(_) => self.dialog = Some(FolderDialog { purpose, answer }),
            Err(error) => self.log.push(format!("Could not open a file dialog: {error}")),
        }
    }

    /// Carries out what the folder dialog answered, once it has.
    fn take_dialog_answer(&mut self, ctx: &egui::Context) {
        let Some(dialog) = &self.dialog else { return };
        let answer = match dialog.answer.try_recv() {
            Ok(answer) => answer,
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                ctx.request_repaint_after(std::time::Duration::from_millis(200));
                return;
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
        };
        let purpose = dialog.purpose;
        self.dialog = None;
        match (purpose, answer) {
            (_, None) => self.log.push("No folder chosen".to_owned()),
            (FolderPurpose::New, Some(folder)) => self.new_project_in(folder),
            (FolderPurpose::Open, Some(folder)) => self.open_project(folder),
            (FolderPurpose::SaveAs, Some(folder)) => self.save_as(folder),
        }
    }

    /// Creates an empty project in `folder` (which must be new or empty) and opens it.
    pub fn new_project_in(&mut self, folder: PathBuf) {
        if self.document().is_some_and(Document::has_unsaved_changes) {
            self.log.push("Not creating a project: there are unsaved changes (save or undo them first)".to_owned());
            return;
        }
        match actforge_runtime::project::create_project(&folder) {
            Ok(_) => self.open_project(folder),
            Err(error) => self.log.push(format!("New project failed: {error}")),
        }
    }

    /// Writes the whole project, unsaved edits included, into `folder` (which must be new or
    /// empty), then goes on editing it there; the original files stay as they were.
    pub fn save_as(&mut self, folder: PathBuf) {
        let Workspace::Open(open) = &mut self.workspace else { return };
        match actforge_runtime::project::save_new_folder(open.document.project(), &folder) {
            Ok(report) => {
                open.document.mark_saved();
                self.log.push(format!("Saved as {}: {} files written", folder.display(), report.written.len()));
                if let Some(recovery) = &self.recovery {
                    // The edits are on disk now: the recovery file of the old place is done.
                    recovery.clear();
                }
                self.open_project(folder);
            }
            Err(error) => self.log.push(format!("Save as failed: {error}")),
        }
    }

    /// Opens another project in place of this one; refused (the log says why) while there are
    /// unsaved edits, which would otherwise be lost.
    pub fn open_project(&mut self, path: PathBuf) {
        if self.document().is_some_and(Document::has_unsaved_changes) {
            self.log
                .push(format!("Not opening {}: there are unsaved changes (save or undo them first)", path.display()));
            return;
        }
        self.sim.cancel();
        self.workspace = Self::open(&path);
        self.preview.game.reset();
        self.path = path;
        self.selection = None;
        self.history.clear();
        self.conflicts.clear();
        self.autosaved = None;
        let opened = self.path.clone();
        self.note_opened(&opened);
        self.start_watching();
        self.log.push(format!("Opened {}", self.path.display()));
        // The recovery file is per project: follow the new one, and offer what it holds.
        if let Some(folder) = self.recovery.take().and_then(|recovery| recovery.folder().map(Path::to_owned)) {
            self.attach_recovery(&folder);
        }
    }

    /// The inspector's field marked by the last diagnostic clicked, once shown.
    pub fn inspector_jumped_to(&self) -> Option<&str> {
        self.inspector.jumped_to()
    }

    /// The Simulate panel.
    pub fn sim_panel(&self) -> &SimPanel {
        &self.sim
    }

    /// The Preview tab.
    pub fn preview(&self) -> &PreviewPanel {
        &self.preview
    }

    /// Reads the project from disk again. With unsaved edits nothing is replaced (they would
    /// be lost): the log says so.
    fn reload(&mut self) {
        if self.document().is_some_and(Document::has_unsaved_changes) {
            self.log.push("Reload skipped: there are unsaved changes (save or undo them first)".to_owned());
            return;
        }
        self.workspace = Self::open(&self.path);
        self.preview.game.reset();
        self.history.clear();
        self.conflicts.clear();
        self.start_watching();
        self.log.push(format!("Reloaded {}", self.path.display()));
    }
}

/// Find in project's hits for the palette's query (searched again when the query or the
/// document moved); the hit clicked (or the first, on Enter) is selected.
fn text_hits_ui(ui: &mut egui::Ui, palette: &mut Palette, document: &Document, enter: bool) -> Option<Pending> {
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
            chosen = Some(Pending::Select(hit.key.clone()));
        }
    }
    if palette.hits.len() >= TEXT_HITS_SHOWN {
        ui.label(RichText::new(format!("Only the first {TEXT_HITS_SHOWN} are shown.")).weak());
    }
    chosen
}

/// The dock's view of the app while drawing (the document read-only).
struct Tabs<'a> {
    workspace: &'a Workspace,
    filter: &'a mut String,
    selection: &'a Option<ItemKey>,
    inspector: &'a mut InspectorState,
    log: &'a [String],
    pending: &'a mut Vec<Pending>,
    sim: &'a mut SimPanel,
    formula: &'a mut FormulaWorkbench,
    preview: &'a mut PreviewPanel,
    graphs: &'a mut GraphViews,
    path: &'a Path,
    map_editor: &'a mut MapEditor,
}

impl TabViewer for Tabs<'_> {
    type Tab = Tab;

    fn title(&mut self, tab: &mut Tab) -> egui::WidgetText {
        tab.title().into()
    }

    fn id(&mut self, tab: &mut Tab) -> egui::Id {
        egui::Id::new(("dock_tab", tab.title()))
    }

    fn ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab) {
        match tab {
            Tab::Project => self.browser_ui(ui),
            Tab::Item => self.item_ui(ui),
            Tab::Inspector => self.inspector_ui(ui),
            Tab::Diagnostics => self.diagnostics_ui(ui),
            Tab::Log => self.log_ui(ui),
            Tab::Formula => {
                let project = self.workspace.project();
                let mut actions = Vec::new();
                self.formula.ui(ui, project, self.selection.as_ref(), &mut actions);
                self.pending.extend(actions.into_iter().map(Pending::Inspector));
            }
            Tab::Preview => {
                let document = match self.workspace {
                    Workspace::Open(open) => Some(&open.document),
                    Workspace::Failed { .. } => None,
                };
                let mut select = Vec::new();
                self.preview.set_project_folder(self.path);
                self.preview.ui(ui, document, &mut select);
                self.pending.extend(select.into_iter().map(Pending::Select));
            }
            Tab::TileMap => {
                let mut actions = Vec::new();
                let document = match self.workspace {
                    Workspace::Open(open) => Some(&open.document),
                    Workspace::Failed { .. } => None,
                };
                self.map_editor.ui(ui, document, self.path, self.selection.as_ref(), &mut actions);
                self.pending.extend(actions.into_iter().map(Pending::Inspector));
            }
            Tab::Simulate => {
                let project = self.workspace.project();
                let mut select = Vec::new();
                self.sim.ui(ui, project, &mut select);
                self.pending.extend(select.into_iter().map(Pending::Select));
            }
            Tab::ActGraph | Tab::NodeMap => {
                let Workspace::Open(open) = self.workspace else {
                    ui.label("No project is open.");
                    return;
                };
                let (mut actions, mut log) = (Vec::new(), Vec::new());
                if *tab == Tab::ActGraph {
                    self.graphs.act_ui(ui, &open.document, self.selection.as_ref(), self.path, &mut actions, &mut log);
                } else {
                    self.graphs.node_map_ui(ui, &open.document, self.selection.as_ref(), &mut actions, &mut log);
                }
                self.pending.extend(actions.into_iter().map(Pending::Inspector));
                self.pending.extend(log.into_iter().map(Pending::Log));
            }
        }
    }

    fn is_closeable(&self, _tab: &Tab) -> bool {
        false
    }
}

impl Tabs<'_> {
    fn browser_ui(&mut self, ui: &mut egui::Ui) {
        ui.horizontal(|ui| {
            ui.label(egui_phosphor::regular::MAGNIFYING_GLASS);
            let label = ui.label("Filter");
            ui.add(egui::TextEdit::singleline(self.filter).hint_text("id or label").desired_width(f32::INFINITY))
                .labelled_by(label.id)
                .on_hover_text("Show only items whose id or label contains this text");
        });
        ui.separator();
        let Workspace::Open(open) = self.workspace else {
            ui.label("No project is open.");
            return;
        };
        let project = open.document.project();
        let filter = self.filter.to_lowercase();
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
                            let selected = self.selection.as_ref() == Some(&key);
                            let dirty = if open.document.is_dirty(&key) { " ●" } else { "" };
                            let text = if label.is_empty() || label == id {
                                (*id).to_owned()
                            } else {
                                format!("{} · {id}", label.replace('\n', " "))
                            };
                            let response = ui.selectable_label(selected, format!("{}  {text}{dirty}", kind_icon(kind)));
                            if response.clicked() {
                                self.pending.push(Pending::Select(key));
                            }
                            if response.double_clicked() && kind == Kind::TileMap {
                                self.pending.push(Pending::Command(UiCommand::TileMapEditor));
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

    fn item_ui(&mut self, ui: &mut egui::Ui) {
        match self.workspace {
            Workspace::Failed { message } => {
                ui.heading(RichText::new("The project could not be opened").color(severity_colour(Severity::Error)));
                ui.label(message.as_str());
                ui.label("Fix the problem and press Reload.");
            }
            Workspace::Open(open) => {
                let Some(selection) = self.selection else {
                    ui.heading("Welcome");
                    ui.label("Choose an item in the project browser on the left, or press Ctrl+P to find one by name.");
                    ui.label(format!("This project has {} items.", open.document.project().item_count()));
                    return;
                };
                let Some(item) = get_item(open.document.project(), selection.kind, &selection.id) else {
                    ui.label(format!("There is no {selection} any more."));
                    return;
                };
                ui.horizontal(|ui| {
                    ui.label(
                        RichText::new(kind_icon(selection.kind))
                            .size(22.0)
                            .color(kind_text_colour(selection.kind, ui.visuals())),
                    );
                    ui.heading(format!("{} {}", selection.kind.label(), selection.id));
                });
                if let Some(file) = open.sources.item_file(selection.kind, &selection.id) {
                    ui.label(RichText::new(file.display().to_string()).weak());
                }
                ui.separator();
                egui::ScrollArea::both().auto_shrink([false, false]).show(ui, |ui| {
                    ui.add(egui::Label::new(RichText::new(item.ron_text()).monospace()).selectable(true));
                });
            }
        }
    }

    fn inspector_ui(&mut self, ui: &mut egui::Ui) {
        let Workspace::Open(open) = self.workspace else {
            ui.label("No project is open.");
            return;
        };
        let Some(key) = self.selection else {
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
        inspector_ui(ui, &input, self.inspector, &mut actions);
        self.pending.extend(actions.into_iter().map(Pending::Inspector));
    }

    fn diagnostics_ui(&mut self, ui: &mut egui::Ui) {
        let Workspace::Open(open) = self.workspace else { return };
        let diagnostics = &open.diagnostics;
        if diagnostics.is_empty() {
            ui.label(RichText::new("No problems found.").weak());
        }
        let row_height = ui.spacing().interact_size.y;
        egui::ScrollArea::vertical().auto_shrink([false, false]).show_rows(
            ui,
            row_height,
            diagnostics.len(),
            |ui, range| {
                for diagnostic in diagnostics.get(range).unwrap_or_default() {
                    ui.horizontal(|ui| {
                        ui.label(
                            RichText::new(severity_icon(diagnostic.severity))
                                .color(severity_colour(diagnostic.severity)),
                        );
                        // Files named from the project folder; one line each (the rows are
                        // fixed-height for long lists), the whole text on hover.
                        let mut shown = diagnostic.clone();
                        if let Some(inside) =
                            diagnostic.file.as_ref().and_then(|file| file.strip_prefix(self.path).ok())
                        {
                            shown.file = Some(inside.to_path_buf());
                        }
                        let text = shown.to_string();
                        let response = ui
                            .add(egui::Label::new(text.as_str()).truncate().sense(egui::Sense::click()))
                            .on_hover_text(text.as_str());
                        if response.clicked()
                            && let Some((kind, id)) = &diagnostic.item
                        {
                            let key = ItemKey::new(*kind, id.clone());
                            self.pending.push(match &diagnostic.field {
                                Some(field) => Pending::SelectField(key, field.clone()),
                                None => Pending::Select(key),
                            });
                        }
                    });
                }
            },
        );
    }

    fn log_ui(&mut self, ui: &mut egui::Ui) {
        egui::ScrollArea::vertical().auto_shrink([false, false]).stick_to_bottom(true).show(ui, |ui| {
            if self.log.is_empty() {
                ui.label(RichText::new("Nothing happened yet.").weak());
            }
            for line in self.log {
                ui.label(line.as_str());
            }
        });
    }
}

impl eframe::App for ActforgeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        ActforgeApp::ui(self, ui);
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let settings = Settings {
            dark: self.dark,
            recent: self.recent.clone(),
            dock: Some(self.restore_layout.as_ref().unwrap_or(&self.dock).clone()),
        };
        eframe::set_value(storage, SETTINGS_KEY, &settings);
    }
}
