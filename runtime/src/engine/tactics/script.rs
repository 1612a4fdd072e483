//! The battle's playtest lines and expectations (FORMAT.md §12).

use crate::engine::content::Content;
use crate::map::{Spot, spot_terrain, standing_spots};
use crate::model::{Id, Skill, StatusEffect};

use super::{COMPASS, FROZEN_STATUS, MAX_IDLE_TICKS, TacticsState, compass_name};
use crate::engine::explain::Reason;
use crate::engine::script::{Line, ScriptReport};
use crate::engine::{Choice, Event, Session};
use crate::number::{parse_finite, within_limits};

/// A number in a script line.
fn number<T: std::str::FromStr>(word: Option<&str>, what: &str) -> Result<T, String> {
    let word = word.ok_or_else(|| format!("give {what}"))?;
    word.parse().map_err(|_| format!("`{word}` is not a valid {what}"))
}

/// Every status a skill puts on or an item grants: skills in id order (hit types in order),
/// then equipment in id order, so set-up can name a status only equipment gives.
fn status_definitions(content: &Content) -> impl Iterator<Item = &StatusEffect> {
    let from_skills = content
        .project
        .skills
        .iter()
        .flat_map(|skill| skill.hit_types.iter())
        .flat_map(|hit| hit.status_effects.iter());
    from_skills.chain(content.project.equipment.iter().flat_map(|item| item.status_effects.iter()))
}

/// The first status named `name` (see [`status_definitions`] for the order).
fn status_definition<'c>(content: &'c Content, name: &str) -> Option<&'c StatusEffect> {
    status_definitions(content).find(|status| status.name == name)
}

/// Every status name a skill puts on or an item grants, sorted.
fn status_names(content: &Content) -> Vec<String> {
    let names: std::collections::BTreeSet<String> =
        status_definitions(content).map(|status| status.name.clone()).collect();
    names.into_iter().collect()
}

/// Names for a message: "a, b" or "nothing".
fn listed(names: &[&str]) -> String {
    if names.is_empty() { "nothing".to_owned() } else { names.join(", ") }
}

/// A value as scripts and queries print it: whole numbers without a fraction.
fn shown(value: f64) -> String {
    if value.is_finite() && value.fract() == 0.0 { format!("{value:.0}") } else { format!("{value}") }
}

impl Session {
    fn battle(&self) -> Result<&TacticsState, String> {
        self.tactics
            .as_ref()
            .ok_or_else(|| "this project sets up no battle (entry.tile_map with placements)".to_owned())
    }

