//! The table's part of the [`Session`]: act choices, time passing (timers and decays) and forced
//! starts.

use std::sync::Arc;

use super::Engine;
use super::listing::Moving;
use super::{CardKey, PendingToken, Place, Status, TableState, TokenKey};
use crate::engine::{Choice, ChoiceError, Event, Session};
use crate::formula::TraceOut;

impl Session {
    /// The [`Choice::Start`] and [`Choice::Collect`] choices alone, in the order of
    /// [`Session::choices`]: cheap, as no card is tried in any slot (players that run acts
    /// before they move cards ask this first).
    pub fn act_choices(&self) -> Vec<Choice> {
        if self.state.outcome.is_some() {
            return Vec::new();
        }
        self.state
            .windows
            .iter()
            .filter_map(|(token, window)| match window.status {
                Status::Ready(_) => Some(Choice::Start { token: *token }),
                Status::Finished => Some(Choice::Collect { token: *token }),
                Status::Idle | Status::Running => None,
            })
            .collect()
    }

    /// Starts the table: the entry cards and tokens; returns the requirements evaluated.
    pub(crate) fn start_table(&mut self, events: &mut Vec<Event>) -> u64 {
        let content = Arc::clone(&self.content);
        let mut engine = Engine::new(&content, &mut self.state, &mut self.rng, events);
        let entry = &content.project.manifest.entry;
        for card in &entry.cards {
            engine.create_card(card, Place::Table);
        }
        for token in &entry.tokens {
            engine.state.pending_tokens.push(PendingToken { token: token.clone(), auto_run: None, memory: None });
        }
        engine.create_pending_tokens();
        engine.end_step();
        engine.evaluations
    }

    /// The table's choices now, in a stable order: slotting, starts, collects, closes, unslots
    /// and flips.
    pub(crate) fn table_choices(&self, choices: &mut Vec<Choice>) {
        choices.extend(self.choices_where(Moving::All, true, |_| true));
    }

    /// Applies a table choice; `check`: list the table's choices again to check it is possible.
    pub(crate) fn apply_table(&mut self, choice: &Choice, check: bool) -> Result<Vec<Event>, ChoiceError> {
        let movable = match choice {
            Choice::Slot { card, .. } => Moving::Only(*card),
            _ => Moving::None,
        };
        let flips = matches!(choice, Choice::Flip { .. });
        if check && self.choices_where(movable, flips, |possible| possible == choice).is_empty() {
            return Err(ChoiceError::NotPossible(format!("{choice:?}")));
        }
        let content = Arc::clone(&self.content);
        let mut events = Vec::with_capacity(16);
        let mut engine = Engine::new(&content, &mut self.state, &mut self.rng, &mut events);
        match *choice {
            Choice::Slot { card, token, place } => engine.slot_card(card, token, place),
            Choice::Unslot { token, place } => engine.take_out_by_player(token, place),
            Choice::Start { token } => {
                engine.start(token);
            }
            Choice::Collect { token } => {
                engine.collect(token);
            }
            Choice::Close { token } => engine.close_window(token),
            Choice::Flip { card } => engine.flip(card),
            // The other systems' choices are theirs (`System::of`).
            Choice::RollDie { .. }
            | Choice::PlaceOnBoard { .. }
            | Choice::PlayBoardCard { .. }
            | Choice::MoveUnit { .. }
            | Choice::MoveUnitVia { .. }
            | Choice::UseSkill { .. }
            | Choice::WaitUnit { .. }
            | Choice::FaceUnit { .. }
            | Choice::PickUnit { .. }
            | Choice::EndRound { .. }
            | Choice::PlayOption { .. }
            | Choice::EndTurn
            | Choice::MoveToNode { .. }
            | Choice::EndPhase
            | Choice::Synthesize { .. }
            | Choice::ChooseNodeOption { .. }
            | Choice::Strike { .. }
            | Choice::Summon { .. }
            | Choice::PlayCard { .. }
            | Choice::DiscardCard { .. }
            | Choice::RemoveCard { .. }
            | Choice::DrawCard
            | Choice::UseDeck { .. }
            | Choice::Bind { .. }
            | Choice::Trigger { .. }
            | Choice::SynthesizeAlone { .. }
            | Choice::SummonExtra { .. }
            | Choice::Raid { .. } => {}
        }
        engine.end_step();
        let evaluations = engine.evaluations;
        self.counters.add(1, &events, evaluations);
        Ok(events)
    }

    /// Lets `ticks` of game time pass at the table, processing every timer and decay that
    /// expires.
    pub(crate) fn advance_table(&mut self, ticks: u64, events: &mut Vec<Event>) {
        self.advance_table_marked(ticks, events, None);
    }

