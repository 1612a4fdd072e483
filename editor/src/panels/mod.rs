//! The panels around the work: the project browser, the item's file, the inspector, the
//! diagnostics, the log, the project settings, search (palette, quick open, find in project), the Simulate panel,
//! and the menus, toolbar and status bar. Each draws with the document read-only and sends
//! what it wants done as requests.

pub mod browser;
pub mod changes;
pub mod diagnostics;
pub mod inspector;
pub mod item;
pub mod log;
pub mod menus;
pub mod project_settings;
pub mod search;
pub mod simulate;
pub mod strings;
pub mod tests;
