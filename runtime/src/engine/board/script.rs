//! Board play's playtest lines and expectations (FORMAT.md §11).

use crate::model::{Board, BoardTarget, BoardTiming, Id};

use super::{BoardOutcome, Die};
use crate::engine::explain::Reason;
use crate::engine::script::{Line, ScriptReport};
use crate::engine::{Choice, Event, Session};

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
    pub(crate) fn board_script_line(
        &mut self,
        command: &str,
        rest: &str,
        report: &mut crate::engine::script::ScriptReport,
    ) -> Option<Result<String, String>> {
        let words: Vec<&str> = rest.split_whitespace().collect();
        let result = match command {
            "roll" => self.roll_line(&words, report),
            // `place unit …` is the battle's set-up line, unless a board is called `unit` and
            // no battle runs.
            "place" if words.first() == Some(&"unit") && (self.tactics.is_some() || !self.has_board("unit")) => {
                return None;
            }
            "place" => self.place_line(&words, report),
            "ability" => self.ability_line(&words).and_then(|choice| self.apply_line(&choice, report)),
            "setup" => self.setup_line(&words).map(|()| String::new()),
            "set" if words.first() == Some(&"cell") => self.setup_line(&words).map(|()| String::new()),
            _ => return None,
        };
        Some(result)
    }

    /// `roll`, or `roll V`: a loaded roll showing V (a face of the die), for tests of what a
    /// roll sets off; the `on_roll` rules run as after any roll.
    fn roll_line(&mut self, words: &[&str], report: &mut ScriptReport) -> Result<String, String> {
        let board = self.active_board()?;
        let choice = Choice::RollDie { board };
        let loaded = match words {
            [] => return self.apply_line(&choice, report),
            [value] => value.parse::<i64>().map_err(|_| format!("`{value}` is not a die value"))?,
            _ => return Err("usage: roll [VALUE]".to_owned()),
        };
        let state = self.board.as_ref().ok_or("this project has no board play")?;
        let code = state.setup.sides.get(state.game.active).ok_or("no board is to play")?;
        if !(1..=code.faces).contains(&loaded) {
            return Err(format!("the die `{}` has faces 1 to {}: it cannot show {loaded}", code.die, code.faces));
        }
        if self.state.outcome.is_some() {
            return Err("the game has ended".to_owned());
        }
        let events = self.apply_board_loaded(&choice, Some(loaded)).map_err(|_| self.board_refusal(&choice))?;
        Ok(self.note_line(events, report))
    }

    fn apply_line(
        &mut self,
        choice: &Choice,
        report: &mut crate::engine::script::ScriptReport,
    ) -> Result<String, String> {
        let events = self.apply(choice).map_err(|_| self.board_refusal(choice))?;
        Ok(self.note_line(events, report))
    }

    /// What a line's events say in the log, once recorded.
    fn note_line(&mut self, events: Vec<Event>, report: &mut ScriptReport) -> String {
        let note = events
            .iter()
            .filter_map(|event| match event {
                Event::BoardRolled { value, .. } => Some(format!("  rolled {value};")),
                Event::BoardDestroyed { board, column, row, value } => {
                    Some(format!("  destroyed {value} at {board} {column},{row};"))
                }
                Event::BoardGameEnded { outcome, .. } => Some(format!("  game over: {outcome};")),
                Event::BoardDieChanged { value, .. } => Some(format!("  the die shows {value};")),
                Event::BoardDieAdded { board, column, row, value } => {
                    Some(format!("  a {value} joined {board} {column},{row};"))
                }
                _ => None,
            })
            .collect();
        self.record(events, report);
        note
    }

    /// Why a board choice is refused and what is possible instead.
    fn board_refusal(&self, choice: &Choice) -> String {
        if self.state.outcome.is_some() {
            return "the game has ended".to_owned();
        }
        let legal: Vec<String> = self.choices().iter().map(|choice| self.describe_choice(choice)).collect();
        format!("{}; possible now: {}", self.board_why_not(choice), legal.join(", "))
    }

    fn place_line(
        &mut self,
        words: &[&str],
        report: &mut crate::engine::script::ScriptReport,
    ) -> Result<String, String> {
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
                option = (at as u32).saturating_add(1);
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

    /// Whether `card` is played after the roll.
    fn after_roll(&self, card: &Id<crate::model::Card>) -> bool {
        let play = self.content.project.cards.get(card.as_str()).and_then(|card| card.board_play.as_ref());
        play.is_some_and(|play| play.timing == BoardTiming::AfterRoll)
    }

    /// Whether board play has a side of board `id`.
    fn has_board(&self, id: &str) -> bool {
        self.board.as_ref().is_some_and(|state| state.side(id).is_some())
    }

    /// Test setup outside the rules: `setup cell BOARD C R VALUE|empty` (also written `set cell
    /// …`), `setup die VALUE`, `setup turn BOARD`.
    fn setup_line(&mut self, words: &[&str]) -> Result<(), String> {
        let state = self.board.as_mut().ok_or("this project has no board play")?;
        match words {
            ["cell", board, column, row, value] => {
                let (at, side) = state.side(board).ok_or_else(|| format!("no board `{board}` in play"))?;
                let code = state.setup.sides.get(at).ok_or_else(|| format!("no board `{board}` in play"))?;
                let column: u32 = column.parse().map_err(|_| format!("`{column}` is not a column number"))?;
                let row: u32 = row.parse().map_err(|_| format!("`{row}` is not a row number"))?;
                if side.index(column, row).is_none() {
                    return Err(format!(
                        "{board} has no cell {column},{row} (columns 1..={}, rows 1..={})",
                        side.columns, side.rows
                    ));
                }
                let die = match *value {
                    "empty" => None,
                    value => {
                        let value: i64 = value.parse().map_err(|_| format!("`{value}` is not a die value or empty"))?;
                        if !(1..=code.faces).contains(&value) {
                            return Err(format!(
                                "{board}'s die `{}` has faces 1 to {}: it cannot show {value}",
                                code.die, code.faces
                            ));
                        }
                        Some(Die { card: state.setup.die(at), value })
                    }
                };
                // A compact board's columns fill from row 1 with no gaps (dice slide down into
                // one), so a position with a gap cannot happen in play.
                if code.compact {
                    let filled = |r: u32| side.cell(column, r).is_some();
                    if die.is_some()
                        && let Some(gap) = (1..row).find(|r| !filled(*r))
                    {
                        return Err(format!(
                            "{board} fills each column from row 1 and its dice slide down: a die at {column},{row} \
                             would float over the empty cell {column},{gap}"
                        ));
                    }
                    if die.is_none()
                        && let Some(above) = (row.saturating_add(1)..=side.rows).find(|r| filled(*r))
                    {
                        return Err(format!(
                            "{board} fills each column from row 1 and its dice slide down: emptying {column},{row} \
                             would leave the die at {column},{above} floating"
                        ));
                    }
                }
                if let Some(side) = state.game.sides.get_mut(at) {
                    side.put(column, row, die);
                }
                Ok(())
            }
            ["die", value] => {
                let value: i64 = value.parse().map_err(|_| format!("`{value}` is not a die value"))?;
                let code = state.setup.sides.get(state.game.active).ok_or("no board is to play")?;
                if !(1..=code.faces).contains(&value) {
                    return Err(format!(
                        "the die `{}` has faces 1 to {}: it cannot show {value}",
                        code.die, code.faces
                    ));
                }
                state.game.die = Some(Die { card: state.setup.die(state.game.active), value });
                Ok(())
            }
            ["var", board, name, value] => {
                let value: i64 = value.parse().map_err(|_| format!("`{value}` is not a whole number"))?;
                let (at, _) = state.side(board).ok_or_else(|| format!("no board `{board}` in play"))?;
                let var = state.setup.var_names.iter().position(|known| known == name).ok_or_else(|| {
                    format!("no board has the variable `{name}` (boards have: {})", state.setup.var_names.join(", "))
                })?;
                if let Some(slot) = state.game.sides.get_mut(at).and_then(|side| side.vars.get_mut(var)) {
                    *slot = value;
                }
                Ok(())
            }
            ["cell-var", board, column, row, name, value] => setup_cell_var(state, [board, column, row, name, value]),
            ["turn", board] => {
                let (at, _) = state.side(board).ok_or_else(|| format!("no board `{board}` in play"))?;
                state.game.active = at;
                state.game.die = None;
                state.game.card_played = false;
                Ok(())
            }
            _ => Err("usage: set cell BOARD C R VALUE|empty (or setup cell …), setup die VALUE, setup turn BOARD, \
                      setup var BOARD NAME VALUE, or setup cell-var BOARD C R NAME VALUE"
                .to_owned()),
        }
    }

    /// Why a board choice is not possible now (before listing what is).
    pub(crate) fn board_why_not(&self, choice: &Choice) -> &'static str {
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
            Choice::PlayBoardCard { card, .. } if game.die.is_some() && !self.after_roll(card) => {
                "that card is played before rolling"
            }
            Choice::PlayBoardCard { card, .. } if game.die.is_none() && self.after_roll(card) => {
                "that card is played after rolling, before placing"
            }
            Choice::PlayBoardCard { .. } if game.card_played => "a card was already played this turn",
            _ => "that card is not in hand or cannot be played at that target",
        }
    }

    /// A board choice as the script line that makes it.
    pub(crate) fn describe_board_choice(&self, choice: &Choice) -> String {
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

    /// The board expectations (`score`, `column-score`, `cell`, `winner`, `die`, `turn`, `hand`);
    /// `None` for others.
    pub(crate) fn board_expect(&self, what: &str, args: &str) -> Option<Result<String, String>> {
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
            ("column-score", [board, column, expected]) => side(board).and_then(|side| {
                let column = column
                    .parse::<u32>()
                    .ok()
                    .filter(|column| (1..=side.columns).contains(column))
                    .ok_or_else(|| format!("{board} has no column `{column}` (columns 1..={})", side.columns))?;
                let score = self.board_query(&format!("board.{board}.col{column}.score"))?;
                check(format!("score of {board}'s column {column}"), format!("{score}"), (*expected).to_owned())
            }),
            ("column-score", _) => Err("usage: expect column-score BOARD COLUMN N".to_owned()),
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
                    Some(BoardOutcome { winner: None, .. }) => "draw".to_owned(),
                    Some(BoardOutcome { winner: Some(id), .. }) => id.to_string(),
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
            ("var", [board, name, expected]) => side(board).and_then(|_| {
                let value = self.board_query(&format!("board.{board}.var.{name}"))?;
                check(format!("{board}'s variable {name}"), format!("{value}"), (*expected).to_owned())
            }),
            ("cell-var", [board, column, row, name, expected]) => side(board).and_then(|side| {
                let (Ok(column), Ok(row)) = (column.parse::<u32>(), row.parse::<u32>()) else {
                    return Err("usage: expect cell-var BOARD C R NAME N".to_owned());
                };
                let value = state
                    .and_then(|state| state.cell_var(side, column, row, name))
                    .ok_or_else(|| format!("{board} has no cell {column},{row} or no cell variable `{name}`"))?;
                check(
                    format!("{board}'s cell {column},{row} variable {name}"),
                    value.to_string(),
                    (*expected).to_owned(),
                )
            }),
            ("die-hidden", [expected]) => {
                let hidden = state.is_some_and(|state| state.game.die_hidden && state.game.die.is_some());
                check("the die hidden".to_owned(), if hidden { "yes" } else { "no" }.to_owned(), (*expected).to_owned())
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

/// `setup cell-var BOARD C R NAME VALUE`.
fn setup_cell_var(state: &mut super::BoardState, [board, column, row, name, value]: [&str; 5]) -> Result<(), String> {
    let value: i64 = value.parse().map_err(|_| format!("`{value}` is not a whole number"))?;
    let (at, side) = state.side(board).ok_or_else(|| format!("no board `{board}` in play"))?;
    let (Ok(column), Ok(row)) = (column.parse::<u32>(), row.parse::<u32>()) else {
        return Err("usage: setup cell-var BOARD C R NAME VALUE".to_owned());
    };
    let cell = side.index(column, row).ok_or_else(|| {
        format!("{board} has no cell {column},{row} (columns 1..={}, rows 1..={})", side.columns, side.rows)
    })?;
    let names = &state.setup.cell_var_names;
    let var = names
        .iter()
        .position(|known| known == name)
        .ok_or_else(|| format!("no board has the cell variable `{name}` (boards have: {})", names.join(", ")))?;
    let at_var = cell.saturating_mul(names.len()).saturating_add(var);
    if let Some(slot) = state.game.sides.get_mut(at).and_then(|side| side.cell_vars.get_mut(at_var)) {
        *slot = value;
    }
    Ok(())
}

impl Session {
    /// Board play's playtest lines (`roll`, `place`, `ability`, `setup`), applied at once.
    pub(crate) fn board_command(
        &mut self,
        command: &str,
        rest: &str,
        report: &mut ScriptReport,
    ) -> Option<Result<Line, String>> {
        self.board_script_line(command, rest, report).map(|result| result.map(Line::Done))
    }
}

impl Session {
    /// The number from 1 of `card`'s board option named `option` (its label or its number).
    pub(crate) fn board_option_index(&self, card: &str, option: &str) -> Result<u32, String> {
        let play = self
            .content
            .project
            .cards
            .get(card)
            .and_then(|card| card.board_play.as_ref())
            .ok_or_else(|| format!("`{card}` is not a board ability card"))?;
        let at = play.options.iter().position(|label| label == option);
        let number = at.map(|at| (at as u32).saturating_add(1)).or_else(|| option.parse::<u32>().ok());
        number
            .filter(|n| (1..=play.options.len() as u32).contains(n))
            .ok_or_else(|| format!("`{card}` has no option `{option}` (it has: {})", play.options.join(", ")))
    }

    /// Why `card` (its option `option` from 1, 0: any) cannot be played on the board now: no
    /// board play, the game over, not in the hand, the die rolled, a card played this turn, no
    /// target, or its condition holding at no target.
    pub(crate) fn explain_ability(&self, card: &str, option: u32) -> Result<Vec<Reason>, String> {
        let found = self.content.project.cards.get(card).ok_or_else(|| format!("there is no card `{card}`"))?;
        let item = match found.board_play.as_ref().and_then(|play| play.options.get((option as usize).wrapping_sub(1)))
        {
            Some(label) => format!("ability `{card}` ({label})"),
            None => format!("ability `{card}`"),
        };
        let Some(play) = &found.board_play else { return Ok(vec![Reason::new(item, "the card has no board ability")]) };
        let Some(state) = &self.board else { return Ok(vec![Reason::new(item, "this project has no board play")]) };
        let game = &state.game;
        let Some(side) = game.sides.get(game.active) else {
            return Ok(vec![Reason::new(item, "no side has the turn")]);
        };
        let why = if game.outcome.is_some() || self.state.outcome.is_some() {
            Some("the game has ended".to_owned())
        } else if !side.hand.iter().any(|held| held.as_str() == card) {
            Some(format!("{card} is not in {}'s hand", side.board))
        } else if game.die.is_some() && play.timing == BoardTiming::BeforeRoll {
            Some("it is played before rolling, and the die is rolled".to_owned())
        } else if game.die.is_none() && play.timing == BoardTiming::AfterRoll {
            Some("it is played after rolling, before placing: roll first".to_owned())
        } else if game.card_played {
            Some("a card was already played this turn".to_owned())
        } else {
            None
        };
        if let Some(why) = why {
            return Ok(vec![Reason::new(item, why)]);
        }
        let playable = self.choices().iter().any(|choice| {
            matches!(choice, Choice::PlayBoardCard { card: c, option: o, .. }
                if c.as_str() == card && (option == 0 || *o == option))
        });
        if playable {
            return Ok(Vec::new());
        }
        let dice = |side: Option<&super::BoardSideState>| {
            side.map_or(0, |side| {
                (1..=side.columns)
                    .flat_map(|c| (1..=side.rows).map(move |r| (c, r)))
                    .filter(|(c, r)| side.cell(*c, *r).is_some())
                    .count()
            })
        };
        let facing = state.setup.sides.get(game.active).and_then(|code| code.facing).and_then(|at| game.sides.get(at));
        let no_target = match play.target {
            BoardTarget::OwnDie if dice(Some(side)) == 0 => Some("no target: its own board holds no die"),
            BoardTarget::OwnDicePair if dice(Some(side)) < 2 => Some("no target: it needs two dice on its own board"),
            BoardTarget::FacingDie if dice(facing) == 0 => Some("no target: the facing board holds no die"),
            _ => None,
        };
        let text = match (no_target, &play.condition) {
            (Some(words), _) => words.to_owned(),
            (None, Some(condition)) => format!("its condition `{}` holds at no target", condition.text()),
            (None, None) => "it cannot be played now".to_owned(),
        };
        Ok(vec![Reason::new(item, text)])
    }
}
