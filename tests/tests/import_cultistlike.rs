//! The Cultistlike importer end to end: the Demo1 content of `../shared/fixtures` (read in
//! place, `spec/cultistlike.md` §4.3 S8 "Loader invariants"), round trips through a project
//! folder, the `actforge import cultistlike` command, playing the result, and the error cases
//! of our own small fixture (`tests/fixtures/cultistlike-small`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

mod common;

use std::fs;
use std::path::PathBuf;
use std::sync::Arc;

use actforge_cli::Exit;
use actforge_runtime::diagnostic::has_errors;
use actforge_runtime::engine::{Content, Event, Session};
use actforge_runtime::import::{CultistlikeOptions, ImportError, import_cultistlike, import_cultistlike_with};
use actforge_runtime::model::{
    ActOp, CardOp, Expr, FieldPath, FragmentCount, FragmentRef, Id, Location, ShuffleMode, TableOp, TestOp, Visitor,
    walk_item,
};
use actforge_runtime::project::{Sources, load_folder, save_new_folder};
use actforge_runtime::validate::validate;
use actforge_runtime::{Diagnostic, Kind, Project, Severity};
use actforge_tests::{fixture, repo_root, shared_fixture};
use common::{actforge, path};

fn demo1() -> PathBuf {
    let folder = shared_fixture("cultistlike-demo1");
    assert!(
        folder.is_dir(),
        "the shared fixture {} is missing (shared/ must sit beside the repository)",
        folder.display()
    );
    folder
}

fn small() -> PathBuf {
    fixture("cultistlike-small")
}

fn import_demo1() -> (Project, Vec<Diagnostic>) {
    import_cultistlike(&demo1()).unwrap()
}

fn aspect(id: &str) -> FragmentRef {
    FragmentRef::Aspect(Id::new(id))
}

fn card(id: &str) -> FragmentRef {
    FragmentRef::Card(Id::new(id))
}

/// The diagnostics whose file ends with `file` and whose message contains `text`.
fn find<'a>(diagnostics: &'a [Diagnostic], file: &str, text: &str) -> Vec<&'a Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| d.file.as_ref().is_some_and(|f| f.ends_with(file)) && d.message.contains(text))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Demo1 (S8)

#[test]
fn demo1_imports_the_expected_kinds_and_counts() {
    let (project, diagnostics) = import_demo1();
    assert_eq!(project.acts.len(), 13);
    assert_eq!(project.aspects.len(), 4);
    assert_eq!(project.cards.len(), 11);
    assert_eq!(project.slots.len(), 5);
    assert_eq!(project.tokens.len(), 5);
    assert_eq!(project.item_count(), 38, "no decks or rules in Demo1, and the Sos/ specials are not items");
    let aspects: Vec<&str> = project.aspects.ids().map(Id::as_str).collect();
    assert_eq!(aspects, ["dark_calories", "furry", "job", "purring"]);
    // Nothing in Demo1 is beyond the model: only the note about the start.
    let shown: Vec<String> = diagnostics.iter().map(ToString::to_string).collect();
    assert_eq!(diagnostics.len(), 1, "{shown:#?}");
    assert_eq!(diagnostics[0].severity, Severity::Info);
    assert!(diagnostics[0].message.contains("Demo1 scene"), "{shown:#?}");
}

#[test]
fn demo1_initial_acts_are_in_name_order_by_id() {
    let (project, _) = import_demo1();
    // Acts iterate in id order, the order the engine tries them in.
    let initial: Vec<(&str, &str)> = project
        .acts
        .iter()
        .filter(|act| act.initial)
        .map(|act| (act.id.as_str(), act.token.as_ref().unwrap().as_str()))
        .collect();
    assert_eq!(
        initial,
        [
            ("_00_kitten_is_loaded", "darknet"),
            ("_01_kitten_surfs_internet", "darknet"),
            ("first_one", "tea_party"),
            ("kitten_explores", "dark_corners"),
            ("kitten_goes_to_work", "wheelbarrow"),
            ("trashcan_leftovers", "trashcan"),
        ]
    );
}

