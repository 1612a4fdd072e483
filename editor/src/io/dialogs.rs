//! File dialogs: the desktop's own (rfd's async portal dialog on a worker thread) when the
//! desktop portal's file chooser is there, the built-in one (egui-file-dialog, drawn in the
//! window) when it is not, or when the designer's setting asks for it.
//!
//! rfd's portal backend answers "nothing chosen" both when the designer cancels and when no
//! portal exists, so the portal is looked for first, once, on a worker thread: the session
//! bus is asked whether `org.freedesktop.portal.Desktop` is there (owned or activatable) and
//! exposes `org.freedesktop.portal.FileChooser`. No bus, no portal, no answer in time: the
//! built-in dialog. A missing dialog is never reported as a cancel.
//!
//! Every answer is a [`Request::DialogAnswered`], carried out after the frame like the
//! answers of the other modal windows.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

use actforge_runtime::project::BundleFormat;
use egui::RichText;

use crate::requests::{Request, Requests};

/// The portal's well-known bus name.
const PORTAL: &str = "org.freedesktop.portal.Desktop";
/// The portal's object.
const PORTAL_PATH: &str = "/org/freedesktop/portal/desktop";
/// The portal interface rfd's dialogs use.
const FILE_CHOOSER: &str = "org.freedesktop.portal.FileChooser";
/// How long one bus call of the probe may take (activating the portal included).
const BUS_TIMEOUT: Duration = Duration::from_millis(1500);
/// How long the probe may take in all before the built-in dialog is used.
const PROBE_DEADLINE: Duration = Duration::from_secs(3);
/// A portal dialog that answers "nothing" faster than a person can cancel did not open.
const TOO_FAST_TO_BE_A_CANCEL: Duration = Duration::from_millis(300);

/// What a path chosen in a file dialog is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogPurpose {
    /// New project: a new or empty folder to create it in.
    NewProject,
    /// Open: a project folder.
    OpenProject,
    /// Save as: a new or empty folder.
    SaveAs,
    /// Import Cultistlike, first step: the folder holding the Unity assets.
    ImportSource,
    /// Import Cultistlike, second step: a new or empty folder for the imported project.
    ImportInto {
        /// The assets' folder chosen in the first step.
        source: PathBuf,
    },
    /// Export bundle: the file to write.
    Export(BundleFormat),
}

impl DialogPurpose {
    /// The dialog's title.
    pub fn title(&self) -> &'static str {
        match self {
            DialogPurpose::NewProject => "New project: choose an empty folder",
            DialogPurpose::OpenProject => "Open a project folder",
            DialogPurpose::SaveAs => "Save the project into a new, empty folder",
            DialogPurpose::ImportSource => "Import Cultistlike: choose the folder with the Unity assets",
            DialogPurpose::ImportInto { .. } => "Import Cultistlike: choose an empty folder for the new project",
            DialogPurpose::Export(BundleFormat::Ron) => "Export the project as a RON bundle",
            DialogPurpose::Export(BundleFormat::Json) => "Export the project as a JSON bundle",
        }
    }

    /// What the built-in dialog says the path must be.
    fn hint(&self) -> &'static str {
        match self {
            DialogPurpose::NewProject | DialogPurpose::SaveAs | DialogPurpose::ImportInto { .. } => {
                "A new or empty folder: type a path that does not exist yet and it is created."
            }
            DialogPurpose::OpenProject => "A folder with a project.ron in it.",
            DialogPurpose::ImportSource => {
                "The folder that holds the .asset files (Resources/…), searched at any depth."
            }
            DialogPurpose::Export(_) => "The bundle file to write; an existing file is replaced.",
        }
    }

    /// The noun for what is picked ("folder" or "file").
    fn picks_folder(&self) -> bool {
        !matches!(self, DialogPurpose::Export(_))
    }
}

