//! Migrating one file: read, analyze, plan, re-parse the result, then back up and write
//! atomically (or only report, in a dry run).

use crate::codes;
use std::path::Path;

use super::{Change, FileReport, Options, Status, runtime};
use crate::analyze::shell::{Dialect, Judge};
use crate::analyze::{
    self, Analysis, BLOCK_DELIMITER, BLOCK_MARKER, BashParser, Vocabulary, flow, prefilter,
    runtime_link,
};
use crate::domain::modes::{Mode, Placement};
use crate::domain::refusal::not_shell;
use crate::domain::rules;
use crate::error::Error;
use crate::fsio::backup::Backups;
use crate::fsio::read::{ReadOutcome, Script, read_script};
use crate::fsio::{atomic, display_path, sha256_hex};
use crate::rewrite::capture::Role;
use crate::rewrite::{self, Reason, capture, values};
use crate::unit::sourcing::Hosted;

/// Migrate one file; never panics on bad input, every problem is in the report. The steps, in
/// order: read, analyze, gate (the refusals), plan, verify, write. Each step returns None once it
/// has put in the report why the file stops there.
pub fn process_file(
    path: &Path,
    options: &Options,
    backups: &Backups,
    parser: &mut BashParser,
) -> (FileReport, Option<Change>) {
    if let Some(settings) = options.excluded.get(path) {
        let reason = crate::config::left_out::excluded_entry_point(settings, &options.base);
        return (super::failed(path, options, reason), None);
    }
    let mut report = FileReport::new(path, options);
    let change = migrate_steps(&mut report, path, options, backups, parser);
    (report, change)
}

fn migrate_steps(
    report: &mut FileReport,
    path: &Path,
    options: &Options,
    backups: &Backups,
    parser: &mut BashParser,
) -> Option<Change> {
    let (script, profile) = read(report, path, options)?;
    let profile = &*profile;
    // A script that sources a library with legacy lines needs the runtime for them.
    let hosted = match profile.mode {
        Mode::Capture => options.sourcing.hosts_library(path),
        Mode::Comment => None,
    };
    let analysis = analyze_script(report, path, &script, profile, hosted, options, parser)?;
    // Decided once: whether it is a library may mean reading the files it sources.
    let part = capture_part(path, &analysis, &script.body, options);
    let upkeep = gate(
        report, path, &script, &analysis, profile, part, hosted, options, backups,
    )?;
    let plan = plan(
        report, path, &script, &analysis, profile, part, hosted, upkeep, options,
    )?;
    let change = verify(report, part, &script, &analysis, &plan, options, parser)?;
    write(report, path, &script, change, options, backups)
}

/// Stop with `status` and the reason.
fn stop<T>(report: &mut FileReport, status: Status, reason: Error) -> Option<T> {
    report.status = status;
    report.errors.push(reason);
    None
}

/// Read the file and find its settings: skipped when it is not a readable shell script, failed
/// when it cannot be read or (`--staged`) differs from what is staged.
fn read(
    report: &mut FileReport,
    path: &Path,
    options: &Options,
) -> Option<(Script, std::sync::Arc<super::Profile>)> {
    let script = match read_script(path, options.max_size, &|| {
        options.sourcing.is_library(path)
    }) {
        Ok(script) => script,
        Err(ReadOutcome::Skipped(reason)) => return unread(report, path, reason, options),
        Err(ReadOutcome::Failed(error)) => return stop(report, Status::Failed, error),
    };
    if !Dialect::is_shell_file(path, &script.body) && !options.sourcing.is_library(path) {
        return stop(report, Status::Skipped, not_shell());
    }
    // Nothing is written outside the project root, through a symlinked folder or otherwise.
    let root = crate::fsio::canonical(&crate::fsio::file_root(path, &options.named));
    let real = crate::fsio::canonical(path);
    if !crate::fsio::links::lies_inside(&real, &root) {
        let reason = Error::new(
            codes::OUTSIDE_ROOT,
            format!(
                "is reached through a symlink to {}, outside its project root {} (or in its .git or .skillmod folder); nothing is written there. Migrate the target in its own project",
                crate::bytes_text::quote_os(&real),
                crate::bytes_text::quote_os(&root)
            ),
        );
        return stop(report, Status::Failed, reason);
    }
    if let Some(unstaged) = &options.unstaged
        && unstaged.contains(&crate::fsio::canonical(path))
    {
        let reason = Error::new(
            codes::STAGED_DIFFERS,
            "--staged: the work tree differs from what is staged; stage (`git add`) or stash the unstaged changes first, so what is migrated is what the commit holds",
        );
        return stop(report, Status::Failed, reason);
    }
    let profile = match options.profiles.get_prepared(path) {
        Ok(profile) => profile,
        Err(error) => return stop(report, Status::Failed, error),
    };
    let sha_before = sha256_hex(&script.bytes());
    report.sha256_before = Some(sha_before.clone());
    report.sha256_after = Some(sha_before);
    Some((script, profile))
}