    fn unit_arg<'s>(battle: &'s TacticsState, name: Option<&str>) -> Result<&'s str, String> {
        let name = name.ok_or("name a unit")?;
        battle.units.get_key_value(name).map(|(key, _)| key.as_str()).ok_or_else(|| {
            let known: Vec<&str> = battle.units.keys().map(String::as_str).collect();
            format!("no unit `{name}` in the battle (there are: {})", known.join(", "))
        })
    }

    /// The choice a tactics script line makes: `move UNIT X Y [Z]`, `use UNIT SKILL X Y [Z]`,
    /// `wait UNIT`. Without Z, the level the unit can use there (else the top of the cell).
    pub(crate) fn tactics_line(&self, command: &str, rest: &str) -> Result<Choice, String> {
        let battle = self.battle()?;
        let mut words = rest.split_whitespace();
        if command == "pass" {
            let team = words.next().ok_or("usage: pass TEAM (the team whose round it is ends it)")?;
            return Ok(Choice::EndRound { team: team.to_owned() });
        }
        let unit = Self::unit_arg(battle, words.next())?.to_owned();
        if command == "pick" {
            return Ok(Choice::PickUnit { unit });
        }
        let skill = if command == "use" {
            Some(Id::<Skill>::new(words.next().ok_or("usage: use UNIT SKILL X Y [Z]")?))
        } else {
            None
        };
        if command == "wait" {
            return Ok(Choice::WaitUnit { unit });
        }
        if command == "face" {
            let word = words.next().ok_or("usage: face UNIT east|north|west|south (or 0|90|180|270)")?;
            let diagonals = [("northeast", 45), ("northwest", 135), ("southwest", 225), ("southeast", 315)];
            let facing = COMPASS
                .iter()
                .chain(diagonals.iter())
                .find(|(name, _)| name.eq_ignore_ascii_case(word))
                .map(|(_, degrees)| *degrees)
                .map_or_else(|| number::<u16>(Some(word), "direction (east, north, west, south, or degrees)"), Ok)?;
            return Ok(Choice::FaceUnit { unit, facing });
        }
        let rest: Vec<&str> = words.collect();
        let mut groups = rest.split(|word| *word == "via");
        let mut words = groups.next().unwrap_or_default().iter().copied();
        let x: u16 = number(words.next(), "cell x")?;
        let y: u16 = number(words.next(), "cell y")?;
        let z: Option<u16> = words.next().map(|word| number(Some(word), "level")).transpose()?;
        if let Some(extra) = words.next() {
            return Err(format!(
                "`{extra}` is not expected after the level (usage: {command} UNIT X Y [Z] [via X Y [Z]]…)"
            ));
        }
        let via = groups.map(|group| Self::waypoint(battle, group)).collect::<Result<Vec<[u16; 3]>, String>>()?;
        if !via.is_empty() {
            if skill.is_some() {
                return Err("only a move goes through waypoints (`via`)".to_owned());
            }
            let z = match z {
                Some(z) => z,
                None => battle.top_spot(x, y).map_or(0, |spot| spot.level),
            };
            return Ok(Choice::MoveUnitVia { unit, via, x, y, z });
        }
        let make = |z: u16| match &skill {
            Some(skill) => Choice::UseSkill { unit: unit.clone(), skill: skill.clone(), x, y, z },
            None => Choice::MoveUnit { unit: unit.clone(), x, y, z },
        };
        if let Some(z) = z {
            return Ok(make(z));
        }
        let mut possible = Vec::new();
        self.tactics_choices(&mut possible);
        let found = standing_spots(battle.grid(), x, y)
            .into_iter()
            .rev()
            .map(|spot| make(spot.level))
            .find(|choice| possible.contains(choice));
        Ok(found.unwrap_or_else(|| make(battle.top_spot(x, y).map_or(0, |spot| spot.level))))
    }

    /// A waypoint of a `move … via X Y [Z]` line: without Z, the top standing spot of the cell.
    fn waypoint(battle: &TacticsState, words: &[&str]) -> Result<[u16; 3], String> {
        let usage = "usage: move UNIT X Y [Z] via X Y [Z] [via X Y [Z]]…";
        let (x, y, z) = match words {
            [x, y] => (*x, *y, None),
            [x, y, z] => (*x, *y, Some(*z)),
            _ => return Err(format!("a waypoint is X Y [Z] ({usage})")),
        };
        let x: u16 = number(Some(x), "cell x")?;
        let y: u16 = number(Some(y), "cell y")?;
        let z = match z {
            Some(z) => number(Some(z), "level")?,
            None => battle.top_spot(x, y).ok_or_else(|| format!("no unit can stand on ({x}, {y})"))?.level,
        };
        Ok([x, y, z])
    }

    /// The schedulers' expectations: `expect round TEAM|none`, `expect points N`, `expect ap
    /// N`, `expect charging UNIT SKILL [ticks N] | none`.
    fn round_expect<'w>(
        battle: &TacticsState,
        what: &str,
        mut words: impl Iterator<Item = &'w str>,
    ) -> Result<String, String> {
        let compare = |name: String, actual: String, expected: String| {
            if actual == expected { Ok(String::new()) } else { Err(format!("{name} is {actual}, expected {expected}")) }
        };
        match what {
            "round" => {
                let want = words.next().ok_or("usage: expect round TEAM|none")?;
                let actual = battle.round.as_ref().map_or("none", |round| round.team.as_str());
                compare("the round".to_owned(), actual.to_owned(), want.to_owned())
            }
            "points" => {
                let want = words.next().ok_or("usage: expect points N")?;
                let round = battle.round.as_ref().ok_or("no round is under way (a team-round scheduler has them)")?;
                compare(format!("{}'s points left", round.team), round.points.to_string(), want.to_owned())
            }
            "ap" => {
                let want: f64 = number(words.next(), "number of action points")?;
                let actual =
                    battle.action_points.ok_or("no unit has action points now (the points scheduler gives them)")?;
                compare("the active unit's action points".to_owned(), shown(actual), shown(want))
            }
            "charging" => {
                let first = words.next().ok_or("usage: expect charging UNIT SKILL [ticks N] | none")?;
                if first == "none" {
                    let all: Vec<String> =
                        battle.charging.iter().map(|charge| format!("{} {}", charge.unit, charge.skill)).collect();
                    return compare("the charged skills".to_owned(), all.join(", "), String::new())
                        .map_err(|_| format!("skills are charging: {}", all.join(", ")));
                }
                let skill = words.next().ok_or("usage: expect charging UNIT SKILL [ticks N] | none")?;
                let charge = battle
                    .charging
                    .iter()
                    .find(|charge| charge.unit == first && charge.skill.as_str() == skill)
                    .ok_or_else(|| format!("{first} is not charging {skill}"))?;
                match (words.next(), words.next()) {
                    (None, _) => Ok(String::new()),
                    (Some("ticks"), Some(want)) => {
                        compare(format!("{first}'s {skill} delay left"), shown(charge.remaining), want.to_owned())
                    }
                    _ => Err("usage: expect charging UNIT SKILL [ticks N] | none".to_owned()),
                }
            }
            _ => Err(format!("`{what}` is not a scheduler expectation")),
        }
    }

    /// `expect unit UNIT hp N` (any stat), `expect unit UNIT at X Y [Z]`, `expect unit UNIT
    /// defeated|standing`, `expect unit UNIT status NAME`, `expect unit UNIT facing DEGREES`,
    /// `expect turn UNIT|none`, `expect winner TEAM|none`.
    #[allow(clippy::too_many_lines)] // one arm per expectation, each a few lines
    pub(crate) fn tactics_expect(&self, what: &str, args: &str) -> Result<String, String> {
        let battle = self.battle()?;
        let mut words = args.split_whitespace();
        let compare = |name: String, actual: String, expected: String| {
            if actual == expected { Ok(String::new()) } else { Err(format!("{name} is {actual}, expected {expected}")) }
        };
        match what {
            "turn" => {
                let want = words.next().ok_or("usage: expect turn UNIT|none")?;
                compare("the turn".to_owned(), battle.active_unit().unwrap_or("none").to_owned(), want.to_owned())
            }
            "winner" => {
                let want = words.next().ok_or("usage: expect winner TEAM|none")?;
                compare("the winner".to_owned(), battle.winner().unwrap_or("none").to_owned(), want.to_owned())
            }
            "round" | "points" | "ap" | "charging" => Self::round_expect(battle, what, words),
            _ => {
                let key = Self::unit_arg(battle, words.next())?;
                let unit = battle.unit(key).ok_or("no such unit")?;
                let property = words.next().ok_or("usage: expect unit UNIT STAT N | at X Y [Z] | defeated | …")?;
                let rest: Vec<&str> = words.collect();
                match property {
                    "at" => {
                        let spot = unit.spot;
                        let actual = if rest.len() >= 3 {
                            format!("{} {} {}", spot.cell_x, spot.cell_y, spot.level)
                        } else {
                            format!("{} {}", spot.cell_x, spot.cell_y)
                        };
                        compare(format!("{key}'s place"), actual, rest.join(" "))
                    }
                    "defeated" | "standing" => compare(
                        key.to_owned(),
                        if unit.defeated { "defeated" } else { "standing" }.to_owned(),
                        property.to_owned(),
                    ),
                    "status" => {
                        let name = rest.first().ok_or("name a status")?;
                        let has: Vec<&str> = unit.statuses.iter().map(|status| status.name.as_str()).collect();
                        let held: Vec<&super::ActiveStatus> =
                            unit.statuses.iter().filter(|status| status.name == *name).collect();
                        match rest.get(1..).unwrap_or_default() {
                            [] if held.is_empty() => {
                                Err(format!("{key} has no status `{name}` (it has: {})", has.join(", ")))
                            }
                            [] => Ok(String::new()),
                            ["none"] => {
                                compare(format!("{key}'s `{name}` statuses"), held.len().to_string(), "0".into())
                            }
                            ["stacks", count] => compare(
                                format!("{key}'s `{name}` statuses"),
                                held.len().to_string(),
                                (*count).to_owned(),
                            ),
                            ["ticks", ticks] => {
                                let newest = held.last().ok_or_else(|| format!("{key} has no status `{name}`"))?;
                                let left = if newest.definition.unremovable {
                                    "unremovable".to_owned()
                                } else {
                                    shown(newest.remaining)
                                };
                                compare(format!("{key}'s `{name}` ticks left"), left, (*ticks).to_owned())
                            }
                            _ => Err(format!(
                                "usage: expect unit {key} status {name} [none | stacks N | ticks N|unremovable]"
                            )),
                        }
                    }
                    "equip" => {
                        let item = rest.first().ok_or("name an equipment item")?;
                        let worn: Vec<&str> = unit.equipment.iter().map(Id::as_str).collect();
                        let wields = worn.contains(item);
                        match rest.get(1..).unwrap_or_default() {
                            [] if wields => Ok(String::new()),
                            [] => Err(format!("{key} does not wield `{item}` (it wields: {})", listed(&worn))),
                            ["none"] if wields => Err(format!("{key} wields `{item}`, expected none")),
                            ["none"] => Ok(String::new()),
                            _ => Err(format!("usage: expect unit {key} equip {item} [none]")),
                        }
                    }
                    "facing" => compare(format!("{key}'s facing"), shown(unit.facing), rest.join(" ")),
                    "skills" => {
                        // The skills it can use, grouped and sorted, replaced ones left out.
                        let usable: Vec<String> =
                            super::skills::unit_skills(&self.content, &battle.skill_ids(&self.content, key))
                                .into_iter()
                                .filter(|(_, _, by)| by.is_none())
                                .map(|(_, skill, _)| skill.id.to_string())
                                .collect();
                        compare(format!("{key}'s skills"), usable.join(" "), rest.join(" "))
                    }
                    stat => {
                        let expected: f64 = number(rest.first().copied(), "number")?;
                        let actual = battle.stat(key, stat).ok_or_else(|| format!("{key} has no stat `{stat}`"))?;
                        if (actual - expected).abs() < 1e-9 {
                            Ok(String::new())
                        } else {
                            Err(format!("{key}'s {stat} is {}, expected {}", shown(actual), shown(expected)))
                        }
                    }
                }
            }
        }
    }
}

