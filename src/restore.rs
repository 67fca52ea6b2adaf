//! Restore: put back the originals of one backup run, or of every run since a given one, newest
//! first. Refuses to overwrite files edited since the migration unless forced, and never trusts
//! the manifest: unsafe entries are refused, forced or not.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::fsio::backup::{self, CheckedEntry};
use crate::fsio::{atomic, display_path, sha256_hex};
use crate::migrate::ErrorEntry;

/// The code of the answer "there is nothing to restore".
pub const NO_BACKUPS: &str = "NO_BACKUPS";

/// Each backup run, oldest first, with the number of files it holds and whether it is undone.
pub fn list(root: &Path, runs: &[String]) -> Vec<(String, usize, bool)> {
    runs.iter()
        .zip(run_states(root, runs))
        .map(|(run, (count, undone))| (run.clone(), count, undone))
        .collect()
}

/// Permission bits restore may set: setuid, setgid and sticky never come back from a manifest.
const MODE_MASK: u32 = 0o777;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Restored,
    Unchanged,
    Refused,
    Failed,
}

#[derive(Debug, Serialize)]
pub struct RestoredFile {
    pub run: String,
    pub path: String,
    pub status: Status,
    pub errors: Vec<ErrorEntry>,
}

#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// The runs restored, newest first.
    pub runs: Vec<String>,
    /// Older runs left as they are.
    pub older_runs: Vec<String>,
    pub files: Vec<RestoredFile>,
    pub warnings: Vec<String>,
}

impl Report {
    /// True when a file was refused or failed (exit status 1).
    pub fn has_problems(&self) -> bool {
        self.files
            .iter()
            .any(|f| matches!(f.status, Status::Refused | Status::Failed))
    }
}

/// What to restore.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// One run by id.
    pub run: Option<String>,
    /// Every run since this id, date or time.
    pub since: Option<String>,
    /// Restore files edited since the migration too.
    pub force: bool,
    /// Only files under these absolute paths (all when empty).
    pub filters: Vec<PathBuf>,
}

/// Restore the runs `request` names among `runs` (the project's, oldest first) under `root`;
/// paths in the report are relative to `base`.
/// Nothing to restore is an answer, not a failure: a report with no run and a `NO_BACKUPS`
/// warning.
pub fn restore(root: &Path, base: &Path, runs: &[String], request: &Request) -> Result<Report> {
    if runs.is_empty() && request.run.is_none() {
        let why = format!(
            "no backup runs under {}",
            root.join(crate::fsio::STATE_DIR).display()
        );
        return Ok(Report {
            warnings: vec![format!("{NO_BACKUPS}: {why}")],
            ..Report::default()
        });
    }
    let chosen = choose_runs(request, runs, root)?;
    if chosen.is_empty() {
        let why = format!(
            "every backup run under {} is undone already (each file is as it was before); `skillmod restore --list` shows them",
            root.join(crate::fsio::STATE_DIR).display()
        );
        return Ok(Report {
            warnings: vec![format!("{NO_BACKUPS}: {why}")],
            ..Report::default()
        });
    }
    let older_runs: Vec<String> = match chosen.last() {
        Some(oldest) => runs.iter().filter(|r| *r < oldest).cloned().collect(),
        None => Vec::new(),
    };
    let filters = &request.filters;
    let mut report = Report {
        runs: chosen.clone(),
        older_runs,
        files: Vec::new(),
        warnings: Vec::new(),
    };
    for run in &chosen {
        let first = report.files.len();
        let loaded = backup::load_run(root, run)?;
        report.warnings.extend(loaded.warnings);
        for (path, error) in loaded.refused {
            report.files.push(RestoredFile {
                run: run.clone(),
                path,
                status: Status::Refused,
                errors: vec![error.into()],
            });
        }
        // Scripts first, then the files the run created (runtime files): one of those stays
        // while a script of the run stays migrated (refused, failed, or not selected), since
        // that script still sources it.
        let (created, scripts): (Vec<&CheckedEntry>, Vec<&CheckedEntry>) =
            loaded.entries.iter().partition(|e| e.entry.created);
        // The scripts that stay migrated: not selected, or not restored.
        let mut kept: Vec<&Path> = scripts
            .iter()
            .filter(|e| !selected(&e.target, filters))
            .map(|e| e.target.as_path())
            .collect();
        for entry in scripts.into_iter().filter(|e| selected(&e.target, filters)) {
            let (status, error) = restore_one(entry, request.force);
            if matches!(status, Status::Refused | Status::Failed) {
                kept.push(&entry.target);
            }
            report.files.push(RestoredFile {
                run: run.clone(),
                path: display_path(&entry.target, base),
                status,
                errors: error.into_iter().map(ErrorEntry::from).collect(),
            });
        }
        for entry in created.into_iter().filter(|e| selected(&e.target, filters)) {
            let (status, error) = if kept.iter().any(|script| sources(script, &entry.target)) {
                (
                    Status::Refused,
                    Some(Error::new(
                        "RUNTIME_STILL_USED",
                        "left in place: a script of this run is still migrated and sources it; restore that script, then run restore again",
                    )),
                )
            } else {
                restore_one(entry, request.force)
            };
            report.files.push(RestoredFile {
                run: run.clone(),
                path: display_path(&entry.target, base),
                status,
                errors: error.into_iter().map(ErrorEntry::from).collect(),
            });
        }
        // Each run's files in path order, as every report prints them.
        report.files[first..].sort_by(|a, b| a.path.cmp(&b.path));
    }
    Ok(report)
}

