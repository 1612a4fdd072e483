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
//! | `campaign.day`, `campaign.phase`, `campaign.captured`, `campaign.retaken`, `campaign.moves`, `campaign.stealthy`, `campaign.won`, `campaign.lost`, `campaign.ended`, `campaign.hand`, `campaign.syntheses`, `campaign.failures`, `campaign.bonds`, `campaign.revealed`, … `phase.NAME` | the campaign (FORMAT.md §14) |
//! | `board.B.cCOLrROW`, `board.B.filled`, … | board cells, lines and variables (`B` is an id, `own` or `facing`; FORMAT.md §11 lists them) |
//! | `column.*`, `facing_column.*`, `cell.*`, `option`, `roll`, `die.value`, `board.turn` | the context of a board rule |
//! | `dice.last` | the last die rolled |
//! | `synth.a.PROPERTY`, `synth.b.PROPERTY`, `synth.result.PROPERTY`, `synth.extra.PROPERTY`, `synth.score`, `synth.share`, `synth.solo`, `synth.shared`, `synth.success` | synthesis inputs, the candidate, its tag score and softmax share, the card summoned after a failure, 1 when B was played alone, how many tags A and B share, 1 when the synthesis under way succeeded |
//! | `arg.*` | skill arguments (`spec/srpgck.md` §c.6) |
//! | `unit.ID.STAT`, `team.NAME.alive`, `battle.tick`, `battle.turns` | a placed unit's stat; how many units of a team stand; battle time and turns taken |
//!
//! Scoped lookups read characters and skills: `c.`/`t.` stats, `skill.` parameters, and so on.

use std::collections::BTreeSet;

use super::ast::{Lookup, Scope};
use super::compile::{NameCheck, Names};
use crate::model::{AspectId, CardId, Era, Id, Location, MapNode, Project, Stat};

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

/// A game-state name (FORMAT.md §5, "Names"): a plain (`Auto`) lookup parsed once, in one
/// place. Validation ([`ProjectNames`]) checks it against the project, and each system binds it
/// to what it reads at play (the table's counts, the turns' stats, the campaign's nodes, the
/// boards' cells, the battle's units).
#[derive(Clone, Debug, PartialEq)]
pub enum GameName {
    /// `ID` (a bare word the project has as a stat) or `stat.ID`.
    Stat(Id<Stat>),
    /// `turn`.
    Turn,
    /// `LOCATION.card.ID`: how many cards of a type are at a location.
    CardCount(Location, CardId),
    /// `LOCATION.aspect.ID`: how many of an aspect are at a location.
    AspectCount(Location, AspectId),
    /// `LOCATION.cards`: how many cards are at a location.
    Cards(Location),
    /// `card.ID.PROPERTY`.
    CardProperty(CardId, String),
    /// `self.PROPERTY`: a property of the card the formula belongs to.
    SelfProperty(String),
    /// `era.turn`: the day within the current era.
    EraTurn,
    /// `era.ID`: 1 while the era runs.
    Era(Id<Era>),
    /// `phase.NAME`: 1 during the phase.
    Phase(String),
    /// `campaign.…`: a count or flag of the campaign.
    Campaign(CampaignCount),
    /// `node.ID.…`: node-map state or a node property.
    Node(Id<MapNode>, NodeRead),
    /// `node.current.PROPERTY`: a property of the player's node.
    CurrentNodeProperty(String),
    /// `node.current.affix.NAME`: 1 when the player's node carries the affix.
    CurrentNodeAffix(String),
    /// `fight.attacker.PROP` (true) or `fight.defender.PROP` (false): a property of a card in a
    /// campaign battle's blow (`life`: its life left).
    Fight(bool, String),
    /// `dice.last`.
    DiceLast,
    /// `synth.a.P`, `synth.b.P`, `synth.result.P`, `synth.extra.P` (role, property),
    /// `synth.score`, `synth.share`, `synth.solo`, `synth.shared`, `synth.success` (word, empty): a synthesis's table
    /// (`crate::synthesis`) and the campaign's synthesis under way.
    Synthesis(String, String),
    /// A board name (FORMAT.md §11).
    Board(BoardName),
    /// `arg.…`: a skill argument (the whole name).
    Arg(String),
    /// `reaction.NAME`: a parameter of the running skill's reaction (`reaction.hitType` its
    /// hit type).
    Reaction(String),
    /// `unit.ID.STAT` (the stat may contain dots; empty when none is written).
    UnitStat(String, String),
    /// `team.NAME.alive`.
    TeamAlive(String),
    /// `battle.tick`.
    BattleTick,
    /// `battle.turns`.
    BattleTurns,
    /// Not a game-state name.
    Unknown,
}

