//! Boards (FORMAT.md §11): grids of dice cells with coordinates, boards facing each other
//! column by column, and sides taking turns: roll the side's die, play a card from the hand,
//! place the die in a column. What a placement or a card does is content: board rules whose
//! conditions are formulas over cells, lines and variables, and whose board modifiers destroy,
//! take or swap dice, set variables and end the game.
//!
//! A step moves the game state into a [`Run`] (no copy: `mem::take`), which is at once the
//! formula environment and the place modifiers act on, then moves it back. Every formula is
//! built once into a program when the session starts, so a step neither hashes names nor
//! allocates per evaluation.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::Arc;

use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::formula::names::{BoardLine, BoardStat, board_line, board_stat, is_cell};
use crate::formula::{Env, FormulaSet, Lookup, Program, ProjectNames, Scope, Slot, lookup_text};
use crate::model::{Board, BoardModifier, BoardOp, BoardSide, BoardTarget, CardId, Expr, Id, PathOp, RuleId};

use super::content::Content;
use super::{Choice, Event, Outcome, Session};

/// Deepest nesting of board rules (furthermore) and of scores read inside scores.
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
    /// Cards the side can still play.
    pub hand: Vec<CardId>,
}

impl BoardSideState {
    fn index(&self, column: u32, row: u32) -> Option<usize> {
        (column >= 1 && row >= 1 && column <= self.columns && row <= self.rows)
            .then(|| ((column - 1) * self.rows + (row - 1)) as usize)
    }

    /// The die at column `column`, row `row` (from 1).
    pub fn cell(&self, column: u32, row: u32) -> Option<&Die> {
        self.index(column, row).and_then(|at| self.cells.get(at)).and_then(Option::as_ref)
    }

    fn first_free(&self, column: u32) -> Option<u32> {
        (1..=self.rows).find(|row| self.index(column, *row).is_some_and(|at| matches!(self.cells.get(at), Some(None))))
    }

    fn take(&mut self, column: u32, row: u32) -> Option<Die> {
        let at = self.index(column, row)?;
        self.cells.get_mut(at).and_then(Option::take)
    }

    fn put(&mut self, column: u32, row: u32, die: Option<Die>) {
        if let Some(cell) = self.index(column, row).and_then(|at| self.cells.get_mut(at)) {
            *cell = die;
        }
    }

    /// Dice slide towards row 1, keeping their order.
    fn compact(&mut self, column: u32) {
        let start = ((column.saturating_sub(1)) * self.rows) as usize;
        let Some(cells) = self.cells.get_mut(start..start + self.rows as usize) else { return };
        let mut to = 0;
        for from in 0..cells.len() {
            if cells.get(from).is_some_and(Option::is_some) {
                cells.swap(to, from);
                to += 1;
            }
        }
    }

    /// The cell of a line's k-th place (from 1) and the line's length.
    fn line_cell(&self, line: BoardLine, k: u32) -> (u32, u32) {
        match line {
            BoardLine::Column(c) => (c, k),
            BoardLine::Row(r) => (k, r),
            BoardLine::Diagonal(1) => (k, k),
            BoardLine::Diagonal(_) => (k, self.columns.min(self.rows) + 1 - k),
        }
    }

    fn line_len(&self, line: BoardLine) -> u32 {
        match line {
            BoardLine::Column(_) => self.rows,
            BoardLine::Row(_) => self.columns,
            BoardLine::Diagonal(_) => self.columns.min(self.rows),
        }
    }

    /// A statistic over a line, or over the whole board.
    fn stat(&self, line: Option<BoardLine>, stat: BoardStat) -> f64 {
        match line {
            Some(line) => stat_of(
                (1..=self.line_len(line)).map(|k| {
                    let (c, r) = self.line_cell(line, k);
                    self.cell(c, r).map(|die| die.value)
                }),
                stat,
            ),
            None => stat_of(self.cells.iter().map(|cell| cell.as_ref().map(|die| die.value)), stat),
        }
    }
}

/// A statistic over cells (`None` for an empty cell), without allocating.
fn stat_of(cells: impl Iterator<Item = Option<i64>> + Clone, stat: BoardStat) -> f64 {
    let held = cells.clone().flatten();
    let value = match stat {
        BoardStat::Filled => held.count() as i64,
        BoardStat::Free => cells.filter(Option::is_none).count() as i64,
        BoardStat::Total => held.sum(),
        // x held n times scores x·n·n: each of the n dice adds x·n.
        BoardStat::Score => held.map(|x| x * cells.clone().flatten().filter(|y| *y == x).count() as i64).sum(),
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
    /// Set when the game has ended.
    pub outcome: Option<BoardOutcome>,
}

/// Board play of a session: the game and what the content compiled into.
#[derive(Clone, Debug)]
pub struct BoardState {
    setup: Arc<Setup>,
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

    /// The side of board `id`.
    pub fn side(&self, id: &str) -> Option<(usize, &BoardSideState)> {
        self.game.sides.iter().enumerate().find(|(_, side)| side.board.as_str() == id)
    }
}

/// A formula's code: a constant or a program.
enum Code {
    Constant(f64),
    Program(Program<'static, Run>),
}

impl std::fmt::Debug for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Constant(value) => write!(f, "{value}"),
            Self::Program(_) => f.write_str("program"),
        }
    }
}

/// Which board a name reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Which {
    Own,
    Facing,
    Side(usize),
}

/// A name part over cells: a statistic or a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    Stat(BoardStat),
    Var(usize),
    ColumnVar(usize),
}

