//! Loading and saving a project folder.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rayon::prelude::*;
use serde::Deserialize;

use crate::diagnostic::Diagnostic;
use crate::model::{
    Item, Items, Kind, KindVisitor, Manifest, ParallelKindVisitor, Project, SCHEMA_VERSION, slug_problem,
};

use super::merge::{ConflictFile, FieldConflict, conflict_diagnostics, read_conflict_file};
use super::ron_format::to_ron_string;
use super::{
    ItemConflict, Loaded, MANIFEST_FILE, ProjectError, Sources, check_schema, item_path, migrate, not_utf8, parse_ron,
    ron_error, write_atomic,
};

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
    super::atomic::remove_stale_temporaries(root);
    let mut diagnostics = Vec::new();
    let mut protected = BTreeSet::new();
    let manifest_bytes = fs::read(&manifest_path).map_err(|error| ProjectError::io(&manifest_path, error))?;
    let (manifest, manifest_source, version) = match String::from_utf8(manifest_bytes) {
        Ok(text) => {
            let version = match ron::from_str::<ManifestProbe>(&text) {
                Ok(ManifestProbe { schema_version: 0 }) => {
                    diagnostics.push(
                        Diagnostic::error(format!(
                            "{MANIFEST_FILE} has no schema_version; reading it as version {SCHEMA_VERSION}"
                        ))
                        .in_file(&manifest_path)
                        // The field belongs at the top of the file's struct.
                        .at(Some(crate::diagnostic::Position { line: 1, col: 1 })),
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
        }
        Err(error) => {
            diagnostics.push(not_utf8(&manifest_path, &error));
            protected.insert(manifest_path.clone());
            (fallback_manifest(root), None, SCHEMA_VERSION)
        }
    };

    let mut project = Project { manifest, ..Project::default() };
    let files = list_kind_folders(root, &mut diagnostics)?;
    let loader = FolderLoader { files: Mutex::new(files), outcomes: Mutex::new(Vec::new()) };
    project.visit_kinds_parallel(&loader);
    let mut outcomes = loader.outcomes.into_inner().unwrap_or_else(PoisonError::into_inner);
    // Threads finish in any order; reports follow the kinds' order.
    outcomes.sort_by_key(|outcome| Kind::ALL.iter().position(|kind| *kind == outcome.kind));
    let mut sources = HashMap::new();
    let mut conflicts = Vec::new();
    for outcome in outcomes {
        diagnostics.extend(outcome.diagnostics);
        protected.extend(outcome.protected);
        conflicts.extend(outcome.conflicts);
        sources.extend(outcome.sources.into_iter().map(|(id, text)| ((outcome.kind, id), text)));
    }
    if version < SCHEMA_VERSION {
        diagnostics.extend(migrate::upgrade(&mut project, version));
    }
    diagnostics.extend(migrate::palette_ids(&mut project));
    crate::locale::load_locales(root, &mut project, &mut diagnostics, &mut protected);
    Ok(Loaded {
        project,
        diagnostics,
        sources: Sources::folder(root.to_owned(), manifest_source, sources),
        protected,
        conflicts,
    })
}

/// The `.ron` files in every kind's folder, in file-name order. Other entries become warnings.
fn list_kind_folders(
    root: &Path,
    diagnostics: &mut Vec<Diagnostic>,
) -> Result<HashMap<Kind, Vec<PathBuf>>, ProjectError> {
    let mut listed = HashMap::new();
    for &kind in Kind::ALL {
        let folder = root.join(kind.folder());
        // Temporaries a killed save left: cleaned at the next load.
        super::atomic::remove_stale_temporaries(&folder);
        let entries = match fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            Err(error) => return Err(ProjectError::io(&folder, error)),
        };
        let mut files = Vec::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            if name.to_string_lossy().starts_with('.') {
                continue; // editor and system files (.actforge-*.tmp, .DS_Store)
            }
            // The directory entry knows its type: no extra system call per file (a link is
            // followed, so a link to a FIFO is not opened, which would wait forever).
            let path = entry.path();
            let is_file = entry.file_type().is_ok_and(|kind| {
                kind.is_file() || (kind.is_symlink() && fs::metadata(&path).is_ok_and(|meta| meta.is_file()))
            });
            let is_ron = path.extension().is_some_and(|ext| ext == "ron");
            if is_file && is_ron {
                files.push((name, path));
            } else if is_ron {
                diagnostics.push(
                    Diagnostic::error(
                        "this is not a file (a folder, a FIFO, a device or a broken link): no item was read from it; \
                         move it away or replace it with the item's file",
                    )
                    .in_file(&path),
                );
            } else {
                diagnostics.push(
                    Diagnostic::warning(format!(
                        "ignored: only .ron files belong in {}/ (one file per {})",
                        kind.folder(),
                        kind.label().to_lowercase()
                    ))
                    .in_file(&path),
                );
            }
        }
        // By name (cheaper than comparing whole paths component by component).
        files.sort_by(|a, b| a.0.cmp(&b.0));
        listed.insert(kind, files.into_iter().map(|(_, path)| path).collect());
    }
    Ok(listed)
}

