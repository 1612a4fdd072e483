//! The JSON Schema of the content model, generated from the model's types (`schemars`).
//!
//! One schema serves the editor's inspector (its forms), `actforge schema` (the bundle's
//! schema, for other runtimes) and the tests that hold FORMAT.md and the packs to it.
//! Doc comments become `description`s; fields are listed in declaration order.
//!
//! Layout: a schema is a JSON Schema 2020-12 document whose named types live in its own
//! `$defs` and are referenced as `{"$ref": "#/$defs/NAME"}` ([`resolve`] follows one).
//! Ids, formulas and colours are inline and marked with the extensions below; enums are
//! `oneOf` lists with one entry per variant (unit variants `{"const": "Name"}`, variants with
//! data one-key objects), each with the variant's doc as its `description`.

use std::sync::OnceLock;

use schemars::generate::SchemaSettings;
use schemars::transform::transform_subschemas;
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde_json::Value;

use crate::model::{Bundle, Item, Items, Kind, KindVisitor, Manifest, Project, SCHEMA_VERSION};

pub use crate::model::{COLOUR_EXTENSION, FORMULA_EXTENSION, KIND_EXTENSION, LOCAL_EXTENSION, SLUG_PATTERN};

/// Extension on an item's schema: its kind's folder name (`"cards"`).
pub const ITEM_EXTENSION: &str = "x-actforge-item";

/// Extension on the bundle's schema: the schema version it describes (also in its `$id`).
pub const SCHEMA_VERSION_EXTENSION: &str = "x-actforge-schema-version";

/// The `$id` of the bundle schema of this build's schema version.
pub fn bundle_schema_id() -> String {
    format!("https://actforge.invalid/schema/bundle-v{SCHEMA_VERSION}.json")
}

/// The JSON Schema of a bundle (FORMAT.md §4), with every type in its `$defs`.
pub fn bundle_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let mut schema = root_schema::<Bundle>();
        if let Some(root) = schema.as_object_mut() {
            // `$id` right after `$schema`, for readers of the file.
            let mut ordered = serde_json::Map::new();
            if let Some(meta) = root.shift_remove("$schema") {
                ordered.insert("$schema".to_owned(), meta);
            }
            ordered.insert("$id".to_owned(), bundle_schema_id().into());
            ordered.insert("title".to_owned(), "Actforge bundle".into());
            ordered.insert(SCHEMA_VERSION_EXTENSION.to_owned(), SCHEMA_VERSION.into());
            root.shift_remove("title");
            ordered.extend(std::mem::take(root));
            *root = ordered;
        }
        if let Some(defs) = schema.get_mut("$defs").and_then(Value::as_object_mut) {
            for kind in Kind::ALL {
                if let Some(Value::Object(def)) = defs.get_mut(kind_type_name(*kind)) {
                    def.insert(ITEM_EXTENSION.to_owned(), kind.folder().into());
                }
            }
        }
        schema
    })
}

/// The bundle schema as the pretty JSON text `actforge schema` writes (with a final newline).
pub fn bundle_schema_text() -> String {
    let mut text = serde_json::to_string_pretty(bundle_schema()).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema of one kind's items: self-contained, with the types it uses in its own `$defs`.
pub fn item_schema(kind: Kind) -> &'static Value {
    // Every kind is visited, so `EMPTY` is never returned.
    static EMPTY: Value = Value::Null;
    static SCHEMAS: OnceLock<Vec<(Kind, Value)>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        struct Schemas(Vec<(Kind, Value)>);
        impl KindVisitor for Schemas {
            fn visit<T: Item>(&mut self, _: &Items<T>) {
                let mut schema = root_schema::<T>();
                if let Some(root) = schema.as_object_mut() {
                    root.insert(ITEM_EXTENSION.to_owned(), T::KIND.folder().into());
                }
                self.0.push((T::KIND, schema));
            }
        }
        let mut schemas = Schemas(Vec::new());
        Project::default().visit_kinds(&mut schemas);
        schemas.0
    });
    schemas.iter().find(|(of, _)| *of == kind).map_or(&EMPTY, |(_, schema)| schema)
}

/// The JSON Schema of `project.ron` (FORMAT.md §2), with its own `$defs`.
pub fn manifest_schema() -> &'static Value {
    static SCHEMA: OnceLock<Value> = OnceLock::new();
    SCHEMA.get_or_init(root_schema::<Manifest>)
}

/// `schema` itself, or the definition its `$ref` names in `root`'s `$defs`
/// (`{"$ref": "#/$defs/Test"}` → `root["$defs"]["Test"]`). Other references are returned as they are.
pub fn resolve<'a>(root: &'a Value, schema: &'a Value) -> &'a Value {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|reference| reference.strip_prefix("#/$defs/"))
        .and_then(|name| root.get("$defs")?.get(name))
        .unwrap_or(schema)
}

/// The name of a kind's item type in a schema's `$defs` (`"Card"`).
pub fn kind_type_name(kind: Kind) -> &'static str {
    static NAMES: OnceLock<Vec<(Kind, String)>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        struct Names(Vec<(Kind, String)>);
        impl KindVisitor for Names {
            fn visit<T: Item>(&mut self, _: &Items<T>) {
                self.0.push((T::KIND, T::schema_name().into_owned()));
            }
        }
        let mut names = Names(Vec::new());
        Project::default().visit_kinds(&mut names);
        names.0
    });
    names.iter().find(|(of, _)| *of == kind).map_or("", |(_, name)| name.as_str())
}

