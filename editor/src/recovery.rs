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

use crate::document::{ItemKey, Op, get_item};

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

    /// The recovered project, if a recovery file exists and reads.
    pub fn read(&self) -> Option<Project> {
        let text = std::fs::read_to_string(&self.file).ok()?;
        parse_bundle(&text, &self.file).ok().map(|loaded| loaded.project)
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
    ops
}
