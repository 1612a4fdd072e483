//! Validation: every cross-reference and value check of a project, as diagnostics.
//!
//! Validation never panics and never stops early: it reports everything it finds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::diagnostic::{Diagnostic, Severity};
use crate::formula::lexer::is_keyword;
use crate::formula::{FormulaError, FormulaSet, NamedError, ProjectNames};
use crate::model::{
    Act, ActLink, ActOp, Aspect, Board, Card, CardOp, Checks, Deck, DeckModifier, EffectTarget, Effects, Equipment,
    Era, Expr, FieldPath, Formula, FragmentCount, FragmentRef, InterveningSpace, Item, Items, Kind, KindVisitor,
    MAX_MAP_SIDE, MAX_TILE_HEIGHT, MAX_Z_LEVELS, NodeMap, PaletteLookup, PathOp, Project, Read, Region, RegionShape,
    Rule, Skill, SkillKind, Slot, Stat, StatValue, StatusEffect, Synthesis, TableModifier, Test, TestOp, TileMap,
    Token, TurnConfig, Unit, ValueChecks, Visitor, Walk, slug_problem,
};
use crate::project::Sources;

mod incremental;
pub use incremental::Validation;

/// The tokens each act can run in: an act's own token, passed on along next and alt links and
/// the acts its effects (and their `furthermore` rules) force, branch to or call back.
fn act_tokens(project: &Project) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut tokens: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut successors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for act in project.acts.iter() {
        if let Some(token) = &act.token {
            tokens.entry(act.id.as_str()).or_default().insert(token.as_str());
        }
        let rules = act.effects.furthermore.iter().filter_map(|rule| project.rules.get(rule.as_str()));
        let path_acts = std::iter::once(&act.effects)
            .chain(rules.map(|rule| &rule.effects))
            .flat_map(|effects| &effects.path_modifiers)
            .filter(|modifier| matches!(modifier.op, PathOp::BranchOut | PathOp::ForceAct | PathOp::SetCallback))
            .filter_map(|modifier| modifier.act.as_ref());
        let links = act.next_acts.iter().chain(&act.alt_acts).map(|link| &link.act);
        successors.entry(act.id.as_str()).or_default().extend(links.chain(path_acts).map(crate::model::Id::as_str));
    }
    // Pass tokens on until nothing changes (each pass adds at least one, so it ends).
    let mut changed = true;
    while changed {
        changed = false;
        for (from, nexts) in &successors {
            let Some(held) = tokens.get(from).cloned() else { continue };
            for next in nexts {
                let entry = tokens.entry(next).or_default();
                let before = entry.len();
                entry.extend(held.iter().copied());
                changed |= entry.len() != before;
            }
        }
    }
    tokens
}

/// Checks `project`; `sources` places diagnostics in files, `root` (the project folder)
/// lets art paths be checked.
pub fn validate(project: &Project, sources: &Sources, root: Option<&Path>) -> Vec<Diagnostic> {
    let mut validator = Validator::new(project, sources, root);
    let named_errors = validator.named_errors();
    validator.out.extend(named_errors);
    validator.manifest();
    project.visit_kinds(&mut validator);
    validator.battle_formulas();
    validator.instant_cycles();
    validator.window_capacity();
    validator.out
}

struct Validator<'a> {
    project: &'a Project,
    sources: &'a Sources,
    root: Option<&'a Path>,
    names: ProjectNames,
    /// The project's named formulas; other formulas are compiled against it.
    formulas: FormulaSet,
    /// The named formulas' errors found when `formulas` was built.
    named: Vec<NamedError>,
    out: Vec<Diagnostic>,
}

/// The project's named formulas: name and text.
fn named_formulas(project: &Project) -> Vec<(String, String)> {
    project.formulas.iter().map(|formula| (formula.id.as_str().to_owned(), formula.expr.text().to_owned())).collect()
}

/// What validating one item found, and what it read of the rest of the project.
#[derive(Clone, Debug, Default)]
struct ItemFindings {
    diagnostics: Vec<Diagnostic>,
    /// Other items' content its checks read (references included, present or not).
    reads: BTreeSet<Read>,
    /// Whether it holds formulas compiled against the project's names and named formulas.
    formulas: bool,
}

impl<'a> Validator<'a> {
    fn new(project: &'a Project, sources: &'a Sources, root: Option<&'a Path>) -> Self {
        let names = ProjectNames::new(project);
        let (formulas, named) = FormulaSet::build(&named_formulas(project), &names);
        Self { project, sources, root, names, formulas, named, out: Vec::new() }
    }

    /// The named formulas' errors, as diagnostics at their place.
    fn named_errors(&mut self) -> Vec<Diagnostic> {
        let start = self.out.len();
        for NamedError { name, error } in std::mem::take(&mut self.named) {
            let text =
                self.project.formulas.get(&name).map(|formula| formula.expr.text().to_owned()).unwrap_or_default();
            self.push_formula_error(Some((Kind::Formula, &name)), &FieldPath::root().field("expr"), &text, &error);
        }
        self.out.split_off(start)
    }

    /// Validates one item.
    fn item<T: Item>(&mut self, item: &T) -> ItemFindings {
        let start = self.out.len();
        let id = item.id().as_str();
        let key = Some((T::KIND, id));
        if let Some(problem) = slug_problem(id) {
            self.push(key, Severity::Error, &FieldPath::root().field("id"), problem);
        } else if is_keyword(id)
            && matches!(T::KIND, Kind::Card | Kind::Aspect | Kind::Stat | Kind::Formula | Kind::Era | Kind::Board)
        {
            let message = format!(
                "`{id}` is a formula keyword, so formulas cannot name this {}; choose another id",
                T::KIND.label().to_lowercase()
            );
            let severity =
                if matches!(T::KIND, Kind::Stat | Kind::Formula) { Severity::Error } else { Severity::Warning };
            self.push(key, severity, &FieldPath::root().field("id"), message);
        }
        // A named formula's own text was compiled when the formula set was built.
        let formulas = (T::KIND != Kind::Formula).then_some((&mut self.formulas, &self.names));
        let mut refs = DanglingRefs::new(self.project, formulas);
        item.walk(&mut FieldPath::root(), &mut refs);
        let DanglingRefs { found, formula_errors, reads, compiled, .. } = refs;
        for (path, message) in found {
            self.push(key, Severity::Error, &path, message);
        }
        for (path, text, error) in formula_errors {
            self.push_formula_error(key, &path, &text, &error);
        }
        let mut checks = Checks::new(self.project, self.root);
        item.check_values(&mut checks);
        let mut reads: BTreeSet<Read> = reads.into_iter().collect();
        reads.extend(checks.reads().iter().cloned());
        for (severity, path, message) in checks.into_found() {
            self.push(key, severity, &path, message);
        }
        ItemFindings { diagnostics: self.out.split_off(start), reads, formulas: compiled }
    }
}

/// Reports dangling references and formulas that do not compile.
struct DanglingRefs<'a> {
    project: &'a Project,
    found: Vec<(FieldPath, String)>,
    /// When set, formulas are compiled against this set with these names.
    formulas: Option<(&'a mut FormulaSet, &'a ProjectNames)>,
    /// Formulas that did not compile: where, their text, and why.
    formula_errors: Vec<(FieldPath, String, FormulaError)>,
    /// The items referred to.
    reads: Vec<Read>,
    /// Whether a formula was compiled.
    compiled: bool,
}

impl<'a> DanglingRefs<'a> {
    fn new(project: &'a Project, formulas: Option<(&'a mut FormulaSet, &'a ProjectNames)>) -> Self {
        Self { project, found: Vec::new(), formulas, formula_errors: Vec::new(), reads: Vec::new(), compiled: false }
    }
}

impl Visitor for DanglingRefs<'_> {
    fn reference(&mut self, path: &FieldPath, target: Kind, slug: &str) {
        self.reads.push(Read::Item(target, slug.to_owned()));
        if !self.project.contains(target, slug) {
            let message = if slug.is_empty() {
                format!("the {} reference is empty", target.label().to_lowercase())
            } else {
                format!("there is no {} `{slug}`", target.label().to_lowercase())
            };
            self.found.push((path.clone(), message));
        }
    }
    fn expr(&mut self, path: &FieldPath, expr: &Expr) {
        if expr.text().trim().is_empty() {
            self.found.push((path.clone(), "the formula is empty; write a value such as 0".to_owned()));
            return;
        }
        if expr.as_int().is_some() {
            return; // a plain number always compiles
        }
        if let Some((set, names)) = self.formulas.as_mut() {
            self.compiled = true;
            if let Err(error) = set.compile(expr.text(), *names) {
                self.formula_errors.push((path.clone(), expr.text().to_owned(), error));
            }
        }
    }
}

