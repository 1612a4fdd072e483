//! Content compiled for play: the project, every formula compiled once against its names,
//! and the orderings the engine needs (initial acts, global slots).

use std::collections::{BTreeMap, HashMap};

use rustc_hash::FxHashMap;

use crate::formula::{Compiled, FormulaSet, Lookup, ProjectNames, Scope};
use crate::model::{
    Act, ActId, Aspect, Card, Deck, Expr, FieldPath, Id, Item, Items, KindVisitor, Location, Project, Rule, Slot,
    SlotId, Token, TokenId, Visitor, walk_item,
};
use crate::project::Sources;
use crate::validate::validate;
use crate::{Diagnostic, Severity};

use super::state::Fragment;

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
    /// A campaign name (`campaign.day`, `node.ID.captured`, `era.ID`…; read by the campaign).
    Campaign(super::campaign::CampaignRead),
    /// A name the table has no value for.
    Missing,
}

/// A project ready to play: validated, formulas compiled.
#[derive(Debug)]
pub struct Content {
    /// The content model.
    pub project: Project,
    formulas: FormulaSet,
    compiled: HashMap<String, Compiled>,
    pub(super) accessors: Vec<Accessor>,
    /// Each token's initial acts in the order they are tried: by id.
    pub(super) initial_acts: BTreeMap<TokenId, Vec<ActId>>,
    /// Slots with a token or `all_tokens`/`all_acts`, by id.
    pub(super) global_slots: Vec<SlotId>,
    /// Ticks of the shrink before a decay's effects (half a second).
    pub(super) shrink_ticks: u64,
    /// The table's items by id, for the engine's lookups.
    index: Index,
}

/// Copies of the table's items in hash maps by id. The engine looks items up at every step
/// (a window's slots, an act's links, a card's triggers); a hashed lookup costs a fraction of
/// the ordered map's, which compares ids as text at every level.
#[derive(Debug, Default)]
struct Index {
    acts: FxHashMap<ActId, Act>,
    aspects: FxHashMap<Id<Aspect>, Aspect>,
    cards: FxHashMap<Id<Card>, Card>,
    decks: FxHashMap<Id<Deck>, Deck>,
    rules: FxHashMap<Id<Rule>, Rule>,
    slots: FxHashMap<SlotId, Slot>,
    tokens: FxHashMap<TokenId, Token>,
}

/// A kind's items in a hash map by id.
fn hashed<T: Item + Clone>(items: &Items<T>) -> FxHashMap<Id<T>, T> {
    items.iter().map(|item| (item.id().clone(), item.clone())).collect()
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
        let mut problems: Vec<Diagnostic> = validate(&project, &Sources::default(), None)
            .into_iter()
            .filter(|diagnostic| diagnostic.severity == Severity::Error)
            .collect();
        let names = ProjectNames::new(&project);
        let named: Vec<(String, String)> = project
            .formulas
            .iter()
            .map(|formula| (formula.id.as_str().to_owned(), formula.expr.text().to_owned()))
            .collect();
        let (mut formulas, _named_errors) = FormulaSet::build(&named, &names);
        let mut collect = Formulas::default();
        project.visit_kinds(&mut collect);
        let mut compiled = HashMap::new();
        for text in collect.0 {
            if compiled.contains_key(&text) {
                continue;
            }
            match formulas.compile(&text, &names) {
                Ok(code) => {
                    compiled.insert(text, code);
                }
                // Validation reports these with their place; this only guards against a gap there.
                Err(error) => problems.push(Diagnostic::error(format!("formula `{text}`: {error}"))),
            }
        }
        if !problems.is_empty() {
            return Err(ContentError { problems });
        }
        let accessors = formulas.lookups().map(|lookup| accessor(lookup, &project)).collect();
        let mut initial_acts: BTreeMap<TokenId, Vec<ActId>> = BTreeMap::new();
        for act in project.acts.iter().filter(|act| act.initial) {
            if let Some(token) = &act.token {
                initial_acts.entry(token.clone()).or_default().push(act.id.clone());
            }
        }
        let global_slots = project
            .slots
            .iter()
            .filter(|slot| slot.token.is_some() || slot.all_tokens || slot.all_acts)
            .map(|slot| slot.id.clone())
            .collect();
        let shrink_ticks = u64::from(project.manifest.settings.ticks_per_second / 2);
        let index = Index {
            acts: hashed(&project.acts),
            aspects: hashed(&project.aspects),
            cards: hashed(&project.cards),
            decks: hashed(&project.decks),
            rules: hashed(&project.rules),
            slots: hashed(&project.slots),
            tokens: hashed(&project.tokens),
        };
        Ok(Self { project, formulas, compiled, accessors, initial_acts, global_slots, shrink_ticks, index })
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

    /// The token `id`.
    pub(super) fn token(&self, id: &str) -> Option<&Token> {
        self.index.tokens.get(id)
    }

    /// The compiled formula of an expression's text.
    pub(super) fn formula(&self, expr: &Expr) -> Option<&Compiled> {
        self.compiled.get(expr.text())
    }

    /// The formula set the expressions were compiled against.
    pub(super) fn formulas(&self) -> &FormulaSet {
        &self.formulas
    }
}

/// What a lookup of the game-state namespace reads at the table.
pub(super) fn accessor(lookup: &Lookup, project: &Project) -> Accessor {
    if lookup.scope != Scope::Auto {
        return Accessor::Missing;
    }
    let parts: Vec<&str> = lookup.name.split('.').collect();
    let location = |name: &str| match name {
        "scope" => Some(Location::Scope),
        "slots" => Some(Location::Slots),
        "heap" => Some(Location::Heap),
        "table" => Some(Location::Table),
        "matched" => Some(Location::MatchedCards),
        "anywhere" => Some(Location::Anywhere),
        "free" => Some(Location::Free),
        _ => None,
    };
    if let Some(read) = super::campaign::CampaignRead::of(&parts, project) {
        return Accessor::Campaign(read);
    }
    match parts.as_slice() {
        [stat] | ["stat", stat] if project.stats.get(stat).is_some() => Accessor::Stat((*stat).into()),
        ["turn"] => Accessor::Turn,
        [place, "cards"] => location(place).map_or(Accessor::Missing, Accessor::Cards),
        [place, "card", id] => {
            location(place).map_or(Accessor::Missing, |at| Accessor::Count(at, Fragment::Card((*id).into())))
        }
        [place, "aspect", id] => {
            location(place).map_or(Accessor::Missing, |at| Accessor::Count(at, Fragment::Aspect((*id).into())))
        }
        // Card properties that are numbers; formula-valued properties are not read here yet.
        ["card", id, property] => project
            .cards
            .get(id)
            .and_then(|card| card.properties.get(*property))
            .and_then(|value| value.text().trim().parse::<f64>().ok())
            .map_or(Accessor::Missing, Accessor::Constant),
        _ => Accessor::Missing,
    }
}
