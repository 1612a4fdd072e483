//! Tile maps: stacks of tiles per (x, y) cell with ramps, insets and per-face paint
//! (`spec/srpgck.md` §a).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::value::{Colour, Expr, default_true, is_default, is_true};
use super::walk::impl_walk;
use super::{Id, Unit};

/// Number of Z levels a map can use (levels `0..MAX_Z_LEVELS`).
pub const MAX_Z_LEVELS: u16 = 256;

/// Most levels a single tile may span (its highest corner height).
pub const MAX_TILE_HEIGHT: u8 = 64;

/// Largest map side, in cells.
pub const MAX_MAP_SIDE: u16 = 1024;

/// One value per tile corner, named by grid position (x0y0 is the origin corner).
///
/// SRPGCK's names: `x0y0` = Front, `x1y0` = Right, `x0y1` = Left, `x1y1` = Back.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "Corners_of_{T}")]
pub struct Corners<T> {
    /// Corner at (x_min, y_min).
    pub x0y0: T,
    /// Corner at (x_max, y_min).
    pub x1y0: T,
    /// Corner at (x_min, y_max).
    pub x0y1: T,
    /// Corner at (x_max, y_max).
    pub x1y1: T,
}

impl<T: Copy> Corners<T> {
    /// The same value at every corner.
    pub const fn splat(value: T) -> Self {
        Self { x0y0: value, x1y0: value, x0y1: value, x1y1: value }
    }

    /// The four values in the order x0y0, x1y0, x0y1, x1y1.
    pub const fn to_array(self) -> [T; 4] {
        [self.x0y0, self.x1y0, self.x0y1, self.x1y1]
    }
}

/// One value per tile face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(rename = "Faces_of_{T}")]
pub struct Faces<T: Default + PartialEq> {
    /// The face looking towards −x.
    #[serde(skip_serializing_if = "is_default")]
    pub neg_x: T,
    /// The face looking towards −y.
    #[serde(skip_serializing_if = "is_default")]
    pub neg_y: T,
    /// The face looking towards +x.
    #[serde(skip_serializing_if = "is_default")]
    pub pos_x: T,
    /// The face looking towards +y.
    #[serde(skip_serializing_if = "is_default")]
    pub pos_y: T,
    /// The bottom face (−z).
    #[serde(skip_serializing_if = "is_default")]
    pub bottom: T,
    /// The top face (+z).
    #[serde(skip_serializing_if = "is_default")]
    pub top: T,
}

impl<T: Default + PartialEq + Copy> Faces<T> {
    /// The same value on every face.
    pub fn splat(value: T) -> Self {
        Self { neg_x: value, neg_y: value, pos_x: value, pos_y: value, bottom: value, top: value }
    }

    /// The six values in the order −x, −y, +x, +y, bottom, top (SRPGCK's face order).
    pub fn to_array(self) -> [T; 6] {
        [self.neg_x, self.neg_y, self.pos_x, self.pos_y, self.bottom, self.top]
    }
}

fn unit_heights() -> Corners<u8> {
    Corners::splat(1)
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes fields by reference
fn is_unit_heights(heights: &Corners<u8>) -> bool {
    *heights == unit_heights()
}

/// One tile of a column: a hexahedron from its base level up to its corner heights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    /// Base level: the tile covers levels `z .. z + max height`.
    pub z: u16,
    /// Top height of each corner above `z`, in levels; unequal heights make a ramp.
    #[serde(default = "unit_heights", skip_serializing_if = "is_unit_heights")]
    #[schemars(!skip_serializing_if)]
    pub heights: Corners<u8>,
    /// Bottom raise of each corner, in levels.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub baselines: Corners<u8>,
    /// How far each face is moved inward: a fraction of a cell (sides) or of a level
    /// (top and bottom).
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub insets: Faces<f32>,
    /// Palette index painted on each face; none = unpainted.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub paint: Faces<Option<u16>>,
    /// Collision only: outlined in the editor's Tile map tab, not drawn in play.
    #[serde(default, skip_serializing_if = "is_default")]
    pub invisible: bool,
}

impl Tile {
    /// A plain unit cube at level `z`.
    pub fn cube(z: u16) -> Self {
        Self {
            z,
            heights: unit_heights(),
            baselines: Corners::default(),
            insets: Faces::default(),
            paint: Faces::default(),
            invisible: false,
        }
    }

