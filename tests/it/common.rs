//! Helpers shared by the integration tests: the binary, temp skill trees, shells.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The check cache stored at `path`.
pub fn read_cache(path: &Path) -> skillmod::check::cache::Stored {
    postcard::from_bytes(&std::fs::read(path).expect("cache")).expect("decode the cache")
}

/// The skillmod binary, run in `dir`, keeping its per-user state (the journal of backup runs,
/// installed skills' backups) in the test build's folder, not the real user's (a test can set
/// `XDG_STATE_HOME` again).
pub fn skillmod(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_skillmod"));
    cmd.current_dir(dir)
        .env("NO_COLOR", "1")
        .env("XDG_STATE_HOME", state_home())
        .env_remove("CLICOLOR_FORCE");
    cmd
}

/// The user's state folder the tests give skillmod.
pub fn state_home() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("state")
}

/// Run with `input` on stdin. A process that stops reading early (a size cap) is not an error.
pub fn run_with_stdin(cmd: &mut Command, input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    child.wait_with_output().expect("output")
}

/// Run and return output, failing the test if the process could not start.
pub fn run(cmd: &mut Command) -> Output {
    cmd.output().expect("failed to start process")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The golden-file check every golden test uses. Under `SKILLMOD_BLESS=1` it writes `actual` to
/// `path` (when it differs) and passes; otherwise `actual` must equal the file byte for byte, and
/// the error names the file, the first line that differs and the command that rewrites it.
pub fn golden(path: &Path, actual: &[u8]) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let shown = path.strip_prefix(root).unwrap_or(path).display();
    let expected = std::fs::read(path).ok();
    if std::env::var_os("SKILLMOD_BLESS").is_some() {
        if expected.as_deref() != Some(actual) {
            std::fs::create_dir_all(path.parent().expect("path has a parent")).expect("mkdir");
            std::fs::write(path, actual).unwrap_or_else(|e| panic!("bless {shown}: {e}"));
        }
        return Ok(());
    }
    // The test's name is its thread's when tests run in parallel (the default).
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .map_or(String::new(), |n| format!(" {n}"));
    let bless =
        format!("SKILLMOD_BLESS=1 cargo test --test it{test} rewrites it; review its git diff");
    let Some(expected) = expected else {
        return Err(format!("{shown}: no golden file ({bless})"));
    };
    if expected == actual {
        return Ok(());
    }
    let lines = |b: &[u8]| {
        b.split(|&c| c == b'\n')
            .map(<[u8]>::to_vec)
            .collect::<Vec<_>>()
    };
    let (want, got) = (lines(&expected), lines(actual));
    let i = (0..)
        .find(|&i| want.get(i) != got.get(i))
        .expect("the bytes differ");
    let show = |l: Option<&Vec<u8>>| {
        l.map_or("(end of file)".into(), |l| {
            format!("{:?}", String::from_utf8_lossy(l))
        })
    };
    Err(format!(
        "{shown}: differs from the golden file at line {} ({bless})\n  golden: {}\n  actual: {}",
        i + 1,
        show(want.get(i)),
        show(got.get(i))
    ))
}

/// Make `dir/folder` a skill folder: its SKILL.md, named after the folder, creating folders.
pub fn write_skill_md(dir: &Path, folder: &str) -> PathBuf {
    let skill = dir.join(folder);
    std::fs::create_dir_all(&skill).expect("mkdir");
    let name = skill
        .file_name()
        .map_or("skill".into(), |n| n.to_string_lossy());
    let text = format!("---\nname: {name}\ndescription: the {name} skill\n---\n");
    std::fs::write(skill.join("SKILL.md"), text).expect("SKILL.md");
    skill
}

/// Write `text` to `dir/rel`, creating folders, with mode 0755.
pub fn write_script(dir: &Path, rel: &str, text: &[u8]) -> PathBuf {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().expect("path has a parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write script");
    set_mode(&path, 0o755);
    path
}

pub fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).expect("stat").permissions().mode() & 0o7777
}

/// True when `shell -n path` accepts the script (bash gets extglob, as real skills use it).
pub fn syntax_ok(shell: &str, path: &Path) -> bool {
    let mut cmd = Command::new(shell);
    if shell == "bash" {
        cmd.args(["-O", "extglob"]);
    }
    cmd.arg("-n")
        .arg(path)
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// The last JSON document on stdout: the text from the last line that opens with `{`.
pub fn last_json(stdout: &str) -> Option<serde_json::Value> {
    let mut starts: Vec<usize> = stdout.match_indices("\n{").map(|(i, _)| i + 1).collect();
    if stdout.starts_with('{') {
        starts.insert(0, 0);
    }
    starts
        .iter()
        .rev()
        .find_map(|&i| serde_json::from_str(stdout[i..].trim_end()).ok())
}

/// A fresh git repository in `dir` with a committer identity.
pub fn git_init(dir: &Path) {
    for args in [
        vec!["init", "-q", "-b", "main"],
        vec!["config", "user.email", "test@example.com"],
        vec!["config", "user.name", "Test"],
        vec!["config", "commit.gpgsign", "false"],
    ] {
        let ok = Command::new("git")
            .args(&args)
            .current_dir(dir)
            .status()
            .expect("git")
            .success();
        assert!(ok, "git {args:?} failed");
    }
}

pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Run skillmod with `--format json`; its exit status and the JSON document it printed.
pub fn json_report(dir: &Path, args: &[&str]) -> (i32, serde_json::Value) {
    let out = run(skillmod(dir).args(args).args(["--format", "json"]));
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", stdout(&out), stderr(&out)));
    (out.status.code().unwrap_or(-1), doc)
}

/// The `path` of every entry of a migrate report's `files`.
pub fn report_paths(report: &serde_json::Value) -> Vec<&str> {
    report["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["path"].as_str())
        .collect()
}

/// The entry of a migrate report's `files` whose path ends with `suffix` (null when none).
pub fn report_file(report: &serde_json::Value, suffix: &str) -> serde_json::Value {
    report["files"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["path"].as_str().is_some_and(|p| p.ends_with(suffix)))
        .cloned()
        .unwrap_or_default()
}

/// The case folders (those holding input.sh) under fixtures/NAME, sorted.
pub fn fixture_cases(name: &str) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures().join(name))
        .expect("fixture folder")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("input.sh").is_file())
        .collect();
    dirs.sort();
    dirs
}

