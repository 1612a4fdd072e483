//! Three-way merges of project files by field and by list element (`actforge merge`, the git
//! merge driver), and the conflict file such a merge writes when both sides changed the same
//! field (FORMAT.md §16).
//!
//! Each side is read as its typed item and seen as a JSON tree in the schema's field order;
//! objects merge key by key, lists of elements with an identity (an `id`, a tile map column's
//! cell, a path's two ends, a card play's card) merge element by element, other lists merge as
//! sequences (insertions on both sides are both kept). Only a value changed both ways, an
//! element removed on one side and changed on the other, or an element added on both sides
//! with different content is a conflict.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{Item, Items, Kind, KindVisitor, Manifest, Project};

use super::ron_format::to_ron_string;
use super::{MANIFEST_FILE, parse_ron};

/// The word a conflict file starts with (after its comment lines).
pub const CONFLICT_TAG: &str = "MergeConflict";

/// One field (or list element) changed both ways; `None` where that side does not have it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldConflict {
    /// Where in the item, e.g. `label` or `effects[burn].amount` (`[KEY]`: the list element
    /// with that id, cell `x,y` or path `from->to`).
    pub field: String,
    /// The common ancestor's value.
    #[serde(default)]
    pub base: Option<Value>,
    /// Our side's value (the one the merged item holds until a side is chosen).
    #[serde(default)]
    pub ours: Option<Value>,
    /// Their side's value.
    #[serde(default)]
    pub theirs: Option<Value>,
}

/// Which side of a conflict to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// Our side (the branch being merged into).
    Ours,
    /// Their side (the branch merged in).
    Theirs,
    /// The common ancestor (neither change).
    Base,
}

impl FieldConflict {
    /// The value `side` has here (`None`: that side does not have this field or element).
    pub fn value(&self, side: Side) -> Option<&Value> {
        match side {
            Side::Ours => self.ours.as_ref(),
            Side::Theirs => self.theirs.as_ref(),
            Side::Base => self.base.as_ref(),
        }
    }
}

/// What a file's merge gave: the text to write and the conflicts it holds (none: a clean
/// merge, the text is the item's canonical file).
#[derive(Clone, Debug, PartialEq)]
pub struct FileMerge {
    /// The merged file's text.
    pub text: String,
    /// The fields changed both ways (the text is then a conflict file).
    pub conflicts: Vec<FieldConflict>,
}

/// Why a file could not be merged by field (the caller falls back to a text merge).
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// One side does not load as what its path says it holds.
    #[error("{side} does not load as {what}: {message}")]
    Unreadable {
        /// `base`, `ours` or `theirs`.
        side: &'static str,
        /// What the file should hold.
        what: String,
        /// Why it does not.
        message: String,
    },
    /// The merged content could not be written back.
    #[error("the merged {what} cannot be written: {message}")]
    Unwritable {
        /// What was merged.
        what: String,
        /// Why.
        message: String,
    },
}

/// What a project file holds, from its path inside the project folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// `project.ron`.
    Manifest,
    /// An item file, `KIND_FOLDER/ID.ron`.
    Item(Kind),
}

impl FileRole {
    /// The role of the file at `path` (relative to the project folder, or ending that way).
    pub fn of(path: &Path) -> Option<FileRole> {
        if path.extension().is_none_or(|ext| ext != "ron") {
            return None;
        }
        if path.file_name().is_some_and(|name| name == MANIFEST_FILE) {
            return Some(FileRole::Manifest);
        }
        let folder = path.parent()?.file_name()?.to_str()?;
        Kind::from_folder(folder).map(FileRole::Item)
    }
}

