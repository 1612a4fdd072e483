//! Board play's part of the [`Session`]: its state, choices, steps and queries.

use std::sync::Arc;

use crate::formula::names::GameName;
use crate::formula::{FormulaSet, ProjectNames, TraceOut, lookup_text};
use crate::model::{Board, BoardTiming, CardId, Id};

use super::compile::{Read, SessionSetup, read_of};
use super::step::{BoardFocus, Run};
use super::{BoardGame, BoardState};
use crate::engine::{Choice, Event, Outcome, Session};

thread_local! {
    /// The game copy the last board listing on this thread evaluated card conditions on, kept
    /// for its buffers. What it holds is overwritten before every use, so no game reads
    /// another's.
    static SCRATCH: std::cell::Cell<Option<BoardGame>> = const { std::cell::Cell::new(None) };
}

impl Session {
    /// Board play, if the content has it.
    pub fn board(&self) -> Option<&BoardState> {
        self.board.as_ref()
    }

    /// Sets up board play when the entry boards include one with a die.
    pub(crate) fn start_board(&mut self) {
        self.board = BoardState::start(&self.content, &mut self.rng);
    }

    /// The board choices of the moment, after the table's.
    pub(crate) fn board_choices(&self, choices: &mut Vec<Choice>) {
        if let Some(listing) = self.board_listing() {
            choices.extend((0..listing.len()).filter_map(|at| listing.nth(at)));
        }
    }

    /// The board choices of the moment counted, in [`Self::board_choices`]' order, with only
    /// what tells them apart kept (the policy builds just the one it draws); none when board
    /// play offers none.
    pub(crate) fn board_listing(&self) -> Option<BoardListing<'_>> {
        let state = self.board.as_ref()?;
        let game = &state.game;
        if game.outcome.is_some() || self.state.outcome.is_some() {
            return None;
        }
        let side = game.sides.get(game.active)?;
        let places = if game.die.is_some() {
            (1..=side.columns).filter(|column| side.first_free(*column).is_some()).count()
        } else {
            1
        };
        let mut listing = BoardListing { side, rolled: game.die.is_some(), places, plays: Vec::new() };
        // Listing card targets evaluates conditions on a copy of the game: only when a card can be played.
        let now = if game.die.is_some() { BoardTiming::AfterRoll } else { BoardTiming::BeforeRoll };
        let timely = |card: &CardId| state.setup.plays.get(card).is_some_and(|play| play.timing == now);
        if game.card_played || !side.hand.iter().any(timely) {
            return Some(listing);
        }
        // Room for a pair card's plays on a full 3x3 board and more at once: growing from
        // empty took four reallocations.
        listing.plays.reserve(64);
        // The copy goes into the buffers of the thread's last listing: no allocation.
        let mut scratch = SCRATCH.take().unwrap_or_else(BoardGame::empty);
        scratch.copy_for_formulas(game);
        let mut run = Run {
            setup: Arc::clone(&state.setup),
            reads: None,
            game: scratch,
            rng: self.rng.clone(),
            focus: BoardFocus { own: game.active, ..BoardFocus::default() },
            depth: 0,
            events: Vec::new(),
            end_turn: false,
            placing: 0,
            loaded: None,
        };
        for (at, card) in side.hand.iter().enumerate() {
            if side.hand.get(..at).is_some_and(|before| before.contains(card)) {
                continue;
            }
            run.play_choices(card, |option, target, second| listing.plays.push(Play { at, option, target, second }));
        }
        SCRATCH.set(Some(run.game));
        Some(listing)
    }

    /// A run over a copy of what formulas read of the board game (for listing choices and
    /// queries: they evaluate formulas, never rules).
    pub(super) fn board_run(&self) -> Run {
        let (setup, game) = match &self.board {
            Some(state) => (Arc::clone(&state.setup), state.game.for_formulas()),
            None => (Arc::new(SessionSetup::empty()), BoardGame::empty()),
        };
        let own = game.active;
        Run {
            setup,
            reads: None,
            game,
            rng: self.rng.clone(),
            focus: BoardFocus { own, ..BoardFocus::default() },
            depth: 0,
            events: Vec::new(),
            end_turn: false,
            placing: 0,
            loaded: None,
        }
    }

    /// Does a board choice; refused unless it is possible now. `check`: a card play is looked
    /// for among the choices listed again (without it, the caller just listed it on this state).
    pub(crate) fn apply_board(
        &mut self,
        choice: &Choice,
        check: bool,
    ) -> Result<Vec<Event>, crate::engine::ChoiceError> {
        self.apply_board_in(choice, None, check)
    }

    /// [`Self::apply_board`]; a roll shows `loaded` when given (a playtest's `roll V`).
    pub(crate) fn apply_board_loaded(
        &mut self,
        choice: &Choice,
        loaded: Option<i64>,
    ) -> Result<Vec<Event>, crate::engine::ChoiceError> {
        self.apply_board_in(choice, loaded, true)
    }

    fn apply_board_in(
        &mut self,
        choice: &Choice,
        loaded: Option<i64>,
        check: bool,
    ) -> Result<Vec<Event>, crate::engine::ChoiceError> {
        let game = self.board.as_ref().map(|state| &state.game).filter(|game| game.outcome.is_none());
        let active = game.and_then(|game| game.sides.get(game.active).map(|side| (game, side)));
        // Rolls and placements are checked directly: they are most steps of a simulation.
        let possible = match choice {
            Choice::RollDie { board } => active.is_some_and(|(game, side)| side.board == *board && game.die.is_none()),
            Choice::PlaceOnBoard { board, column } => active.is_some_and(|(game, side)| {
                side.board == *board && game.die.is_some() && side.first_free(*column).is_some()
            }),
            // Listing card plays evaluates every target's condition on a copy of the game: a
            // choice just listed is not listed again.
            Choice::PlayBoardCard { board, .. } if !check => {
                active.is_some_and(|(game, side)| side.board == *board && !game.card_played)
            }
            Choice::PlayBoardCard { .. } => {
                let mut choices = Vec::new();
                self.board_choices(&mut choices);
                choices.contains(choice)
            }
            _ => false,
        };
        let Some(state) = self.board.as_mut().filter(|_| possible) else {
            return Err(crate::engine::ChoiceError::NotPossible(format!("{choice:?}")));
        };
        let own = state.game.active;
        let mut run = Run {
            setup: Arc::clone(&state.setup),
            reads: None,
            game: std::mem::replace(&mut state.game, BoardGame::empty()),
            rng: self.rng.clone(),
            focus: BoardFocus { own, ..BoardFocus::default() },
            depth: 0,
            events: Vec::with_capacity(8),
            end_turn: false,
            placing: 0,
            loaded,
        };
        match choice {
            Choice::RollDie { .. } => run.roll(&self.content),
            Choice::PlaceOnBoard { column, .. } => run.place(&self.content, *column),
            Choice::PlayBoardCard { card, option, target, second, .. } => {
                run.play(&self.content, card, *option, *target, *second);
            }
            _ => {}
        }
        let Run { game, rng, events, .. } = run;
        if let Some(outcome) = &game.outcome {
            let text = events
                .iter()
                .rev()
                .find_map(|event| match event {
                    Event::BoardGameEnded { outcome, .. } => Some(outcome.clone()),
                    _ => None,
                })
                .unwrap_or_else(|| {
                    outcome.winner.as_ref().map_or_else(|| "draw".to_owned(), |id| format!("{id} wins"))
                });
            self.state.outcome = Some(Outcome::Ended(text));
        }
        state.game = game;
        self.rng = rng;
        self.counters.steps = self.counters.steps.saturating_add(1);
        Ok(events)
    }
}

