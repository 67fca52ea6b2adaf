//! The project settings file, `skillmod.toml` (or `.skillmod.toml`): for each file the nearest one
//! above it inside its repository, or one named with `--config`; `--isolated` ignores them. Every
//! key is optional and every command-line flag wins over it. Unknown keys are errors, so a typo
//! never passes silently. A settings file is data a repository supplies, so it is read as such:
//! bounded, never blocking, and unable to point outside its repository.

pub mod discover;
pub mod edit;
pub mod left_out;
pub mod targets;

use crate::codes;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use serde::Deserialize;

use crate::analyze::Vocabulary;
use crate::domain::modes::Mode;
use crate::error::{Error, Result};
use crate::fsio::limited;

/// The file names looked for in each folder, in this order.
pub(crate) const FILE_NAMES: [&str; 2] = ["skillmod.toml", ".skillmod.toml"];

/// What a settings file may hold (kebab-case keys, all optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    /// File-name globs searched for besides execute.sh (`--include`).
    pub include: Option<Vec<String>>,
    /// Paths to leave out, gitignore syntax relative to the file's folder (`--exclude`).
    pub exclude: Option<Vec<String>>,
    /// Rules `check` reports (`--select`).
    pub select: Option<Vec<String>>,
    /// Rules `check` does not report (`--ignore`).
    pub ignore: Option<Vec<String>>,
    /// How `migrate` rewrites (`--mode`).
    pub mode: Option<Mode>,
    /// The JSON block template: a built-in name or a path relative to the file (`--template`).
    pub template: Option<String>,
    /// Confidence when no `Confidence:` line gives one (`--default-confidence`).
    pub default_confidence: Option<f64>,
    /// Which printed lines are legacy lines (`--vocabulary`).
    pub vocabulary: Option<Vocabulary>,
    /// Capture mode leaves the skill's other output on stdout, before the document
    /// (`--keep-stdout`).
    pub keep_stdout: Option<bool>,
    /// Where capture mode's runtime goes (`--runtime`): `file` or `inline`.
    pub runtime: Option<crate::domain::modes::Placement>,
}

/// Settings files larger than this are refused (a real one is a few hundred bytes).
pub(crate) const SIZE_LIMIT: u64 = 64 * 1024;

/// The settings in force for some files and where they came from.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub settings: Settings,
    /// The file read, if any (absolute).
    pub path: Option<PathBuf>,
    /// The folder a path in the file may point into: its repository's root, or outside a
    /// repository the folder named on the command line. `None` for `--config` (the user named
    /// the file, so its paths are the user's).
    pub root: Option<PathBuf>,
}

impl Config {
    /// The folder relative paths in the file are resolved against.
    pub fn dir(&self) -> Option<&Path> {
        self.path.as_deref().and_then(Path::parent)
    }

    /// The settings file's path as reports take it, marked text (`None` without one).
    pub fn shown(&self) -> Option<String> {
        self.path
            .as_ref()
            .map(|p| crate::bytes_text::os_marked(p.as_os_str()))
    }

