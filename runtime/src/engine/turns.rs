//! The turns system (`spec/cardsim.md`, FORMAT.md §13): a hand of issue cards with options, a
//! rule collection run by step each turn (equal steps in a seeded shuffle), stats stored or
//! computed by formula, deferred messages, warnings that continue and errors that stop, and
//! "end of history" when hand and deck are both empty.
//!
//! It shares the engine's core: the content's compiled formulas and game-state accessors, the
//! model's rules (requirements, effects, modifiers), the session's seeded generator and its
//! outcome. What is particular to turns lives here: [`TurnsState`] and the turn step.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::hash::{Hash, Hasher};

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

use crate::formula::{Env, FormulaSet, ProjectNames, Slot};
use crate::model::{
    CardId, DeckId, DeckOp, Expr, FragmentRef, Id, PathOp, Requirements, RuleId, RuleModifier, RuleOp, Stat, StatOp,
    StatOrder, StatValue, Test, TestOp, TurnConfig, slugify,
};
use crate::number::{round_to, show_value};

use super::content::{Accessor, Content};
use super::rules::{MAX_RULE_DEPTH, compare};
use super::state::Outcome;
use super::{Choice, ChoiceError, Event, Session};

/// The outcome when the hand and the deck are both empty.
pub const END_OF_HISTORY: &str = "end of history";

/// The outcome when `max_turns` turns have been played.
pub const TURN_LIMIT: &str = "the last turn was played";

/// How deep computed stats may read other computed stats (a cycle reads NaN past it).
const MAX_STAT_DEPTH: usize = 16;

/// A message to the player. Plain text for now; a struct so that formatted text can be added
/// without breaking what reads `text`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Message {
    /// The text.
    pub text: String,
}

/// One stat as the player sees it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StatLine {
    /// The stat's id.
    pub id: Id<Stat>,
    /// Its display name (its label, or its id when it has none).
    pub name: String,
    /// The exact value.
    pub value: f64,
    /// The value rounded to the stat's decimals (the exact value when it has no rounding).
    pub shown: f64,
    /// The shown value as text (`12.50` with two decimals).
    pub text: String,
    /// Shown only in debug mode.
    pub hidden: bool,
}

/// The state of the turns system: turn counter, hand, draw pile, rule collection, stored stats
/// and the last turn's report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TurnsState {
    /// The turn config played.
    pub config: Id<TurnConfig>,
    /// The current turn, from 1.
    pub turn: u32,
    /// The cards in the hand, in the order they arrived.
    pub hand: Vec<CardId>,
    /// The deck drawn from, if any.
    pub deck_id: Option<DeckId>,
    /// The draw pile, next card first.
    pub deck: Vec<CardId>,
    /// The rule collection, in the order rules were added (each rule at most once).
    pub rules: Vec<RuleId>,
    /// The values of stored stats.
    pub stored: BTreeMap<Id<Stat>, f64>,
    /// The messages reported at the end of the last turn.
    pub messages: Vec<Message>,
    /// The warnings reported during the last turn.
    pub warnings: Vec<String>,
    /// How the turns ended, once they have (it ends the whole game unless the table is in play).
    pub outcome: Option<Outcome>,
}

impl Hash for TurnsState {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.config.hash(state);
        self.turn.hash(state);
        self.hand.hash(state);
        self.deck_id.hash(state);
        self.deck.hash(state);
        self.rules.hash(state);
        super::hash_values(&self.stored, state);
        self.messages.hash(state);
        self.warnings.hash(state);
        self.outcome.hash(state);
    }
}

/// The formula environment of the turns system: stats (stored, or computed on reading), the
/// turn number, card properties; table counts have no value here.
struct TurnsEnv<'a> {
    content: &'a Content,
    accessors: &'a [Accessor],
    stored: &'a BTreeMap<Id<Stat>, f64>,
    turn: u32,
    rng: &'a mut Pcg64Mcg,
    depth: usize,
    /// The table, for counts in queries over a project that plays both systems.
    table: Option<(&'a super::table::Engine<'a>, &'a super::rules::Ctx)>,
}

