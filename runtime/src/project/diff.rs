//! Semantic diffs of projects (`actforge diff`, the editor's Unsaved changes): items added,
//! removed and renamed, and the fields that changed, named by the same paths merge conflicts
//! use (`effects[burn].amount`, `columns[3,4]`).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::model::{Item, Items, Kind, KindVisitor, Project};

use super::merge::{Segment, element_key, render_path};

/// One field that differs; `None` where that side does not have it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldChange {
    /// Where in the item (see [`render_path`]).
    pub field: String,
    /// The value before.
    pub before: Option<Value>,
    /// The value after.
    pub after: Option<Value>,
}

/// How one item (or the manifest) differs.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum ItemChange {
    /// Only in the second project.
    Added {
        /// Its kind.
        kind: Kind,
        /// Its id.
        id: String,
    },
    /// Only in the first project.
    Removed {
        /// Its kind.
        kind: Kind,
        /// Its id.
        id: String,
    },
    /// The same content under a new id.
    Renamed {
        /// Its kind.
        kind: Kind,
        /// The id before.
        from: String,
        /// The id after.
        to: String,
    },
    /// In both, with fields changed.
    Changed {
        /// Its kind.
        kind: Kind,
        /// Its id.
        id: String,
        /// What changed.
        fields: Vec<FieldChange>,
    },
    /// `project.ron` changed.
    Manifest {
        /// What changed.
        fields: Vec<FieldChange>,
    },
}

/// The fields in which two JSON trees of one item differ, lists of elements with identities
/// compared element by element.
pub fn diff_trees(before: &Value, after: &Value) -> Vec<FieldChange> {
    let mut changes = Vec::new();
    diff_into(&mut Vec::new(), Some(before), Some(after), &mut changes);
    changes
}

/// The fields in which two versions of an item differ.
pub fn diff_items<T: Serialize>(before: &T, after: &T) -> Vec<FieldChange> {
    match (serde_json::to_value(before), serde_json::to_value(after)) {
        (Ok(before), Ok(after)) => diff_trees(&before, &after),
        _ => vec![FieldChange { field: String::new(), before: None, after: None }],
    }
}

fn diff_into(path: &mut Vec<Segment>, before: Option<&Value>, after: Option<&Value>, changes: &mut Vec<FieldChange>) {
    if before == after {
        return;
    }
    match (before, after) {
        (Some(Value::Object(b)), Some(Value::Object(a))) => {
            for key in b.keys().chain(a.keys().filter(|key| !b.contains_key(*key))) {
                path.push(Segment::Field(key.clone()));
                diff_into(path, b.get(key), a.get(key), changes);
                path.pop();
            }
        }
        (Some(Value::Array(b)), Some(Value::Array(a))) if keyed(b) && keyed(a) => {
            let find = |list: &[Value], key: &str| {
                list.iter().find(|element| element_key(element).as_deref() == Some(key)).cloned()
            };
            let mut seen = BTreeSet::new();
            for element in b.iter().chain(a.iter()) {
                let Some(key) = element_key(element) else { continue };
                if !seen.insert(key.clone()) {
                    continue;
                }
                let (old, new) = (find(b, &key), find(a, &key));
                path.push(Segment::Element(key));
                diff_into(path, old.as_ref(), new.as_ref(), changes);
                path.pop();
            }
        }
        _ => changes.push(FieldChange { field: render_path(path), before: before.cloned(), after: after.cloned() }),
    }
}

/// Whether every element has an identity, none repeated.
fn keyed(list: &[Value]) -> bool {
    let mut seen = BTreeSet::new();
    !list.is_empty() && list.iter().all(|element| element_key(element).is_some_and(|key| seen.insert(key)))
}

/// How project `after` differs from `before`, kind by kind in display order, items by id.
pub fn diff_projects(before: &Project, after: &Project) -> Vec<ItemChange> {
    let mut changes = Vec::new();
    let manifest = diff_items(&before.manifest, &after.manifest);
    if !manifest.is_empty() {
        changes.push(ItemChange::Manifest { fields: manifest });
    }
    let mut visitor = ProjectDiff { after, changes };
    before.visit_kinds(&mut visitor);
    visitor.changes
}

struct ProjectDiff<'a> {
    after: &'a Project,
    changes: Vec<ItemChange>,
}