#[test]
fn demo1_cards_keep_their_fragments_labels_and_decay() {
    let (project, _) = import_demo1();
    let kitten = project.cards.get("kitten").unwrap();
    assert_eq!(kitten.fragments, [FragmentCount::new(aspect("furry"), 5), FragmentCount::new(aspect("purring"), 1)]);
    let jar = project.cards.get("kitten_in_a_jar").unwrap();
    assert_eq!(jar.label, "Kitten\n[in a Jar]");
    assert_eq!(jar.decay_to, Some(Id::new("kitten")));
    assert_eq!(jar.lifetime_ticks, Expr::int(300), "30 s at 10 ticks per second");
    assert_eq!(project.manifest.settings.ticks_per_second, 10);
    // Acolyte Kitten's list holds one null entry: skipped, as the original does.
    assert!(project.cards.get("acolyte_kitten").unwrap().fragments.is_empty());
    let leftovers = project.cards.get("leftovers").unwrap();
    assert_eq!(leftovers.fragments, [FragmentCount::new(aspect("dark_calories"), 1)]);
    assert_eq!(kitten.art.as_deref(), Some("Sprites/black_cat.png"));
    assert!(demo1().join("Sprites/black_cat.png").is_file());
    assert_eq!(kitten.colour.to_hex(), "#f8f8f8ff");
    assert_eq!(project.aspects.get("job").unwrap().art, None, "Job has no art");
}

#[test]
fn demo1_texts_are_kept_exactly() {
    let (project, _) = import_demo1();
    let found = project.acts.get("found_a_paw").unwrap();
    assert_eq!(found.text, "Your cat likes to explore dark corners. \nHe might not return.");
    let cult = project.acts.get("kitten_joins_cult").unwrap();
    assert_eq!(
        cult.end_text,
        "While browsing for litter your cat clicked on some shady links and has fallen in with a Cathulu \
         worshipping cult. Is he safe to be around?"
    );
    assert!(!cult.end_text.contains('\n'));
    let tea = project.tokens.get("tea_party").unwrap();
    assert_eq!(tea.description, "Imaginary most likely.");
    assert_eq!(project.tokens.get("trashcan").unwrap().label, "Garbagio");
    let loaded = project.acts.get("_00_kitten_is_loaded").unwrap();
    assert_eq!(loaded.text, "Well, there's no telling what can happen from this.");
}

#[test]
fn demo1_slots_keep_their_options() {
    let (project, _) = import_demo1();
    let paw = project.slots.get("paw").unwrap();
    assert!(paw.grab);
    assert!(paw.card_lock);
    assert!(!paw.accept_all, "acceptAll is absent, so false");
    assert_eq!(paw.required, [FragmentCount::new(card("paw"), 1)]);
    let funds = project.slots.get("extra_funds").unwrap();
    assert_eq!(funds.token, Some(Id::new("darknet")));
    assert_eq!(funds.spawn_tests.len(), 1);
    assert_eq!(funds.spawn_tests[0].fragment1, Some(card("kitten")));
    assert_eq!(project.tokens.get("darknet").unwrap().slot, Some(Id::new("furry_operator")));
    assert_eq!(project.acts.get("kitten_explores").unwrap().slots, [Id::new("paw")]);
}

