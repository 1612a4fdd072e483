//! What listing a battle's choices works out, kept for applying the choice made.
//!
//! Listing the active unit's choices searches where each of its move skills reaches and where
//! each action skill can aim; applying a move or a skill then needs the same answers (the end
//! is checked, the route walked, the target checked). A [`TacticsMemo`] keeps each answer
//! with the generator's state before and after working it out (region formulas may draw), so
//! an answer is reused only where working it out again would start from the very same
//! generator state, and the generator then ends where it would have: the game is the same to
//! the bit. The session empties the memo whenever the battle may change
//! ([`crate::engine::Session`]'s `battle_mut`), so an answer never outlives the state it was
//! worked out on. Not part of the state: a copied session starts with an empty memo.

use std::sync::{Arc, Mutex, PoisonError};

use rand_pcg::Pcg64Mcg;

use super::regions::Routes;
use crate::map::{Spot, SpotMap, SpotSet};
use crate::model::{Id, Skill};

/// Most answers kept at once (a listing keeps a handful; the bound is a guard).
const MOST_KEPT: usize = 64;

/// Which question an answer is to.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Question {
    /// Where a unit can move now, with the number of the move skill that gets there.
    Reach(String),
    /// A move skill's routes (the unit, the skill's number, where it sets out from, the radius
    /// already spent, as bits).
    Routes(String, usize, Spot, u64),
    /// Where a unit can aim an action skill now.
    Targets(String, Id<Skill>),
}

/// An answer.
#[derive(Clone, Debug)]
pub(super) enum Answer {
    /// See [`Question::Reach`].
    Reach(Arc<SpotMap<usize>>),
    /// See [`Question::Routes`].
    Routes(Arc<Routes>),
    /// See [`Question::Targets`].
    Targets(Arc<SpotSet>),
}

/// A kept answer with the generator states around working it out.
struct Kept {
    question: Question,
    before: Pcg64Mcg,
    after: Pcg64Mcg,
    answer: Answer,
}

/// Answers kept for one state of the battle (see the module).
#[derive(Default)]
pub(crate) struct TacticsMemo(Mutex<Vec<Kept>>);

impl Clone for TacticsMemo {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for TacticsMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TacticsMemo")
    }
}

impl TacticsMemo {
    /// Forgets every answer: the battle is about to change.
    pub(crate) fn clear(&mut self) {
        self.0.get_mut().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// The answer to `question` worked out from the generator state `rng` is now, moving `rng`
    /// on as working it out did; or it is worked out now by `work` and kept.
    pub(super) fn answer(
        &self,
        question: Question,
        rng: &mut Pcg64Mcg,
        work: impl FnOnce(&mut Pcg64Mcg) -> Answer,
    ) -> Answer {
        {
            let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(found) = kept.iter().find(|kept| kept.before == *rng && kept.question == question) {
                rng.clone_from(&found.after);
                return found.answer.clone();
            }
        }
        let before = rng.clone();
        let answer = work(rng);
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MOST_KEPT {
            kept.clear();
        }
        kept.push(Kept { question, before, after: rng.clone(), answer: answer.clone() });
        answer
    }
}
