//! A cache of check results keyed by a hash of the file's content (and skillmod's version), so a
//! repeated check over an unchanged tree costs little more than reading the files. Stored as one
//! JSON file under `.skillmod/cache/` (or `--cache-dir`); a missing or damaged cache is simply
//! rebuilt. The key is salted with a secret kept outside the repository (the user's cache folder,
//! or the `--cache-dir` the user chose), so a cache file that came with a clone never matches and
//! cannot make a file with legacy lines pass.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::analyze::LegacyKind;
use crate::fsio::STATE_DIR;

/// Entries beyond this many are dropped (keeping this run's) so the file stays small.
const MAX_ENTRIES: usize = 200_000;
/// Bumped when the stored shape or the analysis changes, so old caches are dropped rather than
/// misread or trusted.
const FORMAT: &str = "4";

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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<(usize, usize)>,
}

/// A content hash (BLAKE3), stored as hex in the file and as 32 bytes in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl Serialize for Key {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&hex::encode(self.0))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(text.as_bytes(), &mut bytes).map_err(serde::de::Error::custom)?;
        Ok(Key(bytes))
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    version: String,
    entries: HashMap<Key, Entry>,
}

/// The cache of one run: what was loaded, which entries this run hit, and what it added.
pub struct Cache {
    path: Option<PathBuf>,
    salt: [u8; 32],
    old: HashMap<Key, Entry>,
    hits: Mutex<Vec<Key>>,
    added: Mutex<HashMap<Key, Entry>>,
}

fn version() -> String {
    format!("{}+{FORMAT}", env!("CARGO_PKG_VERSION"))
}

/// Where the cache lives and the secret its keys are salted with.
struct Place {
    file: PathBuf,
    salt: [u8; 32],
}

/// Read the salt in `dir`, creating it (32 random bytes, mode 0600) on first use.
fn salt_in(dir: &Path) -> Option<[u8; 32]> {
    let path = dir.join("salt");
    let mut salt = [0u8; 32];
    if let Ok(text) = std::fs::read_to_string(&path)
        && hex::decode_to_slice(text.trim(), &mut salt).is_ok()
    {
        return Some(salt);
    }
    std::fs::create_dir_all(dir).ok()?;
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut salt))
        .ok()?;
    crate::fsio::atomic::write_atomic(&path, hex::encode(salt).as_bytes(), 0o600).ok()?;
    Some(salt)
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
        Cache {
            path: None,
            salt: [0; 32],
            old: HashMap::new(),
            hits: Mutex::new(Vec::new()),
            added: Mutex::new(HashMap::new()),
        }
    }

    /// Load the cache: in `cache_dir` when given (a folder the user chose, which also holds the
    /// salt), else under `root/.skillmod/cache` with the salt in the user's cache folder. No
    /// usable salt, or an unsafe `.skillmod`, means no cache (with the reason). Anything
    /// unreadable or from another version starts empty.
    pub fn load(root: &Path, cache_dir: Option<&Path>) -> (Cache, Option<String>) {
        let place = match cache_dir {
            Some(dir) => salt_in(dir).map(|salt| Place {
                file: dir.join("check.json"),
                salt,
            }),
            None => match crate::fsio::backup::state_dir(root) {
                Ok(state) => user_cache_dir()
                    .and_then(|dir| salt_in(&dir))
                    .map(|salt| Place {
                        file: state.join("cache").join("check.json"),
                        salt,
                    }),
                Err(e) => return (Cache::disabled(), Some(e.message)),
            },
        };
        let Some(place) = place else {
            return (
                Cache::disabled(),
                Some("no writable cache folder for the cache's key (set --cache-dir, XDG_CACHE_HOME or HOME); checking without a cache".to_string()),
            );
        };
        let old = std::fs::File::open(&place.file)
            .ok()
            .and_then(|file| {
                serde_json::from_reader::<_, Stored>(std::io::BufReader::new(file)).ok()
            })
            .filter(|stored| stored.version == version())
            .map(|stored| stored.entries)
            .unwrap_or_default();
        let cache = Cache {
            path: Some(place.file),
            salt: place.salt,
            old,
            hits: Mutex::new(Vec::new()),
            added: Mutex::new(HashMap::new()),
        };
        (cache, None)
    }

    /// The key of some content: BLAKE3 keyed with this cache's salt.
    /// The key of a script's content checked with `vocabulary` (which changes the answer).
    pub fn key(&self, content: &[u8], vocabulary: crate::analyze::Vocabulary) -> Key {
        let mut hasher = blake3::Hasher::new_keyed(&self.salt);
        hasher.update(vocabulary.as_str().as_bytes());
        hasher.update(&[0]);
        hasher.update(content);
        Key(*hasher.finalize().as_bytes())
    }

    pub fn get(&self, key: &Key) -> Option<Entry> {
        self.path.as_ref()?;
        let found = self.old.get(key).cloned()?;
        if let Ok(mut hits) = self.hits.lock() {
            hits.push(*key);
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

    /// Write the cache back if this run added to it: this run's entries first, then older ones
    /// up to the size limit. Failures are ignored: the cache only saves time.
    pub fn save(self) {
        let Some(path) = self.path else {
            return;
        };
        let mut entries = self.added.into_inner().unwrap_or_default();
        if entries.is_empty() {
            return;
        }
        let mut old = self.old;
        for key in self.hits.into_inner().unwrap_or_default() {
            if let Some(value) = old.remove(&key) {
                entries.insert(key, value);
            }
        }
        for (key, value) in old {
            if entries.len() >= MAX_ENTRIES {
                break;
            }
            entries.entry(key).or_insert(value);
        }
        let stored = Stored {
            version: version(),
            entries,
        };
        let Some(dir) = path.parent() else {
            return;
        };
        if std::fs::create_dir_all(dir).is_err() {
            return;
        }
        if dir.parent().and_then(|p| p.file_name()) == Some(std::ffi::OsStr::new(STATE_DIR)) {
            crate::fsio::ensure_state_ignored(dir.parent().unwrap_or(dir));
        }
        let _ = crate::fsio::atomic::write_atomic_with(&path, 0o644, None, |out| {
            serde_json::to_writer(out, &stored).map_err(std::io::Error::other)
        });
    }
}