impl Validator<'_> {
    /// Reports a formula that does not compile, at the offending character.
    fn push_formula_error(&mut self, item: Option<(Kind, &str)>, path: &FieldPath, text: &str, error: &FormulaError) {
        let mut diagnostic = Diagnostic::new(Severity::Error, error.message.clone()).for_field(path.to_string());
        if let Some((kind, id)) = item {
            diagnostic = diagnostic.for_item(kind, id);
        }
        self.out.push(self.sources.place_in_string(diagnostic, item, path, error.column(text)));
    }

    /// Warns about each lookup of a battle formula that reads NaN where the formula is read,
    /// at its column in the formula.
    fn battle_formulas(&mut self) {
        for problem in crate::engine::tactics::formula_problems(self.project) {
            let item = Some((problem.kind, problem.id.as_str()));
            let diagnostic =
                Diagnostic::new(Severity::Warning, problem.message.clone()).for_field(problem.path.to_string());
            let diagnostic = diagnostic.for_item(problem.kind, &problem.id);
            self.out.push(self.sources.place_in_string(diagnostic, item, &problem.path, problem.column));
        }
    }

    fn push(&mut self, item: Option<(Kind, &str)>, severity: Severity, path: &FieldPath, message: String) {
        let mut diagnostic = Diagnostic::new(severity, message).for_field(path.to_string());
        if let Some((kind, id)) = item {
            diagnostic = diagnostic.for_item(kind, id);
        }
        self.out.push(self.sources.place(diagnostic, item, path));
    }

    /// Warns where a window can be asked to open more slots than it has places (spec §2.1:
    /// the rest silently do not open): an act whose slots (and the global "all acts" slots,
    /// unless it ignores them) outnumber the run places of a token it can run in, and a token
    /// whose own first slot and global slots outnumber its idle places.
    fn window_capacity(&mut self) {
        let project = self.project;
        let distinct = |slots: &mut dyn Iterator<Item = &crate::model::SlotId>| {
            // A unique slot opens once however often it is listed.
            let mut seen: Vec<&str> = Vec::new();
            slots
                .filter(|slot| {
                    let unique = project.slots.get(slot.as_str()).is_some_and(|s| s.unique);
                    let again = unique && seen.contains(&slot.as_str());
                    seen.push(slot.as_str());
                    !again
                })
                .count()
        };
        let all_acts: Vec<&crate::model::SlotId> =
            project.slots.iter().filter(|slot| slot.all_acts).map(|slot| &slot.id).collect();
        let tokens = act_tokens(project);
        for act in project.acts.iter() {
            let globals = if act.ignore_global_slots { &[][..] } else { all_acts.as_slice() };
            let opened = distinct(&mut act.slots.iter().chain(globals.iter().copied()));
            if opened == 0 {
                continue;
            }
            // The windows it can run in; an act no token's chain reaches is held to the
            // roomiest window there is.
            let windows: Vec<&Token> = match tokens.get(act.id.as_str()) {
                Some(found) => found.iter().filter_map(|token| project.tokens.get(token)).collect(),
                None => project.tokens.iter().max_by_key(|token| token.run_places).into_iter().collect(),
            };
            let Some(smallest) = windows.iter().min_by_key(|token| token.run_places) else { continue };
            let room = smallest.run_places as usize;
            if opened > room {
                let field = if act.slots.is_empty() { "ignore_global_slots" } else { "slots" };
                let globals =
                    if globals.is_empty() { String::new() } else { " (with the global \"all acts\" slots)".to_owned() };
                self.push(
                    Some((Kind::Act, act.id.as_str())),
                    Severity::Warning,
                    &FieldPath::root().field(field),
                    format!(
                        "the act can open {opened} slots while it runs{globals}, but the window of token `{}` has \
                         {room} run place(s) (`run_places`): the slots after the first {room} never open",
                        smallest.id
                    ),
                );
            }
        }
        for token in project.tokens.iter() {
            let globals = project
                .slots
                .iter()
                .filter(|slot| slot.all_tokens || slot.token.as_ref() == Some(&token.id))
                .map(|slot| &slot.id);
            let opened = distinct(&mut token.slot.iter().chain(globals));
            let room = token.idle_places as usize;
            if opened > room {
                self.push(
                    Some((Kind::Token, token.id.as_str())),
                    Severity::Warning,
                    &FieldPath::root().field("idle_places"),
                    format!(
                        "an idle window of this token opens {opened} slots (its first slot and the global slots), \
                         but has {room} idle place(s): the slots after the first {room} never open"
                    ),
                );
            }
        }
    }

    /// Warns on each chain of acts that last 0 ticks and lead back to themselves (as next, alt
    /// or spawned acts): it repeats without player input until the engine cuts it.
    fn instant_cycles(&mut self) {
        let project = self.project;
        let mut successors: BTreeMap<&str, Vec<&str>> = project
            .acts
            .iter()
            .filter(|act| act.duration_ticks.is_zero())
            .map(|act| {
                let links = act.next_acts.iter().chain(&act.alt_acts).chain(&act.spawned_acts);
                let instant = links
                    .map(|link| link.act.as_str())
                    .filter(|next| project.acts.get(next).is_some_and(|next| next.duration_ticks.is_zero()))
                    .collect();
                (act.id.as_str(), instant)
            })
            .collect();
        // One warning per cycle: each found cycle loses its closing link and the search goes on.
        for _ in 0..100 {
            let Some(cycle) = find_cycle(&successors) else { break };
            let (Some(&first), Some(&last)) = (cycle.first(), cycle.get(cycle.len().saturating_sub(2))) else {
                break;
            };
            if let Some(next) = successors.get_mut(last) {
                next.retain(|act| *act != first);
            }
            self.push(
                Some((Kind::Act, first)),
                Severity::Warning,
                &FieldPath::root().field("next_acts"),
                format!(
                    "instant cycle ({}): these acts last 0 ticks and lead back to each other, so they repeat without \
                     player input until the engine cuts the step after {} completions; give one a duration or a \
                     requirement that stops it",
                    cycle.join(" → "),
                    crate::engine::table::step::MAX_COMPLETIONS_PER_STEP
                ),
            );
        }
    }

    fn manifest(&mut self) {
        let manifest = &self.project.manifest;
        let mut refs = DanglingRefs::new(self.project, None);
        manifest.walk(&mut FieldPath::root(), &mut refs);
        for (path, message) in refs.found {
            self.push(None, Severity::Error, &path, format!("project.ron: {message}"));
        }
        if manifest.name.trim().is_empty() {
            self.push(None, Severity::Warning, &FieldPath::root().field("name"), "the project has no name".to_owned());
        }
        if manifest.settings.ticks_per_second == 0 {
            self.push(
                None,
                Severity::Error,
                &FieldPath::root().field("settings").field("ticks_per_second"),
                "ticks_per_second must be at least 1".to_owned(),
            );
        }
        let entry = &manifest.entry;
        if entry.tokens.is_empty() && !entry.cards.is_empty() {
            self.push(
                None,
                Severity::Warning,
                &FieldPath::root().field("entry").field("cards"),
                "cards start on the table but no token does; nothing can use them".to_owned(),
            );
        }
    }
}

