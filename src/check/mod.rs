//! `check`: report live legacy output statements without changing anything. Uses the same
//! discovery, prefilter and analyzer as migrate, plus a content-hash cache for repeated runs.

pub mod cache;

use crate::codes::{self, Code};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::analyze::shell::Dialect;
use crate::analyze::{self, BashParser, Vocabulary, prefilter, runtime_link};
use crate::config::PerSettings;
use crate::error::Error;
use crate::fsio::read::{ReadOutcome, read_script_at, stat};
use crate::unit::runtime::State;
use cache::{Cache, Place};

pub use crate::domain::rules::{self, Finding, Rule, Selection, Severity};

/// What checking one file gave: its findings (every rule, suppressions and the selection
/// applied), and how the file counts in the summary.
#[derive(Debug, Clone)]
pub struct FileCheck {
    pub findings: Vec<Finding>,
    pub outcome: Outcome,
    /// Findings a `# skillmod: ignore` comment suppressed.
    pub suppressed: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Checked,
    Skipped,
    Failed,
}

/// Settings for one check run.
pub struct Options {
    pub max_size: u64,
    /// Folder report paths are relative to.
    pub base: PathBuf,
    /// Report `# skillmod: ignore` comments that suppress nothing (SKM005).
    pub report_unused_suppressions: bool,
    /// What each file's settings (and the flags) say.
    pub profiles: PerSettings<Profile>,
    /// The runtime files migrated scripts source, each read once per run (SKM007).
    pub runtimes: crate::unit::runtime::States,
    /// The paths named on the command line (the working folder when none is): where each
    /// file's project root is, which a symlink must not lead out of.
    pub named: Vec<PathBuf>,
    /// The files named on the command line as files (not with `--force-select`): an error, not a
    /// warning, when they cannot be judged.
    pub explicit: std::collections::HashSet<PathBuf>,
    /// The files named with `--skill-path` (canonical): scripts on purpose, shebang or not.
    pub named_scripts: std::collections::HashSet<PathBuf>,
    /// Which selected files another selected script sources, read only when a script without a
    /// shebang asks (SKM008 `NO_SHEBANG` is reported for one no selected script sources).
    pub sourcing: crate::unit::sourcing::Deferred,
    /// The `execute.sh` files a settings file's `exclude` left out, each with that settings
    /// file: reported as not judged, never read.
    pub excluded: std::collections::HashMap<PathBuf, PathBuf>,
}

/// Where the bytes checked come from, as far as the findings depend on it.
#[derive(Debug, Clone, Copy)]
struct Origin<'a> {
    /// The file: its runtime and the files it sources are found from it (none for stdin).
    script: Option<&'a Path>,
    /// Named as a script on purpose (`--skill-path`, or the one script `check -` reads): one
    /// without a shebang is a script, not `NO_SHEBANG`.
    named: bool,
}

impl Profile {
    /// What the flags over a settings file make of a check; a rule code that names no rule is a
    /// usage error.
    pub fn new(
        flags: &crate::config::Settings,
        config: &crate::config::Config,
    ) -> crate::error::Result<Profile> {
        crate::rewrite::capture::trust_builtins();
        let resolved = flags.resolve(config);
        resolved.selection.validate()?;
        // What the flags alone would report: a rule the file's select/ignore takes away from it
        // is one the settings turn off.
        let by_flags = Selection {
            select: flags.select.clone().unwrap_or_default(),
            ignore: flags.ignore.clone().unwrap_or_default(),
        };
        let rules_off = Rule::ALL
            .into_iter()
            .filter(|&r| by_flags.allows(r) && !resolved.selection.allows(r))
            .collect();
        // The runtime of the template the settings name is a known runtime too.
        if let Ok((spec, path)) = config.template(flags.template.as_deref())
            && let Ok(template) = crate::rewrite::Template::load_at(&spec, path.as_deref())
        {
            let _ = crate::rewrite::capture::render_runtime(&template);
        }
        Ok(Profile {
            rules_off,
            selection: resolved.selection,
            vocabulary: resolved.vocabulary,
            mode: resolved.mode,
            keep_stdout: resolved.keep_stdout,
            placement: resolved.runtime.canonical(),
        })
    }
}

/// The settings that shape one file's check.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Which rules count.
    pub selection: Selection,
    /// The rules the settings file's `select`/`ignore` turn off (none the flags turned off).
    pub rules_off: Vec<Rule>,
    /// Which printed lines are legacy lines.
    pub vocabulary: Vocabulary,
    /// How migrate would rewrite the file (settings `mode`): capture mode moves other stdout
    /// writes to stderr, so they are one note, not a warning each.
    pub mode: crate::domain::modes::Mode,
    /// Capture mode would leave other output on stdout (the `keep-stdout` setting).
    pub keep_stdout: bool,
    /// Where migrate puts the runtime (the `runtime` setting): a source line naming another
    /// place is one migrate would convert.
    pub placement: crate::domain::modes::Placement,
}

fn file_finding(rule: Rule, path: &str, error: &Error) -> Finding {
    Finding {
        reason: Some(error.code),
        ..Finding::new(rule, path, (0, 0), error.message.clone())
    }
}

/// Check one file: the cache's place key (an unchanged file is not read), else read, prefilter,
/// then the cache's content key or the analyzer.
pub(crate) fn check_file(
    path: &Path,
    options: &Options,
    cache: &Cache,
    parser: &mut BashParser,
) -> FileCheck {
    let shown = crate::fsio::display_path(path, &options.base);
    let profile = match options.profiles.get_prepared(path) {
        Ok(profile) => profile,
        Err(error) => {
            let default = Profile::default();
            return whole_file(Rule::Unreadable, &shown, &error, Outcome::Failed, &default);
        }
    };
    let profile = &*profile;
    if crate::config::discover::is_runtime_file(path.file_name().unwrap_or_default()) {
        return runtime_file(&shown, runtime_state(path, &options.runtimes, cache));
    }
    let meta = match stat(path) {
        Ok(meta) => meta,
        Err(outcome) => return unread(&shown, path, outcome, options, profile),
    };
    let selected = path;
    // A symlink is judged at its target, read-only, when that is a file inside the project root.
    let (path, meta) = match followed(path, meta, options) {
        Ok(found) => found,
        Err(reason) => return unjudged(&shown, selected, &reason, options),
    };
    let path = path.as_path();
    let origin = Origin {
        script: Some(path),
        named: options
            .named_scripts
            .contains(&crate::fsio::canonical(selected)),
    };
    // Only a file this run would read can be answered from its place.
    let place = (meta.is_file() && meta.len() <= options.max_size)
        .then(|| cache.place_key(path, &meta, profile.vocabulary))
        .flatten();
    match place.as_ref().and_then(|p| cache.get_place(p)) {
        Some(Place::Clean) => return clean(),
        Some(Place::Analyzed(entry)) if !entry.mentions_suppression => {
            return report(
                &shown, origin, *entry, None, options, profile, parser, cache,
            );
        }
        _ => {}
    }
    let sourced = || options.sourcing.is_library(selected) || options.sourcing.is_library(path);
    match read_script_at(path, &meta, options.max_size, &sourced) {
        // A file a selected script sources is shell, whatever its name (`helpers.inc`), as
        // migrate reads it.
        Ok(script) if !Dialect::is_shell_file(selected, &script.body) && !sourced() => unread(
            &shown,
            selected,
            ReadOutcome::Skipped(crate::domain::refusal::not_shell()),
            options,
            profile,
        ),
        Ok(script) => check_body_at(
            &shown,
            origin,
            &script.body,
            options,
            profile,
            cache,
            parser,
            place,
        ),
        Err(outcome) if path != selected => {
            let linked = through_link(outcome, path);
            unread(&shown, selected, linked, options, profile)
        }
        Err(outcome) => unread(&shown, selected, outcome, options, profile),
    }
}

