//! Backups: one run folder per invocation under `.skillmod/backups/<run-id>/`, with the original
//! bytes of every changed file and a JSON Lines manifest (path, mode, sha256 before and after),
//! appended before each write so a crash never leaves a change without its backup.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use super::STATE_DIR;
use crate::error::{Error, Result};

const MANIFEST: &str = "manifest.jsonl";

/// One backed-up file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Absolute path of the migrated file.
    pub path: PathBuf,
    /// Path of the saved original, relative to the run folder.
    pub backup: String,
    pub mode: u32,
    pub sha256_before: String,
    pub sha256_after: String,
}

/// The backup run of one invocation, created on the first file that changes.
pub struct Backups {
    root: PathBuf,
    run: OnceLock<std::result::Result<Run, Error>>,
}

struct Run {
    id: String,
    dir: PathBuf,
    manifest: Mutex<(File, usize)>,
}

impl Backups {
    pub fn new(root: &Path) -> Backups {
        Backups {
            root: root.to_path_buf(),
            run: OnceLock::new(),
        }
    }

    /// The run id, if a backup was taken.
    pub fn run_id(&self) -> Option<String> {
        match self.run.get() {
            Some(Ok(run)) => Some(run.id.clone()),
            _ => None,
        }
    }

    /// Save `original` (the whole file as it is now) and record it; returns the backup's path.
    pub fn save(
        &self,
        path: &Path,
        original: &[u8],
        mode: u32,
        sha256_before: &str,
        sha256_after: &str,
    ) -> Result<PathBuf> {
        let run = self
            .run
            .get_or_init(|| Run::create(&self.root))
            .as_ref()
            .map_err(Clone::clone)?;
        let mut guard = run.manifest.lock().map_err(|_| {
            Error::new(
                "BACKUP_FAILED",
                "backup manifest lock poisoned by an earlier failure",
            )
        })?;
        let (manifest, count) = &mut *guard;
        *count += 1;
        let name = path
            .file_name()
            .map_or_else(|| "script".into(), |n| n.to_string_lossy().into_owned());
        let backup = format!("files/{:06}-{name}", *count);
        let backup_path = run.dir.join(&backup);
        std::fs::write(&backup_path, original)
            .map_err(|e| Error::io("BACKUP_FAILED", "cannot save a backup of", path, &e))?;
        let entry = ManifestEntry {
            path: absolute(path),
            backup,
            mode,
            sha256_before: sha256_before.to_string(),
            sha256_after: sha256_after.to_string(),
        };
        let mut line = serde_json::to_vec(&entry).map_err(|e| {
            Error::new(
                "BACKUP_FAILED",
                format!("cannot encode the manifest entry: {e}"),
            )
        })?;
        line.push(b'\n');
        manifest
            .write_all(&line)
            .and_then(|_| manifest.sync_data())
            .map_err(|e| {
                Error::io(
                    "BACKUP_FAILED",
                    "cannot append to the manifest in",
                    &run.dir,
                    &e,
                )
            })?;
        Ok(backup_path)
    }
}

impl Run {
    fn create(root: &Path) -> Result<Run> {
        let state = root.join(STATE_DIR);
        let backups = state.join("backups");
        std::fs::create_dir_all(&backups)
            .map_err(|e| Error::io("BACKUP_FAILED", "cannot create", &backups, &e))?;
        super::ensure_state_ignored(&state);
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ").to_string();
        for attempt in 0..100 {
            let id = if attempt == 0 {
                stamp.clone()
            } else {
                format!("{stamp}-{attempt}")
            };
            let dir = backups.join(&id);
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    std::fs::create_dir(dir.join("files"))
                        .map_err(|e| Error::io("BACKUP_FAILED", "cannot create", &dir, &e))?;
                    let manifest = OpenOptions::new()
                        .create_new(true)
                        .append(true)
                        .open(dir.join(MANIFEST))
                        .map_err(|e| {
                            Error::io("BACKUP_FAILED", "cannot create the manifest in", &dir, &e)
                        })?;
                    return Ok(Run {
                        id,
                        dir,
                        manifest: Mutex::new((manifest, 0)),
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Error::io("BACKUP_FAILED", "cannot create", &dir, &e)),
            }
        }
        Err(Error::new(
            "BACKUP_FAILED",
            "cannot find a free backup run name",
        ))
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The backup runs under `root`, oldest first (ids sort by time).
pub fn list_runs(root: &Path) -> Vec<String> {
    let mut runs: Vec<String> = std::fs::read_dir(root.join(STATE_DIR).join("backups"))
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.path().join(MANIFEST).is_file())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    runs.sort();
    runs
}

/// The folder of run `id` and its manifest entries.
pub fn load_run(root: &Path, id: &str) -> Result<(PathBuf, Vec<ManifestEntry>)> {
    let dir = root.join(STATE_DIR).join("backups").join(id);
    let text = std::fs::read_to_string(dir.join(MANIFEST)).map_err(|_| {
        Error::new(
            "BACKUP_RUN_NOT_FOUND",
            format!(
                "no backup run '{id}' under {}; list runs with `skillmod restore --list`",
                root.join(STATE_DIR).display()
            ),
        )
    })?;
    let entries = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l).map_err(|e| {
                Error::new(
                    "BACKUP_MANIFEST_INVALID",
                    format!("manifest of run '{id}' is damaged: {e}"),
                )
            })
        })
        .collect::<Result<Vec<ManifestEntry>>>()?;
    Ok((dir, entries))
}