impl KindVisitor for Validator<'_> {
    fn visit<T: Item>(&mut self, items: &Items<T>) {
        for item in items {
            let findings = self.item(item);
            self.out.extend(findings.diagnostics);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Per-kind value checks.

fn check_counts(checks: &mut Checks<'_>, base: &FieldPath, list: &[FragmentCount], what: &str) {
    for (at, entry) in list.iter().enumerate() {
        checks.not_negative(base.clone().index(at).field("count"), &entry.count, what);
        if matches!(entry.fragment, FragmentRef::Card(_)) {
            checks.creatable(base.clone().index(at).field("count"), &entry.count);
        }
    }
}

fn check_tests(checks: &mut Checks<'_>, base: &FieldPath, tests: &[Test]) {
    for (at, test) in tests.iter().enumerate() {
        let path = base.clone().index(at);
        if test.op == TestOp::Mod && test.fragment2.is_none() && test.constant.is_zero() {
            checks.error(path.clone().field("constant"), "`Mod` by 0 divides by zero; set a constant other than 0");
        }
        if test.card_test && matches!(test.op, TestOp::RandomClash) {
            checks.warning(path.field("op"), "RandomClash compares two counts; on a card test it rolls once per card");
        }
    }
}

fn check_links(checks: &mut Checks<'_>, base: &FieldPath, links: &[ActLink], need_token: bool) {
    for (at, link) in links.iter().enumerate() {
        let path = base.clone().index(at);
        checks.in_range(path.clone().field("chance"), &link.chance, 0, 100, "a chance in percent");
        if need_token
            && let Some(act) = checks.item::<Act>(link.act.as_str())
            && act.token.is_none()
        {
            checks.error(
                path.field("act"),
                format!("the spawned act `{}` has no token, so no token can be created for it", link.act),
            );
        }
    }
}

fn check_effects(checks: &mut Checks<'_>, base: &FieldPath, effects: &Effects) {
    for (at, modifier) in effects.act_modifiers.iter().enumerate() {
        let path = base.clone().field("act_modifiers").index(at);
        if modifier.fragment.is_none() && modifier.op != ActOp::SetMemory {
            checks.warning(path.clone().field("fragment"), "this act modifier names no fragment, so it does nothing");
        }
        if modifier.op == ActOp::Adjust {
            checks.creatable(path.field("level"), &modifier.level);
        }
    }
    for (at, modifier) in effects.card_modifiers.iter().enumerate() {
        if matches!(modifier.op, CardOp::Transform | CardOp::FragmentAdditive | CardOp::FragmentSet) {
            checks.creatable(base.clone().field("card_modifiers").index(at).field("level"), &modifier.level);
        }
    }
    for (at, modifier) in effects.table_modifiers.iter().enumerate() {
        let TableModifier { act, .. } = modifier;
        if checks.item::<Act>(act.as_str()).is_some_and(|act| act.token.is_none()) {
            checks.error(
                base.clone().field("table_modifiers").index(at).field("act"),
                format!("the act `{act}` has no token, so no token can be spawned for it"),
            );
        }
    }
    for (at, modifier) in effects.path_modifiers.iter().enumerate() {
        let path = base.clone().field("path_modifiers").index(at);
        let needs_act = matches!(modifier.op, PathOp::BranchOut | PathOp::ForceAct | PathOp::SetCallback);
        if needs_act && modifier.act.is_none() {
            checks.warning(
                path.clone().field("act"),
                format!("{:?} needs an act; without one it does nothing", modifier.op),
            );
        }
        let needs_text = matches!(modifier.op, PathOp::EndGame | PathOp::Warning | PathOp::Error);
        if needs_text && modifier.text.trim().is_empty() {
            checks.warning(path.field("text"), format!("{:?} should say what happened in `text`", modifier.op));
        }
    }
    for (at, modifier) in effects.stat_modifiers.iter().enumerate() {
        let computed = checks.item::<Stat>(modifier.stat.as_str()).is_some_and(|stat| !stat.value.is_stored());
        if computed {
            checks.error(
                base.clone().field("stat_modifiers").index(at).field("stat"),
                format!("the stat `{}` is computed by its formula, so it cannot be changed", modifier.stat),
            );
        }
    }
    for (at, modifier) in effects.deck_modifiers.iter().enumerate() {
        let DeckModifier { deck, deck_from, .. } = modifier;
        if deck.is_none() && deck_from.is_none() {
            checks.warning(
                base.clone().field("deck_modifiers").index(at),
                "this deck modifier names neither `deck` nor `deck_from`, so it does nothing",
            );
        }
    }
}

impl ValueChecks for Aspect {
    fn check_values(&self, checks: &mut Checks<'_>) {
        checks.asset(FieldPath::root().field("art"), self.art.as_ref());
    }
}

impl ValueChecks for Card {
    fn check_values(&self, checks: &mut Checks<'_>) {
        checks.asset(FieldPath::root().field("art"), self.art.as_ref());
        check_counts(checks, &FieldPath::root().field("fragments"), &self.fragments, "an initial count");
        checks.not_negative(FieldPath::root().field("lifetime_ticks"), &self.lifetime_ticks, "a lifetime");
        for (at, entry) in self.fragments.iter().enumerate() {
            let FragmentRef::Aspect(aspect) = &entry.fragment else { continue };
            if let Some(synthesis) = checks
                .items::<Synthesis>()
                .iter()
                .find(|synthesis| synthesis.tags.is_empty() || synthesis.tags.contains(aspect))
            {
                let why = format!("synthesis `{}` reads the card type's tags, with no card in play", synthesis.id);
                checks.whole_number(FieldPath::root().field("fragments").index(at).field("count"), &entry.count, &why);
            }
        }
        if self.decay_to.is_some() && self.lifetime_ticks.is_zero() {
            checks.warning(
                FieldPath::root().field("decay_to"),
                "the card never decays by itself (lifetime_ticks is 0); only a Decay card modifier starts it",
            );
        }
        for name in self.properties.keys() {
            checks.name(FieldPath::root().field("properties"), name, "property");
        }
        for (at, option) in self.options.iter().enumerate() {
            if option.label.trim().is_empty() {
                checks.warning(FieldPath::root().field("options").index(at).field("label"), "the option has no label");
            }
        }
        if let Some(play) = &self.board_play {
            check_board_play(checks, play);
        }
    }
}

/// A card's board play: option labels are words a script can name.
fn check_board_play(checks: &mut Checks<'_>, play: &crate::model::BoardPlay) {
    let root = FieldPath::root().field("board_play");
    for (at, label) in play.options.iter().enumerate() {
        if label.is_empty() || label.contains(char::is_whitespace) || label.contains(',') {
            checks.error(
                root.clone().field("options").index(at),
                format!("the option `{label}` must be one word without commas (scripts write `ability CARD OPTION`)"),
            );
        }
    }
    if play.rules.is_empty() {
        checks.warning(root.field("rules"), "playing the card does nothing (no rules)");
    }
}

/// Board modifiers: the variables they set are declared on some board.
fn check_board_modifiers(checks: &mut Checks<'_>, path: &FieldPath, modifiers: &[crate::model::BoardModifier]) {
    use crate::model::BoardOp;
    for (at, modifier) in modifiers.iter().enumerate() {
        let declared = |board: &Board| match modifier.op {
            BoardOp::SetVar => board.vars.contains_key(&modifier.var),
            BoardOp::SetCellVar => board.cell_vars.contains_key(&modifier.var),
            _ => board.column_vars.contains_key(&modifier.var),
        };
        if modifier.all_columns
            && !matches!(modifier.op, BoardOp::SetColumnVar | BoardOp::DestroyInColumn | BoardOp::SetCellVar)
        {
            checks.warning(
                path.clone().index(at).field("all_columns"),
                format!(
                    "{:?} ignores all_columns (only DestroyInColumn, SetColumnVar and SetCellVar read it)",
                    modifier.op
                ),
            );
        }
        let sets_var = matches!(modifier.op, BoardOp::SetVar | BoardOp::SetColumnVar | BoardOp::SetCellVar);
        if sets_var && !checks.items::<Board>().iter().any(declared) {
            let kind = match modifier.op {
                BoardOp::SetVar => "vars",
                BoardOp::SetCellVar => "cell_vars",
                _ => "column_vars",
            };
            checks.error(
                path.clone().index(at).field("var"),
                format!("no board declares `{}` in its {kind}", modifier.var),
            );
        }
    }
}

impl ValueChecks for Deck {
    fn check_values(&self, checks: &mut Checks<'_>) {
        if self.fragments.is_empty() && self.default_fragment.is_none() {
            checks.warning(FieldPath::root().field("fragments"), "the deck is empty and has no default card");
        }
    }
}

impl ValueChecks for Slot {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        check_counts(checks, &root.clone().field("fragments"), &self.fragments, "a count");
        for (field, list, what) in [
            ("required", &self.required, "a required count"),
            ("essential", &self.essential, "an essential count"),
            ("forbidden", &self.forbidden, "a forbidden count"),
        ] {
            check_counts(checks, &root.clone().field(field), list, what);
            for (at, entry) in list.iter().enumerate() {
                checks.whole_number(
                    root.clone().field(field).index(at).field("count"),
                    &entry.count,
                    "which cards a slot accepts is decided when the player's choices are listed, outside any rule",
                );
            }
        }
        check_tests(checks, &root.clone().field("spawn_tests"), &self.spawn_tests);
        let filters = !self.required.is_empty() || !self.essential.is_empty() || !self.forbidden.is_empty();
        if self.accept_all && (filters || self.card_rule.is_some()) {
            checks.warning(
                root.field("accept_all"),
                "accept_all skips the required, essential, forbidden and card rule checks",
            );
        }
    }
}

impl ValueChecks for Rule {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        check_tests(checks, &root.clone().field("requirements").field("tests"), &self.requirements.tests);
        check_effects(checks, &root.clone().field("effects"), &self.effects);
        check_board_modifiers(
            checks,
            &root.clone().field("effects").field("board_modifiers"),
            &self.effects.board_modifiers,
        );
        for (at, modifier) in self.effects.hand_modifiers.iter().enumerate() {
            let path = root.clone().field("effects").field("hand_modifiers").index(at);
            if modifier.op == crate::model::HandOp::Boost {
                if modifier.property.is_empty() {
                    checks.error(path.clone().field("property"), "a Boost names the card property it changes");
                } else {
                    checks.name(path.clone().field("property"), &modifier.property, "property");
                }
            }
            if modifier.keep.is_some() && modifier.op != crate::model::HandOp::SinkTop {
                checks.warning(path.field("keep"), "only SinkTop reads `keep`");
            }
        }
        if self.requirements.and.iter().chain(&self.requirements.or).any(|id| id == &self.id) {
            checks.error(root.field("requirements"), "the rule requires itself, which never finishes evaluating");
        }
    }
}

impl ValueChecks for Act {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        if self.initial && self.token.is_none() {
            checks.error(root.clone().field("initial"), "an initial act needs a token to start from");
        }
        checks.not_negative(root.clone().field("duration_ticks"), &self.duration_ticks, "a duration");
        check_tests(checks, &root.clone().field("requirements").field("tests"), &self.requirements.tests);
        check_counts(checks, &root.clone().field("fragments"), &self.fragments, "a count");
        check_effects(checks, &root.clone().field("effects"), &self.effects);
        check_links(checks, &root.clone().field("alt_acts"), &self.alt_acts, false);
        check_links(checks, &root.clone().field("next_acts"), &self.next_acts, false);
        check_links(checks, &root.field("spawned_acts"), &self.spawned_acts, true);
    }
}

impl ValueChecks for Token {
    fn check_values(&self, checks: &mut Checks<'_>) {
        checks.asset(FieldPath::root().field("art"), self.art.as_ref());
        let most = crate::model::MAX_WINDOW_PLACES;
        for (places, field) in [(self.idle_places, "idle_places"), (self.run_places, "run_places")] {
            if places > most {
                checks.error(
                    FieldPath::root().field(field),
                    format!("a window has at most {most} slot places of a kind (this is {places})"),
                );
            }
        }
        if self.idle_places == 0 {
            checks.warning(
                FieldPath::root().field("idle_places"),
                "a window without idle places takes no card while idle, so no initial act of it can start",
            );
        }
    }
}

impl ValueChecks for Formula {
    fn check_values(&self, _checks: &mut Checks<'_>) {}
}

impl ValueChecks for Stat {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        if self.rounding.is_some_and(|decimals| decimals > 12) {
            checks.error(root.clone().field("rounding"), "rounding is a number of decimals, at most 12");
        }
        if let (Some(low), Some(high)) =
            (self.min.as_ref().and_then(Expr::as_int), self.max.as_ref().and_then(Expr::as_int))
            && low > high
        {
            checks.error(root.clone().field("min"), format!("min ({low}) is above max ({high})"));
        }
        let (StatValue::Stored(value) | StatValue::Computed(value)) = &self.value;
        checks.finite(root.clone().field("value"), value, "a stat's value");
        if matches!(self.value, StatValue::Computed(_)) && !self.thresholds.is_empty() {
            checks.warning(
                root.field("thresholds"),
                "thresholds of a computed stat fire when its formula's value crosses them",
            );
        }
    }
}

impl ValueChecks for TurnConfig {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        checks.in_range(root.clone().field("hand_limit"), &self.hand_limit, 1, 1000, "the hand limit");
        if let Some(max) = &self.max_turns {
            checks.in_range(root.clone().field("max_turns"), max, 1, i64::MAX, "max_turns");
        }
        if self.draw_deck.is_none() && self.initial_hand.is_empty() {
            checks.warning(root.field("draw_deck"), "there is no draw deck and no initial hand: the game ends at once");
        }
    }
}

impl ValueChecks for Era {
    fn check_values(&self, checks: &mut Checks<'_>) {
        checks.in_range(
            FieldPath::root().field("duration_turns"),
            &self.duration_turns,
            1,
            i64::MAX,
            "an era's length",
        );
    }
}

impl ValueChecks for Synthesis {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        if self.temperature.as_int().is_some_and(|t| t <= 0) {
            checks.error(root.clone().field("temperature"), "the temperature must be above 0");
        }
        checks.finite(root.clone().field("temperature"), &self.temperature, "the temperature");
        checks.in_range(root.clone().field("success_chance"), &self.success_chance, 0, 100, "a chance in percent");
        if self.candidates.is_none() {
            checks.warning(root.clone().field("candidates"), "no candidate deck: the synthesis can make nothing");
        }
        let mut seen = BTreeSet::new();
        for (at, revelation) in self.revelations.iter().enumerate() {
            names(
                checks,
                root.clone().field("revelations").index(at).field("id"),
                &revelation.id,
                "revelation",
                &mut seen,
            );
        }
        if !self.revelations.is_empty() && self.revelation.is_none() {
            checks.warning(
                root.clone().field("revelations"),
                "no `revelation` dice check: these revelations are never granted",
            );
        }
        if let Some(bond) = &self.bond {
            if bond.gather.is_empty() {
                checks.warning(root.clone().field("bond").field("gather"), "a bound B gathers nothing");
            }
            for (from, into) in &bond.gather {
                checks.name(root.clone().field("bond").field("gather"), from, "property");
                checks.name(root.clone().field("bond").field("gather"), into, "property");
            }
            checks.not_negative(root.clone().field("bond").field("cost"), &bond.cost, "a cost");
        }
        if !self.extra_rules.is_empty() && self.extras.is_none() {
            checks.warning(root.field("extra_rules"), "no `extras` deck: these rules never run");
        }
    }
}

