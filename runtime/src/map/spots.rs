//! The standing spots of a whole grid in one flat table, worked out once per grid state: path
//! searches look spots up by number instead of walking tile columns at every step.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use rustc_hash::FxHashMap;

use super::geometry::{Face, TileSolid};
use super::grid::TileGrid;
use super::reach::{EdgeQuestion, Edges, LineCandidates, Occupant, Reach, ReachParams, Spot, tile_point};
use super::spot_sets::SpotMap;

/// What a path search needs to know of one standing spot.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpotInfo {
    /// The spot.
    pub(crate) spot: Spot,
    /// Where a unit on it stands ([`super::reach::spot_point`]).
    pub(crate) point: Option<[f32; 3]>,
    /// Free levels above the feet (`u32::MAX`: open sky).
    pub(crate) free: u32,
    /// The top's height at the middle of each side edge: −x, +x, −y, +y.
    pub(crate) edges: [f32; 4],
    /// Steps a walk spends entering the tile ([`TileGrid::move_cost`]).
    pub(crate) move_cost: u16,
    /// The tile's terrain tag bits ([`TileGrid::tile_tags`]).
    pub(crate) tags: u64,
}

/// Which edge of a spot's top: the numbers of [`SpotInfo::edges`].
const NEG_X: usize = 0;
const POS_X: usize = 1;
const NEG_Y: usize = 2;
const POS_Y: usize = 3;

impl SpotInfo {
    /// The top's height at the middle of an edge (see [`SpotInfo::edges`]; 0 for another face).
    fn edge(&self, side: usize) -> f32 {
        self.edges.get(side).copied().unwrap_or(0.0)
    }
}

/// The rise of a move from `from` to `to` (`spec/srpgck.md` §b.2), as
/// `reach::dz_between` works it out from the tiles: the edges follow the x step when there
/// is one, else the y step; within one cell, the −x edges.
pub(crate) fn edge_dz(from: &SpotInfo, to: &SpotInfo) -> f32 {
    use std::cmp::Ordering;
    let (exit, enter) = match (to.spot.cell_x.cmp(&from.spot.cell_x), to.spot.cell_y.cmp(&from.spot.cell_y)) {
        (Ordering::Greater, _) => (POS_X, NEG_X),
        (Ordering::Less, _) => (NEG_X, POS_X),
        (Ordering::Equal, Ordering::Greater) => (POS_Y, NEG_Y),
        (Ordering::Equal, Ordering::Less) => (NEG_Y, POS_Y),
        (Ordering::Equal, Ordering::Equal) => (NEG_X, NEG_X),
    };
    to.edge(enter) - from.edge(exit)
}

/// Every standing spot of a grid, numbered in spot order (x, then y, then level), so that
/// ordering numbers orders spots.
#[derive(Debug, Default)]
pub(crate) struct SpotTable {
    /// Cells along y (cell (x, y) is number `x * depth + y`).
    depth: u16,
    /// Per cell, the number of its first spot; one more entry at the end.
    first: Vec<u32>,
    /// The spots, bottom first within a cell.
    spots: Vec<SpotInfo>,
    /// Path searches already done on this grid state (see [`SpotTable::kept_path`]).
    paths: Mutex<Vec<(PathQuestion, Arc<Reach>)>>,
    /// Pick-space regions that nobody standing changes, already worked out on this grid state
    /// (see [`SpotTable::kept_pick`]).
    picks: Mutex<KeptRegions<PathQuestion, Reach>>,
    /// Line-space candidates that nobody standing changes, already worked out on this grid
    /// state (see [`SpotTable::kept_line`]).
    lines: Mutex<KeptRegions<LineQuestion, LineCandidates>>,
    /// Every spot's path-search edges per body, worked out on this grid state (see
    /// [`SpotTable::kept_edges`]).
    edges: Mutex<Vec<(EdgeQuestion, Arc<Edges>)>>,
}

/// Answers kept by question, with how many spots they hold in all.
struct KeptRegions<Q, A> {
    answers: FxHashMap<Q, Arc<A>>,
    spots: usize,
}

impl<Q, A> Default for KeptRegions<Q, A> {
    fn default() -> Self {
        Self { answers: FxHashMap::default(), spots: 0 }
    }
}

impl<Q, A> std::fmt::Debug for KeptRegions<Q, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} regions, {} spots", self.answers.len(), self.spots)
    }
}

/// Most spots the occupant-free regions of each kind a [`SpotTable`] keeps may hold in all
/// before it starts over (a guard on memory: tens of MB at most, whatever the map's size).
const MOST_KEPT_REGION_SPOTS: usize = 1 << 20;

/// What a Line-space region depends on besides the grid and who stands where: its search
/// settings and how it sees (eye and target heights as bits; invisible tiles block; tiles block).
pub(crate) type LineQuestion = (PathQuestion, u32, u32, bool, bool);