/// The campaign's counts and flags (`campaign.WORD`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CampaignCount {
    /// `campaign.day`: the day, from 1.
    Day,
    /// `campaign.phase`: the phase of the day, from 1.
    Phase,
    /// `campaign.captured`: how many nodes are captured.
    Captured,
    /// `campaign.retaken`: how many nodes patrols have retaken.
    Retaken,
    /// `campaign.moves`: how many paths the player has taken.
    Moves,
    /// `campaign.stealthy`: 1 while no patrol sees the player.
    Stealthy,
    /// `campaign.won`: 1 once the campaign is won.
    Won,
    /// `campaign.lost`: 1 once the campaign is lost.
    Lost,
    /// `campaign.ended`: 1 once the campaign is over.
    Ended,
    /// `campaign.hand`: how many cards the player holds.
    Hand,
    /// `campaign.syntheses`: syntheses triggered.
    Syntheses,
    /// `campaign.failures`: syntheses that failed.
    Failures,
    /// `campaign.draw_pile`: cards left in the pile of the deck drawn from.
    DrawPile,
    /// `campaign.discard`: cards on the discard pile.
    Discard,
    /// `campaign.reversed`: reversed cards in the hand.
    Reversed,
    /// `campaign.off_era`: 1 while the deck drawn from is not the current era's.
    OffEra,
    /// `campaign.eras`: eras begun, the first included.
    Eras,
    /// `campaign.battles`: battles fought (the one under way included).
    Battles,
    /// `campaign.battles_won`: battles the player won.
    BattlesWon,
    /// `campaign.in_battle`: 1 while a battle is under way.
    InBattle,
    /// `campaign.bonds`: A and B pairs bound on the field.
    Bonds,
    /// `campaign.revealed`: revelations granted since their list last started over.
    Revealed,
}

/// The count or flag `campaign.WORD` reads.
fn campaign_count(word: &str) -> Option<CampaignCount> {
    Some(match word {
        "day" => CampaignCount::Day,
        "phase" => CampaignCount::Phase,
        "captured" => CampaignCount::Captured,
        "retaken" => CampaignCount::Retaken,
        "moves" => CampaignCount::Moves,
        "stealthy" => CampaignCount::Stealthy,
        "won" => CampaignCount::Won,
        "lost" => CampaignCount::Lost,
        "ended" => CampaignCount::Ended,
        "hand" => CampaignCount::Hand,
        "syntheses" => CampaignCount::Syntheses,
        "failures" => CampaignCount::Failures,
        "draw_pile" => CampaignCount::DrawPile,
        "discard" => CampaignCount::Discard,
        "reversed" => CampaignCount::Reversed,
        "off_era" => CampaignCount::OffEra,
        "eras" => CampaignCount::Eras,
        "battles" => CampaignCount::Battles,
        "battles_won" => CampaignCount::BattlesWon,
        "in_battle" => CampaignCount::InBattle,
        "bonds" => CampaignCount::Bonds,
        "revealed" => CampaignCount::Revealed,
        _ => return None,
    })
}

/// What `node.ID.WHAT` reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeRead {
    /// `visited`.
    Visited,
    /// `captured`.
    Captured,
    /// `here`: the player stands there.
    Here,
    /// `patrolled`: a patrol stands there.
    Patrolled,
    /// `spent`: a forge was used.
    Spent,
    /// `affix.NAME`: 1 when the node carries the affix.
    Affix(String),
    /// Any other word: a node property.
    Property(String),
}

