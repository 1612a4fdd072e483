//! Import Cultistlike…: the folder with the Unity assets, then an empty folder for the new
//! project (two dialogs); the import runs on a worker thread (as `actforge import cultistlike
//! --copy-art --force`: the project is written with the broken parts left out, and the
//! pictures the items use are copied), then the new project opens with what the importer
//! dropped or changed in the Diagnostics tab and the log.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};

use actforge_runtime::import::{CultistlikeOptions, copy_files, import_cultistlike_with};
use actforge_runtime::project::save_new_folder;
use actforge_runtime::{Diagnostic, Severity};

use crate::app::ActforgeApp;
use crate::document::Document;
use crate::workspace::Workspace;

/// What a finished import reports.
pub struct ImportOutcome {
    /// The new project's folder.
    pub into: PathBuf,
    /// How many items were imported, files written and pictures copied.
    pub summary: String,
    /// What the importer dropped, changed or found wrong.
    pub diagnostics: Vec<Diagnostic>,
}

/// An import running on a worker thread.
pub struct ImportJob {
    source: PathBuf,
    answer: Receiver<Result<ImportOutcome, String>>,
}

impl ImportJob {
    /// The folder being imported.
    pub fn source(&self) -> &Path {
        &self.source
    }
}

/// Imports `source` into `into` (new or empty): the project written, the pictures copied.
pub fn import_cultistlike_into(source: &Path, into: &Path) -> Result<ImportOutcome, String> {
    let imported =
        import_cultistlike_with(source, &CultistlikeOptions::default()).map_err(|error| error.to_string())?;
    let report = save_new_folder(&imported.project, into).map_err(|error| error.to_string())?;
    let copied = copy_files(source, into, &imported.art).map_err(|error| error.to_string())?;
    let summary = format!(
        "{} items from {} into {} ({} files written, {copied} pictures copied)",
        imported.project.item_count(),
        source.display(),
        into.display(),
        report.written.len(),
    );
    Ok(ImportOutcome { into: into.to_owned(), summary, diagnostics: imported.diagnostics })
}

impl ActforgeApp {
    /// Whether an import is running.
    pub fn is_importing(&self) -> bool {
        self.import.is_some()
    }

    /// Starts importing `source` into `into` on a worker thread; refused while there are
    /// unsaved edits (the new project opens in place of this one) or another import runs.
    pub(crate) fn start_import(&mut self, source: PathBuf, into: PathBuf) {
        if self.document().is_some_and(Document::has_unsaved_changes) {
            self.log.push("Not importing: there are unsaved changes (save or undo them first)".to_owned());
            return;
        }
        if self.import.is_some() {
            self.log.push("An import is already running".to_owned());
            return;
        }
        let (sender, answer) = channel();
        let (from, to) = (source.clone(), into);
        let spawned = std::thread::Builder::new().name("import".to_owned()).spawn(move || {
            // The editor may have closed meanwhile: nobody to tell.
            let _ = sender.send(import_cultistlike_into(&from, &to));
        });
        match spawned {
            Ok(_) => {
                self.log.push(format!("Importing Cultistlike content from {}…", source.display()));
                self.import = Some(ImportJob { source, answer });
            }
            Err(error) => self.log.push(format!("Import failed: could not start it: {error}")),
        }
    }

    /// Takes in a finished import: reports it and opens the new project.
    pub(crate) fn poll_import(&mut self, ctx: &egui::Context) {
        let Some(job) = &self.import else { return };
        let outcome = match job.answer.try_recv() {
            Err(TryRecvError::Empty) => {
                ctx.request_repaint_after(std::time::Duration::from_millis(100));
                return;
            }
            Ok(outcome) => outcome,
            Err(TryRecvError::Disconnected) => Err("the import stopped unexpectedly".to_owned()),
        };
        self.import = None;
        match outcome {
            Err(error) => {
                self.log.push(format!("Import failed: {error}"));
                self.alert = Some(("Import failed".to_owned(), error));
            }
            Ok(outcome) => {
                let errors = outcome.diagnostics.iter().filter(|d| d.severity == Severity::Error).count();
                let dropped = if outcome.diagnostics.is_empty() {
                    "nothing dropped or changed".to_owned()
                } else {
                    format!(
                        "{} notes on what was dropped or changed ({errors} errors: those parts were left out), \
                         listed in Diagnostics",
                        outcome.diagnostics.len()
                    )
                };
                self.log.push(format!("Imported {}; {dropped}", outcome.summary));
                for diagnostic in &outcome.diagnostics {
                    self.log.push(format!("  {diagnostic}"));
                }
                self.open_project(outcome.into.clone());
                // The importer's notes stay in the Diagnostics tab until the next load.
                if self.path == outcome.into
                    && let Workspace::Open(open) = &mut self.workspace
                {
                    let mut notes = outcome.diagnostics;
                    notes.append(&mut open.load_diagnostics);
                    open.load_diagnostics = notes;
                    let root = self.path.clone();
                    open.revalidate(Some(root.as_path()));
                }
            }
        }
    }
}
