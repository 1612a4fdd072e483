//! The line-move walk of knockbacks, shoves and throws (`spec/srpgck.md` §b.8) and ballistic
//! arcs (§b.7 Arc space), on standing spots and through the real tile shapes.

use super::grid::TileGrid;
use super::pick::first_hit_on_segment;
use super::reach::{Occupant, SightParams, Spot, segment_meets_box, spot_point, standing_spots};
use super::spot_sets::SpotMap;

/// A line-move walk's numbers and flags (`spec/srpgck.md` §b.3, line-move part).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LineMoveParams {
    /// Steps to take (`radius_max`).
    pub amount: u16,
    /// Most rise of one step onto a higher surface, in levels; higher is a wall.
    pub z_up_max: f32,
    /// Drop taken without counting: only the part of a fall beyond it counts.
    pub z_down_max: f32,
    /// Walls (and the empty air over a bottomless cell) are passed through, not stopped at.
    pub can_cross_walls: bool,
    /// Other units are passed through instead of stopping the walk.
    pub can_cross_units: bool,
    /// Leaving an edge falls to the ground below.
    pub perform_fall: bool,
    /// Keeps its height over gaps while steps remain (falls at the end).
    pub can_glide: bool,
}

impl Default for LineMoveParams {
    /// SRPGCK's defaults: walls and units stop the walk, falls happen, no gliding.
    fn default() -> Self {
        Self {
            amount: 0,
            z_up_max: 0.0,
            z_down_max: 0.0,
            can_cross_walls: false,
            can_cross_units: false,
            perform_fall: true,
            can_glide: false,
        }
    }
}

/// Why a line-move walk ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum WalkStop {
    /// It took every step.
    Done,
    /// The next cell was outside the map.
    Edge,
    /// The next surface rose more than `z_up_max` (or nothing was under the way).
    Wall,
    /// Another unit stood on the next spot.
    Unit,
}

/// The result of a line-move walk.
#[derive(Clone, Debug, PartialEq)]
pub struct LineMoveWalk {
    /// Every standing spot the walker passed, the start first and the end last.
    pub path: Vec<Spot>,
    /// Where the walker ends (the last safe spot: on ground, inside no wall, on nobody).
    pub end: Spot,
    /// Steps taken, the one refused by a wall, a unit or the edge not counted (a step may
    /// keep the walker in its cell at free angles).
    pub steps: u16,
    /// Steps left when it stopped (`amount − steps`, at least 0).
    pub remaining: u16,
    /// Levels fallen beyond `z_down_max`, summed over the falls.
    pub drop: f32,
    /// Other units met, in the order met (the last one stopped the walk unless crossed).
    pub collided: Vec<Spot>,
    /// Why it ended.
    pub stop: WalkStop,
}

/// Where the walker is after a step.
#[derive(Clone, Copy, Debug)]
struct WalkNode {
    cell: (i32, i32),
    feet: u32,
    /// The standing spot here, when the walker could end here.
    safe: Option<Spot>,
}

/// The standing spot the walker reaches in a column whose tiles cover its feet (or that has a
/// spot at its feet): the top of that stack.
fn surface_at(grid: &TileGrid, cell: (i32, i32), feet: u32) -> Option<Spot> {
    let column = grid.column(cell.0, cell.1);
    let covered = column.iter().any(|tile| u32::from(tile.z) <= feet && tile.top_z() > feet);
    let (x, y) = (u16::try_from(cell.0).ok()?, u16::try_from(cell.1).ok()?);
    let spots = standing_spots(grid, x, y);
    if covered {
        spots.into_iter().find(|spot| u32::from(spot.level) > feet)
    } else {
        spots.into_iter().find(|spot| u32::from(spot.level) == feet)
    }
}

/// The highest standing spot of a column below `feet`.
fn ground_below(grid: &TileGrid, cell: (i32, i32), feet: u32) -> Option<Spot> {
    let (x, y) = (u16::try_from(cell.0).ok()?, u16::try_from(cell.1).ok()?);
    standing_spots(grid, x, y).into_iter().rev().find(|spot| u32::from(spot.level) < feet)
}