#[test]
fn demo1_acts_keep_times_tests_modifiers_and_links() {
    let (project, _) = import_demo1();
    let first = project.acts.get("first_one").unwrap();
    assert_eq!(first.duration_ticks, Expr::int(100));
    assert_eq!(first.requirements.tests[0].loc1, Location::MatchedCards);
    assert_eq!(first.effects.table_modifiers[0].op, TableOp::SpawnToken);
    assert_eq!(first.effects.table_modifiers[0].act, Id::new("trashcan_leftovers"));
    assert_eq!(project.acts.get("kitten_explores").unwrap().duration_ticks, Expr::int(600));
    let surfs = project.acts.get("_01_kitten_surfs_internet").unwrap();
    assert_eq!(surfs.requirements.tests[0].op, TestOp::Equal);
    assert_eq!(surfs.alt_acts.len(), 1);
    assert_eq!(surfs.alt_acts[0].act, Id::new("kitten_joins_cult"));
    assert_eq!(surfs.alt_acts[0].chance, Expr::int(5));
    let food = project.acts.get("kitten_got_extra_food").unwrap();
    assert!(food.requirements.tests[0].card_test);
    let adjust_matched = &food.effects.act_modifiers[1];
    assert_eq!((adjust_matched.op, adjust_matched.fragment.clone()), (ActOp::Adjust, Some(FragmentRef::MatchedCards)));
    assert_eq!(adjust_matched.level, Expr::int(-1));
    let catfight = project.acts.get("catfight").unwrap();
    assert_eq!(catfight.spawned_acts[0].act, Id::new("kitten_explores"));
    assert_eq!(catfight.effects.table_modifiers.len(), 2);
    // `furthermore: [null]`: the null is skipped, as the original does.
    assert!(project.acts.get("kitten_goes_hungry").unwrap().effects.furthermore.is_empty());
}

#[test]
fn demo1_every_act_modifier_counts_its_reference_in_the_scope() {
    let (project, _) = import_demo1();
    let modifiers: Vec<_> = project
        .acts
        .iter()
        .flat_map(|act| &act.effects.act_modifiers)
        .chain(project.rules.iter().flat_map(|rule| &rule.effects.act_modifiers))
        .collect();
    assert!(modifiers.len() >= 10, "{}", modifiers.len());
    assert!(modifiers.iter().all(|modifier| modifier.ref_loc == Location::Scope));
    let loaded = project.acts.get("_00_kitten_is_loaded").unwrap();
    assert_eq!(loaded.effects.act_modifiers[0].reference, Some(card("animal_money")));
}

#[test]
fn demo1_starts_with_the_scene_of_the_demo() {
    let (project, _) = import_demo1();
    assert_eq!(project.manifest.entry.tokens, [Id::new("tea_party")]);
    assert_eq!(project.manifest.entry.cards, [Id::new("somebody_you_knew")]);
    let options = CultistlikeOptions { start_tokens: vec!["Darknet".into()], start_cards: vec!["kitten".into()] };
    let imported = import_cultistlike_with(&demo1(), &options).unwrap();
    assert_eq!(imported.project.manifest.entry.tokens, [Id::new("darknet")]);
    assert_eq!(imported.project.manifest.entry.cards, [Id::new("kitten")]);
    assert!(imported.diagnostics.is_empty(), "{:?}", imported.diagnostics);
}

/// Counts the references of items and collects those naming no item.
struct Refs<'a> {
    project: &'a Project,
    count: usize,
    dangling: Vec<String>,
}

impl Visitor for Refs<'_> {
    fn reference(&mut self, path: &FieldPath, kind: Kind, slug: &str) {
        self.count += 1;
        if !self.project.contains(kind, slug) {
            self.dangling.push(format!("{path}: {kind} {slug}"));
        }
    }
}

#[test]
fn demo1_references_all_resolve_and_validate_without_errors() {
    let (project, _) = import_demo1();
    let diagnostics = validate(&project, &Sources::default(), None);
    let errors: Vec<String> = diagnostics.iter().filter(|d| d.is_error()).map(ToString::to_string).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // References are many, and every one names an imported item.
    let mut refs = Refs { project: &project, count: 0, dangling: Vec::new() };
    for act in &project.acts {
        walk_item(act, &mut refs);
    }
    for slot in &project.slots {
        walk_item(slot, &mut refs);
    }
    for card in &project.cards {
        walk_item(card, &mut refs);
    }
    assert!(refs.count > 60, "{}", refs.count);
    assert!(refs.dangling.is_empty(), "{:?}", refs.dangling);
}

