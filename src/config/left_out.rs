//! What folder walks met and did not take, and the notes a run ends with about it: shell files
//! outside skill folders, symlinked folders (never followed: a link may lead out of the project),
//! and paths an `exclude` (the flag, or a settings file's key) left out. A walk leaves nothing
//! out without saying so.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many paths a note names before "and N more".
const NAMED: usize = 5;

/// `EXCLUDED_BY_SETTINGS`: the `execute.sh` a settings file's `exclude` left out, which check and
/// migrate both refuse to leave unjudged (the settings came with the repository).
pub fn excluded_entry_point(settings: &Path, base: &Path) -> crate::error::Error {
    crate::error::Error::new(
        crate::codes::EXCLUDED_BY_SETTINGS,
        format!(
            "`exclude` in {} leaves out this execute.sh; settings from the repository cannot pass a skill's entry point: take it out of `exclude`, or pass --exclude",
            crate::bytes_text::quote_path(&crate::fsio::display_path(settings, base))
        ),
    )
}

/// What the walks of one run met and left out, filled as they go (from every walker thread).
#[derive(Debug, Default)]
pub struct LeftOut {
    /// `.sh`/`.bash` files outside skill folders, not `execute.sh`, no `--include` match.
    shell_files: AtomicUsize,
    /// Symlinked folders met (the links, absolute), which a walk never follows.
    linked_folders: Mutex<Vec<PathBuf>>,
    /// Paths an `exclude` left out (folders pruned, files a walk would have taken, files named),
    /// with the settings file whose key did it (`None`: the `--exclude` flag).
    excluded: Mutex<Vec<(Option<PathBuf>, PathBuf)>>,
    /// The folders walked (real paths): a link's target among them is checked there.
    walked: Mutex<Vec<PathBuf>>,
}

/// A note about what a run left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub text: String,
    /// Shown on stderr only with `-v` (nothing it names goes unchecked, or the user's own
    /// `--exclude` chose it); JSON, SARIF and GitHub carry every note.
    pub verbose_only: bool,
}

/// Where a symlinked folder leads, as far as the notes tell it apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Inside the project root, under a folder the run walks and not excluded: its scripts are
    /// checked there.
    Walked,
    /// Inside the project root, outside every folder the run walks (or excluded there).
    NotWalked,
    /// Outside the project root (or dangling): never read through the link.
    Outside,
}

