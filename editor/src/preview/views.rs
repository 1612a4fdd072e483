//! The preview's view of each system, driven only by the session's state and choices (no
//! per-game code): the table, turns, boards, tactics and campaign, the synthesis table, every
//! choice as a button and the event log.

use std::collections::BTreeMap;

use actforge_runtime::Kind;
use actforge_runtime::engine::{Choice, Reason, Session, Subject};
use actforge_runtime::model::{Colour, EdgeStyle, Item, Items, NodeKind};
use egui::{Color32, CornerRadius, RichText, Stroke, Vec2};
use egui_phosphor::regular as icon;

use super::art::ArtCache;
use super::battle::{BattlePick, battle_ui};
use super::board::{BoardPick, board_ui};
use super::table::{has_table, table_ui};
use crate::document::ItemKey;
use crate::style::{kind_colour, readable_text_colour};
use crate::views::map::MapViewState;

/// An item's label, or its id where it has none (or is missing).
pub(super) fn name_of<T: Item>(items: &Items<T>, id: &str) -> String {
    items.get(id).map(Item::label).filter(|label| !label.is_empty()).unwrap_or(id).to_owned()
}

/// The colour of model content in egui.
pub(super) fn colour32(colour: Colour) -> Color32 {
    if colour.a == 0 {
        // Opaque, so the chip and its text (chosen by `text_on`) look alike on either theme.
        let accent = kind_colour(Kind::Card);
        let dim = |channel: u8| (u16::from(channel) * 3 / 5) as u8;
        return Color32::from_rgb(dim(accent.r()), dim(accent.g()), dim(accent.b()));
    }
    Color32::from_rgba_unmultiplied(colour.r, colour.g, colour.b, colour.a)
}

/// Black or white, whichever reads on `fill`.
pub(super) fn text_on(fill: Color32) -> Color32 {
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

/// How the designer looks at the game: editor state kept between frames, never part of the
/// document or the game.
#[derive(Default)]
pub struct Looks {
    /// Show hidden stats and hidden aspects (the debug toggle).
    pub debug: bool,
    /// Card and aspect pictures.
    pub art: ArtCache,
    /// The board ability card chosen, waiting for its target.
    pub board: BoardPick,
    /// The battle skill chosen, waiting for its target, and its last forecast.
    pub battle: BattlePick,
}

/// Draws every system the session plays, each under its own heading.
pub fn systems_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    looks: &mut Looks,
    map_view: &mut MapViewState,
    wants: &mut Wants,
    select: &mut Vec<ItemKey>,
) {
    let chosen = &mut wants.chosen;
    if let Some(outcome) = &session.state().outcome {
        ui.label(RichText::new(format!("{} The game has ended: {outcome:?}", icon::FLAG_CHECKERED)).strong());
    }
    if has_table(session) || session.turns().is_some() || session.campaign().is_some() {
        ui.checkbox(&mut looks.debug, "Show hidden stats and aspects (debug)")
            .on_hover_text("Show what the content marks hidden: stats, and aspects on cards and windows");
    }
    if has_table(session) {
        table_ui(ui, session, choices, looks, chosen, select);
    }
    if session.turns().is_some() {
        turns_ui(ui, session, choices, looks.debug, chosen);
    }
    if let Some(board) = session.board() {
        let project = &session.content().project;
        let secrets = board.game.sides.iter().filter_map(|side| project.boards.get(side.board.as_str()));
        let secrets = secrets.clone().any(|b| !b.secret.is_empty() || b.hide_roll.is_some());
        if secrets && !(has_table(session) || session.turns().is_some()) {
            ui.checkbox(&mut looks.debug, "Show hidden information (debug)").on_hover_text(
                "Show what the side to play cannot see: secret cell and board variables (traps) and a hidden die",
            );
        }
        board_ui(ui, session, choices, &mut looks.board, looks.debug, chosen);
    }
    if session.tactics().is_some() {
        battle_ui(ui, session, choices, (map_view, &mut looks.battle), chosen);
    }
    if session.campaign().is_some() {
        campaign_ui(ui, session, choices, wants, looks.debug);
    }
}