/// What the dialog is asked for: its purpose, where it starts, and for files a name.
#[derive(Clone, Debug)]
pub struct DialogRequest {
    /// What the path is for.
    pub purpose: DialogPurpose,
    /// The folder the dialog starts in.
    pub start_in: Option<PathBuf>,
    /// The proposed file name (save dialogs).
    pub file_name: Option<String>,
}

impl DialogRequest {
    /// A folder dialog for `purpose`, starting in `start_in`.
    pub fn folder(purpose: DialogPurpose, start_in: Option<PathBuf>) -> Self {
        Self { purpose, start_in, file_name: None }
    }

    /// The extension the chosen file must have (save dialogs).
    fn extension(&self) -> Option<&'static str> {
        match self.purpose {
            DialogPurpose::Export(BundleFormat::Ron) => Some("ron"),
            DialogPurpose::Export(BundleFormat::Json) => Some("json"),
            _ => None,
        }
    }

    /// The name of the extension's filter.
    fn filter_name(&self) -> &'static str {
        match self.purpose {
            DialogPurpose::Export(BundleFormat::Json) => "JSON bundle",
            _ => "RON bundle",
        }
    }
}

/// Whether the desktop portal's file chooser is there, and if not, why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortalStatus {
    /// The portal exposes the file chooser.
    Available,
    /// It does not (the reason, for the log).
    Missing(String),
}

/// Which dialog answers a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DialogBackend {
    /// The desktop's dialog, through the portal.
    Portal,
    /// The built-in dialog drawn in the window.
    BuiltIn,
}

/// Whether a session bus could be there at all: an address in `DBUS_SESSION_BUS_ADDRESS`, or
/// the usual socket `$XDG_RUNTIME_DIR/bus`. Without one there is no portal to ask.
pub fn session_bus_configured(address: Option<&OsStr>, runtime_dir: Option<&Path>) -> bool {
    address.is_some_and(|address| !address.is_empty()) || runtime_dir.is_some_and(|dir| dir.join("bus").exists())
}

/// Which dialog to use: the built-in one when the setting says so or the portal is missing;
/// `None` while the portal is still being looked for.
pub fn choose_backend(always_built_in: bool, portal: Option<&PortalStatus>) -> Option<DialogBackend> {
    if always_built_in {
        return Some(DialogBackend::BuiltIn);
    }
    match portal? {
        PortalStatus::Available => Some(DialogBackend::Portal),
        PortalStatus::Missing(_) => Some(DialogBackend::BuiltIn),
    }
}

/// Looks for the portal's file chooser on the session bus (blocking; run it on a worker thread).
pub fn probe_portal() -> PortalStatus {
    let address = std::env::var_os("DBUS_SESSION_BUS_ADDRESS");
    let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    if !session_bus_configured(address.as_deref(), runtime_dir.as_deref()) {
        return PortalStatus::Missing("no session bus".to_owned());
    }
    match ask_bus_for_file_chooser() {
        Ok(true) => PortalStatus::Available,
        Ok(false) => PortalStatus::Missing("the desktop portal offers no file chooser".to_owned()),
        Err(error) => PortalStatus::Missing(format!("the session bus did not answer: {error}")),
    }
}

/// Asks the session bus whether the portal is owned (or can be started) and has a file chooser.
fn ask_bus_for_file_chooser() -> zbus::Result<bool> {
    let connection = zbus::blocking::connection::Builder::session()?.method_timeout(BUS_TIMEOUT).build()?;
    let bus = zbus::blocking::fdo::DBusProxy::new(&connection)?;
    let name = zbus::names::BusName::try_from(PORTAL)?;
    let owned = bus.name_has_owner(name)?;
    if !owned && !bus.list_activatable_names()?.iter().any(|activatable| activatable.as_str() == PORTAL) {
        return Ok(false);
    }
    // Reading the interface's version starts the portal if it is not running yet, and fails
    // when no backend implements the file chooser.
    let properties =
        zbus::blocking::fdo::PropertiesProxy::builder(&connection).destination(PORTAL)?.path(PORTAL_PATH)?.build()?;
    let interface = zbus::names::InterfaceName::try_from(FILE_CHOOSER)?;
    Ok(properties.get(interface, "version").is_ok())
}

