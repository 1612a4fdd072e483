//! Issue 32 in the editor: the Strings tab adds a language and translates in place (undoable
//! ops, saved as `locales/LANG/KIND.ron`), the preview switches language while keeping its
//! place, and a rename keeps an item's translations.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;

use actforge_editor::app::{ActforgeApp, default_project_path};
use actforge_editor::commands::UiCommand;
use actforge_editor::document::{Document, ItemKey, Op};
use actforge_runtime::Kind;
use actforge_runtime::locale::{Translation, localised, source_strings};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness_at(path: &Path) -> Harness<'static, ActforgeApp> {
    let mut harness = Harness::builder()
        .with_size([1400.0, 900.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(path.to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(3);
    harness
}

#[test]
fn a_new_project_gets_a_language_and_a_translation_typed_in_the_strings_tab() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("game");
    actforge_runtime::project::create_project(&root).unwrap();
    std::fs::write(root.join("cards/coin.ron"), "(\n    id: \"coin\",\n    label: \"Coin\",\n)\n").unwrap();
    let mut harness = harness_at(&root);
    harness.state_mut().request(UiCommand::Strings);
    harness.run_steps(3);
    harness.get_by_label_contains("Add a language above to translate these texts");
    harness.get_by_label("cards.coin.label");

    // A code that cannot be a language is refused at the field.
    harness.get_by_label("New language code").click();
    harness.run_steps(1);
    harness.get_by_label("New language code").type_text("French!");
    harness.get_by_label_contains("Add language").click();
    harness.run_steps(2);
    harness.get_by_label_contains("`French!` is not a language code");
    assert!(harness.state().project().unwrap().manifest.localisation.languages.is_empty());

    // Clear the field (select all, type over it) and add `fr`.
    harness.get_by_label("New language code").click();
    harness.run_steps(1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("New language code").type_text("fr");
    harness.run_steps(1);
    harness.get_by_label_contains("Add language").click();
    harness.run_steps(3);
    assert_eq!(harness.state().project().unwrap().manifest.localisation.languages, ["fr"]);
    harness.get_by_label_contains("fr: 0 of 1 translated");

    // Type the translation in the fr column: one op, made from the current source.
    harness.get_by_label("fr of cards.coin.label").click();
    harness.run_steps(1);
    harness.get_by_label("fr of cards.coin.label").type_text("Pièce");
    harness.run_steps(3);
    let fr = &harness.state().project().unwrap().locales["fr"];
    assert_eq!(fr["cards.coin.label"], Translation { text: "Pièce".into(), source: "Coin".into() });
    harness.get_by_label_contains("fr: 1 of 1 translated, 0 stale");
    // The unsaved translation is listed with the other unsaved changes, and counted.
    harness.state_mut().request(UiCommand::Changes);
    harness.run_steps(2);
    harness.get_by_label_contains("locales/:");
    harness.get_by_label_contains("2 unsaved");
    harness.state_mut().request(UiCommand::Strings);
    harness.run_steps(2);

    // The Missing filter hides it now; undo takes the translation back out.
    harness.get_by_label("Missing").click();
    harness.run_steps(2);
    harness.get_by_label("No text matches the filter.");
    harness.get_by_label("All").click();
    harness.run_steps(1);
    harness.state_mut().request(UiCommand::Save);
    harness.run_steps(2);
    let file = std::fs::read_to_string(root.join("locales/fr/cards.ron")).unwrap();
    assert!(file.contains("\"coin.label\": (text: \"Pièce\", source: \"Coin\")"), "{file}");
    harness.state_mut().request(UiCommand::Undo);
    harness.run_steps(2);
    let locales = &harness.state().project().unwrap().locales;
    assert!(locales.get("fr").is_none_or(|fr| !fr.contains_key("cards.coin.label")), "{locales:?}");

    // A changed source makes the translation stale: flagged at the cell, and marked up to date
    // with one click.
    harness.state_mut().request(UiCommand::Redo);
    harness.run_steps(2);
    // The designer retitles the card in the inspector.
    harness.state_mut().select(ItemKey::new(Kind::Card, "coin"));
    harness.run_steps(2);
    harness.get_by_label("Label").click();
    harness.run_steps(1);
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
    harness.get_by_label("Label").type_text("Gold Coin");
    harness.run_steps(3);
    assert_eq!(harness.state().project().unwrap().cards.get("coin").unwrap().label, "Gold Coin");
    harness.state_mut().request(UiCommand::Strings);
    harness.run_steps(3);
    harness.get_by_label_contains("fr: 1 of 1 translated, 1 stale");
    harness.get_by_label_contains("Up to date").click();
    harness.run_steps(3);
    let fr = &harness.state().project().unwrap().locales["fr"];
    assert_eq!(fr["cards.coin.label"], Translation { text: "Pièce".into(), source: "Gold Coin".into() });
}

#[test]
fn the_preview_switches_language_and_to_the_pseudo_locale_keeping_its_place() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path().parent().unwrap().join("act-demo"), dir.path()).unwrap();
    std::fs::create_dir_all(dir.path().join("locales/fr")).unwrap();
    std::fs::write(
        dir.path().join("locales/fr/cards.ron"),
        "{\"basket.label\": (text: \"Panier d'osier\", source: \"Wicker Basket\")}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("locales/fr/tokens.ron"),
        "{\"hedgerow.label\": (text: \"La Haie\", source: \"The Hedgerow\")}\n",
    )
    .unwrap();
    let manifest = std::fs::read_to_string(dir.path().join("project.ron")).unwrap();
    std::fs::write(
        dir.path().join("project.ron"),
        manifest.replace("languages: [\"en-XA\"]", "languages: [\"en-XA\", \"fr\"]"),
    )
    .unwrap();
    let mut harness = harness_at(dir.path());
    harness.state_mut().request(UiCommand::RestartPreview);
    harness.run_steps(4);
    harness.get_by_label("Wicker Basket");
    harness.state_mut().preview_mut().game.input("wait 2");
    harness.run_steps(3);

    let choose = |harness: &mut Harness<'static, ActforgeApp>, option: &str| {
        harness.get_by_label("Language").click();
        harness.run_steps(2);
        harness.get_by_label(option).click();
        harness.run_steps(4);
    };
    choose(&mut harness, "fr");
    assert_eq!(harness.state().preview().game.language(), "fr");
    harness.get_by_label("Panier d'osier");
    let _ = harness.get_all_by_label_contains("La Haie");
    assert!(harness.query_by_label("Wicker Basket").is_none());
    assert_eq!(harness.state().preview().game.log(), ["wait 2"], "the game kept its place");

    choose(&mut harness, "Pseudo-locale");
    harness.get_by_label("⟦Ŵîçķéŕ Ɓàšķéţ ·····⟧");
    let _ = harness.get_all_by_label_contains("⟦Ţĥé Ĥéďĝéŕöŵ");

    choose(&mut harness, "Source (en)");
    harness.get_by_label("Wicker Basket");
    assert_eq!(harness.state().preview().game.log(), ["wait 2"]);
}

