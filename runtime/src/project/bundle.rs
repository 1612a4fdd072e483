//! Single-file bundles (RON, or JSON on request) for other runtimes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Position};
use crate::model::{BUNDLE_FORMAT, Bundle, Item, Items, Kind, KindVisitor, ListVisitor, Project, SCHEMA_VERSION};
use crate::ron_locate::{TopField, top_level_fields};
use rayon::prelude::*;

use super::folder::is_new_or_empty;
use super::ron_format::value_at;
use super::{
    Loaded, ProjectError, SaveReport, Sources, check_schema, migrate, not_utf8, parse_ron, ron_error, save_new_folder,
    write_atomic,
};

/// The text format of a bundle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BundleFormat {
    /// RON, laid out like project files.
    #[default]
    Ron,
    /// JSON, pretty-printed.
    Json,
}

/// The bundle text of `project`.
pub fn bundle_text(project: &Project, format: BundleFormat) -> Result<String, ProjectError> {
    bundle_text_with_tests(project, &BTreeMap::new(), format)
}

/// The bundle text of `project` carrying the playtests `tests` (name → script text).
pub fn bundle_text_with_tests(
    project: &Project,
    tests: &BTreeMap<String, String>,
    format: BundleFormat,
) -> Result<String, ProjectError> {
    let serialise = |message: String| ProjectError::Serialise { what: "the bundle".to_owned(), message };
    match format {
        BundleFormat::Ron => ron_bundle_text(project, tests).map_err(|error| serialise(error.to_string())),
        BundleFormat::Json => {
            let mut bundle = Bundle::from_project(project);
            bundle.tests = tests.clone();
            let mut text = serde_json::to_string_pretty(&bundle).map_err(|error| serialise(error.to_string()))?;
            text.push('\n');
            Ok(text)
        }
    }
}

/// The RON bundle: the header, then each kind's list with one item per element, every item
/// laid out like a project file (items are laid out in parallel).
fn ron_bundle_text(project: &Project, tests: &BTreeMap<String, String>) -> Result<String, ron::Error> {
    struct Lists {
        parts: Vec<(Kind, Result<Vec<String>, ron::Error>)>,
    }
    impl KindVisitor for Lists {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            if items.is_empty() {
                return;
            }
            let laid_out = items.iter().collect::<Vec<_>>().into_par_iter().map(|item| value_at(item, 2, 8)).collect();
            self.parts.push((T::KIND, laid_out));
        }
    }
    let mut lists = Lists { parts: Vec::new() };
    project.visit_kinds(&mut lists);
    let mut text = String::from("(\n");
    let header = [
        ("format", value_at(&BUNDLE_FORMAT, 1, 12)?),
        ("schema_version", value_at(&project.manifest.schema_version, 1, 20)?),
        ("project", value_at(&project.manifest, 1, 13)?),
    ];
    for (name, value) in header {
        text.push_str("    ");
        text.push_str(name);
        text.push_str(": ");
        text.push_str(&value);
        text.push_str(",\n");
    }
    for (kind, items) in lists.parts {
        text.push_str("    ");
        text.push_str(kind.folder());
        text.push_str(": [\n");
        for item in items? {
            text.push_str("        ");
            text.push_str(&item);
            text.push_str(",\n");
        }
        text.push_str("    ],\n");
    }
    if !tests.is_empty() {
        text.push_str("    tests: ");
        text.push_str(&value_at(tests, 1, 11)?);
        text.push_str(",\n");
    }
    if !project.locales.is_empty() {
        text.push_str("    locales: ");
        text.push_str(&value_at(&project.locales, 1, 13)?);
        text.push_str(",\n");
    }
    text.push_str(")\n");
    Ok(text)
}

/// Writes the bundle of `project` to `path`, atomically.
pub fn export_bundle(project: &Project, path: &Path, format: BundleFormat) -> Result<(), ProjectError> {
    export_bundle_with_tests(project, &BTreeMap::new(), path, format)
}

/// Writes the bundle of `project` with the playtests `tests` (name → script) to `path`.
pub fn export_bundle_with_tests(
    project: &Project,
    tests: &BTreeMap<String, String>,
    path: &Path,
    format: BundleFormat,
) -> Result<(), ProjectError> {
    let text = bundle_text_with_tests(project, tests, format)?;
    write_atomic(path, text.as_bytes()).map_err(|error| ProjectError::io(path, error))
}

