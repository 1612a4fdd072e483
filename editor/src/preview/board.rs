//! The board preview (Knucklebones and its kin): two boards face each other across the table as
//! in the original, column scores beside each column, the total with the score formula's bonus
//! beside each board, equal dice coloured (doubles, triples, an equal diagonal, both diagonals),
//! a winner banner with every score; a click on a column places the rolled die, a click on a
//! cell aims the ability card chosen from the hand, whose unplayable cards are greyed with why.
//! It shows what the side to play sees (`Session::view`: no secrets of its own board, a hidden
//! die as "?"), everything with the debug toggle; cell variables show as tags in their cells.

use actforge_runtime::engine::board::{BoardGame, BoardSideState, BoardState};
use actforge_runtime::engine::{Choice, Session, Subject};
use actforge_runtime::model::{Board, BoardTarget, CardId, Id};
use egui::{Color32, CornerRadius, RichText, Stroke, Vec2};
use egui_phosphor::regular as icon;

use super::views::{colour32, heading_ui, name_of, text_on, wrapped_rows};
use crate::style::readable_text_colour;

/// The side of a board cell.
const CELL: f32 = 50.0;
/// The gap between cells.
const GAP: f32 = 6.0;
/// A die shown twice in its column.
const DOUBLE: Color32 = Color32::from_rgb(0xe3, 0xb8, 0x3a);
/// A die shown three times (or more) in its column.
const TRIPLE: Color32 = Color32::from_rgb(0x4f, 0x9d, 0xe0);
/// A die on a diagonal of equal dice.
const DIAGONAL: Color32 = Color32::from_rgb(0xb0, 0x7c, 0xf0);
/// Both diagonals equal (Exodia in Knucklebones).
const BOTH_DIAGONALS: Color32 = Color32::from_rgb(0xe0, 0x4f, 0x6a);
/// A column or cell the designer can click now.
const CLICKABLE: Color32 = Color32::from_rgb(0x6c, 0xe4, 0x91);

/// The ability card the designer chose, waiting for its target (editor state).
#[derive(Default)]
pub struct BoardPick {
    armed: Option<Armed>,
}

/// An ability card and option waiting for a target; for a pair of dice, the first one picked.
#[derive(Clone, PartialEq)]
struct Armed {
    board: Id<Board>,
    card: CardId,
    option: u32,
    first: Option<(u32, u32)>,
}

/// What a click on a board can do.
#[derive(Default)]
struct Aims {
    /// Columns a click places the rolled die in.
    place: Vec<u32>,
    /// Columns a click aims the armed card at.
    columns: Vec<u32>,
    /// Cells a click aims the armed card at.
    cells: Vec<(u32, u32)>,
}

/// The boards, the hand, the rolled die and the winner.
pub(super) fn board_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    pick: &mut BoardPick,
    show_hidden: bool,
    chosen: &mut Vec<Choice>,
) {
    let Some(board) = session.board() else { return };
    // Hot-seat: the table shows what the side to play may see.
    let to_play = board.game.sides.get(board.game.active).map(|side| side.board.clone());
    let view = to_play.filter(|_| !show_hidden).and_then(|side| session.view(side.as_str()));
    let game = view.as_ref().map_or(&board.game, |view| &view.game);
    heading_ui(ui, icon::GRID_FOUR, &format!("Boards — turn {}", game.turn));
    // A pick the game no longer offers (the turn moved on, a replay) is dropped.
    if let Some(armed) = &pick.armed
        && !choices.iter().any(|choice| offers(choice, armed))
    {
        pick.armed = None;
    }
    if game.outcome.is_some() {
        winner_banner_ui(ui, session, game);
    }
    let die_hidden = view.as_ref().is_some_and(|view| view.die_hidden);
    status_ui(ui, session, (game, die_hidden), choices, pick, chosen);
    // Two boards face each other: the second on top, mirrored, so column k meets column k.
    let order: Vec<usize> = if game.sides.len() == 2 { vec![1, 0] } else { (0..game.sides.len()).collect() };
    let facing = game.sides.len() == 2;
    let mut draw_side = |ui: &mut egui::Ui, index: usize, mirrored: bool| {
        if let Some(side) = game.sides.get(index) {
            side_ui(ui, session, (board, game), index, side, mirrored, choices, pick, chosen);
        }
    };
    if facing {
        for (at, index) in order.into_iter().enumerate() {
            draw_side(ui, index, at == 0);
            if at == 0 {
                ui.add_space(4.0);
                ui.separator();
                ui.add_space(4.0);
            }
        }
    } else {
        ui.horizontal_wrapped(|ui| {
            for index in order {
                draw_side(ui, index, false);
            }
        });
    }
    legend_ui(ui);
}

