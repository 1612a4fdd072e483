//! Shared helpers of the end-to-end tests and benchmarks: where the bundled content and the
//! fixtures are, and a deterministic generator of large synthetic projects.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use actforge_runtime::Project;
use actforge_runtime::model::{
    Act, ActLink, ActModifier, Aspect, Board, Card, Colour, Column, Deck, DeckModifier, DeckOp, EdgeStyle, Effects,
    Era, Expr, Formula, FragmentCount, FragmentRef, Id, MapEdge, MapNode, NodeKind, NodeMap, Region, Requirements,
    Rule, Skill, SkillKind, Slot, Stat, StatModifier, StatOp, StatValue, Synthesis, Test, Tile, TileMap, Token,
    TurnConfig, Unit,
};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A bundled content project by folder name, e.g. `lighthouse`.
pub fn content(name: &str) -> PathBuf {
    repo_root().join("content").join(name)
}

/// One of the tests crate's own fixtures (`tests/fixtures/NAME`), e.g. `cultistlike-small`.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures").join(name)
}

/// A fixture of the shared folder beside the repository (`../shared/fixtures/NAME`), read
/// in place: third-party content is never copied into the repository.
pub fn shared_fixture(name: &str) -> PathBuf {
    repo_root().join("..").join("shared").join("fixtures").join(name)
}

/// Copies a folder and everything in it (tests copy a content pack before they save into it).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

/// The mean time in nanoseconds of a finished criterion benchmark `group/name`, read from
/// criterion's estimates (benches print ratios to their peers and floors from these).
pub fn criterion_mean_ns(group: &str, name: &str) -> Option<f64> {
    let target = match std::env::var("CARGO_TARGET_DIR") {
        Ok(dir) => PathBuf::from(dir),
        // A bench runs from target/<profile>/deps/.
        Err(_) => std::env::current_exe().ok()?.ancestors().nth(3)?.to_path_buf(),
    };
    let estimates = target.join("criterion").join(group).join(name).join("new").join("estimates.json");
    let value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(estimates).ok()?).ok()?;
    value.pointer("/mean/point_estimate")?.as_f64()
}

/// A small deterministic random source (SplitMix64): tests and benches must not depend on
/// a crate's RNG stream staying the same across versions.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { (self.next_u64() % n as u64) as usize }
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// One of `ids`, if any.
    pub fn pick<'a>(&mut self, ids: &'a [String]) -> Option<&'a String> {
        ids.get(self.below(ids.len()))
    }
}

const WORDS: &[&str] = &[
    "ember", "tide", "salt", "lantern", "gull", "storm", "letter", "rope", "anchor", "kelp", "moon", "harbour",
    "cliff", "smoke", "oil", "wick", "net", "bell", "fog", "reef",
];

