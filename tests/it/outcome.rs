//! The outcome does not change (issue 20): each skill runs before and after a default `migrate`,
//! in a fresh working folder, and what `validate` reads from the original output is what the
//! migrated skill's one document says, except where the run tells more than the text did (the
//! outcome table of docs/runtime.md: a non-zero exit status, a success line never reached). Also
//! held: the migrated stdout is one document `validate --strict` accepts, the exit status and the
//! files written are the same, and the original stderr lines are still there, in order.
//!
//! Scripts: the shapes issue 20 found on public repositories, and (when `../shared/bench` is
//! beside the project, as in CI) skills from `gen_skills.py`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use serde_json::Value;
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output, parse_output};

struct Ran {
    status: Option<i32>,
    stdout: String,
    stderr: String,
    files: BTreeSet<String>,
}

fn files_in(dir: &Path, prefix: &str, out: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let name = format!("{prefix}{}", entry.file_name().to_string_lossy());
        if entry.path().is_dir() {
            files_in(&entry.path(), &format!("{name}/"), out);
        } else {
            out.insert(name);
        }
    }
}

/// Run `script` from the empty working folder `cwd`, as an agent runs a skill; the folder is
/// emptied again afterwards, so the run after migration starts from the same place.
fn run_skill(shell: &str, script: &Path, args: &[&str], cwd: &Path) -> Ran {
    let out = run_bounded(
        Command::new(shell)
            .arg(script)
            .args(args)
            .current_dir(cwd)
            .env("TMPDIR", cwd),
        60,
    );
    let mut files = BTreeSet::new();
    files_in(cwd, "", &mut files);
    std::fs::remove_dir_all(cwd).expect("empty the working folder");
    std::fs::create_dir(cwd).expect("working folder");
    Ran {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        files,
    }
}

/// What `validate --run` (auto protocol, legacy fallback) reads from the original run: its
/// output, and its exit status where the output holds no success line.
fn read_original(stdout: &str, status: Option<i32>) -> Option<(bool, f64)> {
    let options = ParseOptions {
        exit_status: status,
        ..ParseOptions::new(Protocol::Auto)
    };
    let parsed = parse_output(stdout, &options).ok()?;
    Some((
        parsed.value["success"].as_bool()?,
        parsed.value["confidence"].as_f64()?,
    ))
}

