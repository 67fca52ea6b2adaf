//! A cache of check results keyed by a hash of the file's content (and skillmod's version), so a
//! repeated check over an unchanged tree costs little more than walking it. Two layers: content keys
//! (BLAKE3 of the bytes) hold the findings, and place keys (path, device, inode, size, mtime and
//! ctime, as git's index and ruff's cache use) point at a content key, so a file nobody touched is not
//! even read. A fresh checkout (CI restoring the cache) misses the place keys and still hits the
//! content keys. Stored as one postcard file under `.skillmod/cache/` (or `--cache-dir`); a missing
//! or damaged cache is simply rebuilt. Every key is salted with a secret kept outside the repository
//! (the user's cache folder, or the `--cache-dir` the user chose), so a cache file that came with a
//! clone never matches and cannot make a file with legacy lines pass.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use crate::analyze::{LegacyKind, Vocabulary};
use crate::fsio::{STATE_DIR, limited};

/// Entries beyond this many (of each layer) are dropped, keeping this run's, so the file stays small.
const MAX_ENTRIES: usize = 200_000;
/// Bumped when the stored shape or the analysis changes, so old caches are dropped rather than
/// misread or trusted.
const FORMAT: &str = "56";
/// The cache file's name in its folder.
const FILE_NAME: &str = "check.bin";

/// A cache file larger than this is not read (200,000 entries take about 60 MB).
const MAX_FILE_BYTES: u64 = 256 << 20;
/// A file changed less than this long before the run started gets no place key: timestamps are
/// coarse (a kernel tick, two seconds on FAT), so a same-size rewrite within that window could keep
/// them (git's "racily clean" entries).
const SETTLE: Duration = Duration::from_secs(2);

/// A finding without its path (content, not location, is the key).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Located {
    pub line: usize,
    pub column: usize,
    pub kind: LegacyKind,
    pub text: String,
}

/// A stdout write without its path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocatedWrite {
    pub line: usize,
    pub column: usize,
    pub text: String,
}

/// What the analyzer found in one file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub legacy: Vec<Located>,
    pub stdout_writes: Vec<LocatedWrite>,
    /// Line and column of a legacy statement inside a parse error (reported, not passed).
    pub parse_error: Option<crate::analyze::ParseFailure>,
    /// The content mentions `skillmod: ignore`, so applying the suppressions needs its bytes.
    pub mentions_suppression: bool,
    /// The capture runtime the script loads, as its text says.
    pub runtime: Runtime,
    /// The line the runtime (or what stands in its place) starts on; 0 when there is none.
    pub runtime_line: usize,
    /// What the one verdict reads of the analysis (whether migrate would refuse the script).
    pub verdict: crate::verdict::Facts,
    /// The files the script sources (`.`/`source` with a literal path), with their lines,
    /// relative to its folder.
    pub sourced: Vec<(usize, PathBuf)>,
    /// Legacy-looking text in forms the analysis cannot read as output.
    pub out_of_reach: Vec<crate::analyze::out_of_reach::OutOfReach>,
    /// The line of a success line the script records while its runtime line says a clean exit
    /// is success (`__skm_need=0`): not what skillmod writes for it.
    pub exit_claim: Option<usize>,
}

/// The capture runtime a migrated script loads, as its text says. The state of a runtime file on
/// disk is looked at on every run, never cached.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Runtime {
    /// No runtime: not migrated in capture mode.
    #[default]
    None,
    /// A source line naming the runtime file, relative to the script.
    File {
        relative: String,
        /// The line keeps the script's other output on stdout (`__skm_stdout=keep`).
        keep_stdout: bool,
        /// The runtime version the line asks for (2: 0.2.0's line, which finds the file from
        /// `$0` at the project root).
        version: u32,
    },
    /// Something stands where skillmod puts the runtime but is not skillmod's (an edited source
    /// line or block): the script's own code, and an error.
    Foreign,
    /// skillmod 0.1.0's one-line inline runtime.
    OldInline,
    /// The block `--runtime inline` writes, with its version (0 when unreadable).
    Block { version: u32, keep_stdout: bool },
}

