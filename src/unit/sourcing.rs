//! Which selected scripts source which (`. FILE`, `source FILE`). A script sourced by another
//! selected script is a library: capture mode gives it no runtime and no EXIT trap of its own,
//! since those would replace the sourcing script's. A script that sources a library holding
//! legacy lines gets the runtime even without legacy lines of its own, so the library's values
//! reach a JSON document. Both are read from the syntax tree, as check reads them: the paths are
//! the first arguments of `source`/`.` commands, as far as they are literal (a leading expansion,
//! `"$DIR/lib.sh"` or `"$(dirname "$0")/lib.sh"`, is taken as the script's own folder, else a
//! folder above it: `fsio::sourced_file`), and a library holds legacy lines when the analyzer
//! finds some that its suppressions leave (a log helper printing `[SUCCESS] $1` holds none).
//! check asks the same question (`Deferred`) of a script with no shebang only: one no selected
//! script sources is neither role (`NO_SHEBANG`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::analyze::{BashParser, LegacyKind, Vocabulary, prefilter, suppress::Suppressions};

/// What names one file however it is reached: device and inode (its canonical path elsewhere).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct FileId(#[cfg(unix)] (u64, u64), #[cfg(not(unix))] PathBuf);

#[cfg(unix)]
fn file_id(_path: &Path, meta: &std::fs::Metadata) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    Some(FileId((meta.dev(), meta.ino())))
}

#[cfg(not(unix))]
fn file_id(path: &Path, _meta: &std::fs::Metadata) -> Option<FileId> {
    path.canonicalize().ok().map(FileId)
}

/// The identity of the file at `path` (symlinks followed), if it exists.
pub(super) fn id_of(path: &Path) -> Option<FileId> {
    file_id(path, &std::fs::metadata(path).ok()?)
}

/// What the pre-pass found among the selected files.
#[derive(Debug, Default, Clone)]
pub struct Sourcing {
    /// Each library, and the first selected script (in path order) that sources it.
    libraries: HashMap<FileId, PathBuf>,
    /// Scripts sourcing a library that holds legacy lines, and what they source.
    hosts: HashMap<FileId, Hosted>,
}

/// What a script sourcing libraries with legacy lines needs to know of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hosted {
    /// One of them holds a SUCCESS or COMPLETE line (then the script must reach one to report
    /// success).
    pub success: bool,
    /// Their paths as the script names them, for the report.
    pub libraries: Vec<PathBuf>,
}

/// One selected file as the pre-pass read it.
struct Scanned {
    id: FileId,
    path: PathBuf,
    /// The files it sources that exist (and their paths), and whether each holds legacy lines
    /// (`None`: it holds none; else whether it holds a success line).
    sourced: Vec<(FileId, PathBuf, Option<bool>)>,
}

impl Sourcing {
    /// Read every selected file once (up to `max_size` bytes, on all cores) and link sourcing
    /// scripts to the selected files they source.
    /// `vocabulary` gives the vocabulary of each library (its own settings'); a library
    /// `left_alone` says migrate refuses whatever it holds (another selected script reads its
    /// stdout) records nothing, so the scripts sourcing it host nothing of it.
    pub fn scan(
        files: &[PathBuf],
        max_size: u64,
        vocabulary: &(dyn Fn(&Path) -> Vocabulary + Sync),
        left_alone: &dyn Fn(&Path) -> bool,
    ) -> Sourcing {
        Sourcing::scan_with(files, max_size, Some(vocabulary), left_alone)
    }

    /// `scan` without reading the libraries: which selected files are libraries, and nothing of
    /// what they hold (check's question).
    pub fn libraries(files: &[PathBuf], max_size: u64) -> Sourcing {
        Sourcing::scan_with(files, max_size, None, &|_| false)
    }

