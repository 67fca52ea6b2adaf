//! File-system side: finding skills, reading them safely, atomic writes, backups, and the
//! project root that holds `.skillmod/`.

pub mod atomic;
pub mod backup;
pub mod discover;
pub mod read;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Name of the folder skillmod keeps its state in (backups, cache) at the project root.
pub const STATE_DIR: &str = ".skillmod";

/// The project root: the nearest folder at or above `start` holding `.git`, else `start`.
pub fn project_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(start)
        .to_path_buf()
}

/// The project root of one file, where its backups go and whose git work tree guards it: the
/// nearest folder above the file holding `.git`; outside git, the working folder `base` when the
/// file lies under it, else the file's own folder.
pub fn file_root(path: &Path, base: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let folder = absolute.parent().unwrap_or(&absolute);
    if let Some(repo) = folder.ancestors().find(|dir| dir.join(".git").exists()) {
        return repo.to_path_buf();
    }
    if absolute.starts_with(base) {
        base.to_path_buf()
    } else {
        folder.to_path_buf()
    }
}

/// Make sure the state folder `state` (`.skillmod/`) ignores itself for git.
pub fn ensure_state_ignored(state: &Path) {
    let ignore = state.join(".gitignore");
    let complete = std::fs::read(&ignore).is_ok_and(|b| b.ends_with(b"*\n"));
    if !complete {
        // Atomic, so a full disk never leaves an empty .gitignore behind.
        let _ = atomic::write_atomic(
            &ignore,
            b"# skillmod state: backups and cache, never committed\n*\n",
            0o644,
        );
    }
}

/// Lowercase hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `path` relative to `base` when it lies under it, for reports and diffs.
pub fn display_path(path: &Path, base: &Path) -> String {
    let shown = path.strip_prefix(base).unwrap_or(path);
    let clean: PathBuf = shown
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    clean.to_string_lossy().replace('\\', "/")
}
