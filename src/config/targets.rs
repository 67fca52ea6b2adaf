//! The files a command works on, as the command line names them: paths, folders to search,
//! include/exclude rules (or each folder's settings file), and git's changed or staged lists.

use crate::codes;
use std::path::PathBuf;
use std::sync::Arc;

use super::discover::Selection;
use crate::config::Resolver;
use crate::error::{Error, Result};

/// What the path flags say: which scripts to work on. The flags of every command that takes
/// paths, defined here with the engine that reads them (clap derive, as `migrate::Mode` is).
#[derive(Debug, Clone, clap::Args, Default)]
pub struct Targets {
    /// Files or folders; folders are searched for execute.sh, every shell script inside a skill
    /// folder (one holding SKILL.md), and --include matches.
    pub paths: Vec<PathBuf>,
    /// Folder to search for skills (repeatable).
    #[arg(long = "skill-dir", value_name = "DIR")]
    pub skill_dirs: Vec<PathBuf>,
    /// One script, whatever its name; without a shebang it is still taken as a script, not a
    /// library (repeatable).
    #[arg(long = "skill-path", value_name = "FILE")]
    pub skill_paths: Vec<PathBuf>,
    /// Also take files whose name matches GLOB when searching folders, e.g. '*.sh' (repeatable;
    /// replaces the settings file's `include`).
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
    /// Leave out paths matching GLOB, gitignore syntax relative to the working folder, e.g.
    /// 'vendor/' (repeatable; replaces the settings file's `exclude`).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Do not apply .gitignore/.ignore rules (they also filter files named explicitly).
    #[arg(long)]
    pub no_ignore: bool,
    /// Take a file named on the command line only when a folder walk would select it
    /// (execute.sh, a shell script inside a skill folder, an --include match): what the
    /// pre-commit hooks pass, since pre-commit names every shell file.
    #[arg(long)]
    pub force_select: bool,
    /// Only files that differ between REV and the work tree (git).
    #[arg(long, value_name = "REV")]
    pub changed_since: Option<String>,
    /// Only files with staged changes (git).
    #[arg(long)]
    pub staged: bool,
    /// What the folder walks met and did not select, for the notes the run ends with.
    #[arg(skip)]
    left_out: Arc<super::left_out::LeftOut>,
    /// The files `--changed-since` and `--staged` name, asked of git once per run.
    #[arg(skip)]
    history: std::sync::OnceLock<std::collections::HashSet<PathBuf>>,
}

impl Targets {
    /// `check -`: the path the script read from stdin is reported under (`--stdin-filename`, or
    /// `-`, in the working folder); None when the paths are not just `-`. With `--force-select`
    /// (hooks pass the files they stage) `-` is a file named `-`, never stdin.
    /// `dash_is_a_file`: the `-` came after `--`, where it names a file (as it does beside other
    /// paths and in migrate).
    pub fn stdin_path(&self, name: Option<&str>, dash_is_a_file: bool) -> Result<Option<PathBuf>> {
        let from_stdin = !self.force_select
            && !dash_is_a_file
            && self.paths.len() == 1
            && self.paths[0].as_os_str() == "-";
        if name.is_some() && !from_stdin {
            return Err(Error::new(
                codes::INVALID_ARGUMENT,
                "--stdin-filename names the script read with `check -`; pass `-` as the only path, or drop the flag",
            ));
        }
        let base = crate::fsio::working_dir()?;
        Ok(from_stdin.then(|| base.join(name.unwrap_or("-"))))
    }

    /// The folder a path lies in, as the one folder whose settings apply.
    pub fn folder_of(path: &std::path::Path) -> Vec<PathBuf> {
        path.parent().map(PathBuf::from).into_iter().collect()
    }

    /// The script read from stdin, unless its name (`named`) is excluded, as a named file is.
    pub fn stdin_files(
        &self,
        path: &std::path::Path,
        named: bool,
        resolver: &Arc<Resolver>,
    ) -> Result<Vec<PathBuf>> {
        if named && super::discover::is_excluded(&self.filters(resolver)?, path)? {
            return Ok(Vec::new());
        }
        Ok(vec![path.to_path_buf()])
    }

