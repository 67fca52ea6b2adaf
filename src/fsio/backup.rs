//! Backups: one run folder per invocation under `<project root>/.skillmod/backups/<run-id>/`, with
//! the original bytes of every changed file and a JSON Lines manifest (path relative to the
//! project root, mode, sha256 before and after). The backup and its manifest line are on disk
//! (fsynced, folders too) before the script is replaced, so a crash or a power cut never leaves a
//! change without its backup. Everything read back is checked, never believed: a repository can
//! carry a `.skillmod/` folder of anyone's making.

use crate::codes;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::STATE_DIR;
use super::journal::Seal;
use crate::error::{Error, Result};
use sha2::{Digest, Sha256};

const MANIFEST: &str = "manifest.jsonl";
/// The largest manifest read back (a line is about 300 bytes).
const MANIFEST_LIMIT: u64 = 1 << 30;
/// How run ids look: the UTC time the run started, then `-N` when that name was taken.
const RUN_ID_FORMAT: &str = "%Y%m%dT%H%M%S%.3fZ";

/// One backed-up file, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestEntry {
    /// Path of the migrated file relative to the project root, `/`-separated; written quoted
    /// as git quotes paths when it is not plain (`"caf\\351/execute.sh"`), so any bytes come
    /// back exactly.
    #[serde(with = "git_quoted")]
    pub path: PathBuf,
    /// Path of the saved original, relative to the run folder (`files/NNNNNN-name.bak`; 0.2.0
    /// wrote no `.bak`). The suffix keeps backups out of linters that walk `*.sh` files.
    pub backup: String,
    pub mode: u32,
    pub sha256_before: String,
    pub sha256_after: String,
    /// The migration created the file (a runtime file): restoring removes it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub created: bool,
}

/// A manifest path as text: quoted as git quotes paths (`report::quote_bytes`), so a name that
/// is not UTF-8 is kept byte for byte; a plain path is written as it is. A path that does not
/// start with `"` (every plain one, and any a 0.2.0 manifest holds) is read as it is.
mod git_quoted {
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

    pub fn serialize<S: Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&crate::bytes_text::quote_os(path))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<PathBuf, D::Error> {
        let text = String::deserialize(deserializer)?;
        let bytes = crate::bytes_text::unquote_path(&text)
            .ok_or_else(|| D::Error::custom(format!("the path {text} is badly quoted")))?;
        path_of(bytes).ok_or_else(|| D::Error::custom("the path is not UTF-8"))
    }

    #[cfg(unix)]
    fn path_of(bytes: Vec<u8>) -> Option<PathBuf> {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }

    #[cfg(not(unix))]
    fn path_of(bytes: Vec<u8>) -> Option<PathBuf> {
        String::from_utf8(bytes).ok().map(PathBuf::from)
    }
}

/// A manifest entry that passed every check: where to restore it and where its original is.
#[derive(Debug, Clone)]
pub struct CheckedEntry {
    pub entry: ManifestEntry,
    /// Absolute path inside the project root.
    pub target: PathBuf,
    /// Absolute path of the backup inside the run folder.
    pub backup: PathBuf,
}

/// A loaded run: entries that passed the checks, the refused ones with the reason, and warnings.
#[derive(Debug, Default)]
pub struct LoadedRun {
    pub entries: Vec<CheckedEntry>,
    pub refused: Vec<(String, Error)>,
    pub warnings: Vec<String>,
}

/// The `sha256_after` of a file the migration removed (restore writes it back).
pub(crate) const REMOVED: &str = "removed";

/// The backup runs of one invocation: one run folder per project root, all with the same id,
/// created on the first file that changes under that root.
pub struct Backups {
    id: String,
    runs: Mutex<HashMap<PathBuf, Run>>,
    /// Notes for the end of the run (a run not recorded in the journal): printed by the main
    /// thread, never by a worker, which would wait on the stderr the printer holds.
    notes: Mutex<Vec<String>>,
}

struct Run {
    dir: PathBuf,
    manifest: File,
    /// Length of the manifest's complete lines: a failed append is cut back to it.
    len: u64,
    /// The hash of those lines, for the seal.
    hash: Sha256,
    count: usize,
    /// The run's seal, when the journal names the run.
    seal: Option<Seal>,
}

impl Default for Backups {
    fn default() -> Self {
        Backups::new()
    }
}

