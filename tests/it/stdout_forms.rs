//! Every literal form of stdout output (issue 31, point 3): `>&1`, `>/dev/stdout`, redirections
//! that leave descriptor 1 on stdout (`2>&1 >&2`, `9>&1 >&9`, `>&1-`), `command echo`,
//! `/bin/echo`, `time echo`, `exec echo`, a pipe through `tee`, `-e` escapes, a helper function
//! that prints what it is handed (issue 30, point 3). For each fixture under fixtures/stdout_forms,
//! the text the original prints (run through its shell, read by `validate`) and check's finding
//! agree; migrate's rewrite in both modes is the line case.json states, or, where case.json says
//! `refused`, both modes refuse the script with that code (SKM008 in check); and the migrated
//! script prints one document `validate --strict` accepts while keeping the side effects
//! (`tee`'s FILE).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use crate::common::*;
use serde_json::Value;

struct Case {
    name: String,
    input: Vec<u8>,
    spec: Value,
}

fn cases() -> Vec<Case> {
    fixture_cases("stdout_forms")
        .into_iter()
        .map(|dir| Case {
            name: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            input: std::fs::read(dir.join("input.sh")).expect("input.sh"),
            spec: serde_json::from_str(
                &std::fs::read_to_string(dir.join("case.json")).expect("case.json"),
            )
            .expect("case.json is JSON"),
        })
        .collect()
}

/// Run `skill/execute.sh` (with whatever else the folder holds) in place with `shell`: its
/// stdout, and the other files' contents afterwards.
fn run_skill(shell: &str, skill: &Path) -> (String, BTreeMap<String, String>) {
    let out = run(std::process::Command::new(shell)
        .arg("execute.sh")
        .current_dir(skill));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let files = std::fs::read_dir(skill)
        .expect("skill folder")
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name != "execute.sh" && !name.starts_with("skillmod-runtime")
        })
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    (stdout(&out), files)
}

/// The `path:line:column` of each SKM010 note in `check -v`'s text.
fn note_places(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains(": SKM010 "))
        .map(|l| l.split(": SKM010 ").next().unwrap_or_default())
        .collect()
}

/// `check -v` on the skill `s` under `dir`: its output, its text, and each SKM010 note's
/// `line:column` in `s/execute.sh`.
fn verbose_notes(dir: &Path) -> (std::process::Output, String, Vec<String>) {
    let verbose = run(skillmod(dir).args(["check", "--no-cache", "-v", "s"]));
    let text = stdout(&verbose);
    let places = note_places(&text)
        .into_iter()
        .map(|place| place.trim_start_matches("s/execute.sh:").to_string())
        .collect();
    (verbose, text, places)
}

/// `skillmod validate` on saved output: the parsed document.
fn validated(dir: &Path, output: &str, strict: bool) -> Value {
    let saved = dir.join("stdout.txt");
    std::fs::write(&saved, output).expect("save stdout");
    let mut args = vec!["validate"];
    if strict {
        args.push("--strict");
    }
    args.push("stdout.txt");
    let (code, report) = json_report(dir, &args);
    std::fs::remove_file(&saved).expect("remove saved stdout");
    assert_eq!(code, 0, "{output:?} is not valid: {report}");
    report["results"][0].clone()
}

#[test]
fn each_stdout_form_is_found_as_the_text_it_prints() {
    let cases = cases();
    assert!(cases.len() >= 12, "fixtures/stdout_forms holds every form");
    for case in cases {
        let tmp = tempfile::tempdir().expect("tmp");
        let skill = tmp.path().join("s");
        write_script(&skill, "execute.sh", &case.input);
        let shell = case.spec["shell"].as_str().expect("shell");
        let (printed, _) = run_skill(shell, &skill);
        let read = validated(tmp.path(), &printed, false);
        assert_eq!(read["parse_method"], "legacy", "{}: {printed:?}", case.name);
        let kind = case.spec["finding"].as_str().expect("finding");
        assert_eq!(
            read["value"]["deliverables"], case.spec["json"]["deliverables"],
            "{}: {read}",
            case.name
        );
        if kind == "success" {
            assert_eq!(read["value"]["success"], true, "{}: {read}", case.name);
        }
        std::fs::remove_file(skill.join("out.txt")).expect("the skill's own file");
        let _ = std::fs::remove_file(skill.join("log.txt"));
        let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        assert_eq!(code, 1, "{}: {report}", case.name);
        let findings = report["findings"].as_array().expect("findings");
        let legacy: Vec<&Value> = findings.iter().filter(|f| f["code"] == "SKM001").collect();
        assert_eq!(legacy.len(), 1, "{}: {report}", case.name);
        assert_eq!(legacy[0]["kind"], kind, "{}: {report}", case.name);
        // A form migrate refuses is said so, with migrate's code: SKM008 beside the finding.
        let refusals: Vec<&str> = findings
            .iter()
            .filter(|f| f["code"] == "SKM008")
            .map(|f| f["message"].as_str().unwrap_or_default())
            .collect();
        match case.spec["refused"].as_str() {
            Some(code) => assert!(
                refusals.len() == 1 && refusals[0].starts_with(code),
                "{}: {report}",
                case.name
            ),
            None => assert!(refusals.is_empty(), "{}: {report}", case.name),
        }
    }
}

