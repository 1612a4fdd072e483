//! Finds where a field of an item sits in its RON text, so diagnostics found after parsing
//! (dangling references, bad values) still point at a line and column.

use crate::diagnostic::Position;
use crate::model::{FieldPath, PathSegment};

/// The line and column of the value at `path` in `source`, or of the deepest enclosing
/// value that exists (a default field left out of the file points at its parent).
pub fn locate(source: &str, path: &FieldPath) -> Option<Position> {
    let mut cursor = Cursor { text: source.as_bytes(), at: 0 };
    cursor.skip_trivia();
    let offset = cursor.find(&path.0);
    Some(position_of(source, offset))
}

/// Line and column (both from 1, column in characters) of a byte offset.
pub fn position_of(source: &str, offset: usize) -> Position {
    let offset = offset.min(source.len());
    let before = source.get(..offset).unwrap_or(source);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let col = before.get(line_start..).map_or(0, |text| text.chars().count()) + 1;
    Position { line, col }
}

/// One field of a top-level struct, as found by [`top_level_fields`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TopField {
    /// The field name.
    pub name: String,
    /// Byte range of the value.
    pub value: std::ops::Range<usize>,
    /// When the value is a list: the byte range of each element.
    pub elements: Option<Vec<std::ops::Range<usize>>>,
}

/// The fields of the struct at the top of `source`, each with the byte range of its value
/// (and of the elements of list values). `None` when the text is not a struct of
/// `name: value` pairs (the caller then parses the whole text to report the error).
pub fn top_level_fields(source: &str) -> Option<Vec<TopField>> {
    let mut cursor = Cursor { text: source.as_bytes(), at: 0 };
    cursor.skip_trivia();
    if cursor.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
        cursor.ident()?; // an optional struct name
    }
    if !cursor.eat(b'(') {
        return None;
    }
    let mut fields = Vec::new();
    loop {
        cursor.skip_trivia();
        if cursor.eat(b')') {
            return Some(fields);
        }
        let name = cursor.ident()?.to_owned();
        if !cursor.eat(b':') {
            return None;
        }
        cursor.skip_trivia();
        let start = cursor.at;
        let elements = if cursor.peek() == Some(b'[') { Some(cursor.list()?) } else { None };
        if elements.is_none() {
            cursor.skip_value();
        }
        if cursor.at == start {
            return None;
        }
        fields.push(TopField { name, value: start..cursor.at, elements });
        if !cursor.eat(b',') {
            cursor.skip_trivia();
            return cursor.eat(b')').then_some(fields);
        }
    }
}

/// The string value of the field `name` of the struct that starts `source`, e.g. the `id`
/// of an item.
pub fn field_string(source: &str, name: &str) -> Option<String> {
    let mut cursor = Cursor { text: source.as_bytes(), at: 0 };
    cursor.skip_trivia();
    if cursor.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
        cursor.ident()?;
    }
    if !cursor.eat(b'(') {
        return None;
    }
    loop {
        let field = cursor.ident()?.to_owned();
        if !cursor.eat(b':') {
            return None;
        }
        cursor.skip_trivia();
        if field == name {
            return cursor.string();
        }
        cursor.skip_value();
        if !cursor.eat(b',') {
            return None;
        }
    }
}

/// The byte ranges of the elements of the list `[a, b, …]` that is the whole of `source`
/// (surrounding whitespace allowed); `None` when it is not a list.
pub fn list_elements(source: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let mut cursor = Cursor { text: source.as_bytes(), at: 0 };
    cursor.skip_trivia();
    let elements = cursor.list()?;
    cursor.skip_trivia();
    (cursor.at == source.len()).then_some(elements)
}

/// The byte offset of a line and column (both from 1, column in characters), if inside `source`.
pub fn offset_of(source: &str, at: Position) -> Option<usize> {
    let mut line_start = 0;
    for _ in 1..at.line {
        line_start += source.get(line_start..)?.find('\n')? + 1;
    }
    let line = source.get(line_start..)?;
    let column = line.char_indices().nth(at.col.checked_sub(1)?).map(|(index, _)| index)?;
    Some(line_start + column)
}

/// Bytes that matter to [`Cursor::skip_group`]: brackets, quotes, comment starts and the `r`
/// of raw strings.
const fn is_structural(byte: u8) -> bool {
    matches!(byte, b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'"' | b'\'' | b'/' | b'r')
}

