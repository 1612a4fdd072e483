//! Standing spots, the regions of `spec/srpgck.md` §b (Path, Pick and Line spaces of a
//! cylinder), paths and line of sight. Every result is ordered by spot: no hash order leaks.

use std::cmp::{Ordering, Reverse};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};
use std::sync::{Arc, PoisonError, RwLock};

use rustc_hash::FxHashMap;

use crate::model::{Terrain, Tile};

use super::MapError;
use super::geometry::{Face, TileSolid};
use super::grid::TileGrid;
use super::pick::{PickHit, first_hit_on_segment};
use super::spot_sets::SpotMap;
use super::spots::{PathQuestion, SpotInfo, SpotTable, edge_dz};

/// Where a unit can stand: on top of a tile of cell (`cell_x`, `cell_y`), its feet at
/// `level` (the tile's base plus its highest corner), with at least one free level above.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Spot {
    /// Cell x.
    pub cell_x: u16,
    /// Cell y.
    pub cell_y: u16,
    /// Standing level.
    pub level: u16,
}

impl Spot {
    /// A spot.
    pub const fn new(cell_x: u16, cell_y: u16, level: u16) -> Self {
        Self { cell_x, cell_y, level }
    }

    /// Grid (Manhattan) distance between two cells.
    pub fn xy_distance(self, other: Self) -> u32 {
        u32::from(self.cell_x.abs_diff(other.cell_x)) + u32::from(self.cell_y.abs_diff(other.cell_y))
    }
}

/// Someone else standing on a spot, as the moving unit sees them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Occupant {
    /// Same side: always passable.
    Ally,
    /// Other side: blocks unless the region may cross enemies.
    Enemy,
    /// Same side, and the mover may ride it (or is riding it and leaves it): can be chosen,
    /// and gives the mounting step bonus.
    MountAlly,
    /// Other side, and the mover may ride it: can be chosen (passed only as an enemy).
    MountEnemy,
}

impl Occupant {
    /// On the other side (a mount or not).
    pub fn is_enemy(self) -> bool {
        matches!(self, Self::Enemy | Self::MountEnemy)
    }

    /// The mover may ride it.
    pub fn is_mount(self) -> bool {
        matches!(self, Self::MountAlly | Self::MountEnemy)
    }
}

/// A region's numbers and flags (`spec/srpgck.md` §b.3), formulas already evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachParams {
    /// Least grid distance from the start that can be chosen.
    pub radius_min: u16,
    /// Most grid distance (Path: path length, a leap counting the cells it spans).
    pub radius_max: u16,
    /// Least rise of a chosen spot, in levels (0 with `z_down_min` 0: no minimum).
    pub z_up_min: f32,
    /// Most rise, in levels.
    pub z_up_max: f32,
    /// Least drop of a chosen spot, in levels.
    pub z_down_min: f32,
    /// Most drop, in levels.
    pub z_down_max: f32,
    /// Rise and drop are measured from the start (a window around its height), not per step.
    pub use_absolute_dz: bool,
    /// Ceilings, low headroom and overhangs do not block.
    pub can_cross_walls: bool,
    /// Paths and lines pass enemies.
    pub can_cross_enemies: bool,
    /// A spot holding an enemy can be chosen.
    pub can_halt_at_enemies: bool,
    /// A spot holding an ally can be chosen (allies are always passable).
    pub can_halt_at_allies: bool,
    /// Free levels a unit needs above its feet; a spot with fewer is a wall spot.
    pub clearance: u16,
    /// Most cells a leap crosses (SRPGCK: `z_down_max / 2`, rounded down).
    pub leap_cells: u16,
    /// SRPGCK's `useMountingStepBonus`: a step off a mount may climb, and a step onto one
    /// drop, one level more (§b.6); the window of chosen spots is one level wider.
    pub mount_step_bonus: bool,
    /// Terrain tags ([`TileGrid::tag_mask`]) whose tiles a walk never enters and that can
    /// never be chosen (FORMAT.md §9 "Terrain").
    pub no_enter: u64,
}

impl Default for ReachParams {
    /// SRPGCK's default move skill: radius 3, up 2, down 3.
    fn default() -> Self {
        Self::movement(3, 2.0, 3.0)
    }
}

impl ReachParams {
    /// A move region: `radius_max` steps, climbing `z_up_max` and dropping `z_down_max`
    /// levels, leaping `z_down_max / 2` cells; enemies block, allies can be passed.
    pub fn movement(radius_max: u16, z_up_max: f32, z_down_max: f32) -> Self {
        let leap_cells = if z_down_max.is_finite() && z_down_max > 0.0 { (z_down_max / 2.0) as u16 } else { 0 };
        Self {
            radius_min: 0,
            radius_max,
            z_up_min: 0.0,
            z_up_max,
            z_down_min: 0.0,
            z_down_max,
            use_absolute_dz: true,
            can_cross_walls: true,
            can_cross_enemies: false,
            can_halt_at_enemies: false,
            can_halt_at_allies: false,
            clearance: 1,
            leap_cells,
            mount_step_bonus: false,
            no_enter: 0,
        }
    }

    /// The mounting step bonus in levels (1 with `mount_step_bonus`).
    fn bonus(&self) -> f32 {
        if self.mount_step_bonus { 1.0 } else { 0.0 }
    }

    /// Whether a rise `dz` is inside the window: at most the maxima (inclusive), and at
    /// least the minima (`dz ≤ −z_down_min` or `dz ≥ z_up_min`, §b.4 step 4).
    fn dz_allowed(&self, dz: f32) -> bool {
        self.dz_within_maxima(dz) && (dz <= -self.z_down_min || dz >= self.z_up_min)
    }

    fn dz_within_maxima(&self, dz: f32) -> bool {
        dz <= self.z_up_max + self.bonus() && dz >= -self.z_down_max - self.bonus()
    }
}

/// How a line of sight is drawn between two spots.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SightParams {
    /// The eye above the looker's feet, in levels.
    pub eye_height: f32,
    /// The point looked at above the target's feet, in levels.
    pub target_height: f32,
    /// Invisible (collision-only) tiles block sight too.
    pub invisible_blocks: bool,
    /// Tiles block at all: a region that may cross walls (`can_cross_walls`, §b.7) sees and
    /// throws through them.
    pub tiles_block: bool,
}

impl Default for SightParams {
    /// Eye one level up (SRPGCK's head), target half a level up, every tile blocks.
    fn default() -> Self {
        Self { eye_height: 1.0, target_height: 0.5, invisible_blocks: true, tiles_block: true }
    }
}

/// One reached spot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachNode {
    /// The spot.
    pub spot: Spot,
    /// Path length (Path space: each entered tile counts its terrain's move cost, a leap's
    /// gap one per cell), else grid distance from the start.
    pub steps: u16,
    /// Leaps on the path.
    pub leaps: u16,
    /// Sum of |rise| over the path's steps, in levels (ties between equal lengths).
    pub climb: f32,
    /// The spot before it on the path; None for the start.
    pub prev: Option<Spot>,
    /// Reached by a leap from `prev`.
    pub leap: bool,
    /// The rise the window was checked with: from the start (absolute) or of the last step.
    pub dz: f32,
    /// Can be chosen as an end; false: only passed through (shown, not choosable).
    pub can_stop: bool,
}

