//! Incremental validation: the findings of each item are kept with what the item's checks read
//! of the rest of the project, so an edit checks again only the items it changed, the items
//! that read them, and — when the names formulas can use change — the items holding formulas.
//! The result equals [`super::validate`] of the same project (a property test holds it to that).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::path::Path;

use crate::diagnostic::{Diagnostic, Severity};
use crate::formula::ProjectNames;
use crate::model::{Item, Items, Kind, KindVisitor, Project, Read};
use crate::project::Sources;

use super::{ItemFindings, Validator, named_formulas};

/// The kinds whose content [`ProjectNames`] is built from: a change to another kind cannot
/// change what formulas may name.
const NAME_KINDS: [Kind; 10] = [
    Kind::Stat,
    Kind::Card,
    Kind::Aspect,
    Kind::Era,
    Kind::Board,
    Kind::Unit,
    Kind::NodeMap,
    Kind::Skill,
    Kind::Equipment,
    Kind::TileMap,
];
/// The kinds the battle formulas' check reads.
const BATTLE_KINDS: [Kind; 4] = [Kind::Unit, Kind::Skill, Kind::TileMap, Kind::Formula];
/// The kinds the instant-cycle check reads.
const CYCLE_KINDS: [Kind; 1] = [Kind::Act];
/// The kinds the window-capacity check reads.
const CAPACITY_KINDS: [Kind; 4] = [Kind::Act, Kind::Slot, Kind::Token, Kind::Rule];

/// An item: its kind and id.
type Key = (Kind, String);

/// A project's diagnostics, kept per item and brought up to date edit by edit.
pub struct Validation {
    names: ProjectNames,
    /// The named formulas' names and texts the formula set was built from.
    named: Vec<(String, String)>,
    formulas: crate::formula::FormulaSet,
    named_errors: Vec<Diagnostic>,
    manifest: Vec<Diagnostic>,
    /// By kind and id: in the order validation visits the items.
    items: BTreeMap<Kind, BTreeMap<String, ItemFindings>>,
    /// For each thing read, the items that read it.
    readers: HashMap<Read, BTreeSet<Key>>,
    /// The items holding formulas.
    formula_users: BTreeSet<Key>,
    /// What each item of the [`NAME_KINDS`] adds to the names (a hash): an edit that keeps it
    /// cannot change the names.
    contributions: HashMap<Key, u64>,
    battle: Vec<Diagnostic>,
    cycles: Vec<Diagnostic>,
    capacity: Vec<Diagnostic>,
    /// Items checked by the last update (for tests and benches: how incremental it was).
    last_checked: usize,
    /// Changes whenever the names formulas may use or the named formulas change.
    formula_generation: u64,
}

