//! The table's playtest lines and expectations: tokens by name, free cards, windows and
//! places in words (FORMAT.md §7).

use super::listing::Moving;
use super::{CardKey, Place, Status, TokenKey};
use crate::engine::explain::{Reason, Subject};
use crate::engine::script::{Line, ScriptReport};
use crate::engine::{Choice, Session};
use crate::model::FragmentRef;

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

    /// The table's playtest lines: `slot`, `unslot`, `start`, `close`, `flip`, `collect` make a
    /// choice; `run ACT` forces an act to start.
    pub(crate) fn table_command(
        &mut self,
        command: &str,
        rest: &str,
        report: &mut ScriptReport,
    ) -> Option<Result<Line, String>> {
        let mut words = rest.split_whitespace();
        let choice = match command {
            "slot" => self.slot_line(rest),
            "unslot" => self.unslot_line(rest),
            "start" => self.token_arg(words.next()).map(|token| Choice::Start { token }),
            "close" => self.token_arg(words.next()).map(|token| Choice::Close { token }),
            "flip" => self.flip_line(rest),
            "collect" => self.token_arg(words.next()).map(|token| Choice::Collect { token }),
            "create" => return Some(self.create_line(rest, report).map(Line::Done)),
            "set" if rest.starts_with("aspect") => return Some(self.set_aspect_line(rest).map(Line::Done)),
            "run" => {
                let Some(act) = words.next() else { return Some(Err("usage: run ACT".to_owned())) };
                return Some(self.force_act(act).map(|events| {
                    self.record(events, report);
                    Line::Done(String::new())
                }));
            }
            _ => return None,
        };
        Some(choice.map(Line::Choose))
    }

    /// Set-up: `create card CARD [in TOKEN] [ASPECT=N]...` puts a new card on the table (or
    /// inside a window, where its decay pauses) with those aspect counts; `create token TOKEN`
    /// opens a new idle window. Neither is a player's move: they set a scene up.
    fn create_line(&mut self, rest: &str, report: &mut ScriptReport) -> Result<String, String> {
        let mut words = rest.split_whitespace();
        let usage = "usage: create card CARD [in TOKEN] [ASPECT=N]... or create token TOKEN";
        let what = words.next().ok_or(usage)?;
        let name = words.next().ok_or(usage)?;
        let content = std::sync::Arc::clone(&self.content);
        match what {
            "token" => {
                if content.project.tokens.get(name).is_none() {
                    return Err(format!("there is no token `{name}`"));
                }
                if let Some(extra) = words.next() {
                    return Err(format!("`{extra}`: {usage}"));
                }
                let mut events = Vec::new();
                let mut engine = super::step::Engine::new(&content, &mut self.state, &mut self.rng, &mut events);
                let pending = super::PendingToken { token: crate::model::Id::new(name), auto_run: None, memory: None };
                engine.state.pending_tokens.push(pending);
                engine.create_pending_tokens();
                engine.end_step();
                self.record(events, report);
                Ok(String::new())
            }
            "card" => {
                let card = content.project.cards.get(name).ok_or_else(|| format!("there is no card `{name}`"))?;
                let mut place = Place::Table;
                let mut counts: Vec<(crate::model::AspectId, i64)> = Vec::new();
                while let Some(word) = words.next() {
                    if word == "in" {
                        let token = self.token_arg(words.next())?;
                        place = Place::Consumed(token);
                    } else if let Some((aspect, count)) = word.split_once('=') {
                        if content.project.aspects.get(aspect).is_none() {
                            return Err(format!("there is no aspect `{aspect}`"));
                        }
                        let count: i64 = count
                            .parse()
                            .ok()
                            .filter(|count| *count >= 0)
                            .ok_or_else(|| format!("`{count}` is not a count of 0 or more (in `{word}`)"))?;
                        counts.push((content.canonical_aspect(&crate::model::Id::new(aspect)).clone(), count));
                    } else {
                        return Err(format!("`{word}`: {usage}"));
                    }
                }
                let mut events = Vec::new();
                let mut engine = super::step::Engine::new(&content, &mut self.state, &mut self.rng, &mut events);
                let key = engine
                    .create_card(&card.id, place)
                    .ok_or_else(|| format!("`{name}` is unique and already in play"))?;
                if let Some(instance) = engine.state.cards.get_mut(&key) {
                    for (aspect, count) in &counts {
                        let delta = count.saturating_sub(instance.aspects.get(aspect));
                        instance.aspects.adjust(aspect, delta);
                    }
                }
                engine.end_step();
                self.record(events, report);
                Ok(String::new())
            }
            other => Err(format!("`{other}`: {usage}")),
        }
    }

    /// Set-up: `set aspect CARD ASPECT N` gives the first card of type CARD (table first) N of
    /// the aspect, its own count beside the type's.
    fn set_aspect_line(&mut self, rest: &str) -> Result<String, String> {
        let usage = "usage: set aspect CARD ASPECT N";
        let mut words = rest.split_whitespace().skip(1);
        let (Some(card_type), Some(aspect), Some(count), None) =
            (words.next(), words.next(), words.next(), words.next())
        else {
            return Err(usage.to_owned());
        };
        if self.content.project.aspects.get(aspect).is_none() {
            return Err(format!("there is no aspect `{aspect}`"));
        }
        let count: i64 = count
            .parse()
            .ok()
            .filter(|count| *count >= 0)
            .ok_or_else(|| format!("`{count}` is not a count of 0 or more"))?;
        let aspect = self.content.canonical_aspect(&crate::model::Id::new(aspect)).clone();
        let key = self.first_in_play(card_type).ok_or_else(|| format!("no `{card_type}` card is in play"))?;
        if let Some(card) = self.state.cards.get_mut(&key) {
            let delta = count.saturating_sub(card.aspects.get(&aspect));
            card.aspects.adjust(&aspect, delta);
        }
        Ok(String::new())
    }

    /// `slot CARD TOKEN [PLACE]`.
    fn slot_line(&self, rest: &str) -> Result<Choice, String> {
        let mut words = rest.split_whitespace();
        let card_type = words.next().ok_or("usage: slot CARD TOKEN [PLACE]")?;
        let token = self.token_arg(words.next())?;
        let place: Option<usize> = words.next().map(str::parse).transpose().map_err(|_| "PLACE is a number")?;
        let card = self.free_card(card_type).ok_or_else(|| format!("no free `{card_type}` card to pick up"))?;
        let wanted = |choice: &Choice| {
            matches!(choice, Choice::Slot { card: c, token: t, place: p }
                if *c == card && *t == token && place.is_none_or(|want| want == *p))
        };
        self.choices()
            .into_iter()
            .find(wanted)
            .ok_or_else(|| format!("no open slot of that window accepts `{card_type}`"))
    }

    /// `unslot TOKEN [PLACE]`.
    fn unslot_line(&self, rest: &str) -> Result<Choice, String> {
        let mut words = rest.split_whitespace();
        let token = self.token_arg(words.next())?;
        let place: usize = words.next().map_or(Ok(0), str::parse).map_err(|_| "PLACE is a number")?;
        Ok(Choice::Unslot { token, place })
    }

    /// The first card of type `card_type` in play, table first (set-up lines and checks name
    /// cards by type).
    fn first_in_play(&self, card_type: &str) -> Option<CardKey> {
        self.state
            .cards
            .iter()
            .filter(|(_, card)| card.card.as_str() == card_type)
            .min_by_key(|(_, card)| !matches!(card.place, Place::Table))
            .map(|(key, _)| *key)
    }

    /// `flip CARD`: a face-down card of that type, table first.
    fn flip_line(&self, rest: &str) -> Result<Choice, String> {
        let card_type = rest.split_whitespace().next().ok_or("usage: flip CARD")?;
        let card = self
            .state
            .cards
            .iter()
            .filter(|(_, card)| card.face_down && card.card.as_str() == card_type)
            .min_by_key(|(_, card)| !matches!(card.place, Place::Table))
            .map(|(key, _)| *key)
            .ok_or_else(|| format!("no face-down `{card_type}` card"))?;
        Ok(Choice::Flip { card })
    }

    /// A table choice as the script line that makes it.
    pub(crate) fn describe_table_choice(&self, choice: &Choice) -> String {
        let token_name = |token: TokenKey| {
            let Some(window) = self.state.window(token) else { return "?".to_owned() };
            let nth = self.state.windows.iter().filter(|(key, w)| w.token == window.token && **key <= token).count();
            if nth > 1 { format!("{}#{nth}", window.token) } else { window.token.to_string() }
        };
        match choice {
            Choice::Slot { card, token, place } => {
                let card_type = self.state.card(*card).map_or("?", |card| card.card.as_str());
                format!("slot {card_type} {} {place}", token_name(*token))
            }
            Choice::Unslot { token, place } => format!("unslot {} {place}", token_name(*token)),
            Choice::Start { token } => format!("start {}", token_name(*token)),
            Choice::Collect { token } => format!("collect {}", token_name(*token)),
            Choice::Close { token } => format!("close {}", token_name(*token)),
            Choice::Flip { card } => format!("flip {}", self.state.card(*card).map_or("?", |card| card.card.as_str())),
            _ => String::new(),
        }
    }

    /// Why the table refuses a choice.
    pub(crate) fn why_not_table(choice: &Choice) -> &'static str {
        match choice {
            Choice::Start { .. } => "that window is not ready to start",
            Choice::Collect { .. } => "that window has no results to collect",
            Choice::Unslot { .. } => "no card the player can take out is in that slot place",
            Choice::Slot { .. } => "that slot does not take the card",
            Choice::Close { .. } => "only an idle or ready window with cards in its slots can be closed",
            _ => "that card cannot be turned over now",
        }
    }

    /// The table's expectations: `title`, `text`, `end`, `status`, `act`, `alt`, `slots`, `lane`,
    /// `timer`, `holds`, `label`.
    pub(crate) fn expect_table(&self, what: &str, args: &str) -> Option<Result<String, String>> {
        if matches!(what, "timer" | "holds") {
            return Some(self.expect_inside(what, args));
        }
        if what == "label" {
            return Some(self.expect_label(args));
        }
        matches!(what, "title" | "text" | "end" | "status" | "act" | "alt" | "slots" | "lane")
            .then(|| self.expect_window(what, args))
    }

    /// The label a card shows in play: its type's label (its id when the label is empty) with
    /// a running mutator's `[status]` as a second line, or `face-down card` while it lies face
    /// down.
    pub fn card_label(&self, key: CardKey) -> Option<String> {
        let card = self.state.card(key)?;
        if card.face_down {
            return Some("face-down card".to_owned());
        }
        let label = self.content.project.cards.get(card.card.as_str()).map(|definition| definition.label.as_str());
        let mut shown = label.filter(|label| !label.is_empty()).unwrap_or(card.card.as_str()).to_owned();
        // A running mutator adds its status as a second line (§2.11.5).
        let status = card.mutator.as_ref().and_then(|mutator| self.content.project.cards.get(mutator.as_str()));
        if let Some(text) = status.and_then(|mutator| super::mutator_text(&mutator.label)) {
            shown.push_str("\n[");
            shown.push_str(text);
            shown.push(']');
        }
        Some(shown)
    }

    /// `expect label CARD "TEXT"`: the first card of type CARD in play (table first, then the
    /// hands of the other systems) shows this label (`\n` for a newline).
    fn expect_label(&self, args: &str) -> Result<String, String> {
        let usage = "usage: expect label CARD \"TEXT\"";
        let (card_type, text) = args.split_once(char::is_whitespace).ok_or(usage)?;
        let expected = text
            .trim()
            .strip_prefix('"')
            .and_then(|text| text.strip_suffix('"'))
            .ok_or("put the expected label in quotes")?
            .replace("\\n", "\n");
        let key = self.first_in_play(card_type);
        let shown = match key {
            Some(key) => self.card_label(key).unwrap_or_default(),
            None if self.in_a_hand(card_type) => {
                let label = self.content.project.cards.get(card_type).map(|card| card.label.as_str());
                label.filter(|label| !label.is_empty()).unwrap_or(card_type).to_owned()
            }
            None => return Err(format!("no `{card_type}` card is in play")),
        };
        if shown == expected {
            Ok(String::new())
        } else {
            Err(format!("the `{card_type}` card shows {shown:?}, expected {expected:?}"))
        }
    }

    /// Whether a hand of another system (the turns', the campaign's, a board side's) holds a
    /// card of this type.
    fn in_a_hand(&self, card_type: &str) -> bool {
        let turns = self.turns.as_ref().is_some_and(|turns| turns.hand.iter().any(|card| card.as_str() == card_type));
        let campaign =
            self.campaign.as_ref().is_some_and(|campaign| campaign.hand.iter().any(|card| card.as_str() == card_type));
        let boards = self.board.as_ref().is_some_and(|board| {
            board.game.sides.iter().any(|side| side.hand.iter().any(|card| card.as_str() == card_type))
        });
        turns || campaign || boards
    }

    /// `expect timer TOKEN TICKS|none` and `expect holds TOKEN CARD[*N]...`.
    fn expect_inside(&self, what: &str, args: &str) -> Result<String, String> {
        let compare = |name: &str, actual: String, expected: String| {
            if actual == expected {
                Ok(String::new())
            } else {
                Err(format!("{name} is {actual:?}, expected {expected:?}"))
            }
        };
        match what {
            "timer" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect timer TOKEN TICKS|none")?;
                let want = words.next().ok_or("give the ticks left (or none)")?;
                let window = self.window_arg(token)?;
                let left = window.timer_end.map(|end| end.saturating_sub(self.state.tick));
                compare(
                    &format!("time left in {token}"),
                    left.map_or_else(|| "none".to_owned(), |left| left.to_string()),
                    want.to_owned(),
                )
            }
            "holds" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect holds TOKEN CARD[*N]...")?;
                let key = self.token_arg(Some(token))?;
                let inside = self.state.cards.iter().filter(|(_, card)| match card.place {
                    Place::Slot(at, _) | Place::Consumed(at) | Place::Lane(at) => at == key,
                    Place::Table | Place::InCard(_) => false,
                });
                let held = stacks(inside.map(|(_, card)| card.card.as_str()));
                compare(&format!("what {token} holds"), held, words.collect::<Vec<_>>().join(" "))
            }
            _ => Err(format!("`{what}` is not an expectation about what a window holds")),
        }
    }

    /// An expectation about a window (`expect_table`'s words).
    fn expect_window(&self, what: &str, args: &str) -> Result<String, String> {
        let compare = |name: &str, actual: String, expected: String| {
            if actual == expected {
                Ok(String::new())
            } else {
                Err(format!("{name} is {actual:?}, expected {expected:?}"))
            }
        };
        match what {
            "title" | "text" | "end" => {
                let (token, text) =
                    args.split_once(char::is_whitespace).ok_or("usage: expect title|text|end TOKEN \"…\"")?;
                let text = text.trim();
                let expected = text
                    .strip_prefix('"')
                    .and_then(|t| t.strip_suffix('"'))
                    .ok_or("put the expected text in quotes")?;
                let window = self.window_arg(token)?;
                let actual = match what {
                    "title" => &window.title,
                    "text" => &window.text,
                    _ => &window.end_text,
                };
                compare(&format!("{what} of {token}"), actual.clone(), expected.replace("\\n", "\n"))
            }
            "status" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect status TOKEN idle|ready|running|finished|gone")?;
                let want = words.next().ok_or("name a status")?;
                let actual = match self.find_token(token).and_then(|key| self.state.window(key)) {
                    None => "gone",
                    Some(window) => match window.status {
                        Status::Idle => "idle",
                        Status::Ready(_) => "ready",
                        Status::Running => "running",
                        Status::Finished => "finished",
                    },
                };
                compare(&format!("status of {token}"), actual.to_owned(), want.to_owned())
            }
            "act" | "alt" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect act|alt TOKEN ACT|none")?;
                let want = words.next().ok_or("name an act (or none)")?;
                let window = self.window_arg(token)?;
                let actual = if what == "alt" {
                    window.pending_alt.as_ref()
                } else {
                    match &window.status {
                        Status::Ready(act) => Some(act),
                        Status::Running => window.active.as_ref(),
                        Status::Idle | Status::Finished => None,
                    }
                };
                compare(
                    &format!("{what} of {token}"),
                    actual.map_or("none", |act| act.as_str()).to_owned(),
                    want.to_owned(),
                )
            }
            "slots" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect slots TOKEN SLOT...")?;
                let window = self.window_arg(token)?;
                let open: Vec<&str> = window
                    .status_places()
                    .filter_map(|place| window.places.get(place).and_then(Option::as_ref))
                    .map(|open| open.slot.as_str())
                    .collect();
                compare(&format!("open slots of {token}"), open.join(" "), words.collect::<Vec<_>>().join(" "))
            }
            "lane" => {
                let mut words = args.split_whitespace();
                let token = words.next().ok_or("usage: expect lane TOKEN CARD[*N]...")?;
                let window = self.window_arg(token)?;
                let types = window.lane.iter().filter_map(|key| self.state.card(*key)).map(|card| card.card.as_str());
                compare(&format!("results of {token}"), stacks(types), words.collect::<Vec<_>>().join(" "))
            }
            _ => Err(format!("`{what}` is not an expectation about a window")),
        }
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
            Some((last, count)) if *last == card_type => *count = count.saturating_add(1),
            _ => runs.push((card_type, 1)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|(card_type, n)| if *n == 1 { (*card_type).to_owned() } else { format!("{card_type}*{n}") })
        .collect();
    words.join(" ")
}

