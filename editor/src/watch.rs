//! Watching the project folder (notify): which item files changed on disk.
//!
//! The watcher only reports item keys; the app decides, after the frame, whether a change is
//! its own save (same text as the document), a reload (no unsaved edits: an undoable op) or a
//! conflict (unsaved edits: the designer chooses).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};

use actforge_runtime::Kind;
use notify::{RecursiveMode, Watcher};

use crate::document::ItemKey;

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
