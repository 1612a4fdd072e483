//! What board play compiles content into once per session: formulas as programs (those of the
//! rules it runs too, found by their text's address), each lookup as a [`Read`].

use std::sync::Arc;

use rand_pcg::Pcg64Mcg;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::formula::names::{BoardLine, BoardName, BoardPart, BoardRef, BoardStat, GameName};
use crate::formula::{Lookup, Program, Scope};
use crate::model::{Board, BoardTarget, BoardTiming, CardId, Expr, Id, Project, RuleId};

use super::step::Run;
use super::{BoardGame, BoardSideState, BoardState};
use crate::engine::content::Content;

/// A formula's code: a constant or a program.
pub(super) enum Code {
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
pub(super) enum Which {
    Own,
    Facing,
    Side(usize),
}

/// A name part over cells: a statistic or a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Stat(BoardStat),
    Var(usize),
    ColumnVar(usize),
}

/// What a lookup reads in board play.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Read {
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
    CellFilled,
    CellVar(usize),
    Score(Which),
    Cell(Which, u32, u32),
    /// A part of a board, a line, or the context column.
    Part(Which, Area, Part),
}

/// The cells a [`Read::Part`] covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Area {
    Board,
    Line(BoardLine),
    ContextColumn,
}

/// A [`Read`] resolved for one side in focus (`board.own`): the board it reads is a side
/// index, a fixed column a cell range, so a read is one jump to a slice or a variable, with no
/// board, line or part worked out at every read. Built once per content for every side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Flat {
    /// A value that does not depend on the game (a name this side cannot read: NaN).
    Fixed(f64),
    Option,
    Roll,
    /// A statistic over a side's cells `start..start + len` (a column).
    Cells {
        side: usize,
        start: usize,
        len: usize,
        stat: BoardStat,
    },
    /// A statistic over a side's context column.
    ContextColumn {
        side: usize,
        stat: BoardStat,
    },
    /// A statistic over a side's whole board.
    Board {
        side: usize,
        stat: BoardStat,
    },
    /// A statistic over a side's cells at `at[..len]` (a row or diagonal), on a board of
    /// `columns` × `rows`.
    Placed {
        side: usize,
        columns: u32,
        rows: u32,
        at: [u16; MAX_PLACED],
        len: u8,
        stat: BoardStat,
    },
    /// A side's row or diagonal (or a column past the board's) read the general way.
    Line {
        side: usize,
        line: BoardLine,
        stat: BoardStat,
    },
    /// A side's variable at this place of its board or column variables.
    Var {
        side: usize,
        at: usize,
    },
    ColumnVar {
        side: usize,
        at: usize,
    },
    /// A side's column variable `var` (of `count` per column) in the context column.
    ContextColumnVar {
        side: usize,
        var: usize,
        count: usize,
    },
    /// Anything else, read the general way.
    General(Read),
}

/// Longest row or diagonal a [`Flat::Placed`] reads.
pub(super) const MAX_PLACED: usize = 8;

/// Where in the cells of a board of `columns` × `rows` the places of a row or diagonal lie, if
/// it has at most [`MAX_PLACED`] and they are all on the board (else it is read the general way).
fn placed(line: BoardLine, columns: u32, rows: u32) -> Option<([u16; MAX_PLACED], u8)> {
    let shape = BoardSideState {
        board: Id::default(),
        columns,
        rows,
        cells: Vec::new(),
        vars: Vec::new(),
        column_vars: Vec::new(),
        cell_vars: Vec::new(),
        hand: Vec::new(),
    };
    let len = shape.line_len(line);
    if len as usize > MAX_PLACED {
        return None;
    }
    let mut at = [0u16; MAX_PLACED];
    for (k, slot) in (1..=len).zip(at.iter_mut()) {
        let (c, r) = shape.line_cell(line, k);
        *slot = u16::try_from(shape.index(c, r)?).ok()?;
    }
    Some((at, u8::try_from(len).ok()?))
}