/// Whether `choice` plays the armed card (any target).
fn offers(choice: &Choice, armed: &Armed) -> bool {
    matches!(choice, Choice::PlayBoardCard { board, card, option, target, .. }
        if *board == armed.board && *card == armed.card && *option == armed.option
            && armed.first.is_none_or(|first| *target == Some(first)))
}

/// The side's label.
fn side_name(session: &Session, side: &BoardSideState) -> String {
    name_of(&session.content().project.boards, side.board.as_str())
}

/// A score formula's value on a board, 0 when it has none.
fn score(session: &Session, formula: &str) -> i64 {
    session.query(formula).map_or(0, |value| value.round() as i64)
}

/// The winner and every side's score.
fn winner_banner_ui(ui: &mut egui::Ui, session: &Session, game: &BoardGame) {
    let Some(outcome) = &game.outcome else { return };
    let scores: Vec<String> = game
        .sides
        .iter()
        .map(|side| format!("{} {}", side_name(session, side), score(session, &format!("board.{}.score", side.board))))
        .collect();
    let headline = match &outcome.winner {
        Some(winner) => {
            format!("{} {} wins", icon::TROPHY, name_of(&session.content().project.boards, winner.as_str()))
        }
        None => format!("{} A draw", icon::HANDSHAKE),
    };
    let fill = Color32::from_rgb(0xe8, 0xd0, 0x8a);
    egui::Frame::new().fill(fill).corner_radius(CornerRadius::same(8)).inner_margin(10.0).show(ui, |ui| {
        ui.label(RichText::new(format!("{headline} — {}", scores.join(" : "))).heading().color(Color32::BLACK));
    });
}

/// The rolled die, the roll button or what the armed card waits for.
fn status_ui(
    ui: &mut egui::Ui,
    session: &Session,
    (game, hidden): (&BoardGame, bool),
    choices: &[Choice],
    pick: &mut BoardPick,
    chosen: &mut Vec<Choice>,
) {
    ui.horizontal_wrapped(|ui| {
        if let Some(die) = &game.die {
            die_chip_ui(ui, (!hidden).then_some(die.value));
            if hidden {
                ui.label("The die is hidden from the side to play: click a column to place it blind");
            } else {
                ui.label("Click a column ringed in green to place the die");
            }
        }
        for choice in choices {
            if let Choice::RollDie { .. } = choice
                && ui
                    .button(format!("{} Roll the die", icon::DICE_FIVE))
                    .on_hover_text(session.describe_choice(choice))
                    .clicked()
            {
                chosen.push(choice.clone());
            }
        }
        if let Some(armed) = &pick.armed {
            let card = name_of(&session.content().project.cards, armed.card.as_str());
            let what = if armed.first.is_some() { "Click the second die" } else { "Click a target ringed in green" };
            ui.label(RichText::new(format!("{card}: {what}")).strong());
            if ui.button("Cancel").on_hover_text("Put the card back without playing it").clicked() {
                pick.armed = None;
            }
        }
    });
}

