//! The preview's view of each system, driven only by the session's state and choices (no
//! per-game code): the table, turns, boards, tactics and campaign, the synthesis table, every
//! choice as a button and the event log.

use std::collections::BTreeMap;

use actforge_runtime::Kind;
use actforge_runtime::engine::{
    CardInstance, CardKey, Choice, OpenSlot, Reason, Session, Status, Subject, TokenKey, Window,
};
use actforge_runtime::model::{Colour, EdgeStyle, Item, Items, NodeKind};
use egui::{Color32, CornerRadius, RichText, Stroke, Vec2};
use egui_phosphor::regular as icon;

use crate::document::ItemKey;
use crate::style::{kind_colour, readable_text_colour};
use crate::views::map::{CellTint, MapViewState, Overlays, UnitMarker, map_view_ui};

/// An item's label, or its id where it has none (or is missing).
fn name_of<T: Item>(items: &Items<T>, id: &str) -> String {
    items.get(id).map(Item::label).filter(|label| !label.is_empty()).unwrap_or(id).to_owned()
}

/// The colour of model content in egui.
fn colour32(colour: Colour) -> Color32 {
    if colour.a == 0 {
        // Opaque, so the chip and its text (chosen by `text_on`) look alike on either theme.
        let accent = kind_colour(Kind::Card);
        let dim = |channel: u8| (u16::from(channel) * 3 / 5) as u8;
        return Color32::from_rgb(dim(accent.r()), dim(accent.g()), dim(accent.b()));
    }
    Color32::from_rgba_unmultiplied(colour.r, colour.g, colour.b, colour.a)
}

/// Black or white, whichever reads on `fill`.
fn text_on(fill: Color32) -> Color32 {
    let luma = 0.299 * f32::from(fill.r()) + 0.587 * f32::from(fill.g()) + 0.114 * f32::from(fill.b());
    if luma > 150.0 { Color32::BLACK } else { Color32::WHITE }
}

/// What the designer asked the preview for while it was drawn.
#[derive(Default)]
pub struct Wants {
    /// Choices to apply, in order.
    pub chosen: Vec<Choice>,
    /// Playtest lines to run (e.g. `synthesize a b`).
    pub lines: Vec<String>,
    /// A line to start the game over from ("play from here").
    pub play_from: Option<String>,
}

/// Draws every system the session plays, each under its own heading.
pub fn systems_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    debug: &mut bool,
    map_view: &mut MapViewState,
    wants: &mut Wants,
    select: &mut Vec<ItemKey>,
) {
    let chosen = &mut wants.chosen;
    if let Some(outcome) = &session.state().outcome {
        ui.label(RichText::new(format!("{} The game has ended: {outcome:?}", icon::FLAG_CHECKERED)).strong());
    }
    if has_table(session) {
        table_ui(ui, session, choices, chosen, select);
    }
    if session.turns().is_some() {
        turns_ui(ui, session, choices, debug, chosen);
    }
    if session.board().is_some() {
        board_ui(ui, session, choices, chosen);
    }
    if session.tactics().is_some() {
        tactics_ui(ui, session, choices, map_view, chosen);
    }
    if session.campaign().is_some() {
        campaign_ui(ui, session, choices, wants);
    }
}

fn heading_ui(ui: &mut egui::Ui, glyph: &str, title: &str) {
    ui.add_space(6.0);
    ui.label(RichText::new(format!("{glyph} {title}")).heading());
}

// ---------------------------------------------------------------- table

/// A window's name as the designer reads it: the token's label, numbered when several are out.
fn window_name(session: &Session, key: TokenKey, window: &Window) -> String {
    let label = session
        .content()
        .project
        .tokens
        .get(window.token.as_str())
        .map_or_else(|| window.token.to_string(), |token| token.label.clone());
    let nth = session.state().windows.iter().filter(|(k, w)| w.token == window.token && **k <= key).count();
    if nth > 1 { format!("{label} #{nth}") } else { label }
}

fn table_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    chosen: &mut Vec<Choice>,
    select: &mut Vec<ItemKey>,
) {
    heading_ui(ui, icon::CARDS, "Table");
    let dragged = egui::DragAndDrop::payload::<CardKey>(ui.ctx()).map(|key| *key);
    let windows: Vec<(&TokenKey, &Window)> = session.state().windows.iter().collect();
    wrapped_rows(ui, &windows, WINDOW_WIDTH + 24.0, |ui, (key, window)| {
        window_ui(ui, session, choices, **key, window, dragged, chosen, select);
    });
}

/// Whether the session plays the table (act windows or cards).
pub fn has_table(session: &Session) -> bool {
    !session.state().windows.is_empty() || !session.state().table.is_empty()
}

/// The cards on the table, in a column beside the windows so both stay in view while dragging.
pub fn table_cards_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    ui.label(RichText::new(format!("{} On the table", icon::CARDS)).strong());
    ui.label(RichText::new("Drag a card into a slot").weak().small());
    let cards: Vec<(CardKey, &CardInstance)> =
        session.state().table.iter().filter_map(|key| session.state().card(*key).map(|card| (*key, card))).collect();
    wrapped_rows(ui, &cards, CARD_WIDTH + 20.0, |ui, (key, card)| card_ui(ui, session, choices, *key, card, chosen));
    if cards.is_empty() {
        ui.label(RichText::new("No cards on the table.").weak());
    }
}

