//! `membank writeback` against the scripted local server: the review of
//! what the model proposes, `--yes`, `--reply`, `--json`, and private
//! memory kept from the model.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

use membank_llm::Provider;
use membank_llm::testing::{FakeReply, FakeServer};
use serde_json::Value;

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-dejavu");
const IMPRESSIONS: &str = "memory/impressions.jsonl";

const DECISION: &str = "---\nid: decision-export-format\ntitle: Export notes as CommonMark\nstatus: active\nscope: project:quillnote\nupdated: 2026-06-01\n---\n\n# Export notes as CommonMark\n\n## Decision\n\nExports are plain CommonMark files.\n\n## Rationale\n\nEvery editor reads them.\n\n## Consequences\n\n- no proprietary export format\n\n## Related records\n\n- [Summary](../summary.md)\n";
const ROUTE: &str = r#"{"schema_version":1,"id":"decision-export-format","scope":"project:quillnote","title":"Export notes as CommonMark","keywords":["export","commonmark","files"],"record_path":"memory/decisions/export-format.md","updated":"2026-06-01","weight":0.8,"status":"active"}"#;

fn reply_text() -> String {
    format!(
        "One durable decision came out of this.\n\n### FILE: memory/decisions/export-format.md\n{DECISION}\n### FILE: memory/impressions.jsonl\n{ROUTE}\n### FILE: memory/private/diary.md\nprivate thoughts\n"
    )
}

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

/// The demo project plus a private note the model must never see.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(Path::new(DEMO), dir.path());
    fs::create_dir_all(dir.path().join("memory/private")).unwrap();
    fs::write(
        dir.path().join("memory/private/plans.md"),
        "TOPSECRET export plans\n",
    )
    .unwrap();
    fs::write(
        dir.path().join("notes.md"),
        "We decided to export notes as CommonMark files.\n",
    )
    .unwrap();
    dir
}

