//! The engine: a [`Session`] plays compiled content. Its whole surface is [`Session::choices`],
//! [`Session::apply`], [`Session::advance`], [`Session::state`] and [`Session::state_hash`];
//! the preview, scripted play, golden tests and simulation all drive it.
//!
//! Time is integer ticks. Every player action and every timer or decay expiry is one step,
//! processed atomically with all its consequences (`spec/cultistlike.md` §2.16).
//!
//! Integer arithmetic here is checked (`clippy::arithmetic_side_effects`): content values reach
//! counts, levels and ticks, and an overflow must become a warning, never a wrap or a panic.

#![warn(clippy::arithmetic_side_effects)]

pub mod board;
pub mod campaign;
mod content;
mod core;
pub mod explain;
pub mod policy;
pub mod script;
mod system;
pub(crate) mod table;
pub mod tactics;
pub mod turns;

pub use table::bars::{AspectShown, describe_aspects};
pub use table::text;

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;
use serde::Serialize;

pub use content::{Content, ContentError};
pub use explain::{Reason, Subject};
pub use table::{
    AspectCounts, CardInstance, CardKey, Cards, Decay, Fragment, Holder, IDLE_PLACES, OpenSlot, Outcome, PLACES, Place,
    RUN_PLACE, Status, TableState, TokenKey, Window, Windows, mutator_text,
};

pub use turns::{Message, StatLine, TurnsState};

use crate::model::{ActId, Board, CardId, Era, Id, MapNode, Project, RuleId, Skill, Stat, TokenId};
pub use campaign::{CampaignResult, CampaignState};
use system::System;
use table::listing::ListingCache;
pub use tactics::{
    ActiveStatus, Charge, FORECAST_TRIALS, Round, SkillForecast, TacticsState, Turn, UnitForecast, UnitState,
};

/// The last tick of game time: 2^53, the largest whole number a formula's f64 holds exactly.
/// Waits stop there (a script's `wait` past it is refused), so no tick sum can overflow.
pub const MAX_TICK: u64 = 1 << 53;

