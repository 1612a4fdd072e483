//! String tables in the formats translators use: CSV (spreadsheets), gettext PO/POT and XLIFF 1.2.
//!
//! Every format round-trips every table whose keys are non-empty and unique:
//! `read_table(f, &write_table(f, &t)) == Ok(t)`, and writing is deterministic, so
//! write → read → write gives the same bytes. Reading never panics; a bad file gets a
//! [`TableError`] with the line and the reason.
//!
//! Limits of the formats themselves, kept deliberately:
//! - CSV: `translation` as the target column's name means "no target language", so a target
//!   language literally named `translation` reads back empty. When a spreadsheet reordered the
//!   columns, the source-language column is the language column further left.
//! - PO: gettext tools (msgcat, msgmerge) drop `#, fuzzy` from untranslated entries, so a stale
//!   row with an empty translation loses `stale` after such a tool has rewritten the file.
//! - XLIFF: control characters (other than tab, newline, carriage return) are written as
//!   character references such as `&#1;` (and NUL as `&#0;`). This reader takes them back, but
//!   strict XML 1.0 parsers reject such a file; content rarely has them.

use std::fmt::Write as _;
use std::path::Path;

use quick_xml::events::{BytesStart, Event};
use rustc_hash::FxHashMap;

/// One string of a string table: a source text and, for a target language, its translation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringRow {
    /// Stable key, e.g. `acts.brew_draught.options[go_left].text` (unique within a table).
    pub key: String,
    /// Kind label for people, e.g. `Act`.
    pub kind: String,
    /// The item's id.
    pub item: String,
    /// The field inside the item, e.g. `options[go_left].text`.
    pub field: String,
    /// Where the text sits for a translator (the act chain, the node…); may be empty.
    pub context: String,
    /// The most characters the content allows, if it sets a limit.
    pub max_chars: Option<u32>,
    /// The source-language text.
    pub source: String,
    /// The translation; empty when untranslated.
    pub translation: String,
    /// The translation was made from an older source text and needs review.
    pub stale: bool,
}

/// A string table: the rows of one source language and, optionally, one target language.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringTable {
    /// Source language code, e.g. `en`.
    pub source_language: String,
    /// Target language code, e.g. `fr`; empty when only the source was extracted.
    pub language: String,
    /// The rows, in the order written.
    pub rows: Vec<StringRow>,
}

/// A file format for string tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated values (RFC 4180, UTF-8), one row per string, for spreadsheets.
    Csv,
    /// gettext PO (and POT, the same format without translations).
    Po,
    /// XLIFF 1.2, the XML exchange format of translation tools.
    Xliff,
}

impl TableFormat {
    /// The format a file name's extension names (`csv`, `po`/`pot`, `xliff`/`xlf`, case-insensitive); None otherwise.
    pub fn from_path(path: &Path) -> Option<TableFormat> {
        let extension = path.extension()?.to_str()?.to_ascii_lowercase();
        match extension.as_str() {
            "csv" => Some(Self::Csv),
            "po" | "pot" => Some(Self::Po),
            "xliff" | "xlf" => Some(Self::Xliff),
            _ => None,
        }
    }
}

/// Why a string-table file could not be read: where (1-based line, 0 when unknown) and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TableError {
    /// The 1-based line of the problem; 0 when it is not known.
    pub line: usize,
    /// What is wrong, in words a translator can act on.
    pub message: String,
}

/// The table as the format's text.
pub fn write_table(format: TableFormat, table: &StringTable) -> String {
    match format {
        TableFormat::Csv => write_csv(table),
        TableFormat::Po => write_po(table),
        TableFormat::Xliff => write_xliff(table),
    }
}

/// The table a format's text holds.
///
/// Keys must be non-empty and unique: a file that repeats a key is an error naming both lines,
/// because either translation could be the one meant.
pub fn read_table(format: TableFormat, text: &str) -> Result<StringTable, TableError> {
    // Editors on Windows often start UTF-8 files with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match format {
        TableFormat::Csv => read_csv(text),
        TableFormat::Po => read_po(text),
        TableFormat::Xliff => read_xliff(text),
    }
}

fn error(line: usize, message: impl Into<String>) -> TableError {
    TableError { line, message: message.into() }
}

/// Checks that keys are present and unique, remembering the line of each.
#[derive(Default)]
struct Keys(FxHashMap<String, usize>);

impl Keys {
    fn check(&mut self, key: &str, line: usize) -> Result<(), TableError> {
        if key.is_empty() {
            return Err(error(line, "a string has an empty key; every string needs its key"));
        }
        if let Some(first) = self.0.insert(key.to_owned(), line) {
            return Err(error(line, format!("key `{key}` appears twice (first on line {first}); keys must be unique")));
        }
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------------
// CSV

const CSV_TRANSLATION: &str = "translation";
const CSV_STALE: &str = "yes";
/// The header's fixed names in the order written; the two language columns sit between
/// `max_chars` and `stale`.
const CSV_LEADING: [&str; 6] = ["key", "kind", "item", "field", "context", "max_chars"];

fn write_csv(table: &StringTable) -> String {
    match csv_bytes(table) {
        Some(bytes) => {
            String::from_utf8(bytes).unwrap_or_else(|bad| String::from_utf8_lossy(bad.as_bytes()).into_owned())
        }
        // Whole records of one length written into memory cannot fail; an empty text is the
        // harmless answer should the crate ever report otherwise.
        None => String::new(),
    }
}

fn csv_bytes(table: &StringTable) -> Option<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(Vec::new());
    let target = if table.language.is_empty() { CSV_TRANSLATION } else { &table.language };
    let mut header: Vec<&str> = CSV_LEADING.to_vec();
    header.extend([table.source_language.as_str(), target, "stale"]);
    writer.write_record(&header).ok()?;
    for row in &table.rows {
        let max_chars = row.max_chars.map(|n| n.to_string()).unwrap_or_default();
        writer
            .write_record([
                row.key.as_str(),
                &row.kind,
                &row.item,
                &row.field,
                &row.context,
                &max_chars,
                &row.source,
                &row.translation,
                if row.stale { CSV_STALE } else { "" },
            ])
            .ok()?;
    }
    writer.into_inner().ok()
}

/// Where each field of a row sits in a CSV file, found from its header.
struct CsvColumns {
    width: usize,
    key: usize,
    kind: Option<usize>,
    item: Option<usize>,
    field: Option<usize>,
    context: Option<usize>,
    max_chars: Option<usize>,
    stale: Option<usize>,
    source: usize,
    target: Option<usize>,
    source_language: String,
    language: String,
}

impl CsvColumns {
    fn from_header(header: &csv::StringRecord, line: usize) -> Result<Self, TableError> {
        let names: Vec<&str> = header.iter().collect();
        let canonical = names.len() == CSV_LEADING.len() + 3
            && names.iter().zip(CSV_LEADING).all(|(name, fixed)| *name == fixed)
            && names.last() == Some(&"stale");
        if canonical {
            // The layout this module writes: the language columns are known by position, so
            // any language code (even an odd one) reads back exactly.
            let source_language = names.get(6).copied().unwrap_or_default().to_owned();
            let target = names.get(7).copied().unwrap_or_default();
            let language = if target == CSV_TRANSLATION { String::new() } else { target.to_owned() };
            return Ok(Self {
                width: names.len(),
                key: 0,
                kind: Some(1),
                item: Some(2),
                field: Some(3),
                context: Some(4),
                max_chars: Some(5),
                stale: Some(8),
                source: 6,
                target: Some(7),
                source_language,
                language,
            });
        }
        Self::by_name(&names, line)
    }