/// A board name (FORMAT.md §11).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardName {
    /// `option`: the option chosen with a card.
    Option,
    /// `roll`: the value a roll filter tries.
    Roll,
    /// `die.value`: the die rolled.
    DieValue,
    /// `board.turn`.
    Turn,
    /// `cell.value`.
    CellValue,
    /// `cell.column`.
    CellColumn,
    /// `cell.row`.
    CellRow,
    /// `cell.filled`: 1 while the context cell holds a die.
    CellFilled,
    /// `cell.var.NAME`: a cell variable of the context cell.
    CellVar(String),
    /// `column.PART` (`facing`: `facing_column.PART`): the context column.
    Column {
        /// The facing board's column.
        facing: bool,
        /// What is read of it (none: not a board part).
        part: Option<BoardPart>,
    },
    /// `board.B.score`.
    Score(BoardRef),
    /// `board.B.cCrR` (none: the numbers are too large).
    Cell(BoardRef, Option<(u32, u32)>),
    /// `board.B.colK.PART`, `rowK`, `diagK`.
    Line(BoardRef, BoardLine, Option<BoardPart>),
    /// `board.B.PART`: the whole board.
    Whole(BoardRef, Option<BoardPart>),
}

/// The board a board name reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardRef {
    /// `own`: the side whose rule runs.
    Own,
    /// `facing`: the board it faces.
    Facing,
    /// A board id.
    Id(String),
}

/// What a board name reads of cells: a statistic or a variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BoardPart {
    /// `filled`, `free`, `total`, `score`, `equal`, `countV`.
    Stat(BoardStat),
    /// `var.NAME`.
    Var(String),
}

/// The location a count name starts with (`scope`, `slots`, …).
fn location(word: &str) -> Option<Location> {
    match word {
        "scope" => Some(Location::Scope),
        "slots" => Some(Location::Slots),
        "heap" => Some(Location::Heap),
        "table" => Some(Location::Table),
        "matched" => Some(Location::MatchedCards),
        "anywhere" => Some(Location::Anywhere),
        "free" => Some(Location::Free),
        _ => None,
    }
}

