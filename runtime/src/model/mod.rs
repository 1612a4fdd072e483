//! The content model: one struct per kind, typed ids, and the project that holds them.
//!
//! Every system (table, turns, tactics, campaign, boards) reads the same kinds; later
//! systems extend these structs instead of adding a model of their own.
//!
//! Every type derives `schemars::JsonSchema` (see [`crate::schema`]); doc comments become the
//! schema's descriptions and fields are listed in declaration order, so the order of fields
//! here is the order of files and of the inspector's forms: identity (`id`, `label`), then
//! designer text, then the rest. A field left out of files when it is the zero of its JSON
//! type (`""`, `false`, `0`, `[]`, `null`) gets that `default` in the schema; a field whose
//! default is anything else (an enum's default variant, `true`, `1`, a struct) carries
//! `#[schemars(!skip_serializing_if)]` so that the schema states its default.

mod checks;
mod id;
mod manifest;
mod node_map;
mod systems;
mod table;
mod tactics;
mod tile_map;
mod value;
pub mod walk;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub use checks::{Checks, MAX_CARDS_CREATED_PER_STEP, Read, ValueChecks, lookups};
pub use id::{Id, KIND_EXTENSION, LOCAL_EXTENSION, MAX_ID_LEN, SLUG_PATTERN, slug_problem, slugify};
pub use manifest::{EntryPoints, Localisation, Manifest, SCHEMA_VERSION, Settings};
pub use node_map::{
    BattleRules, BattleTrigger, CampaignDeck, CardCycle, CardPlay, EdgeStyle, Grade, MapEdge, MapNode, NodeKind,
    NodeMap, NodeOption, Patrol, Phase, Raid,
};
pub use systems::{
    Board, BoardModifier, BoardOp, BoardPlay, BoardSide, BoardTarget, BoardTiming, Bond, Crossing, DiceCheck, Era,
    Formula, Revelation, Stat, StatOrder, StatValue, Synthesis, Threshold, TurnConfig,
};
pub use table::{
    Act, ActId, ActLink, ActModifier, ActOp, Aspect, AspectId, Card, CardId, CardModifier, CardOp, CardOption,
    CardPick, Deck, DeckId, DeckModifier, DeckOp, Effects, FragmentCount, FragmentRef, HandModifier, HandOp, Location,
    MAX_WINDOW_PLACES, PathModifier, PathOp, Requirements, Rule, RuleId, RuleModifier, RuleOp, STOCK_IDLE_PLACES,
    STOCK_RUN_PLACES, ShuffleMode, Slot, SlotId, StatModifier, StatOp, TableModifier, TableOp, Test, TestOp, Token,
    TokenId,
};
pub use tactics::{
    EffectTarget, Equipment, FacingLock, HitType, InterveningSpace, Limits, LineMoveEffect, Reaction, Region,
    RegionShape, Scheduler, SchedulerKind, Skill, SkillKind, StatChange, StatEffect, StatTrigger, StatusClock,
    StatusEffect, StatusStacking, Unit,
};
pub use tile_map::{
    Column, Corners, Faces, MAX_MAP_SIDE, MAX_TILE_HEIGHT, MAX_Z_LEVELS, PAINT_PATTERN, Paint, PaletteEntry, PaletteId,
    PaletteLookup, PixelRect, Placement, Prop, SheetGrid, Terrain, Tile, TileMap, Tileset, WinCondition, unique_slug,
};
pub use value::{COLOUR_EXTENSION, Colour, Expr, FORMULA_EXTENSION, default_true, is_default, is_true};
pub use walk::{FieldPath, PathSegment, Visitor, VisitorMut, Walk, walk_item};

/// An item of some kind: it has an id, a label and a folder in the project.
pub trait Item:
    Walk + ValueChecks + Serialize + DeserializeOwned + JsonSchema + Clone + PartialEq + fmt::Debug + Send + Sync + 'static
{
    /// The kind.
    const KIND: Kind;
    /// The item's id.
    fn id(&self) -> &Id<Self>;
    /// Mutable id, for renames.
    fn id_mut(&mut self) -> &mut Id<Self>;
    /// Display name (may be empty; the id is shown then).
    fn label(&self) -> &str;
    /// The key of this item's texts in string tables: its `text_key`, or its id when that is empty.
    fn text_key(&self) -> &str;
    /// Mutable `text_key`, for renames.
    fn text_key_mut(&mut self) -> &mut String;
    /// This kind's items in a project.
    fn items(project: &Project) -> &Items<Self>;
    /// This kind's items in a project, mutable.
    fn items_mut(project: &mut Project) -> &mut Items<Self>;
}

