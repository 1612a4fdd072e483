//! The formula environment of the campaign: stats (stored, or computed when read), campaign
//! names and node properties.

use std::collections::BTreeMap;

use rand_core::Rng as _;
use rand_pcg::Pcg64Mcg;

use crate::formula::names::{CampaignCount, GameName, NodeRead};
use crate::formula::{Env, FormulaTrace, LookupSlot};
use crate::model::{Expr, Id, MapNode, NodeMap, Stat};

use super::{CampaignState, MAX_READ_DEPTH};
use crate::engine::content::{Accessor, Content};

/// A blow of a battle: (attacker card, its life), (defender card, its life).
pub(super) type Blow = ((crate::model::CardId, f64), (crate::model::CardId, f64));

/// The formula environment of the campaign: stats (stored, or computed when read), campaign
/// names and node properties; table counts have no value here.
pub(super) struct CampaignEnv<'a> {
    pub(super) content: &'a Content,
    pub(super) accessors: &'a [Accessor],
    pub(super) map: &'a NodeMap,
    pub(super) state: &'a CampaignState,
    pub(super) stored: &'a BTreeMap<Id<Stat>, f64>,
    pub(super) rng: &'a mut Pcg64Mcg,
    pub(super) depth: usize,
    /// The blow being worked out.
    pub(super) fight: Option<&'a Blow>,
    /// The synthesis under way.
    pub(super) synth: Option<&'a SynthFrame>,
}

/// The synthesis under way, as campaign formulas read it (`synth.*`): its inputs, its result,
/// the card summoned in a failure's place, and what a bound B gathered on the field.
#[derive(Clone, Debug, Default)]
pub(super) struct SynthFrame {
    pub(super) a: Option<crate::model::CardId>,
    pub(super) b: Option<crate::model::CardId>,
    pub(super) result: Option<crate::model::CardId>,
    pub(super) extra: Option<crate::model::CardId>,
    /// B was played alone (A's stand-in took its place).
    pub(super) solo: bool,
    /// What B gathered on the field (its property → amount).
    pub(super) gathered: BTreeMap<String, f64>,
    /// How many tags A and B share.
    pub(super) shared: f64,
    /// The synthesis succeeded.
    pub(super) success: bool,
}

