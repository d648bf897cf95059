use std::fs;
use std::path::Path;

use super::*;
use crate::bank::Bank;
use crate::health::{HealthOptions, check};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn report(root: &Path) -> Vec<Finding> {
    let opts = HealthOptions {
        stale_after_days: 30,
        today: jiff::civil::date(2026, 6, 1),
    };
    check(&Bank::load(root).unwrap(), &opts).findings
}

fn messages<'a>(findings: &'a [Finding], path: &str, code: &str) -> Vec<Cow<'a, str>> {
    findings
        .iter()
        .filter(|f| *f.path == *path && f.code() == code)
        .map(Finding::message)
        .collect()
}

/// The messages written only when read say, word for word, what they said
/// when they were written at once: scripts compare them.
#[test]
fn messages_written_when_read_keep_their_exact_words() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for folder in Folder::ALL {
        fs::create_dir_all(r.join(folder.dir_name())).unwrap();
    }
    write(
        r,
        "01_CLIENTS/Acme.md",
        "---\nclient:\nlast_updated: 2026-01-02\n---\n# Acme\n[[Nowhere|x]]\n",
    );
    write(
        r,
        "00_INBOX/_archive/note.md",
        "---\ncompiled: true\ncompiled_date: 2026-04-02\n---\nraw\n",
    );
    let f = report(r);
    let acme = "01_CLIENTS/Acme.md";
    // An article's findings hold one copy of its path between them.
    let of_acme: Vec<&Finding> = f.iter().filter(|f| &*f.path == acme).collect();
    assert_eq!(of_acme.len(), 6);
    assert!(
        of_acme
            .iter()
            .all(|f| Arc::ptr_eq(&f.path, &of_acme[0].path))
    );
    assert_eq!(
        messages(&f, acme, "missing-key"),
        [
            "The key languages is missing. Every article in 01_CLIENTS must have it; tools \
             rely on it to score and sort. Add “languages: …” to the frontmatter.",
            "The key client is empty. Every article in 01_CLIENTS must have it; tools rely on \
             it to score and sort. Add “client: …” to the frontmatter.",
            "The key domains is missing. It is recommended in 01_CLIENTS: without it the \
             article earns no points for a matching domain. Add “domains: …” to the \
             frontmatter.",
        ]
    );
    assert_eq!(
        messages(&f, "00_INBOX/_archive/note.md", "missing-key"),
        [
            "The key compiled_to is missing. Processed inbox files record when and into which \
             articles they were compiled. Add “compiled_to: …” to the frontmatter."
        ]
    );
    assert_eq!(
        messages(&f, acme, "stale"),
        [
            "last_updated is 2026-01-02, more than 30 days before 2026-06-01. Check that the \
             article is still correct, then update last_updated."
        ]
    );
    assert_eq!(
        messages(&f, acme, "orphan"),
        [
            "No other article links to “Acme”. It is still used for context, but nobody \
             browsing the bank will be led to it. If it belongs to a client or domain, add a \
             [[Acme]] link there."
        ]
    );
    assert_eq!(
        messages(&f, acme, "dead-link"),
        [
            "[[Nowhere|x]] does not match any file in the bank. This is fine for an article you \
             still plan to write (a forward reference); otherwise correct the spelling. membank \
             never removes links by itself."
        ]
    );
}

#[test]
fn json_carries_the_message_written_out() {
    let lazy = Finding::with_message(
        "orphan",
        Severity::Info,
        "03_DOMAINS/Legal.md",
        None,
        Message::Orphan,
    );
    let json = serde_json::to_value(&lazy).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "code": "orphan",
            "severity": "info",
            "path": "03_DOMAINS/Legal.md",
            "line": null,
            "message": lazy.message(),
        })
    );
    assert!(json["message"].as_str().unwrap().contains("“Legal”"));
}

/// Findings equal by what they say, whether the message is text or facts;
/// the report order compares the words, as it did when all were text.
#[test]
fn equality_and_order_go_by_the_words() {
    let missing = |key| {
        Finding::with_message(
            "missing-key",
            Severity::Error,
            "02_TERMINOLOGY/a.md",
            None,
            Message::MissingKey {
                key,
                empty: false,
                rule: KeyRule::Required(Folder::Terminology),
            },
        )
    };
    let as_text =
        |f: &Finding| Finding::new(f.code(), f.severity, f.path.clone(), f.line(), f.message());
    let status = missing("status");
    assert_eq!(status, as_text(&status));
    assert_ne!(status, missing("term_source"));
    let mut keys = vec![
        missing("target_lang"),
        missing("status"),
        missing("source_lang"),
    ];
    keys.push(as_text(&missing("last_updated")));
    keys.sort_by(Finding::report_order);
    let words: Vec<String> = keys.iter().map(|f| f.message().into_owned()).collect();
    let mut sorted = words.clone();
    sorted.sort();
    assert_eq!(words, sorted);
}