    fn scan_with(
        files: &[PathBuf],
        max_size: u64,
        vocabulary: Option<&(dyn Fn(&Path) -> Vocabulary + Sync)>,
        left_alone: &dyn Fn(&Path) -> bool,
    ) -> Sourcing {
        // A library sourced by many scripts is read once.
        let libraries = std::sync::Mutex::new(HashMap::new());
        let scanned: Vec<Scanned> = crate::parallel::map(files, |path| {
            scan_one(path, max_size, vocabulary, &libraries)
        })
        .into_iter()
        .flatten()
        .collect();
        let mut sourcing = Sourcing::default();
        if scanned.iter().all(|s| s.sourced.is_empty()) {
            return sourcing;
        }
        let by_id: HashMap<&FileId, &Scanned> = scanned.iter().map(|s| (&s.id, s)).collect();
        // Every selected file, read or not (one over `max_size` is still a library, unjudged).
        let selected: HashSet<FileId> = files.iter().filter_map(|f| id_of(f)).collect();
        for script in &scanned {
            for (library, _, _) in &script.sourced {
                if *library != script.id && selected.contains(library) {
                    sourcing
                        .libraries
                        .entry(library.clone())
                        .or_insert_with(|| script.path.clone());
                }
            }
            // What it sources and what those source in turn (`a.inc` sourcing `b.inc`): all of
            // it runs in the script's shell.
            let mut reached = HashSet::from([&script.id]);
            let mut next: Vec<&Scanned> = vec![script];
            while let Some(file) = next.pop() {
                for (library, path, legacy) in &file.sourced {
                    let Some(scanned) = by_id.get(library).filter(|_| reached.insert(library))
                    else {
                        continue;
                    };
                    next.push(scanned);
                    if let Some(success) = legacy.filter(|_| !left_alone(path)) {
                        let entry = sourcing.hosts.entry(script.id.clone()).or_default();
                        entry.success |= success;
                        entry.libraries.push(path.clone());
                    }
                }
            }
        }
        sourcing
    }

    /// True when another selected script sources `path`.
    pub fn is_library(&self, path: &Path) -> bool {
        self.sourced_by(path).is_some()
    }

    /// The first selected script (in path order) that sources `path`, if one does.
    pub fn sourced_by(&self, path: &Path) -> Option<&Path> {
        if self.libraries.is_empty() {
            return None;
        }
        id_of(path).and_then(|id| self.libraries.get(&id).map(PathBuf::as_path))
    }

    /// For a script that sources libraries with legacy lines: what it needs to know of them.
    /// None for any other script.
    pub fn hosts_library(&self, path: &Path) -> Option<&Hosted> {
        if self.hosts.is_empty() {
            return None;
        }
        id_of(path).and_then(|id| self.hosts.get(&id))
    }
}

/// Which selected files are libraries, read the first time someone asks: check asks only about
/// a script with legacy lines and no shebang, so most runs never read it.
#[derive(Debug, Default)]
pub struct Deferred {
    files: Vec<PathBuf>,
    max_size: u64,
    found: std::sync::OnceLock<Sourcing>,
    callers: std::sync::OnceLock<super::callers::Callers>,
}

impl Deferred {
    /// `files` are the selected files, read (up to `max_size` bytes each) at the first question.
    pub fn new(files: Vec<PathBuf>, max_size: u64) -> Deferred {
        Deferred {
            files,
            max_size,
            found: std::sync::OnceLock::new(),
            callers: std::sync::OnceLock::new(),
        }
    }

    fn sourcing(&self) -> &Sourcing {
        self.found
            .get_or_init(|| Sourcing::libraries(&self.files, self.max_size))
    }

    /// True when another selected script sources `path`.
    pub fn is_library(&self, path: &Path) -> bool {
        self.sourcing().is_library(path)
    }

    /// The selected script that sources `path`, if one does, through the libraries between
    /// (`execute.sh` for `b.inc` that `a.inc` sources): the first (in path order) at each step,
    /// up to one no selected script sources, which is the one migrate gives the runtime.
    pub fn sourced_by(&self, path: &Path) -> Option<&Path> {
        let sourcing = self.sourcing();
        let mut host = sourcing.sourced_by(path)?;
        let mut seen = HashSet::from([id_of(path)]);
        while let Some(up) = sourcing.sourced_by(host) {
            if !seen.insert(id_of(host)) {
                break;
            }
            host = up;
        }
        Some(host)
    }

    /// The selected script that reads `path`'s stdout, and the line (`Callers::read_by`).
    pub fn read_by(&self, path: &Path) -> Option<(&Path, usize, super::callers::Takes)> {
        self.callers
            .get_or_init(|| super::callers::Callers::scan(&self.files, self.max_size))
            .read_by(path)
    }
}