/// A form migrate cannot rewrite faithfully: both modes leave the script as it is and say why
/// with `code` (check's SKM008 says the same). The original's run wrote exactly `files` (nothing after an
/// `exec` runs).
fn assert_refused(case: &Case, code: &str, files_before: &BTreeMap<String, String>) {
    for mode in ["capture", "comment"] {
        let name = format!("{} ({mode})", case.name);
        let tmp = tempfile::tempdir().expect("tmp");
        let script = write_script(&tmp.path().join("s"), "execute.sh", &case.input);
        let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "--mode", mode, "s"]));
        assert_ne!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        assert!(stderr(&out).contains(code), "{name}: {}", stderr(&out));
        assert_eq!(
            std::fs::read(&script).expect("script"),
            case.input,
            "{name}"
        );
    }
    let expected: BTreeMap<String, String> = case.spec["files"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(file, content)| (file.clone(), content.as_str().unwrap_or_default().into()))
        .collect();
    assert_eq!(files_before, &expected, "{}", case.name);
}

#[test]
fn each_stdout_form_is_rewritten_as_stated_and_keeps_its_side_effects() {
    for case in cases() {
        let shell = case.spec["shell"].as_str().expect("shell");
        let original = tempfile::tempdir().expect("tmp");
        write_script(original.path(), "execute.sh", &case.input);
        let (_, files_before) = run_skill(shell, original.path());
        if let Some(code) = case.spec["refused"].as_str() {
            assert_refused(&case, code, &files_before);
            continue;
        }
        for mode in ["capture", "comment"] {
            let name = format!("{} ({mode})", case.name);
            let tmp = tempfile::tempdir().expect("tmp");
            let skill = tmp.path().join("s");
            let script = write_script(&skill, "execute.sh", &case.input);
            let out =
                run(skillmod(tmp.path()).args(["migrate", "--no-backup", "--mode", mode, "s"]));
            assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
            let text = std::fs::read_to_string(&script).expect("migrated");
            let line = text
                .lines()
                .find(|l| l.contains("# LEGACY (replaced with JSON): ") || l.contains("__skm_via "))
                .unwrap_or_default();
            assert_eq!(line, case.spec[mode], "{name}");
            let (printed, files_after) = run_skill(shell, &skill);
            let document = validated(tmp.path(), &printed, true);
            assert_eq!(document["parse_method"], "json", "{name}: {printed:?}");
            for field in ["success", "deliverables"] {
                assert_eq!(
                    document["value"][field], case.spec["json"][field],
                    "{name}: {printed}"
                );
            }
            assert_eq!(
                files_after, files_before,
                "{name}: the side effects are kept"
            );
            let check = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
            assert_eq!(check.status.code(), Some(0), "{name}: {}", stdout(&check));
        }
        if let Some(expected) = case.spec["files"].as_object() {
            for (file, content) in expected {
                assert_eq!(
                    files_before.get(file).map(String::as_str),
                    content.as_str(),
                    "{}",
                    case.name
                );
            }
        }
    }
}

#[test]
fn forms_out_of_reach_are_notes_shown_with_verbose_only() {
    let tmp = tempfile::tempdir().expect("tmp");
    let script = "#!/bin/bash\nmsg=\"Created: out.txt\"\ncat <<EOF\nSUCCESS\nEOF\ncat <<EOF > log.txt\nSUCCESS\nEOF\nprintf 'SUCCESS\\nCreated: x\\n'\ntrap 'echo COMPLETE' EXIT\necho \"$msg\"\n# SUCCESS in a comment\nif [ \"$x\" = SUCCESS ]; then :; fi\n";
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let plain = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(plain.status.code(), Some(0), "{}", stdout(&plain));
    assert!(!stdout(&plain).contains(": SKM010 "), "{}", stdout(&plain));
    let (_, text, notes) = verbose_notes(tmp.path());
    // The variable, the heredoc cat prints, the two-line printf, the trap; not the heredoc
    // written to a file, the comment or the comparison.
    assert_eq!(notes, ["2:6", "4:1", "9:9", "10:12"], "{text}");
    let (_, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
    let forms = report["findings"]
        .as_array()
        .into_iter()
        .chain(report["warnings"].as_array())
        .flatten()
        .filter(|f| f["code"] == "SKM010")
        .count();
    assert_eq!(forms, 4, "{report}");
}

#[test]
fn a_function_captured_at_one_call_and_printed_at_another_is_found_and_refused() {
    // The direct call may come after `time` or `command` (hostile review: `time report` was
    // taken for no call, and the function for data), run by a wrapper it is handed to by name
    // (`retry report`), `eval` or `time { …; }`, or piped into a `cat` or `tee` that prints it.
    for call in [
        "report",
        "time report",
        "command report",
        "retry report",
        "retry 3 report",
        "eval report",
        "time { report; }",
        "report | cat",
        "report | tee -a log",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!(
            "#!/bin/bash\nretry() {{ \"$@\"; }}\nreport() {{ echo \"Created: out.txt\"; echo SUCCESS; }}\nif false; then unused=$(report); fi\n{call}\n"
        );
        let script = write_script(&tmp.path().join("s"), "execute.sh", text.as_bytes());
        let before = std::fs::read(&script).expect("script");
        let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        assert_eq!(code, 1, "{report}");
        let codes: Vec<&str> = report["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .filter_map(|f| f["code"].as_str())
            .collect();
        assert_eq!(codes, ["SKM008", "SKM001", "SKM001"], "{call}: {report}");
        assert!(
            report.to_string().contains("CAPTURED_AND_PRINTED"),
            "{report}"
        );
        let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "s"]));
        assert!(
            stderr(&out).contains("CAPTURED_AND_PRINTED"),
            "{}",
            stderr(&out)
        );
        assert_eq!(std::fs::read(&script).expect("script"), before);
    }
}

