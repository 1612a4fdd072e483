//! Content compiled for play: the project, every formula compiled once against its names,
//! and the orderings the engine needs (initial acts, global slots).

use std::collections::{BTreeMap, HashMap};

use crate::formula::{Compiled, FormulaSet, Lookup, ProjectNames, Scope};
use crate::model::{
    ActId, Expr, FieldPath, Item, Items, KindVisitor, Location, Project, SlotId, TokenId, Visitor, walk_item,
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
        Ok(Self { project, formulas, compiled, accessors, initial_acts, global_slots, shrink_ticks })
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