/// A formula generation no validation has had yet.
fn fresh_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Validation {
    /// Validates all of `project`.
    pub fn new(project: &Project, sources: &Sources, root: Option<&Path>) -> Self {
        let mut validator = Validator::new(project, sources, root);
        let named_errors = validator.named_errors();
        validator.manifest();
        let manifest = std::mem::take(&mut validator.out);
        let mut this = Self {
            names: ProjectNames::default(),
            named: named_formulas(project),
            formulas: crate::formula::FormulaSet::new(),
            named_errors,
            manifest,
            items: BTreeMap::new(),
            readers: HashMap::new(),
            formula_users: BTreeSet::new(),
            contributions: HashMap::new(),
            battle: Vec::new(),
            cycles: Vec::new(),
            capacity: Vec::new(),
            last_checked: 0,
            formula_generation: fresh_generation(),
        };
        let mut all = CheckAll { validator: &mut validator, findings: Vec::new() };
        project.visit_kinds(&mut all);
        let found = std::mem::take(&mut all.findings);
        this.last_checked = found.len();
        for (key, findings) in found {
            if NAME_KINDS.contains(&key.0)
                && let Some(hash) = name_contribution(project, key.0, &key.1)
            {
                this.contributions.insert(key.clone(), hash);
            }
            this.insert(key, findings);
        }
        validator.battle_formulas();
        this.battle = std::mem::take(&mut validator.out);
        validator.instant_cycles();
        this.cycles = std::mem::take(&mut validator.out);
        validator.window_capacity();
        this.capacity = std::mem::take(&mut validator.out);
        this.names = validator.names;
        this.formulas = validator.formulas;
        this
    }

    /// Brings the findings up to date after the items `changed` (added, edited or removed) and
    /// possibly the manifest changed in `project`. `sources` and `root` must be the ones the
    /// validation was made with (when they change, make a new one).
    pub fn update<'k>(
        &mut self,
        project: &Project,
        sources: &Sources,
        root: Option<&Path>,
        changed: impl IntoIterator<Item = (Kind, &'k str)>,
    ) {
        let changed: BTreeSet<(Kind, &str)> = changed.into_iter().collect();
        let kinds: BTreeSet<Kind> = changed.iter().map(|(kind, _)| *kind).collect();
        let touches = |list: &[Kind]| list.iter().any(|kind| kinds.contains(kind));
        let mut validator = Validator {
            project,
            sources,
            root,
            names: std::mem::take(&mut self.names),
            formulas: std::mem::take(&mut self.formulas),
            named: Vec::new(),
            out: Vec::new(),
        };
        // What formulas may name, and the named formulas they are compiled against.
        let mut names_changed = false;
        let mut contributions_changed = false;
        for (kind, id) in changed.iter().filter(|(kind, _)| NAME_KINDS.contains(kind)) {
            let key = (*kind, (*id).to_owned());
            let now = name_contribution(project, *kind, id);
            let before = match now {
                Some(hash) => self.contributions.insert(key, hash),
                None => self.contributions.remove(&key),
            };
            contributions_changed |= before != now;
        }
        if contributions_changed {
            let names = ProjectNames::new(project);
            if names != validator.names {
                validator.names = names;
                names_changed = true;
            }
        }
        let mut formulas_changed = names_changed;
        if names_changed || kinds.contains(&Kind::Formula) {
            let named = named_formulas(project);
            if names_changed || named != self.named {
                let (set, errors) = crate::formula::FormulaSet::build(&named, &validator.names);
                validator.formulas = set;
                validator.named = errors;
                self.named_errors = validator.named_errors();
                self.named = named;
                formulas_changed = true;
                self.formula_generation = fresh_generation();
            }
        }
        // The items to check again: the changed ones, their readers, and formula holders.
        let mut stale: BTreeSet<Key> = BTreeSet::new();
        for (kind, id) in &changed {
            stale.insert((*kind, (*id).to_owned()));
            for read in [Read::Item(*kind, (*id).to_owned()), Read::Kind(*kind)] {
                if let Some(readers) = self.readers.get(&read) {
                    stale.extend(readers.iter().cloned());
                }
            }
        }
        if formulas_changed {
            stale.extend(self.formula_users.iter().cloned());
        }
        self.last_checked = stale.len();
        for key in stale {
            self.remove(&key);
            let mut one = CheckOne { validator: &mut validator, id: &key.1, findings: None };
            visit_kind(project, key.0, &mut one);
            if let Some(findings) = one.findings {
                self.insert(key, findings);
            }
        }
        validator.manifest();
        self.manifest = std::mem::take(&mut validator.out);
        if touches(&BATTLE_KINDS) {
            validator.battle_formulas();
            self.battle = std::mem::take(&mut validator.out);
        }
        if touches(&CYCLE_KINDS) {
            validator.instant_cycles();
            self.cycles = std::mem::take(&mut validator.out);
        }
        if touches(&CAPACITY_KINDS) {
            validator.window_capacity();
            self.capacity = std::mem::take(&mut validator.out);
        }
        self.names = validator.names;
        self.formulas = validator.formulas;
    }

    /// A number that changes whenever the names formulas may use (ids, properties, stats…) or
    /// the named formulas change: formulas compiled in one generation compile the same in it.
    pub fn formula_generation(&self) -> u64 {
        self.formula_generation
    }

    /// The names formulas may use, as of the last update.
    pub fn names(&self) -> &ProjectNames {
        &self.names
    }

    /// How many items the last update (or the first validation) checked.
    pub fn last_checked(&self) -> usize {
        self.last_checked
    }

    /// Every diagnostic, in the order [`super::validate`] gives them for the project the
    /// validation is up to date with (items by kind, then id: the order it visits them).
    pub fn diagnostics(&self) -> Vec<Diagnostic> {
        self.gather(|_| true)
    }

    /// The errors among [`Self::diagnostics`], in the same order.
    pub fn errors(&self) -> Vec<Diagnostic> {
        self.gather(|diagnostic| diagnostic.severity == Severity::Error)
    }

    fn gather(&self, keep: fn(&Diagnostic) -> bool) -> Vec<Diagnostic> {
        let items = self.items.values().flat_map(BTreeMap::values).flat_map(|findings| &findings.diagnostics);
        [&self.named_errors, &self.manifest]
            .into_iter()
            .flatten()
            .chain(items)
            .chain([&self.battle, &self.cycles, &self.capacity].into_iter().flatten())
            .filter(|diagnostic| keep(diagnostic))
            .cloned()
            .collect()
    }

    fn insert(&mut self, key: Key, findings: ItemFindings) {
        for read in &findings.reads {
            self.readers.entry(read.clone()).or_default().insert(key.clone());
        }
        if findings.formulas {
            self.formula_users.insert(key.clone());
        }
        let (kind, id) = key;
        self.items.entry(kind).or_default().insert(id, findings);
    }

    fn remove(&mut self, key: &Key) {
        let Some(findings) = self.items.get_mut(&key.0).and_then(|items| items.remove(&key.1)) else { return };
        for read in &findings.reads {
            if let Some(readers) = self.readers.get_mut(read) {
                readers.remove(key);
                if readers.is_empty() {
                    self.readers.remove(read);
                }
            }
        }
        self.formula_users.remove(key);
    }
}