/// Merges three versions of a project file by field. `base` is `None` (or empty) when both
/// sides added the file.
pub fn merge_file(role: FileRole, base: Option<&str>, ours: &str, theirs: &str) -> Result<FileMerge, MergeError> {
    let base = base.filter(|text| !text.trim().is_empty());
    // Unchanged on a side: the other side whole, without reading either.
    if ours == theirs || base == Some(theirs) {
        return Ok(FileMerge { text: ours.to_owned(), conflicts: Vec::new() });
    }
    if base == Some(ours) {
        return Ok(FileMerge { text: theirs.to_owned(), conflicts: Vec::new() });
    }
    match role {
        FileRole::Manifest => merge_typed::<Manifest>("project.ron", base, ours, theirs),
        FileRole::Item(kind) => {
            let mut visitor = ItemMerge { kind, texts: (base, ours, theirs), result: None };
            Project::default().visit_kinds(&mut visitor);
            visitor.result.unwrap_or_else(|| {
                Err(MergeError::Unreadable {
                    side: "ours",
                    what: kind.label().to_owned(),
                    message: "unknown kind".into(),
                })
            })
        }
    }
}

/// Runs the typed merge for the one kind asked for.
struct ItemMerge<'a> {
    kind: Kind,
    texts: (Option<&'a str>, &'a str, &'a str),
    result: Option<Result<FileMerge, MergeError>>,
}

impl KindVisitor for ItemMerge<'_> {
    fn visit<T: Item>(&mut self, _: &Items<T>) {
        if T::KIND == self.kind {
            let (base, ours, theirs) = self.texts;
            self.result = Some(merge_typed::<T>(&T::KIND.label().to_lowercase(), base, ours, theirs));
        }
    }
}

fn merge_typed<T: Serialize + serde::de::DeserializeOwned>(
    what: &str,
    base: Option<&str>,
    ours: &str,
    theirs: &str,
) -> Result<FileMerge, MergeError> {
    let tree = |side: &'static str, text: &str| -> Result<Value, MergeError> {
        let unreadable = |message: String| MergeError::Unreadable { side, what: what.to_owned(), message };
        if parse_conflict_text(text).is_some() {
            return Err(unreadable("it is a merge conflict file; resolve it first".into()));
        }
        let item: T = parse_ron(text).map_err(|error| unreadable(error.to_string()))?;
        serde_json::to_value(&item).map_err(|error| unreadable(error.to_string()))
    };
    let base = base.map(|text| tree("base", text)).transpose()?;
    let (ours, theirs) = (tree("ours", ours)?, tree("theirs", theirs)?);
    let (merged, conflicts) = merge_trees(base.as_ref(), &ours, &theirs);
    let unwritable = |message: String| MergeError::Unwritable { what: what.to_owned(), message };
    let item: T = serde_json::from_value(merged).map_err(|error| unwritable(error.to_string()))?;
    let text = if conflicts.is_empty() {
        to_ron_string(&item).map_err(|error| unwritable(error.to_string()))?
    } else {
        conflict_text(&item, &conflicts).map_err(|error| unwritable(error.to_string()))?
    };
    Ok(FileMerge { text, conflicts })
}

/// Merges three JSON trees of one item: the merged tree (ours at each conflict) and the
/// conflicts. A missing `base` (added on both sides) merges field by field from nothing.
pub fn merge_trees(base: Option<&Value>, ours: &Value, theirs: &Value) -> (Value, Vec<FieldConflict>) {
    let mut merger = Merger { path: Vec::new(), conflicts: Vec::new() };
    let empty = Value::Object(Map::new());
    let mut merged = match (ours, theirs) {
        (Value::Object(o), Value::Object(t)) => {
            let base = base.unwrap_or(&empty);
            Value::Object(merger.objects(base.as_object(), o, t))
        }
        _ => merger.merge(base, Some(ours), Some(theirs)).unwrap_or(Value::Null),
    };
    sort_columns(&mut merged);
    (merged, merger.conflicts)
}

/// A tile map's columns stay sorted by (y, x) whatever order the two sides added them in.
fn sort_columns(tree: &mut Value) {
    if let Some(Value::Array(columns)) = tree.get_mut("columns")
        && columns.iter().all(|column| cell_of(column).is_some())
    {
        columns.sort_by_key(|column| cell_of(column).map(|(x, y)| (y, x)));
    }
}

