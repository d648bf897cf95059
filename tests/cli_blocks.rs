//! End-to-end tests of `membank blocks` and `membank compile` on temporary banks.

mod support;

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::Value;

fn membank(args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = support::membank()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the membank binary starts");
    {
        let mut input = child.stdin.take().unwrap();
        if let Some(s) = stdin {
            // The program may exit before reading (e.g. a bad bank path).
            let _ = input.write_all(s.as_bytes());
        }
    }
    child.wait_with_output().unwrap()
}

fn bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["00_INBOX", "01_CLIENTS", "02_TERMINOLOGY", "06_TEMPLATES"] {
        fs::create_dir_all(dir.path().join(f)).unwrap();
    }
    fs::write(
        dir.path().join("06_TEMPLATES/compile.md"),
        "human template\n",
    )
    .unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn statuses(v: &Value) -> Vec<(String, String)> {
    v["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| {
            (
                b["path"].as_str().unwrap().to_owned(),
                b["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn files_under(root: &Path) -> Vec<String> {
    let mut v = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            if e.file_type().unwrap().is_dir() {
                stack.push(p);
            } else {
                v.push(
                    p.strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/"),
                );
            }
        }
    }
    v.sort();
    v
}

const HOSTILE: &str = "Here are the files.\n\
### FILE: 01_CLIENTS/Acme.md\n---\nclient: \"Acme\"\n---\n# Acme\n\
### FILE: 01_CLIENTS/../06_TEMPLATES/compile.md\nowned\n\
### FILE: 06_TEMPLATES/compile.md\nowned\n\
### FILE: /etc/evil.md\nowned\n\
### FILE: C:\\Users\\x\\evil.md\nowned\n\
### FILE: \\\\server\\share\\evil.md\nowned\n\
### FILE: 01_CLIENTS/CON.md\nowned\n\
### FILE: 02_TERMINOLOGY\\compliance → naleving.md\n---\nterm_source: compliance\n---\n# compliance → naleving\n";

#[test]
fn unsafe_paths_are_rejected_and_nothing_is_written_without_apply() {
    let dir = bank();
    let out = membank(&["blocks", s(dir.path()), "--json"], Some(HOSTILE));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let got = statuses(&v);
    let expected = [
        ("01_CLIENTS/Acme.md", "valid"),
        ("01_CLIENTS/../06_TEMPLATES/compile.md", "rejected"),
        ("06_TEMPLATES/compile.md", "rejected"),
        ("/etc/evil.md", "rejected"),
        ("C:\\Users\\x\\evil.md", "rejected"),
        ("\\\\server\\share\\evil.md", "rejected"),
        ("01_CLIENTS/CON.md", "rejected"),
        ("02_TERMINOLOGY/compliance → naleving.md", "valid"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(p, st)| (p.to_string(), st.to_string()))
        .collect();
    assert_eq!(got, expected);
    for b in v["blocks"].as_array().unwrap() {
        if b["status"] == "rejected" {
            assert!(b["reason"].as_str().is_some_and(|r| !r.is_empty()), "{b}");
        }
    }
    assert_eq!(
        files_under(dir.path()),
        vec!["06_TEMPLATES/compile.md"],
        "a check without --apply writes nothing"
    );
}

#[test]
fn apply_writes_only_the_valid_blocks() {
    let dir = bank();
    let reply = dir.path().join("reply.txt");
    fs::write(&reply, HOSTILE).unwrap();
    let out = membank(
        &[
            "blocks",
            s(dir.path()),
            "--reply",
            s(&reply),
            "--apply",
            "--json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    let written: Vec<_> = statuses(&v)
        .into_iter()
        .filter(|(_, st)| st == "created")
        .map(|(p, _)| p)
        .collect();
    assert_eq!(
        written,
        vec![
            "01_CLIENTS/Acme.md",
            "02_TERMINOLOGY/compliance → naleving.md"
        ]
    );
    fs::remove_file(&reply).unwrap();
    assert_eq!(
        files_under(dir.path()),
        vec![
            "01_CLIENTS/Acme.md",
            "02_TERMINOLOGY/compliance → naleving.md",
            "06_TEMPLATES/compile.md"
        ]
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("06_TEMPLATES/compile.md")).unwrap(),
        "human template\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("01_CLIENTS/Acme.md")).unwrap(),
        "---\nclient: \"Acme\"\n---\n# Acme\n"
    );

    // Applying the same reply again changes nothing.
    let out = membank(
        &["blocks", s(dir.path()), "--apply", "--json"],
        Some(HOSTILE),
    );
    let v = json(&out);
    assert_eq!(statuses(&v)[0].1, "unchanged");

    // In words, the write is said as such, and nothing more once unchanged.
    let fresh = bank();
    let out = membank(&["blocks", s(fresh.path()), "--apply"], Some(HOSTILE));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("rejected; 2 files written (membank undo takes them back)."),
        "{said}"
    );
    let out = membank(&["blocks", s(fresh.path()), "--apply"], Some(HOSTILE));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("rejected; 0 files written."), "{said}");
}

#[cfg(unix)]
#[test]
fn temporary_files_left_by_a_killed_run_are_removed_and_named() {
    let dir = bank();
    let root = dir.path();
    let leftovers = [
        "01_CLIENTS/.membank-a1b2c3D4.tmp",
        "02_TERMINOLOGY/sub/.membank-42424242.tmp",
    ];
    // Not ours: a user's file that only looks like one, the names older
    // versions used (`check` reports those), or in the templates nobody
    // writes.
    let kept = [
        "01_CLIENTS/Acme.md.tmp",
        "01_CLIENTS/Style guide.md.old.tmp",
        "01_CLIENTS/Legal.md.backup2024.tmp",
        "01_CLIENTS/Acme.md.a1b2c3D4.tmp",
        "01_CLIENTS/.membank-a1b2.tmp",
        "06_TEMPLATES/.membank-x1x1x1x1.tmp",
    ];
    for rel in leftovers.iter().chain(&kept) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, "half written").unwrap();
    }
    let reply = "### FILE: 01_CLIENTS/Beta.md\n---\nclient: \"Beta\"\n---\n# Beta\n";
    let out = membank(&["blocks", s(root), "--apply"], Some(reply));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(root.join("01_CLIENTS/Beta.md").is_file());
    for rel in leftovers {
        assert!(!root.join(rel).exists(), "{rel} is still there");
        assert!(
            stderr.contains(&format!(
                "removed {rel}, a temporary file left by an interrupted run"
            )),
            "{stderr}"
        );
    }
    for rel in kept {
        assert!(root.join(rel).is_file(), "{rel} was removed");
        assert!(!stderr.contains(rel), "{stderr}");
    }
}