/// A region: every reached spot, ordered by spot.
#[derive(Clone, Debug, PartialEq)]
pub struct Reach {
    start: Spot,
    /// Sorted by spot, one node per spot.
    nodes: Vec<ReachNode>,
}

impl Reach {
    /// Where the region was computed from.
    pub fn start(&self) -> Spot {
        self.start
    }

    /// The node of a spot.
    pub fn get(&self, spot: Spot) -> Option<&ReachNode> {
        self.nodes.binary_search_by_key(&spot, |node| node.spot).ok().and_then(|at| self.nodes.get(at))
    }

    /// Every node, ordered by spot.
    pub fn nodes(&self) -> impl Iterator<Item = &ReachNode> {
        self.nodes.iter()
    }

    /// The spots that can be chosen, ordered.
    pub fn stops(&self) -> impl Iterator<Item = Spot> + '_ {
        self.nodes.iter().filter(|node| node.can_stop).map(|node| node.spot)
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether nothing was reached (not even the start).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The path from the start to `spot`, both included; None when `spot` was not reached.
    pub fn path_to(&self, spot: Spot) -> Option<Vec<Spot>> {
        let mut path = vec![spot];
        let mut at = self.get(spot)?;
        // Each prev link was set by a strictly cheaper node, so this ends; the bound is a guard.
        for _ in 0..self.nodes.len() {
            let Some(prev) = at.prev else {
                path.reverse();
                return Some(path);
            };
            path.push(prev);
            at = self.get(prev)?;
        }
        None
    }
}

/// A standing spot of a column with what stands it up.
#[derive(Clone, Copy, Debug)]
struct SpotTile<'a> {
    spot: Spot,
    tile: &'a Tile,
}

/// The standing spots of a column, bottom first.
fn column_spots(grid: &TileGrid, cell_x: u16, cell_y: u16) -> impl Iterator<Item = SpotTile<'_>> {
    let column = grid.column(i32::from(cell_x), i32::from(cell_y));
    column.iter().enumerate().filter_map(move |(at, tile)| {
        let top = tile.top_z();
        let free = column.get(at + 1).map_or(u32::MAX, |next| u32::from(next.z).saturating_sub(top));
        // `sanitize_tile` keeps every top within MAX_Z_LEVELS, so it fits u16.
        (free >= 1).then_some(SpotTile { spot: Spot::new(cell_x, cell_y, top as u16), tile })
    })
}

/// The standing spots of cell (`cell_x`, `cell_y`), bottom first: the top of each tile whose
/// next tile up starts at least one level above it.
pub fn standing_spots(grid: &TileGrid, cell_x: u16, cell_y: u16) -> Vec<Spot> {
    column_spots(grid, cell_x, cell_y).map(|found| found.spot).collect()
}

fn spot_tile(grid: &TileGrid, spot: Spot) -> Option<SpotTile<'_>> {
    column_spots(grid, spot.cell_x, spot.cell_y).find(|found| found.spot.level == spot.level)
}

/// The terrain of the tile `spot` stands on (its top face's paint, FORMAT.md §9 "Terrain");
/// None when `spot` is not a standing spot.
pub fn spot_terrain(grid: &TileGrid, spot: Spot) -> Option<&Terrain> {
    spot_tile(grid, spot).map(|found| grid.terrain(found.tile))
}

/// The terrain tag bits ([`TileGrid::tag_mask`]) of the tile `spot` stands on; None when
/// `spot` is not a standing spot.
pub fn spot_tags(grid: &TileGrid, spot: Spot) -> Option<u64> {
    // Regions ask this of every spot they list: the spot table has the tags at hand.
    let table = grid.spot_table();
    table.get(table.index(spot)?).map(|found| found.tags)
}

/// The point a unit on `spot` stands on: the middle of the tile's footprint, at the height
/// of its top there (grid space). None when `spot` is not a standing spot.
pub fn spot_point(grid: &TileGrid, spot: Spot) -> Option<[f32; 3]> {
    let table = grid.spot_table();
    table.get(table.index(spot)?)?.point
}

/// [`spot_point`] worked out from the tile (for the spot table).
pub(super) fn tile_point(spot: Spot, tile: &Tile) -> Option<[f32; 3]> {
    let solid = TileSolid::new(spot.cell_x, spot.cell_y, tile);
    let (x, y) = solid.footprint_centre();
    Some([x, y, solid.top_height_at(x, y)?])
}

/// The rise of a move from `from` to `to` (`spec/srpgck.md` §b.2): the top height at the
/// middle of the edge `to` is entered by minus that of the edge `from` is left by. The edges
/// follow the x step when there is one, else the y step; within one cell, the −x edges.
/// None when either is not a standing spot.
pub fn signed_dz(grid: &TileGrid, from: Spot, to: Spot) -> Option<f32> {
    let from_tile = spot_tile(grid, from)?;
    let to_tile = spot_tile(grid, to)?;
    Some(dz_between(from, from_tile.tile, to, to_tile.tile))
}

fn dz_between(from: Spot, from_tile: &Tile, to: Spot, to_tile: &Tile) -> f32 {
    let (exit, enter) = match (to.cell_x.cmp(&from.cell_x), to.cell_y.cmp(&from.cell_y)) {
        (Ordering::Greater, _) => (Face::PosX, Face::NegX),
        (Ordering::Less, _) => (Face::NegX, Face::PosX),
        (Ordering::Equal, Ordering::Greater) => (Face::PosY, Face::NegY),
        (Ordering::Equal, Ordering::Less) => (Face::NegY, Face::PosY),
        (Ordering::Equal, Ordering::Equal) => (Face::NegX, Face::NegX),
    };
    let enter_height = TileSolid::tile_edge_top_height(to_tile, enter);
    let exit_height = TileSolid::tile_edge_top_height(from_tile, exit);
    enter_height - exit_height
}

/// Whether no tile of the column overlaps levels `from_level..to_level`.
fn column_free(grid: &TileGrid, cell_x: i32, cell_y: i32, from_level: u32, to_level: u32) -> bool {
    grid.column(cell_x, cell_y).iter().all(|tile| u32::from(tile.z) >= to_level || tile.top_z() <= from_level)
}

/// Path order: fewer steps, then fewer leaps, then less climbing (SRPGCK's "flatter steps are
/// slightly cheaper" tie-breaker), then the spot itself so equal paths resolve the same way.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cost {
    steps: u16,
    leaps: u16,
    climb: f32,
}

impl Cost {
    fn cmp(self, other: Self) -> Ordering {
        self.key().cmp(&other.key())
    }

    /// The cost as one number in the same order: steps, then leaps, then climb as
    /// `f32::total_cmp` orders it (a path search compares costs at every step and in its queue).
    fn key(self) -> u64 {
        let bits = self.climb.to_bits().cast_signed();
        // `total_cmp`'s own transform (negatives' magnitude bits flipped), then the sign bit
        // flipped so that the signed order is the unsigned one.
        let ordered = (bits ^ (((bits >> 31).cast_unsigned() >> 1).cast_signed())).cast_unsigned() ^ 0x8000_0000;
        u64::from(self.steps) << 48 | u64::from(self.leaps) << 32 | u64::from(ordered)
    }
}

