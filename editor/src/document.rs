//! The edited project: a [`Document`] changed only through invertible [`Op`]s, and the
//! [`History`] of those changes (one gesture, one undo step).
//!
//! Every op returns its exact inverse when applied, so undo and redo are just "apply the
//! stored op". Setting a whole item (insert, replace, remove by kind + id) is the basis every
//! other op's inverse is written in: a rename's inverse is the list of items it touched, as
//! they were.

use std::any::Any;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;

use actforge_runtime::formula::rename::{formula_names, rename_in_formula};
use actforge_runtime::locale::Locales;
use actforge_runtime::model::{
    Expr, FieldPath, Item, Items, KindVisitor, KindVisitorMut, Manifest, Visitor, VisitorMut, Walk, slug_problem,
    walk_item,
};
use actforge_runtime::project::item_text;
use actforge_runtime::{Kind, Project};

/// One item of a project: its kind and id (not an index, so it survives every edit).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ItemKey {
    /// Kind of the item.
    pub kind: Kind,
    /// Id of the item.
    pub id: String,
}

impl ItemKey {
    /// The key of the item `id` of `kind`.
    pub fn new(kind: Kind, id: impl Into<String>) -> Self {
        Self { kind, id: id.into() }
    }
}

impl fmt::Display for ItemKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} `{}`", self.kind.label().to_lowercase(), self.id)
    }
}

/// An item of any kind, shared (ops and the history keep items without copying them).
pub trait AnyItem: Any + Send + Sync + fmt::Debug {
    /// The item's kind.
    fn kind(&self) -> Kind;
    /// The item's id.
    fn item_id(&self) -> &str;
    /// The display name (may be empty).
    fn item_label(&self) -> &str;
    /// The item as `Any`, to get the typed item back.
    fn as_any(&self) -> &dyn Any;
    /// Puts a copy into `project`, returning the item it replaced.
    fn put_into(&self, project: &mut Project) -> Option<SharedItem>;
    /// Whether `other` is the same item with the same content.
    fn same_as(&self, other: &dyn AnyItem) -> bool;
    /// The item in serde's data model as JSON (the inspector's generic form edits this).
    fn to_json(&self) -> Result<serde_json::Value, String>;
    /// Visits its references and formulas.
    fn walk_dyn(&self, visitor: &mut dyn Visitor);
    /// A copy whose references to `from` (of `kind`) name `to`; `None` when it has none.
    fn with_reference_renamed(&self, kind: Kind, from: &str, to: &str) -> Option<SharedItem>;
    /// The item renamed to `id`: its texts keep their string keys (the old id becomes its
    /// `text_key`, unless it had one already).
    fn with_id(&self, id: &str) -> SharedItem;
    /// A copy whose texts are keyed `text_key` (empty: by its id).
    fn with_text_key(&self, text_key: &str) -> SharedItem;
    /// The names of every field of the item's struct (serde's list, in declaration order).
    fn field_names(&self) -> &'static [&'static str];
    /// The item's file text as saving writes it (or why it cannot be written).
    fn ron_text(&self) -> String;
    /// The item's file text, or why it cannot be written.
    fn file_text(&self) -> Result<String, String>;
}

/// A shared item of any kind.
pub type SharedItem = Arc<dyn AnyItem>;

impl<T: Item> AnyItem for T {
    fn kind(&self) -> Kind {
        T::KIND
    }
    fn item_id(&self) -> &str {
        self.id().as_str()
    }
    fn item_label(&self) -> &str {
        self.label()
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn put_into(&self, project: &mut Project) -> Option<SharedItem> {
        T::items_mut(project).insert(self.clone()).map(|old| Arc::new(old) as SharedItem)
    }
    fn same_as(&self, other: &dyn AnyItem) -> bool {
        other.as_any().downcast_ref::<T>().is_some_and(|other| other == self)
    }
    fn to_json(&self) -> Result<serde_json::Value, String> {
        serde_json::to_value(self).map_err(|error| error.to_string())
    }
    fn walk_dyn(&self, visitor: &mut dyn Visitor) {
        walk_item(self, visitor);
    }
    fn with_reference_renamed(&self, kind: Kind, from: &str, to: &str) -> Option<SharedItem> {
        if !refers_to(self, kind, from) {
            return None;
        }
        let mut copy = self.clone();
        copy.walk_mut(&mut FieldPath::root(), &mut RenameReferences { kind, from, to });
        Some(Arc::new(copy))
    }
    fn with_id(&self, id: &str) -> SharedItem {
        let mut copy = self.clone();
        let key = self.text_key().to_owned();
        copy.id_mut().set(id);
        *copy.text_key_mut() = if key == id { String::new() } else { key };
        Arc::new(copy)
    }
    fn with_text_key(&self, text_key: &str) -> SharedItem {
        let mut copy = self.clone();
        text_key.clone_into(copy.text_key_mut());
        Arc::new(copy)
    }
    fn field_names(&self) -> &'static [&'static str] {
        let mut fields = None;
        // The recorder always ends in an error: it only listens for the field list.
        let _ = T::deserialize(FieldsRecorder(&mut fields));
        fields.unwrap_or(&[])
    }
    fn ron_text(&self) -> String {
        item_text(self).unwrap_or_else(|error| error.to_string())
    }
    fn file_text(&self) -> Result<String, String> {
        item_text(self).map_err(|error| error.to_string())
    }
}

