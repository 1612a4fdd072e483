//! The table preview (the Cultistlike designer's main view): act windows with their slots,
//! the aspects the act's tests count, the cards consumed inside, results, timers; the cards on
//! the table as chips with art, labels and aspect badges, identical cards stacked; the deck
//! inspector. Hidden aspects show only with the debug toggle.

use actforge_runtime::Kind;
use actforge_runtime::engine::{
    CardInstance, CardKey, Choice, Fragment, Holder, OpenSlot, Session, Status, Subject, TokenKey, Window,
};
use actforge_runtime::model::{AspectId, FragmentCount, FragmentRef, Slot};
use egui::{Color32, CornerRadius, RichText, Stroke, Vec2};
use egui_phosphor::regular as icon;

use super::art::{Art, ArtCache};
use super::countdown::{bar_changes_in, countdown, note};
use super::views::{Looks, colour32, heading_ui, name_of, reason_lines, text_on, why_not_list_ui, wrapped_rows};
use crate::document::ItemKey;
use crate::style::{kind_colour, readable_text_colour};

/// The width of an act window on the table.
const WINDOW_WIDTH: f32 = 250.0;
/// The least width of a slot.
const SLOT_WIDTH: f32 = 100.0;
/// The least width of a card chip.
const CARD_WIDTH: f32 = 100.0;
/// The size a card's art is drawn at, at most.
const ART_SIZE: Vec2 = Vec2::new(88.0, 72.0);

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

/// The act windows, then the deck inspector.
pub(super) fn table_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    looks: &Looks,
    chosen: &mut Vec<Choice>,
    select: &mut Vec<ItemKey>,
) {
    heading_ui(ui, icon::CARDS, "Table");
    let dragged = egui::DragAndDrop::payload::<CardKey>(ui.ctx()).map(|key| *key);
    let windows: Vec<(&TokenKey, &Window)> = session.state().windows.iter().collect();
    wrapped_rows(ui, &windows, WINDOW_WIDTH + 24.0, |ui, (key, window)| {
        window_ui(ui, session, choices, looks, **key, window, dragged, chosen, select);
    });
    decks_ui(ui, session);
}

/// Whether the session plays the table (act windows or cards).
pub fn has_table(session: &Session) -> bool {
    !session.state().windows.is_empty() || !session.state().table.is_empty()
}

/// Cards that look alike on the table (same type, aspects, memory, decay, face and freedom):
/// drawn once with a count, the first is the one dragged.
fn stacks<'s>(session: &'s Session, keys: &[CardKey]) -> Vec<(CardKey, &'s CardInstance, usize)> {
    let mut stacks: Vec<(CardKey, &CardInstance, usize)> = Vec::new();
    for key in keys {
        let Some(card) = session.state().card(*key) else { continue };
        let alike = |other: &CardInstance| {
            other.card == card.card
                && other.aspects == card.aspects
                && other.memory == card.memory
                && other.decay == card.decay
                && other.face_down == card.face_down
                && other.free == card.free
                && other.children.is_empty()
                && card.children.is_empty()
        };
        match stacks.iter_mut().find(|(_, other, _)| alike(other)) {
            Some((_, _, count)) => *count += 1,
            None => stacks.push((*key, card, 1)),
        }
    }
    stacks
}

/// The cards on the table, in a column beside the windows so both stay in view while dragging.
pub fn table_cards_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    looks: &Looks,
    chosen: &mut Vec<Choice>,
) {
    ui.label(RichText::new(format!("{} On the table", icon::CARDS)).strong());
    ui.label(RichText::new("Drag a card into a slot").weak().small());
    let cards = stacks(session, &session.state().table);
    wrapped_rows(ui, &cards, CARD_WIDTH + 20.0, |ui, (key, card, count)| {
        card_ui(ui, session, choices, looks, *key, card, *count, chosen);
    });
    if cards.is_empty() {
        ui.label(RichText::new("No cards on the table.").weak());
    }
}

/// An aspect's label and whether it is hidden.
fn aspect_name(session: &Session, aspect: &AspectId) -> (String, bool) {
    let aspects = &session.content().project.aspects;
    (name_of(aspects, aspect.as_str()), aspects.get(aspect.as_str()).is_some_and(|a| a.hidden))
}

/// A card's aspects as "Label n" badges, hidden ones only while debugging (marked "(hidden)").
fn aspect_badges(session: &Session, card: &CardInstance, debug: bool) -> Vec<String> {
    card.aspects
        .iter()
        .filter_map(|(aspect, n)| {
            let (name, hidden) = aspect_name(session, aspect);
            match (hidden, debug) {
                (false, _) => Some(format!("{name} {n}")),
                (true, true) => Some(format!("{name} {n} (hidden)")),
                (true, false) => None,
            }
        })
        .collect()
}

