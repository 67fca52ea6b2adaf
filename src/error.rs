//! One error type for the whole crate: an UPPER_SNAKE_CASE code, a message that says what to do,
//! and the exit status `main` maps it to.

use std::fmt;
use std::path::Path;

use crate::codes::{self, Code};

/// An error that stops a command (usage or I/O before any work) or fails one file; also the
/// `{code, message}` entry of a file's errors and notes in every JSON report.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Error {
    /// Stable machine-readable code, UPPER_SNAKE_CASE, from the catalogue.
    pub code: Code,
    /// Human message that says what went wrong and what to do.
    pub message: String,
}

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
        }
    }

    /// An I/O error on `path`, with the operation that failed.
    pub fn io(code: Code, what: &str, path: &Path, err: &std::io::Error) -> Self {
        let path = crate::bytes_text::shown_path(path);
        Error::new(code, format!("{what} {path}: {err}"))
    }

    /// Writing a command's own output failed. A reader that went away (`skillmod check | head`)
    /// is `BROKEN_PIPE`, which ends the command quietly, as a shell pipeline expects.
    pub fn output(what: &str, err: &std::io::Error) -> Self {
        if err.kind() == std::io::ErrorKind::BrokenPipe {
            Error::new(codes::BROKEN_PIPE, "the reader of the output went away")
        } else {
            Error::new(codes::IO_ERROR, format!("{what}: {err}"))
        }
    }

    /// Errors that stop a whole command exit with 2 (usage or I/O before any work).
    pub fn exit_code(&self) -> i32 {
        2
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.code, self.message)
    }
}

impl std::error::Error for Error {}

pub(crate) type Result<T> = std::result::Result<T, Error>;