/// A deserializer that only records the field names serde asks a struct for.
struct FieldsRecorder<'a>(&'a mut Option<&'static [&'static str]>);

impl<'de> serde::Deserializer<'de> for FieldsRecorder<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("only field names are recorded"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = Some(fields);
        Err(serde::de::Error::custom("only field names are recorded"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// Why a text does not read as an item, and where (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextError {
    /// What is wrong.
    pub message: String,
    /// The line of the offending character.
    pub line: usize,
    /// Its column.
    pub col: usize,
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.col, self.message)
    }
}

/// The typed item of `kind` read from RON text (the item's text view), or why not and where.
pub fn parse_item_text(kind: Kind, text: &str) -> Result<SharedItem, TextError> {
    struct Parse<'a> {
        kind: Kind,
        text: &'a str,
        result: Option<Result<SharedItem, TextError>>,
    }
    impl KindVisitor for Parse<'_> {
        fn visit<T: Item>(&mut self, _items: &Items<T>) {
            if T::KIND == self.kind {
                self.result =
                    Some(ron::from_str::<T>(self.text).map(|item| Arc::new(item) as SharedItem).map_err(|error| {
                        TextError {
                            message: error.code.to_string(),
                            line: error.span.start.line,
                            col: error.span.start.col,
                        }
                    }));
            }
        }
    }
    let mut parse = Parse { kind, text, result: None };
    Project::default().visit_kinds(&mut parse);
    parse.result.unwrap_or_else(|| Err(TextError { message: format!("no kind {kind}"), line: 1, col: 1 }))
}

/// The typed item of `kind` read from RON text, or why not (with its line and column).
pub fn item_from_ron(kind: Kind, text: &str) -> Result<SharedItem, String> {
    parse_item_text(kind, text).map_err(|error| error.to_string())
}

/// Whether `item` holds a reference to the item `id` of `kind`.
fn refers_to(item: &impl Walk, kind: Kind, id: &str) -> bool {
    let mut found = FindReference { kind, id, paths: Vec::new() };
    walk_item(item, &mut found);
    !found.paths.is_empty()
}

/// Collects the paths of the references to one item.
struct FindReference<'a> {
    kind: Kind,
    id: &'a str,
    paths: Vec<FieldPath>,
}

impl Visitor for FindReference<'_> {
    fn reference(&mut self, path: &FieldPath, target: Kind, slug: &str) {
        if target == self.kind && slug == self.id {
            self.paths.push(path.clone());
        }
    }

    fn expr(&mut self, path: &FieldPath, expr: &Expr) {
        if formula_names(expr.text(), self.kind, self.id) {
            self.paths.push(path.clone());
        }
    }
}

/// Rewrites the references to one item.
struct RenameReferences<'a> {
    kind: Kind,
    from: &'a str,
    to: &'a str,
}

impl VisitorMut for RenameReferences<'_> {
    fn reference(&mut self, _path: &FieldPath, target: Kind, slug: &mut String) {
        if target == self.kind && slug == self.from {
            self.to.clone_into(slug);
        }
    }

    fn expr(&mut self, _path: &FieldPath, expr: &mut Expr) {
        // Formulas name items too (`f.ID`, `stat.ID`, `table.card.ID`…).
        if let Some(text) = rename_in_formula(expr.text(), self.kind, self.from, self.to) {
            *expr = Expr::new(text);
        }
    }
}

