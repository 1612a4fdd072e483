//! Actforge runtime: the content model, project folders and bundles, validation and importers.
//!
//! This crate never depends on a UI toolkit; the editor depends on it, never the reverse.

pub mod diagnostic;
pub mod engine;
pub mod formula;
pub mod import;
pub mod locale;
pub mod map;
pub mod model;
pub mod number;
pub mod project;
pub mod ron_locate;
pub mod schema;
pub mod sim;
pub mod synthesis;
pub mod validate;

pub use diagnostic::{Diagnostic, Position, Severity};
pub use model::{Id, Kind, Project};