#[test]
fn symlink_escape_is_rejected() {
    let outside = tempfile::tempdir().unwrap();
    let dir = bank();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("01_CLIENTS/shared")).unwrap();
    let reply = "### FILE: 01_CLIENTS/shared/evil.md\nowned\n### FILE: 01_CLIENTS/ok.md\nok\n";
    let out = membank(&["blocks", s(dir.path()), "--apply", "--json"], Some(reply));
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(
        statuses(&v),
        vec![
            ("01_CLIENTS/shared/evil.md".into(), "rejected".into()),
            ("01_CLIENTS/ok.md".into(), "created".into())
        ]
    );
    assert!(
        v["blocks"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("outside the memory bank")
    );
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn fenced_blocks_are_unwrapped_and_trailing_chatter_is_reported() {
    let dir = bank();
    let reply = "```markdown\n### FILE: 01_CLIENTS/A.md\n```markdown\n---\nclient: A\n---\n# A\n```python\nprint(1)\n```\n```\nHope this helps!\n### FILE: 01_CLIENTS/B.md\n---\nclient: B\n---\n# B\n```\n";
    let out = membank(&["blocks", s(dir.path()), "--apply", "--json"], Some(reply));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = json(&out);
    assert_eq!(
        fs::read_to_string(dir.path().join("01_CLIENTS/A.md")).unwrap(),
        "---\nclient: A\n---\n# A\n```python\nprint(1)\n```\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("01_CLIENTS/B.md")).unwrap(),
        "---\nclient: B\n---\n# B\n"
    );
    let warnings: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("Hope this helps!") && w.contains("01_CLIENTS/A.md"))
    );
    assert!(warnings.iter().any(|w| w.contains("wrapped")));
}

#[test]
fn human_output_is_a_table_without_terminal_escapes() {
    let dir = bank();
    let reply = "### FILE: 01_CLIENTS/\u{1b}[2Jx.md\nx\n### FILE: 01_CLIENTS/ok.md\nok\n";
    let out = membank(&["blocks", s(dir.path())], Some(reply));
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("STATUS") && text.contains("rejected") && text.contains("new"));
    assert!(text.contains("--apply"));
}