/// `read` for the side `own` in focus, on boards of the sizes of `sizes` (columns, rows per
/// side) with `column_vars` column variables: what [`Run::read`] gives, resolved ahead.
fn flat_of(read: Read, own: usize, sides: &[SideCode], sizes: &[(u32, u32)], column_vars: usize) -> Flat {
    let Read::Part(which, area, part) = read else {
        return match read {
            Read::Missing => Flat::Fixed(f64::NAN),
            Read::Fixed(value) => Flat::Fixed(value),
            Read::Option => Flat::Option,
            Read::Roll => Flat::Roll,
            read => Flat::General(read),
        };
    };
    let side = match which {
        Which::Own => Some(own),
        Which::Facing => sides.get(own).and_then(|side| side.facing),
        Which::Side(side) => Some(side),
    };
    let Some((side, &(columns, rows))) = side.and_then(|side| Some((side, sizes.get(side)?))) else {
        return Flat::Fixed(f64::NAN);
    };
    match (part, area) {
        // Read with no context column it is NaN, as the general reading says.
        (Part::Var(_), Area::ContextColumn) => Flat::General(read),
        (Part::Var(at), _) => Flat::Var { side, at },
        (Part::Stat(stat), Area::Board) => Flat::Board { side, stat },
        (Part::Stat(stat), Area::ContextColumn) => Flat::ContextColumn { side, stat },
        (Part::Stat(_), Area::Line(BoardLine::Column(c) | BoardLine::Row(c))) if c > columns.max(rows) => {
            Flat::Fixed(f64::NAN)
        }
        (Part::Stat(stat), Area::Line(BoardLine::Column(c))) if c >= 1 && c <= columns => Flat::Cells {
            side,
            start: (c.saturating_sub(1) as usize).saturating_mul(rows as usize),
            len: rows as usize,
            stat,
        },
        (Part::Stat(stat), Area::Line(line)) => placed(line, columns, rows)
            .map_or(Flat::Line { side, line, stat }, |(at, len)| Flat::Placed { side, columns, rows, at, len, stat }),
        (Part::ColumnVar(var), Area::Line(BoardLine::Column(c))) if c >= 1 => {
            Flat::ColumnVar { side, at: (c.saturating_sub(1) as usize).saturating_mul(column_vars).saturating_add(var) }
        }
        (Part::ColumnVar(var), Area::ContextColumn) => Flat::ContextColumnVar { side, var, count: column_vars },
        (Part::ColumnVar(_), _) => Flat::Fixed(f64::NAN),
    }
}

/// A card's target and the second cell of a pair.
pub(super) type Aim = (Option<(u32, u32)>, Option<(u32, u32)>);

#[derive(Debug)]
pub(super) struct PlayCode {
    pub(super) target: BoardTarget,
    pub(super) timing: BoardTiming,
    pub(super) options: Vec<String>,
    pub(super) condition: Option<Code>,
    pub(super) rules: Vec<RuleId>,
}

#[derive(Debug)]
pub(super) struct SideCode {
    pub(super) facing: Option<usize>,
    pub(super) die: CardId,
    pub(super) faces: i64,
    pub(super) score: Option<Code>,
    pub(super) roll_filter: Option<Code>,
    pub(super) hide_roll: Option<Code>,
    pub(super) compact: bool,
    pub(super) on_roll: Vec<RuleId>,
    pub(super) on_place: Vec<RuleId>,
    pub(super) on_turn_end: Vec<RuleId>,
}

/// What board play compiled into, shared by every session of the content.
#[derive(Debug)]
pub(in crate::engine) struct Setup {
    pub(super) sides: Vec<SideCode>,
    pub(super) reads: Vec<Read>,
    /// Each read resolved for each side in focus: side `own`'s read of slot `s` at
    /// `own * reads.len() + s`.
    pub(super) flat: Vec<Flat>,
    /// The programs of the formulas of the rules board play runs (conditions, test constants,
    /// board modifier values), by the address of their text in the content.
    pub(super) codes: FxHashMap<(usize, usize), Code>,
    /// Each card's play, looked up at every listing and every play (hence Fx).
    pub(super) plays: FxHashMap<CardId, PlayCode>,
    pub(super) var_names: Vec<String>,
    pub(super) column_var_names: Vec<String>,
    pub(super) cell_var_names: Vec<String>,
    /// Whether every read only reads: a read of a score evaluates that board's `score`
    /// formula, so none of them may draw or report ([`crate::formula::Env::reads_only_read`]).
    pub(super) reads_only_read: bool,
}

/// The variable names of board play: of boards, of columns and of cells.
pub(super) struct VarNames<'a> {
    pub(super) board: &'a [String],
    pub(super) column: &'a [String],
    pub(super) cell: &'a [String],
}

impl Setup {
    pub(super) fn var_names(&self) -> VarNames<'_> {
        VarNames { board: &self.var_names, column: &self.column_var_names, cell: &self.cell_var_names }
    }
}

