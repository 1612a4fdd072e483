//! Unity's YAML dialect (`.asset` and `.meta` files) read into a small tree whose scalars are
//! all strings, with the line and column of every node (`spec/cultistlike.md` §3.1).
//!
//! Scalars stay text on purpose: YAML 1.1 would read names such as `yes`, `off` or `01` as
//! booleans or numbers; the importer converts each field by its schema type instead.

use std::borrow::Cow;

use saphyr_parser::{Event, Parser, ScanError, Span, SpannedEventReceiver};

use crate::diagnostic::Position;

/// One node of a document, with where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// What the node holds.
    pub value: Value,
    /// Where the node starts in the file.
    pub at: Position,
}

/// The content of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A scalar as written (quotes and escapes resolved, folded lines joined); `""` for an
    /// empty value such as `text: `.
    Scalar(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, in file order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The scalar text, if this is a scalar.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Scalar(text) => Some(text),
            _ => None,
        }
    }

    /// The entries, if this is a mapping.
    pub fn as_map(&self) -> Option<&[(String, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The elements, if this is a sequence.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The value of `key`, if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?.iter().find(|(name, _)| name == key).map(|(_, node)| node)
    }
}

/// Why a text is not readable as YAML, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct YamlError {
    /// Where the parser stopped.
    pub at: Position,
    /// What it found wrong.
    pub message: String,
}

/// Parses every document of a Unity YAML text.
///
/// The `%YAML`/`%TAG` directive lines are blanked and each `--- !u!<class> &<file id>` document
/// line becomes `---` (Unity's tag handle and anchors carry nothing the importer needs), so
/// line numbers stay those of the file.
pub fn parse(text: &str) -> Result<Vec<Node>, YamlError> {
    let text = unity_to_plain_yaml(text);
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(&text);
    parser.load(&mut builder, true).map_err(|error| scan_error(&error))?;
    match builder.error {
        Some(error) => Err(error),
        None => Ok(builder.documents),
    }
}

/// The text with Unity's directives and document tags removed, line for line.
fn unity_to_plain_yaml(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let needs_change = text.lines().any(|line| line.starts_with('%') || line.starts_with("--- "));
    if !needs_change {
        return Cow::Borrowed(text);
    }
    let mut plain = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let ending = if line.ends_with("\r\n") {
            "\r\n"
        } else if line.ends_with('\n') {
            "\n"
        } else {
            ""
        };
        let content = line.strip_suffix(ending).unwrap_or(line);
        if content.starts_with('%') {
            // A directive: kept as an empty line.
        } else if content.starts_with("--- ") {
            plain.push_str("---");
        } else {
            plain.push_str(content);
        }
        plain.push_str(ending);
    }
    Cow::Owned(plain)
}

fn position(span: Span) -> Position {
    // saphyr's lines count from 1 and its columns from 0.
    Position { line: span.start.line(), col: span.start.col() + 1 }
}

fn scan_error(error: &ScanError) -> YamlError {
    let marker = error.marker();
    YamlError { at: Position { line: marker.line(), col: marker.col() + 1 }, message: error.info().to_owned() }
}

/// A container being filled.
enum Frame {
    Seq(Vec<Node>, Position),
    Map { entries: Vec<(String, Node)>, key: Option<String>, at: Position },
}

/// Turns parser events into [`Node`]s.
#[derive(Default)]
struct Builder {
    stack: Vec<Frame>,
    documents: Vec<Node>,
    error: Option<YamlError>,
}

impl Builder {
    fn fail(&mut self, at: Position, message: &str) {
        if self.error.is_none() {
            self.error = Some(YamlError { at, message: message.to_owned() });
        }
    }

    /// Adds a finished node to the container being filled (or as a document).
    fn push(&mut self, node: Node) {
        match self.stack.last_mut() {
            None => self.documents.push(node),
            Some(Frame::Seq(items, _)) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                Some(name) => entries.push((name, node)),
                None => match node.value {
                    Value::Scalar(name) => *key = Some(name),
                    Value::Seq(_) | Value::Map(_) => {
                        self.fail(node.at, "a mapping key must be plain text (Unity never writes complex keys)");
                    }
                },
            },
        }
    }

    fn close(&mut self) {
        match self.stack.pop() {
            Some(Frame::Seq(items, at)) => self.push(Node { value: Value::Seq(items), at }),
            Some(Frame::Map { entries, at, .. }) => self.push(Node { value: Value::Map(entries), at }),
            None => {}
        }
    }
}

impl<'input> SpannedEventReceiver<'input> for Builder {
    fn on_event(&mut self, event: Event<'input>, span: Span) {
        let at = position(span);
        match event {
            Event::Scalar(text, ..) => self.push(Node { value: Value::Scalar(text.into_owned()), at }),
            Event::SequenceStart(..) => self.stack.push(Frame::Seq(Vec::new(), at)),
            Event::MappingStart(..) => self.stack.push(Frame::Map { entries: Vec::new(), key: None, at }),
            Event::SequenceEnd | Event::MappingEnd => self.close(),
            Event::Alias(_) => self.fail(at, "aliases (`*name`) are not used in Unity assets"),
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentStart(_) | Event::DocumentEnd => {}
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    const ASSET: &str = "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!114 &11400000\nMonoBehaviour:\n  m_Name: 01\n  \
        label: 'Kitten\n\n    [in a Jar]'\n  flag: yes\n  text: \n  quoted: \"a \\nb\"\n  folded: one\n    two\n  \
        tests:\n  - cardTest: 0\n    op: 1\n  none: []\n  ref: {fileID: 0}\n";

    #[test]
    fn scalars_stay_strings_and_quotes_are_resolved() {
        let documents = parse(ASSET).unwrap();
        assert_eq!(documents.len(), 1);
        let root = documents[0].get("MonoBehaviour").unwrap();
        assert_eq!(root.get("m_Name").unwrap().as_str(), Some("01"));
        assert_eq!(root.get("label").unwrap().as_str(), Some("Kitten\n[in a Jar]"));
        assert_eq!(root.get("flag").unwrap().as_str(), Some("yes"));
        assert_eq!(root.get("text").unwrap().as_str(), Some(""));
        assert_eq!(root.get("quoted").unwrap().as_str(), Some("a \nb"));
        assert_eq!(root.get("folded").unwrap().as_str(), Some("one two"));
        let tests = root.get("tests").unwrap().as_seq().unwrap();
        assert_eq!(tests[0].get("op").unwrap().as_str(), Some("1"));
        assert_eq!(root.get("none").unwrap().as_seq().map(<[Node]>::len), Some(0));
        assert_eq!(root.get("ref").unwrap().get("fileID").unwrap().as_str(), Some("0"));
    }

    #[test]
    fn positions_are_those_of_the_file() {
        let documents = parse(ASSET).unwrap();
        let root = documents[0].get("MonoBehaviour").unwrap();
        assert_eq!(root.get("m_Name").unwrap().at, Position { line: 5, col: 11 });
        assert_eq!(root.get("tests").unwrap().as_seq().unwrap()[0].at.line, 15);
    }

    #[test]
    fn broken_yaml_reports_its_line() {
        let error = parse("%YAML 1.1\n--- !u!114 &1\nMonoBehaviour:\n  label: 'open\n  other: [1, 2\n").unwrap_err();
        assert!(error.at.line >= 4, "{error:?}");
        assert!(!error.message.is_empty());
        let error = parse("a: 1\n b: 2\n").unwrap_err();
        assert_eq!(error.at.line, 2, "{error:?}");
    }
}