/// A queue entry; `BinaryHeap` is a max-heap, so the order is reversed.
#[derive(Clone, Copy, Debug)]
struct Queued {
    cost: Cost,
    spot: Spot,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Queued {}

impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Queued {
    fn cmp(&self, other: &Self) -> Ordering {
        other.cost.cmp(self.cost).then_with(|| other.spot.cmp(&self.spot))
    }
}

/// A path search's queue entry: the [`Cost::key`] above the spot's number in the
/// [`SpotTable`], the least first (numbers are in spot order, so the queue pops in the order
/// of [`Queued`]; one wide number compares in fewer steps than the pair).
type QueuedAt = Reverse<u128>;

/// The queue entry of spot number `at` reached at cost key `key`.
fn queued_at(key: u64, at: u32) -> QueuedAt {
    Reverse(u128::from(key) << 32 | u128::from(at))
}

/// A spot a path search reached: its number, its node, the cost it was reached at, and
/// whether it was expanded.
#[derive(Clone, Copy, Debug)]
struct Visit {
    at: u32,
    node: ReachNode,
    cost: Cost,
    /// `cost`'s [`Cost::key`].
    key: u64,
    done: bool,
}

/// Marks a spot no visit holds yet in [`Search::slot`].
const UNVISITED: u32 = u32::MAX;

/// One path search's state.
struct Search<'a> {
    grid: &'a TileGrid,
    table: &'a SpotTable,
    start: SpotInfo,
    params: &'a ReachParams,
    /// Per spot number, who stands there: offers and expansions ask at every step, and a
    /// table read costs less than a tree lookup by spot.
    occupied: Vec<Option<Occupant>>,
    /// Per spot number, its place in `visits` (or [`UNVISITED`]).
    slot: Vec<u32>,
    visits: Vec<Visit>,
    queue: BinaryHeap<QueuedAt>,
    /// The grid's edges for this search's body, when the grid keeps them.
    edges: Option<Arc<Edges>>,
}

impl Search<'_> {
    /// Who stands on spot number `at`.
    fn occupant(&self, at: u32) -> Option<Occupant> {
        self.occupied.get(at as usize).copied().flatten()
    }

    /// Offers `edge` out of spot number `from_at` (on `from`), reached at `from_cost`,
    /// keeping it if who stands where, the budget and the rise window allow it and it is
    /// better than what its spot had (the grid's own checks were made when the edge was
    /// found: [`grid_edges`]).
    fn offer(&mut self, (from_at, from): (u32, Spot), from_cost: Cost, edge: &Edge) {
        let params = self.params;
        let to_at = edge.to;
        // The cheap refusals first, from the edge alone (each refusal leaves the search as it
        // was, so their order does not matter): most offers at a search's edge are out of
        // budget. Entering a tile costs its terrain's move cost; a leap's gap cells are flown
        // over, and must fit the budget without saturating (as they always had to) even where
        // the sum with a huge move cost saturates.
        let steps = from_cost.steps.saturating_add(edge.spend);
        let gap_fits = u32::from(from_cost.steps) + u32::from(edge.gap) <= u32::from(params.radius_max);
        if steps > params.radius_max || !gap_fits || edge.tags & params.no_enter != 0 {
            return;
        }
        let step_dz = edge.step_dz;
        let cost = Cost {
            steps,
            leaps: from_cost.leaps.saturating_add(u16::from(edge.leap)),
            climb: from_cost.climb + step_dz.abs(),
        };
        let key = cost.key();
        // Most offers go back to spots already reached at least as cheaply (expanded ones
        // included): refused before the checks that read who stands where.
        let Some(slot) = self.slot.get(to_at as usize).copied() else { return };
        let known = self.visits.get(slot as usize);
        if known.is_some_and(|known| known.key <= key) {
            return;
        }
        let Some(to) = self.table.get(to_at) else { return };
        let to_occupant = self.occupant(to_at);
        if to_occupant == Some(Occupant::Enemy) && !(params.can_cross_enemies || params.can_halt_at_enemies) {
            return;
        }
        let window_dz = if params.use_absolute_dz { edge_dz(&self.start, to) } else { step_dz };
        // The step bonus (§b.6) only for a step off a mount (up) or onto one (down).
        let mount_at = |occupant: Option<Occupant>| params.mount_step_bonus && occupant.is_some_and(Occupant::is_mount);
        let up = params.z_up_max + if mount_at(self.occupant(from_at)) { 1.0 } else { 0.0 };
        let down = params.z_down_max + if mount_at(to_occupant) { 1.0 } else { 0.0 };
        if window_dz > up || window_dz < -down {
            return;
        }
        let node = ReachNode {
            spot: to.spot,
            steps: cost.steps,
            leaps: cost.leaps,
            climb: cost.climb,
            prev: Some(from),
            leap: edge.leap,
            dz: window_dz,
            can_stop: false,
        };
        if let Some(known) = self.visits.get_mut(slot as usize) {
            known.node = node;
            known.cost = cost;
            known.key = key;
        } else {
            if let Some(slot) = self.slot.get_mut(to_at as usize) {
                // A table of at most MAX_MAP_SIDE² × 256 spots: the count fits u32.
                *slot = self.visits.len() as u32;
            }
            self.visits.push(Visit { at: to_at, node, cost, key, done: false });
        }
        self.queue.push(queued_at(key, to_at));
    }

    /// Offers every step and leap out of spot number `at`, reached at `cost` (`offer` keeps
    /// the budget: a tile of move cost 0 is entered even with none left).
    fn expand(&mut self, at: u32, cost: Cost) {
        let (grid, table) = (self.grid, self.table);
        let Some(from) = table.get(at).map(|info| info.spot) else { return };
        match self.edges.take() {
            Some(edges) => {
                for edge in edges.of(at) {
                    self.offer((at, from), cost, edge);
                }
                self.edges = Some(edges);
            }
            None => grid_edges(grid, table, at, EdgeQuestion::of(self.params), |edge| {
                self.offer((at, from), cost, &edge);
            }),
        }
    }
}

/// A move a path search may offer out of a spot, as far as the grid alone decides.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Edge {
    /// The number of the spot it lands on.
    to: u32,
    /// The cells a leap flies over (0 for a step).
    gap: u16,
    /// The steps it spends: the gap's cells and the landing tile's move cost (saturated), so
    /// a search refuses most edges without looking up where they land.
    spend: u16,
    /// Whether it is a leap.
    leap: bool,
    /// How far it rises at the edges it crosses ([`edge_dz`]).
    step_dz: f32,
    /// The landing tile's terrain tag bits (refused by a search's `no_enter`).
    tags: u64,
}

/// What the grid's edges depend on besides the grid: the body's clearance, how far it
/// leaps, and whether walls stop it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgeQuestion {
    clearance: u16,
    leap_cells: u16,
    can_cross_walls: bool,
}

impl EdgeQuestion {
    /// The question of a search with `params`.
    fn of(params: &ReachParams) -> Self {
        Self { clearance: params.clearance, leap_cells: params.leap_cells, can_cross_walls: params.can_cross_walls }
    }
}

/// Every spot's [`Edge`]s for one [`EdgeQuestion`], kept per grid state: a search then does
/// no geometry of its own.
#[derive(Debug)]
pub(crate) struct Edges {
    /// Per spot number, where its edges start in `edges`; one more entry at the end.
    first: Vec<u32>,
    edges: Vec<Edge>,
}