impl GameName {
    /// Parses a plain lookup's name; `is_stat` says which bare words are the project's stats
    /// (a stat comes before `turn`, `option` and `roll`).
    pub fn parse(name: &str, is_stat: impl Fn(&str) -> bool) -> Self {
        let parts: Vec<&str> = name.split('.').collect();
        match parts.as_slice() {
            [stat] if is_stat(stat) => Self::Stat(Id::new(*stat)),
            ["turn"] => Self::Turn,
            ["era", "turn"] => Self::EraTurn,
            ["dice", "last"] => Self::DiceLast,
            ["synth", word @ ("score" | "share" | "solo" | "shared" | "success")] => {
                Self::Synthesis((*word).to_owned(), String::new())
            }
            ["synth", role @ ("a" | "b" | "result" | "extra"), property] => {
                Self::Synthesis((*role).to_owned(), (*property).to_owned())
            }
            ["campaign", word] if campaign_count(word).is_some() => {
                campaign_count(word).map_or(Self::Unknown, Self::Campaign)
            }
            ["stat", id] => Self::Stat(Id::new(*id)),
            [place, "card", id] if location(place).is_some() => {
                location(place).map_or(Self::Unknown, |at| Self::CardCount(at, Id::new(*id)))
            }
            [place, "aspect", id] if location(place).is_some() => {
                location(place).map_or(Self::Unknown, |at| Self::AspectCount(at, Id::new(*id)))
            }
            [place, "cards"] if location(place).is_some() => location(place).map_or(Self::Unknown, Self::Cards),
            ["card", id, property] => Self::CardProperty(Id::new(*id), (*property).to_owned()),
            ["self", property] => Self::SelfProperty((*property).to_owned()),
            ["era", id] => Self::Era(Id::new(*id)),
            ["node", "current", property] => Self::CurrentNodeProperty((*property).to_owned()),
            ["fight", "attacker", property] => Self::Fight(true, (*property).to_owned()),
            ["fight", "defender", property] => Self::Fight(false, (*property).to_owned()),
            ["node", "current", "affix", affix] => Self::CurrentNodeAffix((*affix).to_owned()),
            ["node", id, "affix", affix] => Self::Node(Id::new(*id), NodeRead::Affix((*affix).to_owned())),
            ["node", id, what] => {
                let read = match *what {
                    "visited" => NodeRead::Visited,
                    "captured" => NodeRead::Captured,
                    "here" => NodeRead::Here,
                    "patrolled" => NodeRead::Patrolled,
                    "spent" => NodeRead::Spent,
                    property => NodeRead::Property(property.to_owned()),
                };
                Self::Node(Id::new(*id), read)
            }
            ["phase", name] => Self::Phase((*name).to_owned()),
            ["board", "turn"] => Self::Board(BoardName::Turn),
            ["option"] => Self::Board(BoardName::Option),
            ["roll"] => Self::Board(BoardName::Roll),
            ["die", "value"] => Self::Board(BoardName::DieValue),
            ["cell", "value"] => Self::Board(BoardName::CellValue),
            ["cell", "column"] => Self::Board(BoardName::CellColumn),
            ["cell", "row"] => Self::Board(BoardName::CellRow),
            ["cell", "filled"] => Self::Board(BoardName::CellFilled),
            ["cell", "var", name] => Self::Board(BoardName::CellVar((*name).to_owned())),
            [column @ ("column" | "facing_column"), rest @ ..] => {
                Self::Board(BoardName::Column { facing: *column == "facing_column", part: board_part(rest) })
            }
            ["board", id, rest @ ..] => {
                let board = match *id {
                    "own" => BoardRef::Own,
                    "facing" => BoardRef::Facing,
                    id => BoardRef::Id(id.to_owned()),
                };
                Self::Board(match rest {
                    ["score"] => BoardName::Score(board),
                    [cell] if is_cell(cell) => {
                        let numbers = cell.strip_prefix('c').and_then(|rest| rest.split_once('r'));
                        let numbers = numbers.and_then(|(c, r)| Some((c.parse().ok()?, r.parse().ok()?)));
                        BoardName::Cell(board, numbers)
                    }
                    [line, part @ ..] if board_line(line).is_some() => match board_line(line) {
                        Some(line) => BoardName::Line(board, line, board_part(part)),
                        None => BoardName::Whole(board, board_part(rest)),
                    },
                    rest => BoardName::Whole(board, board_part(rest)),
                })
            }
            ["team", team, "alive"] => Self::TeamAlive((*team).to_owned()),
            ["battle", "tick"] => Self::BattleTick,
            ["battle", "turns"] => Self::BattleTurns,
            ["unit", id, ..] => {
                let stat = name.splitn(3, '.').nth(2).unwrap_or_default();
                Self::UnitStat((*id).to_owned(), stat.to_owned())
            }
            ["arg", ..] => Self::Arg(name.to_owned()),
            ["reaction", _, ..] => {
                Self::Reaction(name.split_once('.').map(|(_, rest)| rest).unwrap_or_default().to_owned())
            }
            _ => Self::Unknown,
        }
    }

    /// Whether the campaign reads this name (node-map state, eras, phases, campaign counts).
    pub fn is_campaign(&self) -> bool {
        matches!(
            self,
            Self::EraTurn
                | Self::Era(_)
                | Self::Phase(_)
                | Self::Campaign(_)
                | Self::Node(..)
                | Self::CurrentNodeProperty(_)
                | Self::CurrentNodeAffix(_)
                | Self::Fight(..)
        )
    }
}

