//! The rules `check` reports, each with a stable code, and the one typed finding every printer
//! (text, JSON, GitHub annotations, SARIF) renders.

use crate::codes;
use serde::Serialize;

use super::legacy::LegacyKind;

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

/// A rule `check` reports. Everything about a rule (code, name, severity, documentation, an
/// example) is defined here once; printers, `skillmod rule`, suppression comments, `--select` and
/// the rules table of docs/check.md read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    LegacyOutput,
    StdoutWrite,
    Unreadable,
    Skipped,
    UnusedSuppression,
    InvalidSuppression,
    RuntimeOutOfDate,
    CannotMigrate,
    NotSelfContained,
    OutOfReach,
}

/// The documentation of one rule (`skillmod rule --format json` prints it as it is).
#[derive(Debug, Serialize)]
pub struct Spec {
    code: &'static str,
    name: &'static str,
    severity: Severity,
    summary: &'static str,
    explanation: &'static str,
    example: &'static str,
}

impl Rule {
    /// Every rule, in code order (SARIF rule indices follow this order).
    pub const ALL: [Rule; 10] = [
        Rule::LegacyOutput,
        Rule::StdoutWrite,
        Rule::Unreadable,
        Rule::Skipped,
        Rule::UnusedSuppression,
        Rule::InvalidSuppression,
        Rule::RuntimeOutOfDate,
        Rule::CannotMigrate,
        Rule::NotSelfContained,
        Rule::OutOfReach,
    ];

