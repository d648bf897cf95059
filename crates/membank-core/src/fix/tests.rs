use std::fs;
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::health::{self, HealthOptions};
use crate::transaction::{Kind, Stopped, Transaction};

/// A bank with every folder, holding `files`.
fn bank_with(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in Folder::ALL {
        fs::create_dir_all(dir.path().join(folder.dir_name())).unwrap();
    }
    for (path, bytes) in files {
        fs::write(dir.path().join(path), bytes).unwrap();
    }
    dir
}

fn findings(root: &Path, codes: &[&str]) -> Vec<Finding> {
    let bank = Bank::load(root).unwrap();
    let today = jiff::civil::date(2026, 4, 8);
    health::check(&bank, &HealthOptions::as_of(today))
        .findings
        .into_iter()
        .filter(|f| codes.contains(&f.code()))
        .collect()
}

fn proposal(root: &Path, codes: &[&str]) -> FixProposal {
    let bank = Bank::load(root).unwrap();
    propose(&bank, &findings(root, codes), &jiff::tz::TimeZone::UTC)
}

/// The one change proposed for `path`, as bytes.
fn changed(p: &FixProposal, path: &str) -> Vec<u8> {
    let fix = p.fixes.iter().find(|f| f.path == path).expect("no fix");
    match &fix.action {
        Action::Change { after, .. } => after.clone(),
        other => panic!("not a change: {other:?}"),
    }
}

const CLIENT: &str = "01_CLIENTS/Acme.md";
const TERM: &str = "02_TERMINOLOGY/contract → overeenkomst.md";

#[test]
fn the_fence_lines_go_and_every_other_byte_stays() {
    let file = "```markdown\r\n---\r\nlast_updated: 2026-04-08 # by hand\r\nclient: \"Acme\"\r\n\
                languages: [en]\r\n---\r\n# Acme\r\nBody\r\n```\r\nPasted remark\r\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    let p = proposal(dir.path(), &["fenced-frontmatter"]);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\r\nlast_updated: 2026-04-08 # by hand\r\nclient: \"Acme\"\r\nlanguages: [en]\r\n\
         ---\r\n# Acme\r\nBody\r\nPasted remark\r\n"
    );
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(p.fixes[0].codes, vec!["fenced-frontmatter"]);
}

#[test]
fn blank_lines_before_the_fence_go_with_it_so_the_frontmatter_starts_the_file() {
    let file = "\n\n```markdown\n---\nclient: Acme\nlanguages: [en]\nlast_updated: 2026-4-8\n---\n# Acme\n```\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    let p = proposal(dir.path(), &["fenced-frontmatter", "bad-date"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nclient: Acme\nlanguages: [en]\nlast_updated: 2026-04-08\n---\n# Acme\n"
    );
}

#[test]
fn a_file_holding_a_credential_is_left_with_a_reason_that_reads() {
    let file = "---\nclient: Acme\nlanguages: [en]\nlast_updated: 2026-4-8\n---\naws AKIAIOSFODNN7EXAMPLE.\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    let p = proposal(dir.path(), &["bad-date"]);
    assert!(p.fixes.is_empty(), "{:?}", p.fixes);
    assert!(
        p.remaining[0]
            .reason
            .starts_with("the file holds what looks like an AWS"),
        "{:?}",
        p.remaining
    );
}

#[test]
fn the_byte_order_mark_is_dropped_and_nothing_else() {
    let text =
        "---\r\nlast_updated: '2026-04-08'\r\nclient: Acme\r\nlanguages: [en]\r\n---\r\nÉtude\r\n";
    let mut bytes = BOM.to_vec();
    bytes.extend_from_slice(text.as_bytes());
    let dir = bank_with(&[(CLIENT, &bytes)]);
    let p = proposal(dir.path(), &["bom"]);
    assert_eq!(changed(&p, CLIENT), text.as_bytes());
    // Only the encoding changed: no text diff to show, a note instead.
    assert_eq!(p.fixes[0].diff(), None);
    assert_eq!(p.fixes[0].notes, vec!["drop the byte-order mark"]);
}

#[test]
fn utf16_is_saved_as_utf8_with_its_line_endings() {
    let text =
        "---\r\nlast_updated: 2026-04-08\r\nclient: Acme\r\nlanguages: [nl]\r\n---\r\nReçu\r\n";
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    let dir = bank_with(&[(CLIENT, &bytes)]);
    let p = proposal(dir.path(), &["utf16"]);
    assert_eq!(changed(&p, CLIENT), text.as_bytes());
}

#[test]
fn windows_1252_is_decoded_and_its_accented_words_are_shown() {
    let bytes = b"---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages: [fr]\n---\nLe caf\xe9 est \x93na\xefve\x94.\n";
    let dir = bank_with(&[(CLIENT, bytes)]);
    let p = proposal(dir.path(), &["not-utf8"]);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages: [fr]\n---\nLe café est “naïve”.\n"
    );
    let note = &p.fixes[0].notes[0];
    assert!(note.contains("café, naïve"), "{note}");
}

#[test]
fn a_file_mixing_utf8_and_windows_1252_is_not_guessed() {
    let bytes = "---\nlast_updated: 2026-04-08\n---\nCafé \u{e9}"
        .bytes()
        .chain(*b" caf\xe9\n")
        .collect::<Vec<u8>>();
    let dir = bank_with(&[(CLIENT, &bytes)]);
    let p = proposal(dir.path(), &["not-utf8"]);
    assert!(p.fixes.is_empty());
    assert!(p.remaining[0].reason.contains("mixes"), "{:?}", p.remaining);
}

