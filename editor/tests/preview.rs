//! The Preview tab: start the demo by clicking, drag a card into a slot, advance time, edit the
//! running act and see its text change without a restart, scrub back one input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic, clippy::float_cmp)] // test code: a panic is a failed test

use std::path::PathBuf;
use std::time::Duration;

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::commands::UiCommand;
use actforge_editor::preview::{CLOCK_FRAME, PreviewGame, SPEEDS};
use actforge_runtime::engine::{Session, Status};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn act_demo() -> PathBuf {
    default_project_path().parent().unwrap().join("act-demo")
}

fn harness() -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(act_demo()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    harness
}

/// The editor at its default size on a bundled pack, with the preview started.
fn playing(pack: &str) -> Harness<'static, ActforgeApp> {
    playing_at(pack, [1280.0, 800.0])
}

/// The editor on a bundled pack at `size`, with the preview started (a tall window shows both
/// boards and both hands without scrolling).
fn playing_at(pack: &str, size: [f32; 2]) -> Harness<'static, ActforgeApp> {
    let path = default_project_path().parent().unwrap().join(pack);
    let mut harness = Harness::builder()
        .with_size(size)
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    harness
}

fn hedgerow_status(app: &ActforgeApp) -> Status {
    let session = app.preview().game.session().unwrap();
    let key = session.find_token("hedgerow").unwrap();
    session.state().window(key).unwrap().status.clone()
}

#[test]
fn the_designer_plays_the_demo_edits_the_running_act_and_scrubs_back() {
    let mut harness = harness();
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.log().len(), 0);

    // Drag the basket into the hedgerow's satchel slot.
    let from = harness.get_by_label("Wicker Basket").rect().center();
    harness.drag_at(from);
    harness.run_steps(1);
    let to = harness.get_by_label("Satchel slot").rect().center();
    harness.hover_at(to);
    harness.run_steps(1);
    harness.drop_at(to);
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.log(), ["slot basket hedgerow 0"]);
    assert!(matches!(hedgerow_status(harness.state()), Status::Ready(_)));

    // Click the token's start button: the act runs and shows its text.
    harness.get_by_label_contains("Start The Hedgerow").click();
    harness.run_steps(3);
    assert_eq!(hedgerow_status(harness.state()), Status::Running);
    harness.get_by_label("You push the snow aside with your boot and look for green.");

    // Advance time with the clock: play a few frames, then pause.
    harness.get_by_label(&format!("{} Play", egui_phosphor::regular::PLAY)).click();
    harness.run_steps(20);
    harness.get_by_label(&format!("{} Pause", egui_phosphor::regular::PAUSE)).click();
    harness.run_steps(2);
    let tick = harness.state().preview().game.session().unwrap().state().tick;
    assert!(tick > 0, "the clock ran");
    assert_eq!(hedgerow_status(harness.state()), Status::Running, "the act still runs after {tick} ticks");
    // Its timer bar counts down in whole seconds while more than ten are left, tenths below.
    let session = harness.state().preview().game.session().unwrap();
    let left = session.state().windows.values().filter_map(|window| window.timer_end).min().unwrap() - tick;
    let shown = if left > 100 { format!("{} s", left.div_ceil(10)) } else { format!("{}.{} s", left / 10, left % 10) };
    harness.get_by_label_contains(&format!("{} {shown} left", egui_phosphor::regular::TIMER));
    let log = harness.state().preview().game.log().to_vec();
    assert_eq!(log[..2], ["slot basket hedgerow 0".to_owned(), "start hedgerow".to_owned()]);
    assert!(log[2].starts_with("wait "), "{log:?}");

    // Edit the running act's text in the inspector: the preview shows it without a restart.
    harness.get_by_label_contains("Acts (17)").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Forage · forage").click();
    harness.run_steps(3);
    harness.get_by_label("Text").focus();
    harness.run_steps(1);
    harness.get_by_label("Text").type_text(" Frost bites.");
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.notice(), None);
    assert_eq!(harness.state().preview().game.log(), log.as_slice(), "the inputs were replayed, not dropped");
    assert_eq!(hedgerow_status(harness.state()), Status::Running);
    harness.get_by_label("You push the snow aside with your boot and look for green. Frost bites.");
    assert_eq!(harness.state().preview().game.session().unwrap().state().tick, tick, "the game kept its place");

    // Scrub back one input, then another: the act is no longer running, the window is ready again.
    harness.get_by_label_contains("Back one input").click();
    harness.run_steps(2);
    assert_eq!(harness.state().preview().game.played(), 2);
    assert_eq!(harness.state().preview().game.session().unwrap().state().tick, 0);
    harness.get_by_label_contains("Back one input").click();
    harness.run_steps(2);
    assert!(matches!(hedgerow_status(harness.state()), Status::Ready(_)));
    harness.get_by_label_contains("Start The Hedgerow");
    assert_eq!(harness.state().preview().game.log().len(), 3, "the later inputs stay until a new input replaces them");
}

fn demo_project() -> actforge_runtime::Project {
    actforge_runtime::project::open_project(&act_demo()).unwrap().project
}

#[test]
fn waits_merge_and_replay_to_the_same_state_as_live_play() {
    let project = demo_project();
    let mut game = PreviewGame::default();
    game.sync(&project, 1);
    for line in ["slot basket hedgerow", "start hedgerow", "wait 7", "wait 13", "wait 100", "collect hedgerow"] {
        assert!(game.input(line), "{line}: {:?}", game.notice());
    }
    assert_eq!(
        game.log(),
        ["slot basket hedgerow", "start hedgerow", "wait 120", "collect hedgerow"].map(String::from)
    );
    let live = game.session().unwrap().state_hash();
    game.jump_to(2);
    game.jump_to(4);
    assert_eq!(game.session().unwrap().state_hash(), live, "replay reaches the live state");
    // The saved playtest plays to the same state in a fresh session.
    let script = game.playtest_script("demo");
    let mut session = Session::new(project, game.seed()).unwrap();
    session.run_script(&script).unwrap();
    assert_eq!(session.state_hash(), live);
}

#[test]
fn an_edit_the_log_cannot_replay_onto_restarts_with_why_and_errors_keep_the_last_game() {
    let mut project = demo_project();
    let mut game = PreviewGame::default();
    game.sync(&project, 1);
    assert!(game.input("slot basket hedgerow"));
    assert!(game.input("start hedgerow"));
    // A broken formula: the preview keeps the last good game and lists the error.
    let mut broken = project.clone();
    broken.acts.get_mut("forage").unwrap().duration_ticks = actforge_runtime::model::Expr::new("60 +");
    game.sync(&broken, 2);
    assert!(!game.errors().is_empty());
    assert_eq!(game.log().len(), 2);
    // The satchel no longer takes tools: the first input cannot replay.
    let satchel = project.slots.get_mut("satchel").unwrap();
    satchel.forbidden = std::mem::take(&mut satchel.required);
    game.sync(&project, 3);
    assert!(game.errors().is_empty());
    let notice = game.notice().unwrap();
    assert!(notice.contains("input 1 `slot basket hedgerow`"), "{notice}");
    assert!(notice.contains("no open slot of that window accepts `basket`"), "{notice}");
    assert!(game.log().is_empty());
}

