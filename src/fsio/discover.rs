//! Finding the scripts to work on: folders walked with the `ignore` crate (gitignore-aware, no
//! symlink following, never into `.git` or `.skillmod`), explicit files taken as given.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
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
    /// Take every file: no .gitignore/.ignore rules, for walks and explicit files alike.
    pub no_ignore: bool,
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
    let mut ignored = IgnoreCache::default();
    for file in &selection.files {
        if std::fs::symlink_metadata(file).is_err() {
            return Err(Error::new(
                "PATH_NOT_FOUND",
                format!("{} does not exist; pass an existing file", file.display()),
            ));
        }
        // Explicit names still obey the ignore rules (pre-commit passes files one by one).
        if selection.no_ignore || !ignored.is_ignored(file) {
            found.push(file.clone());
        }
    }
    for dir in &selection.dirs {
        if !dir.is_dir() {
            return Err(Error::new(
                "PATH_NOT_FOUND",
                format!("{} is not a folder; pass an existing folder", dir.display()),
            ));
        }
        found.extend(walk(dir, &names, selection.no_ignore)?);
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

/// The path an `ignore` walk error is about, if it names one.
fn error_path(error: &ignore::Error) -> Option<PathBuf> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errors) => errors.iter().find_map(error_path),
        _ => None,
    }
}

/// A walker with skillmod's rules: hidden folders included (skills live in `.claude/`), ignore
/// files honored unless `no_ignore`, symlinks not followed, `.git` and `.skillmod` never entered.
fn walker(dir: &Path, no_ignore: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(dir);
    builder
        .standard_filters(!no_ignore)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let name = entry.file_name();
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && (name == ".git" || name == STATE_DIR))
        });
    builder
}

/// Which explicit paths the ignore rules exclude: a path is ignored when it, or a folder above
/// it, does not come out of a one-level walk of its parent. Each folder is listed once.
#[derive(Default)]
struct IgnoreCache {
    listed: HashMap<PathBuf, HashSet<OsString>>,
}

impl IgnoreCache {
    fn is_ignored(&mut self, path: &Path) -> bool {
        let Ok(path) = std::path::absolute(path) else {
            return false;
        };
        let root = super::project_root(path.parent().unwrap_or(&path));
        let mut current = path.as_path();
        while let (Some(parent), Some(name)) = (current.parent(), current.file_name()) {
            let names = self
                .listed
                .entry(parent.to_path_buf())
                .or_insert_with(|| list_kept(parent));
            if !names.contains(name) {
                return true;
            }
            if parent == root {
                break;
            }
            current = parent;
        }
        false
    }
}

fn list_kept(dir: &Path) -> HashSet<OsString> {
    walker(dir, false)
        .max_depth(Some(1))
        .build()
        .flatten()
        .filter(|e| e.depth() == 1)
        .map(|e| e.file_name().to_os_string())
        .collect()
}

fn walk(dir: &Path, names: &GlobSet, no_ignore: bool) -> Result<Vec<PathBuf>> {
    let (tx, rx) = std::sync::mpsc::channel();
    walker(dir, no_ignore).build_parallel().run(|| {
        let tx = tx.clone();
        let names = names.clone();
        Box::new(move |entry| {
            match entry {
                Ok(entry) => {
                    let is_candidate = entry.file_type().is_some_and(|t| !t.is_dir());
                    if is_candidate && names.is_match(entry.file_name()) {
                        let _ = tx.send(entry.into_path());
                    }
                }
                // A folder or file the walk could not read is returned too: reading it then
                // fails with the reason, so it shows in the report and the exit status instead
                // of vanishing from the run.
                Err(error) => {
                    if let Some(path) = error_path(&error) {
                        let _ = tx.send(path);
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    drop(tx);
    Ok(rx.into_iter().collect())
}
