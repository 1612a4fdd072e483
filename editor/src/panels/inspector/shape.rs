//! What the item schema says a value is, and the value a new one starts with.
//!
//! The schema is the runtime's (`actforge_runtime::schema`): named types in `$defs`, ids,
//! formulas and colours marked with extensions, enums as `oneOf` (unit variants as `const`,
//! variants with data as one-key objects), options as `anyOf [T, null]` or a type list with
//! `"null"`.

use actforge_runtime::schema::{COLOUR_EXTENSION, FORMULA_EXTENSION, KIND_EXTENSION, LOCAL_EXTENSION, resolve};
use actforge_runtime::{Kind, Project};
use serde_json::{Map, Value};

/// A kind of value the form has a widget for.
#[derive(Clone, Debug)]
pub enum Shape<'s> {
    /// An id of an item of `kind`.
    Reference(Kind),
    /// An id of something inside the item itself (a node map's nodes).
    Local(&'s str),
    /// A formula: a number or a text.
    Formula,
    /// `#rrggbbaa`.
    Colour,
    /// A flag.
    Bool,
    /// A whole number within bounds.
    Integer {
        /// The least value.
        min: f64,
        /// The greatest value.
        max: f64,
    },
    /// A number.
    Number,
    /// A text.
    Text,
    /// One of several variants.
    Enum(Vec<Variant<'s>>),
    /// A value, or none.
    Optional(Nullable<'s>),
    /// A list of values of one schema.
    List(&'s Value),
    /// Named values of one schema, by key.
    Map(&'s Value),
    /// A structure: its fields in declaration order, and which are required.
    Object(&'s Map<String, Value>, Vec<&'s str>),
    /// Anything the form has no widget for (edited as JSON text).
    Other,
}

/// The schema inside an option.
#[derive(Clone, Debug)]
pub enum Nullable<'s> {
    /// `anyOf [schema, null]`.
    Of(&'s Value),
    /// A schema whose type list includes `"null"`: the same schema without it.
    Typed(&'s Value),
}

/// One variant of an enum.
#[derive(Clone, Debug)]
pub struct Variant<'s> {
    /// Its name as written (`Aspect`, `Scope`).
    pub name: &'s str,
    /// Its data's schema (`None` for unit variants).
    pub data: Option<&'s Value>,
    /// Its doc comment.
    pub description: &'s str,
}

/// The schema `schema` with `$ref`s followed in `root`.
pub fn resolved<'s>(root: &'s Value, schema: &'s Value) -> &'s Value {
    resolve(root, schema)
}

/// The types a schema allows (`"type": "string"` or `["number", "string", "null"]`).
fn types(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// What `schema` (resolved in `root`) describes.
pub fn shape_of<'s>(root: &'s Value, schema: &'s Value) -> Shape<'s> {
    shape(root, schema, true)
}

/// What an option holds when it is set, and that value's schema.
pub fn inner_of<'s>(root: &'s Value, option: &Nullable<'s>) -> (Shape<'s>, &'s Value) {
    match *option {
        Nullable::Of(inner) => (shape_of(root, inner), inner),
        Nullable::Typed(schema) => (shape(root, schema, false), schema),
    }
}

/// [`shape_of`]; a `"null"` in a type list makes an option only when `nullable`.
fn shape<'s>(root: &'s Value, schema: &'s Value, nullable: bool) -> Shape<'s> {
    let schema = resolved(root, schema);
    let types: Vec<&str> = types(schema).into_iter().filter(|kind| nullable || *kind != "null").collect();
    if types.contains(&"null") && types.len() > 1 {
        return Shape::Optional(Nullable::Typed(schema));
    }
    if let Some(options) = schema.get("anyOf").and_then(Value::as_array) {
        let null = |option: &Value| option.get("type").and_then(Value::as_str) == Some("null");
        if options.len() == 2
            && let Some(inner) = options.iter().find(|option| !null(option))
            && options.iter().any(null)
        {
            return Shape::Optional(Nullable::Of(inner));
        }
        return Shape::Other;
    }
    if let Some(kind) = schema.get(KIND_EXTENSION).and_then(Value::as_str).and_then(Kind::from_folder) {
        return Shape::Reference(kind);
    }
    if let Some(collection) = schema.get(LOCAL_EXTENSION).and_then(Value::as_str) {
        return Shape::Local(collection);
    }
    if schema.get(FORMULA_EXTENSION).is_some_and(|flag| flag == true) {
        return Shape::Formula;
    }
    if schema.get(COLOUR_EXTENSION).is_some_and(|flag| flag == true) {
        return Shape::Colour;
    }
    if let Some(variants) = variants(schema) {
        return Shape::Enum(variants);
    }
    match types.first().copied() {
        Some("boolean") => Shape::Bool,
        Some("integer") => Shape::Integer {
            // Whole numbers a JSON number holds exactly, where the schema sets no bound.
            min: schema.get("minimum").and_then(Value::as_f64).unwrap_or(-9_007_199_254_740_991.0),
            max: schema.get("maximum").and_then(Value::as_f64).unwrap_or(9_007_199_254_740_991.0),
        },
        Some("number") => Shape::Number,
        Some("string") => Shape::Text,
        Some("array") => schema.get("items").map_or(Shape::Other, Shape::List),
        Some("object") => match schema.get("properties").and_then(Value::as_object) {
            Some(properties) => {
                let required = schema
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|names| names.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                Shape::Object(properties, required)
            }
            None => match schema.get("additionalProperties") {
                Some(values @ Value::Object(_)) => Shape::Map(values),
                _ => Shape::Other,
            },
        },
        _ => Shape::Other,
    }
}

/// The variants of an enum schema (`oneOf` of `const`s and one-key objects, or `enum`).
fn variants(schema: &Value) -> Option<Vec<Variant<'_>>> {
    if let Some(names) = schema.get("enum").and_then(Value::as_array) {
        return Some(
            names.iter().filter_map(Value::as_str).map(|name| Variant { name, data: None, description: "" }).collect(),
        );
    }
    let options = schema.get("oneOf")?.as_array()?;
    options
        .iter()
        .map(|option| {
            let description = option.get("description").and_then(Value::as_str).unwrap_or_default();
            if let Some(name) = option.get("const").and_then(Value::as_str) {
                return Some(Variant { name, data: None, description });
            }
            let properties = option.get("properties")?.as_object()?;
            let (name, data) = properties.iter().next().filter(|_| properties.len() == 1)?;
            Some(Variant { name, data: Some(data), description })
        })
        .collect()
}

/// The variant a value holds: a unit variant's name, or the one key of a variant with data.
pub fn variant_of(value: &Value) -> Option<&str> {
    match value {
        Value::String(name) => Some(name),
        Value::Object(map) if map.len() == 1 => map.keys().next().map(String::as_str),
        _ => None,
    }
}

/// Where new values come from: the project (a reference starts at an existing target) and
/// the item itself (its local ids).
pub struct Defaults<'a> {
    /// The item schema (its `$defs`).
    pub root: &'a Value,
    /// The project.
    pub project: &'a Project,
    /// The item as JSON (for local ids).
    pub item: &'a Value,
}

impl Defaults<'_> {
    /// A value for a new field, element or variant of `schema` that reads: the schema's
    /// default, or the simplest value of its shape (a reference names the first existing
    /// target; a structure holds its required fields).
    pub fn value_of(&self, schema: &Value) -> Value {
        if let Some(default) = schema.get("default").filter(|default| !default.is_null()) {
            return default.clone();
        }
        let resolved = resolved(self.root, schema);
        if let Some(default) = resolved.get("default").filter(|default| !default.is_null()) {
            return default.clone();
        }
        self.value_of_shape(shape_of(self.root, schema))
    }

    /// A value for an option being set: the simplest value of what it holds.
    pub fn value_in(&self, option: &Nullable<'_>) -> Value {
        match *option {
            Nullable::Of(inner) => self.value_of(inner),
            Nullable::Typed(schema) => self.value_of_shape(shape(self.root, schema, false)),
        }
    }

    /// The simplest value of a shape.
    fn value_of_shape(&self, shape: Shape<'_>) -> Value {
        match shape {
            Shape::Reference(kind) => {
                Value::String(self.project.entries(kind).first().map(|(id, _)| (*id).to_owned()).unwrap_or_default())
            }
            Shape::Local(collection) => {
                Value::String(local_ids(self.item, collection).into_iter().next().unwrap_or_default())
            }
            Shape::Formula | Shape::Integer { .. } => Value::from(0),
            Shape::Number => Value::from(0.0),
            Shape::Colour => Value::String("#ffffffff".to_owned()),
            Shape::Bool => Value::Bool(false),
            Shape::Text => Value::String(String::new()),
            Shape::Enum(variants) => self.first_variant(&variants),
            Shape::Optional(_) | Shape::Other => Value::Null,
            Shape::List(_) => Value::Array(Vec::new()),
            Shape::Map(_) => Value::Object(Map::new()),
            Shape::Object(properties, required) => Value::Object(
                properties
                    .iter()
                    .filter(|(name, _)| required.contains(&name.as_str()))
                    .map(|(name, property)| (name.clone(), self.value_of(property)))
                    .collect(),
            ),
        }
    }

    /// The value of `variant`: its name, or its name over its data's new value.
    pub fn variant_value(&self, variant: &Variant<'_>) -> Value {
        match variant.data {
            None => Value::String(variant.name.to_owned()),
            Some(data) => Value::Object(std::iter::once((variant.name.to_owned(), self.value_of(data))).collect()),
        }
    }

    /// A new enum value: the first variant whose data names something that exists (an
    /// `Aspect` when the project has aspects, else a `Card`…), else the first variant (its
    /// reference then waits for a target, which the picker can create).
    fn first_variant(&self, variants: &[Variant<'_>]) -> Value {
        let names_something = |variant: &&Variant<'_>| {
            variant.data.is_some_and(|data| match shape_of(self.root, data) {
                Shape::Reference(kind) => !self.project.entries(kind).is_empty(),
                _ => true,
            })
        };
        let chosen = variants.iter().find(names_something).or_else(|| variants.first());
        chosen.map_or(Value::Null, |variant| self.variant_value(variant))
    }
}

/// The ids of the item's own `collection` (a node map's `nodes`), in order.
pub fn local_ids(item: &Value, collection: &str) -> Vec<String> {
    item.get(collection)
        .and_then(Value::as_array)
        .map(|entries| entries.iter().filter_map(|entry| entry.get("id")?.as_str().map(str::to_owned)).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use actforge_runtime::schema::item_schema;

    use super::*;

    fn property<'s>(root: &'s Value, path: &[&str]) -> &'s Value {
        path.iter().fold(root, |schema, name| {
            let schema = resolved(root, schema);
            let schema = schema.get("items").map_or(schema, |items| resolved(root, items));
            schema.get("properties").and_then(|p| p.get(*name)).unwrap()
        })
    }

    #[test]
    fn every_field_of_every_kind_has_a_widget() {
        fn visit<'s>(root: &'s Value, schema: &'s Value, path: &str, depth: usize, others: &mut Vec<String>) {
            if depth > 12 {
                return;
            }
            match shape_of(root, schema) {
                Shape::Other => others.push(path.to_owned()),
                Shape::Optional(Nullable::Of(inner)) => visit(root, inner, path, depth + 1, others),
                Shape::List(items) | Shape::Map(items) => visit(root, items, &format!("{path}[]"), depth + 1, others),
                Shape::Object(properties, _) => {
                    for (name, property) in properties {
                        visit(root, property, &format!("{path}.{name}"), depth + 1, others);
                    }
                }
                Shape::Enum(variants) => {
                    for variant in variants.iter().filter_map(|variant| variant.data.map(|data| (variant.name, data))) {
                        visit(root, variant.1, &format!("{path}::{}", variant.0), depth + 1, others);
                    }
                }
                _ => {}
            }
        }
        let mut others = Vec::new();
        for &kind in Kind::ALL {
            let root = item_schema(kind);
            visit(root, root, kind.folder(), 0, &mut others);
        }
        // Tile columns have a form of their own (the Tile map tab).
        others.retain(|path| !path.starts_with("tile_maps.columns"));
        assert!(others.is_empty(), "no widget for {others:?}");
    }

    #[test]
    fn shapes_follow_the_schema() {
        let root = item_schema(Kind::Act);
        assert!(matches!(shape_of(root, property(root, &["token"])), Shape::Optional(Nullable::Typed(_))));
        assert!(matches!(shape_of(root, property(root, &["duration_ticks"])), Shape::Formula));
        assert!(matches!(shape_of(root, property(root, &["fragments"])), Shape::List(_)));
        let Shape::Enum(variants) = shape_of(root, property(root, &["fragments", "fragment"])) else { panic!() };
        assert_eq!(variants.iter().map(|v| v.name).collect::<Vec<_>>()[..2], ["Aspect", "Card"]);
        assert!(variants[0].description.contains("aspect"));
    }

    #[test]
    fn new_values_read_and_name_what_exists() {
        let project = actforge_runtime::project::open_project(&crate::app::default_project_path()).unwrap().project;
        let root = item_schema(Kind::Act);
        let item = Value::Null;
        let defaults = Defaults { root, project: &project, item: &item };
        let element = defaults.value_of(property(root, &["fragments"]).get("items").unwrap());
        let first_aspect = project.aspects.iter().next().unwrap().id.as_str().to_owned();
        assert_eq!(element, serde_json::json!({ "fragment": { "Aspect": first_aspect } }));
        let empty = Project::new("Empty");
        let defaults = Defaults { root, project: &empty, item: &item };
        let fragment = defaults.value_of(property(root, &["fragments", "fragment"]));
        assert_eq!(fragment, serde_json::json!({ "Aspect": "" }), "with nothing to name yet, the first variant");
    }
}
