//! The campaign's battles (FORMAT.md §14 "Battles"; `spec/era-synthesis.md` §2, §6): a trigger's
//! condition becomes true after a step; the fighting cards of the hand meet the trigger's enemy
//! roster; the player strikes with one fighter at a target, the enemy answers with its first
//! fighter at the player's fighter its policy scores highest; the side left standing wins. The
//! damage formula (the content's counter triangle) reads both cards' properties.

use crate::model::{BattleTrigger, CardId};

use super::step::{Refusal, Step};
use super::{Battle, Fighter};
use crate::engine::Event;
use crate::engine::core;
use crate::number::show_value;

/// Most fighters a side brings (a content typo must not build a huge battle).
const MAX_FIGHTERS: usize = 64;

/// Fighters for `cards`, keyed by id (`ID#2` for a second copy), each at its card's `life`.
fn fighters(step: &mut Step<'_>, cards: impl IntoIterator<Item = CardId>) -> Vec<Fighter> {
    let mut out: Vec<Fighter> = Vec::new();
    for card in cards.into_iter().take(MAX_FIGHTERS) {
        let copies = out.iter().filter(|fighter| fighter.card == card).count();
        let key = if copies == 0 { card.to_string() } else { format!("{card}#{}", copies.saturating_add(1)) };
        let life = step.card_property(&card, "life");
        out.push(Fighter { key, card, life: if life.is_finite() { life } else { 0.0 } });
    }
    out
}

