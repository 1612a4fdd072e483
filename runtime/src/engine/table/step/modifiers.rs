//! Performing modifiers when a context closes (§2.7).

use super::{Engine, scope_card};

use crate::engine::Event;
use crate::engine::table::rules::{RuleContext, Target};
use crate::engine::table::{CardKey, Decay, Fragment, Holder, Place, TokenKey};
use crate::model::TableOp;
use crate::model::{ActId, ActOp, CardId, CardOp, PathOp, RuleId};

impl Engine<'_> {
    /// Closes a context: performs its queues in order (§2.7.1).
    pub fn close(&mut self, ctx: RuleContext) {
        let depth = ctx.depth;
        let scope = ctx.scope;
        let queues = ctx.queues;
        let mut destroy = queues.destroy;
        // A Game Over (§2.15) performed in the middle of these queues destroys the scope: what
        // is left would only land in a window or card that no longer exists (cards created
        // there would be orphans nobody sees, blocking their unique type), so it is dropped.
        for (op, target, level, all) in queues.act {
            if !self.scope_exists(scope) {
                return;
            }
            self.perform_act(op, target, level, all, scope, depth, &mut destroy);
        }
        for (op, targets, what, level) in queues.card {
            for key in targets {
                if !self.scope_exists(scope) {
                    return;
                }
                if self.state.cards.contains_key(&key) {
                    self.perform_card(op, key, &what, level, scope);
                }
            }
        }
        for modifier in queues.table {
            let Holder::Window(token) = scope else { continue };
            if !self.scope_exists(scope) {
                return;
            }
            let content = self.content;
            match modifier.op {
                TableOp::SpawnAct => {
                    let memory = self.memory_of(Holder::Window(token));
                    self.spawn_act(&modifier.act, memory);
                }
                TableOp::SpawnToken => {
                    if let Some(token_type) = content.act(modifier.act.as_str()).and_then(|a| a.token.clone()) {
                        let memory = self.memory_of(Holder::Window(token));
                        self.spawn_token(&token_type, None, memory);
                    }
                }
            }
        }
        for modifier in queues.path {
            let Holder::Window(token) = scope else { continue };
            if !self.scope_exists(scope) {
                return;
            }
            self.perform_path(&modifier, token);
        }
        for (op, deck, target) in queues.deck {
            let Some(deck) = deck else { continue };
            if !self.scope_exists(scope) {
                return;
            }
            self.perform_deck(op, &deck, &target, scope);
        }
        for key in destroy {
            self.destroy(key);
        }
    }

    /// Whether a context's scope is still in the world (a Game Over removes every window and card).
    pub(crate) fn scope_exists(&self, scope: Holder) -> bool {
        match scope {
            Holder::Root | Holder::Table => true,
            Holder::Window(token) | Holder::Slots(token) => self.state.windows.contains_key(&token),
            Holder::Card(key) => self.state.cards.contains_key(&key),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn perform_act(
        &mut self,
        op: ActOp,
        target: Target,
        level: i64,
        all: bool,
        scope: Holder,
        depth: usize,
        destroy: &mut Vec<CardKey>,
    ) {
        let place = match scope {
            Holder::Window(token) => Place::Consumed(token),
            Holder::Card(key) => Place::InCard(key),
            _ => return,
        };
        match op {
            ActOp::Adjust => match target {
                Target::None => {}
                Target::Cards(cards) => {
                    for key in cards {
                        if level > 0 {
                            for _ in 0..level {
                                // Once refused, always refused in this step (creations cut, or a unique card exists).
                                let Some(copy) = self.duplicate(key, place) else { break };
                                self.set_free(copy, false);
                            }
                        } else if level < 0
                            && self.state.cards_of(scope).contains(&key)
                            && Some(key) != scope_card(scope)
                        {
                            self.detach(key);
                            destroy.push(key);
                        }
                    }
                }
                Target::Fragment(Fragment::Card(card_type)) => {
                    if level > 0 {
                        for _ in 0..level {
                            // Once refused, always refused in this step (creations cut, or a unique card exists).
                            let Some(key) = self.create_card(&card_type, place) else { break };
                            self.set_free(key, false);
                        }
                    } else if level < 0 {
                        let inside: Vec<CardKey> = self
                            .state
                            .cards_of(scope)
                            .into_iter()
                            .filter(|key| {
                                Some(*key) != scope_card(scope) && self.type_of(*key).as_ref() == Some(&card_type)
                            })
                            .take(level.unsigned_abs() as usize)
                            .collect();
                        for key in inside {
                            self.detach(key);
                            destroy.push(key);
                        }
                    }
                }
                Target::Fragment(Fragment::Aspect(aspect)) => self.adjust_aspect(scope, &aspect, level),
            },
            ActOp::Grab => {
                let Holder::Window(token) = scope else { return };
                let candidates = self.resolve_anywhere(&target);
                let tries = if all { candidates.len() } else { usize::try_from(level.max(0)).unwrap_or(0) };
                for key in candidates.into_iter().take(tries) {
                    if self.state.card(key).is_some_and(|card| card.free) {
                        if let Some(Place::Slot(from, at)) = self.state.card(key).map(|card| card.place) {
                            self.take_out(from, at, true);
                        }
                        self.move_card(key, Place::Consumed(token));
                        self.set_free(key, false);
                    }
                }
            }
            ActOp::Expulse => {
                for key in self.resolve_anywhere(&target) {
                    if let Some(Place::Slot(from, at)) = self.state.card(key).map(|card| card.place) {
                        self.take_out(from, at, true);
                    } else {
                        self.move_card(key, Place::Table);
                    }
                    self.set_free(key, true);
                }
            }
            ActOp::SetMemory => {
                let memory = match target {
                    Target::Fragment(fragment) => Some(fragment),
                    Target::Cards(cards) => {
                        cards.first().and_then(|key| self.state.card(*key)).and_then(|card| card.memory.clone())
                    }
                    Target::None => return,
                };
                match scope {
                    Holder::Window(token) => {
                        if let Some(window) = self.state.windows.get_mut(&token) {
                            window.memory = memory;
                        }
                    }
                    Holder::Card(key) => {
                        if let Some(card) = self.state.cards.get_mut(&key) {
                            card.memory = memory;
                        }
                    }
                    _ => {}
                }
            }
            ActOp::RunTriggers => self.run_triggers(target, scope, depth),
        }
    }

    /// RunTriggers: the target's rules run now in a new context on the window, closed at once.
    fn run_triggers(&mut self, target: Target, scope: Holder, depth: usize) {
        let Holder::Window(_) = scope else { return };
        let mut ctx = RuleContext::new(scope, depth.saturating_add(1));
        let content = self.content;
        match target {
            Target::None => {}
            Target::Fragment(fragment) => {
                let rules: Vec<RuleId> = match &fragment {
                    Fragment::Aspect(id) => content.aspect(id.as_str()).map(|a| a.rules.clone()),
                    Fragment::Card(id) => content.card(id.as_str()).map(|c| c.rules.clone()),
                }
                .unwrap_or_default();
                ctx.this_fragment = Some(fragment);
                for rule in &rules {
                    self.run_rule(rule, &mut ctx);
                }
            }
            Target::Cards(cards) => {
                for key in cards {
                    let Some(card_type) = self.type_of(key) else { continue };
                    let rules = content.card(card_type.as_str()).map(|c| c.rules.clone()).unwrap_or_default();
                    ctx.this_card = Some(key);
                    ctx.this_fragment = Some(Fragment::Card(card_type));
                    for rule in &rules {
                        self.run_rule(rule, &mut ctx);
                    }
                }
            }
        }
        if depth < crate::engine::core::MAX_RULE_DEPTH {
            self.close(ctx);
        } else {
            self.warn("triggers run each other too deeply; stopped");
        }
    }

    /// Cards a Grab or Expulse target means, searched in the whole world.
    fn resolve_anywhere(&self, target: &Target) -> Vec<CardKey> {
        match target {
            Target::None => Vec::new(),
            Target::Cards(cards) => cards.clone(),
            Target::Fragment(fragment) => self
                .state
                .cards_of(Holder::Root)
                .into_iter()
                .filter(|key| !matches!(self.state.card(*key).map(|c| c.place), Some(Place::InCard(_))))
                .filter(|key| self.holds(*key, fragment))
                .collect(),
        }
    }

    /// FragmentAdditive on one target card (§2.7.3).
    fn fragment_additive(&mut self, key: CardKey, what: &Target, level: i64) {
        match what {
            Target::Fragment(Fragment::Aspect(aspect)) => self.adjust_aspect(Holder::Card(key), aspect, level),
            Target::Fragment(Fragment::Card(card_type)) => {
                if level > 0 {
                    for _ in 0..level {
                        // Once refused, always refused in this step (creations cut, or a unique card exists).
                        let Some(sub) = self.create_card(card_type, Place::InCard(key)) else { break };
                        self.set_free(sub, false);
                    }
                } else {
                    let subs: Vec<CardKey> = self.state.card(key).map(|c| c.children.clone()).unwrap_or_default();
                    let removed: Vec<CardKey> = subs
                        .into_iter()
                        .filter(|sub| self.type_of(*sub).as_ref() == Some(card_type))
                        .take(level.unsigned_abs() as usize)
                        .collect();
                    for sub in removed {
                        self.destroy(sub);
                    }
                }
            }
            Target::Cards(cards) => {
                for listed in cards {
                    if level > 0 {
                        for _ in 0..level {
                            // Once refused, always refused in this step (creations cut, or a unique card exists).
                            let Some(copy) = self.duplicate(*listed, Place::InCard(key)) else { break };
                            self.set_free(copy, false);
                        }
                    } else if level < 0 && self.state.cards_of(Holder::Card(key)).contains(listed) && *listed != key {
                        self.destroy(*listed);
                    }
                }
            }
            Target::None => {}
        }
    }

    fn perform_card(&mut self, op: CardOp, key: CardKey, what: &Target, level: i64, scope: Holder) {
        match op {
            CardOp::FragmentAdditive => self.fragment_additive(key, what, level),
            CardOp::FragmentSet => {
                if let Target::Fragment(fragment) = what {
                    let current = self.state.count(Holder::Card(key), fragment, false);
                    self.fragment_additive(key, what, level.saturating_sub(current));
                }
            }
            CardOp::Transform => {
                if level <= 0 {
                    return;
                }
                let types: Vec<CardId> = match what {
                    Target::Fragment(Fragment::Card(card_type)) => vec![card_type.clone()],
                    Target::Cards(cards) => cards.iter().filter_map(|listed| self.type_of(*listed)).collect(),
                    _ => return,
                };
                let place = match scope {
                    Holder::Window(token) => Place::Consumed(token),
                    Holder::Card(card) => Place::InCard(card),
                    _ => return,
                };
                for card_type in types {
                    self.transform(key, &card_type);
                    for _ in 1..level {
                        // Once refused, always refused in this step (creations cut, or a unique card exists).
                        let Some(copy) = self.duplicate(key, place) else { break };
                        self.set_free(copy, false);
                    }
                }
            }
            CardOp::Decay => {
                let (into, ticks) = if let Target::Fragment(Fragment::Card(card_type)) = what {
                    (Some(card_type.clone()), level.max(0) as u64)
                } else {
                    let Some(card) = self.type_of(key).and_then(|t| self.content.card(t.as_str())) else {
                        return;
                    };
                    (card.decay_to.clone(), self.lifetime(card, key))
                };
                let shrink = self.content.shrink_ticks;
                if let Some(card) = self.state.cards.get_mut(&key) {
                    card.decay = Some(Decay { into, remaining: ticks.saturating_add(shrink) });
                }
            }
            CardOp::SetMemory => {
                let memory = match what {
                    Target::Fragment(Fragment::Aspect(aspect)) => Some(Fragment::Aspect(aspect.clone())),
                    Target::Cards(cards) if !cards.is_empty() => {
                        cards.first().and_then(|first| self.state.card(*first)).and_then(|c| c.memory.clone())
                    }
                    Target::None => None,
                    _ => return,
                };
                if let Some(card) = self.state.cards.get_mut(&key) {
                    card.memory = memory;
                }
            }
            CardOp::Spread => {
                let Target::Cards(cards) = what else { return };
                for listed in cards {
                    let Some(listed_card) = self.state.card(*listed).cloned() else { continue };
                    let has_same = self.state.card(key).is_some_and(|card| {
                        card.children.iter().any(|sub| {
                            self.state
                                .card(*sub)
                                .is_some_and(|s| s.card == listed_card.card && s.memory == listed_card.memory)
                        })
                    });
                    if !has_same && let Some(copy) = self.duplicate(*listed, Place::InCard(key)) {
                        self.set_free(copy, false);
                    }
                }
            }
        }
    }

    fn perform_path(&mut self, modifier: &crate::model::PathModifier, token: TokenKey) {
        let act = modifier.act.clone();
        match modifier.op {
            PathOp::BranchOut | PathOp::ForceAct | PathOp::SetCallback => {
                let Some(window) = self.state.windows.get_mut(&token) else { return };
                match modifier.op {
                    PathOp::BranchOut if act.is_some() => window.branch = act,
                    PathOp::ForceAct if act.is_some() => window.forced = act,
                    PathOp::SetCallback => window.callback = act,
                    _ => {}
                }
            }
            PathOp::Callback => {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    window.do_callback = true;
                }
            }
            PathOp::GameOver => self.game_over(act),
            PathOp::EndGame => {
                self.state.outcome.get_or_insert(crate::engine::table::Outcome::Ended(modifier.text.clone()));
                self.events.push(Event::GameEnded { outcome: modifier.text.clone() });
            }
            PathOp::Warning => self.warn(modifier.text.clone()),
            PathOp::Error => {
                self.state.outcome.get_or_insert(crate::engine::table::Outcome::Stopped(modifier.text.clone()));
                self.events.push(Event::GameEnded { outcome: modifier.text.clone() });
            }
        }
    }

    /// Game over (§2.15): everything is cleared and `act` starts in a new token.
    fn game_over(&mut self, act: Option<ActId>) {
        self.state.cards.clear();
        self.state.table.clear();
        self.state.windows.clear();
        self.state.decks.clear();
        self.state.pending_tokens.clear();
        self.instant.clear();
        self.events.push(Event::GameOver { act: act.clone() });
        if let Some(act) = act
            && let Some(token_type) = self.content.act(act.as_str()).and_then(|a| a.token.clone())
        {
            self.spawn_token(&token_type, Some(act), None);
        }
    }
}