impl Runtime {
    /// The runtime moves the script's other output to stderr when it starts.
    pub fn moves_stdout(&self) -> bool {
        matches!(
            self,
            Runtime::File {
                keep_stdout: false,
                ..
            } | Runtime::Block {
                keep_stdout: false,
                ..
            }
        )
    }
}

/// A salted BLAKE3 hash: of a file's content, or of its place (path and stat).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Key([u8; 32]);

/// What a place key found.
pub enum Place {
    /// The prefilter saw no marker in the file: nothing to report.
    Clean,
    /// The findings of the file's content.
    Analyzed(Box<Entry>),
}

/// The cache file's layout (`check.bin`, postcard): public so that tests can look into one, or
/// forge one, with the real types.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Stored {
    pub version: String,
    pub entries: HashMap<Key, Entry>,
    /// Place key -> content key (`None`: the prefilter found no marker).
    pub places: HashMap<Key, Option<Key>>,
    /// A runtime file's place key -> the runtime version its bytes are known as (0: not
    /// skillmod's), so a warm check reads no unchanged runtime file.
    pub runtimes: HashMap<Key, u32>,
    /// A script's place key (whatever the vocabulary) -> the paths its `source`/`.` commands
    /// name (bytes), so a warm check follows libraries without reading the scripts.
    pub sources: HashMap<Key, Vec<Vec<u8>>>,
}

/// The cache of one run: what was loaded, which entries this run hit, and what it added.
pub struct Cache {
    path: Option<PathBuf>,
    salt: [u8; 32],
    /// Files changed after this get no place key.
    settled_before: SystemTime,
    old: HashMap<Key, Entry>,
    old_places: HashMap<Key, Option<Key>>,
    old_runtimes: HashMap<Key, u32>,
    runtimes: Mutex<HashMap<Key, u32>>,
    old_sources: HashMap<Key, Vec<Vec<u8>>>,
    sources: Mutex<HashMap<Key, Vec<Vec<u8>>>>,
    hits: Mutex<Vec<Key>>,
    added: Mutex<HashMap<Key, Entry>>,
    /// This run's places, hit or new.
    places: Mutex<HashMap<Key, Option<Key>>>,
    /// A `--cache-dir` inside a git work tree: it gets a `.gitignore` as `.skillmod` does.
    in_work_tree: bool,
}

fn version() -> String {
    format!("{}+{FORMAT}", env!("CARGO_PKG_VERSION"))
}

/// Where the cache lives and the secret its keys are salted with.
struct Location {
    file: PathBuf,
    salt: [u8; 32],
}

/// Read the salt in `dir`, creating it (32 random bytes, mode 0600) on first use.
fn salt_in(dir: &Path) -> Option<[u8; 32]> {
    let path = dir.join("salt");
    let mut salt = [0u8; 32];
    if let Ok(text) = limited::read(&path, 128, false)
        && hex::decode_to_slice(text.trim_ascii(), &mut salt).is_ok()
    {
        return Some(salt);
    }
    std::fs::create_dir_all(dir).ok()?;
    if !crate::fsio::is_plain_folder(dir) {
        return None;
    }
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut salt))
        .ok()?;
    crate::fsio::atomic::write_atomic(&path, hex::encode(salt).as_bytes(), 0o600).ok()?;
    Some(salt)
}

/// A `--cache-dir` is state like `.skillmod`: refused when it is a symlink or not a folder, and,
/// inside a git work tree, ignored by git and refused while git tracks anything in it (a
/// committed salt and cache would let a repository forge what check reports). Returns whether it
/// lies in a work tree; the error is why the run goes on without a cache.
fn guard_cache_dir(dir: &Path) -> std::result::Result<bool, String> {
    if std::fs::symlink_metadata(dir).is_ok() && !crate::fsio::is_plain_folder(dir) {
        return Err(format!(
            "STATE_DIR_UNSAFE: --cache-dir {} is a symlink or not a folder; checking without a cache",
            dir.display()
        ));
    }
    let absolute = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let Some(existing) = absolute.ancestors().find(|a| a.is_dir()) else {
        return Ok(false);
    };
    let Some(repo) = crate::vcs::Repo::discover(existing) else {
        return Ok(false);
    };
    if repo.tracks_any_under(
        &crate::fsio::canonical(existing)
            .join(absolute.strip_prefix(existing).unwrap_or(Path::new(""))),
    ) {
        return Err(format!(
            "CACHE_DIR_TRACKED: git tracks files in --cache-dir {}; a committed salt or cache could make check pass legacy lines. Use a folder outside the repository, or `git rm -r --cached` it; checking without a cache",
            dir.display()
        ));
    }
    if std::fs::create_dir_all(dir).is_ok() && crate::fsio::is_plain_folder(dir) {
        let _ = crate::fsio::ensure_state_ignored(dir);
    }
    Ok(true)
}

