//! The incremental re-check must give exactly what a full check of the
//! changed bank gives, whatever the mix of edits, additions, deletions and
//! renames.

use std::path::Path;

use super::{BANK_WIDE, recheck};
use crate::bank::{Bank, LoadOptions};
use crate::health::{CODES, HealthOptions, HealthReport, check};

/// A small deterministic generator (xorshift), so a failing seed can be
/// run again.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Few names, so files share names across folders (ambiguous links) and
/// links often start or stop reaching a file as files come and go; two
/// differ only in case and one is not allowed on Windows.
const NAMES: &[&str] = &[
    "Alpha", "alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Et|a",
];
const FOLDERS: &[&str] = &[
    "00_INBOX",
    "01_CLIENTS",
    "02_TERMINOLOGY",
    "02_TERMINOLOGY/sub",
    "02_TERMINOLOGY/wh?y",
    "03_DOMAINS",
    "04_STYLE",
    "05_INDICES",
];

fn some_path(rng: &mut Rng) -> String {
    let folder = rng.pick(FOLDERS);
    let name = rng.pick(NAMES);
    match rng.below(12) {
        0 => format!("{folder}/_{name}.md"),
        1 => format!("{folder}/{name}.png"),
        2 => format!("{folder}/{name} x.md"),
        _ => format!("{folder}/{name}.md"),
    }
}

fn some_text(rng: &mut Rng) -> String {
    if rng.below(10) == 0 {
        return "no frontmatter, a link to [[Alpha]]\n".into();
    }
    let mut fm = String::from("---\n");
    let term = rng.pick(&["run", "walk"]);
    let target = rng.pick(&["rennen", "lopen", "Lopen"]);
    fm += &format!("term_source: {term}\nterm_target: {target}\n");
    fm += "source_lang: en\ntarget_lang: nl\n";
    fm += &format!("status: {}\n", rng.pick(&["approved", "draft", "nonsense"]));
    fm += &format!("client: \"[[{}]]\"\n", rng.pick(NAMES));
    fm += &format!(
        "last_updated: {}\n",
        rng.pick(&["2026-01-01", "2020-01-01", "not a date"])
    );
    if rng.below(4) == 0 {
        fm += "compiled: true\n";
    }
    fm += "---\n# Title\n\n";
    for _ in 0..rng.below(4) {
        let target = match rng.below(6) {
            0 => "Nowhere".to_owned(),
            1 => format!("{}.png", rng.pick(NAMES)),
            2 => format!("sub/{}", rng.pick(NAMES)),
            // One slip from "Delta": what it may have meant comes and goes
            // with the Delta files.
            3 => "Deltaa".to_owned(),
            _ => rng.pick(NAMES).to_owned(),
        };
        fm += &format!("See [[{target}]].\n");
    }
    fm
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// One round of changes on disk; returns the paths changed.
fn change_files(root: &Path, files: &mut Vec<String>, rng: &mut Rng) -> Vec<String> {
    let mut changed = Vec::new();
    for _ in 0..1 + rng.below(6) {
        match rng.below(4) {
            // Edit
            0 if !files.is_empty() => {
                let rel = files[rng.below(files.len())].clone();
                write(root, &rel, &some_text(rng));
                changed.push(rel);
            }
            // Delete
            1 if !files.is_empty() => {
                let rel = files.swap_remove(rng.below(files.len()));
                std::fs::remove_file(root.join(&rel)).unwrap();
                changed.push(rel);
            }
            // Rename
            2 if !files.is_empty() => {
                let to = some_path(rng);
                if files.contains(&to) {
                    continue;
                }
                let from = files.swap_remove(rng.below(files.len()));
                std::fs::rename(root.join(&from), root.join(&to)).unwrap();
                files.push(to.clone());
                changed.extend([from, to]);
            }
            // Add (or overwrite)
            _ => {
                let rel = some_path(rng);
                write(root, &rel, &some_text(rng));
                if !files.contains(&rel) {
                    files.push(rel.clone());
                }
                changed.push(rel);
            }
        }
    }
    changed
}

fn options() -> HealthOptions {
    HealthOptions {
        stale_after_days: 365,
        today: jiff::civil::date(2026, 6, 1),
    }
}

#[test]
fn incremental_recheck_equals_a_full_check_after_any_mix_of_changes() {
    let opts = options();
    // The interface's bank keeps only some frontmatter blocks: its
    // re-checks must quote the same lines as a full check of all of them.
    for (seed, kept) in (1..=25u64)
        .flat_map(|seed| [LoadOptions::EVERYTHING, LoadOptions::INTERFACE].map(|kept| (seed, kept)))
    {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in FOLDERS {
            std::fs::create_dir_all(root.join(f)).unwrap();
        }
        std::fs::create_dir_all(root.join("06_TEMPLATES")).unwrap();
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut files = Vec::new();
        for _ in 0..30 {
            let rel = some_path(&mut rng);
            write(root, &rel, &some_text(&mut rng));
            if !files.contains(&rel) {
                files.push(rel);
            }
        }
        let mut bank = Bank::load_only(root, kept).unwrap();
        let mut report = check(&bank, &opts);
        for round in 0..8 {
            let changed = change_files(root, &mut files, &mut rng);
            let after = bank.reloaded(&changed);
            let full = check(&Bank::load(root).unwrap(), &opts);
            assert_eq!(
                check(&after, &opts).findings,
                full.findings,
                "reloaded bank differs from a fresh load (seed {seed}, round {round})"
            );
            let incremental = recheck(&bank, &report, &after, &changed, &opts);
            assert_eq!(
                incremental.findings, full.findings,
                "seed {seed}, round {round}, changed {changed:?}, {kept:?}"
            );
            assert_eq!(incremental.counts, full.counts);
            (bank, report) = (after, incremental);
        }
    }
}

#[test]
fn reload_in_place_and_reloaded_copy_agree() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for f in FOLDERS {
        std::fs::create_dir_all(root.join(f)).unwrap();
    }
    let mut rng = Rng(7);
    let mut files = Vec::new();
    for _ in 0..20 {
        let rel = some_path(&mut rng);
        write(root, &rel, &some_text(&mut rng));
        files.push(rel);
    }
    let mut in_place = Bank::load(root).unwrap();
    let changed = change_files(root, &mut files, &mut rng);
    let copy = in_place.reloaded(&changed);
    in_place.reload(&changed);
    let paths =
        |b: &Bank| -> Vec<String> { b.articles().iter().map(|a| a.rel_path.clone()).collect() };
    assert_eq!(paths(&in_place), paths(&copy));
    assert_eq!(
        check(&in_place, &options()).findings,
        check(&copy, &options()).findings
    );
}

