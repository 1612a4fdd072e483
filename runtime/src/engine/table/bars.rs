//! Fragment bars: the aspects a card or an act window shows, with labels and counts. Aspects
//! marked `hidden` (`spec/cultistlike.md` §1.2) are left out unless asked for debug.

use super::{CardKey, Holder, TokenKey};
use crate::engine::Session;
use crate::model::AspectId;

/// One aspect of a fragment bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AspectShown {
    /// The aspect.
    pub aspect: AspectId,
    /// Its label (its id when the label is empty).
    pub label: String,
    /// How many are held.
    pub count: i64,
    /// Marked `hidden`: listed only in debug mode.
    pub hidden: bool,
}

impl Session {
    /// Whether an aspect is shown in fragment bars outside debug mode (not marked `hidden`;
    /// an unknown id is shown).
    pub fn aspect_shown(&self, aspect: &str) -> bool {
        self.content.project.aspects.get(aspect).is_none_or(|definition| !definition.hidden)
    }

    /// The aspects card `key` holds itself (its fragment bar), in id order; hidden aspects
    /// only with `debug`.
    pub fn card_aspects(&self, key: CardKey, debug: bool) -> Vec<AspectShown> {
        let Some(card) = self.state.card(key) else { return Vec::new() };
        let held: Vec<(AspectId, i64)> = card.aspects.iter().map(|(aspect, count)| (aspect.clone(), count)).collect();
        self.shown(held, debug)
    }

    /// A window's aspect bar: every aspect its act's tests count in it (its own aspects and
    /// those of every card inside, summed), in id order; hidden aspects only with `debug`.
    pub fn window_aspects(&self, token: TokenKey, debug: bool) -> Vec<AspectShown> {
        let held: Vec<(AspectId, i64)> = self
            .state
            .aspects_in_window(token)
            .into_iter()
            .map(|aspect| {
                let count = self.state.count(Holder::Window(token), &super::Fragment::Aspect(aspect.clone()), false);
                (aspect, count)
            })
            .filter(|(_, count)| *count != 0)
            .collect();
        self.shown(held, debug)
    }

    fn shown(&self, held: Vec<(AspectId, i64)>, debug: bool) -> Vec<AspectShown> {
        held.into_iter()
            .filter_map(|(aspect, count)| {
                let definition = self.content.project.aspects.get(aspect.as_str());
                let hidden = definition.is_some_and(|definition| definition.hidden);
                if hidden && !debug {
                    return None;
                }
                let label = definition.map(|definition| definition.label.as_str()).filter(|label| !label.is_empty());
                Some(AspectShown { label: label.unwrap_or(aspect.as_str()).to_owned(), aspect, count, hidden })
            })
            .collect()
    }
}

/// A fragment bar in words: `ASPECT N, …` (ids), hidden ones marked `(hidden)`.
pub fn describe_aspects(shown: &[AspectShown]) -> String {
    let words: Vec<String> = shown
        .iter()
        .map(|entry| {
            let hidden = if entry.hidden { " (hidden)" } else { "" };
            format!("{} {}{hidden}", entry.aspect, entry.count)
        })
        .collect();
    words.join(", ")
}
