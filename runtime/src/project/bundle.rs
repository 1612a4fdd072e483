//! Single-file bundles (RON, or JSON on request) for other runtimes.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use serde::Deserialize;

use crate::diagnostic::{Diagnostic, Position};
use crate::model::{BUNDLE_FORMAT, Bundle, Project, SCHEMA_VERSION};

use super::folder::is_new_or_empty;
use super::ron_format::to_ron_string;
use super::{Loaded, ProjectError, SaveReport, Sources, check_schema, migrate, ron_error, save_folder, write_atomic};

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
    let bundle = Bundle::from_project(project);
    let serialise = |message: String| ProjectError::Serialise { what: "the bundle".to_owned(), message };
    match format {
        BundleFormat::Ron => to_ron_string(&bundle).map_err(|error| serialise(error.to_string())),
        BundleFormat::Json => {
            let mut text = serde_json::to_string_pretty(&bundle).map_err(|error| serialise(error.to_string()))?;
            text.push('\n');
            Ok(text)
        }
    }
}

/// Writes the bundle of `project` to `path`, atomically.
pub fn export_bundle(project: &Project, path: &Path, format: BundleFormat) -> Result<(), ProjectError> {
    let text = bundle_text(project, format)?;
    write_atomic(path, text.as_bytes()).map_err(|error| ProjectError::io(path, error))
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

/// Parses bundle `text` (RON or JSON, detected) that came from `path`.
pub fn parse_bundle(text: &str, path: &Path) -> Result<Loaded, ProjectError> {
    let json = looks_like_json(text);
    let not_parsed = |diagnostic: Diagnostic| ProjectError::Unreadable(Box::new(diagnostic));
    let json_error = |error: &serde_json::Error| {
        Diagnostic::error(format!("this bundle is not valid JSON: {error}"))
            .in_file(path)
            .at(Some(Position { line: error.line(), col: error.column() }))
    };
    let probe: BundleProbe = if json {
        serde_json::from_str(text).map_err(|error| not_parsed(json_error(&error)))?
    } else {
        ron::from_str(text).map_err(|error| not_parsed(ron_error(path, text, &error)))?
    };
    if probe.format != BUNDLE_FORMAT {
        return Err(not_parsed(
            Diagnostic::error(format!("this is not an Actforge bundle: it needs `format: \"{BUNDLE_FORMAT}\"`"))
                .in_file(path),
        ));
    }
    let version = probe.schema_version;
    if version == 0 {
        return Err(not_parsed(Diagnostic::error("this bundle has no schema_version").in_file(path)));
    }
    check_schema(path, version)?;
    let bundle: Bundle = if json {
        serde_json::from_str(text).map_err(|error| not_parsed(json_error(&error)))?
    } else {
        ron::from_str(text).map_err(|error| not_parsed(ron_error(path, text, &error)))?
    };
    let positions = bundle.positions();
    let (mut project, duplicates) = bundle.into_project();
    project.manifest.schema_version = version;
    let sources = Sources::bundle(path.to_owned(), text.to_owned(), positions);
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
    Ok(Loaded { project, diagnostics, sources, protected: BTreeSet::new() })
}

/// Reads the bundle file at `path`.
pub fn load_bundle(path: &Path) -> Result<Loaded, ProjectError> {
    let bytes = fs::read(path).map_err(|error| ProjectError::io(path, error))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        ProjectError::Unreadable(Box::new(Diagnostic::error("this file is not UTF-8 text").in_file(path)))
    })?;
    parse_bundle(&text, path)
}

/// Restores the project folder of the bundle at `bundle_path` into `out_dir`, which must be
/// new or empty.
pub fn import_bundle(bundle_path: &Path, out_dir: &Path) -> Result<(Loaded, SaveReport), ProjectError> {
    if !is_new_or_empty(out_dir)? {
        return Err(ProjectError::NotEmpty { path: out_dir.to_owned() });
    }
    let loaded = load_bundle(bundle_path)?;
    let report = save_folder(&loaded.project, out_dir, &BTreeSet::new())?;
    Ok((loaded, report))
}