/// The item `id` of `kind` in `project`, shared.
pub fn get_item(project: &Project, kind: Kind, id: &str) -> Option<SharedItem> {
    struct Get<'a> {
        kind: Kind,
        id: &'a str,
        found: Option<SharedItem>,
    }
    impl KindVisitor for Get<'_> {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            if T::KIND == self.kind
                && let Some(item) = items.get(self.id)
            {
                self.found = Some(Arc::new(item.clone()));
            }
        }
    }
    let mut get = Get { kind, id, found: None };
    project.visit_kinds(&mut get);
    get.found
}

/// Removes the item `id` of `kind` from `project`, returning it.
fn remove_item(project: &mut Project, kind: Kind, id: &str) -> Option<SharedItem> {
    struct Remove<'a> {
        kind: Kind,
        id: &'a str,
        removed: Option<SharedItem>,
    }
    impl KindVisitorMut for Remove<'_> {
        fn visit<T: Item>(&mut self, items: &mut Items<T>) {
            if T::KIND == self.kind {
                self.removed = items.remove(self.id).map(|item| Arc::new(item) as SharedItem);
            }
        }
    }
    let mut remove = Remove { kind, id, removed: None };
    project.visit_kinds_mut(&mut remove);
    remove.removed
}

/// A merge conflict file's item and conflicts, when `text` is one (`None`: it is not).
pub fn conflict_from_ron(
    kind: Kind,
    text: &str,
) -> Option<Result<(SharedItem, Vec<actforge_runtime::project::merge::FieldConflict>), String>> {
    struct Parse<'a> {
        kind: Kind,
        text: &'a str,
        result: Option<Result<(SharedItem, Vec<actforge_runtime::project::merge::FieldConflict>), String>>,
    }
    impl KindVisitor for Parse<'_> {
        fn visit<T: Item>(&mut self, _items: &Items<T>) {
            if T::KIND == self.kind {
                self.result = actforge_runtime::project::merge::read_conflict_file::<T>(self.text).map(|file| {
                    file.map(|file| (Arc::new(file.merged) as SharedItem, file.conflicts))
                        .map_err(|error| error.to_string())
                });
            }
        }
    }
    let mut parse = Parse { kind, text, result: None };
    Project::default().visit_kinds(&mut parse);
    parse.result
}

/// The typed item of `kind` read from its JSON form (the inspector's generic form).
pub fn item_from_json(kind: Kind, value: serde_json::Value) -> Result<SharedItem, String> {
    struct Parse {
        kind: Kind,
        value: Option<serde_json::Value>,
        result: Option<Result<SharedItem, String>>,
    }
    impl KindVisitor for Parse {
        fn visit<T: Item>(&mut self, _items: &Items<T>) {
            if T::KIND == self.kind
                && let Some(value) = self.value.take()
            {
                self.result = Some(
                    serde_json::from_value::<T>(value)
                        .map(|item| Arc::new(item) as SharedItem)
                        .map_err(|error| error.to_string()),
                );
            }
        }
    }
    let mut parse = Parse { kind, value: Some(value), result: None };
    Project::default().visit_kinds(&mut parse);
    parse.result.unwrap_or_else(|| Err(format!("no kind {kind}")))
}

/// A text found by [`search_text`]: the item, the field's path in its JSON form
/// (`slots[1].label`), and the text around the match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextHit {
    /// The item that holds the text.
    pub key: ItemKey,
    /// Where in the item.
    pub field: String,
    /// The matching text, shortened around the match.
    pub snippet: String,
}

/// Items whose texts (labels, descriptions, act texts, formulas, references…) contain `query`,
/// ignoring case, in kind and id order; at most `limit` hits.
pub fn search_text(project: &Project, query: &str, limit: usize) -> Vec<TextHit> {
    fn visit(value: &serde_json::Value, path: &str, query: &str, found: &mut Vec<(String, String)>) {
        match value {
            serde_json::Value::String(text) => {
                if let Some(at) = text.to_lowercase().find(query) {
                    found.push((path.to_owned(), snippet(text, at, query.len())));
                }
            }
            serde_json::Value::Array(values) => {
                for (index, value) in values.iter().enumerate() {
                    visit(value, &format!("{path}[{index}]"), query, found);
                }
            }
            serde_json::Value::Object(fields) => {
                for (name, value) in fields {
                    let path = if path.is_empty() { name.clone() } else { format!("{path}.{name}") };
                    visit(value, &path, query, found);
                }
            }
            _ => {}
        }
    }
    let query = query.trim().to_lowercase();
    let mut hits = Vec::new();
    if query.is_empty() {
        return hits;
    }
    for &kind in Kind::ALL {
        for (id, _) in project.entries(kind) {
            let Some(json) = get_item(project, kind, id).and_then(|item| item.to_json().ok()) else { continue };
            let mut found = Vec::new();
            visit(&json, "", &query, &mut found);
            for (field, snippet) in found {
                if hits.len() >= limit {
                    return hits;
                }
                hits.push(TextHit { key: ItemKey::new(kind, id), field, snippet });
            }
        }
    }
    hits
}

