//! Issue 33: merging two branches of a project file by file with the merge driver's own
//! function, as git runs `actforge merge` on each file both branches changed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use actforge_runtime::model::{Card, Column, EdgeStyle, Expr, Id, MapEdge, Tile};
use actforge_runtime::project::merge::{FieldConflict, FileRole, Side, merge_file, read_conflict_file, resolve};
use actforge_runtime::project::{Loaded, load_folder, render_files};
use actforge_runtime::{Project, Severity};
use actforge_tests::synthetic_project;

/// Every file of a project: relative path → text.
fn files(project: &Project) -> BTreeMap<PathBuf, String> {
    render_files(project).unwrap().into_iter().collect()
}

/// What git plus the driver make of two branches: each file changed on one side is taken
/// from it, each file changed on both is merged by `merge_file`. The merged folder is
/// written to `into` and loaded; also returns each conflicted file's conflicts.
fn merge_branches(
    base: &Project,
    ours: &Project,
    theirs: &Project,
    into: &Path,
) -> (Loaded, Vec<(PathBuf, Vec<FieldConflict>)>) {
    let (base, ours, theirs) = (files(base), files(ours), files(theirs));
    let paths: BTreeSet<&PathBuf> = base.keys().chain(ours.keys()).chain(theirs.keys()).collect();
    let mut conflicted = Vec::new();
    for path in paths {
        let (b, o, t) = (base.get(path), ours.get(path), theirs.get(path));
        let text = if o == t || b == t {
            o.cloned()
        } else if b == o {
            t.cloned()
        } else {
            let (o, t) = (o.expect("not removed on our side"), t.expect("not removed on their side"));
            let merged = merge_file(FileRole::of(path).unwrap(), b.map(String::as_str), o, t).unwrap();
            if !merged.conflicts.is_empty() {
                conflicted.push((path.clone(), merged.conflicts));
            }
            Some(merged.text)
        };
        if let Some(text) = text {
            let file = into.join(path);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, text).unwrap();
        }
    }
    (load_folder(into).unwrap(), conflicted)
}

/// Edit `n` of a designer's 500: every edit touches a field or tile the other designer leaves
/// alone, though most touch an item the other designer edits too.
fn edit(project: &mut Project, side: Side, n: usize) {
    let ours = side == Side::Ours;
    let act_ids: Vec<String> = project.acts.iter().map(|act| act.id.as_str().to_owned()).collect();
    let deck_ids: Vec<String> = project.decks.iter().map(|deck| deck.id.as_str().to_owned()).collect();
    // The generated cards only: those the designers add differ between the sides.
    let card_ids: Vec<String> =
        project.cards.iter().map(|card| card.id.as_str().to_owned()).filter(|id| id.starts_with("card_")).collect();
    let rule_ids: Vec<String> = project.rules.iter().map(|rule| rule.id.as_str().to_owned()).collect();
    let map_id = project.tile_maps.iter().next().unwrap().id.as_str().to_owned();
    let node_map_id = project.node_maps.iter().next().unwrap().id.as_str().to_owned();
    match n % 5 {
        // The same acts: we retitle them, they rewrite their text.
        0 => {
            let act = project.acts.get_mut(&act_ids[(n / 5) % act_ids.len()]).unwrap();
            if ours {
                act.label = format!("Our title {n}");
            } else {
                act.text = format!("Their text {n}");
            }
        }
        // The same decks: each adds a card of their own at the end.
        1 => {
            let deck = project.decks.get_mut(&deck_ids[(n / 5) % deck_ids.len()]).unwrap();
            let card = &card_ids[(n * 7 + usize::from(ours)) % card_ids.len()];
            deck.fragments.push(Id::new(card.as_str()));
        }
        // One tile map: we build in the west half, they dig in the east half.
        2 => {
            let map = project.tile_maps.get_mut(&map_id).unwrap();
            let half = map.width / 2;
            let (x, y) =
                ((n / 5) as u16 % half + if ours { 0 } else { half }, (n / 5 / usize::from(half)) as u16 % map.depth);
            let at = map.columns.iter().position(|column| (column.x, column.y) == (x, y));
            match (at, ours) {
                (Some(at), true) => Arc::make_mut(&mut map.columns[at]).tiles.push(Tile::cube(40 + (n % 7) as u16)),
                (Some(at), false) => {
                    map.columns.remove(at);
                }
                (None, _) => {
                    let column = Column { x, y, tiles: vec![Tile::cube(if ours { 30 } else { 0 })] };
                    let at = map.columns.partition_point(|other| (other.y, other.x) < (y, x));
                    map.columns.insert(at, Arc::new(column));
                }
            }
        }
        // One node map: we move nodes, they rename them; both add paths of their own.
        3 => {
            let map = project.node_maps.get_mut(&node_map_id).unwrap();
            let count = map.nodes.len();
            let node = &mut map.nodes[(n / 5) % count];
            if ours {
                node.x += 1.0;
            } else {
                node.label = format!("Their node {n}");
            }
            // Forward paths keep the map acyclic: ours from the first node, theirs from the second.
            let from = if ours { "n0" } else { "n1" };
            let to = format!("n{}", 2 + (n / 5) % (count - 2));
            if !map.edges.iter().any(|edge| edge.from.as_str() == from && edge.to.as_str() == to) {
                map.edges.push(MapEdge {
                    from: Id::new(from),
                    to: Id::new(to.as_str()),
                    style: EdgeStyle::Dashed,
                    unlock: None,
                    cost: Expr::int(if ours { 2 } else { 3 }),
                });
            }
        }
        // Rules: we change the step, they the label; both add new cards of their own.
        _ => {
            if n % 10 == 4 {
                let rule = project.rules.get_mut(&rule_ids[(n / 10) % rule_ids.len()]).unwrap();
                if ours {
                    rule.step += 1;
                } else {
                    rule.label = format!("Their rule {n}");
                }
            } else {
                let prefix = if ours { "ours" } else { "theirs" };
                project.cards.insert(Card {
                    id: Id::new(format!("{prefix}_card_{n}")),
                    label: format!("New card {n}"),
                    ..Card::default()
                });
            }
        }
    }
}

