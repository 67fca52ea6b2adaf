//! Writing capture mode's runtime file once per folder before the scripts that need it (where it
//! lies and what state it is in are `unit::runtime`'s): created or upgraded atomically, with a
//! backup `restore` undoes, shown as a diff in a dry run.

use crate::codes;
use crate::error::Error;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::{Change, Options};
use crate::fsio::backup::Backups;
use crate::fsio::{atomic, display_path, limited, sha256_hex};
use crate::rewrite::capture::{self, RUNTIME_VERSION, Runtime};
use crate::unit::runtime::{SIZE_LIMIT, State, named_by, state};

/// A script's need for a runtime file: where, and with what text.
#[derive(Debug, Clone)]
pub struct Request {
    pub path: PathBuf,
    pub runtime: Arc<Runtime>,
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
    /// 0.2.0's project-wide runtime, which no script sources any more: removed (with a backup).
    Removed,
    WouldRemove,
}

impl RuntimeStatus {
    /// What a report says of a file this run wrote, or would write in a dry run; None for every
    /// other fate.
    pub fn writes(self) -> Option<&'static str> {
        match self {
            RuntimeStatus::Created => Some("created"),
            RuntimeStatus::Upgraded => Some("upgraded"),
            RuntimeStatus::WouldCreate => Some("would be created"),
            RuntimeStatus::WouldUpgrade => Some("would be upgraded"),
            _ => None,
        }
    }
}

/// The report of one runtime file (`runtime_files[]` in `--format json`).
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeReport {
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
    pub path: String,
    pub status: RuntimeStatus,
    /// The version the file declared before, if it existed.
    pub version_before: Option<u32>,
    pub version: u32,
    #[serde(serialize_with = "crate::bytes_text::serde_path::maybe")]
    pub backup: Option<String>,
    pub errors: Vec<Error>,
    #[serde(skip)]
    pub abs_path: PathBuf,
    /// The hash of the runtime text asked for (scripts asking for another text clash).
    #[serde(skip)]
    pub text_sha256: String,
    /// The lines of the text written (or that would be).
    pub lines: usize,
    /// The path relative to its project root, as a dry run's diff names it.
    #[serde(skip)]
    pub diff_path: String,
    /// It lies in a git work tree (so a commit must take it).
    #[serde(skip)]
    pub in_work_tree: bool,
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

/// What one runtime file came to, and its change for a dry run's diff.
pub type Written = (RuntimeReport, Option<Change>);

/// Writes each runtime file once, before the first script that needs it: every script of a
/// skill asks, the first writes (and syncs) it, the others wait for that answer. A script whose
/// runtime could not be written is left unchanged.
#[derive(Debug, Default)]
pub struct Writer {
    files: std::sync::Mutex<std::collections::HashMap<PathBuf, Arc<std::sync::OnceLock<Written>>>>,
}

impl Writer {
    /// Write the runtime `request` names unless done already; Err with the reason when the
    /// script must not be rewritten.
    pub fn ensure(
        &self,
        request: &Request,
        options: &Options,
        backups: &Backups,
    ) -> std::result::Result<(), Error> {
        let cell = match self.files.lock() {
            Ok(mut files) => files.entry(request.path.clone()).or_default().clone(),
            Err(_) => {
                return Err(Error {
                    code: codes::INTERNAL_ERROR,
                    message: "runtime writer poisoned; please report this".into(),
                });
            }
        };
        let (report, _) = cell.get_or_init(|| write_one(request, options, backups));
        if report.text_sha256 != sha256_hex(request.runtime.text.as_bytes()) {
            return Err(Error {
                code: codes::RUNTIME_CONFLICT,
                message: format!(
                    "scripts of one skill need different runtimes in {} (two templates with one file name); give the templates different names",
                    report.path
                ),
            });
        }
        match report.status {
            RuntimeStatus::Failed | RuntimeStatus::Kept => Err(Error {
                code: report
                    .errors
                    .first()
                    .map_or(codes::RUNTIME_UNSAFE, |e| e.code),
                message: format!(
                    "left unchanged, since its runtime cannot be used: {}",
                    report
                        .errors
                        .first()
                        .map_or_else(|| report.path.clone(), |e| e.message.clone())
                ),
            }),
            _ => Ok(()),
        }
    }

    /// Every runtime file's report, in path order.
    pub fn finish(&self) -> Vec<Written> {
        let files = match self.files.lock() {
            Ok(mut files) => std::mem::take(&mut *files),
            Err(_) => return Vec::new(),
        };
        let mut written: Vec<Written> = files
            .into_values()
            .filter_map(|cell| Arc::try_unwrap(cell).ok()?.into_inner())
            .collect();
        written.sort_by(|a, b| a.0.abs_path.cmp(&b.0.abs_path));
        written
    }
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
        text_sha256: String::new(),
        lines: 0,
        diff_path: super::root_relative(path, &options.named),
        in_work_tree: false,
    }
}

