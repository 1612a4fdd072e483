//! The campaign's part of the [`Session`]: its state, start, choices, steps and queries.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::formula::{FormulaSet, ProjectNames, TraceOut};
use crate::model::{CardId, Id, Stat};

use super::CampaignState;
use super::env::CampaignEnv;
use super::step::{Step, start_meters};
use crate::engine::content::Accessor;
use crate::engine::table::Outcome;
use crate::engine::{Choice, ChoiceError, Event, Session};
use crate::number::show_value;

impl Session {
    /// The campaign's state, when the project's entry names a node map.
    pub fn campaign(&self) -> Option<&CampaignState> {
        self.campaign.as_ref()
    }

    /// Starts the campaign of `entry.node_map`: the player on the start node (captured), the
    /// first era's first day, meters at their start values, the first phase's rules run.
    pub(crate) fn start_campaign(&mut self, events: &mut Vec<Event>) {
        let content = Arc::clone(&self.content);
        let Some(map) =
            content.project.manifest.entry.node_map.as_ref().and_then(|id| content.project.node_maps.get(id.as_str()))
        else {
            return;
        };
        let Some(start) = map.start.clone().or_else(|| map.nodes.first().map(|node| node.id.clone())) else { return };
        let mut state = CampaignState {
            map: map.id.clone(),
            node: start.clone(),
            visited: BTreeSet::from([start.clone()]),
            captured: BTreeSet::from([start]),
            spent: BTreeSet::new(),
            patrols: map.patrols.iter().map(|patrol| (patrol.id.clone(), 0)).collect(),
            day: 1,
            phase: 0,
            era: map.first_era.clone(),
            era_day: 1,
            moves: 0,
            retaken: 0,
            hand: map.hand.clone(),
            reversed: BTreeMap::new(),
            piles: BTreeMap::new(),
            discard: Vec::new(),
            returning: Vec::new(),
            deck: None,
            choosing: None,
            fallbacks: BTreeMap::new(),
            eras: u32::from(map.first_era.is_some()),
            battle: None,
            battles: (0, 0),
            holding: BTreeSet::new(),
            syntheses: 0,
            failures: 0,
            boosts: BTreeMap::new(),
            bonds: Vec::new(),
            last_result: None,
            failed: None,
            raided: BTreeSet::new(),
            revealed: BTreeSet::new(),
            meters: BTreeMap::new(),
            result: None,
        };
        if self.turns.is_none() {
            start_meters(&content, map, &mut state, &mut self.rng);
        }
        self.campaign = Some(state);
        self.campaign_step(events, |step| {
            if let Some(era) = step.state.era.clone() {
                step.events.push(Event::EraStarted { era });
            }
            step.start_cards();
            step.roll_first_player();
            step.begin_phase(true);
        });
    }