/// Where the portal probe stands.
enum Probe {
    /// Not started (tests that never open a dialog start none).
    NotStarted,
    /// Running on a worker thread since the instant given.
    Running(Receiver<PortalStatus>, Instant),
    /// Answered.
    Known(PortalStatus),
}

/// A dialog waiting for the designer.
enum OpenDialog {
    /// The desktop's dialog on a worker thread.
    Portal { request: DialogRequest, answer: Receiver<Option<PathBuf>>, opened: Instant },
    /// The built-in dialog.
    BuiltIn(Box<BuiltInDialog>),
}

/// How a dialog ended.
enum Ended {
    /// A path was chosen.
    Chosen(PathBuf),
    /// The designer cancelled.
    Cancelled,
}

/// The built-in dialog and the path typed beside it.
struct BuiltInDialog {
    request: DialogRequest,
    dialog: egui_file_dialog::FileDialog,
    /// The path typed into the "Path" field.
    typed: String,
    /// Why the typed path cannot be used.
    problem: Option<String>,
}

/// The file dialogs service: one dialog at a time, the portal's or the built-in one.
pub struct FileDialogs {
    /// The designer's setting: always the built-in dialog.
    pub always_built_in: bool,
    probe: Probe,
    open: Option<OpenDialog>,
    /// A request waiting for the probe's answer.
    waiting: Option<DialogRequest>,
    /// Whether the log has said which dialog is used (said once).
    told: bool,
}

impl Default for FileDialogs {
    fn default() -> Self {
        Self { always_built_in: false, probe: Probe::NotStarted, open: None, waiting: None, told: false }
    }
}

impl FileDialogs {
    /// Whether a dialog is open (or about to open).
    pub fn is_open(&self) -> bool {
        self.open.is_some() || self.waiting.is_some()
    }

    /// Starts looking for the portal on a worker thread, if not yet started.
    pub fn start_probe(&mut self) {
        if !matches!(self.probe, Probe::NotStarted) {
            return;
        }
        let (sender, answer) = channel();
        let spawned = std::thread::Builder::new().name("portal probe".to_owned()).spawn(move || {
            // The editor may have closed meanwhile: nobody to tell.
            let _ = sender.send(probe_portal());
        });
        self.probe = match spawned {
            Ok(_) => Probe::Running(answer, Instant::now()),
            Err(error) => Probe::Known(PortalStatus::Missing(format!("could not ask the session bus: {error}"))),
        };
    }

    /// The portal's status, once known.
    pub fn portal_status(&self) -> Option<&PortalStatus> {
        match &self.probe {
            Probe::Known(status) => Some(status),
            _ => None,
        }
    }

    /// Takes in the probe's answer (or gives up on it after the deadline).
    fn poll_probe(&mut self) {
        let Probe::Running(answer, started) = &self.probe else { return };
        let status = match answer.try_recv() {
            Ok(status) => status,
            Err(TryRecvError::Empty) if started.elapsed() < PROBE_DEADLINE => return,
            Err(TryRecvError::Empty) => PortalStatus::Missing("the session bus did not answer in time".to_owned()),
            Err(TryRecvError::Disconnected) => PortalStatus::Missing("the portal probe stopped".to_owned()),
        };
        self.probe = Probe::Known(status);
    }

