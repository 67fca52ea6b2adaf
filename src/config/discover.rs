//! Finding the scripts to work on: folders walked with the `ignore` crate (gitignore-aware, no
//! symlink following, never into `.git` or `.skillmod`), explicit files taken as given (or, with
//! `--force-select`, by the walk's rule). A walk selects `execute.sh` anywhere, every shell script
//! (by extension or shebang) inside a skill folder (one holding `SKILL.md`), and `--include`
//! matches; what it leaves out (symlinked folders, excluded paths, other shell files) it counts in
//! a [`LeftOut`] for the run's notes.

use crate::codes;
use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use std::sync::{Arc, Mutex};

use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::left_out::LeftOut;
use crate::config::{Config, PerSettings, Resolver};
use crate::domain::DEFAULT_NAME;
use crate::error::{Error, Result};
use crate::fsio::{STATE_DIR, canonical};

/// What to look at, as given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Folders to walk for `execute.sh` (and `include` matches).
    pub dirs: Vec<PathBuf>,
    /// Files taken whatever their name.
    pub files: Vec<PathBuf>,
    /// Extra file-name globs for folder walks, e.g. `*.sh`.
    pub include: Vec<String>,
    /// `--exclude`: paths left out (gitignore syntax), relative to the folder given with them.
    pub exclude: Option<(PathBuf, Vec<String>)>,
    /// Take every file: no .gitignore/.ignore rules, for walks and explicit files alike.
    pub no_ignore: bool,
    /// Apply the walk's selection to explicit files too (pre-commit passes every shell file).
    pub force_select: bool,
    /// Where each folder's settings file is found: its `include` and `exclude` apply under it
    /// where no flag gives them.
    pub settings: Option<Arc<Resolver>>,
    /// With `--staged`: the folders whose `SKILL.md` git's index holds, which then decide what
    /// a skill folder is (the commit's, not the work tree's).
    pub staged_skills: Option<Arc<HashSet<PathBuf>>>,
    /// What the walks met and did not select (shell files outside skill folders, symlinked
    /// folders, excluded paths), for the notes the run ends with.
    pub left_out: Arc<LeftOut>,
}

impl Selection {
    /// Sort positional paths into folders and files; a missing path is a usage error.
    pub fn add_positional(&mut self, paths: &[PathBuf]) -> Result<()> {
        for path in paths {
            let meta = std::fs::symlink_metadata(path).map_err(|_| {
                Error::new(
                    codes::PATH_NOT_FOUND,
                    format!(
                        "{} does not exist; pass an existing file or folder",
                        path.display()
                    ),
                )
            })?;
            if meta.is_dir() {
                self.dirs.push(path.clone());
            } else {
                self.files.push(path.clone());
            }
        }
        Ok(())
    }
}

