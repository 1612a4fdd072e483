//! Carrying out what the designer asked for: commands, edits through the history, duplicate,
//! delete (asking first while the item is used), play from here, simulate.

use std::collections::BTreeSet;

use actforge_runtime::Kind;
use actforge_runtime::project::merge::{Side, resolve_tree};

use crate::app::ActforgeApp;
use crate::commands::UiCommand;
use crate::document::{Document, ItemKey, Op, get_item, item_from_json, where_used};
use crate::io::dialogs::DialogPurpose;
use crate::layout::{Tab, default_layout};
use crate::panels::search::{Palette, PaletteMode};
use crate::workspace::Workspace;

impl ActforgeApp {
    /// Whether `command` can be carried out now (menus and buttons grey out otherwise).
    pub(crate) fn enabled(&self, command: UiCommand) -> bool {
        let open = matches!(self.workspace, Workspace::Open(_));
        match command {
            UiCommand::Save => self.document().is_some_and(Document::has_unsaved_changes),
            UiCommand::NewProject | UiCommand::OpenProject => !self.dialogs.is_open(),
            UiCommand::ImportCultistlike => !self.dialogs.is_open() && self.import.is_none(),
            UiCommand::SaveAs | UiCommand::ExportBundle => open && !self.dialogs.is_open(),
            UiCommand::Undo => self.history.undo_label().is_some(),
            UiCommand::Redo => self.history.redo_label().is_some(),
            UiCommand::Duplicate | UiCommand::Delete | UiCommand::Rename => open && self.selection_exists(),
            UiCommand::NewItem(_)
            | UiCommand::ProjectSettings
            | UiCommand::QuickOpen
            | UiCommand::FindInProject
            | UiCommand::Simulate
            | UiCommand::RunTests
            | UiCommand::FormulaWorkbench
            | UiCommand::ActGraph
            | UiCommand::NodeMap
            | UiCommand::TileMapEditor
            | UiCommand::TableView
            | UiCommand::Changes
            | UiCommand::Strings
            | UiCommand::PlayPause
            | UiCommand::StepPreview
            | UiCommand::RestartPreview => open,
            UiCommand::PlayFromHere => open && self.selection.as_ref().is_some_and(|key| key.kind == Kind::Act),
            UiCommand::Reload
            | UiCommand::Quit
            | UiCommand::ToggleBuiltInFileDialog
            | UiCommand::CommandPalette
            | UiCommand::ToggleTheme
            | UiCommand::ResetLayout
            | UiCommand::MaximisePane => true,
        }
    }

    /// Applies an edit through the history; logs and returns whether it applied.
    /// Applies `op` as one undo step named `label`, as an edit in the inspector does; false
    /// (with a line in the log) when it cannot be applied.
    pub fn apply_edit(&mut self, op: Op, label: &str) -> bool {
        self.edit(op, label, None)
    }

    pub(crate) fn edit(&mut self, op: Op, label: &str, gesture: Option<u64>) -> bool {
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

    /// Carries out a command.
    pub(crate) fn run(&mut self, command: UiCommand) {
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
            UiCommand::NewItem(kind) => self.new_item(kind),
            UiCommand::Rename => {
                if let Some(key) = self.selection.clone().filter(|_| self.selection_exists()) {
                    self.renaming = Some((key.clone(), key.id));
                }
            }
            UiCommand::Duplicate => self.duplicate(),
            UiCommand::Delete => self.delete(),
            UiCommand::ToggleTheme => self.dark = !self.dark,
            UiCommand::ResetLayout => {
                self.dock = default_layout();
                self.restore_layout = None;
            }
            UiCommand::MaximisePane => self.toggle_maximised(),
            UiCommand::Simulate => self.simulate(),
            UiCommand::RunTests => self.run_tests(),
            UiCommand::NewProject => self.ask_path(DialogPurpose::NewProject),
            UiCommand::OpenProject => self.ask_path(DialogPurpose::OpenProject),
            UiCommand::SaveAs => self.ask_path(DialogPurpose::SaveAs),
            UiCommand::ImportCultistlike => self.import_cultistlike(),
            UiCommand::ExportBundle => {
                if self.project().is_some() {
                    self.export_question = true;
                }
            }
            UiCommand::Quit => self.quit(),
            UiCommand::ProjectSettings => self.show_tab(Tab::ProjectSettings),
            UiCommand::ToggleBuiltInFileDialog => {
                self.dialogs.always_built_in = !self.dialogs.always_built_in;
                let state = if self.dialogs.always_built_in { "on" } else { "off" };
                self.log.push(format!("{}: {state}", command.label()));
            }
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
            UiCommand::TableView => self.show_tab(Tab::Table),
            UiCommand::Changes => self.show_tab(Tab::Changes),
            UiCommand::Strings => self.show_tab(Tab::Strings),
        }
    }

    /// Whether the selection names an item the project has (not a file that did not load).
    fn selection_exists(&self) -> bool {
        self.selection.as_ref().is_some_and(|key| self.project().is_some_and(|p| p.contains(key.kind, &key.id)))
    }

    /// Creates an item of `kind` from its template under a fresh id (one undo step), selects
    /// it and shows its form.
    fn new_item(&mut self, kind: Kind) {
        let Some(project) = self.project() else { return };
        let id = crate::templates::fresh_id(project, kind);
        let item = crate::templates::new_item(project, kind, &id);
        let label = format!("New {} `{id}`", kind.label().to_lowercase());
        if self.edit(Op::put(item), &label, None) {
            self.selection = Some(ItemKey::new(kind, id));
            self.show_tab(Tab::Inspector);
        }
    }