/// Most path searches a [`SpotTable`] keeps (a battle asks a handful again and again).
const MOST_KEPT_PATHS: usize = 32;
/// Most bodies whose path-search edges a grid state keeps (a battle has a few kinds).
const MOST_KEPT_EDGES: usize = 8;
/// Most spots a grid may have for its path-search edges to be kept: four to eight edges of
/// 12 bytes per spot, so at most a few MB per body (a 256 × 256 field has 65,536 spots).
const MOST_EDGE_SPOTS: usize = 1 << 16;

/// What a path search depends on besides the grid: where it starts, the region's settings
/// (numbers as bits) and who stands where.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PathQuestion {
    start: Spot,
    numbers: [u32; 6],
    flags: u16,
    no_enter: u64,
    occupants: Vec<(Spot, Occupant)>,
}

impl PathQuestion {
    /// The question of a search from `start` with `params` past `occupants`.
    pub(crate) fn new(start: Spot, params: &ReachParams, occupants: &SpotMap<Occupant>) -> Self {
        let ReachParams {
            radius_min,
            radius_max,
            z_up_min,
            z_up_max,
            z_down_min,
            z_down_max,
            use_absolute_dz,
            can_cross_walls,
            can_cross_enemies,
            can_halt_at_enemies,
            can_halt_at_allies,
            clearance,
            leap_cells,
            mount_step_bonus,
            no_enter,
        } = *params;
        let bits = u16::from(use_absolute_dz)
            | u16::from(can_cross_walls) << 1
            | u16::from(can_cross_enemies) << 2
            | u16::from(can_halt_at_enemies) << 3
            | u16::from(can_halt_at_allies) << 4
            | u16::from(mount_step_bonus) << 5;
        Self {
            start,
            numbers: [
                u32::from(radius_min) << 16 | u32::from(radius_max),
                z_up_min.to_bits(),
                z_up_max.to_bits(),
                z_down_min.to_bits(),
                z_down_max.to_bits(),
                u32::from(clearance) << 16 | u32::from(leap_cells),
            ],
            flags: bits,
            no_enter,
            occupants: occupants.iter().map(|(spot, occupant)| (*spot, *occupant)).collect(),
        }
    }
}

impl SpotTable {
    /// The table of `grid` as it is now.
    fn build(grid: &TileGrid) -> Self {
        let (width, depth) = (grid.width(), grid.depth());
        let mut first = Vec::with_capacity(usize::from(width) * usize::from(depth) + 1);
        let mut spots = Vec::new();
        for cell_x in 0..width {
            for cell_y in 0..depth {
                // A map holds at most MAX_MAP_SIDE² cells of at most 256 levels: it fits u32.
                first.push(spots.len() as u32);
                let column = grid.column(i32::from(cell_x), i32::from(cell_y));
                for (at, tile) in column.iter().enumerate() {
                    let top = tile.top_z();
                    let free = column.get(at + 1).map_or(u32::MAX, |next| u32::from(next.z).saturating_sub(top));
                    if free < 1 {
                        continue;
                    }
                    let edge = |face| TileSolid::tile_edge_top_height(tile, face);
                    // `sanitize_tile` keeps every top within MAX_Z_LEVELS, so it fits u16.
                    let spot = Spot::new(cell_x, cell_y, top as u16);
                    spots.push(SpotInfo {
                        spot,
                        point: tile_point(spot, tile),
                        free,
                        edges: [edge(Face::NegX), edge(Face::PosX), edge(Face::NegY), edge(Face::PosY)],
                        move_cost: grid.move_cost(tile),
                        tags: grid.tile_tags(tile),
                    });
                }
            }
        }
        first.push(spots.len() as u32);
        Self {
            depth,
            first,
            spots,
            paths: Mutex::default(),
            picks: Mutex::default(),
            lines: Mutex::default(),
            edges: Mutex::default(),
        }
    }

    /// The search `question` asks for, done now by `search` unless it was done already on
    /// this grid state: a path search depends only on the grid and the question, so a kept
    /// answer is the very one a new search would give.
    pub(crate) fn kept_path<E>(
        &self,
        question: PathQuestion,
        search: impl FnOnce() -> Result<Reach, E>,
    ) -> Result<Arc<Reach>, E> {
        kept_latest(&self.paths, MOST_KEPT_PATHS, question, search)
    }

    /// The Pick-space region `question` asks for (one nobody standing changes), worked out
    /// now by `search` unless it was already on this grid state.
    pub(crate) fn kept_pick<E>(
        &self,
        question: PathQuestion,
        search: impl FnOnce() -> Result<Reach, E>,
    ) -> Result<Arc<Reach>, E> {
        kept_in(&self.picks, question, || search().map(Arc::new), Reach::len)
    }