/// Every candidate script, sorted by path and without duplicates. Symlinks are returned too
/// (the caller reports them as skipped); folders are walked in parallel.
pub fn discover(selection: &Selection) -> Result<Vec<PathBuf>> {
    let filters = Arc::new(FilterSet::new(selection)?);
    let skills = Arc::new(SkillFolders {
        staged: selection.staged_skills.clone(),
        ..SkillFolders::default()
    });
    let mut found = Vec::new();
    let mut ignored = IgnoreCache::default();
    let mut tracked = Tracked::default();
    for file in &selection.files {
        if std::fs::symlink_metadata(file).is_err() {
            return Err(Error::new(
                codes::PATH_NOT_FOUND,
                format!("{} does not exist; pass an existing file", file.display()),
            ));
        }
        if let Some(source) = filters.excluded_by(file)? {
            selection
                .left_out
                .excluded(source.as_deref(), canonical(file));
            continue;
        }
        // Explicit names still obey the ignore rules (pre-commit passes files one by one), but
        // a file git tracks is never ignored: a repository cannot hide a script it commits.
        if !selection.no_ignore && ignored.is_ignored(file) && !tracked.holds(&canonical(file)) {
            continue;
        }
        let absolute = canonical(file);
        // A symlink is placed where it stands (its target may lie outside the root, which the
        // check then reports), not where it leads.
        let link = std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink());
        let placed = if link {
            crate::fsio::as_named(file)
        } else {
            absolute.clone()
        };
        // A runtime file named on its own is verified (the hooks pass it when a commit edits it).
        let taken = !selection.force_select
            || is_runtime_file(file.file_name().unwrap_or_default())
            || filters.for_path(&placed).is_ok_and(|f| {
                f.names.is_match(file.file_name().unwrap_or_default())
                    || (!is_runtime_file(file.file_name().unwrap_or_default())
                        && skills.holds(&placed)
                        && (is_shell_file(&absolute)
                            || link && file.extension().is_some_and(|e| e == "sh" || e == "bash")))
            });
        if taken {
            found.push(file.clone());
        }
    }
    for dir in &selection.dirs {
        if !dir.is_dir() {
            return Err(Error::new(
                codes::PATH_NOT_FOUND,
                format!("{} is not a folder; pass an existing folder", dir.display()),
            ));
        }
        if let Some(source) = filters.excluded_by(dir)? {
            selection
                .left_out
                .excluded(source.as_deref(), canonical(dir));
            continue;
        }
        selection.left_out.walking(dir);
        let walked = walk(
            dir,
            selection.no_ignore,
            filters.clone(),
            skills.clone(),
            &selection.left_out,
        )?;
        if !selection.no_ignore {
            found.extend(tracked.left_out(dir, &walked, &filters, &skills));
        }
        found.extend(walked);
    }
    found.sort();
    found.dedup();
    Ok(found)
}

/// The files git tracks, by repository (read once each): a tracked file is never ignored, so a
/// committed `.gitignore` or `.ignore` cannot hide a skill script from check.
#[derive(Default)]
struct Tracked {
    repos: Vec<(PathBuf, HashSet<PathBuf>)>,
}

impl Tracked {
    /// The tracked files of the repository holding the folder `dir` (absolute paths).
    fn of(&mut self, dir: &Path) -> Option<&HashSet<PathBuf>> {
        let at = match self
            .repos
            .iter()
            .position(|(root, _)| dir.starts_with(root))
        {
            Some(at) => at,
            None => {
                let repo = crate::vcs::Repo::discover(dir)?;
                let files = repo.indexed().ok()?;
                self.repos.push((repo.root, files));
                self.repos.len() - 1
            }
        };
        self.repos.get(at).map(|(_, files)| files)
    }

    /// Whether git tracks the file at the absolute path `file`.
    fn holds(&mut self, file: &Path) -> bool {
        file.parent()
            .and_then(|dir| self.of(dir))
            .is_some_and(|files| files.contains(file))
    }

    /// Tracked files under `dir` that the selection takes but the walk's ignore rules left out
    /// of `walked`, named as the walk names them.
    fn left_out(
        &mut self,
        dir: &Path,
        walked: &[PathBuf],
        filters: &FilterSet,
        skills: &SkillFolders,
    ) -> Vec<PathBuf> {
        let absolute = canonical(dir);
        let Some(files) = self.of(&absolute) else {
            return Vec::new();
        };
        let seen: HashSet<PathBuf> = walked
            .iter()
            .filter_map(|p| p.strip_prefix(dir).ok().map(|r| absolute.join(r)))
            .collect();
        let mut out: Vec<PathBuf> = files
            .iter()
            .filter(|file| file.starts_with(&absolute) && !seen.contains(*file))
            .filter(|file| {
                let relative = file.strip_prefix(&absolute).unwrap_or(file);
                !relative
                    .components()
                    .any(|c| c.as_os_str() == ".git" || c.as_os_str() == STATE_DIR)
            })
            .filter(|file| std::fs::symlink_metadata(file).is_ok())
            .filter(|file| {
                let name = file.file_name().unwrap_or_default();
                !is_runtime_file(name)
                    && filters.excluded_by(file).is_ok_and(|by| by.is_none())
                    && filters.for_path_or_note(file).is_some_and(|f| {
                        f.names.is_match(name) || (skills.holds(file) && is_shell_file(file))
                    })
            })
            .map(|file| dir.join(file.strip_prefix(&absolute).unwrap_or(file)))
            .collect();
        out.sort();
        out
    }
}