/// The line-move walk (`spec/srpgck.md` §b.8) from `start` towards `direction_degrees`
/// (counter-clockwise from +x, already locked by the caller): one step of length 1 per
/// iteration, the offset rounded to a cell each time. A column whose tiles cover the walker's
/// feet is climbed to the top of that stack when it is at most `z_up_max` higher, else it is a
/// wall; over a column with no ground at the feet the walker glides (while steps remain, when
/// it may) or falls to the ground below. Units on the way stop it unless they may be crossed.
/// At the end a walker in the air, in a wall or on another unit backs up to the last safe spot
/// (SRPGCK's `StopBefore`). A direction that is not finite takes no step.
pub fn line_move(
    grid: &TileGrid,
    start: Spot,
    direction_degrees: f64,
    params: &LineMoveParams,
    occupants: &SpotMap<Occupant>,
) -> LineMoveWalk {
    // A direction that is not a number (a broken formula) moves nobody.
    let amount = if direction_degrees.is_finite() { params.amount } else { 0 };
    let params = &LineMoveParams { amount, ..*params };
    let radians = direction_degrees.to_radians();
    let (step_x, step_y) = (radians.cos(), radians.sin());
    let origin = (f64::from(start.cell_x), f64::from(start.cell_y));
    let mut nodes = vec![WalkNode { cell: origin_cell(start), feet: u32::from(start.level), safe: Some(start) }];
    let mut steps: u16 = 0;
    let mut drop = 0.0_f32;
    let mut collided = Vec::new();
    let mut stop = WalkStop::Done;
    let falls = |drop: &mut f32, from: u32, to: u32| {
        let fallen = from.saturating_sub(to) as f32;
        *drop += (fallen - params.z_down_max.max(0.0)).max(0.0);
    };
    while steps < params.amount {
        steps += 1;
        let Some(last) = nodes.last().copied() else { break };
        let along = f64::from(steps);
        let cell = ((origin.0 + along * step_x).round() as i32, (origin.1 + along * step_y).round() as i32);
        if cell == last.cell {
            continue;
        }
        if !grid.contains(cell.0, cell.1) {
            steps -= 1;
            stop = WalkStop::Edge;
            break;
        }
        if let Some(surface) = surface_at(grid, cell, last.feet) {
            let rise = f32::from(surface.level) - last.feet as f32;
            if rise > params.z_up_max {
                if params.can_cross_walls {
                    nodes.push(WalkNode { cell, feet: last.feet, safe: None });
                    continue;
                }
                steps -= 1;
                stop = WalkStop::Wall;
                break;
            }
            if occupants.contains_key(&surface) {
                collided.push(surface);
                if !params.can_cross_units {
                    steps -= 1;
                    stop = WalkStop::Unit;
                    break;
                }
                nodes.push(WalkNode { cell, feet: u32::from(surface.level), safe: None });
                continue;
            }
            nodes.push(WalkNode { cell, feet: u32::from(surface.level), safe: Some(surface) });
            continue;
        }
        let glides = !params.perform_fall || params.can_glide;
        if glides && steps < params.amount {
            nodes.push(WalkNode { cell, feet: last.feet, safe: None });
            continue;
        }
        let Some(ground) = ground_below(grid, cell, last.feet) else {
            if params.can_cross_walls {
                nodes.push(WalkNode { cell, feet: last.feet, safe: None });
                continue;
            }
            steps -= 1;
            stop = WalkStop::Wall;
            break;
        };
        if !params.perform_fall {
            nodes.push(WalkNode { cell, feet: last.feet, safe: None });
            continue;
        }
        if occupants.contains_key(&ground) {
            collided.push(ground);
            if !params.can_cross_units {
                steps -= 1;
                stop = WalkStop::Unit;
                break;
            }
            nodes.push(WalkNode { cell, feet: u32::from(ground.level), safe: None });
            continue;
        }
        falls(&mut drop, last.feet, u32::from(ground.level));
        nodes.push(WalkNode { cell, feet: u32::from(ground.level), safe: Some(ground) });
    }
    // A glider still in the air at the end comes down.
    if params.can_glide
        && let Some(last) = nodes.last().copied()
        && last.safe.is_none()
        && surface_at(grid, last.cell, last.feet).is_none()
        && let Some(ground) = ground_below(grid, last.cell, last.feet)
        && !occupants.contains_key(&ground)
    {
        falls(&mut drop, last.feet, u32::from(ground.level));
        nodes.push(WalkNode { cell: last.cell, feet: u32::from(ground.level), safe: Some(ground) });
    }
    // Stuck in the air, in a wall or on a unit: back up to the last safe spot.
    while nodes.len() > 1 && nodes.last().is_some_and(|node| node.safe.is_none()) {
        nodes.pop();
    }
    let path: Vec<Spot> = nodes.iter().filter_map(|node| node.safe).collect();
    let end = path.last().copied().unwrap_or(start);
    LineMoveWalk { path, end, steps, remaining: params.amount.saturating_sub(steps), drop, collided, stop }
}

fn origin_cell(spot: Spot) -> (i32, i32) {
    (i32::from(spot.cell_x), i32::from(spot.cell_y))
}

/// Gravity of the ballistic arcs, in levels per second squared (SRPGCK's 9.8).
const GRAVITY: f64 = 9.8;

