//! Which selected scripts another runs and takes the stdout of: a script of the same skill
//! folder run inside a command substitution or at the head of a pipe (`files=$(bash
//! "$DIR/list.sh" | sed …)`, `TYPE=$(./detect.sh)`), whose stdout is its answer to that caller
//! (migrated, it would hand the caller a JSON document instead: `STDOUT_ANSWER`), or run plainly
//! (`bash "$DIR/scripts/gen.sh"`), whose stdout is part of the caller's (migrated, it would put a
//! document of its own into the caller's output: `PASSED_ON`). The verdict refuses both.
//! Only skill folders with two selected scripts or more are read, and of those only a script
//! whose text names another's file: most runs parse nothing here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::analyze::BashParser;

use super::sourcing::{FileId, id_of, literal_tail};

/// How a caller takes a script's stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Takes {
    /// In a command substitution or at the head of a pipe: the stdout is an answer it reads.
    Reads,
    /// Run plainly: the stdout passes on into the caller's own.
    PassesOn,
}

/// The selected scripts another selected script takes the stdout of.
#[derive(Debug, Default)]
pub struct Callers {
    /// Each such script, and the first caller (reading ones first, then in path order) with the
    /// line that runs it.
    read: HashMap<FileId, (Takes, PathBuf, usize)>,
}

impl Callers {
    /// Read the scripts of each skill folder that holds two or more (up to `max_size` bytes each).
    pub fn scan(files: &[PathBuf], max_size: u64) -> Callers {
        let units = units(files);
        let mut callers = Callers::default();
        let mut parser = None;
        for scripts in &units {
            for caller in scripts {
                let Ok(bytes) = crate::fsio::limited::read(caller, max_size, false) else {
                    continue;
                };
                let named = scripts.iter().any(|other| {
                    other != caller
                        && other.file_name().is_some_and(|name| {
                            memchr::memmem::find(&bytes, name.as_encoded_bytes()).is_some()
                        })
                });
                if !named {
                    continue;
                }
                if parser.is_none() {
                    parser = BashParser::new().ok();
                }
                let Some(tree) = parser.as_mut().and_then(|p| p.parse(&bytes).ok()) else {
                    continue;
                };
                let dir = caller.parent().unwrap_or(Path::new("."));
                for (line, target, takes) in reads_of(tree.root_node(), &bytes) {
                    if let Some(id) = id_of(&dir.join(&target)) {
                        let first = (takes, caller.to_path_buf(), line);
                        match callers.read.get(&id) {
                            Some(known) if known <= &first => {}
                            _ => {
                                callers.read.insert(id, first);
                            }
                        }
                    }
                }
            }
        }
        callers
    }

    /// The caller that takes `path`'s stdout, the line where it does and how, if one does.
    pub fn read_by(&self, path: &Path) -> Option<(&Path, usize, Takes)> {
        if self.read.is_empty() {
            return None;
        }
        let (takes, caller, line) = self.read.get(&id_of(path)?)?;
        Some((caller.as_path(), *line, *takes))
    }
}

/// The selected files in groups that may share a skill folder, each of two or more. A skill
/// folder holding two of them is at or above the folder of both, so only the folders that hold
/// two files and the common ancestors of neighbouring folders (in sorted order) are looked up:
/// a tree of one-script skills costs a look for SKILL.md above each such ancestor, not one per
/// script. The grouping only bounds the work (a caller in another skill reads the stdout all
/// the same).
fn units(files: &[PathBuf]) -> Vec<Vec<&PathBuf>> {
    let folder = |f: &PathBuf| f.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut folders: Vec<PathBuf> = files.iter().map(folder).collect();
    folders.sort();
    let mut meeting = std::collections::BTreeSet::new();
    for pair in folders.windows(2) {
        let common: PathBuf = pair[0]
            .components()
            .zip(pair[1].components())
            .take_while(|(a, b)| a == b)
            .map(|(a, _)| a)
            .collect();
        meeting.insert(common);
    }
    // Folders holding two files are a unit, unless a skill folder encloses them: the skill is.
    let mut skills: Vec<PathBuf> = meeting
        .iter()
        .filter_map(|m| crate::fsio::enclosing_skill(m))
        .collect();
    skills.sort();
    skills.dedup();
    let folders_of_two: Vec<PathBuf> = folders
        .windows(2)
        .filter(|pair| pair[0] == pair[1])
        .map(|pair| pair[0].clone())
        .collect();
    let deepest = |roots: &[PathBuf], own: &Path| -> Option<PathBuf> {
        roots
            .iter()
            .filter(|root| own.starts_with(root))
            .max_by_key(|root| root.components().count())
            .cloned()
    };
    let mut grouped: HashMap<PathBuf, Vec<&PathBuf>> = HashMap::new();
    for file in files {
        let own = file.parent().unwrap_or(Path::new("."));
        if let Some(root) = deepest(&skills, own).or_else(|| deepest(&folders_of_two, own)) {
            grouped.entry(root).or_default().push(file);
        }
    }
    grouped.into_values().filter(|g| g.len() > 1).collect()
}