/// Whether a path named alone (a file, or `check -`'s `--stdin-filename`) is excluded by
/// `--exclude` or its settings file's `exclude`.
pub(crate) fn is_excluded(selection: &Selection, path: &Path) -> Result<bool> {
    Ok(not_excluded(selection, vec![path.to_path_buf()])?.is_empty())
}

/// `paths` less those an exclude leaves out, judged with one set of filters.
pub(crate) fn not_excluded(selection: &Selection, paths: Vec<PathBuf>) -> Result<Vec<PathBuf>> {
    let filters = FilterSet::new(selection)?;
    let mut kept = Vec::with_capacity(paths.len());
    for path in paths {
        if filters.excluded_by(&path)?.is_none() {
            kept.push(path);
        }
    }
    Ok(kept)
}

/// The names taken and the paths left out in one folder.
struct Filters {
    names: GlobSet,
    exclude: Option<Exclude>,
}

/// The filters in force in each folder: the flags', or each settings file's where no flag
/// gives them, each built once. A bad glob in a settings file stops the walk with its error.
struct FilterSet {
    filters: PerSettings<Filters>,
    error: Mutex<Option<Error>>,
}

impl FilterSet {
    fn new(selection: &Selection) -> Result<FilterSet> {
        let include_flag = (!selection.include.is_empty()).then(|| selection.include.clone());
        let exclude_flag = selection
            .exclude
            .clone()
            .filter(|(_, globs)| !globs.is_empty());
        // Flags are checked at once, whatever is found.
        if let Some(globs) = &include_flag {
            name_matcher(globs, "--include")?;
        }
        if let Some((root, globs)) = &exclude_flag {
            Exclude::new(root, globs, "--exclude", None)?;
        }
        let resolver = match &selection.settings {
            Some(resolver) => resolver.clone(),
            None => Arc::new(Resolver::new(None, true, &[])?),
        };
        let filters = PerSettings::new(resolver, move |config: &Config| {
            // A settings file's errors are prefixed with its path by `PerSettings`.
            let origin = |key: &str| match config.path {
                Some(_) => key.to_string(),
                None => format!("--{key}"),
            };
            let names = match &include_flag {
                Some(globs) => name_matcher(globs, "--include")?,
                None => name_matcher(
                    config.settings.include.as_deref().unwrap_or_default(),
                    &origin("include"),
                )?,
            };
            let exclude = match (&exclude_flag, &config.settings.exclude, config.dir()) {
                (Some((root, globs)), _, _) => Some(Exclude::new(root, globs, "--exclude", None)?),
                (None, Some(globs), Some(dir)) if !globs.is_empty() => Some(Exclude::new(
                    dir,
                    globs,
                    &origin("exclude"),
                    config.path.clone(),
                )?),
                _ => None,
            };
            Ok(Filters { names, exclude })
        });
        Ok(FilterSet {
            filters,
            error: Mutex::new(None),
        })
    }

    /// The filters for entries of the folder holding `path`.
    fn for_path(&self, path: &Path) -> Result<Arc<Filters>> {
        self.filters.get(path)
    }

    /// Whether `path` (as given) or a folder above it is excluded, and if so by which settings
    /// file's `exclude` (`Some(None)`: by `--exclude`).
    fn excluded_by(&self, path: &Path) -> Result<Option<Option<PathBuf>>> {
        let is_dir = path.is_dir();
        Ok(self
            .for_path(path)?
            .exclude
            .as_ref()
            .filter(|e| e.covers(path, is_dir))
            .map(|e| e.source.clone()))
    }