/// A rolled die as a small tile; a hidden one shows "?".
fn die_chip_ui(ui: &mut egui::Ui, value: Option<i64>) {
    let (rect, response) = ui.allocate_exact_size(Vec2::splat(32.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 6.0, Color32::WHITE);
    let text = value.map_or_else(|| "?".to_owned(), |value| value.to_string());
    ui.painter().text(rect.center(), egui::Align2::CENTER_CENTER, &text, egui::FontId::monospace(18.0), Color32::BLACK);
    let hint = match value {
        Some(value) => format!("The rolled die: {value}"),
        None => "The rolled die, hidden from the side to play until placed (the debug toggle shows it)".to_owned(),
    };
    response.on_hover_text(hint);
}

/// Where a click on side `index`'s board can go now.
fn aims(game: &BoardGame, index: usize, choices: &[Choice], pick: &BoardPick, session: &Session) -> Aims {
    let mut aims = Aims::default();
    let Some(side) = game.sides.get(index) else { return aims };
    match &pick.armed {
        None => {
            for choice in choices {
                if let Choice::PlaceOnBoard { board: on, column } = choice
                    && *on == side.board
                {
                    aims.place.push(*column);
                }
            }
        }
        Some(armed) => {
            // A card aimed at the facing board targets that board's cells.
            let kind = session
                .content()
                .project
                .cards
                .get(armed.card.as_str())
                .and_then(|card| card.board_play.as_ref())
                .map(|play| play.target)
                .unwrap_or_default();
            let aimed_at = if matches!(kind, BoardTarget::FacingDie | BoardTarget::FacingCell) {
                facing_of(session, &armed.board)
            } else {
                Some(armed.board.clone())
            };
            if aimed_at.as_ref() != Some(&side.board) {
                return aims;
            }
            for choice in choices.iter().filter(|choice| offers(choice, armed)) {
                let Choice::PlayBoardCard { target: Some(target), second, .. } = choice else { continue };
                let cell = match (armed.first, second) {
                    (None, _) => *target,
                    (Some(_), Some(second)) => *second,
                    (Some(_), None) => continue,
                };
                if cell.1 == 0 {
                    aims.columns.push(cell.0);
                } else if !aims.cells.contains(&cell) {
                    aims.cells.push(cell);
                }
            }
        }
    }
    aims
}

/// The board a board faces, if any.
fn facing_of(session: &Session, board: &Id<Board>) -> Option<Id<Board>> {
    session.content().project.boards.get(board.as_str()).and_then(|board| board.facing.clone())
}

/// Which dice are equal along the diagonals of a square board: (first, second).
fn equal_diagonals(side: &BoardSideState) -> (bool, bool) {
    if side.columns != side.rows || side.columns < 2 {
        return (false, false);
    }
    let n = side.columns;
    let equal = |cells: Vec<(u32, u32)>| {
        let values: Vec<Option<i64>> = cells.iter().map(|(c, r)| side.cell(*c, *r).map(|die| die.value)).collect();
        values.first().copied().flatten().is_some_and(|first| values.iter().all(|value| *value == Some(first)))
    };
    (equal((1..=n).map(|k| (k, k)).collect()), equal((1..=n).map(|k| (k, n + 1 - k)).collect()))
}

/// One side: its board, its column scores, its total and its hand.
#[allow(clippy::too_many_arguments)] // one side needs the session, its place, the pick and the output
fn side_ui(
    ui: &mut egui::Ui,
    session: &Session,
    (board, game): (&BoardState, &BoardGame),
    index: usize,
    side: &BoardSideState,
    mirrored: bool,
    choices: &[Choice],
    pick: &mut BoardPick,
    chosen: &mut Vec<Choice>,
) {
    let name = side_name(session, side);
    let active = index == game.active && game.outcome.is_none();
    // The hand lies on the board's outer side, so the two boards meet in the middle.
    if mirrored {
        hand_ui(ui, session, side, active, choices, pick, chosen);
    }
    let title = if active { format!("{name} — to play") } else { name.clone() };
    ui.label(RichText::new(title).strong()).on_hover_text(side.board.as_str());
    ui.horizontal(|ui| {
        let aims = aims(game, index, choices, pick, session);
        if let Some(click) = grid_ui(ui, (session, board), side, &name, mirrored, &aims) {
            clicked_ui(click, side, choices, pick, chosen);
        }
        ui.add_space(16.0);
        total_ui(ui, session, side);
    });
    if !mirrored {
        hand_ui(ui, session, side, active, choices, pick, chosen);
    }
}

/// Does what a click on side's board asks: places the die, or aims the armed card.
fn clicked_ui(click: Click, side: &BoardSideState, choices: &[Choice], pick: &mut BoardPick, chosen: &mut Vec<Choice>) {
    match (click, &mut pick.armed) {
        (Click::Column(column), None) => {
            chosen.push(Choice::PlaceOnBoard { board: side.board.clone(), column });
        }
        (Click::Column(column), Some(armed)) => {
            let target = Some((column, 0));
            if let Some(choice) = choices
                .iter()
                .find(|c| offers(c, armed) && matches!(c, Choice::PlayBoardCard { target: t, .. } if *t == target))
            {
                chosen.push(choice.clone());
            }
            pick.armed = None;
        }
        (Click::Cell(cell), Some(armed)) => {
            let pair =
                choices.iter().any(|c| offers(c, armed) && matches!(c, Choice::PlayBoardCard { second: Some(_), .. }));
            match armed.first {
                None if pair => armed.first = Some(cell),
                _ => {
                    let found = choices.iter().find(|c| {
                        offers(c, armed)
                            && match c {
                                Choice::PlayBoardCard { target, second, .. } => match armed.first {
                                    None => *target == Some(cell),
                                    Some(_) => *second == Some(cell),
                                },
                                _ => false,
                            }
                    });
                    if let Some(choice) = found {
                        chosen.push(choice.clone());
                    }
                    pick.armed = None;
                }
            }
        }
        (Click::Cell(_), None) => {}
    }
}

/// A click on a board.
enum Click {
    Column(u32),
    Cell((u32, u32)),
}

/// The grid with column scores on its outer side; equal dice coloured, clickable columns and
/// cells ringed. Each column (or, while a card aims at cells, each cell) is a button named
/// "BOARD column K" ("BOARD cell K, R") for screen readers and tests.
fn grid_ui(
    ui: &mut egui::Ui,
    (session, board): (&Session, &BoardState),
    side: &BoardSideState,
    name: &str,
    mirrored: bool,
    aims: &Aims,
) -> Option<Click> {
    let columns = side.columns.max(1);
    let rows = side.rows.max(1);
    let score_height = 22.0;
    let width = columns as f32 * (CELL + GAP) - GAP;
    let height = rows as f32 * (CELL + GAP) - GAP + score_height;
    let (rect, _) = ui.allocate_exact_size(Vec2::new(width, height), egui::Sense::hover());
    let grid_top = if mirrored { rect.top() + score_height } else { rect.top() };
    let (diagonal_one, diagonal_two) = equal_diagonals(side);
    let both = diagonal_one && diagonal_two;
    let painter = ui.painter_at(rect.expand(4.0));
    let cell_rect = |column: u32, row: u32| {
        // Row 1 lies next to the other board: at the bottom of a mirrored board, the top otherwise.
        let line = if mirrored { rows - row } else { row - 1 };
        let min = egui::pos2(rect.left() + (column - 1) as f32 * (CELL + GAP), grid_top + line as f32 * (CELL + GAP));
        egui::Rect::from_min_size(min, Vec2::splat(CELL))
    };
    let mut clicked = None;
    for column in 1..=columns {
        let column_rect = cell_rect(column, 1).union(cell_rect(column, rows));
        let clickable = aims.place.contains(&column) || aims.columns.contains(&column);
        let response = ui.interact(column_rect, ui.id().with(("board_column", name, column)), egui::Sense::click());
        let label = format!("{name} column {column}");
        response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, clickable, &label));
        if clickable {
            let stroke = if response.hovered() { 3.0 } else { 1.5 };
            painter.rect_stroke(
                column_rect.expand(3.0),
                6.0,
                Stroke::new(stroke, CLICKABLE),
                egui::StrokeKind::Outside,
            );
            let hint =
                if aims.place.is_empty() { "Aim the card at this column" } else { "Place the die in this column" };
            if response.on_hover_text(hint).clicked() {
                clicked = Some(Click::Column(column));
            }
        }
        let values: Vec<i64> = (1..=rows).filter_map(|row| side.cell(column, row).map(|die| die.value)).collect();
        for row in 1..=rows {
            let cell = cell_rect(column, row);
            let die = side.cell(column, row);
            let on_one = row == column && diagonal_one;
            let on_two = row == columns + 1 - column && diagonal_two;
            let fill = match die {
                None => ui.visuals().extreme_bg_color,
                Some(_) if both && (on_one || on_two) => BOTH_DIAGONALS,
                Some(die) => match values.iter().filter(|value| **value == die.value).count() {
                    0 | 1 => ui.visuals().widgets.inactive.bg_fill,
                    2 => DOUBLE,
                    _ => TRIPLE,
                },
            };
            painter.rect_filled(cell, 6.0, fill);
            if !both && (on_one || on_two) && die.is_some() {
                painter.rect_stroke(cell, 6.0, Stroke::new(3.0, DIAGONAL), egui::StrokeKind::Inside);
            }
            if let Some(die) = die {
                let ink = if fill == ui.visuals().widgets.inactive.bg_fill {
                    ui.visuals().strong_text_color()
                } else {
                    text_on(fill)
                };
                painter.text(
                    cell.center(),
                    egui::Align2::CENTER_CENTER,
                    die.value.to_string(),
                    egui::FontId::monospace(24.0),
                    ink,
                );
            }
            // Cell variables (a trap) as tags in the cell's corner; none: an empty text.
            painter.text(
                cell.left_top() + Vec2::new(4.0, 3.0),
                egui::Align2::LEFT_TOP,
                cell_tags(session, board, side, (column, row)),
                egui::FontId::proportional(11.0),
                readable_text_colour(BOTH_DIAGONALS, ui.visuals()),
            );
            if aims.cells.contains(&(column, row)) {
                let response = ui.interact(cell, ui.id().with(("board_cell", name, column, row)), egui::Sense::click());
                let label = format!("{name} cell {column}, {row}");
                response.widget_info(|| egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &label));
                let stroke = if response.hovered() { 3.5 } else { 2.0 };
                painter.rect_stroke(cell.expand(2.0), 7.0, Stroke::new(stroke, CLICKABLE), egui::StrokeKind::Outside);
                if response.on_hover_text("Aim the card here").clicked() {
                    clicked = Some(Click::Cell((column, row)));
                }
            }
        }
        let column_score = score(session, &format!("board.{}.col{column}.score", side.board));
        let score_y =
            if mirrored { rect.top() + score_height / 2.0 - 2.0 } else { rect.bottom() - score_height / 2.0 + 2.0 };
        painter.text(
            egui::pos2(column_rect.center().x, score_y),
            egui::Align2::CENTER_CENTER,
            column_score.to_string(),
            egui::FontId::proportional(16.0),
            ui.visuals().strong_text_color(),
        );
    }
    clicked
}