/// The user's own cache folder for skillmod (never inside a repository).
fn user_cache_dir() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("skillmod"))
}

impl Cache {
    /// A cache that never stores anything (`--no-cache`).
    pub fn disabled() -> Cache {
        Cache::empty(None, [0; 32])
    }

    fn empty(path: Option<PathBuf>, salt: [u8; 32]) -> Cache {
        Cache {
            path,
            salt,
            settled_before: SystemTime::now()
                .checked_sub(SETTLE)
                .unwrap_or(SystemTime::UNIX_EPOCH),
            old: HashMap::new(),
            old_places: HashMap::new(),
            old_runtimes: HashMap::new(),
            runtimes: Mutex::new(HashMap::new()),
            old_sources: HashMap::new(),
            sources: Mutex::new(HashMap::new()),
            hits: Mutex::new(Vec::new()),
            added: Mutex::new(HashMap::new()),
            places: Mutex::new(HashMap::new()),
            in_work_tree: false,
        }
    }

    /// Load the cache: in `cache_dir` when given (a folder the user chose, which also holds the
    /// salt), else under `root/.skillmod/cache` with the salt in the user's cache folder. No
    /// usable salt, or an unsafe `.skillmod`, means no cache (with the reason). Anything
    /// unreadable or from another version starts empty.
    pub fn load(root: &Path, cache_dir: Option<&Path>) -> (Cache, Option<String>) {
        let mut in_work_tree = false;
        let location = match cache_dir {
            Some(dir) => {
                match guard_cache_dir(dir) {
                    Ok(in_tree) => in_work_tree = in_tree,
                    Err(why) => return (Cache::disabled(), Some(why)),
                }
                salt_in(dir).map(|salt| Location {
                    file: dir.join(FILE_NAME),
                    salt,
                })
            }
            // An installed skill outside git: its cache goes to the user's cache folder.
            None if crate::fsio::is_skill_folder(root) => user_cache_dir().and_then(|dir| {
                let salt = salt_in(&dir)?;
                let real = crate::fsio::canonical(root);
                let key = crate::fsio::sha256_hex(real.as_os_str().as_encoded_bytes());
                let folder = dir.join("skills").join(&key[..16]);
                std::fs::create_dir_all(&folder).ok()?;
                Some(Location {
                    file: folder.join(FILE_NAME),
                    salt,
                })
            }),
            None => match crate::fsio::backup::state_dir(root).and_then(|state| {
                let cache = state.join("cache");
                if std::fs::symlink_metadata(&cache).is_ok() && !crate::fsio::is_plain_folder(&cache) {
                    return Err(crate::error::Error::new(crate::codes::STATE_DIR_UNSAFE,
                        format!(
                            "{} is a symlink or not a folder; remove it (it may have come with the repository). Checking without a cache",
                            cache.display()
                        ),
                    ));
                }
                Ok(state)
            }) {
                Ok(state) => user_cache_dir()
                    .and_then(|dir| salt_in(&dir))
                    .map(|salt| Location {
                        file: state.join("cache").join(FILE_NAME),
                        salt,
                    }),
                Err(e) => return (Cache::disabled(), Some(format!("{}", e))),
            },
        };
        let Some(location) = location else {
            return (
                Cache::disabled(),
                Some("no writable cache folder for the cache's key (set --cache-dir, XDG_CACHE_HOME or HOME); checking without a cache".to_string()),
            );
        };
        // Not followed if a link, never blocking on a FIFO, never larger than a cache can be.
        let stored = limited::read(&location.file, MAX_FILE_BYTES, false)
            .ok()
            .and_then(|bytes| postcard::from_bytes::<Stored>(&bytes).ok())
            .filter(|stored| stored.version == version())
            .unwrap_or_default();
        let mut cache = Cache::empty(Some(location.file), location.salt);
        cache.in_work_tree = in_work_tree;
        cache.old = stored.entries;
        cache.old_places = stored.places;
        cache.old_runtimes = stored.runtimes;
        cache.old_sources = stored.sources;
        (cache, None)
    }