    /// Read a settings file: a regular file under the size limit, never blocking. `root`
    /// confines a symlinked file to the repository it was found in.
    pub fn read(path: &Path, root: Option<&Path>) -> Result<Config> {
        let path = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let is_link = std::fs::symlink_metadata(&path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        if let (true, Some(root)) = (is_link, root) {
            let target = std::fs::canonicalize(&path).ok();
            let root = crate::fsio::canonical(root);
            if !target.is_some_and(|t| t.starts_with(&root)) {
                return Err(Error::new(
                    codes::CONFIG_UNSAFE,
                    format!(
                        "{} is a symlink to a file outside {}; a settings file found in a repository must lie inside it. Remove the link, or run with --isolated",
                        path.display(),
                        root.display()
                    ),
                ));
            }
        }
        let bytes = limited::read(&path, SIZE_LIMIT, true).map_err(|refused| {
            let code = match refused {
                limited::Refused::Io(_) => codes::CONFIG_UNREADABLE,
                _ => codes::CONFIG_UNSAFE,
            };
            Error::new(
                code,
                format!(
                    "settings file {} {}; fix or remove it, or run with --isolated",
                    path.display(),
                    refused.describe(SIZE_LIMIT)
                ),
            )
        })?;
        Config::parse_bytes(path, bytes, root)
    }

    /// A settings file's bytes, read from `path` (on disk or, under `check --staged`, in git's
    /// index), as settings.
    fn parse_bytes(path: PathBuf, bytes: Vec<u8>, root: Option<&Path>) -> Result<Config> {
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::new(
                codes::CONFIG_INVALID,
                format!(
                    "{}: not UTF-8 (byte {}); fix the file, or run with --isolated to ignore it",
                    path.display(),
                    e.utf8_error().valid_up_to()
                ),
            )
        })?;
        let settings = parse(&text).map_err(|message| {
            Error::new(
                codes::CONFIG_INVALID,
                format!(
                    "{}: {message}; fix the file, or run with --isolated to ignore it",
                    path.display()
                ),
            )
        })?;
        Ok(Config {
            settings,
            path: Some(path),
            root: root.map(Path::to_path_buf),
        })
    }

    /// The template to use: `--template` as given, else the file's. A file's template is a
    /// built-in name or a relative path that stays inside its root (no absolute path, no `..`,
    /// no symlink out), so a committed settings file cannot copy a secret into every script.
    pub fn template(&self, flag: Option<&str>) -> Result<(String, Option<PathBuf>)> {
        if let Some(flag) = flag {
            return Ok((flag.to_string(), None));
        }
        let Some(spec) = &self.settings.template else {
            return Ok((crate::rewrite::template::DEFAULT.to_string(), None));
        };
        if crate::rewrite::template::is_builtin(spec) {
            return Ok((spec.clone(), None));
        }
        let shown = self.path.as_deref().map(crate::bytes_text::shown_path);
        let (Some(dir), shown) = (self.dir(), shown.unwrap_or_default()) else {
            return Ok((spec.clone(), None));
        };
        let Some(root) = &self.root else {
            return Ok((spec.clone(), Some(dir.join(spec))));
        };
        let relative = Path::new(spec);
        let plain = relative
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
        let unsafe_template = |why: &str| {
            Error::new(
                codes::TEMPLATE_UNSAFE,
                format!(
                    "{shown}: template = '{}' {why}; a settings file names a built-in template or a file inside its repository",
                    spec.escape_default()
                ),
            )
        };
        if !plain {
            return Err(unsafe_template("is not a relative path without `..`"));
        }
        let path = dir.join(relative);
        if let Ok(target) = std::fs::canonicalize(&path) {
            let root = crate::fsio::canonical(root);
            let Ok(inside) = target.strip_prefix(&root) else {
                return Err(unsafe_template("resolves outside the repository"));
            };
            // git's and skillmod's own state is not the repository's content.
            if inside
                .components()
                .any(|c| c.as_os_str() == ".git" || c.as_os_str() == crate::fsio::STATE_DIR)
            {
                return Err(unsafe_template("lies in .git or .skillmod"));
            }
        }
        Ok((spec.clone(), Some(path)))
    }
}

/// Where the settings of each file come from, as ruff finds them: `--config` for every file,
/// none with `--isolated`, else the nearest settings file in the file's folder or above, never
/// above its repository root (outside a repository, never above the path named on the command
/// line). The working folder plays no part, so a file gets the same settings from anywhere.
#[derive(Debug)]
pub struct Resolver {
    /// `--config` or `--isolated`: one answer for every file.
    fixed: Option<Arc<Config>>,
    /// Absolute folders named on the command line outside any repository: the search stops there.
    stops: Vec<PathBuf>,
    /// Folder -> the settings in force there, each folder looked at once.
    /// Keyed by the path's bytes: hashing a `PathBuf` walks its components, which cost more
    /// than the lookup saved.
    by_dir: RwLock<HashMap<OsString, Arc<Config>>>,
    /// The working folder, read once: relative paths are made absolute against it (asking the
    /// system for it per file was a third of a warm check's system calls).
    cwd: PathBuf,
    /// Under `check --staged`, the settings files git's index holds inside its work tree (the
    /// staged bytes; `None` for an entry that is no regular file), read instead of the work
    /// tree's: the commit is judged by the settings it carries.
    staged: Option<StagedSettings>,
}

/// The settings files a work tree's index holds: its root, and each file's staged bytes by
/// absolute path (`None` for an entry that is no regular file).
#[derive(Debug)]
struct StagedSettings {
    root: PathBuf,
    files: HashMap<PathBuf, Option<Vec<u8>>>,
}

