//! Content compiled for play: the project, every formula compiled once against its names,
//! and the orderings the engine needs (initial acts, global slots).

use std::collections::{BTreeMap, BTreeSet};

use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustc_hash::{FxHashMap, FxHashSet};

use crate::formula::names::GameName;
use crate::formula::{Compiled, FormulaSet, Lookup, ProjectNames, Scope};
use crate::map::SightMemo;
use crate::model::{
    Act, ActId, Aspect, Card, Deck, Equipment, Expr, FieldPath, Id, Item, Items, Kind, KindVisitor, KindVisitorMut,
    Location, Project, Rule, Skill, Slot, SlotId, Token, TokenId, Unit, Visitor, VisitorMut, Walk, walk_item,
};
use crate::project::Sources;
use crate::validate::{Validation, validate};
use crate::{Diagnostic, Severity};

use super::table::Fragment;

/// What a game-state name reads (FORMAT.md §5, "Names").
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Accessor {
    /// `LOCATION.card.ID`, `LOCATION.aspect.ID`.
    Count(Location, Fragment),
    /// `LOCATION.cards`.
    Cards(Location),
    /// `card.ID.PROPERTY` when the property is a number.
    Constant(f64),
    /// `ID` or `stat.ID`: a stat (read by the turns system).
    Stat(crate::model::Id<crate::model::Stat>),
    /// `turn`: the turn number (read by the turns system).
    Turn,
    /// Any other game-state name, as parsed: the system that knows it reads it (a campaign's
    /// `node.ID.here`, …); the table has no value for it.
    Name(GameName),
    /// A name the table has no value for.
    Missing,
}

/// A project ready to play: validated, formulas compiled.
#[derive(Debug)]
pub struct Content {
    /// The content model.
    pub project: Project,
    /// Shared with the content it was recompiled from while no new formula needs compiling.
    formulas: Arc<FormulaSet>,
    /// Each formula's code by its text. Looked up at every evaluation, so hashed with Fx,
    /// which costs far less on short texts than the standard (flood-resistant) hasher.
    compiled: Arc<FxHashMap<String, Arc<Compiled>>>,
    /// The [`Validation::formula_generation`] the formulas were compiled in (none: compiled
    /// whole by [`Content::compile`]).
    formula_generation: Option<u64>,
    /// The id texts every reference shares, by kind (kept for recompiling an edit).
    shared_ids: ShareIds,
    pub(super) accessors: Vec<Accessor>,
    /// Each token's initial acts in the order they are tried: by id.
    pub(super) initial_acts: BTreeMap<TokenId, Vec<ActId>>,
    /// Slots with `all_acts`, by id: they open in every running act that does not ignore them.
    pub(super) all_acts_slots: Vec<SlotId>,
    /// Slots with a token or `all_tokens`, by id, with the token they open for (none: all).
    pub(super) token_slots: Vec<(SlotId, Option<TokenId>)>,
    /// The slots that grab cards (`grab` or `act_grab`), by id: only their open places look.
    pub(super) grab_slots: Vec<SlotId>,
    /// Ticks of the shrink before a decay's effects (half a second).
    pub(super) shrink_ticks: u64,
    /// The table's and the battle's items by id, for the engine's lookups.
    index: Index,
    /// Lines of sight traced on each tile map's geometry, by map id: shared by every battle
    /// on the map (see [`SightMemo`]).
    sight: Mutex<BTreeMap<String, Arc<SightMemo>>>,
    /// Board play compiled, at the first session that plays boards (see [`Content::board_setup`]).
    board_setup: OnceLock<Arc<super::board::Setup>>,
}

/// Copies of the table's and the battle's items, looked up by id. The engine looks items up at
/// every step (a window's slots, an act's links, a card's triggers, a unit's skills and
/// equipment); see [`ById`].
/// Each kind's lookup is shared with the content it was recompiled from while none of its
/// items changed.
#[derive(Debug, Default)]
struct Index {
    acts: Arc<ById<Act>>,
    aspects: Arc<ById<Aspect>>,
    cards: Arc<ById<Card>>,
    decks: Arc<ById<Deck>>,
    rules: Arc<ById<Rule>>,
    slots: Arc<ById<Slot>>,
    tokens: Arc<ById<Token>>,
    units: Arc<ById<Unit>>,
    skills: Arc<ById<Skill>>,
    equipment: Arc<ById<Equipment>>,
}

