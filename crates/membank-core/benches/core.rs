//! Speed of the read side on a large synthetic bank.
//!
//! `cargo bench -p membank-core --bench core`; the bank size defaults to
//! 100,000 articles and can be changed with `MEMBANK_BENCH_ARTICLES`.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::Criterion;
use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::context;
use membank_core::health::{self, HealthOptions};
use membank_core::scoring::{self, Query};
use membank_core::synth::{self, Stats, SynthOptions};

fn query(stats: &Stats) -> Query {
    Query {
        client: Some(stats.busiest_client.clone()),
        domain: Some(stats.busiest_domain.clone()),
        source_lang: Some("en-US".into()),
        target_lang: Some("nl-BE".into()),
    }
}

fn bench_load(c: &mut Criterion, dir: &Path, n: usize) {
    let mut g = c.benchmark_group("load");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function(format!("load_and_index_{n}"), |b| {
        // Dropping a loaded bank is not part of loading it.
        b.iter_with_large_drop(|| Bank::load(black_box(dir)).expect("bank loads"))
    });
    g.finish();
}

fn bench_query(c: &mut Criterion, bank: &Bank, q: &Query, n: usize) {
    let mut g = c.benchmark_group("query");
    g.sample_size(30).measurement_time(Duration::from_secs(5));
    g.bench_function(format!("context_{n}"), |b| {
        b.iter(|| {
            let report = context::build(bank, black_box(q), BudgetOptions::default());
            context::render(bank, &report)
        })
    });
    g.bench_function(format!("rank_{n}"), |b| {
        b.iter(|| scoring::rank(bank, black_box(q)))
    });
    g.finish();
}

fn bench_health(c: &mut Criterion, bank: &Bank, n: usize) {
    let mut g = c.benchmark_group("health");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let opts = HealthOptions {
        stale_after_days: 365,
        today: jiff::civil::date(2026, 6, 1),
    };
    g.bench_function(format!("check_{n}"), |b| {
        b.iter(|| health::check(bank, black_box(&opts)))
    });
    g.finish();
}

/// One index note with many links: loading must stay linear in links per
/// file (line numbers, code and comment filtering).
fn bench_link_heavy_note(c: &mut Criterion) {
    use membank_core::article::Article;
    use membank_core::layout::Folder;
    let mut g = c.benchmark_group("links");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for n in [25_000, 50_000] {
        let mut note = String::from("# Index\n\n`code` %% a comment %%\n\n");
        for i in 0..n {
            // Wikilinks, embeds and Markdown links, a few per line.
            match i % 3 {
                0 => note.push_str(&format!("- [[Note {i}|alias]] ")),
                1 => note.push_str(&format!("![[img {i}.png]] ")),
                _ => note.push_str(&format!("[n](Note%20{i}.md)\n")),
            }
        }
        g.bench_function(format!("parse_note_with_{n}_links"), |b| {
            b.iter(|| {
                let decoded = membank_core::text::decode(note.as_bytes()).expect("text");
                Article::parse("05_INDICES/Index.md".into(), Folder::Indices, decoded)
            })
        });
    }
    g.finish();
}

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
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(2))
        .configure_from_args();
    bench_link_heavy_note(&mut c);
    bench_load(&mut c, dir.path(), articles);
    let bank = Bank::load(dir.path()).expect("bank loads");
    bench_query(&mut c, &bank, &query(&stats), articles);
    bench_health(&mut c, &bank, articles);
    c.final_summary();
}
