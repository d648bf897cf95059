//! Commands that print a bank's text for a model (`snapshot`, `context
//! --render`, `template`), run in a real pseudo-terminal on a bank whose
//! file names and contents carry escape sequences: nothing reaches the
//! terminal that it could act on. Piped, the same text stays exact.

#![cfg(unix)]

mod support;

use std::io::Read;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

/// OSC 0 (title), OSC 52 (clipboard), clear screen, a one-byte C1 CSI, NUL,
/// BEL and a right-to-left override.
const HOSTILE: &str =
    "\u{1b}]0;pwned\u{7}\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J\u{9b}31mred\u{0}\u{202e}gnp.md";

fn bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for f in [
        "00_INBOX",
        "01_CLIENTS",
        "03_DOMAINS",
        "04_STYLE",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir_all(d.path().join(f)).unwrap();
    }
    let body = format!("---\nscope: general\nlast_updated: 2026-04-01\n---\n# Style\n{HOSTILE}\n");
    std::fs::write(d.path().join("04_STYLE/House.md"), &body).unwrap();
    std::fs::write(d.path().join("04_STYLE/evil\u{1b}]0;title\u{7}.md"), &body).unwrap();
    std::fs::write(d.path().join("06_TEMPLATES/query.md"), HOSTILE).unwrap();
    d
}

/// Everything the command writes to a pseudo-terminal, until it exits.
fn on_a_terminal(args: &[&str]) -> Vec<u8> {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 200,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_membank"));
    cmd.args(args);
    let cell = std::cell::RefCell::new(&mut cmd);
    support::isolate_with(
        |k, v| cell.borrow_mut().env(k, v),
        |k| cell.borrow_mut().env_remove(k),
    );
    cmd.env("TERM", "xterm-256color");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let out = std::thread::spawn(move || {
        let mut all = Vec::new();
        let _ = reader.read_to_end(&mut all);
        all
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        assert!(Instant::now() < deadline, "membank {args:?} did not finish");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(pair.master);
    out.join().unwrap()
}

/// The text with `ESC [ digits/semicolons m` (colour) sequences removed.
fn without_colours(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("\u{1b}[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let len = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        if after[len..].starts_with('m') {
            rest = &after[len + 1..];
        } else {
            // Not a colour: keep it so the check below sees it.
            out.push_str(&rest[i..i + 2]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn assert_inert(args: &[&str], out: &[u8]) {
    // The program's own colours (SGR) are fine; nothing else may remain.
    let text = without_colours(&String::from_utf8_lossy(out));
    for (what, bad) in [
        ("ESC", "\u{1b}"),
        ("C1 CSI", "\u{9b}"),
        ("BEL", "\u{7}"),
        ("NUL", "\u{0}"),
        ("RTL override", "\u{202e}"),
    ] {
        assert!(
            !text.contains(bad),
            "{args:?} sent {what} to the terminal: {text:?}"
        );
    }
    assert!(
        text.contains("title"),
        "{args:?} printed the names (made visible): {text:?}"
    );
}

#[test]
fn text_for_a_model_is_inert_on_a_terminal() {
    let d = bank();
    let root = d.path().to_str().unwrap();
    for args in [
        vec!["snapshot", root],
        vec!["context", root, "--include-unscored"],
        vec!["context", root, "--render", "--include-unscored"],
        vec!["check", root],
        vec!["check", root, "--json"],
        vec!["snapshot", root, "--json"],
    ] {
        let out = on_a_terminal(&args);
        assert_inert(&args, &out);
    }
    for args in [
        vec!["template", root, "query"],
        vec!["template", root, "query", "--json"],
    ] {
        let out = String::from_utf8_lossy(&on_a_terminal(&args)).into_owned();
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{9b}'),
            "{args:?}: {out:?}"
        );
        assert!(out.contains("pwned"), "{args:?}: {out:?}");
    }
}

#[test]
fn piped_text_for_a_model_is_exact_and_json_is_escaped() {
    let d = bank();
    let root = d.path().to_str().unwrap();
    let run = |args: &[&str]| {
        let out = support::membank()
            .args(args)
            .env("MEMBANK_CONFIG", "/dev/null")
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(run(&["snapshot", root]).contains(HOSTILE));
    assert!(run(&["template", root, "query"]).contains(HOSTILE));
    let json = run(&["snapshot", root, "--json"]);
    assert!(!json.contains('\u{1b}') && !json.contains('\u{9b}') && !json.contains('\u{202e}'));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["snapshot"].as_str().unwrap().contains(HOSTILE));
}

#[test]
fn search_on_a_terminal_marks_matches_as_color_says() {
    let bank = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
    let never = String::from_utf8_lossy(&on_a_terminal(&[
        "search", bank, "booking", "--color", "never",
    ]))
    .into_owned();
    assert!(never.contains("**Booking**"), "{never:?}");
    assert!(!never.contains("\u{1b}[1m"), "{never:?}");
    let auto = String::from_utf8_lossy(&on_a_terminal(&["search", bank, "booking"])).into_owned();
    assert!(auto.contains("\u{1b}[1mBooking"), "{auto:?}");
}