/// A function handed to a command that does not run it, or piped into a filter, prints nothing
/// of its own on stdout: captured elsewhere, it stays data.
#[test]
fn a_captured_functions_name_given_to_a_non_runner_or_piped_to_a_filter_is_no_call() {
    for call in [
        "echo report",
        "report | grep -c S",
        "x=$(report | cat)",
        "grep report /dev/null",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!(
            "#!/bin/bash\nreport() {{ echo \"Created: out.txt\"; echo SUCCESS; }}\nunused=$(report)\n{call}\n"
        );
        write_script(&tmp.path().join("s"), "execute.sh", text.as_bytes());
        let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        assert_eq!(code, 0, "{call}: {report}");
    }
}

#[test]
fn a_helper_defined_in_a_sourced_file_is_read_and_one_defined_nowhere_is_a_note() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        &tmp.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/lib.bash\"\ntouch out.txt\nprint_success \"Created: out.txt\"\nsay_it \"Created: x\" >&2\nreport_ok \"Created: y\"\n",
    );
    write_script(
        &tmp.path().join("s"),
        "lib.bash",
        b"print_success() { echo \"$1\"; }\nsay_it() { echo \"$1\"; }\n",
    );
    let verbose = run(skillmod(tmp.path()).args(["check", "--no-cache", "-v", "s/execute.sh"]));
    let text = stdout(&verbose);
    assert_eq!(verbose.status.code(), Some(1), "{text}");
    // The sourced file's helper prints the line: a legacy statement. The call sent to stderr is
    // no output; a command no file read defines is a note naming the call.
    assert!(
        text.contains("s/execute.sh:4:1: SKM001 created: print_success"),
        "{text}"
    );
    assert_eq!(note_places(&text), ["s/execute.sh:6:12"], "{text}");
    assert!(text.contains("a command defined elsewhere"), "{text}");
    // Migrated, the run records what the helper printed.
    let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "s/execute.sh"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ran = run(std::process::Command::new("bash")
        .arg("execute.sh")
        .current_dir(tmp.path().join("s")));
    let document = validated(tmp.path(), &stdout(&ran), true);
    assert_eq!(
        document["value"]["deliverables"],
        serde_json::json!(["out.txt"])
    );
}

#[test]
fn a_helper_call_in_a_library_records_with_the_runtime_and_prints_without_it() {
    let tmp = tempfile::tempdir().expect("tmp");
    let skill = tmp.path().join("s");
    std::fs::create_dir_all(&skill).expect("skill");
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: s\ndescription: s\n---\n",
    )
    .expect("SKILL.md");
    write_script(
        &skill,
        "execute.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nmake_it out.txt\necho SUCCESS\n",
    );
    let library =
        b"say() { echo \"\xe2\x9c\x93 $1\"; }\nmake_it() { touch \"$1\"; say \"Created: $1\"; }\n";
    write_script(&skill, "lib.sh", library);
    let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let migrated = std::fs::read_to_string(skill.join("lib.sh")).expect("library");
    assert!(
        migrated.contains("${__skm_r:+__skm_via created 1} say \"Created: $1\""),
        "{migrated}"
    );
    let run_skill = run(std::process::Command::new("bash")
        .arg("execute.sh")
        .current_dir(&skill));
    let document = validated(tmp.path(), &stdout(&run_skill), true);
    assert_eq!(
        document["value"]["deliverables"],
        serde_json::json!(["out.txt"])
    );
    assert!(
        stderr(&run_skill).contains("✓ Created: out.txt"),
        "{}",
        stderr(&run_skill)
    );
    // A script without the runtime that sources the library gets the helper's line on stdout.
    write_script(
        &skill,
        "plain.sh",
        b"#!/bin/bash\n. \"$(dirname \"$0\")/lib.sh\"\nmake_it other.txt\n",
    );
    let plain = run(std::process::Command::new("bash")
        .arg("plain.sh")
        .current_dir(&skill));
    assert_eq!(stdout(&plain), "✓ Created: other.txt\n");
}

#[test]
fn a_helper_call_expands_its_arguments_once() {
    let tmp = tempfile::tempdir().expect("tmp");
    let skill = tmp.path().join("s");
    write_script(
        &skill,
        "execute.sh",
        b"#!/bin/bash\nok() { echo \"[OK] $*\"; }\nok \"Created: $(echo run >> calls.txt; touch out.txt; echo out.txt)\"\n",
    );
    let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let ran = run(std::process::Command::new("bash")
        .arg("execute.sh")
        .current_dir(&skill));
    let document = validated(tmp.path(), &stdout(&ran), true);
    assert_eq!(
        document["value"]["deliverables"],
        serde_json::json!(["out.txt"])
    );
    assert_eq!(
        std::fs::read_to_string(skill.join("calls.txt")).expect("calls"),
        "run\n"
    );
}

