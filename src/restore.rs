//! Restore: put back the originals of one backup run, or of every run since a given one, newest
//! first. Refuses to overwrite files edited since the migration unless forced, and never trusts
//! the manifest: unsafe entries are refused, forced or not. Only runs this user's migrate recorded
//! in its journal (`fsio::journal`) are picked; any other (tracked by git, dated in the future,
//! recorded nowhere) is restored only when named with `--run ID --trust`. Nothing under `.git/`
//! or `.skillmod/` is ever written, and a created file is removed only when it is a runtime file
//! holding the very bytes migrate wrote. Nothing marks a run undone: its files say so.

use crate::codes;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::fsio::backup::{self, CheckedEntry};
use crate::fsio::journal::Named;
use crate::fsio::{atomic, display_path, sha256_hex};

/// What `--list` says of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunState {
    /// One this user's migrate recorded, undone or not.
    Own { undone: bool },
    /// Not this user's own, and why (in a few words).
    Untrusted(&'static str),
}

/// Each backup run, oldest first, with the number of files it holds and its state. Whether a
/// run is undone is judged among this user's own runs only.
pub fn list(root: &Path, runs: &[String]) -> Vec<(String, usize, RunState)> {
    let verdicts = distrust(root, runs);
    let own: Vec<String> = runs
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.is_none())
        .map(|(r, _)| r.clone())
        .collect();
    let mut own_states = run_states(root, &own).into_iter();
    runs.iter()
        .zip(verdicts)
        .map(|(run, verdict)| match verdict {
            None => {
                let (count, undone) = own_states.next().unwrap_or_default();
                (run.clone(), count, RunState::Own { undone })
            }
            Some(untrusted) => {
                let count = run_states(root, std::slice::from_ref(run))
                    .first()
                    .map_or(0, |(count, _)| *count);
                (
                    run.clone(),
                    count,
                    RunState::Untrusted(untrusted.reason.words()),
                )
            }
        })
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
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
    pub path: String,
    pub status: Status,
    pub errors: Vec<Error>,
    /// A file the run created (a runtime file), gone after this restore: removed by it, or found
    /// gone already (git's index may still list it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
}

#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// The runs restored, newest first.
    pub runs: Vec<String>,
    /// Older runs left as they are.
    pub older_runs: Vec<String>,
    pub files: Vec<RestoredFile>,
    pub warnings: Vec<String>,
    /// Runs that are not this user's own (not picked, unless named with `--trust`), and why.
    pub untrusted_runs: Vec<Untrusted>,
    /// The project is a git work tree (removed runtime files stay in its index).
    #[serde(skip)]
    pub in_git: bool,
}

/// Why a backup run is not taken for this user's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Distrust {
    /// Git tracks a file in its folder: it came with the repository.
    Tracked,
    /// Its id is a time later than now.
    Future,
    /// The user's journal cannot be read (or lies where a repository could put it).
    JournalUnusable,
    /// The journal names no run of this project at all.
    NoJournal,
    /// The journal does not name it, and it is older than every run the journal names.
    PredatesJournal,
    /// The journal does not name it.
    NotRecorded,
    /// The journal names its id, but its manifest is another file than the one migrate created.
    Replaced,
}

impl Distrust {
    /// The reason in a few words, for `--list`.
    pub fn words(self) -> &'static str {
        match self {
            Distrust::Tracked => "tracked by git",
            Distrust::Future => "in the future",
            Distrust::JournalUnusable => "journal unusable",
            Distrust::NoJournal => "no run of this project in the journal",
            Distrust::PredatesJournal => "older than the journal",
            Distrust::NotRecorded => "not in the journal",
            Distrust::Replaced => "replaced since",
        }
    }
}

/// A run that is not this user's own.
#[derive(Debug, Clone, Serialize)]
pub struct Untrusted {
    pub run: String,
    pub reason: Distrust,
    /// The whole sentence: why, and how to restore it anyway.
    pub message: String,
}