/// The width of an act window on the table.
const WINDOW_WIDTH: f32 = 230.0;
/// The least width of a slot.
const SLOT_WIDTH: f32 = 100.0;
/// The least width of a card chip.
const CARD_WIDTH: f32 = 100.0;

/// Lays `items` out in rows of as many as fit the width (egui's wrapping layout cannot wrap
/// framed groups, whose size is known only after drawing).
fn wrapped_rows<T>(ui: &mut egui::Ui, items: &[T], item_width: f32, mut item_ui: impl FnMut(&mut egui::Ui, &T)) {
    let per_row = ((ui.available_width() / item_width).floor() as usize).max(1);
    for row in items.chunks(per_row) {
        ui.horizontal(|ui| {
            for item in row {
                item_ui(ui, item);
            }
        });
    }
}

/// A card on the table or in a lane: a coloured chip with its label and aspect badges, dragged
/// into slots; a face-down card offers to turn over.
fn card_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    key: CardKey,
    card: &CardInstance,
    chosen: &mut Vec<Choice>,
) {
    let definition = session.content().project.cards.get(card.card.as_str());
    if card.face_down {
        let flip = Choice::Flip { card: key };
        let label = format!("{} Face-down card", icon::QUESTION);
        if ui.add_enabled(choices.contains(&flip), egui::Button::new(label)).on_hover_text("Turn it over").clicked() {
            chosen.push(flip);
        }
        return;
    }
    let label = definition.map_or_else(|| card.card.to_string(), |definition| definition.label.clone());
    let fill = definition.map_or(kind_colour(Kind::Card), |definition| colour32(definition.colour));
    let id = egui::Id::new(("preview_card", key.0));
    let chip = |ui: &mut egui::Ui| {
        egui::Frame::new().fill(fill).corner_radius(CornerRadius::same(6)).inner_margin(6.0).show(ui, |ui| {
            ui.set_min_width(CARD_WIDTH - 12.0);
            ui.vertical(|ui| {
                ui.label(RichText::new(&label).strong().color(text_on(fill)));
                let badges: Vec<String> =
                    card.aspects.iter().take(4).map(|(aspect, n)| format!("{aspect} {n}")).collect();
                if !badges.is_empty() {
                    ui.label(RichText::new(badges.join(" · ")).small().color(text_on(fill)));
                }
                if let Some(decay) = &card.decay {
                    let per_second = f64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
                    let seconds = decay.remaining as f64 / per_second;
                    ui.label(RichText::new(format!("{} {seconds:.1} s", icon::HOURGLASS)).small().color(text_on(fill)));
                }
            });
        });
    };
    if card.free {
        ui.dnd_drag_source(id, key, chip).response.on_hover_text(format!("Drag {label} into a slot"));
    } else {
        chip(ui);
    }
}

#[allow(clippy::too_many_arguments)] // one window needs the session, its choices, the drag and both outputs
fn window_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    token: TokenKey,
    window: &Window,
    dragged: Option<CardKey>,
    chosen: &mut Vec<Choice>,
    select: &mut Vec<ItemKey>,
) {
    let colour = session
        .content()
        .project
        .tokens
        .get(window.token.as_str())
        .map_or(kind_colour(Kind::Token), |definition| colour32(definition.colour));
    let name = window_name(session, token, window);
    egui::Frame::group(ui.style()).stroke(Stroke::new(2.0, colour)).corner_radius(CornerRadius::same(8)).show(
        ui,
        |ui| {
            ui.set_width(WINDOW_WIDTH);
            ui.vertical(|ui| {
                ui.horizontal(|ui| {
                    let title = readable_text_colour(colour, ui.visuals());
                    ui.label(RichText::new(format!("{} {name}", icon::COIN)).strong().color(title));
                    ui.label(RichText::new(status_word(&window.status)).weak());
                });
                if !window.title.is_empty() {
                    let title =
                        ui.add(egui::Label::new(RichText::new(&window.title).heading()).sense(egui::Sense::click()));
                    if let Some(act) = &window.active
                        && title.on_hover_text("Click to open the act").clicked()
                    {
                        select.push(ItemKey::new(Kind::Act, act.to_string()));
                    }
                }
                timer_ui(ui, session, window);
                if !window.text.is_empty() {
                    ui.label(&window.text);
                }
                slots_ui(ui, session, choices, token, window, dragged, chosen);
                if window.status == Status::Idle {
                    why_not_ui(ui, session, token);
                }
                if !window.lane.is_empty() {
                    ui.label(RichText::new("Results").weak());
                    let lane: Vec<(CardKey, &CardInstance)> = window
                        .lane
                        .iter()
                        .filter_map(|key| session.state().card(*key).map(|card| (*key, card)))
                        .collect();
                    wrapped_rows(ui, &lane, CARD_WIDTH + 20.0, |ui, (key, card)| {
                        card_ui(ui, session, choices, *key, card, chosen);
                    });
                }
                window_buttons_ui(ui, choices, token, &name, chosen);
            });
        },
    );
}

/// "Why does no act start?": each act the player could start in the idle window, with the
/// requirement it lacks and the values (worked out only while the section is open); a failing
/// condition shows its parts' values on hover, what makes it false in red.
fn why_not_ui(ui: &mut egui::Ui, session: &Session, token: TokenKey) {
    why_not_list_ui(
        ui,
        ("why_not", token.0),
        "Why does no act start?",
        "No act of this token is waiting on anything.",
        || session.explain(&Subject::Window(token)).unwrap_or_default(),
    );
}

