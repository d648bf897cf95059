//! `membank check` end to end, on the flawed fixture bank and temporary banks.

mod support;

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;
use std::process::Output;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flawed-bank");

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .output()
        .expect("membank runs")
}

fn json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(&membank(args))
}

fn findings(v: &serde_json::Value) -> &Vec<serde_json::Value> {
    v["findings"].as_array().expect("findings array")
}

fn codes_at<'a>(v: &'a serde_json::Value, path: &str) -> Vec<&'a str> {
    findings(v)
        .iter()
        .filter(|f| f["path"] == path)
        .map(|f| f["code"].as_str().unwrap())
        .collect()
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

/// A bank with nothing to report.
fn healthy_bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(d.path().join(f)).unwrap();
    }
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Tax]]\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Tax.md",
        b"---\ndomain: Tax\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    d
}

#[test]
fn fixture_bank_reports_every_trap() {
    let (v, code) = json(&["check", FIXTURE, "--json"]);
    assert_eq!(code, Some(1), "errors mean exit code 1");
    assert_eq!(v["bank"], FIXTURE);
    let codes: BTreeSet<&str> = findings(&v)
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    let expected: BTreeSet<&str> = [
        "ambiguous-link",
        "bad-date",
        "bad-language-code",
        "bad-status",
        "bom",
        "compiled-not-archived",
        "dead-link",
        "fenced-frontmatter",
        "missing-folder",
        "missing-frontmatter",
        "missing-key",
        "not-utf8",
        "orphan",
        "skipped-file",
        "stale",
        "term-conflict",
        "tmp-leftover",
        "unknown-folder",
        "unparsable-frontmatter",
        "unprocessed-inbox",
    ]
    .into();
    assert_eq!(codes, expected);
    for f in findings(&v) {
        let keys: BTreeSet<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["code", "line", "message", "path", "severity"].into(),
            "{f}"
        );
    }
    let counts = &v["counts"];
    let total = ["error", "warning", "info"]
        .iter()
        .map(|s| counts[s].as_u64().unwrap())
        .sum::<u64>();
    assert_eq!(total as usize, findings(&v).len());
}