/// The runs to restore, newest first: `--run ID`, every run since `--since`, or the latest.
fn choose_runs(request: &Request, runs: &[String], root: &Path) -> Result<Vec<String>> {
    let none = || {
        Error::new(
            "NO_BACKUPS",
            format!(
                "no backup runs under {}; nothing to restore",
                root.join(crate::fsio::STATE_DIR).display()
            ),
        )
    };
    if let Some(id) = &request.run {
        return Ok(vec![id.clone()]);
    }
    if let Some(since) = &request.since {
        let from = since_key(since)?;
        let mut chosen: Vec<String> = runs.iter().filter(|r| **r >= from).cloned().collect();
        chosen.reverse();
        if chosen.is_empty() {
            return Err(Error::new(
                "NO_BACKUPS",
                format!("no backup run since '{since}'; list runs with `skillmod restore --list`"),
            ));
        }
        return Ok(chosen);
    }
    // The latest run that is not undone already: restoring an undone run changes nothing.
    if runs.is_empty() {
        return Err(none());
    }
    Ok(runs
        .iter()
        .zip(run_states(root, runs))
        .rev()
        .find(|(_, (_, undone))| !undone)
        .map(|(r, _)| vec![r.clone()])
        .unwrap_or_default())
}

/// Each of `runs` (oldest first), loaded once: how many files it holds, and whether it is
/// undone: every file is as that run, or an older one, found it (a created file gone), so
/// nothing is written to mark a run undone: the files say so. Each file is read once.
pub fn run_states(root: &Path, runs: &[String]) -> Vec<(usize, bool)> {
    // Per path, the states runs found it in so far (None: absent, the run created it), and what
    // it holds now.
    let mut found: std::collections::HashMap<PathBuf, Vec<Option<String>>> = Default::default();
    let mut now: std::collections::HashMap<PathBuf, Option<String>> = Default::default();
    runs.iter()
        .map(|run| {
            let Ok(loaded) = backup::load_run(root, run) else {
                return (0, false);
            };
            let mut all = !loaded.entries.is_empty();
            for e in &loaded.entries {
                let before = (!e.entry.created).then(|| e.entry.sha256_before.clone());
                let states = found.entry(e.target.clone()).or_default();
                states.push(before);
                let current = now
                    .entry(e.target.clone())
                    .or_insert_with(|| current_hash(&e.target));
                all &= states.contains(current);
            }
            (loaded.entries.len() + loaded.refused.len(), all)
        })
        .collect()
}

/// The hash of what `path` holds now (None: nothing there), read without blocking and regular
/// files only: a FIFO put in a file's place is no state any run found.
fn current_hash(path: &Path) -> Option<String> {
    match std::fs::symlink_metadata(path) {
        Err(_) => None,
        Ok(_) => match crate::fsio::limited::read(path, 1 << 30, false) {
            Ok(bytes) => Some(sha256_hex(&bytes)),
            Err(_) => Some(String::new()),
        },
    }
}

