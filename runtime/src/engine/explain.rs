//! "Why not?" for every system: [`Session::explain`] says, for a [`Subject`] the player cannot
//! do now, which test of which item fails and with which values. It works on copies: explaining
//! changes nothing, not even the random draws to come.

use std::fmt;

use serde::Serialize;

use super::{CardKey, Session, TokenKey};
use crate::formula::FormulaTrace;

/// What the player asks "why not?" about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// A table act: in the given window, or else in the first idle or ready window of its token.
    Act {
        /// The act's id.
        act: String,
        /// The window to start it in.
        window: Option<TokenKey>,
    },
    /// Every act the player could start in an idle window.
    Window(TokenKey),
    /// A card going into a slot place of a window.
    Slot {
        /// The card.
        card: CardKey,
        /// The window.
        token: TokenKey,
        /// The slot place (0–5 idle, 6 run).
        place: usize,
    },
    /// An option of a turns card in the hand.
    Option {
        /// The card type.
        card: String,
        /// The option, from 0.
        option: usize,
    },
    /// A campaign move along a path to a node.
    Node(String),
    /// A campaign synthesis of two hand cards (A first, then B).
    Synthesis {
        /// Input A.
        a: String,
        /// Input B.
        b: String,
    },
    /// A tactics unit's action skill: anywhere it could aim, or at one standing spot.
    Skill {
        /// The unit's key (`ID` or `ID#N`).
        unit: String,
        /// The skill.
        skill: String,
        /// The spot `(x, y, z)` to aim at.
        at: Option<(u16, u16, u16)>,
    },
    /// A tactics unit's walk to a standing spot `(x, y, z)`, through waypoints in order.
    Move {
        /// The unit's key.
        unit: String,
        /// The spot.
        at: (u16, u16, u16),
        /// The spots the move passes through first (`move … via`); empty: any route.
        via: Vec<(u16, u16, u16)>,
    },
    /// A tactics unit picked for a turn by its team (team-round schedulers).
    Pick {
        /// The unit's key.
        unit: String,
    },
    /// Playing a board card from the hand of the side whose turn it is.
    Ability {
        /// The card type.
        card: String,
        /// The option, from 1 (0: any).
        option: u32,
    },
}

/// One thing that fails: the item it belongs to and, in words with the values, what it needs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    /// The item whose test fails: "act `tend_the_lamp` (Tend the Lamp)", "option `Bribe`".
    pub item: String,
    /// What fails, with the values: "needs fuel ≥ 1 in the window: 0".
    pub text: String,
    /// For a condition that fails: its formula traced in the rule's own context (each part's
    /// value, what made it false marked).
    #[serde(skip)]
    pub trace: Option<FormulaTrace>,
}

impl Reason {
    /// A reason of `item` in words.
    pub fn new(item: impl Into<String>, text: impl Into<String>) -> Self {
        Self { item: item.into(), text: text.into(), trace: None }
    }

    /// This reason with the trace of the formula it quotes (none: as it is).
    #[must_use]
    pub fn traced(mut self, trace: Option<FormulaTrace>) -> Self {
        self.trace = trace.or(self.trace);
        self
    }

    /// The reasons of `item` from the rules core's words and the traces of the conditions
    /// that failed: each trace goes with the line that quotes its formula.
    pub(crate) fn with_traces(item: &str, why: Vec<String>, traces: Vec<FormulaTrace>) -> Vec<Self> {
        let mut traces: Vec<Option<FormulaTrace>> = traces.into_iter().map(Some).collect();
        why.into_iter()
            .map(|text| {
                let trace = traces
                    .iter_mut()
                    .find(|trace| trace.as_ref().is_some_and(|trace| text.contains(trace.text.as_str())))
                    .and_then(Option::take);
                Self { item: item.to_owned(), text, trace }
            })
            .collect()
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.item.is_empty() { f.write_str(&self.text) } else { write!(f, "{}: {}", self.item, self.text) }
    }
}

impl Session {
    /// Why the player cannot do `subject` now, reason by reason (empty: it is possible now);
    /// an error when the subject names nothing of the project.
    pub fn explain(&self, subject: &Subject) -> Result<Vec<Reason>, String> {
        match subject {
            Subject::Act { act, window } => self.explain_act_in(act, *window),
            Subject::Window(token) => Ok(self.explain_idle_window(*token)),
            Subject::Slot { card, token, place } => Ok(self.explain_slot(*card, *token, *place)),
            Subject::Option { card, option } => self.explain_option(card, *option),
            Subject::Node(node) => self.explain_node(node),
            Subject::Synthesis { a, b } => self.explain_synthesis(a, b),
            Subject::Skill { unit, skill, at } => self.explain_skill(unit, skill, *at),
            Subject::Move { unit, at, via } => self.explain_move(unit, *at, via),
            Subject::Pick { unit } => self.explain_pick(unit),
            Subject::Ability { card, option } => self.explain_ability(card, *option),
        }
    }

