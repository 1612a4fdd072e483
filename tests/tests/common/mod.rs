//! Helpers shared by the end-to-end test files that run the CLI in-process.
#![allow(dead_code)] // each test file uses its own subset

use std::path::Path;

use actforge_cli::{Exit, run_args};

/// Runs `actforge ARGS…` in-process; returns (outcome, stdout, stderr).
pub fn actforge(args: &[&str]) -> (Exit, String, String) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let command_line = std::iter::once("actforge").chain(args.iter().copied());
    let outcome = run_args(command_line, &mut out, &mut err).unwrap().expect("a command, not the editor");
    (outcome, String::from_utf8(out).unwrap(), String::from_utf8(err).unwrap())
}

/// A path as a command-line argument.
pub fn path(path: &Path) -> &str {
    path.to_str().unwrap()
}
