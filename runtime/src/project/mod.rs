//! Project folders and bundles: loading with diagnostics, stable output, atomic saves.
//!
//! A project folder holds `project.ron` and one RON file per item in a folder per kind
//! (`acts/first_one.ron`). A bundle is the same content in one file (RON or JSON) for other
//! runtimes. See FORMAT.md for both.

mod atomic;
mod bundle;
pub mod diff;
pub mod fast_ron;
mod folder;
pub mod merge;
mod migrate;
pub mod ron_format;
mod sources;

use std::collections::BTreeSet;
use std::io;
use std::path::{Path, PathBuf};

pub use atomic::write_atomic;
pub use bundle::{
    BundleFormat, bundle_tests, bundle_text, bundle_text_with_tests, export_bundle, export_bundle_with_tests,
    import_bundle, load_bundle, parse_bundle,
};
pub use folder::{
    GIT_ATTRIBUTES, SaveReport, create_project, item_text, load_folder, manifest_text, render_files, save_folder,
    save_new_folder,
};
pub use sources::Sources;

use crate::diagnostic::{Diagnostic, Position};
use crate::model::{Kind, Project, SCHEMA_VERSION};

/// The manifest's file name inside a project folder.
pub const MANIFEST_FILE: &str = "project.ron";

/// Why a project or bundle could not be opened or written at all.
///
/// Problems inside single files are [`Diagnostic`]s instead, and the rest still loads.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: io::Error,
    },
    /// The folder has no `project.ron`.
    #[error("{} is not an Actforge project: it has no {MANIFEST_FILE} (create one with `actforge new`)", path.display())]
    NotAProject {
        /// The folder.
        path: PathBuf,
    },
    /// Written by a newer Actforge.
    #[error(
        "{}: this project uses schema version {found}, but this build of Actforge reads versions up to {supported}; \
         update Actforge to open it (nothing was changed)",
        path.display()
    )]
    NewerSchema {
        /// The manifest or bundle.
        path: PathBuf,
        /// The version in the file.
        found: u32,
        /// The newest version this build knows.
        supported: u32,
    },
    /// The file is not readable as a project or bundle at all.
    #[error("{0}")]
    Unreadable(Box<Diagnostic>),
    /// Refusing to write into a folder that already has content.
    #[error("{} already exists and is not empty; choose a new or empty folder", path.display())]
    NotEmpty {
        /// The folder.
        path: PathBuf,
    },
    /// An item whose id cannot be a file name; nothing was written.
    #[error("cannot save {} `{id}`: {problem} (nothing was written)", kind.label().to_lowercase())]
    InvalidId {
        /// Kind of the item.
        kind: Kind,
        /// The id.
        id: String,
        /// Why it is not a valid id.
        problem: String,
    },
    /// Content that cannot be written (e.g. a non-finite number where a bundle needs one).
    #[error("cannot write {what}: {message}")]
    Serialise {
        /// What was being written.
        what: String,
        /// Why it failed.
        message: String,
    },
}

impl ProjectError {
    fn io(path: &Path, source: io::Error) -> Self {
        Self::Io { path: path.to_owned(), source }
    }
}

/// A project as loaded, with what went wrong on the way.
#[derive(Debug)]
pub struct Loaded {
    /// Everything that loaded.
    pub project: Project,
    /// Files that did not parse, ids that do not match file names, migrations applied.
    pub diagnostics: Vec<Diagnostic>,
    /// The texts the project came from, to place later diagnostics at a line and column.
    pub sources: Sources,
    /// Files that did not load: saving must never overwrite them, or the designer's text
    /// would be lost. Conflict files are among them.
    pub protected: BTreeSet<PathBuf>,
    /// Items whose file is a merge conflict (`actforge merge`): the project holds our side of
    /// each conflicted field until a side is chosen.
    pub conflicts: Vec<ItemConflict>,
}

/// An item file holding a merge conflict.
#[derive(Clone, Debug, PartialEq)]
pub struct ItemConflict {
    /// The item's kind.
    pub kind: Kind,
    /// Its id.
    pub id: String,
    /// The file.
    pub path: PathBuf,
    /// The fields changed both ways.
    pub conflicts: Vec<merge::FieldConflict>,
}

