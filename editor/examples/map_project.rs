//! Writes a project folder holding one generated tile map (about 30% full, see
//! `actforge_tests::terrain_map`), for measuring the map view in the editor window:
//! `cargo run -p actforge-editor --example map_project -- OUT_FOLDER SIDE LEVELS`.
//! Prints the map's id (open it with `ACTFORGE_OPEN_MAP=ID actforge OUT_FOLDER`).
#![allow(clippy::print_stdout)] // a tool: its output is the map id

use std::path::PathBuf;
use std::process::ExitCode;

use actforge_runtime::Project;
use actforge_runtime::project::save_new_folder;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(folder), Some(side), Some(levels)) = (
        args.first().map(PathBuf::from),
        args.get(1).and_then(|side| side.parse::<u16>().ok()),
        args.get(2).and_then(|levels| levels.parse::<u16>().ok()),
    ) else {
        eprintln!("usage: map_project OUT_FOLDER SIDE LEVELS");
        return ExitCode::from(2);
    };
    let map = actforge_tests::terrain_map(side, levels, 7);
    let id = map.id.as_str().to_owned();
    let mut project = Project::default();
    project.tile_maps.insert(map);
    if let Err(error) = save_new_folder(&project, &folder) {
        eprintln!("error: {error}");
        return ExitCode::from(1);
    }
    println!("{id}");
    ExitCode::SUCCESS
}
