//! Selected files that cannot be judged as they are: a symlink is followed to its target when
//! that lies inside the project root (check reads it, migrate migrates it once), and refused with
//! a code naming the target otherwise; a file that cannot be read at all (too large, a FIFO,
//! binary, a broken or escaping link) is an error or a warning depending on how it was selected.

use crate::codes;
use std::path::{Path, PathBuf};

use crate::domain::rules::Severity;
use crate::error::Error;

/// Where a selected symlink leads.
#[derive(Debug)]
pub enum Link {
    /// A regular file inside the project root: its real path.
    Inside(PathBuf),
    /// Not followed: why (`OUTSIDE_ROOT`, `SYMLINK_BROKEN`, `NOT_A_FILE`), naming the target.
    Refused(Error),
}

/// Follow the symlink at `path`, whose project root is `root`: its real path must be a regular
/// file inside `root`, and not under `.git` or `.skillmod`.
pub fn follow(path: &Path, root: &Path) -> Link {
    let written = std::fs::read_link(path).map_or_else(|_| "?".to_string(), |t| quoted(&t));
    let real = match std::fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) => {
            return Link::Refused(Error::new(
                codes::SYMLINK_BROKEN,
                format!(
                    "is a symbolic link to {}, which cannot be followed ({e}): nothing was read; fix or remove the link",
                    written
                ),
            ));
        }
    };
    let root = super::canonical(root);
    if !lies_inside(&real, &root) {
        return Link::Refused(outside_root(&real, &root));
    }
    match std::fs::symlink_metadata(&real) {
        Ok(meta) if meta.is_file() => Link::Inside(real),
        _ => Link::Refused(Error::new(
            codes::NOT_A_FILE,
            format!(
                "is a symbolic link to {}, which is not a regular file (a folder, a FIFO, a device): nothing was read",
                quoted(&real)
            ),
        )),
    }
}

/// Whether the real path `real` lies inside the real `root`, and not in its `.git` or
/// `.skillmod` folder (where skillmod never reads a script from or writes one to).
pub fn lies_inside(real: &Path, root: &Path) -> bool {
    real.strip_prefix(root).is_ok_and(|relative| {
        !relative.components().any(|c| {
            let c = c.as_os_str();
            c == ".git" || c == super::STATE_DIR
        })
    })
}

/// The refusal of a link (or a file reached through one) whose real path `real` lies outside
/// `root`, or in its `.git` or `.skillmod` folder.
pub fn outside_root(real: &Path, root: &Path) -> Error {
    Error::new(
        codes::OUTSIDE_ROOT,
        format!(
            "is a symbolic link to {}, outside its project root {} (or in its .git or .skillmod folder): nothing is read or written there. Point the link inside the repository, or check the target in its own project",
            quoted(real),
            quoted(root)
        ),
    )
}

fn quoted(path: &Path) -> String {
    crate::bytes_text::quote_os(path)
}

/// The codes of a selected file that could not be judged at all (check's SKM004 as an error or
/// a warning, not a note): what it holds is unknown, so it is never a pass.
pub fn unjudged(code: crate::codes::Code) -> bool {
    use codes::{
        BINARY_FILE, EXCLUDED_BY_SETTINGS, FILE_TOO_LARGE, NOT_A_FILE, OUTSIDE_ROOT, SYMLINK,
        SYMLINK_BROKEN,
    };
    [
        EXCLUDED_BY_SETTINGS,
        FILE_TOO_LARGE,
        NOT_A_FILE,
        BINARY_FILE,
        SYMLINK,
        SYMLINK_BROKEN,
        OUTSIDE_ROOT,
    ]
    .contains(&code)
}

/// How much a selected file that could not be judged matters: an error when it was named on the
/// command line (without `--force-select`) or is named `execute.sh`, so only `--exit-zero` hides
/// it; a warning when a walk (or `--force-select`) took it for sitting in a skill folder or
/// matching `--include`, so wider discovery does not fail a build on its first day.
pub fn unjudged_severity(path: &Path, explicit: &std::collections::HashSet<PathBuf>) -> Severity {
    let default_name = path
        .file_name()
        .is_some_and(|n| n == crate::domain::DEFAULT_NAME);
    if default_name || explicit.contains(path) {
        Severity::Error
    } else {
        Severity::Warning
    }
}