impl ValueChecks for Board {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        for (value, field) in [(self.columns, "columns"), (self.rows, "rows")] {
            if !(1..=64).contains(&value) {
                checks.error(root.clone().field(field), format!("{field} must be between 1 and 64 (it is {value})"));
            }
        }
        if let Some(facing) = &self.facing {
            if facing == &self.id {
                checks.error(root.clone().field("facing"), "a board cannot face itself");
            } else if let Some(other) = checks.item::<Board>(facing.as_str())
                && other.columns != self.columns
            {
                checks.error(
                    root.clone().field("facing"),
                    format!(
                        "`{facing}` has {} columns and this board {}; facing boards need the same number",
                        other.columns, self.columns
                    ),
                );
            }
        }
        for name in self.vars.keys().chain(self.column_vars.keys()).chain(self.cell_vars.keys()) {
            checks.name(root.clone().field("vars"), name, "board variable");
        }
        for (at, name) in self.secret.iter().enumerate() {
            let declared = [&self.vars, &self.column_vars, &self.cell_vars].iter().any(|vars| vars.contains_key(name));
            if !declared {
                checks.error(
                    root.clone().field("secret").index(at),
                    format!("`{name}` is not a variable of this board (vars, column_vars or cell_vars)"),
                );
            }
        }
        if self.die.is_some() && self.facing.is_none() {
            checks.warning(
                root.clone().field("facing"),
                "the board has a die but faces no board: `board.facing.*` reads NaN",
            );
        }
        for (at, card) in self.hand.iter().enumerate() {
            if checks.item::<Card>(card.as_str()).is_some_and(|card| card.board_play.is_none()) {
                checks.warning(
                    root.clone().field("hand").index(at),
                    format!("`{card}` has no board_play, so it can never be played"),
                );
            }
        }
    }
}

impl ValueChecks for TileMap {
    fn check_values(&self, checks: &mut Checks<'_>) {
        check_tile_map(self, checks);
        check_scheduler(self, checks);
    }
}

/// The width and height a PNG file's header gives, None when it is not a readable PNG.
fn png_size(path: &Path) -> Option<(u32, u32)> {
    use std::io::Read;
    let mut header = [0u8; 24];
    std::fs::File::open(path).ok()?.read_exact(&mut header).ok()?;
    // The 8-byte signature, then the IHDR chunk: length, "IHDR", width, height (big-endian).
    if header.get(..8)? != b"\x89PNG\r\n\x1a\n" || header.get(12..16)? != b"IHDR" {
        return None;
    }
    let number = |at: usize| header.get(at..at + 4).and_then(|b| b.try_into().ok()).map(u32::from_be_bytes);
    Some((number(16)?, number(20)?))
}

/// A tile map's palette: ids, pictures, slicing and terrain (FORMAT.md §9). Returns, per
/// entry, how many tiles it has (None when its sheet could not be read).
fn check_palette(map: &TileMap, checks: &mut Checks<'_>, root: &FieldPath) -> Vec<Option<usize>> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut tiles = Vec::with_capacity(map.palette.len());
    for (at, entry) in map.palette.iter().enumerate() {
        let path = root.clone().field("palette").index(at);
        let id = entry.id.as_str();
        if let Some(problem) = slug_problem(id) {
            checks.error(
                path.clone().field("id"),
                format!(
                    "palette entry {at} ({}): {problem}",
                    if entry.label.is_empty() { "no label" } else { &entry.label }
                ),
            );
        } else if let Some(first) = seen.insert(id, at) {
            seen.insert(id, first);
            checks.error(
                path.clone().field("id"),
                format!("palette entries {first} and {at} both have the id `{id}`; paint names entries by id, so ids must be unique"),
            );
        }
        checks.asset(path.clone().field("image"), entry.image.as_ref());
        check_terrain(checks, &path.clone().field("terrain"), &entry.terrain);
        let Some(tileset) = entry.tileset else {
            tiles.push(Some(1));
            continue;
        };
        if tileset.tile_width == 0 || tileset.tile_height == 0 {
            checks.error(path.field("tileset"), "the tile size must be at least 1×1 pixels");
            tiles.push(Some(0));
            continue;
        }
        let Some(image) = entry.image.as_deref() else {
            checks.error(path.field("tileset"), "a tileset slices a picture, but the entry has no `image`");
            tiles.push(Some(0));
            continue;
        };
        let size = checks.root.and_then(|folder| png_size(&folder.join(image)));
        let Some((width, height)) = size else {
            tiles.push(None);
            continue;
        };
        if let Some(problem) = tileset.problem(width, height) {
            if tileset.grid(width, height).tiles() == 0 {
                checks.error(path.field("tileset"), format!("`{image}`: {problem}"));
            } else {
                checks.warning(path.field("tileset"), format!("`{image}`: {problem}"));
            }
        }
        tiles.push(Some(tileset.grid(width, height).tiles()));
    }
    let tags: BTreeSet<&str> =
        map.palette.iter().flat_map(|entry| entry.terrain.tags.iter().map(String::as_str)).collect();
    if tags.len() > crate::map::MAX_TERRAIN_TAGS {
        checks.warning(
            root.clone().field("palette"),
            format!(
                "the palette uses {} terrain tags; regions can keep walkers off only the first {} (sorted by name)",
                tags.len(),
                crate::map::MAX_TERRAIN_TAGS
            ),
        );
    }
    tiles
}

/// Paint that names no entry of the palette, or a tile past the entry's sheet: drawn unpainted.
fn check_paint(
    map: &TileMap,
    checks: &mut Checks<'_>,
    path: &FieldPath,
    (column, tile): (&crate::model::Column, &crate::model::Tile),
    tiles: &[Option<usize>],
    lookup: &PaletteLookup,
) {
    const FACES: [&str; 6] = ["neg_x", "neg_y", "pos_x", "pos_y", "bottom", "top"];
    for (face, paint) in FACES.into_iter().zip(tile.paint.to_array()) {
        let Some(paint) = paint else { continue };
        let at = format!("cell ({}, {}) level {} face {face}", column.x, column.y, tile.z);
        let problem = if let Some(index) = paint.legacy() {
            Some(format!(
                "{at}: paint by palette index ({index}) is the old form; load and save the map (or run `actforge fmt`) to name entry ids"
            ))
        } else if let Some(entry) = lookup.index(paint.entry) {
            tiles.get(entry).copied().flatten().filter(|count| usize::from(paint.tile) >= *count).map(|count| {
                format!(
                    "{at}: `{paint}` names tile {} but the palette entry `{}` has {count} tile{} (0 to {}); the face is drawn unpainted",
                    paint.tile,
                    paint.entry,
                    if count == 1 { "" } else { "s" },
                    count.saturating_sub(1)
                )
            })
        } else {
            Some(format!(
                "{at}: `{paint}` names no palette entry of the map `{}` (ids: {}); the face is drawn unpainted",
                map.id.as_str(),
                map.palette.iter().map(|entry| entry.id.as_str()).collect::<Vec<_>>().join(", ")
            ))
        };
        if let Some(problem) = problem {
            checks.error(path.clone().field("paint").field(face), problem);
        }
    }
}

fn check_tile_map(map: &TileMap, checks: &mut Checks<'_>) {
    let root = FieldPath::root();
    for (value, field) in [(map.width, "width"), (map.depth, "depth")] {
        if !(1..=MAX_MAP_SIDE).contains(&value) {
            checks.error(
                root.clone().field(field),
                format!("{field} must be between 1 and {MAX_MAP_SIDE} cells (it is {value})"),
            );
        }
    }
    for (value, field) in [(map.cell_size, "cell_size"), (map.level_height, "level_height")] {
        if !(value.is_finite() && value > 0.0) {
            checks.error(root.clone().field(field), format!("{field} must be a positive number (it is {value})"));
        }
    }
    let tiles = check_palette(map, checks, &root);
    let lookup = PaletteLookup::new(&map.palette);
    let mut seen_cells = BTreeSet::new();
    let mut previous: Option<(u16, u16)> = None;
    for (column_at, column) in map.columns.iter().enumerate() {
        let column_path = root.clone().field("columns").index(column_at);
        if column.x >= map.width || column.y >= map.depth {
            checks.error(
                column_path.clone(),
                format!("the column ({}, {}) is outside the {}×{} map", column.x, column.y, map.width, map.depth),
            );
        }
        if !seen_cells.insert((column.x, column.y)) {
            checks.error(
                column_path.clone(),
                format!("the cell ({}, {}) has two columns; merge them", column.x, column.y),
            );
        }
        if previous.is_some_and(|(x, y)| (y, x) > (column.y, column.x)) {
            checks
                .warning(column_path.clone(), "columns should be sorted by (y, x); saving from the editor sorts them");
        }
        previous = Some((column.x, column.y));
        let mut floor = 0u32;
        for (tile_at, tile) in column.tiles.iter().enumerate() {
            let path = column_path.clone().field("tiles").index(tile_at);
            let heights = tile.heights.to_array();
            let baselines = tile.baselines.to_array();
            if heights.iter().any(|h| *h == 0 || *h > MAX_TILE_HEIGHT) {
                checks.error(
                    path.clone().field("heights"),
                    format!("corner heights must be between 1 and {MAX_TILE_HEIGHT}"),
                );
            }
            if heights.iter().zip(baselines).any(|(h, b)| b >= *h) {
                checks.error(path.clone().field("baselines"), "each corner's baseline must be below its height");
            }
            if tile.top_z() > u32::from(MAX_Z_LEVELS) {
                checks.error(
                    path.clone().field("z"),
                    format!("the tile reaches level {}; maps have levels 0 to {}", tile.top_z(), MAX_Z_LEVELS - 1),
                );
            }
            if u32::from(tile.z) < floor {
                checks.error(
                    path.clone().field("z"),
                    format!("the tile at level {} overlaps the tile below it, which reaches level {floor}; tiles must be sorted and apart", tile.z),
                );
            }
            floor = floor.max(tile.top_z());
            let insets = tile.insets.to_array();
            if insets.iter().any(|v| !(v.is_finite() && (0.0..1.0).contains(v))) {
                checks.error(path.clone().field("insets"), "insets are fractions from 0 up to (not including) 1");
            } else if tile.insets.neg_x + tile.insets.pos_x >= 1.0
                || tile.insets.neg_y + tile.insets.pos_y >= 1.0
                || tile.insets.bottom + tile.insets.top >= f32::from(tile.max_height())
            {
                checks.error(
                    path.clone().field("insets"),
                    "opposite insets overlap: together they must stay below the tile's size",
                );
            }
            check_paint(map, checks, &path, (column, tile), &tiles, &lookup);
        }
    }
    for (at, placement) in map.placements.iter().enumerate() {
        if placement.x >= map.width || placement.y >= map.depth {
            checks.error(
                root.clone().field("placements").index(at),
                format!("({}, {}) is outside the map", placement.x, placement.y),
            );
        }
    }
    check_props(map, checks);
    check_win_conditions(map, checks);
}