/// What a lookup reads in board play.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Read {
    Missing,
    /// A value fixed for one evaluation (table names in queries).
    Fixed(f64),
    Option,
    Roll,
    DieValue,
    Turn,
    CellValue,
    CellColumn,
    CellRow,
    Score(Which),
    Cell(Which, u32, u32),
    /// A part of a board, a line, or the context column.
    Part(Which, Area, Part),
}

/// The cells a [`Read::Part`] covers.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Area {
    Board,
    Line(BoardLine),
    ContextColumn,
}

/// A card's target and the second cell of a pair.
type Aim = (Option<(u32, u32)>, Option<(u32, u32)>);

#[derive(Debug)]
struct RuleCode {
    condition: Option<Code>,
    invert: bool,
    modifiers: Vec<(BoardModifier, Code)>,
    end_game: Option<String>,
    furthermore: Vec<usize>,
}

#[derive(Debug)]
struct PlayCode {
    target: BoardTarget,
    options: Vec<String>,
    condition: Option<Code>,
    rules: Vec<usize>,
}

#[derive(Debug)]
struct SideCode {
    facing: Option<usize>,
    die: CardId,
    faces: i64,
    score: Option<Code>,
    roll_filter: Option<Code>,
    compact: bool,
    on_roll: Vec<usize>,
    on_place: Vec<usize>,
    on_turn_end: Vec<usize>,
}

/// What board play compiled into, shared by clones of a session.
#[derive(Debug)]
struct Setup {
    sides: Vec<SideCode>,
    reads: Vec<Read>,
    rules: Vec<RuleCode>,
    plays: HashMap<CardId, PlayCode>,
    var_names: Vec<String>,
    column_var_names: Vec<String>,
}

/// The context a board formula is evaluated in.
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    own: usize,
    column: Option<u32>,
    /// The target or placed cell: side, column, row.
    cell: Option<(usize, u32, u32)>,
    second: Option<(usize, u32, u32)>,
    cell_value: i64,
    option: i64,
    roll: i64,
}

/// One step of board play: the game (moved in), the generator, the events.
struct Run {
    setup: Arc<Setup>,
    /// A query's reads, in place of the setup's.
    reads: Option<Vec<Read>>,
    game: BoardGame,
    rng: Pcg64Mcg,
    ctx: Ctx,
    depth: u32,
    events: Vec<Event>,
}

fn read_of(lookup: &Lookup, sides: &[Id<Board>], vars: &[String], column_vars: &[String]) -> Read {
    if lookup.scope != Scope::Auto {
        return Read::Missing;
    }
    let parts: Vec<&str> = lookup.name.split('.').collect();
    let which = |id: &str| match id {
        "own" => Some(Which::Own),
        "facing" => Some(Which::Facing),
        id => sides.iter().position(|side| side.as_str() == id).map(Which::Side),
    };
    let part = |rest: &[&str], column: bool| match rest {
        [stat] => board_stat(stat).map(Part::Stat),
        ["var", name] if column => column_vars.iter().position(|var| var == name).map(Part::ColumnVar),
        ["var", name] => vars.iter().position(|var| var == name).map(Part::Var),
        _ => None,
    };
    let read = match parts.as_slice() {
        ["option"] => Some(Read::Option),
        ["roll"] => Some(Read::Roll),
        ["die", "value"] => Some(Read::DieValue),
        ["board", "turn"] => Some(Read::Turn),
        ["cell", "value"] => Some(Read::CellValue),
        ["cell", "column"] => Some(Read::CellColumn),
        ["cell", "row"] => Some(Read::CellRow),
        [column @ ("column" | "facing_column"), rest @ ..] => {
            let board = if *column == "column" { Which::Own } else { Which::Facing };
            part(rest, true).map(|part| Read::Part(board, Area::ContextColumn, part))
        }
        ["board", id, rest @ ..] => which(id).and_then(|board| match rest {
            ["score"] => Some(Read::Score(board)),
            [cell] if is_cell(cell) => {
                let (column, row) = cell.strip_prefix('c').and_then(|rest| rest.split_once('r'))?;
                Some(Read::Cell(board, column.parse().ok()?, row.parse().ok()?))
            }
            [line, rest @ ..] if board_line(line).is_some() => {
                let line = board_line(line)?;
                part(rest, matches!(line, BoardLine::Column(_))).map(|part| Read::Part(board, Area::Line(line), part))
            }
            rest => part(rest, false).map(|part| Read::Part(board, Area::Board, part)),
        }),
        _ => None,
    };
    // A board that exists but is not in play reads as missing, like any unknown name.
    read.unwrap_or(Read::Missing)
}

/// Builds the code of an expression.
fn code(content: &Content, expr: &Expr) -> Code {
    if let Some(value) = expr.as_int() {
        return Code::Constant(value as f64);
    }
    match content.formula(expr) {
        Some(compiled) => Code::Program(content.formulas().program::<Run>(compiled)),
        None => Code::Constant(f64::NAN),
    }
}