impl Session {
    /// The battle's playtest lines: `move`, `use`, `face` and `wait UNIT` make a choice; the
    /// set-up lines `set unit UNIT STAT VALUE` and `place unit UNIT X Y [Z]` change the battle
    /// outside the rules.
    pub(crate) fn tactics_command(
        &mut self,
        command: &str,
        rest: &str,
        report: &mut ScriptReport,
    ) -> Option<Result<Line, String>> {
        let mut words = rest.split_whitespace();
        if command == "set" && self.tactics.is_some() && rest.split_whitespace().next() == Some("terrain") {
            return Some(self.set_terrain_line(rest).map(|()| Line::Done(String::new())));
        }
        if command == "set" && self.tactics.is_some() && matches!(rest.split_whitespace().next(), Some("points" | "ap"))
        {
            return Some(self.set_points_line(rest).map(|()| Line::Done(String::new())));
        }
        if matches!(command, "set" | "place") && words.next() == Some("unit") {
            let words: Vec<&str> = words.collect();
            let done = if command == "set" { self.set_unit_line(&words, report) } else { self.place_unit_line(&words) };
            return Some(done.map(|()| Line::Done(String::new())));
        }
        let ours = matches!(command, "move" | "use" | "face" | "pick" | "pass")
            || (command == "wait" && rest.starts_with(|c: char| !c.is_ascii_digit()));
        ours.then(|| self.tactics_line(command, rest).map(Line::Choose))
    }

