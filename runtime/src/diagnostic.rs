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
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.position) {
            (Some(file), Some(at)) => write!(f, "{}:{}:{}: ", file.display(), at.line, at.col)?,
            (Some(file), None) => write!(f, "{}: ", file.display())?,
            (None, _) => {}
        }
        write!(f, "{}: ", self.severity)?;
        if let Some((kind, id)) = &self.item {
            write!(f, "{} `{id}`", kind.label().to_lowercase())?;
            if let Some(field) = &self.field {
                write!(f, ", {field}")?;
            }
            f.write_str(": ")?;
        }
        f.write_str(&self.message)
    }
}

/// Whether any diagnostic is an error.
pub fn has_errors(diagnostics: &[Diagnostic]) -> bool {
    diagnostics.iter().any(Diagnostic::is_error)
}
