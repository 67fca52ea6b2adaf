//! The skillmod binary: parse arguments, run the command, map errors to exit status 2.

use clap::Parser;

/// mimalloc for Rust, and (below) for tree-sitter's C code: parsing allocates a node at a time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // SAFETY: first thing in main, before any thread or tree-sitter object exists.
    unsafe { skillmod::analyze::parser::use_mimalloc() };
    let cli = skillmod::cli::Cli::parse();
    match skillmod::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(error) if error.code == skillmod::codes::BROKEN_PIPE => std::process::exit(0),
        Err(error) => {
            // A message can quote a file name or a settings value: no control characters.
            eprintln!(
                "error[{}]: {}",
                error.code,
                skillmod::bytes_text::visible(&error.message)
            );
            std::process::exit(error.exit_code());
        }
    }
}