impl TurnsEnv<'_> {
    fn stat(&mut self, id: &Id<Stat>) -> f64 {
        if let Some(value) = self.stored.get(id) {
            return *value;
        }
        let Some(stat) = self.content.project.stats.get(id.as_str()) else { return f64::NAN };
        if self.depth >= MAX_STAT_DEPTH {
            return f64::NAN;
        }
        let mut inner = TurnsEnv {
            content: self.content,
            accessors: &self.content.accessors,
            stored: self.stored,
            turn: self.turn,
            rng: &mut *self.rng,
            depth: self.depth + 1,
            table: None,
        };
        inner.expr(stat.value.expr())
    }

    fn expr(&mut self, expr: &Expr) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let content = self.content;
        content.formula(expr).map_or(f64::NAN, |compiled| content.formulas().eval(compiled, self))
    }
}

impl Env for TurnsEnv<'_> {
    fn value(&mut self, slot: Slot) -> f64 {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(id)) => {
                let id = id.clone();
                self.stat(&id)
            }
            Some(Accessor::Turn) => f64::from(self.turn),
            Some(Accessor::Constant(value)) => *value,
            Some(Accessor::Count(location, fragment)) => self.table.map_or(f64::NAN, |(engine, ctx)| {
                let fragment = super::rules::Resolved::Fragment(fragment.clone());
                engine.count_at(*location, Some(&fragment), ctx) as f64
            }),
            Some(Accessor::Cards(location)) => {
                self.table.map_or(f64::NAN, |(engine, ctx)| engine.count_at(*location, None, ctx) as f64)
            }
            Some(Accessor::Campaign(_) | Accessor::Missing) | None => f64::NAN,
        }
    }
    fn has(&mut self, slot: Slot) -> bool {
        match self.accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(_) | Accessor::Turn | Accessor::Constant(_)) => true,
            Some(Accessor::Count(..) | Accessor::Cards(_)) => self.table.is_some(),
            Some(Accessor::Campaign(_) | Accessor::Missing) | None => false,
        }
    }
    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// One step of the turns system: content, state, generator, the session's outcome and the
/// events produced.
struct Turns<'a> {
    content: &'a Content,
    state: &'a mut TurnsState,
    rng: &'a mut Pcg64Mcg,
    events: &'a mut Vec<Event>,
    /// Rule-collection changes requested while the collection runs, applied after it.
    deferred: Option<Vec<RuleModifier>>,
    /// Messages of this turn, reported at its end.
    messages: Vec<Message>,
}