#[test]
fn play_from_here_runs_the_act_at_once_and_refuses_unknown_acts() {
    let project = demo_project();
    let mut game = PreviewGame::default();
    game.sync(&project, 1);
    // Knocking at the door runs in the village token, which is not on the table at the start.
    game.play_from("run knock_at_door".to_owned());
    let session = game.session().unwrap();
    let running: Vec<String> = game.highlight().acts.iter().map(ToString::to_string).collect();
    assert!(running.contains(&"knock_at_door".to_owned()), "{running:?}");
    let village = session.find_token("village").unwrap();
    assert_eq!(session.state().window(village).unwrap().status, Status::Running);
    assert!(game.playtest_script("demo").contains("run knock_at_door\n"));
    game.play_from("run no_such_act".to_owned());
    assert!(game.notice().unwrap().contains("there is no act `no_such_act`"));
    assert!(game.highlight().acts.is_empty());
}

/// Issue 29 (battle preview): choose a skill, see its targets, hover one for the effect area
/// and the forecast from the skill's formulas, confirm with a click.
#[test]
fn the_battle_preview_aims_a_chosen_skill_forecasts_it_on_hover_and_uses_it_on_click() {
    use actforge_runtime::engine::Choice;
    use actforge_runtime::map::{Spot, spot_point};
    let mut harness = playing("srpg-skirmish");
    let active = harness.state().preview().game.session().unwrap().tactics().unwrap().active_unit().unwrap().to_owned();
    // Aim the first skill the active unit can use now.
    let skill = {
        let session = harness.state().preview().game.session().unwrap();
        session
            .choices()
            .into_iter()
            .find_map(|choice| match choice {
                Choice::UseSkill { skill, .. } => Some(skill.to_string()),
                _ => None,
            })
            .expect("the first unit can use a skill")
    };
    let label =
        harness.state().preview().game.session().unwrap().content().project.skills.get(&skill).unwrap().label.clone();
    harness.get_by_label_contains(&format!(" {label}")).click();
    harness.run_steps(3);
    let (line, screen) = {
        let app = harness.state();
        let session = app.preview().game.session().unwrap();
        let battle = session.tactics().unwrap();
        let view = app.preview().map_view();
        session
            .choices()
            .into_iter()
            .filter_map(|choice| match choice {
                Choice::UseSkill { unit, skill: s, x, y, z } if s.as_str() == skill => Some((unit, x, y, z)),
                _ => None,
            })
            .find_map(|(unit, x, y, z)| {
                let point = spot_point(battle.grid(), Spot { cell_x: x, cell_y: y, level: z })?;
                let screen = view.screen_of_grid(point)?;
                let hit = view.pick_at(screen)?;
                (hit.cell_x == x && hit.cell_y == y && screen.y < 520.0)
                    .then(|| (format!("use {unit} {skill} {x} {y} {z}"), screen))
            })
            .expect("a target tile in view")
    };
    harness.hover_at(screen);
    harness.run_steps(3);
    harness.get_by_label_contains(&format!("{label} at ("));
    harness.hover_at(screen);
    harness.drag_at(screen);
    harness.run_steps(1);
    harness.drop_at(screen);
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.log(), [line], "{active}");
}

#[test]
fn the_tactics_preview_moves_the_active_unit_to_a_clicked_tile() {
    use actforge_runtime::engine::Choice;
    use actforge_runtime::map::{Spot, spot_point};
    let mut harness = playing("srpg-skirmish");
    // A reachable tile whose top is what the view shows at its centre (not hidden behind a unit or a wall).
    let (line, screen) = {
        let app = harness.state();
        let session = app.preview().game.session().unwrap();
        let battle = session.tactics().unwrap();
        let view = app.preview().map_view();
        session
            .choices()
            .into_iter()
            .filter_map(|choice| match choice {
                Choice::MoveUnit { unit, x, y, z } => Some((unit, x, y, z)),
                _ => None,
            })
            .find_map(|(unit, x, y, z)| {
                let point = spot_point(battle.grid(), Spot { cell_x: x, cell_y: y, level: z })?;
                let screen = view.screen_of_grid(point)?;
                let hit = view.pick_at(screen)?;
                (hit.cell_x == x
                    && hit.cell_y == y
                    && screen.y < 520.0
                    && battle.unit_at(Spot { cell_x: x, cell_y: y, level: z }).is_none())
                .then(|| (format!("move {unit} {x} {y} {z}"), screen))
            })
            .expect("a reachable tile in view")
    };
    harness.hover_at(screen);
    harness.run_steps(1);
    harness.drag_at(screen);
    harness.run_steps(1);
    harness.drop_at(screen);
    harness.run_steps(3);
    assert_eq!(harness.state().preview().game.log(), [line]);
}

#[test]
fn every_bundled_pack_plays_in_the_preview_with_its_systems_view() {
    let packs = [
        ("knucklebones", "Boards — turn"),
        ("knucklebones-extended", "Boards — turn"),
        ("issues-sim", "Turns — turn"),
        ("era-synthesis", "Campaign — "),
        ("lighthouse", "Table"),
        ("srpg-skirmish", "Tactics — turn"),
    ];
    for (pack, heading) in packs {
        let mut harness = playing(pack);
        let game = &harness.state().preview().game;
        assert!(game.errors().is_empty(), "{pack}: {:?}", game.errors());
        assert!(game.session().is_some(), "{pack} plays");
        harness.get_by_label_contains(heading);
        // Every choice is offered as a button with its playtest line; taking the first one plays it.
        let first = {
            let session = harness.state().preview().game.session().unwrap();
            session.choices().first().map(|choice| session.describe_choice(choice))
        };
        if let Some(line) = first {
            harness.get_by_label_contains("Every choice now").click();
            harness.run_steps(2);
            harness.get_all_by_label(&line).next().unwrap().click();
            harness.run_steps(3);
            assert_eq!(harness.state().preview().game.log(), [line], "{pack}");
        }
    }
}

#[test]
fn a_second_copy_of_a_turn_card_says_its_options_are_on_the_first() {
    let harness = playing("lighthouse");
    let hand = harness.state().preview().game.session().unwrap().turns().unwrap().hand.clone();
    let copies = hand.iter().filter(|card| card.as_str() == "storm_warning").count();
    assert_eq!(copies, 2, "the lighthouse deals two storm warnings: {hand:?}");
    assert_eq!(harness.query_all_by_label("Another copy: its options are on the first").count(), 1);
    assert_eq!(harness.query_all_by_label("Light the beacon").count(), 1);
}

