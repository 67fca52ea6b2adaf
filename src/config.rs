//! The project settings file, `skillmod.toml` (or `.skillmod.toml`): found by walking up from the
//! working folder, or named with `--config`; `--isolated` ignores it. Every key is optional and
//! every command-line flag wins over it. Unknown keys are errors, so a typo never passes silently.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::analyze::Vocabulary;
use crate::error::{Error, Result};
use crate::migrate::Mode;

/// The file names looked for in each folder, in this order.
pub const FILE_NAMES: [&str; 2] = ["skillmod.toml", ".skillmod.toml"];

/// What a settings file may hold (kebab-case keys, all optional).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Settings {
    /// File-name globs searched for besides execute.sh (`--include`).
    pub include: Option<Vec<String>>,
    /// Paths to leave out, gitignore syntax relative to the file's folder (`--exclude`).
    pub exclude: Option<Vec<String>>,
    /// Rules `check` reports (`--select`).
    pub select: Option<Vec<String>>,
    /// Rules `check` does not report (`--ignore`).
    pub ignore: Option<Vec<String>>,
    /// How `migrate` rewrites (`--mode`).
    pub mode: Option<Mode>,
    /// The JSON block template: a built-in name or a path relative to the file (`--template`).
    pub template: Option<String>,
    /// Confidence when no `Confidence:` line gives one (`--default-confidence`).
    pub default_confidence: Option<f64>,
    /// Which printed lines are legacy lines (`--vocabulary`).
    pub vocabulary: Option<Vocabulary>,
}

/// The settings in force and where they came from.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub settings: Settings,
    /// The file read, if any.
    pub path: Option<PathBuf>,
}

impl Config {
    /// The folder relative paths in the file are resolved against.
    pub fn dir(&self) -> Option<&Path> {
        self.path.as_deref().and_then(Path::parent)
    }

    /// Load the settings: `explicit` when given, none when `isolated`, else the nearest file
    /// found walking up from `start`.
    pub fn load(explicit: Option<&Path>, isolated: bool, start: &Path) -> Result<Config> {
        let path = match explicit {
            Some(path) => {
                if !path.is_file() {
                    return Err(Error::new(
                        "CONFIG_NOT_FOUND",
                        format!(
                            "--config {}: no such file; pass the path of a skillmod.toml",
                            path.display()
                        ),
                    ));
                }
                Some(path.to_path_buf())
            }
            None if isolated => None,
            None => find(start),
        };
        let Some(path) = path else {
            return Ok(Config::default());
        };
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Error::io("CONFIG_UNREADABLE", "cannot read", &path, &e))?;
        let settings = parse(&text).map_err(|message| {
            Error::new(
                "CONFIG_INVALID",
                format!(
                    "{}: {message}; fix the file, or run with --isolated to ignore it",
                    path.display()
                ),
            )
        })?;
        let path = std::path::absolute(&path).unwrap_or(path);
        Ok(Config {
            settings,
            path: Some(path),
        })
    }

    /// `--template` or the file's, with a relative path in the file resolved against its folder.
    pub fn template(&self, flag: Option<&str>) -> (String, Option<PathBuf>) {
        if let Some(flag) = flag {
            return (flag.to_string(), None);
        }
        match &self.settings.template {
            Some(spec) => (spec.clone(), self.dir().map(|d| d.join(spec))),
            None => (crate::rewrite::template::DEFAULT.to_string(), None),
        }
    }
}

/// A list flag, or the settings file's list when the flag is not given: a flag replaces the
/// file's list rather than adding to it (ruff's habit).
pub fn list_or_setting(flag: &[String], setting: &Option<Vec<String>>) -> Vec<String> {
    match setting {
        Some(list) if flag.is_empty() => list.clone(),
        _ => flag.to_vec(),
    }
}

/// Parse and check a settings file's text; the error names the line and the key.
pub fn parse(text: &str) -> std::result::Result<Settings, String> {
    let settings: Settings =
        toml::from_str(text).map_err(|e| e.to_string().trim().replace('\n', " "))?;
    if let Some(x) = settings.default_confidence
        && !(0.0..=1.0).contains(&x)
    {
        return Err(format!("default-confidence = {x} is not between 0 and 1"));
    }
    Ok(settings)
}

/// The nearest settings file in `start` or a folder above it.
pub fn find(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| {
        FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_parses() {
        let settings = parse(
            "include = ['*.sh']\nexclude = ['vendor/']\nselect = ['SKM001']\nignore = ['SKM002']\n\
             mode = 'comment'\ntemplate = 'minimal'\ndefault-confidence = 0.9\nvocabulary = 'original'\n",
        )
        .expect("valid settings");
        assert_eq!(settings.include, Some(vec!["*.sh".to_string()]));
        assert_eq!(settings.mode, Some(Mode::Comment));
        assert_eq!(settings.vocabulary, Some(Vocabulary::Original));
        assert_eq!(settings.default_confidence, Some(0.9));
    }

    #[test]
    fn a_typo_is_an_error_that_names_the_key() {
        let error = parse("selcet = ['SKM001']\n").expect_err("unknown key");
        assert!(error.contains("selcet"), "{error}");
    }

    #[test]
    fn confidence_out_of_range_is_refused() {
        assert!(parse("default-confidence = 3\n").is_err());
    }

    #[test]
    fn the_nearest_file_wins() {
        let dir = tempfile::tempdir().expect("temp dir");
        let inner = dir.path().join("a/b");
        std::fs::create_dir_all(&inner).expect("folders");
        std::fs::write(dir.path().join("skillmod.toml"), "").expect("outer");
        std::fs::write(dir.path().join("a/.skillmod.toml"), "").expect("inner");
        assert_eq!(find(&inner), Some(dir.path().join("a/.skillmod.toml")));
    }
}
