//! The table as a host of the rules core (`spec/cultistlike.md` §2.3–§2.7): rule contexts
//! (scope, matched cards, queued modifiers), counting at locations, card tests that filter the
//! matches, and queueing modifiers that `step/modifiers.rs` performs when the context closes.

use crate::model::{
    ActModifier, ActOp, CardId, CardModifier, CardOp, DeckId, DeckModifier, DeckOp, Effects, Expr, FragmentRef,
    Location, PathModifier, Requirements, Rule, RuleId, TableModifier, Test,
};

use rand_core::Rng as _;

use crate::engine::content::Content;
use crate::engine::core::{self, Nested, RulesHost};
use crate::engine::table::step::Engine;
use crate::engine::table::{CardKey, Fragment, Holder, TableState, TokenKey};

/// Where a rule is evaluated at the table and what it has queued (§2.3): the scope (an act
/// window, or one card), the matched cards, the card and fragment whose trigger runs, the
/// modifiers waiting for the context to close, and how deep it is in rules nested in rules.
#[derive(Clone, Debug)]
pub(crate) struct RuleContext {
    /// An act window, or one card for card contexts.
    pub scope: Holder,
    /// The matched-cards list.
    pub matches: Matches,
    /// The card whose trigger runs.
    pub this_card: Option<CardKey>,
    /// The fragment whose trigger runs.
    pub this_fragment: Option<Fragment>,
    pub queues: Queues,
    pub depth: usize,
}

/// A context's matched cards (§2.3): until a card test filters them, every card of the scope.
/// Kept unlisted until then: most contexts (an entry attempt that fails, a chance) never list
/// them, and the state does not change while a context evaluates.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Matches {
    /// Every card of the context's scope, as it is now.
    All,
    /// These cards.
    Listed(Vec<CardKey>),
}

impl Matches {
    /// The cards, listed (every card of `scope` for [`Matches::All`]).
    fn into_listed(self, scope: Holder, state: &TableState) -> Vec<CardKey> {
        match self {
            Self::All => state.cards_of(scope),
            Self::Listed(cards) => cards,
        }
    }
}

/// A modifier's target after special fragments are resolved.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Target {
    None,
    Fragment(Fragment),
    Cards(Vec<CardKey>),
}

/// Modifiers evaluated and waiting for the context to close.
#[derive(Clone, Debug, Default)]
pub(crate) struct Queues {
    pub act: Vec<(ActOp, Target, i64, bool)>,
    pub card: Vec<(CardOp, Vec<CardKey>, Target, i64)>,
    pub table: Vec<TableModifier>,
    pub path: Vec<PathModifier>,
    pub deck: Vec<(DeckOp, Option<DeckId>, Target)>,
    pub destroy: Vec<CardKey>,
}

/// A fragment field after §2.4's substitution, for counting.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Resolved {
    Fragment(Fragment),
    /// The `___MatchedCards` placeholder or an unset special: counts 0.
    Nothing,
}

impl RuleContext {
    /// A fresh context on `scope` whose matches are all its cards.
    pub fn new(scope: Holder, depth: usize) -> Self {
        Self { scope, matches: Matches::All, this_card: None, this_fragment: None, queues: Queues::default(), depth }
    }

    /// The matched cards, listed.
    pub fn matched(&self, state: &TableState) -> Vec<CardKey> {
        match &self.matches {
            Matches::All => state.cards_of(self.scope),
            Matches::Listed(cards) => cards.clone(),
        }
    }

    /// The matched cards, listed, taking them out of the context.
    pub fn into_matched(self, state: &TableState) -> Vec<CardKey> {
        match self.matches {
            Matches::All => state.cards_of(self.scope),
            Matches::Listed(cards) => cards,
        }
    }

    /// Calls `f` on every matched card, in order.
    pub fn for_each_matched(&self, state: &TableState, f: &mut impl FnMut(CardKey)) {
        match &self.matches {
            Matches::All => state.for_each_card(self.scope, &mut |key, _| f(key)),
            Matches::Listed(cards) => cards.iter().for_each(|key| f(*key)),
        }
    }

    /// How many cards are matched.
    pub fn matched_len(&self, state: &TableState) -> usize {
        let mut count = 0usize;
        self.for_each_matched(state, &mut |_| count = count.saturating_add(1));
        count
    }

    /// The act window of the context, if it is one.
    pub fn window(&self) -> Option<TokenKey> {
        match self.scope {
            Holder::Window(token) => Some(token),
            _ => None,
        }
    }
}

