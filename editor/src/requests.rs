//! The one request sink: while a frame is drawn the document is read-only, so every panel,
//! view and modal window asks for what it wants here, and the app carries the requests out in
//! order after the frame (rerun's `CommandSender` is the model).

use std::path::PathBuf;

use actforge_runtime::project::BundleFormat;

use crate::commands::UiCommand;
use crate::document::ItemKey;
use crate::io::dialogs::DialogPurpose;
use crate::panels::inspector::InspectorAction;

/// Something asked for while drawing, done after the frame.
#[derive(Clone, Debug)]
pub enum Request {
    /// A command (menu, toolbar, palette, shortcut).
    Command(UiCommand),
    /// An inspector request (an edit, a rename, a selection).
    Inspector(InspectorAction),
    /// Select an item.
    Select(ItemKey),
    /// Open another project folder or bundle.
    OpenProject(PathBuf),
    /// Select an item and bring one of its fields into view in the inspector.
    SelectField(ItemKey, String),
    /// Add a line to the log.
    Log(String),
    /// The designer's answer to "delete an item that is still used": delete it, or keep it.
    AnswerDelete {
        /// Delete it anyway.
        delete: bool,
    },
    /// The designer's answer to "unsaved edits found": recover them, or discard them.
    AnswerRecovery {
        /// Recover the edits (one undoable step).
        recover: bool,
    },
    /// The designer's answer to the first "changed on disk" conflict: take the file, or keep
    /// the unsaved edits.
    AnswerConflict {
        /// Take the file's version.
        take_theirs: bool,
    },
    /// Resolve the merge conflict in the item file `path` with a side per conflicted field
    /// (in the file's order): one undoable edit, after which saving writes the plain item.
    ResolveMergeConflict {
        /// The conflict file.
        path: PathBuf,
        /// The side kept for each field.
        choices: Vec<actforge_runtime::project::merge::Side>,
    },
    /// A file dialog's answer: the path chosen, or `None` when the designer cancelled.
    DialogAnswered {
        /// What the path is for.
        purpose: DialogPurpose,
        /// The chosen path.
        path: Option<PathBuf>,
    },
    /// The designer's answer to "export as RON or JSON": the format, or `None` to cancel.
    AnswerExport(Option<BundleFormat>),
    /// The designer's answer to "quit with unsaved changes".
    AnswerQuit(QuitAnswer),
    /// The designer read the message window.
    DismissAlert,
}

/// The answers to "quit with unsaved changes".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QuitAnswer {
    /// Save, then quit (stays open when the save fails).
    Save,
    /// Quit without saving.
    Discard,
    /// Keep editing.
    Cancel,
}

/// Where requests wait for the end of the frame.
#[derive(Debug, Default)]
pub struct Requests(Vec<Request>);

impl Requests {
    /// Asks for `request`; it is carried out after the frame, in the order asked.
    pub fn send(&mut self, request: Request) {
        self.0.push(request);
    }

    /// Asks for each of `requests`, in order.
    pub fn extend(&mut self, requests: impl IntoIterator<Item = Request>) {
        self.0.extend(requests);
    }

    /// Takes every waiting request out, oldest first.
    pub fn take(&mut self) -> Vec<Request> {
        std::mem::take(&mut self.0)
    }
}