/// The colour of a "why not" reason.
const REASON_COLOUR: Color32 = Color32::from_rgb(0xf2, 0xb3, 0x3d);

/// A collapsed "Why not?" section: the reasons `reasons` gives (asked only while it is open),
/// grouped under the item each belongs to; `none` when there is none.
fn why_not_list_ui(
    ui: &mut egui::Ui,
    salt: impl std::hash::Hash + std::fmt::Debug,
    title: &str,
    none: &str,
    reasons: impl FnOnce() -> Vec<Reason>,
) {
    egui::CollapsingHeader::new(RichText::new(format!("{} {title}", icon::QUESTION)).weak()).id_salt(salt).show(
        ui,
        |ui| {
            let reasons = reasons();
            if reasons.is_empty() {
                ui.label(RichText::new(none).weak());
            }
            let mut item: Option<&str> = None;
            for reason in &reasons {
                if item != Some(reason.item.as_str()) {
                    item = Some(reason.item.as_str());
                    ui.label(RichText::new(&reason.item).strong());
                }
                let colour = readable_text_colour(REASON_COLOUR, ui.visuals());
                ui.label(RichText::new(format!("• {}", reason.text)).color(colour));
                if let Some(trace) = &reason.trace {
                    ui.indent(("why_not_trace", &reason.item, &reason.text), |ui| {
                        crate::views::formula::trace_ui(ui, trace);
                    });
                }
            }
        },
    );
}

/// The reasons as tooltip lines: "item: text" one per line.
fn reason_lines(reasons: &[Reason]) -> String {
    let lines: Vec<String> = reasons.iter().map(ToString::to_string).collect();
    lines.join("\n")
}

fn status_word(status: &Status) -> &'static str {
    match status {
        Status::Idle => "idle",
        Status::Ready(_) => "ready",
        Status::Running => "running",
        Status::Finished => "finished",
    }
}

fn timer_ui(ui: &mut egui::Ui, session: &Session, window: &Window) {
    let Some(end) = window.timer_end else { return };
    let per_second = f64::from(session.content().project.manifest.settings.ticks_per_second.max(1));
    let remaining = end.saturating_sub(session.state().tick);
    let total = window.timer_total.max(1);
    let done = 1.0 - remaining as f32 / total as f32;
    let text = format!("{} {:.1} s left", icon::TIMER, remaining as f64 / per_second);
    ui.add(egui::ProgressBar::new(done.clamp(0.0, 1.0)).desired_height(14.0).text(text));
}

fn slots_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    token: TokenKey,
    window: &Window,
    dragged: Option<CardKey>,
    chosen: &mut Vec<Choice>,
) {
    let project = &session.content().project;
    let places: Vec<(usize, &OpenSlot)> = window
        .status_places()
        .filter_map(|place| window.places.get(place).and_then(Option::as_ref).map(|open| (place, open)))
        .collect();
    wrapped_rows(ui, &places, SLOT_WIDTH + 20.0, |ui, &(place, open)| {
        let slot_label =
            project.slots.get(open.slot.as_str()).map_or_else(|| open.slot.to_string(), |s| s.label.clone());
        let fits = dragged.is_some_and(|card| choices.contains(&Choice::Slot { card, token, place }));
        let stroke_colour = if fits { Color32::from_rgb(0x6c, 0xe4, 0x91) } else { kind_colour(Kind::Slot) };
        let frame = egui::Frame::new()
            .stroke(Stroke::new(if fits { 2.5 } else { 1.0 }, stroke_colour))
            .corner_radius(CornerRadius::same(6))
            .inner_margin(6.0);
        let (zone, dropped) = ui.dnd_drop_zone::<CardKey, ()>(frame, |ui| {
            ui.set_min_size(Vec2::new(SLOT_WIDTH, 40.0));
            ui.vertical(|ui| {
                let title = readable_text_colour(stroke_colour, ui.visuals());
                ui.label(RichText::new(format!("{slot_label} slot")).small().color(title));
                match open.card.and_then(|key| session.state().card(key).map(|card| (key, card))) {
                    Some((_, card)) => {
                        let label = project
                            .cards
                            .get(card.card.as_str())
                            .map_or_else(|| card.card.to_string(), |c| c.label.clone());
                        let unslot = Choice::Unslot { token, place };
                        let can_take = choices.contains(&unslot);
                        let button = egui::Button::new(format!("{label} {}", icon::X));
                        if ui.add_enabled(can_take, button).on_hover_text("Take it out").clicked() {
                            chosen.push(unslot);
                        }
                    }
                    None => {
                        ui.label(RichText::new("empty").weak());
                    }
                }
            });
        });
        if let Some(card) = dropped {
            chosen.push(Choice::Slot { card: *card, token, place });
        }
        // A card held over a slot that will not take it: why, under the cursor.
        if let Some(card) = dragged.filter(|_| !fits && zone.response.contains_pointer()) {
            let reasons = session.explain(&Subject::Slot { card, token, place }).unwrap_or_default();
            if !reasons.is_empty() {
                egui::Tooltip::for_widget(&zone.response).at_pointer().show(|ui| {
                    ui.label(RichText::new(format!("{} Does not fit", icon::PROHIBIT)).strong());
                    ui.label(reason_lines(&reasons));
                });
            }
        }
    });
}

