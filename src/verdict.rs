//! One verdict: whether migrate may rewrite a script, decided once from what the analysis found
//! and the resolved settings. migrate acts on it (the file is left as it is, with the refusal);
//! check reports the same refusal as SKM008. Every refusal of a script that migrate would
//! otherwise rewrite is decided here and nowhere else.

use serde::{Deserialize, Serialize};

use crate::analyze::Analysis;
use crate::codes::{self, Code};
use crate::domain::modes::Mode;
use crate::domain::refusal::ADDED_SHEBANG;
use crate::error::Error;
use crate::unit::callers::Takes;

/// What the verdict reads of one analysis. check caches it with the rest of a file's entry, so a
/// cached file is judged as a fresh one is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// The script is migrated already: it gets only its upkeep (a newer runtime), never capture
    /// mode's rewrite.
    pub already_migrated: bool,
    /// Line and column where the script prints a JSON document of its own.
    pub prints_json: Option<(usize, usize)>,
    /// Line and column of a legacy line printed through `exec`, which ends the shell there.
    pub exec_legacy: Option<(usize, usize)>,
    /// No shebang and no top-level `return`: only a selected script that sources it, or
    /// `--skill-path`, says whether it runs on its own (`Analysis::role_unknown`).
    pub role_unknown: bool,
    /// A `return` outside every function: a library, whose lines record into the runtime of the
    /// script that sources it.
    pub top_level_return: bool,
    /// Why capture mode's rewrite would change what the script does (reserved names, a computed
    /// trap, descriptor 8, a captured legacy line): its line, code and message.
    pub capture: Option<(usize, Code, String)>,
    /// The script's stdout is its answer: how many writes, and the first one's line and text.
    pub answer: Option<(usize, usize, String)>,
}

impl Facts {
    /// The facts of `analysis` of `source`. Capture mode's refusals are looked for only in a
    /// script migrate would `rewrite` (legacy lines, `--force`, a library it hosts): no other is
    /// ever asked about them.
    pub fn of(analysis: &Analysis, source: &[u8], rewrite: bool) -> Facts {
        Facts {
            already_migrated: analysis.already_migrated,
            prints_json: analysis.prints_json,
            exec_legacy: analysis.exec_legacy,
            role_unknown: analysis.role_unknown(source),
            // Asked only of a script migrate would rewrite, as the capture refusals are.
            top_level_return: rewrite && analysis.returns_at_top_level(source),
            capture: if analysis.already_migrated {
                crate::rewrite::capture::clash_in_migrated(analysis, source)
            } else if rewrite {
                crate::rewrite::capture::refusal(analysis, source)
            } else {
                None
            }
            .map(|(line, e)| (line, e.code, e.message)),
            answer: analysis
                .answer
                .first()
                .map(|first| (analysis.answer.len(), first.line, first.text.clone())),
        }
    }

    /// The facts with capture mode's `NAME_CLASH` for a library `script` sources (`sourced`)
    /// that defines a function under a command the runtime runs, when one does: read from disk
    /// every time (a cached verdict does not see the library change), and only for a script
    /// migrate would rewrite whose own text gave no refusal.
    pub fn with_sourced_clash(
        &self,
        script: Option<&std::path::Path>,
        sourced: impl FnOnce() -> Vec<(usize, std::path::PathBuf)>,
        rewrite: bool,
        max_size: u64,
    ) -> Option<Facts> {
        if self.capture.is_some() || !rewrite || self.already_migrated {
            return None;
        }
        let capture = crate::unit::sourcing::shadowing_library(script?, &sourced(), max_size)?;
        Some(Facts {
            capture: Some(capture),
            ..self.clone()
        })
    }
}

