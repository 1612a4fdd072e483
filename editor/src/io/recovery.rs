//! Autosave of unsaved edits to a recovery file, and the ops that bring them back after a crash.
//!
//! The recovery file is the whole project as a RON bundle, written atomically beside other
//! projects' recovery files (one per project path), and removed once the project is saved
//! or has no unsaved edits. It is never the project itself: the designer's files change only
//! through Save.

use std::path::{Path, PathBuf};

use actforge_runtime::Kind;
use actforge_runtime::Project;
use actforge_runtime::project::{BundleFormat, bundle_text, parse_bundle, write_atomic};

use crate::app::ActforgeApp;
use crate::document::{ItemKey, Op, get_item};
use crate::requests::Request;
use crate::workspace::Workspace;

/// The recovery file of one project.
#[derive(Clone, Debug)]
pub struct Recovery {
    file: PathBuf,
}

impl Recovery {
    /// The folder the recovery file is in.
    pub fn folder(&self) -> Option<&Path> {
        self.file.parent()
    }

    /// The recovery file for the project at `project_path`, inside `folder`.
    pub fn new(folder: &Path, project_path: &Path) -> Self {
        let absolute = project_path.canonicalize().unwrap_or_else(|_| project_path.to_owned());
        let mut name: String = absolute
            .to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        // Long paths keep their end (the project's own folder name is there).
        if name.len() > 150 {
            name = name.split_off(name.len() - 150);
        }
        Self { file: folder.join(format!("{name}.recovery.ron")) }
    }

    /// The default folder: the platform's data folder for Actforge, else the temp folder.
    pub fn default_folder() -> PathBuf {
        eframe::storage_dir("actforge").unwrap_or_else(|| std::env::temp_dir().join("actforge")).join("recovery")
    }

    /// Where the recovery file is.
    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Writes `project` as the recovery file (atomically).
    pub fn write(&self, project: &Project) -> Result<(), String> {
        let text = bundle_text(project, BundleFormat::Ron).map_err(|error| error.to_string())?;
        if let Some(folder) = self.file.parent() {
            std::fs::create_dir_all(folder).map_err(|error| error.to_string())?;
        }
        write_atomic(&self.file, text.as_bytes()).map_err(|error| error.to_string())
    }

    /// The recovered project, if a recovery file exists; why it does not read, if it does not.
    pub fn read(&self) -> Result<Option<Project>, String> {
        let text = match std::fs::read_to_string(&self.file) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error.to_string()),
        };
        parse_bundle(&text, &self.file).map(|loaded| Some(loaded.project)).map_err(|error| error.to_string())
    }

    /// Moves an unreadable recovery file aside (next to it, `.unreadable` added), so that the
    /// next autosave does not overwrite what it may still hold; returns where it went.
    pub fn set_aside(&self) -> Result<PathBuf, String> {
        let mut aside = self.file.clone().into_os_string();
        aside.push(".unreadable");
        let aside = PathBuf::from(aside);
        std::fs::rename(&self.file, &aside).map_err(|error| error.to_string())?;
        Ok(aside)
    }

    /// Removes the recovery file (nothing left to recover).
    pub fn clear(&self) {
        // A missing file is the goal; any other failure leaves a stale file the next start
        // offers again, which loses nothing.
        let _ = std::fs::remove_file(&self.file);
    }
}

/// The ops that turn `current` into `recovered`, one set-item per differing item: applied as
/// one batch they are a single undoable step.
pub fn recovery_ops(current: &Project, recovered: &Project) -> Vec<Op> {
    let mut ops = Vec::new();
    for &kind in Kind::ALL {
        let mut ids: Vec<&str> = current.entries(kind).into_iter().map(|(id, _)| id).collect();
        ids.extend(recovered.entries(kind).into_iter().map(|(id, _)| id));
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let mine = get_item(current, kind, id);
            let theirs = get_item(recovered, kind, id);
            let same = match (&mine, &theirs) {
                (Some(mine), Some(theirs)) => mine.same_as(theirs.as_ref()),
                (None, None) => true,
                _ => false,
            };
            if !same {
                ops.push(Op::SetItem { key: ItemKey::new(kind, id), item: theirs });
            }
        }
    }
    if current.manifest != recovered.manifest {
        ops.push(Op::SetManifest(Box::new(recovered.manifest.clone())));
    }
    // Translations typed since the last save come back too (the recovery file is a bundle,
    // which carries them).
    if current.locales != recovered.locales {
        ops.push(Op::SetLocales(Box::new(recovered.locales.clone())));
    }
    ops
}

impl ActforgeApp {
    /// Autosaves unsaved edits into `folder`, and offers the edits a previous session left
    /// there (it did not end cleanly).
    #[must_use]
    pub fn with_recovery(mut self, folder: &Path) -> Self {
        self.attach_recovery(folder);
        self
    }

    /// Autosaves into `folder` from now on, and offers what its recovery file holds.
    pub(crate) fn attach_recovery(&mut self, folder: &Path) {
        let recovery = Recovery::new(folder, &self.path);
        self.offer_recovery = None;
        match recovery.read() {
            Ok(Some(recovered)) => {
                if let Some(project) = self.project() {
                    let ops = recovery_ops(project, &recovered);
                    if ops.is_empty() {
                        recovery.clear();
                    } else {
                        self.offer_recovery = Some(ops);
                    }
                }
            }
            Ok(None) => {}
            Err(error) => {
                let file = recovery.file().display().to_string();
                self.log.push(match recovery.set_aside() {
                    Ok(aside) => {
                        format!("The recovery file {file} does not read ({error}); kept as {}", aside.display())
                    }
                    Err(why) => {
                        format!("The recovery file {file} does not read ({error}) and could not be moved aside: {why}")
                    }
                });
            }
        }
        self.recovery = Some(recovery);
    }

    /// Sets the seconds between autosaves (tests use 0).
    pub fn set_autosave_seconds(&mut self, seconds: f64) {
        self.autosave_seconds = seconds;
    }

    /// Writes the project to the recovery file every few seconds while it has unsaved edits;
    /// removes the file once nothing is unsaved.
    pub(crate) fn autosave(&mut self, ctx: &egui::Context) {
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

    /// The "unsaved edits found" question; the answer is a request, carried out after the frame.
    pub(crate) fn recovery_ui(&mut self, ctx: &egui::Context) {
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
        if let Some(recover) = decision {
            self.requests.send(Request::AnswerRecovery { recover });
        }
    }

    /// Recovers the offered edits (one undoable step) or discards them, as the designer answered.
    pub(crate) fn answer_recovery(&mut self, recover: bool) {
        let Some(ops) = self.offer_recovery.take() else { return };
        if recover {
            self.edit(Op::Batch(ops), "Recover unsaved edits", None);
        } else if let Some(recovery) = &self.recovery {
            recovery.clear();
            self.log.push("Discarded the unsaved edits of the last session".to_owned());
        }
    }
}
