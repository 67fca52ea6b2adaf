//! Analyzer throughput on a typical 3 KB skill from bench/gen_corpus.py's shapes
//! (fixtures/bench/typical.sh): prefilter, parse, parse + legacy detection, and planning a
//! migration.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skillmod::analyze::Vocabulary;
use skillmod::analyze::{self, BashParser, prefilter};
use skillmod::rewrite::{self, Template, values};

const TYPICAL: &[u8] = include_bytes!("../fixtures/bench/typical.sh");
const PLAIN: &[u8] = include_bytes!("../fixtures/bench/plain.sh");

fn analyzer(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyzer");
    group.throughput(Throughput::Bytes(TYPICAL.len() as u64));
    group.bench_function("prefilter_typical", |b| {
        b.iter(|| prefilter::may_hold_legacy(std::hint::black_box(TYPICAL), Vocabulary::Exact))
    });
    group.bench_function("prefilter_plain", |b| {
        b.iter(|| prefilter::may_hold_legacy(std::hint::black_box(PLAIN), Vocabulary::Exact))
    });
    let mut parser = BashParser::new().expect("parser");
    group.bench_function("parse_only_typical", |b| {
        b.iter(|| {
            parser
                .parse(std::hint::black_box(TYPICAL))
                .map(|t| t.root_node().child_count())
        })
    });
    group.bench_function("analyze_typical", |b| {
        b.iter(|| {
            analyze::analyze(
                &mut parser,
                std::hint::black_box(TYPICAL),
                Vocabulary::Exact,
            )
            .map(|a| a.legacy.len())
        })
    });
    let template = Template::load("skill-output-v1").expect("built-in template");
    group.bench_function("plan_and_apply_typical", |b| {
        b.iter(|| {
            let analysis =
                analyze::analyze(&mut parser, TYPICAL, Vocabulary::Exact).expect("analysis");
            let context = values::static_values(
                &analysis.legacy,
                skillmod::contract::legacy_text::DEFAULT_CONFIDENCE,
                "bench",
            );
            let plan = rewrite::plan_comment_mode(&analysis, TYPICAL, &template, &context, None)
                .expect("plan");
            rewrite::apply_checked(&plan, &analysis, TYPICAL, &mut parser).map(|v| v.len())
        })
    });
    group.finish();
}

/// Scripts that once took cubic or quadratic time (issue 12): a 400-function call chain whose end
/// is captured, 16 heredocs per line over 200 lines, and 400 KB of echo lines. Each is compared
/// with its bare parse.
fn pathological(c: &mut Criterion) {
    let mut chain = String::from("#!/bin/bash\nf0() { echo \"SUCCESS\"; }\n");
    for i in 1..400 {
        chain.push_str(&format!("f{i}() {{ f{}; }}\n", i - 1));
    }
    chain.push_str("x=$(f399)\necho \"Created: a\"\n");
    let mut heredocs = String::from("#!/bin/bash\n");
    for _ in 0..200 {
        let ops: Vec<String> = (0..16).map(|j| format!("cat <<E{j}")).collect();
        heredocs.push_str(&(ops.join(" ") + "\n"));
        for j in 0..16 {
            heredocs.push_str(&format!("x\nE{j}\n"));
        }
    }
    heredocs.push_str("echo SUCCESS\n");
    let mut echoes = String::from("#!/bin/bash\n");
    while echoes.len() < 400_000 {
        echoes.push_str("echo \"step\" >&2\nx=$((x + 1))\n");
    }
    echoes.push_str("echo SUCCESS\n");
    // One legacy statement per line, 4,000 and 40,000 of them: the work must grow tenfold, not
    // a hundredfold (issue 19 measured 2.9 s against 0.12 s before the fix).
    let legacy = |n: usize| String::from("#!/bin/bash\n") + &"echo \"SUCCESS\"\n".repeat(n);
    let (legacy4k, legacy40k) = (legacy(4_000), legacy(40_000));
    let template = Template::load("skill-output-v1").expect("built-in template");
    let mut parser = BashParser::new().expect("parser");
    let mut group = c.benchmark_group("pathological");
    group.sample_size(10);
    for (name, source) in [
        ("chain400", &chain),
        ("heredocs200", &heredocs),
        ("echoes400k", &echoes),
        ("legacy4k", &legacy4k),
        ("legacy40k", &legacy40k),
    ] {
        group.throughput(Throughput::Bytes(source.len() as u64));
        group.bench_function(format!("analyze_{name}"), |b| {
            b.iter(|| {
                analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Exact)
                    .map(|a| a.legacy.len())
            })
        });
        if name.starts_with("legacy") {
            group.bench_function(format!("plan_and_apply_{name}"), |b| {
                b.iter(|| {
                    let analysis =
                        analyze::analyze(&mut parser, source.as_bytes(), Vocabulary::Exact)
                            .expect("analysis");
                    let context = values::static_values(
                        &analysis.legacy,
                        skillmod::contract::legacy_text::DEFAULT_CONFIDENCE,
                        "bench",
                    );
                    let plan = rewrite::plan_comment_mode(
                        &analysis,
                        source.as_bytes(),
                        &template,
                        &context,
                        None,
                    )
                    .expect("plan");
                    rewrite::apply_checked(&plan, &analysis, source.as_bytes(), &mut parser)
                        .map(|v| v.len())
                })
            });
        }
        group.bench_function(format!("parse_only_{name}"), |b| {
            b.iter(|| {
                parser
                    .parse(source.as_bytes())
                    .map(|t| t.root_node().child_count())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, analyzer, pathological);
criterion_main!(benches);
