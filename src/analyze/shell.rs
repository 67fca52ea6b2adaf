//! Which shell a script is written for, from its shebang: a `#!/bin/sh` script gets POSIX code.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    Bash,
    Posix,
}

impl Dialect {
    /// Bash unless the shebang names sh, dash, ash or ksh (directly or through env).
    pub fn detect(source: &[u8]) -> Dialect {
        let Some(rest) = source.strip_prefix(b"#!") else {
            return Dialect::Bash;
        };
        let line_end = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
        let line = String::from_utf8_lossy(&rest[..line_end]);
        let mut words = line.split_whitespace();
        let mut program = words.next().unwrap_or("");
        if program.ends_with("/env") {
            program = words.find(|w| !w.starts_with('-')).unwrap_or("");
        }
        let name = program.rsplit('/').next().unwrap_or(program);
        match name {
            "sh" | "dash" | "ash" | "ksh" | "posh" => Dialect::Posix,
            _ => Dialect::Bash,
        }
    }

    /// The command that checks a script's syntax in this dialect.
    pub fn syntax_checker(self) -> &'static str {
        match self {
            Dialect::Bash => "bash",
            Dialect::Posix => "sh",
        }
    }
}