#[test]
fn a_renamed_item_keeps_its_string_keys_and_translations_and_a_new_item_under_its_old_id_gets_its_own() {
    let project = actforge_runtime::project::load_folder(&default_project_path().parent().unwrap().join("act-demo"))
        .unwrap()
        .project;
    let keys = |project: &actforge_runtime::Project| {
        source_strings(project)
            .into_iter()
            .map(|s| s.key)
            .filter(|k| k.starts_with("cards.basket."))
            .collect::<Vec<_>>()
    };
    let before = keys(&project);
    let mut document = Document::new(project);
    document.apply(Op::Rename { key: ItemKey::new(Kind::Card, "basket"), to: "wicker_basket".into() }).unwrap();
    let project = document.project();
    assert_eq!(project.cards.get("wicker_basket").unwrap().text_key, "basket");
    assert_eq!(keys(project), before);
    assert_eq!(localised(project, "en-XA").cards.get("wicker_basket").unwrap().label, "⟦Ŵîçķéŕ Ɓàšķéţ ·····⟧");
    // A new card under the old id gets a key of its own: it does not inherit the translations.
    let new = actforge_editor::templates::new_item(project, Kind::Card, "basket");
    document.apply(Op::put(new)).unwrap();
    assert_eq!(document.project().cards.get("basket").unwrap().text_key, "basket_2");
    assert_eq!(localised(document.project(), "en-XA").cards.get("basket").unwrap().label, "Basket");
    document.apply(Op::remove(ItemKey::new(Kind::Card, "basket"))).unwrap();
    // Renamed back: the key is the id again, stored as nothing.
    document.apply(Op::Rename { key: ItemKey::new(Kind::Card, "wicker_basket"), to: "basket".into() }).unwrap();
    assert_eq!(document.project().cards.get("basket").unwrap().text_key, "");
    assert_eq!(keys(document.project()), before);
}

#[test]
fn unsaved_translations_come_back_from_the_recovery_file() {
    let project = actforge_runtime::project::load_folder(&default_project_path().parent().unwrap().join("act-demo"))
        .unwrap()
        .project;
    let mut edited = project.clone();
    edited
        .locales
        .get_mut("en-XA")
        .unwrap()
        .insert("cards.basket.label".into(), Translation { text: "Panier".into(), source: "Wicker Basket".into() });
    let ops = actforge_editor::io::recovery::recovery_ops(&project, &edited);
    let mut document = Document::new(project);
    document.apply(Op::Batch(ops)).unwrap();
    assert_eq!(document.project().locales["en-XA"]["cards.basket.label"].text, "Panier");
    assert!(document.locales_dirty() && document.has_unsaved_changes());
}