#[test]
fn a_thousand_edits_of_different_fields_and_tiles_merge_without_a_conflict() {
    let base = synthetic_project(600, 33);
    let mut ours = base.clone();
    let mut theirs = base.clone();
    for n in 0..500 {
        edit(&mut ours, Side::Ours, n);
        edit(&mut theirs, Side::Theirs, n);
    }
    // What a careful designer would get by making both sets of edits by hand, ours first.
    let mut expected = ours.clone();
    for n in 0..500 {
        edit(&mut expected, Side::Theirs, n);
    }
    let folder = tempfile::tempdir().unwrap();
    let (merged, conflicts) = merge_branches(&base, &ours, &theirs, folder.path());
    assert_eq!(conflicts, Vec::new(), "no conflicts");
    assert!(merged.diagnostics.iter().all(|d| d.severity != Severity::Error), "{:?}", merged.diagnostics);
    assert!(merged.conflicts.is_empty());
    // Both sides' edits are there, and nothing else changed.
    let diff = actforge_runtime::project::diff::diff_projects(&expected, &merged.project);
    assert!(diff.is_empty(), "{}", actforge_runtime::project::diff::render_changes(&diff, 5));
    // Lists come out in the expected order too (the diff above pairs elements by id).
    assert!(merged.project == expected, "the merged project is the expected one");
    assert_ne!(merged.project, base);
}

