//! The LLM-backed subcommands against the scripted local server.

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use membank_llm::testing::{FakeReply, FakeServer};

const KEY: &str = "sk-ant-cli-test-key-0123456789";

fn fixture() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/scoring-bank")
}

struct Output {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs membank against `server` as an Anthropic endpoint, with no config
/// file and no key but the test's.
fn membank(server: &FakeServer, args: &[&str], stdin: &str) -> Output {
    let mut child = support::membank()
        .args(args)
        .env("MEMBANK_CONFIG", "/dev/null")
        .env("MEMBANK_PROVIDER", "anthropic")
        .env("MEMBANK_MODEL", "test-model")
        .env("MEMBANK_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", KEY)
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run membank");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn fixture_arg() -> String {
    fixture().to_str().unwrap().to_string()
}

#[test]
fn ask_streams_the_answer_and_lists_the_context_on_stderr() {
    let server = FakeServer::start([FakeReply::anthropic_stream(&[
        "Use ",
        "**naleving** \u{1b}[31m",
        "([[compliance → naleving]]).",
    ])]);
    let bank = fixture_arg();
    let out = membank(
        &server,
        &[
            "ask",
            &bank,
            "How do I translate compliance?",
            "--client",
            "Acme Corporation",
            "--source-lang",
            "en-US",
            "--target-lang",
            "nl-BE",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("Use **naleving** "),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("([[compliance → naleving]])."));
    // Into a pipe the reply is exact, escape included (a terminal gets it
    // made visible; see `a_reply_into_a_pipe_is_exact`).
    assert!(
        out.stdout.contains("**naleving** \u{1b}[31m("),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("used     01_CLIENTS/Acme Corporation.md"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("test-model"), "{}", out.stderr);
    assert!(!out.stderr.contains(KEY));

    let sent = &server.requests()[0];
    assert_eq!(sent.header("x-api-key"), Some(KEY));
    let body = sent.json();
    let system = body["system"].as_str().unwrap();
    // The bank's own query template is used (spec §13).
    let template = std::fs::read_to_string(fixture().join("06_TEMPLATES/query.md")).unwrap();
    assert!(system.starts_with(template.trim_end()), "{system}");
    assert!(system.contains("----- 01_CLIENTS/Acme Corporation.md -----"));
    assert!(!system.contains("NotAcme"));
    assert_eq!(
        body["messages"][0]["content"],
        "How do I translate compliance?"
    );
}

#[test]
fn ask_reports_dropped_articles_when_the_budget_is_small() {
    let server = FakeServer::start([FakeReply::anthropic_stream(&["ok"])]);
    let bank = fixture_arg();
    let out = membank(
        &server,
        &[
            "ask",
            &bank,
            "q",
            "--client",
            "Acme Corporation",
            "--source-lang",
            "en-US",
            "--budget",
            "60",
        ],
        "",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("dropped  "), "{}", out.stderr);
}

#[test]
fn ask_exits_1_and_keeps_the_partial_answer_when_the_stream_is_cut() {
    let server =
        FakeServer::start([FakeReply::anthropic_stream(&["Half an ", "answer"]).cut_after(4)]);
    let bank = fixture_arg();
    let out = membank(&server, &["ask", &bank, "q"], "");
    assert_eq!(out.code, 1);
    assert!(out.stdout.starts_with("Half an "), "{}", out.stdout);
    assert!(
        out.stderr
            .contains("connection closed before the reply was finished"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("incomplete"), "{}", out.stderr);
}

#[test]
fn ask_explains_a_rejected_key_without_showing_it() {
    let server = FakeServer::start([FakeReply::error(
        401,
        "authentication_error",
        &format!("invalid x-api-key {KEY}"),
    )]);
    let bank = fixture_arg();
    let out = membank(&server, &["ask", &bank, "q"], "");
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("ANTHROPIC_API_KEY"), "{}", out.stderr);
    assert!(!out.stderr.contains(KEY), "{}", out.stderr);
    assert!(!out.stdout.contains(KEY));
}

#[test]
fn ask_without_a_key_fails_before_any_request() {
    let server = FakeServer::start([]);
    let bank = fixture_arg();
    let out = support::membank()
        .args(["ask", &bank, "q"])
        .env("MEMBANK_CONFIG", "/dev/null")
        .env("MEMBANK_PROVIDER", "openai")
        .env("MEMBANK_BASE_URL", server.openai_base_url())
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("OPENAI_API_KEY"), "{stderr}");
    assert!(server.requests().is_empty());
}

#[test]
fn translate_reads_stdin_and_prints_the_translation() {
    let server = FakeServer::start([FakeReply::anthropic_stream(&["Naleving is ", "verplicht."])]);
    let bank = fixture_arg();
    let out = membank(
        &server,
        &[
            "translate",
            &bank,
            "--client",
            "Acme Corporation",
            "--source-lang",
            "en-US",
            "--target-lang",
            "nl-BE",
        ],
        "Compliance is mandatory.\n",
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Naleving is verplicht.\n");
    let body = server.requests()[0].json();
    let user = body["messages"][0]["content"].as_str().unwrap();
    assert!(user.contains("from en-US into nl-BE"), "{user}");
    assert!(user.ends_with("Compliance is mandatory."), "{user}");
}

#[test]
fn a_reply_into_a_pipe_is_exact() {
    // Tabs, bidi isolates and an escape, as a model may send them: a
    // terminal gets them made visible, a pipe gets them as they are, so
    // `lint --llm | blocks --apply` writes what the model wrote.
    let raw = "a\tb \u{2067}x\u{2069} \u{1b}]0;T\u{7}name.md";
    for args in [
        &["translate", "--target-lang", "nl-BE"][..],
        &["ask", "what?"][..],
        &["lint", "--llm"][..],
    ] {
        let server = FakeServer::start([FakeReply::anthropic_stream(&[raw])]);
        let bank = fixture_arg();
        let mut argv = vec![args[0], bank.as_str()];
        argv.extend(&args[1..]);
        let out = membank(&server, &argv, "Text.\n");
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, format!("{raw}\n"), "{args:?}");
    }
}

#[test]
fn translate_refuses_empty_input() {
    let server = FakeServer::start([]);
    let bank = fixture_arg();
    let out = membank(&server, &["translate", &bank], "  \n");
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("standard input is empty"),
        "{}",
        out.stderr
    );
    assert!(server.requests().is_empty());
}

fn temp_bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    dir
}

