//! End to end: the real binary in a pseudo-terminal, on a copy of the
//! fixture bank, driven by key presses and read back through a terminal
//! emulator.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use membank_llm::Provider;
use membank_llm::testing::{FakeReply, FakeServer};
use portable_pty::{Child, CommandBuilder, PtySize, native_pty_system};

mod support;

const ROWS: u16 = 30;
const COLS: u16 = 110;
/// How long to wait for the screen to show something before failing.
const PATIENCE: Duration = Duration::from_secs(15);

struct Session {
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
    input: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
    pair: portable_pty::PtyPair,
}

impl Session {
    fn start(bank: &Path, home: &Path, editor: &Path) -> Session {
        Session::start_with(bank, home, editor, &[], None, &[])
    }

    fn start_with(
        bank: &Path,
        home: &Path,
        editor: &Path,
        args: &[&str],
        no_color: Option<&str>,
        env: &[(&str, String)],
    ) -> Session {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: ROWS,
                cols: COLS,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_membank"));
        cmd.args(args);
        cmd.arg(bank);
        // The user's config, themes, state, model settings and date stay out.
        let cell = std::cell::RefCell::new(&mut cmd);
        support::isolate_with(
            |k, v| cell.borrow_mut().env(k, v),
            |k| cell.borrow_mut().env_remove(k),
        );
        cmd.env("TERM", "xterm-256color");
        // This session's own home and config folder, for its themes.
        cmd.env("HOME", home);
        cmd.env("XDG_CONFIG_HOME", home.join("config"));
        cmd.env("MEMBANK_CONFIG", "/dev/null");
        // Its own state too: a query one session leaves must not reach
        // another session on the same fixture.
        cmd.env("MEMBANK_STATE_DIR", home.join("state"));
        if let Some(v) = no_color {
            cmd.env("NO_COLOR", v);
        }
        cmd.env("VISUAL", editor);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("spawn membank");
        let mut reader = pair.master.try_clone_reader().expect("pty reader");
        let input = pair.master.take_writer().expect("pty writer");
        let screen = Arc::new(Mutex::new(vt100::Parser::new(ROWS, COLS, 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        {
            let screen = Arc::clone(&screen);
            let raw = Arc::clone(&raw);
            thread::spawn(move || {
                let mut buf = [0u8; 8192];
                while let Ok(n) = reader.read(&mut buf) {
                    if n == 0 {
                        break;
                    }
                    screen.lock().unwrap().process(&buf[..n]);
                    raw.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            });
        }
        Session {
            screen,
            raw,
            input,
            child,
            pair,
        }
    }

    fn resize(&self, rows: u16, cols: u16) {
        self.screen
            .lock()
            .unwrap()
            .screen_mut()
            .set_size(rows, cols);
        self.pair
            .master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    fn send(&mut self, bytes: &str) {
        self.input.write_all(bytes.as_bytes()).unwrap();
        self.input.flush().unwrap();
    }

    /// Wait until the screen satisfies `check`; fail with the screen shown.
    fn wait_for(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.contents();
            if check(&s) {
                return s;
            }
            if start.elapsed() > PATIENCE {
                panic!("timed out waiting for {what}; screen:\n{s}");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The bank is read in the background, and its tree shows the walked
    /// files before they are read: wait for the read itself, the progress
    /// line gone and the articles there.
    fn wait_read(&self) -> String {
        self.wait_for("the bank to be read", |s| {
            s.contains("Acme Corporation") && !s.contains("reading the memory bank")
        })
    }

    fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The screen line holding the first-ranked candidate.
fn first_ranked(screen: &str) -> String {
    screen
        .lines()
        .find(|l| l.contains("  1 ✓"))
        .unwrap_or("")
        .to_owned()
}

#[test]
fn browse_follow_rank_and_jump_in_a_real_terminal() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        bank.path(),
    );
    std::fs::write(
        bank.path().join("03_DOMAINS/Hostile.md"),
        "---\ndomain: Hostile\nlanguages: [\"en → nl\"]\nlast_updated: 2026-01-01\n---\n# Hostile\n\nwipe \x1b[2J then \x1b]52;c;aGk=\x07 and \x1b[31mred\n",
    )
    .unwrap();
    // A stand-in editor that appends a line, as a person would.
    let editor = home.path().join("append-editor");
    std::fs::write(
        &editor,
        "#!/bin/sh\necho 'Appended by the editor.' >> \"$1\"\n",
    )
    .unwrap();
    let mut perms = std::fs::metadata(&editor).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&editor, perms).unwrap();
    let mut s = Session::start(bank.path(), home.path(), &editor);
    s.wait_read();

    // Open an article through the finder.
    s.send("/");
    s.wait_text("Find article");
    s.send("Acme Corporation\r");
    s.wait_text("Belgian distributor");

    // Follow its first link ([[Legal]], in the properties).
    s.send("n\r");
    s.wait_text("Legal — 03_DOMAINS/Legal.md");
    s.send("b");
    s.wait_text("Acme Corporation — 01_CLIENTS/Acme Corporation.md");

    // The inspector: rank for one client, then another.
    s.send("\t");
    s.wait_text("source lang");
    s.send("\r");
    s.send("Acme Corporation\r");
    let screen = s.wait_for("Acme ranked first", |scr| {
        first_ranked(scr).contains("01_CLIENTS/Acme Corporation.md")
    });
    assert!(screen.contains("client: Acme Corporation → +3"), "{screen}");
    s.send("\r");
    // Clear the field (Ctrl-U deletes to the line start) and type another.
    s.send("\x15Globex\r");
    let screen = s.wait_for("Globex ranked first", |scr| {
        first_ranked(scr).contains("01_CLIENTS/Globex.md")
    });
    assert!(screen.contains("clients: [[Globex]] → +3"), "{screen}");

    // The health report: jump from a finding to its file.
    s.send("\t");
    s.wait_text("unparsable-frontmatter");
    s.send("jj\r");
    let screen = s.wait_text("warranty → garantie — 02_TERMINOLOGY/warranty → garantie.md");
    assert!(
        screen.contains("unparsable-frontmatter at 02_TERMINOLOGY/warranty → garantie.md:4"),
        "{screen}"
    );

    // A file with escape sequences shows them, but never sends them raw.
    // (In the Article pane `/` searches the article; Ctrl-P finds one.)
    s.send("\x10Hostile\r");
    s.wait_text("wipe ␛[2J then");

    // Search in the article: the match is counted, Esc clears the search.
    s.send("/then\r");
    s.wait_text("/then  1/1");
    s.send("\x1b");
    s.wait_for("the search closed", |scr| !scr.contains("/then  1/1"));

    // `y` copies the article's path, as shown, through OSC 52.
    s.send("y");
    s.wait_text("copied 03_DOMAINS/Hostile.md");
    let expected = format!(
        "\x1b]52;c;{}\x07",
        base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            "03_DOMAINS/Hostile.md"
        )
    );
    assert!(String::from_utf8_lossy(&s.raw.lock().unwrap()).contains(&expected));

    let raw_before_suspend = s.raw.lock().unwrap().clone();

    // Ctrl-Z gives the terminal back and takes it again. Under a parent
    // without job control the stop itself is discarded by the kernel, so
    // the process resumes at once: the screen must come back whole.
    let entered = |raw: &[u8]| String::from_utf8_lossy(raw).matches("\x1b[?1049h").count();
    let before = entered(&raw_before_suspend);
    s.send("\x1a");
    let start = Instant::now();
    while entered(&s.raw.lock().unwrap()) == before {
        assert!(start.elapsed() < PATIENCE, "no re-entry after Ctrl-Z");
        thread::sleep(Duration::from_millis(20));
    }
    s.wait_for("full redraw after resume", |scr| {
        scr.contains("01_CLIENTS") && scr.contains("wipe ␛[2J then")
    });

    // `e` hands the terminal to $VISUAL and re-reads the file afterwards.
    s.send("e");
    s.wait_text("Appended by the editor.");
    let on_disk = std::fs::read_to_string(bank.path().join("03_DOMAINS/Hostile.md")).unwrap();
    assert!(on_disk.ends_with("Appended by the editor.\n"));

    // A narrow terminal shows one pane; the article stays open.
    s.resize(20, 60);
    s.wait_for("single-pane layout", |scr| {
        !scr.contains("01_CLIENTS") && scr.contains("Hostile — 03_DOMAINS")
    });

    s.send("q");
    let start = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(start.elapsed() < PATIENCE, "membank did not quit");
        thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let raw = String::from_utf8_lossy(&raw_before_suspend);
    assert!(
        !raw.contains("\x1b[2J"),
        "a raw clear-screen reached the terminal"
    );
    assert!(
        !raw.contains("\x1b]52;c;aGk="),
        "a raw OSC 52 reached the terminal"
    );
    assert!(
        !raw.contains("\x1b[31mred"),
        "a raw colour reached the terminal"
    );
    // The terminal was given back at the end: the last alternate-screen
    // switch is the one that leaves it.
    let all = String::from_utf8_lossy(&s.raw.lock().unwrap()).into_owned();
    let left = all.rfind("\x1b[?1049l").expect("alternate screen left");
    let entered = all.rfind("\x1b[?1049h").expect("alternate screen entered");
    assert!(left > entered);
}

/// Did the program send any foreground/background colour?
/// Whether any SGR sequence sets a foreground or background colour.
fn has_colour(raw: &str) -> bool {
    raw.split("\x1b[").skip(1).any(|seq| {
        let Some(end) = seq.find(|c: char| !(c.is_ascii_digit() || c == ';')) else {
            return false;
        };
        seq[end..].starts_with('m')
            && seq[..end].split(';').any(|p| {
                matches!(
                    p.parse::<u8>(),
                    Ok(30..=37 | 40..=47 | 90..=97 | 100..=107 | 38 | 48)
                )
            })
    })
}

fn first_screen(args: &[&str], no_color: Option<&str>) -> String {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank");
    let mut s = Session::start_with(
        &fixture,
        home.path(),
        Path::new("true"),
        args,
        no_color,
        &[],
    );
    s.wait_read();
    s.send("q");
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < PATIENCE, "membank did not quit");
        thread::sleep(Duration::from_millis(20));
    }
    String::from_utf8_lossy(&s.raw.lock().unwrap()).into_owned()
}

#[test]
fn the_mouse_is_taken_unless_no_mouse_is_given() {
    // Mouse reports (SGR mode) are asked for, and given back on exit.
    let with = first_screen(&[], None);
    assert!(with.contains("\x1b[?1006h"), "{with:?}");
    assert!(with.contains("\x1b[?1006l"), "{with:?}");
    let without = first_screen(&["--no-mouse"], None);
    assert!(!without.contains("\x1b[?1006h") && !without.contains("\x1b[?1000h"));
}

#[test]
fn no_color_and_the_color_flag_decide_colours() {
    let coloured = first_screen(&[], None);
    assert!(has_colour(&coloured));
    // The default theme's colours go out as the 16 standard codes only.
    assert!(!coloured.contains("38;5;") && !coloured.contains("48;5;"));
    assert!(!has_colour(&first_screen(&[], Some("1"))));
    assert!(!has_colour(&first_screen(&["--color", "never"], None)));
    assert!(has_colour(&first_screen(&["--color", "always"], Some("1"))));
}

#[test]
fn a_chat_turn_streams_from_the_model_in_a_real_terminal() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank");
    let server = FakeServer::start([FakeReply::openai_stream(&[
        "Acme says ",
        "naleving, see [[compliance → naleving]].",
    ])
    .split_pieces()]);
    let env = server.env_for(Provider::OpenAi);
    let mut s = Session::start_with(&fixture, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    s.send("a1i");
    s.wait_text("Enter sends");
    s.send("Which term for compliance at Acme Corporation?\r");
    // No query in Context: the question would go out without the bank.
    s.wait_text("the context is empty");
    s.wait_text("client Acme Corporation: set it");
    assert_eq!(
        server.requests().len(),
        0,
        "sent before the warning was seen"
    );
    // The client it names is offered: `y` sets it and sends.
    s.wait_text("y yes · N / n / Esc no");
    s.send("y");
    s.wait_text("Acme says naleving");
    let screen = s.wait_text("reply complete");
    assert!(
        screen.contains("You: Which term for compliance at Acme Corporation?"),
        "{screen}"
    );
    let sent = &server.requests()[0].body;
    assert!(sent.contains("01_CLIENTS/Acme Corporation.md"), "{sent}");
    // The tree still answers after the turn.
    s.send("\t");
    s.send("q");
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < PATIENCE, "membank did not quit");
        thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(server.requests().len(), 1);
}

#[test]
fn without_a_usable_model_the_agents_say_what_to_set() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank");
    let config = home.path().join("bad.toml");
    std::fs::write(&config, "[llm]\nprovider = \"nobody\"\n").unwrap();
    let env = [("MEMBANK_CONFIG", config.display().to_string())];
    let mut s = Session::start_with(&fixture, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    // Opening the pane is enough to learn that no model can be used.
    s.send("a");
    let screen = s.wait_text("No model can be used");
    assert!(screen.contains("docs/llm.md"), "{screen}");
    s.send("1i");
    s.wait_text("Enter sends");
    s.send("Anything?\r");
    s.wait_text("the context is empty");
    s.send("\r");
    let screen = s.wait_text("NO REPLY: No model can be used");
    assert!(screen.contains("docs/llm.md"), "{screen}");
    // Everything else keeps working.
    s.send("\t/");
    s.wait_text("Find article");
}

#[test]
fn process_inbox_writes_only_after_review_in_a_real_terminal() {
    let home = tempfile::tempdir().unwrap();
    // The bank in a folder of its own, so an escape would land where only
    // this test looks.
    let outer = tempfile::tempdir().unwrap();
    let bank = outer.path().join("bank");
    std::fs::create_dir(&bank).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        &bank,
    );
    let reply = "### FILE: 02_TERMINOLOGY/audit → audit.md\n---\nterm_source: audit\n---\n# audit → audit\n### FILE: ../escape.md\nno\n";
    let server = FakeServer::start([FakeReply::openai_stream(&[reply])]);
    let env = server.env_for(Provider::OpenAi);
    let mut s = Session::start_with(&bank, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    s.send("a2");
    s.wait_text("call notes.md");
    s.send("r");
    s.wait_text("Send 1 inbox note");
    assert!(
        server.requests().is_empty(),
        "nothing is sent before the answer"
    );
    s.send("y");
    let screen = s.wait_text("2 proposed, 1 accepted");
    assert!(screen.contains("rejected  ../escape.md"), "{screen}");
    let written = bank.join("02_TERMINOLOGY/audit → audit.md");
    assert!(!written.exists(), "nothing is written before Enter");
    s.send("\r");
    s.wait_text("archived  00_INBOX/call notes.md");
    assert!(written.exists());
    assert!(!bank.join("00_INBOX/call notes.md").exists());
    let beside: Vec<_> = std::fs::read_dir(outer.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(beside, ["bank"], "nothing is written beside the bank");
}

#[test]
fn q_with_a_review_unwritten_asks_and_keeps_the_reply() {
    let home = tempfile::tempdir().unwrap();
    let outer = tempfile::tempdir().unwrap();
    let bank = outer.path().join("bank");
    std::fs::create_dir(&bank).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        &bank,
    );
    // The temporary folder the reply is kept in: this test's own.
    let tmp = tempfile::tempdir().unwrap();
    let reply = "### FILE: 02_TERMINOLOGY/audit → audit.md\n---\nterm_source: audit\n---\n# audit → audit\n### FILE: 03_DOMAINS/Legal.md\n---\ndomain: Legal\n---\n# Legal\n";
    let server = FakeServer::start([FakeReply::openai_stream(&[reply])]);
    let mut env = server.env_for(Provider::OpenAi);
    env.push(("TMPDIR", tmp.path().display().to_string()));
    let mut s = Session::start_with(&bank, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    s.send("a2r");
    s.wait_text("Send 1 inbox note");
    s.send("y");
    s.wait_text("2 proposed, 2 accepted");
    s.send("q");
    s.wait_text("2 accepted files not written — quit anyway? y/N");
    assert!(s.child.try_wait().unwrap().is_none(), "q asked first");
    // No: back to the review, nothing lost.
    s.send("N");
    s.wait_for("the question to go", |screen| {
        !screen.contains("quit anyway") && screen.contains("2 proposed, 2 accepted")
    });
    assert!(s.child.try_wait().unwrap().is_none());
    s.send("q");
    s.wait_text("quit anyway? y/N");
    s.send("y");
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < PATIENCE, "membank did not quit");
        thread::sleep(Duration::from_millis(20));
    }
    let screen = s.wait_text("the Inbox reply is saved in");
    // The reply paid for is kept, readable by the user only; nothing was
    // written to the bank.
    let kept: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("membank-inbox-reply-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}\n{screen}");
    assert_eq!(std::fs::read_to_string(&kept[0]).unwrap(), reply);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&kept[0]).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "owner-only: {mode:o}");
    }
    assert!(!bank.join("02_TERMINOLOGY/audit → audit.md").exists());
    assert!(bank.join("00_INBOX/call notes.md").exists());
}