/// The scripts a file runs, by the path it names them with (as far as it is literal), with the
/// line and how it takes their stdout: commands that are `bash|sh|dash PATH` or a path themselves,
/// in a command or process substitution or in a pipeline's part other than the last (read), or
/// elsewhere with their stdout left alone (passed on).
fn reads_of(root: tree_sitter::Node<'_>, bytes: &[u8]) -> Vec<(usize, PathBuf, Takes)> {
    let mut found = Vec::new();
    // (node, inside a substitution or an earlier part of a pipe)
    let mut stack = vec![(root, false)];
    let mut cursor = root.walk();
    while let Some((node, reading)) = stack.pop() {
        // A script run, then how its stdout is taken (a parent is found from the root: asked
        // of script runs only).
        if node.kind() == "command"
            && let Some(path) = script_run(node, bytes)
        {
            let takes = if reading {
                Some(Takes::Reads)
            } else {
                let whole = node
                    .parent()
                    .filter(|p| p.kind() == "redirected_statement")
                    .unwrap_or(node);
                (!crate::analyze::redirects::redirects_stdout(whole, bytes)
                    && (whole == node || !crate::analyze::redirects::redirects_stdout(node, bytes)))
                .then_some(Takes::PassesOn)
            };
            if let Some(takes) = takes {
                found.push((node.start_position().row + 1, path, takes));
            }
        }
        let kind = node.kind();
        let substitution = matches!(kind, "command_substitution" | "process_substitution");
        let last = (kind == "pipeline")
            .then(|| node.named_child(node.named_child_count().saturating_sub(1) as u32))
            .flatten()
            .map(|n| n.id());
        for child in node.children(&mut cursor) {
            let piped = last.is_some_and(|last| child.is_named() && child.id() != last);
            stack.push((child, reading || substitution || piped));
        }
    }
    found
}

/// The script a command runs: `bash|sh|dash PATH …` or `PATH …`, the path as far as literal,
/// also behind a command that runs another (`timeout 5 …`, `env X=1 …`, `command …`).
fn script_run(command: tree_sitter::Node<'_>, bytes: &[u8]) -> Option<PathBuf> {
    let text =
        |n: tree_sitter::Node<'_>| String::from_utf8_lossy(&bytes[n.byte_range()]).into_owned();
    let mut cursor = command.walk();
    let mut words: Vec<String> = std::iter::once(command.child_by_field_name("name")?)
        .chain(command.children_by_field_name("argument", &mut cursor))
        .map(text)
        .collect();
    // Drop the runners in front, with their options (and timeout's duration, env's settings).
    loop {
        let runner = words.first()?.clone();
        if !matches!(
            runner.as_str(),
            "timeout" | "env" | "command" | "exec" | "nice" | "nohup" | "stdbuf" | "time"
        ) {
            break;
        }
        words.remove(0);
        while let Some(word) = words
            .first()
            .filter(|w| w.starts_with('-') || (runner == "env" && w.contains('=')))
            .cloned()
        {
            words.remove(0);
            // An option given its value in the next word (`timeout -k 1`, `nice -n 5`).
            if matches!(word.as_str(), "-k" | "-s" | "-n" | "-u") && !words.is_empty() {
                words.remove(0);
            }
        }
        if runner == "timeout" && !words.is_empty() {
            words.remove(0);
        }
    }
    let first = words.first()?;
    let word = if matches!(first.as_str(), "bash" | "sh" | "dash") {
        words.iter().skip(1).find(|a| !a.starts_with('-'))?.clone()
    } else if first.contains('/') {
        first.clone()
    } else {
        return None;
    };
    literal_tail(word.trim())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(script: &str) -> Vec<PathBuf> {
        let mut parser = BashParser::new().expect("parser");
        let tree = parser.parse(script.as_bytes()).expect("parse");
        reads_of(tree.root_node(), script.as_bytes())
            .into_iter()
            .filter(|(_, _, takes)| *takes == Takes::Reads)
            .map(|(_, p, _)| p)
            .collect()
    }

    #[test]
    fn a_substitution_or_the_head_of_a_pipe_reads_the_scripts_stdout() {
        assert_eq!(
            reads("files=$(bash \"$DIR/list.sh\" | sed -n p)\n"),
            [PathBuf::from("list.sh")]
        );
        assert_eq!(
            reads("T=$(./detect.sh --json)\n"),
            [PathBuf::from("./detect.sh")]
        );
        assert_eq!(
            reads("sh \"$(dirname \"$0\")/gen.sh\" | wc -l\n"),
            [PathBuf::from("gen.sh")]
        );
        // Behind a command that runs another (retrial).
        assert_eq!(
            reads("a=$(timeout -k 1 5 bash \"$DIR/x.sh\")\nb=$(env -i X=1 nohup ./y.sh)\n"),
            [PathBuf::from("./y.sh"), PathBuf::from("x.sh")]
        );
        // Run for its effect, or last in a pipe: its stdout is the caller's own.
        assert!(reads("bash \"$DIR/list.sh\"\nprintf x | bash \"$DIR/fmt.sh\"\n").is_empty());
    }
}