/// `text` as two runs of one skill print it alike: the random part of every temp folder name
/// (`/.tmpAbC123`) and the seconds a run took (`Duration: 1s`, bash's `$SECONDS`, which a loaded
/// machine makes differ by one) made the same.
fn alike(text: &str) -> String {
    let text = text
        .lines()
        .map(|line| match line.find("Duration: ") {
            Some(at) if line.ends_with('s') => format!("{}Duration: Ns", &line[..at]),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    temp_names_alike(&text)
}

/// `text` with the random part of every temp folder name (`/.tmpAbC123`) made the same.
fn temp_names_alike(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("/.tmp") {
        out.push_str(&rest[..at + 5]);
        rest = &rest[at + 5..];
        let random = rest
            .char_indices()
            .take_while(|(_, c)| c.is_ascii_alphanumeric())
            .count();
        out.push_str("XXXXXX");
        rest = &rest[random..];
    }
    out.push_str(rest);
    out
}

/// Which row of the outcome table (docs/runtime.md) a run falls in.
#[derive(Debug, PartialEq)]
enum Row {
    Same,
    NonZeroExit,
    SuccessNeverReached,
}

/// Compare one skill's runs before and after migration; returns the table row it fell in.
fn compare(name: &str, shell: &str, before: &Ran, after: &Ran) -> Row {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let strict = ParseOptions {
        strict: true,
        ..ParseOptions::new(Protocol::Auto)
    };
    let outcome = check_output(&after.stdout, &strict, &schema);
    assert!(
        outcome.valid,
        "{name} ({shell}): the migrated stdout is not one valid document: {:?}\n{}",
        outcome.errors, after.stdout
    );
    let doc: Value = serde_json::from_str(after.stdout.trim()).expect("one document");
    assert_eq!(after.status, before.status, "{name} ({shell}): exit status");
    assert_eq!(after.files, before.files, "{name} ({shell}): files written");
    // What a person saw is still there, in order: the original stderr lines, and its stdout lines
    // (legacy result lines included), on the migrated skill's stderr. The two runs' temp folders
    // differ only in their random names.
    let after_stderr = alike(&after.stderr);
    for stream in [&before.stderr, &before.stdout] {
        let mut later = after_stderr.lines();
        for line in alike(stream).lines() {
            assert!(
                later.any(|l| l == line),
                "{name} ({shell}): the line {line:?} is lost or out of order:\n{}",
                after.stderr
            );
        }
    }
    let success = doc["success"].as_bool().expect("success");
    let confidence = doc["confidence"].as_f64().expect("confidence");
    let codes = error_codes(&doc["errors"]);
    if before.status != Some(0) {
        assert!(
            !success,
            "{name} ({shell}): a failed run reads as a failure"
        );
        assert!(
            codes.contains(&"EXIT_STATUS") || codes.contains(&"SIGNAL"),
            "{name}: {doc}"
        );
        return Row::NonZeroExit;
    }
    if codes.contains(&"SUCCESS_NOT_REPORTED") {
        assert!(!success);
        return Row::SuccessNeverReached;
    }
    let original = read_original(&before.stdout, before.status).unwrap_or_else(|| {
        panic!(
            "{name} ({shell}): the migrated skill reports {doc} but validate reads no result from the original output:\n{}",
            before.stdout
        )
    });
    assert_eq!(
        (success, confidence),
        original,
        "{name} ({shell}): the outcome changed\nbefore: {}\nafter: {doc}",
        before.stdout
    );
    Row::Same
}

/// Copy `text` to `rel` under two fresh trees, migrate one with the defaults, run both.
fn before_and_after(
    name: &str,
    shell: &str,
    rel: &str,
    text: &[u8],
    args: &[&str],
) -> (Ran, Ran, Value) {
    let cwd = tempfile::tempdir().expect("tmp");
    let original = tempfile::tempdir().expect("tmp");
    let script = write_script(original.path(), rel, text);
    let before = run_skill(shell, &script, args, cwd.path());
    let migrated = tempfile::tempdir().expect("tmp");
    let script = write_script(migrated.path(), rel, text);
    let (_, report) = json_report(migrated.path(), &["migrate", "--include", "*.sh", "."]);
    let after = run_skill(shell, &script, args, cwd.path());
    assert!(!name.is_empty());
    (before, after, report)
}

/// The shapes issue 20 found on public skill repositories, each with the row it must fall in.
fn shapes() -> Vec<(&'static str, &'static str, &'static str, Row)> {
    vec![
        (
            "plain_success",
            "bash",
            "#!/bin/bash\necho \"working\"\ntouch out.txt\necho \"Created: out.txt\"\necho \"Confidence: 0.9\"\necho \"SUCCESS\"\n",
            Row::Same,
        ),
        (
            "no_confidence_line",
            "bash",
            "#!/bin/bash\ntouch a.md\necho \"Created: a.md\"\necho SUCCESS\n",
            Row::Same,
        ),
        (
            "word_confidence",
            "bash",
            "#!/bin/bash\necho \"Confidence: low\"\necho SUCCESS\n",
            Row::Same,
        ),
        (
            "percent_confidence",
            "sh",
            "#!/bin/sh\necho \"Confidence: 87%\"\necho COMPLETE\n",
            Row::Same,
        ),
        (
            "plus_confidence",
            "sh",
            "#!/bin/sh\necho \"Confidence: 0.85+\"\necho SUCCESS\n",
            Row::Same,
        ),
        (
            "created_only",
            "bash",
            "#!/bin/bash\nn=3\necho \"Created: $n spec directories\"\necho \"Created: $(printf %s 2026-11-25T21:16:41Z)\"\ntouch notes.md\necho \"Created: notes.md\"\n",
            Row::Same,
        ),
        (
            "advisory_answer",
            "bash",
            "#!/bin/bash\necho \"Suggested Memory Type: USER\"\necho \"Confidence: 0.7\"\necho SUCCESS\n",
            Row::Same,
        ),
        (
            "echo_e_values",
            "bash",
            "#!/bin/bash\nGREEN='\\033[0;32m'\nNC='\\033[0m'\ntouch 'a\tb.txt'\necho -e \"Created: a\\tb.txt\"\necho -e \"${GREEN}SUCCESS${NC}\" >&2\necho SUCCESS\n",
            Row::Same,
        ),
        (
            "dash_echo_escapes",
            "sh",
            "#!/bin/sh\ntouch 'x\ty.md'\necho \"Created: x\\ty.md\"\necho SUCCESS\n",
            Row::Same,
        ),
        // A `#!/bin/sh` skill's `echo -e` result lines, run by bash (as `bash x.sh` and every
        // bash-based /bin/sh run it): results. Run by dash, whose echo prints `-e`: none, then or
        // after migration.
        (
            "sh_echo_e_run_by_bash",
            "bash",
            "#!/bin/sh\nGREEN='\\033[0;32m'; NC='\\033[0m'\ntouch report.txt\necho -e \"${GREEN}Created: report.txt${NC}\"\necho -e \"${GREEN}✅ SUCCESS${NC}\"\n",
            Row::Same,
        ),
        (
            "sh_echo_e_run_by_dash",
            "dash",
            "#!/bin/sh\nGREEN='\\033[0;32m'; NC='\\033[0m'\ntouch report.txt\necho -e \"${GREEN}Created: report.txt${NC}\"\necho -e \"${GREEN}✅ SUCCESS${NC}\"\n",
            Row::SuccessNeverReached,
        ),
        // A helper that not every call makes print (hostile review): a result is recorded only
        // when the helper prints it, in either of its branches.
        (
            "quiet_helper_printing_nothing",
            "bash",
            "#!/bin/bash\nQUIET=1\nlog() { [ -n \"$QUIET\" ] && return 0; echo \"$1\"; }\nlog \"Created: report.txt\"\nlog SUCCESS\n",
            Row::SuccessNeverReached,
        ),
        (
            "quiet_helper_printing",
            "bash",
            "#!/bin/bash\nQUIET=\nlog() { [ -n \"$QUIET\" ] && return 0; echo \"$1\"; }\ntouch report.txt\nlog \"Created: report.txt\"\nlog SUCCESS\n",
            Row::Same,
        ),
        (
            "helper_defined_as_a_no_op_on_one_path",
            "bash",
            "#!/bin/bash\nif [ -n \"${VERBOSE:-}\" ]; then say() { echo \"$@\"; }; else say() { :; }; fi\ntouch a.txt\nsay \"Created: a.txt\"\nsay SUCCESS\n",
            Row::SuccessNeverReached,
        ),
        // Result lines the skill sent to /dev/null on its quiet path (hostile review): no result,
        // then or after migration, in bash and in dash.
        (
            "quiet_path_sends_stdout_to_dev_null",
            "bash",
            "#!/bin/bash\nlog() { echo \"$1\"; }\n[ -z \"${VERBOSE:-}\" ] && exec >/dev/null\ntouch a.txt\necho \"Created: a.txt\"\nlog \"Confidence: 0.9\"\necho SUCCESS\n",
            Row::SuccessNeverReached,
        ),
        (
            "quiet_path_sends_stdout_to_dev_null_in_dash",
            "dash",
            "#!/bin/sh\n[ -z \"${VERBOSE:-}\" ] && exec >/dev/null\ntouch a.txt\necho \"Created: a.txt\"\nprintf '%s\\n' SUCCESS\n",
            Row::SuccessNeverReached,
        ),
        (
            "helper_printing_in_either_branch",
            "sh",
            "#!/bin/sh\nst() { if [ \"$2\" = ok ]; then echo \"$1\"; else printf '%s\\n' \"$1\"; fi; }\ntouch a.txt\nst \"Created: a.txt\" no\nst SUCCESS ok\n",
            Row::Same,
        ),
        (
            "failure_exit",
            "bash",
            "#!/bin/bash\necho \"Created: half.md\"\necho \"ERROR: disk full\" >&2\nexit 3\necho SUCCESS\n",
            Row::NonZeroExit,
        ),
        (
            "set_e_failure",
            "sh",
            "#!/bin/sh\nset -e\necho \"Confidence: 0.9\"\nfalse\necho SUCCESS\n",
            Row::NonZeroExit,
        ),
        (
            "success_never_reached",
            "bash",
            "#!/bin/bash\necho \"Confidence: 0.9\"\nif [ -n \"${NEVER:-}\" ]; then echo SUCCESS; fi\n",
            Row::SuccessNeverReached,
        ),
        (
            "usage_message_only",
            "bash",
            "#!/bin/bash\nif [ $# -lt 1 ]; then\n  echo \"usage: $0 FILE\"\n  exit 0\nfi\ntouch \"$1\"\necho \"Created: $1\"\n",
            Row::Same,
        ),
        (
            "legacy_lines_only_on_a_failure_path",
            "bash",
            "#!/bin/bash\nfor t in a b; do\n  if [ -e \"polluted-$t\" ]; then\n    echo \"Created: polluted-$t\"\n    echo \"COMPLETE\"\n    exit 1\n  fi\ndone\nrun() { [ -e x ] || return 0; echo SUCCESS; return 2; }\nrun\necho \"No polluter found\"\n",
            Row::Same,
        ),
        (
            "main_at_the_end",
            "bash",
            "#!/bin/bash\nset -euo pipefail\nlog() { echo \"[info] $*\"; }\nmain() {\n  log start\n  mkdir -p out\n  touch out/r.md\n  echo \"Created: out/r.md\"\n  echo \"Confidence: 0.95\"\n  echo \"SUCCESS\"\n}\nmain \"$@\"\n",
            Row::Same,
        ),
        (
            "exit_trap_with_variable",
            "bash",
            "#!/bin/bash\nTMP=$(mktemp -d)\ntrap \"rm -rf $TMP\" EXIT\ntouch \"$TMP/x\"\necho \"Confidence: 0.6\"\necho SUCCESS\n",
            Row::Same,
        ),
    ]
}

#[test]
fn outcome_is_the_same_before_and_after_migration_for_every_shape() {
    for (name, shell, text, row) in shapes() {
        let rel = format!("skills/{name}/execute.sh");
        let (before, after, report) = before_and_after(name, shell, &rel, text.as_bytes(), &[]);
        assert_eq!(report["files"][0]["status"], "migrated", "{name}: {report}");
        assert_eq!(compare(name, shell, &before, &after), row, "{name}");
    }
}

#[test]
fn non_numbers_as_confidence_are_reported_never_replaced_silently() {
    for (text, want) in [("low", None), ("0.85+", None), ("87%", Some(0.87))] {
        let script = format!("#!/bin/bash\necho \"Confidence: {text}\"\necho SUCCESS\n");
        let (_, after, _) = before_and_after(text, "bash", "s/execute.sh", script.as_bytes(), &[]);
        let doc: Value = serde_json::from_str(after.stdout.trim()).expect("document");
        match want {
            Some(value) => {
                assert_eq!(doc["confidence"].as_f64(), Some(value));
                assert!(error_codes(&doc["errors"]).is_empty(), "{doc}");
            }
            None => {
                assert_eq!(
                    doc["confidence"].as_f64(),
                    Some(skillmod::contract::legacy_text::DEFAULT_CONFIDENCE)
                );
                assert_eq!(error_codes(&doc["errors"]), ["CONFIDENCE_INVALID"], "{doc}");
                assert_eq!(doc["errors"][0]["context"]["value"], text);
            }
        }
        // validate reads the original text the same way.
        let value = parse_output(
            &format!("Confidence: {text}\nSUCCESS\n"),
            &ParseOptions::new(Protocol::Legacy),
        )
        .expect("legacy")
        .value;
        assert_eq!(value["confidence"], doc["confidence"]);
        assert_eq!(value["errors"], doc["errors"]);
    }
}

#[test]
fn values_that_are_not_paths_are_not_deliverables_after_migration() {
    let script = b"#!/bin/bash\nn=3\necho \"Created: $n spec directories\"\necho \"Created: $(printf %s 2026-11-25T21:16:41Z)\"\necho \"Created: **Generated:** $(date)\"\necho \"Created: 6/13/2025, 8:00:00 PM\"\necho \"Created: Example notes database\"\necho \"Created: null\"\necho \"Created: N/A\"\necho \"Created:     unknown\"\necho \"Created: 27/11/2026\"\necho \"Created: docs/a.md\"\necho SUCCESS\n";
    let (_, after, _) = before_and_after("paths", "bash", "s/execute.sh", script, &[]);
    let doc: Value = serde_json::from_str(after.stdout.trim()).expect("document");
    assert_eq!(doc["deliverables"], serde_json::json!(["docs/a.md"]));
}

/// The realistic corpus, when the shared bench scripts are beside the project (as in CI).
fn gen_skills() -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/bench/gen_skills.py");
    path.is_file().then_some(path)
}

#[test]
fn realistic_skills_keep_their_outcome() {
    let Some(generator) = gen_skills() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI has ../shared/bench/gen_skills.py beside the project"
        );
        eprintln!("skipped: ../shared/bench/gen_skills.py not found");
        return;
    };
    let original = tempfile::tempdir().expect("tmp");
    let migrated = tempfile::tempdir().expect("tmp");
    for dir in [original.path(), migrated.path()] {
        let out = run(Command::new("python3").arg(&generator).arg("30").arg(dir));
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let (_, report) = json_report(migrated.path(), &["migrate", "."]);
    let mut rows = Vec::new();
    for file in report["files"].as_array().expect("files") {
        if file["status"] != "migrated" {
            continue;
        }
        let rel = file["path"].as_str().expect("path");
        let cwd = tempfile::tempdir().expect("tmp");
        let before = run_skill("bash", &original.path().join(rel), &[], cwd.path());
        let after = run_skill("bash", &migrated.path().join(rel), &[], cwd.path());
        rows.push(compare(rel, "bash", &before, &after));
    }
    eprintln!("rows: {rows:?}");
    assert!(
        rows.len() >= 10,
        "only {} skills migrated: {report}",
        rows.len()
    );
    assert!(rows.contains(&Row::Same), "{rows:?}");
}

