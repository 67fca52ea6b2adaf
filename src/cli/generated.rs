//! Shell completions and the man page, generated from the clap definitions so they never drift.

use std::io::Write;

use clap::CommandFactory;

use super::Cli;
use crate::error::{Error, Result};

pub fn completions(shell: clap_complete::Shell) -> Result<i32> {
    let mut command = Cli::command();
    clap_complete::generate(shell, &mut command, "skillmod", &mut std::io::stdout());
    Ok(0)
}

pub fn man() -> Result<i32> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut out)
        .map_err(|e| Error::new("IO_ERROR", format!("cannot render the man page: {e}")))?;
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| Error::output("cannot write the man page", &e))?;
    Ok(0)
}
