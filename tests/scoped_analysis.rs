//! Parsing only the chunks that matter gives the same analysis as parsing the whole file: on
//! every fixture script, and on scripts generated from the constructs the chunk lexer has to
//! get right (heredocs, multi-line strings and substitutions, compound commands, functions whose
//! body starts on the next line, captured and piped calls, continuation lines).

mod common;

use common::{PIECES, fixture_scripts, generated_script};
use proptest::prelude::*;
use skillmod::analyze::Vocabulary;
use skillmod::analyze::{self, Analysis, BashParser, parser::error_count};

/// What the analysis reports, in comparable form.
fn facts(a: &Analysis) -> String {
    format!(
        "legacy={:?}\nwrites={:?}\ntraps={:?}\nmigrated={} final_exit={:?}",
        a.legacy,
        a.stdout_writes,
        a.exit_traps
            .iter()
            .map(|t| (t.line, t.name_start, t.in_subshell, t.dynamic))
            .collect::<Vec<_>>(),
        a.already_migrated,
        a.final_exit
    )
}

/// Scoped and whole analyses of `source` agree, with each vocabulary; returns the share of bytes
/// the scoped parse read with the default one (None when it fell back to the whole file).
fn agree(parser: &mut BashParser, source: &[u8]) -> Option<f64> {
    let mut share = None;
    for vocabulary in [Vocabulary::Original, Vocabulary::Exact] {
        let whole = analyze::analyze_whole(parser, source, vocabulary).expect("whole");
        if whole.parse_errors > 0 {
            return None;
        }
        let scoped = analyze::analyze_scoped(parser, source, vocabulary).expect("scoped")?;
        assert_eq!(error_count(&scoped.tree), 0);
        assert_eq!(
            facts(&scoped),
            facts(&whole),
            "scoped and whole analyses ({vocabulary:?}) differ for:\n{}",
            String::from_utf8_lossy(source)
        );
        let ranges = scoped
            .scope
            .as_ref()
            .expect("scoped analysis has its ranges");
        let read: usize = ranges.iter().map(|r| r.len()).sum();
        share = Some(read as f64 / source.len().max(1) as f64);
    }
    share
}

#[test]
fn every_fixture_script_gets_the_same_analysis_scoped_and_whole() {
    let files = fixture_scripts();
    let mut parser = BashParser::new().expect("parser");
    let scoped = files
        .iter()
        .filter(|path| agree(&mut parser, &std::fs::read(path).expect("read")).is_some())
        .count();
    assert!(
        scoped * 2 > files.len(),
        "{scoped} of {} scoped",
        files.len()
    );
}

#[test]
fn a_typical_skill_parses_a_small_part_of_itself() {
    let source = std::fs::read("fixtures/bench/typical.sh").expect("typical.sh");
    let mut parser = BashParser::new().expect("parser");
    let share = agree(&mut parser, &source).expect("typical.sh is scoped");
    assert!(share < 0.5, "scoped parse read {share:.2} of the file");
}

#[test]
fn a_call_site_in_another_chunk_still_decides_the_context() {
    // `report` is only known to be captured from a chunk with no marker in it.
    let source = b"report() {\n  echo \"SUCCESS\"\n  echo hi\n}\nls\nx=$(report)\nfor i in 1; do\n  y=$(report) | cat\ndone\necho \"Created: a\"\n";
    let mut parser = BashParser::new().expect("parser");
    assert!(agree(&mut parser, source).is_some());
    let scoped = analyze::analyze_scoped(&mut parser, source, Vocabulary::Exact)
        .expect("scoped")
        .expect("chunked");
    assert_eq!(
        scoped.legacy.len(),
        1,
        "only the top-level Created: is live"
    );
    let writes: Vec<&str> = scoped
        .stdout_writes
        .iter()
        .map(|w| w.text.as_str())
        .collect();
    assert_eq!(
        writes,
        ["cat"],
        "the captured `echo hi` is data; the `cat` writes"
    );
}

#[test]
fn a_parse_error_in_a_parsed_chunk_falls_back_to_the_whole_file() {
    let source = b"echo \"SUCCESS\" )\nls\n";
    let mut parser = BashParser::new().expect("parser");
    assert!(
        analyze::analyze_scoped(&mut parser, source, Vocabulary::Exact)
            .expect("scoped")
            .is_none()
    );
    assert!(
        analyze::analyze(&mut parser, source, Vocabulary::Exact)
            .expect("analysis")
            .parse_errors
            > 0
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    #[test]
    fn generated_scripts_get_the_same_analysis_scoped_and_whole(
        picks in proptest::collection::vec((0..PIECES.len(), 0usize..3), 1..14)
    ) {
        let mut parser = BashParser::new().expect("parser");
        agree(&mut parser, generated_script(&picks).as_bytes());
    }
}
