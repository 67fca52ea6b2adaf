//! Which shell a script is written for, from its shebang: a `#!/bin/sh` script gets POSIX code.

use serde::Serialize;
use tree_sitter::Node;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Bash,
    /// Bash with `shopt -s xpg_echo`: its echo reads backslash escapes without `-e`, as dash's
    /// does, and still takes bash's flags.
    BashXpgEcho,
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

    /// The dialect of a parsed script: its shebang's, and bash's echo as the script sets it.
    /// A `shopt -s xpg_echo` anywhere in the script counts for every echo in it: its order against
    /// the echoes is not followed (an echo before it is read with escapes too).
    pub fn of(root: Node<'_>, source: &[u8]) -> Dialect {
        match Dialect::detect(source) {
            Dialect::Bash if shebang_sets_xpg_echo(source) || sets_xpg_echo(root, source) => {
                Dialect::BashXpgEcho
            }
            dialect => dialect,
        }
    }

    /// Whether `echo` reads backslash escapes when no flag says.
    pub fn echo_reads_escapes(self) -> bool {
        self != Dialect::Bash
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
            Dialect::Bash | Dialect::BashXpgEcho => "bash",
            Dialect::Posix => "sh",
        }
    }
}

/// Whether the shebang starts bash with `xpg_echo` on (`#!/usr/bin/env -S bash -O xpg_echo`).
fn shebang_sets_xpg_echo(source: &[u8]) -> bool {
    // `-O xpg_echo`, bundled (`-xO xpg_echo`), or `BASHOPTS=xpg_echo` set by env before bash.
    let line = source.split(|&b| b == b'\n').next().unwrap_or_default();
    let bashopts = memchr::memmem::find_iter(line, b"BASHOPTS=").any(|at| {
        line[at..]
            .split(|&b| b == b' ' || b == b'\t')
            .next()
            .is_some_and(|word| {
                word.split(|&b| b == b'=' || b == b':')
                    .any(|o| o == b"xpg_echo")
            })
    });
    bashopts
        || crate::fsio::shebang(source).is_some_and(|(_, words)| {
            words.windows(2).any(|pair| {
                pair[1] == "xpg_echo"
                    && pair[0].starts_with('-')
                    && !pair[0].starts_with("--")
                    && pair[0].ends_with('O')
            })
        })
}

/// Whether a command of the script turns on `xpg_echo` (`shopt -s xpg_echo`, `shopt -qs extglob
/// xpg_echo`): found from each place the option or `shopt` is written (either may be split by a
/// line continuation, `shopt -s xpg_ec\⏎ho`), so a script without them costs two scans.
fn sets_xpg_echo(root: Node<'_>, source: &[u8]) -> bool {
    let at =
        |name: &'static [u8]| memchr::memmem::find_iter(source, name).map(|at| (at, name.len()));
    at(b"xpg_echo").chain(at(b"shopt")).any(|(at, len)| {
        let Some(mut node) = root.descendant_for_byte_range(at, at + len) else {
            return false;
        };
        while node.kind() != "command" {
            match node.parent() {
                Some(parent) => node = parent,
                None => return false,
            }
        }
        let Some(run) = super::context::invocation(node, source) else {
            return false;
        };
        // Words glued by a line continuation are one word to bash.
        let mut words: Vec<String> = Vec::new();
        let mut end = None;
        for word in run.arguments(node, source) {
            let text = super::words::word_value(word, source)
                .as_literal()
                .unwrap_or_default();
            match words.last_mut() {
                Some(last)
                    if end.is_some_and(|e| super::context::glued(source, e, word.start_byte())) =>
                {
                    last.push_str(&text)
                }
                _ => words.push(text),
            }
            end = Some(word.end_byte());
        }
        let flags = || {
            words
                .iter()
                .filter_map(|t| t.strip_prefix('-'))
                .filter(|f| !f.starts_with('-'))
        };
        run.name == "shopt"
            && flags().any(|f| f.contains('s'))
            && !flags().any(|f| f.contains('u'))
            && words.iter().any(|w| w == "xpg_echo")
    })
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
            Dialect::Bash | Dialect::BashXpgEcho => {
                BASH.get_or_init(|| Judge::find("bash", &["-O", "extglob", "-n"]))
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn dialect(script: &str) -> Dialect {
        let mut parser = super::super::BashParser::new().expect("parser");
        let tree = parser.parse(script.as_bytes()).expect("parse");
        Dialect::of(tree.root_node(), script.as_bytes())
    }

    #[test]
    fn xpg_echo_is_read_from_a_live_shopt_that_sets_it() {
        for script in [
            "shopt -s xpg_echo\n",
            "shopt -qs extglob xpg_echo\n",
            "f() { shopt -s 'xpg_echo'; }\n",
            "shopt -s xpg_ec\\\nho\n",
            "sh\\\nopt -s xpg_echo\n",
            "#!/usr/bin/env bash\nif true; then command shopt -s xpg_echo; fi\n",
            "#!/usr/bin/env -S bash -O xpg_echo\necho x\n",
            "#!/usr/bin/env -S bash -xO xpg_echo\necho x\n",
            "#!/usr/bin/env -S BASHOPTS=xpg_echo bash\necho x\n",
        ] {
            assert_eq!(dialect(script), Dialect::BashXpgEcho, "{script:?}");
        }
        for script in [
            "shopt -u xpg_echo\n",
            "shopt -p xpg_echo\n",
            "# shopt -s xpg_echo\n",
            "echo \"shopt -s xpg_echo\"\n",
            "shopt -s extglob\necho xpg_echo\n",
        ] {
            assert_eq!(dialect(script), Dialect::Bash, "{script:?}");
        }
        assert_eq!(dialect("#!/bin/sh\nshopt -s xpg_echo\n"), Dialect::Posix);
    }
}