fn cell_of(value: &Value) -> Option<(i64, i64)> {
    let object = value.as_object()?;
    object.get("tiles")?;
    Some((object.get("x")?.as_i64()?, object.get("y")?.as_i64()?))
}

/// One step of a path into an item's tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Segment {
    /// A field of a struct, or a key of a map.
    Field(String),
    /// The element of a list with this identity (see [`element_key`]).
    Element(String),
}

/// `label`, `effects[burn].amount`, `properties["odd key"]`.
pub fn render_path(path: &[Segment]) -> String {
    let mut text = String::new();
    for segment in path {
        match segment {
            Segment::Field(name) if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                if !text.is_empty() {
                    text.push('.');
                }
                text.push_str(name);
            }
            Segment::Field(name) => {
                let _ = write!(text, "[{}]", Value::String(name.clone()));
            }
            Segment::Element(key) => {
                let _ = write!(text, "[{key}]");
            }
        }
    }
    text
}

/// The path [`render_path`] wrote, or `None` when `text` is not one.
pub fn parse_path(text: &str) -> Option<Vec<Segment>> {
    let mut segments = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        rest = rest.strip_prefix('.').unwrap_or(rest);
        if rest.starts_with("[\"") {
            // A JSON string, then `]`.
            let mut stream = serde_json::Deserializer::from_str(rest.get(1..)?).into_iter::<String>();
            let name = stream.next()?.ok()?;
            let used = 1 + stream.byte_offset();
            rest = rest.get(used..)?.strip_prefix(']')?;
            segments.push(Segment::Field(name));
        } else if let Some(inner) = rest.strip_prefix('[') {
            let end = inner.find(']')?;
            segments.push(Segment::Element(inner[..end].to_owned()));
            rest = &inner[end + 1..];
        } else {
            let end = rest.find(['.', '[']).unwrap_or(rest.len());
            if end == 0 {
                return None;
            }
            segments.push(Segment::Field(rest[..end].to_owned()));
            rest = &rest[end..];
        }
    }
    Some(segments)
}

/// How the elements of a list are told apart across versions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyRule {
    /// By their `id` field.
    Id,
    /// A tile map column, by its cell `x,y`.
    Cell,
    /// A node map path, by its ends `from->to`.
    Ends,
    /// A card play, by its `card`.
    Card,
}

fn key_with(rule: KeyRule, value: &Value) -> Option<String> {
    let object = value.as_object()?;
    let text = |name: &str| object.get(name).and_then(Value::as_str);
    match rule {
        KeyRule::Id => text("id").map(str::to_owned),
        KeyRule::Cell => cell_of(value).map(|(x, y)| format!("{x},{y}")),
        KeyRule::Ends => Some(format!("{}->{}", text("from")?, text("to")?)),
        KeyRule::Card => text("card").map(str::to_owned),
    }
}

/// The identity of a list element, as [`Segment::Element`] names it (`None`: the element has
/// none of the identities lists are merged by).
pub fn element_key(value: &Value) -> Option<String> {
    [KeyRule::Id, KeyRule::Cell, KeyRule::Ends, KeyRule::Card].into_iter().find_map(|rule| key_with(rule, value))
}

/// The rule every element of every version of a list follows, with no key repeated within a
/// version; `None`: the list merges as a sequence.
fn key_rule(lists: &[&[Value]]) -> Option<KeyRule> {
    if lists.iter().all(|list| list.is_empty()) {
        return None;
    }
    [KeyRule::Id, KeyRule::Cell, KeyRule::Ends, KeyRule::Card].into_iter().find(|&rule| {
        lists.iter().all(|list| {
            let mut seen = HashSet::new();
            list.iter().all(|element| key_with(rule, element).is_some_and(|key| seen.insert(key)))
        })
    })
}