impl KindVisitor for ProjectDiff<'_> {
    fn visit<T: Item>(&mut self, before: &Items<T>) {
        let after = T::items(self.after);
        let kind = T::KIND;
        let mut removed: Vec<&T> = before.iter().filter(|item| after.get(item.id().as_str()).is_none()).collect();
        let mut added: Vec<&T> = after.iter().filter(|item| before.get(item.id().as_str()).is_none()).collect();
        // A removed item whose content (but for its id) an added one has was renamed.
        let without_id = |item: &T| {
            let mut tree = serde_json::to_value(item).ok()?;
            tree.as_object_mut()?.remove("id");
            Some(tree)
        };
        let mut renamed = Vec::new();
        removed.retain(|old| {
            let Some(content) = without_id(old) else { return true };
            match added.iter().position(|new| without_id(new).as_ref() == Some(&content)) {
                Some(at) => {
                    let new = added.remove(at);
                    renamed.push(ItemChange::Renamed {
                        kind,
                        from: old.id().as_str().to_owned(),
                        to: new.id().as_str().to_owned(),
                    });
                    false
                }
                None => true,
            }
        });
        let mut changes: Vec<(String, ItemChange)> = Vec::new();
        for item in before.iter() {
            if let Some(new) = after.get(item.id().as_str())
                && new != item
            {
                let fields = diff_items(item, new);
                changes.push((
                    item.id().as_str().to_owned(),
                    ItemChange::Changed { kind, id: item.id().as_str().to_owned(), fields },
                ));
            }
        }
        changes.extend(removed.iter().map(|item| {
            let id = item.id().as_str().to_owned();
            (id.clone(), ItemChange::Removed { kind, id })
        }));
        changes.extend(added.iter().map(|item| {
            let id = item.id().as_str().to_owned();
            (id.clone(), ItemChange::Added { kind, id })
        }));
        changes.extend(renamed.into_iter().map(|change| {
            let ItemChange::Renamed { from, .. } = &change else { unreachable!("only renames here") };
            (from.clone(), change)
        }));
        changes.sort_by(|a, b| a.0.cmp(&b.0));
        self.changes.extend(changes.into_iter().map(|(_, change)| change));
    }
}

/// A value as one short line: RON-like, cut at `width` characters.
pub fn show_value(value: Option<&Value>, width: usize) -> String {
    let Some(value) = value else { return "(none)".to_owned() };
    let text = value.to_string();
    if text.chars().count() <= width {
        return text;
    }
    let cut: String = text.chars().take(width.saturating_sub(1)).collect();
    format!("{cut}…")
}

/// The diff as text, one line per item and an indented line per field (at most `per_item`
/// fields, then a count of the rest).
pub fn render_changes(changes: &[ItemChange], per_item: usize) -> String {
    let mut text = String::new();
    let label = |kind: &Kind| kind.label().to_lowercase();
    for change in changes {
        let fields = match change {
            ItemChange::Added { kind, id } => {
                let _ = writeln!(text, "+ {} {id}", label(kind));
                continue;
            }
            ItemChange::Removed { kind, id } => {
                let _ = writeln!(text, "- {} {id}", label(kind));
                continue;
            }
            ItemChange::Renamed { kind, from, to } => {
                let _ = writeln!(text, "> {} {from} renamed to {to}", label(kind));
                continue;
            }
            ItemChange::Changed { kind, id, fields } => {
                let _ = writeln!(text, "~ {} {id}: {}", label(kind), count_fields(fields.len()));
                fields
            }
            ItemChange::Manifest { fields } => {
                let _ = writeln!(text, "~ project.ron: {}", count_fields(fields.len()));
                fields
            }
        };
        for field in fields.iter().take(per_item) {
            let _ = writeln!(text, "    {}: {}", field.field, show_change(field));
        }
        if fields.len() > per_item {
            let _ = writeln!(text, "    … and {} more", fields.len() - per_item);
        }
    }
    text
}

/// `before -> after`; for two lists, the elements added and removed (a repeated element counts
/// once per copy).
pub fn show_change(change: &FieldChange) -> String {
    if let (Some(Value::Array(before)), Some(Value::Array(after))) = (&change.before, &change.after) {
        let mut removed: Vec<&Value> = before.iter().collect();
        let mut added = Vec::new();
        for element in after {
            match removed.iter().position(|old| *old == element) {
                Some(at) => {
                    removed.remove(at);
                }
                None => added.push(element),
            }
        }
        let list =
            |values: &[&Value]| values.iter().map(|value| show_value(Some(value), 30)).collect::<Vec<_>>().join(", ");
        return match (removed.is_empty(), added.is_empty()) {
            (true, true) => "reordered".to_owned(),
            (true, false) => format!("added {}", list(&added)),
            (false, true) => format!("removed {}", list(&removed)),
            (false, false) => format!("removed {}; added {}", list(&removed), list(&added)),
        };
    }
    format!("{} -> {}", show_value(change.before.as_ref(), 60), show_value(change.after.as_ref(), 60))
}

/// "1 field changed", "3 fields changed".
pub fn count_fields(fields: usize) -> String {
    if fields == 1 { "1 field changed".to_owned() } else { format!("{fields} fields changed") }
}
