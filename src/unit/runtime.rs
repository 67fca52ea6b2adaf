//! A skill's runtime file as check and migrate both read it: where it lies for a script (by
//! default its skill folder, the nearest folder above it holding SKILL.md, in the skill's
//! `scripts/` when it has one; with
//! `runtime = "project"` the project root), which file a migrated script's source line names, and
//! what state the file is in (missing, older, current, foreign), read once per run.

use std::path::{Path, PathBuf};

use crate::domain::modes::Placement;
use crate::fsio::{self, limited};
use crate::rewrite::capture::{self, RUNTIME_VERSION};

/// Runtime files larger than this are not ours.
pub(crate) const SIZE_LIMIT: u64 = 1 << 20;

/// Where the runtime for `script` lies, and its path relative to the script's real folder (the
/// source line resolves the script's real path, so symlinked folders and links to the script
/// lead to the same place). `named` are the paths named on the command line, which place the
/// project root outside git.
pub fn location(
    script: &Path,
    named: &[PathBuf],
    placement: Placement,
    file_name: &str,
) -> (PathBuf, String) {
    let real = fsio::canonical(script);
    let folder = real.parent().unwrap_or(&real).to_path_buf();
    let root = fsio::canonical(&fsio::file_root(script, named));
    let (base, down) = match placement {
        Placement::Project | Placement::File => (root, ""),
        Placement::Skill | Placement::Inline => {
            let skill = fsio::skill_folder(&real, &root);
            // Builds that copy a skill's SKILL.md and scripts/ (and not the rest) keep it there.
            let scripts = std::fs::symlink_metadata(skill.join(SCRIPTS))
                .is_ok_and(|m| m.is_dir() && fsio::is_skill_folder(&skill));
            match (scripts, folder.starts_with(skill.join(SCRIPTS))) {
                (true, true) => (skill.join(SCRIPTS), ""),
                (true, false) => (skill, "scripts/"),
                (false, _) => (skill, ""),
            }
        }
    };
    let depth = folder
        .strip_prefix(&base)
        .map_or(0, |p| p.components().count());
    let relative = format!("{}{down}{file_name}", "../".repeat(depth));
    (base.join(down).join(file_name), relative)
}

/// The folder of a skill's scripts (the Agent Skills layout), where the skill's runtime goes
/// when the skill has one.
const SCRIPTS: &str = "scripts";

/// The folder holding the runtime file `at` as `location` places it: the skill folder, above
/// its `scripts/` when the runtime lies there.
pub(crate) fn skill_holding(at: &Path) -> &Path {
    let folder = at.parent().unwrap_or(at);
    match folder.parent() {
        Some(skill) if folder.ends_with(SCRIPTS) && fsio::is_skill_folder(skill) => skill,
        _ => folder,
    }
}

/// The runtime file a migrated script's source line names, resolved from the script's folder.
pub(crate) fn named_by(script: &Path, relative: &str) -> PathBuf {
    let real = fsio::canonical(script);
    let mut path = real.parent().unwrap_or(&real).to_path_buf();
    for part in relative.split('/') {
        match part {
            ".." => {
                path.pop();
            }
            "." | "" => {}
            name => path.push(name),
        }
    }
    path
}

/// What the state of a runtime file on disk is, for `check` and `migrate` alike. Only bytes that
/// are a known runtime count as skillmod's: the version line alone proves nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    Missing,
    /// A released runtime older than this skillmod's, byte for byte.
    Older(u32),
    Current,
    /// Not a runtime skillmod wrote: edited, planted, of an unknown version, or not a regular
    /// file; with the version its first line declares, if any.
    Foreign(Option<u32>),
}

/// The state of the runtime file at `path` (read without following a symlink).
pub fn state(path: &Path) -> State {
    if std::fs::symlink_metadata(path).is_err() {
        return State::Missing;
    }
    match limited::read(path, SIZE_LIMIT, false) {
        Err(_) => State::Foreign(None),
        Ok(bytes) => state_of(&bytes),
    }
}

/// The state of runtime bytes.
pub fn state_of(bytes: &[u8]) -> State {
    match crate::analyze::runtime_link::known_version(bytes) {
        Some(v) if v == RUNTIME_VERSION => State::Current,
        Some(v) if v < RUNTIME_VERSION => State::Older(v),
        _ => State::Foreign(capture::version_of(bytes)),
    }
}