    /// What to look at: these flags, and each folder's settings file for include/exclude where
    /// no flag gives them.
    pub fn selection(&self, resolver: &Arc<Resolver>) -> Result<Selection> {
        let mut selection = self.filters(resolver)?;
        selection.dirs = self.skill_dirs.clone();
        selection.files = self.skill_paths.clone();
        selection.add_positional(&self.paths)?;
        Ok(selection)
    }

    /// `paths` less those `--exclude` or a settings file's `exclude` leaves out.
    pub fn not_excluded(
        &self,
        paths: Vec<PathBuf>,
        resolver: &Arc<Resolver>,
    ) -> Result<Vec<PathBuf>> {
        if paths.is_empty() {
            return Ok(paths);
        }
        super::discover::not_excluded(&self.filters(resolver)?, paths)
    }

    /// The files to work on (`files`) and the libraries they source that the walk did not select
    /// (`unit::sourcing::unselected_libraries`), unless excluded: in a run narrowed by history
    /// too, since a changed script's new `source` line changes what it prints. `libraries` is
    /// given the files and the named paths (the working folder when none is).
    pub fn with_libraries(
        &self,
        mut files: Vec<PathBuf>,
        libraries: impl FnOnce(&[PathBuf], &[PathBuf]) -> Vec<PathBuf>,
        resolver: &Arc<Resolver>,
    ) -> Result<Vec<PathBuf>> {
        let named = match self.named() {
            named if named.is_empty() => vec![crate::fsio::working_dir()?],
            named => named,
        };
        let found = self.not_excluded(libraries(&files, &named), resolver)?;
        for library in &found {
            if library
                .extension()
                .is_some_and(|e| e == "sh" || e == "bash")
            {
                self.left_out.shell_file_taken();
            }
        }
        files.extend(found);
        files.sort();
        Ok(files)
    }

    /// In a run narrowed to some files (`--staged`, `--changed-since`, the hooks'
    /// `--force-select` list): each script of the project that sources one of the changed or
    /// named files, and that file, since a change to a library alone changes what those scripts
    /// print. `sources_of` gives the paths a script sources, from its
    /// folder. Inside a git work tree only: that is the project searched.
    pub fn with_sourcers(
        &self,
        mut files: Vec<PathBuf>,
        sources_of: &(dyn Fn(&std::path::Path) -> Vec<PathBuf> + Sync),
        resolver: &Arc<Resolver>,
    ) -> Result<Vec<PathBuf>> {
        use crate::fsio::canonical;
        let by_history = self.staged || self.changed_since.is_some();
        if !by_history && !self.force_select {
            return Ok(files);
        }
        let Some(repo) = crate::vcs::Repo::discover(&crate::fsio::working_dir()?) else {
            return Ok(files);
        };
        let changed: Vec<PathBuf> = if by_history {
            self.history_paths(&repo)?.iter().cloned().collect()
        } else {
            self.paths.clone()
        };
        let taken: std::collections::HashSet<PathBuf> =
            files.iter().map(|f| canonical(f)).collect();
        // A link is a changed library at its target (a link retargeted changes what is sourced);
        // a link to a folder changes every library under it.
        let others: std::collections::HashSet<PathBuf> = changed
            .iter()
            .filter(|f| std::fs::metadata(f).is_ok_and(|m| m.is_file()))
            .map(|f| canonical(f))
            .collect();
        let linked_folders: Vec<PathBuf> = changed
            .iter()
            .filter(|f| std::fs::symlink_metadata(f).is_ok_and(|m| m.is_symlink()) && f.is_dir())
            .map(|f| canonical(f))
            .collect();
        // Selected or not: a changed library in a skill folder is selected itself, and its
        // helpers still print in the scripts that call them.
        // A runtime file changed or deleted: the scripts under its folder load it (through a
        // computed path no source scan reads), and check judges their runtime.
        let runtime_dirs: Vec<PathBuf> = changed
            .iter()
            .filter(|f| super::discover::is_runtime_file(f.file_name().unwrap_or_default()))
            .filter_map(|f| f.parent().map(crate::fsio::canonical))
            .collect();
        if others.is_empty() && runtime_dirs.is_empty() && linked_folders.is_empty() {
            return Ok(files);
        }
        let mut selection = self.filters(resolver)?;
        selection.force_select = false;
        selection.dirs = vec![repo.root.clone()];
        let scripts = super::discover::discover(&selection)?;
        let sourced = libraries_changed_below(&scripts, sources_of, &|target| {
            others.contains(target) || linked_folders.iter().any(|d| target.starts_with(d))
        });
        let mut added = taken;
        for (script, libraries) in scripts.into_iter().zip(sourced) {
            let loads_runtime = || {
                let real = canonical(&script);
                runtime_dirs.iter().any(|dir| real.starts_with(dir))
            };
            if libraries.is_empty() && !loads_runtime() {
                continue;
            }
            if added.insert(canonical(&script)) {
                files.push(script);
            }
            for library in libraries {
                if added.insert(library.clone()) {
                    files.push(library);
                }
            }
        }
        files.sort();
        Ok(files)
    }