#[test]
fn letters_typed_in_the_agents_without_i_are_typed_not_sent() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank");
    let server = FakeServer::start([FakeReply::openai_stream(&["Use naleving."])]);
    let env = server.env_for(Provider::OpenAi);
    let mut s = Session::start_with(&fixture, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    // No `i`: the question still lands in the input, and Enter sends it.
    s.send("a1");
    s.wait_text("1 Query");
    s.send("how do we say compliance?");
    s.wait_text("how do we say compliance?");
    s.send("\r");
    // No query in Context: warned first, and Enter again sends it.
    s.wait_text("the context is empty");
    assert_eq!(server.requests().len(), 0);
    s.send("\r");
    s.wait_text("reply complete");
    assert_eq!(server.requests().len(), 1);
    // Typing on after the reply: `r` is a letter here, not a send.
    s.send("rephrase it");
    s.wait_text("rephrase it");
    assert_eq!(server.requests().len(), 1, "a stray r sent nothing");
    // Esc and a key right after it arrive as one Alt-key: wait until the
    // input is left before quitting.
    s.send("\x1b");
    s.wait_text("any letter) types");
    quits(&mut s);
}

#[test]
fn the_last_query_comes_back_on_the_next_launch() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        bank.path(),
    );
    let state = home.path().join("state");
    let env = [("MEMBANK_STATE_DIR", state.display().to_string())];
    let mut s = Session::start_with(bank.path(), home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    s.send("\t\t");
    s.wait_text("source lang");
    s.send("\rGlobex\r");
    s.wait_for("Globex ranked first", |scr| {
        first_ranked(scr).contains("01_CLIENTS/Globex.md")
    });
    s.send("q");
    s.child.wait().unwrap();
    assert!(state.join("last-queries.json").is_file());
    // Nothing about the session is written into the bank.
    assert!(!bank.path().join("last-queries.json").exists());

    let s = Session::start_with(bank.path(), home.path(), Path::new("true"), &[], None, &env);
    let screen = s.wait_text("client=Globex");
    assert!(screen.contains("last query restored"), "{screen}");
}

