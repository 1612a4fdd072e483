//! The formula environment of board play: cells, lines, variables and the context.

use std::sync::Arc;

use crate::formula::names::BoardLine;
use crate::formula::{Env, LookupSlot};

use super::compile::{Area, Code, Flat, MAX_PLACED, Part, Read, Which};
use super::step::{BoardFocus, Run};
use super::{MAX_DEPTH, stat_of_cells, stat_of_slice};

/// The value of a code in a run.
pub(super) fn eval(code: &Code, run: &mut Run) -> f64 {
    match code {
        Code::Constant(value) => *value,
        Code::Program(program) => program.eval(run),
    }
}

impl Env for Run {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        // The content's reads are resolved ahead for the side in focus (a query's are not).
        if self.reads.is_none() {
            let at = self.focus.own.saturating_mul(self.setup.reads.len()).saturating_add(slot.0 as usize);
            if let Some(value) = self.setup.flat.get(at).and_then(|flat| self.read_flat(*flat)) {
                // Every debug run (the tests, the packs' playtests) checks the resolved reading
                // against the general one: the two must never disagree. (The resolved reads
                // are plain reads of the state: reading them again changes nothing.)
                #[cfg(debug_assertions)]
                {
                    let read = self.setup.reads.get(slot.0 as usize).copied().unwrap_or(Read::Missing);
                    let general = self.read(read);
                    debug_assert!(
                        value.to_bits() == general.to_bits() || (value.is_nan() && general.is_nan()),
                        "{read:?} for side {}: resolved {value}, general {general}",
                        self.focus.own
                    );
                }
                return value;
            }
        }
        let reads = self.reads.as_ref().unwrap_or(&self.setup.reads);
        let read = reads.get(slot.0 as usize).copied().unwrap_or(Read::Missing);
        self.read(read)
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        let reads = self.reads.as_ref().unwrap_or(&self.setup.reads);
        !matches!(reads.get(slot.0 as usize), Some(Read::Missing) | None)
    }

    fn random_bits(&mut self) -> u64 {
        rand_core::Rng::next_u64(&mut self.rng)
    }

    fn reads_only_read(&self) -> bool {
        self.setup.reads_only_read
    }
}

impl Run {
    pub(super) fn side_of(&self, which: Which) -> Option<usize> {
        match which {
            Which::Own => Some(self.focus.own),
            Which::Facing => self.setup.sides.get(self.focus.own).and_then(|side| side.facing),
            Which::Side(side) => Some(side),
        }
    }

    /// The value of a read resolved for the side in focus; none when it is read the general way.
    fn read_flat(&self, flat: Flat) -> Option<f64> {
        let sides = &self.game.sides;
        let value = match flat {
            Flat::Fixed(value) => value,
            Flat::Option => self.focus.option as f64,
            Flat::Roll => self.focus.roll as f64,
            Flat::Cells { side, start, len, stat } => {
                let Some(state) = sides.get(side) else { return Some(f64::NAN) };
                // A board of the size the read was resolved for (always, unless the state was
                // built from other content): else the general reading.
                let cells = state.cells.get(start..start.saturating_add(len)).filter(|_| state.rows as usize == len)?;
                stat_of_cells(cells, stat)
            }
            Flat::ContextColumn { side, stat } => {
                let (Some(state), Some(c)) = (sides.get(side), self.focus.column) else { return Some(f64::NAN) };
                if c >= 1 && c <= state.columns {
                    // The column's cells lie together: read in place.
                    let rows = state.rows as usize;
                    let start = (c.saturating_sub(1) as usize).saturating_mul(rows);
                    let cells = state.cells.get(start..start.saturating_add(rows)).unwrap_or_default();
                    return Some(stat_of_cells(cells, stat));
                }
                if c > state.columns.max(state.rows) {
                    return Some(f64::NAN);
                }
                state.stat(Some(BoardLine::Column(c)), stat)
            }
            Flat::Placed { side, columns, rows, at, len, stat } => {
                let Some(state) = sides.get(side) else { return Some(f64::NAN) };
                // Cells placed for a board of this size (always, unless the state was built
                // from other content): else the general reading.
                if state.columns != columns || state.rows != rows {
                    return None;
                }
                let mut values = [None; MAX_PLACED];
                for (value, at) in values.iter_mut().zip(at.iter().take(usize::from(len))) {
                    *value = state.cells.get(usize::from(*at)).and_then(Option::as_ref).map(|die| die.value);
                }
                stat_of_slice(values.get(..usize::from(len)).unwrap_or_default(), |value| *value, stat)
            }
            Flat::Board { side, stat } => sides.get(side).map_or(f64::NAN, |state| stat_of_cells(&state.cells, stat)),
            Flat::Line { side, line, stat } => sides.get(side).map_or(f64::NAN, |state| state.stat(Some(line), stat)),
            Flat::Var { side, at } => {
                sides.get(side).and_then(|state| state.vars.get(at)).map_or(f64::NAN, |value| *value as f64)
            }
            Flat::ColumnVar { side, at } => {
                sides.get(side).and_then(|state| state.column_vars.get(at)).map_or(f64::NAN, |value| *value as f64)
            }
            Flat::ContextColumnVar { side, var, count } => {
                let (Some(state), Some(c)) = (sides.get(side), self.focus.column) else { return Some(f64::NAN) };
                let at = (c.saturating_sub(1) as usize).saturating_mul(count).saturating_add(var);
                state.column_vars.get(at).filter(|_| c >= 1).map_or(f64::NAN, |value| *value as f64)
            }
            Flat::General(_) => return None,
        };
        Some(value)
    }