impl Index {
    fn new(project: &Project) -> Self {
        Self {
            acts: Arc::new(ById::new(&project.acts)),
            aspects: Arc::new(ById::new(&project.aspects)),
            cards: Arc::new(ById::new(&project.cards)),
            decks: Arc::new(ById::new(&project.decks)),
            rules: Arc::new(ById::new(&project.rules)),
            slots: Arc::new(ById::new(&project.slots)),
            tokens: Arc::new(ById::new(&project.tokens)),
            units: Arc::new(ById::new(&project.units)),
            skills: Arc::new(ById::new(&project.skills)),
            equipment: Arc::new(ById::new(&project.equipment)),
        }
    }

    /// `previous` brought up to date with `project`, in which the items `changed` changed.
    fn patched(previous: &Index, project: &Project, changed: &BTreeSet<(Kind, String)>) -> Self {
        Self {
            acts: ById::patched(&previous.acts, &project.acts, changed),
            aspects: ById::patched(&previous.aspects, &project.aspects, changed),
            cards: ById::patched(&previous.cards, &project.cards, changed),
            decks: ById::patched(&previous.decks, &project.decks, changed),
            rules: ById::patched(&previous.rules, &project.rules, changed),
            slots: ById::patched(&previous.slots, &project.slots, changed),
            tokens: ById::patched(&previous.tokens, &project.tokens, changed),
            units: ById::patched(&previous.units, &project.units, changed),
            skills: ById::patched(&previous.skills, &project.skills, changed),
            equipment: ById::patched(&previous.equipment, &project.equipment, changed),
        }
    }
}

/// A kind's items by id. Compiling makes every reference share its item's id text
/// ([`ShareIds`]), so the engine's ids are mostly copies of the content's: those are found by
/// the text's address and length (no hashing or comparing of text), any other by text.
#[derive(Clone, Debug)]
struct ById<T> {
    items: Vec<Arc<T>>,
    by_address: FxHashMap<(usize, usize), u32>,
    by_text: FxHashMap<Id<T>, u32>,
}

impl<T> Default for ById<T> {
    fn default() -> Self {
        Self { items: Vec::new(), by_address: FxHashMap::default(), by_text: FxHashMap::default() }
    }
}

impl<T: Item + Clone> ById<T> {
    fn new(items: &Items<T>) -> Self {
        let mut lookup = Self::default();
        for (at, item) in items.iter_shared().enumerate() {
            let id = item.id().as_str();
            lookup.by_address.insert((id.as_ptr() as usize, id.len()), at as u32);
            lookup.by_text.insert(item.id().clone(), at as u32);
            lookup.items.push(Arc::clone(item));
        }
        lookup
    }

    /// `previous` with the items `changed` of `items` (the kind's items now) taken in: edits
    /// in place patch a copy, an added or removed item makes the lookup anew; none changed,
    /// the lookup is shared.
    fn patched(previous: &Arc<Self>, items: &Items<T>, changed: &BTreeSet<(Kind, String)>) -> Arc<Self> {
        let mut ids = changed.iter().filter(|(kind, _)| *kind == T::KIND).map(|(_, id)| id.as_str()).peekable();
        if ids.peek().is_none() {
            return Arc::clone(previous);
        }
        let mut lookup = (**previous).clone();
        for id in ids {
            let (Some(&at), Some(item)) = (lookup.by_text.get(id), items.get_shared(id)) else {
                return Arc::new(Self::new(items));
            };
            let Some(slot) = lookup.items.get_mut(at as usize) else { return Arc::new(Self::new(items)) };
            let old = slot.id().as_str();
            lookup.by_address.remove(&(old.as_ptr() as usize, old.len()));
            let new = item.id().as_str();
            lookup.by_address.insert((new.as_ptr() as usize, new.len()), at);
            *slot = Arc::clone(item);
        }
        Arc::new(lookup)
    }

    #[inline]
    fn get(&self, id: &str) -> Option<&T> {
        // The content's own text cannot move or be reused while the content lives, so an
        // address and length it holds can only name that id.
        let at = match self.by_address.get(&(id.as_ptr() as usize, id.len())) {
            Some(at) => *at,
            None => *self.by_text.get(id)?,
        };
        self.items.get(at as usize).map(|item| &**item)
    }
}

/// Makes every reference of a project share the text of the item it names (interning). Each
/// kind's texts are shared with the content recompiled from this one until its ids change.
#[derive(Clone, Debug, Default)]
struct ShareIds(FxHashMap<Kind, Arc<FxHashSet<Arc<str>>>>);

impl KindVisitor for ShareIds {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        let texts = Arc::make_mut(self.0.entry(T::KIND).or_default());
        texts.extend(items.ids().map(|id| Arc::clone(id.shared_text())));
    }
}

