//! `actforge strings`: string tables for translators (extract, import) and a generated
//! pseudo-translation.

use std::io::Write;
use std::path::{Path, PathBuf};

use actforge_runtime::locale::formats::{TableFormat, read_table, write_table};
use actforge_runtime::locale::{
    PSEUDO_LOCALE, Translation, import_table, language_problem, pseudo_text, source_strings, string_table,
};
use actforge_runtime::project::{load_folder, save_folder, write_atomic};
use clap::Subcommand;

use crate::Exit;

/// What `actforge strings` does.
#[derive(Debug, Subcommand)]
pub enum StringsCommand {
    /// Write every text of the project to a string table for translators (CSV, PO or XLIFF, by
    /// OUTPUT's extension), in a stable order: kind, item id, the schema's field order.
    ///
    /// Example: actforge strings extract content/act-demo --lang fr -o act-demo.fr.po
    Extract {
        /// Project folder or bundle.
        project: PathBuf,
        /// The table to write: `.csv`, `.po`/`.pot` or `.xliff`/`.xlf`.
        #[arg(short, long)]
        output: PathBuf,
        /// Also write this language's current translations (stale ones flagged for review).
        #[arg(long)]
        lang: Option<String>,
    },
    /// Bring a translated string table back into the project as `locales/LANG/*.ron`. Rows
    /// translated from a source that has changed since stay stale until reviewed.
    ///
    /// Example: actforge strings import content/act-demo act-demo.fr.po
    Import {
        /// Project folder.
        project: PathBuf,
        /// The translated table (`.csv`, `.po`, `.xliff`).
        file: PathBuf,
        /// The language, when the table does not name it (or to override it).
        #[arg(long)]
        lang: Option<String>,
    },
    /// Fill a language with pseudo-translations of every text (accented, 40% longer,
    /// bracketed): a sample language to try the translation pipeline on.
    Pseudo {
        /// Project folder.
        project: PathBuf,
        /// The language code to fill (e.g. `en-XA`, the usual pseudo-locale code).
        #[arg(long, default_value = "en-XA")]
        lang: String,
    },
}

/// Runs an `actforge strings` command.
pub fn strings(command: &StringsCommand, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    match command {
        StringsCommand::Extract { project, output, lang } => extract(project, output, lang.as_deref(), out, err),
        StringsCommand::Import { project, file, lang } => import(project, file, lang.as_deref(), out, err),
        StringsCommand::Pseudo { project, lang } => pseudo(project, lang, out, err),
    }
}

/// The format a table file's name says, or an error line.
fn format_of(path: &Path, err: &mut dyn Write) -> std::io::Result<Option<TableFormat>> {
    let format = TableFormat::from_path(path);
    if format.is_none() {
        writeln!(err, "error: {}: a string table ends in .csv, .po (.pot) or .xliff (.xlf)", path.display())?;
    }
    Ok(format)
}

fn extract(
    path: &Path,
    output: &Path,
    language: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Exit> {
    let Some(format) = format_of(output, err)? else { return Ok(Exit::Failure) };
    let loaded = match actforge_runtime::project::open_project(path) {
        Ok(loaded) => loaded,
        Err(error) => return crate::fail(&error, err),
    };
    if let Some(language) = language
        && let Some(problem) = language_problem(language)
    {
        writeln!(err, "error: {problem}")?;
        return Ok(Exit::Failure);
    }
    let table = string_table(&loaded.project, language);
    if let Err(error) = write_atomic(output, write_table(format, &table).as_bytes()) {
        writeln!(err, "error: {}: {error}", output.display())?;
        return Ok(Exit::Failure);
    }
    let translated = table.rows.iter().filter(|row| !row.translation.is_empty()).count();
    let stale = table.rows.iter().filter(|row| row.stale).count();
    let of_language = match language {
        Some(language) => format!(" ({translated} translated into `{language}`, {stale} stale)"),
        None => String::new(),
    };
    writeln!(out, "wrote {} texts{of_language} to {}", table.rows.len(), output.display())?;
    Ok(Exit::Success)
}

fn import(
    path: &Path,
    file: &Path,
    language: Option<&str>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Exit> {
    let Some(format) = format_of(file, err)? else { return Ok(Exit::Failure) };
    let text = match std::fs::read(file).map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => {
            writeln!(err, "error: {}: not UTF-8 text", file.display())?;
            return Ok(Exit::Failure);
        }
        Err(error) => {
            writeln!(err, "error: {}: {error}", file.display())?;
            return Ok(Exit::Failure);
        }
    };
    let table = match read_table(format, &text) {
        Ok(table) => table,
        Err(error) => {
            writeln!(err, "error: {}:{error}", file.display())?;
            return Ok(Exit::Failure);
        }
    };
    let mut loaded = match load_folder(path) {
        Ok(loaded) => loaded,
        Err(error) => return crate::fail(&error, err),
    };
    let report = match import_table(&mut loaded.project, &table, language) {
        Ok(report) => report,
        Err(problem) => {
            writeln!(err, "error: {}: {problem}", file.display())?;
            return Ok(Exit::Failure);
        }
    };
    if let Err(error) = save_folder(&loaded.project, path, &loaded.protected) {
        return crate::fail(&error, err);
    }
    let language = &report.language;
    writeln!(
        out,
        "imported `{language}`: {} added, {} updated, {} unchanged, {} untranslated, {} stale, {} unknown",
        report.added,
        report.updated,
        report.unchanged,
        report.untranslated,
        report.stale.len(),
        report.unknown.len()
    )?;
    for key in &report.stale {
        writeln!(
            err,
            "warning: `{key}` was translated from a text that has changed since: kept, and stale until reviewed"
        )?;
    }
    for key in &report.unknown {
        writeln!(
            err,
            "warning: `{key}` names no text of the project (removed since the table was written): not imported"
        )?;
    }
    Ok(Exit::Success)
}

fn pseudo(path: &Path, language: &str, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    if let Some(problem) = language_problem(language) {
        writeln!(err, "error: {problem}")?;
        return Ok(Exit::Failure);
    }
    let mut loaded = match load_folder(path) {
        Ok(loaded) => loaded,
        Err(error) => return crate::fail(&error, err),
    };
    let project = &mut loaded.project;
    let strings = source_strings(project);
    let locale = project.locales.entry(language.to_owned()).or_default();
    for string in &strings {
        locale.insert(string.key.clone(), Translation { text: pseudo_text(&string.text), source: string.text.clone() });
    }
    if !project.manifest.localisation.languages.iter().any(|known| known == language) {
        project.manifest.localisation.languages.push(language.to_owned());
    }
    if let Err(error) = save_folder(project, path, &loaded.protected) {
        return crate::fail(&error, err);
    }
    writeln!(
        out,
        "filled `{language}` with {} pseudo-translations (the preview's built-in `{PSEUDO_LOCALE}` needs none)",
        strings.len()
    )?;
    Ok(Exit::Success)
}