    /// The battle for a set-up line, with the unit it names (standing: a defeated unit is out
    /// of the battle).
    fn set_up_unit<'s>(&'s mut self, name: &str) -> Result<(&'s mut TacticsState, String), String> {
        let battle = self.battle_mut().ok_or("this project sets up no battle (entry.tile_map with placements)")?;
        if battle.winner.is_some() {
            return Err("the battle has ended".to_owned());
        }
        let key = Self::unit_arg(battle, Some(name))?.to_owned();
        if battle.units.get(&key).is_some_and(|unit| unit.defeated) {
            return Err(format!("{key} is defeated (out of the battle)"));
        }
        Ok((battle, key))
    }

    /// Set-up: `set unit UNIT STAT VALUE` stores VALUE in one of the unit's stats (its base
    /// value; statuses still change what it reads as). Refused for an unknown unit or stat, a
    /// value that is not a finite number or one outside the stat's limits; an `hp` of 0 or
    /// less defeats the unit as a hit would.
    fn set_unit_line(&mut self, words: &[&str], report: &mut ScriptReport) -> Result<(), String> {
        if words.get(1) == Some(&"status") {
            return self.set_status_line(words, report);
        }
        if words.get(1) == Some(&"equip") {
            return self.set_equip_line(words, report);
        }
        let [name, stat, value] = words else {
            return Err(
                "usage: set unit UNIT STAT VALUE, set unit UNIT status NAME [TICKS|off] or set unit UNIT equip ITEM [off]"
                    .to_owned(),
            );
        };
        let value = parse_finite(value)?;
        let content = std::sync::Arc::clone(&self.content);
        let mut rng = self.rng.clone();
        let (battle, key) = self.set_up_unit(name)?;
        let unit = battle.units.get(&key).ok_or("no such unit")?;
        if !unit.stats.contains_key(stat) {
            if stat.starts_with("position.") {
                return Err(format!("`{stat}` is where the unit stands: use `place unit {key} X Y [Z]`"));
            }
            let known: Vec<&str> = unit.stats.keys().map(String::as_str).collect();
            return Err(format!("{key} has no stat `{stat}` (it has: {})", known.join(", ")));
        }
        let (min, max) = battle.limits(&key, stat).unwrap_or_default();
        within_limits(&format!("{key}'s {stat}"), value, min, max)?;
        battle.store_stat(&key, stat, value);
        // A unit at 0 hp is out of the battle, however it got there; that may end the battle,
        // or end its turn, and then the next unit's turn comes as after any step.
        let mut events = Vec::new();
        battle.check_defeats(&mut events);
        battle.check_end(&content, &mut rng, &mut events);
        battle.schedule(&content, &mut rng, MAX_IDLE_TICKS, &mut events);
        self.rng = rng;
        self.record(events, report);
        Ok(())
    }

    /// Set-up: `set unit UNIT status NAME [TICKS]` puts the status NAME on the unit as the
    /// first skill that applies it defines it (its stacking rule included), for TICKS ticks of
    /// its clock (without TICKS, its duration when that is a number); `set unit UNIT status
    /// NAME off` takes every status of that name off it (unremovable ones too: set-up is
    /// outside the rules).
    fn set_status_line(&mut self, words: &[&str], report: &mut ScriptReport) -> Result<(), String> {
        let usage = "usage: set unit UNIT status NAME [TICKS|off]";
        let (name, status, ticks) = match words {
            [name, _, status] => (*name, *status, None),
            [name, _, status, ticks] => (*name, *status, Some(*ticks)),
            _ => return Err(usage.to_owned()),
        };
        let content = std::sync::Arc::clone(&self.content);
        let mut rng = self.rng.clone();
        let (battle, key) = self.set_up_unit(name)?;
        let mut events = Vec::new();
        if ticks == Some("off") {
            let unit = battle.units.get_mut(&key).ok_or("no such unit")?;
            let before = unit.statuses.len();
            unit.statuses.retain(|held| held.name != status);
            if unit.statuses.len() == before {
                return Err(format!("{key} has no status `{status}`"));
            }
            events.push(Event::UnitStatusExpired { unit: key.clone(), status: status.to_owned() });
        } else {
            let definition = status_definition(&content, status).ok_or_else(|| {
                let known = status_names(&content);
                format!("no skill or item puts on a status `{status}` (statuses: {})", known.join(", "))
            })?;
            let ticks = match ticks {
                Some(word) => parse_finite(word)?,
                None => definition.duration_ticks.as_int().map(|value| value as f64).ok_or_else(|| {
                    format!(
                        "the duration of `{status}` is the formula `{}`: give the ticks, `{usage}`",
                        definition.duration_ticks.text()
                    )
                })?,
            };
            if ticks < 1.0 && !definition.unremovable {
                return Err(format!("a status lasts at least 1 tick (given {})", shown(ticks)));
            }
            let interval = battle.live_value(&key, &definition.tick_interval, 0);
            if !battle.add_status(&key, definition, ticks.floor(), interval, None, &mut events) {
                return Err(format!(
                    "{key} has a status `{status}` that this one cannot replace (unremovable or of a higher priority)"
                ));
            }
        }
        battle.check_defeats(&mut events);
        battle.check_end(&content, &mut rng, &mut events);
        battle.schedule(&content, &mut rng, MAX_IDLE_TICKS, &mut events);
        self.rng = rng;
        self.record(events, report);
        Ok(())
    }

    /// Set-up: `set points N` gives the team whose round it is N activations left (points
    /// scheduler); `set ap N` gives the active unit N action points.
    /// Set-up: `set terrain X Y Z PAINT` paints the top of the tile the spot (X, Y, Z) stands
    /// on with PAINT (`ENTRY` or `ENTRY#TILE` of the map's palette; `none` unpaints it): its
    /// terrain (move cost, defence, tags) is that entry's from then on.
    fn set_terrain_line(&mut self, rest: &str) -> Result<(), String> {
        let usage = "usage: set terrain X Y Z ENTRY[#TILE] (or none)";
        let words: Vec<&str> = rest.split_whitespace().collect();
        let ["terrain", x, y, z, paint] = words.as_slice() else { return Err(usage.to_owned()) };
        let (x, y, z): (u16, u16, u16) =
            (number(Some(x), "cell x")?, number(Some(y), "cell y")?, number(Some(z), "level")?);
        let content = std::sync::Arc::clone(&self.content);
        let battle = self.battle_mut().ok_or("this project sets up no battle (entry.tile_map with placements)")?;
        let paint = if *paint == "none" {
            None
        } else {
            let parsed: crate::model::Paint = paint.parse().map_err(|error| format!("`{paint}`: {error}"))?;
            let map = content.project.tile_maps.get(battle.map().as_str());
            let palette = map.map_or(&[][..], |map| map.palette.as_slice());
            if !palette.iter().any(|entry| entry.id == parsed.entry) {
                let known: Vec<&str> = palette.iter().map(|entry| entry.id.as_str()).collect();
                return Err(format!(
                    "the map's palette has no entry `{}` (it has: {})",
                    parsed.entry.as_str(),
                    if known.is_empty() { "none".to_owned() } else { known.join(", ") }
                ));
            }
            Some(parsed)
        };
        battle.repaint_top(Spot::new(x, y, z), paint)
    }

    fn set_points_line(&mut self, rest: &str) -> Result<(), String> {
        let battle = self.battle_mut().ok_or("this project sets up no battle (entry.tile_map with placements)")?;
        match rest.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["points", count] => {
                let count: u32 = number(Some(count), "number of points (a whole number)")?;
                if battle.setup.scheduler.kind != crate::model::SchedulerKind::TeamPoints {
                    return Err("only the points scheduler (`scheduler: (kind: TeamPoints)`) has points".to_owned());
                }
                let round = battle.round.as_mut().ok_or("no round is under way")?;
                round.points = count;
                round.ended = false;
                Ok(())
            }
            ["ap", value] => {
                let value = parse_finite(value)?;
                if battle.action_points.is_none() {
                    return Err(
                        "no unit has action points now (the points scheduler gives them to a picked unit)".to_owned()
                    );
                }
                battle.action_points = Some(value);
                Ok(())
            }
            _ => Err("usage: set points N or set ap N".to_owned()),
        }
    }

    /// Set-up: `set unit UNIT equip ITEM` puts the equipment ITEM on the unit (its statuses
    /// with it) when the unit has the slots it takes free; `set unit UNIT equip ITEM off` takes
    /// it off (with the statuses it put on).
    fn set_equip_line(&mut self, words: &[&str], report: &mut ScriptReport) -> Result<(), String> {
        let usage = "usage: set unit UNIT equip ITEM [off]";
        let (name, item, off) = match words {
            [name, _, item] => (*name, *item, false),
            [name, _, item, "off"] => (*name, *item, true),
            _ => return Err(usage.to_owned()),
        };
        let content = std::sync::Arc::clone(&self.content);
        let mut rng = self.rng.clone();
        let (battle, key) = self.set_up_unit(name)?;
        let mut events = Vec::new();
        if off {
            if !battle.unwield(&key, item) {
                let worn: Vec<&str> = battle
                    .units
                    .get(&key)
                    .map(|unit| unit.equipment.iter().map(Id::as_str).collect())
                    .unwrap_or_default();
                return Err(format!("{key} does not wield `{item}` (it wields: {})", listed(&worn)));
            }
        } else {
            let equipment = content.equipment(item).ok_or_else(|| {
                let known: Vec<&str> = content.project.equipment.ids().map(Id::as_str).collect();
                format!("there is no equipment `{item}` (the project has: {})", listed(&known))
            })?;
            let free = battle.free_slots(&key);
            let mut needs: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
            for slot in &equipment.slots {
                let counted = needs.entry(slot.as_str()).or_insert(0);
                *counted = counted.saturating_add(1);
            }
            for (slot, count) in needs {
                let left = free.get(slot).copied().unwrap_or(0);
                if left < count {
                    return Err(format!("`{item}` takes {count} `{slot}` slot(s) and {key} has {left} free"));
                }
            }
            battle.wield(&key, equipment, &mut events);
        }
        battle.check_defeats(&mut events);
        battle.check_end(&content, &mut rng, &mut events);
        battle.schedule(&content, &mut rng, MAX_IDLE_TICKS, &mut events);
        self.rng = rng;
        self.record(events, report);
        Ok(())
    }

    /// Set-up: `place unit UNIT X Y [Z]` puts the unit on a standing spot of the battle's map
    /// (without Z, the top one of the cell), facing as it did; its rider goes with it and, if
    /// it rode, it gets off. Refused off the map, where no unit can stand, and where another
    /// unit stands.
    fn place_unit_line(&mut self, words: &[&str]) -> Result<(), String> {
        let usage = "usage: place unit UNIT X Y [Z]";
        let (name, x, y, z) = match words {
            [name, x, y] => (*name, *x, *y, None),
            [name, x, y, z] => (*name, *x, *y, Some(*z)),
            _ => return Err(usage.to_owned()),
        };
        let (battle, key) = self.set_up_unit(name)?;
        let x: u16 = number(Some(x), "cell x")?;
        let y: u16 = number(Some(y), "cell y")?;
        let grid = battle.grid();
        if !grid.contains(i32::from(x), i32::from(y)) {
            return Err(format!(
                "({x}, {y}) is off the map: {} is {} cells wide and {} deep (x 0..{}, y 0..{})",
                battle.map(),
                grid.width(),
                grid.depth(),
                grid.width().saturating_sub(1),
                grid.depth().saturating_sub(1)
            ));
        }
        let spots = standing_spots(grid, x, y);
        let levels: Vec<String> = spots.iter().map(|spot| spot.level.to_string()).collect();
        let spot = match z {
            None => spots.last().copied().ok_or_else(|| format!("no unit can stand on ({x}, {y}): it has no tiles"))?,
            Some(z) => {
                let z: u16 = number(Some(z), "level")?;
                spots.iter().find(|spot| spot.level == z).copied().ok_or_else(|| {
                    format!("no unit can stand at level {z} of ({x}, {y}) (its standing levels: {})", levels.join(", "))
                })?
            }
        };
        let rider = battle.rider_of(&key).map(str::to_owned);
        if let Some(other) = battle.unit_at(spot).filter(|other| *other != key && Some(*other) != rider.as_deref()) {
            return Err(format!("{other} stands at ({}, {}, {})", spot.cell_x, spot.cell_y, spot.level));
        }
        if let Some(unit) = battle.units.get_mut(&key) {
            unit.mount = None;
        }
        battle.place_unit(&key, spot);
        Ok(())
    }

    /// A battle choice as the script line that makes it.
    pub(crate) fn describe_tactics_choice(choice: &Choice) -> String {
        match choice {
            Choice::MoveUnit { unit, x, y, z } => format!("move {unit} {x} {y} {z}"),
            Choice::MoveUnitVia { unit, via, x, y, z } => {
                let via: Vec<String> = via.iter().map(|[x, y, z]| format!(" via {x} {y} {z}")).collect();
                let via = via.concat();
                format!("move {unit} {x} {y} {z}{via}")
            }
            Choice::UseSkill { unit, skill, x, y, z } => format!("use {unit} {skill} {x} {y} {z}"),
            Choice::WaitUnit { unit } => format!("wait {unit}"),
            Choice::FaceUnit { unit, facing } => format!("face {unit} {}", compass_name(*facing)),
            Choice::PickUnit { unit } => format!("pick {unit}"),
            Choice::EndRound { team } => format!("pass {team}"),
            _ => String::new(),
        }
    }

    /// Why the battle refuses a choice.
    pub(crate) fn why_not_tactics(&self, choice: &Choice) -> String {
        let battle = self.tactics.as_ref();
        match choice {
            Choice::MoveUnit { .. } | Choice::MoveUnitVia { .. } => "that unit cannot move there now".to_owned(),
            Choice::UseSkill { .. } => "that unit cannot use that skill there now".to_owned(),
            Choice::PickUnit { unit } => battle
                .and_then(|battle| battle.pick_refusal(unit))
                .unwrap_or_else(|| "the team whose round it is cannot pick that unit now".to_owned()),
            Choice::EndRound { team } => battle
                .and_then(|battle| battle.clone().end_round(team).err())
                .unwrap_or_else(|| "it is not that team's round".to_owned()),
            _ => "it is not that unit's turn".to_owned(),
        }
    }

    /// The battle's expectations (`unit`, `turn`, `winner`), when a battle runs.
    pub(crate) fn expect_tactics(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        (self.tactics.is_some() && matches!(what, "unit" | "turn" | "winner" | "round" | "points" | "ap" | "charging"))
            .then(|| self.tactics_expect(what, args))
    }
}