impl Edges {
    /// The edges of every spot of `table`.
    pub(crate) fn build(grid: &TileGrid, table: &SpotTable, question: EdgeQuestion) -> Self {
        let mut first = Vec::with_capacity(table.len().saturating_add(1));
        let mut edges = Vec::with_capacity(table.len().saturating_mul(4));
        for at in 0..table.len() as u32 {
            // At most MAX_MAP_SIDE² × 256 spots with a few edges each: the count fits u32.
            first.push(edges.len() as u32);
            grid_edges(grid, table, at, question, |edge| edges.push(edge));
        }
        first.push(edges.len() as u32);
        Self { first, edges }
    }

    /// The edges out of spot number `at`.
    fn of(&self, at: u32) -> &[Edge] {
        let (Some(from), Some(to)) = (self.first.get(at as usize), self.first.get(at as usize + 1)) else { return &[] };
        self.edges.get(*from as usize..*to as usize).unwrap_or_default()
    }
}

/// The edges out of spot number `at` that the grid allows for `question`, in the order a
/// search offers them: per side, the step onto each spot of the next cell, then each leap
/// farther out (one more gap cell each, while the gap's ground is a level below the
/// take-off), onto each spot no higher than the take-off.
fn grid_edges(grid: &TileGrid, table: &SpotTable, at: u32, question: EdgeQuestion, mut found: impl FnMut(Edge)) {
    let Some(from) = table.get(at) else { return };
    let (x, y) = (i32::from(from.spot.cell_x), i32::from(from.spot.cell_y));
    let level = u32::from(from.spot.level);
    let clearance = u32::from(question.clearance);
    // Unless walls can be crossed, the body needs its clearance where it lands, and a climber
    // its own column clear up to the new height; a drop needs the landing column clear down
    // from the old one (no ceiling, no overhang).
    let walls_allow = |to: &SpotInfo| {
        if question.can_cross_walls {
            return true;
        }
        let to_level = u32::from(to.spot.level);
        to.free >= clearance
            && if to_level > level {
                column_free(grid, x, y, level, to_level + clearance)
            } else {
                column_free(grid, i32::from(to.spot.cell_x), i32::from(to.spot.cell_y), to_level, level + clearance)
            }
    };
    let mut edge_to = |to_at: u32, gap: u16, leap: bool| {
        if let Some(to) = table.get(to_at)
            && walls_allow(to)
        {
            found(Edge {
                to: to_at,
                gap,
                spend: gap.saturating_add(to.move_cost),
                leap,
                step_dz: edge_dz(from, to),
                tags: to.tags,
            });
        }
    };
    for (step_x, step_y) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
        let cell_at = |cells: i32| (x + step_x * cells, y + step_y * cells);
        let (next_x, next_y) = cell_at(1);
        if !grid.contains(next_x, next_y) {
            continue;
        }
        for to in table.cell(next_x, next_y) {
            edge_to(to, 0, false);
        }
        // A leap crosses cells whose ground is at least a level below the take-off and
        // lands no higher than it; walls only bound it when they cannot be crossed.
        let head = if question.can_cross_walls { level } else { level + clearance };
        for gap in 1..=question.leap_cells {
            let (gap_x, gap_y) = cell_at(i32::from(gap));
            let (land_x, land_y) = cell_at(i32::from(gap) + 1);
            if !grid.contains(land_x, land_y) || !column_free(grid, gap_x, gap_y, level.saturating_sub(1), head) {
                break;
            }
            for to in table.cell(land_x, land_y) {
                let Some(to_level) = table.get(to).map(|info| u32::from(info.spot.level)) else { continue };
                let landing_clear = question.can_cross_walls || column_free(grid, land_x, land_y, to_level, head);
                if to_level <= level && landing_clear {
                    edge_to(to, gap, true);
                }
            }
        }
    }
}

fn start_of(grid: &TileGrid, start: Spot) -> Result<SpotInfo, MapError> {
    let table = grid.spot_table();
    table.index(start).and_then(|at| table.get(at)).copied().ok_or(MapError::NotASpot {
        cell_x: start.cell_x,
        cell_y: start.cell_y,
        level: start.level,
    })
}

/// Decides `can_stop` for every node (§b.4 step 4 and §b.5, with the fixes in FORMAT.md).
fn settle(grid: &TileGrid, start: Spot, params: &ReachParams, occupants: &SpotMap<Occupant>, node: &mut ReachNode) {
    let table = grid.spot_table();
    let found = table.index(node.spot).and_then(|at| table.get(at));
    settle_at(start, params, occupants.get(&node.spot).copied(), found, node);
}

/// [`settle`] with the node's spot already looked up (None: not a standing spot) and who
/// stands on it.
fn settle_at(
    start: Spot,
    params: &ReachParams,
    occupant: Option<Occupant>,
    found: Option<&SpotInfo>,
    node: &mut ReachNode,
) {
    let distance = start.xy_distance(node.spot);
    let occupant_allows = node.spot == start
        || match occupant {
            None | Some(Occupant::MountAlly | Occupant::MountEnemy) => true,
            Some(Occupant::Ally) => params.can_halt_at_allies,
            Some(Occupant::Enemy) => params.can_halt_at_enemies,
        };
    let headroom = found.is_some_and(|found| found.free >= u32::from(params.clearance));
    let terrain_allows = found.is_some_and(|found| found.tags & params.no_enter == 0);
    node.can_stop = occupant_allows
        && headroom
        && (terrain_allows || node.spot == start)
        && distance >= u32::from(params.radius_min)
        && distance <= u32::from(params.radius_max)
        && params.dz_allowed(node.dz);
}

/// The Path space of a cylinder region (`spec/srpgck.md` §b.6): every spot a unit on `start`
/// can walk or leap to within `radius_max` steps, with the shortest path to each.
///
/// One Dijkstra search over standing spots, ordered by (steps, leaps, climb, spot). A step
/// goes to any standing spot of a side neighbour within the rise window; a leap crosses up
/// to `leap_cells` cells lower than the take-off. Entering a tile spends its terrain's move
/// cost (1 on plain ground; a leap's gap cells one each) and tiles with a `no_enter` tag are
/// never entered (FORMAT.md §9 "Terrain"). Enemies are not passed unless
/// `can_cross_enemies` (nor entered unless they may be crossed or halted at); allies are
/// passed. The start is always included.
pub fn reach_path(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
) -> Result<Reach, MapError> {
    reach_path_kept(grid, start, params, occupants).map(|reach| Reach::clone(&reach))
}

/// [`reach_path`], shared: the grid keeps the searches it was asked for lately, and the same
/// question on the same grid state has the same answer.
pub(crate) fn reach_path_kept(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
) -> Result<Arc<Reach>, MapError> {
    let table = grid.spot_table();
    table.kept_path(PathQuestion::new(start, params, occupants), || {
        let edges = table.kept_edges(grid, EdgeQuestion::of(params));
        search_path(grid, table, start, params, occupants, edges)
    })
}

/// About how many spots a region of `radius` cells holds, to size its lists once: one per
/// cell of its diamond (most cells stand one spot), never more than the map has.
fn likely_spots(table: &SpotTable, radius: u16) -> usize {
    let radius = usize::from(radius);
    let diamond = radius.saturating_mul(radius).saturating_add(radius).saturating_mul(2).saturating_add(1);
    table.len().min(diamond)
}