/// Up to 30 characters either side of the match at byte `at` (of `len` bytes in the lowercased
/// text), on one line.
fn snippet(text: &str, at: usize, len: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    // Lowercasing can change byte lengths: find the match's character position in the original.
    let lower = text.to_lowercase();
    let start = lower.get(..at).map_or(0, |before| before.chars().count());
    let end = start + lower.get(at..at + len).map_or(0, |found| found.chars().count());
    let from = start.saturating_sub(30);
    let to = (end + 30).min(chars.len());
    let mut out: String = chars.get(from..to).unwrap_or_default().iter().collect();
    out = out.replace('\n', " ");
    if from > 0 {
        out.insert(0, '…');
    }
    if to < chars.len() {
        out.push('…');
    }
    out
}

/// Every reference to the item `key`: the referring item and the field path, in kind and id order.
pub fn where_used(project: &Project, key: &ItemKey) -> Vec<(ItemKey, FieldPath)> {
    struct Uses<'a> {
        key: &'a ItemKey,
        found: Vec<(ItemKey, FieldPath)>,
    }
    impl KindVisitor for Uses<'_> {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            for item in items {
                let mut find = FindReference { kind: self.key.kind, id: &self.key.id, paths: Vec::new() };
                walk_item(item, &mut find);
                for path in find.paths {
                    self.found.push((ItemKey::new(T::KIND, item.id().as_str()), path));
                }
            }
        }
    }
    let mut uses = Uses { key, found: Vec::new() };
    project.visit_kinds(&mut uses);
    uses.found
}

/// [`where_used`] of `key` at a later revision: `uses` (at an earlier one) with the items
/// `changed` since looked at again, the rest kept. Same result, without reading the project.
pub fn where_used_after(
    project: &Project,
    key: &ItemKey,
    mut uses: Vec<(ItemKey, FieldPath)>,
    changed: &BTreeSet<ItemKey>,
) -> Vec<(ItemKey, FieldPath)> {
    uses.retain(|(user, _)| !changed.contains(user));
    for user in changed {
        let Some(item) = get_item(project, user.kind, &user.id) else { continue };
        let mut find = FindReference { kind: key.kind, id: &key.id, paths: Vec::new() };
        item.walk_dyn(&mut find);
        uses.extend(find.paths.into_iter().map(|path| (user.clone(), path)));
    }
    // Kind and id order, as `where_used` finds them; each item's paths keep their order.
    uses.sort_by(|a, b| a.0.cmp(&b.0));
    uses
}

/// Why an op could not be applied; the document is unchanged then.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpError(pub String);

impl fmt::Display for OpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for OpError {}

/// One change to a project. Applying an op returns the op that undoes it exactly.
#[derive(Clone, Debug)]
pub enum Op {
    /// Makes the item `key` be `item` (insert or replace), or removes it when `item` is `None`.
    SetItem {
        /// Which item.
        key: ItemKey,
        /// Its new content; its id must be `key.id`.
        item: Option<SharedItem>,
    },
    /// Replaces `project.ron`'s manifest.
    SetManifest(Box<Manifest>),
    /// Replaces every translation (`locales/`).
    SetLocales(Box<Locales>),
    /// Gives the item `key` the id `to` and rewrites every reference to it (items and the
    /// manifest's entry points) in the same step.
    Rename {
        /// The item renamed.
        key: ItemKey,
        /// Its new id.
        to: String,
    },
    /// Several ops in order, as one step (all or nothing).
    Batch(Vec<Op>),
}

impl Op {
    /// Sets the item to `item` (insert or replace).
    pub fn put(item: SharedItem) -> Self {
        Op::SetItem { key: ItemKey::new(item.kind(), item.item_id()), item: Some(item) }
    }

    /// Removes the item `key`.
    pub fn remove(key: ItemKey) -> Self {
        Op::SetItem { key, item: None }
    }