/// Compiles the board rules reachable from `rule` (and their furthermore rules) into `rules`.
fn compile_rule(
    content: &Content,
    rule: &RuleId,
    index: &mut HashMap<RuleId, usize>,
    rules: &mut Vec<RuleCode>,
) -> Option<usize> {
    if let Some(at) = index.get(rule) {
        return Some(*at);
    }
    let source = content.project.rules.get(rule.as_str())?;
    let at = rules.len();
    index.insert(rule.clone(), at);
    rules.push(RuleCode {
        condition: None,
        invert: false,
        modifiers: Vec::new(),
        end_game: None,
        furthermore: Vec::new(),
    });
    let condition = source.requirements.condition.as_ref().map(|expr| code(content, expr));
    let modifiers = source
        .effects
        .board_modifiers
        .iter()
        .map(|modifier| (modifier.clone(), code(content, &modifier.value)))
        .collect();
    let end_game = source
        .effects
        .path_modifiers
        .iter()
        .find(|modifier| modifier.op == PathOp::EndGame)
        .map(|modifier| modifier.text.clone());
    let furthermore =
        source.effects.furthermore.iter().filter_map(|rule| compile_rule(content, rule, index, rules)).collect();
    if let Some(slot) = rules.get_mut(at) {
        *slot = RuleCode { condition, invert: source.invert, modifiers, end_game, furthermore };
    }
    Some(at)
}

/// The value of a code in a run.
fn eval(code: &Code, run: &mut Run) -> f64 {
    match code {
        Code::Constant(value) => *value,
        Code::Program(program) => program.eval(run),
    }
}

fn truth(value: f64) -> bool {
    value != 0.0 && !value.is_nan()
}

impl BoardState {
    /// Board play for `content`, if its entry boards include one with a die; the first side
    /// is drawn from `rng`.
    pub(super) fn start(content: &Content, rng: &mut Pcg64Mcg) -> Option<Self> {
        let project = &content.project;
        let boards: Vec<&Board> =
            project.manifest.entry.boards.iter().filter_map(|id| project.boards.get(id.as_str())).collect();
        if !boards.iter().any(|board| board.die.is_some()) {
            return None;
        }
        let ids: Vec<Id<Board>> = boards.iter().map(|board| board.id.clone()).collect();
        let mut var_names: Vec<String> = boards.iter().flat_map(|board| board.vars.keys().cloned()).collect();
        var_names.sort();
        var_names.dedup();
        let mut column_var_names: Vec<String> =
            boards.iter().flat_map(|board| board.column_vars.keys().cloned()).collect();
        column_var_names.sort();
        column_var_names.dedup();
        let reads =
            content.formulas().lookups().map(|lookup| read_of(lookup, &ids, &var_names, &column_var_names)).collect();
        let mut index = HashMap::new();
        let mut rules = Vec::new();
        let mut compile_list = |list: &[RuleId], rules: &mut Vec<RuleCode>| -> Vec<usize> {
            list.iter().filter_map(|rule| compile_rule(content, rule, &mut index, rules)).collect()
        };
        let mut sides = Vec::new();
        let mut states = Vec::new();
        for board in &boards {
            let faces = board
                .die
                .as_ref()
                .and_then(|die| project.cards.get(die.as_str()))
                .and_then(|card| card.properties.get("faces"))
                .and_then(Expr::as_int)
                .unwrap_or(6)
                .clamp(1, 1_000);
            sides.push(SideCode {
                die: board.die.clone().unwrap_or_default(),
                facing: board.facing.as_ref().and_then(|facing| ids.iter().position(|id| id == facing)),
                faces,
                score: board.score.as_ref().map(|expr| code(content, expr)),
                roll_filter: board.roll_filter.as_ref().map(|expr| code(content, expr)),
                compact: board.compact,
                on_roll: compile_list(&board.on_roll, &mut rules),
                on_place: compile_list(&board.on_place, &mut rules),
                on_turn_end: compile_list(&board.on_turn_end, &mut rules),
            });
            let vars = var_names.iter().map(|name| board.vars.get(name).copied().unwrap_or(0)).collect();
            let column_vars = (0..board.columns)
                .flat_map(|_| column_var_names.iter().map(|name| board.column_vars.get(name).copied().unwrap_or(0)))
                .collect();
            states.push(BoardSideState {
                board: board.id.clone(),
                columns: board.columns,
                rows: board.rows,
                cells: vec![None; (board.columns * board.rows) as usize],
                vars,
                column_vars,
                hand: board.hand.clone(),
            });
        }
        let mut plays = HashMap::new();
        for card in boards.iter().flat_map(|board| board.hand.iter()) {
            let Some(play) = project.cards.get(card.as_str()).and_then(|card| card.board_play.as_ref()) else {
                continue;
            };
            if plays.contains_key(card) {
                continue;
            }
            let code = PlayCode {
                target: play.target,
                options: play.options.clone(),
                condition: play.condition.as_ref().map(|expr| code(content, expr)),
                rules: compile_list(&play.rules, &mut rules),
            };
            plays.insert(card.clone(), code);
        }
        let active = if states.is_empty() { 0 } else { (rand_core::Rng::next_u64(rng) % states.len() as u64) as usize };
        let setup = Setup { sides, reads, rules, plays, var_names, column_var_names };
        let game = BoardGame { sides: states, active, die: None, turn: 1, card_played: false, outcome: None };
        Some(Self { setup: Arc::new(setup), game })
    }
}

impl Env for Run {
    fn value(&mut self, slot: Slot) -> f64 {
        let reads = self.reads.as_ref().unwrap_or(&self.setup.reads);
        let read = reads.get(slot.0 as usize).copied().unwrap_or(Read::Missing);
        self.read(read)
    }
    fn has(&mut self, slot: Slot) -> bool {
        let reads = self.reads.as_ref().unwrap_or(&self.setup.reads);
        !matches!(reads.get(slot.0 as usize), Some(Read::Missing) | None)
    }
    fn random_bits(&mut self) -> u64 {
        rand_core::Rng::next_u64(&mut self.rng)
    }
}