struct Merger {
    path: Vec<Segment>,
    conflicts: Vec<FieldConflict>,
}

impl Merger {
    fn conflict(&mut self, base: Option<&Value>, ours: Option<&Value>, theirs: Option<&Value>) -> Option<Value> {
        self.conflicts.push(FieldConflict {
            field: render_path(&self.path),
            base: base.cloned(),
            ours: ours.cloned(),
            theirs: theirs.cloned(),
        });
        ours.cloned()
    }

    fn merge(&mut self, base: Option<&Value>, ours: Option<&Value>, theirs: Option<&Value>) -> Option<Value> {
        if ours == theirs || base == theirs {
            return ours.cloned();
        }
        if base == ours {
            return theirs.cloned();
        }
        match (base, ours, theirs) {
            (Some(Value::Object(b)), Some(Value::Object(o)), Some(Value::Object(t))) => {
                Some(Value::Object(self.objects(Some(b), o, t)))
            }
            (base, Some(Value::Array(o)), Some(Value::Array(t))) if base.is_none_or(Value::is_array) => {
                let b = base.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
                match self.lists(b, o, t) {
                    Some(merged) => Some(Value::Array(merged)),
                    None => self.conflict(base, ours, theirs),
                }
            }
            _ => self.conflict(base, ours, theirs),
        }
    }

    fn objects(
        &mut self,
        base: Option<&Map<String, Value>>,
        ours: &Map<String, Value>,
        theirs: &Map<String, Value>,
    ) -> Map<String, Value> {
        let mut merged = Map::new();
        let keys = ours.keys().chain(theirs.keys().filter(|key| !ours.contains_key(*key)));
        for key in keys {
            self.path.push(Segment::Field(key.clone()));
            let value = self.merge(base.and_then(|b| b.get(key)), ours.get(key), theirs.get(key));
            self.path.pop();
            if let Some(value) = value {
                merged.insert(key.clone(), value);
            }
        }
        merged
    }

    /// `None` when the list cannot be merged element by element (a conflict of the whole list).
    fn lists(&mut self, base: &[Value], ours: &[Value], theirs: &[Value]) -> Option<Vec<Value>> {
        match key_rule(&[base, ours, theirs]) {
            Some(rule) => Some(self.keyed(rule, base, ours, theirs)),
            None => merge_sequences(base, ours, theirs),
        }
    }

    fn keyed(&mut self, rule: KeyRule, base: &[Value], ours: &[Value], theirs: &[Value]) -> Vec<Value> {
        let index = |list: &[Value]| -> (Vec<String>, HashMap<String, usize>) {
            let keys: Vec<String> = list.iter().filter_map(|value| key_with(rule, value)).collect();
            let at = keys.iter().enumerate().map(|(at, key)| (key.clone(), at)).collect();
            (keys, at)
        };
        let (base_keys, base_at) = index(base);
        let (ours_keys, ours_at) = index(ours);
        let (theirs_keys, theirs_at) = index(theirs);
        let order = merge_order(&base_keys, &ours_keys, &theirs_keys);
        let mut merged = Vec::with_capacity(order.len());
        for key in order {
            let b = base_at.get(&key).and_then(|&at| base.get(at));
            let o = ours_at.get(&key).and_then(|&at| ours.get(at));
            let t = theirs_at.get(&key).and_then(|&at| theirs.get(at));
            self.path.push(Segment::Element(key.clone()));
            let value = match (b, o, t) {
                // Added on both sides with different content: one conflict for the element.
                (None, Some(o), Some(t)) if o != t => self.conflict(None, Some(o), Some(t)),
                _ => self.merge(b, o, t),
            };
            self.path.pop();
            merged.extend(value);
        }
        merged
    }
}