#[test]
fn a_date_is_padded_inside_its_quotes_and_an_ambiguous_one_is_left() {
    let file = "---\r\nclient: Acme\r\nlast_updated: \"2026-4-8\" # set by hand\r\nlanguages: [en]\r\n---\r\nBody\r\n";
    let other = "---\nlast_updated: 08/04/2026\nclient: Beta\nlanguages: [en]\n---\n";
    let dir = bank_with(&[
        (CLIENT, file.as_bytes()),
        ("01_CLIENTS/Beta.md", other.as_bytes()),
    ]);
    let p = proposal(dir.path(), &["bad-date"]);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        file.replace("2026-4-8", "2026-04-08")
    );
    assert_eq!(p.fixes.len(), 1);
    assert_eq!(p.remaining.len(), 1);
    assert_eq!(p.remaining[0].path, "01_CLIENTS/Beta.md");
    assert!(p.remaining[0].reason.contains("does not guess"));
}

/// With `follow_links_out` the bank reads the notes of a folder linked in
/// from outside it; nothing is written through the link, so the plan
/// leaves them out (saying why) and the bank's own fixes are written.
#[cfg(unix)]
#[test]
fn notes_in_a_linked_folder_are_left_out_of_the_plan() {
    let file = "---\nclient: Acme\nlast_updated: 2026-4-8\nlanguages: [en]\n---\nBody\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    let outside = tempfile::tempdir().unwrap();
    let ext = "---\nclient: Ext\nlast_updated: 2026-1-5\nlanguages: [en]\n---\nBody\n";
    fs::write(outside.path().join("Ext.md"), ext).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("01_CLIENTS/shared")).unwrap();
    let open = crate::safe_read::ReadPolicy {
        follow_links_out: true,
        ..Default::default()
    };
    let bank = Bank::load_with(dir.path(), open).unwrap();
    assert!(bank.find("01_CLIENTS/shared/Ext.md").is_some());
    let today = jiff::civil::date(2026, 4, 8);
    let found: Vec<Finding> = health::check(&bank, &HealthOptions::as_of(today))
        .findings
        .into_iter()
        .filter(|f| f.code() == "bad-date")
        .collect();
    let p = propose(&bank, &found, &jiff::tz::TimeZone::UTC);
    assert_eq!(
        p.fixes.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
        vec![CLIENT]
    );
    assert_eq!(p.remaining.len(), 1, "{:?}", p.remaining);
    assert_eq!(p.remaining[0].path, "01_CLIENTS/shared/Ext.md");
    assert!(
        p.remaining[0]
            .reason
            .contains("reached through the symbolic link 01_CLIENTS/shared"),
        "{}",
        p.remaining[0].reason
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    assert!(
        fs::read_to_string(dir.path().join(CLIENT))
            .unwrap()
            .contains("2026-04-08")
    );
    assert_eq!(
        fs::read_to_string(outside.path().join("Ext.md")).unwrap(),
        ext
    );
}

/// A symbolic link to another note is read with that note's findings, but
/// nothing is written through it: the note is fixed at its own path, and
/// the link's findings are left with why (the write would refuse them all).
#[cfg(unix)]
#[test]
fn a_symbolic_link_to_a_note_is_not_fixed_through() {
    let file = "---\nclient: Acme\nlast_updated: 2026-4-8\nlanguages: [en]\n---\nBody\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    std::os::unix::fs::symlink(
        "../01_CLIENTS/Acme.md",
        dir.path().join("04_STYLE/Alias.md"),
    )
    .unwrap();
    let p = proposal(dir.path(), &["bad-date"]);
    assert_eq!(p.fixes.len(), 1, "{:?}", p.fixes);
    assert_eq!(p.fixes[0].path, CLIENT);
    assert_eq!(p.remaining.len(), 1, "{:?}", p.remaining);
    assert!(p.remaining[0].reason.contains("symbolic link"));
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    assert!(
        fs::read_to_string(dir.path().join("04_STYLE/Alias.md"))
            .unwrap()
            .contains("2026-04-08")
    );
}

fn term(status: &str, langs: &str) -> String {
    format!(
        "---\nterm_source: contract\nterm_target: overeenkomst\n{langs}status: {status}\n\
         last_updated: 2026-04-08\n---\n# contract\n"
    )
}

#[test]
fn a_status_is_lower_cased_with_its_quotes() {
    let file = term("'Approved'  # agreed", "source_lang: en\ntarget_lang: nl\n");
    let dir = bank_with(&[(TERM, file.as_bytes())]);
    let p = proposal(dir.path(), &["bad-status"]);
    assert_eq!(
        String::from_utf8(changed(&p, TERM)).unwrap(),
        file.replace("'Approved'", "'approved'")
    );
    let dir = bank_with(&[(
        TERM,
        term("maybe", "source_lang: en\ntarget_lang: nl\n").as_bytes(),
    )]);
    let p = proposal(dir.path(), &["bad-status"]);
    assert!(p.fixes.is_empty());
    assert!(p.remaining[0].reason.contains("choose one"));
}