    /// Inside a walk, where errors cannot be returned: the first is kept for the end.
    fn for_path_or_note(&self, path: &Path) -> Option<Arc<Filters>> {
        match self.for_path(path) {
            Ok(filters) => Some(filters),
            Err(error) => {
                self.error
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .get_or_insert(error);
                None
            }
        }
    }

    fn take_error(&self) -> Option<Error> {
        self.error
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }
}

fn name_matcher(include: &[String], origin: &str) -> Result<GlobSet> {
    let mut builder = GlobSetBuilder::new();
    for pattern in std::iter::once(DEFAULT_NAME).chain(include.iter().map(String::as_str)) {
        let glob = Glob::new(pattern).map_err(|e| {
            Error::new(
                codes::INVALID_GLOB,
                format!("{origin}: '{pattern}' is not a valid glob: {e}"),
            )
        })?;
        builder.add(glob);
    }
    builder.build().map_err(|e| {
        Error::new(
            codes::INVALID_GLOB,
            format!("{origin}: cannot build the globs: {e}"),
        )
    })
}

/// `--exclude` / settings `exclude` globs: gitignore lines relative to one folder.
struct Exclude {
    matcher: Gitignore,
    /// The settings file the globs come from (`None`: `--exclude`), which the notes name.
    source: Option<PathBuf>,
}

impl Exclude {
    fn new(
        root: &Path,
        globs: &[String],
        origin: &str,
        source: Option<PathBuf>,
    ) -> Result<Exclude> {
        let mut builder = GitignoreBuilder::new(canonical(root));
        for glob in globs {
            builder.add_line(None, glob).map_err(|e| {
                Error::new(
                    codes::INVALID_GLOB,
                    format!("{origin}: '{glob}' is not a valid glob: {e}"),
                )
            })?;
        }
        let matcher = builder.build().map_err(|e| {
            Error::new(
                codes::INVALID_GLOB,
                format!("{origin}: cannot build the globs: {e}"),
            )
        })?;
        Ok(Exclude { matcher, source })
    }

    /// Whether an absolute path is excluded by its own name alone.
    fn matches(&self, path: &Path, is_dir: bool) -> bool {
        path.starts_with(self.matcher.path()) && self.matcher.matched(path, is_dir).is_ignore()
    }

    /// Whether `path` (as given) or a folder above it is excluded.
    fn covers(&self, path: &Path, is_dir: bool) -> bool {
        let path = canonical(path);
        path.starts_with(self.matcher.path())
            && self
                .matcher
                .matched_path_or_any_parents(&path, is_dir)
                .is_ignore()
    }
}

/// The path an `ignore` walk error is about, if it names one.
fn error_path(error: &ignore::Error) -> Option<PathBuf> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Partial(errors) => errors.iter().find_map(error_path),
        _ => None,
    }
}

/// The ignore files a walk with the standard filters reads in each folder.
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];
/// Larger ignore files are refused: the `ignore` crate holds each one's globs in memory, some
/// hundred bytes for each byte of the file.
const IGNORE_FILE_MAX: u64 = 256 * 1024;
/// What all the ignore files of a walk may hold together (thousands of ordinary ones).
const IGNORE_TOTAL_MAX: u64 = 8 * 1024 * 1024;

/// The ignore files a walk may still read, in bytes, across its folders; the first one refused.
pub(crate) struct IgnoreBudget {
    left: std::sync::atomic::AtomicU64,
    refused: Mutex<Option<Error>>,
    /// The project root of the walk: a link to a regular file inside it (`.ignore ->
    /// .gitignore`) is read as that file.
    root: PathBuf,
}