/// A runtime file named, staged or changed on its own (the hooks, `--changed-since`): no script,
/// but code every skill that sources it runs, so an edit to it alone is an error here too.
fn runtime_file(shown: &str, state: State) -> FileCheck {
    let State::Foreign(declared) = state else {
        return clean();
    };
    let message = format!(
        "is {}: its code runs with every skill that sources it; migrate --replace-runtime on those scripts replaces it",
        not_ours(declared)
    );
    let finding =
        Finding::new(Rule::RuntimeOutOfDate, shown, (1, 1), message).severity(Severity::Error);
    FileCheck {
        findings: vec![Finding {
            reason: Some(codes::RUNTIME_FOREIGN),
            ..finding
        }],
        outcome: Outcome::Checked,
        suppressed: 0,
    }
}

/// What a runtime file whose bytes no known runtime has is, with the version it declares.
fn not_ours(declared: Option<u32>) -> String {
    let version = declared.map_or_else(String::new, |v| format!("; it declares version {v}"));
    format!("not a runtime skillmod wrote (edited, planted or of an unknown version{version})")
}

/// Why a symlink's target could not be read, saying that the path is a symlink and where to.
fn through_link(outcome: ReadOutcome, target: &Path) -> ReadOutcome {
    let name = |mut error: Error| {
        error.message = format!(
            "is a symbolic link to {}: {}",
            crate::bytes_text::quote_os(target),
            error.message
        );
        error
    };
    match outcome {
        ReadOutcome::Skipped(error) => ReadOutcome::Skipped(name(error)),
        ReadOutcome::Failed(error) => ReadOutcome::Failed(name(error)),
    }
}

/// The file a selected path is read at, with its `lstat`: the path itself, or a symlink's
/// target inside the project root; else why it cannot be judged.
fn followed(
    path: &Path,
    meta: std::fs::Metadata,
    options: &Options,
) -> Result<(PathBuf, std::fs::Metadata), Error> {
    if !meta.file_type().is_symlink() {
        return Ok((path.to_path_buf(), meta));
    }
    let root = crate::fsio::file_root(path, &options.named);
    match crate::fsio::links::follow(path, &root) {
        crate::fsio::links::Link::Inside(real) => {
            let meta = std::fs::symlink_metadata(&real)
                .map_err(|e| Error::io(codes::READ_FAILED, "cannot stat", &real, &e))?;
            Ok((real, meta))
        }
        crate::fsio::links::Link::Refused(reason) => Err(reason),
    }
}

/// The check of a file that could not be read: skipped by policy (unjudged, when what it holds
/// is unknown), or failed.
fn unread(
    shown: &str,
    selected: &Path,
    outcome: ReadOutcome,
    options: &Options,
    profile: &Profile,
) -> FileCheck {
    match outcome {
        ReadOutcome::Skipped(reason) if crate::fsio::links::unjudged(reason.code) => {
            unjudged(shown, selected, &reason, options)
        }
        ReadOutcome::Skipped(reason) => {
            whole_file(Rule::Skipped, shown, &reason, Outcome::Skipped, profile)
        }
        ReadOutcome::Failed(error) => {
            whole_file(Rule::Unreadable, shown, &error, Outcome::Failed, profile)
        }
    }
}

/// A selected script that could not be judged (too large, a FIFO, binary, a link that cannot be
/// followed): SKM004 as an error or a warning (`links::unjudged_severity`), never a pass. No
/// selection, setting or comment drops it: those come from the repository; `--exit-zero` alone
/// changes the exit status.
fn unjudged(shown: &str, selected: &Path, reason: &Error, options: &Options) -> FileCheck {
    let mut finding = file_finding(Rule::Skipped, shown, reason);
    finding.severity = crate::fsio::links::unjudged_severity(selected, &options.explicit);
    finding.message = format!("could not be checked: {}", reason.message);
    FileCheck {
        findings: vec![finding],
        outcome: Outcome::Skipped,
        suppressed: 0,
    }
}

/// Whether a finding is about a selected script that could not be judged.
pub fn is_unjudged(finding: &Finding) -> bool {
    finding.code == Rule::Skipped && finding.severity != Severity::Note
}

/// An `execute.sh` a settings file's `exclude` left out: not judged, and said so (SKM004
/// `EXCLUDED_BY_SETTINGS`, an error), since the settings came with the repository.
fn excluded_by_settings_check(path: &Path, settings: &Path, options: &Options) -> FileCheck {
    let shown = crate::fsio::display_path(path, &options.base);
    let reason = crate::config::left_out::excluded_entry_point(settings, &options.base);
    unjudged(&shown, path, &reason, options)
}

/// A file with nothing to report.
fn clean() -> FileCheck {
    FileCheck {
        findings: Vec::new(),
        outcome: Outcome::Checked,
        suppressed: 0,
    }
}

/// The check of a file that gives one finding about the whole file (skipped, unreadable).
fn whole_file(
    rule: Rule,
    shown: &str,
    error: &Error,
    outcome: Outcome,
    profile: &Profile,
) -> FileCheck {
    FileCheck {
        findings: [file_finding(rule, shown, error)]
            .into_iter()
            .filter(|f| profile.selection.allows(f.code))
            .collect(),
        outcome,
        suppressed: 0,
    }
}

/// Check a script's bytes (after any BOM), shown as `shown`: a file's, or stdin's (`check -`).
/// `path` names where the settings come from (`--stdin-filename`, or the working folder).
pub fn check_body(
    shown: &str,
    path: &Path,
    body: &[u8],
    options: &Options,
    cache: &Cache,
    parser: &mut BashParser,
) -> FileCheck {
    // A staged script has its place (its runtime is looked up); stdin's has none. The one script
    // `check -` reads is named as `migrate --skill-path` would name it.
    let origin = Origin {
        script: options.runtimes.staged().then_some(path),
        named: true,
    };
    match options.profiles.get_prepared(path) {
        Ok(profile) => check_body_at(shown, origin, body, options, &profile, cache, parser, None),
        Err(error) => whole_file(
            Rule::Unreadable,
            shown,
            &error,
            Outcome::Failed,
            &Profile::default(),
        ),
    }
}

