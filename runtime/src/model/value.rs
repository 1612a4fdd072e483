//! Small value types shared by every kind: formula text and colours.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::json;

/// Schema extension marking a value as a formula (`true`): a number or formula text.
pub const FORMULA_EXTENSION: &str = "x-actforge-formula";

/// Schema extension marking a string as a colour (`true`), written `#rrggbbaa`.
pub const COLOUR_EXTENSION: &str = "x-actforge-colour";

/// A value written in the formula language: a constant such as `3` or an expression
/// such as `2 * f.bonus`.
///
/// Everywhere the original tools take a count or a constant, the model takes an `Expr`.
/// It is stored as its source text; a plain integer is written to files as a number so
/// hand-edited files stay readable.
#[derive(Clone)]
pub struct Expr {
    text: String,
    /// The text's value when it is a plain integer: read once, as the engine asks it of
    /// every count at every step.
    int: Option<i64>,
}

impl PartialEq for Expr {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}
impl Eq for Expr {}
impl std::hash::Hash for Expr {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
    }
}
impl PartialOrd for Expr {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Expr {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.text.cmp(&other.text)
    }
}

impl Expr {
    /// An expression from its source text.
    pub fn new(text: impl Into<String>) -> Self {
        let text = text.into();
        let int = canonical_int(&text);
        Self { text, int }
    }

    /// The constant integer `value`.
    pub fn int(value: i64) -> Self {
        Self { text: value.to_string(), int: Some(value) }
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The value when the text is a plain integer literal (optionally negative), else `None`.
    pub fn as_int(&self) -> Option<i64> {
        self.int
    }

    /// Whether this is exactly the integer `value`.
    pub fn is_int(&self, value: i64) -> bool {
        self.as_int() == Some(value)
    }

    /// Whether the text is exactly `0` (the default of most counts).
    pub fn is_zero(&self) -> bool {
        self.is_int(0)
    }

    /// Whether the text is exactly `1`.
    pub fn is_one(&self) -> bool {
        self.is_int(1)
    }

    /// The expression `1`, the default of counts that mean "one of".
    pub fn one() -> Self {
        Self::int(1)
    }
}

/// The value of `text` when it is an integer in its canonical spelling.
fn canonical_int(text: &str) -> Option<i64> {
    // Only the canonical spelling counts, so that writing it as a number and reading it back
    // gives the same text: no `+`, no leading zeros, no `-0`.
    let digits = text.strip_prefix('-').unwrap_or(text);
    let canonical = match digits.as_bytes() {
        [] => false,
        [b'0'] => digits.len() == text.len(),
        [first, ..] => *first != b'0' && digits.bytes().all(|b| b.is_ascii_digit()),
    };
    if canonical { text.parse().ok() } else { None }
}

impl Default for Expr {
    fn default() -> Self {
        Self::int(0)
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expr({:?})", self.text)
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<i64> for Expr {
    fn from(value: i64) -> Self {
        Self::int(value)
    }
}

impl From<&str> for Expr {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl Serialize for Expr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.as_int() {
            Some(value) => serializer.serialize_i64(value),
            None => serializer.serialize_str(&self.text),
        }
    }
}

impl<'de> Deserialize<'de> for Expr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ExprVisitor;
        impl Visitor<'_> for ExprVisitor {
            type Value = Expr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a number or a formula in quotes")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Expr, E> {
                Ok(Expr::int(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Expr, E> {
                Ok(Expr::new(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Expr, E> {
                Ok(Expr::new(format!("{v}")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Expr, E> {
                Ok(Expr::new(v))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Expr, E> {
                Ok(Expr::new(v))
            }
        }
        deserializer.deserialize_any(ExprVisitor)
    }
}

/// A schema from its JSON object (anything else is the schema that accepts everything).
pub(crate) fn schema_of(value: serde_json::Value) -> Schema {
    match value {
        serde_json::Value::Object(object) => Schema::from(object),
        _ => Schema::default(),
    }
}

/// Lists `names` in a struct schema's `required` (serde's container `default` would let them
/// be left out; the schema says a valid file has them).
pub(crate) fn require(schema: &mut Schema, names: &[&str]) {
    let Some(object) = schema.as_object_mut() else { return };
    let required = object.entry("required").or_insert_with(|| serde_json::Value::Array(Vec::new()));
    if let serde_json::Value::Array(required) = required {
        for name in names {
            if !required.iter().any(|listed| listed == name) {
                required.push((*name).into());
            }
        }
    }
}

/// `schemars(transform)` of items (and map nodes): the `id` is required.
pub(crate) fn require_id(schema: &mut Schema) {
    require(schema, &["id"]);
}

impl JsonSchema for Expr {
    fn inline_schema() -> bool {
        // Inline, so every formula field carries the marker itself.
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Expr".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema_of(json!({
            "type": ["number", "string"],
            "description": "A formula: a plain integer as a JSON number, any other formula as its text (FORMAT.md §5).",
            FORMULA_EXTENSION: true,
        }))
    }
}

/// An sRGB colour with alpha, written `"#rrggbbaa"` in files.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, Debug)]
pub struct Colour {
    /// Red, 0..=255.
    pub r: u8,
    /// Green, 0..=255.
    pub g: u8,
    /// Blue, 0..=255.
    pub b: u8,
    /// Alpha, 0 (transparent) ..= 255 (opaque).
    pub a: u8,
}

impl Colour {
    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Self {
        Self { r, g, b, a: 255 }
    }

    /// The colour from floats in 0..=1 (as Unity stores them), rounded and clamped.
    pub fn from_unit_floats(r: f32, g: f32, b: f32, a: f32) -> Self {
        let channel = |v: f32| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
        Self { r: channel(r), g: channel(g), b: channel(b), a: channel(a) }
    }

    /// Parses `#rrggbb` or `#rrggbbaa`.
    pub fn parse_hex(text: &str) -> Option<Self> {
        let hex = text.strip_prefix('#')?;
        if !(hex.len() == 6 || hex.len() == 8) || !hex.is_ascii() {
            return None;
        }
        let channel = |at: usize| hex.get(at..at + 2).and_then(|h| u8::from_str_radix(h, 16).ok());
        Some(Self { r: channel(0)?, g: channel(2)?, b: channel(4)?, a: if hex.len() == 8 { channel(6)? } else { 255 } })
    }

    /// `#rrggbbaa`.
    pub fn to_hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}{:02x}", self.r, self.g, self.b, self.a)
    }
}

impl Serialize for Colour {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_hex())
    }
}

impl<'de> Deserialize<'de> for Colour {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Colour::parse_hex(&text)
            .ok_or_else(|| de::Error::custom(format!("`{text}` is not a colour; write \"#rrggbb\" or \"#rrggbbaa\"")))
    }
}

