//! Texts: text rules and interpolation against a window (§2.10).

use super::Engine;
use std::borrow::Cow;

use crate::engine::table::rules::RuleContext;
use crate::engine::table::{Fragment, Holder, TokenKey};
use crate::engine::text::interpolate;
use crate::model::RuleId;

impl<'a> Engine<'a> {
    /// A text with its text rules (§2.10), interpolated against the window.
    pub fn rule_text(&mut self, fallback: &'a str, rules: &[RuleId], token: TokenKey) -> Cow<'a, str> {
        let content = self.content;
        let mut chosen = fallback;
        if !rules.is_empty() {
            let mut ctx = RuleContext::new(Holder::Window(token), 0);
            for rule_id in rules {
                let Some(rule) = content.rule(rule_id.as_str()) else { continue };
                if self.evaluate(&rule.requirements, rule.invert, false, &mut ctx) {
                    chosen = &rule.text;
                    break;
                }
            }
        }
        // Blocks and substitutions all start with `[`: a text without one is shown as written.
        if !chosen.contains('[') {
            return Cow::Borrowed(chosen);
        }
        let state = &*self.state;
        let first_label = state
            .window(token)
            .and_then(|w| w.saved_matches.first())
            .and_then(|key| state.card(*key))
            .and_then(|card| content.card(card.card.as_str()))
            .map_or("", |card| card.label.as_str());
        let in_window = state.aspects_in_window(token);
        Cow::Owned(interpolate(chosen, first_label, |name| {
            let aspect = Fragment::Aspect(name.into());
            let in_window = in_window.iter().any(|a| a.as_str() == name);
            if in_window {
                state.count(Holder::Window(token), &aspect, false)
            } else {
                state.count(Holder::Window(token), &Fragment::Card(name.into()), false)
            }
        }))
    }
}
