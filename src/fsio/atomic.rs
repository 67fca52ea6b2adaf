//! Atomic writes: a temp file in the same folder (named `.skillmod-<pid>-<random>.tmp`, so a
//! later run can tell a dead run's leftovers from a live one's), synced, given the original's
//! mode and owner, then renamed over the file, and the folder synced: a reader sees the old file
//! or the new one, never half of either, and a power cut keeps one of them.

use crate::codes;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// What the file looked like when it was read: it is replaced only if it still does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Expected {
    pub len: u64,
    pub modified: Option<std::time::SystemTime>,
    pub sha256: String,
    /// Owner and group to keep (Unix).
    pub owner: Option<(u32, u32)>,
}

/// Replace `path` with `bytes`, keeping permission bits `mode`.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    write_atomic_with(path, mode, None, |out| out.write_all(bytes))
}

/// Replace `path` with `bytes` only if it is still as `expected` (size, mtime, hash) right
/// before the rename, keeping its mode, owner and group.
pub(crate) fn replace_checked(
    path: &Path,
    bytes: &[u8],
    mode: u32,
    expected: &Expected,
) -> Result<()> {
    write_atomic_with(path, mode, Some(expected), |out| out.write_all(bytes))
}

/// Like `write_atomic`, with the content produced by `write` into a buffered writer (nothing is
/// held whole in memory).
pub(crate) fn write_atomic_with(
    path: &Path,
    mode: u32,
    expected: Option<&Expected>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let temp = tempfile::Builder::new()
        .prefix(&format!("{TEMP_PREFIX}{}-", std::process::id()))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(|e| {
            Error::io(
                codes::WRITE_FAILED,
                "cannot create a temp file beside",
                path,
                &e,
            )
        })?;
    let mut out = std::io::BufWriter::new(temp);
    let failed = |e: &std::io::Error| {
        Error::io(codes::WRITE_FAILED, "cannot write a temp file for", path, e)
    };
    write(&mut out)
        .and_then(|_| out.flush())
        .map_err(|e| failed(&e))?;
    let temp = out.into_inner().map_err(|e| failed(e.error()))?;
    temp.as_file().sync_all().map_err(|e| failed(&e))?;
    if let Some((uid, gid)) = expected.and_then(|e| e.owner) {
        keep_owner(temp.path(), uid, gid).map_err(|e| {
            Error::new(codes::OWNER_NOT_KEPT,
                format!(
                    "{} belongs to user {uid} group {gid}, which this process cannot give the new file ({e}); nothing was written. Run as that user",
                    path.display()
                ),
            )
        })?;
    }
    set_mode(temp.path(), mode)
        .map_err(|e| Error::io(codes::WRITE_FAILED, "cannot set the mode of", path, &e))?;
    if let Some(expected) = expected {
        unchanged_since_read(path, expected)?;
    }
    temp.persist(path)
        .map_err(|e| Error::io(codes::WRITE_FAILED, "cannot replace", path, &e.error))?;
    super::backup::sync_dir(dir)
        .map_err(|e| Error::io(codes::WRITE_FAILED, "cannot sync the folder of", path, &e))?;
    Ok(())
}

/// The file is still what was read: same size, modification time and content.
fn unchanged_since_read(path: &Path, expected: &Expected) -> Result<()> {
    let changed = || {
        Error::new(
            codes::FILE_CHANGED_DURING_RUN,
            format!(
                "{} changed while skillmod was working on it; it was left as it is now. Run again",
                path.display()
            ),
        )
    };
    let meta = std::fs::symlink_metadata(path).map_err(|_| changed())?;
    if !meta.is_file() || meta.len() != expected.len || meta.modified().ok() != expected.modified {
        return Err(changed());
    }
    let now = std::fs::read(path).map_err(|_| changed())?;
    if super::sha256_hex(&now) != expected.sha256 {
        return Err(changed());
    }
    Ok(())
}

/// Temp files are named `.skillmod-<pid>-<random>.tmp`.
const TEMP_PREFIX: &str = ".skillmod-";
const TEMP_SUFFIX: &str = ".tmp";

/// Remove the temp files that runs killed before their rename left in `dirs` (only skillmod's
/// own names, `.skillmod-<pid>-<6 letters or digits>.tmp`, only those whose process is gone, and
/// never one `keep` names: a file git tracks is no leftover); returns the paths removed.
pub(crate) fn remove_stale_temps<'a>(
    dirs: impl IntoIterator<Item = &'a Path>,
    keep: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut removed = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                continue;
            };
            let Some(middle) = name
                .strip_prefix(TEMP_PREFIX)
                .and_then(|n| n.strip_suffix(TEMP_SUFFIX))
            else {
                continue;
            };
            // tempfile's random part: six letters or digits.
            let ours = |random: &str| {
                random.len() == 6 && random.bytes().all(|b| b.is_ascii_alphanumeric())
            };
            let pid = match middle.split_once('-') {
                Some((pid, random)) if ours(random) => Some(pid),
                Some(_) => continue,
                None => None,
            };
            if keep(&entry.path()) {
                continue;
            }
            let stale = match pid.and_then(|p| p.parse::<u32>().ok()) {
                Some(pid) => pid != std::process::id() && !process_alive(pid),
                // An older skillmod's name, without a pid: stale once it is an hour old.
                None => entry
                    .metadata()
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age.as_secs() > 3600),
            };
            let is_file = entry.file_type().is_ok_and(|t| t.is_file());
            if stale && is_file && std::fs::remove_file(entry.path()).is_ok() {
                removed.push(entry.path());
            }
        }
    }
    removed
}

/// Whether process `pid` runs; without /proc nothing can be told, so every process counts as
/// alive and nothing is removed.
fn process_alive(pid: u32) -> bool {
    !Path::new("/proc/self").exists() || Path::new(&format!("/proc/{pid}")).exists()
}

#[cfg(unix)]
fn keep_owner(path: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(path)?;
    if meta.uid() == uid && meta.gid() == gid {
        return Ok(());
    }
    std::os::unix::fs::chown(path, Some(uid), Some(gid))
}

#[cfg(not(unix))]
fn keep_owner(_path: &Path, _uid: u32, _gid: u32) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}