/// [`is_structural`] for every byte value: one load per byte instead of ten comparisons, in
/// the loop that splits a bundle before anything runs in parallel.
static STRUCTURAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut byte = 0;
    while byte < 256 {
        // Evaluated at compile time: an index out of range would fail the build, not a load.
        #[allow(clippy::indexing_slicing)]
        {
            table[byte] = is_structural(byte as u8);
        }
        byte += 1;
    }
    table
};

/// The offset of the first byte at or after `at` for which `stop` holds (the end if none).
/// Searching a slice lets the compiler drop the per-byte bounds check of `get(at)`.
fn find_from(bytes: &[u8], at: usize, stop: impl Fn(u8) -> bool) -> usize {
    bytes.get(at..).map_or(at, |rest| at + rest.iter().position(|&b| stop(b)).unwrap_or(rest.len()))
}

/// The offset after the whitespace and comments (`//…`, nested `/* … */`) at `at`; the end of
/// the text when a block comment is not closed.
pub(crate) fn after_trivia(text: &[u8], mut at: usize) -> usize {
    loop {
        match (text.get(at), text.get(at + 1)) {
            (Some(c), _) if c.is_ascii_whitespace() => at += 1,
            (Some(b'/'), Some(b'/')) => {
                while text.get(at).is_some_and(|c| *c != b'\n') {
                    at += 1;
                }
            }
            (Some(b'/'), Some(b'*')) => {
                at += 2;
                let mut depth = 1usize;
                while depth > 0 {
                    match (text.get(at), text.get(at + 1)) {
                        (None, _) => return at,
                        (Some(b'*'), Some(b'/')) => {
                            depth -= 1;
                            at += 2;
                        }
                        (Some(b'/'), Some(b'*')) => {
                            depth += 1;
                            at += 2;
                        }
                        _ => at += 1,
                    }
                }
            }
            _ => return at,
        }
    }
}

