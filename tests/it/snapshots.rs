//! Migrate's golden files, the one set in fixtures/snapshots/ (checked by `common::golden`):
//! - `NAME`: the default mode (capture, runtime file) on every fixture script, named after its path
//!   (`fixtures/migrate/crlf/input.sh` is `migrate--crlf--input.sh`): the migrated script, or what
//!   migrate said when it left the script alone; and `skillmod-runtime.sh`, the runtime it writes;
//! - `comment/NAME`: comment mode on every case of fixtures/migrate, in the same form.
//!
//! Read from those files: a migrated script still passes `bash -n`/`sh -n`/`dash -n` when its input
//! did, migrating comment mode's output again changes nothing, and the cases with a `run.json` print
//! the JSON document it states last. `SKILLMOD_BLESS=1 cargo test --test it snapshots::` rewrites
//! the files after an intended change; review their diff like any other.

use std::path::{Path, PathBuf};

use crate::common::*;
use serde_json::Value;

fn snapshots() -> PathBuf {
    fixtures().join("snapshots")
}

/// `fixtures/migrate/crlf/input.sh` is stored as `migrate--crlf--input.sh`.
fn snapshot_name(fixture: &Path) -> String {
    fixture
        .strip_prefix(fixtures())
        .expect("under fixtures/")
        .to_string_lossy()
        .replace('/', "--")
}

/// The comment-mode snapshot of a case of fixtures/migrate.
fn comment_snapshot(case: &Path) -> PathBuf {
    snapshots()
        .join("comment")
        .join(snapshot_name(&case.join("input.sh")))
}

/// A complaint for each file in `dir` that is not named in `names` (folders are not looked at).
fn stale(dir: &Path, names: &[String]) -> Vec<String> {
    let mut complaints = Vec::new();
    for entry in std::fs::read_dir(dir).expect("snapshots").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_file() && !names.contains(&name) {
            complaints.push(format!(
                "{}: snapshot of no fixture; delete it",
                entry.path().display()
            ));
        }
    }
    complaints
}

/// What a snapshot holds: the migrated bytes, or, when migrate left the script as it was, the
/// status and the codes it reported.
fn snapshot_of(script: &[u8], after: Vec<u8>, report: &Value) -> Vec<u8> {
    if after != script {
        return after;
    }
    let file = &report["files"][0];
    let mut said = format!("unchanged: {}\n", file["status"].as_str().unwrap_or("?"));
    for error in file["errors"].as_array().into_iter().flatten() {
        said.push_str(&format!(
            "{}: {}\n",
            error["code"].as_str().unwrap_or("?"),
            error["message"].as_str().unwrap_or("?")
        ));
    }
    said.into_bytes()
}

/// One script migrated alone in a temp project (kept while this lives) as `skill/execute.sh`.
struct Migrated {
    _tmp: tempfile::TempDir,
    script: PathBuf,
    status: i32,
    snapshot: Vec<u8>,
    runtime: Option<Vec<u8>>,
}

/// Migrate `script` with `flags` before its path.
fn migrate(script: &[u8], flags: &[&str]) -> Migrated {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = write_script(tmp.path(), "skill/execute.sh", script);
    let mut args = vec!["migrate", "--no-backup"];
    args.extend(flags);
    args.push("skill/execute.sh");
    let (status, report) = json_report(tmp.path(), &args);
    let after = std::fs::read(&path).expect("read");
    let runtime = std::fs::read(tmp.path().join("skill/skillmod-runtime.sh")).ok();
    Migrated {
        snapshot: snapshot_of(script, after, &report),
        _tmp: tmp,
        script: path,
        status,
        runtime,
    }
}

#[test]
fn default_mode_output_of_every_fixture_matches_its_snapshot() {
    let mut complaints = Vec::new();
    let mut runtimes = Vec::new();
    let mut expected_names = Vec::new();
    let fixtures = fixture_scripts();
    assert!(fixtures.len() >= 80, "{} fixture scripts", fixtures.len());
    for fixture in &fixtures {
        let script = std::fs::read(fixture).expect("fixture");
        let migrated = migrate(&script, &[]);
        let name = snapshot_name(fixture);
        complaints.extend(golden(&snapshots().join(&name), &migrated.snapshot).err());
        expected_names.push(name);
        runtimes.extend(migrated.runtime);
    }
    // One runtime for every script: the same bytes whichever script wrote it.
    runtimes.dedup();
    assert_eq!(
        runtimes.len(),
        1,
        "the runtime file differs between scripts"
    );
    let runtime = snapshots().join("skillmod-runtime.sh");
    complaints.extend(golden(&runtime, &runtimes[0]).err());
    expected_names.push("skillmod-runtime.sh".into());
    complaints.extend(stale(&snapshots(), &expected_names));
    assert!(complaints.is_empty(), "{}", complaints.join("\n"));
}

