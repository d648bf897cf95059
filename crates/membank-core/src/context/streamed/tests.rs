use super::*;
use crate::context::{build_listed, render};

/// A bank of `n` content articles from a fixed seed, built for ties: few
/// dates (some missing, some not dates), the same file names in several
/// folders and subfolders, every mix of signals; plus inbox and index
/// notes, which are never ranked, and a file that is not UTF-8.
fn bank(n: usize, seed: u64) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let mut state = seed;
    let mut next = |m: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % m
    };
    let folders = ["01_CLIENTS", "02_TERMINOLOGY", "03_DOMAINS", "04_STYLE"];
    let subfolders = ["", "a/", "b/c/"];
    let clients = ["Acme", "[[Globex|G]]", "initech", "ACME"];
    let domains = ["Legal", "Medical", "[[IT#Networks]]"];
    let langs = ["en-US", "nl-BE", "en", "fr-FR", "de", "EN-gb"];
    // A date's shape with no such day, too: shown as invalid.
    let dates = [
        "2026-01-01",
        "2026-03-15",
        "2025-12-31",
        "someday",
        "2026-02-30",
    ];
    let write = |rel: String, text: String| {
        let path = d.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    for i in 0..n {
        let mut fm = String::new();
        match next(4) {
            0 => fm.push_str(&format!("client: \"{}\"\n", clients[next(4) as usize])),
            1 => fm.push_str(&format!(
                "clients: [\"{}\", \"{}\"]\n",
                clients[next(4) as usize],
                clients[next(4) as usize]
            )),
            _ => {}
        }
        if next(3) > 0 {
            fm.push_str(&format!(
                "domains: [\"{}\", \"{}\"]\n",
                domains[next(3) as usize],
                domains[next(3) as usize]
            ));
        }
        match next(4) {
            0 => fm.push_str(&format!(
                "languages: [\"{} → {}\", \"{}->{}\"]\n",
                langs[next(6) as usize],
                langs[next(6) as usize],
                langs[next(6) as usize],
                langs[next(6) as usize]
            )),
            1 => fm.push_str(&format!("source_lang: {}\n", langs[next(6) as usize])),
            2 => fm.push_str(&format!("target_lang: {}\n", langs[next(6) as usize])),
            _ => {}
        }
        if next(5) > 0 {
            fm.push_str(&format!("last_updated: {}\n", dates[next(5) as usize]));
        }
        let body = "word ".repeat(next(300) as usize);
        // Names repeat across folders and subfolders: ties go down to the
        // path.
        let rel = format!(
            "{}/{}n{}.md",
            folders[next(4) as usize],
            subfolders[next(3) as usize],
            next(n as u64 / 3 + 1)
        );
        let text = if next(20) == 0 {
            format!("no frontmatter {i}\n{body}\n")
        } else {
            format!("---\n{fm}---\n# Title {i}\n{body}\n")
        };
        write(rel, text);
    }
    write(
        "00_INBOX/note.md".into(),
        "---\nclient: Acme\n---\nnote\n".into(),
    );
    write(
        "05_INDICES/Index.md".into(),
        "---\nclient: Acme\nlanguages: en\n---\n[[n1]]\n".into(),
    );
    std::fs::write(d.path().join("02_TERMINOLOGY/bad.md"), b"\xff\xfe\xfd").unwrap();
    d
}

