//! One battle step: a move, a skill, a wait or a facing, then the win check and the scheduler.

use std::collections::BTreeSet;
use std::sync::Arc;

use rand_pcg::Pcg64Mcg;

use crate::map::{Spot, SpotMap, SpotSet, line_move};
use crate::model::{
    EffectTarget, Equipment, FacingLock, HitType, Id, LineMoveEffect, Reaction, SchedulerKind, Skill, StatChange,
    StatOp, StatusClock, StatusEffect, StatusStacking,
};

use super::env::{EffectRecord, Perspective, Reacted, eval_expr};
use super::memo::TacticsMemo;
use super::regions::{direction_towards, facing_towards, locked_direction, walk_params};
use super::rounds::path_length;
use super::{
    ACT_CT, ACTIVATION_CT, ActiveStatus, COMPASS, Charge, FROZEN_STATUS, MAX_CT, MAX_IDLE_TICKS, MOVE_CT, PER_TILE_CT,
    SPEED, TacticsState, Turn, apply_op, limited,
};

/// Most rounds of a status's per-tick effects in one scheduler tick (a huge speed against a
/// tiny interval would otherwise repeat them without end).
const MAX_TICK_ROUNDS: u32 = 100;
use crate::engine::content::Content;
use crate::engine::core;
use crate::engine::{Choice, Event};

impl TacticsState {
    /// What the active unit can do: move (to each reachable spot), use each action skill (at
    /// each spot it can aim at), or end its turn.
    /// `memo` keeps what it works out for applying the choice made.
    pub(crate) fn choices(&self, content: &Content, rng: &mut Pcg64Mcg, memo: &TacticsMemo) -> Vec<Choice> {
        self.listing(content, rng, memo).into_choices()
    }

    /// [`Self::choices`], counted but not built: the spots and skills they are made of.
    pub(crate) fn listing(&self, content: &Content, rng: &mut Pcg64Mcg, memo: &TacticsMemo) -> TacticsListing {
        if self.winner.is_some() {
            return TacticsListing::Built(Vec::new());
        }
        let Some(turn) = self.active.as_ref() else { return TacticsListing::Built(self.round_choices()) };
        let key = turn.unit.as_str();
        // With points, a unit walks as long as its action points last.
        let moves = (!turn.moved || self.action_points.is_some()).then(|| self.reachable(content, rng, key, memo));
        let mut aims = Vec::new();
        if !turn.acted {
            for skill in self.action_skills(content, key) {
                aims.push((skill.id.clone(), self.kept_targets(content, rng, key, skill, memo)));
            }
        }
        TacticsListing::Turn { unit: key.to_owned(), moves, aims, facings: self.wait_facings(content).1 }
    }

    /// Applies a tactics choice; refused (nothing changes) unless it is possible now: every
    /// refusal comes before the first change (the session applies choices in place, with no
    /// copy to fall back on). `memo` holds what listing the choices on this very state worked
    /// out: it is only asked before anything changes.
    pub(crate) fn apply(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        choice: &Choice,
        memo: &TacticsMemo,
    ) -> Result<Vec<Event>, String> {
        if self.winner.is_some() {
            return Err("the battle has ended".to_owned());
        }
        let mut events = Vec::new();
        match choice {
            Choice::PickUnit { unit } => {
                self.pick_unit(unit, &mut events)?;
                self.schedule(content, rng, MAX_IDLE_TICKS, &mut events);
                return Ok(events);
            }
            Choice::EndRound { team } => {
                self.end_round(team)?;
                self.schedule(content, rng, MAX_IDLE_TICKS, &mut events);
                return Ok(events);
            }
            _ => {}
        }
        let Some(turn) = self.active.clone() else { return Err(self.nobody_words()) };
        match choice {
            Choice::MoveUnit { unit, x, y, z } => {
                let to = Spot::new(*x, *y, *z);
                if *unit != turn.unit || (turn.moved && self.action_points.is_none()) {
                    return Err(format!("{unit} cannot move now"));
                }
                let Some(at) = self.reachable(content, rng, unit, memo).get(&to).copied() else {
                    return Err(format!("{unit} cannot reach ({x}, {y}, {z})"));
                };
                let path = self.move_path(content, rng, (unit, at), to, memo);
                self.move_unit(content, unit, at, &path, &mut events);
            }
            Choice::MoveUnitVia { unit, via, x, y, z } => {
                if *unit != turn.unit || turn.moved {
                    return Err(format!("{unit} cannot move now"));
                }
                let via: Vec<Spot> = via.iter().map(|[x, y, z]| Spot::new(*x, *y, *z)).collect();
                let (at, path) = self.waypoint_route(content, rng, unit, &via, Spot::new(*x, *y, *z))?;
                self.move_unit(content, unit, at, &path, &mut events);
            }
            Choice::UseSkill { unit, skill, x, y, z } => {
                let at = Spot::new(*x, *y, *z);
                let usable = self.action_skills(content, unit).into_iter().find(|known| known.id == *skill);
                let Some(skill) = usable.filter(|_| *unit == turn.unit && !turn.acted) else {
                    return Err(format!("{unit} cannot use {skill} now"));
                };
                if !self.kept_targets(content, rng, unit, skill, memo).contains(&at) {
                    return Err(format!("{unit} cannot aim {} at ({x}, {y}, {z})", skill.id));
                }
                self.use_skill(content, rng, unit, skill, at, &mut events);
            }
            Choice::WaitUnit { unit } => {
                if *unit != turn.unit {
                    return Err(format!("it is {}'s turn, not {unit}'s", turn.unit));
                }
                self.end_turn(&mut events);
            }
            Choice::FaceUnit { unit, facing } => {
                if *unit != turn.unit {
                    return Err(format!("it is {}'s turn, not {unit}'s", turn.unit));
                }
                let (lock, listed) = self.wait_facings(content);
                let allowed = if lock == FacingLock::Free { *facing < 360 } else { listed.contains(facing) };
                if !allowed {
                    let words = if lock == FacingLock::Free {
                        "any whole degree from 0 to 359".to_owned()
                    } else {
                        listed.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
                    };
                    return Err(format!("{unit} can face {words} here (the map's wait_facing {lock:?}), not {facing}"));
                }
                if let Some(state) = self.units.get_mut(unit) {
                    state.facing = f64::from(*facing);
                }
                events.push(Event::UnitFaced { unit: unit.clone(), facing: *facing });
                self.end_turn(&mut events);
            }
            _ => return Err("not a tactics choice".to_owned()),
        }
        self.end_spent_activation(&mut events);
        self.check_end(content, rng, &mut events);
        self.schedule(content, rng, MAX_IDLE_TICKS, &mut events);
        Ok(events)
    }

