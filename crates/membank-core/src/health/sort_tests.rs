//! The report's sort by paths' places against a plain sort.

use std::sync::Arc;

use super::streamed::tests::Rng;
use super::{Finding, HealthReport, Severity, sort_by_places};

const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];

/// `n` findings about the paths of `kept` (holding the kept copy, or a
/// copy of their own) and about paths not kept (before, between and after
/// them, and the bank itself), in runs of articles in order or anywhere,
/// with ties and repeats.
fn made(rng: &mut Rng, kept: &[Arc<str>], n: usize, runs: bool) -> Vec<Finding> {
    let codes = ["stale", "orphan", "dead-link", "missing-key", "bad-date"];
    let others = [
        "",
        "00_INBOX/a.md",
        "02_TERMINOLOGY/t",
        "02_TERMINOLOGY/t000001 → x.md~",
        "zz.md",
        "é.md",
    ];
    let mut found = Vec::new();
    let mut article = 0;
    while found.len() < n {
        article = if runs && rng.below(50) != 0 {
            article + rng.below(2)
        } else {
            rng.below(kept.len().max(1))
        };
        let path: Arc<str> = match (kept.get(article % kept.len().max(1)), rng.below(20)) {
            (Some(kept), 0) => Arc::from(&**kept),
            (Some(kept), 1..) => Arc::clone(kept),
            _ => Arc::from(others[rng.below(others.len())]),
        };
        let path = if rng.below(40) == 0 {
            Arc::from(others[rng.below(others.len())])
        } else {
            path
        };
        for _ in 0..1 + rng.below(4) {
            let line = (rng.below(4) != 0).then(|| rng.below(6));
            let message = ["a", "b", "“é”\u{7}", "\u{202e}x"][rng.below(4)];
            let mut f = Finding::new(
                codes[rng.below(codes.len())],
                SEVERITIES[rng.below(3)],
                "",
                line,
                message,
            );
            f.path = Arc::clone(&path);
            found.push(f);
        }
    }
    found
}

fn sorted_by_places(mut found: Vec<Finding>, paths: &[&str]) -> Vec<Finding> {
    sort_by_places(&mut found, paths);
    found
}

/// The order of a plain sort: findings in runs and in no order, with ties
/// and repeats, about paths listed, copies of them and paths not listed,
/// with no path or no line, at sizes on either side of the pool's.
#[test]
fn sorting_by_places_gives_a_plain_sorts_order() {
    let mut rng = Rng(11);
    for (articles, n, runs) in [
        (0, 0, true),
        (3, 1, true),
        (5, 7, false),
        (0, 5000, false),
        (1, 5000, true),
        (100, 300, true),
        (2000, 4095, true),
        (2000, 4096, true),
        (3000, 5000, false),
        (7000, 20_000, true),
        (20_000, 9000, false),
    ] {
        let kept: Vec<Arc<str>> = (0..articles)
            .map(|i| Arc::from(format!("02_TERMINOLOGY/t{i:06} → x.md")))
            .collect();
        let paths: Vec<&str> = kept.iter().map(|p| &**p).collect();
        let found = made(&mut rng, &kept, n, runs);
        let mut want = found.clone();
        want.sort_by(Finding::report_order);
        let got = sorted_by_places(found.clone(), &paths);
        assert!(
            got == want,
            "{articles} articles, {n} findings, runs: {runs}"
        );
        // Paths out of order, repeated, or listed by a part of a
        // finding's text at its address: the same order.
        let mut shuffled = paths.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        let mut repeated = paths.clone();
        repeated.extend(paths.first());
        repeated.sort();
        let parts: Vec<&str> = paths.iter().map(|p| &p[..p.len() - 3]).collect();
        for paths in [shuffled, repeated, parts] {
            let got = sorted_by_places(found.clone(), &paths);
            assert!(
                got == want,
                "{articles} articles, {n} findings, runs: {runs}"
            );
        }
    }
}

/// The report made from parts by severity, each side gathered and sorted
/// on its own, is in a plain sort's order: severities of every size
/// (one of them empty, one holding nearly all), parts of any length, the
/// total on either side of the pool's size, paths in order or not.
#[test]
fn the_report_by_severity_gives_a_plain_sorts_order() {
    let mut rng = Rng(23);
    for (articles, n, weights) in [
        (0, 0, [1, 1, 1]),
        (3, 5, [1, 0, 0]),
        (100, 4095, [1, 1, 1]),
        (100, 4096, [1, 1, 1]),
        (2000, 6000, [8, 1, 1]),
        (2000, 6000, [1, 8, 1]),
        (2000, 6000, [1, 1, 8]),
        (2000, 6000, [0, 1, 1]),
        (3000, 9000, [1, 0, 1]),
        (5000, 20_000, [2, 6, 9]),
        (0, 5000, [1, 1, 0]),
    ] {
        let kept: Vec<Arc<str>> = (0..articles)
            .map(|i| Arc::from(format!("02_TERMINOLOGY/t{i:06} → x.md")))
            .collect();
        let paths: Vec<&str> = kept.iter().map(|p| &**p).collect();
        let mut found = made(&mut rng, &kept, n, true);
        // Each finding given the severity the weights pick.
        let all: usize = weights.iter().sum();
        for f in &mut found {
            let mut pick = rng.below(all);
            let mut s = 0;
            while pick >= weights[s] {
                pick -= weights[s];
                s += 1;
            }
            f.severity = SEVERITIES[s];
        }
        let mut want = found.clone();
        want.sort_by(Finding::report_order);
        let mut shuffled = paths.clone();
        for i in (1..shuffled.len()).rev() {
            shuffled.swap(i, rng.below(i + 1));
        }
        for paths in [&paths, &shuffled] {
            // Parts of up to 1,000 findings, each of one severity, in the
            // order made.
            let mut by_severity: [Vec<Vec<Finding>>; 3] = Default::default();
            let mut open: [Vec<Finding>; 3] = Default::default();
            for f in found.iter().cloned() {
                let s = f.severity as usize;
                open[s].push(f);
                if rng.below(1000) == 0 {
                    by_severity[s].push(std::mem::take(&mut open[s]));
                }
            }
            for (parts, last) in by_severity.iter_mut().zip(open) {
                parts.push(last);
                parts.push(Vec::new());
            }
            let report = HealthReport::about_by_severity(by_severity, paths);
            assert!(
                report.findings == want,
                "{articles} articles, {n} findings, weights {weights:?}"
            );
            let count = |s: Severity| want.iter().filter(|f| f.severity == s).count();
            assert_eq!(report.counts.error, count(Severity::Error));
            assert_eq!(report.counts.warning, count(Severity::Warning));
            assert_eq!(report.counts.info, count(Severity::Info));
            assert_eq!(report.by_code, HealthReport::new(want.clone()).by_code);
        }
    }
}