pub(super) fn heading_ui(ui: &mut egui::Ui, glyph: &str, title: &str) {
    ui.add_space(6.0);
    ui.label(RichText::new(format!("{glyph} {title}")).heading());
}

/// Lays `items` out in rows of as many as fit the width (egui's wrapping layout cannot wrap
/// framed groups, whose size is known only after drawing).
pub(super) fn wrapped_rows<T>(
    ui: &mut egui::Ui,
    items: &[T],
    item_width: f32,
    mut item_ui: impl FnMut(&mut egui::Ui, &T),
) {
    let per_row = ((ui.available_width() / item_width).floor() as usize).max(1);
    for row in items.chunks(per_row) {
        ui.horizontal(|ui| {
            for item in row {
                item_ui(ui, item);
            }
        });
    }
}

/// The colour of a "why not" reason.
pub(super) const REASON_COLOUR: Color32 = Color32::from_rgb(0xf2, 0xb3, 0x3d);

/// A collapsed "Why not?" section: the reasons `reasons` gives (asked only while it is open),
/// grouped under the item each belongs to; `none` when there is none.
pub(super) fn why_not_list_ui(
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
pub(super) fn reason_lines(reasons: &[Reason]) -> String {
    let lines: Vec<String> = reasons.iter().map(ToString::to_string).collect();
    lines.join("\n")
}

// ---------------------------------------------------------------- turns

fn turns_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], debug: bool, chosen: &mut Vec<Choice>) {
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
    egui::Grid::new("preview_turn_stats").striped(true).show(ui, |ui| {
        for line in session.turn_stats(debug) {
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

// ---------------------------------------------------------------- campaign

/// How long the ring around the party's node beats after it arrives: three beats of
/// `|sin 3t|`, which ends at rest (the smallest ring).
const PULSE_SECONDS: f64 = std::f64::consts::PI;

#[allow(clippy::too_many_lines)] // one painter pass over edges, nodes and the click
fn campaign_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], wants: &mut Wants, debug: bool) {
    let Some(campaign) = session.campaign() else { return };
    let project = &session.content().project;
    let Some(map) = project.node_maps.get(campaign.map.as_str()) else { return };
    let era = campaign.era.as_ref().map_or_else(|| "no era".to_owned(), ToString::to_string);
    heading_ui(
        ui,
        icon::GRAPH,
        &format!("Campaign — {} · day {} · {} · {era}", map.label, campaign.day, campaign.phase_name(map)),
    );
    if let Some(result) = &campaign.result {
        grade_banner_ui(ui, map, result);
    }
    if !map.patrols.is_empty() {
        let seen = campaign.seen(map);
        let (text, colour) = if seen {
            (format!("{} Seen by a patrol", icon::EYE), Color32::from_rgb(0xf0, 0x7a, 0x6a))
        } else {
            (format!("{} Stealthy: no patrol sees you", icon::EYE_SLASH), Color32::from_rgb(0x6c, 0xc4, 0xa1))
        };
        ui.label(RichText::new(text).color(colour))
            .on_hover_text("A patrol sees its node and the nodes one path away; safehouses and hidden nodes hide you");
    }
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
    // The ring around the party's node beats three times when it arrives there, then holds
    // still: an idle preview draws no frames.
    let now = ui.input(|i| i.time);
    let arrived = ui.data_mut(|data| {
        let arrival = data.get_temp_mut_or_insert_with(egui::Id::new("preview_campaign_arrival"), || {
            (campaign.node.to_string(), now)
        });
        if arrival.0 != campaign.node.as_str() || now < arrival.1 {
            *arrival = (campaign.node.to_string(), now);
        }
        arrival.1
    });
    let beating = now - arrived < PULSE_SECONDS;
    let pulse = if beating { ((now - arrived) * 3.0).sin().abs() as f32 } else { 0.0 };
    let mut clicked = None;
    // What each patrol sees: its node and the nodes one path away, tinted under the nodes.
    let patrol_at: Vec<(&str, &str)> = map
        .patrols
        .iter()
        .filter_map(|patrol| {
            let label = if patrol.label.is_empty() { patrol.id.as_str() } else { patrol.label.as_str() };
            campaign.patrol_node(map, &patrol.id).map(|node| (label, node.as_str()))
        })
        .collect();
    for (_, at) in &patrol_at {
        let near = map.edges.iter().filter_map(|edge| {
            if edge.from.as_str() == *at {
                Some(edge.to.as_str())
            } else if edge.to.as_str() == *at {
                Some(edge.from.as_str())
            } else {
                None
            }
        });
        for node in std::iter::once(*at).chain(near) {
            if let Some(centre) = position(node) {
                painter.circle_filled(centre, 22.0, Color32::from_rgba_unmultiplied(0xf0, 0x5d, 0x5d, 40));
            }
        }
    }
    for node in &map.nodes {
        let centre = place(node.x, node.y);
        let colour = node_colour(&node.kind);
        let here = node.id == campaign.node;
        painter.circle_filled(centre, 11.0, colour);
        if campaign.captured.contains(&node.id) {
            // A held node carries a small flag.
            let pole = centre + Vec2::new(9.0, -9.0);
            painter.line_segment([pole, pole + Vec2::new(0.0, -12.0)], Stroke::new(1.5, Color32::WHITE));
            painter.add(egui::Shape::convex_polygon(
                vec![pole + Vec2::new(0.0, -12.0), pole + Vec2::new(8.0, -9.0), pole + Vec2::new(0.0, -6.0)],
                Color32::from_rgb(0x6c, 0xe4, 0x91),
                Stroke::NONE,
            ));
        } else if campaign.visited.contains(&node.id) {
            // Visited and no longer held: retaken by a patrol.
            let d = 5.0;
            let red = Stroke::new(2.5, Color32::from_rgb(0xf0, 0x5d, 0x5d));
            painter.line_segment([centre - Vec2::splat(d), centre + Vec2::splat(d)], red);
            painter.line_segment([centre + Vec2::new(-d, d), centre + Vec2::new(d, -d)], red);
        }
        if here {
            painter.circle_stroke(centre, 14.0 + 4.0 * pulse, Stroke::new(2.5, Color32::WHITE));
            if beating {
                // The ring's radius moves at most 12 px a second: 15 frames a second show it.
                super::frame_in(ui.ctx(), std::time::Duration::from_millis(66));
            }
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
    for (label, at) in &patrol_at {
        if let Some(centre) = position(at) {
            let mark = centre + Vec2::new(-16.0, -14.0);
            painter.add(egui::Shape::convex_polygon(
                vec![
                    mark + Vec2::new(0.0, -7.0),
                    mark + Vec2::new(6.0, 0.0),
                    mark + Vec2::new(0.0, 7.0),
                    mark + Vec2::new(-6.0, 0.0),
                ],
                Color32::from_rgb(0xf0, 0x5d, 0x5d),
                Stroke::new(1.0, Color32::BLACK),
            ));
            painter.text(
                mark + Vec2::new(-8.0, 0.0),
                egui::Align2::RIGHT_CENTER,
                *label,
                egui::FontId::proportional(11.0),
                Color32::from_rgb(0xf0, 0x7a, 0x6a),
            );
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
    meters_ui(ui, session, debug);
}

/// The end of a campaign: victory or defeat and the grade's label, large.
fn grade_banner_ui(
    ui: &mut egui::Ui,
    map: &actforge_runtime::model::NodeMap,
    result: &actforge_runtime::engine::campaign::CampaignResult,
) {
    let grade = result.grade.as_ref().and_then(|id| map.grades.iter().find(|grade| grade.id == *id));
    let name = grade
        .map_or_else(String::new, |grade| if grade.label.is_empty() { grade.id.clone() } else { grade.label.clone() });
    let (verdict, fill) = if result.won {
        ("Victory", Color32::from_rgb(0x2f, 0x6b, 0x3f))
    } else {
        ("Defeat", Color32::from_rgb(0x7a, 0x2e, 0x2e))
    };
    egui::Frame::new().fill(fill).corner_radius(CornerRadius::same(8)).inner_margin(12.0).show(ui, |ui| {
        ui.set_width(ui.available_width());
        ui.label(
            RichText::new(format!("{} {verdict}", icon::FLAG_CHECKERED)).size(22.0).strong().color(Color32::WHITE),
        );
        if !name.is_empty() {
            ui.label(RichText::new(format!("Grade: {name}")).size(16.0).color(Color32::WHITE));
        }
    });
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

/// The campaign's meters as bars; a stat's `max` (when a number) is the bar's end. Hidden
/// stats (bookkeeping such as a revelation waiting) only in debug, in italics.
fn meters_ui(ui: &mut egui::Ui, session: &Session, debug: bool) {
    let Some(campaign) = session.campaign() else { return };
    let project = &session.content().project;
    // Two meters a row: a campaign tracks a dozen or more.
    egui::Grid::new("preview_meters").show(ui, |ui| {
        let shown = campaign
            .meters
            .iter()
            .filter(|(id, _)| debug || !project.stats.get(id.as_str()).is_some_and(|stat| stat.hidden));
        for (index, (id, value)) in shown.enumerate() {
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
            if stat.is_some_and(|stat| stat.hidden) {
                ui.label(RichText::new(name).italics());
            } else {
                ui.label(name);
            }
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
            for (id, reversed) in campaign.hand_cards() {
                let definition = cards.get(id.as_str());
                let name = name_of(cards, id.as_str());
                let label = if reversed { format!("{} {name} (reversed)", icon::ARROWS_DOWN_UP) } else { name };
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
    campaign_battle_ui(ui, session, campaign);
    options_ui(ui, session, campaign, choices, chosen);
    piles_ui(ui, session, campaign);
    field_ui(ui, session, campaign);
    campaign_choices_ui(ui, session, choices, chosen);
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

/// The campaign's choices as buttons, one row per kind (a dozen syntheses and binds would
/// otherwise run together), each row named.
fn campaign_choices_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    let group = |choice: &Choice| -> Option<(usize, &'static str)> {
        Some(match choice {
            Choice::MoveToNode { .. } => (0, "Paths"),
            Choice::Synthesize { .. } => (1, "Synthesize A + B"),
            Choice::SynthesizeAlone { .. } => (2, "B alone"),
            Choice::Bind { .. } => (3, "Bind on the field"),
            Choice::Trigger { .. } => (4, "Trigger a bound pair"),
            Choice::Summon { .. } => (5, "Summon with insight"),
            Choice::SummonExtra { .. } => (6, "Summon in the failed card's place"),
            Choice::PlayCard { .. } => (7, "Play"),
            Choice::DiscardCard { .. } | Choice::RemoveCard { .. } => (8, "Discard or remove"),
            Choice::DrawCard | Choice::UseDeck { .. } => (9, "Draw"),
            Choice::Raid { .. } => (10, "Raid"),
            Choice::Strike { .. } => (11, "Strike"),
            Choice::EndPhase => (12, "Day"),
            _ => return None,
        })
    };
    let mut rows: std::collections::BTreeMap<usize, (&str, Vec<&Choice>)> = std::collections::BTreeMap::new();
    for choice in choices {
        if let Some((order, name)) = group(choice) {
            rows.entry(order).or_insert((name, Vec::new())).1.push(choice);
        }
    }
    // A wrapped row each, named first: a grid cannot hold wrapped rows (it sizes them from the
    // frame before, and they overlap).
    for (name, row) in rows.values() {
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(format!("{name}:")).weak());
            for choice in row {
                if ui.button(session.describe_choice(choice)).clicked() {
                    chosen.push((*choice).clone());
                }
            }
        });
    }
}

/// The field: bound pairs with what B gathered, the cards boosted (per-card state), the
/// revelations granted and an open extra summon.
fn field_ui(ui: &mut egui::Ui, session: &Session, campaign: &actforge_runtime::engine::campaign::CampaignState) {
    let project = &session.content().project;
    let cards = &project.cards;
    let changes = |values: &std::collections::BTreeMap<String, f64>| {
        let words: Vec<String> = values
            .iter()
            .map(|(name, value)| format!("{name} {}{}", if *value >= 0.0 { "+" } else { "" }, show_life(*value)))
            .collect();
        words.join(", ")
    };
    for bound in &campaign.bonds {
        let gathered = if bound.gathered.is_empty() { "nothing yet".to_owned() } else { changes(&bound.gathered) };
        ui.label(format!(
            "{} On the field: {} + {} (gathered: {gathered})",
            icon::LINK,
            name_of(cards, bound.a.as_str()),
            name_of(cards, bound.b.as_str())
        ))
        .on_hover_text("B gathers A's tendencies each dawn; trigger the pair to synthesize it");
    }
    for (card, boosts) in &campaign.boosts {
        ui.label(format!("{} {}: {}", icon::ARROW_FAT_UP, name_of(cards, card.as_str()), changes(boosts)))
            .on_hover_text("Per-card state: these changes hold for the rest of the campaign");
    }
    if !campaign.revealed.is_empty() {
        let synthesis = project
            .node_maps
            .get(campaign.map.as_str())
            .and_then(|map| map.synthesis.as_ref())
            .and_then(|id| project.syntheses.get(id.as_str()));
        ui.horizontal_wrapped(|ui| {
            ui.label(format!("{} Revelations:", icon::SPARKLE));
            for id in &campaign.revealed {
                let known = synthesis.and_then(|s| s.revelations.iter().find(|revelation| revelation.id == *id));
                let name =
                    known.map_or(id.as_str(), |r| if r.label.is_empty() { r.id.as_str() } else { r.label.as_str() });
                ui.label(RichText::new(name).strong())
                    .on_hover_text(known.map_or(String::new(), |revelation| revelation.text.clone()));
            }
        });
    }
    if let Some(failed) = &campaign.failed {
        ui.label(format!(
            "{} {} failed: an extra card may be summoned in its place",
            icon::WARNING,
            name_of(cards, failed.as_str())
        ));
    }
}

/// The battle under way: each side's fighters with their life (strike buttons follow).
fn campaign_battle_ui(
    ui: &mut egui::Ui,
    session: &Session,
    campaign: &actforge_runtime::engine::campaign::CampaignState,
) {
    let Some(battle) = &campaign.battle else { return };
    let map = session.content().project.node_maps.get(campaign.map.as_str());
    let trigger = map.and_then(|map| map.battles.triggers.iter().find(|trigger| trigger.id == battle.id));
    let name =
        trigger.map_or(battle.id.as_str(), |t| if t.label.is_empty() { t.id.as_str() } else { t.label.as_str() });
    let cards = &session.content().project.cards;
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(RichText::new(format!("{} {name}", icon::SWORD)).strong());
        for (side, fighters) in [("Yours", &battle.player), ("The enemy's", &battle.enemy)] {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("{side}:"));
                for fighter in fighters {
                    let text = format!("{} ({} life)", name_of(cards, fighter.card.as_str()), show_life(fighter.life));
                    if fighter.life > 0.0 {
                        ui.label(text);
                    } else {
                        ui.label(RichText::new(text).strikethrough().weak());
                    }
                }
            });
        }
        ui.label(RichText::new("Strike with one of your fighters: the enemy strikes back").weak());
    });
}

fn show_life(life: f64) -> String {
    actforge_runtime::number::show_value(life.max(0.0), None)
}

/// The options of the node that waits for a choice, as buttons by label with their text.
fn options_ui(
    ui: &mut egui::Ui,
    session: &Session,
    campaign: &actforge_runtime::engine::campaign::CampaignState,
    choices: &[Choice],
    chosen: &mut Vec<Choice>,
) {
    let Some(waiting) = &campaign.choosing else { return };
    let map = session.content().project.node_maps.get(campaign.map.as_str());
    let Some(node) = map.and_then(|map| map.nodes.iter().find(|node| node.id == *waiting)) else { return };
    let name = if node.label.is_empty() { node.id.as_str() } else { node.label.as_str() };
    egui::Frame::group(ui.style()).show(ui, |ui| {
        ui.label(RichText::new(format!("{} {name} asks you to choose", icon::SIGNPOST)).strong());
        for option in &node.options {
            let choice = Choice::ChooseNodeOption { node: node.id.clone(), option: option.id.clone() };
            let label = if option.label.is_empty() { option.id.as_str() } else { option.label.as_str() };
            let open = choices.contains(&choice);
            let button = ui.add_enabled(open, egui::Button::new(label));
            let button = if option.text.is_empty() { button } else { button.on_hover_text(&option.text) };
            if button.clicked() {
                chosen.push(choice);
            }
            if !option.text.is_empty() {
                ui.label(RichText::new(&option.text).weak());
            }
        }
    });
}

/// The card cycle's piles: each deck's cards left (the one drawn from marked), the discard pile
/// and the cards discarded today.
fn piles_ui(ui: &mut egui::Ui, session: &Session, campaign: &actforge_runtime::engine::campaign::CampaignState) {
    let Some(map) = session.content().project.node_maps.get(campaign.map.as_str()) else { return };
    if map.cards.decks.is_empty() {
        return;
    }
    ui.horizontal_wrapped(|ui| {
        for deck in &map.cards.decks {
            let left = campaign.piles.get(&deck.id).map_or(0, Vec::len);
            let name = if deck.label.is_empty() { deck.id.as_str() } else { deck.label.as_str() };
            let text = format!("{} {name}: {left} left", icon::STACK);
            if campaign.deck.as_deref() == Some(deck.id.as_str()) {
                ui.label(RichText::new(format!("{text} (drawn from)")).strong());
            } else {
                ui.label(text);
            }
        }
        ui.label(format!("{} Discard pile: {}", icon::TRASH, campaign.discard.len()));
        if !campaign.returning.is_empty() {
            ui.label(format!("Discarded today: {}", campaign.returning.len()))
                .on_hover_text("They go back to their decks at the end of the day");
        }
    });
}

// ---------------------------------------------------------------- synthesis

/// The synthesis table's picks.
#[derive(Default)]
pub struct SynthesisPick {
    synthesis: String,
    a: String,
    b: String,
    /// Try other meter values: the table reads these instead of the game's.
    what_if: bool,
    /// The tried values, by stat id (a stat not here reads the game's value).
    tried: BTreeMap<String, f64>,
}

/// The range a what-if slider spans for `stat`: its `min`/`max` when they are numbers, else
/// 0..100, widened to hold `value`.
fn slider_range(stat: Option<&actforge_runtime::model::Stat>, value: f64) -> (f64, f64) {
    let bound = |expr: Option<&actforge_runtime::model::Expr>| expr.and_then(|e| e.text().trim().parse::<f64>().ok());
    let low = bound(stat.and_then(|s| s.min.as_ref())).unwrap_or(0.0);
    let high = bound(stat.and_then(|s| s.max.as_ref())).unwrap_or(100.0);
    let (low, high) = (low.min(value), high.max(value));
    if high > low { (low, high) } else { (low, low + 1.0) }
}

/// Sliders for the meters a synthesis reads (the table follows them, the game does not), and a
/// plot of each named formula it reads over the range of the one meter that formula reads.
fn what_if_ui(
    ui: &mut egui::Ui,
    project: &actforge_runtime::model::Project,
    pick: &mut SynthesisPick,
    values: &mut BTreeMap<String, f64>,
) {
    let reads = actforge_runtime::synthesis::synthesis_reads(project, &pick.synthesis);
    ui.horizontal(|ui| {
        ui.checkbox(&mut pick.what_if, "What if…")
            .on_hover_text("Try other meter values: the table follows the sliders; the game does not change");
        if pick.what_if && ui.button("Back to the game's values").clicked() {
            pick.tried.clear();
        }
    });
    if !pick.what_if {
        return;
    }
    if reads.stats.is_empty() {
        ui.label(RichText::new("The synthesis's formulas read no meter.").weak());
        return;
    }
    egui::Grid::new("preview_what_if").show(ui, |ui| {
        for id in &reads.stats {
            let stat = project.stats.get(id.as_str());
            let game = values.get(id.as_str()).copied().unwrap_or(0.0);
            let value = pick.tried.entry(id.to_string()).or_insert(game);
            let (low, high) = slider_range(stat, *value);
            let name = stat
                .map_or_else(|| id.to_string(), |s| if s.label.is_empty() { id.to_string() } else { s.label.clone() });
            let label = ui.label(name);
            ui.add(egui::Slider::new(value, low..=high)).labelled_by(label.id);
            ui.label(RichText::new(format!("game: {game:.1}")).weak());
            ui.end_row();
        }
    });
    for (id, value) in &pick.tried {
        values.insert(id.clone(), *value);
    }
    for formula in &reads.formulas {
        let own = actforge_runtime::synthesis::reads(project, [format!("f.{formula}")]);
        let [stat] = own.stats.as_slice() else { continue };
        let Some(current) = values.get(stat.as_str()).copied() else { continue };
        let (low, high) = slider_range(project.stats.get(stat.as_str()), current);
        let at = |x: f64| {
            let mut values = values.clone();
            values.insert(stat.to_string(), x);
            let query =
                actforge_runtime::formula::query::Query { project: Some(project), values, ..Default::default() };
            actforge_runtime::formula::query::evaluate(&format!("f.{formula}"), &query).unwrap_or(f64::NAN)
        };
        let points: Vec<[f64; 2]> =
            (0..=100).map(|step: i32| low + (high - low) * f64::from(step) / 100.0).map(|x| [x, at(x)]).collect();
        let title = project
            .formulas
            .get(formula.as_str())
            .map_or(formula.as_str(), |f| if f.label.is_empty() { formula.as_str() } else { f.label.as_str() });
        ui.label(format!("{title} over {stat}: {:.2} at {current:.1}", at(current)));
        egui_plot::Plot::new(("preview_what_if_plot", formula.as_str()))
            .height(110.0)
            .allow_zoom(false)
            .allow_drag(false)
            .allow_scroll(false)
            .x_axis_label(stat.as_str())
            .show(ui, |plot| {
                plot.line(egui_plot::Line::new(title, egui_plot::PlotPoints::from(points)));
                plot.points(egui_plot::Points::new("now", vec![[current, at(current)]]).radius(4.0));
            });
    }
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
            // Start with the first inputs the campaign's map accepts, so the table shows at once.
            if pick.a.is_empty() && pick.b.is_empty() {
                let map = session.campaign().and_then(|c| project.node_maps.get(c.map.as_str()));
                let fits = |card: &String, aspect: Option<&actforge_runtime::model::AspectId>| {
                    aspect.is_none_or(|aspect| {
                        project.cards.get(card).is_some_and(|card| {
                            card.fragments.iter().any(|held| {
                                matches!(&held.fragment, actforge_runtime::model::FragmentRef::Aspect(id) if id == aspect)
                            })
                        })
                    })
                };
                let first = |aspect| cards.iter().find(|card| fits(card, aspect)).cloned().unwrap_or_default();
                pick.a = first(map.and_then(|map| map.synthesis_a.as_ref()));
                pick.b = first(map.and_then(|map| map.synthesis_b.as_ref()));
            }
            ui.horizontal_wrapped(|ui| {
                combo_ui(ui, "Synthesis", &mut pick.synthesis, project.syntheses.iter().map(|s| s.id.to_string()));
                combo_ui(ui, "Input A", &mut pick.a, cards.iter().cloned());
                combo_ui(ui, "Input B", &mut pick.b, cards.iter().cloned());
            });
            if pick.a.is_empty() || pick.b.is_empty() {
                ui.label(RichText::new("Pick two inputs to see what they can make.").weak());
                return;
            }
            let mut values: BTreeMap<String, f64> = session
                .campaign()
                .map(|c| c.meters.iter().map(|(k, v)| (k.to_string(), *v)).collect())
                .unwrap_or_default();
            what_if_ui(ui, project, pick, &mut values);
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