#[test]
fn the_streamed_report_is_the_loaded_banks_report() {
    // Below and above the size where reading moves to the pool.
    for (n, seed) in [(60, 3), (900, 7)] {
        let d = bank(n, seed);
        let loaded = Bank::load(d.path()).unwrap();
        let queries = [
            Query::of("", "", "", ""),
            Query::of("acme", "", "", ""),
            Query::of("Globex", "legal", "en", "nl-BE"),
            Query::of("[[Initech]]", "[[it]]", "EN-US", ""),
            Query::of("", "Medical", "", "de"),
            Query::of("nobody", "", "xx", ""),
            Query::of("acme", "Legl", "", ""),
            Query::of("", "", "nl-NL", "fr"),
        ];
        let mut dropped = 0;
        for q in &queries {
            for budget in [0, 1, 300, 4000] {
                for include_unscored in [false, true] {
                    for limit in [0, 7] {
                        let opts = BudgetOptions {
                            budget,
                            include_unscored,
                        };
                        let want = build_listed(&loaded, q, opts, limit);
                        let got = stream(d.path(), q, opts, limit).unwrap();
                        let case = format!("{n} articles, {q:?}, {opts:?}, limit {limit}");
                        assert_eq!(got.len(), want.report.articles.len(), "{case}");
                        for (i, e) in want.report.articles.iter().enumerate() {
                            let explained = e.explain(&loaded, q);
                            assert_eq!(got.explain(i), explained, "{case}, row {i}");
                            // The borrowed row says what the owned one does.
                            assert_eq!(got.row(i), explained.as_row(), "{case}, row {i}");
                        }
                        assert_eq!(got.used_tokens, want.report.used_tokens, "{case}");
                        assert_eq!(got.ranked, want.ranked, "{case}");
                        assert_eq!(got.earned, want.earned, "{case}");
                        assert_eq!(
                            got.unknown_values,
                            unknown_values_of_loaded(&loaded, q, want.earned),
                            "{case}"
                        );
                        assert_eq!(got.kept(), want.report.included().count(), "{case}");
                        assert_eq!(
                            got.render().unwrap(),
                            render(&loaded, &want.report),
                            "{case}"
                        );
                        dropped += want.report.dropped_for_budget().count();
                    }
                }
            }
        }
        // The budget both kept and dropped articles in these cases, so the
        // verdicts were compared both ways.
        assert!(dropped > 0, "{n} articles: the budget never dropped one");
    }
}

/// What `membank context` warned about when it read the bank a second
/// time: the values of the query no content article carries, told only
/// when some asked-for signal earned nothing.
fn unknown_values_of_loaded(loaded: &Bank, q: &Query, earned: Signals) -> Vec<UnknownValue> {
    let unmatched = (q.client.is_some() && earned.client == 0)
        || (q.domain.is_some() && earned.domain == 0)
        || ((q.source_lang.is_some() || q.target_lang.is_some()) && earned.language == 0);
    if !unmatched {
        return Vec::new();
    }
    crate::suggest::unknown_values(&crate::vocabulary::collect(loaded), q)
}

#[test]
fn values_no_article_carries_are_told_with_the_closest_ones_the_bank_uses() {
    // Below and above the size where reading moves to the pool.
    for (n, seed) in [(60, 13), (900, 17)] {
        let d = bank(n, seed);
        let loaded = Bank::load(d.path()).unwrap();
        // Each of the three kinds, none matching anything.
        let q = Query::of("Acm", "Legl", "", "nl-NL");
        let got = stream(d.path(), &q, BudgetOptions::default(), 0).unwrap();
        let want = unknown_values_of_loaded(&loaded, &q, got.earned);
        assert_eq!(
            got.unknown_values
                .iter()
                .map(|u| u.field)
                .collect::<Vec<_>>(),
            ["client", "domain", "target language"],
            "{n} articles"
        );
        assert_eq!(got.unknown_values, want, "{n} articles");
        assert!(
            got.unknown_values.iter().all(|u| !u.suggestions.is_empty()),
            "{:?}",
            got.unknown_values
        );
    }
}