/// A card on the table or in a lane: a chip in the card's colour with its art, label, aspect
/// badges and decay, and a count when it stands for a stack; dragged into slots. A face-down
/// card offers to turn over.
#[allow(clippy::too_many_arguments)] // one card needs the session, the looks, its stack and the output
fn card_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    looks: &Looks,
    key: CardKey,
    card: &CardInstance,
    count: usize,
    chosen: &mut Vec<Choice>,
) {
    let definition = session.content().project.cards.get(card.card.as_str());
    let times = if count > 1 { format!(" ×{count}") } else { String::new() };
    if card.face_down {
        let flip = Choice::Flip { card: key };
        let label = format!("{} Face-down card{times}", icon::QUESTION);
        if ui.add_enabled(choices.contains(&flip), egui::Button::new(label)).on_hover_text("Turn it over").clicked() {
            chosen.push(flip);
        }
        return;
    }
    let label = definition
        .map(|definition| definition.label.clone())
        .filter(|label| !label.is_empty())
        .unwrap_or_else(|| card.card.to_string());
    let fill = definition.map_or(kind_colour(Kind::Card), |definition| colour32(definition.colour));
    let ink = text_on(fill);
    let art = definition.and_then(|definition| definition.art.as_deref());
    let id = egui::Id::new(("preview_card", key.0));
    let chip = |ui: &mut egui::Ui| {
        egui::Frame::new().fill(fill).corner_radius(CornerRadius::same(6)).inner_margin(6.0).show(ui, |ui| {
            ui.set_min_width(CARD_WIDTH - 12.0);
            ui.set_max_width(CARD_WIDTH + 40.0);
            ui.vertical(|ui| {
                if let Some(art) = art {
                    art_ui(ui, &looks.art, art, &label);
                }
                ui.horizontal(|ui| {
                    ui.add(egui::Label::new(RichText::new(&label).strong().color(ink)).wrap());
                    if count > 1 {
                        ui.label(RichText::new(format!("×{count}")).strong().color(ink))
                            .on_hover_text(format!("{count} alike cards"));
                    }
                });
                let badges = aspect_badges(session, card, looks.debug);
                if !badges.is_empty() {
                    ui.add(egui::Label::new(RichText::new(badges.join(" · ")).small().color(ink)).wrap());
                }
                if let Some(decay) = &card.decay {
                    let per_second = session.content().project.manifest.settings.ticks_per_second;
                    let (left, changes_in) = countdown(decay.remaining, per_second);
                    ui.label(RichText::new(format!("{} {left}", icon::HOURGLASS)).small().color(ink));
                    if !session.state().decay_paused_at(card.place) {
                        note(ui.ctx(), changes_in);
                    }
                }
            });
        });
    };
    let description = definition.map_or("", |definition| definition.description.as_str());
    let hover = |ui: &mut egui::Ui| {
        if !description.is_empty() {
            ui.label(description);
        }
        ui.label(RichText::new(format!("card `{}`", card.card)).weak().monospace());
    };
    if card.free {
        let response = ui.dnd_drag_source(id, key, chip).response;
        response.on_hover_ui(|ui| {
            hover(ui);
            ui.label(RichText::new(format!("Drag {label} into a slot")).weak());
        });
    } else {
        ui.scope(chip).response.on_hover_ui(hover);
    }
}

/// A card's picture, or a note why it is not drawn.
fn art_ui(ui: &mut egui::Ui, cache: &ArtCache, art: &str, label: &str) {
    match cache.get(ui.ctx(), art) {
        Art::Ready(texture) => {
            ui.add(egui::Image::new(&texture).max_size(ART_SIZE).alt_text(format!("{label} art"))).on_hover_text(art);
        }
        Art::Loading => {
            ui.add(egui::Spinner::new());
        }
        Art::Missing(why) => {
            ui.label(RichText::new(icon::IMAGE_BROKEN).small()).on_hover_text(why);
        }
    }
}