/// Opens a project folder, or a bundle file (RON or JSON).
pub fn open_project(path: &Path) -> Result<Loaded, ProjectError> {
    if path.is_dir() { load_folder(path) } else { load_bundle(path) }
}

/// The relative path of an item's file inside a project folder.
pub fn item_path(kind: Kind, id: &str) -> PathBuf {
    Path::new(kind.folder()).join(format!("{id}.ron"))
}

/// Checks a schema version found in `path`.
fn check_schema(path: &Path, found: u32) -> Result<(), ProjectError> {
    if found > SCHEMA_VERSION {
        return Err(ProjectError::NewerSchema { path: path.to_owned(), found, supported: SCHEMA_VERSION });
    }
    if found == 0 {
        return Err(ProjectError::Unreadable(Box::new(
            Diagnostic::error("schema_version 0 does not exist; the first version is 1").in_file(path),
        )));
    }
    Ok(())
}

/// Parses one RON value: the fast reader first, `ron` when it gives up (`ron` decides what
/// is valid and reports errors).
fn parse_ron<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ron::error::SpannedError> {
    match fast_ron::from_str(text) {
        Some(value) => Ok(value),
        None => ron::from_str(text),
    }
}

/// A diagnostic for a RON parse error, at the error's line and column (moved forward over
/// whitespace, so the caret lands on the offending character).
pub(crate) fn ron_error(file: &Path, text: &str, error: &ron::error::SpannedError) -> Diagnostic {
    let start = error.span.start;
    let at = Position { line: start.line, col: start.col };
    Diagnostic::error(format!("this file is not valid RON: {}", error.code))
        .in_file(file)
        .at(Some(skip_whitespace(text, at)))
}

/// "this file is not UTF-8 text", at the line and column of the first byte that is not.
pub(crate) fn not_utf8(file: &Path, error: &std::string::FromUtf8Error) -> Diagnostic {
    let bytes = error.as_bytes();
    let valid = bytes.get(..error.utf8_error().valid_up_to()).and_then(|valid| std::str::from_utf8(valid).ok());
    let at = valid.map(|valid| crate::ron_locate::position_of(valid, valid.len()));
    Diagnostic::error("this file is not UTF-8 text").in_file(file).at(at)
}

/// The first non-whitespace character at or after `at` (or `at` itself at the end).
fn skip_whitespace(text: &str, at: Position) -> Position {
    let Some(offset) = crate::ron_locate::offset_of(text, at) else { return at };
    let rest = text.get(offset..).unwrap_or_default();
    match rest.char_indices().find(|(_, c)| !c.is_whitespace()) {
        Some((skip, _)) => crate::ron_locate::position_of(text, offset + skip),
        None => at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 27 (found by `tests/fuzz.rs`): a file that is not UTF-8 says where its first bad
    /// byte is, and a JSON bundle's error column counts characters, as every diagnostic does.
    #[test]
    fn encoding_and_json_errors_are_placed_at_a_line_and_character_column() -> Result<(), String> {
        let bytes = b"(\n  id: \"\xc3\xa9t\xe9\",\n)".to_vec();
        let error = String::from_utf8(bytes).err().ok_or("not UTF-8")?;
        let diagnostic = not_utf8(Path::new("cards/x.ron"), &error);
        assert_eq!(diagnostic.position, Some(Position { line: 2, col: 10 }));

        let text = "{\"format\": \"\u{e9}\u{e9}\u{e9}\u{e9}\", \"x\": ]}";
        let error = parse_bundle(text, Path::new("b.json")).err().ok_or("not a bundle")?;
        let ProjectError::Unreadable(diagnostic) = error else { return Err(format!("{error}")) };
        let position = diagnostic.position.ok_or("no position")?;
        assert_eq!(position.line, 1);
        let bracket = text.chars().position(|c| c == ']').ok_or("no bracket")?;
        assert_eq!(position.col, bracket + 1, "at the `]`, counted in characters");
        Ok(())
    }
}