impl Resolver {
    /// `new`, shared by the workers; with no path named, the working folder is the one named.
    /// With `index`, the settings files of that work tree are read from git's index (see
    /// `from_index`).
    pub fn shared(
        explicit: Option<&Path>,
        isolated: bool,
        named: &[PathBuf],
        index: Option<&crate::vcs::Repo>,
    ) -> Result<Arc<Resolver>> {
        let named = match named {
            [] => vec![crate::fsio::working_dir()?],
            named => named.to_vec(),
        };
        let resolver = Resolver::new(explicit, isolated, &named)?;
        Ok(Arc::new(match index {
            Some(repo) => resolver.from_index(repo)?,
            None => resolver,
        }))
    }

    /// `named` are the paths given on the command line (folders, or files whose folder counts).
    pub fn new(explicit: Option<&Path>, isolated: bool, named: &[PathBuf]) -> Result<Resolver> {
        let fixed = match explicit {
            Some(path) => {
                if std::fs::symlink_metadata(path).is_err() {
                    return Err(Error::new(
                        codes::CONFIG_NOT_FOUND,
                        format!(
                            "--config {}: no such file; pass the path of a skillmod.toml",
                            path.display()
                        ),
                    ));
                }
                Some(Arc::new(Config::read(path, None)?))
            }
            None if isolated => Some(Arc::new(Config::default())),
            None => None,
        };
        // Both spellings of each folder (as given and with symlinks resolved), since files are
        // looked up by the path they were found under.
        let stops = named
            .iter()
            .filter_map(|p| {
                let absolute = std::path::absolute(p).ok()?;
                let folder = if absolute.is_dir() {
                    absolute
                } else {
                    absolute.parent()?.to_path_buf()
                };
                let canonical = crate::fsio::canonical(&folder);
                repository_of(&canonical)
                    .is_none()
                    .then_some([folder, canonical])
            })
            .flatten()
            .collect();
        Ok(Resolver {
            fixed,
            stops,
            by_dir: RwLock::new(HashMap::new()),
            cwd: std::env::current_dir().unwrap_or_default(),
            staged: None,
        })
    }

    /// Read the settings files of `repo`'s work tree from its index (`check --staged`).
    pub fn from_index(mut self, repo: &crate::vcs::Repo) -> Result<Resolver> {
        let modes = repo.index_modes()?;
        let named = |path: &&PathBuf| {
            path.file_name()
                .is_some_and(|name| FILE_NAMES.iter().any(|n| name == *n))
        };
        let settings: Vec<PathBuf> = modes.keys().filter(named).cloned().collect();
        let regular: Vec<PathBuf> = settings
            .iter()
            .filter(|p| modes.get(*p).is_some_and(|m| m.starts_with("100")))
            .cloned()
            .collect();
        let mut contents = repo.index_contents(&regular)?;
        let staged = settings
            .into_iter()
            .map(|path| {
                let bytes = contents.remove(&path);
                (path, bytes)
            })
            .collect();
        self.staged = Some(StagedSettings {
            root: repo.root.clone(),
            files: staged,
        });
        Ok(self)
    }

    /// The settings file in `dir` as git's index holds it, under `--staged` for a folder of the
    /// work tree: `Some(None)` when the index holds none there.
    fn staged_in(&self, dir: &Path) -> Option<Result<Option<Config>>> {
        let StagedSettings { root, files } = self.staged.as_ref()?;
        let dir = crate::fsio::canonical(dir);
        if !dir.starts_with(root) {
            return None;
        }
        let found = FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find_map(|path| files.get(&path).map(|bytes| (path, bytes.clone())));
        Some(match found {
            None => Ok(None),
            Some((path, Some(bytes))) => Config::parse_bytes(path, bytes, Some(root)).map(Some),
            Some((path, None)) => Err(Error::new(
                codes::CONFIG_UNSAFE,
                format!(
                    "{} is staged as a symlink (or another entry that is no regular file); --staged reads settings as the commit holds them: stage a regular file, or run with --isolated",
                    path.display()
                ),
            )),
        })
    }