    /// Asks for a path; the answer comes as a [`Request::DialogAnswered`] after a later frame.
    /// Refused (the log says so) while another dialog is open.
    pub fn ask(&mut self, request: DialogRequest, requests: &mut Requests) {
        if self.is_open() {
            requests.send(Request::Log("A file dialog is already open: answer it first".to_owned()));
            return;
        }
        if !self.always_built_in {
            self.start_probe();
            self.poll_probe();
        }
        match choose_backend(self.always_built_in, self.portal_status()) {
            None => self.waiting = Some(request),
            Some(backend) => self.open_with(backend, request, requests),
        }
    }

    /// Opens `request` in the dialog `backend`.
    fn open_with(&mut self, backend: DialogBackend, request: DialogRequest, requests: &mut Requests) {
        if !self.told && !self.always_built_in {
            self.told = true;
            if let Some(PortalStatus::Missing(why)) = self.portal_status() {
                requests.send(Request::Log(format!("No desktop file dialog ({why}): using the built-in one")));
            }
        }
        match backend {
            DialogBackend::Portal => match open_portal_dialog(&request) {
                Ok(answer) => self.open = Some(OpenDialog::Portal { request, answer, opened: Instant::now() }),
                Err(error) => {
                    requests.send(Request::Log(format!(
                        "Could not open the desktop's file dialog ({error}): using the built-in one"
                    )));
                    self.open = Some(OpenDialog::BuiltIn(Box::new(BuiltInDialog::new(request))));
                }
            },
            DialogBackend::BuiltIn => self.open = Some(OpenDialog::BuiltIn(Box::new(BuiltInDialog::new(request)))),
        }
    }

    /// Draws the built-in dialog and takes in the portal's answer; answers become requests.
    pub fn ui(&mut self, ctx: &egui::Context, requests: &mut Requests) {
        if self.waiting.is_some() {
            self.poll_probe();
            match choose_backend(self.always_built_in, self.portal_status()) {
                Some(backend) => {
                    if let Some(request) = self.waiting.take() {
                        self.open_with(backend, request, requests);
                    }
                }
                None => ctx.request_repaint_after(Duration::from_millis(100)),
            }
        }
        match self.open.take() {
            None => {}
            Some(OpenDialog::Portal { request, answer, opened }) => match answer.try_recv() {
                Err(TryRecvError::Empty) => {
                    self.open = Some(OpenDialog::Portal { request, answer, opened });
                    ctx.request_repaint_after(Duration::from_millis(200));
                }
                Ok(Some(path)) => requests.send(Request::DialogAnswered { purpose: request.purpose, path: Some(path) }),
                Ok(None) | Err(TryRecvError::Disconnected) if opened.elapsed() < TOO_FAST_TO_BE_A_CANCEL => {
                    // Nobody cancels that fast: the portal did not show a dialog. Use the
                    // built-in one from now on rather than report a cancel.
                    self.probe = Probe::Known(PortalStatus::Missing("the portal showed no dialog".to_owned()));
                    requests.send(Request::Log(
                        "The desktop's file dialog did not open: using the built-in one".to_owned(),
                    ));
                    self.open = Some(OpenDialog::BuiltIn(Box::new(BuiltInDialog::new(request))));
                }
                Ok(None) | Err(TryRecvError::Disconnected) => {
                    requests.send(Request::DialogAnswered { purpose: request.purpose, path: None });
                }
            },
            Some(OpenDialog::BuiltIn(mut dialog)) => match dialog.ui(ctx) {
                None => self.open = Some(OpenDialog::BuiltIn(dialog)),
                Some(ended) => {
                    let path = match ended {
                        Ended::Chosen(path) => Some(path),
                        Ended::Cancelled => None,
                    };
                    requests.send(Request::DialogAnswered { purpose: dialog.request.purpose, path });
                }
            },
        }
    }
}

