//! The reading remembered (issue 30, point 2): when `--vocabulary` names a reading the settings
//! file of the migrated scripts does not give, check would judge later commits another way. So
//! after the scripts, migrate writes `vocabulary = "…"` into each settings file that governs
//! scripts it judged, when that file is a regular file inside the project root, committed and
//! clean: a minimal edit (`config::edit`), backed up and written as scripts are (restore brings it
//! back), shown as a diff in a dry run. Where no settings file applies, or the one that applies is
//! refused (a symlink, uncommitted, outside the project), nothing is written and the report gives
//! the one line to add. migrate never creates a settings file.

use crate::codes::{self, Code};
use crate::error::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{Change, FileReport, Options, Status};
use crate::analyze::Vocabulary;
use crate::config::edit::{set_vocabulary, vocabulary_line};
use crate::fsio::backup::Backups;
use crate::fsio::{atomic, display_path, limited, sha256_hex};

/// What became of one settings file (`settings_updates[]` in `--format json`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SettingsStatus {
    /// The reading was written into the file (with a backup).
    Written,
    /// A dry run: it would be written (the diff shows how).
    WouldWrite,
    /// Nothing was written: no settings file applies, or the one that does is refused
    /// (`errors` says why); the report gives the line to add.
    NotWritten,
    /// Writing it failed (a backup or the write itself).
    Failed,
}

/// The report of one settings file, or of the place one would go.
#[derive(Debug, Clone, Serialize)]
pub struct SettingsUpdate {
    /// The settings file, or where none applies `skillmod.toml` in the folder where one would
    /// govern the scripts (their repository root, or outside git the folder named); null with
    /// `--isolated`.
    #[serde(serialize_with = "crate::bytes_text::serde_path::maybe")]
    pub path: Option<String>,
    pub status: SettingsStatus,
    /// The reading the run used (`--vocabulary`).
    pub vocabulary: Vocabulary,
    /// What the file said before (null: no `vocabulary` key, or no file).
    pub vocabulary_before: Option<Vocabulary>,
    /// The line that records the reading.
    pub line: String,
    /// Whether the file exists (false: the line goes into a new file, which migrate never
    /// creates).
    pub exists: bool,
    #[serde(serialize_with = "crate::bytes_text::serde_path::maybe")]
    pub backup: Option<String>,
    /// Why it was not written (`NO_SETTINGS_FILE`, `SETTINGS_NOT_REGULAR`, `SETTINGS_DIRTY`,
    /// `SETTINGS_OUTSIDE_ROOT`, `SETTINGS_UNPARSABLE`, `SETTINGS_IGNORED`), or why it failed.
    pub errors: Vec<Error>,
    #[serde(skip)]
    pub abs_path: Option<PathBuf>,
    /// The path relative to its project root, as a dry run's diff names it.
    #[serde(skip)]
    pub diff_path: String,
}

/// Where the settings of a judged script come from.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Place {
    /// A settings file applies (absolute path).
    File(PathBuf),
    /// None applies; the folder where one would.
    Missing(PathBuf),
    /// `--isolated`: none is read.
    Isolated,
}

/// What the run saw of one place: what its file says, and a script it governs (whose project
/// root holds the backup).
#[derive(Debug, Clone)]
struct Seen {
    said: Option<Vocabulary>,
    script: PathBuf,
}

/// The places whose scripts the run judged, each once, in path order.
#[derive(Debug, Default, Clone)]
pub struct Readings {
    places: BTreeMap<Place, Seen>,
}

impl Readings {
    /// Note the settings of a script once the run has judged it (migrated, or would be, already
    /// migrated, or with no legacy line): a skipped or failed script was not read with the
    /// vocabulary. Nothing is noted without `--vocabulary`.
    pub fn note(&mut self, report: &FileReport, options: &Options) {
        let judged = matches!(
            report.status,
            Status::Migrated | Status::WouldMigrate | Status::AlreadyMigrated | Status::NoLegacy
        );
        if options.vocabulary.is_none() || !judged {
            return;
        }
        let path = &report.abs_path;
        let Ok(config) = options.profiles.config_of(path) else {
            return;
        };
        let resolver = options.profiles.resolver();
        let place = match &config.path {
            Some(file) => Place::File(file.clone()),
            None if resolver.isolated() => Place::Isolated,
            None => match resolver.home_of(path) {
                Some(home) => Place::Missing(home),
                None => return,
            },
        };
        self.places.entry(place).or_insert_with(|| Seen {
            said: config.settings.vocabulary,
            script: path.clone(),
        });
    }
}

