//! The skillmod binary: parse arguments, run the command, map errors to exit status 2.

use clap::Parser;

fn main() {
    let cli = skillmod::cli::Cli::parse();
    match skillmod::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(error) if error.code == skillmod::error::BROKEN_PIPE => std::process::exit(0),
        Err(error) => {
            eprintln!("error[{}]: {}", error.code, error.message);
            std::process::exit(error.exit_code());
        }
    }
}