/// `check_body` for a file at `place` (its place key), which learns what was found there.
#[allow(clippy::too_many_arguments)]
fn check_body_at(
    shown: &str,
    origin: Origin,
    body: &[u8],
    options: &Options,
    profile: &Profile,
    cache: &Cache,
    parser: &mut BashParser,
    place: Option<cache::Key>,
) -> FileCheck {
    if !prefilter::worth_parsing(body, profile.vocabulary) {
        let entry = unmarked_entry(body);
        return match entry {
            Some(entry) => {
                if let Some(place) = place.filter(|_| !entry.mentions_suppression) {
                    let key = cache.key(body, profile.vocabulary);
                    cache.put(key, entry.clone());
                    cache.put_place(place, Some(key));
                }
                report(
                    shown,
                    origin,
                    entry,
                    Some(body),
                    options,
                    profile,
                    parser,
                    cache,
                )
            }
            None => {
                if let Some(place) = place {
                    cache.put_place(place, None);
                }
                clean()
            }
        };
    }
    let key = cache.key(body, profile.vocabulary);
    let entry = match cache.get(&key) {
        Some(found) => found,
        None => match analyzed(origin.script, body, options, profile, parser) {
            Ok((entry, own)) => {
                if own {
                    cache.put(key, entry.clone());
                }
                entry
            }
            Err(error) => {
                return whole_file(Rule::Unreadable, shown, &error, Outcome::Failed, profile);
            }
        },
    };
    if let Some(place) = place {
        cache.put_place(place, Some(key));
    }
    report(
        shown,
        origin,
        entry,
        Some(body),
        options,
        profile,
        parser,
        cache,
    )
}

/// What a script no legacy line can be in still holds, if anything: a suppression directive
/// (reported wherever it stands), the runtime it loads (which must be there), the files it
/// sources (which must be in its skill folder).
fn unmarked_entry(body: &[u8]) -> Option<cache::Entry> {
    let link = runtime_link::find(body);
    let sourced = crate::unit::sourcing::sourced_lines(body);
    let mentions_suppression = analyze::suppress::Suppressions::may_occur(body);
    (mentions_suppression
        || link.is_some()
        || runtime_link::foreign(body).is_some()
        || !sourced.is_empty())
    .then(|| cache::Entry {
        mentions_suppression,
        sourced,
        ..runtime_entry(body, link)
    })
}

/// The part of a cache entry that names the runtime a migrated script loads.
fn runtime_entry(body: &[u8], link: Option<runtime_link::RuntimeLine>) -> cache::Entry {
    let foreign = match link {
        Some(_) => None,
        None => runtime_link::foreign(body),
    };
    let start = link
        .as_ref()
        .or(foreign.as_ref())
        .map(|found| found.range().start);
    let runtime_line = start.map_or(0, |at| memchr::memchr_iter(b'\n', &body[..at]).count() + 1);
    let runtime = match link {
        Some(runtime_link::RuntimeLine::Sourced {
            relative,
            line,
            version,
        }) => cache::Runtime::File {
            relative,
            keep_stdout: runtime_link::setting(&body[line], "__skm_stdout").is_some(),
            version,
        },
        Some(runtime_link::RuntimeLine::Inline { .. }) => cache::Runtime::OldInline,
        Some(runtime_link::RuntimeLine::Block { range, version }) => {
            let settings = runtime_link::block_settings(&body[range]);
            cache::Runtime::Block {
                version: version.unwrap_or(0),
                keep_stdout: runtime_link::setting(settings, "__skm_stdout").is_some(),
            }
        }
        None if foreign.is_some() => cache::Runtime::Foreign,
        None => cache::Runtime::None,
    };
    cache::Entry {
        runtime,
        runtime_line,
        ..cache::Entry::default()
    }
}

/// SKM007 for a migrated script: its runtime file missing or not skillmod's, or an edited line
/// or block where the runtime goes (errors); a runtime older than this skillmod's, 0.2.0's line
/// that finds it at the project root, or 0.1.0's inline runtime (warnings). Read from disk on
/// every run.
fn runtime_finding(
    shown: &str,
    script: &Path,
    entry: &cache::Entry,
    options: &Options,
    profile: &Profile,
    cache: &Cache,
) -> Option<Finding> {
    use crate::rewrite::capture::RUNTIME_VERSION;
    let runtimes = &options.runtimes;
    // The runtime's line: line 2, or after the ShellCheck directives that open the script.
    let at = entry.runtime_line.max(2);
    if let Some(line) = entry.exit_claim {
        let message = format!(
            "line {at} says a clean exit is success (`__skm_need=0`), which skillmod writes only for a script without a success line, but line {line} records one: the skill would report success where the original printed none; migrate rewrites line {at}"
        );
        let finding = Finding::new(Rule::RuntimeOutOfDate, shown, (at, 1), message)
            .severity(rules::Severity::Error)
            .fix(Some(format!(
                "skillmod migrate {}",
                crate::bytes_text::command_arg(shown)
            )));
        return Some(Finding {
            reason: Some(codes::RUNTIME_FOREIGN),
            ..finding
        });
    }
    let (severity, reason, message) = match &entry.runtime {
        cache::Runtime::None => return None,
        cache::Runtime::Foreign => (
            rules::Severity::Error,
            codes::RUNTIME_FOREIGN,
            format!("line {at} stands where skillmod puts the runtime, but is not what skillmod writes (edited, or written by someone else): it is read as the script's own code; migrate --replace-runtime rewrites it"),
        ),
        cache::Runtime::Block { version, .. }
            if *version >= RUNTIME_VERSION
                && profile.placement == crate::domain::modes::Placement::Inline =>
        {
            return None;
        }
        cache::Runtime::Block { version, .. } if *version >= RUNTIME_VERSION => (
            rules::Severity::Warning,
            codes::RUNTIME_OUTDATED,
            "carries the inline runtime block, where the `runtime` setting asks for a runtime file (set `runtime = \"inline\"` in skillmod.toml to keep the block); migrate converts it".to_string(),
        ),
        cache::Runtime::Block { version, .. } => (
            rules::Severity::Warning,
            codes::RUNTIME_OUTDATED,
            format!(
                "carries an inline runtime block, version {version}, older than this skillmod's {RUNTIME_VERSION}"
            ),
        ),
        // Recognised by its markers only: its bytes vary with 0.1.0's settings, so no list of
        // hashes says it is skillmod's, and code edited into it runs with the skill.
        cache::Runtime::OldInline => (
            rules::Severity::Error,
            codes::RUNTIME_OUTDATED,
            "carries skillmod 0.1.0's one-line inline runtime, which cannot be verified byte for byte (code edited into it runs with the skill); migrate replaces it by one line sourcing the skill's skillmod-runtime.sh".to_string(),
        ),
        cache::Runtime::File { version, relative, .. } if *version < RUNTIME_VERSION => {
            old_file_runtime(script, relative, *version, runtimes, cache)
        }
        cache::Runtime::File { relative, .. } => file_runtime(script, relative, runtimes, cache)
            .or_else(|| elsewhere(script, relative, &options.named, profile.placement))?,
    };
    let finding = Finding::new(Rule::RuntimeOutOfDate, shown, (at, 1), message)
        .severity(severity)
        .fix(Some(runtime_fix(reason, shown, &entry.runtime)));
    Some(Finding {
        reason: Some(reason),
        ..finding
    })
}