/// Read one selected file: its identity and what it sources (and, given a `vocabulary`, whether
/// each library holds legacy lines). None when it is not a file that could be migrated.
fn scan_one(
    path: &Path,
    max_size: u64,
    vocabulary: Option<&(dyn Fn(&Path) -> Vocabulary + Sync)>,
    libraries: &std::sync::Mutex<HashMap<FileId, Option<bool>>>,
) -> Option<Scanned> {
    let meta = std::fs::metadata(path).ok()?;
    let id = file_id(path, &meta)?;
    let bytes = read_small(path, &meta, max_size)?;
    let sourced = sourced_paths(&bytes)
        .into_iter()
        .filter_map(|target| {
            let library = crate::fsio::sourced_file(path, &target)?;
            let meta = std::fs::metadata(&library).ok()?;
            let id = file_id(&library, &meta)?;
            let Some(vocabulary) = vocabulary else {
                return Some((id, library, None));
            };
            let known = libraries.lock().ok()?.get(&id).copied();
            let legacy = known.unwrap_or_else(|| {
                let legacy = read_small(&library, &meta, max_size)
                    .and_then(|b| legacy_in(&b, vocabulary(&library)));
                if let Ok(mut libraries) = libraries.lock() {
                    libraries.insert(id.clone(), legacy);
                }
                legacy
            });
            Some((id, library, legacy))
        })
        .collect();
    Some(Scanned {
        id,
        path: path.to_path_buf(),
        sourced,
    })
}

/// The files the selected scripts source that are not selected themselves and may hold legacy
/// lines (`lib/common.sh` beside `skills/`): regular files inside the sourcing script's project
/// root (found from the `named` paths, as migrate finds it), or symlinks to one there, and the
/// files those source in turn. Selected too, they are libraries as any other, so a result a skill
/// prints through one is found and recorded (the walk alone selects only shell scripts in skill
/// folders). `sources_of` gives the paths a file sources (`sourced_targets`, or check's cache).
pub fn unselected_libraries(
    files: &[PathBuf],
    named: &[PathBuf],
    max_size: u64,
    sources_of: &(dyn Fn(&Path) -> Vec<PathBuf> + Sync),
) -> Vec<PathBuf> {
    // The selected files' identities, found once and only if some file sources another.
    let selected: std::sync::OnceLock<HashSet<FileId>> = std::sync::OnceLock::new();
    let mut seen = HashSet::new();
    let mut taken = Vec::new();
    let mut round = files.to_vec();
    // A library that a library sources (`a.inc` sourcing `b.inc`) is taken too, round by round:
    // each file once, so a cycle or a long chain ends.
    loop {
        let found = crate::parallel::map(&round, |path| {
            let sourced = sources_of(path);
            if sourced.is_empty() {
                return Vec::new();
            }
            let root = crate::fsio::canonical(&crate::fsio::file_root(path, named));
            sourced
                .into_iter()
                .filter_map(|target| crate::fsio::sourced_file(path, &target))
                .filter(|library| {
                    // A file taken in an earlier round is not read again (libraries that all
                    // source each other: hostile review hx25), nor is a selected one.
                    let Some(id) = id_of(library) else {
                        return false;
                    };
                    let selected =
                        selected.get_or_init(|| files.iter().filter_map(|f| id_of(f)).collect());
                    !seen.contains(&id)
                        && !selected.contains(&id)
                        // A link is followed to a file inside the project root, never out of it.
                        && std::fs::metadata(library).is_ok_and(|m| m.is_file())
                        && crate::fsio::canonical(library).starts_with(&root)
                        // One that cannot be read (over `max_size`, say) is taken too: the
                        // check says it could not judge it, instead of nothing.
                        && crate::fsio::limited::read(library, max_size, false).map_or(true, |b| {
                            prefilter::may_hold_legacy(&b, Vocabulary::Original)
                                || !sources_of(library).is_empty()
                        })
                })
                .collect::<Vec<_>>()
        });
        round = found
            .into_iter()
            .flatten()
            .filter(|library| id_of(library).is_some_and(|id| seen.insert(id)))
            .collect();
        if round.is_empty() {
            break;
        }
        taken.extend(round.iter().cloned());
    }
    // Named by its real path, relative to the working folder where it lies under it (not as
    // `scripts/../../lib/x.sh`).
    let here = crate::fsio::working_dir()
        .map(|d| crate::fsio::canonical(&d))
        .ok();
    taken
        .into_iter()
        .map(|library| {
            let real = crate::fsio::canonical(&library);
            match here.as_ref().and_then(|h| real.strip_prefix(h).ok()) {
                Some(relative) => relative.to_path_buf(),
                None => real,
            }
        })
        .collect()
}

