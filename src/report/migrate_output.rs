//! `migrate`'s output as the run goes: a unified diff per file on stdout in a dry run, one line per
//! file on stderr, or the JSON document (its `files` array streamed); then the runtime files, the
//! summary or the rest of the document. Writes that fail are ignored: a migration that is writing
//! files goes on when the reader of its report goes away.

use std::io::Write;
use std::time::Duration;

use anstream::{AutoStream, ColorChoice};

use super::json_stream::Array;
use super::{diff, migrate_text};
use crate::migrate::remember::SettingsUpdate;
use crate::migrate::runtime::RuntimeReport;
use crate::migrate::{Change, FileReport, RunReport};

/// `-v`, `-q` and `--silent`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Verbosity {
    pub verbose: bool,
    pub quiet: bool,
    pub silent: bool,
}

/// The diffs of a text dry run; cheap to copy into the workers that render them.
#[derive(Debug, Clone, Copy)]
pub struct Diffs {
    on: bool,
    colored: bool,
}

impl Diffs {
    /// Whether diffs are printed.
    pub fn on(&self) -> bool {
        self.on
    }

    /// The unified diff of `change` to `path`, when diffs are printed.
    pub fn render(&self, path: &str, change: &Change) -> Option<Vec<u8>> {
        self.on.then(|| {
            let mut out = Vec::new();
            diff::write_unified(
                &mut out,
                path,
                &change.before,
                &change.after,
                &change.edits,
                self.colored,
            )
            .map(|_| out)
            .unwrap_or_default()
        })
    }
}

pub struct MigratePrinter {
    /// Runtime texts whose diff was shown, by hash, with the file shown: on a terminal an
    /// identical copy is named, not shown again.
    shown_runtimes: std::collections::HashMap<String, String>,
    stdout: AutoStream<Box<dyn Write>>,
    stderr: AutoStream<std::io::StderrLock<'static>>,
    json: Option<Array>,
    diffs: Diffs,
    verbosity: Verbosity,
    dry_run: bool,
}

impl MigratePrinter {
    /// Open the output; with `json`, the document and its `files` array.
    pub fn start(json: bool, dry_run: bool, color: ColorChoice, verbosity: Verbosity) -> Self {
        let (mut stdout, colored) = super::stdout(color);
        let files = if json {
            let _ = stdout.write_all(b"{\n  ");
            Array::open(&mut stdout, Some("files"), 2).ok()
        } else {
            None
        };
        MigratePrinter {
            shown_runtimes: std::collections::HashMap::new(),
            stdout,
            stderr: super::stderr(color),
            diffs: Diffs {
                on: !json && dry_run,
                colored,
            },
            json: files,
            verbosity,
            dry_run,
        }
    }

    pub fn diffs(&self) -> Diffs {
        self.diffs
    }

    /// One file done: its JSON entry, or its diff and its line (quiet keeps the files with
    /// problems; silent prints nothing).
    pub fn file(&mut self, file: &FileReport, rendered: Option<&[u8]>) {
        if let Some(array) = self.json.as_mut() {
            let _ = array.push(&mut self.stdout, file);
            return;
        }
        if let Some(bytes) = rendered {
            let _ = self.stdout.write_all(bytes);
        }
        let v = self.verbosity;
        // Quiet keeps the files to act on; a migrated file's notes are news, not problems.
        let problem = matches!(
            file.status,
            crate::migrate::Status::Skipped | crate::migrate::Status::Failed
        );
        if !v.silent && (problem || !v.quiet) {
            let _ = migrate_text::write_file(&mut self.stderr, file, v.verbose && !v.quiet);
        }
    }

    /// One runtime file written (or, in a dry run, that would be): its diff and its errors.
    pub fn runtime(&mut self, runtime: &RuntimeReport, change: Option<&Change>) {
        if self.json.is_some() {
            return;
        }
        // A reader reads each distinct runtime once; `git apply` (stdout not a terminal) still
        // gets every file.
        if let Some(change) = change.filter(|c| !c.after.is_empty())
            && std::io::IsTerminal::is_terminal(&std::io::stdout())
        {
            let hash = crate::fsio::sha256_hex(&change.after);
            if let Some(first) = self.shown_runtimes.get(&hash) {
                if self.diffs.on() {
                    let _ = writeln!(
                        self.stdout,
                        "{}: new file, identical to {} above (not shown again)",
                        crate::bytes_text::quote_path(&runtime.path),
                        crate::bytes_text::quote_path(first)
                    );
                }
                return;
            }
            self.shown_runtimes.insert(hash, runtime.path.clone());
        }
        if let Some(bytes) = change.and_then(|c| self.diffs.render(&runtime.diff_path, c)) {
            let _ = self.stdout.write_all(&bytes);
        }
        if !self.verbosity.silent {
            for e in &runtime.errors {
                let _ = writeln!(
                    self.stderr,
                    "{}: {}: {}",
                    crate::bytes_text::quote_path(&runtime.path),
                    e.code,
                    crate::bytes_text::visible(&e.message)
                );
            }
        }
    }

    /// A settings file brought to say the run's vocabulary (or that would be): its diff in a
    /// dry run; its line comes with the summary.
    pub fn settings(&mut self, update: &SettingsUpdate, change: Option<&Change>) {
        if self.json.is_some() {
            return;
        }
        if let Some(bytes) = change.and_then(|c| self.diffs.render(&update.diff_path, c)) {
            let _ = self.stdout.write_all(&bytes);
        }
    }

    /// The end: the rest of the JSON document, or the summary (with quiet, only the runtime
    /// files that could not be written), and a failed commit's error last.
    pub fn finish(
        mut self,
        report: &RunReport,
        elapsed: Duration,
        commit: Option<&crate::error::Error>,
    ) {
        let v = self.verbosity;
        let removed = report.temp_files_removed.len();
        if removed > 0 && !v.quiet && !v.silent {
            let _ = writeln!(
                self.stderr,
                "removed {removed} temp file(s) that an interrupted skillmod run left beside the scripts"
            );
        }
        let _ = self.stdout.flush();
        if let Some(array) = self.json.take() {
            let _ = array.close(&mut self.stdout);
            if let Ok(rest) = serde_json::to_string_pretty(report) {
                let _ = writeln!(self.stdout, ",{}", rest.strip_prefix('{').unwrap_or(&rest));
            }
        } else if !v.quiet && !v.silent {
            let _ = migrate_text::write_summary(&mut self.stderr, report, elapsed, self.dry_run);
        } else if !v.silent {
            let _ = migrate_text::write_runtime_files(&mut self.stderr, report, true);
            let _ = migrate_text::write_settings_updates(&mut self.stderr, report, true);
        }
        let _ = self.stdout.flush();
        if let Some(e) = commit {
            let _ = writeln!(
                self.stderr,
                "error[{}]: {}",
                e.code,
                crate::bytes_text::visible(&e.message)
            );
        }
    }
}