/// A board part after its board, line or context column: a statistic or a variable.
fn board_part(rest: &[&str]) -> Option<BoardPart> {
    match rest {
        [stat] => board_stat(stat).map(BoardPart::Stat),
        ["var", name] => Some(BoardPart::Var((*name).to_owned())),
        _ => None,
    }
}

/// The names a project defines, for checking formulas at compile time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ProjectNames {
    stats: BTreeSet<String>,
    cards: BTreeSet<String>,
    aspects: BTreeSet<String>,
    card_properties: BTreeSet<String>,
    eras: BTreeSet<String>,
    nodes: BTreeSet<String>,
    node_properties: BTreeSet<String>,
    node_affixes: BTreeSet<String>,
    phases: BTreeSet<String>,
    boards: BTreeSet<String>,
    board_vars: BTreeSet<String>,
    column_vars: BTreeSet<String>,
    cell_vars: BTreeSet<String>,
    unit_stats: BTreeSet<String>,
    terrain_tags: BTreeSet<String>,
    skill_params: BTreeSet<String>,
    units: BTreeSet<String>,
    equip_params: BTreeSet<String>,
    equip_categories: BTreeSet<String>,
    equip_slots: BTreeSet<String>,
    reaction_params: BTreeSet<String>,
    reactable_types: BTreeSet<String>,
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
                names.node_affixes.extend(node.affixes.iter().cloned());
            }
            names.phases.extend(map.phases.iter().map(|phase| phase.name.clone()));
        }
        for board in &project.boards {
            names.board_vars.extend(board.vars.keys().cloned());
            names.column_vars.extend(board.column_vars.keys().cloned());
            names.cell_vars.extend(board.cell_vars.keys().cloned());
        }
        for unit in &project.units {
            names.unit_stats.extend(unit.stats.keys().cloned());
        }
        for skill in &project.skills {
            names.skill_params.extend(skill.params.keys().cloned());
            if let Some(reaction) = &skill.reaction {
                names.reaction_params.extend(reaction.params.keys().cloned());
            }
            let reaction_hits = skill.reaction.iter().flat_map(|reaction| reaction.hit_types.iter());
            for hit in skill.hit_types.iter().chain(reaction_hits) {
                for effect in &hit.stat_effects {
                    names.reactable_types.extend(effect.reactable_types.iter().cloned());
                }
            }
        }
        for equipment in &project.equipment {
            names.equip_params.extend(equipment.params.keys().cloned());
            names.equip_categories.extend(equipment.categories.iter().cloned());
            names.equip_slots.extend(equipment.slots.iter().cloned());
        }
        for map in &project.tile_maps {
            for entry in &map.palette {
                names.terrain_tags.extend(entry.terrain.tags.iter().cloned());
            }
        }
        names
    }

    /// A terrain name after `tile.` (`move_cost`, `defence`, `tag.NAME`, FORMAT.md §9).
    fn check_tile(&self, property: &str) -> NameCheck {
        match property {
            "move_cost" | "defence" => NameCheck::Known,
            _ => match property.strip_prefix("tag.") {
                Some(tag) if self.terrain_tags.contains(tag) => NameCheck::Known,
                Some(tag) => NameCheck::Unknown(format!(
                    "no palette entry has the terrain tag `{tag}` (tags: {})",
                    Self::known_list(&self.terrain_tags)
                )),
                None => NameCheck::Unknown(format!(
                    "`tile.{property}` is not a terrain property (write tile.move_cost, tile.defence or tile.tag.NAME)"
                )),
            },
        }
    }

    /// A unit's stat or pseudo-stat, the terrain under it included.
    fn check_unit_stat(&self, stat: &str) -> NameCheck {
        if let Some(property) = stat.strip_prefix("tile.") {
            return self.check_tile(property);
        }
        if self.unit_stats.contains(stat) || PSEUDO_STATS.contains(&stat) {
            NameCheck::Known
        } else {
            NameCheck::Unknown(format!(
                "no unit has the stat `{stat}` (units have: {})",
                Self::known_list(&self.unit_stats)
            ))
        }
    }

    /// An `equip(…)` search names categories, slots and a parameter some equipment has (else
    /// it never matches and reads NaN).
    fn check_equip(&self, search: &crate::formula::EquipSearch, name: &str) -> NameCheck {
        for (names, known, what) in
            [(&search.categories, &self.equip_categories, "category"), (&search.slots, &self.equip_slots, "slot")]
        {
            if let Some(missing) = names.iter().find(|name| !known.contains(*name)) {
                return NameCheck::Unknown(format!(
                    "no equipment has the {what} `{missing}` (equipment has: {})",
                    Self::known_list(known)
                ));
            }
        }
        if name.is_empty() || self.equip_params.contains(name) {
            NameCheck::Known
        } else {
            NameCheck::Unknown(format!(
                "no equipment has the parameter `{name}` (equipment has: {})",
                Self::known_list(&self.equip_params)
            ))
        }
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
        let unknown = |hint: String| NameCheck::Unknown(hint);
        let in_set = |set: &BTreeSet<String>, id: &str, what: &str| {
            if set.contains(id) {
                NameCheck::Known
            } else {
                unknown(format!("there is no {what} `{id}` (the project has: {})", Self::known_list(set)))
            }
        };
        match GameName::parse(name, |word| self.stats.contains(word)) {
            GameName::Stat(id) => in_set(&self.stats, id.as_str(), "stat"),
            GameName::Turn
            | GameName::EraTurn
            | GameName::DiceLast
            | GameName::Synthesis(..)
            | GameName::Campaign(_)
            | GameName::Cards(_)
            | GameName::TeamAlive(_)
            | GameName::BattleTick
            | GameName::BattleTurns => NameCheck::Known,
            GameName::CardCount(_, id) => in_set(&self.cards, id.as_str(), "card"),
            GameName::AspectCount(_, id) => in_set(&self.aspects, id.as_str(), "aspect"),
            GameName::CardProperty(id, property) => match in_set(&self.cards, id.as_str(), "card") {
                NameCheck::Known => in_set(&self.card_properties, &property, "card property"),
                other => other,
            },
            GameName::SelfProperty(property) => in_set(&self.card_properties, &property, "card property"),
            GameName::Era(id) => in_set(&self.eras, id.as_str(), "era"),
            GameName::CurrentNodeProperty(property) => in_set(&self.node_properties, &property, "node property"),
            GameName::CurrentNodeAffix(affix) => in_set(&self.node_affixes, &affix, "node affix"),
            GameName::Fight(_, property) => {
                if property == "life" {
                    NameCheck::Known
                } else {
                    in_set(&self.card_properties, &property, "card property")
                }
            }
            GameName::Node(id, NodeRead::Affix(affix)) => match in_set(&self.nodes, id.as_str(), "node") {
                NameCheck::Known => in_set(&self.node_affixes, &affix, "node affix"),
                other => other,
            },
            GameName::Node(id, NodeRead::Property(property)) => match in_set(&self.nodes, id.as_str(), "node") {
                NameCheck::Known => in_set(&self.node_properties, &property, "node property"),
                other => other,
            },
            GameName::Node(id, _) => in_set(&self.nodes, id.as_str(), "node"),
            GameName::Phase(name) => in_set(&self.phases, &name, "phase"),
            GameName::Board(board) => self.check_board(&board),
            GameName::UnitStat(id, stat) => match in_set(&self.units, &id, "unit") {
                NameCheck::Known => self.check_unit_stat(&stat),
                other => other,
            },
            GameName::Arg(_) => {
                if let Some(property) = name.strip_prefix("arg.tile.") {
                    self.check_tile(property)
                } else if ARG_NAMES.contains(&name) {
                    NameCheck::Known
                } else {
                    unknown(format!("skill arguments are {}", ARG_NAMES.join(", ")))
                }
            }
            GameName::Reaction(param) => {
                if param == "hitType" || self.reaction_params.contains(&param) {
                    NameCheck::Known
                } else {
                    unknown(format!(
                        "no skill's reaction has the parameter `{param}` (reactions have: {})",
                        Self::known_list(&self.reaction_params)
                    ))
                }
            }
            GameName::Unknown => unknown(
                "write a stat (`gdp` or `stat.gdp`), a count (`table.card.kitten`), `turn`, or a scoped name \
                 such as `c.hp` or `f.bonus` (see FORMAT.md, formulas)"
                    .to_owned(),
            ),
        }
    }

    /// A board name: its board exists (or is `own`/`facing`) and its part is one.
    fn check_board(&self, name: &BoardName) -> NameCheck {
        let board = |board: &BoardRef| match board {
            BoardRef::Own | BoardRef::Facing => NameCheck::Known,
            BoardRef::Id(id) if self.boards.contains(id) => NameCheck::Known,
            BoardRef::Id(id) => NameCheck::Unknown(format!(
                "there is no board `{id}` (the project has: {})",
                Self::known_list(&self.boards)
            )),
        };
        let then = |first: NameCheck, second: &dyn Fn() -> NameCheck| match first {
            NameCheck::Known => second(),
            other => other,
        };
        match name {
            BoardName::Option
            | BoardName::Roll
            | BoardName::DieValue
            | BoardName::Turn
            | BoardName::CellValue
            | BoardName::CellColumn
            | BoardName::CellRow
            | BoardName::CellFilled => NameCheck::Known,
            BoardName::CellVar(name) if self.cell_vars.contains(name) => NameCheck::Known,
            BoardName::CellVar(name) => NameCheck::Unknown(format!(
                "no board has the cell variable `{name}` (boards have: {})",
                Self::known_list(&self.cell_vars)
            )),
            BoardName::Column { part, .. } => self.check_board_part(part.as_ref()),
            BoardName::Score(at) | BoardName::Cell(at, _) => board(at),
            BoardName::Line(at, _, part) | BoardName::Whole(at, part) => {
                then(board(at), &|| self.check_board_part(part.as_ref()))
            }
        }
    }
}

