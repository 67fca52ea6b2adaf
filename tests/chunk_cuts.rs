//! Every cut the chunk lexer makes falls between two top-level statements of tree-sitter's own
//! parse of the whole file, for every script under fixtures/ and for generated scripts.

mod common;

use common::{PIECES, fixture_scripts, generated_script};
use proptest::prelude::*;
use skillmod::analyze::{BashParser, chunks::chunk_starts, parser::error_count};

/// Cuts that split a top-level node of the full parse.
fn bad_cuts(parser: &mut BashParser, source: &[u8]) -> Option<Vec<usize>> {
    let starts = chunk_starts(source)?;
    let tree = parser.parse(source).expect("parse");
    let root = tree.root_node();
    let mut cursor = root.walk();
    let spans: Vec<(usize, usize)> = root
        .children(&mut cursor)
        .map(|n| (n.start_byte(), n.end_byte()))
        .collect();
    Some(
        starts
            .into_iter()
            .filter(|&cut| spans.iter().any(|&(s, e)| s < cut && cut < e))
            .collect(),
    )
}

#[test]
fn cuts_fall_between_top_level_statements_in_every_fixture() {
    let files = fixture_scripts();
    assert!(files.len() > 40, "fixtures found: {}", files.len());
    let mut parser = BashParser::new().expect("parser");
    let mut chunked = 0;
    for path in &files {
        let source = std::fs::read(path).expect("read");
        if let Some(bad) = bad_cuts(&mut parser, &source) {
            chunked += 1;
            assert!(
                bad.is_empty(),
                "{}: cuts inside statements at {bad:?}",
                path.display()
            );
        }
    }
    assert!(
        chunked * 2 > files.len(),
        "only {chunked} of {} files chunked",
        files.len()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn cuts_fall_between_top_level_statements_in_generated_scripts(
        picks in proptest::collection::vec((0..PIECES.len(), 0usize..3), 1..14)
    ) {
        let source = generated_script(&picks);
        let mut parser = BashParser::new().expect("parser");
        let clean = error_count(&parser.parse(source.as_bytes()).expect("parse")) == 0;
        if let (true, Some(bad)) = (clean, bad_cuts(&mut parser, source.as_bytes())) {
            prop_assert!(bad.is_empty(), "cuts inside statements at {:?} in:\n{}", bad, source);
        }
    }
}
