//! Every action a designer can ask for by name: one enum feeds the menus, the toolbar, the
//! command palette, the keyboard shortcuts and the tests.

use actforge_runtime::Kind;
use egui::{Key, KeyboardShortcut, Modifiers};
use egui_phosphor::regular as icon;

/// An action of the editor, carried out by the app after the frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UiCommand {
    /// Create an empty project in a folder chosen in a dialog, and open it.
    NewProject,
    /// Open a project folder chosen in a dialog.
    OpenProject,
    /// Write every changed item to disk.
    Save,
    /// Write the whole project into a new folder chosen in a dialog, and go on editing there.
    SaveAs,
    /// Read the project from disk again (undoable while there are no unsaved edits).
    Reload,
    /// Show the Project settings tab (`project.ron`: name, settings, where play starts).
    ProjectSettings,
    /// Turn Cultistlike content (Unity assets) into a new project, chosen in two dialogs, and open it.
    ImportCultistlike,
    /// Write the whole project (unsaved edits included) as one RON or JSON bundle file.
    ExportBundle,
    /// Close the editor (asking first while there are unsaved edits).
    Quit,
    /// Use the built-in file dialog even when the desktop offers its own (a setting).
    ToggleBuiltInFileDialog,
    /// Undo the last step.
    Undo,
    /// Redo the last undone step.
    Redo,
    /// Open the command palette.
    CommandPalette,
    /// Find an item by id or label.
    QuickOpen,
    /// Find text in every item (labels, texts, formulas).
    FindInProject,
    /// Create an item of a kind from its template, and select it.
    NewItem(Kind),
    /// Give the selected item a new id, rewriting every reference to it.
    Rename,
    /// Copy the selected item under a new id.
    Duplicate,
    /// Remove the selected item.
    Delete,
    /// Switch between the dark and the light theme.
    ToggleTheme,
    /// Put every panel back where it starts.
    ResetLayout,
    /// Let the focused pane fill the window, or put the other panes back.
    MaximisePane,
    /// Show the Simulate panel and run a simulation of the current content.
    Simulate,
    /// Show the Tests panel and run the project's playtests on the current content.
    RunTests,
    /// Show the formula workbench (the selected named formula, or a scratch formula).
    FormulaWorkbench,
    /// Show the preview and start or stop its clock.
    PlayPause,
    /// Move the preview's clock to the next timer or decay.
    StepPreview,
    /// Start the preview over from the entry.
    RestartPreview,
    /// Start the preview from the selected act or node ("play from here").
    PlayFromHere,
    /// Show the act-chain graph.
    ActGraph,
    /// Show the Changes tab: merge conflicts to resolve, unsaved changes field by field.
    Changes,
    /// Show the Strings tab: every text by language, translations edited in place.
    Strings,
    /// Show the node-map editor.
    NodeMap,
    /// Show the tile-map editor (the selected tile map, or the first).
    TileMapEditor,
    /// Show the items of one kind as a table.
    TableView,
}

/// Ctrl (Cmd on macOS) + `key`.
const fn command(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::COMMAND, key)
}

/// Ctrl (Cmd on macOS) + Shift + `key`.
const fn command_shift(key: Key) -> KeyboardShortcut {
    KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), key)
}