/// The search of [`reach_path`], over the grid's `edges` for the body when it keeps them
/// (none: each expanded spot finds its own).
fn search_path(
    grid: &TileGrid,
    table: &SpotTable,
    start: Spot,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
    edges: Option<Arc<Edges>>,
) -> Result<Reach, MapError> {
    let not_a_spot = || MapError::NotASpot { cell_x: start.cell_x, cell_y: start.cell_y, level: start.level };
    let start_at = table.index(start).ok_or_else(not_a_spot)?;
    let start_info = table.get(start_at).copied().ok_or_else(not_a_spot)?;
    let zero = Cost { steps: 0, leaps: 0, climb: 0.0 };
    let first =
        ReachNode { spot: start, steps: 0, leaps: 0, climb: 0.0, prev: None, leap: false, dz: 0.0, can_stop: false };
    // One slot per spot of the map: a few bytes each, and no tree to walk at every step.
    let mut slot = vec![UNVISITED; table.len()];
    if let Some(first_slot) = slot.get_mut(start_at as usize) {
        *first_slot = 0;
    }
    let mut occupied = vec![None; table.len()];
    for (spot, occupant) in occupants {
        if let Some(cell) = table.index(*spot).and_then(|at| occupied.get_mut(at as usize)) {
            *cell = Some(*occupant);
        }
    }
    let mut search = Search {
        grid,
        table,
        start: start_info,
        params,
        occupied,
        slot,
        visits: Vec::with_capacity(likely_spots(table, params.radius_max)),
        queue: BinaryHeap::with_capacity(likely_spots(table, params.radius_max)),
        edges,
    };
    search.visits.push(Visit { at: start_at, node: first, cost: zero, key: zero.key(), done: false });
    search.queue.push(queued_at(zero.key(), start_at));
    while let Some(Reverse(entry)) = search.queue.pop() {
        // The two halves of `queued_at`'s number.
        let (key, at) = ((entry >> 32) as u64, entry as u32);
        let Some(visit) = search.slot.get(at as usize).and_then(|slot| search.visits.get_mut(*slot as usize)) else {
            continue;
        };
        if visit.done {
            continue;
        }
        visit.done = true;
        // The first entry of a spot to come out is its latest (cheapest) offer: the visit's cost.
        let cost = visit.cost;
        debug_assert_eq!(cost.key(), key, "a path search expands a spot at the cost it was queued with");
        let blocked =
            at != start_at && search.occupant(at).is_some_and(Occupant::is_enemy) && !params.can_cross_enemies;
        if !blocked {
            search.expand(at, cost);
        }
    }
    let Search { occupied, slot, mut visits, .. } = search;
    let settled = |visit: &Visit| {
        let mut node = visit.node;
        let occupant = occupied.get(visit.at as usize).copied().flatten();
        settle_at(start, params, occupant, table.get(visit.at), &mut node);
        node
    };
    // Nodes in spot order (spot numbers are in spot order): on a map with few spots for those
    // reached, read off in number order, which costs less than sorting the visits.
    let nodes = if slot.len() <= visits.len().saturating_mul(8) {
        let mut nodes = Vec::with_capacity(visits.len());
        nodes.extend(slot.iter().filter_map(|visit| visits.get(*visit as usize)).map(settled));
        nodes
    } else {
        visits.sort_unstable_by_key(|visit| visit.at);
        visits.iter().map(settled).collect()
    };
    Ok(Reach { start, nodes })
}

/// A unit's height in levels (SRPGCK's character size z): flights pass over enemies this high.
const UNIT_HEIGHT: u32 = 2;

/// The Fly space of a region (Actforge's flight; SRPGCK has none): every standing spot a
/// flyer on `start` reaches through open air within `radius_max` cells, rising and dropping
/// any amount on the way (the height window is not used) but never with its feet above
/// `ceiling` (a level; None: no limit). A flyer needs `clearance` free levels where it is,
/// so it goes around and over tiles, never through them; it passes over units, and through
/// enemies (their two levels above their spot) only when `can_cross_enemies`. Cells with no
/// tiles are flown over. The path to each spot runs through the air it crossed: its
/// entries are feet positions (the level need not be a standing spot) and `steps` counts
/// cells, never levels.
pub fn reach_fly(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    ceiling: Option<u16>,
    occupants: &SpotMap<Occupant>,
) -> Result<Reach, MapError> {
    start_of(grid, start)?;
    let radius = i32::from(params.radius_max);
    let (x0, y0) = (i32::from(start.cell_x), i32::from(start.cell_y));
    let clearance = u32::from(params.clearance.max(1));
    // Above the highest top in range (and a unit's height over it, to pass over units)
    // everything is air: no flight needs to go higher.
    let mut highest = u32::from(start.level);
    for cell_y in (y0 - radius).max(0)..=(y0 + radius).min(i32::from(grid.depth()) - 1) {
        for cell_x in (x0 - radius).max(0)..=(x0 + radius).min(i32::from(grid.width()) - 1) {
            for tile in grid.column(cell_x, cell_y) {
                highest = highest.max(tile.top_z());
            }
        }
    }
    let highest = highest + UNIT_HEIGHT;
    let cap = ceiling.map_or(highest, |ceiling| highest.min(u32::from(ceiling)));
    let enemy_at = |x: i32, y: i32, level: u32| {
        !params.can_cross_enemies
            && occupants.iter().any(|(spot, occupant)| {
                *occupant == Occupant::Enemy
                    && i32::from(spot.cell_x) == x
                    && i32::from(spot.cell_y) == y
                    && level + clearance > u32::from(spot.level)
                    && level < u32::from(spot.level) + UNIT_HEIGHT
            })
    };
    let air = |x: i32, y: i32, level: u32| {
        grid.contains(x, y)
            && level <= cap
            && (x - x0).abs() + (y - y0).abs() <= radius
            && column_free(grid, x, y, level, level + clearance)
            && !enemy_at(x, y, level)
    };
    let zero = Cost { steps: 0, leaps: 0, climb: 0.0 };
    let first =
        ReachNode { spot: start, steps: 0, leaps: 0, climb: 0.0, prev: None, leap: false, dz: 0.0, can_stop: false };
    let mut nodes: BTreeMap<Spot, (ReachNode, Cost)> = BTreeMap::from([(start, (first, zero))]);
    let mut queue = BinaryHeap::from([Queued { cost: zero, spot: start }]);
    let mut done = BTreeSet::new();
    while let Some(Queued { cost, spot }) = queue.pop() {
        if !done.insert(spot) {
            continue;
        }
        let (x, y, level) = (i32::from(spot.cell_x), i32::from(spot.cell_y), u32::from(spot.level));
        let mut moves: Vec<(i32, i32, u32, Cost)> = Vec::new();
        if cost.steps < params.radius_max {
            let step = Cost { steps: cost.steps + 1, ..cost };
            for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                moves.push((x + dx, y + dy, level, step));
            }
        }
        let climb = Cost { climb: cost.climb + 1.0, ..cost };
        moves.push((x, y, level + 1, climb));
        if let Some(down) = level.checked_sub(1) {
            moves.push((x, y, down, climb));
        }
        for (to_x, to_y, to_level, to_cost) in moves {
            if !air(to_x, to_y, to_level) {
                continue;
            }
            // `air` keeps every position inside the map and under `cap` (≤ 256).
            let to = Spot::new(to_x as u16, to_y as u16, to_level as u16);
            if nodes.get(&to).is_some_and(|(_, known)| known.cmp(to_cost) != Ordering::Greater) {
                continue;
            }
            let node = ReachNode {
                spot: to,
                steps: to_cost.steps,
                leaps: 0,
                climb: to_cost.climb,
                prev: Some(spot),
                leap: false,
                dz: 0.0,
                can_stop: false,
            };
            nodes.insert(to, (node, to_cost));
            queue.push(Queued { cost: to_cost, spot: to });
        }
    }
    // The height window is not a flyer's: only the radius, headroom and occupants decide.
    let open = ReachParams {
        z_up_min: 0.0,
        z_up_max: f32::INFINITY,
        z_down_min: 0.0,
        z_down_max: f32::INFINITY,
        mount_step_bonus: false,
        ..*params
    };
    let mut reached = BTreeMap::new();
    for (spot, (mut node, _)) in nodes {
        if spot_tile(grid, spot).is_some() {
            settle(grid, start, &open, occupants, &mut node);
        }
        reached.insert(spot, node);
    }
    Ok(Reach { start, nodes: reached.into_values().collect() })
}

