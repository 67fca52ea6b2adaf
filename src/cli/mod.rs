//! Command-line interface: the commands' flags are defined here (clap derive; the path flags
//! every command shares are `config::targets::Targets`, beside the code that reads them); each
//! command lives in its own module and returns an exit status, so tests can call them directly.

pub mod check;
pub mod contract_info;
mod generated;
pub mod migrate;
pub mod restore;
pub mod rule;
pub mod validate;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use std::sync::Arc;

use crate::config::Resolver;
use crate::config::targets::Targets;
use crate::error::Result;
pub use crate::fsio::working_dir;
use crate::report::Color;
pub use crate::report::check_output::CheckFormat;

#[derive(Debug, Parser)]
#[command(
    name = "skillmod",
    version,
    about = "Migrate legacy bash skills to a JSON output contract, and keep them migrated."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rewrite legacy output statements (echo "SUCCESS", "Confidence: …") into a JSON block.
    Migrate(MigrateArgs),
    /// Put back the originals saved by a migrate run.
    Restore(RestoreArgs),
    /// Report live legacy output statements (for pre-commit and CI); changes nothing.
    Check(CheckArgs),
    /// Validate what skills print against the output contract (files, stdin, or --run SCRIPT).
    Validate(ValidateArgs),
    /// Explain a rule check reports (`skillmod rule SKM001`), or every rule (`--all`).
    Rule(RuleArgs),
    /// List the built-in JSON Schemas, or print one.
    Schema(SchemaArgs),
    /// List the built-in JSON block templates, or print one.
    Templates(TemplatesArgs),
    /// Print a shell completion script.
    Completions(CompletionsArgs),
    /// Print the man page (roff), or one subcommand's (`skillmod man check`).
    Man(ManArgs),
}

/// Output format of reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    #[default]
    Text,
    Json,
}

#[derive(Debug, Clone, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    pub paths: Targets,
    /// Write nothing; print a unified diff per file instead.
    #[arg(long)]
    pub dry_run: bool,
    /// Also add the JSON block to scripts without legacy statements.
    #[arg(long)]
    pub force: bool,
    /// Do not save originals under .skillmod/backups.
    #[arg(long)]
    pub no_backup: bool,
    /// Confidence reported when no `Confidence:` line gives one (0..1) [default: 0.5].
    #[arg(long, value_name = "X")]
    pub default_confidence: Option<f64>,
    /// JSON block template: a built-in name or a path to a .j2 file [default: skill-output-v1].
    #[arg(long, value_name = "NAME|PATH")]
    pub template: Option<String>,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = crate::fsio::read::DEFAULT_MAX_SIZE, value_name = "BYTES")]
    pub max_size: u64,
    /// How to rewrite: `capture` records values at run time and prints the JSON on every exit
    /// path; `comment` disables the lines and appends a static block [default: capture].
    #[arg(long, value_enum)]
    pub mode: Option<crate::domain::modes::Mode>,
    /// Capture mode's runtime: `skill` (one skillmod-runtime.sh per skill folder, the folder
    /// holding SKILL.md, in its scripts/ when it has one, sourced by one line: the folder runs
    /// wherever it is copied), `project`
    /// (one file at the project root, 0.2.0's layout) or `inline` (a block after each shebang).
    /// Already-migrated scripts are converted to it [default: skill].
    #[arg(long, value_enum, value_name = "WHERE")]
    pub runtime: Option<crate::domain::modes::Placement>,
    /// Replace a runtime file or block that is not skillmod's (edited, planted, of an unknown
    /// version), keeping a backup; without it such a runtime is an error and no script is
    /// pointed at it.
    #[arg(long)]
    pub replace_runtime: bool,
    /// Redirect other statements that write to stdout (echo, printf, cat) to stderr, in comment
    /// mode and in scripts that print their document without the runtime. Capture mode's runtime
    /// does this for every write when the script starts.
    #[arg(long)]
    pub stdout_to_stderr: bool,
    /// Capture mode: leave the script's other output on stdout, before the JSON document (as
    /// skillmod 0.1.0 did); by default it goes to stderr and stdout holds the document alone.
    #[arg(long)]
    pub keep_stdout: bool,
    /// Rewrite files that have uncommitted changes too (inside git they are refused by default).
    #[arg(long)]
    pub allow_dirty: bool,
    /// Commit exactly the files skillmod changed (nothing else that is staged or dirty).
    #[arg(long)]
    pub commit: bool,
    /// Commit message for --commit.
    #[arg(short, long, value_name = "TEXT", requires = "commit")]
    pub message: Option<String>,
    /// Pass --no-verify to git commit (skip its hooks).
    #[arg(long, requires = "commit")]
    pub no_verify: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Clone, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub paths: Targets,
    #[arg(long, value_enum, default_value_t)]
    pub format: CheckFormat,
    /// Skip files larger than this many bytes.
    #[arg(long, default_value_t = crate::fsio::read::DEFAULT_MAX_SIZE, value_name = "BYTES")]
    pub max_size: u64,
    /// Neither read nor write the result cache in .skillmod/cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Report only these rules (codes or code prefixes, comma-separated: SKM001,SKM002).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub select: Vec<String>,
    /// Do not report these rules (codes or prefixes).
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub ignore: Vec<String>,
    /// After the findings, print how many each rule gave.
    #[arg(long)]
    pub statistics: bool,
    /// Exit 0 even when something was found (the report still says what).
    #[arg(long)]
    pub exit_zero: bool,
    /// Report `# skillmod: ignore` comments that suppress nothing (SKM005).
    #[arg(long)]
    pub report_unused_suppressions: bool,
    /// With `check -`: the path the script read from stdin is reported under (editors).
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<String>,
    /// Keep the result cache in this folder instead of .skillmod/cache (a CI cache folder, say).
    #[arg(long, value_name = "DIR", env = "SKILLMOD_CACHE_DIR")]
    pub cache_dir: Option<PathBuf>,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Clone, Args)]
