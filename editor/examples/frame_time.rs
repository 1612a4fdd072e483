//! How long one editor frame (UI build + tessellation) takes with the 10,000-item generated
//! project open, headless: `cargo run --release -p actforge-editor --example frame_time`.
//!
//! A measurement to report, not a test: timings depend on the machine.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)] // a measuring tool: a failure is a message

use std::time::Instant;

use actforge_editor::app::ActforgeApp;
use actforge_runtime::project::save_new_folder;

fn main() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let project = actforge_tests::synthetic_project(10_000, 1);
    save_new_folder(&project, dir.path()).expect("the project saves");
    let mut app = ActforgeApp::new(dir.path().to_owned());
    // An item open in the inspector, as while editing.
    let act = project.acts.ids().nth(10).expect("acts").as_str().to_owned();
    app.select(actforge_editor::document::ItemKey::new(actforge_runtime::Kind::Act, act));
    let ctx = egui::Context::default();
    ActforgeApp::setup(&ctx);
    let input = || egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 800.0))),
        ..egui::RawInput::default()
    };
    // Warm up: fonts, layout caches, the dock's first layout.
    for _ in 0..5 {
        let output = ctx.run_ui(input(), |ui| app.ui(ui));
        let _ = ctx.tessellate(output.shapes, output.pixels_per_point);
    }
    let frames = 100;
    let start = Instant::now();
    for _ in 0..frames {
        let output = ctx.run_ui(input(), |ui| app.ui(ui));
        let _ = ctx.tessellate(output.shapes, output.pixels_per_point);
    }
    let per_frame = start.elapsed().as_secs_f64() * 1000.0 / f64::from(frames);
    println!("{} items: {per_frame:.2} ms per frame (UI build + tessellation, 1280×800)", project.item_count());
}