/// What a lookup reads in board play: the board names of [`GameName`] bound to this game's
/// sides and variables (a board that exists but is not in play reads as missing, like any
/// unknown name).
pub(super) fn read_of(lookup: &Lookup, project: &Project, sides: &[Id<Board>], names: &VarNames<'_>) -> Read {
    if lookup.scope != Scope::Auto {
        return Read::Missing;
    }
    let GameName::Board(name) = GameName::parse(&lookup.name, |word| project.stats.get(word).is_some()) else {
        return Read::Missing;
    };
    let which = |board: &BoardRef| match board {
        BoardRef::Own => Some(Which::Own),
        BoardRef::Facing => Some(Which::Facing),
        BoardRef::Id(id) => sides.iter().position(|side| side.as_str() == id).map(Which::Side),
    };
    let part = |part: Option<&BoardPart>, column: bool| match part? {
        BoardPart::Stat(stat) => Some(Part::Stat(*stat)),
        BoardPart::Var(name) if column => names.column.iter().position(|var| var == name).map(Part::ColumnVar),
        BoardPart::Var(name) => names.board.iter().position(|var| var == name).map(Part::Var),
    };
    let read = match name {
        BoardName::Option => Some(Read::Option),
        BoardName::Roll => Some(Read::Roll),
        BoardName::DieValue => Some(Read::DieValue),
        BoardName::Turn => Some(Read::Turn),
        BoardName::CellValue => Some(Read::CellValue),
        BoardName::CellColumn => Some(Read::CellColumn),
        BoardName::CellRow => Some(Read::CellRow),
        BoardName::CellFilled => Some(Read::CellFilled),
        BoardName::CellVar(name) => names.cell.iter().position(|var| *var == name).map(Read::CellVar),
        BoardName::Column { facing, part: read } => {
            let board = if facing { Which::Facing } else { Which::Own };
            part(read.as_ref(), true).map(|part| Read::Part(board, Area::ContextColumn, part))
        }
        BoardName::Score(board) => which(&board).map(Read::Score),
        BoardName::Cell(board, cell) => {
            which(&board).zip(cell).map(|(board, (column, row))| Read::Cell(board, column, row))
        }
        BoardName::Line(board, line, read) => which(&board).and_then(|board| {
            part(read.as_ref(), matches!(line, BoardLine::Column(_)))
                .map(|part| Read::Part(board, Area::Line(line), part))
        }),
        BoardName::Whole(board, read) => {
            which(&board).and_then(|board| part(read.as_ref(), false).map(|part| Read::Part(board, Area::Board, part)))
        }
    };
    read.unwrap_or(Read::Missing)
}

/// Builds the code of an expression.
pub(super) fn code(content: &Content, expr: &Expr) -> Code {
    if let Some(value) = expr.as_int() {
        return Code::Constant(value as f64);
    }
    match content.formula(expr) {
        Some(compiled) => Code::Program(content.formulas().program::<Run>(compiled)),
        None => Code::Constant(f64::NAN),
    }
}

/// Where an expression's text lies in the content: the key of its program in [`Setup::codes`].
pub(super) fn text_key(expr: &Expr) -> (usize, usize) {
    (expr.text().as_ptr() as usize, expr.text().len())
}

/// Builds the programs of rule `id` and of the rules it reaches (and/or, furthermore): its
/// condition, its tests' constants and its board modifiers' values.
fn compile_rule(
    content: &Content,
    id: &RuleId,
    seen: &mut FxHashSet<RuleId>,
    codes: &mut FxHashMap<(usize, usize), Code>,
) {
    let Some(rule) = content.rule(id.as_str()) else { return };
    if !seen.insert(rule.id.clone()) {
        return;
    }
    let requirements = &rule.requirements;
    let exprs = requirements
        .condition
        .iter()
        .chain(requirements.tests.iter().map(|test| &test.constant))
        .chain(rule.effects.board_modifiers.iter().map(|modifier| &modifier.value));
    for expr in exprs {
        if expr.as_int().is_none() {
            codes.entry(text_key(expr)).or_insert_with(|| code(content, expr));
        }
    }
    let effects = &rule.effects;
    for next in requirements.and.iter().chain(&requirements.or).chain(&effects.furthermore) {
        compile_rule(content, next, seen, codes);
    }
}

/// The entry boards of `content`, in manifest order.
fn entry_boards(content: &Content) -> Vec<&Board> {
    let project = &content.project;
    project.manifest.entry.boards.iter().filter_map(|id| project.boards.get(id.as_str())).collect()
}

