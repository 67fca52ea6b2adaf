//! File-system side: finding skills, reading them safely, atomic writes, backups, and the
//! project root that holds `.skillmod/`.

pub mod atomic;
pub mod backup;
pub mod discover;
pub mod limited;
pub mod read;
pub mod targets;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Name of the folder skillmod keeps its state in (backups, cache) at the project root.
pub(crate) const STATE_DIR: &str = ".skillmod";

/// The project root: the nearest folder at or above `start` holding `.git`, else `start`.
pub(crate) fn project_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|dir| dir.join(".git").exists())
        .unwrap_or(start)
        .to_path_buf()
}

/// `path` made absolute and canonical (symlinks and `..` resolved) where it exists, to compare
/// with git's paths and the exclude folder; made absolute only when it cannot be resolved.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// The project root of one file, where its backups go and whose git work tree guards it: the
/// nearest folder above the file holding `.git`; outside git, the working folder `base` when the
/// file lies under it, else the file's own folder.
pub fn file_root(path: &Path, base: &Path) -> PathBuf {
    Roots::new(base).root(path)
}

/// `file_root` for many files: each folder is looked at once, however many files lie under it.
pub(crate) struct Roots<'a> {
    base: &'a Path,
    /// Folder -> the nearest folder at or above it holding `.git`.
    repository_of: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl<'a> Roots<'a> {
    pub fn new(base: &'a Path) -> Roots<'a> {
        Roots {
            base,
            repository_of: std::collections::HashMap::new(),
        }
    }

    pub fn root(&mut self, path: &Path) -> PathBuf {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let folder = absolute.parent().unwrap_or(&absolute);
        if let Some(repo) = self.repository(folder) {
            return repo;
        }
        if absolute.starts_with(self.base) {
            self.base.to_path_buf()
        } else {
            folder.to_path_buf()
        }
    }

    fn repository(&mut self, folder: &Path) -> Option<PathBuf> {
        if let Some(known) = self.repository_of.get(folder) {
            return known.clone();
        }
        let found = if folder.join(".git").exists() {
            Some(folder.to_path_buf())
        } else {
            folder.parent().and_then(|parent| self.repository(parent))
        };
        self.repository_of
            .insert(folder.to_path_buf(), found.clone());
        found
    }
}

/// Make sure the state folder `state` (`.skillmod/`) ignores itself for git.
pub(crate) fn ensure_state_ignored(state: &Path) {
    let ignore = state.join(".gitignore");
    // Read as untrusted state: a FIFO or a link committed in its place is replaced, not read.
    let complete = limited::read(&ignore, 4096, false).is_ok_and(|b| b.ends_with(b"*\n"));
    if !complete {
        // Atomic, so a full disk never leaves an empty .gitignore behind.
        let _ = atomic::write_atomic(
            &ignore,
            b"# skillmod state: backups and cache, never committed\n*\n",
            0o644,
        );
    }
}

/// Whether `path` is a folder itself, not a symlink to one (state folders a repository could
/// point elsewhere).
pub(crate) fn is_plain_folder(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink())
}

/// Lowercase hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `path` relative to `base` when it lies under it, for reports and diffs.
pub(crate) fn display_path(path: &Path, base: &Path) -> String {
    let shown = path.strip_prefix(base).unwrap_or(path);
    let clean: PathBuf = shown
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    clean.to_string_lossy().replace('\\', "/")
}

/// The folder reports are relative to.
pub fn working_dir() -> crate::error::Result<PathBuf> {
    std::env::current_dir().map_err(|e| {
        crate::error::Error::new("IO_ERROR", format!("cannot read the working folder: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_gets_its_nearest_repository_or_the_working_folder() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = tmp.path();
        for dir in [
            "outer/.git",
            "outer/inner/.git",
            "outer/a",
            "outer/inner/b/c",
            "plain/d",
        ] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        let base = root.join("plain");
        let mut roots = Roots::new(&base);
        let cases = [
            ("outer/a/execute.sh", root.join("outer")),
            ("outer/inner/b/c/execute.sh", root.join("outer/inner")),
            ("outer/inner/b/execute.sh", root.join("outer/inner")),
            ("outer/execute.sh", root.join("outer")),
            ("plain/d/execute.sh", base.clone()),
        ];
        for (file, expected) in &cases {
            assert_eq!(&roots.root(&root.join(file)), expected, "{file}");
            assert_eq!(&file_root(&root.join(file), &base), expected, "{file}");
        }
        // Outside git and outside the working folder: the file's own folder.
        let elsewhere = tempfile::tempdir().expect("tmp");
        let lone = elsewhere.path().join("execute.sh");
        assert_eq!(roots.root(&lone), elsewhere.path());
    }
}
