//! Banks built to attack the reader: FIFOs, devices, links out of the bank,
//! oversized files. Every command must finish, report the file, and never
//! print what lies outside the bank.

#![cfg(unix)]

mod support;

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Run membank with a deadline: a hang is a failure, not a stuck test run.
fn membank_in(config: &Path, args: &[&str], stdin: &str) -> Run {
    let mut child = support::membank()
        .args(args)
        .env("MEMBANK_CONFIG", config)
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("membank starts");
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("membank {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&out.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err.join().unwrap()).into_owned(),
    }
}

fn membank(args: &[&str]) -> Run {
    membank_in(Path::new("/dev/null"), args, "")
}

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

fn bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(d.path().join(f)).unwrap();
    }
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\nlast_updated: 2026-04-01\n---\n# Legal\nlegal body\n",
    );
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn finding_codes(stdout: &str, path: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(stdout).expect("JSON");
    v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["path"] == path)
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn a_fifo_in_the_bank_hangs_no_command() {
    let d = bank();
    let r = d.path();
    mkfifo(&r.join("02_TERMINOLOGY/x.md"));
    mkfifo(&r.join("06_TEMPLATES/query.md"));
    mkfifo(&r.join("00_INBOX/note.md"));
    let check = membank(&["check", s(r), "--json"]);
    assert_eq!(
        finding_codes(&check.stdout, "02_TERMINOLOGY/x.md"),
        vec!["not-a-file"]
    );
    // Each command leaves the pipes unread and goes on with the real file.
    for (args, shows) in [
        (
            vec!["context", s(r), "--domain", "Legal", "--render"],
            "legal body",
        ),
        (vec!["snapshot", s(r)], "legal body"),
        (vec!["values", s(r)], "Legal"),
        (vec!["inbox", s(r)], "00_INBOX/note.md"),
        (vec!["links", s(r), "Legal"], "03_DOMAINS/Legal.md"),
    ] {
        let run = membank(&args);
        assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
        assert!(run.stdout.contains(shows), "{args:?}: {}", run.stdout);
    }
    // The inbox lists the pipe as a note it cannot read.
    let inbox = membank(&["inbox", s(r)]);
    assert!(inbox.stdout.contains("FIFO"), "{}", inbox.stdout);
    let t = membank(&["template", s(r), "query"]);
    assert_eq!(t.code, Some(0), "{}", t.stderr);
    assert!(t.stderr.contains("FIFO"), "{}", t.stderr);
}

#[test]
fn a_block_aimed_at_a_fifo_is_refused_without_hanging() {
    let d = bank();
    mkfifo(&d.path().join("01_CLIENTS/x.md"));
    let reply = "### FILE: 01_CLIENTS/x.md\n---\nclient: X\n---\nbody\n";
    let run = membank_in(
        Path::new("/dev/null"),
        &["blocks", s(d.path()), "--apply", "--json"],
        reply,
    );
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("FIFO"), "{}", run.stdout);
    // The review before writing gives the verdict the write gives.
    let preview = membank_in(
        Path::new("/dev/null"),
        &["blocks", s(d.path()), "--json"],
        reply,
    );
    assert_eq!(
        preview.code,
        Some(1),
        "{}{}",
        preview.stdout,
        preview.stderr
    );
    let v: serde_json::Value = serde_json::from_str(&preview.stdout).expect("JSON");
    assert_eq!(v["blocks"][0]["change"], "rejected", "{v}");
    assert!(
        v["blocks"][0]["reason"]
            .as_str()
            .is_some_and(|r| r.contains("FIFO")),
        "{v}"
    );
}