/// The keys of a merged keyed list, in order: our order (or theirs, when only they reordered
/// the common elements), with the other side's additions placed after the element they follow
/// in its list. Keys removed on one side are still listed; the element merge drops them.
fn merge_order(base: &[String], ours: &[String], theirs: &[String]) -> Vec<String> {
    let base_set: HashSet<&String> = base.iter().collect();
    // Whether a side kept the elements it shares with base in base's order.
    let reordered = |side: &[String]| {
        let side_set: HashSet<&String> = side.iter().collect();
        let kept = side.iter().filter(|key| base_set.contains(key));
        !kept.eq(base.iter().filter(|key| side_set.contains(key)))
    };
    let (first, second) = if reordered(theirs) && !reordered(ours) { (theirs, ours) } else { (ours, theirs) };
    let first_added: HashSet<&String> = first.iter().filter(|key| !base_set.contains(key)).collect();
    // Base keys the first list dropped come back (where base had them), so that a removal on one
    // side and a change on the other is seen (and reported) by the element merge; then the
    // second side's additions. Linear: each missing key joins the bucket of the nearest key
    // before it that is already placed.
    let mut order: Vec<String> = first.to_vec();
    for extra in [base, second] {
        let placed: HashSet<&String> = order.iter().collect();
        let mut buckets: HashMap<Option<&String>, Vec<String>> = HashMap::new();
        let mut anchor: Option<&String> = None;
        for key in extra {
            if placed.contains(key) {
                anchor = Some(key);
            } else {
                buckets.entry(anchor).or_default().push(key.clone());
            }
        }
        if buckets.is_empty() {
            continue;
        }
        let mut merged = Vec::with_capacity(order.len() + buckets.values().map(Vec::len).sum::<usize>());
        // A bucket waits past what the first side added right there: both sides appending keeps
        // ours first.
        let mut pending: Vec<String> = buckets.remove(&None).unwrap_or_default();
        for key in &order {
            if !first_added.contains(key) {
                merged.append(&mut pending);
            }
            merged.push(key.clone());
            if let Some(bucket) = buckets.remove(&Some(key)) {
                pending.extend(bucket);
            }
        }
        merged.append(&mut pending);
        order = merged;
    }
    order
}

/// A change one side made to a sequence: base elements `start..end` replaced by `new`.
#[derive(Clone, Debug)]
struct Hunk<'a> {
    start: usize,
    end: usize,
    new: &'a [Value],
}

fn hunks<'a>(base: &[String], side: &[String], values: &'a [Value]) -> Vec<Hunk<'a>> {
    let mut ranges: Vec<(usize, usize, std::ops::Range<usize>)> = Vec::new();
    for op in similar::capture_diff_slices(similar::Algorithm::Myers, base, side) {
        let (start, end, new) = match op {
            similar::DiffOp::Equal { .. } => continue,
            similar::DiffOp::Delete { old_index, old_len, new_index } => {
                (old_index, old_index + old_len, new_index..new_index)
            }
            similar::DiffOp::Insert { old_index, new_index, new_len } => {
                (old_index, old_index, new_index..new_index + new_len)
            }
            similar::DiffOp::Replace { old_index, old_len, new_index, new_len } => {
                (old_index, old_index + old_len, new_index..new_index + new_len)
            }
        };
        // A deletion next to an insertion is one replacement (their new elements are adjacent).
        if let Some(last) = ranges.last_mut()
            && last.1 == start
        {
            last.1 = end;
            last.2.end = new.end;
            continue;
        }
        ranges.push((start, end, new));
    }
    ranges.into_iter().map(|(start, end, new)| Hunk { start, end, new: values.get(new).unwrap_or_default() }).collect()
}