#[test]
fn the_streamed_json_is_the_loaded_banks_json() {
    // The streamed report writes its rows by hand; the loaded bank's goes
    // through the serializer. Hostile names and values are among the rows
    // (every character class the escaping tells apart), with every kind of
    // match and drop.
    let d = bank(400, 11);
    let hostile = [
        (
            "02_TERMINOLOGY/q\"uo\\te\u{1}\u{1f}\u{7f}.md",
            "\"Acme\\u0007\"",
        ),
        (
            "02_TERMINOLOGY/sep\u{2028}\u{2029}\u{202e}dm.txt.md",
            "'Ac\"me\\'",
        ),
        (
            "03_DOMAINS/c1\u{85}\u{9b}\u{200b}\u{feff}𝄞é\t.md",
            "\"acme\\u009b\"",
        ),
        ("04_STYLE/nl\n\r\u{8}\u{c}.md", "Acme"),
    ];
    for (rel, client) in hostile {
        std::fs::write(
            d.path().join(rel),
            format!(
                "---\nclient: {client}\ndomain: \"Legal\\u2028\"\nlanguages: [\"EN-us → nl\\u0085\"]\n\
                 last_updated: \"2026-01-01\\u001b\"\n---\nbody\n"
            ),
        )
        .unwrap();
    }
    let loaded = Bank::load(d.path()).unwrap();
    let queries = [
        Query::of("acme", "legal", "en-US", "nl"),
        Query::of("Acme\u{7}", "Legal\u{2028}", "en", ""),
        Query::of("", "", "", "NL-be"),
        Query::of("nobody", "", "", ""),
    ];
    for q in &queries {
        for budget in [0, 300, 4000] {
            for include_unscored in [false, true] {
                let opts = BudgetOptions {
                    budget,
                    include_unscored,
                };
                let want = build_listed(&loaded, q, opts, 0);
                let mut expected = Vec::new();
                want.report
                    .explained(&loaded)
                    .write_json(&mut expected)
                    .unwrap();
                let mut written = Vec::new();
                let got = stream(d.path(), q, opts, 0).unwrap();
                got.write_json(&mut written).unwrap();
                // The rows the table writes, borrowed, with the hostile
                // values among them.
                for (i, e) in want.report.articles.iter().enumerate() {
                    assert_eq!(got.row(i), e.explain(&loaded, q).as_row(), "{q:?}, row {i}");
                }
                assert_eq!(
                    String::from_utf8(written).unwrap(),
                    String::from_utf8(expected).unwrap(),
                    "{q:?}, {opts:?}"
                );
            }
        }
    }
}

#[test]
fn a_kept_article_changed_since_it_was_read_is_named() {
    let d = bank(30, 5);
    let q = Query::of("acme", "", "", "");
    let s = stream(d.path(), &q, BudgetOptions::default(), 0).unwrap();
    let first_kept = (0..s.len())
        .map(|i| s.explain(i))
        .find(|e| e.included)
        .unwrap();
    std::fs::write(d.path().join(&first_kept.path), "---\n---\nshorter\n").unwrap();
    let e = s.render().unwrap_err();
    assert_eq!(e.path, first_kept.path);
    assert!(e.message.contains("changed on disk"), "{}", e.message);
}

#[test]
fn the_rows_keyed_sort_is_the_tie_break_order() {
    // Few dates, some missing or not dates, names shared across folders:
    // most rows are told apart only after the key, by name and path.
    for (n, seed) in [(300, 5), (1200, 9)] {
        let d = bank(n, seed);
        for q in [
            Query::of("", "", "", ""),
            Query::of("acme", "legal", "en", "nl-BE"),
        ] {
            let mut got = stream(d.path(), &q, BudgetOptions::default(), 0).unwrap();
            assert!(
                got.rows.len() > n / 2,
                "{n} articles: {} rows",
                got.rows.len()
            );
            let in_order = |rows: &[Row]| {
                for w in rows.windows(2) {
                    assert_eq!(
                        w[0].rank_order(&w[1]),
                        std::cmp::Ordering::Less,
                        "{} before {}",
                        w[0].rel_path,
                        w[1].rel_path
                    );
                }
            };
            in_order(&got.rows);
            // Sorted where they are, as a large bank's rows are, from the
            // reverse order: the same order.
            let paths: Vec<String> = got.rows.iter().map(|r| r.rel_path.clone()).collect();
            got.rows.reverse();
            rank_sort_with(&mut got.rows, 0);
            in_order(&got.rows);
            let again: Vec<String> = got.rows.iter().map(|r| r.rel_path.clone()).collect();
            assert_eq!(again, paths);
            // And by keys from the reverse order.
            got.rows.reverse();
            rank_sort_with(&mut got.rows, usize::MAX);
            let keyed: Vec<String> = got.rows.iter().map(|r| r.rel_path.clone()).collect();
            assert_eq!(keyed, paths);
        }
    }
}

