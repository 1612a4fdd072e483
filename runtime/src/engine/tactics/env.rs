//! The formula environment of a battle: `c.`/`t.` stats, skill parameters, `arg.*`, statuses,
//! facings and the battle names.

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::formula::{Change, EffectSearch, EquipSearch, Holder, Merge};
use crate::formula::{Env, LookupSlot, Side};
use crate::map::Spot;
use crate::model::{Equipment, Expr, Skill};

use super::compile::Acc;
use crate::engine::content::Content;

use super::regions::{side_between, wrap_degrees};
use super::{MAX_PARAM_DEPTH, TacticsState, flag};

/// A battle formula's perspective: who evaluates it (`c.`), against whom (`t.`), with which
/// skill, aimed where, with which hit type.
#[derive(Clone, Copy, Default)]
pub(super) struct Perspective<'a> {
    pub(super) actor: Option<&'a str>,
    pub(super) target: Option<&'a str>,
    pub(super) skill: Option<&'a Skill>,
    pub(super) point: Option<Spot>,
    pub(super) hit_type: f64,
    /// The equipment whose parameter or passive effect is read (`equip.NAME` is its own).
    pub(super) equipment: Option<&'a Equipment>,
    /// The effects the running skill (or reaction) has applied so far (`effect`, `effect(…)`).
    pub(super) records: &'a [EffectRecord],
    /// What a reaction reacts to (`reacted-skill.…`).
    pub(super) reacted: Option<Reacted<'a>>,
}

/// An effect a skill applied (SRPGCK's effect record): on whom, which stat, from what to what,
/// the amount its formula gave and its reactable types.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct EffectRecord {
    pub(super) unit: String,
    pub(super) stat: String,
    pub(super) old: f64,
    pub(super) new: f64,
    pub(super) value: f64,
    pub(super) types: Vec<String>,
}

impl EffectRecord {
    /// Whether the stat changed as `change` says (`spec/srpgck.md` §c.6, the intended test:
    /// the new value against the old).
    #[allow(clippy::float_cmp)] // an exact test: a stat either moved or it did not
    pub(super) fn changed(&self, change: Change) -> bool {
        match change {
            Change::Any => true,
            Change::Change => self.new != self.old,
            Change::Increase => self.new > self.old,
            Change::Decrease => self.new < self.old,
            Change::NoChange => self.new == self.old,
        }
    }
}

/// The action a reaction replies to.
#[derive(Clone, Copy)]
pub(super) struct Reacted<'a> {
    /// The action skill.
    pub(super) skill: &'a Skill,
    /// Who used it.
    pub(super) attacker: &'a str,
    /// Every effect it applied.
    pub(super) records: &'a [EffectRecord],
    /// The effect that set the reaction off.
    pub(super) trigger: &'a EffectRecord,
}

pub(super) struct TacticsEnv<'a> {
    pub(super) content: &'a Content,
    pub(super) state: &'a TacticsState,
    pub(super) ctx: Perspective<'a>,
    pub(super) rng: &'a mut Pcg64Mcg,
    pub(super) depth: u8,
}

pub(super) fn eval_expr(
    content: &Content,
    state: &TacticsState,
    ctx: Perspective<'_>,
    rng: &mut Pcg64Mcg,
    expr: &Expr,
    depth: u8,
) -> f64 {
    if let Some(value) = expr.as_int() {
        return value as f64;
    }
    let Some(compiled) = content.formula(expr) else { return f64::NAN };
    let mut env = TacticsEnv { content, state, ctx, rng, depth };
    content.formulas().eval(compiled, &mut env)
}

