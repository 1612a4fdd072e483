//! Diagnostics: what is wrong, where, and how bad.

use std::fmt;
use std::path::PathBuf;

use serde::Serialize;

use crate::model::Kind;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Severity {
    /// Worth knowing; nothing breaks.
    Info,
    /// Probably a mistake; the content still runs.
    Warning,
    /// The content cannot run as written.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Info => "info",
            Self::Warning => "warning",
            Self::Error => "error",
        })
    }
}

/// A line and column in a text file, both counted from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Position {
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub col: usize,
}

/// One problem found while loading or validating a project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    /// How bad.
    pub severity: Severity,
    /// The file, relative to the project folder when it is inside it.
    pub file: Option<PathBuf>,
    /// Where in the file.
    pub position: Option<Position>,
    /// The item concerned: its kind and id.
    pub item: Option<(Kind, String)>,
    /// The field inside the item, e.g. `next_acts[2].act`.
    pub field: Option<String>,
    /// What is wrong and, where it helps, what to do.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic with only a severity and a message.
    pub fn new(severity: Severity, message: impl Into<String>) -> Self {
        Self { severity, file: None, position: None, item: None, field: None, message: message.into() }
    }

    /// An error.
    pub fn error(message: impl Into<String>) -> Self {
        Self::new(Severity::Error, message)
    }

    /// A warning.
    pub fn warning(message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, message)
    }

    /// This diagnostic in `file`.
    #[must_use]
    pub fn in_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// This diagnostic at `position`.
    #[must_use]
    pub fn at(mut self, position: Option<Position>) -> Self {
        self.position = position;
        self
    }

    /// This diagnostic about an item.
    #[must_use]
    pub fn for_item(mut self, kind: Kind, id: &str) -> Self {
        self.item = Some((kind, id.to_owned()));
        self
    }

    /// This diagnostic about a field of the item.
    #[must_use]
    pub fn for_field(mut self, field: impl Into<String>) -> Self {
        let field = field.into();
        self.field = (!field.is_empty()).then_some(field);
        self
    }

    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// `path:line:col: severity: message`, with as much of the location as is known.
/// A diagnostic is one line: control characters in ids, paths and messages (an id with a
/// newline in it) are written escaped (`\n`, `\u{1b}`), so content cannot forge a line of
/// `check`'s output.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.position) {
            (Some(file), Some(at)) => {
                write!(f, "{}:{}:{}: ", Escaped(&file.display().to_string()), at.line, at.col)?;
            }
            (Some(file), None) => write!(f, "{}: ", Escaped(&file.display().to_string()))?,
            (None, _) => {}
        }
        write!(f, "{}: ", self.severity)?;
        if let Some((kind, id)) = &self.item {
            write!(f, "{} `{}`", kind.label().to_lowercase(), Escaped(id))?;
            if let Some(field) = &self.field {
                write!(f, ", {}", Escaped(field))?;
            }
            f.write_str(": ")?;
        }
        write!(f, "{}", Escaped(&self.message))
    }
}

/// Text written with its control characters escaped.
struct Escaped<'a>(&'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            if c.is_control() {
                write!(f, "{}", c.escape_default())?;
            } else {
                fmt::Write::write_char(f, c)?;
            }
        }
        Ok(())
    }
}

/// Whether any diagnostic is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_is_one_line_whatever_its_id_holds() {
        let diagnostic = Diagnostic::error("there is no act `x\nerror: forged`\u{1b}[31m")
            .for_item(crate::Kind::Act, "a\nb")
            .in_file(std::path::Path::new("acts/a\nb.ron"));
        let line = diagnostic.to_string();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.contains("act `a\\nb`"), "{line}");
        assert!(line.contains("\\u{1b}"), "{line}");
    }
}
