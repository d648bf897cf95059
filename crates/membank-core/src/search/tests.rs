use super::*;

fn doc(file: &str, text: &str) -> Unit {
    Unit {
        path: file.to_owned(),
        line: 1,
        entry_id: None,
        text: text.to_owned(),
    }
}

#[test]
fn more_matching_words_rank_higher_and_rare_words_weigh_more() {
    let units = vec![
        doc("a.md", "the cat sat on the mat"),
        doc("b.md", "the dog and the cat"),
        doc("c.md", "a dog"),
        doc("d.md", "nothing here"),
    ];
    let index = SearchIndex::of_units(&units);
    let hits = index.search(&units[..], "dog cat", 10);
    let files: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(files[0], "b.md");
    assert_eq!(files.len(), 3);
    assert!(!files.contains(&"d.md"));
    assert_eq!(index.count_matches("dog cat"), 3);
    assert!(index.search(&units[..], "absent", 10).is_empty());
}

#[test]
fn shorter_documents_win_ties_in_term_frequency() {
    let units = vec![
        doc(
            "long.md",
            "kyoto plus many many other words to make it long indeed",
        ),
        doc("short.md", "kyoto trip"),
    ];
    let index = SearchIndex::of_units(&units);
    assert_eq!(index.search(&units[..], "Kyoto", 10)[0].path, "short.md");
}

#[test]
fn hits_point_at_the_best_line_with_marked_words() {
    let mut d = doc(
        "e.md",
        "# Title\n\nnothing\nthe Budget for 東京 is set\nbudget again",
    );
    d.line = 10;
    d.entry_id = Some("ep_20260601_00000002".into());
    let units = vec![d];
    let index = SearchIndex::of_units(&units);
    let hit = &index.search(&units[..], "budget 東京", 5)[0];
    assert_eq!(hit.line, 13);
    assert_eq!(hit.snippet, "the Budget for 東京 is set");
    let marked: Vec<&str> = hit
        .highlights
        .iter()
        .map(|r| &hit.snippet[r.clone()])
        .collect();
    assert_eq!(marked, ["Budget", "東京"]);
    assert_eq!(highlight_chars(hit)[0], (4, 10));
    assert_eq!(hit.entry_id.as_deref(), Some("ep_20260601_00000002"));
}

#[test]
fn a_hangul_word_is_found_inside_a_longer_run() {
    let units = vec![
        doc("ko.md", "번역메모리를 먼저 확인하세요"),
        doc("other.md", "메일 주소"),
    ];
    let index = SearchIndex::of_units(&units);
    let hits = index.search(&units[..], "메모리", 5);
    assert_eq!(hits[0].path, "ko.md");
    let marked: Vec<&str> = hits[0]
        .highlights
        .iter()
        .map(|r| &hits[0].snippet[r.clone()])
        .collect();
    assert_eq!(marked, ["메모리"]);
}

#[test]
fn long_lines_are_cut_around_the_match() {
    let line = format!("{} needle {}", "word ".repeat(100), "tail ".repeat(100));
    let units = vec![doc("x.md", &line)];
    let index = SearchIndex::of_units(&units);
    let hit = &index.search(&units[..], "needle", 1)[0];
    assert!(
        hit.snippet.starts_with('…') && hit.snippet.ends_with('…'),
        "{}",
        hit.snippet
    );
    assert!(hit.snippet.chars().count() <= 170);
    assert_eq!(&hit.snippet[hit.highlights[0].clone()], "needle");
}

#[test]
fn many_documents_across_parts_keep_document_order_in_postings() {
    let docs: Vec<Unit> = (0..5000)
        .map(|i| {
            doc(
                &format!("{i:05}.md"),
                if i % 1000 == 7 {
                    "rare token"
                } else {
                    "common text"
                },
            )
        })
        .collect();
    let index = SearchIndex::of_units(&docs);
    let hits = index.search(&docs[..], "rare", 100);
    let files: Vec<&str> = hits.iter().map(|h| h.path.as_str()).collect();
    assert_eq!(
        files,
        ["00007.md", "01007.md", "02007.md", "03007.md", "04007.md"]
    );
}