    /// Moves `key` along `path` (start and end included) with its move skill number `at`.
    fn move_unit(&mut self, content: &Content, key: &str, at: usize, path: &[Spot], events: &mut Vec<Event>) {
        let Some(from) = self.units.get(key).map(|unit| unit.spot) else { return };
        let Some(to) = path.last().copied() else { return };
        // `at` numbers one of the unit's move skills (`move_spots` found the spot with it).
        let Some(skill) = self.skill_ids(content, key).get(at).map(|id| (*id).clone()) else { return };
        let length = path_length(path);
        // A flight's route rises and drops within cells: the last step across cells faces it.
        let last_step = path.iter().rev().find(|spot| (spot.cell_x, spot.cell_y) != (to.cell_x, to.cell_y));
        let last_step = last_step.copied().unwrap_or(from);
        let cost = self.setting(key, PER_TILE_CT) * f64::from(length) + self.setting(key, MOVE_CT);
        // Ending on another unit (the move region allowed it) is riding it.
        let mount = self.unit_at(to).filter(|other| *other != key).map(str::to_owned);
        let left = self.units.get(key).and_then(|unit| unit.mount.clone());
        self.place_unit(key, to);
        if let Some(unit) = self.units.get_mut(key) {
            unit.mount.clone_from(&mount);
            if let Some(facing) = facing_towards(last_step, to) {
                unit.facing = facing;
            }
        }
        self.spend_ct(key, cost);
        if let Some(points) = self.action_points {
            self.action_points = Some(points - self.move_points(key) * f64::from(length));
        }
        if let Some(turn) = self.active.as_mut() {
            turn.moved = true;
        }
        events.push(Event::UnitMoved {
            unit: key.to_owned(),
            skill,
            from: [from.cell_x, from.cell_y, from.level],
            to: [to.cell_x, to.cell_y, to.level],
            steps: length,
        });
        if let Some(mount) = left.filter(|left| Some(left) != mount.as_ref()) {
            events.push(Event::UnitDismounted { unit: key.to_owned(), mount });
        }
        if let Some(mount) = mount {
            events.push(Event::UnitMounted { unit: key.to_owned(), mount });
        }
    }

    /// Evaluates a battle formula; a NaN is a warning that names `what` (worded only then) and
    /// the formula (no silent NaN in play, issue 29.10).
    pub(super) fn eval_or_warn(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        expr: &crate::model::Expr,
        what: impl FnOnce() -> String,
        events: &mut Vec<Event>,
    ) -> f64 {
        let value = eval_expr(content, self, ctx, rng, expr, 0);
        if value.is_nan() {
            events.push(Event::Warning(format!(
                "{} `{}` is NaN (`check` names the lookups that read NaN)",
                what(),
                expr.text()
            )));
        }
        value
    }

    /// The facings a unit may end its turn with on this map: its `wait_facing` lock and the
    /// facings listed as choices (with `Free` any whole degree is taken, the eight are listed).
    pub(super) fn wait_facings(&self, content: &Content) -> (FacingLock, Vec<u16>) {
        let lock =
            content.project.tile_maps.get(self.setup.map.as_str()).map(|map| map.wait_facing).unwrap_or_default();
        let listed = match lock {
            FacingLock::Cardinal => COMPASS.map(|(_, degrees)| degrees).to_vec(),
            FacingLock::Ordinal => vec![45, 135, 225, 315],
            FacingLock::CardinalOrdinal | FacingLock::Free => vec![0, 45, 90, 135, 180, 225, 270, 315],
        };
        (lock, listed)
    }

    /// Takes a cost off the unit's `ct` (CT scheduler only): at once, or, when the scheduler
    /// coalesces, added to the turn's costs taken off when the turn ends.
    fn spend_ct(&mut self, key: &str, cost: f64) {
        if self.setup.scheduler.kind != SchedulerKind::Ct {
            return;
        }
        if self.setup.scheduler.coalesce_ct && self.active_unit() == Some(key) {
            self.pending_ct += cost;
            return;
        }
        if let Some(ct) = self.base_stat(key, "ct", 0) {
            let new = limited(ct, ct - cost, self.limits(key, "ct").as_ref());
            self.store_stat(key, "ct", new);
        }
    }

    fn use_skill(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        skill: &Skill,
        at: Spot,
        events: &mut Vec<Event>,
    ) {
        let Some(origin) = self.units.get(key).map(|unit| unit.spot) else { return };
        let facing = facing_towards(origin, at);
        if let (Some(unit), Some(facing)) = (self.units.get_mut(key), facing) {
            unit.facing = facing;
        }
        let ctx = Perspective { actor: Some(key), skill: Some(skill), point: Some(at), ..Perspective::default() };
        let delay = if skill.delay.is_zero() { 0.0 } else { eval_expr(content, self, ctx, rng, &skill.delay, 0) };
        if delay.is_nan() {
            events.push(Event::Warning(format!(
                "the delay of {} (`{}`) is not a number: it resolves at once",
                skill.id,
                skill.delay.text()
            )));
        }
        if delay > 0.0 {
            self.charging.push(Charge { unit: key.to_owned(), skill: skill.id.clone(), at, remaining: delay });
            events.push(Event::UnitSkillCharging {
                unit: key.to_owned(),
                skill: skill.id.clone(),
                at: [at.cell_x, at.cell_y, at.level],
                delay,
            });
        } else {
            self.resolve_skill(content, rng, key, skill, at, events);
        }
        let cost = self.setting(key, ACT_CT);
        self.spend_ct(key, cost);
        if let Some(turn) = self.active.as_mut() {
            turn.acted = true;
        }
        self.check_defeats(events);
    }