impl Backups {
    pub fn new() -> Backups {
        Backups {
            id: chrono::Utc::now().format(RUN_ID_FORMAT).to_string(),
            runs: Mutex::new(HashMap::new()),
            notes: Mutex::new(Vec::new()),
        }
    }

    /// What the run has to say at its end (`JOURNAL_FAILED`), each a `CODE: message` line.
    pub fn notes(&self) -> Vec<String> {
        self.notes.lock().map(|n| n.clone()).unwrap_or_default()
    }

    /// Sync each run's seal to disk, once the run is complete (each line's update was written
    /// as it came).
    pub fn sync_seals(&self) {
        let Ok(runs) = self.runs.lock() else {
            return;
        };
        for run in runs.values() {
            if let Some(Err(e)) = run.seal.as_ref().map(Seal::sync) {
                unrecorded(&self.notes, &e, &run.id());
            }
        }
    }

    /// The run folders that hold backups, one per project root.
    pub fn run_dirs(&self) -> Vec<PathBuf> {
        let Ok(runs) = self.runs.lock() else {
            return Vec::new();
        };
        let mut dirs: Vec<PathBuf> = runs
            .values()
            .filter(|r| r.len > 0)
            .map(|r| r.dir.clone())
            .collect();
        dirs.sort();
        dirs
    }

    /// The run id, if a backup was taken.
    pub fn run_id(&self) -> Option<String> {
        let runs = self.runs.lock().ok()?;
        let mut dirs: Vec<&PathBuf> = runs
            .values()
            .filter(|r| r.len > 0)
            .map(|r| &r.dir)
            .collect();
        dirs.sort();
        dirs.first()
            .and_then(|d| d.file_name())
            .map(|n| n.to_string_lossy().into_owned())
    }

    /// Save `original` (the whole file as it is now) under `root` and record it, both synced to
    /// disk; returns the backup's path.
    pub fn save(
        &self,
        root: &Path,
        path: &Path,
        original: &[u8],
        mode: u32,
        sha256_before: &str,
        sha256_after: &str,
    ) -> Result<PathBuf> {
        self.save_new_or_old(
            root,
            path,
            Some(original),
            mode,
            sha256_before,
            sha256_after,
        )
    }

    /// `save` for a file that may not exist yet (`None`): its entry says the migration created
    /// it, so `restore` removes it.
    pub fn save_new_or_old(
        &self,
        root: &Path,
        path: &Path,
        original: Option<&[u8]>,
        mode: u32,
        sha256_before: &str,
        sha256_after: &str,
    ) -> Result<PathBuf> {
        let created = original.is_none();
        let original = original.unwrap_or_default();
        let relative = relative_to(root, path).ok_or_else(|| {
            Error::new(
                codes::BACKUP_FAILED,
                format!(
                    "{} is not under its project root {}",
                    path.display(),
                    root.display()
                ),
            )
        })?;
        let mut runs = self.runs.lock().map_err(|_| {
            Error::new(
                codes::BACKUP_FAILED,
                "backup manifest lock poisoned by an earlier failure",
            )
        })?;
        let run = match runs.entry(root.to_path_buf()) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(Run::create(root, &self.id, &self.notes)?)
            }
        };
        run.count += 1;
        let name = path
            .file_name()
            .map_or_else(|| "script".into(), |n| n.to_string_lossy().into_owned())
            .replace(['/', '\\'], "_");
        let backup = format!("files/{:06}-{name}.bak", run.count);
        let backup_path = run.dir.join(&backup);
        if let Err(e) =
            write_synced(&backup_path, original).and_then(|_| sync_dir(&run.dir.join("files")))
        {
            let _ = std::fs::remove_file(&backup_path);
            return Err(Error::io(
                codes::BACKUP_FAILED,
                "cannot save a backup of",
                path,
                &e,
            ));
        }
        let entry = ManifestEntry {
            path: relative,
            backup,
            mode,
            sha256_before: sha256_before.to_string(),
            sha256_after: sha256_after.to_string(),
            created,
        };
        let mut line = serde_json::to_vec(&entry).map_err(|e| {
            Error::new(
                codes::BACKUP_FAILED,
                format!("cannot encode the manifest entry: {e}"),
            )
        })?;
        line.push(b'\n');
        if let Err(e) = run
            .manifest
            .write_all(&line)
            .and_then(|_| run.manifest.sync_data())
        {
            // Cut a partial line back off, so later entries of this run stay readable.
            let _ = run.manifest.set_len(run.len);
            let _ = std::fs::remove_file(&backup_path);
            return Err(Error::io(
                codes::BACKUP_FAILED,
                "cannot append to the manifest in",
                &run.dir,
                &e,
            ));
        }
        run.len += line.len() as u64;
        run.hash.update(&line);
        // Before the file is replaced: restore trusts only the lines the seal names.
        let sha256 = hex::encode(run.hash.clone().finalize());
        if let Some(Err(e)) = run.seal.as_mut().map(|seal| seal.update(run.len, &sha256)) {
            run.seal = None;
            unrecorded(&self.notes, &e, &run.id());
        }
        Ok(backup_path)
    }
}