/// `state` remembered per runtime file for one run: every script of a skill sources the same
/// file, so it is read once, not once per script. With `--staged` the runtime is read from git's
/// index, as the commit will hold it (a runtime left out of the commit is missing there).
#[derive(Debug, Default)]
pub struct States {
    known: std::sync::Mutex<std::collections::HashMap<PathBuf, State>>,
    index: Option<crate::vcs::Repo>,
    /// The work tree check runs in, and (read once, when first asked) the files its index holds.
    repo: Option<crate::vcs::Repo>,
    indexed: std::sync::OnceLock<std::collections::HashSet<PathBuf>>,
}

impl States {
    /// States read from `repo`'s index.
    pub fn from_index(repo: crate::vcs::Repo) -> States {
        States {
            index: Some(repo),
            ..States::default()
        }
    }

    /// States read from disk, in the work tree of `repo`, whose commits must hold the runtimes.
    pub fn in_work_tree(repo: crate::vcs::Repo) -> States {
        States {
            repo: Some(repo),
            ..States::default()
        }
    }

    /// Whether `path`, on disk in the work tree, is left out of git's index (untracked, or only
    /// intent-to-add), so a commit would leave it out.
    pub fn uncommitted(&self, path: &Path) -> bool {
        let Some(repo) = &self.repo else {
            return false;
        };
        // `path` is already real: `named_by` builds it from the script's real folder.
        if !path.starts_with(&repo.root) {
            return false;
        }
        let indexed = self
            .indexed
            .get_or_init(|| repo.indexed().unwrap_or_default());
        // Unreadable index: nothing is claimed.
        !indexed.is_empty() && !indexed.contains(path)
    }

    /// Whether states come from the index (`--staged`).
    pub fn staged(&self) -> bool {
        self.index.is_some()
    }

    pub fn state(&self, path: &Path) -> State {
        if let Some(known) = self.known.lock().ok().and_then(|m| m.get(path).cloned()) {
            return known;
        }
        let found = match &self.index {
            None => state(path),
            Some(repo) => match repo.index_contents(&[path.to_path_buf()]) {
                // An intent-to-add entry (what migrate marks) is staged as the empty blob.
                Ok(mut contents) => contents
                    .remove(path)
                    .filter(|bytes| !bytes.is_empty())
                    .map_or(State::Missing, |bytes| state_of(&bytes)),
                Err(_) => state(path),
            },
        };
        if let Ok(mut known) = self.known.lock() {
            known.insert(path.to_path_buf(), found.clone());
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skills_runtime_goes_in_its_real_scripts_folder() {
        let tmp = tempfile::tempdir().expect("tmp");
        let root = fsio::canonical(tmp.path());
        let skill = root.join("skill");
        std::fs::create_dir_all(skill.join("scripts/deep")).expect("mkdir");
        std::fs::write(skill.join("SKILL.md"), "---\nname: s\n---\n").expect("skill");
        let named = [root.clone()];
        let at = |script: &str| {
            let path = skill.join(script);
            std::fs::write(&path, "#!/bin/sh\n").expect("script");
            location(&path, &named, Placement::Skill, "skillmod-runtime.sh")
        };
        let runtime = skill.join("scripts/skillmod-runtime.sh");
        assert_eq!(
            at("run.sh"),
            (runtime.clone(), "scripts/skillmod-runtime.sh".into())
        );
        assert_eq!(
            at("scripts/a.sh"),
            (runtime.clone(), "skillmod-runtime.sh".into())
        );
        assert_eq!(
            at("scripts/deep/b.sh"),
            (runtime, "../skillmod-runtime.sh".into())
        );
        // A scripts/ that is a symlink (it may lead anywhere) is not the skill's folder.
        let other = root.join("other");
        std::fs::create_dir_all(other.join("elsewhere")).expect("mkdir");
        std::fs::write(other.join("SKILL.md"), "---\nname: o\n---\n").expect("skill");
        std::os::unix::fs::symlink(other.join("elsewhere"), other.join("scripts")).expect("link");
        let script = other.join("run.sh");
        std::fs::write(&script, "#!/bin/sh\n").expect("script");
        assert_eq!(
            location(&script, &named, Placement::Skill, "skillmod-runtime.sh"),
            (
                other.join("skillmod-runtime.sh"),
                "skillmod-runtime.sh".into()
            )
        );
        // The project placement ignores scripts/.
        let path = skill.join("scripts/a.sh");
        assert_eq!(
            location(&path, &named, Placement::Project, "skillmod-runtime.sh").1,
            "../../skillmod-runtime.sh"
        );
    }
}