    /// A skill's effects at the spot aimed at: its effect region around the spot (facing as
    /// the actor faces now), each unit there hit by the hit type its formula picks.
    pub(super) fn resolve_skill(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        key: &str,
        skill: &Skill,
        at: Spot,
        events: &mut Vec<Event>,
    ) {
        let actor_facing = self.units.get(key).map_or(0.0, |unit| unit.facing);
        events.push(Event::UnitUsedSkill {
            unit: key.to_owned(),
            skill: skill.id.clone(),
            at: [at.cell_x, at.cell_y, at.level],
        });
        let ctx = Perspective { actor: Some(key), skill: Some(skill), point: Some(at), ..Perspective::default() };
        let affected = self.region_spots(content, rng, ctx, &skill.effect_region, at, actor_facing);
        let targets: Vec<String> = affected.iter().filter_map(|spot| self.unit_at(*spot)).map(str::to_owned).collect();
        let mut records: Vec<EffectRecord> = Vec::new();
        for target in &targets {
            if self.units.get(target).is_none_or(|unit| unit.defeated) {
                continue;
            }
            let point = self.units.get(target).map(|unit| unit.spot);
            let ctx = Perspective {
                actor: Some(key),
                target: Some(target),
                skill: Some(skill),
                point,
                ..Perspective::default()
            };
            let what = || format!("{}'s hit_type", skill.id);
            let chosen = self.eval_or_warn(content, rng, ctx, &skill.hit_type, what, events);
            let last = skill.hit_types.len().saturating_sub(1);
            let index = if chosen.is_finite() { (chosen.max(0.0) as usize).min(last) } else { 0 };
            let Some(hit) = skill.hit_types.get(index) else { continue };
            let ctx = Perspective { hit_type: index as f64, ..ctx };
            events.push(Event::UnitHit { unit: target.clone(), by: key.to_owned(), hit: hit.label.clone() });
            self.apply_hit(content, rng, ctx, hit, &mut records, events);
        }
        self.react(content, rng, key, skill, &targets, &records, events);
    }

    /// A hit type's effects in `ctx` (actor and target set): stat effects (recorded for
    /// `effect`, `effect(…)` and reactions), statuses on the target, then line moves.
    fn apply_hit(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        hit: &HitType,
        records: &mut Vec<EffectRecord>,
        events: &mut Vec<Event>,
    ) {
        let (Some(key), Some(target)) = (ctx.actor, ctx.target) else { return };
        for effect in &hit.stat_effects {
            let who = match effect.target {
                EffectTarget::Target => target,
                EffectTarget::Actor => key,
            };
            let what = || {
                format!(
                    "{}'s effect on {who}'s `{}`",
                    ctx.skill.map_or("a skill", |skill| skill.id.as_str()),
                    effect.stat
                )
            };
            let at = Perspective { records: records.as_slice(), ..ctx };
            let value = self.eval_or_warn(content, rng, at, &effect.value, what, events);
            if let Some((old, new)) = self.change_stat(who, &effect.stat, effect.op, value, events) {
                records.push(EffectRecord {
                    unit: who.to_owned(),
                    stat: effect.stat.clone(),
                    old,
                    new,
                    value,
                    types: effect.reactable_types.clone(),
                });
            }
        }
        let ctx = Perspective { records: records.as_slice(), ..ctx };
        let skill = ctx.skill.map_or("a skill", |skill| skill.id.as_str());
        for status in &hit.status_effects {
            let what = || format!("the duration of {skill}'s status `{}`", status.name);
            let ticks = self.eval_or_warn(content, rng, ctx, &status.duration_ticks, what, events);
            let what = || format!("the tick_interval of {skill}'s status `{}`", status.name);
            let interval = self.eval_or_warn(content, rng, ctx, &status.tick_interval, what, events);
            let ticks = if ticks.is_finite() && ticks >= 1.0 { ticks.floor() } else { 0.0 };
            if ticks == 0.0 && !status.unremovable {
                continue;
            }
            self.add_status(target, status, ticks, interval, None, events);
        }
        for line_move in &hit.line_moves {
            self.push_unit(content, rng, ctx, line_move, events);
        }
    }

    /// Reactions (seed 001 "Reactions"): each target of an action that is still standing
    /// replies with each of its skills' reactions that an effect of the action set off (a
    /// change to its own or the attacker's stats, or an effect type on either), when the
    /// attacker stands in the reaction's region. Reactions do not set off reactions.
    #[allow(clippy::too_many_arguments)] // the action's whole context
    fn react(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        attacker: &str,
        skill: &Skill,
        targets: &[String],
        records: &[EffectRecord],
        events: &mut Vec<Event>,
    ) {
        let mut reactors: Vec<&str> = Vec::new();
        for target in targets {
            if target != attacker && !reactors.contains(&target.as_str()) {
                reactors.push(target);
            }
        }
        for reactor in reactors {
            for reacting in self.skills_of(content, reactor) {
                let Some(reaction) = reacting.reaction.as_ref() else { continue };
                let standing = |state: &Self, key: &str| {
                    state.units.get(key).is_some_and(|unit| !unit.defeated)
                        && state.stat(key, "hp").is_none_or(|hp| hp > 0.0)
                };
                if !standing(self, reactor) || !standing(self, attacker) {
                    continue;
                }
                let Some(trigger) = set_off(reaction, reactor, attacker, records) else { continue };
                let (Some(at), Some((origin, facing))) = (
                    self.units.get(attacker).map(|unit| unit.spot),
                    self.units.get(reactor).map(|unit| (unit.spot, unit.facing)),
                ) else {
                    continue;
                };
                let reacted = Reacted { skill, attacker, records, trigger };
                let ctx = Perspective {
                    actor: Some(reactor),
                    skill: Some(reacting),
                    point: Some(at),
                    reacted: Some(reacted),
                    ..Perspective::default()
                };
                if !self.region_spots(content, rng, ctx, &reaction.region, origin, facing).contains(&at) {
                    continue;
                }
                events.push(Event::UnitReacted {
                    unit: reactor.to_owned(),
                    skill: reacting.id.clone(),
                    against: attacker.to_owned(),
                });
                let ctx = Perspective { target: Some(attacker), ..ctx };
                let chosen = eval_expr(content, self, ctx, rng, &reaction.hit_type, 0);
                let last = reaction.hit_types.len().saturating_sub(1);
                let index = if chosen.is_finite() { (chosen.max(0.0) as usize).min(last) } else { 0 };
                let Some(hit) = reaction.hit_types.get(index) else { continue };
                events.push(Event::UnitHit {
                    unit: attacker.to_owned(),
                    by: reactor.to_owned(),
                    hit: hit.label.clone(),
                });
                let mut own = Vec::new();
                self.apply_hit(content, rng, Perspective { hit_type: index as f64, ..ctx }, hit, &mut own, events);
            }
        }
    }

