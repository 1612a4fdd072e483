//! Tile maps: stacks of tiles per (x, y) cell with ramps, insets and per-face paint
//! (`spec/srpgck.md` §a).

use std::sync::Arc;

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

impl<T: Default + PartialEq> Faces<T> {
    /// The six values, mutably, in the order of [`Faces::to_array`].
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        [&mut self.neg_x, &mut self.neg_y, &mut self.pos_x, &mut self.pos_y, &mut self.bottom, &mut self.top]
            .into_iter()
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
    /// The palette entry (and tile of its sheet) painted on each face; none = unpainted.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub paint: Faces<Option<Paint>>,
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

/// A texture of a map's palette: a flat colour, a picture, or a picture sliced into tiles.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct PaletteEntry {
    /// The id paint names (a slug unique within the map).
    #[serde(skip_serializing_if = "is_empty_id")]
    #[schemars(!skip_serializing_if)]
    pub id: PaletteId,
    /// Display name.
    pub label: String,
    /// PNG picture, relative to the project folder; none: a flat colour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// How the picture is sliced into tiles; none: the whole picture is one tile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tileset: Option<Tileset>,
    /// Colour used without a picture, and as the picture's tint.
    pub colour: Colour,
    /// What standing on a tile whose top face has this paint means in a battle.
    #[serde(skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub terrain: Terrain,
}

/// The id of a palette entry: a slug unique within its map, which paint names (FORMAT.md §9).
///
/// Interned: a `Copy` handle to the name, so a tile's six paints stay small and meshing and
/// walking compare handles, not text. Only equality and lookups use the handle; ordering,
/// printing and saving use the name, so nothing depends on the order names were first seen.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PaletteId(std::num::NonZeroU32);

/// Every palette id name seen by this process, and the handle of each.
#[derive(Default)]
struct Names {
    handles: rustc_hash::FxHashMap<&'static str, std::num::NonZeroU32>,
    names: Vec<&'static str>,
}

static NAMES: std::sync::LazyLock<std::sync::RwLock<Names>> = std::sync::LazyLock::new(Default::default);

impl PaletteId {
    /// The id named `name` (any text; `check` reports names that are not slugs).
    pub fn new(name: &str) -> Self {
        let read = |names: &Names| names.handles.get(name).copied();
        if let Some(handle) = read(&NAMES.read().unwrap_or_else(std::sync::PoisonError::into_inner)) {
            return Self(handle);
        }
        let mut names = NAMES.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(handle) = read(&names) {
            return Self(handle);
        }
        // Names are few (the ids designers write), so keeping each for the process is cheap.
        let kept: &'static str = Box::leak(name.to_owned().into_boxed_str());
        names.names.push(kept);
        let handle = u32::try_from(names.names.len()).ok().and_then(std::num::NonZeroU32::new);
        let handle = handle.unwrap_or(std::num::NonZeroU32::MIN);
        names.handles.insert(kept, handle);
        Self(handle)
    }

    /// The name.
    pub fn as_str(self) -> &'static str {
        let names = NAMES.read().unwrap_or_else(std::sync::PoisonError::into_inner);
        names.names.get(self.dense() as usize).copied().unwrap_or("")
    }

    /// Whether the id is empty (an entry written before ids existed, or a migrated index).
    pub fn is_empty(self) -> bool {
        self.as_str().is_empty()
    }

    /// A small number per distinct name, for dense lookup tables (never saved or ordered by).
    pub fn dense(self) -> u32 {
        self.0.get() - 1
    }
}

impl Default for PaletteId {
    fn default() -> Self {
        Self::new("")
    }
}

impl std::fmt::Debug for PaletteId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl std::fmt::Display for PaletteId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialOrd for PaletteId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for PaletteId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl From<&str> for PaletteId {
    fn from(name: &str) -> Self {
        Self::new(name)
    }
}

impl Serialize for PaletteId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for PaletteId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        Ok(Self::new(&name))
    }
}

impl JsonSchema for PaletteId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PaletteId".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": super::SLUG_PATTERN,
            "description": "A palette entry id: a slug unique within the map."
        })
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_empty_id(id: &PaletteId) -> bool {
    id.is_empty()
}

/// What a face is painted with: a palette entry (by id) and a tile of its sheet (row-major;
/// 0 for a single picture or a flat colour). Written `"stone"` (tile 0) or `"stone#3"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Paint {
    /// The palette entry.
    pub entry: PaletteId,
    /// The tile within the entry's sheet.
    pub tile: u16,
}

impl Paint {
    /// Tile `tile` of the entry `entry`.
    pub fn new(entry: impl Into<PaletteId>, tile: u16) -> Self {
        Self { entry: entry.into(), tile }
    }

    /// Paint written before palette ids (a bare palette index): the empty id and the index as
    /// the tile, until [`TileMap::migrate_palette_ids`] rewrites it.
    pub fn legacy_index(index: u16) -> Self {
        Self { entry: PaletteId::default(), tile: index }
    }

    /// The palette index of paint written before ids, None for paint naming an entry.
    pub fn legacy(self) -> Option<u16> {
        self.entry.is_empty().then_some(self.tile)
    }
}

