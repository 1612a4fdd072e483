//! Loading and saving a project folder.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde::Deserialize;

use crate::diagnostic::Diagnostic;
use crate::model::{Item, Items, Kind, KindVisitor, KindVisitorMut, Manifest, Project, SCHEMA_VERSION, slug_problem};

use super::ron_format::to_ron_string;
use super::{Loaded, MANIFEST_FILE, ProjectError, Sources, check_schema, item_path, migrate, ron_error, write_atomic};

/// The text of an item's file.
pub fn item_text<T: Item>(item: &T) -> Result<String, ProjectError> {
    to_ron_string(item).map_err(|error| ProjectError::Serialise {
        what: format!("{} `{}`", T::KIND.label().to_lowercase(), item.id()),
        message: error.to_string(),
    })
}

/// The text of `project.ron`.
pub fn manifest_text(manifest: &Manifest) -> Result<String, ProjectError> {
    to_ron_string(manifest)
        .map_err(|error| ProjectError::Serialise { what: MANIFEST_FILE.to_owned(), message: error.to_string() })
}

/// Just enough of `project.ron` to learn its schema version, whatever else it holds.
#[derive(Deserialize)]
struct ManifestProbe {
    /// 0 when missing (a plain field: RON would want `Some(...)` around an option).
    #[serde(default)]
    schema_version: u32,
}

/// Loads the project in `root`. Files that fail to parse become diagnostics (and are
/// protected from being overwritten); everything else loads.
pub fn load_folder(root: &Path) -> Result<Loaded, ProjectError> {
    let manifest_path = root.join(MANIFEST_FILE);
    if !manifest_path.is_file() {
        return Err(ProjectError::NotAProject { path: root.to_owned() });
    }
    let mut diagnostics = Vec::new();
    let mut protected = BTreeSet::new();
    let manifest_bytes = fs::read(&manifest_path).map_err(|error| ProjectError::io(&manifest_path, error))?;
    let (manifest, manifest_source, version) = if let Ok(text) = String::from_utf8(manifest_bytes) {
        let version = match ron::from_str::<ManifestProbe>(&text) {
            Ok(ManifestProbe { schema_version: 0 }) => {
                diagnostics.push(
                    Diagnostic::error(format!(
                        "{MANIFEST_FILE} has no schema_version; reading it as version {SCHEMA_VERSION}"
                    ))
                    .in_file(&manifest_path),
                );
                SCHEMA_VERSION
            }
            Ok(ManifestProbe { schema_version: version }) => {
                check_schema(&manifest_path, version)?;
                version
            }
            Err(_) => SCHEMA_VERSION,
        };
        let manifest = match ron::from_str::<Manifest>(&text) {
            Ok(manifest) => manifest,
            Err(error) => {
                diagnostics.push(ron_error(&manifest_path, &text, &error));
                protected.insert(manifest_path.clone());
                fallback_manifest(root)
            }
        };
        (manifest, Some(text), version)
    } else {
        diagnostics.push(Diagnostic::error("this file is not UTF-8 text").in_file(&manifest_path));
        protected.insert(manifest_path.clone());
        (fallback_manifest(root), None, SCHEMA_VERSION)
    };

    let mut project = Project { manifest, ..Project::default() };
    let mut loader = FolderLoader { root, diagnostics, protected, sources: HashMap::new(), failure: None };
    project.visit_kinds_mut(&mut loader);
    if let Some(error) = loader.failure {
        return Err(error);
    }
    let FolderLoader { mut diagnostics, protected, sources, .. } = loader;
    if version < SCHEMA_VERSION {
        diagnostics.extend(migrate::upgrade(&mut project, version));
    }
    Ok(Loaded { project, diagnostics, sources: Sources::folder(root.to_owned(), manifest_source, sources), protected })
}

fn fallback_manifest(root: &Path) -> Manifest {
    let name = root.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    Manifest::new(&name)
}

struct FolderLoader<'a> {
    root: &'a Path,
    diagnostics: Vec<Diagnostic>,
    protected: BTreeSet<PathBuf>,
    sources: HashMap<(Kind, String), String>,
    failure: Option<ProjectError>,
}

/// What became of one file.
enum FileOutcome<T> {
    Loaded(T, String),
    Failed(Diagnostic),
}

impl KindVisitorMut for FolderLoader<'_> {
    fn visit<T: Item>(&mut self, items: &mut Items<T>) {
        if self.failure.is_some() {
            return;
        }
        let folder = self.root.join(T::KIND.folder());
        if !folder.is_dir() {
            return;
        }
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(error) => {
                self.failure = Some(ProjectError::io(&folder, error));
                return;
            }
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue; // editor and system files (.actforge-*.tmp, .DS_Store)
            }
            if path.extension().is_some_and(|ext| ext == "ron") && path.is_file() {
                files.push(path);
            } else {
                self.diagnostics.push(
                    Diagnostic::warning(format!(
                        "ignored: only .ron files belong in {}/ (one file per {})",
                        T::KIND.folder(),
                        T::KIND.label().to_lowercase()
                    ))
                    .in_file(&path),
                );
            }
        }
        files.sort();
        let outcomes: Vec<(PathBuf, FileOutcome<T>)> = files
            .into_par_iter()
            .map(|path| {
                let outcome = load_item_file::<T>(&path);
                (path, outcome)
            })
            .collect();
        for (path, outcome) in outcomes {
            match outcome {
                FileOutcome::Loaded(item, text) => {
                    self.sources.insert((T::KIND, item.id().as_str().to_owned()), text);
                    items.insert(item);
                }
                FileOutcome::Failed(diagnostic) => {
                    self.diagnostics.push(diagnostic);
                    self.protected.insert(path);
                }
            }
        }
    }
}