fn locked<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl LeftOut {
    pub(crate) fn shell_file(&self) {
        self.shell_files.fetch_add(1, Ordering::Relaxed);
    }

    /// A shell file the walk left out was taken after all (a library a selected script sources).
    pub(crate) fn shell_file_taken(&self) {
        let _ = self
            .shell_files
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }

    pub(crate) fn linked_folder(&self, link: PathBuf) {
        locked(&self.linked_folders).push(link);
    }

    pub(crate) fn excluded(&self, source: Option<&Path>, path: PathBuf) {
        locked(&self.excluded).push((source.map(Path::to_path_buf), path));
    }

    /// The paths `exclude`s left out, each once, sorted by settings file (the flag's first).
    fn excluded_once(&self) -> Vec<(Option<PathBuf>, PathBuf)> {
        let mut excluded = locked(&self.excluded).clone();
        excluded.sort();
        excluded.dedup();
        excluded
    }

    /// How many paths an `exclude` left out.
    pub fn excluded_count(&self) -> usize {
        self.excluded_once().len()
    }

    /// How many paths each settings file's `exclude` left out, by file (sorted): a verdict
    /// reached without them says so.
    pub fn excluded_by_settings(&self) -> Vec<(PathBuf, usize)> {
        let excluded = self.excluded_once();
        excluded
            .chunk_by(|a, b| a.0 == b.0)
            .filter_map(|group| Some((group[0].0.clone()?, group.len())))
            .collect()
    }

    /// The files named `execute.sh` a settings file's `exclude` left out (named, or under a
    /// folder it pruned, walked with the ignore rules), each with that settings file.
    pub fn excluded_entry_points(&self) -> Vec<(PathBuf, PathBuf)> {
        let excluded = self.excluded_once();
        let mut found = Vec::new();
        for (settings, path) in excluded {
            let Some(settings) = settings else {
                continue;
            };
            let entry_point = |p: &Path| {
                p.file_name()
                    .is_some_and(|n| n == crate::domain::DEFAULT_NAME)
            };
            if !path.is_dir() {
                if entry_point(&path) && path.is_file() {
                    found.push((settings, path));
                }
                continue;
            }
            // Ignore files that cannot be read safely: the main walk reports them.
            let budget = super::discover::IgnoreBudget::new(&path);
            if budget.admits_from(&path).is_err() {
                continue;
            }
            let walk = ignore::WalkBuilder::new(&path)
                .hidden(false)
                .filter_entry(move |e| {
                    !matches!(e.file_name().to_str(), Some(".git" | ".skillmod"))
                        && (e.depth() == 0
                            || !e.file_type().is_some_and(|t| t.is_dir())
                            || budget.admits(e.path()))
                })
                .build();
            found.extend(
                walk.flatten()
                    .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
                    .filter(|e| entry_point(e.path()))
                    .map(|e| (settings.clone(), e.into_path())),
            );
        }
        found
    }

    pub(crate) fn walking(&self, dir: &Path) {
        locked(&self.walked).push(crate::fsio::canonical(dir));
    }

    /// The notes, paths shown relative to `base`. `named` are the paths the command names (a
    /// link's project root is found from them, as check finds a file's). With `include_given`
    /// the shell files left out are no news; `by_history` (`--staged`, `--changed-since`) keeps
    /// only the note on excluded paths: git records a symlinked folder as a link, which such a
    /// run judges as a staged or changed symlink.
    pub fn notes(
        &self,
        named: &[PathBuf],
        base: &Path,
        include_given: bool,
        by_history: bool,
    ) -> Vec<Note> {
        // Walks name paths by their real folder: shown relative to the real working folder.
        let base = &crate::fsio::canonical(base);
        let mut notes = Vec::new();
        let n = self.shell_files.load(Ordering::Relaxed);
        if n > 0 && !include_given && !by_history {
            notes.push(Note {
                text: format!(
                    "{n} shell file(s) (.sh/.bash) outside skill folders were not checked (neither execute.sh nor in a folder holding SKILL.md); --include '*.sh' takes them"
                ),
                verbose_only: false,
            });
        }
        if !by_history {
            notes.extend(self.link_notes(named, base));
        }
        notes.extend(self.exclude_notes(base));
        notes
    }

    /// One note per kind of symlinked folder met: walked at its target (with `-v`), inside the
    /// project but not walked, or outside it (both shown, since their scripts go unchecked).
    fn link_notes(&self, named: &[PathBuf], base: &Path) -> Vec<Note> {
        let mut links = locked(&self.linked_folders).clone();
        links.sort();
        links.dedup();
        let walked = locked(&self.walked).clone();
        let excluded: Vec<PathBuf> = locked(&self.excluded)
            .iter()
            .map(|(_, path)| path.clone())
            .collect();
        let reach = |link: &Path| -> (Reach, Option<PathBuf>) {
            let root = crate::fsio::canonical(&crate::fsio::file_root(link, named));
            match std::fs::canonicalize(link) {
                Ok(real) if crate::fsio::links::lies_inside(&real, &root) => {
                    let reach = if walked.iter().any(|dir| real.starts_with(dir))
                        && !excluded.iter().any(|path| real.starts_with(path))
                    {
                        Reach::Walked
                    } else {
                        Reach::NotWalked
                    };
                    (reach, Some(real))
                }
                Ok(real) => (Reach::Outside, Some(real)),
                Err(_) => (Reach::Outside, None),
            }
        };
        let mut groups: [(Reach, Vec<String>); 3] = [
            (Reach::Walked, Vec::new()),
            (Reach::NotWalked, Vec::new()),
            (Reach::Outside, Vec::new()),
        ];
        for link in &links {
            let (kind, target) = reach(link);
            let target = match (kind, target) {
                (Reach::Outside, Some(real)) => crate::bytes_text::quote_os(&real),
                (_, Some(real)) => shown(&real, base),
                (_, None) => "a path that does not exist".to_string(),
            };
            if let Some((_, names)) = groups.iter_mut().find(|(k, _)| *k == kind) {
                names.push(format!("{} -> {target}", shown(link, base)));
            }
        }
        groups
            .into_iter()
            .filter(|(_, names)| !names.is_empty())
            .map(|(kind, names)| {
                let one = names.len() == 1;
                let what = match (kind, one) {
                    (Reach::Walked, true) => {
                        "its target lies in the project and its scripts are checked there"
                    }
                    (Reach::Walked, false) => {
                        "their targets lie in the project and their scripts are checked there"
                    }
                    (Reach::NotWalked, true) => {
                        "its target lies in the project but outside the paths given, or is excluded; name the target to check it"
                    }
                    (Reach::NotWalked, false) => {
                        "their targets lie in the project but outside the paths given, or are excluded; name the targets to check them"
                    }
                    (Reach::Outside, true) => {
                        "it leads outside the project root, which skillmod never reads through a link; check the target in its own project"
                    }
                    (Reach::Outside, false) => {
                        "they lead outside the project root, which skillmod never reads through a link; check the targets in their own projects"
                    }
                };
                Note {
                    text: format!(
                        "{} {} not followed ({what}): {}",
                        count(names.len(), "symlinked folder", "symlinked folders"),
                        if one { "was" } else { "were" },
                        listed(&names)
                    ),
                    verbose_only: kind == Reach::Walked,
                }
            })
            .collect()
    }

    /// One note per `exclude` that left something out: the flag's, and each settings file's.
    fn exclude_notes(&self, base: &Path) -> Vec<Note> {
        let excluded = self.excluded_once();
        let mut notes = Vec::new();
        for group in excluded.chunk_by(|a, b| a.0 == b.0) {
            let source = match &group[0].0 {
                Some(file) => format!("`exclude` in {}", shown(file, base)),
                None => "--exclude".to_string(),
            };
            let names: Vec<String> = group
                .iter()
                .map(|(_, path)| {
                    let mut name = shown(path, base);
                    if path.is_dir() {
                        name.push('/');
                    }
                    name
                })
                .collect();
            notes.push(Note {
                text: format!(
                    "{source} left out {}: {}",
                    count(names.len(), "path", "paths"),
                    listed(&names)
                ),
                // A settings file comes with the repository: what it hides is said without -v.
                verbose_only: group[0].0.is_none(),
            });
        }
        notes
    }
}

/// A path relative to `base` as the text report shows it (quoted as git quotes it).
fn shown(path: &Path, base: &Path) -> String {
    crate::bytes_text::quote_path(&crate::fsio::display_path(path, base))
}

fn count(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The first names, then how many more.
fn listed(names: &[String]) -> String {
    let mut text = names
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > NAMED {
        text.push_str(&format!(" and {} more", names.len() - NAMED));
    }
    text
}