#[test]
fn demo1_round_trips_through_a_project_folder() {
    let (project, _) = import_demo1();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kitten");
    save_new_folder(&project, &out).unwrap();
    let loaded = load_folder(&out).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(loaded.project, project);
    let diagnostics = validate(&loaded.project, &loaded.sources, Some(&out));
    assert!(!has_errors(&diagnostics), "{diagnostics:#?}");
    // The same content always gives the same files.
    let again = dir.path().join("again");
    save_new_folder(&import_demo1().0, &again).unwrap();
    for kind in ["acts", "cards", "slots", "tokens", "aspects"] {
        for entry in fs::read_dir(out.join(kind)).unwrap() {
            let file = entry.unwrap().path();
            let twin = again.join(kind).join(file.file_name().unwrap());
            assert_eq!(fs::read(&file).unwrap(), fs::read(&twin).unwrap(), "{}", file.display());
        }
    }
}

#[test]
fn demo1_imports_from_the_command_line_and_checks_clean() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kitten");
    let (outcome, stdout, stderr) = actforge(&["import", "cultistlike", path(&demo1()), "-o", path(&out)]);
    assert_eq!(outcome, Exit::Success, "{stdout}{stderr}");
    assert!(stdout.starts_with("imported 38 items from "), "{stdout}");
    assert!(stdout.contains("--copy-art"), "{stdout}");
    assert!(stderr.contains("info: the game starts with token `Tea Party`"), "{stderr}");
    let (outcome, stdout, stderr) = actforge(&["check", path(&out)]);
    assert_eq!(outcome, Exit::Success, "{stdout}{stderr}");
    assert!(stderr.contains(": 0 errors,"), "{stderr}");
    // The pictures are not copied by default, so check says they are missing (warnings only).
    assert!(stdout.contains("the picture `Sprites/black_cat.png` does not exist"), "{stdout}");
    let (outcome, ..) = actforge(&["import", "cultistlike", path(&demo1()), "-o", path(&out)]);
    assert_eq!(outcome, Exit::Failure, "refuses a folder that has content");
}

#[test]
fn demo1_with_copied_pictures_checks_without_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kitten");
    let demo = demo1();
    let args = ["import", "cultistlike", path(&demo), "-o", path(&out), "--copy-art", "--token", "Tea Party"];
    let (outcome, stdout, stderr) = actforge(&args);
    assert_eq!(outcome, Exit::Success, "{stdout}{stderr}");
    assert!(stdout.contains("16 pictures copied"), "{stdout}");
    assert!(out.join("Sprites").join("black_cat.png").is_file());
    let (outcome, stdout, stderr) = actforge(&["check", path(&out)]);
    assert_eq!(outcome, Exit::Success, "{stdout}{stderr}");
    assert!(stderr.contains(": 0 errors, 0 warnings;"), "{stdout}{stderr}");
    let manifest = fs::read_to_string(out.join("project.ron")).unwrap();
    assert!(manifest.contains("tokens: [\"tea_party\"]") && !manifest.contains("cards:"), "{manifest}");
}

fn demo1_script() -> String {
    fs::read_to_string(repo_root().join("tests/playtests/cultistlike_demo1.play")).unwrap()
}

#[test]
fn demo1_plays_through_every_acceptance_scenario() {
    // The engine plays the imported content as it is through S1–S7 of §4.3 (one game).
    let (project, _) = import_demo1();
    let mut session = Session::new(project, 1).unwrap();
    let report = session.run_script(&demo1_script()).unwrap();
    assert_eq!(report.expectations, 108);
    // S3's end: the fifth run completes as Kitten explores, No more paws runs at once, its chain
    // finishes with no results and the token dissolves, all at t = 320 s.
    let dark_corners_end: Vec<&Event> =
        report.events.iter().filter(|logged| logged.tick == 3200).map(|logged| &logged.event).collect();
    let completed: Vec<&str> = dark_corners_end
        .iter()
        .filter_map(|event| if let Event::ActCompleted { act, .. } = event { Some(act.as_str()) } else { None })
        .collect();
    assert_eq!(completed, ["kitten_explores", "no_more_paws"]);
    assert!(matches!(dark_corners_end.last(), Some(Event::TokenDissolved { .. })), "{dark_corners_end:?}");
    assert!(!dark_corners_end.iter().any(|event| matches!(event, Event::CardCreated { .. })));

    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("kitten");
    let (outcome, ..) = actforge(&["import", "cultistlike", path(&demo1()), "-o", path(&out)]);
    assert_eq!(outcome, Exit::Success);
    let script = repo_root().join("tests/playtests/cultistlike_demo1.play");
    let (outcome, stdout, stderr) = actforge(&["play", path(&out), "--script", path(&script)]);
    assert_eq!(outcome, Exit::Success, "{stdout}{stderr}");
    assert!(stdout.contains("ok: 108 expectation(s) held"), "{stdout}");
}