/// The playtests a bundle carries (name → script text); none when it was exported without.
pub fn bundle_tests(path: &Path) -> Result<BTreeMap<String, String>, ProjectError> {
    /// Only the `tests` field; the rest of the bundle is skipped.
    #[derive(Deserialize)]
    struct TestsProbe {
        #[serde(default)]
        tests: BTreeMap<String, String>,
    }
    let text = fs::read_to_string(path).map_err(|error| ProjectError::io(path, error))?;
    let unreadable = |message: String| ProjectError::Unreadable(Box::new(Diagnostic::error(message).in_file(path)));
    let probe: TestsProbe = if looks_like_json(&text) {
        serde_json::from_str(&text).map_err(|error| unreadable(format!("this bundle is not valid JSON: {error}")))?
    } else {
        ron::from_str(&text).map_err(|error| unreadable(format!("this bundle is not valid RON: {error}")))?
    };
    Ok(probe.tests)
}

/// Just enough of a bundle to check that it is one, and its version.
/// (Plain fields with defaults, not options: RON would want `Some(...)` around them.)
#[derive(Deserialize)]
struct BundleProbe {
    #[serde(default)]
    format: String,
    /// 0 when missing.
    #[serde(default)]
    schema_version: u32,
}

fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with('{')
}

/// Checks the header of a bundle: the format marker and a schema version this build reads.
fn check_header(path: &Path, format: &str, version: u32) -> Result<(), ProjectError> {
    if format != BUNDLE_FORMAT {
        return Err(ProjectError::Unreadable(Box::new(
            Diagnostic::error(format!("this is not an Actforge bundle: it needs `format: \"{BUNDLE_FORMAT}\"`"))
                .in_file(path),
        )));
    }
    if version == 0 {
        return Err(ProjectError::Unreadable(Box::new(
            Diagnostic::error("this bundle has no schema_version")
                .in_file(path)
                .at(Some(crate::diagnostic::Position { line: 1, col: 1 })),
        )));
    }
    check_schema(path, version)
}

/// Parses a RON bundle. The fast path splits the top-level struct and parses each kind's
/// list on its own thread (RON parsing is the bottleneck of large bundles); anything it does
/// not understand falls back to one whole-text parse, which gives the exact error.
fn parse_ron_bundle(text: &str, path: &Path) -> Result<Bundle, ProjectError> {
    if let Some(fields) = top_level_fields(text) {
        let header =
            |name: &str| fields.iter().find(|field| field.name == name).and_then(|field| text.get(field.value.clone()));
        let format: String = header("format").and_then(|value| ron::from_str(value).ok()).unwrap_or_default();
        let version: u32 = header("schema_version").and_then(|value| ron::from_str(value).ok()).unwrap_or_default();
        check_header(path, &format, version)?;
        if let Some(bundle) = parse_ron_parts(text, &fields) {
            return Ok(bundle);
        }
    }
    let unreadable =
        |error: &ron::error::SpannedError| ProjectError::Unreadable(Box::new(ron_error(path, text, error)));
    let probe: BundleProbe = ron::from_str(text).map_err(|error| unreadable(&error))?;
    check_header(path, &probe.format, probe.schema_version)?;
    ron::from_str(text).map_err(|error| unreadable(&error))
}

/// The fast path of [`parse_ron`]; `None` whenever the whole-text parse should decide.
fn parse_ron_parts(text: &str, fields: &[TopField]) -> Option<Bundle> {
    struct ParseLists<'a> {
        text: &'a str,
        lists: HashMap<&'a str, &'a [std::ops::Range<usize>]>,
        failed: AtomicBool,
    }
    impl ListVisitor for ParseLists<'_> {
        fn visit<T: Item>(&self, kind: Kind, list: &mut Vec<T>) {
            let Some(elements) = self.lists.get(kind.folder()) else { return };
            // Items are parsed one by one across threads: one kind can hold most of the text.
            let parsed: Option<Vec<T>> = elements
                .par_iter()
                .map(|range| self.text.get(range.clone()).and_then(|item| parse_ron(item).ok()))
                .collect();
            match parsed {
                Some(parsed) => *list = parsed,
                None => self.failed.store(true, Ordering::Relaxed),
            }
        }
    }
    let mut bundle = Bundle::default();
    let mut lists = HashMap::new();
    let mut seen = BTreeSet::new();
    for field in fields {
        if !seen.insert(field.name.as_str()) {
            return None; // a repeated field: let the full parse report it
        }
        let value = text.get(field.value.clone())?;
        match field.name.as_str() {
            "format" => bundle.format = ron::from_str(value).ok()?,
            "schema_version" => bundle.schema_version = ron::from_str(value).ok()?,
            "project" => bundle.project = ron::from_str(value).ok()?,
            "tests" => bundle.tests = ron::from_str(value).ok()?,
            "locales" => bundle.locales = ron::from_str(value).ok()?,
            list => {
                Kind::from_folder(list)?;
                lists.insert(list, field.elements.as_deref()?);
            }
        }
    }
    let visitor = ParseLists { text, lists, failed: AtomicBool::new(false) };
    bundle.visit_lists_parallel(&visitor);
    (!visitor.failed.load(Ordering::Relaxed)).then_some(bundle)
}