impl Turns<'_> {
    fn env(&mut self) -> TurnsEnv<'_> {
        TurnsEnv {
            content: self.content,
            accessors: &self.content.accessors,
            stored: &self.state.stored,
            turn: self.state.turn,
            rng: &mut *self.rng,
            depth: 0,
            table: None,
        }
    }

    fn value(&mut self, expr: &Expr) -> f64 {
        self.env().expr(expr)
    }

    fn stat_value(&mut self, id: &Id<Stat>) -> f64 {
        self.env().stat(id)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.rng.next_u64() % n as u64) as usize }
    }

    fn shuffle<T>(&mut self, items: &mut [T]) {
        for index in (1..items.len()).rev() {
            let other = self.below(index + 1);
            items.swap(index, other);
        }
    }

    fn ended(&self) -> bool {
        self.state.outcome.is_some()
    }

    fn warn(&mut self, message: String) {
        self.state.warnings.push(message.clone());
        self.events.push(Event::TurnWarning(message));
    }

    fn end_game(&mut self, outcome: Outcome) {
        if self.state.outcome.is_some() {
            return;
        }
        let text = match &outcome {
            Outcome::Ended(text) => text.clone(),
            Outcome::Stopped(text) => {
                self.events.push(Event::TurnError(text.clone()));
                text.clone()
            }
        };
        self.state.outcome = Some(outcome);
        self.events.push(Event::GameEnded { outcome: text });
    }

    /// Sets a stored stat, kept within its limits, and reports the change.
    fn set_stat(&mut self, stat: &Stat, value: f64) {
        let mut value = value;
        if let Some(max) = &stat.max {
            let max = self.value(max);
            if value > max {
                value = max;
            }
        }
        if let Some(min) = &stat.min {
            let min = self.value(min);
            if value < min {
                value = min;
            }
        }
        let old = self.state.stored.insert(stat.id.clone(), value);
        if old.is_none_or(|old| old.to_bits() != value.to_bits()) {
            self.events.push(Event::StatChanged { stat: stat.id.clone(), value: show_value(value, stat.rounding) });
        }
    }

    /// How many of a fragment the hand holds: cards of a type, or an aspect summed over cards.
    fn hand_count(&mut self, fragment: Option<&FragmentRef>) -> i64 {
        match fragment {
            None => self.state.hand.len() as i64,
            Some(FragmentRef::Card(id)) => self.state.hand.iter().filter(|card| *card == id).count() as i64,
            Some(FragmentRef::Aspect(id)) => {
                let mut counts = Vec::new();
                for card in &self.state.hand {
                    let Some(card) = self.content.card(card.as_str()) else { continue };
                    for held in &card.fragments {
                        if matches!(&held.fragment, FragmentRef::Aspect(aspect) if aspect == id) {
                            counts.push(held.count.clone());
                        }
                    }
                }
                counts.iter().map(|count| self.value(count)).filter(|v| v.is_finite()).map(|v| v as i64).sum()
            }
            Some(_) => 0,
        }
    }

    /// A test of the turns system: fragments are counted in the hand (every location is the hand).
    fn test(&mut self, test: &Test) -> bool {
        let constant = self.value(&test.constant);
        let constant = if constant.is_finite() { constant as i64 } else { 0 };
        let right = match &test.fragment2 {
            None => constant,
            Some(fragment) => constant.saturating_mul(self.hand_count(Some(fragment))),
        };
        let left = if test.fragment1.is_some() { self.hand_count(test.fragment1.as_ref()) } else { 0 };
        match test.op {
            TestOp::RandomChallenge => constant.saturating_mul(left) > self.below(100) as i64,
            TestOp::RandomClash => {
                let sum = left.saturating_add(right);
                sum > 0 && self.below(usize::try_from(sum).unwrap_or(usize::MAX)) < usize::try_from(left).unwrap_or(0)
            }
            op => compare(op, left, right),
        }
    }

    /// Whether requirements hold: tests (over the hand), the condition, then and/or rules.
    fn holds(&mut self, requirements: &Requirements, invert: bool, depth: usize) -> bool {
        if depth > MAX_RULE_DEPTH {
            self.warn("rules nest too deeply (a rule refers to itself through and/or/furthermore); it fails".into());
            return false;
        }
        let mut passed = true;
        for test in &requirements.tests {
            if !self.test(test) && !test.can_fail {
                passed = false;
                break;
            }
        }
        if passed && let Some(condition) = &requirements.condition {
            let value = self.value(condition);
            passed = value != 0.0 && !value.is_nan();
        }
        if passed {
            for rule in &requirements.and {
                if !self.rule_holds(rule, depth + 1) {
                    passed = false;
                    break;
                }
            }
        }
        if passed && !requirements.or.is_empty() {
            passed = false;
            for rule in &requirements.or {
                if self.rule_holds(rule, depth + 1) {
                    passed = true;
                    break;
                }
            }
        }
        passed != invert
    }

    fn rule_holds(&mut self, rule: &RuleId, depth: usize) -> bool {
        let content = self.content;
        content.rule(rule.as_str()).is_some_and(|rule| self.holds(&rule.requirements, rule.invert, depth))
    }

    /// Runs a rule: when its requirements hold, performs its effects, reports its text and, if
    /// it asks to, removes it from the collection. Returns whether it ran.
    fn run_rule(&mut self, id: &RuleId, depth: usize) -> bool {
        let content = self.content;
        let Some(rule) = content.rule(id.as_str()) else { return false };
        if self.ended() || !self.holds(&rule.requirements, rule.invert, depth) {
            return false;
        }
        self.events.push(Event::TurnRuleRan { rule: id.clone() });
        let effects = &rule.effects;
        if !(effects.act_modifiers.is_empty()
            && effects.card_modifiers.is_empty()
            && effects.table_modifiers.is_empty())
        {
            self.warn(format!("rule `{id}`: act, card and table modifiers do nothing in the turns system"));
        }
        for modifier in &effects.stat_modifiers {
            let Some(stat) = content.project.stats.get(modifier.stat.as_str()) else { continue };
            if matches!(stat.value, StatValue::Computed(_)) {
                self.warn(format!("rule `{id}`: the stat `{}` is computed; it cannot be changed", stat.id));
                continue;
            }
            let amount = self.value(&modifier.value);
            let old = self.stat_value(&stat.id);
            let new = match modifier.op {
                StatOp::Add => old + amount,
                StatOp::Set => amount,
                StatOp::Multiply => old * amount,
            };
            self.set_stat(stat, new);
        }
        for modifier in &effects.deck_modifiers {
            self.deck_modifier(id, modifier.op, modifier.deck.as_ref(), modifier.fragment.as_ref());
        }
        for modifier in &effects.rule_modifiers {
            self.change_rules(modifier.clone());
        }
        if !rule.text.trim().is_empty() {
            let text = self.substitute(&rule.text);
            self.messages.push(Message { text });
        }
        for modifier in &effects.path_modifiers {
            match modifier.op {
                PathOp::Warning => self.warn(modifier.text.clone()),
                PathOp::Error => self.end_game(Outcome::Stopped(modifier.text.clone())),
                PathOp::EndGame => self.end_game(Outcome::Ended(modifier.text.clone())),
                other => {
                    self.warn(format!("rule `{id}`: the path modifier {other:?} does nothing in the turns system"));
                }
            }
        }
        for further in &effects.furthermore {
            self.run_rule(further, depth + 1);
        }
        if rule.remove_self {
            self.change_rules(RuleModifier { op: RuleOp::Remove, rule: id.clone() });
        }
        true
    }

    /// `[stat_id]` in a message becomes the stat's shown value; other brackets stay.
    fn substitute(&mut self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(open) = rest.find('[') {
            let (before, after) = rest.split_at(open);
            out.push_str(before);
            let inner = after.get(1..).unwrap_or_default();
            let Some(close) = inner.find(']') else {
                out.push_str(after);
                return out;
            };
            let name = inner.get(..close).unwrap_or_default();
            let content = self.content;
            match content.project.stats.get(name) {
                Some(stat) => {
                    let value = self.stat_value(&stat.id);
                    out.push_str(&show_value(value, stat.rounding));
                }
                None => {
                    let _ = write!(out, "[{name}]");
                }
            }
            rest = inner.get(close + 1..).unwrap_or_default();
        }
        out.push_str(rest);
        out
    }

    /// Adds or removes a rule now, or after the collection has run while it runs.
    fn change_rules(&mut self, change: RuleModifier) {
        if let Some(deferred) = &mut self.deferred {
            deferred.push(change);
            return;
        }
        match change.op {
            RuleOp::Add if !self.state.rules.contains(&change.rule) => {
                self.state.rules.push(change.rule.clone());
                self.events.push(Event::TurnRuleAdded { rule: change.rule });
            }
            RuleOp::Remove if self.state.rules.contains(&change.rule) => {
                self.state.rules.retain(|rule| *rule != change.rule);
                self.events.push(Event::TurnRuleRemoved { rule: change.rule });
            }
            RuleOp::Add | RuleOp::Remove => {}
        }
    }

    /// A deck modifier in the turns system: `Add`/`AddFront` put a card into the draw pile,
    /// `Draw` draws the next card into the hand.
    fn deck_modifier(&mut self, rule: &RuleId, op: DeckOp, deck: Option<&DeckId>, card: Option<&FragmentRef>) {
        if deck != self.state.deck_id.as_ref() {
            self.warn(format!("rule `{rule}`: the deck modifier names a deck other than the turn config's draw deck"));
            return;
        }
        match (op, card) {
            (DeckOp::Add, Some(FragmentRef::Card(card))) => self.state.deck.push(card.clone()),
            (DeckOp::AddFront, Some(FragmentRef::Card(card))) => self.state.deck.insert(0, card.clone()),
            (DeckOp::Draw, _) => self.draw(),
            _ => self.warn(format!(
                "rule `{rule}`: in the turns system a deck modifier draws, or adds a card (`fragment: Card(\"…\")`)"
            )),
        }
    }

    /// Draws the next card of the pile into the hand (refilling a replenishing deck).
    fn draw(&mut self) {
        let content = self.content;
        let deck = self.state.deck_id.as_ref().and_then(|id| content.deck(id.as_str()));
        if self.state.deck.is_empty()
            && let Some(deck) = deck.filter(|deck| deck.replenish)
        {
            self.refill(deck);
        }
        if self.state.deck.is_empty() {
            return;
        }
        let at = if deck.is_some_and(|deck| deck.random) { self.below(self.state.deck.len()) } else { 0 };
        let card = if deck.is_some_and(|deck| deck.infinite) {
            self.state.deck.get(at).cloned()
        } else if at < self.state.deck.len() {
            Some(self.state.deck.remove(at))
        } else {
            None
        };
        if let Some(card) = card {
            self.state.hand.push(card.clone());
            self.events.push(Event::TurnCardDrawn { card });
        }
    }

    fn refill(&mut self, deck: &crate::model::Deck) {
        self.state.deck.clone_from(&deck.fragments);
        if deck.shuffle {
            let mut pile = std::mem::take(&mut self.state.deck);
            self.shuffle(&mut pile);
            self.state.deck = pile;
        }
    }

    /// Draws up to the hand limit; the game ends when hand and deck are both empty.
    fn draw_up(&mut self, config: &TurnConfig) {
        let limit = self.value(&config.hand_limit);
        let limit = if limit.is_finite() { limit.max(0.0) as usize } else { 0 };
        let mut tries = 0;
        while self.state.hand.len() < limit && tries < limit {
            let before = self.state.hand.len();
            self.draw();
            if self.state.hand.len() == before {
                break;
            }
            tries += 1;
        }
        if self.state.hand.is_empty() && self.state.deck.is_empty() {
            self.end_game(Outcome::Ended(END_OF_HISTORY.to_owned()));
        }
    }

    /// The rule collection in running order: by step, equal steps shuffled with the seed.
    fn running_order(&mut self) -> Vec<RuleId> {
        let content = self.content;
        let step = |rule: &RuleId| content.rule(rule.as_str()).map_or(0, |rule| rule.step);
        let mut order = self.state.rules.clone();
        order.sort_by_key(|rule| step(rule));
        let mut start = 0;
        while start < order.len() {
            let first = order.get(start).map(&step);
            let len =
                order.get(start..).map_or(0, |rest| rest.iter().take_while(|rule| Some(step(rule)) == first).count());
            if let Some(run) = order.get_mut(start..start + len) {
                self.shuffle(run);
            }
            start += len.max(1);
        }
        order
    }

    /// Steps 5–9: run the collection, apply its deferred changes, count the turn, draw, report.
    fn finish_turn(&mut self, config: &TurnConfig) {
        if !self.ended() {
            self.deferred = Some(Vec::new());
            for rule in self.running_order() {
                if self.ended() {
                    break;
                }
                self.run_rule(&rule, 0);
            }
            let changes = self.deferred.take().unwrap_or_default();
            for change in changes {
                self.change_rules(change);
            }
        }
        if !self.ended() {
            self.state.turn = self.state.turn.saturating_add(1);
            self.events.push(Event::TurnStarted { turn: self.state.turn });
            let last = config.max_turns.as_ref().map(|max| self.value(max));
            if last.is_some_and(|last| f64::from(self.state.turn) > last) {
                self.end_game(Outcome::Ended(TURN_LIMIT.to_owned()));
            } else {
                self.draw_up(config);
            }
        }
        self.report();
    }

    /// Step 9: the turn's messages are reported.
    fn report(&mut self) {
        let messages = std::mem::take(&mut self.messages);
        for message in &messages {
            self.events.push(Event::MessageShown(message.clone()));
        }
        self.state.messages = messages;
    }
}