#[test]
fn language_names_and_underscores_become_codes_from_the_table() {
    let file = term("approved", "source_lang: en_US\ntarget_lang: \"Dutch\"\n");
    let dir = bank_with(&[(TERM, file.as_bytes())]);
    let p = proposal(dir.path(), &["bad-language-code"]);
    assert_eq!(
        String::from_utf8(changed(&p, TERM)).unwrap(),
        file.replace("en_US", "en-US")
            .replace("\"Dutch\"", "\"nl\"")
    );
    let list =
        "---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages:\n  - English\n  - nl_BE\n---\n";
    let dir = bank_with(&[(CLIENT, list.as_bytes())]);
    let p = proposal(dir.path(), &["bad-language-code"]);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        list.replace("English", "en").replace("nl_BE", "nl-BE")
    );
    // Norwegian has several codes: no guess.
    let file = term("approved", "source_lang: en\ntarget_lang: Norwegian\n");
    let dir = bank_with(&[(TERM, file.as_bytes())]);
    let p = proposal(dir.path(), &["bad-language-code"]);
    assert!(p.fixes.is_empty());
    assert!(p.remaining[0].reason.contains("Norwegian"));
}

#[test]
fn a_comment_after_a_list_item_stays_and_does_not_stop_its_fix() {
    let file = "---\nclient: Acme\nlanguages:\n  - en_GB → nl-BE  # main pair\n  - en_US → nl-BE\n\
                domains:\n  - [[Legal]]  # main domain\n  - \"[[Tax]]\" # quoted\nlast_updated: 2026-04-08\n---\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    let p = proposal(dir.path(), &["bad-language-code", "unquoted-link"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nclient: Acme\nlanguages:\n  - en-GB → nl-BE  # main pair\n  - en-US → nl-BE\n\
         domains:\n  - \"[[Legal]]\"  # main domain\n  - \"[[Tax]]\" # quoted\nlast_updated: 2026-04-08\n---\n"
    );
}

#[test]
fn a_list_item_left_to_the_author_leaves_the_others_to_be_fixed() {
    let file = "---\nclient: Acme\nlanguages:\n  - en_GB → nl-BE\n  - Norwegian\n  - Klingon Dutch\n\
                last_updated: 2026-04-08\n---\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes())]);
    let p = proposal(dir.path(), &["bad-language-code"]);
    // Half a name is not made a code: “Klingon Dutch” stays whole.
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        file.replace("en_GB", "en-GB")
    );
    let reasons: Vec<&str> = p.remaining.iter().map(|u| u.reason.as_str()).collect();
    assert_eq!(reasons.len(), 2, "{:?}", p.remaining);
    assert!(
        reasons.iter().any(|r| r.contains("no, nb (Bokmål) or nn")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("“Klingon” is not a language name")),
        "{reasons:?}"
    );
    assert!(
        !reasons.iter().any(|r| r.contains("“Norwegian” is not")),
        "{reasons:?}"
    );
}

#[test]
fn a_leftover_is_deleted_a_folder_made_and_the_rest_explained() {
    let dir = bank_with(&[
        ("01_CLIENTS/Acme.md.tmp", b"half a save"),
        (
            "03_DOMAINS/Legal.md",
            b"---\nlast_updated: 2026-04-08\n---\n",
        ),
    ]);
    fs::remove_dir(dir.path().join("04_STYLE")).unwrap();
    let p = proposal(dir.path(), &["tmp-leftover", "missing-folder", "orphan"]);
    let kinds: Vec<(&str, &str)> = p
        .fixes
        .iter()
        .map(|f| (f.path.as_str(), f.kind()))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("01_CLIENTS/Acme.md.tmp", "deleted"),
            ("04_STYLE", "new folder")
        ]
    );
    assert_eq!(p.remaining.len(), 1);
    assert_eq!(p.remaining[0].code, "orphan");
    assert!(p.remaining[0].reason.contains("author"));
}

#[test]
fn fixes_are_written_through_the_transaction_and_the_findings_are_gone() {
    let codes = [
        "bom",
        "bad-date",
        "bad-status",
        "tmp-leftover",
        "missing-folder",
    ];
    let mut bom = BOM.to_vec();
    bom.extend_from_slice(b"---\nlast_updated: 2026-4-8\nclient: Acme\nlanguages: [en]\n---\n");
    let dir = bank_with(&[
        (CLIENT, &bom),
        (
            TERM,
            term("Proposed", "source_lang: en\ntarget_lang: nl\n").as_bytes(),
        ),
        ("02_TERMINOLOGY/x.md.tmp", b"x"),
    ]);
    fs::remove_dir(dir.path().join("05_INDICES")).unwrap();
    let p = proposal(dir.path(), &codes);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    let done = tx.commit_fixes(&p.fixes).unwrap();
    assert_eq!(done.report, vec!["05_INDICES"]);
    assert_eq!(done.changes.len(), 3);
    drop(tx);
    assert_eq!(findings(dir.path(), &codes), Vec::<Finding>::new());
    assert!(!dir.path().join("02_TERMINOLOGY/x.md.tmp").exists());
}