/// A hash of the names the item `id` of `kind` adds to a project's [`ProjectNames`] (its id
/// among them); none when there is no such item.
fn name_contribution(project: &Project, kind: Kind, id: &str) -> Option<u64> {
    struct Alone<'i> {
        id: &'i str,
        project: Option<Project>,
    }
    impl KindVisitor for Alone<'_> {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            if let Some(item) = items.get_shared(self.id) {
                let mut alone = Project::default();
                T::items_mut(&mut alone).insert_shared(std::sync::Arc::clone(item));
                self.project = Some(alone);
            }
        }
    }
    let mut alone = Alone { id, project: None };
    visit_kind(project, kind, &mut alone);
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    ProjectNames::new(&alone.project?).hash(&mut hasher);
    Some(hasher.finish())
}

/// Calls `visitor` with the items of `kind` only.
fn visit_kind(project: &Project, kind: Kind, visitor: &mut impl KindVisitor) {
    struct OfKind<'v, V> {
        kind: Kind,
        visitor: &'v mut V,
    }
    impl<V: KindVisitor> KindVisitor for OfKind<'_, V> {
        fn visit<T: Item>(&mut self, items: &Items<T>) {
            if T::KIND == self.kind {
                self.visitor.visit(items);
            }
        }
    }
    project.visit_kinds(&mut OfKind { kind, visitor });
}

/// Validates every item.
struct CheckAll<'v, 'a> {
    validator: &'v mut Validator<'a>,
    findings: Vec<(Key, ItemFindings)>,
}

impl KindVisitor for CheckAll<'_, '_> {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        for item in items {
            let findings = self.validator.item(item);
            self.findings.push(((T::KIND, item.id().as_str().to_owned()), findings));
        }
    }
}

/// Validates the item `id` of the kind visited, if there is one.
struct CheckOne<'v, 'a, 'i> {
    validator: &'v mut Validator<'a>,
    id: &'i str,
    findings: Option<ItemFindings>,
}

impl KindVisitor for CheckOne<'_, '_, '_> {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        if let Some(item) = items.get(self.id) {
            self.findings = Some(self.validator.item(item));
        }
    }
}