/// For a script that hosts libraries with legacy lines: the functions every file it sources
/// defines, down the chain (`main` in an `app.sh` that sources the `report.sh` printing the lines:
/// hostile review hx28), each file read and parsed once (up to `max_size` bytes, at most
/// `MAX_LIBRARIES`). `sourced` is what the script itself sources (`sourced_in` its tree). The
/// names through which a call of the script may reach their result lines.
pub fn hosted_functions(
    path: &Path,
    sourced: Vec<(usize, PathBuf)>,
    max_size: u64,
) -> HashSet<Vec<u8>> {
    const MAX_LIBRARIES: usize = 256;
    let mut names = HashSet::new();
    let Ok(mut parser) = BashParser::new() else {
        return names;
    };
    let mut seen = HashSet::from([id_of(path)]);
    let mut next = vec![(path.to_path_buf(), sourced)];
    while let Some((file, sourced)) = next.pop() {
        for (_, target) in sourced {
            let Some(library) = crate::fsio::sourced_file(&file, &target) else {
                continue;
            };
            if seen.len() > MAX_LIBRARIES || !seen.insert(id_of(&library)) {
                continue;
            }
            let Ok(bytes) = crate::fsio::limited::read(&library, max_size, false) else {
                continue;
            };
            let Ok(tree) = parser.parse(&bytes) else {
                continue;
            };
            names.extend(crate::analyze::defined_functions(&tree, &bytes));
            next.push((library, sourced_in(&tree, &bytes)));
        }
    }
    names
}

/// The paths the script at `path` sources (read up to `max_size` bytes; none when unreadable).
pub fn sourced_targets(path: &Path, max_size: u64) -> Vec<PathBuf> {
    crate::fsio::limited::read(path, max_size, false)
        .map(|bytes| sourced_paths(&bytes))
        .unwrap_or_default()
}

/// The helpers the files a script sources define, when its analysis met a call of a command it
/// does not define whose arguments carry a result line (SKM010's `Call` form): each file its
/// `source`/`.` commands name with a literal path, read from the script's folder (bounded; a
/// file that cannot be read gives nothing). Empty when there is no such call.
pub fn imported_helpers(
    path: &Path,
    analysis: &crate::analyze::Analysis,
    body: &[u8],
    vocabulary: Vocabulary,
    max_size: u64,
) -> crate::analyze::helpers::Definitions {
    use crate::analyze::out_of_reach::Form;
    let mut found = crate::analyze::helpers::Definitions::new();
    if !analysis.out_of_reach.iter().any(|p| p.form == Form::Call) {
        return found;
    }
    let Ok(mut parser) = BashParser::new() else {
        return found;
    };
    for bytes in sourced_bytes(path, analysis, body, max_size) {
        if let Ok(definitions) = crate::analyze::helper_definitions(&mut parser, &bytes, vocabulary)
        {
            // The last file sourced that defines a name wins, as in bash.
            found.extend(definitions);
        }
    }
    found
}

/// Capture mode's `NAME_CLASH` for a file `script` sources (`sourced`, as `sourced_in` lists
/// them) that defines a function under a name the runtime runs (`test`, `printf`…): it would
/// replace the runtime's command in the script's shell as surely as one the script defines.
/// Read on every run (a cached verdict does not see the library change).
pub fn shadowing_library(
    script: &Path,
    sourced: &[(usize, PathBuf)],
    max_size: u64,
) -> Option<(usize, crate::codes::Code, String)> {
    let mut parser = None;
    sourced.iter().find_map(|(line, target)| {
        let library = crate::fsio::sourced_file(script, target)?;
        let bytes = crate::fsio::limited::read(&library, max_size, false).ok()?;
        // Most libraries define no such name: no parse for them (check asks on every run).
        if !crate::rewrite::capture::may_shadow_command(&bytes) {
            return None;
        }
        let parser = match &mut parser {
            Some(parser) => parser,
            None => parser.insert(BashParser::new().ok()?),
        };
        let tree = parser.parse(&bytes).ok()?;
        let (_, name, how) =
            crate::rewrite::capture::shadowed_command(tree.root_node(), &bytes)?;
        Some((
            *line,
            crate::codes::NAME_CLASH,
            format!(
                "line {line}: the file it sources, {}, defines {how} `{name}`, a command capture mode's runtime runs to make the document; rename it, or migrate with --mode comment",
                target.display()
            ),
        ))
    })
}