/// The candidates of a cylinder region (§b.4 step 1): spots within `radius_max` of the
/// start and, with `use_absolute_dz`, inside the rise window; enemies that can be neither
/// crossed nor halted at are left out.
fn cylinder_candidates(
    grid: &TileGrid,
    start: SpotInfo,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
) -> Vec<(ReachNode, SpotInfo)> {
    let table = grid.spot_table();
    let radius = i32::from(params.radius_max);
    let (x, y) = (i32::from(start.spot.cell_x), i32::from(start.spot.cell_y));
    let mut candidates = Vec::with_capacity(likely_spots(table, params.radius_max));
    for cell_y in (y - radius).max(0)..=(y + radius).min(i32::from(grid.depth()) - 1) {
        let reach_x = radius - (cell_y - y).abs();
        for cell_x in (x - reach_x).max(0)..=(x + reach_x).min(i32::from(grid.width()) - 1) {
            for to in table.cell(cell_x, cell_y).filter_map(|at| table.get(at)) {
                let dz = if params.use_absolute_dz {
                    edge_dz(&start, to)
                } else {
                    // SRPGCK measures a fresh node against itself: no window without a path.
                    0.0
                };
                let enemy_blocks = occupants.get(&to.spot) == Some(&Occupant::Enemy)
                    && !(params.can_cross_enemies || params.can_halt_at_enemies);
                if params.dz_within_maxima(dz) && !enemy_blocks {
                    let is_start = to.spot == start.spot;
                    let node = ReachNode {
                        spot: to.spot,
                        steps: start.spot.xy_distance(to.spot) as u16,
                        leaps: 0,
                        climb: 0.0,
                        prev: (!is_start).then_some(start.spot),
                        leap: false,
                        dz,
                        can_stop: false,
                    };
                    candidates.push((node, *to));
                }
            }
        }
    }
    candidates
}

/// Whether who stands where can change a Pick- or Line-space region's candidates and which of
/// them can be chosen: only when it may not halt at an ally or at an enemy (a region aimed at
/// spots may halt at anyone; the targeting flags decide later).
fn occupants_matter(params: &ReachParams) -> bool {
    !(params.can_halt_at_allies && params.can_halt_at_enemies)
}

/// [`reach_pick`], shared: a region nobody standing changes is worked out once per grid state
/// and start (a battle asks the same few from the same spots again and again).
pub(crate) fn reach_pick_kept(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
) -> Result<Arc<Reach>, MapError> {
    if occupants_matter(params) {
        return reach_pick(grid, start, params, occupants).map(Arc::new);
    }
    let nobody = SpotMap::default();
    let kept = grid
        .spot_table()
        .kept_pick(PathQuestion::new(start, params, &nobody), || reach_pick(grid, start, params, &nobody))?;
    debug_assert_eq!(Ok(&*kept), reach_pick(grid, start, params, occupants).as_ref(), "a kept Pick region");
    Ok(kept)
}

/// The Pick space of a cylinder region: every candidate spot (no path needed).
pub fn reach_pick(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
) -> Result<Reach, MapError> {
    let start_tile = start_of(grid, start)?;
    let mut nodes: Vec<ReachNode> = cylinder_candidates(grid, start_tile, params, occupants)
        .into_iter()
        .map(|(mut node, found)| {
            settle_at(start, params, occupants.get(&node.spot).copied(), Some(&found), &mut node);
            node
        })
        .collect();
    // One node per spot: the order is the spots'.
    nodes.sort_unstable_by_key(|node| node.spot);
    Ok(Reach { start, nodes })
}

/// Whether the segment `from → to` (grid space) passes through the box `low..high`.
pub(super) fn segment_meets_box(from: [f32; 3], to: [f32; 3], low: [f32; 3], high: [f32; 3]) -> bool {
    let (mut t_enter, mut t_exit) = (0.0_f32, 1.0_f32);
    for (((from, to), low), high) in from.into_iter().zip(to).zip(low).zip(high) {
        let d = to - from;
        if d.abs() < 1e-12 {
            if from < low || from > high {
                return false;
            }
        } else {
            let (a, b) = ((low - from) / d, (high - from) / d);
            t_enter = t_enter.max(a.min(b));
            t_exit = t_exit.min(a.max(b));
        }
    }
    t_enter < t_exit
}

/// The boxes (spot, low, high) of the enemies that block lines (none when enemies may be
/// crossed): `clearance` levels tall over their standing point.
fn enemy_boxes(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    occupants: &SpotMap<Occupant>,
) -> Vec<(Spot, [f32; 3], [f32; 3])> {
    if params.can_cross_enemies {
        return Vec::new();
    }
    let clearance = f32::from(params.clearance.max(1));
    occupants
        .iter()
        .filter(|(spot, occupant)| occupant.is_enemy() && **spot != start)
        .filter_map(|(spot, _)| {
            let [_, _, z] = spot_point(grid, *spot)?;
            let (x, y) = (f32::from(spot.cell_x), f32::from(spot.cell_y));
            Some((*spot, [x, y, z], [x + 1.0, y + 1.0, z + clearance]))
        })
        .collect()
}

/// Most lines a [`SightMemo`] keeps before it starts over (a guard on its size).
const MOST_KEPT_SIGHTS: usize = 1 << 20;

/// Which line a [`SightMemo`] answers for: from the eye over a spot to the target point over
/// another, the eye and target heights (as bits), and whether invisible tiles block.
type SightLine = (Spot, Spot, u32, u32, bool);

/// Lines of sight already traced on one tile geometry, kept: whether tiles stand between two
/// spots depends only on the tiles' shapes (not on their paint, nor on who stands where), and
/// a battle asks it for every spot in a ranged skill's reach at every turn. Shared by every
/// battle on the same map (they may run on several threads); units are checked apart.
#[derive(Default)]
pub struct SightMemo(RwLock<FxHashMap<SightLine, bool>>);

impl std::fmt::Debug for SightMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SightMemo")
    }
}

