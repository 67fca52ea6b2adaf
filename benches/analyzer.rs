//! Analyzer throughput on a typical 3 KB skill from bench/gen_corpus.py's shapes
//! (fixtures/bench/typical.sh): prefilter, chunk lexer, parse + legacy detection (scoped and
//! whole-file), and planning a migration.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use skillmod::analyze::{self, BashParser, chunks, prefilter};
use skillmod::rewrite::{self, Template, values};

const TYPICAL: &[u8] = include_bytes!("../fixtures/bench/typical.sh");
const PLAIN: &[u8] = include_bytes!("../fixtures/bench/plain.sh");

fn analyzer(c: &mut Criterion) {
    let mut group = c.benchmark_group("analyzer");
    group.throughput(Throughput::Bytes(TYPICAL.len() as u64));
    group.bench_function("prefilter_typical", |b| {
        b.iter(|| prefilter::may_hold_legacy(std::hint::black_box(TYPICAL)))
    });
    group.bench_function("prefilter_plain", |b| {
        b.iter(|| prefilter::may_hold_legacy(std::hint::black_box(PLAIN)))
    });
    let mut parser = BashParser::new().expect("parser");
    group.bench_function("parse_only_typical", |b| {
        b.iter(|| {
            parser
                .parse(std::hint::black_box(TYPICAL))
                .map(|t| t.root_node().child_count())
        })
    });
    group.bench_function("chunk_starts_typical", |b| {
        b.iter(|| chunks::chunk_starts(std::hint::black_box(TYPICAL)).map(|c| c.len()))
    });
    group.bench_function("analyze_whole_typical", |b| {
        b.iter(|| {
            analyze::analyze_whole(&mut parser, std::hint::black_box(TYPICAL))
                .map(|a| a.legacy.len())
        })
    });
    group.bench_function("analyze_typical", |b| {
        b.iter(|| {
            analyze::analyze(&mut parser, std::hint::black_box(TYPICAL)).map(|a| a.legacy.len())
        })
    });
    let template = Template::load("skill-output-v1").expect("built-in template");
    group.bench_function("plan_and_apply_typical", |b| {
        b.iter(|| {
            let analysis = analyze::analyze(&mut parser, TYPICAL).expect("analysis");
            let context = values::static_values(&analysis.legacy, 0.85, "bench");
            let plan = rewrite::plan_comment_mode(&analysis, TYPICAL, &template, &context, None)
                .expect("plan");
            rewrite::apply_checked(&plan, &analysis, TYPICAL, &mut parser).map(|v| v.len())
        })
    });
    group.finish();
}

criterion_group!(benches, analyzer);
criterion_main!(benches);
