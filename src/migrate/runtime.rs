//! Capture mode's runtime file: where it lies for a script (the project root: the git work tree's
//! top, else the working folder), and writing it once per project after the scripts — created or
//! upgraded atomically, with a backup `restore` undoes, shown as a diff in a dry run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::{Change, ErrorEntry, Options};
use crate::fsio::backup::Backups;
use crate::fsio::{self, atomic, display_path, limited, sha256_hex};
use crate::rewrite::capture::{self, RUNTIME_VERSION, Runtime};

/// Runtime files larger than this are not ours.
const SIZE_LIMIT: u64 = 1 << 20;

/// A script's need for a runtime file: where, and with what text.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: PathBuf,
    pub runtime: Arc<Runtime>,
}

/// Where the runtime for `script` lies, and its path relative to the script's real folder (the
/// source line resolves `$(dirname -- "$0")/…` through symlinked folders the way the kernel
/// does, from the folder the script really is in).
pub fn location(script: &Path, base: &Path, file_name: &str) -> (PathBuf, String) {
    let real = fsio::canonical(script);
    let folder = real.parent().unwrap_or(&real).to_path_buf();
    let root = fsio::file_root(&real, &fsio::canonical(base));
    let depth = folder
        .strip_prefix(&root)
        .map_or(0, |p| p.components().count());
    (root.join(file_name), "../".repeat(depth) + file_name)
}

/// The runtime file a migrated script's source line names, resolved from the script's folder.
pub(crate) fn named_by(script: &Path, relative: &str) -> PathBuf {
    let real = fsio::canonical(script);
    let mut path = real.parent().unwrap_or(&real).to_path_buf();
    for part in relative.split('/') {
        match part {
            ".." => {
                path.pop();
            }
            "." | "" => {}
            name => path.push(name),
        }
    }
    path
}

/// What happened to one runtime file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RuntimeStatus {
    Created,
    Upgraded,
    WouldCreate,
    WouldUpgrade,
    UpToDate,
    /// Edited by hand or newer than this skillmod: left as it is (see the note).
    Kept,
    Failed,
}

/// The report of one runtime file (`runtime_files[]` in `--format json`).
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeReport {
    pub path: String,
    pub status: RuntimeStatus,
    /// The version the file declared before, if it existed.
    pub version_before: Option<u32>,
    pub version: u32,
    pub backup: Option<String>,
    pub errors: Vec<ErrorEntry>,
    #[serde(skip)]
    pub abs_path: PathBuf,
}

impl RuntimeReport {
    /// Whether this run wrote the file (so it belongs in `--commit`).
    pub fn written(&self) -> bool {
        matches!(
            self.status,
            RuntimeStatus::Created | RuntimeStatus::Upgraded
        )
    }
}

/// What the state of a runtime file on disk is, for `check` and `migrate` alike.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Missing,
    /// Declares an older version (0 when it declares none it can read).
    Older(u32),
    Current,
    Newer(u32),
}

/// The state of the runtime file at `path` (read without following a symlink).
pub fn state(path: &Path) -> State {
    match limited::read(path, SIZE_LIMIT, false) {
        Err(_) => State::Missing,
        Ok(bytes) => match capture::version_of(&bytes) {
            Some(v) if v == RUNTIME_VERSION => State::Current,
            Some(v) if v > RUNTIME_VERSION => State::Newer(v),
            Some(v) => State::Older(v),
            None => State::Older(0),
        },
    }
}

/// `state` remembered per runtime file for one run: every script of a project sources the same
/// file, so it is read once, not once per script.
#[derive(Debug, Default)]
pub struct States(std::sync::Mutex<std::collections::HashMap<PathBuf, State>>);

impl States {
    pub fn state(&self, path: &Path) -> State {
        if let Some(known) = self.0.lock().ok().and_then(|m| m.get(path).cloned()) {
            return known;
        }
        let found = state(path);
        if let Ok(mut known) = self.0.lock() {
            known.insert(path.to_path_buf(), found.clone());
        }
        found
    }
}