impl<'a> Engine<'a> {
    /// §2.4 substitution of a fragment field for counting.
    pub(crate) fn resolve(&self, fragment: &FragmentRef, ctx: &RuleContext) -> Resolved {
        let found = match fragment {
            FragmentRef::Aspect(id) => Some(Fragment::Aspect(id.clone())),
            FragmentRef::Card(id) => Some(Fragment::Card(id.clone())),
            FragmentRef::ThisFragment => ctx.this_fragment.clone(),
            FragmentRef::ThisCard => {
                ctx.this_card.and_then(|key| self.state.card(key)).map(|card| Fragment::Card(card.card.clone()))
            }
            FragmentRef::MatchedCards => None,
            FragmentRef::MemoryFragment => self.memory_of(ctx.scope),
        };
        found.map_or(Resolved::Nothing, Resolved::Fragment)
    }

    /// The memory fragment of a scope.
    pub(crate) fn memory_of(&self, scope: Holder) -> Option<Fragment> {
        match scope {
            Holder::Window(token) => self.state.window(token).and_then(|window| window.memory.clone()),
            Holder::Card(key) => self.state.card(key).and_then(|card| card.memory.clone()),
            _ => None,
        }
    }

    /// §2.4 substitution of a fragment field as a modifier target.
    pub(crate) fn target(&self, fragment: Option<&FragmentRef>, ctx: &RuleContext) -> Target {
        match fragment {
            None => Target::None,
            Some(FragmentRef::ThisCard) => ctx.this_card.map_or(Target::None, |key| Target::Cards(vec![key])),
            Some(FragmentRef::MatchedCards) => Target::Cards(ctx.matched(self.state)),
            Some(other) => match self.resolve(other, ctx) {
                Resolved::Fragment(fragment) => Target::Fragment(fragment),
                Resolved::Nothing => Target::None,
            },
        }
    }

    /// The holder a location names in a context (none for the heap, which tables lack).
    pub(crate) fn holder_at(location: Location, ctx: &RuleContext) -> Option<Holder> {
        match location {
            Location::Scope => Some(ctx.scope),
            Location::Slots => ctx.window().map(Holder::Slots),
            Location::Heap | Location::MatchedCards => None,
            Location::Table => Some(Holder::Table),
            Location::Anywhere | Location::Free => Some(Holder::Root),
        }
    }

    /// How many of `fragment` are at `location` (§2.2); `None` counts cards (only at
    /// the matched location, where a null fragment means "how many matched cards").
    pub(crate) fn count_at(&self, location: Location, fragment: Option<&Resolved>, ctx: &RuleContext) -> i64 {
        if location == Location::MatchedCards {
            let mut total: i64 = 0;
            match fragment {
                None => total = ctx.matched_len(self.state) as i64,
                Some(Resolved::Nothing) => {}
                Some(Resolved::Fragment(Fragment::Card(card_type))) => ctx.for_each_matched(self.state, &mut |key| {
                    total = total
                        .saturating_add(i64::from(self.state.card(key).is_some_and(|card| card.card == *card_type)));
                }),
                Some(Resolved::Fragment(aspect)) => ctx.for_each_matched(self.state, &mut |key| {
                    total = total.saturating_add(self.state.count(Holder::Card(key), aspect, false));
                }),
            }
            return total;
        }
        let Some(holder) = Self::holder_at(location, ctx) else { return 0 };
        let free_only = location == Location::Free;
        match fragment {
            None => {
                let mut count: i64 = 0;
                self.state.for_each_card(holder, &mut |_, card| {
                    count = count.saturating_add(i64::from(!free_only || card.free));
                });
                count
            }
            Some(Resolved::Nothing) => 0,
            Some(Resolved::Fragment(fragment)) => self.state.count(holder, fragment, free_only),
        }
    }

    /// `value`, multiplied by the count of `reference` at `location` when there is one (a
    /// test's right side, an act modifier's level).
    fn times_count(&self, value: i64, reference: Option<&FragmentRef>, location: Location, ctx: &RuleContext) -> i64 {
        match reference {
            None => value,
            Some(reference) => {
                let resolved = self.resolve(reference, ctx);
                value.saturating_mul(self.count_at(location, Some(&resolved), ctx))
            }
        }
    }

    /// Attempts one test; card tests filter the context's matches (§2.5).
    pub(crate) fn attempt_test(&mut self, test: &'a Test, ctx: &mut RuleContext) -> bool {
        core::test_holds(self, test, ctx)
    }

    /// Evaluates requirements (§2.6 `evaluate`); `force` records matches and always passes.
    pub(crate) fn evaluate(
        &mut self,
        requirements: &'a Requirements,
        invert: bool,
        force: bool,
        ctx: &mut RuleContext,
    ) -> bool {
        core::evaluate(self, requirements, invert, force, ctx)
    }