/// The bytes of each file the script sources with a literal path, read (bounded) from the
/// script's folder, in order; a file that cannot be read gives nothing.
fn sourced_bytes(
    path: &Path,
    analysis: &crate::analyze::Analysis,
    body: &[u8],
    max_size: u64,
) -> impl Iterator<Item = Vec<u8>> {
    let path = path.to_path_buf();
    sourced_in(&analysis.tree, body)
        .into_iter()
        .filter_map(move |(_, target)| {
            let library = crate::fsio::sourced_file(&path, &target)?;
            crate::fsio::limited::read(&library, max_size, false).ok()
        })
}

/// The script's calls of functions that files it sources (literal paths, read from its folder)
/// define and that print on stdout: its answer as much as its own `echo`s (`log "hello"` with
/// `log() { echo "$*"; }` in lib.sh). Looked for only when nothing else is its answer.
pub fn answer_through_sourced(
    path: &Path,
    analysis: &crate::analyze::Analysis,
    body: &[u8],
    max_size: u64,
) -> Vec<crate::analyze::StdoutWrite> {
    let Ok(mut parser) = BashParser::new() else {
        return Vec::new();
    };
    let mut printing = std::collections::HashSet::new();
    for bytes in sourced_bytes(path, analysis, body, max_size) {
        if let Ok(names) = crate::analyze::printing_functions(&mut parser, &bytes) {
            printing.extend(names);
        }
    }
    if printing.is_empty() {
        return Vec::new();
    }
    crate::analyze::calls_printing(analysis, body, &printing)
}

fn read_small(path: &Path, meta: &std::fs::Metadata, max_size: u64) -> Option<Vec<u8>> {
    (meta.is_file() && meta.len() <= max_size)
        .then(|| std::fs::read(path).ok())
        .flatten()
}

/// None when the file holds no legacy line (after its suppressions), as the analyzer and check
/// read it; else whether it holds a SUCCESS/COMPLETE line.
fn legacy_in(bytes: &[u8], vocabulary: Vocabulary) -> Option<bool> {
    if !prefilter::may_hold_legacy(bytes, vocabulary) {
        return None;
    }
    let mut parser = BashParser::new().ok()?;
    let analysis = crate::analyze::analyze(&mut parser, bytes, vocabulary).ok()?;
    let mut legacy = analysis.legacy;
    if Suppressions::may_occur(bytes) {
        let (suppressions, _) = Suppressions::parse(&mut parser, bytes);
        suppressions.retain(&mut legacy, crate::domain::rules::Rule::LegacyOutput, |l| {
            l.start
        });
    }
    (!legacy.is_empty()).then(|| {
        legacy
            .iter()
            .any(|l| matches!(l.kind, LegacyKind::Success | LegacyKind::Complete))
    })
}

/// The first arguments of the `source` and `.` commands in the syntax tree, relative to the
/// sourcing script's folder, as far as they are literal.
fn sourced_paths(bytes: &[u8]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = sourced_lines(bytes).into_iter().map(|(_, p)| p).collect();
    out.sort();
    out.dedup();
    out
}

/// `sourced_paths` with the line of each `source`/`.` command, in line order.
pub(crate) fn sourced_lines(bytes: &[u8]) -> Vec<(usize, PathBuf)> {
    if !prefilter::may_source(bytes) {
        return Vec::new();
    }
    match BashParser::new().ok().and_then(|mut p| p.parse(bytes).ok()) {
        Some(tree) => sourced_in(&tree, bytes),
        None => Vec::new(),
    }
}

