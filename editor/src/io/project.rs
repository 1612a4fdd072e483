//! The project on disk: saving (changed files atomically; bundles whole), save as, new,
//! open, reload and export; what each file dialog's answer does. Nothing unsaved is ever
//! replaced: opening, importing or reloading over unsaved edits is refused with the reason in
//! the log.

use std::path::{Path, PathBuf};

use actforge_runtime::project::{BundleFormat, export_bundle, item_path, save_folder};

use crate::app::ActforgeApp;
use crate::document::Document;
use crate::io::dialogs::{DialogPurpose, DialogRequest};
use crate::requests::Request;
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
            Err(error) => {
                self.log.push(format!("New project failed: {error}"));
                self.alert = Some(("New project failed".to_owned(), error.to_string()));
            }
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
            Err(error) => {
                self.log.push(format!("Save as failed: {error}"));
                self.alert = Some(("Save as failed".to_owned(), error.to_string()));
            }
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
        self.announce_merge_conflicts();
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
        self.announce_merge_conflicts();
    }
}

impl ActforgeApp {
    /// The folder dialogs start in: the project's parent folder (where its siblings are).
    fn dialog_folder(&self) -> Option<PathBuf> {
        let absolute = self.path.canonicalize().ok()?;
        absolute.parent().map(Path::to_owned)
    }

    /// Asks for a path for `purpose` in a file dialog (the desktop's or the built-in one).
    pub(crate) fn ask_path(&mut self, purpose: DialogPurpose) {
        let start_in = match &purpose {
            DialogPurpose::ImportInto { source } => source.parent().map(Path::to_owned),
            _ => self.dialog_folder(),
        };
        let file_name = match &purpose {
            DialogPurpose::Export(format) => Some(format!("{}.{}", self.bundle_stem(), extension(*format))),
            _ => None,
        };
        self.dialogs.ask(DialogRequest { purpose, start_in, file_name }, &mut self.requests);
    }

    /// A file name for the bundle: the project folder's name, else the project's name.
    fn bundle_stem(&self) -> String {
        let folder = self.path.canonicalize().unwrap_or_else(|_| self.path.clone());
        let stem = folder.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
        if stem.is_empty() { "project".to_owned() } else { stem }
    }

    /// Carries out a file dialog's answer: `None` means the designer cancelled.
    pub(crate) fn dialog_answered(&mut self, purpose: DialogPurpose, path: Option<PathBuf>) {
        let Some(path) = path else {
            self.log.push(format!("{}: cancelled", purpose.title()));
            return;
        };
        match purpose {
            DialogPurpose::NewProject => self.new_project_in(path),
            DialogPurpose::OpenProject => {
                if path.is_dir() && !path.join(actforge_runtime::project::MANIFEST_FILE).is_file() {
                    // A wrong pick must not close the project that is open.
                    let why = format!("{} is not an Actforge project: it has no project.ron", path.display());
                    self.log.push(format!("Not opened: {why}"));
                    self.alert = Some(("Not a project folder".to_owned(), why));
                } else {
                    self.open_project(path);
                }
            }
            DialogPurpose::SaveAs => self.save_as(path),
            DialogPurpose::ImportSource => self.ask_path(DialogPurpose::ImportInto { source: path }),
            DialogPurpose::ImportInto { source } => self.start_import(source, path),
            DialogPurpose::Export(format) => self.export_to(&path, format),
        }
    }

    /// Import Cultistlike…: refused while there are unsaved edits; else asks for the assets.
    pub(crate) fn import_cultistlike(&mut self) {
        if self.document().is_some_and(Document::has_unsaved_changes) {
            self.log.push("Not importing: there are unsaved changes (save or undo them first)".to_owned());
            return;
        }
        self.ask_path(DialogPurpose::ImportSource);
    }

    /// Writes the current project, unsaved edits included, as a bundle at `path`; says what
    /// was written, or why not (in the log and in a message window).
    pub fn export_to(&mut self, path: &Path, format: BundleFormat) {
        let Some(project) = self.project() else { return };
        let items = project.item_count();
        match export_bundle(project, path, format) {
            Ok(()) => {
                let kind = if format == BundleFormat::Json { "JSON" } else { "RON" };
                self.log.push(format!("Exported {items} items as a {kind} bundle to {}", path.display()));
            }
            Err(error) => {
                self.log.push(format!("Export failed: {error}"));
                self.alert = Some(("Export failed".to_owned(), error.to_string()));
            }
        }
    }

    /// "Export as RON or JSON?"; the answer is a request.
    pub(crate) fn export_question_ui(&mut self, ctx: &egui::Context) {
        if !self.export_question {
            return;
        }
        let mut answer = None;
        egui::Window::new("Export bundle")
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label("Write the whole project, unsaved edits included, into one file that other runtimes load.");
                ui.add_space(6.0);
                ui.horizontal(|ui| {
                    if ui.button("RON bundle…").on_hover_text("Rust Object Notation, as the project's files").clicked()
                    {
                        answer = Some(Some(BundleFormat::Ron));
                    }
                    if ui.button("JSON bundle…").on_hover_text("JSON, for runtimes without a RON reader").clicked() {
                        answer = Some(Some(BundleFormat::Json));
                    }
                    if ui.button("Cancel").clicked() {
                        answer = Some(None);
                    }
                });
            });
        if let Some(answer) = answer {
            self.requests.send(Request::AnswerExport(answer));
        }
    }

    /// Carries out the format answer: a save dialog for the bundle, or nothing.
    pub(crate) fn answer_export(&mut self, format: Option<BundleFormat>) {
        self.export_question = false;
        if let Some(format) = format {
            self.ask_path(DialogPurpose::Export(format));
        }
    }

    /// A message the designer has to read (e.g. why an export failed), until dismissed.
    pub(crate) fn alert_ui(&mut self, ctx: &egui::Context) {
        let Some((title, text)) = &self.alert else { return };
        let mut dismissed = false;
        egui::Window::new(title.as_str())
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.colored_label(crate::style::severity_colour(actforge_runtime::Severity::Error), text.as_str());
                dismissed = ui.button("OK").clicked();
            });
        if dismissed {
            self.requests.send(Request::DismissAlert);
        }
    }
}

/// The file extension of a bundle format.
fn extension(format: BundleFormat) -> &'static str {
    match format {
        BundleFormat::Ron => "ron",
        BundleFormat::Json => "json",
    }
}