    /// Applies the op to `project`, returning its inverse. On error `project` is unchanged.
    pub fn apply(self, project: &mut Project) -> Result<Op, OpError> {
        match self {
            Op::SetItem { key, item } => {
                let old = match item {
                    Some(item) => {
                        if item.kind() != key.kind || item.item_id() != key.id {
                            return Err(OpError(format!(
                                "the {} `{}` cannot be stored as the {key}",
                                item.kind().label().to_lowercase(),
                                item.item_id()
                            )));
                        }
                        item.put_into(project)
                    }
                    None => remove_item(project, key.kind, &key.id),
                };
                Ok(Op::SetItem { key, item: old })
            }
            Op::SetManifest(manifest) => {
                Ok(Op::SetManifest(Box::new(std::mem::replace(&mut project.manifest, *manifest))))
            }
            Op::SetLocales(locales) => Ok(Op::SetLocales(Box::new(std::mem::replace(&mut project.locales, *locales)))),
            Op::Rename { key, to } => rename(project, &key, &to),
            Op::Batch(ops) => {
                let mut inverses = Vec::with_capacity(ops.len());
                for op in ops {
                    match op.apply(project) {
                        Ok(inverse) => inverses.push(inverse),
                        Err(error) => {
                            // All or nothing: undo what this batch already did.
                            for inverse in inverses.into_iter().rev() {
                                // An inverse of an op that just applied applies too.
                                let _ = inverse.apply(project);
                            }
                            return Err(error);
                        }
                    }
                }
                inverses.reverse();
                Ok(Op::Batch(inverses))
            }
        }
    }

    /// Calls `f` with every item key this op sets (a rename's touched items are known only
    /// once applied: its inverse lists them).
    fn for_each_key(&self, f: &mut impl FnMut(&ItemKey, Option<&SharedItem>)) {
        match self {
            Op::SetItem { key, item } => f(key, item.as_ref()),
            Op::Batch(ops) => {
                for op in ops {
                    op.for_each_key(f);
                }
            }
            Op::SetManifest(_) | Op::SetLocales(_) | Op::Rename { .. } => {}
        }
    }

    /// Whether the op (after flattening batches) changes the manifest.
    fn sets_manifest(&self) -> bool {
        match self {
            Op::SetManifest(_) => true,
            Op::Batch(ops) => ops.iter().any(Op::sets_manifest),
            Op::SetItem { .. } | Op::SetLocales(_) | Op::Rename { .. } => false,
        }
    }

    /// Whether the op (after flattening batches) changes the translations.
    fn sets_locales(&self) -> bool {
        match self {
            Op::SetLocales(_) => true,
            Op::Batch(ops) => ops.iter().any(Op::sets_locales),
            Op::SetItem { .. } | Op::SetManifest(_) | Op::Rename { .. } => false,
        }
    }
}

/// Renames `key` to `to` and rewrites every reference; the inverse puts back every touched item.
fn rename(project: &mut Project, key: &ItemKey, to: &str) -> Result<Op, OpError> {
    if let Some(problem) = slug_problem(to) {
        return Err(OpError(problem));
    }
    if key.id == to {
        return Ok(Op::Batch(Vec::new()));
    }
    if project.contains(key.kind, to) {
        return Err(OpError(format!("there is already a {} `{to}`", key.kind.label().to_lowercase())));
    }
    let Some(item) = get_item(project, key.kind, &key.id) else {
        return Err(OpError(format!("there is no {key}")));
    };
    // The whole change as set-item ops, applied as one batch: its inverse is exact.
    let mut ops = vec![Op::remove(key.clone()), Op::put(item.with_id(to))];
    let users: BTreeSet<ItemKey> = where_used(project, key).into_iter().map(|(user, _)| user).collect();
    for user in users {
        // The renamed item's own references to itself move with it.
        let user_id = if user == *key { to.to_owned() } else { user.id.clone() };
        let current = if user == *key { Some(item.with_id(to)) } else { get_item(project, user.kind, &user.id) };
        if let Some(renamed) = current.and_then(|current| current.with_reference_renamed(key.kind, &key.id, to)) {
            ops.push(Op::SetItem { key: ItemKey::new(user.kind, user_id), item: Some(renamed) });
        }
    }
    if refers_to(&project.manifest, key.kind, &key.id) {
        let mut manifest = project.manifest.clone();
        manifest.walk_mut(&mut FieldPath::root(), &mut RenameReferences { kind: key.kind, from: &key.id, to });
        ops.push(Op::SetManifest(Box::new(manifest)));
    }
    Op::Batch(ops).apply(project)
}

