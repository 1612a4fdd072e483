//! What a new item starts as: one template per kind, filled from what the project already
//! has so that it checks clean where it can (a new act runs on an existing token for five
//! seconds and says what to write; a new deck holds a card; a new tile map has a floor).

use std::sync::Arc;

use actforge_runtime::model::{
    Act, Aspect, Board, Card, Column, Deck, Equipment, Era, Expr, Formula, HitType, MapNode, NodeMap, Rule, Skill,
    Slot, Stat, Synthesis, Tile, TileMap, Token, TurnConfig, Unit,
};
use actforge_runtime::{Kind, Project};

use crate::document::SharedItem;

/// Seconds a new act runs.
const NEW_ACT_SECONDS: u32 = 5;

/// Cells along each side of a new tile map's floor.
const NEW_MAP_SIDE: u16 = 8;

/// An id for a new item of `kind` that the project does not use yet: `new_act`, `new_act_2`…
pub fn fresh_id(project: &Project, kind: Kind) -> String {
    let base = format!("new_{}", kind.label().to_lowercase().replace(' ', "_"));
    if !project.contains(kind, &base) {
        return base;
    }
    (2..=u32::MAX).map(|n| format!("{base}_{n}")).find(|id| !project.contains(kind, id)).unwrap_or(base)
}

