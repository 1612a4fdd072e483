//! The battle's playtest lines and expectations (FORMAT.md §12).

use crate::map::standing_spots;
use crate::model::{Id, Skill};

use super::{COMPASS, TacticsState, compass_name};
use crate::engine::script::Line;
use crate::engine::{Choice, Session};

/// A number in a script line.
fn number<T: std::str::FromStr>(word: Option<&str>, what: &str) -> Result<T, String> {
    let word = word.ok_or_else(|| format!("give {what}"))?;
    word.parse().map_err(|_| format!("`{word}` is not a valid {what}"))
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
        let unit = Self::unit_arg(battle, words.next())?.to_owned();
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
            let facing = COMPASS
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(word))
                .map(|(_, degrees)| *degrees)
                .map_or_else(|| number::<u16>(Some(word), "direction (east, north, west, south)"), Ok)?;
            return Ok(Choice::FaceUnit { unit, facing });
        }
        let x: u16 = number(words.next(), "cell x")?;
        let y: u16 = number(words.next(), "cell y")?;
        let z: Option<u16> = words.next().map(|word| number(Some(word), "level")).transpose()?;
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

    /// `expect unit UNIT hp N` (any stat), `expect unit UNIT at X Y [Z]`, `expect unit UNIT
    /// defeated|standing`, `expect unit UNIT status NAME`, `expect unit UNIT facing DEGREES`,
    /// `expect turn UNIT|none`, `expect winner TEAM|none`.
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
                        if has.contains(name) {
                            Ok(String::new())
                        } else {
                            Err(format!("{key} has no status `{name}` (it has: {})", has.join(", ")))
                        }
                    }
                    "facing" => compare(format!("{key}'s facing"), shown(unit.facing), rest.join(" ")),
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
    /// The battle's playtest lines: `move`, `use`, `face` and `wait UNIT` make a choice.
    pub(crate) fn tactics_command(&self, command: &str, rest: &str) -> Option<Result<Line, String>> {
        let ours = matches!(command, "move" | "use" | "face")
            || (command == "wait" && rest.starts_with(|c: char| !c.is_ascii_digit()));
        ours.then(|| self.tactics_line(command, rest).map(Line::Choose))
    }

    /// A battle choice as the script line that makes it.
    pub(crate) fn describe_tactics_choice(choice: &Choice) -> String {
        match choice {
            Choice::MoveUnit { unit, x, y, z } => format!("move {unit} {x} {y} {z}"),
            Choice::UseSkill { unit, skill, x, y, z } => format!("use {unit} {skill} {x} {y} {z}"),
            Choice::WaitUnit { unit } => format!("wait {unit}"),
            Choice::FaceUnit { unit, facing } => format!("face {unit} {}", compass_name(*facing)),
            _ => String::new(),
        }
    }

    /// Why the battle refuses a choice.
    pub(crate) fn why_not_tactics(choice: &Choice) -> &'static str {
        match choice {
            Choice::MoveUnit { .. } => "that unit cannot move there now",
            Choice::UseSkill { .. } => "that unit cannot use that skill there now",
            _ => "it is not that unit's turn",
        }
    }

    /// The battle's expectations (`unit`, `turn`, `winner`), when a battle runs.
    pub(crate) fn expect_tactics(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        (self.tactics.is_some() && matches!(what, "unit" | "turn" | "winner")).then(|| self.tactics_expect(what, args))
    }
}