/// For each of `runs`, why it is not this user's own (None: it is).
pub fn distrust(root: &Path, runs: &[String]) -> Vec<Option<Untrusted>> {
    let journal = crate::fsio::journal::load(root, |root, folder| {
        crate::vcs::Repo::discover(root).is_none_or(|repo| repo.tracks_any_under(folder))
    });
    let tracked = tracked_runs(root);
    let journal_path = journal
        .path
        .as_ref()
        .map_or_else(|| "the journal".to_string(), |p| p.display().to_string());
    runs.iter()
        .map(|run| {
            let (reason, why) = if tracked.as_ref().is_none_or(|t| t.contains(run)) {
                let why = match &tracked {
                    Some(_) => "git tracks files in its folder: it came with the repository".to_string(),
                    None => "git could not list what it tracks in the backups folder".to_string(),
                };
                (Distrust::Tracked, why)
            } else if backup::in_future(run) {
                (Distrust::Future, "it is dated in the future".to_string())
            } else if let Some(why) = &journal.unusable {
                (
                    Distrust::JournalUnusable,
                    format!("this user's journal of runs cannot be used: {why}"),
                )
            } else if let named @ (Named::Yes | Named::Replaced) =
                journal.names(run, backup::manifest_of(root, run).as_deref())
            {
                if named == Named::Yes {
                    return None;
                }
                (
                    Distrust::Replaced,
                    format!(
                        "{journal_path} names run {run}, but its manifest does not start with the lines that migrate sealed: another run was put in its place"
                    ),
                )
            } else if journal.is_empty() {
                (
                    Distrust::NoJournal,
                    format!(
                        "{journal_path} records no run of this project: it came with the files, another user made it, or a skillmod before 0.3.0 did, which kept no journal"
                    ),
                )
            } else if journal.predates(run) {
                (
                    Distrust::PredatesJournal,
                    format!(
                        "{journal_path} does not name it, and it is older than every run recorded there: a skillmod before 0.3.0 made it (it kept no journal), or another user did, or it came with the files"
                    ),
                )
            } else {
                (
                    Distrust::NotRecorded,
                    format!("{journal_path} does not name it"),
                )
            };
            Some(Untrusted {
                run: run.clone(),
                reason,
                message: format!(
                    "run {run} is not one this user's migrate recorded ({why}); if you trust it, restore it with `skillmod restore --run {run} --trust`"
                ),
            })
        })
        .collect()
}

/// The runs git tracks a file of (empty outside git); None when git could not tell.
fn tracked_runs(root: &Path) -> Option<std::collections::HashSet<String>> {
    let Ok(state) = backup::state_dir(root) else {
        return Some(Default::default());
    };
    let backups = crate::fsio::canonical(&state.join("backups"));
    let Some(repo) = crate::vcs::Repo::discover(root) else {
        return Some(Default::default());
    };
    if !backups.starts_with(&repo.root) {
        return Some(Default::default());
    }
    let files = repo.tracked_under(&backups).ok()?;
    Some(
        files
            .iter()
            .filter_map(|f| f.strip_prefix(&backups).ok()?.components().next())
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect(),
    )
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
    /// Restore the run `run` names even when it is not one this user's migrate recorded.
    pub trust: bool,
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
            warnings: vec![format!("{}: {why}", codes::NO_BACKUPS)],
            ..Report::default()
        });
    }
    // The run named with --run is judged too, listed or not.
    let mut all = runs.to_vec();
    if let Some(id) = &request.run
        && !all.contains(id)
        && backup::is_run_id(id)
    {
        all.push(id.clone());
    }
    let verdicts = distrust(root, &all);
    let own: Vec<String> = all
        .iter()
        .zip(&verdicts)
        .filter(|(_, v)| v.is_none())
        .map(|(r, _)| r.clone())
        .collect();
    let mut untrusted: Vec<Untrusted> = verdicts.into_iter().flatten().collect();
    // The run named with --run: when it is not this user's, only --trust restores it.
    let named = request.run.as_ref().and_then(|id| {
        let index = untrusted.iter().position(|u| u.run == *id)?;
        Some(untrusted.remove(index))
    });
    if let Some(named) = &named
        && !request.trust
    {
        return Err(Error::new(codes::RUN_NOT_RECORDED, named.message.clone()));
    }
    // A run undone already is never offered, chosen or counted: restoring it changes nothing,
    // or only undoes a later run.
    let undone: std::collections::HashSet<&String> = own
        .iter()
        .zip(run_states(root, &own))
        .filter(|(_, (_, undone))| *undone)
        .map(|(run, _)| run)
        .collect();
    let chosen = choose_runs(request, &own, &undone)?;
    if chosen.is_empty() {
        return Ok(nothing_chosen(root, request, own.is_empty(), untrusted));
    }
    let mut report = Report {
        runs: chosen.clone(),
        older_runs: Vec::new(),
        files: Vec::new(),
        warnings: Vec::new(),
        untrusted_runs: untrusted,
        in_git: crate::vcs::Repo::discover(root).is_some(),
    };
    // A run restored on the user's word (--trust) never removes a file git tracks.
    let guard = match &named {
        Some(named) => {
            report.warnings.push(format!(
                "run {} is restored on your word (--trust): {}",
                named.run, named.message
            ));
            Some(tracked_files(root))
        }
        None => None,
    };
    for run in &chosen {
        restore_run(&mut report, run, root, base, request, guard.as_ref())?;
    }
    // The older runs left to undo, as the files are now: one this restore undid too (its files
    // are back as it found them) is not offered.
    if let Some(oldest) = chosen.last() {
        let older: Vec<String> = own.iter().filter(|r| *r < oldest).cloned().collect();
        report.older_runs = older
            .iter()
            .zip(run_states(root, &older))
            .filter(|(_, (_, undone))| !undone)
            .map(|(run, _)| run.clone())
            .collect();
    }
    Ok(report)
}

