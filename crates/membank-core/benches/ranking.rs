//! Speed of ranking a large bank for one query, as the MCP server's
//! `context` tool and `membank context --limit` do it: the best articles
//! and every kept one, against the whole report that lists every article.
//!
//! `cargo bench -p membank-core --features synth --bench ranking`; the bank
//! size defaults to 100,000 articles and can be changed with
//! `MEMBANK_BENCH_ARTICLES`.

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::context;
use membank_core::scoring::Query;
use membank_core::synth::{self, SynthOptions};

fn main() {
    let articles = std::env::var("MEMBANK_BENCH_ARTICLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let stats = synth::generate(
        dir.path(),
        SynthOptions {
            articles,
            ..SynthOptions::default()
        },
    )
    .expect("bench bank is written");
    let bank = Bank::load(dir.path()).expect("bench bank loads");
    // The busiest client and domain: the query that matches the most.
    let query = Query {
        client: Some(stats.busiest_client.clone()),
        domain: Some(stats.busiest_domain.clone()),
        source_lang: Some("en-US".into()),
        target_lang: Some("nl-BE".into()),
    };
    let opts = BudgetOptions::default();
    // The packed arrays are built once per load, not per query.
    context::build_listed(&bank, &query, opts, 1);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(2))
        .configure_from_args();
    let mut g = c.benchmark_group("ranking");
    g.sample_size(50).measurement_time(Duration::from_secs(5));
    for limit in [1, 100] {
        g.bench_function(format!("listed_{articles}_limit_{limit}"), |b| {
            b.iter(|| context::build_listed(&bank, black_box(&query), opts, limit))
        });
    }
    g.bench_function(format!("listed_{articles}_limit_100_explained"), |b| {
        b.iter(|| {
            let listed = context::build_listed(&bank, black_box(&query), opts, 100);
            let explained = listed.report.explain(&bank);
            let text = context::render(&bank, &listed.report);
            (explained, text)
        })
    });
    g.bench_function(format!("whole_report_{articles}"), |b| {
        b.iter(|| context::build(&bank, black_box(&query), opts))
    });
    g.finish();
    c.final_summary();
}
