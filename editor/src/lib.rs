//! The Actforge editor: the eframe application and the `actforge` command line.
//!
//! The editor depends on `actforge-runtime`; the runtime never depends on the editor.

pub mod app;
pub mod cli;
pub mod commands;
pub mod document;
pub mod formula_editor;
pub mod inspector;
pub mod map_view;
pub mod preview;
pub mod recovery;
pub mod sim_cli;
pub mod simulate;
pub mod style;
pub mod views;
pub mod watch;