#[test]
fn demo1_kitten_joins_the_cult_on_a_low_draw() {
    // S7: the alt list is rolled once at start; Kitten joins cult is in it iff the [0,100) draw
    // is < 5. Play S1–S5 and start Darknet with many seeds: about 5 % take the cult branch.
    let (project, _) = import_demo1();
    let content = Arc::new(Content::compile(project).unwrap());
    let script = demo1_script();
    let before_s7 = &script[..script.find("\n# S7:").unwrap()];
    let start_surfing = format!("{before_s7}\nslot kitten darknet\nstart darknet\n");
    let seeds = 0..400_u64;
    let mut cult_seeds = Vec::new();
    for seed in seeds.clone() {
        let mut session = Session::from_content(Arc::clone(&content), seed);
        session.run_script(&start_surfing).unwrap();
        if session.run_script("expect alt darknet kitten_joins_cult").is_ok() {
            cult_seeds.push(seed);
        } else {
            session.run_script("expect alt darknet none").unwrap();
        }
    }
    let share = cult_seeds.len() as f64 / seeds.clone().count() as f64;
    assert!((0.02..0.09).contains(&share), "{} of 400 seeds joined the cult", cult_seeds.len());
    let mut session = Session::from_content(Arc::clone(&content), cult_seeds[0]);
    let cult = "wait 10s
expect lane darknet acolyte_kitten
expect end darknet \"While browsing for litter your cat clicked on some shady links and has fallen in with a Cathulu worshipping cult. Is he safe to be around?\"
expect anywhere.card.furball_of_memes == 0 and anywhere.card.kitten == 0
collect darknet
expect table.aspect.furry == 5 and table.aspect.purring == 1
slot acolyte_kitten darknet
expect status darknet idle
expect slots darknet furry_operator
unslot darknet
slot acolyte_kitten wheelbarrow
expect status wheelbarrow idle
";
    session.run_script(&start_surfing).unwrap();
    let report = session.run_script(cult).unwrap();
    assert_eq!(report.expectations, 7);
}

// ---------------------------------------------------------------------------------------
// Our own fixture: what the model cannot express, and what is broken.

#[test]
fn broken_yaml_and_dangling_guids_are_errors_with_file_and_line() {
    let (project, diagnostics) = import_cultistlike(&small()).unwrap();
    let broken = find(&diagnostics, "Resources/Cards/Broken.asset", "not valid YAML");
    assert_eq!(broken.len(), 1, "{diagnostics:#?}");
    assert_eq!(broken[0].severity, Severity::Error);
    assert_eq!(broken[0].position.map(|at| at.line), Some(15), "the line of the unclosed quote");
    let dangling =
        find(&diagnostics, "Resources/Cards/Lamp.asset", "no file has the GUID 99999999999999999999999999999999");
    assert_eq!(dangling.len(), 1, "{diagnostics:#?}");
    assert_eq!(dangling[0].severity, Severity::Error);
    assert_eq!(dangling[0].field.as_deref(), Some("fragments[4]"));
    assert_eq!(dangling[0].position.map(|at| at.line), Some(26));
    assert_eq!(
        dangling[0].to_string(),
        format!(
            "{}:26:5: error: card `lamp`, fragments[4]: no file has the GUID 99999999999999999999999999999999 \
             (no .meta in the folder names it); the reference is dropped",
            small().join("Resources/Cards/Lamp.asset").display()
        )
    );
    let to_broken =
        find(&diagnostics, "Resources/Acts/Burn.asset", "Resources/Cards/Broken.asset, which did not import");
    assert_eq!(to_broken.len(), 1, "{diagnostics:#?}");
    // Everything else still imported.
    assert!(project.cards.contains("lamp") && project.cards.contains("oil") && !project.cards.contains("broken"));
    assert_eq!(project.acts.len(), 4);
}

