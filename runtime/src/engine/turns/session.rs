//! The turns system's part of the [`Session`]: its state, choices, turn step and queries.

use crate::formula::{FormulaSet, ProjectNames, TraceOut};
use crate::model::{CardId, Id};

use super::env::TurnsEnv;
use super::step::Turns;
use super::{StatLine, TurnsState};
use crate::engine::content::Accessor;
use crate::engine::core;
use crate::engine::{Choice, ChoiceError, Event, Session};

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

    /// Starts the turns system when the project has a turn config.
    pub(crate) fn start_turns(&mut self, events: &mut Vec<Event>) {
        self.turns = TurnsState::start(&self.content, &mut self.rng, events);
        self.end_game_with_turns();
    }

    /// Adds the turn choices to `choices`.
    pub(crate) fn turn_choices(&self, choices: &mut Vec<Choice>) {
        choices.extend(self.turn_choice_list());
    }

    /// The turn choices: each offered option of each card type in the hand (first copy), then
    /// `EndTurn`.
    fn turn_choice_list(&self) -> Vec<Choice> {
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
                    core::truthy(value)
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
    pub(crate) fn apply_turn(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        if self.turns.as_ref().is_some_and(|turns| turns.outcome.is_some()) {
            return Err(ChoiceError::GameEnded);
        }
        if !self.turn_choice_list().contains(choice) {
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
            work: crate::engine::core::StepWork::default(),
        };
        if let Choice::PlayOption { card, option } = choice {
            let offered = content.card(card.as_str()).and_then(|card| card.options.get(*option));
            let label = offered.map_or_else(String::new, |offered| offered.label.clone());
            turns.events.push(Event::TurnOptionPlayed { card: card.clone(), option: label });
            for rule in offered.map(|offered| offered.rules.as_slice()).unwrap_or_default() {
                turns.run_rule(rule);
            }
            if let Some(at) = turns.state.hand.iter().position(|held| held == card) {
                turns.state.hand.remove(at);
            }
        }
        turns.finish_turn(config);
        self.counters.steps = self.counters.steps.saturating_add(1);
        self.end_game_with_turns();
        Ok(events)
    }

    /// When the turns have ended and nothing is in play at the table, the game has ended.
    pub(crate) fn end_game_with_turns(&mut self) {
        let table_idle = self.state.windows.is_empty() && self.state.cards.is_empty();
        if table_idle
            && self.state.outcome.is_none()
            && let Some(outcome) = self.turns.as_ref().and_then(|turns| turns.outcome.clone())
        {
            self.state.outcome = Some(outcome);
        }
    }

    /// The value of a formula over the turns state (stats, `turn`), for scripts and the CLI.
    pub(crate) fn turn_query(&self, formula: &str, out: TraceOut<'_>) -> Option<Result<f64, String>> {
        let turns = self.turns.as_ref()?;
        let content = &self.content;
        let mut set: FormulaSet = content.formulas().clone();
        let compiled = match set.compile(formula, &ProjectNames::new(&content.project)) {
            Ok(compiled) => compiled,
            Err(error) => return Some(Err(error.render(formula))),
        };
        let accessors: Vec<Accessor> =
            set.lookups().map(|lookup| crate::engine::content::accessor(lookup, &content.project)).collect();
        // Counts read a copy of the table, as the table's own queries do.
        let mut table_state = self.state.clone();
        let mut table_rng = self.rng.clone();
        let mut events = Vec::new();
        let engine = crate::engine::table::Engine::new(content, &mut table_state, &mut table_rng, &mut events);
        let ctx = crate::engine::table::rules::RuleContext::new(crate::engine::table::Holder::Root, 0);
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
        Some(Ok(set.eval_or_trace(&compiled, formula, &mut env, out)))
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
}