impl SightMemo {
    /// Whether no tile face lies between `eye` (over `from`) and `target` (over `to`).
    fn tiles_clear(
        &self,
        grid: &TileGrid,
        (from, eye): (Spot, [f32; 3]),
        (to, target): (Spot, [f32; 3]),
        sight: &SightParams,
    ) -> bool {
        let line = (from, to, sight.eye_height.to_bits(), sight.target_height.to_bits(), sight.invisible_blocks);
        if let Some(clear) = self.0.read().unwrap_or_else(PoisonError::into_inner).get(&line) {
            return *clear;
        }
        let clear = first_hit_on_segment(grid, eye, target, sight.invisible_blocks).is_none();
        let mut kept = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MOST_KEPT_SIGHTS {
            kept.clear();
        }
        kept.insert(line, clear);
        clear
    }
}

/// Whether the line from `eye` (over `from`) reaches the target point over `to`: no tile face
/// between (when tiles block; asked of `memo` when given) and no enemy box it passes (it may
/// end on one).
fn line_clear(
    grid: &TileGrid,
    (from, eye): (Spot, [f32; 3]),
    to: Spot,
    sight: &SightParams,
    enemy_boxes: &[(Spot, [f32; 3], [f32; 3])],
    memo: Option<&SightMemo>,
) -> bool {
    tiles_let_see(grid, (from, eye), to, sight, memo)
        .is_some_and(|target| units_let_see(eye, (to, target), enemy_boxes))
}

/// The target point over `to` when no tile stands between it and `eye` over `from` (or tiles
/// do not block); None when one does or `to` is not a standing spot.
fn tiles_let_see(
    grid: &TileGrid,
    (from, eye): (Spot, [f32; 3]),
    to: Spot,
    sight: &SightParams,
    memo: Option<&SightMemo>,
) -> Option<[f32; 3]> {
    let target = eye_point(grid, to, sight.target_height)?;
    let tiles_clear = || match memo {
        Some(memo) => memo.tiles_clear(grid, (from, eye), (to, target), sight),
        None => first_hit_on_segment(grid, eye, target, sight.invisible_blocks).is_none(),
    };
    (!sight.tiles_block || tiles_clear()).then_some(target)
}

/// Whether the line from `eye` to `target` (over `to`) passes no enemy box but `to`'s own.
fn units_let_see(eye: [f32; 3], (to, target): (Spot, [f32; 3]), enemy_boxes: &[(Spot, [f32; 3], [f32; 3])]) -> bool {
    !enemy_boxes.iter().any(|(spot, low, high)| *spot != to && segment_meets_box(eye, target, *low, *high))
}

/// Whether a line from the eye over `start` reaches `to` in Line space (§b.7): tiles block
/// it when `sight.tiles_block`, enemies unless `params.can_cross_enemies` (a line may end on
/// one). `start` itself is always reached; a spot that is not a standing spot never is.
pub fn line_reaches(
    grid: &TileGrid,
    start: Spot,
    to: Spot,
    params: &ReachParams,
    sight: &SightParams,
    occupants: &SpotMap<Occupant>,
) -> bool {
    if to == start {
        return spot_tile(grid, start).is_some();
    }
    let Some(eye) = eye_point(grid, start, sight.eye_height) else { return false };
    line_clear(grid, (start, eye), to, sight, &enemy_boxes(grid, start, params, occupants), None)
}

/// The Line space of a cylinder region (line of sight, §b.7): the candidates seen from the
/// start's eye (see [`line_of_sight`]); tiles block unless `sight.tiles_block` is off,
/// enemies in the way unless `can_cross_enemies` (a line may end on an enemy, not pass it).
pub fn reach_line(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    sight: &SightParams,
    occupants: &SpotMap<Occupant>,
) -> Result<Reach, MapError> {
    reach_line_in(grid, start, params, sight, occupants, None)
}

/// [`reach_line`] asking `memo` (kept for `grid`'s geometry) which lines tiles block.
pub fn reach_line_kept(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    sight: &SightParams,
    occupants: &SpotMap<Occupant>,
    memo: &SightMemo,
) -> Result<Reach, MapError> {
    reach_line_in(grid, start, params, sight, occupants, Some(memo))
}

fn reach_line_in(
    grid: &TileGrid,
    start: Spot,
    params: &ReachParams,
    sight: &SightParams,
    occupants: &SpotMap<Occupant>,
    memo: Option<&SightMemo>,
) -> Result<Reach, MapError> {
    let start_tile = start_of(grid, start)?;
    let eye = eye_point(grid, start, sight.eye_height).ok_or(MapError::NotASpot {
        cell_x: start.cell_x,
        cell_y: start.cell_y,
        level: start.level,
    })?;
    let boxes = enemy_boxes(grid, start, params, occupants);
    if occupants_matter(params) {
        return Ok(line_searched(grid, (start_tile, eye), params, sight, occupants, &boxes, memo));
    }
    // What tiles hide is worked out once per start; only the units are looked at now.
    let question = (
        PathQuestion::new(start, params, &SpotMap::default()),
        sight.eye_height.to_bits(),
        sight.target_height.to_bits(),
        sight.invisible_blocks,
        sight.tiles_block,
    );
    let seen = grid
        .spot_table()
        .kept_line(question, || Ok::<_, MapError>(line_candidates(grid, (start_tile, eye), params, sight, memo)))?;
    let nodes = seen
        .nodes
        .iter()
        .filter(|(node, target)| {
            node.spot == start || target.is_some_and(|target| units_let_see(eye, (node.spot, target), &boxes))
        })
        .map(|(node, _)| *node)
        .collect();
    let reach = Reach { start, nodes };
    debug_assert_eq!(
        reach,
        line_searched(grid, (start_tile, eye), params, sight, occupants, &boxes, memo),
        "a kept Line region"
    );
    Ok(reach)
}

/// [`reach_line_in`] searched afresh: each candidate's line traced now.
fn line_searched(
    grid: &TileGrid,
    (start_tile, eye): (SpotInfo, [f32; 3]),
    params: &ReachParams,
    sight: &SightParams,
    occupants: &SpotMap<Occupant>,
    boxes: &[(Spot, [f32; 3], [f32; 3])],
    memo: Option<&SightMemo>,
) -> Reach {
    let start = start_tile.spot;
    let candidates = cylinder_candidates(grid, start_tile, params, occupants);
    let mut nodes = Vec::with_capacity(candidates.len());
    for (mut node, found) in candidates {
        if node.spot == start || line_clear(grid, (start, eye), node.spot, sight, boxes, memo) {
            settle_at(start, params, occupants.get(&node.spot).copied(), Some(&found), &mut node);
            nodes.push(node);
        }
    }
    // One node per spot: the order is the spots'.
    nodes.sort_unstable_by_key(|node| node.spot);
    Reach { start, nodes }
}

/// A Line-space region's candidates before anyone stands in the way (see
/// [`SpotTable::kept_line`]), in spot order: each settled, with the target point over it when
/// no tile hides it from the start's eye.
#[derive(Debug)]
pub(crate) struct LineCandidates {
    nodes: Vec<(ReachNode, Option<[f32; 3]>)>,
}

impl LineCandidates {
    /// How many candidates there are.
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }
}