impl TurnsState {
    /// The turn config a project plays: `entry.turn_config`, else its first turn config by id.
    fn config_of(content: &Content) -> Option<&TurnConfig> {
        let project = &content.project;
        match &project.manifest.entry.turn_config {
            Some(id) => project.turn_configs.get(id.as_str()),
            None => project.turn_configs.iter().next(),
        }
    }

    /// Starts the turns system when the project has a turn config: stats at their starting
    /// values (in declaration order), the draw pile, the initial hand drawn up to the limit.
    pub(super) fn start(content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) -> Option<Self> {
        let config = Self::config_of(content)?;
        let mut state = Self {
            config: config.id.clone(),
            turn: 1,
            hand: config.initial_hand.clone(),
            deck_id: config.draw_deck.clone(),
            deck: Vec::new(),
            rules: Vec::new(),
            stored: BTreeMap::new(),
            messages: Vec::new(),
            warnings: Vec::new(),
            outcome: None,
        };
        for rule in &config.rules {
            if !state.rules.contains(rule) {
                state.rules.push(rule.clone());
            }
        }
        let mut turns = Turns { content, state: &mut state, rng, events, deferred: None, messages: Vec::new() };
        for stat in declaration_order(content) {
            if let StatValue::Stored(expr) = &stat.value {
                let value = turns.value(expr);
                turns.set_stat(stat, value);
            }
        }
        if let Some(deck) = config.draw_deck.as_ref().and_then(|id| content.deck(id.as_str())) {
            turns.refill(deck);
        }
        turns.draw_up(config);
        Some(state)
    }