/// Props stand on the map with a size of at least one cell, one cell and one level that fits it.
fn check_props(map: &TileMap, checks: &mut Checks<'_>) {
    let root = FieldPath::root();
    for (at, prop) in map.props.iter().enumerate() {
        let path = root.clone().field("props").index(at);
        let (size_x, size_y, size_z) = prop.size;
        if prop.x >= map.width || prop.y >= map.depth {
            checks.error(path, format!("({}, {}) is outside the map", prop.x, prop.y));
        } else if size_x == 0 || size_y == 0 || size_z == 0 {
            checks.error(
                path.field("size"),
                format!("a prop's size ({size_x}, {size_y}, {size_z}) is at least 1 cell, 1 cell and 1 level"),
            );
        } else if u32::from(prop.x) + u32::from(size_x) > u32::from(map.width)
            || u32::from(prop.y) + u32::from(size_y) > u32::from(map.depth)
            || u32::from(prop.z) + u32::from(size_z) > u32::from(MAX_Z_LEVELS)
        {
            checks.error(
                path.field("size"),
                format!(
                    "a {size_x}×{size_y}×{size_z} prop at ({}, {}, level {}) does not fit the {}×{} map of {MAX_Z_LEVELS} levels",
                    prop.x, prop.y, prop.z, map.width, map.depth
                ),
            );
        }
    }
}

/// The scheduler's settings: only those its kind uses, a team order that plays every team
/// placed, and points a round to pick with.
fn check_scheduler(map: &TileMap, checks: &mut Checks<'_>) {
    use crate::model::SchedulerKind;
    let scheduler = &map.scheduler;
    let root = FieldPath::root().field("scheduler");
    let rounds = scheduler.kind != SchedulerKind::Ct;
    let points = scheduler.kind == SchedulerKind::TeamPoints;
    if scheduler.coalesce_ct && rounds {
        checks.warning(root.clone().field("coalesce_ct"), "coalesce_ct is only used by the CT scheduler");
    }
    if !rounds && !scheduler.teams.is_empty() {
        checks
            .warning(root.clone().field("teams"), "teams (the round order) is only used by the team-round schedulers");
    }
    let unused = [
        ("points_per_round", scheduler.points_per_round.is_some()),
        ("unit_points", scheduler.unit_points.is_some()),
        ("points_diminish", scheduler.points_diminish.is_some()),
        ("move_points", scheduler.move_points.is_some()),
    ];
    for (name, given) in unused {
        if given && !points {
            checks
                .warning(root.clone().field(name), format!("{name} is only used by the points scheduler (TeamPoints)"));
        }
    }
    if points && scheduler.points_per_round == Some(0) {
        checks.error(root.clone().field("points_per_round"), "a team with 0 points a round can never pick a unit");
    }
    if rounds && !scheduler.teams.is_empty() {
        for placement in &map.placements {
            if !placement.team.is_empty() && !scheduler.teams.contains(&placement.team) {
                checks.warning(
                    root.clone().field("teams"),
                    format!("team `{}` is placed but not in the round order: it never plays", placement.team),
                );
            }
        }
    }
}

fn check_win_conditions(map: &TileMap, checks: &mut Checks<'_>) {
    let root = FieldPath::root();
    for (at, condition) in map.win_conditions.iter().enumerate() {
        let path = root.clone().field("win_conditions").index(at).field("team");
        if condition.team.is_empty() {
            checks.error(path, "name the team that wins");
        } else if !map.placements.iter().any(|placement| placement.team == condition.team)
            && !map.placements.is_empty()
            && map.placements.iter().all(|placement| !placement.team.is_empty())
        {
            checks.warning(path, format!("no placement on this map is on team `{}`", condition.team));
        }
    }
}

impl ValueChecks for NodeMap {
    fn check_values(&self, checks: &mut Checks<'_>) {
        check_node_map(self, checks);
    }
}

fn check_node_map(map: &NodeMap, checks: &mut Checks<'_>) {
    let root = FieldPath::root();
    let mut nodes: BTreeMap<&str, usize> = BTreeMap::new();
    for (at, node) in map.nodes.iter().enumerate() {
        let path = root.clone().field("nodes").index(at);
        if let Some(problem) = slug_problem(node.id.as_str()) {
            checks.error(path.clone().field("id"), problem);
        } else if is_keyword(node.id.as_str()) || node.id.as_str() == "current" {
            checks.error(
                path.clone().field("id"),
                format!("`{}` cannot be a node id: formulas read node.current and keywords specially", node.id),
            );
        }
        if nodes.insert(node.id.as_str(), at).is_some() {
            checks.error(path.clone().field("id"), format!("two nodes are called `{}`", node.id));
        }
        if !(node.x.is_finite() && node.y.is_finite()) {
            checks.error(path.clone().field("x"), "the position must be finite numbers");
        }
        for name in node.properties.keys() {
            checks.name(path.clone().field("properties"), name, "property");
        }
        let mut seen = BTreeSet::new();
        for (index, option) in node.options.iter().enumerate() {
            names(checks, path.clone().field("options").index(index).field("id"), &option.id, "option", &mut seen);
        }
    }
    let mut successors: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut seen_edges = BTreeSet::new();
    for (at, edge) in map.edges.iter().enumerate() {
        let path = root.clone().field("edges").index(at);
        for (end, field) in [(&edge.from, "from"), (&edge.to, "to")] {
            if !nodes.contains_key(end.as_str()) {
                checks.error(path.clone().field(field), format!("there is no node `{end}` in this map"));
            }
        }
        if edge.from == edge.to {
            checks.error(path.clone(), "a path cannot lead from a node to itself");
        }
        if !seen_edges.insert((edge.from.as_str(), edge.to.as_str())) {
            checks.warning(path.clone(), format!("the path {} → {} is listed twice", edge.from, edge.to));
        }
        checks.not_negative(path.field("cost"), &edge.cost, "a path cost");
        successors.entry(edge.from.as_str()).or_default().push(edge.to.as_str());
    }
    if let Some(cycle) = find_cycle(&successors) {
        checks.error(
            root.clone().field("edges"),
            format!("the paths form a cycle ({}); a node map must be acyclic", cycle.join(" → ")),
        );
    }
    match &map.start {
        Some(start) if !nodes.contains_key(start.as_str()) => {
            checks.error(root.field("start"), format!("there is no node `{start}` in this map"));
        }
        Some(start) => {
            let reached = reachable_from(start.as_str(), &successors);
            for node in &map.nodes {
                if !reached.contains(node.id.as_str()) {
                    let at = nodes.get(node.id.as_str()).copied().unwrap_or(0);
                    checks.warning(
                        root.clone().field("nodes").index(at),
                        format!("the node `{}` cannot be reached from the start `{start}`", node.id),
                    );
                }
            }
        }
        None if !map.nodes.is_empty() => checks.warning(root.clone().field("start"), "the map has no start node"),
        None => {}
    }
    check_campaign(map, &nodes, &successors, checks);
}

/// A campaign name (phase, grade, patrol) must be a slug, unique among its kind.
fn names(checks: &mut Checks<'_>, path: FieldPath, name: &str, what: &str, seen: &mut BTreeSet<String>) {
    if let Some(problem) = slug_problem(name) {
        checks.error(path.clone(), format!("a {what} name: {problem}"));
    }
    if !seen.insert(name.to_owned()) {
        checks.error(path, format!("two {what}s are called `{name}`"));
    }
}

