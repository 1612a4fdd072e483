//! The editor's document model: every op applied and then inverted leaves the project as it
//! was; renames rewrite every reference; history steps merge per gesture; dirty tracking.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use actforge_editor::document::{Document, History, ItemKey, Op, get_item, where_used, where_used_after};
use actforge_runtime::model::Manifest;
use actforge_runtime::{Kind, Project};
use actforge_tests::{Rng, content, synthetic_project};
use proptest::prelude::*;

/// Every item key of a project, in kind and id order.
fn keys(project: &Project) -> Vec<ItemKey> {
    Kind::ALL
        .iter()
        .flat_map(|&kind| project.entries(kind).into_iter().map(move |(id, _)| ItemKey::new(kind, id)))
        .collect()
}

/// A random op over `project`: set (replace with another item's content, insert a copy under a
/// new id), remove, rename (to a new id, an existing id or an invalid one), set the manifest,
/// or a batch of those.
fn random_op(rng: &mut Rng, project: &Project, depth: usize) -> Op {
    let all = keys(project);
    let Some(key) = all.get(rng.below(all.len())).cloned() else {
        return Op::SetManifest(Box::new(Manifest::new("Empty")));
    };
    let fresh = format!("fresh_{}", rng.below(1000));
    match rng.below(if depth > 0 { 7 } else { 6 }) {
        0 => {
            // Replace with the content of another item of the same kind, under this id.
            let same_kind: Vec<&ItemKey> = all.iter().filter(|other| other.kind == key.kind).collect();
            let other = same_kind[rng.below(same_kind.len())];
            let item = get_item(project, other.kind, &other.id).unwrap().with_id(&key.id);
            Op::put(item)
        }
        1 => Op::put(get_item(project, key.kind, &key.id).unwrap().with_id(&fresh)),
        2 => Op::remove(key),
        3 => Op::Rename { key, to: fresh },
        4 => {
            let to = all.iter().filter(|other| other.kind == key.kind).map(|other| other.id.clone()).next_back();
            // Sometimes an existing id (refused), sometimes an invalid slug (refused).
            Op::Rename { key, to: if rng.chance(50) { to.unwrap_or_default() } else { "Not A Slug".to_owned() } }
        }
        5 => {
            let mut manifest = project.manifest.clone();
            manifest.name = format!("Renamed {}", rng.below(100));
            Op::SetManifest(Box::new(manifest))
        }
        _ => Op::Batch((0..=rng.below(4)).map(|_| random_op(rng, project, depth - 1)).collect()),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn applying_any_op_then_its_inverse_is_the_identity(seed in any::<u64>(), items in 20usize..90, steps in 1usize..12) {
        let original = synthetic_project(items, seed);
        let mut project = original.clone();
        let mut rng = Rng::new(seed ^ 0x5eed);
        let mut inverses = Vec::new();
        for _ in 0..steps {
            let op = random_op(&mut rng, &project, 2);
            let before = project.clone();
            if let Ok(inverse) = op.apply(&mut project) {
                // The inverse alone restores the state before this op …
                let mut undone = project.clone();
                let redo = inverse.clone().apply(&mut undone).unwrap();
                prop_assert_eq!(&undone, &before);
                // … and the inverse of the inverse redoes it.
                redo.apply(&mut undone).unwrap();
                prop_assert_eq!(&undone, &project);
                inverses.push(inverse);
            } else {
                prop_assert_eq!(&project, &before, "a refused op changed the project");
            }
        }
        for inverse in inverses.into_iter().rev() {
            inverse.apply(&mut project).unwrap();
        }
        prop_assert_eq!(&project, &original);
    }

    /// The inspector's users of an item, worked out again from the items each op changed,
    /// stay what a scan of the whole project finds.
    #[test]
    fn users_kept_up_to_date_by_changes_equal_a_whole_scan(seed in any::<u64>(), steps in 1usize..12) {
        let mut document = Document::new(synthetic_project(60, seed));
        let mut rng = Rng::new(seed ^ 0x05e5);
        let all = keys(document.project());
        let watched = all[rng.below(all.len())].clone();
        let mut uses = where_used(document.project(), &watched);
        let mut revision = document.revision();
        for _ in 0..steps {
            let op = random_op(&mut rng, document.project(), 1);
            let _ = document.apply(op);
            let changes = document.changes_since(revision).unwrap();
            uses = where_used_after(document.project(), &watched, uses, &changes.items);
            revision = document.revision();
            prop_assert_eq!(&uses, &where_used(document.project(), &watched));
        }
    }

    #[test]
    fn undoing_every_step_leaves_nothing_unsaved(seed in any::<u64>(), steps in 1usize..10) {
        let original = synthetic_project(40, seed);
        let mut document = Document::new(original.clone());
        let mut history = History::new();
        let mut rng = Rng::new(seed);
        for step in 0..steps {
            let op = random_op(&mut rng, document.project(), 1);
            let _ = history.apply(&mut document, op, "edit", Some(step as u64 % 3));
        }
        while history.undo(&mut document).unwrap().is_some() {}
        prop_assert_eq!(document.project(), &original);
        prop_assert!(!document.has_unsaved_changes(), "{:?}", document.dirty_items());
    }

    /// A gesture merges its edits (keeping the earliest inverse per item): one undo step
    /// restores what was there before it, and redo brings back what it ended with.
    #[test]
    fn one_gesture_of_any_edits_undoes_and_redoes_as_one_step(seed in any::<u64>(), steps in 1usize..16) {
        let original = synthetic_project(30, seed);
        let mut document = Document::new(original.clone());
        let mut history = History::new();
        let mut rng = Rng::new(seed ^ 0x9e57);
        for _ in 0..steps {
            let op = random_op(&mut rng, document.project(), 1);
            // Refused edits leave the document and the step as they were.
            let _ = history.apply(&mut document, op, "stroke", Some(7));
        }
        let finished = document.project().clone();
        prop_assert!(history.undo_len() <= 1);
        history.undo(&mut document).unwrap();
        prop_assert_eq!(document.project(), &original);
        history.redo(&mut document).unwrap();
        prop_assert_eq!(document.project(), &finished);
    }
}

#[test]
fn rename_rewrites_every_reference_in_one_undo_step() {
    let project = synthetic_project(200, 7);
    let key = keys(&project)
        .into_iter()
        .find(|key| key.kind == Kind::Aspect && where_used(&project, key).len() > 1)
        .expect("a used aspect");
    let users = where_used(&project, &key);
    let mut document = Document::new(project.clone());
    let mut history = History::new();
    history
        .apply(&mut document, Op::Rename { key: key.clone(), to: "renamed_aspect".to_owned() }, "Rename", None)
        .unwrap();
    assert!(!document.project().contains(Kind::Aspect, &key.id));
    assert!(document.project().contains(Kind::Aspect, "renamed_aspect"));
    assert!(where_used(document.project(), &key).is_empty());
    let renamed = where_used(document.project(), &ItemKey::new(Kind::Aspect, "renamed_aspect"));
    assert_eq!(renamed.len(), users.len());
    for (user, _) in &users {
        let user = if *user == key { ItemKey::new(Kind::Aspect, "renamed_aspect") } else { user.clone() };
        assert!(document.is_dirty(&user), "{user} should be unsaved");
    }
    assert_eq!(history.undo_len(), 1);
    history.undo(&mut document).unwrap();
    assert_eq!(document.project(), &project);
    assert!(!document.has_unsaved_changes());
    history.redo(&mut document).unwrap();
    assert!(document.project().contains(Kind::Aspect, "renamed_aspect"));
}

#[test]
fn rename_refuses_taken_and_invalid_ids_without_changing_anything() {
    let project = synthetic_project(60, 3);
    let mut document = Document::new(project.clone());
    let revision = document.revision();
    let acts: Vec<ItemKey> = keys(&project).into_iter().filter(|key| key.kind == Kind::Act).collect();
    let taken = Op::Rename { key: acts[0].clone(), to: acts[1].id.clone() };
    assert!(document.apply(taken).unwrap_err().0.contains("already"));
    assert!(document.apply(Op::Rename { key: acts[0].clone(), to: "Bad Id".to_owned() }).is_err());
    assert_eq!(document.project(), &project);
    assert_eq!(document.revision(), revision);
}

#[test]
fn one_gesture_is_one_undo_step_and_dirty_marks_follow_the_content() {
    let project = synthetic_project(40, 1);
    let key = keys(&project).into_iter().find(|key| key.kind == Kind::Card).unwrap();
    let mut document = Document::new(project.clone());
    let mut history = History::new();
    let original = get_item(&project, key.kind, &key.id).unwrap();
    let mut json = original.to_json().unwrap();
    for text in ["L", "La", "Lan"] {
        json["label"] = serde_json::Value::String(text.to_owned());
        let item = actforge_editor::document::item_from_json(key.kind, json.clone()).unwrap();
        history.apply(&mut document, Op::put(item), "Edit label", Some(42)).unwrap();
    }
    history.end_gesture();
    assert_eq!(history.undo_len(), 1);
    assert!(document.is_dirty(&key));
    assert!(document.title().starts_with('●'));
    history.undo(&mut document).unwrap();
    assert_eq!(document.project(), &project);
    assert!(!document.is_dirty(&key));
    assert!(!document.title().starts_with('●'));
    history.redo(&mut document).unwrap();
    assert_eq!(get_item(document.project(), key.kind, &key.id).unwrap().item_label(), "Lan");
    document.mark_saved();
    assert!(!document.has_unsaved_changes());
}

#[test]
fn renaming_a_stat_rewrites_the_formulas_that_read_it_in_one_undo_step() {
    let project = actforge_runtime::project::load_folder(&content("lighthouse")).unwrap().project;
    let key = ItemKey::new(Kind::Stat, "hope");
    let users = where_used(&project, &key);
    assert!(
        users.iter().any(|(user, path)| user.id == "beacon_strength" && path.to_string() == "expr"),
        "formulas that read the stat are listed where it is used: {users:?}"
    );
    let mut document = Document::new(project);
    let mut history = History::new();
    history.apply(&mut document, Op::Rename { key, to: "resolve".to_owned() }, "Rename", None).unwrap();
    let formula =
        |document: &Document| document.project().formulas.get("beacon_strength").unwrap().expr.text().to_owned();
    assert_eq!(formula(&document), "clamp(resolve / 10, 0, 1) * 100");
    assert_eq!(history.undo_len(), 1);
    history.undo(&mut document).unwrap();
    assert_eq!(formula(&document), "clamp(hope / 10, 0, 1) * 100");
}

/// A document says which items changed since an earlier revision of its own, and nothing for a
/// revision it never had.
#[test]
fn a_document_lists_the_items_changed_since_a_revision() {
    let mut document = Document::new(actforge_runtime::project::load_folder(&content("act-demo")).unwrap().project);
    let start = document.revision();
    assert_eq!(document.changes_since(start).unwrap().items.len(), 0);
    let forage = get_item(document.project(), Kind::Act, "forage").unwrap();
    document.apply(Op::put(forage.with_id("forage_again"))).unwrap();
    let middle = document.revision();
    document.apply(Op::Rename { key: ItemKey::new(Kind::Act, "forage"), to: "gather".to_owned() }).unwrap();
    let since_start = document.changes_since(start).unwrap();
    assert!(since_start.items.contains(&ItemKey::new(Kind::Act, "forage_again")));
    assert!(since_start.items.contains(&ItemKey::new(Kind::Act, "forage")));
    assert!(since_start.items.contains(&ItemKey::new(Kind::Act, "gather")));
    let since_middle = document.changes_since(middle).unwrap();
    assert!(!since_middle.items.contains(&ItemKey::new(Kind::Act, "forage_again")));
    assert!(since_middle.items.contains(&ItemKey::new(Kind::Act, "gather")));
    assert!(document.changes_since(start.wrapping_add(1_000_000)).is_none());
}