#[test]
fn the_campaign_hand_shows_card_labels_with_their_ids_on_hover() {
    let harness = playing("era-synthesis");
    let hand = harness.state().preview().game.session().unwrap().campaign().unwrap().hand.clone();
    assert!(!hand.is_empty());
    let project = harness.state().project().unwrap().clone();
    for id in &hand {
        let label = &project.cards.get(id.as_str()).unwrap().label;
        harness.get_by_label(label);
    }
}

#[test]
fn the_campaign_preview_draws_from_another_deck_and_plays_the_card_drawn() {
    let mut harness = playing_at("era-synthesis", [1600.0, 1600.0]);
    harness.get_by_label_contains("Roots (A and B cards): 6 left (drawn from)");
    harness.get_by_label_contains("Discard pile: 0");
    harness.get_by_label("use-deck relics").click();
    harness.run_steps(3);
    harness.get_by_label_contains("Relics (C cards): 4 left (drawn from)");
    harness.get_by_label("draw").click();
    harness.run_steps(3);
    // The bastion joins the hand, upright (the preview's seed); at dawn it cannot be played.
    harness.get_by_label("Bastion");
    assert_eq!(harness.query_all_by_label_contains("Bastion (reversed)").count(), 0);
    assert_eq!(harness.query_all_by_label_contains("play bastion").count(), 0);
    harness.get_by_label("end-phase").click();
    harness.run_steps(3);
    // Upright, the bastion steadies the faithful: faith 60 + 4.
    assert_eq!(harness.query_all_by_label("play bastion reversed").count(), 0);
    harness.get_by_label("play bastion").click();
    harness.run_steps(3);
    harness.get_by_label_contains("Discard pile: 1");
    let session = harness.state().preview().game.session().unwrap();
    assert_eq!(session.campaign_stat("faith"), Some(64.0));
    assert!(!session.campaign().unwrap().hand.iter().any(|card| card.as_str() == "bastion"));
}

#[test]
fn the_synthesis_table_follows_what_if_meters_and_plots_the_faith_modifier() {
    let mut harness = playing_at("era-synthesis", [1600.0, 2000.0]);
    harness.get_by_label_contains("Synthesis table").click();
    harness.run_steps(3);
    // The first A and B of the hand are picked: ember root and flame gospel make the pyre sage.
    harness.get_by_label("pyre_sage");
    harness.get_by_label("What if…").click();
    harness.run_steps(3);
    // Faith 60 in the game: M_faith = −4 + 0.175 × 20 = −0.5.
    harness.get_by_label_contains("M_faith over faith: -0.50 at 60.0");
    harness.get_by_label_contains("M_entropy over entropy: ");
    // Drag the faith slider to its left end (0): M_faith = −33.
    let slider = harness.get_by_role_and_label(egui::accesskit::Role::Slider, "Faith").rect();
    harness.drag_at(slider.left_center() + egui::vec2(1.0, 0.0));
    harness.run_steps(2);
    harness.drop_at(slider.left_center() - egui::vec2(50.0, 0.0));
    harness.run_steps(3);
    harness.get_by_label_contains("M_faith over faith: -33.00 at 0.0");
    // The game's faith is unchanged; going back restores the game's values.
    assert_eq!(harness.state().preview().game.session().unwrap().campaign_stat("faith"), Some(60.0));
    harness.get_by_label("Back to the game's values").click();
    harness.run_steps(3);
    harness.get_by_label_contains("M_faith over faith: -0.50 at 60.0");
}

#[test]
fn a_named_formula_shows_its_value_in_the_running_preview() {
    let mut harness = playing_at("era-synthesis", [1600.0, 1200.0]);
    harness.get_by_label_contains("Formulas (").click();
    harness.run_steps(2);
    harness.get_by_label_contains("M_faith · m_faith").click();
    harness.run_steps(3);
    // Faith is 60 at the start: M_faith = −4 + 0.175 × (60 − 40).
    harness.get_by_label("= -0.5 in the preview now");
}

#[test]
fn an_anecdote_asks_for_a_choice_in_the_campaign_preview() {
    let mut harness = playing_at("era-synthesis", [1600.0, 1600.0]);
    harness.get_by_label("end-phase").click();
    harness.run_steps(3);
    harness.get_by_label("go old_shrine").click();
    harness.run_steps(3);
    harness.get_by_label_contains("Old Shrine asks you to choose");
    // Nothing else is offered while the shrine waits.
    assert_eq!(harness.query_all_by_label("end-phase").count(), 0);
    harness.get_by_label("Spread the tale").click();
    harness.run_steps(3);
    let session = harness.state().preview().game.session().unwrap();
    assert_eq!(session.campaign_stat("faith"), Some(75.0));
    assert_eq!(harness.query_all_by_label_contains("asks you to choose").count(), 0);
    harness.get_by_label("end-phase");
}

#[test]
fn the_campaign_preview_binds_a_pair_on_the_field_gathers_and_triggers_it() {
    let mut harness = playing_at("era-synthesis", [1600.0, 2000.0]);
    harness.get_by_label("end-phase").click();
    harness.run_steps(3);
    harness.get_by_label("bind ember_root tide_medium").click();
    harness.run_steps(3);
    harness.get_by_label_contains("On the field: Ember Root + Tide Medium (gathered: nothing yet)");
    for _ in 0..3 {
        harness.get_by_label("end-phase").click();
        harness.run_steps(3);
    }
    // The second day's dawn: B gathered A's flow tendency 3 and entropy tendency 2.
    harness.get_by_label_contains("(gathered: field_entropy +2, field_flow +3)");
    harness.get_by_label("trigger ember_root tide_medium").click();
    harness.run_steps(3);
    assert_eq!(harness.query_all_by_label_contains("On the field:").count(), 0);
    let session = harness.state().preview().game.session().unwrap();
    let campaign = session.campaign().unwrap();
    assert!(campaign.syntheses == 1 && campaign.bonds.is_empty());
    // A revelation the dice granted shows by its label.
    let smelt = session.content().project.syntheses.get("smelt").unwrap();
    let labels: Vec<String> = campaign
        .revealed
        .iter()
        .filter_map(|id| smelt.revelations.iter().find(|revelation| revelation.id == *id))
        .map(|revelation| revelation.label.clone())
        .collect();
    for label in labels {
        harness.get_by_label(&label);
    }
}

