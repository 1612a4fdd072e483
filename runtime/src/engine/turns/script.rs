//! The turns system's playtest lines and expectations (FORMAT.md §13).

use crate::model::{Id, StatValue};
use crate::number::{parse_finite, within_limits};

use super::env::TurnsEnv;
use super::option_word;
use crate::engine::explain::Reason;
use crate::engine::script::Line;
use crate::engine::{Choice, Session};

impl Session {
    /// A turn choice as the script line that makes it.
    pub(crate) fn describe_turn_choice(&self, choice: &Choice) -> String {
        match choice {
            Choice::PlayOption { card, option } => {
                let label = self
                    .content
                    .project
                    .cards
                    .get(card.as_str())
                    .and_then(|card| card.options.get(*option))
                    .map_or_else(String::new, |offered| offered.label.clone());
                format!("play {card} {}", option_word(&label, *option))
            }
            _ => "end-turn".to_owned(),
        }
    }

    /// A script's `play CARD OPTION` (OPTION: the option's label as a slug, or its number from 1).
    pub(crate) fn play_choice(&self, args: &str) -> Result<Choice, String> {
        let mut words = args.split_whitespace();
        let (Some(card), Some(option)) = (words.next(), words.next()) else {
            return Err("usage: play CARD OPTION".to_owned());
        };
        let Some(turns) = &self.turns else { return Err("the project has no turn config".to_owned()) };
        let possible = || {
            let legal: Vec<String> = self.choices().iter().map(|choice| self.describe_choice(choice)).collect();
            legal.join(", ")
        };
        if !turns.hand.iter().any(|held| held.as_str() == card) {
            return Err(format!("`{card}` is not in the hand; possible now: {}", possible()));
        }
        let options = self.content.project.cards.get(card).map(|card| card.options.as_slice()).unwrap_or_default();
        let index = options.iter().enumerate().position(|(index, offered)| {
            option_word(&offered.label, index) == option || index.saturating_add(1).to_string() == option
        });
        let Some(index) = index else {
            let words: Vec<String> =
                options.iter().enumerate().map(|(index, offered)| option_word(&offered.label, index)).collect();
            return Err(format!("`{card}` has no option `{option}` (it has: {})", words.join(", ")));
        };
        Ok(Choice::PlayOption { card: Id::new(card), option: index })
    }

    /// Why a turn choice is refused.
    pub(crate) fn why_not_turn(&self, choice: &Choice) -> &'static str {
        match (choice, &self.turns) {
            (_, None) => "the project has no turn config",
            (Choice::PlayOption { .. }, Some(_)) => "that option is not offered now (its condition does not hold)",
            _ => "the turn cannot end now",
        }
    }

    /// A script's turn expectations: `stat NAME N`, `turn N`, `message "…"`, `warning "…"`,
    /// `hand CARD…`.
    pub(crate) fn expect_turn(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        let turns = self.turns.as_ref()?;
        let result = match what {
            // `expect stat NAME N` and `expect turn N`; anything else after them is a formula.
            "stat" => {
                let mut words = args.split_whitespace();
                let (Some(name), Some(Ok(want)), None) =
                    (words.next(), words.next().map(str::parse::<f64>), words.next())
                else {
                    return None;
                };
                match self.turn_stats(true).iter().find(|stat| stat.id.as_str() == name) {
                    None => Err(format!("there is no stat `{name}`")),
                    Some(stat) if (stat.shown - want).abs() <= 1e-9 * want.abs().max(1.0) => Ok(String::new()),
                    Some(stat) => Err(format!("stat {name} is {}, expected {want}", stat.text)),
                }
            }
            "turn" => {
                let want = args.trim().parse::<u32>().ok()?;
                if want == turns.turn {
                    Ok(String::new())
                } else {
                    Err(format!("the turn is {}, expected {want}", turns.turn))
                }
            }
            "message" => {
                let text = args.trim();
                match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    None => Err("put the expected message in quotes".to_owned()),
                    Some(want) => {
                        let want = want.replace("\\n", "\n");
                        if turns.messages.iter().any(|message| message.text == want) {
                            Ok(String::new())
                        } else {
                            let said: Vec<String> = turns.messages.iter().map(|m| format!("{:?}", m.text)).collect();
                            Err(format!("the last turn did not say {want:?} (it said: {})", said.join(", ")))
                        }
                    }
                }
            }
            "warning" => {
                let text = args.trim();
                match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                    None => Err("put the expected warning in quotes".to_owned()),
                    Some(want) if turns.warnings.iter().any(|warning| warning == want) => Ok(String::new()),
                    Some(want) => Err(format!("the last turn did not warn {want:?} (warnings: {:?})", turns.warnings)),
                }
            }
            "hand" => {
                let mut want: Vec<&str> = args.split_whitespace().collect();
                let mut have: Vec<&str> = turns.hand.iter().map(Id::as_str).collect();
                want.sort_unstable();
                have.sort_unstable();
                if want == have {
                    Ok(String::new())
                } else {
                    Err(format!("the hand is {:?}, expected {:?}", have.join(" "), want.join(" ")))
                }
            }
            _ => return None,
        };
        Some(result)
    }
}

