//! A fast reader for the RON that Actforge writes, used before `ron` itself.
//!
//! Large projects and bundles spend most of their load time in RON parsing, and `ron`'s
//! parser pays for generality (it re-checks a dozen keywords before every number). This
//! reader handles the subset our serializer produces — anonymous or named structs, lists,
//! maps, enums, `Some`/`None`, numbers, booleans, escaped strings, comments — and gives up
//! (`None`) on anything else or on any error. The caller then parses with `ron`, which is
//! the reference: it decides what is valid and reports errors with their position. So this
//! module may only ever be faster, never different.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, DeserializeOwned, DeserializeSeed, EnumAccess, MapAccess, SeqAccess, VariantAccess, Visitor};

/// Parses `text` as one `T`, or `None` when the fast path cannot (then use `ron`).
pub fn from_str<T: DeserializeOwned>(text: &str) -> Option<T> {
    let mut reader = Reader { text: text.as_bytes(), at: 0, depth: 0 };
    let value = T::deserialize(&mut reader).ok()?;
    reader.skip_space();
    (reader.at == reader.text.len()).then_some(value)
}

/// The fast path gave up; the reason does not matter (`ron` will say).
#[derive(Debug)]
pub struct GiveUp;

impl fmt::Display for GiveUp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not in the fast RON subset")
    }
}

impl std::error::Error for GiveUp {}

impl de::Error for GiveUp {
    fn custom<M: fmt::Display>(_message: M) -> Self {
        GiveUp
    }
}

type Read<T> = Result<T, GiveUp>;

/// Nesting limit, as `ron`'s default recursion limit.
const MAX_DEPTH: usize = 128;

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    depth: usize,
}

enum Number {
    Unsigned(u64),
    Signed(i64),
    Float(f64),
}

impl<'a> Reader<'a> {
    fn peek_byte(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Skips whitespace and comments.
    fn skip_space(&mut self) {
        self.at = crate::ron_locate::after_trivia(self.text, self.at);
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.peek_byte()
    }

    fn eat(&mut self, byte: u8) -> bool {
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, byte: u8) -> Read<()> {
        if self.eat(byte) { Ok(()) } else { Err(GiveUp) }
    }

    /// After an element: a `,`, or the closing `close` (not consumed).
    fn after_element(&mut self, close: u8) -> Read<()> {
        if self.eat(b',') || self.peek() == Some(close) { Ok(()) } else { Err(GiveUp) }
    }

    fn ident(&mut self) -> Read<&'a str> {
        self.skip_space();
        let start = self.at;
        if !self.peek_byte().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            return Err(GiveUp);
        }
        while self.peek_byte().is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
            self.at += 1;
        }
        // A raw identifier `r#x` or a raw string `r"…"` is not in the subset.
        if matches!(self.peek_byte(), Some(b'#' | b'"')) {
            return Err(GiveUp);
        }
        self.text.get(start..self.at).and_then(|bytes| std::str::from_utf8(bytes).ok()).ok_or(GiveUp)
    }

    fn string(&mut self) -> Read<Cow<'a, str>> {
        self.expect(b'"')?;
        let start = self.at;
        // Fast scan: most strings have no escapes and can be borrowed.
        while let Some(byte) = self.peek_byte() {
            match byte {
                b'"' => {
                    let text = self.text.get(start..self.at).ok_or(GiveUp)?;
                    self.at += 1;
                    return std::str::from_utf8(text).map(Cow::Borrowed).map_err(|_| GiveUp);
                }
                b'\\' => break,
                _ => self.at += 1,
            }
        }
        let mut out = Vec::with_capacity(self.at - start + 16);
        out.extend_from_slice(self.text.get(start..self.at).ok_or(GiveUp)?);
        loop {
            let byte = self.peek_byte().ok_or(GiveUp)?;
            self.at += 1;
            match byte {
                b'"' => break,
                b'\\' => {
                    let escape = self.peek_byte().ok_or(GiveUp)?;
                    self.at += 1;
                    match escape {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'0' => out.push(0),
                        b'\\' | b'"' | b'\'' => out.push(escape),
                        b'u' => {
                            self.expect(b'{')?;
                            let hex_start = self.at;
                            while self.peek_byte().is_some_and(|b| b.is_ascii_hexdigit()) {
                                self.at += 1;
                            }
                            let hex = self.text.get(hex_start..self.at).and_then(|h| std::str::from_utf8(h).ok());
                            let code = hex.and_then(|h| u32::from_str_radix(h, 16).ok()).and_then(char::from_u32);
                            let c = code.ok_or(GiveUp)?;
                            if self.peek_byte() != Some(b'}') {
                                return Err(GiveUp);
                            }
                            self.at += 1;
                            let mut buffer = [0u8; 4];
                            out.extend_from_slice(c.encode_utf8(&mut buffer).as_bytes());
                        }
                        _ => return Err(GiveUp),
                    }
                }
                other => out.push(other),
            }
        }
        String::from_utf8(out).map(Cow::Owned).map_err(|_| GiveUp)
    }

    /// The text of a number literal (sign, digits, fraction, exponent).
    fn number_text(&mut self) -> Read<&'a str> {
        self.skip_space();
        let start = self.at;
        if matches!(self.peek_byte(), Some(b'-' | b'+')) {
            self.at += 1;
        }
        while self.peek_byte().is_some_and(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'_')) {
            // An exponent sign belongs to the number.
            if matches!(self.peek_byte(), Some(b'e' | b'E')) && matches!(self.text.get(self.at + 1), Some(b'-' | b'+'))
            {
                self.at += 1;
            }
            self.at += 1;
        }
        let text = self.text.get(start..self.at).and_then(|bytes| std::str::from_utf8(bytes).ok()).ok_or(GiveUp)?;
        // `_` separators, hex and such are left to `ron`.
        if text.is_empty() || text.contains('_') || text == "-" || text == "+" {
            return Err(GiveUp);
        }
        Ok(text)
    }

    fn number(&mut self) -> Read<Number> {
        let text = self.number_text()?;
        if text.contains(['.', 'e', 'E']) {
            return text.parse().map(Number::Float).map_err(|_| GiveUp);
        }
        if text.starts_with('-') {
            text.parse().map(Number::Signed).map_err(|_| GiveUp)
        } else {
            text.trim_start_matches('+').parse().map(Number::Unsigned).map_err(|_| GiveUp)
        }
    }

    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH { Err(GiveUp) } else { Ok(()) }
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }
}