    /// The files that differ from `--changed-since`'s revision or are staged (`--staged`).
    fn history_paths(
        &self,
        repo: &crate::vcs::Repo,
    ) -> Result<&std::collections::HashSet<PathBuf>> {
        if let Some(paths) = self.history.get() {
            return Ok(paths);
        }
        let mut wanted = std::collections::HashSet::new();
        if let Some(rev) = &self.changed_since {
            wanted.extend(repo.changed_since(rev)?);
        }
        if self.staged {
            wanted.extend(repo.staged()?);
        }
        // A SKILL.md added or changed makes its folder's scripts skill scripts: they are judged
        // with it (a commit of SKILL.md alone turned a committed legacy script into one).
        let skill_folders: Vec<PathBuf> = wanted
            .iter()
            .filter(|p| p.file_name().is_some_and(|n| n == crate::fsio::SKILL_FILE))
            .filter_map(|p| p.parent().map(std::path::Path::to_path_buf))
            .collect();
        for folder in skill_folders {
            wanted.extend(repo.tracked_under(&folder)?);
        }
        Ok(self.history.get_or_init(|| wanted))
    }

    /// The include/exclude rules alone, without any path (for `check -`'s `--stdin-filename`).
    pub fn filters(&self, resolver: &Arc<Resolver>) -> Result<Selection> {
        let exclude = (!self.exclude.is_empty())
            .then(|| Ok((crate::fsio::working_dir()?, self.exclude.clone())));
        Ok(Selection {
            include: self.include.clone(),
            exclude: exclude.transpose()?,
            no_ignore: self.no_ignore,
            force_select: self.force_select,
            settings: Some(resolver.clone()),
            ..Selection::default()
        })
    }

    /// Every path named on the command line.
    pub fn named(&self) -> Vec<PathBuf> {
        self.paths
            .iter()
            .chain(&self.skill_dirs)
            .chain(&self.skill_paths)
            .cloned()
            .collect()
    }