#[test]
fn every_bank_wide_code_is_a_known_code() {
    for code in BANK_WIDE {
        assert!(CODES.iter().any(|(c, _)| c == code), "{code}");
    }
}

/// `Notes`, linking to each of `names` and to `links`, and an article for
/// each of `names` linking back, so none is an orphan.
fn linked_bank(root: &Path, names: &[&str], links: &[&str]) {
    let mut notes = String::from("---\ndomain: Notes\nlast_updated: 2026-05-01\n---\n# Notes\n");
    for target in names.iter().chain(links) {
        notes += &format!("See [[{target}]].\n");
    }
    write(root, "03_DOMAINS/Notes.md", &notes);
    for name in names {
        write(
            root,
            &format!("03_DOMAINS/{name}.md"),
            &format!("---\ndomain: {name}\nlast_updated: 2026-05-01\n---\n# {name}\n[[Notes]]\n"),
        );
    }
}

/// What the dead links of the report say, in report order.
fn dead_links(report: &HealthReport) -> Vec<String> {
    report
        .findings
        .iter()
        .filter(|f| f.code() == "dead-link")
        .map(|f| f.message().into_owned())
        .collect()
}

/// Re-checks the bank at `root` after `change` (which returns the paths it
/// changed) from `bank` and `report`, asserts it equals a full check, and
/// returns the new bank and report.
fn recheck_after(
    root: &Path,
    (bank, report): (Bank, HealthReport),
    change: impl FnOnce(&Path) -> Vec<String>,
) -> (Bank, HealthReport) {
    let changed = change(root);
    let after = bank.reloaded(&changed);
    let incremental = recheck(&bank, &report, &after, &changed, &options());
    let full = check(&Bank::load(root).unwrap(), &options());
    assert_eq!(
        incremental.findings, full.findings,
        "after changing {changed:?}"
    );
    (after, incremental)
}

fn checked(root: &Path) -> (Bank, HealthReport) {
    let bank = Bank::load(root).unwrap();
    let report = check(&bank, &options());
    (bank, report)
}