impl TacticsEnv<'_> {
    fn unit_stat(&self, key: Option<&str>, name: &str) -> f64 {
        key.and_then(|key| self.state.stat_at(key, name, self.depth)).unwrap_or(f64::NAN)
    }

    fn has_status(&self, key: Option<&str>, name: &str) -> bool {
        key.and_then(|key| self.state.units.get(key))
            .is_some_and(|unit| unit.statuses.iter().any(|status| status.name == name))
    }

    fn skill_param(&mut self, name: &str) -> f64 {
        if name.starts_with("arg.") {
            return self.arg(name);
        }
        if name == "hitType" {
            return self.ctx.hit_type;
        }
        let Some(expr) = self.ctx.skill.and_then(|skill| skill.params.get(name)) else { return f64::NAN };
        if self.depth >= MAX_PARAM_DEPTH {
            return f64::NAN;
        }
        eval_expr(self.content, self.state, self.ctx, self.rng, expr, self.depth.saturating_add(1))
    }

    /// The unit whose equipment a search looks at.
    fn holder(&self, holder: Option<Holder>) -> Option<&str> {
        let mount =
            |key: Option<&str>| key.and_then(|key| self.state.units.get(key)).and_then(|unit| unit.mount.as_deref());
        match holder.unwrap_or(Holder::Actor) {
            Holder::Actor => self.ctx.actor,
            Holder::Target => self.ctx.target,
            Holder::ActorMount => mount(self.ctx.actor),
            Holder::TargetMount => mount(self.ctx.target),
        }
    }

    /// The equipment an `equip(…)` search matches (`spec/srpgck.md` §c.6): the holder's, in
    /// order, having every category, one of the slots (if any are named) and the parameter
    /// (if one is read). In an equipment's own formulas, the actor's `equip` is that item.
    fn equip_matches(&self, search: &EquipSearch, name: &str) -> Vec<(&str, &Equipment)> {
        let own = matches!(search.holder, None | Some(Holder::Actor)) && self.ctx.skill.is_none();
        let Some(holder) = self.holder(search.holder) else { return Vec::new() };
        let fits = |equipment: &Equipment| {
            search.categories.iter().all(|category| equipment.categories.contains(category))
                && (search.slots.is_empty() || search.slots.iter().any(|slot| equipment.slots.contains(slot)))
                && (name.is_empty() || equipment.params.contains_key(name))
        };
        if let Some(equipment) = self.ctx.equipment.filter(|_| own) {
            return if fits(equipment) { vec![(holder, equipment)] } else { Vec::new() };
        }
        self.state.worn(holder).filter(|equipment| fits(equipment)).map(|equipment| (holder, equipment)).collect()
    }

    /// An equipment parameter read by a search, merged as it asks: each item's parameter is
    /// evaluated with its wielder as `c` and the item as `equip`.
    fn equip_value(&mut self, search: &EquipSearch, name: &str) -> f64 {
        if name.is_empty() || self.depth >= MAX_PARAM_DEPTH {
            return f64::NAN;
        }
        let found: Vec<(String, Equipment)> = self
            .equip_matches(search, name)
            .into_iter()
            .map(|(holder, equipment)| (holder.to_owned(), equipment.clone()))
            .collect();
        let mut values = Vec::with_capacity(found.len());
        for (holder, equipment) in &found {
            let Some(expr) = equipment.params.get(name) else { continue };
            let ctx = Perspective { actor: Some(holder), equipment: Some(equipment), ..Perspective::default() };
            values.push(eval_expr(self.content, self.state, ctx, self.rng, expr, self.depth.saturating_add(1)));
        }
        merged(&values, search.merge)
    }

    /// The effect records an `effect(…)` search matches: the running skill's, or with
    /// `reacted-skill.effect(…)` those of the action reacted to.
    fn effect_matches(&self, search: &EffectSearch) -> Vec<f64> {
        let records =
            if search.reacted { self.ctx.reacted.map_or(&[][..], |reacted| reacted.records) } else { self.ctx.records };
        let implied = [Change::Change];
        let changes = if search.changes.is_empty() { &implied[..] } else { search.changes.as_slice() };
        records
            .iter()
            .filter(|record| {
                changes.iter().any(|change| record.changed(*change))
                    && (search.stats.is_empty() || search.stats.contains(&record.stat))
                    && search.categories.iter().all(|kind| record.types.contains(kind))
            })
            .map(|record| record.value)
            .collect()
    }

    /// A parameter of the running skill's reaction (`reaction.NAME`; `reaction.hitType` the
    /// reaction's hit type).
    fn reaction_param(&mut self, name: &str) -> f64 {
        if name == "hitType" {
            return self.ctx.hit_type;
        }
        let params = self.ctx.skill.and_then(|skill| skill.reaction.as_ref()).map(|reaction| &reaction.params);
        let Some(expr) = params.and_then(|params| params.get(name)) else { return f64::NAN };
        if self.depth >= MAX_PARAM_DEPTH {
            return f64::NAN;
        }
        eval_expr(self.content, self.state, self.ctx, self.rng, expr, self.depth.saturating_add(1))
    }

    /// A parameter of the skill a reaction replies to, read as its user read it: `c` the
    /// attacker, `t` the reacting unit.
    fn reacted_param(&mut self, name: &str) -> f64 {
        let Some(reacted) = self.ctx.reacted else { return f64::NAN };
        let Some(expr) = reacted.skill.params.get(name) else { return f64::NAN };
        if self.depth >= MAX_PARAM_DEPTH {
            return f64::NAN;
        }
        let point = self.ctx.actor.and_then(|key| self.state.units.get(key)).map(|unit| unit.spot);
        let ctx = Perspective {
            actor: Some(reacted.attacker),
            target: self.ctx.actor,
            skill: Some(reacted.skill),
            point,
            ..Perspective::default()
        };
        eval_expr(self.content, self.state, ctx, self.rng, expr, self.depth.saturating_add(1))
    }

    /// The `arg.*` values (`spec/srpgck.md` §c.6) for the aimed spot.
    fn arg(&self, name: &str) -> f64 {
        let Some(point) = self.ctx.point else { return f64::NAN };
        if let Some(property) = name.strip_prefix("arg.tile.") {
            return self.state.tile_value(point, property);
        }
        let actor = self.ctx.actor.and_then(|key| self.state.units.get(key));
        let start = actor.map_or(point, |unit| unit.spot);
        let (px, py, pz) = (f64::from(point.cell_x), f64::from(point.cell_y), f64::from(point.level));
        let (sx, sy, sz) = (f64::from(start.cell_x), f64::from(start.cell_y), f64::from(start.level));
        let (dx, dy, dz) = ((px - sx).abs(), (py - sy).abs(), (pz - sz).abs());
        let there = self.state.unit_at(point).and_then(|key| self.state.units.get(key));
        let same_team = there.zip(actor).map(|(there, actor)| there.team == actor.team);
        match name {
            "arg.distance" => (dx * dx + dy * dy + dz * dz).sqrt(),
            "arg.distance.xy" => (dx * dx + dy * dy).sqrt(),
            "arg.mdistance" => dx + dy + dz,
            "arg.mdistance.xy" => dx + dy,
            "arg.dx" => dx,
            "arg.dy" => dy,
            "arg.dz" => dz,
            "arg.x" => px,
            "arg.y" => py,
            "arg.z" => pz,
            "arg.pos.x" => sx,
            "arg.pos.y" => sy,
            "arg.pos.z" => sz,
            "arg.sameTeam" | "arg.isAlly" => flag(same_team == Some(true)),
            "arg.otherTeam" | "arg.isEnemy" => flag(same_team == Some(false)),
            "arg.angle.xy" => {
                if dx == 0.0 && dy == 0.0 {
                    actor.map_or(0.0, |unit| unit.facing)
                } else {
                    wrap_degrees((py - sy).atan2(px - sx).to_degrees())
                }
            }
            "arg.currentHitType" => self.ctx.hit_type,
            _ => f64::NAN,
        }
    }
}

