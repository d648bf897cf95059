use super::*;
use crate::context::build;

/// A bank of `n` articles with every mix of signals, folders, sizes and
/// dates, from a fixed seed.
fn bank(n: usize, seed: u64) -> (tempfile::TempDir, Bank) {
    let d = tempfile::tempdir().unwrap();
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let folders = ["01_CLIENTS", "02_TERMINOLOGY", "03_DOMAINS", "04_STYLE"];
    let clients = ["Acme", "Globex", "Initech"];
    let domains = ["Legal", "Medical", "IT"];
    let langs = ["en-US", "nl-BE", "en", "fr-FR", "de"];
    for i in 0..n {
        let folder = folders[next(4) as usize];
        let mut fm = String::new();
        if next(3) > 0 {
            fm.push_str(&format!("client: {}\n", clients[next(3) as usize]));
        }
        if next(3) > 0 {
            fm.push_str(&format!(
                "domains: [\"{}\", \"{}\"]\n",
                domains[next(3) as usize],
                domains[next(3) as usize]
            ));
        }
        match next(3) {
            0 => fm.push_str(&format!(
                "languages: {} → {}\n",
                langs[next(5) as usize],
                langs[next(5) as usize]
            )),
            1 => fm.push_str(&format!("source_lang: {}\n", langs[next(5) as usize])),
            _ => {}
        }
        if next(4) > 0 {
            fm.push_str(&format!(
                "last_updated: 2026-0{}-1{}\n",
                1 + next(9),
                next(9)
            ));
        }
        let body = "word ".repeat(next(200) as usize);
        let path = d.path().join(folder).join(format!("a{i:04}.md"));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("---\n{fm}---\n{body}\n")).unwrap();
    }
    let b = Bank::load(d.path()).unwrap();
    (d, b)
}

/// What a caller listed before: the whole report, rows past `limit` that
/// the budget did not keep taken out.
fn expected(b: &Bank, q: &Query, opts: BudgetOptions, limit: usize) -> ContextReport {
    let mut r = build(b, q, opts);
    if limit > 0 {
        r.articles.retain(|e| e.rank <= limit || e.included);
    }
    r
}

#[test]
fn the_listed_rows_are_the_whole_reports_rows() {
    for seed in [1, 2, 3] {
        let (_d, b) = bank(180, seed);
        let total = b.content_order().len();
        for q in [
            Query::of("Acme", "Legal", "en-US", "nl-BE"),
            Query::of("acme", "", "", ""),
            Query::of("", "medical", "", ""),
            Query::of("", "", "en", ""),
            Query::of("", "", "", "de"),
            Query::of("Globex", "IT", "fr-FR", "en-GB"),
            Query::of("Nobody", "", "", ""),
            Query::of("", "", "", ""),
        ] {
            for budget in [0, 1, 40, 500, 2000, 4000, 100_000] {
                for include_unscored in [false, true] {
                    let opts = BudgetOptions {
                        budget,
                        include_unscored,
                    };
                    for limit in [0, 1, 2, 7, 30, total - 1, total, total + 5] {
                        let want = expected(&b, &q, opts, limit);
                        // Chunks of one article, of a few (every pass
                        // crosses many) and of the whole bank.
                        for chunk in [1, 7, 64, CHUNK] {
                            let got = listed(&b, &q, opts, limit, &CharsOver4, chunk);
                            assert_eq!(
                                got.report, want,
                                "seed {seed}, {q:?}, budget {budget}, unscored {include_unscored}, \
                                 limit {limit}, chunks of {chunk}"
                            );
                            assert_eq!(got.ranked, total);
                        }
                        assert_eq!(build_listed(&b, &q, opts, limit).report, want);
                    }
                }
            }
        }
    }
}

#[test]
fn earned_signals_say_which_signals_matched_anything() {
    let (_d, b) = bank(60, 4);
    let opts = BudgetOptions::default();
    let e = build_listed(&b, &Query::of("Acme", "Nowhere", "en-US", ""), opts, 5).earned;
    assert_eq!((e.client, e.domain, e.language), (3, 0, 1));
    let e = build_listed(&b, &Query::of("", "", "", ""), opts, 5).earned;
    assert_eq!((e.client, e.domain, e.language), (0, 0, 0));
}

#[test]
fn a_second_query_reuses_nothing_of_the_first() {
    let (_d, b) = bank(90, 5);
    let opts = BudgetOptions::default();
    let a = Query::of("Acme", "", "", "");
    let g = Query::of("Globex", "Legal", "", "");
    let first = build_listed(&b, &a, opts, 10);
    build_listed(&b, &g, opts, 10);
    assert_eq!(build_listed(&b, &a, opts, 10), first);
}