impl IgnoreBudget {
    /// A budget for a walk from `dir`.
    pub(crate) fn new(dir: &Path) -> IgnoreBudget {
        let dir = canonical(dir);
        IgnoreBudget {
            left: std::sync::atomic::AtomicU64::new(IGNORE_TOTAL_MAX),
            refused: Mutex::new(None),
            root: canonical(&crate::fsio::project_root(&dir)),
        }
    }

    /// Why the ignore file at `path` must not be read (None: it may be, or it is not there):
    /// not a regular file, nor a link to one inside the project root (a link may lead to
    /// `/dev/zero` or a FIFO), over the size cap, or past the walk's total.
    fn unsafe_file(&self, path: &Path) -> Option<String> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        let meta = if meta.file_type().is_symlink() {
            match std::fs::metadata(path) {
                Ok(target) if target.is_file() && canonical(path).starts_with(&self.root) => target,
                _ => {
                    return Some(
                        "is a symlink to something other than a regular file in the repository (it may lead to /dev/zero or a FIFO): make it a regular file"
                            .into(),
                    );
                }
            }
        } else {
            meta
        };
        if !meta.is_file() {
            return Some(
                "is not a regular file (a FIFO or a device): make it a regular file".into(),
            );
        }
        if meta.len() > IGNORE_FILE_MAX {
            return Some("is over 256 KiB: shorten it".into());
        }
        let taken = self.left.fetch_update(
            std::sync::atomic::Ordering::SeqCst,
            std::sync::atomic::Ordering::SeqCst,
            |left| left.checked_sub(meta.len()),
        );
        taken
            .is_err()
            .then(|| "takes the ignore files read past 8 MiB in all".into())
    }

    /// Whether the ignore files of `dir` may be read (each one read is taken from the budget).
    /// A refusal is kept for the end of the walk.
    pub(crate) fn admits(&self, dir: &Path) -> bool {
        let refusal = IGNORE_FILES.iter().find_map(|name| {
            let path = dir.join(name);
            self.unsafe_file(&path).map(|why| (path, why))
        });
        let Some((path, why)) = refusal else {
            return true;
        };
        self.refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get_or_insert(unsafe_ignore_file(&path, &why));
        false
    }

    /// The folder `dir` and those above it up to its project root, whose ignore files a walk
    /// from `dir` reads first, and the repository's `.git/info/exclude`.
    pub(crate) fn admits_from(&self, dir: &Path) -> Result<()> {
        let dir = canonical(dir);
        for folder in dir.ancestors() {
            if !self.admits(folder) {
                return self.result();
            }
            if folder == self.root {
                break;
            }
        }
        let exclude = self.root.join(".git/info/exclude");
        match self.unsafe_file(&exclude) {
            Some(why) => Err(unsafe_ignore_file(&exclude, &why)),
            None => Ok(()),
        }
    }

    fn result(&self) -> Result<()> {
        match self
            .refused
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
        {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }
}

/// `IGNORE_FILE_UNSAFE` for the ignore file at `path`, and why.
fn unsafe_ignore_file(path: &Path, why: &str) -> Error {
    Error::new(
        codes::IGNORE_FILE_UNSAFE,
        format!(
            "{} {why}, or run with --no-ignore; reading it could exhaust memory or never end, so nothing was walked past it",
            crate::bytes_text::quote_os(path)
        ),
    )
}