#[test]
fn a_nested_vault_reveals_a_deep_file_and_folds_its_folder_again() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    for folder in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir(bank.path().join(folder)).unwrap();
    }
    let deep = bank
        .path()
        .join("03_DOMAINS/ObsidianHelp/Plugins/Core plugins");
    std::fs::create_dir_all(&deep).unwrap();
    for name in ["Canvas", "Backlinks"] {
        std::fs::write(
            deep.join(format!("{name}.md")),
            format!("---\ndomain: \"{name}\"\nlast_updated: 2026-01-15\n---\n# {name}\n"),
        )
        .unwrap();
    }
    let mut s = Session::start(bank.path(), home.path(), Path::new("true"));
    let first = s.wait_for("the nested bank to be read", |scr| {
        scr.contains("▸ ObsidianHelp 2") && !scr.contains("reading the memory bank")
    });
    assert!(
        !first.contains("Core plugins"),
        "subfolders start folded: {first}"
    );
    s.send("/Canvas");
    s.wait_text("1 of 2");
    s.send("\r");
    // Opening the file opens every folder on its way.
    s.wait_text("▾ Core plugins 2");
    // Back in the tree (its key hints show), h goes from the file to its
    // folder, then folds it.
    s.send("\x1b");
    s.wait_text("└ Enter open · ");
    s.send("hh");
    let folded = s.wait_text("▸ Core plugins 2");
    assert!(folded.contains("▾ Plugins 2"), "{folded}");
}