/// The project being edited, its revision and what differs from the last save.
#[derive(Debug)]
pub struct Document {
    project: Project,
    /// Counts applied ops; caches (validation, search) compare it.
    revision: u64,
    /// `revision` at the last save or load.
    saved_revision: u64,
    /// The saved content of every item changed since the last save (`None`: it did not exist).
    baseline: BTreeMap<ItemKey, Option<SharedItem>>,
    /// The saved manifest, once it was changed.
    baseline_manifest: Option<Manifest>,
    /// The saved translations, once they were changed.
    baseline_locales: Option<Locales>,
    /// Items whose content differs from the saved one.
    dirty: BTreeSet<ItemKey>,
    /// The latest ops' changes, oldest first: caches that follow the document (validation,
    /// the preview's compiled content) redo only what changed.
    changes: std::collections::VecDeque<Change>,
}

/// What one applied op changed.
#[derive(Clone, Debug)]
struct Change {
    /// The revision before the op.
    from: u64,
    /// The items it set or removed.
    items: Vec<ItemKey>,
    /// Whether it set the manifest.
    manifest: bool,
    /// Whether it set the translations.
    locales: bool,
}

/// The changes a document went through between two revisions.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// The items set or removed.
    pub items: BTreeSet<ItemKey>,
    /// Whether the manifest was set.
    pub manifest: bool,
    /// Whether the translations were set.
    pub locales: bool,
}

/// How many ops' changes a document remembers; a cache further behind starts over.
const CHANGES_KEPT: usize = 256;

/// A revision no document has had yet: caches keyed by revision (the inspector's, the preview's)
/// stay right when a reload or another project replaces the document.
fn fresh_revision() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Document {
    /// A document over a project just loaded or saved: nothing unsaved.
    pub fn new(project: Project) -> Self {
        let revision = fresh_revision();
        Self {
            project,
            revision,
            saved_revision: revision,
            baseline: BTreeMap::new(),
            baseline_manifest: None,
            baseline_locales: None,
            dirty: BTreeSet::new(),
            changes: std::collections::VecDeque::new(),
        }
    }

    /// What changed since `revision`; `None` when this document never had that revision or no
    /// longer remembers that far back (the caller starts over).
    pub fn changes_since(&self, revision: u64) -> Option<Changes> {
        let mut changes = Changes::default();
        if revision == self.revision {
            return Some(changes);
        }
        let start = self.changes.iter().position(|change| change.from == revision)?;
        for change in self.changes.iter().skip(start) {
            changes.items.extend(change.items.iter().cloned());
            changes.manifest |= change.manifest;
            changes.locales |= change.locales;
        }
        Some(changes)
    }

    /// The project (read-only: change it with [`Document::apply`]).
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The content's revision: a number no other content of any document had (every applied
    /// op gives a new one).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The revision at the last save.
    pub fn saved_revision(&self) -> u64 {
        self.saved_revision
    }

    /// Applies `op`, returning its inverse; on error nothing changed.
    pub fn apply(&mut self, op: Op) -> Result<Op, OpError> {
        let inverse = op.apply(&mut self.project)?;
        let from = self.revision;
        self.revision = fresh_revision();
        // An item may be set more than once in one op (a rename's batch): the inverse's last
        // setting of it, applied last, holds the content from before the op.
        let mut before = BTreeMap::new();
        inverse.for_each_key(&mut |key, old| {
            before.insert(key.clone(), old.cloned());
        });
        let touched: Vec<ItemKey> = before.keys().cloned().collect();
        if self.changes.len() == CHANGES_KEPT {
            self.changes.pop_front();
        }
        self.changes.push_back(Change {
            from,
            items: touched.clone(),
            manifest: inverse.sets_manifest(),
            locales: inverse.sets_locales(),
        });
        for (key, old) in before {
            // The first time an item changes after a save, its old content is the saved one.
            self.baseline.entry(key).or_insert(old);
        }
        for key in touched {
            let saved = self.baseline.get(&key).cloned().flatten();
            let current = get_item(&self.project, key.kind, &key.id);
            if same_content(saved.as_ref(), current.as_ref()) {
                self.dirty.remove(&key);
            } else {
                self.dirty.insert(key);
            }
        }
        if self.baseline_manifest.is_none() && inverse.sets_manifest() {
            self.baseline_manifest = saved_manifest(&inverse);
        }
        if self.baseline_locales.is_none() && inverse.sets_locales() {
            self.baseline_locales = saved_locales(&inverse);
        }
        Ok(inverse)
    }

    /// Whether the item differs from its saved content (or was added or removed).
    pub fn is_dirty(&self, key: &ItemKey) -> bool {
        self.dirty.contains(key)
    }

    /// The items that differ from their saved content.
    pub fn dirty_items(&self) -> &BTreeSet<ItemKey> {
        &self.dirty
    }

    /// Whether the manifest differs from the saved one.
    pub fn manifest_dirty(&self) -> bool {
        self.baseline_manifest.as_ref().is_some_and(|saved| *saved != self.project.manifest)
    }

    /// Whether the translations differ from the saved ones.
    pub fn locales_dirty(&self) -> bool {
        self.baseline_locales.as_ref().is_some_and(|saved| *saved != self.project.locales)
    }

    /// What `locales/` held at the last save or load, as far as the document knows.
    pub fn saved_locales(&self) -> &Locales {
        self.baseline_locales.as_ref().unwrap_or(&self.project.locales)
    }

    /// Records that `locales/` now holds `saved` (a reload).
    pub fn set_saved_locales(&mut self, saved: Locales) {
        self.baseline_locales = (saved != self.project.locales).then_some(saved);
    }

    /// Whether anything differs from the saved project.
    pub fn has_unsaved_changes(&self) -> bool {
        !self.dirty.is_empty() || self.manifest_dirty() || self.locales_dirty()
    }

    /// What the item's file held at the last save or load, as far as the document knows
    /// (`None`: no file).
    pub fn saved_content(&self, key: &ItemKey) -> Option<SharedItem> {
        match self.baseline.get(key) {
            Some(saved) => saved.clone(),
            None => get_item(&self.project, key.kind, &key.id),
        }
    }

    /// Records that the item's file now holds `saved` (a reload, or a conflict resolved by
    /// keeping the designer's version: then the item stays unsaved).
    pub fn set_saved_content(&mut self, key: &ItemKey, saved: Option<SharedItem>) {
        let current = get_item(&self.project, key.kind, &key.id);
        if same_content(saved.as_ref(), current.as_ref()) {
            self.dirty.remove(key);
        } else {
            self.dirty.insert(key.clone());
        }
        self.baseline.insert(key.clone(), saved);
    }

    /// What `project.ron` held at the last save or load, as far as the document knows.
    pub fn saved_manifest(&self) -> &Manifest {
        self.baseline_manifest.as_ref().unwrap_or(&self.project.manifest)
    }

    /// Records that `project.ron` now holds `saved` (a reload, or a conflict resolved by
    /// keeping the designer's version: then the manifest stays unsaved).
    pub fn set_saved_manifest(&mut self, saved: Manifest) {
        self.baseline_manifest = (saved != self.project.manifest).then_some(saved);
    }

    /// Records that the current content is what is on disk.
    pub fn mark_saved(&mut self) {
        self.saved_revision = self.revision;
        self.baseline.clear();
        self.baseline_manifest = None;
        self.baseline_locales = None;
        self.dirty.clear();
    }

    /// The window title: the project name, with `●` while there are unsaved changes.
    pub fn title(&self) -> String {
        let name = if self.project.manifest.name.is_empty() { "Untitled" } else { &self.project.manifest.name };
        if self.has_unsaved_changes() { format!("● {name} — Actforge") } else { format!("{name} — Actforge") }
    }
}