impl Session {
    /// Why `unit` cannot use `skill` now (at `at`, or anywhere): no battle, not its turn, it
    /// acted already, it has no such action skill, or no spot in range (passing the region's
    /// test) to aim at.
    pub(crate) fn explain_skill(
        &self,
        unit: &str,
        skill: &str,
        at: Option<(u16, u16, u16)>,
    ) -> Result<Vec<Reason>, String> {
        let item = format!("skill `{skill}` of {unit}");
        let Some(battle) = &self.tactics else { return Ok(vec![Reason::new(item, "the project sets up no battle")]) };
        let definition = self.content.skill(skill).ok_or_else(|| format!("there is no skill `{skill}`"))?;
        if let Some(why) = Self::turn_refusal(battle, unit, |turn| turn.acted, "already used a skill this turn")? {
            return Ok(vec![Reason::new(item, why)]);
        }
        let known = battle.action_skills(&self.content, unit).into_iter().any(|known| known.id.as_str() == skill);
        if !known {
            let replaced = super::skills::unit_skills(&self.content, &battle.skill_ids(&self.content, unit))
                .into_iter()
                .find(|(_, listed, _)| listed.id.as_str() == skill)
                .and_then(|(_, _, by)| by);
            if let Some(by) = replaced {
                return Ok(vec![Reason::new(
                    item,
                    format!(
                        "`{skill}` is replaced by {unit}'s `{}` (replaces `{}`, priority {})",
                        by.id, by.replaces, by.replacement_priority
                    ),
                )]);
            }
            let has = battle.skill_ids(&self.content, unit).iter().any(|id| id.as_str() == skill);
            let why = if has && super::regions::is_passive(definition) {
                format!("`{skill}` is passive (a reaction or passive effects only): {unit} never uses it as a choice")
            } else if let Some(equipment) =
                self.content.project.equipment.iter().find(|item| item.skills.iter().any(|id| id.as_str() == skill))
            {
                format!(
                    "{unit} has no action skill `{skill}`: it comes with `{}`, which {unit} does not wield",
                    equipment.id
                )
            } else {
                format!("{unit} has no action skill `{skill}`")
            };
            return Ok(vec![Reason::new(item, why)]);
        }
        let mut rng = self.rng.clone();
        let spots = battle.target_spots(&self.content, &mut rng, unit, definition);
        let at = at.map(|(x, y, z)| Spot::new(x, y, z));
        if at.map_or(!spots.is_empty(), |at| spots.contains(&at)) {
            return Ok(Vec::new());
        }
        // Without the region's per-tile test: whether range or that test keeps the spots out.
        let mut open = definition.clone();
        let test = open.target_region.predicate.take();
        let in_range = battle.target_spots(&self.content, &mut rng, unit, &open);
        let where_words = at.map_or_else(
            || "no target in range".to_owned(),
            |spot| format!("({}, {}, {}) is not a target in range", spot.cell_x, spot.cell_y, spot.level),
        );
        let text = match (test, at) {
            (Some(test), Some(spot)) if in_range.contains(&spot) => {
                format!("({}, {}, {}) fails its target test `{}`", spot.cell_x, spot.cell_y, spot.level, test.text())
            }
            (Some(test), None) if !in_range.is_empty() => {
                format!("no spot in range passes its target test `{}` ({} in range)", test.text(), in_range.len())
            }
            _ => where_words,
        };
        Ok(vec![Reason::new(item, Self::with_statuses(battle, unit, text))])
    }

