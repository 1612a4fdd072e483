//! One step of board play: rolls, placements, cards played, rules and board modifiers.

use std::sync::Arc;

use rand_pcg::Pcg64Mcg;

use crate::model::{Board, BoardModifier, BoardOp, BoardSide, BoardTarget, BoardTiming, CardId, Expr, Id, RuleId};

use super::compile::{Aim, Read, SessionSetup, Which, text_key};
use super::env::eval;
use super::rules::BoardRules;
use super::{BoardGame, BoardOutcome, Die};
use crate::engine::Event;
use crate::engine::content::Content;
use crate::engine::core::{self, Depth};

/// What a board formula or rule is evaluated for: the side whose rule runs, the context column
/// and cell (placed or targeted), a pair's second cell, the option chosen and the roll tried.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct BoardFocus {
    pub(super) own: usize,
    pub(super) column: Option<u32>,
    /// The target or placed cell: side, column, row.
    pub(super) cell: Option<(usize, u32, u32)>,
    pub(super) second: Option<(usize, u32, u32)>,
    pub(super) cell_value: i64,
    pub(super) option: i64,
    pub(super) roll: i64,
}

/// One step of board play: the game (moved in), the generator, the events.
pub(super) struct Run {
    pub(super) setup: Arc<SessionSetup>,
    /// A query's reads, in place of the setup's.
    pub(super) reads: Option<Vec<Read>>,
    pub(super) game: BoardGame,
    pub(super) rng: Pcg64Mcg,
    pub(super) focus: BoardFocus,
    pub(super) depth: u32,
    pub(super) events: Vec<Event>,
    /// An `EndTurn` modifier ran: the turn ends when the action is done.
    pub(super) end_turn: bool,
    /// `CountAsPlaced` nesting (a placement's rules that count dice as placed again).
    pub(super) placing: u32,
    /// The value the next roll shows, whatever the roll filter says (a playtest's `roll V`).
    pub(super) loaded: Option<i64>,
}

