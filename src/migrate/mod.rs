//! The migrate engine: each discovered file is read, analyzed, planned and (unless dry-run)
//! written with a backup. Files run in parallel; results come back in path order.

mod file;
pub mod git;
pub mod remember;
pub mod runtime;
pub mod session;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use file::process_file;

use crate::analyze::{LegacyStatement, StdoutWrite};
use crate::config::PerSettings;
use crate::domain::modes::{Mode, Placement};
use crate::error::{Error, Result};
use crate::fsio::backup::Backups;
use crate::rewrite::Template;

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Migrated,
    WouldMigrate,
    AlreadyMigrated,
    NoLegacy,
    Skipped,
    Failed,
}

/// The report for one file (the `files[]` entries of `--format json`).
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
    pub path: String,
    pub status: Status,
    pub legacy: Vec<LegacyStatement>,
    /// Other statements that write to stdout (kind `stdout_write`).
    pub stdout_writes: Vec<StdoutWrite>,
    #[serde(serialize_with = "crate::bytes_text::serde_path::maybe")]
    pub backup: Option<String>,
    pub sha256_before: Option<String>,
    pub sha256_after: Option<String>,
    pub errors: Vec<Error>,
    /// Remarks that do not stop the migration (a library, an invalid literal confidence).
    pub notes: Vec<Error>,
    /// A selected script that could not be judged (too large, a FIFO, binary, a symlink that
    /// cannot be followed): `error` (failed, as check's SKM004 error) or `warning` (skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unjudged: Option<crate::domain::rules::Severity>,
    /// The settings file that applied, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::bytes_text::serde_path::maybe")]
    pub settings: Option<String>,
    /// The runtime file this script sources (capture mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::bytes_text::serde_path::maybe")]
    pub runtime_file: Option<String>,
    /// The runtime file this script sources (written before the script).
    #[serde(skip)]
    pub runtime: Option<runtime::Request>,
    /// The runtime file the script sourced before its runtime moved (0.2.0's at the project
    /// root), removed at the end when nothing sources it any more.
    #[serde(skip)]
    pub released: Option<PathBuf>,
    /// Capture mode without `--keep-stdout`: once migrated, the script's other output (its
    /// `stdout_writes` and what its commands print) goes to stderr.
    pub stdout_to_stderr: bool,
    /// Comment mode without `--stdout-to-stderr`: the script's other writes stay on stdout
    /// beside the JSON block.
    #[serde(skip)]
    pub stdout_kept: bool,
    #[serde(skip)]
    pub abs_path: PathBuf,
    /// The path relative to the file's project root, as a dry run's diff names it (so `git
    /// apply` takes the diff at the project root, wherever migrate ran).
    #[serde(skip)]
    pub diff_path: String,
}

/// Old and new bytes of a file that changes (or would), for diffs.
#[derive(Debug, Clone)]
pub struct Change {
    pub before: Vec<u8>,
    pub after: Vec<u8>,
    /// Byte ranges of `before` that were replaced, with the length of each replacement.
    pub edits: Vec<(std::ops::Range<usize>, usize)>,
}

/// Settings for one migrate run.
#[derive(Debug)]
pub struct Options {
    /// The `execute.sh` files a settings file's `exclude` left out, each with that settings
    /// file: failed, never read (`EXCLUDED_BY_SETTINGS`, as check reports them).
    pub excluded: std::collections::HashMap<PathBuf, PathBuf>,
    pub dry_run: bool,
    pub force: bool,
    /// Replace runtime files and blocks that are not skillmod's (`--replace-runtime`).
    pub replace_runtime: bool,
    /// Writes each runtime file once, before the scripts that need it.
    pub runtimes: runtime::Writer,
    pub backup: bool,
    pub max_size: u64,
    /// What each file's settings (and the flags) say.
    pub profiles: PerSettings<Profile>,
    /// Comment mode: send other stdout writes (echo, printf, cat) to stderr.
    pub stdout_to_stderr: bool,
    /// Folder that paths in reports are relative to.
    pub base: PathBuf,
    /// The paths named on the command line (the working folder when none is), which place
    /// each file's project root outside git.
    pub named: Vec<PathBuf>,
    /// Inside git without `--allow-dirty`: files with uncommitted changes, never rewritten.
    pub dirty: Option<std::collections::HashSet<PathBuf>>,
    /// Which selected scripts source which (capture mode).
    pub sourcing: crate::unit::sourcing::Sourcing,
    /// Which selected scripts another one reads the stdout of.
    pub callers: crate::unit::callers::Callers,
    /// With `--staged`: files whose work tree differs from the index, never rewritten (the
    /// commit would not hold what was migrated).
    pub unstaged: Option<std::collections::HashSet<PathBuf>>,
    /// The selected symlinks (followed to these targets, each migrated once) and the files that
    /// fail the run when they cannot be judged (`Selected`).
    pub selected: Selected,
    /// `--vocabulary` as given: the reading each settings file of the scripts is brought to say
    /// (`remember`).
    pub vocabulary: Option<crate::analyze::Vocabulary>,
    /// `--allow-dirty`: a settings file with uncommitted changes is written too.
    pub allow_dirty: bool,
}

