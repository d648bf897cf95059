//! Speed of the read side on a large synthetic bank.
//!
//! `cargo bench -p membank-core --features synth --bench core`; the bank
//! size defaults to 100,000 articles and can be changed with
//! `MEMBANK_BENCH_ARTICLES`. `MEMBANK_BENCH_ONLY=pathological` runs only the
//! single-file cases (a huge index note, a huge article), which need no
//! large bank; `MEMBANK_BENCH_ONLY=health` only the health checks, in
//! full and incrementally.

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

/// The health checks again after a `git pull`-sized change: `n` articles
/// spread over the bank edited (a sentence and a link added), checked
/// incrementally from the report before. Changes the files on disk.
fn bench_recheck(c: &mut Criterion, dir: &Path, articles: usize) {
    let opts = HealthOptions {
        stale_after_days: 365,
        today: jiff::civil::date(2026, 6, 1),
    };
    let before = Bank::load(dir).expect("bank loads");
    let report = health::check(&before, &opts);
    let mut g = c.benchmark_group("health");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for n in [1, 100, 2_000] {
        let step = (before.articles().len() / n).max(1);
        let changed: Vec<String> = (0..n)
            .map(|i| {
                before
                    .article((i * step) % before.articles().len())
                    .rel_path
                    .clone()
            })
            .collect();
        for rel in &changed {
            let path = dir.join(rel);
            let mut text = std::fs::read_to_string(&path).expect("article reads");
            text.push_str("\nEdited after a pull: see [[Glossary]].\n");
            std::fs::write(&path, text).expect("article is written");
        }
        let after = before.reloaded(&changed);
        g.bench_function(format!("recheck_{n}_of_{articles}"), |b| {
            b.iter(|| {
                health::incremental::recheck(&before, &report, &after, black_box(&changed), &opts)
            })
        });
    }
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

/// A small bank plus one file built to stress one dimension: loading must
/// stay linear in the number of links in a file and in its size.
fn pathological_bank(name: &str, file: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    synth::generate(
        dir.path(),
        SynthOptions {
            articles: 200,
            ..SynthOptions::default()
        },
    )
    .expect("bank is written");
    std::fs::write(dir.path().join("05_INDICES").join(name), file).expect("file is written");
    dir
}

fn bench_pathological(c: &mut Criterion) {
    let links = 100_000;
    let one_per_line: String = (0..links)
        .map(|i| format!("- [[Term {i}|term {i}]]\n"))
        .collect();
    let one_line: String = (0..links).map(|i| format!("[[Term {i}]] ")).collect();
    // About 12 MB of prose (under the 16 MiB read cap) with a link every few kilobytes and code spans,
    // so the Markdown parse that hides links in code runs.
    let big_article: String = (0..24_000)
        .map(|i| {
            format!(
                "Paragraph {i} with `code` and words that go on for a while, repeated \
                 to make a long line of ordinary text in a very large article. [[Term {i}]]\n\n"
            )
            .repeat(3)
        })
        .collect();
    let mut g = c.benchmark_group("pathological");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    for (name, file) in [
        (
            "index_100k_links_one_per_line",
            format!("---\ntitle: Index\n---\n# Index\n{one_per_line}"),
        ),
        (
            "index_100k_links_one_line",
            format!("# Index\n{one_line}\n"),
        ),
        (
            "article_12mb",
            format!("---\ndomain: Legal\n---\n# Big\n{big_article}"),
        ),
    ] {
        let dir = pathological_bank(&format!("{name}.md"), &file);
        g.bench_function(name, |b| {
            b.iter_with_large_drop(|| Bank::load(black_box(dir.path())).expect("bank loads"))
        });
    }
    g.finish();
}

fn main() {
    let only = std::env::var("MEMBANK_BENCH_ONLY").unwrap_or_default();
    if only == "pathological" {
        let mut c = Criterion::default().configure_from_args();
        bench_pathological(&mut c);
        c.final_summary();
        return;
    }
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
    if only == "health" {
        let bank = Bank::load(dir.path()).expect("bank loads");
        bench_health(&mut c, &bank, articles);
        drop(bank);
        bench_recheck(&mut c, dir.path(), articles);
        c.final_summary();
        return;
    }
    bench_link_heavy_note(&mut c);
    bench_load(&mut c, dir.path(), articles);
    let bank = Bank::load(dir.path()).expect("bank loads");
    bench_query(&mut c, &bank, &query(&stats), articles);
    bench_health(&mut c, &bank, articles);
    drop(bank);
    bench_recheck(&mut c, dir.path(), articles);
    bench_pathological(&mut c);
    c.final_summary();
}