impl UiCommand {
    /// Every command, in palette order.
    pub const ALL: &'static [UiCommand] = &[
        UiCommand::NewProject,
        UiCommand::OpenProject,
        UiCommand::Save,
        UiCommand::SaveAs,
        UiCommand::Reload,
        UiCommand::ProjectSettings,
        UiCommand::ImportCultistlike,
        UiCommand::ExportBundle,
        UiCommand::Quit,
        UiCommand::Undo,
        UiCommand::Redo,
        UiCommand::QuickOpen,
        UiCommand::FindInProject,
        UiCommand::CommandPalette,
        UiCommand::NewItem(Kind::Aspect),
        UiCommand::NewItem(Kind::Card),
        UiCommand::NewItem(Kind::Deck),
        UiCommand::NewItem(Kind::Slot),
        UiCommand::NewItem(Kind::Rule),
        UiCommand::NewItem(Kind::Act),
        UiCommand::NewItem(Kind::Token),
        UiCommand::NewItem(Kind::Formula),
        UiCommand::NewItem(Kind::Stat),
        UiCommand::NewItem(Kind::TurnConfig),
        UiCommand::NewItem(Kind::Era),
        UiCommand::NewItem(Kind::Synthesis),
        UiCommand::NewItem(Kind::Board),
        UiCommand::NewItem(Kind::TileMap),
        UiCommand::NewItem(Kind::NodeMap),
        UiCommand::NewItem(Kind::Unit),
        UiCommand::NewItem(Kind::Skill),
        UiCommand::NewItem(Kind::Equipment),
        UiCommand::Rename,
        UiCommand::Duplicate,
        UiCommand::Delete,
        UiCommand::ToggleTheme,
        UiCommand::ResetLayout,
        UiCommand::MaximisePane,
        UiCommand::Simulate,
        UiCommand::RunTests,
        UiCommand::FormulaWorkbench,
        UiCommand::PlayPause,
        UiCommand::StepPreview,
        UiCommand::RestartPreview,
        UiCommand::PlayFromHere,
        UiCommand::ActGraph,
        UiCommand::NodeMap,
        UiCommand::TileMapEditor,
        UiCommand::TableView,
        UiCommand::Changes,
        UiCommand::Strings,
        UiCommand::ToggleBuiltInFileDialog,
    ];

    /// The name shown in menus and the palette (sentence case; `…` when it opens a dialog).
    pub fn label(self) -> &'static str {
        match self {
            UiCommand::NewProject => "New project…",
            UiCommand::OpenProject => "Open project…",
            UiCommand::Save => "Save",
            UiCommand::SaveAs => "Save as…",
            UiCommand::Reload => "Reload from disk",
            UiCommand::ProjectSettings => "Project settings",
            UiCommand::ImportCultistlike => "Import Cultistlike…",
            UiCommand::ExportBundle => "Export bundle…",
            UiCommand::Quit => "Quit",
            UiCommand::ToggleBuiltInFileDialog => "Always use the built-in file dialog",
            UiCommand::Undo => "Undo",
            UiCommand::Redo => "Redo",
            UiCommand::CommandPalette => "Command palette…",
            UiCommand::QuickOpen => "Quick open…",
            UiCommand::FindInProject => "Find in project…",
            UiCommand::NewItem(kind) => new_item_label(kind),
            UiCommand::Rename => "Rename item…",
            UiCommand::Duplicate => "Duplicate item",
            UiCommand::Delete => "Delete item",
            UiCommand::ToggleTheme => "Toggle light theme",
            UiCommand::ResetLayout => "Reset layout",
            UiCommand::MaximisePane => "Maximise or restore the pane",
            UiCommand::Simulate => "Simulate",
            UiCommand::RunTests => "Run tests",
            UiCommand::FormulaWorkbench => "Formula workbench",
            UiCommand::PlayPause => "Play or pause the preview",
            UiCommand::StepPreview => "Step the preview",
            UiCommand::RestartPreview => "Restart the preview",
            UiCommand::PlayFromHere => "Play from here",
            UiCommand::ActGraph => "Act chains",
            UiCommand::NodeMap => "Node map",
            UiCommand::TileMapEditor => "Tile map editor",
            UiCommand::TableView => "Table of items",
            UiCommand::Changes => "Changes and merge conflicts",
            UiCommand::Strings => "Strings and translations",
        }
    }

    /// What the command does, for tooltips.
    pub fn description(self) -> &'static str {
        match self {
            UiCommand::NewProject => "Create an empty project in a new folder and open it",
            UiCommand::OpenProject => "Open a project folder",
            UiCommand::Save => "Write the changed items to disk",
            UiCommand::SaveAs => "Write the whole project into a new folder and go on editing there",
            UiCommand::Reload => "Read the project from disk again",
            UiCommand::ProjectSettings => {
                "Edit project.ron: name, description, ticks per second, seed and where each system starts"
            }
            UiCommand::ImportCultistlike => {
                "Turn Cultistlike content (a folder of Unity assets) into a new project in an empty folder, and open it"
            }
            UiCommand::ExportBundle => {
                "Write the whole project, unsaved edits included, as one RON or JSON file that other runtimes load"
            }
            UiCommand::Quit => "Close the editor; with unsaved changes it asks whether to save them",
            UiCommand::ToggleBuiltInFileDialog => {
                "Choose files and folders in a dialog drawn by the editor, even when the desktop offers its own"
            }
            UiCommand::Undo => "Undo the last change",
            UiCommand::Redo => "Redo the last undone change",
            UiCommand::CommandPalette => "Run any command by name",
            UiCommand::QuickOpen => "Find an item by id or label",
            UiCommand::FindInProject => "Find text in every item: labels, texts, formulas, references",
            UiCommand::NewItem(_) => "Create a new item of this kind from a template and select it",
            UiCommand::Rename => "Give the selected item a new id; every reference to it follows",
            UiCommand::Duplicate => "Copy the selected item under a new id",
            UiCommand::Delete => "Remove the selected item (undoable)",
            UiCommand::ToggleTheme => "Switch between the dark and the light theme",
            UiCommand::ResetLayout => "Put every panel back where it starts",
            UiCommand::MaximisePane => {
                "Let the pane you are working in fill the window; again to put the other panes back"
            }
            UiCommand::Simulate => "Play the project many times with seeded random players and chart the results",
            UiCommand::RunTests => "Run the project's playtests (tests/*.play) on the content as it is now",
            UiCommand::FormulaWorkbench => "Edit a formula with highlighting, sample inputs and its live value",
            UiCommand::PlayPause => "Show the preview and run or stop its game clock",
            UiCommand::StepPreview => "Move the preview's clock to the next timer or decay",
            UiCommand::RestartPreview => "Start the preview over from the project's entry",
            UiCommand::PlayFromHere => "Start the preview with the selected act running in its token's window",
            UiCommand::ActGraph => "Show the acts as a graph of their links; drag wires to link acts",
            UiCommand::NodeMap => "Edit a node map as a graph: nodes, paths and their unlock conditions",
            UiCommand::TileMapEditor => "Edit the selected tile map in 3D: build, reshape, paint, markers",
            UiCommand::TableView => {
                "The items of one kind as rows and their fields as columns: sort, filter, edit in place"
            }
            UiCommand::Changes => {
                "What differs from the saved files, field by field; merge conflicts side by side, a side per field"
            }
            UiCommand::Strings => {
                "Every text of the project by language: translate in place, find missing and stale translations"
            }
        }
    }

    /// The main keyboard shortcut.
    pub fn shortcut(self) -> Option<KeyboardShortcut> {
        match self {
            UiCommand::NewProject => Some(command(Key::N)),
            UiCommand::OpenProject => Some(command(Key::O)),
            UiCommand::Save => Some(command(Key::S)),
            UiCommand::SaveAs => Some(command_shift(Key::S)),
            UiCommand::Quit => Some(command(Key::Q)),
            UiCommand::Undo => Some(command(Key::Z)),
            UiCommand::Redo => Some(command_shift(Key::Z)),
            UiCommand::CommandPalette => Some(command_shift(Key::P)),
            UiCommand::QuickOpen => Some(command(Key::P)),
            UiCommand::FindInProject => Some(command_shift(Key::F)),
            UiCommand::Duplicate => Some(command(Key::D)),
            UiCommand::Rename => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F2)),
            UiCommand::Delete => Some(KeyboardShortcut::new(Modifiers::NONE, Key::Delete)),
            UiCommand::Simulate => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F6)),
            UiCommand::RunTests => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F7)),
            UiCommand::FormulaWorkbench => Some(command_shift(Key::E)),
            UiCommand::PlayPause => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F5)),
            UiCommand::StepPreview => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F10)),
            UiCommand::RestartPreview => Some(KeyboardShortcut::new(Modifiers::SHIFT, Key::F5)),
            UiCommand::PlayFromHere => Some(command(Key::F5)),
            UiCommand::ActGraph => Some(command_shift(Key::G)),
            UiCommand::NodeMap => Some(command_shift(Key::M)),
            UiCommand::TileMapEditor => Some(command_shift(Key::T)),
            UiCommand::TableView => Some(command_shift(Key::B)),
            UiCommand::MaximisePane => Some(KeyboardShortcut::new(Modifiers::NONE, Key::F11)),
            UiCommand::Reload
            | UiCommand::NewItem(_)
            | UiCommand::ProjectSettings
            | UiCommand::Changes
            | UiCommand::Strings
            | UiCommand::ImportCultistlike
            | UiCommand::ExportBundle
            | UiCommand::ToggleBuiltInFileDialog
            | UiCommand::ToggleTheme
            | UiCommand::ResetLayout => None,
        }
    }

    /// Further shortcuts that do the same (Ctrl+Y for redo).
    pub fn other_shortcuts(self) -> &'static [KeyboardShortcut] {
        const REDO: &[KeyboardShortcut] = &[command(Key::Y)];
        match self {
            UiCommand::Redo => REDO,
            _ => &[],
        }
    }

    /// The icon (a Phosphor glyph).
    pub fn icon(self) -> &'static str {
        match self {
            UiCommand::NewProject => icon::FILE_PLUS,
            UiCommand::OpenProject => icon::FOLDER_OPEN,
            UiCommand::Save => icon::FLOPPY_DISK,
            UiCommand::SaveAs => icon::FLOPPY_DISK_BACK,
            UiCommand::Reload => icon::ARROWS_CLOCKWISE,
            UiCommand::ProjectSettings => icon::GEAR_SIX,
            UiCommand::ImportCultistlike => icon::DOWNLOAD_SIMPLE,
            UiCommand::ExportBundle => icon::EXPORT,
            UiCommand::Quit => icon::SIGN_OUT,
            UiCommand::ToggleBuiltInFileDialog => icon::FOLDER_SIMPLE_DASHED,
            UiCommand::Undo => icon::ARROW_COUNTER_CLOCKWISE,
            UiCommand::Redo => icon::ARROW_CLOCKWISE,
            UiCommand::CommandPalette => icon::TERMINAL_WINDOW,
            UiCommand::QuickOpen => icon::MAGNIFYING_GLASS,
            UiCommand::FindInProject => icon::FILE_SEARCH,
            UiCommand::NewItem(_) => icon::PLUS,
            UiCommand::Rename => icon::PENCIL_SIMPLE,
            UiCommand::Duplicate => icon::COPY,
            UiCommand::Delete => icon::TRASH,
            UiCommand::ToggleTheme => icon::SUN,
            UiCommand::ResetLayout => icon::LAYOUT,
            UiCommand::MaximisePane => icon::ARROWS_OUT,
            UiCommand::Simulate => icon::CHART_BAR,
            UiCommand::RunTests => icon::CHECK_SQUARE,
            UiCommand::FormulaWorkbench => icon::FUNCTION,
            UiCommand::PlayPause => icon::PLAY_PAUSE,
            UiCommand::StepPreview => icon::SKIP_FORWARD,
            UiCommand::RestartPreview => icon::REWIND,
            UiCommand::PlayFromHere => icon::PLAY_CIRCLE,
            UiCommand::ActGraph => icon::FLOW_ARROW,
            UiCommand::NodeMap => icon::GRAPH,
            UiCommand::TileMapEditor => icon::CUBE,
            UiCommand::TableView => icon::TABLE,
            UiCommand::Changes => icon::GIT_DIFF,
            UiCommand::Strings => icon::TRANSLATE,
        }
    }

    /// The shortcut as text for menus and tooltips ("Ctrl+Shift+Z").
    pub fn shortcut_text(self, ctx: &egui::Context) -> String {
        self.shortcut().map(|shortcut| ctx.format_shortcut(&shortcut)).unwrap_or_default()
    }

    /// The commands whose shortcut was pressed this frame (consumed, so text fields do not
    /// also act on them). Shortcuts with more modifiers are checked first: Ctrl+Shift+Z is
    /// redo, not undo. A plain editing key (Delete) belongs to the text field that has the
    /// keyboard, if one has.
    pub fn pressed(ctx: &egui::Context) -> Vec<UiCommand> {
        let typing = ctx.egui_wants_keyboard_input();
        let canvas = crate::views::graph_canvas::has_keys(ctx);
        let mut shortcuts: Vec<(KeyboardShortcut, UiCommand)> = UiCommand::ALL
            .iter()
            .flat_map(|&command| {
                command
                    .shortcut()
                    .into_iter()
                    .chain(command.other_shortcuts().iter().copied())
                    .map(move |s| (s, command))
            })
            .filter(|(shortcut, _)| !(typing && is_editing_key(*shortcut)))
            .filter(|(shortcut, _)| !(canvas && crate::views::graph_canvas::is_canvas_key(*shortcut)))
            .collect();
        shortcuts.sort_by_key(|(shortcut, _)| std::cmp::Reverse(modifier_count(shortcut.modifiers)));
        let mut pressed = Vec::new();
        ctx.input_mut(|input| {
            for (shortcut, command) in shortcuts {
                if input.consume_shortcut(&shortcut) && !pressed.contains(&command) {
                    pressed.push(command);
                }
            }
        });
        pressed
    }
}