/// The files git's index holds with content (absolute, canonical); an intent-to-add entry (a
/// runtime file migrate created) is not one.
fn tracked_files(root: &Path) -> std::collections::HashSet<PathBuf> {
    crate::vcs::Repo::discover(root)
        .and_then(|repo| repo.indexed().ok())
        .unwrap_or_default()
}

/// The runs to restore, newest first: `--run ID`, every run since `--since`, or the latest;
/// `runs` are this user's own, and none of them `undone` is chosen (an `--run` of another
/// user's run, restored on the user's word, is not judged).
fn choose_runs(
    request: &Request,
    runs: &[String],
    undone: &std::collections::HashSet<&String>,
) -> Result<Vec<String>> {
    if let Some(id) = &request.run {
        return Ok(if undone.contains(id) {
            Vec::new()
        } else {
            vec![id.clone()]
        });
    }
    if let Some(since) = &request.since {
        let from = since_key(since)?;
        let since_then: Vec<&String> = runs.iter().filter(|r| **r >= from).collect();
        if since_then.is_empty() {
            return Err(Error::new(
                codes::NO_BACKUPS,
                format!(
                    "no backup run since '{since}' that this user's migrate recorded; list runs with `skillmod restore --list`"
                ),
            ));
        }
        return Ok(since_then
            .into_iter()
            .rev()
            .filter(|r| !undone.contains(r))
            .cloned()
            .collect());
    }
    // The latest run that is not undone already.
    Ok(runs
        .iter()
        .rev()
        .find(|r| !undone.contains(r))
        .map(|r| vec![r.clone()])
        .unwrap_or_default())
}

/// A file of a backup run, and the state the run found it in (its hash; None: absent, the run
/// created it).
type RunFile = (PathBuf, Option<String>);

