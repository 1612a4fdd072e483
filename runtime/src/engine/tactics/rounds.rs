//! The team-round schedulers (seed 001 "Team Rounds—Pick Any Once", "Team Rounds—Points")
//! and charged skills that resolve on a later tick (`spec/srpgck.md` §d).

use std::collections::BTreeMap;
use std::sync::Arc;

use rand_pcg::Pcg64Mcg;

use crate::engine::content::Content;
use crate::engine::{Choice, Event};
use crate::map::{Spot, SpotMap};
use crate::model::SchedulerKind;

use super::env::{Perspective, eval_expr};
use super::memo::{Answer, Question, TacticsMemo};
use super::{Round, TacticsState, Turn};

/// Activations a team has each round with the points scheduler, unless the map says.
pub(super) const POINTS_PER_ROUND: u32 = 8;

/// Action points of a unit's first activation in a round, unless the map says.
const UNIT_POINTS: f64 = 10.0;

/// What each later activation in a round keeps of the one before, unless the map says.
const POINTS_DIMINISH: f64 = 0.75;

/// The cells a path crosses in x/y.
pub(super) fn path_length(path: &[Spot]) -> u32 {
    path.windows(2).filter_map(|pair| pair.first().zip(pair.get(1))).map(|(a, b)| a.xy_distance(*b)).sum()
}

impl TacticsState {
    /// Action points a cell walked costs the unit (points scheduler).
    pub(super) fn move_points(&self, key: &str) -> f64 {
        self.setup.scheduler.move_points.as_ref().map_or(1.0, |expr| self.live_value(key, expr, 0))
    }

    /// Where the active unit can walk now: its move skills' spots, with the points scheduler
    /// only those whose path its action points pay for.
    /// Listing and applying a move ask the same `memo`, which answers when it can.
    pub(super) fn reachable(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        memo: &TacticsMemo,
    ) -> Arc<SpotMap<usize>> {
        let answer = memo.answer(Question::Reach(key.to_owned()), rng, |rng| {
            Answer::Reach(Arc::new(self.work_out_reach(content, rng, key, memo)))
        });
        match answer {
            Answer::Reach(spots) => spots,
            _ => Arc::new(self.work_out_reach(content, rng, key, memo)),
        }
    }

    fn work_out_reach(&self, content: &Content, rng: &mut Pcg64Mcg, key: &str, memo: &TacticsMemo) -> SpotMap<usize> {
        let mut spots = self.move_spots(content, rng, key, memo);
        let Some(points) = self.action_points.filter(|_| self.active_unit() == Some(key)) else { return spots };
        let per_cell = self.move_points(key);
        spots.retain(|spot, at| {
            let cost = per_cell * f64::from(path_length(&self.move_path(content, rng, (key, *at), *spot, memo)));
            // NaN costs pay for nothing.
            cost <= points
        });
        spots
    }

    /// With nobody's turn under a team-round scheduler: pick each unit the team may pick, or
    /// end the round.
    pub(super) fn round_choices(&self) -> Vec<Choice> {
        let Some(round) = self.round.as_ref().filter(|round| !round.ended) else { return Vec::new() };
        let mut choices: Vec<Choice> = self
            .setup
            .order
            .iter()
            .filter(|key| self.pick_refusal(key).is_none())
            .map(|key| Choice::PickUnit { unit: key.clone() })
            .collect();
        choices.push(Choice::EndRound { team: round.team.clone() });
        choices
    }

    /// What "nobody's turn" means now: time passes (CT), or the round's team picks.
    pub(super) fn nobody_words(&self) -> String {
        match &self.round {
            Some(round) if self.setup.scheduler.kind != SchedulerKind::Ct => {
                format!("it is nobody's turn: {} picks a unit (`pick UNIT`) or ends its round", round.team)
            }
            _ => "it is nobody's turn".to_owned(),
        }
    }

    /// Why the round's team cannot give `key` a turn now (none: it can).
    pub(crate) fn pick_refusal(&self, key: &str) -> Option<String> {
        let kind = self.setup.scheduler.kind;
        if kind == SchedulerKind::Ct {
            return Some("the CT scheduler gives the turns: units are not picked".to_owned());
        }
        if let Some(winner) = &self.winner {
            return Some(format!("the battle has ended ({winner} won)"));
        }
        let Some(unit) = self.units.get(key) else { return Some(format!("there is no unit `{key}` in the battle")) };
        if let Some(turn) = &self.active {
            return Some(format!("it is {}'s turn", turn.unit));
        }
        let Some(round) = &self.round else { return Some("no round is under way".to_owned()) };
        if unit.defeated {
            return Some(format!("{key} is defeated"));
        }
        if unit.team != round.team {
            return Some(format!("it is {}'s round, and {key} is of {}", round.team, unit.team));
        }
        if round.ended {
            return Some(format!("{} has ended its round", round.team));
        }
        let times = round.picked.get(key).copied().unwrap_or(0);
        match kind {
            SchedulerKind::TeamRounds if times > 0 => Some(format!("{key} has had its turn this round")),
            SchedulerKind::TeamPoints if round.points == 0 => {
                Some(format!("{} has no points left this round", round.team))
            }
            _ => None,
        }
    }