#[test]
fn true_conflicts_are_exactly_the_fields_changed_both_ways_and_resolve_by_side() {
    let base = synthetic_project(300, 7);
    let (mut ours, mut theirs) = (base.clone(), base.clone());
    let act = base.acts.iter().next().unwrap().id.as_str().to_owned();
    ours.acts.get_mut(&act).unwrap().label = "Ours".into();
    theirs.acts.get_mut(&act).unwrap().label = "Theirs".into();
    // A clean edit beside the conflict in the same act.
    theirs.acts.get_mut(&act).unwrap().end_text = "Their end".into();
    // The same new card on both sides, with different labels.
    for (project, label) in [(&mut ours, "Our new"), (&mut theirs, "Their new")] {
        project.cards.insert(Card { id: Id::new("twin"), label: label.into(), ..Card::default() });
    }
    // One node moved both ways; one column rebuilt both ways.
    let node_map = base.node_maps.iter().next().unwrap().id.as_str().to_owned();
    ours.node_maps.get_mut(&node_map).unwrap().nodes[1].x = 5.0;
    theirs.node_maps.get_mut(&node_map).unwrap().nodes[1].x = 9.0;
    let tile_map = base.tile_maps.iter().next().unwrap().id.as_str().to_owned();
    let (x, y) = {
        let column = &base.tile_maps.get(&tile_map).unwrap().columns[0];
        (column.x, column.y)
    };
    Arc::make_mut(&mut ours.tile_maps.get_mut(&tile_map).unwrap().columns[0]).tiles = vec![Tile::cube(3)];
    Arc::make_mut(&mut theirs.tile_maps.get_mut(&tile_map).unwrap().columns[0]).tiles = vec![Tile::cube(7)];

    let folder = tempfile::tempdir().unwrap();
    let (merged, conflicts) = merge_branches(&base, &ours, &theirs, folder.path());
    let found: Vec<(String, String)> = conflicts
        .iter()
        .flat_map(|(path, fields)| fields.iter().map(move |field| (path.display().to_string(), field.field.clone())))
        .collect();
    assert_eq!(
        found,
        vec![
            (format!("acts/{act}.ron"), "label".to_owned()),
            ("cards/twin.ron".to_owned(), "label".to_owned()),
            (format!("node_maps/{node_map}.ron"), "nodes[n1].x".to_owned()),
            (format!("tile_maps/{tile_map}.ron"), format!("columns[{x},{y}].tiles")),
        ]
    );
    // The project loads with our side of each, the clean edit in, and an error per conflict
    // at its line in the file.
    assert_eq!(merged.project.acts.get(&act).unwrap().label, "Ours");
    assert_eq!(merged.project.acts.get(&act).unwrap().end_text, "Their end");
    assert_eq!(merged.conflicts.len(), 4);
    let errors: Vec<_> = merged.diagnostics.iter().filter(|d| d.message.starts_with("merge conflict")).collect();
    assert_eq!(errors.len(), 4, "{errors:?}");
    for error in &errors {
        let file = error.file.as_ref().unwrap();
        let text = std::fs::read_to_string(file).unwrap();
        let position = error.position.unwrap();
        let line = text.lines().nth(position.line - 1).unwrap();
        assert!(
            line[position.col - 1..].starts_with('('),
            "{}:{position:?} points at a conflict: {line}",
            file.display()
        );
    }
    assert!(
        merged.protected.contains(&folder.path().join(format!("acts/{act}.ron"))),
        "a save leaves the conflict file"
    );

    // Choosing their side gives their value, and a plain item file again.
    let text = std::fs::read_to_string(folder.path().join(format!("acts/{act}.ron"))).unwrap();
    let file = read_conflict_file::<actforge_runtime::model::Act>(&text).unwrap().unwrap();
    let resolved = resolve(&file.merged, &file.conflicts, &[Side::Theirs]).unwrap();
    assert_eq!(resolved.label, "Theirs");
    assert_eq!(resolved.end_text, "Their end");
}

#[test]
fn lists_without_ids_keep_both_sides_insertions_and_conflict_only_where_both_changed_an_element() {
    use actforge_runtime::project::merge::merge_sequences;
    let list = |items: &[&str]| -> Vec<serde_json::Value> { items.iter().map(|item| (*item).into()).collect() };
    let base = list(&["a", "b", "c"]);
    // Both append: both kept, ours first.
    assert_eq!(
        merge_sequences(&base, &list(&["a", "b", "c", "x"]), &list(&["a", "b", "c", "y"])),
        Some(list(&["a", "b", "c", "x", "y"]))
    );
    // One removes, the other inserts elsewhere.
    assert_eq!(merge_sequences(&base, &list(&["b", "c"]), &list(&["a", "b", "y", "c"])), Some(list(&["b", "y", "c"])));
    // Repeats are kept apart (a deck with three of one card).
    let deck = list(&["h", "h", "h"]);
    assert_eq!(merge_sequences(&deck, &list(&["h", "h"]), &list(&["h", "h", "h", "w"])), Some(list(&["h", "h", "w"])));
    // The same element replaced both ways.
    assert_eq!(merge_sequences(&base, &list(&["a", "x", "c"]), &list(&["a", "y", "c"])), None);
    // The same change on both sides is made once.
    assert_eq!(merge_sequences(&base, &list(&["a", "x", "c"]), &list(&["a", "x", "c"])), Some(list(&["a", "x", "c"])));
}
