//! Table content: aspects, cards, decks, slots, rules, acts and tokens
//! (the Cultistlike model of `spec/cultistlike.md` §1, extended with formulas, stats and
//! turn effects so every system shares one rule model).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::value::{Colour, Expr, is_default};
use super::walk::{FieldPath, Visitor, VisitorMut, Walk, impl_walk};
use super::{BoardModifier, BoardPlay, Id, Kind, Stat};

/// Id of an [`Aspect`].
pub type AspectId = Id<Aspect>;
/// Id of a [`Card`].
pub type CardId = Id<Card>;
/// Id of a [`Deck`].
pub type DeckId = Id<Deck>;
/// Id of a [`Slot`].
pub type SlotId = Id<Slot>;
/// Id of a [`Rule`].
pub type RuleId = Id<Rule>;
/// Id of an [`Act`].
pub type ActId = Id<Act>;
/// Id of a [`Token`].
pub type TokenId = Id<Token>;

/// A fragment reference: an aspect, a card type, or one of the special fragments that
/// stand for something of the running context (`spec/cultistlike.md` §2.4).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub enum FragmentRef {
    /// An aspect.
    Aspect(AspectId),
    /// A card type.
    Card(CardId),
    /// The fragment whose trigger is running (`___ThisFragment`).
    ThisFragment,
    /// The card instance whose trigger is running (`___ThisCard`).
    ThisCard,
    /// The current matched-cards list (`___MatchedCards`).
    MatchedCards,
    /// The scope's memory fragment (`___MemoryFragment`).
    MemoryFragment,
}

impl Walk for FragmentRef {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        match self {
            Self::Aspect(id) => id.walk(path, visitor),
            Self::Card(id) => id.walk(path, visitor),
            Self::ThisFragment | Self::ThisCard | Self::MatchedCards | Self::MemoryFragment => {}
        }
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        match self {
            Self::Aspect(id) => id.walk_mut(path, visitor),
            Self::Card(id) => id.walk_mut(path, visitor),
            Self::ThisFragment | Self::ThisCard | Self::MatchedCards | Self::MemoryFragment => {}
        }
    }
}

impl FragmentRef {
    /// The kind and slug of a concrete fragment, `None` for special fragments.
    pub fn target(&self) -> Option<(Kind, &str)> {
        match self {
            Self::Aspect(id) => Some((Kind::Aspect, id.as_str())),
            Self::Card(id) => Some((Kind::Card, id.as_str())),
            _ => None,
        }
    }
}

/// A fragment with a count: initial aspects of a card, slot acceptance entries, act
/// results (Cultistlike's `HeldFragment`, and repeated list entries folded into a count).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FragmentCount {
    /// The fragment counted.
    pub fragment: FragmentRef,
    /// How many; 1 when omitted.
    #[serde(default = "Expr::one", skip_serializing_if = "Expr::is_one")]
    #[schemars(!skip_serializing_if)]
    pub count: Expr,
}
impl_walk!(FragmentCount { fragment, count });

impl FragmentCount {
    /// `count` of `fragment`.
    pub fn new(fragment: FragmentRef, count: i64) -> Self {
        Self { fragment, count: Expr::int(count) }
    }
}

/// Where a test counts fragments (`spec/cultistlike.md` §1.6 ReqLoc, §2.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum Location {
    /// The context's holder (normally the act window).
    #[default]
    Scope,
    /// Only the cards in the act window's slots.
    Slots,
    /// The optional global heap holder.
    Heap,
    /// Everything on the table.
    Table,
    /// The current matched-cards list.
    MatchedCards,
    /// The whole world.
    Anywhere,
    /// The whole world, counting only free things.
    Free,
}

/// Comparison of a test (`spec/cultistlike.md` §1.6 ReqOp).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum TestOp {
    /// left ≥ right.
    #[default]
    MoreOrEqual,
    /// left = right.
    Equal,
    /// left ≤ right.
    LessOrEqual,
    /// left > right.
    More,
    /// left ≠ right.
    NotEqual,
    /// left < right.
    Less,
    /// left mod right = 0.
    Mod,
    /// `constant × left` percent chance.
    RandomChallenge,
    /// left / (left + right) chance.
    RandomClash,
}

