//! The Actforge editor: the eframe application and the `actforge` command line.
//!
//! The editor depends on `actforge-runtime`; the runtime never depends on the editor.

pub mod app;
pub mod cli;
pub mod style;
