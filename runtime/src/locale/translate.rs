//! Playing in another language: a project whose texts are a language's translations, the
//! pseudo-locale, and the placeholders a translation must keep.

use std::sync::Arc;

use crate::model::{Item, Items, KindVisitorMut, Project};

use super::strings::visit_texts;
use super::{Locale, string_key};

/// The language code of the built-in pseudo-locale: every text accented, 40% longer and
/// bracketed, so that clipped and untranslated (hard-coded) text stands out.
pub const PSEUDO_LOCALE: &str = "pseudo";

/// The project with its texts in `language`: the project's translations, or the pseudo-locale's
/// texts for [`PSEUDO_LOCALE`]; a text without a translation stays in the source language.
/// The source language (or an unknown code) gives the project unchanged.
pub fn localised(project: &Project, language: &str) -> Project {
    let mut copy = project.clone();
    if language == PSEUDO_LOCALE {
        copy.visit_kinds_mut(&mut Localiser { translate: &|_: &str, text: &str| Some(pseudo_text(text)) });
    } else if let Some(locale) = project.locales.get(language) {
        copy.visit_kinds_mut(&mut Localiser { translate: &|key: &str, _: &str| translated(locale, key) });
    }
    copy
}

/// The translation of `key`, when it has a text.
fn translated(locale: &Locale, key: &str) -> Option<String> {
    locale.get(key).filter(|translation| !translation.text.is_empty()).map(|translation| translation.text.clone())
}

/// Rewrites each item's texts through `translate(key, source)`.
struct Localiser<'a> {
    translate: &'a dyn Fn(&str, &str) -> Option<String>,
}

impl KindVisitorMut for Localiser<'_> {
    fn visit<T: Item>(&mut self, items: &mut Items<T>) {
        let mut changed = Vec::new();
        for item in items.iter() {
            let Ok(mut tree) = serde_json::to_value(item) else { continue };
            let mut any = false;
            visit_texts(&mut tree, &mut String::new(), &mut String::new(), &mut |field, _, text| {
                if let Some(translation) = (self.translate)(&string_key(item, field), text) {
                    any |= translation != *text;
                    *text = translation;
                }
            });
            // A tree read back from the item always fits its type; an item that would not
            // stays as written.
            if any && let Ok(translated) = serde_json::from_value::<T>(tree) {
                changed.push(translated);
            }
        }
        for item in changed {
            items.insert_shared(Arc::new(item));
        }
    }
}

/// Accented letters for the pseudo-locale, by ASCII letter: Latin-1 and Latin Extended-A/B, and
/// Greek or Cyrillic look-alikes where those have none, so that the editor's font draws them all.
const ACCENTED: [(char, char); 52] = [
    ('a', 'à'),
    ('b', 'ƀ'),
    ('c', 'ç'),
    ('d', 'ď'),
    ('e', 'é'),
    ('f', 'ƒ'),
    ('g', 'ĝ'),
    ('h', 'ĥ'),
    ('i', 'î'),
    ('j', 'ĵ'),
    ('k', 'ķ'),
    ('l', 'ĺ'),
    ('m', 'м'),
    ('n', 'ñ'),
    ('o', 'ö'),
    ('p', 'þ'),
    ('q', 'ǫ'),
    ('r', 'ŕ'),
    ('s', 'š'),
    ('t', 'ţ'),
    ('u', 'û'),
    ('v', 'ν'),
    ('w', 'ŵ'),
    ('x', 'χ'),
    ('y', 'ý'),
    ('z', 'ž'),
    ('A', 'Å'),
    ('B', 'Ɓ'),
    ('C', 'Ç'),
    ('D', 'Ď'),
    ('E', 'É'),
    ('F', 'Ƒ'),
    ('G', 'Ĝ'),
    ('H', 'Ĥ'),
    ('I', 'Î'),
    ('J', 'Ĵ'),
    ('K', 'Ķ'),
    ('L', 'Ĺ'),
    ('M', 'М'),
    ('N', 'Ñ'),
    ('O', 'Ö'),
    ('P', 'Þ'),
    ('Q', 'Ǫ'),
    ('R', 'Ŕ'),
    ('S', 'Š'),
    ('T', 'Ţ'),
    ('U', 'Û'),
    ('V', 'Ѵ'),
    ('W', 'Ŵ'),
    ('X', 'Χ'),
    ('Y', 'Ý'),
    ('Z', 'Ž'),
];