thread_local! {
    /// The targets the last listing of a card's plays on this thread went through, kept for
    /// its buffer; cleared before every use.
    static TARGETS: std::cell::Cell<Vec<Aim>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Deepest nesting of `CountAsPlaced` (its `on_place` rules may count dice as placed again).
const MAX_PLACING: u32 = 8;
/// Most dice waiting to be placed in one turn (`ExtraDie`).
const MAX_PENDING: usize = 64;
/// Largest value a die can be set to show.
const MAX_DIE_VALUE: i64 = 1_000_000;

impl Run {
    pub(super) fn board_id(&self, side: usize) -> Id<Board> {
        self.game.sides.get(side).map(|side| side.board.clone()).unwrap_or_default()
    }

    /// Runs board rules through the rules core (FORMAT.md §11), in this run's context.
    pub(super) fn run_rules(&mut self, content: &Content, rules: &[RuleId]) {
        core::run_rules(
            &mut BoardRules { content, run: self, work: crate::engine::core::StepWork::default() },
            rules,
            &mut Depth(0),
        );
    }

    /// The value of a formula of the content in this run: its program when board play built
    /// one, else built now (NaN when it has no formula).
    pub(super) fn value_of(&mut self, content: &Content, expr: &Expr) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let setup = Arc::clone(&self.setup);
        match setup.codes.get(&text_key(expr)) {
            Some(code) => eval(code, self),
            None => content.formula(expr).map_or(f64::NAN, |compiled| content.formulas().eval(compiled, self)),
        }
    }

    /// `TakeTarget`: the targeted die moves to the first free cell of the same column of the
    /// side whose rule runs.
    fn take_target(&mut self) {
        let own = self.focus.own;
        let Some((from, column, row)) = self.focus.cell else { return };
        let to_row = self.game.sides.get(own).and_then(|state| state.first_free(column));
        let Some(to_row) = to_row else {
            self.events.push(Event::Warning("no free cell to take the die into".into()));
            return;
        };
        let Some(die) = self.game.sides.get_mut(from).and_then(|state| state.take(column, row)) else { return };
        if self.setup.sides.get(from).is_some_and(|code| code.compact)
            && let Some(state) = self.game.sides.get_mut(from)
        {
            state.compact(column);
        }
        let value = die.value;
        if let Some(state) = self.game.sides.get_mut(own) {
            state.put(column, to_row, Some(die));
        }
        // The context cell follows the die, so `CountAsPlaced` after it places the taken die.
        self.focus.cell = Some((own, column, to_row));
        self.focus.column = Some(column);
        let (from, to) = (self.board_id(from), self.board_id(own));
        self.events.push(Event::BoardTaken { from, from_row: row, to, column, row: to_row, value });
    }

    pub(super) fn modify(&mut self, content: &Content, modifier: &BoardModifier) {
        if self.game.outcome.is_some() {
            return;
        }
        let which = if modifier.board == BoardSide::Own { Which::Own } else { Which::Facing };
        let Some(side) = self.side_of(which) else {
            self.events
                .push(Event::Warning("a board modifier names the facing board of a board that faces none".into()));
            return;
        };
        match modifier.op {
            BoardOp::DestroyInColumn => {
                let columns = match (modifier.all_columns, self.focus.column) {
                    (true, _) => 1..=self.game.sides.get(side).map_or(0, |state| state.columns),
                    (false, Some(column)) => column..=column,
                    (false, None) => return,
                };
                let saved = self.focus.column;
                for column in columns {
                    self.focus.column = Some(column);
                    self.destroy_in_column(content, side, column, &modifier.value);
                }
                self.focus.column = saved;
            }
            BoardOp::TakeTarget => self.take_target(),
            BoardOp::SwapTargets => {
                let (Some((side, c1, r1)), Some((second, c2, r2))) = (self.focus.cell, self.focus.second) else {
                    return;
                };
                let Some(state) = self.game.sides.get_mut(side).filter(|_| side == second) else { return };
                let a = state.take(c1, r1);
                let b = state.take(c2, r2);
                state.put(c1, r1, b);
                state.put(c2, r2, a);
                let board = self.board_id(side);
                self.events.push(Event::BoardSwapped { board, first: (c1, r1), second: (c2, r2) });
            }
            BoardOp::SetVar => {
                let Some(var) = self.setup.var_names.iter().position(|name| *name == modifier.var) else { return };
                let value = self.value_of(content, &modifier.value);
                if let Some(slot) = self.game.sides.get_mut(side).and_then(|state| state.vars.get_mut(var)) {
                    *slot = if value.is_finite() { value as i64 } else { 0 };
                }
            }
            BoardOp::SetColumnVar => {
                let count = self.setup.column_var_names.len();
                let Some(var) = self.setup.column_var_names.iter().position(|name| *name == modifier.var) else {
                    return;
                };
                let columns = match (modifier.all_columns, self.focus.column) {
                    (true, _) => 1..=self.game.sides.get(side).map_or(0, |state| state.columns),
                    (false, Some(column)) => column..=column,
                    (false, None) => return,
                };
                let saved = self.focus.column;
                for column in columns {
                    self.focus.column = Some(column);
                    let value = self.value_of(content, &modifier.value);
                    let at = (column.saturating_sub(1) as usize).saturating_mul(count).saturating_add(var);
                    if let Some(slot) = self.game.sides.get_mut(side).and_then(|state| state.column_vars.get_mut(at)) {
                        *slot = if value.is_finite() { value as i64 } else { 0 };
                    }
                }
                self.focus.column = saved;
            }
            BoardOp::Win => {
                self.end(Some(side), None);
                if let Some(outcome) = &mut self.game.outcome {
                    outcome.instant = true;
                }
            }
            BoardOp::EndTurn => self.end_turn = true,
            BoardOp::CountAsPlaced => self.count_as_placed(content),
            BoardOp::DestroyTarget => self.destroy_target(),
            BoardOp::EndByScore => self.end_by_score(),
            BoardOp::ExtraDie => self.extra_die(content, &modifier.value),
            BoardOp::AddDie => self.add_die(content, side, &modifier.value),
            BoardOp::SetDieValue => self.set_die_value(content, &modifier.value),
            BoardOp::Reroll => self.reroll(),
            BoardOp::SetCellVar => self.set_cell_var(content, side, modifier),
        }
    }

    /// `ExtraDie`: a die showing `value` waits to be placed after the turn's die.
    fn extra_die(&mut self, content: &Content, value: &Expr) {
        let Some(value) = self.die_value(content, value) else { return };
        if self.game.pending.len() >= MAX_PENDING {
            self.events.push(Event::Warning(format!("more than {MAX_PENDING} extra dice in one turn")));
            return;
        }
        let card = self.setup.die(self.game.active);
        self.game.pending.push(Die { card, value });
    }

    /// `SetDieValue`: the die in hand shows `value`.
    fn set_die_value(&mut self, content: &Content, value: &Expr) {
        let Some(value) = self.die_value(content, value) else { return };
        let Some(die) = self.game.die.as_mut() else {
            self.events.push(Event::Warning("SetDieValue: no die is rolled and not yet placed".into()));
            return;
        };
        die.value = value;
        let board = self.board_id(self.game.active);
        self.events.push(Event::BoardDieChanged { board, value });
    }

    /// `Reroll`: the die in hand is rolled again through the side's roll filter.
    fn reroll(&mut self) {
        if self.game.die.is_none() {
            self.events.push(Event::Warning("Reroll: no die is rolled and not yet placed".into()));
            return;
        }
        let saved = self.focus;
        self.focus = BoardFocus { own: self.game.active, ..BoardFocus::default() };
        let value = self.draw_roll();
        self.focus = saved;
        if let Some(die) = self.game.die.as_mut() {
            die.value = value;
        }
        let board = self.board_id(self.game.active);
        self.events.push(Event::BoardRolled { board, value });
    }

    /// A die value from a formula: rounded, at least 1; none (with a warning) when it is no number.
    fn die_value(&mut self, content: &Content, expr: &Expr) -> Option<i64> {
        let value = self.value_of(content, expr);
        if !value.is_finite() {
            self.events.push(Event::Warning(format!("the die value `{}` is not a number", expr.text())));
            return None;
        }
        Some((value.round() as i64).clamp(1, MAX_DIE_VALUE))
    }

    /// `DestroyInColumn` in one column: `value` is worked out with that column as the context.
    fn destroy_in_column(&mut self, content: &Content, side: usize, column: u32, value: &Expr) {
        let value = self.value_of(content, value);
        if !value.is_finite() {
            return;
        }
        let value = value.round() as i64;
        let board = self.board_id(side);
        let compact = self.setup.sides.get(side).is_some_and(|code| code.compact);
        let Some(state) = self.game.sides.get_mut(side) else { return };
        for row in 1..=state.rows {
            if state.cell(column, row).is_some_and(|die| die.value == value)
                && let Some(die) = state.take(column, row)
            {
                self.events.push(Event::BoardDestroyed { board: board.clone(), column, row, value: die.value });
            }
        }
        if compact {
            state.compact(column);
        }
    }

    /// `AddDie`: a die of `side`'s kind joins the context column's first free cell.
    fn add_die(&mut self, content: &Content, side: usize, value: &Expr) {
        let Some(column) = self.focus.column else { return };
        let Some(value) = self.die_value(content, value) else { return };
        let card = self.setup.die(side);
        let Some(state) = self.game.sides.get_mut(side) else { return };
        let Some(row) = state.first_free(column) else { return };
        state.put(column, row, Some(Die { card, value }));
        let board = self.board_id(side);
        self.events.push(Event::BoardDieAdded { board, column, row, value });
    }

    /// `SetCellVar`: at the context cell's place on `side`'s board, or at every cell.
    fn set_cell_var(&mut self, content: &Content, side: usize, modifier: &BoardModifier) {
        let count = self.setup.cell_var_names.len();
        let Some(var) = self.setup.cell_var_names.iter().position(|name| *name == modifier.var) else { return };
        let Some(state) = self.game.sides.get(side) else { return };
        let cells: Vec<(u32, u32)> = if modifier.all_columns {
            (1..=state.columns).flat_map(|c| (1..=state.rows).map(move |r| (c, r))).collect()
        } else {
            self.focus.cell.map(|(_, c, r)| (c, r)).into_iter().collect()
        };
        let saved = self.focus;
        for (column, row) in cells {
            let value = self.value_of(content, &modifier.value);
            let value = if value.is_finite() { value as i64 } else { 0 };
            if let Some(state) = self.game.sides.get_mut(side)
                && let Some(at) = state.index(column, row)
                && let Some(slot) = state.cell_vars.get_mut(at.saturating_mul(count).saturating_add(var))
            {
                *slot = value;
            }
        }
        self.focus = saved;
    }

    /// Ends the game: `winner` wins (none: a draw), or the content named the outcome.
    pub(super) fn end(&mut self, winner: Option<usize>, text: Option<String>) {
        if self.game.outcome.is_some() {
            return;
        }
        let winner = winner.map(|side| self.board_id(side));
        let scores = (0..self.game.sides.len()).map(|side| (self.board_id(side), self.score(side) as i64)).collect();
        let outcome =
            text.unwrap_or_else(|| winner.as_ref().map_or_else(|| "draw".to_owned(), |id| format!("{id} wins")));
        self.events.push(Event::BoardGameEnded { winner: winner.clone(), scores, outcome });
        self.game.outcome = Some(BoardOutcome { winner, instant: false });
    }

    /// `CountAsPlaced`: the side's `on_place` rules run for the own dice at the context cells.
    fn count_as_placed(&mut self, content: &Content) {
        if self.placing >= MAX_PLACING {
            self.events.push(Event::Warning(format!(
                "CountAsPlaced nested deeper than {MAX_PLACING} (a placement's rules count dice as placed again)"
            )));
            return;
        }
        let saved = self.focus;
        let own = saved.own;
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(own) else { return };
        let mut cells: Vec<Option<(u32, u32)>> = [saved.cell, saved.second]
            .into_iter()
            .flatten()
            .filter(|(side, _, _)| *side == own)
            .map(|(_, c, r)| Some((c, r)))
            .collect();
        let board = self.board_id(own);
        self.placing = self.placing.saturating_add(1);
        for at in 0..cells.len() {
            let Some((column, row)) = cells.get(at).copied().flatten() else { continue };
            // A die the first placement's rules removed (a shield's reflection) is not placed.
            let Some(value) = self.game.sides.get(own).and_then(|state| state.cell(column, row)).map(|die| die.value)
            else {
                continue;
            };
            if self.game.outcome.is_some() {
                break;
            }
            self.focus =
                BoardFocus { own, column: Some(column), cell: Some((own, column, row)), cell_value: value, ..saved };
            let before = self.events.len();
            self.run_rules(content, &code.on_place);
            // On a compact board a die destroyed below a later die lets it slide down: the later
            // die is followed to its new cell (or dropped when it was destroyed itself).
            if code.compact {
                let removed: Vec<(u32, u32)> = self
                    .events
                    .get(before..)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|event| match event {
                        Event::BoardDestroyed { board: on, column, row, .. } if *on == board => Some((*column, *row)),
                        Event::BoardTaken { from, from_row, column, .. } if *from == board => {
                            Some((*column, *from_row))
                        }
                        _ => None,
                    })
                    .collect();
                for later in cells.iter_mut().skip(at.saturating_add(1)) {
                    for (column, row) in &removed {
                        *later = match *later {
                            Some((c, r)) if c == *column && r == *row => None,
                            Some((c, r)) if c == *column && *row < r => Some((c, r.saturating_sub(1))),
                            other => other,
                        };
                    }
                }
            }
        }
        self.placing = self.placing.saturating_sub(1);
        self.focus = saved;
    }

    /// `DestroyTarget`: the die at the context cell leaves its board.
    fn destroy_target(&mut self) {
        let Some((side, column, row)) = self.focus.cell else { return };
        let compact = self.setup.sides.get(side).is_some_and(|code| code.compact);
        let Some(state) = self.game.sides.get_mut(side) else { return };
        let Some(die) = state.take(column, row) else { return };
        if compact {
            state.compact(column);
        }
        let board = self.board_id(side);
        self.events.push(Event::BoardDestroyed { board, column, row, value: die.value });
    }

    /// Ends the turn of the side to play: its `on_turn_end` rules run, then the next side's
    /// turn begins (unless the game ended).
    pub(super) fn finish_turn(&mut self, content: &Content) {
        let own = self.game.active;
        self.end_turn = false;
        self.game.die = None;
        self.game.pending.clear();
        self.game.die_hidden = false;
        let setup = Arc::clone(&self.setup);
        self.focus = BoardFocus { own, ..BoardFocus::default() };
        if let Some(code) = setup.sides.get(own) {
            self.run_rules(content, &code.on_turn_end);
        }
        self.end_turn = false;
        if self.game.outcome.is_none() && !self.game.sides.is_empty() {
            self.game.active = own.saturating_add(1).checked_rem(self.game.sides.len()).unwrap_or(0);
            self.game.turn = self.game.turn.saturating_add(1);
            self.game.card_played = false;
            self.events.push(Event::BoardTurn { board: self.board_id(self.game.active) });
        }
    }

    pub(super) fn roll(&mut self, content: &Content) {
        let own = self.focus.own;
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(own) else { return };
        let value = self.draw_roll();
        self.game.die = Some(Die { card: setup.die(own), value });
        self.events.push(Event::BoardRolled { board: self.board_id(own), value });
        self.run_rules(content, &code.on_roll);
        if self.game.outcome.is_some() {
            return;
        }
        if self.end_turn {
            self.finish_turn(content);
            return;
        }
        self.focus = BoardFocus { own, ..BoardFocus::default() };
        self.game.die_hidden = code.hide_roll.as_ref().is_some_and(|hide| core::truthy(eval(hide, self)));
        // A game always ends or offers a move: a die with nowhere to go ends it by score.
        let full = self.game.sides.get(own).is_none_or(|state| state.cells.iter().all(Option::is_some));
        if full && self.game.die.is_some() {
            let board = self.board_id(own);
            self.events.push(Event::Warning(format!("{board} has no free cell for the die: the game ends by score")));
            self.end_by_score();
        }
    }

    /// A value for the die of the side in focus, through its roll filter.
    fn draw_roll(&mut self) -> i64 {
        let own = self.focus.own;
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(own) else { return 1 };
        if let Some(value) = self.loaded.take() {
            return value;
        }
        // One bit per face (at most 1,000): cleared at every roll, a bool per face cost a
        // kilobyte's fill.
        let mut allowed = [0u64; 16];
        let face = |value: i64| {
            let at = value.saturating_sub(1) as usize;
            (at / 64, 1u64 << (at % 64))
        };
        let mut count = 0u64;
        for value in 1..=code.faces {
            self.focus.roll = value;
            let ok = code.roll_filter.as_ref().is_none_or(|filter| core::truthy(eval(filter, self)));
            let (word, bit) = face(value);
            if ok && let Some(slot) = allowed.get_mut(word) {
                *slot |= bit;
                count = count.saturating_add(1);
            }
        }
        if count == 0 {
            self.events.push(Event::Warning("the roll filter allows no value; the die rolls any value".into()));
            allowed = [u64::MAX; 16];
            count = code.faces as u64;
        }
        let nth = rand_core::Rng::next_u64(&mut self.rng).checked_rem(count).unwrap_or(0);
        let value = (1..=code.faces)
            .filter(|v| {
                let (word, bit) = face(*v);
                allowed.get(word).is_some_and(|slot| slot & bit != 0)
            })
            .nth(nth as usize)
            .unwrap_or(1);
        self.focus.roll = 0;
        value
    }

    /// The game ends: the highest score wins, equal scores draw.
    fn end_by_score(&mut self) {
        let scores: Vec<f64> = (0..self.game.sides.len()).map(|side| self.score(side)).collect();
        let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let leaders: Vec<usize> =
            scores.iter().enumerate().filter(|(_, score)| **score >= best).map(|(at, _)| at).collect();
        let winner = if let [one] = leaders.as_slice() { Some(*one) } else { None };
        self.end(winner, None);
    }
}

