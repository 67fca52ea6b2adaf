//! Running a skill to validate what it prints: in a folder the caller picks (where a user would
//! run it: the working folder, never the skill's own folder unasked) and its own process group, stdout and
//! stderr captured up to a size limit, exit status and duration recorded. One deadline bounds
//! the whole run: the script, whatever it left running in its group (killed when it ends), and
//! the reading of pipes that a process outside the group may still hold open.

use crate::codes;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;
use wait_timeout::ChildExt;

use crate::analyze::Dialect;
use crate::error::{Error, Result};

/// How many lines of stderr a report keeps.
const STDERR_TAIL_LINES: usize = 20;

/// At the deadline the skill's group gets SIGTERM, as an agent's timeout sends, and this long to
/// end (a migrated skill prints its `SIGNAL` document then) before SIGKILL.
const TERM_GRACE: Duration = Duration::from_secs(2);

/// What one run of a skill gave.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    #[serde(skip)]
    pub stdout: Vec<u8>,
    /// Exit status; null when the skill was killed (timeout, output limit or signal).
    pub exit_status: Option<i32>,
    pub timed_out: bool,
    /// Stdout or stderr went over the output limit; the run was killed there.
    pub output_exceeded: bool,
    /// What was cut short, if anything (a pipe still held open at the deadline, say).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cut: Vec<String>,
    pub duration_ms: u128,
    /// The last lines of stderr.
    pub stderr_tail: Vec<String>,
}

/// Limits of one run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub timeout: Duration,
    /// Bytes kept of stdout and of stderr each.
    pub max_output: u64,
}

/// Run `script` with `args` in the folder `cwd`, within `limits`.
pub fn run_skill(script: &Path, args: &[String], cwd: &Path, limits: Limits) -> Result<RunResult> {
    let source = std::fs::read(script)
        .map_err(|e| Error::io(codes::SCRIPT_NOT_FOUND, "cannot read", script, &e))?;
    let absolute = std::path::absolute(script)
        .map_err(|e| Error::io(codes::SCRIPT_NOT_FOUND, "cannot resolve", script, &e))?;
    let shell = Dialect::detect(&source).syntax_checker();
    let started = Instant::now();
    let deadline = started + limits.timeout;
    let mut command = Command::new(shell);
    own_process_group(&mut command);
    let mut child = command
        .arg(&absolute)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| Error::new(codes::RUN_FAILED, format!("cannot start {shell}: {e}")))?;
    let pid = child.id();
    let (over_tx, over_rx) = mpsc::channel();
    let stdout = child
        .stdout
        .take()
        .map(|p| reader(p, limits.max_output, over_tx.clone()));
    let stderr = child
        .stderr
        .take()
        .map(|p| reader(p, limits.max_output, over_tx));
    // Wait for the script, the deadline, or a pipe going over the limit, whichever is first.
    let mut status = None;
    let mut output_exceeded = false;
    while status.is_none() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        if over_rx.try_recv().is_ok() {
            output_exceeded = true;
            break;
        }
        status = child
            .wait_timeout(left.min(Duration::from_millis(50)))
            .map_err(|e| {
                Error::new(
                    codes::RUN_FAILED,
                    format!("waiting for the skill failed: {e}"),
                )
            })?;
    }
    // A reader that stopped at the limit closes its pipe, so the script may have died of it.
    output_exceeded |= over_rx.try_recv().is_ok();
    let timed_out = status.is_none() && !output_exceeded;
    let mut deadline = deadline;
    if timed_out {
        signal_group(pid, Signal::Term);
        deadline = Instant::now() + TERM_GRACE;
        while status.is_none() && Instant::now() < deadline {
            status = child.wait_timeout(Duration::from_millis(20)).map_err(|e| {
                Error::new(
                    codes::RUN_FAILED,
                    format!("waiting for the skill failed: {e}"),
                )
            })?;
        }
    }
    // Whatever the script left running in its group ends with it.
    signal_group(pid, Signal::Kill);
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
    }
    let mut cut = Vec::new();
    let stdout = collect(stdout, deadline, "stdout", &mut cut);
    let stderr = collect(stderr, deadline, "stderr", &mut cut);
    let duration_ms = started.elapsed().as_millis();
    let stderr = String::from_utf8_lossy(&stderr);
    let lines: Vec<&str> = stderr.lines().collect();
    let tail = lines[lines.len().saturating_sub(STDERR_TAIL_LINES)..]
        .iter()
        .map(|s| s.to_string())
        .collect();
    Ok(RunResult {
        stdout,
        exit_status: status.and_then(|s| s.code()),
        timed_out,
        output_exceeded,
        cut,
        duration_ms,
        stderr_tail: tail,
    })
}

/// The bytes a reader got, waiting no later than `deadline`: a process outside the group may
/// hold the pipe open forever, and then what was read by the deadline is what counts.
fn collect(
    handle: Option<Reader>,
    deadline: Instant,
    name: &str,
    cut: &mut Vec<String>,
) -> Vec<u8> {
    let Some(handle) = handle else {
        return Vec::new();
    };
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    if handle.done.recv_timeout(left).is_err() {
        cut.push(format!(
            "{name} was still held open at the deadline by a process outside the skill's process group; what it printed until then is kept"
        ));
    }
    handle.buffer.lock().map(|b| b.clone()).unwrap_or_default()
}

/// A pipe being read on its own thread: the bytes so far, and a signal when it ended.
struct Reader {
    buffer: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    done: mpsc::Receiver<()>,
}

/// Read a pipe to its end, keeping at most `max` bytes; going over sends on `over` and stops.
fn reader(mut pipe: impl Read + Send + 'static, max: u64, over: mpsc::Sender<()>) -> Reader {
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let (done_tx, done) = mpsc::channel();
    let shared = buffer.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let Ok(mut kept) = shared.lock() else { break };
                    let room = (max as usize).saturating_sub(kept.len());
                    kept.extend_from_slice(&chunk[..n.min(room)]);
                    if n > room {
                        let _ = over.send(());
                        break;
                    }
                }
            }
        }
        let _ = done_tx.send(());
    });
    Reader { buffer, done }
}

/// Read at most `max` bytes of `input`; `OUTPUT_TOO_LARGE` past that (`validate /dev/zero`),
/// naming `flag`, the option that raises the limit.
pub(crate) fn read_capped(input: impl Read, max: u64, what: &str, flag: &str) -> Result<Vec<u8>> {
    use crate::fsio::limited::{Refused, read_bounded};
    read_bounded(input, max, 0).map_err(|refused| match refused {
        Refused::Io(e) => Error::new(codes::INPUT_UNREADABLE, format!("cannot read {what}: {e}")),
        _ => Error::new(
            codes::OUTPUT_TOO_LARGE,
            format!("{what} is larger than {max} bytes; raise the limit with {flag}"),
        ),
    })
}

/// The skill gets its own process group, so it can be ended with everything it started.
#[cfg(unix)]
fn own_process_group(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
}

#[cfg(not(unix))]
fn own_process_group(_command: &mut Command) {}

/// The signals a run sends its group.
#[derive(Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

#[cfg(unix)]
fn signal_group(pid: u32, signal: Signal) {
    let name = match signal {
        Signal::Term => "-TERM",
        Signal::Kill => "-KILL",
    };
    let _ = Command::new("kill")
        .args([name, "--", &format!("-{pid}")])
        .stderr(Stdio::null())
        .status();
}

#[cfg(not(unix))]
fn signal_group(_pid: u32, _signal: Signal) {}