fn load_item_file<T: Item>(path: &Path) -> FileOutcome<T> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => return FileOutcome::Failed(Diagnostic::error(format!("cannot read: {error}")).in_file(path)),
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return FileOutcome::Failed(Diagnostic::error("this file is not UTF-8 text").in_file(path));
    };
    let item: T = match ron::from_str(&text) {
        Ok(item) => item,
        Err(error) => return FileOutcome::Failed(ron_error(path, &text, &error)),
    };
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    if item.id().as_str() != stem {
        let at = crate::ron_locate::locate(&text, &crate::model::FieldPath::root().field("id"));
        return FileOutcome::Failed(
            Diagnostic::error(format!(
                "the id `{}` does not match the file name `{stem}.ron`; rename the file or change the id \
                 (this file was not loaded)",
                item.id()
            ))
            .in_file(path)
            .at(at)
            .for_item(T::KIND, item.id().as_str()),
        );
    }
    FileOutcome::Loaded(item, text)
}

/// What a save did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct SaveReport {
    /// Files written because their content changed (relative to the project folder).
    pub written: Vec<PathBuf>,
    /// Files left alone because they already held the same bytes.
    pub unchanged: usize,
    /// Files not written because they did not load and would have been overwritten.
    pub skipped: Vec<PathBuf>,
}

struct Renderer {
    files: Vec<(PathBuf, Result<String, ProjectError>)>,
}

impl KindVisitor for Renderer {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        // An id becomes a file name: anything but a slug (e.g. `../x`) could write outside
        // the project folder, so it stops the whole save before anything is written.
        if let Some(item) = items.iter().find(|item| slug_problem(item.id().as_str()).is_some()) {
            let id = item.id().as_str().to_owned();
            let problem = slug_problem(&id).unwrap_or_default();
            self.files.push((PathBuf::new(), Err(ProjectError::InvalidId { kind: T::KIND, id, problem })));
            return;
        }
        let rendered: Vec<_> = items
            .iter()
            .collect::<Vec<_>>()
            .into_par_iter()
            .map(|item| (item_path(T::KIND, item.id().as_str()), item_text(item)))
            .collect();
        self.files.extend(rendered);
    }
}

/// Every file of the project as (relative path, text), manifest first.
pub fn render_files(project: &Project) -> Result<Vec<(PathBuf, String)>, ProjectError> {
    let mut renderer = Renderer { files: vec![(PathBuf::from(MANIFEST_FILE), manifest_text(&project.manifest))] };
    project.visit_kinds(&mut renderer);
    renderer.files.into_iter().map(|(path, text)| text.map(|text| (path, text))).collect()
}

/// Saves `project` into `root`, writing only files whose bytes change, each atomically.
/// Paths in `protected` (files that failed to load) are never overwritten.
pub fn save_folder(project: &Project, root: &Path, protected: &BTreeSet<PathBuf>) -> Result<SaveReport, ProjectError> {
    let files = render_files(project)?;
    let mut report = SaveReport::default();
    for (relative, text) in files {
        let path = root.join(&relative);
        if protected.contains(&path) {
            report.skipped.push(relative);
            continue;
        }
        if fs::read(&path).is_ok_and(|old| old == text.as_bytes()) {
            report.unchanged += 1;
            continue;
        }
        write_atomic(&path, text.as_bytes()).map_err(|error| ProjectError::io(&path, error))?;
        report.written.push(relative);
    }
    Ok(report)
}

/// Whether `path` is missing or an empty folder.
pub(super) fn is_new_or_empty(path: &Path) -> Result<bool, ProjectError> {
    match fs::read_dir(path) {
        Ok(mut entries) => Ok(entries.next().is_none()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(true),
        Err(error) => Err(ProjectError::io(path, error)),
    }
}

/// Creates a new, empty project in `root` (which must be new or empty), named after the folder.
pub fn create_project(root: &Path) -> Result<Project, ProjectError> {
    if !is_new_or_empty(root)? {
        return Err(ProjectError::NotEmpty { path: root.to_owned() });
    }
    let project = Project { manifest: fallback_manifest(root), ..Project::default() };
    save_folder(&project, root, &BTreeSet::new())?;
    for kind in Kind::ALL {
        let folder = root.join(kind.folder());
        fs::create_dir_all(&folder).map_err(|error| ProjectError::io(&folder, error))?;
    }
    Ok(project)
}