/// A three-way merge of a list without element identities: both sides' changes applied;
/// insertions at the same place from both sides are both kept (ours first); `None` when the two
/// sides changed overlapping elements differently.
pub fn merge_sequences(base: &[Value], ours: &[Value], theirs: &[Value]) -> Option<Vec<Value>> {
    let texts = |list: &[Value]| -> Vec<String> { list.iter().map(Value::to_string).collect() };
    let base_texts = texts(base);
    let mut changes: Vec<(Hunk<'_>, bool)> = hunks(&base_texts, &texts(ours), ours)
        .into_iter()
        .map(|hunk| (hunk, true))
        .chain(hunks(&base_texts, &texts(theirs), theirs).into_iter().map(|hunk| (hunk, false)))
        .collect();
    changes.sort_by_key(|(hunk, ours)| (hunk.start, hunk.end, !*ours));
    let mut merged = Vec::new();
    let mut at = 0;
    let mut changes = changes.into_iter().peekable();
    while let Some((hunk, _)) = changes.next() {
        merged.extend(base.get(at..hunk.start)?.iter().cloned());
        let mut end = hunk.end;
        let mut new: Vec<Value> = hunk.new.to_vec();
        while let Some((next, _)) = changes.peek() {
            let both_insert_here = next.start == hunk.start && next.start == next.end && hunk.start == hunk.end;
            if next.start < end || (next.start == hunk.start && next.end == hunk.end && next.new == hunk.new) {
                // The same change on both sides is made once; any other overlap is a conflict.
                if next.start == hunk.start && next.end == hunk.end && next.new == hunk.new {
                    changes.next();
                    continue;
                }
                return None;
            }
            if both_insert_here {
                if next.new != hunk.new {
                    new.extend(next.new.iter().cloned());
                }
                end = end.max(next.end);
                changes.next();
                continue;
            }
            break;
        }
        merged.extend(new);
        at = end;
    }
    merged.extend(base.get(at..)?.iter().cloned());
    Some(merged)
}

/// The text of a conflict file: comment lines saying what to do, then `MergeConflict(merged:
/// ITEM, conflicts: [...])`, the item holding our side of each conflict.
pub fn conflict_text<T: Serialize>(merged: &T, conflicts: &[FieldConflict]) -> Result<String, ron::Error> {
    #[derive(Serialize)]
    struct MergeConflictOut<'a, T> {
        merged: &'a T,
        conflicts: &'a [FieldConflict],
    }
    let body = to_ron_string(&MergeConflictOut { merged, conflicts })?;
    let fields: Vec<&str> = conflicts.iter().map(|conflict| conflict.field.as_str()).collect();
    Ok(format!(
        "// Merge conflict: {} changed on both sides ({}).\n\
         // Open the project in Actforge to choose a side for each, or edit this file by hand:\n\
         // keep only the item inside `merged: …`, with the values you want.\n\
         {CONFLICT_TAG}{body}",
        if conflicts.len() == 1 { "one field was".to_owned() } else { format!("{} fields were", conflicts.len()) },
        fields.join(", ")
    ))
}

/// The RON after the tag, when `text` is a conflict file (its first token is [`CONFLICT_TAG`]).
pub fn parse_conflict_text(text: &str) -> Option<&str> {
    let mut rest = text.trim_start();
    while let Some(comment) = rest.strip_prefix("//") {
        rest = comment.split_once('\n').map_or("", |(_, after)| after).trim_start();
    }
    rest.strip_prefix(CONFLICT_TAG).filter(|after| after.trim_start().starts_with('('))
}

/// A conflict file as read back.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConflictFile<T> {
    /// The item, with our side at each conflict.
    pub merged: T,
    /// The fields changed both ways.
    pub conflicts: Vec<FieldConflict>,
}

/// Reads a conflict file: `None` when `text` is not one.
pub fn read_conflict_file<T: serde::de::DeserializeOwned>(
    text: &str,
) -> Option<Result<ConflictFile<T>, ron::error::SpannedError>> {
    let body = parse_conflict_text(text)?;
    // Parsed from the tag on, so errors still count lines from the top of the file.
    let offset = text.len() - body.len();
    let padded: String = text[..offset].chars().map(|c| if c == '\n' { '\n' } else { ' ' }).collect::<String>() + body;
    Some(ron::from_str(&padded))
}