    /// The stats as the player sees them, in the config's order; hidden ones only in debug mode.
    fn stat_lines(&self, content: &Content, rng: &Pcg64Mcg, debug: bool) -> Vec<StatLine> {
        let order = Self::config_of(content).map_or(StatOrder::Declaration, |config| config.stat_order);
        let mut stats = declaration_order(content);
        if order == StatOrder::VisibleThenAlphabetical {
            stats.sort_by_cached_key(|stat| (stat.hidden, display_name(stat).to_lowercase(), stat.id.clone()));
        }
        let mut rng = rng.clone();
        stats
            .into_iter()
            .filter(|stat| debug || !stat.hidden)
            .map(|stat| {
                let mut env = TurnsEnv {
                    content,
                    accessors: &content.accessors,
                    stored: &self.stored,
                    turn: self.turn,
                    rng: &mut rng,
                    depth: 0,
                    table: None,
                };
                let value = env.stat(&stat.id);
                StatLine {
                    id: stat.id.clone(),
                    name: display_name(stat).to_owned(),
                    value,
                    shown: round_to(value, stat.rounding),
                    text: show_value(value, stat.rounding),
                    hidden: stat.hidden,
                }
            })
            .collect()
    }
}

/// A stat's display name: its label, or its id.
fn display_name(stat: &Stat) -> &str {
    if stat.label.trim().is_empty() { stat.id.as_str() } else { &stat.label }
}

