//! Which shell a script is written for, from its shebang: a `#!/bin/sh` script gets POSIX code.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Bash,
    Posix,
}

impl Dialect {
    /// Bash unless the shebang names a shell of the sh family (directly, through env or
    /// busybox).
    pub fn detect(source: &[u8]) -> Dialect {
        match shebang_program(source).as_deref() {
            Some("bash" | "rbash") | None => Dialect::Bash,
            Some(program) if crate::fsio::is_shell_program(program) => Dialect::Posix,
            Some(_) => Dialect::Bash,
        }
    }

    /// Whether a file is a shell script skillmod may read as one: a shebang naming sh, bash,
    /// dash or ksh (directly or through env), or a `.sh`/`.bash` name. Anything else (a README
    /// matched by `include = ["*"]`, a Python script) is never rewritten.
    pub fn is_shell_file(path: &std::path::Path, source: &[u8]) -> bool {
        crate::fsio::is_shell_script(path, source)
    }

    /// The command that checks a script's syntax in this dialect.
    pub fn syntax_checker(self) -> &'static str {
        match self {
            Dialect::Bash => "bash",
            Dialect::Posix => "sh",
        }
    }
}

use crate::fsio::shebang_program;

/// The real shell that judges a rewrite: `bash -O extglob -n` for bash scripts (extglob, as
/// the scripts that use it enable it at run time), `dash -n` (else `sh -n`) for sh scripts.
#[derive(Debug)]
pub(crate) struct Judge {
    program: std::path::PathBuf,
    args: &'static [&'static str],
    pub name: &'static str,
}

impl Judge {
    /// The judge for `dialect`, when its shell is on this machine (found once per process).
    pub fn for_dialect(dialect: Dialect) -> Option<&'static Judge> {
        static BASH: std::sync::OnceLock<Option<Judge>> = std::sync::OnceLock::new();
        static POSIX: std::sync::OnceLock<Option<Judge>> = std::sync::OnceLock::new();
        match dialect {
            Dialect::Bash => BASH.get_or_init(|| Judge::find("bash", &["-O", "extglob", "-n"])),
            Dialect::Posix => POSIX.get_or_init(|| {
                Judge::find("dash", &["-n"]).or_else(|| Judge::find("sh", &["-n"]))
            }),
        }
        .as_ref()
    }

    fn find(name: &'static str, args: &'static [&'static str]) -> Option<Judge> {
        which::which(name).ok().map(|program| Judge {
            program,
            args,
            name,
        })
    }

    /// Whether the shell's syntax check accepts `script` (read from stdin, nothing run): Ok, or
    /// the shell's first complaint. None when the shell could not be run at all.
    pub fn check(&self, script: &[u8]) -> Option<std::result::Result<(), String>> {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let mut child = Command::new(&self.program)
            .args(self.args)
            .env_remove("BASH_ENV")
            .env_remove("ENV")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .ok()?;
        // The shell reads all of stdin or stops at its first error (then the write fails with
        // a broken pipe, which is fine); its stderr is a line or two, so neither side blocks.
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(script);
        }
        let output = child.wait_with_output().ok()?;
        if output.status.success() {
            return Some(Ok(()));
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        Some(Err(stderr
            .lines()
            .next()
            .unwrap_or("syntax error")
            .to_string()))
    }
}
