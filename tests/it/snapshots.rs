//! Byte-level snapshots of the default mode (capture, runtime file) on every fixture script: the
//! migrated script, or what migrate said when it left the script alone, and the runtime file it
//! writes. `SKILLMOD_BLESS=1 cargo test --test it snapshots::` rewrites them after an intended change;
//! review the diff of fixtures/snapshots/ like any other.

use std::path::{Path, PathBuf};

use crate::common::*;

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

/// Compare with the stored snapshot (`common::golden`); returns a complaint on a mismatch.
fn compare(name: &str, actual: &[u8]) -> Option<String> {
    golden(&snapshots().join(name), actual).err()
}

/// The default migrate of one script alone in a temp project: the migrated bytes, or the status
/// and codes migrate reported when it left the script as it was; and the runtime file, if written.
fn migrate_default(script: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    let tmp = tempfile::tempdir().expect("tmp");
    let path = write_script(tmp.path(), "skill/execute.sh", script);
    let (_, report) = json_report(tmp.path(), &["migrate", "--no-backup", "skill/execute.sh"]);
    let after = std::fs::read(&path).expect("read");
    let runtime = std::fs::read(tmp.path().join("skill/skillmod-runtime.sh")).ok();
    if after != script {
        return (after, runtime);
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
    (said.into_bytes(), runtime)
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
        let (output, runtime) = migrate_default(&script);
        let name = snapshot_name(fixture);
        complaints.extend(compare(&name, &output));
        expected_names.push(name);
        runtimes.extend(runtime);
    }
    // One runtime for every script: the same bytes whichever script wrote it.
    runtimes.dedup();
    assert_eq!(
        runtimes.len(),
        1,
        "the runtime file differs between scripts"
    );
    complaints.extend(compare("skillmod-runtime.sh", &runtimes[0]));
    expected_names.push("skillmod-runtime.sh".into());
    // No stale snapshot of a fixture that is gone.
    for entry in std::fs::read_dir(snapshots()).expect("snapshots").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !expected_names.contains(&name) {
            complaints.push(format!("{name}: snapshot of no fixture; delete it"));
        }
    }
    assert!(complaints.is_empty(), "{}", complaints.join("\n"));
}