    /// The key of a script's content checked with `vocabulary` (which changes the answer).
    pub fn key(&self, content: &[u8], vocabulary: Vocabulary) -> Key {
        let mut hasher = self.hasher(b"content", vocabulary);
        hasher.update(content);
        Key(*hasher.finalize().as_bytes())
    }

    /// A hasher keyed with the salt, for one layer of keys and one vocabulary.
    fn hasher(&self, layer: &[u8], vocabulary: Vocabulary) -> blake3::Hasher {
        let mut hasher = blake3::Hasher::new_keyed(&self.salt);
        for part in [layer, vocabulary.as_str().as_bytes()] {
            hasher.update(part);
            hasher.update(&[0]);
        }
        hasher
    }

    /// The key of a file's place: its path and what `stat` says, or `None` when the cache is off or
    /// the file changed too recently for its timestamps to tell a later rewrite apart.
    pub fn place_key(
        &self,
        path: &Path,
        meta: &std::fs::Metadata,
        vocabulary: Vocabulary,
    ) -> Option<Key> {
        self.path.as_ref()?;
        let stat = stat_words(meta)?;
        let changed = meta.modified().ok()?.max(ctime(meta)?);
        if changed >= self.settled_before {
            return None;
        }
        let mut hasher = self.hasher(b"place", vocabulary);
        hasher.update(path.as_os_str().as_encoded_bytes());
        hasher.update(&[0]);
        for word in stat {
            hasher.update(&word.to_le_bytes());
        }
        Some(Key(*hasher.finalize().as_bytes()))
    }

    /// The place key of a runtime file: its path and `stat`, and the runtimes known now (a
    /// custom template's rendering changes what counts as skillmod's).
    pub fn runtime_place(&self, path: &Path, meta: &std::fs::Metadata) -> Option<Key> {
        let place = self.place_key(path, meta, Vocabulary::Exact)?;
        let mut hasher = self.hasher(b"runtime", Vocabulary::Exact);
        hasher.update(&place.0);
        hasher.update(crate::analyze::runtime_link::trusted_digest().as_bytes());
        Some(Key(*hasher.finalize().as_bytes()))
    }

    /// The version a runtime file at `place` was known as, and remember it for the next run.
    pub fn runtime_version(&self, place: &Key) -> Option<u32> {
        let version = *self.old_runtimes.get(place)?;
        self.put_runtime(*place, version);
        Some(version)
    }

    pub fn put_runtime(&self, place: Key, version: u32) {
        if self.path.is_none() {
            return;
        }
        if let Ok(mut runtimes) = self.runtimes.lock() {
            runtimes.insert(place, version);
        }
    }

    /// The paths the script at `path` sources (`source`/`.`, relative to its folder): from the
    /// last run's answer for its place, else from `read` (then kept for the next run).
    pub fn sources_of(&self, path: &Path, read: impl FnOnce() -> Vec<PathBuf>) -> Vec<PathBuf> {
        // The place key itself: the sources map is a layer of its own.
        let place = std::fs::metadata(path)
            .ok()
            .and_then(|meta| self.place_key(path, &meta, Vocabulary::Exact));
        let known = place.and_then(|place| self.old_sources.get(&place).cloned());
        let bytes = known.unwrap_or_else(|| {
            read()
                .iter()
                .map(|p| p.as_os_str().as_encoded_bytes().to_vec())
                .collect()
        });
        if let Some(place) = place
            && let Ok(mut sources) = self.sources.lock()
        {
            sources.insert(place, bytes.clone());
        }
        bytes
            .iter()
            .map(|b| crate::bytes_text::path_from_bytes(b))
            .collect()
    }

