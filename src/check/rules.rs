//! The rules `check` reports, each with a stable code, and the one typed finding every printer
//! (text, JSON, GitHub annotations, SARIF) renders.

use serde::Serialize;

use crate::analyze::LegacyKind;

/// How much a finding matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// A rule: stable code, short name, severity, and its documentation.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    /// One line.
    pub summary: &'static str,
    /// What it means and what to do.
    pub explanation: &'static str,
    /// The README section that documents it.
    pub anchor: &'static str,
}

pub const LEGACY_OUTPUT: Rule = Rule {
    code: "SKM001",
    name: "legacy-output",
    severity: Severity::Error,
    summary: "Legacy result line printed to stdout",
    explanation: "An echo prints a legacy result line (SUCCESS, COMPLETE, Confidence:, Created:, Modified:) to the script's own stdout, where callers expect the JSON contract. Run `skillmod migrate` on the script to replace it with the JSON block, or suppress it with `# skillmod: ignore[SKM001]`.",
    anchor: "rules",
};

pub const STDOUT_WRITE: Rule = Rule {
    code: "SKM002",
    name: "stdout-write",
    severity: Severity::Warning,
    summary: "Other output on stdout in a script under the JSON contract",
    explanation: "An echo, printf or cat writes to stdout in a script that prints (or must print) the JSON contract, so stdout is no longer one JSON document. Send it to stderr (`>&2`, or `skillmod migrate --stdout-to-stderr`).",
    anchor: "rules",
};

pub const UNREADABLE: Rule = Rule {
    code: "SKM003",
    name: "unreadable",
    severity: Severity::Error,
    summary: "Script could not be read or parsed",
    explanation: "The file or folder could not be read, or a legacy line lies where tree-sitter-bash cannot parse the script, so skillmod cannot say whether it is clean. Fix the permission or syntax, or check the script by hand.",
    anchor: "rules",
};

pub const SKIPPED: Rule = Rule {
    code: "SKM004",
    name: "skipped",
    severity: Severity::Note,
    summary: "File skipped",
    explanation: "The file was not checked: a symlink, a binary file, or a file over --max-size. Pass the target of a symlink, or raise --max-size.",
    anchor: "rules",
};

pub const UNUSED_SUPPRESSION: Rule = Rule {
    code: "SKM005",
    name: "unused-suppression",
    severity: Severity::Warning,
    summary: "Suppression comment that suppresses nothing",
    explanation: "A `# skillmod: ignore` comment matches no finding in the statement it covers (the one it trails, or the next one). Remove it.",
    anchor: "rules",
};

pub const INVALID_SUPPRESSION: Rule = Rule {
    code: "SKM006",
    name: "invalid-suppression",
    severity: Severity::Error,
    summary: "Malformed suppression comment",
    explanation: "A `# skillmod: ignore[…]` comment names no rule (`ignore[]`), an unknown rule, or is not closed, so it suppresses nothing. Name codes (`ignore[SKM001]`), or drop the brackets to ignore every rule on the statement.",
    anchor: "rules",
};

pub const RUNTIME_OUT_OF_DATE: Rule = Rule {
    code: "SKM007",
    name: "runtime-out-of-date",
    severity: Severity::Error,
    summary: "Migrated skill whose runtime file is missing or older than skillmod's",
    explanation: "A capture-mode skill sources skillmod-runtime.sh from its project root. When that file is missing the skill exits 70 without a document (an error); when it, or the skill's own 0.1.0 inline runtime, is older than this skillmod's runtime, it still works but misses fixes (a warning). Run `skillmod migrate` on the skill: it writes or upgrades the runtime, with a backup.",
    anchor: "rules",
};

pub const CANNOT_MIGRATE: Rule = Rule {
    code: "SKM008",
    name: "cannot-migrate",
    severity: Severity::Error,
    summary: "Script with legacy lines that migrate refuses as it is",
    explanation: "The script has legacy lines, but migrate would refuse it, for the reason the message names with migrate's own code: PRINTS_JSON (the script already prints a JSON document of its own on some path, a `--json` mode say, and a migration would print a second one: report through that document and drop the legacy lines, or suppress them), NAME_CLASH (it uses the runtime's reserved `__skm_` names: rename them) or TRAP_UNSUPPORTED (a `trap` whose signal list is computed at run time: list its signals literally). `--mode comment` avoids the last two.",
    anchor: "rules",
};