#[test]
fn the_campaign_preview_plays_the_forge_mark_on_a_c_card() {
    let mut harness = playing_at("era-synthesis", [1600.0, 2000.0]);
    // A perfect match makes the pyre sage at noon of day 1; the gospel's mutation: attack + 2.
    for line in ["end-phase", "synthesize ember_root flame_gospel", "go whisper_market", "go ember_forge"] {
        harness.get_by_label(line).click();
        harness.run_steps(3);
    }
    harness.get_by_label("Forge mark");
    harness.get_by_label("play forge_mark on pyre_sage").click();
    harness.run_steps(3);
    let session = harness.state().preview().game.session().unwrap();
    let boosts = &session.campaign().unwrap().boosts[&actforge_runtime::model::Id::new("pyre_sage")];
    assert_eq!(boosts.get("life"), Some(&2.0));
    harness.get_by_label_contains("Pyre Sage: attack +");
    assert_eq!(harness.query_all_by_label("Forge mark").count(), 0);
}

#[test]
fn the_campaign_preview_shows_the_patrol_s_sight_and_the_grade_banner_at_the_end() {
    let mut harness = playing_at("era-synthesis", [1600.0, 1800.0]);
    harness.get_by_label_contains("Stealthy: no patrol sees you");
    // Play the golden campaign by its buttons, as a designer would click it through.
    let script = std::fs::read_to_string(
        default_project_path().parent().unwrap().join("era-synthesis/tests/era_synthesis.play"),
    )
    .unwrap();
    for line in script.lines().map(|line| line.split('#').next().unwrap().trim()) {
        if line.is_empty() || line.starts_with("expect") {
            continue;
        }
        let button = match line {
            "choose spread" => "Spread the tale".to_owned(),
            _ => line.replace("smelt ", "synthesize "),
        };
        harness.get_by_label(&button).click();
        harness.run_steps(3);
        if button == "go iron_gate" {
            harness.get_by_label_contains("Seen by a patrol");
        }
    }
    assert!(harness.query_all_by_label_contains(" Victory").count() >= 1);
    harness.get_by_label("Grade: Triumph (凯旋): Victory");
}

#[test]
fn board_cards_are_offered_by_label_and_option_and_play_their_playtest_line() {
    let mut harness = playing("knucklebones");
    harness.get_by_label("Player two — to play");
    harness.get_by_label("Player one");
    harness.get_by_label_contains("Destiny die: odd");
    harness.get_by_label_contains("Destiny die: even").click();
    harness.run_steps(3);
    let log = harness.state().preview().game.log().to_vec();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].contains("destiny_die") && log[0].contains("even"), "{log:?}");
}

#[test]
fn save_as_playtest_writes_a_test_of_the_project_with_the_ticked_checks_that_then_passes() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&act_demo(), dir.path()).unwrap();
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    // Play: the basket into the hedgerow's satchel slot.
    let from = harness.get_by_label("Wicker Basket").rect().center();
    harness.drag_at(from);
    harness.run_steps(1);
    let to = harness.get_by_label("Satchel slot").rect().center();
    harness.hover_at(to);
    harness.run_steps(1);
    harness.drop_at(to);
    harness.run_steps(3);
    harness.get_by_label_contains("Save as playtest").click();
    harness.run_steps(3);
    // The checks of what holds now are offered ticked; one is unticked.
    harness.get_by_label("expect status hedgerow ready").click();
    harness.run_steps(1);
    let name = harness.get_by_label("Test name");
    name.focus();
    name.type_text("_basket");
    harness.run_steps(2);
    harness.get_by_label("Save test").click();
    harness.run_steps(3);
    let file = dir.path().join("tests").join("preview_1_basket.play");
    let script = std::fs::read_to_string(&file).unwrap();
    assert!(script.contains("slot basket hedgerow"), "{script}");
    assert!(!script.contains("expect status hedgerow ready"), "{script}");
    assert!(script.contains("expect status "), "{script}");
    harness.get_by_label_contains("Saved tests/preview_1_basket.play");
    // The project's tests now include it, and it passes.
    let project = harness.state().project().unwrap().clone();
    let seed = project.manifest.settings.seed;
    let outcome = actforge_cli::test::run_test(&project, seed, &actforge_cli::test::TestScript::from_file(&file));
    assert!(outcome.passed(), "{outcome:?}\n{script}");
}

#[test]
fn a_card_added_while_playing_is_an_input_that_survives_a_content_edit() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&act_demo(), dir.path()).unwrap();
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    let coins = |harness: &Harness<'static, ActforgeApp>| {
        harness.state().preview().game.session().unwrap().query("table.card.coin").unwrap() as i64
    };
    let before = coins(&harness);
    harness.get_by_value("Pick a card").click();
    harness.run_steps(2);
    harness.get_by_label("Coin · coin").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Apply").click();
    harness.run_steps(3);
    assert_eq!(coins(&harness), before + 1);
    assert_eq!(harness.state().preview().game.log().last().map(String::as_str), Some("create card coin"));
    // Edit the content: the coin's label, in the inspector. The game replays its inputs.
    harness.get_by_label_contains("Cards (").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Coin · coin").click();
    harness.run_steps(3);
    let label = harness.get_by_role_and_label(egui::accesskit::Role::TextInput, "Label");
    label.focus();
    label.type_text(" (silver)");
    harness.run_steps(4);
    assert!(harness.state().project().unwrap().cards.get("coin").unwrap().label.ends_with("(silver)"));
    assert_eq!(coins(&harness), before + 1, "the added coin is still on the table after the edit");
}

#[test]
fn an_idle_window_says_why_no_act_starts_with_the_missing_card_s_values() {
    let mut harness = playing("lighthouse");
    let headers: Vec<egui::Rect> =
        harness.query_all_by_label_contains("Why does no act start?").map(|node| node.rect()).collect();
    assert!(!headers.is_empty());
    harness.get_all_by_label_contains("Why does no act start?").next().unwrap().click();
    harness.run_steps(3);
    // The Lamp Room waits on fuel: Tend the Lamp needs a card with fuel in its slot.
    harness.get_by_label_contains("Tend the Lamp (tend_the_lamp)");
    harness.get_by_label_contains("• needs fuel ≥ 1 in the window: 0");
    harness.get_by_label_contains("• its first slot is empty");
}

