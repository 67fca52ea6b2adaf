//! Git, through the `git` command (so the user's config and hooks apply): which files are dirty,
//! which changed since a revision or are staged, and committing exactly the migrated files.

use crate::codes;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::{Error, Result};

/// A symlink's mode in git's index.
const SYMLINK_MODE: &str = "120000";

/// What the index holds for a script (`check --staged`).
#[derive(Debug, Clone)]
pub enum Staged {
    /// The bytes to judge, and the path they are staged at (a symlink's target, else the file).
    Blob { script: PathBuf, bytes: Vec<u8> },
    /// A staged symlink that cannot be followed inside the work tree, and why.
    Refused(Error),
}

/// git, with the repository's `core.fsmonitor` off: a work tree handed over with its `.git`
/// (an archive, not a clone) could name a command there that `git status` and `ls-files` run.
fn git_command() -> Command {
    let mut command = Command::new("git");
    command.args(["-c", "core.fsmonitor=false"]);
    command
}

/// A git work tree.
#[derive(Debug, Clone)]
pub struct Repo {
    /// The work tree's top folder, canonical.
    pub root: PathBuf,
}

impl Repo {
    /// The work tree holding `dir`, or None outside git (or without a git binary).
    pub fn discover(dir: &Path) -> Option<Repo> {
        let out = git_command()
            .args(["rev-parse", "--show-toplevel"])
            .current_dir(dir)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let top = String::from_utf8(out.stdout).ok()?;
        let root = std::fs::canonicalize(top.trim_end_matches(['\n', '\r'])).ok()?;
        Some(Repo { root })
    }

    fn git<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Result<Vec<u8>> {
        let out = git_command()
            .args(args)
            .current_dir(&self.root)
            .output()
            .map_err(|e| Error::new(codes::GIT_FAILED, format!("cannot run git: {e}")))?;
        if !out.status.success() {
            return Err(Error::new(
                codes::GIT_FAILED,
                format!(
                    "git {} failed: {}",
                    args.iter()
                        .map(|a| crate::bytes_text::shown_path(Path::new(a.as_ref())).into_owned())
                        .collect::<Vec<_>>()
                        .join(" "),
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            ));
        }
        Ok(out.stdout)
    }

    /// Absolute paths from NUL-separated, root-relative git output.
    fn paths(&self, output: &[u8]) -> HashSet<PathBuf> {
        output
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| self.root.join(crate::bytes_text::path_from_bytes(p)))
            .collect()
    }

    /// The files git's index holds with content (absolute paths); an intent-to-add entry, staged
    /// as the empty blob, is left out (a commit would not hold the file).
    pub fn indexed(&self) -> Result<HashSet<PathBuf>> {
        Ok(self
            .index_entries()?
            .into_iter()
            .map(|(path, _)| path)
            .collect())
    }

    /// The modes of the index's entries with content (`100644`, `120000`, …), by absolute path.
    pub fn index_modes(&self) -> Result<HashMap<PathBuf, String>> {
        Ok(self.index_entries()?.into_iter().collect())
    }

    /// What a commit would record for each of `files` that the index holds: a regular file's
    /// blob; a symlink's target, followed through the index while it stays inside the work tree
    /// (`Staged::Blob` at the target), else refused with a code naming the target.
    pub fn staged_scripts(&self, files: &[PathBuf]) -> Result<HashMap<PathBuf, Staged>> {
        let modes = self.index_modes()?;
        let mut staged: HashMap<PathBuf, Staged> = self
            .index_contents(files)?
            .into_iter()
            .map(|(file, bytes)| {
                let script = crate::fsio::as_named(&file);
                (file, Staged::Blob { script, bytes })
            })
            .collect();
        for (file, entry) in &mut staged {
            let named = self.in_index(file);
            if modes.get(&named).is_some_and(|m| m == SYMLINK_MODE) {
                *entry = self.follow_staged(&named, &modes);
            }
        }
        Ok(staged)
    }

