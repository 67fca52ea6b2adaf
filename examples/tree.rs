//! Prints the tree-sitter-bash tree of a file as skillmod parses it (misread constructs masked),
//! then the position of the first parse error: `cargo run --example tree -- FILE`.
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
    let tree = skillmod::analyze::BashParser::new().and_then(|mut parser| parser.parse(&source));
    match tree {
        Ok(tree) => {
            println!("{}", tree.root_node().to_sexp());
            if let Some((line, column)) = skillmod::analyze::parser::first_error(&tree) {
                println!("first error: line {line}:{column}");
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}