#[test]
fn a_dates_number_keeps_the_dates_order() {
    let dates: Vec<Date> = [
        (-9999, 1, 1),
        (-1, 12, 31),
        (0, 1, 1),
        (1999, 12, 31),
        (2000, 1, 1),
        (2000, 2, 29),
        (2026, 1, 31),
        (2026, 2, 1),
        (9999, 12, 31),
    ]
    .into_iter()
    .map(|(y, m, d)| Date::new(y, m, d).unwrap())
    .collect();
    for a in &dates {
        assert!(day_number(*a) < DATE_KEYS);
        for b in &dates {
            assert_eq!(day_number(*a).cmp(&day_number(*b)), a.cmp(b), "{a} {b}");
        }
    }
}

#[test]
fn names_first_bytes_order_names_as_their_bytes_do() {
    // Prefixes of each other, a NUL byte (the padding's value), names
    // equal in their first eight bytes, characters of several bytes, and
    // bytes above 0x7f against ASCII.
    let names = [
        "",
        "a",
        "a\0",
        "a\0b",
        "ab",
        "abcdefgh",
        "abcdefgh.md",
        "abcdefgi",
        "abcdefg",
        "abcdefgh\0",
        "z → a.md",
        "z → b.md",
        "é.md",
        "e.md",
        "Z.md",
        "\u{10ffff}",
        "\u{7f}\u{80}",
    ];
    for a in names {
        for b in names {
            let (pa, pb) = (name_prefix(a), name_prefix(b));
            if pa != pb {
                assert_eq!(pa.cmp(&pb), a.as_bytes().cmp(b.as_bytes()), "{a:?} {b:?}");
            }
            if a.len() >= 8 && b.len() >= 8 && a.as_bytes()[..8] == b.as_bytes()[..8] {
                assert_eq!(pa, pb, "{a:?} {b:?}");
            }
        }
    }
    assert_ne!(name_prefix("a"), name_prefix("b"));
}

/// An article's row both ways: read whole and scored by `hits_prepared`,
/// and, when the ranking's own reading takes it, from its values where
/// they are written (`None` then when that reading leaves it to the whole
/// read).
fn rows_both_ways(rel: &str, folder: Folder, bytes: &[u8], q: &Query) -> (Row, Option<Row>) {
    let prepared = q.prepare();
    let options = LoadOptions {
        share: false,
        ..LoadOptions::CONTEXT
    };
    let decoded = crate::text::decode_borrowed(bytes).unwrap();
    let ranked = ranked_row(rel, folder, &decoded.text, &prepared).map(|row| Row {
        rel_path: rel.to_owned(),
        ..row
    });
    let a = Article::parse_with(rel.to_owned(), folder, decoded, &options);
    let hits = scoring::hits_prepared(&a, &prepared);
    (article_row(a, hits), ranked)
}

/// Queries that earn each signal, in several spellings, and that earn
/// nothing.
fn ranking_queries() -> Vec<Query> {
    vec![
        Query::default(),
        Query::of("Acme", "", "", ""),
        Query::of("acme", "legal", "en", "nl-BE"),
        Query::of("Globex", "IT", "EN-US", ""),
        Query::of("", "Medical", "", "fr"),
        Query::of("", "", "de", "en-gb"),
        Query::of("Mentclausewar NV", "Legal", "en", "nl"),
        Query::of("nobody", "nothing", "xx", "yy"),
        Query::of("123", "true", "", ""),
    ]
}

/// Every article under `root` (the numbered folders, any depth), with its
/// folder.
fn articles_under(root: &Path) -> Vec<(String, Folder, Vec<u8>)> {
    let mut out = Vec::new();
    for folder in Folder::ALL {
        let dir = root.join(folder.dir_name());
        let mut todo = vec![dir];
        while let Some(dir) = todo.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    todo.push(path);
                } else if path.extension().is_some_and(|x| x == "md") {
                    let rel = path
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    out.push((rel, folder, std::fs::read(&path).unwrap()));
                }
            }
        }
    }
    out
}