impl<'a> Env for TacticsEnv<'a> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        // The state is borrowed for 'a, not through `self`: no count to move.
        let state: &'a TacticsState = self.state;
        let Some(acc) = state.setup.accessors.get(slot.0 as usize) else { return f64::NAN };
        match acc {
            Acc::Actor(name) => self.unit_stat(self.ctx.actor, name),
            Acc::Target(name) => self.unit_stat(self.ctx.target, name),
            Acc::TargetIsNull => flag(self.ctx.target.is_none()),
            Acc::TargetIsNotNull => flag(self.ctx.target.is_some()),
            Acc::Skill(name) => self.skill_param(name),
            Acc::Arg(name) => self.arg(name),
            Acc::UnitStat(id, stat) => self.unit_stat(Some(id), stat),
            Acc::TeamAlive(team) => self.state.alive(team) as f64,
            Acc::Tick => self.state.tick as f64,
            Acc::Turns => self.state.turns as f64,
            Acc::Equip(search, name) => self.equip_value(search, name),
            Acc::Effect(search) => merged(&self.effect_matches(search), search.merge),
            Acc::EffectValue => self.ctx.records.last().map_or(f64::NAN, |record| record.value),
            Acc::ReactedEffectValue => self.ctx.reacted.map_or(f64::NAN, |reacted| reacted.trigger.value),
            Acc::ReactedSkill(name) => self.reacted_param(name),
            Acc::Reaction(name) => self.reaction_param(name),
            // A status has no value: it is only asked about with exists().
            Acc::ActorStatus(_) | Acc::TargetStatus(_) | Acc::Missing => f64::NAN,
        }
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        let state: &'a TacticsState = self.state;
        let Some(acc) = state.setup.accessors.get(slot.0 as usize) else { return false };
        let base = |key: Option<&str>, name: &str| {
            key.and_then(|key| self.state.units.get(key)).is_some_and(|unit| unit.stats.contains_key(name))
        };
        match acc {
            Acc::Actor(name) => base(self.ctx.actor, name),
            Acc::Target(name) => base(self.ctx.target, name),
            Acc::UnitStat(id, name) => base(Some(id), name),
            Acc::Skill(name) => {
                name.starts_with("arg.") || self.ctx.skill.is_some_and(|skill| skill.params.contains_key(name))
            }
            Acc::ActorStatus(name) => self.has_status(self.ctx.actor, name),
            Acc::TargetStatus(name) => self.has_status(self.ctx.target, name),
            Acc::Arg(_) => self.ctx.point.is_some(),
            Acc::Equip(search, name) => !self.equip_matches(search, name).is_empty(),
            Acc::Effect(search) => !self.effect_matches(search).is_empty(),
            Acc::EffectValue => !self.ctx.records.is_empty(),
            Acc::ReactedEffectValue => self.ctx.reacted.is_some(),
            Acc::ReactedSkill(name) => self.ctx.reacted.is_some_and(|reacted| reacted.skill.params.contains_key(name)),
            Acc::Reaction(name) => {
                name == "hitType"
                    || self
                        .ctx
                        .skill
                        .and_then(|skill| skill.reaction.as_ref())
                        .is_some_and(|reaction| reaction.params.contains_key(name))
            }
            Acc::TargetIsNull | Acc::TargetIsNotNull | Acc::TeamAlive(_) | Acc::Tick | Acc::Turns => true,
            Acc::Missing => false,
        }
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }

    fn facing(&mut self, targeted: bool) -> Option<Side> {
        let actor = self.state.units.get(self.ctx.actor?)?;
        let target = self.state.units.get(self.ctx.target?)?;
        Some(if targeted { side_between(actor, target) } else { side_between(target, actor) })
    }
}

/// Values found by a search combined as `get` asks (`spec/srpgck.md` §c.6): none gives NaN, but
/// a sum of none is 0.
pub(super) fn merged(values: &[f64], merge: Merge) -> f64 {
    if values.is_empty() {
        return if merge == Merge::Sum { 0.0 } else { f64::NAN };
    }
    match merge {
        Merge::First => values.first().copied().unwrap_or(f64::NAN),
        Merge::Last => values.last().copied().unwrap_or(f64::NAN),
        Merge::Min => values.iter().copied().fold(f64::INFINITY, f64::min),
        Merge::Max => values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        Merge::Sum => values.iter().sum(),
        Merge::Mean => values.iter().sum::<f64>() / values.len() as f64,
        Merge::Nth(n) => n.checked_sub(1).and_then(|at| values.get(at as usize)).copied().unwrap_or(f64::NAN),
    }
}