/// A cell's variables away from their start values, as tags ("trap"; "name N" unless N is 1).
fn cell_tags(session: &Session, board: &BoardState, side: &BoardSideState, (column, row): (u32, u32)) -> String {
    let start = session.content().project.boards.get(side.board.as_str()).map(|board| &board.cell_vars);
    let tags: Vec<String> = board
        .cell_var_names()
        .iter()
        .filter_map(|name| {
            let value = board.cell_var(side, column, row, name)?;
            (Some(value) != start.and_then(|start| start.get(name)).copied())
                .then(|| if value == 1 { name.clone() } else { format!("{name} {value}") })
        })
        .collect();
    tags.join(" ")
}

/// The side's score: the score formula, with what it adds beyond the column scores (e.g. a
/// diagonal bonus) beside it.
fn total_ui(ui: &mut egui::Ui, session: &Session, side: &BoardSideState) {
    let id = side.board.as_str();
    let total = score(session, &format!("board.{id}.score"));
    let columns: i64 = (1..=side.columns).map(|column| score(session, &format!("board.{id}.col{column}.score"))).sum();
    let bonus = total - columns;
    ui.vertical(|ui| {
        ui.label(RichText::new("Total").weak());
        ui.label(RichText::new(total.to_string()).size(30.0).strong())
            .on_hover_text(format!("`board.{id}.score`: the board's score formula"));
        if bonus != 0 {
            let colour = readable_text_colour(DIAGONAL, ui.visuals());
            ui.label(RichText::new(format!("{columns} + bonus {bonus}")).color(colour)).on_hover_text(
                "What the score formula adds beyond the column scores (in Knucklebones: the diagonal bonus)",
            );
        }
    });
}