    /// A staged symlink's target, resolved as `realpath` would in a checkout of the index: each
    /// component in turn, a symlink among them replaced by its staged text (at most 40 of them).
    fn follow_staged(&self, link: &Path, modes: &HashMap<PathBuf, String>) -> Staged {
        let blob = |path: &Path| {
            self.index_contents(&[path.to_path_buf()])
                .ok()
                .and_then(|mut c| c.remove(path))
                .map(|b| String::from_utf8_lossy(&b).into_owned())
        };
        let written = blob(link).unwrap_or_default();
        let refused = |code: codes::Code, why: String| {
            Staged::Refused(Error::new(
                code,
                format!(
                    "is staged as a symbolic link to {}, {why}",
                    crate::bytes_text::quote_path(&written)
                ),
            ))
        };
        let mut todo: Vec<String> = vec![written.clone()];
        let mut current = link.parent().unwrap_or(&self.root).to_path_buf();
        let mut hops = 0;
        while let Some(text) = todo.pop() {
            if text.starts_with('/') {
                current = PathBuf::from("/");
            }
            let mut rest: Vec<String> = text
                .split('/')
                .filter(|part| !part.is_empty() && *part != ".")
                .rev()
                .map(str::to_string)
                .collect();
            while let Some(part) = rest.pop() {
                match part.as_str() {
                    ".." => {
                        current.pop();
                        continue;
                    }
                    name => current.push(name),
                }
                if modes.get(&current).is_some_and(|m| m == SYMLINK_MODE) {
                    hops += 1;
                    if hops > 40 {
                        return refused(
                            codes::SYMLINK_BROKEN,
                            "which loops (more than 40 links): nothing was read; fix the link"
                                .into(),
                        );
                    }
                    let Some(next) = blob(&current) else {
                        return refused(
                            codes::SYMLINK_BROKEN,
                            "which cannot be read from the index".into(),
                        );
                    };
                    current.pop();
                    rest.reverse();
                    todo.push(rest.join("/"));
                    todo.push(next);
                    break;
                }
            }
        }
        self.staged_target(current, modes, &refused)
    }

    /// What the index holds at a staged symlink's resolved target `current`: a regular file's
    /// blob inside the work tree (not under `.git` or `.skillmod`), else why not.
    fn staged_target(
        &self,
        current: PathBuf,
        modes: &HashMap<PathBuf, String>,
        refused: &dyn Fn(codes::Code, String) -> Staged,
    ) -> Staged {
        let inside = current.strip_prefix(&self.root).ok().filter(|relative| {
            !relative.components().any(|c| {
                let c = c.as_os_str();
                c == ".git" || c == ".skillmod"
            })
        });
        if inside.is_none() {
            return Staged::Refused(crate::fsio::links::outside_root(&current, &self.root));
        }
        match modes.get(&current).map(String::as_str) {
            Some("100644" | "100755") => {
                match self.index_contents(std::slice::from_ref(&current)) {
                    Ok(mut found) => match found.remove(&current) {
                        Some(bytes) => Staged::Blob {
                            script: current,
                            bytes,
                        },
                        None => refused(
                            codes::SYMLINK_BROKEN,
                            "which cannot be read from the index".into(),
                        ),
                    },
                    Err(e) => Staged::Refused(e),
                }
            }
            Some(_) => refused(
                codes::NOT_A_FILE,
                "which is not a regular file in the index: nothing was read".into(),
            ),
            None => refused(
                codes::SYMLINK_BROKEN,
                format!(
                    "and the index holds no file at {}: nothing was read; stage the target, or fix the link",
                    crate::bytes_text::quote_path(&crate::fsio::display_path(&current, &self.root))
                ),
            ),
        }
    }

    /// The index's entries with content, and their modes. An intent-to-add entry (`git add -N`)
    /// shows the empty blob, as a staged empty file does (an empty `SKILL.md`): the empty blob
    /// counts only where `git diff --cached` lists the file or HEAD holds it.
    fn index_entries(&self) -> Result<Vec<(PathBuf, String)>> {
        const EMPTY_BLOB: &[u8] = b"e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";
        let out = self.git(&["ls-files", "-s", "-z"])?;
        let mut entries = Vec::new();
        let mut empty = Vec::new();
        for entry in out.split(|&b| b == 0) {
            // "<mode> <object> <stage>\t<path>"
            let Some(tab) = entry.iter().position(|&b| b == b'\t') else {
                continue;
            };
            let mut words = entry[..tab].split(|&b| b == b' ');
            let (Some(mode), Some(object)) = (words.next(), words.next()) else {
                continue;
            };
            let path = self
                .root
                .join(crate::bytes_text::path_from_bytes(&entry[tab + 1..]));
            let mode = String::from_utf8_lossy(mode).into_owned();
            if object == EMPTY_BLOB {
                empty.push((path, mode));
            } else {
                entries.push((path, mode));
            }
        }
        if !empty.is_empty() {
            let mut real = self.staged()?;
            // No HEAD yet (a first commit): only what is staged counts.
            if let Ok(head) = self.git(&["ls-tree", "-r", "--name-only", "-z", "HEAD"]) {
                real.extend(self.paths(&head));
            }
            entries.extend(empty.into_iter().filter(|(path, _)| real.contains(path)));
        }
        Ok(entries)
    }