impl std::fmt::Display for Paint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.legacy(), self.tile) {
            (Some(index), _) => write!(f, "{index}"),
            (None, 0) => f.write_str(self.entry.as_str()),
            (None, tile) => write!(f, "{}#{tile}", self.entry),
        }
    }
}

impl std::str::FromStr for Paint {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (entry, tile) = match text.split_once('#') {
            Some((entry, tile)) => {
                let tile = tile
                    .parse::<u16>()
                    .map_err(|_| format!("`{text}`: the tile after `#` must be a number from 0 to {}", u16::MAX))?;
                (entry, tile)
            }
            None => (text, 0),
        };
        if entry.is_empty() {
            return Err(format!("`{text}` names no palette entry; write an entry id, e.g. `stone` or `stone#3`"));
        }
        Ok(Self::new(entry, tile))
    }
}

impl Serialize for Paint {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.legacy() {
            Some(index) => serializer.serialize_u16(index),
            None => serializer.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Paint {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct PaintVisitor;
        impl serde::de::Visitor<'_> for PaintVisitor {
            type Value = Paint;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a palette entry id, optionally with a tile: \"stone\" or \"stone#3\"")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Paint, E> {
                text.parse().map_err(E::custom)
            }
            // Files written before palette ids paint with a bare index; loading migrates it.
            fn visit_u64<E: serde::de::Error>(self, index: u64) -> Result<Paint, E> {
                u16::try_from(index)
                    .map(Paint::legacy_index)
                    .map_err(|_| E::custom(format!("palette index {index} is too large")))
            }
            fn visit_i64<E: serde::de::Error>(self, index: i64) -> Result<Paint, E> {
                u64::try_from(index)
                    .map_err(|_| E::custom("palette indices cannot be negative"))
                    .and_then(|index| self.visit_u64(index))
            }
        }
        deserializer.deserialize_any(PaintVisitor)
    }
}

impl JsonSchema for Paint {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Paint".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": PAINT_PATTERN,
            "description": "A palette entry id, then optionally `#` and a tile of its sheet (row-major, from 0): \"stone\" or \"stone#3\"."
        })
    }
}

/// The pattern of a paint: an entry id slug, optionally `#` and a tile number.
pub const PAINT_PATTERN: &str = "^[a-z_][a-z0-9_]*(#[0-9]+)?$";

/// How a palette picture is sliced into tiles, in pixels (Tiled's tile size, margin, spacing).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tileset {
    /// Width of a tile.
    pub tile_width: u32,
    /// Height of a tile.
    pub tile_height: u32,
    /// Pixels around the whole sheet before the first tile.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub margin: u32,
    /// Pixels between neighbouring tiles.
    #[serde(default, skip_serializing_if = "is_default")]
    #[schemars(!skip_serializing_if)]
    pub spacing: u32,
}

/// A rectangle of a picture, in pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelRect {
    /// Left edge.
    pub x: u32,
    /// Top edge.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// How a sheet of a given size slices: tiles per row and per column, and pixels left over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SheetGrid {
    /// Tiles per row.
    pub columns: u32,
    /// Rows of tiles.
    pub rows: u32,
    /// Pixels right of and below the last whole tile that fit no tile (beyond the margin).
    pub leftover: (u32, u32),
}

impl SheetGrid {
    /// Number of tiles.
    pub fn tiles(self) -> usize {
        (self.columns as usize).saturating_mul(self.rows as usize)
    }
}

impl Tileset {
    /// How a `width`×`height` sheet slices; zero columns or rows when no whole tile fits.
    pub fn grid(self, width: u32, height: u32) -> SheetGrid {
        let along = |size: u32, tile: u32| -> (u32, u32) {
            let inner = size.saturating_sub(self.margin.saturating_mul(2));
            if tile == 0 || inner < tile {
                return (0, inner);
            }
            let step = tile.saturating_add(self.spacing);
            let count = (inner - tile) / step + 1;
            (count, inner - (count - 1) * step - tile)
        };
        let (columns, left_x) = along(width, self.tile_width);
        let (rows, left_y) = along(height, self.tile_height);
        SheetGrid { columns, rows, leftover: (left_x, left_y) }
    }

    /// The pixels of tile `index` (row-major) of a `width`×`height` sheet; None past the sheet.
    pub fn tile_rect(self, width: u32, height: u32, index: usize) -> Option<PixelRect> {
        let grid = self.grid(width, height);
        if index >= grid.tiles() {
            return None;
        }
        let (column, row) = (index as u32 % grid.columns, index as u32 / grid.columns);
        Some(PixelRect {
            x: self.margin + column * (self.tile_width + self.spacing),
            y: self.margin + row * (self.tile_height + self.spacing),
            width: self.tile_width,
            height: self.tile_height,
        })
    }