/// The files a run works on once symlinks are followed: a symlink to a file inside its project
/// root is replaced by that file (its real path), and each real path comes once.
#[derive(Debug, Default)]
pub struct Selected {
    pub files: Vec<PathBuf>,
    /// Target -> the links (as shown) that led to it.
    pub followed: std::collections::HashMap<PathBuf, Vec<String>>,
    /// Files that fail the run when they cannot be judged: named on the command line, or named
    /// `execute.sh`, or a target one of those leads to (check's SKM004 errors).
    pub must_judge: std::collections::HashSet<PathBuf>,
    /// The files named with `--skill-path` (canonical paths): scripts on purpose, so one without
    /// a shebang is migrated as a script (`Targets::named_scripts`).
    pub named_scripts: std::collections::HashSet<PathBuf>,
}

impl Selected {
    /// Follow the selected symlinks that lead to a file inside their project root, and drop
    /// duplicates by real path; `explicit` are the files named as files.
    pub fn new(
        files: &[PathBuf],
        named: &[PathBuf],
        explicit: &std::collections::HashSet<PathBuf>,
        base: &Path,
    ) -> Selected {
        use crate::fsio::links::{Link, follow, unjudged_severity};
        let mut selected = Selected::default();
        let mut seen = std::collections::HashSet::new();
        let mut roots = crate::fsio::Roots::new(named);
        for file in files {
            let strict = unjudged_severity(file, explicit) == crate::domain::rules::Severity::Error;
            let is_link = std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink());
            let target = match is_link.then(|| follow(file, &roots.root(file))) {
                Some(Link::Inside(real)) => {
                    selected
                        .followed
                        .entry(real.clone())
                        .or_default()
                        .push(crate::fsio::display_path(file, base));
                    real
                }
                _ => file.clone(),
            };
            if strict {
                selected.must_judge.insert(target.clone());
            }
            if seen.insert(crate::fsio::canonical(&target)) {
                selected.files.push(target);
            }
        }
        selected.files.sort();
        selected
    }
}

/// The settings that shape one file's migration, built once per settings file.
#[derive(Debug, Clone)]
pub struct Profile {
    pub mode: Mode,
    /// Which printed lines are legacy lines.
    pub vocabulary: crate::analyze::Vocabulary,
    pub default_confidence: f64,
    /// Capture mode leaves the other output on stdout (`--keep-stdout` or the setting).
    pub keep_stdout: bool,
    /// Where capture mode's runtime goes (`--runtime` or the setting).
    pub placement: Placement,
    pub template: Template,
    /// Capture mode's runtime for `template`, rendered once.
    pub runtime: Option<std::sync::Arc<crate::rewrite::capture::Runtime>>,
}

impl Profile {
    /// What the flags over a settings file make of a migration: mode, vocabulary, default
    /// confidence, and the template with its capture runtime, loaded once per settings file.
    pub fn new(flags: &crate::config::Settings, config: &crate::config::Config) -> Result<Profile> {
        crate::rewrite::capture::trust_builtins();
        let resolved = flags.resolve(config);
        let (spec, path) = config.template(flags.template.as_deref())?;
        let template = Template::load_at(&spec, path.as_deref())?;
        let runtime = match resolved.mode {
            Mode::Capture => Some(std::sync::Arc::new(
                crate::rewrite::capture::render_runtime(&template)?,
            )),
            Mode::Comment => None,
        };
        Ok(Profile {
            mode: resolved.mode,
            vocabulary: resolved.vocabulary,
            default_confidence: resolved.default_confidence,
            keep_stdout: resolved.keep_stdout,
            placement: {
                if resolved.runtime == Placement::File {
                    deprecated_file_placement();
                }
                resolved.runtime.canonical()
            },
            template,
            runtime,
        })
    }
}

/// `runtime = "file"` still works, as `project`; say so once per run.
fn deprecated_file_placement() {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "warning: runtime \"file\" is deprecated: it is now called \"project\" (one runtime at the project root); the default, \"skill\", gives each skill folder its own runtime"
        );
    });
}