/// The project's stats in declaration order: by `order`, then id.
fn declaration_order(content: &Content) -> Vec<&Stat> {
    let mut stats: Vec<&Stat> = content.project.stats.iter().collect();
    stats.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
    stats
}

/// The options of a card, each with the word a script names it by: its label as a slug.
pub fn option_word(label: &str, index: usize) -> String {
    let word = slugify(label);
    if word.is_empty() { (index + 1).to_string() } else { word }
}

impl Session {
    /// The turns system's state, when the project has a turn config.
    pub fn turns(&self) -> Option<&TurnsState> {
        self.turns.as_ref()
    }

    /// The stats as the player sees them (with `debug`, hidden ones too), in the turn config's
    /// order; empty without a turn config.
    pub fn turn_stats(&self, debug: bool) -> Vec<StatLine> {
        self.turns.as_ref().map_or_else(Vec::new, |turns| turns.stat_lines(&self.content, &self.rng, debug))
    }

    /// The turn choices: each offered option of each card type in the hand (first copy), then
    /// `EndTurn`.
    pub(super) fn turn_choices(&self) -> Vec<Choice> {
        let Some(turns) = &self.turns else { return Vec::new() };
        if self.state.outcome.is_some() || turns.outcome.is_some() {
            return Vec::new();
        }
        let mut choices = Vec::new();
        let mut rng = self.rng.clone();
        let mut seen: Vec<&CardId> = Vec::new();
        for card_id in &turns.hand {
            if seen.contains(&card_id) {
                continue;
            }
            seen.push(card_id);
            let Some(card) = self.content.card(card_id.as_str()) else { continue };
            for (option, offered) in card.options.iter().enumerate() {
                let open = offered.condition.as_ref().is_none_or(|condition| {
                    let mut env = TurnsEnv {
                        content: &self.content,
                        accessors: &self.content.accessors,
                        stored: &turns.stored,
                        turn: turns.turn,
                        rng: &mut rng,
                        depth: 0,
                        table: None,
                    };
                    let value = env.expr(condition);
                    value != 0.0 && !value.is_nan()
                });
                if open {
                    choices.push(Choice::PlayOption { card: card_id.clone(), option });
                }
            }
        }
        choices.push(Choice::EndTurn);
        choices
    }

