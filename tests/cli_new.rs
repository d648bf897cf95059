//! `membank new` and `membank note` end to end: a new article with its
//! folder's keys, a quick capture in the inbox or a Deja Vu ledger, never
//! overwriting, and everos refused.

mod support;

use std::fs;
use std::io::Write as _;
use std::path::Path;
use std::process::{Output, Stdio};

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .args(["--today", support::TODAY])
        .output()
        .expect("membank runs")
}

fn bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = membank(&["init", dir.path().join("bank").to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

#[test]
fn new_writes_the_folders_keys_and_never_overwrites() {
    let dir = bank();
    let root = dir.path().join("bank");
    let r = root.to_str().unwrap();
    let out = membank(&[
        "new",
        r,
        "clients",
        "Acme",
        "--pair",
        "en-US:de-DE",
        "--domain",
        "Legal",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        read(&root, "01_CLIENTS/Acme.md"),
        format!(
            "---\nlast_updated: {}\nclient: \"Acme\"\nlanguages: [\"en-US → de-DE\"]\n\
             domains: [\"[[Legal]]\"]\n---\n# Acme\n\n",
            support::TODAY
        )
    );
    fs::write(root.join("01_CLIENTS/Acme.md"), "mine\n").unwrap();
    let again = membank(&["new", r, "01_CLIENTS", "Acme"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("already exists"));
    assert_eq!(read(&root, "01_CLIENTS/Acme.md"), "mine\n");
}

#[test]
fn new_writes_typed_language_codes_as_check_wants_them_and_names_a_dead_client() {
    let dir = bank();
    let root = dir.path().join("bank");
    let r = root.to_str().unwrap();
    let out = membank(&["new", r, "clients", "Nieuwe Klant", "--pair", "en_us:NL-be"]);
    assert!(out.status.success(), "{out:?}");
    let article = read(&root, "01_CLIENTS/Nieuwe Klant.md");
    assert!(
        article.contains("languages: [\"en-US → nl-BE\"]"),
        "{article}"
    );
    let check = membank(&[
        "check",
        r,
        "--path",
        "01_CLIENTS/Nieuwe Klant.md",
        "--code",
        "bad-language-code",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(v["findings"].as_array().map(Vec::len), Some(0), "{v}");

    // A code that is none is refused before anything is written.
    let bad = membank(&["new", r, "clients", "Other", "--pair", "en:Klingonese"]);
    assert_eq!(bad.status.code(), Some(2));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("“Klingonese” is not a language code"), "{err}");
    assert!(!root.join("01_CLIENTS/Other.md").exists());

    // A client no article answers to is written, and said to be dead.
    let term = membank(&["new", r, "terminology", "deed", "--client", "Acme"]);
    assert!(term.status.success(), "{term:?}");
    let err = String::from_utf8_lossy(&term.stderr);
    assert!(
        err.contains("warning: no article is named “Acme”") && err.contains("[[Acme]]"),
        "{err}"
    );
    let known = membank(&[
        "new",
        r,
        "terminology",
        "lawyer",
        "--client",
        "Nieuwe Klant",
    ]);
    assert!(known.status.success(), "{known:?}");
    assert!(known.stderr.is_empty(), "{known:?}");
}

#[test]
fn note_drops_a_dated_capture_into_the_inbox() {
    let dir = bank();
    let root = dir.path().join("bank");
    let r = root.to_str().unwrap();
    let out = membank(&["note", r, "Acme wants", "Urkunde, not Akte"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let name = format!("00_INBOX/{} Acme wants Urkunde not Akte.md", support::TODAY);
    assert_eq!(read(&root, &name), "Acme wants Urkunde, not Akte\n");
    // The same words again get the next free name.
    let mut child = support::membank()
        .args(["note", r, "--today", support::TODAY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"Acme wants Urkunde not Akte\n")
        .unwrap();
    assert!(child.wait_with_output().unwrap().status.success());
    let second = format!(
        "00_INBOX/{} Acme wants Urkunde not Akte 2.md",
        support::TODAY
    );
    assert_eq!(read(&root, &second), "Acme wants Urkunde not Akte\n");
    assert_eq!(read(&root, &name), "Acme wants Urkunde, not Akte\n");
}

/// A Deja Vu project with an empty memory and this month's event ledger's
/// path (not yet written).
fn dejavu_project() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let memory = dir.path().join("memory");
    fs::create_dir_all(memory.join("events")).unwrap();
    fs::write(memory.join("summary.md"), "# Summary\n").unwrap();
    fs::write(memory.join("impressions.jsonl"), "").unwrap();
    let ledger = memory.join("events/2026-11.md");
    (dir, ledger)
}

#[test]
fn note_in_a_dejavu_project_appends_an_event_line() {
    let (dir, ledger) = dejavu_project();
    fs::write(
        &ledger,
        "# Event Ledger 2026-11\n\n## Events\n\n- `2026-11-02` - `a` - b\n",
    )
    .unwrap();
    let r = dir.path().to_str().unwrap();
    let out = membank(&["note", r, "Moved", "sync", "--tags", "sync,settings"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(&ledger).unwrap(),
        "# Event Ledger 2026-11\n\n## Events\n\n- `2026-11-02` - `a` - b\n\
         - `2026-11-26` - `sync, settings` - Moved sync\n"
    );
}

#[test]
fn a_note_with_a_terminal_escape_is_refused_and_the_ledger_kept() {
    let (dir, ledger) = dejavu_project();
    let before = "# Event Ledger 2026-11\n\n## Events\n\n- `2026-11-02` - `a` - b\n";
    fs::write(&ledger, before).unwrap();
    let r = dir.path().to_str().unwrap();
    let out = membank(&["note", r, "x\u{1b}[31m"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("memory/events/2026-11.md: the event contains the control character U+001B"),
        "{err}"
    );
    assert_eq!(fs::read_to_string(&ledger).unwrap(), before);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Every file under `root` with its bytes.
fn files(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for e in fs::read_dir(root).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files(&p));
        } else {
            out.push((p.clone(), fs::read(&p).unwrap()));
        }
    }
    out.sort();
    out
}

#[test]
fn note_refuses_everos_memory_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-everos"),
        &root,
    );
    let before = files(&root);
    let out = membank(&["note", root.to_str().unwrap(), "hello"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("only reads"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(files(&root), before);
}

/// `note DIR` with `input` on standard input.
fn note_from_stdin(root: &Path, input: &[u8]) -> Output {
    let mut child = support::membank()
        .args(["note", root.to_str().unwrap(), "--today", support::TODAY])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // The run may stop reading once it has seen too much.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_note_over_the_stdin_limit_is_refused_whole_in_a_bank_and_a_project() {
    let big: String = (0..200_000).map(|i| format!("line {i:07}\n")).collect();
    let dir = bank();
    let root = dir.path().join("bank");
    let (project, _) = dejavu_project();
    for root in [root.as_path(), project.path()] {
        let before = files(root);
        let out = note_from_stdin(root, big.as_bytes());
        assert_eq!(out.status.code(), Some(2), "{}", root.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("more than 1 MiB"), "{err}");
        assert!(err.contains("nothing was written"), "{err}");
        assert_eq!(files(root), before);
    }
    // Exactly at the limit is still taken.
    let at_limit = "x".repeat(1 << 20);
    let out = note_from_stdin(&dir.path().join("bank"), at_limit.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn new_refuses_a_name_the_bank_would_skip() {
    let dir = bank();
    let root = dir.path().join("bank");
    let before = files(&root);
    let out = membank(&["new", root.to_str().unwrap(), "clients", "_Acme", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("01_CLIENTS/_Acme.md") && err.contains("skip"),
        "{err}"
    );
    assert_eq!(files(&root), before);
}

#[test]
fn empty_event_tags_are_dropped() {
    for (tags, written) in [
        ("", "note"),
        (",,,", "note"),
        ("sync,,settings,", "sync, settings"),
    ] {
        let (dir, ledger) = dejavu_project();
        let r = dir.path().to_str().unwrap();
        let out = membank(&["note", r, "Moved", "--tags", tags]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            fs::read_to_string(&ledger)
                .unwrap()
                .ends_with(&format!("- `2026-11-26` - `{written}` - Moved\n")),
            "{tags:?}"
        );
    }
}

/// A numbered folder that is a symbolic link is never written through:
/// `new` and `note` name the link, rather than asking to run again, which
/// could never succeed.
#[cfg(unix)]
#[test]
fn a_linked_folder_is_named_as_the_reason_nothing_was_written() {
    let dir = bank();
    let root = dir.path().join("bank");
    let r = root.to_str().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    for folder in ["04_STYLE", "00_INBOX"] {
        fs::rename(root.join(folder), elsewhere.join(folder)).unwrap_or_else(|_| {
            fs::create_dir_all(&elsewhere).unwrap();
            fs::rename(root.join(folder), elsewhere.join(folder)).unwrap();
        });
        std::os::unix::fs::symlink(elsewhere.join(folder), root.join(folder)).unwrap();
    }
    let before = support::tree(&elsewhere);
    for (args, link) in [
        (vec!["new", r, "04_STYLE", "Evil"], "04_STYLE"),
        (vec!["note", r, "a", "quick", "thought"], "00_INBOX"),
    ] {
        let out = membank(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("{link} is a symbolic link")),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains("nothing was written"), "{stderr}");
        assert!(!stderr.contains("Run again"), "{args:?}: {stderr}");
    }
    assert_eq!(support::tree(&elsewhere), before);
}
