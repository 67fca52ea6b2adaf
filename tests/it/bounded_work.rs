//! Analysis work grows linearly with the script, checked by counting the nodes the survey walks
//! rather than timing: long call chains and many heredocs on a line once took cubic or quadratic
//! time.

use skillmod::analyze::Vocabulary;
use skillmod::analyze::{self, BashParser};

fn chain(n: usize) -> String {
    let mut s = String::from("#!/bin/bash\nf0() { echo \"SUCCESS\"; }\n");
    for i in 1..n {
        s.push_str(&format!("f{i}() {{ f{}; }}\n", i - 1));
    }
    s.push_str(&format!("x=$(f{})\necho \"Created: a\"\n", n - 1));
    s
}

fn heredocs(lines: usize) -> String {
    let mut s = String::from("#!/bin/bash\n");
    for _ in 0..lines {
        let ops: Vec<String> = (0..16).map(|j| format!("cat <<E{j}")).collect();
        s.push_str(&ops.join(" "));
        s.push('\n');
        for j in 0..16 {
            s.push_str(&format!("x\nE{j}\n"));
        }
    }
    s.push_str("echo SUCCESS\n");
    s
}

fn echoes(lines: usize) -> String {
    let mut s = String::from("#!/bin/bash\n");
    for i in 0..lines {
        s.push_str(&format!("echo \"step {i}\" >&2\nx=$((x + 1))\n"));
    }
    s.push_str("echo SUCCESS\n");
    s
}

fn legacy_lines(lines: usize) -> String {
    String::from("#!/bin/bash\n") + &"echo \"SUCCESS\"\necho \"Created: a.txt\"\n".repeat(lines)
}

/// Nodes in a whole-file parse: the unit the survey's work is measured in.
fn node_count(parser: &mut BashParser, source: &str) -> usize {
    let tree = parser.parse(source.as_bytes()).expect("parse");
    let mut cursor = tree.walk();
    let mut count = 0;
    loop {
        count += 1;
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}

#[test]
fn work_per_node_stays_bounded_as_scripts_grow() {
    let mut parser = BashParser::new().expect("parser");
    for (name, make) in [
        ("call chain", chain as fn(usize) -> String),
        ("heredocs", heredocs),
        ("echo lines", echoes),
        ("legacy lines", legacy_lines),
    ] {
        let mut per_node = Vec::new();
        for size in [100, 200, 400, 800] {
            let source = make(size);
            let analysis = analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Exact)
                .expect("analysis");
            let nodes = node_count(&mut parser, &source);
            assert!(
                analysis.work.nodes <= 4 * nodes,
                "{name} {size}: walked {} nodes of {nodes}",
                analysis.work.nodes
            );
            per_node.push(analysis.work.nodes as f64 / nodes as f64);
        }
        // Linear: the work per node does not grow with the size.
        assert!(
            per_node[3] <= per_node[0] * 1.5 + 0.1,
            "{name}: work per node grows: {per_node:?}"
        );
    }
}

#[test]
fn a_long_call_chain_still_finds_what_reaches_stdout() {
    let mut parser = BashParser::new().expect("parser");
    let source = chain(800);
    let analysis =
        analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Exact).expect("analysis");
    let kinds: Vec<String> = analysis
        .legacy
        .iter()
        .map(|l| format!("{}:{}", l.line, l.text))
        .collect();
    // f0's SUCCESS is captured through 800 calls; the last line is legacy.
    assert_eq!(kinds, ["803:echo \"Created: a\""]);
}