impl Session {
    /// The turns system's playtest lines: `play CARD OPTION`, `end-turn` and the set-up
    /// `set stat STAT VALUE`.
    pub(crate) fn turns_command(&mut self, command: &str, rest: &str) -> Option<Result<Line, String>> {
        match command {
            // A campaign without turns plays its cards with `play` too (FORMAT.md §14).
            "play" if self.turns.is_some() || self.campaign.is_none() => Some(self.play_choice(rest).map(Line::Choose)),
            "end-turn" => Some(Ok(Line::Choose(Choice::EndTurn))),
            "set" if rest.split_whitespace().next() == Some("stat") => {
                Some(self.set_stat_line(rest).map(|()| Line::Done(String::new())))
            }
            _ => None,
        }
    }

    /// Set-up: `set stat STAT VALUE` stores VALUE in a stored stat outside the rules (no rule
    /// runs, no threshold fires). Refused for an unknown or computed stat, a value that is not a
    /// finite number, or one outside the stat's `min`/`max` as they evaluate now.
    fn set_stat_line(&mut self, rest: &str) -> Result<(), String> {
        let mut words = rest.split_whitespace().skip(1);
        let (Some(name), Some(value), None) = (words.next(), words.next(), words.next()) else {
            return Err("usage: set stat STAT VALUE".to_owned());
        };
        let content = std::sync::Arc::clone(&self.content);
        let turns = self
            .turns
            .as_mut()
            .ok_or("the project has no turn config (a campaign's meters are set with `set meter`)")?;
        let stat = content.project.stats.get(name).ok_or_else(|| {
            let known: Vec<&str> = content.project.stats.iter().map(|stat| stat.id.as_str()).collect();
            format!("there is no stat `{name}` (there are: {})", known.join(", "))
        })?;
        if !matches!(stat.value, StatValue::Stored(_)) {
            return Err(format!("stat `{name}` is computed by its formula; set the stats it reads instead"));
        }
        let value = parse_finite(value)?;
        let mut rng = self.rng.clone();
        let mut env = TurnsEnv {
            content: &content,
            accessors: &content.accessors,
            stored: &turns.stored,
            turn: turns.turn,
            rng: &mut rng,
            depth: 0,
            table: None,
        };
        let min = stat.min.as_ref().map(|min| env.expr(min));
        let max = stat.max.as_ref().map(|max| env.expr(max));
        within_limits(&format!("stat {name}"), value, min, max)?;
        turns.stored.insert(stat.id.clone(), value);
        Ok(())
    }
}

impl Session {
    /// The index of `card`'s option named `option` (its label as a slug, or its number from 1).
    pub(crate) fn option_index(&self, card: &str, option: &str) -> Result<usize, String> {
        let Some(found) = self.content.project.cards.get(card) else {
            return Err(format!("there is no card `{card}`"));
        };
        let options = found.options.as_slice();
        options
            .iter()
            .enumerate()
            .position(|(index, offered)| {
                option_word(&offered.label, index) == option || index.saturating_add(1).to_string() == option
            })
            .ok_or_else(|| {
                let words: Vec<String> =
                    options.iter().enumerate().map(|(index, offered)| option_word(&offered.label, index)).collect();
                format!("`{card}` has no option `{option}` (it has: {})", words.join(", "))
            })
    }

    /// Why option `option` of `card` is not offered now: no turns, the game over, the card not
    /// in the hand, or its condition with the values it reads.
    pub(crate) fn explain_option(&self, card: &str, option: usize) -> Result<Vec<Reason>, String> {
        let found = self.content.project.cards.get(card).ok_or_else(|| format!("there is no card `{card}`"))?;
        let offered =
            found.options.get(option).ok_or_else(|| format!("`{card}` has no option {}", option.saturating_add(1)))?;
        let name = if offered.label.is_empty() { option.saturating_add(1).to_string() } else { offered.label.clone() };
        let item = format!("option `{name}` of {card}");
        let Some(turns) = &self.turns else { return Ok(vec![Reason::new(item, "the project has no turn config")]) };
        if self.state.outcome.is_some() || turns.outcome.is_some() {
            return Ok(vec![Reason::new(item, "the game has ended")]);
        }
        if !turns.hand.iter().any(|held| held.as_str() == card) {
            return Ok(vec![Reason::new(item, format!("{card} is not in the hand"))]);
        }
        let offers = |choice: &Choice| matches!(choice, Choice::PlayOption { card: c, option: o } if c.as_str() == card && *o == option);
        if self.choices().iter().any(offers) {
            return Ok(Vec::new());
        }
        let text = offered
            .condition
            .as_ref()
            .map_or_else(|| "it is not offered now".to_owned(), |condition| self.needs_condition(condition.text()));
        let trace = offered.condition.as_ref().and_then(|condition| self.trace_formula(condition.text()).ok());
        Ok(vec![Reason::new(item, text).traced(trace)])
    }
}