#[test]
fn the_rankings_own_reading_gives_the_rows_of_the_whole_read() {
    let generated = bank(600, 11);
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo-bank");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut roots = vec![generated.path().to_path_buf(), demo];
    for f in ["bank", "flawed-bank", "obsidian-vault", "scoring-bank"] {
        roots.push(fixtures.join(f));
    }
    let (mut compared, mut whole) = (0, 0);
    for root in &roots {
        let articles = articles_under(root);
        assert!(!articles.is_empty(), "{}", root.display());
        for (rel, folder, bytes) in &articles {
            if crate::text::decode_borrowed(bytes).is_err() {
                continue;
            }
            for q in ranking_queries() {
                match rows_both_ways(rel, *folder, bytes, &q) {
                    (read, Some(ranked)) => {
                        assert_eq!(ranked, read, "{rel} {q:?}");
                        compared += 1;
                    }
                    (_, None) => whole += 1,
                }
            }
        }
    }
    // Most articles are of the common shape: the comparison is not empty.
    assert!(
        compared > 10 * whole.max(1),
        "{compared} compared, {whole} read whole"
    );
}

#[test]
fn the_rankings_own_reading_agrees_on_tricky_blocks() {
    let blocks: &[&[u8]] = &[
        // Flow and block lists, quoted scalars, a client in two spellings.
        b"---\nclient: \"ACME\"\nclients:\n  - acme\n  - '[[Acme|A]]'\ndomains: [Legal, \"[[IT#Networks]]\"]\nlast_updated: '2026-01-05'\n---\n# T\nbody\n",
        // CRLF and a byte-order mark.
        b"\xef\xbb\xbf---\r\nclient: Acme\r\nlanguages: [\"en-US \xe2\x86\x92 nl-BE\"]\r\nlast_updated: 2026-03-01\r\n---\r\nbody \xc3\xa9\xc3\xa9\r\n",
        // Language values of every key, arrows of both kinds.
        b"---\nlanguage_pair: EN->fr-FR\nsource_lang: de\ntarget_lang: [en-gb, nl]\nlanguages: [\"xx\", \"en \xe2\x86\x92 nl\"]\n---\nx\n",
        // Dates that are no date or no day, a list of dates, a time.
        b"---\nclient: Acme\nlast_updated: someday\n---\nx\n",
        b"---\nclient: Acme\nlast_updated: 2026-02-30\n---\nx\n",
        b"---\nclient: Acme\nlast_updated: [2026-01-01, 2025-01-01]\n---\nx\n",
        b"---\nclient: Acme\nlast_updated: 2026-01-01T10:00:00Z\n---\nx\n",
        // Numbers and booleans as values, empty and null values.
        b"---\nclient: 123\ndomain: true\nlanguages: []\nsource_lang: ~\nlast_updated:\n---\nx\n",
        b"---\nclient:\ndomains: []\n---\nx\n",
        // Blank, unclosed, missing, fenced and nested blocks; comments.
        b"---\n---\nbody\n",
        b"---\n   \n---\nbody\n",
        b"---\nclient: Acme\nbody with no close\n",
        b"no block\nclient: Acme\n",
        b"```yaml\n---\nclient: Acme\nlast_updated: 2026-01-02\n---\n# T\n```\n",
        b"---\nclient: Acme # the client\nmeta:\n  nested: 1\n---\nx\n",
        b"---\n# a comment\n\"client\": Acme\n'domain': Legal\n---\nx\n",
        // A key twice.
        b"---\nclient: Acme\nclient: Globex\n---\nx\n",
        // Unscored: no value the queries ask for.
        b"---\nstatus: approved\nterm_source: a\nterm_target: b\n---\nx\n",
    ];
    let mut compared = 0;
    for (i, bytes) in blocks.iter().enumerate() {
        for folder in [Folder::Clients, Folder::Terminology] {
            let rel = format!("{}/sub/n{i}.md", folder.dir_name());
            for q in ranking_queries() {
                let (read, ranked) = rows_both_ways(&rel, folder, bytes, &q);
                if let Some(ranked) = ranked {
                    assert_eq!(ranked, read, "block {i} {q:?}");
                    compared += 1;
                }
            }
        }
    }
    // Blocks the common shape does not take (block lists, blank or
    // nested blocks, a key twice) are read whole by both; at least the
    // flow lists, CRLF, BOM, arrows and dates are compared.
    assert!(compared >= 5 * 2 * ranking_queries().len(), "{compared}");
}