/// Opens rfd's portal dialog for `request` on a worker thread; its answer arrives on the channel.
fn open_portal_dialog(request: &DialogRequest) -> std::io::Result<Receiver<Option<PathBuf>>> {
    let (sender, answer) = channel();
    let mut dialog = rfd::AsyncFileDialog::new().set_title(request.purpose.title());
    if let Some(folder) = &request.start_in {
        dialog = dialog.set_directory(folder);
    }
    if let Some(extension) = request.extension() {
        dialog = dialog.add_filter(request.filter_name(), &[extension]);
    }
    if let Some(name) = &request.file_name {
        dialog = dialog.set_file_name(name);
    }
    let folder = request.purpose.picks_folder();
    std::thread::Builder::new().name("file dialog".to_owned()).spawn(move || {
        let picked =
            if folder { pollster::block_on(dialog.pick_folder()) } else { pollster::block_on(dialog.save_file()) };
        // The editor may have closed meanwhile: nobody to tell.
        let _ = sender.send(picked.map(|handle| handle.path().to_owned()));
    })?;
    Ok(answer)
}

/// `~/x` as a path in the home folder; other paths as they are.
fn expand_home(typed: &str) -> PathBuf {
    let typed = typed.trim();
    if let Some(rest) = typed.strip_prefix("~/").or_else(|| (typed == "~").then_some(""))
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    PathBuf::from(typed)
}

impl BuiltInDialog {
    fn new(request: DialogRequest) -> Self {
        let labels = egui_file_dialog::FileDialogLabels {
            open_button: "Choose".to_owned(),
            save_button: "Save".to_owned(),
            cancel_button: "Cancel".to_owned(),
            selected_directory: "Selected folder:".to_owned(),
            ..Default::default()
        };
        let mut dialog = egui_file_dialog::FileDialog::new()
            .id("builtin_file_dialog")
            .title(request.purpose.title())
            .labels(labels)
            .default_size([820.0, 460.0])
            .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0]);
        if let Some(folder) = request.start_in.clone().filter(|folder| folder.is_dir()) {
            dialog = dialog.initial_directory(folder).opening_mode(egui_file_dialog::OpeningMode::AlwaysInitialDir);
        }
        if let Some(extension) = request.extension() {
            dialog = dialog
                .add_save_extension(request.filter_name(), extension)
                .default_save_extension(request.filter_name());
        }
        if let Some(name) = &request.file_name {
            dialog = dialog.default_file_name(name);
        }
        dialog.set_right_panel_width(260.0);
        if request.purpose.picks_folder() {
            dialog.pick_directory();
        } else {
            dialog.save_file();
        }
        Self { request, dialog, typed: String::new(), problem: None }
    }

    /// Draws the dialog; how it ended, once it has.
    fn ui(&mut self, ctx: &egui::Context) -> Option<Ended> {
        let Self { request, dialog, typed, problem } = self;
        let mut chosen = None;
        let folder = request.purpose.picks_folder();
        dialog.update_with_right_panel_ui(ctx, &mut |ui: &mut egui::Ui, _: &mut egui_file_dialog::FileDialog| {
            ui.add_space(4.0);
            ui.label(RichText::new(request.purpose.hint()).weak());
            ui.add_space(6.0);
            let label = ui.label(if folder { "Folder path" } else { "File path" });
            let response = ui
                .add(
                    egui::TextEdit::singleline(typed)
                        .hint_text(if folder { "/path/to/folder" } else { "/path/to/file" })
                        .desired_width(f32::INFINITY),
                )
                .labelled_by(label.id)
                .on_hover_text("Type a path instead of picking one on the left (~ is your home folder)");
            let enter = response.lost_focus() && ui.input(|input| input.key_pressed(egui::Key::Enter));
            let button = if folder { "Use this folder" } else { "Save to this file" };
            let clicked = ui.add_enabled(!typed.trim().is_empty(), egui::Button::new(button)).clicked();
            if (enter || clicked) && !typed.trim().is_empty() {
                match typed_path_problem(&expand_home(typed), folder) {
                    None => chosen = Some(expand_home(typed)),
                    Some(why) => *problem = Some(why),
                }
            }
            if let Some(problem) = problem {
                ui.colored_label(crate::style::severity_colour(actforge_runtime::Severity::Error), problem.as_str());
            }
        });
        if let Some(path) = chosen {
            return Some(Ended::Chosen(with_extension(path, request.extension())));
        }
        let picked = match dialog.state() {
            egui_file_dialog::DialogState::Open => return None,
            egui_file_dialog::DialogState::Picked(path) => Some(path),
            egui_file_dialog::DialogState::PickedMultiple(paths) => paths.first(),
            egui_file_dialog::DialogState::Cancelled | egui_file_dialog::DialogState::Closed => None,
        };
        Some(picked.map_or(Ended::Cancelled, |path| Ended::Chosen(with_extension(path.clone(), request.extension()))))
    }
}

