//! The `actforge` binary: with a command it runs headless; without one it opens the editor
//! (when built with the default `gui` feature).

use std::process::ExitCode;

use actforge_cli::{Cli, run};
use clap::Parser;

/// mimalloc: compiling formulas and playing content allocate many small blocks, and it is
/// markedly faster at that than the system allocator (the benches use it too).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(command) = cli.command {
        let mut out = std::io::stdout().lock();
        let mut err = std::io::stderr().lock();
        return match run(command, &mut out, &mut err) {
            Ok(outcome) => ExitCode::from(outcome.code()),
            // stdout/stderr closed (e.g. piped into `head`): nothing left to report to.
            Err(_closed) => ExitCode::from(1),
        };
    }
    gui::open(cli.project)
}

#[cfg(feature = "gui")]
mod gui {
    use std::path::PathBuf;
    use std::process::ExitCode;

    use actforge_editor::app::{ActforgeApp, default_project_path};

    /// Opens the editor window on `project` (default: the bundled demo).
    pub fn open(project: Option<PathBuf>) -> ExitCode {
        let path = project.unwrap_or_else(default_project_path);
        match open_editor(path) {
            Ok(()) => ExitCode::SUCCESS,
            Err(error) => {
                eprintln!("error: cannot open the editor window: {error}");
                eprintln!("(the editor needs an X11 or Wayland display; the commands, e.g. `actforge check`, do not)");
                ExitCode::from(1)
            }
        }
    }

    fn open_editor(path: PathBuf) -> eframe::Result {
        let mut viewport = egui::ViewportBuilder::default()
            .with_title("Actforge")
            .with_app_id("actforge")
            .with_inner_size([1280.0, 800.0])
            .with_min_inner_size([800.0, 500.0]);
        // The icon is embedded, so it always decodes; a failure would only cost the icon.
        if let Ok(icon) = eframe::icon_data::from_png_bytes(include_bytes!("../../icons/actforge.png")) {
            viewport = viewport.with_icon(icon);
        }
        // The GPU map view draws with a depth buffer instead of sorting faces (without one
        // the map view falls back to the CPU).
        let options = eframe::NativeOptions { viewport, depth_buffer: 24, ..Default::default() };
        eframe::run_native(
            "Actforge",
            options,
            Box::new(move |creation| {
                ActforgeApp::setup(&creation.egui_ctx);
                actforge_editor::views::map::gpu::install(&creation.egui_ctx, creation.gl.as_deref());
                let mut app = ActforgeApp::with_storage(path, creation.storage);
                // A quick replay shows in the same frame; a slow one leaves the window responsive.
                app.set_preview_wait(Some(std::time::Duration::from_millis(30)));
                // For scripts/cpu-idle.sh: the preview plays at 1× from the first frame, as F5 would.
                if std::env::var_os("ACTFORGE_PREVIEW_AUTOPLAY").is_some_and(|value| value == "1") {
                    app.play_preview_when_ready();
                }
                // For scripts/map-fps.sh: the Tile map tab opens on this map.
                if let Ok(map) = std::env::var("ACTFORGE_OPEN_MAP") {
                    app.open_tile_map(&map);
                }
                Ok(Box::new(app))
            }),
        )
    }
}

#[cfg(not(feature = "gui"))]
mod gui {
    use std::path::PathBuf;
    use std::process::ExitCode;

    /// This build has no editor window: say so, and how to get one.
    pub fn open(_project: Option<PathBuf>) -> ExitCode {
        eprintln!("error: this `actforge` was built without the editor (the `gui` feature); it runs commands only");
        eprintln!("(see `actforge --help`; build with default features for the editor window)");
        ExitCode::from(2)
    }
}