/// Parses bundle `text` (RON or JSON, detected) that came from `path`.
pub fn parse_bundle(text: &str, path: &Path) -> Result<Loaded, ProjectError> {
    parse_bundle_text(text.to_owned(), path)
}

/// As [`parse_bundle`], keeping `text` (as the source of diagnostics) without copying it.
fn parse_bundle_text(text: String, path: &Path) -> Result<Loaded, ProjectError> {
    let bundle = if looks_like_json(&text) {
        let json_error = |error: &serde_json::Error| {
            ProjectError::Unreadable(Box::new(
                Diagnostic::error(format!("this bundle is not valid JSON: {error}"))
                    .in_file(path)
                    .at(Some(json_position(&text, error))),
            ))
        };
        // One parse when the bundle reads: the header is checked from it. Only a bundle that
        // does not read is probed for its header, whose error (not a bundle, a newer version)
        // explains more than the parse's; probing every bundle cost a second scan of the text.
        match serde_json::from_str::<Bundle>(&text) {
            Ok(bundle) => {
                check_header(path, &bundle.format, bundle.schema_version)?;
                bundle
            }
            Err(error) => {
                let probe: BundleProbe = serde_json::from_str(&text).map_err(|error| json_error(&error))?;
                check_header(path, &probe.format, probe.schema_version)?;
                return Err(json_error(&error));
            }
        }
    } else {
        parse_ron_bundle(&text, path)?
    };
    let version = bundle.schema_version;
    let (mut project, duplicates) = bundle.into_project();
    project.manifest.schema_version = version;
    let sources = Sources::bundle(path.to_owned(), text);
    let mut diagnostics: Vec<Diagnostic> = duplicates
        .into_iter()
        .map(|(kind, id)| {
            sources.place(
                Diagnostic::error("this id occurs more than once in the bundle; only the last one was kept")
                    .for_item(kind, &id),
                Some((kind, &id)),
                &crate::model::FieldPath::root().field("id"),
            )
        })
        .collect();
    if version < SCHEMA_VERSION {
        diagnostics.extend(migrate::upgrade(&mut project, version));
    }
    diagnostics.extend(migrate::palette_ids(&mut project));
    diagnostics.extend(crate::locale::drop_unusable_translations(&mut project).into_iter().map(|d| d.in_file(path)));
    Ok(Loaded { project, diagnostics, sources, protected: BTreeSet::new(), conflicts: Vec::new() })
}

/// Where a JSON error is, as a [`Position`]: `serde_json` counts columns in bytes (and says 0
/// at the start of a line), a diagnostic in characters from 1.
fn json_position(text: &str, error: &serde_json::Error) -> Position {
    let line_start = text.split_inclusive('\n').take(error.line().saturating_sub(1)).map(str::len).sum::<usize>();
    let mut offset = line_start.saturating_add(error.column().saturating_sub(1)).min(text.len());
    while !text.is_char_boundary(offset) {
        offset = offset.saturating_sub(1);
    }
    crate::ron_locate::position_of(text, offset)
}

/// Reads the bundle file at `path`.
pub fn load_bundle(path: &Path) -> Result<Loaded, ProjectError> {
    let bytes = fs::read(path).map_err(|error| ProjectError::io(path, error))?;
    let text = String::from_utf8(bytes).map_err(|error| ProjectError::Unreadable(Box::new(not_utf8(path, &error))))?;
    parse_bundle_text(text, path)
}

/// Restores the project folder of the bundle at `bundle_path` into `out_dir`, which must be
/// new or empty.
pub fn import_bundle(bundle_path: &Path, out_dir: &Path) -> Result<(Loaded, SaveReport), ProjectError> {
    if !is_new_or_empty(out_dir)? {
        return Err(ProjectError::NotEmpty { path: out_dir.to_owned() });
    }
    let loaded = load_bundle(bundle_path)?;
    let mut report = save_new_folder(&loaded.project, out_dir)?;
    // The playtests it carries go back to `tests/`.
    for (name, script) in bundle_tests(bundle_path)? {
        if name.is_empty() || name.contains(['/', '\\', '.']) {
            continue; // not a plain file name: never written outside `tests/`
        }
        let file = out_dir.join("tests").join(format!("{name}.play"));
        if let Some(folder) = file.parent() {
            fs::create_dir_all(folder).map_err(|error| ProjectError::io(folder, error))?;
        }
        write_atomic(&file, script.as_bytes()).map_err(|error| ProjectError::io(&file, error))?;
        report.written.push(file);
    }
    Ok((loaded, report))
}