/// Time step of the sampled flight (SRPGCK's 0.05 s).
const ARC_DT: f64 = 0.05;

/// Most samples of one flight (a near-vertical lob is cut off here).
const MAX_ARC_SAMPLES: u32 = 4096;

/// The height of a unit's box that blocks a flight (SRPGCK's default character size 1×1×2).
const UNIT_HEIGHT: f32 = 2.0;

/// A ballistic shot that clears everything between.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArcShot {
    /// Launch angle above the horizontal, degrees.
    pub angle_degrees: f64,
    /// Launch speed (`√(g · max_range)`).
    pub speed: f64,
}

/// The ballistic arc from the eye over `from` to the target point over `to` (`spec/srpgck.md`
/// §b.7): launch speed `√(g · max_range)`, the steep angle tried before the flat one, each
/// flight sampled every 0.05 s and every piece tested against the real tile shapes (unless
/// `sight.tiles_block` is off) and the boxes of `blockers` (units that cannot be crossed, 2
/// levels tall). None when neither angle clears (or the target is out of the speed's range,
/// or either spot is not a standing spot).
pub fn arc_shot(
    grid: &TileGrid,
    from: Spot,
    to: Spot,
    max_range: f32,
    sight: &SightParams,
    blockers: &[Spot],
) -> Option<ArcShot> {
    let [fx, fy, fz] = spot_point(grid, from)?;
    let [tx, ty, tz] = spot_point(grid, to)?;
    let launch = [f64::from(fx), f64::from(fy), f64::from(fz + sight.eye_height)];
    let target = [f64::from(tx), f64::from(ty), f64::from(tz + sight.target_height)];
    let speed = (GRAVITY * f64::from(max_range.max(0.0))).sqrt();
    let (dx, dy) = (target[0] - launch[0], target[1] - launch[1]);
    let distance = dx.hypot(dy);
    if distance < 1e-9 {
        return Some(ArcShot { angle_degrees: 90.0, speed });
    }
    let rise = target[2] - launch[2];
    let v2 = speed * speed;
    let discriminant = v2 * v2 - GRAVITY * (GRAVITY * distance * distance + 2.0 * rise * v2);
    if discriminant < 0.0 || speed <= 0.0 {
        return None;
    }
    let boxes: Vec<([f32; 3], [f32; 3])> = blockers
        .iter()
        .filter(|spot| **spot != from && **spot != to)
        .filter_map(|spot| {
            let [_, _, z] = spot_point(grid, *spot)?;
            let (x, y) = (f32::from(spot.cell_x), f32::from(spot.cell_y));
            Some(([x, y, z], [x + 1.0, y + 1.0, z + UNIT_HEIGHT]))
        })
        .collect();
    let root = discriminant.sqrt();
    [(v2 + root).atan2(GRAVITY * distance), (v2 - root).atan2(GRAVITY * distance)].into_iter().find_map(|angle| {
        let clear = flight_clear(grid, launch, target, speed, angle, sight, &boxes);
        clear.then_some(ArcShot { angle_degrees: angle.to_degrees(), speed })
    })
}

/// Whether the flight at `angle` (radians) from `launch` reaches `target` without meeting a
/// tile face or a blocker box.
fn flight_clear(
    grid: &TileGrid,
    launch: [f64; 3],
    target: [f64; 3],
    speed: f64,
    angle: f64,
    sight: &SightParams,
    boxes: &[([f32; 3], [f32; 3])],
) -> bool {
    let (dx, dy) = (target[0] - launch[0], target[1] - launch[1]);
    let distance = dx.hypot(dy);
    let horizontal = speed * angle.cos();
    if horizontal <= 1e-9 {
        return false;
    }
    let duration = distance / horizontal;
    let at = |time: f64| {
        let share = (horizontal * time / distance).min(1.0);
        let height = speed * angle.sin() * time - GRAVITY * time * time / 2.0;
        [(launch[0] + dx * share) as f32, (launch[1] + dy * share) as f32, (launch[2] + height) as f32]
    };
    let end = [target[0] as f32, target[1] as f32, target[2] as f32];
    let mut previous = at(0.0);
    let mut sample = 1;
    loop {
        let time = f64::from(sample) * ARC_DT;
        let landed = time >= duration || sample >= MAX_ARC_SAMPLES;
        let point = if landed { end } else { at(time) };
        if (sight.tiles_block && first_hit_on_segment(grid, previous, point, sight.invisible_blocks).is_some())
            || boxes.iter().any(|(low, high)| segment_meets_box(previous, point, *low, *high))
        {
            return false;
        }
        if landed {
            return true;
        }
        previous = point;
        sample += 1;
    }
}