#[test]
fn the_small_fixture_maps_what_the_model_can_express() {
    let (project, diagnostics) = import_cultistlike(&small()).unwrap();
    let lamp = project.cards.get("lamp").unwrap();
    assert_eq!(lamp.label, "Old\nLamp");
    assert_eq!(lamp.description, "yes", "scalars are text first: YAML 1.1 would read `yes` as true");
    assert_eq!(lamp.fragments, [FragmentCount::new(aspect("glow"), 2), FragmentCount::new(card("oil"), 1)]);
    assert_eq!(lamp.decay_to, Some(Id::new("lamp")), "`{{fileID: 11400000}}` is a self reference");
    assert_eq!(lamp.lifetime_ticks, Expr::int(25));
    assert!(lamp.unique);
    assert_eq!(lamp.colour.to_hex(), "#ff8000ff");
    assert_eq!(project.cards.get("oil").unwrap().description, "Slick. \nSmelly.");
    assert_eq!(project.cards.get("lamp_2").unwrap().label, "Lamp~", "a repeated id gets a suffix");
    assert_eq!(find(&diagnostics, "Lamp~.asset", "the id `lamp` is already a card `Lamp`").len(), 1);
    let zeta = project.acts.get("zeta_light").unwrap();
    assert_eq!(zeta.text, "You have [glow] glow and {[lamp >= 1] a lamp}[MC] [Nothing]");
    assert_eq!(zeta.duration_ticks, Expr::int(3), "0.25 s rounds to 3 ticks");
    assert_eq!(zeta.effects.act_modifiers.len(), 1, "op 99 is dropped");
    assert_eq!(zeta.effects.act_modifiers[0].fragment, Some(FragmentRef::ThisCard));
    assert_eq!(zeta.effects.card_modifiers[0].target, None, "the UI-only zzzDrawn is not content");
    assert!(zeta.effects.table_modifiers.is_empty());
    assert_eq!(zeta.next_acts.len(), 1);
    assert!(zeta.requirements.or.is_empty());
    assert_eq!(project.tokens.get("desk").unwrap().description, "[glow] glows on the desk.");
    let rule = project.rules.get("has_oil").unwrap();
    assert_eq!((rule.label.as_str(), rule.invert, rule.text.as_str()), ("Has Oil", true, "[oil] left"));
    assert_eq!(project.acts.get("burn").unwrap().effects.furthermore, [Id::new("has_oil")]);
    assert_eq!(project.slots.get("wick").unwrap().required, [FragmentCount::new(card("lamp"), 1)]);
    assert!(project.aspects.contains("spark"), "an asset without .meta still imports");
    let alpha = project.acts.get("alpha_dim").unwrap();
    assert_eq!(alpha.alt_acts.len(), 1);
    assert_eq!((alpha.alt_acts[0].act.as_str(), alpha.alt_acts[0].chance.clone()), ("burn", Expr::int(100)));
    assert!(alpha.spawned_acts.is_empty() && alpha.effects.table_modifiers.is_empty(), "burn has no token");
    assert!(!project.acts.get("orphan").unwrap().initial);
    assert_eq!(project.rules.get("has_oil").unwrap().requirements.tests[1].op, TestOp::Less);
    assert_eq!(project.slots.get("wick").unwrap().essential, [FragmentCount::new(card("oil"), 0)]);
    assert_eq!(project.cards.get("oil").unwrap().decay_to, None);
    assert_eq!(project.manifest.name, "cultistlike-small");
    assert!(project.manifest.entry.is_empty());
}

