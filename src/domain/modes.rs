//! How migrate rewrites legacy statements, and where capture mode's runtime goes: the choices
//! the settings file, the flags and the commands share.

/// How legacy statements are rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Replace each with `:` and append a static JSON block built from literal values. Its limits:
    /// the block lists the literal values of every branch, taken or not, and the script's other
    /// output stays on stdout beside it (`validate --strict` refuses that).
    Comment,
    /// Record values at run time and print the JSON from an EXIT trap on every exit path.
    #[default]
    Capture,
}

/// Where capture mode's runtime goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Default, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// One `skillmod-runtime.sh` per skill folder (the folder holding SKILL.md; in its scripts/
    /// when it has one), sourced by one line after each shebang: a skill folder copied alone
    /// still runs.
    #[default]
    Skill,
    /// One `skillmod-runtime.sh` at the project root (0.2.0's layout).
    Project,
    /// Deprecated name of `project`.
    #[value(hide = true)]
    File,
    /// A readable block after each shebang.
    Inline,
}

impl Placement {
    /// `file` is `project`.
    pub fn canonical(self) -> Placement {
        match self {
            Placement::File => Placement::Project,
            other => other,
        }
    }
}