/// Something the player can do.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Choice {
    /// Put a card into an open slot place of a window.
    Slot {
        /// The card.
        card: CardKey,
        /// The window.
        token: TokenKey,
        /// The slot place (0–5 idle, 6 run).
        place: usize,
    },
    /// Take the card out of a slot place back to the table.
    Unslot {
        /// The window.
        token: TokenKey,
        /// The slot place.
        place: usize,
    },
    /// Start the act a Ready window offers.
    Start {
        /// The window.
        token: TokenKey,
    },
    /// Take a finished window's results to the table.
    Collect {
        /// The window.
        token: TokenKey,
    },
    /// Close an Idle or Ready window that holds cards: they return to the table.
    Close {
        /// The window.
        token: TokenKey,
    },
    /// Turn a face-down card (drawn from a deck) face up.
    Flip {
        /// The card.
        card: CardKey,
    },
    /// Roll the die of the board whose turn it is.
    RollDie {
        /// The board.
        board: Id<Board>,
    },
    /// Place the rolled die in the first free cell of a column of the board whose turn it is.
    PlaceOnBoard {
        /// The board.
        board: Id<Board>,
        /// The column, from 1.
        column: u32,
    },
    /// Play a card from a board side's hand at a target (FORMAT.md §11).
    PlayBoardCard {
        /// The side's board.
        board: Id<Board>,
        /// The card.
        card: CardId,
        /// The option chosen, from 1 (0: the card has none).
        option: u32,
        /// The target: a column `(c, 0)` or a cell `(c, r)`, from 1.
        target: Option<(u32, u32)>,
        /// The second cell of a pair target.
        second: Option<(u32, u32)>,
    },
    /// Tactics: the active unit walks to a reachable standing spot.
    MoveUnit {
        /// The unit's key (its id; `ID#N` for the N-th of that unit).
        unit: String,
        /// Cell x.
        x: u16,
        /// Cell y.
        y: u16,
        /// Standing level.
        z: u16,
    },
    /// Tactics: the active unit moves through waypoints, in order, to a standing spot: each
    /// leg a move of the same move skill from the last waypoint with the radius left
    /// (FORMAT.md §12). Not listed among the choices (there are too many); applied when possible.
    MoveUnitVia {
        /// The unit's key.
        unit: String,
        /// The waypoints `[x, y, level]`, in order.
        via: Vec<[u16; 3]>,
        /// Cell x of the end.
        x: u16,
        /// Cell y of the end.
        y: u16,
        /// Standing level of the end.
        z: u16,
    },
    /// Tactics: the active unit uses an action skill aimed at a standing spot.
    UseSkill {
        /// The unit's key.
        unit: String,
        /// The skill.
        skill: Id<Skill>,
        /// Cell x.
        x: u16,
        /// Cell y.
        y: u16,
        /// Standing level.
        z: u16,
    },
    /// Tactics: the active unit ends its turn.
    WaitUnit {
        /// The unit's key.
        unit: String,
    },
    /// Tactics: the active unit turns to face a direction and ends its turn.
    FaceUnit {
        /// The unit's key.
        unit: String,
        /// Degrees counter-clockwise from +x: 0 east, 90 north, 180 west, 270 south.
        facing: u16,
    },
    /// Tactics, team rounds: the team whose round it is gives a turn to one of its units.
    PickUnit {
        /// The unit's key.
        unit: String,
    },
    /// Tactics, team rounds: the team whose round it is ends its round.
    EndRound {
        /// The team.
        team: String,
    },
    /// Turns system: choose an option of a card in the hand; the turn then ends.
    PlayOption {
        /// The card type in the hand (its first copy is played).
        card: CardId,
        /// The option's index in the card's `options`.
        option: usize,
    },
    /// Turns system: end the turn without playing a card.
    EndTurn,
    /// Campaign: take the path from the player's node to `node` (FORMAT.md §14).
    MoveToNode {
        /// The node the path leads to.
        node: Id<MapNode>,
    },
    /// Campaign: end the day's current phase.
    EndPhase,
    /// Campaign: trigger the map's synthesis with two cards of the hand (A first).
    Synthesize {
        /// The first input (its first copy in the hand).
        a: CardId,
        /// The second input.
        b: CardId,
    },
    /// Campaign: in a battle, the player's fighter `attacker` strikes the enemy `target`.
    Strike {
        /// The player's fighter (its key: the card id, `ID#2` for a second copy).
        attacker: String,
        /// The enemy fighter.
        target: String,
    },
    /// Campaign: take one of the options the node just entered offers.
    ChooseNodeOption {
        /// The node.
        node: Id<MapNode>,
        /// The option's id.
        option: String,
    },
    /// Campaign: spend insight, an A and a B of the hand to summon any candidate of the map's
    /// synthesis outright.
    Summon {
        /// The first input.
        a: CardId,
        /// The second input.
        b: CardId,
        /// The candidate summoned.
        result: CardId,
    },
    /// Campaign: play a card of the hand, upright or reversed (its cost paid, its rules run).
    PlayCard {
        /// The card.
        card: CardId,
        /// Play a reversed copy.
        reversed: bool,
        /// The card of the hand it is played on, for a play that names one.
        target: Option<CardId>,
    },
    /// Campaign: bind an A and a B of the hand on the field (B gathers A's tendencies).
    Bind {
        /// The A card.
        a: CardId,
        /// The B card.
        b: CardId,
    },
    /// Campaign: trigger the synthesis of a bound pair (paid as the bond says).
    Trigger {
        /// The A card.
        a: CardId,
        /// The B card.
        b: CardId,
    },
    /// Campaign: trigger the synthesis with B alone (the synthesis's stand-in in A's place).
    SynthesizeAlone {
        /// The B card.
        b: CardId,
    },
    /// Campaign: right after a failure, summon an extra card in the failed card's place.
    SummonExtra {
        /// The card summoned.
        card: CardId,
    },
    /// Campaign: a card of the hand strikes the enemy outside battle (once a day, free).
    Raid {
        /// The card.
        card: CardId,
    },
    /// Campaign: discard a card of the hand (back to its deck at the end of the day).
    DiscardCard {
        /// The card.
        card: CardId,
        /// Discard a reversed copy.
        reversed: bool,
    },
    /// Campaign: pay to remove a card the synthesis drew by its uniform fallback.
    RemoveCard {
        /// The card.
        card: CardId,
    },
    /// Campaign: draw one more card during the draw phase, for the extra-draw cost.
    DrawCard,
    /// Campaign: draw from another deck from now on (during the draw phase).
    UseDeck {
        /// The deck's id.
        deck: String,
    },
}