    /// Copies the selected item under a new id and selects the copy.
    fn duplicate(&mut self) {
        let (Some(key), Some(project)) = (self.selection.clone(), self.project()) else { return };
        let Some(item) = get_item(project, key.kind, &key.id) else { return };
        let id = (2..=u32::MAX)
            .map(|n| format!("{}_{n}", key.id))
            .find(|id| !project.contains(key.kind, id))
            .unwrap_or_else(|| format!("{}_copy", key.id));
        let copy = ItemKey::new(key.kind, id.clone());
        // The copy's texts are new texts: keyed by its own id, not the original's key.
        let text_key = actforge_runtime::locale::fresh_text_key(project, key.kind, &id);
        let copy_item = item.with_id(&id).with_text_key(&text_key);
        if self.edit(Op::put(copy_item), &format!("Duplicate {key} as `{id}`"), None) {
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
    /// Removes the item `key` (one undoable step).
    pub(crate) fn delete_now(&mut self, key: ItemKey) {
        if self.edit(Op::remove(key.clone()), &format!("Delete {key}"), None) && self.selection.as_ref() == Some(&key) {
            self.selection = None;
        }
    }

    /// Starts the preview with the selected act running (nodes: the preview's campaign map offers
    /// "Play from here" on each node).
    fn play_from_here(&mut self) {
        let Some(key) = self.selection.clone().filter(|key| key.kind == Kind::Act) else { return };
        let line = format!("run {}", key.id);
        self.show_tab(Tab::Preview);
        if let Workspace::Open(open) = &self.workspace {
            self.preview.game.sync_document(&open.document);
        }
        self.preview.game.play_from(line.clone());
        self.log.push(format!("Preview: play from `{line}`"));
    }

    /// Shows the Tests panel and runs the project's playtests on the content as edited.
    fn run_tests(&mut self) {
        self.show_tab(Tab::Tests);
        if let Workspace::Open(open) = &self.workspace
            && self.path.is_dir()
            && !self.tests.is_running()
        {
            self.tests.run_all(open.document.project(), &self.path);
            self.log.push("Tests started".to_owned());
        }
    }

    /// Shows the Simulate panel and starts a run of the current content.
    fn simulate(&mut self) {
        self.show_tab(Tab::Simulate);
        if let Workspace::Open(open) = &self.workspace {
            self.sim.start(open.document.project());
            self.log.push("Simulation started".to_owned());
        }
    }
}

impl ActforgeApp {
    /// Whether the open project has merge conflicts no side was chosen for yet.
    pub fn has_merge_conflicts(&self) -> bool {
        matches!(&self.workspace, Workspace::Open(open) if !open.conflicts.is_empty())
    }

    /// Brings the Changes tab forward and says why when the project opened with merge conflicts.
    pub(crate) fn announce_merge_conflicts(&mut self) {
        let Workspace::Open(open) = &self.workspace else { return };
        let count = open.conflicts.len();
        if count == 0 {
            return;
        }
        self.log.push(format!(
            "{} merge conflicts: choose a side for each field in the Changes tab",
            if count == 1 { "One item has".to_owned() } else { format!("{count} items have") }
        ));
        self.show_tab(Tab::Changes);
    }

    /// Resolves the merge conflict in `path` with the sides chosen: one undoable edit of the
    /// item as the document holds it now, and the item's file written over the conflict (ready
    /// for `git add`).
    pub(crate) fn resolve_merge_conflict(&mut self, path: &std::path::Path, choices: &[Side]) {
        let Workspace::Open(open) = &mut self.workspace else { return };
        let Some(conflict) = open.conflicts.iter().find(|conflict| conflict.path == path).cloned() else {
            self.log.push(format!("{} has no merge conflict to resolve", path.display()));
            return;
        };
        let key = ItemKey::new(conflict.kind, conflict.id.clone());
        let resolved = get_item(open.document.project(), key.kind, &key.id)
            .ok_or_else(|| format!("{key} is no longer in the project"))
            .and_then(|item| item.to_json())
            .and_then(|mut tree| {
                resolve_tree(&mut tree, &conflict.conflicts, choices)?;
                item_from_json(key.kind, tree)
            });
        let item = match resolved {
            Ok(item) => item,
            Err(error) => {
                self.log.push(format!("Resolving the merge conflict in {key} failed: {error}"));
                return;
            }
        };
        let text = match item.file_text() {
            Ok(text) => text,
            Err(error) => {
                self.log.push(format!("Resolving the merge conflict in {key} failed: {error}"));
                return;
            }
        };
        let label = format!("Resolve the merge conflict in {key}");
        let unchanged = get_item(open.document.project(), key.kind, &key.id).is_some_and(|old| old.same_as(&*item));
        if !unchanged && !self.edit(Op::put(item.clone()), &label, None) {
            return;
        }
        let Workspace::Open(open) = &mut self.workspace else { return };
        open.conflicts.retain(|conflict| conflict.path != path);
        match actforge_runtime::project::write_atomic(path, text.as_bytes()) {
            Ok(()) => {
                open.document.set_saved_content(&key, Some(item));
                self.log.push(format!("{label}: wrote {} (git add it to finish the merge)", path.display()));
            }
            Err(error) => {
                // The file still holds the conflict: the item stays unsaved until a save.
                open.document.set_saved_content(&key, None);
                self.log.push(format!("{label}: {} could not be written ({error}); save to write it", path.display()));
            }
        }
        let root = self.path.is_dir().then(|| self.path.clone());
        open.revalidate(root.as_deref());
        self.selection = Some(key);
    }
}
