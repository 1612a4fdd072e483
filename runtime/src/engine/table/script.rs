//! The table's playtest lines and expectations: tokens by name, free cards, windows and
//! places in words (FORMAT.md §7).

use super::{CardKey, Place, TokenKey};
use crate::engine::Session;

impl Session {
    /// The window of `name`: a token id (the first of that type in registry order) or
    /// `ID#N` for the N-th (from 1).
    pub fn find_token(&self, name: &str) -> Option<TokenKey> {
        let (id, nth) = match name.split_once('#') {
            Some((id, n)) => (id, n.parse::<usize>().ok()?.checked_sub(1)?),
            None => (name, 0),
        };
        self.state.windows.iter().filter(|(_, window)| window.token.as_str() == id).nth(nth).map(|(key, _)| *key)
    }

    pub(crate) fn token_arg(&self, name: Option<&str>) -> Result<TokenKey, String> {
        let name = name.ok_or("name a token")?;
        self.find_token(name).ok_or_else(|| {
            let known: Vec<&str> = self.state.windows.values().map(|window| window.token.as_str()).collect();
            format!("no token `{name}` on the table (there are: {})", known.join(", "))
        })
    }

    /// The first free card of a type the player can pick up: table first, then result lanes.
    pub(crate) fn free_card(&self, card_type: &str) -> Option<CardKey> {
        let of_type =
            |key: &&CardKey| self.state.card(**key).is_some_and(|card| card.card.as_str() == card_type && card.free);
        let on_table = self.state.table.iter().find(of_type).copied();
        on_table.or_else(|| self.state.windows.values().flat_map(|window| window.lane.iter()).find(of_type).copied())
    }

    pub(crate) fn window_arg(&self, token: &str) -> Result<&super::Window, String> {
        self.token_arg(Some(token)).and_then(|key| self.state.window(key).ok_or_else(|| format!("{token} is gone")))
    }

    /// Where a card is, in words (for logs and the CLI).
    pub fn describe_place(&self, key: CardKey) -> String {
        let token_name =
            |token: TokenKey| self.state.window(token).map_or("?", |window| window.token.as_str()).to_owned();
        match self.state.card(key).map(|card| card.place) {
            None => "gone".to_owned(),
            Some(Place::Table) => "table".to_owned(),
            Some(Place::Slot(token, at)) => format!("{} slot {at}", token_name(token)),
            Some(Place::Consumed(token)) => format!("in {}", token_name(token)),
            Some(Place::Lane(token)) => format!("{} results", token_name(token)),
            Some(Place::InCard(parent)) => format!("inside card {}", parent.0),
        }
    }
}

/// Card types in order with runs of one type written `TYPE*N`: "kitten paw*3".
pub(crate) fn stacks<'a>(types: impl Iterator<Item = &'a str>) -> String {
    let mut runs: Vec<(&str, usize)> = Vec::new();
    for card_type in types {
        match runs.last_mut() {
            Some((last, count)) if *last == card_type => *count += 1,
            _ => runs.push((card_type, 1)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|(card_type, n)| if *n == 1 { (*card_type).to_owned() } else { format!("{card_type}*{n}") })
        .collect();
    words.join(" ")
}