/// The command that fixes an SKM007 finding: staging the runtime file git leaves out (migrate
/// has nothing to do there), else migrate (with `--replace-runtime` for a foreign one).
fn runtime_fix(reason: Code, shown: &str, runtime: &cache::Runtime) -> String {
    match (reason, runtime) {
        (reason, cache::Runtime::File { relative, .. }) if reason == codes::RUNTIME_UNTRACKED => {
            let mut file = Path::new(shown)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_default();
            // `scripts/../skillmod-runtime.sh` as the path a person types.
            for part in relative.split('/') {
                match part {
                    ".." if file.file_name().is_some() => {
                        file.pop();
                    }
                    "." | "" => {}
                    part => file.push(part),
                }
            }
            format!(
                "git add {}",
                crate::bytes_text::command_arg(&file.to_string_lossy())
            )
        }
        (reason, _) if reason == codes::RUNTIME_FOREIGN => format!(
            "skillmod migrate --replace-runtime {}",
            crate::bytes_text::command_arg(shown)
        ),
        _ => format!("skillmod migrate {}", crate::bytes_text::command_arg(shown)),
    }
}

/// SKM007 for a script whose older source line (0.2.0's, found from `$0` at the project root)
/// names `relative`: a warning when that file is a released runtime byte for byte, else an error.
fn old_file_runtime(
    script: &Path,
    relative: &str,
    version: u32,
    runtimes: &crate::unit::runtime::States,
    cache: &Cache,
) -> (rules::Severity, Code, String) {
    let file = crate::unit::runtime::named_by(script, relative);
    match runtime_state(&file, runtimes, cache) {
        State::Current | State::Older(_) => (
            rules::Severity::Warning,
            codes::RUNTIME_OUTDATED,
            format!(
                "loads its runtime the {} way (version {version}, found from $0 at the project root): the skill folder copied alone exits 70 with no document; migrate gives each skill folder its runtime",
                if version == 2 { "0.2.0" } else { "old" }
            ),
        ),
        State::Missing => (
            rules::Severity::Error,
            codes::RUNTIME_MISSING,
            format!(
                "loads {relative} the 0.2.0 way, and it does not exist: a run exits 70; migrate gives each skill folder its runtime"
            ),
        ),
        State::Foreign(declared) => (
            rules::Severity::Error,
            codes::RUNTIME_FOREIGN,
            format!(
                "loads {relative} the 0.2.0 way, and it is {}: its code runs with the skill; migrate --replace-runtime replaces it",
                not_ours(declared)
            ),
        ),
    }
}

/// SKM007 for a script whose source line names `relative`: the severity, the reason and the
/// message, or None when its runtime is current and committed.
fn file_runtime(
    script: &Path,
    relative: &str,
    runtimes: &crate::unit::runtime::States,
    cache: &Cache,
) -> Option<(rules::Severity, Code, String)> {
    use crate::rewrite::capture::RUNTIME_VERSION;
    let file = crate::unit::runtime::named_by(script, relative);
    Some(match runtime_state(&file, runtimes, cache) {
        State::Current | State::Older(_) if runtimes.uncommitted(&file) => (
            rules::Severity::Error,
            codes::RUNTIME_UNTRACKED,
            format!(
                "sources {relative}, which git does not track (untracked, or only intent-to-add): a commit would leave it out, and every clone would print a RUNTIME_MISSING document and exit 70; `git add` it"
            ),
        ),
        State::Current => return None,
        State::Missing if runtimes.staged() => (
            rules::Severity::Error,
            codes::RUNTIME_MISSING,
            format!(
                "sources {relative}, which is not staged: every clone of the commit would print a RUNTIME_MISSING document and exit 70; stage it (`git add`)"
            ),
        ),
        State::Missing => (
            rules::Severity::Error,
            codes::RUNTIME_MISSING,
            format!(
                "sources {relative}, which does not exist: a run prints a RUNTIME_MISSING document and exits 70"
            ),
        ),
        // The line checks the version it loads: an older file never runs.
        State::Older(v) => (
            rules::Severity::Error,
            codes::RUNTIME_OUTDATED,
            format!(
                "sources {relative}, runtime version {v}, where its line asks for version {RUNTIME_VERSION}: every run prints a RUNTIME_VERSION document and exits 70; migrate writes the runtime again"
            ),
        ),
        State::Foreign(declared) => (
            rules::Severity::Error,
            codes::RUNTIME_FOREIGN,
            format!(
                "sources {relative}, which is {}: its code runs with the skill; migrate --replace-runtime replaces it",
                not_ours(declared)
            ),
        ),
    })
}

/// SKM007 warning for a script whose current runtime lies where migrate would not put it now
/// (another `runtime` setting, or a skill root where the skill has `scripts/`): migrate moves it.
fn elsewhere(
    script: &Path,
    relative: &str,
    named: &[std::path::PathBuf],
    placement: crate::domain::modes::Placement,
) -> Option<(rules::Severity, Code, String)> {
    use crate::domain::modes::Placement;
    let name = relative.rsplit('/').next().unwrap_or(relative);
    let (_, expected) = crate::unit::runtime::location(script, named, placement, name);
    let message = match placement {
        Placement::Inline => format!(
            "sources {relative}, where the `runtime` setting asks for the inline block; migrate converts it"
        ),
        _ if expected == relative => return None,
        _ => format!(
            "sources {relative}, where migrate now names {expected} from this script's folder (the `runtime` setting; in a skill, its scripts/ when it has one, which builds that copy SKILL.md and scripts/ alone keep); migrate moves it"
        ),
    };
    Some((rules::Severity::Warning, codes::RUNTIME_OUTDATED, message))
}

/// SKM009 for each file a script of a skill folder sources from outside that folder (one that
/// exists: the folder copied alone would lack it).
fn outside_sources(shown: &str, script: &Path, entry: &cache::Entry) -> Vec<Finding> {
    if entry.sourced.is_empty() {
        return Vec::new();
    }
    let real = crate::fsio::canonical(script);
    let Some(folder) = real.parent() else {
        return Vec::new();
    };
    let Some(skill) = crate::fsio::enclosing_skill(folder) else {
        return Vec::new();
    };
    entry
        .sourced
        .iter()
        .filter_map(|(line, relative)| {
            let target = crate::fsio::canonical(&crate::fsio::sourced_file(&real, relative)?);
            (!target.starts_with(&skill)).then(|| {
                let message = format!(
                    "sources {}, outside its skill folder {}: the folder copied alone (an installed skill) lacks it",
                    relative.display(),
                    skill.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
                );
                Finding::new(Rule::NotSelfContained, shown, (*line, 1), message)
            })
        })
        .collect()
}