#[test]
fn a_result_after_echo_n_is_read_alike_by_check_and_validate() {
    // The line the run prints is "Testing PUT... ✓ Success": validate reads no result line there,
    // and check finds none. An `echo` between them ends the fragment's line: then the result
    // line is one of its own, for both.
    for (script, legacy) in [
        (
            "#!/bin/bash\necho -n \"Testing PUT... \"\nif true >/dev/null; then\n  echo \"✓ Success\"\nfi\n",
            false,
        ),
        // The audit of issue 30: a row of dots from a loop, a `grep -q` condition, a function
        // that leaves the line open.
        (
            "#!/bin/bash\necho -n \"Progress \"\nfor i in 1 2; do echo -n \".\"; done\necho \" SUCCESS\"\n",
            false,
        ),
        (
            "#!/bin/bash\necho -n \"Testing… \"\nif grep -q s execute.sh; then echo \"✓ Success\"; fi\n",
            false,
        ),
        (
            "#!/bin/bash\nprog() { echo -n \"Doing $1… \"; }\nprog x\necho \"✅ Created: x.txt\"\n",
            false,
        ),
        (
            "#!/bin/bash\nprog() { echo -n \"Doing $1… \"; echo; }\nprog x\necho \"✅ Created: x.txt\"\n",
            true,
        ),
        (
            "#!/bin/bash\necho -n \"Progress \"\nfor i in 1 2; do echo -n \".\"; done\necho\necho SUCCESS\n",
            true,
        ),
        (
            "#!/bin/bash\necho -n \"Testing PUT... \"\necho\necho \"✓ Success\"\n",
            true,
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let skill = tmp.path().join("s");
        write_script(&skill, "execute.sh", script.as_bytes());
        let (printed, _) = run_skill("bash", &skill);
        let saved = tmp.path().join("stdout.txt");
        std::fs::write(&saved, &printed).expect("save");
        let (code, report) = json_report(tmp.path(), &["validate", "stdout.txt"]);
        assert_eq!(code == 0, legacy, "{script}: {printed:?} {report}");
        let check = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
        assert_eq!(
            check.status.code(),
            Some(if legacy { 1 } else { 0 }),
            "{script}: {}",
            stdout(&check)
        );
    }
}

#[test]
fn what_migrate_cannot_record_is_said_in_its_report_and_in_checks_summary() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        &tmp.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\ncat <<EOF\nCreated: notes.md\nEOF\necho SUCCESS\n",
    );
    // check: the heredoc is a note, and even "All clear" would say there is one.
    let (_, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
    assert_eq!(report["summary"]["notes"], 1, "{report}");
    // Beside findings too, the summary says there are notes.
    let text = stdout(&run(skillmod(tmp.path()).args([
        "check",
        "--no-cache",
        "s",
    ])));
    assert!(
        text.contains("Found 1 legacy statement")
            && text.contains("; 1 SKM010 note (shown with -v)"),
        "{text}"
    );
    // With -v the notes are printed, and the summary says so.
    let text = stdout(&run(skillmod(tmp.path()).args([
        "check",
        "--no-cache",
        "-v",
        "s",
    ])));
    assert!(text.contains("; 1 SKM010 note (above)"), "{text}");
    // migrate's report holds an OUT_OF_REACH note at `place`.
    let noted = |report: &Value, place: &str| {
        report["files"][0]["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .any(|n| {
                n["code"] == "OUT_OF_REACH"
                    && n["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with(&format!("line {place}: ")))
            })
    };
    let (code, report) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
    assert_eq!(code, 0, "{report}");
    assert!(noted(&report, "3:1"), "{report}");
    // `--force` takes a script with no legacy line: what it cannot record is said all the same.
    let forced = tempfile::tempdir().expect("tmp");
    write_script(
        &forced.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\neval 'say() { echo \"$1\"; }'\nsay \"Created: c.txt\"\n",
    );
    let (code, report) = json_report(
        forced.path(),
        &["migrate", "--force", "--no-backup", "--dry-run", "s"],
    );
    assert_eq!(code, 0, "{report}");
    assert!(noted(&report, "3:6"), "{report}");
    let clean = tempfile::tempdir().expect("tmp");
    write_script(
        &clean.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\nmsg=\"Created: notes.md\"\necho \"$msg\" >&2\n",
    );
    let text = stdout(&run(skillmod(clean.path()).args([
        "check",
        "--no-cache",
        "s",
    ])));
    assert!(
        text.contains("All clear") && text.contains("; 1 SKM010 note (shown with -v)"),
        "{text}"
    );
    // The JSON report names the reading it used, as "All clear" does.
    let (_, report) = json_report(
        clean.path(),
        &["check", "--no-cache", "--vocabulary", "exact", "s"],
    );
    assert_eq!(
        report["vocabularies"],
        serde_json::json!(["exact"]),
        "{report}"
    );
}

#[test]
fn a_function_piped_into_tee_is_a_note_not_a_silent_pass() {
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(
        &tmp.path().join("s"),
        "execute.sh",
        b"#!/bin/bash\nmain() {\n  echo \"Created: a.txt\"\n}\nmain \"$@\" 2>&1 | tee -a log.txt\nquiet() {\n  echo \"Created: b.txt\"\n}\nquiet | grep -c . >&2\n",
    );
    let verbose = run(skillmod(tmp.path()).args(["check", "--no-cache", "-v", "s"]));
    let text = stdout(&verbose);
    let notes = note_places(&text);
    // tee prints main's line; grep's count goes to stderr, so quiet's line is data.
    assert_eq!(notes, ["s/execute.sh:3:9"], "{text}");
    assert!(text.contains("piped into `tee`"), "{text}");
}