impl Session {
    /// An act as the reasons name it: "Tend the Lamp (tend_the_lamp)", or its id.
    fn act_item(act: &crate::model::Act) -> String {
        if act.label.is_empty() { format!("act {}", act.id) } else { format!("{} ({})", act.label, act.id) }
    }

    /// Why the idle window of token `key` offers no act: for each act the player may start
    /// there, what it lacks with the values (nothing when the window is gone, ready or busy).
    pub(crate) fn explain_idle_window(&self, key: TokenKey) -> Vec<Reason> {
        let Some(window) = self.state.window(key) else { return Vec::new() };
        if window.status != Status::Idle {
            return Vec::new();
        }
        let content = std::sync::Arc::clone(&self.content);
        let initial = content.initial_acts.get(&window.token).map_or(&[][..], Vec::as_slice);
        initial.iter().filter_map(|act| self.explain_act_in(act.as_str(), Some(key)).ok()).flatten().collect()
    }

    /// Why `act` cannot start now: in `window`, or in the first idle or ready window of its
    /// token (nothing when a window offers it).
    pub(crate) fn explain_act_in(&self, act: &str, window: Option<TokenKey>) -> Result<Vec<Reason>, String> {
        let content = std::sync::Arc::clone(&self.content);
        let definition = content.act(act).ok_or_else(|| format!("there is no act `{act}`"))?;
        let item = Self::act_item(definition);
        let one = |text: String| Ok(vec![Reason::new(item.clone(), text)]);
        let Some(token) = &definition.token else {
            return one("it names no token: it can only follow another act".to_owned());
        };
        if self.state.outcome.is_some() {
            return one("the game has ended".to_owned());
        }
        let offers = |window: &super::Window| window.status == Status::Ready(definition.id.clone());
        let open = |window: &super::Window| matches!(window.status, Status::Idle | Status::Ready(_));
        let key = if let Some(key) = window {
            let Some(found) = self.state.window(key) else { return one("that window is gone".to_owned()) };
            if found.token != *token {
                return one(format!("it starts in a {token} window, not a {} one", found.token));
            }
            if offers(found) {
                return Ok(Vec::new());
            }
            if !open(found) {
                return one(format!("the {token} window is busy ({})", status_words(&found.status)));
            }
            key
        } else {
            let mine = || self.state.windows.iter().filter(|(_, window)| window.token == *token);
            if mine().any(|(_, window)| offers(window)) {
                return Ok(Vec::new());
            }
            match mine().find(|(_, window)| open(window)) {
                Some((key, _)) => *key,
                None if mine().next().is_none() => return one(format!("no {token} window is on the table")),
                None => return one(format!("no window of token {token} is idle (they are all busy)")),
            }
        };
        let mut why = Vec::new();
        if !definition.initial {
            why.push("it is not initial: the player cannot start it, only a chain can reach it".to_owned());
        }
        if self.state.window(key).is_some_and(|window| window.slotted(0).is_none()) {
            why.push("its first slot is empty: an act starts from a card in it".to_owned());
        }
        let mut copy = self.clone();
        let mut events = Vec::new();
        let mut engine = super::step::Engine::new(&content, &mut copy.state, &mut copy.rng, &mut events);
        let mut ctx = super::rules::RuleContext::new(super::Holder::Window(key), 0);
        let mut traces = Vec::new();
        crate::engine::core::explain(&mut engine, &definition.requirements, false, &mut ctx, &mut why, &mut traces);
        Ok(Reason::with_traces(&item, why, traces))
    }