    /// A knockback, shove or throw (§b.8): the target walks away from the actor (the actor
    /// along its facing; a target on the actor's cell too), `xy_direction` added, locked.
    fn push_unit(
        &mut self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        ctx: Perspective<'_>,
        effect: &LineMoveEffect,
        events: &mut Vec<Event>,
    ) {
        let (Some(key), Some(target)) = (ctx.actor, ctx.target) else { return };
        let mover = match effect.target {
            EffectTarget::Target => target,
            EffectTarget::Actor => key,
        };
        // A unit the hit has just brought to 0 hp falls where it stands.
        if self.stat(mover, "hp").is_some_and(|hp| hp <= 0.0) {
            return;
        }
        let (Some(actor), Some(moved)) = (self.units.get(key), self.units.get(mover)) else { return };
        let from = moved.spot;
        let base = match effect.target {
            EffectTarget::Target => direction_towards(actor.spot, from).unwrap_or(actor.facing),
            EffectTarget::Actor => actor.facing,
        };
        let numbers = self.numbers(content, rng, ctx, &effect.region);
        let direction = locked_direction(base + numbers.xy_direction, effect.region.facing_lock);
        let params = walk_params(&effect.region, &numbers);
        let walk = line_move(&self.setup.grid, from, direction, &params, &self.occupants(Some(mover)));
        let collided: Vec<String> =
            walk.collided.iter().filter_map(|spot| self.unit_at(*spot)).map(str::to_owned).collect();
        // A rider pushed off its mount leaves it.
        let left = self.units.get_mut(mover).and_then(|unit| unit.mount.take());
        self.place_unit(mover, walk.end);
        if let Some(mount) = left {
            events.push(Event::UnitDismounted { unit: mover.to_owned(), mount });
        }
        events.push(Event::UnitPushed {
            unit: mover.to_owned(),
            by: key.to_owned(),
            from: [from.cell_x, from.cell_y, from.level],
            to: [walk.end.cell_x, walk.end.cell_y, walk.end.level],
            steps: walk.steps,
            remaining: walk.remaining,
            drop: walk.drop,
            collided,
        });
    }

    /// Puts a unit on a spot; its rider goes with it.
    pub(super) fn place_unit(&mut self, key: &str, to: Spot) {
        let rider = self.rider_of(key).map(str::to_owned);
        for moved in [Some(key.to_owned()), rider].into_iter().flatten() {
            if let Some(unit) = self.units.get_mut(&moved) {
                unit.spot = to;
            }
        }
    }

    /// Changes a stored stat; the old and new values when it was changed.
    fn change_stat(
        &mut self,
        key: &str,
        stat: &str,
        op: StatOp,
        amount: f64,
        events: &mut Vec<Event>,
    ) -> Option<(f64, f64)> {
        if !self.units.contains_key(key) {
            return None;
        }
        let Some(old) = self.base_stat(key, stat, 0) else {
            events.push(Event::Warning(format!("{key} has no stat `{stat}` to change")));
            return None;
        };
        // The caller has warned, naming the formula.
        if amount.is_nan() {
            return None;
        }
        // A live stat changed holds the new number from now on (SRPGCK only changes constants).
        let new = limited(old, apply_op(op, old, amount), self.limits(key, stat).as_ref());
        self.store_stat(key, stat, new);
        if stat == "hp" && new < old {
            events.push(Event::UnitDamaged { unit: key.to_owned(), amount: old - new, hp: new });
        } else {
            events.push(Event::UnitStatChanged { unit: key.to_owned(), stat: stat.to_owned(), value: new });
        }
        Some((old, new))
    }

    pub(super) fn check_defeats(&mut self, events: &mut Vec<Event>) {
        let falls = |(key, unit): &(&String, &super::UnitState)| {
            !unit.defeated && self.stat_of(key, unit, "hp", 0).is_some_and(|hp| hp <= 0.0)
        };
        // Checked at every scheduler tick: a list only when someone fell.
        if !self.units.iter().any(|entry| falls(&entry)) {
            return;
        }
        let fallen: Vec<String> = self.units.iter().filter(falls).map(|(key, _)| key.clone()).collect();
        for key in fallen {
            if let Some(unit) = self.units.get_mut(&key) {
                unit.defeated = true;
                unit.statuses.clear();
                unit.mount = None;
            }
            // The rider of a fallen mount stands where it fell.
            for rider in self.units.values_mut().filter(|unit| unit.mount.as_deref() == Some(key.as_str())) {
                rider.mount = None;
            }
            events.push(Event::UnitDefeated { unit: key.clone() });
            if self.active_unit() == Some(key.as_str()) {
                self.active = None;
                self.action_points = None;
                self.pending_ct = 0.0;
                events.push(Event::UnitTurnEnded { unit: key });
            }
        }
    }

