//! Reading a small file a repository supplies (a settings file, a template) without letting it
//! hang or flood the run: opened without blocking (a FIFO cannot stall the open), checked to be
//! a regular file on the open descriptor (no race with a swap), and read up to a size limit.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum Refused {
    /// Not a regular file (a FIFO, a device, a folder).
    NotRegular,
    /// A symlink, where links are not followed.
    Symlink,
    /// Larger than the limit, in bytes.
    TooLarge(u64),
    Io(std::io::Error),
}

impl Refused {
    /// A phrase for messages: what was wrong with the file.
    pub fn describe(&self, limit: u64) -> String {
        match self {
            Refused::NotRegular => "is not a regular file (a FIFO, a device or a folder)".into(),
            Refused::Symlink => "is a symlink, which is not followed".into(),
            Refused::TooLarge(len) => format!("is {len} bytes, over the {limit}-byte limit"),
            Refused::Io(e) => format!("cannot be read: {e}"),
        }
    }
}

/// Open `path` for reading without blocking; `follow` false refuses a symlink as the last
/// component.
pub fn open(path: &Path, follow: bool) -> Result<File, Refused> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    let file = options.open(path).map_err(|e| {
        // ELOOP: the last component is a symlink and links are not followed.
        #[cfg(unix)]
        let refused_link = e.raw_os_error() == Some(libc::ELOOP);
        #[cfg(not(unix))]
        let refused_link = false;
        if refused_link {
            Refused::Symlink
        } else {
            Refused::Io(e)
        }
    })?;
    let meta = file.metadata().map_err(Refused::Io)?;
    if !meta.is_file() {
        return Err(Refused::NotRegular);
    }
    Ok(file)
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read(path: &Path, limit: u64, follow: bool) -> Result<Vec<u8>, Refused> {
    let file = open(path, follow)?;
    read_from(file, limit)
}

/// Read an open file up to `limit` bytes; one byte more means it is too large.
pub(crate) fn read_from(file: File, limit: u64) -> Result<Vec<u8>, Refused> {
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    read_bounded(file, limit, len)
}

/// The one bounded read: at most `limit` bytes of `input`, one byte more meaning it is too
/// large; `len`, the size a file says it has, refuses it before a byte is read.
pub(crate) fn read_bounded(input: impl Read, limit: u64, len: u64) -> Result<Vec<u8>, Refused> {
    if len > limit {
        return Err(Refused::TooLarge(len));
    }
    let mut bytes = Vec::with_capacity(len as usize);
    input
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refused::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Refused::TooLarge(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().expect("tmp");
        let fifo = dir.path().join("f");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        assert!(matches!(read(&fifo, 10, true), Err(Refused::NotRegular)));
    }

    #[test]
    fn a_large_file_is_refused_and_a_device_is_not_read() {
        let dir = tempfile::tempdir().expect("tmp");
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'a'; 100]).expect("write");
        assert!(matches!(read(&big, 99, true), Err(Refused::TooLarge(100))));
        assert_eq!(read(&big, 100, true).expect("fits").len(), 100);
        assert!(matches!(
            read(Path::new("/dev/zero"), 10, true),
            Err(Refused::NotRegular)
        ));
    }

    #[test]
    fn a_symlink_is_refused_when_links_are_not_followed() {
        let dir = tempfile::tempdir().expect("tmp");
        let target = dir.path().join("t");
        std::fs::write(&target, b"x").expect("write");
        let link = dir.path().join("l");
        std::os::unix::fs::symlink(&target, &link).expect("symlink");
        assert!(matches!(read(&link, 10, false), Err(Refused::Symlink)));
        assert_eq!(read(&link, 10, true).expect("followed"), b"x");
    }
}
