//! The editor window's frame loop. While a frame is drawn the document is read-only: the
//! menus, panels, views and modal windows send [`Request`]s into one sink, and
//! [`ActforgeApp::ui`] carries them out after the frame (`apply_requests`), then does the
//! frame's file work (dialog answers, changes on disk, autosave).
//!
//! What each part draws lives with it: `layout` (the dock), `panels/` (browser, inspector,
//! diagnostics, log, search, simulate, menus), `views/` (graphs, tile map, formula),
//! `preview/`; what a request does lives in `actions` and `io/`.

use std::path::{Path, PathBuf};

use actforge_runtime::Project;
use egui_dock::DockState;
use serde::{Deserialize, Serialize};

use crate::commands::UiCommand;
use crate::document::{Document, History, ItemKey, Op};
use crate::io::dialogs::FileDialogs;
use crate::io::import::ImportJob;
use crate::io::quit::QuitPrompt;
use crate::io::recovery::Recovery;
use crate::io::watch::{Conflict, FolderWatch};
use crate::layout::{Tab, default_layout};
use crate::panels::inspector::{InspectorAction, InspectorState};
use crate::panels::item::ItemTextState;
use crate::panels::search::Palette;
use crate::panels::simulate::SimPanel;
use crate::preview::PreviewPanel;
use crate::requests::{Request, Requests};
use crate::style::install_fonts;
use crate::views::formula::FormulaWorkbench;
use crate::views::map::editor::MapEditor;
use crate::views::table::TableView;
use crate::views::{GraphHighlight, GraphViews};
use crate::workspace::Workspace;

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

/// Settings kept between runs (eframe storage). Every field has a default, so a field added
/// later (or one a newer build wrote) never wipes the others.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The dark theme (else light).
    pub dark: bool,
    /// Recently opened projects, newest first.
    pub recent: Vec<PathBuf>,
    /// The dock layout as RON text, read leniently: a layout this build cannot read (a tab
    /// renamed since) falls back to the default layout instead of losing the other settings.
    pub layout: String,
    /// Always use the built-in file dialog, even when the desktop portal offers its own.
    pub builtin_file_dialog: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self { dark: true, recent: Vec::new(), layout: String::new(), builtin_file_dialog: false }
    }
}

impl Settings {
    /// The stored dock layout, if there is one this build can read.
    pub fn dock(&self) -> Option<DockState<Tab>> {
        ron::from_str(&self.layout).ok()
    }

    /// Stores `dock` as the layout.
    pub fn set_dock(&mut self, dock: &DockState<Tab>) {
        // A layout that cannot be written is only a layout: the default one comes back.
        self.layout = ron::to_string(dock).unwrap_or_default();
    }
}

/// The eframe storage key of [`Settings`].
pub const SETTINGS_KEY: &str = "actforge_editor";

