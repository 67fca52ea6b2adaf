use skillmod::analyze::{BashParser, chunks::chunk_starts, parser::error_count};
fn main() {
    let mut parser = BashParser::new().unwrap();
    let (mut none, mut bad, mut n, mut nchunks, mut errs) = (0, 0, 0, 0, 0);
    for root in std::env::args().skip(1) {
        for e in ignore::WalkBuilder::new(root).build().flatten() {
            if !e.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let src = std::fs::read(e.path()).unwrap();
            n += 1;
            let tree = parser.parse(&src).unwrap();
            if error_count(&tree) > 0 {
                errs += 1;
                continue;
            }
            let Some(starts) = chunk_starts(&src) else {
                none += 1;
                eprintln!("none: {}", e.path().display());
                continue;
            };
            nchunks += starts.len();
            let root = tree.root_node();
            let mut c = root.walk();
            let spans: Vec<_> = root
                .children(&mut c)
                .map(|n| (n.start_byte(), n.end_byte(), n.kind()))
                .collect();
            for &cut in &starts {
                if let Some(&(s, e2, k)) = spans.iter().find(|&&(s, e, _)| s < cut && cut < e) {
                    bad += 1;
                    let line = src[..cut].iter().filter(|&&b| b == b'\n').count() + 1;
                    eprintln!(
                        "bad: {} line {line} inside {k} {}..{}",
                        e.path().display(),
                        s,
                        e2
                    );
                    break;
                }
            }
        }
    }
    println!(
        "{n} files, {errs} with parse errors skipped, {none} gave up, {bad} bad, {nchunks} chunks"
    );
}