/// A file not read: skipped by policy, or, when what it holds is unknown (too large, a FIFO,
/// binary, a symlink that leads outside its project root or nowhere), unjudged as check says:
/// failed when it had to be judged (`Selected::must_judge`), else skipped with a warning.
fn unread<T>(report: &mut FileReport, path: &Path, reason: Error, options: &Options) -> Option<T> {
    let reason = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            let root = crate::fsio::file_root(path, &options.named);
            match crate::fsio::links::follow(path, &root) {
                crate::fsio::links::Link::Refused(refusal) => refusal,
                crate::fsio::links::Link::Inside(_) => reason,
            }
        }
        _ => reason,
    };
    if !crate::fsio::links::unjudged(reason.code) {
        return stop(report, Status::Skipped, reason);
    }
    let (severity, status) = if options.selected.must_judge.contains(path) {
        (rules::Severity::Error, Status::Failed)
    } else {
        (rules::Severity::Warning, Status::Skipped)
    };
    report.unjudged = Some(severity);
    stop(report, status, reason)
}

/// The analysis, with the statements `# skillmod: ignore[…]` keeps as they are left out (as
/// `check` does not report them); None (no legacy) when the prefilter rules the file out.
fn analyze_script(
    report: &mut FileReport,
    path: &Path,
    script: &Script,
    profile: &super::Profile,
    hosted: Option<&Hosted>,
    options: &Options,
    parser: &mut BashParser,
) -> Option<Analysis> {
    if !options.force && hosted.is_none() && !might_need_parse(&script.body, profile.vocabulary) {
        report.status = Status::NoLegacy;
        return None;
    }
    let mut analysis = match analyze::analyze(parser, &script.body, profile.vocabulary) {
        Ok(a) => a,
        Err(e) => return stop(report, Status::Failed, e),
    };
    // A helper defined in a file the script sources: read again with its definitions.
    let imported = crate::unit::sourcing::imported_helpers(
        path,
        &analysis,
        &script.body,
        profile.vocabulary,
        options.max_size,
    );
    if !imported.is_empty() {
        analysis = analyze::with_helpers(analysis, &script.body, profile.vocabulary, &imported);
    }
    // `--force` on a script without legacy lines: what it prints through a sourced library's
    // functions is its answer too.
    if options.force
        && analysis.legacy.is_empty()
        && analysis.answer.is_empty()
        && !analysis.already_migrated
    {
        analysis.answer = crate::unit::sourcing::answer_through_sourced(
            path,
            &analysis,
            &script.body,
            options.max_size,
        );
    }
    if analyze::suppress::Suppressions::may_occur(&script.body) {
        let (suppressions, invalid) = analyze::suppress::Suppressions::parse(parser, &script.body);
        suppressions.retain(&mut analysis.legacy, rules::Rule::LegacyOutput, |l| l.start);
        suppressions.retain(&mut analysis.stdout_writes, rules::Rule::StdoutWrite, |w| {
            w.start
        });
        report.notes.extend(invalid.into_iter().map(|bad| Error {
            code: codes::INVALID_SUPPRESSION,
            message: format!(
                "line {}:{}: {} (it suppresses nothing)",
                bad.line, bad.column, bad.message
            ),
        }));
    }
    report.legacy = analysis.legacy.clone();
    report.stdout_writes = analysis.stdout_writes.clone();
    // Never silently emptier: what the document cannot hold is said where it stands, for every
    // script that gets the JSON block (`--force` takes scripts without a legacy line).
    if !analysis.already_migrated && (!analysis.legacy.is_empty() || options.force) {
        report
            .notes
            .extend(analysis.out_of_reach.iter().map(|place| Error {
                code: codes::OUT_OF_REACH,
                message: format!(
                    "line {}:{}: legacy-looking text in {}, which migrate cannot record: the JSON document will not hold what it prints; print it with a literal `echo`, or record it with the runtime's functions (`skillmod_created PATH`)",
                    place.line,
                    place.column,
                    place.form.describe()
                ),
            }));
    }
    Some(analysis)
}