    /// Why the team whose round it is cannot pick `unit` now (team-round schedulers).
    pub(crate) fn explain_pick(&self, unit: &str) -> Result<Vec<Reason>, String> {
        let item = format!("pick of {unit}");
        let Some(battle) = &self.tactics else { return Ok(vec![Reason::new(item, "the project sets up no battle")]) };
        if battle.unit(unit).is_none() {
            return Err(format!("there is no unit `{unit}` in the battle"));
        }
        Ok(battle.pick_refusal(unit).map(|why| Reason::new(item, why)).into_iter().collect())
    }

    /// Why `unit` cannot walk to `at` now.
    pub(crate) fn explain_move(
        &self,
        unit: &str,
        (x, y, z): (u16, u16, u16),
        via: &[(u16, u16, u16)],
    ) -> Result<Vec<Reason>, String> {
        let through: Vec<String> = via.iter().map(|(x, y, z)| format!(" via ({x}, {y}, {z})")).collect();
        let item = format!("move of {unit} to ({x}, {y}, {z}){}", through.concat());
        let Some(battle) = &self.tactics else { return Ok(vec![Reason::new(item, "the project sets up no battle")]) };
        let moved = |turn: &super::Turn| turn.moved && battle.action_points.is_none();
        if let Some(why) = Self::turn_refusal(battle, unit, moved, "already moved this turn")? {
            return Ok(vec![Reason::new(item, why)]);
        }
        let mut rng = self.rng.clone();
        if !via.is_empty() {
            // The same route search `move … via` runs: its refusal names the leg that fails.
            let via: Vec<Spot> = via.iter().map(|&(x, y, z)| Spot::new(x, y, z)).collect();
            return Ok(match battle.waypoint_route(&self.content, &mut rng, unit, &via, Spot::new(x, y, z)) {
                Ok(_) => Vec::new(),
                Err(why) => vec![Reason::new(item, Self::with_statuses(battle, unit, why))],
            });
        }
        let spots = battle.reachable(&self.content, &mut rng, unit, &self.tactics_memo);
        if spots.contains_key(&Spot::new(x, y, z)) {
            return Ok(Vec::new());
        }
        let mut text = format!("{unit} cannot reach it ({} spots in reach)", spots.len());
        text.push_str(&self.terrain_note(battle, unit, Spot::new(x, y, z)));
        if let Some(points) = battle.action_points {
            let walkable = battle.move_spots(&self.content, &mut rng, unit, &super::TacticsMemo::default());
            if walkable.contains_key(&Spot::new(x, y, z)) {
                text = format!(
                    "{unit} has {} action points left, {} a cell: not enough to walk there",
                    shown(points),
                    shown(battle.move_points(unit))
                );
            }
        }
        Ok(vec![Reason::new(item, Self::with_statuses(battle, unit, text))])
    }