/// Hashes named numbers (stats, meters) by their bits: `f64` is not `Hash`, and equal runs
/// give equal bits.
pub(super) fn hash_values<'v, K: Hash + 'v, H: Hasher>(
    values: impl IntoIterator<Item = (&'v K, &'v f64)>,
    state: &mut H,
) {
    for (name, value) in values {
        name.hash(state);
        value.to_bits().hash(state);
    }
}

/// Something that happened, in order.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Event {
    /// An act started running in a window.
    ActStarted {
        /// The window.
        token: TokenKey,
        /// The act.
        act: ActId,
    },
    /// The alt act a running window will complete as changed.
    AltChanged {
        /// The window.
        token: TokenKey,
        /// The alt act, or none (the started act again).
        act: Option<ActId>,
    },
    /// An act completed.
    ActCompleted {
        /// The window.
        token: TokenKey,
        /// The act (the alt act, if one was pending).
        act: ActId,
    },
    /// A chain ended; its results wait in the lane.
    ChainFinished {
        /// The window.
        token: TokenKey,
    },
    /// A card was created.
    CardCreated {
        /// The new card.
        card: CardKey,
        /// Its type.
        card_type: CardId,
    },
    /// A card left the world.
    CardDestroyed {
        /// The card.
        card: CardKey,
        /// Its type.
        card_type: CardId,
    },
    /// A card changed type.
    CardTransformed {
        /// The card.
        card: CardKey,
        /// Its old type.
        from: CardId,
        /// Its new type.
        to: CardId,
    },
    /// A mutator (§2.11.5) started on a card, or ended (`None`): the card keeps its type.
    CardMutated {
        /// The card.
        card: CardKey,
        /// The mutator card type whose status it shows now, if any.
        mutator: Option<CardId>,
    },
    /// A token appeared.
    TokenCreated {
        /// The new token.
        token: TokenKey,
        /// Its type.
        token_type: TokenId,
    },
    /// A token dissolved.
    TokenDissolved {
        /// The token.
        token: TokenKey,
    },
    /// Everything was reset and `act` started in a new token.
    GameOver {
        /// The act started.
        act: Option<ActId>,
    },
    /// The game ended with an outcome (or stopped with an error message).
    GameEnded {
        /// The outcome or message.
        outcome: String,
    },
    /// The content asked for something impossible; play goes on.
    Warning(String),
    /// A board side rolled its die.
    BoardRolled {
        /// The side's board.
        board: Id<Board>,
        /// The value.
        value: i64,
    },
    /// A die was placed on a board.
    BoardPlaced {
        /// The board.
        board: Id<Board>,
        /// Its column.
        column: u32,
        /// Its row.
        row: u32,
        /// Its value.
        value: i64,
    },
    /// A die joined a board without being placed (`AddDie`).
    BoardDieAdded {
        /// The board.
        board: Id<Board>,
        /// Its column.
        column: u32,
        /// Its row.
        row: u32,
        /// Its value.
        value: i64,
    },
    /// The die in hand now shows another value (`SetDieValue`).
    BoardDieChanged {
        /// The side's board.
        board: Id<Board>,
        /// The new value.
        value: i64,
    },
    /// A die left a board.
    BoardDestroyed {
        /// The board.
        board: Id<Board>,
        /// Its column.
        column: u32,
        /// Its row.
        row: u32,
        /// Its value.
        value: i64,
    },
    /// A die moved from one board to the same column of another.
    BoardTaken {
        /// The board it left.
        from: Id<Board>,
        /// The row it left.
        from_row: u32,
        /// The board it joined.
        to: Id<Board>,
        /// The column.
        column: u32,
        /// The row it joined.
        row: u32,
        /// Its value.
        value: i64,
    },
    /// Two dice of a board swapped places.
    BoardSwapped {
        /// The board.
        board: Id<Board>,
        /// One cell (column, row).
        first: (u32, u32),
        /// The other cell.
        second: (u32, u32),
    },
    /// A board side played a card.
    BoardCardPlayed {
        /// The side's board.
        board: Id<Board>,
        /// The card.
        card: CardId,
        /// The option chosen (0: none).
        option: u32,
    },
    /// A board side's turn began.
    BoardTurn {
        /// The side's board.
        board: Id<Board>,
    },
    /// A board game ended.
    BoardGameEnded {
        /// The winner; none: a draw or an outcome named by the content.
        winner: Option<Id<Board>>,
        /// Each side's score.
        scores: Vec<(Id<Board>, i64)>,
        /// The outcome in words.
        outcome: String,
    },
    /// Tactics: a unit's turn started.
    UnitTurnStarted {
        /// The unit.
        unit: String,
    },
    /// Tactics, team rounds: a team's round began.
    TeamRoundStarted {
        /// The team.
        team: String,
        /// Rounds started so far in the battle.
        round: u64,
    },
    /// Tactics: a unit used a charged skill; it resolves at the spot after its delay.
    UnitSkillCharging {
        /// The unit.
        unit: String,
        /// The skill.
        skill: Id<Skill>,
        /// The spot aimed at (x, y, level).
        at: [u16; 3],
        /// Its delay in scheduler ticks.
        delay: f64,
    },
    /// Tactics: a charged skill did not resolve (its user was defeated first).
    UnitSkillCancelled {
        /// The unit.
        unit: String,
        /// The skill.
        skill: Id<Skill>,
    },
    /// Tactics: a unit's turn ended.
    UnitTurnEnded {
        /// The unit.
        unit: String,
    },
    /// Tactics: a unit walked.
    UnitMoved {
        /// The unit.
        unit: String,
        /// The move skill it used (so simulations count move skills as used).
        skill: Id<Skill>,
        /// Where from (x, y, level).
        from: [u16; 3],
        /// Where to.
        to: [u16; 3],
        /// Cells walked.
        steps: u32,
    },
    /// Tactics: a unit used a skill.
    UnitUsedSkill {
        /// The unit.
        unit: String,
        /// The skill.
        skill: Id<Skill>,
        /// The spot aimed at (x, y, level).
        at: [u16; 3],
    },
    /// Tactics: a unit ended a move on another and rides it (`spec/srpgck.md` §a.7).
    UnitMounted {
        /// The rider.
        unit: String,
        /// The unit ridden.
        mount: String,
    },
    /// Tactics: a rider left its mount (walked or was pushed off).
    UnitDismounted {
        /// The rider.
        unit: String,
        /// The unit it rode.
        mount: String,
    },
    /// Tactics: the active unit turned to a facing as it ended its turn.
    UnitFaced {
        /// The unit.
        unit: String,
        /// Degrees counter-clockwise from +x.
        facing: u16,
    },
    /// Tactics: a knockback, shove or throw moved a unit in a straight line (§b.8).
    UnitPushed {
        /// The unit moved.
        unit: String,
        /// Who used the skill.
        by: String,
        /// Where from (x, y, level).
        from: [u16; 3],
        /// Where it ended.
        to: [u16; 3],
        /// Steps taken of the walk (cells crossed at a locked direction).
        steps: u16,
        /// Steps it could not take (it met a wall, a unit or the map's edge).
        remaining: u16,
        /// Levels fallen beyond the walk's `z_down_max`.
        drop: f32,
        /// The units it ran into, in order.
        collided: Vec<String>,
    },
    /// Tactics: a unit hit by an action skill replied with a skill's reaction (a counter-attack).
    UnitReacted {
        /// The unit that reacts.
        unit: String,
        /// The skill whose reaction it is.
        skill: Id<Skill>,
        /// The unit whose action it replies to.
        against: String,
    },
    /// Tactics: a skill reached a unit with a hit type.
    UnitHit {
        /// The unit hit.
        unit: String,
        /// Who used the skill.
        by: String,
        /// The hit type's label.
        hit: String,
    },
    /// Tactics: a unit lost hp (exact values, not rounded).
    UnitDamaged {
        /// The unit.
        unit: String,
        /// How much.
        amount: f64,
        /// Its hp now.
        hp: f64,
    },
    /// Tactics: another stat of a unit changed (or hp rose); the exact value.
    UnitStatChanged {
        /// The unit.
        unit: String,
        /// The stat.
        stat: String,
        /// Its stored value now.
        value: f64,
    },
    /// Tactics: a status effect began (or started over).
    UnitStatusAdded {
        /// The unit.
        unit: String,
        /// The status.
        status: String,
        /// Its duration in ticks of its clock (scheduler ticks, or the unit's own time).
        ticks: u64,
    },
    /// Tactics: a status effect ran out (or a set-up line took it off).
    UnitStatusExpired {
        /// The unit.
        unit: String,
        /// The status.
        status: String,
    },
    /// Tactics: a unit's hp fell to 0: it leaves the battle.
    UnitDefeated {
        /// The unit.
        unit: String,
    },
    /// Tactics: the battle ended; this team won (empty: nobody stands).
    UnitTeamWon {
        /// The team.
        team: String,
    },
    /// Turns system: an option was chosen.
    TurnOptionPlayed {
        /// The card played.
        card: CardId,
        /// The option's label.
        option: String,
    },
    /// Turns system: a rule's requirements held and it ran.
    TurnRuleRan {
        /// The rule.
        rule: RuleId,
    },
    /// Turns system: a rule joined the rule collection.
    TurnRuleAdded {
        /// The rule.
        rule: RuleId,
    },
    /// Turns system: a rule left the rule collection.
    TurnRuleRemoved {
        /// The rule.
        rule: RuleId,
    },
    /// Turns system: a card was drawn into the hand.
    TurnCardDrawn {
        /// The card type.
        card: CardId,
    },
    /// Turns system: a new turn began.
    TurnStarted {
        /// Its number.
        turn: u32,
    },
    /// Turns system: a content warning; play goes on.
    TurnWarning(String),
    /// Turns system: a content error; the game stops (a `GameEnded` follows).
    TurnError(String),
    /// A stored stat changed.
    StatChanged {
        /// The stat.
        stat: Id<Stat>,
        /// Its new value as shown (rounded).
        value: String,
    },
    /// A message to the player (the turn's deferred messages, at its end).
    MessageShown(Message),
    /// Campaign: the player took a path.
    CampaignMoved {
        /// The node left.
        from: Id<MapNode>,
        /// The node entered.
        to: Id<MapNode>,
        /// What it cost, in words.
        cost: String,
    },
    /// Campaign: the player captured a node.
    NodeCaptured {
        /// The node.
        node: Id<MapNode>,
    },
    /// Campaign: a patrol retook a captured node.
    NodeRetaken {
        /// The node.
        node: Id<MapNode>,
        /// The patrol.
        patrol: String,
    },
    /// Campaign: a patrol walked to the next node of its route.
    PatrolMoved {
        /// The patrol.
        patrol: String,
        /// Where it stands now.
        node: Id<MapNode>,
    },
    /// Campaign: a phase of a day began.
    PhaseStarted {
        /// The day, from 1.
        day: u32,
        /// The phase's name.
        phase: String,
    },
    /// Campaign: an era began.
    EraStarted {
        /// The era.
        era: Id<Era>,
    },
    /// Campaign: a rule's requirements held and it ran.
    CampaignRuleRan {
        /// The rule.
        rule: RuleId,
    },
    /// Campaign: a meter crossed a threshold; its rule runs next.
    ThresholdCrossed {
        /// The stat.
        stat: Id<Stat>,
        /// The threshold's rule.
        rule: RuleId,
    },
    /// Campaign: a synthesis was triggered; both inputs left the hand.
    Synthesized {
        /// The first input.
        a: CardId,
        /// The second input.
        b: CardId,
        /// The candidate chosen.
        result: CardId,
        /// Its success chance in percent, in words.
        chance: String,
        /// Whether it succeeded (the result joined the hand).
        success: bool,
    },
    /// Campaign: a battle began (fighters by key).
    BattleStarted {
        /// The trigger's id.
        battle: String,
        /// The player's fighters.
        player: Vec<String>,
        /// The enemy's fighters.
        enemy: Vec<String>,
    },
    /// Campaign: a fighter struck another.
    FighterStruck {
        /// The striker's key.
        attacker: String,
        /// The struck fighter's key.
        target: String,
        /// The damage, in words.
        damage: String,
        /// The struck fighter's life left, in words.
        life: String,
    },
    /// Campaign: a battle ended.
    BattleEnded {
        /// The trigger's id.
        battle: String,
        /// The player won.
        won: bool,
    },
    /// Campaign: the node entered offers options; the campaign waits for a choice.
    NodeOptionsOffered {
        /// The node.
        node: Id<MapNode>,
        /// The options offered (ids).
        options: Vec<String>,
    },
    /// Campaign: an option of a node was chosen (its rules run next).
    NodeOptionChosen {
        /// The node.
        node: Id<MapNode>,
        /// The option's id.
        option: String,
    },
    /// Campaign: insight was spent to summon a candidate outright (both inputs left the hand).
    Summoned {
        /// The first input.
        a: CardId,
        /// The second input.
        b: CardId,
        /// The card summoned.
        result: CardId,
        /// The insight spent, in words.
        cost: String,
    },
    /// Campaign: a card the synthesis drew by its uniform fallback was paid for and removed.
    CardRemoved {
        /// The card.
        card: CardId,
        /// What it cost, in words.
        cost: String,
    },
    /// Campaign: a card was drawn into the hand.
    CardDrawn {
        /// The card.
        card: CardId,
        /// It came reversed.
        reversed: bool,
        /// The deck it came from.
        deck: String,
    },
    /// Campaign: a card of the hand was played (its rules run next) and went to the discard pile.
    CardPlayed {
        /// The card.
        card: CardId,
        /// It was played reversed.
        reversed: bool,
        /// What it cost, in words.
        cost: String,
    },
    /// Campaign: a draw found the deck's pile empty; part of the discard pile was shuffled in.
    PileReshuffled {
        /// The deck.
        deck: String,
        /// How many cards went back.
        cards: u32,
    },
    /// Campaign: a card was discarded from the hand.
    CardDiscarded {
        /// The card.
        card: CardId,
    },
    /// Campaign: at the end of the day the cards discarded from the hand went back to the decks.
    DiscardsReturned {
        /// How many cards went back (cards of no deck leave the game).
        cards: u32,
    },
    /// Campaign: the most probable candidate of a synthesis failed; the insight stat gained a point.
    InsightGained {
        /// The stat.
        stat: Id<Stat>,
    },
    /// Campaign: a synthesis's dice check was rolled (a second roll is a second event).
    DiceChecked {
        /// Each die's value.
        dice: Vec<i64>,
        /// Whether the sum beat the check.
        success: bool,
    },
    /// Campaign: a hand modifier added (positive) or removed (negative) copies of a card.
    HandChanged {
        /// The card.
        card: CardId,
        /// Copies added, or removed when negative.
        count: i64,
    },
    /// Campaign: a card's property changed for the rest of the campaign (per-card state).
    CardBoosted {
        /// The card.
        card: CardId,
        /// The property.
        property: String,
        /// Its change, in words.
        amount: String,
    },
    /// Campaign: a hand modifier moved cards of a draw pile (`op` says how).
    PileChanged {
        /// The deck whose pile changed.
        deck: String,
        /// The hand modifier.
        op: crate::model::HandOp,
        /// The cards moved, in order.
        cards: Vec<CardId>,
    },
    /// Campaign: a revelation was granted (its rules run next).
    RevelationGranted {
        /// The revelation's id.
        revelation: String,
    },
    /// Campaign: an A and a B of the hand were bound on the field.
    CardsBound {
        /// The A card.
        a: CardId,
        /// The B card.
        b: CardId,
    },
    /// Campaign: after a failure, an extra card was summoned in the failed card's place.
    ExtraSummoned {
        /// The card whose synthesis failed.
        failed: CardId,
        /// The card summoned.
        card: CardId,
    },
    /// Campaign: a card of the hand struck the enemy outside battle.
    Raided {
        /// The card.
        card: CardId,
        /// The card standing for the enemy.
        against: CardId,
        /// The damage, in words.
        damage: String,
    },
    /// Campaign: the campaign ended.
    CampaignEnded {
        /// Whether the player won.
        won: bool,
        /// The grade, when one applied.
        grade: Option<String>,
    },
}