/// What is asked of migrate for one script, as the settings and the selection resolve it.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    pub mode: Mode,
    /// Capture mode leaves the other output on stdout (`--keep-stdout` or the setting).
    pub keep_stdout: bool,
    /// The script has legacy lines left to migrate (not suppressed).
    pub legacy: bool,
    /// `--force` puts the script under the contract even without a legacy line.
    pub force: bool,
    /// The script sources a library with legacy lines, so it gets the runtime for them.
    pub hosts_library: bool,
    /// Its role is given: it is sourced by a selected script, or named with `--skill-path`.
    pub role_given: bool,
    /// A selected script sources it, through a path skillmod follows.
    pub sourced: bool,
    /// Its stdout may not be its answer: a library, or a script written against the runtime.
    pub answer_exempt: bool,
    /// Another selected script of its skill takes its stdout (`x=$(bash it.sh)`, or a plain
    /// `bash it.sh` whose output passes on into its own): that script, the line, and how.
    pub read_by: Option<(&'a std::path::Path, usize, Takes)>,
}

impl Ask<'_> {
    /// Whether migrate would rewrite the script at all: legacy lines, `--force`, or a library
    /// it hosts.
    pub fn rewrites(&self) -> bool {
        self.legacy || self.force || self.hosts_library
    }
}

/// Why migrate leaves a script as it is: the place, and the refusal with its code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub line: usize,
    pub column: usize,
    pub error: Error,
    /// The refusal stands against capture mode's rewrite itself (a file migrate tried and
    /// failed, as opposed to one it skips for what it is).
    pub against_rewrite: bool,
}

impl Refusal {
    /// Capture mode's refusal of the rewrite itself (`Facts::capture`).
    fn of_capture((line, code, message): &(usize, Code, String)) -> Refusal {
        Refusal {
            line: *line,
            column: 1,
            error: Error::new(*code, message.clone()),
            against_rewrite: true,
        }
    }

    /// A refusal of the script for what it is, at `line:column`.
    fn of((line, column): (usize, usize), error: Error) -> Refusal {
        Refusal {
            line,
            column,
            error,
            against_rewrite: false,
        }
    }
}

/// The one verdict: None when migrate may rewrite the script, else why not.
pub fn refusal(facts: &Facts, ask: &Ask) -> Option<Refusal> {
    // A script migrated already, with nothing left to rewrite, and edited since to write to the
    // runtime's descriptor.
    if facts.already_migrated && ask.mode == Mode::Capture && !ask.rewrites() {
        return facts
            .capture
            .as_ref()
            .filter(|(_, code, _)| *code == codes::DESCRIPTOR_CLASH)
            .map(Refusal::of_capture);
    }
    if !ask.rewrites() {
        return None;
    }
    // A caller that reads the script's stdout would read the document instead.
    if let Some((caller, at, takes)) = ask.read_by.filter(|_| !facts.already_migrated) {
        let error = match takes {
            Takes::Reads => read_by_caller(caller, at),
            Takes::PassesOn => passed_on_by(caller, at),
        };
        return Some(Refusal::of((1, 1), error));
    }
    // A script that prints a document of its own would print two.
    if let Some((line, column)) = facts.prints_json {
        return Some(Refusal::of((line, column), prints_json(line, column)));
    }
    // The shell ends at the `exec`: no mode can print the document after it.
    if let Some((line, column)) = facts.exec_legacy {
        return Some(Refusal::of(
            (line, column),
            exec_replaces_shell(line, column),
        ));
    }
    if ask.mode != Mode::Capture || facts.already_migrated {
        return None;
    }
    // Nothing says whether it runs on its own or is sourced: neither role is given it.
    if facts.role_unknown && !ask.role_given {
        return Some(Refusal::of((1, 1), no_shebang()));
    }
    // A library no selected script is known to source: the script that does may have no
    // runtime, and its lines would then record into nothing.
    if facts.top_level_return && !ask.sourced && ask.legacy {
        return Some(Refusal::of((1, 1), library_unhosted()));
    }
    if let Some(answer) = facts
        .answer
        .as_ref()
        .filter(|_| !ask.hosts_library && !ask.answer_exempt && !ask.keep_stdout)
    {
        return Some(Refusal::of((answer.1, 1), stdout_answer(answer)));
    }
    facts
        .capture
        .as_ref()
        .filter(|(_, code, _)| !(ask.keep_stdout && *code == codes::DESCRIPTOR_CLASH))
        .map(Refusal::of_capture)
}