    pub(super) fn read(&mut self, read: Read) -> f64 {
        // The focus is read in place, not copied whole at every read (most reads need none of it).
        let focus = &self.focus;
        let cell =
            |run: &Self| run.focus.cell.and_then(|(side, c, r)| run.game.sides.get(side)?.cell(c, r).map(|d| d.value));
        match read {
            Read::Missing => f64::NAN,
            Read::Fixed(value) => value,
            Read::Option => focus.option as f64,
            Read::Roll => focus.roll as f64,
            Read::DieValue => self.game.die.as_ref().map_or(0.0, |die| die.value as f64),
            Read::Turn => f64::from(self.game.turn),
            Read::CellValue => cell(self).unwrap_or(focus.cell_value) as f64,
            Read::CellColumn => focus.cell.map_or(f64::NAN, |(_, c, _)| f64::from(c)),
            Read::CellRow => focus.cell.map_or(f64::NAN, |(_, _, r)| f64::from(r)),
            Read::CellFilled => f64::from(u8::from(cell(self).is_some())),
            Read::CellVar(var) => {
                let count = self.setup.cell_var_names.len();
                focus
                    .cell
                    .and_then(|(side, c, r)| {
                        let side = self.game.sides.get(side)?;
                        side.cell_vars.get(side.index(c, r)?.saturating_mul(count).saturating_add(var)).copied()
                    })
                    .map_or(f64::NAN, |value| value as f64)
            }
            Read::Score(which) => self.side_of(which).map_or(f64::NAN, |side| self.score(side)),
            Read::Cell(which, c, r) => {
                let side = self.side_of(which).and_then(|side| self.game.sides.get(side));
                side.filter(|side| c <= side.columns && r <= side.rows)
                    .map_or(f64::NAN, |side| side.cell(c, r).map_or(0.0, |die| die.value as f64))
            }
            Read::Part(which, line, part) => {
                let Some(side) = self.side_of(which).and_then(|side| self.game.sides.get(side)) else {
                    return f64::NAN;
                };
                let line = match line {
                    Area::Board => None,
                    Area::Line(line) => Some(line),
                    Area::ContextColumn => match focus.column {
                        Some(column) => Some(BoardLine::Column(column)),
                        None => return f64::NAN,
                    },
                };
                match (part, line) {
                    (Part::Stat(stat), line) => {
                        if let Some(BoardLine::Column(c) | BoardLine::Row(c)) = line
                            && (c > side.columns.max(side.rows))
                        {
                            return f64::NAN;
                        }
                        side.stat(line, stat)
                    }
                    (Part::Var(var), _) => side.vars.get(var).map_or(f64::NAN, |value| *value as f64),
                    (Part::ColumnVar(var), Some(BoardLine::Column(c))) => {
                        let count = self.setup.column_var_names.len();
                        let at = (c.saturating_sub(1) as usize).saturating_mul(count).saturating_add(var);
                        side.column_vars.get(at).filter(|_| c >= 1).map_or(f64::NAN, |value| *value as f64)
                    }
                    (Part::ColumnVar(_), _) => f64::NAN,
                }
            }
        }
    }

    /// A side's score: its board's `score` formula with `board.own` = that board.
    pub(super) fn score(&mut self, side: usize) -> f64 {
        if self.depth > MAX_DEPTH {
            return f64::NAN;
        }
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(side).and_then(|code| code.score.as_ref()) else { return 0.0 };
        let saved = self.focus;
        self.focus = BoardFocus { own: side, ..BoardFocus::default() };
        self.depth = self.depth.saturating_add(1);
        let value = eval(code, self);
        self.depth = self.depth.saturating_sub(1);
        self.focus = saved;
        value
    }
}