/// The items of one kind, keyed by id. Each item is shared: a copy of a project (the preview's,
/// an export's) costs a reference count per item, and an item is copied only when one of the
/// projects sharing it changes it.
#[derive(Clone)]
pub struct Items<T: Item>(BTreeMap<Id<T>, Arc<T>>);

impl<T: Item> PartialEq for Items<T> {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().zip(&other.0).all(|((a_id, a), (b_id, b))| a_id == b_id && (Arc::ptr_eq(a, b) || a == b))
    }
}

impl<T: Item> Default for Items<T> {
    fn default() -> Self {
        Self(BTreeMap::new())
    }
}

impl<T: Item> fmt::Debug for Items<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.0.iter()).finish()
    }
}

/// The item a shared one holds.
fn unshared<T: Item>(item: &Arc<T>) -> &T {
    item
}

impl<T: Item> Items<T> {
    /// The items of a list; for ids that occur more than once the last item is kept and the
    /// id is reported.
    pub fn from_list(list: Vec<T>) -> (Self, Vec<String>) {
        let sorted = list.windows(2).all(|pair| matches!(pair, [a, b] if a.id() < b.id()));
        if sorted {
            // Bundles are written sorted: build the map in one pass.
            return (Self(list.into_iter().map(|item| (item.id().clone(), Arc::new(item))).collect()), Vec::new());
        }
        let mut items = Self::default();
        let mut duplicates = Vec::new();
        for item in list {
            if let Some(previous) = items.insert(item) {
                duplicates.push(previous.id().as_str().to_owned());
            }
        }
        (items, duplicates)
    }

    /// Adds or replaces the item with the same id; returns the replaced one.
    pub fn insert(&mut self, item: T) -> Option<T> {
        self.0.insert(item.id().clone(), Arc::new(item)).map(Arc::unwrap_or_clone)
    }
    /// Adds or replaces the item with the same id, shared with whoever else holds it.
    pub fn insert_shared(&mut self, item: Arc<T>) {
        self.0.insert(item.id().clone(), item);
    }
    /// The item with this id.
    pub fn get(&self, id: &str) -> Option<&T> {
        self.0.get(id).map(unshared)
    }
    /// The item with this id, as shared.
    pub fn get_shared(&self, id: &str) -> Option<&Arc<T>> {
        self.0.get(id)
    }
    /// The item with this id, mutable (copied first when shared). Do not change its id through this.
    pub fn get_mut(&mut self, id: &str) -> Option<&mut T> {
        self.0.get_mut(id).map(Arc::make_mut)
    }
    /// Removes and returns the item with this id.
    pub fn remove(&mut self, id: &str) -> Option<T> {
        self.0.remove(id).map(Arc::unwrap_or_clone)
    }
    /// Whether an item has this id.
    pub fn contains(&self, id: &str) -> bool {
        self.0.contains_key(id)
    }
    /// The items in id order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &T> + DoubleEndedIterator {
        self.0.values().map(unshared)
    }
    /// The items in id order, as shared.
    pub fn iter_shared(&self) -> impl ExactSizeIterator<Item = &Arc<T>> + DoubleEndedIterator {
        self.0.values()
    }
    /// The items in id order, mutable (each copied first when shared). Do not change their ids
    /// through this.
    pub fn iter_mut(&mut self) -> impl ExactSizeIterator<Item = &mut T> + DoubleEndedIterator {
        self.0.values_mut().map(Arc::make_mut)
    }
    /// The ids in order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = &Id<T>> {
        self.0.keys()
    }
    /// Number of items.
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<'a, T: Item> IntoIterator for &'a Items<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Map<std::collections::btree_map::Values<'a, Id<T>, Arc<T>>, fn(&'a Arc<T>) -> &'a T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.values().map(unshared)
    }
}

impl<T: Item> FromIterator<T> for Items<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut items = Self::default();
        for item in iter {
            items.insert(item);
        }
        items
    }
}

/// Code that works on every kind's items with the item type known, e.g. loading or validating.
pub trait KindVisitor {
    /// Called once per kind, in [`Kind::ALL`] order.
    fn visit<T: Item>(&mut self, items: &Items<T>);
}

/// As [`KindVisitor`], with mutable access.
pub trait KindVisitorMut {
    /// Called once per kind, in [`Kind::ALL`] order.
    fn visit<T: Item>(&mut self, items: &mut Items<T>);
}

/// Code run on each kind's items of a project, in parallel.
pub trait ParallelKindVisitor: Sync {
    /// Called once per kind, possibly on another thread.
    fn visit<T: Item>(&self, items: &mut Items<T>);
}