/// Why a choice was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    /// The game has ended.
    #[error("the game has ended")]
    GameEnded,
    /// The choice is not among [`Session::choices`].
    #[error("not possible now: {0}")]
    NotPossible(String),
}

/// How much work a session has done (not part of the state or its hash).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counters {
    /// Player actions applied and timer or decay expiries processed.
    pub steps: u64,
    /// Acts completed.
    pub act_completions: u64,
    /// Requirements evaluated by steps: act entry tests, slot and text rules, rules (listing
    /// [`Session::choices`] evaluates on a copy and is not counted).
    pub rule_evaluations: u64,
}

impl Counters {
    fn add(&mut self, steps: u64, events: &[Event], rule_evaluations: u64) {
        let completions = events.iter().filter(|event| matches!(event, Event::ActCompleted { .. })).count() as u64;
        self.steps = self.steps.saturating_add(steps);
        self.act_completions = self.act_completions.saturating_add(completions);
        self.rule_evaluations = self.rule_evaluations.saturating_add(rule_evaluations);
    }
}

/// Compiled content, state and a seeded generator: one play of a project.
#[derive(Clone, Debug)]
pub struct Session {
    content: Arc<Content>,
    state: TableState,
    rng: Pcg64Mcg,
    counters: Counters,
    board: Option<board::BoardState>,
    /// The battle, when the project sets one up.
    tactics: Option<TacticsState>,
    /// What listing the battle's choices worked out for its current state (see
    /// [`tactics::TacticsMemo`]); emptied by [`Session::battle_mut`].
    tactics_memo: tactics::TacticsMemo,
    /// The turns system, when the project has a turn config.
    turns: Option<TurnsState>,
    /// The campaign, when the project's entry names a node map.
    campaign: Option<CampaignState>,
    /// What listing choices worked out for each card, reused while the card does not change.
    listing: ListingCache,
    /// What happened while the session started (not part of the state).
    started: Arc<[Event]>,
    /// The seed it started from.
    seed: u64,
    /// Steps (counted as [`Session::over_step_limit`] does) after which the clock stops passing
    /// time; not part of the state. A caller's budget, e.g. the editor's replay.
    step_limit: u64,
    /// Set by another thread to stop the clock at the next expiry (see [`Session::set_interrupt`]).
    interrupt: Option<Arc<AtomicBool>>,
}