/// `merged` with the side chosen for each conflict (in the order of `conflicts`) applied.
pub fn resolve<T: Serialize + serde::de::DeserializeOwned>(
    merged: &T,
    conflicts: &[FieldConflict],
    choices: &[Side],
) -> Result<T, String> {
    let mut tree = serde_json::to_value(merged).map_err(|error| error.to_string())?;
    resolve_tree(&mut tree, conflicts, choices)?;
    serde_json::from_value(tree).map_err(|error| error.to_string())
}

/// Sets the side chosen for each conflict (in the order of `conflicts`) in an item's JSON tree.
pub fn resolve_tree(tree: &mut Value, conflicts: &[FieldConflict], choices: &[Side]) -> Result<(), String> {
    for (conflict, side) in conflicts.iter().zip(choices) {
        let path = parse_path(&conflict.field).ok_or_else(|| format!("`{}` is not a field path", conflict.field))?;
        set_at(tree, &path, conflict.value(*side).cloned())
            .map_err(|why| format!("cannot set `{}`: {why}", conflict.field))?;
    }
    sort_columns(tree);
    Ok(())
}

/// Sets (or removes, for `None`) the value at `path`, adding a missing list element at the end.
fn set_at(tree: &mut Value, path: &[Segment], value: Option<Value>) -> Result<(), String> {
    let Some((last, parents)) = path.split_last() else {
        return match value {
            Some(value) => {
                *tree = value;
                Ok(())
            }
            None => Err("the whole item cannot be removed".into()),
        };
    };
    let mut node = tree;
    for segment in parents {
        node = match segment {
            Segment::Field(name) => {
                let object = node.as_object_mut().ok_or("not a struct")?;
                object.entry(name.clone()).or_insert_with(|| Value::Object(Map::new()))
            }
            Segment::Element(key) => {
                let list = node.as_array_mut().ok_or("not a list")?;
                list.iter_mut().find(|element| element_key(element).as_deref() == Some(key)).ok_or("no such element")?
            }
        };
    }
    match last {
        Segment::Field(name) => {
            let object = node.as_object_mut().ok_or("not a struct")?;
            match value {
                Some(value) => {
                    object.insert(name.clone(), value);
                }
                None => {
                    object.remove(name);
                }
            }
        }
        Segment::Element(key) => {
            let list = node.as_array_mut().ok_or("not a list")?;
            let at = list.iter().position(|element| element_key(element).as_deref() == Some(key));
            match (at, value) {
                (Some(at), Some(value)) => {
                    if let Some(slot) = list.get_mut(at) {
                        *slot = value;
                    }
                }
                (Some(at), None) => {
                    list.remove(at);
                }
                (None, Some(value)) => list.push(value),
                (None, None) => {}
            }
        }
    }
    Ok(())
}