/// The root schema of `T`: draft 2020-12, `$defs`, fields as files are read (defaults allowed).
fn root_schema<T: JsonSchema>() -> Value {
    let generator: SchemaGenerator = SchemaSettings::draft2020_12().with_transform(defaults).into();
    generator.into_root_schema_for::<T>().into()
}

/// Gives every optional property a `default` and every required one none.
///
/// `schemars` leaves out the default of a field whose `skip_serializing_if` holds for it; those
/// defaults are the zero of the field's JSON type (`""`, `false`, `0`, `[]`, `{}`, `null`, a
/// transparent colour). Fields with other defaults say so in the model
/// (`#[schemars(!skip_serializing_if)]`).
fn defaults(schema: &mut Schema) {
    transform_subschemas(&mut defaults, schema);
    let Some(object) = schema.as_object_mut() else { return };
    let required: Vec<String> = object
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default();
    let Some(Value::Object(properties)) = object.get_mut("properties") else { return };
    for (name, property) in properties.iter_mut() {
        let Value::Object(property) = property else { continue };
        if required.contains(name) {
            property.shift_remove("default");
        } else if !property.contains_key("default")
            && let Some(zero) = zero_of(property)
        {
            property.insert("default".to_owned(), zero);
        }
    }
}

/// The zero value of a property's JSON type, if the schema says which type it is.
fn zero_of(property: &serde_json::Map<String, Value>) -> Option<Value> {
    let types: Vec<&str> = match property.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let nullable = types.contains(&"null")
        || property
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|any| any.iter().any(|schema| schema.get("type").and_then(Value::as_str) == Some("null")));
    if nullable {
        Some(Value::Null)
    } else if property.contains_key(FORMULA_EXTENSION) {
        Some(0.into())
    } else if property.contains_key(COLOUR_EXTENSION) {
        Some(crate::model::Colour::default().to_hex().into())
    } else {
        match types.as_slice() {
            ["string"] => Some("".into()),
            ["boolean"] => Some(false.into()),
            ["integer" | "number"] => Some(0.into()),
            ["array"] => Some(Value::Array(Vec::new())),
            ["object"] => Some(Value::Object(serde_json::Map::new())),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_an_item_schema_named_like_its_type() {
        for kind in Kind::ALL {
            let schema = item_schema(*kind);
            assert_eq!(schema["title"], kind_type_name(*kind), "{kind}");
            assert_eq!(schema[ITEM_EXTENSION], kind.folder());
            assert_eq!(schema["properties"]["id"]["pattern"], SLUG_PATTERN);
            assert_eq!(schema["required"], serde_json::json!(["id"]), "{kind}");
            assert!(schema["properties"]["id"].get("default").is_none());
            assert!(schema["properties"]["id"].get(KIND_EXTENSION).is_none(), "an item's own id names nothing");
            let bundle = bundle_schema();
            assert_eq!(
                bundle["properties"][kind.folder()]["items"]["$ref"],
                format!("#/$defs/{}", kind_type_name(*kind))
            );
        }
    }

    #[test]
    fn fields_keep_declaration_order() {
        let act = item_schema(Kind::Act);
        let fields: Vec<&str> =
            act["properties"].as_object().map(|fields| fields.keys().map(String::as_str).collect()).unwrap_or_default();
        assert_eq!(fields.get(..4), Some(&["id", "text_key", "label", "text"][..]));
    }

    #[test]
    fn references_formulas_and_colours_are_marked() {
        let card = item_schema(Kind::Card);
        let fields = &card["properties"];
        assert_eq!(fields["decay_to"][KIND_EXTENSION], "cards");
        assert_eq!(fields["decay_to"]["type"], serde_json::json!(["string", "null"]));
        assert_eq!(fields["rules"]["items"][KIND_EXTENSION], "rules");
        assert_eq!(fields["lifetime_ticks"][FORMULA_EXTENSION], true);
        assert_eq!(fields["colour"][COLOUR_EXTENSION], true);
        assert_eq!(fields["properties"]["additionalProperties"][FORMULA_EXTENSION], true);
        let node_map = item_schema(Kind::NodeMap);
        assert_eq!(node_map["properties"]["start"][LOCAL_EXTENSION], "nodes");
    }

    #[test]
    fn resolve_follows_local_references() {
        let rule = item_schema(Kind::Rule);
        let requirements = resolve(rule, &rule["properties"]["requirements"]);
        assert!(requirements["properties"]["tests"].is_object(), "{requirements}");
        let id = &rule["properties"]["id"];
        assert_eq!(resolve(rule, id), id);
    }

    #[test]
    fn the_bundle_schema_is_versioned() {
        let bundle = bundle_schema();
        assert_eq!(bundle["$id"], bundle_schema_id());
        assert_eq!(bundle[SCHEMA_VERSION_EXTENSION], SCHEMA_VERSION);
        assert_eq!(bundle["properties"]["format"]["const"], crate::model::BUNDLE_FORMAT);
        assert_eq!(bundle["required"], serde_json::json!(["format", "schema_version"]));
        assert_eq!(manifest_schema()["required"], serde_json::json!(["schema_version"]));
        assert!(bundle_schema_text().ends_with("}\n"));
    }
}
