//! Prints the tree-sitter-bash tree of a file: `cargo run --example tree -- FILE`.
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: tree FILE");
        std::process::exit(2);
    };
    let source = match std::fs::read(&path) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }
    };
    let mut parser = tree_sitter::Parser::new();
    let language: tree_sitter::Language = tree_sitter_bash::LANGUAGE.into();
    if parser.set_language(&language).is_err() {
        std::process::exit(2);
    }
    if let Some(tree) = parser.parse(&source, None) {
        println!("{}", tree.root_node().to_sexp());
    }
}
