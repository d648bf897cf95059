//! `membank fix` end to end: shown without `--yes`, written with it, and
//! the findings fixed are gone from `membank check` afterwards.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

/// A fixed day, so no finding depends on when the tests run.
const TODAY: &str = "2026-04-08";

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .args(["--today", TODAY])
        .output()
        .expect("membank runs")
}

fn json(args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(&membank(args))
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

/// Every file and folder under `root` with its bytes (folders: empty).
/// Two domains linking each other, with a byte-order mark, a short date,
/// a term with a capitalised status, a leftover and a missing folder:
/// every finding has a fix.
fn flawed_bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(d.path().join(f)).unwrap();
    }
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        b"\xEF\xBB\xBF---\r\ndomain: Legal\r\nlanguages: [en]\r\nlast_updated: \"2026-4-1\"\r\n---\r\n[[Tax]] [[contract]]\r\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Tax.md",
        b"---\ndomain: Tax\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    write(
        d.path(),
        "02_TERMINOLOGY/contract.md",
        b"---\nterm_source: contract\nterm_target: overeenkomst\nsource_lang: en\n\
          target_lang: nl\nstatus: Approved # agreed\ndomain: \"[[Legal]]\"\nclients: [Acme]\n\
          last_updated: 2026-04-01\n---\n",
    );
    write(d.path(), "03_DOMAINS/Tax.md.tmp", b"half a save");
    d
}