/// `path` relative to its project root, `/`-separated.
pub(crate) fn root_relative(path: &Path, named: &[PathBuf]) -> String {
    let root = crate::fsio::canonical(&crate::fsio::file_root(path, named));
    crate::fsio::display_path(&crate::fsio::canonical(path), &root)
}

/// Counts per status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub total: usize,
    pub migrated: usize,
    pub would_migrate: usize,
    pub already_migrated: usize,
    pub no_legacy: usize,
    pub skipped: usize,
    pub failed: usize,
    /// Scripts (migrated, or that would be) whose other output now goes to stderr, and how many
    /// echo/printf/cat writes of theirs that moves.
    pub stdout_to_stderr: usize,
    pub stdout_writes_moved: usize,
    /// Scripts migrated in comment mode that keep other writes on stdout beside the JSON block,
    /// and how many writes.
    pub stdout_kept: usize,
    pub stdout_writes_kept: usize,
    /// Selected scripts that could not be judged (each failed or skipped as well).
    pub not_checked: usize,
    /// Skipped files that are no shell scripts (`NOT_SHELL`): listed only with `-v`.
    pub not_shell: usize,
}

impl Summary {
    /// Count one file's report.
    pub fn add_report(&mut self, report: &FileReport) {
        self.add(report.status);
        self.not_checked += usize::from(report.unjudged.is_some());
        self.not_shell += usize::from(report.is_not_shell());
        let changed = matches!(report.status, Status::Migrated | Status::WouldMigrate);
        if changed && report.stdout_to_stderr {
            self.stdout_to_stderr += 1;
            self.stdout_writes_moved += report.stdout_writes.len();
        }
        if changed && report.stdout_kept && !report.stdout_writes.is_empty() {
            self.stdout_kept += 1;
            self.stdout_writes_kept += report.stdout_writes.len();
        }
    }

    pub fn add(&mut self, status: Status) {
        self.total += 1;
        match status {
            Status::Migrated => self.migrated += 1,
            Status::WouldMigrate => self.would_migrate += 1,
            Status::AlreadyMigrated => self.already_migrated += 1,
            Status::NoLegacy => self.no_legacy += 1,
            Status::Skipped => self.skipped += 1,
            Status::Failed => self.failed += 1,
        }
    }
}

/// The runtime files a run wrote (or would write): how many, their lines in all, and whether
/// they are identical copies (one text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RuntimeSummary {
    pub written: usize,
    pub lines: usize,
    pub identical: bool,
}

impl RuntimeSummary {
    pub fn of(files: &[runtime::RuntimeReport]) -> RuntimeSummary {
        let written: Vec<&runtime::RuntimeReport> = files
            .iter()
            .filter(|r| r.status.writes().is_some())
            .collect();
        RuntimeSummary {
            written: written.len(),
            lines: written.iter().map(|r| r.lines).sum(),
            identical: written.len() > 1
                && written
                    .iter()
                    .all(|r| r.text_sha256 == written[0].text_sha256),
        }
    }
}

/// The outcome of a whole run.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    /// Display and absolute paths of the files migrated (for `--commit`). Each file's full report
    /// goes to `on_file` as it comes and is not kept, so memory stays flat however many files
    /// there are.
    #[serde(skip)]
    pub migrated: Vec<(String, PathBuf)>,
    pub summary: Summary,
    pub backup_run: Option<String>,
    /// Where this run's backups are (a run folder per project root), and the command that
    /// undoes the run.
    #[serde(serialize_with = "crate::bytes_text::serde_path::each")]
    pub backup_dirs: Vec<String>,
    pub restore_command: Option<String>,
    /// Dirty files in the work tree that skillmod did not select (left alone).
    #[serde(serialize_with = "crate::bytes_text::serde_path::each")]
    pub unrelated_dirty: Vec<String>,
    /// Temp files that killed runs left beside scripts, removed by this run.
    #[serde(serialize_with = "crate::bytes_text::serde_path::each")]
    pub temp_files_removed: Vec<String>,
    pub commit_created: bool,
    /// Full hash of the commit (`git rev-parse HEAD` right after it), or null.
    pub commit_hash: Option<String>,
    #[serde(serialize_with = "crate::bytes_text::serde_path::each")]
    pub files_committed: Vec<String>,
    /// The settings files that applied to the files selected.
    #[serde(serialize_with = "crate::bytes_text::serde_path::each")]
    pub settings_files: Vec<String>,
    /// What the folder walks left out without taking it (symlinked folders, excluded paths,
    /// shell files outside skill folders), as the notes on stderr say it.
    pub walk_notes: Vec<String>,
    /// Capture mode's runtime files, written (or shown) after the scripts.
    pub runtime_files: Vec<runtime::RuntimeReport>,
    /// What the runtime files written (or that would be) add up to.
    pub runtime_summary: RuntimeSummary,
    /// The settings files brought to say the run's `--vocabulary`, or the line to add where
    /// none could be (`remember`).
    pub settings_updates: Vec<remember::SettingsUpdate>,
    /// The settings of the scripts the run judged, for `remember`.
    #[serde(skip)]
    pub readings: remember::Readings,
    /// Runtime files scripts of this run stopped sourcing, and those they source now.
    #[serde(skip)]
    pub released: Vec<PathBuf>,
    #[serde(skip)]
    pub sourced: std::collections::HashSet<PathBuf>,
}

