//! The battle's part of the [`Session`]: its state, choices and steps.

use std::sync::Arc;

use super::TacticsState;
use crate::engine::{Choice, ChoiceError, Event, Session};

impl Session {
    /// The battle, when the project sets one up (`entry.tile_map` with placements).
    pub fn tactics(&self) -> Option<&TacticsState> {
        self.tactics.as_ref()
    }

    /// The tactics choices now (on a copy of the generator: region formulas may draw).
    pub(crate) fn tactics_choices(&self) -> Vec<Choice> {
        let mut rng = self.rng.clone();
        self.tactics.as_ref().map(|battle| battle.choices(&self.content, &mut rng)).unwrap_or_default()
    }

    /// Applies a tactics choice; None for the other systems' choices.
    pub(crate) fn apply_tactics(&mut self, choice: &Choice) -> Option<Result<Vec<Event>, ChoiceError>> {
        if !matches!(
            choice,
            Choice::MoveUnit { .. } | Choice::UseSkill { .. } | Choice::WaitUnit { .. } | Choice::FaceUnit { .. }
        ) {
            return None;
        }
        let Some(battle) = self.tactics.as_mut() else {
            return Some(Err(ChoiceError::NotPossible("there is no battle".to_owned())));
        };
        let content = Arc::clone(&self.content);
        // Refused choices leave everything as it was, the generator included.
        let mut rng = self.rng.clone();
        let mut trial = battle.clone();
        let result = trial.apply(&content, &mut rng, choice);
        Some(match result {
            Ok(events) => {
                *battle = trial;
                self.rng = rng;
                self.counters.add(1, &events, 0);
                Ok(events)
            }
            Err(why) => Err(ChoiceError::NotPossible(why)),
        })
    }
}