#[allow(clippy::too_many_arguments)] // one window needs the session, its choices, the drag and both outputs
fn window_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    looks: &Looks,
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
                    let title = ui.add(
                        egui::Label::new(RichText::new(&window.title).heading()).wrap().sense(egui::Sense::click()),
                    );
                    if let Some(act) = &window.active
                        && title.on_hover_text("Click to open the act").clicked()
                    {
                        select.push(ItemKey::new(Kind::Act, act.to_string()));
                    }
                }
                timer_ui(ui, session, window);
                if !window.text.is_empty() {
                    ui.add(egui::Label::new(&window.text).wrap());
                }
                slots_ui(ui, session, choices, token, window, dragged, chosen);
                aspect_bar_ui(ui, session, token, looks.debug);
                if !window.consumed.is_empty() {
                    ui.label(RichText::new(format!("{} Inside the act", icon::TRAY)).weak())
                        .on_hover_text("Cards consumed into the act or created inside it; they come out as results");
                    let inside = stacks(session, &window.consumed);
                    wrapped_rows(ui, &inside, CARD_WIDTH + 20.0, |ui, (key, card, count)| {
                        card_ui(ui, session, choices, looks, *key, card, *count, chosen);
                    });
                }
                if window.status == Status::Idle {
                    why_not_ui(ui, session, token);
                }
                if !window.lane.is_empty() {
                    ui.label(RichText::new("Results").weak());
                    let lane = stacks(session, &window.lane);
                    wrapped_rows(ui, &lane, CARD_WIDTH + 20.0, |ui, (key, card, count)| {
                        card_ui(ui, session, choices, looks, *key, card, *count, chosen);
                    });
                }
                if window.status == Status::Finished && !window.end_text.is_empty() && window.end_text != window.text {
                    ui.add(egui::Label::new(RichText::new(&window.end_text).italics()).wrap());
                }
                window_buttons_ui(ui, choices, token, &name, chosen);
            });
        },
    );
}

/// The aspects in the window summed over its cards and its own, as the act's tests count them;
/// hidden aspects only while debugging.
fn aspect_bar_ui(ui: &mut egui::Ui, session: &Session, token: TokenKey, debug: bool) {
    let state = session.state();
    let project = &session.content().project;
    let aspects: Vec<(String, i64, bool, Color32)> = state
        .aspects_in_window(token)
        .into_iter()
        .filter_map(|aspect| {
            let count = state.count(Holder::Window(token), &Fragment::Aspect(aspect.clone()), false);
            let (name, hidden) = aspect_name(session, &aspect);
            let colour = project.aspects.get(aspect.as_str()).map_or(kind_colour(Kind::Aspect), |a| colour32(a.colour));
            (count != 0 && (debug || !hidden)).then_some((name, count, hidden, colour))
        })
        .collect();
    if aspects.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new(icon::CHART_BAR).weak())
            .on_hover_text("The aspects in this window, summed over its cards: what the act's tests count");
        for (name, count, hidden, colour) in aspects {
            let text = if hidden { format!("{name} {count} (hidden)") } else { format!("{name} {count}") };
            let text = RichText::new(text).small().color(text_on(colour));
            let chip = egui::Button::new(if hidden { text.italics() } else { text })
                .fill(colour)
                .corner_radius(CornerRadius::same(4))
                .sense(egui::Sense::hover());
            ui.add(chip);
        }
    });
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
    let remaining = end.saturating_sub(session.state().tick);
    let total = window.timer_total.max(1);
    let done = 1.0 - remaining as f32 / total as f32;
    let (left, text_changes_in) = countdown(remaining, session.content().project.manifest.settings.ticks_per_second);
    let text = format!("{} {left} left", icon::TIMER);
    let bar = ui.add(egui::ProgressBar::new(done.clamp(0.0, 1.0)).desired_height(14.0).text(text));
    note(ui.ctx(), text_changes_in);
    if let Some(fill_changes_in) = bar_changes_in(remaining, total, bar.rect.width()) {
        note(ui.ctx(), fill_changes_in);
    }
}

/// A fragment count as the designer reads it: "Herb ≥ 2", "Basket".
fn fragment_text(session: &Session, entry: &FragmentCount) -> String {
    let project = &session.content().project;
    let name = match &entry.fragment {
        FragmentRef::Aspect(id) => name_of(&project.aspects, id.as_str()),
        FragmentRef::Card(id) => name_of(&project.cards, id.as_str()),
        other => format!("{other:?}"),
    };
    let count = entry.count.text().trim();
    if count == "1" { name } else { format!("{name} {count}") }
}