impl<'de> de::Deserializer<'de> for &mut Reader<'_> {
    type Error = GiveUp;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        match self.peek() {
            Some(b'"') => match self.string()? {
                Cow::Borrowed(text) => visitor.visit_str(text),
                Cow::Owned(text) => visitor.visit_string(text),
            },
            Some(b'[') => self.deserialize_seq(visitor),
            Some(b'{') => self.deserialize_map(visitor),
            Some(b'(') => self.deserialize_struct("", &[], visitor),
            Some(b'0'..=b'9' | b'-' | b'+' | b'.') => match self.number()? {
                Number::Unsigned(value) => visitor.visit_u64(value),
                Number::Signed(value) => visitor.visit_i64(value),
                Number::Float(value) => visitor.visit_f64(value),
            },
            Some(b't' | b'f') => self.deserialize_bool(visitor),
            Some(b'S' | b'N') => self.deserialize_option(visitor),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        match self.ident()? {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            _ => Err(GiveUp),
        }
    }

    fn deserialize_i8<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i16<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i32<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_i64<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        match self.number()? {
            Number::Unsigned(value) => visitor.visit_u64(value),
            Number::Signed(value) => visitor.visit_i64(value),
            Number::Float(_) => Err(GiveUp),
        }
    }
    fn deserialize_u8<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u16<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u32<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }
    fn deserialize_u64<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_i64(visitor)
    }

    fn deserialize_f32<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        // Parsed as f32 directly: through f64 could round twice and differ from `ron`.
        let text = self.number_text()?;
        text.parse::<f32>().map_err(|_| GiveUp).and_then(|value| visitor.visit_f32(value))
    }
    fn deserialize_f64<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        let text = self.number_text()?;
        text.parse::<f64>().map_err(|_| GiveUp).and_then(|value| visitor.visit_f64(value))
    }

    fn deserialize_char<V: Visitor<'de>>(self, _visitor: V) -> Read<V::Value> {
        Err(GiveUp)
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        match self.string()? {
            Cow::Borrowed(text) => visitor.visit_str(text),
            Cow::Owned(text) => visitor.visit_string(text),
        }
    }
    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.deserialize_str(visitor)
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, _visitor: V) -> Read<V::Value> {
        Err(GiveUp)
    }
    fn deserialize_byte_buf<V: Visitor<'de>>(self, _visitor: V) -> Read<V::Value> {
        Err(GiveUp)
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        match self.ident()? {
            "None" => visitor.visit_none(),
            "Some" => {
                self.expect(b'(')?;
                self.enter()?;
                let value = visitor.visit_some(&mut *self)?;
                self.leave();
                self.eat(b',');
                self.expect(b')')?;
                Ok(value)
            }
            _ => Err(GiveUp),
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.expect(b'(')?;
        self.expect(b')')?;
        visitor.visit_unit()
    }
    fn deserialize_unit_struct<V: Visitor<'de>>(self, _name: &'static str, _visitor: V) -> Read<V::Value> {
        Err(GiveUp)
    }
    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, _visitor: V) -> Read<V::Value> {
        Err(GiveUp)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.expect(b'[')?;
        self.enter()?;
        let value = visitor.visit_seq(Elements { reader: &mut *self, close: b']' })?;
        self.leave();
        self.expect(b']')?;
        Ok(value)
    }
    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Read<V::Value> {
        self.expect(b'(')?;
        self.enter()?;
        let value = visitor.visit_seq(Elements { reader: &mut *self, close: b')' })?;
        self.leave();
        self.expect(b')')?;
        Ok(value)
    }
    fn deserialize_tuple_struct<V: Visitor<'de>>(self, _name: &'static str, len: usize, visitor: V) -> Read<V::Value> {
        self.deserialize_tuple(len, visitor)
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        self.expect(b'{')?;
        self.enter()?;
        let value = visitor.visit_map(Entries { reader: &mut *self, close: b'}', field_names: false })?;
        self.leave();
        self.expect(b'}')?;
        Ok(value)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Read<V::Value> {
        if self.peek().is_some_and(|b| b.is_ascii_alphabetic()) {
            self.ident()?; // the optional struct name
        }
        self.expect(b'(')?;
        self.enter()?;
        let value = visitor.visit_map(Entries { reader: &mut *self, close: b')', field_names: true })?;
        self.leave();
        self.expect(b')')?;
        Ok(value)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Read<V::Value> {
        self.enter()?;
        let value = visitor.visit_enum(Variant { reader: &mut *self })?;
        self.leave();
        Ok(value)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Read<V::Value> {
        visitor.visit_str(self.ident()?)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, _visitor: V) -> Read<V::Value> {
        // Only probes ignore values; they are rare and `ron` handles them.
        Err(GiveUp)
    }
}

/// List or tuple elements, up to `close`.
struct Elements<'r, 'a> {
    reader: &'r mut Reader<'a>,
    close: u8,
}

impl<'de> SeqAccess<'de> for Elements<'_, '_> {
    type Error = GiveUp;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Read<Option<T::Value>> {
        if self.reader.peek() == Some(self.close) {
            return Ok(None);
        }
        let value = seed.deserialize(&mut *self.reader)?;
        self.reader.after_element(self.close)?;
        Ok(Some(value))
    }
}

/// Struct fields (`name: value`) or map entries (`key: value`), up to `close`.
struct Entries<'r, 'a> {
    reader: &'r mut Reader<'a>,
    close: u8,
    field_names: bool,
}

impl<'de> MapAccess<'de> for Entries<'_, '_> {
    type Error = GiveUp;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Read<Option<K::Value>> {
        if self.reader.peek() == Some(self.close) {
            return Ok(None);
        }
        let key = if self.field_names {
            let name = self.reader.ident()?;
            seed.deserialize(de::value::StrDeserializer::new(name))?
        } else {
            seed.deserialize(&mut *self.reader)?
        };
        self.reader.expect(b':')?;
        Ok(Some(key))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Read<V::Value> {
        let value = seed.deserialize(&mut *self.reader)?;
        self.reader.after_element(self.close)?;
        Ok(value)
    }
}

/// An enum value: a variant name, then its content if any.
struct Variant<'r, 'a> {
    reader: &'r mut Reader<'a>,
}

impl<'de> EnumAccess<'de> for Variant<'_, '_> {
    type Error = GiveUp;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Read<(S::Value, Self)> {
        let name = self.reader.ident()?;
        let value = seed.deserialize(de::value::StrDeserializer::new(name))?;
        Ok((value, self))
    }
}

impl<'de> VariantAccess<'de> for Variant<'_, '_> {
    type Error = GiveUp;

    fn unit_variant(self) -> Read<()> {
        if self.reader.peek() == Some(b'(') { Err(GiveUp) } else { Ok(()) }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Read<T::Value> {
        self.reader.expect(b'(')?;
        let value = seed.deserialize(&mut *self.reader)?;
        self.reader.eat(b',');
        self.reader.expect(b')')?;
        Ok(value)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Read<V::Value> {
        self.reader.expect(b'(')?;
        let value = visitor.visit_seq(Elements { reader: &mut *self.reader, close: b')' })?;
        self.reader.expect(b')')?;
        Ok(value)
    }

    fn struct_variant<V: Visitor<'de>>(self, _fields: &'static [&'static str], visitor: V) -> Read<V::Value> {
        self.reader.expect(b'(')?;
        let value = visitor.visit_map(Entries { reader: &mut *self.reader, close: b')', field_names: true })?;
        self.reader.expect(b')')?;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Act, ActLink, Card, Expr, FragmentCount, FragmentRef, Id, MapNode, NodeKind, NodeMap};
    use crate::project::ron_format::to_ron_string;

    fn same_as_ron<T: DeserializeOwned + PartialEq + fmt::Debug>(text: &str) {
        let fast: Option<T> = from_str(text);
        let slow: Option<T> = ron::from_str(text).ok();
        assert!(fast.is_some(), "the fast path should read {text}");
        assert_eq!(fast, slow, "{text}");
    }

    #[test]
    fn reads_what_the_layout_writes_exactly_as_ron_does() {
        let act = Act {
            id: Id::new("a"),
            label: "Tea \"party\"\n\t… \u{1b}'".to_owned(),
            next_acts: vec![ActLink::to("b"), ActLink { chance: Expr::new("f.x * 2"), ..ActLink::to("c") }],
            fragments: vec![FragmentCount::new(FragmentRef::Aspect(Id::new("salt")), -3)],
            ..Act::default()
        };
        same_as_ron::<Act>(&to_ron_string(&act).unwrap());
        let card = Card { properties: [("x".to_owned(), Expr::new("1.5"))].into(), ..Card::default() };
        same_as_ron::<Card>(&to_ron_string(&card).unwrap());
        let map = NodeMap {
            nodes: vec![MapNode {
                id: Id::new("n"),
                kind: NodeKind::Custom("beacon".into()),
                x: 0.1,
                y: -3.5e-3,
                ..MapNode::default()
            }],
            ..NodeMap::default()
        };
        same_as_ron::<NodeMap>(&to_ron_string(&map).unwrap());
        same_as_ron::<Act>("// c\n(id: \"x\", /* c */ label: \"\\u{1b}é\",)");
    }

    #[test]
    fn gives_up_on_what_it_does_not_know_and_on_errors() {
        assert!(from_str::<Act>("(id: r#\"x\"#)").is_none(), "raw strings");
        assert!(from_str::<Act>("#![enable(implicit_some)]\n(id: \"x\")").is_none());
        assert!(from_str::<Act>("(id: \"x\" label: \"y\")").is_none(), "missing comma");
        assert!(from_str::<Act>("(id: \"x\"))").is_none(), "trailing text");
        assert!(from_str::<Act>("(id: 3)").is_none());
        assert!(from_str::<Act>(&"[".repeat(500)).is_none());
        assert!(from_str::<Act>("(id: \"\\q\")").is_none(), "unknown escape");
    }

    proptest::proptest! {
        #[test]
        fn agrees_with_ron_on_written_items(
            label in "\\PC*",
            text in "[ -~\\n\\t\"\\\\é\u{1b}]*",
            expr in "[0-9a-z .*+()-]{0,12}",
            level in proptest::num::i64::ANY,
            x in proptest::num::f32::NORMAL,
        ) {
            let act = Act {
                id: Id::new("a"),
                label: label.clone(),
                text,
                duration_ticks: Expr::new(expr),
                fragments: vec![FragmentCount::new(FragmentRef::Card(Id::new("c")), level)],
                ..Act::default()
            };
            let written = to_ron_string(&act).unwrap();
            proptest::prop_assert_eq!(from_str::<Act>(&written), Some(act));
            let node = NodeMap { nodes: vec![MapNode { id: Id::new("n"), x, label, ..MapNode::default() }], ..NodeMap::default() };
            let written = to_ron_string(&node).unwrap();
            proptest::prop_assert_eq!(from_str::<NodeMap>(&written), ron::from_str::<NodeMap>(&written).ok());
        }

        #[test]
        fn never_accepts_what_ron_rejects(text in "\\PC{0,200}") {
            if let Some(act) = from_str::<Act>(&text) {
                proptest::prop_assert_eq!(Some(act), ron::from_str::<Act>(&text).ok());
            }
        }
    }
}