impl Session {
    /// The value of a formula in board play: board names read the boards (the active side is
    /// `board.own`), other names the table.
    pub(crate) fn board_query(&self, formula: &str) -> Result<f64, String> {
        self.board_query_traced(formula, None)
    }

    /// [`Self::board_query`], traced into `out` when given.
    /// Each side's `board.ID.score` (the first side with that board, as the name reads), in
    /// side order, without compiling a query: what a simulated run ends with.
    pub fn board_scores(&self) -> Vec<(Id<Board>, f64)> {
        let Some(state) = &self.board else { return Vec::new() };
        let mut run = self.board_run();
        let sides = &state.game.sides;
        sides
            .iter()
            .map(|side| {
                let first = sides.iter().position(|other| other.board == side.board).unwrap_or_default();
                (side.board.clone(), run.score(first))
            })
            .collect()
    }

    pub(crate) fn board_query_traced(&self, formula: &str, out: TraceOut<'_>) -> Result<f64, String> {
        let Some(state) = &self.board else { return Err("no board play".to_owned()) };
        let content = &self.content;
        let mut set: FormulaSet = content.formulas().clone();
        let compiled =
            set.compile(formula, &ProjectNames::new(&content.project)).map_err(|error| error.render(formula))?;
        let ids: Vec<Id<Board>> = state.game.sides.iter().map(|side| side.board.clone()).collect();
        // The query's set extends the session's: the session's programs (scores) read the same
        // slots, and the query's own lookups follow them.
        let mut reads = Vec::new();
        for lookup in set.lookups() {
            let read = read_of(lookup, &content.project, &ids, &state.setup.var_names());
            let is_stat = |word: &str| content.project.stats.get(word).is_some();
            let board_name = matches!(GameName::parse(&lookup.name, is_stat), GameName::Board(_));
            let read = if read == Read::Missing && !board_name {
                Read::Fixed(self.table_query(&lookup_text(lookup)).unwrap_or(f64::NAN))
            } else {
                read
            };
            reads.push(read);
        }
        let mut run = self.board_run();
        run.reads = Some(reads);
        Ok(set.eval_or_trace(&compiled, formula, &mut run, out))
    }
}

/// A card play of a [`BoardListing`]: the card's place in the hand, the option and targets.
#[derive(Clone, Copy, Debug)]
struct Play {
    at: usize,
    option: u32,
    target: Option<(u32, u32)>,
    second: Option<(u32, u32)>,
}