/// One error per conflict of the conflict file `text` (at `path`), each at the line and column
/// of its entry in the file.
pub fn conflict_diagnostics(
    path: &Path,
    text: &str,
    kind: Kind,
    id: &str,
    conflicts: &[FieldConflict],
) -> Vec<crate::diagnostic::Diagnostic> {
    let elements = parse_conflict_text(text).and_then(|body| {
        let offset = text.len() - body.len();
        let fields = crate::ron_locate::top_level_fields(body)?;
        let list = fields.into_iter().find(|field| field.name == "conflicts")?;
        Some(list.elements?.into_iter().map(move |range| range.start + offset).collect::<Vec<_>>())
    });
    let show = |value: &Option<Value>| value.as_ref().map_or_else(|| "(none)".to_owned(), ToString::to_string);
    conflicts
        .iter()
        .enumerate()
        .map(|(at, conflict)| {
            let position = elements
                .as_ref()
                .and_then(|starts| starts.get(at))
                .map(|&offset| crate::ron_locate::position_of(text, offset));
            crate::diagnostic::Diagnostic::error(format!(
                "merge conflict in `{}`: ours {}, theirs {} (base {}); the item holds ours until a side is chosen \
                 in the editor's Changes tab, or this file is edited",
                conflict.field,
                show(&conflict.ours),
                show(&conflict.theirs),
                show(&conflict.base)
            ))
            .in_file(path)
            .at(position)
            .for_item(kind, id)
            .for_field(conflict.field.clone())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::{Value, json};

    use super::*;

    /// Small JSON trees shaped like items: structs, lists with and without ids, scalars.
    fn tree() -> impl Strategy<Value = Value> {
        let leaf =
            prop_oneof![(0i64..4).prop_map(Value::from), "[ab]{0,2}".prop_map(Value::from), Just(Value::Bool(true)),];
        leaf.prop_recursive(4, 40, 4, |inner| {
            prop_oneof![
                prop::collection::btree_map("[abc]", inner.clone(), 0..4)
                    .prop_map(|fields| Value::Object(fields.into_iter().collect())),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map("[pqr]", inner, 0..4).prop_map(|elements| {
                    Value::Array(elements.into_iter().map(|(id, value)| json!({"id": id, "v": value})).collect())
                }),
            ]
        })
    }

    proptest! {
        /// A side that changed nothing takes the other side whole; the same change on both
        /// sides is no conflict; any three trees merge without a panic, and choosing ours for
        /// every conflict gives the merged tree back.
        #[test]
        fn merging_is_the_identity_where_one_side_is_base_and_never_panics(base in tree(), ours in tree(), theirs in tree()) {
            prop_assert_eq!(merge_trees(Some(&base), &ours, &base), (ours.clone(), Vec::new()));
            prop_assert_eq!(merge_trees(Some(&base), &base, &theirs), (theirs.clone(), Vec::new()));
            prop_assert_eq!(merge_trees(Some(&base), &ours, &ours), (ours.clone(), Vec::new()));
            let (merged, conflicts) = merge_trees(Some(&base), &ours, &theirs);
            let mut again = merged.clone();
            for conflict in &conflicts {
                prop_assert_eq!(parse_path(&conflict.field).map(|path| render_path(&path)), Some(conflict.field.clone()));
            }
            if merged.is_object() {
                resolve_tree(&mut again, &conflicts, &vec![Side::Ours; conflicts.len()]).map_err(TestCaseError::fail)?;
                prop_assert_eq!(again, merged);
            }
        }
    }

    #[test]
    fn both_sides_appending_to_a_keyed_list_keep_ours_first() {
        let list = |ids: &[&str]| json!({ "nodes": ids.iter().map(|id| json!({"id": id})).collect::<Vec<_>>() });
        let (merged, conflicts) =
            merge_trees(Some(&list(&["a", "b"])), &list(&["a", "b", "o1", "o2"]), &list(&["a", "t1", "b", "t2"]));
        assert!(conflicts.is_empty());
        assert_eq!(merged, list(&["a", "t1", "b", "o1", "o2", "t2"]));
    }

    #[test]
    fn a_removal_against_a_change_is_a_conflict_and_a_removal_against_nothing_is_not() {
        let list = |elements: Value| json!({ "nodes": elements });
        let base = list(json!([{"id": "a", "x": 1}, {"id": "b", "x": 1}]));
        let ours = list(json!([{"id": "b", "x": 1}]));
        let theirs = list(json!([{"id": "a", "x": 2}, {"id": "b", "x": 1}]));
        let (_, conflicts) = merge_trees(Some(&base), &ours, &theirs);
        assert_eq!(conflicts.len(), 1);
        assert_eq!(conflicts[0].field, "nodes[a]");
        assert_eq!(conflicts[0].ours, None);
        let (merged, conflicts) = merge_trees(Some(&base), &ours, &base);
        assert!(conflicts.is_empty());
        assert_eq!(merged, ours);
    }
}
