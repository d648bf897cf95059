//! `membank undo` end to end: each kind of write taken back to the byte,
//! a change made since refused with the file named, the history listed,
//! and the journal kept in the state folder, never in the memory.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

fn run(state: &Path, args: &[&str]) -> Output {
    support::membank()
        .env("MEMBANK_STATE_DIR", state)
        .args(args)
        .args(["--today", "2026-04-08"])
        .output()
        .expect("membank runs")
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

/// Every file and folder under `root` with its bytes (folders: empty).
/// A bank where `fix` changes a file (BOM, CRLF, short date), deletes a
/// leftover and makes a missing folder.
fn flawed_bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(d.path().join(f)).unwrap();
    }
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        b"\xEF\xBB\xBF---\r\ndomain: Legal\r\nlanguages: [en]\r\nlast_updated: \"2026-4-1\"\r\n---\r\n[[Tax]]\r\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Tax.md",
        b"---\ndomain: Tax\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n[[Legal]]\n",
    );
    write(d.path(), "03_DOMAINS/Tax.md.tmp", b"half a save");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_fix_undone_leaves_the_bank_byte_for_byte_as_before() {
    let bank = flawed_bank();
    let state = tempfile::tempdir().unwrap();
    let before = support::tree(bank.path());
    let fixed = run(state.path(), &["fix", s(bank.path()), "--yes"]);
    assert!(fixed.status.code().is_some());
    assert_ne!(
        support::tree(bank.path()),
        before,
        "the fix wrote something"
    );

    ok(&run(state.path(), &["undo", s(bank.path())]));
    assert_eq!(support::tree(bank.path()), before);
    // The undo is journalled; the next undo finds nothing left to take back.
    let again = run(state.path(), &["undo", s(bank.path())]);
    assert_eq!(again.status.code(), Some(1));
    // The history is not empty (`--list` shows the fix and its undo), so
    // the reason is that everything in it was undone, not that it is empty.
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("nothing to undo: every journalled change of this memory has been undone already (2 entries listed"),
        "{err}"
    );
    let fresh = flawed_bank();
    let never = run(state.path(), &["undo", s(fresh.path())]);
    assert!(
        String::from_utf8_lossy(&never.stderr).contains("the journal has no change of this memory"),
        "{never:?}"
    );
}

#[test]
fn an_agent_write_undone_removes_what_it_created() {
    let bank = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(bank.path().join(f)).unwrap();
    }
    let before = support::tree(bank.path());
    let reply = tempfile::NamedTempFile::new().unwrap();
    fs::write(
        reply.path(),
        "### FILE: 01_CLIENTS/Acme.md\n```markdown\n---\nclient: Acme\nlast_updated: 2026-04-08\n---\nPrefers short sentences.\n```\n",
    )
    .unwrap();
    let out = run(
        state.path(),
        &[
            "blocks",
            s(bank.path()),
            "--reply",
            s(reply.path()),
            "--apply",
        ],
    );
    ok(&out);
    assert!(bank.path().join("01_CLIENTS/Acme.md").exists());

    ok(&run(state.path(), &["undo", s(bank.path())]));
    assert_eq!(support::tree(bank.path()), before);
}

#[test]
fn a_file_changed_since_is_named_and_nothing_is_reverted() {
    let bank = flawed_bank();
    let state = tempfile::tempdir().unwrap();
    run(state.path(), &["fix", s(bank.path()), "--yes"]);
    write(bank.path(), "03_DOMAINS/Legal.md", b"edited by hand\n");
    let after_edit = support::tree(bank.path());

    let out = run(state.path(), &["undo", s(bank.path())]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("03_DOMAINS/Legal.md") && err.contains("nothing was reverted"),
        "{err}"
    );
    assert_eq!(support::tree(bank.path()), after_edit);
}

/// A damaged entry that is the only one is named, not taken for an empty
/// journal: it may be the change the user wants back.
#[test]
fn a_damaged_only_entry_is_named_not_called_nothing() {
    let bank = flawed_bank();
    let state = tempfile::tempdir().unwrap();
    ok(&run(state.path(), &["fix", s(bank.path()), "--yes"]));
    let entry = walk_json(state.path());
    fs::write(&entry, "{broken").unwrap();
    let out = run(state.path(), &["undo", s(bank.path())]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(entry.file_name().unwrap().to_str().unwrap())
            && err.contains("the last journal entry cannot be read"),
        "{err}"
    );
}