/// A block the bank could not read back once written (over the per-file
/// limit) is refused before anything is written.
#[test]
fn a_block_larger_than_the_read_limit_is_refused_in_review_and_write() {
    let d = bank();
    let conf = tempfile::tempdir().unwrap();
    let config = conf.path().join("config.toml");
    fs::write(&config, "[files]\nmax_file_mb = 1\n").unwrap();
    let reply = format!(
        "### FILE: 03_DOMAINS/Huge.md\n---\ndomain: Huge\n---\n{}\n",
        "x".repeat(1024 * 1024 + 10)
    );
    for apply in [false, true] {
        let mut args = vec!["blocks", s(d.path()), "--json"];
        if apply {
            args.push("--apply");
        }
        let run = membank_in(&config, &args, &reply);
        assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        let reason = v["blocks"][0]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains("over the limit of 1 MB") && reason.contains("max_file_mb"),
            "{reason}"
        );
    }
    assert!(!d.path().join("03_DOMAINS/Huge.md").exists());
}

/// A folder link inside the bank is not read by the bank's walk, so no
/// write goes through it: not a reply's block, not a rename.
#[test]
fn no_write_goes_through_a_link_inside_the_bank() {
    let d = bank();
    let r = d.path();
    symlink(r.join("03_DOMAINS"), r.join("04_STYLE/domains")).unwrap();
    write(
        r,
        "04_STYLE/House style.md",
        b"---\nlast_updated: 2026-04-01\n---\n# House\n",
    );
    let reply = "### FILE: 04_STYLE/domains/x.md\n---\nlast_updated: 2026-04-01\n---\nbody\n";
    for apply in [false, true] {
        let mut args = vec!["blocks", s(r), "--json"];
        if apply {
            args.push("--apply");
        }
        let run = membank_in(Path::new("/dev/null"), &args, reply);
        assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
        assert!(
            run.stdout.contains("04_STYLE/domains is a symbolic link"),
            "{}",
            run.stdout
        );
    }
    let mv = membank(&[
        "mv",
        s(r),
        "04_STYLE/House style.md",
        "04_STYLE/domains/",
        "--yes",
    ]);
    assert_eq!(mv.code, Some(2), "{}{}", mv.stdout, mv.stderr);
    assert!(mv.stderr.contains("symbolic link"), "{}", mv.stderr);
    assert!(r.join("04_STYLE/House style.md").is_file());
    let mut in_domains: Vec<String> = fs::read_dir(r.join("03_DOMAINS"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    in_domains.sort();
    assert_eq!(in_domains, ["Legal.md"]);
}

#[test]
fn links_out_of_the_bank_are_not_read_unless_the_user_allows_it() {
    let d = bank();
    let outside = tempfile::tempdir().unwrap();
    fs::write(
        outside.path().join("id_ed25519"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\n",
    )
    .unwrap();
    let r = d.path();
    symlink(
        outside.path().join("id_ed25519"),
        r.join("04_STYLE/House style.md"),
    )
    .unwrap();
    symlink("/dev/zero", r.join("02_TERMINOLOGY/zero.md")).unwrap();

    let check = membank(&["check", s(r), "--json"]);
    assert_eq!(
        finding_codes(&check.stdout, "04_STYLE/House style.md"),
        vec!["link-outside-bank"]
    );
    assert_eq!(
        finding_codes(&check.stdout, "02_TERMINOLOGY/zero.md"),
        vec!["link-outside-bank"]
    );
    for args in [
        vec!["snapshot", s(r)],
        vec!["snapshot", s(r), "--json"],
        vec!["context", s(r), "--render", "--include-unscored"],
    ] {
        let run = membank(&args);
        assert!(
            !run.stdout.contains("PRIVATE KEY"),
            "{args:?} printed a file outside the bank"
        );
    }

    // The user's own setting lets a bank that links notes in on purpose
    // read them; the device is still refused.
    let config = outside.path().join("config.toml");
    fs::write(&config, "[files]\nfollow_links_out = true\n").unwrap();
    let snap = membank_in(&config, &["snapshot", s(r)], "");
    assert!(snap.stdout.contains("PRIVATE KEY"), "{}", snap.stdout);
    let check = membank_in(&config, &["check", s(r), "--json"], "");
    assert_eq!(
        finding_codes(&check.stdout, "02_TERMINOLOGY/zero.md"),
        vec!["not-a-file"]
    );
}

#[test]
fn oversized_files_are_reported_with_the_configured_cap() {
    let d = bank();
    write(d.path(), "04_STYLE/big.md", &vec![b'a'; 2 * 1024 * 1024]);
    let plain = membank(&["check", s(d.path()), "--json"]);
    assert!(
        !finding_codes(&plain.stdout, "04_STYLE/big.md").contains(&"oversized-file".to_owned()),
        "2 MB is under the default cap"
    );
    let conf = tempfile::tempdir().unwrap();
    let config = conf.path().join("config.toml");
    fs::write(&config, "[files]\nmax_file_mb = 1\n").unwrap();
    let check = membank_in(&config, &["check", s(d.path()), "--json"], "");
    assert_eq!(
        finding_codes(&check.stdout, "04_STYLE/big.md"),
        vec!["oversized-file"]
    );
    let v: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    let msg = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "04_STYLE/big.md")
        .unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(msg.contains("2 MB") && msg.contains("1 MB"), "{msg}");
}

/// Two Process Inbox runs at once: the second waits for the first, then
/// finds nothing pending; the source is archived exactly once.
#[test]
fn a_second_compile_run_waits_for_the_first() {
    use std::io::BufRead;
    let d = bank();
    let r = d.path();
    write(r, "00_INBOX/note.md", b"a note\n");
    let reply =
        "### FILE: 03_DOMAINS/Tax.md\n---\ndomain: Tax\nlast_updated: 2026-04-01\n---\nbody\n";
    let scratch = tempfile::tempdir().unwrap();
    let fifo = scratch.path().join("reply.md");
    mkfifo(&fifo);
    let saved = scratch.path().join("saved.md");
    fs::write(&saved, reply).unwrap();
    let config = Path::new("/dev/null");
    // The first run takes the lock, then waits on its reply (a pipe).
    let first = support::membank()
        .args(["compile", s(r), "--reply", s(&fifo)])
        .env("MEMBANK_CONFIG", config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Start the second one only once the first holds the lock.
    let deadline = Instant::now() + Duration::from_secs(30);
    while membank_core::lock::BankLock::try_acquire(r).is_ok() {
        assert!(
            Instant::now() < deadline,
            "the first run never locked the bank"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut second = support::membank()
        .args(["compile", s(r), "--reply", s(&saved)])
        .env("MEMBANK_CONFIG", config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut second_err = std::io::BufReader::new(second.stderr.take().unwrap());
    let mut line = String::new();
    second_err.read_line(&mut line).unwrap();
    assert!(line.contains("waiting"), "{line}");
    // Now let the first run finish.
    fs::write(&fifo, reply).unwrap();
    let first = first.wait_with_output().unwrap();
    assert_eq!(
        first.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let mut rest = String::new();
    second_err.read_to_string(&mut rest).unwrap();
    let second_status = second.wait().unwrap();
    assert_eq!(
        second_status.code(),
        Some(1),
        "nothing left to compile: {rest}"
    );
    assert!(rest.contains("Nothing to compile"), "{rest}");
    assert!(!rest.contains("No such file"), "{rest}");
    let archived: Vec<_> = fs::read_dir(r.join("00_INBOX/_archive")).unwrap().collect();
    assert_eq!(archived.len(), 1);
}

/// A socket and a symbolic link loop named like notes are said to be what
/// they are, in every layout: a socket is no regular file, and a loop is a
/// link with nothing behind it (the layout's finding for a link to
/// nothing), never "check its permissions" over the system's own error.
#[test]
fn a_socket_and_a_link_loop_are_named_for_what_they_are_in_every_layout() {
    let b = bank();
    let dv = tempfile::tempdir().unwrap();
    write(dv.path(), "memory/summary.md", b"# Summary\n");
    let ev = tempfile::tempdir().unwrap();
    write(ev.path(), "ome.toml", b"");
    let episodes = "app/proj/users/u1/episodes";
    fs::create_dir_all(ev.path().join(episodes)).unwrap();
    for (root, dir, not_a_file, link) in [
        (b.path(), "01_CLIENTS", "not-a-file", "unreadable-file"),
        (dv.path(), "memory/decisions", "unreadable-file", "symlink"),
        (ev.path(), episodes, "everos-unreadable", "everos-link"),
    ] {
        fs::create_dir_all(root.join(dir)).unwrap();
        let name = |n: &str| match dir == episodes {
            true => format!("episode-2026-07-0{n}.md"),
            false => format!("{n}.md"),
        };
        let (socket, l1, l2) = (name("1"), name("2"), name("3"));
        std::os::unix::net::UnixListener::bind(root.join(dir).join(&socket)).unwrap();
        symlink(&l2, root.join(dir).join(&l1)).unwrap();
        symlink(&l1, root.join(dir).join(&l2)).unwrap();
        let run = membank(&["check", s(root), "--json"]);
        let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        let finding = |rel: &str| {
            let path = format!("{dir}/{rel}");
            let f = v["findings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["path"] == path.as_str())
                .unwrap_or_else(|| panic!("no finding for {path}: {}", run.stdout));
            (
                f["code"].as_str().unwrap().to_owned(),
                f["message"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        };
        let (code, message, severity) = finding(&socket);
        assert_eq!(code, not_a_file, "{dir}: {message}");
        // Each layout's docs list it as an error: a file nobody can read.
        assert_eq!(severity, "error", "{dir}: {message}");
        assert!(
            message.contains("not a regular file") && !message.contains("os error"),
            "{dir}: {message}"
        );
        for looped in [&l1, &l2] {
            let (code, message, _) = finding(looped);
            assert_eq!(code, link, "{dir}: {message}");
            assert!(
                message.contains("symbolic link loop") && !message.contains("os error"),
                "{dir}: {message}"
            );
            assert!(!message.contains("permissions"), "{dir}: {message}");
        }
    }
}

/// A memory whose folder cannot be listed says so, of the path itself,
/// rather than that it is no memory; a numbered or record folder that
/// cannot be listed is a folder, named relative to the memory.
#[test]
fn an_unreadable_root_or_folder_is_said_to_be_unreadable() {
    use std::os::unix::fs::PermissionsExt;
    if support::skipped_as_root("an_unreadable_root_or_folder_is_said_to_be_unreadable") {
        return;
    }
    let closed = |p: &Path| fs::set_permissions(p, fs::Permissions::from_mode(0o000)).unwrap();
    let open = |p: &Path| fs::set_permissions(p, fs::Permissions::from_mode(0o755)).unwrap();
    let b = bank();
    let dv = tempfile::tempdir().unwrap();
    write(dv.path(), "memory/summary.md", b"# Summary\n");
    write(dv.path(), "memory/decisions/a.md", b"# A\n");
    for root in [b.path(), dv.path()] {
        closed(root);
        let run = membank(&["check", s(root)]);
        open(root);
        assert_eq!(run.code, Some(2), "{}", run.stderr);
        assert!(
            run.stderr.contains("cannot be read") && run.stderr.contains("Permission denied"),
            "{}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("is not a memory bank"),
            "{}",
            run.stderr
        );
    }
    for (root, dir) in [(b.path(), "03_DOMAINS"), (dv.path(), "memory/decisions")] {
        closed(&root.join(dir));
        let run = membank(&["check", s(root), "--json"]);
        open(&root.join(dir));
        let v: serde_json::Value = serde_json::from_str(&run.stdout).expect("JSON");
        let f = v["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"] == dir)
            .unwrap_or_else(|| panic!("no finding for {dir}: {}", run.stdout));
        let message = f["message"].as_str().unwrap();
        assert_eq!(f["code"], "unreadable-file", "{message}");
        assert!(
            message.contains("folder could not be read: Permission denied"),
            "{message}"
        );
        assert!(!message.contains(s(root)), "{message}");
    }
}

/// Naming a file the bank has but does not read says why, not "no article".
#[test]
fn reading_a_file_that_is_not_read_says_why() {
    let d = bank();
    write(d.path(), "02_TERMINOLOGY/bytes.md", b"binary \xff\x00");
    // A real file outside the bank, made by the test, so the link resolves.
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("notes.md");
    fs::write(&outside, "# Kept out\n").unwrap();
    symlink(&outside, d.path().join("03_DOMAINS/outside.md")).unwrap();
    for (rel, why) in [
        ("02_TERMINOLOGY/bytes.md", "not valid UTF-8"),
        (
            "03_DOMAINS/outside.md",
            "symbolic link to something outside the bank",
        ),
    ] {
        for cmd in ["read", "links"] {
            let run = membank(&[cmd, s(d.path()), rel]);
            assert_eq!(run.code, Some(2), "{cmd} {rel}: {}", run.stderr);
            assert!(
                run.stderr.contains(rel) && run.stderr.contains(why),
                "{cmd} {rel}: {}",
                run.stderr
            );
            assert!(run.stdout.is_empty());
        }
    }
    // A name that is simply not there is still answered as before.
    let run = membank(&["read", s(d.path()), "03_DOMAINS/Nothing.md"]);
    assert!(run.stderr.contains("no article"), "{}", run.stderr);
}

/// By name, a file of that name that was found but not read gives its
/// reason too, as by path: "no article" would send the user looking for a
/// file that is there.
#[test]
fn reading_by_name_a_file_that_is_not_read_says_why() {
    let d = bank();
    write(d.path(), "02_TERMINOLOGY/bytes.md", b"binary \xff\x00");
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("notes.md");
    fs::write(&outside, "# Kept out\n").unwrap();
    symlink(&outside, d.path().join("03_DOMAINS/Outside.md")).unwrap();
    for (name, rel, why) in [
        ("bytes", "02_TERMINOLOGY/bytes.md", "not valid UTF-8"),
        (
            "outside",
            "03_DOMAINS/Outside.md",
            "symbolic link to something outside the bank",
        ),
    ] {
        for cmd in ["read", "links"] {
            let run = membank(&[cmd, s(d.path()), name]);
            assert_eq!(run.code, Some(2), "{cmd} {name}: {}", run.stderr);
            assert!(
                run.stderr.contains(rel) && run.stderr.contains(why),
                "{cmd} {name}: {}",
                run.stderr
            );
            assert!(!run.stderr.contains("no article"), "{}", run.stderr);
        }
    }
    let run = membank(&["read", s(d.path()), "[[bytes]]"]);
    assert!(run.stderr.contains("not valid UTF-8"), "{}", run.stderr);
    let run = membank(&["read", s(d.path()), "Nothing"]);
    assert!(run.stderr.contains("no article"), "{}", run.stderr);
}

/// A Markdown file whose name is not UTF-8 cannot be named by any command
/// (its path would be read back with U+FFFD and open nothing): it is
/// skipped and reported, and every other article stays usable.
#[test]
fn a_file_name_that_is_not_unicode_is_skipped_and_breaks_nothing() {
    use std::os::unix::ffi::OsStrExt;
    let d = bank();
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9.md");
    fs::write(
        d.path().join("04_STYLE").join(name),
        "---\nscope: general\nlast_updated: 2026-01-01\n---\nzebra\n",
    )
    .unwrap();
    write(
        d.path(),
        "04_STYLE/House.md",
        b"---\nscope: general\nlast_updated: 2026-01-01\n---\nzebra house\n",
    );
    let found = membank(&["search", s(d.path()), "zebra"]);
    assert_eq!(found.code, Some(0), "{}", found.stderr);
    assert!(found.stdout.contains("House"), "{}", found.stdout);
    let rendered = membank(&["context", s(d.path()), "--render", "--include-unscored"]);
    assert_eq!(rendered.code, Some(0), "{}", rendered.stderr);
    assert!(rendered.stdout.contains("zebra house"));
    assert!(!rendered.stdout.contains("caf"));
    let checked = membank(&["check", s(d.path()), "--json"]);
    let codes = finding_codes(&checked.stdout, "04_STYLE/caf\u{FFFD}.md");
    assert!(codes.contains(&"skipped-file".to_owned()), "{codes:?}");
    assert!(codes.contains(&"bad-filename".to_owned()), "{codes:?}");
}
