//! Finding the scripts to work on: folders walked with the `ignore` crate (gitignore-aware, no
//! symlink following, never into `.git` or `.skillmod`), explicit files taken as given.

use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;

use super::STATE_DIR;
use crate::error::{Error, Result};

/// The default script name inside a skill folder.
pub const DEFAULT_NAME: &str = "execute.sh";

/// What to look at, as given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Folders to walk for `execute.sh` (and `include` matches).
    pub dirs: Vec<PathBuf>,
    /// Files taken whatever their name.
    pub files: Vec<PathBuf>,
    /// Extra file-name globs for folder walks, e.g. `*.sh`.
    pub include: Vec<String>,
}

impl Selection {
    /// Sort positional paths into folders and files; a missing path is a usage error.
    pub fn add_positional(&mut self, paths: &[PathBuf]) -> Result<()> {
        for path in paths {
            let meta = std::fs::symlink_metadata(path).map_err(|_| {
                Error::new(
                    "PATH_NOT_FOUND",
                    format!(
                        "{} does not exist; pass an existing file or folder",
                        path.display()
                    ),
                )
            })?;
            if meta.is_dir() {
                self.dirs.push(path.clone());
            } else {
                self.files.push(path.clone());
            }
        }
        Ok(())
    }
}

/// Every candidate script, sorted by path and without duplicates. Symlinks are returned too
/// (the caller reports them as skipped); folders are walked in parallel.
pub fn discover(selection: &Selection) -> Result<Vec<PathBuf>> {
    let names = name_matcher(&selection.include)?;
    let mut found = Vec::new();
    for file in &selection.files {
        if std::fs::symlink_metadata(file).is_err() {
            return Err(Error::new(
                "PATH_NOT_FOUND",
                format!("{} does not exist; pass an existing file", file.display()),
            ));
        }
        found.push(file.clone());
    }
    for dir in &selection.dirs {
        if !dir.is_dir() {
            return Err(Error::new(
                "PATH_NOT_FOUND",
                format!("{} is not a folder; pass an existing folder", dir.display()),
            ));
        }
        found.extend(walk(dir, &names)?);
    }
    found.sort();
    found.dedup();
    Ok(found)
}

fn name_matcher(include: &[String]) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for pattern in std::iter::once(DEFAULT_NAME).chain(include.iter().map(String::as_str)) {
        let glob = Glob::new(pattern).map_err(|e| {
            Error::new(
                "INVALID_GLOB",
                format!("--include '{pattern}' is not a valid glob: {e}"),
            )
        })?;
        builder.add(glob);
    }
    builder
        .build()
        .map_err(|e| Error::new("INVALID_GLOB", format!("cannot build --include globs: {e}")))
}

fn walk(dir: &Path, names: &GlobSet) -> Result<Vec<PathBuf>> {
    let (tx, rx) = std::sync::mpsc::channel();
    WalkBuilder::new(dir)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let name = entry.file_name();
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && (name == ".git" || name == STATE_DIR))
        })
        .build_parallel()
        .run(|| {
            let tx = tx.clone();
            let names = names.clone();
            Box::new(move |entry| {
                if let Ok(entry) = entry {
                    let is_candidate = entry.file_type().is_some_and(|t| !t.is_dir());
                    if is_candidate && names.is_match(entry.file_name()) {
                        let _ = tx.send(entry.into_path());
                    }
                }
                ignore::WalkState::Continue
            })
        });
    drop(tx);
    Ok(rx.into_iter().collect())
}
