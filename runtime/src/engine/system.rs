//! The seam between the [`Session`] and its game systems: the table (always there), boards, a
//! battle, turns and a campaign (when the content sets them up). Every per-system step of the
//! session (starting, listing choices, applying one, passing time, hashing, answering a query,
//! describing or refusing a choice, reading a playtest line or an expectation) loops over
//! [`System`]s and dispatches here, so a new system is a new variant whose methods the compiler
//! asks for, not a new branch in each of the session's methods.

use std::hash::{Hash, Hasher};

use super::script::{Line, ScriptReport};
use super::{Choice, ChoiceError, Event, Session};
use crate::formula::TraceOut;

/// A game system a session plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum System {
    /// Acts, slots, cards and decks (`table/`).
    Table,
    /// Dice boards (`board/`).
    Board,
    /// A battle on a tile map (`tactics/`).
    Tactics,
    /// A hand of cards and a rule collection played turn by turn (`turns/`).
    Turns,
    /// A node map walked day by day (`campaign/`).
    Campaign,
}

impl System {
    /// The order of the choices (and of the state in the hash).
    pub(crate) const ALL: [Self; 5] = [Self::Table, Self::Board, Self::Tactics, Self::Turns, Self::Campaign];

    /// The order the systems start in: each draws from the session's generator after the ones
    /// before it (the campaign last, so that the others draw as they did before it existed).
    pub(crate) const START_ORDER: [Self; 5] = [Self::Table, Self::Turns, Self::Board, Self::Tactics, Self::Campaign];

    /// The order time passes in: the battle's scheduler, then the table's timers and decays.
    pub(crate) const TIME_ORDER: [Self; 5] = [Self::Tactics, Self::Table, Self::Board, Self::Turns, Self::Campaign];

    /// The order a query is offered in: a formula that reads campaign names goes to the
    /// campaign, one over stats to the turns, then boards, and the table answers the rest (it
    /// asks the battle for the battle's names).
    pub(crate) const QUERY_ORDER: [Self; 5] = [Self::Campaign, Self::Turns, Self::Board, Self::Tactics, Self::Table];

    /// The order an expectation's first word is offered in (`expect turn 3` is the turns',
    /// `expect turn knight` the battle's, `expect turn p1` the board's).
    pub(crate) const EXPECT_ORDER: [Self; 5] = [Self::Turns, Self::Campaign, Self::Tactics, Self::Table, Self::Board];

    /// The system a choice belongs to.
    pub(crate) fn of(choice: &Choice) -> Self {
        match choice {
            Choice::Slot { .. }
            | Choice::Unslot { .. }
            | Choice::Start { .. }
            | Choice::Collect { .. }
            | Choice::Close { .. }
            | Choice::Flip { .. } => Self::Table,
            Choice::RollDie { .. } | Choice::PlaceOnBoard { .. } | Choice::PlayBoardCard { .. } => Self::Board,
            Choice::MoveUnit { .. }
            | Choice::MoveUnitVia { .. }
            | Choice::UseSkill { .. }
            | Choice::WaitUnit { .. }
            | Choice::FaceUnit { .. }
            | Choice::PickUnit { .. }
            | Choice::EndRound { .. } => Self::Tactics,
            Choice::PlayOption { .. } | Choice::EndTurn => Self::Turns,
            Choice::MoveToNode { .. }
            | Choice::EndPhase
            | Choice::Synthesize { .. }
            | Choice::ChooseNodeOption { .. }
            | Choice::Strike { .. }
            | Choice::Summon { .. }
            | Choice::PlayCard { .. }
            | Choice::DiscardCard { .. }
            | Choice::RemoveCard { .. }
            | Choice::DrawCard
            | Choice::UseDeck { .. }
            | Choice::Bind { .. }
            | Choice::Trigger { .. }
            | Choice::SynthesizeAlone { .. }
            | Choice::SummonExtra { .. }
            | Choice::Raid { .. } => Self::Campaign,
        }
    }

    /// Whether the system's choices stop once the game has an outcome (a battle plays on).
    pub(crate) fn ends_with_the_game(self) -> bool {
        self != Self::Tactics
    }
}

impl Session {
    /// Starts `system` when the content sets it up; returns the requirements it evaluated.
    pub(crate) fn start_system(&mut self, system: System, events: &mut Vec<Event>) -> u64 {
        match system {
            System::Table => return self.start_table(events),
            System::Board => self.start_board(),
            System::Tactics => self.start_tactics(events),
            System::Turns => self.start_turns(events),
            System::Campaign => self.start_campaign(events),
        }
        0
    }

