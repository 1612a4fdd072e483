//! Decay and time: a card's decay finishing (§2.11.6).

use super::Engine;

use crate::engine::table::rules::RuleContext;
use crate::engine::table::{CardKey, Fragment, Holder};
use crate::model::RuleId;

impl Engine<'_> {
    /// A card's decay finished (§2.11.6).
    pub fn decay_done(&mut self, key: CardKey) {
        let content = self.content;
        let Some(card) = self.state.cards.get_mut(&key) else { return };
        let Some(decay) = card.decay.take() else { return };
        let old_type = card.card.clone();
        if let Some(rule) = content.card(old_type.as_str()).and_then(|c| c.on_decay_complete.clone()) {
            self.run_card_rule(&rule, key);
        }
        match decay.into {
            Some(into) => {
                self.transform(key, &into);
                if let Some(rule) = content.card(into.as_str()).and_then(|c| c.on_decay_into.clone()) {
                    self.run_card_rule(&rule, key);
                }
            }
            None => self.destroy(key),
        }
    }

    fn run_card_rule(&mut self, rule: &RuleId, key: CardKey) {
        let mut ctx = RuleContext::new(Holder::Card(key), 0);
        ctx.this_card = Some(key);
        ctx.this_fragment = self.type_of(key).map(Fragment::Card);
        self.run_rule(rule, &mut ctx);
        self.close(ctx);
    }
}