/// Every rule, in code order (SARIF rule indices follow this order).
pub const RULES: &[&Rule] = &[
    &LEGACY_OUTPUT,
    &STDOUT_WRITE,
    &UNREADABLE,
    &SKIPPED,
    &UNUSED_SUPPRESSION,
    &INVALID_SUPPRESSION,
    &RUNTIME_OUT_OF_DATE,
    &CANNOT_MIGRATE,
];

/// Where the rules are documented.
pub const DOCS_URL: &str = "https://github.com/OWNER/skillmod/blob/main/README.md";

/// One finding: a rule broken at a place, with a message and, where there is one, a fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub severity: Severity,
    pub path: String,
    /// 1-based; 0 when the finding is about the whole file.
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The legacy kind, for SKM001.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<LegacyKind>,
    /// The statement's source text, where there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The command that fixes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// For SKM003 and SKM004: the specific code (PARSE_ERROR, SYMLINK, FILE_TOO_LARGE, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

impl Finding {
    pub fn rule(&self) -> &'static Rule {
        RULES
            .iter()
            .find(|r| r.code == self.code)
            .copied()
            .unwrap_or(&UNREADABLE)
    }
}

/// Which codes count: `--select` (default all) minus `--ignore`; a code matches a listed prefix
/// (`SKM00` selects them all), as ruff's selectors do. SKM003 always counts: a file that could
/// not be read, or a parse error that may hide a legacy line, is never turned into a pass by
/// the selection (only `--exit-zero` changes the exit status, and says so).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub select: Vec<String>,
    pub ignore: Vec<String>,
}

impl Selection {
    pub fn allows(&self, code: &str) -> bool {
        if code == UNREADABLE.code {
            return true;
        }
        let listed = |list: &[String]| list.iter().any(|p| code.starts_with(p.as_str()));
        (self.select.is_empty() || listed(&self.select)) && !listed(&self.ignore)
    }

    /// Unknown and empty codes are a usage error (a typo would silently select nothing, and an
    /// empty prefix would match every rule); SKM003 cannot be ignored by name.
    pub fn validate(&self) -> crate::error::Result<()> {
        let known: Vec<&str> = RULES.iter().map(|r| r.code).collect();
        for code in self.select.iter().chain(&self.ignore) {
            if code.trim().is_empty() {
                return Err(crate::error::Error::new(
                    "UNKNOWN_RULE",
                    format!(
                        "an empty rule code is not allowed (it would match every rule); name codes such as {}",
                        known.join(", ")
                    ),
                ));
            }
            if !RULES.iter().any(|r| r.code.starts_with(code.as_str())) {
                return Err(crate::error::Error::new(
                    "UNKNOWN_RULE",
                    format!(
                        "'{code}' matches no rule; the rules are {}",
                        known.join(", ")
                    ),
                ));
            }
        }
        if self.ignore.iter().any(|c| c == UNREADABLE.code) {
            return Err(crate::error::Error::new(
                "RULE_NOT_IGNORABLE",
                "SKM003 cannot be ignored: an unreadable file or a parse error that may hide a legacy line is never a pass; fix the file, or use --exit-zero to exit 0 with the error still reported",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_works_by_prefix() {
        let all = Selection::default();
        assert!(all.allows("SKM002"));
        let some = Selection {
            select: vec!["SKM00".into()],
            ignore: vec!["SKM002".into()],
        };
        assert!(some.allows("SKM001") && !some.allows("SKM002"));
        assert!(
            Selection {
                select: vec!["X".into()],
                ignore: vec![]
            }
            .validate()
            .is_err()
        );
    }

    #[test]
    fn errors_cannot_be_selected_or_ignored_away() {
        let ignore_all = Selection {
            select: vec!["SKM001".into()],
            ignore: vec!["SKM00".into()],
        };
        assert!(ignore_all.allows("SKM003"));
        assert!(!ignore_all.allows("SKM001"));
        for bad in [vec![String::new()], vec![" ".into()], vec!["SKM003".into()]] {
            let selection = Selection {
                select: vec![],
                ignore: bad.clone(),
            };
            assert!(selection.validate().is_err(), "{bad:?}");
        }
    }
}