    /// The round's team gives `key` a turn; with points it costs a point and gives the unit
    /// its action points, fewer for each time it was picked this round.
    pub(super) fn pick_unit(&mut self, key: &str, events: &mut Vec<Event>) -> Result<(), String> {
        if let Some(why) = self.pick_refusal(key) {
            return Err(why);
        }
        let scheduler = &self.setup.scheduler;
        let points = if scheduler.kind == SchedulerKind::TeamPoints {
            let times = self.round.as_ref().and_then(|round| round.picked.get(key)).copied().unwrap_or(0);
            let first = scheduler.unit_points.as_ref().map_or(UNIT_POINTS, |expr| self.live_value(key, expr, 0));
            let keep = scheduler.points_diminish.as_ref().map_or(POINTS_DIMINISH, |expr| self.live_value(key, expr, 0));
            let points = first * keep.powi(i32::try_from(times).unwrap_or(i32::MAX));
            if points.is_nan() {
                events.push(Event::Warning(format!(
                    "{key}'s action points are not a number (the map's `unit_points` or `points_diminish`)"
                )));
            }
            Some(points)
        } else {
            None
        };
        if let Some(round) = self.round.as_mut() {
            let times = round.picked.entry(key.to_owned()).or_insert(0);
            *times = times.saturating_add(1);
            if points.is_some() {
                round.points = round.points.saturating_sub(1);
            }
        }
        self.action_points = points;
        self.active = Some(Turn { unit: key.to_owned(), moved: false, acted: false });
        self.turns = self.turns.saturating_add(1);
        events.push(Event::UnitTurnStarted { unit: key.to_owned() });
        Ok(())
    }

    /// The round's team ends its round (nobody's turn may be under way).
    pub(super) fn end_round(&mut self, team: &str) -> Result<(), String> {
        if let Some(turn) = &self.active {
            return Err(format!("it is {}'s turn: it ends first", turn.unit));
        }
        match self.round.as_mut() {
            Some(round) if round.team == team && !round.ended => {
                round.ended = true;
                Ok(())
            }
            Some(round) => Err(format!("it is {}'s round, not {team}'s", round.team)),
            None => Err("no round is under way".to_owned()),
        }
    }

    /// The round under way still waits on its team: it has not ended it and has a unit it may
    /// pick.
    pub(super) fn round_open(&self) -> bool {
        self.round.as_ref().is_some_and(|round| !round.ended)
            && self.setup.order.iter().any(|key| self.pick_refusal(key).is_none())
    }

    /// Starts the next team's round (the first team's at the start): the next team in the
    /// round order with a unit standing. False when no team has one.
    pub(super) fn next_round(&mut self, events: &mut Vec<Event>) -> bool {
        let teams = &self.setup.teams;
        let start = self
            .round
            .as_ref()
            .and_then(|round| teams.iter().position(|team| *team == round.team))
            .map_or(0, |at| at.saturating_add(1));
        let count = teams.len();
        let standing =
            |team: &str| self.units.values().any(|unit| !unit.defeated && unit.scheduled && unit.team == team);
        let next = teams.iter().cycle().skip(start).take(count).find(|team| standing(team));
        let Some(team) = next.cloned() else { return false };
        let number = self.round.as_ref().map_or(0, |round| round.number).saturating_add(1);
        let points = match self.setup.scheduler.kind {
            SchedulerKind::TeamPoints => self.setup.scheduler.points_per_round.unwrap_or(POINTS_PER_ROUND),
            _ => 0,
        };
        self.round = Some(Round { team: team.clone(), number, picked: BTreeMap::new(), points, ended: false });
        events.push(Event::TeamRoundStarted { team, round: number });
        true
    }

    /// Points scheduler: an activation that has acted and cannot pay for another cell ends
    /// by itself (there is nothing left for it to do but wait).
    pub(super) fn end_spent_activation(&mut self, events: &mut Vec<Event>) {
        let Some(points) = self.action_points else { return };
        let Some(turn) = self.active.as_ref().filter(|turn| turn.acted) else { return };
        let per_cell = self.move_points(&turn.unit.clone());
        if !(points >= per_cell && per_cell.is_finite()) {
            self.end_turn(events);
        }
    }

    /// Resolves the first charged skill whose delay has run out (true: one did, or was
    /// cancelled because its user is out of the battle).
    pub(super) fn resolve_charge(&mut self, content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) -> bool {
        let Some(at) = self.charging.iter().position(|charge| charge.remaining <= 0.0) else { return false };
        let charge = self.charging.remove(at);
        let skill = content.skill(charge.skill.as_str());
        let standing = self.units.get(&charge.unit).is_some_and(|unit| !unit.defeated);
        match skill.filter(|_| standing) {
            Some(skill) => {
                self.resolve_skill(content, rng, &charge.unit, skill, charge.at, events);
                self.check_defeats(events);
            }
            None => events.push(Event::UnitSkillCancelled { unit: charge.unit, skill: charge.skill }),
        }
        true
    }

    /// One tick of the charged skills: each one's delay goes down by its skill's `speed`
    /// parameter (1 without one), read with its user as `c` at the spot aimed at.
    pub(super) fn count_down_charges(&mut self, content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) {
        for at in 0..self.charging.len() {
            let Some(charge) = self.charging.get(at).cloned() else { continue };
            let Some(skill) = content.skill(charge.skill.as_str()) else { continue };
            let speed = match skill.params.get("speed") {
                None => 1.0,
                Some(expr) => {
                    let ctx = Perspective {
                        actor: Some(charge.unit.as_str()),
                        skill: Some(skill),
                        point: Some(charge.at),
                        ..Perspective::default()
                    };
                    let speed = eval_expr(content, self, ctx, rng, expr, 0);
                    if speed.is_nan() {
                        events.push(Event::Warning(format!(
                            "the `speed` of {}'s charged {} (`{}`) is not a number: it counts 1",
                            charge.unit,
                            skill.id,
                            expr.text()
                        )));
                        1.0
                    } else {
                        speed
                    }
                }
            };
            if let Some(charge) = self.charging.get_mut(at) {
                charge.remaining -= speed;
            }
        }
    }
}
