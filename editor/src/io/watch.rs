//! Watching the project folder (notify): which item files, and whether `project.ron`, changed
//! on disk.
//!
//! The watcher only reports item keys (and the manifest); the app decides, after the frame,
//! whether a change is its own save (same content as the document knows is on disk), a reload
//! (no unsaved edits: an undoable op) or a conflict (unsaved edits: the designer chooses).

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::sync::{Arc, OnceLock};

use actforge_runtime::Kind;
use actforge_runtime::model::Manifest;
use notify::{RecursiveMode, Watcher};

use actforge_runtime::locale::LOCALES_FOLDER;
use actforge_runtime::project::merge::{conflict_diagnostics, parse_conflict_text};
use actforge_runtime::project::{ItemConflict, MANIFEST_FILE, item_path, manifest_text};

use crate::app::ActforgeApp;
use crate::document::{ItemKey, Op, SharedItem, conflict_from_ron, get_item, item_from_ron, same_content};
use crate::requests::Request;
use crate::workspace::Workspace;

/// A running watcher of one project folder.
pub struct FolderWatch {
    root: PathBuf,
    // Kept alive: dropping it stops the watching.
    _watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    /// The window the watcher's thread wakes when a change arrives (known from the first frame).
    wake: Arc<OnceLock<egui::Context>>,
}

