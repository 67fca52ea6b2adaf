//! What check and migrate both say about a file that is not a shell script, the shebang migrate
//! writes, and the error entry their reports carry.

use crate::codes::{self, Code};
use serde::Serialize;

use crate::error::Error;

/// An error entry in a file report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorEntry {
    pub code: Code,
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

/// Why a file that is not a shell script is left alone (check says the same).
pub fn not_shell() -> Error {
    Error::new(
        codes::NOT_SHELL,
        "not a shell script (its shebang names another interpreter, or it has neither a sh/bash/dash/ksh shebang nor a .sh/.bash name; no selected script sources it): left alone",
    )
}

/// The shebang migrate gives a script named with `--skill-path` that has none.
pub const ADDED_SHEBANG: &str = "#!/usr/bin/env bash";
