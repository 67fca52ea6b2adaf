//! Atomic writes: a temp file in the same folder, the original mode set on it, then a rename, so
//! a reader sees the old file or the new one and never half of either.

use std::io::Write;
use std::path::Path;

use crate::error::{Error, Result};

/// Replace `path` with `bytes`, keeping permission bits `mode`.
pub fn write_atomic(path: &Path, bytes: &[u8], mode: u32) -> Result<()> {
    write_atomic_with(path, mode, |out| out.write_all(bytes))
}

/// Like `write_atomic`, with the content produced by `write` into a buffered writer (nothing is
/// held whole in memory).
pub fn write_atomic_with(
    path: &Path,
    mode: u32,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let temp = tempfile::Builder::new()
        .prefix(".skillmod-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::io("WRITE_FAILED", "cannot create a temp file beside", path, &e))?;
    let mut out = std::io::BufWriter::new(temp);
    write(&mut out)
        .and_then(|_| out.flush())
        .map_err(|e| Error::io("WRITE_FAILED", "cannot write a temp file for", path, &e))?;
    let temp = out.into_inner().map_err(|e| {
        Error::io(
            "WRITE_FAILED",
            "cannot write a temp file for",
            path,
            e.error(),
        )
    })?;
    temp.as_file()
        .sync_all()
        .map_err(|e| Error::io("WRITE_FAILED", "cannot write a temp file for", path, &e))?;
    set_mode(temp.path(), mode)
        .map_err(|e| Error::io("WRITE_FAILED", "cannot set the mode of", path, &e))?;
    temp.persist(path)
        .map_err(|e| Error::io("WRITE_FAILED", "cannot replace", path, &e.error))?;
    Ok(())
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> std::io::Result<()> {
    Ok(())
}
