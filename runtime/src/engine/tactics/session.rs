//! The battle's part of the [`Session`]: its state, choices and steps.

use std::sync::Arc;

use super::{TacticsListing, TacticsState};
use crate::engine::{Choice, ChoiceError, Event, Session};

impl Session {
    /// The battle, when the project sets one up (`entry.tile_map` with placements).
    pub fn tactics(&self) -> Option<&TacticsState> {
        self.tactics.as_ref()
    }

    /// The battle, to change it: what the memo kept for the state it had is forgotten. Every
    /// change to the battle goes through here (or clears the memo itself).
    pub(crate) fn battle_mut(&mut self) -> Option<&mut TacticsState> {
        self.tactics_memo.clear();
        self.tactics.as_mut()
    }

    /// Sets up the battle of `entry.tile_map`, when the project places units on it.
    pub(crate) fn start_tactics(&mut self, events: &mut Vec<Event>) {
        self.tactics_memo.clear();
        self.tactics = TacticsState::start(&self.content, &mut self.rng).map(|(battle, started)| {
            events.extend(started);
            battle
        });
    }

    /// The tactics choices now (on a copy of the generator: region formulas may draw).
    pub(crate) fn tactics_choices(&self, choices: &mut Vec<Choice>) {
        let mut rng = self.rng.clone();
        if let Some(battle) = &self.tactics {
            choices.extend(battle.choices(&self.content, &mut rng, &self.tactics_memo));
        }
    }

    /// [`Self::tactics_choices`] counted, not built (on a copy of the generator too).
    pub(crate) fn tactics_listing(&self) -> Option<TacticsListing> {
        let mut rng = self.rng.clone();
        self.tactics.as_ref().map(|battle| battle.listing(&self.content, &mut rng, &self.tactics_memo))
    }

    /// Applies a tactics choice; refused (and nothing changes) unless it is possible now.
    pub(crate) fn apply_tactics(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        let Some(battle) = self.tactics.as_mut() else {
            return Err(ChoiceError::NotPossible("there is no battle".to_owned()));
        };
        let content = Arc::clone(&self.content);
        // Refused choices leave everything as it was, the generator included: `apply` refuses
        // before it changes anything, so the battle is changed in place (no copy to fall back
        // on) and only the generator is tried on a copy.
        let mut rng = self.rng.clone();
        // The memo's answers are for the battle as it is whenever `apply` asks (before it changes).
        let result = battle.apply(&content, &mut rng, choice, &self.tactics_memo);
        match result {
            Ok(events) => {
                self.tactics_memo.clear();
                self.rng = rng;
                self.counters.add(1, &events, 0);
                Ok(events)
            }
            Err(why) => Err(ChoiceError::NotPossible(why)),
        }
    }

    /// Lets up to `ticks` scheduler ticks pass while it is nobody's turn in the battle.
    pub(crate) fn advance_tactics(&mut self, ticks: u64, events: &mut Vec<Event>) {
        let content = Arc::clone(&self.content);
        let mut rng = self.rng.clone();
        if let Some(battle) = self.battle_mut() {
            events.extend(battle.advance(&content, &mut rng, ticks));
            self.rng = rng;
        }
    }
}