    /// The files named on the command line as files (positional paths that are not folders,
    /// `--skill-path`), as discovery returns them. A file among them that cannot be judged is an
    /// error; with `--force-select` too, for a file it picks (the pre-commit hooks name every
    /// staged file: a script padded past `--max-size` must not pass the commit).
    pub fn explicit_files(&self) -> std::collections::HashSet<PathBuf> {
        self.paths
            .iter()
            .filter(|p| !std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir()))
            .chain(&self.skill_paths)
            .cloned()
            .collect()
    }

    /// The files named with `--skill-path` (canonical paths): scripts on purpose, whatever their
    /// name and with or without a shebang; none with `--force-select`. A positional file or an
    /// `--include` match is no such statement: `skillmod migrate lib.sh` and `--include '*.sh'`
    /// name libraries too.
    pub fn named_scripts(&self) -> std::collections::HashSet<PathBuf> {
        if self.force_select {
            return Default::default();
        }
        self.skill_paths
            .iter()
            .map(|p| crate::fsio::canonical(p))
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.paths.is_empty() && self.skill_dirs.is_empty() && self.skill_paths.is_empty()
    }

    /// When a run looked at no script: why, and what to try. A warning on stderr; an error
    /// (`NOTHING_CHECKED`, exit 2) when paths were named, since the user expected a check.
    pub fn nothing_checked(&self, found: usize, skipped: usize, silent: bool) -> Result<()> {
        let hint = if self.include.is_empty() && found == 0 {
            " skillmod looks for files named execute.sh and for shell scripts inside skill folders (folders holding SKILL.md); add --include '*.sh' (or another glob) for other names."
        } else {
            ""
        };
        let excluded = match self.left_out.excluded_count() {
            0 => String::new(),
            n => format!(
                " {n} path(s) were left out by --exclude or a settings file's `exclude` (-v names them)."
            ),
        };
        let message = if found == 0 {
            format!("no script found in the paths given.{excluded}{hint}")
        } else {
            format!(
                "all {found} scripts found were skipped ({skipped} skipped; the reasons are above).{hint}"
            )
        };
        // With --force-select the files named were a list to pick from (pre-commit's shell
        // files): none being a skill script is an answer, not a mistake.
        if self.force_select && found == 0 {
            return Ok(());
        }
        if !self.is_empty() {
            return Err(Error::new(codes::NOTHING_CHECKED, message));
        }
        if !silent {
            eprintln!("warning: {}", crate::bytes_text::visible(&message));
        }
        Ok(())
    }

    /// The `execute.sh` files a settings file's `exclude` left out, added to `files` (check and
    /// migrate report each as failed, unread), by file with the settings file that left it out.
    pub fn with_excluded_entry_points(
        &self,
        files: &mut Vec<std::path::PathBuf>,
    ) -> Result<std::collections::HashMap<std::path::PathBuf, std::path::PathBuf>> {
        let excluded: std::collections::HashMap<_, _> = self
            .excluded_entry_points()?
            .into_iter()
            .map(|(settings, file)| (file, settings))
            .collect();
        let known: std::collections::HashSet<std::path::PathBuf> = files.iter().cloned().collect();
        files.extend(excluded.keys().filter(|f| !known.contains(*f)).cloned());
        Ok(excluded)
    }

    /// The `execute.sh` files a settings file's `exclude` left out of this run, each with that
    /// file (see `LeftOut::excluded_entry_points`); under `--staged` or `--changed-since`, those
    /// git lists only. Called after `files`.
    fn excluded_entry_points(&self) -> Result<Vec<(std::path::PathBuf, std::path::PathBuf)>> {
        let mut hidden = self.left_out.excluded_entry_points();
        // git is asked again only when a settings file left an execute.sh out.
        if !hidden.is_empty() && (self.staged || self.changed_since.is_some()) {
            let repo = crate::vcs::Repo::discover(&crate::fsio::working_dir()?);
            let wanted = match &repo {
                Some(repo) => self.history_paths(repo)?,
                None => return Ok(Vec::new()),
            };
            hidden.retain(|(_, file)| wanted.contains(&crate::fsio::as_named(file)));
        }
        Ok(hidden)
    }

    /// How many paths each settings file's `exclude` left out (see `LeftOut::excluded_by_settings`).
    pub fn excluded_by_settings(&self) -> Vec<(std::path::PathBuf, usize)> {
        self.left_out.excluded_by_settings()
    }

    /// The notes the walks end with (see `left_out`): shell files left out (outside skill
    /// folders, not `execute.sh`, no `--include` given; not under `--staged` or
    /// `--changed-since`), symlinked folders not followed, paths an `exclude` left out. Paths are
    /// shown relative to `base`.
    pub fn walk_notes(&self, base: &std::path::Path) -> Vec<super::left_out::Note> {
        let by_history = self.staged || self.changed_since.is_some();
        let named = match self.named() {
            named if named.is_empty() => vec![base.to_path_buf()],
            named => named,
        };
        self.left_out
            .notes(&named, base, !self.include.is_empty(), by_history)
    }

    /// Print the walk notes on stderr: each unless `-q`/`--silent`, the ones that name nothing
    /// unchecked only with `-v`.
    pub fn print_walk_notes(
        &self,
        notes: &[super::left_out::Note],
        (quiet, verbose): (bool, bool),
    ) {
        for note in notes
            .iter()
            .filter(|n| !quiet && (verbose || !n.verbose_only))
        {
            eprintln!("note: {}", crate::bytes_text::visible(&note.text));
        }
    }

    /// The files to work on: discovered, then narrowed by `--changed-since` / `--staged`. With
    /// either of those and no paths, the whole work tree is searched.
    pub fn files(&self, what: &str, resolver: &Arc<Resolver>) -> Result<Vec<PathBuf>> {
        let by_history = self.changed_since.is_some() || self.staged;
        let repo = if by_history {
            Some(
                crate::vcs::Repo::discover(&crate::fsio::working_dir()?).ok_or_else(|| {
                    Error::new(
                        codes::NOT_A_GIT_REPO,
                        "--changed-since and --staged need a git work tree",
                    )
                })?,
            )
        } else {
            None
        };
        let mut selection = self.selection(resolver)?;
        selection.left_out = self.left_out.clone();
        if self.is_empty() {
            match &repo {
                Some(repo) => selection.dirs.push(repo.root.clone()),
                None => {
                    return Err(Error::new(
                        codes::NO_PATHS,
                        format!(
                            "nothing to {what}: pass files or folders, --skill-dir DIR or --skill-path FILE"
                        ),
                    ));
                }
            }
        }
        // Under --staged, the index's entries, read once for both uses below.
        let index_modes = match &repo {
            Some(repo) if self.staged => Some(repo.index_modes()?),
            _ => None,
        };
        if let Some(modes) = &index_modes {
            selection.staged_skills = Some(Arc::new(staged_skill_folders(modes)));
        }
        let mut files = crate::config::discover::discover(&selection)?;
        if let Some(repo) = repo {
            let wanted = self.history_paths(&repo)?;
            // The file itself as git names it: a symlink is not followed to its target.
            let as_named = |f: &PathBuf| crate::fsio::as_named(f);
            files.retain(|f| wanted.contains(&as_named(f)));
            // A changed runtime file, which no walk selects, is verified on its own.
            let named: Vec<PathBuf> = self.named().iter().map(as_named).collect();
            files.extend(
                wanted
                    .iter()
                    .filter(|f| {
                        crate::config::discover::is_runtime_file(f.file_name().unwrap_or_default())
                            && (named.is_empty() || named.iter().any(|n| f.starts_with(n)))
                            && (self.staged || f.exists())
                    })
                    .cloned(),
            );
            if let Some(modes) = &index_modes {
                let found: Vec<PathBuf> = files.iter().map(as_named).collect();
                let from_index: Vec<PathBuf> =
                    staged_without_work_tree_copy(&repo, modes, wanted, &found)?
                        .into_iter()
                        .filter(|f| named.is_empty() || named.iter().any(|n| f.starts_with(n)))
                        .collect();
                // Excluded paths stay out, whatever the index holds.
                files.extend(self.not_excluded(from_index, resolver)?);
            }
            files.sort();
            files.dedup();
        }
        Ok(files)
    }
}

