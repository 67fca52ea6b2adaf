//! File-system side: finding skills, reading them safely, atomic writes, backups, and the
//! project root that holds `.skillmod/`.

pub mod atomic;
pub mod backup;
pub mod journal;
pub mod limited;
pub mod links;
pub mod read;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Name of the folder skillmod keeps its state in (backups, cache) at the project root.
pub(crate) const STATE_DIR: &str = ".skillmod";

/// The program a shebang line runs (its file name, through `env` when it is env), if the bytes
/// start with one.
pub(crate) fn shebang_program(source: &[u8]) -> Option<String> {
    shebang(source).map(|(program, _)| program)
}

/// The program a shebang runs (see `shebang_program`) and the words after it.
pub(crate) fn shebang(source: &[u8]) -> Option<(String, Vec<String>)> {
    let rest = source.strip_prefix(b"#!")?;
    let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let line = String::from_utf8_lossy(&rest[..line_end]);
    let mut words = line.split_whitespace().peekable();
    let mut program = words.next().unwrap_or("");
    // `#!/usr/bin/env bash`, `#!/bin/busybox sh`: the program runs the one named after it.
    if program.ends_with("/env") {
        // env's options (`-i`, `-u NAME`, `-C DIR`, `-S`, `--unset=NAME`) and assignments
        // (`PATH=…`) come before the program.
        program = "";
        while let Some(word) = words.next() {
            match word {
                "-u" | "--unset" | "-C" | "--chdir" => {
                    words.next();
                }
                // `--split-string=bash`, `-Sbash`: the program is written against the option.
                _ if word.starts_with("--split-string=")
                    || word.starts_with("-S") && word.len() > 2 =>
                {
                    program = word
                        .trim_start_matches("--split-string=")
                        .trim_start_matches("-S");
                    break;
                }
                _ if word.starts_with('-') || word.contains('=') => {}
                _ => {
                    program = word;
                    break;
                }
            }
        }
    }
    if program.rsplit('/').next() == Some("busybox") {
        program = words.find(|w| !w.starts_with('-')).unwrap_or("");
    }
    let name = program.rsplit('/').next().unwrap_or(program).to_string();
    Some((name, words.map(str::to_string).collect()))
}

/// Whether a shebang's program is a shell skillmod reads: bash (and its restricted `rbash`), or
/// one of the sh family (dash, ash, ksh, ksh93, mksh, posh).
pub(crate) fn is_shell_program(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash" | "rbash" | "dash" | "ash" | "ksh" | "ksh93" | "mksh" | "lksh" | "posh"
    )
}

/// Whether a file is a shell script: its shebang names one of those shells, or (without a
/// shebang) its name ends in `.sh` or `.bash`. `head` is the file's start (its first line is
/// enough).
pub(crate) fn is_shell_script(path: &Path, head: &[u8]) -> bool {
    if let Some(program) = shebang_program(head) {
        return is_shell_program(&program);
    }
    path.extension()
        .is_some_and(|ext| ext == "sh" || ext == "bash")
}

/// The name of the file that makes a folder a skill (the Agent Skills format).
pub(crate) const SKILL_FILE: &str = "SKILL.md";

/// The project root of a command that names no path: the nearest folder at or above `start`
/// holding `.git`; outside git, `start` widened to the skill folder holding it.
pub(crate) fn project_root(start: &Path) -> PathBuf {
    match start.ancestors().find(|dir| dir.join(".git").exists()) {
        Some(repository) => repository.to_path_buf(),
        None => enclosing_skill(start).unwrap_or_else(|| start.to_path_buf()),
    }
}

/// The project root of a command's named paths (the first one's), found as migrate finds each
/// file's; the working folder's when none is named. Check keeps its cache there.
pub(crate) fn named_root(named: &[PathBuf], cwd: &Path) -> PathBuf {
    match named.first() {
        Some(first) => Roots::new(named).root_of_named(first),
        None => project_root(cwd),
    }
}

/// Whether `folder` is a skill folder: it holds a regular file named exactly `SKILL.md` (a
/// symlink or a folder of that name does not count).
pub(crate) fn is_skill_folder(folder: &Path) -> bool {
    std::fs::symlink_metadata(folder.join(SKILL_FILE)).is_ok_and(|m| m.file_type().is_file())
}