#[test]
fn the_small_fixture_reports_what_changes_meaning() {
    let (_, diagnostics) = import_cultistlike(&small()).unwrap();
    let expect = |file: &str, text: &str, severity: Severity| {
        let found = find(&diagnostics, file, text);
        assert_eq!(found.len(), 1, "{file}: `{text}` in {diagnostics:#?}");
        assert_eq!(found[0].severity, severity, "{}", found[0]);
    };
    expect("Zeta Light.asset", "only empty entries: the original then always fails", Severity::Warning);
    expect("Zeta Light.asset", "a single such link is always taken", Severity::Warning);
    expect("Zeta Light.asset", "the original does nothing for op 99", Severity::Info);
    expect("Zeta Light.asset", "`zzzDrawn` is only an icon", Severity::Warning);
    expect("Zeta Light.asset", "a table modifier without an act does nothing", Severity::Info);
    expect("Zeta Light.asset", "0.25 s is rounded to 3 ticks", Severity::Info);
    expect("Zeta Light.asset", "`[Nothing]` names no aspect or card", Severity::Info);
    expect("alpha dim.asset", "tried in id order in Actforge (alpha_dim, zeta_light)", Severity::Warning);
    expect("Burn.asset", "7 is no comparison", Severity::Warning);
    expect("Lamp.asset", "the picture Sprites/lamp.png is not in the folder", Severity::Warning);
    expect("Lamp.asset", "repeated entries are folded", Severity::Info);
    expect("Lamp.asset", "not a field the Cultistlike engine reads", Severity::Info);
    expect("Glow.asset", "never reads an aspect's fragments", Severity::Info);
    expect("Wick.asset", "an entry without a fragment is dropped", Severity::Warning);
    expect("Spark.asset", "no .meta file", Severity::Warning);
    expect("Glow.asset", "an empty entry, which the original fails on", Severity::Info);
    expect("Oil.asset", "the special fragment `___ThisCard` cannot stand for a card", Severity::Warning);
    expect("Has Oil.asset", "`Mod` by a constant 0 is a division error", Severity::Warning);
    expect("Wick.asset", "-2 is read as 0", Severity::Info);
    expect("Orphan.asset", "an initial act without a token can never be started", Severity::Warning);
    expect("alpha dim.asset", "the act `burn` has no token, so there is no token type to spawn", Severity::Warning);
    expect("alpha dim.asset", "the act `burn` has no token, so no token can be spawned to run it", Severity::Warning);
    expect("alpha dim.asset", "a chance of -5 % is never taken", Severity::Warning);
    expect("Manager.asset", "GameManager.cs is not a Cultistlike content type", Severity::Warning);
    let start: Vec<_> = diagnostics.iter().filter(|d| d.message.starts_with("nothing is on the table")).collect();
    assert_eq!(start.len(), 1);
    let lamp = find(&diagnostics, "Lamp.asset", "not a field");
    assert_eq!(lamp[0].field.as_deref(), Some("shininess"));
}

#[test]
fn the_command_writes_nothing_on_errors_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("small");
    let source = small();
    let (outcome, stdout, stderr) = actforge(&["import", "cultistlike", path(&small()), "-o", path(&out)]);
    assert_eq!(outcome, Exit::Failure);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("Broken.asset:15:"), "{stderr}");
    assert!(stderr.contains("error: nothing was written"), "{stderr}");
    assert!(!out.exists());
    let args =
        ["import", "cultistlike", path(&source), "-o", path(&out), "--force", "--token", "Desk", "--card", "lamp"];
    let (outcome, stdout, _) = actforge(&args);
    assert_eq!(outcome, Exit::Failure, "errors were reported, even though the project was written");
    assert!(stdout.starts_with("imported 12 items"), "{stdout}");
    let (outcome, stdout, stderr) = actforge(&["check", path(&out)]);
    assert_eq!(outcome, Exit::Success, "{stdout}{stderr}");
    assert!(stderr.contains(": 0 errors, 0 warnings;"), "{stdout}{stderr}");
    let manifest = fs::read_to_string(out.join("project.ron")).unwrap();
    assert!(manifest.contains("entry: (tokens: [\"desk\"], cards: [\"lamp\"])"), "{manifest}");
}