fn phrase(rng: &mut Rng, words: usize) -> String {
    let mut out = Vec::new();
    for _ in 0..words {
        out.push(WORDS.get(rng.below(WORDS.len())).copied().unwrap_or("word"));
    }
    let text = out.join(" ");
    let mut chars = text.chars();
    chars.next().map(|first| first.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A random id from `list`, typed for the kind that needs it.
fn id_of<K>(rng: &mut Rng, list: &[String]) -> Id<K> {
    Id::new(rng.pick(list).cloned().unwrap_or_default())
}

/// A synthetic project of about `items` items spread over every kind, with valid
/// references, deterministic for a `seed`.
#[allow(clippy::too_many_lines)] // one generator per kind, read top to bottom
pub fn synthetic_project(items: usize, seed: u64) -> Project {
    let mut rng = Rng::new(seed);
    let mut project = Project::new("Synthetic");
    let share = |percent: usize| (items * percent / 100).max(1);
    let ids = |prefix: &str, n: usize| (0..n).map(|i| format!("{prefix}_{i:05}")).collect::<Vec<_>>();
    let aspects = ids("aspect", share(10));
    let cards = ids("card", share(20));
    let decks = ids("deck", share(3));
    let slots = ids("slot", share(5));
    let rules = ids("rule", share(14));
    let acts = ids("act", share(25));
    let tokens = ids("token", share(2));
    let formulas = ids("formula", share(5));
    let stats = ids("stat", share(5));
    let units = ids("unit", share(3));
    let skills = ids("skill", share(3));
    let node_maps = ids("nodemap", share(1));
    let tile_maps = ids("tilemap", share(1));
    let small = |n: usize| (n / 100).max(1);
    let eras = ids("era", small(items));
    let boards = ids("board", small(items));
    let syntheses = ids("synthesis", small(items));
    let turn_configs = ids("turns", small(items));

    let aspect_ref = |rng: &mut Rng| FragmentRef::Aspect(Id::new(rng.pick(&aspects).cloned().unwrap_or_default()));
    let card_ref = |rng: &mut Rng| FragmentRef::Card(Id::new(rng.pick(&cards).cloned().unwrap_or_default()));

    for id in &aspects {
        project.aspects.insert(Aspect {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 1),
            description: phrase(&mut rng, 8),
            colour: Colour::rgb(rng.below(256) as u8, rng.below(256) as u8, rng.below(256) as u8),
            ..Aspect::default()
        });
    }
    for id in &cards {
        let fragments =
            (0..rng.below(4)).map(|_| FragmentCount::new(aspect_ref(&mut rng), 1 + rng.below(5) as i64)).collect();
        project.cards.insert(Card {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            description: phrase(&mut rng, 12),
            colour: Colour::rgb(rng.below(256) as u8, 90, 120),
            fragments,
            lifetime_ticks: Expr::int(if rng.chance(20) { 100 + rng.below(500) as i64 } else { 0 }),
            unique: rng.chance(10),
            ..Card::default()
        });
    }
    for id in &decks {
        project.decks.insert(Deck {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            fragments: (0..3 + rng.below(8)).map(|_| id_of(&mut rng, &cards)).collect(),
            shuffle: rng.chance(50),
            replenish: rng.chance(30),
            ..Deck::default()
        });
    }
    for id in &slots {
        project.slots.insert(Slot {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 1),
            description: phrase(&mut rng, 6),
            required: vec![FragmentCount::new(aspect_ref(&mut rng), 1)],
            grab: rng.chance(10),
            ..Slot::default()
        });
    }
    let test = |rng: &mut Rng| Test {
        fragment1: Some(aspect_ref(rng)),
        constant: Expr::int(1 + rng.below(3) as i64),
        ..Test::default()
    };
    for id in &rules {
        project.rules.insert(Rule {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 3),
            requirements: Requirements { tests: vec![test(&mut rng)], ..Requirements::default() },
            effects: Effects {
                act_modifiers: vec![ActModifier {
                    fragment: Some(card_ref(&mut rng)),
                    level: Expr::int(1),
                    ..ActModifier::default()
                }],
                stat_modifiers: vec![StatModifier {
                    stat: id_of(&mut rng, &stats),
                    op: StatOp::default(),
                    value: Expr::int(1),
                }],
                ..Effects::default()
            },
            text: phrase(&mut rng, 10),
            step: rng.below(5) as i32,
            ..Rule::default()
        });
    }
    for id in &tokens {
        project.tokens.insert(Token {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            description: phrase(&mut rng, 8),
            slot: Some(id_of(&mut rng, &slots)),
            ..Token::default()
        });
    }
    for id in &acts {
        let link =
            |rng: &mut Rng| ActLink { act: id_of(rng, &acts), chance: Expr::int(rng.below(101) as i64), rule: None };
        project.acts.insert(Act {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 3),
            token: Some(id_of(&mut rng, &tokens)),
            initial: rng.chance(20),
            duration_ticks: Expr::int(rng.below(600) as i64),
            requirements: Requirements { tests: vec![test(&mut rng)], ..Requirements::default() },
            fragments: vec![FragmentCount::new(aspect_ref(&mut rng), 1)],
            effects: Effects {
                deck_modifiers: vec![DeckModifier {
                    op: DeckOp::Draw,
                    deck: Some(id_of(&mut rng, &decks)),
                    ..DeckModifier::default()
                }],
                furthermore: vec![id_of(&mut rng, &rules)],
                ..Effects::default()
            },
            next_acts: (0..rng.below(3)).map(|_| link(&mut rng)).collect(),
            alt_acts: (0..rng.below(2)).map(|_| link(&mut rng)).collect(),
            text: phrase(&mut rng, 16),
            end_text: phrase(&mut rng, 12),
            ..Act::default()
        });
    }
    for id in &formulas {
        project.formulas.insert(Formula {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            expr: Expr::new(format!("{} * 2 + clamp({}, 0, 50)", rng.below(9), rng.below(99))),
            ..Formula::default()
        });
    }
    for (order, id) in stats.iter().enumerate() {
        project.stats.insert(Stat {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 1),
            value: if rng.chance(30) {
                StatValue::Computed(Expr::new("2 + 3 * 4"))
            } else {
                StatValue::Stored(Expr::int(10))
            },
            hidden: rng.chance(20),
            order: order as i32,
            ..Stat::default()
        });
    }
    for id in &skills {
        project.skills.insert(Skill {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            kind: if rng.chance(30) { SkillKind::Move } else { SkillKind::Action },
            target_region: Region {
                radius_max: Expr::int(1 + rng.below(5) as i64),
                z_up_max: Expr::int(2),
                ..Region::default()
            },
            ..Skill::default()
        });
    }
    for id in &units {
        let stats =
            [("hp", 20), ("speed", 5), ("ct", 0)].into_iter().map(|(k, v)| (k.to_owned(), Expr::int(v))).collect();
        project.units.insert(Unit {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 1),
            team: if rng.chance(50) { "red".into() } else { "blue".into() },
            stats,
            skills: vec![id_of(&mut rng, &skills)],
            ..Unit::default()
        });
    }
    for id in &node_maps {
        let count = 5 + rng.below(10);
        let nodes: Vec<MapNode> = (0..count)
            .map(|n| MapNode {
                id: Id::new(format!("n{n}")),
                kind: if n == 0 { NodeKind::Home } else { NodeKind::Normal },
                label: phrase(&mut rng, 2),
                x: n as f32 * 100.0,
                y: rng.below(300) as f32,
                ..MapNode::default()
            })
            .collect();
        let edges = (1..count)
            .map(|n| MapEdge {
                from: Id::new(format!("n{}", rng.below(n))),
                to: Id::new(format!("n{n}")),
                style: EdgeStyle::default(),
                unlock: None,
                cost: Expr::int(1),
            })
            .collect();
        project.node_maps.insert(NodeMap {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            start: Some(Id::new("n0")),
            nodes,
            edges,
            ..NodeMap::default()
        });
    }
    for id in &tile_maps {
        let mut columns = Vec::new();
        for y in 0..16u16 {
            for x in 0..16u16 {
                if rng.chance(70) {
                    let height = 1 + rng.below(3) as u16;
                    columns.push(Arc::new(Column { x, y, tiles: (0..height).map(Tile::cube).collect() }));
                }
            }
        }
        project.tile_maps.insert(TileMap {
            id: Id::new(id.as_str()),
            label: phrase(&mut rng, 2),
            width: 16,
            depth: 16,
            columns,
            ..TileMap::default()
        });
    }
    for (n, id) in eras.iter().enumerate() {
        let next = eras.get((n + 1) % eras.len()).map(|next| Id::new(next.as_str()));
        project.eras.insert(Era { id: Id::new(id.as_str()), label: phrase(&mut rng, 1), next, ..Era::default() });
    }
    for id in &boards {
        project.boards.insert(Board { id: Id::new(id.as_str()), label: phrase(&mut rng, 1), ..Board::default() });
    }
    for id in &syntheses {
        project.syntheses.insert(Synthesis {
            id: Id::new(id.as_str()),
            candidates: Some(id_of(&mut rng, &decks)),
            ..Synthesis::default()
        });
    }
    for id in &turn_configs {
        project.turn_configs.insert(TurnConfig {
            id: Id::new(id.as_str()),
            draw_deck: Some(id_of(&mut rng, &decks)),
            rules: (0..3).map(|_| id_of(&mut rng, &rules)).collect(),
            ..TurnConfig::default()
        });
    }
    project
}