/// A piece of a text: plain text, or a placeholder kept as written.
enum Piece<'a> {
    Plain(&'a str),
    Placeholder(&'a str),
}

/// Splits `text` into plain runs and placeholders: substitutions `[NAME]`, the heads of
/// conditional blocks `{[NAME OP N]` and their closing `}` (`spec/cultistlike.md` §2.10; the
/// turns system's `[stat]` is a substitution too).
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(['[', '{', '}']) {
        let (before, from) = rest.split_at(start);
        if !before.is_empty() {
            pieces.push(Piece::Plain(before));
        }
        let open = if from.starts_with("{[") { 2 } else { 1 };
        let len = if from.starts_with('}') {
            1
        } else if from.starts_with('{') && open == 1 {
            0
        } else {
            // Through the first `]`, when no `[` comes before it (the runtime's shortest match).
            from.get(open..)
                .and_then(|inner| inner.find(']').filter(|close| !inner.get(..*close).unwrap_or("[").contains('[')))
                .map_or(0, |close| open + close + 1)
        };
        if len == 0 {
            // A bracket that opens nothing is plain text.
            let (bracket, after) = from.split_at(from.chars().next().map_or(1, char::len_utf8));
            pieces.push(Piece::Plain(bracket));
            rest = after;
        } else {
            let (placeholder, after) = from.split_at(len.min(from.len()));
            pieces.push(Piece::Placeholder(placeholder));
            rest = after;
        }
    }
    if !rest.is_empty() {
        pieces.push(Piece::Plain(rest));
    }
    pieces
}

/// The placeholders of `text`, sorted: a translation must keep exactly these.
pub fn placeholders(text: &str) -> Vec<String> {
    let mut found: Vec<String> = pieces(text)
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Placeholder(placeholder) => Some(placeholder.to_owned()),
            Piece::Plain(_) => None,
        })
        .collect();
    found.sort();
    found
}

/// `text` in the pseudo-locale: letters accented, placeholders kept, 40% longer, between `⟦ ⟧`
/// (not `[ ]`, which would read as a substitution).
pub fn pseudo_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len().saturating_mul(2));
    out.push('⟦');
    for piece in pieces(text) {
        match piece {
            Piece::Placeholder(placeholder) => out.push_str(placeholder),
            Piece::Plain(plain) => {
                for c in plain.chars() {
                    out.push(ACCENTED.iter().find(|(ascii, _)| *ascii == c).map_or(c, |(_, accented)| *accented));
                }
            }
        }
    }
    // 40% longer than the whole source, rounded up, padded with a pattern that reads as filler.
    let padding = text.chars().count().saturating_mul(2).div_ceil(5);
    if padding > 0 {
        out.push(' ');
        out.extend(std::iter::repeat_n('·', padding.saturating_sub(1)));
    }
    out.push('⟧');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_text_keeps_placeholders_and_is_forty_percent_longer() {
        let source = "You have [furry] cats{[dread >= 2] and dread}. [MC] waits.";
        let pseudo = pseudo_text(source);
        assert_eq!(placeholders(&pseudo), placeholders(source));
        assert!(pseudo.starts_with('⟦') && pseudo.ends_with('⟧'));
        assert!(pseudo.contains("Ýöû ĥàνé [furry] çàţš{[dread >= 2] àñď ďŕéàď}"), "{pseudo}");
        assert!(pseudo.chars().count() * 10 >= source.chars().count() * 14);
    }

    #[test]
    fn placeholders_are_substitutions_block_heads_and_closings_only() {
        assert_eq!(placeholders("a [x] b {[y > 1] c} [d"), vec!["[x]", "{[y > 1]", "}"]);
        assert_eq!(placeholders("no brackets, {braces"), Vec::<String>::new());
        assert_eq!(placeholders("[a [b]"), vec!["[b]"]);
    }
}
