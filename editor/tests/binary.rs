//! The real `actforge` binary: commands run headless, with the documented exit codes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use std::path::Path;
use std::process::Command;

fn actforge(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_actforge"))
        .args(args)
        // No display: commands must never try to open a window.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap()
}

fn demo() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../content/lighthouse").display().to_string()
}

#[test]
fn check_succeeds_on_the_demo_without_a_display() {
    let output = actforge(&["check", &demo()]);
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(String::from_utf8_lossy(&output.stderr).contains("0 errors"));
}

#[test]
fn check_exits_1_with_located_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("project.ron"), "(schema_version: 1, name: \"x\")").unwrap();
    std::fs::create_dir_all(dir.path().join("cards")).unwrap();
    std::fs::write(dir.path().join("cards").join("a.ron"), "(\n  id: \"a\",\n  decay_to: Some(\"b\"),\n)").unwrap();
    let output = actforge(&["check", &dir.path().display().to_string()]);
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("a.ron:3:18: error: card `a`, decay_to: there is no card `b`"), "{stdout}");
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(actforge(&["check"]).status.code(), Some(2));
    assert_eq!(actforge(&["frobnicate", "x", "y"]).status.code(), Some(2));
    let help = actforge(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("check"));
}

/// A headless build (`--no-default-features`) runs every command but has no window to open.
#[cfg(not(feature = "gui"))]
#[test]
fn a_headless_build_says_it_has_no_editor() {
    let output = actforge(&[&demo()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("built without the editor"), "{stderr}");
    assert_eq!(actforge(&["check", &demo()]).status.code(), Some(0));
}

// Hostile values in every field kind, each case in child processes (issue 27).
#[path = "binary/hostile.rs"]
mod hostile;
