//! Incremental validation equals full validation: random edits (a field set to another item's
//! id, a broken or valid formula, an empty text; an item removed, renamed or copied) applied
//! one by one, the incremental result compared with `validate` after each.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::sync::Arc;

use actforge_runtime::engine::Content;
use actforge_runtime::model::{Item, Items, Kind, KindVisitor, KindVisitorMut};
use actforge_runtime::project::{Sources, load_folder};
use actforge_runtime::sim::{Progress, SimOptions, simulate};
use actforge_runtime::validate::{Validation, validate};
use actforge_runtime::{Diagnostic, Project};
use actforge_tests::{content, synthetic_project};
use proptest::prelude::*;
use serde_json::Value;

/// Texts an edit may write into a string field: ids of every kind, formulas good and bad,
/// names formulas read.
fn replacements(project: &Project) -> Vec<String> {
    let mut out: Vec<String> = Kind::ALL
        .iter()
        .flat_map(|kind| project.entries(*kind).into_iter().take(6).map(|(id, _)| id.to_owned()))
        .collect();
    out.extend(
        ["", "1 +", "2 * 3", "nowhere", "x + 1", "f.nothing", "max(1, 2)", "0/0", "Bad Id", "c.hp + 1", "turn"]
            .map(str::to_owned),
    );
    out
}

/// Every string leaf of `value`, as JSON pointers.
fn string_leaves(value: &Value, at: &str, out: &mut Vec<String>) {
    match value {
        Value::String(_) => out.push(at.to_owned()),
        Value::Array(list) => {
            for (index, item) in list.iter().enumerate() {
                string_leaves(item, &format!("{at}/{index}"), out);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                string_leaves(item, &format!("{at}/{}", key.replace('~', "~0").replace('/', "~1")), out);
            }
        }
        _ => {}
    }
}

/// One random edit of the item at `index` of `kind`: what it does, by `how`.
struct Edit<'a> {
    kind: Kind,
    index: usize,
    how: usize,
    pick: usize,
    texts: &'a [String],
    /// The items changed: (kind, id).
    changed: Vec<(Kind, String)>,
}

impl KindVisitorMut for Edit<'_> {
    fn visit<T: Item>(&mut self, items: &mut Items<T>) {
        if T::KIND != self.kind || items.is_empty() {
            return;
        }
        let Some(id) = items.ids().nth(self.index % items.len()).map(|id| id.as_str().to_owned()) else { return };
        let text = self.texts[self.pick % self.texts.len()].clone();
        self.changed.push((T::KIND, id.clone()));
        match self.how % 8 {
            // Removed.
            0 => {
                items.remove(&id);
            }
            // Copied under a new id (or over another item).
            1 => {
                let mut copy = items.get(&id).unwrap().clone();
                let new_id = if text.is_empty() { format!("{id}_copy") } else { text };
                *copy.id_mut() = actforge_runtime::model::Id::new(new_id.as_str());
                self.changed.push((T::KIND, new_id));
                items.insert(copy);
            }
            // A string field set to another text (the id included: a rename without fixes).
            _ => {
                let item = items.get(&id).unwrap();
                let mut value = serde_json::to_value(item).unwrap();
                let mut leaves = Vec::new();
                string_leaves(&value, "", &mut leaves);
                let Some(leaf) = leaves.get(self.pick / 7 % leaves.len().max(1)) else { return };
                if let Some(slot) = value.pointer_mut(leaf) {
                    *slot = Value::String(text);
                }
                let Ok(edited) = serde_json::from_value::<T>(value) else { return };
                let new_id = edited.id().as_str().to_owned();
                if new_id != id {
                    items.remove(&id);
                    self.changed.push((T::KIND, new_id));
                }
                items.insert(edited);
            }
        }
    }
}

/// The number of items of each kind present (kinds with items only).
fn kinds_with_items(project: &Project) -> Vec<Kind> {
    struct Present(Vec<Kind>);
    impl KindVisitor for Present {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            if !items.is_empty() {
                self.0.push(T::KIND);
            }
        }
    }
    let mut present = Present(Vec::new());
    project.visit_kinds(&mut present);
    present.0
}

fn texts(diagnostics: &[Diagnostic]) -> Vec<String> {
    diagnostics.iter().map(ToString::to_string).collect()
}

/// Applies one random edit (`edit`: kind, item, how, what text) to `project`; returns the items
/// it changed.
fn apply_edit(project: &mut Project, texts: &[String], edit: (usize, usize, usize, usize)) -> Vec<(Kind, String)> {
    let (kind, index, how, pick) = edit;
    let kinds = kinds_with_items(project);
    let Some(kind) = kinds.get(kind % kinds.len().max(1)).copied() else { return Vec::new() };
    let mut edit = Edit { kind, index, how, pick, texts, changed: Vec::new() };
    project.visit_kinds_mut(&mut edit);
    edit.changed
}