/// The campaign parts of a node map: phase, patrol and grade names, patrol routes along paths.
fn check_campaign(
    map: &NodeMap,
    nodes: &BTreeMap<&str, usize>,
    successors: &BTreeMap<&str, Vec<&str>>,
    checks: &mut Checks<'_>,
) {
    let root = FieldPath::root();
    let mut seen = BTreeSet::new();
    for (at, phase) in map.phases.iter().enumerate() {
        names(checks, root.clone().field("phases").index(at).field("name"), &phase.name, "phase", &mut seen);
    }
    let mut seen = BTreeSet::new();
    for (at, grade) in map.grades.iter().enumerate() {
        names(checks, root.clone().field("grades").index(at).field("id"), &grade.id, "grade", &mut seen);
    }
    let mut seen = BTreeSet::new();
    let joined = |a: &str, b: &str| {
        a == b
            || successors.get(a).is_some_and(|next| next.contains(&b))
            || successors.get(b).is_some_and(|next| next.contains(&a))
    };
    for (at, patrol) in map.patrols.iter().enumerate() {
        let path = root.clone().field("patrols").index(at);
        names(checks, path.clone().field("id"), &patrol.id, "patrol", &mut seen);
        if patrol.route.is_empty() {
            checks.error(path.clone().field("route"), "a patrol needs at least one node on its route");
        }
        for (step, node) in patrol.route.iter().enumerate() {
            if !nodes.contains_key(node.as_str()) {
                checks.error(path.clone().field("route").index(step), format!("there is no node `{node}` in this map"));
            }
        }
        for (step, pair) in patrol.route.windows(2).enumerate() {
            if let [a, b] = pair
                && !joined(a.as_str(), b.as_str())
            {
                checks.error(
                    path.clone().field("route").index(step + 1),
                    format!("no path joins `{a}` and `{b}`: a patrol walks along paths"),
                );
            }
        }
        if let (Some(first), Some(last)) = (patrol.route.first(), patrol.route.last())
            && patrol.route.len() > 1
            && !joined(last.as_str(), first.as_str())
        {
            checks.error(
                path.field("route"),
                format!("no path joins `{last}` back to `{first}`: a patrol's route loops"),
            );
        }
    }
    let paid_from = [
        ("cost_stat", map.cost_stat.as_ref()),
        ("synthesis_cost_stat", map.synthesis_cost_stat.as_ref()),
        ("cards.cost_stat", map.cards.cost_stat.as_ref()),
    ];
    for (field, stat) in paid_from {
        if let Some(stat) = stat.and_then(|id| checks.item::<Stat>(id.as_str()))
            && !stat.value.is_stored()
        {
            let path = field.split('.').fold(root.clone(), FieldPath::field);
            checks.error(path, format!("the stat `{}` is computed; costs are paid from a stored stat", stat.id));
        }
    }
    for kind in map.kind_rules.keys() {
        if !map.nodes.iter().any(|node| matches!(&node.kind, crate::model::NodeKind::Custom(name) if name == kind)) {
            checks.warning(root.clone().field("kind_rules"), format!("no node has the kind `{kind}`"));
        }
    }
    check_card_cycle(map, checks);
    let battles = FieldPath::root().field("battles");
    let mut seen = BTreeSet::new();
    for (at, trigger) in map.battles.triggers.iter().enumerate() {
        let path = battles.clone().field("triggers").index(at);
        names(checks, path.clone().field("id"), &trigger.id, "battle", &mut seen);
        if trigger.enemies.is_empty() {
            checks.warning(path.field("enemies"), "the battle has no enemy: the player wins it at once");
        }
    }
    if let Some(stat) = map.battles.core_stat.as_ref().and_then(|id| checks.item::<Stat>(id.as_str()))
        && !stat.value.is_stored()
    {
        checks.error(
            battles.field("core_stat"),
            format!("the stat `{}` is computed; a lost battle takes damage from a stored stat", stat.id),
        );
    }
}

/// The card cycle: deck and play names, the draw phase, and parts that do nothing.
fn check_card_cycle(map: &NodeMap, checks: &mut Checks<'_>) {
    let cards = &map.cards;
    let root = FieldPath::root().field("cards");
    let mut seen = BTreeSet::new();
    for (at, deck) in cards.decks.iter().enumerate() {
        let path = root.clone().field("decks").index(at);
        names(checks, path.clone().field("id"), &deck.id, "deck", &mut seen);
        if deck.cards.is_empty() {
            checks.warning(path.field("cards"), "the deck has no cards: drawing from it draws nothing");
        }
    }
    if let Some(phase) = &cards.draw_phase
        && !map.phases.iter().any(|known| known.name == *phase)
    {
        let known: Vec<&str> = map.phases.iter().map(|known| known.name.as_str()).collect();
        let known = if known.is_empty() { "none".to_owned() } else { known.join(", ") };
        checks.error(root.clone().field("draw_phase"), format!("the map has no phase `{phase}` (its phases: {known})"));
    }
    let mut played = BTreeSet::new();
    for (at, play) in cards.plays.iter().enumerate() {
        if !played.insert(play.card.as_str()) {
            checks.error(
                root.clone().field("plays").index(at).field("card"),
                format!("`{}` is played by an earlier entry: one entry per card", play.card),
            );
        }
    }
    let draws = !cards.hand_limit.is_zero() || !cards.extra_draw_cost.is_zero();
    if cards.decks.is_empty() && draws {
        checks.warning(root.field("decks"), "the card cycle has no decks: nothing is drawn");
    }
}

/// A cycle in the graph, as the list of nodes along it (first repeated at the end).
fn find_cycle<'a>(successors: &BTreeMap<&'a str, Vec<&'a str>>) -> Option<Vec<&'a str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        OnStack,
        Done,
    }
    let mut marks: BTreeMap<&str, Mark> = BTreeMap::new();
    for &start in successors.keys() {
        if marks.contains_key(start) {
            continue;
        }
        // Iterative depth-first search: (node, next successor index); the stack is the path.
        let mut stack: Vec<(&str, usize)> = vec![(start, 0)];
        marks.insert(start, Mark::OnStack);
        while let Some((node, next)) = stack.last().copied() {
            let children = successors.get(node).map_or(&[][..], Vec::as_slice);
            if let Some(&child) = children.get(next) {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                match marks.get(child) {
                    Some(Mark::OnStack) => {
                        let from = stack.iter().position(|(n, _)| *n == child).unwrap_or(0);
                        let mut cycle: Vec<&str> = stack.iter().skip(from).map(|(n, _)| *n).collect();
                        cycle.push(child);
                        return Some(cycle);
                    }
                    Some(Mark::Done) => {}
                    None => {
                        marks.insert(child, Mark::OnStack);
                        stack.push((child, 0));
                    }
                }
            } else {
                marks.insert(node, Mark::Done);
                stack.pop();
            }
        }
    }
    None
}

fn reachable_from<'a>(start: &'a str, successors: &BTreeMap<&'a str, Vec<&'a str>>) -> BTreeSet<&'a str> {
    let mut reached = BTreeSet::from([start]);
    let mut queue = vec![start];
    while let Some(node) = queue.pop() {
        for &next in successors.get(node).map_or(&[][..], Vec::as_slice) {
            if reached.insert(next) {
                queue.push(next);
            }
        }
    }
    reached
}

impl ValueChecks for Unit {
    fn check_values(&self, checks: &mut Checks<'_>) {
        checks.asset(FieldPath::root().field("art"), self.art.as_ref());
        for name in self.stats.keys().chain(self.limits.keys()) {
            checks.name(FieldPath::root().field("stats"), name, "stat");
        }
        for (name, value) in &self.stats {
            let mut path = FieldPath::root().field("stats");
            path.push(crate::model::PathSegment::Key(name.clone()));
            checks.finite(path, value, &format!("the stat `{name}`"));
        }
        for name in self.limits.keys() {
            if !self.stats.contains_key(name) {
                checks.warning(FieldPath::root().field("limits"), format!("`{name}` has limits but no stat formula"));
            }
        }
        check_worn(checks, self);
    }
}

/// A unit's equipment fits its slots: each slot name is taken at most as often as the unit
/// has it.
fn check_worn(checks: &mut Checks<'_>, unit: &Unit) {
    let mut free: BTreeMap<&str, usize> = BTreeMap::new();
    for slot in &unit.slots {
        let counted = free.entry(slot.as_str()).or_insert(0);
        *counted = counted.saturating_add(1);
    }
    for (at, id) in unit.equipment.iter().enumerate() {
        let Some(item) = checks.item::<Equipment>(id.as_str()) else { continue };
        let mut needs: BTreeMap<&str, usize> = BTreeMap::new();
        for slot in &item.slots {
            let counted = needs.entry(slot.as_str()).or_insert(0);
            *counted = counted.saturating_add(1);
        }
        let mut short = Vec::new();
        for (slot, count) in needs {
            let left = free.entry(slot).or_insert(0);
            if *left < count {
                short.push(format!("{count} `{slot}` (free: {left})"));
            }
            *left = left.saturating_sub(count);
        }
        if !short.is_empty() {
            checks.error(
                FieldPath::root().field("equipment").index(at),
                format!(
                    "`{id}` needs {} slot(s) the unit does not have free; add them to `slots` (the unit has: {})",
                    short.join(", "),
                    if unit.slots.is_empty() { "none".to_owned() } else { unit.slots.join(", ") }
                ),
            );
        }
    }
}

impl ValueChecks for Equipment {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        for (at, slot) in self.slots.iter().enumerate() {
            checks.name(root.clone().field("slots").index(at), slot, "slot");
        }
        for (at, category) in self.categories.iter().enumerate() {
            checks.name(root.clone().field("categories").index(at), category, "category");
        }
        for name in self.params.keys() {
            checks.name(root.clone().field("params"), name, "parameter");
        }
        check_passive(checks, &root.clone().field("passive_effects"), &self.passive_effects, Passive::Equipment);
        for (at, status) in self.status_effects.iter().enumerate() {
            let path = root.clone().field("status_effects").index(at);
            check_status(checks, &path, status, true);
        }
    }
}

impl ValueChecks for Skill {
    fn check_values(&self, checks: &mut Checks<'_>) {
        let root = FieldPath::root();
        for name in self.params.keys() {
            checks.name(root.clone().field("params"), name, "parameter");
        }
        check_region(checks, &root.clone().field("target_region"), &self.target_region);
        check_region(checks, &root.clone().field("effect_region"), &self.effect_region);
        for (at, hit) in self.hit_types.iter().enumerate() {
            for (index, status) in hit.status_effects.iter().enumerate() {
                let path = root.clone().field("hit_types").index(at).field("status_effects").index(index);
                check_status(checks, &path, status, false);
            }
            for (index, line_move) in hit.line_moves.iter().enumerate() {
                let path = root.clone().field("hit_types").index(at).field("line_moves").index(index).field("region");
                check_region(checks, &path, &line_move.region);
            }
        }
        if self.kind == SkillKind::Move && self.target_region.shape == RegionShape::SelfOnly {
            checks.warning(
                root.clone().field("target_region").field("shape"),
                "a move whose region is SelfOnly has only the unit's own spot: it goes nowhere",
            );
        }
        check_skill_group(checks, self);
        checks.not_negative(root.clone().field("delay"), &self.delay, "delay");
        if self.kind == SkillKind::Move && !self.delay.is_zero() {
            checks.warning(root.clone().field("delay"), "a move skill does not charge: its delay is not used");
        }
        // A skill with only a reaction or passive effects is passive: it is never used.
        let passive = self.reaction.is_some() || !self.passive_effects.is_empty();
        if self.kind == SkillKind::Action && self.hit_types.is_empty() && !passive {
            checks.warning(root.clone().field("hit_types"), "an action skill without hit types has no effect");
        }
        check_passive(checks, &root.clone().field("passive_effects"), &self.passive_effects, Passive::Skill);
        if let Some(reaction) = &self.reaction {
            check_reaction(checks, &root.field("reaction"), reaction);
        }
    }
}