/// The nearest skill folder at or above `folder`.
pub(crate) fn enclosing_skill(folder: &Path) -> Option<PathBuf> {
    folder
        .ancestors()
        .find(|dir| is_skill_folder(dir))
        .map(Path::to_path_buf)
}

/// The file that `source TARGET` in `file` reads, if one exists: TARGET from the file's folder
/// first, else from the nearest folder above it (up to the skill folder or work tree holding it)
/// where TARGET names a file. A library's `source "$SCRIPT_DIR/lib/x"`, or `source ./lib/x`
/// after the entry script's `cd`, names a path from the folder of the script that set them, not
/// the library's (hostile review hx25 item 4).
pub(crate) fn sourced_file(file: &Path, target: &Path) -> Option<PathBuf> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let own = dir.join(target);
    if own.is_file() {
        return Some(own);
    }
    if target.is_absolute() {
        return None;
    }
    let (dir, top) = project_of(dir)?;
    dir.ancestors()
        .skip(1)
        .take(LEVELS_UP)
        .take_while(|d| d.starts_with(&top))
        .map(|d| d.join(target))
        .find(|candidate| candidate.is_file())
}

/// How many folders above its own a sourced path is looked for in: `$SCRIPT_DIR` set a folder or
/// two up is the common case, and a bound keeps a file deep in a tree that sources many missing
/// paths linear (hostile review hx26 item 7).
const LEVELS_UP: usize = 3;

/// A folder's real path and the skill folder or work tree holding it, found once per folder in
/// each thread. Bounded where a project ends; a folder in neither a skill nor a work tree looks no
/// higher. Read from the real folder, so the answer is the same from any working folder.
fn project_of(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    thread_local! {
        static FOUND: std::cell::RefCell<std::collections::HashMap<PathBuf, Option<(PathBuf, PathBuf)>>> =
            std::cell::RefCell::default();
    }
    if let Some(known) = FOUND.with(|f| f.borrow().get(dir).cloned()) {
        return known;
    }
    let real = canonical(dir);
    let top = real
        .ancestors()
        .find(|d| is_skill_folder(d) || d.join(".git").exists())
        .map(Path::to_path_buf);
    let found = top.map(|top| (real, top));
    FOUND.with(|f| f.borrow_mut().insert(dir.to_path_buf(), found.clone()));
    found
}

/// The skill folder of the script at real path `real`: the nearest folder above it, up to its
/// project root `root`, that holds `SKILL.md`; a script in no skill folder has its own folder.
pub(crate) fn skill_folder(real: &Path, root: &Path) -> PathBuf {
    let own = real.parent().unwrap_or(real);
    own.ancestors()
        .take_while(|dir| dir.starts_with(root))
        .find(|dir| is_skill_folder(dir))
        .unwrap_or(own)
        .to_path_buf()
}

/// `path` made absolute and canonical (symlinks and `..` resolved) where it exists, to compare
/// with git's paths and the exclude folder; made absolute only when it cannot be resolved.
pub fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// `path` made absolute with its folder's symlinks resolved but not the last component: the
/// name git's index and a `--staged` check know a file by, even when it is itself a symlink.
pub(crate) fn as_named(path: &Path) -> PathBuf {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => {
            let parent = if parent.as_os_str().is_empty() {
                Path::new(".")
            } else {
                parent
            };
            canonical(parent).join(name)
        }
        _ => canonical(path),
    }
}

/// The project root of one file, where its backups go and whose git work tree guards it: the
/// nearest folder above the file holding `.git`; outside git, the outermost of the folders
/// named on the command line (`named`, a named file's folder) that holds it, widened to the
/// skill folder holding that. So the root depends on the files and the paths named, never on
/// the folder skillmod starts in.
pub fn file_root(path: &Path, named: &[PathBuf]) -> PathBuf {
    Roots::new(named).root(path)
}