    pub(super) fn end_turn(&mut self, events: &mut Vec<Event>) {
        let Some(turn) = self.active.take() else { return };
        self.action_points = None;
        // Coalesced, the turn's costs and the activation cost come off at once.
        let cost = self.setting(&turn.unit, ACTIVATION_CT) + std::mem::take(&mut self.pending_ct);
        self.spend_ct(&turn.unit, cost);
        events.push(Event::UnitTurnEnded { unit: turn.unit });
    }

    /// The win conditions of the battle's map, in order.
    fn win_conditions<'c>(&self, content: &'c Content) -> &'c [crate::model::WinCondition] {
        content
            .project
            .tile_maps
            .get(self.setup.map.as_str())
            .map(|map| map.win_conditions.as_slice())
            .unwrap_or_default()
    }

    /// Ends the battle when a win condition holds (in order), or by default when only one
    /// team has units standing.
    pub(super) fn check_end(&mut self, content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) {
        if self.winner.is_some() {
            return;
        }
        let conditions = self.win_conditions(content);
        let mut winner = None;
        for condition in conditions {
            let what = || format!("the win condition of team {}", condition.team);
            let value = self.eval_or_warn(content, rng, Perspective::default(), &condition.when, what, events);
            if core::truthy(value) {
                winner = Some(condition.team.clone());
                break;
            }
        }
        if winner.is_none() && conditions.is_empty() && self.setup.contested {
            let standing: BTreeSet<&str> =
                self.units.values().filter(|unit| !unit.defeated).map(|unit| unit.team.as_str()).collect();
            if standing.len() <= 1 {
                winner = Some(standing.first().map_or_else(String::new, |team| (*team).to_owned()));
            }
        }
        if let Some(team) = winner {
            self.active = None;
            events.push(Event::UnitTeamWon { team: team.clone() });
            self.winner = Some(team);
        }
    }

    /// Runs the scheduler until a turn starts, the battle ends or `limit` ticks pass; the win
    /// conditions are tried after every tick (they may read `battle.tick`).
    pub(super) fn schedule(&mut self, content: &Content, rng: &mut Pcg64Mcg, limit: u64, events: &mut Vec<Event>) {
        self.run_scheduler(content, rng, limit, events);
        self.refresh_live();
    }

    fn run_scheduler(&mut self, content: &Content, rng: &mut Pcg64Mcg, limit: u64, events: &mut Vec<Event>) {
        let setup = Arc::clone(&self.setup);
        // Rounds of the loop left, as `for _ in 0..=limit` would count them (quiet ticks count too).
        let mut left = limit.saturating_add(1);
        while left > 0 {
            left = left.saturating_sub(1);
            if self.active.is_some() || self.winner.is_some() {
                return;
            }
            // A charged skill whose delay has run out resolves before anyone's turn (§d 2a).
            if self.resolve_charge(content, rng, events) {
                self.check_end(content, rng, events);
                continue;
            }
            if setup.scheduler.kind != SchedulerKind::Ct {
                if self.round_open() {
                    return;
                }
                // A round's end is one scheduler tick; then the next team's round begins.
                if self.round.is_some() {
                    self.tick_once(content, rng, events);
                    self.check_end(content, rng, events);
                    if self.winner.is_some() {
                        return;
                    }
                }
                if !self.next_round(events) {
                    events.push(Event::Warning("no team has a unit to play: the rounds stop".to_owned()));
                    return;
                }
                continue;
            }
            // With quiet content, the ready check reads what the quiet ticks read: once for both.
            let clock = self.quiet_clock();
            let ready = match &clock {
                Some(units) => first_ready(units).and_then(|at| setup.order.get(at)),
                None => self.ready_unit(&setup),
            };
            debug_assert!(clock.is_none() || ready == self.ready_unit(&setup), "the quiet clock's ready check");
            if let Some(key) = ready {
                self.start_turn(key, events);
                return;
            }
            // This round and as many more as stay quiet, when the battle is calm now.
            if let Some(units) = clock
                && self.calm(content)
            {
                let (ran, ready) = self.run_quiet_ticks(units, left.saturating_add(1));
                if ran > 0 {
                    left = left.saturating_sub(ran.saturating_sub(1));
                    // The loop's next round, if it has one, starts the unit found ready: quiet
                    // ticks resolve no charge and end nobody.
                    if left > 0
                        && let Some(key) = ready.and_then(|at| setup.order.get(at))
                    {
                        debug_assert_eq!(Some(key), self.ready_unit(&setup), "the quiet ticks' ready check");
                        self.start_turn(key, events);
                        return;
                    }
                    continue;
                }
            }
            self.tick_once(content, rng, events);
            self.check_end(content, rng, events);
        }
        if self.active.is_none() && self.winner.is_none() && limit == MAX_IDLE_TICKS {
            events.push(Event::Warning(format!("no unit reached its maxCT in {MAX_IDLE_TICKS} ticks")));
        }
    }

    /// Whether a tick now would end nobody and nothing, asked without changing or drawing
    /// anything: no unit standing is at 0 hp or below, no win condition holds or reads NaN,
    /// and the last-team-standing rule would not end the battle.
    fn calm(&self, content: &Content) -> bool {
        if self
            .units
            .iter()
            .any(|(key, unit)| !unit.defeated && self.stat_of(key, unit, "hp", 0).is_some_and(|hp| hp <= 0.0))
        {
            return false;
        }
        let conditions = self.win_conditions(content);
        // The win conditions of quiet content draw nothing: any generator will do.
        let mut rng = Pcg64Mcg::new(super::LIVE_STREAM);
        for condition in conditions {
            let value = eval_expr(content, self, Perspective::default(), &mut rng, &condition.when, 0);
            if value.is_nan() || core::truthy(value) {
                return false;
            }
        }
        if conditions.is_empty() && self.setup.contested {
            let standing: BTreeSet<&str> =
                self.units.values().filter(|unit| !unit.defeated).map(|unit| unit.team.as_str()).collect();
            return standing.len() > 1;
        }
        true
    }

    /// The unit the CT scheduler's ready check starts: the first in the scheduler's order,
    /// scheduled and standing, whose `ct` has reached its maxCT.
    fn ready_unit<'s>(&self, setup: &'s super::compile::Setup) -> Option<&'s String> {
        setup.order.iter().find(|key| {
            self.units.get(key).is_some_and(|unit| {
                unit.scheduled
                    && !unit.defeated
                    && self.stat_of(key, unit, "ct", 0).is_some_and(|ct| ct >= self.setting_of(key, unit, MAX_CT))
            })
        })
    }

    /// Starts the turn of `key`, found ready: its `ct` is set to its maxCT.
    fn start_turn(&mut self, key: &str, events: &mut Vec<Event>) {
        let max_ct = self.setting(key, MAX_CT);
        self.store_stat(key, "ct", max_ct);
        self.active = Some(Turn { unit: key.to_owned(), moved: false, acted: false });
        self.turns = self.turns.saturating_add(1);
        events.push(Event::UnitTurnStarted { unit: key.to_owned() });
    }

    /// What the ready check and the quiet ticks read of each unit standing, in the scheduler's
    /// order: its `ct` (the stored one, which is the stat itself here: nothing else changes
    /// it), speed, limits of `ct`, maxCT and status clocks. None when quiet ticks may not be
    /// taken now: the content is not [quiet](super::compile::Setup::quiet), the scheduler is
    /// not the CT one, a turn is running, the battle is won, a charge waits, or some unit's
    /// `ct` is live (read through its formula).
    fn quiet_clock(&self) -> Option<Vec<Ticking>> {
        if !self.setup.quiet
            || self.setup.scheduler.kind != SchedulerKind::Ct
            || !self.charging.is_empty()
            || self.active.is_some()
            || self.winner.is_some()
        {
            return None;
        }
        let mut units: Vec<Ticking> = Vec::with_capacity(self.setup.order.len());
        for (at, key) in self.setup.order.iter().enumerate() {
            let Some(unit) = self.units.get(key) else { continue };
            if unit.defeated {
                continue;
            }
            if unit.live.contains_key("ct") {
                return None;
            }
            let frozen = unit.statuses.iter().any(|status| status.name == FROZEN_STATUS);
            let ct = unit.stats.get("ct").copied();
            let grows = unit.scheduled && !frozen && ct.is_some();
            let speed = self.setting_of(key, unit, SPEED);
            let local = if speed.is_finite() && speed > 0.0 { speed } else { 0.0 };
            let steps = unit
                .statuses
                .iter()
                .map(|status| match status.definition.clock {
                    StatusClock::Global => 1.0,
                    StatusClock::Unit => local,
                })
                .collect();
            units.push(Ticking {
                key: at,
                ct,
                grows,
                speed,
                limits: if grows { self.limits(key, "ct") } else { None },
                ready_at: unit.scheduled.then(|| self.setting_of(key, unit, MAX_CT)),
                steps,
                elapsed: unit.statuses.iter().map(|status| status.elapsed).collect(),
                remaining: unit.statuses.iter().map(|status| status.remaining).collect(),
            });
        }
        Some(units)
    }

    /// Runs up to `most` rounds of the CT scheduler's loop (a ready check, then a tick) while
    /// the battle is [calm](Self::calm), from the [clock](Self::quiet_clock) read now;
    /// returns how many it ran, and the unit (its place in the scheduler's order) the ready
    /// check then finds. With [`super::compile::Setup::quiet`], what a tick reads besides
    /// `ct` (speeds, maxCT, the limits of `ct`, hp, the win conditions) does not change from
    /// tick to tick, so calm now is calm at each of these ticks, and each is plain arithmetic
    /// on `ct` and the status clocks, with the same operations in the same order as a tick;
    /// it stops before a tick where a status would run out or give its per-tick effects, and
    /// before a unit is ready (the loop then goes on as ever). Nothing is evaluated per tick.
    fn run_quiet_ticks(&mut self, mut units: Vec<Ticking>, most: u64) -> (u64, Option<usize>) {
        let setup = Arc::clone(&self.setup);
        let mut ran = 0;
        // Each unit's statuses, looked up once: nothing changes the battle until the ticks
        // run are written back below.
        let held: Vec<&[ActiveStatus]> = units
            .iter()
            .map(|unit| {
                let state = setup.order.get(unit.key).and_then(|key| self.units.get(key));
                state.map_or(&[][..], |state| state.statuses.as_slice())
            })
            .collect();
        while ran < most {
            // The loop's ready check comes first: a ready unit is the loop's to start.
            if first_ready(&units).is_some() {
                break;
            }
            // A status about to run out or to give its per-tick effects: that tick is the loop's.
            let eventful = units.iter().zip(&held).any(|(unit, statuses)| unit.status_event_next(statuses));
            if eventful {
                break;
            }
            for (unit, statuses) in units.iter_mut().zip(&held) {
                if unit.grows
                    && let Some(ct) = unit.ct
                {
                    unit.ct = Some(limited(ct, ct + unit.speed, unit.limits.as_ref()));
                }
                for ((status, step), (elapsed, remaining)) in
                    statuses.iter().zip(&unit.steps).zip(unit.elapsed.iter_mut().zip(unit.remaining.iter_mut()))
                {
                    *elapsed += step;
                    if !status.definition.unremovable {
                        *remaining -= step;
                    }
                }
            }
            ran = ran.saturating_add(1);
        }
        if ran == 0 {
            return (0, None);
        }
        let ready = first_ready(&units);
        for unit in units {
            let Some(state) = setup.order.get(unit.key).and_then(|key| self.units.get_mut(key)) else { continue };
            if unit.grows
                && let (Some(ct), Some(stored)) = (unit.ct, state.stats.get_mut("ct"))
            {
                *stored = ct;
            }
            for ((status, elapsed), remaining) in state.statuses.iter_mut().zip(unit.elapsed).zip(unit.remaining) {
                status.elapsed = elapsed;
                status.remaining = remaining;
            }
        }
        self.tick = self.tick.saturating_add(ran);
        (ran, ready)
    }

    /// Puts a status on a unit for `ticks` ticks of its clock, by its stacking rule: `Replace`
    /// takes the place of the unit's statuses of that name unless one of them is unremovable
    /// or of a higher priority (then nothing is put on: false); `Cumulative` adds another.
    pub(super) fn add_status(
        &mut self,
        key: &str,
        status: &StatusEffect,
        ticks: f64,
        interval: f64,
        worn: Option<&Id<Equipment>>,
        events: &mut Vec<Event>,
    ) -> bool {
        let Some(unit) = self.units.get_mut(key) else { return false };
        if status.stacking == StatusStacking::Replace {
            let kept = unit.statuses.iter().any(|old| {
                old.name == status.name && (old.definition.unremovable || old.definition.priority > status.priority)
            });
            if kept {
                return false;
            }
            unit.statuses.retain(|old| old.name != status.name);
        }
        unit.statuses.push(ActiveStatus {
            name: status.name.clone(),
            remaining: ticks,
            elapsed: 0.0,
            interval,
            definition: status.clone(),
            worn: worn.cloned(),
        });
        events.push(Event::UnitStatusAdded {
            unit: key.to_owned(),
            status: status.name.clone(),
            ticks: if ticks.is_finite() && ticks > 0.0 { ticks as u64 } else { 0 },
        });
        true
    }

    /// One scheduler tick: CT grows by speed (not while `jumping`); statuses count down on
    /// their clock (one, or the holder's speed), their per-tick effects come each `interval`,
    /// then those that ran out end.
    fn tick_once(&mut self, content: &Content, rng: &mut Pcg64Mcg, events: &mut Vec<Event>) {
        let setup = Arc::clone(&self.setup);
        for key in &setup.order {
            let Some(unit) = self.units.get(key) else { continue };
            if unit.defeated {
                continue;
            }
            let frozen = unit.statuses.iter().any(|status| status.name == FROZEN_STATUS);
            let scheduled = unit.scheduled && setup.scheduler.kind == SchedulerKind::Ct;
            let speed = self.setting(key, SPEED);
            // A stat is there exactly when its base value is (reading it changes nothing), so
            // the base value alone says whether the unit has `ct`.
            if scheduled
                && !frozen
                && let Some(ct) = self.base_stat(key, "ct", 0)
            {
                let new = limited(ct, ct + speed, self.limits(key, "ct").as_ref());
                self.store_stat(key, "ct", new);
            }
            let local = if speed.is_finite() && speed > 0.0 { speed } else { 0.0 };
            let mut rounds: Vec<(usize, u32)> = Vec::new();
            if let Some(unit) = self.units.get_mut(key) {
                for (at, status) in unit.statuses.iter_mut().enumerate() {
                    let step = match status.definition.clock {
                        StatusClock::Global => 1.0,
                        StatusClock::Unit => local,
                    };
                    let before = status.elapsed;
                    status.elapsed += step;
                    if !status.definition.unremovable {
                        status.remaining -= step;
                    }
                    if !status.definition.tick_effects.is_empty()
                        && status.interval.is_finite()
                        && status.interval > 0.0
                    {
                        let count = (status.elapsed / status.interval).floor() - (before / status.interval).floor();
                        // A unit faster than its status's interval gets several rounds a tick.
                        let count = count.clamp(0.0, f64::from(MAX_TICK_ROUNDS)) as u32;
                        if count > 0 {
                            rounds.push((at, count));
                        }
                    }
                }
            }
            for (at, count) in rounds {
                let Some(effects) = self
                    .units
                    .get(key)
                    .and_then(|unit| unit.statuses.get(at))
                    .map(|status| status.definition.tick_effects.clone())
                else {
                    continue;
                };
                for _ in 0..count {
                    for effect in &effects {
                        let ctx = Perspective { actor: Some(key), ..Perspective::default() };
                        let what = || format!("{key}'s status tick effect on `{}`", effect.stat);
                        let value = self.eval_or_warn(content, rng, ctx, &effect.value, what, events);
                        let _ = self.change_stat(key, &effect.stat, effect.op, value, events);
                    }
                }
            }
            if let Some(unit) = self.units.get_mut(key) {
                let mut expired = Vec::new();
                unit.statuses.retain(|status| {
                    let ends = !status.definition.unremovable && status.remaining <= 0.0;
                    if ends {
                        expired.push(status.name.clone());
                    }
                    !ends
                });
                for status in expired {
                    events.push(Event::UnitStatusExpired { unit: key.clone(), status });
                }
            }
        }
        self.count_down_charges(content, rng, events);
        self.tick = self.tick.saturating_add(1);
        // Poison may bring a unit to 0 hp between turns.
        self.check_defeats(events);
    }

    /// Lets up to `ticks` scheduler ticks pass while it is nobody's turn.
    pub(crate) fn advance(&mut self, content: &Content, rng: &mut Pcg64Mcg, ticks: u64) -> Vec<Event> {
        let mut events = Vec::new();
        if ticks > 0 {
            // A battle where no unit gains CT would otherwise tick the whole wait one by one.
            self.schedule(content, rng, ticks.saturating_sub(1).min(MAX_IDLE_TICKS), &mut events);
        }
        events
    }
}