/// A skill's group path has no empty level, and what it replaces is a skill or group of the
/// project other than itself.
fn check_skill_group(checks: &mut Checks<'_>, skill: &Skill) {
    let root = FieldPath::root();
    if !skill.group.is_empty() && skill.group.split("//").any(|level| level.trim().is_empty()) {
        checks.warning(
            root.clone().field("group"),
            format!("`{}` has an empty level: levels are separated by `//` (\"Act//Black Magic\")", skill.group),
        );
    }
    let path = skill.replaces.trim();
    if path.is_empty() {
        if skill.replacement_priority != 0 {
            checks.warning(root.field("replacement_priority"), "replacement_priority is only used with replaces");
        }
        return;
    }
    let named: Vec<&Skill> =
        checks.items::<Skill>().iter().filter(|other| crate::engine::tactics::names_skill(path, other)).collect();
    if named.is_empty() {
        checks.error(
            root.field("replaces"),
            format!("`{path}` names no skill (a skill id, `GROUP//ID`, or a group ending in `//`)"),
        );
    } else if named.iter().all(|other| other.id == skill.id) {
        checks.warning(root.field("replaces"), "a skill cannot replace itself: it replaces nothing");
    }
}

/// A status effect's values: a name, a duration that can put it on, a positive tick interval
/// that something uses, and per-tick effects that change the holder. A `worn` status (an
/// equipment's) lasts while the equipment is worn, so it has no duration.
fn check_status(checks: &mut Checks<'_>, path: &FieldPath, status: &StatusEffect, worn: bool) {
    if status.name.trim().is_empty() {
        checks.error(path.clone().field("name"), "a status needs a name (formulas ask `exists(t.status.NAME)`)");
    }
    checks.not_negative(path.clone().field("duration_ticks"), &status.duration_ticks, "duration_ticks");
    if worn {
        if !status.duration_ticks.is_zero() {
            checks.warning(
                path.clone().field("duration_ticks"),
                "an equipment's status lasts while the equipment is worn: its duration_ticks is not used",
            );
        }
    } else if status.unremovable {
        if !status.duration_ticks.is_zero() {
            checks.warning(
                path.clone().field("duration_ticks"),
                "an unremovable status lasts the whole battle: its duration_ticks is not used",
            );
        }
    } else if status.duration_ticks.as_int().is_some_and(|ticks| ticks < 1) {
        checks.warning(
            path.clone().field("duration_ticks"),
            "a status lasting 0 ticks is never put on (give duration_ticks, or make it unremovable)",
        );
    }
    checks.finite(path.clone().field("tick_interval"), &status.tick_interval, "tick_interval");
    if status.tick_interval.as_int().is_some_and(|interval| interval <= 0) {
        checks.error(
            path.clone().field("tick_interval"),
            format!("tick_interval must be above 0 (it is {})", status.tick_interval.text()),
        );
    }
    if status.tick_effects.is_empty() && !status.tick_interval.is_one() {
        checks.warning(
            path.clone().field("tick_interval"),
            "tick_interval is only used by tick_effects, and there are none",
        );
    }
    check_passive(checks, &path.clone().field("stat_effects"), &status.stat_effects, Passive::Status);
    check_passive(checks, &path.clone().field("tick_effects"), &status.tick_effects, Passive::Status);
}

/// A reaction: what sets it off, where it reaches and what it does.
fn check_reaction(checks: &mut Checks<'_>, path: &FieldPath, reaction: &crate::model::Reaction) {
    let triggers = [
        ("attacker_stat_changes", &reaction.attacker_stat_changes),
        ("defender_stat_changes", &reaction.defender_stat_changes),
    ];
    for (field, list) in triggers {
        for (at, trigger) in list.iter().enumerate() {
            checks.name(path.clone().field(field).index(at).field("stat"), &trigger.stat, "stat");
        }
    }
    for (field, list) in [
        ("attacker_effect_types", &reaction.attacker_effect_types),
        ("defender_effect_types", &reaction.defender_effect_types),
    ] {
        for (at, kind) in list.iter().enumerate() {
            checks.name(path.clone().field(field).index(at), kind, "reactable type");
        }
    }
    for name in reaction.params.keys() {
        checks.name(path.clone().field("params"), name, "parameter");
    }
    let untriggered = reaction.attacker_stat_changes.is_empty()
        && reaction.defender_stat_changes.is_empty()
        && reaction.attacker_effect_types.is_empty()
        && reaction.defender_effect_types.is_empty();
    if untriggered {
        checks.warning(path.clone(), "a reaction with no stat changes and no effect types to react to never happens");
    }
    if reaction.hit_types.is_empty() {
        checks.warning(path.clone().field("hit_types"), "a reaction without hit types has no effect");
    }
    check_region(checks, &path.clone().field("region"), &reaction.region);
    for (at, hit) in reaction.hit_types.iter().enumerate() {
        for (index, status) in hit.status_effects.iter().enumerate() {
            let status_path = path.clone().field("hit_types").index(at).field("status_effects").index(index);
            check_status(checks, &status_path, status, false);
        }
    }
}

/// Whose passive (or per-tick) stat effects these are: it decides what their amounts can read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Passive {
    /// A status's: `c` the holder only.
    Status,
    /// An equipment's: `c` the wielder and `equip.` this item.
    Equipment,
    /// A skill's: `c` the unit and `skill.` this skill.
    Skill,
}

/// Stat effects that change their holder, their amounts read with `c` the holder and no
/// target (SRPGCK passes no target to passive effects): `t.` and `arg.*` read NaN there, and
/// `skill.` outside a skill.
fn check_passive(checks: &mut Checks<'_>, path: &FieldPath, effects: &[crate::model::StatEffect], owner: Passive) {
    use crate::formula::Scope;
    let (holder, whose) = match owner {
        Passive::Status => {
            ("a status's amounts are read with `c` the unit that holds it", "a status changes the unit that holds it")
        }
        Passive::Equipment => (
            "an equipment's passive amounts are read with `c` the unit that wields it",
            "an equipment changes the unit that wields it",
        ),
        Passive::Skill => (
            "a skill's passive amounts are read with `c` the unit that has it",
            "a passive effect changes the unit that has the skill",
        ),
    };
    for (at, effect) in effects.iter().enumerate() {
        let effect_path = path.clone().index(at);
        checks.name(effect_path.clone().field("stat"), &effect.stat, "stat");
        checks.finite(effect_path.clone().field("value"), &effect.value, "the amount");
        let unread: Vec<String> = crate::model::lookups(&effect.value)
            .into_iter()
            .filter(|lookup| {
                matches!(
                    lookup.scope,
                    Scope::Target
                        | Scope::TargetIsNull
                        | Scope::TargetIsNotNull
                        | Scope::TargetMount
                        | Scope::TargetMounter
                        | Scope::TargetStatus
                ) || (lookup.scope == Scope::Skill && owner != Passive::Skill)
                    || (lookup.scope == Scope::Auto && lookup.name.starts_with("arg."))
            })
            .map(|lookup| crate::formula::lookup_text(&lookup))
            .collect();
        if !unread.is_empty() {
            let extra = if owner == Passive::Skill { "" } else { " or skill" };
            checks.warning(
                effect_path.clone().field("value"),
                format!("{holder}, and no target{extra}: {} reads NaN here", unread.join(", ")),
            );
        }
        if effect.target == EffectTarget::Actor {
            checks.warning(effect_path.field("target"), format!("{whose}: `target: Actor` is not used here"));
        }
    }
}

/// A palette entry's terrain (FORMAT.md §9 "Terrain").
fn check_terrain(checks: &mut Checks<'_>, path: &FieldPath, terrain: &crate::model::Terrain) {
    if terrain.move_cost < 0 {
        checks.error(
            path.clone().field("move_cost"),
            format!("move_cost must be 0 or more (it is {}); a walk cannot gain steps", terrain.move_cost),
        );
    }
    if !terrain.defence.is_finite() {
        checks.error(path.clone().field("defence"), format!("defence must be a number (it is {})", terrain.defence));
    }
    let mut seen = BTreeSet::new();
    for (at, tag) in terrain.tags.iter().enumerate() {
        checks.name(path.clone().field("tags").index(at), tag, "terrain tag");
        if !seen.insert(tag) {
            checks.warning(path.clone().field("tags").index(at), format!("the tag `{tag}` is listed twice"));
        }
    }
}

fn check_region(checks: &mut Checks<'_>, path: &FieldPath, region: &Region) {
    for (at, tag) in region.no_enter_tags.iter().enumerate() {
        let known = checks
            .items::<TileMap>()
            .iter()
            .any(|map| map.palette.iter().any(|entry| entry.terrain.tags.contains(tag)));
        if !known {
            checks.warning(
                path.clone().field("no_enter_tags").index(at),
                format!("no palette entry has the terrain tag `{tag}`; it keeps nothing out"),
            );
        }
    }
    for (expr, field) in [
        (&region.radius_min, "radius_min"),
        (&region.radius_max, "radius_max"),
        (&region.z_up_min, "z_up_min"),
        (&region.z_up_max, "z_up_max"),
        (&region.z_down_min, "z_down_min"),
        (&region.z_down_max, "z_down_max"),
        (&region.line_width_min, "line_width_min"),
        (&region.line_width_max, "line_width_max"),
        (&region.fly_ceiling, "fly_ceiling"),
    ] {
        checks.not_negative(path.clone().field(field), expr, field);
    }
    if let (Some(low), Some(high)) = (region.radius_min.as_int(), region.radius_max.as_int())
        && low > high
    {
        checks.error(path.clone().field("radius_min"), format!("radius_min ({low}) is above radius_max ({high})"));
    }
    checks.in_range(path.clone().field("n_ways"), &region.n_ways, 1, 360, "n_ways");
    check_region_fields(checks, path, region);
    let takes_parts = matches!(region.shape, RegionShape::NWay | RegionShape::Compound);
    if takes_parts && region.subregions.is_empty() {
        checks.error(path.clone().field("subregions"), format!("a {:?} region needs subregions", region.shape));
    } else if !takes_parts && !region.subregions.is_empty() {
        checks.warning(path.clone().field("subregions"), "only NWay and Compound regions use subregions");
    }
    for (at, sub) in region.subregions.iter().enumerate() {
        check_region(checks, &path.clone().field("subregions").index(at), sub);
    }
}

