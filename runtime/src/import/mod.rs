//! Importers: other tools' content turned into an Actforge [`Project`](crate::Project).
//!
//! An importer never panics on its input: what the model cannot express, or what looks wrong,
//! becomes a [`Diagnostic`](crate::Diagnostic) naming the source file and field; only a source
//! that cannot be read at all is an [`ImportError`].

pub mod cultistlike;
pub mod unity_yaml;

use std::io;
use std::path::{Path, PathBuf};

pub use cultistlike::{CultistlikeOptions, Imported, import_cultistlike, import_cultistlike_with};

use crate::project::{ProjectError, write_atomic};

/// Why an import could not start or finish at all.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The source is not a folder.
    #[error("{} is not a folder; give the folder that holds the Unity assets (Resources/…)", path.display())]
    NotAFolder {
        /// What was given.
        path: PathBuf,
    },
    /// The folder holds nothing to import.
    #[error(
        "{} holds no .asset files; give the folder that holds the Unity assets (e.g. a demo folder with Resources/)",
        path.display()
    )]
    NoAssets {
        /// The folder.
        path: PathBuf,
    },
    /// Writing the project failed.
    #[error(transparent)]
    Project(#[from] ProjectError),
}

impl ImportError {
    fn io(path: &Path, source: io::Error) -> Self {
        Self::Io { path: path.to_owned(), source }
    }
}

/// Copies `files` (paths relative to `from`, e.g. the `art` of imported items) to the same
/// relative paths under `to`, each atomically; returns how many were copied.
pub fn copy_files(from: &Path, to: &Path, files: &[PathBuf]) -> Result<usize, ImportError> {
    let mut copied = 0;
    for relative in files {
        if relative.is_absolute() || relative.components().any(|part| part == std::path::Component::ParentDir) {
            // Paths come from our own import, but a copy must never leave the project folder.
            continue;
        }
        let source = from.join(relative);
        let bytes = std::fs::read(&source).map_err(|error| ImportError::io(&source, error))?;
        let target = to.join(relative);
        write_atomic(&target, &bytes).map_err(|error| ImportError::io(&target, error))?;
        copied += 1;
    }
    Ok(copied)
}
