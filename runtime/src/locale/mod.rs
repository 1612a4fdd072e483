//! Localisation: string keys, translations, string tables.
//!
//! Every designer-facing text of an item (its label, texts, end texts, descriptions, option
//! texts and messages) has a string key `KIND.ITEM_KEY.FIELD`, e.g.
//! `node_maps.campaign.nodes[mill].options[rest].text`: the kind's folder, the item's
//! [`Item::text_key`] (its id, or the id it had before a rename), and the field's path inside
//! it, where list elements are named by their own id (a position only for lists without ids).
//! A language's translations map keys to [`Translation`]s, each holding the source text it was
//! translated from, so that a translation whose source has changed since is reported stale.

mod check;
mod files;
mod strings;
mod table;
mod translate;

pub mod formats;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model::{Item, Kind};

pub use check::check_locales;
pub use files::{drop_unusable_translations, load_locales, locale_files, locale_path, saved_languages};
pub use strings::{SourceString, TEXT_FIELDS, fresh_text_key, source_strings};
pub use table::{ImportReport, import_table, string_table};
pub use translate::{PSEUDO_LOCALE, localised, placeholders, pseudo_text};

/// One translated text.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Translation {
    /// The text in the translation's language.
    pub text: String,
    /// The source-language text it was translated from; when the source has changed since, the
    /// translation is stale.
    pub source: String,
}

/// One language's translations by full string key, in key order.
pub type Locale = BTreeMap<String, Translation>;

/// Every language's translations, by language code.
pub type Locales = BTreeMap<String, Locale>;

/// The folder of translations inside a project.
pub const LOCALES_FOLDER: &str = "locales";

/// Why `code` cannot name a language (it becomes a folder name), if it cannot: a code is 2 to 3
/// lowercase letters, then optional `-` parts of letters and digits (`fr`, `pt-BR`, `sr-Latn`).
pub fn language_problem(code: &str) -> Option<String> {
    let mut parts = code.split('-');
    let first = parts.next().unwrap_or_default();
    let first_ok = (2..=3).contains(&first.len()) && first.chars().all(|c| c.is_ascii_lowercase());
    let rest_ok = parts.all(|part| (1..=8).contains(&part.len()) && part.chars().all(|c| c.is_ascii_alphanumeric()));
    if first_ok && rest_ok {
        None
    } else if code == PSEUDO_LOCALE {
        Some(format!("`{PSEUDO_LOCALE}` is the built-in pseudo-locale; it needs no translations"))
    } else {
        Some(format!(
            "`{code}` is not a language code: use 2 or 3 lowercase letters, optionally followed by `-` parts \
             such as `fr`, `pt-BR` or `sr-Latn`"
        ))
    }
}

/// The full key of the text at `field` in `item`.
pub fn string_key<T: Item>(item: &T, field: &str) -> String {
    format!("{}.{}.{field}", T::KIND.folder(), item.text_key())
}

/// The kind a full key starts with (its folder), and the rest of the key (`ITEM_KEY.FIELD`);
/// `None` for a key of no kind.
pub fn split_key(key: &str) -> Option<(Kind, &str)> {
    let (folder, rest) = key.split_once('.')?;
    Some((Kind::from_folder(folder)?, rest))
}

/// The folder of `language`'s translations: inside `root` when the project is a folder.
pub fn language_folder(root: Option<&std::path::Path>, language: &str) -> std::path::PathBuf {
    let locales = std::path::Path::new(LOCALES_FOLDER);
    root.map_or_else(|| locales.to_owned(), |root| root.join(locales)).join(language)
}