impl Run {
    fn side_of(&self, which: Which) -> Option<usize> {
        match which {
            Which::Own => Some(self.ctx.own),
            Which::Facing => self.setup.sides.get(self.ctx.own).and_then(|side| side.facing),
            Which::Side(side) => Some(side),
        }
    }

    fn read(&mut self, read: Read) -> f64 {
        let ctx = self.ctx;
        let cell = |run: &Self| ctx.cell.and_then(|(side, c, r)| run.game.sides.get(side)?.cell(c, r).map(|d| d.value));
        match read {
            Read::Missing => f64::NAN,
            Read::Fixed(value) => value,
            Read::Option => ctx.option as f64,
            Read::Roll => ctx.roll as f64,
            Read::DieValue => self.game.die.as_ref().map_or(0.0, |die| die.value as f64),
            Read::Turn => f64::from(self.game.turn),
            Read::CellValue => cell(self).unwrap_or(ctx.cell_value) as f64,
            Read::CellColumn => ctx.cell.map_or(f64::NAN, |(_, c, _)| f64::from(c)),
            Read::CellRow => ctx.cell.map_or(f64::NAN, |(_, _, r)| f64::from(r)),
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
                    Area::ContextColumn => match ctx.column {
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
                        let at = (c.saturating_sub(1) as usize) * count + var;
                        side.column_vars.get(at).filter(|_| c >= 1).map_or(f64::NAN, |value| *value as f64)
                    }
                    (Part::ColumnVar(_), _) => f64::NAN,
                }
            }
        }
    }

    /// A side's score: its board's `score` formula with `board.own` = that board.
    fn score(&mut self, side: usize) -> f64 {
        if self.depth > MAX_DEPTH {
            return f64::NAN;
        }
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(side).and_then(|code| code.score.as_ref()) else { return 0.0 };
        let saved = self.ctx;
        self.ctx = Ctx { own: side, ..Ctx::default() };
        self.depth += 1;
        let value = eval(code, self);
        self.depth -= 1;
        self.ctx = saved;
        value
    }

    fn board_id(&self, side: usize) -> Id<Board> {
        self.game.sides.get(side).map(|side| side.board.clone()).unwrap_or_default()
    }

    fn run_rules(&mut self, rules: &[usize]) {
        for rule in rules {
            if self.game.outcome.is_some() {
                return;
            }
            self.run_rule(*rule);
        }
    }

    fn run_rule(&mut self, rule: usize) {
        if self.depth > MAX_DEPTH {
            self.events.push(Event::Warning("board rules nest too deeply (a rule refers to itself); it fails".into()));
            return;
        }
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.rules.get(rule) else { return };
        self.depth += 1;
        let passed = code.condition.as_ref().is_none_or(|condition| truth(eval(condition, self))) != code.invert;
        if passed {
            for (modifier, value) in &code.modifiers {
                self.modify(modifier, value);
            }
            if let Some(text) = &code.end_game {
                self.end(None, Some(text.clone()));
            }
            self.run_rules(&code.furthermore);
        }
        self.depth -= 1;
    }

    fn modify(&mut self, modifier: &BoardModifier, value: &Code) {
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
                let Some(column) = self.ctx.column else { return };
                let value = eval(value, self);
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
            BoardOp::TakeTarget => {
                let own = self.ctx.own;
                let Some((from, column, row)) = self.ctx.cell else { return };
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
                let (from, to) = (self.board_id(from), self.board_id(own));
                self.events.push(Event::BoardTaken { from, from_row: row, to, column, row: to_row, value });
            }
            BoardOp::SwapTargets => {
                let (Some((side, c1, r1)), Some((second, c2, r2))) = (self.ctx.cell, self.ctx.second) else { return };
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
                let value = eval(value, self);
                if let Some(slot) = self.game.sides.get_mut(side).and_then(|state| state.vars.get_mut(var)) {
                    *slot = if value.is_finite() { value as i64 } else { 0 };
                }
            }
            BoardOp::SetColumnVar => {
                let count = self.setup.column_var_names.len();
                let Some(var) = self.setup.column_var_names.iter().position(|name| *name == modifier.var) else {
                    return;
                };
                let columns = match (modifier.all_columns, self.ctx.column) {
                    (true, _) => 1..=self.game.sides.get(side).map_or(0, |state| state.columns),
                    (false, Some(column)) => column..=column,
                    (false, None) => return,
                };
                let saved = self.ctx.column;
                for column in columns {
                    self.ctx.column = Some(column);
                    let value = eval(value, self);
                    let at = (column.saturating_sub(1) as usize) * count + var;
                    if let Some(slot) = self.game.sides.get_mut(side).and_then(|state| state.column_vars.get_mut(at)) {
                        *slot = if value.is_finite() { value as i64 } else { 0 };
                    }
                }
                self.ctx.column = saved;
            }
            BoardOp::Win => self.end(Some(side), None),
            BoardOp::EndByScore => {
                let scores: Vec<f64> = (0..self.game.sides.len()).map(|side| self.score(side)).collect();
                let best = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let leaders: Vec<usize> =
                    scores.iter().enumerate().filter(|(_, score)| **score >= best).map(|(at, _)| at).collect();
                let winner = if let [one] = leaders.as_slice() { Some(*one) } else { None };
                self.end(winner, None);
            }
        }
    }

    /// Ends the game: `winner` wins (none: a draw), or the content named the outcome.
    fn end(&mut self, winner: Option<usize>, text: Option<String>) {
        if self.game.outcome.is_some() {
            return;
        }
        let winner = winner.map(|side| self.board_id(side));
        let scores = (0..self.game.sides.len()).map(|side| (self.board_id(side), self.score(side) as i64)).collect();
        let outcome =
            text.unwrap_or_else(|| winner.as_ref().map_or_else(|| "draw".to_owned(), |id| format!("{id} wins")));
        self.events.push(Event::BoardGameEnded { winner: winner.clone(), scores, outcome });
        self.game.outcome = Some(BoardOutcome { winner });
    }

    fn roll(&mut self) {
        let own = self.ctx.own;
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(own) else { return };
        let mut allowed = [false; 1_000];
        let mut count = 0u64;
        for value in 1..=code.faces {
            self.ctx.roll = value;
            let ok = code.roll_filter.as_ref().is_none_or(|filter| truth(eval(filter, self)));
            if ok && let Some(slot) = allowed.get_mut((value - 1) as usize) {
                *slot = true;
                count += 1;
            }
        }
        if count == 0 {
            self.events.push(Event::Warning("the roll filter allows no value; the die rolls any value".into()));
            allowed.iter_mut().take(code.faces as usize).for_each(|slot| *slot = true);
            count = code.faces as u64;
        }
        let nth = rand_core::Rng::next_u64(&mut self.rng) % count;
        let value =
            (1..=code.faces).filter(|v| allowed.get((v - 1) as usize) == Some(&true)).nth(nth as usize).unwrap_or(1);
        self.ctx.roll = 0;
        self.game.die = Some(Die { card: code.die.clone(), value });
        self.events.push(Event::BoardRolled { board: self.board_id(own), value });
        self.run_rules(&code.on_roll);
    }
}