/// `file_root` for many files: each folder is looked at once, however many files lie under it.
pub(crate) struct Roots {
    /// The named folders, real paths, outermost first.
    named: Vec<PathBuf>,
    /// Folder -> the nearest folder at or above it holding `.git`.
    repository_of: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl Roots {
    pub fn new(named: &[PathBuf]) -> Roots {
        let mut folders: Vec<PathBuf> = named
            .iter()
            .map(|path| {
                let real = canonical(path);
                if real.is_dir() {
                    real
                } else {
                    real.parent().map_or(real.clone(), Path::to_path_buf)
                }
            })
            .collect();
        folders.sort_by_key(|f| f.components().count());
        Roots {
            named: folders,
            repository_of: std::collections::HashMap::new(),
        }
    }

    /// The project root of a named path (a file, or a folder whose own root is asked).
    pub fn root_of_named(&mut self, path: &Path) -> PathBuf {
        if path.is_dir() {
            // The root of a file inside it.
            self.root(&path.join("SKILL.md"))
        } else {
            self.root(path)
        }
    }

    pub fn root(&mut self, path: &Path) -> PathBuf {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let folder = absolute.parent().unwrap_or(&absolute);
        if let Some(repo) = self.repository(folder) {
            return repo;
        }
        // The file where it is named: a symlink's root is its own, never its target's.
        let real = as_named(path);
        let own = real.parent().unwrap_or(&real);
        let named = self
            .named
            .iter()
            .find(|named| own.starts_with(named))
            .map_or(own, PathBuf::as_path);
        enclosing_skill(named).unwrap_or_else(|| named.to_path_buf())
    }

    fn repository(&mut self, folder: &Path) -> Option<PathBuf> {
        if let Some(known) = self.repository_of.get(folder) {
            return known.clone();
        }
        let found = if folder.join(".git").exists() {
            Some(folder.to_path_buf())
        } else {
            folder.parent().and_then(|parent| self.repository(parent))
        };
        self.repository_of
            .insert(folder.to_path_buf(), found.clone());
        found
    }
}

/// Make sure the state folder `state` (`.skillmod/`) ignores itself for git: false when its
/// `.gitignore` cannot be made skillmod's (a folder of that name, say).
pub(crate) fn ensure_state_ignored(state: &Path) -> bool {
    const OURS: &[u8] = b"# skillmod state: backups and cache, never committed\n*\n";
    let ignore = state.join(".gitignore");
    // Read as untrusted state: a FIFO or a link committed in its place is replaced, not read, and
    // any other text too (a repository's `!*` would have the backups committed).
    let ours = limited::read(&ignore, 4096, false).is_ok_and(|b| b == OURS);
    // Atomic, so a full disk never leaves an empty .gitignore behind.
    ours || atomic::write_atomic(&ignore, OURS, 0o644).is_ok()
}

/// Whether `path` is a folder itself, not a symlink to one (state folders a repository could
/// point elsewhere).
pub(crate) fn is_plain_folder(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir() && !m.file_type().is_symlink())
}

/// Lowercase hex sha256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// `path` relative to `base` when it lies under it, for reports and diffs: marked text (see
/// `bytes_text`), so bytes that are not UTF-8 are kept, and `report::quote_path` quotes them as
/// git does.
pub(crate) fn display_path(path: &Path, base: &Path) -> String {
    let shown = path.strip_prefix(base).unwrap_or(path);
    let clean: PathBuf = shown
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    forward_slashes(crate::bytes_text::os_marked(clean.as_os_str()))
}

/// Path text with Windows' separators as `/`; elsewhere a backslash is part of a file's name and
/// is kept.
pub(crate) fn forward_slashes(text: String) -> String {
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text
    }
}

