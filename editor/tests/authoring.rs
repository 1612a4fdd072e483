//! Authoring from nothing, as a designer does it (egui_kittest: find by label, click, type):
//! items of every kind created, renamed, duplicated and deleted from the browser; an item
//! edited as text with its errors at line:col; a file that does not load fixed in place.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_cli::{Exit, run_args};
use actforge_editor::app::ActforgeApp;
use actforge_editor::commands::UiCommand;
use actforge_editor::document::ItemKey;
use actforge_editor::style::kind_icon;
use actforge_runtime::Kind;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

fn harness_at(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    harness
}

/// A new, empty project, as `actforge new` makes it.
fn new_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("game");
    let (exit, _, err) = actforge(&["new", folder.to_str().unwrap()]);
    assert_eq!(exit, Exit::Success, "{err}");
    dir
}

/// Runs `actforge ARGS…` in-process: (exit, stdout, stderr).
fn actforge(args: &[&str]) -> (Exit, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let exit = run_args(std::iter::once("actforge").chain(args.iter().copied()), &mut out, &mut err).unwrap().unwrap();
    (exit, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

fn contains(harness: &Harness<'static, ActforgeApp>, kind: Kind, id: &str) -> bool {
    harness.state().project().unwrap().contains(kind, id)
}

/// Replaces the text of the focused single-line field: select all, then type.
fn retype(harness: &mut Harness<'static, ActforgeApp>, label: &str, text: &str) {
    harness.get_by_label(label).focus();
    harness.run_steps(1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.get_by_label(label).type_text(text);
    harness.run_steps(2);
}

#[test]
fn every_kind_is_created_from_the_browser_and_renamed_duplicated_and_deleted() {
    let dir = new_project();
    let mut harness = harness_at(&dir.path().join("game"));
    for &kind in Kind::ALL {
        let label = UiCommand::NewItem(kind).label();
        harness.get_by_role_and_label(Role::Button, label).click();
        harness.run_steps(3);
        let key = harness.state().selection().cloned().unwrap();
        assert_eq!(key.kind, kind, "{label} selects what it made");
        assert!(contains(&harness, kind, &key.id), "{label}");
    }
    let created = Kind::ALL.len();
    assert_eq!(harness.state().history().undo_len(), created, "one undo step per new item");

    // Rename the new act with F2: the window checks the id as it is typed.
    harness.get_by_label_contains("Acts (1)").click();
    harness.run_steps(2);
    harness.get_by_label_contains("New act · new_act").click();
    harness.run_steps(2);
    harness.key_press(Key::F2);
    harness.run_steps(3);
    retype(&mut harness, "New id", "Bad Id");
    harness.get_by_label_contains("must");
    retype(&mut harness, "New id", "light_the_lamp");
    harness.key_press(Key::Enter);
    harness.run_steps(3);
    assert!(contains(&harness, Kind::Act, "light_the_lamp") && !contains(&harness, Kind::Act, "new_act"));
    assert_eq!(harness.state().selection(), Some(&ItemKey::new(Kind::Act, "light_the_lamp")));

    // Duplicate it from the row's context menu, then delete the copy with the Delete key.
    harness.get_by_label_contains("New act · light_the_lamp").click_secondary();
    harness.run_steps(2);
    harness.get_by_label_contains("Duplicate item").click();
    harness.run_steps(3);
    assert!(contains(&harness, Kind::Act, "light_the_lamp_2"));
    assert_eq!(harness.state().selection(), Some(&ItemKey::new(Kind::Act, "light_the_lamp_2")));
    harness.key_press(Key::Delete);
    harness.run_steps(3);
    assert!(!contains(&harness, Kind::Act, "light_the_lamp_2"));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert!(contains(&harness, Kind::Act, "light_the_lamp_2"), "delete is one undo step");

    // Saved, the new project checks without errors.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    let (exit, out, err) = actforge(&["check", dir.path().join("game").to_str().unwrap(), "--errors-only"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
}

#[test]
fn the_delete_key_belongs_to_the_text_field_being_typed_into() {
    let dir = new_project();
    let mut harness = harness_at(&dir.path().join("game"));
    harness.get_by_role_and_label(Role::Button, "New card").click();
    harness.run_steps(3);
    harness.get_by_label("Label").focus();
    harness.run_steps(1);
    harness.key_press(Key::Home);
    harness.key_press(Key::Delete);
    harness.run_steps(3);
    assert!(contains(&harness, Kind::Card, "new_card"), "Delete in a text field deletes a character, not the item");
}

#[test]
fn an_item_is_edited_as_text_with_apply_and_cancel_and_errors_at_their_line() {
    let dir = new_project();
    let mut harness = harness_at(&dir.path().join("game"));
    harness.get_by_role_and_label(Role::Button, "New aspect").click();
    harness.run_steps(3);
    harness.get_by_label_contains("Edit as text").click();
    harness.run_steps(2);
    // Nothing changed yet: nothing to apply.
    assert!(harness.get_by_role_and_label(Role::Button, "Apply").accesskit_node().is_disabled());
    let field = "Item as RON text";
    harness.get_by_label(field).focus();
    harness.run_steps(1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.get_by_label(field).type_text("(\n  id: \"new_aspect\",\n  label: \"Light\",\n  hidden: maybe,\n)");
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, "Apply").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Line 4, column");
    assert_eq!(harness.state().project().unwrap().aspects.get("new_aspect").unwrap().label, "New aspect");
    // Fixed, it applies as one step and the text view shows the item as it is now.
    harness.get_by_label(field).focus();
    harness.run_steps(1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.get_by_label(field).type_text("(\n  id: \"new_aspect\",\n  label: \"Light\",\n  hidden: true,\n)");
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, "Apply").click();
    harness.run_steps(3);
    let aspect = harness.state().project().unwrap().aspects.get("new_aspect").unwrap().clone();
    assert_eq!((aspect.label.as_str(), aspect.hidden), ("Light", true));
    harness.get_by_label_contains("Edit as text");
    harness.get_by_label_contains("label: \"Light\"");
    // An edit elsewhere shows at once in the text view; Cancel leaves the item alone.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    harness.get_by_label_contains("label: \"New aspect\"");
    harness.get_by_label_contains("Edit as text").click();
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, "Cancel").click();
    harness.run_steps(2);
    assert_eq!(harness.state().project().unwrap().aspects.get("new_aspect").unwrap().label, "New aspect");
}

#[test]
fn a_file_that_does_not_load_is_fixed_in_the_editor_and_its_error_clears() {
    let dir = new_project();
    let game = dir.path().join("game");
    std::fs::create_dir_all(game.join("cards")).unwrap();
    std::fs::write(
        game.join("cards").join("lantern.ron"),
        "(\n  id: \"lantern\",\n  label: \"Lantern\"\n  unique: true,\n)\n",
    )
    .unwrap();
    let mut harness = harness_at(&game);
    // Listed with its error, not gone.
    harness.get_by_label_contains("Cards (1)").click();
    harness.run_steps(2);
    harness.get_by_label_contains("lantern · does not load").click();
    harness.run_steps(3);
    harness.get_by_label_contains("This file does not load");
    harness.get_by_label_contains("Line 4, column");
    assert!(harness.state().document().is_some());
    // Fix the missing comma in place and apply: the item comes in, the error goes.
    let field = "Item as RON text";
    harness.get_by_label(field).focus();
    harness.run_steps(1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
    harness.get_by_label(field).type_text("(\n  id: \"lantern\",\n  label: \"Lantern\",\n  unique: true,\n)\n");
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::Button, "Apply").click();
    harness.run_steps(4);
    assert!(contains(&harness, Kind::Card, "lantern"));
    assert!(harness.query_by_label_contains("does not load").is_none());
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    let (exit, out, err) = actforge(&["check", game.to_str().unwrap()]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    assert!(err.contains("0 errors"), "{err}");
}

#[test]
fn a_file_fixed_on_disk_comes_in_and_its_error_clears() {
    let dir = new_project();
    let game = dir.path().join("game");
    std::fs::create_dir_all(game.join("cards")).unwrap();
    let file = game.join("cards").join("lantern.ron");
    std::fs::write(&file, "(id: \"lantern\", label: \"Lantern\" unique: true)\n").unwrap();
    let mut harness = harness_at(&game);
    assert!(!contains(&harness, Kind::Card, "lantern"));
    std::fs::write(&file, "(id: \"lantern\", label: \"Lantern\", unique: true)\n").unwrap();
    for _ in 0..100 {
        harness.run_steps(1);
        if contains(&harness, Kind::Card, "lantern") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(contains(&harness, Kind::Card, "lantern"), "log: {:?}", harness.state().log());
    harness.run_steps(2);
    harness.get_by_label_contains("Cards (1)").click();
    harness.run_steps(2);
    assert!(harness.query_by_label_contains("does not load").is_none());
    let diagnostics = harness.state().diagnostics();
    assert!(diagnostics.iter().all(|d| !d.to_string().contains("not valid RON")), "{diagnostics:?}");
}

/// A designer's hands: every click and key counted, so the flows can report their cost.
struct Hands {
    harness: Harness<'static, ActforgeApp>,
    actions: usize,
}

impl Hands {
    fn at(path: &Path) -> Self {
        Self { harness: harness_at(path), actions: 0 }
    }

    /// Clicks the widget named `label` (of `role`, when given), scrolled into view first as a
    /// designer would.
    fn click(&mut self, role: Option<Role>, label: &str) {
        fn find<'h>(
            harness: &'h Harness<'static, ActforgeApp>,
            role: Option<Role>,
            label: &'h str,
        ) -> egui_kittest::Node<'h> {
            match role {
                Some(role) => harness.get_by_role_and_label(role, label),
                None => harness.get_by_label(label),
            }
        }
        find(&self.harness, role, label).scroll_to_me();
        // Scrolling is animated over a few frames.
        self.harness.run_steps(8);
        find(&self.harness, role, label).click();
        self.actions += 1;
        self.harness.run_steps(3);
    }

    /// Clicks the first widget whose name contains `text`.
    fn click_containing(&mut self, text: &str) {
        self.harness.get_by_label_contains(text).click();
        self.actions += 1;
        self.harness.run_steps(3);
    }

    /// Replaces the text of the text field named `label` (one click, one select-all, typing).
    fn type_into(&mut self, label: &str, text: &str) {
        self.harness.get_by_role_and_label(Role::TextInput, label).scroll_to_me();
        self.harness.run_steps(8);
        self.harness.get_by_role_and_label(Role::TextInput, label).focus();
        self.harness.run_steps(1);
        self.harness.key_press_modifiers(Modifiers::COMMAND, Key::A);
        self.harness.get_by_role_and_label(Role::TextInput, label).type_text(text);
        self.harness.key_press(Key::Enter);
        self.actions += 3;
        self.harness.run_steps(3);
    }

    /// Presses a shortcut.
    fn keys(&mut self, modifiers: Modifiers, key: Key) {
        self.harness.key_press_modifiers(modifiers, key);
        self.actions += 1;
        self.harness.run_steps(3);
    }

    /// Runs a menu's entry for `command`.
    fn menu(&mut self, menu: &str, command: UiCommand) {
        self.click(Some(Role::Button), menu);
        let entry = format!("{}  {} {}", command.icon(), command.label(), command.shortcut_text(&self.harness.ctx));
        self.click(Some(Role::Button), &entry);
    }

    /// Picks `option` (its exact text) in the drop-down named `label` (the popup is drawn
    /// last: on top of any other widget with that text).
    fn pick(&mut self, label: &str, option: &str) {
        self.click(None, label);
        self.harness.get_all_by_label(option).last().unwrap().click();
        self.actions += 1;
        self.harness.run_steps(3);
    }
}

#[test]
fn a_table_game_is_built_from_an_empty_project_without_typing_ron() {
    let dir = new_project();
    let game = dir.path().join("game");
    let mut hands = Hands::at(&game);
    // An aspect, a token, a card carrying the aspect.
    hands.click(Some(Role::Button), "New aspect");
    hands.type_into("Label", "Light");
    hands.click(Some(Role::Button), "New token");
    hands.type_into("Label", "Lantern");
    hands.click(Some(Role::Button), "New card");
    hands.type_into("Label", "Candle");
    hands.click(None, "Fragments");
    hands.click(None, "Add to fragments");
    // A slot of the token's idle window that requires the aspect.
    hands.click(Some(Role::Button), "New slot");
    hands.click(None, "Set token");
    hands.click(None, "Required");
    hands.click(None, "Add to required");
    // The initial act: requires the aspect, consumes the card, goes on to a next act.
    hands.click(Some(Role::Button), "New act");
    hands.type_into("Label", "Light the lantern");
    hands.click(None, "Requirements");
    hands.click(None, "Tests");
    hands.click(None, "Add to requirements.tests");
    hands.click(None, "Set requirements.tests[0].fragment1");
    hands.type_into("Constant", "1");
    hands.click(None, "Effects");
    hands.click(None, "Act modifiers");
    hands.click(None, "Add to effects.act_modifiers");
    hands.click(None, "Set effects.act_modifiers[0].fragment");
    hands.pick("Variant of effects.act_modifiers[0].fragment", "Card");
    hands.type_into("Level", "-1");
    hands.click(None, "Next acts");
    hands.click(None, "Add to next_acts");
    hands.pick("Change next_acts[0].act", &format!("{} New act…", egui_phosphor::regular::PLUS));
    // The next act, made from the picker: it leaves a new candle in the window, and its end
    // text is the chain's.
    let project = hands.harness.state().project().unwrap();
    assert!(
        project.contains(Kind::Act, "new_act_2"),
        "{:?}",
        project.acts.iter().map(|a| a.id.to_string()).collect::<Vec<_>>()
    );
    hands.click_containing("New act 2 · new_act_2");
    hands.click(None, "Fragments");
    hands.click(None, "Add to fragments");
    hands.pick("Variant of fragments[0].fragment", "Card");
    // Where play starts: the token and the card.
    hands.menu("File", UiCommand::ProjectSettings);
    hands.click(None, "Add to entry.tokens");
    hands.click(None, "Add to entry.cards");
    hands.keys(Modifiers::COMMAND, Key::S);
    assert!(!hands.harness.state().document().unwrap().has_unsaved_changes(), "{:?}", hands.harness.state().log());

    let folder = game.to_str().unwrap();
    let (exit, out, err) = actforge(&["check", folder]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    assert!(err.contains("0 errors, 0 warnings"), "{out}{err}");
    let script = dir.path().join("light.play");
    std::fs::write(
        &script,
        "slot new_card new_token\nstart new_token\nexpect act new_token new_act\nwait 5s\nexpect act new_token new_act_2\n\
         expect table.card.new_card == 0\nwait 5s\nexpect status new_token finished\nexpect end new_token \"How it ends.\"\n\
         expect lane new_token new_card\n",
    )
    .unwrap();
    let (exit, out, err) = actforge(&["play", folder, "--script", script.to_str().unwrap()]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    println!("table game from an empty project: {} clicks and keys", hands.actions);
}

#[test]
fn a_two_player_board_game_with_a_die_and_a_score_is_built_and_scored() {
    let dir = new_project();
    let game = dir.path().join("game");
    let mut hands = Hands::at(&game);
    // The die: a card with six faces.
    hands.click(Some(Role::Button), "New card");
    hands.type_into("Label", "Die");
    hands.click(None, "Properties");
    hands.type_into("New name", "faces");
    hands.type_into("faces", "6");
    // Two boards rolling that die, each scoring the sum of its dice, facing each other.
    for _ in 0..2 {
        hands.click(Some(Role::Button), "New board");
        hands.click(None, "Set die");
        hands.click(None, "Set score");
        hands.type_into("Score", "board.own.total");
        hands.click(None, "Set facing");
    }
    hands.click_containing("New board · new_board");
    let second = format!("{} New board 2 · new_board_2", kind_icon(Kind::Board));
    hands.pick("Change facing", &second);
    // Both boards play.
    hands.menu("File", UiCommand::ProjectSettings);
    hands.click(None, "Add to entry.boards");
    hands.click(None, "Add to entry.boards");
    hands.pick("Change entry.boards[1]", &second);
    hands.keys(Modifiers::COMMAND, Key::S);
    assert!(!hands.harness.state().document().unwrap().has_unsaved_changes(), "{:?}", hands.harness.state().log());

    let folder = game.to_str().unwrap();
    let (exit, out, err) = actforge(&["check", folder, "--errors-only"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    let script = dir.path().join("dice.play");
    std::fs::write(
        &script,
        "setup turn new_board\nsetup die 4\nplace new_board 1\nsetup die 3\nplace new_board_2 2\nsetup die 6\n\
         place new_board 1\nexpect score new_board 10\nexpect score new_board_2 3\n",
    )
    .unwrap();
    let (exit, out, err) =
        actforge(&["play", folder, "--script", script.to_str().unwrap(), "--query", "board.new_board.score"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    assert!(out.contains("board.new_board.score = 10"), "{out}");
    println!("board game from an empty project: {} clicks and keys", hands.actions);
}

#[test]
fn a_campaign_map_with_a_path_locked_by_a_formula_is_built_and_walked() {
    let dir = new_project();
    let game = dir.path().join("game");
    let mut hands = Hands::at(&game);
    // A map with a start node (the template's), a second node and a path locked until day 2.
    hands.click(Some(Role::Button), "New node map");
    hands.click(None, "Add to nodes");
    hands.click(None, "Edges");
    hands.click(None, "Add to edges");
    hands.pick("Change edges[0].to", "node_1");
    hands.pick("Variant of edges[0].style", "Dashed");
    hands.click(None, "Set edges[0].unlock");
    hands.type_into("Unlock", "campaign.day >= 2");
    // The campaign plays that map.
    hands.menu("File", UiCommand::ProjectSettings);
    hands.click(None, "Set entry.node_map");
    hands.keys(Modifiers::COMMAND, Key::S);
    assert!(!hands.harness.state().document().unwrap().has_unsaved_changes(), "{:?}", hands.harness.state().log());

    let folder = game.to_str().unwrap();
    let (exit, out, err) = actforge(&["check", folder, "--errors-only"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    let script = dir.path().join("walk.play");
    std::fs::write(&script, "expect refused go node_1\nend-phase\ngo node_1\nexpect node node_1\n").unwrap();
    let (exit, out, err) = actforge(&["play", folder, "--script", script.to_str().unwrap()]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    println!("campaign map from an empty project: {} clicks and keys", hands.actions);
}

/// Presses and releases the primary button at a screen point, a frame apart (the map view
/// is one widget: its faces are found through its projection, as the pointer finds them).
fn click_at(hands: &mut Hands, pos: egui::Pos2) {
    let harness = &mut hands.harness;
    harness.input_mut().events.push(egui::Event::PointerMoved(pos));
    harness.run_steps(1);
    let press = |pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    harness.input_mut().events.push(press(true));
    harness.run_steps(1);
    harness.input_mut().events.push(press(false));
    harness.run_steps(3);
    hands.actions += 1;
}

#[test]
fn a_battle_on_a_tile_map_with_a_ramp_a_painted_face_a_unit_and_a_skill_is_built_and_played() {
    let dir = new_project();
    let game = dir.path().join("game");
    let mut hands = Hands::at(&game);
    // A skill that takes 3 hp from whoever it hits (its template region is the user's own spot).
    hands.click(Some(Role::Button), "New skill");
    hands.click(None, "Stat effects");
    hands.click(None, "Add to hit_types[0].stat_effects");
    hands.type_into("Stat", "hp");
    hands.type_into("Value", "-3");
    // A unit (its template has 10 hp, speed, move and jump) that knows the skill.
    hands.click(Some(Role::Button), "New unit");
    hands.click(None, "Skills");
    hands.click(None, "Add to skills");
    // A tile map (the template's 8×8 floor) with the unit placed on it.
    hands.click(Some(Role::Button), "New tile map");
    hands.click(None, "Placements");
    hands.click(None, "Add to placements");
    // In the Tile map tab: a ramp (raise one top corner), then a colour painted on a top.
    hands.keys(Modifiers::COMMAND | Modifiers::SHIFT, Key::T);
    hands.click(None, &format!("{} Reshape", egui_phosphor::regular::MOUNTAINS));
    let corner = hands.harness.state().map_editor().view.screen_of_grid([3.9, 3.9, 1.0]).unwrap();
    click_at(&mut hands, corner);
    hands.click(None, &format!("{} Paint", egui_phosphor::regular::PAINT_BRUSH));
    hands.click(Some(Role::Button), "Add colour");
    let top = hands.harness.state().map_editor().view.screen_of_grid([5.5, 5.5, 1.0]).unwrap();
    click_at(&mut hands, top);
    let map = hands.harness.state().project().unwrap().tile_maps.get("new_tile_map").unwrap().clone();
    let tiles = |x: u16, y: u16| map.columns.iter().find(|c| (c.x, c.y) == (x, y)).unwrap().tiles.clone();
    assert!(tiles(3, 3)[0].max_height() > 1, "a raised corner makes a ramp: {:?}", tiles(3, 3));
    assert!(tiles(5, 5)[0].paint.top.is_some(), "the top is painted: {:?}", tiles(5, 5));
    // The battle is on that map.
    hands.menu("File", UiCommand::ProjectSettings);
    hands.click(None, "Set entry.tile_map");
    hands.keys(Modifiers::COMMAND, Key::S);
    assert!(!hands.harness.state().document().unwrap().has_unsaved_changes(), "{:?}", hands.harness.state().log());

    let folder = game.to_str().unwrap();
    let (exit, out, err) = actforge(&["check", folder, "--errors-only"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    let script = dir.path().join("battle.play");
    std::fs::write(&script, "use new_unit new_skill 0 0\n").unwrap();
    let (exit, out, err) =
        actforge(&["play", folder, "--script", script.to_str().unwrap(), "--query", "unit.new_unit.hp"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
    assert!(out.contains("unit.new_unit.hp = 7"), "{out}");
    println!("battle on a tile map from an empty project: {} clicks and keys", hands.actions);
}

#[test]
fn a_file_that_does_not_load_and_is_removed_on_disk_leaves_the_browser() {
    let dir = new_project();
    let game = dir.path().join("game");
    std::fs::create_dir_all(game.join("cards")).unwrap();
    let file = game.join("cards").join("lantern.ron");
    std::fs::write(&file, "(id: \"lantern\" label: \"Lantern\")\n").unwrap();
    let mut harness = harness_at(&game);
    assert_eq!(harness.state().diagnostics().len(), 1);
    std::fs::remove_file(&file).unwrap();
    for _ in 0..100 {
        harness.run_steps(1);
        if harness.state().diagnostics().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(harness.state().diagnostics().is_empty(), "{:?}", harness.state().diagnostics());
    harness.get_by_label_contains("Cards (0)");
}

#[test]
fn equipment_is_created_in_an_empty_project_listed_by_the_browser_and_edited_in_its_form() {
    let dir = new_project();
    let mut harness = harness_at(&dir.path().join("game"));
    harness.get_by_role_and_label(Role::Button, "New equipment").click();
    harness.run_steps(3);
    assert_eq!(harness.state().selection(), Some(&ItemKey::new(Kind::Equipment, "new_equipment")));
    harness.get_by_label_contains("Equipment (1)");
    // The inspector's form comes from the schema: the new kind's fields are there to edit.
    retype(&mut harness, "Label", "Iron sword");
    let project = harness.state().project().unwrap();
    let item = project.equipment.get("new_equipment").unwrap();
    assert_eq!(item.label, "Iron sword");
    assert_eq!(item.slots, vec!["hand".to_owned()], "the template takes a hand");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    assert!(dir.path().join("game/equipment/new_equipment.ron").exists());
    let (exit, out, err) = actforge(&["check", dir.path().join("game").to_str().unwrap(), "--errors-only"]);
    assert_eq!(exit, Exit::Success, "{out}{err}");
}
