//! The game-state namespace: which names formulas may read in a project.
//!
//! Bare names and dotted names (the `Auto` scope) read the game state. Their first part says
//! what is read; FORMAT.md lists them all:
//!
//! | name | value |
//! |---|---|
//! | `stat.ID`, or just `ID` | the stat `ID` |
//! | `LOCATION.card.ID`, `LOCATION.aspect.ID` | how many of a card type / an aspect are at a location: `scope`, `slots`, `heap`, `table`, `matched`, `anywhere`, `free` |
//! | `LOCATION.cards` | how many cards are at a location |
//! | `card.ID.PROPERTY`, `self.PROPERTY` | a card type's property; the property of the card the formula belongs to |
//! | `turn`, `era.turn`, `era.ID` | the turn number; turns into the current era; 1 while era `ID` runs |
//! | `node.ID.visited`, `node.ID.captured`, `node.ID.here`, `node.ID.patrolled`, `node.ID.spent`, `node.ID.PROPERTY`, `node.current.PROPERTY` | node-map state |
//! | `campaign.day`, `campaign.phase`, `campaign.captured`, `campaign.retaken`, `campaign.moves`, `campaign.stealthy`, `campaign.won`, `campaign.lost`, `campaign.ended`, `campaign.hand`, `campaign.syntheses`, `campaign.failures`, `phase.NAME` | the campaign (FORMAT.md §14) |
//! | `board.B.cCOLrROW`, `board.B.filled`, … | board cells, lines and variables (`B` is an id, `own` or `facing`; FORMAT.md §11 lists them) |
//! | `column.*`, `facing_column.*`, `cell.*`, `option`, `roll`, `die.value`, `board.turn` | the context of a board rule |
//! | `dice.last` | the last die rolled |
//! | `synth.a.PROPERTY`, `synth.b.PROPERTY`, `synth.result.PROPERTY`, `synth.score`, `synth.share` | synthesis inputs, the candidate, its tag score and softmax share |
//! | `arg.*` | skill arguments (`spec/srpgck.md` §c.6) |
//! | `unit.ID.STAT`, `team.NAME.alive`, `battle.tick`, `battle.turns` | a placed unit's stat; how many units of a team stand; battle time and turns taken |
//!
//! Scoped lookups read characters and skills: `c.`/`t.` stats, `skill.` parameters, and so on.

use std::collections::BTreeSet;

use super::ast::{Lookup, Scope};
use super::compile::{NameCheck, Names};
use crate::model::Project;

/// The `arg.*` names a skill sets before its formulas run.
pub const ARG_NAMES: &[&str] = &[
    "arg.distance",
    "arg.distance.xy",
    "arg.mdistance",
    "arg.mdistance.xy",
    "arg.dx",
    "arg.dy",
    "arg.dz",
    "arg.x",
    "arg.y",
    "arg.z",
    "arg.pos.x",
    "arg.pos.y",
    "arg.pos.z",
    "arg.sameTeam",
    "arg.otherTeam",
    "arg.isAlly",
    "arg.isEnemy",
    "arg.angle.xy",
    "arg.currentHitType",
];

/// Stats every character has without declaring them.
pub const PSEUDO_STATS: &[&str] =
    &["position.x", "position.y", "position.z", "size.x", "size.y", "size.z", "isMounted", "isMounting"];

/// The count locations of `LOCATION.card.ID`.
pub const LOCATIONS: &[&str] = &["scope", "slots", "heap", "table", "matched", "anywhere", "free"];

/// The names a project defines, for checking formulas at compile time.
#[derive(Clone, Debug, Default)]
pub struct ProjectNames {
    stats: BTreeSet<String>,
    cards: BTreeSet<String>,
    aspects: BTreeSet<String>,
    card_properties: BTreeSet<String>,
    eras: BTreeSet<String>,
    nodes: BTreeSet<String>,
    node_properties: BTreeSet<String>,
    phases: BTreeSet<String>,
    boards: BTreeSet<String>,
    board_vars: BTreeSet<String>,
    column_vars: BTreeSet<String>,
    unit_stats: BTreeSet<String>,
    skill_params: BTreeSet<String>,
    units: BTreeSet<String>,
}

