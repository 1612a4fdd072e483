//! `actforge test`: a project's own playtests (`tests/*.play` in the project folder, or those
//! a bundle exported `--with-tests` carries), each run from the project's start with its seed,
//! in parallel; one line per test, its first failing line as `file:line: why`, then the totals.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use actforge_runtime::Project;
use actforge_runtime::diagnostic::has_errors;
use actforge_runtime::engine::Session;
use actforge_runtime::engine::script::{ScriptOptions, ScriptReport};
use actforge_runtime::project::bundle_tests;

use crate::{Exit, print_diagnostics};

/// The folder of a project's playtests.
pub const TESTS_FOLDER: &str = "tests";

/// How one playtest went.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestOutcome {
    /// The test's name: its file name without `.play`.
    pub name: String,
    /// The script file.
    pub file: PathBuf,
    /// How many `expect` lines held.
    pub expectations: usize,
    /// The first line that failed (1-based) and why (`in repetition 3 of 5: …` inside a
    /// `repeat` block); none when the test passed.
    pub failure: Option<(usize, String)>,
    /// What to know although the lines held: `expect sim` lines whose runs were capped.
    pub notes: Vec<String>,
}

impl TestOutcome {
    /// Whether every line held.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// The playtest files of the project folder `folder`, by name; none when it has no `tests/`.
pub fn project_tests(folder: &Path) -> std::io::Result<Vec<PathBuf>> {
    let dir = folder.join(TESTS_FOLDER);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|ext| ext == "play"))
        .collect();
    files.sort();
    Ok(files)
}

/// The name of a test file: its file name without `.play`.
pub fn test_name(file: &Path) -> String {
    file.file_stem().map_or_else(String::new, |stem| stem.to_string_lossy().into_owned())
}

/// A playtest to run: its name, the file it is shown as, and its text (or why it has none).
#[derive(Clone, Debug)]
pub struct TestScript {
    /// The test's name.
    pub name: String,
    /// Where it comes from, as failures name it.
    pub file: PathBuf,
    /// The script, or why it could not be read.
    pub text: Result<String, String>,
}

impl TestScript {
    /// The test in the file `file`.
    pub fn from_file(file: &Path) -> Self {
        let text = std::fs::read_to_string(file).map_err(|error| format!("cannot read the script: {error}"));
        Self { name: test_name(file), file: file.to_owned(), text }
    }
}

/// The playtests of `tests` (name → script) as carried by a bundle: each shown as
/// `tests/NAME.play`.
pub fn scripts_of(tests: &BTreeMap<String, String>) -> Vec<TestScript> {
    tests
        .iter()
        .map(|(name, text)| TestScript {
            name: name.clone(),
            file: Path::new(TESTS_FOLDER).join(format!("{name}.play")),
            text: Ok(text.clone()),
        })
        .collect()
}

/// Runs one playtest on a fresh session of `project` with `seed`.
pub fn run_test(project: &Project, seed: u64, script: &TestScript) -> TestOutcome {
    run_test_with(project, seed, script, &ScriptOptions::default())
}

/// Runs one playtest on a fresh session of `project` with `seed` and `options` (the cap of
/// `expect sim` runs).
pub fn run_test_with(project: &Project, seed: u64, script: &TestScript, options: &ScriptOptions) -> TestOutcome {
    let outcome = |expectations, failure, notes| TestOutcome {
        name: script.name.clone(),
        file: script.file.clone(),
        expectations,
        failure,
        notes,
    };
    let text = match &script.text {
        Ok(text) => text,
        Err(why) => return outcome(0, Some((0, why.clone())), Vec::new()),
    };
    // A script may ask for its own seed on its first line (`seed N`).
    let seed = actforge_runtime::engine::script::script_seed(text).unwrap_or(seed);
    let mut session = match Session::new(project.clone(), seed) {
        Ok(session) => session,
        Err(error) => return outcome(0, Some((0, format!("the project cannot be played: {error}"))), Vec::new()),
    };
    let mut report = ScriptReport::default();
    match session.run_script_with(text, options, &mut report) {
        Ok(()) => outcome(report.expectations, None, report.notes),
        Err(error) => outcome(0, Some((error.line, error.why())), report.notes),
    }
}

/// Runs `scripts` on `threads` threads (at least one) with `options`; the outcomes come back in
/// `scripts`' order.
pub fn run_tests(
    project: &Project,
    seed: u64,
    scripts: &[TestScript],
    threads: usize,
    options: &ScriptOptions,
) -> Vec<TestOutcome> {
    let next = AtomicUsize::new(0);
    let outcomes: Mutex<Vec<Option<TestOutcome>>> = Mutex::new(vec![None; scripts.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, scripts.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(script) = scripts.get(at) else { break };
                    let outcome = run_test_with(project, seed, script, options);
                    let mut outcomes = outcomes.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    if let Some(slot) = outcomes.get_mut(at) {
                        *slot = Some(outcome);
                    }
                }
            });
        }
    });
    outcomes.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner).into_iter().flatten().collect()
}