    /// Hashes `system`'s state.
    pub(crate) fn hash_system<H: Hasher>(&self, system: System, hasher: &mut H) {
        match system {
            System::Table => self.state.hash(hasher),
            System::Board => self.board.as_ref().map(|board| &board.game).hash(hasher),
            System::Tactics => self.tactics.hash(hasher),
            System::Turns => self.turns.hash(hasher),
            System::Campaign => self.campaign.hash(hasher),
        }
    }

    /// Adds `system`'s choices now to `choices`.
    pub(crate) fn system_choices(&self, system: System, choices: &mut Vec<Choice>) {
        match system {
            System::Table => self.table_choices(choices),
            System::Board => self.board_choices(choices),
            System::Tactics => self.tactics_choices(choices),
            System::Turns => self.turn_choices(choices),
            System::Campaign => self.campaign_choices(choices),
        }
    }

    /// Applies a choice of `system` (`check`: the table and boards list their choices again to check it).
    pub(crate) fn apply_in(&mut self, system: System, choice: &Choice, check: bool) -> Result<Vec<Event>, ChoiceError> {
        match system {
            System::Table => self.apply_table(choice, check),
            System::Board => self.apply_board(choice, check),
            System::Tactics => self.apply_tactics(choice),
            System::Turns => self.apply_turn(choice),
            System::Campaign => self.apply_campaign(choice),
        }
    }

    /// Lets `ticks` of time pass in `system`.
    pub(crate) fn pass_time_in(&mut self, system: System, ticks: u64, events: &mut Vec<Event>) {
        match system {
            System::Table => self.advance_table(ticks, events),
            System::Tactics => self.advance_tactics(ticks, events),
            System::Board | System::Turns | System::Campaign => {}
        }
    }

    /// `system`'s value of a formula; none when the formula is not for it.
    pub(crate) fn query_in(&self, system: System, formula: &str, out: TraceOut<'_>) -> Option<Result<f64, String>> {
        match system {
            System::Table => Some(self.table_query_traced(formula, out)),
            System::Board => self.board.is_some().then(|| self.board_query_traced(formula, out)),
            System::Tactics => None,
            System::Turns => self.turn_query(formula, out),
            System::Campaign => self.campaign_query(formula, out),
        }
    }

    /// A choice of `system` as the script line that makes it.
    pub(crate) fn describe_in(&self, system: System, choice: &Choice) -> String {
        match system {
            System::Table => self.describe_table_choice(choice),
            System::Board => self.describe_board_choice(choice),
            System::Tactics => Self::describe_tactics_choice(choice),
            System::Turns => self.describe_turn_choice(choice),
            System::Campaign => Self::describe_campaign_choice(choice),
        }
    }

    /// Why `system` refuses a choice.
    pub(crate) fn why_not_in(&self, system: System, choice: &Choice) -> String {
        match system {
            System::Table => Self::why_not_table(choice).to_owned(),
            System::Board => self.board_why_not(choice).to_owned(),
            System::Tactics => self.why_not_tactics(choice),
            System::Turns => self.why_not_turn(choice).to_owned(),
            System::Campaign => self.why_not_campaign(choice),
        }
    }

    /// `system`'s reading of a playtest line; none when the command is not one of its own.
    pub(crate) fn command_in(
        &mut self,
        system: System,
        command: &str,
        rest: &str,
        report: &mut ScriptReport,
    ) -> Option<Result<Line, String>> {
        match system {
            System::Table => self.table_command(command, rest, report),
            System::Board => self.board_command(command, rest, report),
            System::Tactics => self.tactics_command(command, rest, report),
            System::Turns => self.turns_command(command, rest),
            System::Campaign => self.campaign_command(command, rest),
        }
    }

    /// `system`'s reading of an expectation; none when its word is not one of its own.
    pub(crate) fn expect_in(&self, system: System, what: &str, args: &str) -> Option<Result<String, String>> {
        match system {
            System::Table => self.expect_table(what, args),
            System::Board => self.board_expect(what, args),
            System::Tactics => self.expect_tactics(what, args),
            System::Turns => self.expect_turn(what, args),
            System::Campaign => self.expect_campaign(what, args),
        }
    }
}