pub struct ValidateArgs {
    /// Captured outputs to validate; `-` reads stdin.
    pub inputs: Vec<String>,
    /// Run this skill and validate its stdout; arguments go after `--`.
    #[arg(long, value_name = "SCRIPT")]
    pub run: Option<PathBuf>,
    /// Folder a --run skill runs in (default: the working folder, as a user runs a skill).
    #[arg(
        long,
        value_name = "DIR",
        requires = "run",
        conflicts_with = "cwd_temp"
    )]
    pub cwd: Option<PathBuf>,
    /// Run a --run skill in a fresh temporary folder, removed afterwards (files it writes
    /// relative to its working folder go nowhere that matters).
    #[arg(long, requires = "run")]
    pub cwd_temp: bool,
    /// Arguments for --run.
    #[arg(last = true, value_name = "ARGS")]
    pub run_args: Vec<String>,
    /// Seconds before a --run skill is killed.
    #[arg(long, default_value_t = 60.0, value_name = "SECS")]
    pub timeout: f64,
    /// Bytes of output kept from a run (stdout and stderr each), a file or stdin; past that the
    /// run is killed, or the input refused, with OUTPUT_TOO_LARGE.
    #[arg(long, value_name = "BYTES", default_value_t = 16 * 1024 * 1024)]
    pub max_output: u64,
    /// skill-output-v1, skill-report-envelope (or envelope), or a path to a JSON Schema.
    #[arg(long, default_value = "skill-output-v1", value_name = "NAME|PATH")]
    pub schema: String,
    /// How to find the result in the output.
    #[arg(long, value_enum, default_value_t = crate::contract::Protocol::Auto)]
    pub protocol: crate::contract::Protocol,
    /// No legacy fallback; nothing but the document (and its markers) on stdout.
    #[arg(long)]
    pub strict: bool,
    /// Read JSON Lines from stdin: each line is one output document.
    #[arg(long)]
    pub jsonl: bool,
    /// Confidence for legacy output without a valid `Confidence:` line [default: 0.5, or the
    /// settings file's].
    #[arg(long, value_name = "X")]
    pub default_confidence: Option<f64>,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub settings: SettingsArgs,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Clone, Args)]
pub struct RuleArgs {
    /// The rule's code (SKM001).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub code: Option<String>,
    /// Every rule.
    #[arg(long)]
    pub all: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
}

#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    /// Schema to print; without it, the list.
    pub name: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct TemplatesArgs {
    /// Template to print; without it, the list.
    pub name: Option<String>,
}

