//! Typed, human-readable item ids.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::Arc;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::json;

use super::value::schema_of;
use super::{Item, MapNode};

/// Longest id the project format accepts (it is also a file name).
pub const MAX_ID_LEN: usize = 64;

/// Schema extension of a reference: the folder name of the kind it names (`"cards"`).
pub const KIND_EXTENSION: &str = "x-actforge-kind";

/// Schema extension of a reference to an element of the enclosing item (`"nodes"`: a node of the
/// same node map), not to an item of a kind.
pub const LOCAL_EXTENSION: &str = "x-actforge-local";

/// The ids [`slug_problem`] accepts, as a regular expression.
pub const SLUG_PATTERN: &str = "^[a-z_][a-z0-9_]{0,63}$";

/// The id of an item of kind `K`: a slug such as `tea_party`, unique per kind.
///
/// Ids are also formula identifiers (`[a-z_][a-z0-9_]*`), so content can be named in
/// formulas without quoting. The kind is part of the type, so an act id cannot be passed
/// where a card id is expected.
pub struct Id<K> {
    // Shared: the engine copies ids into its state at every step, and a copy must not allocate.
    slug: Arc<str>,
    kind: PhantomData<fn() -> K>,
}

impl<K> Id<K> {
    /// Wraps a slug without checking it; `validate` reports malformed slugs.
    pub fn new(slug: impl Into<String>) -> Self {
        Self { slug: Arc::from(slug.into()), kind: PhantomData }
    }

    /// The slug text.
    pub fn as_str(&self) -> &str {
        &self.slug
    }

    /// Whether both ids are copies of one id (they share their text): a cheap first test
    /// before comparing texts.
    pub fn shares_text(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.slug, &other.slug)
    }

    /// Makes this id share `text` when it says the same (interning: comparing the two ids
    /// is then a comparison of addresses).
    pub(crate) fn share(&mut self, text: &Arc<str>) {
        if *self.slug == **text {
            self.slug = Arc::clone(text);
        }
    }

    /// The shared text, for interning.
    pub(crate) fn shared_text(&self) -> &Arc<str> {
        &self.slug
    }

    /// Replaces the slug (renames that rewrite references).
    pub fn set(&mut self, slug: &str) {
        if *self.slug != *slug {
            self.slug = Arc::from(slug);
        }
    }
}

/// Why a slug is not a valid id, or `None` when it is.
pub fn slug_problem(slug: &str) -> Option<String> {
    let mut chars = slug.chars();
    let Some(first) = chars.next() else {
        return Some("the id is empty".to_owned());
    };
    if slug.len() > MAX_ID_LEN {
        return Some(format!("the id is longer than {MAX_ID_LEN} characters"));
    }
    if !(first.is_ascii_lowercase() || first == '_') {
        return Some(format!(
            "the id `{slug}` must start with a lowercase letter or `_` (ids are snake_case, e.g. `tea_party`)"
        ));
    }
    if let Some(bad) = slug.chars().find(|c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')) {
        return Some(format!("the id `{slug}` contains `{bad}`; ids use only lowercase letters, digits and `_`"));
    }
    None
}

/// Turns free text ("00 Kitten is loaded") into a valid slug ("_00_kitten_is_loaded").
pub fn slugify(text: &str) -> String {
    let mut slug = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.ends_with('_') && !slug.is_empty() {
            slug.push('_');
        }
    }
    while slug.ends_with('_') {
        slug.pop();
    }
    if slug.is_empty() {
        slug.push_str("item");
    }
    if slug.starts_with(|c: char| c.is_ascii_digit()) {
        slug.insert(0, '_');
    }
    slug.truncate(MAX_ID_LEN);
    slug
}

impl<K> Default for Id<K> {
    /// The empty id; `validate` reports it.
    fn default() -> Self {
        Self::new(String::new())
    }
}
impl<K> std::borrow::Borrow<str> for Id<K> {
    fn borrow(&self) -> &str {
        &self.slug
    }
}
impl<K> Clone for Id<K> {
    fn clone(&self) -> Self {
        Self { slug: Arc::clone(&self.slug), kind: PhantomData }
    }
}
impl<K> PartialEq for Id<K> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.slug, &other.slug) || self.slug == other.slug
    }
}
impl<K> Eq for Id<K> {}
impl<K> PartialOrd for Id<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<K> Ord for Id<K> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.slug.cmp(&other.slug)
    }
}
impl<K> Hash for Id<K> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.slug.hash(state);
    }
}
impl<K> fmt::Debug for Id<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.slug, f)
    }
}
impl<K> fmt::Display for Id<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.slug)
    }
}
impl<K> From<&str> for Id<K> {
    fn from(slug: &str) -> Self {
        Self::new(slug)
    }
}
impl<K> Serialize for Id<K> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.slug)
    }
}
impl<'de, K> Deserialize<'de> for Id<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::new)
    }
}

/// The schema of an id that names nothing: an item's own `id`, a slug (`schemars(schema_with)`).
pub(crate) fn slug_schema(_: &mut SchemaGenerator) -> Schema {
    schema_of(json!({
        "type": "string",
        "pattern": SLUG_PATTERN,
        "description": "A slug: lowercase letters, digits and `_`, starting with a letter or `_`, at most 64 characters.",
    }))
}

/// The schema of a reference: a slug with `extension: target`.
fn reference_schema(extension: &str, target: &str) -> Schema {
    let mut schema = slug_schema(&mut SchemaGenerator::default());
    schema.insert(extension.to_owned(), target.into());
    schema
}

impl<K: Item> JsonSchema for Id<K> {
    fn inline_schema() -> bool {
        // Inline, so every reference carries the kind it names.
        true
    }
    fn schema_name() -> Cow<'static, str> {
        format!("Id_{}", K::KIND.folder()).into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        reference_schema(KIND_EXTENSION, K::KIND.folder())
    }
}

impl JsonSchema for Id<MapNode> {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Id_node".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        reference_schema(LOCAL_EXTENSION, "nodes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_snake_case_identifiers() {
        assert_eq!(slug_problem("tea_party"), None);
        assert_eq!(slug_problem("_00_kitten"), None);
        assert!(slug_problem("").is_some());
        assert!(slug_problem("Tea").is_some());
        assert!(slug_problem("tea-party").is_some());
        assert!(slug_problem("1st").is_some());
        assert!(slug_problem(&"a".repeat(MAX_ID_LEN + 1)).is_some());
    }

    #[test]
    fn slugify_makes_valid_ids() {
        assert_eq!(slugify("00 Kitten is loaded"), "_00_kitten_is_loaded");
        assert_eq!(slugify("Kitten\n[in a Jar]"), "kitten_in_a_jar");
        assert_eq!(slugify("¿?"), "item");
        for text in ["00 Kitten is loaded", "Kitten\n[in a Jar]", "---", "Ünïcode Name"] {
            assert_eq!(slug_problem(&slugify(text)), None, "{text}");
        }
    }
}