/// One entry test of an act, rule or slot (`spec/cultistlike.md` §1.6, §2.5).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Test {
    /// Filters the matched-cards list card by card.
    #[serde(skip_serializing_if = "is_default")]
    pub card_test: bool,
    /// A failure does not fail the enclosing rule.
    #[serde(skip_serializing_if = "is_default")]
    pub can_fail: bool,
    /// Where the left fragment is counted.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub loc1: Location,
    /// The left fragment (none: slicing for card tests, 0 otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment1: Option<FragmentRef>,
    /// The comparison.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: TestOp,
    /// The right value, or the multiplier of the right fragment's count.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub constant: Expr,
    /// Where the right fragment is counted.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub loc2: Location,
    /// The right fragment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment2: Option<FragmentRef>,
}
impl_walk!(Test { fragment1, constant, fragment2 });

/// The entry requirements of an act or the condition of a rule.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Requirements {
    /// Tests, attempted in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<Test>,
    /// A formula that must be non-zero (turn and campaign conditions over the game state).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Expr>,
    /// Every listed rule must pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub and: Vec<RuleId>,
    /// At least one listed rule must pass, if the list is non-empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub or: Vec<RuleId>,
}
impl_walk!(Requirements { tests, condition, and, or });

impl Requirements {
    /// Whether nothing is required.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// Operation of an [`ActModifier`] (`spec/cultistlike.md` §2.7.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ActOp {
    /// Add or remove fragments in the scope.
    #[default]
    Adjust,
    /// Pull free cards into the act window.
    Grab,
    /// Return cards to the table.
    Expulse,
    /// Set the scope's memory fragment.
    SetMemory,
    /// Run the triggers of a fragment or cards now.
    RunTriggers,
}

/// An act modifier: changes the act's own scope.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct ActModifier {
    /// What to do.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: ActOp,
    /// The fragment or cards acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<FragmentRef>,
    /// How many (0 = all for Grab).
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub level: Expr,
    /// Where `reference` is counted.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub ref_loc: Location,
    /// If set, `level` is multiplied by this fragment's count at `ref_loc`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<FragmentRef>,
}
impl_walk!(ActModifier { fragment, level, reference });

/// Operation of a [`CardModifier`] (`spec/cultistlike.md` §2.7.3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum CardOp {
    /// Add `level` of a fragment into each target card.
    #[default]
    FragmentAdditive,
    /// Set each target's count of a fragment to `level`.
    FragmentSet,
    /// Turn each target into another card type.
    Transform,
    /// Start each target's decay.
    Decay,
    /// Set each target's memory fragment.
    SetMemory,
    /// Copy listed cards into each target once.
    Spread,
}

/// A card modifier: changes cards inside the scope.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CardModifier {
    /// What to do.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: CardOp,
    /// Which cards are changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<FragmentRef>,
    /// What is applied to them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<FragmentRef>,
    /// How much.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub level: Expr,
    /// If set, `level` is multiplied by this fragment's count in the scope.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference: Option<FragmentRef>,
}
impl_walk!(CardModifier { target, fragment, level, reference });

/// Operation of a [`TableModifier`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum TableOp {
    /// Spawn a token of the act's token type that runs the act.
    #[default]
    SpawnAct,
    /// Spawn an idle token of the act's token type.
    SpawnToken,
}

/// A table modifier: spawns tokens.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TableModifier {
    /// What to do.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: TableOp,
    /// The act (and through it, the token type).
    pub act: ActId,
}
impl_walk!(TableModifier { act });

/// Operation of a [`PathModifier`]: what runs next, and how the game ends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum PathOp {
    /// Try `act` next and return to this chain afterwards.
    #[default]
    BranchOut,
    /// Run `act` next, unconditionally.
    ForceAct,
    /// Remember `act` as the window's callback.
    SetCallback,
    /// Run the remembered callback next.
    Callback,
    /// Reset the game and spawn `act` (Cultistlike game over).
    GameOver,
    /// End the game with the outcome named in `text` (victory grades, "end of history").
    EndGame,
    /// Report `text` as a warning; play continues.
    Warning,
    /// Report `text` as an error; the game stops.
    Error,
}

/// A path modifier: changes what runs next or ends the game.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PathModifier {
    /// What to do.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: PathOp,
    /// The act, for the ops that name one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub act: Option<ActId>,
    /// The outcome or message, for `EndGame`, `Warning` and `Error`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
}
impl_walk!(PathModifier { act });

