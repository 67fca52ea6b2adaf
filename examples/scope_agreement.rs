//! Compares the scoped analysis (only the chunks that matter are parsed) with a whole-file
//! analysis on every file under the given folders, and prints the files where they differ.
//! `cargo run --release --example scope_agreement -- DIR...`
//!
//! Files that tree-sitter cannot parse whole are left out (the scoped analysis falls back to the
//! whole file for them anyway when the error is in a chunk it reads). The last line gives the share
//! of all bytes `check` parses (prefilter, scope, or the whole file when the scope is wide).
use skillmod::analyze::Vocabulary;
use skillmod::analyze::{self, Analysis, BashParser, prefilter};

fn facts(a: &Analysis) -> String {
    let legacy: Vec<_> = a.legacy.iter().map(|l| (l.line, l.kind)).collect();
    let writes: Vec<_> = a.stdout_writes.iter().map(|w| w.line).collect();
    let traps: Vec<_> = a
        .exit_traps
        .iter()
        .map(|t| (t.line, t.in_subshell, t.dynamic))
        .collect();
    format!(
        "legacy {legacy:?} writes {writes:?} traps {traps:?} migrated {} final_exit {:?}",
        a.already_migrated, a.final_exit
    )
}

fn main() {
    let Ok(mut parser) = BashParser::new() else {
        eprintln!("cannot load the bash grammar");
        std::process::exit(2);
    };
    let (mut files, mut broken, mut scoped, mut differ) = (0, 0, 0, 0);
    let mut share = 0.0;
    // What `check` parses: nothing for a file the prefilter skips, the scope or the whole file.
    let (mut bytes, mut parsed) = (0usize, 0usize);
    let walk = std::env::args()
        .skip(1)
        .flat_map(|root| ignore::WalkBuilder::new(root).build().flatten());
    for entry in walk.filter(|e| e.file_type().is_some_and(|t| t.is_file())) {
        let Ok(source) = std::fs::read(entry.path()) else {
            continue;
        };
        files += 1;
        bytes += source.len();
        if prefilter::may_hold_legacy(&source, Vocabulary::Exact)
            && let Ok(analysis) = analyze::analyze(&mut parser, &source, Vocabulary::Exact)
        {
            parsed += match &analysis.scope {
                Some(ranges) => ranges.iter().map(|r| r.len()).sum(),
                None => source.len(),
            };
        }
        let Ok(whole) = analyze::analyze_whole(&mut parser, &source, Vocabulary::Exact) else {
            continue;
        };
        if whole.parse_errors > 0 {
            broken += 1;
            continue;
        }
        let Ok(Some(part)) = analyze::analyze_scoped(&mut parser, &source, Vocabulary::Exact)
        else {
            continue;
        };
        scoped += 1;
        let read: usize = part.scope.iter().flatten().map(|r| r.len()).sum();
        share += read as f64 / source.len().max(1) as f64;
        if facts(&part) != facts(&whole) {
            differ += 1;
            println!("{}", entry.path().display());
            println!("  scoped: {}", facts(&part));
            println!("  whole:  {}", facts(&whole));
        }
    }
    println!(
        "{files} files, {broken} not parseable whole, {scoped} scoped (reading {:.0}% of their bytes on average), {differ} differ",
        100.0 * share / f64::from(scoped.max(1))
    );
    println!(
        "check parses {:.0}% of all bytes ({parsed} of {bytes})",
        100.0 * parsed as f64 / bytes.max(1) as f64
    );
}