#[test]
fn accents_do_not_matter_either_way() {
    let units = vec![
        doc("a.md", "Lunch at the Café de Flore"),
        doc("b.md", "a cafe near the station"),
        doc("c.md", "tea only"),
    ];
    let index = SearchIndex::of_units(&units);
    for query in ["cafe", "café", "CAFÉ"] {
        let mut files: Vec<String> = index
            .search(&units[..], query, 10)
            .into_iter()
            .map(|h| h.path)
            .collect();
        files.sort();
        assert_eq!(files, ["a.md", "b.md"], "{query}");
        assert_eq!(index.count_matches(query), 2);
    }
    let hit = &index
        .search(&units[..], "cafe", 10)
        .into_iter()
        .find(|h| h.path == "a.md")
        .unwrap();
    assert_eq!(&hit.snippet[hit.highlights[0].clone()], "Café");
}

#[test]
fn hits_read_their_text_from_the_memory_searched() {
    let units = vec![doc("a.md", "first line\nthe needle here")];
    let index = SearchIndex::of_units(&units);
    let hit = &index.search(&units[..], "needle", 1)[0];
    assert_eq!((hit.path.as_str(), hit.line), ("a.md", 2));
    // Texts that no longer hold the unit give an empty snippet, not a panic.
    let hits = index.search(&[][..], "needle", 1);
    assert_eq!(hits[0].snippet, "");
}

#[test]
fn an_index_of_the_query_words_ranks_and_counts_as_the_whole_index() {
    let units: Vec<Unit> = (0..3000)
        .map(|i| {
            let text = format!(
                "entry {i} about {} and {}\nmore {} text",
                ["kyoto", "budget", "trip", "tea"][i % 4],
                ["deadline", "café", "kyoto"][i % 3],
                "word ".repeat(i % 7)
            );
            doc(&format!("{i:04}.md"), &text)
        })
        .collect();
    let whole = SearchIndex::of_units(&units);
    for query in ["kyoto deadline", "cafe budget", "absent", "kyoto kyoto tea"] {
        let only = SearchIndex::of_units_for_query(&units, query);
        assert_eq!(
            only.search(&units[..], query, 25),
            whole.search(&units[..], query, 25),
            "{query}"
        );
        assert_eq!(only.count_matches(query), whole.count_matches(query));
    }
}

/// A bank searched as it is read ranks the same articles in the same
/// order with the same scores, lines and snippets as the one-pass search
/// of the bank loaded whole: on a bank large enough to be read on the
/// pool, with frontmatter (valid, invalid, unclosed, empty, fenced), CRLF
/// and BOM files, ties and a short limit.
#[test]
fn a_bank_searched_as_it_is_read_gives_the_loaded_banks_hits() {
    use crate::bank::Bank;
    use crate::memory::Memory;
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for dir in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir_all(r.join(dir)).unwrap();
    }
    let words = ["kyoto", "contract", "clause", "tea", "lease", "café"];
    for i in 0..600usize {
        let mut body = String::new();
        for k in 0..(i % 17 + 1) {
            body.push_str(words[(i * 7 + k * 3) % words.len()]);
            body.push(if k % 5 == 4 { '\n' } else { ' ' });
        }
        // Frontmatter of every shape: the streamed search only steps over
        // it, where the loaded bank parses it.
        let text = match i % 8 {
            0 => format!("---\nclient: C{i}\n---\n# Note {i}\n{body}\n"),
            1 => format!("\u{feff}---\r\ndomain: D{i}\r\n---\r\n{body}\r\n"),
            2 => format!("# Title kyoto {i}\n\n{body}\n"),
            3 => format!("---\nclient: [kyoto\nstatus: : tea\n---\n{body}\n"),
            4 => format!("---\nclient: C{i}\ncontract clause\n{body}\n"),
            5 => format!("```markdown\n---\nclient: kyoto\n---\n{body}\n```\n"),
            6 => format!("---\n---\n\n{body}"),
            _ => body,
        };
        let folder = ["01_CLIENTS", "02_TERMINOLOGY", "03_DOMAINS"][i % 3];
        std::fs::write(r.join(format!("{folder}/n{i:04}.md")), text).unwrap();
    }
    let whole = Bank::load(r).unwrap();
    assert_eq!(whole.articles().len(), 600);
    for (query, limit) in [
        ("kyoto", 20),
        ("contract clause", 5),
        ("Cafe tea lease", 600),
        ("absent", 10),
        ("", 10),
    ] {
        let loaded = one_pass::search(&whole as &dyn Memory, query, limit);
        let (bank, streamed) = one_pass::search_bank(r, query, limit).unwrap();
        assert_eq!(bank.articles().len(), 600);
        assert_eq!(streamed.matches, loaded.matches, "{query}");
        assert_eq!(streamed.hits, loaded.hits, "{query}");
        if query == "kyoto" {
            assert_eq!(streamed.hits.len(), 20);
        }
    }
}