/// Whether the file is migrated at all: a script that prints its own document, a parse error,
/// nothing to do, or a dirty file stops here. For a migrated script, the upkeep plan (runtime
/// upgrade, `--stdout-to-stderr`) comes back as `Some(Some(plan))`.
#[allow(clippy::too_many_arguments)]
fn gate(
    report: &mut FileReport,
    path: &Path,
    script: &Script,
    analysis: &Analysis,
    profile: &super::Profile,
    part: Part,
    hosted: Option<&Hosted>,
    options: &Options,
    backups: &Backups,
) -> Option<Option<rewrite::Plan>> {
    // The one verdict: the refusals check reports as SKM008 (an error: a file with legacy lines
    // left as it is fails, as check fails it). A migrated script gets only its upkeep, never
    // capture mode's rewrite.
    if let Some(refusal) = verdict(path, script, analysis, profile, part, hosted, options) {
        let status = if refusal.against_rewrite || !analysis.legacy.is_empty() {
            Status::Failed
        } else {
            Status::Skipped
        };
        return stop(report, status, refusal.error);
    }
    // Line 2 stands where skillmod puts the runtime but is not skillmod's (check's
    // RUNTIME_FOREIGN): replaced only when asked, and only in a script with nothing else to do.
    let foreign = (profile.mode == Mode::Capture && !analysis.already_migrated)
        .then(|| runtime_link::foreign(&script.body))
        .flatten();
    if foreign.is_some() && (!options.replace_runtime || !analysis.legacy.is_empty()) {
        return stop(
            report,
            Status::Failed,
            foreign_line(options.replace_runtime),
        );
    }
    let upkeep = if analysis.already_migrated || foreign.is_some() {
        match upkeep(
            path,
            &script.body,
            foreign,
            analysis,
            profile,
            options,
            report,
        ) {
            Some(plan) => Some(plan),
            None if redirect_only(script, analysis, options) => Some(rewrite::Plan::default()),
            None => {
                // The script stays; the runtime it sources is written if it is missing or old.
                if let Some(request) = &report.runtime
                    && let Err(reason) = options.runtimes.ensure(request, options, backups)
                {
                    report.errors.push(reason);
                    report.status = Status::Failed;
                    return None;
                }
                report.status = Status::AlreadyMigrated;
                return None;
            }
        }
    } else {
        None
    };
    // check reports this parse error as SKM003, an error: migrate fails the file (exit 1), so
    // the migrate hook stops the commit as the check hook does.
    if let Some(failure) = analysis.parse_failure() {
        return stop(report, Status::Failed, failure.refusal());
    }
    if analysis.legacy.is_empty() && !options.force && hosted.is_none() && upkeep.is_none() {
        report.status = Status::NoLegacy;
        return None;
    }
    if upkeep.is_none() && analysis.legacy.is_empty() {
        // `--force` puts a script under the contract: its answer's writes are counted, and with
        // `--keep-stdout` they stay on stdout.
        report.stdout_writes = analysis.answer.clone();
    }
    // A parse error with no marker near it still keeps a forced or hosted rewrite out.
    if analysis.parse_errors > 0 {
        let first = analysis.first_error.unwrap_or((0, 0));
        let failure = analyze::ParseFailure {
            line: first.0,
            column: first.1,
            first_error: first,
            errors: analysis.parse_errors,
            legacy_found: true,
        };
        return stop(report, Status::Skipped, failure.refusal());
    }
    // Refused before any planning: a dirty file is never rewritten, so no work is spent on it.
    if let Some(dirty) = &options.dirty
        && dirty.contains(&crate::fsio::canonical(path))
    {
        let reason = Error::new(
            codes::DIRTY_FILE,
            "has uncommitted changes (staged, unstaged or untracked); commit or stash them first, or pass --allow-dirty",
        );
        return stop(report, Status::Failed, reason);
    }
    Some(upkeep)
}