/// Whether two optional items are the same (both absent counts as the same).
pub fn same_content(a: Option<&SharedItem>, b: Option<&SharedItem>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => a.same_as(b.as_ref()),
        _ => false,
    }
}

/// The manifest an inverse op restores last (the one from before the op).
fn saved_manifest(op: &Op) -> Option<Manifest> {
    match op {
        Op::SetManifest(manifest) => Some((**manifest).clone()),
        Op::Batch(ops) => ops.iter().rev().find_map(saved_manifest),
        Op::SetItem { .. } | Op::SetLocales(_) | Op::Rename { .. } => None,
    }
}

/// The translations an inverse op restores last (those from before the op).
fn saved_locales(op: &Op) -> Option<Locales> {
    match op {
        Op::SetLocales(locales) => Some((**locales).clone()),
        Op::Batch(ops) => ops.iter().rev().find_map(saved_locales),
        Op::SetItem { .. } | Op::SetManifest(_) | Op::Rename { .. } => None,
    }
}

/// One undo step: what undoes it and what it was called.
#[derive(Clone, Debug)]
struct Entry {
    label: String,
    op: Op,
}

/// The undo step of a gesture after one more edit: undoing it must restore what was there
/// before the gesture began. An item (or the manifest) set again during the gesture needs only
/// its earliest inverse (Tiled's `mergeWith`), so a brush stroke over N cells keeps one copy
/// of the map, not N. Renames move keys, so a gesture with one keeps every inverse, newest first.
fn merge_gesture(earlier: Op, newest: Op) -> Op {
    fn flatten(op: Op, into: &mut Vec<Op>) {
        match op {
            Op::Batch(ops) => ops.into_iter().for_each(|op| flatten(op, into)),
            op => into.push(op),
        }
    }
    /// What an op sets; renames have no single target.
    #[derive(PartialEq, Eq, PartialOrd, Ord)]
    enum Target<'a> {
        Item(&'a ItemKey),
        Manifest,
        Locales,
    }
    fn target(op: &Op) -> Option<Target<'_>> {
        match op {
            Op::SetItem { key, .. } => Some(Target::Item(key)),
            Op::SetManifest(_) => Some(Target::Manifest),
            Op::SetLocales(_) => Some(Target::Locales),
            Op::Rename { .. } | Op::Batch(_) => None,
        }
    }
    let (mut older, mut newer) = (Vec::new(), Vec::new());
    flatten(earlier, &mut older);
    flatten(newest, &mut newer);
    if older.iter().chain(&newer).any(|op| target(op).is_none()) {
        // Undo the newest edit first, then the earlier ones of the gesture.
        newer.extend(older);
        return Op::Batch(newer);
    }
    let restored: BTreeSet<Target<'_>> = older.iter().filter_map(target).collect();
    // Targets the gesture had not touched yet commute with the older inverses.
    let mut merged: Vec<Op> =
        newer.into_iter().filter(|op| target(op).is_some_and(|t| !restored.contains(&t))).collect();
    merged.extend(older);
    Op::Batch(merged)
}