/// Comment mode on every case of fixtures/migrate: migrate succeeds, keeps the mode, and writes
/// the bytes of `comment/NAME`; a default migrate of what it wrote is `already_migrated` and
/// changes no byte.
#[test]
fn comment_mode_output_of_every_migrate_case_matches_its_snapshot() {
    let mut complaints = Vec::new();
    let mut names = Vec::new();
    let cases = fixture_cases("migrate");
    assert!(cases.len() >= 20, "{} cases", cases.len());
    for case in cases {
        let input = std::fs::read(case.join("input.sh")).expect("input.sh");
        let migrated = migrate(&input, &["--mode", "comment"]);
        assert_eq!(
            migrated.status,
            0,
            "{}: migrate's exit status",
            case.display()
        );
        assert_eq!(
            mode(&migrated.script),
            0o755,
            "{}: mode changed",
            case.display()
        );
        let path = comment_snapshot(&case);
        complaints.extend(golden(&path, &migrated.snapshot).err());
        names.push(
            path.file_name()
                .expect("name")
                .to_string_lossy()
                .into_owned(),
        );
        let output = std::fs::read(&migrated.script).expect("read");
        if output != input {
            let again = migrate(&output, &[]);
            assert_eq!(
                String::from_utf8_lossy(&again.snapshot),
                "unchanged: already_migrated\n",
                "{}: a default migrate of comment mode's output",
                case.display()
            );
        }
    }
    complaints.extend(stale(&snapshots().join("comment"), &names));
    assert!(complaints.is_empty(), "{}", complaints.join("\n"));
}

fn shell_for(input: &[u8]) -> &'static str {
    if input.starts_with(b"#!/bin/sh") {
        "sh"
    } else {
        "bash"
    }
}

/// The script in a snapshot (none when it holds what migrate said about an untouched script).
fn migrated_script(snapshot: &Path) -> Option<Vec<u8>> {
    let bytes = std::fs::read(snapshot).expect("snapshot");
    (!bytes.starts_with(b"unchanged: ")).then_some(bytes)
}

/// Every migrated script in the snapshots, of either mode, passes `bash -n` (`sh -n` and `dash -n`
/// for a `#!/bin/sh` script) when its input did.
#[test]
fn migrated_scripts_stay_syntactically_valid() {
    let default = fixture_scripts()
        .into_iter()
        .map(|input| (snapshots().join(snapshot_name(&input)), input));
    let comment = fixture_cases("migrate")
        .into_iter()
        .map(|case| (comment_snapshot(&case), case.join("input.sh")));
    let mut checked = 0;
    for (snapshot, input) in default.chain(comment) {
        let Some(output) = migrated_script(&snapshot) else {
            continue;
        };
        let input = std::fs::read(input).expect("input");
        let tmp = tempfile::tempdir().expect("tmp");
        let original = write_script(tmp.path(), "original.sh", &input);
        let script = write_script(tmp.path(), "execute.sh", &output);
        checked += 1;
        let shells: &[&str] = if shell_for(&input) == "sh" {
            &["sh", "dash"]
        } else {
            &["bash"]
        };
        for shell in shells {
            if syntax_ok(shell, &original) {
                assert!(
                    syntax_ok(shell, &script),
                    "{}: {shell} -n rejects the migrated script",
                    snapshot.display()
                );
            }
        }
    }
    assert!(checked >= 90, "only {checked} migrated scripts checked");
}

#[test]
fn runnable_fixtures_print_the_json_document_last() {
    let mut ran = 0;
    for case in fixture_cases("migrate") {
        let Ok(spec) = std::fs::read_to_string(case.join("run.json")) else {
            continue;
        };
        let spec: Value = serde_json::from_str(&spec).expect("run.json is JSON");
        let input = std::fs::read(case.join("input.sh")).expect("input.sh");
        let output = migrated_script(&comment_snapshot(&case)).unwrap_or_else(|| input.clone());
        let tmp = tempfile::tempdir().expect("tmp");
        let script = write_script(tmp.path(), "skill/execute.sh", &output);
        let shell = spec["shell"].as_str().unwrap_or(shell_for(&input));
        let args: Vec<String> = spec["args"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default();
        let out = run(std::process::Command::new(shell)
            .arg(&script)
            .args(&args)
            .current_dir(tmp.path()));
        let text = stdout(&out);
        let doc = last_json(&text).unwrap_or_else(|| {
            panic!(
                "{}: no JSON document at the end of stdout:\n{text}",
                case.display()
            )
        });
        for field in ["success", "confidence", "deliverables", "metrics", "errors"] {
            assert!(
                doc.get(field).is_some(),
                "{}: missing {field} in {doc}",
                case.display()
            );
        }
        for (key, want) in spec["json"].as_object().expect("json object") {
            assert_eq!(&doc[key], want, "{}: field {key}", case.display());
        }
        for name in spec["absent"].as_array().into_iter().flatten() {
            let name = name.as_str().expect("absent names are strings");
            assert!(
                !tmp.path().join(name).exists(),
                "{}: {name} was created: a value was executed",
                case.display()
            );
        }
        ran += 1;
    }
    assert!(ran >= 10, "only {ran} runnable fixtures ran");
}