#[test]
fn a_stat_set_while_playing_is_an_input_line_and_a_refused_one_says_why_at_the_row() {
    let mut harness = playing("issues-sim");
    let treasury = |harness: &Harness<'static, ActforgeApp>| {
        harness.state().preview().game.session().unwrap().query("treasury").unwrap()
    };
    harness.get_by_value("Pick a stat").click();
    harness.run_steps(2);
    harness.get_all_by_label("treasury").last().unwrap().click();
    harness.run_steps(2);
    let value = harness.get_by_role_and_label(egui::accesskit::Role::TextInput, "value");
    value.focus();
    harness.run_steps(1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_role_and_label(egui::accesskit::Role::TextInput, "value").type_text("1234");
    harness.run_steps(2);
    harness.get_by_label_contains("Apply").click();
    harness.run_steps(3);
    assert_eq!(treasury(&harness), 1234.0);
    assert_eq!(harness.state().preview().game.log().last().map(String::as_str), Some("set stat treasury 1234"));
    // Not a number: refused, said at the row, and nothing changes.
    harness.get_by_role_and_label(egui::accesskit::Role::TextInput, "value").focus();
    harness.run_steps(1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_role_and_label(egui::accesskit::Role::TextInput, "value").type_text("lots");
    harness.run_steps(2);
    harness.get_by_label_contains("Apply").click();
    harness.run_steps(3);
    harness.get_by_label_contains("`set stat treasury lots` is not possible");
    assert_eq!(treasury(&harness), 1234.0);
}

#[test]
fn the_boards_say_why_an_ability_in_hand_cannot_be_played() {
    let harness = playing("knucklebones");
    let session = harness.state().preview().game.session().unwrap();
    let game = &session.board().unwrap().game;
    let hand = &game.sides[game.active].hand;
    // No die is on the board yet: the twister needs two of them. Its card is greyed with why.
    assert!(hand.iter().any(|card| card.as_str() == "twister"), "{hand:?}");
    assert_eq!(
        harness
            .query_all_by_label(
                "Your turn: swap two of your own dice; each is checked against the facing column as if placed."
            )
            .count(),
        2,
        "both hands show the card's text"
    );
    harness.get_by_label_contains("no target: it needs two dice on its own board");
    assert!(harness.query_by_label("Play Twister").is_none(), "an unplayable card offers no button");
}

/// Issue 28.14: hot-seat play shows what the side to play sees. Foggy sight hides the other
/// side's next roll ("?"), the debug toggle shows it; a ground trap is aimed at an empty cell of
/// the facing board by a click, and an after-roll card (Re-roll) is offered once the die is rolled.
#[test]
fn the_extended_boards_hide_a_fogged_roll_until_the_debug_toggle_and_aim_a_trap_at_a_cell() {
    let mut harness = playing_at("knucklebones-extended", [1280.0, 1400.0]);
    let to_play = |harness: &Harness<'static, ActforgeApp>| {
        let session = harness.state().preview().game.session().unwrap();
        let game = &session.board().unwrap().game;
        game.sides[game.active].board.to_string()
    };
    let first = to_play(&harness);
    let (first_name, second_name) =
        if first == "player_one" { ("Player one", "Player two") } else { ("Player two", "Player one") };
    harness.get_by_label(&format!("{first_name} — to play"));
    // The trap: arm the card, then click an empty cell of the facing board.
    harness.get_by_label("Play Ground trap").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Ground trap: Click a target ringed in green");
    harness.get_by_label(&format!("{second_name} cell 2, 1")).click();
    harness.run_steps(3);
    let log = harness.state().preview().game.log().to_vec();
    assert_eq!(log, ["ability ground_trap 2,1"], "{log:?}");
    let trap = |harness: &Harness<'static, ActforgeApp>| {
        let session = harness.state().preview().game.session().unwrap();
        let board = session.board().unwrap();
        let (_, side) = board.side(if first == "player_one" { "player_two" } else { "player_one" }).unwrap();
        board.cell_var(side, 2, 1, "trap")
    };
    assert_eq!(trap(&harness), Some(1));
    harness.get_by_label_contains("Roll the die").click();
    harness.run_steps(3);
    harness.get_by_label(&format!("{first_name} column 1")).click();
    harness.run_steps(3);
    // The other side: Re-roll is offered after its roll, not before.
    assert!(harness.query_by_label("Play Re-roll").is_none());
    harness.get_by_label_contains("Roll the die").click();
    harness.run_steps(3);
    harness.get_by_label("Play Re-roll").click();
    harness.run_steps(3);
    harness.get_by_label(&format!("{second_name} column 3")).click();
    harness.run_steps(3);
    // The first side fogs the other's next roll, which is then hidden from the other side.
    harness.get_by_label("Play Foggy sight").click();
    harness.run_steps(3);
    harness.get_by_label_contains("Roll the die").click();
    harness.run_steps(3);
    harness.get_by_label(&format!("{first_name} column 2")).click();
    harness.run_steps(3);
    assert_ne!(to_play(&harness), first);
    harness.get_by_label_contains("Roll the die").click();
    harness.run_steps(3);
    harness.get_by_label_contains("The die is hidden from the side to play");
    harness.get_by_label("Show hidden information (debug)").click();
    harness.run_steps(3);
    assert!(harness.query_by_label_contains("The die is hidden from the side to play").is_none());
    harness.get_by_label_contains("Click a column ringed in green to place the die");
}

/// Issue 27.9: a replay past its budget of engine steps is cut with a message; every input
/// stays in the log, and a larger budget plays them all again.
#[test]
fn a_replay_past_its_budget_is_cut_with_a_message_and_keeps_the_inputs() {
    let project = demo_project();
    let mut game = PreviewGame::default();
    game.sync(&project, 1);
    for line in ["slot basket hedgerow", "start hedgerow", "wait 120", "collect hedgerow"] {
        assert!(game.input(line), "{line}: {:?}", game.notice());
    }
    let live = game.session().unwrap().state_hash();
    game.set_replay_budget(1);
    game.sync(&project, 2);
    let notice = game.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("The replay was cut at input 2 of 4"), "{notice}");
    assert_eq!(game.log().len(), 4, "nothing the designer did is lost");
    assert_eq!(game.played(), 2);
    game.set_replay_budget(actforge_editor::preview::REPLAY_BUDGET);
    game.jump_to(4);
    assert_eq!(game.session().unwrap().state_hash(), live);
}

/// A table whose act takes one tick and starts itself again: a long wait is one step per tick.
fn spinning_project() -> actforge_runtime::Project {
    use actforge_runtime::model::{Act, ActLink, Card, Expr, Id, Slot, Token};
    let mut project = actforge_runtime::Project::new("spin");
    project.slots.insert(Slot { id: Id::new("seat"), ..Default::default() });
    project.cards.insert(Card { id: Id::new("pebble"), label: "Pebble".into(), ..Card::default() });
    project.tokens.insert(Token { id: Id::new("wheel"), slot: Some(Id::new("seat")), ..Default::default() });
    project.manifest.entry.tokens = vec![Id::new("wheel")];
    project.manifest.entry.cards = vec![Id::new("pebble")];
    project.acts.insert(Act {
        id: Id::new("spin"),
        token: Some(Id::new("wheel")),
        initial: true,
        duration_ticks: Expr::new("1"),
        next_acts: vec![ActLink::to("spin")],
        ..Act::default()
    });
    project
}

