//! Which selected scripts source which (`. FILE`, `source FILE`). A script sourced by another
//! selected script is a library: capture mode gives it no runtime and no EXIT trap of its own,
//! since those would replace the sourcing script's. A script that sources a library holding
//! legacy lines gets the runtime even without legacy lines of its own, so the library's values
//! reach a JSON document. The paths are read off each line, as far as they are literal: a leading
//! expansion (`"$DIR/lib.sh"`, `"$(dirname "$0")/lib.sh"`) is taken as the script's own folder.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::analyze::{Vocabulary, prefilter};

/// What the pre-pass found among the selected files (canonical paths).
#[derive(Debug, Default, Clone)]
pub struct Sourcing {
    libraries: HashSet<PathBuf>,
    /// Scripts sourcing a library that may hold legacy lines: whether one holds a SUCCESS or
    /// COMPLETE marker (then the script must reach one to report success).
    hosts: HashMap<PathBuf, bool>,
}

impl Sourcing {
    /// Read every selected file once (up to `max_size` bytes) and link sourcing scripts to the
    /// selected files they source.
    pub fn scan(files: &[PathBuf], max_size: u64, vocabulary: Vocabulary) -> Sourcing {
        let canonical: HashSet<PathBuf> =
            files.iter().filter_map(|f| f.canonicalize().ok()).collect();
        let mut sourcing = Sourcing::default();
        let mut legacy_of: HashMap<PathBuf, Option<bool>> = HashMap::new();
        for path in &canonical {
            let Some(bytes) = read_small(path, max_size) else {
                continue;
            };
            let dir = path.parent().unwrap_or(Path::new("."));
            for target in sourced_paths(&bytes) {
                let Ok(library) = dir.join(&target).canonicalize() else {
                    continue;
                };
                if library == *path || !canonical.contains(&library) {
                    continue;
                }
                let legacy = *legacy_of.entry(library.clone()).or_insert_with(|| {
                    read_small(&library, max_size).and_then(|b| legacy_in(&b, vocabulary))
                });
                sourcing.libraries.insert(library);
                if let Some(success) = legacy {
                    let entry = sourcing.hosts.entry(path.clone()).or_default();
                    *entry |= success;
                }
            }
        }
        sourcing
    }

    /// True when another selected script sources `path`.
    pub fn is_library(&self, path: &Path) -> bool {
        !self.libraries.is_empty()
            && path
                .canonicalize()
                .is_ok_and(|c| self.libraries.contains(&c))
    }

    /// For a script that sources a library with legacy lines: whether that library holds a
    /// SUCCESS/COMPLETE marker. None for any other script.
    pub fn hosts_library(&self, path: &Path) -> Option<bool> {
        if self.hosts.is_empty() {
            return None;
        }
        path.canonicalize()
            .ok()
            .and_then(|c| self.hosts.get(&c).copied())
    }
}

fn read_small(path: &Path, max_size: u64) -> Option<Vec<u8>> {
    let meta = std::fs::metadata(path).ok()?;
    (meta.is_file() && meta.len() <= max_size)
        .then(|| std::fs::read(path).ok())
        .flatten()
}

/// None when the file cannot hold a legacy line; else whether it may hold a success marker.
fn legacy_in(bytes: &[u8], vocabulary: Vocabulary) -> Option<bool> {
    prefilter::may_hold_legacy(bytes, vocabulary).then(|| vocabulary.mentions_success(bytes))
}

/// The paths named by `source`/`.` commands that start a statement (after blanks, or after
/// `then`, `do`, `else`, `&&`, `||` or `;`), relative to the sourcing script's folder.
fn sourced_paths(bytes: &[u8]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        let line = String::from_utf8_lossy(line);
        let line = line.split(" #").next().unwrap_or("");
        for statement in line.split([';', '&', '|']) {
            let statement = statement.trim_start();
            let statement = ["then ", "do ", "else "]
                .iter()
                .find_map(|w| statement.strip_prefix(w))
                .unwrap_or(statement)
                .trim_start();
            let argument = ["source ", ". ", "source\t", ".\t"]
                .iter()
                .find_map(|w| statement.strip_prefix(w));
            if let Some(argument) = argument {
                out.extend(literal_tail(argument.trim()));
            }
        }
    }
    out
}

/// The literal part of a path argument: a leading expansion (`$DIR`, `${DIR}`, `$(…)`) dropped,
/// as it names the script's folder by convention, then quotes removed, up to the first blank.
/// None when nothing literal is left.
fn literal_tail(argument: &str) -> Option<PathBuf> {
    let unquoted: String = argument
        .chars()
        .filter(|c| !matches!(c, '"' | '\''))
        .collect();
    let (expanded, tail) = match unquoted.rfind(['}', ')']) {
        Some(i) => (true, &unquoted[i + 1..]),
        None if unquoted.starts_with('$') => {
            let name_end = unquoted[1..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(unquoted.len(), |i| i + 1);
            (true, &unquoted[name_end..])
        }
        None => (false, unquoted.as_str()),
    };
    let tail = tail.split_whitespace().next().unwrap_or("");
    if tail.contains('$') || tail.is_empty() {
        return None;
    }
    Some(PathBuf::from(if expanded {
        tail.trim_start_matches('/')
    } else {
        tail
    }))
    .filter(|p| !p.as_os_str().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sourced_paths_are_read_from_common_forms() {
        let script = b"#!/bin/bash\nsource \"$SCRIPT_DIR/lib/common.sh\"\n. ./helpers.sh\n[ -f x ] && . \"$(dirname \"$0\")/util.sh\"\nsource ${HERE}/more.sh # c\necho source me\n";
        assert_eq!(
            sourced_paths(script),
            vec![
                PathBuf::from("lib/common.sh"),
                PathBuf::from("./helpers.sh"),
                PathBuf::from("util.sh"),
                PathBuf::from("more.sh"),
            ]
        );
    }
}