fn write_one(request: &Request, options: &Options, backups: &Backups) -> Written {
    let path = &request.path;
    let text = request.runtime.text.as_bytes();
    let mut report = new_report(path, options);
    report.text_sha256 = sha256_hex(text);
    report.lines = text.iter().filter(|&&b| b == b'\n').count();
    let exists = std::fs::symlink_metadata(path).is_ok();
    let before = match limited::read(path, SIZE_LIMIT, false) {
        Ok(bytes) => Some(bytes),
        Err(_) if !exists => None,
        Err(refused) => {
            report.errors.push(Error {
                code: codes::RUNTIME_UNSAFE,
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
    let known = before
        .as_deref()
        .map(crate::analyze::runtime_link::known_version);
    if let Some(refusal) = refusal(&report, known, options) {
        report.status = RuntimeStatus::Kept;
        report.errors.push(refusal);
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
        let root = crate::fsio::file_root(path, &options.named);
        let saved = backups.save_new_or_old(
            &root,
            path,
            before.as_deref(),
            0o644,
            &sha256_hex(&old),
            &sha256_hex(text),
        );
        match saved {
            Ok(backup) => report.backup = Some(display_path(&backup, &options.base)),
            Err(e) => {
                report.errors.push(e);
                return (report, None);
            }
        }
    }
    // Synced and renamed into place before any script that sources it is written.
    if let Err(e) = atomic::write_atomic(path, text, 0o644) {
        report.errors.push(e);
        return (report, None);
    }
    report.status = if before.is_some() {
        RuntimeStatus::Upgraded
    } else {
        RuntimeStatus::Created
    };
    (report, Some(change))
}

/// Why an existing file is not replaced: it is not skillmod's (unless `--replace-runtime`), or
/// it is a runtime newer than this skillmod's. `known` is the version its bytes are known as.
fn refusal(report: &RuntimeReport, known: Option<Option<u32>>, options: &Options) -> Option<Error> {
    match known {
        Some(None) if !options.replace_runtime => Some(Error {
            code: codes::RUNTIME_FOREIGN,
            message: format!(
                "{} is not a runtime skillmod wrote (edited, planted or of an unknown version{}); no script is pointed at it. Read it, then pass --replace-runtime to replace it (with a backup)",
                report.path,
                report
                    .version_before
                    .filter(|v| *v > 0)
                    .map_or_else(String::new, |v| format!(", declaring version {v}"))
            ),
        }),
        Some(Some(old)) if old > RUNTIME_VERSION => Some(Error {
            code: codes::RUNTIME_NEWER,
            message: format!(
                "{} is runtime version {old}, newer than this skillmod's {RUNTIME_VERSION}; upgrade skillmod",
                report.path
            ),
        }),
        _ => None,
    }
}

/// Remove the runtime files scripts of this run stopped sourcing (0.2.0's project-wide file
/// after its scripts moved to per-skill runtimes), when they are skillmod's, byte for byte, and
/// no script under their project root still sources them; a backup lets restore bring them
/// back. In a dry run, only reported.
pub fn remove_orphans(
    report: &super::RunReport,
    options: &Options,
    backups: &Backups,
) -> Vec<Written> {
    let mut released: Vec<&PathBuf> = report.released.iter().collect();
    released.sort();
    released.dedup();
    let mut out = Vec::new();
    for path in released {
        if report.sourced.contains(path) || !matches!(state(path), State::Older(_) | State::Current)
        {
            continue;
        }
        let root = crate::fsio::file_root(path, &options.named);
        if still_sourced(path, &root, &report.sourced) {
            continue;
        }
        let mut entry = new_report(path, options);
        let Ok(bytes) = limited::read(path, SIZE_LIMIT, false) else {
            continue;
        };
        entry.version_before = capture::version_of(&bytes);
        let change = Change {
            before: bytes.clone(),
            after: Vec::new(),
            edits: vec![(0..bytes.len(), 0)],
        };
        if options.dry_run {
            entry.status = RuntimeStatus::WouldRemove;
            out.push((entry, Some(change)));
            continue;
        }
        if options.backup {
            match backups.save(
                &root,
                path,
                &bytes,
                0o644,
                &sha256_hex(&bytes),
                crate::fsio::backup::REMOVED,
            ) {
                Ok(backup) => entry.backup = Some(display_path(&backup, &options.base)),
                Err(e) => {
                    entry.errors.push(e);
                    out.push((entry, None));
                    continue;
                }
            }
        }
        match std::fs::remove_file(path) {
            Ok(()) => entry.status = RuntimeStatus::Removed,
            Err(e) => entry.errors.push(crate::error::Error::io(
                codes::WRITE_FAILED,
                "cannot remove",
                path,
                &e,
            )),
        }
        out.push((entry, Some(change)));
    }
    out
}

/// Whether a shell script under `root` (other than those of this run, which source `sourced`
/// now) still has a source line naming `runtime`.
fn still_sourced(
    runtime: &Path,
    root: &Path,
    sourced: &std::collections::HashSet<PathBuf>,
) -> bool {
    let needle = crate::analyze::runtime_link::FILE_STEM.as_bytes();
    ignore::WalkBuilder::new(root)
        .hidden(true)
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| e.path() != runtime && !sourced.contains(e.path()))
        .filter_map(|e| {
            let bytes = limited::read(e.path(), SIZE_LIMIT, false).ok()?;
            memchr::memmem::find(&bytes, needle)?;
            Some((e.path().to_path_buf(), bytes))
        })
        .any(|(file, bytes)| {
            matches!(
                crate::analyze::runtime_link::find(&bytes),
                Some(crate::analyze::runtime_link::RuntimeLine::Sourced { relative, .. })
                    if named_by(&file, &relative) == runtime
            )
        })
}
