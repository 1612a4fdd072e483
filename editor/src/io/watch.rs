//! Watching the project folder (notify): which item files changed on disk.
//!
//! The watcher only reports item keys; the app decides, after the frame, whether a change is
//! its own save (same text as the document), a reload (no unsaved edits: an undoable op) or a
//! conflict (unsaved edits: the designer chooses).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

use actforge_runtime::Kind;
use notify::{RecursiveMode, Watcher};

use actforge_runtime::project::item_path;

use crate::app::ActforgeApp;
use crate::document::{ItemKey, Op, SharedItem, get_item, item_from_ron, same_content};
use crate::requests::Request;
use crate::workspace::Workspace;

/// A running watcher of one project folder.
pub struct FolderWatch {
    root: PathBuf,
    // Kept alive: dropping it stops the watching.
    _watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
}

impl FolderWatch {
    /// Starts watching `root` and everything below it.
    pub fn start(root: &Path) -> Result<Self, String> {
        let (sender, events) = channel();
        let mut watcher = notify::recommended_watcher(move |event| {
            // The app may be gone while the watcher thread still reports: nothing to do then.
            let _ = sender.send(event);
        })
        .map_err(|error| error.to_string())?;
        // Events name paths under the watched path as given: watch the absolute one, so
        // they can be matched to items whatever the working folder.
        let root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        watcher.watch(&root, RecursiveMode::Recursive).map_err(|error| error.to_string())?;
        Ok(Self { root, _watcher: watcher, events })
    }

    /// The items whose files were created, changed or removed since the last call (each once,
    /// in order), and whether watching reported an error.
    pub fn changed_items(&self) -> (Vec<ItemKey>, Option<String>) {
        let mut keys = Vec::new();
        let mut problem = None;
        while let Ok(event) = self.events.try_recv() {
            match event {
                Ok(event) => {
                    for path in event.paths {
                        if let Some(key) = self.item_of(&path)
                            && !keys.contains(&key)
                        {
                            keys.push(key);
                        }
                    }
                }
                Err(error) => problem = Some(error.to_string()),
            }
        }
        (keys, problem)
    }

    /// The item a file path belongs to: `<root>/<kind folder>/<id>.ron`.
    fn item_of(&self, path: &Path) -> Option<ItemKey> {
        let relative = path.strip_prefix(&self.root).ok()?;
        let mut parts = relative.components();
        let folder = parts.next()?.as_os_str().to_str()?;
        let file = Path::new(parts.next()?.as_os_str());
        if parts.next().is_some() || file.extension()?.to_str()? != "ron" {
            return None;
        }
        let kind = Kind::from_folder(folder)?;
        let id = file.file_stem()?.to_str()?;
        Some(ItemKey::new(kind, id))
    }
}

/// An item changed on disk while it had unsaved edits.
pub struct Conflict {
    key: ItemKey,
    /// The file's content (`None`: the file was removed).
    theirs: Option<SharedItem>,
    /// Both versions shown side by side.
    show_both: bool,
}

impl ActforgeApp {
    /// Watches the project folder (not bundles) for changes made by someone else.
    pub(crate) fn start_watching(&mut self) {
        self.watch = None;
        if !(self.path.is_dir() && matches!(self.workspace, Workspace::Open(_))) {
            return;
        }
        match FolderWatch::start(&self.path) {
            Ok(watch) => self.watch = Some(watch),
            Err(error) => self.log.push(format!("Not watching {} for changes: {error}", self.path.display())),
        }
    }