/// The side's ability cards: label, description and a button per option; the active side's
/// unplayable cards greyed with why.
fn hand_ui(
    ui: &mut egui::Ui,
    session: &Session,
    side: &BoardSideState,
    active: bool,
    choices: &[Choice],
    pick: &mut BoardPick,
    chosen: &mut Vec<Choice>,
) {
    let cards = &session.content().project.cards;
    let mut seen: Vec<&CardId> = Vec::new();
    for card in &side.hand {
        if !seen.contains(&card) {
            seen.push(card);
        }
    }
    // Framed cards cannot wrap in egui's wrapping layout: rows of as many as fit.
    wrapped_rows(ui, &seen, 184.0, |ui, card| {
        let card = *card;
        {
            let copies = side.hand.iter().filter(|held| *held == card).count();
            let definition = cards.get(card.as_str());
            let label = name_of(cards, card.as_str());
            let plays: Vec<&Choice> = choices
                .iter()
                .filter(|choice| matches!(choice, Choice::PlayBoardCard { board, card: c, .. } if *board == side.board && c == card))
                .collect();
            let usable = active && !plays.is_empty();
            let base = definition.map_or(Color32::DARK_GRAY, |definition| colour32(definition.colour));
            let fill = if usable || !active { base } else { base.gamma_multiply(0.35) };
            let ink = if usable || !active { text_on(base) } else { ui.visuals().weak_text_color() };
            egui::Frame::new().fill(fill).corner_radius(CornerRadius::same(8)).inner_margin(8.0).show(ui, |ui| {
                ui.set_width(160.0);
                ui.vertical(|ui| {
                    let times = if copies > 1 { format!(" ×{copies}") } else { String::new() };
                    ui.label(RichText::new(format!("{label}{times}")).strong().color(ink)).on_hover_text(card.as_str());
                    if let Some(definition) = definition.filter(|d| !d.description.is_empty()) {
                        ui.add(egui::Label::new(RichText::new(&definition.description).small().color(ink)).wrap());
                    }
                    if !active {
                        return;
                    }
                    if !usable {
                        let why = session
                            .explain(&Subject::Ability { card: card.to_string(), option: 0 })
                            .unwrap_or_default();
                        for reason in why {
                            ui.add(
                                egui::Label::new(
                                    RichText::new(format!("{} {}", icon::PROHIBIT, reason.text)).small().color(ink),
                                )
                                .wrap(),
                            );
                        }
                        return;
                    }
                    card_buttons_ui(ui, session, side, card, &plays, pick, chosen);
                });
            });
        }
    });
}