/// Operation of a [`DeckModifier`] (`spec/cultistlike.md` §2.7.5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum DeckOp {
    /// Draw a card into the scope.
    #[default]
    Draw,
    /// Draw the entry after the target.
    DrawNext,
    /// Draw the entry before the target.
    DrawPrevious,
    /// Append the target to the deck.
    Add,
    /// Insert the target at the front of the deck.
    AddFront,
    /// Transform matching cards into the entry after their own type.
    ForwardShift,
}

/// How a deck's shuffle orders its entries (`spec/cultistlike.md` §2.12, D6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ShuffleMode {
    /// Every order equally likely.
    #[default]
    Uniform,
    /// The original's insertion shuffle: each entry in turn is inserted before a random one of
    /// those already placed, so the first listed entry is always drawn last in each cycle.
    Insertion,
}

/// A deck modifier: draws from or changes a deck.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct DeckModifier {
    /// What to do.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: DeckOp,
    /// The deck, if named directly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck: Option<DeckId>,
    /// Otherwise the deck of this fragment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck_from: Option<FragmentRef>,
    /// The card or fragment the op works with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fragment: Option<FragmentRef>,
}
impl_walk!(DeckModifier { deck, deck_from, fragment });

/// Operation of a [`StatModifier`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum StatOp {
    /// stat := stat + value.
    #[default]
    Add,
    /// stat := value.
    Set,
    /// stat := stat × value.
    Multiply,
}

impl StatOp {
    /// The stat's new value: `old` changed by `amount` with this op.
    pub fn apply(self, old: f64, amount: f64) -> f64 {
        match self {
            Self::Add => old + amount,
            Self::Set => amount,
            Self::Multiply => old * amount,
        }
    }
}

/// A stat modifier: changes a stored stat by a formula.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatModifier {
    /// The stat changed.
    pub stat: Id<Stat>,
    /// How.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: StatOp,
    /// By how much.
    #[serde(default, skip_serializing_if = "Expr::is_zero")]
    pub value: Expr,
}
impl_walk!(StatModifier { stat, value });

/// Operation of a [`RuleModifier`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum RuleOp {
    /// Add the rule to the running rule collection.
    #[default]
    Add,
    /// Remove the rule from the running rule collection.
    Remove,
}

/// A rule modifier: changes the turn system's rule collection.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RuleModifier {
    /// Add or remove.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: RuleOp,
    /// The rule.
    pub rule: RuleId,
}
impl_walk!(RuleModifier { rule });

/// What an act or rule does when it completes or runs: the modifier lists of every
/// category, then the furthermore rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Effects {
    /// Changes to the scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub act_modifiers: Vec<ActModifier>,
    /// Changes to cards in the scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub card_modifiers: Vec<CardModifier>,
    /// Token spawns.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub table_modifiers: Vec<TableModifier>,
    /// What runs next; game end.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub path_modifiers: Vec<PathModifier>,
    /// Deck draws and changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deck_modifiers: Vec<DeckModifier>,
    /// Stat changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stat_modifiers: Vec<StatModifier>,
    /// Rule-collection changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rule_modifiers: Vec<RuleModifier>,
    /// Rules run afterwards, each with fresh matches.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub furthermore: Vec<RuleId>,
    /// Board changes (boards system).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub board_modifiers: Vec<BoardModifier>,
    /// Changes to the campaign's hand, piles and per-card state (FORMAT.md §14).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hand_modifiers: Vec<HandModifier>,
}
impl_walk!(Effects {
    act_modifiers,
    card_modifiers,
    table_modifiers,
    path_modifiers,
    deck_modifiers,
    stat_modifiers,
    rule_modifiers,
    furthermore,
    board_modifiers,
    hand_modifiers,
});

/// What a hand modifier does in the campaign (FORMAT.md §14 "Hand modifiers").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum HandOp {
    /// `amount` copies of the card join the hand.
    #[default]
    Add,
    /// Up to `amount` copies of the card leave the hand (to nowhere).
    Remove,
    /// The card's `property` grows by `amount` for the rest of the campaign (per-card state).
    Boost,
    /// `amount` copies of the card go on top of the current draw pile.
    ToDeckTop,
    /// `amount` cards are drawn from the current draw pile (past the hand limit).
    Draw,
    /// The top `amount` cards of the discard pile go on top of the current draw pile.
    DiscardToDeckTop,
    /// The top `amount` cards of the current draw pile are looked at; those without the `keep`
    /// aspect go to its bottom, in order.
    SinkTop,
}