/// What the one verdict says of the script as migrate is asked to take it (`verdict::refusal`).
fn verdict(
    path: &Path,
    script: &Script,
    analysis: &Analysis,
    profile: &super::Profile,
    part: Part,
    hosted: Option<&Hosted>,
    options: &Options,
) -> Option<crate::verdict::Refusal> {
    // A library prints into the script that sources it, and a script written against the
    // runtime (`skillmod_success`, …) prints its document: only another script's stdout is an
    // answer.
    let answer_exempt = matches!(part, Part::Library(_))
        || memchr::memmem::find(&script.body, b"skillmod_").is_some();
    let ask = crate::verdict::Ask {
        mode: profile.mode,
        keep_stdout: profile.keep_stdout,
        legacy: !analysis.legacy.is_empty(),
        force: options.force,
        hosts_library: hosted.is_some(),
        role_given: part != Part::Unknown,
        sourced: matches!(
            part,
            Part::Library(LibraryReason::Sourced) | Part::SourcedScript
        ),
        answer_exempt,
        read_by: options.callers.read_by(path),
    };
    let facts = crate::verdict::Facts::of(analysis, &script.body, ask.rewrites());
    let clashed = facts.with_sourced_clash(
        Some(path),
        || crate::unit::sourcing::sourced_in(&analysis.tree, &script.body),
        ask.rewrites(),
        options.max_size,
    );
    crate::verdict::refusal(clashed.as_ref().unwrap_or(&facts), &ask)
}

/// A script that already prints its document without the runtime (comment mode, or an
/// `EOF_JSON` block written by hand): `--stdout-to-stderr` still moves its other writes.
fn redirect_only(script: &Script, analysis: &Analysis, options: &Options) -> bool {
    options.stdout_to_stderr
        && runtime_link::find(&script.body).is_none()
        && !analysis.stdout_writes.is_empty()
}

/// The edits: the upkeep plan, or the mode's rewrite, and `--stdout-to-stderr`'s redirections.
#[allow(clippy::too_many_arguments)]
fn plan(
    report: &mut FileReport,
    path: &Path,
    script: &Script,
    analysis: &Analysis,
    profile: &super::Profile,
    part: Part,
    hosted: Option<&Hosted>,
    upkeep: Option<rewrite::Plan>,
    options: &Options,
) -> Option<rewrite::Plan> {
    let skill_name = skill_name(path);
    let planned = match (upkeep, profile.mode) {
        (Some(plan), _) => Ok(plan),
        (None, Mode::Comment) => {
            let context =
                values::static_values(&analysis.legacy, profile.default_confidence, &skill_name);
            report
                .notes
                .extend(values::invalid_confidences(&analysis.legacy));
            let unreachable = last_command_always_exits(analysis, &script.body);
            report.stdout_kept = !options.stdout_to_stderr;
            rewrite::plan_comment_mode(
                analysis,
                &script.body,
                &profile.template,
                &context,
                unreachable,
            )
        }
        (None, Mode::Capture) => {
            if let Some(note) = part_note(part, hosted) {
                report.notes.push(note);
            }
            let role = match part {
                Part::Library(_) => Role::Library,
                Part::SourcedScript => Role::SourcedScript,
                Part::Script { .. } | Part::Unknown => Role::Script,
            };
            match &profile.runtime {
                Some(runtime) => {
                    let (at, relative) = crate::unit::runtime::location(
                        path,
                        &options.named,
                        profile.placement,
                        &runtime.file_name,
                    );
                    let inline = profile.placement == super::Placement::Inline;
                    if role.loads_runtime() && !inline {
                        request_runtime(report, at.clone(), runtime, options);
                    }
                    let skill = skill_of(&at);
                    let link = link(profile, runtime, analysis, &script.body, &relative, &skill);
                    report.stdout_to_stderr = role.loads_runtime() && !profile.keep_stdout;
                    Ok(capture::plan_capture_mode(
                        analysis,
                        &script.body,
                        &link,
                        role,
                        hosted.map(|h| h.success),
                    ))
                }
                None => Err(Error::new(
                    codes::INTERNAL_ERROR,
                    "capture mode without a runtime; please report this",
                )),
            }
        }
    };
    let mut plan = match planned {
        Ok(plan) => plan,
        Err(e) => return stop(report, Status::Failed, e),
    };
    // In capture mode the runtime moves every other write to stderr when the script starts.
    if options.stdout_to_stderr
        && (profile.mode == Mode::Comment || redirect_only(script, analysis, options))
    {
        for write in &analysis.stdout_writes {
            plan.push(
                write.end,
                write.end,
                " >&2",
                Reason::StdoutToStderr { line: write.line },
            );
        }
    }
    Some(plan)
}