/// Migrate `files`. `render` turns a file's change into output (a diff, say) on the worker
/// threads, so rendering runs in parallel too; `on_file` gets each report and its rendering in
/// path order.
pub fn run<R>(
    files: &[PathBuf],
    options: &Options,
    backups: &Backups,
    render: R,
    mut on_file: impl FnMut(&FileReport, Option<&[u8]>),
) -> Result<RunReport>
where
    R: Fn(&FileReport, &Change) -> Option<Vec<u8>> + Sync,
{
    let mut migrated = Vec::new();
    let mut summary = Summary::default();
    let mut released = Vec::new();
    let mut sourced = std::collections::HashSet::new();
    let mut readings = remember::Readings::default();
    crate::parallel::for_each_ordered(
        files,
        |path, parser| {
            let (report, change) = process_file(path, options, backups, parser);
            let rendered = change.and_then(|c| render(&report, &c));
            (report, rendered)
        },
        |path, error| (failed(path, options, error), None),
        |(report, rendered): (FileReport, Option<Vec<u8>>)| {
            on_file(&report, rendered.as_deref());
            summary.add_report(&report);
            readings.note(&report, options);
            released.extend(report.released.clone());
            if let Some(request) = &report.runtime {
                sourced.insert(request.path.clone());
            }
            if report.status == Status::Migrated {
                migrated.push((report.path.clone(), report.abs_path.clone()));
            }
        },
    )?;
    Ok(RunReport {
        migrated,
        summary,
        backup_run: backups.run_id(),
        backup_dirs: Vec::new(),
        restore_command: None,
        unrelated_dirty: Vec::new(),
        temp_files_removed: Vec::new(),
        commit_created: false,
        commit_hash: None,
        files_committed: Vec::new(),
        settings_files: Vec::new(),
        walk_notes: Vec::new(),
        runtime_files: Vec::new(),
        runtime_summary: RuntimeSummary::default(),
        settings_updates: Vec::new(),
        readings,
        released,
        sourced,
    })
}

impl Options {
    /// The note of a file reached through selected symlinks.
    fn followed_note(&self, path: &Path) -> Option<Error> {
        let links = self.selected.followed.get(path)?;
        Some(Error {
            code: crate::codes::SYMLINK_FOLLOWED,
            message: format!(
                "reached through the symbolic link{} {}: the target is migrated where it lies, once",
                if links.len() == 1 { "" } else { "s" },
                links.join(", ")
            ),
        })
    }
}

/// The report of a file that could not be processed at all (parser setup, panic).
fn failed(path: &Path, options: &Options, error: Error) -> FileReport {
    let mut report = FileReport::new(path, options);
    report.status = Status::Failed;
    report.errors.push(error);
    report
}

impl FileReport {
    /// A file skipped as no shell script, and for nothing else: the text report lists it
    /// only with `-v` (an `--include '*.sh'` over a repository meets many Python `.sh` files).
    pub fn is_not_shell(&self) -> bool {
        self.status == Status::Skipped
            && self.notes.is_empty()
            && !self.errors.is_empty()
            && self
                .errors
                .iter()
                .all(|e| e.code == crate::codes::NOT_SHELL)
    }

    fn new(path: &Path, options: &Options) -> FileReport {
        FileReport {
            path: crate::fsio::display_path(path, &options.base),
            status: Status::Failed,
            legacy: Vec::new(),
            stdout_writes: Vec::new(),
            backup: None,
            sha256_before: None,
            sha256_after: None,
            errors: Vec::new(),
            notes: options.followed_note(path).into_iter().collect(),
            unjudged: None,
            settings: options.profiles.source_of(path),
            runtime_file: None,
            runtime: None,
            released: None,
            stdout_to_stderr: false,
            stdout_kept: false,
            abs_path: path.to_path_buf(),
            diff_path: root_relative(path, &options.named),
        }
    }
}