#[test]
fn redirections_that_leave_stdout_are_no_legacy_lines() {
    // Read left to right, as the shell runs them: each of these sends descriptor 1 to stderr or
    // a file, so bash prints nothing on stdout and check finds nothing.
    for line in [
        "echo SUCCESS >&2 2>&1",
        "echo SUCCESS 1>&2",
        ">&2 echo SUCCESS",
        "echo SUCCESS 9>&1 >&2",
        "echo SUCCESS 9>&2 >&9",
        "echo SUCCESS &>log.txt",
        "echo SUCCESS >&1 >&2",
        "time echo SUCCESS >&2",
        "exec echo SUCCESS >&2",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let skill = tmp.path().join("s");
        let script = format!("#!/bin/bash\n{line}\n");
        write_script(&skill, "execute.sh", script.as_bytes());
        let ran = run(std::process::Command::new("bash")
            .arg("execute.sh")
            .current_dir(&skill));
        assert_eq!(stdout(&ran), "", "{line}");
        let check = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
        assert_eq!(check.status.code(), Some(0), "{line}: {}", stdout(&check));
    }
}

#[test]
fn a_line_written_to_a_descriptor_opened_earlier_is_a_note() {
    // `exec 3>&1 >&2` keeps stdout on 3: the line written there is printed on stdout, but which
    // descriptor is stdout is decided at run time, where one command's redirections do not say.
    let tmp = tempfile::tempdir().expect("tmp");
    let skill = tmp.path().join("s");
    write_script(
        &skill,
        "execute.sh",
        b"#!/bin/bash\nexec 3>&1 >&2\ntouch out.txt\necho \"Created: out.txt\" >&3\n",
    );
    let (printed, _) = run_skill("bash", &skill);
    assert_eq!(printed, "Created: out.txt\n");
    let verbose = run(skillmod(tmp.path()).args(["check", "--no-cache", "-v", "s"]));
    let text = stdout(&verbose);
    assert_eq!(verbose.status.code(), Some(0), "{text}");
    assert_eq!(note_places(&text), ["s/execute.sh:4:7"], "{text}");
    assert!(
        text.contains("a descriptor the script opened earlier"),
        "{text}"
    );
}

#[test]
fn a_group_or_loop_piped_into_tee_is_a_note() {
    // The lines go through the pipe to `tee`, which prints them on stdout: check cannot record
    // them (they would run in the pipeline's subshell), so it says so, as for a function piped
    // into `tee` (the hostile re-test found these silent).
    for (body, place) in [
        (
            "{ touch out.txt; echo \"Created: out.txt\"; } | tee -a log.txt\n",
            "s/execute.sh:2:24",
        ),
        (
            "for f in out.txt; do touch \"$f\"; echo \"Created: $f\"; done | tee log.txt\n",
            "s/execute.sh:2:40",
        ),
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let skill = tmp.path().join("s");
        write_script(
            &skill,
            "execute.sh",
            format!("#!/bin/bash\n{body}").as_bytes(),
        );
        let (printed, _) = run_skill("bash", &skill);
        assert_eq!(printed, "Created: out.txt\n");
        let verbose = run(skillmod(tmp.path()).args(["check", "--no-cache", "-v", "s"]));
        let text = stdout(&verbose);
        assert_eq!(note_places(&text), [place], "{text}");
        assert!(text.contains("piped into `tee`"), "{text}");
    }
}

#[test]
fn a_pipe_into_another_command_a_shell_string_or_a_coprocess_is_a_note() {
    // Each prints its text on stdout through something check cannot follow (issue 31.3: every
    // form out of reach says so with -v); the same forms sent elsewhere say nothing.
    let script = "#!/bin/bash\n\
        echo \"SUCCESS\" | cat\n\
        echo \"Created: x.txt\" | sed 's/x/y/'\n\
        bash -c 'echo SUCCESS'\n\
        eval \"echo 'Created: e.txt'\"\n\
        sh -ec \"echo 'Confidence: 0.9'\"\n\
        coproc echo SUCCESS\n\
        echo SUCCESS | cat >/dev/null\n\
        echo SUCCESS | cat >&2\n\
        quiet() { echo SUCCESS | tr S s; }\n\
        v=$(quiet)\n\
        bash -c 'echo SUCCESS' >&2\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(
        printed,
        "SUCCESS\nCreated: y.txt\nSUCCESS\nCreated: e.txt\nConfidence: 0.9\n"
    );
    let plain = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(plain.status.code(), Some(0), "{}", stdout(&plain));
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(
        places,
        ["2:7", "3:7", "4:15", "5:13", "6:15", "7:13"],
        "{text}"
    );
    for form in [
        "piped into a command other than `tee`",
        "run as code (`eval`, `bash -c`",
        "a coprocess",
    ] {
        assert!(text.contains(form), "{form}: {text}");
    }
}