/// Region fields that the region's shape or space cannot use (they would change nothing),
/// and combinations that reach nothing.
fn check_region_fields(checks: &mut Checks<'_>, path: &FieldPath, region: &Region) {
    let shape = region.shape;
    let cone = shape == RegionShape::Cone;
    for (expr, field, used) in [
        (&region.xy_arc_min, "xy_arc_min", cone),
        (&region.xy_arc_max, "xy_arc_max", cone),
        (&region.z_arc_min, "z_arc_min", cone),
        (&region.z_arc_max, "z_arc_max", cone),
        (&region.forward_clip_max, "forward_clip_max", cone),
        (&region.z_direction, "z_direction", matches!(shape, RegionShape::Line | RegionShape::Cone)),
    ] {
        if !used && !expr.is_zero() {
            checks.warning(
                path.clone().field(field),
                format!("a {shape:?} region does not use {field}; it changes nothing"),
            );
        }
    }
    if region.space != InterveningSpace::Fly && !region.fly_ceiling.is_zero() {
        checks.warning(
            path.clone().field("fly_ceiling"),
            format!("only Fly space uses fly_ceiling, not {:?}; it changes nothing", region.space),
        );
    }
    if region.use_arc_range_bonus && shape != RegionShape::Cylinder {
        checks.warning(
            path.clone().field("use_arc_range_bonus"),
            format!("only Cylinder regions use the arc range bonus, not {shape:?}"),
        );
    }
    if cone {
        for (low, high, field) in [
            (&region.xy_arc_min, &region.xy_arc_max, "xy_arc_min"),
            (&region.z_arc_min, &region.z_arc_max, "z_arc_min"),
        ] {
            if let (Some(low), Some(high)) = (low.as_int(), high.as_int())
                && low > high
            {
                checks.error(
                    path.clone().field(field),
                    format!("{field} ({low}) is above its maximum ({high}): the cone holds no spot"),
                );
            }
        }
    }
    let grouped = matches!(shape, RegionShape::Compound | RegionShape::NWay);
    let reaches = matches!(region.space, InterveningSpace::Path | InterveningSpace::Arc);
    if grouped && reaches && region.radius_max.is_zero() && region.line_width_max.is_zero() {
        checks.warning(
            path.clone().field("radius_max"),
            format!(
                "a {shape:?} region in {:?} space walks or throws within its own radius_max, which is 0: \
                 only the centre is reached; give it a radius_max",
                region.space
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ActLink, Id, MapEdge, MapNode};

    fn messages(project: &Project) -> Vec<String> {
        validate(project, &Sources::memory(), None).iter().map(ToString::to_string).collect()
    }

    #[test]
    fn dangling_references_and_bad_ids_are_reported() {
        let mut project = Project::new("p");
        project.acts.insert(Act { id: Id::new("Start"), next_acts: vec![ActLink::to("nowhere")], ..Act::default() });
        let found = messages(&project);
        assert!(
            found.iter().any(|m| m.contains("act `Start`, next_acts[0].act: there is no act `nowhere`")),
            "{found:?}"
        );
        assert!(found.iter().any(|m| m.contains("must start with a lowercase letter")), "{found:?}");
    }

    #[test]
    fn constant_formulas_that_are_not_finite_are_errors_where_a_number_is_needed() {
        let mut project = Project::new("p");
        project.acts.insert(Act { id: Id::new("wait"), duration_ticks: Expr::new("0/0"), ..Act::default() });
        project.syntheses.insert(Synthesis {
            id: Id::new("forge"),
            temperature: Expr::new("1/0"),
            success_chance: Expr::new("50"),
            ..Synthesis::default()
        });
        project.units.insert(Unit {
            id: Id::new("scout"),
            stats: [("speed".to_owned(), Expr::new("0/0 + 1"))].into(),
            ..Unit::default()
        });
        let found = messages(&project);
        for expected in [
            "duration_ticks: a duration must be a finite number, but `0/0` is NaN",
            "temperature: the temperature must be a finite number, but `1/0` is inf",
            "stats[\"speed\"]: the stat `speed` must be a finite number",
        ] {
            assert!(found.iter().any(|m| m.contains(expected)), "{expected}: {found:?}");
        }
    }

    #[test]
    fn instant_act_cycles_are_warned_once_each() {
        let mut project = Project::new("p");
        let act = |id: &str, next: &str, ticks: i64| Act {
            id: Id::new(id),
            next_acts: vec![ActLink::to(next)],
            duration_ticks: Expr::int(ticks),
            ..Act::default()
        };
        // Issue 27.5: an instant act that is its own next act; a two-act instant loop; a loop
        // with a timed act in it, which waits for the clock and is no instant cycle.
        project.acts.insert(act("again", "again", 0));
        project.acts.insert(act("ping", "pong", 0));
        project.acts.insert(act("pong", "ping", 0));
        project.acts.insert(act("tick", "tock", 0));
        project.acts.insert(act("tock", "tick", 10));
        let found = messages(&project);
        let cycles: Vec<&String> = found.iter().filter(|m| m.contains("instant cycle")).collect();
        assert_eq!(cycles.len(), 2, "{found:?}");
        assert!(cycles.iter().any(|m| m.contains("(again → again)")), "{cycles:?}");
        assert!(cycles.iter().any(|m| m.contains("(ping → pong → ping)")), "{cycles:?}");
    }

    #[test]
    fn node_map_cycles_name_the_cycle() {
        let mut project = Project::new("p");
        let node = |id: &str| MapNode { id: Id::new(id), ..MapNode::default() };
        let edge = |from: &str, to: &str| MapEdge {
            from: Id::new(from),
            to: Id::new(to),
            style: crate::model::EdgeStyle::Solid,
            unlock: None,
            cost: Expr::default(),
        };
        project.node_maps.insert(NodeMap {
            id: Id::new("map"),
            start: Some(Id::new("a")),
            nodes: vec![node("a"), node("b"), node("c")],
            edges: vec![edge("a", "b"), edge("b", "c"), edge("c", "b")],
            ..NodeMap::default()
        });
        let found = messages(&project);
        assert!(found.iter().any(|m| m.contains("cycle (b → c → b)")), "{found:?}");
    }

    #[test]
    fn node_maps_report_unreachable_nodes_and_unknown_names_in_unlock_conditions() {
        let mut project = Project::new("p");
        let node = |id: &str| MapNode { id: Id::new(id), ..MapNode::default() };
        project.node_maps.insert(NodeMap {
            id: Id::new("map"),
            start: Some(Id::new("a")),
            nodes: vec![node("a"), node("b"), node("c")],
            edges: vec![MapEdge {
                from: Id::new("a"),
                to: Id::new("b"),
                style: crate::model::EdgeStyle::Dashed,
                unlock: Some(Expr::new("node.b.visited + mystery")),
                cost: Expr::default(),
            }],
            ..NodeMap::default()
        });
        let found = messages(&project);
        assert!(found.iter().any(|m| m.contains("the node `c` cannot be reached from the start `a`")), "{found:?}");
        assert!(
            found.iter().any(|m| m.contains("edges[0].unlock") && m.contains("unknown name `mystery`")),
            "{found:?}"
        );
        assert!(!found.iter().any(|m| m.contains("node.b.visited")), "{found:?}");
    }

    #[test]
    fn tile_overlaps_and_bad_insets_are_reported() {
        use crate::model::{Column, Tile};
        let mut project = Project::new("p");
        let mut inset = Tile::cube(3);
        inset.insets.neg_x = 0.7;
        inset.insets.pos_x = 0.5;
        project.tile_maps.insert(TileMap {
            id: Id::new("m"),
            columns: vec![Column { x: 0, y: 0, tiles: vec![Tile::cube(0), Tile::cube(0), inset] }.into()],
            ..TileMap::default()
        });
        let found = messages(&project);
        assert!(found.iter().any(|m| m.contains("columns[0].tiles[1].z: the tile at level 0 overlaps")), "{found:?}");
        assert!(found.iter().any(|m| m.contains("columns[0].tiles[2].insets: opposite insets overlap")), "{found:?}");
    }

    #[test]
    fn line_move_regions_of_hit_types_are_checked() {
        use crate::model::{Expr, HitType, LineMoveEffect};
        let mut project = Project::new("p");
        let region = Region { radius_max: Expr::int(-2), ..Region::default() };
        project.skills.insert(Skill {
            id: Id::new("shove"),
            hit_types: vec![HitType {
                label: "Shoved".to_owned(),
                line_moves: vec![LineMoveEffect { region, ..LineMoveEffect::default() }],
                ..HitType::default()
            }],
            ..Skill::default()
        });
        let found = messages(&project);
        assert!(found.iter().any(|m| m.contains("hit_types[0].line_moves[0].region.radius_max")), "{found:?}");
    }

    #[test]
    fn region_fields_their_shape_cannot_use_and_regions_that_reach_nothing_are_reported() {
        use crate::model::{Expr, HitType};
        let mut project = Project::new("p");
        let skill = |id: &str, target_region: Region| Skill {
            id: Id::new(id),
            target_region,
            hit_types: vec![HitType { label: "Hit".to_owned(), ..HitType::default() }],
            ..Skill::default()
        };
        let arcs = Region { z_arc_max: Expr::int(30), forward_clip_max: Expr::int(2), ..Region::default() };
        project.skills.insert(skill("arcs", arcs));
        let bonus = Region { shape: RegionShape::Sphere, use_arc_range_bonus: true, ..Region::default() };
        project.skills.insert(skill("bonus", bonus));
        let inverted = Region {
            shape: RegionShape::Cone,
            xy_arc_min: Expr::int(60),
            xy_arc_max: Expr::int(30),
            ..Region::default()
        };
        project.skills.insert(skill("inverted", inverted));
        let walked = Region {
            shape: RegionShape::Compound,
            space: InterveningSpace::Path,
            subregions: vec![Region { radius_max: Expr::int(2), ..Region::default() }],
            ..Region::default()
        };
        project.skills.insert(skill("walked", walked));
        let found = messages(&project);
        for expected in [
            "target_region.z_arc_max: a Cylinder region does not use z_arc_max",
            "target_region.forward_clip_max: a Cylinder region does not use forward_clip_max",
            "target_region.use_arc_range_bonus: only Cylinder regions use the arc range bonus, not Sphere",
            "target_region.xy_arc_min: xy_arc_min (60) is above its maximum (30)",
            "target_region.radius_max: a Compound region in Path space walks or throws within its own radius_max",
        ] {
            assert!(found.iter().any(|m| m.contains(expected)), "{expected}: {found:?}");
        }
    }
}
