//! The Deja Vu commands end to end: check, recall, supersede, feedback,
//! the demo, and hostile input.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

use serde_json::Value;

const FLAWED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/dejavu/flawed-project"
);
const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-dejavu");

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .output()
        .expect("membank runs")
}

fn json(args: &[&str]) -> (Value, Option<i32>) {
    support::json_of(&membank(args))
}

fn has(v: &Value, code: &str, path: &str, line: Option<u64>) -> bool {
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["code"] == code && f["path"] == path && line.is_none_or(|l| f["line"] == l))
}

/// Copy a folder tree (regular files only).
fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn check_reports_every_kind_of_problem_on_its_file_and_line() {
    let (v, code) = json(&["check", FLAWED, "--json"]);
    assert_eq!(code, Some(1), "errors exit 1");
    let imp = "memory/impressions.jsonl";
    let fb = "memory/recall-feedback.jsonl";
    for (code, path, line) in [
        ("invalid-jsonl", imp, Some(2)),
        ("not-an-object", imp, Some(4)),
        ("schema-version", imp, Some(3)),
        ("scope-not-project", imp, Some(3)),
        ("bad-status", imp, Some(3)),
        ("bad-weight", imp, Some(3)),
        ("bad-date", imp, Some(3)),
        ("duplicate-keywords", imp, Some(3)),
        ("record-path-outside", imp, Some(3)),
        ("few-keywords", imp, Some(1)),
        ("duplicate-id", imp, Some(5)),
        ("generic-keywords", imp, Some(5)),
        ("record-path-missing", imp, Some(5)),
        ("route-to-inactive", imp, Some(1)),
        ("bad-outcome", fb, Some(2)),
        ("bad-query", fb, Some(2)),
        ("bad-matched-id", fb, Some(2)),
        ("bad-date", fb, Some(2)),
        ("unresolved-matched-id", fb, Some(1)),
        ("missing-frontmatter", "memory/open-loops/loop.md", None),
        ("transcript", "memory/open-loops/loop.md", Some(3)),
        ("missing-section", "memory/decisions/new-storage.md", None),
        ("scope-not-project", "memory/summary.md", Some(5)),
        ("bad-date", "memory/summary.md", Some(6)),
        ("dead-link", "memory/summary.md", Some(12)),
        ("email-address", "memory/decisions/new-storage.md", Some(13)),
        ("credential-assignment", "memory/context/ctx.md", Some(9)),
        ("private-not-ignored", "memory/private/notes.md", None),
        ("index-missing-link", "memory/index.md", None),
        ("index-not-updated", "memory/index.md", None),
        ("summary-missing-link", "memory/summary.md", None),
        (
            "supersedes-missing",
            "memory/decisions/new-storage.md",
            None,
        ),
        ("no-impression-route", "memory/context/ctx.md", None),
        ("not-utf8", "memory/blob.md", None),
    ] {
        assert!(
            has(&v, code, path, line),
            "{code} at {path}:{line:?}\n{v:#}"
        );
    }
    // Paths are project-relative and nothing outside was looked at.
    for f in v["findings"].as_array().unwrap() {
        let p = f["path"].as_str().unwrap();
        assert!(!p.starts_with('/') && !p.contains(".."), "{p}");
    }
}

