//! Stable, readable RON output: serialised compactly by `ron`, then laid out like rustfmt
//! lays out code — a group that fits in [`MAX_WIDTH`] columns stays on one line, a longer one
//! gets one element per line with a trailing comma. The item root is always broken, so
//! every top-level field has a line of its own and diffs stay small.

use serde::Serialize;

/// Line width the layout aims for.
pub const MAX_WIDTH: usize = 100;

const INDENT: &str = "    ";

/// `value` as laid-out RON text, ending with a newline.
pub fn to_ron_string<T: Serialize>(value: &T) -> Result<String, ron::Error> {
    let compact = ron::ser::to_string(value)?;
    Ok(layout(&compact))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TokenKind {
    Open,
    Close,
    Comma,
    Colon,
    Atom,
}

#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    kind: TokenKind,
    text: &'a str,
}

/// Splits compact RON (as written by `ron::ser::to_string`) into tokens.
fn tokenize(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut at = 0;
    while let Some(&byte) = bytes.get(at) {
        let start = at;
        let kind = match byte {
            b'(' | b'[' | b'{' => {
                at += 1;
                TokenKind::Open
            }
            b')' | b']' | b'}' => {
                at += 1;
                TokenKind::Close
            }
            b',' => {
                at += 1;
                TokenKind::Comma
            }
            b':' => {
                at += 1;
                TokenKind::Colon
            }
            b' ' | b'\n' | b'\t' | b'\r' => {
                at += 1;
                continue;
            }
            b'"' | b'\'' => {
                at += 1;
                while let Some(&c) = bytes.get(at) {
                    at += 1;
                    if c == b'\\' {
                        at += 1;
                    } else if c == byte {
                        break;
                    }
                }
                TokenKind::Atom
            }
            _ => {
                while bytes
                    .get(at)
                    .is_some_and(|c| !matches!(c, b'(' | b'[' | b'{' | b')' | b']' | b'}' | b',' | b':' | b'"' | b' '))
                {
                    at += 1;
                }
                TokenKind::Atom
            }
        };
        let end = at.min(text.len());
        tokens.push(Token { kind, text: text.get(start..end).unwrap_or_default() });
    }
    tokens
}

struct Layout<'a> {
    tokens: Vec<Token<'a>>,
    /// For each open token, the index of its close token.
    close_of: Vec<usize>,
    /// For each open token, the width of its group printed flat.
    flat_width: Vec<usize>,
    out: String,
    column: usize,
}

/// Lays out compact RON text as a whole file: the root broken, a trailing newline.
fn layout(compact: &str) -> String {
    let mut text = layout_at(compact, 0, 0, true);
    text.push('\n');
    text
}

/// `value` laid out as a value that starts at `column` of a line indented `depth` levels,
/// with no trailing newline; for assembling big files (bundles) from parts laid out apart.
pub fn value_at<T: Serialize>(value: &T, depth: usize, column: usize) -> Result<String, ron::Error> {
    let compact = ron::ser::to_string(value)?;
    Ok(layout_at(&compact, depth, column, false))
}

/// Lays out compact RON text starting at `column` of a line indented `depth` levels.
fn layout_at(compact: &str, depth: usize, column: usize, force_break: bool) -> String {
    let tokens = tokenize(compact);
    let count = tokens.len();
    let mut close_of = vec![0; count];
    let mut flat_width = vec![0; count];
    let mut stack: Vec<(usize, usize)> = Vec::new(); // (open index, width so far)
    for (index, token) in tokens.iter().enumerate() {
        let own = match token.kind {
            TokenKind::Comma | TokenKind::Colon => 2,
            _ => token.text.len(),
        };
        match token.kind {
            TokenKind::Open => stack.push((index, own)),
            TokenKind::Close => {
                if let Some((open, width)) = stack.pop() {
                    let width = width + own;
                    if let Some(slot) = close_of.get_mut(open) {
                        *slot = index;
                    }
                    if let Some(slot) = flat_width.get_mut(open) {
                        *slot = width;
                    }
                    if let Some((_, parent)) = stack.last_mut() {
                        *parent += width;
                    }
                }
            }
            _ => {
                if let Some((_, width)) = stack.last_mut() {
                    *width += own;
                }
            }
        }
    }
    let mut state = Layout { tokens, close_of, flat_width, out: String::with_capacity(compact.len() * 2), column };
    let mut index = 0;
    while index < state.tokens.len() {
        index = state.emit(index, depth, force_break);
    }
    state.out
}