impl Step<'_> {
    /// The cards of the hand that can fight: with the fighter aspect (when the rules name one)
    /// and a `life` property.
    fn fighting_cards(&self) -> Vec<CardId> {
        let rules = &self.map.battles;
        self.state
            .hand
            .iter()
            .filter(|card| {
                self.content.card(card.as_str()).is_some_and(|known| known.properties.contains_key("life"))
                    && self.fits(card, rules.fighter_aspect.as_ref())
            })
            .cloned()
            .collect()
    }

    /// After a step: a trigger whose condition became true starts its battle (one at a time,
    /// in the map's order).
    pub(super) fn check_battles(&mut self) {
        if self.ended() || self.map.battles.triggers.is_empty() {
            return;
        }
        let map = self.map;
        for trigger in &map.battles.triggers {
            let holds = core::truthy(self.value(&trigger.when));
            let was = self.state.holding.contains(&trigger.id);
            if holds {
                self.state.holding.insert(trigger.id.clone());
            } else {
                self.state.holding.remove(&trigger.id);
            }
            if holds && !was && self.state.battle.is_none() {
                self.start_battle(trigger);
            }
        }
    }

    fn start_battle(&mut self, trigger: &BattleTrigger) {
        let player = {
            let cards = self.fighting_cards();
            fighters(self, cards)
        };
        let enemy = fighters(self, trigger.enemies.iter().cloned());
        self.state.battles.0 = self.state.battles.0.saturating_add(1);
        self.events.push(Event::BattleStarted {
            battle: trigger.id.clone(),
            player: player.iter().map(|fighter| fighter.key.clone()).collect(),
            enemy: enemy.iter().map(|fighter| fighter.key.clone()).collect(),
        });
        self.state.battle = Some(Battle { id: trigger.id.clone(), player, enemy, round: 0 });
        // A side with no one standing has lost at once.
        self.settle_battle();
    }

    /// Whether the player's fighter `attacker` may strike the enemy `target` now.
    pub(super) fn strike_check(&self, attacker: &str, target: &str) -> Result<(), Refusal> {
        let battle = self.state.battle.as_ref().ok_or(Refusal::NoBattle)?;
        if !battle.player.iter().any(|fighter| fighter.key == attacker && fighter.life > 0.0) {
            return Err(Refusal::NoFighter);
        }
        if !battle.enemy.iter().any(|fighter| fighter.key == target && fighter.life > 0.0) {
            return Err(Refusal::NoTarget);
        }
        Ok(())
    }

    /// A card's numeric property as the player holds it (0 when it has none that is a number).
    fn property(&mut self, card: &CardId, name: &str) -> f64 {
        let value = self.card_property(card, name);
        if value.is_finite() { value } else { 0.0 }
    }

    /// The damage of one blow: the rules' `damage` over both cards, else `max(1, attack −
    /// defence)` (never below 0).
    pub(super) fn blow(&mut self, attacker: &Fighter, defender: &Fighter) -> f64 {
        let Some(formula) = self.map.battles.damage.as_ref() else {
            let attack = self.property(&attacker.card, "attack");
            let defence = self.property(&defender.card, "defence");
            return (attack - defence).max(1.0);
        };
        let fight = ((attacker.card.clone(), attacker.life), (defender.card.clone(), defender.life));
        let damage = self.fight_value(formula, &fight);
        if damage.is_finite() {
            damage.max(0.0)
        } else {
            self.warn(format!(
                "battle damage `{}` is not a number for {} striking {}: no damage",
                formula.text(),
                attacker.key,
                defender.key
            ));
            0.0
        }
    }

    /// The player's fighter strikes; the enemy's first fighter standing answers at the player's
    /// fighter its policy scores highest; then the battle may end.
    pub(super) fn strike(&mut self, attacker: &str, target: &str) {
        let Some(mut battle) = self.state.battle.take() else { return };
        let (Some(from), Some(at)) = (
            battle.player.iter().position(|fighter| fighter.key == attacker),
            battle.enemy.iter().position(|fighter| fighter.key == target),
        ) else {
            self.state.battle = Some(battle);
            return;
        };
        battle.round = battle.round.saturating_add(1);
        let (Some(striker), Some(struck)) = (battle.player.get(from).cloned(), battle.enemy.get(at).cloned()) else {
            self.state.battle = Some(battle);
            return;
        };
        let enemy_first = self.map.battles.enemy_first.as_ref().is_some_and(|first| core::truthy(self.value(first)));
        if enemy_first {
            self.enemy_answers(&mut battle);
        }
        // A striker felled by the enemy's first blow does not strike.
        if battle.player.get(from).is_some_and(|fighter| fighter.life > 0.0) {
            let damage = self.blow(&striker, &struck);
            if let Some(struck) = battle.enemy.get_mut(at) {
                struck.life -= damage;
                self.events.push(Event::FighterStruck {
                    attacker: striker.key.clone(),
                    target: struck.key.clone(),
                    damage: show_value(damage, None),
                    life: show_value(struck.life, None),
                });
            }
        }
        if !enemy_first {
            self.enemy_answers(&mut battle);
        }
        self.state.battle = Some(battle);
        self.settle_battle();
    }

    /// The enemy's first fighter standing strikes the player's fighter its policy scores highest.
    fn enemy_answers(&mut self, battle: &mut Battle) {
        let answer = battle.enemy.iter().find(|fighter| fighter.life > 0.0).cloned();
        if let Some(enemy) = answer {
            let target_rule = self.map.battles.enemy_target.as_ref();
            let mut best: Option<(usize, f64)> = None;
            for (index, fighter) in battle.player.iter().enumerate().filter(|(_, fighter)| fighter.life > 0.0) {
                let fight = ((enemy.card.clone(), enemy.life), (fighter.card.clone(), fighter.life));
                let score = match target_rule {
                    Some(rule) => self.fight_value(rule, &fight),
                    None => -fighter.life,
                };
                let score = if score.is_nan() { f64::NEG_INFINITY } else { score };
                if best.is_none_or(|(_, top)| score > top) {
                    best = Some((index, score));
                }
            }
            if let Some((index, _)) = best
                && let Some(defender) = battle.player.get(index).cloned()
            {
                let damage = self.blow(&enemy, &defender);
                if let Some(hit) = battle.player.get_mut(index) {
                    hit.life -= damage;
                    self.events.push(Event::FighterStruck {
                        attacker: enemy.key.clone(),
                        target: hit.key.clone(),
                        damage: show_value(damage, None),
                        life: show_value(hit.life, None),
                    });
                }
            }
        }
    }

    /// Ends the battle when a side has no one standing: the player's fallen cards leave the
    /// hand for the discard pile; a win runs `on_win`, a loss takes the standing enemies'
    /// `attack` from the core stat and runs `on_loss`.
    fn settle_battle(&mut self) {
        let Some(battle) = &self.state.battle else { return };
        let player_standing = battle.player.iter().any(|fighter| fighter.life > 0.0);
        let enemy_standing = battle.enemy.iter().any(|fighter| fighter.life > 0.0);
        if player_standing && enemy_standing {
            return;
        }
        let Some(battle) = self.state.battle.take() else { return };
        let won = !enemy_standing;
        for fallen in battle.player.iter().filter(|fighter| fighter.life <= 0.0) {
            if self.take_from_hand(&fallen.card, false) {
                self.discard(fallen.card.clone());
            }
        }
        let map = self.map;
        let trigger = map.battles.triggers.iter().find(|trigger| trigger.id == battle.id);
        if won {
            self.state.battles.1 = self.state.battles.1.saturating_add(1);
        } else if let Some(stat) =
            map.battles.core_stat.as_ref().and_then(|id| self.content.project.stats.get(id.as_str()))
        {
            let attack: f64 = battle
                .enemy
                .iter()
                .filter(|fighter| fighter.life > 0.0)
                .filter_map(|fighter| self.content.card(fighter.card.as_str())?.properties.get("attack").cloned())
                .map(|expr| self.value(&expr))
                .filter(|value| value.is_finite())
                .sum();
            let core = self.stat_value(&stat.id);
            self.set_stat(stat, core - attack, &mut core::Depth(0));
        }
        self.events.push(Event::BattleEnded { battle: battle.id.clone(), won });
        if let Some(trigger) = trigger {
            self.run_rules(if won { &trigger.on_win } else { &trigger.on_loss });
        }
    }
}