impl FolderWatch {
    /// Starts watching `root` and everything below it.
    pub fn start(root: &Path) -> Result<Self, String> {
        let (sender, events) = channel();
        let wake = Arc::new(OnceLock::<egui::Context>::new());
        let waker = Arc::clone(&wake);
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            // Reading a file (ours included, when a change is taken in) is not a change: passing
            // it on would wake the window to read the file again and again.
            if matches!(&event, Ok(event) if matches!(event.kind, notify::EventKind::Access(_))) {
                return;
            }
            // The app may be gone while the watcher thread still reports: nothing to do then.
            // Else the window draws a frame, which takes the change in: no polling frames.
            if sender.send(event).is_ok()
                && let Some(ctx) = waker.get()
            {
                ctx.request_repaint();
            }
        })
        .map_err(|error| error.to_string())?;
        // Events name paths under the watched path as given: watch the absolute one, so
        // they can be matched to items whatever the working folder.
        let root = root.canonicalize().unwrap_or_else(|_| root.to_owned());
        watcher.watch(&root, RecursiveMode::Recursive).map_err(|error| error.to_string())?;
        Ok(Self { root, _watcher: watcher, events, wake })
    }

    /// Has the watcher's thread wake `ctx`'s window when a change arrives (set once).
    pub fn wake(&self, ctx: &egui::Context) {
        if self.wake.get().is_none() {
            // The frame thread alone sets it: a failed set would only mean it is set already.
            let _ = self.wake.set(ctx.clone());
        }
    }

    /// What changed on disk since the last call: the items whose files were created, changed
    /// or removed (each once, in order), whether `project.ron` changed, and whether watching
    /// reported an error.
    pub fn changes(&self) -> DiskChanges {
        let mut changes = DiskChanges::default();
        while let Ok(event) = self.events.try_recv() {
            match event {
                Ok(event) => {
                    for path in event.paths {
                        if path.strip_prefix(&self.root).is_ok_and(|relative| relative == Path::new(MANIFEST_FILE)) {
                            changes.manifest = true;
                        } else if path.strip_prefix(self.root.join(LOCALES_FOLDER)).is_ok() {
                            changes.locales = true;
                        } else if let Some(key) = self.item_of(&path)
                            && !changes.items.contains(&key)
                        {
                            changes.items.push(key);
                        }
                    }
                }
                Err(error) => changes.problem = Some(error.to_string()),
            }
        }
        changes
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

/// What changed on disk, as the watcher saw it.
#[derive(Debug, Default)]
pub struct DiskChanges {
    /// Items whose files were created, changed or removed.
    pub items: Vec<ItemKey>,
    /// Whether `project.ron` changed.
    pub manifest: bool,
    /// Whether a file under `locales/` changed.
    pub locales: bool,
    /// An error the watcher reported.
    pub problem: Option<String>,
}

/// What changed on disk while it had unsaved edits: an item, or `project.ron`.
pub enum Theirs {
    /// An item's file: its content (`None`: the file was removed).
    Item(ItemKey, Option<SharedItem>),
    /// `project.ron`'s content.
    Manifest(Box<Manifest>),
}

/// A file changed on disk while what it holds had unsaved edits.
pub struct Conflict {
    theirs: Theirs,
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
        let DiskChanges { items, manifest, locales, problem } = watch.changes();
        if let Some(problem) = problem {
            self.log.push(format!("Watching the project folder: {problem}"));
        }
        if manifest {
            self.check_manifest_on_disk();
        }
        if locales {
            self.check_locales_on_disk();
        }
        for key in items {
            let file = self.path.join(item_path(key.kind, &key.id));
            let theirs = match std::fs::read_to_string(&file) {
                Ok(text) if parse_conflict_text(&text).is_some() => {
                    self.take_merge_conflict(&key, &file, &text);
                    continue;
                }
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
            if theirs.is_none() && open.protected.remove(&file) {
                // A file that did not load is gone: nothing is left to list or to protect.
                open.load_diagnostics.retain(|diagnostic| diagnostic.file.as_ref() != Some(&file));
                open.diagnostics_revision = u64::MAX;
                self.log.push(format!("{} (which did not load) was removed on disk", file.display()));
                continue;
            }
            if same_content(open.document.saved_content(&key).as_ref(), theirs.as_ref()) {
                continue;
            }
            if open.document.is_dirty(&key) {
                // A second event for the same change (editors write in steps) keeps the open
                // conflict as the designer left it.
                let known = self.conflicts.iter().any(|c| {
                    matches!(&c.theirs, Theirs::Item(k, t) if *k == key && same_content(t.as_ref(), theirs.as_ref()))
                });
                if known {
                    continue;
                }
                self.conflicts.retain(|conflict| !matches!(&conflict.theirs, Theirs::Item(k, _) if *k == key));
                self.conflicts.push(Conflict { theirs: Theirs::Item(key, theirs), show_both: false });
            } else {
                self.take_theirs(&key, theirs, "Reload");
            }
        }
    }

    /// Takes in an item file that became a merge conflict (a `git merge` while the editor is
    /// open): the document takes our side as one undoable step, the file is protected and the
    /// Changes tab shows the conflicts. Refused, with why, while the item has unsaved edits.
    fn take_merge_conflict(&mut self, key: &ItemKey, file: &Path, text: &str) {
        let (item, conflicts) = match conflict_from_ron(key.kind, text) {
            Some(Ok((item, conflicts))) if item.item_id() == key.id => (item, conflicts),
            Some(Ok(_)) => {
                self.log.push(format!("{} holds a merge conflict for another id: not taken in", file.display()));
                return;
            }
            Some(Err(error)) => {
                self.log.push(format!("{} holds a merge conflict that does not read: {error}", file.display()));
                return;
            }
            None => return,
        };
        let Workspace::Open(open) = &mut self.workspace else { return };
        if open.conflicts.iter().any(|known| known.path == file && known.conflicts == conflicts) {
            return;
        }
        if open.document.is_dirty(key) {
            self.log.push(format!(
                "{} now holds a merge conflict, but {key} has unsaved edits: save or undo them, then Reload",
                file.display()
            ));
            return;
        }
        let diagnostics = conflict_diagnostics(file, text, key.kind, &key.id, &conflicts);
        open.load_diagnostics.retain(|diagnostic| diagnostic.file.as_deref() != Some(file));
        open.load_diagnostics.extend(diagnostics);
        open.conflicts.retain(|known| known.path != file);
        open.conflicts.push(ItemConflict { kind: key.kind, id: key.id.clone(), path: file.to_owned(), conflicts });
        open.protected.insert(file.to_owned());
        open.diagnostics_revision = u64::MAX;
        self.take_theirs(key, Some(item), "Merge conflict: our side of");
        self.announce_merge_conflicts();
    }

    /// Takes in `project.ron` changed by someone else: a reload (one undoable step) without
    /// unsaved manifest edits, a conflict with them; our own saves are ignored.
    fn check_manifest_on_disk(&mut self) {
        let file = self.path.join(MANIFEST_FILE);
        let theirs = match std::fs::read_to_string(&file) {
            Ok(text) => match ron::from_str::<Manifest>(&text) {
                Ok(manifest) => manifest,
                Err(error) => {
                    self.log.push(format!("{} changed on disk but does not read: {error}", file.display()));
                    return;
                }
            },
            Err(error) => {
                // Removed (or being replaced): the project keeps its manifest; saving writes it.
                self.log.push(format!("{} changed on disk but cannot be read: {error}", file.display()));
                return;
            }
        };
        let Workspace::Open(open) = &mut self.workspace else { return };
        if *open.document.saved_manifest() == theirs {
            return;
        }
        if open.document.manifest_dirty() {
            let known = self.conflicts.iter().any(|c| matches!(&c.theirs, Theirs::Manifest(m) if **m == theirs));
            if !known {
                self.conflicts.retain(|conflict| !matches!(conflict.theirs, Theirs::Manifest(_)));
                self.conflicts.push(Conflict { theirs: Theirs::Manifest(Box::new(theirs)), show_both: false });
            }
        } else {
            self.take_their_manifest(theirs, "Reload");
        }
    }

    /// Takes in translations changed by someone else (`actforge strings import`, a git pull):
    /// a reload (one undoable step) without unsaved translation edits; with them, the log says
    /// to save or undo first. Our own saves are ignored.
    fn check_locales_on_disk(&mut self) {
        let mut scratch = actforge_runtime::Project::default();
        let (mut diagnostics, mut protected) = (Vec::new(), std::collections::BTreeSet::new());
        actforge_runtime::locale::load_locales(&self.path, &mut scratch, &mut diagnostics, &mut protected);
        if !diagnostics.is_empty() || !protected.is_empty() {
            // A half-written or broken file: the next event brings the finished one.
            return;
        }
        let theirs = scratch.locales;
        let Workspace::Open(open) = &mut self.workspace else { return };
        // An empty language folder saves as no file: compare what files would hold.
        let same = |a: &actforge_runtime::locale::Locales, b: &actforge_runtime::locale::Locales| {
            a.iter().filter(|(_, l)| !l.is_empty()).eq(b.iter().filter(|(_, l)| !l.is_empty()))
        };
        if same(open.document.saved_locales(), &theirs) {
            return;
        }
        if open.document.locales_dirty() {
            self.log.push(format!(
                "{LOCALES_FOLDER}/ changed on disk while translations have unsaved edits: save (to keep yours) or \
                 undo them, then Reload (to take the files')"
            ));
            return;
        }
        let op = Op::SetLocales(Box::new(theirs.clone()));
        if self.edit(op, &format!("Reload {LOCALES_FOLDER}/ from disk"), None)
            && let Workspace::Open(open) = &mut self.workspace
        {
            open.document.set_saved_locales(theirs);
        }
    }

    /// Makes the manifest what `project.ron` holds, as one undoable step, recorded as saved.
    fn take_their_manifest(&mut self, theirs: Manifest, verb: &str) {
        let op = Op::SetManifest(Box::new(theirs.clone()));
        if self.edit(op, &format!("{verb} {MANIFEST_FILE} from disk"), None)
            && let Workspace::Open(open) = &mut self.workspace
        {
            open.document.set_saved_manifest(theirs);
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
        let text = |item: Option<&SharedItem>| item.map_or_else(|| "(no file)".to_owned(), |item| item.ron_text());
        let manifest = |manifest: &Manifest| manifest_text(manifest).unwrap_or_else(|error| error.to_string());
        let (what, mine, theirs) = match &conflict.theirs {
            Theirs::Item(key, theirs) => {
                let mine = get_item(open.document.project(), key.kind, &key.id);
                let change = if theirs.is_some() { "changed" } else { "was removed" };
                (format!("The {key} {change}"), text(mine.as_ref()), text(theirs.as_ref()))
            }
            Theirs::Manifest(theirs) => (
                format!("The project settings ({MANIFEST_FILE}) changed"),
                manifest(&open.document.project().manifest),
                manifest(theirs),
            ),
        };
        let mut decision = None;
        egui::Window::new("Changed on disk")
            .collapsible(false)
            .resizable(true)
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
            .show(ctx, |ui| {
                ui.label(format!("{what} on disk while you have unsaved edits of it."));
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
                    ui.columns(2, |columns| {
                        if let [left, right] = columns {
                            left.strong("Mine");
                            left.monospace(mine.as_str());
                            right.strong("On disk");
                            right.monospace(theirs.as_str());
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
        match (conflict.theirs, take_theirs) {
            (Theirs::Item(key, theirs), true) => self.take_theirs(&key, theirs, "Take"),
            (Theirs::Manifest(theirs), true) => self.take_their_manifest(*theirs, "Take"),
            (Theirs::Item(key, theirs), false) => {
                if let Workspace::Open(open) = &mut self.workspace {
                    // The file is what it is now; the designer's version stays unsaved.
                    open.document.set_saved_content(&key, theirs);
                    self.log.push(format!("Kept your edits of the {key}"));
                }
            }
            (Theirs::Manifest(theirs), false) => {
                if let Workspace::Open(open) = &mut self.workspace {
                    open.document.set_saved_manifest(*theirs);
                    self.log.push("Kept your edits of the project settings".to_owned());
                }
            }
        }
    }
}
