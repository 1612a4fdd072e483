//! What the editor has open: a project's document with its sources and diagnostics, or the
//! reason it could not be opened.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use actforge_runtime::project::{Sources, open_project};
use actforge_runtime::validate::validate;
use actforge_runtime::{Diagnostic, Project};

use crate::document::Document;

/// An open project.
pub struct Open {
    /// The project and its revision.
    pub document: Document,
    /// The texts it came from, to place diagnostics at line:col.
    pub sources: Sources,
    /// Files that did not load: never overwritten.
    pub protected: BTreeSet<PathBuf>,
    /// What loading reported (kept until the next load).
    pub load_diagnostics: Vec<Diagnostic>,
    /// Loading's diagnostics plus validation of the current revision.
    pub diagnostics: Vec<Diagnostic>,
    /// The document revision `diagnostics` were found for.
    pub diagnostics_revision: u64,
}

impl Open {
    /// Validates the current revision again (loading's findings kept).
    pub fn revalidate(&mut self, root: Option<&Path>) {
        let mut diagnostics = self.load_diagnostics.clone();
        diagnostics.extend(validate(self.document.project(), &self.sources, root));
        self.diagnostics = diagnostics;
        self.diagnostics_revision = self.document.revision();
    }
}

/// What the workspace shows: an open project, or why it could not be opened.
pub enum Workspace {
    /// The project opened.
    Open(Box<Open>),
    /// It did not open.
    Failed {
        /// Why.
        message: String,
    },
}

impl Workspace {
    /// The open project, if it opened.
    pub fn project(&self) -> Option<&Project> {
        match self {
            Workspace::Open(open) => Some(open.document.project()),
            Workspace::Failed { .. } => None,
        }
    }
}

impl Workspace {
    /// Opens the project folder or bundle at `path`, validated; or says why it cannot.
    pub fn open(path: &Path) -> Workspace {
        match open_project(path) {
            Ok(loaded) => {
                let mut open = Open {
                    document: Document::new(loaded.project),
                    sources: loaded.sources,
                    protected: loaded.protected,
                    load_diagnostics: loaded.diagnostics,
                    diagnostics: Vec::new(),
                    diagnostics_revision: 0,
                };
                open.revalidate(path.is_dir().then_some(path));
                Workspace::Open(Box::new(open))
            }
            Err(error) => Workspace::Failed { message: error.to_string() },
        }
    }

    /// The open document, if the project opened.
    pub fn document(&self) -> Option<&Document> {
        match self {
            Workspace::Open(open) => Some(&open.document),
            Workspace::Failed { .. } => None,
        }
    }
}
