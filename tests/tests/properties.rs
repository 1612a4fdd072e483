//! Property tests: random projects round-trip; the loaders and importers never panic on any bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use actforge_runtime::Project;
use actforge_runtime::import::{import_cultistlike, unity_yaml};
use actforge_runtime::project::{BundleFormat, bundle_text, load_folder, parse_bundle, save_folder};
use actforge_runtime::validate::validate;
use actforge_tests::{content, fixture, synthetic_project};
use proptest::prelude::*;

/// A synthetic project whose texts are replaced by arbitrary strings (quotes, newlines,
/// brackets, any Unicode).
fn project_with_texts(seed: u64, items: usize, texts: &[String]) -> Project {
    let mut project = synthetic_project(items, seed);
    let mut texts = texts.iter().cycle();
    let ids: Vec<String> = project.acts.ids().map(ToString::to_string).collect();
    for id in ids {
        if let (Some(act), Some(text), Some(label)) = (project.acts.get_mut(&id), texts.next(), texts.next()) {
            act.text.clone_from(text);
            act.label.clone_from(label);
        }
    }
    let ids: Vec<String> = project.cards.ids().map(ToString::to_string).collect();
    for id in ids {
        if let (Some(card), Some(key), Some(text)) = (project.cards.get_mut(&id), texts.next(), texts.next()) {
            card.description.clone_from(text);
            card.properties.insert(key.clone(), actforge_runtime::model::Expr::new(text.clone()));
        }
    }
    project
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_projects_round_trip_through_folders_and_bundles(
        seed in any::<u64>(),
        items in 20usize..120,
        texts in prop::collection::vec("\\PC*", 1..8),
    ) {
        let project = project_with_texts(seed, items, &texts);
        let dir = tempfile::tempdir().unwrap();
        save_folder(&project, dir.path(), &BTreeSet::new()).unwrap();
        let loaded = load_folder(dir.path()).unwrap();
        prop_assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
        prop_assert_eq!(&loaded.project, &project);
        for format in [BundleFormat::Ron, BundleFormat::Json] {
            let text = bundle_text(&project, format).unwrap();
            let back = parse_bundle(&text, Path::new("b")).unwrap();
            prop_assert_eq!(&back.project, &project);
        }
    }

    #[test]
    fn the_bundle_parser_never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        let _ = parse_bundle(&text, Path::new("fuzz.ron"));
        let _ = parse_bundle(&format!("{{{text}"), Path::new("fuzz.json"));
    }

    #[test]
    fn the_folder_loader_never_panics_on_arbitrary_bytes(
        bytes in prop::collection::vec(any::<u8>(), 0..300),
        victim in 0usize..4,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let project = synthetic_project(20, 1);
        save_folder(&project, dir.path(), &BTreeSet::new()).unwrap();
        let target = match victim {
            0 => dir.path().join("project.ron"),
            1 => dir.path().join("acts").join("act_00000.ron"),
            2 => dir.path().join("tile_maps").join("tilemap_00000.ron"),
            _ => dir.path().join("cards").join("fuzz.ron"),
        };
        fs::write(&target, &bytes).unwrap();
        if let Ok(loaded) = load_folder(dir.path()) {
            let _ = validate(&loaded.project, &loaded.sources, Some(dir.path()));
            for diagnostic in &loaded.diagnostics {
                let _ = diagnostic.to_string();
            }
        }
    }

    #[test]
    fn mutated_real_files_load_or_give_diagnostics(flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6)) {
        let source = fs::read(content("lighthouse").join("acts").join("tend_the_lamp.ron")).unwrap();
        let mut bytes = source.clone();
        for (at, value) in flips {
            let index = at.index(bytes.len());
            bytes[index] = value;
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("project.ron"), "(schema_version: 1, name: \"m\")").unwrap();
        fs::create_dir_all(dir.path().join("acts")).unwrap();
        fs::write(dir.path().join("acts").join("tend_the_lamp.ron"), &bytes).unwrap();
        let loaded = load_folder(dir.path()).unwrap();
        let diagnostics = validate(&loaded.project, &loaded.sources, Some(dir.path()));
        prop_assert!(loaded.project.acts.len() == 1 || !loaded.diagnostics.is_empty());
        for diagnostic in loaded.diagnostics.iter().chain(&diagnostics) {
            let _ = diagnostic.to_string();
        }
    }

    #[test]
    fn the_unity_yaml_reader_never_panics_on_arbitrary_text(text in "\\PC{0,400}") {
        let _ = unity_yaml::parse(&text);
        let _ = unity_yaml::parse(&format!("%YAML 1.1\n--- !u!114 &1\nMonoBehaviour:\n  {text}"));
    }

    #[test]
    fn mutated_cultistlike_assets_import_or_give_diagnostics(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let cards = fixture("cultistlike-small").join("Resources").join("Cards");
        let mut bytes = fs::read(cards.join("Lamp.asset")).unwrap();
        for (at, value) in flips {
            let index = at.index(bytes.len());
            bytes[index] = value;
        }
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("Lamp.asset"), &bytes).unwrap();
        fs::copy(cards.join("Lamp.asset.meta"), dir.path().join("Lamp.asset.meta")).unwrap();
        let (project, diagnostics) = import_cultistlike(dir.path()).unwrap();
        prop_assert!(project.cards.len() <= 1);
        prop_assert!(diagnostics.iter().any(|d| d.file.is_some()), "the fixture itself has findings, so a mutation must too");
        let _ = validate(&project, &actforge_runtime::project::Sources::default(), None);
        for diagnostic in &diagnostics {
            let _ = diagnostic.to_string();
        }
    }
}