#[test]
fn unknown_start_names_are_errors_that_list_the_names() {
    let options = CultistlikeOptions { start_tokens: vec!["Nobody".into()], start_cards: vec![] };
    let imported = import_cultistlike_with(&small(), &options).unwrap();
    let error = imported.diagnostics.iter().find(|d| d.message.contains("`Nobody`")).unwrap();
    assert_eq!(error.severity, Severity::Error);
    assert_eq!(error.message, "no token is named `Nobody` (by asset name or id); the tokens are: Desk");
}

#[test]
fn a_source_that_is_not_a_content_folder_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let error = import_cultistlike(&dir.path().join("missing")).unwrap_err();
    assert!(matches!(error, ImportError::NotAFolder { .. }), "{error}");
    assert!(error.to_string().contains("is not a folder"), "{error}");
    fs::write(dir.path().join("notes.txt"), "no assets here").unwrap();
    let error = import_cultistlike(dir.path()).unwrap_err();
    assert!(error.to_string().contains("holds no .asset files"), "{error}");
    let (outcome, _, stderr) =
        actforge(&["import", "cultistlike", path(dir.path()), "-o", path(&dir.path().join("o"))]);
    assert_eq!(outcome, Exit::Failure);
    assert!(stderr.starts_with("error: ") && stderr.contains("holds no .asset files"), "{stderr}");
}

#[test]
fn importing_never_panics_on_mangled_assets() {
    // Every prefix of a real asset, and the asset with each line dropped in turn: all are
    // either imported or reported, never a panic.
    let source = fs::read_to_string(demo1().join("Resources/Acts/Trashcan/Catfight.asset")).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let mut variants: Vec<String> =
        (0..source.len()).step_by(37).filter_map(|n| source.get(..n)).map(str::to_owned).collect();
    variants.extend((0..lines.len()).map(|skip| {
        lines.iter().enumerate().filter(|(at, _)| *at != skip).map(|(_, line)| *line).collect::<Vec<_>>().join("\n")
    }));
    for (n, text) in variants.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("Catfight.asset"), text).unwrap();
        fs::write(dir.path().join("Catfight.asset.meta"), "guid: 004b3c06ad5d656438a80c690527ca16\n").unwrap();
        let (project, diagnostics) = import_cultistlike(dir.path()).unwrap();
        assert!(project.acts.len() <= 1, "variant {n}");
        let reported = diagnostics.iter().any(|d| d.file.is_some());
        assert!(project.acts.len() == 1 || reported, "variant {n}: dropped silently");
    }
}

// ---------------------------------------------------------------------------------------
// Decks and Decay (issue 28, `tests/fixtures/cultistlike-decks`)

#[test]
fn a_decay_level_in_seconds_becomes_ticks_and_shuffled_decks_keep_the_original_order() {
    let (project, diagnostics) = import_cultistlike(&fixture("cultistlike-decks")).unwrap();
    assert!(!has_errors(&diagnostics), "{diagnostics:#?}");
    let ticks_per_second = i64::from(project.manifest.settings.ticks_per_second);
    let kindle = project.acts.get("kindle").unwrap();
    let decay = &kindle.effects.card_modifiers[0];
    assert_eq!(decay.op, CardOp::Decay);
    assert_eq!(decay.level, Expr::int(30 * ticks_per_second), "30 s of decay, not 30 ticks (3.5 s)");
    let transform = &kindle.effects.card_modifiers[1];
    assert_eq!(transform.op, CardOp::Transform);
    assert_eq!(transform.level, Expr::int(30), "a Transform's level is a count: kept");
    assert_eq!(project.cards.get("ember").unwrap().lifetime_ticks, Expr::int(2 * ticks_per_second));
    let embers = project.decks.get("embers").unwrap();
    assert!(embers.shuffle);
    assert_eq!(embers.shuffle_mode, ShuffleMode::Insertion, "the original draws the first entry last");
    let pile = project.decks.get("pile").unwrap();
    assert!(!pile.shuffle);
    assert_eq!(pile.shuffle_mode, ShuffleMode::default(), "an unshuffled deck keeps the default");
}
