//! The terminology check at the size a large job has: a 50,000-segment
//! XLIFF 1.2 file against a bank of 20,000 terms, and the job glossary of
//! the same file. Read, matched and reported in one pass per side.
//!
//! `cargo bench -p membank-core --bench terms_qa`

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::Criterion;
use membank_core::terms::bilingual;
use membank_core::terms::qa;
use membank_core::terms::{Status, TermRecord};

const TERMS: usize = 20_000;
const SEGMENTS: usize = 50_000;

/// A made-up word, distinct for each `(n, salt)` with `n` below 20,000.
fn word(n: usize, salt: usize) -> String {
    const SYLLABLES: [&str; 16] = [
        "ka", "lo", "mi", "ne", "ru", "sa", "te", "vo", "bri", "dan", "fel", "gor", "hus", "jin",
        "pex", "quo",
    ];
    let mut n = n + salt * 20_000;
    let mut w = String::new();
    for _ in 0..5 {
        w.push_str(SYLLABLES[n % 16]);
        n /= 16;
    }
    w
}

/// A word no term is made of.
fn filler(n: usize) -> String {
    format!("zu{}", word(n % 8_000, 0))
}

fn terms() -> Vec<TermRecord> {
    (0..TERMS)
        .map(|i| TermRecord {
            path: format!("02_TERMINOLOGY/t{i}.md"),
            source: if i % 3 == 0 {
                format!("{} {}", word(i, 1), word(i, 2))
            } else {
                word(i, 1)
            },
            target: word(i, 7),
            source_lang: "en-US".into(),
            target_lang: "nl-BE".into(),
            status: if i % 10 == 0 {
                Status::Rejected
            } else {
                Status::Approved
            },
            clients: Vec::new(),
            domain: None,
            last_updated: Some("2026-01-01".into()),
            note: None,
        })
        .collect()
}

/// Segments of about 15 words, a few of them terms, with inline tags.
fn xliff(terms: &[TermRecord]) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\"?>\n<xliff version=\"1.2\"><file source-language=\"en-US\" \
         target-language=\"nl-BE\" datatype=\"plaintext\" original=\"x\"><body>\n",
    );
    for s in 0..SEGMENTS {
        let t = &terms[(s * 7919) % terms.len()];
        let u = &terms[(s * 104_729) % terms.len()];
        let filler: Vec<String> = (0..12).map(|k| filler(s * 13 + k)).collect();
        let _ = writeln!(
            out,
            "<trans-unit id=\"{s}\"><source>{} <g id=\"1\">{}</g> {} <ph id=\"2\">{{0}}</ph> {}.</source>\
             <target state=\"translated\">{} {} {} {}.</target></trans-unit>",
            filler[..4].join(" "),
            t.source,
            filler[4..8].join(" "),
            u.source,
            filler[8..].join(" "),
            if s % 5 == 0 {
                "iets"
            } else {
                t.target.as_str()
            },
            filler[..6].join(" "),
            u.target,
        );
    }
    out.push_str("</body></file></xliff>\n");
    out
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    let records = terms();
    let text = xliff(&records);
    eprintln!(
        "terms_qa: {} terms, {} segments, {:.1} MB of XLIFF",
        records.len(),
        SEGMENTS,
        text.len() as f64 / 1e6
    );
    let refs: Vec<&TermRecord> = records.iter().collect();
    let mut g = c.benchmark_group("terms_qa");
    g.sample_size(10);
    g.bench_function("read_xliff_50k", |b| {
        b.iter(|| black_box(bilingual::read("job.xlf", &text).unwrap()))
    });
    let file = bilingual::read("job.xlf", &text).unwrap();
    g.bench_function("qa_50k_segments_20k_terms", |b| {
        b.iter(|| black_box(qa::check(&refs, &file)))
    });
    g.bench_function("read_and_qa", |b| {
        b.iter(|| {
            let file = bilingual::read("job.xlf", &text).unwrap();
            black_box(qa::check(&refs, &file))
        })
    });
    g.bench_function("glossary_50k_segments_20k_terms", |b| {
        b.iter(|| black_box(qa::glossary(&refs, &file)))
    });
    g.finish();
    let report = qa::check(&refs, &file);
    eprintln!(
        "terms_qa: {} findings, {} untranslated",
        report.findings.len(),
        report.untranslated.len()
    );
}
