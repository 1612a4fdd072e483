//! `check` for translations: missing, stale, placeholders lost, too long, orphaned, and string
//! keys used twice.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::diagnostic::Diagnostic;
use crate::model::{Item, Items, KindVisitor, Project};

use super::files::{locale_path, saved_languages};
use super::strings::{SourceString, source_strings};
use super::{language_folder, placeholders, split_key};

/// How many untranslated keys a language's "missing" warning names.
const MISSING_NAMED: usize = 8;

/// Everything wrong with the project's translations, per language; `root` (the project
/// folder) places each finding in its `locales/LANG/KIND.ron` file.
pub fn check_locales(project: &Project, root: Option<&Path>) -> Vec<Diagnostic> {
    let mut out = duplicate_keys(project);
    let languages = saved_languages(project);
    if languages.is_empty() && project.manifest.localisation.limits.is_empty() {
        return out;
    }
    let strings = source_strings(project);
    for string in &strings {
        if let Some(limit) = string.max_chars
            && string.text.chars().count() > limit as usize
        {
            out.push(
                Diagnostic::warning(format!(
                    "this text has {} characters; `localisation.limits` allows {limit} for `{}`",
                    string.text.chars().count(),
                    string.key
                ))
                .for_item(string.kind, &string.item)
                .for_field(&string.field),
            );
        }
    }
    let by_key: BTreeMap<&str, &SourceString> = strings.iter().map(|string| (string.key.as_str(), string)).collect();
    let declared: BTreeSet<&str> = project.manifest.localisation.languages.iter().map(String::as_str).collect();
    let empty = super::Locale::new();
    let mut files = LocaleFiles::default();
    for language in languages {
        let locale = project.locales.get(language).unwrap_or(&empty);
        let mut place = |key: &str, diagnostic: Diagnostic| files.place(diagnostic, root, language, key);
        if !declared.contains(language) {
            out.push(
                Diagnostic::warning(format!(
                    "`locales/{language}/` holds translations, but `{language}` is not among the project's languages \
                     (`localisation.languages` in project.ron): add it, or remove the folder"
                ))
                .in_file(language_folder(root, language)),
            );
        }
        let mut missing = Vec::new();
        for string in &strings {
            let Some(translation) = locale.get(&string.key).filter(|translation| !translation.text.is_empty()) else {
                missing.push(string.key.as_str());
                continue;
            };
            out.extend(translation_findings(language, string, translation).into_iter().map(|d| place(&string.key, d)));
        }
        if !missing.is_empty() {
            let named: Vec<&str> = missing.iter().copied().take(MISSING_NAMED).collect();
            let more = missing.len().saturating_sub(named.len());
            out.push(
                Diagnostic::warning(format!(
                    "`{language}`: {} of {} texts are not translated: {}{} (the Strings tab's Missing filter lists \
                     them; `actforge strings extract --lang {language}` writes them for a translator)",
                    missing.len(),
                    strings.len(),
                    named.join(", "),
                    if more > 0 { format!(" and {more} more") } else { String::new() }
                ))
                .in_file(language_folder(root, language)),
            );
        }
        for key in locale.keys().filter(|key| !by_key.contains_key(key.as_str())) {
            out.push(place(
                key,
                Diagnostic::warning(format!(
                    "the `{language}` translation `{key}` belongs to no text of the project (its text, item or list \
                     element was removed or emptied); delete it or move it to the text's new key"
                )),
            ));
        }
    }
    out
}

/// What is wrong with one translation of `string`: stale, placeholders lost or added, too long.
fn translation_findings(language: &str, string: &SourceString, translation: &super::Translation) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if translation.source != string.text {
        out.push(Diagnostic::warning(format!(
            "the `{language}` translation of `{}` is stale: it was made from {:?}, the text is now {:?}; \
             review it (Strings tab) and mark it up to date",
            string.key, translation.source, string.text
        )));
    }
    let (wanted, kept) = (placeholders(&string.text), placeholders(&translation.text));
    if wanted != kept {
        let lost: Vec<&str> = difference(&wanted, &kept);
        let added: Vec<&str> = difference(&kept, &wanted);
        let mut problems = Vec::new();
        if !lost.is_empty() {
            problems.push(format!("lost {}", lost.join(" ")));
        }
        if !added.is_empty() {
            problems.push(format!("added {}", added.join(" ")));
        }
        out.push(Diagnostic::error(format!(
            "the `{language}` translation of `{}` must keep its source's placeholders ({}): {}",
            string.key,
            if wanted.is_empty() { "none".to_owned() } else { wanted.join(" ") },
            problems.join("; ")
        )));
    }
    if let Some(limit) = string.max_chars
        && translation.text.chars().count() > limit as usize
    {
        out.push(Diagnostic::warning(format!(
            "the `{language}` translation of `{}` has {} characters; `localisation.limits` allows {limit}",
            string.key,
            translation.text.chars().count()
        )));
    }
    out
}

/// The elements of sorted `a` not matched in sorted `b`, counting repeats.
fn difference<'a>(a: &'a [String], b: &[String]) -> Vec<&'a str> {
    let mut rest: Vec<&str> = b.iter().map(String::as_str).collect();
    a.iter()
        .filter(|item| match rest.iter().position(|other| other == item) {
            Some(at) => {
                rest.remove(at);
                false
            }
            None => true,
        })
        .map(String::as_str)
        .collect()
}

/// The language files read to place findings, each read once per check.
#[derive(Default)]
struct LocaleFiles {
    texts: HashMap<PathBuf, Option<String>>,
}

impl LocaleFiles {
    /// `diagnostic` placed at `key`'s entry in its language file (the file alone when the
    /// project is no folder or the entry is not on disk yet).
    fn place(&mut self, diagnostic: Diagnostic, root: Option<&Path>, language: &str, key: &str) -> Diagnostic {
        let Some((kind, rest)) = split_key(key) else { return diagnostic };
        let relative = locale_path(language, kind);
        let Some(root) = root else { return diagnostic.in_file(relative) };
        let file = root.join(&relative);
        let text = self.texts.entry(file.clone()).or_insert_with(|| std::fs::read_to_string(&file).ok());
        let position = text.as_deref().and_then(|text| {
            let offset = text.find(&format!("{rest:?}:"))?;
            Some(crate::ron_locate::position_of(text, offset))
        });
        diagnostic.in_file(file).at(position)
    }
}

/// Items of one kind whose texts share a key (a renamed item keeps its old id as its key; a
/// new item given that id would read the renamed item's translations).
fn duplicate_keys(project: &Project) -> Vec<Diagnostic> {
    struct Keys(Vec<Diagnostic>);
    impl KindVisitor for Keys {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
            for item in items {
                if let Some(first) = seen.insert(item.text_key(), item.id().as_str()) {
                    self.0.push(
                        Diagnostic::error(format!(
                            "the {} `{first}` and this one both key their texts `{}`: their translations would be \
                             shared; give one of them another `text_key`",
                            T::KIND.label().to_lowercase(),
                            item.text_key()
                        ))
                        .for_item(T::KIND, item.id().as_str())
                        .for_field("text_key"),
                    );
                }
            }
        }
    }
    let mut keys = Keys(Vec::new());
    project.visit_kinds(&mut keys);
    keys.0
}