/// Apply the plan and check the result: re-parsed (no new parse error), not a no-op, and, before
/// a real write, accepted by the real shell where it accepted the original.
fn verify(
    report: &mut FileReport,
    part: Part,
    script: &Script,
    analysis: &Analysis,
    plan: &rewrite::Plan,
    options: &Options,
    parser: &mut BashParser,
) -> Option<Change> {
    let body = match rewrite::apply_checked(plan, analysis, &script.body, parser) {
        Ok(body) => body,
        Err(e) => return stop(report, Status::Failed, e),
    };
    // A rewrite that changes no byte is no migration: nothing is written, backed up or
    // committed, and the report says why. A library already in its migrated form (under
    // --force: its hooks are there) is already migrated; one never migrated (no legacy line of
    // its own, and no runtime for a library) is not.
    if body == script.body {
        let message = nothing_to_change(report, part, analysis, &script.body);
        report.notes.push(Error {
            code: codes::NOTHING_TO_CHANGE,
            message,
        });
        return None;
    }
    // The real shell guards what is written; a dry run shows the plan without asking it.
    if !options.dry_run
        && let Some(refusal) = judge(analysis, &script.body, &body)
    {
        return stop(report, Status::Failed, refusal);
    }
    let before = script.bytes();
    let prefix = before.len() - script.body.len();
    Some(Change {
        after: script.with_body(&body),
        before,
        edits: plan
            .edits
            .iter()
            .map(|e| (prefix + e.start..prefix + e.end, e.replacement.len()))
            .collect(),
    })
}

/// Why a rewrite changes no byte, and the file's true status in the report.
fn nothing_to_change(
    report: &mut FileReport,
    part: Part,
    analysis: &Analysis,
    body: &[u8],
) -> String {
    const NOTHING: &str = "nothing was written or recorded";
    if analysis.already_migrated || capture::has_library_hooks(body) {
        report.status = Status::AlreadyMigrated;
        return format!("the rewrite is byte-for-byte the file as it is; {NOTHING}");
    }
    report.status = Status::NoLegacy;
    let why = match part {
        Part::Library(LibraryReason::Sourced) => "is sourced by another selected script",
        Part::Library(LibraryReason::TopLevelReturn) => "returns at top level",
        Part::Script { .. } | Part::SourcedScript | Part::Unknown => {
            return format!("has no legacy line, and the rewrite changes no byte; {NOTHING}");
        }
    };
    // Said once, here: no runtime or trap "was added" to a file left as it is.
    report.notes.retain(|n| n.code != codes::SOURCED_LIBRARY);
    format!(
        "a library ({why}) with no legacy line of its own: it gets no runtime, so there is nothing to change; {NOTHING}"
    )
}

/// Back up and replace the file atomically (only if it is still what was read); a dry run
/// reports what would be written.
fn write(
    report: &mut FileReport,
    path: &Path,
    script: &Script,
    change: Change,
    options: &Options,
    backups: &Backups,
) -> Option<Change> {
    // `read` hashed the original already.
    let sha_before = report
        .sha256_before
        .clone()
        .unwrap_or_else(|| sha256_hex(&change.before));
    let sha_after = sha256_hex(&change.after);
    // The runtime first: a script is never pointed at a runtime that is not on disk as ours.
    if let Some(request) = &report.runtime
        && let Err(reason) = options.runtimes.ensure(request, options, backups)
    {
        report.status = Status::Failed;
        report.errors.push(reason);
        return None;
    }
    if options.dry_run {
        report.status = Status::WouldMigrate;
        report.sha256_after = Some(sha_after);
        return Some(change);
    }
    if let Some(refusal) = write_refusal(script, options.force) {
        return stop(report, Status::Failed, refusal);
    }
    if options.backup {
        let root = crate::fsio::file_root(path, &options.named);
        match backups.save(
            &root,
            path,
            &change.before,
            script.mode,
            &sha_before,
            &sha_after,
        ) {
            Ok(backup) => report.backup = Some(display_path(&backup, &options.base)),
            Err(e) => return stop(report, Status::Failed, e),
        }
    }
    let expected = atomic::Expected {
        len: script.len,
        modified: script.modified,
        sha256: sha_before,
        owner: script.owner,
    };
    if let Err(e) = atomic::replace_checked(path, &change.after, script.mode, &expected) {
        return stop(report, Status::Failed, e);
    }
    report.status = Status::Migrated;
    report.sha256_after = Some(sha_after);
    Some(change)
}

