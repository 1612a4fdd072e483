//! The source strings of a project: every designer-facing text, with its key and context.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde_json::Value;

use crate::model::{Item, Items, Kind, KindVisitor, Project};
use crate::project::merge::element_key;

/// The names of the fields that hold designer-facing text, in every kind and every nested
/// struct (option texts, grade names and path messages are `label`s and `text`s too).
pub const TEXT_FIELDS: &[&str] = &["label", "text", "end_text", "description"];

/// One designer-facing text of the project in its source language.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceString {
    /// The full key, `KIND.ITEM_KEY.FIELD`.
    pub key: String,
    /// The item's kind.
    pub kind: Kind,
    /// The item's id.
    pub item: String,
    /// The field inside the item, with list elements named by their id (`options[rest].text`).
    pub field: String,
    /// Where the text sits, for a translator: an act's token and the acts leading to it, the
    /// node a node map's text belongs to.
    pub context: String,
    /// The most characters the project allows this text (`localisation.limits`).
    pub max_chars: Option<u32>,
    /// The text.
    pub text: String,
}

/// Every non-empty text of the project, ordered by kind, item id and the schema's field order.
pub fn source_strings(project: &Project) -> Vec<SourceString> {
    let mut collector = Collector { project, predecessors: act_predecessors(project), strings: Vec::new() };
    project.visit_kinds(&mut collector);
    collector.strings
}

/// A key for a new item `id` of `kind` that no other item's texts use: empty (the id) unless a
/// renamed item keeps `id` as its key, then `id_2`, `id_3`…
pub fn fresh_text_key(project: &Project, kind: Kind, id: &str) -> String {
    let mut taken = TakenKeys { kind, keys: BTreeSet::new() };
    project.visit_kinds(&mut taken);
    if !taken.keys.contains(id) {
        return String::new();
    }
    (2..=u32::MAX).map(|n| format!("{id}_{n}")).find(|key| !taken.keys.contains(key)).unwrap_or_default()
}

struct TakenKeys {
    kind: Kind,
    keys: BTreeSet<String>,
}

impl KindVisitor for TakenKeys {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        if T::KIND == self.kind {
            self.keys.extend(items.iter().map(|item| item.text_key().to_owned()));
        }
    }
}

/// For each act, the acts whose next or alt lists name it, in id order.
fn act_predecessors(project: &Project) -> BTreeMap<String, Vec<String>> {
    let mut predecessors: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for act in &project.acts {
        let targets: BTreeSet<&str> = act.next_acts.iter().chain(&act.alt_acts).map(|link| link.act.as_str()).collect();
        for target in targets {
            predecessors.entry(target.to_owned()).or_default().push(act.id.as_str().to_owned());
        }
    }
    predecessors
}

struct Collector<'a> {
    project: &'a Project,
    predecessors: BTreeMap<String, Vec<String>>,
    strings: Vec<SourceString>,
}

impl KindVisitor for Collector<'_> {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        for item in items {
            // Items serialise to JSON objects whose fields follow the schema's order.
            let Ok(mut tree) = serde_json::to_value(item) else { continue };
            let mut found = Vec::new();
            visit_texts(&mut tree, &mut String::new(), &mut String::new(), &mut |path, limit_path, text| {
                found.push((path.to_owned(), limit_path.to_owned(), text.clone()));
            });
            for (field, limit_field, text) in found {
                let context = self.context(T::KIND, item.id().as_str(), &field);
                let max_chars = self
                    .project
                    .manifest
                    .localisation
                    .limits
                    .get(&format!("{}.{limit_field}", T::KIND.folder()))
                    .copied();
                self.strings.push(SourceString {
                    key: super::string_key(item, &field),
                    kind: T::KIND,
                    item: item.id().as_str().to_owned(),
                    field,
                    context,
                    max_chars,
                    text,
                });
            }
        }
    }
}

impl Collector<'_> {
    fn context(&self, kind: Kind, id: &str, field: &str) -> String {
        match kind {
            Kind::Act => {
                let mut parts = Vec::new();
                if let Some(token) = self.project.acts.get(id).and_then(|act| act.token.as_ref()) {
                    parts.push(format!("token {token}"));
                }
                if let Some(before) = self.predecessors.get(id) {
                    parts.push(format!("after {}", before.join(", ")));
                }
                parts.join("; ")
            }
            Kind::NodeMap => {
                let Some(node_id) = field.strip_prefix("nodes[").and_then(|rest| rest.split(']').next()) else {
                    return String::new();
                };
                let label = self
                    .project
                    .node_maps
                    .get(id)
                    .and_then(|map| map.nodes.iter().find(|node| node.id.as_str() == node_id))
                    .map(|node| node.label.as_str())
                    .unwrap_or_default();
                if label.is_empty() { format!("node {node_id}") } else { format!("node {node_id} ({label})") }
            }
            _ => String::new(),
        }
    }
}

/// Calls `f(path, path without list elements, text)` for every non-empty text field below
/// `value`, in field order; `f` may rewrite the text.
pub(super) fn visit_texts(
    value: &mut Value,
    path: &mut String,
    limit_path: &mut String,
    f: &mut dyn FnMut(&str, &str, &mut String),
) {
    match value {
        Value::Object(fields) => {
            for (name, field) in fields.iter_mut() {
                let (path_len, limit_len) = (path.len(), limit_path.len());
                for text in [&mut *path, &mut *limit_path] {
                    if !text.is_empty() {
                        text.push('.');
                    }
                    text.push_str(name);
                }
                match field {
                    Value::String(text) if TEXT_FIELDS.contains(&name.as_str()) && !text.is_empty() => {
                        f(path, limit_path, text);
                    }
                    _ => visit_texts(field, path, limit_path, f),
                }
                path.truncate(path_len);
                limit_path.truncate(limit_len);
            }
        }
        Value::Array(elements) => {
            for (at, element) in elements.iter_mut().enumerate() {
                let path_len = path.len();
                // An element is named by its identity, so that inserting or moving elements
                // keeps every other element's keys.
                match element_key(element) {
                    Some(key) => {
                        let _ = write!(path, "[{key}]");
                    }
                    None => {
                        let _ = write!(path, "[{at}]");
                    }
                }
                visit_texts(element, path, limit_path, f);
                path.truncate(path_len);
            }
        }
        _ => {}
    }
}