/// SKM010 for each place where legacy-looking text stands in a form check cannot read.
fn out_of_reach_notes(
    shown: &str,
    places: &[crate::analyze::out_of_reach::OutOfReach],
) -> Vec<Finding> {
    places
        .iter()
        .map(|place| {
            let message = format!(
                "legacy-looking text in {}, which check cannot read as output: if the skill prints it, print it with a literal `echo`",
                place.form.describe()
            );
            Finding::new(Rule::OutOfReach, shown, (place.line, place.column), message)
        })
        .collect()
}

/// A runtime file's state, from the cache when its place (path and `stat`) is known there: a warm
/// check reads no unchanged runtime file. `--staged` reads the index, never the cache.
fn runtime_state(file: &Path, runtimes: &crate::unit::runtime::States, cache: &Cache) -> State {
    use crate::rewrite::capture::RUNTIME_VERSION;
    let place = (!runtimes.staged())
        .then(|| std::fs::symlink_metadata(file).ok())
        .flatten()
        .filter(|meta| meta.is_file())
        .and_then(|meta| cache.runtime_place(file, &meta));
    if let Some(version) = place.as_ref().and_then(|p| cache.runtime_version(p)) {
        return match version {
            0 => State::Foreign(None),
            v if v == RUNTIME_VERSION => State::Current,
            v if v < RUNTIME_VERSION => State::Older(v),
            _ => State::Foreign(None),
        };
    }
    let state = runtimes.state(file);
    if let Some(place) = place {
        let version = match &state {
            State::Current => RUNTIME_VERSION,
            State::Older(v) => *v,
            State::Missing => return state,
            State::Foreign(_) => 0,
        };
        cache.put_runtime(place, version);
    }
    state
}

/// The analysis of `body` as check keeps it, and whether it may be cached by its content alone:
/// not when it calls a command it does not define, which may be a helper of a file it sources
/// (read then with that file's definitions).
fn analyzed(
    script: Option<&Path>,
    body: &[u8],
    options: &Options,
    profile: &Profile,
    parser: &mut BashParser,
) -> crate::error::Result<(cache::Entry, bool)> {
    let analysis = analyze::analyze(parser, body, profile.vocabulary)?;
    let own = !analysis
        .out_of_reach
        .iter()
        .any(|p| p.form == analyze::out_of_reach::Form::Call);
    let imported = script.map(|path| {
        crate::unit::sourcing::imported_helpers(
            path,
            &analysis,
            body,
            profile.vocabulary,
            options.max_size,
        )
    });
    let analysis = match imported.filter(|i| !i.is_empty()) {
        Some(imported) => analyze::with_helpers(analysis, body, profile.vocabulary, &imported),
        None => analysis,
    };
    Ok((entry_of(analysis, body), own))
}

/// What check keeps of an analysis (and caches by content).
fn entry_of(analysis: analyze::Analysis, body: &[u8]) -> cache::Entry {
    let verdict = crate::verdict::Facts::of(&analysis, body, !analysis.legacy.is_empty());
    let exit_claim = analysis.contradicted_exit_claim(body);
    cache::Entry {
        parse_error: analysis.parse_failure(),
        legacy: analysis
            .legacy
            .into_iter()
            .map(|s| cache::Located {
                line: s.line,
                column: s.column,
                kind: s.kind,
                text: s.text,
            })
            .collect(),
        stdout_writes: analysis
            .stdout_writes
            .into_iter()
            .map(|w| cache::LocatedWrite {
                line: w.line,
                column: w.column,
                text: w.text,
            })
            .collect(),
        mentions_suppression: analyze::suppress::Suppressions::may_occur(body),
        out_of_reach: analysis.out_of_reach,
        verdict,
        // Off the tree just parsed: no second parse.
        sourced: crate::unit::sourcing::sourced_in(&analysis.tree, body),
        exit_claim,
        ..runtime_entry(body, runtime_link::find(body))
    }
}

/// SKM008 for a script migrate refuses, with migrate's code in the message.
fn cannot_migrate(shown: &str, r: crate::verdict::Refusal) -> Finding {
    Finding::new(
        Rule::CannotMigrate,
        shown,
        (r.line, r.column),
        r.error.to_string(),
    )
}

/// The findings of an analysis, with the file's suppressions (`body`, needed only when the entry
/// mentions one) and the selection applied.
#[allow(clippy::too_many_arguments)]
fn report(
    shown: &str,
    origin: Origin,
    mut entry: cache::Entry,
    body: Option<&[u8]>,
    options: &Options,
    profile: &Profile,
    parser: &mut BashParser,
    cache: &Cache,
) -> FileCheck {
    // A parse error where a marker lies: migrate refuses the file at this place (PARSE_ERROR), so
    // check reports it there as an error too, beside any legacy statement it did find.
    let unparsable = entry.parse_error.map(|failure| {
        let mut finding = file_finding(Rule::Unreadable, shown, &failure.refusal());
        (finding.line, finding.column) = (failure.line, failure.column);
        finding
    });
    let capture = profile.mode == crate::domain::modes::Mode::Capture;
    // A script without a shebang is migrated as a script only when named with `--skill-path`,
    // as a library only beside a script that sources it, and a library that returns at top
    // level only beside one (found only for such a file, once).
    let asks_host = (entry.verdict.role_unknown && !origin.named) || entry.verdict.top_level_return;
    let sourced_by = (capture && !entry.legacy.is_empty() && asks_host)
        .then(|| {
            origin
                .script
                .and_then(|path| options.sourcing.sourced_by(path))
        })
        .flatten();
    let fix = fix_command(shown, &origin, &entry, options, profile, sourced_by);
    let unmigrated = !entry.legacy.is_empty();
    let refusal = migrate_refusal(&entry, &origin, profile, sourced_by.is_some(), options);
    // Where migrate would refuse the file, it is no fix, and nothing moves: each write stays a
    // warning.
    let refused = (refusal.is_some() && unmigrated) || entry.parse_error.is_some();
    let moves = Moves::of(
        &entry,
        capture && !profile.keep_stdout,
        refusal.is_some(),
        refused,
    );
    // A script read from stdin with no --stdin-filename is no file migrate could be given.
    let stdin = origin.script.is_none() && shown == "-";
    let fix = (!refused && !stdin).then_some(fix);
    let writes =
        stdout_write_findings(shown, std::mem::take(&mut entry.stdout_writes), moves, &fix);
    let mut findings: Vec<Finding> = std::mem::take(&mut entry.legacy)
        .into_iter()
        .map(|l| legacy_finding(shown, l, &fix))
        .chain(writes)
        .collect();
    let suppressed = match body.filter(|_| entry.mentions_suppression) {
        Some(body) => apply_suppressions(&mut findings, shown, body, parser, options),
        None => 0,
    };
    // The refusal stands only while a legacy line is left to migrate (as in migrate); the note
    // that migrate will move the other writes, only while it would migrate the file.
    if findings.iter().any(|f| f.code == Rule::LegacyOutput) {
        let refusal = refusal.filter(|r| stands(r, &findings));
        findings.extend(refusal.map(|r| cannot_migrate(shown, r)));
    } else {
        findings.retain(|f| !(f.code == Rule::StdoutWrite && f.severity == Severity::Note));
        // A migrated script edited since to write where the runtime keeps the real stdout.
        if entry.verdict.already_migrated {
            findings.extend(refusal.map(|r| cannot_migrate(shown, r)));
        }
    }
    let outcome = if unparsable.is_some() {
        Outcome::Failed
    } else {
        Outcome::Checked
    };
    findings.extend(unparsable);
    if let Some(path) = origin.script {
        findings.extend(runtime_finding(
            shown, path, &entry, options, profile, cache,
        ));
        findings.extend(outside_sources(shown, path, &entry));
    }
    findings.extend(out_of_reach_notes(shown, &entry.out_of_reach));
    // Code that is not skillmod's runs with the skill (SKM007 as an error): a repository's
    // settings cannot turn that off, as they cannot SKM003.
    findings.retain(|f| {
        profile.selection.allows(f.code)
            || (f.code == Rule::RuntimeOutOfDate && f.severity == Severity::Error)
    });
    findings.sort_by_key(|f| (f.line, f.column));
    FileCheck {
        findings,
        outcome,
        suppressed,
    }
}