impl KindVisitorMut for ShareIds {
    fn visit<T: Item>(&mut self, items: &mut Items<T>) {
        for item in items.iter_mut() {
            item.walk_mut(&mut FieldPath::root(), self);
        }
    }
}

impl VisitorMut for ShareIds {
    fn shared(&mut self, target: Kind, slug: &str) -> Option<Arc<str>> {
        self.0.get(&target)?.get(slug).cloned()
    }
}

impl ShareIds {
    /// Makes every reference of `project` (its items and its manifest) share its item's id,
    /// and returns the texts shared.
    fn run(project: &mut Project) -> Self {
        let mut share = Self(FxHashMap::default());
        project.visit_kinds(&mut share);
        project.visit_kinds_mut(&mut share);
        project.manifest.walk_mut(&mut FieldPath::root(), &mut share);
        share
    }
}

/// Brings a compiled project up to date with the edited one: the changed items (and the
/// manifest) are taken from it, and their references share the ids' texts.
struct TakeChanged<'a> {
    from: &'a Project,
    changed: &'a BTreeSet<(Kind, String)>,
    share: &'a mut ShareIds,
    /// Formula texts of the items taken.
    formulas: Formulas,
}

impl KindVisitorMut for TakeChanged<'_> {
    fn visit<T: Item>(&mut self, items: &mut Items<T>) {
        let texts = self.share.0.entry(T::KIND).or_default();
        let source = T::items(self.from);
        let changed: Vec<&str> =
            self.changed.iter().filter(|(kind, _)| *kind == T::KIND).map(|(_, id)| id.as_str()).collect();
        for id in &changed {
            items.remove(id);
            let now = source.get_shared(id);
            // The texts change only when an id comes or goes or its text is another copy.
            let kept = match (texts.get(*id), now) {
                (Some(text), Some(item)) => Arc::ptr_eq(text, item.id().shared_text()),
                (None, None) => true,
                _ => false,
            };
            if !kept {
                let texts = Arc::make_mut(texts);
                texts.remove(*id);
                if let Some(item) = now {
                    texts.insert(Arc::clone(item.id().shared_text()));
                }
            }
            if let Some(item) = now {
                items.insert_shared(Arc::clone(item));
            }
        }
        for id in changed {
            if let Some(item) = items.get_mut(id) {
                item.walk_mut(&mut FieldPath::root(), self.share);
                walk_item(item, &mut self.formulas);
            }
        }
    }
}

/// Why content cannot be played: the list of problems.
#[derive(Debug, thiserror::Error)]
#[error("the content has {} error(s):\n{}", .problems.len(), .problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct ContentError {
    /// The errors found by validation and formula compilation.
    pub problems: Vec<Diagnostic>,
}

/// Collects the text of every formula of a project that is not a plain integer.
#[derive(Default)]
struct Formulas(Vec<String>);

impl Visitor for Formulas {
    fn expr(&mut self, _path: &FieldPath, expr: &Expr) {
        if expr.as_int().is_none() {
            self.0.push(expr.text().to_owned());
        }
    }
}

impl KindVisitor for Formulas {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        for item in items {
            walk_item(item, self);
        }
    }
}

impl Content {
    /// Validates `project` and compiles its formulas; refuses content with errors.
    pub fn compile(project: Project) -> Result<Self, ContentError> {
        let errors = validate(&project, &Sources::default(), None)
            .into_iter()
            .filter(|diagnostic| diagnostic.severity == Severity::Error)
            .collect();
        Self::compile_checked(project, errors)
    }

    /// As [`Content::compile`], with the validation already made for `project` (a
    /// [`Validation`] made with no sources and no folder, as `compile` validates).
    pub fn compile_validated(project: Project, validation: &Validation) -> Result<Self, ContentError> {
        let errors = validation.errors();
        let mut content = Self::compile_checked(project, errors)?;
        content.formula_generation = Some(validation.formula_generation());
        Ok(content)
    }