    /// The settings for a file (or folder) at `path`: those of its folder.
    pub fn for_path(&self, path: &Path) -> Result<Arc<Config>> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let absolute = self.absolute(path);
        match absolute.parent() {
            Some(folder) => self.for_dir(folder),
            None => Ok(Arc::new(Config::default())),
        }
    }

    /// `path` made absolute against the working folder, without `.` components (as
    /// `std::path::absolute`, but without asking the system for the working folder each time).
    fn absolute(&self, path: &Path) -> PathBuf {
        use std::os::unix::ffi::OsStrExt;
        if path.is_absolute() {
            return path.to_path_buf();
        }
        let mut bytes = path.as_os_str().as_bytes();
        while let Some(rest) = bytes.strip_prefix(b"./") {
            bytes = rest;
        }
        let plain = bytes != b"."
            && memchr::memmem::find(bytes, b"/./").is_none()
            && !bytes.ends_with(b"/.");
        if plain {
            return self.cwd.join(std::ffi::OsStr::from_bytes(bytes));
        }
        self.cwd
            .join(path)
            .components()
            .filter(|c| !matches!(c, Component::CurDir))
            .collect()
    }

    /// The settings in force in `dir`.
    pub fn for_dir(&self, dir: &Path) -> Result<Arc<Config>> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let known = self
            .by_dir
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(dir.as_os_str())
            .cloned();
        if let Some(known) = known {
            return Ok(known);
        }
        let found = match self.staged_in(dir) {
            Some(staged) => staged?.map(Ok),
            None => FILE_NAMES
                .iter()
                .map(|name| dir.join(name))
                .find(|candidate| std::fs::symlink_metadata(candidate).is_ok())
                .map(|path| Config::read(&path, Some(&self.root_of(dir)))),
        };
        let config = match found {
            Some(config) => Arc::new(config?),
            None if self.is_stop(dir) => Arc::new(Config::default()),
            None => match dir.parent() {
                Some(parent) => self.for_dir(parent)?,
                None => Arc::new(Config::default()),
            },
        };
        self.by_dir
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(dir.as_os_str().to_os_string(), config.clone());
        Ok(config)
    }

    /// The folder where a settings file would govern the file at `path` when none does yet: the
    /// repository root, or outside git the folder named on the command line that holds it. None
    /// with `--config` or `--isolated`, where no file is looked for.
    pub fn home_of(&self, path: &Path) -> Option<PathBuf> {
        if self.fixed.is_some() {
            return None;
        }
        let absolute = self.absolute(path);
        let folder = absolute.parent()?;
        Some(self.root_of(folder))
    }

    /// Whether `--isolated` (no settings file is read) is in force.
    pub fn isolated(&self) -> bool {
        self.fixed.as_ref().is_some_and(|f| f.path.is_none())
    }

    /// A folder the search never goes above: a repository root or a named folder outside git.
    fn is_stop(&self, dir: &Path) -> bool {
        dir.join(".git").exists() || self.stops.iter().any(|s| s == dir)
    }

    /// The root a settings file found in `dir` is confined to.
    fn root_of(&self, dir: &Path) -> PathBuf {
        dir.ancestors()
            .find(|d| self.is_stop(d))
            .unwrap_or(dir)
            .to_path_buf()
    }
}

/// How a command builds its value from one settings file.
type Build<T> = dyn Fn(&Config) -> Result<T> + Send + Sync;

/// What a command builds from each settings file in use (a rule selection, a template), built
/// once per settings file and looked up by a file's folder.
pub struct PerSettings<T> {
    resolver: Arc<Resolver>,
    build: Box<Build<T>>,
    built: RwLock<HashMap<Option<PathBuf>, Arc<T>>>,
    /// When every prepared file has the same settings (the usual case: none, or one file at
    /// the root), that answer, so the run's files need no lookup at all.
    single: std::sync::OnceLock<(Arc<T>, Option<String>)>,
}

impl<T> PerSettings<T> {
    pub fn new(
        resolver: Arc<Resolver>,
        build: impl Fn(&Config) -> Result<T> + Send + Sync + 'static,
    ) -> PerSettings<T> {
        PerSettings {
            resolver,
            build: Box::new(build),
            built: RwLock::new(HashMap::new()),
            single: std::sync::OnceLock::new(),
        }
    }

    /// What applies to a file `prepare` was given.
    pub fn get_prepared(&self, path: &Path) -> Result<Arc<T>> {
        match self.single.get() {
            Some((single, _)) => Ok(single.clone()),
            None => self.get(path),
        }
    }

    /// The settings (and the file they come from) that apply to the file at `path`.
    pub fn config_of(&self, path: &Path) -> Result<Arc<Config>> {
        self.resolver.for_path(path)
    }