/// `sourced_lines` read off a tree the caller has already parsed (check's analysis).
pub(crate) fn sourced_in(tree: &tree_sitter::Tree, bytes: &[u8]) -> Vec<(usize, PathBuf)> {
    let mut out = Vec::new();
    if !prefilter::may_source(bytes) {
        return out;
    }
    let mut cursor = tree.walk();
    let mut stack = vec![tree.root_node()];
    let mut sources = Vec::new();
    // Each assignment's place, name and the folder it names (None: not one below the script's).
    let mut assignments = Vec::new();
    while let Some(node) = stack.pop() {
        if node.kind() == "command"
            && matches!(
                crate::analyze::context::command_name_bytes(node, bytes),
                Some(b"source" | b".")
            )
            && let Some(argument) = node.child_by_field_name("argument")
        {
            sources.push((node.start_position().row + 1, argument));
        }
        if node.kind() == "variable_assignment"
            && let (Some(name), Some(value)) = (
                node.child_by_field_name("name"),
                node.child_by_field_name("value"),
            )
        {
            let name = String::from_utf8_lossy(&bytes[name.byte_range()]).into_owned();
            let folder = literal_path(value, bytes, &HashMap::new());
            assignments.push((node.start_byte(), name, folder));
        }
        stack.extend(node.children(&mut cursor));
    }
    // One sweep in file order: the last assignment of each name before a `source` line is the
    // one in effect there (a variable reused later for another folder: hostile review hx28).
    assignments.sort_by_key(|(at, _, _)| *at);
    sources.sort_by_key(|(_, argument)| argument.start_byte());
    let mut assigned = assignments.into_iter().peekable();
    let mut folders = HashMap::new();
    for (line, argument) in sources {
        while let Some((_, name, folder)) =
            assigned.next_if(|(at, _, _)| *at < argument.start_byte())
        {
            match folder {
                Some(folder) => folders.insert(name, folder),
                None => folders.remove(&name),
            };
        }
        out.extend(literal_path(argument, bytes, &folders).map(|path| (line, path)));
    }
    // Each path once, at its first line: a file read per `source` line made a library sourcing
    // itself 75,000 times take a minute (hostile review hx25).
    out.sort();
    let mut seen = HashSet::new();
    out.retain(|(_, path)| seen.insert(path.clone()));
    out
}

/// The path a `source` argument names, as bash reads the word (quotes and escapes taken out, so
/// `"$DIR/my lib.sh"` and `lib\ 1.sh` keep their blanks): the literal text after one leading
/// expansion (`$DIR`, `${DIR}`, `$(dirname "$0")`), which names the script's folder by
/// convention, or a folder below it when the script set that variable so (`folders`). None when
/// another expansion follows it or nothing literal is left.
fn literal_path(
    argument: tree_sitter::Node<'_>,
    bytes: &[u8],
    folders: &HashMap<String, PathBuf>,
) -> Option<PathBuf> {
    use crate::analyze::words::Segment;
    let value = crate::analyze::words::word_value(argument, bytes);
    let (expanded, rest) = match value.segments.split_first()? {
        (Segment::Dynamic(_), rest) => (true, rest),
        _ => (false, value.segments.as_slice()),
    };
    // `LIB_DIR="$(dirname "$0")/lib"` then `. "$LIB_DIR/common.sh"`: the folder the variable
    // names below the script's (hostile review hx27).
    let named = match value.segments.first() {
        Some(Segment::Dynamic(text)) => {
            crate::analyze::words::parameter_name(text).and_then(|name| folders.get(name))
        }
        _ => None,
    };
    let mut tail = named
        .map(|folder| format!("{}/", folder.display()))
        .unwrap_or_default();
    for segment in rest {
        match segment {
            Segment::Literal(text) => tail.push_str(text),
            Segment::Dynamic(_) => return None,
        }
    }
    let tail = if expanded {
        tail.trim_start_matches('/')
    } else {
        tail.as_str()
    };
    (!tail.is_empty()).then(|| PathBuf::from(tail))
}