#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Clone, Args)]
pub struct RestoreArgs {
    #[command(flatten)]
    pub paths: Targets,
    /// Backup run to restore (default: the latest).
    #[arg(long, value_name = "ID", conflicts_with = "since")]
    pub run: Option<String>,
    /// Restore every run since this one (a run id, or a date or time such as 2026-11-21 or
    /// 2026-11-21T22:00), newest first: undoes an interrupted run and its rerun together.
    #[arg(long, value_name = "ID|DATE")]
    pub since: Option<String>,
    /// Restore even files edited since the migration.
    #[arg(long)]
    pub force: bool,
    /// Restore the run --run names even though this user's migrate did not record it (it came
    /// with the repository, is dated in the future, or is an older skillmod's).
    #[arg(long, requires = "run")]
    pub trust: bool,
    /// List the backup runs and exit.
    #[arg(long)]
    pub list: bool,
    #[arg(long, value_enum, default_value_t)]
    pub format: Format,
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (skillmod-check(1) and so on); the main page without.
    #[arg(value_name = "COMMAND")]
    pub command: Option<String>,
}

/// Flags every command has.
#[derive(Debug, Clone, Args, Default)]
pub struct Common {
    /// Show every file, not only problems.
    #[arg(short, long, global = true)]
    pub verbose: bool,
    /// Print findings and errors only: no summary, no progress bar.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Print nothing at all (the exit status tells); a --format json document is still printed.
    #[arg(long, global = true, conflicts_with = "verbose")]
    pub silent: bool,
    /// When to color output.
    #[arg(long, value_enum, default_value_t, global = true, value_name = "WHEN")]
    pub color: Color,
    /// Worker threads (default: all cores).
    #[arg(short, long, global = true, value_name = "N")]
    pub jobs: Option<usize>,
}

/// Where settings come from, for the commands that read settings files (check, migrate,
/// validate), and the flags that set what they all read alike.
#[derive(Debug, Clone, Args, Default)]
pub struct SettingsArgs {
    /// Which printed lines are legacy result lines [default: decorated, or the settings file's
    /// `vocabulary`]. migrate writes a reading the scripts' settings file does not give into it
    /// (a clean, committed file; else the report gives the line to add), so check reads later
    /// commits the same way.
    #[arg(long, value_enum, value_name = "NAME")]
    pub vocabulary: Option<crate::analyze::Vocabulary>,
    /// Read settings from this file for every script, instead of each script's nearest
    /// skillmod.toml or .skillmod.toml.
    #[arg(long, value_name = "PATH", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore every settings file.
    #[arg(long)]
    pub isolated: bool,
}

impl SettingsArgs {
    /// Each script's settings: `--config`, none with `--isolated`, else the nearest settings
    /// file above it, never above its repository root (or, outside git, the path named).
    pub fn resolver(&self, named: &[PathBuf]) -> Result<Arc<Resolver>> {
        Resolver::shared(self.config.as_deref(), self.isolated, named, None)
    }

    /// `resolver`; with `staged`, the settings files of the work tree are read from git's index,
    /// as a commit of what is staged holds them (`check --staged`).
    pub fn resolver_for(&self, named: &[PathBuf], staged: bool) -> Result<Arc<Resolver>> {
        let repo = match staged {
            true => crate::vcs::Repo::discover(&crate::fsio::working_dir()?),
            false => None,
        };
        Resolver::shared(self.config.as_deref(), self.isolated, named, repo.as_ref())
    }
}

impl Common {
    /// Size the worker pool (`--jobs`).
    pub fn init_threads(&self) -> Result<()> {
        crate::parallel::set_jobs(self.jobs)
    }

    /// With `-v`: which settings files applied, to how many scripts each.
    pub fn show_settings(&self, used: &[(PathBuf, usize)]) {
        if self.verbose && !self.silent {
            for (path, n) in used {
                eprintln!(
                    "settings: {} ({n} scripts)",
                    crate::bytes_text::shown_path(path)
                );
            }
        }
    }
}

/// Run a parsed command line; returns the exit status.
pub fn run(cli: Cli) -> Result<i32> {
    match cli.command {
        Command::Migrate(args) => migrate::run(&args),
        Command::Restore(args) => restore::run(&args),
        Command::Check(args) => check::run(&args),
        Command::Validate(args) => validate::run(&args),
        Command::Rule(args) => rule::run(&args),
        Command::Schema(args) => contract_info::schema(&args),
        Command::Templates(args) => contract_info::templates(&args),
        Command::Completions(args) => generated::completions(args.shell),
        Command::Man(args) => generated::man(args.command.as_deref()),
    }
}
