//! Boards (FORMAT.md §11): grids of dice cells with coordinates, boards facing each other
//! column by column, and sides taking turns: roll the side's die, play a card from the hand,
//! place the die in a column. What a placement or a card does is content: board rules whose
//! conditions are formulas over cells, lines and variables, and whose board modifiers destroy,
//! take or swap dice, set variables and end the game.
//!
//! A step moves the game state into a `Run` (no copy: `mem::take`), which is at once the
//! formula environment and the place modifiers act on, then moves it back; its rules go through
//! the rules core (`rules.rs`). Every formula board play evaluates is built once into a program
//! when the session starts, so a step neither parses nor compiles a formula.

mod compile;
mod env;
mod rules;
mod script;
mod session;
mod step;

use std::fmt::Write as _;
use std::sync::Arc;

use serde::Serialize;

use compile::SessionSetup;
pub(in crate::engine) use compile::Setup;
pub(crate) use session::BoardListing;
pub use session::BoardView;

use crate::formula::names::{BoardLine, BoardStat};
use crate::model::{Board, CardId, Id};

/// Deepest nesting of scores read inside scores (rules nest as the rules core allows).
const MAX_DEPTH: u32 = 32;

/// A die on a board or in hand: its card type and the value it shows.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Die {
    /// The die's card type.
    pub card: CardId,
    /// The rolled value.
    pub value: i64,
}

/// One side of a board game: its board's cells, variables and hand.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct BoardSideState {
    /// The board.
    pub board: Id<Board>,
    /// Columns and rows of the board.
    pub columns: u32,
    /// Rows of the board.
    pub rows: u32,
    /// Cells column by column: cell (c, r) from 1 is at `(c - 1) * rows + (r - 1)`.
    pub cells: Vec<Option<Die>>,
    /// Board variables, in the order of [`BoardState::var_names`].
    pub vars: Vec<i64>,
    /// Column variables: column c's variable v at `(c - 1) * count + v`.
    pub column_vars: Vec<i64>,
    /// Cell variables: the variable v of the cell at cells' index i at `i * count + v`.
    pub cell_vars: Vec<i64>,
    /// Cards the side can still play.
    pub hand: Vec<CardId>,
}

impl BoardSideState {
    pub(super) fn index(&self, column: u32, row: u32) -> Option<usize> {
        (column >= 1 && row >= 1 && column <= self.columns && row <= self.rows).then(|| {
            (column.saturating_sub(1) as usize)
                .saturating_mul(self.rows as usize)
                .saturating_add(row.saturating_sub(1) as usize)
        })
    }

    /// The die at column `column`, row `row` (from 1).
    pub fn cell(&self, column: u32, row: u32) -> Option<&Die> {
        self.index(column, row).and_then(|at| self.cells.get(at)).and_then(Option::as_ref)
    }

    pub(super) fn first_free(&self, column: u32) -> Option<u32> {
        (1..=self.rows).find(|row| self.index(column, *row).is_some_and(|at| matches!(self.cells.get(at), Some(None))))
    }

    pub(super) fn take(&mut self, column: u32, row: u32) -> Option<Die> {
        let at = self.index(column, row)?;
        self.cells.get_mut(at).and_then(Option::take)
    }

    pub(super) fn put(&mut self, column: u32, row: u32, die: Option<Die>) {
        if let Some(cell) = self.index(column, row).and_then(|at| self.cells.get_mut(at)) {
            *cell = die;
        }
    }

    /// Dice slide towards row 1, keeping their order.
    pub(super) fn compact(&mut self, column: u32) {
        let start = (column.saturating_sub(1) as usize).saturating_mul(self.rows as usize);
        let Some(cells) = self.cells.get_mut(start..start.saturating_add(self.rows as usize)) else { return };
        let mut to = 0;
        for from in 0..cells.len() {
            if cells.get(from).is_some_and(Option::is_some) {
                cells.swap(to, from);
                to = to.saturating_add(1);
            }
        }
    }

    /// The cell of a line's k-th place (from 1) and the line's length.
    pub(super) fn line_cell(&self, line: BoardLine, k: u32) -> (u32, u32) {
        match line {
            BoardLine::Column(c) => (c, k),
            BoardLine::Row(r) => (k, r),
            BoardLine::Diagonal(1) => (k, k),
            BoardLine::Diagonal(_) => (k, self.columns.min(self.rows).saturating_add(1).saturating_sub(k)),
        }
    }

    pub(super) fn line_len(&self, line: BoardLine) -> u32 {
        match line {
            BoardLine::Column(_) => self.rows,
            BoardLine::Row(_) => self.columns,
            BoardLine::Diagonal(_) => self.columns.min(self.rows),
        }
    }