#[test]
fn fixture_findings_point_at_the_right_files_and_lines() {
    let (v, _) = json(&["check", FIXTURE, "--json"]);
    let at = |code: &str| -> Vec<(String, Option<u64>, String)> {
        findings(&v)
            .iter()
            .filter(|f| f["code"] == code)
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_owned(),
                    f["line"].as_u64(),
                    f["severity"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    assert_eq!(
        at("not-utf8"),
        vec![(
            "02_TERMINOLOGY/legacy encoding.md".into(),
            Some(3),
            "error".into()
        )]
    );
    assert_eq!(
        at("dead-link"),
        vec![(
            "01_CLIENTS/Acme Corporation.md".into(),
            Some(12),
            "warning".into()
        )]
    );
    assert_eq!(
        at("bom"),
        vec![("01_CLIENTS/Bom Client.md".into(), Some(1), "warning".into())]
    );
    let conflicts = at("term-conflict");
    assert_eq!(conflicts.len(), 2);
    assert!(conflicts.iter().all(|c| c.2 == "error"));
    let unparsable = at("unparsable-frontmatter");
    assert_eq!(unparsable[0].0, "02_TERMINOLOGY/broken yaml.md");
    assert!(unparsable[0].1.is_some(), "the YAML error line is given");
    assert_eq!(
        at("missing-folder"),
        vec![("05_INDICES".into(), None, "warning".into())]
    );
    assert_eq!(
        at("stale"),
        vec![("03_DOMAINS/Shipping.md".into(), Some(4), "info".into())]
    );
}

#[test]
fn fixture_traps_that_are_fine_stay_quiet() {
    let (v, _) = json(&["check", FIXTURE, "--json"]);
    // CRLF and `en → no` are both valid.
    assert!(codes_at(&v, "01_CLIENTS/Nordic Bank.md").is_empty());
    // Norwegian `no` is a language code, not YAML false.
    assert!(
        codes_at(&v, "02_TERMINOLOGY/invoice → faktura.md")
            .iter()
            .all(|c| *c == "ambiguous-link")
    );
    assert!(codes_at(&v, "00_INBOX/_archive/first batch.md").is_empty());
    for f in findings(&v) {
        let path = f["path"].as_str().unwrap();
        assert!(!path.contains("_EXAMPLE_"), "{path}");
        assert!(!path.contains(".obsidian"), "{path}");
        assert!(!path.starts_with("00_INBOX/_archive"), "{path}");
    }
    // The raw inbox note links to an article that does not exist yet.
    assert_eq!(
        codes_at(&v, "00_INBOX/meeting notes.md"),
        vec!["unprocessed-inbox"]
    );
}

#[test]
fn stale_days_is_configurable() {
    let (v, _) = json(&["check", FIXTURE, "--json", "--stale-days", "0"]);
    assert!(findings(&v).iter().all(|f| f["code"] != "stale"));
    for days in ["100000", "4294967295"] {
        let (v, code) = json(&["check", FIXTURE, "--json", "--stale-days", days]);
        assert_eq!(code, Some(1));
        assert!(findings(&v).iter().all(|f| f["code"] != "stale"));
    }
    let (v, _) = json(&["check", FIXTURE, "--json", "--stale-days", "1"]);
    let stale = findings(&v).iter().filter(|f| f["code"] == "stale").count();
    assert!(stale > 1, "a short age makes more articles stale");
}

/// The stale articles of the fixture, as of the day the run is pinned to.
fn stale_as_of(args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", FIXTURE, "--json"];
    all.extend_from_slice(args);
    let (v, _) = json(&all);
    findings(&v)
        .iter()
        .filter(|f| f["code"] == "stale")
        .map(|f| f["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn staleness_is_measured_from_the_pinned_day() {
    // The tests' own day: only the article last updated long before.
    assert_eq!(stale_as_of(&[]), ["03_DOMAINS/Shipping.md"]);
    // `--today` wins over MEMBANK_TODAY, a year or three later more is stale.
    let a_year_on = stale_as_of(&["--today", "2027-11-26"]);
    assert!(a_year_on.len() > 1, "{a_year_on:?}");
    assert!(a_year_on.contains(&"03_DOMAINS/Shipping.md".to_owned()));
    let later = stale_as_of(&["--today", "2029-11-26T08:30:00"]);
    assert!(later.len() >= a_year_on.len(), "{later:?}");
    // Before the fixture's articles were written, nothing is stale.
    assert!(stale_as_of(&["--today", "2020-01-01"]).is_empty());
}

#[test]
fn a_day_that_is_not_a_date_is_refused_by_name() {
    let out = membank(&["check", FIXTURE, "--today", "next tuesday"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--today") && err.contains("next tuesday"),
        "{err}"
    );
    let out = support::membank()
        .env("MEMBANK_TODAY", "2026-02-30")
        .args(["check", FIXTURE])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("MEMBANK_TODAY") && err.contains("2026-02-30"),
        "{err}"
    );
}

#[test]
fn human_output_groups_by_severity_with_counts_first() {
    let out = membank(&["check", FIXTURE]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    let (v, _) = json(&["check", FIXTURE, "--json"]);
    let c = &v["counts"];
    let counts_line = text.lines().nth(1).unwrap();
    assert!(
        counts_line.starts_with(&format!("{} errors", c["error"])),
        "{counts_line}"
    );
    let e = text.find("\nERRORS").unwrap();
    let w = text.find("\nWARNINGS").unwrap();
    let i = text.find("\nNOTES").unwrap();
    assert!(e < w && w < i);
    assert!(text.contains("01_CLIENTS/Acme Corporation.md:12"));
    assert!(text.contains("  term-conflict (2)"));
}

#[test]
fn healthy_bank_exits_zero() {
    let d = healthy_bank();
    let bank = d.path().to_str().unwrap();
    let out = membank(&["check", bank]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("No problems found."));
    // Warnings alone do not fail the run.
    write(d.path(), "03_DOMAINS/Tax.md.1.tmp", b"");
    let (v, code) = json(&["check", bank, "--json"]);
    assert_eq!(code, Some(0));
    assert_eq!(v["counts"]["warning"], 1);
}

#[test]
fn unusable_banks_and_arguments_exit_two() {
    let d = tempfile::tempdir().unwrap();
    let out = membank(&["check", d.path().join("missing").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such folder"));
    let out = membank(&["check", d.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a memory bank"));
    let out = membank(&["check", FIXTURE, "--stale-days", "soon"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn file_content_is_sanitised_in_human_output_only() {
    let d = healthy_bank();
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Tax]] [[\x1bcgone\x07]]\n",
    );
    let bank = d.path().to_str().unwrap();
    let out = membank(&["check", bank]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("dead-link"));
    assert!(
        !text.contains('\x1b'),
        "escape reached the terminal: {text:?}"
    );
    let (v, _) = json(&["check", bank, "--json"]);
    let msg = findings(&v)[0]["message"].as_str().unwrap();
    assert!(msg.contains("\x1bcgone\x07"), "JSON keeps the exact text");
}

#[cfg(unix)]
#[test]
fn bad_file_names_are_reported() {
    let d = healthy_bank();
    let body = b"---\ndomain: X\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n";
    write(d.path(), "03_DOMAINS/Why?.md", body);
    write(d.path(), "03_DOMAINS/CON.md", body);
    write(d.path(), "03_DOMAINS/tax.md", body);
    let (v, code) = json(&["check", d.path().to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(1), "a forbidden character is an error");
    let mut bad: Vec<(&str, &str)> = findings(&v)
        .iter()
        .filter(|f| f["code"] == "bad-filename")
        .map(|f| (f["path"].as_str().unwrap(), f["severity"].as_str().unwrap()))
        .collect();
    bad.sort();
    assert_eq!(
        bad,
        vec![
            ("03_DOMAINS/CON.md", "warning"),
            ("03_DOMAINS/Tax.md", "warning"),
            ("03_DOMAINS/Why?.md", "error"),
            ("03_DOMAINS/tax.md", "warning"),
        ]
    );
}

/// A bank linked the way Obsidian links: only the one forward reference is
/// dead, and every other rule of Obsidian's resolver holds end to end.
#[test]
fn a_bank_edited_in_obsidian_has_no_false_dead_links() {
    let bank = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/obsidian-vault");
    let (v, code) = json(&["check", bank, "--json"]);
    assert_eq!(code, Some(0), "no errors: {v:#}");
    let of = |code: &str| -> Vec<(String, Option<u64>)> {
        findings(&v)
            .iter()
            .filter(|f| f["code"] == code)
            .map(|f| (f["path"].as_str().unwrap().to_owned(), f["line"].as_u64()))
            .collect()
    };
    assert_eq!(
        of("dead-link"),
        vec![("01_CLIENTS/Acme.md".to_owned(), Some(18))]
    );
    assert!(of("ambiguous-link").is_empty());
    assert!(of("orphan").is_empty(), "{v:#}");
    assert_eq!(
        of("unquoted-link"),
        vec![("01_CLIENTS/Acme.md".to_owned(), Some(4))]
    );
    assert_eq!(
        of("utf16"),
        vec![("04_STYLE/House rules.md".to_owned(), Some(1))]
    );
    assert!(codes_at(&v, "03_DOMAINS/Snippet.md").is_empty(), "{v:#}");
    let attachment = findings(&v)
        .iter()
        .find(|f| f["path"] == "03_DOMAINS/attachments/diagram.png")
        .expect("a note about the attachment");
    let message = attachment["message"].as_str().unwrap();
    assert!(
        message.contains("01_CLIENTS/Acme.md") && message.contains("keep it"),
        "{message}"
    );
}

/// A mistyped `--path` is not answered with "No problems found".
#[test]
fn a_path_filter_that_names_nothing_in_the_bank_is_an_error() {
    let out = membank(&["check", FIXTURE, "--path", "01_CLIENT"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("01_CLIENT") && err.contains("01_CLIENTS"),
        "names it and what exists: {err}"
    );
    assert!(out.stdout.is_empty());
    let out = membank(&["check", FIXTURE, "--path", "../../etc"]);
    assert_eq!(out.status.code(), Some(2));
    // An existing file or folder with no findings is still a clean answer.
    let out = membank(&["check", FIXTURE, "--path", "06_TEMPLATES", "--json"]);
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_credential_in_an_articles_body_is_found_as_in_its_frontmatter() {
    let bank = healthy_bank();
    // Made up at run time, so no key-shaped text sits in the repository.
    let key = format!("sk-proj-{}", "Zq7xW2rT9vKp4LmN8bYc3HdF6gJs1QaE");
    write(
        bank.path(),
        "01_CLIENTS/Keyed.md",
        format!(
            "---\nclient: Keyed\nlast_updated: 2026-01-01\n---\n# Keyed\n\nIntro.\nThe key is {key} for now.\n"
        )
        .as_bytes(),
    );
    let (v, _) = json(&["check", bank.path().to_str().unwrap(), "--json"]);
    let found: Vec<_> = findings(&v)
        .iter()
        .filter(|f| f["code"] == "secret")
        .map(|f| (f["path"].as_str().unwrap(), f["line"].as_u64()))
        .collect();
    assert_eq!(found, [("01_CLIENTS/Keyed.md", Some(8))], "{v}");
}

/// `./X`, `X//` and `X\Y` name what `X/Y` names: the filter keeps the
/// same findings, rather than none (a false pass in CI).
#[test]
fn a_path_filter_written_another_way_keeps_the_same_findings() {
    let (plain, plain_code) = json(&["check", FIXTURE, "--path", "01_CLIENTS", "--json"]);
    assert!(
        !findings(&plain).is_empty(),
        "the fixture has client findings"
    );
    for other in ["./01_CLIENTS", "01_CLIENTS//", "./01_CLIENTS/./"] {
        let (v, code) = json(&["check", FIXTURE, "--path", other, "--json"]);
        assert_eq!(findings(&v), findings(&plain), "--path {other}");
        assert_eq!(code, plain_code, "--path {other}");
    }
    let (whole, _) = json(&["check", FIXTURE, "--json"]);
    let (dot, _) = json(&["check", FIXTURE, "--path", ".", "--json"]);
    assert_eq!(findings(&dot), findings(&whole), "`.` is the whole bank");
}

/// A code no check of the layout gives is refused in every layout, as a
/// bank's is, rather than answered with "No problems found".
#[test]
fn an_unknown_code_is_refused_for_a_project_and_a_memory_root() {
    for root in [
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/dejavu/flawed-project"
        ),
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/everos-root"),
    ] {
        let out = membank(&["check", root, "--code", "no-such-code"]);
        assert_eq!(out.status.code(), Some(2), "{root}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("unknown finding code"), "{err}");
        assert!(out.stdout.is_empty());
    }
    let known = membank(&[
        "check",
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/dejavu/flawed-project"
        ),
        "--code",
        "invalid-jsonl",
    ]);
    assert_ne!(known.status.code(), Some(2));
}

/// Pages of the readable report list, in turn, what the whole readable
/// report lists: a page is cut from its order (severity, then code), not
/// from the JSON's.
#[test]
fn readable_pages_follow_the_readable_report() {
    let bank = FIXTURE;
    // The finding lines: a path with its line, indented four spaces.
    let listed = |args: &[&str]| -> Vec<String> {
        let out = membank(args);
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with("    ") && !l.starts_with("     "))
            .map(str::to_owned)
            .collect()
    };
    let whole = listed(&["check", bank, "--color", "never"]);
    assert!(whole.len() > 12, "{whole:?}");
    let mut paged = Vec::new();
    for offset in (0..whole.len()).step_by(4) {
        let offset = offset.to_string();
        paged.extend(listed(&[
            "check", bank, "--color", "never", "--offset", &offset, "--limit", "4",
        ]));
    }
    assert_eq!(paged, whole);
}

#[test]
fn an_offset_past_the_end_says_so() {
    let out = membank(&["check", FIXTURE, "--color", "never", "--offset", "5000"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("No findings listed: --offset 5000 is past the last of the"),
        "{text}"
    );
}
