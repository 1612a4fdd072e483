//! Issue 28.12: random play of every bundled board pack always ends — from the start and from
//! positions filled at random (so a Thief into the last free cell, or a roll with no free cell,
//! comes up often) — and never leaves a game that neither ended nor offers a move.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // a test

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::OnceLock;

use actforge_runtime::engine::Session;
use actforge_runtime::engine::policy::{Move, RandomPolicy};
use actforge_runtime::model::Project;
use actforge_runtime::project::load_folder;

/// Moves after which a game counts as not ending (a Knucklebones game takes a few dozen).
const MAX_MOVES: usize = 5_000;

/// Every pack under content/ whose entry boards have a die.
fn board_packs() -> &'static [(String, Project)] {
    static PACKS: OnceLock<Vec<(String, Project)>> = OnceLock::new();
    PACKS.get_or_init(|| {
        let content = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../content");
        let mut packs: Vec<(String, Project)> = std::fs::read_dir(&content)
            .unwrap()
            .filter_map(|entry| {
                let path = entry.ok()?.path();
                let project = load_folder(&path).ok()?.project;
                let session = Session::new(project.clone(), 1).ok()?;
                session.board().is_some().then(|| (path.display().to_string(), project))
            })
            .collect();
        packs.sort_by(|a, b| a.0.cmp(&b.0));
        assert!(!packs.is_empty(), "no board pack under {}", content.display());
        packs
    })
}

/// Plays `session` at random; `Err` when a move is left with the game neither over nor moving.
fn play_out(session: &mut Session, seed: u64) -> Result<usize, String> {
    let mut random = RandomPolicy::new(seed);
    for moves in 0..MAX_MOVES {
        let over = session.board().is_some_and(|board| board.game.outcome.is_some());
        if over {
            return Ok(moves);
        }
        if session.choices().is_empty() {
            return Err(format!("no move and no end after {moves} moves"));
        }
        if let Move::Stuck = random.step(session) {
            return Err(format!("stuck after {moves} moves"));
        }
    }
    Err(format!("not over after {MAX_MOVES} moves"))
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
    #[test]
    fn random_play_of_every_board_pack_ends(seed in 0u64..u64::MAX, fill in proptest::collection::vec(0u8..=6, 0..20)) {
        for (name, project) in board_packs() {
            let mut session = Session::new(project.clone(), seed).unwrap();
            // A random position: dice dropped column by column from row 1 (compact boards hold
            // no gaps), a face of 0 leaving the rest of that column empty.
            let sides: Vec<(String, u32, u32)> = session
                .board()
                .unwrap()
                .game
                .sides
                .iter()
                .map(|side| (side.board.to_string(), side.columns, side.rows))
                .collect();
            let mut script = String::new();
            let mut values = fill.iter();
            'fill: for (board, columns, rows) in &sides {
                for column in 1..=*columns {
                    for row in 1..=*rows {
                        let Some(&value) = values.next() else { break 'fill };
                        if value == 0 {
                            break;
                        }
                        writeln!(script, "setup cell {board} {column} {row} {value}").unwrap();
                    }
                }
            }
            // A position the set-up refuses (a face the die lacks) is skipped, not a failure.
            if session.run_script(&script).is_err() {
                session = Session::new(project.clone(), seed).unwrap();
            }
            let result = play_out(&mut session, seed);
            proptest::prop_assert!(result.is_ok(), "{name}, seed {seed}, fill {fill:?}: {}", result.unwrap_err());
        }
    }
}