#[test]
fn a_file_changed_after_the_proposal_refuses_every_fix() {
    let file = "---\nlast_updated: 2026-4-8\nclient: Acme\nlanguages: [en]\n---\n";
    let dir = bank_with(&[(CLIENT, file.as_bytes()), ("01_CLIENTS/a.tmp", b"x")]);
    let p = proposal(dir.path(), &["bad-date", "tmp-leftover"]);
    assert_eq!(p.fixes.len(), 2);
    let edited = "---\nlast_updated: 2026-4-8\nclient: Acme Ltd\nlanguages: [en]\n---\n";
    fs::write(dir.path().join(CLIENT), edited).unwrap();
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    let stopped = tx.commit_fixes(&p.fixes).unwrap_err();
    assert_eq!(stopped, Stopped::Stale(vec![CLIENT.to_owned()]));
    assert_eq!(fs::read_to_string(dir.path().join(CLIENT)).unwrap(), edited);
    // Not even the untouched leftover went.
    assert!(dir.path().join("01_CLIENTS/a.tmp").exists());
}

#[cfg(unix)]
#[test]
fn a_leftover_reached_through_a_link_is_never_deleted() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("keep.tmp"), b"precious").unwrap();
    let dir = bank_with(&[]);
    let fix = FileFix {
        path: "01_CLIENTS/out/keep.tmp".into(),
        codes: vec!["tmp-leftover"],
        notes: Vec::new(),
        action: Action::Delete {
            before: b"precious".to_vec(),
        },
    };
    symlink(outside.path(), dir.path().join("01_CLIENTS/out")).unwrap();
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    assert!(tx.commit_fixes(&[fix]).is_err());
    assert!(outside.path().join("keep.tmp").exists());
}