fn window_buttons_ui(ui: &mut egui::Ui, choices: &[Choice], token: TokenKey, name: &str, chosen: &mut Vec<Choice>) {
    ui.horizontal(|ui| {
        let offers = [
            (Choice::Start { token }, icon::PLAY, "Start", "Start the act this window offers"),
            (Choice::Collect { token }, icon::HAND_GRABBING, "Collect", "Take the results to the table"),
            (Choice::Close { token }, icon::X_SQUARE, "Close", "Return the slotted cards to the table"),
        ];
        for (choice, glyph, verb, hint) in offers {
            if choices.contains(&choice) && ui.button(format!("{glyph} {verb} {name}")).on_hover_text(hint).clicked() {
                chosen.push(choice);
            }
        }
    });
}

// ---------------------------------------------------------------- turns

fn turns_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], debug: &mut bool, chosen: &mut Vec<Choice>) {
    let Some(turns) = session.turns() else { return };
    heading_ui(ui, icon::ARROWS_CLOCKWISE, &format!("Turns — turn {}", turns.turn));
    let project = &session.content().project;
    let hand: Vec<(usize, &actforge_runtime::model::CardId)> = turns.hand.iter().enumerate().collect();
    wrapped_rows(ui, &hand, 200.0, |ui, &(index, card_id)| {
        if let Some(card) = project.cards.get(card_id.as_str()) {
            let fill = colour32(card.colour);
            egui::Frame::new().fill(fill).corner_radius(CornerRadius::same(8)).inner_margin(8.0).show(ui, |ui| {
                ui.set_width(170.0);
                ui.vertical(|ui| {
                    ui.label(RichText::new(&card.label).strong().color(text_on(fill)));
                    if !card.description.is_empty() {
                        ui.label(RichText::new(&card.description).small().color(text_on(fill)));
                    }
                    // The first copy of a card type is the one played; later copies show it but offer nothing.
                    let first = turns.hand.iter().position(|c| c == card_id) == Some(index);
                    if !first && !card.options.is_empty() {
                        ui.label(
                            RichText::new("Another copy: its options are on the first").small().color(text_on(fill)),
                        );
                    }
                    for (option_index, option) in card.options.iter().enumerate() {
                        let choice = Choice::PlayOption { card: card_id.clone(), option: option_index };
                        if !first {
                            continue;
                        }
                        if choices.contains(&choice) {
                            if ui.button(&option.label).clicked() {
                                chosen.push(choice);
                            }
                        } else {
                            // Not offered now: shown greyed, with why on hover.
                            // Worked out only while hovered.
                            let subject = Subject::Option { card: card_id.to_string(), option: option_index };
                            ui.add_enabled(false, egui::Button::new(&option.label)).on_disabled_hover_ui(|ui| {
                                let why = session.explain(&subject).unwrap_or_default();
                                ui.label(format!("Why not? {}", reason_lines(&why)));
                                for trace in why.iter().filter_map(|reason| reason.trace.as_ref()) {
                                    crate::views::formula::trace_ui(ui, trace);
                                }
                            });
                        }
                    }
                });
            });
        }
    });
    if choices.contains(&Choice::EndTurn) && ui.button(format!("{} End turn", icon::ARROW_RIGHT)).clicked() {
        chosen.push(Choice::EndTurn);
    }
    ui.checkbox(debug, "Show hidden stats (debug)");
    egui::Grid::new("preview_turn_stats").striped(true).show(ui, |ui| {
        for line in session.turn_stats(*debug) {
            let name = if line.hidden { RichText::new(&line.name).italics() } else { RichText::new(&line.name) };
            ui.label(name);
            ui.label(RichText::new(&line.text).monospace());
            ui.end_row();
        }
    });
    for message in &turns.messages {
        ui.label(format!("{} {}", icon::CHAT_TEXT, message.text));
    }
    for warning in &turns.warnings {
        ui.label(RichText::new(format!("{} {warning}", icon::WARNING)).weak());
    }
}

// ---------------------------------------------------------------- boards