impl Session {
    /// Board play, if the content has it.
    pub fn board(&self) -> Option<&BoardState> {
        self.board.as_ref()
    }

    /// The board choices of the moment, after the table's.
    pub(super) fn board_choices(&self, choices: &mut Vec<Choice>) {
        let Some(state) = &self.board else { return };
        let game = &state.game;
        if game.outcome.is_some() || self.state.outcome.is_some() {
            return;
        }
        let Some(side) = game.sides.get(game.active) else { return };
        let board = &side.board;
        if game.die.is_some() {
            for column in 1..=side.columns {
                if side.first_free(column).is_some() {
                    choices.push(Choice::PlaceOnBoard { board: board.clone(), column });
                }
            }
            return;
        }
        choices.push(Choice::RollDie { board: board.clone() });
        // Listing card targets evaluates conditions on a copy of the game: only when a card can be played.
        if game.card_played || side.hand.is_empty() {
            return;
        }
        let mut run = self.board_run();
        for (at, card) in side.hand.iter().enumerate() {
            if side.hand.get(..at).is_some_and(|before| before.contains(card)) {
                continue;
            }
            run.play_choices(board, card, choices);
        }
    }

    /// A run over a copy of the board game (for listing choices and queries).
    fn board_run(&self) -> Run {
        let (setup, game) = match &self.board {
            Some(state) => (Arc::clone(&state.setup), state.game.clone()),
            None => (Arc::new(Setup::empty()), BoardGame::empty()),
        };
        let own = game.active;
        Run {
            setup,
            reads: None,
            game,
            rng: self.rng.clone(),
            ctx: Ctx { own, ..Ctx::default() },
            depth: 0,
            events: Vec::new(),
        }
    }

    /// Does a board choice; refused unless it is possible now.
    pub(super) fn apply_board(&mut self, choice: &Choice) -> Result<Vec<Event>, super::ChoiceError> {
        let game = self.board.as_ref().map(|state| &state.game).filter(|game| game.outcome.is_none());
        let active = game.and_then(|game| game.sides.get(game.active).map(|side| (game, side)));
        // Rolls and placements are checked directly: they are most steps of a simulation.
        let possible = match choice {
            Choice::RollDie { board } => active.is_some_and(|(game, side)| side.board == *board && game.die.is_none()),
            Choice::PlaceOnBoard { board, column } => active.is_some_and(|(game, side)| {
                side.board == *board && game.die.is_some() && side.first_free(*column).is_some()
            }),
            Choice::PlayBoardCard { .. } => {
                let mut choices = Vec::new();
                self.board_choices(&mut choices);
                choices.contains(choice)
            }
            _ => false,
        };
        let Some(state) = self.board.as_mut().filter(|_| possible) else {
            return Err(super::ChoiceError::NotPossible(format!("{choice:?}")));
        };
        let own = state.game.active;
        let mut run = Run {
            setup: Arc::clone(&state.setup),
            reads: None,
            game: std::mem::replace(&mut state.game, BoardGame::empty()),
            rng: self.rng.clone(),
            ctx: Ctx { own, ..Ctx::default() },
            depth: 0,
            events: Vec::new(),
        };
        match choice {
            Choice::RollDie { .. } => run.roll(),
            Choice::PlaceOnBoard { column, .. } => run.place(*column),
            Choice::PlayBoardCard { card, option, target, second, .. } => run.play(card, *option, *target, *second),
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
        self.counters.steps += 1;
        Ok(events)
    }
}

impl Setup {
    fn empty() -> Self {
        Self {
            sides: Vec::new(),
            reads: Vec::new(),
            rules: Vec::new(),
            plays: HashMap::new(),
            var_names: Vec::new(),
            column_var_names: Vec::new(),
        }
    }
}

impl BoardGame {
    fn empty() -> Self {
        Self { sides: Vec::new(), active: 0, die: None, turn: 0, card_played: false, outcome: None }
    }
}

impl Run {
    /// The choices of playing `card`: each option × target its condition allows.
    fn play_choices(&mut self, board: &Id<Board>, card: &CardId, choices: &mut Vec<Choice>) {
        let setup = Arc::clone(&self.setup);
        let Some(play) = setup.plays.get(card) else { return };
        let own = self.ctx.own;
        let facing = setup.sides.get(own).and_then(|side| side.facing);
        let mut targets: Vec<Aim> = Vec::new();
        let dice = |side: Option<usize>| -> Vec<(u32, u32)> {
            let Some(state) = side.and_then(|side| self.game.sides.get(side)) else { return Vec::new() };
            (1..=state.columns)
                .flat_map(|c| (1..=state.rows).map(move |r| (c, r)))
                .filter(|(c, r)| state.cell(*c, *r).is_some())
                .collect()
        };
        match play.target {
            BoardTarget::Nothing => targets.push((None, None)),
            BoardTarget::OwnColumn => {
                let columns = self.game.sides.get(own).map_or(0, |state| state.columns);
                targets.extend((1..=columns).map(|c| (Some((c, 0)), None)));
            }
            BoardTarget::OwnDie => targets.extend(dice(Some(own)).into_iter().map(|cell| (Some(cell), None))),
            BoardTarget::FacingDie => targets.extend(dice(facing).into_iter().map(|cell| (Some(cell), None))),
            BoardTarget::OwnDicePair => {
                let own_dice = dice(Some(own));
                for (at, first) in own_dice.iter().enumerate() {
                    for second in own_dice.iter().skip(at + 1) {
                        targets.push((Some(*first), Some(*second)));
                    }
                }
            }
        }
        let options = if play.options.is_empty() { 0..=0 } else { 1..=play.options.len() as u32 };
        for option in options {
            for (target, second) in &targets {
                self.set_target(play.target, option, *target, *second);
                let ok = play.condition.as_ref().is_none_or(|condition| truth(eval(condition, self)));
                if ok {
                    choices.push(Choice::PlayBoardCard {
                        board: board.clone(),
                        card: card.clone(),
                        option,
                        target: *target,
                        second: *second,
                    });
                }
            }
        }
        self.ctx = Ctx { own, ..Ctx::default() };
    }