/// The tree pane's width on screen: where its top-right corner is.
fn tree_pane_width(screen: &str) -> Option<usize> {
    let top = screen.lines().find(|l| l.starts_with("┌ Bank"))?;
    top.chars().position(|c| c == '┐').map(|at| at + 1)
}

#[test]
fn the_tree_width_comes_back_on_the_next_launch() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank");
    let state = home.path().join("state");
    let env = [("MEMBANK_STATE_DIR", state.display().to_string())];
    let mut s = Session::start_with(&fixture, home.path(), Path::new("true"), &[], None, &env);
    let first = s.wait_read();
    let default = tree_pane_width(&first).expect("a tree pane");
    s.send(">>");
    // Each `>` is said in turn: wait for the second.
    let wider = s.wait_text(&format!("tree {} columns wide", default + 8));
    let chosen = tree_pane_width(&wider).unwrap();
    assert_eq!(chosen, default + 8, "{wider}");
    s.send("q");
    s.child.wait().unwrap();
    assert!(state.join("layout.json").is_file());

    let s = Session::start_with(&fixture, home.path(), Path::new("true"), &[], None, &env);
    let again = s.wait_read();
    assert_eq!(tree_pane_width(&again), Some(chosen), "{again}");
}

#[test]
fn membank_config_names_the_one_file_for_keys_theme_and_model() {
    let home = tempfile::tempdir().unwrap();
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank");
    let config = home.path().join("elsewhere.toml");
    std::fs::write(
        &config,
        "theme = \"mono\"\n[keys]\nquit = [\"x\"]\n[llm]\nprovider = \"nobody\"\n",
    )
    .unwrap();
    let env = [("MEMBANK_CONFIG", config.display().to_string())];
    let mut s = Session::start_with(&fixture, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    // The [llm] table of the same file is the one the model connection reads.
    s.send("a");
    s.wait_text("No model can be used");
    s.send("\t");
    // `q` no longer quits; the rebound `x` does.
    // Keys are handled in order: help opening after `q` shows `q` was
    // read and did not quit, however slow the machine.
    s.send("q?");
    s.wait_for("help after q", |scr| {
        scr.contains("show the keys of this pane")
    });
    assert!(s.child.try_wait().unwrap().is_none(), "q still quit");
    s.send("\x1b");
    s.wait_for("help closed", |scr| {
        !scr.contains("show the keys of this pane")
    });
    s.send("x");
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() {
        assert!(
            start.elapsed() < PATIENCE,
            "the rebound quit key did nothing"
        );
        thread::sleep(Duration::from_millis(20));
    }
    let raw = String::from_utf8_lossy(&s.raw.lock().unwrap()).into_owned();
    let at = raw.find("\x1b[38;5;").or(raw.find("\x1b[48;5;"));
    assert!(
        at.is_none(),
        "the mono theme from the same file: {:?}",
        at.map(|i| raw.split_at(i).1.chars().take(60).collect::<String>())
    );
}

#[test]
fn an_everos_root_opens_in_the_same_panes_and_search_jumps_to_an_entry() {
    let home = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-everos"),
        root.path(),
    );
    let editor = home.path().join("no-editor");
    let mut s = Session::start(root.path(), home.path(), &editor);
    // Read in the background; the tree fills in with scopes and kinds.
    s.wait_text(".atomic_facts");
    let first = s.contents();
    assert!(first.contains(" Search "), "{first}");
    // Search from anywhere, then jump to the first hit's entry.
    s.send("\x06");
    s.send("API keys\r");
    s.wait_text("hits for");
    s.send("\r");
    let shown = s.wait_text("entry ep_");
    assert!(shown.contains("API keys"), "{shown}");
    // Back to the day's list of entries.
    s.send("\x7f");
    s.wait_text("Entries (");
    quits(&mut s);
}

