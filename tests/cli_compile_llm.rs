//! `membank compile BANK` against the scripted local server: the plan, the
//! `--yes` apply, rejected paths, cut streams, and crash safety (a run
//! aborted at every write, stamp and move, then rerun).

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use membank_llm::Provider;
use membank_llm::testing::{FakeReply, FakeServer};

const MAIL: &str = "00_INBOX/a-mail.md";
const NOTES: &str = "00_INBOX/b-notes.md";
const MAIL_TEXT: &str = "---\nfrom: jan@acme.example\n---\nAcme wants invoice terms checked.\n";
const NOTES_TEXT: &str = "Notes: compliance is naleving for Acme.\n";
const OLD_INVOICE: &str = "---\nterm_source: invoice\n---\n# invoice\nOld text.\n";

const ACME: &str = "---\nclient: Acme\n---\n# Acme\nDutch (Belgium).\n";
const COMPLIANCE: &str =
    "---\nterm_source: compliance\ncompiled_from: \"[[b-notes]]\"\n---\n# compliance → naleving\n";
const INVOICE: &str = "---\nterm_source: invoice\ncompiled_from:\n  - \"[[a-mail]]\"\n  - \"[[b-notes]]\"\n---\n# invoice\nfactuur\n";

/// Three blocks: one for the whole batch (no `compiled_from`), one for the
/// notes only, one naming both sources.
fn reply_text() -> String {
    format!(
        "Here are the files.\n\n### FILE: 01_CLIENTS/Acme.md\n{ACME}\n### FILE: 02_TERMINOLOGY/compliance.md\n{COMPLIANCE}\n### FILE: 02_TERMINOLOGY/invoice.md\n{INVOICE}"
    )
}

/// The reply as a stream of small pieces, split inside lines.
fn stream(text: &str) -> FakeReply {
    let pieces: Vec<String> = text
        .as_bytes()
        .chunks(37)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect();
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();
    FakeReply::openai_stream(&pieces)
}

fn make_bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in ["00_INBOX", "01_CLIENTS", "02_TERMINOLOGY", "06_TEMPLATES"] {
        fs::create_dir_all(root.join(folder)).unwrap();
    }
    fs::write(root.join(MAIL), MAIL_TEXT).unwrap();
    fs::write(root.join(NOTES), NOTES_TEXT).unwrap();
    fs::write(root.join("02_TERMINOLOGY/invoice.md"), OLD_INVOICE).unwrap();
    dir
}

struct Run {
    code: Option<i32>,
    #[cfg(unix)]
    signal: Option<i32>,
    stdout: String,
    stderr: String,
}