    /// Columns a spreadsheet reordered or added to: fixed names are matched case-insensitively,
    /// other columns named like a language code are the source and the target. Nothing else
    /// tells the two languages apart, so the source column is the one further left (or the
    /// only one, beside a `translation` column); columns with other names are ignored.
    fn by_name(names: &[&str], line: usize) -> Result<Self, TableError> {
        let mut fixed: [Option<usize>; 8] = [None; 8];
        let mut languages: Vec<(usize, &str)> = Vec::new();
        let mut translation: Option<usize> = None;
        for (index, name) in names.iter().enumerate() {
            let name = name.trim();
            let slot = CSV_LEADING.iter().chain(["stale"].iter()).position(|fixed| name.eq_ignore_ascii_case(fixed));
            if let Some(slot) = slot {
                if let Some(entry) = fixed.get_mut(slot) {
                    if entry.is_some() {
                        return Err(error(line, format!("the column `{name}` appears twice")));
                    }
                    *entry = Some(index);
                }
            } else if name.eq_ignore_ascii_case(CSV_TRANSLATION) {
                if translation.is_some() {
                    return Err(error(line, "the column `translation` appears twice"));
                }
                translation = Some(index);
            } else if looks_like_language(name) {
                languages.push((index, name));
            }
        }
        let Some(key) = fixed.first().copied().flatten() else {
            return Err(error(line, "missing `key` column: the header needs a column named `key`"));
        };
        let listed = || languages.iter().map(|(_, name)| format!("`{name}`")).collect::<Vec<_>>().join(", ");
        let ((source, source_language), (target, language)) = match (languages.as_slice(), translation) {
            ([], _) => {
                return Err(error(
                    line,
                    "missing source-language column: the header needs a column named by \
                         the source language code (e.g. `en`)",
                ));
            }
            ([only], Some(translation)) => (*only, (Some(translation), String::new())),
            ([only], None) => (*only, (None, String::new())),
            ([first, second], None) => (*first, (Some(second.0), second.1.to_owned())),
            _ => {
                return Err(error(
                    line,
                    format!(
                        "cannot tell the language columns apart: {} all look like language \
                             codes; keep only the source column and one target column",
                        listed()
                    ),
                ));
            }
        };
        let at = |slot: usize| fixed.get(slot).copied().flatten();
        Ok(Self {
            width: names.len(),
            key,
            kind: at(1),
            item: at(2),
            field: at(3),
            context: at(4),
            max_chars: at(5),
            stale: at(6),
            source,
            target,
            source_language: source_language.to_owned(),
            language,
        })
    }
}

/// A BCP 47-like tag: `en`, `pt-BR`, `zh_Hans`, `sr-Latn-RS`.
fn looks_like_language(name: &str) -> bool {
    let mut parts = name.split(['-', '_']);
    let primary_ok =
        parts.next().is_some_and(|p| (2..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphabetic()));
    primary_ok && parts.all(|p| (1..=8).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_alphanumeric()))
}

fn csv_error(err: &csv::Error) -> TableError {
    let line = err.position().map_or(0, |p| p.line() as usize);
    error(line, format!("malformed CSV: {err}"))
}

fn read_csv(text: &str) -> Result<StringTable, TableError> {
    let mut reader = csv::ReaderBuilder::new().has_headers(false).flexible(true).from_reader(text.as_bytes());
    let mut records = reader.records();
    let header = match records.next() {
        Some(record) => record.map_err(|e| csv_error(&e))?,
        None => return Err(error(1, "the file is empty: a CSV string table starts with a header row")),
    };
    let header_line = header.position().map_or(1, |p| p.line() as usize);
    let columns = CsvColumns::from_header(&header, header_line)?;
    let mut table = StringTable {
        source_language: columns.source_language.clone(),
        language: columns.language.clone(),
        rows: Vec::new(),
    };
    let mut keys = Keys::default();
    for record in records {
        let record = record.map_err(|e| csv_error(&e))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        // Spreadsheets export rows a translator cleared as rows of empty fields.
        if record.iter().all(str::is_empty) {
            continue;
        }
        if record.len() != columns.width {
            return Err(error(
                line,
                format!("this row has {} fields but the header has {}", record.len(), columns.width),
            ));
        }
        let get = |index: Option<usize>| index.and_then(|i| record.get(i)).unwrap_or_default();
        let key = get(Some(columns.key));
        keys.check(key, line)?;
        let max_chars = match get(columns.max_chars).trim() {
            "" => None,
            text => Some(
                text.parse::<u32>()
                    .map_err(|_| error(line, format!("max_chars `{text}` is not a whole number of characters")))?,
            ),
        };
        let stale = match get(columns.stale).trim().to_ascii_lowercase().as_str() {
            "" | "no" | "n" | "false" | "0" => false,
            "yes" | "y" | "true" | "1" | "x" => true,
            other => {
                return Err(error(line, format!("stale `{other}` is neither `yes` nor empty")));
            }
        };
        table.rows.push(StringRow {
            key: key.to_owned(),
            kind: get(columns.kind).to_owned(),
            item: get(columns.item).to_owned(),
            field: get(columns.field).to_owned(),
            context: get(columns.context).to_owned(),
            max_chars,
            source: get(Some(columns.source)).to_owned(),
            translation: get(columns.target).to_owned(),
            stale,
        });
    }
    Ok(table)
}

// ---------------------------------------------------------------------------------------------
// PO

/// gettext keeps lines within 79 columns; pieces of a long string stay within this many
/// escaped characters.
const PO_PIECE: usize = 76;

fn write_po(table: &StringTable) -> String {
    let mut out = String::new();
    let header = format!(
        "Language: {}\nX-Source-Language: {}\nMIME-Version: 1.0\n\
         Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: 8bit\n",
        header_escape(&table.language),
        header_escape(&table.source_language),
    );
    out.push_str("msgid \"\"\n");
    po_keyword(&mut out, "msgstr", &header);
    for row in &table.rows {
        out.push('\n');
        for (label, value) in
            [("kind", &row.kind), ("item", &row.item), ("field", &row.field), ("context", &row.context)]
        {
            if !value.is_empty() {
                let _ = writeln!(out, "#. {label}: {}", po_escape(value, false));
            }
        }
        if let Some(max) = row.max_chars {
            let _ = writeln!(out, "#. max_chars: {max}");
        }
        if row.stale {
            out.push_str("#, fuzzy\n");
        }
        po_keyword(&mut out, "msgctxt", &row.key);
        po_keyword(&mut out, "msgid", &row.source);
        po_keyword(&mut out, "msgstr", &row.translation);
    }
    out
}

/// The header's values are one line each: a newline or backslash in a language code is
/// escaped once more so the header still splits into its lines.
fn header_escape(value: &str) -> String {
    value.replace('\\', "\\\\").replace('\n', "\\n")
}

