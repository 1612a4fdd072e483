//! `project.ron`: the project's name, schema version, settings and entry points.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::table::{CardId, TokenId};
use super::value::is_default;
use super::walk::impl_walk;
use super::{Board, Id, NodeMap, TileMap, TurnConfig};

/// The schema version this build reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// Project-wide settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Engine ticks per second of game time (durations are stored in ticks).
    pub ticks_per_second: u32,
    /// Default seed of the preview and of `actforge play`.
    pub seed: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Self { ticks_per_second: 10, seed: 1 }
    }
}

/// Where play starts, per system; every part is optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct EntryPoints {
    /// Tokens on the table at the start (table system).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tokens: Vec<TokenId>,
    /// Cards on the table at the start (table system).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<CardId>,
    /// The turn setup (turns system).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_config: Option<Id<TurnConfig>>,
    /// The battle map (tactics system).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile_map: Option<Id<TileMap>>,
    /// The campaign map (campaign system).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_map: Option<Id<NodeMap>>,
    /// Boards in play (boards system).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub boards: Vec<Id<Board>>,
}
impl_walk!(EntryPoints { tokens, cards, turn_config, tile_map, node_map, boards });

impl EntryPoints {
    /// Whether no entry point is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The languages of a project (FORMAT.md, "Localisation").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Localisation {
    /// The language the content is written in, as a code such as `en`.
    pub source_language: String,
    /// The languages it is translated into (codes such as `fr` or `pt-BR`); each one's
    /// translations live in `locales/CODE/`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub languages: Vec<String>,
    /// The most characters a text may have, by `KIND.FIELD` with list elements left out
    /// (`cards.label`, `node_maps.nodes.text`); longer translations are reported by `check`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, u32>,
}

impl Default for Localisation {
    fn default() -> Self {
        Self { source_language: "en".to_owned(), languages: Vec::new(), limits: BTreeMap::new() }
    }
}

/// The contents of `project.ron`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = require_schema_version)]
pub struct Manifest {
    /// Version of the file format; see FORMAT.md.
    pub schema_version: u32,
    /// Project name.
    pub name: String,
    /// What the project is.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Settings.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub settings: Settings,
    /// Where play starts.
    #[serde(skip_serializing_if = "EntryPoints::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub entry: EntryPoints,
    /// The languages the content is written and translated in.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub localisation: Localisation,
}
impl_walk!(Manifest { entry });

/// `schemars(transform)`: a valid manifest states its version.
fn require_schema_version(schema: &mut schemars::Schema) {
    super::value::require(schema, &["schema_version"]);
}

impl Default for Manifest {
    fn default() -> Self {
        Self::new("")
    }
}

impl Manifest {
    /// A manifest for a new project called `name`.
    pub fn new(name: &str) -> Self {
        Self {
            schema_version: SCHEMA_VERSION,
            name: name.to_owned(),
            description: String::new(),
            settings: Settings::default(),
            entry: EntryPoints::default(),
            localisation: Localisation::default(),
        }
    }
}