/// The editor application.
pub struct ActforgeApp {
    pub(crate) path: PathBuf,
    pub(crate) workspace: Workspace,
    pub(crate) history: History,
    pub(crate) filter: String,
    pub(crate) selection: Option<ItemKey>,
    pub(crate) dock: DockState<Tab>,
    /// The whole layout while one pane is maximised (`dock` then holds that pane alone).
    pub(crate) restore_layout: Option<DockState<Tab>>,
    /// Where the pointer was in the last frame (F11 maximises the pane under it).
    pub(crate) pointer_at: Option<egui::Pos2>,
    /// What was asked for during the frame, carried out after it.
    pub(crate) requests: Requests,
    pub(crate) palette: Option<Palette>,
    pub(crate) inspector: InspectorState,
    /// The Item tab's text edit.
    pub(crate) item_text: ItemTextState,
    pub(crate) log: Vec<String>,
    pub(crate) dark: bool,
    pub(crate) applied_theme: Option<bool>,
    pub(crate) recent: Vec<PathBuf>,
    pub(crate) title: String,
    /// A delete waiting for confirmation: the item and what still refers to it.
    pub(crate) confirm_delete: Option<(ItemKey, Vec<ItemKey>)>,
    /// A rename asked for from the browser or F2: the item and the id being typed.
    pub(crate) renaming: Option<(ItemKey, String)>,
    /// Where unsaved edits are autosaved (none in tests that do not ask for it).
    pub(crate) recovery: Option<Recovery>,
    /// Seconds between autosaves of unsaved edits.
    pub(crate) autosave_seconds: f64,
    /// The revision last autosaved, and when.
    pub(crate) autosaved: Option<(u64, f64)>,
    /// Edits found in the recovery file at start, waiting for the designer's choice.
    pub(crate) offer_recovery: Option<Vec<Op>>,
    /// The project folder's watcher (none for bundles, or when watching failed).
    pub(crate) watch: Option<FolderWatch>,
    /// Items changed on disk while they had unsaved edits, waiting for the designer's choice.
    pub(crate) conflicts: Vec<Conflict>,
    /// The Simulate panel (its settings and last results).
    pub(crate) sim: SimPanel,
    /// The Tests panel.
    pub(crate) tests: crate::panels::tests::TestsPanel,
    /// The Formula tab.
    pub(crate) formula: FormulaWorkbench,
    /// The Preview tab: the runtime playing the document.
    pub(crate) preview: PreviewPanel,
    /// The file dialogs: the desktop's through its portal, or the built-in one.
    pub(crate) dialogs: FileDialogs,
    /// The Project settings tab's form state.
    pub(crate) settings_form: InspectorState,
    /// "Export as RON or JSON?" is asked.
    pub(crate) export_question: bool,
    /// "Quit with unsaved changes?" is asked.
    pub(crate) quit_prompt: Option<QuitPrompt>,
    /// The designer chose to quit: the window closes (and is not kept open again).
    pub(crate) closing: bool,
    /// A message window (title, text) the designer has to read, e.g. why an export failed.
    pub(crate) alert: Option<(String, String)>,
    /// A Cultistlike import running on a worker thread.
    pub(crate) import: Option<ImportJob>,
    /// The act-chain and node-map graph views.
    pub(crate) graphs: GraphViews,
    /// The Tile map tab.
    pub(crate) map_editor: MapEditor,
    /// The Table tab.
    pub(crate) table: TableView,
    /// The Changes tab (merge conflicts' chosen sides, the unsaved-changes diff).
    pub(crate) changes: crate::panels::changes::ChangesPanel,
    /// The Strings tab (its filter, language and the texts of a revision).
    pub(crate) strings: crate::panels::strings::StringsPanel,
}

impl ActforgeApp {
    /// Opens the project (folder or bundle) at `path`; a project that fails to open shows why.
    pub fn new(path: PathBuf) -> Self {
        let workspace = Workspace::open(&path);
        let mut app = Self {
            path,
            workspace,
            history: History::new(),
            filter: String::new(),
            selection: None,
            dock: default_layout(),
            restore_layout: None,
            pointer_at: None,
            requests: Requests::default(),
            palette: None,
            inspector: InspectorState::default(),
            item_text: ItemTextState::default(),
            log: Vec::new(),
            dark: true,
            applied_theme: None,
            recent: Vec::new(),
            title: String::new(),
            confirm_delete: None,
            renaming: None,
            recovery: None,
            autosave_seconds: 3.0,
            autosaved: None,
            offer_recovery: None,
            watch: None,
            conflicts: Vec::new(),
            sim: SimPanel::default(),
            tests: crate::panels::tests::TestsPanel::default(),
            formula: FormulaWorkbench::default(),
            preview: PreviewPanel::default(),
            dialogs: FileDialogs::default(),
            settings_form: InspectorState::default(),
            export_question: false,
            quit_prompt: None,
            closing: false,
            alert: None,
            import: None,
            graphs: GraphViews::default(),
            map_editor: MapEditor::default(),
            table: TableView::default(),
            changes: crate::panels::changes::ChangesPanel::default(),
            strings: crate::panels::strings::StringsPanel::default(),
        };
        let opened = app.path.clone();
        app.note_opened(&opened);
        app.start_watching();
        app.announce_merge_conflicts();
        app
    }