    /// The Line-space candidates `question` asks for, worked out now by `search` unless they
    /// were already on this grid state.
    pub(crate) fn kept_line<E>(
        &self,
        question: LineQuestion,
        search: impl FnOnce() -> Result<LineCandidates, E>,
    ) -> Result<Arc<LineCandidates>, E> {
        kept_in(&self.lines, question, || search().map(Arc::new), LineCandidates::len)
    }

    /// The path-search edges of `grid` (this table's grid) for `question`, worked out now
    /// unless they were on this grid state; none on a map too large to keep them for (its
    /// searches find their own).
    pub(crate) fn kept_edges(&self, grid: &TileGrid, question: EdgeQuestion) -> Option<Arc<Edges>> {
        if self.spots.len() > MOST_EDGE_SPOTS {
            return None;
        }
        let build = || Ok::<_, Infallible>(Edges::build(grid, self, question));
        kept_latest(&self.edges, MOST_KEPT_EDGES, question, build).ok()
    }

    /// How many spots the grid has.
    pub(crate) fn len(&self) -> usize {
        self.spots.len()
    }

    /// Spot number `at`.
    pub(crate) fn get(&self, at: u32) -> Option<&SpotInfo> {
        self.spots.get(at as usize)
    }

    /// The numbers of the spots of cell (`cell_x`, `cell_y`), bottom first (none outside the map).
    pub(crate) fn cell(&self, cell_x: i32, cell_y: i32) -> std::ops::Range<u32> {
        let (Ok(x), Ok(y)) = (u16::try_from(cell_x), u16::try_from(cell_y)) else { return 0..0 };
        if y >= self.depth {
            return 0..0;
        }
        let cell = usize::from(x) * usize::from(self.depth) + usize::from(y);
        match (self.first.get(cell), self.first.get(cell + 1)) {
            (Some(from), Some(to)) => *from..*to,
            _ => 0..0,
        }
    }

    /// The number of `spot`; None when it is not a standing spot.
    pub(crate) fn index(&self, spot: Spot) -> Option<u32> {
        self.cell(i32::from(spot.cell_x), i32::from(spot.cell_y))
            .find(|at| self.spots.get(*at as usize).is_some_and(|info| info.spot.level == spot.level))
    }
}

/// The answer `kept` holds for `question`, or the one `work` gives now, then kept in place of
/// the oldest when `most` are kept (errors are not kept). The lock is not held while `work`
/// runs.
fn kept_latest<Q: PartialEq, A, E>(
    kept: &Mutex<Vec<(Q, Arc<A>)>>,
    most: usize,
    question: Q,
    work: impl FnOnce() -> Result<A, E>,
) -> Result<Arc<A>, E> {
    {
        let kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, answer)) = kept.iter().find(|(known, _)| *known == question) {
            return Ok(Arc::clone(answer));
        }
    }
    let answer = Arc::new(work()?);
    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
    if kept.len() >= most {
        kept.remove(0);
    }
    kept.push((question, Arc::clone(&answer)));
    Ok(answer)
}

/// The answer `kept` holds for `question`, or the one `work` gives now, then kept (errors are
/// not kept: they are cheap and rare); `spots` counts an answer's spots.
fn kept_in<Q: std::hash::Hash + Eq, A, E>(
    kept: &Mutex<KeptRegions<Q, A>>,
    question: Q,
    work: impl FnOnce() -> Result<Arc<A>, E>,
    spots: impl Fn(&A) -> usize,
) -> Result<Arc<A>, E> {
    if let Some(answer) = kept.lock().unwrap_or_else(PoisonError::into_inner).answers.get(&question) {
        return Ok(Arc::clone(answer));
    }
    let answer = work()?;
    let mut kept = kept.lock().unwrap_or_else(PoisonError::into_inner);
    let size = spots(&answer);
    if kept.spots.saturating_add(size) > MOST_KEPT_REGION_SPOTS {
        *kept = KeptRegions::default();
    }
    if kept.answers.insert(question, Arc::clone(&answer)).is_none() {
        kept.spots = kept.spots.saturating_add(size);
    }
    Ok(answer)
}

/// A grid's spot table, built the first time a search asks for it and dropped whenever the
/// grid changes. Derived data: two grids compare equal whatever their caches hold.
#[derive(Clone, Default)]
pub(crate) struct SpotCache(OnceLock<Arc<SpotTable>>);

impl SpotCache {
    /// The table of `grid` (which owns this cache).
    pub(crate) fn get(&self, grid: &TileGrid) -> &SpotTable {
        self.0.get_or_init(|| Arc::new(SpotTable::build(grid)))
    }

    /// Forgets the table: the grid changed.
    pub(crate) fn clear(&mut self) {
        self.0 = OnceLock::new();
    }
}

impl PartialEq for SpotCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for SpotCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SpotCache")
    }
}
