//! The docked workspace: the tabs, the starting layout, maximising a pane, and the dock's view
//! of the app while drawing (each tab drawn by its panel or view with the document read-only).

use std::path::Path;

use egui_dock::{DockArea, DockState, NodeIndex, SurfaceIndex, TabPath, TabViewer};
use serde::{Deserialize, Serialize};

use crate::app::ActforgeApp;
use crate::document::ItemKey;
use crate::panels::changes::ChangesPanel;
use crate::panels::inspector::InspectorState;
use crate::panels::item::ItemTextState;
use crate::panels::simulate::SimPanel;
use crate::panels::{browser, diagnostics, inspector, item, log, project_settings};
use crate::preview::PreviewPanel;
use crate::requests::{Request, Requests};
use crate::views::GraphViews;
use crate::views::formula::FormulaWorkbench;
use crate::views::map::editor::MapEditor;
use crate::views::table::TableView;
use crate::workspace::Workspace;

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
    /// The project's own playtests, run with pass or fail.
    Tests,
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
    /// The items of one kind as a table.
    Table,
    /// `project.ron` as a form: name, settings, where play starts.
    ProjectSettings,
    /// Merge conflicts to resolve and unsaved changes, field by field.
    Changes,
    /// Every text by language: the translations, edited in place.
    Strings,
}

impl Tab {
    /// Every tab.
    pub const ALL: &'static [Tab] = &[
        Tab::Project,
        Tab::Item,
        Tab::Inspector,
        Tab::Diagnostics,
        Tab::Log,
        Tab::Simulate,
        Tab::Tests,
        Tab::Formula,
        Tab::Preview,
        Tab::ActGraph,
        Tab::NodeMap,
        Tab::TileMap,
        Tab::Table,
        Tab::ProjectSettings,
        Tab::Changes,
        Tab::Strings,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Project => "Project",
            Tab::Item => "Item",
            Tab::Inspector => "Inspector",
            Tab::Diagnostics => "Diagnostics",
            Tab::Log => "Log",
            Tab::Simulate => "Simulate",
            Tab::Tests => "Tests",
            Tab::Formula => "Formula",
            Tab::Preview => "Preview",
            Tab::ActGraph => "Act chains",
            Tab::NodeMap => "Node map",
            Tab::TileMap => "Tile map",
            Tab::Table => "Table",
            Tab::ProjectSettings => "Project settings",
            Tab::Changes => "Changes",
            Tab::Strings => "Strings",
        }
    }
}

/// The starting layout: browser left, item centre, inspector right, diagnostics and log below.
pub fn default_layout() -> DockState<Tab> {
    let mut dock = DockState::new(vec![
        Tab::Item,
        Tab::Preview,
        Tab::ActGraph,
        Tab::NodeMap,
        Tab::TileMap,
        Tab::Table,
        Tab::ProjectSettings,
        Tab::Strings,
    ]);
    let surface = dock.main_surface_mut();
    let [centre, _browser] = surface.split_left(NodeIndex::root(), 0.22, vec![Tab::Project]);
    let [centre, _inspector] = surface.split_right(centre, 0.6, vec![Tab::Inspector, Tab::Formula]);
    let _ = surface.split_below(centre, 0.7, vec![Tab::Diagnostics, Tab::Log, Tab::Simulate, Tab::Tests, Tab::Changes]);
    dock
}

impl ActforgeApp {
    /// The dock and every tab in it.
    pub(crate) fn dock_ui(&mut self, ui: &mut egui::Ui) {
        self.pointer_at = ui.input(|input| input.pointer.latest_pos());
        let Self {
            dock,
            workspace,
            filter,
            selection,
            inspector,
            item_text,
            log,
            requests,
            sim,
            tests,
            formula,
            preview,
            graphs,
            path,
            map_editor,
            table,
            settings_form,
            changes,
            strings,
            ..
        } = self;
        let mut viewer = DockTabs {
            workspace,
            filter,
            selection,
            inspector,
            item_text,
            log,
            requests,
            sim,
            tests,
            formula,
            preview,
            graphs,
            path,
            map_editor,
            table,
            settings_form,
            changes,
            strings,
        };
        DockArea::new(dock)
            .style(egui_dock::Style::from_egui(ui.style()))
            .show_close_buttons(false)
            .show_leaf_close_all_buttons(false)
            .show_inside(ui, &mut viewer);
    }

    /// Whether one pane fills the window (the rest of the layout is kept aside).
    pub fn is_maximised(&self) -> bool {
        self.restore_layout.is_some()
    }

    /// Lets the focused pane fill the window, or puts the whole layout back with the tab that
    /// was in front still in front (and any tab opened meanwhile added to it).
    pub(crate) fn toggle_maximised(&mut self) {
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
        // The pane under the pointer; else the focused one; with no pane focused yet, the
        // centre's (where the item and its editors open).
        let under_pointer = self.pointer_at.and_then(|pointer| {
            self.dock.iter_leaves().find(|(_, leaf)| leaf.rect.contains(pointer)).map(|(path, _)| path)
        });
        let focused = under_pointer
            .or_else(|| self.dock.focused_leaf())
            .or_else(|| self.dock.find_tab(&Tab::Item).map(TabPath::node_path));
        let Some(leaf) = focused.and_then(|path| self.dock.leaf(path).ok()) else { return };
        let (tabs, active) = (leaf.tabs().to_vec(), leaf.active);
        let mut alone = DockState::new(tabs);
        let _ = alone.set_active_tab(TabPath::new(SurfaceIndex::main(), NodeIndex::root(), active));
        self.restore_layout = Some(std::mem::replace(&mut self.dock, alone));
    }