    /// Where the settings come from: `--config`, `--isolated`, or each file's nearest one.
    pub fn resolver(&self) -> &Resolver {
        &self.resolver
    }

    /// What applies to the file at `path`.
    pub fn get(&self, path: &Path) -> Result<Arc<T>> {
        let config = self.resolver.for_path(path)?;
        self.build_for(&config)
    }

    fn build_for(&self, config: &Config) -> Result<Arc<T>> {
        let known = self
            .built
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&config.path)
            .cloned();
        if let Some(known) = known {
            return Ok(known);
        }
        let mut built = self
            .built
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let value = Arc::new((self.build)(config).map_err(|e| match &config.path {
            Some(file) => Error {
                message: format!("{}: {}", file.display(), e.message),
                ..e
            },
            None => e,
        })?);
        built.insert(config.path.clone(), value.clone());
        Ok(value)
    }

    /// Every value built so far, with the settings file it was built from (`None`: none
    /// applies): after `prepare`, one per settings file governing the files.
    pub fn built(&self) -> Vec<(Option<PathBuf>, Arc<T>)> {
        self.built
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .map(|(path, value)| (path.clone(), value.clone()))
            .collect()
    }

    /// Build for every file up front, so a bad settings file stops the run before any work.
    /// Returns each settings file in use with the number of files it governs.
    pub fn prepare(&self, files: &[PathBuf]) -> Result<Vec<(PathBuf, usize)>> {
        let mut used: HashMap<PathBuf, usize> = HashMap::new();
        let mut answers: Vec<(Arc<T>, Option<String>)> = Vec::new();
        for file in files {
            let config = self.resolver.for_path(file)?;
            let answer = self.build_for(&config)?;
            if answers.len() < 2 && !answers.iter().any(|a| Arc::ptr_eq(&a.0, &answer)) {
                answers.push((answer, config.shown()));
            }
            if let Some(path) = &config.path {
                *used.entry(path.clone()).or_default() += 1;
            }
        }
        if let [single] = answers.as_slice() {
            let _ = self.single.set(single.clone());
        }
        let mut used: Vec<(PathBuf, usize)> = used.into_iter().collect();
        used.sort();
        Ok(used)
    }

    /// The settings file that applies to a prepared file, as reports show it.
    pub fn source_of(&self, path: &Path) -> Option<String> {
        match self.single.get() {
            Some((_, shown)) => shown.clone(),
            None => self.resolver.for_path(path).ok().and_then(|c| c.shown()),
        }
    }
}

impl<T> std::fmt::Debug for PerSettings<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PerSettings").finish_non_exhaustive()
    }
}

/// The nearest folder at or above `dir` holding `.git`.
fn repository_of(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|d| d.join(".git").exists())
}

/// The settings that apply to the scripts under one settings file: the flag, else the file's
/// setting, else the default. Every command reads its settings from this one type.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub selection: crate::domain::rules::Selection,
    pub mode: Mode,
    pub default_confidence: f64,
    pub vocabulary: Vocabulary,
    pub keep_stdout: bool,
    pub runtime: crate::domain::modes::Placement,
}

impl Settings {
    /// What the command line says, as a `Settings` value: `None` where no flag was given. Each
    /// command fills the fields it has flags for; a list flag replaces the file's list (ruff's
    /// habit), and a default confidence outside 0..1 is refused before any work, as the file's is.
    pub fn from_flags(flags: Settings) -> Result<Settings> {
        match flags.default_confidence {
            Some(x) if !(0.0..=1.0).contains(&x) => Err(Error::new(
                codes::INVALID_ARGUMENT,
                format!("--default-confidence {x} is not between 0 and 1"),
            )),
            _ => Ok(flags),
        }
    }

    /// These settings (the flags) over `config`'s file, over the defaults. The template is
    /// resolved apart (`Config::template`): only migrate reads it, and only migrate refuses an
    /// unsafe one.
    pub fn resolve(&self, config: &Config) -> Resolved {
        let file = &config.settings;
        let list = |flag: &Option<Vec<String>>, file: &Option<Vec<String>>| {
            flag.clone().or_else(|| file.clone()).unwrap_or_default()
        };
        Resolved {
            selection: crate::domain::rules::Selection {
                select: list(&self.select, &file.select),
                ignore: list(&self.ignore, &file.ignore),
            },
            mode: self.mode.or(file.mode).unwrap_or_default(),
            default_confidence: self
                .default_confidence
                .or(file.default_confidence)
                .unwrap_or(crate::contract::legacy_text::DEFAULT_CONFIDENCE),
            vocabulary: self.vocabulary.or(file.vocabulary).unwrap_or_default(),
            keep_stdout: self.keep_stdout.or(file.keep_stdout).unwrap_or(false),
            runtime: self.runtime.or(file.runtime).unwrap_or_default(),
        }
    }
}