/// Each of `runs` (oldest first), loaded once: how many files it holds, and whether it is
/// undone. A run is undone when each of its files is as that run, or an older one, found it (a
/// created file gone), or a later run found it so: then the run was undone (or reverted by hand)
/// before that later run migrated the file again, and restoring it would only undo the later one.
/// Nothing is written to mark a run undone: the files say so. Each file is read once.
pub fn run_states(root: &Path, runs: &[String]) -> Vec<(usize, bool)> {
    // Each run's files, with the state it found each in (None: absent, the run created it).
    let loaded: Vec<Option<(usize, Vec<RunFile>)>> = runs
        .iter()
        .map(|run| {
            let loaded = backup::load_run(root, run).ok()?;
            let files = loaded
                .entries
                .iter()
                .map(|e| {
                    let before = (!e.entry.created).then(|| e.entry.sha256_before.clone());
                    (e.target.clone(), before)
                })
                .collect();
            Some((loaded.entries.len() + loaded.refused.len(), files))
        })
        .collect();
    // Per path, the state each run found it in, in run order, and what it holds now.
    let mut found: std::collections::HashMap<&Path, Vec<(usize, &Option<String>)>> =
        Default::default();
    for (index, files) in loaded.iter().enumerate() {
        for (path, before) in files.iter().flat_map(|(_, files)| files) {
            found.entry(path).or_default().push((index, before));
        }
    }
    let mut now: std::collections::HashMap<&Path, Option<String>> = Default::default();
    loaded
        .iter()
        .enumerate()
        .map(|(index, files)| {
            let Some((count, files)) = files else {
                return (0, false);
            };
            let undone = !files.is_empty()
                && files.iter().all(|(path, _)| {
                    let states = found.get(path.as_path()).map_or(&[][..], Vec::as_slice);
                    let (earlier, later) =
                        states.split_at(states.partition_point(|(i, _)| *i <= index));
                    let earlier: Vec<&Option<String>> = earlier.iter().map(|(_, s)| *s).collect();
                    let current = now
                        .entry(path.as_path())
                        .or_insert_with(|| current_hash(path));
                    earlier.contains(&&*current) || later.iter().any(|(_, s)| earlier.contains(s))
                });
            (*count, undone)
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
            Error::new(codes::INVALID_ARGUMENT,
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

/// Restore one checked entry. `guard`, for a run restored on the user's word (`--trust`): the
/// files git tracks, which such a run never removes.
fn restore_one(
    checked: &CheckedEntry,
    force: bool,
    guard: Option<&std::collections::HashSet<PathBuf>>,
) -> (Status, Option<Error>) {
    let entry = &checked.entry;
    let target = &checked.target;
    let bytes = match std::fs::symlink_metadata(target) {
        Ok(meta) if !meta.is_file() => {
            return (
                Status::Refused,
                Some(Error::new(
                    codes::NOT_A_REGULAR_FILE,
                    "is now a symlink, FIFO, device or folder; restore writes only regular files",
                )),
            );
        }
        Ok(_) => match std::fs::read(target) {
            Ok(bytes) => Some(bytes),
            Err(e) => {
                return (
                    Status::Failed,
                    Some(Error::io(codes::RESTORE_FAILED, "cannot read", target, &e)),
                );
            }
        },
        Err(_) => None,
    };
    let current = bytes.as_deref().map(sha256_hex);
    if entry.created {
        let tracked = guard.is_some_and(|files| files.contains(&crate::fsio::canonical(target)));
        return remove_created(target, bytes.as_deref(), &entry.sha256_after, tracked);
    }
    match current.as_deref() {
        Some(sha) if sha == entry.sha256_before => return (Status::Unchanged, None),
        Some(sha) if sha == entry.sha256_after || force => {}
        None if force || entry.sha256_after == crate::fsio::backup::REMOVED => {}
        Some(_) => {
            return (
                Status::Refused,
                Some(Error::new(
                    codes::FILE_CHANGED_SINCE_MIGRATION,
                    "edited after the migration; restoring would lose those edits. Use --force to restore anyway",
                )),
            );
        }
        None => {
            return (
                Status::Refused,
                Some(Error::new(
                    codes::FILE_MISSING,
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
                    codes::BACKUP_CORRUPT,
                    format!("{} changed while restoring", checked.backup.display()),
                )),
            );
        }
        Err(e) => {
            return (
                Status::Failed,
                Some(Error::io(
                    codes::BACKUP_UNREADABLE,
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

/// Undo the creation of a file (a runtime file the migration wrote): remove it, only when it is
/// a runtime file (its name and its first line say so) holding the very bytes migrate wrote, and
/// (`tracked`, for a run restored on the user's word) git does not track it. `--force` changes
/// none of this: restore never removes a file migrate did not write.
fn remove_created(
    target: &Path,
    current: Option<&[u8]>,
    sha_after: &str,
    tracked: bool,
) -> (Status, Option<Error>) {
    let Some(bytes) = current else {
        return (Status::Unchanged, None);
    };
    // A runtime file whose first line no longer says so was changed since migrate wrote it.
    if is_runtime_name(target) && crate::rewrite::capture::version_of(bytes).is_none() {
        return (
            Status::Refused,
            Some(Error::new(
                codes::FILE_CHANGED_SINCE_MIGRATION,
                "the migration created this runtime file and it was changed since (it no longer reads as a runtime); restore removes only the bytes migrate wrote, so it is left in place. Remove it yourself if you mean to",
            )),
        );
    }
    if !is_runtime_name(target) {
        return (
            Status::Refused,
            Some(Error::new(
                codes::CREATED_NOT_RUNTIME,
                "the run says migrate created this file, but migrate creates only runtime files (skillmod-runtime*.sh) and this is not one; left in place (the run may not be skillmod's own)",
            )),
        );
    }
    if sha256_hex(bytes) != sha_after {
        return (
            Status::Refused,
            Some(Error::new(
                codes::FILE_CHANGED_SINCE_MIGRATION,
                "the migration created this file and it was edited since; restore removes only the bytes migrate wrote, so it is left in place. Remove it yourself if you mean to",
            )),
        );
    }
    if tracked {
        return (
            Status::Refused,
            Some(Error::new(
                codes::CREATED_FILE_TRACKED,
                "git tracks this file, and a run restored with --trust never removes a tracked file; remove it yourself with `git rm` if you mean to",
            )),
        );
    }
    match std::fs::remove_file(target) {
        Ok(()) => (Status::Restored, None),
        Err(e) => (
            Status::Failed,
            Some(Error::io(
                codes::RESTORE_FAILED,
                "cannot remove",
                target,
                &e,
            )),
        ),
    }
}

/// Whether `path` is named as runtime files are: `skillmod-runtime.sh` or
/// `skillmod-runtime.NAME.sh`.
fn is_runtime_name(path: &Path) -> bool {
    use crate::analyze::runtime_link::FILE_STEM;
    path.file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix(FILE_STEM))
        .and_then(|rest| rest.strip_suffix(".sh"))
        .is_some_and(|middle| {
            middle.is_empty() || middle.strip_prefix('.').is_some_and(|m| !m.is_empty())
        })
}

/// Whether the script at `script` loads the runtime file `runtime` (its source line names it).
fn sources(script: &Path, runtime: &Path) -> bool {
    let Ok(bytes) = crate::fsio::limited::read(script, 1 << 20, false) else {
        return false;
    };
    match crate::analyze::runtime_link::find(&bytes) {
        Some(crate::analyze::runtime_link::RuntimeLine::Sourced { relative, .. }) => {
            crate::fsio::canonical(&crate::unit::runtime::named_by(script, &relative))
                == crate::fsio::canonical(runtime)
        }
        _ => false,
    }
}

/// The report when no run is chosen: why (none is this user's, or every one asked for is undone
/// already), with the runs that are not this user's.
fn nothing_chosen(
    root: &Path,
    request: &Request,
    none_own: bool,
    untrusted: Vec<Untrusted>,
) -> Report {
    // Where the runs are kept: `.skillmod`, or the user's state folder for an installed skill.
    let folder =
        crate::fsio::backup::state_dir(root).unwrap_or_else(|_| root.join(crate::fsio::STATE_DIR));
    let which = match (&request.run, &request.since) {
        (Some(id), _) => format!("run {id} is"),
        (None, Some(since)) => format!(
            "every backup run since '{since}' under {} is",
            folder.display()
        ),
        (None, None) => format!("every backup run under {} is", folder.display()),
    };
    let why = if none_own {
        format!(
            "no backup run under {} is one this user's migrate recorded; each is named above with the reason",
            folder.display()
        )
    } else {
        format!(
            "{which} undone already (each file is as the run found it, or a later run found it so and migrated it again); `skillmod restore --list` shows the runs"
        )
    };
    Report {
        warnings: vec![format!("{}: {why}", codes::NO_BACKUPS)],
        untrusted_runs: untrusted,
        ..Report::default()
    }
}

/// Restore one run's files into `report`: its scripts first, then the files it created, each
/// run's entries in path order. `guard`: the files git tracks, which a run restored on the
/// user's word (--trust) never removes.
fn restore_run(
    report: &mut Report,
    run: &str,
    root: &Path,
    base: &Path,
    request: &Request,
    guard: Option<&std::collections::HashSet<PathBuf>>,
) -> Result<()> {
    let filters = &request.filters;
    let first = report.files.len();
    let loaded = backup::load_run(root, run)?;
    report.warnings.extend(loaded.warnings);
    for (path, error) in loaded.refused {
        report.files.push(RestoredFile {
            run: run.to_string(),
            path,
            status: Status::Refused,
            errors: vec![error],
            removed: false,
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
        let (status, error) = restore_one(entry, request.force, None);
        if matches!(status, Status::Refused | Status::Failed) {
            kept.push(&entry.target);
        }
        report.files.push(RestoredFile {
            run: run.to_string(),
            path: display_path(&entry.target, base),
            status,
            errors: error.into_iter().collect(),
            removed: false,
        });
    }
    for entry in created.into_iter().filter(|e| selected(&e.target, filters)) {
        let (status, error) = if kept.iter().any(|script| sources(script, &entry.target)) {
            (
                Status::Refused,
                Some(Error::new(
                    codes::RUNTIME_STILL_USED,
                    "left in place: a script of this run is still migrated and sources it; restore that script, then run restore again",
                )),
            )
        } else {
            restore_one(entry, request.force, guard)
        };
        report.files.push(RestoredFile {
            run: run.to_string(),
            path: display_path(&entry.target, base),
            // A created file is gone when restore removed it, or found it gone already.
            removed: entry.entry.created && matches!(status, Status::Restored | Status::Unchanged),
            status,
            errors: error.into_iter().collect(),
        });
    }
    // Each run's files in path order, as every report prints them.
    report.files[first..].sort_by(|a, b| a.path.cmp(&b.path));
    Ok(())
}
