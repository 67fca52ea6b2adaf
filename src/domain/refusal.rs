//! What check and migrate both say about a file that is not a shell script, and the shebang
//! migrate writes.

use crate::codes;

use crate::error::Error;

/// Why a file that is not a shell script is left alone (check says the same).
pub fn not_shell() -> Error {
    Error::new(
        codes::NOT_SHELL,
        "not a shell script (its shebang names another interpreter, or it has neither a sh/bash/dash/ksh shebang nor a .sh/.bash name; no selected script sources it): left alone",
    )
}

/// The shebang migrate gives a script named with `--skill-path` that has none.
pub const ADDED_SHEBANG: &str = "#!/usr/bin/env bash";