    /// A card's name in reasons: its label, or its type.
    fn card_words(&self, key: CardKey) -> String {
        let Some(card) = self.state.card(key) else { return format!("card {}", key.0) };
        self.content
            .card(card.card.as_str())
            .map(|found| found.label.clone())
            .filter(|label| !label.is_empty())
            .unwrap_or_else(|| card.card.to_string())
    }

    /// `slot:CARD:TOKEN[:PLACE]`: the first card of type CARD (free ones first) and the first
    /// window of TOKEN (`TOKEN#N` for the N-th), at PLACE (default: the first open place).
    pub(crate) fn slot_subject(&self, card: &str, token: &str, place: Option<usize>) -> Result<Subject, String> {
        let key = self
            .state
            .cards
            .iter()
            .filter(|(_, found)| found.card.as_str() == card)
            .min_by_key(|(key, found)| (!found.free, **key))
            .map(|(key, _)| *key)
            .ok_or_else(|| format!("no card `{card}` is in play"))?;
        let window_key = self.token_arg(Some(token))?;
        let place = if let Some(place) = place {
            place
        } else {
            let window = self.state.window(window_key);
            let places = window.map_or(0..0, super::Window::status_places);
            places
                .clone()
                .find(|at| {
                    window
                        .and_then(|w| w.places.get(*at))
                        .is_some_and(|open| open.as_ref().is_some_and(|o| o.card.is_none()))
                })
                .unwrap_or(places.start)
        };
        Ok(Subject::Slot { card: key, token: window_key, place })
    }