#[test]
fn a_program_running_echo_a_here_string_and_an_alias_are_notes() {
    // More forms that print legacy text check cannot read as a statement (the hostile re-test
    // found them silent): each is an SKM010 note with -v; a here-string sent to /dev/null is not.
    let script = "#!/bin/bash\n\
        env echo SUCCESS\n\
        timeout 5 echo \"Created: a.txt\"\n\
        cat <<< SUCCESS\n\
        cat <<< \"Created: b.txt\" >/dev/null\n\
        shopt -s expand_aliases\n\
        alias ok=\"echo SUCCESS\"\n\
        source /dev/stdin <<< \"echo SUCCESS\"\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "SUCCESS\nCreated: a.txt\nSUCCESS\nSUCCESS\n");
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(places, ["2:10", "3:17", "4:9", "7:16", "8:29"], "{text}");
    for form in [
        "run by another program",
        "here-string printed by `cat`",
        "an alias",
    ] {
        assert!(text.contains(form), "{form}: {text}");
    }
}

#[test]
fn near_spellings_of_the_forms_are_notes() {
    // The hostile re-test's near spellings (N8): each prints a legacy line on stdout through a
    // runner, a filter, a substitution, an alias or a variable; check -v says so for each.
    let script = "#!/bin/bash\n\
        /usr/bin/env echo SUCCESS\n\
        setsid echo SUCCESS\n\
        flock /tmp echo SUCCESS\n\
        head <<< SUCCESS\n\
        cat <(echo SUCCESS)\n\
        echo \"${x:-SUCCESS}\"\n\
        echo \"$(echo SUCCESS)\"\n\
        read -r r <<< SUCCESS; echo \"$r\"\n\
        declare -A m=([k]=\"SUCCESS\"); echo \"${m[k]}\"\n\
        shopt -s expand_aliases\n\
        alias say=echo\n\
        say SUCCESS\n\
        head <<< SUCCESS >/dev/null\n\
        v=$(echo SUCCESS) && test -n \"$v\"\n";
    // Line 14's here-string goes to /dev/null: no note. Line 15's value may be printed later.
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "SUCCESS\n".repeat(10));
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(
        places,
        [
            "2:19", "3:13", "4:17", "5:10", "6:12", "7:12", "8:14", "9:15", "10:20", "13:5",
            "15:10"
        ],
        "{text}"
    );
    for form in [
        "run by another program",
        "fed to a command that may print it",
        "in a command or process substitution",
        "a default such as",
        "read back with `read`",
    ] {
        assert!(text.contains(form), "{form}: {text}");
    }
}

#[test]
fn stderr_sent_to_stdout_computed_targets_and_computed_names_are_notes() {
    // The second hostile round's forms (G01–G05): each prints SUCCESS on stdout in a way check
    // cannot read as a statement, and check -v says so; an echo to stderr that stays there and a
    // file written by name say nothing.
    let script = "#!/bin/bash\n\
        { echo SUCCESS >&2; } 2>&1\n\
        inner() { echo SUCCESS >&2; }\n\
        outer() { inner; }\n\
        outer 2>&1\n\
        OUT=/dev/stdout\n\
        echo SUCCESS > \"$OUT\"\n\
        echo SUCCESS > >(cat)\n\
        e=echo\n\
        $e SUCCESS\n\
        printf -v m '%s' SUCCESS; echo \"$m\"\n\
        echo SUCCESS >&2\n\
        echo SUCCESS > log.txt\n\
        sleep 0.2\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "SUCCESS\n".repeat(6));
    let (verbose, text, places) = verbose_notes(tmp.path());
    assert_eq!(verbose.status.code(), Some(0), "{text}");
    assert_eq!(
        places,
        ["2:8", "3:16", "7:6", "8:6", "10:4", "11:18"],
        "{text}"
    );
    for form in [
        "to stderr where stderr goes to stdout",
        "a file named at run time",
        "a command whose name is computed",
    ] {
        assert!(text.contains(form), "{form}: {text}");
    }
}

#[test]
fn other_spellings_of_stdout_and_a_line_break_in_quotes_are_legacy_lines() {
    let script = "#!/bin/bash\n\
        echo SUCCESS > /dev/./stdout\n\
        echo \"Confidence: 0.9\" >> //proc/thread-self/fd/1\n\
        echo \"note\nCreated: a.txt\"\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "SUCCESS\nConfidence: 0.9\nnote\nCreated: a.txt\n");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    for finding in [
        "2:1: SKM001 success",
        "3:1: SKM001 confidence",
        "4:1: SKM001 created",
    ] {
        assert!(text.contains(finding), "{finding}: {text}");
    }
}

#[test]
fn stdout_restored_after_exec_sends_it_away_is_stdout_again() {
    // `exec 3>&1 >/dev/null` … `exec >&3`: lines between go nowhere, lines after print.
    let script = "#!/bin/bash\n\
        exec 3>&1 >/dev/null\n\
        echo \"Created: hidden.txt\"\n\
        exec >&3 3>&-\n\
        echo SUCCESS\n\
        exec 2>&1\n\
        echo \"Confidence: 0.9\"\n\
        exec >/dev/null\n\
        echo \"Created: gone.txt\"\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "SUCCESS\nConfidence: 0.9\n");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let text = stdout(&out);
    let found: Vec<&str> = text.lines().filter(|l| l.contains(" SKM001 ")).collect();
    assert_eq!(found.len(), 2, "{text}");
    assert!(found[0].contains("5:1: SKM001 success"), "{text}");
    assert!(found[1].contains("7:1: SKM001 confidence"), "{text}");
}

