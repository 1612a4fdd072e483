//! Automatic players for simulation and benchmarks: they drive a [`Session`] through its
//! public surface only (`choices`, `apply`, `advance`), like a person would.

use rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{Choice, Event, Session};

/// Plays at random: half the time it starts or collects a window when it can, otherwise it
/// makes any other choice (a card move, a board, turn or battle action, a campaign path or
/// `EndPhase`) or waits for the next timer or decay. Seeded, so a run replays exactly.
#[derive(Clone, Debug)]
pub struct RandomPolicy {
    rng: Pcg64Mcg,
}

/// What one [`RandomPolicy::step`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// Applied a choice.
    Chose(Choice, Vec<Event>),
    /// Let time pass to the next timer or decay.
    Waited(u64, Vec<Event>),
    /// Nothing can happen any more: the game ended, or there is no choice and no timer.
    Stuck,
}

impl RandomPolicy {
    /// A player whose own draws come from `seed` (independent of the session's generator).
    pub fn new(seed: u64) -> Self {
        Self { rng: Pcg64Mcg::seed_from_u64(seed) }
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.rng.next_u64() % n as u64) as usize }
    }

    /// Makes one move.
    pub fn step(&mut self, session: &mut Session) -> Move {
        if session.state().outcome.is_some() {
            return Move::Stuck;
        }
        let choices = session.choices();
        let (acts, moves): (Vec<&Choice>, Vec<&Choice>) =
            choices.iter().partition(|choice| matches!(choice, Choice::Start { .. } | Choice::Collect { .. }));
        let coin = self.below(2) == 0;
        let pick = if !acts.is_empty() && coin {
            acts.get(self.below(acts.len()))
        } else if !moves.is_empty() && (coin || session.next_due().is_none()) {
            moves.get(self.below(moves.len()))
        } else {
            None
        };
        if let Some(choice) = pick {
            // Only choices from `choices()` are applied, so this is never refused.
            let events = session.apply(choice).unwrap_or_default();
            return Move::Chose((*choice).clone(), events);
        }
        match session.next_due() {
            Some(at) => {
                let ticks = at.saturating_sub(session.state().tick);
                Move::Waited(ticks, session.advance(ticks))
            }
            None if !acts.is_empty() => {
                let choice = acts.get(self.below(acts.len())).map(|choice| (*choice).clone());
                choice.map_or(Move::Stuck, |choice| {
                    let events = session.apply(&choice).unwrap_or_default();
                    Move::Chose(choice, events)
                })
            }
            None => Move::Stuck,
        }
    }

    /// Plays up to `moves` moves; stops early when stuck. Returns the moves made.
    pub fn play(&mut self, session: &mut Session, moves: usize) -> usize {
        for made in 0..moves {
            if matches!(self.step(session), Move::Stuck) {
                return made;
            }
        }
        moves
    }
}