/// Whether a shortcut is a key a text field uses for itself (a plain Delete).
fn is_editing_key(shortcut: KeyboardShortcut) -> bool {
    shortcut.modifiers.is_none() && matches!(shortcut.logical_key, Key::Delete | Key::Backspace)
}

/// "New aspect", "New tile map"…: the label of [`UiCommand::NewItem`].
fn new_item_label(kind: Kind) -> &'static str {
    match kind {
        Kind::Aspect => "New aspect",
        Kind::Card => "New card",
        Kind::Deck => "New deck",
        Kind::Slot => "New slot",
        Kind::Rule => "New rule",
        Kind::Act => "New act",
        Kind::Token => "New token",
        Kind::Formula => "New formula",
        Kind::Stat => "New stat",
        Kind::TurnConfig => "New turn config",
        Kind::Era => "New era",
        Kind::Synthesis => "New synthesis",
        Kind::Board => "New board",
        Kind::TileMap => "New tile map",
        Kind::NodeMap => "New node map",
        Kind::Unit => "New unit",
        Kind::Skill => "New skill",
        Kind::Equipment => "New equipment",
    }
}

/// How many modifier keys a shortcut needs.
fn modifier_count(modifiers: Modifiers) -> u8 {
    u8::from(modifiers.alt) + u8::from(modifiers.shift) + u8::from(modifiers.command || modifiers.ctrl)
}