/// Which card a hand modifier works on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum CardPick {
    /// The card the player named when playing the card or taking the option.
    #[default]
    Target,
    /// The last card a synthesis or summon produced.
    Result,
    /// The A card of the synthesis under way (its rules and revelations).
    A,
    /// The B card of the synthesis under way.
    B,
    /// This card.
    Card(CardId),
}
impl Walk for CardPick {
    fn walk(&self, path: &mut FieldPath, visitor: &mut dyn Visitor) {
        if let Self::Card(id) = self {
            id.walk(path, visitor);
        }
    }
    fn walk_mut(&mut self, path: &mut FieldPath, visitor: &mut dyn VisitorMut) {
        if let Self::Card(id) = self {
            id.walk_mut(path, visitor);
        }
    }
}

/// A change to the campaign's hand, piles or per-card state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HandModifier {
    /// What happens.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub op: HandOp,
    /// The card it happens to (`Add`, `Remove`, `Boost`, `ToDeckTop`).
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub card: CardPick,
    /// The card property a `Boost` changes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub property: String,
    /// How many (copies, cards, points); a formula.
    #[serde(default = "Expr::one", skip_serializing_if = "Expr::is_one")]
    #[schemars(!skip_serializing_if)]
    pub amount: Expr,
    /// The aspect a card must have to stay on top (`SinkTop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(!skip_serializing_if)]
    pub keep: Option<AspectId>,
}
impl_walk!(HandModifier { card, amount, keep });

impl Effects {
    /// Whether nothing happens.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// An aspect: a countable quality held by cards and act windows.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Aspect {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: AspectId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Info text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Colour drawn when there is no art.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
    /// Picture, relative to the project folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub art: Option<String>,
    /// Not shown in fragment bars.
    #[serde(skip_serializing_if = "is_default")]
    pub hidden: bool,
    /// Trigger rules, run when an act completes with this aspect in scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
    /// Slots opened in idle windows holding this aspect.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<SlotId>,
    /// Deck looked up by a deck modifier's `deck_from`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck: Option<DeckId>,
}
impl_walk!(Aspect { rules, slots, deck });

/// A choice offered by a card in the turns system (CardSim's card option).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct CardOption {
    /// Button label.
    pub label: String,
    /// Longer text shown with the option.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The option is offered only while this formula is non-zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Expr>,
    /// Rules run when the option is chosen (their rule-collection changes apply at once).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
}
impl_walk!(CardOption { condition, rules });

/// A card type: the thing players move between table, slots and hands.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Card {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: CardId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name (may contain newlines).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Info text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Colour drawn when there is no art.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
    /// Picture, relative to the project folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub art: Option<String>,
    /// Not shown in fragment bars.
    #[serde(skip_serializing_if = "is_default")]
    pub hidden: bool,
    /// Initial content of every new instance (aspects with counts; sub-cards). Aspects
    /// double as tags: synthesis scores cards by these counts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fragments: Vec<FragmentCount>,
    /// Trigger rules, run when an act completes with this card in scope.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleId>,
    /// Slots opened in idle windows holding this card.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<SlotId>,
    /// Deck looked up by a deck modifier's `deck_from`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deck: Option<DeckId>,
    /// Card type this card decays into; none: it vanishes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decay_to: Option<CardId>,
    /// Ticks of decay; 0 = never decays by itself.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub lifetime_ticks: Expr,
    /// Rule run in the card's context when its decay finishes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_decay_complete: Option<RuleId>,
    /// Rule run after some card decayed into this type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_decay_into: Option<RuleId>,
    /// At most one instance may exist.
    #[serde(skip_serializing_if = "is_default")]
    pub unique: bool,
    /// A new instance's memory is its first aspect instead of its own type.
    #[serde(skip_serializing_if = "is_default")]
    pub memory_from_first: bool,
    /// Named numbers of this card (attack, target flow, pips…), read by formulas.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, Expr>,
    /// Choices offered when the card is in the hand (turns system).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<CardOption>,
    /// How the card is played on a board (boards system).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub board_play: Option<BoardPlay>,
}
impl_walk!(Card {
    fragments,
    rules,
    slots,
    deck,
    decay_to,
    lifetime_ticks,
    on_decay_complete,
    on_decay_into,
    properties,
    options,
    board_play
});