struct Env {
    /// Holds the config path (never created), the temp folder for saved
    /// replies, and the working directory.
    scratch: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        Env {
            scratch: tempfile::tempdir().unwrap(),
        }
    }

    fn tmp(&self) -> PathBuf {
        let tmp = self.scratch.path().join("tmp");
        fs::create_dir_all(&tmp).unwrap();
        tmp
    }

    fn command(&self, server: &FakeServer, args: &[&str]) -> std::process::Command {
        let mut cmd = support::membank();
        cmd.args(args)
            .current_dir(self.scratch.path())
            .env("MEMBANK_CONFIG", "/dev/null")
            .env("TMPDIR", self.tmp())
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("MEMBANK_FAILPOINT")
            .env_remove("MEMBANK_PAUSE");
        for (name, value) in server.env_for(Provider::OpenAi) {
            cmd.env(name, value);
        }
        cmd
    }

    fn run(&self, server: &FakeServer, args: &[&str], failpoint: Option<&str>) -> Run {
        let mut cmd = self.command(server, args);
        if let Some(point) = failpoint {
            cmd.env("MEMBANK_FAILPOINT", point);
        }
        let out = cmd.output().expect("run membank");
        Run {
            code: out.status.code(),
            #[cfg(unix)]
            signal: std::os::unix::process::ExitStatusExt::signal(&out.status),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// `compile --yes` started and stopped once it has shown its plan; it goes
/// on when the returned marker file is removed.
fn compile_paused_at_plan(
    env: &Env,
    server: &FakeServer,
    bank: &tempfile::TempDir,
) -> (std::process::Child, PathBuf) {
    let marker = env.scratch.path().join("plan-shown");
    let mut child = env
        .command(server, &["compile", &bank_arg(bank), "--yes"])
        .env("MEMBANK_PAUSE", format!("plan-shown:{}", marker.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("membank starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !marker.exists() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("membank ended before showing its plan: {status}");
        }
        assert!(std::time::Instant::now() < deadline, "no plan shown");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    (child, marker)
}

fn bank_arg(bank: &tempfile::TempDir) -> String {
    bank.path().to_str().unwrap().to_owned()
}

/// Every file of the bank with its bytes, for before/after comparisons.
fn files_in(root: &Path, folder: &str) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(root.join(folder))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The `compiled_to` list of a stamped file, in order.
fn compiled_to(text: &str) -> Vec<String> {
    let mut lines = text.lines().skip_while(|l| *l != "compiled_to:").skip(1);
    let mut out = Vec::new();
    while let Some(item) = lines.next().and_then(|l| l.strip_prefix("  - ")) {
        out.push(item.trim_matches('"').to_owned());
    }
    out
}

/// The replies saved in the temporary folder (each with the list of the
/// notes it was made from beside it).
fn saved_replies(env: &Env) -> Vec<String> {
    let mut all = files_in(&env.tmp(), "");
    for reply in all.iter().filter(|f| f.ends_with(".md")) {
        assert!(
            env.tmp().join(format!("{reply}.sent.json")).is_file(),
            "{reply} has its notes beside it: {all:?}"
        );
    }
    all.retain(|f| !f.ends_with(".sent.json"));
    all
}

fn temp_leftovers(root: &Path) -> Vec<String> {
    support::tree(root)
        .into_keys()
        .filter(|p| p.ends_with(".tmp"))
        .collect()
}

/// The state every completed Process Inbox of `reply_text` must leave.
fn assert_fully_compiled(root: &Path, context: &str) {
    assert_eq!(files_in(root, "01_CLIENTS"), vec!["Acme.md"], "{context}");
    assert_eq!(
        files_in(root, "02_TERMINOLOGY"),
        vec!["compliance.md", "invoice.md"],
        "{context}"
    );
    assert_eq!(
        fs::read_to_string(root.join("01_CLIENTS/Acme.md")).unwrap(),
        ACME
    );
    assert_eq!(
        fs::read_to_string(root.join("02_TERMINOLOGY/compliance.md")).unwrap(),
        COMPLIANCE
    );
    assert_eq!(
        fs::read_to_string(root.join("02_TERMINOLOGY/invoice.md")).unwrap(),
        INVOICE
    );
    // Nothing pending, each source archived exactly once under its own name.
    assert_eq!(files_in(root, "00_INBOX"), vec!["_archive"], "{context}");
    assert_eq!(
        files_in(root, "00_INBOX/_archive"),
        vec!["a-mail.md", "b-notes.md"],
        "{context}"
    );
    let mail = fs::read_to_string(root.join("00_INBOX/_archive/a-mail.md")).unwrap();
    let notes = fs::read_to_string(root.join("00_INBOX/_archive/b-notes.md")).unwrap();
    for (text, body) in [
        (&mail, "Acme wants invoice terms checked."),
        (&notes, NOTES_TEXT.trim()),
    ] {
        assert!(text.contains("compiled: true"), "{context}: {text}");
        assert_eq!(text.matches(body).count(), 1, "{context}: {text}");
        assert_eq!(text.matches("compiled_to:").count(), 1, "{context}: {text}");
    }
    assert!(mail.contains("from: jan@acme.example"), "{context}: {mail}");
    assert_eq!(
        compiled_to(&mail),
        vec!["01_CLIENTS/Acme.md", "02_TERMINOLOGY/invoice.md"],
        "{context}"
    );
    assert_eq!(
        compiled_to(&notes),
        vec![
            "01_CLIENTS/Acme.md",
            "02_TERMINOLOGY/compliance.md",
            "02_TERMINOLOGY/invoice.md"
        ],
        "{context}"
    );
    assert_eq!(temp_leftovers(root), Vec::<String>::new(), "{context}");
}

#[test]
fn yes_writes_the_blocks_then_stamps_and_archives_the_sources() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let env = Env::new();
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_fully_compiled(bank.path(), "single run");
    // The prompt carried both inbox files and the existing article.
    let body = server.requests()[0].json().to_string();
    assert!(body.contains("Acme wants invoice terms checked."), "{body}");
    assert!(body.contains("compliance is naleving"), "{body}");
    assert!(body.contains("Old text."), "{body}");
    assert!(
        out.stdout.contains("archived  00_INBOX/b-notes.md"),
        "{}",
        out.stdout
    );
    // The reply itself is not printed unless asked for.
    assert!(!out.stdout.contains("Dutch (Belgium)"), "{}", out.stdout);
    assert!(!out.stderr.contains("Dutch (Belgium)"), "{}", out.stderr);
}

#[test]
fn undo_puts_the_sources_back_in_the_inbox_and_takes_the_articles_away() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let env = Env::new();
    let files = |root: &Path| {
        let mut all = support::tree(root);
        all.retain(|path, _| !path.ends_with('/'));
        all
    };
    let before = files(bank.path());
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_fully_compiled(bank.path(), "before the undo");

    let list = env
        .command(&server, &["undo", &bank_arg(&bank), "--list", "--json"])
        .output()
        .unwrap();
    let history: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(history[0]["kind"], "inbox", "{history}");
    let undone = env
        .command(&server, &["undo", &bank_arg(&bank)])
        .output()
        .unwrap();
    assert!(
        undone.status.success(),
        "{}",
        String::from_utf8_lossy(&undone.stderr)
    );
    assert_eq!(files(bank.path()), before);
}

#[test]
fn a_saved_reply_applied_is_journalled_and_undone_like_a_model_run() {
    let server = FakeServer::start([]);
    let bank = make_bank();
    let env = Env::new();
    let files = |root: &Path| {
        let mut all = support::tree(root);
        all.retain(|path, _| !path.ends_with('/'));
        all
    };
    let saved = env.tmp().join("reply.md");
    fs::write(&saved, reply_text()).unwrap();
    let before = files(bank.path());
    let out = env.run(
        &server,
        &[
            "compile",
            &bank_arg(&bank),
            "--reply",
            saved.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_fully_compiled(bank.path(), "the saved reply applied");
    assert!(server.requests().is_empty());

    let list = env
        .command(&server, &["undo", &bank_arg(&bank), "--list", "--json"])
        .output()
        .unwrap();
    let history: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(history[0]["kind"], "inbox", "{history}");
    let undone = env
        .command(&server, &["undo", &bank_arg(&bank)])
        .output()
        .unwrap();
    assert!(
        undone.status.success(),
        "{}",
        String::from_utf8_lossy(&undone.stderr)
    );
    assert_eq!(files(bank.path()), before);
}

/// A reply saved by a model run and applied later with `--reply` is
/// applied to the notes it was made from: one added since stays pending.
#[test]
fn a_saved_reply_applied_later_leaves_a_note_added_since_in_the_inbox() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let root = bank.path();
    let env = Env::new();
    let planned = env.run(&server, &["compile", &bank_arg(&bank)], None);
    let saved: Vec<PathBuf> = saved_replies(&env)
        .iter()
        .map(|f| env.tmp().join(f))
        .collect();
    assert_eq!(saved.len(), 1, "{}\n{}", planned.stdout, planned.stderr);
    let later = "00_INBOX/c-later.md";
    fs::write(root.join(later), "Written after the model answered.\n").unwrap();
    let out = env.run(
        &server,
        &[
            "compile",
            &bank_arg(&bank),
            "--reply",
            saved[0].to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out.stdout
            .contains("kept in inbox  00_INBOX/c-later.md: it was not sent with this reply"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert_eq!(
        fs::read_to_string(root.join(later)).unwrap(),
        "Written after the model answered.\n"
    );
    assert!(root.join("00_INBOX/_archive/a-mail.md").is_file());
    assert!(root.join("00_INBOX/_archive/b-notes.md").is_file());
    assert_eq!(server.requests().len(), 1, "the saved reply asks no model");
}

/// Every failpoint stops the process by design right after a completed
/// atomic step (a renamed write, a stamp, a move), so no `.tmp` file is
/// left even by the crashed run; the rerun must then converge.
#[test]
fn a_crash_at_any_step_then_a_rerun_loses_and_duplicates_nothing() {
    let points = [
        "after-write:1",
        "after-write:2",
        "after-write:3",
        "after-stamp:1",
        "after-archive:1",
        "after-stamp:2",
        "after-archive:2",
    ];
    for point in points {
        let server = FakeServer::start([stream(&reply_text()), stream(&reply_text())]);
        let bank = make_bank();
        let root = bank.path();
        let env = Env::new();
        let crashed = env.run(
            &server,
            &["compile", &bank_arg(&bank), "--yes"],
            Some(point),
        );
        assert_eq!(
            crashed.code, None,
            "{point} did not abort: {}",
            crashed.stderr
        );
        #[cfg(unix)]
        assert_eq!(crashed.signal, Some(6), "{point}: {}", crashed.stderr);
        assert_eq!(temp_leftovers(root), Vec::<String>::new(), "{point}");

        let rerun = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
        // With both sources archived before the crash there is nothing
        // left to do, which is exit 1 as for any empty inbox.
        let expected = if point == "after-archive:2" { 1 } else { 0 };
        assert_eq!(
            rerun.code,
            Some(expected),
            "{point}: {}\n{}",
            rerun.stdout,
            rerun.stderr
        );
        assert_fully_compiled(root, point);

        // A source stamped or archived before the crash is not sent again.
        let requests = server.requests();
        let mail_done = matches!(point, "after-stamp:1" | "after-archive:1");
        // Both sources stamped: the rerun only finishes the moves.
        if matches!(point, "after-stamp:2" | "after-archive:2") {
            assert_eq!(requests.len(), 1, "{point}: nothing was left to ask");
            assert!(
                rerun.stderr.contains("Nothing to compile"),
                "{}",
                rerun.stderr
            );
        } else {
            assert_eq!(requests.len(), 2, "{point}");
            let prompt = requests[1].json().to_string();
            assert_eq!(
                prompt.contains("Acme wants invoice terms checked."),
                !mail_done,
                "{point}: {prompt}"
            );
            assert!(prompt.contains("compliance is naleving"), "{point}");
        }
        if matches!(point, "after-stamp:1" | "after-stamp:2") {
            assert!(
                rerun.stdout.contains("recovered 00_INBOX/"),
                "{}",
                rerun.stdout
            );
        }
    }
}

#[test]
fn yes_shows_the_new_plan_when_files_change_after_the_plan() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let root = bank.path();
    let env = Env::new();
    let (child, marker) = compile_paused_at_plan(&env, &server, &bank);
    // The run has shown its plan and waits: change two planned files.
    let hand_invoice = "---\nterm_source: invoice\n---\n# invoice\nedited by hand\n";
    fs::write(root.join("02_TERMINOLOGY/invoice.md"), hand_invoice).unwrap();
    fs::write(root.join("01_CLIENTS/Acme.md"), "# Acme\nwritten by hand\n").unwrap();
    let before = support::tree(root);
    fs::remove_file(&marker).unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    // Nothing was written, stamped or archived.
    assert_eq!(support::tree(root), before);
    assert!(
        stderr.contains(
            "01_CLIENTS/Acme.md, 02_TERMINOLOGY/invoice.md changed on disk after the plan \
             was made; nothing was written"
        ) || stderr.contains(
            "02_TERMINOLOGY/invoice.md, 01_CLIENTS/Acme.md changed on disk after the plan \
             was made; nothing was written"
        ),
        "{stderr}"
    );
    // The first plan was made against the old files, the new one against
    // the edits.
    let (first, new) = stdout.split_once("New plan:").expect("a new plan");
    assert!(first.contains("new        01_CLIENTS/Acme.md"), "{first}");
    assert!(first.contains("-Old text."), "{first}");
    assert!(new.contains("changed    01_CLIENTS/Acme.md"), "{new}");
    assert!(new.contains("-edited by hand"), "{new}");
    assert!(!new.contains("-Old text."), "{new}");
}

/// A note edited while the model answered is not stamped "compiled" with
/// words the model never saw: it stays in the inbox, as edited, and the
/// note that did not change is archived.
#[test]
fn a_note_edited_after_it_was_sent_stays_in_the_inbox() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let root = bank.path();
    let env = Env::new();
    let (child, marker) = compile_paused_at_plan(&env, &server, &bank);
    let edited = format!("{NOTES_TEXT}Added while the model answered.\n");
    fs::write(root.join(NOTES), &edited).unwrap();
    fs::remove_file(&marker).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !server.requests()[0]
            .json()
            .to_string()
            .contains("Added while"),
        "the edit was made after the request"
    );
    assert_eq!(fs::read_to_string(root.join(NOTES)).unwrap(), edited);
    assert!(!root.join("00_INBOX/_archive/b-notes.md").exists());
    assert!(root.join("00_INBOX/_archive/a-mail.md").is_file());
    assert!(
        stdout.contains(
            "kept in inbox  00_INBOX/b-notes.md: it changed after it was sent to the model"
        ),
        "{stdout}\n{stderr}"
    );
    assert_ne!(out.status.code(), Some(0), "not every source was archived");
}

#[test]
fn without_yes_the_plan_is_shown_and_nothing_is_written() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let env = Env::new();
    let before = support::tree(bank.path());
    let out = env.run(&server, &["compile", &bank_arg(&bank)], None);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(support::tree(bank.path()), before);

    let plan = &out.stdout;
    assert!(plan.contains("new        01_CLIENTS/Acme.md"), "{plan}");
    assert!(
        plan.contains("new        02_TERMINOLOGY/compliance.md"),
        "{plan}"
    );
    assert!(
        plan.contains("changed    02_TERMINOLOGY/invoice.md"),
        "{plan}"
    );
    assert!(plan.contains("--- a/02_TERMINOLOGY/invoice.md"), "{plan}");
    assert!(plan.contains("-Old text."), "{plan}");
    assert!(plan.contains("+factuur"), "{plan}");
    // A new file's whole text is shown, as `--yes` would write it.
    assert!(
        plan.contains("      +# compliance → naleving\n")
            && plan.contains("      +term_source: compliance\n"),
        "{plan}"
    );
    assert!(
        plan.contains("would archive  00_INBOX/a-mail.md (2 file(s))"),
        "{plan}"
    );
    assert!(
        plan.contains("compiled_to  02_TERMINOLOGY/compliance.md"),
        "{plan}"
    );
    assert!(plan.contains("--yes"), "{plan}");

    // The raw reply is kept outside the bank, ready for --reply.
    let saved = saved_replies(&env);
    assert_eq!(saved.len(), 1, "{saved:?}");
    let saved_path = env.tmp().join(&saved[0]);
    assert_eq!(fs::read_to_string(&saved_path).unwrap(), reply_text());
    assert!(out.stderr.contains(&saved[0]), "{}", out.stderr);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = fs::metadata(&saved_path).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o077,
            0,
            "the saved reply is readable by the user only"
        );
    }

    // Applying the saved reply offline gives the same result as --yes.
    let offline = env.run(
        &server,
        &[
            "compile",
            &bank_arg(&bank),
            "--reply",
            saved_path.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(offline.code, Some(0), "{}", offline.stderr);
    assert_fully_compiled(bank.path(), "offline reapply");
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn json_plan_lists_statuses_sources_and_completeness() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    let env = Env::new();
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--json"], None);
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["reply_complete"], true);
    assert_eq!(json["applied"], false);
    let statuses: Vec<(&str, &str)> = json["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["path"].as_str().unwrap(), b["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("01_CLIENTS/Acme.md", "new"),
            ("02_TERMINOLOGY/compliance.md", "new"),
            ("02_TERMINOLOGY/invoice.md", "changed"),
        ]
    );
    assert_eq!(json["sources"][0]["source"], MAIL);
    assert_eq!(json["sources"][0]["status"], "would-archive");
    assert_eq!(
        json["sources"][0]["compiled_to"],
        serde_json::json!(["01_CLIENTS/Acme.md", "02_TERMINOLOGY/invoice.md"])
    );
}