impl Session {
    /// Compiles `project` and starts a session; content with errors is refused with the list.
    pub fn new(project: Project, seed: u64) -> Result<Self, ContentError> {
        Ok(Self::from_content(Arc::new(Content::compile(project)?), seed))
    }

    /// The seed the session started from.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Starts a session on already compiled content: the entry tokens and cards on the table.
    pub fn from_content(content: Arc<Content>, seed: u64) -> Self {
        let mut session = Self {
            content,
            state: TableState::default(),
            rng: Pcg64Mcg::seed_from_u64(seed),
            seed,
            counters: Counters::default(),
            board: None,
            tactics: None,
            tactics_memo: tactics::TacticsMemo::default(),
            turns: None,
            campaign: None,
            listing: ListingCache::default(),
            started: Arc::new([]),
            step_limit: u64::MAX,
            interrupt: None,
        };
        let mut events = Vec::new();
        let mut evaluations: u64 = 0;
        for system in System::START_ORDER {
            evaluations = evaluations.saturating_add(session.start_system(system, &mut events));
        }
        session.counters.add(0, &events, evaluations);
        session.started = events.into();
        session
    }

    /// What happened while the session started: the entry cards and tokens, instant acts, the
    /// first hand, the battle's set-up warnings (a unit placed where nobody stands, a unit that
    /// never gets a turn), the campaign's first era and phase. Not part of the state.
    pub fn start_events(&self) -> &[Event] {
        &self.started
    }

