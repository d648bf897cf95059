//! Real XLIFF 1.2 and 2.0 files from public repositories (see
//! `tests/fixtures/terms/public/SOURCES.md`): read as segments with their
//! languages, given a job glossary, and checked by `membank qa`.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/terms/public")
        .join(name)
}

fn json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(
        &support::membank()
            .args(args)
            .output()
            .expect("membank runs"),
    )
}

fn term(root: &Path, source: &str, target: &str, target_lang: &str, status: &str) {
    fs::write(
        root.join(format!("02_TERMINOLOGY/{source} → {target}.md")),
        format!(
            "---\nterm_source: \"{source}\"\nterm_target: \"{target}\"\nsource_lang: en\n\
             target_lang: {target_lang}\nstatus: {status}\nlast_updated: 2026-01-15\n---\n\
             # {source} → {target}\n"
        ),
    )
    .unwrap();
}

fn bank(dir: &Path) -> PathBuf {
    let root = dir.join("bank");
    let made = support::membank()
        .args(["init", root.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(made.status.success());
    term(&root, "TAB key", "Tabstopptaste", "de", "approved");
    term(&root, "doppelgänger", "double", "fr", "approved");
    term(&root, "doppelgänger", "alter ego", "fr", "rejected");
    term(&root, "application", "Anwendung", "de", "approved");
    term(&root, "application", "Applikation", "de", "rejected");
    root
}

/// `(code, segment)` of each finding.
fn findings(v: &serde_json::Value) -> Vec<(&str, &str)> {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["code"].as_str().unwrap(), f["segment"].as_str().unwrap()))
        .collect()
}

/// What a sample holds and what the bank's terms find in it.
struct Case {
    name: &'static str,
    kind: &'static str,
    source_lang: &'static str,
    target_lang: &'static str,
    segments: u64,
    /// The source terms of its job glossary.
    glossary: &'static [&'static str],
    /// `(code, segment)` of the check's findings.
    found: &'static [(&'static str, &'static str)],
}

#[test]
fn each_public_sample_is_read_glossed_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let root = bank(dir.path());
    let bank = root.to_str().unwrap();
    let cases = [
        Case {
            name: "example12.xliff",
            kind: "xliff-1.2",
            source_lang: "en-US",
            target_lang: "de-CH",
            segments: 5,
            glossary: &["application", "application"],
            found: &[("term-missing", "key2"), ("term-rejected", "key2")],
        },
        Case {
            name: "sample1.xlf",
            kind: "xliff-2",
            source_lang: "en",
            target_lang: "de",
            segments: 1,
            glossary: &["TAB key"],
            found: &[("term-missing", "1")],
        },
        Case {
            name: "withGlossary.xlf",
            kind: "xliff-2",
            source_lang: "en",
            target_lang: "fr",
            segments: 2,
            glossary: &["doppelgänger", "doppelgänger"],
            found: &[("term-missing", "1/1"), ("term-rejected", "1/1")],
        },
    ];
    for Case {
        name,
        kind,
        source_lang,
        target_lang,
        segments,
        glossary,
        found,
    } in cases
    {
        let file = sample(name);
        let before = fs::read(&file).unwrap();
        let file = file.to_str().unwrap();
        let (g, code) = json(&["terms", bank, "--for", file, "--json"]);
        assert_eq!(code, Some(0), "{name}: {g}");
        assert_eq!(g["kind"], kind, "{name}");
        assert_eq!(g["source_lang"], source_lang, "{name}");
        assert_eq!(g["target_lang"], target_lang, "{name}");
        assert_eq!(g["segments"], segments, "{name}");
        let sources: Vec<&str> = g["terms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["source"].as_str().unwrap())
            .collect();
        assert_eq!(sources, glossary, "{name}: {g}");
        let (q, code) = json(&["qa", bank, file, "--json"]);
        assert_eq!(code, Some(1), "{name}: findings exit 1: {q}");
        assert_eq!(q["segments"], segments, "{name}");
        assert_eq!(findings(&q), found, "{name}: {q}");
        assert_eq!(fs::read(file).unwrap(), before, "{name} is only read");
    }
}