fn header_unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            // A lone backslash, or one before anything else, stands for itself.
            Some('\\') | None => out.push('\\'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// C escapes as gettext reads them; other control characters as three-digit octal, which
/// cannot run into a following digit.
fn po_escape(text: &str, quotes: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' if quotes => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c < ' ' || c == '\u{7f}' => {
                let _ = write!(out, "\\{:03o}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

/// `keyword "text"`, or gettext's multi-line form (`keyword ""` then one quoted line per
/// line of text, long lines cut after spaces) when the text has inner newlines or is long.
fn po_keyword(out: &mut String, keyword: &str, text: &str) {
    let escaped = po_escape(text, true);
    let inner_newline = text.strip_suffix('\n').unwrap_or(text).contains('\n');
    if !inner_newline && keyword.len() + escaped.len() + 3 <= 79 {
        let _ = writeln!(out, "{keyword} \"{escaped}\"");
        return;
    }
    let _ = writeln!(out, "{keyword} \"\"");
    for line in text.split_inclusive('\n') {
        let mut piece = String::new();
        for word in line.split_inclusive(' ') {
            let word = po_escape(word, true);
            if !piece.is_empty() && piece.len() + word.len() > PO_PIECE {
                let _ = writeln!(out, "\"{piece}\"");
                piece.clear();
            }
            piece.push_str(&word);
        }
        let _ = writeln!(out, "\"{piece}\"");
    }
}

/// Decodes a PO escape sequence's text (without the surrounding quotes).
fn po_unescape(text: &str, line: usize) -> Result<String, TableError> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            return Err(error(line, "a string ends with a lone backslash"));
        };
        let decoded = match escape {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '\\' => '\\',
            '"' => '"',
            '\'' => '\'',
            '?' => '?',
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'v' => '\u{b}',
            '0'..='7' => {
                let mut value = escape.to_digit(8).unwrap_or_default();
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(digit) => {
                            value = value * 8 + digit;
                            chars.next();
                        }
                        None => break,
                    }
                }
                ascii_escape(value, line)?
            }
            'x' => {
                let mut value: u32 = 0;
                let mut digits = 0;
                while let Some(digit) = chars.peek().and_then(|d| d.to_digit(16)) {
                    value = value.saturating_mul(16).saturating_add(digit);
                    digits += 1;
                    chars.next();
                }
                if digits == 0 {
                    return Err(error(line, "`\\x` is not followed by hexadecimal digits"));
                }
                ascii_escape(value, line)?
            }
            other => return Err(error(line, format!("unknown escape `\\{other}` in a string"))),
        };
        out.push(decoded);
    }
    Ok(out)
}

/// Numeric escapes name bytes; only the ASCII ones are whole characters in UTF-8.
fn ascii_escape(value: u32, line: usize) -> Result<char, TableError> {
    u8::try_from(value)
        .ok()
        .filter(u8::is_ascii)
        .map(char::from)
        .ok_or_else(|| error(line, format!("numeric escape {value} is not an ASCII character")))
}

/// The string of a line's `"…"` (after a keyword or on a continuation line).
fn po_quoted(rest: &str, line: usize) -> Result<String, TableError> {
    let rest = rest.trim();
    let Some(body) = rest.strip_prefix('"') else {
        return Err(error(line, "expected a string in double quotes"));
    };
    let mut end = None;
    let mut escaped = false;
    for (index, c) in body.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => {
                end = Some(index);
                break;
            }
            _ => {}
        }
    }
    let Some(end) = end else {
        return Err(error(line, "a string has no closing double quote"));
    };
    let after = body.get(end + 1..).unwrap_or_default();
    if !after.trim().is_empty() {
        return Err(error(line, format!("unexpected text after the string: `{}`", after.trim())));
    }
    po_unescape(body.get(..end).unwrap_or_default(), line)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum PoField {
    Context,
    Id,
    Str,
}

/// One PO entry while it is being read.
#[derive(Default)]
struct PoEntry {
    row: StringRow,
    msgctxt: Option<(String, usize)>,
    msgid: Option<(String, usize)>,
    msgstr: Option<String>,
    last: Option<PoField>,
}

impl PoEntry {
    fn has_keywords(&self) -> bool {
        self.msgctxt.is_some() || self.msgid.is_some() || self.msgstr.is_some()
    }
}

/// The PO table being read: the rows so far and the header's languages.
#[derive(Default)]
struct PoReader {
    table: StringTable,
    keys: Keys,
    header_line: Option<usize>,
}

impl PoReader {
    fn finish(&mut self, entry: PoEntry) -> Result<(), TableError> {
        if !entry.has_keywords() {
            // Comments with no entry (a file's opening remarks) carry no string.
            return Ok(());
        }
        let Some((source, id_line)) = entry.msgid else {
            let line = entry.msgctxt.map_or(0, |(_, line)| line);
            return Err(error(line, "msgctxt without msgid: every entry needs msgid and msgstr"));
        };
        let Some(translation) = entry.msgstr else {
            return Err(error(id_line, "msgid without msgstr: every entry needs msgid and msgstr"));
        };
        let Some((key, key_line)) = entry.msgctxt else {
            if source.is_empty() {
                return self.header(&translation, id_line);
            }
            return Err(error(id_line, "this entry has no msgctxt: every string needs its key in msgctxt"));
        };
        self.keys.check(&key, key_line)?;
        self.table.rows.push(StringRow { key, source, translation, ..entry.row });
        Ok(())
    }

    fn header(&mut self, text: &str, line: usize) -> Result<(), TableError> {
        if let Some(first) = self.header_line.replace(line) {
            return Err(error(line, format!("a second header entry (the first is on line {first})")));
        }
        for field in text.split('\n') {
            let value = |name: &str| {
                field.strip_prefix(name).map(|rest| header_unescape(rest.strip_prefix(' ').unwrap_or(rest)))
            };
            if let Some(language) = value("Language:") {
                self.table.language = language;
            } else if let Some(language) = value("X-Source-Language:") {
                self.table.source_language = language;
            }
        }
        Ok(())
    }
}

/// Applies one `#.` extracted comment that this module writes; others are translators' notes.
fn po_extracted(row: &mut StringRow, comment: &str, line: usize) -> Result<(), TableError> {
    let comment = comment.strip_prefix(' ').unwrap_or(comment);
    let value = |label: &str| comment.strip_prefix(label).map(|rest| rest.strip_prefix(' ').unwrap_or(rest));
    if let Some(text) = value("kind:") {
        row.kind = po_unescape(text, line)?;
    } else if let Some(text) = value("item:") {
        row.item = po_unescape(text, line)?;
    } else if let Some(text) = value("field:") {
        row.field = po_unescape(text, line)?;
    } else if let Some(text) = value("context:") {
        row.context = po_unescape(text, line)?;
    } else if let Some(text) = value("max_chars:") {
        let text = text.trim();
        row.max_chars = Some(
            text.parse::<u32>()
                .map_err(|_| error(line, format!("max_chars `{text}` is not a whole number of characters")))?,
        );
    }
    Ok(())
}

