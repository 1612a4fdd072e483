//! The battle preview on the shared tile-map view: units as billboards of their art or markers
//! (the active one ringed), the tiles the active unit can reach tinted on their tops, a click
//! on one moves it there (the level under the cursor: a bridge's deck or the ground under it). Choosing one of its
//! skills tints where it can be aimed instead; hovering a target tints the skill's effect area
//! and forecasts, from the skill's own formulas, how often and how much each unit there is
//! changed (`Session::forecast_skill`); a click uses the skill there.

use actforge_runtime::engine::{Choice, FORECAST_TRIALS, Session, SkillForecast, Subject};
use actforge_runtime::map::Spot;
use actforge_runtime::model::{Id, Skill};
use egui::{Color32, RichText, Vec2};
use egui_phosphor::regular as icon;

use super::views::{heading_ui, name_of, why_not_list_ui};
use crate::style::readable_text_colour;
use crate::views::map::{CellTint, MapViewState, Overlays, PropBox, UnitMarker, map_view_ui};

/// Team colours in order of first appearance.
const TEAM_COLOURS: [Color32; 4] = [
    Color32::from_rgb(0x5b, 0xa4, 0xe6),
    Color32::from_rgb(0xef, 0x6f, 0x6c),
    Color32::from_rgb(0x9c, 0xcc, 0x65),
    Color32::from_rgb(0xe0, 0xb0, 0x40),
];
/// Tiles the active unit can walk to.
const REACH: Color32 = Color32::from_rgba_premultiplied(84, 140, 179, 110);
/// Tiles the chosen skill can be aimed at.
const TARGET: Color32 = Color32::from_rgba_premultiplied(180, 120, 30, 120);
/// The hovered target's effect area.
const AREA: Color32 = Color32::from_rgba_premultiplied(190, 40, 40, 150);

/// The skill the designer chose for the active unit and its last forecast (editor state).
#[derive(Default)]
pub struct BattlePick {
    /// The active unit and the skill chosen for it.
    skill: Option<(String, Id<Skill>)>,
    /// The standing spot under the pointer last frame.
    hovered: Option<Spot>,
    /// The last forecast, for the state (its hash) and the choice it was made for.
    forecast: Option<((u64, Choice), Result<SkillForecast, String>)>,
}

/// The battle: turn order, the map with reach or targets, the forecast, units and actions.
pub(super) fn battle_ui(
    ui: &mut egui::Ui,
    session: &Session,
    choices: &[Choice],
    (map_view, pick): (&mut MapViewState, &mut BattlePick),
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
    turn_order_ui(ui, session, &team_colour);
    let Some(map) = session.content().project.tile_maps.get(battle.map().as_str()) else {
        ui.label(format!("The battle's tile map `{}` is missing.", battle.map()));
        return;
    };
    let active = battle.active_unit().map(str::to_owned);
    // A skill the game no longer offers (another unit's turn, a replay) is put down.
    if let Some((unit, skill)) = &pick.skill
        && !choices.iter().any(|choice| aims(choice, unit, skill))
    {
        pick.skill = None;
    }
    skill_bar_ui(ui, session, choices, active.as_deref(), pick);
    let targets: Vec<&Choice> = match &pick.skill {
        Some((unit, skill)) => choices.iter().filter(|choice| aims(choice, unit, skill)).collect(),
        None => Vec::new(),
    };
    let hovered_target = pick.hovered.and_then(|spot| targets.iter().find(|c| chooses(c, spot)).copied());
    let forecast = hovered_target.and_then(|choice| forecast_of(session, choice, pick));
    let mut overlays = Overlays::default();
    let tint = |x: u16, y: u16, z: u16, colour: Color32| CellTint { cell_x: x, cell_y: y, level: z, colour };
    if pick.skill.is_some() {
        for choice in &targets {
            if let Choice::UseSkill { x, y, z, .. } = choice {
                overlays.tinted_cells.push(tint(*x, *y, *z, TARGET));
            }
        }
        if let Some(forecast) = &forecast {
            for spot in &forecast.area {
                overlays.tinted_cells.push(tint(spot.cell_x, spot.cell_y, spot.level, AREA));
            }
        }
    } else {
        for choice in choices {
            if let Choice::MoveUnit { x, y, z, .. } = choice {
                overlays.tinted_cells.push(tint(*x, *y, *z, REACH));
            }
        }
    }
    units_and_props(session, map, &team_colour, &mut overlays);
    map_view.primary_drag_orbits = true;
    ui.allocate_ui(Vec2::new(ui.available_width(), 380.0), |ui| {
        let view = map_view_ui(ui, map_view, map, &overlays);
        // The spot on the tile top under the pointer: on a bridge, the deck or the ground below.
        pick.hovered = map_view.scene().and_then(|scene| map_view.hover_cell_spot(scene.full_grid()));
        if let Some(spot) = view.clicked.and(pick.hovered) {
            let found = if pick.skill.is_some() {
                targets.iter().find(|c| chooses(c, spot)).copied()
            } else {
                choices.iter().filter(|c| matches!(c, Choice::MoveUnit { .. })).find(|c| chooses(c, spot))
            };
            if let Some(choice) = found {
                chosen.push(choice.clone());
                pick.skill = None;
            }
        }
        let hint = if pick.skill.is_some() {
            "Hover a tile tinted orange to see the effect area and the forecast; click it to use the skill"
        } else {
            "Click a tinted tile to move the active unit there; drag to orbit"
        };
        // Over a target the forecast below the map says what a click does; a tooltip would hide it.
        if hovered_target.is_none() {
            view.response.on_hover_text(hint);
        }
    });
    if let (Some(choice), Some(result)) = (hovered_target, pick.forecast.as_ref().map(|(_, result)| result)) {
        forecast_ui(ui, session, choice, result);
    }
    unit_stats_ui(ui, session);
    actions_ui(ui, session, choices, chosen);
    if let Some(active) = battle.active_unit() {
        skill_why_not_ui(ui, session, active);
    }
}