/// Issue 27.9: a live input that loops without the player is cut at the input budget, and
/// the log keeps the wait that passed, so a replay reaches the same state.
#[test]
fn a_live_wait_on_looping_content_is_cut_and_logged_as_the_time_that_passed() {
    let mut game = PreviewGame::default();
    game.sync(&spinning_project(), 1);
    assert!(game.errors().is_empty(), "{:?}", game.errors());
    assert!(game.input("run spin"), "{:?}", game.notice());
    // A trillion ticks: a trillion act completions, far past the budget of one input.
    assert!(game.input("wait 1000000000000"));
    let notice = game.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("was cut after 100000 steps"), "{notice}");
    let tick = game.session().unwrap().state().tick;
    assert!(tick > 0 && tick < 1_000_000, "stopped early, at tick {tick}");
    assert_eq!(game.log(), ["run spin".to_owned(), format!("wait {tick}")]);
    let live = game.session().unwrap().state_hash();
    game.jump_to(0);
    game.jump_to(2);
    assert_eq!(game.session().unwrap().state_hash(), live, "the logged wait replays to the same state");
}

/// Issue 27.9: the preview compiles and replays on a worker thread. With no foreground wait a
/// long replay leaves the caller (the editor's frame) free at once and shows the old game as
/// busy; Stop ends it, even inside one long wait, at the state it reached; inputs given
/// meanwhile are not played over the inputs the replay did not reach.
#[test]
fn a_long_replay_runs_on_the_worker_and_stops_when_asked() {
    let project = spinning_project();
    let mut game = PreviewGame::default();
    game.sync(&project, 1);
    assert!(game.input("run spin"), "{:?}", game.notice());
    for _ in 0..8 {
        assert!(game.input("wait 1000000000000"));
        // A choice between the waits, so that they stay separate inputs in the log.
        assert!(game.input("expect act wheel spin"), "{:?}", game.notice());
    }
    assert_eq!(game.log().len(), 17);
    let before = game.session().unwrap().state_hash();
    game.set_foreground_wait(Some(std::time::Duration::ZERO));
    game.sync(&project, 2);
    // The replay needs 800,000 steps: the call came back long before.
    assert!(game.busy().is_some(), "the replay runs on the worker");
    assert_eq!(game.session().unwrap().state_hash(), before, "the old game shows meanwhile");
    assert!(game.input("wait 5"), "an input while busy is taken");
    assert_eq!(game.queued(), ["wait 5"]);
    game.stop();
    game.wait(None);
    assert!(game.busy().is_none());
    let notice = game.notice().unwrap_or_default().to_owned();
    assert!(notice.contains("The replay was stopped at input"), "{notice}");
    assert!(notice.contains("The 1 input given during the replay was not played"), "{notice}");
    assert_eq!(game.log().len(), 17, "every input stays in the log");
    assert!(game.played() < 17);
    assert!(game.queued().is_empty());
}

// ---------------------------------------------------------------- issue 28: table and board previews

/// The editor on a copy of act-demo whose files `edit` changed, with the preview started.
fn playing_edited_demo(edit: impl FnOnce(&std::path::Path)) -> (tempfile::TempDir, Harness<'static, ActforgeApp>) {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&act_demo(), dir.path()).unwrap();
    edit(dir.path());
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    (dir, harness)
}