/// A walker with skillmod's rules: hidden folders included (skills live in `.claude/`), ignore
/// files honored unless `no_ignore`, symlinks not followed, `.git` and `.skillmod` never entered,
/// excluded paths pruned (each by the filters of its own folder, and counted in `left_out`).
fn walker(
    dir: &Path,
    no_ignore: bool,
    filters: Option<(Arc<FilterSet>, Arc<LeftOut>)>,
    budget: Option<Arc<IgnoreBudget>>,
) -> WalkBuilder {
    let mut builder = WalkBuilder::new(dir);
    let (given, absolute) = (dir.to_path_buf(), canonical(dir));
    builder
        .standard_filters(!no_ignore)
        .hidden(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |entry| {
            let name = entry.file_name();
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            if entry.depth() > 0 && is_dir && (name == ".git" || name == STATE_DIR) {
                return false;
            }
            // The folder's ignore files are read when the walk enters it.
            if entry.depth() > 0
                && is_dir
                && budget.as_ref().is_some_and(|b| !b.admits(entry.path()))
            {
                return false;
            }
            // Files are filtered where they are taken (`walk`): one lookup each.
            let Some((filters, left_out)) = filters.as_ref().filter(|_| is_dir) else {
                return true;
            };
            let relative = entry.path().strip_prefix(&given).unwrap_or(entry.path());
            let path = absolute.join(relative);
            filters
                .for_path_or_note(&path)
                .is_some_and(|f| match &f.exclude {
                    Some(exclude) if exclude.matches(&path, is_dir) => {
                        left_out.excluded(exclude.source.as_deref(), path);
                        false
                    }
                    _ => true,
                })
        });
    builder
}

/// Which explicit paths the ignore rules exclude: a path is ignored when it, or a folder above
/// it, does not come out of a one-level walk of its parent. Each folder is listed once.
#[derive(Default)]
struct IgnoreCache {
    listed: HashMap<PathBuf, HashSet<OsString>>,
}

impl IgnoreCache {
    fn is_ignored(&mut self, path: &Path) -> bool {
        let Ok(path) = std::path::absolute(path) else {
            return false;
        };
        let root = crate::fsio::project_root(path.parent().unwrap_or(&path));
        let mut current = path.as_path();
        while let (Some(parent), Some(name)) = (current.parent(), current.file_name()) {
            let names = self
                .listed
                .entry(parent.to_path_buf())
                .or_insert_with(|| list_kept(parent));
            if !names.contains(name) {
                return true;
            }
            if parent == root {
                break;
            }
            current = parent;
        }
        false
    }
}

fn list_kept(dir: &Path) -> HashSet<OsString> {
    // An ignore file that cannot be read safely keeps nothing out.
    let budget = Arc::new(IgnoreBudget::new(dir));
    if budget.admits_from(dir).is_err() {
        return std::fs::read_dir(dir)
            .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
            .unwrap_or_default();
    }
    // One level: no folder below is entered, so none of their ignore files is read.
    walker(dir, false, None, None)
        .max_depth(Some(1))
        .build()
        .flatten()
        .filter(|e| e.depth() == 1)
        .map(|e| e.file_name().to_os_string())
        .collect()
}

/// skillmod's own runtime files (`skillmod-runtime*.sh`) are not skills: a walk never selects
/// them, whatever `--include` matches.
pub(crate) fn is_runtime_file(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with(crate::analyze::runtime_link::FILE_STEM) && name.ends_with(".sh")
}

/// Which folders lie in a skill folder (a folder at or above them, up to their project root,
/// holds `SKILL.md`), each folder looked at once however many files a walk finds in it.
#[derive(Default)]
struct SkillFolders {
    known: Mutex<HashMap<PathBuf, bool>>,
    /// `Selection::staged_skills`: read instead of the work tree when set.
    staged: Option<Arc<HashSet<PathBuf>>>,
}

impl SkillFolders {
    /// Whether the file at `path` (absolute) lies in a skill folder.
    fn holds(&self, path: &Path) -> bool {
        let Some(folder) = path.parent() else {
            return false;
        };
        self.in_skill(folder)
    }

    fn in_skill(&self, folder: &Path) -> bool {
        if let Some(known) = self.known.lock().ok().and_then(|k| k.get(folder).copied()) {
            return known;
        }
        let holds = match &self.staged {
            Some(staged) => staged.contains(folder),
            None => crate::fsio::is_skill_folder(folder),
        };
        let found = holds
            || (!folder.join(".git").exists()
                && folder.parent().is_some_and(|parent| self.in_skill(parent)));
        if let Ok(mut known) = self.known.lock() {
            known.insert(folder.to_path_buf(), found);
        }
        found
    }
}