impl JsonSchema for Colour {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        "Colour".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        schema_of(json!({
            "type": "string",
            "pattern": "^#[0-9a-fA-F]{8}$",
            "description": "An sRGB colour with alpha, `#rrggbbaa` (project files also accept `#rrggbb`).",
            COLOUR_EXTENSION: true,
        }))
    }
}

/// `serde(skip_serializing_if)` helper: whether a value equals its type's default.
pub fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// `serde(skip_serializing_if)` helper for flags that default to `true`.
#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes fields by reference
pub fn is_true(value: &bool) -> bool {
    *value
}

/// `serde(default)` helper for flags that default to `true`.
pub fn default_true() -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expr_writes_integers_as_numbers_and_formulas_as_strings() {
        let cfg = ron::ser::PrettyConfig::default();
        assert_eq!(ron::ser::to_string_pretty(&Expr::int(-3), cfg.clone()).ok().as_deref(), Some("-3"));
        assert_eq!(ron::ser::to_string_pretty(&Expr::new("2 * f.bonus"), cfg).ok().as_deref(), Some("\"2 * f.bonus\""));
        assert_eq!(ron::from_str::<Expr>("7").ok(), Some(Expr::int(7)));
        assert_eq!(ron::from_str::<Expr>("1.5").ok(), Some(Expr::new("1.5")));
        assert_eq!(ron::from_str::<Expr>("\"c.hp\"").ok(), Some(Expr::new("c.hp")));
        assert_eq!(Expr::new("007").as_int(), None, "non-canonical integers stay text");
        assert_eq!(Expr::new(" 3").as_int(), None);
        assert_eq!(Expr::new("+3").as_int(), None);
        assert_eq!(Expr::new("-0").as_int(), None);
        assert_eq!(Expr::new("-").as_int(), None);
        assert_eq!(Expr::new("").as_int(), None);
        assert_eq!(Expr::new("0").as_int(), Some(0));
        assert_eq!(Expr::new("-12").as_int(), Some(-12));
        assert_eq!(Expr::new("99999999999999999999").as_int(), None, "out of range");
    }

    #[test]
    fn colours_round_trip_as_hex() {
        let c = Colour { r: 1, g: 2, b: 255, a: 128 };
        assert_eq!(Colour::parse_hex(&c.to_hex()), Some(c));
        assert_eq!(Colour::parse_hex("#ff0000"), Some(Colour::rgb(255, 0, 0)));
        assert_eq!(Colour::parse_hex("#ff00"), None);
        assert_eq!(Colour::parse_hex("#gg0000"), None);
        assert_eq!(Colour::parse_hex("#ÿÿÿ"), None);
        assert_eq!(Colour::from_unit_floats(1.0, 0.5, 0.0, 2.0), Colour { r: 255, g: 128, b: 0, a: 255 });
    }
}
