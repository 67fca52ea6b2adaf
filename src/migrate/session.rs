//! A whole migrate run around the per-file work: the git state it starts from (the work trees,
//! dirty and unstaged files), stale temp files, which scripts source which, then after the files
//! the runtime files, the dirty files the run did not select, and the commit.

use crate::codes;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::remember::{self, SettingsStatus, SettingsUpdate};
use super::runtime::{RuntimeReport, RuntimeStatus};
use super::{Change, Options, Profile, RunReport, git};
use crate::config::PerSettings;
use crate::domain::modes::Mode;
use crate::error::{Error, Result};
use crate::fsio::display_path;
use crate::unit::sourcing::Sourcing;
use crate::vcs::Repo;

/// What the command line asks of the run, beyond each file's settings.
#[derive(Debug, Clone, Default)]
pub struct Request {
    pub dry_run: bool,
    pub force: bool,
    /// `--replace-runtime`.
    pub replace_runtime: bool,
    pub backup: bool,
    pub max_size: u64,
    pub stdout_to_stderr: bool,
    /// Rewrite files with uncommitted changes too.
    pub allow_dirty: bool,
    /// `--staged`: refuse files whose work tree differs from the index.
    pub staged: bool,
    /// `--commit`, with its message and `--no-verify`.
    pub commit: Option<(Option<String>, bool)>,
    /// `--vocabulary`, remembered in the settings files (`remember`).
    pub vocabulary: Option<crate::analyze::Vocabulary>,
}

