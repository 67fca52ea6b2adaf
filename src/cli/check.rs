//! `skillmod check`: report live legacy statements; exit 1 when any is found, 2 on errors.

use std::io::Write;

use super::{CheckArgs, working_dir};
use crate::check::cache::Cache;
use crate::check::{self, Options, Profile};
use crate::config::targets::Targets;
use crate::config::{PerSettings, Settings, list_flag};
use crate::error::{Error, Result};
use crate::fsio::named_root;
use crate::report::check_output::{CheckFormat, Renderer};
use crate::report::check_text::{self, Palette};
use crate::report::progress::Progress;

pub fn run(args: &CheckArgs) -> Result<i32> {
    args.common.init_threads()?;
    let targets = &args.paths;
    // `check -`: one script from stdin (editors pass the buffer and --stdin-filename).
    let stdin = targets.stdin_path(args.stdin_filename.as_deref(), dash_after_separator())?;
    let roots = stdin
        .as_deref()
        .map_or_else(|| targets.named(), Targets::folder_of);
    let resolver = args.settings.resolver_for(&roots, args.paths.staged)?;
    let base = working_dir()?;
    let cache = load_cache(args, &base);
    let mut files = files_to_check(args, stdin.as_deref(), &resolver, &cache)?;
    if stdin.is_some() && files.is_empty() {
        return Ok(0);
    }
    let excluded = match stdin {
        Some(_) => std::collections::HashMap::new(),
        None => targets.with_excluded_entry_points(&mut files)?,
    };
    let profiles = profiles(args, resolver)?;
    let used = profiles.prepare(&files)?;
    args.common.show_settings(&used);
    let rules_off = check::rules_off(&profiles, &base);
    let (root_prefix, root_uri) = crate::report::roots(&base);
    let runtimes = runtime_states(&base, args.paths.staged);
    let options = Options {
        max_size: args.max_size,
        base,
        report_unused_suppressions: args.report_unused_suppressions,
        profiles,
        runtimes,
        named: match targets.named() {
            named if named.is_empty() => vec![working_dir()?],
            named => named,
        },
        explicit: targets.explicit_files(),
        named_scripts: targets.named_scripts(),
        sourcing: crate::unit::sourcing::Deferred::new(files.clone(), args.max_size),
        excluded,
    };
    let color = args.common.color.choice();
    let (mut stdout, colored) = crate::report::stdout(color);
    let mut progress = Progress::new(files.len(), args.common.quiet || args.common.silent);
    let mut renderer = Renderer::start(
        args.format,
        (args.common.quiet, args.common.silent, args.common.verbose),
        Palette { colored },
        &root_prefix,
        &root_uri,
        &mut stdout,
    )
    .map_err(write_error)?;
    let mut failed_write = None;
    let bodies = check::Bodies::read(
        stdin.is_some(),
        args.stdin_filename.as_deref(),
        args.paths.staged,
        &files,
        &options,
    )?;
    let mut report = check::run(&files, &bodies, &options, &cache, |findings| {
        progress.inc();
        let written = progress.suspend(|| renderer.file(&mut stdout, findings));
        if let Err(e) = written {
            failed_write.get_or_insert(e);
        }
    })?;
    progress.finish();
    report.settings_files = used
        .iter()
        .map(|(p, _)| crate::bytes_text::os_marked(p.as_os_str()))
        .collect();
    report.summary.rules_off = rules_off;
    report.summary.excluded_by_settings =
        check::excluded_by_settings(targets.excluded_by_settings(), &options.base);
    let notes = targets.walk_notes(&options.base);
    report.walk_notes = notes.iter().map(|n| n.text.clone()).collect();
    cache.save();
    if let Some(e) = failed_write {
        return Err(write_error(e));
    }
    let written = renderer.finish(&mut stdout, &report);
    written.and_then(|_| stdout.flush()).map_err(write_error)?;
    targets.print_walk_notes(
        &notes,
        (args.common.quiet || args.common.silent, args.common.verbose),
    );
    if args.statistics {
        check_text::write_statistics(&mut stdout, &report).map_err(write_error)?;
    }
    if args.format != CheckFormat::Text && !args.common.silent {
        errors_on_stderr(&report, color);
    }
    exit_status(args, &report, files.len())
}

/// The files that could not be checked, on stderr, for the machine formats (the text report
/// shows them in place).
fn errors_on_stderr(report: &check::CheckReport, color: anstream::ColorChoice) {
    let mut stderr = crate::report::stderr(color);
    for e in &report.errors {
        let _ = writeln!(
            stderr,
            "error: {}: {}: {}",
            crate::bytes_text::quote_path(&e.path),
            e.code,
            crate::bytes_text::visible(&e.message)
        );
    }
}