fn read_po(text: &str) -> Result<StringTable, TableError> {
    let mut reader = PoReader::default();
    let mut entry = PoEntry::default();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        let trimmed = raw.trim_start();
        if trimmed.trim_end().is_empty() {
            if entry.msgstr.is_some() {
                reader.finish(std::mem::take(&mut entry))?;
            }
            continue;
        }
        if let Some(comment) = trimmed.strip_prefix('#') {
            if entry.msgstr.is_some() {
                reader.finish(std::mem::take(&mut entry))?;
            }
            if comment.starts_with('~') {
                // An obsolete entry: the comments before it were its own, not the next entry's.
                if !entry.has_keywords() {
                    entry = PoEntry::default();
                }
            } else if let Some(extracted) = comment.strip_prefix('.') {
                po_extracted(&mut entry.row, extracted, line)?;
            } else if let Some(flags) = comment.strip_prefix(',')
                && flags.split(',').any(|flag| flag.trim() == "fuzzy")
            {
                entry.row.stale = true;
            }
            continue;
        }
        if trimmed.starts_with('"') {
            let text = po_quoted(trimmed, line)?;
            let target = match entry.last {
                Some(PoField::Context) => entry.msgctxt.as_mut().map(|(s, _)| s),
                Some(PoField::Id) => entry.msgid.as_mut().map(|(s, _)| s),
                Some(PoField::Str) => entry.msgstr.as_mut(),
                None => None,
            };
            let Some(target) = target else {
                return Err(error(line, "a string line outside any msgctxt, msgid or msgstr"));
            };
            target.push_str(&text);
            continue;
        }
        let keyword_end = trimmed.find(|c: char| c.is_whitespace() || c == '"').unwrap_or(trimmed.len());
        let (keyword, rest) = trimmed.split_at(keyword_end);
        match keyword {
            "msgctxt" | "msgid" if entry.msgstr.is_some() => {
                reader.finish(std::mem::take(&mut entry))?;
            }
            _ => {}
        }
        match keyword {
            "msgctxt" => {
                if entry.msgctxt.is_some() || entry.msgid.is_some() {
                    return Err(error(line, "msgctxt in the middle of an entry (is a msgstr missing?)"));
                }
                entry.msgctxt = Some((po_quoted(rest, line)?, line));
                entry.last = Some(PoField::Context);
            }
            "msgid" => {
                if entry.msgid.is_some() {
                    return Err(error(line, "a second msgid in one entry (is a msgstr missing?)"));
                }
                entry.msgid = Some((po_quoted(rest, line)?, line));
                entry.last = Some(PoField::Id);
            }
            "msgstr" => {
                if entry.msgid.is_none() {
                    return Err(error(line, "msgstr without msgid"));
                }
                if entry.msgstr.is_some() {
                    return Err(error(line, "a second msgstr in one entry"));
                }
                entry.msgstr = Some(po_quoted(rest, line)?);
                entry.last = Some(PoField::Str);
            }
            _ if keyword == "msgid_plural" || keyword.starts_with("msgstr[") => {
                return Err(error(line, "plural entries (msgid_plural, msgstr[n]) are not supported"));
            }
            _ => {
                return Err(error(
                    line,
                    format!(
                        "unexpected `{keyword}`: expected a comment, msgctxt, msgid, msgstr or a \
                         quoted string"
                    ),
                ));
            }
        }
    }
    reader.finish(entry)?;
    Ok(reader.table)
}

// ---------------------------------------------------------------------------------------------
// XLIFF 1.2

const XLIFF_STALE: &str = "needs-review-translation";

/// Escapes text for XML. `\r` and the characters XML 1.0 cannot hold literally are written as
/// character references so parsers keep them; in attributes tabs and newlines are too, since
/// attribute-value normalisation would turn them into spaces.
fn xml_escape(text: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' if !attribute => out.push(c),
            c if c < ' ' || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "&#{};", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out
}

fn write_xliff(table: &StringTable) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n",
    );
    let _ = write!(
        out,
        "  <file original=\"actforge\" datatype=\"plaintext\" source-language=\"{}\"",
        xml_escape(&table.source_language, true)
    );
    if !table.language.is_empty() {
        let _ = write!(out, " target-language=\"{}\"", xml_escape(&table.language, true));
    }
    out.push_str(">\n    <body>\n");
    for row in &table.rows {
        let key = xml_escape(&row.key, true);
        let _ = write!(out, "      <trans-unit id=\"{key}\" resname=\"{key}\" xml:space=\"preserve\"");
        if let Some(max) = row.max_chars {
            let _ = write!(out, " maxwidth=\"{max}\" size-unit=\"char\"");
        }
        out.push_str(">\n");
        let _ = writeln!(out, "        <source>{}</source>", xml_escape(&row.source, false));
        if row.stale || !row.translation.is_empty() {
            let state = if row.stale { XLIFF_STALE } else { "translated" };
            let _ = writeln!(out, "        <target state=\"{state}\">{}</target>", xml_escape(&row.translation, false));
        }
        for (from, value) in
            [("kind", &row.kind), ("item", &row.item), ("field", &row.field), ("context", &row.context)]
        {
            if !value.is_empty() {
                let _ = writeln!(out, "        <note from=\"{from}\">{}</note>", xml_escape(value, false));
            }
        }
        out.push_str("      </trans-unit>\n");
    }
    out.push_str("    </body>\n  </file>\n</xliff>\n");
    out
}

/// Turns byte offsets into 1-based lines, counting forward from the last offset asked.
struct Lines<'a> {
    text: &'a [u8],
    offset: usize,
    line: usize,
}

impl Lines<'_> {
    fn at(&mut self, offset: usize) -> usize {
        if offset < self.offset {
            self.offset = 0;
            self.line = 1;
        }
        let end = offset.min(self.text.len());
        let newlines =
            self.text.get(self.offset..end).map_or(0, |span| span.iter().fold(0, |n, &b| n + usize::from(b == b'\n')));
        self.line += newlines;
        self.offset = end;
        self.line
    }
}

/// The character an entity or character reference (`lt`, `#233`, `#xE9`) stands for.
fn xml_reference(name: &str) -> Result<char, String> {
    let number = |digits: &str, radix: u32| u32::from_str_radix(digits, radix).ok().and_then(char::from_u32);
    let resolved = match name {
        "lt" => Some('<'),
        "gt" => Some('>'),
        "amp" => Some('&'),
        "quot" => Some('"'),
        "apos" => Some('\''),
        _ => match name.strip_prefix('#') {
            Some(hex) if hex.starts_with(['x', 'X']) => number(hex.get(1..).unwrap_or_default(), 16),
            Some(decimal) => number(decimal, 10),
            None => return Err(format!("unknown entity `&{name};`")),
        },
    };
    resolved.ok_or_else(|| format!("`&{name};` is not a character"))
}

/// An attribute's value as XML parsers see it: references resolved, literal whitespace
/// normalised to spaces.
fn xml_attribute_value(raw: &str) -> Result<String, String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(c) = rest.chars().next() {
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
        match c {
            '&' => {
                let Some(end) = rest.find(';') else {
                    return Err("an `&` in an attribute starts no reference; write `&amp;`".into());
                };
                out.push(xml_reference(rest.get(..end).unwrap_or_default())?);
                rest = rest.get(end + 1..).unwrap_or_default();
            }
            '\r' => {
                out.push(' ');
                rest = rest.strip_prefix('\n').unwrap_or(rest);
            }
            '\t' | '\n' => out.push(' '),
            c => out.push(c),
        }
    }
    Ok(out)
}

fn xml_attributes(element: &BytesStart<'_>, line: usize) -> Result<Vec<(String, String)>, TableError> {
    let mut out = Vec::new();
    for attribute in element.attributes() {
        let attribute = attribute.map_err(|e| error(line, format!("malformed XML attribute: {e}")))?;
        let name = String::from_utf8_lossy(attribute.key.local_name().as_ref()).into_owned();
        let raw = std::str::from_utf8(&attribute.value)
            .map_err(|_| error(line, format!("attribute `{name}` is not UTF-8")))?;
        let value = xml_attribute_value(raw).map_err(|message| error(line, message))?;
        out.push((name, value));
    }
    Ok(out)
}

fn attribute<'a>(attributes: &'a [(String, String)], name: &str) -> Option<&'a str> {
    attributes.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// Which text of a trans-unit is being read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum XliffText {
    Source,
    Target { stale: bool },
    Note(NoteFrom),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum NoteFrom {
    Kind,
    Item,
    Field,
    Context,
    /// Notes by translators or tools: read and dropped.
    Other,
}