    /// Evaluates a rule in a fresh context on `scope` (link and spawn rules).
    pub(crate) fn evaluate_rule(&mut self, rule: &RuleId, scope: Holder, depth: usize) -> bool {
        core::evaluate_rule(self, rule, &mut RuleContext::new(scope, depth))
    }

    /// `run(rule, ctx)`: evaluate, and execute when it passes.
    pub(crate) fn run_rule(&mut self, rule: &RuleId, ctx: &mut RuleContext) -> bool {
        core::run_rule(self, rule, ctx)
    }

    /// `execute` of an act's own effects: queue every modifier, then run the furthermore rules.
    pub(crate) fn execute(&mut self, effects: &'a Effects, ctx: &mut RuleContext) {
        core::execute(self, effects, None, ctx);
    }

    /// A card test (§2.5): the context's matches are filtered card by card (or sliced).
    fn filter_matches(&mut self, test: &Test, constant: i64, right: i64, ctx: &mut RuleContext) -> bool {
        let first = test.fragment1.as_ref().map(|fragment| self.resolve(fragment, ctx));
        let pool = if test.loc1 == Location::MatchedCards {
            ctx.matched(self.state)
        } else {
            Self::holder_at(test.loc1, ctx).map(|holder| self.state.cards_of(holder)).unwrap_or_default()
        };
        let free_ok = |engine: &Self, key: CardKey| {
            test.loc1 != Location::Free || engine.state.card(key).is_some_and(|card| card.free)
        };
        match first {
            None => {
                // Slicing: keep the first `right` matches.
                if right > 0 {
                    let mut kept = std::mem::replace(&mut ctx.matches, Matches::All).into_listed(ctx.scope, self.state);
                    kept.truncate(usize::try_from(right).unwrap_or(usize::MAX));
                    ctx.matches = Matches::Listed(kept);
                    true
                } else {
                    false
                }
            }
            Some(Resolved::Nothing) => {
                ctx.matches = Matches::Listed(Vec::new());
                core::compare(test.op, 0, right)
            }
            Some(Resolved::Fragment(Fragment::Aspect(aspect))) => {
                let fragment = Fragment::Aspect(aspect);
                let mut matching = Vec::new();
                for key in pool {
                    let left = self.state.count(Holder::Card(key), &fragment, false);
                    if core::decide(self, test.op, constant, left, right) && free_ok(self, key) {
                        matching.push(key);
                    }
                }
                let passed = !matching.is_empty();
                ctx.matches = Matches::Listed(matching);
                passed
            }
            Some(Resolved::Fragment(Fragment::Card(card_type))) => {
                let matching: Vec<CardKey> = pool
                    .into_iter()
                    .filter(|key| {
                        self.state.card(*key).is_some_and(|card| card.card == card_type) && free_ok(self, *key)
                    })
                    .collect();
                let count = matching.len() as i64;
                ctx.matches = Matches::Listed(matching);
                core::decide(self, test.op, constant, count, right)
            }
        }
    }

    fn card_modifier(&mut self, modifier: &CardModifier, ctx: &RuleContext) -> (CardOp, Vec<CardKey>, Target, i64) {
        let targets = match self.target(modifier.target.as_ref(), ctx) {
            Target::None => Vec::new(),
            Target::Cards(cards) => cards,
            Target::Fragment(fragment) => {
                self.state.cards_of(ctx.scope).into_iter().filter(|key| self.holds(*key, &fragment)).collect()
            }
        };
        let what = self.target(modifier.fragment.as_ref(), ctx);
        let level = self.number(&modifier.level, ctx);
        // A card modifier's `___MatchedCards` reference counts the matches (§2.4).
        let level = match &modifier.reference {
            Some(FragmentRef::MatchedCards) => level.saturating_mul(ctx.matched_len(self.state) as i64),
            reference => self.times_count(level, reference.as_ref(), Location::Scope, ctx),
        };
        (modifier.op, targets, what, level)
    }

    fn deck_modifier(&self, modifier: &DeckModifier, ctx: &RuleContext) -> (DeckOp, Option<DeckId>, Target) {
        let deck = modifier.deck.clone().or_else(|| {
            let from = modifier.deck_from.as_ref()?;
            let fragment = match self.target(Some(from), ctx) {
                Target::Fragment(fragment) => fragment,
                Target::Cards(cards) => Fragment::Card(self.state.card(*cards.first()?)?.card.clone()),
                Target::None => return None,
            };
            match fragment {
                Fragment::Aspect(id) => self.content.aspect(id.as_str())?.deck.clone(),
                Fragment::Card(id) => self.content.card(id.as_str())?.deck.clone(),
            }
        });
        (modifier.op, deck, self.target(modifier.fragment.as_ref(), ctx))
    }