    /// The context of playing a card at a target.
    fn set_target(&mut self, kind: BoardTarget, option: u32, target: Option<(u32, u32)>, second: Option<(u32, u32)>) {
        let own = self.ctx.own;
        let side = if kind == BoardTarget::FacingDie {
            self.setup.sides.get(own).and_then(|side| side.facing).unwrap_or(own)
        } else {
            own
        };
        let cell = target.filter(|(_, row)| *row > 0).map(|(c, r)| (side, c, r));
        let value = cell.and_then(|(side, c, r)| self.game.sides.get(side)?.cell(c, r).map(|die| die.value));
        self.ctx = Ctx {
            own,
            column: target.map(|(c, _)| c),
            cell,
            second: second.map(|(c, r)| (side, c, r)),
            cell_value: value.unwrap_or(0),
            option: i64::from(option),
            roll: 0,
        };
    }

    fn play(&mut self, card: &CardId, option: u32, target: Option<(u32, u32)>, second: Option<(u32, u32)>) {
        let own = self.ctx.own;
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
        self.run_rules(&play.rules);
        self.ctx = Ctx { own, ..Ctx::default() };
    }

    fn place(&mut self, column: u32) {
        let own = self.ctx.own;
        let Some(die) = self.game.die.take() else { return };
        let Some(row) = self.game.sides.get(own).and_then(|side| side.first_free(column)) else { return };
        let value = die.value;
        if let Some(side) = self.game.sides.get_mut(own) {
            side.put(column, row, Some(die));
        }
        self.events.push(Event::BoardPlaced { board: self.board_id(own), column, row, value });
        let setup = Arc::clone(&self.setup);
        let Some(code) = setup.sides.get(own) else { return };
        self.ctx =
            Ctx { own, column: Some(column), cell: Some((own, column, row)), cell_value: value, ..Ctx::default() };
        self.run_rules(&code.on_place);
        self.ctx = Ctx { own, ..Ctx::default() };
        self.run_rules(&code.on_turn_end);
        if self.game.outcome.is_none() && !self.game.sides.is_empty() {
            self.game.active = (own + 1) % self.game.sides.len();
            self.game.turn += 1;
            self.game.card_played = false;
            self.events.push(Event::BoardTurn { board: self.board_id(self.game.active) });
        }
    }
}

impl Session {
    /// The value of a formula in board play: board names read the boards (the active side is
    /// `board.own`), other names the table.
    pub(super) fn board_query(&self, formula: &str) -> Result<f64, String> {
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
            let read = read_of(lookup, &ids, &state.setup.var_names, &state.setup.column_var_names);
            let read = if read == Read::Missing && !is_board_name(&lookup.name) {
                Read::Fixed(self.table_query(&lookup_text(lookup)).unwrap_or(f64::NAN))
            } else {
                read
            };
            reads.push(read);
        }
        let mut run = self.board_run();
        run.reads = Some(reads);
        let program = set.program::<Run>(&compiled);
        Ok(program.eval(&mut run))
    }
}

/// Whether a name belongs to the board namespace.
fn is_board_name(name: &str) -> bool {
    let first = name.split('.').next().unwrap_or_default();
    matches!(first, "board" | "column" | "facing_column" | "cell" | "option" | "roll" | "die")
}

/// Writes the boards in words, one line per row, for logs and the CLI.
pub fn describe_boards(state: &BoardState) -> String {
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
        let _ = writeln!(out, "  die: {}", die.value);
    }
    out
}