    /// A statistic over a line, or over the whole board.
    pub(super) fn stat(&self, line: Option<BoardLine>, stat: BoardStat) -> f64 {
        match line {
            // A column's cells lie together: read as a slice, not cell by cell through their
            // coordinates (columns are most of the lines formulas read).
            Some(BoardLine::Column(c)) if c >= 1 && c <= self.columns => {
                let start = (c.saturating_sub(1) as usize).saturating_mul(self.rows as usize);
                let cells = self.cells.get(start..start.saturating_add(self.rows as usize)).unwrap_or_default();
                stat_of_cells(cells, stat)
            }
            // A row or diagonal: its values gathered once on the stack (a score or an equality
            // reads them several times), then read as a slice.
            Some(line) if self.line_len(line) as usize <= MAX_GATHERED => {
                let mut values = [None; MAX_GATHERED];
                for (k, value) in (1..=self.line_len(line)).zip(values.iter_mut()) {
                    let (c, r) = self.line_cell(line, k);
                    *value = self.cell(c, r).map(|die| die.value);
                }
                let held = values.get(..self.line_len(line) as usize).unwrap_or_default();
                stat_of_slice(held, |value| *value, stat)
            }
            Some(line) => stat_of(
                (1..=self.line_len(line)).map(|k| {
                    let (c, r) = self.line_cell(line, k);
                    self.cell(c, r).map(|die| die.value)
                }),
                stat,
            ),
            None => stat_of_cells(&self.cells, stat),
        }
    }
}

/// Longest row or diagonal whose values [`BoardSideState::stat`] gathers on the stack.
const MAX_GATHERED: usize = 16;

/// [`stat_of`] over cells lying together (a column, the whole board). The counts most reads
/// ask for are plain loops here, inlined into the read (a call and a jump on the statistic
/// cost more than counting three cells).
#[inline]
fn stat_of_cells(cells: &[Option<Die>], stat: BoardStat) -> f64 {
    let value = match stat {
        BoardStat::Count(value) => {
            let mut count = 0u32;
            for cell in cells {
                count = count.saturating_add(u32::from(cell.as_ref().is_some_and(|die| die.value == value)));
            }
            count
        }
        BoardStat::Free => {
            let mut count = 0u32;
            for cell in cells {
                count = count.saturating_add(u32::from(cell.is_none()));
            }
            count
        }
        stat => return stat_of_slice(cells, |cell| cell.as_ref().map(|die| die.value), stat),
    };
    f64::from(value)
}

/// [`stat_of`] over a slice of cells, `held` giving a cell's value: plain loops over the
/// slice, a few instructions a cell where `stat_of`'s flattened iterators take several times
/// that (most formula reads of a game are line statistics).
fn stat_of_slice<T>(cells: &[T], held: impl Fn(&T) -> Option<i64>, stat: BoardStat) -> f64 {
    let value = match stat {
        BoardStat::Filled => cells.iter().filter(|cell| held(cell).is_some()).count() as i64,
        BoardStat::Free => cells.iter().filter(|cell| held(cell).is_none()).count() as i64,
        BoardStat::Total => cells.iter().filter_map(&held).sum(),
        // x held n times scores x·n·n: each of the n dice adds x·n.
        BoardStat::Score => cells
            .iter()
            .filter_map(&held)
            .map(|x| x.saturating_mul(cells.iter().filter(|cell| held(cell) == Some(x)).count() as i64))
            .fold(0, i64::saturating_add),
        BoardStat::Equal => {
            let first = cells.first().and_then(&held);
            i64::from(first.is_some() && cells.iter().all(|cell| held(cell) == first))
        }
        BoardStat::Count(value) => cells.iter().filter(|cell| held(cell) == Some(value)).count() as i64,
    };
    value as f64
}

/// A statistic over cells (`None` for an empty cell), without allocating.
fn stat_of(cells: impl Iterator<Item = Option<i64>> + Clone, stat: BoardStat) -> f64 {
    let held = cells.clone().flatten();
    let value = match stat {
        BoardStat::Filled => held.count() as i64,
        BoardStat::Free => cells.filter(Option::is_none).count() as i64,
        BoardStat::Total => held.sum(),
        // x held n times scores x·n·n: each of the n dice adds x·n.
        BoardStat::Score => held
            .map(|x| x.saturating_mul(cells.clone().flatten().filter(|y| *y == x).count() as i64))
            .fold(0, i64::saturating_add),
        BoardStat::Equal => {
            let first = cells.clone().next().flatten();
            i64::from(first.is_some() && cells.clone().all(|cell| cell == first))
        }
        BoardStat::Count(value) => held.filter(|x| *x == value).count() as i64,
    };
    value as f64
}