    /// Why card `key` cannot go into slot place `place` of `token`'s window: the window's state,
    /// no open slot there, a locked card in it, the card not free, or the slot's aspect counts
    /// and card rule with the values.
    pub(crate) fn explain_slot(&self, key: CardKey, token: TokenKey, place: usize) -> Vec<Reason> {
        let wanted = Choice::Slot { card: key, token, place };
        if self.choices_where(Moving::Only(key), false, |choice| *choice == wanted).contains(&wanted) {
            return Vec::new();
        }
        let name = self.card_words(key);
        let Some(window) = self.state.window(token) else { return vec![Reason::new("", "that window is gone")] };
        let one = |item: String, text: String| vec![Reason::new(item, text)];
        let here = format!("the {} window", window.token);
        if self.state.outcome.is_some() {
            return one(here, "the game has ended".to_owned());
        }
        if window.status == Status::Finished {
            return one(here, "it has finished: collect its results first".to_owned());
        }
        if !window.status_places().contains(&place) {
            let words = if place >= window.places.len() {
                format!("it has {} slot places (0 to {})", window.places.len(), window.places.len().saturating_sub(1))
            } else if window.status == Status::Running {
                "it is running: only its run slots take cards".to_owned()
            } else {
                "that is a run slot, which only opens while an act runs".to_owned()
            };
            return one(here, words);
        }
        let Some(open) = window.places.get(place).and_then(Option::as_ref) else {
            return one(here, format!("no slot is open at place {place}"));
        };
        let slot_item = format!("slot `{}`", open.slot);
        if open.card == Some(key) {
            return one(slot_item, format!("{name} is already in it"));
        }
        if open.card.is_some_and(|held| self.state.card(held).is_some_and(|card| !card.free)) {
            return one(slot_item, "the card in it is locked in".to_owned());
        }
        let Some(card) = self.state.card(key) else { return one(String::new(), "that card is gone".to_owned()) };
        if !card.free {
            return one(name.clone(), "it is not free to move (a slot or an act holds it)".to_owned());
        }
        if !matches!(card.place, Place::Table | Place::Lane(_) | Place::Slot(..)) {
            return one(name.clone(), "it is not in play (it is inside another card or a window)".to_owned());
        }
        let Some(slot) = self.content.slot(open.slot.as_str()) else { return Vec::new() };
        let mut why = Vec::new();
        let count = |entry: &crate::model::FragmentCount| super::step::slot_count(&self.state, key, Some(card), entry);
        let fragment = |entry: &crate::model::FragmentCount| match &entry.fragment {
            FragmentRef::Aspect(id) => format!("aspect {id}"),
            FragmentRef::Card(id) => format!("card {id}"),
            _ => "that".to_owned(),
        };
        let at_least = |need: i64| if need == 1 { String::new() } else { format!(" ×{need}") };
        if !slot.accept_all {
            for entry in &slot.essential {
                let (have, need) = count(entry);
                if have < need {
                    why.push(format!("needs {}{}: {name} has {have}", fragment(entry), at_least(need)));
                }
            }
            for entry in &slot.forbidden {
                let (have, limit) = count(entry);
                if have >= limit {
                    why.push(format!("forbids {}{}: {name} has {have}", fragment(entry), at_least(limit)));
                }
            }
            let required = slot.required.iter().map(|entry| (entry, count(entry)));
            if !slot.required.is_empty() && !required.clone().any(|(_, (have, need))| have >= need) {
                let wants: Vec<String> = slot.required.iter().map(&fragment).collect();
                let has: Vec<String> = required
                    .filter(|(_, (have, _))| *have > 0)
                    .map(|(entry, (have, need))| format!("{have} of {}{}", fragment(entry), at_least(need)))
                    .collect();
                let has = if has.is_empty() { "none".to_owned() } else { has.join(", ") };
                why.push(format!("requires {}: {name} has {has}", wants.join(" or ")));
            }
            if why.is_empty()
                && let Some(rule) = slot.card_rule.as_ref().and_then(|rule| self.content.rule(rule.as_str()))
            {
                let content = std::sync::Arc::clone(&self.content);
                let mut copy = self.clone();
                let mut events = Vec::new();
                let mut engine = super::step::Engine::new(&content, &mut copy.state, &mut copy.rng, &mut events);
                let mut ctx = super::rules::RuleContext::new(super::Holder::Card(key), 0);
                ctx.this_card = Some(key);
                let (mut inner, mut traces) = (Vec::new(), Vec::new());
                let held = crate::engine::core::explain(
                    &mut engine,
                    &rule.requirements,
                    rule.invert,
                    &mut ctx,
                    &mut inner,
                    &mut traces,
                );
                if !held {
                    why.push(format!("its card rule {} fails for {name}: {}", rule.id, inner.join("; ")));
                }
            }
        }
        if why.is_empty() {
            why.push(format!("it does not take {name} now"));
        }
        why.into_iter().map(|text| Reason::new(slot_item.clone(), text)).collect()
    }
}

fn status_words(status: &Status) -> &'static str {
    match status {
        Status::Idle => "idle",
        Status::Ready(_) => "ready",
        Status::Running => "running",
        Status::Finished => "finished",
    }
}