/// The names a dead link may have meant are kept from the report before
/// when no file came or went, so they must be made again whenever one did:
/// each change below alters what an unchanged article's dead link is said
/// to have meant, and a re-check that kept the old names would say the old
/// thing.
#[test]
fn a_dead_links_suggestion_follows_files_that_come_go_or_are_renamed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    linked_bank(root, &["Terminology"], &["Terminolgy", "Glosary"]);
    let mut state = checked(root);
    let said = |state: &(Bank, HealthReport)| dead_links(&state.1).join("\n");
    assert!(said(&state).contains("Did you mean [[Terminology]]?"));
    assert!(!said(&state).contains("[[Glossary]]?"));

    // Added: the other dead link now has a name it may have meant.
    state = recheck_after(root, state, |root| {
        write(root, "03_DOMAINS/Glossary.md", "# Glossary\n[[Notes]]\n");
        vec!["03_DOMAINS/Glossary.md".into()]
    });
    assert!(said(&state).contains("Did you mean [[Glossary]]?"));

    // Renamed in case only: the suggestion is spelt as the file now is.
    state = recheck_after(root, state, |root| {
        let (from, to) = ("03_DOMAINS/Terminology.md", "03_DOMAINS/terminology.md");
        std::fs::rename(root.join(from), root.join(to)).unwrap();
        vec![from.into(), to.into()]
    });
    assert!(said(&state).contains("Did you mean [[terminology]]?"));

    // Renamed to another name: nothing is that close any more.
    state = recheck_after(root, state, |root| {
        let (from, to) = ("03_DOMAINS/terminology.md", "03_DOMAINS/Lexicon.md");
        std::fs::rename(root.join(from), root.join(to)).unwrap();
        vec![from.into(), to.into()]
    });
    assert!(
        !said(&state).contains("[[terminology]]?"),
        "{}",
        said(&state)
    );

    // An edit made after the rename suggests from the names as they are
    // now, not as they were when the bank was first checked.
    state = recheck_after(root, state, |root| {
        linked_bank(root, &[], &["Glosary", "Lexicn", "Terminolgy"]);
        vec!["03_DOMAINS/Notes.md".into()]
    });
    assert!(said(&state).contains("Did you mean [[Lexicon]]?"));
    assert!(
        !said(&state).contains("[[terminology]]?"),
        "{}",
        said(&state)
    );

    // Removed: the dead link is again only a name nothing has.
    state = recheck_after(root, state, |root| {
        std::fs::remove_file(root.join("03_DOMAINS/Glossary.md")).unwrap();
        vec!["03_DOMAINS/Glossary.md".into()]
    });
    assert!(!said(&state).contains("[[Glossary]]?"), "{}", said(&state));
}

/// An edit that makes a link dead, or alive again, while no file comes or
/// goes: the dead link is told what it may have meant from the names kept
/// from the check before, and those names are not indexed again.
#[test]
fn an_edit_reuses_the_names_of_the_check_before() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    linked_bank(root, &["Terminology", "Glossary"], &["Nowhere"]);
    let mut state = checked(root);
    assert!(
        state.1.link_names.is_indexed(),
        "a dead link: names indexed"
    );
    let names_before = state.1.link_names.clone();

    // Made dead.
    state = recheck_after(root, state, |root| {
        linked_bank(root, &[], &["Nowhere", "Glossery", "terminology"]);
        vec!["03_DOMAINS/Notes.md".into()]
    });
    let said = dead_links(&state.1).join("\n");
    assert!(said.contains("Did you mean [[Glossary]]?"), "{said}");
    assert!(
        state.1.link_names.same_index(&names_before),
        "no file came or went, yet the names were indexed again"
    );

    // Made alive again: its dead-link finding goes.
    state = recheck_after(root, state, |root| {
        linked_bank(root, &[], &["Nowhere", "Glossary"]);
        vec!["03_DOMAINS/Notes.md".into()]
    });
    assert!(!dead_links(&state.1).join("\n").contains("Glossery"));
    assert!(state.1.link_names.same_index(&names_before));
}

/// The links of an inbox note are not checked, so a dead one asks for no
/// suggestion: the names are not indexed for it, by a full check or by a
/// re-check of the note after an edit.
#[test]
fn a_dead_link_in_an_inbox_note_indexes_no_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    linked_bank(root, &["Terminology"], &[]);
    write(
        root,
        "00_INBOX/note.md",
        "A thought about [[Terminolgy]].\n",
    );
    let mut state = checked(root);
    assert!(dead_links(&state.1).is_empty(), "an inbox link is reported");
    assert!(!state.1.link_names.is_indexed());

    state = recheck_after(root, state, |root| {
        write(root, "00_INBOX/note.md", "Two thoughts: [[Nowhere]].\n");
        vec!["00_INBOX/note.md".into()]
    });
    assert!(!state.1.link_names.is_indexed());
}
