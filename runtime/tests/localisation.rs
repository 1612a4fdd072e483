//! Localisation (issue 32): stable string keys, extraction order and context, importing with
//! stale flags, `check`'s findings per language, playing in a language and in the
//! pseudo-locale with substitutions intact, bundles carrying languages, and byte-stable round
//! trips through CSV, PO and XLIFF.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::path::PathBuf;

use actforge_runtime::engine::Session;
use actforge_runtime::locale::formats::{TableFormat, read_table, write_table};
use actforge_runtime::locale::{
    PSEUDO_LOCALE, Translation, check_locales, import_table, localised, placeholders, source_strings, string_table,
};
use actforge_runtime::model::{Card, Id, Item, MapNode, NodeMap, NodeOption, Project};
use actforge_runtime::project::{load_folder, parse_bundle, save_folder};
use actforge_runtime::{Kind, Severity};

fn act_demo() -> Project {
    load_folder(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content/act-demo")).unwrap().project
}

fn option(id: &str, label: &str) -> NodeOption {
    NodeOption { id: id.into(), label: label.into(), ..NodeOption::default() }
}

fn keys(project: &Project) -> Vec<String> {
    source_strings(project).into_iter().map(|string| string.key).collect()
}

#[test]
fn keys_survive_renames_and_list_edits_because_elements_are_keyed_by_id() {
    let mut project = Project::new("keys");
    let node = MapNode {
        id: Id::from("mill"),
        label: "Old Mill".into(),
        options: vec![option("rest", "Rest"), option("search", "Search")],
        ..MapNode::default()
    };
    project.node_maps.insert(NodeMap {
        id: "valley".into(),
        label: "Valley".into(),
        nodes: vec![node],
        ..NodeMap::default()
    });
    let before = keys(&project);
    assert_eq!(
        before,
        [
            "node_maps.valley.label",
            "node_maps.valley.nodes[mill].label",
            "node_maps.valley.nodes[mill].options[rest].label",
            "node_maps.valley.nodes[mill].options[search].label",
        ]
    );
    // An option inserted first and the others moved: the old options keep their keys.
    let map = project.node_maps.get_mut("valley").unwrap();
    map.nodes[0].options.insert(0, option("pray", "Pray"));
    map.nodes[0].options.swap(1, 2);
    let after = keys(&project);
    for key in &before {
        assert!(after.contains(key), "{key} lost after a list edit: {after:?}");
    }
    assert!(after.contains(&"node_maps.valley.nodes[mill].options[pray].label".to_owned()));

    // A rename (as the editor's rename op does it) keeps the old id as the key.
    let mut map = project.node_maps.remove("valley").unwrap();
    map.text_key = map.text_key().to_owned();
    map.id = "river_valley".into();
    project.node_maps.insert(map);
    assert_eq!(keys(&project).iter().filter(|key| key.starts_with("node_maps.valley.")).count(), after.len());
    // A new item under the old id would share its key: `check` says so.
    project.node_maps.insert(NodeMap { id: "valley".into(), label: "Another".into(), ..NodeMap::default() });
    let found = check_locales(&project, None);
    assert!(
        found.iter().any(|d| d.severity == Severity::Error && d.message.contains("both key their texts `valley`")),
        "{found:?}"
    );
    assert_eq!(actforge_runtime::locale::fresh_text_key(&project, Kind::NodeMap, "valley"), "valley_2");
}

#[test]
fn extraction_follows_kind_item_and_field_order_with_context_and_limits() {
    let mut project = act_demo();
    project.manifest.localisation.limits.insert("cards.label".into(), 12);
    let strings = source_strings(&project);
    let kinds: Vec<Kind> = strings.iter().map(|string| string.kind).collect();
    let mut sorted = kinds.clone();
    sorted.sort_by_key(|kind| Kind::ALL.iter().position(|k| k == kind));
    assert_eq!(kinds, sorted, "kind order");
    let acts: Vec<&str> = strings.iter().filter(|s| s.kind == Kind::Act).map(|s| s.item.as_str()).collect();
    assert!(acts.windows(2).all(|pair| pair[0] <= pair[1]), "item id order: {acts:?}");
    // Within an item: the schema's field order (label, text, end text, then nested ones).
    let fields: Vec<&str> = strings.iter().filter(|s| s.item == "buy_firewood").map(|s| s.field.as_str()).collect();
    assert_eq!(fields, ["label", "text", "end_text"]);
    let cool = strings.iter().find(|s| s.key == "acts.cool_the_pot.label").unwrap();
    assert_eq!(cool.context, "after brew_draught, brew_tonic");
    let buy = strings.iter().find(|s| s.key == "acts.buy_firewood.label").unwrap();
    assert_eq!(buy.context, "token market");
    let card = strings.iter().find(|s| s.key == "cards.basket.label").unwrap();
    assert_eq!(card.max_chars, Some(12));
    assert_eq!(buy.max_chars, None);
    // Every source text is there exactly once; the same project gives the same list.
    assert_eq!(strings, source_strings(&project));
    let mut unique: Vec<&str> = strings.iter().map(|s| s.key.as_str()).collect();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), strings.len());
}