    pub fn get(&self, key: &Key) -> Option<Entry> {
        self.path.as_ref()?;
        let found = self.old.get(key).cloned()?;
        if let Ok(mut hits) = self.hits.lock() {
            hits.push(*key);
        }
        Some(found)
    }

    /// What the last runs found at a place, if its content's entry is still there.
    pub fn get_place(&self, place: &Key) -> Option<Place> {
        let content = *self.old_places.get(place)?;
        let found = match content {
            None => Place::Clean,
            Some(key) => Place::Analyzed(Box::new(self.get(&key)?)),
        };
        if let Ok(mut places) = self.places.lock() {
            places.insert(*place, content);
        }
        Some(found)
    }

    pub fn put(&self, key: Key, value: Entry) {
        if self.path.is_none() {
            return;
        }
        if let Ok(mut added) = self.added.lock() {
            added.insert(key, value);
        }
    }

    /// Remember which content (`None`: no marker) was found at a place.
    pub fn put_place(&self, place: Key, content: Option<Key>) {
        if self.path.is_none() {
            return;
        }
        if let Ok(mut places) = self.places.lock() {
            places.insert(place, content);
        }
    }

    /// Write the cache back if this run added to it: this run's entries first, then older ones
    /// up to the size limit. Failures are ignored: the cache only saves time.
    pub fn save(self) {
        let Some(path) = self.path else {
            return;
        };
        let mut entries = self.added.into_inner().unwrap_or_default();
        let mut places = self.places.into_inner().unwrap_or_default();
        let runtimes = self.runtimes.into_inner().unwrap_or_default();
        let sources = self.sources.into_inner().unwrap_or_default();
        let new_sources = sources
            .iter()
            .any(|(place, paths)| self.old_sources.get(place) != Some(paths));
        let new_places = places
            .iter()
            .any(|(place, content)| self.old_places.get(place) != Some(content));
        let new_runtimes = runtimes
            .iter()
            .any(|(place, version)| self.old_runtimes.get(place) != Some(version));
        if entries.is_empty() && !new_places && !new_runtimes && !new_sources {
            return;
        }
        let mut old = self.old;
        for key in self.hits.into_inner().unwrap_or_default() {
            if let Some(value) = old.remove(&key) {
                entries.insert(key, value);
            }
        }
        keep_older(&mut entries, old);
        keep_older(&mut places, self.old_places);
        let stored = Stored {
            version: version(),
            entries,
            places,
            runtimes,
            sources,
        };
        let Some(dir) = path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() || !crate::fsio::is_plain_folder(dir) {
            return;
        }
        if dir.parent().and_then(|p| p.file_name()) == Some(std::ffi::OsStr::new(STATE_DIR)) {
            let _ = crate::fsio::ensure_state_ignored(dir.parent().unwrap_or(dir));
        }
        if self.in_work_tree {
            let _ = crate::fsio::ensure_state_ignored(dir);
        }
        let Ok(bytes) = postcard::to_stdvec(&stored) else {
            return;
        };
        let _ = crate::fsio::atomic::write_atomic(&path, &bytes, 0o644);
    }
}

/// Add `older` to `map` where this run has nothing, up to the size limit.
fn keep_older<V>(map: &mut HashMap<Key, V>, older: HashMap<Key, V>) {
    for (key, value) in older {
        if map.len() >= MAX_ENTRIES {
            break;
        }
        map.entry(key).or_insert(value);
    }
}

/// Device, inode, size and both timestamps to the nanosecond: any write changes the ctime, which
/// no tool can set back.
#[cfg(unix)]
fn stat_words(meta: &std::fs::Metadata) -> Option<[i64; 7]> {
    use std::os::unix::fs::MetadataExt;
    Some([
        meta.dev() as i64,
        meta.ino() as i64,
        meta.size() as i64,
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    ])
}

#[cfg(not(unix))]
fn stat_words(_meta: &std::fs::Metadata) -> Option<[i64; 7]> {
    None
}

#[cfg(unix)]
fn ctime(meta: &std::fs::Metadata) -> Option<SystemTime> {
    use std::os::unix::fs::MetadataExt;
    let since = Duration::new(
        u64::try_from(meta.ctime()).ok()?,
        u32::try_from(meta.ctime_nsec()).ok()?,
    );
    SystemTime::UNIX_EPOCH.checked_add(since)
}