impl Setup {
    /// Compiles board play for `content`'s entry boards. Built once per content (see
    /// [`Content::board_setup`]) and shared by all its sessions: a session reads it and never
    /// clones its ids.
    pub(in crate::engine) fn compile(content: &Content) -> Self {
        let project = &content.project;
        let boards = entry_boards(content);
        let ids: Vec<Id<Board>> = boards.iter().map(|board| board.id.clone()).collect();
        let mut var_names: Vec<String> = boards.iter().flat_map(|board| board.vars.keys().cloned()).collect();
        var_names.sort();
        var_names.dedup();
        let mut column_var_names: Vec<String> =
            boards.iter().flat_map(|board| board.column_vars.keys().cloned()).collect();
        column_var_names.sort();
        column_var_names.dedup();
        let mut cell_var_names: Vec<String> = boards.iter().flat_map(|board| board.cell_vars.keys().cloned()).collect();
        cell_var_names.sort();
        cell_var_names.dedup();
        let names = VarNames { board: &var_names, column: &column_var_names, cell: &cell_var_names };
        let reads: Vec<Read> =
            content.formulas().lookups().map(|lookup| read_of(lookup, project, &ids, &names)).collect();
        let mut seen = FxHashSet::default();
        let mut codes = FxHashMap::default();
        let mut compile_list = |list: &[RuleId]| -> Vec<RuleId> {
            for rule in list {
                compile_rule(content, rule, &mut seen, &mut codes);
            }
            list.to_vec()
        };
        let reads_only_read = boards.iter().filter_map(|board| board.score.as_ref()).all(|score| {
            score.as_int().is_some()
                || content.formula(score).is_none_or(|compiled| content.formulas().reads(compiled).is_some())
        });
        let mut sides = Vec::new();
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
                hide_roll: board.hide_roll.as_ref().map(|expr| code(content, expr)),
                compact: board.compact,
                on_roll: compile_list(&board.on_roll),
                on_place: compile_list(&board.on_place),
                on_turn_end: compile_list(&board.on_turn_end),
            });
        }
        let mut plays = FxHashMap::default();
        for card in boards.iter().flat_map(|board| board.hand.iter()) {
            let Some(play) = project.cards.get(card.as_str()).and_then(|card| card.board_play.as_ref()) else {
                continue;
            };
            if plays.contains_key(card) {
                continue;
            }
            let code = PlayCode {
                target: play.target,
                timing: play.timing,
                options: play.options.clone(),
                condition: play.condition.as_ref().map(|expr| code(content, expr)),
                rules: compile_list(&play.rules),
            };
            plays.insert(card.clone(), code);
        }
        let sizes: Vec<(u32, u32)> = boards.iter().map(|board| (board.columns, board.rows)).collect();
        let per_column = column_var_names.len();
        let flat = (0..sides.len())
            .flat_map(|own| {
                let (sides, sizes) = (&sides, &sizes);
                reads.iter().map(move |read| flat_of(*read, own, sides, sizes, per_column))
            })
            .collect();
        Self { sides, reads, flat, codes, plays, var_names, column_var_names, cell_var_names, reads_only_read }
    }
}

/// The content's compiled board play with the ids a session copies into its state at every
/// step (dice, boards, hands): its own copies, so that the simulation's threads, each playing
/// other sessions, never write to one shared count (cloning the content's ids made 1 → 2
/// threads go from 1.84× to 1.12×).
#[derive(Debug)]
pub(super) struct SessionSetup {
    shared: Arc<Setup>,
    /// Each side's die card type, in side order.
    dice: Vec<CardId>,
}

impl std::ops::Deref for SessionSetup {
    type Target = Setup;

    fn deref(&self) -> &Setup {
        &self.shared
    }
}

impl SessionSetup {
    /// Setup with no boards.
    pub(super) fn empty() -> Self {
        Self { shared: Arc::new(Setup::empty()), dice: Vec::new() }
    }

    /// The card type of side `side`'s die (this session's copy).
    pub(super) fn die(&self, side: usize) -> CardId {
        self.dice.get(side).cloned().unwrap_or_default()
    }
}

/// This session's copy of `id`: one copy per text, so copies compare by address.
fn own_copy<K>(copies: &mut Vec<Id<K>>, id: &Id<K>) -> Id<K> {
    if let Some(copy) = copies.iter().find(|copy| copy.as_str() == id.as_str()) {
        return copy.clone();
    }
    let copy = Id::new(id.as_str());
    copies.push(copy.clone());
    copy
}