/// A board target written `C` (a column) or `C,R` (a cell).
fn parse_target(word: &str) -> Option<(u32, u32)> {
    match word.split_once(',') {
        Some((c, r)) => Some((c.parse().ok()?, r.parse().ok()?)),
        None => Some((word.parse().ok()?, 0)),
    }
}

fn write_target(target: Option<(u32, u32)>) -> String {
    match target {
        None => String::new(),
        Some((c, 0)) => format!(" {c}"),
        Some((c, r)) => format!(" {c},{r}"),
    }
}

impl Session {
    /// The active board side's board, for script lines.
    fn active_board(&self) -> Result<Id<Board>, String> {
        let state = self.board.as_ref().ok_or("this project has no board play (no entry board has a die)")?;
        if state.game.outcome.is_some() {
            return Err("the game has ended".to_owned());
        }
        state.game.sides.get(state.game.active).map(|side| side.board.clone()).ok_or_else(|| "no boards".to_owned())
    }

    /// The board script lines (`roll`, `place`, `ability`, `setup`); `None` for other commands.
    pub(super) fn board_script_line(
        &mut self,
        command: &str,
        rest: &str,
        report: &mut super::script::ScriptReport,
    ) -> Option<Result<String, String>> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let result = match command {
            "roll" => self.active_board().and_then(|board| self.apply_line(&Choice::RollDie { board }, report)),
            "place" => self.place_line(&words, report),
            "ability" => self.ability_line(&words).and_then(|choice| self.apply_line(&choice, report)),
            "setup" => self.setup_line(&words).map(|()| String::new()),
            _ => return None,
        };
        Some(result)
    }

    fn apply_line(&mut self, choice: &Choice, report: &mut super::script::ScriptReport) -> Result<String, String> {
        let events = self.apply(choice).map_err(|_| self.board_refusal(choice))?;
        let note = events
            .iter()
            .filter_map(|event| match event {
                Event::BoardRolled { value, .. } => Some(format!("  rolled {value};")),
                Event::BoardDestroyed { board, column, row, value } => {
                    Some(format!("  destroyed {value} at {board} {column},{row};"))
                }
                Event::BoardGameEnded { outcome, .. } => Some(format!("  game over: {outcome};")),
                _ => None,
            })
            .collect();
        self.record(events, report);
        Ok(note)
    }

    /// Why a board choice is refused and what is possible instead.
    fn board_refusal(&self, choice: &Choice) -> String {
        if self.state.outcome.is_some() {
            return "the game has ended".to_owned();
        }
        let legal: Vec<String> = self.choices().iter().map(|choice| self.describe_choice(choice)).collect();
        format!("{}; possible now: {}", self.board_why_not(choice), legal.join(", "))
    }

    fn place_line(&mut self, words: &[&str], report: &mut super::script::ScriptReport) -> Result<String, String> {
        let (die, board, column) = match words {
            [board, column] => (None, *board, *column),
            [die, board, column] => (Some(*die), *board, *column),
            _ => return Err("usage: place [DIE] BOARD COLUMN".to_owned()),
        };
        let column: u32 = column.parse().map_err(|_| format!("`{column}` is not a column number"))?;
        let active = self.active_board()?;
        let mut note = String::new();
        let rolled = self.board.as_ref().is_some_and(|state| state.game.die.is_some());
        if !rolled && board == active.as_str() {
            // `place` on a turn not yet rolled rolls first, like a player who picks the die up.
            note = self.apply_line(&Choice::RollDie { board: active.clone() }, report)?;
        }
        if let (Some(die), Some(state)) = (die, &self.board)
            && let Some(rolled) = &state.game.die
            && rolled.card.as_str() != die
        {
            return Err(format!("the die in hand is a `{}`, not `{die}`", rolled.card));
        }
        let placed = self.apply_line(&Choice::PlaceOnBoard { board: Id::new(board), column }, report)?;
        Ok(note + &placed)
    }

    fn ability_line(&self, words: &[&str]) -> Result<Choice, String> {
        let board = self.active_board()?;
        let (card, rest) = words.split_first().ok_or("usage: ability CARD [OPTION] [C or C,R] [C,R]")?;
        let options = self
            .content
            .project
            .cards
            .get(card)
            .and_then(|card| card.board_play.as_ref())
            .map(|play| play.options.clone())
            .unwrap_or_default();
        let mut option = 0;
        let mut targets = Vec::new();
        for word in rest {
            if let Some(at) = options.iter().position(|label| label == word) {
                option = at as u32 + 1;
            } else {
                targets.push(parse_target(word).ok_or_else(|| {
                    format!(
                        "`{word}` is neither an option of `{card}` ({}) nor a column or C,R cell",
                        options.join(", ")
                    )
                })?);
            }
        }
        Ok(Choice::PlayBoardCard {
            board,
            card: Id::new(*card),
            option,
            target: targets.first().copied(),
            second: targets.get(1).copied(),
        })
    }

    /// Test setup outside the rules: `setup cell BOARD C R VALUE|empty`, `setup die VALUE`,
    /// `setup turn BOARD`.
    fn setup_line(&mut self, words: &[&str]) -> Result<(), String> {
        let state = self.board.as_mut().ok_or("this project has no board play")?;
        match words {
            ["cell", board, column, row, value] => {
                let (_, side) = state.side(board).ok_or_else(|| format!("no board `{board}` in play"))?;
                let card =
                    state.setup.sides.get(state.side(board).map_or(0, |(at, _)| at)).map(|code| code.die.clone());
                let (column, row): (u32, u32) =
                    (column.parse().map_err(|_| "COLUMN is a number")?, row.parse().map_err(|_| "ROW is a number")?);
                if side.index(column, row).is_none() {
                    return Err(format!("{board} has no cell {column},{row}"));
                }
                let die = match *value {
                    "empty" => None,
                    value => Some(Die {
                        card: card.unwrap_or_default(),
                        value: value.parse().map_err(|_| "VALUE is a number or empty")?,
                    }),
                };
                let at = state.side(board).map_or(0, |(at, _)| at);
                if let Some(side) = state.game.sides.get_mut(at) {
                    side.put(column, row, die);
                }
                Ok(())
            }
            ["die", value] => {
                let value: i64 = value.parse().map_err(|_| "VALUE is a number")?;
                let card = state.setup.sides.get(state.game.active).map(|code| code.die.clone()).unwrap_or_default();
                state.game.die = Some(Die { card, value });
                Ok(())
            }
            ["turn", board] => {
                let (at, _) = state.side(board).ok_or_else(|| format!("no board `{board}` in play"))?;
                state.game.active = at;
                state.game.die = None;
                state.game.card_played = false;
                Ok(())
            }
            _ => Err("usage: setup cell BOARD C R VALUE|empty, setup die VALUE, or setup turn BOARD".to_owned()),
        }
    }

    /// Why a board choice is not possible now (before listing what is).
    pub(super) fn board_why_not(&self, choice: &Choice) -> &'static str {
        let Some(state) = &self.board else { return "this project has no board play" };
        let game = &state.game;
        let active = game.sides.get(game.active).map(|side| &side.board);
        match choice {
            Choice::RollDie { board } | Choice::PlaceOnBoard { board, .. } | Choice::PlayBoardCard { board, .. }
                if Some(board) != active =>
            {
                "it is not that board's turn"
            }
            Choice::RollDie { .. } => "the die is already rolled",
            Choice::PlaceOnBoard { .. } if game.die.is_none() => "no die is rolled",
            Choice::PlaceOnBoard { .. } => "that column has no free cell",
            Choice::PlayBoardCard { .. } if game.die.is_some() => "cards are played before rolling",
            Choice::PlayBoardCard { .. } if game.card_played => "a card was already played this turn",
            _ => "that card is not in hand or cannot be played at that target",
        }
    }

    /// A board choice as the script line that makes it.
    pub(super) fn describe_board_choice(&self, choice: &Choice) -> String {
        match choice {
            Choice::RollDie { .. } => "roll".to_owned(),
            Choice::PlaceOnBoard { board, column } => format!("place {board} {column}"),
            Choice::PlayBoardCard { card, option, target, second, .. } => {
                let label = self
                    .content
                    .project
                    .cards
                    .get(card.as_str())
                    .and_then(|card| card.board_play.as_ref())
                    .and_then(|play| play.options.get((*option as usize).wrapping_sub(1)))
                    .map_or_else(String::new, |label| format!(" {label}"));
                format!("ability {card}{label}{}{}", write_target(*target), write_target(*second))
            }
            _ => String::new(),
        }
    }

    /// The board expectations (`score`, `cell`, `winner`, `die`, `turn`, `hand`); `None` for others.
    pub(super) fn board_expect(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        let words: Vec<&str> = args.split_whitespace().collect();
        let check = |name: String, actual: String, expected: String| {
            if actual == expected { Ok(String::new()) } else { Err(format!("{name} is {actual}, expected {expected}")) }
        };
        let state = self.board.as_ref();
        let side = |board: &str| {
            state
                .and_then(|state| state.side(board))
                .map(|(_, side)| side)
                .ok_or_else(|| format!("no board `{board}` in play"))
        };
        let result = match (what, words.as_slice()) {
            ("score", [board, expected]) => side(board).and_then(|_| {
                let score = self.board_query(&format!("board.{board}.score"))?;
                check(format!("score of {board}"), format!("{score}"), (*expected).to_owned())
            }),
            ("cell", [board, column, row, expected]) => side(board).and_then(|side| {
                let (Ok(column), Ok(row)) = (column.parse::<u32>(), row.parse::<u32>()) else {
                    return Err("usage: expect cell BOARD C R VALUE|empty".to_owned());
                };
                let actual = side.cell(column, row).map_or_else(|| "empty".to_owned(), |die| die.value.to_string());
                check(format!("cell {column},{row} of {board}"), actual, (*expected).to_owned())
            }),
            ("winner", [expected]) => {
                let actual = match state.and_then(|state| state.game.outcome.as_ref()) {
                    None => "none".to_owned(),
                    Some(BoardOutcome { winner: None }) => "draw".to_owned(),
                    Some(BoardOutcome { winner: Some(id) }) => id.to_string(),
                };
                check("the winner".to_owned(), actual, (*expected).to_owned())
            }
            ("die", [expected]) => {
                let actual = state
                    .and_then(|state| state.game.die.as_ref())
                    .map_or_else(|| "none".to_owned(), |die| die.value.to_string());
                check("the die".to_owned(), actual, (*expected).to_owned())
            }
            ("turn", [expected]) => {
                let actual = state
                    .and_then(|state| state.game.sides.get(state.game.active))
                    .map_or_else(|| "none".to_owned(), |side| side.board.to_string());
                check("the side to play".to_owned(), actual, (*expected).to_owned())
            }
            ("hand", [board, cards @ ..]) => side(board).and_then(|side| {
                let actual: Vec<&str> = side.hand.iter().map(Id::as_str).collect();
                check(format!("hand of {board}"), format!("[{}]", actual.join(" ")), format!("[{}]", cards.join(" ")))
            }),
            _ => return None,
        };
        Some(result)
    }
}