    /// What terrain has to do with a refused move to `at` (FORMAT.md §9 "Terrain"): a tag the
    /// unit's move skills refuse there, else the move costs of the map's palette; empty when
    /// the map has no terrain.
    fn terrain_note(&self, battle: &TacticsState, unit: &str, at: Spot) -> String {
        let Some(terrain) = spot_terrain(battle.grid(), at) else { return String::new() };
        let refusing: Vec<String> = battle
            .move_skills(&self.content, unit)
            .into_iter()
            .flat_map(|(_, skill)| {
                let refused = terrain.tags.iter().filter(|tag| skill.target_region.no_enter_tags.contains(tag));
                refused.map(|tag| format!("`{tag}` ({})", skill.id)).collect::<Vec<_>>()
            })
            .collect();
        if !refusing.is_empty() {
            return format!("; its terrain is refused by the move skill: {}", refusing.join(", "));
        }
        let Some(map) = self.content.project.tile_maps.get(battle.setup.map.as_str()) else { return String::new() };
        let costs: Vec<String> = map
            .palette
            .iter()
            .filter(|entry| entry.terrain.move_cost != 1)
            .map(|entry| format!("{} {}", entry.label, entry.terrain.move_cost))
            .collect();
        if costs.is_empty() {
            String::new()
        } else {
            format!("; walks spend terrain move costs here ({})", costs.join(", "))
        }
    }