impl Run {
    /// The choices of playing `card` now (before or after the roll, as its timing says): each
    /// option × target its condition allows, in order, given to `found` as option, target and
    /// second target (a listing that only counts them builds no choice).
    pub(super) fn play_choices(
        &mut self,
        card: &CardId,
        mut found: impl FnMut(u32, Option<(u32, u32)>, Option<(u32, u32)>),
    ) {
        let setup = Arc::clone(&self.setup);
        let Some(play) = setup.plays.get(card) else { return };
        let now = if self.game.die.is_some() { BoardTiming::AfterRoll } else { BoardTiming::BeforeRoll };
        if play.timing != now {
            return;
        }
        let own = self.focus.own;
        let facing = setup.sides.get(own).and_then(|side| side.facing);
        // The targets go into the thread's buffer of the last listing: no allocation.
        let mut targets = TARGETS.take();
        targets.clear();
        let dice = |side: Option<usize>, targets: &mut Vec<Aim>| {
            let Some(state) = side.and_then(|side| self.game.sides.get(side)) else { return };
            for c in 1..=state.columns {
                targets.extend((1..=state.rows).filter(|r| state.cell(c, *r).is_some()).map(|r| (Some((c, r)), None)));
            }
        };
        match play.target {
            BoardTarget::Nothing => targets.push((None, None)),
            BoardTarget::OwnColumn => {
                let columns = self.game.sides.get(own).map_or(0, |state| state.columns);
                targets.extend((1..=columns).map(|c| (Some((c, 0)), None)));
            }
            BoardTarget::OwnDie => dice(Some(own), &mut targets),
            BoardTarget::FacingDie => dice(facing, &mut targets),
            BoardTarget::OwnCell | BoardTarget::FacingCell => {
                let side = if play.target == BoardTarget::OwnCell { Some(own) } else { facing };
                if let Some(state) = side.and_then(|side| self.game.sides.get(side)) {
                    let rows = state.rows;
                    targets.extend((1..=state.columns).flat_map(|c| (1..=rows).map(move |r| (Some((c, r)), None))));
                }
            }
            BoardTarget::OwnDicePair => {
                // The dice first, then each pair after them; the dice are dropped at the end.
                dice(Some(own), &mut targets);
                let count = targets.len();
                for at in 0..count {
                    for later in at.saturating_add(1)..count {
                        if let (Some((first, _)), Some((second, _))) = (targets.get(at), targets.get(later)) {
                            let pair = (*first, *second);
                            targets.push(pair);
                        }
                    }
                }
                targets.drain(..count);
            }
        }
        let options = if play.options.is_empty() { 0..=0 } else { 1..=play.options.len() as u32 };
        for option in options {
            for (target, second) in &targets {
                self.set_target(play.target, option, *target, *second);
                let ok = play.condition.as_ref().is_none_or(|condition| core::truthy(eval(condition, self)));
                if ok {
                    found(option, *target, *second);
                }
            }
        }
        TARGETS.set(targets);
        self.focus = BoardFocus { own, ..BoardFocus::default() };
    }