/// Write every runtime file requested (once per path): returns the reports and, in a dry run,
/// each change for the diff.
pub fn write_all(
    requests: Vec<Request>,
    options: &Options,
    backups: &Backups,
) -> Vec<(RuntimeReport, Option<Change>)> {
    let mut by_path: Vec<Request> = Vec::new();
    let mut conflicts = Vec::new();
    for request in requests {
        match by_path.iter().find(|r| r.path == request.path) {
            Some(known) if known.runtime.text != request.runtime.text => {
                conflicts.push(request.path.clone())
            }
            Some(_) => {}
            None => by_path.push(request),
        }
    }
    by_path.sort_by(|a, b| a.path.cmp(&b.path));
    by_path
        .into_iter()
        .map(|request| {
            if conflicts.contains(&request.path) {
                let mut report = new_report(&request.path, options);
                report.status = RuntimeStatus::Failed;
                report.errors.push(ErrorEntry {
                    code: "RUNTIME_CONFLICT",
                    message: "scripts under this root need different runtimes (two templates with one file name); give the templates different names".into(),
                });
                return (report, None);
            }
            write_one(&request, options, backups)
        })
        .collect()
}

fn new_report(path: &Path, options: &Options) -> RuntimeReport {
    RuntimeReport {
        path: display_path(path, &options.base),
        status: RuntimeStatus::Failed,
        version_before: None,
        version: RUNTIME_VERSION,
        backup: None,
        errors: Vec::new(),
        abs_path: path.to_path_buf(),
    }
}

fn write_one(
    request: &Request,
    options: &Options,
    backups: &Backups,
) -> (RuntimeReport, Option<Change>) {
    let path = &request.path;
    let text = request.runtime.text.as_bytes();
    let mut report = new_report(path, options);
    let exists = std::fs::symlink_metadata(path).is_ok();
    let before = match limited::read(path, SIZE_LIMIT, false) {
        Ok(bytes) => Some(bytes),
        Err(_) if !exists => None,
        Err(refused) => {
            report.errors.push(ErrorEntry {
                code: "RUNTIME_UNSAFE",
                message: format!(
                    "{} {}; only a regular file is replaced. Remove it and run migrate again",
                    report.path,
                    refused.describe(SIZE_LIMIT)
                ),
            });
            return (report, None);
        }
    };
    report.version_before = before
        .as_deref()
        .map(|b| capture::version_of(b).unwrap_or(0));
    if before.as_deref() == Some(text) {
        report.status = RuntimeStatus::UpToDate;
        return (report, None);
    }
    if let Some(old) = report.version_before
        && old >= RUNTIME_VERSION
    {
        report.status = RuntimeStatus::Kept;
        report.errors.push(ErrorEntry {
            code: if old > RUNTIME_VERSION {
                "RUNTIME_NEWER"
            } else {
                "RUNTIME_EDITED"
            },
            message: format!(
                "declares runtime version {old} but differs from what this skillmod writes; left as it is (delete it and run migrate to write it afresh)"
            ),
        });
        return (report, None);
    }
    let old = before.clone().unwrap_or_default();
    let change = Change {
        before: old.clone(),
        after: text.to_vec(),
        edits: vec![(0..old.len(), text.len())],
    };
    if options.dry_run {
        report.status = if before.is_some() {
            RuntimeStatus::WouldUpgrade
        } else {
            RuntimeStatus::WouldCreate
        };
        return (report, Some(change));
    }
    if options.backup {
        let root = path.parent().unwrap_or(path);
        let saved = backups.save_new_or_old(
            root,
            path,
            before.as_deref(),
            0o644,
            &sha256_hex(&old),
            &sha256_hex(text),
        );
        match saved {
            Ok(backup) => report.backup = Some(display_path(&backup, &options.base)),
            Err(e) => {
                report.errors.push(e.into());
                return (report, None);
            }
        }
    }
    if let Err(e) = atomic::write_atomic(path, text, 0o644) {
        report.errors.push(e.into());
        return (report, None);
    }
    report.status = if before.is_some() {
        RuntimeStatus::Upgraded
    } else {
        RuntimeStatus::Created
    };
    (report, Some(change))
}