/// The one journal entry file under `state`.
fn walk_json(state: &Path) -> std::path::PathBuf {
    let mut found = Vec::new();
    let mut dirs = vec![state.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in fs::read_dir(d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                found.push(p);
            }
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

/// The history's paths come from the bank: printed as JSON they go
/// through the one JSON writer, so a bidi override in a name is escaped,
/// not printed for the terminal to act on.
#[test]
fn the_history_as_json_escapes_what_a_terminal_would_act_on() {
    let bank = flawed_bank();
    let state = tempfile::tempdir().unwrap();
    write(
        bank.path(),
        "03_DOMAINS/x\u{202E}gpj.md.abc123.tmp",
        b"half a save",
    );
    run(state.path(), &["fix", s(bank.path()), "--yes"]);
    let out = run(state.path(), &["undo", s(bank.path()), "--list", "--json"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains('\u{202E}'), "{text}");
    assert!(text.contains("x\\u202egpj.md.abc123.tmp"), "{text}");
}

#[test]
fn the_history_is_listed_and_the_journal_stays_out_of_the_memory() {
    let bank = flawed_bank();
    let state = tempfile::tempdir().unwrap();
    run(state.path(), &["fix", s(bank.path()), "--yes"]);
    let out = run(state.path(), &["undo", s(bank.path()), "--list", "--json"]);
    ok(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let entries = v.as_array().unwrap();
    assert_eq!(entries.len(), 1, "{v}");
    assert_eq!(entries[0]["kind"], "fix");
    assert_eq!(entries[0]["next"], true);
    let changes: Vec<(&str, &str)> = entries[0]["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["path"].as_str().unwrap(), f["change"].as_str().unwrap()))
        .collect();
    assert!(
        changes.contains(&("03_DOMAINS/Legal.md", "changed")),
        "{changes:?}"
    );
    assert!(
        changes.contains(&("03_DOMAINS/Tax.md.tmp", "deleted")),
        "{changes:?}"
    );

    let in_bank = support::tree(bank.path());
    assert!(
        !in_bank.keys().any(|k| k.ends_with(".json")),
        "{:?}",
        in_bank.keys()
    );
    assert!(state.path().join("journal").is_dir());

    let text = run(state.path(), &["undo", s(bank.path()), "--list"]);
    ok(&text);
    assert!(String::from_utf8_lossy(&text.stdout).contains("undo takes this back next"));
}

#[test]
fn a_deja_vu_supersede_undone_leaves_the_project_as_before() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = project.path();
    write(
        root,
        "memory/summary.md",
        b"---\nid: summary\ntitle: Summary\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# Summary\n",
    );
    for (name, title) in [("old", "Old"), ("new", "New")] {
        write(
            root,
            &format!("memory/decisions/{name}.md"),
            format!(
                "---\nid: {name}\ntitle: {title}\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# {title}\n"
            )
            .as_bytes(),
        );
    }
    write(
        root,
        "memory/index.md",
        b"# Memory Index\n\n## Active decisions\n\n- [Old](./decisions/old.md)\n",
    );
    write(
        root,
        "memory/impressions.jsonl",
        b"{\"schema_version\":1,\"id\":\"imp-old\",\"scope\":\"project:p\",\"title\":\"Old\",\"keywords\":[\"alpha\",\"beta\",\"gamma\"],\"record_path\":\"memory/decisions/old.md\",\"updated\":\"2026-01-01\",\"weight\":0.5,\"status\":\"active\"}\n",
    );
    let before = support::tree(root);
    ok(&run(
        state.path(),
        &["supersede", s(root), "old", "new", "--yes"],
    ));
    assert_ne!(support::tree(root), before, "the supersede wrote something");
    let list = run(state.path(), &["undo", s(root), "--list", "--json"]);
    let history: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(history[0]["kind"], "supersede", "{history}");

    ok(&run(state.path(), &["undo", s(root)]));
    assert_eq!(support::tree(root), before);
}

#[test]
fn recall_feedback_added_is_journalled_as_feedback_and_undone() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = project.path();
    write(
        root,
        "memory/summary.md",
        b"---\nid: summary\ntitle: Summary\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# Summary\n",
    );
    write(root, "memory/recall-feedback.jsonl", b"");
    let before = support::tree(root);
    ok(&run(
        state.path(),
        &["feedback", s(root), "--add", "helpful", "--cue", "sync"],
    ));
    assert_ne!(support::tree(root), before, "the feedback was written");
    let list = run(state.path(), &["undo", s(root), "--list", "--json"]);
    let history: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(history[0]["kind"], "feedback", "{history}");

    ok(&run(state.path(), &["undo", s(root)]));
    assert_eq!(support::tree(root), before);
}

#[test]
fn a_new_bank_and_a_demo_copy_undone_leave_their_folders_empty() {
    let state = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    for (name, demo) in [("fresh", false), ("demo", true)] {
        let root = parent.path().join(name);
        let mut args = vec!["init", s(&root)];
        if demo {
            args.push("--demo");
        }
        ok(&run(state.path(), &args));
        assert!(root.join("06_TEMPLATES").is_dir(), "{name}");
        let listed = run(state.path(), &["undo", s(&root), "--list"]);
        ok(&listed);
        assert!(
            String::from_utf8_lossy(&listed.stdout).contains("init"),
            "{name}: {}",
            String::from_utf8_lossy(&listed.stdout)
        );
        ok(&run(state.path(), &["undo", s(&root)]));
        let left: Vec<_> = fs::read_dir(&root).unwrap().collect();
        assert!(left.is_empty(), "{name}: {left:?}");
    }
}

/// The config file is read once for both its `[files]` and `[undo]`
/// tables: a mistake in either is reported named by the file (a syntax
/// error as the file's, not as a table's), a file that cannot be read
/// stops the run, and a file setting both lets the command and its undo
/// run.
#[test]
fn one_config_file_bounds_both_the_reads_and_the_journal() {
    let state = tempfile::tempdir().unwrap();
    let conf = tempfile::tempdir().unwrap();
    let d = flawed_bank();
    let with = |text: Option<&str>, args: &[&str]| {
        let config = conf.path().join("config.toml");
        let _ = fs::remove_file(&config);
        if let Some(text) = text {
            fs::write(&config, text).unwrap();
        }
        support::membank()
            .env("MEMBANK_STATE_DIR", state.path())
            .env("MEMBANK_CONFIG", &config)
            .args(args)
            .args(["--today", "2026-04-08"])
            .output()
            .expect("membank runs")
    };
    let fails = |out: &Output, wanted: &str| {
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with(wanted), "{err}");
    };
    let values = ["values", s(d.path()), "--json"];
    let config = conf.path().join("config.toml");
    fails(
        &with(
            Some("[files]\nmax_file_mb = 0\n[undo]\nmax_mb = 0\n"),
            &values,
        ),
        &format!(
            "membank: {}: [files] max_file_mb must be at least 1\n",
            config.display()
        ),
    );
    fails(
        &with(
            Some("[files]\nmax_file_mb = 2\n[undo]\nmax_mb = 0\n"),
            &values,
        ),
        &format!(
            "membank: {}: [undo] max_mb must be at least 1\n",
            config.display()
        ),
    );
    fails(
        &with(Some("[undo]\nmax_mbb = 3\n"), &values),
        &format!(
            "membank: {}: [undo] table: line 2, column 1: unknown field",
            config.display()
        ),
    );
    fails(
        &with(Some("x = [\n"), &values),
        &format!(
            "membank: {}: not valid TOML: line 1, column 6: ",
            config.display()
        ),
    );
    // A syntax error in another table is not blamed on [files].
    fails(
        &with(Some("[llm]\nmodel = gpt-4o\n"), &values),
        &format!(
            "membank: {}: not valid TOML: line 2, column 9: ",
            config.display()
        ),
    );
    // The offending line is never quoted: it may hold a key pasted in by
    // mistake. Nor is a value a table could not use.
    for (text, at) in [
        (
            "theme = \"mono\"\n[files]\nopenai_api_key = sk-proj-REALKEY\n",
            "not valid TOML: line 3, column 18: ",
        ),
        (
            "[undo]\nmax_mb = \"sk-proj-REALKEY\"\n",
            "[undo] table: line 2, column 10: ",
        ),
        (
            "[files]\nmax_file_mb = \"sk-proj-REALKEY\"\n",
            "[files] table: line 2, column 15: ",
        ),
    ] {
        let out = with(Some(text), &values);
        fails(&out, &format!("membank: {}: {at}", config.display()));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("REALKEY"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    fs::remove_file(&config).unwrap();
    fs::create_dir(&config).unwrap();
    let folder = support::membank()
        .env("MEMBANK_STATE_DIR", state.path())
        .env("MEMBANK_CONFIG", &config)
        .args(values)
        .output()
        .unwrap();
    fails(&folder, &format!("membank: reading {}: ", config.display()));
    fs::remove_dir(&config).unwrap();

    let before = support::tree(d.path());
    let both = "[files]\nmax_file_mb = 4\n[undo]\nmax_mb = 3\nmax_days = 2\n";
    ok(&with(Some(both), &values));
    ok(&with(None, &values));
    let fixed = with(Some(both), &["fix", s(d.path()), "--yes"]);
    assert!(fixed.status.code().is_some());
    assert_ne!(support::tree(d.path()), before, "the fix wrote something");
    ok(&with(Some(both), &["undo", s(d.path())]));
    assert_eq!(support::tree(d.path()), before);
}

/// A bank named by a relative path: the folder a move made for its note
/// is journalled too, so the undo leaves the tree exactly as it was.
#[test]
fn a_move_into_a_new_folder_undone_leaves_no_folder_behind() {
    let parent = tempfile::tempdir().unwrap();
    let bank = parent.path().join("bank");
    fs::create_dir(&bank).unwrap();
    for f in ["01_CLIENTS", "03_DOMAINS", "06_TEMPLATES"] {
        fs::create_dir(bank.join(f)).unwrap();
    }
    write(
        &bank,
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\nlast_updated: 2026-04-01\n---\n# Legal\n",
    );
    let state = tempfile::tempdir().unwrap();
    let before = support::tree(&bank);
    let in_parent = |args: &[&str]| {
        support::membank()
            .current_dir(parent.path())
            .env("MEMBANK_STATE_DIR", state.path())
            .args(args)
            .args(["--today", "2026-04-08"])
            .output()
            .expect("membank runs")
    };
    ok(&in_parent(&[
        "mv",
        "bank",
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/law/eu/",
        "--yes",
    ]));
    assert!(bank.join("03_DOMAINS/law/eu/Legal.md").is_file());
    ok(&in_parent(&["undo", "bank"]));
    assert_eq!(support::tree(&bank), before);
}

#[test]
fn no_write_happens_when_the_state_folder_cannot_hold_the_journal() {
    let state = tempfile::tempdir().unwrap();
    // A file where the state folder should be.
    let blocked = state.path().join("state-is-a-file");
    fs::write(&blocked, "").unwrap();
    let bank = flawed_bank();
    let before = support::tree(bank.path());
    let fixed = run(&blocked, &["fix", s(bank.path()), "--yes", "--json"]);
    let noted = run(&blocked, &["note", s(bank.path()), "a quick note"]);
    for out in [fixed, noted] {
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("state-is-a-file/journal")
                && err.contains("undo journal")
                && err.contains("MEMBANK_STATE_DIR"),
            "{err}"
        );
    }
    assert_eq!(support::tree(bank.path()), before);
}

#[test]
fn undo_json_says_what_was_undone_or_why_nothing_was() {
    let bank = flawed_bank();
    let state = tempfile::tempdir().unwrap();
    let nothing = run(state.path(), &["undo", s(bank.path()), "--json"]);
    let (v, code) = support::json_of(&nothing);
    assert_eq!(code, Some(1));
    assert!(v["undone"].is_null(), "{v:#}");
    assert!(!v["reason"].as_str().unwrap().is_empty(), "{v:#}");
    let fixed = run(state.path(), &["fix", s(bank.path()), "--yes"]);
    assert!(fixed.status.code().is_some());
    let undone = run(state.path(), &["undo", s(bank.path()), "--json"]);
    let (v, code) = support::json_of(&undone);
    assert_eq!(code, Some(0));
    assert_eq!(v["undone"]["kind"], "fix", "{v:#}");
    assert!(v["warnings"].as_array().unwrap().is_empty(), "{v:#}");
}

/// `run`, with a standard output whose reader has gone away before the
/// first byte (`membank … | (exec 0<&-)`), so the report cannot be printed.
#[cfg(unix)]
fn run_unread(state: &Path, args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    support::membank()
        .env("MEMBANK_STATE_DIR", state)
        .args(args)
        .args(["--today", "2026-04-08"])
        .stdout(writer)
        .output()
        .expect("membank runs")
}

/// The kind of the newest journal entry of the memory at `root`.
fn last_kind(state: &Path, root: &Path) -> serde_json::Value {
    let list = run(state, &["undo", s(root), "--list", "--json"]);
    let history: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    history[0]["kind"].clone()
}

#[cfg(unix)]
#[test]
fn a_write_whose_report_cannot_be_printed_is_journalled_and_undone() {
    use std::os::unix::process::ExitStatusExt as _;
    let state = tempfile::tempdir().unwrap();
    let parent = tempfile::tempdir().unwrap();
    let bank = parent.path().join("bank");
    ok(&run(state.path(), &["init", s(&bank), "--demo"]));
    let flawed = flawed_bank();
    let project = parent.path().join("project");
    let summary = b"---\nid: summary\ntitle: Summary\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# Summary\n";
    write(&project, "memory/summary.md", summary);
    for (name, title) in [("old", "Old"), ("new", "New")] {
        write(
            &project,
            &format!("memory/decisions/{name}.md"),
            format!(
                "---\nid: {name}\ntitle: {title}\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# {title}\n"
            )
            .as_bytes(),
        );
    }
    write(
        &project,
        "memory/index.md",
        b"# Memory Index\n\n## Active decisions\n\n- [Old](./decisions/old.md)\n",
    );
    write(&project, "memory/recall-feedback.jsonl", b"");
    let reply = parent.path().join("reply.md");
    fs::write(
        &reply,
        "### FILE: 01_CLIENTS/Acme Two.md\n---\nclient: Acme Two\nlast_updated: 2026-04-08\n---\nShort sentences.\n",
    )
    .unwrap();
    let terms = parent.path().join("terms.tsv");
    fs::write(&terms, "en-US\tnl-BE\nwidget\tding\n").unwrap();
    let (b, f, p) = (s(&bank), s(flawed.path()), s(&project));
    let runs: &[(&[&str], &Path, &str)] = &[
        (
            &[
                "mv",
                b,
                "03_DOMAINS/Medical Devices.md",
                "03_DOMAINS/MedTech",
                "--yes",
            ],
            &bank,
            "rename",
        ),
        (&["new", b, "clients", "Nieuwe Klant"], &bank, "new article"),
        (&["note", b, "call the client back"], &bank, "note"),
        (
            &["blocks", b, "--reply", s(&reply), "--apply"],
            &bank,
            "agent write",
        ),
        (
            &["terms", "import", b, s(&terms), "--yes"],
            &bank,
            "terms import",
        ),
        (&["undo", b], &bank, "undo"),
        (&["fix", f, "--yes"], flawed.path(), "fix"),
        (&["fix", f, "--yes", "--json"], flawed.path(), "fix"),
        (&["note", p, "a decision was taken"], &project, "note"),
        (
            &["supersede", p, "old", "new", "--yes", "--json"],
            &project,
            "supersede",
        ),
        (
            &["feedback", p, "--add", "helpful", "--cue", "sync"],
            &project,
            "feedback",
        ),
    ];
    for (args, root, kind) in runs {
        let out = run_unread(state.path(), args);
        // The report was cut short by the closed pipe, not by a refusal.
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGPIPE),
            "{args:?}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(last_kind(state.path(), root), *kind, "{args:?}");
    }
    // The entries take the changes back: the terms import was undone
    // above, so the agent's write is next.
    ok(&run(state.path(), &["undo", b]));
    assert!(!bank.join("01_CLIENTS/Acme Two.md").exists());
    assert!(bank.join("01_CLIENTS/Nieuwe Klant.md").is_file());
    ok(&run(state.path(), &["undo", p]));
    assert_eq!(
        fs::read(project.join("memory/recall-feedback.jsonl")).unwrap(),
        b""
    );
}

#[test]
fn a_change_larger_than_the_journal_bound_stays_undoable_and_is_said() {
    let state = tempfile::tempdir().unwrap();
    let conf = tempfile::tempdir().unwrap();
    let config = conf.path().join("config.toml");
    fs::write(&config, "[undo]\nmax_mb = 1\n").unwrap();
    let run = |args: &[&str]| {
        support::membank()
            .env("MEMBANK_STATE_DIR", state.path())
            .env("MEMBANK_CONFIG", &config)
            .args(args)
            .args(["--today", "2026-04-08"])
            .output()
            .expect("membank runs")
    };
    let history = |root: &Path| -> Vec<String> {
        let out = run(&["undo", s(root), "--list", "--json"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|e| e["kind"].as_str().unwrap().to_owned())
            .collect()
    };
    // Another bank's history, which the large change must not wipe.
    let other = flawed_bank();
    ok(&run(&["note", s(other.path()), "keep this history"]));
    let bank = flawed_bank();
    let body = "A line of the article that makes it large.\n".repeat(50_000);
    write(
        bank.path(),
        "03_DOMAINS/Big.md",
        format!("---\ndomain: Big\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n{body}")
            .as_bytes(),
    );
    let before = support::tree(bank.path());

    let moved = run(&[
        "mv",
        s(bank.path()),
        "03_DOMAINS/Big.md",
        "03_DOMAINS/Huge",
        "--yes",
    ]);
    ok(&moved);
    let err = String::from_utf8_lossy(&moved.stderr);
    assert!(
        err.contains("warning:") && err.contains("1.0 MB") && err.contains("max_mb"),
        "{err}"
    );
    assert!(err.contains(&config.display().to_string()), "{err}");
    assert_eq!(history(bank.path()), ["rename"]);
    assert_eq!(history(other.path()), ["note"]);

    ok(&run(&["undo", s(bank.path())]));
    assert_eq!(support::tree(bank.path()), before);
}

#[test]
fn a_template_rename_undone_leaves_only_the_old_name() {
    let bank = flawed_bank();
    write(
        bank.path(),
        "06_TEMPLATES/translate_with_kb.md",
        b"my prompt\n",
    );
    let state = tempfile::tempdir().unwrap();
    let before = support::tree(bank.path());
    run(state.path(), &["fix", s(bank.path()), "--yes"]);
    assert!(
        bank.path()
            .join("06_TEMPLATES/translate_with_memory_bank.md")
            .exists(),
        "the fix renamed the template"
    );
    // The move is journalled as the new name created too, so the undo
    // takes that away rather than leaving two copies of the prompt.
    ok(&run(state.path(), &["undo", s(bank.path())]));
    assert_eq!(support::tree(bank.path()), before);
}

#[test]
fn a_folder_made_and_filled_since_is_said_to_be_kept() {
    // flawed_bank has no 05_INDICES: the fix makes it, then a file is
    // put in it, and the undo keeps it (it deletes nothing it did not
    // write) and says so rather than that it was taken back.
    let undone_with = |flag: Option<&str>| {
        let bank = flawed_bank();
        let state = tempfile::tempdir().unwrap();
        let root = s(bank.path());
        run(
            state.path(),
            &["fix", root, "--code", "missing-folder", "--yes"],
        );
        write(bank.path(), "05_INDICES/Index.md", b"# my index\n");
        let mut args = vec!["undo", root];
        args.extend(flag);
        let out = run(state.path(), &args);
        ok(&out);
        assert!(bank.path().join("05_INDICES/Index.md").is_file());
        String::from_utf8(out.stdout).unwrap()
    };
    let said = undone_with(None);
    assert!(
        said.contains("05_INDICES (was folder made; kept: it is not empty)"),
        "{said}"
    );
    let v: serde_json::Value = serde_json::from_str(&undone_with(Some("--json"))).unwrap();
    assert!(
        v["warnings"]
            .to_string()
            .contains("05_INDICES was kept: it is not empty"),
        "{v}"
    );
}

/// The journal's entry files under `state`, oldest first.
fn entry_files(state: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for memory in fs::read_dir(state.join("journal")).unwrap().flatten() {
        for e in fs::read_dir(memory.path()).unwrap().flatten() {
            if e.path().extension().is_some_and(|x| x == "json") {
                found.push(e.path());
            }
        }
    }
    found.sort();
    found
}

/// A damaged newest entry stops `undo`; the history says so: it is listed
/// as damaged, and no older entry is marked as the next undo.
#[test]
fn a_damaged_last_entry_is_listed_and_nothing_is_marked_next() {
    let parent = tempfile::tempdir().unwrap();
    let bank = parent.path().join("bank");
    let state = tempfile::tempdir().unwrap();
    ok(&run(state.path(), &["init", s(&bank)]));
    ok(&run(state.path(), &["new", s(&bank), "domains", "Tax"]));
    let newest = entry_files(state.path()).pop().unwrap();
    fs::write(&newest, "{\"time\": \"2026").unwrap();

    let out = run(state.path(), &["undo", s(&bank), "--list"]);
    ok(&out);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("<- undo"), "{text}");
    assert!(
        text.lines().next().unwrap().contains("damaged entry") && text.contains("undo stops here"),
        "{text}"
    );
    let out = run(state.path(), &["undo", s(&bank), "--list", "--json"]);
    let (v, _) = support::json_of(&out);
    let listed = v.as_array().unwrap();
    assert_eq!(listed.len(), 2, "{v:#}");
    assert!(listed.iter().all(|e| e["next"] == false), "{v:#}");
    assert_eq!(listed[0]["kind"], "damaged", "{v:#}");
    assert!(
        listed[0]["damaged"]
            .as_str()
            .unwrap()
            .contains("not an entry")
    );
    assert_eq!(listed[1]["kind"], "init", "{v:#}");
    assert!(listed[1].get("damaged").is_none(), "{v:#}");

    let out = run(state.path(), &["undo", s(&bank)]);
    assert_eq!(out.status.code(), Some(1));
}

/// A change whose run was killed half-way (its entry still marked
/// unfinished, some of its files never written) is listed as interrupted,
/// stops every other write, and is what `undo` takes back: the files it
/// wrote, not the ones it never reached.
#[test]
fn an_interrupted_change_is_listed_stops_other_writes_and_is_undone() {
    let bank = flawed_bank();
    let root = bank.path();
    let state = tempfile::tempdir().unwrap();
    let legal = fs::read(root.join("03_DOMAINS/Legal.md")).unwrap();
    ok(&run(state.path(), &["fix", s(root), "--yes"]));
    // As a kill before its last writes leaves it: the leftover still
    // there, the entry unfinished.
    write(root, "03_DOMAINS/Tax.md.tmp", b"half a save");
    let entry = entry_files(state.path()).pop().unwrap();
    let mut v: serde_json::Value = serde_json::from_slice(&fs::read(&entry).unwrap()).unwrap();
    v["unfinished"] = serde_json::Value::Bool(true);
    fs::write(&entry, serde_json::to_vec(&v).unwrap()).unwrap();

    let out = run(state.path(), &["undo", s(root), "--list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("fix (interrupted before it was finished)  <- undo takes this back next"),
        "{text}"
    );
    let out = run(state.path(), &["undo", s(root), "--list", "--json"]);
    let (v, _) = support::json_of(&out);
    assert_eq!(v[0]["interrupted"], true, "{v:#}");

    let out = run(state.path(), &["note", s(root), "call Acme"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("was interrupted") && err.contains("membank undo"),
        "{err}"
    );

    let out = run(state.path(), &["undo", s(root)]);
    ok(&out);
    assert!(String::from_utf8_lossy(&out.stdout).contains("interrupted"));
    assert_eq!(fs::read(root.join("03_DOMAINS/Legal.md")).unwrap(), legal);
    assert_eq!(
        fs::read(root.join("03_DOMAINS/Tax.md.tmp")).unwrap(),
        b"half a save"
    );
    ok(&run(state.path(), &["note", s(root), "call Acme"]));
}