fn board_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    let Some(board) = session.board() else { return };
    let project = &session.content().project;
    let game = &board.game;
    heading_ui(ui, icon::GRID_FOUR, &format!("Boards — turn {}", game.turn));
    if let Some(die) = &game.die {
        ui.label(RichText::new(format!("{} Die: {}", icon::DICE_FIVE, die.value)).strong());
    }
    if let Some(outcome) = &game.outcome {
        ui.label(RichText::new(format!("{outcome:?}")).strong());
    }
    ui.horizontal(|ui| {
        for (index, side) in game.sides.iter().enumerate() {
            let active = index == game.active;
            let stroke =
                if active { Stroke::new(2.0, kind_colour(Kind::Board)) } else { Stroke::new(1.0, Color32::GRAY) };
            egui::Frame::group(ui.style()).stroke(stroke).show(ui, |ui| {
                ui.vertical(|ui| {
                    let name = name_of(&project.boards, side.board.as_str());
                    ui.label(RichText::new(format!("{name}{}", if active { " — to play" } else { "" })).strong())
                        .on_hover_text(side.board.as_str());
                    egui::Grid::new(("preview_board", index)).spacing([4.0, 4.0]).show(ui, |ui| {
                        for row in 1..=side.rows {
                            for column in 1..=side.columns {
                                let text =
                                    side.cell(column, row).map_or_else(|| "·".to_owned(), |die| die.value.to_string());
                                let (rect, _) = ui.allocate_exact_size(Vec2::splat(34.0), egui::Sense::hover());
                                ui.painter().rect_filled(rect, 4.0, ui.visuals().extreme_bg_color);
                                ui.painter().text(
                                    rect.center(),
                                    egui::Align2::CENTER_CENTER,
                                    text,
                                    egui::FontId::monospace(16.0),
                                    ui.visuals().text_color(),
                                );
                            }
                            ui.end_row();
                        }
                        for value in side.column_vars.iter().take(side.columns as usize) {
                            ui.label(RichText::new(value.to_string()).small().weak());
                        }
                        ui.end_row();
                    });
                    let vars: Vec<String> = board
                        .var_names()
                        .iter()
                        .zip(&side.vars)
                        .map(|(name, value)| format!("{name} {value}"))
                        .collect();
                    ui.label(RichText::new(vars.join(" · ")).small());
                });
            });
        }
    });
    board_buttons_ui(ui, session, choices, chosen);
    let side = game.sides.get(game.active);
    let held: Vec<String> = side.map(|side| side.hand.iter().map(ToString::to_string).collect()).unwrap_or_default();
    if !held.is_empty() {
        why_not_list_ui(
            ui,
            "board_why_not",
            "Why can an ability not be played?",
            "Every ability in hand can be played.",
            || {
                let mut reasons = Vec::new();
                for (at, card) in held.iter().enumerate() {
                    if held.get(..at).is_some_and(|before| before.contains(card)) {
                        continue;
                    }
                    let subject = Subject::Ability { card: card.clone(), option: 0 };
                    reasons.extend(session.explain(&subject).unwrap_or_default());
                }
                reasons
            },
        );
    }
}

fn board_buttons_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    ui.horizontal_wrapped(|ui| {
        for choice in choices {
            let label = match choice {
                Choice::RollDie { .. } => format!("{} Roll", icon::DICE_FIVE),
                Choice::PlaceOnBoard { column, .. } => format!("Place in column {column}"),
                Choice::PlayBoardCard { card, option, target, .. } => board_card_text(session, card, *option, *target),
                _ => continue,
            };
            // The playtest line on hover: what a script would write for this button.
            if ui.button(label).on_hover_text(session.describe_choice(choice)).clicked() {
                chosen.push(choice.clone());
            }
        }
    });
}

/// A board card's button: the card's label, the option's label and where it goes.
fn board_card_text(
    session: &Session,
    card: &actforge_runtime::model::CardId,
    option: u32,
    target: Option<(u32, u32)>,
) -> String {
    let cards = &session.content().project.cards;
    let definition = cards.get(card.as_str());
    let mut text = name_of(cards, card.as_str());
    let option_label = option
        .checked_sub(1)
        .and_then(|at| definition?.board_play.as_ref()?.options.get(usize::try_from(at).ok()?))
        .map(String::as_str);
    if let Some(option_label) = option_label.filter(|label| !label.is_empty()) {
        text = format!("{text}: {option_label}");
    }
    match target {
        Some((column, 0)) => format!("{} {text} → column {column}", icon::CARDS),
        Some((column, row)) => format!("{} {text} → cell {column}, {row}", icon::CARDS),
        None => format!("{} {text}", icon::CARDS),
    }
}

// ---------------------------------------------------------------- tactics

/// Team colours in order of first appearance.
const TEAM_COLOURS: [Color32; 4] = [
    Color32::from_rgb(0x5b, 0xa4, 0xe6),
    Color32::from_rgb(0xef, 0x6f, 0x6c),
    Color32::from_rgb(0x9c, 0xcc, 0x65),
    Color32::from_rgb(0xe0, 0xb0, 0x40),
];