#[test]
fn a_deja_vu_project_opens_in_the_same_panes_with_recall() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        project.path(),
    );
    let editor = home.path().join("no-editor");
    let mut s = Session::start(project.path(), home.path(), &editor);
    s.wait_text("[superseded]");
    // Tab to the Recall pane and type a cue.
    s.send("\t\ti");
    s.send("settings sync");
    let recalled = s.wait_text("level strong");
    assert!(recalled.contains("0.975"), "{recalled}");
    // Enter leaves the cue (an Esc right before `q` would read as Alt-q).
    s.send("\r");
    quits(&mut s);
}

#[test]
fn a_deja_vu_writeback_writes_only_after_review_in_a_real_terminal() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("quillnote");
    std::fs::create_dir_all(&project).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        &project,
    );
    let record = "---\nid: decision-offline-cache\ntitle: Cache notes offline\nstatus: active\n\
                  scope: project:quillnote\nupdated: 2026-11-23\n---\n\n# Cache notes offline\n\n\
                  ## Decision\n\nCache notes.\n\n## Rationale\n\nOffline.\n\n## Consequences\n\n\
                  Cleared on sign-out.\n";
    let line = r#"{"schema_version":1,"id":"decision-offline-cache","scope":"project:quillnote","title":"Cache notes offline","keywords":["offline","cache","indexeddb"],"record_path":"memory/decisions/offline-cache.md","updated":"2026-11-23","weight":0.8,"status":"active"}"#;
    let reply = format!(
        "### FILE: memory/decisions/offline-cache.md\n{record}\
         ### FILE: memory/impressions.jsonl\n{line}\n### FILE: ../escape.md\nno\n"
    );
    let server = FakeServer::start([FakeReply::openai_stream(&[&reply])]);
    let env = server.env_for(Provider::OpenAi);
    let mut s = Session::start_with(&project, home.path(), Path::new("true"), &[], None, &env);
    s.wait_text("[superseded]");
    s.send("a");
    s.wait_text("1 Chat 2 Writeback");
    s.send("2i");
    s.wait_text("Enter new line");
    s.send("We cache notes offline now.");
    // Esc, then `r` once the input is left (together they read as Alt-r).
    s.send("\x1b");
    s.wait_text("r proposes records");
    s.send("r");
    let screen = s.wait_text("3 proposed, 2 accepted");
    assert!(screen.contains("rejected  ../escape.md"), "{screen}");
    let written = project.join("memory/decisions/offline-cache.md");
    assert!(!written.exists(), "nothing is written before Enter");
    s.send("\r");
    s.wait_text("Write 2 files? y/N");
    assert!(!written.exists(), "nothing is written before the answer");
    s.send("y");
    s.wait_text("Applied:");
    assert!(written.exists());
    let impressions = std::fs::read_to_string(project.join("memory/impressions.jsonl")).unwrap();
    assert!(impressions.ends_with(&format!("{line}\n")), "{impressions}");
    assert!(!dir.path().join("escape.md").exists());
    assert_eq!(server.requests().len(), 1);
}