    /// How much work this session has done since it started.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// Stops the clock once this session's steps and act completions pass `steps`: a wait
    /// then ends early, at the tick it reached. For callers with a budget (the editor's replay
    /// of a long log); a session has no limit unless given one.
    pub fn set_step_limit(&mut self, steps: u64) {
        self.step_limit = steps;
    }

    /// Whether the session did more steps (and act completions) than its step limit allows.
    pub fn over_step_limit(&self) -> bool {
        self.counters.steps.saturating_add(self.counters.act_completions) > self.step_limit
    }

    /// A flag another thread may set to stop the clock at the next expiry: a wait then ends
    /// early, at the tick it reached (the editor's Stop button on a long replay).
    pub fn set_interrupt(&mut self, flag: Option<Arc<AtomicBool>>) {
        self.interrupt = flag;
    }

    /// Whether a wait must end now: past the step limit, or interrupted.
    pub(crate) fn clock_must_stop(&self) -> bool {
        self.over_step_limit() || self.interrupt.as_ref().is_some_and(|flag| flag.load(Ordering::Relaxed))
    }

    /// The compiled content.
    pub fn content(&self) -> &Arc<Content> {
        &self.content
    }

    /// The state, read-only.
    pub fn state(&self) -> &TableState {
        &self.state
    }

