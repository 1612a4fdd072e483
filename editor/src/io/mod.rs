//! The editor's files: saving, opening, importing and exporting projects, file dialogs
//! (the desktop's or the built-in one), quitting with unsaved edits, autosave and recovery of
//! unsaved edits, and watching the project folder for changes made by someone else.

pub mod dialogs;
pub mod import;
pub mod project;
pub mod quit;
pub mod recovery;
pub mod watch;