    /// A reason that depends on the unit's stats, with the statuses that change them now.
    fn with_statuses(battle: &TacticsState, unit: &str, text: String) -> String {
        let notes = battle.status_notes(unit);
        if notes.is_empty() { text } else { format!("{text}; its statuses: {}", notes.join("; ")) }
    }

    /// Why it is not `unit`'s time to act: the battle over, another unit's turn, or `done`.
    fn turn_refusal(
        battle: &TacticsState,
        unit: &str,
        done: impl Fn(&super::Turn) -> bool,
        done_words: &str,
    ) -> Result<Option<String>, String> {
        let state = battle.units.get(unit).ok_or_else(|| format!("there is no unit `{unit}` in the battle"))?;
        Ok(if let Some(winner) = &battle.winner {
            Some(format!("the battle has ended ({winner} won)"))
        } else if state.defeated {
            Some(format!("{unit} is defeated"))
        } else {
            match &battle.active {
                None if battle.round.is_some() => Some(battle.nobody_words()),
                None => Some("it is nobody's turn (time passes)".to_owned()),
                Some(turn) if turn.unit != unit && state.statuses.iter().any(|held| held.name == FROZEN_STATUS) => {
                    Some(format!("it is {}'s turn, and {unit} is `{FROZEN_STATUS}`: its CT does not grow", turn.unit))
                }
                Some(turn) if turn.unit != unit => Some(format!("it is {}'s turn", turn.unit)),
                Some(turn) if done(turn) => Some(format!("{unit} {done_words}")),
                Some(_) => None,
            }
        })
    }
}