/// For each script, what it sources and what those source in turn (`a.inc` sourcing `b.inc`),
/// when one of them is `changed`: a change anywhere down the chain changes what the script
/// prints (else nothing). A library many scripts share is read once.
fn libraries_changed_below(
    scripts: &[PathBuf],
    sources_of: &(dyn Fn(&std::path::Path) -> Vec<PathBuf> + Sync),
    changed: &(dyn Fn(&std::path::Path) -> bool + Sync),
) -> Vec<Vec<PathBuf>> {
    use crate::fsio::canonical;
    let read: std::sync::Mutex<std::collections::HashMap<PathBuf, Vec<PathBuf>>> =
        std::sync::Mutex::default();
    let targets_of = |file: &std::path::Path| -> Vec<PathBuf> {
        if let Some(known) = read.lock().ok().and_then(|r| r.get(file).cloned()) {
            return known;
        }
        let found: Vec<PathBuf> = sources_of(file)
            .into_iter()
            .filter_map(|target| crate::fsio::sourced_file(file, &target))
            .map(|library| canonical(&library))
            .collect();
        if let Ok(mut r) = read.lock() {
            r.insert(file.to_path_buf(), found.clone());
        }
        found
    };
    crate::parallel::map(scripts, |script| {
        let mut reached = std::collections::HashSet::new();
        let mut next = vec![script.clone()];
        let mut changed_below = false;
        while let Some(file) = next.pop() {
            for target in targets_of(&file) {
                if target.is_file() && reached.insert(target.clone()) {
                    changed_below |= changed(&target);
                    next.push(target);
                }
            }
        }
        if changed_below {
            reached.into_iter().collect()
        } else {
            Vec::new()
        }
    })
}

