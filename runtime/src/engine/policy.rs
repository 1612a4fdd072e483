//! Automatic players for simulation and benchmarks: they drive a [`Session`] through its
//! public surface only (`choices`, `apply`, `advance`), like a person would.

use rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::board::BoardListing;
use super::system::System;
use super::table::listing::TableListing;
use super::tactics::TacticsListing;
use super::{Choice, Event, Session};

/// Plays at random: half the time it starts or collects a window when it can, otherwise it
/// makes any other choice (a card move, a board, turn or battle action, a campaign path or
/// `EndPhase`) or waits for the next timer or decay. Seeded, so a run replays exactly.
#[derive(Clone, Debug)]
pub struct RandomPolicy {
    rng: Pcg64Mcg,
}

/// What one [`RandomPolicy::step`] did.
#[derive(Clone, Debug, PartialEq)]
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
        if n == 0 { 0 } else { super::core::below(self.rng.next_u64(), n) }
    }

    /// Makes one move.
    pub fn step(&mut self, session: &mut Session) -> Move {
        if session.state().outcome.is_some() {
            return Move::Stuck;
        }
        // The full list (every card tried in every slot) is only worked out when a move is
        // wanted: most steps start, collect or wait.
        let mut acts = session.act_choices();
        let coin = self.below(2) == 0;
        if !acts.is_empty() && coin {
            let choice = acts.swap_remove(self.below(acts.len()));
            return Self::chose(session, choice);
        }
        // Only asked when the act was not taken: it reads every card (and draws nothing).
        let next_due = session.next_due();
        let pick = if coin || next_due.is_none() {
            // The battle's choices are counted, and only the one drawn is built.
            let moves = Listed::of(session);
            let count = moves.len();
            if count == 0 { None } else { moves.nth(self.below(count)) }
        } else {
            None
        };
        if let Some(choice) = pick {
            return Self::chose(session, choice);
        }
        match next_due {
            Some(at) => {
                let ticks = at.saturating_sub(session.state().tick);
                Move::Waited(ticks, session.advance(ticks))
            }
            None if !acts.is_empty() => {
                let choice = acts.swap_remove(self.below(acts.len()));
                Self::chose(session, choice)
            }
            None => Move::Stuck,
        }
    }

    fn chose(session: &mut Session, choice: Choice) -> Move {
        // Only choices the session just listed on this state are applied, so this is never
        // refused and need not be checked again.
        let events = session.apply_listed(&choice).unwrap_or_default();
        Move::Chose(choice, events)
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

/// Every choice of [`Session::choices`] but starts and collects, in its order: each system's
/// part, the battle's, the boards' and the table's counted rather than built (see
/// [`TacticsListing`], [`BoardListing`] and [`TableListing`]).
struct Listed<'s>(Vec<Part<'s>>);

/// One system's choices in a [`Listed`].
enum Part<'s> {
    Tactics(TacticsListing),
    Board(BoardListing<'s>),
    Table(TableListing),
}

impl Part<'_> {
    fn len(&self) -> usize {
        match self {
            Self::Tactics(listing) => listing.len(),
            Self::Board(listing) => listing.len(),
            Self::Table(listing) => listing.len(),
        }
    }

    fn nth(&self, at: usize) -> Option<Choice> {
        match self {
            Self::Tactics(listing) => listing.nth(at),
            Self::Board(listing) => listing.nth(at),
            Self::Table(listing) => listing.nth(at),
        }
    }
}

impl<'s> Listed<'s> {
    fn of(session: &'s Session) -> Self {
        let mut parts = Vec::with_capacity(System::ALL.len());
        for system in System::ALL {
            match system {
                System::Tactics => {
                    parts.extend(session.tactics_listing().map(Part::Tactics));
                    continue;
                }
                // A board offers neither starts nor collects.
                System::Board => {
                    parts.extend(session.board_listing().filter(|listing| !listing.is_empty()).map(Part::Board));
                    continue;
                }
                System::Table => {
                    parts.extend(session.table_listing().map(Part::Table));
                    continue;
                }
                System::Turns | System::Campaign => {}
            }
            let mut choices = Vec::new();
            session.system_choices(system, &mut choices);
            choices.retain(|choice| !matches!(choice, Choice::Start { .. } | Choice::Collect { .. }));
            // A system with no choice adds none: no part to make and drop at every move.
            if !choices.is_empty() {
                parts.push(Part::Tactics(TacticsListing::Built(choices)));
            }
        }
        Self(parts)
    }

    fn len(&self) -> usize {
        self.0.iter().map(Part::len).sum()
    }

    /// The choice numbered `at` across the parts.
    fn nth(&self, mut at: usize) -> Option<Choice> {
        for part in &self.0 {
            let count = part.len();
            if at < count {
                return part.nth(at);
            }
            at = at.saturating_sub(count);
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)] // a test

    use super::*;

    /// The counted listing the random player draws from is [`Session::choices`] without starts
    /// and collects, choice for choice, at every step of random games of the packs that play
    /// the table, a battle and boards.
    #[test]
    fn counted_listing_is_the_listed_choices() {
        for pack in ["lighthouse", "act-demo", "knucklebones", "era-synthesis"] {
            let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../content").join(pack);
            let project = crate::project::load_folder(&root).unwrap().project;
            for seed in 1..=3 {
                let mut session = Session::new(project.clone(), seed).unwrap();
                let mut policy = RandomPolicy::new(seed);
                let mut compared = 0usize;
                for _ in 0..300 {
                    let listed = Listed::of(&session);
                    let counted: Vec<Choice> = (0..listed.len()).map(|at| listed.nth(at).unwrap()).collect();
                    let mut wanted = session.choices();
                    wanted.retain(|choice| !matches!(choice, Choice::Start { .. } | Choice::Collect { .. }));
                    assert_eq!(counted, wanted, "{pack}, seed {seed}, after {compared} moves");
                    assert!(listed.nth(listed.len()).is_none());
                    compared = compared.saturating_add(1);
                    if matches!(policy.step(&mut session), Move::Stuck) {
                        break;
                    }
                }
                assert!(compared > 10, "{pack}, seed {seed}: only {compared} moves");
            }
        }
    }
}