/// One unit as [`TacticsState::quiet_clock`] and [`TacticsState::run_quiet_ticks`] see it.
struct Ticking {
    key: usize,
    /// Its `ct`, when the ready check reads one.
    ct: Option<f64>,
    /// Its `ct` grows by `speed` each tick, within `limits`.
    grows: bool,
    speed: f64,
    limits: Option<(Option<f64>, Option<f64>)>,
    /// The ready check looks at it, against this maxCT.
    ready_at: Option<f64>,
    /// Status clocks: the step of each status's clock per tick.
    steps: Vec<f64>,
    elapsed: Vec<f64>,
    remaining: Vec<f64>,
}

/// The place in the scheduler's order of the first unit of `units` the ready check starts: it
/// is scheduled and its `ct` has reached its maxCT.
fn first_ready(units: &[Ticking]) -> Option<usize> {
    units.iter().find(|unit| unit.ready_at.zip(unit.ct).is_some_and(|(max, ct)| ct >= max)).map(|unit| unit.key)
}

impl Ticking {
    /// Whether the next tick of these statuses' clocks (the unit's, in order) ends one of them
    /// or gives its per-tick effects, as `tick_once` works it out; also when they do not match.
    fn status_event_next(&self, statuses: &[super::ActiveStatus]) -> bool {
        statuses.iter().enumerate().any(|(at, status)| {
            let (Some(step), Some(elapsed), Some(remaining)) =
                (self.steps.get(at), self.elapsed.get(at), self.remaining.get(at))
            else {
                return true;
            };
            if !status.definition.unremovable && remaining - step <= 0.0 {
                return true;
            }
            let interval = status.interval;
            if status.definition.tick_effects.is_empty() || !interval.is_finite() || interval <= 0.0 {
                return false;
            }
            let count = ((elapsed + step) / interval).floor() - (elapsed / interval).floor();
            count.clamp(0.0, f64::from(MAX_TICK_ROUNDS)) as u32 > 0
        })
    }
}

