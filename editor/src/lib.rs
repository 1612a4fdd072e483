//! The Actforge editor: the eframe application behind the default `gui` feature.
//!
//! The editor depends on `actforge-cli` and `actforge-runtime`; neither depends on the editor.
//! Without the `gui` feature this library is empty and the `actforge` binary is the command
//! line alone.
#![cfg(feature = "gui")]

mod actions;
pub mod app;
pub mod commands;
pub mod document;
pub mod io;
pub mod layout;
pub mod panels;
pub mod preview;
pub mod requests;
pub mod style;
pub mod templates;
pub mod views;
pub mod workspace;