/// A trans-unit while it is being read.
struct XliffUnit {
    line: usize,
    row: StringRow,
    has_source: bool,
}

impl XliffUnit {
    fn store(&mut self, what: XliffText, text: String) {
        match what {
            XliffText::Source => {
                self.row.source = text;
                self.has_source = true;
            }
            XliffText::Target { stale } => {
                self.row.translation = text;
                self.row.stale = stale;
            }
            XliffText::Note(NoteFrom::Kind) => self.row.kind = text,
            XliffText::Note(NoteFrom::Item) => self.row.item = text,
            XliffText::Note(NoteFrom::Field) => self.row.field = text,
            XliffText::Note(NoteFrom::Context) => self.row.context = text,
            XliffText::Note(NoteFrom::Other) => {}
        }
    }
}

/// The XLIFF table being read.
struct XliffReader<'a> {
    lines: Lines<'a>,
    table: StringTable,
    keys: Keys,
    seen_root: bool,
    seen_file: bool,
    unit: Option<XliffUnit>,
    /// The text element being read, its name and what has been read of it.
    text: Option<(XliffText, String, String)>,
}

impl XliffReader<'_> {
    fn start(
        &mut self,
        element: &BytesStart<'_>,
        empty: bool,
        parent: Option<&str>,
        line: usize,
    ) -> Result<(), TableError> {
        let name = String::from_utf8_lossy(element.local_name().as_ref()).into_owned();
        if let Some((_, open, _)) = &self.text {
            return Err(error(line, format!("markup <{name}> inside <{open}> is not supported: write plain text")));
        }
        match name.as_str() {
            "xliff" => self.seen_root = true,
            "file" => {
                if std::mem::replace(&mut self.seen_file, true) {
                    return Err(error(line, "a second <file>: one string table per XLIFF file"));
                }
                let attributes = xml_attributes(element, line)?;
                attribute(&attributes, "source-language")
                    .unwrap_or_default()
                    .clone_into(&mut self.table.source_language);
                attribute(&attributes, "target-language").unwrap_or_default().clone_into(&mut self.table.language);
            }
            "trans-unit" => {
                if self.unit.is_some() {
                    return Err(error(line, "a <trans-unit> inside another <trans-unit>"));
                }
                let attributes = xml_attributes(element, line)?;
                let Some(id) = attribute(&attributes, "id") else {
                    return Err(error(line, "a <trans-unit> without id: every string needs its key"));
                };
                // Tools may renumber ids; resname keeps the key the content uses.
                let key = attribute(&attributes, "resname").unwrap_or(id).to_owned();
                let max_chars = match attribute(&attributes, "maxwidth") {
                    Some(width) if attribute(&attributes, "size-unit") == Some("char") => Some(
                        width
                            .trim()
                            .parse::<u32>()
                            .map_err(|_| error(line, format!("maxwidth `{width}` is not a whole number")))?,
                    ),
                    _ => None,
                };
                self.unit = Some(XliffUnit {
                    line,
                    row: StringRow { key, max_chars, ..StringRow::default() },
                    has_source: false,
                });
                if empty {
                    self.end_unit()?;
                }
            }
            "source" | "target" | "note" if parent == Some("trans-unit") && self.unit.is_some() => {
                let attributes = xml_attributes(element, line)?;
                let what = match name.as_str() {
                    "source" => XliffText::Source,
                    "target" => XliffText::Target {
                        stale: attribute(&attributes, "state").is_some_and(|s| s.starts_with("needs-review")),
                    },
                    _ => XliffText::Note(match attribute(&attributes, "from") {
                        Some("kind") => NoteFrom::Kind,
                        Some("item") => NoteFrom::Item,
                        Some("field") => NoteFrom::Field,
                        Some("context") => NoteFrom::Context,
                        _ => NoteFrom::Other,
                    }),
                };
                if empty {
                    if let Some(unit) = &mut self.unit {
                        unit.store(what, String::new());
                    }
                } else {
                    self.text = Some((what, name, String::new()));
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn end(&mut self, name: &str) -> Result<(), TableError> {
        if let Some((what, open, text)) = self.text.take() {
            if open == name {
                if let Some(unit) = &mut self.unit {
                    unit.store(what, text);
                }
            } else {
                self.text = Some((what, open, text));
            }
            return Ok(());
        }
        if name == "trans-unit" {
            self.end_unit()?;
        }
        Ok(())
    }

    fn end_unit(&mut self) -> Result<(), TableError> {
        let Some(unit) = self.unit.take() else { return Ok(()) };
        if !unit.has_source {
            return Err(error(unit.line, format!("the <trans-unit> `{}` has no <source>", unit.row.key)));
        }
        self.keys.check(&unit.row.key, unit.line)?;
        self.table.rows.push(unit.row);
        Ok(())
    }
}

fn read_xliff(text: &str) -> Result<StringTable, TableError> {
    let mut parser = quick_xml::Reader::from_str(text);
    let mut reader = XliffReader {
        lines: Lines { text: text.as_bytes(), offset: 0, line: 1 },
        table: StringTable::default(),
        keys: Keys::default(),
        seen_root: false,
        seen_file: false,
        unit: None,
        text: None,
    };
    let mut open: Vec<String> = Vec::new();
    loop {
        let offset = parser.buffer_position() as usize;
        let event = match parser.read_event() {
            Ok(event) => event,
            Err(e) => {
                let line = reader.lines.at(parser.error_position() as usize);
                return Err(error(line, format!("malformed XML: {e}")));
            }
        };
        match event {
            Event::Start(element) => {
                let line = reader.lines.at(offset);
                reader.start(&element, false, open.last().map(String::as_str), line)?;
                open.push(String::from_utf8_lossy(element.local_name().as_ref()).into_owned());
            }
            Event::Empty(element) => {
                let line = reader.lines.at(offset);
                reader.start(&element, true, open.last().map(String::as_str), line)?;
            }
            Event::End(element) => {
                open.pop();
                reader.end(&String::from_utf8_lossy(element.local_name().as_ref()))?;
            }
            Event::Text(content) => {
                if let Some((_, _, buffer)) = &mut reader.text {
                    let decoded = content
                        .xml10_content()
                        .map_err(|e| error(reader.lines.at(offset), format!("malformed XML text: {e}")))?;
                    buffer.push_str(&decoded);
                }
            }
            Event::CData(content) => {
                if let Some((_, _, buffer)) = &mut reader.text {
                    let decoded = content
                        .xml10_content()
                        .map_err(|e| error(reader.lines.at(offset), format!("malformed XML text: {e}")))?;
                    buffer.push_str(&decoded);
                }
            }
            Event::GeneralRef(reference) => {
                if let Some((_, _, buffer)) = &mut reader.text {
                    let name = reference
                        .decode()
                        .map_err(|e| error(reader.lines.at(offset), format!("malformed XML reference: {e}")))?;
                    let c = xml_reference(&name).map_err(|message| error(reader.lines.at(offset), message))?;
                    buffer.push(c);
                }
            }
            Event::Eof => break,
            Event::Comment(_) | Event::Decl(_) | Event::PI(_) | Event::DocType(_) => {}
        }
    }
    let end = reader.lines.at(text.len());
    if let Some(name) = open.last() {
        return Err(error(end, format!("the file ends before </{name}>")));
    }
    if !reader.seen_root {
        return Err(error(end, "not an XLIFF file: there is no <xliff> element"));
    }
    Ok(reader.table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FORMATS: [TableFormat; 3] = [TableFormat::Csv, TableFormat::Po, TableFormat::Xliff];

    /// Text that has broken string-table writers before: every kind of line end, quotes of
    /// each format, markup, comment starters, keywords, padding and control characters.
    fn awkward_table() -> StringTable {
        let long = "A very long line of narration that keeps going well past any wrap column, \
                    with words, commas, \"quotes\" and <tags> & more, "
            .repeat(8);
        let texts = [
            String::new(),
            "plain".into(),
            "  leading and trailing spaces  ".into(),
            "line one\nline two\n".into(),
            "windows\r\nline ends\r\n".into(),
            "lone\rcarriage return\r".into(),
            "\n\nstarts with newlines".into(),
            "tab\there\t".into(),
            "quotes \"double\" and 'single', back\\slash \\n not a newline".into(),
            "comma, separated, \"values\"".into(),
            "<b>markup</b> & &amp; entities &lt; ]]> <![CDATA[x]]> '\"".into(),
            "# a hash at line start\n#. fake comment\nmsgid \"inside\"\nmsgstr \"\"".into(),
            "msgctxt \"k\"\n\n\nmsgid \"\"".into(),
            "unicode: é ß 漢字 🎲 \u{200b} \u{feff} \u{2028} \u{85}".into(),
            "controls: \u{1}\u{7}\u{8}\u{b}\u{c}\u{1b}\u{7f} \u{0} nul".into(),
            "\u{1}7 octal then digit, \u{fffe}\u{ffff}".into(),
            long,
            "trailing backslash \\".into(),
        ];
        let mut rows = Vec::new();
        for (index, text) in texts.iter().enumerate() {
            rows.push(StringRow {
                key: format!("acts.act_{index}.options[go_left].text"),
                kind: if index % 3 == 0 { String::new() } else { "Act".into() },
                item: format!("act_{index}"),
                field: "options[go_left].text".into(),
                context: if index % 2 == 0 { text.clone() } else { String::new() },
                max_chars: (index % 4 == 1).then_some(index as u32 * 7),
                source: text.clone(),
                translation: if index % 5 == 0 { String::new() } else { format!("{text} (fr)") },
                stale: index % 3 == 1,
            });
        }
        // Stale with no translation yet must survive too.
        rows.push(StringRow {
            key: "cards.k'ey\"<&>.name".into(),
            kind: "Card, \"odd\"".into(),
            item: "k'ey".into(),
            field: "name".into(),
            context: "chain:\n  a → b\r\n".into(),
            max_chars: Some(0),
            source: "Key".into(),
            translation: String::new(),
            stale: true,
        });
        StringTable { source_language: "en".into(), language: "fr".into(), rows }
    }

    fn assert_round_trip(format: TableFormat, table: &StringTable) {
        let written = write_table(format, table);
        let read = read_table(format, &written);
        assert_eq!(read.as_ref(), Ok(table), "{format:?} round trip of:\n{written}");
        let rewritten = write_table(format, &read.unwrap_or_default());
        assert_eq!(rewritten, written, "{format:?} rewrite is not byte-identical");
    }

    #[test]
    fn awkward_text_round_trips_in_every_format() {
        let table = awkward_table();
        for format in FORMATS {
            assert_round_trip(format, &table);
        }
    }

    #[test]
    fn source_only_tables_round_trip() {
        let mut table = awkward_table();
        table.language.clear();
        for row in &mut table.rows {
            row.translation.clear();
            row.stale = false;
        }
        for format in FORMATS {
            assert_round_trip(format, &table);
        }
        assert!(
            write_table(TableFormat::Csv, &table)
                .starts_with("key,kind,item,field,context,max_chars,en,translation,stale\n")
        );
        assert!(write_table(TableFormat::Po, &table).contains("\"Language: \\n\"\n"));
        assert!(!write_table(TableFormat::Xliff, &table).contains("target-language"));
        assert_round_trip(TableFormat::Po, &StringTable::default());
        assert_round_trip(TableFormat::Xliff, &StringTable::default());
        assert_round_trip(TableFormat::Csv, &StringTable::default());
    }

    #[test]
    fn written_files_look_as_the_formats_expect() {
        let table = StringTable {
            source_language: "en".into(),
            language: "fr".into(),
            rows: vec![StringRow {
                key: "acts.brew.text".into(),
                kind: "Act".into(),
                item: "brew".into(),
                field: "text".into(),
                context: "chain: start".into(),
                max_chars: Some(24),
                source: "Brew, \"now\"".into(),
                translation: "Brasser".into(),
                stale: true,
            }],
        };
        assert_eq!(
            write_table(TableFormat::Csv, &table),
            "key,kind,item,field,context,max_chars,en,fr,stale\n\
             acts.brew.text,Act,brew,text,chain: start,24,\"Brew, \"\"now\"\"\",Brasser,yes\n"
        );
        let po = write_table(TableFormat::Po, &table);
        assert!(po.starts_with("msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n\"X-Source-Language: en\\n\"\n"));
        assert!(po.ends_with(
            "\n#. kind: Act\n#. item: brew\n#. field: text\n#. context: chain: start\n\
             #. max_chars: 24\n#, fuzzy\nmsgctxt \"acts.brew.text\"\nmsgid \"Brew, \\\"now\\\"\"\n\
             msgstr \"Brasser\"\n"
        ));
        let xliff = write_table(TableFormat::Xliff, &table);
        assert!(xliff.contains(
            "<trans-unit id=\"acts.brew.text\" resname=\"acts.brew.text\" xml:space=\"preserve\" \
             maxwidth=\"24\" size-unit=\"char\">\n        <source>Brew, &quot;now&quot;</source>\n        \
             <target state=\"needs-review-translation\">Brasser</target>\n"
        ));
    }

    #[test]
    fn long_and_multi_line_po_strings_are_split_like_gettext() {
        let text = format!("{}\nsecond line", "word ".repeat(40));
        let table = StringTable {
            source_language: "en".into(),
            language: String::new(),
            rows: vec![StringRow { key: "k".into(), source: text, ..StringRow::default() }],
        };
        let po = write_table(TableFormat::Po, &table);
        assert!(po.contains("msgid \"\"\n\"word word"), "{po}");
        assert!(po.lines().all(|line| line.chars().count() <= 79), "{po}");
        assert!(po.contains("\"second line\"\n"), "{po}");
        assert_round_trip(TableFormat::Po, &table);
    }

    #[test]
    fn csv_reads_columns_a_spreadsheet_reordered_and_added() {
        let text = "\u{feff}Notes,en,key,stale,fr,kind,item,field,context,max_chars\r\n\
                    checked by Ana,\"Hello, \"\"you\"\"\",acts.a.text,yes,\"Bonjour, \"\"toi\"\"\",Act,a,text,,12\r\n\
                    ,,,,,,,,,\r\n\
                    ,\"Two\nlines\",acts.b.text,,\"Deux\nlignes\",Act,b,text,chain a,\r\n";
        let table = read_table(TableFormat::Csv, text);
        assert_eq!(
            table,
            Ok(StringTable {
                source_language: "en".into(),
                language: "fr".into(),
                rows: vec![
                    StringRow {
                        key: "acts.a.text".into(),
                        kind: "Act".into(),
                        item: "a".into(),
                        field: "text".into(),
                        context: String::new(),
                        max_chars: Some(12),
                        source: "Hello, \"you\"".into(),
                        translation: "Bonjour, \"toi\"".into(),
                        stale: true,
                    },
                    StringRow {
                        key: "acts.b.text".into(),
                        kind: "Act".into(),
                        item: "b".into(),
                        field: "text".into(),
                        context: "chain a".into(),
                        max_chars: None,
                        source: "Two\nlines".into(),
                        translation: "Deux\nlignes".into(),
                        stale: false,
                    },
                ],
            })
        );
        // Only key and the source column are required; `translation` names an unknown target.
        let minimal = read_table(TableFormat::Csv, "en,KEY,translation\nHi,k,Salut\n");
        assert_eq!(
            minimal,
            Ok(StringTable {
                source_language: "en".into(),
                language: String::new(),
                rows: vec![StringRow {
                    key: "k".into(),
                    source: "Hi".into(),
                    translation: "Salut".into(),
                    ..StringRow::default()
                }],
            })
        );
    }

    #[test]
    fn po_reads_what_gettext_tools_write() {
        let text = "# Translation of the demo pack.\n\
                    # Copyright nobody.\n\
                    #, fuzzy\n\
                    msgid \"\"\n\
                    msgstr \"\"\n\
                    \"Project-Id-Version: demo\\n\"\n\
                    \"Language: de\\n\"\n\
                    \"MIME-Version: 1.0\\n\"\n\
                    \"Content-Type: text/plain; charset=UTF-8\\n\"\n\
                    \"X-Source-Language: en\\n\"\n\
                    \"Plural-Forms: nplurals=2; plural=(n != 1);\\n\"\n\
                    \n\
                    # A translator's note\n\
                    #. Translators: keep it short\n\
                    #. kind: Act\n\
                    #. item: brew\n\
                    #. context: first line\\nsecond line\n\
                    #. max_chars: 40\n\
                    #: acts/brew.ron:12\n\
                    #, fuzzy, c-format\n\
                    #| msgid \"The old text\"\n\
                    msgctxt \"acts.brew.text\"\n\
                    msgid \"\"\n\
                    \"The cauldron bubbles.\\n\"\n\
                    \"Stir it?\"\n\
                    msgstr \"\"\n\
                    \"Der Kessel blubbert.\\n\"\n\
                    \"Umrühren? \\\"Ja\\\"\\t\\101\"\n\
                    \n\
                    #, fuzzy\n\
                    #~ msgctxt \"acts.gone.text\"\n\
                    #~ msgid \"Gone\"\n\
                    #~ msgstr \"Weg\"\n\
                    \n\
                    msgctxt \"acts.next.text\"\n\
                    msgid \"Next\"\n\
                    msgstr \"\"\n";
        let table = read_table(TableFormat::Po, text);
        assert_eq!(
            table,
            Ok(StringTable {
                source_language: "en".into(),
                language: "de".into(),
                rows: vec![
                    StringRow {
                        key: "acts.brew.text".into(),
                        kind: "Act".into(),
                        item: "brew".into(),
                        field: String::new(),
                        context: "first line\nsecond line".into(),
                        max_chars: Some(40),
                        source: "The cauldron bubbles.\nStir it?".into(),
                        translation: "Der Kessel blubbert.\nUmrühren? \"Ja\"\tA".into(),
                        stale: true,
                    },
                    StringRow { key: "acts.next.text".into(), source: "Next".into(), ..StringRow::default() },
                ],
            })
        );
        // Windows line ends in the file itself read the same.
        assert_eq!(read_table(TableFormat::Po, &text.replace('\n', "\r\n")), table);
    }

    #[test]
    fn xliff_reads_entities_notes_and_tool_extras() {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
            <!-- made by a CAT tool -->\n\
            <xliff xmlns=\"urn:oasis:names:tc:xliff:document:1.2\" version=\"1.2\">\n\
            <file target-language=\"fr-CA\" source-language=\"en\" original=\"x\" datatype=\"plaintext\">\n\
            <header><tool tool-id=\"cat\" tool-name=\"CAT\"/></header>\n\
            <body>\n\
            <group id=\"acts\">\n\
            <trans-unit id=\"7\" resname=\"acts.a.text\" size-unit=\"char\" maxwidth=\" 30 \">\n\
              <source>Fish &amp; chips &lt;3 &quot;now&quot; &#233;t&#xE9; &#x1F3B2;\n  indented</source>\n\
              <target state=\"final\" xml:lang=\"fr-CA\">Poisson &amp; frites&#13;\r\nfin</target>\n\
              <note>A translator's own note</note>\n\
              <note from=\"item\">a</note>\n\
              <note from=\"context\">chain &gt; node</note>\n\
              <alt-trans><source>Old</source><target>Vieux</target></alt-trans>\n\
            </trans-unit>\n\
            <trans-unit id=\"acts.b.text\" maxwidth=\"99\"><source/><target state=\"needs-review-translation\"/></trans-unit>\n\
            </group>\n\
            </body>\n\
            </file>\n\
            </xliff>\n";
        assert_eq!(
            read_table(TableFormat::Xliff, text),
            Ok(StringTable {
                source_language: "en".into(),
                language: "fr-CA".into(),
                rows: vec![
                    StringRow {
                        key: "acts.a.text".into(),
                        item: "a".into(),
                        context: "chain > node".into(),
                        max_chars: Some(30),
                        source: "Fish & chips <3 \"now\" été 🎲\n  indented".into(),
                        translation: "Poisson & frites\r\nfin".into(),
                        ..StringRow::default()
                    },
                    StringRow {
                        key: "acts.b.text".into(),
                        // maxwidth without size-unit="char" counts pixels: not a character limit.
                        max_chars: None,
                        stale: true,
                        ..StringRow::default()
                    },
                ],
            })
        );
    }

    #[test]
    fn csv_without_a_key_column_names_the_header_line() {
        let err = read_table(TableFormat::Csv, "id,en,fr\na,Hello,Bonjour\n");
        let err = err.err().unwrap_or_else(|| error(0, "read without error"));
        assert_eq!(err.line, 1);
        assert!(err.message.contains("`key`"), "{err}");
        let no_source = read_table(TableFormat::Csv, "key,notes\nk,x\n").err();
        assert!(no_source.is_some_and(|e| e.line == 1 && e.message.contains("source-language")));
    }

    #[test]
    fn csv_row_with_the_wrong_number_of_fields_names_its_line() {
        let text = "key,kind,item,field,context,max_chars,en,fr,stale\n\
                    a,Act,a,text,,,\"Two\nlines\",Deux,\n\
                    b,Act,b,text,,,Hi\n";
        let err = read_table(TableFormat::Csv, text).err();
        assert_eq!(err.map(|e| (e.line, e.message)), Some((4, "this row has 7 fields but the header has 9".into())));
    }

    #[test]
    fn po_entry_without_msgctxt_names_its_line() {
        let text = "msgid \"\"\nmsgstr \"Language: fr\\n\"\n\n#. kind: Act\nmsgid \"Hello\"\nmsgstr \"Bonjour\"\n";
        let err = read_table(TableFormat::Po, text).err();
        let err = err.unwrap_or_else(|| error(0, "read without error"));
        assert_eq!(err.line, 5, "{err}");
        assert!(err.message.contains("msgctxt"), "{err}");
    }

    #[test]
    fn malformed_xliff_names_its_line() {
        let mut table = awkward_table();
        table.rows.truncate(2);
        let good = write_table(TableFormat::Xliff, &table);
        // Line 6 is the first unit's <source>; break its closing tag.
        let broken = good.replacen("</source>", "</sourc>", 1);
        let err = read_table(TableFormat::Xliff, &broken).err();
        let err = err.unwrap_or_else(|| error(0, "read without error"));
        assert_eq!(err.line, 6, "{err}\n{broken}");
        assert!(err.message.contains("malformed XML"), "{err}");

        let no_source = "<xliff version=\"1.2\"><file source-language=\"en\"><body>\n\
                         <trans-unit id=\"k\">\n<target>x</target></trans-unit></body></file></xliff>";
        let err = read_table(TableFormat::Xliff, no_source).err();
        assert_eq!(err.map(|e| (e.line, e.message)), Some((2, "the <trans-unit> `k` has no <source>".into())));

        let no_id = "<xliff>\n<file><body>\n\n<trans-unit resname=\"k\"><source/></trans-unit></body></file></xliff>";
        assert_eq!(read_table(TableFormat::Xliff, no_id).err().map(|e| e.line), Some(4));

        let unknown_entity =
            "<xliff>\n<file><body><trans-unit id=\"k\">\n<source>&nbsp;</source></trans-unit></body></file></xliff>";
        let err = read_table(TableFormat::Xliff, unknown_entity).err();
        assert!(err.is_some_and(|e| e.line == 3 && e.message.contains("&nbsp;")));

        let truncated = good.get(..good.len() / 2).unwrap_or_default();
        assert!(read_table(TableFormat::Xliff, truncated).is_err());
        assert!(read_table(TableFormat::Xliff, "").err().is_some_and(|e| e.message.contains("<xliff>")));
    }

    #[test]
    fn repeated_keys_are_errors_naming_both_lines() {
        let mut table = awkward_table();
        table.rows.truncate(2);
        if let Some(second) = table.rows.get_mut(1) {
            second.key = "acts.act_0.options[go_left].text".into();
        }
        for format in FORMATS {
            let err = read_table(format, &write_table(format, &table)).err();
            assert!(
                err.as_ref().is_some_and(|e| e.line > 1 && e.message.contains("appears twice (first on line")),
                "{format:?}: {err:?}"
            );
        }
    }

    #[test]
    fn formats_are_known_by_extension() {
        let format = |name: &str| TableFormat::from_path(Path::new(name));
        assert_eq!(format("fr.csv"), Some(TableFormat::Csv));
        assert_eq!(format("l10n/fr.PO"), Some(TableFormat::Po));
        assert_eq!(format("template.pot"), Some(TableFormat::Po));
        assert_eq!(format("fr.xliff"), Some(TableFormat::Xliff));
        assert_eq!(format("fr.XLF"), Some(TableFormat::Xliff));
        assert_eq!(format("fr.txt"), None);
        assert_eq!(format("csv"), None);
    }

    /// Strings mixing arbitrary unicode with the pieces that matter to the three formats.
    fn awkward_string() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            any::<String>(),
            prop::sample::select(vec![
                "\n",
                "\r\n",
                "\r",
                "\t",
                "\"",
                "'",
                "\\",
                ",",
                "<",
                ">",
                "&",
                "&amp;",
                "]]>",
                "#",
                "#. ",
                "msgid ",
                "msgstr \"\"",
                "msgctxt",
                " ",
                "\u{0}",
                "\u{1}",
                "\u{7f}",
                "\u{85}",
                "\u{2028}",
                "\u{feff}",
                "\u{fffe}",
                "é",
                "🎲",
                "0",
                "7",
            ])
            .prop_map(str::to_owned),
            "[ -~]{0,100}",
        ];
        prop::collection::vec(piece, 0..6).prop_map(|pieces| pieces.concat())
    }

    fn generated_table() -> impl Strategy<Value = StringTable> {
        let row = (
            awkward_string(),
            (awkward_string(), awkward_string(), awkward_string(), awkward_string()),
            proptest::option::of(any::<u32>()),
            (awkward_string(), awkward_string(), any::<bool>()),
        );
        let language = prop_oneof![Just(String::new()), "[a-z]{2,3}(-[A-Z]{2})?", awkward_string()];
        (language.clone(), language, prop::collection::vec(row, 0..6)).prop_map(|(source_language, language, rows)| {
            StringTable {
                source_language,
                language,
                rows: rows
                    .into_iter()
                    .enumerate()
                    .map(|(index, (key, (kind, item, field, context), max_chars, (source, translation, stale)))| {
                        StringRow {
                            // The index keeps keys unique and non-empty whatever follows it.
                            key: format!("k{index}.{key}"),
                            kind,
                            item,
                            field,
                            context,
                            max_chars,
                            source,
                            translation,
                            stale,
                        }
                    })
                    .collect(),
            }
        })
    }

    /// Edits that a hand, a tool or a bad transfer might make to a valid file.
    #[derive(Clone, Debug)]
    enum Mutation {
        Delete(usize, usize),
        Insert(usize, String),
        Duplicate(usize, usize),
        Truncate(usize),
    }

    fn mutation() -> impl Strategy<Value = Mutation> {
        prop_oneof![
            (any::<usize>(), 0..40usize).prop_map(|(at, len)| Mutation::Delete(at, len)),
            (any::<usize>(), awkward_string()).prop_map(|(at, text)| Mutation::Insert(at, text)),
            (any::<usize>(), 0..200usize).prop_map(|(at, len)| Mutation::Duplicate(at, len)),
            any::<usize>().prop_map(Mutation::Truncate),
        ]
    }

    /// The char boundary at or before `at % (len + 1)`.
    fn boundary(text: &str, at: usize) -> usize {
        let mut at = at % (text.len() + 1);
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        at
    }

    fn mutate(text: &str, mutation: &Mutation) -> String {
        let mut out = text.to_owned();
        match mutation {
            Mutation::Delete(at, len) => {
                let start = boundary(&out, *at);
                let end = boundary(&out, start + len);
                if end > start {
                    out.replace_range(start..end, "");
                }
            }
            Mutation::Insert(at, insert) => {
                let at = boundary(&out, *at);
                out.insert_str(at, insert);
            }
            Mutation::Duplicate(at, len) => {
                let start = boundary(&out, *at);
                let end = boundary(&out, start + len).max(start);
                let copy = out.get(start..end).unwrap_or_default().to_owned();
                out.insert_str(end, &copy);
            }
            Mutation::Truncate(at) => {
                let at = boundary(&out, *at);
                out.truncate(at);
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn every_table_round_trips_byte_for_byte(table in generated_table()) {
            for format in FORMATS {
                // CSV's `translation` header is how it says "no target language".
                if format == TableFormat::Csv && table.language == CSV_TRANSLATION {
                    continue;
                }
                let written = write_table(format, &table);
                let read = read_table(format, &written);
                prop_assert_eq!(read.as_ref(), Ok(&table), "{:?}:\n{}", format, written);
                prop_assert_eq!(write_table(format, &table), written);
            }
        }

        #[test]
        fn arbitrary_text_never_panics(text in any::<String>(), awkward in awkward_string()) {
            for format in FORMATS {
                let _ = read_table(format, &text);
                let _ = read_table(format, &awkward);
            }
        }

        #[test]
        fn mutated_files_never_panic_and_what_reads_round_trips(
            table in generated_table(),
            mutations in prop::collection::vec(mutation(), 1..4),
        ) {
            for format in FORMATS {
                let mut text = write_table(format, &table);
                for m in &mutations {
                    text = mutate(&text, m);
                }
                if let Ok(read) = read_table(format, &text) {
                    if format == TableFormat::Csv && read.language == CSV_TRANSLATION {
                        continue;
                    }
                    // Whatever a file holds, once read it is a table like any other.
                    let written = write_table(format, &read);
                    prop_assert_eq!(read_table(format, &written), Ok(read), "{:?}:\n{}", format, written);
                }
            }
        }
    }
}