/// `q` ends the program with success, within the patience.
fn quits(s: &mut Session) {
    s.send("q");
    let start = Instant::now();
    let status = loop {
        if let Some(st) = s.child.try_wait().unwrap() {
            break st;
        }
        assert!(start.elapsed() < PATIENCE, "membank did not quit");
        thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
}

/// Whether the screen row holding `text` is drawn highlighted there.
fn highlighted_at(s: &Session, text: &str) -> bool {
    let parser = s.screen.lock().unwrap();
    let screen = parser.screen();
    let contents = screen.contents();
    let Some((row, line)) = contents.lines().enumerate().find(|(_, l)| l.contains(text)) else {
        return false;
    };
    let byte = line.find(text).unwrap();
    let col = line[..byte].chars().count() as u16;
    screen
        .cell(row as u16, col)
        .is_some_and(|c| c.inverse() || c.bgcolor() != vt100::Color::Default)
}

#[test]
fn a_search_hit_on_a_list_items_second_line_is_highlighted_there() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        bank.path(),
    );
    std::fs::write(
        bank.path().join("03_DOMAINS/Regulatory.md"),
        "---\ndomain: Regulatory\nlast_updated: 2026-01-01\n---\n# Regulatory\n\n\
         ## Regulatory documents\n\
         - SmPC (*Samenvatting van de productkenmerken*) and leaflet\n  \
         (bijsluiter) follow the QRD template\n  headings word for word.\n",
    )
    .unwrap();
    let mut s = Session::start(bank.path(), home.path(), Path::new("true"));
    s.wait_read();
    s.send("\x06");
    s.wait_text("search ›");
    s.send("bijsluiter\r");
    s.wait_text("03_DOMAINS/Regulatory.md:9");
    s.send("\r");
    s.wait_text("Regulatory — 03_DOMAINS/Regulatory.md");
    s.wait_for("the hit's line highlighted", |_| {
        highlighted_at(&s, "bijsluiter")
    });
    assert!(
        !highlighted_at(&s, "## Regulatory documents"),
        "the heading above is highlighted:\n{}",
        s.contents()
    );
    // `z` gives the article the whole screen, and again gives it back.
    s.send("z");
    s.wait_for("the article zoomed", |scr| {
        scr.contains("[zoomed: z]") && !scr.contains("01_CLIENTS")
    });
    s.send("z");
    s.wait_for("the panes back", |scr| {
        !scr.contains("[zoomed: z]") && scr.contains("01_CLIENTS")
    });
    quits(&mut s);
}