/// The literal part of a path argument: a leading expansion (`$DIR`, `${DIR}`, `$(…)`) dropped,
/// as it names the script's folder by convention, then quotes removed, up to the first blank.
/// None when nothing literal is left.
pub(super) fn literal_tail(argument: &str) -> Option<PathBuf> {
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
    fn a_path_sourced_many_times_is_listed_once_at_its_first_line() {
        // Each listed path is read: 75,000 `source` lines of one file read it 75,000 times.
        let script = b"#!/bin/bash\n. \"$D/a.inc\"\n. ./b.inc\n. \"$D/a.inc\"\n. \"$D/a.inc\"\n";
        assert_eq!(
            sourced_lines(script),
            vec![(2, PathBuf::from("a.inc")), (3, PathBuf::from("./b.inc"))]
        );
    }

    #[test]
    fn sourced_paths_are_read_from_common_forms() {
        let script = b"#!/bin/bash\nsource \"$SCRIPT_DIR/lib/common.sh\"\n. ./helpers.sh\n[ -f x ] && . \"$(dirname \"$0\")/util.sh\"\nsource ${HERE}/more.sh # c\necho source me\n";
        assert_eq!(
            sourced_paths(script),
            vec![
                PathBuf::from("./helpers.sh"),
                PathBuf::from("lib/common.sh"),
                PathBuf::from("more.sh"),
                PathBuf::from("util.sh"),
            ]
        );
        // Words in strings, comments and heredocs source nothing.
        let prose = b"#!/bin/bash\necho \"source a.sh\"\n# . b.sh\ncat <<EOF\nsource c.sh\nEOF\n";
        assert!(sourced_paths(prose).is_empty());
    }

    #[test]
    fn a_variable_the_script_sets_below_its_folder_names_that_folder() {
        // hx27: `LIB_DIR="$(dirname "$0")/lib"; . "$LIB_DIR/common.sh"` was read as common.sh.
        let script = b"#!/bin/sh\nLIB_DIR=\"$(dirname \"$0\")/lib\"\n. \"$LIB_DIR/common.sh\"\n. \"${LIB_DIR}/x.sh\"\nHERE=$(cd \"$(dirname \"$0\")\" && pwd)\n. \"$HERE/y.sh\"\nLIB_DIR=\"$(dirname \"$0\")/out\"\n";
        assert_eq!(
            sourced_lines(script),
            vec![
                (3, PathBuf::from("lib/common.sh")),
                (4, PathBuf::from("lib/x.sh")),
                (6, PathBuf::from("y.sh")),
            ]
        );
    }

    #[test]
    fn a_log_helper_that_prints_a_marker_is_no_legacy_line() {
        let helper =
            b"log_ok() { echo \"[SUCCESS] $1\"; }\nwarn() { echo \"SUCCESS rate low\" >&2; }\n";
        assert_eq!(legacy_in(helper, Vocabulary::Exact), None);
        let real = b"finish() { echo \"SUCCESS\"; }\n";
        assert_eq!(legacy_in(real, Vocabulary::Exact), Some(true));
        let suppressed = b"finish() { echo \"SUCCESS\"; } # skillmod: ignore[SKM001]\n";
        assert_eq!(legacy_in(suppressed, Vocabulary::Exact), None);
    }

    #[test]
    fn a_library_is_known_however_its_path_is_spelled() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::create_dir_all(root.join("a")).expect("mkdir");
        std::fs::create_dir_all(root.join("lib")).expect("mkdir");
        let script = root.join("a/execute.sh");
        std::fs::write(
            &script,
            "#!/bin/bash\nsource \"$(dirname \"$0\")/../lib/common.sh\"\nrun\n",
        )
        .expect("write");
        std::fs::write(root.join("lib/common.sh"), "run() { echo \"SUCCESS\"; }\n").expect("write");
        let files = [script.clone(), root.join("./lib/common.sh")];
        let sourcing = Sourcing::scan(&files, 1 << 20, &|_| Vocabulary::Exact, &|_| false);
        assert!(sourcing.is_library(&root.join("lib/../lib/common.sh")));
        assert!(!sourcing.is_library(&script));
        let hosted = sourcing.hosts_library(&script).expect("hosts");
        assert!(hosted.success);
        assert!(hosted.libraries[0].ends_with("lib/common.sh"));
        assert_eq!(sourcing.hosts_library(&root.join("lib/common.sh")), None);
        // Not selected, not a library: only selected files are linked.
        let alone = Sourcing::scan(&files[..1], 1 << 20, &|_| Vocabulary::Exact, &|_| false);
        assert!(!alone.is_library(&root.join("lib/common.sh")));
        assert_eq!(alone.hosts_library(&script), None);
    }
}
