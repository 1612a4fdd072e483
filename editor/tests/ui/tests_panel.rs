//! egui_kittest flows of the Tests panel: the project's playtests run from the editor.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)] // test code: a panic is a failed test

use actforge_editor::app::{ActforgeApp, default_project_path};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

#[test]
fn the_tests_panel_runs_the_project_s_playtests_and_opens_a_failing_line() {
    let dir = tempfile::tempdir().unwrap();
    actforge_tests::copy_dir(&default_project_path(), dir.path()).unwrap();
    std::fs::write(
        dir.path().join("tests").join("wrong_count.play"),
        "expect status lamp_room idle\nexpect table.card.ember == 3\n",
    )
    .unwrap();
    let mut harness = Harness::builder()
        .with_size([1280.0, 800.0])
        .build_ui_state(|ui, app: &mut ActforgeApp| app.ui(ui), ActforgeApp::new(dir.path().to_owned()));
    ActforgeApp::setup(&harness.ctx);
    harness.run_steps(2);
    // View → Run tests (F7) shows the panel and runs them.
    harness.get_by_label("View").click();
    harness.run_steps(2);
    harness.get_by_label_contains("Run tests").click();
    harness.run_steps(2);
    harness.get_by_label_contains("3 test(s) in");
    // The run is on a worker thread: give it time, as a designer watching the bar would.
    for _ in 0..200 {
        harness.run_steps(1);
        if harness.query_by_label_contains(" passed, ").is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    harness.get_by_label("2 passed, 1 failed");
    harness.get_by_label_contains("lighthouse_lamp · 7 expectations held");
    // The failure opens at once: its script with the failing line marked and why.
    harness.get_by_label_contains("2  expect table.card.ember == 3");
    harness.get_by_label_contains("↳ `table.card.ember == 3` does not hold; table.card.ember = 0");
    // Fixed on disk, a second run passes.
    std::fs::write(dir.path().join("tests").join("wrong_count.play"), "expect table.card.ember == 0\n").unwrap();
    harness.get_by_label_contains("Run all tests").click();
    for _ in 0..200 {
        harness.run_steps(1);
        if harness.query_by_label("3 passed, 0 failed").is_some() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("the second run did not pass");
}