/// A plan shows what `--apply` would write: the diff of a changed file
/// and the whole text of a new one, and nothing of a rejected or
/// unchanged block.
#[test]
fn a_plan_shows_the_diff_and_new_text_that_apply_would_write() {
    let dir = bank();
    fs::write(
        dir.path().join("01_CLIENTS/Old.md"),
        "# Old\nkept line\nold wording\n",
    )
    .unwrap();
    fs::write(dir.path().join("01_CLIENTS/Same.md"), "same\n").unwrap();
    let reply = "### FILE: 01_CLIENTS/Old.md\n# Old\nkept line\nnew wording\n\
                 ### FILE: 01_CLIENTS/Fresh.md\nfresh text\n\
                 ### FILE: 01_CLIENTS/Same.md\nsame\n\
                 ### FILE: ../escape.md\nsecret plan\n";
    let out = membank(&["blocks", s(dir.path())], Some(reply));
    assert_eq!(out.status.code(), Some(1), "the escaping block is rejected");
    let text = String::from_utf8(out.stdout).unwrap();
    let (_, plan) = text
        .split_once("What --apply would write:")
        .unwrap_or_else(|| panic!("no plan section: {text}"));
    assert!(
        plan.contains("-old wording") && plan.contains("+new wording"),
        "{plan}"
    );
    assert!(plan.contains("+fresh text"), "{plan}");
    assert!(
        !plan.contains("secret plan") && !plan.contains("Same.md"),
        "{plan}"
    );
    // Nothing was written.
    assert_eq!(
        fs::read_to_string(dir.path().join("01_CLIENTS/Old.md")).unwrap(),
        "# Old\nkept line\nold wording\n"
    );
    assert!(!dir.path().join("01_CLIENTS/Fresh.md").exists());
    // `--apply` writes and does not repeat the plan.
    let out = membank(&["blocks", s(dir.path()), "--apply"], Some(reply));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("What --apply would write"), "{text}");
    assert!(dir.path().join("01_CLIENTS/Fresh.md").exists());
}

#[test]
fn missing_or_non_bank_folders_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    for args in [
        vec!["blocks", s(&missing)],
        vec!["blocks", s(dir.path())],
        vec!["compile", s(dir.path()), "--reply", "-"],
    ] {
        let out = membank(&args, Some("### FILE: 01_CLIENTS/a.md\na\n"));
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("memory bank"), "{args:?}: {err}");
        assert!(out.stdout.is_empty());
    }
    assert_eq!(files_under(dir.path()), Vec::<String>::new());
}

#[test]
fn compile_with_an_empty_inbox_asks_no_model_and_says_what_to_do() {
    let dir = bank();
    let config = "/dev/null";
    let out = support::membank()
        .args(["compile", s(dir.path())])
        .env("MEMBANK_CONFIG", config)
        .env("MEMBANK_BASE_URL", "http://127.0.0.1:9/v1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Nothing to compile"), "{err}");
    assert!(err.contains("--reply FILE"), "{err}");
}

#[test]
fn compile_writes_stamps_and_archives() {
    let dir = bank();
    let r = dir.path();
    fs::write(
        r.join("00_INBOX/mail.md"),
        "---\nfrom: \"pm@acme\"\n---\nAcme wants naleving.\n",
    )
    .unwrap();
    let reply_file = tempfile::NamedTempFile::new().unwrap();
    fs::write(
        reply_file.path(),
        "### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\n---\n# Acme\n### FILE: 06_TEMPLATES/compile.md\nx\n",
    )
    .unwrap();
    let out = membank(
        &["compile", s(r), "--reply", s(reply_file.path()), "--json"],
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a rejected block makes the run non-zero"
    );
    let v = json(&out);
    assert_eq!(v["sources"][0]["status"], "archived");
    assert_eq!(
        v["sources"][0]["compiled_to"],
        serde_json::json!(["01_CLIENTS/Acme.md"])
    );
    assert!(!r.join("00_INBOX/mail.md").exists());
    let archived = fs::read_to_string(r.join("00_INBOX/_archive/mail.md")).unwrap();
    assert!(
        archived.starts_with("---\nfrom: \"pm@acme\"\ncompiled: true\ncompiled_date: "),
        "{archived}"
    );
    assert!(
        archived.ends_with("compiled_to:\n  - \"01_CLIENTS/Acme.md\"\n---\nAcme wants naleving.\n")
    );

    // Nothing pending any more: a clear message and the reply is not applied.
    fs::remove_file(r.join("01_CLIENTS/Acme.md")).unwrap();
    let out = membank(&["compile", s(r), "--reply", s(reply_file.path())], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Nothing to compile"));
    assert!(!r.join("01_CLIENTS/Acme.md").exists());
}

#[test]
fn compile_plan_changes_nothing_and_clean_runs_exit_zero() {
    let dir = bank();
    let r = dir.path();
    fs::write(r.join("00_INBOX/mail.md"), "mail\n").unwrap();
    let reply = "### FILE: 01_CLIENTS/A.md\na\n";
    let out = membank(
        &["compile", s(r), "--reply", "-", "--plan", "--json"],
        Some(reply),
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json(&out)["sources"][0]["status"], "would-archive");
    assert_eq!(
        files_under(r),
        vec!["00_INBOX/mail.md", "06_TEMPLATES/compile.md"]
    );

    let out = membank(&["compile", s(r), "--reply", "-"], Some(reply));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("archived"));
}

