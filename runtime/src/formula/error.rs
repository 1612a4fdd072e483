//! Formula errors: a message and the span of the offending text.

use std::fmt;

/// A byte range in a formula's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

impl Span {
    /// The range `start..end`.
    pub const fn new(start: usize, end: usize) -> Self {
        Self { start, end }
    }

    /// The smallest span covering both.
    #[must_use]
    pub fn to(self, other: Span) -> Self {
        Self { start: self.start.min(other.start), end: self.end.max(other.end) }
    }
}

/// Why a formula does not parse or compile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormulaError {
    /// What is wrong.
    pub message: String,
    /// Where (byte offsets into the formula text).
    pub span: Span,
}

impl FormulaError {
    /// An error at `span`.
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        Self { message: message.into(), span }
    }

    /// The character column (from 0) where the error starts in `text`.
    pub fn column(&self, text: &str) -> usize {
        text.get(..self.span.start).map_or(0, |before| before.chars().count())
    }

    /// The message, the formula, and a caret line under the offending characters:
    ///
    /// ```text
    /// unknown name `c.PAA`
    ///   c.PAA + 1
    ///   ^^^^^
    /// ```
    pub fn render(&self, text: &str) -> String {
        // Show the line of the formula that holds the error (formulas may span lines).
        let line_start = text.get(..self.span.start).and_then(|before| before.rfind('\n')).map_or(0, |at| at + 1);
        let line_end = text.get(line_start..).and_then(|rest| rest.find('\n')).map_or(text.len(), |at| line_start + at);
        let line = text.get(line_start..line_end).unwrap_or_default();
        let caret_at = text.get(line_start..self.span.start.max(line_start)).map_or(0, |before| before.chars().count());
        let width = text
            .get(self.span.start..self.span.end.min(line_end).max(self.span.start))
            .map_or(1, |covered| covered.chars().count())
            .max(1);
        format!("{}\n  {}\n  {}{}", self.message, line.replace('\t', " "), " ".repeat(caret_at), "^".repeat(width))
    }
}

impl fmt::Display for FormulaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for FormulaError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_sits_under_the_offending_characters() {
        let error = FormulaError::new("unknown name `c.PAA`", Span::new(4, 9));
        assert_eq!(error.render("1 + c.PAA"), "unknown name `c.PAA`\n  1 + c.PAA\n      ^^^^^");
        let at_end = FormulaError::new("expected a value", Span::new(3, 3));
        assert_eq!(at_end.render("1 +"), "expected a value\n  1 +\n     ^");
        let second_line = FormulaError::new("oops", Span::new(6, 7));
        assert_eq!(second_line.render("1 +\n2 ! 3"), "oops\n  2 ! 3\n    ^");
        assert_eq!(FormulaError::new("é", Span::new(2, 3)).render("é+x"), "é\n  é+x\n   ^");
    }
}