/// The units standing (billboards of their art, else discs, in their team's colour) and the
/// map's props as boxes.
fn units_and_props(
    session: &Session,
    map: &actforge_runtime::model::TileMap,
    team_colour: &dyn Fn(&str) -> Color32,
    overlays: &mut Overlays,
) {
    let Some(battle) = session.tactics() else { return };
    let project = &session.content().project;
    for (key, unit) in battle.units().filter(|(_, unit)| !unit.defeated) {
        overlays.units.push(UnitMarker {
            cell_x: unit.spot.cell_x,
            cell_y: unit.spot.cell_y,
            level: unit.spot.level,
            label: key.to_owned(),
            colour: team_colour(&unit.team),
            active: battle.active_unit() == Some(key),
            facing_degrees: Some(unit.facing as f32),
            art: project.units.get(unit.unit.as_str()).and_then(|unit| unit.art.clone()),
        });
    }
    for prop in &map.props {
        let [r, g, b, a] = [prop.colour.r, prop.colour.g, prop.colour.b, prop.colour.a];
        overlays.props.push(PropBox {
            cell_x: prop.x,
            cell_y: prop.y,
            level: prop.z,
            size: prop.size,
            label: prop.label.clone(),
            colour: if a == 0 { Color32::WHITE } else { Color32::from_rgba_unmultiplied(r, g, b, a) },
        });
    }
}

/// Waiting, facing, picking a unit and ending a team's round as buttons named by their playtest lines.
fn actions_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], chosen: &mut Vec<Choice>) {
    ui.horizontal_wrapped(|ui| {
        for choice in choices {
            if matches!(
                choice,
                Choice::WaitUnit { .. } | Choice::FaceUnit { .. } | Choice::PickUnit { .. } | Choice::EndRound { .. }
            ) && ui.button(session.describe_choice(choice)).clicked()
            {
                chosen.push(choice.clone());
            }
        }
    });
}

/// Whether `choice` moves to or aims at the standing spot `spot`.
fn chooses(choice: &Choice, spot: Spot) -> bool {
    match choice {
        Choice::UseSkill { x, y, z, .. } | Choice::MoveUnit { x, y, z, .. } => {
            (*x, *y, *z) == (spot.cell_x, spot.cell_y, spot.level)
        }
        _ => false,
    }
}