/// Statements that property tests string together into scripts: quoting, heredocs, compound
/// commands, functions and redirections that the analysis has to get right. `{i}` becomes a number so names differ.
pub const PIECES: &[&str] = &[
    "echo \"SUCCESS\"\n",
    "echo \"Confidence: $C\" >&2\n",
    "echo COMPLETE | tee log\n",
    "echo 'Created: out/{i}.txt'\n",
    "x{i}=$(echo \"Modified: a\")\n",
    "printf 'noise\\n'\n",
    "cat <<EOF\nSUCCESS\necho \"Created: in heredoc\"\nEOF\n",
    "cat <<-'Q'\n\tif fi done )\n\tQ\n",
    "s{i}=\"multi\nline echo SUCCESS\n\"\n",
    "y{i}=$(\n  ls\n  echo \"Created: c\"\n)\n",
    "if [ -n \"$a\" ]\nthen\n  echo \"Confidence: 0.{i}\"\nfi\n",
    "case $m in\n  a) echo SUCCESS;;\n  (b|c) echo \"Modified: m\" ;;\nesac\n",
    "for f in a b; do\n  echo \"Created: $f\"\ndone\n",
    "while read -r l\ndo\n  echo \"$l\"\ndone < in.txt\n",
    "f{i}()\n{\n  echo \"Created: fn{i}\"\n}\n",
    "function g{i} {\n  echo COMPLETE\n}\n",
    "function h{i}()\n{\n  echo \"Confidence: 0.5\"\n}\n",
    "function k{i}\n{ echo SUCCESS; }\n",
    "w{i}=$(h{i}; k{i})\n",
    "v{i}=$(f{i})\n",
    "g{i} | wc -l\n",
    "f{i}\n",
    "g{i} > out.log\n",
    "ls \\\n  -l && echo SUCCESS\n",
    "true &&\n  echo \"Confidence: 1\"\n",
    "arr{i}=(\n  one\n  two\n)\n",
    "# echo SUCCESS in a comment\n",
    "n{i}=$(( {i} << 2 ))\n",
    "trap 'echo bye' EXIT\n",
    "{ echo \"Created: grouped\"; } 2>/dev/null\n",
    "( echo SUCCESS )\n",
    "echo \"${v:-SUCCESS}\" \"$#\" ${#x}\n",
    "echo \"SUCCESS\" && date > stamp{i}.txt\n",
    "true && echo COMPLETE || echo FAILED >&2\n",
    "echo 2>/dev/null \"Created: r{i}\"\n",
    "trap \"rm -f $T{i}\" EXIT INT\n",
    "m{i}() { echo SUCCESS; exit 0; }\n",
    "echo \"Confidence: 0.{i}\" # note\r\n",
    "exit 0\n",
];

/// A script made of the `PIECES` picked, `{i}` replaced by the second number (mod 3).
pub fn generated_script(picks: &[(usize, usize)]) -> String {
    let mut text = String::from("#!/bin/bash\n");
    for &(piece, i) in picks {
        text.push_str(&PIECES[piece % PIECES.len()].replace("{i}", &(i % 3).to_string()));
    }
    text
}

/// Every `.sh` file under fixtures/, at any depth, in path order (not the snapshots made of them).
pub fn fixture_scripts() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read fixtures") {
            let path = entry.expect("entry").path();
            if path == fixtures().join("snapshots") {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "sh") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&fixtures(), &mut out);
    out.sort();
    out
}

/// Run with no stdin and a deadline: a command that hangs (a FIFO read, say) is killed and the
/// test fails saying so, instead of hanging the suite.
pub fn run_bounded(cmd: &mut Command, seconds: u64) -> Output {
    use std::process::Stdio;
    use wait_timeout::ChildExt;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let limit = std::time::Duration::from_secs(seconds);
    if child.wait_timeout(limit).expect("wait").is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("the command hung for {seconds} s: {cmd:?}");
    }
    child.wait_with_output().expect("output")
}

/// The `code` of each entry of a JSON `errors` array (none when it is not an array).
pub fn error_codes(errors: &serde_json::Value) -> Vec<&str> {
    errors
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["code"].as_str())
        .collect()
}