/// What a run id must sort at or after for `--since`: the id itself, or a date or time turned
/// into the id format.
fn since_key(since: &str) -> Result<String> {
    if backup::is_run_id(since) {
        return Ok(since.to_string());
    }
    let time = chrono::NaiveDateTime::parse_from_str(since, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| chrono::NaiveDateTime::parse_from_str(since, "%Y-%m-%dT%H:%M"))
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(since, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(0, 0, 0).unwrap_or_default())
        })
        .map_err(|_| {
            Error::new(
                "INVALID_ARGUMENT",
                format!(
                    "--since takes a run id (like 20261121T223938.761Z) or a UTC date or time (2026-11-21, 2026-11-21T22:00), not '{since}'"
                ),
            )
        })?;
    Ok(time.format("%Y%m%dT%H%M%S").to_string())
}

fn selected(path: &Path, filters: &[PathBuf]) -> bool {
    filters.is_empty() || filters.iter().any(|f| path.starts_with(f))
}

fn restore_one(checked: &CheckedEntry, force: bool) -> (Status, Option<Error>) {
    let entry = &checked.entry;
    let target = &checked.target;
    let current = match std::fs::symlink_metadata(target) {
        Ok(meta) if !meta.is_file() => {
            return (
                Status::Refused,
                Some(Error::new(
                    "NOT_A_REGULAR_FILE",
                    "is now a symlink, FIFO, device or folder; restore writes only regular files",
                )),
            );
        }
        Ok(_) => std::fs::read(target).ok().map(|b| sha256_hex(&b)),
        Err(_) => None,
    };
    if entry.created {
        return remove_created(target, current.as_deref(), &entry.sha256_after, force);
    }
    match current.as_deref() {
        Some(sha) if sha == entry.sha256_before => return (Status::Unchanged, None),
        Some(sha) if sha == entry.sha256_after || force => {}
        None if force || entry.sha256_after == crate::fsio::backup::REMOVED => {}
        Some(_) => {
            return (
                Status::Refused,
                Some(Error::new(
                    "FILE_CHANGED_SINCE_MIGRATION",
                    "edited after the migration; restoring would lose those edits. Use --force to restore anyway",
                )),
            );
        }
        None => {
            return (
                Status::Refused,
                Some(Error::new(
                    "FILE_MISSING",
                    "the file no longer exists; use --force to recreate it from the backup",
                )),
            );
        }
    }
    let original = match std::fs::read(&checked.backup) {
        Ok(bytes) if sha256_hex(&bytes) == entry.sha256_before => bytes,
        Ok(_) => {
            return (
                Status::Failed,
                Some(Error::new(
                    "BACKUP_CORRUPT",
                    format!("{} changed while restoring", checked.backup.display()),
                )),
            );
        }
        Err(e) => {
            return (
                Status::Failed,
                Some(Error::io(
                    "BACKUP_UNREADABLE",
                    "cannot read the backup",
                    &checked.backup,
                    &e,
                )),
            );
        }
    };
    match atomic::write_atomic(target, &original, entry.mode & MODE_MASK) {
        Ok(()) => (Status::Restored, None),
        Err(e) => (Status::Failed, Some(e)),
    }
}

/// Undo the creation of a file (a runtime file the migration wrote): remove it, unless it was
/// edited since (then only with `--force`).
fn remove_created(
    target: &Path,
    current: Option<&str>,
    sha_after: &str,
    force: bool,
) -> (Status, Option<Error>) {
    match current {
        None => (Status::Unchanged, None),
        Some(sha) if sha != sha_after && !force => (
            Status::Refused,
            Some(Error::new(
                "FILE_CHANGED_SINCE_MIGRATION",
                "the migration created this file and it was edited since; removing it would lose those edits. Use --force to remove it anyway",
            )),
        ),
        Some(_) => match std::fs::remove_file(target) {
            Ok(()) => (Status::Restored, None),
            Err(e) => (
                Status::Failed,
                Some(Error::io("RESTORE_FAILED", "cannot remove", target, &e)),
            ),
        },
    }
}

/// Whether the script at `script` loads the runtime file `runtime` (its source line names it).
fn sources(script: &Path, runtime: &Path) -> bool {
    let Ok(bytes) = crate::fsio::limited::read(script, 1 << 20, false) else {
        return false;
    };
    match crate::analyze::runtime_link::find(&bytes) {
        Some(crate::analyze::runtime_link::RuntimeLine::Sourced { relative, .. }) => {
            crate::fsio::canonical(&crate::migrate::runtime::named_by(script, &relative))
                == crate::fsio::canonical(runtime)
        }
        _ => false,
    }
}