    /// Takes in item files changed by someone else: reloads those without unsaved edits (one
    /// undoable step each), raises a conflict for the others. Our own saves match what the
    /// document knows is on disk and are ignored.
    pub(crate) fn check_disk(&mut self) {
        let Some(watch) = &self.watch else { return };
        let (keys, problem) = watch.changed_items();
        if let Some(problem) = problem {
            self.log.push(format!("Watching the project folder: {problem}"));
        }
        for key in keys {
            let file = self.path.join(item_path(key.kind, &key.id));
            let theirs = match std::fs::read_to_string(&file) {
                Ok(text) => match item_from_ron(key.kind, &text) {
                    Ok(item) if item.item_id() == key.id => Some(item),
                    Ok(_) => {
                        self.log.push(format!("{} changed on disk but names another id: not taken in", file.display()));
                        continue;
                    }
                    Err(error) => {
                        self.log.push(format!("{} changed on disk but does not read: {error}", file.display()));
                        continue;
                    }
                },
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
                Err(error) => {
                    self.log.push(format!("{} changed on disk but cannot be read: {error}", file.display()));
                    continue;
                }
            };
            let Workspace::Open(open) = &mut self.workspace else { return };
            if same_content(open.document.saved_content(&key).as_ref(), theirs.as_ref()) {
                continue;
            }
            if open.document.is_dirty(&key) {
                // A second event for the same change (editors write in steps) keeps the open
                // conflict as the designer left it.
                let known =
                    self.conflicts.iter().any(|c| c.key == key && same_content(c.theirs.as_ref(), theirs.as_ref()));
                if known {
                    continue;
                }
                self.conflicts.retain(|conflict| conflict.key != key);
                self.conflicts.push(Conflict { key, theirs, show_both: false });
            } else {
                self.take_theirs(&key, theirs, "Reload");
            }
        }
    }

    /// Makes the item what its file holds, as one undoable step, and records that as saved.
    fn take_theirs(&mut self, key: &ItemKey, theirs: Option<SharedItem>, verb: &str) {
        let op = Op::SetItem { key: key.clone(), item: theirs.clone() };
        if self.edit(op, &format!("{verb} {key} from disk"), None)
            && let Workspace::Open(open) = &mut self.workspace
        {
            open.document.set_saved_content(key, theirs);
        }
    }

    /// The first conflict's question; the answer is a request, settled after the frame.
    pub(crate) fn conflict_ui(&mut self, ctx: &egui::Context) {
        let Some(conflict) = self.conflicts.first_mut() else { return };
        let Workspace::Open(open) = &self.workspace else { return };
        let mine = get_item(open.document.project(), conflict.key.kind, &conflict.key.id);
        let mut decision = None;
        egui::Window::new("Changed on disk")
            .collapsible(false)
            .resizable(true)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                let what = if conflict.theirs.is_some() { "changed" } else { "was removed" };
                ui.label(format!("The {} {what} on disk while you have unsaved edits of it.", conflict.key));
                ui.horizontal(|ui| {
                    if ui.button("Keep mine").on_hover_text("Keep your edits; saving will overwrite the file").clicked()
                    {
                        decision = Some(false);
                    }
                    if ui.button("Take theirs").on_hover_text("Replace your edits with the file (undoable)").clicked() {
                        decision = Some(true);
                    }
                    ui.toggle_value(&mut conflict.show_both, "Show both");
                });
                if conflict.show_both {
                    let text =
                        |item: Option<&SharedItem>| item.map_or_else(|| "(no file)".to_owned(), |item| item.ron_text());
                    ui.columns(2, |columns| {
                        if let [left, right] = columns {
                            left.strong("Mine");
                            left.monospace(text(mine.as_ref()));
                            right.strong("On disk");
                            right.monospace(text(conflict.theirs.as_ref()));
                        }
                    });
                }
            });
        if let Some(take_theirs) = decision {
            self.requests.send(Request::AnswerConflict { take_theirs });
        }
    }

    /// Settles the first conflict as the designer answered: take the file (one undoable step)
    /// or keep the unsaved edits.
    pub(crate) fn answer_conflict(&mut self, take_theirs: bool) {
        if self.conflicts.is_empty() {
            return;
        }
        let conflict = self.conflicts.remove(0);
        if take_theirs {
            self.take_theirs(&conflict.key, conflict.theirs, "Take");
        } else if let Workspace::Open(open) = &mut self.workspace {
            // The file is what it is now; the designer's version stays unsaved.
            open.document.set_saved_content(&conflict.key, conflict.theirs);
            self.log.push(format!("Kept your edits of the {}", conflict.key));
        }
    }
}
