//! The journal: the backup runs this user's `migrate` made, kept outside every repository, in the
//! user's state folder (`$XDG_STATE_HOME/skillmod/journal/`, else `~/.local/state/…`), one
//! JSON Lines file per project root (named by a hash of its real path). `migrate` appends a run's
//! line (synced) when it creates the run's folder, before any backup is written in it; `restore`
//! picks only runs its journal names, so a run that came with a repository is never taken for
//! the user's own. Beside it, each run has a seal file that migrate rewrites after every line it
//! appends to the run's manifest: the length and sha256 of the manifest so far. Restore trusts
//! only those bytes, so a run put in the place of a recorded one under the same id, or lines
//! added to its manifest, are not taken for the user's (a run cut short included). A run
//! recorded nowhere can still be restored by name, with `--trust`.

use crate::codes;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// The largest journal read back (a journal line is about 100 bytes).
const LIMIT: u64 = 64 << 20;

/// One line of the journal: a run made under a project root.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    root: String,
    run: String,
}

/// The user's state folder for skillmod: `$XDG_STATE_HOME/skillmod`, else
/// `$HOME/.local/state/skillmod`; None when neither is set. A relative `XDG_STATE_HOME` is
/// ignored, as the XDG spec says (it would name a folder in whatever project runs skillmod).
pub(crate) fn user_state_base() -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|v| v.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local/state"))
        })
        .map(|base| base.join("skillmod"))
}

/// The key of a project root in the user's state folder: a hash of its real path.
pub(crate) fn root_key(root: &Path) -> String {
    let real = crate::fsio::canonical(root);
    let key = crate::fsio::sha256_hex(real.as_os_str().as_encoded_bytes());
    key[..16].to_string()
}

/// The journal file of `root`.
fn path_of(root: &Path) -> Option<PathBuf> {
    user_state_base().map(|base| {
        base.join("journal")
            .join(format!("{}.jsonl", root_key(root)))
    })
}

fn root_text(root: &Path) -> String {
    crate::fsio::canonical(root).to_string_lossy().into_owned()
}

/// The seal file of run `id` under `root`.
fn seal_path(root: &Path, id: &str) -> Option<PathBuf> {
    user_state_base().map(|base| {
        base.join("journal")
            .join(format!("{}-{id}.seal", root_key(root)))
    })
}

/// Open `path` for this user's writes: created with mode 0600, never through a symlink or on a
/// FIFO, and refused unless a regular file.
fn open_own(path: &Path, options: &mut std::fs::OpenOptions) -> Result<std::fs::File> {
    let failed = |what: &str, e: &std::io::Error| Error::io(codes::JOURNAL_FAILED, what, path, e);
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(|e| failed("cannot create the folder of", &e))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        options.mode(0o600);
    }
    let file = options.open(path).map_err(|e| failed("cannot open", &e))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(Error::new(
            codes::JOURNAL_FAILED,
            format!("{} is not a regular file", path.display()),
        ));
    }
    Ok(file)
}

/// `JOURNAL_FAILED` for a run that cannot be `done` (sealed, recorded) without a state folder.
fn no_state_folder(done: &str) -> Error {
    Error::new(
        codes::JOURNAL_FAILED,
        format!("neither XDG_STATE_HOME nor HOME is set, so the run cannot be {done}"),
    )
}

/// A run's seal: the length and sha256 of the manifest lines migrate has written so far.
pub struct Seal {
    file: std::fs::File,
    path: PathBuf,
}

impl Seal {
    /// The seal of run `id` under `root`, of an empty manifest.
    pub fn create(root: &Path, id: &str) -> Result<Seal> {
        let path = seal_path(root, id).ok_or_else(|| no_state_folder("sealed"))?;
        let file = open_own(
            &path,
            std::fs::OpenOptions::new()
                .create(true)
                .write(true)
                .truncate(true),
        )?;
        let mut seal = Seal { file, path };
        seal.update(0, &crate::fsio::sha256_hex(b""))?;
        Ok(seal)
    }

    /// Say the manifest now holds `len` bytes hashing to `sha256`: one write of one fixed-size
    /// record at the start, so a run killed at any moment leaves a whole record. Not synced:
    /// `sync` does that once, at the end of the run.
    pub fn update(&mut self, len: u64, sha256: &str) -> Result<()> {
        let record = format!("{len:020} {sha256}\n");
        #[cfg(unix)]
        let written = {
            use std::os::unix::fs::FileExt;
            self.file.write_all_at(record.as_bytes(), 0)
        };
        #[cfg(not(unix))]
        let written = {
            use std::io::Seek;
            self.file
                .seek(std::io::SeekFrom::Start(0))
                .and_then(|_| self.file.write_all(record.as_bytes()))
        };
        written.map_err(|e| Error::io(codes::JOURNAL_FAILED, "cannot write", &self.path, &e))
    }

    pub fn sync(&self) -> Result<()> {
        self.file
            .sync_data()
            .map_err(|e| Error::io(codes::JOURNAL_FAILED, "cannot sync", &self.path, &e))
    }
}