/// Code run on each kind's list of a bundle, in parallel.
pub trait ListVisitor: Sync {
    /// Called once per kind, possibly on another thread.
    fn visit<T: Item>(&self, kind: Kind, list: &mut Vec<T>);
}

/// Declares every kind once: the `Kind` enum, the `Project` fields, the `Bundle` lists and
/// the `Item` impls all come from this one table.
macro_rules! kinds {
    ($( $variant:ident: $ty:ty, $field:ident, $folder:literal, $label:literal, $plural:literal; )*) => {
        /// A kind of item. Each kind has its own folder in a project.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum Kind {
            $(
                #[doc = concat!("A ", $label, ".")]
                $variant,
            )*
        }

        impl Kind {
            /// Every kind, in display order.
            pub const ALL: &'static [Kind] = &[$(Kind::$variant,)*];

            /// The folder of this kind's files inside a project.
            pub fn folder(self) -> &'static str {
                match self { $(Kind::$variant => $folder,)* }
            }

            /// Singular name for people ("Act").
            pub fn label(self) -> &'static str {
                match self { $(Kind::$variant => $label,)* }
            }

            /// Plural name for people ("Acts").
            pub fn plural_label(self) -> &'static str {
                match self { $(Kind::$variant => $plural,)* }
            }

            /// The kind whose folder is `folder`.
            pub fn from_folder(folder: &str) -> Option<Kind> {
                match folder { $($folder => Some(Kind::$variant),)* _ => None }
            }
        }

        $(
            impl Item for $ty {
                const KIND: Kind = Kind::$variant;
                fn id(&self) -> &Id<Self> { &self.id }
                fn id_mut(&mut self) -> &mut Id<Self> { &mut self.id }
                fn label(&self) -> &str { &self.label }
                fn text_key(&self) -> &str {
                    if self.text_key.is_empty() { self.id.as_str() } else { &self.text_key }
                }
                fn text_key_mut(&mut self) -> &mut String { &mut self.text_key }
                fn items(project: &Project) -> &Items<Self> { &project.$field }
                fn items_mut(project: &mut Project) -> &mut Items<Self> { &mut project.$field }
            }
        )*

        /// A whole project in memory: the manifest and every item, by kind.
        #[derive(Clone, Debug, Default, PartialEq)]
        pub struct Project {
            /// `project.ron`.
            pub manifest: Manifest,
            /// The translations, by language (`locales/`).
            pub locales: crate::locale::Locales,
            $(
                #[doc = concat!("The ", $plural, ".")]
                pub $field: Items<$ty>,
            )*
        }

        impl Project {
            /// Calls `visitor` with each kind's items.
            pub fn visit_kinds(&self, visitor: &mut impl KindVisitor) {
                $( visitor.visit(&self.$field); )*
            }

            /// Calls `visitor` with each kind's items, mutable.
            pub fn visit_kinds_mut(&mut self, visitor: &mut impl KindVisitorMut) {
                $( visitor.visit(&mut self.$field); )*
            }

            /// Calls `visitor` with each kind's items, spreading the calls over rayon's threads.
            pub fn visit_kinds_parallel(&mut self, visitor: &impl ParallelKindVisitor) {
                let Project { manifest: _, locales: _, $($field,)* } = self;
                rayon::scope(|scope| {
                    $( scope.spawn(move |_| visitor.visit($field)); )*
                });
            }

            /// Number of items of `kind`.
            pub fn count(&self, kind: Kind) -> usize {
                match kind { $(Kind::$variant => self.$field.len(),)* }
            }

            /// Whether an item of `kind` has this id.
            pub fn contains(&self, kind: Kind, id: &str) -> bool {
                match kind { $(Kind::$variant => self.$field.contains(id),)* }
            }

            /// The ids and labels of every item of `kind`, in id order.
            pub fn entries(&self, kind: Kind) -> Vec<(&str, &str)> {
                match kind {
                    $(Kind::$variant => self.$field.iter().map(|item| (item.id.as_str(), item.label.as_str())).collect(),)*
                }
            }
        }

        /// The single-file form of a project, for other runtimes.
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
        #[serde(default, deny_unknown_fields)]
        #[schemars(transform = require_bundle_header)]
        pub struct Bundle {
            /// Always `"actforge-bundle"`.
            #[schemars(extend("const" = BUNDLE_FORMAT))]
            pub format: String,
            /// The schema version of everything below.
            #[schemars(extend("const" = SCHEMA_VERSION))]
            pub schema_version: u32,
            /// The project's manifest (its own `schema_version` equals the bundle's).
            pub project: Manifest,
            $(
                #[doc = concat!("The ", $plural, ", sorted by id.")]
                #[serde(skip_serializing_if = "Vec::is_empty")]
                pub $field: Vec<$ty>,
            )*
            /// The project's playtests by name (`tests/NAME.play` in a folder), only when exported
            /// with them (`actforge export --with-tests`).
            #[serde(skip_serializing_if = "BTreeMap::is_empty")]
            pub tests: BTreeMap<String, String>,
            /// The translations by language, each by string key (`actforge export --lang`).
            #[serde(skip_serializing_if = "BTreeMap::is_empty")]
            pub locales: crate::locale::Locales,
        }

        impl Bundle {
            /// The bundle of a project.
            pub fn from_project(project: &Project) -> Bundle {
                Bundle {
                    format: BUNDLE_FORMAT.to_owned(),
                    schema_version: project.manifest.schema_version,
                    project: project.manifest.clone(),
                    $( $field: project.$field.iter().cloned().collect(), )*
                    tests: BTreeMap::new(),
                    locales: project.locales.clone(),
                }
            }

            /// Calls `visitor` on every kind's list, spreading the calls over rayon's threads.
            pub fn visit_lists_parallel(&mut self, visitor: &impl ListVisitor) {
                let Bundle { $($field,)* .. } = self;
                rayon::scope(|scope| {
                    $( scope.spawn(move |_| visitor.visit(Kind::$variant, $field)); )*
                });
            }

            /// Splits the bundle into a project, reporting ids that occur twice (in [`Kind::ALL`]
            /// order, then list order).
            pub fn into_project(self) -> (Project, Vec<(Kind, String)>) {
                let mut project = Project { manifest: self.project, locales: self.locales, ..Project::default() };
                let duplicates = std::sync::Mutex::new(Vec::new());
                // Kinds are keyed on their own threads: done one kind after another, the id copy
                // and shared box per item were a sequential pass over every item after the
                // (parallel) parse of a large bundle.
                {
                    let duplicates = &duplicates;
                    rayon::scope(|scope| {
                        $(
                            let list = self.$field;
                            let target = &mut project.$field;
                            scope.spawn(move |_| {
                                let (keyed, repeated) = Items::from_list(list);
                                *target = keyed;
                                if !repeated.is_empty() {
                                    duplicates
                                        .lock()
                                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                                        .extend(repeated.into_iter().map(|id| (Kind::$variant, id)));
                                }
                            });
                        )*
                    });
                }
                let mut duplicates = duplicates.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
                // Threads finish in any order; each kind's ids went in together, in list order,
                // so a stable sort by kind restores the order of a sequential pass.
                duplicates.sort_by_key(|(kind, _)| *kind);
                (project, duplicates)
            }
        }
    };
}

