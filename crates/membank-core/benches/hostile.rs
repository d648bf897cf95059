//! Inputs a hostile bank can craft, which must cost time in proportion to
//! their size: many links on one line (line numbers), deeply nested or
//! large frontmatter (refused before the YAML parser), one Deja Vu
//! impression with hundreds of thousands of keywords.
//!
//! `cargo bench -p membank-core --bench hostile`

use std::hint::black_box;

use criterion::Criterion;
use membank_core::article::Article;
use membank_core::dejavu::{self, Project};
use membank_core::frontmatter;
use membank_core::layout::Folder;
use membank_core::text;

fn links_on_one_line(n: usize) -> String {
    let mut s = String::from("---\nlast_updated: 2026-01-01\n---\n");
    for i in 0..n {
        s.push_str(&format!("[[t{i}]] "));
    }
    s.push('\n');
    s
}

/// A project whose one impression line carries `n` keywords.
fn project_with_keywords(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("memory")).unwrap();
    std::fs::write(dir.path().join(dejavu::SUMMARY_PATH), "# Summary\n").unwrap();
    let keywords: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let line = serde_json::json!({ "id": "big", "keywords": keywords }).to_string();
    std::fs::write(dir.path().join(dejavu::IMPRESSIONS_PATH), line).unwrap();
    dir
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let mut g = c.benchmark_group("hostile");
    g.sample_size(10);
    for n in [100_000, 400_000] {
        let text = links_on_one_line(n);
        g.bench_function(format!("links_on_one_line_{n}"), |b| {
            b.iter(|| {
                let decoded = text::decode(black_box(text.as_bytes())).unwrap();
                Article::parse("03_DOMAINS/x.md".into(), Folder::Domains, decoded)
            })
        });
    }
    let unclosed = "a: ".to_owned() + &"{a: ".repeat(60_000);
    g.bench_function("unclosed_flow_nesting_240kb", |b| {
        b.iter(|| frontmatter::parse_yaml(black_box(&unclosed), 2))
    });
    let at_cap = "a: ".to_owned() + &"{a: ".repeat(16_000);
    g.bench_function("unclosed_flow_nesting_64kb", |b| {
        b.iter(|| frontmatter::parse_yaml(black_box(&at_cap), 2))
    });
    for n in [80_000, 400_000] {
        let dir = project_with_keywords(n);
        let project = Project::load_root(dir.path().to_path_buf());
        g.bench_function(format!("dejavu_keywords_on_one_line_{n}"), |b| {
            b.iter(|| dejavu::checks::check(black_box(&project)))
        });
    }
    g.finish();
    c.final_summary();
}
