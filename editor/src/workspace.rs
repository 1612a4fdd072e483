//! What the editor has open: a project's document with its sources and diagnostics, or the
//! reason it could not be opened.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use actforge_runtime::project::{ItemConflict, Sources, open_project};
use actforge_runtime::validate::Validation;
use actforge_runtime::{Diagnostic, Project};

use crate::document::{Document, ItemKey};

/// An open project.
pub struct Open {
    /// The project and its revision.
    pub document: Document,
    /// The texts it came from, to place diagnostics at line:col.
    pub sources: Sources,
    /// Files that did not load: never overwritten.
    pub protected: BTreeSet<PathBuf>,
    /// Item files holding a merge conflict no side was chosen for yet: the document holds our
    /// side of each, and saving leaves the file alone until the conflict is resolved.
    pub conflicts: Vec<ItemConflict>,
    /// What loading reported (kept until the next load).
    pub load_diagnostics: Vec<Diagnostic>,
    /// Loading's diagnostics plus validation of the current revision.
    pub diagnostics: Vec<Diagnostic>,
    /// The document revision `diagnostics` were found for.
    pub diagnostics_revision: u64,
    /// Validation's findings per item, brought up to date edit by edit, and the project folder
    /// it was made with.
    pub validation: Option<(Validation, Option<PathBuf>)>,
}

/// An item file of the project folder that did not load: shown in the browser with its error
/// and editable as text; saving never overwrites it while the document lacks its item.
#[derive(Clone, Debug)]
pub struct BrokenFile {
    /// The item it should hold (its folder's kind, its file name's id).
    pub key: ItemKey,
    /// The file.
    pub path: PathBuf,
    /// Why it did not load.
    pub problem: Option<Diagnostic>,
}

impl Open {
    /// Validates the current revision again (loading's findings kept, but for files whose
    /// item the document holds by now: fixed in the editor or on disk).
    pub fn revalidate(&mut self, root: Option<&Path>) {
        let fixed: BTreeSet<&PathBuf> = self.protected.iter().filter(|path| self.item_of(path).is_some()).collect();
        let mut diagnostics: Vec<Diagnostic> = self
            .load_diagnostics
            .iter()
            .filter(|d| d.file.as_ref().is_none_or(|file| !fixed.contains(file)))
            .cloned()
            .collect();
        let project = self.document.project();
        let changes = self.document.changes_since(self.diagnostics_revision);
        match (&mut self.validation, changes) {
            // Same folder, changes known: only what changed (and what reads it) is checked again.
            (Some((validation, validated_root)), Some(changes)) if validated_root.as_deref() == root => {
                let changed = changes.items.iter().map(|key| (key.kind, key.id.as_str()));
                validation.update(project, &self.sources, root, changed);
            }
            _ => self.validation = Some((Validation::new(project, &self.sources, root), root.map(Path::to_path_buf))),
        }
        if let Some((validation, _)) = &self.validation {
            diagnostics.extend(validation.diagnostics());
        }
        diagnostics.extend(actforge_runtime::locale::check_locales(project, root));
        self.diagnostics = diagnostics;
        self.diagnostics_revision = self.document.revision();
    }
}

impl Open {
    /// The item a protected file should hold, if the document holds it now (and the file is
    /// no merge conflict still to resolve).
    fn item_of(&self, path: &Path) -> Option<ItemKey> {
        if self.conflicts.iter().any(|conflict| conflict.path == path) {
            return None;
        }
        let key = key_of_file(path)?;
        self.document.project().contains(key.kind, &key.id).then_some(key)
    }

    /// The item files that did not load and whose item the document does not hold.
    pub fn broken_files(&self) -> Vec<BrokenFile> {
        self.protected
            .iter()
            .filter_map(|path| {
                let key = key_of_file(path)?;
                if self.document.project().contains(key.kind, &key.id) {
                    return None;
                }
                let problem = self.load_diagnostics.iter().find(|d| d.file.as_deref() == Some(path.as_path())).cloned();
                Some(BrokenFile { key, path: path.clone(), problem })
            })
            .collect()
    }

    /// The files a save must not write over: those that did not load, unless the document
    /// holds their item by now (then saving writes the item, as the designer fixed it).
    pub fn protected_now(&self) -> BTreeSet<PathBuf> {
        self.protected.iter().filter(|path| self.item_of(path).is_none()).cloned().collect()
    }
}

/// The item a project file is for: its folder's kind and its name's id (`cards/ember.ron`).
fn key_of_file(path: &Path) -> Option<ItemKey> {
    if path.extension().is_none_or(|ext| ext != "ron") {
        return None;
    }
    let folder = path.parent()?.file_name()?.to_str()?;
    let kind = actforge_runtime::Kind::from_folder(folder)?;
    Some(ItemKey::new(kind, path.file_stem()?.to_str()?))
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
                    conflicts: loaded.conflicts,
                    load_diagnostics: loaded.diagnostics,
                    diagnostics: Vec::new(),
                    diagnostics_revision: 0,
                    validation: None,
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