impl ProjectNames {
    /// The names of `project`.
    pub fn new(project: &Project) -> Self {
        let ids = |ids: Vec<(&str, &str)>| ids.into_iter().map(|(id, _)| id.to_owned()).collect::<BTreeSet<_>>();
        let mut names = Self {
            stats: ids(project.entries(crate::Kind::Stat)),
            cards: ids(project.entries(crate::Kind::Card)),
            aspects: ids(project.entries(crate::Kind::Aspect)),
            eras: ids(project.entries(crate::Kind::Era)),
            boards: ids(project.entries(crate::Kind::Board)),
            units: ids(project.entries(crate::Kind::Unit)),
            ..Self::default()
        };
        for card in &project.cards {
            names.card_properties.extend(card.properties.keys().cloned());
        }
        for map in &project.node_maps {
            for node in &map.nodes {
                names.nodes.insert(node.id.as_str().to_owned());
                names.node_properties.extend(node.properties.keys().cloned());
            }
            names.phases.extend(map.phases.iter().map(|phase| phase.name.clone()));
        }
        for board in &project.boards {
            names.board_vars.extend(board.vars.keys().cloned());
            names.column_vars.extend(board.column_vars.keys().cloned());
        }
        for unit in &project.units {
            names.unit_stats.extend(unit.stats.keys().cloned());
        }
        for skill in &project.skills {
            names.skill_params.extend(skill.params.keys().cloned());
        }
        names
    }

    fn known_list(set: &BTreeSet<String>) -> String {
        let shown: Vec<&str> = set.iter().take(12).map(String::as_str).collect();
        if shown.is_empty() {
            "none are defined".to_owned()
        } else if set.len() > shown.len() {
            format!("{}, …", shown.join(", "))
        } else {
            shown.join(", ")
        }
    }

    fn check_auto(&self, name: &str) -> NameCheck {
        let parts: Vec<&str> = name.split('.').collect();
        let unknown = |hint: String| NameCheck::Unknown(hint);
        let in_set = |set: &BTreeSet<String>, id: &str, what: &str| {
            if set.contains(id) {
                NameCheck::Known
            } else {
                unknown(format!("there is no {what} `{id}` (the project has: {})", Self::known_list(set)))
            }
        };
        match parts.as_slice() {
            [stat] if self.stats.contains(*stat) => NameCheck::Known,
            ["turn"]
            | ["era", "turn"]
            | ["dice", "last"]
            | ["synth", "score" | "share"]
            | ["synth", "a" | "b" | "result", _]
            | [
                "campaign",
                "day" | "phase" | "captured" | "retaken" | "moves" | "stealthy" | "won" | "lost" | "ended" | "hand"
                | "syntheses" | "failures",
            ] => NameCheck::Known,
            ["stat", id] => in_set(&self.stats, id, "stat"),
            [location, "card", id] if LOCATIONS.contains(location) => in_set(&self.cards, id, "card"),
            [location, "aspect", id] if LOCATIONS.contains(location) => in_set(&self.aspects, id, "aspect"),
            [location, "cards"] if LOCATIONS.contains(location) => NameCheck::Known,
            ["card", id, property] => match in_set(&self.cards, id, "card") {
                NameCheck::Known => in_set(&self.card_properties, property, "card property"),
                other => other,
            },
            ["self", property] => in_set(&self.card_properties, property, "card property"),
            ["era", id] => in_set(&self.eras, id, "era"),
            ["node", "current", property] => in_set(&self.node_properties, property, "node property"),
            ["node", id, "visited" | "captured" | "here" | "patrolled" | "spent"] => in_set(&self.nodes, id, "node"),
            ["phase", name] => in_set(&self.phases, name, "phase"),
            ["node", id, property] => match in_set(&self.nodes, id, "node") {
                NameCheck::Known => in_set(&self.node_properties, property, "node property"),
                other => other,
            },
            ["board", "turn"] | ["option" | "roll"] | ["die", "value"] | ["cell", "value" | "column" | "row"] => {
                NameCheck::Known
            }
            ["column" | "facing_column", rest @ ..] => self.check_board_part(rest),
            ["board", id, rest @ ..] => {
                let board =
                    if matches!(*id, "own" | "facing") { NameCheck::Known } else { in_set(&self.boards, id, "board") };
                match board {
                    NameCheck::Known => match rest {
                        ["score"] => NameCheck::Known,
                        [cell] if is_cell(cell) => NameCheck::Known,
                        [line, stat @ ..] if board_line(line).is_some() => self.check_board_part(stat),
                        _ => self.check_board_part(rest),
                    },
                    other => other,
                }
            }
            ["team", _, "alive"] | ["battle", "tick" | "turns"] => NameCheck::Known,
            ["unit", id, stat @ ..] => match in_set(&self.units, id, "unit") {
                NameCheck::Known => {
                    let stat = stat.join(".");
                    if self.unit_stats.contains(&stat) || PSEUDO_STATS.contains(&stat.as_str()) {
                        NameCheck::Known
                    } else {
                        unknown(format!(
                            "no unit has the stat `{stat}` (units have: {})",
                            Self::known_list(&self.unit_stats)
                        ))
                    }
                }
                other => other,
            },
            ["arg", ..] => {
                if ARG_NAMES.contains(&name) {
                    NameCheck::Known
                } else {
                    unknown(format!("skill arguments are {}", ARG_NAMES.join(", ")))
                }
            }
            _ => unknown(
                "write a stat (`gdp` or `stat.gdp`), a count (`table.card.kitten`), `turn`, or a scoped name \
                 such as `c.hp` or `f.bonus` (see FORMAT.md, formulas)"
                    .to_owned(),
            ),
        }
    }
}

