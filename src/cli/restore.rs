//! `skillmod restore`: the flags become a `restore::Request`; the engine is `crate::restore`.

use crate::codes;
use std::io::Write;
use std::path::PathBuf;

use super::{Format, RestoreArgs, working_dir};
use crate::error::{Error, Result};
use crate::fsio::{Roots, backup, project_root};
use crate::report::restore_text;
use crate::restore;

pub fn run(args: &RestoreArgs) -> Result<i32> {
    let base = working_dir()?;
    // A path that does not exist names nothing to restore, as it names nothing to migrate.
    if let Some(missing) = args
        .paths
        .named()
        .into_iter()
        .find(|p| std::fs::symlink_metadata(p).is_err())
    {
        return Err(Error::new(
            codes::PATH_NOT_FOUND,
            format!(
                "{} does not exist; name a file or folder that migrate changed",
                crate::bytes_text::shown_path(&missing)
            ),
        ));
    }
    let root = root(args, &base)?;
    let runs = backup::list_runs(&root)?;
    let color = args.common.color.choice();
    let (mut stdout, _) = crate::report::stdout(color);
    if args.list {
        return list(args, &root, &runs);
    }
    let request = restore::Request {
        run: args.run.clone(),
        since: args.since.clone(),
        force: args.force,
        filters: filters(args),
        trust: args.trust,
    };
    let report = restore::restore(&root, &base, &runs, &request)?;
    let nothing = report.runs.is_empty();
    if args.format == Format::Text && !args.common.silent {
        // The newest first, a few of them: a repository can carry any number.
        const SHOWN: usize = 5;
        let untrusted = &report.untrusted_runs;
        for one in untrusted.iter().rev().take(SHOWN) {
            eprintln!(
                "note: {}: {}",
                codes::RUN_NOT_RECORDED,
                crate::bytes_text::visible(&one.message)
            );
        }
        if untrusted.len() > SHOWN {
            eprintln!(
                "note: {}: {} more runs this user's migrate did not record; `skillmod restore --list` shows them all",
                codes::RUN_NOT_RECORDED,
                untrusted.len() - SHOWN
            );
        }
    }
    for warning in report.warnings.iter().filter(|_| !nothing) {
        eprintln!("warning: {}", crate::bytes_text::visible(warning));
    }
    match args.format {
        Format::Json => {
            let json = serde_json::to_string_pretty(&report).map_err(|e| {
                Error::new(codes::IO_ERROR, format!("cannot encode the report: {e}"))
            })?;
            let _ = writeln!(stdout, "{json}");
        }
        Format::Text if nothing && !args.common.silent => {
            for warning in &report.warnings {
                let why = warning
                    .strip_prefix(codes::NO_BACKUPS.code)
                    .unwrap_or(warning);
                eprintln!(
                    "nothing to restore ({}){}",
                    codes::NO_BACKUPS,
                    crate::bytes_text::visible(why)
                );
            }
        }
        Format::Text if !nothing && !args.common.quiet && !args.common.silent => {
            restore_text::write(&mut stdout, &report, args.common.verbose)
        }
        Format::Text => {}
    }
    stdout
        .flush()
        .map_err(|e| Error::output("cannot write the report", &e))?;
    Ok(if report.has_problems() { 1 } else { 0 })
}

/// `restore --list`: each run with its files and state, as text lines or one JSON document.
fn list(args: &RestoreArgs, root: &std::path::Path, runs: &[String]) -> Result<i32> {
    let (mut stdout, _) = crate::report::stdout(args.common.color.choice());
    let listed = restore::list(root, runs);
    if args.format == Format::Json {
        let runs: Vec<serde_json::Value> = listed
            .iter()
            .map(|(run, files, state)| {
                let (state, why) = match state {
                    restore::RunState::Own { undone: false } => ("pending", None),
                    restore::RunState::Own { undone: true } => ("undone", None),
                    restore::RunState::Untrusted(why) => ("not_recorded", Some(*why)),
                };
                serde_json::json!({"run": run, "files": files, "state": state, "reason": why})
            })
            .collect();
        let _ = writeln!(stdout, "{}", serde_json::json!({ "runs": runs }));
    }
    for (run, count, state) in listed.iter().filter(|_| args.format == Format::Text) {
        let state = match state {
            restore::RunState::Own { undone: false } => String::new(),
            restore::RunState::Own { undone: true } => "\tundone".into(),
            restore::RunState::Untrusted(why) => format!("\tnot recorded: {why}"),
        };
        // A run is a folder name, which a repository can hold: no control characters.
        let run = crate::bytes_text::visible(run);
        let _ = writeln!(stdout, "{run}\t{count} files{state}");
    }
    if listed.is_empty() && args.format == Format::Text && !args.common.silent {
        eprintln!(
            "no backup runs under {}",
            crate::bytes_text::shown_path(&root.join(crate::fsio::STATE_DIR))
        );
    }
    stdout
        .flush()
        .map_err(|e| Error::output("cannot write the list", &e))?;
    Ok(0)
}

fn filters(args: &RestoreArgs) -> Vec<PathBuf> {
    let p = &args.paths;
    p.paths
        .iter()
        .chain(&p.skill_dirs)
        .chain(&p.skill_paths)
        .map(|path| crate::fsio::canonical(path))
        .collect()
}

/// `root`, or the nearest folder above it, up to the working folder, that keeps backup runs this
/// user's migrate made (`migrate .` ran there, and `restore PATH` names a folder inside it).
/// Never above the working folder: a `.skillmod` someone else planted higher up is not searched,
/// and one planted nearer, holding only runs this user did not make, does not hide the user's.
fn with_backups(root: PathBuf, cwd: &std::path::Path) -> PathBuf {
    let has_runs = |dir: &std::path::Path| {
        backup::list_runs(dir).is_ok_and(|r| restore::distrust(dir, &r).iter().any(Option::is_none))
    };
    if has_runs(&root) {
        return root;
    }
    let cwd = crate::fsio::canonical(cwd);
    root.ancestors()
        .skip(1)
        .take_while(|dir| dir.starts_with(&cwd))
        .find(|dir| has_runs(dir))
        .map_or(root.clone(), std::path::Path::to_path_buf)
}

/// The project root whose backups restore reads: the one the named paths lie in, found as
/// migrate finds it (so `skillmod restore PATH` finds what `skillmod migrate PATH` kept), else
/// the working folder's.
fn root(args: &RestoreArgs, base: &std::path::Path) -> Result<PathBuf> {
    let named = args.paths.named();
    let mut roots = Roots::new(&named);
    let mut found: Vec<PathBuf> = named
        .iter()
        .map(|p| with_backups(roots.root_of_named(p), base))
        .collect();
    found.sort();
    found.dedup();
    match found.as_slice() {
        [] => Ok(project_root(base)),
        [one] => Ok(one.clone()),
        _ => Err(Error::new(
            codes::MULTIPLE_ROOTS,
            "the paths lie in different projects, each with its own backups; restore one project at a time",
        )),
    }
}