/// What a slot takes, on hover: its text, then required (any), essential (all) and forbidden.
fn slot_rules_ui(ui: &mut egui::Ui, session: &Session, slot: &Slot) {
    ui.label(
        RichText::new(format!("{} slot", if slot.label.is_empty() { slot.id.as_str() } else { &slot.label })).strong(),
    );
    if !slot.description.is_empty() {
        ui.label(&slot.description);
    }
    let lines = |entries: &[FragmentCount]| entries.iter().map(|e| fragment_text(session, e)).collect::<Vec<_>>();
    if slot.accept_all {
        ui.label("Takes any card");
    }
    if !slot.required.is_empty() {
        ui.label(format!("Required (any of): {}", lines(&slot.required).join(", ")));
    }
    if !slot.essential.is_empty() {
        ui.label(format!("Essential (all of): {}", lines(&slot.essential).join(", ")));
    }
    if !slot.forbidden.is_empty() {
        ui.label(format!("Forbidden: {}", lines(&slot.forbidden).join(", ")));
    }
    if slot.required.is_empty() && slot.essential.is_empty() && slot.forbidden.is_empty() && !slot.accept_all {
        ui.label(RichText::new("No requirements: any card fits").weak());
    }
    if slot.card_lock {
        ui.label(RichText::new("A card in it cannot be taken out").weak());
    }
    if slot.grab {
        ui.label(RichText::new("Pulls a matching card in by itself").weak());
    }
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
        let slot = project.slots.get(open.slot.as_str());
        let slot_label = slot.map_or_else(|| open.slot.to_string(), |s| s.label.clone());
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
                        let label = name_of(&project.cards, card.card.as_str());
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
        if let Some(card) = dragged {
            // A card held over a slot that will not take it: why, under the cursor.
            if !fits && zone.response.contains_pointer() {
                let reasons = session.explain(&Subject::Slot { card, token, place }).unwrap_or_default();
                if !reasons.is_empty() {
                    egui::Tooltip::for_widget(&zone.response).at_pointer().show(|ui| {
                        ui.label(RichText::new(format!("{} Does not fit", icon::PROHIBIT)).strong());
                        ui.label(reason_lines(&reasons));
                    });
                }
            }
        } else if let Some(slot) = slot {
            // Nothing held: what the slot takes.
            zone.response.on_hover_ui(|ui| slot_rules_ui(ui, session, slot));
        }
    });
}

fn window_buttons_ui(ui: &mut egui::Ui, choices: &[Choice], token: TokenKey, name: &str, chosen: &mut Vec<Choice>) {
    ui.horizontal_wrapped(|ui| {
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

/// The deck inspector: every deck with what is left in it, in the order it will be drawn.
fn decks_ui(ui: &mut egui::Ui, session: &Session) {
    let project = &session.content().project;
    if project.decks.is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("{} Decks ({})", icon::STACK, project.decks.len()))
        .id_salt("preview_decks")
        .show(ui, |ui| {
            for deck in &project.decks {
                let label = name_of(&project.decks, deck.id.as_str());
                let remaining = session.state().decks.get(&deck.id);
                let card = |id: &actforge_runtime::model::CardId| name_of(&project.cards, id.as_str());
                let summary = match remaining {
                    Some(left) => format!("{label}: {} left of {}", left.len(), deck.fragments.len()),
                    None => format!("{label}: not drawn from yet ({} cards)", deck.fragments.len()),
                };
                egui::CollapsingHeader::new(summary).id_salt(("preview_deck", deck.id.as_str())).show(ui, |ui| {
                    let mut flags = Vec::new();
                    if deck.shuffle {
                        flags.push("shuffled when filled");
                    }
                    if deck.random {
                        flags.push("each draw picks at random");
                    }
                    if deck.replenish {
                        flags.push("refills when empty");
                    }
                    if deck.infinite {
                        flags.push("draws never remove");
                    }
                    if !flags.is_empty() {
                        ui.label(RichText::new(flags.join(" · ")).weak());
                    }
                    match remaining {
                        Some(left) if left.is_empty() => {
                            ui.label(RichText::new("Empty").weak());
                        }
                        Some(left) => {
                            let order = if deck.random { "Left (drawn at random)" } else { "Next draws, in order" };
                            ui.label(RichText::new(order).strong());
                            for (at, id) in left.iter().enumerate() {
                                ui.label(format!("{}. {}", at + 1, card(id)));
                            }
                        }
                        None => {
                            let when = if deck.shuffle { "shuffled at the first draw" } else { "drawn in this order" };
                            ui.label(RichText::new(format!("Contents ({when})")).strong());
                            for id in &deck.fragments {
                                ui.label(format!("• {}", card(id)));
                            }
                        }
                    }
                    if let Some(default) = &deck.default_fragment {
                        ui.label(RichText::new(format!("When empty: {}", card(default))).weak());
                    }
                });
            }
        });
}