impl ProjectNames {
    /// A board part after its board or line: a statistic or a variable.
    fn check_board_part(&self, rest: &[&str]) -> NameCheck {
        match rest {
            [stat] if board_stat(stat).is_some() => NameCheck::Known,
            ["var", name] if self.board_vars.contains(*name) || self.column_vars.contains(*name) => NameCheck::Known,
            ["var", name] => NameCheck::Unknown(format!(
                "no board has the variable `{name}` (boards have: {})",
                Self::known_list(&self.board_vars.union(&self.column_vars).cloned().collect())
            )),
            _ => NameCheck::Unknown(
                "a board part is `filled`, `free`, `total`, `score`, `equal`, `countV` or `var.NAME`, after a line \
                 `colK`, `rowK` or `diagK` where it has one (FORMAT.md §11)"
                    .to_owned(),
            ),
        }
    }
}

/// What a statistic over cells counts (`board.B.colK.STAT`, `column.STAT`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardStat {
    /// Filled cells.
    Filled,
    /// Empty cells.
    Free,
    /// The sum of the dice.
    Total,
    /// Each distinct value x held n times scores x·n·n.
    Score,
    /// 1 when every cell is filled with the same value.
    Equal,
    /// How many dice show this value.
    Count(i64),
}

/// The statistic a name part asks for: `filled`, `free`, `total`, `score`, `equal`, `countV`.
pub fn board_stat(text: &str) -> Option<BoardStat> {
    match text {
        "filled" => Some(BoardStat::Filled),
        "free" => Some(BoardStat::Free),
        "total" => Some(BoardStat::Total),
        "score" => Some(BoardStat::Score),
        "equal" => Some(BoardStat::Equal),
        _ => text.strip_prefix("count").and_then(|value| value.parse().ok()).map(BoardStat::Count),
    }
}

/// A line of cells on a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoardLine {
    /// Column K (from 1).
    Column(u32),
    /// Row K (from 1).
    Row(u32),
    /// Diagonal 1 (c1r1, c2r2, …) or 2 (c1rN, c2rN-1, …).
    Diagonal(u32),
}

/// The line a name part names: `colK`, `rowK`, `diagK` (K from 1).
pub fn board_line(text: &str) -> Option<BoardLine> {
    let number = |rest: &str| rest.parse::<u32>().ok().filter(|k| *k >= 1);
    if let Some(rest) = text.strip_prefix("col") {
        number(rest).map(BoardLine::Column)
    } else if let Some(rest) = text.strip_prefix("row") {
        number(rest).map(BoardLine::Row)
    } else if let Some(rest) = text.strip_prefix("diag") {
        number(rest).filter(|k| *k <= 2).map(BoardLine::Diagonal)
    } else {
        None
    }
}

/// Whether `text` is a board cell name `cCOLrROW`.
pub fn is_cell(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('c') else { return false };
    let Some((column, row)) = rest.split_once('r') else { return false };
    !column.is_empty()
        && !row.is_empty()
        && column.bytes().all(|b| b.is_ascii_digit())
        && row.bytes().all(|b| b.is_ascii_digit())
}

impl Names for ProjectNames {
    fn check(&self, lookup: &Lookup) -> NameCheck {
        let name = lookup.name.as_str();
        match &lookup.scope {
            Scope::Auto => self.check_auto(name),
            Scope::Actor
            | Scope::Target
            | Scope::ActorMount
            | Scope::ActorMounter
            | Scope::TargetMount
            | Scope::TargetMounter => {
                if self.unit_stats.contains(name) || PSEUDO_STATS.contains(&name) {
                    NameCheck::Known
                } else {
                    NameCheck::Unknown(format!(
                        "no unit has the stat `{name}` (units have: {})",
                        Self::known_list(&self.unit_stats)
                    ))
                }
            }
            Scope::Skill => {
                let engine_set = ARG_NAMES.contains(&name) || name == "hitType" || name == "reaction.hitType";
                if self.skill_params.contains(name) || engine_set {
                    NameCheck::Known
                } else {
                    NameCheck::Unknown(format!(
                        "no skill has the parameter `{name}` (skills have: {})",
                        Self::known_list(&self.skill_params)
                    ))
                }
            }
            // Equipment, items, statuses and effects come from the tactics engine at run time.
            _ => NameCheck::Unchecked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_cells() {
        assert!(is_cell("c1r2"));
        assert!(is_cell("c10r3"));
        assert!(!is_cell("c1"));
        assert!(!is_cell("cr2"));
        assert!(!is_cell("x1r2"));
    }
}
