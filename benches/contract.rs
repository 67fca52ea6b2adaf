//! Contract speed (seed 000's targets: parse < 10 ms, validate < 50 ms, batch of 100 < 100 ms):
//! parse one typical output, validate one (compiled schema reused), and a batch of 100.

use criterion::{Criterion, criterion_group, criterion_main};
use skillmod::contract::{ParseOptions, Protocol, Schema, check_output, parse_output};

const TYPICAL: &str = include_str!("../fixtures/outputs/seed000-complete.json");

fn contract(c: &mut Criterion) {
    let schema = Schema::builtin("skill-output-v1").expect("schema");
    let auto = ParseOptions::new(Protocol::Auto);
    let value = parse_output(TYPICAL, &auto).expect("parses").value;
    let batch: Vec<String> = (0..100)
        .map(|i| TYPICAL.replace("src/file.ts", &format!("src/file{i}.ts")))
        .collect();
    let mut group = c.benchmark_group("contract");
    group.bench_function("parse_one", |b| {
        b.iter(|| parse_output(std::hint::black_box(TYPICAL), &auto).map(|p| p.method))
    });
    group.bench_function("validate_one", |b| {
        b.iter(|| schema.validate(std::hint::black_box(&value)).len())
    });
    group.bench_function("parse_and_validate_batch_100", |b| {
        b.iter(|| {
            batch
                .iter()
                .filter(|out| check_output(out, &auto, &schema).valid)
                .count()
        })
    });
    group.finish();
}

criterion_group!(benches, contract);
criterion_main!(benches);
