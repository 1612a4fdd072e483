//! Project folders and bundles end to end: round trips, byte stability, bad files.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use actforge_runtime::model::{ActLink, Kind};
use actforge_runtime::project::{
    BundleFormat, ProjectError, bundle_text, export_bundle, import_bundle, load_bundle, load_folder, parse_bundle,
    render_files, save_folder,
};
use actforge_runtime::validate::validate;
use actforge_runtime::{Position, Severity};
use actforge_tests::content;

/// Every file below `root` (relative path → bytes), ignoring folders.
fn files_below(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push((path.strip_prefix(root).unwrap().to_owned(), fs::read(&path).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// A writable copy of a bundled content project.
fn copy_of(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (relative, bytes) in files_below(&content(name)) {
        let target = dir.path().join(relative);
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, bytes).unwrap();
    }
    dir
}

#[test]
fn the_demo_uses_every_kind_and_has_no_problems() {
    let loaded = load_folder(&content("lighthouse")).unwrap();
    assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
    for kind in Kind::ALL {
        assert!(loaded.project.count(*kind) > 0, "the demo has no {}", kind.plural_label());
    }
    let found = validate(&loaded.project, &loaded.sources, Some(&content("lighthouse")));
    assert!(found.is_empty(), "{}", found.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"));
}

#[test]
fn every_kind_round_trips_through_a_folder_and_both_bundle_formats() {
    let original = load_folder(&content("lighthouse")).unwrap().project;
    let dir = tempfile::tempdir().unwrap();
    save_folder(&original, dir.path(), &BTreeSet::new()).unwrap();
    let reloaded = load_folder(dir.path()).unwrap();
    assert!(reloaded.diagnostics.is_empty());
    assert_eq!(reloaded.project, original);
    for format in [BundleFormat::Ron, BundleFormat::Json] {
        let text = bundle_text(&original, format).unwrap();
        let loaded = parse_bundle(&text, Path::new("bundle")).unwrap();
        assert!(loaded.diagnostics.is_empty());
        assert_eq!(loaded.project, original, "{format:?}");
    }
}

#[test]
fn output_is_byte_stable_and_the_demo_is_canonical() {
    let loaded = load_folder(&content("lighthouse")).unwrap();
    let rendered = render_files(&loaded.project).unwrap();
    for (relative, text) in &rendered {
        let on_disk = fs::read_to_string(content("lighthouse").join(relative)).unwrap();
        assert_eq!(&on_disk, text, "{} is not in canonical layout; run `actforge fmt`", relative.display());
    }
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    save_folder(&loaded.project, first.path(), &BTreeSet::new()).unwrap();
    let again = load_folder(first.path()).unwrap().project;
    save_folder(&again, second.path(), &BTreeSet::new()).unwrap();
    assert_eq!(files_below(first.path()), files_below(second.path()));
    let report = save_folder(&again, second.path(), &BTreeSet::new()).unwrap();
    assert!(report.written.is_empty(), "an unchanged project writes nothing: {:?}", report.written);
    assert_eq!(report.unchanged, rendered.len());
}

#[test]
fn project_to_bundle_to_project_is_byte_identical() {
    let project = load_folder(&content("lighthouse")).unwrap().project;
    for (format, name) in [(BundleFormat::Ron, "demo.ron"), (BundleFormat::Json, "demo.json")] {
        let dir = tempfile::tempdir().unwrap();
        let bundle = dir.path().join(name);
        export_bundle(&project, &bundle, format).unwrap();
        let restored = dir.path().join("restored");
        import_bundle(&bundle, &restored).unwrap();
        // Every content file comes back; the pack's playtests (`tests/`) are not in a bundle.
        let mut content_files = files_below(&content("lighthouse"));
        content_files.retain(|(path, _)| !path.starts_with("tests"));
        assert_eq!(files_below(&restored), content_files, "{format:?}");
        // Written in a hidden sibling folder renamed into place (issue 27.8): nothing is left
        // beside it, and an existing empty folder is a fine target too.
        let beside: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(beside.len(), 2, "{beside:?}");
        let empty = dir.path().join("empty");
        fs::create_dir(&empty).unwrap();
        import_bundle(&bundle, &empty).unwrap();
        assert_eq!(files_below(&empty), content_files, "{format:?}");
    }
}

#[test]
fn a_malformed_file_is_one_diagnostic_with_line_and_column_and_the_rest_loads() {
    let dir = copy_of("lighthouse");
    let broken = dir.path().join("acts").join("quiet_night.ron");
    fs::write(
        &broken,
        "(\n    id: \"quiet_night\",\n    label: \"A Quiet Night\"\n    end_text: \"missing comma above\",\n)\n",
    )
    .unwrap();
    let original = load_folder(&content("lighthouse")).unwrap().project;
    let loaded = load_folder(dir.path()).unwrap();
    assert_eq!(loaded.diagnostics.len(), 1, "{:?}", loaded.diagnostics);
    let diagnostic = &loaded.diagnostics[0];
    assert_eq!(diagnostic.severity, Severity::Error);
    assert_eq!(diagnostic.file.as_deref(), Some(broken.as_path()));
    assert_eq!(diagnostic.position, Some(Position { line: 4, col: 5 }), "{diagnostic}");
    assert!(diagnostic.to_string().starts_with(&format!("{}:4:5: error:", broken.display())), "{diagnostic}");
    assert_eq!(loaded.project.item_count(), original.item_count() - 1);
    assert!(!loaded.project.acts.contains("quiet_night"));
    assert!(loaded.project.acts.contains("tend_the_lamp"));

    // Saving never overwrites the file that did not load.
    let before = fs::read(&broken).unwrap();
    let report = save_folder(&loaded.project, dir.path(), &loaded.protected).unwrap();
    assert_eq!(fs::read(&broken).unwrap(), before);
    assert!(report.written.is_empty());
}

#[test]
fn a_dangling_reference_is_found_at_its_line_and_column() {
    let dir = copy_of("lighthouse");
    let mut project = load_folder(dir.path()).unwrap().project;
    project.acts.get_mut("quiet_night").unwrap().next_acts.push(ActLink::to("no_such_act"));
    save_folder(&project, dir.path(), &BTreeSet::new()).unwrap();
    let loaded = load_folder(dir.path()).unwrap();
    let found = validate(&loaded.project, &loaded.sources, Some(dir.path()));
    assert_eq!(found.len(), 1, "{found:?}");
    let text = found[0].to_string();
    let file = dir.path().join("acts").join("quiet_night.ron");
    let expected =
        format!("{}:5:23: error: act `quiet_night`, next_acts[0].act: there is no act `no_such_act`", file.display());
    assert_eq!(text, expected, "file:\n{}", fs::read_to_string(&file).unwrap());
}

#[test]
fn a_newer_schema_version_is_refused_with_a_clear_message() {
    let dir = copy_of("lighthouse");
    let manifest = dir.path().join("project.ron");
    let text = fs::read_to_string(&manifest).unwrap().replace("schema_version: 1", "schema_version: 99");
    fs::write(&manifest, text).unwrap();
    let error = load_folder(dir.path()).unwrap_err();
    assert!(matches!(error, ProjectError::NewerSchema { found: 99, .. }), "{error}");
    assert!(error.to_string().contains("update Actforge"), "{error}");

    let project = load_folder(&content("lighthouse")).unwrap().project;
    let bundle = bundle_text(&project, BundleFormat::Ron).unwrap().replace("schema_version: 1", "schema_version: 99");
    assert!(matches!(parse_bundle(&bundle, Path::new("b.ron")), Err(ProjectError::NewerSchema { .. })));
    let json =
        bundle_text(&project, BundleFormat::Json).unwrap().replace("\"schema_version\": 1", "\"schema_version\": 99");
    assert!(matches!(parse_bundle(&json, Path::new("b.json")), Err(ProjectError::NewerSchema { .. })));
    // A newer bundle may hold fields this version does not know: its version is still what
    // the error names, not the unknown field.
    let newer_fields = json.replacen('{', "{\n  \"added_later\": [1, 2],", 1);
    assert!(matches!(parse_bundle(&newer_fields, Path::new("b.json")), Err(ProjectError::NewerSchema { .. })));
    // Not a bundle at all, though it parses as one.
    let other = parse_bundle("{\"format\": \"tiled-map\", \"schema_version\": 1}", Path::new("b.json")).unwrap_err();
    assert!(other.to_string().contains("not an Actforge bundle"), "{other}");
}

#[test]
fn an_id_that_does_not_match_its_file_name_is_not_loaded() {
    let dir = copy_of("lighthouse");
    fs::rename(dir.path().join("cards").join("ash.ron"), dir.path().join("cards").join("cinders.ron")).unwrap();
    let loaded = load_folder(dir.path()).unwrap();
    assert_eq!(loaded.diagnostics.len(), 1);
    assert!(loaded.diagnostics[0].message.contains("does not match the file name `cinders.ron`"));
    assert!(loaded.protected.contains(&dir.path().join("cards").join("cinders.ron")));
}

#[test]
fn files_that_are_not_text_or_not_items_are_diagnostics() {
    let dir = copy_of("lighthouse");
    fs::write(dir.path().join("cards").join("binary.ron"), [0xff, 0xfe, 0x00, 0x80]).unwrap();
    fs::write(dir.path().join("cards").join("notes.txt"), "stray").unwrap();
    let loaded = load_folder(dir.path()).unwrap();
    let messages: Vec<String> = loaded.diagnostics.iter().map(ToString::to_string).collect();
    assert!(messages.iter().any(|m| m.contains("binary.ron:1:1: error: this file is not UTF-8 text")), "{messages:?}");
    assert!(messages.iter().any(|m| m.contains("notes.txt: warning: ignored")), "{messages:?}");
}

#[test]
fn a_bundle_cannot_write_outside_the_target_folder() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("evil.ron");
    fs::write(
        &bundle,
        "(format: \"actforge-bundle\", schema_version: 1, project: (schema_version: 1, name: \"x\"), \
         aspects: [(id: \"../../escaped\")])",
    )
    .unwrap();
    let out = dir.path().join("out");
    let error = import_bundle(&bundle, &out).unwrap_err();
    assert!(matches!(error, ProjectError::InvalidId { .. }), "{error}");
    assert!(!dir.path().join("escaped.ron").exists());
    assert!(!out.join("project.ron").exists(), "nothing is written when an id is invalid");
}

#[test]
fn a_bundle_with_repeated_ids_reports_them_at_their_position() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("twice.ron");
    fs::write(
        &bundle,
        "(\n    format: \"actforge-bundle\",\n    schema_version: 1,\n    project: (schema_version: 1, name: \"x\"),\n    \
         aspects: [\n        (id: \"salt\"),\n        (id: \"salt\", label: \"Salt\"),\n    ],\n)\n",
    )
    .unwrap();
    let loaded = load_bundle(&bundle).unwrap();
    assert_eq!(loaded.diagnostics.len(), 1);
    assert_eq!(loaded.diagnostics[0].position, Some(Position { line: 7, col: 14 }), "{}", loaded.diagnostics[0]);
    assert_eq!(loaded.project.aspects.get("salt").unwrap().label, "Salt");
}

#[test]
fn repeated_ids_across_kinds_are_reported_in_kind_then_list_order_from_ron_and_json() {
    // Kinds are keyed on separate threads; the report must still read as one pass would.
    let ron = "(\n    format: \"actforge-bundle\",\n    schema_version: 1,\n    project: (schema_version: 1, name: \"x\"),\n    \
               aspects: [\n        (id: \"salt\"),\n        (id: \"salt\"),\n    ],\n    \
               cards: [\n        (id: \"b\"),\n        (id: \"a\"),\n        (id: \"b\"),\n        (id: \"a\"),\n    ],\n    \
               equipment: [\n        (id: \"sword\"),\n        (id: \"sword\"),\n    ],\n)\n";
    let json = "{\"format\": \"actforge-bundle\", \"schema_version\": 1, \"project\": {\"schema_version\": 1, \"name\": \"x\"}, \
                \"equipment\": [{\"id\": \"sword\"}, {\"id\": \"sword\"}], \
                \"cards\": [{\"id\": \"b\"}, {\"id\": \"a\"}, {\"id\": \"b\"}, {\"id\": \"a\"}], \
                \"aspects\": [{\"id\": \"salt\"}, {\"id\": \"salt\"}]}\n";
    let expected = [(Kind::Aspect, "salt"), (Kind::Card, "b"), (Kind::Card, "a"), (Kind::Equipment, "sword")];
    for (text, name) in [(ron, "twice.ron"), (json, "twice.json")] {
        for _ in 0..20 {
            let loaded = parse_bundle(text, Path::new(name)).unwrap();
            let reported: Vec<(Kind, &str)> = loaded
                .diagnostics
                .iter()
                .map(|diagnostic| {
                    let (kind, id) = diagnostic.item.as_ref().unwrap();
                    (*kind, id.as_str())
                })
                .collect();
            assert_eq!(reported, expected, "{name}");
            assert!(loaded.diagnostics.iter().all(|diagnostic| diagnostic.position.is_some()), "{name}");
        }
    }
}

#[test]
fn a_broken_bundle_is_refused_with_line_and_column() {
    let error = parse_bundle("(\n  format: \"actforge-bundle\",\n  schema_version: 1\n  oops\n)", Path::new("b.ron"))
        .unwrap_err();
    let ProjectError::Unreadable(diagnostic) = error else { panic!("{error}") };
    assert_eq!(diagnostic.position.map(|p| p.line), Some(4), "{diagnostic}");
    let error =
        parse_bundle("{\"format\": \"actforge-bundle\",\n \"schema_version\": }", Path::new("b.json")).unwrap_err();
    let ProjectError::Unreadable(diagnostic) = error else { panic!("{error}") };
    assert_eq!(diagnostic.position.map(|p| p.line), Some(2), "{diagnostic}");
    assert!(matches!(parse_bundle("(name: \"not a bundle\")", Path::new("x.ron")), Err(ProjectError::Unreadable(_))));
}

#[test]
fn a_hand_written_bundle_with_comments_and_raw_strings_loads() {
    let text = r##"// a bundle written by hand
(
    format: "actforge-bundle", // the marker
    schema_version: 1,
    project: (schema_version: 1, name: "hand"),
    aspects: [
        /* a comment with ) and ] inside */
        (id: "salt", label: r#"Salt "]) the [( bracketed"#),
        (id: "tide", description: "a \"quoted\" ), ] text"),
    ],
)
"##;
    let loaded = parse_bundle(text, Path::new("hand.ron")).unwrap();
    assert_eq!(loaded.project.aspects.get("salt").unwrap().label, "Salt \"]) the [( bracketed");
    assert_eq!(loaded.project.aspects.get("tide").unwrap().description, "a \"quoted\" ), ] text");
}

#[test]
fn a_type_error_inside_one_item_of_a_bundle_is_reported_at_its_position() {
    let project = load_folder(&content("lighthouse")).unwrap().project;
    let text = bundle_text(&project, BundleFormat::Ron).unwrap();
    let broken = text.replacen("duration_ticks: 100", "duration_ticks: [100]", 1);
    let line = broken.lines().position(|line| line.contains("duration_ticks: [100]")).unwrap() + 1;
    let error = parse_bundle(&broken, Path::new("b.ron")).unwrap_err();
    let ProjectError::Unreadable(diagnostic) = error else { panic!("{error}") };
    assert_eq!(diagnostic.position.map(|p| p.line), Some(line), "{diagnostic}");
}