impl Run {
    fn id(&self) -> String {
        self.dir
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }

    fn create(root: &Path, stamp: &str, notes: &Mutex<Vec<String>>) -> Result<Run> {
        let state = state_dir(root)?;
        let backups = state.join("backups");
        std::fs::create_dir_all(&backups)
            .map_err(|e| Error::io(codes::BACKUP_FAILED, "cannot create", &backups, &e))?;
        plain_folder(&backups)?;
        // Backups git would commit are no private copy: a `.gitignore` that cannot be written
        // stops the run here.
        if !super::ensure_state_ignored(&state) {
            return Err(Error::new(
                codes::STATE_DIR_UNSAFE,
                format!(
                    "{} cannot be made to ignore the backups (it is a folder, or cannot be written), so git could commit them; remove it (it may have come with the repository) and run again, or pass --no-backup",
                    state.join(".gitignore").display()
                ),
            ));
        }
        for attempt in 0..100 {
            let id = if attempt == 0 {
                stamp.to_string()
            } else {
                format!("{stamp}-{attempt}")
            };
            let dir = backups.join(&id);
            match std::fs::create_dir(&dir) {
                Ok(()) => {
                    std::fs::create_dir(dir.join("files"))
                        .map_err(|e| Error::io(codes::BACKUP_FAILED, "cannot create", &dir, &e))?;
                    let manifest = OpenOptions::new()
                        .create_new(true)
                        .append(true)
                        .open(dir.join(MANIFEST))
                        .map_err(|e| {
                            Error::io(
                                codes::BACKUP_FAILED,
                                "cannot create the manifest in",
                                &dir,
                                &e,
                            )
                        })?;
                    sync_dir(&dir)
                        .and_then(|_| sync_dir(&backups))
                        .map_err(|e| Error::io(codes::BACKUP_FAILED, "cannot sync", &dir, &e))?;
                    // Recorded before any backup is written in it: restore picks only runs
                    // this user's migrate recorded.
                    let seal = super::journal::record(root, &id)
                        .and_then(|()| Seal::create(root, &id))
                        .map_err(|e| unrecorded(notes, &e, &id))
                        .ok();
                    return Ok(Run {
                        dir,
                        manifest,
                        len: 0,
                        hash: Sha256::new(),
                        count: 0,
                        seal,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(Error::io(codes::BACKUP_FAILED, "cannot create", &dir, &e));
                }
            }
        }
        Err(Error::new(
            codes::BACKUP_FAILED,
            "cannot find a free backup run name",
        ))
    }
}

/// The bytes of run `id`'s manifest, for the journal to compare with its seal (None when it is
/// no regular file or cannot be read).
pub(crate) fn manifest_of(root: &Path, id: &str) -> Option<Vec<u8>> {
    let path = state_dir(root)
        .ok()?
        .join("backups")
        .join(id)
        .join(MANIFEST);
    super::limited::read(&path, MANIFEST_LIMIT, false).ok()
}

/// Note for the end of the run that the journal could not record run `id`.
fn unrecorded(notes: &Mutex<Vec<String>>, e: &Error, id: &str) {
    if let Ok(mut notes) = notes.lock() {
        notes.push(format!(
            "{}: {}; restore will not pick run {id} on its own: restore it with `skillmod restore --run {id} --trust`",
            e.code, e.message
        ));
    }
}

/// `root/.skillmod`, refused when it is a symlink or anything but a plain folder (a repository
/// could point it anywhere). A root that is a skill folder (an installed skill outside git) keeps
/// its state in the user's state folder instead, so backups never ship with the skill.
pub(crate) fn state_dir(root: &Path) -> Result<PathBuf> {
    if crate::fsio::is_skill_folder(root) {
        return user_state_dir(root);
    }
    let state = root.join(STATE_DIR);
    match std::fs::symlink_metadata(&state) {
        Ok(_) => plain_folder(&state).map(|_| state),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(state),
        Err(e) => Err(Error::io(
            codes::STATE_DIR_UNSAFE,
            "cannot inspect",
            &state,
            &e,
        )),
    }
}

/// The state of a skill folder that is its own project root: `$XDG_STATE_HOME/skillmod/skills/`
/// (else `~/.local/state/…`), one folder per root, named by a hash of its real path.
fn user_state_dir(root: &Path) -> Result<PathBuf> {
    let base = super::journal::user_state_base().ok_or_else(|| {
        Error::new(codes::STATE_DIR_UNSAFE,
            format!(
                "{} is a skill folder, whose state is kept in the user's state folder, but neither XDG_STATE_HOME nor HOME is set; set one, or pass --no-backup",
                root.display()
            ),
        )
    })?;
    Ok(base.join("skills").join(super::journal::root_key(root)))
}

fn plain_folder(path: &Path) -> Result<()> {
    let meta = std::fs::symlink_metadata(path)
        .map_err(|e| Error::io(codes::STATE_DIR_UNSAFE, "cannot inspect", path, &e))?;
    if meta.file_type().is_symlink() || !meta.is_dir() {
        return Err(Error::new(
            codes::STATE_DIR_UNSAFE,
            format!(
                "{} is a symlink or not a folder; skillmod keeps its state only in a plain folder. Remove it (it may have come with the repository) and run again",
                path.display()
            ),
        ));
    }
    Ok(())
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// Make a folder's entries durable (a new file or a rename in it).
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// `path` relative to `root`, as a clean relative path, when it lies under it.
fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    // Real paths on both sides: a path named with `..` (`migrate ../..` from inside a skill) or
    // through a symlinked working folder is still under its root.
    let (root, real) = (super::canonical(root), super::canonical(path));
    let relative = real.strip_prefix(&root).ok()?;
    safe_relative(relative).then(|| relative.to_path_buf())
}

/// A relative path of plain names: no root, no `..`, not empty.
fn safe_relative(path: &Path) -> bool {
    path.components().next().is_some()
        && path
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// True when a component of `path` names git's folder or skillmod's state folder, in any case
/// and in the spellings file systems take for them (`.GIT`, `.git.`, `git~1`, `.g\u{200c}it`).
pub(crate) fn protected(path: &Path) -> bool {
    path.components().any(|c| match c {
        Component::Normal(name) => {
            let name = name.to_string_lossy();
            // HFS+ ignores these code points in names; NTFS drops trailing dots and spaces.
            let folded: String = name
                .chars()
                .filter(|c| {
                    !matches!(*c as u32, 0x200c..=0x200f | 0x202a..=0x202e | 0x206a..=0x206f | 0xfeff)
                })
                .collect::<String>()
                .trim_end_matches(['.', ' '])
                .to_lowercase();
            matches!(
                folded.as_str(),
                ".git" | "git~1" | ".skillmod" | "skillm~1"
            )
        }
        _ => false,
    })
}

/// True when `id` is a run id: a real UTC time (not later than a day from now), optionally `-N`.
pub(crate) fn is_run_id(id: &str) -> bool {
    let (stamp, suffix) = match id.split_once('-') {
        Some((stamp, n)) => (stamp, Some(n)),
        None => (id, None),
    };
    if suffix.is_some_and(|n| n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit())) {
        return false;
    }
    chrono::NaiveDateTime::parse_from_str(stamp, RUN_ID_FORMAT)
        .is_ok_and(|time| time.and_utc() <= chrono::Utc::now() + chrono::Duration::days(1))
}

/// True when run `id` is dated later than now: no run this user's migrate made is.
pub(crate) fn in_future(id: &str) -> bool {
    let stamp = id.split_once('-').map_or(id, |(stamp, _)| stamp);
    chrono::NaiveDateTime::parse_from_str(stamp, RUN_ID_FORMAT)
        .is_ok_and(|time| time.and_utc() > chrono::Utc::now())
}

/// The backup runs under `root`, oldest first (ids sort by time); folders that are not runs
/// (wrong name, symlinks, no manifest) are left out.
pub(crate) fn list_runs(root: &Path) -> Result<Vec<String>> {
    let backups = state_dir(root)?.join("backups");
    if std::fs::symlink_metadata(&backups).is_err() {
        return Ok(Vec::new());
    }
    plain_folder(&backups)?;
    let mut runs: Vec<String> = std::fs::read_dir(&backups)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|id| is_run_id(id) && backups.join(id).join(MANIFEST).is_file())
                .collect()
        })
        .unwrap_or_default();
    runs.sort();
    Ok(runs)
}

