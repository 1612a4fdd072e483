//! The editor's files: saving and opening projects, folder dialogs, autosave and recovery of
//! unsaved edits, and watching the project folder for changes made by someone else.

pub mod dialogs;
pub mod project;
pub mod recovery;
pub mod watch;