/// Whether a file is a shell script, by its name or by its first line (read without blocking,
/// regular files only, the first 256 bytes): `.sh`/`.bash`, or a sh/bash/dash/ksh shebang on a
/// file without another extension.
fn is_shell_file(path: &Path) -> bool {
    match path.extension() {
        Some(ext) if ext == "sh" || ext == "bash" => true,
        Some(_) => false,
        None => super::limited::open(path, false)
            .ok()
            .and_then(|file| {
                let mut head = Vec::with_capacity(256);
                std::io::Read::read_to_end(&mut std::io::Read::take(file, 256), &mut head).ok()?;
                Some(crate::fsio::is_shell_script(path, &head))
            })
            .unwrap_or(false),
    }
}

/// What a walk does with one entry that is not a folder: the path to send on, if it is taken. A
/// file an `exclude` leaves out that would be taken, a symlinked folder (never followed) and a
/// shell file outside skill folders are counted in `left_out` instead.
fn take(
    entry: &ignore::DirEntry,
    path: &Path,
    filters: &FilterSet,
    skills: &SkillFolders,
    left_out: &LeftOut,
) -> bool {
    if is_runtime_file(entry.file_name()) {
        return false;
    }
    let Some(f) = filters.for_path_or_note(path) else {
        return false;
    };
    let linked_folder = entry.path_is_symlink() && path.is_dir();
    let selected =
        || f.names.is_match(entry.file_name()) || (skills.holds(path) && is_shell_file(path));
    if let Some(exclude) = f.exclude.as_ref().filter(|e| e.matches(path, false)) {
        if linked_folder || selected() {
            left_out.excluded(exclude.source.as_deref(), path.to_path_buf());
        }
        return false;
    }
    if linked_folder {
        left_out.linked_folder(path.to_path_buf());
        return false;
    }
    if selected() {
        return true;
    }
    if path.extension().is_some_and(|e| e == "sh" || e == "bash") {
        left_out.shell_file();
    }
    false
}

fn walk(
    dir: &Path,
    no_ignore: bool,
    filters: Arc<FilterSet>,
    skills: Arc<SkillFolders>,
    left_out: &Arc<LeftOut>,
) -> Result<Vec<PathBuf>> {
    let (tx, rx) = std::sync::mpsc::channel();
    let (given, absolute) = (dir.to_path_buf(), canonical(dir));
    let budget = Arc::new(IgnoreBudget::new(dir));
    if !no_ignore {
        budget.admits_from(dir)?;
    }
    walker(
        dir,
        no_ignore,
        Some((filters.clone(), left_out.clone())),
        (!no_ignore).then(|| budget.clone()),
    )
    .build_parallel()
    .run(|| {
        let tx = tx.clone();
        let filters = filters.clone();
        let skills = skills.clone();
        let left_out = left_out.clone();
        let (given, absolute) = (given.clone(), absolute.clone());
        Box::new(move |entry| {
            match entry {
                Ok(entry) if entry.file_type().is_some_and(|t| !t.is_dir()) => {
                    let relative = entry.path().strip_prefix(&given).unwrap_or(entry.path());
                    let path = absolute.join(relative);
                    if take(&entry, &path, &filters, &skills, &left_out) {
                        let _ = tx.send(entry.into_path());
                    }
                }
                Ok(_) => {}
                // A folder or file the walk could not read is returned too: reading it then
                // fails with the reason, so it shows in the report and the exit status
                // instead of vanishing from the run.
                Err(error) => {
                    if let Some(path) = error_path(&error) {
                        let _ = tx.send(path);
                    }
                }
            }
            ignore::WalkState::Continue
        })
    });
    drop(tx);
    let found = rx.into_iter().collect();
    budget.result()?;
    match filters.take_error() {
        Some(error) => Err(error),
        None => Ok(found),
    }
}