/// A run killed after stamping one source but before moving it: the rerun
/// moves the stamped file once, compiles the still-pending one, and leaves
/// exactly one archived copy of each.
#[test]
fn compile_rerun_after_a_crash_neither_loses_nor_duplicates() {
    let dir = bank();
    let r = dir.path();
    fs::write(
        r.join("00_INBOX/first.md"),
        "---\nfrom: a\ncompiled: true\ncompiled_date: 2026-04-08\ncompiled_to:\n  - \"01_CLIENTS/A.md\"\n---\nfirst\n",
    )
    .unwrap();
    fs::write(r.join("00_INBOX/second.md"), "second\n").unwrap();
    fs::write(r.join("01_CLIENTS/A.md"), "a\n").unwrap();

    let reply = "### FILE: 01_CLIENTS/B.md\nb\n";
    let out = membank(&["compile", s(r), "--reply", "-", "--json"], Some(reply));
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let v = json(&out);
    assert_eq!(v["recovered"][0]["source"], "00_INBOX/first.md");
    assert_eq!(v["sources"].as_array().unwrap().len(), 1);
    assert_eq!(v["sources"][0]["source"], "00_INBOX/second.md");
    assert_eq!(
        files_under(r),
        vec![
            "00_INBOX/_archive/first.md",
            "00_INBOX/_archive/second.md",
            "01_CLIENTS/A.md",
            "01_CLIENTS/B.md",
            "06_TEMPLATES/compile.md"
        ]
    );
    let first = fs::read_to_string(r.join("00_INBOX/_archive/first.md")).unwrap();
    assert!(first.contains("01_CLIENTS/A.md") && !first.contains("01_CLIENTS/B.md"));

    // A second rerun finds nothing left and duplicates nothing.
    let out = membank(&["compile", s(r), "--reply", "-"], Some(reply));
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(files_under(r).len(), 5);
}

#[test]
fn change_says_new_changed_unchanged_or_rejected_before_and_after_writing() {
    let dir = bank();
    fs::write(dir.path().join("01_CLIENTS/same.md"), "same\n").unwrap();
    fs::write(dir.path().join("01_CLIENTS/edit.md"), "before\n").unwrap();
    let reply = "### FILE: 01_CLIENTS/new.md\nnew\n### FILE: 01_CLIENTS/same.md\nsame\n\
                 ### FILE: 01_CLIENTS/edit.md\nafter\n### FILE: 06_TEMPLATES/x.md\nno\n";
    let changes = |v: &Value| -> Vec<String> {
        v["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["change"].as_str().unwrap().to_owned())
            .collect()
    };
    let expected = ["new", "unchanged", "changed", "rejected"];
    let plan = json(&membank(&["blocks", s(dir.path()), "--json"], Some(reply)));
    assert_eq!(changes(&plan), expected);
    let applied = json(&membank(
        &["blocks", s(dir.path()), "--apply", "--json"],
        Some(reply),
    ));
    assert_eq!(changes(&applied), expected);
    // `status` keeps its older words for scripts written for them.
    assert_eq!(applied["blocks"][0]["status"], "created");
}

#[test]
fn a_block_holding_a_credential_is_refused_by_apply() {
    let dir = bank();
    let key = format!("AKIA{}", "IOSFODNN7EXAMPLE");
    let reply = format!(
        "### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\n---\n# Acme\nUpload with {key}\n"
    );
    let out = membank(
        &["blocks", s(dir.path()), "--apply", "--json"],
        Some(&reply),
    );
    let v = json(&out);
    assert_eq!(
        statuses(&v),
        [("01_CLIENTS/Acme.md".to_owned(), "rejected".to_owned())]
    );
    let reason = v["blocks"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("an AWS access key on line 5"), "{reason}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains(&key));
    assert!(!dir.path().join("01_CLIENTS/Acme.md").exists());
}

/// The JSON plan says what `--apply` would write, as the readable plan
/// does: a changed file's diff, and a new file's lines.
#[test]
fn the_json_plan_carries_each_writes_diff() {
    let dir = bank();
    fs::write(
        dir.path().join("01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\nold line\n",
    )
    .unwrap();
    let reply = "### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\n---\nnew line\n\
                 ### FILE: 02_TERMINOLOGY/Fresh.md\n---\nterm_source: fresh\n---\nbody\n";
    let v = json(&membank(&["blocks", s(dir.path()), "--json"], Some(reply)));
    let diff = |i: usize| {
        v["blocks"][i]["diff"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(diff(0).contains("-old line\n+new line"), "{v}");
    assert!(diff(1).contains("+term_source: fresh"), "{v}");
    // Nothing was written.
    assert!(!dir.path().join("02_TERMINOLOGY/Fresh.md").exists());
}