struct Cursor<'a> {
    text: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.get(self.at + ahead).copied()
    }

    fn skip_trivia(&mut self) {
        self.at = after_trivia(self.text, self.at);
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.skip_trivia();
        if self.peek() == Some(byte) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self) -> Option<&str> {
        self.skip_trivia();
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_') {
            self.at += 1;
        }
        if self.at == start {
            return None;
        }
        std::str::from_utf8(self.text.get(start..self.at)?).ok()
    }

    /// Skips a string literal (plain or raw) at the cursor; returns its text if plain.
    fn string(&mut self) -> Option<String> {
        match self.peek()? {
            b'"' => {
                self.at += 1;
                let mut out = Vec::new();
                while let Some(c) = self.peek() {
                    self.at += 1;
                    match c {
                        b'\\' => {
                            if let Some(escaped) = self.peek() {
                                out.push(escaped);
                                self.at += 1;
                            }
                        }
                        b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
                        other => out.push(other),
                    }
                }
                None
            }
            b'r' => {
                self.at += 1;
                let mut hashes = 0;
                while self.peek() == Some(b'#') {
                    hashes += 1;
                    self.at += 1;
                }
                if !self.eat(b'"') {
                    return None;
                }
                while let Some(c) = self.peek() {
                    self.at += 1;
                    if c == b'"' && (0..hashes).all(|n| self.peek_at(n) == Some(b'#')) {
                        self.at += hashes;
                        return None;
                    }
                }
                None
            }
            b'\'' => {
                self.at += 1;
                while let Some(c) = self.peek() {
                    self.at += 1;
                    if c == b'\\' {
                        self.at += 1;
                    } else if c == b'\'' {
                        break;
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// Skips one value of any shape.
    fn skip_value(&mut self) {
        self.skip_trivia();
        match self.peek() {
            Some(b'"' | b'\'') => {
                self.string();
            }
            Some(b'r') if matches!(self.peek_at(1), Some(b'"' | b'#')) => {
                self.string();
            }
            Some(b'(' | b'[' | b'{') => self.skip_group(),
            Some(_) => {
                while self.peek().is_some_and(|c| !matches!(c, b',' | b')' | b']' | b'}' | b':' | b'(' | b'[' | b'{'))
                    && !self.peek().is_some_and(|c| c.is_ascii_whitespace())
                {
                    self.at += 1;
                }
                let atom_end = self.at;
                self.skip_trivia();
                if self.peek() == Some(b'(') {
                    self.skip_group();
                } else {
                    self.at = atom_end;
                }
            }
            None => {}
        }
    }

    /// Reads a list at the cursor (`[` next), returning each element's byte range.
    fn list(&mut self) -> Option<Vec<std::ops::Range<usize>>> {
        if !self.eat(b'[') {
            return None;
        }
        let mut elements = Vec::new();
        loop {
            self.skip_trivia();
            if self.eat(b']') {
                return Some(elements);
            }
            let start = self.at;
            self.skip_value();
            if self.at == start {
                return None;
            }
            elements.push(start..self.at);
            if !self.eat(b',') {
                return self.eat(b']').then_some(elements);
            }
        }
    }

    /// Skips a bracketed group, honouring nested groups, strings and comments. A tight,
    /// table-driven loop: bundles are split with it before their items are parsed in parallel.
    fn skip_group(&mut self) {
        let bytes = self.text;
        let mut depth = 0usize;
        let mut at = self.at;
        loop {
            // Skip the bytes that cannot change the nesting.
            at = find_from(bytes, at, |b| STRUCTURAL.get(usize::from(b)) == Some(&true));
            let Some(&c) = bytes.get(at) else { break };
            match c {
                b'(' | b'[' | b'{' => depth += 1,
                b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.at = at + 1;
                        return;
                    }
                }
                b'"' | b'\'' => {
                    at += 1;
                    loop {
                        at = find_from(bytes, at, |b| b == c || b == b'\\');
                        match bytes.get(at) {
                            Some(b'\\') => at += 2,
                            _ => break,
                        }
                    }
                }
                b'r' if matches!(bytes.get(at + 1), Some(b'"' | b'#'))
                    && !at
                        .checked_sub(1)
                        .and_then(|before| bytes.get(before))
                        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_') =>
                {
                    self.at = at;
                    self.string();
                    at = self.at;
                    continue;
                }
                b'/' if matches!(bytes.get(at + 1), Some(b'/' | b'*')) => {
                    self.at = at;
                    self.skip_trivia();
                    at = self.at;
                    continue;
                }
                _ => {}
            }
            at += 1;
        }
        self.at = at;
    }

    /// Whether the cursor, just inside `(`, starts a struct body (`name:`).
    fn at_struct_body(&mut self) -> bool {
        let saved = self.at;
        let is_body = self.ident().is_some() && self.eat(b':');
        self.at = saved;
        is_body
    }

    /// Descends along `path` from the value at the cursor; returns the best offset found.
    fn find(&mut self, path: &[PathSegment]) -> usize {
        self.skip_trivia();
        let value_start = self.at;
        let Some((segment, rest)) = path.split_first() else {
            return self.unwrap_some(value_start);
        };
        // A named struct (`Act(...)`) or a newtype wrapper (`Some(...)`): step inside.
        if self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            let saved = self.at;
            if self.ident().is_some() && self.eat(b'(') {
                self.skip_trivia();
                if !self.at_struct_body() {
                    return self.find(path);
                }
                return self.find_in_struct(segment, rest).unwrap_or(value_start);
            }
            self.at = saved;
            return value_start;
        }
        match (segment, self.peek()) {
            (PathSegment::Field(_), Some(b'(')) => {
                self.at += 1;
                self.find_in_struct(segment, rest).unwrap_or(value_start)
            }
            (PathSegment::Index(index), Some(b'[')) => {
                self.at += 1;
                for _ in 0..*index {
                    self.skip_value();
                    if !self.eat(b',') {
                        return value_start;
                    }
                }
                self.skip_trivia();
                if self.peek() == Some(b']') {
                    return value_start;
                }
                self.find(rest)
            }
            (PathSegment::Key(_) | PathSegment::Field(_), Some(b'{')) => {
                let key: &str = match segment {
                    PathSegment::Key(key) => key,
                    PathSegment::Field(name) => name,
                    PathSegment::Index(_) => return value_start,
                };
                self.at += 1;
                loop {
                    self.skip_trivia();
                    let found = self.string();
                    if !self.eat(b':') {
                        return value_start;
                    }
                    if found.as_deref() == Some(key) {
                        return self.find(rest);
                    }
                    self.skip_value();
                    if !self.eat(b',') {
                        return value_start;
                    }
                }
            }
            _ => value_start,
        }
    }

    /// Inside a struct body, finds `segment` and continues along `rest`.
    fn find_in_struct(&mut self, segment: &PathSegment, rest: &[PathSegment]) -> Option<usize> {
        let PathSegment::Field(wanted) = segment else {
            return None;
        };
        loop {
            let name = self.ident()?.to_owned();
            if !self.eat(b':') {
                return None;
            }
            if name == *wanted {
                return Some(self.find(rest));
            }
            self.skip_value();
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// At a finished path, points inside `Some(...)` so the caret lands on the value.
    fn unwrap_some(&mut self, value_start: usize) -> usize {
        let saved = self.at;
        if self.ident() == Some("Some") && self.eat(b'(') {
            self.skip_trivia();
            return self.at;
        }
        self.at = saved;
        value_start
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(segments: &[PathSegment]) -> FieldPath {
        FieldPath(segments.to_vec())
    }

    const SOURCE: &str = r#"(
    id: "first_one",
    // a comment (with a bracket
    label: "Tea (party)",
    token: Some("tea_party"),
    next_acts: [
        (act: "a"),
        (act: "missing", chance: 5),
    ],
    properties: {"speed": 3, "hp": "c.x"},
)
"#;

    #[test]
    fn finds_fields_list_elements_and_map_entries() {
        let at = |segments: &[PathSegment]| locate(SOURCE, &path(segments)).map(|p| (p.line, p.col));
        assert_eq!(at(&[PathSegment::Field("label")]), Some((4, 12)));
        assert_eq!(at(&[PathSegment::Field("token")]), Some((5, 17)), "inside Some(");
        assert_eq!(
            at(&[PathSegment::Field("next_acts"), PathSegment::Index(1), PathSegment::Field("act")]),
            Some((8, 15))
        );
        assert_eq!(at(&[PathSegment::Field("properties"), PathSegment::Key("hp".to_owned())]), Some((10, 36)));
    }

    #[test]
    fn missing_fields_fall_back_to_the_enclosing_value() {
        let found = locate(SOURCE, &path(&[PathSegment::Field("nothing_here")]));
        assert_eq!(found.map(|p| p.line), Some(1));
    }

    #[test]
    fn never_panics_on_garbage() {
        for source in ["", "(", "[[[", "(a: [1, 2", "\"unterminated", "(x: r#\"", "/* open", "(a: b(c: "] {
            let _ = locate(source, &path(&[PathSegment::Field("a"), PathSegment::Index(3)]));
        }
    }

    #[test]
    fn top_level_fields_split_a_struct() {
        let text = "Bundle( a: 1, b: [(x: \"),\")], c: Some(3) , )";
        let fields = top_level_fields(text).unwrap();
        let found: Vec<(&str, &str)> = fields.iter().map(|f| (f.name.as_str(), &text[f.value.clone()])).collect();
        assert_eq!(found, vec![("a", "1"), ("b", "[(x: \"),\")]"), ("c", "Some(3)")]);
        let elements: Vec<&str> = fields[1].elements.clone().unwrap().into_iter().map(|r| &text[r]).collect();
        assert_eq!(elements, vec!["(x: \"),\")"]);
        assert_eq!(fields[0].elements, None);
        assert_eq!(top_level_fields("(a 1)"), None);
        assert_eq!(top_level_fields("[1]"), None);
        assert_eq!(top_level_fields("(a: 1"), None);
    }

    #[test]
    fn list_elements_split_a_list() {
        let text = " [ (a: \"]\"), 2 ,(b: [1, 2]), ] ";
        let found: Vec<&str> = list_elements(text).unwrap().into_iter().map(|range| &text[range]).collect();
        assert_eq!(found, vec!["(a: \"]\")", "2", "(b: [1, 2])"]);
        assert_eq!(list_elements("[]").unwrap(), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(list_elements("[1, 2"), None);
        assert_eq!(list_elements("[1] x"), None);
    }

    #[test]
    fn field_string_reads_one_field() {
        assert_eq!(field_string("(label: \"x\", id: \"a_b\")", "id").as_deref(), Some("a_b"));
        assert_eq!(field_string("Act(id: \"a\")", "id").as_deref(), Some("a"));
        assert_eq!(field_string("(label: \"x\")", "id"), None);
        assert_eq!(field_string("(id: 3)", "id"), None);
    }

    #[test]
    fn offsets_and_positions_are_inverse() {
        let text = "ab\néx\n\nz";
        for offset in [0, 1, 3, 5, 8] {
            assert_eq!(offset_of(text, position_of(text, offset)), Some(offset));
        }
        assert_eq!(offset_of(text, Position { line: 9, col: 1 }), None);
        assert_eq!(offset_of(text, Position { line: 1, col: 0 }), None);
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        assert_eq!(position_of("é\nab", 4), Position { line: 2, col: 2 });
        assert_eq!(position_of("éa", 2), Position { line: 1, col: 2 });
    }
}