/// The folder reports are relative to.
pub fn working_dir() -> crate::error::Result<PathBuf> {
    std::env::current_dir().map_err(|e| {
        crate::error::Error::new(
            crate::codes::IO_ERROR,
            format!("cannot read the working folder: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sourced_path_is_read_from_the_file_then_the_folders_above_up_to_the_skill() {
        let tmp = tempfile::tempdir().expect("tmp");
        let skill = tmp.path().join("sk");
        std::fs::create_dir_all(skill.join("scripts/lib")).expect("mkdir");
        for file in [
            "SKILL.md",
            "x.inc",
            "scripts/lib/own.inc",
            "scripts/lib/report.inc",
        ] {
            std::fs::write(skill.join(file), "").expect("write");
        }
        // Outside the skill folder: never read.
        std::fs::write(tmp.path().join("above.inc"), "").expect("write");
        let library = skill.join("scripts/lib/common.inc");
        let real = canonical(&skill);
        assert_eq!(
            sourced_file(&library, Path::new("own.inc")),
            Some(skill.join("scripts/lib/own.inc"))
        );
        assert_eq!(
            sourced_file(&library, Path::new("lib/report.inc")),
            Some(real.join("scripts/lib/report.inc"))
        );
        assert_eq!(
            sourced_file(&library, Path::new("x.inc")),
            Some(real.join("x.inc"))
        );
        assert_eq!(sourced_file(&library, Path::new("above.inc")), None);
        assert_eq!(sourced_file(&library, Path::new("lib/missing.inc")), None);
        // At most LEVELS_UP folders above its own.
        let deep = skill.join("a/b/c/d");
        std::fs::create_dir_all(&deep).expect("mkdir");
        assert_eq!(sourced_file(&deep.join("x.sh"), Path::new("x.inc")), None);
        assert_eq!(
            sourced_file(&skill.join("a/b/x.sh"), Path::new("x.inc")),
            Some(real.join("x.inc"))
        );
        // A file in no skill folder or work tree looks in its own folder alone.
        let loose = tmp.path().join("loose/a.sh");
        assert_eq!(sourced_file(&loose, Path::new("above.inc")), None);
    }

    #[test]
    fn a_shebang_names_the_program_env_or_busybox_runs() {
        for (line, program) in [
            ("#!/bin/bash", "bash"),
            ("#!/usr/bin/env bash", "bash"),
            ("#!/usr/bin/env -u DEBUG bash", "bash"),
            ("#!/usr/bin/env -S PATH=/usr/bin:/bin bash -e", "bash"),
            ("#!/usr/bin/env -C /tmp bash", "bash"),
            ("#!/usr/bin/env --split-string=bash", "bash"),
            ("#!/usr/bin/env -i LC_ALL=C sh", "sh"),
            ("#!/bin/busybox sh", "sh"),
            ("#!/usr/bin/env busybox sh", "sh"),
            ("#!/bin/ksh93", "ksh93"),
            ("#!/usr/bin/env python3", "python3"),
        ] {
            let source = format!("{line}\necho x\n");
            assert_eq!(
                shebang_program(source.as_bytes()).as_deref(),
                Some(program),
                "{line}"
            );
        }
    }

    #[test]
    fn each_file_gets_its_repository_or_the_outermost_named_folder() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = canonical(tmp.path());
        for dir in [
            "outer/.git",
            "outer/inner/.git",
            "outer/a",
            "outer/inner/b/c",
            "plain/d/e",
            "skills/s/scripts",
        ] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        std::fs::write(root.join("skills/s/SKILL.md"), "---\nname: s\n---\n").expect("skill");
        let named = [root.join("plain"), root.join("plain/d")];
        let mut roots = Roots::new(&named);
        let cases = [
            ("outer/a/execute.sh", root.join("outer")),
            ("outer/inner/b/c/execute.sh", root.join("outer/inner")),
            ("outer/inner/b/execute.sh", root.join("outer/inner")),
            ("outer/execute.sh", root.join("outer")),
            ("plain/d/e/execute.sh", root.join("plain")),
        ];
        for (file, expected) in &cases {
            assert_eq!(&roots.root(&root.join(file)), expected, "{file}");
            assert_eq!(&file_root(&root.join(file), &named), expected, "{file}");
        }
        // A file named inside a skill: the root widens to the skill folder.
        let script = root.join("skills/s/scripts/run.sh");
        std::fs::write(&script, "#!/bin/sh\n").expect("script");
        assert_eq!(
            file_root(&script, std::slice::from_ref(&script)),
            root.join("skills/s")
        );
        // Outside git and every named folder: the file's own folder.
        let elsewhere = tempfile::tempdir().expect("tmp");
        let lone = canonical(elsewhere.path()).join("execute.sh");
        assert_eq!(roots.root(&lone), canonical(elsewhere.path()));
    }

    #[test]
    fn a_skill_folder_holds_a_regular_skill_md() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = canonical(tmp.path());
        let skill = root.join("s");
        std::fs::create_dir_all(skill.join("scripts/deep")).expect("mkdir");
        let script = skill.join("scripts/deep/go.sh");
        assert_eq!(skill_folder(&script, &root), skill.join("scripts/deep"));
        std::fs::create_dir(skill.join(SKILL_FILE)).expect("a folder named SKILL.md");
        assert_eq!(skill_folder(&script, &root), skill.join("scripts/deep"));
        std::fs::remove_dir(skill.join(SKILL_FILE)).expect("rmdir");
        std::fs::write(skill.join(SKILL_FILE), "x").expect("skill");
        assert_eq!(skill_folder(&script, &root), skill);
        // Never above the project root.
        assert_eq!(
            skill_folder(&script, &skill.join("scripts")),
            skill.join("scripts/deep")
        );
    }
}