fn inbox_files(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("00_INBOX"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn distill_proposes_a_note_and_writes_it_only_with_yes() {
    let bank = temp_bank();
    let doc_dir = tempfile::tempdir().unwrap();
    let tmx = doc_dir.path().join("acme memory.tmx");
    std::fs::write(
        &tmx,
        r#"<tmx version="1.4"><header srclang="en-US"/><body>
<tu><tuv xml:lang="en-US"><seg>compliance</seg></tuv><tuv xml:lang="nl-BE"><seg>naleving</seg></tuv></tu>
</body></tmx>"#,
    )
    .unwrap();
    let reply = [
        "```markdown\n# Acme memory\n",
        "- compliance → naleving\n```",
    ];
    let server = FakeServer::start([
        FakeReply::anthropic_stream(&reply),
        FakeReply::anthropic_stream(&reply),
    ]);
    let root = bank.path().to_str().unwrap();
    let doc = tmx.to_str().unwrap();

    let out = membank(&server, &["distill", root, doc], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let first_line = out.stdout.lines().next().unwrap();
    assert!(
        first_line.starts_with("### FILE: 00_INBOX/distilled_acme memory_"),
        "{first_line}"
    );
    assert!(first_line.ends_with(".md"));
    assert!(
        out.stdout
            .ends_with("# Acme memory\n- compliance → naleving\n"),
        "{}",
        out.stdout
    );
    assert!(
        inbox_files(bank.path()).is_empty(),
        "nothing written without --yes"
    );
    let sent = server.requests()[0].json();
    let user = sent["messages"][0]["content"].as_str().unwrap();
    assert!(
        user.contains("[en-US] compliance ⇄ [nl-BE] naleving"),
        "{user}"
    );
    // No override in this bank: the bundled template is used.
    assert_eq!(
        sent["system"].as_str().unwrap(),
        membank_core::templates::Agent::Distill
            .bundled_text()
            .trim_end()
    );
    let proposed_path = first_line.trim_start_matches("### FILE: ");
    assert!(
        user.contains(&format!("Path for the note: {proposed_path}")),
        "{user}"
    );

    let out = membank(&server, &["distill", root, doc, "--yes"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    let files = inbox_files(bank.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert!(files[0].starts_with("distilled_acme memory_"));
    let written = std::fs::read_to_string(bank.path().join("00_INBOX").join(&files[0])).unwrap();
    assert_eq!(written, "# Acme memory\n- compliance → naleving\n");

    // The note is journalled as a distill, and undo takes it back.
    let list = support::membank()
        .args(["undo", root, "--list", "--json"])
        .output()
        .unwrap();
    let history: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(history[0]["kind"], "distill", "{history}");
    let undone = support::membank().args(["undo", root]).output().unwrap();
    assert!(
        undone.status.success(),
        "{}",
        String::from_utf8_lossy(&undone.stderr)
    );
    assert!(inbox_files(bank.path()).is_empty());
}

#[test]
fn distill_says_in_the_preview_that_a_note_would_be_refused() {
    let bank = temp_bank();
    let doc_dir = tempfile::tempdir().unwrap();
    let doc = doc_dir.path().join("notes.txt");
    std::fs::write(&doc, "Some notes.\n").unwrap();
    let (root, doc) = (bank.path().to_str().unwrap(), doc.to_str().unwrap());
    for (reply, why) in [
        ("# Keys\n- AKIAABCDEFGHIJKLMNOP is the deploy key\n", "AWS"),
        ("# Title\u{1b}]0;pwned\u{7}\n", "control character"),
        ("   \n", "empty note"),
    ] {
        for yes in [false, true] {
            let server = FakeServer::start([FakeReply::anthropic_stream(&[reply])]);
            let mut args = vec!["distill", root, doc];
            if yes {
                args.push("--yes");
            }
            let out = membank(&server, &args, "");
            assert_eq!(out.code, 1, "{reply:?} {yes}: {}", out.stderr);
            assert!(out.stdout.is_empty(), "{}", out.stdout);
            assert!(
                out.stderr.contains("the proposed note would be refused"),
                "{}",
                out.stderr
            );
            assert!(out.stderr.contains(why), "{why}: {}", out.stderr);
            assert!(!out.stderr.contains("--yes to add it"), "{}", out.stderr);
            assert!(inbox_files(bank.path()).is_empty());
        }
    }
}

#[test]
fn two_documents_of_one_name_distilled_in_one_second_get_two_notes() {
    let bank = temp_bank();
    let doc_dir = tempfile::tempdir().unwrap();
    let doc = doc_dir.path().join("notes.txt");
    std::fs::write(&doc, "compliance is naleving\n").unwrap();
    let reply = ["```markdown\n# Notes\n```"];
    let server = FakeServer::start([
        FakeReply::anthropic_stream(&reply),
        FakeReply::anthropic_stream(&reply),
    ]);
    let root = bank.path().to_str().unwrap();
    let doc = doc.to_str().unwrap();
    // The clock pinned to one second: both want one name.
    let args = [
        "distill",
        root,
        doc,
        "--yes",
        "--today",
        "2026-03-04T10:11:12",
    ];
    let first = membank(&server, &args, "");
    assert_eq!(first.code, 0, "{}", first.stderr);
    let second = membank(&server, &args, "");
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second
            .stdout
            .starts_with("### FILE: 00_INBOX/distilled_notes_20260304-101112_2.md\n"),
        "{}",
        second.stdout
    );
    assert_eq!(
        inbox_files(bank.path()),
        [
            "distilled_notes_20260304-101112.md",
            "distilled_notes_20260304-101112_2.md"
        ]
    );
}

#[test]
fn distill_reads_a_dash_as_standard_input() {
    let bank = temp_bank();
    let server = FakeServer::start([FakeReply::anthropic_stream(&["# Piped\n"])]);
    let root = bank.path().to_str().unwrap();
    let out = membank(&server, &["distill", root, "-"], "compliance is naleving\n");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout
            .starts_with("### FILE: 00_INBOX/distilled_stdin_"),
        "{}",
        out.stdout
    );
    let sent = server.requests()[0].json();
    let user = sent["messages"][0]["content"].as_str().unwrap();
    assert!(user.contains("compliance is naleving"), "{user}");
}

#[test]
fn distill_refuses_unsupported_documents_before_calling_the_model() {
    let bank = temp_bank();
    let doc_dir = tempfile::tempdir().unwrap();
    let pdf = doc_dir.path().join("brief.pdf");
    std::fs::write(&pdf, b"%PDF-1.7").unwrap();
    let server = FakeServer::start([]);
    let out = membank(
        &server,
        &[
            "distill",
            bank.path().to_str().unwrap(),
            pdf.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("brief.pdf"), "{}", out.stderr);
    assert!(server.requests().is_empty());
}

#[test]
fn lint_llm_sends_findings_and_snapshot_and_prints_the_review() {
    let server = FakeServer::start([FakeReply::anthropic_stream(&["Found 1 dead link."])]);
    let bank = fixture_arg();
    let out = membank(&server, &["lint", &bank, "--llm", "--cap", "400"], "");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "Found 1 dead link.\n");
    assert!(
        out.stderr.contains("truncated at 400 characters"),
        "{}",
        out.stderr
    );
    let body = server.requests()[0].json();
    let user = body["messages"][0]["content"].as_str().unwrap();
    assert!(user.contains("truncated: true"), "{user}");
    assert!(
        user.contains("- [warning] dead-link 01_CLIENTS/Acme Corporation.md:4: "),
        "{user}"
    );
}

#[test]
fn ask_works_against_an_openai_compatible_server_too() {
    let server = FakeServer::start([FakeReply::openai_stream(&["Hallo"])]);
    let out = support::membank()
        .args(["ask", &fixture_arg(), "q"])
        .env("MEMBANK_CONFIG", "/dev/null")
        .env_remove("ANTHROPIC_API_KEY")
        .envs(server.env_for(membank_llm::Provider::OpenAi))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Hallo\n");
    let sent = &server.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    assert_eq!(sent.header("authorization"), Some("Bearer test-key"));
}

#[test]
fn lint_without_llm_points_to_check() {
    let server = FakeServer::start([]);
    let bank = fixture_arg();
    let out = membank(&server, &["lint", &bank], "");
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("membank check"), "{}", out.stderr);
}

/// `MEMBANK_CONFIG=<(printf ...)` names a pipe, which gives its text to the
/// first read only: the `[llm]` table must still be the one used, not the
/// defaults (which would send the bank to another service).
#[test]
fn a_config_given_through_a_pipe_reaches_the_model_settings() {
    let server = FakeServer::start([FakeReply::openai_stream(&["Hallo"])]);
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("config.toml");
    std::fs::write(
        &source,
        format!(
            "[files]\nmax_file_mb = 4\n[llm]\nprovider = \"ollama\"\nmodel = \"m\"\nbase_url = \"{}\"\n",
            server.openai_base_url()
        ),
    )
    .unwrap();
    let mut cmd = std::process::Command::new("bash");
    support::isolate(&mut cmd);
    let out = cmd
        .args([
            "-c",
            r#"MEMBANK_CONFIG=<(cat "$1") exec "$0" ask "$2" q"#,
            env!("CARGO_BIN_EXE_membank"),
        ])
        .arg(&source)
        .arg(fixture_arg())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "Hallo\n");
    assert_eq!(server.requests().len(), 1);
}