    /// The highest corner height, in levels (at least 1 for valid tiles).
    pub fn max_height(&self) -> u8 {
        let h = &self.heights;
        h.x0y0.max(h.x1y0).max(h.x0y1.max(h.x1y1))
    }

    /// The first level above the tile: `z + max height`.
    pub fn top_z(&self) -> u32 {
        u32::from(self.z) + u32::from(self.max_height())
    }
}

/// The tiles standing on one (x, y) cell, sorted by `z`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Column {
    /// Cell x.
    pub x: u16,
    /// Cell y.
    pub y: u16,
    /// The tiles, bottom first. A plain unit cube is written as just its level
    /// (`[0, 1, (z: 2, paint: (top: Some(1)))]`): large maps are mostly plain cubes.
    #[serde(with = "compact_tiles")]
    #[schemars(schema_with = "compact_tiles::schema")]
    pub tiles: Vec<Tile>,
}

/// Tiles written as a level number when they are plain cubes, else as a struct.
mod compact_tiles {
    use std::fmt;

    use schemars::{Schema, SchemaGenerator};
    use serde::de::value::MapAccessDeserializer;
    use serde::de::{self, MapAccess, SeqAccess, Visitor};
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::json;

    use super::Tile;
    use crate::model::value::schema_of;

    /// A list whose elements are a level (a plain unit cube) or a [`Tile`].
    pub fn schema(generator: &mut SchemaGenerator) -> Schema {
        let tile = generator.subschema_for::<Tile>();
        schema_of(json!({
            "type": "array",
            "items": {
                "oneOf": [
                    {
                        "type": "integer",
                        "minimum": 0,
                        "maximum": u16::MAX,
                        "description": "A plain unit cube at this level (`z`)."
                    },
                    tile
                ]
            }
        }))
    }

    struct Out<'a>(&'a Tile);

    impl Serialize for Out<'_> {
        fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            if *self.0 == Tile::cube(self.0.z) {
                serializer.serialize_u16(self.0.z)
            } else {
                self.0.serialize(serializer)
            }
        }
    }

    pub fn serialize<S: Serializer>(tiles: &[Tile], serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(tiles.len()))?;
        for tile in tiles {
            seq.serialize_element(&Out(tile))?;
        }
        seq.end()
    }

    struct In(Tile);

    impl<'de> Deserialize<'de> for In {
        fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct TileVisitor;
            impl<'de> Visitor<'de> for TileVisitor {
                type Value = In;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a level number (a plain cube) or a tile struct")
                }
                fn visit_u64<E: de::Error>(self, level: u64) -> Result<In, E> {
                    u16::try_from(level)
                        .map(|z| In(Tile::cube(z)))
                        .map_err(|_| E::custom(format!("level {level} is too high")))
                }
                fn visit_i64<E: de::Error>(self, level: i64) -> Result<In, E> {
                    u64::try_from(level)
                        .map_err(|_| E::custom("levels cannot be negative"))
                        .and_then(|l| self.visit_u64(l))
                }
                fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<In, A::Error> {
                    Tile::deserialize(MapAccessDeserializer::new(map)).map(In)
                }
            }
            deserializer.deserialize_any(TileVisitor)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<Tile>, D::Error> {
        struct ListVisitor;
        impl<'de> Visitor<'de> for ListVisitor {
            type Value = Vec<Tile>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of tiles")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Tile>, A::Error> {
                let mut tiles = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(256));
                while let Some(In(tile)) = seq.next_element()? {
                    tiles.push(tile);
                }
                Ok(tiles)
            }
        }
        deserializer.deserialize_seq(ListVisitor)
    }
}

/// A texture of a map's palette.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PaletteEntry {
    /// Display name.
    pub label: String,
    /// PNG picture, relative to the project folder; none: a flat colour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Colour used without a picture, and as the picture's tint.
    pub colour: Colour,
    /// What standing on a tile whose top face has this paint means in a battle.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub terrain: Terrain,
}

/// The battle properties of a palette entry, read from the top face of a standing tile
/// (FORMAT.md §9): walking cost, a defence number for formulas, and tags.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Terrain {
    /// Steps a walk spends to enter such a tile (0 or more; 1 = plain ground).
    #[serde(skip_serializing_if = "is_one")]
    #[schemars(!skip_serializing_if)]
    pub move_cost: i32,
    /// Read by formulas as `c.tile.defence` / `t.tile.defence`.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub defence: f64,
    /// Names such as `water`: read as `t.tile.tag.water`; regions can refuse them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(!skip_serializing_if)]
    pub tags: Vec<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_one(value: &i32) -> bool {
    *value == 1
}