/// Undo and redo stacks; consecutive edits of one open gesture merge into one step.
#[derive(Debug, Default)]
pub struct History {
    undo: Vec<Entry>,
    redo: Vec<Entry>,
    /// The gesture the top undo entry belongs to, while it is still going on.
    open_gesture: Option<u64>,
}

impl History {
    /// An empty history.
    pub fn new() -> Self {
        Self::default()
    }

    /// Applies `op` to `document` and records its inverse as the step `label`. Edits with the
    /// same `gesture` (e.g. one text field being typed into, one drag) merge until
    /// [`History::end_gesture`].
    pub fn apply(&mut self, document: &mut Document, op: Op, label: &str, gesture: Option<u64>) -> Result<(), OpError> {
        let inverse = document.apply(op)?;
        self.redo.clear();
        if let (Some(gesture), Some(open)) = (gesture, self.open_gesture)
            && gesture == open
            && let Some(top) = self.undo.last_mut()
        {
            let earlier = std::mem::replace(&mut top.op, Op::Batch(Vec::new()));
            top.op = merge_gesture(earlier, inverse);
            return Ok(());
        }
        self.undo.push(Entry { label: label.to_owned(), op: inverse });
        self.open_gesture = gesture;
        Ok(())
    }

    /// Ends the current gesture: the next edit starts a new undo step.
    pub fn end_gesture(&mut self) {
        self.open_gesture = None;
    }

    /// Undoes the last step; returns its label, or `None` when there is nothing to undo.
    pub fn undo(&mut self, document: &mut Document) -> Result<Option<String>, OpError> {
        self.end_gesture();
        let Some(entry) = self.undo.pop() else { return Ok(None) };
        match document.apply(entry.op.clone()) {
            Ok(redo) => {
                self.redo.push(Entry { label: entry.label.clone(), op: redo });
                Ok(Some(entry.label))
            }
            Err(error) => {
                self.undo.push(entry);
                Err(error)
            }
        }
    }

    /// Redoes the last undone step; returns its label, or `None` when there is nothing to redo.
    pub fn redo(&mut self, document: &mut Document) -> Result<Option<String>, OpError> {
        self.end_gesture();
        let Some(entry) = self.redo.pop() else { return Ok(None) };
        match document.apply(entry.op.clone()) {
            Ok(undo) => {
                self.undo.push(Entry { label: entry.label.clone(), op: undo });
                Ok(Some(entry.label))
            }
            Err(error) => {
                self.redo.push(entry);
                Err(error)
            }
        }
    }

    /// The label of the step Undo would undo.
    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|entry| entry.label.as_str())
    }

    /// The label of the step Redo would redo.
    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|entry| entry.label.as_str())
    }

    /// Number of undo steps.
    pub fn undo_len(&self) -> usize {
        self.undo.len()
    }

    /// Forgets every step (another project was opened).
    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
        self.open_gesture = None;
    }
}