#[test]
fn a_health_finding_is_fixed_after_review_in_a_real_terminal() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        bank,
    );
    let acme = bank.join("01_CLIENTS/Acme Corporation.md");
    let before = std::fs::read_to_string(&acme).unwrap();
    let bad = before.replace("last_updated: 2026-03-01", "last_updated: 2026-3-1");
    assert_ne!(bad, before);
    std::fs::write(&acme, &bad).unwrap();
    let mut s = Session::start(bank, home.path(), Path::new("true"));
    s.wait_read();
    // Shift-Tab twice from the tree: the Health pane.
    s.send("\x1b[Z\x1b[Z");
    s.send("/bad-date\r");
    s.wait_text("“bad-date”");
    s.send("gx");
    let screen = s.wait_text("1 file to fix, 1 accepted");
    assert!(screen.contains("+last_updated: 2026-03-01"), "{screen}");
    assert_eq!(
        std::fs::read_to_string(&acme).unwrap(),
        bad,
        "shown, not written"
    );
    s.send("\r");
    // The preview lists the file the same way: wait for the result.
    let fixed = s.wait_text("Fixed:");
    assert!(
        fixed.contains("changed    01_CLIENTS/Acme Corporation.md"),
        "{fixed}"
    );
    assert_eq!(std::fs::read_to_string(&acme).unwrap(), before);
    s.send("\r");
    s.wait_text("No finding matches the filter.");
    quits(&mut s);
}

#[test]
fn r_in_the_tree_renames_an_article_and_its_links_after_review_and_u_takes_it_back() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    for folder in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir(bank.path().join(folder)).unwrap();
    }
    let acme = "---\nclient: \"Acme\"\nlast_updated: 2026-01-15\n---\n# Acme\n\nSee [[Legal]].\n";
    std::fs::write(bank.path().join("01_CLIENTS/Acme.md"), acme).unwrap();
    std::fs::write(
        bank.path().join("03_DOMAINS/Legal.md"),
        "---\ndomain: \"Legal\"\nlast_updated: 2026-01-15\n---\n# Legal\n",
    )
    .unwrap();
    let mut s = Session::start(bank.path(), home.path(), Path::new("true"));
    s.wait_for("the bank to be read", |scr| {
        scr.contains("Legal") && !scr.contains("reading the memory bank")
    });
    s.send("/Legal");
    s.wait_text("1 of 2");
    s.send("\r");
    s.wait_text("Legal — 03_DOMAINS/Legal.md");
    // Back in the tree, with the article selected; a key only once the
    // screen shows it arrived (Esc then a key at once reads as Alt-key).
    s.send("\x1b");
    s.wait_text("└ Enter open · ");
    s.send("r");
    s.wait_text("New path of 03_DOMAINS/Legal.md");
    s.send(&"\x7f".repeat("Legal.md".len()));
    s.wait_text("03_DOMAINS/▏");
    s.send("Law.md\r");
    let review = s.wait_text("2 files to write");
    assert!(
        review.contains("03_DOMAINS/Legal.md → 03_DOMAINS/Law.md"),
        "{review}"
    );
    assert!(
        bank.path().join("03_DOMAINS/Legal.md").exists(),
        "nothing is written before Enter"
    );
    s.send("\r");
    s.wait_text("renamed 03_DOMAINS/Legal.md → 03_DOMAINS/Law.md");
    assert!(!bank.path().join("03_DOMAINS/Legal.md").exists());
    assert!(bank.path().join("03_DOMAINS/Law.md").exists());
    let linked = std::fs::read_to_string(bank.path().join("01_CLIENTS/Acme.md")).unwrap();
    assert_eq!(linked, acme.replace("[[Legal]]", "[[Law]]"));

    s.send("u");
    s.wait_text("Undo the last change (rename");
    s.send("y");
    // The re-read that follows says so in its stead: wait for the files.
    let start = Instant::now();
    while !bank.path().join("03_DOMAINS/Legal.md").exists() {
        assert!(start.elapsed() < PATIENCE, "not undone:\n{}", s.contents());
        thread::sleep(Duration::from_millis(20));
    }
    s.wait_for("the tree to show the old name", |scr| {
        scr.contains("  Legal") && !scr.contains("  Law ")
    });
    assert!(!bank.path().join("03_DOMAINS/Law.md").exists());
    let back = std::fs::read_to_string(bank.path().join("01_CLIENTS/Acme.md")).unwrap();
    assert_eq!(back, acme);
    quits(&mut s);
}