/// The [`LineCandidates`] of a region nobody standing changes (`occupants_matter` is false).
fn line_candidates(
    grid: &TileGrid,
    (start, eye): (SpotInfo, [f32; 3]),
    params: &ReachParams,
    sight: &SightParams,
    memo: Option<&SightMemo>,
) -> LineCandidates {
    let nobody = SpotMap::default();
    let mut nodes: Vec<(ReachNode, Option<[f32; 3]>)> = cylinder_candidates(grid, start, params, &nobody)
        .into_iter()
        .map(|(mut node, found)| {
            settle_at(start.spot, params, None, Some(&found), &mut node);
            let target = tiles_let_see(grid, (start.spot, eye), node.spot, sight, memo);
            (node, target)
        })
        .collect();
    nodes.sort_unstable_by_key(|(node, _)| node.spot);
    LineCandidates { nodes }
}

fn eye_point(grid: &TileGrid, spot: Spot, height: f32) -> Option<[f32; 3]> {
    let [x, y, z] = spot_point(grid, spot)?;
    Some([x, y, z + height])
}

/// The first tile face between the looker's eye on `from` and the target point on `to`
/// (grid space, through the real tile shapes: ramps and insets included); None when the
/// view is clear or either is not a standing spot.
pub fn sight_blocker(grid: &TileGrid, from: Spot, to: Spot, sight: &SightParams) -> Option<PickHit> {
    let eye = eye_point(grid, from, sight.eye_height)?;
    let target = eye_point(grid, to, sight.target_height)?;
    if !sight.tiles_block {
        return None;
    }
    first_hit_on_segment(grid, eye, target, sight.invisible_blocks)
}

/// Whether a unit on `from` sees a unit on `to`; false when either is not a standing spot.
pub fn line_of_sight(grid: &TileGrid, from: Spot, to: Spot, sight: &SightParams) -> bool {
    spot_tile(grid, from).is_some() && spot_tile(grid, to).is_some() && sight_blocker(grid, from, to, sight).is_none()
}

#[cfg(test)]
mod kept_tests {
    use super::*;
    use crate::model::Tile;

    /// A 9×7 map of columns 1 to 4 levels high, one in five with a pillar two levels higher.
    fn hills() -> TileGrid {
        let mut grid = TileGrid::new(9, 7).expect("a small map");
        for y in 0..7_u16 {
            for x in 0..9_u16 {
                let height = 1 + (x * 7 + y * 3) % 4;
                let mut tiles: Vec<Tile> = (0..height).map(Tile::cube).collect();
                if (x + 2 * y) % 5 == 0 {
                    tiles.push(Tile::cube(height + 2));
                }
                grid.set_column(x, y, tiles).expect("inside the map");
            }
        }
        grid
    }

    /// Occupants drawn from `seed`: up to six of the map's spots, allies and enemies.
    fn occupants(grid: &TileGrid, seed: u64) -> SpotMap<Occupant> {
        let mut state = seed | 1;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let spots: Vec<Spot> = (0..9).flat_map(|x| (0..7).flat_map(move |y| standing_spots(grid, x, y))).collect();
        let count = next(7);
        (0..count)
            .filter_map(|_| {
                let spot = *spots.get(next(spots.len() as u64) as usize)?;
                let kind = [Occupant::Ally, Occupant::Enemy, Occupant::MountAlly, Occupant::MountEnemy]
                    .get(next(4) as usize)
                    .copied()?;
                Some((spot, kind))
            })
            .collect()
    }

    /// Region settings that halt at anyone (kept) and that do not (worked out every time).
    fn settings() -> Vec<ReachParams> {
        let open = ReachParams {
            can_halt_at_enemies: true,
            can_halt_at_allies: true,
            radius_min: 1,
            ..ReachParams::movement(4, 2.0, 3.0)
        };
        vec![
            open,
            ReachParams { can_cross_enemies: true, z_up_min: 1.0, ..open },
            ReachParams { can_cross_walls: false, ..open },
            ReachParams { can_halt_at_allies: false, ..open },
            ReachParams::movement(3, 1.0, 1.0),
        ]
    }

    /// Kept Pick and Line regions answer as fresh ones whoever stands where: the same
    /// questions are asked again and again with other occupants, so most answers come from
    /// what was kept for other occupants.
    #[test]
    fn kept_regions_answer_as_fresh_ones_whoever_stands_where() {
        let grid = hills();
        let sight = SightParams::default();
        let starts: Vec<Spot> = [(0, 0), (4, 3), (8, 6), (2, 5)]
            .into_iter()
            .filter_map(|(x, y)| standing_spots(&grid, x, y).last().copied())
            .collect();
        assert_eq!(starts.len(), 4);
        for seed in 0..60_u64 {
            let occupants = occupants(&grid, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            for params in settings() {
                for start in &starts {
                    let kept = reach_pick_kept(&grid, *start, &params, &occupants).expect("a standing spot");
                    let fresh = reach_pick(&grid, *start, &params, &occupants).expect("a standing spot");
                    assert_eq!(*kept, fresh, "Pick from {start:?} with {params:?} past {occupants:?}");
                    let seen = reach_line(&grid, *start, &params, &sight, &occupants).expect("a standing spot");
                    let table = grid.spot_table();
                    let start_tile = table.index(*start).and_then(|at| table.get(at)).copied().expect("a spot");
                    let eye = eye_point(&grid, *start, sight.eye_height).expect("a spot");
                    let boxes = enemy_boxes(&grid, *start, &params, &occupants);
                    let traced = line_searched(&grid, (start_tile, eye), &params, &sight, &occupants, &boxes, None);
                    assert_eq!(seen, traced, "Line from {start:?} with {params:?} past {occupants:?}");
                }
            }
        }
    }

    /// A path search over the grid's kept edges finds what one that works out each spot's
    /// steps and leaps as it goes finds, for bodies that leap, climb walls or not, need room,
    /// ride mounts and measure the rise from the start.
    #[test]
    fn kept_edges_search_as_the_grid_itself() {
        let grid = hills();
        let table = grid.spot_table();
        let open =
            ReachParams { can_halt_at_enemies: true, can_halt_at_allies: true, ..ReachParams::movement(5, 2.0, 3.0) };
        let bodies = [
            open,
            ReachParams { leap_cells: 2, can_cross_walls: false, ..open },
            ReachParams { leap_cells: 1, clearance: 3, can_cross_walls: false, ..open },
            ReachParams { leap_cells: 3, can_cross_walls: true, mount_step_bonus: true, ..open },
            ReachParams { use_absolute_dz: true, z_up_max: 1.0, can_cross_enemies: true, ..open },
            ReachParams { no_enter: 1, leap_cells: 2, ..ReachParams::movement(2, 1.0, 1.0) },
        ];
        let mut searched = 0_usize;
        for seed in 0..20_u64 {
            let occupants = occupants(&grid, seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            for params in bodies {
                let edges = table.kept_edges(&grid, EdgeQuestion::of(&params));
                assert!(edges.is_some(), "a small map keeps its edges");
                for x in (0..9).step_by(2) {
                    for start in standing_spots(&grid, x, (x * 3) % 7) {
                        let kept = search_path(&grid, table, start, &params, &occupants, edges.clone());
                        let own = search_path(&grid, table, start, &params, &occupants, None);
                        assert_eq!(kept, own, "from {start:?} with {params:?} past {occupants:?}");
                        searched += kept.map_or(0, |reach| reach.len());
                    }
                }
            }
        }
        assert!(searched > 1000, "the searches reach spots: {searched}");
    }
}