/// Whether migrate's refusal stands beside the findings left: a line in a subshell is refused
/// only while it is left, as migrate judges the legacy lines its suppressions leave.
fn stands(refusal: &crate::verdict::Refusal, findings: &[Finding]) -> bool {
    refusal.error.code != codes::SUBSHELL_RESULT
        || findings
            .iter()
            .any(|f| f.code == Rule::LegacyOutput && f.line == refusal.line)
}

/// SKM001 for one legacy statement.
fn legacy_finding(shown: &str, l: cache::Located, fix: &Option<String>) -> Finding {
    let message = format!("{}: `{}`", l.kind.description(), l.text);
    Finding {
        kind: Some(l.kind),
        ..Finding::new(Rule::LegacyOutput, shown, (l.line, l.column), message)
    }
    .text(l.text)
    .fix(fix.clone())
}

/// The command that migrates the file as check read it: with the vocabulary that found its lines,
/// and for a script without a shebang, named as migrate will take it (`--skill-path`, or beside
/// the script that sources it).
fn fix_command(
    shown: &str,
    origin: &Origin,
    entry: &cache::Entry,
    options: &Options,
    profile: &Profile,
    sourced_by: Option<&Path>,
) -> String {
    let vocabulary = match profile.vocabulary {
        Vocabulary::Decorated => String::new(),
        other => format!("--vocabulary {} ", other.as_str()),
    };
    let with = match sourced_by {
        _ if entry.verdict.role_unknown && origin.named => "--skill-path ".to_string(),
        Some(host) => format!(
            "{} ",
            crate::bytes_text::command_arg(&crate::fsio::display_path(host, &options.base))
        ),
        None => String::new(),
    };
    format!(
        "skillmod migrate {vocabulary}{with}{}",
        crate::bytes_text::command_arg(shown)
    )
}

/// What migrate would refuse the file for, as it is (SKM008, with migrate's code): the one
/// verdict, asked as migrate (without `--force`) would ask it.
fn migrate_refusal(
    entry: &cache::Entry,
    origin: &Origin,
    profile: &Profile,
    sourced: bool,
    options: &Options,
) -> Option<crate::verdict::Refusal> {
    // Another script of the skill reads its stdout (asked only of a script migrate would rewrite).
    let read_by = (!entry.legacy.is_empty())
        .then(|| {
            origin
                .script
                .and_then(|path| options.sourcing.read_by(path))
        })
        .flatten();
    let ask = crate::verdict::Ask {
        mode: profile.mode,
        keep_stdout: profile.keep_stdout,
        legacy: !entry.legacy.is_empty(),
        force: false,
        hosts_library: false,
        role_given: origin.named || sourced,
        sourced,
        answer_exempt: false,
        read_by,
    };
    let clashed = entry.verdict.with_sourced_clash(
        origin.script,
        || entry.sourced.clone(),
        ask.rewrites(),
        options.max_size,
    );
    crate::verdict::refusal(clashed.as_ref().unwrap_or(&entry.verdict), &ask)
}

/// Whether a file's other stdout writes leave stdout: already (its runtime moves them), once
/// migrated (capture mode would), or not (then a warning each, with a fix when migrate can
/// redirect them).
#[derive(Clone, Copy)]
enum Moves {
    Already,
    OnMigration,
    No { redirectable: bool },
}

impl Moves {
    /// For `entry`: `moving` when migrate would use capture mode's runtime without
    /// `--keep-stdout`; `refusal` when migrate would refuse it, `refused` when that or a parse
    /// error stops it.
    fn of(entry: &cache::Entry, moving: bool, refusal: bool, refused: bool) -> Moves {
        let unmigrated = !entry.legacy.is_empty();
        if entry.runtime.moves_stdout() {
            Moves::Already
        } else if unmigrated && moving && !refusal {
            Moves::OnMigration
        } else {
            let rewritable = matches!(
                entry.runtime,
                cache::Runtime::None | cache::Runtime::Block { .. }
            );
            Moves::No {
                redirectable: !refused && (unmigrated || rewritable),
            }
        }
    }
}

/// SKM002: nothing where the runtime moves the writes already; one note where migrating moves
/// them; else a warning for each.
fn stdout_write_findings(
    shown: &str,
    writes: Vec<cache::LocatedWrite>,
    moves: Moves,
    fix: &Option<String>,
) -> Vec<Finding> {
    match moves {
        Moves::Already => Vec::new(),
        Moves::OnMigration => {
            let Some(first) = writes.first() else {
                return Vec::new();
            };
            // The first few lines name the place; a long list says nothing more.
            const SHOWN: usize = 10;
            let mut lines: Vec<String> = writes
                .iter()
                .take(SHOWN)
                .map(|w| w.line.to_string())
                .collect();
            if writes.len() > SHOWN {
                lines.push("…".into());
            }
            let message = format!(
                "{} other stdout write(s) (line {}) will go to stderr once migrated: capture mode's runtime moves them",
                writes.len(),
                lines.join(", ")
            );
            vec![
                Finding::new(
                    Rule::StdoutWrite,
                    shown,
                    (first.line, first.column),
                    message,
                )
                .severity(Severity::Note)
                .fix(fix.clone()),
            ]
        }
        Moves::No { redirectable } => writes
            .into_iter()
            .map(|w| {
                let message = format!(
                    "`{}` writes to stdout beside the JSON contract; send it to stderr (`>&2`)",
                    w.text
                );
                // migrate redirects them before a migration (comment mode), and in a script
                // that prints its document without the runtime; refused files get no fix.
                let redirect = fix
                    .as_ref()
                    .filter(|_| redirectable)
                    .map(|fix| format!("{fix} --stdout-to-stderr"));
                Finding::new(Rule::StdoutWrite, shown, (w.line, w.column), message)
                    .text(w.text)
                    .fix(redirect)
            })
            .collect(),
    }
}