/// Load run `id` under `root`, checking every entry: its path stays inside the root (also
/// through symlinked folders), its backup is a file of the run, and the backup's bytes hash to
/// `sha256_before`. A torn last line (a write cut short) is left out with a warning.
pub fn load_run(root: &Path, id: &str) -> Result<LoadedRun> {
    if !is_run_id(id) {
        return Err(Error::new(
            codes::INVALID_RUN_ID,
            format!(
                "'{id}' is not a run id (like 20261121T223938.761Z); list runs with `skillmod restore --list`"
            ),
        ));
    }
    let backups = state_dir(root)?.join("backups");
    let dir = backups.join(id);
    let not_found = || {
        Error::new(
            codes::BACKUP_RUN_NOT_FOUND,
            format!(
                "no backup run '{id}' under {}; list runs with `skillmod restore --list`",
                backups.display()
            ),
        )
    };
    std::fs::symlink_metadata(&dir).map_err(|_| not_found())?;
    plain_folder(&backups)?;
    plain_folder(&dir)?;
    // Read as untrusted state: a FIFO, a device or a link in the manifest's place is refused,
    // never waited on or followed.
    let manifest = dir.join(MANIFEST);
    let text = match super::limited::read(&manifest, MANIFEST_LIMIT, false) {
        Ok(text) => text,
        Err(super::limited::Refused::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(not_found());
        }
        Err(refused) => {
            return Err(Error::new(
                codes::BACKUP_MANIFEST_INVALID,
                format!(
                    "the manifest of run '{id}' {}; the run is not restored (it may not be skillmod's own)",
                    refused.describe(MANIFEST_LIMIT)
                ),
            ));
        }
    };
    let mut loaded = LoadedRun::default();
    // Lines after those migrate sealed were not written by it (or came after its last word).
    let mut text = text;
    if let Some((len, sha256)) = super::journal::sealed(root, id)
        && text.len() > len
        && super::sha256_hex(&text[..len]) == sha256
    {
        text.truncate(len);
        loaded.warnings.push(format!(
            "the manifest of run '{id}' holds bytes after the lines its migrate sealed (a write cut short, or lines added since); they are left out"
        ));
    }
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let entry: ManifestEntry = match serde_json::from_slice(line) {
            Ok(entry) => entry,
            // The last line without its newline: the write was cut short (full disk, crash).
            Err(_) if i == last => {
                loaded.warnings.push(format!(
                    "the manifest of run '{id}' ends in a torn line (a write was cut short); that entry is left out"
                ));
                continue;
            }
            Err(e) => {
                return Err(Error::new(
                    codes::BACKUP_MANIFEST_INVALID,
                    format!("manifest of run '{id}' is damaged at line {}: {e}", i + 1),
                ));
            }
        };
        let shown = crate::bytes_text::os_marked(entry.path.as_os_str());
        match check_entry(root, &dir, entry) {
            Ok(checked) => loaded.entries.push(checked),
            Err(e) => loaded.refused.push((shown, e)),
        }
    }
    Ok(loaded)
}

