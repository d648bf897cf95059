//! `membank search` end to end, on a bank and on an everos memory root.

mod support;

use std::process::Output;

const BANK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
const EVEROS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/everos-root");

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("membank runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let out = membank(args);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn bank_hits_are_ranked_with_file_line_and_marked_snippet() {
    let v = json(&["search", BANK, "Shelf LIFE", "--json", "--limit", "3"]);
    assert_eq!(v["layout"], "bank");
    assert_eq!(v["method"], "bm25");
    assert!(v["note"].is_null());
    let hits = v["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert!(v["matches"].as_u64().unwrap() >= 3);
    let first = &hits[0];
    assert!(
        first["file"]
            .as_str()
            .unwrap()
            .starts_with("02_TERMINOLOGY/shelf life")
    );
    assert!(first["line"].as_u64().unwrap() >= 1);
    assert!(first["entry_id"].is_null());
    let snippet = first["snippet"].as_str().unwrap();
    let chars: Vec<char> = snippet.chars().collect();
    for h in first["highlights"].as_array().unwrap() {
        let (s, e) = (
            h[0].as_u64().unwrap() as usize,
            h[1].as_u64().unwrap() as usize,
        );
        let word: String = chars[s..e].iter().collect();
        assert!(
            ["shelf", "life"].contains(&word.to_lowercase().as_str()),
            "{word}"
        );
    }
    let scores: Vec<f64> = hits.iter().map(|h| h["score"].as_f64().unwrap()).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

#[test]
fn everos_hits_name_the_entry_and_say_what_kind_of_search_this_is() {
    let v = json(&["search", EVEROS, "东京 budget", "--json"]);
    assert_eq!(v["layout"], "everos");
    assert!(v["note"].as_str().unwrap().contains("keyword"));
    assert!(v["note"].as_str().unwrap().contains("embeddings"));
    let v = json(&["search", EVEROS, "Kyōto Budget", "--json", "--limit", "1"]);
    let hit = &v["hits"][0];
    let id = hit["entry_id"].as_str().expect("an entry id");
    let file = hit["file"].as_str().unwrap();
    assert!(file.contains("/episodes/episode-"), "{file}");
    // The line is in the entry: the file has the id's marker above it.
    let text = std::fs::read_to_string(format!("{EVEROS}/{file}")).unwrap();
    let line = hit["line"].as_u64().unwrap() as usize;
    let marker = format!("<!-- entry:{id} -->");
    let marker_line = text.lines().position(|l| l == marker).unwrap() + 1;
    assert!(line > marker_line, "{line} vs {marker_line}");
    assert!(text.lines().nth(line - 1).unwrap().contains("Budget"));
}

#[test]
fn plain_output_marks_matches_and_no_match_is_not_an_error() {
    let out = membank(&["search", BANK, "shelf"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("**shelf**"), "{text}");
    assert!(!text.contains('\x1b'));
    let out = membank(&["search", BANK, "zzzxqv"]);
    assert!(out.status.success());
    assert!(
        String::from_utf8(out.stdout)
            .unwrap()
            .starts_with("0 matches")
    );
}

/// The query is echoed as typed: Thai, Devanagari and Khmer are written
/// with combining marks, which `{:?}` would print as `\u{e31}`.
#[test]
fn the_query_echoed_keeps_its_combining_marks() {
    for query in ["ปลั๊กอิน", "हिन्दी", "ភាសាខ្មែរ"] {
        let out = membank(&["search", BANK, query]);
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with(&format!("0 matches for \"{query}\"")),
            "{text}"
        );
    }
}

#[test]
fn color_always_marks_matches_in_bold_even_into_a_pipe() {
    let out = support::membank()
        .args(["search", BANK, "shelf", "--color", "always"])
        .output()
        .expect("membank runs");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\u{1b}[1mshelf"), "{text:?}");
    assert!(!text.contains("**shelf**"), "{text:?}");
}

/// A query with no word to look for is refused at once, in every layout,
/// rather than answered "0 matches" as if the memory had been searched.
#[test]
fn a_query_without_words_is_refused_not_searched() {
    for (memory, query) in [(BANK, ""), (BANK, "  !? … "), (EVEROS, "—")] {
        let out = membank(&["search", memory, query, "--json"]);
        assert_eq!(out.status.code(), Some(2), "{query:?}");
        assert!(out.stdout.is_empty(), "{query:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("has no words to search for"), "{err}");
    }
}

/// The command ranks in one pass as it reads; the interface and the MCP
/// server rank with their index. Both must list the same hits, in the
/// same order, with the same scores and counts.
#[test]
fn one_pass_ranking_equals_the_index_ranking_on_a_generated_bank() {
    use membank_core::search::{SearchIndex, one_pass};
    let dir = tempfile::tempdir().unwrap();
    membank_core::synth::generate(
        dir.path(),
        membank_core::synth::SynthOptions {
            articles: 1200,
            ..membank_core::synth::SynthOptions::default()
        },
    )
    .unwrap();
    let everos = tempfile::tempdir().unwrap();
    membank_core::synth_everos::generate(everos.path(), 600).unwrap();
    for root in [dir.path(), everos.path()] {
        let memory = membank_core::memory::open(root, None).unwrap();
        let index = SearchIndex::of_memory(memory.as_ref());
        for query in [
            "the",
            "contract liability",
            "Café term term",
            "absent-word-xyz",
            "a",
        ] {
            for limit in [0, 1, 7, 50, 100_000] {
                let one = one_pass::search(memory.as_ref(), query, limit);
                let indexed = index.search(memory.as_ref(), query, limit);
                assert_eq!(one.hits, indexed, "{} {query:?} {limit}", root.display());
                assert_eq!(one.matches, index.count_matches(query), "{query:?}");
            }
        }
        let many = one_pass::search(memory.as_ref(), "the", 100_000);
        assert!(many.hits.len() > 300, "a query matching many units");
    }
}

/// `--limit 0` lists every hit, as `check --limit 0` lists every finding;
/// it used to list none.
#[test]
fn limit_zero_lists_every_hit() {
    let bank = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
    let every = json(&["search", bank, "the", "--limit", "0", "--json"]);
    let matches = every["matches"].as_u64().unwrap();
    assert!(
        matches > 20,
        "the demo bank has more than a page: {matches}"
    );
    assert_eq!(every["hits"].as_array().unwrap().len() as u64, matches);
    let rest = json(&[
        "search", bank, "the", "--limit", "0", "--offset", "20", "--json",
    ]);
    assert_eq!(rest["hits"].as_array().unwrap().len() as u64, matches - 20);
}

#[test]
fn an_offset_past_the_last_match_says_so() {
    let out = membank(&["search", BANK, "Shelf LIFE", "--offset", "5000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("none shown: --offset 5000 is past the last of them"),
        "{text}"
    );
}