/// A migrated script's upkeep in capture mode: its runtime is brought to the form the settings
/// ask for (the source line of this skillmod, naming the runtime in the skill folder or at the
/// project root, or the inline block), and the runtime file that line names is requested. None
/// when nothing in the script changes.
fn upkeep(
    path: &Path,
    body: &[u8],
    foreign: Option<runtime_link::RuntimeLine>,
    analysis: &Analysis,
    profile: &super::Profile,
    options: &Options,
    report: &mut FileReport,
) -> Option<rewrite::Plan> {
    let runtime = profile.runtime.as_ref()?;
    let replaced = foreign.is_some();
    let current = match foreign {
        Some(line) => line,
        None => runtime_link::find(body)?,
    };
    let (at, relative) =
        crate::unit::runtime::location(path, &options.named, profile.placement, &runtime.file_name);
    let inline = profile.placement == Placement::Inline;
    let skill = skill_of(&at);
    let link = link(profile, runtime, analysis, body, &relative, &skill);
    // A line that says a clean exit is success where the script records a success line, or
    // one not skillmod's at all, gets the setting from the script.
    let recorded_success = if replaced {
        analysis.recorded_success(body).is_some()
    } else {
        analysis.contradicted_exit_claim(body).is_some()
    };
    let plan = capture::plan_convert(body, &current, &link, recorded_success);
    if let (Some(_), runtime_link::RuntimeLine::Sourced { relative: old, .. }) = (&plan, &current) {
        let before = crate::unit::runtime::named_by(path, old);
        if before != at {
            report.released = Some(before);
        }
    }
    if !inline
        && (plan.is_some()
            || crate::unit::runtime::state(&at) != crate::unit::runtime::State::Current)
    {
        request_runtime(report, at.clone(), runtime, options);
    }
    let plan = plan?;
    let before = match &current {
        runtime_link::RuntimeLine::Inline { .. } => "skillmod 0.1.0's one-line runtime".to_string(),
        runtime_link::RuntimeLine::Block { version, .. } => {
            format!(
                "the inline runtime block (version {})",
                version.unwrap_or(0)
            )
        }
        runtime_link::RuntimeLine::Sourced {
            relative, version, ..
        } => {
            format!("the line sourcing {relative} (runtime version {version})")
        }
    };
    let after = if inline {
        "the inline runtime block".to_string()
    } else {
        format!("one line sourcing {relative}")
    };
    let message = if replaced {
        format!(
            "the runtime's line, which was not what skillmod writes, becomes {after} (--replace-runtime)"
        )
    } else if recorded_success {
        format!(
            "{before} said a clean exit is success (`__skm_need=0`), but the script records a success line: it becomes {after} without that setting"
        )
    } else {
        format!(
            "{before} becomes {after} (runtime version {})",
            capture::RUNTIME_VERSION
        )
    };
    report.notes.push(Error {
        code: codes::RUNTIME_UPGRADED,
        message,
    });
    Some(plan)
}

/// `RUNTIME_FOREIGN` for a script whose line where skillmod puts the runtime is not
/// what skillmod writes: replaced with `--replace-runtime`, unless the script also has legacy
/// lines (then by hand first).
fn foreign_line(asked: bool) -> Error {
    let what = "the line after the shebang where skillmod puts the runtime is not what skillmod writes (edited, or written by someone else)";
    let message = if asked {
        format!(
            "{what}, and the script has legacy lines too: put back the line skillmod wrote (or delete that line), then migrate again"
        )
    } else {
        format!(
            "{what}: read it, then pass --replace-runtime to write skillmod's line in its place (with a backup)"
        )
    };
    Error::new(codes::RUNTIME_FOREIGN, message)
}

