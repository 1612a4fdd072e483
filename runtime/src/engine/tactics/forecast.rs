//! What a skill aimed at a spot would do, for the battle preview: the effect region's spots and,
//! per unit, how often it is changed and by how much on average. The skill's own formulas decide
//! (hit types, amounts, statuses, whatever reacts): the forecast plays the skill on copies of the
//! battle whose generators are derived from the real one, so it never foretells the real draw.

use rand_core::SeedableRng as _;
use rand_pcg::Pcg64Mcg;

use super::env::Perspective;
use super::regions::facing_towards;
use crate::engine::{Choice, Session};
use crate::map::Spot;

/// A unit before the skill: its key, each stat's value and whether it was already defeated.
type Before = (String, Vec<(String, f64)>, bool);

/// Copies of the battle a forecast plays, unless asked otherwise.
pub const FORECAST_TRIALS: u32 = 64;

/// What a skill aimed at a spot would do ([`Session::forecast_skill`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkillForecast {
    /// The spots the effect region covers.
    pub area: Vec<Spot>,
    /// The units the skill changed in some copy, by key.
    pub units: Vec<UnitForecast>,
    /// Copies played.
    pub trials: u32,
}

/// How a skill changes one unit over a forecast's copies of the battle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UnitForecast {
    /// The unit's key.
    pub unit: String,
    /// Share of copies in which any of its stats changed (a hit), 0 to 1.
    pub changed: f64,
    /// Share of copies in which it was defeated.
    pub defeated: f64,
    /// Each stat that changed in some copy, with its mean change over all copies.
    pub stats: Vec<(String, f64)>,
}

impl Session {
    /// What `unit` using `skill` at `spot` would do, over `trials` copies of the battle (the
    /// choice must be possible now).
    pub fn forecast_skill(&self, unit: &str, skill: &str, spot: Spot, trials: u32) -> Result<SkillForecast, String> {
        let battle = self.tactics.as_ref().ok_or("no battle runs")?;
        let found = self.content.skill(skill).ok_or_else(|| format!("there is no skill `{skill}`"))?;
        let origin = battle.unit(unit).ok_or_else(|| format!("there is no unit `{unit}`"))?;
        let choice = Choice::UseSkill {
            unit: unit.to_owned(),
            skill: found.id.clone(),
            x: spot.cell_x,
            y: spot.cell_y,
            z: spot.level,
        };
        if !self.choices().contains(&choice) {
            return Err(format!("{unit} cannot use {skill} at {},{},{} now", spot.cell_x, spot.cell_y, spot.level));
        }
        let facing = facing_towards(origin.spot, spot).unwrap_or(origin.facing);
        let ctx = Perspective { actor: Some(unit), skill: Some(found), point: Some(spot), ..Perspective::default() };
        let mut rng = self.forecast_rng(u64::MAX);
        let area =
            battle.region_spots(&self.content, &mut rng, ctx, &found.effect_region, spot, facing).into_iter().collect();
        let before: Vec<Before> = battle
            .units()
            .map(|(key, state)| {
                let stats = state.stats.keys().map(|name| (name.clone(), battle.stat(key, name).unwrap_or(f64::NAN)));
                (key.to_owned(), stats.collect(), state.defeated)
            })
            .collect();
        let trials = trials.max(1);
        let mut units: Vec<UnitForecast> = Vec::new();
        for trial in 0..trials {
            let mut copy = self.clone();
            copy.rng = self.forecast_rng(u64::from(trial));
            if copy.apply(&choice).is_err() {
                continue;
            }
            let Some(after) = copy.tactics.as_ref() else { continue };
            for (key, stats, was_defeated) in &before {
                let Some(state) = after.unit(key) else { continue };
                let mut changed = false;
                let mut deltas = Vec::new();
                for (name, old) in stats {
                    let new = after.stat(key, name).unwrap_or(f64::NAN);
                    // Moving and spending CT are the user's own costs, not the skill's effect.
                    if key == unit && matches!(name.as_str(), "ct" | "position.x" | "position.y" | "position.z") {
                        continue;
                    }
                    if new.is_finite() && old.is_finite() && (new - old).abs() > 1e-9 {
                        changed = true;
                        deltas.push((name.clone(), new - old));
                    }
                }
                let defeated = state.defeated && !was_defeated;
                if !changed && !defeated {
                    continue;
                }
                let at = if let Some(at) = units.iter().position(|known| known.unit == *key) {
                    at
                } else {
                    units.push(UnitForecast { unit: key.clone(), ..UnitForecast::default() });
                    units.len().saturating_sub(1)
                };
                let Some(entry) = units.get_mut(at) else { continue };
                entry.changed += f64::from(u8::from(changed));
                entry.defeated += f64::from(u8::from(defeated));
                for (name, delta) in deltas {
                    match entry.stats.iter_mut().find(|(known, _)| *known == name) {
                        Some((_, sum)) => *sum += delta,
                        None => entry.stats.push((name, delta)),
                    }
                }
            }
        }
        let n = f64::from(trials);
        for entry in &mut units {
            entry.changed /= n;
            entry.defeated /= n;
            entry.stats.iter_mut().for_each(|(_, sum)| *sum /= n);
        }
        Ok(SkillForecast { area, units, trials })
    }

    /// A generator for forecast copy `trial`, derived from the session's own.
    fn forecast_rng(&self, trial: u64) -> Pcg64Mcg {
        let base = rand_core::Rng::next_u64(&mut self.rng.clone());
        Pcg64Mcg::seed_from_u64(base ^ 0xF0_2E_CA_57 ^ trial.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}