    /// Brings a tab to the front, adding it back if the layout lost it.
    pub(crate) fn show_tab(&mut self, tab: Tab) {
        if let Some(found) = self.dock.find_tab(&tab) {
            // Found just now, so it is there to activate; its pane is where the designer now
            // works (what "Maximise" maximises).
            let _ = self.dock.set_active_tab(found);
            self.dock.set_focused_node_and_surface(found.node_path());
        } else {
            add_missing_tab(&mut self.dock, tab);
            if let Some(found) = self.dock.find_tab(&tab) {
                let _ = self.dock.set_active_tab(found);
                self.dock.set_focused_node_and_surface(found.node_path());
            }
        }
    }
}

/// Adds `tab` to the pane of the item's file (where the centre tabs live), or to the focused
/// pane, or as the only pane when the layout has none.
fn add_missing_tab(dock: &mut DockState<Tab>, tab: Tab) {
    let centre = dock.find_tab(&Tab::Item).map(TabPath::node_path).or_else(|| dock.focused_leaf());
    match centre {
        Some(path) => {
            dock.set_focused_node_and_surface(path);
            dock.push_to_focused_leaf(tab);
        }
        None => *dock = DockState::new(vec![tab]),
    }
}

/// A layout saved by an earlier version lacks the tabs added since: each joins the centre
/// pane, so every tab can be found (none is lost to an old layout).
pub fn with_every_tab(mut dock: DockState<Tab>) -> DockState<Tab> {
    for tab in Tab::ALL {
        if dock.find_tab(tab).is_none() {
            add_missing_tab(&mut dock, *tab);
        }
    }
    dock
}

/// The dock's view of the app while drawing: the document read-only, requests into the sink.
struct DockTabs<'a> {
    workspace: &'a Workspace,
    filter: &'a mut String,
    selection: &'a Option<ItemKey>,
    inspector: &'a mut InspectorState,
    item_text: &'a mut ItemTextState,
    log: &'a [String],
    requests: &'a mut Requests,
    sim: &'a mut SimPanel,
    tests: &'a mut crate::panels::tests::TestsPanel,
    formula: &'a mut FormulaWorkbench,
    preview: &'a mut PreviewPanel,
    graphs: &'a mut GraphViews,
    path: &'a Path,
    map_editor: &'a mut MapEditor,
    table: &'a mut TableView,
    /// The Project settings tab's form state.
    settings_form: &'a mut InspectorState,
    changes: &'a mut ChangesPanel,
    strings: &'a mut crate::panels::strings::StringsPanel,
}

impl TabViewer for DockTabs<'_> {
    type Tab = Tab;

    fn title(&mut self, tab: &mut Tab) -> egui::WidgetText {
        tab.title().into()
    }

    fn id(&mut self, tab: &mut Tab) -> egui::Id {
        egui::Id::new(("dock_tab", tab.title()))
    }

    fn ui(&mut self, ui: &mut egui::Ui, tab: &mut Tab) {
        match tab {
            Tab::Project => browser::ui(ui, self.workspace, self.filter, self.selection.as_ref(), self.requests),
            Tab::Item => item::ui(ui, self.workspace, self.selection.as_ref(), self.item_text, self.requests),
            Tab::Inspector => {
                let live = self.preview.game.session();
                inspector::tab_ui(ui, self.workspace, self.selection.as_ref(), live, self.inspector, self.requests);
            }
            Tab::Diagnostics => diagnostics::ui(ui, self.workspace, self.path, self.requests),
            Tab::ProjectSettings => {
                project_settings::ui(ui, self.workspace, self.path, self.settings_form, self.requests);
            }
            Tab::Log => log::ui(ui, self.log),
            Tab::Changes => self.changes.ui(ui, self.workspace, self.requests),
            Tab::Strings => self.strings.ui(ui, self.workspace, self.requests),
            Tab::Formula => {
                let project = self.workspace.project();
                let mut actions = Vec::new();
                let live = self.preview.game.session();
                self.formula.ui(ui, project, self.selection.as_ref(), live, &mut actions);
                self.requests.extend(actions.into_iter().map(Request::Inspector));
            }
            Tab::Preview => {
                let document = self.workspace.document();
                let mut select = Vec::new();
                self.preview.set_project_folder(self.path);
                self.preview.ui(ui, document, &mut select);
                self.requests.extend(select.into_iter().map(Request::Select));
            }
            Tab::TileMap => {
                let mut actions = Vec::new();
                let document = self.workspace.document();
                self.map_editor.ui(ui, document, self.path, self.selection.as_ref(), &mut actions);
                self.requests.extend(actions.into_iter().map(Request::Inspector));
            }
            Tab::Table => {
                let Workspace::Open(open) = self.workspace else {
                    ui.label("No project is open.");
                    return;
                };
                let mut actions = Vec::new();
                self.table.ui(ui, &open.document, self.selection.as_ref(), &mut actions);
                self.requests.extend(actions.into_iter().map(Request::Inspector));
            }
            Tab::Tests => {
                let folder = self.path.is_dir().then_some(self.path);
                self.tests.ui(ui, self.workspace.project(), folder);
            }
            Tab::Simulate => {
                let project = self.workspace.project();
                let mut select = Vec::new();
                self.sim.ui(ui, project, &mut select);
                self.requests.extend(select.into_iter().map(Request::Select));
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
                    self.graphs.node_map_ui(
                        ui,
                        &open.document,
                        self.selection.as_ref(),
                        self.path,
                        &mut actions,
                        &mut log,
                    );
                }
                self.requests.extend(actions.into_iter().map(Request::Inspector));
                self.requests.extend(log.into_iter().map(Request::Log));
            }
        }
    }

    fn is_closeable(&self, _tab: &Tab) -> bool {
        false
    }
}
