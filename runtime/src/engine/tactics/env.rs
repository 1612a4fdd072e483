//! The formula environment of a battle: `c.`/`t.` stats, skill parameters, `arg.*`, statuses,
//! facings and the battle names.

use std::sync::Arc;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::formula::{Env, LookupSlot, Side};
use crate::map::Spot;
use crate::model::{Expr, Skill};

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

impl Env for TacticsEnv<'_> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        let setup = Arc::clone(&self.state.setup);
        let Some(acc) = setup.accessors.get(slot.0 as usize) else { return f64::NAN };
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
            // A status has no value: it is only asked about with exists().
            Acc::ActorStatus(_) | Acc::TargetStatus(_) | Acc::Missing => f64::NAN,
        }
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        let setup = Arc::clone(&self.state.setup);
        let Some(acc) = setup.accessors.get(slot.0 as usize) else { return false };
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