#[test]
fn an_unquoted_link_is_quoted_on_its_line_and_in_a_list() {
    let legal = "---\nlast_updated: 2026-04-08\ndomain: Legal\n---\n";
    let file = "---\r\nlast_updated: 2026-04-08\r\nclient: Acme\r\nlanguages: [en]\r\n\
                domains: [[Legal]]  # main\r\n---\r\n";
    let list = "---\nlast_updated: 2026-04-08\nclient: Beta\nlanguages: [en]\ndomains:\n  \
                - [[Legal]]\n  - \"[[Legal|law]]\"\n---\n";
    let dir = bank_with(&[
        ("03_DOMAINS/Legal.md", legal.as_bytes()),
        (CLIENT, file.as_bytes()),
        ("01_CLIENTS/Beta.md", list.as_bytes()),
    ]);
    let p = proposal(dir.path(), &["unquoted-link"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        file.replace("[[Legal]]", "\"[[Legal]]\"")
    );
    assert_eq!(
        String::from_utf8(changed(&p, "01_CLIENTS/Beta.md")).unwrap(),
        list.replace("- [[Legal]]", "- \"[[Legal]]\"")
    );
}

#[test]
fn a_missing_key_gets_the_value_the_file_gives_or_is_listed_as_needing_one() {
    let file =
        "---\r\n# keys by hand\r\nsource_lang: en\r\ntarget_lang: nl\r\n---\r\n# contract\r\n";
    let client = "---\nclient:\nlast_updated: 2026-04-08\n---\n";
    let dir = bank_with(&[(TERM, file.as_bytes()), (CLIENT, client.as_bytes())]);
    // Noon UTC on a known day: the date taken in UTC.
    let noon = std::time::UNIX_EPOCH + Duration::from_secs(1_741_608_000);
    fs::File::options()
        .write(true)
        .open(dir.path().join(TERM))
        .unwrap()
        .set_modified(noon)
        .unwrap();
    let p = proposal(dir.path(), &["missing-key"]);
    assert_eq!(
        String::from_utf8(changed(&p, TERM)).unwrap(),
        "---\r\n# keys by hand\r\nsource_lang: en\r\ntarget_lang: nl\r\n\
         term_source: contract\r\nterm_target: overeenkomst\r\nstatus: proposed\r\n\
         last_updated: 2025-03-10\r\n---\r\n# contract\r\n"
    );
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nclient: Acme\nlast_updated: 2026-04-08\nlanguages: [\"en → nl\"]\n---\n"
    );
    // No value to be had: listed, never a placeholder.
    let left: Vec<(&str, &str)> = p
        .remaining
        .iter()
        .map(|u| (u.path.as_str(), u.reason.as_str()))
        .collect();
    assert!(
        left.iter()
            .any(|(path, r)| *path == TERM && r.starts_with("clients needs a value")),
        "{left:?}"
    );
    // The file fixed has no missing key left that could be filled.
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    let after: Vec<String> = findings(dir.path(), &["missing-key"])
        .iter()
        .filter(|f| &*f.path == TERM)
        .map(|f| f.message().into_owned())
        .collect();
    assert!(
        after
            .iter()
            .all(|m| !m.contains("term_") && !m.contains("status")),
        "{after:?}"
    );
}

#[test]
fn an_ambiguous_link_becomes_the_path_of_the_file_it_opens_now() {
    let legal = "---\nlast_updated: 2026-04-08\ndomain: Legal\n---\n";
    let file = "---\r\nlast_updated: 2026-04-08\r\nclient: Acme\r\nlanguages: [en]\r\n---\r\n\
                See [[Legal]] and [[Legal#Scope|scope]].\r\nEnd\r\n";
    let dir = bank_with(&[
        ("03_DOMAINS/Legal.md", legal.as_bytes()),
        ("04_STYLE/Legal.md", legal.as_bytes()),
        (CLIENT, file.as_bytes()),
    ]);
    // The shorter path is the one the link opens today.
    let p = proposal(dir.path(), &["ambiguous-link"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        file.replace(
            "[[Legal]] and [[Legal#Scope|scope]]",
            "[[04_STYLE/Legal|Legal]] and [[04_STYLE/Legal#Scope|scope]]"
        )
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    assert_eq!(
        findings(dir.path(), &["ambiguous-link"]),
        Vec::<Finding>::new()
    );
}

#[test]
fn a_link_fix_edits_the_link_itself_not_the_same_text_in_code_or_a_comment() {
    let legal = "---\nlast_updated: 2026-04-08\ndomain: Legal\n---\n";
    let file = "---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages: [en]\n---\n\
                Write `[[Legal]]`, for example [[Legal]].\n\
                %%old: [[Legal]]%% now [[Legal]]\n\
                Type `[[Travel & Tourism]]` to link: [[Travel & Tourism]].\n";
    let dir = bank_with(&[
        ("03_DOMAINS/Legal.md", legal.as_bytes()),
        ("04_STYLE/Legal.md", legal.as_bytes()),
        (DOMAIN, DOMAIN_TEXT.as_bytes()),
        (CLIENT, file.as_bytes()),
    ]);
    let p = proposal(dir.path(), &["ambiguous-link", "dead-link"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    // Code spans and comments are text a reader is shown as written.
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages: [en]\n---\n\
         Write `[[Legal]]`, for example [[04_STYLE/Legal|Legal]].\n\
         %%old: [[Legal]]%% now [[04_STYLE/Legal|Legal]]\n\
         Type `[[Travel & Tourism]]` to link: [[Travel and Tourism|Travel & Tourism]].\n"
    );
}

#[test]
fn a_link_left_as_written_leaves_the_others_of_its_line_to_be_fixed() {
    let legal = "---\nlast_updated: 2026-04-08\ndomain: Legal\n---\n";
    let file = "---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages: [en]\n---\n\
                See ![[Legal]], [Legal](Legal.md), [[Legal\\|t]] and [[Legal#Scope]].\n";
    let dir = bank_with(&[
        ("03_DOMAINS/Legal.md", legal.as_bytes()),
        ("04_STYLE/Legal.md", legal.as_bytes()),
        (CLIENT, file.as_bytes()),
    ]);
    let p = proposal(dir.path(), &["ambiguous-link"]);
    // The heading stays in the text shown, as Obsidian showed it.
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        file.replace("[[Legal#Scope]]", "[[04_STYLE/Legal#Scope|Legal > Scope]]")
    );
    // Each finding left gives its own link's reason.
    let reasons: Vec<&str> = p.remaining.iter().map(|u| u.reason.as_str()).collect();
    assert_eq!(reasons.len(), 3, "{:?}", p.remaining);
    assert!(
        reasons.iter().any(|r| r.starts_with("![[Legal]] is left")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.starts_with("[[Legal\\|t]] is left")),
        "{reasons:?}"
    );
    assert!(p.fixes[0].codes.contains(&"ambiguous-link"));
}

#[test]
fn languages_come_from_the_banks_only_pair_and_only_then() {
    let term = term("approved", "source_lang: en-US\ntarget_lang: nl-BE\n");
    let client = "---\nclient: Acme\nlast_updated: 2026-04-08\n---\n";
    let dir = bank_with(&[(TERM, term.as_bytes()), (CLIENT, client.as_bytes())]);
    let p = proposal(dir.path(), &["missing-key"]);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nclient: Acme\nlast_updated: 2026-04-08\nlanguages: [\"en-US → nl-BE\"]\n---\n"
    );
    // A second pair: nothing to choose from.
    let other = "---\nclient: Beta\nlanguages: [\"en → fr\"]\nlast_updated: 2026-04-08\n---\n";
    fs::write(dir.path().join("01_CLIENTS/Beta.md"), other).unwrap();
    let p = proposal(dir.path(), &["missing-key"]);
    assert!(p.fixes.iter().all(|f| f.path != CLIENT), "{:?}", p.fixes);
    assert!(
        p.remaining
            .iter()
            .any(|u| u.path == CLIENT && u.reason.contains("no single language pair")),
        "{:?}",
        p.remaining
    );
}

const DOMAIN: &str = "03_DOMAINS/Travel and Tourism.md";
const DOMAIN_TEXT: &str =
    "---\nlast_updated: 2026-04-08\ndomain: Travel and Tourism\n---\n# Travel\n";

fn with_note(note: &str) -> tempfile::TempDir {
    bank_with(&[(DOMAIN, DOMAIN_TEXT.as_bytes()), (CLIENT, note.as_bytes())])
}

#[test]
fn a_dead_link_to_a_near_miss_is_retargeted_keeping_what_the_reader_sees() {
    let note = "---\nlast_updated: 2026-04-08\nclient: Acme\ndomains: [\"[[Travel & Tourism]]\"]\n---\n\
                # Acme\nSee [[travel & tourism]] and [[Travel & Tourism#Hotels|hotels]].\n";
    let dir = with_note(note);
    let p = proposal(dir.path(), &["dead-link"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nlast_updated: 2026-04-08\nclient: Acme\ndomains: [\"[[Travel and Tourism]]\"]\n---\n\
         # Acme\nSee [[Travel and Tourism|travel & tourism]] and \
         [[Travel and Tourism#Hotels|hotels]].\n"
    );
    let bank = Bank::load(dir.path()).unwrap();
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    drop(bank);
    assert!(findings(dir.path(), &["dead-link"]).is_empty());
}

#[test]
fn a_dead_link_with_no_single_near_miss_or_to_an_attachment_is_left_with_its_reason() {
    let note = "---\nlast_updated: 2026-04-08\nclient: Acme\n---\n# Acme\n\
                [[Future article]]\n![[scan.png]] ![[logo.svg#icon]]\n";
    let dir = with_note(note);
    let p = proposal(dir.path(), &["dead-link"]);
    assert!(p.fixes.is_empty(), "{:?}", p.fixes);
    let reasons: Vec<&str> = p.remaining.iter().map(|u| u.reason.as_str()).collect();
    assert_eq!(reasons.len(), 3, "every finding is listed: {reasons:?}");
    assert!(reasons[0].contains("forward reference"), "{reasons:?}");
    assert!(reasons[1].contains("missing attachment"), "{reasons:?}");
    assert!(reasons[2].contains("missing attachment"), "{reasons:?}");
}

/// A name one letter, digit or accent from an article's is as often
/// another name as a slip: it is suggested, never rewritten, and
/// `--create-missing` leaves it to the author too. A name spelt the same
/// but for spacing is rewritten.
#[test]
fn a_dead_link_an_edit_from_an_article_is_only_suggested() {
    let mut files: Vec<(String, String)> = ["Sliver", "Monkey", "TLS 1.3", "Plane", "Bär", "C"]
        .iter()
        .map(|n| {
            (
                format!("03_DOMAINS/{n}.md"),
                format!("---\ndomain: {n}\nlast_updated: 2026-01-01\n---\nx\n"),
            )
        })
        .collect();
    let note = "---\nlast_updated: 2026-04-08\nclient: Acme\n---\n# Acme\n\
                The [[Liver]] and [[Money]]; [[TLS 1.0]] is old; a [[Plant]], [[Bar]], [[C++]].\n\
                [[travel-and_tourism]]\n";
    files.push((CLIENT.into(), note.into()));
    files.push((DOMAIN.into(), DOMAIN_TEXT.into()));
    let files: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_bytes()))
        .collect();
    let dir = bank_with(&files);
    let bank = Bank::load(dir.path()).unwrap();
    for create_missing in [None, Some(jiff::civil::date(2026, 11, 26))] {
        let opts = Options {
            tz: jiff::tz::TimeZone::UTC,
            checked_today: None,
            create_missing,
            surface: crate::surface::Surface::CommandLine,
        };
        let p = propose_with(&bank, &findings(dir.path(), &["dead-link"]), &opts);
        assert_eq!(p.fixes.len(), 1, "{:?}", p.fixes);
        assert_eq!(
            String::from_utf8(changed(&p, CLIENT)).unwrap(),
            note.replace(
                "[[travel-and_tourism]]",
                "[[Travel and Tourism|travel-and_tourism]]"
            )
        );
        let reasons: Vec<&str> = p.remaining.iter().map(|u| u.reason.as_str()).collect();
        assert_eq!(reasons.len(), 6, "{reasons:?}");
        for meant in ["Sliver", "Monkey", "TLS 1.3", "Plane", "Bär", "C"] {
            assert!(
                reasons
                    .iter()
                    .any(|r| r.contains(&format!("did you mean “{meant}”?"))),
                "{meant}: {reasons:?}"
            );
        }
    }
}

/// Two dead links on one line are two findings, each about its own link:
/// the near miss is retargeted though the other cannot be, and the other
/// is left naming itself, not its neighbour.
#[test]
fn dead_links_sharing_a_line_are_fixed_and_left_each_on_its_own() {
    let note = "---\nlast_updated: 2026-04-08\nclient: Acme\n---\n# Acme\n\
                See [[Future article]] and [[travel & tourism]].\n";
    let dir = with_note(note);
    let p = proposal(dir.path(), &["dead-link"]);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        note.replace(
            "[[travel & tourism]]",
            "[[Travel and Tourism|travel & tourism]]"
        )
    );
    assert_eq!(p.remaining.len(), 1, "{:?}", p.remaining);
    assert!(
        p.remaining[0].reason.contains("“Future article”"),
        "{:?}",
        p.remaining
    );

    // Asked to create what is missing, each gets its own article.
    let two = "---\nlast_updated: 2026-04-08\nclient: Acme\n---\n# Acme\n\
               See [[Normal New]] and [[Other New]].\n";
    let dir = with_note(two);
    let bank = Bank::load(dir.path()).unwrap();
    let opts = Options {
        tz: jiff::tz::TimeZone::UTC,
        checked_today: None,
        create_missing: Some(jiff::civil::date(2026, 11, 26)),
        surface: crate::surface::Surface::CommandLine,
    };
    let p = propose_with(&bank, &findings(dir.path(), &["dead-link"]), &opts);
    let made: Vec<&str> = p.fixes.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        made,
        ["01_CLIENTS/Normal New.md", "01_CLIENTS/Other New.md"]
    );
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
}

#[test]
fn stale_is_marked_checked_today_only_when_asked_and_nothing_else_moves() {
    let note = "---\nlast_updated: '2020-01-02' # reviewed by Ann\nclient: Acme\n---\n# Acme\n";
    let dir = with_note(note);
    let bank = Bank::load(dir.path()).unwrap();
    let found = findings(dir.path(), &["stale"]);
    assert_eq!(found.len(), 1);
    let untouched = propose(&bank, &found, &jiff::tz::TimeZone::UTC);
    assert!(untouched.fixes.is_empty());
    assert!(untouched.remaining[0].reason.contains("--code stale"));
    let opts = Options {
        tz: jiff::tz::TimeZone::UTC,
        checked_today: Some(jiff::civil::date(2026, 11, 26)),
        create_missing: None,
        surface: crate::surface::Surface::CommandLine,
    };
    let p = propose_with(&bank, &found, &opts);
    assert_eq!(
        String::from_utf8(changed(&p, CLIENT)).unwrap(),
        "---\nlast_updated: '2026-11-26' # reviewed by Ann\nclient: Acme\n---\n# Acme\n"
    );
}

fn moved_to(p: &FixProposal, path: &str) -> String {
    let fix = p.fixes.iter().find(|f| f.path == path).expect("no fix");
    match &fix.action {
        Action::Move { to, before, after } => {
            assert_eq!(before, after, "a move alone keeps the bytes");
            to.clone()
        }
        other => panic!("not a move: {other:?}"),
    }
}

#[test]
fn a_template_under_its_old_name_is_renamed_and_then_found_by_its_agent() {
    let dir = bank_with(&[("06_TEMPLATES/translate_with_kb.md", b"My prompt\n")]);
    let p = proposal(dir.path(), &["renamed-template"]);
    assert_eq!(
        moved_to(&p, "06_TEMPLATES/translate_with_kb.md"),
        "06_TEMPLATES/translate_with_memory_bank.md"
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    assert_eq!(
        fs::read(
            dir.path()
                .join("06_TEMPLATES/translate_with_memory_bank.md")
        )
        .unwrap(),
        b"My prompt\n"
    );
    assert!(findings(dir.path(), &["renamed-template"]).is_empty());
}

#[test]
fn a_compiled_note_is_archived_only_when_every_article_it_made_exists() {
    let made =
        "---\ncompiled: true\ncompiled_to:\n  - 03_DOMAINS/Travel and Tourism.md\n---\nnote\n";
    let lost = "---\ncompiled: true\ncompiled_to: [\"[[Gone]]\"]\n---\nnote\n";
    let dir = bank_with(&[
        (DOMAIN, DOMAIN_TEXT.as_bytes()),
        ("00_INBOX/made.md", made.as_bytes()),
        ("00_INBOX/lost.md", lost.as_bytes()),
    ]);
    let p = proposal(dir.path(), &["compiled-not-archived"]);
    assert_eq!(
        moved_to(&p, "00_INBOX/made.md"),
        "00_INBOX/_archive/made.md"
    );
    assert_eq!(p.remaining.len(), 1);
    assert_eq!(p.remaining[0].path, "00_INBOX/lost.md");
    assert!(
        p.remaining[0].reason.contains("[[Gone]]"),
        "{:?}",
        p.remaining
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    assert!(dir.path().join("00_INBOX/_archive/made.md").is_file());
    assert!(!dir.path().join("00_INBOX/made.md").exists());
}

#[test]
fn a_note_archived_and_edited_at_once_is_one_note_with_every_fix() {
    // A short date and a byte-order mark on a compiled note: its edits
    // travel with the move, or the archive gets the old bytes and the
    // inbox keeps a second, fixed copy.
    let mut note = BOM.to_vec();
    note.extend_from_slice(
        b"---\ncompiled: true\ncompiled_date: 2026-4-2\ncompiled_to: [\"03_DOMAINS/Travel and Tourism.md\"]\n---\nnote\n",
    );
    let dir = bank_with(&[
        (DOMAIN, DOMAIN_TEXT.as_bytes()),
        ("00_INBOX/batch.md", &note),
    ]);
    let p = proposal(dir.path(), &["compiled-not-archived", "bad-date", "bom"]);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    assert_eq!(p.fixes.len(), 1, "{:?}", p.fixes);
    assert_eq!(
        p.fixes[0].codes,
        vec!["bom", "bad-date", "compiled-not-archived"]
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    assert!(!dir.path().join("00_INBOX/batch.md").exists());
    assert_eq!(
        fs::read_to_string(dir.path().join("00_INBOX/_archive/batch.md")).unwrap(),
        "---\ncompiled: true\ncompiled_date: 2026-04-02\ncompiled_to: [\"03_DOMAINS/Travel and Tourism.md\"]\n---\nnote\n"
    );
}

#[test]
fn a_folder_or_archive_the_write_would_refuse_is_not_offered() {
    let note =
        "---\ncompiled: true\ncompiled_to: [\"03_DOMAINS/Travel and Tourism.md\"]\n---\nnote\n";
    let dir = bank_with(&[
        (DOMAIN, DOMAIN_TEXT.as_bytes()),
        ("00_INBOX/batch.md", note.as_bytes()),
    ]);
    fs::remove_dir(dir.path().join("05_INDICES")).unwrap();
    fs::write(dir.path().join("05_INDICES"), "x\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path(), dir.path().join("00_INBOX/_archive")).unwrap();
    #[cfg(not(unix))]
    fs::write(dir.path().join("00_INBOX/_archive"), "x\n").unwrap();
    let found = findings(dir.path(), &["missing-folder", "compiled-not-archived"]);
    assert!(
        found[..].iter().any(|f| f.code() == "missing-folder"
            && f.message()
                .contains("A file named 05_INDICES is in its place")),
        "{found:?}"
    );
    let p = proposal(dir.path(), &["missing-folder", "compiled-not-archived"]);
    assert!(p.fixes.is_empty(), "{:?}", p.fixes);
    let reasons: Vec<(&str, &str)> = p
        .remaining
        .iter()
        .map(|u| (u.code, u.reason.as_str()))
        .collect();
    assert!(
        reasons
            .iter()
            .any(|(c, r)| *c == "missing-folder" && r.contains("a file named 05_INDICES")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(c, r)| *c == "compiled-not-archived" && r.contains("00_INBOX/_archive is a")),
        "{reasons:?}"
    );
}

#[test]
fn a_forward_reference_is_created_only_when_asked_in_the_folder_its_use_implies() {
    let note = "---\nlast_updated: 2026-04-08\nclient: Acme\ndomains:\n  - \"[[Maritime Law]]\"\n---\n\
                # Acme\nSee [[Shipping Notes]] and again [[Shipping Notes]].\n";
    let dir = with_note(note);
    let bank = Bank::load(dir.path()).unwrap();
    let found = findings(dir.path(), &["dead-link"]);
    assert_eq!(found.len(), 3, "{found:?}");
    let plain = propose(&bank, &found, &jiff::tz::TimeZone::UTC);
    assert!(plain.fixes.is_empty(), "nothing is created unless asked");
    let opts = Options {
        tz: jiff::tz::TimeZone::UTC,
        checked_today: None,
        create_missing: Some(jiff::civil::date(2026, 11, 26)),
        surface: crate::surface::Surface::CommandLine,
    };
    let p = propose_with(&bank, &found, &opts);
    assert!(p.remaining.is_empty(), "{:?}", p.remaining);
    let made: Vec<(&str, &str)> = p
        .fixes
        .iter()
        .map(|f| (f.path.as_str(), f.kind()))
        .collect();
    assert_eq!(
        made,
        [
            ("01_CLIENTS/Shipping Notes.md", "new"),
            ("03_DOMAINS/Maritime Law.md", "new")
        ]
    );
    let Action::Create { after } = &p.fixes[1].action else {
        panic!("not a create")
    };
    let text = String::from_utf8(after.clone()).unwrap();
    assert!(
        text.contains("domain: Maritime Law") || text.contains("domain: \"Maritime Law\""),
        "{text}"
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&p.fixes).unwrap();
    drop(tx);
    assert!(findings(dir.path(), &["dead-link"]).is_empty());
}

#[test]
fn a_link_not_created_when_asked_says_why_not_to_ask() {
    let note = "---\nlast_updated: 2026-04-08\nclient: Acme\nlanguages: [en]\n---\n\
                See [[05_INDICES/Overview]], [[../Outside]] and [[.hidden]].\n";
    let dir = with_note(note);
    let bank = Bank::load(dir.path()).unwrap();
    let found = findings(dir.path(), &["dead-link"]);
    let opts = Options {
        tz: jiff::tz::TimeZone::UTC,
        checked_today: None,
        create_missing: Some(jiff::civil::date(2026, 11, 26)),
        surface: crate::surface::Surface::CommandLine,
    };
    let p = propose_with(&bank, &found, &opts);
    assert!(p.fixes.is_empty(), "{:?}", p.fixes);
    assert!(!p.remaining.is_empty());
    for left in &p.remaining {
        assert!(
            !left.reason.contains("--create-missing`"),
            "advice to do what was done: {left:?}"
        );
    }
    assert!(
        p.remaining
            .iter()
            .any(|u| u.reason.contains("“05_INDICES/Overview” is a path")),
        "{:?}",
        p.remaining
    );
}

#[test]
fn a_missing_article_goes_where_its_name_and_neighbours_say_not_where_the_link_is() {
    let client = "---\nlast_updated: 2026-04-08\nclient: Acme\n---\n# Acme\n\
                  ## Terminology decisions\n- [[crossing → traversée]]\n\n\
                  ## Markets\n- [[Travel and Tourism]]\n- [[Ferries]]\n";
    let index = "---\nlast_updated: 2026-04-08\n---\n# Index\n- [[deed → akte]]\n- [[Elsewhere]]\n";
    let dir = bank_with(&[
        (DOMAIN, DOMAIN_TEXT.as_bytes()),
        (CLIENT, client.as_bytes()),
        ("05_INDICES/Index.md", index.as_bytes()),
    ]);
    let bank = Bank::load(dir.path()).unwrap();
    let found = findings(dir.path(), &["dead-link"]);
    let opts = Options {
        tz: jiff::tz::TimeZone::UTC,
        checked_today: None,
        create_missing: Some(jiff::civil::date(2026, 11, 26)),
        surface: crate::surface::Surface::CommandLine,
    };
    let p = propose_with(&bank, &found, &opts);
    let made: Vec<&str> = p.fixes.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(
        made,
        [
            "02_TERMINOLOGY/crossing → traversée.md",
            "02_TERMINOLOGY/deed → akte.md",
            "03_DOMAINS/Ferries.md",
        ]
    );
    let Action::Create { after } = &p.fixes[0].action else {
        panic!("not a create")
    };
    let text = String::from_utf8(after.clone()).unwrap();
    assert!(text.contains("term_source: \"crossing\""), "{text}");
    assert!(text.contains("term_target: \"traversée\""), "{text}");
    assert!(!text.contains("client:"), "{text}");
    // An index's plain name tells no folder: left to the author.
    assert_eq!(p.remaining.len(), 1, "{:?}", p.remaining);
    assert_eq!(p.remaining[0].path, "05_INDICES/Index.md");
}