    /// Plays a turn choice: the option's rules (their collection changes at once), the card
    /// leaves the hand, then the rest of the turn.
    pub(super) fn apply_turn(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        if self.turns.as_ref().is_some_and(|turns| turns.outcome.is_some()) {
            return Err(ChoiceError::GameEnded);
        }
        if !self.turn_choices().contains(choice) {
            return Err(ChoiceError::NotPossible(format!("{choice:?}")));
        }
        let content = std::sync::Arc::clone(&self.content);
        let Some(state) = self.turns.as_mut() else { return Err(ChoiceError::NotPossible(format!("{choice:?}"))) };
        let Some(config) = TurnsState::config_of(&content) else {
            return Err(ChoiceError::NotPossible(format!("{choice:?}")));
        };
        let mut events = Vec::new();
        state.warnings.clear();
        let mut turns = Turns {
            content: &content,
            state,
            rng: &mut self.rng,
            events: &mut events,
            deferred: None,
            messages: Vec::new(),
        };
        if let Choice::PlayOption { card, option } = choice {
            let offered = content.card(card.as_str()).and_then(|card| card.options.get(*option));
            let label = offered.map_or_else(String::new, |offered| offered.label.clone());
            turns.events.push(Event::TurnOptionPlayed { card: card.clone(), option: label });
            for rule in offered.map(|offered| offered.rules.as_slice()).unwrap_or_default() {
                turns.run_rule(rule, 0);
            }
            if let Some(at) = turns.state.hand.iter().position(|held| held == card) {
                turns.state.hand.remove(at);
            }
        }
        turns.finish_turn(config);
        self.counters.steps += 1;
        self.end_game_with_turns();
        Ok(events)
    }

    /// When the turns have ended and nothing is in play at the table, the game has ended.
    pub(super) fn end_game_with_turns(&mut self) {
        let table_idle = self.state.windows.is_empty() && self.state.cards.is_empty();
        if table_idle
            && self.state.outcome.is_none()
            && let Some(outcome) = self.turns.as_ref().and_then(|turns| turns.outcome.clone())
        {
            self.state.outcome = Some(outcome);
        }
    }

    /// The value of a formula over the turns state (stats, `turn`), for scripts and the CLI.
    pub(super) fn turn_query(&self, formula: &str) -> Option<Result<f64, String>> {
        let turns = self.turns.as_ref()?;
        let content = &self.content;
        let mut set: FormulaSet = content.formulas().clone();
        let compiled = match set.compile(formula, &ProjectNames::new(&content.project)) {
            Ok(compiled) => compiled,
            Err(error) => return Some(Err(error.render(formula))),
        };
        let accessors: Vec<Accessor> =
            set.lookups().map(|lookup| super::content::accessor(lookup, &content.project)).collect();
        // Counts read a copy of the table, as the table's own queries do.
        let mut table_state = self.state.clone();
        let mut table_rng = self.rng.clone();
        let mut events = Vec::new();
        let engine = super::table::Engine::new(content, &mut table_state, &mut table_rng, &mut events);
        let ctx = super::rules::Ctx::new(super::state::Holder::Root, 0);
        let mut rng = self.rng.clone();
        let mut env = TurnsEnv {
            content,
            accessors: &accessors,
            stored: &turns.stored,
            turn: turns.turn,
            rng: &mut rng,
            depth: 0,
            table: Some((&engine, &ctx)),
        };
        Some(Ok(set.eval(&compiled, &mut env)))
    }

    /// The turn system in words (for `actforge play`): turn, hand, stats (hidden ones marked),
    /// the last turn's messages and warnings, the rule collection.
    pub fn describe_turns(&self) -> Vec<String> {
        let Some(turns) = &self.turns else { return Vec::new() };
        let mut lines = vec![format!("turn {}:", turns.turn)];
        let hand: Vec<&str> = turns.hand.iter().map(Id::as_str).collect();
        lines.push(format!("  hand: {}", hand.join(" ")));
        lines.push(format!("  deck: {} card(s)", turns.deck.len()));
        for stat in self.turn_stats(true) {
            let hidden = if stat.hidden { " (hidden)" } else { "" };
            lines.push(format!("  stat {} \"{}\" = {}{hidden}", stat.id, stat.name, stat.text));
        }
        for message in &turns.messages {
            lines.push(format!("  message {:?}", message.text));
        }
        for warning in &turns.warnings {
            lines.push(format!("  warning {warning:?}"));
        }
        let rules: Vec<&str> = turns.rules.iter().map(Id::as_str).collect();
        lines.push(format!("  rules: {}", rules.join(" ")));
        lines
    }

    /// A turn choice as the script line that makes it.
    pub(super) fn describe_turn_choice(&self, choice: &Choice) -> String {
        match choice {
            Choice::PlayOption { card, option } => {
                let label = self
                    .content
                    .project
                    .cards
                    .get(card.as_str())
                    .and_then(|card| card.options.get(*option))
                    .map_or_else(String::new, |offered| offered.label.clone());
                format!("play {card} {}", option_word(&label, *option))
            }
            _ => "end-turn".to_owned(),
        }
    }

