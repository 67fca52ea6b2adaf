//! Git, through the `git` command (so the user's config and hooks apply): which files are dirty,
//! which changed since a revision or are staged, and committing exactly the migrated files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// A git work tree.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The work tree's top folder, canonical.
    pub root: PathBuf,
}

impl Repo {
    /// The work tree holding `dir`, or None outside git (or without a git binary).
    pub fn discover(dir: &Path) -> Option<Repo> {
        let out = Command::new("git")
            .args(["rev-parse", "--show-toplevel"])
            .current_dir(dir)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let top = String::from_utf8(out.stdout).ok()?;
        let root = std::fs::canonicalize(top.trim_end_matches(['\n', '\r'])).ok()?;
        Some(Repo { root })
    }

    fn git(&self, args: &[&str]) -> Result<Vec<u8>> {
        let out = Command::new("git")
            .args(args)
            .current_dir(&self.root)
            .output()
            .map_err(|e| Error::new("GIT_FAILED", format!("cannot run git: {e}")))?;
        if !out.status.success() {
            return Err(Error::new(
                "GIT_FAILED",
                format!(
                    "git {} failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            ));
        }
        Ok(out.stdout)
    }

    /// Absolute paths from NUL-separated, root-relative git output.
    fn paths(&self, output: &[u8]) -> HashSet<PathBuf> {
        output
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| self.root.join(String::from_utf8_lossy(p).as_ref()))
            .collect()
    }

    /// Whether git tracks any file at or under `path` (absolute).
    pub fn tracks_any_under(&self, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return false;
        };
        let spec = if relative.as_os_str().is_empty() {
            ".".to_string()
        } else {
            relative.to_string_lossy().into_owned()
        };
        self.git(&["ls-files", "-z", "--", &format!(":(literal){spec}")])
            .is_ok_and(|out| !out.is_empty())
    }

    /// Files with uncommitted changes: staged, unstaged or untracked.
    pub fn dirty(&self) -> Result<HashSet<PathBuf>> {
        let out = self.git(&["status", "--porcelain=v1", "-z", "--untracked-files=all"])?;
        // Entries are "XY path", renames are followed by the old path as a separate entry.
        let mut dirty = HashSet::new();
        let mut entries = out.split(|&b| b == 0).filter(|e| !e.is_empty());
        while let Some(entry) = entries.next() {
            if entry.len() < 4 {
                continue;
            }
            dirty.insert(
                self.root
                    .join(String::from_utf8_lossy(&entry[3..]).as_ref()),
            );
            if entry[0] == b'R' || entry[0] == b'C' {
                entries.next();
            }
        }
        Ok(dirty)
    }

    /// Files that differ between `rev` and the work tree. `rev` is resolved to a commit first
    /// (`rev-parse --verify --end-of-options`), so a value such as `--output=FILE` is a revision
    /// that does not exist, never an option.
    pub fn changed_since(&self, rev: &str) -> Result<HashSet<PathBuf>> {
        let invalid = |why: String| {
            Error::new(
                "INVALID_REVISION",
                format!("cannot list files changed since '{rev}': {why}"),
            )
        };
        let spec = format!("{rev}^{{commit}}");
        let resolved = self
            .git(&[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ])
            .map_err(|_| invalid("no such commit".to_string()))?;
        let hash = String::from_utf8_lossy(&resolved).trim().to_string();
        if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid("no such commit".to_string()));
        }
        let out = self
            .git(&["diff", "--name-only", "-z", "--no-renames", &hash, "--"])
            .map_err(|e| invalid(e.message))?;
        Ok(self.paths(&out))
    }

    /// Files with staged changes.
    pub fn staged(&self) -> Result<HashSet<PathBuf>> {
        Ok(self.paths(&self.git(&["diff", "--cached", "--name-only", "-z", "--no-renames"])?))
    }

    /// Commit exactly `files` (absolute paths) with `message`; other staged changes stay staged.
    /// Returns the new commit's full hash.
    pub fn commit_only(&self, files: &[PathBuf], message: &str, no_verify: bool) -> Result<String> {
        let mut args: Vec<String> = vec![
            "commit".into(),
            "--quiet".into(),
            "--only".into(),
            "-m".into(),
            message.into(),
        ];
        if no_verify {
            args.push("--no-verify".into());
        }
        args.push("--".into());
        for file in files {
            let rel = file.strip_prefix(&self.root).unwrap_or(file);
            args.push(rel.to_string_lossy().into_owned());
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        self.git(&refs)
            .map_err(|e| Error::new("COMMIT_FAILED", e.message))?;
        let head = self.git(&["rev-parse", "HEAD"])?;
        Ok(String::from_utf8_lossy(&head).trim().to_string())
    }
}