/// The battle on the shared tile-map view: units as markers (the active one ringed), the tiles
/// the active unit can reach tinted, a click on one moves it there; skills, waiting and facing
/// as buttons.
fn tactics_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    map_view: &mut MapViewState,
    chosen: &mut Vec<Choice>,
) {
    let Some(battle) = session.tactics() else { return };
    heading_ui(ui, icon::SWORD, &format!("Tactics — turn {}", battle.turns));
    let mut teams: Vec<&str> = Vec::new();
    for (_, unit) in battle.units() {
        if !teams.contains(&unit.team.as_str()) {
            teams.push(unit.team.as_str());
        }
    }
    let team_colour = |team: &str| {
        let index = teams.iter().position(|t| *t == team).unwrap_or(0) % TEAM_COLOURS.len();
        TEAM_COLOURS.get(index).copied().unwrap_or(Color32::GRAY)
    };
    // The turn order strip: the active unit first, then the others by key.
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Turn order").weak());
        if let Some(active) = battle.active_unit() {
            let colour = readable_text_colour(Color32::YELLOW, ui.visuals());
            ui.label(RichText::new(format!("▶ {active}")).strong().color(colour));
        }
        for (key, unit) in battle.units() {
            if Some(key) != battle.active_unit() && !unit.defeated {
                ui.label(RichText::new(key).color(readable_text_colour(team_colour(&unit.team), ui.visuals())));
            }
        }
    });
    let Some(map) = session.content().project.tile_maps.get(battle.map().as_str()) else {
        ui.label(format!("The battle's tile map `{}` is missing.", battle.map()));
        return;
    };
    let mut overlays = Overlays::default();
    for choice in choices {
        if let Choice::MoveUnit { x, y, z, .. } = choice {
            overlays.tinted_cells.push(CellTint {
                cell_x: *x,
                cell_y: *y,
                level: f32::from(*z),
                colour: Color32::from_rgba_unmultiplied(120, 200, 255, 110),
            });
        }
    }
    for (key, unit) in battle.units().filter(|(_, unit)| !unit.defeated) {
        overlays.units.push(UnitMarker {
            cell_x: unit.spot.cell_x,
            cell_y: unit.spot.cell_y,
            level: f32::from(unit.spot.level),
            label: key.to_owned(),
            colour: team_colour(&unit.team),
            active: battle.active_unit() == Some(key),
        });
    }
    map_view.primary_drag_orbits = true;
    ui.allocate_ui(Vec2::new(ui.available_width(), 380.0), |ui| {
        let view = map_view_ui(ui, map_view, map, &overlays);
        if let Some(hit) = view.clicked
            && let Some(choice) = choices
                .iter()
                .find(|c| matches!(c, Choice::MoveUnit { x, y, .. } if *x == hit.cell_x && *y == hit.cell_y))
        {
            chosen.push(choice.clone());
        }
        view.response.on_hover_text("Click a tinted tile to move the active unit there; drag to orbit");
    });
    unit_stats_ui(ui, session);
    ui.horizontal_wrapped(|ui| {
        for choice in choices {
            if matches!(choice, Choice::UseSkill { .. } | Choice::WaitUnit { .. } | Choice::FaceUnit { .. })
                && ui.button(session.describe_choice(choice)).clicked()
            {
                chosen.push(choice.clone());
            }
        }
    });
    if let Some(active) = battle.active_unit() {
        let project = &session.content().project;
        let skills: Vec<String> = battle
            .unit(active)
            .and_then(|unit| project.units.get(unit.unit.as_str()))
            .map(|unit| unit.skills.iter().map(ToString::to_string).collect())
            .unwrap_or_default();
        why_not_list_ui(
            ui,
            "tactics_why_not",
            "Why can a skill not be used?",
            "Every skill of the unit can be used.",
            || {
                let mut reasons = Vec::new();
                for skill in skills {
                    let subject = Subject::Skill { unit: active.to_owned(), skill, at: None };
                    let why = session.explain(&subject).unwrap_or_default();
                    // A move skill is not an action skill: it is the walk, not a button.
                    reasons.extend(why.into_iter().filter(|reason| !reason.text.contains("has no action skill")));
                }
                reasons
            },
        );
    }
}

fn unit_stats_ui(ui: &mut egui::Ui, session: &Session) {
    let Some(battle) = session.tactics() else { return };
    egui::CollapsingHeader::new("Units").id_salt("preview_units").show(ui, |ui| {
        egui::Grid::new("preview_unit_grid").striped(true).show(ui, |ui| {
            for (key, unit) in battle.units() {
                ui.label(RichText::new(key).strong());
                ui.label(&unit.team);
                ui.label(format!("({}, {}, {})", unit.spot.cell_x, unit.spot.cell_y, unit.spot.level));
                let stats: Vec<String> =
                    unit.stats.iter().take(6).map(|(name, value)| format!("{name} {value:.0}")).collect();
                ui.label(RichText::new(stats.join(" · ")).small());
                ui.end_row();
            }
        });
    });
}

// ---------------------------------------------------------------- campaign