fn unsafe_entry(why: String) -> Error {
    Error::new(
        codes::MANIFEST_ENTRY_UNSAFE,
        format!("{why}; nothing was written (the backup run may not be skillmod's own)"),
    )
}

/// A path restore never touches: recorded there (no run of skillmod's names one), or reached
/// there now through a folder a later change made a symlink (the run may well be the user's).
fn protected_entry(path: &Path, through_link: bool) -> Error {
    let why = if through_link {
        "now leads into .git/ or .skillmod/ through a folder that became a symlink since the run"
    } else {
        "lies in .git/ or .skillmod/ (migrate never changes a file there: the run is not skillmod's own)"
    };
    Error::new(
        codes::PATH_PROTECTED,
        format!(
            "the recorded path '{}' {why}; restore never writes, creates or removes anything there, and nothing was written. Inspect the run under .skillmod/backups",
            path.display()
        ),
    )
}

fn check_entry(root: &Path, dir: &Path, entry: ManifestEntry) -> Result<CheckedEntry> {
    if !safe_relative(&entry.path) {
        return Err(unsafe_entry(format!(
            "the recorded path '{}' is absolute or leaves the project root",
            entry.path.display()
        )));
    }
    // Git's and skillmod's own state is never restore's to write, in any spelling.
    if protected(&entry.path) {
        return Err(protected_entry(&entry.path, false));
    }
    let target = root.join(&entry.path);
    let real = target
        .parent()
        .and_then(|p| p.canonicalize().ok())
        .zip(root.canonicalize().ok());
    let Some(real_parent) = real
        .as_ref()
        .and_then(|(parent, root)| parent.strip_prefix(root).ok())
    else {
        return Err(unsafe_entry(format!(
            "the folder of '{}' is missing or lies outside the project root (through a symlink)",
            entry.path.display()
        )));
    };
    // Reached through a symlinked folder.
    if protected(real_parent) {
        return Err(protected_entry(&entry.path, true));
    }
    // A folder on the way is now a symlink inside the root: the file there is another one than
    // the run wrote (another skill's), so it is never written or removed, even with --force.
    let recorded: PathBuf = entry
        .path
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if real_parent != recorded {
        return Err(unsafe_entry(format!(
            "the folder of '{}' is now reached through a symbolic link (it leads to '{}'), so the file there is not the one the run wrote",
            entry.path.display(),
            real_parent.display()
        )));
    }
    let name = entry.backup.strip_prefix("files/").unwrap_or("");
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(unsafe_entry(format!(
            "the backup name '{}' is not a file of its run",
            entry.backup
        )));
    }
    let backup = dir.join("files").join(name);
    let unreadable = |e: std::io::Error| {
        Error::io(
            codes::BACKUP_UNREADABLE,
            "cannot read the backup",
            &backup,
            &e,
        )
    };
    let meta = std::fs::symlink_metadata(&backup).map_err(unreadable)?;
    if !meta.is_file() {
        return Err(unsafe_entry(format!(
            "the backup '{}' is not a regular file",
            entry.backup
        )));
    }
    let bytes = std::fs::read(&backup).map_err(unreadable)?;
    if super::sha256_hex(&bytes) != entry.sha256_before {
        return Err(Error::new(
            codes::BACKUP_CORRUPT,
            format!(
                "{} does not hash to its recorded sha256; nothing was written",
                backup.display()
            ),
        ));
    }
    Ok(CheckedEntry {
        entry,
        target,
        backup,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_real_times() {
        assert!(is_run_id("20261121T223938.761Z"));
        assert!(is_run_id("20261121T223938.761Z-2"));
        assert!(!is_run_id("99999999T000000.000Z"));
        assert!(!is_run_id("../../x"));
        assert!(!is_run_id("20261121T223938.761Z-"));
        assert!(!is_run_id("20991121T223938.761Z"));
    }

    #[test]
    fn git_and_state_folders_are_protected_in_every_spelling() {
        for path in [
            ".git/config",
            "a/.git/hooks/pre-commit",
            ".GIT/config",
            ".Git./config",
            ".git /config",
            "GIT~1/config",
            ".g\u{200c}it/config",
            "s/.skillmod/backups/x",
            ".SkillMod/cache",
            ".git",
        ] {
            assert!(protected(Path::new(path)), "{path}");
        }
        for path in [
            "s/execute.sh",
            ".github/x",
            "a.git/b",
            ".gitignore",
            "git/config",
        ] {
            assert!(!protected(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn only_plain_relative_paths_are_safe() {
        assert!(safe_relative(Path::new("skills/a/execute.sh")));
        assert!(!safe_relative(Path::new("/etc/passwd")));
        assert!(!safe_relative(Path::new("a/../../b")));
        assert!(!safe_relative(Path::new("")));
    }
}