/// The label a new item gets from its id: `new_act_2` → "New act 2".
fn label_of(id: &str) -> String {
    let spaced = id.replace('_', " ");
    let mut chars = spaced.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A new item of `kind` called `id`, filled from what `project` has; its texts get a string
/// key no other item's translations use.
pub fn new_item(project: &Project, kind: Kind, id: &str) -> SharedItem {
    let item = template(project, kind, id);
    let text_key = actforge_runtime::locale::fresh_text_key(project, kind, id);
    if text_key.is_empty() { item } else { item.with_text_key(&text_key) }
}

/// The template of a new item of `kind` called `id`.
fn template(project: &Project, kind: Kind, id: &str) -> SharedItem {
    let label = label_of(id);
    let first_token = project.tokens.iter().next().map(|token| token.id.clone());
    let first_card = project.cards.iter().next().map(|card| card.id.clone());
    let first_deck = project.decks.iter().next().map(|deck| deck.id.clone());
    match kind {
        Kind::Aspect => Arc::new(Aspect { id: id.into(), label, ..Aspect::default() }),
        Kind::Card => Arc::new(Card { id: id.into(), label, ..Card::default() }),
        Kind::Deck => {
            Arc::new(Deck { id: id.into(), label, fragments: first_card.into_iter().collect(), ..Deck::default() })
        }
        Kind::Slot => Arc::new(Slot { id: id.into(), label, ..Slot::default() }),
        Kind::Rule => Arc::new(Rule { id: id.into(), label, ..Rule::default() }),
        Kind::Act => {
            // The first act of a token starts by itself when the token is on the table.
            let initial = first_token
                .as_ref()
                .is_some_and(|token| !project.acts.iter().any(|act| act.initial && act.token.as_ref() == Some(token)));
            let ticks = project.manifest.settings.ticks_per_second.saturating_mul(NEW_ACT_SECONDS);
            Arc::new(Act {
                id: id.into(),
                label,
                token: first_token,
                initial,
                duration_ticks: Expr::int(i64::from(ticks)),
                text: "What happens while this act runs.".to_owned(),
                end_text: "How it ends.".to_owned(),
                ..Act::default()
            })
        }
        Kind::Token => Arc::new(Token { id: id.into(), label, ..Token::default() }),
        Kind::Formula => Arc::new(Formula { id: id.into(), label, expr: Expr::int(0), ..Formula::default() }),
        Kind::Stat => Arc::new(Stat { id: id.into(), label, ..Stat::default() }),
        Kind::TurnConfig => Arc::new(TurnConfig {
            id: id.into(),
            label,
            draw_deck: first_deck,
            initial_hand: if project.decks.iter().next().is_none() {
                first_card.into_iter().collect()
            } else {
                Vec::new()
            },
            ..TurnConfig::default()
        }),
        Kind::Era => Arc::new(Era { id: id.into(), label, ..Era::default() }),
        Kind::Synthesis => Arc::new(Synthesis { id: id.into(), label, candidates: first_deck, ..Synthesis::default() }),
        Kind::Board => Arc::new(Board { id: id.into(), label, ..Board::default() }),
        Kind::TileMap => {
            let columns = (0..NEW_MAP_SIDE)
                .flat_map(|y| (0..NEW_MAP_SIDE).map(move |x| Arc::new(Column { x, y, tiles: vec![Tile::cube(0)] })))
                .collect();
            Arc::new(TileMap {
                id: id.into(),
                label,
                width: NEW_MAP_SIDE,
                depth: NEW_MAP_SIDE,
                columns,
                ..TileMap::default()
            })
        }
        Kind::NodeMap => Arc::new(NodeMap {
            id: id.into(),
            label,
            start: Some("start".into()),
            nodes: vec![MapNode { id: "start".into(), label: "Start".to_owned(), ..MapNode::default() }],
            ..NodeMap::default()
        }),
        Kind::Unit => {
            // Enough to take turns and walk in a battle (FORMAT.md §12): only units with `ct`
            // and `speed` take turns (speed is added to ct each tick); move and jump bound a walk.
            let stats = [("hp", 10), ("ct", 0), ("speed", 5), ("move", 4), ("jump", 1)]
                .into_iter()
                .map(|(name, value)| (name.to_owned(), Expr::int(value)))
                .collect();
            Arc::new(Unit { id: id.into(), label, stats, ..Unit::default() })
        }
        Kind::Skill => Arc::new(Skill {
            id: id.into(),
            label,
            hit_types: vec![HitType { label: "Hit".to_owned(), ..HitType::default() }],
            ..Skill::default()
        }),
        // A weapon in one hand: a parameter its wielder's skills can read as `equip(weapon).power`.
        Kind::Equipment => Arc::new(Equipment {
            id: id.into(),
            label,
            slots: vec!["hand".to_owned()],
            categories: vec!["weapon".to_owned()],
            params: [("power".to_owned(), Expr::int(1))].into_iter().collect(),
            ..Equipment::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use actforge_runtime::Severity;
    use actforge_runtime::project::Sources;
    use actforge_runtime::validate::validate;

    use super::*;
    use crate::document::Op;

    /// Problems validation finds in the item `key` of `project`.
    fn problems_of(project: &Project, kind: Kind, id: &str) -> Vec<String> {
        validate(project, &Sources::default(), None)
            .into_iter()
            .filter(|d| d.item.as_ref().is_some_and(|(k, i)| *k == kind && i == id))
            .map(|d| format!("{:?}: {}", d.severity, d.message))
            .collect()
    }

    #[test]
    fn every_template_checks_without_errors_in_an_empty_project_and_clean_in_a_full_one() {
        let full = actforge_runtime::project::open_project(&crate::app::default_project_path()).unwrap().project;
        for &kind in Kind::ALL {
            for (base, must_be_clean) in [(Project::new("Empty"), false), (full.clone(), true)] {
                let mut project = base;
                let id = fresh_id(&project, kind);
                assert!(!project.contains(kind, &id), "{id}");
                Op::put(new_item(&project, kind, &id)).apply(&mut project).unwrap();
                let problems = problems_of(&project, kind, &id);
                let errors: Vec<_> =
                    problems.iter().filter(|p| p.starts_with(&format!("{:?}", Severity::Error))).collect();
                assert!(errors.is_empty(), "{kind} template: {errors:?}");
                if must_be_clean {
                    assert!(problems.is_empty(), "{kind} template in the demo: {problems:?}");
                }
            }
        }
    }

    #[test]
    fn fresh_ids_count_up_and_labels_follow_them() {
        let mut project = Project::new("Empty");
        assert_eq!(fresh_id(&project, Kind::TileMap), "new_tile_map");
        Op::put(new_item(&project, Kind::Act, "new_act")).apply(&mut project).unwrap();
        assert_eq!(fresh_id(&project, Kind::Act), "new_act_2");
        assert_eq!(new_item(&project, Kind::Act, "new_act_2").item_label(), "New act 2");
    }
}