/// How a board game ended.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct BoardOutcome {
    /// The winning board; none: a draw.
    pub winner: Option<Id<Board>>,
    /// Won at once by a `Win` modifier (Knucklebones' Exodia), not by score.
    pub instant: bool,
}

/// The state of board play: the sides, whose turn it is, the die rolled.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct BoardGame {
    /// The sides, in `entry.boards` order.
    pub sides: Vec<BoardSideState>,
    /// The side whose turn it is.
    pub active: usize,
    /// The die rolled this turn, not yet placed.
    pub die: Option<Die>,
    /// Turns begun, from 1.
    pub turn: u32,
    /// A card was played this turn (one per turn).
    pub card_played: bool,
    /// Dice the side still places this turn after the die in hand (`ExtraDie`), in order.
    pub pending: Vec<Die>,
    /// The side to play does not see the die it rolled (its board's `hide_roll`).
    pub die_hidden: bool,
    /// Set when the game has ended.
    pub outcome: Option<BoardOutcome>,
}

/// Board play of a session: the game and what the content compiled into.
#[derive(Clone, Debug)]
pub struct BoardState {
    setup: Arc<SessionSetup>,
    /// The game.
    pub game: BoardGame,
}

impl BoardState {
    /// Names of the board variables, in the order of [`BoardSideState::vars`].
    pub fn var_names(&self) -> &[String] {
        &self.setup.var_names
    }

    /// Names of the column variables, in the order within a column of [`BoardSideState::column_vars`].
    pub fn column_var_names(&self) -> &[String] {
        &self.setup.column_var_names
    }

    /// Names of the cell variables, in the order within a cell of [`BoardSideState::cell_vars`].
    pub fn cell_var_names(&self) -> &[String] {
        &self.setup.cell_var_names
    }

    /// The value of cell variable `name` at column `column`, row `row` (from 1) of a side.
    pub fn cell_var(&self, side: &BoardSideState, column: u32, row: u32, name: &str) -> Option<i64> {
        let count = self.setup.cell_var_names.len();
        let var = self.setup.cell_var_names.iter().position(|known| known == name)?;
        let at = side.index(column, row)?.saturating_mul(count).saturating_add(var);
        side.cell_vars.get(at).copied()
    }

    /// The side of board `id`.
    pub fn side(&self, id: &str) -> Option<(usize, &BoardSideState)> {
        self.game.sides.iter().enumerate().find(|(_, side)| side.board.as_str() == id)
    }
}

/// Writes the boards in words, one line per row, for logs and the CLI; a die hidden from the
/// side to play shows as `hidden` unless `show_hidden`.
pub fn describe_boards(state: &BoardState, show_hidden: bool) -> String {
    let mut out = String::new();
    let game = &state.game;
    for (at, side) in game.sides.iter().enumerate() {
        let active = if at == game.active && game.outcome.is_none() { " (to play)" } else { "" };
        let _ = writeln!(
            out,
            "  board {}{active}: hand [{}]",
            side.board,
            side.hand.iter().map(Id::as_str).collect::<Vec<_>>().join(" ")
        );
        for row in 1..=side.rows {
            let cells: Vec<String> = (1..=side.columns)
                .map(|c| side.cell(c, row).map_or_else(|| ".".to_owned(), |die| die.value.to_string()))
                .collect();
            let _ = writeln!(out, "    row {row}: {}", cells.join(" "));
        }
    }
    if let Some(die) = &game.die {
        let value = match (game.die_hidden, show_hidden) {
            (false, _) => die.value.to_string(),
            (true, false) => "hidden".to_owned(),
            (true, true) => format!("{} (hidden from its side)", die.value),
        };
        let _ = writeln!(out, "  die: {value}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{BoardStat, Die, stat_of, stat_of_cells};
    use crate::model::Id;

    /// Every statistic over a slice of cells is what the general reading gives, for every
    /// column of up to four cells holding values 1 to 3 or nothing.
    #[test]
    fn slice_statistics_match_the_general_ones() {
        let stats = [
            BoardStat::Filled,
            BoardStat::Free,
            BoardStat::Total,
            BoardStat::Score,
            BoardStat::Equal,
            BoardStat::Count(1),
            BoardStat::Count(3),
        ];
        for len in 0..=4u32 {
            for code in 0..4u32.pow(len) {
                let cells: Vec<Option<Die>> = (0..len)
                    .map(|at| {
                        let value = i64::from(code / 4u32.pow(at) % 4);
                        (value > 0).then(|| Die { card: Id::new("die"), value })
                    })
                    .collect();
                for stat in stats {
                    let general = stat_of(cells.iter().map(|cell| cell.as_ref().map(|die| die.value)), stat);
                    assert_eq!(stat_of_cells(&cells, stat).to_bits(), general.to_bits(), "{stat:?} of {cells:?}");
                }
            }
        }
    }
}