    /// Everything the registry says about the rule.
    pub fn spec(self) -> &'static Spec {
        match self {
            Rule::LegacyOutput => &Spec {
                code: "SKM001",
                name: "legacy-output",
                severity: Severity::Error,
                summary: "an `echo` (or a helper function of the script) prints a legacy result line to the script's stdout",
                explanation: "An echo prints a legacy result line (SUCCESS, COMPLETE, Confidence:, Created:, Modified:) to the script's own stdout, where callers expect the JSON contract. So does a call that hands such a line to a function of the script that prints its arguments (`print_success \"Created: $f\"`, where `print_success() { echo -e \"${GREEN}✓${NC} $1\"; }`): capture mode records it from the call's arguments and keeps the call. Run `skillmod migrate` on the script to replace it with the JSON block, or suppress it with `# skillmod: ignore[SKM001]`.",
                example: "#!/bin/bash\nmake build\necho \"SUCCESS\"\n",
            },
            Rule::StdoutWrite => &Spec {
                code: "SKM002",
                name: "stdout-write",
                severity: Severity::Warning,
                summary: "another `echo`/`printf`/`cat` writes to stdout in a script under the JSON contract; in capture mode one note per unmigrated file (the runtime will move them), nothing once migrated",
                explanation: "An echo, printf or cat writes to stdout in a script that prints (or must print) the JSON contract, so stdout is no longer one JSON document. Send it to stderr (`>&2`, or `skillmod migrate --stdout-to-stderr`).",
                example: "#!/bin/bash\nset -e\necho \"Building...\"\necho \"SUCCESS\"\n",
            },
            Rule::Unreadable => &Spec {
                code: "SKM003",
                name: "unreadable",
                severity: Severity::Error,
                summary: "a file or folder cannot be read, or a legacy line lies where tree-sitter-bash cannot parse",
                explanation: "The file or folder could not be read, or a legacy line lies where tree-sitter-bash cannot parse the script, so skillmod cannot say whether it is clean. Fix the permission or syntax, or check the script by hand.",
                example: "#!/bin/bash\nif then; fi\necho \"SUCCESS\"\n",
            },
            Rule::Skipped => &Spec {
                code: "SKM004",
                name: "skipped",
                severity: Severity::Note,
                summary: "a file was not checked: a note when it is no shell script; a script that could not be judged (over `--max-size`, a FIFO, binary, a symlink that is broken or leads outside the project root) is an error when named or called `execute.sh`, else a warning, and never a pass",
                explanation: "The file was not checked. A file that is not a shell script is a note. A selected script whose content could not be judged (over --max-size, not a regular file, binary, a symlink that loops, dangles or leads outside the project root or into .git) is never a pass: an error (exit 1) when it was named on the command line or is called execute.sh, a warning (the summary says it was not checked) when a walk found it in a skill folder. No setting or comment drops these; only --exit-zero changes the exit status. A symlink to a file inside the project root is judged at its target. Raise --max-size, point the link inside the repository, or put a regular script there.",
                example: "skills/deploy/execute.sh -> /etc/deploy.sh   (a symlink out of the project root: OUTSIDE_ROOT, an error)\n",
            },
            Rule::UnusedSuppression => &Spec {
                code: "SKM005",
                name: "unused-suppression",
                severity: Severity::Warning,
                summary: "a `# skillmod: ignore` comment suppresses nothing (with `--report-unused-suppressions`)",
                explanation: "A `# skillmod: ignore` comment matches no finding in the statement it covers (the one it trails, or the next one). Remove it.",
                example: "#!/bin/bash\necho \"Building\" >&2  # skillmod: ignore[SKM001]\n",
            },
            Rule::InvalidSuppression => &Spec {
                code: "SKM006",
                name: "invalid-suppression",
                severity: Severity::Error,
                summary: "a `# skillmod: ignore[…]` comment names no rule, an unknown rule, or is not closed",
                explanation: "A `# skillmod: ignore[…]` comment names no rule (`ignore[]`), an unknown rule, or is not closed, so it suppresses nothing. Name codes (`ignore[SKM001]`), or drop the brackets to ignore every rule on the statement.",
                example: "#!/bin/bash\necho \"SUCCESS\"  # skillmod: ignore[SKM999]\n",
            },
            Rule::RuntimeOutOfDate => &Spec {
                code: "SKM007",
                name: "runtime-out-of-date",
                severity: Severity::Error,
                summary: "a capture-migrated skill's runtime is missing (`RUNTIME_MISSING`), not in git (`RUNTIME_UNTRACKED`) or not skillmod's (`RUNTIME_FOREIGN`): errors; older, or in 0.2.0's project-wide layout (`RUNTIME_OUTDATED`): a warning; 0.1.0's inline runtime, which cannot be verified byte for byte (`RUNTIME_OUTDATED`): an error; fix: `skillmod migrate FILE`",
                explanation: "A capture-mode skill loads skillmod-runtime.sh from its skill folder. When that file is missing (or, inside git, not committed), a run prints a RUNTIME_MISSING document and exits 70 (an error); a runtime whose bytes are not skillmod's runs someone else's code with the skill (an error: read it, then `skillmod migrate --replace-runtime`); a runtime older than this skillmod's, 0.2.0's single runtime at the project root (a copied skill folder lacks it) or 0.1.0's inline runtime still work but miss fixes (a warning). Run `skillmod migrate` on the skill: it writes, converts or upgrades the runtime, with a backup.",
                example: "#!/bin/bash\n__skm_need=0 command . \"$(dirname -- \"$0\")/skillmod-runtime.sh\" || { echo \"run: skillmod migrate $0\" >&2; exit 70; }\n: # LEGACY (replaced with JSON): echo \"SUCCESS\"\n",
            },
            Rule::CannotMigrate => &Spec {
                code: "SKM008",
                name: "cannot-migrate",
                severity: Severity::Error,
                summary: "a script with legacy lines that migrate refuses as it is, with migrate's code in the message: `PRINTS_JSON` (it already prints a JSON document of its own on some path), `NAME_CLASH`, `TRAP_UNSUPPORTED`, `DESCRIPTOR_CLASH`, `CAPTURED_AND_PRINTED`, `SUBSHELL_RESULT` (a legacy line in a subshell, a pipeline or the background), `NO_SHEBANG` (no shebang, and no selected script sources it), `LIBRARY_UNHOSTED` (it returns at top level, and no selected script sources it through a path skillmod follows), `STDOUT_ANSWER` or `PASSED_ON` (another script of its skill reads its stdout, or runs it with its stdout passed on into its own), `EXEC_REPLACES_SHELL` (a legacy line printed by `exec echo`)",
                explanation: "The script has legacy lines, but migrate would refuse it, for the reason the message names with migrate's own code: PRINTS_JSON (the script already prints a JSON document of its own on some path, a `--json` mode say, and a migration would print a second one: report through that document and drop the legacy lines, or suppress them), NAME_CLASH (it uses the runtime's reserved `__skm_` names: rename them), TRAP_UNSUPPORTED (a `trap` whose signal list is computed at run time, or one set through `eval`: list its signals literally in a plain `trap`), DESCRIPTOR_CLASH (it uses file descriptor 8, which the runtime keeps for the real stdout), CAPTURED_AND_PRINTED (a legacy line in a function whose output is captured at one call and printed at another: give the captured call its own function), SUBSHELL_RESULT (a legacy line inside `( … )`, a pipeline or the background `&`, or in a function called there, whose record would end with the subshell: print it outside, in a `{ …; }` group or a loop fed by `< <(cmd)`), EXEC_REPLACES_SHELL (a legacy line printed by `exec echo …`: the shell ends there, so no document can follow it in either mode, and a rewrite without `exec` would run the rest of the script; print it without `exec` and put `exit` after it) or NO_SHEBANG (the script has no shebang, no selected script sources it and it does not return at top level, so it may be a script run as `bash FILE` or a library sourced from elsewhere: taken as a library, its result lines would print nothing when it runs on its own. Give it a shebang if it runs on its own; if it is a library, select the script that sources it too; or name it with `--skill-path FILE`, which says it is a script on purpose: migrate then writes `#!/usr/bin/env bash` as its first line. A positional file or an `--include` match says no such thing, since `skillmod migrate lib.sh` and `--include '*.sh'` name libraries too), or LIBRARY_UNHOSTED (it returns at top level, so it is a library, but no selected script sources it through a path skillmod follows: the script that does may have no runtime, and its result lines would then print nothing; select that script, with the library's path written literally), or PASSED_ON (another selected script of its skill runs it plainly, `bash \"$DIR/scripts/gen.sh\"`, so its stdout is part of that script's output: migrated, it would print a JSON document of its own there; report its results from the caller, or suppress its legacy lines). `--mode comment` avoids all but PRINTS_JSON and EXEC_REPLACES_SHELL.",
                example: "#!/bin/bash\nif [ \"$1\" = --json ]; then\n  echo '{\"ok\": true}'\n  exit 0\nfi\necho \"SUCCESS\"\n",
            },
            Rule::NotSelfContained => &Spec {
                code: "SKM009",
                name: "not-self-contained",
                severity: Severity::Note,
                summary: "a script of a skill folder sources a file outside that folder, so the folder cannot be copied alone",
                explanation: "A skill is installed by copying its folder (the one holding SKILL.md) alone: into ~/.claude/skills/NAME, a plugin cache, a zip. A script that sources a file outside that folder fails there. Move the file into the skill folder (or copy it), or accept that the skill only runs inside its repository.",
                example: "#!/bin/bash\n. \"$(dirname \"$0\")/../lib/common.sh\"\necho hi >&2\n",
            },
            Rule::OutOfReach => &Spec {
                code: "SKM010",
                name: "out-of-reach",
                severity: Severity::Note,
                summary: "legacy-looking text in a form check cannot read as output (a heredoc printed by `cat`, a computed or multi-line `printf`, a `trap` action, a variable, a helper defined in another file, a write to a descriptor opened earlier); shown with `--verbose`",
                explanation: "check reads what an `echo`, a `printf` with a literal one-line format, an `echo` piped into `tee`, or a helper function the script defines prints. Text that reaches stdout another way is out of its reach: a heredoc printed by `cat`, a `printf` whose format is computed or prints several lines, a `trap` action, a variable printed later, the arguments of a command the script does not define when it sources other files or runs `eval` (a helper defined there), a line written to a descriptor the script opened earlier (`exec 3>&1 >&2` … `echo SUCCESS >&3`: which descriptor is stdout is decided at run time), an `echo` piped into a command other than `tee` (`echo SUCCESS | cat`), a string run as code (`eval`, `bash -c`, an alias, a here-string fed to `source`), an `echo` another program runs (`env echo`, `timeout 5 echo`, `setsid echo`), a heredoc or here-string fed to a command (`cat`, `head`, `read`), an `echo` in a command or process substitution (`$(echo …)`, `<(echo …)`), a default value (`${x:-SUCCESS}`), an array element, `printf -v`, a command whose name is computed (`$e SUCCESS`), a write to a file named at run time (`> \"$OUT\"`), an `echo` to stderr where stderr goes to stdout (`{ …; } 2>&1`), a coprocess. Such a script may still print legacy lines at run time, which neither check nor migrate sees. Print each result line with its own literal `echo`, or record it with the runtime's functions (`skillmod_success`, `skillmod_created PATH`).",
                example: "#!/bin/bash\ncat <<EOF\nSUCCESS\nEOF\n",
            },
        }
    }

    /// The stable code (`SKM001`).
    pub fn code(self) -> &'static str {
        self.spec().code
    }

    /// The short name (`legacy-output`).
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// The severity its findings have unless the finding says otherwise.
    pub fn severity(self) -> Severity {
        self.spec().severity
    }

    /// One line.
    pub fn summary(self) -> &'static str {
        self.spec().summary
    }

    /// What it means and what to do.
    pub fn explanation(self) -> &'static str {
        self.spec().explanation
    }

    /// A script (or, for SKM004, a file) that gives the finding.
    pub fn example(self) -> &'static str {
        self.spec().example
    }

    /// Its place in `ALL` (SARIF's `ruleIndex`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The rule with this code.
    pub fn from_code(code: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.code() == code)
    }

    /// The rules whose codes start with `prefix` (`SKM00` selects them all, as ruff's selectors).
    pub fn matching(prefix: &str) -> impl Iterator<Item = Rule> + '_ {
        Rule::ALL
            .into_iter()
            .filter(move |r| r.code().starts_with(prefix))
    }

    /// Every code, comma-separated, for messages.
    pub fn known_codes() -> String {
        Rule::ALL.map(Rule::code).join(", ")
    }

    /// The rules table of docs/check.md.
    pub fn markdown_table() -> String {
        let mut table = String::from("| code | name | severity | meaning |\n|---|---|---|---|\n");
        for rule in Rule::ALL {
            table.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                rule.code(),
                rule.name(),
                rule.severity().as_str(),
                rule.summary()
            ));
        }
        table
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