/// A deck of card types.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Deck {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: DeckId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Display text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The deck content, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fragments: Vec<CardId>,
    /// What a draw yields when the deck is empty and not replenishing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_fragment: Option<CardId>,
    /// Added into every card drawn from this deck.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tag_on: Vec<FragmentRef>,
    /// Memory fragment given to every drawn card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_fragment: Option<FragmentRef>,
    /// Shuffle whenever the deck is (re)filled.
    #[serde(skip_serializing_if = "is_default")]
    pub shuffle: bool,
    /// How a shuffle orders the entries (uniform, or the original's insertion order).
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub shuffle_mode: ShuffleMode,
    /// Refill from `fragments` when exhausted.
    #[serde(skip_serializing_if = "is_default")]
    pub replenish: bool,
    /// Drawing does not remove the entry.
    #[serde(skip_serializing_if = "is_default")]
    pub infinite: bool,
    /// Draw from a random position instead of the front.
    #[serde(skip_serializing_if = "is_default")]
    pub random: bool,
}
impl_walk!(Deck { fragments, default_fragment, tag_on, memory_fragment });

/// A slot: a place in an act window (or on a board) that accepts certain cards.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Slot {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: SlotId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Caption.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Info text.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Added to the window while a card sits in the slot.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fragments: Vec<FragmentCount>,
    /// Global slot offered to idle windows of this token type.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<TokenId>,
    /// Not opened twice in the same window in one pass.
    #[serde(skip_serializing_if = "is_default")]
    pub unique: bool,
    /// Global slot offered to every idle window.
    #[serde(skip_serializing_if = "is_default")]
    pub all_tokens: bool,
    /// Global slot offered to every running act.
    #[serde(skip_serializing_if = "is_default")]
    pub all_acts: bool,
    /// All must pass for the slot to open.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spawn_tests: Vec<Test>,
    /// Must also pass for the slot to open.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spawn_rule: Option<RuleId>,
    /// A card must hold at least the count of one entry.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<FragmentCount>,
    /// A card must hold at least the count of every entry.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub essential: Vec<FragmentCount>,
    /// A card must hold less than the count of every entry.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub forbidden: Vec<FragmentCount>,
    /// Extra rule evaluated in the card's own context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_rule: Option<RuleId>,
    /// Accept any card, skipping the other checks.
    #[serde(skip_serializing_if = "is_default")]
    pub accept_all: bool,
    /// Pull a matching free card in by itself.
    #[serde(skip_serializing_if = "is_default")]
    pub grab: bool,
    /// A slotted card cannot be taken out by the player.
    #[serde(skip_serializing_if = "is_default")]
    pub card_lock: bool,
    /// On opening, take a matching card from inside the window.
    #[serde(skip_serializing_if = "is_default")]
    pub act_grab: bool,
}
impl_walk!(Slot { fragments, token, spawn_tests, spawn_rule, required, essential, forbidden, card_rule });

/// A rule: requirements, effects and text, shared by acts, triggers, text rules, slot
/// rules and the turn system's rule collection.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Rule {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: RuleId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Display name in the editor (the rule's `text` is what players see).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Text supplied as a text rule, or reported as a message when run in the turns system.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// Passes exactly when its requirements fail.
    #[serde(skip_serializing_if = "is_default")]
    pub invert: bool,
    /// What must hold.
    #[serde(skip_serializing_if = "Requirements::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub requirements: Requirements,
    /// What happens when the rule runs and passes.
    #[serde(skip_serializing_if = "Effects::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub effects: Effects,
    /// Order within a turn's rule collection (lower first; equal steps are shuffled).
    #[serde(skip_serializing_if = "is_default")]
    pub step: i32,
    /// Remove this rule from the collection after it runs.
    #[serde(skip_serializing_if = "is_default")]
    pub remove_self: bool,
}
impl_walk!(Rule { requirements, effects });

/// One candidate in an act's alt, next or spawned list.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ActLink {
    /// The candidate act.
    pub act: ActId,
    /// Percent chance that the candidate is kept (0..=100).
    #[serde(default, skip_serializing_if = "Expr::is_zero")]
    pub chance: Expr,
    /// If set, this rule's evaluation decides instead of `chance`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<RuleId>,
}
impl_walk!(ActLink { act, chance, rule });

impl ActLink {
    /// An unconditional link to `act`.
    pub fn to(act: &str) -> Self {
        Self { act: Id::new(act), chance: Expr::default(), rule: None }
    }
}