/// `PRINTS_JSON`: the script prints a JSON document of its own at `line:column`.
fn prints_json(line: usize, column: usize) -> Error {
    Error::new(
        codes::PRINTS_JSON,
        format!(
            "line {line}:{column} already prints a JSON document on stdout, so migrating would print a second one; report through that document and drop the legacy lines, or suppress them with # skillmod: ignore[SKM001]"
        ),
    )
}

/// `EXEC_REPLACES_SHELL`: a legacy line printed by `exec echo …` at `line:column`.
fn exec_replaces_shell(line: usize, column: usize) -> Error {
    Error::new(
        codes::EXEC_REPLACES_SHELL,
        format!(
            "line {line}:{column} prints a legacy line through `exec`, which replaces the shell: nothing after it runs, so the JSON document cannot be printed after it, and a rewrite without `exec` would run the rest of the script. Print the line without `exec` and put `exit` after it, then migrate again"
        ),
    )
}

/// `NO_SHEBANG`: a script with no shebang that nothing marks as a library.
fn no_shebang() -> Error {
    Error::new(
        codes::NO_SHEBANG,
        format!(
            "has no shebang, no selected script sources it, and it does not return at top level: it may be a script run as `bash FILE` or a library sourced from elsewhere, so it is left as it is (taken as a library, its result lines would print nothing when it runs on its own). If it runs on its own, give it a shebang (`{ADDED_SHEBANG}`) or name it with --skill-path FILE (migrate then writes that shebang); if it is a library, select the script that sources it too"
        ),
    )
}

/// `LIBRARY_UNHOSTED`: a library that no selected script sources through a path skillmod follows.
fn library_unhosted() -> Error {
    Error::new(
        codes::LIBRARY_UNHOSTED,
        "returns at top level, so it is a library, but no selected script sources it through a path skillmod follows (a literal one, `. \"$(dirname \"$0\")/lib.sh\"`): migrated, its result lines would record into the runtime of the script that sources it, which may have none, and then print nothing. Select the script that sources it, with the library's path written literally in its `source` line, or migrate with --mode comment",
    )
}

/// `STDOUT_ANSWER`: another selected script reads the script's stdout at `caller:line`.
fn read_by_caller(caller: &std::path::Path, line: usize) -> Error {
    Error::new(
        codes::STDOUT_ANSWER,
        format!(
            "its stdout is read by {}:{line}, which runs it in a command substitution or a pipe; migrating it would hand that caller a JSON document instead. Leave it as it is (exclude it, or suppress its legacy lines with # skillmod: ignore[SKM001]), or change the caller to read the document",
            crate::bytes_text::quote_os(caller)
        ),
    )
}

/// `PASSED_ON`: another selected script runs it plainly at `caller:line`, its stdout passing on
/// into that script's own.
fn passed_on_by(caller: &std::path::Path, line: usize) -> Error {
    Error::new(
        codes::PASSED_ON,
        format!(
            "is run by {}:{line} with its stdout passed on into that script's output; migrated, it would print a JSON document of its own there (a second one, or one the caller's document does not hold). Report its results from the caller (have the caller print them, or record them with the runtime's functions), or suppress its legacy lines with # skillmod: ignore[SKM001]",
            crate::bytes_text::quote_os(caller)
        ),
    )
}

