//! Reading one script without surprises: symlinks, non-files, big and binary files are refused
//! with a reason; a UTF-8 byte-order mark is split off so edits never touch it.

use crate::codes;
use std::path::Path;

use crate::error::Error;

/// Files above this size are skipped unless `--max-size` says otherwise.
pub(crate) const DEFAULT_MAX_SIZE: u64 = 1024 * 1024;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A script's bytes, with its mode and BOM kept aside.
#[derive(Debug, Clone)]
pub struct Script {
    /// Everything after the BOM.
    pub body: Vec<u8>,
    pub has_bom: bool,
    /// Unix permission bits (0 on other platforms).
    pub mode: u32,
    /// Size, modification time, owner: what the file must still have when it is replaced.
    pub len: u64,
    pub modified: Option<std::time::SystemTime>,
    pub owner: Option<(u32, u32)>,
    /// Number of hard links (1 on other platforms).
    pub links: u64,
}

impl Script {
    /// A script from bytes that did not come from a file (stdin): the BOM split off, no mode.
    pub fn from_body(bytes: &[u8]) -> Script {
        let has_bom = bytes.starts_with(BOM);
        Script {
            body: bytes[if has_bom { BOM.len() } else { 0 }..].to_vec(),
            has_bom,
            mode: 0,
            len: bytes.len() as u64,
            modified: None,
            owner: None,
            links: 1,
        }
    }

    /// The file's full bytes for a given body (BOM put back).
    pub fn with_body(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(body.len() + 3);
        if self.has_bom {
            out.extend_from_slice(BOM);
        }
        out.extend_from_slice(body);
        out
    }

    pub fn bytes(&self) -> Vec<u8> {
        self.with_body(&self.body)
    }
}

/// Why a file was not read: skipped (a policy) or failed (an error).
#[derive(Debug)]
pub enum ReadOutcome {
    Skipped(Error),
    Failed(Error),
}

/// Read `path` if it is a regular, text file no bigger than `max_size`. `sourced` says whether
/// a selected script sources it (asked only of a file over `max_size` that is no shell script by
/// its name and first line): such a library is shell whatever its name, and left unjudged.
pub fn read_script(
    path: &Path,
    max_size: u64,
    sourced: &dyn Fn() -> bool,
) -> Result<Script, ReadOutcome> {
    read_script_at(path, &stat(path)?, max_size, sourced)
}

/// `lstat` a script: what `read_script_at` needs.
pub fn stat(path: &Path) -> Result<std::fs::Metadata, ReadOutcome> {
    std::fs::symlink_metadata(path)
        .map_err(|e| ReadOutcome::Failed(Error::io(codes::READ_FAILED, "cannot stat", path, &e)))
}

/// `read_script` with the file's `lstat` already taken.
pub fn read_script_at(
    path: &Path,
    meta: &std::fs::Metadata,
    max_size: u64,
    sourced: &dyn Fn() -> bool,
) -> Result<Script, ReadOutcome> {
    if meta.file_type().is_symlink() {
        return Err(ReadOutcome::Skipped(Error::new(
            codes::SYMLINK,
            "symbolic link: not followed, its target is left alone; pass the target path to migrate it",
        )));
    }
    if meta.is_dir() {
        // Only a folder the walk could not read comes here: say why.
        let reason = std::fs::read_dir(path)
            .err()
            .map_or_else(|| "could not be walked".to_string(), |e| e.to_string());
        return Err(ReadOutcome::Failed(Error::new(
            codes::UNREADABLE_FOLDER,
            format!("cannot read this folder ({reason}); scripts in it were not checked"),
        )));
    }
    if !meta.is_file() {
        return Err(ReadOutcome::Skipped(Error::new(
            codes::NOT_A_FILE,
            "not a regular file",
        )));
    }
    if meta.len() > max_size {
        // A large file that is no shell script by its name and first line is no script left
        // unjudged: it is not a shell script.
        if !head_is_shell(path) && !sourced() {
            return Err(ReadOutcome::Skipped(crate::domain::refusal::not_shell()));
        }
        return Err(ReadOutcome::Skipped(Error::new(
            codes::FILE_TOO_LARGE,
            format!(
                "{} bytes is over the {max_size}-byte limit; raise it with --max-size",
                meta.len()
            ),
        )));
    }
    let bytes = std::fs::read(path)
        .map_err(|e| ReadOutcome::Failed(Error::io(codes::READ_FAILED, "cannot read", path, &e)))?;
    if is_binary(&bytes) {
        return Err(ReadOutcome::Skipped(Error::new(
            codes::BINARY_FILE,
            "binary file (NUL bytes): not a shell script",
        )));
    }
    let has_bom = bytes.starts_with(BOM);
    let body = if has_bom {
        bytes[BOM.len()..].to_vec()
    } else {
        bytes
    };
    let (owner, links) = ownership(meta);
    Ok(Script {
        body,
        has_bom,
        mode: mode_of(meta),
        len: meta.len(),
        modified: meta.modified().ok(),
        owner,
        links,
    })
}

/// Whether a file too large to read is a shell script by its name or its first 256 bytes (read
/// without blocking and without following a link); true when they cannot be read.
fn head_is_shell(path: &Path) -> bool {
    let mut head = Vec::with_capacity(256);
    match super::limited::open(path, false) {
        Ok(file) => {
            if std::io::Read::read_to_end(&mut std::io::Read::take(file, 256), &mut head).is_err() {
                return true;
            }
            super::is_shell_script(path, &head)
        }
        Err(_) => true,
    }
}

#[cfg(unix)]
pub(crate) fn ownership(meta: &std::fs::Metadata) -> (Option<(u32, u32)>, u64) {
    use std::os::unix::fs::MetadataExt;
    (Some((meta.uid(), meta.gid())), meta.nlink())
}

#[cfg(not(unix))]
pub(crate) fn ownership(_meta: &std::fs::Metadata) -> (Option<(u32, u32)>, u64) {
    (None, 1)
}

/// NUL in the first 8 KiB, the heuristic git and ripgrep use.
pub(crate) fn is_binary(bytes: &[u8]) -> bool {
    memchr::memchr(0, &bytes[..bytes.len().min(8192)]).is_some()
}

#[cfg(unix)]
pub(crate) fn mode_of(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
pub(crate) fn mode_of(_meta: &std::fs::Metadata) -> u32 {
    0
}