/// An act: a timed narrative step run by a token, chained into act chains.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Act {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: ActId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Window title while the act runs; empty keeps the previous title.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Running text; empty keeps the previous one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The first passing rule supplies the text instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text_rules: Vec<RuleId>,
    /// Text shown when the chain finishes; empty keeps the previous one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub end_text: String,
    /// The first passing rule supplies the end text instead.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub end_text_rules: Vec<RuleId>,
    /// The token this act belongs to (initial and spawned acts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token: Option<TokenId>,
    /// The player may start it from an idle window of `token`.
    #[serde(skip_serializing_if = "is_default")]
    pub initial: bool,
    /// Duration in ticks; 0 completes at once.
    #[serde(skip_serializing_if = "Expr::is_zero")]
    pub duration_ticks: Expr,
    /// Entry requirements.
    #[serde(skip_serializing_if = "Requirements::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub requirements: Requirements,
    /// Added to the act's scope on completion.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fragments: Vec<FragmentCount>,
    /// Performed on completion.
    #[serde(skip_serializing_if = "Effects::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub effects: Effects,
    /// While running, do not offer the global "all acts" slots.
    #[serde(skip_serializing_if = "is_default")]
    pub ignore_global_slots: bool,
    /// Slots opened while this act runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<SlotId>,
    /// Shuffle the surviving alt candidates.
    #[serde(skip_serializing_if = "is_default")]
    pub random_alt: bool,
    /// Alternative acts this run may switch into.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alt_acts: Vec<ActLink>,
    /// Shuffle the surviving next candidates.
    #[serde(skip_serializing_if = "is_default")]
    pub random_next: bool,
    /// Candidates to run after this act completes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub next_acts: Vec<ActLink>,
    /// Acts started in new tokens when this act completes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub spawned_acts: Vec<ActLink>,
    /// Rule run once when this act is spawned into a new token.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub on_spawn: Option<RuleId>,
}
impl_walk!(Act {
    token,
    duration_ticks,
    requirements,
    fragments,
    effects,
    slots,
    alt_acts,
    next_acts,
    spawned_acts,
    on_spawn,
    text_rules,
    end_text_rules
});

/// Idle slot places of the original's stock act window (spec §2.1): a token's default.
pub const STOCK_IDLE_PLACES: u32 = 6;
/// Run slot places of the original's stock act window: a token's default.
pub const STOCK_RUN_PLACES: u32 = 1;
/// Most slot places of either kind a window may have.
pub const MAX_WINDOW_PLACES: u32 = 64;

#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes fields by reference
fn is_stock_idle_places(places: &u32) -> bool {
    *places == STOCK_IDLE_PLACES
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes fields by reference
fn is_stock_run_places(places: &u32) -> bool {
    *places == STOCK_RUN_PLACES
}

/// A token: a thing on the table that runs act chains in its own window.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct Token {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: TokenId,
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
    /// Window title when idle.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Idle description.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Back colour.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
    /// Picture, relative to the project folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub art: Option<String>,
    /// The first passing rule's text replaces the description.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub text_rules: Vec<RuleId>,
    /// The first slot of an idle window, opened without tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slot: Option<SlotId>,
    /// Disappears when its chain has finished and all results were taken.
    #[serde(skip_serializing_if = "is_default")]
    pub dissolve: bool,
    /// Not created while another token of this type exists.
    #[serde(skip_serializing_if = "is_default")]
    pub unique: bool,
    /// Slot places of its window while idle (1 to 64); slots beyond them do not open.
    #[serde(skip_serializing_if = "is_stock_idle_places")]
    #[schemars(!skip_serializing_if)]
    pub idle_places: u32,
    /// Slot places of its window while an act runs (0 to 64); slots beyond them do not open.
    #[serde(skip_serializing_if = "is_stock_run_places")]
    #[schemars(!skip_serializing_if)]
    pub run_places: u32,
}
impl_walk!(Token { text_rules, slot });

impl Default for Token {
    fn default() -> Self {
        Self {
            text_key: String::new(),
            id: TokenId::default(),
            label: String::new(),
            description: String::new(),
            colour: Colour::default(),
            art: None,
            text_rules: Vec::new(),
            slot: None,
            dissolve: false,
            unique: false,
            idle_places: STOCK_IDLE_PLACES,
            run_places: STOCK_RUN_PLACES,
        }
    }
}