/// Drop the findings the file's `# skillmod: ignore` comments suppress; add SKM006 for each
/// invalid comment and, when asked, SKM005 for each that suppresses nothing. The number dropped.
fn apply_suppressions(
    findings: &mut Vec<Finding>,
    shown: &str,
    body: &[u8],
    parser: &mut BashParser,
    options: &Options,
) -> usize {
    let (suppressions, invalid) = analyze::suppress::Suppressions::parse(parser, body);
    let lines = LineStarts::new(body);
    findings.sort_by_key(|f| (f.line, f.column));
    let keys: Vec<(usize, &str)> = findings
        .iter()
        .map(|f| (lines.offset(f.line, f.column), f.code.code()))
        .collect();
    let mut drop = suppressions.suppresses(&keys).into_iter();
    let before = findings.len();
    findings.retain(|_| !drop.next().unwrap_or(false));
    let suppressed = before - findings.len();
    findings.extend(invalid.into_iter().map(|bad| {
        let message = format!("{}; it suppresses nothing", bad.message);
        Finding::new(
            Rule::InvalidSuppression,
            shown,
            (bad.line, bad.column),
            message,
        )
    }));
    if options.report_unused_suppressions {
        findings.extend(suppressions.unused().into_iter().map(|place| {
            let message = "this `# skillmod: ignore` comment suppresses nothing; remove it";
            Finding::new(Rule::UnusedSuppression, shown, place, message.into())
        }));
    }
    suppressed
}

/// Byte offsets of line starts, to turn a finding's line and column back into an offset.
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn new(body: &[u8]) -> LineStarts {
        LineStarts(
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', body).map(|i| i + 1))
                .collect(),
        )
    }

    /// The offset of 1-based `line` and byte `column`.
    fn offset(&self, line: usize, column: usize) -> usize {
        self.0.get(line.saturating_sub(1)).copied().unwrap_or(0) + column.saturating_sub(1)
    }
}

/// Counts of a check run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub scripts_checked: usize,
    pub files_with_findings: usize,
    /// Legacy statements (SKM001).
    pub findings: usize,
    /// Other warnings (SKM002, SKM005).
    pub warnings: usize,
    /// SKM010 notes: what check could not read, which the text report shows with `-v`.
    pub notes: usize,
    pub skipped: usize,
    /// Files that could not be read or parsed (SKM003).
    pub errors: usize,
    /// Selected scripts that could not be judged (SKM004 as an error or a warning: too large,
    /// a FIFO, binary, a symlink that cannot be followed), and how many of them are errors.
    pub not_checked: usize,
    pub not_checked_errors: usize,
    /// Findings suppressed by `# skillmod: ignore` comments.
    pub suppressed: usize,
    /// The rules settings files turn off (`select`/`ignore`), per file: "All clear" says so.
    pub rules_off: Vec<RulesOff>,
    /// The paths settings files' `exclude` left out, per file: "All clear" says so too.
    pub excluded_by_settings: Vec<ExcludedBySettings>,
}

/// How many paths one settings file's `exclude` left out of the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExcludedBySettings {
    /// The settings file, relative to the working folder (marked text, see `bytes_text`).
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
    pub settings: String,
    pub paths: usize,
}

/// The rules one settings file turns off for the scripts it governs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RulesOff {
    /// The settings file, relative to the working folder (marked text, see `bytes_text`).
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
    pub settings: String,
    pub rules: Vec<Rule>,
}

/// What the settings files in use turn off: each file whose `select`/`ignore` takes a rule away
/// from what the flags alone would report, sorted by path.
pub fn rules_off(profiles: &PerSettings<Profile>, base: &Path) -> Vec<RulesOff> {
    let mut off: Vec<RulesOff> = profiles
        .built()
        .into_iter()
        .filter_map(|(file, profile)| {
            let file = file?;
            (!profile.rules_off.is_empty()).then(|| RulesOff {
                settings: crate::fsio::display_path(&file, base),
                rules: profile.rules_off.clone(),
            })
        })
        .collect();
    off.sort_by(|a, b| a.settings.cmp(&b.settings));
    off
}

/// What each settings file's `exclude` left out, as the summary names it.
pub fn excluded_by_settings(
    left_out: Vec<(PathBuf, usize)>,
    base: &Path,
) -> Vec<ExcludedBySettings> {
    left_out
        .into_iter()
        .map(|(file, paths)| ExcludedBySettings {
            settings: crate::fsio::display_path(&file, base),
            paths,
        })
        .collect()
}

/// A file that could not be checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileError {
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
    pub path: String,
    /// The rule the text names beside the code (SKM003).
    pub rule: Rule,
    pub code: &'static str,
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// What a check run adds up to; the findings themselves go to `on_file` as they come, so memory
/// stays flat however many files there are.
#[derive(Debug, Clone, Default, Serialize)]
pub struct CheckReport {
    pub summary: Summary,
    pub errors: Vec<FileError>,
    /// The settings files that applied to the files checked.
    #[serde(serialize_with = "crate::bytes_text::serde_path::each")]
    pub settings_files: Vec<String>,
    /// What the folder walks left out without taking it (symlinked folders, excluded paths,
    /// shell files outside skill folders), as the notes on stderr say it.
    pub walk_notes: Vec<String>,
    /// Findings per rule code (`--statistics`).
    #[serde(skip)]
    pub statistics: std::collections::BTreeMap<Rule, usize>,
    /// The readings of legacy lines the scripts checked were judged with (settings can differ
    /// per script).
    pub vocabularies: std::collections::BTreeSet<Vocabulary>,
}

impl CheckReport {
    /// 2 when a file could not be read or parsed (SKM003), 1 when something was found or a
    /// script that must be judged could not be (SKM004 as an error), else 0 (warnings, an
    /// unjudged script a walk found in a skill folder among them, leave it 0); always 0 with
    /// `--exit-zero` (the report still says what).
    pub fn exit_code(&self, exit_zero: bool) -> i32 {
        let s = &self.summary;
        match (exit_zero, s.errors, s.findings + s.not_checked_errors) {
            (true, ..) | (false, 0, 0) => 0,
            (false, 0, _) => 1,
            _ => 2,
        }
    }
}

/// Where the bytes checked come from.
#[derive(Debug, Clone)]
pub enum Bodies {
    /// Each file as it is on disk.
    Files,
    /// One script read from stdin, shown under the name given (`check -`).
    Stdin(String, Vec<u8>),
    /// Each file as git's index holds it (`check --staged`): what a commit would record.
    Index(std::collections::HashMap<PathBuf, crate::vcs::Staged>),
}

impl Bodies {
    /// Read stdin (up to `max_size` bytes) for `check -`, shown as `stdin_name` or `-`; git's
    /// index for `--staged`; else the files themselves.
    pub fn read(
        from_stdin: bool,
        stdin_name: Option<&str>,
        staged: bool,
        files: &[PathBuf],
        options: &Options,
    ) -> crate::error::Result<Bodies> {
        if from_stdin {
            let bytes = crate::contract::run::read_capped(
                std::io::stdin().lock(),
                options.max_size,
                "stdin",
                "--max-size",
            )?;
            let body = crate::fsio::read::Script::from_body(&bytes).body;
            return Ok(Bodies::Stdin(stdin_name.unwrap_or("-").to_string(), body));
        }
        if staged {
            let repo = crate::vcs::Repo::discover(&options.base).ok_or_else(|| {
                Error::new(codes::NOT_A_GIT_REPO, "--staged needs a git work tree")
            })?;
            return Ok(Bodies::Index(repo.staged_scripts(files)?));
        }
        Ok(Bodies::Files)
    }
}