/// The folders whose `SKILL.md` git's index holds as a regular file: under `--staged`, what the
/// commit makes a skill folder.
fn staged_skill_folders(
    modes: &std::collections::HashMap<PathBuf, String>,
) -> std::collections::HashSet<PathBuf> {
    modes
        .iter()
        .filter(|(path, mode)| {
            matches!(mode.as_str(), "100644" | "100755")
                && path
                    .file_name()
                    .is_some_and(|n| n == crate::fsio::SKILL_FILE)
        })
        .filter_map(|(path, _)| path.parent().map(std::path::Path::to_path_buf))
        .collect()
}

/// `--staged` checks what the commit will hold: a staged skill script (a regular file or a
/// symlink) whose work-tree copy is gone (deleted, or a FIFO or folder in its place) is still
/// checked, from the index. Such a file is selected as a walk would: `execute.sh`, or a shell
/// script inside a folder whose `SKILL.md` the index holds, known by its name or, as the index
/// holds it, by its shebang. So is one whose work-tree copy is no shell script (its shebang
/// gone, binary) while the staged file is one.
fn staged_without_work_tree_copy(
    repo: &crate::vcs::Repo,
    modes: &std::collections::HashMap<PathBuf, String>,
    staged: &std::collections::HashSet<PathBuf>,
    found: &[PathBuf],
) -> Result<Vec<PathBuf>> {
    // A regular file, or a symlink (followed through the index when checked).
    let staged_file = |path: &PathBuf| {
        modes
            .get(path)
            .is_some_and(|m| matches!(m.as_str(), "100644" | "100755" | "120000"))
    };
    let regular: std::collections::HashSet<&PathBuf> = modes
        .iter()
        .filter(|(_, m)| matches!(m.as_str(), "100644" | "100755"))
        .map(|(p, _)| p)
        .collect();
    let in_skill = |path: &std::path::Path| {
        path.ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(&repo.root))
            .any(|dir| regular.contains(&dir.join(crate::fsio::SKILL_FILE)))
    };
    // A copy the walk could have met: reached through real folders only (one reached
    // through a folder the work tree turned into a symlink is another file, or none).
    let work_tree_copy = |path: &std::path::Path| {
        let through_folders = path
            .ancestors()
            .skip(1)
            .take_while(|dir| dir.starts_with(&repo.root) && *dir != repo.root)
            .all(|dir| std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()));
        through_folders
            && std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() || m.is_symlink())
    };
    let by_name = |path: &std::path::Path| {
        path.file_name().unwrap_or_default() == crate::domain::DEFAULT_NAME
            || (path.extension().is_some_and(|e| e == "sh" || e == "bash") && in_skill(path))
    };
    let candidates: Vec<&PathBuf> = staged
        .iter()
        .filter(|path| staged_file(path) && !found.contains(*path))
        .collect();
    // Files known by their shebang only: what the index holds decides.
    let unnamed: Vec<PathBuf> = candidates
        .iter()
        .filter(|path| !by_name(path) && in_skill(path))
        .map(|path| (*path).clone())
        .collect();
    let blobs = if unnamed.is_empty() {
        Default::default()
    } else {
        repo.index_contents(&unnamed)?
    };
    let shebang = |path: &PathBuf| {
        blobs
            .get(path)
            .is_some_and(|blob| crate::analyze::Dialect::is_shell_file(path, blob))
    };
    Ok(candidates
        .into_iter()
        .filter(|path| {
            if work_tree_copy(path) {
                // The walk judged the work tree's copy; only a script it did not see as one.
                !by_name(path) && shebang(path)
            } else {
                by_name(path) || shebang(path)
            }
        })
        .cloned()
        .collect())
}