    /// As [`ActforgeApp::new`], with the layout, theme and recent projects of the last run.
    pub fn with_storage(path: PathBuf, storage: Option<&dyn eframe::Storage>) -> Self {
        let mut app = Self::new(path);
        if let Some(settings) = storage.and_then(|storage| eframe::get_value::<Settings>(storage, SETTINGS_KEY)) {
            if let Some(dock) = settings.dock() {
                app.dock = crate::layout::with_every_tab(dock);
                if app.has_merge_conflicts() {
                    app.show_tab(Tab::Changes);
                }
            }
            app.dark = settings.dark;
            app.recent = settings.recent;
            app.dialogs.always_built_in = settings.builtin_file_dialog;
            let opened = app.path.clone();
            app.note_opened(&opened);
        }
        if !app.dialogs.always_built_in {
            // Known by the time the designer first asks for a dialog.
            app.dialogs.start_probe();
        }
        app.with_recovery(&Recovery::default_folder())
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
        self.workspace.document()
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

    /// The Tile map tab's state, to change (its view, tool and options).
    pub fn map_editor_mut(&mut self) -> &mut MapEditor {
        &mut self.map_editor
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
        self.requests.send(Request::Command(command));
    }

    /// Whether the dark theme is on.
    pub fn is_dark(&self) -> bool {
        self.dark
    }

    /// Whether file dialogs are always the built-in one (the setting).
    pub fn uses_built_in_file_dialog(&self) -> bool {
        self.dialogs.always_built_in
    }

    /// Whether the designer chose to quit (the window is closing).
    pub fn is_closing(&self) -> bool {
        self.closing
    }

    /// Whether "quit with unsaved changes?" is being asked.
    pub fn is_asking_to_quit(&self) -> bool {
        self.quit_prompt.is_some()
    }

    /// Draws the whole window into `ui`, then carries out what was asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let ctx = ui.ctx().clone();
        self.requests.extend(UiCommand::pressed(&ctx).into_iter().map(Request::Command));
        if ctx.input(|input| input.viewport().close_requested()) {
            self.window_close_requested(&ctx);
        }
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
        self.rename_ui(&ctx);
        self.recovery_ui(&ctx);
        self.conflict_ui(&ctx);
        self.export_question_ui(&ctx);
        self.quit_ui(&ctx);
        self.alert_ui(&ctx);
        self.dialogs.ui(&ctx, &mut self.requests);
        // The frame is drawn: from here on the document may change.
        self.apply_requests();
        self.poll_import(&ctx);
        if let Some(watch) = &self.watch {
            // File events arrive on another thread, which asks for a frame when one does;
            // one that came before it knew the window is taken in just below.
            watch.wake(&ctx);
        }
        self.check_disk();
        self.autosave(&ctx);
        let title = self.title();
        if title != self.title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title = title;
        }
        if self.closing {
            // Sent every frame until the window goes: a close is final once chosen.
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }

    /// The graph views show what the preview runs: its acts, its campaign node and the path walked.
    fn highlight_preview_in_graphs(&mut self) {
        if self.preview.game.session().is_none() {
            return;
        }
        let running = self.preview.game.highlight();
        // Why the act under the pointer cannot start: worked out for that one act only.
        let why_not = self.graphs.hovered_act().and_then(|act| {
            let session = self.preview.game.session()?;
            let subject = actforge_runtime::engine::Subject::Act { act: act.to_owned(), window: None };
            let reasons = session.explain(&subject).ok()?;
            Some((act.to_owned(), reasons.iter().map(|reason| reason.text.clone()).collect()))
        });
        self.graphs.set_highlight(&GraphHighlight {
            acts: running.acts.iter().map(ToString::to_string).collect(),
            nodes: running.node.iter().map(ToString::to_string).collect(),
            path: running.path.iter().map(ToString::to_string).collect(),
            why_not,
        });
    }

