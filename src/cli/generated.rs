//! Shell completions and the man page, generated from the clap definitions so they never drift.

use crate::codes;
use std::io::Write;

use clap::CommandFactory;

use super::Cli;
use crate::error::{Error, Result};

pub fn completions(shell: clap_complete::Shell) -> Result<i32> {
    let mut command = Cli::command();
    // Rendered first: clap_complete panics on a failed write (a reader that went away).
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut command, "skillmod", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| Error::output("cannot write the completions", &e))?;
    Ok(0)
}

/// The man page of skillmod, or of one subcommand (`skillmod man check` is skillmod-check(1)).
pub fn man(subcommand: Option<&str>) -> Result<i32> {
    let root = Cli::command();
    let command = match subcommand {
        None => root,
        Some(name) => {
            let names: Vec<String> = root
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            let found = root.find_subcommand(name).cloned().ok_or_else(|| {
                Error::new(
                    codes::UNKNOWN_COMMAND,
                    format!("no command '{name}'; the commands are {}", names.join(", ")),
                )
            })?;
            // clap takes a static name; one short string for the life of this process.
            let page: &'static str = format!("skillmod-{name}").leak();
            found.name(page)
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(command)
        .render(&mut out)
        .map_err(|e| Error::new(codes::IO_ERROR, format!("cannot render the man page: {e}")))?;
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| Error::output("cannot write the man page", &e))?;
    Ok(0)
}
