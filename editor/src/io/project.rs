//! The project on disk: saving (changed files atomically; bundles whole), save as, new,
//! open and reload. Nothing unsaved is ever replaced: opening or reloading over unsaved edits
//! is refused with the reason in the log.

use std::path::{Path, PathBuf};

use actforge_runtime::project::{BundleFormat, export_bundle, item_path, save_folder};

use crate::app::ActforgeApp;
use crate::document::Document;
use crate::workspace::Workspace;

impl ActforgeApp {
    pub(crate) fn note_opened(&mut self, path: &Path) {
        let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
        self.recent.retain(|known| *known != path);
        self.recent.insert(0, path);
        self.recent.truncate(10);
    }

    /// Writes what changed since the last save, each file atomically; files of removed or
    /// renamed items are deleted. Bundles are rewritten whole.
    pub(crate) fn save(&mut self) {
        let Workspace::Open(open) = &mut self.workspace else { return };
        let project = open.document.project();
        let mut failed_removals = Vec::new();
        let protected = open.protected_now();
        let result = if self.path.is_dir() {
            save_folder(project, &self.path, &protected).map(|report| {
                let mut removed = 0;
                for key in open.document.dirty_items() {
                    let file = self.path.join(item_path(key.kind, &key.id));
                    if project.contains(key.kind, &key.id) || protected.contains(&file) {
                        continue;
                    }
                    match std::fs::remove_file(&file) {
                        Ok(()) => removed += 1,
                        // Never saved, or already gone: nothing to remove.
                        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                        Err(error) => failed_removals.push(format!("{}: {error}", file.display())),
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
            Ok(message) if failed_removals.is_empty() => {
                open.document.mark_saved();
                self.log.push(message);
            }
            Ok(message) => {
                // The files of deleted items are still there: the project is not what is on
                // disk yet, so it stays unsaved and the next save tries again.
                self.log.push(format!("{message}; could not remove {}", failed_removals.join(", ")));
            }
            Err(error) => self.log.push(format!("Save failed: {error}")),
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
        self.workspace = Workspace::open(&path);
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

    /// Reads the project from disk again. With unsaved edits nothing is replaced (they would
    /// be lost): the log says so.
    pub(crate) fn reload(&mut self) {
        if self.document().is_some_and(Document::has_unsaved_changes) {
            self.log.push("Reload skipped: there are unsaved changes (save or undo them first)".to_owned());
            return;
        }
        self.workspace = Workspace::open(&self.path);
        self.preview.game.reset();
        self.history.clear();
        self.conflicts.clear();
        self.start_watching();
        self.log.push(format!("Reloaded {}", self.path.display()));
    }
}
