//! `membank template` and `membank init`, run as a user would.

mod support;

use std::path::Path;
use std::process::Output;

fn membank(args: &[&std::ffi::OsStr]) -> Output {
    support::membank().args(args).output().expect("run membank")
}

fn run(args: &[&str], paths: &[&Path]) -> Output {
    let mut all: Vec<&std::ffi::OsStr> = vec![std::ffi::OsStr::new(args[0])];
    all.extend(paths.iter().map(|p| p.as_os_str()));
    all.extend(args[1..].iter().map(std::ffi::OsStr::new));
    membank(&all)
}

fn json(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

#[test]
fn init_then_template_reads_the_bank_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let bank = tmp.path().join("bank");
    let out = run(&["init"], &[&bank]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(bank.join("00_INBOX/_archive").is_dir());
    assert!(
        bank.join("02_TERMINOLOGY/_EXAMPLE_Term_Article.md")
            .is_file()
    );

    for agent in ["compile", "lint", "query", "translate", "distill"] {
        let v = json(&run(
            &["template"],
            &[&bank, Path::new(agent), Path::new("--json")],
        ));
        assert_eq!(v["agent"], agent);
        assert_eq!(v["source"], "bank");
        assert!(v["path"].as_str().unwrap().starts_with("06_TEMPLATES/"));
        assert!(!v["text"].as_str().unwrap().is_empty());
    }
}

#[test]
fn template_json_without_override_is_bundled() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("06_TEMPLATES")).unwrap();
    let v = json(&run(
        &["template"],
        &[tmp.path(), Path::new("lint"), Path::new("--json")],
    ));
    assert_eq!(v["agent"], "lint");
    assert_eq!(v["source"], "bundled");
    assert!(v["path"].is_null());
    assert!(
        v["text"]
            .as_str()
            .unwrap()
            .contains("### FILE: <relative path>")
    );
}

#[test]
fn template_prefers_the_bank_override() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("06_TEMPLATES")).unwrap();
    std::fs::write(
        tmp.path().join("06_TEMPLATES/translate_with_kb.md"),
        "Translate carefully.\r\n",
    )
    .unwrap();
    let v = json(&run(
        &["template"],
        &[tmp.path(), Path::new("translate"), Path::new("--json")],
    ));
    assert_eq!(v["source"], "bank");
    assert_eq!(v["path"], "06_TEMPLATES/translate_with_kb.md");
    assert_eq!(v["text"], "Translate carefully.\n");

    let plain = run(&["template"], &[tmp.path(), Path::new("translate")]);
    assert!(plain.status.success());
    assert_eq!(
        String::from_utf8_lossy(&plain.stdout),
        "Translate carefully.\n"
    );
}

#[test]
fn piped_template_text_is_exact_for_the_model() {
    // On a terminal it is made inert: tests/e2e_cli_escapes.rs.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("06_TEMPLATES")).unwrap();
    std::fs::write(tmp.path().join("06_TEMPLATES/query.md"), "a\x1b[2Jb\n").unwrap();
    let out = run(&["template"], &[tmp.path(), Path::new("query")]);
    assert!(out.status.success());
    assert_eq!(out.stdout, b"a\x1b[2Jb\n");
}

#[test]
fn unreadable_override_falls_back_with_a_warning() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("06_TEMPLATES")).unwrap();
    std::fs::write(tmp.path().join("06_TEMPLATES/compile.md"), b"\xff\xfd").unwrap();
    let out = run(
        &["template"],
        &[tmp.path(), Path::new("compile"), Path::new("--json")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = json(&out);
    assert_eq!(v["source"], "bundled");
    assert!(stderr.contains("06_TEMPLATES/compile.md"), "{stderr}");
}

#[test]
fn unknown_agent_is_an_error_listing_the_choices() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(&["template"], &[tmp.path(), Path::new("chat")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("compile, lint, query, translate, distill"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn init_refuses_a_folder_with_content() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("notes.md"), "mine").unwrap();
    let out = run(&["init"], &[tmp.path()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not empty"));
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
}

#[test]
fn init_demo_writes_the_demo_bank() {
    let tmp = tempfile::tempdir().unwrap();
    let bank = tmp.path().join("demo");
    let out = run(&["init"], &[&bank, Path::new("--demo")]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(bank.join("01_CLIENTS/Harbour Lines.md").is_file());
    assert!(
        bank.join("00_INBOX/_archive/Copperleaf kickoff call.md")
            .is_file()
    );
    let v = json(&run(
        &["template"],
        &[&bank, Path::new("query"), Path::new("--json")],
    ));
    assert_eq!(v["source"], "bank");
}

#[test]
fn init_without_a_folder_is_a_usage_error() {
    // Run where a bank would land if the folder defaulted to here.
    let here = tempfile::tempdir().unwrap();
    let out = support::membank()
        .arg("init")
        .current_dir(here.path())
        .output()
        .expect("run membank");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("<DIR>"), "{stderr}");
    assert!(stderr.contains("Usage: membank init"), "{stderr}");
    assert_eq!(std::fs::read_dir(here.path()).unwrap().count(), 0);
}

#[test]
fn template_for_a_missing_bank_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(
        &["template"],
        &[&tmp.path().join("nope"), Path::new("lint")],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such folder"));
}

#[test]
fn demo_path_extracts_a_readable_bank() {
    // Its own temp dir, as a second test run at once must not replace the
    // copy this one reads.
    let tmp = tempfile::tempdir().unwrap();
    let out = support::membank()
        .args(["demo", "--path"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stdout
            .starts_with(tmp.path().as_os_str().as_encoded_bytes())
    );
    let dir = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(dir.join("01_CLIENTS").is_dir());
    // It says where the copy lives and that it does not last.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("a copy in {}", dir.display())),
        "{err}"
    );
    assert!(err.contains("replaced the next time"), "{err}");
    let check = support::membank()
        .args([
            "context",
            dir.to_str().unwrap(),
            "--client",
            "Brightwell Pharma",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(check.status.success());
    let v: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(v["articles"][0]["path"], "01_CLIENTS/Brightwell Pharma.md");
}

/// Like every bank command, `template` takes the bank's own folder: from a
/// subfolder it names the bank to pass rather than answering "bundled
/// default" over the bank's override; a folder that is no memory is refused.
#[test]
fn template_detects_the_bank_like_the_other_commands() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("06_TEMPLATES")).unwrap();
    std::fs::create_dir_all(tmp.path().join("01_CLIENTS")).unwrap();
    std::fs::write(tmp.path().join("06_TEMPLATES/query.md"), "Mine.\n").unwrap();
    let out = run(
        &["template"],
        &[&tmp.path().join("01_CLIENTS"), Path::new("query")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("pass that folder"), "{stderr}");
    assert!(out.stdout.is_empty());

    let empty = tempfile::tempdir().unwrap();
    let out = run(&["template"], &[empty.path(), Path::new("query")]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("is not a memory bank"), "{stderr}");
}