    /// Compiles the edit of `previous`'s project into `project`, in which the items `changed`
    /// (added, edited or removed) and possibly the manifest changed; `validation` is
    /// up to date with `project` (made with no sources and no folder). Only the changed items
    /// are taken in and their formulas compiled, unless the names formulas may use changed.
    /// Plays exactly as [`Content::compile`] of `project` would.
    pub fn recompile<'k>(
        previous: &Content,
        project: &Project,
        changed: impl IntoIterator<Item = (Kind, &'k str)>,
        validation: &Validation,
    ) -> Result<Self, ContentError> {
        let same_names = previous.formula_generation == Some(validation.formula_generation());
        if !same_names {
            return Self::compile_validated(project.clone(), validation);
        }
        // As `compile`, the formulas are compiled even after validation errors: their errors
        // join the list (for the changed items; the others compiled before).
        let mut problems = validation.errors();
        let changed: BTreeSet<(Kind, String)> = changed.into_iter().map(|(kind, id)| (kind, id.to_owned())).collect();
        let mut compiled_project = previous.project.clone();
        compiled_project.manifest = project.manifest.clone();
        let mut shared_ids = previous.shared_ids.clone();
        let mut take =
            TakeChanged { from: project, changed: &changed, share: &mut shared_ids, formulas: Formulas::default() };
        compiled_project.visit_kinds_mut(&mut take);
        let texts = take.formulas.0;
        compiled_project.manifest.walk_mut(&mut FieldPath::root(), &mut shared_ids);
        let mut formulas = Arc::clone(&previous.formulas);
        let mut compiled = Arc::clone(&previous.compiled);
        for text in texts {
            if compiled.contains_key(&text) {
                continue;
            }
            match Arc::make_mut(&mut formulas).compile(&text, validation.names()) {
                Ok(code) => {
                    Arc::make_mut(&mut compiled).insert(text, Arc::new(code));
                }
                Err(error) => problems.push(Diagnostic::error(format!("formula `{text}`: {error}"))),
            }
        }
        if !problems.is_empty() {
            return Err(ContentError { problems });
        }
        let index = Index::patched(&previous.index, &compiled_project, &changed);
        let mut content = Self::assemble(compiled_project, formulas, compiled, shared_ids, index);
        content.formula_generation = previous.formula_generation;
        Ok(content)
    }

    /// Compiles `project`, whose validation found `problems` (its errors).
    fn compile_checked(mut project: Project, mut problems: Vec<Diagnostic>) -> Result<Self, ContentError> {
        let names = ProjectNames::new(&project);
        let named: Vec<(String, String)> = project
            .formulas
            .iter()
            .map(|formula| (formula.id.as_str().to_owned(), formula.expr.text().to_owned()))
            .collect();
        let (mut formulas, named_errors) = FormulaSet::build(&named, &names);
        // Validation reports these with their place; this only guards against a gap there.
        for error in named_errors {
            problems.push(Diagnostic::error(format!("formula `f.{}`: {}", error.name, error.error.message)));
        }
        let mut collect = Formulas::default();
        project.visit_kinds(&mut collect);
        let mut compiled = FxHashMap::default();
        for text in collect.0 {
            if compiled.contains_key(&text) {
                continue;
            }
            match formulas.compile(&text, &names) {
                Ok(code) => {
                    compiled.insert(text, Arc::new(code));
                }
                // Validation reports these with their place; this only guards against a gap there.
                Err(error) => problems.push(Diagnostic::error(format!("formula `{text}`: {error}"))),
            }
        }
        if !problems.is_empty() {
            return Err(ContentError { problems });
        }
        let shared_ids = ShareIds::run(&mut project);
        let index = Index::new(&project);
        Ok(Self::assemble(project, Arc::new(formulas), Arc::new(compiled), shared_ids, index))
    }

    /// Content of `project` (its references sharing `shared_ids`) with its compiled formulas:
    /// the orderings and the index the engine needs.
    fn assemble(
        project: Project,
        formulas: Arc<FormulaSet>,
        compiled: Arc<FxHashMap<String, Arc<Compiled>>>,
        shared_ids: ShareIds,
        index: Index,
    ) -> Self {
        let accessors = formulas.lookups().map(|lookup| accessor(lookup, &project)).collect();
        let mut initial_acts: BTreeMap<TokenId, Vec<ActId>> = BTreeMap::new();
        for act in project.acts.iter().filter(|act| act.initial) {
            if let Some(token) = &act.token {
                initial_acts.entry(token.clone()).or_default().push(act.id.clone());
            }
        }
        let all_acts_slots = project.slots.iter().filter(|slot| slot.all_acts).map(|slot| slot.id.clone()).collect();
        let token_slots = project
            .slots
            .iter()
            .filter(|slot| slot.token.is_some() || slot.all_tokens)
            .map(|slot| (slot.id.clone(), if slot.all_tokens { None } else { slot.token.clone() }))
            .collect();
        let grab_slots =
            project.slots.iter().filter(|slot| slot.grab || slot.act_grab).map(|slot| slot.id.clone()).collect();
        let shrink_ticks = u64::from(project.manifest.settings.ticks_per_second / 2);
        Self {
            project,
            formulas,
            compiled,
            formula_generation: None,
            shared_ids,
            accessors,
            initial_acts,
            all_acts_slots,
            token_slots,
            grab_slots,
            shrink_ticks,
            index,
            sight: Mutex::default(),
            board_setup: OnceLock::new(),
        }
    }