#[test]
fn stdout_given_back_by_other_routes_is_stdout_again_and_a_group_to_a_descriptor_is_a_note() {
    // Hostile round 4 (K04): the execs' descriptors are followed from one to the next, a
    // function's bare exec runs where it is called, an exec in a branch, a loop or a list may
    // run, and `{ …; } >&3` writes to a descriptor.
    for (restore, place) in [
        ("exec 2>&3\nexec >&2", "5:1"),
        ("exec 0<&3 1<&0", "4:1"),
        ("exec {o}>&3 >&$o", "4:1"),
        ("back() { exec >&3; }\nback", "5:1"),
        // An exec that may run (a branch, a loop, a list): stdout may be back after it.
        ("if true; then echo Created: x; exec >&3; fi", "4:1"),
        ("for i in 1; do exec 1>&3; done", "4:1"),
        ("[ -n \"$HOME\" ] && exec >&3", "4:1"),
        ("{ exec >&3; }", "4:1"),
        // A hostile review: a prefix, a negation, a compound statement with redirections of
        // other descriptors, a function the branch or the list calls.
        ("! exec >&3", "4:1"),
        ("command exec >&3", "4:1"),
        ("time exec >&3", "4:1"),
        ("{ exec >&3; } 2>/dev/null", "4:1"),
        ("while read -r l; do exec >&3; done <<< x", "4:1"),
        ("f() { exec >&3; }\nif true; then f; fi", "5:1"),
        ("f() { exec >&3; }\n[ 1 ] && f", "5:1"),
        ("f() { if true; then exec >&3; fi; }\nf", "5:1"),
    ] {
        let script = format!("#!/bin/bash\nexec 3>&1 >/dev/null\n{restore}\necho SUCCESS\n");
        let tmp = tempfile::tempdir().expect("tmp");
        write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
        let (printed, _) = run_skill("bash", &tmp.path().join("s"));
        assert_eq!(printed, "SUCCESS\n", "{script}");
        let text = stdout(&run(skillmod(tmp.path()).args([
            "check",
            "--no-cache",
            "s",
        ])));
        assert!(
            text.contains(&format!("s/execute.sh:{place}: SKM001 success")),
            "{script}: {text}"
        );
    }
    // An exec in the background, or in a group whose own redirection of stdout bash undoes,
    // gives nothing back.
    for kept_away in ["exec >&3 &\nwait", "{ exec >&3; } >/dev/null"] {
        let script = format!("#!/bin/bash\nexec 3>&1 >/dev/null\n{kept_away}\necho SUCCESS\n");
        let tmp = tempfile::tempdir().expect("tmp");
        write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
        let (printed, _) = run_skill("bash", &tmp.path().join("s"));
        assert_eq!(printed, "", "{script}");
        let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
        assert_eq!(out.status.code(), Some(0), "{script}: {}", stdout(&out));
    }
    let script = "#!/bin/bash\nexec 3>&1 >/dev/null\n{ echo SUCCESS; } >&3\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "SUCCESS\n");
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(places, ["3:8"], "{text}");
}

#[test]
fn a_loop_word_and_set_positionals_are_notes_and_escaped_decorations_are_read() {
    // Hostile round 3: a marker bound to a loop variable or to "$1" is a variable's value (a
    // note); `\*` prints `*`, a decoration like any other.
    let notes = "#!/bin/bash\n\
        for w in \"Created: a.txt\" SUCCESS; do echo \"$w\"; done\n\
        set -- SUCCESS\n\
        echo \"$1\"\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", notes.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "Created: a.txt\nSUCCESS\nSUCCESS\n");
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(places, ["2:11", "3:8"], "{text}");
    assert!(text.contains("a `for` loop's word, `set --`"), "{text}");

    let decorated = "#!/bin/bash\n\
        echo \\*\\*SUCCESS\\*\\*\n\
        echo \\[ok\\] Created: a.txt\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", decorated.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "**SUCCESS**\n[ok] Created: a.txt\n");
    let read = validated(tmp.path(), &printed, false);
    assert_eq!(read["value"]["success"], true, "{read}");
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    let text = stdout(&out);
    assert!(text.contains("2:1: SKM001 success"), "{text}");
    assert!(text.contains("3:1: SKM001 created"), "{text}");
}

#[test]
fn exec_opening_a_named_descriptor_replaces_no_shell() {
    // Hostile round 4 (K05): `exec {log}>&2` only opens a descriptor; it was refused as an exec
    // that replaces the shell (EXEC_REPLACES_SHELL).
    let script = "#!/bin/bash\n\
        exec {log}>&2\n\
        echo progress >&\"$log\"\n\
        echo \"Created: a.txt\"\n\
        echo SUCCESS\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let out = run(skillmod(tmp.path()).args(["check", "--no-cache", "s"]));
    assert!(!stdout(&out).contains("SKM008"), "{}", stdout(&out));
    let out = run(skillmod(tmp.path()).args(["migrate", "--no-backup", "s"]));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    let document = validated(tmp.path(), &printed, true);
    assert_eq!(document["value"]["success"], true, "{printed}");
    assert_eq!(
        document["value"]["deliverables"],
        serde_json::json!(["a.txt"]),
        "{printed}"
    );
}