/// A playable card's buttons: one per option (or "Play"); a card with a target arms the pick.
fn card_buttons_ui(
    ui: &mut egui::Ui,
    session: &Session,
    side: &BoardSideState,
    card: &CardId,
    plays: &[&Choice],
    pick: &mut BoardPick,
    chosen: &mut Vec<Choice>,
) {
    let label = name_of(&session.content().project.cards, card.as_str());
    let options: Vec<String> = session
        .content()
        .project
        .cards
        .get(card.as_str())
        .and_then(|definition| definition.board_play.as_ref())
        .map(|play| play.options.clone())
        .unwrap_or_default();
    let numbers: Vec<u32> = if options.is_empty() { vec![0] } else { (1..=options.len() as u32).collect() };
    ui.horizontal_wrapped(|ui| {
        for option in numbers {
            let text = match option.checked_sub(1).and_then(|at| options.get(at as usize)) {
                Some(option) => format!("{label}: {option}"),
                None => format!("Play {label}"),
            };
            let offered: Vec<&&Choice> = plays
                .iter()
                .filter(|choice| matches!(choice, Choice::PlayBoardCard { option: o, .. } if *o == option))
                .collect();
            let armed = Armed { board: side.board.clone(), card: card.clone(), option, first: None };
            let is_armed = pick.armed.as_ref().is_some_and(|a| a.card == armed.card && a.option == option);
            let button = egui::Button::new(&text).selected(is_armed);
            let Some(first) = offered.first() else {
                ui.add_enabled(false, button);
                continue;
            };
            let untargeted = matches!(first, Choice::PlayBoardCard { target: None, .. });
            let hint = if untargeted {
                session.describe_choice(first)
            } else {
                "Choose, then click its target on the board".to_owned()
            };
            if ui.add(button).on_hover_text(hint).clicked() {
                if untargeted {
                    chosen.push((**first).clone());
                    pick.armed = None;
                } else {
                    pick.armed = if is_armed { None } else { Some(armed) };
                }
            }
        }
    });
}

/// What the colours mean.
fn legend_ui(ui: &mut egui::Ui) {
    ui.horizontal_wrapped(|ui| {
        for (colour, text) in [
            (DOUBLE, "double"),
            (TRIPLE, "triple"),
            (DIAGONAL, "equal diagonal"),
            (BOTH_DIAGONALS, "both diagonals (Exodia)"),
        ] {
            let (rect, _) = ui.allocate_exact_size(Vec2::splat(12.0), egui::Sense::hover());
            ui.painter().rect_filled(rect, 3.0, colour);
            ui.label(RichText::new(text).small().weak());
        }
    });
}