    /// A hash of the whole state and the generator: equal runs give equal hashes.
    pub fn state_hash(&self) -> u64 {
        let mut hasher = rustc_hash::FxHasher::default();
        for system in System::ALL {
            self.hash_system(system, &mut hasher);
        }
        format!("{:?}", self.rng).hash(&mut hasher);
        hasher.finish()
    }

    /// Everything the player can do now, in a stable order.
    pub fn choices(&self) -> Vec<Choice> {
        let mut choices = Vec::with_capacity(16);
        for system in System::ALL {
            self.system_choices(system, &mut choices);
        }
        choices
    }

    /// Does what the player chose; refused (and nothing changes) unless it is possible now.
    pub fn apply(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        self.apply_checked(choice, true)
    }

    /// [`Session::apply`] of a choice just listed by [`Session::choices`] on this very state,
    /// which is therefore possible: the table's choices are not listed again to check it.
    pub(super) fn apply_listed(&mut self, choice: &Choice) -> Result<Vec<Event>, ChoiceError> {
        self.apply_checked(choice, false)
    }

    fn apply_checked(&mut self, choice: &Choice, check: bool) -> Result<Vec<Event>, ChoiceError> {
        let system = System::of(choice);
        if system.ends_with_the_game() && self.state.outcome.is_some() {
            return Err(ChoiceError::GameEnded);
        }
        self.apply_in(system, choice, check)
    }

