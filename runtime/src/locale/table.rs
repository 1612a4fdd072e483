//! String tables for translators: extracting a project's texts (with a language's current
//! translations) and importing a translated table back as translations.

use std::collections::BTreeMap;

use crate::model::Project;

use super::formats::{StringRow, StringTable};
use super::strings::source_strings;
use super::{Locale, Translation, language_problem};

/// The project's texts as a string table, with `language`'s translations when one is given
/// (stale ones flagged); the rows follow [`source_strings`]' order.
pub fn string_table(project: &Project, language: Option<&str>) -> StringTable {
    let empty = Locale::new();
    let locale = language.and_then(|language| project.locales.get(language)).unwrap_or(&empty);
    let rows = source_strings(project)
        .into_iter()
        .map(|string| {
            let translation = locale.get(&string.key);
            StringRow {
                stale: translation.is_some_and(|translation| translation.source != string.text),
                translation: translation.map(|translation| translation.text.clone()).unwrap_or_default(),
                key: string.key,
                kind: string.kind.label().to_owned(),
                item: string.item,
                field: string.field,
                context: string.context,
                max_chars: string.max_chars,
                source: string.text,
            }
        })
        .collect();
    StringTable {
        source_language: project.manifest.localisation.source_language.clone(),
        language: language.unwrap_or_default().to_owned(),
        rows,
    }
}

/// What importing a translated table did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    /// The language imported.
    pub language: String,
    /// Translations added where there were none.
    pub added: usize,
    /// Translations whose text or source changed.
    pub updated: usize,
    /// Rows equal to the translation already held.
    pub unchanged: usize,
    /// Rows with no translation (nothing imported for them).
    pub untranslated: usize,
    /// Keys imported stale: translated from a source that has changed since, or flagged for
    /// review in the file. They are kept, and `check` reports them until reviewed.
    pub stale: Vec<String>,
    /// Keys of the table that name no text of the project (removed since extraction): not
    /// imported.
    pub unknown: Vec<String>,
}

/// Imports `table`'s translations into `project` (as `language`, or the table's own language),
/// adding the language to the project's languages. A row translated from a source that has
/// changed since keeps that older source, so it stays stale until reviewed; a row the file
/// flags for review stays stale too. Nothing is dropped silently: the report counts every row.
pub fn import_table(
    project: &mut Project,
    table: &StringTable,
    language: Option<&str>,
) -> Result<ImportReport, String> {
    let language = language.unwrap_or(&table.language).to_owned();
    if language.is_empty() {
        return Err("the table names no target language: give one with --lang".to_owned());
    }
    if let Some(problem) = language_problem(&language) {
        return Err(problem);
    }
    let source_language = &project.manifest.localisation.source_language;
    if language == *source_language {
        return Err(format!("`{language}` is the project's source language; its texts are the items' own"));
    }
    let sources: BTreeMap<String, String> =
        source_strings(project).into_iter().map(|string| (string.key, string.text)).collect();
    let mut report = ImportReport { language: language.clone(), ..ImportReport::default() };
    let locale = project.locales.entry(language.clone()).or_default();
    for row in &table.rows {
        let Some(current) = sources.get(&row.key) else {
            report.unknown.push(row.key.clone());
            continue;
        };
        if row.translation.is_empty() && !row.stale {
            report.untranslated = report.untranslated.saturating_add(1);
            continue;
        }
        let held = locale.get(&row.key);
        let source = if row.stale {
            // Flagged for review: keep the source it was really made from (or none known,
            // which is stale too), never the current one.
            held.filter(|held| held.source != *current).map_or_else(String::new, |held| held.source.clone())
        } else {
            row.source.clone()
        };
        let incoming = Translation { text: row.translation.clone(), source };
        if incoming.source != *current {
            report.stale.push(row.key.clone());
        }
        match held {
            Some(held) if *held == incoming => report.unchanged = report.unchanged.saturating_add(1),
            Some(_) => report.updated = report.updated.saturating_add(1),
            None => report.added = report.added.saturating_add(1),
        }
        locale.insert(row.key.clone(), incoming);
    }
    let languages = &mut project.manifest.localisation.languages;
    if !languages.contains(&language) {
        languages.push(language);
    }
    Ok(report)
}