    /// A script's `play CARD OPTION` (OPTION: the option's label as a slug, or its number from 1).
    pub(super) fn play_choice(&self, args: &str) -> Result<Choice, String> {
        let mut words = args.split_whitespace();
        let (Some(card), Some(option)) = (words.next(), words.next()) else {
            return Err("usage: play CARD OPTION".to_owned());
        };
        let Some(turns) = &self.turns else { return Err("the project has no turn config".to_owned()) };
        let possible = || {
            let legal: Vec<String> = self.choices().iter().map(|choice| self.describe_choice(choice)).collect();
            legal.join(", ")
        };
        if !turns.hand.iter().any(|held| held.as_str() == card) {
            return Err(format!("`{card}` is not in the hand; possible now: {}", possible()));
        }
        let options = self.content.project.cards.get(card).map(|card| card.options.as_slice()).unwrap_or_default();
        let index = options.iter().enumerate().position(|(index, offered)| {
            option_word(&offered.label, index) == option || (index + 1).to_string() == option
        });
        let Some(index) = index else {
            let words: Vec<String> =
                options.iter().enumerate().map(|(index, offered)| option_word(&offered.label, index)).collect();
            return Err(format!("`{card}` has no option `{option}` (it has: {})", words.join(", ")));
        };
        Ok(Choice::PlayOption { card: Id::new(card), option: index })
    }

    /// Why a turn choice is refused.
    pub(super) fn why_not_turn(&self, choice: &Choice) -> &'static str {
        match (choice, &self.turns) {
            (_, None) => "the project has no turn config",
            (Choice::PlayOption { .. }, Some(_)) => "that option is not offered now (its condition does not hold)",
            _ => "the turn cannot end now",
        }
    }

    /// A script's turn expectations: `stat NAME N`, `turn N`, `message "…"`, `warning "…"`,
    /// `hand CARD…`.
    pub(super) fn expect_turn(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        let turns = self.turns.as_ref()?;
        let result = match what {
            // `expect stat NAME N` and `expect turn N`; anything else after them is a formula.
            "stat" => {
                let mut words = args.split_whitespace();
                let (Some(name), Some(Ok(want)), None) =
                    (words.next(), words.next().map(str::parse::<f64>), words.next())
                else {
                    return None;
                };
                match self.turn_stats(true).iter().find(|stat| stat.id.as_str() == name) {
                    None => Err(format!("there is no stat `{name}`")),
                    Some(stat) if (stat.shown - want).abs() <= 1e-9 * want.abs().max(1.0) => Ok(String::new()),
                    Some(stat) => Err(format!("stat {name} is {}, expected {want}", stat.text)),
                }
            }
            "turn" => {
                let want = args.trim().parse::<u32>().ok()?;
                if want == turns.turn {
                    Ok(String::new())
                } else {
                    Err(format!("the turn is {}, expected {want}", turns.turn))
                }
            }
            "message" => {
                let text = args.trim();
                match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    None => Err("put the expected message in quotes".to_owned()),
                    Some(want) => {
                        let want = want.replace("\\n", "\n");
                        if turns.messages.iter().any(|message| message.text == want) {
                            Ok(String::new())
                        } else {
                            let said: Vec<String> = turns.messages.iter().map(|m| format!("{:?}", m.text)).collect();
                            Err(format!("the last turn did not say {want:?} (it said: {})", said.join(", ")))
                        }
                    }
                }
            }
            "warning" => {
                let text = args.trim();
                match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    None => Err("put the expected warning in quotes".to_owned()),
                    Some(want) if turns.warnings.iter().any(|warning| warning == want) => Ok(String::new()),
                    Some(want) => Err(format!("the last turn did not warn {want:?} (warnings: {:?})", turns.warnings)),
                }
            }
            "hand" => {
                let mut want: Vec<&str> = args.split_whitespace().collect();
                let mut have: Vec<&str> = turns.hand.iter().map(Id::as_str).collect();
                want.sort_unstable();
                have.sort_unstable();
                if want == have {
                    Ok(String::new())
                } else {
                    Err(format!("the hand is {:?}, expected {:?}", have.join(" "), want.join(" ")))
                }
            }
            _ => return None,
        };
        Some(result)
    }
}
