//! Baseline for benchmarks: parse every file given (folders walked) with tree-sitter-bash on all
//! cores and do nothing else, with skillmod's allocator. `cargo run --release --example parse_all -- DIR`.
use rayon::prelude::*;

/// The allocator the skillmod binary uses, so the baseline parses as fast as skillmod can.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    // SAFETY: first thing in main, before any thread or tree-sitter object exists.
    unsafe { skillmod::analyze::parser::use_mimalloc() };
    let files: Vec<std::path::PathBuf> = std::env::args()
        .skip(1)
        .flat_map(|root| ignore::WalkBuilder::new(root).build().flatten())
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .collect();
    let nodes: u64 = files
        .par_iter()
        .map_init(
            || {
                let mut parser = tree_sitter::Parser::new();
                let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
                parser.set_language(&language).ok().map(|_| parser)
            },
            |parser, path| {
                let (Some(parser), Ok(source)) = (parser.as_mut(), std::fs::read(path)) else {
                    return 0;
                };
                parser
                    .parse(&source, None)
                    .map_or(0, |t| u64::from(t.root_node().child_count()))
            },
        )
        .sum();
    println!("{} files, {nodes} top-level nodes", files.len());
}