    /// The context of playing a card at a target.
    pub(super) fn set_target(
        &mut self,
        kind: BoardTarget,
        option: u32,
        target: Option<(u32, u32)>,
        second: Option<(u32, u32)>,
    ) {
        let own = self.focus.own;
        let side = if matches!(kind, BoardTarget::FacingDie | BoardTarget::FacingCell) {
            self.setup.sides.get(own).and_then(|side| side.facing).unwrap_or(own)
        } else {
            own
        };
        let cell = target.filter(|(_, row)| *row > 0).map(|(c, r)| (side, c, r));
        let value = cell.and_then(|(side, c, r)| self.game.sides.get(side)?.cell(c, r).map(|die| die.value));
        self.focus = BoardFocus {
            own,
            column: target.map(|(c, _)| c),
            cell,
            second: second.map(|(c, r)| (side, c, r)),
            cell_value: value.unwrap_or(0),
            option: i64::from(option),
            roll: 0,
        };
    }

    pub(super) fn play(
        &mut self,
        content: &Content,
        card: &CardId,
        option: u32,
        target: Option<(u32, u32)>,
        second: Option<(u32, u32)>,
    ) {
        let own = self.focus.own;
        let setup = Arc::clone(&self.setup);
        let Some(play) = setup.plays.get(card) else { return };
        if let Some(hand) = self.game.sides.get_mut(own).map(|side| &mut side.hand)
            && let Some(at) = hand.iter().position(|held| held == card)
        {
            hand.remove(at);
        }
        self.game.card_played = true;
        self.events.push(Event::BoardCardPlayed { board: self.board_id(own), card: card.clone(), option });
        self.set_target(play.target, option, target, second);
        self.run_rules(content, &play.rules);
        self.focus = BoardFocus { own, ..BoardFocus::default() };
        if self.end_turn && self.game.outcome.is_none() {
            self.finish_turn(content);
        }
    }