    /// Why a `width`×`height` sheet does not slice cleanly, or None when it does.
    pub fn problem(self, width: u32, height: u32) -> Option<String> {
        if self.tile_width == 0 || self.tile_height == 0 {
            return Some("the tile size must be at least 1×1 pixels".to_owned());
        }
        let grid = self.grid(width, height);
        if grid.tiles() == 0 {
            return Some(format!(
                "no {}×{} tile fits the {width}×{height} picture with a margin of {}",
                self.tile_width, self.tile_height, self.margin
            ));
        }
        (grid.leftover != (0, 0)).then(|| {
            format!(
                "the {width}×{height} picture does not fit {}×{} tiles with margin {} and spacing {}: {}×{} pixels are left over right and below the last whole tiles",
                self.tile_width, self.tile_height, self.margin, self.spacing, grid.leftover.0, grid.leftover.1
            )
        })
    }
}

/// A palette's entries by id, built once per palette so lookups per face are a table read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PaletteLookup {
    /// By [`PaletteId::dense`]: the entry's index, or `u16::MAX` for ids not in the palette.
    by_dense: Vec<u16>,
}

impl PaletteLookup {
    /// The lookup of `palette`; of two entries with one id the first wins (`check` reports it).
    pub fn new(palette: &[PaletteEntry]) -> Self {
        let mut by_dense = Vec::new();
        for (index, entry) in palette.iter().enumerate().rev() {
            let (Ok(index), dense) = (u16::try_from(index), entry.id.dense() as usize) else { continue };
            if entry.id.is_empty() || index == u16::MAX {
                continue;
            }
            if by_dense.len() <= dense {
                by_dense.resize(dense + 1, u16::MAX);
            }
            if let Some(slot) = by_dense.get_mut(dense) {
                *slot = index;
            }
        }
        Self { by_dense }
    }

    /// The palette index of the entry named `id`.
    pub fn index(&self, id: PaletteId) -> Option<usize> {
        self.by_dense.get(id.dense() as usize).filter(|index| **index != u16::MAX).map(|index| usize::from(*index))
    }
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
    /// This item's key in string tables (`KIND.KEY.FIELD`); empty: the id. A rename stores the old id
    /// here, so translations keep their keys.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text_key: String,
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
    /// Non-empty columns, sorted by (y, x). Shared, so a copy of a large map costs a
    /// reference count per column and an edit copies only the columns it changes
    /// (`Arc::make_mut`); a view tells what changed by comparing the pointers first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<Arc<Column>>,
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

impl TileMap {
    /// Upgrades a map written before palette ids: entries without an id get one from their
    /// label (unique within the map), and paint by palette index names that entry's id (tile 0;
    /// an index outside the palette, which painted nothing, becomes unpainted). Returns how
    /// many entries got ids and how many faces were rewritten.
    pub fn migrate_palette_ids(&mut self) -> (usize, usize) {
        if !self.needs_palette_ids() {
            return (0, 0);
        }
        let mut named = 0;
        let mut taken: std::collections::BTreeSet<String> =
            self.palette.iter().filter(|e| !e.id.is_empty()).map(|e| e.id.as_str().to_owned()).collect();
        for entry in &mut self.palette {
            if entry.id.is_empty() {
                let slug = unique_slug(&entry.label, &taken);
                entry.id = PaletteId::new(&slug);
                taken.insert(slug);
                named += 1;
            }
        }
        let ids: Vec<PaletteId> = self.palette.iter().map(|entry| entry.id).collect();
        let mut faces = 0;
        // Only the columns with old paint are written (the others stay shared).
        let old_columns = self.columns.iter_mut().filter(|column| column.tiles.iter().any(has_legacy_paint));
        for tile in old_columns.flat_map(|column| Arc::make_mut(column).tiles.iter_mut()) {
            for paint in tile.paint.iter_mut() {
                if let Some(index) = paint.and_then(Paint::legacy) {
                    *paint = ids.get(usize::from(index)).map(|id| Paint { entry: *id, tile: 0 });
                    faces += 1;
                }
            }
        }
        (named, faces)
    }
}

impl TileMap {
    /// Whether [`TileMap::migrate_palette_ids`] has anything to do: an entry without an id, or
    /// paint by palette index. Reads only, so a loaded map that is up to date is not copied.
    pub fn needs_palette_ids(&self) -> bool {
        self.palette.iter().any(|entry| entry.id.is_empty())
            || self.columns.iter().flat_map(|column| &column.tiles).any(has_legacy_paint)
    }
}

/// Whether a face of `tile` is painted by palette index (written before palette ids).
fn has_legacy_paint(tile: &Tile) -> bool {
    tile.paint.to_array().iter().any(|paint| paint.is_some_and(|paint| paint.legacy().is_some()))
}

/// A slug made from `label` that is not in `taken` (`stone`, `stone_2`, …).
pub fn unique_slug(label: &str, taken: &std::collections::BTreeSet<String>) -> String {
    let base = if label.trim().is_empty() { "entry".to_owned() } else { super::slugify(label) };
    let mut slug = base.clone();
    let mut n = 2;
    while taken.contains(&slug) {
        slug = format!("{base}_{n}");
        n += 1;
    }
    slug
}

impl Default for TileMap {
    fn default() -> Self {
        Self {
            text_key: String::new(),
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
