//! Folder dialogs for New, Open and Save as: the desktop portal's dialog on a worker thread,
//! its answer taken in by a later frame so the editor keeps drawing meanwhile.

use std::path::PathBuf;

use crate::app::ActforgeApp;

/// What a folder picked in a file dialog is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderPurpose {
    /// New project: an empty folder to create it in.
    New,
    /// Open: a project folder.
    Open,
    /// Save as: a new, empty folder.
    SaveAs,
}

/// A file dialog open on a worker thread: what it is for, and where its answer arrives.
pub struct FolderDialog {
    purpose: FolderPurpose,
    answer: std::sync::mpsc::Receiver<Option<PathBuf>>,
}

impl ActforgeApp {
    /// Opens rfd's folder dialog (the desktop portal) on a worker thread; the answer is taken
    /// in by a later frame, so the editor keeps drawing meanwhile.
    pub(crate) fn ask_folder(&mut self, purpose: FolderPurpose, title: &str) {
        if self.dialog.is_some() {
            return;
        }
        let (sender, answer) = std::sync::mpsc::channel();
        let dialog = rfd::AsyncFileDialog::new().set_title(title);
        let spawned = std::thread::Builder::new().name("folder dialog".to_owned()).spawn(move || {
            let picked = pollster::block_on(dialog.pick_folder()).map(|folder| folder.path().to_owned());
            // The editor may have closed meanwhile: nobody to tell.
            let _ = sender.send(picked);
        });
        match spawned {
            Ok(_) => self.dialog = Some(FolderDialog { purpose, answer }),
            Err(error) => self.log.push(format!("Could not open a file dialog: {error}")),
        }
    }

    /// Carries out what the folder dialog answered, once it has.
    pub(crate) fn take_dialog_answer(&mut self, ctx: &egui::Context) {
        let Some(dialog) = &self.dialog else { return };
        let answer = match dialog.answer.try_recv() {
            Ok(answer) => answer,
            Err(std::sync::mpsc::TryRecvError::Empty) => {
                ctx.request_repaint_after(std::time::Duration::from_millis(200));
                return;
            }
            Err(std::sync::mpsc::TryRecvError::Disconnected) => None,
        };
        let purpose = dialog.purpose;
        self.dialog = None;
        match (purpose, answer) {
            (_, None) => self.log.push("No folder chosen".to_owned()),
            (FolderPurpose::New, Some(folder)) => self.new_project_in(folder),
            (FolderPurpose::Open, Some(folder)) => self.open_project(folder),
            (FolderPurpose::SaveAs, Some(folder)) => self.save_as(folder),
        }
    }
}