    /// Whether git tracks any file at or under `path` (absolute).
    pub fn tracks_any_under(&self, path: &Path) -> bool {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return false;
        };
        let spec = if relative.as_os_str().is_empty() {
            ".".to_string()
        } else {
            relative.to_string_lossy().into_owned()
        };
        self.git(&["ls-files", "-z", "--", &format!(":(literal){spec}")])
            .is_ok_and(|out| !out.is_empty())
    }

    /// The files git's index holds at or under `path` (absolute), intent-to-add entries too.
    pub fn tracked_under(&self, path: &Path) -> Result<HashSet<PathBuf>> {
        let Ok(relative) = path.strip_prefix(&self.root) else {
            return Ok(HashSet::new());
        };
        let spec = if relative.as_os_str().is_empty() {
            ".".to_string()
        } else {
            relative.to_string_lossy().into_owned()
        };
        let out = self.git(&["ls-files", "-z", "--", &format!(":(literal){spec}")])?;
        Ok(self.paths(&out))
    }

    /// Why the file at `path` (absolute, inside the work tree) is not as the last commit holds
    /// it: git does not track it, or it has staged or unstaged changes. None: it is clean.
    pub fn not_clean(&self, path: &Path) -> Result<Option<&'static str>> {
        let real = crate::fsio::as_named(path);
        let Ok(relative) = real.strip_prefix(&self.root) else {
            return Ok(Some("lies outside the git work tree"));
        };
        let spec = format!(":(literal){}", relative.to_string_lossy());
        if self.git(&["ls-files", "-z", "--", &spec])?.is_empty() {
            return Ok(Some("is not committed (git does not track it)"));
        }
        let status = self.git(&["status", "--porcelain=v1", "-z", "--", &spec])?;
        Ok((!status.is_empty()).then_some("has uncommitted changes (staged or unstaged)"))
    }

    /// Files with uncommitted changes: staged, unstaged or untracked.
    pub fn dirty(&self) -> Result<HashSet<PathBuf>> {
        let out = self.git(&["status", "--porcelain=v1", "-z", "--untracked-files=all"])?;
        // Entries are "XY path", renames are followed by the old path as a separate entry.
        let mut dirty = HashSet::new();
        let mut entries = out.split(|&b| b == 0).filter(|e| !e.is_empty());
        while let Some(entry) = entries.next() {
            if entry.len() < 4 {
                continue;
            }
            dirty.insert(
                self.root
                    .join(crate::bytes_text::path_from_bytes(&entry[3..])),
            );
            if entry[0] == b'R' || entry[0] == b'C' {
                entries.next();
            }
        }
        Ok(dirty)
    }

    /// Files that differ between `rev` and the work tree. `rev` is resolved to a commit first
    /// (`rev-parse --verify --end-of-options`), so a value such as `--output=FILE` is a revision
    /// that does not exist, never an option.
    pub fn changed_since(&self, rev: &str) -> Result<HashSet<PathBuf>> {
        let invalid = |why: String| {
            Error::new(
                codes::INVALID_REVISION,
                format!("cannot list files changed since '{rev}': {why}"),
            )
        };
        let spec = format!("{rev}^{{commit}}");
        let resolved = self
            .git(&[
                "rev-parse",
                "--verify",
                "--quiet",
                "--end-of-options",
                &spec,
            ])
            .map_err(|_| invalid("no such commit".to_string()))?;
        let hash = String::from_utf8_lossy(&resolved).trim().to_string();
        if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid("no such commit".to_string()));
        }
        let out = self
            .git(&["diff", "--name-only", "-z", "--no-renames", &hash, "--"])
            .map_err(|e| invalid(e.message))?;
        Ok(self.paths(&out))
    }

    /// Files with staged changes.
    pub fn staged(&self) -> Result<HashSet<PathBuf>> {
        Ok(self.paths(&self.git(&["diff", "--cached", "--name-only", "-z", "--no-renames"])?))
    }

    /// Files whose work tree differs from the index (unstaged changes to tracked files).
    pub fn unstaged(&self) -> Result<HashSet<PathBuf>> {
        Ok(self.paths(&self.git(&["diff", "--name-only", "-z", "--no-renames"])?))
    }

    /// The path the index knows `file` by: read lexically under the work tree's root, so a
    /// folder the work tree has turned into a symlink is not followed to another file (the index
    /// holds no such link); else through the real folder that holds it.
    fn in_index(&self, file: &Path) -> PathBuf {
        match std::path::absolute(file) {
            Ok(path)
                if path.starts_with(&self.root)
                    && !path
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir)) =>
            {
                path
            }
            _ => crate::fsio::as_named(file),
        }
    }

    /// The staged content (index, stage 0) of each of `files` (absolute paths) that has one,
    /// read with one `git cat-file --batch -Z` (no filters run, whatever the config says).
    pub fn index_contents(&self, files: &[PathBuf]) -> Result<HashMap<PathBuf, Vec<u8>>> {
        use std::io::Write;
        let mut request = Vec::new();
        let mut asked = Vec::new();
        for file in files {
            // The path itself, a symlink not followed: the index holds that name.
            let canonical = self.in_index(file);
            let Ok(relative) = canonical.strip_prefix(&self.root) else {
                continue;
            };
            request.extend_from_slice(b":");
            request.extend_from_slice(relative.as_os_str().as_encoded_bytes());
            request.push(0);
            asked.push(file.clone());
        }
        let mut child = git_command()
            .args(["cat-file", "--batch", "-Z"])
            .current_dir(&self.root)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| Error::new(codes::GIT_FAILED, format!("cannot run git: {e}")))?;
        let mut stdin = child.stdin.take();
        let writer = std::thread::spawn(move || {
            if let Some(stdin) = stdin.as_mut() {
                let _ = stdin.write_all(&request);
            }
        });
        let out = child
            .wait_with_output()
            .map_err(|e| Error::new(codes::GIT_FAILED, format!("git cat-file failed: {e}")))?;
        let _ = writer.join();
        let mut contents = HashMap::new();
        let mut rest = out.stdout.as_slice();
        for file in asked {
            // "<oid> blob <size>\0<content>\0", or "<name> missing\0".
            let Some(header_end) = rest.iter().position(|&b| b == 0) else {
                break;
            };
            let header = String::from_utf8_lossy(&rest[..header_end]).into_owned();
            rest = &rest[header_end + 1..];
            let mut words = header.split(' ');
            let (Some(_), Some(kind), Some(size)) = (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let Ok(size) = size.parse::<usize>() else {
                continue;
            };
            if size + 1 > rest.len() {
                break;
            }
            if kind == "blob" {
                contents.insert(file, rest[..size].to_vec());
            }
            rest = &rest[size + 1..];
        }
        Ok(contents)
    }

    /// The paths (relative to the work tree) a commit changed, as git recorded them.
    pub fn files_in_commit(&self, hash: &str) -> Result<Vec<String>> {
        let out = self.git(&[
            "diff-tree",
            "--root",
            "--no-commit-id",
            "--name-only",
            "--no-renames",
            "-r",
            "-z",
            hash,
        ])?;
        Ok(out
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect())
    }

    /// `files` (absolute paths) as pathspecs git takes literally: a folder named `:(glob)x` is
    /// that folder, not a pattern.
    fn literal_specs(&self, files: &[PathBuf]) -> impl Iterator<Item = std::ffi::OsString> {
        files.iter().map(|file| {
            let mut spec = std::ffi::OsString::from(":(literal)");
            spec.push(file.strip_prefix(&self.root).unwrap_or(file));
            spec
        })
    }

    /// Tell git about new files (`git add --intent-to-add`), so `commit --only` can take them.
    pub fn intend_to_add(&self, files: &[PathBuf]) -> Result<()> {
        if files.is_empty() {
            return Ok(());
        }
        let mut args: Vec<std::ffi::OsString> =
            vec!["add".into(), "--intent-to-add".into(), "--".into()];
        args.extend(self.literal_specs(files));
        self.git(&args)
            .map(|_| ())
            .map_err(|e| Error::new(codes::COMMIT_FAILED, e.message))
    }

    /// Commit exactly `files` (absolute paths) with `message`; other staged changes stay staged.
    /// Returns the new commit's full hash.
    pub fn commit_only(&self, files: &[PathBuf], message: &str, no_verify: bool) -> Result<String> {
        let mut args: Vec<std::ffi::OsString> = vec![
            "commit".into(),
            "--quiet".into(),
            "--only".into(),
            "-m".into(),
            message.into(),
        ];
        if no_verify {
            args.push("--no-verify".into());
        }
        args.push("--".into());
        args.extend(self.literal_specs(files));
        self.git(&args)
            .map_err(|e| Error::new(codes::COMMIT_FAILED, e.message))?;
        let head = self.git(&["rev-parse", "HEAD"])?;
        Ok(String::from_utf8_lossy(&head).trim().to_string())
    }
}
