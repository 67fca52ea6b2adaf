//! What check and migrate both say about a file migrate leaves alone, and the error entry their
//! reports carry.

use crate::codes;
use serde::Serialize;

use crate::error::Error;

/// An error entry in a file report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEntry {
    pub code: &'static str,
    pub message: String,
}

impl From<Error> for ErrorEntry {
    fn from(e: Error) -> Self {
        ErrorEntry {
            code: e.code,
            message: e.message,
        }
    }
}

/// Why a script that prints a JSON document of its own is not migrated (check reports the same
/// as SKM008).
pub fn prints_json_refusal(line: usize, column: usize) -> Error {
    Error::new(
        codes::PRINTS_JSON,
        format!(
            "line {line}:{column} already prints a JSON document on stdout, so migrating would print a second one; report through that document and drop the legacy lines, or suppress them with # skillmod: ignore[SKM001]"
        ),
    )
}

/// Why a script whose legacy line is printed by `exec echo …` is not migrated, in either mode
/// (check reports the same as SKM008): the shell ends there, so no document can follow it.
pub fn exec_refusal(line: usize, column: usize) -> Error {
    Error::new(
        codes::EXEC_REPLACES_SHELL,
        format!(
            "line {line}:{column} prints a legacy line through `exec`, which replaces the shell: nothing after it runs, so the JSON document cannot be printed after it, and a rewrite without `exec` would run the rest of the script. Print the line without `exec` and put `exit` after it, then migrate again"
        ),
    )
}

/// Why a file that is not a shell script is left alone (check says the same).
pub fn not_shell() -> Error {
    Error::new(
        codes::NOT_SHELL,
        "not a shell script (its shebang names another interpreter, or it has neither a sh/bash/dash/ksh shebang nor a .sh/.bash name; no selected script sources it): left alone",
    )
}

/// The shebang migrate gives a script named with `--skill-path` that has none.
pub const ADDED_SHEBANG: &str = "#!/usr/bin/env bash";

/// Why a script with no shebang that nothing marks as a library is left alone (check reports
/// the same as SKM008).
pub fn no_shebang_refusal() -> Error {
    Error::new(
        codes::NO_SHEBANG,
        format!(
            "has no shebang, no selected script sources it, and it does not return at top level: it may be a script run as `bash FILE` or a library sourced from elsewhere, so it is left as it is (taken as a library, its result lines would print nothing when it runs on its own). If it runs on its own, give it a shebang (`{}`) or name it with --skill-path FILE (migrate then writes that shebang); if it is a library, select the script that sources it too",
            ADDED_SHEBANG
        ),
    )
}
