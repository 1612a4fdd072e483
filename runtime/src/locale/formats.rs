//! TEMPORARY stand-in for the helper's string-table formats (replaced on merge).

/// One string of a string table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringRow {
    pub key: String,
    pub kind: String,
    pub item: String,
    pub field: String,
    pub context: String,
    pub max_chars: Option<u32>,
    pub source: String,
    pub translation: String,
    pub stale: bool,
}

/// A string table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringTable {
    pub source_language: String,
    pub language: String,
    pub rows: Vec<StringRow>,
}

/// A file format for string tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    Csv,
    Po,
    Xliff,
}

impl TableFormat {
    /// The format a file name's extension names.
    pub fn from_path(path: &std::path::Path) -> Option<TableFormat> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "csv" => Some(Self::Csv),
            "po" | "pot" => Some(Self::Po),
            "xliff" | "xlf" => Some(Self::Xliff),
            _ => None,
        }
    }
}

/// Why a string-table file could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TableError {
    pub line: usize,
    pub message: String,
}

/// The table as the format's text.
pub fn write_table(_format: TableFormat, table: &StringTable) -> String {
    format!("{table:?}")
}
/// The table a format's text holds.
pub fn read_table(_format: TableFormat, _text: &str) -> Result<StringTable, TableError> {
    Err(TableError { line: 0, message: "stand-in".into() })
}