fn replies_dir() -> std::path::PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("writeback-replies");
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(dir: &Path, server: Option<&FakeServer>, args: &[&str]) -> Output {
    let mut cmd = support::membank();
    cmd.arg("writeback")
        .arg(dir)
        .args(args)
        .current_dir(dir)
        .env("MEMBANK_CONFIG", "/dev/null")
        .env("MEMBANK_STATE_DIR", dir.join("state"))
        // Saved replies go under the build's folder, not the system's.
        .env("TMPDIR", replies_dir())
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY");
    if let Some(server) = server {
        for (name, value) in server.env_for(Provider::OpenAi) {
            cmd.env(name, value);
        }
    }
    cmd.output().expect("run membank")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

#[test]
fn the_plan_shows_each_proposal_and_writes_nothing() {
    let dir = project();
    let r = dir.path();
    let before = fs::read(r.join(IMPRESSIONS)).unwrap();
    let server = FakeServer::start([FakeReply::openai_stream(&[&reply_text()])]);
    let out = run(r, Some(&server), &["notes.md"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(
        out.status.code(),
        Some(1),
        "a rejected file exits 1\n{stdout}{stderr}"
    );
    assert!(
        stdout.contains("new        memory/decisions/export-format.md"),
        "{stdout}"
    );
    assert!(
        stdout.contains("changed    memory/impressions.jsonl"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("+{ROUTE}")),
        "the appended line as a diff:\n{stdout}"
    );
    assert!(
        stdout.contains("rejected   memory/private/diary.md"),
        "{stdout}"
    );
    assert!(stdout.contains("Nothing was written"), "{stdout}");
    assert!(
        stderr.contains("withheld  memory/private/plans.md"),
        "{stderr}"
    );
    assert!(!r.join("memory/decisions/export-format.md").exists());
    assert_eq!(fs::read(r.join(IMPRESSIONS)).unwrap(), before);

    let body = server.requests()[0].body.clone();
    assert!(
        body.contains("export notes as CommonMark"),
        "the notes are sent"
    );
    assert!(body.contains("Quillnote Summary"), "the summary is sent");
    assert!(
        body.contains("decision-settings-sync"),
        "the impressions are listed"
    );
    assert!(
        !body.contains("TOPSECRET") && !body.contains("plans.md"),
        "{body}"
    );
}

#[test]
fn yes_writes_the_record_and_appends_its_route_leaving_other_lines_alone() {
    let dir = project();
    let r = dir.path();
    let before = fs::read_to_string(r.join(IMPRESSIONS)).unwrap();
    let reply = format!(
        "### FILE: memory/decisions/export-format.md\n{DECISION}\n### FILE: memory/impressions.jsonl\n{ROUTE}\n"
    );
    let server = FakeServer::start([FakeReply::openai_stream(&[&reply])]);
    let out = run(r, Some(&server), &["notes.md", "--yes", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["applied"], true);
    assert_eq!(v["blocks"][0]["status"], "new");
    assert_eq!(v["blocks"][1]["status"], "changed");
    assert_eq!(
        fs::read_to_string(r.join("memory/decisions/export-format.md")).unwrap(),
        DECISION
    );
    let after = fs::read_to_string(r.join(IMPRESSIONS)).unwrap();
    assert_eq!(after, format!("{before}{ROUTE}\n"));
    // The project still passes its checks except for what the reply left
    // undone (the summary and index do not link the new decision yet).
    let check = support::membank()
        .args(["check", r.to_str().unwrap(), "--json"])
        .env("MEMBANK_STATE_DIR", r.join("state"))
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(v["counts"]["error"], 0, "{v:#}");
}

#[test]
fn a_saved_reply_is_reviewed_without_a_model() {
    let dir = project();
    let r = dir.path();
    fs::write(r.join("reply.md"), reply_text()).unwrap();
    let out = run(r, None, &["--reply", "reply.md", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["applied"], false);
    let statuses: Vec<&str> = v["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["new", "changed", "rejected"]);
    assert!(
        v["blocks"][2]["reason"]
            .as_str()
            .unwrap()
            .contains("private"),
        "{v:#}"
    );
    assert!(!r.join("memory/decisions/export-format.md").exists());
}

#[test]
fn private_notes_are_refused_before_any_model_is_asked() {
    let dir = project();
    let r = dir.path();
    let server = FakeServer::start([FakeReply::openai_stream(&["never"])]);
    let out = run(r, Some(&server), &["memory/private/plans.md"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("private memory"),
        "{}",
        text(&out.stderr)
    );
    assert!(server.requests().is_empty());
}

#[test]
fn a_record_holding_a_credential_is_refused() {
    let dir = project();
    let r = dir.path();
    let key = format!("xoxb-{}", "1234567890-aBcDeFgHiJkL");
    let leaked = DECISION.replace(
        "Every editor reads them.",
        &format!("Every editor reads them. Bot token {key}."),
    );
    fs::write(
        r.join("reply.md"),
        format!("### FILE: memory/decisions/export-format.md\n{leaked}"),
    )
    .unwrap();
    let out = run(r, None, &["--reply", "reply.md", "--yes", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["blocks"][0]["status"], "rejected", "{v:#}");
    let reason = v["blocks"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("a Slack token on line"), "{reason}");
    assert!(!text(&out.stdout).contains(&key));
    assert!(!r.join("memory/decisions/export-format.md").exists());
}

#[test]
fn json_names_the_lines_withheld_from_a_sent_record() {
    let dir = project();
    let r = dir.path();
    let summary = r.join("memory/summary.md");
    let mut text_of_summary = fs::read_to_string(&summary).unwrap();
    text_of_summary.push_str("\n- [Plans](./private/plans.md)\n");
    fs::write(&summary, text_of_summary).unwrap();
    let server = FakeServer::start([FakeReply::openai_stream(&["Nothing durable here.\n"])]);
    let out = run(r, Some(&server), &["notes.md", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["withheld_lines"],
        serde_json::json!([{"path": "memory/summary.md", "lines": 1}]),
        "{v:#}"
    );
    let body = server.requests()[0].body.clone();
    assert!(!body.contains("plans.md"), "{body}");
}