/// A file `finish` wrote (or, in a dry run, would write) after the scripts.
#[derive(Debug, Clone, Copy)]
pub enum Done<'a> {
    Runtime(&'a RuntimeReport),
    Settings(&'a SettingsUpdate),
}

/// A run ready to go: the options every file is migrated with, and what `finish` needs.
pub struct Session {
    pub options: Options,
    repos: Vec<Repo>,
    dirty: Option<HashSet<PathBuf>>,
    removed: Vec<PathBuf>,
    commit: Option<(Option<String>, bool)>,
}

/// Check the git state `request` needs, remove stale temp files beside the scripts (not in a dry
/// run), and find which scripts source which (capture mode only).
pub fn prepare(
    files: &[PathBuf],
    profiles: PerSettings<Profile>,
    request: &Request,
    base: &Path,
    named: &[PathBuf],
) -> Result<Session> {
    let named = if named.is_empty() {
        vec![base.to_path_buf()]
    } else {
        named.to_vec()
    };
    let repos = git::repositories(files, &named);
    if request.commit.is_some() && repos.is_empty() {
        return Err(Error::new(
            codes::NOT_A_GIT_REPO,
            "--commit needs the files to be in a git work tree",
        ));
    }
    if request.commit.is_some() && repos.len() > 1 {
        return Err(Error::new(
            codes::MULTIPLE_REPOSITORIES,
            format!(
                "--commit makes one commit, but the files lie in {} git work trees; run once per repository (see docs/multi-repo.md)",
                repos.len()
            ),
        ));
    }
    let collect = |list: &dyn Fn(&Repo) -> Result<HashSet<PathBuf>>| -> Result<HashSet<PathBuf>> {
        let mut all = HashSet::new();
        for repo in &repos {
            all.extend(list(repo)?);
        }
        Ok(all)
    };
    // Leftover temp files go first, so the dirty files counted after are the user's.
    let removed = if request.dry_run {
        Vec::new()
    } else {
        remove_leftovers(&repos, files)
    };
    let dirty = if request.dry_run || repos.is_empty() {
        None
    } else {
        Some(collect(&|repo| repo.dirty())?)
    };
    let unstaged = if request.staged {
        Some(collect(&|repo| repo.unstaged())?)
    } else {
        None
    };
    let any_capture = files.iter().any(|f| {
        profiles
            .get_prepared(f)
            .is_ok_and(|p| p.mode == Mode::Capture)
    });
    let callers = crate::unit::callers::Callers::scan(files, request.max_size);
    let sourcing = if any_capture {
        Sourcing::scan(
            files,
            request.max_size,
            &|path: &Path| profiles.get(path).map(|p| p.vocabulary).unwrap_or_default(),
            &|library: &Path| callers.read_by(library).is_some(),
        )
    } else {
        Sourcing::default()
    };
    let options = Options {
        dry_run: request.dry_run,
        force: request.force,
        replace_runtime: request.replace_runtime,
        runtimes: super::runtime::Writer::default(),
        backup: request.backup,
        max_size: request.max_size,
        profiles,
        stdout_to_stderr: request.stdout_to_stderr,
        base: base.to_path_buf(),
        named,
        dirty: if request.allow_dirty {
            None
        } else {
            dirty.clone()
        },
        sourcing,
        callers,
        unstaged,
        selected: super::Selected::default(),
        excluded: std::collections::HashMap::new(),
        vocabulary: request.vocabulary,
        allow_dirty: request.allow_dirty,
    };
    Ok(Session {
        options,
        repos,
        dirty,
        removed,
        commit: request.commit.clone(),
    })
}

/// The temp files interrupted runs left beside `files` and in the state folders (`.skillmod`)
/// above them, up to their repository, removed: never one git tracks (the index is read only
/// when such a file is found, which most runs never meet).
fn remove_leftovers(repos: &[Repo], files: &[PathBuf]) -> Vec<PathBuf> {
    let tracked: std::cell::OnceCell<HashSet<PathBuf>> = std::cell::OnceCell::new();
    let mut folders: Vec<PathBuf> = files
        .iter()
        .filter_map(|f| f.parent())
        .map(Path::to_path_buf)
        .collect();
    folders.sort();
    folders.dedup();
    let mut states: Vec<PathBuf> = Vec::new();
    for folder in &folders {
        for dir in folder.ancestors() {
            let state = dir.join(crate::fsio::STATE_DIR);
            if crate::fsio::is_plain_folder(&state) {
                states.push(state);
            }
            if dir.join(".git").exists() {
                break;
            }
        }
    }
    folders.extend(states);
    folders.sort();
    folders.dedup();
    crate::fsio::atomic::remove_stale_temps(folders.iter().map(PathBuf::as_path), &|path| {
        tracked
            .get_or_init(|| {
                repos
                    .iter()
                    .filter_map(|repo| repo.indexed().ok())
                    .flatten()
                    .collect()
            })
            .contains(&crate::fsio::as_named(path))
    })
}

impl Session {
    /// After the files: write the runtime files they asked for and the reading into the settings
    /// files (each handed to `on_done` with its change, for the diff), record the temp files
    /// removed and the dirty files the run did not select, and commit (`--commit`). A failed
    /// commit comes back for the caller to print after the report.
    pub fn finish(
        &self,
        report: &mut RunReport,
        files: &[PathBuf],
        backups: &crate::fsio::backup::Backups,
        mut on_done: impl FnMut(Done<'_>, Option<&Change>),
    ) -> Option<Error> {
        let mut on_runtime = |runtime: &RuntimeReport, change: Option<&Change>| {
            on_done(Done::Runtime(runtime), change)
        };
        let base = &self.options.base;
        // Written before the scripts that source them; reported after them, in the diff too.
        for (runtime, change) in self.options.runtimes.finish() {
            let mut runtime = runtime;
            let real = crate::fsio::canonical(&runtime.abs_path);
            runtime.in_work_tree = self.repos.iter().any(|r| real.starts_with(&r.root));
            on_runtime(&runtime, change.as_ref());
            if runtime.written() {
                report
                    .migrated
                    .push((runtime.path.clone(), runtime.abs_path.clone()));
            }
            report.runtime_files.push(runtime);
        }
        for (runtime, change) in super::runtime::remove_orphans(report, &self.options, backups) {
            on_runtime(&runtime, change.as_ref());
            if runtime.status == RuntimeStatus::Removed {
                report
                    .migrated
                    .push((runtime.path.clone(), runtime.abs_path.clone()));
            }
            report.runtime_files.push(runtime);
        }
        report.runtime_summary = super::RuntimeSummary::of(&report.runtime_files);
        report.settings_updates = remember::finish(
            &report.readings,
            &self.options,
            backups,
            |update, change| on_done(Done::Settings(update), change),
        );
        for update in &report.settings_updates {
            if let (SettingsStatus::Written, Some(path), Some(abs)) =
                (update.status, &update.path, &update.abs_path)
            {
                report.migrated.push((path.clone(), abs.clone()));
            }
        }
        backups.sync_seals();
        report.backup_run = backups.run_id();
        for note in backups.notes() {
            eprintln!("note: {}", crate::bytes_text::visible(&note));
        }
        let dirs = backups.run_dirs();
        report.backup_dirs = dirs.iter().map(|d| display_path(d, base)).collect();
        if !dirs.is_empty() {
            report.restore_command = Some(restore_command(&self.options.named, base));
        }
        // New runtime files marked intent-to-add, so `git commit -a` (all-repos) takes them.
        if !self.options.dry_run {
            git::mark_created(&self.repos, &report.runtime_files);
        }
        report.temp_files_removed = self.removed.iter().map(|p| display_path(p, base)).collect();
        if let Some(dirty) = &self.dirty {
            report.unrelated_dirty = git::unrelated_dirty(dirty, files, base);
        }
        match (self.repos.first(), &self.commit) {
            (Some(repo), Some((message, no_verify))) if !self.options.dry_run => {
                git::commit_migrated(repo, report, message.as_deref(), *no_verify, base).err()
            }
            _ => None,
        }
    }
}

/// The command that undoes a run: restore finds it through the paths migrate was given
/// (outside git, their folder is the project root), one project at a time, so one `restore`
/// per root.
fn restore_command(named: &[PathBuf], base: &Path) -> String {
    let mut roots = crate::fsio::Roots::new(named);
    let mut by_root: std::collections::BTreeMap<PathBuf, Vec<String>> =
        std::collections::BTreeMap::new();
    let base = crate::fsio::canonical(base);
    for path in named {
        let root = roots.root_of_named(path);
        let real = crate::fsio::canonical(path);
        let shown =
            (real != base).then(|| crate::bytes_text::quote_path(&display_path(&real, &base)));
        by_root.entry(root).or_default().extend(shown);
    }
    let commands: Vec<String> = by_root
        .into_values()
        .map(|named| {
            std::iter::once("skillmod restore".to_string())
                .chain(named)
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    if commands.is_empty() {
        "skillmod restore".to_string()
    } else {
        commands.join("; ")
    }
}

impl RunReport {
    /// 1 when a file, a runtime file or a settings file failed, or the commit did; else 0 (a
    /// settings file not written is advice, not a failure).
    pub fn exit_code(&self, commit_failed: bool) -> i32 {
        let runtime_failed = self.runtime_files.iter().any(|r| {
            r.status == RuntimeStatus::Failed
                || !r.errors.is_empty() && !matches!(r.status, RuntimeStatus::Kept)
        });
        let settings_failed = self
            .settings_updates
            .iter()
            .any(|u| u.status == SettingsStatus::Failed);
        i32::from(self.summary.failed > 0 || commit_failed || runtime_failed || settings_failed)
    }
}
