use super::*;
use crate::bank::Bank;
use crate::scoring::{Query, rank};

fn read_all(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).unwrap().to_string_lossy().into();
            (rel, fs::read(e.path()).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn opts(articles: usize, seed: u64) -> SynthOptions {
    SynthOptions {
        articles,
        seed,
        avg_bytes: 600,
    }
}

#[test]
fn same_seed_same_bank_other_seed_other_bank() {
    let (a, b, c) = (
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
        tempfile::tempdir().unwrap(),
    );
    let sa = generate(a.path(), opts(300, 7)).unwrap();
    let sb = generate(b.path(), opts(300, 7)).unwrap();
    generate(c.path(), opts(300, 8)).unwrap();
    assert_eq!(sa, sb);
    assert_eq!(read_all(a.path()), read_all(b.path()));
    assert_ne!(read_all(a.path()), read_all(c.path()));
}

#[test]
fn bank_loads_with_the_planned_spread_and_links() {
    let d = tempfile::tempdir().unwrap();
    let stats = generate(d.path(), opts(1000, 3)).unwrap();
    assert_eq!(stats.content_articles(), 1000);
    assert_eq!((stats.clients, stats.domains, stats.style), (20, 100, 80));
    let bank = Bank::load(d.path()).unwrap();
    assert!(bank.problems.is_empty(), "{:?}", bank.problems);
    assert_eq!(bank.content_ids().count(), 1000);
    assert_eq!(bank.pending_inbox().len(), stats.inbox_notes - 1);
    let parsed = bank.articles().iter().filter(|a| a.is_parsed()).count();
    assert_eq!(parsed, 1001, "every content article and the archived note");
    let nested = bank
        .articles()
        .iter()
        .filter(|a| a.rel_path.matches('/').count() > 1)
        .count();
    assert!(nested > 100, "{nested} articles in subfolders");
    let (mut live, mut dead) = (0, 0);
    for id in bank.content_ids() {
        for (_, r) in bank.outgoing(id) {
            if r.target().is_some() {
                live += 1;
            } else {
                dead += 1;
            }
        }
    }
    assert!(live > 1000 && dead > 0, "{live} live, {dead} dead");
    let mut by_tie_break: Vec<usize> = bank.content_ids().collect();
    by_tie_break.sort_by(|&a, &b| crate::scoring::tie_break(bank.article(a), bank.article(b)));
    assert_eq!(bank.content_order(), by_tie_break.as_slice());
    let total: u64 = read_all(d.path()).iter().map(|(_, b)| b.len() as u64).sum();
    assert_eq!(total, stats.total_bytes);
}

#[test]
fn generated_frontmatter_reads_the_same_on_the_quick_path() {
    let d = tempfile::tempdir().unwrap();
    generate(d.path(), opts(400, 5)).unwrap();
    let bank = Bank::load(d.path()).unwrap();
    let mut quick = 0;
    for a in bank.articles() {
        let Some(yaml) = a.yaml() else { continue };
        let full = match yaml_serde::from_str::<yaml_serde::Value>(yaml) {
            Ok(yaml_serde::Value::Mapping(m)) => m,
            other => panic!("{}: {other:?}", a.rel_path),
        };
        if let Some(m) = crate::frontmatter::parse_simple(yaml) {
            assert_eq!(m, full, "{}", a.rel_path);
            quick += 1;
        }
    }
    assert!(quick > 350, "only {quick} took the quick path");
}

#[test]
fn busiest_client_and_domain_score() {
    let d = tempfile::tempdir().unwrap();
    let stats = generate(d.path(), opts(500, 11)).unwrap();
    let bank = Bank::load(d.path()).unwrap();
    let q = Query {
        client: Some(stats.busiest_client.clone()),
        domain: Some(stats.busiest_domain.clone()),
        source_lang: Some("en-US".into()),
        target_lang: Some("nl-BE".into()),
    };
    let ranked = rank(&bank, &q);
    assert_eq!(ranked[0].score.total(), 6);
    // The ranking is exactly a stable sort of the tie-break order.
    let mut naive: Vec<crate::scoring::Ranked> = bank
        .content_order()
        .iter()
        .map(|&id| crate::scoring::Ranked {
            id,
            score: crate::scoring::hits(bank.article(id), &q),
        })
        .collect();
    naive.sort_by_key(|r| std::cmp::Reverse(r.score.total()));
    assert_eq!(ranked, naive);
    assert!(
        ranked
            .iter()
            .filter(|r| r.score.signals().client > 0)
            .count()
            > 5
    );
}