/// Whether the command line has a `-` after `--`: a file named `-`, not stdin.
fn dash_after_separator() -> bool {
    let mut args = std::env::args_os().skip_while(|a| a != "--");
    args.next().is_some() && args.any(|a| a == "-")
}

/// Each file's profile: its settings file under the flags, which win.
fn profiles(
    args: &CheckArgs,
    resolver: std::sync::Arc<crate::config::Resolver>,
) -> Result<PerSettings<Profile>> {
    let flags = Settings::from_flags(Settings {
        select: list_flag(&args.select),
        ignore: list_flag(&args.ignore),
        vocabulary: args.settings.vocabulary,
        ..Settings::default()
    })?;
    Ok(PerSettings::new(resolver, move |config| {
        Profile::new(&flags, config)
    }))
}

/// The files to check: the script read from stdin, else the targets, each real file once (under
/// --staged a file is what the index holds, whatever the work tree links to).
fn files_to_check(
    args: &CheckArgs,
    stdin: Option<&std::path::Path>,
    resolver: &std::sync::Arc<crate::config::Resolver>,
    cache: &Cache,
) -> Result<Vec<std::path::PathBuf>> {
    let targets = &args.paths;
    let sources_of = |path: &std::path::Path| {
        cache.sources_of(path, || {
            crate::unit::sourcing::sourced_targets(path, args.max_size)
        })
    };
    let libraries = |files: &[std::path::PathBuf], named: &[std::path::PathBuf]| {
        crate::unit::sourcing::unselected_libraries(files, named, args.max_size, &sources_of)
    };
    match stdin {
        Some(path) => targets.stdin_files(path, args.stdin_filename.is_some(), resolver),
        // The index's files as they are, each (no dedup by the work tree's links).
        None if targets.staged => {
            let files = targets.files("check", resolver)?;
            let files = targets.with_libraries(files, libraries, resolver)?;
            targets.with_sourcers(files, &sources_of, resolver)
        }
        None => {
            let files = targets.files("check", resolver)?;
            let files = targets.with_libraries(files, libraries, resolver)?;
            Ok(check::once_each(targets.with_sourcers(
                files,
                &sources_of,
                resolver,
            )?))
        }
    }
}

/// The exit status, after what it needs said: nothing checked (exit 2 when paths were named), or
/// that `--exit-zero` hides findings.
fn exit_status(args: &CheckArgs, report: &check::CheckReport, files: usize) -> Result<i32> {
    let s = &report.summary;
    // A script that had to be judged and could not be is the answer (exit 1), not "nothing".
    if s.scripts_checked == 0 && s.errors == 0 && s.not_checked_errors == 0 {
        args.paths
            .nothing_checked(files, s.skipped, args.common.silent)?;
    }
    let found = s.errors + s.findings + s.not_checked_errors;
    if args.exit_zero && found > 0 && !args.common.silent {
        eprintln!(
            "note: --exit-zero: exiting 0 although {} error(s), {} legacy statement(s) and {} script(s) that could not be checked were reported",
            s.errors, s.findings, s.not_checked_errors
        );
    }
    Ok(report.exit_code(args.exit_zero))
}

fn write_error(e: std::io::Error) -> Error {
    Error::output("cannot write the report", &e)
}

/// How runtime files are read: from git's index with --staged (as the commit will hold them),
/// else from disk, in the work tree whose commits must hold them.
fn runtime_states(base: &std::path::Path, staged: bool) -> crate::unit::runtime::States {
    match crate::vcs::Repo::discover(base) {
        Some(repo) if staged => crate::unit::runtime::States::from_index(repo),
        Some(repo) => crate::unit::runtime::States::in_work_tree(repo),
        None => Default::default(),
    }
}

/// The check cache (none with --no-cache), kept at the named paths' project root or in
/// --cache-dir; a cache that cannot be used is a warning, never a failure.
fn load_cache(args: &CheckArgs, base: &std::path::Path) -> Cache {
    if args.no_cache {
        return Cache::disabled();
    }
    let (cache, warning) = Cache::load(
        &named_root(&args.paths.named(), base),
        args.cache_dir.as_deref(),
    );
    if let Some(warning) = warning {
        eprintln!("warning: {}", crate::bytes_text::visible(&warning));
    }
    cache
}
