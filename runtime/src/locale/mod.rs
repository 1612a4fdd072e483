//! Localisation: string keys, translations, string tables.

pub mod formats;