    /// Carries out everything asked for during the frame, in order.
    fn apply_requests(&mut self) {
        for request in self.requests.take() {
            match request {
                Request::Command(command) => self.run(command),
                Request::Select(key) => self.selection = Some(key),
                Request::OpenProject(path) => self.open_project(path),
                Request::Log(line) => self.log.push(line),
                Request::AnswerDelete { delete } => self.answer_delete(delete),
                Request::AnswerRecovery { recover } => self.answer_recovery(recover),
                Request::AnswerConflict { take_theirs } => self.answer_conflict(take_theirs),
                Request::ResolveMergeConflict { path, choices } => self.resolve_merge_conflict(&path, &choices),
                Request::DialogAnswered { purpose, path } => self.dialog_answered(purpose, path),
                Request::AnswerExport(format) => self.answer_export(format),
                Request::AnswerQuit(answer) => self.answer_quit(answer),
                Request::DismissAlert => self.alert = None,
                Request::SelectField(key, field) => {
                    self.inspector.jump_to(key.clone(), field);
                    self.selection = Some(key);
                    self.show_tab(Tab::Inspector);
                }
                Request::Inspector(action) => match action {
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

    /// The inspector's field marked by the last diagnostic clicked, once shown.
    pub fn inspector_jumped_to(&self) -> Option<&str> {
        self.inspector.jumped_to()
    }

    /// What the Diagnostics tab lists now (loading's findings and validation's).
    pub fn diagnostics(&self) -> &[actforge_runtime::Diagnostic] {
        match &self.workspace {
            Workspace::Open(open) => &open.diagnostics,
            Workspace::Failed { .. } => &[],
        }
    }

    /// The Simulate panel.
    pub fn sim_panel(&self) -> &SimPanel {
        &self.sim
    }

    /// The Preview tab.
    pub fn preview(&self) -> &PreviewPanel {
        &self.preview
    }

    /// The Preview tab, to drive its game from outside (scripted set-ups, embedding).
    pub fn preview_mut(&mut self) -> &mut PreviewPanel {
        &mut self.preview
    }

    /// How long a frame waits for the preview's worker (`None`: until it is done, as tests
    /// want; the window waits a few milliseconds so a slow replay never holds it).
    pub fn set_preview_wait(&mut self, wait: Option<std::time::Duration>) {
        self.preview.game.set_foreground_wait(wait);
    }

    /// Selects the tile map `id` and shows the Tile map tab.
    pub fn open_tile_map(&mut self, id: &str) {
        self.select(ItemKey::new(actforge_runtime::Kind::TileMap, id));
        self.show_tab(Tab::TileMap);
    }

    /// Shows the Preview tab and starts its clock as soon as the game has compiled.
    pub fn play_preview_when_ready(&mut self) {
        self.show_tab(Tab::Preview);
        self.preview.play_when_ready();
    }
}

impl eframe::App for ActforgeApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let started = std::time::Instant::now();
        ActforgeApp::ui(self, ui);
        frame_log(started);
    }

    fn on_exit(&mut self, gl: Option<&eframe::glow::Context>) {
        // The map views' GL objects go while their context still exists.
        if let Some(gl) = gl {
            actforge_map_gl::destroy_all(gl);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        let mut settings = Settings {
            dark: self.dark,
            recent: self.recent.clone(),
            layout: String::new(),
            builtin_file_dialog: self.dialogs.always_built_in,
        };
        settings.set_dock(self.restore_layout.as_ref().unwrap_or(&self.dock));
        eframe::set_value(storage, SETTINGS_KEY, &settings);
    }
}

/// With `ACTFORGE_FRAME_LOG=1`, one stderr line per frame: seconds since the first frame and
/// the milliseconds the UI took (`scripts/map-fps.sh` counts frames with it).
fn frame_log(started: std::time::Instant) {
    static FIRST: std::sync::OnceLock<Option<std::time::Instant>> = std::sync::OnceLock::new();
    let first = FIRST
        .get_or_init(|| std::env::var_os("ACTFORGE_FRAME_LOG").is_some_and(|value| value == "1").then_some(started));
    if let Some(first) = first {
        let ui_ms = started.elapsed().as_secs_f64() * 1000.0;
        eprintln!("frame t={:.3} ui_ms={ui_ms:.2}", started.duration_since(*first).as_secs_f64());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn settings_missing_or_unknown_fields_keep_the_others() {
        let settings: Settings = ron::from_str("(dark: false)").unwrap();
        assert_eq!(settings, Settings { dark: false, ..Settings::default() });
        let settings: Settings =
            ron::from_str(r#"(recent: ["/work/a"], layout: "(not a layout", added_later: 3)"#).unwrap();
        assert!(settings.dark);
        assert_eq!(settings.recent, vec![PathBuf::from("/work/a")]);
        assert!(settings.dock().is_none(), "an unreadable layout falls back to the default one");
    }

    #[test]
    fn the_dock_layout_round_trips_through_the_settings() {
        let mut settings = Settings::default();
        settings.set_dock(&default_layout());
        let text = ron::to_string(&settings).unwrap();
        let read: Settings = ron::from_str(&text).unwrap();
        let dock = read.dock().unwrap();
        assert!(dock.find_tab(&Tab::Inspector).is_some() && dock.find_tab(&Tab::Preview).is_some());
    }

    #[test]
    fn a_layout_from_an_earlier_version_gets_the_tabs_added_since() {
        let old = DockState::new(vec![Tab::Item, Tab::Preview]);
        let dock = crate::layout::with_every_tab(old);
        for tab in Tab::ALL {
            assert!(dock.find_tab(tab).is_some(), "{tab:?}");
        }
    }
}