    /// Whether card `key` is of type / holds at least one of `fragment`.
    pub(crate) fn holds(&self, key: CardKey, fragment: &Fragment) -> bool {
        match fragment {
            Fragment::Card(card_type) => self.state.card(key).is_some_and(|card| card.card == *card_type),
            Fragment::Aspect(_) => self.state.count(Holder::Card(key), fragment, false) > 0,
        }
    }

    /// The card type of a card, if it exists.
    pub(crate) fn type_of(&self, key: CardKey) -> Option<CardId> {
        self.state.card(key).map(|card| card.card.clone())
    }
}

/// The table lends the rules core its contexts: counts at table locations, the matched-cards
/// list that card tests filter, and modifier queues performed when the context closes.
impl<'a> RulesHost<'a> for Engine<'a> {
    fn work(&mut self) -> &mut crate::engine::core::StepWork {
        &mut self.work
    }

    type Context = RuleContext;

    fn content(&self) -> &'a Content {
        self.content
    }

    fn system(&self) -> &'static str {
        "the table system"
    }

    fn warn(&mut self, message: String) {
        Engine::warn(self, message);
    }

    fn evaluated(&mut self) {
        self.evaluations = self.evaluations.saturating_add(1);
    }

    fn value(&mut self, expr: &'a Expr, ctx: &RuleContext) -> f64 {
        self.formula_value(expr, ctx)
    }

    fn trace(&mut self, expr: &'a Expr, ctx: &RuleContext) -> Option<crate::formula::FormulaTrace> {
        self.formula_trace(expr, ctx)
    }

    fn count(&mut self, location: Location, fragment: &'a FragmentRef, ctx: &RuleContext) -> i64 {
        let resolved = self.resolve(fragment, ctx);
        self.count_at(location, Some(&resolved), ctx)
    }

    /// The number of matched cards at `MatchedCards` (§2.2: "use a Test with `loc1 = 32` and a
    /// null `fragment1`"); elsewhere a test without a fragment counts 0.
    fn count_unnamed(&mut self, location: Location, ctx: &RuleContext) -> i64 {
        if location == Location::MatchedCards { self.count_at(location, None, ctx) } else { 0 }
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn card_test(&mut self, test: &'a Test, constant: i64, right: i64, ctx: &mut RuleContext) -> Option<bool> {
        Some(self.filter_matches(test, constant, right, ctx))
    }

    /// And/or sub-rules use the act window (D16), or the card of a card context.
    fn sub_context(&self, ctx: &RuleContext, depth: usize) -> RuleContext {
        RuleContext::new(ctx.window().map_or(ctx.scope, Holder::Window), depth)
    }

    fn furthermore_context(&mut self, ctx: &mut RuleContext) {
        ctx.matches = Matches::All;
    }

    fn act_modifiers(&mut self, list: &'a [ActModifier], _rule: Option<&'a Rule>, ctx: &mut RuleContext) {
        for modifier in list {
            let target = self.target(modifier.fragment.as_ref(), ctx);
            let level = self.number(&modifier.level, ctx);
            let level = self.times_count(level, modifier.reference.as_ref(), modifier.ref_loc, ctx);
            let all = modifier.level.is_zero();
            ctx.queues.act.push((modifier.op, target, level, all));
        }
    }

    fn card_modifiers(&mut self, list: &'a [CardModifier], _rule: Option<&'a Rule>, ctx: &mut RuleContext) {
        for modifier in list {
            let queued = self.card_modifier(modifier, ctx);
            ctx.queues.card.push(queued);
        }
    }

    fn table_modifiers(&mut self, list: &'a [TableModifier], _rule: Option<&'a Rule>, ctx: &mut RuleContext) {
        ctx.queues.table.extend(list.iter().cloned());
    }

    fn deck_modifiers(&mut self, list: &'a [DeckModifier], _rule: Option<&'a Rule>, ctx: &mut RuleContext) {
        for modifier in list {
            let queued = self.deck_modifier(modifier, ctx);
            ctx.queues.deck.push(queued);
        }
    }

    fn path_modifiers(&mut self, list: &'a [PathModifier], _rule: Option<&'a Rule>, ctx: &mut RuleContext) {
        ctx.queues.path.extend(list.iter().cloned());
    }
}

impl Nested for RuleContext {
    fn depth(&self) -> usize {
        self.depth
    }
    fn set_depth(&mut self, depth: usize) {
        self.depth = depth;
    }
}