/// What run `id`'s seal says: the length and sha256 of the manifest migrate wrote.
pub fn sealed(root: &Path, id: &str) -> Option<(usize, String)> {
    let bytes = crate::fsio::limited::read(&seal_path(root, id)?, 128, false).ok()?;
    let text = std::str::from_utf8(&bytes).ok()?;
    let (len, sha256) = text.trim_end().split_once(' ')?;
    Some((len.parse().ok()?, sha256.to_string()))
}

/// Record that this user's migrate made run `id` under `root`, synced to disk.
pub fn record(root: &Path, id: &str) -> Result<()> {
    let path = path_of(root).ok_or_else(|| no_state_folder("recorded in the journal"))?;
    let mut file = open_own(&path, std::fs::OpenOptions::new().create(true).append(true))?;
    let line = Line {
        root: root_text(root),
        run: id.to_string(),
    };
    let mut bytes = serde_json::to_vec(&line)
        .map_err(|e| Error::new(codes::JOURNAL_FAILED, format!("cannot encode a line: {e}")))?;
    bytes.push(b'\n');
    // One write of one short line to a file opened for appending: concurrent runs never
    // interleave their lines.
    file.write_all(&bytes)
        .and_then(|_| file.sync_data())
        .map_err(|e| Error::io(codes::JOURNAL_FAILED, "cannot append to", &path, &e))
}

/// Whether the journal names a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    Yes,
    No,
    /// It names the id, but the run's manifest does not start with the bytes its seal names.
    Replaced,
}

/// What the journal says about one project root.
#[derive(Debug, Default)]
pub struct Journal {
    /// The runs recorded under the root.
    runs: HashSet<String>,
    /// The root they were made under.
    root: PathBuf,
    /// The oldest run the journal file holds: runs older than it predate the journal.
    oldest: Option<String>,
    /// Why the journal could not be read, when it could not.
    pub unusable: Option<String>,
    /// Where it is (or would be).
    pub path: Option<PathBuf>,
}

impl Journal {
    /// True when the journal records no run of this project.
    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// What the journal says of run `id`, whose manifest holds `manifest` now (None when it
    /// cannot be read): named, and its manifest's first bytes the ones its seal names.
    pub fn names(&self, id: &str, manifest: Option<&[u8]>) -> Named {
        if self.unusable.is_some() || !self.runs.contains(id) {
            return Named::No;
        }
        match (sealed(&self.root, id), manifest) {
            (Some((len, sha256)), Some(bytes))
                if bytes.len() >= len && crate::fsio::sha256_hex(&bytes[..len]) == sha256 =>
            {
                Named::Yes
            }
            _ => Named::Replaced,
        }
    }

    /// True when `id` is older than every run the journal holds (or it holds none): such a run
    /// may be an older skillmod's, which kept no journal.
    pub fn predates(&self, id: &str) -> bool {
        self.oldest.as_deref().is_none_or(|oldest| id < oldest)
    }
}

/// The journal of `root`. A journal that lies inside the project root counts only when the root
/// is a git work tree that tracks nothing in the journal's folder (a repository could carry one):
/// `tracks(root, folder)` says whether the project's git tracks anything there (true when the
/// root is no git work tree).
pub fn load(root: &Path, tracks: impl FnOnce(&Path, &Path) -> bool) -> Journal {
    let Some(path) = path_of(root) else {
        return Journal {
            unusable: Some("neither XDG_STATE_HOME nor HOME is set".into()),
            ..Journal::default()
        };
    };
    let mut journal = Journal {
        path: Some(path.clone()),
        root: root.to_path_buf(),
        ..Journal::default()
    };
    let real_root = crate::fsio::canonical(root);
    let folder = path.parent().unwrap_or(Path::new("."));
    let real_folder = crate::fsio::canonical(folder);
    if real_folder.starts_with(&real_root) && tracks(&real_root, &real_folder) {
        journal.unusable = Some(format!(
            "the journal {} lies inside the project, where a repository could have put it; set XDG_STATE_HOME to a folder outside the project",
            path.display()
        ));
        return journal;
    }
    let bytes = match crate::fsio::limited::read(&path, LIMIT, false) {
        Ok(bytes) => bytes,
        Err(crate::fsio::limited::Refused::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return journal;
        }
        Err(refused) => {
            journal.unusable = Some(format!(
                "the journal {} {}",
                path.display(),
                refused.describe(LIMIT)
            ));
            return journal;
        }
    };
    let root_text = root_text(root);
    for line in bytes.split(|&b| b == b'\n') {
        let Ok(line) = serde_json::from_slice::<Line>(line) else {
            continue;
        };
        if journal.oldest.as_ref().is_none_or(|o| line.run < *o) {
            journal.oldest = Some(line.run.clone());
        }
        if line.root == root_text {
            journal.runs.insert(line.run);
        }
    }
    journal
}
