//! The journal: the backup runs this user's `migrate` made, kept outside every repository, in the
//! user's state folder (`$XDG_STATE_HOME/skillmod/journal/`, else `~/.local/state/…`), one
//! JSON Lines file per project root (named by a hash of its real path). `migrate` appends a run's
//! line (synced) when it creates the run's folder, before any backup is written in it; `restore`
//! picks only runs its journal names, so a run that came with a repository is never taken for
//! the user's own. Each line also names the manifest file migrate created (device and inode), so
//! a run put in the place of a recorded one, under the same id, is not taken for it either. A run
//! recorded nowhere can still be restored by name, with `--trust`.

use crate::codes;
use std::collections::HashMap;
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
    /// The identity (`identity`) of the manifest file migrate created (the run's first line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    manifest: Option<String>,
    /// The sha256 of the whole manifest, once the run is complete (its second line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sealed: Option<String>,
}

/// What a journal line records of a run.
pub enum Mark {
    /// Migrate created the run, whose manifest file has this identity.
    Created(Option<String>),
    /// The run is complete, and its manifest has this sha256.
    Sealed(String),
}

/// The identity of a file, as the journal records it: its device and inode (None where the
/// system has none). A file written again in place keeps it; a file put in its place does not.
pub(crate) fn identity(meta: &std::fs::Metadata) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(format!("{}:{}", meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
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

/// Record what this user's migrate did of run `id` under `root`, synced to disk.
pub fn record(root: &Path, id: &str, mark: Mark) -> Result<()> {
    let path = path_of(root).ok_or_else(|| {
        Error::new(
            codes::JOURNAL_FAILED,
            "neither XDG_STATE_HOME nor HOME is set, so the run cannot be recorded in the journal",
        )
    })?;
    let failed = |what: &str, e: &std::io::Error| Error::io(codes::JOURNAL_FAILED, what, &path, e);
    let folder = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(|e| failed("cannot create the folder of", &e))?;
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        options.mode(0o600);
    }
    let mut file = options.open(&path).map_err(|e| failed("cannot open", &e))?;
    if !file.metadata().is_ok_and(|m| m.is_file()) {
        return Err(Error::new(
            codes::JOURNAL_FAILED,
            format!("{} is not a regular file", path.display()),
        ));
    }
    let line = Line {
        root: root_text(root),
        run: id.to_string(),
        manifest: None,
        sealed: None,
    };
    let line = match mark {
        Mark::Created(manifest) => Line { manifest, ..line },
        Mark::Sealed(sha256) => Line {
            sealed: Some(sha256),
            ..line
        },
    };
    let mut bytes = serde_json::to_vec(&line)
        .map_err(|e| Error::new(codes::JOURNAL_FAILED, format!("cannot encode a line: {e}")))?;
    bytes.push(b'\n');
    // One write of one short line to a file opened for appending: concurrent runs never
    // interleave their lines.
    file.write_all(&bytes)
        .and_then(|_| file.sync_data())
        .map_err(|e| failed("cannot append to", &e))?;
    Ok(())
}

/// What the journal holds of one run.
#[derive(Debug, Default)]
struct Recorded {
    manifest: Option<String>,
    sealed: Option<String>,
}

/// Whether the journal names a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Named {
    Yes,
    No,
    /// It names the id, but the run's manifest is not the file migrate created.
    Replaced,
}

/// What the journal says about one project root.
#[derive(Debug, Default)]
pub struct Journal {
    /// The runs recorded under the root.
    runs: HashMap<String, Recorded>,
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

    /// What the journal says of run `id`, whose manifest is `manifest` now (its file's metadata
    /// and bytes, None when it cannot be read): named, and the same file with the same bytes
    /// when the run was sealed.
    pub fn names(&self, id: &str, manifest: Option<(&std::fs::Metadata, &[u8])>) -> Named {
        let Some(recorded) = self.runs.get(id).filter(|_| self.unusable.is_none()) else {
            return Named::No;
        };
        let same = manifest.is_some_and(|(meta, bytes)| {
            identity(meta) == recorded.manifest
                && recorded
                    .sealed
                    .as_ref()
                    .is_none_or(|sha| *sha == crate::fsio::sha256_hex(bytes))
        });
        if same { Named::Yes } else { Named::Replaced }
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
            let recorded = journal.runs.entry(line.run).or_default();
            if line.sealed.is_some() {
                recorded.sealed = line.sealed;
            } else {
                recorded.manifest = line.manifest;
            }
        }
    }
    journal
}