/// A list flag as a setting: `None` when the flag was not given.
pub(crate) fn list_flag(flag: &[String]) -> Option<Vec<String>> {
    (!flag.is_empty()).then(|| flag.to_vec())
}

/// Parse and check a settings file's text. The error names the line, the column and the key,
/// never quotes the file's text back (toml's own message shows the line).
pub fn parse(text: &str) -> std::result::Result<Settings, String> {
    let settings: Settings = toml::from_str(text).map_err(|e| {
        let message = e.message().trim().replace('\n', " ");
        match e.span() {
            Some(span) => {
                let before = &text.as_bytes()[..span.start.min(text.len())];
                let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
                let column = before.len()
                    - before
                        .iter()
                        .rposition(|&b| b == b'\n')
                        .map_or(0, |i| i + 1)
                    + 1;
                format!("line {line}, column {column}: {message}")
            }
            None => message,
        }
    })?;
    if let Some(x) = settings.default_confidence
        && !(0.0..=1.0).contains(&x)
    {
        return Err(format!("default-confidence = {x} is not between 0 and 1"));
    }
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses() {
        let settings = parse(
            "include = ['*.sh']\nexclude = ['vendor/']\nselect = ['SKM001']\nignore = ['SKM002']\n\
             mode = 'comment'\ntemplate = 'minimal'\ndefault-confidence = 0.9\nvocabulary = 'original'\n",
        )
        .expect("valid settings");
        assert_eq!(settings.include, Some(vec!["*.sh".to_string()]));
        assert_eq!(settings.mode, Some(Mode::Comment));
        assert_eq!(settings.vocabulary, Some(Vocabulary::Original));
        assert_eq!(settings.default_confidence, Some(0.9));
    }

    #[test]
    fn a_typo_is_an_error_that_names_the_key() {
        let error = parse("selcet = ['SKM001']\n").expect_err("unknown key");
        assert!(error.contains("selcet"), "{error}");
    }

    #[test]
    fn confidence_out_of_range_is_refused() {
        assert!(parse("default-confidence = 3\n").is_err());
    }

    #[test]
    fn the_nearest_file_wins_and_the_search_stops_at_the_repository_root() {
        let dir = tempfile::tempdir().expect("temp dir");
        let repo = dir.path().join("repo");
        let inner = repo.join("a/b");
        std::fs::create_dir_all(&inner).expect("folders");
        std::fs::create_dir_all(repo.join(".git")).expect("git");
        std::fs::write(dir.path().join("skillmod.toml"), "mode = 'comment'\n").expect("outside");
        std::fs::write(repo.join("a/.skillmod.toml"), "").expect("inner");
        let resolver = Resolver::new(None, false, &[]).expect("resolver");
        let found = resolver.for_dir(&inner).expect("settings");
        assert_eq!(
            found.path.as_deref(),
            Some(repo.join("a/.skillmod.toml").as_path())
        );
        let at_root = resolver.for_dir(&repo).expect("settings");
        assert_eq!(
            at_root.path, None,
            "the file above the repository is never read"
        );
    }

    #[test]
    fn outside_a_repository_the_search_stops_at_the_named_folder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let named = dir.path().join("skills");
        std::fs::create_dir_all(named.join("x")).expect("folders");
        std::fs::write(dir.path().join("skillmod.toml"), "").expect("above");
        let resolver = Resolver::new(None, false, std::slice::from_ref(&named)).expect("resolver");
        assert_eq!(
            resolver.for_dir(&named.join("x")).expect("settings").path,
            None
        );
    }

    #[test]
    fn parse_errors_give_line_and_column_without_quoting_the_file() {
        let error = parse("mode = 'comment'\nsecret = 'hunter2'\n").expect_err("unknown key");
        assert!(error.starts_with("line 2, column 1:"), "{error}");
        assert!(!error.contains("hunter2"), "{error}");
    }
}