/// The first effect of an action that sets a reaction off, if any: a change its triggers
/// name to the reacting unit's stats or the attacker's, or an effect on either with one of
/// its types.
fn set_off<'r>(
    reaction: &Reaction,
    reactor: &str,
    attacker: &str,
    records: &'r [EffectRecord],
) -> Option<&'r EffectRecord> {
    records.iter().find(|record| {
        let (stats, types) = if record.unit == reactor {
            (&reaction.defender_stat_changes, &reaction.defender_effect_types)
        } else if record.unit == attacker {
            (&reaction.attacker_stat_changes, &reaction.attacker_effect_types)
        } else {
            return false;
        };
        let change = |trigger: StatChange| match trigger {
            StatChange::Change => record.changed(crate::formula::Change::Change),
            StatChange::Increase => record.changed(crate::formula::Change::Increase),
            StatChange::Decrease => record.changed(crate::formula::Change::Decrease),
            StatChange::NoChange => record.changed(crate::formula::Change::NoChange),
            StatChange::Any => true,
        };
        stats.iter().any(|trigger| trigger.stat == record.stat && change(trigger.change))
            || types.iter().any(|kind| record.types.contains(kind))
    })
}

/// The battle's choices in the order [`TacticsState::choices`] lists them, counted without
/// building each one: the random player draws a number and only that choice is made.
#[derive(Clone, Debug)]
pub(crate) enum TacticsListing {
    /// Choices already built (the team-round picks while it is nobody's turn; the random
    /// player files other systems' choices here too).
    Built(Vec<Choice>),
    /// The active unit's turn: a move to each spot in reach, each action skill at each spot it
    /// can aim at, waiting, then each facing to end the turn with.
    Turn {
        /// The unit.
        unit: String,
        /// Where it can move (none: it cannot move now).
        moves: Option<Arc<SpotMap<usize>>>,
        /// Its action skills with the spots each can aim at.
        aims: Vec<(Id<Skill>, Arc<SpotSet>)>,
        /// The facings it may end its turn with.
        facings: Vec<u16>,
    },
}