#[test]
fn colour_coded_lines_record_their_values_without_the_codes() {
    let script = b"#!/bin/bash\nGREEN='\\033[0;32m'\nNC='\\033[0m'\nf=out.md\ntouch \"$f\"\necho -e \"${GREEN}\xe2\x9c\x93${NC} Created: $f${NC}\"\necho -e \"${GREEN}SUCCESS${NC}\"\n";
    let cwd = tempfile::tempdir().expect("tmp");
    let original = tempfile::tempdir().expect("tmp");
    let path = write_script(original.path(), "s/execute.sh", script);
    let before = run_skill("bash", &path, &[], cwd.path());
    let migrated = tempfile::tempdir().expect("tmp");
    let path = write_script(migrated.path(), "s/execute.sh", script);
    let (_, report) = json_report(
        migrated.path(),
        &["migrate", "--vocabulary", "original", "."],
    );
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    let after = run_skill("bash", &path, &[], cwd.path());
    let doc: Value = serde_json::from_str(after.stdout.trim()).expect("one document");
    assert_eq!(doc["deliverables"], serde_json::json!(["out.md"]), "{doc}");
    assert_eq!(doc["success"], true);
    // validate reads the original, colour codes and all, with the same vocabulary.
    let options = ParseOptions {
        vocabulary: skillmod::analyze::Vocabulary::Original,
        ..ParseOptions::new(Protocol::Legacy)
    };
    let read = parse_output(&before.stdout, &options)
        .expect("legacy")
        .value;
    assert_eq!(read["deliverables"], doc["deliverables"]);
    assert_eq!(read["confidence"], doc["confidence"]);
}