/// Ask for the runtime file at `at` to be written once all scripts are done.
fn request_runtime(
    report: &mut FileReport,
    at: std::path::PathBuf,
    runtime: &std::sync::Arc<capture::Runtime>,
    options: &Options,
) {
    report.runtime_file = Some(display_path(&at, &options.base));
    report.runtime = Some(runtime::Request {
        path: at,
        runtime: runtime.clone(),
    });
}

/// Files that must not be replaced: a hard link would be split from its other names, and a
/// read-only file says someone meant it to stay (unless `--force`).
fn write_refusal(script: &Script, force: bool) -> Option<Error> {
    if script.links > 1 {
        return Some(Error::new(
            codes::HARD_LINK,
            format!(
                "has {} hard links; replacing it would split them (the other names would keep the old script). Migrate a copy, or break the links first",
                script.links
            ),
        ));
    }
    if script.mode & 0o222 == 0 && !force {
        return Some(Error::new(
            codes::READ_ONLY,
            "is read-only; pass --force to migrate it anyway (its mode is kept)",
        ));
    }
    None
}

/// The real shell has the last word: a rewrite it rejects, where it accepted the original, is
/// refused whatever tree-sitter said. Nothing is judged where the shell is not installed.
fn judge(analysis: &Analysis, before: &[u8], after: &[u8]) -> Option<Error> {
    let judge = Judge::for_dialect(analysis.dialect)?;
    let complaint = judge.check(after)?.err()?;
    judge.check(before)?.ok()?;
    Some(Error::new(
        codes::REWRITE_SHELL_SYNTAX,
        format!(
            "`{} -n` accepts this script but would reject the rewrite ({complaint}); nothing was written. Migrate it by hand, and please report it",
            judge.name
        ),
    ))
}

/// How capture mode takes a file: a script, a library (and what says so), or, when nothing
/// tells, neither (refused with `NO_SHEBANG`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// A script that runs on its own: it has a shebang, or was named with `--skill-path` (then
    /// migrate writes one, so the runtime line is line 2).
    Script { shebang: bool },
    /// A script meant to be sourced: it gets no runtime or EXIT trap of its own.
    Library(LibraryReason),
    /// A script another selected script sources that runs on its own too: it has a shebang, and
    /// running it reaches a result line (`main "$@"`, however guarded, calling the function that
    /// prints it). Taken as a library alone, it would print nothing when run as the skill.
    SourcedScript,
    /// No shebang, no top-level `return`, sourced by no selected script, not named with
    /// `--skill-path`: a script run as `bash FILE` or a library sourced from elsewhere.
    Unknown,
}

/// What says a script is a library: another selected script sources it, or it returns at top
/// level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LibraryReason {
    Sourced,
    TopLevelReturn,
}

fn capture_part(path: &Path, analysis: &Analysis, body: &[u8], options: &Options) -> Part {
    if options.sourcing.is_library(path) {
        // An include guard (`[ -n "$LOADED" ] && return 0`) returns only when sourced twice.
        let imported = || match options.sourcing.hosts_library(path) {
            Some(_) => {
                let sourced = crate::unit::sourcing::sourced_in(&analysis.tree, body);
                crate::unit::sourcing::hosted_functions(path, sourced, options.max_size)
            }
            None => std::collections::HashSet::new(),
        };
        if body.starts_with(b"#!") && analysis.reaches_a_result_when_run(body, &imported()) {
            Part::SourcedScript
        } else {
            Part::Library(LibraryReason::Sourced)
        }
    } else if analysis.returns_at_top_level(body) {
        Part::Library(LibraryReason::TopLevelReturn)
    } else if body.starts_with(b"#!") {
        Part::Script { shebang: true }
    } else if options
        .selected
        .named_scripts
        .contains(&crate::fsio::canonical(path))
    {
        Part::Script { shebang: false }
    } else {
        Part::Unknown
    }
}