/// Bring each settings file noted to say the reading the run used (`options.vocabulary`), where
/// it says another; each update is handed to `on_update` with its change, for the diff.
pub fn finish(
    readings: &Readings,
    options: &Options,
    backups: &Backups,
    mut on_update: impl FnMut(&SettingsUpdate, Option<&Change>),
) -> Vec<SettingsUpdate> {
    let Some(wanted) = options.vocabulary else {
        return Vec::new();
    };
    let mut updates = Vec::new();
    for (place, seen) in &readings.places {
        if seen.said.unwrap_or_default() == wanted {
            continue;
        }
        let (update, change) = match place {
            Place::File(path) => edit(path, seen, wanted, options, backups),
            Place::Missing(home) => (missing(home, wanted, options), None),
            Place::Isolated => (isolated(wanted), None),
        };
        on_update(&update, change.as_ref());
        updates.push(update);
    }
    updates
}

fn new_update(path: &Path, wanted: Vocabulary, options: &Options) -> SettingsUpdate {
    SettingsUpdate {
        path: Some(display_path(path, &options.base)),
        status: SettingsStatus::NotWritten,
        vocabulary: wanted,
        vocabulary_before: None,
        line: vocabulary_line(wanted),
        exists: true,
        backup: None,
        errors: Vec::new(),
        abs_path: Some(path.to_path_buf()),
        diff_path: super::root_relative(path, &options.named),
    }
}

fn missing(home: &Path, wanted: Vocabulary, options: &Options) -> SettingsUpdate {
    let path = home.join(crate::config::FILE_NAMES[0]);
    let mut update = new_update(&path, wanted, options);
    update.exists = false;
    update.abs_path = None;
    update.errors.push(Error {
        code: codes::NO_SETTINGS_FILE,
        message: "no settings file governs these scripts, and migrate never creates one".into(),
    });
    update
}

fn isolated(wanted: Vocabulary) -> SettingsUpdate {
    SettingsUpdate {
        path: None,
        status: SettingsStatus::NotWritten,
        vocabulary: wanted,
        vocabulary_before: None,
        line: vocabulary_line(wanted),
        exists: false,
        backup: None,
        errors: vec![Error {
            code: codes::SETTINGS_IGNORED,
            message: format!(
                "--isolated: no settings file was read, so none is written; give check `--vocabulary {}` too, or put the line in the settings file check reads",
                wanted.as_str()
            ),
        }],
        abs_path: None,
        diff_path: String::new(),
    }
}

/// The settings file's metadata and its scripts' project root when migrate may write it: a
/// regular file inside that root, committed and clean (unless `--allow-dirty`); else the code
/// and the reason.
fn writable(
    path: &Path,
    seen: &Seen,
    options: &Options,
) -> std::result::Result<(std::fs::Metadata, std::path::PathBuf), (Code, String)> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err((
                codes::SETTINGS_NOT_REGULAR,
                "is a symbolic link; migrate does not write through it (its target may serve other projects)".into(),
            ));
        }
        Ok(meta) if !meta.is_file() => {
            return Err((codes::SETTINGS_NOT_REGULAR, "is not a regular file".into()));
        }
        Ok(meta) => meta,
        Err(e) => {
            return Err((codes::SETTINGS_NOT_REGULAR, format!("cannot be read: {e}")));
        }
    };
    let root = crate::fsio::file_root(&seen.script, &options.named);
    let real_root = crate::fsio::canonical(&root);
    if !crate::fsio::links::lies_inside(&crate::fsio::canonical(path), &real_root) {
        return Err((
            codes::SETTINGS_OUTSIDE_ROOT,
            format!(
                "lies outside the project root {} of the scripts it governs, where their backups go",
                crate::bytes_text::quote_os(&real_root)
            ),
        ));
    }
    if !options.allow_dirty {
        let parent = path.parent().unwrap_or(path);
        if let Some(repo) = crate::vcs::Repo::discover(parent) {
            match repo.not_clean(path) {
                Ok(None) => {}
                Ok(Some(why)) => {
                    return Err((
                        codes::SETTINGS_DIRTY,
                        format!(
                            "{why}; migrate writes only a committed, clean settings file (or pass --allow-dirty)"
                        ),
                    ));
                }
                Err(e) => {
                    return Err((
                        codes::SETTINGS_DIRTY,
                        format!("git cannot tell whether it is clean: {}", e.message),
                    ));
                }
            }
        }
    }
    Ok((meta, root))
}