/// Check a file as git's index holds it (`--staged`): its blob, or its symlink's target in the
/// index; size and binary limits as on disk.
fn check_staged(
    path: &Path,
    staged: Option<&crate::vcs::Staged>,
    options: &Options,
    cache: &Cache,
    parser: &mut BashParser,
) -> FileCheck {
    let shown = crate::fsio::display_path(path, &options.base);
    let (script, bytes) = match staged {
        // Staged as deleted or not in the index: nothing to commit, nothing to check.
        None => return clean(),
        Some(crate::vcs::Staged::Refused(reason)) => {
            return unjudged(&shown, path, reason, options);
        }
        Some(crate::vcs::Staged::Blob { script, bytes }) => (script, bytes),
    };
    if crate::config::discover::is_runtime_file(path.file_name().unwrap_or_default()) {
        return runtime_file(&shown, crate::unit::runtime::state_of(bytes));
    }
    // A file a selected script sources is shell, whatever its name, as on disk.
    let shell =
        |body: &[u8]| Dialect::is_shell_file(path, body) || options.sourcing.is_library(path);
    let too_large = bytes.len() as u64 > options.max_size;
    if too_large && !shell(bytes) {
        let not_shell = ReadOutcome::Skipped(crate::domain::refusal::not_shell());
        return unread(&shown, path, not_shell, options, &Profile::default());
    }
    if too_large {
        let reason = Error::new(
            codes::FILE_TOO_LARGE,
            format!(
                "{} bytes (as staged) is over the {}-byte limit; raise it with --max-size",
                bytes.len(),
                options.max_size
            ),
        );
        return unjudged(&shown, path, &reason, options);
    }
    if crate::fsio::read::is_binary(bytes) {
        let reason = Error::new(codes::BINARY_FILE, "binary file (NUL bytes, as staged)");
        return unjudged(&shown, path, &reason, options);
    }
    let body = crate::fsio::read::Script::from_body(bytes).body;
    if !shell(&body) {
        let not_shell = ReadOutcome::Skipped(crate::domain::refusal::not_shell());
        return unread(&shown, path, not_shell, options, &Profile::default());
    }
    match options.profiles.get_prepared(path) {
        Ok(profile) => {
            let origin = Origin {
                script: Some(script.as_path()),
                named: options
                    .named_scripts
                    .contains(&crate::fsio::canonical(path)),
            };
            check_body_at(
                &shown, origin, &body, options, &profile, cache, parser, None,
            )
        }
        Err(error) => {
            let default = Profile::default();
            whole_file(Rule::Unreadable, &shown, &error, Outcome::Failed, &default)
        }
    }
}

/// Each real file once, as migrate takes it (`migrate::Selected`): a symlink whose target is
/// selected too, or reached through an earlier link, adds nothing but the same findings counted
/// twice. A link whose target is not selected stays, judged at its target under its own name.
pub fn once_each(files: Vec<PathBuf>) -> Vec<PathBuf> {
    // One stat per file; real paths are resolved only in a run that selected a link.
    let links: Vec<bool> = files
        .iter()
        .map(|f| std::fs::symlink_metadata(f).is_ok_and(|m| m.file_type().is_symlink()))
        .collect();
    if !links.contains(&true) {
        return files;
    }
    let mut seen: std::collections::HashSet<PathBuf> = files
        .iter()
        .zip(&links)
        .filter(|(_, link)| !**link)
        .map(|(f, _)| crate::fsio::canonical(f))
        .collect();
    files
        .into_iter()
        .zip(links)
        .filter(|(f, link)| !link || seen.insert(crate::fsio::canonical(f)))
        .map(|(f, _)| f)
        .collect()
}

/// Check `files` in parallel, reading each from `bodies`; `on_file` sees each file's findings
/// in path order.
pub fn run(
    files: &[PathBuf],
    bodies: &Bodies,
    options: &Options,
    cache: &Cache,
    mut on_file: impl FnMut(&[Finding]),
) -> crate::error::Result<CheckReport> {
    let mut report = CheckReport::default();
    crate::parallel::for_each_ordered(
        files,
        |path, parser| {
            if let Some(settings) = options.excluded.get(path) {
                return (excluded_by_settings_check(path, settings, options), None);
            }
            let check = match bodies {
                Bodies::Stdin(shown, bytes) => {
                    check_body(shown, path, bytes, options, cache, parser)
                }
                Bodies::Files => check_file(path, options, cache, parser),
                Bodies::Index(staged) => {
                    check_staged(path, staged.get(path), options, cache, parser)
                }
            };
            let reading = options.profiles.get_prepared(path).ok();
            (check, reading.map(|p| p.vocabulary))
        },
        |path, error| {
            let check = FileCheck {
                findings: vec![file_finding(
                    Rule::Unreadable,
                    &crate::fsio::display_path(path, &options.base),
                    &error,
                )],
                outcome: Outcome::Failed,
                suppressed: 0,
            };
            (check, None)
        },
        |(check, reading)| {
            if check.outcome == Outcome::Checked {
                report.vocabularies.extend(reading);
            }
            let s = &mut report.summary;
            for f in check.findings.iter().filter(|f| is_unjudged(f)) {
                s.not_checked += 1;
                s.not_checked_errors += usize::from(f.severity == Severity::Error);
            }
            match check.outcome {
                Outcome::Checked => s.scripts_checked += 1,
                Outcome::Skipped => s.skipped += 1,
                Outcome::Failed => {}
            }
            s.suppressed += check.suppressed;
            // A file with an error the summary counts as a finding (a legacy statement, a
            // runtime error, a malformed directive).
            if check.findings.iter().any(|f| {
                f.severity == Severity::Error && !is_unjudged(f) && f.code != Rule::Unreadable
            }) {
                s.files_with_findings += 1;
            }
            for f in &check.findings {
                *report.statistics.entry(f.code).or_default() += 1;
                match f.severity {
                    // Counted in `not_checked` (and, as warnings, in `warnings` too: the
                    // JSON report lists them there).
                    Severity::Warning if is_unjudged(f) => s.warnings += 1,
                    _ if is_unjudged(f) => {}
                    Severity::Error if f.code == Rule::Unreadable => {
                        s.errors += 1;
                        report.errors.push(FileError {
                            path: f.path.clone(),
                            rule: f.code,
                            code: f.reason.map_or(f.code.code(), |c| c.code),
                            line: f.line,
                            column: f.column,
                            message: f.message.clone(),
                        });
                    }
                    Severity::Error => s.findings += 1,
                    Severity::Warning => s.warnings += 1,
                    Severity::Note if f.code == Rule::OutOfReach => s.notes += 1,
                    Severity::Note => {}
                }
            }
            on_file(&check.findings);
        },
    )?;
    Ok(report)
}