#[cfg(not(unix))]
fn ctime(_meta: &std::fs::Metadata) -> Option<SystemTime> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            legacy: vec![Located {
                line: 2,
                column: 1,
                kind: LegacyKind::Success,
                text: "echo SUCCESS".into(),
            }],
            ..Entry::default()
        }
    }

    /// A cache whose run started an hour from now, so files written by the test count as settled.
    fn settled_cache(dir: &Path) -> Cache {
        let (mut cache, warning) = Cache::load(dir, Some(&dir.join("cache")));
        assert!(warning.is_none(), "{warning:?}");
        cache.settled_before = SystemTime::now() + Duration::from_secs(3600);
        cache
    }

    #[test]
    fn an_unchanged_file_is_found_by_its_place_across_runs() {
        let dir = tempfile::tempdir().expect("tmp");
        let script = dir.path().join("execute.sh");
        std::fs::write(&script, b"#!/bin/sh\necho SUCCESS\n").expect("write");
        let meta = std::fs::symlink_metadata(&script).expect("stat");
        let cache = settled_cache(dir.path());
        let place = cache
            .place_key(&script, &meta, Vocabulary::Exact)
            .expect("a settled file has a place key");
        let key = cache.key(b"#!/bin/sh\necho SUCCESS\n", Vocabulary::Exact);
        cache.put(key, entry());
        cache.put_place(place, Some(key));
        cache.save();

        let cache = settled_cache(dir.path());
        match cache.get_place(&place) {
            Some(Place::Analyzed(found)) => assert_eq!(*found, entry()),
            _ => panic!("the place key missed after a save"),
        }
        assert!(
            cache
                .get_place(&cache.key(b"other", Vocabulary::Exact))
                .is_none(),
            "an unknown place hit"
        );
        assert_ne!(
            cache.place_key(&script, &meta, Vocabulary::Original),
            Some(place),
            "the vocabulary changes the answer, so it must change the key"
        );
    }

    #[test]
    fn a_grown_file_or_another_path_gets_another_place_key() {
        let dir = tempfile::tempdir().expect("tmp");
        let script = dir.path().join("execute.sh");
        std::fs::write(&script, b"echo SUCCESS\n").expect("write");
        let cache = settled_cache(dir.path());
        let before = std::fs::symlink_metadata(&script).expect("stat");
        let first = cache.place_key(&script, &before, Vocabulary::Exact);
        std::fs::write(&script, b"echo SUCCESS\necho FAILED\n").expect("write");
        let after = std::fs::symlink_metadata(&script).expect("stat");
        assert_ne!(first, cache.place_key(&script, &after, Vocabulary::Exact));
        let copy = dir.path().join("copy.sh");
        assert_ne!(first, cache.place_key(&copy, &before, Vocabulary::Exact));
    }

    #[test]
    fn a_file_changed_just_now_gets_no_place_key() {
        // Timestamps are coarse: a same-size rewrite in the same tick would keep them, so a file
        // this young must be read and hashed.
        let dir = tempfile::tempdir().expect("tmp");
        let script = dir.path().join("execute.sh");
        std::fs::write(&script, b"echo SUCCESS\n").expect("write");
        let (cache, _) = Cache::load(dir.path(), Some(&dir.path().join("cache")));
        let meta = std::fs::symlink_metadata(&script).expect("stat");
        assert_eq!(cache.place_key(&script, &meta, Vocabulary::Exact), None);
        assert_eq!(
            Cache::disabled().place_key(&script, &meta, Vocabulary::Exact),
            None
        );
    }

    #[test]
    fn a_damaged_cache_file_starts_empty() {
        let dir = tempfile::tempdir().expect("tmp");
        let cache_dir = dir.path().join("cache");
        std::fs::create_dir_all(&cache_dir).expect("mkdir");
        std::fs::write(cache_dir.join(FILE_NAME), b"\x05garbage").expect("write");
        let (cache, warning) = Cache::load(dir.path(), Some(&cache_dir));
        assert!(warning.is_none());
        assert!(cache.old.is_empty() && cache.old_places.is_empty());
    }
}