#[test]
fn a_result_handed_to_a_function_check_cannot_follow_is_a_note() {
    // An audit of issue 30 ("never emptier"): `ok` hands its argument to another function and
    // `st` prints its second one (both recorded now: fixtures/stdout_forms/helper_*); `tag`
    // prints its arguments after a `shift`, which no helper reading follows, and `after` prints
    // text after its argument, which would be part of the value. A function that writes to
    // stderr only is no note.
    let script = "#!/bin/bash\n\
        print_msg() { echo -e \"$1$2\"; }\n\
        ok() { print_msg \"+ \" \"$1\"; }\n\
        st() { echo \"[$1] $2\"; }\n\
        tag() { local t=$1; shift; echo \"[$t] $*\"; }\n\
        log() { echo \"$1\" >&2; }\n\
        after() { echo \"$1 (done)\"; }\n\
        ok \"Created: a.txt\"\n\
        st OK \"Created: b.txt\"\n\
        tag OK \"Created: c.txt\"\n\
        log \"Created: d.txt\"\n\
        after \"Created: e.txt\"\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(
        printed,
        "+ Created: a.txt\n[OK] Created: b.txt\n[OK] Created: c.txt\nCreated: e.txt (done)\n"
    );
    let (out, text, places) = verbose_notes(tmp.path());
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("s/execute.sh:8:1: SKM001") && text.contains("s/execute.sh:9:1: SKM001"),
        "{text}"
    );
    assert_eq!(places, ["10:9", "12:8"], "{text}");
    assert!(
        text.contains("a function of the script that check cannot follow"),
        "{text}"
    );
}

#[test]
fn a_function_defined_with_stdout_to_stderr_and_called_with_2_to_1_is_a_note() {
    // Hostile round 4 (K03): the call's `2>&1` applies before the definition's `>&2`, so the
    // function prints on stdout. Called without it, it prints on stderr: no note.
    let script = "#!/bin/bash\n\
        report() { echo \"Created: a.txt\"; } >&2\n\
        report 2>&1\n\
        quiet() { echo SUCCESS; } >&2\n\
        quiet\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (printed, _) = run_skill("bash", &tmp.path().join("s"));
    assert_eq!(printed, "Created: a.txt\n");
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(places, ["2:18"], "{text}");
    assert!(text.contains("where stderr goes to stdout"), "{text}");
}

#[test]
fn a_variable_named_like_a_marker_is_no_note_and_its_default_is() {
    // A new user's trial: `: "${COMPLETE:=0}"` names a variable; only a default is a value.
    let script =
        "#!/bin/bash\n: \"${COMPLETE:=0}\"\necho \"$COMPLETE\" >&2\n: \"${STATE:=COMPLETE}\"\n";
    let tmp = tempfile::tempdir().expect("tmp");
    write_script(&tmp.path().join("s"), "execute.sh", script.as_bytes());
    let (_, text, places) = verbose_notes(tmp.path());
    assert_eq!(places, ["4:13"], "{text}");
}

/// Small spellings bash runs as plainly as the usual ones (hostile review): a helper called by a
/// quoted or escaped name, and an `exec` whose redirection to a folder fails and leaves stdout
/// where it was. Each is a legacy line, and the migrated skill reports it.
#[test]
fn a_quoted_helper_name_and_a_failed_exec_redirection_leave_legacy_lines() {
    for body in [
        "ok() { echo \"$1\"; }\n\"ok\" SUCCESS",
        "ok() { echo \"$1\"; }\n'ok' SUCCESS",
        "ok() { echo \"$1\"; }\n\\ok SUCCESS",
        "exec 2>/dev/null; exec >/; exec 2>&1; echo SUCCESS",
        "exec >./; echo SUCCESS",
    ] {
        let tmp = tempfile::tempdir().expect("tmp");
        let text = format!("#!/bin/bash\n{body}\n");
        let script = write_script(&tmp.path().join("s"), "execute.sh", text.as_bytes());
        let original = run(Command::new("bash").arg(&script).current_dir(tmp.path()));
        assert_eq!(stdout(&original), "SUCCESS\n", "{body}");
        let (code, report) = json_report(tmp.path(), &["check", "--no-cache", "s"]);
        assert_eq!(code, 1, "{body}: {report}");
        assert_eq!(report["findings"][0]["code"], "SKM001", "{body}: {report}");
        let (code, migrated) = json_report(tmp.path(), &["migrate", "--no-backup", "s"]);
        assert_eq!(code, 0, "{body}: {migrated}");
        let after = run(Command::new("bash").arg(&script).current_dir(tmp.path()));
        let doc: serde_json::Value =
            serde_json::from_str(stdout(&after).trim()).expect("one document");
        assert_eq!(doc["success"], true, "{body}: {doc}");
    }
}

#[test]
fn a_heredoc_line_cat_prints_is_a_note_only_when_it_reads_as_a_result_line() {
    // `  - Complete    - Mark task done` in a usage text was "legacy-looking", and migrate warned
    // about it, though validate reads that printed line as no result (new user's trial nu25).
    let tmp = tempfile::tempdir().expect("tmp");
    let text = "#!/bin/bash\ncat <<EOF\nFeatures:\n  - Complete    - Mark task done\nEOF\ncat <<EOF\nSUCCESS\nEOF\ncat <<< SUCCESS\n";
    write_script(&tmp.path().join("s"), "execute.sh", text.as_bytes());
    let (_, _, places) = verbose_notes(tmp.path());
    assert_eq!(places, ["7:1", "9:9"], "{text}");
}