impl Layout<'_> {
    fn push(&mut self, text: &str) {
        self.out.push_str(text);
        self.column += text.len();
    }

    fn newline(&mut self, depth: usize) {
        self.out.push('\n');
        self.column = 0;
        for _ in 0..depth {
            self.push(INDENT);
        }
    }

    /// Emits the token at `index` (a whole group if it opens one); returns the next index.
    fn emit(&mut self, index: usize, depth: usize, force_break: bool) -> usize {
        let Some(token) = self.tokens.get(index).copied() else {
            return index + 1;
        };
        match token.kind {
            TokenKind::Open => {
                let close = self.close_of.get(index).copied().unwrap_or(index);
                let width = self.flat_width.get(index).copied().unwrap_or(0);
                // The text that must follow on the same line: a `,` after the group.
                let trailing = usize::from(self.tokens.get(close + 1).is_some_and(|t| t.kind == TokenKind::Comma));
                let empty = close == index + 1;
                if empty || (!force_break && self.column + width + trailing <= MAX_WIDTH) {
                    self.emit_flat(index, close);
                } else {
                    self.emit_broken(index, close, depth);
                }
                close + 1
            }
            TokenKind::Comma => {
                self.push(", ");
                index + 1
            }
            TokenKind::Colon => {
                self.push(": ");
                index + 1
            }
            TokenKind::Close | TokenKind::Atom => {
                self.push(token.text);
                index + 1
            }
        }
    }

    fn emit_flat(&mut self, from: usize, to: usize) {
        for index in from..=to {
            let Some(token) = self.tokens.get(index).copied() else {
                break;
            };
            match token.kind {
                TokenKind::Comma => self.push(", "),
                TokenKind::Colon => self.push(": "),
                _ => self.push(token.text),
            }
        }
    }

    fn emit_broken(&mut self, open: usize, close: usize, depth: usize) {
        if let Some(token) = self.tokens.get(open).copied() {
            self.push(token.text);
        }
        let mut index = open + 1;
        let mut at_element_start = true;
        while index < close {
            if at_element_start {
                self.newline(depth + 1);
                at_element_start = false;
            }
            let kind = self.tokens.get(index).map(|t| t.kind);
            if kind == Some(TokenKind::Comma) {
                self.push(",");
                at_element_start = true;
                index += 1;
            } else {
                index = self.emit(index, depth + 1, false);
            }
        }
        if !at_element_start {
            self.push(",");
        }
        self.newline(depth);
        if let Some(token) = self.tokens.get(close).copied() {
            self.push(token.text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_groups_stay_flat_and_the_root_breaks() {
        let text = layout(r#"(id:"kitten",fragments:[(fragment:Aspect("furry"),count:5)],empty:[])"#);
        assert_eq!(
            text,
            "(\n    id: \"kitten\",\n    fragments: [(fragment: Aspect(\"furry\"), count: 5)],\n    empty: [],\n)\n"
        );
    }

    #[test]
    fn long_groups_break_one_element_per_line() {
        let long = "x".repeat(60);
        let compact = format!(r#"(list:["{long}","{long}"])"#);
        let text = layout(&compact);
        assert_eq!(text, format!("(\n    list: [\n        \"{long}\",\n        \"{long}\",\n    ],\n)\n"));
    }

    #[test]
    fn strings_with_brackets_and_commas_are_atoms() {
        let text = layout(r#"(a:"x, (y): [z]",b:'('),"#);
        assert!(text.contains("a: \"x, (y): [z]\","), "{text}");
    }

    #[test]
    fn layout_is_reparsed_to_the_same_value() {
        let value: ron::Value = ron::from_str(r#"(a: [1, 2, (b: "c")], d: {"k": Some(3)})"#).unwrap();
        let text = to_ron_string(&value).unwrap();
        let again: ron::Value = ron::from_str(&text).unwrap();
        assert_eq!(value, again);
    }
}