/// A `side` × `side` tile map about 30% full of its `levels` levels (the map bench's terrain:
/// stacks of painted cubes under a rolling height field, ramps on 6% of the columns, an
/// overhang on 3%, an invisible tile on 1%), with a 6-entry flat-colour palette `p0` … `p5`.
/// The GPU map bench and `scripts/map-fps.sh` (through the editor's `map_project` example) use it.
pub fn terrain_map(side: u16, levels: u16, seed: u64) -> TileMap {
    use actforge_runtime::model::{Corners, Faces, Paint, PaletteEntry};
    let mut rng = Rng::new(seed);
    let paint = |index: u16| Some(Paint::new(format!("p{index}").as_str(), 0));
    let painted =
        |z: u16, top: u16| Tile { paint: Faces { top: paint(top), ..Faces::splat(paint(4)) }, ..Tile::cube(z) };
    let scale = f32::from(levels) / 16.0;
    let mut columns = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let (fx, fy) = (f32::from(x), f32::from(y));
            let wave = 2.6 * (fx * 0.21).sin() * (fy * 0.17).cos() + 1.4 * ((fx + 2.0 * fy) * 0.07).sin();
            let noise = rng.below(3) as f32 - 1.0;
            let height =
                ((4.3 + wave + noise) * scale).round().clamp(1.0, f32::from(levels.saturating_sub(3).max(1))) as u16;
            let mut tiles: Vec<Tile> = (0..height).map(|z| painted(z, height % 4)).collect();
            match rng.below(100) {
                0..=5 => {
                    tiles.push(Tile { heights: Corners { x0y0: 1, x1y0: 1, x0y1: 2, x1y1: 2 }, ..painted(height, 5) });
                }
                6..=8 => tiles.push(painted(height + 2, 1)),
                9 => tiles.push(Tile { invisible: true, ..Tile::cube(height) }),
                _ => {}
            }
            columns.push(Arc::new(Column { x, y, tiles }));
        }
    }
    let palette = (0..6u8)
        .map(|i| PaletteEntry {
            id: format!("p{i}").as_str().into(),
            label: format!("P{i}"),
            colour: Colour::rgb(40 * i, 200 - 30 * i, 90 + 20 * i),
            ..PaletteEntry::default()
        })
        .collect();
    TileMap {
        id: Id::new(format!("terrain_{side}x{side}x{levels}")),
        label: format!("Terrain {side}×{side}×{levels}"),
        width: side,
        depth: side,
        palette,
        columns,
        ..TileMap::default()
    }
}