    /// Reads `--explain` words (FORMAT.md §7): `ACT`, `act:ACT`, `option:CARD:OPTION`,
    /// `node:NODE`, `synthesis:A:B`, `skill:UNIT:SKILL[:X,Y,Z]`, `move:UNIT:X,Y,Z[:via:X,Y,Z]…`, `pick:UNIT`,
    /// `ability:CARD[:OPTION]`, `slot:CARD:TOKEN[:PLACE]`.
    pub fn parse_subject(&self, text: &str) -> Result<Subject, String> {
        let words: Vec<&str> = text.split(':').collect();
        let spot = |word: &str| -> Result<(u16, u16, u16), String> {
            let numbers: Vec<Option<u16>> = word.split(',').map(|n| n.trim().parse::<u16>().ok()).collect();
            match numbers.as_slice() {
                [Some(x), Some(y), Some(z)] => Ok((*x, *y, *z)),
                _ => Err(format!("`{word}` is not a spot X,Y,Z")),
            }
        };
        match words.as_slice() {
            [act] | ["act", act] => Ok(Subject::Act { act: (*act).to_owned(), window: None }),
            ["option", card, option] => {
                let index = self.option_index(card, option)?;
                Ok(Subject::Option { card: (*card).to_owned(), option: index })
            }
            ["node", node] => Ok(Subject::Node((*node).to_owned())),
            ["synthesis", a, b] => Ok(Subject::Synthesis { a: (*a).to_owned(), b: (*b).to_owned() }),
            ["skill", unit, skill] => {
                Ok(Subject::Skill { unit: (*unit).to_owned(), skill: (*skill).to_owned(), at: None })
            }
            ["skill", unit, skill, at] => {
                Ok(Subject::Skill { unit: (*unit).to_owned(), skill: (*skill).to_owned(), at: Some(spot(at)?) })
            }
            ["move", unit, at, rest @ ..] => {
                let mut via = Vec::new();
                for pair in rest.chunks(2) {
                    match pair {
                        ["via", waypoint] => via.push(spot(waypoint)?),
                        _ => return Err(format!("`{text}`: after the spot, only `:via:X,Y,Z` waypoints follow")),
                    }
                }
                Ok(Subject::Move { unit: (*unit).to_owned(), at: spot(at)?, via })
            }
            ["pick", unit] => Ok(Subject::Pick { unit: (*unit).to_owned() }),
            ["ability", card] => Ok(Subject::Ability { card: (*card).to_owned(), option: 0 }),
            ["ability", card, option] => {
                let index = self.board_option_index(card, option)?;
                Ok(Subject::Ability { card: (*card).to_owned(), option: index })
            }
            ["slot", card, token] => self.slot_subject(card, token, None),
            ["slot", card, token, place] => {
                let place = place.parse::<usize>().map_err(|_| format!("`{place}` is not a slot place number"))?;
                self.slot_subject(card, token, Some(place))
            }
            _ => Err(format!(
                "`{text}` is not a subject (ACT, option:CARD:OPTION, node:NODE, synthesis:A:B, skill:UNIT:SKILL[:X,Y,Z], \
                 move:UNIT:X,Y,Z[:via:X,Y,Z]…, pick:UNIT, ability:CARD[:OPTION], slot:CARD:TOKEN[:PLACE])"
            )),
        }
    }

    /// The values of the names a formula reads, as "money is 3, day is 2" (names the session
    /// cannot value are left out; empty when none is).
    pub(crate) fn values_read(&self, formula: &str) -> String {
        let mut seen: Vec<&str> = Vec::new();
        let mut words = Vec::new();
        let bytes = formula.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let starts = bytes.get(at).is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_');
            if !starts {
                at = at.saturating_add(1);
                continue;
            }
            let mut end = at;
            while bytes.get(end).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'.') {
                end = end.saturating_add(1);
            }
            let name = formula.get(at..end).unwrap_or_default().trim_end_matches('.');
            let call = bytes.get(end) == Some(&b'(');
            at = end;
            if call
                || name.is_empty()
                || seen.contains(&name)
                || matches!(name, "and" | "or" | "not" | "true" | "false")
            {
                continue;
            }
            seen.push(name);
            if let Ok(value) = self.query(name) {
                words.push(format!("{name} is {}", crate::number::show_value(value, None)));
            }
        }
        words.join(", ")
    }

    /// "needs `FORMULA`: NAME is V, …" for a condition that does not hold.
    pub(crate) fn needs_condition(&self, formula: &str) -> String {
        let values = self.values_read(formula);
        if values.is_empty() {
            format!("needs `{formula}`, which does not hold")
        } else {
            format!("needs `{formula}`: {values}")
        }
    }
}