fn part_note(part: Part, hosted: Option<&Hosted>) -> Option<Error> {
    let why = match part {
        Part::Library(LibraryReason::Sourced) => "is sourced by another selected script",
        Part::Library(LibraryReason::TopLevelReturn) => "returns at top level",
        Part::Script { shebang: false } => {
            return Some(Error::new(
                codes::SHEBANG_ADDED,
                format!(
                    "has no shebang and was named with --skill-path, so it is migrated as a script: `{}` is written as its first line, before the line that loads the runtime",
                    crate::domain::refusal::ADDED_SHEBANG
                ),
            ));
        }
        Part::SourcedScript => {
            return Some(Error::new(
                codes::SOURCED_SCRIPT,
                "is sourced by another selected script and runs on its own too: its legacy lines record into whichever runtime is loaded, and it gets the runtime line, which does nothing where the script that sources it loaded one",
            ));
        }
        Part::Script { shebang: true } | Part::Unknown => {
            return hosted.map(|hosted| {
                let names: Vec<String> = hosted
                    .libraries
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect();
                Error::new(codes::SOURCES_LIBRARY,
                    format!(
                        "sources {} with legacy lines: it gets the runtime, which prints the JSON document those lines record into (its own output goes to stderr). A test harness that is no part of the skill stays as it is with `--exclude` or `exclude` in skillmod.toml",
                        names.join(", ")
                    ),
                )
            });
        }
    };
    Some(Error::new(
        codes::SOURCED_LIBRARY,
        format!(
            "{why}, so it is taken as a library meant to be sourced: no runtime or EXIT trap was added; its legacy lines record into the runtime of the script that sources it (a no-op where that script has none)"
        ),
    ))
}

/// The line of a last command that always exits.
fn last_command_always_exits(analysis: &Analysis, body: &[u8]) -> Option<usize> {
    if analysis.final_exit.is_some()
        || (memchr::memmem::find(body, b"exit").is_none()
            && memchr::memmem::find(body, b"exec").is_none())
    {
        return None;
    }
    flow::last_command_always_exits(analysis.tree.root_node(), body)
}

/// False when the file can hold neither a legacy statement nor the JSON block (the test check
/// parses by, so both read the same files).
fn might_need_parse(body: &[u8], vocabulary: Vocabulary) -> bool {
    prefilter::worth_parsing(body, vocabulary)
        || [
            BLOCK_MARKER,
            BLOCK_DELIMITER,
            runtime_link::LINE_START,
            runtime_link::BLOCK_START,
            runtime_link::SOURCE_PREFIX,
            runtime_link::INLINE_MARKER,
        ]
        .iter()
        .any(|m| memchr::memmem::find(body, m.as_bytes()).is_some())
}

/// How a script loads its runtime under `profile`: the runtime's path from the script, the
/// settings, the form (a source line, or the inline block) and the failure document.
fn link<'a>(
    profile: &'a super::Profile,
    runtime: &'a capture::Runtime,
    analysis: &Analysis,
    body: &[u8],
    relative: &'a str,
    skill: &'a str,
) -> capture::Link<'a> {
    capture::Link {
        relative,
        default_confidence: profile.default_confidence,
        keep_stdout: profile.keep_stdout,
        inline: (profile.placement == Placement::Inline).then_some(runtime.text.as_str()),
        bash: analysis.dialect != Dialect::Posix && !runtime_link::shellcheck_reads_as_sh(body),
        failure: &runtime.failure,
        skill_name: skill,
    }
}

/// The name of the skill folder holding the runtime file `at` (the folder above a skill's
/// `scripts/`, where the runtime of a skill that has one lies).
fn skill_of(at: &Path) -> String {
    crate::unit::runtime::skill_holding(at)
        .file_name()
        .map_or_else(
            || "skill".to_string(),
            |n| crate::bytes_text::escape(n.as_encoded_bytes()).into_owned(),
        )
}

/// The skill's name: the folder holding its script (bytes that are not UTF-8 in the contract's
/// escape, as the runtime writes them).
fn skill_name(path: &Path) -> String {
    std::path::absolute(path)
        .ok()
        .and_then(|p| {
            p.parent()
                .and_then(|d| d.file_name())
                .map(|n| crate::bytes_text::escape(n.as_encoded_bytes()).into_owned())
        })
        .unwrap_or_else(|| "skill".to_string())
}
