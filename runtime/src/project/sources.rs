//! The texts a project was loaded from, used to give diagnostics a file and a line:col.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use crate::diagnostic::{Diagnostic, Position};
use crate::model::{FieldPath, Kind, PathSegment};
use crate::ron_locate::{field_string, locate, offset_of, top_level_fields};

use super::{MANIFEST_FILE, item_path};

/// Where each item's text came from: files of a folder, or one bundle file.
#[derive(Debug, Default)]
pub struct Sources {
    origin: Origin,
}

#[derive(Debug, Default)]
enum Origin {
    /// Built in memory; diagnostics carry no file.
    #[default]
    Memory,
    /// A project folder: one text per file.
    Folder { root: PathBuf, manifest: Option<String>, items: HashMap<(Kind, String), String> },
    /// A bundle: one text, items found by their index in their kind's list. The index is
    /// built on first use: most loads place no diagnostic.
    Bundle { path: PathBuf, text: String, index: OnceLock<HashMap<(Kind, String), usize>> },
}

impl Sources {
    /// No texts: for projects built in memory.
    pub fn memory() -> Self {
        Self::default()
    }

    pub(super) fn folder(root: PathBuf, manifest: Option<String>, items: HashMap<(Kind, String), String>) -> Self {
        Self { origin: Origin::Folder { root, manifest, items } }
    }

    pub(super) fn bundle(path: PathBuf, text: String) -> Self {
        Self { origin: Origin::Bundle { path, text, index: OnceLock::new() } }
    }

    /// The file an item lives in, when known.
    pub fn item_file(&self, kind: Kind, id: &str) -> Option<PathBuf> {
        match &self.origin {
            Origin::Memory => None,
            Origin::Folder { root, .. } => Some(root.join(item_path(kind, id))),
            Origin::Bundle { path, .. } => Some(path.clone()),
        }
    }

    /// As [`Sources::place`], for a problem `inner_column` characters into a string value
    /// (a formula): the column moves past the opening quote to the offending character.
    pub fn place_in_string(
        &self,
        diagnostic: Diagnostic,
        item: Option<(Kind, &str)>,
        field: &FieldPath,
        inner_column: usize,
    ) -> Diagnostic {
        let mut placed = self.place(diagnostic, item, field);
        let text = match &self.origin {
            Origin::Memory => None,
            Origin::Folder { manifest, items, .. } => match item {
                None => manifest.as_deref(),
                Some((kind, id)) => items.get(&(kind, id.to_owned())).map(String::as_str),
            },
            Origin::Bundle { text, .. } => Some(text.as_str()),
        };
        if let (Some(text), Some(at)) = (text, placed.position) {
            // The value may be wrapped: `Some("…")`, `Computed("…")`.
            let rest = offset_of(text, at).and_then(|offset| text.get(offset..).map(|rest| (offset, rest)));
            if let Some((offset, rest)) = rest {
                let name_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(0);
                let after_name = rest.get(name_len..).unwrap_or_default();
                let inner = if name_len > 0 && after_name.starts_with('(') {
                    after_name.get(1..).unwrap_or_default()
                } else {
                    rest
                };
                let skipped = rest.len() - inner.trim_start().len();
                if inner.trim_start().starts_with('"') {
                    let quote = crate::ron_locate::position_of(text, offset + skipped);
                    placed.position = Some(Position { line: quote.line, col: quote.col + 1 + inner_column });
                }
            }
        }
        placed
    }

    /// Fills in the file and line:col of a diagnostic about `field` of an item, or of the
    /// manifest when `item` is `None`.
    pub fn place(&self, diagnostic: Diagnostic, item: Option<(Kind, &str)>, field: &FieldPath) -> Diagnostic {
        match &self.origin {
            Origin::Memory => diagnostic,
            Origin::Folder { root, manifest, items } => match item {
                None => {
                    let at = manifest.as_deref().and_then(|text| locate(text, field));
                    diagnostic.in_file(root.join(MANIFEST_FILE)).at(at)
                }
                Some((kind, id)) => {
                    let at = items.get(&(kind, id.to_owned())).and_then(|text| locate(text, field));
                    diagnostic.in_file(root.join(item_path(kind, id))).at(at)
                }
            },
            Origin::Bundle { path, text, index } => {
                let mut full = FieldPath::root();
                match item {
                    None => full.push(PathSegment::Field("project")),
                    Some((kind, id)) => {
                        full.push(PathSegment::Field(kind.folder()));
                        if let Some(at) = index.get_or_init(|| bundle_index(text)).get(&(kind, id.to_owned())) {
                            full.push(PathSegment::Index(*at));
                        }
                    }
                }
                full.0.extend(field.0.iter().cloned());
                diagnostic.in_file(path.clone()).at(locate(text, &full))
            }
        }
    }
}

/// Where each item sits in its kind's list of a bundle text (RON or JSON); for a repeated id,
/// the last occurrence.
fn bundle_index(text: &str) -> HashMap<(Kind, String), usize> {
    let mut index = HashMap::new();
    if text.trim_start().starts_with('{') {
        let Ok(serde_json::Value::Object(fields)) = serde_json::from_str(text) else { return index };
        for (name, value) in fields {
            let (Some(kind), serde_json::Value::Array(items)) = (Kind::from_folder(&name), value) else { continue };
            for (at, item) in items.iter().enumerate() {
                if let Some(id) = item.get("id").and_then(serde_json::Value::as_str) {
                    index.insert((kind, id.to_owned()), at);
                }
            }
        }
        return index;
    }
    for field in top_level_fields(text).unwrap_or_default() {
        let (Some(kind), Some(elements)) = (Kind::from_folder(&field.name), field.elements) else { continue };
        for (at, range) in elements.into_iter().enumerate() {
            if let Some(id) = text.get(range).and_then(|item| field_string(item, "id")) {
                index.insert((kind, id), at);
            }
        }
    }
    index
}