/// Applies `edits` one by one, checking the incremental result against `validate` after each.
fn check_edits(mut project: Project, edits: &[(usize, usize, usize, usize)]) -> Result<(), TestCaseError> {
    let sources = Sources::default();
    let mut validation = Validation::new(&project, &sources, None);
    prop_assert_eq!(texts(&validation.diagnostics()), texts(&validate(&project, &sources, None)));
    let texts_pool = replacements(&project);
    for &edit in edits {
        let changed = apply_edit(&mut project, &texts_pool, edit);
        validation.update(&project, &sources, None, changed.iter().map(|(kind, id)| (*kind, id.as_str())));
        let full = validate(&project, &sources, None);
        prop_assert_eq!(texts(&validation.diagnostics()), texts(&full), "after editing {:?} ({:?})", changed, edit);
    }
    Ok(())
}

/// What content plays: the summary of a few seeded random runs (or its errors).
fn plays(content: &Result<Arc<Content>, actforge_runtime::engine::ContentError>) -> Result<String, Vec<String>> {
    let content = content.as_ref().map_err(|error| texts(&error.problems))?;
    let options = SimOptions { runs: 3, seed: 9, threads: 1, max_moves: 200, ..SimOptions::default() };
    match simulate(content, &options, &Progress::default()) {
        Ok(summary) => Ok(serde_json::to_string(&summary).unwrap()),
        Err(error) => Err(vec![error.to_string()]),
    }
}

/// Applies `edits` one by one, recompiling only what each changed, and checks that the content
/// plays (or fails) as the whole project compiled afresh does.
fn check_recompiles(mut project: Project, edits: &[(usize, usize, usize, usize)]) -> Result<(), TestCaseError> {
    let sources = Sources::default();
    let mut validation = Validation::new(&project, &sources, None);
    let mut content = Content::compile_validated(project.clone(), &validation).ok().map(Arc::new);
    let mut since: Vec<(Kind, String)> = Vec::new();
    let texts_pool = replacements(&project);
    for &edit in edits {
        let changed = apply_edit(&mut project, &texts_pool, edit);
        validation.update(&project, &sources, None, changed.iter().map(|(kind, id)| (*kind, id.as_str())));
        since.extend(changed);
        let Some(previous) = &content else {
            content = Content::compile_validated(project.clone(), &validation).ok().map(Arc::new);
            since.clear();
            continue;
        };
        let recompiled =
            Content::recompile(previous, &project, since.iter().map(|(kind, id)| (*kind, id.as_str())), &validation)
                .map(Arc::new);
        let whole = Content::compile(project.clone()).map(Arc::new);
        prop_assert_eq!(plays(&recompiled), plays(&whole), "after editing {:?}", since);
        if let Ok(recompiled) = recompiled {
            content = Some(recompiled);
            since.clear();
        }
    }
    Ok(())
}

fn edits() -> impl Strategy<Value = Vec<(usize, usize, usize, usize)>> {
    prop::collection::vec((any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()), 1..25)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn incremental_validation_equals_full_validation_on_synthetic_projects(seed in any::<u64>(), edits in edits()) {
        check_edits(synthetic_project(150, seed), &edits)?;
    }

    #[test]
    fn incremental_validation_equals_full_validation_on_the_bundled_packs(pack in 0usize..7, edits in edits()) {
        let packs = ["act-demo", "era-synthesis", "knucklebones", "knucklebones-extended", "lighthouse", "srpg-skirmish", "issues-sim"];
        let project = load_folder(&content(packs[pack])).unwrap().project;
        check_edits(project, &edits)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn recompiled_content_plays_as_the_whole_project_compiled(pack in 0usize..7, edits in prop::collection::vec((any::<usize>(), any::<usize>(), any::<usize>(), any::<usize>()), 1..8)) {
        let packs = ["act-demo", "era-synthesis", "knucklebones", "knucklebones-extended", "lighthouse", "srpg-skirmish", "issues-sim"];
        let project = load_folder(&content(packs[pack])).unwrap().project;
        check_recompiles(project, &edits)?;
    }
}

#[test]
fn an_edit_of_one_card_checks_few_items_of_a_large_project() {
    let mut project = synthetic_project(2000, 7);
    let sources = Sources::default();
    let mut validation = Validation::new(&project, &sources, None);
    assert_eq!(validation.last_checked(), project.item_count());
    let id = project.cards.ids().next().unwrap().as_str().to_owned();
    project.cards.get_mut(&id).unwrap().description = "A new text".to_owned();
    validation.update(&project, &sources, None, [(Kind::Card, id.as_str())]);
    assert!(validation.last_checked() < 50, "checked {} items", validation.last_checked());
    assert_eq!(texts(&validation.diagnostics()), texts(&validate(&project, &sources, None)));
}