#[test]
fn the_memory_folder_is_accepted_and_other_folders_are_refused_clearly() {
    let (v, _) = json(&["check", &format!("{DEMO}/memory"), "--json"]);
    assert_eq!(v["counts"]["error"], 0, "{v:#}");
    let tmp = tempfile::tempdir().unwrap();
    let out = membank(&["recall", tmp.path().to_str().unwrap(), "x"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("a Deja Vu project"), "{err}");
    assert!(err.contains("memory/impressions.jsonl"), "{err}");
    // A bank given to a Deja Vu command is named as what it is.
    let bank = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
    let out = membank(&["recall", bank, "x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is a memory bank; this works on a Deja Vu project only"),
        "{err}"
    );
}

#[test]
fn recall_explains_every_impression_in_text() {
    let out = membank(&["recall", DEMO, "settings sync"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("level: strong   score: 0.975"), "{text}");
    assert!(
        text.contains("2/min(2, 7) = 1 overlap × (0.75 + 0.9 × 0.25) = 0.975"),
        "{text}"
    );
    assert!(text.contains("skipped, status superseded"), "{text}");
    assert!(
        text.contains("would load: memory/decisions/settings-sync.md"),
        "{text}"
    );
}

#[test]
fn supersede_shows_a_diff_writes_only_with_yes_and_touches_only_its_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let root_s = root.to_str().unwrap();
    // A new decision that will replace the settings decision.
    let new = "---\nid: decision-settings-v2\ntitle: Settings v2\nstatus: active\nscope: project:quillnote\nupdated: 2026-06-01\n---\n\n# Settings v2\n";
    fs::write(root.join("memory/decisions/settings-v2.md"), new).unwrap();
    let before = fs::read_to_string(root.join("memory/decisions/settings-sync.md")).unwrap();

    let out = membank(&[
        "supersede",
        root_s,
        "decision-settings-sync",
        "memory/decisions/settings-v2.md",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("+status: superseded"), "{text}");
    assert!(text.contains("nothing written"), "{text}");
    // Shown, not written: 1, as for mv and fix.
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        fs::read_to_string(root.join("memory/decisions/settings-sync.md")).unwrap(),
        before
    );

    let out = membank(&[
        "supersede",
        root_s,
        "decision-settings-sync",
        "memory/decisions/settings-v2.md",
        "--yes",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let old = fs::read_to_string(root.join("memory/decisions/settings-sync.md")).unwrap();
    let expected_old = before
        .replace("status: active", "status: superseded")
        .replace(
            "supersedes: memory/decisions/local-preferences.md\n",
            "supersedes: memory/decisions/local-preferences.md\nsuperseded_by: memory/decisions/settings-v2.md\n",
        );
    assert_eq!(old, expected_old, "only the two frontmatter lines change");
    let new_after = fs::read_to_string(root.join("memory/decisions/settings-v2.md")).unwrap();
    assert!(new_after.contains("supersedes: memory/decisions/settings-sync.md\n---"));
    let index = fs::read_to_string(root.join("memory/index.md")).unwrap();
    assert!(
        index.contains("- [Settings v2](./decisions/settings-v2.md)\n"),
        "{index}"
    );
    assert!(index.contains(
        "- [Settings sync stays server-backed](./decisions/settings-sync.md) — superseded by [Settings v2](./decisions/settings-v2.md)"
    ));
    let imp = fs::read_to_string(root.join("memory/impressions.jsonl")).unwrap();
    let first = imp.lines().next().unwrap();
    assert!(
        first.ends_with(
            r#""weight":0.9,"status":"superseded","superseded_by":"decision-settings-v2"}"#
        ),
        "{first}"
    );
    assert_eq!(
        imp.lines().nth(1),
        fs::read_to_string(Path::new(DEMO).join("memory/impressions.jsonl"))
            .unwrap()
            .lines()
            .nth(1)
    );
    // Recall no longer routes to the old record.
    let (v, _) = json(&["recall", root_s, "settings sync", "--json"]);
    assert_ne!(v["matches"][0]["id"], "decision-settings-sync");
    // Running it again changes nothing.
    let out = membank(&[
        "supersede",
        root_s,
        "decision-settings-sync",
        "memory/decisions/settings-v2.md",
        "--yes",
    ]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to change"));
}

#[test]
fn feedback_summarises_routes_and_appends_sanitized_lines() {
    let (v, _) = json(&["feedback", DEMO, "--json"]);
    assert_eq!(v["totals"]["helpful"], 1);
    assert_eq!(v["totals"]["missed"], 1);
    assert_eq!(v["routes"][0]["matched_id"], "unmatched");

    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let out = membank(&[
        "feedback",
        root.to_str().unwrap(),
        "--add",
        "irrelevant",
        "--cue",
        "Mail bob@example.com: Settings\x1b[31m SYNC token=abcdefghijklmnopqrstu",
        "--matched-id",
        "decision-settings-sync",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = fs::read_to_string(root.join("memory/recall-feedback.jsonl")).unwrap();
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    assert_eq!(last["query"], "mail settings 31m sync");
    assert_eq!(last["outcome"], "irrelevant");
    assert_eq!(text.lines().count(), 3);
    let (v, code) = json(&["check", root.to_str().unwrap(), "--json"]);
    assert_eq!(code, Some(0), "{v:#}");
}

#[test]
fn hostile_input_gives_findings_never_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("memory")).unwrap();
    let mut lines =
        String::from("{\"id\":\"a\",\"record_path\":\"../../etc/passwd\",\"keywords\":[\"x\"]}\n");
    lines.push_str(&"[".repeat(100_000));
    lines.push('\n');
    lines.push_str("\u{1b}]0;pwned\u{7}{\"id\":1}\n");
    fs::write(root.join("memory/impressions.jsonl"), lines).unwrap();
    fs::write(root.join("memory/summary.md"), vec![0xffu8; 64]).unwrap();
    let huge = fs::File::create(root.join("memory/huge.md")).unwrap();
    huge.set_len(17 * 1024 * 1024).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("/etc/passwd", root.join("memory/link.md")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("gone.md", root.join("memory/dangling.md")).unwrap();
    let r = root.to_str().unwrap();
    let (v, code) = json(&["check", r, "--json"]);
    assert_eq!(code, Some(1));
    assert!(has(
        &v,
        "record-path-outside",
        "memory/impressions.jsonl",
        Some(1)
    ));
    assert!(has(
        &v,
        "invalid-jsonl",
        "memory/impressions.jsonl",
        Some(2)
    ));
    assert!(has(&v, "unreadable-file", "memory/huge.md", None));
    // Said once, and never as large as the limit it is over.
    let huge = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "memory/huge.md" && f["code"] == "unreadable-file")
        .unwrap();
    assert_eq!(
        huge["message"],
        "this file is 17 MB, over the limit of 16 MB per file (setting `max_file_mb`); \
         it is not read",
        "{huge:#}"
    );
    #[cfg(unix)]
    assert!(has(&v, "symlink", "memory/link.md", None));
    // A link to nothing is a link, not a file that failed to read.
    #[cfg(unix)]
    assert!(has(&v, "symlink", "memory/dangling.md", None));
    #[cfg(unix)]
    assert!(!has(&v, "unreadable-file", "memory/dangling.md", None));
    let out = membank(&["recall", r, "x y"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}'),
        "{text}"
    );
}

#[test]
fn a_route_out_of_the_project_is_marked_as_never_read() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    fs::create_dir_all(root.join("memory")).unwrap();
    fs::write(
        root.join("memory/impressions.jsonl"),
        "{\"id\":\"a\",\"record_path\":\"../../etc/passwd\",\"keywords\":[\"vault\",\"passwords\"]}\n",
    )
    .unwrap();
    let r = root.to_str().unwrap();
    let out = membank(&["recall", r, "vault passwords"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("would load: ../../etc/passwd (outside the project: never read)"),
        "{text}"
    );
    assert!(
        text.contains("→ ../../etc/passwd (outside the project: never read)"),
        "{text}"
    );
    // Scripts get the reference's value unchanged.
    let (v, _) = json(&["recall", r, "vault passwords", "--json"]);
    assert_eq!(v["matches"][0]["record_path"], "../../etc/passwd");
}

#[test]
fn demo_format_dejavu_extracts_the_demo_project() {
    // Its own temp dir: the demo copy's folder is fixed per user, and two
    // test runs at once must not replace each other's copy.
    let tmp = tempfile::tempdir().unwrap();
    let out = support::membank()
        .args(["demo", "--format", "dejavu", "--path"])
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stdout
            .starts_with(tmp.path().as_os_str().as_encoded_bytes())
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("replaced on each run"),
        "the note says the copy is not kept"
    );
    let dir = String::from_utf8(out.stdout).unwrap().trim().to_owned();
    assert!(Path::new(&dir).join("memory/impressions.jsonl").is_file());
    let (v, code) = json(&["check", &dir, "--json"]);
    assert_eq!(code, Some(0), "{v:#}");
}

#[test]
fn recall_ask_gives_the_model_only_the_records_recall_selects() {
    use membank_llm::testing::{FakeReply, FakeServer};
    let server = FakeServer::start([FakeReply::anthropic_stream(&["Keep it ", "server-backed."])]);
    let out = support::membank()
        .args(["recall", DEMO, "settings sync", "--ask"])
        .env("MEMBANK_CONFIG", "/dev/null")
        .env("MEMBANK_PROVIDER", "anthropic")
        .env("MEMBANK_MODEL", "test-model")
        .env("MEMBANK_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-ant-cli-test-key-0123456789")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Keep it server-backed."));
    assert!(
        stderr.contains("used      memory/decisions/settings-sync.md"),
        "{stderr}"
    );
    let body = server.requests()[0].json();
    let system = body["system"].to_string();
    assert!(
        system.contains("### FILE: memory/decisions/settings-sync.md"),
        "{system}"
    );
    // A strong match loads only its record: not the summary, not the others.
    assert!(!system.contains("memory/summary.md"), "{system}");
    assert!(!system.contains("Migrate old setting names"), "{system}");
}

#[test]
fn feedback_holding_a_credential_is_refused_and_nothing_is_appended() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let before = fs::read(root.join("memory/recall-feedback.jsonl")).unwrap();
    let key = format!("ghp_{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6");
    let out = membank(&[
        "feedback",
        root.to_str().unwrap(),
        "--add",
        "helpful",
        "--cue",
        "settings sync",
        "--note",
        &format!("pushed with {key}"),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the note holds what looks like a GitHub token"),
        "{stderr}"
    );
    assert!(!stderr.contains(&key), "{stderr}");
    assert_eq!(
        fs::read(root.join("memory/recall-feedback.jsonl")).unwrap(),
        before
    );
}

/// A project whose impressions file holds `lines` impressions, every third
/// one matching the cue "vault passwords" with a weight that ranks it.
fn project_with_impressions(root: &Path, lines: usize) {
    fs::create_dir_all(root.join("memory")).unwrap();
    fs::write(root.join("memory/summary.md"), "# Summary\n").unwrap();
    let mut text = String::new();
    for i in 0..lines {
        let keywords = if i % 3 == 0 {
            format!("[\"vault\",\"passwords\",\"k{i}\"]")
        } else {
            format!("[\"other\",\"k{i}\"]")
        };
        let weight = format!("0.{}", 1 + (i / 3) % 9);
        text.push_str(&format!(
            "{{\"schema_version\":1,\"id\":\"imp-{i}\",\"keywords\":{keywords},\
             \"record_path\":\"memory/decisions/d{i}.md\",\"weight\":{weight},\"status\":\"active\"}}\n"
        ));
    }
    fs::write(root.join("memory/impressions.jsonl"), text).unwrap();
}

#[test]
fn recall_over_many_impressions_explains_the_best_unless_asked_for_all() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    project_with_impressions(&root, 300);
    let r = root.to_str().unwrap();
    let explained = |text: &str| text.lines().filter(|l| l.starts_with("  line ")).count();

    let out = membank(&["recall", r, "vault passwords"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("100 of 300 impressions matched"), "{text}");
    assert_eq!(explained(&text), 20, "{text}");
    assert!(!text.contains("every impression:"), "{text}");
    assert!(
        text.contains("shown: 20 of 100 matches, 20 of 300 impressions"),
        "{text}"
    );
    assert!(text.contains("--all"), "{text}");
    // The best are shown: the highest weight, 0.9, first.
    assert!(text.contains("   1  0.975"), "{text}");

    let out = membank(&["recall", r, "vault passwords", "--limit", "3"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(explained(&text), 3, "{text}");
    assert!(!text.contains("\n   4  "), "only three ranked rows: {text}");

    for every in [&["--all"][..], &["--limit", "0"]] {
        let out = membank(&[&["recall", r, "vault passwords"][..], every].concat());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(explained(&text), 300, "{every:?}: {text}");
        assert!(text.contains("every impression:"), "{text}");
        assert!(!text.contains("shown:"), "{text}");
    }
    let (v, _) = json(&["recall", r, "vault passwords", "--json", "--limit", "0"]);
    assert_eq!(
        v["explanation"]["impressions"].as_array().unwrap().len(),
        300
    );

    // Scripts get everything unless they ask for less.
    let (v, _) = json(&["recall", r, "vault passwords", "--json"]);
    let all = v["explanation"]["impressions"].as_array().unwrap();
    assert_eq!(all.len(), 300);
    let (v, _) = json(&["recall", r, "vault passwords", "--json", "--limit", "5"]);
    let best = v["explanation"]["impressions"].as_array().unwrap();
    let ranks: Vec<_> = best.iter().map(|e| e["rank"].as_u64()).collect();
    assert_eq!(ranks, (1..=5).map(Some).collect::<Vec<_>>(), "{v:#}");
    assert_eq!(
        v["matches"].as_array().unwrap().len(),
        5,
        "reference keys unchanged"
    );
}

#[test]
fn recall_says_an_impressions_file_over_the_size_cap_was_not_read_and_how_to_read_it() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    // About 1.3 million bytes (1.2 MB as membank counts), over a cap of 1 MB.
    project_with_impressions(&root, 9_000);
    assert!(
        fs::metadata(root.join("memory/impressions.jsonl"))
            .unwrap()
            .len()
            > 1 << 20
    );
    let config = tmp.path().join("config.toml");
    fs::write(&config, "[files]\nmax_file_mb = 1\n").unwrap();
    let r = root.to_str().unwrap();
    let run = |extra: &[&str]| {
        support::membank()
            .env("MEMBANK_CONFIG", &config)
            .args(["recall", r, "vault passwords"])
            .args(extra)
            .output()
            .unwrap()
    };

    let out = run(&[]);
    let text = String::from_utf8(out.stdout).unwrap();
    // Named once, with its size above the limit and that it is not read.
    assert!(
        text.contains(
            "(memory/impressions.jsonl is 1.2 MB, over the limit of 1 MB per file \
             (setting `max_file_mb`); it is not read)"
        ),
        "{text}"
    );
    assert_eq!(text.matches("not read").count(), 1, "{text}");
    assert!(
        text.contains("raise `max_file_mb` in the `[files]` table of "),
        "{text}"
    );
    assert!(!text.contains("not found"), "{text}");
    assert!(!text.contains("to start"), "{text}");

    let out = run(&["--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = v["budget"]["why_loaded"][0].as_str().unwrap();
    assert!(
        why.starts_with("memory/impressions.jsonl is 1.2 MB, over the limit of 1 MB"),
        "{why}"
    );
    assert!(v.get("bootstrap_hint").is_none(), "{v:#}");
    assert!(
        v["diagnostics"][0]["error"]
            .as_str()
            .unwrap()
            .contains("max_file_mb"),
        "{v:#}"
    );
}

#[test]
fn a_folder_named_like_a_required_file_is_an_error_and_recall_says_so() {
    for name in ["impressions.jsonl", "summary.md"] {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("p");
        copy_tree(Path::new(DEMO), &root);
        let file = root.join("memory").join(name);
        fs::remove_file(&file).unwrap();
        fs::create_dir(&file).unwrap();
        let r = root.to_str().unwrap();
        let path = format!("memory/{name}");
        let (v, code) = json(&["check", r, "--json"]);
        assert!(has(&v, "unreadable-file", &path, None), "{v:#}");
        assert_ne!(code, Some(0), "{v:#}");
        let message = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == path.as_str())
            .unwrap()["message"]
            .to_string();
        assert!(message.contains("a folder, not a file"), "{message}");
        if name == "impressions.jsonl" {
            let out = membank(&["recall", r, "settings sync"]);
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(
                text.contains("memory/impressions.jsonl is a folder, not a file; it is not read"),
                "{text}"
            );
            assert!(!text.contains("not found"), "{text}");
        }
    }
}

#[test]
fn feedback_added_with_json_prints_one_json_document() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let r = root.to_str().unwrap();
    let (v, code) = json(&[
        "feedback",
        r,
        "--add",
        "missed",
        "--cue",
        "alpha beta",
        "--json",
    ]);
    assert_eq!(code, Some(0), "{v:#}");
    assert_eq!(v["path"], "memory/recall-feedback.jsonl");
    assert_eq!(v["appended"]["outcome"], "missed");
    assert_eq!(v["appended"]["query"], "alpha beta");
}

#[test]
fn a_refused_feedback_outcome_is_echoed_without_its_escapes() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let out = membank(&[
        "feedback",
        root.to_str().unwrap(),
        "--add",
        "\u{1b}]0;pwned\u{7}",
        "--cue",
        "abc",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pwned"), "{err:?}");
    assert!(!err.contains('\u{1b}') && !err.contains('\u{7}'), "{err:?}");
}

/// Feedback naming no active impression is what `check` flags as
/// `unresolved-matched-id`: it is refused before it is written.
#[test]
fn feedback_naming_no_active_impression_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let before = fs::read(root.join("memory/recall-feedback.jsonl")).unwrap();
    let add = |id: &str| {
        membank(&[
            "feedback",
            root.to_str().unwrap(),
            "--add",
            "helpful",
            "--cue",
            "settings sync",
            "--matched-id",
            id,
        ])
    };
    for id in ["nonexistent-id", "decision-local-preferences"] {
        let out = add(id);
        assert_eq!(out.status.code(), Some(2), "{id}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("no active impression has this id"), "{err}");
    }
    assert_eq!(
        fs::read(root.join("memory/recall-feedback.jsonl")).unwrap(),
        before
    );
    assert!(add("decision-settings-sync").status.success());
    assert!(add("unmatched").status.success());
}

/// A `memory/` that is a symbolic link is not followed: recall says so
/// rather than calling the impressions missing.
#[cfg(unix)]
#[test]
fn recall_through_a_linked_memory_folder_says_it_is_a_link() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let elsewhere = tmp.path().join("elsewhere");
    fs::rename(root.join("memory"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("memory")).unwrap();
    let out = membank(&["recall", root.to_str().unwrap(), "settings sync"]);
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("symbolic link"), "{said}");
    assert!(!said.contains("not found"), "{said}");
    assert!(!said.contains("fix or replace the file"), "{said}");
}

/// A `memory/` folder or impressions file that is a link membank does not
/// follow leaves recall not initialized, so `check` fails on it (exit 1),
/// as it does on an impressions file that is a FIFO.
#[cfg(unix)]
#[test]
fn check_fails_on_a_required_file_behind_a_link_it_does_not_follow() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let elsewhere = tmp.path().join("elsewhere");
    fs::rename(root.join("memory"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("memory")).unwrap();
    let r = root.to_str().unwrap();
    let (v, code) = json(&["check", r, "--json"]);
    assert_eq!(code, Some(1), "{v}");
    assert!(
        has(&v, "missing-impressions", "memory/impressions.jsonl", None),
        "{v}"
    );

    fs::remove_file(root.join("memory")).unwrap();
    copy_tree(&elsewhere, &root.join("memory"));
    fs::remove_file(root.join("memory/impressions.jsonl")).unwrap();
    std::os::unix::fs::symlink(
        elsewhere.join("impressions.jsonl"),
        root.join("memory/impressions.jsonl"),
    )
    .unwrap();
    let (v, code) = json(&["check", r, "--json"]);
    assert_eq!(code, Some(1), "{v}");
    assert!(
        has(&v, "missing-impressions", "memory/impressions.jsonl", None),
        "{v}"
    );
}

/// A name that matches nothing is answered with the closest names, as
/// `links` answers, in every layout; never with a private record's, which
/// the MCP server would pass on to its client.
#[test]
fn read_suggests_the_closest_names_but_never_a_private_one() {
    let out = membank(&[
        "read",
        concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank"),
        "Pharmaceutical",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("did you mean 'Pharmaceuticals'?"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    copy_tree(Path::new(DEMO), dir.path());
    fs::create_dir_all(dir.path().join("memory/private")).unwrap();
    fs::write(
        dir.path().join("memory/private/settings-salary.md"),
        "# Salary\n\nPrivate.\n",
    )
    .unwrap();
    let project = dir.path().to_str().unwrap();
    let out = membank(&["read", project, "settings-sal"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no document `settings-sal`"), "{err}");
    assert!(!err.contains("salary"), "{err}");
    assert!(
        err.contains("did you mean"),
        "the shared records are offered: {err}"
    );
}

/// Something at the feedback file's path that is not read is said as
/// such, never as "no feedback yet".
#[cfg(unix)]
#[test]
fn a_feedback_file_that_is_there_but_not_read_is_said_so() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    copy_tree(Path::new(DEMO), &project);
    let path = project.join("memory/recall-feedback.jsonl");
    let _ = fs::remove_file(&path);
    std::os::unix::fs::symlink("/etc/hostname", &path).unwrap();
    let out = membank(&["feedback", project.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("was not read: it is a symbolic link"),
        "{said}"
    );
    assert!(!said.contains("yet"), "{said}");
}

/// A link to another record inside the project is read as that record, not
/// checked as a second one (missing from the index, the summary and the
/// routes, and superseding what its target supersedes).
#[cfg(unix)]
#[test]
fn a_link_to_a_record_is_not_checked_as_a_record_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("p");
    copy_tree(Path::new(DEMO), &project);
    std::os::unix::fs::symlink(
        "./settings-sync.md",
        project.join("memory/decisions/alias.md"),
    )
    .unwrap();
    let (v, _) = json(&["check", project.to_str().unwrap(), "--json"]);
    let about_alias: Vec<String> = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| {
            f["path"].as_str().unwrap_or("").contains("alias")
                || f["message"].as_str().unwrap_or("").contains("alias.md")
        })
        .map(|f| f["code"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(about_alias.is_empty(), "{about_alias:?}: {v}");
}