/// Issue 28.10: the imported Demo1 (with its art copied) shows its cards by label, with their
/// pictures, read from the project folder.
#[test]
fn the_imported_demo1_shows_its_cards_by_label_with_their_art() {
    let source = default_project_path().parent().unwrap().join("../../shared/fixtures/cultistlike-demo1");
    let imported = actforge_runtime::import::import_cultistlike_with(
        &source,
        &actforge_runtime::import::CultistlikeOptions::default(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    actforge_runtime::project::save_new_folder(&imported.project, dir.path()).unwrap();
    for art in &imported.art {
        std::fs::create_dir_all(dir.path().join(art).parent().unwrap()).unwrap();
        std::fs::copy(source.join(art), dir.path().join(art)).unwrap();
    }
    let somebody = imported.project.cards.get("somebody_you_knew").unwrap();
    assert!(somebody.art.is_some(), "Demo1's start card has art");
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    // The pictures are read on a worker thread: wait for the card's.
    let art = format!("{} art", somebody.label);
    for _ in 0..200 {
        if harness.query_by_label(&art).is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
        harness.run_steps(1);
    }
    harness.get_by_label(&art);
    harness.get_by_label(&somebody.label);
    assert!(harness.query_by_label("somebody_you_knew").is_none(), "the card is shown by its label, not its id");
}

/// Issue 28.10: hovering a slot says what it requires and forbids, by label.
#[test]
fn hovering_a_slot_shows_its_required_and_forbidden_fragments() {
    let (_dir, mut harness) = playing_edited_demo(|dir| {
        let slot = dir.join("slots/satchel.ron");
        let text = std::fs::read_to_string(&slot).unwrap();
        let text = text.replace(
            "required: [(fragment: Aspect(\"tool\"))],",
            "required: [(fragment: Aspect(\"tool\"))],\n    forbidden: [(fragment: Aspect(\"rot\"))],",
        );
        std::fs::write(&slot, text).unwrap();
    });
    let at = harness.get_by_label("Satchel slot").rect().center();
    harness.hover_at(at);
    harness.run_steps(8);
    harness.get_by_label("Required (any of): Tool");
    harness.get_by_label("Forbidden: Rot");
}

/// Issue 28.10: the deck inspector lists a deck's contents before the first draw and the
/// remaining cards in draw order after it.
#[test]
fn the_deck_inspector_lists_the_remaining_draw_order() {
    // Tall enough to show every window and the decks below them.
    let mut harness = playing_at("act-demo", [1600.0, 2800.0]);
    harness.get_by_label(&format!("{} Decks (3)", egui_phosphor::regular::STACK)).click();
    harness.run_steps(2);
    harness.get_by_label("The Hedgerow: not drawn from yet (4 cards)").click();
    harness.run_steps(2);
    harness.get_by_label("Contents (shuffled at the first draw)");
    // Forage in the hedgerow: the act draws from the deck.
    let from = harness.get_by_label("Wicker Basket").rect().center();
    harness.drag_at(from);
    harness.run_steps(1);
    let to = harness.get_by_label("Satchel slot").rect().center();
    harness.hover_at(to);
    harness.run_steps(1);
    harness.drop_at(to);
    harness.run_steps(3);
    harness.get_by_label_contains("Start The Hedgerow").click();
    harness.run_steps(3);
    for _ in 0..10 {
        if hedgerow_status(harness.state()) == Status::Finished {
            break;
        }
        harness.get_by_label(&format!("{} Step", egui_phosphor::regular::SKIP_FORWARD)).click();
        harness.run_steps(2);
    }
    let remaining = harness.state().preview().game.session().unwrap().state().decks.get("hedgerow").unwrap().clone();
    assert!(remaining.len() < 4, "the act drew from the deck: {remaining:?}");
    let summary = format!("The Hedgerow: {} left of 4", remaining.len());
    // The deck's section stays open as its summary changes.
    harness.get_by_label(&summary);
    harness.get_by_label("Next draws, in order");
    let project = harness.state().project().unwrap().clone();
    for (at, card) in remaining.iter().enumerate() {
        harness.get_by_label(&format!("{}. {}", at + 1, project.cards.get(card.as_str()).unwrap().label));
    }
}

/// Issue 28.10: alike cards on the table are one chip with a count.
#[test]
fn alike_cards_on_the_table_are_stacked_with_a_count() {
    let (_dir, mut harness) = playing_edited_demo(|dir| {
        let project = dir.join("project.ron");
        let text = std::fs::read_to_string(&project).unwrap();
        std::fs::write(&project, text.replace("\"coin\", \"firewood\"", "\"coin\", \"coin\", \"coin\", \"firewood\""))
            .unwrap();
    });
    let coins = harness.state().preview().game.session().unwrap().query("table.card.coin").unwrap();
    assert_eq!(coins, 3.0);
    harness.get_by_label("Coin");
    harness.get_by_label("×3");
    harness.run_steps(1);
}

/// Issue 28.9: a hidden aspect is not shown on cards or in a window's aspect bar until the debug
/// toggle is on.
#[test]
fn hidden_aspects_show_only_with_the_debug_toggle() {
    let (_dir, mut harness) = playing_edited_demo(|dir| {
        let aspect = dir.join("aspects/coin.ron");
        let text = std::fs::read_to_string(&aspect).unwrap();
        let text = text.replacen("id: \"coin\",", "id: \"coin\",\n    hidden: true,", 1);
        std::fs::write(&aspect, text).unwrap();
    });
    let label = harness.state().project().unwrap().aspects.get("coin").unwrap().label.clone();
    assert!(harness.state().project().unwrap().aspects.get("coin").unwrap().hidden);
    assert!(harness.query_by_label_contains(&format!("{label} 1")).is_none(), "the hidden aspect is not shown");
    harness.get_by_label("Show hidden stats and aspects (debug)").click();
    harness.run_steps(3);
    harness.get_by_label_contains(&format!("{label} 1 (hidden)"));
}

/// Issue 28.15: the boards face each other; a click on a column places the rolled die there.
#[test]
fn a_click_on_a_board_column_places_the_rolled_die() {
    let mut harness = playing_at("knucklebones", [1600.0, 1400.0]);
    harness.get_by_label_contains("Roll the die").click();
    harness.run_steps(3);
    harness.get_by_label("Player two column 2").click();
    harness.run_steps(3);
    let log = harness.state().preview().game.log().to_vec();
    assert_eq!(log.last().map(String::as_str), Some("place player_two 2"), "{log:?}");
    let session = harness.state().preview().game.session().unwrap();
    let side = session.board().unwrap().side("player_two").unwrap().1;
    assert!(side.cell(2, 1).is_some(), "the die lies in column 2");
}

/// Issue 28.15: a game played to its end by clicks shows a winner banner with both scores.
#[test]
fn a_finished_board_game_shows_the_winner_with_both_scores() {
    let mut harness = playing_at("knucklebones", [1600.0, 1400.0]);
    for _ in 0..80 {
        if harness.state().preview().game.session().unwrap().board().unwrap().game.outcome.is_some() {
            break;
        }
        if let Some(roll) = harness.query_by_label_contains("Roll the die") {
            roll.click();
        } else {
            let session = harness.state().preview().game.session().unwrap();
            let game = &session.board().unwrap().game;
            let side = &game.sides[game.active];
            let name = session.content().project.boards.get(side.board.as_str()).unwrap().label.clone();
            let column = (1..=side.columns).find(|c| side.cell(*c, side.rows).is_none()).unwrap();
            harness.get_by_label(&format!("{name} column {column}")).click();
        }
        harness.run_steps(3);
    }
    let session = harness.state().preview().game.session().unwrap();
    assert!(session.board().unwrap().game.outcome.is_some(), "the game ended");
    let one = session.query("board.player_one.score").unwrap();
    let two = session.query("board.player_two.score").unwrap();
    let headline = match &session.board().unwrap().game.outcome.as_ref().unwrap().winner {
        Some(winner) => format!(
            "{} {} wins",
            egui_phosphor::regular::TROPHY,
            session.content().project.boards.get(winner.as_str()).unwrap().label
        ),
        None => format!("{} A draw", egui_phosphor::regular::HANDSHAKE),
    };
    harness.get_by_label(&format!("{headline} — Player one {one} : Player two {two}"));
}

/// Issue 28.15: an ability aimed at a cell is chosen from the hand, then its target clicked.
#[test]
fn an_ability_card_is_aimed_by_clicking_a_cell_of_the_board() {
    let mut harness = playing_at("knucklebones", [1600.0, 1400.0]);
    // Player two places a die; player one then steals it with the thief.
    harness.get_by_label_contains("Roll the die").click();
    harness.run_steps(3);
    harness.get_by_label("Player two column 1").click();
    harness.run_steps(3);
    harness.get_by_label("Play Thief").click();
    harness.run_steps(3);
    harness.get_by_label_contains("Click a target ringed in green");
    harness.get_by_label("Player two cell 1, 1").click();
    harness.run_steps(3);
    let log = harness.state().preview().game.log().to_vec();
    assert!(log.last().unwrap().contains("thief"), "{log:?}");
}

/// How long after the last frame the editor asked for the next one (`Duration::MAX`: never).
fn next_frame_in(harness: &Harness<'static, ActforgeApp>) -> Duration {
    harness.output().viewport_output.get(&egui::ViewportId::ROOT).map_or(Duration::MAX, |output| output.repaint_delay)
}

/// The delay the preview's own pacing asked for. A card picture decoded on its own thread asks
/// for a frame at once whenever it lands (later on a loaded machine), so such frames are drawn
/// first, a little real time apart, until the last frame asked for none at once.
fn paced_frame_in(harness: &mut Harness<'static, ActforgeApp>) -> Duration {
    for _ in 0..200 {
        let next = next_frame_in(harness);
        if next > Duration::ZERO {
            return next;
        }
        std::thread::sleep(Duration::from_millis(10));
        harness.step();
    }
    next_frame_in(harness)
}

#[test]
fn an_idle_editor_and_a_paused_preview_ask_for_no_frame() {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(default_project_path()));
    ActforgeApp::setup(&harness.ctx);
    // `run` panics if the editor keeps asking for frames at once.
    harness.run();
    assert_eq!(next_frame_in(&harness), Duration::MAX, "the watched project folder needs no polling frames");
    harness.state_mut().request(UiCommand::RestartPreview);
    // kittest's clock moves a quarter second a frame: four seconds on, the campaign map's ring
    // around the party's node has stopped beating.
    harness.run_steps(16);
    harness.run();
    assert!(harness.state().preview().game.session().is_some(), "the preview shows the game");
    assert!(!harness.state().preview().game.is_playing());
    assert_eq!(next_frame_in(&harness), Duration::MAX, "a paused preview asks for no frame");
}

#[test]
fn a_playing_preview_asks_for_a_frame_when_what_it_shows_changes_at_most_30_a_second() {
    // act-demo runs 10 ticks a second; its Feverish Neighbour's decay counts down from over a
    // minute, shown in whole seconds while more than ten are left: the next frame comes at
    // the tick that text changes, or when the clock label's half second is up, not at every
    // 100 ms tick.
    let mut harness = playing("act-demo");
    harness.state_mut().request(UiCommand::PlayPause);
    harness.run_steps(2);
    assert!(harness.state().preview().game.is_playing());
    let decay_left = |harness: &Harness<'static, ActforgeApp>| {
        let session = harness.state().preview().game.session().unwrap();
        session.state().cards.values().filter_map(|card| card.decay.as_ref()).map(|decay| decay.remaining).min()
    };
    let left = decay_left(&harness).unwrap();
    assert!(left > 100, "the decay has more than ten seconds left: {left} ticks");
    harness.get_by_label_contains(&format!("{} {} s", egui_phosphor::regular::HOURGLASS, left.div_ceil(10)));
    // Ticks until the whole seconds shown change, and the frame that shows it (a tick is 100 ms
    // at 1×; the clock's next tick is at most one away; the clock label's frame caps it).
    let changes_in = left - (left.div_ceil(10) - 1) * 10;
    let tick = Duration::from_millis(100);
    let slack = Duration::from_millis(5);
    let at_1x = paced_frame_in(&mut harness);
    let latest = (tick * u32::try_from(changes_in).unwrap()).min(CLOCK_FRAME) + slack;
    let earliest = (tick * u32::try_from(changes_in - 1).unwrap()).min(CLOCK_FRAME);
    assert!(at_1x >= earliest && at_1x <= latest, "at 1×, {changes_in} ticks to the change: {at_1x:?}");
    // No frame is asked for at once, so `run` returns.
    harness.run();
    assert!(harness.state().preview().game.is_playing());

    // At 10×, a tick is 10 ms: the whole seconds change every 100 ms, never more than 30 frames a second.
    harness.state_mut().preview_mut().game.set_speed(SPEEDS[SPEEDS.len() - 1]);
    harness.run_steps(2);
    let left = decay_left(&harness).unwrap();
    let changes_in = u32::try_from(left - (left.div_ceil(10) - 1) * 10).unwrap();
    let fastest = paced_frame_in(&mut harness);
    let tick = Duration::from_millis(10);
    assert!(
        fastest >= Duration::from_secs_f64(1.0 / 30.0).min(tick * changes_in)
            && fastest <= (tick * changes_in).max(Duration::from_secs_f64(1.0 / 30.0)) + slack,
        "at the fastest speed, {changes_in} ticks to the change: {fastest:?}"
    );

    // Paused (after the frame that asked), it asks for none.
    harness.state_mut().request(UiCommand::PlayPause);
    harness.run_steps(2);
    harness.run();
    assert!(!harness.state().preview().game.is_playing());
    assert_eq!(next_frame_in(&harness), Duration::MAX);
}