/// `echo "Created: $files"` with two names prints one result line and one other line: the
/// migrated skill reports the first name, as validate reads the original's output (it reported
/// one deliverable holding a newline; hostile review).
#[test]
fn a_created_value_of_several_lines_is_its_first_line_as_validate_reads_it() {
    let script =
        b"#!/bin/sh\ntouch a.md b.md\nfiles=$(ls *.md)\necho \"Created: $files\"\necho SUCCESS\n";
    for shell in ["bash", "dash"] {
        let (before, after, _) = before_and_after("lines", shell, "s/execute.sh", script, &[]);
        let read = parse_output(&before.stdout, &ParseOptions::new(Protocol::Legacy))
            .expect("legacy")
            .value;
        let doc: Value = serde_json::from_str(after.stdout.trim()).expect("one document");
        assert_eq!(read["deliverables"], serde_json::json!(["a.md"]), "{shell}");
        assert_eq!(doc["deliverables"], read["deliverables"], "{shell}: {doc}");
    }
}

/// A `#!/bin/sh` skill's `echo -e "Created: …"` is a result where the shell's echo takes `-e`
/// (bash) and none where it prints it (dash): the migrated skill records what each shell printed.
#[test]
fn a_sh_skills_echo_e_results_are_recorded_by_the_shell_that_reads_the_flag() {
    let script = b"#!/bin/sh\nGREEN='\\033[0;32m'; NC='\\033[0m'\ntouch report.txt\necho -e \"${GREEN}Created: report.txt${NC}\"\necho -e \"${GREEN}SUCCESS${NC}\"\n";
    let cwd = tempfile::tempdir().expect("tmp");
    let migrated = tempfile::tempdir().expect("tmp");
    let path = write_script(migrated.path(), "s/execute.sh", script);
    let (code, checked) = json_report(migrated.path(), &["check", "."]);
    assert_eq!(code, 1, "{checked}");
    assert_eq!(
        checked["findings"].as_array().map(Vec::len),
        Some(2),
        "{checked}"
    );
    let (_, report) = json_report(migrated.path(), &["migrate", "--no-backup", "."]);
    assert_eq!(report["files"][0]["status"], "migrated", "{report}");
    for (shell, deliverables, success) in [
        ("bash", serde_json::json!(["report.txt"]), true),
        ("dash", serde_json::json!([]), false),
    ] {
        let after = run_skill(shell, &path, &[], cwd.path());
        let doc: Value = serde_json::from_str(after.stdout.trim()).expect("one document");
        assert_eq!(doc["deliverables"], deliverables, "{shell}: {doc}");
        assert_eq!(doc["success"], success, "{shell}: {doc}");
    }
}