impl ProjectNames {
    /// A board part after its board or line: a statistic or a variable.
    fn check_board_part(&self, part: Option<&BoardPart>) -> NameCheck {
        match part {
            Some(BoardPart::Stat(_)) => NameCheck::Known,
            Some(BoardPart::Var(name)) if self.board_vars.contains(name) || self.column_vars.contains(name) => {
                NameCheck::Known
            }
            Some(BoardPart::Var(name)) => NameCheck::Unknown(format!(
                "no board has the variable `{name}` (boards have: {})",
                Self::known_list(&self.board_vars.union(&self.column_vars).cloned().collect())
            )),
            None => NameCheck::Unknown(
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
            | Scope::TargetMounter => self.check_unit_stat(name),
            Scope::Skill => {
                if let Some(property) = name.strip_prefix("arg.tile.") {
                    return self.check_tile(property);
                }
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
            Scope::Equip(search) => self.check_equip(search, name),
            Scope::ReactedSkill => {
                let engine_set = ARG_NAMES.contains(&name) || name == "hitType";
                if self.skill_params.contains(name) || engine_set {
                    NameCheck::Known
                } else {
                    NameCheck::Unknown(format!(
                        "no skill has the parameter `{name}` (skills have: {})",
                        Self::known_list(&self.skill_params)
                    ))
                }
            }
            Scope::Effect(search) => {
                if let Some(stat) = search.stats.iter().find(|stat| !self.unit_stats.contains(*stat)) {
                    NameCheck::Unknown(format!(
                        "no unit has the stat `{stat}` (units have: {})",
                        Self::known_list(&self.unit_stats)
                    ))
                } else if let Some(kind) = search.categories.iter().find(|kind| !self.reactable_types.contains(*kind)) {
                    NameCheck::Unknown(format!(
                        "no effect has the reactable type `{kind}` (effects have: {})",
                        Self::known_list(&self.reactable_types)
                    ))
                } else {
                    NameCheck::Known
                }
            }
            // Items, statuses and effects come from the tactics engine at run time.
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