/// Whether `choice` uses `skill` as `unit`.
fn aims(choice: &Choice, unit: &str, skill: &Id<Skill>) -> bool {
    matches!(choice, Choice::UseSkill { unit: u, skill: s, .. } if u == unit && s == skill)
}

/// The turn order strip: the active unit first, then the others by key.
fn turn_order_ui(ui: &mut egui::Ui, session: &Session, team_colour: &dyn Fn(&str) -> Color32) {
    let Some(battle) = session.tactics() else { return };
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
}

/// One button per action skill the active unit can use now; the chosen one is selected.
fn skill_bar_ui(ui: &mut egui::Ui, session: &Session, choices: &[Choice], active: Option<&str>, pick: &mut BattlePick) {
    let Some(active) = active else { return };
    let mut skills: Vec<&Id<Skill>> = Vec::new();
    for choice in choices {
        if let Choice::UseSkill { unit, skill, .. } = choice
            && unit == active
            && !skills.contains(&skill)
        {
            skills.push(skill);
        }
    }
    ui.horizontal_wrapped(|ui| {
        let moving = pick.skill.is_none();
        if ui
            .add(egui::Button::new(format!("{} Move", icon::FOOTPRINTS)).selected(moving))
            .on_hover_text("Show where the active unit can walk; click a tinted tile to move there")
            .clicked()
        {
            pick.skill = None;
        }
        for skill in skills {
            let label = name_of(&session.content().project.skills, skill.as_str());
            let chosen = pick.skill.as_ref().is_some_and(|(_, s)| s == skill);
            let button = egui::Button::new(format!("{} {label}", icon::SWORD)).selected(chosen);
            if ui.add(button).on_hover_text(format!("Aim {label}: its targets are tinted on the map")).clicked() {
                pick.skill = if chosen { None } else { Some((active.to_owned(), skill.clone())) };
            }
        }
    });
}

/// The forecast of `choice`, made again only when the state or the choice changed.
fn forecast_of(session: &Session, choice: &Choice, pick: &mut BattlePick) -> Option<SkillForecast> {
    let Choice::UseSkill { unit, skill, x, y, z } = choice else { return None };
    let key = (session.state_hash(), choice.clone());
    if pick.forecast.as_ref().is_none_or(|(known, _)| *known != key) {
        let spot = Spot { cell_x: *x, cell_y: *y, level: *z };
        let result = session.forecast_skill(unit, skill.as_str(), spot, FORECAST_TRIALS);
        pick.forecast = Some((key, result));
    }
    pick.forecast.as_ref().and_then(|(_, result)| result.as_ref().ok()).cloned()
}

/// The forecast in words: per unit, the share of hits and the mean change of each stat.
fn forecast_ui(ui: &mut egui::Ui, session: &Session, choice: &Choice, result: &Result<SkillForecast, String>) {
    let Choice::UseSkill { skill, x, y, z, .. } = choice else { return };
    let label = name_of(&session.content().project.skills, skill.as_str());
    ui.label(RichText::new(format!("{label} at ({x}, {y}, {z})")).strong());
    let forecast = match result {
        Ok(forecast) => forecast,
        Err(why) => {
            ui.label(RichText::new(why).color(ui.visuals().warn_fg_color));
            return;
        }
    };
    if forecast.units.is_empty() {
        ui.label(format!("Changes no unit (in {} tries)", forecast.trials));
    }
    for unit in &forecast.units {
        let changes: Vec<String> =
            unit.stats.iter().map(|(stat, mean)| format!("{stat} {mean:+.1}")).collect::<Vec<_>>();
        let defeated =
            if unit.defeated > 0.0 { format!(", defeated {:.0}%", unit.defeated * 100.0) } else { String::new() };
        ui.label(format!(
            "{}: hit {:.0}%, on average {}{defeated}",
            unit.unit,
            unit.changed * 100.0,
            changes.join(", ")
        ))
        .on_hover_text(format!(
            "Played {} times on copies of the battle with the skill's own formulas; the share of copies in which \
             the unit changed, and each stat's mean change over all copies",
            forecast.trials
        ));
    }
}

/// Each unit: team, spot and its first stats.
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

/// Why each of the active unit's skills cannot be used now.
fn skill_why_not_ui(ui: &mut egui::Ui, session: &Session, active: &str) {
    let Some(battle) = session.tactics() else { return };
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