#[test]
fn qa_opens_on_a_translated_files_terminology_check() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        bank.path(),
    );
    let job = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/terms/job.xlf");
    let before = std::fs::read(&job).unwrap();
    let editor = home.path().join("no-editor");
    let mut s = Session::start_with(
        bank.path(),
        home.path(),
        &editor,
        &["--qa", job.to_str().unwrap()],
        None,
        &[],
    );
    // The check waits for the bank, then runs in the background.
    let shown = s.wait_text("terms of job.xlf: 1 finding ");
    assert!(shown.contains("compliance (1)"), "{shown}");
    assert!(
        shown.contains("segment 2  term-missing  use “naleving”"),
        "{shown}"
    );
    assert!(shown.contains("untranslated (1: not checked)"), "{shown}");
    // Enter: the segment beside the term's article.
    s.send("\r");
    let opened = s.wait_text("De conformiteit wordt");
    assert!(opened.contains("term_target: \"naleving\""), "{opened}");
    // Back to the list, then to the checks; wait for each screen, as an
    // Esc followed at once by a key reads as Alt and that key.
    s.send("\x1b");
    s.wait_for("the list again", |s| {
        s.contains("untranslated (1") && !s.contains("De conformiteit")
    });
    s.send("\x1b");
    s.wait_for("the checks again", |s| !s.contains("terms of job.xlf"));
    assert_eq!(
        std::fs::read(&job).unwrap(),
        before,
        "the file is only read"
    );
    quits(&mut s);
}

/// The interface's undo is journalled as soon as it is done, and what the
/// journal says of it reaches the status: here, that the undo of a change
/// larger than the journal's bound is kept anyway (`[undo] max_mb`).
#[test]
fn an_undo_over_the_journal_bound_says_so_in_the_status() {
    let home = tempfile::tempdir().unwrap();
    let bank = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        bank.path(),
    );
    let body = "A line of the article that makes it large.\n".repeat(50_000);
    std::fs::write(
        bank.path().join("03_DOMAINS/Big.md"),
        format!("---\ndomain: Big\n---\n{body}"),
    )
    .unwrap();
    let config = home.path().join("bounded.toml");
    std::fs::write(&config, "[undo]\nmax_mb = 1\n").unwrap();
    let state = home.path().join("state");
    let moved = support::membank()
        .env("MEMBANK_STATE_DIR", &state)
        .env("MEMBANK_CONFIG", &config)
        .args(["mv", bank.path().to_str().unwrap(), "03_DOMAINS/Big.md"])
        .args(["03_DOMAINS/Huge.md", "--yes"])
        .output()
        .unwrap();
    assert!(moved.status.success(), "{moved:?}");
    let env = [("MEMBANK_CONFIG", config.display().to_string())];
    let mut s = Session::start_with(bank.path(), home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    s.send("u");
    s.wait_text("y");
    s.send("y");
    let shown = s.wait_text("undone: rename");
    assert!(shown.contains("warning:"), "{shown}");
    assert!(bank.path().join("03_DOMAINS/Big.md").exists());
    quits(&mut s);
}

/// A reply still arriving when the interface quits is kept, marked as cut
/// short: `--reply` refuses it, as it would cut an article short.
#[test]
fn a_reply_kept_while_it_was_arriving_is_marked_and_refused_by_reply() {
    let home = tempfile::tempdir().unwrap();
    let outer = tempfile::tempdir().unwrap();
    let bank = outer.path().join("bank");
    std::fs::create_dir(&bank).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank"),
        &bank,
    );
    let tmp = tempfile::tempdir().unwrap();
    let first = "### FILE: 03_DOMAINS/Legal.md\n---\ndomain: Legal\n---\n# Le";
    let server =
        FakeServer::start([FakeReply::openai_stream(&[first, "gal\nmore\n"]).stall_after(2)]);
    let mut env = server.env_for(Provider::OpenAi);
    env.push(("TMPDIR", tmp.path().display().to_string()));
    let before = support::tree(&bank);
    let mut s = Session::start_with(&bank, home.path(), Path::new("true"), &[], None, &env);
    s.wait_read();
    s.send("a2r");
    s.wait_text("Send 1 inbox note");
    s.send("y");
    // The first piece comes and the stream stalls: quit meanwhile.
    s.wait_text(&format!("receiving… {} characters", first.chars().count()));
    s.send("q");
    s.wait_text("quit anyway");
    s.send("y");
    let start = Instant::now();
    while s.child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < PATIENCE, "membank did not quit");
        thread::sleep(Duration::from_millis(20));
    }
    let kept: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains("membank-inbox-reply-"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let text = std::fs::read_to_string(&kept[0]).unwrap();
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("did not arrive whole"),
        "{text}"
    );
    assert!(text.ends_with(first), "{text}");
    let out = support::membank()
        .args(["compile", bank.to_str().unwrap(), "--reply"])
        .arg(&kept[0])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(support::tree(&bank), before);
}