#[allow(clippy::too_many_lines)] // one painter pass over edges, nodes and the click
fn campaign_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], wants: &mut Wants) {
    let Some(campaign) = session.campaign() else { return };
    let project = &session.content().project;
    let Some(map) = project.node_maps.get(campaign.map.as_str()) else { return };
    let era = campaign.era.as_ref().map_or_else(|| "no era".to_owned(), ToString::to_string);
    heading_ui(
        ui,
        icon::GRAPH,
        &format!("Campaign — {} · day {} · {} · {era}", map.label, campaign.day, campaign.phase_name(map)),
    );
    let (min, max) =
        map.nodes.iter().fold((egui::pos2(f32::MAX, f32::MAX), egui::pos2(f32::MIN, f32::MIN)), |(min, max), node| {
            (min.min(egui::pos2(node.x, node.y)), max.max(egui::pos2(node.x, node.y)))
        });
    let span = (max - min).max(Vec2::splat(1.0));
    let size = Vec2::new(ui.available_width().min(720.0), 300.0);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 6.0, ui.visuals().extreme_bg_color);
    let inner = rect.shrink2(Vec2::new(56.0, 28.0));
    let place = |x: f32, y: f32| {
        inner.min + Vec2::new((x - min.x) / span.x * inner.width(), (y - min.y) / span.y * inner.height())
    };
    let position = |id: &str| map.nodes.iter().find(|n| n.id.as_str() == id).map(|n| place(n.x, n.y));
    let open: Vec<&str> = choices
        .iter()
        .filter_map(|c| if let Choice::MoveToNode { node } = c { Some(node.as_str()) } else { None })
        .collect();
    for edge in &map.edges {
        let (Some(from), Some(to)) = (position(edge.from.as_str()), position(edge.to.as_str())) else { continue };
        let taken = campaign.visited.contains(&edge.from) && campaign.visited.contains(&edge.to);
        let width = if taken { 3.5 } else { 1.5 };
        let colour = if taken { Color32::from_rgb(0xe8, 0xd0, 0x8a) } else { Color32::GRAY };
        if edge.style == EdgeStyle::Dashed {
            painter.extend(egui::Shape::dashed_line(&[from, to], Stroke::new(width, colour), 6.0, 4.0));
        } else {
            painter.line_segment([from, to], Stroke::new(width, colour));
        }
    }
    let pulse = (ui.input(|i| i.time) * 3.0).sin().abs() as f32;
    let mut clicked = None;
    for node in &map.nodes {
        let centre = place(node.x, node.y);
        let colour = node_colour(&node.kind);
        let here = node.id == campaign.node;
        painter.circle_filled(centre, 11.0, colour);
        if here {
            painter.circle_stroke(centre, 14.0 + 4.0 * pulse, Stroke::new(2.5, Color32::WHITE));
            ui.ctx().request_repaint();
        } else if open.contains(&node.id.as_str()) {
            painter.circle_stroke(centre, 14.0, Stroke::new(1.5, Color32::from_rgb(0x6c, 0xe4, 0x91)));
        }
        let label = if node.label.is_empty() { node.id.as_str() } else { node.label.as_str() };
        painter.text(
            centre + Vec2::new(0.0, 16.0),
            egui::Align2::CENTER_TOP,
            label,
            egui::FontId::proportional(12.0),
            ui.visuals().text_color(),
        );
        if response.clicked() && response.interact_pointer_pos().is_some_and(|p| p.distance(centre) < 14.0) {
            clicked = Some(node.id.clone());
        }
    }
    if let Some(node) = clicked {
        let choice = Choice::MoveToNode { node };
        if choices.contains(&choice) {
            wants.chosen.push(choice);
        }
    }
    response.on_hover_text("Click a node ringed in green to travel there");
    ui.horizontal(|ui| {
        ui.menu_button(format!("{} Play from node…", icon::PLAY_CIRCLE), |ui| {
            for node in &map.nodes {
                let label =
                    if node.label.is_empty() { node.id.to_string() } else { format!("{} ({})", node.label, node.id) };
                if ui.button(label).clicked() {
                    wants.play_from = Some(format!("jump {}", node.id));
                    ui.close();
                }
            }
        })
        .response
        .on_hover_text("Start the preview over with the player on a node");
    });
    campaign_buttons_ui(ui, session, choices, &mut wants.chosen);
    meters_ui(ui, session);
}

fn node_colour(kind: &NodeKind) -> Color32 {
    match kind {
        NodeKind::Home => Color32::from_rgb(0xe8, 0xd0, 0x8a),
        NodeKind::Anecdote => Color32::from_rgb(0xc7, 0x7d, 0xd8),
        NodeKind::Forge => Color32::from_rgb(0xf0, 0x93, 0x3b),
        NodeKind::Safehouse => Color32::from_rgb(0x6c, 0xc4, 0xa1),
        _ => kind_colour(Kind::NodeMap),
    }
}

/// The campaign's meters as bars; a stat's `max` (when a number) is the bar's end.
fn meters_ui(ui: &mut egui::Ui, session: &Session) {
    let Some(campaign) = session.campaign() else { return };
    let project = &session.content().project;
    // Two meters a row: a campaign tracks a dozen or more.
    egui::Grid::new("preview_meters").show(ui, |ui| {
        for (index, (id, value)) in campaign.meters.iter().enumerate() {
            let stat = project.stats.get(id.as_str());
            let name = stat.map_or_else(
                || id.to_string(),
                |stat| if stat.label.is_empty() { id.to_string() } else { stat.label.clone() },
            );
            let bound =
                |expr: Option<&actforge_runtime::model::Expr>| expr.and_then(|e| e.text().trim().parse::<f64>().ok());
            let low = bound(stat.and_then(|s| s.min.as_ref())).unwrap_or(0.0_f64.min(*value));
            let high = bound(stat.and_then(|s| s.max.as_ref())).unwrap_or(100.0_f64.max(*value));
            let fraction = ((value - low) / (high - low).max(f64::EPSILON)).clamp(0.0, 1.0) as f32;
            ui.label(name);
            ui.add(egui::ProgressBar::new(fraction).desired_width(140.0).text(format!("{value:.1} / {high:.0}")));
            if index % 2 == 1 {
                ui.end_row();
            }
        }
    });
}

fn campaign_buttons_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    let Some(campaign) = session.campaign() else { return };
    if !campaign.hand.is_empty() {
        let cards = &session.content().project.cards;
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{} Hand", icon::CARDS));
            for id in &campaign.hand {
                let definition = cards.get(id.as_str());
                let label = name_of(cards, id.as_str());
                let fill = definition.map_or(kind_colour(Kind::Card), |definition| colour32(definition.colour));
                let description = definition.map_or("", |definition| definition.description.as_str());
                // One widget (not a frame around a label), so the row knows its width and wraps
                // before it rather than running past the edge.
                let chip = egui::Button::new(RichText::new(&label).color(text_on(fill)))
                    .fill(fill)
                    .corner_radius(CornerRadius::same(6))
                    .sense(egui::Sense::hover());
                ui.add(chip).on_hover_text(format!("{id}: {description}"));
            }
        });
    }
    ui.horizontal_wrapped(|ui| {
        for choice in choices {
            if matches!(choice, Choice::EndPhase | Choice::Synthesize { .. } | Choice::MoveToNode { .. })
                && ui.button(session.describe_choice(choice)).clicked()
            {
                chosen.push(choice.clone());
            }
        }
    });
    let next: Vec<String> = session
        .content()
        .project
        .node_maps
        .get(campaign.map.as_str())
        .map(|map| map.edges.iter().filter(|edge| edge.from == campaign.node).map(|edge| edge.to.to_string()).collect())
        .unwrap_or_default();
    if !next.is_empty() {
        why_not_list_ui(
            ui,
            "campaign_why_not",
            "Why can a path not be taken?",
            "Every path from here is open.",
            || next.into_iter().flat_map(|node| session.explain(&Subject::Node(node)).unwrap_or_default()).collect(),
        );
    }
}