impl Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

/// Where skillmod is documented.
pub(crate) const DOCS_URL: &str = "https://github.com/OWNER/skillmod/blob/main/README.md";

/// Where the rules are documented: the rules table of docs/check.md.
pub(crate) const RULES_URL: &str =
    "https://github.com/OWNER/skillmod/blob/main/docs/check.md#rules";

/// One finding: a rule broken at a place, with a message and, where there is one, a fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: Rule,
    pub severity: Severity,
    /// Marked text (see `bytes_text`); reports write it through `bytes_text::report_path`.
    #[serde(serialize_with = "crate::bytes_text::serde_path::one")]
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
    pub reason: Option<crate::codes::Code>,
}

impl Finding {
    /// A finding of `rule` at its default severity, with no kind, text, fix or reason.
    pub fn new(rule: Rule, path: &str, (line, column): (usize, usize), message: String) -> Finding {
        Finding {
            code: rule,
            severity: rule.severity(),
            path: path.to_string(),
            line,
            column,
            message,
            kind: None,
            text: None,
            fix: None,
            reason: None,
        }
    }

    pub fn severity(self, severity: Severity) -> Finding {
        Finding { severity, ..self }
    }

    pub fn text(self, text: String) -> Finding {
        Finding {
            text: Some(text),
            ..self
        }
    }

