//! Translations in a project folder: `locales/LANG/KIND.ron`, one file per language and kind,
//! each a map from `ITEM_KEY.FIELD` to a [`Translation`], in key order.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::model::{Kind, Project};
use crate::project::ron_format::to_ron_string;

use super::{LOCALES_FOLDER, Locale, Translation, language_problem, split_key};

/// The languages whose files a save writes: the project's languages and any language that has
/// translations, in code order.
pub fn saved_languages(project: &Project) -> BTreeSet<&str> {
    project
        .manifest
        .localisation
        .languages
        .iter()
        .map(String::as_str)
        .chain(project.locales.keys().map(String::as_str))
        .collect()
}

/// The relative path of a language's file of one kind.
pub fn locale_path(language: &str, kind: Kind) -> PathBuf {
    Path::new(LOCALES_FOLDER).join(language).join(format!("{}.ron", kind.folder()))
}

/// Every translation file of the project as (relative path, text): per language, one file for
/// every kind that has items or translations (an emptied file is written empty, so that a
/// removed translation does not come back on the next load). A language code that could not be
/// a folder name, or a key of no kind, is an error naming it.
pub fn locale_files(project: &Project) -> Result<Vec<(PathBuf, String)>, String> {
    let empty = Locale::new();
    let mut files = Vec::new();
    for language in saved_languages(project) {
        if let Some(problem) = language_problem(language) {
            return Err(format!("translations cannot be saved: {problem}"));
        }
        let locale = project.locales.get(language).unwrap_or(&empty);
        let mut by_kind: BTreeMap<Kind, BTreeMap<&str, &Translation>> = BTreeMap::new();
        for (key, translation) in locale {
            let Some((kind, rest)) = split_key(key) else {
                return Err(format!("the `{language}` translation `{key}` names no kind of item"));
            };
            by_kind.entry(kind).or_default().insert(rest, translation);
        }
        for &kind in Kind::ALL {
            let strings = by_kind.remove(&kind).unwrap_or_default();
            if strings.is_empty() && project.count(kind) == 0 {
                continue;
            }
            let body = to_ron_string(&strings).map_err(|error| error.to_string())?;
            let text = format!(
                "// `{language}` translations of {}: `source` is the text each was translated from; a translation\n\
                 // whose source has changed since is stale (`actforge check`, the editor's Strings tab).\n{body}",
                kind.plural_label().to_lowercase()
            );
            files.push((locale_path(language, kind), text));
        }
    }
    Ok(files)
}

/// Reads `root/locales/`: every language folder's kind files into `project.locales`. Files that
/// do not parse become errors and are protected from being overwritten; anything else in the
/// folder is a warning.
pub fn load_locales(
    root: &Path,
    project: &mut Project,
    diagnostics: &mut Vec<Diagnostic>,
    protected: &mut BTreeSet<PathBuf>,
) {
    let folder = root.join(LOCALES_FOLDER);
    let entries = match fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return,
        Err(error) => {
            diagnostics.push(
                Diagnostic::warning(format!(
                    "no translations were read: `{LOCALES_FOLDER}` should be a folder of language folders ({error})"
                ))
                .in_file(&folder),
            );
            return;
        }
    };
    let mut languages: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
        .map(|entry| (entry.file_name().to_string_lossy().into_owned(), entry.path()))
        .collect();
    languages.sort();
    for (language, path) in languages {
        if !path.is_dir() {
            diagnostics.push(
                Diagnostic::warning("ignored: locales/ holds one folder per language (`locales/fr/acts.ron`)")
                    .in_file(&path),
            );
            continue;
        }
        if let Some(problem) = language_problem(&language) {
            diagnostics.push(Diagnostic::warning(format!("ignored: {problem}")).in_file(&path));
            continue;
        }
        let locale = project.locales.entry(language.clone()).or_default();
        let Ok(files) = fs::read_dir(&path) else { continue };
        let mut files: Vec<PathBuf> = files
            .flatten()
            .filter(|entry| !entry.file_name().to_string_lossy().starts_with('.'))
            .map(|entry| entry.path())
            .collect();
        files.sort();
        for file in files {
            let kind = file
                .extension()
                .filter(|ext| *ext == "ron")
                .and(file.file_stem())
                .and_then(|stem| Kind::from_folder(&stem.to_string_lossy()));
            let Some(kind) = kind else {
                diagnostics.push(
                    Diagnostic::warning(
                        "ignored: a language folder holds one file per kind, named after its folder (`acts.ron`, \
                         `cards.ron`…)",
                    )
                    .in_file(&file),
                );
                continue;
            };
            let text = match fs::read(&file).map(String::from_utf8) {
                Ok(Ok(text)) => text,
                Ok(Err(error)) => {
                    diagnostics.push(crate::project::not_utf8(&file, &error));
                    protected.insert(file);
                    continue;
                }
                Err(error) => {
                    diagnostics.push(Diagnostic::error(format!("cannot read: {error}")).in_file(&file));
                    protected.insert(file);
                    continue;
                }
            };
            match ron::from_str::<BTreeMap<String, Translation>>(&text) {
                Ok(strings) => {
                    for (rest, translation) in strings {
                        locale.insert(format!("{}.{rest}", kind.folder()), translation);
                    }
                }
                Err(error) => {
                    diagnostics.push(crate::project::ron_error(&file, &text, &error));
                    protected.insert(file);
                }
            }
        }
    }
}

/// Removes the translations a project folder could not hold (a language code that is no
/// folder name, a key of no kind), as a bundle may carry them: one error each, naming it.
pub fn drop_unusable_translations(project: &mut Project) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    project.locales.retain(|language, locale| {
        if let Some(problem) = language_problem(language) {
            diagnostics.push(Diagnostic::error(format!("translations left out: {problem}")));
            return false;
        }
        locale.retain(|key, _| {
            let usable = split_key(key).is_some();
            if !usable {
                diagnostics.push(Diagnostic::error(format!(
                    "the `{language}` translation `{key}` was left out: a key starts with a kind's folder \
                     (`acts.ITEM.FIELD`)"
                )));
            }
            usable
        });
        true
    });
    diagnostics
}