/// `STDOUT_ANSWER`: `--force` would give a script with no legacy line the runtime, which moves
/// its stdout to stderr, where the script's stdout is its answer.
fn stdout_answer((writes, line, text): &(usize, usize, String)) -> Error {
    Error::new(
        codes::STDOUT_ANSWER,
        format!(
            "has no legacy line, and its stdout is its answer ({writes} write(s), the first at line {line}: `{text}`); --force would move it to stderr, where a caller such as `X=$(bash script.sh)` no longer finds it. Keep it with --keep-stdout (the answer stays before the document), or leave the script as it is"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(mode: Mode) -> Ask<'static> {
        Ask {
            mode,
            keep_stdout: false,
            legacy: true,
            force: false,
            hosts_library: false,
            role_given: false,
            sourced: false,
            answer_exempt: false,
            read_by: None,
        }
    }

    fn code(facts: &Facts, ask: &Ask) -> Option<&'static str> {
        refusal(facts, ask).map(|r| r.error.code.code)
    }

    #[test]
    fn a_script_with_nothing_to_rewrite_is_never_refused() {
        let facts = Facts {
            prints_json: Some((3, 1)),
            role_unknown: true,
            ..Facts::default()
        };
        let nothing = Ask {
            legacy: false,
            ..ask(Mode::Capture)
        };
        assert_eq!(code(&facts, &nothing), None);
        let forced = Ask {
            force: true,
            ..nothing
        };
        assert_eq!(code(&facts, &forced), Some("PRINTS_JSON"));
    }

    #[test]
    fn a_document_of_its_own_is_refused_in_both_modes_and_only_capture_mode_refuses_the_rest() {
        let facts = Facts {
            prints_json: Some((3, 1)),
            ..Facts::default()
        };
        assert_eq!(code(&facts, &ask(Mode::Comment)), Some("PRINTS_JSON"));
        let facts = Facts {
            role_unknown: true,
            capture: Some((2, codes::NAME_CLASH, "clash".into())),
            ..Facts::default()
        };
        assert_eq!(code(&facts, &ask(Mode::Comment)), None);
        assert_eq!(code(&facts, &ask(Mode::Capture)), Some("NO_SHEBANG"));
        let given = Ask {
            role_given: true,
            ..ask(Mode::Capture)
        };
        assert_eq!(code(&facts, &given), Some("NAME_CLASH"));
        let migrated = Facts {
            already_migrated: true,
            ..facts
        };
        assert_eq!(code(&migrated, &given), None);
    }

    #[test]
    fn descriptor_8_is_refused_unless_stdout_is_kept() {
        let facts = Facts {
            capture: Some((4, codes::DESCRIPTOR_CLASH, "fd 8".into())),
            ..Facts::default()
        };
        let refused = refusal(&facts, &ask(Mode::Capture)).expect("refused");
        assert_eq!((refused.line, refused.against_rewrite), (4, true));
        // A migrated script edited since to use it, with nothing left to rewrite, is refused too.
        let migrated = Facts {
            already_migrated: true,
            ..facts.clone()
        };
        let nothing = Ask {
            legacy: false,
            ..ask(Mode::Capture)
        };
        assert_eq!(code(&migrated, &nothing), Some("DESCRIPTOR_CLASH"));
        let kept = Ask {
            keep_stdout: true,
            ..ask(Mode::Capture)
        };
        assert_eq!(code(&facts, &kept), None);
    }

    #[test]
    fn a_forced_script_whose_stdout_is_its_answer_is_refused_unless_exempt_or_kept() {
        let facts = Facts {
            answer: Some((2, 5, "echo \"$TYPE\"".into())),
            ..Facts::default()
        };
        let forced = Ask {
            legacy: false,
            force: true,
            ..ask(Mode::Capture)
        };
        assert_eq!(code(&facts, &forced), Some("STDOUT_ANSWER"));
        for allowed in [
            Ask {
                keep_stdout: true,
                ..forced
            },
            Ask {
                answer_exempt: true,
                ..forced
            },
            Ask {
                hosts_library: true,
                ..forced
            },
        ] {
            assert_eq!(code(&facts, &allowed), None);
        }
    }

    #[test]
    fn a_script_another_reads_is_refused_in_both_modes_unless_migrated_or_left_alone() {
        let caller = std::path::Path::new("scripts/run.sh");
        for mode in [Mode::Capture, Mode::Comment] {
            let read = Ask {
                read_by: Some((caller, 4, Takes::Reads)),
                ..ask(mode)
            };
            assert_eq!(code(&Facts::default(), &read), Some("STDOUT_ANSWER"));
            let migrated = Facts {
                already_migrated: true,
                ..Facts::default()
            };
            assert_eq!(code(&migrated, &read), None);
            let nothing = Ask {
                legacy: false,
                ..read
            };
            assert_eq!(code(&Facts::default(), &nothing), None);
        }
    }
}