    /// Runs `body` as one campaign step over the stored stats (the turns system's when it
    /// runs), then checks the end; the session ends with the campaign when the table is idle.
    pub(super) fn campaign_step<R>(
        &mut self,
        events: &mut Vec<Event>,
        body: impl FnOnce(&mut Step<'_>) -> R,
    ) -> Option<R> {
        let content = Arc::clone(&self.content);
        let campaign = self.campaign.as_mut()?;
        let map = content.project.node_maps.get(campaign.map.as_str())?;
        let mut stored = match self.turns.as_mut() {
            Some(turns) => std::mem::take(&mut turns.stored),
            None => std::mem::take(&mut campaign.meters),
        };
        let mut step = Step {
            content: &content,
            map,
            state: campaign,
            stored: &mut stored,
            rng: &mut self.rng,
            events,
            work: crate::engine::core::StepWork::default(),
            synth: None,
            target: None,
        };
        let result = body(&mut step);
        step.check_battles();
        step.check_end();
        match self.turns.as_mut() {
            Some(turns) => turns.stored = stored,
            None => campaign.meters = stored,
        }
        let table_idle = self.state.windows.is_empty() && self.state.cards.is_empty();
        if table_idle
            && self.state.outcome.is_none()
            && let Some(result) = &campaign.result
        {
            self.state.outcome = Some(Outcome::Ended(result.outcome.clone()));
        }
        Some(result)
    }

    /// A read-only step over copies of the campaign, its stats and the generator (not the
    /// table): for choices, refusals and queries.
    pub(super) fn campaign_look<R>(&self, body: impl FnOnce(&mut Step<'_>) -> R) -> Option<R> {
        let mut campaign = self.campaign.clone()?;
        let map = self.content.project.node_maps.get(campaign.map.as_str())?;
        let mut stored = match &self.turns {
            Some(turns) => turns.stored.clone(),
            None => std::mem::take(&mut campaign.meters),
        };
        let mut rng = self.rng.clone();
        let mut events = Vec::new();
        let mut step = Step {
            content: &self.content,
            map,
            state: &mut campaign,
            stored: &mut stored,
            rng: &mut rng,
            events: &mut events,
            work: crate::engine::core::StepWork::default(),
            synth: None,
            target: None,
        };
        Some(body(&mut step))
    }

    /// "Play from here": puts the player on `node` of the campaign's map (visited and captured),
    /// outside the rules; nothing is paid and no node effect runs.
    pub fn jump_to_node(&mut self, node: &str) -> Result<(), String> {
        let content = Arc::clone(&self.content);
        let campaign = self.campaign.as_mut().ok_or("the project has no campaign (no node map in its entry)")?;
        let map = content
            .project
            .node_maps
            .get(campaign.map.as_str())
            .ok_or_else(|| format!("there is no node map `{}`", campaign.map))?;
        let target = map.nodes.iter().find(|n| n.id.as_str() == node).ok_or_else(|| {
            let known: Vec<&str> = map.nodes.iter().map(|n| n.id.as_str()).collect();
            format!("node map `{}` has no node `{node}` (it has: {})", map.id, known.join(", "))
        })?;
        campaign.node = target.id.clone();
        campaign.visited.insert(target.id.clone());
        campaign.captured.insert(target.id.clone());
        Ok(())
    }

    /// The campaign choices: each path from the player's node that can be taken now (in the
    /// map's order), then `EndPhase`.
    pub(crate) fn campaign_choices(&self, choices: &mut Vec<Choice>) {
        let Some(campaign) = &self.campaign else { return };
        if campaign.result.is_some() || self.state.outcome.is_some() {
            return;
        }
        if let Some(battle) = &campaign.battle {
            for attacker in battle.player.iter().filter(|fighter| fighter.life > 0.0) {
                for target in battle.enemy.iter().filter(|fighter| fighter.life > 0.0) {
                    choices.push(Choice::Strike { attacker: attacker.key.clone(), target: target.key.clone() });
                }
            }
            return;
        }
        if campaign.choosing.is_some() {
            #[allow(clippy::redundant_closure_for_method_calls)] // a path would fix Step's lifetime
            let options = self.campaign_look(|step| step.open_options()).unwrap_or_default();
            choices.extend(options.into_iter().map(|(node, option)| Choice::ChooseNodeOption { node, option }));
            return;
        }
        let listed = self
            .campaign_look(|step| {
                let map = step.map;
                let here = step.state.node.clone();
                let mut choices: Vec<Choice> = map
                    .edges
                    .iter()
                    .filter(|edge| edge.from == here)
                    .filter(|edge| step.path_cost(&edge.to).is_ok())
                    .map(|edge| Choice::MoveToNode { node: edge.to.clone() })
                    .collect::<Vec<_>>();
                let mut kinds: Vec<CardId> = Vec::new();
                for card in &step.state.hand {
                    if !kinds.contains(card) {
                        kinds.push(card.clone());
                    }
                }
                for a in &kinds {
                    for b in &kinds {
                        if step.synthesis_cost(a, b).is_ok() {
                            choices.push(Choice::Synthesize { a: a.clone(), b: b.clone() });
                        }
                    }
                }
                choices.extend(step.card_choices(&kinds));
                for deck in &map.cards.decks {
                    if step.deck_choice(&deck.id).is_ok() {
                        choices.push(Choice::UseDeck { deck: deck.id.clone() });
                    }
                }
                choices.extend(step.field_choices(&kinds));
                choices
            })
            .unwrap_or_default();
        choices.extend(listed);
        choices.push(Choice::EndPhase);
    }

    /// Plays a campaign choice.
    pub(crate) fn apply_campaign(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        if self.campaign.as_ref().is_none_or(|campaign| campaign.result.is_some()) {
            return Err(if self.campaign.is_some() {
                ChoiceError::GameEnded
            } else {
                ChoiceError::NotPossible(format!("{choice:?}"))
            });
        }
        let mut events = Vec::new();
        let choosing = self.campaign.as_ref().is_some_and(|campaign| campaign.choosing.is_some());
        let fighting = self.campaign.as_ref().is_some_and(|campaign| campaign.battle.is_some());
        if fighting != matches!(choice, Choice::Strike { .. })
            || (!fighting && choosing != matches!(choice, Choice::ChooseNodeOption { .. }))
        {
            return Err(ChoiceError::NotPossible(format!("{choice:?}")));
        }
        // The extra summon is open only right after the failure.
        if !matches!(choice, Choice::SummonExtra { .. })
            && let Some(campaign) = self.campaign.as_mut()
        {
            campaign.failed = None;
        }
        let done = match choice {
            Choice::Strike { attacker, target } => self.campaign_step(&mut events, |step| {
                let possible = step.strike_check(attacker, target).is_ok();
                if possible {
                    step.strike(attacker, target);
                }
                possible
            }),
            Choice::ChooseNodeOption { node, option } => self.campaign_step(&mut events, |step| {
                let open = step.open_options().iter().any(|(at, id)| at == node && id == option);
                if open {
                    step.choose_option(node, option);
                }
                open
            }),
            Choice::MoveToNode { node } => self
                .campaign_step(&mut events, |step| step.path_cost(node).map(|cost| step.move_to(node, cost)).is_ok()),
            Choice::EndPhase => self.campaign_step(&mut events, |step| {
                step.end_phase();
                true
            }),
            Choice::Synthesize { a, b } => self.campaign_step(&mut events, |step| {
                step.synthesis_cost(a, b).map(|cost| step.synthesize(a, b, cost)).is_ok()
            }),
            Choice::Summon { a, b, result } => self.campaign_step(&mut events, |step| {
                step.summon_cost(a, b, result).map(|cost| step.summon(a, b, result, cost)).is_ok()
            }),
            Choice::PlayCard { card, reversed, target } => self.campaign_step(&mut events, |step| {
                let target = target.as_ref();
                step.play_cost(card, *reversed, target).map(|cost| step.play(card, *reversed, target, cost)).is_ok()
            }),
            Choice::Bind { .. }
            | Choice::Trigger { .. }
            | Choice::SynthesizeAlone { .. }
            | Choice::SummonExtra { .. }
            | Choice::Raid { .. } => self.campaign_step(&mut events, |step| step.apply_field(choice)),
            Choice::DiscardCard { card, reversed } => self.campaign_step(&mut events, |step| {
                let possible = step.discard_choice(card, *reversed).is_ok();
                if possible {
                    step.discard_from_hand(card, *reversed);
                }
                possible
            }),
            Choice::RemoveCard { card } => self.campaign_step(&mut events, |step| {
                step.removal_cost(card).map(|cost| step.remove_fallback(card, cost)).is_ok()
            }),
            Choice::DrawCard => {
                self.campaign_step(&mut events, |step| step.extra_draw_cost().map(|cost| step.draw_extra(cost)).is_ok())
            }
            Choice::UseDeck { deck } => self.campaign_step(&mut events, |step| {
                let possible = step.deck_choice(deck).is_ok();
                if possible {
                    step.state.deck = Some(deck.clone());
                }
                possible
            }),
            _ => None,
        };
        if done != Some(true) {
            return Err(ChoiceError::NotPossible(format!("{choice:?}")));
        }
        self.counters.steps = self.counters.steps.saturating_add(1);
        Ok(events)
    }

    /// The value of a formula that reads campaign names, over the campaign (None when the
    /// formula reads none of them, or no campaign runs; stats when no turns system runs).
    pub(crate) fn campaign_query(&self, formula: &str, out: TraceOut<'_>) -> Option<Result<f64, String>> {
        self.campaign.as_ref()?;
        let content = &self.content;
        let mut set: FormulaSet = content.formulas().clone();
        let compiled = match set.compile(formula, &ProjectNames::new(&content.project)) {
            Ok(compiled) => compiled,
            Err(error) => return Some(Err(error.render(formula))),
        };
        let accessors: Vec<Accessor> =
            set.lookups().map(|lookup| crate::engine::content::accessor(lookup, &content.project)).collect();
        let ours = accessors.iter().any(|accessor| match accessor {
            Accessor::Name(name) => name.is_campaign(),
            Accessor::Stat(_) | Accessor::Turn => self.turns.is_none(),
            _ => false,
        });
        if !ours {
            return None;
        }
        self.campaign_look(|step| {
            let mut env = CampaignEnv {
                content: step.content,
                accessors: &accessors,
                map: step.map,
                state: step.state,
                stored: step.stored,
                rng: &mut *step.rng,
                depth: 0,
                fight: None,
                synth: None,
            };
            Ok(set.eval_or_trace(&compiled, formula, &mut env, out))
        })
    }

    /// The value of a stat as the campaign reads it.
    pub fn campaign_stat(&self, stat: &str) -> Option<f64> {
        self.campaign.as_ref()?;
        self.campaign_look(|step| step.stat_value(&Id::new(stat)))
    }

    /// The campaign in words (for `actforge play` and failed expectations).
    pub fn describe_campaign(&self) -> Vec<String> {
        let Some(campaign) = &self.campaign else { return Vec::new() };
        let Some(map) = self.content.project.node_maps.get(campaign.map.as_str()) else { return Vec::new() };
        let era = campaign.era.as_ref().map_or("none", |era| era.as_str());
        let mut lines = vec![format!(
            "campaign {}: day {} ({}), era {era} day {}, at {}",
            campaign.map,
            campaign.day,
            campaign.phase_name(map),
            campaign.era_day,
            campaign.node
        )];
        let captured: Vec<&str> = campaign.captured.iter().map(Id::as_str).collect();
        lines.push(format!("  captured: {}", captured.join(" ")));
        lines.push(format!("  hand: {}", hand_words(campaign).join(" ")));
        if let Some(battle) = &campaign.battle {
            let side = |fighters: &[super::Fighter]| {
                let words: Vec<String> = fighters
                    .iter()
                    .map(|fighter| format!("{} ({})", fighter.key, show_value(fighter.life, None)))
                    .collect();
                words.join(", ")
            };
            lines.push(format!(
                "  battle {}: yours {}; the enemy's {}",
                battle.id,
                side(&battle.player),
                side(&battle.enemy)
            ));
        }
        if !map.cards.decks.is_empty() {
            let piles: Vec<String> = map
                .cards
                .decks
                .iter()
                .map(|deck| {
                    let left = campaign.piles.get(&deck.id).map_or(0, Vec::len);
                    let chosen = if campaign.deck.as_deref() == Some(deck.id.as_str()) { " (drawn from)" } else { "" };
                    format!("{} {left}{chosen}", deck.id)
                })
                .collect();
            lines.push(format!(
                "  decks: {}; discard pile: {}; discarded today: {}",
                piles.join(", "),
                campaign.discard.len(),
                campaign.returning.len()
            ));
        }
        lines.extend(field_words(campaign));
        for patrol in &map.patrols {
            let at = campaign.patrol_node(map, &patrol.id).map_or("?", |node| node.as_str());
            lines.push(format!("  patrol {} at {at}", patrol.id));
        }
        let mut stats: Vec<&Stat> = self.content.project.stats.iter().collect();
        stats.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
        for stat in stats {
            let value = self.campaign_stat(stat.id.as_str()).unwrap_or(f64::NAN);
            lines.push(format!("  meter {} = {}", stat.id, show_value(value, stat.rounding)));
        }
        if let Some(result) = &campaign.result {
            lines.push(format!("  ended: {}", result.outcome));
        }
        lines
    }
}

/// The field, per-card boosts, the revelations granted and an open extra summon, in words
/// (one line each; none when empty).
pub(crate) fn field_words(campaign: &super::CampaignState) -> Vec<String> {
    let changes = |values: &BTreeMap<String, f64>| {
        let words: Vec<String> = values
            .iter()
            .map(|(name, value)| format!("{name} {}{}", if *value >= 0.0 { "+" } else { "" }, show_value(*value, None)))
            .collect();
        words.join(", ")
    };
    let mut lines = Vec::new();
    for bound in &campaign.bonds {
        let gathered =
            if bound.gathered.is_empty() { String::new() } else { format!(" ({})", changes(&bound.gathered)) };
        lines.push(format!("  bound: {} + {}{gathered}", bound.a, bound.b));
    }
    for (card, boosts) in &campaign.boosts {
        lines.push(format!("  boosted: {card} {}", changes(boosts)));
    }
    if !campaign.revealed.is_empty() {
        let revealed: Vec<&str> = campaign.revealed.iter().map(String::as_str).collect();
        lines.push(format!("  revealed: {}", revealed.join(" ")));
    }
    if let Some(failed) = &campaign.failed {
        lines.push(format!("  failed: {failed} (an extra card may be summoned in its place)"));
    }
    lines
}

/// The hand in words: each card, `CARD (reversed)` for its reversed copies.
pub(crate) fn hand_words(campaign: &super::CampaignState) -> Vec<String> {
    campaign
        .hand_cards()
        .into_iter()
        .map(|(card, reversed)| if reversed { format!("{card} (reversed)") } else { card.to_string() })
        .collect()
}

impl Step<'_> {
    /// The choices of cards in the hand: summons, plays, discards, removals and the extra draw.
    fn card_choices(&mut self, kinds: &[CardId]) -> Vec<Choice> {
        let map = self.map;
        let step = self;
        let mut out = Vec::new();
        let content = step.content;
        let summoned: Vec<CardId> = map
            .synthesis
            .as_ref()
            .and_then(|id| content.project.syntheses.get(id.as_str()))
            .filter(|synthesis| !synthesis.insight_cost.is_zero())
            .and_then(|synthesis| synthesis.candidates.as_ref())
            .and_then(|deck| content.project.decks.get(deck.as_str()))
            .map(|deck| {
                let mut cards: Vec<CardId> = Vec::new();
                for card in &deck.fragments {
                    if !cards.contains(card) {
                        cards.push(card.clone());
                    }
                }
                cards
            })
            .unwrap_or_default();
        for a in kinds {
            for b in kinds {
                for result in &summoned {
                    if step.summon_cost(a, b, result).is_ok() {
                        out.push(Choice::Summon { a: a.clone(), b: b.clone(), result: result.clone() });
                    }
                }
            }
        }
        for card in kinds {
            let targets = step.play_targets(card);
            for reversed in [false, true] {
                if targets.is_empty() {
                    if step.play_cost(card, reversed, None).is_ok() {
                        out.push(Choice::PlayCard { card: card.clone(), reversed, target: None });
                    }
                    continue;
                }
                for target in &targets {
                    if step.play_cost(card, reversed, Some(target)).is_ok() {
                        out.push(Choice::PlayCard { card: card.clone(), reversed, target: Some(target.clone()) });
                    }
                }
            }
        }
        for card in kinds {
            for reversed in [false, true] {
                if step.discard_choice(card, reversed).is_ok() {
                    out.push(Choice::DiscardCard { card: card.clone(), reversed });
                }
            }
        }
        let marked: Vec<CardId> = step.state.fallbacks.keys().cloned().collect();
        for card in &marked {
            if step.removal_cost(card).is_ok() {
                out.push(Choice::RemoveCard { card: card.clone() });
            }
        }
        if step.extra_draw_cost().is_ok() {
            out.push(Choice::DrawCard);
        }
        out
    }
}

impl Step<'_> {
    /// The choices of the field: binds, triggers of bound pairs, B alone, extra summons and
    /// raids.
    fn field_choices(&mut self, kinds: &[CardId]) -> Vec<Choice> {
        let mut out = Vec::new();
        for a in kinds {
            for b in kinds {
                if self.bind_check(a, b).is_ok() {
                    out.push(Choice::Bind { a: a.clone(), b: b.clone() });
                }
            }
        }
        let bound: Vec<(CardId, CardId)> =
            self.state.bonds.iter().map(|bound| (bound.a.clone(), bound.b.clone())).collect();
        for (at, (a, b)) in bound.iter().enumerate() {
            if !bound.iter().take(at).any(|seen| *seen == (a.clone(), b.clone())) && self.trigger_cost(a, b).is_ok() {
                out.push(Choice::Trigger { a: a.clone(), b: b.clone() });
            }
        }
        for b in kinds {
            if self.alone_cost(b).is_ok() {
                out.push(Choice::SynthesizeAlone { b: b.clone() });
            }
        }
        out.extend(self.open_extras().into_iter().map(|card| Choice::SummonExtra { card }));
        out.extend(self.open_raids().into_iter().map(|card| Choice::Raid { card }));
        out
    }
}