    /// As [`Self::advance_table`]; with `marks`, notes after each expiry how many events there
    /// are and at which tick they happened (so a trace can stamp each event with its own tick).
    pub(crate) fn advance_table_marked(
        &mut self,
        ticks: u64,
        events: &mut Vec<Event>,
        mut marks: Option<&mut Vec<(usize, u64)>>,
    ) {
        let content = Arc::clone(&self.content);
        let target = self.state.tick.saturating_add(ticks);
        let mut counted = events.len();
        while self.state.outcome.is_none() && !self.clock_must_stop() {
            let now = self.state.tick;
            let Some(at) = self.next_due().filter(|at| *at <= target) else { break };
            self.pass_time(at.saturating_sub(now));
            let mut engine = Engine::new(&content, &mut self.state, &mut self.rng, events);
            // Timers first (registry order), then decays (card order).
            let due: Vec<TokenKey> = engine
                .state
                .windows
                .iter()
                .filter(|(_, w)| w.timer_end.is_some_and(|end| end <= at))
                .map(|(key, _)| *key)
                .collect();
            if due.is_empty()
                && !engine.state.cards.values().any(|card| card.decay.as_ref().is_some_and(|d| d.remaining == 0))
            {
                // Nothing expired after all: stop rather than spin on the same tick.
                break;
            }
            for &token in &due {
                engine.complete(token);
                engine.end_step();
            }
            let decayed: Vec<CardKey> = engine
                .state
                .cards
                .iter()
                .filter(|(_, card)| card.decay.as_ref().is_some_and(|decay| decay.remaining == 0))
                .map(|(key, _)| *key)
                .collect();
            let steps = due.len().saturating_add(decayed.len()) as u64;
            for card in decayed {
                engine.decay_done(card);
                engine.end_step();
            }
            let evaluations = engine.evaluations;
            self.counters.add(steps, events.get(counted..).unwrap_or_default(), evaluations);
            counted = events.len();
            if let Some(marks) = marks.as_deref_mut() {
                marks.push((events.len(), at));
            }
        }
        if self.state.outcome.is_none() && !self.clock_must_stop() {
            let rest = target.saturating_sub(self.state.tick);
            self.pass_time(rest);
        }
    }

    /// "Play from here": runs `act` at once in an idle window of its token, creating the token
    /// when none is on the table. The act's entry test is not applied (a forced start, §2.8.4).
    pub fn force_act(&mut self, act: &str) -> Result<Vec<Event>, String> {
        let content = Arc::clone(&self.content);
        let definition = content.project.acts.get(act).ok_or_else(|| format!("there is no act `{act}`"))?;
        let token = definition.token.clone().ok_or_else(|| format!("act `{act}` names no token to run in"))?;
        if self.state.outcome.is_some() {
            return Err("the game has ended".to_owned());
        }
        let mut events = Vec::with_capacity(16);
        let mut engine = Engine::new(&content, &mut self.state, &mut self.rng, &mut events);
        let idle = |state: &TableState| {
            state.windows.iter().find(|(_, w)| w.token == token && w.status == Status::Idle).map(|(key, _)| *key)
        };
        let key = if let Some(key) = idle(engine.state) {
            key
        } else {
            let pending = PendingToken { token: token.clone(), auto_run: None, memory: None };
            engine.state.pending_tokens.push(pending);
            engine.create_pending_tokens();
            idle(engine.state).ok_or_else(|| format!("no idle window of token `{token}` can run `{act}`"))?
        };
        engine.force_start(key, &definition.id);
        engine.end_step();
        let evaluations = engine.evaluations;
        self.counters.add(1, &events, evaluations);
        Ok(events)
    }

    /// The tick at which the next timer or running decay expires, if any does.
    pub fn next_due(&self) -> Option<u64> {
        let now = self.state.tick;
        let next_timer = self.state.windows.values().filter_map(|w| w.timer_end).min();
        let next_decay = self
            .state
            .cards
            .values()
            .filter_map(|card| {
                let decay = card.decay.as_ref()?;
                (!self.state.decay_paused_at(card.place)).then(|| now.saturating_add(decay.remaining))
            })
            .min();
        [next_timer, next_decay].into_iter().flatten().min()
    }

    /// Moves the clock on; running decays count down.
    fn pass_time(&mut self, ticks: u64) {
        if ticks == 0 {
            return;
        }
        let running: Vec<CardKey> = self
            .state
            .cards
            .iter()
            .filter(|(_, card)| card.decay.is_some() && !self.state.decay_paused_at(card.place))
            .map(|(key, _)| *key)
            .collect();
        for key in running {
            if let Some(decay) = self.state.cards.get_mut(&key).and_then(|card| card.decay.as_mut()) {
                decay.remaining = decay.remaining.saturating_sub(ticks);
            }
        }
        self.state.tick = self.state.tick.saturating_add(ticks);
    }
}

impl Session {
    /// The value of a formula over the table only.
    pub(crate) fn table_query(&self, formula: &str) -> Result<f64, String> {
        self.table_query_traced(formula, None)
    }

    /// [`Self::table_query`], traced into `out` when given.
    pub(crate) fn table_query_traced(&self, formula: &str, out: TraceOut<'_>) -> Result<f64, String> {
        let mut state = self.state.clone();
        let mut rng = self.rng.clone();
        let mut events = Vec::new();
        let mut engine = Engine::new(&self.content, &mut state, &mut rng, &mut events);
        let tactics = self.tactics.as_ref();
        let other = |lookup: &crate::formula::Lookup| tactics.and_then(|battle| battle.lookup_value(lookup));
        engine.query(formula, &other, out).map_err(|error| error.render(formula))
    }
}
