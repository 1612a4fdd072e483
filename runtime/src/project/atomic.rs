//! Atomic file writes: a crash leaves either the old file or the new one, never half of one.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

/// The names of the temporary files a save writes beside its target.
const TEMP_PREFIX: &str = ".actforge-";
const TEMP_SUFFIX: &str = ".tmp";

/// The name of the hidden sibling folder an import or restore is written into before it is
/// renamed into place.
pub(crate) const STAGING_PREFIX: &str = ".actforge-import-";

/// How old a temporary file must be before it counts as left by a save that was killed (a
/// younger one may belong to a save under way in another process).
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// Removes the temporary files that saves killed half-way left in `folder`, and the staging
/// folders of killed imports (best effort: what cannot be removed stays, and nothing else is
/// touched).
pub fn remove_stale_temporaries(folder: &Path) {
    let Ok(entries) = fs::read_dir(folder) else { return };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let temp_file = name.starts_with(TEMP_PREFIX) && name.ends_with(TEMP_SUFFIX);
        let staging = name.starts_with(STAGING_PREFIX);
        if !(temp_file || staging) {
            continue;
        }
        // Not followed: a link with such a name is not ours to remove.
        let Ok(meta) = fs::symlink_metadata(entry.path()) else { continue };
        let stale =
            meta.modified().ok().and_then(|modified| modified.elapsed().ok()).is_some_and(|age| age >= STALE_AFTER);
        if !stale {
            continue;
        }
        if temp_file && meta.is_file() {
            let _ = fs::remove_file(entry.path());
        } else if staging && meta.is_dir() {
            let _ = fs::remove_dir_all(entry.path());
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder: write, fsync,
/// rename over the target, then fsync the folder so the rename itself is durable.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    fs::create_dir_all(folder)?;
    remove_stale_temporaries(folder);
    let mut builder = tempfile::Builder::new();
    builder.prefix(TEMP_PREFIX).suffix(TEMP_SUFFIX);
    // A new file gets the usual mode under the user's umask (0644 for most), not the private
    // 0600 of a temporary file; a replaced file keeps its own mode.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temp = builder.tempfile_in(folder)?;
    if let Ok(existing) = fs::metadata(path) {
        temp.as_file().set_permissions(existing.permissions())?;
    }
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|error| error.error)?;
    // Directory fsync is not supported everywhere (e.g. some network file systems); the
    // rename has happened either way, so a failure here is not an error.
    if let Ok(dir) = File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("a.ron");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = fs::read_dir(path.parent().unwrap()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, vec![std::ffi::OsString::from("a.ron")]);
    }

    /// Issue 27.8: saving kept every file private (0600); a replaced file keeps its mode and a
    /// new one gets the usual one under the umask.
    #[cfg(unix)]
    #[test]
    fn a_saved_file_keeps_its_permissions_and_a_new_one_is_not_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ron");
        write_atomic(&path, b"one").unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_ne!(mode & 0o044, 0, "readable by others under the usual umask: {mode:o}");
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o640);
    }

    #[test]
    fn temporaries_left_by_a_killed_save_are_removed_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".actforge-old.tmp");
        let fresh = dir.path().join(".actforge-new.tmp");
        let other = dir.path().join(".other.tmp");
        for file in [&stale, &fresh, &other] {
            fs::write(file, b"x").unwrap();
        }
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        File::options().write(true).open(&stale).unwrap().set_modified(old).unwrap();
        write_atomic(&dir.path().join("a.ron"), b"one").unwrap();
        assert!(!stale.exists());
        assert!(fresh.exists() && other.exists());
    }

    /// Issue 27.8: a killed import leaves its hidden staging folder beside the project; the next
    /// import into that folder removes it once stale, and keeps a fresh one (another import).
    #[test]
    fn staging_folders_left_by_a_killed_import_are_removed_and_fresh_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let stale = dir.path().join(".actforge-import-old");
        let fresh = dir.path().join(".actforge-import-new");
        for folder in [&stale, &fresh] {
            fs::create_dir_all(folder.join("acts")).unwrap();
            fs::write(folder.join("acts").join("a.ron"), b"x").unwrap();
        }
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        File::open(&stale).unwrap().set_modified(old).unwrap();
        crate::project::save_new_folder(&crate::model::Project::new("n"), &dir.path().join("imported")).unwrap();
        assert!(!stale.exists());
        assert!(fresh.join("acts").join("a.ron").exists());
        assert!(dir.path().join("imported").join("project.ron").exists());
    }
}