#[test]
fn nothing_is_written_without_yes_and_with_it_check_finds_nothing_more() {
    let dir = flawed_bank();
    let bank = dir.path().to_str().unwrap();
    let (before_check, _) = json(&["check", bank, "--json"]);
    let codes: Vec<&str> = before_check["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    for code in [
        "bom",
        "bad-date",
        "bad-status",
        "tmp-leftover",
        "missing-folder",
    ] {
        assert!(codes.contains(&code), "{code} not found: {codes:?}");
    }

    let untouched = support::tree(dir.path());
    let (v, code) = json(&["fix", bank, "--json"]);
    assert_eq!(code, Some(1), "fixes shown but not written: {v}");
    assert_eq!(v["written"], false);
    assert_eq!(v["remaining"], serde_json::json!([]), "{v}");
    let fixes: Vec<(&str, &str)> = v["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["action"].as_str().unwrap()))
        .collect();
    assert_eq!(
        fixes,
        vec![
            ("02_TERMINOLOGY/contract.md", "changed"),
            ("03_DOMAINS/Legal.md", "changed"),
            ("03_DOMAINS/Tax.md.tmp", "deleted"),
            ("04_STYLE", "new folder"),
        ]
    );
    assert_eq!(
        support::tree(dir.path()),
        untouched,
        "written without --yes"
    );

    let out = membank(&["fix", bank, "--yes"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let (after, code) = json(&["check", bank, "--json"]);
    assert_eq!(after["findings"], serde_json::json!([]), "{after}");
    assert_eq!(code, Some(0));
    // Only the bytes a fix must change did change.
    assert_eq!(
        fs::read(dir.path().join("03_DOMAINS/Legal.md")).unwrap(),
        b"---\r\ndomain: Legal\r\nlanguages: [en]\r\nlast_updated: \"2026-04-01\"\r\n---\r\n[[Tax]] [[contract]]\r\n"
    );
    assert!(
        fs::read_to_string(dir.path().join("02_TERMINOLOGY/contract.md"))
            .unwrap()
            .contains("\nstatus: approved # agreed\n")
    );
    assert!(dir.path().join("04_STYLE").is_dir());
    assert!(!dir.path().join("03_DOMAINS/Tax.md.tmp").exists());
}

#[test]
fn the_review_shows_each_change_and_says_nothing_was_written() {
    let dir = flawed_bank();
    let out = membank(&[
        "fix",
        dir.path().to_str().unwrap(),
        "--code",
        "bad-date",
        "--color",
        "never",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("changed    03_DOMAINS/Legal.md (bad-date)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("“2026-4-1” becomes “2026-04-01”"),
        "{stdout}"
    );
    assert!(stdout.contains("+last_updated: \"2026-04-01\""), "{stdout}");
    assert!(stdout.contains("Nothing was written"), "{stdout}");
    // Only the code asked for.
    assert!(!stdout.contains("contract.md"), "{stdout}");
}

#[test]
fn findings_without_a_fix_are_listed_with_the_reason() {
    let dir = flawed_bank();
    let bank = dir.path().to_str().unwrap();
    write(
        dir.path(),
        "03_DOMAINS/Tax.md",
        b"---\ndomain: Tax\nlanguages: [en]\nlast_updated: 08/04/2026\n---\n[[Legal]] [[Nowhere]]\n",
    );
    let (v, code) = json(&["fix", bank, "--json", "--path", "03_DOMAINS/Tax.md"]);
    assert_eq!(code, Some(1));
    let left: Vec<(&str, &str)> = v["remaining"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["code"].as_str().unwrap(), u["reason"].as_str().unwrap()))
        .collect();
    assert!(
        left.iter()
            .any(|(c, r)| *c == "bad-date" && r.contains("does not guess")),
        "{left:?}"
    );
    assert!(left.iter().any(|(c, _)| *c == "dead-link"), "{left:?}");
    assert_eq!(v["fixes"], serde_json::json!([]), "{v}");
}

#[test]
fn a_deja_vu_project_whose_findings_have_no_fix_is_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("memory")).unwrap();
    write(dir.path(), "memory/summary.md", b"# Summary\n");
    let before = support::tree(dir.path());
    let out = support::membank()
        .args(["fix", dir.path().to_str().unwrap(), "--yes"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("No finding has an automatic fix."),
        "{stdout}"
    );
    assert!(
        stdout.contains("missing-frontmatter") && stdout.contains("author"),
        "{stdout}"
    );
    assert_eq!(support::tree(dir.path()), before);
}

/// A stale domain, a link to it misspelt, and a template under its
/// version-1.0 name.
fn bank_to_tidy() -> tempfile::TempDir {
    let d = flawed_bank();
    write(
        d.path(),
        "03_DOMAINS/Travel and Tourism.md",
        b"---\ndomain: Travel and Tourism\nlanguages: [en]\nlast_updated: 2020-01-02\n---\nHotels\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Tax.md",
        b"---\ndomain: Tax\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]] [[Travel & Tourism]]\n",
    );
    write(
        d.path(),
        "06_TEMPLATES/translate_with_kb.md",
        b"Our prompt\n",
    );
    d
}

#[test]
fn a_misspelt_link_and_an_old_template_name_are_fixed_and_stale_waits_to_be_asked() {
    let dir = bank_to_tidy();
    let bank = dir.path().to_str().unwrap();
    let (v, _) = json(&["fix", bank, "--json"]);
    let remaining: Vec<(&str, &str)> = v["remaining"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| (u["code"].as_str().unwrap(), u["reason"].as_str().unwrap()))
        .collect();
    // Orphan too, until the misspelt link reaches the domain.
    let stale = remaining
        .iter()
        .find(|(code, _)| *code == "stale")
        .expect("stale is left");
    assert!(stale.1.contains("--code stale"), "{v}");
    let template = v["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "06_TEMPLATES/translate_with_kb.md")
        .expect("the template is renamed");
    assert_eq!(template["action"], "moved");
    assert_eq!(template["to"], "06_TEMPLATES/translate_with_memory_bank.md");

    let out = membank(&["fix", bank, "--yes"]);
    assert_eq!(out.status.code(), Some(1), "stale is left: {out:?}");
    assert_eq!(
        fs::read_to_string(dir.path().join("03_DOMAINS/Tax.md")).unwrap(),
        "---\ndomain: Tax\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n\
         [[Legal]] [[Travel and Tourism|Travel & Tourism]]\n"
    );
    assert_eq!(
        fs::read(
            dir.path()
                .join("06_TEMPLATES/translate_with_memory_bank.md")
        )
        .unwrap(),
        b"Our prompt\n"
    );
    assert!(
        !dir.path()
            .join("06_TEMPLATES/translate_with_kb.md")
            .exists()
    );

    let out = membank(&["fix", bank, "--code", "stale", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stale = fs::read_to_string(dir.path().join("03_DOMAINS/Travel and Tourism.md")).unwrap();
    assert!(
        stale.contains(&format!("last_updated: {TODAY}\n")),
        "{stale}"
    );
    let (after, code) = json(&["check", bank, "--json"]);
    assert_eq!(code, Some(0), "{after}");
}

/// Some Windows tools save UTF-16 with no byte-order mark: the article is
/// read, found to be UTF-16, and saved as UTF-8 by the fix.
#[test]
fn an_article_in_utf16_without_a_byte_order_mark_is_read_and_saved_as_utf8() {
    let d = flawed_bank();
    let text = "---\ndomain: Wide\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Tax]]\n";
    let wide: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    write(d.path(), "03_DOMAINS/Wide.md", &wide);
    let root = d.path().to_str().unwrap();
    let (v, _) = json(&["check", root, "--path", "03_DOMAINS/Wide.md", "--json"]);
    let codes: Vec<&str> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    // Read whole: its link and frontmatter count (an orphan is a note).
    assert_eq!(codes, ["utf16", "orphan"], "{v:#}");
    let out = membank(&["fix", root, "--path", "03_DOMAINS/Wide.md", "--yes"]);
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("changed    03_DOMAINS/Wide.md (utf16)"),
        "{said}"
    );
    assert_eq!(out.status.code(), Some(1), "the orphan is left: {said}");
    assert_eq!(
        fs::read_to_string(d.path().join("03_DOMAINS/Wide.md")).unwrap(),
        text
    );
}

/// A bank with every folder, holding `files`.
fn bank_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX/_archive",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(d.path().join(f)).unwrap();
    }
    for (rel, text) in files {
        write(d.path(), rel, text.as_bytes());
    }
    d
}

#[test]
fn what_is_left_after_writing_is_what_a_check_finds_then() {
    // The retargeted link reaches the domain, which is then no orphan.
    let bank = bank_of(&[
        (
            "03_DOMAINS/Travel and Tourism.md",
            "---\ndomain: Travel and Tourism\nlanguages: [\"en-US → nl-BE\"]\nlast_updated: 2026-04-01\n---\n[[Acme]]\n",
        ),
        (
            "01_CLIENTS/Acme.md",
            "---\nclient: Acme\ndomains: [\"[[Travel & Tourism]]\"]\nlanguages: [\"en-US → nl-BE\"]\nlast_updated: 2026-04-01\n---\n# Acme\n",
        ),
    ]);
    let root = bank.path().to_str().unwrap();
    let (before, code) = json(&["fix", root, "--json"]);
    assert_eq!(code, Some(1));
    assert!(
        before["remaining"]
            .as_array()
            .unwrap()
            .iter()
            .any(|u| u["code"] == "orphan"),
        "{before}"
    );
    let (after, code) = json(&["fix", root, "--yes", "--json"]);
    assert_eq!(after["written"], true);
    assert_eq!(after["remaining"], serde_json::json!([]), "{after}");
    assert_eq!(code, Some(0));
}

#[test]
fn stale_is_fixed_by_the_same_days_check_counts() {
    let domain = |name: &str, other: &str| {
        format!(
            "---\ndomain: {name}\nlast_updated: 2026-03-01\nlanguages: [\"en-US → nl-BE\"]\n---\n[[{other}]]\n"
        )
    };
    let (tax, legal) = (domain("Tax", "Legal"), domain("Legal", "Tax"));
    let bank = bank_of(&[("03_DOMAINS/Tax.md", &tax), ("03_DOMAINS/Legal.md", &legal)]);
    let root = bank.path().to_str().unwrap();
    // 2026-03-01 is 38 days before the tests' day: stale only under 30.
    let (v, _) = json(&[
        "fix",
        root,
        "--code",
        "stale",
        "--stale-days",
        "30",
        "--json",
    ]);
    let fixed: Vec<&str> = v["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(fixed, ["03_DOMAINS/Legal.md", "03_DOMAINS/Tax.md"], "{v}");
    let (v, code) = json(&["fix", root, "--code", "stale", "--json"]);
    assert_eq!(v["fixes"], serde_json::json!([]), "{v}");
    assert_eq!(code, Some(0));
}