#[test]
fn imports_flag_stale_translations_and_check_reports_missing_stale_placeholders_and_length() {
    let mut project = act_demo();
    // Without the pack's sample language: only `fr` is looked at.
    project.locales.clear();
    project.manifest.localisation.languages.clear();
    project.manifest.localisation.limits.insert("acts.label".into(), 20);
    let mut table = string_table(&project, None);
    table.language = "fr".into();
    for row in &mut table.rows {
        row.translation = match row.key.as_str() {
            "acts.brew_tonic.label" => "Préparer un tonique".into(),
            "acts.brew_tonic.text" => "Vous broyez [MC] et posez la marmite sur les braises.".into(),
            "acts.treat.text" => "Vous donnez [MC] du remède contre la fièvre.".into(),
            "acts.forage.label" => "Cueillir dans les haies gelées".into(),
            _ => String::new(),
        };
    }
    // A text that changed since the table was written: the translation comes in stale.
    project.acts.get_mut("forage").unwrap().label = "Forage at Dawn".into();
    let report = import_table(&mut project, &table, None).unwrap();
    assert_eq!((report.added, report.untranslated), (4, table.rows.len() - 4));
    assert_eq!(report.stale, ["acts.forage.label"]);
    assert_eq!(project.manifest.localisation.languages, ["fr"]);
    assert_eq!(
        project.locales["fr"]["acts.forage.label"],
        Translation { text: "Cueillir dans les haies gelées".into(), source: "Forage".into() }
    );

    let found = check_locales(&project, None);
    let about = |needle: &str| found.iter().filter(|d| d.message.contains(needle)).collect::<Vec<_>>();
    let stale = about("is stale");
    assert_eq!(stale.len(), 1, "{found:?}");
    assert!(stale[0].message.contains("acts.forage.label"));
    assert_eq!(stale[0].file.as_deref(), Some(std::path::Path::new("locales/fr/acts.ron")));
    let lost = about("must keep its source's placeholders");
    assert_eq!(lost.len(), 1, "{found:?}");
    assert!(lost[0].message.contains("acts.treat.text") && lost[0].message.contains("lost [remedy] [sickness]"));
    assert_eq!(lost[0].severity, Severity::Error);
    let missing = about("are not translated");
    assert_eq!(missing.len(), 1);
    assert!(missing[0].message.starts_with(&format!("`fr`: {} of {}", table.rows.len() - 4, table.rows.len())));
    let long = about("allows 20");
    assert!(long.iter().any(|d| d.message.contains("acts.forage.label")), "{found:?}");

    // The same table again: nothing changes, the stale one stays stale (never made current).
    let again = import_table(&mut project, &table, None).unwrap();
    assert_eq!((again.added, again.updated, again.unchanged), (0, 0, 4));
    assert_eq!(again.stale, ["acts.forage.label"]);
    // A row for a text that no longer exists is reported, not imported.
    let mut gone = table.clone();
    gone.rows[0].key = "acts.no_such_act.label".into();
    gone.rows[0].translation = "x".into();
    let report = import_table(&mut project, &gone, Some("de")).unwrap();
    assert_eq!(report.unknown, ["acts.no_such_act.label"]);
    assert!(!project.locales["de"].contains_key("acts.no_such_act.label"));
    assert!(import_table(&mut project, &table, Some("../x")).is_err());
    assert!(import_table(&mut project, &table, Some("en")).is_err(), "the source language");
}

#[test]
fn a_translated_game_plays_its_texts_with_substitutions_and_the_pseudo_locale_keeps_them() {
    let mut project = act_demo();
    let locale = project.locales.entry("fr".into()).or_default();
    locale.insert(
        "acts.forage.text".into(),
        Translation { text: "Vous écartez la neige et cherchez du vert.".into(), source: "x".into() },
    );
    locale.insert(
        "acts.walk_home.end_text".into(),
        Translation { text: "Vous rentrez avec [herb] poignée(s).".into(), source: "x".into() },
    );
    let french = localised(&project, "fr");
    assert_eq!(french.acts.get("forage").unwrap().text, "Vous écartez la neige et cherchez du vert.");
    // Untranslated texts stay in the source language; other languages leave the project as is.
    assert_eq!(french.acts.get("forage").unwrap().label, "Forage");
    assert_eq!(localised(&project, "de"), project);

    let pseudo = localised(&project, PSEUDO_LOCALE);
    for string in source_strings(&project) {
        let shown = source_strings(&pseudo).into_iter().find(|s| s.key == string.key).unwrap().text;
        assert!(shown.starts_with('⟦') && shown.ends_with('⟧'), "{shown}");
        assert_eq!(placeholders(&shown), placeholders(&string.text), "{}", string.key);
        assert!(shown.chars().count() * 10 >= string.text.chars().count() * 14, "40% longer: {shown}");
    }

    // Play the forage chain in French (seed 11, as the pack's golden playtest): the window
    // shows the translation, and the end text's `[herb]` is still counted.
    let mut session = Session::new(french, 11).unwrap();
    let script = "slot basket hedgerow\nstart hedgerow\n\
                  expect text hedgerow \"Vous écartez la neige et cherchez du vert.\"\n\
                  wait 6s\nexpect end hedgerow \"Vous rentrez avec 1 poignée(s).\"\n";
    let report = session.run_script(script);
    assert!(report.is_ok(), "{report:?}");
    // The pseudo-locale plays too, its substitution counted inside the brackets.
    let mut session = Session::new(pseudo, 11).unwrap();
    session.run_script("slot basket hedgerow\nstart hedgerow\nwait 6s\n").unwrap();
    let end = &session.state().windows.values().find(|w| w.end_text.contains("ĥàñďƒûĺ")).unwrap().end_text;
    assert!(end.starts_with("⟦Ýöû ţŕûďĝé ĥöмé ŵîţĥ 1 ĥàñďƒûĺ(š)"), "{end}");
}