    pub fn fix(self, fix: Option<String>) -> Finding {
        Finding { fix, ..self }
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
    pub fn allows(&self, rule: Rule) -> bool {
        if rule == Rule::Unreadable {
            return true;
        }
        let code = rule.code();
        let listed = |list: &[String]| list.iter().any(|p| code.starts_with(p.as_str()));
        (self.select.is_empty() || listed(&self.select)) && !listed(&self.ignore)
    }

    /// Unknown and empty codes are a usage error (a typo would silently select nothing, and an
    /// empty prefix would match every rule); SKM003 cannot be ignored by name.
    pub fn validate(&self) -> crate::error::Result<()> {
        for code in self.select.iter().chain(&self.ignore) {
            if code.trim().is_empty() {
                return Err(crate::error::Error::new(
                    codes::UNKNOWN_RULE,
                    format!(
                        "an empty rule code is not allowed (it would match every rule); name codes such as {}",
                        Rule::known_codes()
                    ),
                ));
            }
            if Rule::matching(code).next().is_none() {
                return Err(crate::error::Error::new(
                    codes::UNKNOWN_RULE,
                    format!(
                        "'{code}' matches no rule; the rules are {}",
                        Rule::known_codes()
                    ),
                ));
            }
        }
        if self.ignore.iter().any(|c| c == Rule::Unreadable.code()) {
            return Err(crate::error::Error::new(
                codes::RULE_NOT_IGNORABLE,
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
        assert!(all.allows(Rule::StdoutWrite));
        let some = Selection {
            select: vec!["SKM00".into()],
            ignore: vec!["SKM002".into()],
        };
        assert!(some.allows(Rule::LegacyOutput) && !some.allows(Rule::StdoutWrite));
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
        assert!(ignore_all.allows(Rule::Unreadable));
        assert!(!ignore_all.allows(Rule::LegacyOutput));
        for bad in [vec![String::new()], vec![" ".into()], vec!["SKM003".into()]] {
            let selection = Selection {
                select: vec![],
                ignore: bad.clone(),
            };
            assert!(selection.validate().is_err(), "{bad:?}");
        }
    }
}
