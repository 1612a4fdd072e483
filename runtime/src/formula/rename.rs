//! Renaming an item inside formula text: the lookup paths that name a formula, stat, card,
//! aspect, era, unit or board by id (FORMAT.md §5, "Names") are rewritten token by token, so
//! spacing, comments-free layout and everything else in the text stay as written.

use super::lexer::{Symbol, TokenKind, tokenize};
use crate::Kind;

/// Locations a card or aspect count is read from (`table.card.ID`).
const LOCATIONS: &[&str] = &["scope", "slots", "heap", "table", "matched", "anywhere", "free"];

/// Which segment of a lookup path `segments` names an item of `kind`, if one does.
fn named_segment(kind: Kind, segments: &[&str]) -> Option<usize> {
    match (kind, segments) {
        (Kind::Formula, ["f", _, ..]) | (Kind::Stat, ["stat", _]) | (Kind::Era, ["era", _]) => Some(1),
        (Kind::Stat, [_]) => Some(0),
        (Kind::Card, ["card", _, _, ..]) | (Kind::Unit, ["unit", _, _, ..]) | (Kind::Board, ["board", _, _, ..]) => {
            Some(1)
        }
        (Kind::Card, [location, "card", _, ..]) | (Kind::Aspect, [location, "aspect", _, ..])
            if LOCATIONS.contains(location) =>
        {
            Some(2)
        }
        _ => None,
    }
}

/// A token as a path segment: a name, or a keyword (scopes such as `f`, `c` and `skill` are
/// keywords; they are path segments all the same).
fn word(kind: TokenKind<'_>) -> Option<&str> {
    match kind {
        TokenKind::Ident(word) => Some(word),
        TokenKind::Keyword(keyword) => Some(keyword.text()),
        _ => None,
    }
}

/// Whether a lookup in `text` names the `kind` item `id` (a text that does not lex names none).
pub fn formula_names(text: &str, kind: Kind, id: &str) -> bool {
    !spans_naming(text, kind, id).is_empty()
}

/// `text` with every lookup that names the `kind` item `from` naming `to` instead, or `None`
/// when nothing names it (or the text does not lex: a broken formula is left as written).
pub fn rename_in_formula(text: &str, kind: Kind, from: &str, to: &str) -> Option<String> {
    let replacements = spans_naming(text, kind, from);
    if replacements.is_empty() {
        return None;
    }
    let mut out = text.to_owned();
    for (start, end) in replacements.into_iter().rev() {
        out.replace_range(start..end, to);
    }
    Some(out)
}

/// The byte spans of the path segments in `text` that name the `kind` item `id`, in order.
fn spans_naming(text: &str, kind: Kind, id: &str) -> Vec<(usize, usize)> {
    let Ok(tokens) = tokenize(text) else { return Vec::new() };
    // Each path: the spans of its name segments, in order.
    let mut replacements: Vec<(usize, usize)> = Vec::new();
    let mut index = 0;
    while let Some(token) = tokens.get(index) {
        let Some(first) = word(token.kind) else {
            index += 1;
            continue;
        };
        // A path starts at a name not preceded by a dot (`(c.x).y` continues another value).
        let after_dot = index > 0 && tokens.get(index - 1).is_some_and(|t| t.kind == TokenKind::Symbol(Symbol::Dot));
        let mut segments = vec![(first, token.span.start, token.span.end)];
        let mut next = index + 1;
        while let (Some(dot), Some(name)) = (tokens.get(next), tokens.get(next + 1)) {
            match (dot.kind, word(name.kind)) {
                (TokenKind::Symbol(Symbol::Dot), Some(segment)) => {
                    segments.push((segment, name.span.start, name.span.end));
                    next += 2;
                }
                _ => break,
            }
        }
        // A name followed by `(` is a function or search, not a lookup of an item.
        let called = tokens.get(next).is_some_and(|t| t.kind == TokenKind::Symbol(Symbol::OpenParen));
        if !after_dot && !called {
            let words: Vec<&str> = segments.iter().map(|(word, ..)| *word).collect();
            if let Some((word, start, end)) = named_segment(kind, &words).and_then(|at| segments.get(at))
                && *word == id
            {
                replacements.push((*start, *end));
            }
        }
        index = next;
    }
    replacements
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_only_the_lookups_that_name_the_item() {
        let rename = |text: &str, kind: Kind| rename_in_formula(text, kind, "hope", "faith");
        assert_eq!(
            rename("hope * 2 + stat.hope - c.hope", Kind::Stat).as_deref(),
            Some("faith * 2 + stat.faith - c.hope")
        );
        assert_eq!(rename("f.hope + f.hopeful", Kind::Formula).as_deref(), Some("f.faith + f.hopeful"));
        assert_eq!(
            rename("table.card.hope + card.hope.power + heap.aspect.hope", Kind::Card).as_deref(),
            Some("table.card.faith + card.faith.power + heap.aspect.hope")
        );
        assert_eq!(rename("heap.aspect.hope", Kind::Aspect).as_deref(), Some("heap.aspect.faith"));
        assert_eq!(
            rename("era.hope + unit.hope.hp + board.hope.score", Kind::Era).as_deref(),
            Some("era.faith + unit.hope.hp + board.hope.score")
        );
        assert_eq!(rename("max(hope, 1)", Kind::Stat).as_deref(), Some("max(faith, 1)"));
        assert_eq!(rename("hope(1)", Kind::Stat), None, "a call is not a lookup");
        assert_eq!(rename("(c.x).hope", Kind::Stat), None, "a field of another value");
        assert_eq!(rename("hopeless + 1", Kind::Stat), None);
        assert_eq!(rename("hope +", Kind::Stat).as_deref(), Some("faith +"), "lexes, so it is renamed");
        assert_eq!(rename("hope $", Kind::Stat), None, "does not lex: left as written");
    }
}