/// Write the reading into the settings file at `path`, when it is a regular file inside the
/// project root of the scripts it governs and clean in git (unless `--allow-dirty`).
fn edit(
    path: &Path,
    seen: &Seen,
    wanted: Vocabulary,
    options: &Options,
    backups: &Backups,
) -> (SettingsUpdate, Option<Change>) {
    let mut update = new_update(path, wanted, options);
    update.vocabulary_before = seen.said;
    let refuse = |mut update: SettingsUpdate, code: Code, message: String| {
        update.errors.push(Error { code, message });
        (update, None)
    };
    let (meta, root) = match writable(path, seen, options) {
        Ok(found) => found,
        Err((code, message)) => return refuse(update, code, message),
    };
    let before = match limited::read(path, crate::config::SIZE_LIMIT, false) {
        Ok(bytes) => bytes,
        Err(refused) => {
            return refuse(
                update,
                codes::SETTINGS_NOT_REGULAR,
                refused.describe(crate::config::SIZE_LIMIT),
            );
        }
    };
    let Ok(text) = std::str::from_utf8(&before) else {
        return refuse(
            update,
            codes::SETTINGS_UNPARSABLE,
            "is not UTF-8 text".into(),
        );
    };
    let (after, edit) = match set_vocabulary(text, wanted) {
        Ok(edited) => edited,
        Err(why) => return refuse(update, codes::SETTINGS_UNPARSABLE, why),
    };
    let change = Change {
        before: before.clone(),
        after: after.into_bytes(),
        edits: vec![edit],
    };
    if options.dry_run {
        update.status = SettingsStatus::WouldWrite;
        return (update, Some(change));
    }
    update.status = SettingsStatus::Failed;
    let mode = crate::fsio::read::mode_of(&meta);
    let sha_before = sha256_hex(&before);
    let sha_after = sha256_hex(&change.after);
    if options.backup {
        match backups.save(&root, path, &before, mode, &sha_before, &sha_after) {
            Ok(backup) => update.backup = Some(display_path(&backup, &options.base)),
            Err(e) => {
                update.errors.push(e);
                return (update, None);
            }
        }
    }
    let expected = atomic::Expected {
        len: meta.len(),
        modified: meta.modified().ok(),
        sha256: sha_before,
        owner: crate::fsio::read::ownership(&meta).0,
    };
    if let Err(e) = atomic::replace_checked(path, &change.after, mode, &expected) {
        update.errors.push(e);
        return (update, None);
    }
    update.status = SettingsStatus::Written;
    (update, Some(change))
}

impl SettingsUpdate {
    /// The report's sentence for the file: what was written, or the line to add and why it was
    /// not written (one line).
    pub fn sentence(&self) -> String {
        let path = self
            .path
            .as_deref()
            .map_or_else(String::new, crate::bytes_text::quote_path);
        let same = "so check reads later commits the same way";
        let line = &self.line;
        let why = self.errors.first();
        let message = why.map_or("", |e| e.message.as_str());
        match (self.status, why.map(|e| e.code)) {
            (SettingsStatus::Written, _) => {
                format!("vocabulary: wrote `{line}` into {path}, {same}")
            }
            (SettingsStatus::WouldWrite, _) => {
                format!("vocabulary: would write `{line}` into {path}, {same}")
            }
            (SettingsStatus::Failed, code) => format!(
                "vocabulary: {path} could not be written ({}: {message}); add `{line}` to it yourself, {same}",
                code.map_or("", |c| c.code)
            ),
            (SettingsStatus::NotWritten, Some(code)) if code == codes::SETTINGS_IGNORED => {
                format!("vocabulary: {message}")
            }
            (SettingsStatus::NotWritten, Some(code)) if code == codes::NO_SETTINGS_FILE => {
                format!("vocabulary: add `{line}` to a new {path} {same} ({message})")
            }
            (SettingsStatus::NotWritten, _) => {
                let (verb, preposition) = match self.vocabulary_before {
                    Some(_) => ("set", "in"),
                    None => ("add", "to"),
                };
                format!(
                    "vocabulary: {verb} `{line}` {preposition} {path} {same}; not written, since {path} {message}"
                )
            }
        }
    }
}