#[test]
fn a_playing_preview_where_nothing_counts_down_moves_its_clock_twice_a_second_at_the_real_rate() {
    // Knucklebones has no timers or decays: only the clock label moves while it plays.
    let mut harness = playing("knucklebones");
    harness.state_mut().request(UiCommand::PlayPause);
    harness.run_steps(2);
    let game = &harness.state().preview().game;
    assert!(game.is_playing());
    assert_eq!(game.session().unwrap().next_due(), None, "nothing counts down");
    let next = paced_frame_in(&mut harness);
    assert!(next >= CLOCK_FRAME && next <= CLOCK_FRAME + Duration::from_millis(300), "next frame in {next:?}");
    // kittest's clock moves a quarter second a frame: 4 s of play move the clock by 4 s.
    let tick = |harness: &Harness<'static, ActforgeApp>| harness.state().preview().game.session().unwrap().state().tick;
    let per_second = u64::from(
        harness.state().preview().game.session().unwrap().content().project.manifest.settings.ticks_per_second,
    );
    let before = tick(&harness);
    harness.run_steps(16);
    let moved = tick(&harness) - before;
    assert!(moved.abs_diff(4 * per_second) <= per_second / 2, "{moved} ticks in 4 s at {per_second} a second");
}

#[test]
fn the_campaign_ring_pulses_when_the_party_arrives_then_holds_still() {
    let mut harness = playing("era-synthesis");
    harness.get_by_label_contains("Campaign — ");
    // Card pictures may still be loading (their spinners ask for frames too): look for the ring's.
    let causes = harness.ctx.repaint_causes();
    assert!(causes.iter().any(|cause| cause.file.ends_with("views.rs")), "the ring beats: {causes:?}");
    assert!(next_frame_in(&harness) < Duration::from_millis(100));
    // kittest's clock moves a quarter second a frame: four seconds on, the ring holds still, and
    // once the pictures are in nothing asks for a frame.
    harness.run_steps(16);
    let still = (0..100).any(|_| {
        harness.step();
        std::thread::sleep(Duration::from_millis(20));
        next_frame_in(&harness) == Duration::MAX
    });
    assert!(still, "a still ring asks for no frame: {:?}", harness.ctx.repaint_causes());
}

/// Edits compiled through the document's changes (only what an edit touched validated again)
/// give what compiling the whole project gives: the error of a broken formula, then the game
/// again once it is fixed, with the inputs replayed.
#[test]
fn edits_compiled_from_the_documents_changes_match_whole_project_compiles() {
    use actforge_editor::document::{Document, Op};
    use actforge_runtime::model::Expr;
    let mut document = Document::new(demo_project());
    let mut game = PreviewGame::default();
    game.sync_document(&document);
    assert!(game.errors().is_empty());
    assert!(game.input("slot basket hedgerow"));
    let edit = |document: &mut Document, ticks: &str| {
        let mut act = document.project().acts.get("forage").unwrap().clone();
        act.duration_ticks = Expr::new(ticks);
        document.apply(Op::put(std::sync::Arc::new(act))).unwrap();
    };
    edit(&mut document, "60 +");
    game.sync_document(&document);
    let whole = actforge_runtime::engine::Content::compile(document.project().clone()).unwrap_err();
    let whole: Vec<String> = whole.problems.iter().map(ToString::to_string).collect();
    assert_eq!(game.errors(), whole.as_slice());
    assert!(game.errors().iter().any(|error| error.contains("forage")), "{:?}", game.errors());
    edit(&mut document, "45");
    game.sync_document(&document);
    assert!(game.errors().is_empty(), "{:?}", game.errors());
    assert_eq!(game.log(), ["slot basket hedgerow"]);
    assert_eq!(game.session().unwrap().content().project.acts.get("forage").unwrap().duration_ticks.text(), "45");
}