#[test]
fn folders_and_bundles_carry_translations_in_stable_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("game");
    let mut project = Project::new("game");
    project.cards.insert(Card {
        id: "coin".into(),
        label: "Coin".into(),
        description: "Copper.".into(),
        ..Card::default()
    });
    project.manifest.localisation.languages = vec!["fr".into(), "de".into()];
    let fr = project.locales.entry("fr".into()).or_default();
    fr.insert("cards.coin.label".into(), Translation { text: "Pièce".into(), source: "Coin".into() });
    fr.insert("cards.coin.description".into(), Translation { text: "Du cuivre.".into(), source: "Copper.".into() });
    actforge_runtime::project::save_new_folder(&project, &root).unwrap();
    let text = std::fs::read_to_string(root.join("locales/fr/cards.ron")).unwrap();
    assert!(text.contains("\"coin.description\": (text: \"Du cuivre.\", source: \"Copper.\")"), "{text}");
    // Keys in order, whatever order they were added in; `de` gets its (empty) file.
    assert!(text.find("coin.description").unwrap() < text.find("coin.label").unwrap());
    assert!(root.join("locales/de/cards.ron").is_file());
    let loaded = load_folder(&root).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    assert_eq!(loaded.project.locales["fr"], project.locales["fr"]);
    // Saving again writes nothing: the files are canonical.
    let report = save_folder(&loaded.project, &root, &std::collections::BTreeSet::new()).unwrap();
    assert!(report.written.is_empty(), "{:?}", report.written);

    for format in [actforge_runtime::project::BundleFormat::Ron, actforge_runtime::project::BundleFormat::Json] {
        let text = actforge_runtime::project::bundle_text(&loaded.project, format).unwrap();
        let back = parse_bundle(&text, &root.join("game.bundle")).unwrap();
        assert!(back.diagnostics.is_empty(), "{:?}", back.diagnostics);
        assert_eq!(back.project.locales["fr"], project.locales["fr"], "{format:?}");
    }
    // A bundle's translations a folder could not hold are left out, each with an error.
    let mut hostile = loaded.project.clone();
    hostile.locales.entry("../../etc".into()).or_default();
    hostile.locales.get_mut("fr").unwrap().insert("nowhere.x".into(), Translation::default());
    let text = actforge_runtime::project::bundle_text(&hostile, actforge_runtime::project::BundleFormat::Json).unwrap();
    let back = parse_bundle(&text, &root.join("hostile.json")).unwrap();
    assert_eq!(back.diagnostics.len(), 2, "{:?}", back.diagnostics);
    assert!(!back.project.locales.contains_key("../../etc"));
    assert!(!back.project.locales["fr"].contains_key("nowhere.x"));
}

#[test]
fn string_tables_round_trip_byte_for_byte_through_csv_po_and_xliff() {
    let mut project = act_demo();
    // Awkward text in the source and in translations: quotes, commas, newlines, brackets.
    project.cards.get_mut("coin").unwrap().description = "A \"worn\" penny,\nhalf <gone> & \\ bent.".into();
    let strings = source_strings(&project);
    let locale = project.locales.entry("fr".into()).or_default();
    for (n, string) in strings.iter().enumerate() {
        match n % 3 {
            0 => {} // missing
            1 => {
                locale.insert(
                    string.key.clone(),
                    Translation { text: format!("« {} »", string.text), source: string.text.clone() },
                );
            }
            _ => {
                locale.insert(
                    string.key.clone(),
                    Translation { text: format!("vieux, {}", string.text), source: "old".into() },
                );
            }
        }
    }
    for format in [TableFormat::Csv, TableFormat::Po, TableFormat::Xliff] {
        let table = string_table(&project, Some("fr"));
        assert!(table.rows.iter().any(|row| row.stale) && table.rows.iter().any(|row| row.translation.is_empty()));
        let first = write_table(format, &table);
        // Through a translator and back: import the file into a copy, extract again.
        let mut copy = project.clone();
        copy.locales.remove("fr");
        let read = read_table(format, &first).unwrap();
        assert_eq!(read, table, "{format:?} reads back what it wrote");
        import_table(&mut copy, &read, None).unwrap();
        let second = write_table(format, &string_table(&copy, Some("fr")));
        assert_eq!(first, second, "{format:?}: extract → import → extract is byte-stable");
    }
}