/// The packed postings rank exactly as BM25 written out plainly over the
/// same words: same units, same order, same scores to the bit, same lines
/// and snippets. The units are many (postings cross the parts built on
/// different cores, and distances between units need several bytes) and
/// some repeat a word hundreds of times (counts of several bytes).
#[test]
fn the_packed_index_ranks_as_plain_bm25() {
    use super::index::{B, K1};
    use std::collections::BTreeMap;
    let vocabulary = ["kyoto", "lease", "tea", "café", "clause", "ÉCOLE", "東京"];
    let units: Vec<Unit> = (0..40_000usize)
        .map(|i| {
            let mut text = format!("unit {i}\n");
            // Most words are in few units, far apart; some in many.
            for (k, w) in vocabulary.iter().enumerate() {
                let every = [3, 7, 50, 997, 19_999, 2, 11][k];
                if i % every == k % every {
                    let times = if i % 4_999 == 0 { 300 } else { 1 + i % 3 };
                    for _ in 0..times {
                        text.push_str(w);
                        text.push(' ');
                    }
                    text.push('\n');
                }
            }
            Unit {
                path: format!("{i:05}.md"),
                line: 1 + i % 5,
                entry_id: (i % 2 == 0).then(|| format!("e{i}")),
                text,
            }
        })
        .collect();
    let index = SearchIndex::of_units(&units);

    // Plain BM25 over the same words.
    let per_unit: Vec<BTreeMap<String, u32>> = units
        .iter()
        .map(|u| {
            let mut m = BTreeMap::new();
            for t in tokenize(&u.text) {
                *m.entry(t.term).or_insert(0) += 1;
            }
            m
        })
        .collect();
    let lens: Vec<u32> = per_unit.iter().map(|m| m.values().sum()).collect();
    let n = units.len() as f32;
    let avg = (lens.iter().map(|&l| u64::from(l)).sum::<u64>()) as f32 / n;
    for query in [
        "kyoto",
        "Cafe lease",
        "ecole 東京 tea",
        "clause",
        "unit 39999",
        "absent kyoto absent",
    ] {
        let terms = SearchIndex::query_terms(query);
        let mut scores = vec![0f32; units.len()];
        let mut matched: Vec<usize> = Vec::new();
        for term in &terms {
            let df = per_unit.iter().filter(|m| m.contains_key(term)).count() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (u, m) in per_unit.iter().enumerate() {
                let Some(&tf) = m.get(term) else { continue };
                let tf = tf as f32;
                let norm = K1 * (1.0 - B + B * lens[u] as f32 / avg.max(1.0));
                if scores[u] == 0.0 {
                    matched.push(u);
                }
                scores[u] += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        assert_eq!(index.count_matches(query), matched.len(), "{query}");
        matched.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        matched.truncate(50);
        let expected: Vec<SearchHit> = matched
            .iter()
            .map(|&u| {
                let s = snippet::best_line(&units[u].text, &terms);
                SearchHit {
                    path: units[u].path.clone(),
                    line: units[u].line + s.line_offset,
                    entry_id: units[u].entry_id.clone(),
                    score: f64::from(scores[u]),
                    snippet: s.text,
                    highlights: s.highlights,
                }
            })
            .collect();
        assert_eq!(index.search(&units[..], query, 50), expected, "{query}");
    }
}
