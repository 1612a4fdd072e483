//! The campaign's playtest lines and expectations (FORMAT.md §14).

use crate::model::{Id, Stat, StatValue};

use super::Refusal;
use crate::engine::explain::Reason;
use crate::engine::script::Line;
use crate::engine::{Choice, Session};
use crate::number::{parse_finite, show_value, within_limits};

impl Session {
    /// Why a campaign choice is refused.
    pub(crate) fn why_not_campaign(&self, choice: &Choice) -> String {
        match (choice, &self.campaign) {
            (_, None) => "the project has no campaign (no entry node map)".to_owned(),
            (_, Some(campaign)) if campaign.result.is_some() => "the campaign has ended".to_owned(),
            (Choice::Strike { attacker, target }, Some(_)) => self
                .campaign_look(|step| step.strike_check(attacker, target).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (_, Some(campaign)) if campaign.battle.is_some() => Refusal::InBattle.words().to_owned(),
            (Choice::ChooseNodeOption { node, option }, Some(campaign)) => match &campaign.choosing {
                None => "no node waits for a choice".to_owned(),
                Some(waiting) if waiting != node => format!("`{waiting}` waits for a choice, not `{node}`"),
                Some(_) => format!("`{node}` does not offer `{option}` now"),
            },
            (_, Some(campaign)) if campaign.choosing.is_some() => format!(
                "{} (`{}`)",
                Refusal::Choosing.words(),
                campaign.choosing.as_ref().map_or("", |node| node.as_str())
            ),
            (Choice::MoveToNode { node }, Some(_)) => self
                .campaign_look(|step| step.path_cost(node).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::Synthesize { a, b }, Some(_)) => self
                .campaign_look(|step| step.synthesis_cost(a, b).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::Summon { a, b, result }, Some(_)) => self
                .campaign_look(|step| step.summon_cost(a, b, result).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::PlayCard { card, reversed, target }, Some(_)) => self
                .campaign_look(|step| {
                    step.play_cost(card, *reversed, target.as_ref()).err().map_or("", Refusal::words).to_owned()
                })
                .unwrap_or_default(),
            (Choice::Bind { a, b }, Some(_)) => self
                .campaign_look(|step| step.bind_check(a, b).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::Trigger { a, b }, Some(_)) => self
                .campaign_look(|step| step.trigger_cost(a, b).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::SynthesizeAlone { b }, Some(_)) => self
                .campaign_look(|step| step.alone_cost(b).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::SummonExtra { card }, Some(_)) => self
                .campaign_look(|step| step.extra_check(card).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::Raid { card }, Some(_)) => self
                .campaign_look(|step| step.raid_check(card).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::DiscardCard { card, reversed }, Some(_)) => self
                .campaign_look(|step| step.discard_choice(card, *reversed).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::RemoveCard { card }, Some(_)) => self
                .campaign_look(|step| step.removal_cost(card).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::DrawCard, Some(_)) => self
                .campaign_look(|step| step.extra_draw_cost().err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            (Choice::UseDeck { deck }, Some(_)) => self
                .campaign_look(|step| step.deck_choice(deck).err().map_or("", Refusal::words).to_owned())
                .unwrap_or_default(),
            _ => "the phase cannot end now".to_owned(),
        }
    }

    /// A campaign choice as the script line that makes it.
    pub(crate) fn describe_campaign_choice(choice: &Choice) -> String {
        match choice {
            Choice::MoveToNode { node } => format!("go {node}"),
            Choice::Synthesize { a, b } => format!("synthesize {a} {b}"),
            Choice::Summon { a, b, result } => format!("summon {result} with {a} {b}"),
            Choice::ChooseNodeOption { option, .. } => format!("choose {option}"),
            Choice::Strike { attacker, target } => format!("strike {attacker} {target}"),
            Choice::PlayCard { card, reversed, target } => {
                let reversed = if *reversed { " reversed" } else { "" };
                let target = target.as_ref().map_or(String::new(), |target| format!(" on {target}"));
                format!("play {card}{reversed}{target}")
            }
            Choice::Bind { a, b } => format!("bind {a} {b}"),
            Choice::Trigger { a, b } => format!("trigger {a} {b}"),
            Choice::SynthesizeAlone { b } => format!("synthesize-alone {b}"),
            Choice::SummonExtra { card } => format!("summon-extra {card}"),
            Choice::Raid { card } => format!("raid {card}"),
            Choice::DiscardCard { card, reversed: false } => format!("discard {card}"),
            Choice::DiscardCard { card, reversed: true } => format!("discard {card} reversed"),
            Choice::RemoveCard { card } => format!("remove {card}"),
            Choice::DrawCard => "draw".to_owned(),
            Choice::UseDeck { deck } => format!("use-deck {deck}"),
            _ => "end-phase".to_owned(),
        }
    }

    /// A script's campaign expectations: `node NODE`, `meter NAME OP N`, `grade NAME|none`,
    /// `day N`, `era ID`, `phase NAME`, `revealed REVELATION`, `boost CARD PROPERTY N`.
    pub(crate) fn expect_campaign(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        let campaign = self.campaign.as_ref()?;
        let map = self.content.project.node_maps.get(campaign.map.as_str())?;
        let same = |name: &str, actual: &str, want: &str| {
            if actual == want { Ok(String::new()) } else { Err(format!("{name} is {actual}, expected {want}")) }
        };
        let result = match what {
            "node" => same("the player's node", campaign.node.as_str(), args.trim()),
            "grade" => {
                let grade = campaign.result.as_ref().and_then(|result| result.grade.as_deref()).unwrap_or("none");
                same("the grade", grade, args.trim())
            }
            // `expect day N`; anything else after `day` is left to the formula reading.
            "day" => {
                let want = args.trim().parse::<u32>().ok()?;
                same("the day", &campaign.day.to_string(), &want.to_string())
            }
            "boost" => {
                let mut words = args.split_whitespace();
                let (Some(card), Some(property), Some(want), None) =
                    (words.next(), words.next(), words.next(), words.next())
                else {
                    return Some(Err("usage: expect boost CARD PROPERTY N".to_owned()));
                };
                let Ok(want) = want.parse::<f64>() else {
                    return Some(Err(format!("`{want}` is not a number")));
                };
                let have =
                    campaign.boosts.get(&Id::new(card)).and_then(|boosts| boosts.get(property)).copied().unwrap_or(0.0);
                if (have - want).abs() <= 1e-9 * want.abs().max(1.0) {
                    Ok(String::new())
                } else {
                    Err(format!(
                        "{card}'s {property} is boosted by {}, expected {}",
                        show_value(have, None),
                        show_value(want, None)
                    ))
                }
            }
            "revealed" => {
                let id = args.trim();
                if campaign.revealed.contains(id) {
                    Ok(String::new())
                } else {
                    let granted: Vec<&str> = campaign.revealed.iter().map(String::as_str).collect();
                    Err(format!(
                        "the revelation `{id}` was not granted (granted: {})",
                        if granted.is_empty() { "none".to_owned() } else { granted.join(", ") }
                    ))
                }
            }
            "era" => same("the era", campaign.era.as_ref().map_or("none", |era| era.as_str()), args.trim()),
            "phase" => same("the phase", campaign.phase_name(map), args.trim()),
            // Boards have `expect hand BOARD …` too: a map without cards leaves the word to them.
            "hand" if map.synthesis.is_some() || !map.hand.is_empty() || !map.cards.decks.is_empty() => {
                let mut want: Vec<&str> = args.split_whitespace().collect();
                let mut have: Vec<&str> = campaign.hand.iter().map(Id::as_str).collect();
                want.sort_unstable();
                have.sort_unstable();
                same("the hand", &have.join(" "), &want.join(" "))
            }
            "meter" => {
                let mut words = args.split_whitespace();
                let (Some(name), Some(op), Some(want), None) = (words.next(), words.next(), words.next(), words.next())
                else {
                    return Some(Err("usage: expect meter NAME OP N (OP: == != < <= > >=)".to_owned()));
                };
                let Ok(want) = want.parse::<f64>() else {
                    return Some(Err(format!("`{want}` is not a number")));
                };
                if self.content.project.stats.get(name).is_none() {
                    return Some(Err(format!("there is no meter `{name}`")));
                }
                let value = self.campaign_stat(name).unwrap_or(f64::NAN);
                let holds = match op {
                    "==" => (value - want).abs() <= 1e-9 * want.abs().max(1.0),
                    "!=" => (value - want).abs() > 1e-9 * want.abs().max(1.0),
                    "<" => value < want,
                    "<=" => value <= want,
                    ">" => value > want,
                    ">=" => value >= want,
                    _ => return Some(Err(format!("`{op}` is not a comparison (== != < <= > >=)"))),
                };
                if holds {
                    Ok(String::new())
                } else {
                    Err(format!("meter {name} is {}, expected {op} {want}", show_value(value, None)))
                }
            }
            _ => return None,
        };
        Some(result)
    }
}

impl Session {
    /// The campaign's playtest lines: `go NODE`, `end-phase`, `synthesize A B` (also written
    /// `smelt A B`, its earlier name), `jump NODE` ("play from here") and the set-up
    /// `set meter METER VALUE`.
    pub(crate) fn campaign_command(&mut self, command: &str, rest: &str) -> Option<Result<Line, String>> {
        let mut words = rest.split_whitespace();
        let line = match command {
            "go" => words
                .next()
                .map(|node| Line::Choose(Choice::MoveToNode { node: Id::new(node) }))
                .ok_or_else(|| "usage: go NODE".to_owned()),
            "end-phase" => Ok(Line::Choose(Choice::EndPhase)),
            "synthesize" | "smelt" => match (words.next(), words.next()) {
                (Some(a), Some(b)) => Ok(Line::Choose(Choice::Synthesize { a: Id::new(a), b: Id::new(b) })),
                _ => Err(format!("usage: {command} A B")),
            },
            "play" => {
                let words: Vec<&str> = words.collect();
                let (card, reversed, target) = match words.as_slice() {
                    [card] => (card, false, None),
                    [card, "reversed"] => (card, true, None),
                    [card, "on", target] => (card, false, Some(target)),
                    [card, "reversed", "on", target] => (card, true, Some(target)),
                    _ => return Some(Err("usage: play CARD [reversed] [on TARGET]".to_owned())),
                };
                Ok(Line::Choose(Choice::PlayCard {
                    card: Id::new(*card),
                    reversed,
                    target: target.map(|target| Id::new(*target)),
                }))
            }
            "bind" | "trigger" => match (words.next(), words.next(), words.next()) {
                (Some(a), Some(b), None) => {
                    let (a, b) = (Id::new(a), Id::new(b));
                    Ok(Line::Choose(if command == "bind" { Choice::Bind { a, b } } else { Choice::Trigger { a, b } }))
                }
                _ => Err(format!("usage: {command} A B")),
            },
            "synthesize-alone" | "summon-extra" | "raid" => match (words.next(), words.next()) {
                (Some(card), None) => {
                    let card = Id::new(card);
                    Ok(Line::Choose(match command {
                        "synthesize-alone" => Choice::SynthesizeAlone { b: card },
                        "summon-extra" => Choice::SummonExtra { card },
                        _ => Choice::Raid { card },
                    }))
                }
                _ => Err(format!("usage: {command} CARD")),
            },
            "discard" => match (words.next(), words.next(), words.next()) {
                (Some(card), None, None) => {
                    Ok(Line::Choose(Choice::DiscardCard { card: Id::new(card), reversed: false }))
                }
                (Some(card), Some("reversed"), None) => {
                    Ok(Line::Choose(Choice::DiscardCard { card: Id::new(card), reversed: true }))
                }
                _ => Err("usage: discard CARD [reversed]".to_owned()),
            },
            "strike" => match (words.next(), words.next(), words.next()) {
                (Some(attacker), Some(target), None) => {
                    Ok(Line::Choose(Choice::Strike { attacker: attacker.to_owned(), target: target.to_owned() }))
                }
                _ => Err("usage: strike FIGHTER TARGET".to_owned()),
            },
            "choose" => match (words.next(), words.next()) {
                (Some(option), None) => {
                    let node = self.campaign.as_ref().and_then(|campaign| campaign.choosing.clone());
                    match node {
                        Some(node) => Ok(Line::Choose(Choice::ChooseNodeOption { node, option: option.to_owned() })),
                        None => Err("no node waits for a choice".to_owned()),
                    }
                }
                _ => Err("usage: choose OPTION".to_owned()),
            },
            "summon" => match (words.next(), words.next(), words.next(), words.next(), words.next()) {
                (Some(result), Some("with"), Some(a), Some(b), None) => {
                    Ok(Line::Choose(Choice::Summon { a: Id::new(a), b: Id::new(b), result: Id::new(result) }))
                }
                _ => Err("usage: summon RESULT with A B".to_owned()),
            },
            "remove" => match (words.next(), words.next()) {
                (Some(card), None) => Ok(Line::Choose(Choice::RemoveCard { card: Id::new(card) })),
                _ => Err("usage: remove CARD".to_owned()),
            },
            "draw" => Ok(Line::Choose(Choice::DrawCard)),
            "use-deck" => words
                .next()
                .map(|deck| Line::Choose(Choice::UseDeck { deck: deck.to_owned() }))
                .ok_or_else(|| "usage: use-deck DECK".to_owned()),
            "jump" => match words.next() {
                Some(node) => self.jump_to_node(node).map(|()| Line::Done(String::new())),
                None => Err("usage: jump NODE".to_owned()),
            },
            "set" => match words.next() {
                Some("meter") => {
                    self.set_meter_line(words.collect::<Vec<_>>().as_slice()).map(|()| Line::Done(String::new()))
                }
                Some("boost") => {
                    self.set_boost_line(words.collect::<Vec<_>>().as_slice()).map(|()| Line::Done(String::new()))
                }
                _ => return None,
            },
            _ => return None,
        };
        Some(line)
    }
}

impl Session {
    /// Set-up: `set boost CARD PROPERTY VALUE` sets a card's per-card change of a property
    /// outside the rules (0 clears it). Refused for an unknown card or a value that is not a
    /// finite number.
    fn set_boost_line(&mut self, words: &[&str]) -> Result<(), String> {
        let [card, property, value] = words else {
            return Err("usage: set boost CARD PROPERTY VALUE".to_owned());
        };
        if self.content.project.cards.get(card).is_none() {
            return Err(format!("there is no card `{card}`"));
        }
        let value = parse_finite(value)?;
        let campaign = self.campaign.as_mut().ok_or("the project has no campaign (no node map in its entry)")?;
        let boosts = campaign.boosts.entry(Id::new(*card)).or_default();
        if value == 0.0 {
            boosts.remove(*property);
        } else {
            boosts.insert((*property).to_owned(), value);
        }
        if boosts.is_empty() {
            campaign.boosts.remove(&Id::new(*card));
        }
        Ok(())
    }

    /// Set-up: `set meter METER VALUE` stores VALUE in a stored meter outside the rules (no
    /// rule runs, no threshold fires, the end is not checked until the next step). Refused for
    /// an unknown or computed meter, a value that is not a finite number, or one outside the
    /// meter's `min`/`max` as they evaluate now.
    fn set_meter_line(&mut self, words: &[&str]) -> Result<(), String> {
        let [name, value] = words else { return Err("usage: set meter METER VALUE".to_owned()) };
        if self.campaign.is_none() {
            return Err("the project has no campaign (no node map in its entry; a turn config's stats are set with \
                        `set stat`)"
                .to_owned());
        }
        let content = std::sync::Arc::clone(&self.content);
        let stat = content.project.stats.get(name).ok_or_else(|| {
            let known: Vec<&str> = content.project.stats.iter().map(|stat| stat.id.as_str()).collect();
            format!("there is no meter `{name}` (there are: {})", known.join(", "))
        })?;
        if !matches!(stat.value, StatValue::Stored(_)) {
            return Err(format!("meter `{name}` is computed by its formula; set the meters it reads instead"));
        }
        let value = parse_finite(value)?;
        let limits = self.campaign_look(|step| {
            (stat.min.as_ref().map(|min| step.value(min)), stat.max.as_ref().map(|max| step.value(max)))
        });
        let (min, max) = limits.ok_or("the campaign's node map is missing")?;
        within_limits(&format!("meter {name}"), value, min, max)?;
        let stored = match (self.turns.as_mut(), self.campaign.as_mut()) {
            (Some(turns), _) => &mut turns.stored,
            (None, Some(campaign)) => &mut campaign.meters,
            (None, None) => return Err("the project has no campaign".to_owned()),
        };
        stored.insert(stat.id.clone(), value);
        Ok(())
    }
}

impl Session {
    /// Why the player cannot go to `node` now: no path, a phase without moves, a locked path
    /// with its unlock condition's values, or a cost past the meter's credit.
    pub(crate) fn explain_node(&self, node: &str) -> Result<Vec<Reason>, String> {
        let item = format!("path to `{node}`");
        let Some(campaign) = &self.campaign else {
            return Ok(vec![Reason::new(item, "the project has no campaign (no entry node map)")]);
        };
        let map = self.content.project.node_maps.get(campaign.map.as_str());
        if !map.is_some_and(|map| map.nodes.iter().any(|n| n.id.as_str() == node)) {
            return Err(format!("there is no node `{node}` on the campaign's map"));
        }
        if campaign.result.is_some() {
            return Ok(vec![Reason::new(item, "the campaign has ended")]);
        }
        let to = Id::new(node);
        let refusal = self.campaign_look(|step| match step.path_cost(&to) {
            Ok(_) => None,
            Err(Refusal::Locked) => {
                let unlock = step
                    .map
                    .edges
                    .iter()
                    .find(|edge| edge.from == step.state.node && edge.to == to)
                    .and_then(|edge| edge.unlock.as_ref())
                    .map(|unlock| unlock.text().to_owned());
                Some(Err(unlock))
            }
            Err(Refusal::Credit) => {
                let edge = step.map.edges.iter().find(|edge| edge.from == step.state.node && edge.to == to);
                let cost = edge.map_or(f64::NAN, |edge| step.value(&edge.cost));
                Some(Ok(credit_words(step, step.map.cost_stat.as_ref(), cost)))
            }
            Err(refusal) => Some(Ok(refusal.words().to_owned())),
        });
        Ok(match refusal.flatten() {
            None => Vec::new(),
            Some(Ok(words)) => vec![Reason::new(item, words)],
            Some(Err(unlock)) => {
                let why =
                    unlock.as_ref().map_or_else(String::new, |unlock| format!(": {}", self.needs_condition(unlock)));
                let trace = unlock.and_then(|unlock| self.trace_formula(&unlock).ok());
                vec![Reason::new(item, format!("is locked{why}")).traced(trace)]
            }
        })
    }

    /// Why the synthesis of `a` and `b` cannot be done now.
    pub(crate) fn explain_synthesis(&self, a: &str, b: &str) -> Result<Vec<Reason>, String> {
        let item = format!("synthesis of {a} and {b}");
        for card in [a, b] {
            if self.content.project.cards.get(card).is_none() {
                return Err(format!("there is no card `{card}`"));
            }
        }
        if self.campaign.is_none() {
            return Ok(vec![Reason::new(item, "the project has no campaign (no entry node map)")]);
        }
        let (a, b) = (Id::new(a), Id::new(b));
        let words = self
            .campaign_look(|step| match step.synthesis_cost(&a, &b) {
                Ok(_) => None,
                Err(Refusal::Credit) => {
                    let cost = step.cost_with(&a, &b, false, &step.map.synthesis_cost);
                    let stat = step.synthesis_stat();
                    Some(credit_words(step, stat, cost))
                }
                Err(refusal) => Some(refusal.words().to_owned()),
            })
            .flatten();
        Ok(words.into_iter().map(|words| Reason::new(item.clone(), words)).collect())
    }
}

/// "costs 5 gold: gold is 3 and may not go below 0".
fn credit_words(step: &mut super::step::Step<'_>, stat: Option<&Id<Stat>>, cost: f64) -> String {
    let Some(stat) = stat.and_then(|id| step.content.project.stats.get(id.as_str())) else {
        return Refusal::Credit.words().to_owned();
    };
    let have = step.stat_value(&stat.id);
    let floor = step.floor_of(stat);
    format!(
        "costs {} {}: {} is {} and may not go below {}",
        show_value(cost, None),
        stat.id,
        stat.id,
        show_value(have, None),
        show_value(floor, None)
    )
}