    /// Board play's programs and reads, compiled once and shared by every session: compiling
    /// them per session took a tenth of a Knucklebones simulation's work.
    pub(super) fn board_setup(&self) -> Arc<super::board::Setup> {
        Arc::clone(self.board_setup.get_or_init(|| Arc::new(super::board::Setup::compile(self))))
    }

    /// The lines of sight kept for the tile map `map` (its geometry as the project has it).
    pub(crate) fn sight_memo(&self, map: &str) -> Arc<SightMemo> {
        let mut kept = self.sight.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(kept.entry(map.to_owned()).or_default())
    }

    /// The act `id`.
    pub(super) fn act(&self, id: &str) -> Option<&Act> {
        self.index.acts.get(id)
    }

    /// The aspect's own id when `id` names one (else `id`): stored in aspect counts, so that
    /// comparing counts compares addresses ([`crate::model::Id::shares_text`]).
    pub(super) fn canonical_aspect<'i>(&'i self, id: &'i Id<Aspect>) -> &'i Id<Aspect> {
        self.aspect(id.as_str()).map_or(id, |aspect| &aspect.id)
    }

    /// The aspect `id`.
    pub(super) fn aspect(&self, id: &str) -> Option<&Aspect> {
        self.index.aspects.get(id)
    }

    /// The card type `id`.
    pub(super) fn card(&self, id: &str) -> Option<&Card> {
        self.index.cards.get(id)
    }

    /// The deck `id`.
    pub(super) fn deck(&self, id: &str) -> Option<&Deck> {
        self.index.decks.get(id)
    }

    /// The rule `id`.
    pub(super) fn rule(&self, id: &str) -> Option<&Rule> {
        self.index.rules.get(id)
    }

    /// The slot `id`.
    pub(super) fn slot(&self, id: &str) -> Option<&Slot> {
        self.index.slots.get(id)
    }

    /// The unit type `id`.
    pub(super) fn unit(&self, id: &str) -> Option<&Unit> {
        self.index.units.get(id)
    }

    /// The skill `id`.
    pub(super) fn skill(&self, id: &str) -> Option<&Skill> {
        self.index.skills.get(id)
    }

    /// The equipment `id`.
    pub(super) fn equipment(&self, id: &str) -> Option<&Equipment> {
        self.index.equipment.get(id)
    }

    /// The token `id`.
    pub(super) fn token(&self, id: &str) -> Option<&Token> {
        self.index.tokens.get(id)
    }

    /// The compiled formula of an expression's text.
    pub(super) fn formula(&self, expr: &Expr) -> Option<&Compiled> {
        self.compiled.get(expr.text()).map(|compiled| &**compiled)
    }

    /// The formula set the expressions were compiled against.
    pub(super) fn formulas(&self) -> &FormulaSet {
        &self.formulas
    }
}

/// What a lookup of the game-state namespace reads: table counts, stats and the turn are bound
/// here; every other name keeps its parsed form for the system that reads it.
pub(super) fn accessor(lookup: &Lookup, project: &Project) -> Accessor {
    if lookup.scope != Scope::Auto {
        return Accessor::Missing;
    }
    match GameName::parse(&lookup.name, |word| project.stats.get(word).is_some()) {
        GameName::Stat(id) if project.stats.get(id.as_str()).is_some() => Accessor::Stat(id),
        GameName::Turn => Accessor::Turn,
        GameName::Cards(at) => Accessor::Cards(at),
        GameName::CardCount(at, id) => Accessor::Count(at, Fragment::Card(id)),
        GameName::AspectCount(at, id) => Accessor::Count(at, Fragment::Aspect(id)),
        // Card properties that are numbers; formula-valued properties are not read here yet.
        GameName::CardProperty(id, property) => project
            .cards
            .get(id.as_str())
            .and_then(|card| card.properties.get(&property))
            .and_then(|value| value.text().trim().parse::<f64>().ok())
            .map_or(Accessor::Missing, Accessor::Constant),
        GameName::Era(id) if project.eras.get(id.as_str()).is_none() => Accessor::Missing,
        GameName::Stat(_) | GameName::Unknown => Accessor::Missing,
        name => Accessor::Name(name),
    }
}
