//! The region searches already done on one battle state (issue 31): listing the choices and
//! applying the one picked ask the same reach and target questions of the same state, and each
//! is a search of the map. An answer is kept only when working it out drew nothing from the
//! generator (then it depends on the state and the content alone), and it is used only while
//! the battle is bit for bit the state it was worked out on, so a memo never changes a game.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use rand_pcg::Pcg64Mcg;

use crate::engine::content::Content;
use crate::map::Spot;
use crate::model::{Id, Skill};

use super::{ActiveStatus, Charge, TacticsState, UnitState};

/// Where a move skill can end, each end with its route (start and end included).
pub(super) type Routes = BTreeMap<Spot, Vec<Spot>>;

/// Answers keyed by the unit asking and its skill.
type Answers<V> = Vec<(String, Id<Skill>, Arc<V>)>;

/// A battle's memo of region searches: empty, or the answers for one state.
#[derive(Default)]
pub(super) struct Memo(Mutex<Option<Arc<Table>>>);

impl Clone for Memo {
    /// A copy of the battle starts with the same answers (the trial a choice is applied to).
    fn clone(&self) -> Self {
        Self(Mutex::new(self.0.lock().ok().and_then(|table| table.clone())))
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

/// The answers for one state.
#[derive(Clone)]
struct Table {
    /// The state they were worked out on (its own memo empty).
    state: Arc<TacticsState>,
    /// The content's address: the answers hold for that content only.
    content: usize,
    /// Move routes from the unit's own spot with none of the radius spent.
    routes: Answers<Routes>,
    /// Where a skill can be aimed.
    targets: Answers<BTreeSet<Spot>>,
}

impl Table {
    fn holds_for(&self, state: &TacticsState, content: &Content) -> bool {
        self.content == address(content) && same_state(&self.state, state)
    }
}

fn address(content: &Content) -> usize {
    std::ptr::from_ref(content) as usize
}

/// Whether two battles are the same state bit for bit (floats by their bits: `-0` and `0`, or
/// two NaNs, may read differently in a formula).
fn same_state(a: &TacticsState, b: &TacticsState) -> bool {
    Arc::ptr_eq(&a.setup, &b.setup)
        && a.tick == b.tick
        && a.turns == b.turns
        && a.active == b.active
        && a.winner == b.winner
        && a.pending_ct.to_bits() == b.pending_ct.to_bits()
        && a.action_points.map(f64::to_bits) == b.action_points.map(f64::to_bits)
        && a.round == b.round
        && a.repainted == b.repainted
        && a.charging.len() == b.charging.len()
        && a.charging.iter().zip(&b.charging).all(|(a, b)| same_charge(a, b))
        && a.units.len() == b.units.len()
        && a.units.iter().zip(&b.units).all(|((ka, a), (kb, b))| ka == kb && same_unit(a, b))
}

fn same_charge(a: &Charge, b: &Charge) -> bool {
    a.unit == b.unit && a.skill == b.skill && a.at == b.at && a.remaining.to_bits() == b.remaining.to_bits()
}

fn same_unit(a: &UnitState, b: &UnitState) -> bool {
    a.unit == b.unit
        && a.spot == b.spot
        && a.facing.to_bits() == b.facing.to_bits()
        && a.defeated == b.defeated
        && a.scheduled == b.scheduled
        && a.mount == b.mount
        && a.equipment == b.equipment
        && a.live == b.live
        && a.stats.len() == b.stats.len()
        && a.stats.iter().zip(&b.stats).all(|((na, va), (nb, vb))| na == nb && va.to_bits() == vb.to_bits())
        && a.statuses.len() == b.statuses.len()
        && a.statuses.iter().zip(&b.statuses).all(|(a, b)| same_status(a, b))
}

fn same_status(a: &ActiveStatus, b: &ActiveStatus) -> bool {
    a.name == b.name
        && a.remaining.to_bits() == b.remaining.to_bits()
        && a.elapsed.to_bits() == b.elapsed.to_bits()
        && a.interval.to_bits() == b.interval.to_bits()
        && a.worn == b.worn
        && a.definition == b.definition
}

impl TacticsState {
    /// This state without its memo (what a memo's answers are kept for).
    fn bare(&self) -> Self {
        Self { memo: Memo::default(), ..self.clone() }
    }

    /// The move routes of `key` with `skill` from where it stands, none of the radius spent
    /// (see [`Self::move_routes`]), remembered for this state.
    pub(super) fn remembered_routes(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        (key, skill): (&str, &Skill),
        work_out: impl FnOnce(&Self, &mut Pcg64Mcg) -> Routes,
    ) -> Arc<Routes> {
        self.remembered(content, rng, (key, skill), |table| &table.routes, |table| &mut table.routes, work_out)
    }

    /// Where `key` can aim `skill` (see [`Self::target_spots`]), remembered for this state.
    pub(super) fn remembered_targets(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        (key, skill): (&str, &Skill),
        work_out: impl FnOnce(&Self, &mut Pcg64Mcg) -> BTreeSet<Spot>,
    ) -> Arc<BTreeSet<Spot>> {
        self.remembered(content, rng, (key, skill), |table| &table.targets, |table| &mut table.targets, work_out)
    }

    /// The answer for `key` and `skill` from the memo when this very state was asked before;
    /// otherwise worked out, and kept when that drew nothing from `rng`. Only the content's own
    /// skills are remembered (`explain` asks about a changed copy under the same id).
    fn remembered<V>(
        &self,
        content: &Content,
        rng: &mut Pcg64Mcg,
        (key, skill): (&str, &Skill),
        answers: fn(&Table) -> &Answers<V>,
        answers_mut: fn(&mut Table) -> &mut Answers<V>,
        work_out: impl FnOnce(&Self, &mut Pcg64Mcg) -> V,
    ) -> Arc<V> {
        let own = content.project.skills.get(skill.id.as_str()).is_some_and(|known| std::ptr::eq(known, skill));
        if !own {
            return Arc::new(work_out(self, rng));
        }
        let known = |(unit, id, _): &&(String, Id<Skill>, Arc<V>)| unit == key && *id == skill.id;
        if let Ok(slot) = self.memo.0.lock()
            && let Some(table) = slot.as_ref().filter(|table| table.holds_for(self, content))
            && let Some((_, _, answer)) = answers(table).iter().find(known)
        {
            return Arc::clone(answer);
        }
        let before = rng.clone();
        let answer = Arc::new(work_out(self, rng));
        // An answer that drew depends on the generator too: it is not kept.
        if *rng != before {
            return answer;
        }
        let holds =
            self.memo.0.lock().is_ok_and(|slot| slot.as_ref().is_some_and(|table| table.holds_for(self, content)));
        // Copied before the lock is taken: copying the state copies its memo, which locks it.
        let fresh = (!holds).then(|| Table {
            state: Arc::new(self.bare()),
            content: address(content),
            routes: Vec::new(),
            targets: Vec::new(),
        });
        if let Ok(mut slot) = self.memo.0.lock() {
            if let Some(fresh) = fresh {
                *slot = Some(Arc::new(fresh));
            }
            if let Some(table) = slot.as_mut() {
                answers_mut(Arc::make_mut(table)).push((key.to_owned(), skill.id.clone(), Arc::clone(&answer)));
            }
        }
        answer
    }
}