    /// Lets `ticks` of game time pass, processing every timer and decay that expires. The clock
    /// stops at [`MAX_TICK`].
    pub fn advance(&mut self, ticks: u64) -> Vec<Event> {
        let ticks = self.ticks_left().min(ticks);
        let mut events = Vec::new();
        for system in System::TIME_ORDER {
            self.pass_time_in(system, ticks, &mut events);
        }
        events
    }

    /// How many ticks may still pass before the clock reaches [`MAX_TICK`].
    pub fn ticks_left(&self) -> u64 {
        MAX_TICK.saturating_sub(self.state.tick)
    }

    /// As [`Self::advance`], each event with the tick it happened at: a table timer or decay
    /// that expires on the way carries its own tick; the rest, the tick the wait ends at.
    pub fn advance_timed(&mut self, ticks: u64) -> Vec<script::TimedEvent> {
        let ticks = self.ticks_left().min(ticks);
        let mut events = Vec::new();
        let mut marks = Vec::new();
        for system in System::TIME_ORDER {
            if system == System::Table {
                self.advance_table_marked(ticks, &mut events, Some(&mut marks));
            } else {
                self.pass_time_in(system, ticks, &mut events);
            }
        }
        let end = self.state.tick;
        let mut marks = marks.into_iter().peekable();
        events
            .into_iter()
            .enumerate()
            .map(|(at, event)| {
                while marks.peek().is_some_and(|(count, _)| *count <= at) {
                    marks.next();
                }
                let tick = marks.peek().map_or(end, |(_, tick)| *tick);
                script::TimedEvent { tick, event }
            })
            .collect()
    }
}