    pub(super) fn place(&mut self, content: &Content, column: u32) {
        let own = self.focus.own;
        let Some(row) = self.game.sides.get(own).and_then(|side| side.first_free(column)) else { return };
        let Some(die) = self.game.die.take() else { return };
        self.game.die_hidden = false;
        let value = die.value;
        if let Some(side) = self.game.sides.get_mut(own) {
            side.put(column, row, Some(die));
        }
        self.events.push(Event::BoardPlaced { board: self.board_id(own), column, row, value });
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(own) else { return };
        self.focus = BoardFocus {
            own,
            column: Some(column),
            cell: Some((own, column, row)),
            cell_value: value,
            ..BoardFocus::default()
        };
        self.run_rules(content, &code.on_place);
        if self.game.outcome.is_some() {
            return;
        }
        // An extra die (`ExtraDie`) is the next to place, when the board has room for it.
        let room = self.game.sides.get(own).is_some_and(|state| state.cells.iter().any(Option::is_none));
        if !self.end_turn && !self.game.pending.is_empty() {
            if room {
                self.game.die = Some(self.game.pending.remove(0));
                self.focus = BoardFocus { own, ..BoardFocus::default() };
                return;
            }
            let board = self.board_id(own);
            self.events.push(Event::Warning(format!("{board} has no free cell for its extra die")));
        }
        self.finish_turn(content);
    }
}