#[test]
fn escaping_and_template_paths_are_rejected_and_the_rest_applied() {
    let reply = format!(
        "### FILE: ../outside.md\nescape\n### FILE: 01_CLIENTS/../../outside.md\nescape\n### FILE: 06_TEMPLATES/compile.md\nhijack\n### FILE: 01_CLIENTS/Acme.md\n{ACME}"
    );
    let server = FakeServer::start([stream(&reply)]);
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("bank");
    for folder in ["00_INBOX", "01_CLIENTS", "06_TEMPLATES"] {
        fs::create_dir_all(root.join(folder)).unwrap();
    }
    fs::write(root.join(MAIL), MAIL_TEXT).unwrap();
    fs::write(root.join("06_TEMPLATES/compile.md"), "my template\n").unwrap();
    let env = Env::new();
    let out = env.run(
        &server,
        &["compile", root.to_str().unwrap(), "--yes", "--json"],
        None,
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let statuses: Vec<&str> = json["blocks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, vec!["rejected", "rejected", "rejected", "new"]);
    for b in &json["blocks"].as_array().unwrap()[..3] {
        assert!(!b["reason"].as_str().unwrap().is_empty(), "{b}");
    }
    assert!(!parent.path().join("outside.md").exists());
    assert!(!root.join("outside.md").exists());
    assert_eq!(
        fs::read_to_string(root.join("06_TEMPLATES/compile.md")).unwrap(),
        "my template\n"
    );
    assert_eq!(
        fs::read_to_string(root.join("01_CLIENTS/Acme.md")).unwrap(),
        ACME
    );
    let archived = fs::read_to_string(root.join("00_INBOX/_archive/a-mail.md")).unwrap();
    assert_eq!(compiled_to(&archived), vec!["01_CLIENTS/Acme.md"]);
}

#[test]
fn a_reply_wrapped_in_code_fences_is_unwrapped() {
    let reply = format!(
        "```markdown\n### FILE: 01_CLIENTS/Acme.md\n```markdown\n{ACME}```\n### FILE: 02_TERMINOLOGY/compliance.md\n{COMPLIANCE}```\n"
    );
    let server = FakeServer::start([stream(&reply)]);
    let bank = make_bank();
    fs::remove_file(bank.path().join(NOTES)).unwrap();
    let env = Env::new();
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
    assert_eq!(out.code, Some(0), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(
        fs::read_to_string(bank.path().join("01_CLIENTS/Acme.md")).unwrap(),
        ACME
    );
    assert_eq!(
        fs::read_to_string(bank.path().join("02_TERMINOLOGY/compliance.md")).unwrap(),
        COMPLIANCE
    );
}

#[test]
fn a_cut_stream_is_never_applied() {
    let full = reply_text();
    let server = FakeServer::start([stream(&full).cut_after(6)]);
    let bank = make_bank();
    let env = Env::new();
    let before = support::tree(bank.path());
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert_eq!(support::tree(bank.path()), before);
    assert!(out.stderr.contains("incomplete"), "{}", out.stderr);
    assert!(out.stdout.contains("INCOMPLETE"), "{}", out.stdout);
    assert!(out.stdout.contains("01_CLIENTS/Acme.md"), "{}", out.stdout);
    assert!(!out.stdout.contains("Applied"), "{}", out.stdout);

    // The part that arrived is saved for review, only a prefix, under a
    // first line that marks it as cut short.
    let saved = saved_replies(&env);
    assert_eq!(saved.len(), 1);
    let path = env.tmp().join(&saved[0]);
    let text = fs::read_to_string(&path).unwrap();
    let (mark, arrived) = text.split_once('\n').unwrap();
    assert!(mark.contains("did not arrive whole"), "{mark}");
    assert!(!arrived.is_empty() && full.starts_with(arrived) && arrived.len() < full.len());
    assert!(
        out.stderr
            .contains(&format!("is saved in {} for review", path.display())),
        "{}",
        out.stderr
    );
    // Said once, truthfully: not "apply it later" and then "refused".
    assert!(!out.stderr.contains("apply it later"), "{}", out.stderr);
    assert_eq!(
        out.stderr.matches("is saved in").count(),
        1,
        "{}",
        out.stderr
    );
    // Applied later, it would cut an article short: refused, nothing written.
    let path_arg = path.display().to_string();
    let again = env.run(
        &server,
        &["compile", &bank_arg(&bank), "--reply", &path_arg],
        None,
    );
    assert_eq!(again.code, Some(2), "{}\n{}", again.stdout, again.stderr);
    assert!(
        again.stderr.contains("did not arrive whole"),
        "{}",
        again.stderr
    );
    assert_eq!(support::tree(bank.path()), before);
    let blocks = env.run(
        &server,
        &["blocks", &bank_arg(&bank), "--reply", &path_arg, "--apply"],
        None,
    );
    assert_eq!(blocks.code, Some(2), "{}", blocks.stderr);
    assert_eq!(support::tree(bank.path()), before);
    // Whoever checked it deletes the mark and applies what they checked.
    fs::write(&path, arrived).unwrap();
    let plan = env.run(
        &server,
        &["compile", &bank_arg(&bank), "--reply", &path_arg, "--plan"],
        None,
    );
    assert!(
        !plan.stderr.contains("did not arrive whole"),
        "{}",
        plan.stderr
    );
}

#[test]
fn a_stream_cut_before_any_text_never_points_at_a_saved_reply() {
    let server = FakeServer::start([stream(&reply_text()).cut_after(0)]);
    let bank = make_bank();
    let env = Env::new();
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
    assert_eq!(out.code, Some(1), "{}\n{}", out.stdout, out.stderr);
    assert!(files_in(&env.tmp(), "").is_empty());
    assert!(!out.stderr.contains("saved reply"), "{}", out.stderr);
    assert!(!out.stderr.contains("is saved in"), "{}", out.stderr);
    assert!(
        out.stderr.contains("the reply was not saved"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_cut_stream_reports_incomplete_in_json() {
    let server = FakeServer::start([stream(&reply_text()).cut_after(6)]);
    let bank = make_bank();
    let env = Env::new();
    let before = support::tree(bank.path());
    let out = env.run(
        &server,
        &["compile", &bank_arg(&bank), "--yes", "--json"],
        None,
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert_eq!(support::tree(bank.path()), before);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["reply_complete"], false);
    assert_eq!(json["applied"], false);
    assert_eq!(json["sources"][0]["status"], "kept");
}

#[test]
fn an_unreadable_inbox_note_is_counted_alike_by_inbox_and_process_inbox() {
    const BROKEN: &str = "00_INBOX/c-broken.md";
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    fs::write(bank.path().join(BROKEN), b"caf\xe9 notes\n").unwrap();
    let env = Env::new();
    let listed = env.run(&server, &["inbox", &bank_arg(&bank), "--json"], None);
    let listed: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(listed["pending"].as_array().unwrap().len(), 2);
    assert_eq!(listed["unreadable"][0]["path"], BROKEN);

    let out = env.run(&server, &["compile", &bank_arg(&bank), "--json"], None);
    assert!(
        out.stderr.contains("unreadable  00_INBOX/c-broken.md"),
        "{}",
        out.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let sources: Vec<(&str, &str)> = json["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["source"].as_str().unwrap(), s["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        sources,
        vec![
            (MAIL, "would-archive"),
            (NOTES, "would-archive"),
            (BROKEN, "kept")
        ]
    );
    assert_eq!(out.code, Some(1), "a note left behind is not a clean run");
    assert!(!server.requests()[0].body.contains("c-broken"));

    // A saved reply applied from disk counts the same note as pending.
    fs::write(env.scratch.path().join("reply.md"), reply_text()).unwrap();
    let reply = env.scratch.path().join("reply.md");
    let out = env.run(
        &server,
        &[
            "compile",
            &bank_arg(&bank),
            "--reply",
            reply.to_str().unwrap(),
            "--plan",
            "--json",
        ],
        None,
    );
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let listed: Vec<&str> = json["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source"].as_str().unwrap())
        .collect();
    assert_eq!(listed, vec![MAIL, NOTES, BROKEN]);
}

#[test]
fn an_empty_inbox_asks_nothing() {
    let server = FakeServer::start([stream(&reply_text())]);
    let bank = make_bank();
    fs::remove_file(bank.path().join(MAIL)).unwrap();
    fs::remove_file(bank.path().join(NOTES)).unwrap();
    let env = Env::new();
    let out = env.run(&server, &["compile", &bank_arg(&bank), "--yes"], None);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("Nothing to compile"), "{}", out.stderr);
    assert!(server.requests().is_empty());
}

#[test]
fn control_characters_from_the_model_never_reach_the_terminal() {
    let reply = "### FILE: 02_TERMINOLOGY/invoice.md\n---\nterm_source: invoice\n---\n# invoice \u{1b}]0;owned\u{7}\u{1b}[31mred\n### FILE: 01_CLIENTS/\u{1b}[2Jx.md\nx\n";
    let server = FakeServer::start([stream(reply)]);
    let bank = make_bank();
    let env = Env::new();
    let out = env.run(
        &server,
        &["compile", &bank_arg(&bank), "--show-reply"],
        None,
    );
    // Such content is never written either: the block is rejected, naming
    // the character and its line.
    assert!(
        out.stdout.contains("rejected   02_TERMINOLOGY/invoice.md"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("line 4 contains the control character U+001B"),
        "{}",
        out.stdout
    );
    for stream in [&out.stdout, &out.stderr] {
        assert!(
            !stream.contains('\u{1b}') && !stream.contains('\u{7}'),
            "{stream:?}"
        );
    }
}
