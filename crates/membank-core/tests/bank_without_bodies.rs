//! A bank read without its bodies, as the interface reads one, answers
//! everything that needs an article's text exactly as a bank holding the
//! text does: the health findings, search hits and their snippets, the term
//! notes, the snapshot and the assembled context.

use std::path::Path;

use membank_core::bank::{Bank, LoadOptions};
use membank_core::budget::BudgetOptions;
use membank_core::health::{self, HealthOptions};
use membank_core::memory::Memory;
use membank_core::scoring::Query;
use membank_core::search::{SearchIndex, one_pass};
use membank_core::{context, snapshot, terms};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The interface's test bank, with a body holding a credential, a
/// UTF-16 file with a byte-order mark and CRLF lines, and a fenced one.
fn bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/bank");
    copy_dir(&fixture, dir.path());
    let write = |rel: &str, bytes: &[u8]| std::fs::write(dir.path().join(rel), bytes).unwrap();
    write(
        "03_DOMAINS/Cloud.md",
        b"---\ndomain: Cloud\n---\n# Cloud\n\nThe key AKIAIOSFODNN7EXAMPLE was pasted here.\n",
    );
    let utf16: Vec<u8> = "\u{feff}---\r\nclient: Initech\r\n---\r\n# Initech\r\n\r\nPrefers naleving, über alles.\r\n"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    write("01_CLIENTS/Initech.md", &utf16);
    write(
        "04_STYLE/Fenced.md",
        b"```markdown\n---\nclient: Globex\n---\n# Fenced\n\nQuotes are curly in translation.\n```\n",
    );
    dir
}

fn both() -> (tempfile::TempDir, Bank, Bank) {
    let dir = bank();
    let whole = Bank::load_only(dir.path(), LoadOptions::EVERYTHING).unwrap();
    let slim = Bank::load_only(dir.path(), LoadOptions::INTERFACE).unwrap();
    (dir, whole, slim)
}

#[test]
fn the_interface_bank_holds_no_bodies_but_reads_each_again() {
    let (_dir, whole, slim) = both();
    assert_eq!(whole.articles().len(), slim.articles().len());
    let held: usize = slim.articles().iter().map(|a| a.body().len()).sum();
    let credential = slim.find("03_DOMAINS/Cloud.md").unwrap();
    // Only the body with a credential is kept, for the `secret` check.
    assert_eq!(held, slim.article(credential).body().len());
    for id in 0..whole.articles().len() {
        assert_eq!(
            whole.article_text(id).unwrap(),
            slim.article_text(id).unwrap(),
            "{}",
            whole.article(id).rel_path
        );
        let (w, s) = (Memory::full_text(&whole, id), Memory::full_text(&slim, id));
        assert_eq!(w.unwrap(), s.unwrap());
    }
}

#[test]
fn health_findings_are_the_same_without_bodies() {
    let (_dir, whole, slim) = both();
    let opts = HealthOptions::as_of(jiff::civil::date(2026, 4, 8));
    let (w, s) = (health::check(&whole, &opts), health::check(&slim, &opts));
    assert!(w.findings.iter().any(|f| f.code() == "secret"), "{w:?}");
    assert_eq!(format!("{:?}", w.findings), format!("{:?}", s.findings));
}

#[test]
fn search_finds_and_quotes_the_bodies_it_does_not_hold() {
    let (_dir, whole, slim) = both();
    let (whole, slim): (&dyn Memory, &dyn Memory) = (&whole, &slim);
    let (wi, si) = (SearchIndex::of_memory(whole), SearchIndex::of_memory(slim));
    for query in [
        "naleving",
        "curly translation",
        "contracts",
        "über",
        "pasted",
    ] {
        let w = wi.search(whole, query, 20);
        assert!(!w.is_empty(), "{query}");
        assert_eq!(w, si.search(slim, query, 20), "{query}");
        assert_eq!(w, one_pass::search(slim, query, 20).hits, "{query}");
    }
}

#[test]
fn term_notes_snapshot_and_context_are_the_same_without_bodies() {
    let (_dir, whole, slim) = both();
    let records = terms::records(&whole, &terms::Filter::default());
    assert!(records.iter().any(|r| r.note.is_some()), "{records:?}");
    assert_eq!(records, terms::records(&slim, &terms::Filter::default()));
    assert_eq!(
        snapshot::build(&whole, snapshot::DEFAULT_CAP),
        snapshot::build(&slim, snapshot::DEFAULT_CAP)
    );
    let query = Query {
        client: Some("Acme Corporation".into()),
        ..Query::default()
    };
    let report = context::build(&whole, &query, BudgetOptions::default());
    assert!(report.included().count() > 1);
    assert_eq!(
        context::render(&whole, &report),
        context::try_render(&slim, &report).unwrap()
    );
}

#[test]
fn an_article_changed_since_it_was_read_is_not_read_as_the_old_one() {
    let (dir, _whole, slim) = both();
    let id = slim.find("01_CLIENTS/Globex.md").unwrap();
    std::fs::write(
        dir.path().join("01_CLIENTS/Globex.md"),
        "# Globex\n\nRewritten since.\n",
    )
    .unwrap();
    let problem = slim.article_text(id).unwrap_err();
    assert_eq!(problem.path, "01_CLIENTS/Globex.md");
    assert!(problem.message.contains("changed on disk"), "{problem:?}");
}
