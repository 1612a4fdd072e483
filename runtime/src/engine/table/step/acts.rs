//! Acts: entry attempts, the window check, running, completing and finishing chains, spawned
//! tokens and the end of a step (§2.8, §2.13, §2.16).

use super::{Engine, MAX_COMPLETIONS_PER_STEP, MAX_SLOT_PASSES, NextRun, show};
use std::borrow::Cow;

use crate::engine::Event;
use crate::engine::table::rules::RuleContext;
use crate::engine::table::{CardKey, Fragment, Holder, PendingToken, Place, Status, TokenKey, Window};
use crate::model::TokenId;
use crate::model::{ActId, ActLink};

impl Engine<'_> {
    /// Entry attempt of an act in a window: the matches when it passes (§2.8).
    fn try_entry(&mut self, act: &ActId, token: TokenKey) -> Option<Vec<CardKey>> {
        let content = self.content;
        let act = content.act(act.as_str())?;
        let mut ctx = RuleContext::new(Holder::Window(token), 0);
        self.evaluate(&act.requirements, false, false, &mut ctx).then(|| ctx.into_matched(self.state))
    }

    /// Tries acts in order; the first that passes is chosen and its matches saved.
    fn attempt(&mut self, acts: &[ActId], token: TokenKey) -> Option<ActId> {
        for act in acts {
            if let Some(matches) = self.try_entry(act, token) {
                if let Some(window) = self.state.windows.get_mut(&token) {
                    window.saved_matches = matches;
                }
                return Some(act.clone());
            }
        }
        None
    }

    /// A candidate list from links (§2.8.1).
    fn build(&mut self, links: &[ActLink], random_order: bool, token: TokenKey) -> Vec<ActId> {
        if let [single] = links
            && single.chance.is_zero()
            && single.rule.is_none()
        {
            return vec![single.act.clone()];
        }
        let mut result = Vec::new();
        for link in links {
            let keep = if let Some(rule) = &link.rule {
                self.evaluate_rule(rule, Holder::Window(token), 1)
            } else {
                let ctx = RuleContext::new(Holder::Window(token), 0);
                let chance = self.number(&link.chance, &ctx);
                (self.below(100) as i64) < chance
            };
            if keep {
                if random_order {
                    let at = self.below(result.len().saturating_add(1));
                    result.insert(at, link.act.clone());
                } else {
                    result.push(link.act.clone());
                }
            }
        }
        result
    }

    /// The status check of a window (§2.8 "check").
    pub fn check(&mut self, token: TokenKey) {
        let content = self.content;
        let Some(window) = self.state.windows.get_mut(&token) else { return };
        window.dirty = false;
        let finished = window.status == Status::Finished;
        let running = window.status == Status::Running;
        // The token type as the content's own item: its id is not copied.
        let token_type = content.token(window.token.as_str());
        if !finished {
            self.recompute_slots(token);
        }
        if !finished && !running {
            let initial = token_type.and_then(|t| content.initial_acts.get(&t.id)).map_or(&[][..], Vec::as_slice);
            let candidate = self.attempt(initial, token);
            let first_slotted = self.state.window(token).is_some_and(|w| w.slotted(0).is_some());
            match candidate.and_then(|act| content.act(act.as_str())) {
                Some(act) if first_slotted => {
                    let text = self.rule_text(&act.text, &act.text_rules, token);
                    if let Some(window) = self.state.windows.get_mut(&token) {
                        if !matches!(&window.status, Status::Ready(ready) if *ready == act.id) {
                            window.status = Status::Ready(act.id.clone());
                        }
                        show(&mut window.title, &act.label);
                        show(&mut window.text, &text);
                    }
                }
                _ => self.show_idle(token),
            }
            return;
        }
        match self.state.window(token).map(|w| &w.status) {
            Some(Status::Running) => {
                let alts = self.state.window(token).map(|w| w.alt_list.clone()).unwrap_or_default();
                let chosen = self.attempt(&alts, token);
                self.set_pending_alt(token, chosen);
            }
            Some(Status::Finished) => {
                let lane_empty = self.state.window(token).is_some_and(|w| w.lane.is_empty());
                if lane_empty {
                    self.return_to_idle(token);
                    if token_type.is_some_and(|t| t.dissolve) {
                        self.dissolve(token);
                    }
                }
            }
            Some(Status::Idle | Status::Ready(_)) | None => {}
        }
    }

    fn show_idle(&mut self, token: TokenKey) {
        let content = self.content;
        let Some(window) = self.state.window(token) else { return };
        let token_type = content.token(window.token.as_str());
        let (title, text) = match token_type {
            Some(t) => (t.label.as_str(), self.rule_text(&t.description, &t.text_rules, token)),
            None => ("", Cow::Borrowed("")),
        };
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Idle;
            show(&mut window.title, title);
            show(&mut window.text, &text);
        }
    }

    fn set_pending_alt(&mut self, token: TokenKey, chosen: Option<ActId>) {
        let content = self.content;
        let Some(window) = self.state.window(token) else { return };
        let changed = window.pending_alt != chosen;
        let shown = chosen.clone().or_else(|| window.active.clone());
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.pending_alt.clone_from(&chosen);
        }
        if changed {
            self.events.push(Event::AltChanged { token, act: chosen });
        }
        if let Some(act) = shown.and_then(|act| content.act(act.as_str())) {
            let text = self.rule_text(&act.text, &act.text_rules, token);
            if let Some(window) = self.state.windows.get_mut(&token) {
                if !text.is_empty() {
                    show(&mut window.text, &text);
                }
                if !act.label.is_empty() {
                    show(&mut window.title, &act.label);
                }
            }
        }
    }

    /// The player starts a Ready window.
    pub fn start(&mut self, token: TokenKey) -> bool {
        let Some(Status::Ready(act)) = self.state.window(token).map(|w| w.status.clone()) else { return false };
        self.run(token, &act);
        true
    }

    /// `run(act)` (§2.8.2).
    pub fn run(&mut self, token: TokenKey, act_id: &ActId) {
        let content = self.content;
        let Some(act) = content.act(act_id.as_str()) else {
            self.warn(format!("there is no act `{act_id}`"));
            return;
        };
        let Some(window) = self.state.windows.get_mut(&token) else { return };
        window.active = Some(act_id.clone());
        window.forced = None;
        window.branch = None;
        let start_rule = window.start_rule.take();
        let places = window.status_places();
        if let Some(rule) = start_rule {
            let mut ctx = RuleContext::new(Holder::Window(token), 0);
            self.run_rule(&rule, &mut ctx);
            self.close(ctx);
        }
        // The slotted cards are consumed; their slot fragments stay in the window.
        for at in places {
            if let Some(key) = self.state.window(token).and_then(|w| w.slotted(at)) {
                self.move_card(key, Place::Consumed(token));
                self.set_free(key, false);
            }
            self.close_place(token, at);
        }
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Running;
            window.pending_alt = None;
        }
        self.events.push(Event::ActStarted { token, act: act_id.clone() });
        self.recompute_slots(token);
        let alts = self.build(&act.alt_acts, act.random_alt, token);
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.alt_list.clone_from(&alts);
        }
        let chosen = self.attempt(&alts, token);
        self.set_pending_alt(token, chosen);
        let ctx = RuleContext::new(Holder::Window(token), 0);
        let duration = self.number(&act.duration_ticks, &ctx).max(0) as u64;
        let now = self.state.tick;
        // A timer that would end past the last tick never ends: the act runs until the content
        // moves it on (the clock never wraps).
        let end = now.checked_add(duration).filter(|end| *end <= crate::engine::MAX_TICK);
        if end.is_none() {
            self.warn(format!(
                "act `{act_id}` lasts {duration} ticks, which ends past the last tick (it starts at tick {now}); \
                 its timer never runs out"
            ));
        }
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.timer_total = duration;
            window.timer_end = end.filter(|_| duration > 0);
        }
        if duration == 0 {
            self.instant.push(token);
        }
    }

    /// Completes the running act of a window (§2.8.3).
    pub fn complete(&mut self, token: TokenKey) {
        let content = self.content;
        self.completions = self.completions.saturating_add(1);
        if self.completions > MAX_COMPLETIONS_PER_STEP {
            self.warn("more than 10000 acts completed in one step (an instant-act loop?); the chain is finished");
            self.finish(token);
            return;
        }
        let Some(window) = self.state.windows.get_mut(&token) else { return };
        window.timer_end = None;
        let Some(act_id) = window.pending_alt.clone().or_else(|| window.active.clone()) else { return };
        let Some(act) = content.act(act_id.as_str()) else { return };
        // 2: run slot cards are consumed.
        let run_places = self.state.window(token).map_or(0..0, Window::run_range);
        for at in run_places {
            if let Some(key) = self.state.window(token).and_then(|w| w.slotted(at)) {
                self.move_card(key, Place::Consumed(token));
                self.set_free(key, false);
            }
            self.close_place(token, at);
        }
        // 3: the act's fragments.
        for entry in &act.fragments {
            self.add_fragment(Holder::Window(token), entry, 1);
        }
        // A Game Over issued by a rule below removes this window; the completion's spawned
        // acts still inherit its memory (§2.15).
        let mut memory = self.memory_of(Holder::Window(token));
        // 4: triggers of cards, then of aspects.
        self.run_completion_triggers(token);
        // 5: the act's own effects, against the saved matches; not on a window a trigger's
        // Game Over removed (they would only leave orphan cards, §2.15).
        if self.state.windows.contains_key(&token) {
            let mut own = RuleContext::new(Holder::Window(token), 0);
            let saved = self.state.window(token).map(|w| w.saved_matches.clone()).unwrap_or_default();
            own.matches = crate::engine::table::rules::Matches::Listed(saved);
            self.execute(&act.effects, &mut own);
            memory = self.memory_of(Holder::Window(token));
            self.close(own);
        }
        if self.state.windows.contains_key(&token) {
            memory = self.memory_of(Holder::Window(token));
        }
        self.events.push(Event::ActCompleted { token, act: act_id.clone() });
        // 6: spawned acts, also after a Game Over: the original's completion goes on on the
        // dead window and these acts survive it (§2.15).
        for spawned in self.build(&act.spawned_acts, false, token) {
            self.spawn_act(&spawned, memory.clone());
        }
        if !self.state.windows.contains_key(&token) {
            return; // game over removed the window: nothing more happens in it
        }
        // 7: end text.
        let end_text = self.rule_text(&act.end_text, &act.end_text_rules, token);
        if let Some(window) = self.state.windows.get_mut(&token)
            && !end_text.is_empty()
        {
            show(&mut window.end_text, &end_text);
        }
        // 8: what runs next.
        // Only these four fields decide what runs next (the window's texts are not copied).
        let Some(window) = self.state.window(token).map(|w| NextRun {
            forced: w.forced.clone(),
            branch: w.branch.clone(),
            do_callback: w.do_callback,
            callback: w.callback.clone(),
        }) else {
            return;
        };
        if let Some(forced) = window.forced {
            self.force_start(token, &forced);
            return;
        }
        if let Some(branch) = window.branch
            && let Some(matches) = self.try_entry(&branch, token)
        {
            if let Some(w) = self.state.windows.get_mut(&token) {
                w.saved_matches = matches;
                w.call_stack.push(act_id.clone());
            }
            self.run(token, &branch);
            return;
        }
        if window.do_callback {
            if let Some(w) = self.state.windows.get_mut(&token) {
                w.do_callback = false;
            }
            if let Some(callback) = window.callback
                && self.attempt(std::slice::from_ref(&callback), token).is_some()
            {
                self.run(token, &callback);
                return;
            }
        }
        let list = self.build(&act.next_acts, act.random_next, token);
        let mut chosen = self.attempt(&list, token);
        while chosen.is_none() {
            let Some(popped) = self.state.windows.get_mut(&token).and_then(|w| w.call_stack.pop()) else { break };
            let Some(popped_act) = content.act(popped.as_str()) else { continue };
            let list = self.build(&popped_act.next_acts, popped_act.random_next, token);
            chosen = self.attempt(&list, token);
        }
        match chosen {
            Some(next) => self.run(token, &next),
            None => self.finish(token),
        }
    }

    /// The triggers of a completing act's window (§2.8.3 step 4): each card's rules, then
    /// each aspect's, in one context.
    fn run_completion_triggers(&mut self, token: TokenKey) {
        let content = self.content;
        let mut triggers = RuleContext::new(Holder::Window(token), 0);
        for key in self.state.cards_of(Holder::Window(token)) {
            let Some(card_type) = self.state.card(key).map(|card| &card.card) else { continue };
            let Some(card) = content.card(card_type.as_str()).filter(|card| !card.rules.is_empty()) else { continue };
            triggers.this_card = Some(key);
            triggers.this_fragment = Some(Fragment::Card(card.id.clone()));
            for rule in &card.rules {
                self.run_rule(rule, &mut triggers);
            }
        }
        triggers.this_card = None;
        for aspect_id in self.state.aspects_in_window(token) {
            let Some(aspect) = content.aspect(aspect_id.as_str()).filter(|aspect| !aspect.rules.is_empty()) else {
                continue;
            };
            triggers.this_fragment = Some(Fragment::Aspect(aspect_id));
            for rule in &aspect.rules {
                self.run_rule(rule, &mut triggers);
            }
        }
        self.close(triggers);
    }

    /// Forced start (§2.8.4), as intended: the entry only records matches and always passes.
    pub fn force_start(&mut self, token: TokenKey, act_id: &ActId) {
        let content = self.content;
        if let Some(act) = content.act(act_id.as_str()) {
            let mut ctx = RuleContext::new(Holder::Window(token), 0);
            self.evaluate(&act.requirements, false, true, &mut ctx);
            let matches = ctx.into_matched(self.state);
            if let Some(window) = self.state.windows.get_mut(&token) {
                window.saved_matches = matches;
            }
        }
        self.run(token, act_id);
    }

    /// The chain ends: results go to the lane (§2.8.5).
    fn finish(&mut self, token: TokenKey) {
        let Some(window) = self.state.window(token) else { return };
        let consumed = window.consumed.clone();
        for key in &consumed {
            self.move_card(*key, Place::Lane(token));
            self.set_free(*key, true);
        }
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Finished;
            window.text = window.end_text.clone();
            window.timer_end = None;
        }
        self.events.push(Event::ChainFinished { token });
        self.offer_to_grab_slots(&consumed);
        self.check(token);
    }

    /// The player collects a finished window's results.
    pub fn collect(&mut self, token: TokenKey) -> bool {
        let Some(window) = self.state.window(token) else { return false };
        if window.status != Status::Finished {
            return false;
        }
        for key in window.lane.clone() {
            self.move_card(key, Place::Table);
            self.set_free(key, true);
            if let Some(card) = self.state.cards.get_mut(&key) {
                card.face_down = false;
            }
        }
        self.check(token);
        true
    }

    fn return_to_idle(&mut self, token: TokenKey) {
        if let Some(window) = self.state.windows.get_mut(&token) {
            window.status = Status::Idle;
            window.active = None;
            window.pending_alt = None;
            window.alt_list.clear();
            window.text.clear();
            window.end_text.clear();
            window.title.clear();
            window.aspects.clear();
            window.saved_matches.clear();
        }
        self.recompute_slots(token);
        self.show_idle(token);
    }

    fn dissolve(&mut self, token: TokenKey) {
        for key in self.state.cards_of(Holder::Window(token)) {
            self.move_card(key, Place::Table);
        }
        self.state.windows.remove(&token);
        self.events.push(Event::TokenDissolved { token });
    }

    /// Registers a token for creation at the end of the step (§2.13), with the spawner's
    /// `memory`.
    pub(crate) fn spawn_token(&mut self, token_type: &TokenId, auto_run: Option<ActId>, memory: Option<Fragment>) {
        let content = self.content;
        let Some(definition) = content.token(token_type.as_str()) else {
            self.warn(format!("there is no token `{token_type}`"));
            return;
        };
        if definition.unique && self.state.windows.values().any(|window| window.token == *token_type) {
            return;
        }
        self.state.pending_tokens.push(PendingToken { token: token_type.clone(), auto_run, memory });
    }

    /// Spawns a token of `act_id`'s token type that runs it at once (§2.13), with the spawner's `memory`.
    pub(crate) fn spawn_act(&mut self, act_id: &ActId, memory: Option<Fragment>) {
        let content = self.content;
        let Some(token_type) = content.act(act_id.as_str()).and_then(|act| act.token.clone()) else {
            self.warn(format!("act `{act_id}` has no token, so it cannot be spawned"));
            return;
        };
        self.spawn_token(&token_type, Some(act_id.clone()), memory);
    }

    /// Creates the tokens registered during the step.
    pub fn create_pending_tokens(&mut self) {
        let content = self.content;
        for pending in std::mem::take(&mut self.state.pending_tokens) {
            let key = TokenKey(self.state.next_token);
            let Some(next) = self.state.next_token.checked_add(1) else {
                self.warn("no more tokens can be created: every token key has been used");
                return;
            };
            self.state.next_token = next;
            let (idle_places, run_places) = content
                .token(pending.token.as_str())
                .map_or((crate::model::STOCK_IDLE_PLACES, crate::model::STOCK_RUN_PLACES), |t| {
                    (t.idle_places, t.run_places)
                });
            let mut window = Window::new(pending.token.clone(), idle_places as usize, run_places as usize);
            window.memory = pending.memory;
            self.state.windows.insert(key, window);
            self.events.push(Event::TokenCreated { token: key, token_type: pending.token });
            if let Some(act) = pending.auto_run {
                if let Some(window) = self.state.windows.get_mut(&key) {
                    window.start_rule = content.act(act.as_str()).and_then(|a| a.on_spawn.clone());
                }
                self.force_start(key, &act);
            } else {
                self.recompute_slots(key);
                self.show_idle(key);
                if let Some(window) = self.state.windows.get_mut(&key) {
                    window.dirty = false;
                }
            }
        }
    }

    /// Completes instant acts until none is left.
    pub fn drain_instant(&mut self) {
        while !self.instant.is_empty() {
            let token = self.instant.remove(0);
            let running =
                self.state.window(token).is_some_and(|w| w.status == Status::Running && w.timer_end.is_none());
            if running {
                self.complete(token);
            }
        }
    }

    /// The end of a step: instant chains, spawned tokens, re-evaluations (§2.16).
    pub fn end_step(&mut self) {
        for _ in 0..MAX_SLOT_PASSES * 4 {
            self.drain_instant();
            if !self.state.pending_tokens.is_empty() {
                self.create_pending_tokens();
                continue;
            }
            let dirty: Vec<TokenKey> =
                self.state.windows.iter().filter(|(_, window)| window.dirty).map(|(key, _)| *key).collect();
            if dirty.is_empty() && self.instant.is_empty() {
                return;
            }
            for token in dirty {
                self.check(token);
            }
        }
    }
}
