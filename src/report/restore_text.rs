//! Human output of `restore`: one line per file that changed (every file with `-v`), the errors
//! under it, then a summary of the runs.

use std::io::Write;

use crate::restore::{Report, Status};

pub fn write(out: &mut dyn Write, report: &Report, verbose: bool) {
    for file in &report.files {
        if verbose || file.status != Status::Unchanged {
            let label = match file.status {
                Status::Restored if file.removed => "removed",
                Status::Restored => "restored",
                Status::Unchanged => "unchanged",
                Status::Refused => "refused",
                Status::Failed => "failed",
            };
            let _ = writeln!(out, "{label:>10} {}", super::quote_path(&file.path));
            for e in &file.errors {
                let _ = writeln!(
                    out,
                    "{:>10} {}: {}",
                    "",
                    e.code,
                    crate::bytes_text::visible(&e.message)
                );
            }
        }
    }
    let count = |status| report.files.iter().filter(|f| f.status == status).count();
    // Runs are folder names, which a repository can hold: no control characters.
    let runs = match report.runs.as_slice() {
        [one] => format!("run {}", crate::bytes_text::visible(one)),
        many => format!(
            "{} runs ({} to {})",
            many.len(),
            crate::bytes_text::visible(&many[many.len() - 1]),
            crate::bytes_text::visible(&many[0])
        ),
    };
    let _ = writeln!(
        out,
        "{runs}: {} of {} files restored, {} already original, {} refused, {} failed",
        count(Status::Restored),
        report.files.len(),
        count(Status::Unchanged),
        count(Status::Refused),
        count(Status::Failed),
    );
    // migrate marked the runtime files it created intent-to-add (or `--commit` committed them);
    // restore never writes git's index, so say how to drop them from it.
    let removed: Vec<String> = report
        .files
        .iter()
        .filter(|f| f.removed)
        .map(|f| crate::bytes_text::command_arg(&f.path))
        .collect();
    if !removed.is_empty() && report.in_git {
        let why = "as migrate marked them (intent-to-add), and restore leaves the index alone; drop them from it (and commit, if `migrate --commit` committed them)";
        let command = "git rm --cached --quiet --ignore-unmatch --";
        if removed.len() <= 3 {
            let _ = writeln!(
                out,
                "git's index may still list the removed file(s), {why}: `{command} {}`",
                removed.join(" ")
            );
        } else {
            // One path a line, as a command that pastes whole.
            let _ = writeln!(
                out,
                "git's index may still list the {} removed files, {why}:\n  {command} \\\n    {}",
                removed.len(),
                removed.join(" \\\n    ")
            );
        }
    }
    if !report.older_runs.is_empty() {
        let _ = writeln!(
            out,
            "{} older run(s) left as they are (latest {}); undo them too with `skillmod restore --since {}`",
            report.older_runs.len(),
            crate::bytes_text::visible(&report.older_runs[report.older_runs.len() - 1]),
            crate::bytes_text::visible(&report.older_runs[0]),
        );
    }
}