/// `validate --run` gives one judgement with migrate: run on the original script, it reads the
/// outcome the migrated skill's document reports (a success line the script has but did not
/// reach is `SUCCESS_NOT_REPORTED` in both).
#[test]
fn validate_run_on_the_original_reads_what_the_migrated_skill_reports() {
    let judged = |dir: &Path, rel: &str| {
        let cwd = tempfile::tempdir().expect("tmp");
        let script = dir.join(rel);
        let (_, report) = json_report(
            dir,
            &[
                "validate",
                "--cwd",
                &cwd.path().display().to_string(),
                "--run",
                &script.display().to_string(),
            ],
        );
        let value = &report["results"][0]["value"];
        let reached = !error_codes(&value["errors"]).contains(&"SUCCESS_NOT_REPORTED");
        (value["success"].as_bool(), reached)
    };
    for (name, _, text, _) in shapes() {
        let rel = format!("skills/{name}/execute.sh");
        let original = tempfile::tempdir().expect("tmp");
        write_script(original.path(), &rel, text.as_bytes());
        let migrated = tempfile::tempdir().expect("tmp");
        write_script(migrated.path(), &rel, text.as_bytes());
        let (code, report) = json_report(migrated.path(), &["migrate", "--no-backup", "."]);
        assert_eq!(code, 0, "{name}: {report}");
        assert_eq!(
            judged(original.path(), &rel),
            judged(migrated.path(), &rel),
            "{name}"
        );
    }
}

/// A `printf` result line without a newline, which the next `echo` ends: the terminal shows one
/// line, as the original printed it (the audit of issue 30), in sh and bash.
#[test]
fn a_printf_fragment_stays_joined_on_the_terminal() {
    let script = b"#!/bin/sh\nprintf 'Confidence: %s' 0.7\necho \" (model)\"\necho SUCCESS\n";
    for shell in ["sh", "bash"] {
        let (before, after, _) = before_and_after("fragment", shell, "s/execute.sh", script, &[]);
        assert_eq!(
            before.stdout, "Confidence: 0.7 (model)\nSUCCESS\n",
            "{shell}"
        );
        assert_eq!(after.stderr, before.stdout, "{shell}");
        let doc: Value = serde_json::from_str(after.stdout.trim()).expect("one document");
        assert_eq!(doc["success"], true, "{shell}");
    }
}