impl TacticsListing {
    /// How many choices there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Self::Built(choices) => choices.len(),
            Self::Turn { moves, aims, facings, .. } => {
                let moves = moves.as_ref().map_or(0, |moves| moves.len());
                let aims = aims.iter().map(|(_, spots)| spots.len()).sum::<usize>();
                moves.saturating_add(aims).saturating_add(1).saturating_add(facings.len())
            }
        }
    }

    /// The choice numbered `at` (from 0, in listing order); None past the last.
    pub(crate) fn nth(&self, at: usize) -> Option<Choice> {
        let (unit, moves, aims, facings) = match self {
            Self::Built(choices) => return choices.get(at).cloned(),
            Self::Turn { unit, moves, aims, facings } => (unit, moves, aims, facings),
        };
        let mut at = at;
        let move_count = moves.as_ref().map_or(0, |moves| moves.len());
        if at < move_count {
            let spot = moves.as_ref().and_then(|moves| moves.keys().nth(at))?;
            return Some(Choice::MoveUnit { unit: unit.clone(), x: spot.cell_x, y: spot.cell_y, z: spot.level });
        }
        at = at.saturating_sub(move_count);
        for (skill, spots) in aims {
            if at < spots.len() {
                let spot = spots.iter().nth(at)?;
                let (x, y, z) = (spot.cell_x, spot.cell_y, spot.level);
                return Some(Choice::UseSkill { unit: unit.clone(), skill: skill.clone(), x, y, z });
            }
            at = at.saturating_sub(spots.len());
        }
        if at == 0 {
            return Some(Choice::WaitUnit { unit: unit.clone() });
        }
        facings.get(at.saturating_sub(1)).map(|facing| Choice::FaceUnit { unit: unit.clone(), facing: *facing })
    }

    /// Every choice, built.
    pub(crate) fn into_choices(self) -> Vec<Choice> {
        let (unit, moves, aims, facings) = match self {
            Self::Built(choices) => return choices,
            Self::Turn { unit, moves, aims, facings } => (unit, moves, aims, facings),
        };
        let mut choices = Vec::new();
        for spot in moves.iter().flat_map(|moves| moves.keys()) {
            choices.push(Choice::MoveUnit { unit: unit.clone(), x: spot.cell_x, y: spot.cell_y, z: spot.level });
        }
        for (skill, spots) in &aims {
            for spot in spots.iter() {
                let (x, y, z) = (spot.cell_x, spot.cell_y, spot.level);
                choices.push(Choice::UseSkill { unit: unit.clone(), skill: skill.clone(), x, y, z });
            }
        }
        choices.push(Choice::WaitUnit { unit: unit.clone() });
        for facing in facings {
            choices.push(Choice::FaceUnit { unit: unit.clone(), facing });
        }
        choices
    }
}