/// Board play's choices of the moment, counted: the roll or the columns with room (read from
/// the side when one is drawn), then the card plays in hand order.
#[derive(Debug)]
pub(crate) struct BoardListing<'s> {
    side: &'s super::BoardSideState,
    /// The die is rolled: placements are listed, else the roll.
    rolled: bool,
    /// How many placements (or 1: the roll) come first.
    places: usize,
    plays: Vec<Play>,
}

impl BoardListing<'_> {
    /// How many choices there are.
    pub(crate) fn len(&self) -> usize {
        self.places.saturating_add(self.plays.len())
    }

    /// There is no choice.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The choice numbered `at`, built.
    pub(crate) fn nth(&self, at: usize) -> Option<Choice> {
        let board = self.side.board.clone();
        if at < self.places {
            if !self.rolled {
                return Some(Choice::RollDie { board });
            }
            let column = (1..=self.side.columns).filter(|column| self.side.first_free(*column).is_some()).nth(at)?;
            return Some(Choice::PlaceOnBoard { board, column });
        }
        let play = self.plays.get(at.saturating_sub(self.places))?;
        let card = self.side.hand.get(play.at)?.clone();
        Some(Choice::PlayBoardCard { board, card, option: play.option, target: play.target, second: play.second })
    }
}

/// What one side of board play sees (FORMAT.md §11): the game with the side's secrets (its
/// board's `secret` variables, set by others) at their start values and, while its die is
/// hidden, no value on the die.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BoardView {
    /// The side that looks.
    pub board: Id<Board>,
    /// The game as that side sees it.
    pub game: BoardGame,
    /// The die in hand is hidden from that side (`game.die` shows value 0).
    pub die_hidden: bool,
}

impl Session {
    /// What board `board`'s side sees of board play; none without board play or that side.
    pub fn view(&self, board: &str) -> Option<BoardView> {
        let state = self.board.as_ref()?;
        let (at, _) = state.side(board)?;
        let mut game = state.game.clone();
        mask_secrets(&self.content.project, state, at, &mut game);
        let die_hidden = game.die_hidden && game.active == at;
        if die_hidden && let Some(die) = game.die.as_mut() {
            die.value = 0;
        }
        game.die_hidden = die_hidden;
        Some(BoardView { board: Id::new(board), game, die_hidden })
    }

    /// The games board `board`'s side cannot tell apart from this one, for a policy that plays
    /// fair: its secrets at their start values, a generator it cannot predict and, while its die
    /// is hidden, one game per value the die could show. Just this game without board play.
    pub fn seen_by(&self, board: &str) -> Vec<Session> {
        let Some(state) = self.board.as_ref() else { return vec![self.clone()] };
        let Some((at, _)) = state.side(board) else { return vec![self.clone()] };
        let mut seen = self.clone();
        // Derived from the game's generator, so the same game gives the same guesses.
        let salt = rand_core::Rng::next_u64(&mut self.rng.clone()) ^ 0x5EE_5EE5;
        seen.rng = <rand_pcg::Pcg64Mcg as rand_core::SeedableRng>::seed_from_u64(salt);
        let faces = state.setup.sides.get(at).map_or(1, |code| code.faces);
        if let Some(seen_state) = seen.board.as_mut() {
            mask_secrets(&self.content.project, state, at, &mut seen_state.game);
        }
        let hidden = state.game.die_hidden && state.game.active == at && state.game.die.is_some();
        if !hidden {
            return vec![seen];
        }
        (1..=faces)
            .map(|value| {
                let mut world = seen.clone();
                if let Some(die) = world.board.as_mut().and_then(|state| state.game.die.as_mut()) {
                    die.value = value;
                }
                world
            })
            .collect()
    }
}

/// Side `at`'s secret variables in `game` back at their start values.
fn mask_secrets(project: &crate::model::Project, state: &BoardState, at: usize, game: &mut BoardGame) {
    let Some(side) = game.sides.get_mut(at) else { return };
    let Some(board) = project.boards.get(side.board.as_str()) else { return };
    for name in &board.secret {
        if let (Some(var), Some(start)) = (state.setup.var_names.iter().position(|n| n == name), board.vars.get(name))
            && let Some(slot) = side.vars.get_mut(var)
        {
            *slot = *start;
        }
        let per_column = state.setup.column_var_names.len();
        if let (Some(var), Some(start)) =
            (state.setup.column_var_names.iter().position(|n| n == name), board.column_vars.get(name))
        {
            side.column_vars.iter_mut().skip(var).step_by(per_column.max(1)).for_each(|slot| *slot = *start);
        }
        let per_cell = state.setup.cell_var_names.len();
        if let (Some(var), Some(start)) =
            (state.setup.cell_var_names.iter().position(|n| n == name), board.cell_vars.get(name))
        {
            side.cell_vars.iter_mut().skip(var).step_by(per_cell.max(1)).for_each(|slot| *slot = *start);
        }
    }
}