/// A file's bytes (without the size query `fs::read` makes: one system call less per file).
fn read_file(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(2048);
    fs::File::open(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn fallback_manifest(root: &Path) -> Manifest {
    let name = root.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    Manifest::new(&name)
}

/// Loads every kind at once; each kind reads and parses its files in parallel.
struct FolderLoader {
    files: Mutex<HashMap<Kind, Vec<PathBuf>>>,
    outcomes: Mutex<Vec<KindOutcome>>,
}

/// What loading one kind's files gave.
struct KindOutcome {
    kind: Kind,
    diagnostics: Vec<Diagnostic>,
    protected: Vec<PathBuf>,
    sources: Vec<(String, String)>,
    conflicts: Vec<ItemConflict>,
}

/// What became of one file.
enum FileOutcome<T> {
    Loaded(T, String),
    Failed(Diagnostic),
    /// A merge conflict file: its merged item (our side of each conflict), and one error per
    /// conflict.
    Conflict(T, Vec<FieldConflict>, Vec<Diagnostic>),
}

impl ParallelKindVisitor for FolderLoader {
    fn visit<T: Item>(&self, items: &mut Items<T>) {
        let files = self.files.lock().unwrap_or_else(PoisonError::into_inner).remove(&T::KIND).unwrap_or_default();
        let results: Vec<(PathBuf, FileOutcome<T>)> = files
            .into_par_iter()
            .map(|path| {
                let outcome = parse_item_file::<T>(&path, read_file(&path));
                (path, outcome)
            })
            .collect();
        let mut outcome = KindOutcome {
            kind: T::KIND,
            diagnostics: Vec::new(),
            protected: Vec::new(),
            sources: Vec::new(),
            conflicts: Vec::new(),
        };
        for (path, result) in results {
            match result {
                FileOutcome::Loaded(item, text) => {
                    outcome.sources.push((item.id().as_str().to_owned(), text));
                    items.insert(item);
                }
                FileOutcome::Failed(diagnostic) => {
                    outcome.diagnostics.push(diagnostic);
                    outcome.protected.push(path);
                }
                FileOutcome::Conflict(item, conflicts, diagnostics) => {
                    outcome.diagnostics.extend(diagnostics);
                    outcome.conflicts.push(ItemConflict {
                        kind: T::KIND,
                        id: item.id().as_str().to_owned(),
                        path: path.clone(),
                        conflicts,
                    });
                    // Saving writes the item only once every conflict has a side.
                    outcome.protected.push(path);
                    items.insert(item);
                }
            }
        }
        self.outcomes.lock().unwrap_or_else(PoisonError::into_inner).push(outcome);
    }
}

fn parse_item_file<T: Item>(path: &Path, bytes: std::io::Result<Vec<u8>>) -> FileOutcome<T> {
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(error) => return FileOutcome::Failed(Diagnostic::error(format!("cannot read: {error}")).in_file(path)),
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => return FileOutcome::Failed(not_utf8(path, &error)),
    };
    if let Some(conflict) = read_conflict_file::<T>(&text) {
        return match conflict {
            Ok(file) => conflict_outcome(path, &text, file),
            Err(error) => FileOutcome::Failed(ron_error(path, &text, &error)),
        };
    }
    let item: T = match parse_ron(&text) {
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

/// A conflict file's item and one error per conflict, at the conflict's line in the file.
fn conflict_outcome<T: Item>(path: &Path, text: &str, file: ConflictFile<T>) -> FileOutcome<T> {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy().into_owned()).unwrap_or_default();
    if file.merged.id().as_str() != stem {
        return FileOutcome::Failed(
            Diagnostic::error(format!(
                "this merge conflict's item has the id `{}`, not the file name `{stem}.ron` (this file was not loaded)",
                file.merged.id()
            ))
            .in_file(path),
        );
    }
    let diagnostics = conflict_diagnostics(path, text, T::KIND, file.merged.id().as_str(), &file.conflicts);
    FileOutcome::Conflict(file.merged, file.conflicts, diagnostics)
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
    let mut files: Vec<(PathBuf, String)> =
        renderer.files.into_iter().map(|(path, text)| text.map(|text| (path, text))).collect::<Result<_, _>>()?;
    files.extend(
        crate::locale::locale_files(project)
            .map_err(|message| ProjectError::Serialise { what: "translations".to_owned(), message })?,
    );
    Ok(files)
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
        if let Some(folder) = path.parent().filter(|folder| !folder.exists()) {
            // A new language's folder.
            fs::create_dir_all(folder).map_err(|error| ProjectError::io(folder, error))?;
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

/// Saves `project` into `root`, which must be new or empty (restoring or importing), atomic
/// as a whole: every file is written into a hidden sibling folder that is then renamed into
/// place, so a killed import leaves no half project, and no file needs a sync of its own
/// (ten thousand items took a minute with one each).
pub fn save_new_folder(project: &Project, root: &Path) -> Result<SaveReport, ProjectError> {
    if !is_new_or_empty(root)? {
        return Err(ProjectError::NotEmpty { path: root.to_owned() });
    }
    let files = render_files(project)?;
    let parent = root.parent().filter(|parent| !parent.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(parent).map_err(|error| ProjectError::io(parent, error))?;
    super::atomic::remove_stale_temporaries(parent);
    let staging = tempfile::Builder::new()
        .prefix(super::atomic::STAGING_PREFIX)
        .tempdir_in(parent)
        .map_err(|error| ProjectError::io(parent, error))?;
    let mut report = SaveReport::default();
    for (relative, text) in files {
        let path = staging.path().join(&relative);
        if let Some(folder) = path.parent() {
            fs::create_dir_all(folder).map_err(|error| ProjectError::io(folder, error))?;
        }
        fs::write(&path, text.as_bytes()).map_err(|error| ProjectError::io(&root.join(&relative), error))?;
        report.written.push(relative);
    }
    // A temporary folder is private (0700); a project folder is not.
    #[cfg(unix)]
    fs::set_permissions(staging.path(), std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .map_err(|error| ProjectError::io(staging.path(), error))?;
    if root.exists() {
        fs::remove_dir(root).map_err(|error| ProjectError::io(root, error))?;
    }
    // On failure the staging folder is dropped, and removed with what it holds.
    fs::rename(staging.path(), root).map_err(|error| ProjectError::io(root, error))?;
    let _ = staging.keep();
    if let Ok(dir) = fs::File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(report)
}

/// The `.gitattributes` a new project gets: git merges its files with `actforge merge`
/// once the driver is set up (README, "Teamwork with git").
pub const GIT_ATTRIBUTES: &str = "# Merge project files field by field with Actforge's merge driver; set it up once per\n\
# clone: git config merge.actforge.driver 'actforge merge %O %A %B -o %A --path %P'\n\
*.ron merge=actforge\n";

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
    let attributes = root.join(".gitattributes");
    write_atomic(&attributes, GIT_ATTRIBUTES.as_bytes()).map_err(|error| ProjectError::io(&attributes, error))?;
    Ok(project)
}