impl BoardState {
    /// Board play for `content`, if its entry boards include one with a die; the first side
    /// is drawn from `rng`.
    pub(crate) fn start(content: &Content, rng: &mut Pcg64Mcg) -> Option<Self> {
        let boards = entry_boards(content);
        if !boards.iter().any(|board| board.die.is_some()) {
            return None;
        }
        let shared = content.board_setup();
        let mut cards = Vec::new();
        let dice = shared.sides.iter().map(|side| own_copy(&mut cards, &side.die)).collect();
        let mut states = Vec::new();
        for board in &boards {
            let vars = shared.var_names.iter().map(|name| board.vars.get(name).copied().unwrap_or(0)).collect();
            let column_vars = (0..board.columns)
                .flat_map(|_| {
                    shared.column_var_names.iter().map(|name| board.column_vars.get(name).copied().unwrap_or(0))
                })
                .collect();
            let cells = (board.columns as usize).saturating_mul(board.rows as usize);
            let cell_vars = (0..cells)
                .flat_map(|_| shared.cell_var_names.iter().map(|name| board.cell_vars.get(name).copied().unwrap_or(0)))
                .collect();
            states.push(BoardSideState {
                board: Id::new(board.id.as_str()),
                columns: board.columns,
                rows: board.rows,
                cells: vec![None; cells],
                vars,
                column_vars,
                cell_vars,
                hand: board.hand.iter().map(|card| own_copy(&mut cards, card)).collect(),
            });
        }
        let active = if states.is_empty() {
            0
        } else {
            rand_core::Rng::next_u64(rng).checked_rem(states.len() as u64).unwrap_or(0) as usize
        };
        let game = BoardGame { sides: states, active, turn: 1, ..BoardGame::empty() };
        Some(Self { setup: Arc::new(SessionSetup { shared, dice }), game })
    }
}

impl Setup {
    pub(super) fn empty() -> Self {
        Self {
            sides: Vec::new(),
            reads: Vec::new(),
            flat: Vec::new(),
            codes: FxHashMap::default(),
            plays: FxHashMap::default(),
            var_names: Vec::new(),
            column_var_names: Vec::new(),
            cell_var_names: Vec::new(),
            reads_only_read: true,
        }
    }
}

/// A side as formulas read it: all but its hand.
fn side_for_formulas(side: &BoardSideState) -> BoardSideState {
    BoardSideState {
        board: side.board.clone(),
        columns: side.columns,
        rows: side.rows,
        cells: side.cells.clone(),
        vars: side.vars.clone(),
        column_vars: side.column_vars.clone(),
        cell_vars: side.cell_vars.clone(),
        hand: Vec::new(),
    }
}

impl BoardGame {
    /// A copy of what formulas read (cells, variables, the die, the turn): no hands and no
    /// dice waiting, which only rules and steps read. Listing card plays makes one at every
    /// move while a card can be played, and the hands were a third of its allocations.
    pub(super) fn for_formulas(&self) -> Self {
        let sides = self.sides.iter().map(side_for_formulas).collect();
        Self {
            sides,
            active: self.active,
            die: self.die.clone(),
            turn: self.turn,
            card_played: self.card_played,
            pending: Vec::new(),
            die_hidden: self.die_hidden,
            outcome: self.outcome.clone(),
        }
    }

    /// [`Self::for_formulas`] of `from` written into this game, whose buffers (cells and
    /// variables of every side) are reused: a listing copies the game at every move.
    pub(super) fn copy_for_formulas(&mut self, from: &Self) {
        self.sides.truncate(from.sides.len());
        for (at, side) in from.sides.iter().enumerate() {
            if let Some(mine) = self.sides.get_mut(at) {
                mine.board.clone_from(&side.board);
                mine.columns = side.columns;
                mine.rows = side.rows;
                mine.cells.clone_from(&side.cells);
                mine.vars.clone_from(&side.vars);
                mine.column_vars.clone_from(&side.column_vars);
                mine.cell_vars.clone_from(&side.cell_vars);
                mine.hand.clear();
            } else {
                self.sides.push(side_for_formulas(side));
            }
        }
        self.active = from.active;
        self.die.clone_from(&from.die);
        self.turn = from.turn;
        self.card_played = from.card_played;
        self.pending.clear();
        self.die_hidden = from.die_hidden;
        self.outcome.clone_from(&from.outcome);
    }

    pub(super) fn empty() -> Self {
        Self {
            sides: Vec::new(),
            active: 0,
            die: None,
            turn: 0,
            card_played: false,
            pending: Vec::new(),
            die_hidden: false,
            outcome: None,
        }
    }
}