impl Default for Terrain {
    fn default() -> Self {
        Self { move_cost: 1, defence: 0.0, tags: Vec::new() }
    }
}

/// A unit placed on the map at the start of a battle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// The unit type.
    pub unit: Id<Unit>,
    /// Its team in this battle; empty = the unit's own team.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub team: String,
    /// Cell x.
    pub x: u16,
    /// Cell y.
    pub y: u16,
    /// Standing level; none = the top surface of the column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<u16>,
    /// Facing in degrees, counter-clockwise from +x.
    #[serde(default, skip_serializing_if = "is_default")]
    pub facing_degrees: f32,
}
impl_walk!(Placement { unit });

/// A prop marker: scenery with no effect on pathing, drawn as a box of `size` standing on
/// (`x`, `y`, `z`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Prop {
    /// What it is.
    pub label: String,
    /// Cell x.
    pub x: u16,
    /// Cell y.
    pub y: u16,
    /// Level it stands on.
    pub z: u16,
    /// Marker colour.
    #[serde(skip_serializing_if = "is_default")]
    pub colour: Colour,
    /// Its box: cells along x, cells along y, levels up (each at least 1), from its cell and level.
    #[serde(skip_serializing_if = "is_unit_size")]
    // Described as a list of three so the inspector edits it like the other number lists.
    #[schemars(!skip_serializing_if, with = "[u16; 3]")]
    pub size: (u16, u16, u16),
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_unit_size(size: &(u16, u16, u16)) -> bool {
    *size == (1, 1, 1)
}

impl Default for Prop {
    fn default() -> Self {
        Self { label: String::new(), x: 0, y: 0, z: 0, colour: Colour::default(), size: (1, 1, 1) }
    }
}

/// A 3D tile map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
#[schemars(transform = super::value::require_id)]
pub struct TileMap {
    /// Unique id.
    #[schemars(schema_with = "super::id::slug_schema")]
    pub id: Id<TileMap>,
    /// Display name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
    /// Notes for designers.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Cells along x.
    pub width: u16,
    /// Cells along y.
    pub depth: u16,
    /// World length of a cell side.
    pub cell_size: f32,
    /// World height of one level.
    pub level_height: f32,
    /// Whether bottom faces are meshed.
    #[serde(skip_serializing_if = "is_true", default = "default_true")]
    #[schemars(!skip_serializing_if)]
    pub bottom_faces: bool,
    /// Textures faces are painted with.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub palette: Vec<PaletteEntry>,
    /// Non-empty columns, sorted by (y, x).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<Column>,
    /// Units at the start of a battle on this map.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<Placement>,
    /// Scenery markers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub props: Vec<Prop>,
    /// How a battle on this map ends: the first condition that holds names the winner; with
    /// none, the last team with units standing wins.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub win_conditions: Vec<WinCondition>,
    /// How a battle on this map decides whose turn it is.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub scheduler: super::Scheduler,
    /// The facings a unit may end its turn with (`FaceUnit`): `Cardinal` the four axes,
    /// `Ordinal` the diagonals, `CardinalOrdinal` the eight, `Free` any whole degree.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub wait_facing: super::FacingLock,
}
impl_walk!(TileMap { placements, win_conditions, scheduler });

/// A battle's end: `team` wins as soon as `when` is non-zero (checked after every action).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct WinCondition {
    /// The winning team.
    pub team: String,
    /// The condition, a formula over the battle (`team.NAME.alive`, `unit.ID.STAT`, `battle.tick`).
    pub when: Expr,
}
impl_walk!(WinCondition { when });

impl Default for TileMap {
    fn default() -> Self {
        Self {
            id: Id::default(),
            label: String::new(),
            description: String::new(),
            width: 10,
            depth: 10,
            cell_size: 1.0,
            level_height: 0.5,
            bottom_faces: true,
            palette: Vec::new(),
            columns: Vec::new(),
            placements: Vec::new(),
            props: Vec::new(),
            win_conditions: Vec::new(),
            scheduler: super::Scheduler::default(),
            wait_facing: super::FacingLock::default(),
        }
    }
}
