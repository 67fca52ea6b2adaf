//! Running a skill to validate what it prints: in its own folder, with a timeout, stdout and
//! stderr captured, exit status and duration recorded.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;
use wait_timeout::ChildExt;

use crate::analyze::Dialect;
use crate::error::{Error, Result};

/// How many lines of stderr a report keeps.
const STDERR_TAIL_LINES: usize = 20;

/// What one run of a skill gave.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    #[serde(skip)]
    pub stdout: String,
    /// Exit status; null when the skill was killed (timeout or signal).
    pub exit_status: Option<i32>,
    pub timed_out: bool,
    pub duration_ms: u128,
    /// The last lines of stderr.
    pub stderr_tail: Vec<String>,
}

/// Run `script` with `args` in the script's folder; kill it after `timeout`.
pub fn run_skill(script: &Path, args: &[String], timeout: Duration) -> Result<RunResult> {
    let source = std::fs::read(script)
        .map_err(|e| Error::io("SCRIPT_NOT_FOUND", "cannot read", script, &e))?;
    let absolute = std::path::absolute(script)
        .map_err(|e| Error::io("SCRIPT_NOT_FOUND", "cannot resolve", script, &e))?;
    let folder = absolute.parent().unwrap_or(Path::new("."));
    let shell = Dialect::detect(&source).syntax_checker();
    let started = Instant::now();
    let mut command = Command::new(shell);
    own_process_group(&mut command);
    let mut child = command
        .arg(&absolute)
        .args(args)
        .current_dir(folder)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::new("RUN_FAILED", format!("cannot start {shell}: {e}")))?;
    let stdout = child.stdout.take().map(reader);
    let stderr = child.stderr.take().map(reader);
    let status = child
        .wait_timeout(timeout)
        .map_err(|e| Error::new("RUN_FAILED", format!("waiting for the skill failed: {e}")))?;
    let timed_out = status.is_none();
    let status = match status {
        Some(status) => Some(status),
        None => {
            kill_group(child.id());
            let _ = child.kill();
            child.wait().ok()
        }
    };
    let duration_ms = started.elapsed().as_millis();
    let collect = |handle: Option<std::thread::JoinHandle<Vec<u8>>>| {
        handle
            .and_then(|h| h.join().ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let stdout = collect(stdout);
    let stderr = collect(stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let tail = lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..]
        .iter()
        .map(|s| s.to_string())
        .collect();
    Ok(RunResult {
        stdout,
        exit_status: if timed_out {
            None
        } else {
            status.and_then(|s| s.code())
        },
        timed_out,
        duration_ms,
        stderr_tail: tail,
    })
}

/// The skill gets its own process group, so a timeout can end it with everything it started
/// (a `sleep` left behind would keep the pipes open).
#[cfg(unix)]
fn own_process_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn own_process_group(_command: &mut Command) {}

#[cfg(unix)]
fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

fn reader(mut pipe: impl Read + Send + 'static) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buffer = Vec::new();
        let _ = pipe.read_to_end(&mut buffer);
        buffer
    })
}
