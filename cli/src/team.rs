//! `actforge merge` (the git merge driver) and `actforge diff`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use actforge_runtime::project::diff::{diff_projects, render_changes};
use actforge_runtime::project::merge::{FileRole, merge_file};
use actforge_runtime::project::{open_project, write_atomic};
use serde_json::Value;

use crate::Exit;

/// Merges BASE, OURS and THEIRS of one project file into `output` by field: exit 0 on a clean
/// merge, 1 when conflicts were written (git then marks the file conflicted), 2 on an error.
pub fn merge(
    base: &Path,
    ours: &Path,
    theirs: &Path,
    output: Option<&Path>,
    path: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> std::io::Result<Exit> {
    let read = |file: &Path| std::fs::read_to_string(file).map_err(|error| format!("{}: {error}", file.display()));
    // Git passes an empty ancestor when both sides added the file.
    let base_text = read(base).unwrap_or_default();
    let (ours_text, theirs_text) = match (read(ours), read(theirs)) {
        (Ok(ours), Ok(theirs)) => (ours, theirs),
        (Err(error), _) | (_, Err(error)) => {
            writeln!(err, "error: {error}")?;
            return Ok(Exit::Failure);
        }
    };
    let output = output.unwrap_or(ours);
    let shown = path.unwrap_or(ours);
    let role = FileRole::of(shown);
    let merged = role.map(|role| merge_file(role, Some(&base_text), &ours_text, &theirs_text));
    let (text, conflicts) = match merged {
        Some(Ok(merged)) => {
            let fields: Vec<String> = merged.conflicts.iter().map(|conflict| conflict.field.clone()).collect();
            (merged.text, fields)
        }
        Some(Err(error)) => {
            writeln!(err, "{}: cannot merge by field ({error}); merging the lines instead", shown.display())?;
            text_merge(&base_text, &ours_text, &theirs_text)
        }
        None => text_merge(&base_text, &ours_text, &theirs_text),
    };
    if let Err(error) = write_atomic(output, text.as_bytes()) {
        writeln!(err, "error: {}: {error}", output.display())?;
        return Ok(Exit::Failure);
    }
    if conflicts.is_empty() {
        writeln!(out, "merged {}", shown.display())?;
        Ok(Exit::Success)
    } else {
        writeln!(
            out,
            "CONFLICT {}: {} changed on both sides: {}",
            shown.display(),
            if conflicts.len() == 1 { "one field was".to_owned() } else { format!("{} fields were", conflicts.len()) },
            conflicts.join(", ")
        )?;
        Ok(Exit::Failure)
    }
}

/// A line-by-line three-way merge for files that are not items: both sides' changes applied;
/// where they overlap, git-style conflict markers.
fn text_merge(base: &str, ours: &str, theirs: &str) -> (String, Vec<String>) {
    if ours == theirs || base == theirs {
        return (ours.to_owned(), Vec::new());
    }
    if base == ours {
        return (theirs.to_owned(), Vec::new());
    }
    let lines = |text: &str| -> Vec<Value> { text.lines().map(|line| Value::String(line.to_owned())).collect() };
    if let Some(merged) = actforge_runtime::project::merge::merge_sequences(&lines(base), &lines(ours), &lines(theirs))
    {
        let mut text: String = merged.iter().filter_map(Value::as_str).flat_map(|line| [line, "\n"]).collect();
        if !ours.ends_with('\n') {
            text.pop();
        }
        return (text, Vec::new());
    }
    let text = format!("<<<<<<< ours\n{ours}{}=======\n{theirs}{}>>>>>>> theirs\n", newline(ours), newline(theirs));
    (text, vec!["the whole file".to_owned()])
}

fn newline(text: &str) -> &'static str {
    if text.ends_with('\n') || text.is_empty() { "" } else { "\n" }
}

/// Prints how project B differs from project A (folders, bundles or `REV:PATH` git revisions).
pub fn diff(a: &str, b: &str, json: bool, out: &mut dyn Write, err: &mut dyn Write) -> std::io::Result<Exit> {
    let mut folders = Vec::new();
    let mut projects = Vec::new();
    for side in [a, b] {
        let path = match resolve_side(side) {
            Ok((path, folder)) => {
                folders.extend(folder);
                path
            }
            Err(error) => {
                writeln!(err, "error: {side}: {error}")?;
                return Ok(Exit::Failure);
            }
        };
        match open_project(&path) {
            Ok(loaded) => projects.push(loaded.project),
            Err(error) => {
                writeln!(err, "error: {side}: {error}")?;
                return Ok(Exit::Failure);
            }
        }
    }
    let [before, after] = <[_; 2]>::try_from(projects).map_err(|_| std::io::Error::other("two projects"))?;
    let changes = diff_projects(&before, &after);
    if json {
        writeln!(out, "{}", serde_json::to_string_pretty(&changes).map_err(std::io::Error::other)?)?;
    } else if changes.is_empty() {
        writeln!(out, "no differences")?;
    } else {
        write!(out, "{}", render_changes(&changes, 20))?;
    }
    Ok(Exit::Success)
}

/// A path as given, or `REV:PATH` checked out of git into a temporary folder (kept alive by
/// the returned guard).
fn resolve_side(side: &str) -> Result<(PathBuf, Option<tempfile::TempDir>), String> {
    let path = PathBuf::from(side);
    if path.exists() {
        return Ok((path, None));
    }
    let Some((revision, inside)) = side.split_once(':') else {
        return Err("no such file or folder (a git revision is written REV:PATH, e.g. HEAD~1:content/act-demo)".into());
    };
    let git = |args: &[&str]| -> Result<String, String> {
        let output = Command::new("git").args(args).output().map_err(|error| format!("cannot run git: {error}"))?;
        if !output.status.success() {
            return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
        }
        Ok(String::from_utf8_lossy(&output.stdout).trim_end_matches('\n').to_owned())
    };
    // Paths in the archive are from the top of the repository, whatever the current folder.
    let top = git(&["rev-parse", "--show-toplevel"])?;
    let prefix = git(&["rev-parse", "--show-prefix"])?;
    let inside = Path::new(&prefix).join(inside);
    let folder = tempfile::tempdir().map_err(|error| error.to_string())?;
    let pathspec = if inside.as_os_str().is_empty() { ".".to_owned() } else { inside.to_string_lossy().into_owned() };
    let archive = Command::new("git")
        .arg("-C")
        .arg(&top)
        .args(["archive", "--format=tar", revision, "--", &pathspec])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot run git: {error}"))?;
    let tar = Command::new("tar")
        .arg("-x")
        .arg("-C")
        .arg(folder.path())
        .stdin(archive.stdout.ok_or("git archive gave no output")?)
        .output()
        .map_err(|error| format!("cannot run tar: {error}"))?;
    if !tar.status.success() {
        return Err(format!(
            "git archive {revision} -- {pathspec} failed: {}",
            String::from_utf8_lossy(&tar.stderr).trim()
        ));
    }
    let root = folder.path().join(&inside);
    if !root.exists() {
        return Err(format!("{} is not in revision {revision}", inside.display()));
    }
    Ok((root, Some(folder)))
}