/// Why a typed path cannot be used: a folder must not be a file; a file's folder must exist.
fn typed_path_problem(path: &Path, folder: bool) -> Option<String> {
    if !path.is_absolute() {
        return Some("Type a whole path, starting with / (or ~ for your home folder)".to_owned());
    }
    if folder {
        return path.is_file().then(|| format!("{} is a file, not a folder", path.display()));
    }
    if path.is_dir() {
        return Some(format!("{} is a folder: add a file name", path.display()));
    }
    match path.parent() {
        Some(parent) if parent.is_dir() => None,
        _ => Some("The folder for this file does not exist".to_owned()),
    }
}

/// `path` with `extension` added when it has another one or none.
pub fn with_extension(path: PathBuf, extension: Option<&str>) -> PathBuf {
    let Some(extension) = extension else { return path };
    if path.extension().is_some_and(|has| has.eq_ignore_ascii_case(extension)) {
        return path;
    }
    let mut name = path.clone().into_os_string();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_session_bus_the_built_in_dialog_is_used() {
        let nowhere = Path::new("/nonexistent/actforge-runtime-dir");
        assert!(!session_bus_configured(None, None));
        assert!(!session_bus_configured(Some(OsStr::new("")), Some(nowhere)));
        assert!(session_bus_configured(Some(OsStr::new("unix:path=/run/user/1000/bus")), None));
        let missing = PortalStatus::Missing("no session bus".to_owned());
        assert_eq!(choose_backend(false, Some(&missing)), Some(DialogBackend::BuiltIn));
    }

    #[test]
    fn the_portal_is_used_only_when_it_answered_and_the_setting_allows() {
        assert_eq!(choose_backend(false, Some(&PortalStatus::Available)), Some(DialogBackend::Portal));
        assert_eq!(choose_backend(true, Some(&PortalStatus::Available)), Some(DialogBackend::BuiltIn));
        assert_eq!(choose_backend(true, None), Some(DialogBackend::BuiltIn), "the setting needs no probe");
        assert_eq!(choose_backend(false, None), None, "waits for the probe");
    }

    #[test]
    fn saved_bundles_get_their_extension() {
        assert_eq!(with_extension(PathBuf::from("/a/b"), Some("json")), PathBuf::from("/a/b.json"));
        assert_eq!(with_extension(PathBuf::from("/a/b.JSON"), Some("json")), PathBuf::from("/a/b.JSON"));
        assert_eq!(with_extension(PathBuf::from("/a/b.ron"), Some("json")), PathBuf::from("/a/b.ron.json"));
        assert_eq!(with_extension(PathBuf::from("/a/b"), None), PathBuf::from("/a/b"));
    }

    #[test]
    fn typed_paths_are_checked_before_they_are_used() {
        let dir = std::env::temp_dir();
        assert!(typed_path_problem(Path::new("relative"), true).is_some());
        assert!(typed_path_problem(&dir.join("actforge-new-folder"), true).is_none());
        assert!(typed_path_problem(&dir, false).is_some(), "a folder is not a file");
        assert!(typed_path_problem(&dir.join("bundle.json"), false).is_none());
    }
}