impl CampaignEnv<'_> {
    /// Evaluates content's formula one level deeper (computed stats, node properties).
    fn nested(&mut self, expr: &Expr) -> f64 {
        if self.depth >= MAX_READ_DEPTH {
            return f64::NAN;
        }
        let mut inner = CampaignEnv {
            content: self.content,
            accessors: &self.content.accessors,
            map: self.map,
            state: self.state,
            stored: self.stored,
            rng: &mut *self.rng,
            depth: self.depth.saturating_add(1),
            fight: self.fight,
            synth: self.synth,
        };
        inner.expr(expr)
    }

    pub(super) fn expr(&mut self, expr: &Expr) -> f64 {
        if let Some(value) = expr.as_int() {
            return value as f64;
        }
        let content = self.content;
        content.formula(expr).map_or(f64::NAN, |compiled| content.formulas().eval(compiled, self))
    }

    /// The trace of an expression's formula, as [`Self::expr`] evaluates it (none when it
    /// has no compiled formula, e.g. a plain number).
    pub(super) fn expr_trace(&mut self, expr: &Expr) -> Option<FormulaTrace> {
        let content = self.content;
        let compiled = content.formula(expr)?;
        let mut out = None;
        content.formulas().eval_or_trace(compiled, expr.text(), self, Some(&mut out));
        out
    }

    pub(super) fn stat(&mut self, id: &Id<Stat>) -> f64 {
        if let Some(value) = self.stored.get(id) {
            return *value;
        }
        let content = self.content;
        match content.project.stats.get(id.as_str()) {
            Some(stat) => self.nested(stat.value.expr()),
            None => f64::NAN,
        }
    }

    fn property(&mut self, node: &Id<MapNode>, property: &str) -> f64 {
        let map = self.map;
        let value = map.nodes.iter().find(|n| n.id == *node).and_then(|n| n.properties.get(property));
        value.map_or(f64::NAN, |expr| self.nested(expr))
    }

    /// A card's property as the player holds it: its formula plus what boosts added (NaN when
    /// the card has neither).
    pub(super) fn card_property(&mut self, card: &crate::model::CardId, property: &str) -> f64 {
        let content = self.content;
        let base = content.card(card.as_str()).and_then(|known| known.properties.get(property));
        let boost = self.state.boosts.get(card).and_then(|boosts| boosts.get(property)).copied();
        match (base, boost) {
            (None, None) => f64::NAN,
            (base, boost) => base.map_or(0.0, |expr| self.nested(expr)) + boost.unwrap_or(0.0),
        }
    }

    fn has_affix(&self, node: &Id<MapNode>, affix: &str) -> bool {
        self.map.nodes.iter().find(|n| n.id == *node).is_some_and(|n| n.affixes.iter().any(|known| known == affix))
    }

    /// The value of a campaign name; none for a name the campaign does not read.
    fn read(&mut self, name: &GameName) -> Option<f64> {
        let state = self.state;
        let flag = |yes: bool| if yes { 1.0 } else { 0.0 };
        let won = state.result.as_ref().map(|result| result.won);
        Some(match name {
            GameName::Campaign(count) => match count {
                CampaignCount::Day => f64::from(state.day),
                CampaignCount::Phase => state.phase as f64 + 1.0,
                CampaignCount::Captured => state.captured.len() as f64,
                CampaignCount::Retaken => f64::from(state.retaken),
                CampaignCount::Moves => f64::from(state.moves),
                CampaignCount::Stealthy => flag(!state.seen(self.map)),
                CampaignCount::Won => flag(won == Some(true)),
                CampaignCount::Lost => flag(won == Some(false)),
                CampaignCount::Ended => flag(won.is_some()),
                CampaignCount::Hand => state.hand.len() as f64,
                CampaignCount::Syntheses => f64::from(state.syntheses),
                CampaignCount::Failures => f64::from(state.failures),
                CampaignCount::DrawPile => {
                    state.deck.as_ref().and_then(|deck| state.piles.get(deck)).map_or(0, Vec::len) as f64
                }
                CampaignCount::Discard => state.discard.len() as f64,
                CampaignCount::Reversed => state.reversed.values().map(|count| f64::from(*count)).sum(),
                CampaignCount::Eras => f64::from(state.eras),
                CampaignCount::Battles => f64::from(state.battles.0),
                CampaignCount::BattlesWon => f64::from(state.battles.1),
                CampaignCount::InBattle => flag(state.battle.is_some()),
                CampaignCount::Bonds => state.bonds.len() as f64,
                CampaignCount::Revealed => state.revealed.len() as f64,
                CampaignCount::OffEra => {
                    let deck =
                        state.deck.as_ref().and_then(|id| self.map.cards.decks.iter().find(|deck| deck.id == *id));
                    flag(deck.is_some_and(|deck| {
                        !deck.eras.is_empty() && state.era.as_ref().is_none_or(|era| !deck.eras.contains(era))
                    }))
                }
            },
            GameName::EraTurn => f64::from(state.era_day),
            GameName::Era(id) => flag(state.era.as_ref() == Some(id)),
            GameName::Phase(name) => flag(state.phase_name(self.map) == name),
            GameName::Node(node, read) => match read {
                NodeRead::Visited => flag(state.visited.contains(node)),
                NodeRead::Captured => flag(state.captured.contains(node)),
                NodeRead::Here => flag(state.node == *node),
                NodeRead::Patrolled => {
                    flag(self.map.patrols.iter().any(|patrol| state.patrol_node(self.map, &patrol.id) == Some(node)))
                }
                NodeRead::Spent => flag(state.spent.contains(node)),
                NodeRead::Property(property) => self.property(node, property),
                NodeRead::Affix(affix) => flag(self.has_affix(node, affix)),
            },
            GameName::CurrentNodeProperty(property) => {
                let node = state.node.clone();
                self.property(&node, property)
            }
            GameName::CurrentNodeAffix(affix) => flag(self.has_affix(&state.node, affix)),
            GameName::Fight(attacker, property) => {
                let (card, life) = if *attacker { self.fight?.0.clone() } else { self.fight?.1.clone() };
                if property == "life" { life } else { self.card_property(&card, property) }
            }
            GameName::Synthesis(role, property) => {
                let frame = self.synth?;
                let card = match role.as_str() {
                    "solo" => return Some(flag(frame.solo)),
                    "shared" => return Some(frame.shared),
                    "success" => return Some(flag(frame.success)),
                    "a" => frame.a.clone(),
                    "b" => frame.b.clone(),
                    "result" => frame.result.clone(),
                    "extra" => frame.extra.clone(),
                    _ => None,
                }?;
                let gathered = if role == "b" { frame.gathered.get(property).copied() } else { None };
                let value = self.card_property(&card, property);
                match gathered {
                    Some(more) if value.is_nan() => more,
                    Some(more) => value + more,
                    None => value,
                }
            }
            _ => return None,
        })
    }
}

impl Env for CampaignEnv<'_> {
    fn value(&mut self, slot: LookupSlot) -> f64 {
        let accessors = self.accessors;
        match accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(id)) => {
                let id = id.clone();
                self.stat(&id)
            }
            Some(Accessor::Turn) => f64::from(self.state.day),
            Some(Accessor::Constant(value)) => *value,
            Some(Accessor::Name(name)) => self.read(name).unwrap_or(f64::NAN),
            Some(Accessor::Count(..) | Accessor::Cards(_) | Accessor::Missing) | None => f64::NAN,
        }
    }

    fn has(&mut self, slot: LookupSlot) -> bool {
        let accessors = self.accessors;
        match accessors.get(slot.0 as usize) {
            Some(Accessor::Stat(_) | Accessor::Turn | Accessor::Constant(_)) => true,
            Some(Accessor::Name(name)) => self.read(name).is_some_and(|value| !value.is_nan()),
            Some(Accessor::Count(..) | Accessor::Cards(_) | Accessor::Missing) | None => false,
        }
    }

    fn random_bits(&mut self) -> u64 {
        self.rng.next_u64()
    }
}

/// A uniform draw in 0..1 from the session's generator.
pub(super) fn unit(rng: &mut Pcg64Mcg) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
}