/// A report writes each message in place for the terminal; it must read as
/// the message itself does once sanitised, for every kind of message and
/// with control and direction characters in what comes from the bank.
#[test]
fn a_message_written_for_the_terminal_is_the_message_sanitised() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for folder in Folder::ALL {
        fs::create_dir_all(r.join(folder.dir_name())).unwrap();
    }
    write(
        r,
        "03_DOMAINS/Law\u{1b}[31m\tred\u{202e}.md",
        "---\ndomain: Law\nlast_updated: 2020-01-02\n---\n# Law\n\
         [[Nowhere\u{7}\u{2066}x]] [[Law\u{1b}[31m\tred\u{202f}]] [[gone.pdf]]\n",
    );
    write(
        r,
        "01_CLIENTS/Acme.md",
        "---\nclient:\nlanguages: [[Elsewhere]]\nlast_updated: 2020-01-02\n---\n# Acme\n",
    );
    let found = report(r);
    let codes: std::collections::BTreeSet<&str> = found.iter().map(|f| f.code()).collect();
    for code in [
        "orphan",
        "dead-link",
        "stale",
        "missing-key",
        "unquoted-link",
    ] {
        assert!(codes.contains(code), "{code} not among {codes:?}");
    }
    let hostile = |code: &str, c: char| {
        found
            .iter()
            .any(|f| f.code() == code && f.message().contains(c))
    };
    assert!(hostile("orphan", '\u{1b}') && hostile("dead-link", '\u{7}'));
    for f in &found {
        let mut written = String::from("before ");
        f.write_message_for_terminal(&mut written);
        let expected = format!(
            "before {}",
            crate::text::sanitize_for_terminal(&f.message(), false)
        );
        assert_eq!(written, expected, "{f:?}");
    }
}

/// Two `missing-key` messages are ordered by their keys without being
/// written out: the order must be that of the words, for every pair of
/// keys a folder asks for.
#[test]
fn missing_keys_order_as_their_messages_do() {
    let mut keys: Vec<&'static str> = super::super::frontmatter::ARCHIVE_KEYS.to_vec();
    for folder in Folder::ALL {
        let (required, recommended) = super::super::frontmatter::keys_for(folder);
        keys.extend(required.iter().chain(recommended));
    }
    let missing = |key, empty| {
        Finding::with_message(
            "missing-key",
            Severity::Error,
            "01_CLIENTS/a.md",
            None,
            Message::MissingKey {
                key,
                empty,
                rule: KeyRule::Recommended(Folder::Clients),
            },
        )
    };
    for &a in &keys {
        for &b in &keys {
            for (ea, eb) in [(false, false), (true, false), (false, true)] {
                let (fa, fb) = (missing(a, ea), missing(b, eb));
                assert_eq!(
                    fa.report_order(&fb),
                    fa.message().cmp(&fb.message()),
                    "{a} ({ea}) against {b} ({eb})"
                );
            }
        }
    }
}

/// A large bank holds hundreds of thousands of findings until they are
/// sorted, and the interface keeps them all: each stays small.
#[test]
fn a_finding_takes_at_most_48_bytes() {
    assert!(size_of::<Finding>() <= 48, "{} bytes", size_of::<Finding>());
}

/// Codes are kept as numbers, but read, compared and written as their
/// words, also codes no table lists, numbered in the order first seen.
#[test]
fn codes_and_lines_read_back_as_given() {
    let at = |code, line| Finding::new(code, Severity::Warning, "a.md", line, "m");
    let later = at("zz-not-listed", Some(7));
    let earlier = at("aa-not-listed", Some(7));
    assert_eq!(later.code(), "zz-not-listed");
    assert_eq!(earlier.code(), "aa-not-listed");
    assert_eq!(at("dead-link", None).code(), "dead-link");
    assert_eq!(at("everos-not-utf8", None).code(), "everos-not-utf8");
    assert_eq!(
        earlier.report_order(&later),
        Ordering::Less,
        "by the words, not the numbers"
    );
    assert_eq!(
        at("orphan", None).report_order(&at("bom", None)),
        Ordering::Greater
    );
    for line in [None, Some(0), Some(1), Some(4_000_000)] {
        assert_eq!(at("bom", line).line(), line);
    }
    assert_eq!(
        at("bom", None).report_order(&at("bom", Some(1))),
        Ordering::Less
    );
    assert_eq!(
        serde_json::to_value(at("zz-not-listed", Some(3))).unwrap()["line"],
        serde_json::json!(3)
    );
}

/// The `missing-key` and `stale` messages, written piece by piece, read
/// as the formatting machinery wrote them, for every rule, folder and
/// state and for ages of any number of digits.
#[test]
fn messages_written_in_pieces_read_as_formatted() {
    let message = |m: Message| Finding::with_message("x", Severity::Info, "a.md", None, m);
    for key in ["clients", "languages", "domains", "last_updated", "é_key"] {
        for empty in [false, true] {
            let state = if empty { "empty" } else { "missing" };
            let what = match key {
                "clients" => "client",
                "languages" => "language",
                _ => "domain",
            };
            let mut rules = vec![(
                KeyRule::Archive,
                "Processed inbox files record when and into which articles they were compiled."
                    .to_owned(),
            )];
            for folder in Folder::ALL {
                let name = folder.dir_name();
                rules.push((
                    KeyRule::Required(folder),
                    format!(
                        "Every article in {name} must have it; tools rely on it to score and sort."
                    ),
                ));
                rules.push((
                    KeyRule::Recommended(folder),
                    format!(
                        "It is recommended in {name}: without it the article earns no points \
                         for a matching {what}."
                    ),
                ));
            }
            for (rule, middle) in rules {
                let written = message(Message::MissingKey { key, empty, rule });
                let expected = format!(
                    "The key {key} is {state}. {middle} Add “{key}: …” to the frontmatter."
                );
                assert_eq!(written.message(), expected);
            }
        }
    }
    let (date, today) = (
        jiff::civil::date(2024, 2, 29),
        jiff::civil::date(2026, 6, 1),
    );
    for days in [0, 7, 30, 365, 10_000, u32::MAX] {
        let written = message(Message::Stale { date, days, today });
        let expected = format!(
            "last_updated is {date}, more than {days} days before {today}. Check that the \
             article is still correct, then update last_updated."
        );
        assert_eq!(written.message(), expected);
    }
}