/// `schemars(transform)`: a valid bundle names its format and version.
fn require_bundle_header(schema: &mut schemars::Schema) {
    value::require(schema, &["format", "schema_version"]);
}

/// The `format` value of a bundle.
pub const BUNDLE_FORMAT: &str = "actforge-bundle";

kinds! {
    Aspect: Aspect, aspects, "aspects", "Aspect", "Aspects";
    Card: Card, cards, "cards", "Card", "Cards";
    Deck: Deck, decks, "decks", "Deck", "Decks";
    Slot: Slot, slots, "slots", "Slot", "Slots";
    Rule: Rule, rules, "rules", "Rule", "Rules";
    Act: Act, acts, "acts", "Act", "Acts";
    Token: Token, tokens, "tokens", "Token", "Tokens";
    Formula: Formula, formulas, "formulas", "Formula", "Formulas";
    Stat: Stat, stats, "stats", "Stat", "Stats";
    TurnConfig: TurnConfig, turn_configs, "turn_configs", "Turn config", "Turn configs";
    Era: Era, eras, "eras", "Era", "Eras";
    Synthesis: Synthesis, syntheses, "syntheses", "Synthesis", "Syntheses";
    Board: Board, boards, "boards", "Board", "Boards";
    TileMap: TileMap, tile_maps, "tile_maps", "Tile map", "Tile maps";
    NodeMap: NodeMap, node_maps, "node_maps", "Node map", "Node maps";
    Unit: Unit, units, "units", "Unit", "Units";
    Skill: Skill, skills, "skills", "Skill", "Skills";
    Equipment: Equipment, equipment, "equipment", "Equipment", "Equipment";
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl Project {
    /// An empty project called `name`.
    pub fn new(name: &str) -> Self {
        Self { manifest: Manifest::new(name), ..Self::default() }
    }

    /// Total number of items.
    pub fn item_count(&self) -> usize {
        Kind::ALL.iter().map(|kind| self.count(*kind)).sum()
    }
}