/// The playtests of a project folder (`tests/*.play`) as name → script text, for a bundle.
pub fn folder_tests(folder: &Path) -> std::io::Result<BTreeMap<String, String>> {
    project_tests(folder)?.into_iter().map(|file| Ok((test_name(&file), std::fs::read_to_string(&file)?))).collect()
}

/// The arguments of `actforge test`.
pub struct TestArgs {
    /// The project folder (or a bundle exported with its tests).
    pub project: PathBuf,
    /// Run only tests whose name contains this text.
    pub filter: Option<String>,
    /// Print JSON instead of lines.
    pub json: bool,
    /// Caps the runs of every `expect sim` line (`--max-sim-runs N`).
    pub max_sim_runs: Option<usize>,
    /// Runs even when item files did not load (`--allow-broken`).
    pub allow_broken: bool,
}

/// `actforge test`.
pub fn test(args: &TestArgs, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let loaded = match crate::open_whole(&args.project, args.allow_broken, err)? {
        Ok(loaded) => loaded,
        Err(exit) => return Ok(exit),
    };
    if has_errors(&loaded.diagnostics) {
        print_diagnostics(&loaded.diagnostics, false, err)?;
        writeln!(err, "error: the project cannot be played until these errors are fixed")?;
        return Ok(Exit::Failure);
    }
    // A folder's `tests/`, or what a bundle exported with its tests carries.
    let found = if args.project.is_dir() {
        project_tests(&args.project)
            .map(|files| files.iter().map(|file| TestScript::from_file(file)).collect::<Vec<_>>())
            .map_err(|error| format!("{}: {error}", args.project.join(TESTS_FOLDER).display()))
    } else {
        bundle_tests(&args.project).map(|tests| scripts_of(&tests)).map_err(|error| error.to_string())
    };
    let mut scripts = match found {
        Ok(scripts) => scripts,
        Err(message) => {
            writeln!(err, "error: {message}")?;
            return Ok(Exit::Failure);
        }
    };
    if let Some(filter) = &args.filter {
        scripts.retain(|script| script.name.contains(filter.as_str()));
    }
    let seed = loaded.project.manifest.settings.seed;
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let options = ScriptOptions { max_sim_runs: args.max_sim_runs, ..ScriptOptions::default() };
    let outcomes = run_tests(&loaded.project, seed, &scripts, threads, &options);
    let failed = outcomes.iter().filter(|outcome| !outcome.passed()).count();
    let shown = |file: &Path| file.strip_prefix(&args.project).unwrap_or(file).display().to_string();
    if args.json {
        let json = serde_json::json!({
            "project": args.project.display().to_string(),
            "seed": seed,
            "passed": outcomes.len() - failed,
            "failed": failed,
            "tests": outcomes.iter().map(|outcome| serde_json::json!({
                "name": outcome.name,
                "file": shown(&outcome.file),
                "passed": outcome.passed(),
                "expectations": outcome.expectations,
                "line": outcome.failure.as_ref().map(|(line, _)| *line),
                "message": outcome.failure.as_ref().map(|(_, message)| message.clone()),
                "notes": outcome.notes,
            })).collect::<Vec<_>>(),
        });
        writeln!(out, "{json:#}")?;
    } else {
        for outcome in &outcomes {
            match &outcome.failure {
                None => writeln!(out, "ok     {} ({} expectations)", outcome.name, outcome.expectations)?,
                Some((line, message)) => {
                    writeln!(out, "FAILED {}", outcome.name)?;
                    writeln!(out, "       {}:{line}: {message}", shown(&outcome.file))?;
                }
            }
            for note in &outcome.notes {
                writeln!(out, "       {}: {note}", shown(&outcome.file))?;
            }
        }
        if outcomes.is_empty() {
            let which = args.filter.as_ref().map(|filter| format!(" matching `{filter}`")).unwrap_or_default();
            let place = if args.project.is_dir() {
                args.project.join(TESTS_FOLDER).display().to_string()
            } else {
                format!("{} (export a bundle --with-tests to carry them)", args.project.display())
            };
            writeln!(out, "no tests{which} in {place}")?;
        }
        writeln!(out, "{} passed, {failed} failed", outcomes.len() - failed)?;
    }
    Ok(if failed == 0 { Exit::Success } else { Exit::Failure })
}