// ---------------------------------------------------------------- synthesis

/// The synthesis table's picks.
#[derive(Default)]
pub struct SynthesisPick {
    synthesis: String,
    a: String,
    b: String,
}

/// Pick a synthesis and two inputs; shows the runtime's probability table (candidates, softmax
/// shares, success chances) with the campaign's meters as values.
pub fn synthesis_ui(ui: &mut egui::Ui, session: &Session, pick: &mut SynthesisPick, lines: &mut Vec<String>) {
    let project = &session.content().project;
    if project.syntheses.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("{} Synthesis table", icon::FLASK)).id_salt("preview_synthesis").show(
        ui,
        |ui| {
            if pick.synthesis.is_empty() {
                pick.synthesis = project.syntheses.iter().next().map(|s| s.id.to_string()).unwrap_or_default();
            }
            let cards: Vec<String> = session
                .campaign()
                .map(|c| c.hand.iter().map(ToString::to_string).collect::<Vec<_>>())
                .filter(|hand| !hand.is_empty())
                .unwrap_or_else(|| project.cards.iter().map(|c| c.id.to_string()).collect());
            ui.horizontal_wrapped(|ui| {
                combo_ui(ui, "Synthesis", &mut pick.synthesis, project.syntheses.iter().map(|s| s.id.to_string()));
                combo_ui(ui, "Input A", &mut pick.a, cards.iter().cloned());
                combo_ui(ui, "Input B", &mut pick.b, cards.iter().cloned());
            });
            if pick.a.is_empty() || pick.b.is_empty() {
                ui.label(RichText::new("Pick two inputs to see what they can make.").weak());
                return;
            }
            let values: BTreeMap<String, f64> = session
                .campaign()
                .map(|c| c.meters.iter().map(|(k, v)| (k.to_string(), *v)).collect())
                .unwrap_or_default();
            match actforge_runtime::synthesis::probability_table(project, &pick.synthesis, &pick.a, &pick.b, &values) {
                Ok(table) => {
                    ui.label(format!(
                        "Temperature {:.2} · fails {:.1}% · {}",
                        table.temperature,
                        table.failure() * 100.0,
                        if table.shared_tags {
                            "scored by shared tags"
                        } else {
                            "no shared tags: every card equally likely"
                        }
                    ));
                    egui::Grid::new("preview_synthesis_grid").striped(true).show(ui, |ui| {
                        for header in ["Candidate", "Score", "Share", "Success", "Overall"] {
                            ui.label(RichText::new(header).strong());
                        }
                        ui.end_row();
                        for candidate in &table.candidates {
                            ui.label(candidate.card.as_str());
                            ui.label(format!("{:.2}", candidate.score));
                            ui.label(format!("{:.1}%", candidate.share * 100.0));
                            ui.label(format!("{:.1}%", candidate.success));
                            ui.label(format!("{:.1}%", candidate.overall() * 100.0));
                            ui.end_row();
                        }
                    });
                }
                Err(error) => {
                    ui.label(RichText::new(error.to_string()).color(Color32::from_rgb(0xf0, 0x5d, 0x5d)));
                }
            }
            let line = format!("synthesize {} {}", pick.a, pick.b);
            if session.campaign().is_some() && ui.button(format!("{} Synthesize in the game", icon::FLASK)).clicked() {
                lines.push(line);
            }
        },
    );
}

fn combo_ui(ui: &mut egui::Ui, label: &str, value: &mut String, options: impl Iterator<Item = String>) {
    ui.label(label);
    egui::ComboBox::from_id_salt(("preview_combo", label)).selected_text(value.as_str()).show_ui(ui, |ui| {
        for option in options {
            let selected = *value == option;
            if ui.selectable_label(selected, &option).clicked() {
                *value = option;
            }
        }
    });
}

// ---------------------------------------------------------------- every choice, events

/// Every choice as a button with its playtest line: whatever a view does not draw stays playable.
pub fn choices_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    egui::CollapsingHeader::new(format!("Every choice now ({})", choices.len())).id_salt("preview_choices").show(
        ui,
        |ui| {
            ui.horizontal_wrapped(|ui| {
                for choice in choices {
                    let line = session.describe_choice(choice);
                    if ui.button(RichText::new(&line).monospace()).on_hover_text("Do this").clicked() {
                        chosen.push(choice.clone());
                    }
                }
            });
        },
    );
}

/// What happened, newest first.
pub fn events_ui(ui: &mut egui::Ui, events: &[String]) {
    egui::CollapsingHeader::new(format!("Events ({})", events.len())).id_salt("preview_events").show(ui, |ui| {
        for line in events.iter().rev() {
            ui.label(RichText::new(line).monospace().small());
        }
    });
}
