//! Times the real interface in a pseudo-terminal, as a user sees it: from
//! starting the program to its first full frame, to the tree of the files
//! its walk found, to the bank being read,
//! and how fast keys are answered meanwhile. With `--change N` it then
//! rewrites N articles at once (as a `git pull` does) and times the keys
//! again while they are read, and the change until it is on screen. With
//! `--memory` it reads the program's resident memory (VmRSS, and its peak
//! VmHWM, from `/proc/PID/status`, so Linux only) once the bank is read and
//! checked, then again after one search (Ctrl-F, a query, its hits shown).
//! With `--cue TEXT` the memory is a Deja Vu project: it types TEXT into
//! the Recall pane a key at a time and times each key until it shows.
//! With `MEMBANK_LOG=info` it prints the steps of the program's event loop
//! that took longer than a key should wait, from the program's log.
//!
//! ```sh
//! cargo build --release
//! cargo run --release --example first_frame -- BANK [--change N] [--memory [QUERY]]
//! cargo run --release --example first_frame -- PROJECT --cue "settings sync"
//! ```
//!
//! `--change` edits the bank: give it a copy. The binary is
//! `target/release/membank`, or `MEMBANK_BIN`.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

const ROWS: u16 = 40;
const COLS: u16 = 140;
const PATIENCE: Duration = Duration::from_secs(120);

struct Screen {
    parser: Mutex<vt100::Parser>,
    /// When the first byte arrived.
    first_byte: Mutex<Option<Instant>>,
}

impl Screen {
    fn text(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Poll (every half millisecond) until `check` holds; the time it did.
    fn wait(&self, what: &str, check: impl Fn(&str) -> bool) -> Instant {
        let start = Instant::now();
        loop {
            if check(&self.text()) {
                return Instant::now();
            }
            if start.elapsed() > PATIENCE {
                panic!("timed out waiting for {what}:\n{}", self.text());
            }
            thread::sleep(Duration::from_micros(500));
        }
    }
}

/// The first full frame: borders drawn and the status line at the bottom.
fn full_frame(s: &str) -> bool {
    let rows: Vec<&str> = s.lines().collect();
    rows.len() >= usize::from(ROWS) - 1
        && rows
            .first()
            .is_some_and(|r| r.contains('─') || r.contains("Bank"))
        && rows.iter().rev().take(2).any(|r| r.contains("reading"))
}

/// The status line counts articles once the bank is read.
fn loaded(s: &str) -> bool {
    s.lines()
        .rev()
        .take(2)
        .any(|r| r.contains(" articles") && !r.contains(" 0 articles"))
}

/// The tree counts files in a folder (the walk is done), read or not.
fn listed(s: &str) -> bool {
    s.lines().any(|r| {
        r.split("01_CLIENTS ").nth(1).is_some_and(|rest| {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<usize>().is_ok_and(|n| n > 0)
        })
    })
}

/// The status line's "reloaded K files", if shown.
fn reloaded_message(s: &str) -> Option<(String, usize)> {
    let at = s.find("reloaded ")?;
    let rest = &s[at + "reloaded ".len()..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let k = if rest[digits.len()..].starts_with(" files") {
        digits.parse().ok()?
    } else {
        1
    };
    Some((s[at..at + "reloaded ".len() + digits.len()].to_owned(), k))
}

fn help_open(s: &str) -> bool {
    s.contains("Keys: ")
}

/// Open and close the help popup `n` times; the time each key took to show.
fn key_latencies(screen: &Screen, input: &mut dyn Write, n: usize) -> Vec<Duration> {
    let mut took = Vec::new();
    for _ in 0..n {
        for (key, open) in [("?", true), ("\x1b", false)] {
            let sent = Instant::now();
            input.write_all(key.as_bytes()).unwrap();
            input.flush().unwrap();
            let shown = screen.wait("the help popup", |s| help_open(s) == open);
            took.push(shown - sent);
            thread::sleep(Duration::from_millis(40));
        }
    }
    took
}

/// A Deja Vu project is read: the status line counts its files.
fn project_read(s: &str) -> bool {
    s.lines()
        .rev()
        .take(2)
        .any(|r| r.contains(" files") && !r.contains(" 0 files") && !r.contains("reading"))
}

/// Type `cue` into the Recall pane a key at a time; the time each key
/// took to show in the cue line.
fn cue_latencies(screen: &Screen, input: &mut dyn Write, cue: &str) -> Vec<Duration> {
    // Tab twice reaches the Recall pane; `i` starts typing a cue.
    input.write_all(b"\t\t").unwrap();
    input.flush().unwrap();
    thread::sleep(Duration::from_millis(200));
    input.write_all(b"i").unwrap();
    input.flush().unwrap();
    screen.wait("typing a cue", |s| s.contains("cue › ▏"));
    let mut took = Vec::new();
    let mut typed = String::new();
    for c in cue.chars() {
        typed.push(c);
        let shown = format!("cue › {typed}▏");
        let sent = Instant::now();
        input.write_all(c.to_string().as_bytes()).unwrap();
        input.flush().unwrap();
        let at = screen.wait("the key in the cue", |s| s.contains(&shown));
        took.push(at - sent);
        thread::sleep(Duration::from_millis(40));
    }
    // Leave the cue so that `q` quits.
    input.write_all(b"\x1b").unwrap();
    input.flush().unwrap();
    thread::sleep(Duration::from_millis(200));
    took
}

/// The steps the program logged as slower than a key should wait (only
/// with `MEMBANK_LOG=info` or more).
fn print_slow_steps(state: &Path) {
    let Ok(log) = std::fs::read_to_string(state.join("membank.log")) else {
        return;
    };
    let slow: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("longer than a key should wait"))
        .collect();
    println!("{} slow steps logged", slow.len());
    for line in slow {
        println!("  {line}");
    }
}

fn describe(label: &str, mut took: Vec<Duration>) {
    took.sort();
    if took.is_empty() {
        return;
    }
    let at = |q: f64| took[((took.len() - 1) as f64 * q) as usize];
    println!(
        "{label}: {} keys, median {:.1?}, p90 {:.1?}, max {:.1?}",
        took.len(),
        at(0.5),
        at(0.9),
        took[took.len() - 1]
    );
}

/// Append a line to `n` articles spread over the bank; their paths.
fn change_articles(root: &Path, n: usize) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir(root.join("02_TERMINOLOGY"));
    files.sort();
    let step = (files.len() / n).max(1);
    let chosen: Vec<PathBuf> = files.into_iter().step_by(step).take(n).collect();
    for path in &chosen {
        let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        writeln!(f, "\nChanged by the mass-change measurement.").unwrap();
    }
    chosen
}

fn walkdir(dir: PathBuf) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                out.push(p);
            }
        }
    }
    out
}

/// The resident memory of process `pid` now and at its peak, in bytes.
fn resident(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .expect("/proc/PID/status (the memory measurement needs Linux)");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.trim().strip_suffix("kB"))
            .and_then(|kb| kb.trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .unwrap_or_else(|| panic!("no {name} in /proc/{pid}/status"))
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The resident memory once it stops growing: the check and the index
/// warm-up finish in the background after the screen says the bank is
/// read, so wait until a second's readings stay within 1 MB (or a minute).
fn settled_resident(pid: u32) -> (u64, u64) {
    let start = Instant::now();
    let mut last = resident(pid);
    let mut steady = 0;
    while steady < 4 && start.elapsed() < Duration::from_secs(60) {
        thread::sleep(Duration::from_millis(250));
        let now = resident(pid);
        steady = if now.0.abs_diff(last.0) < 1 << 20 {
            steady + 1
        } else {
            0
        };
        last = now;
    }
    last
}

/// The CPU time process `pid` has used so far (user and system, all its
/// threads), in seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .expect("/proc/PID/stat (the memory measurement needs Linux)");
    // The name, in parentheses, may hold spaces: count fields after it.
    let after_name = &stat[stat.rfind(')').expect("a process name") + 1..];
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    // utime and stime are the 14th and 15th fields, the 12th and 13th
    // after the name, in ticks of 1/100 s on Linux.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

fn print_resident(when: &str, (rss, hwm): (u64, u64), bank_bytes: u64, cpu: f64) {
    let mb = |b: u64| b as f64 / 1e6;
    println!(
        "memory {when}: resident {:.0} MB ({:.2}× the bank), peak {:.0} MB ({:.2}×), CPU so far {cpu:.2} s",
        mb(rss),
        rss as f64 / bank_bytes as f64,
        mb(hwm),
        hwm as f64 / bank_bytes as f64
    );
}

/// The bytes of the Markdown files under `root`.
fn markdown_bytes(root: &Path) -> u64 {
    walkdir(root.to_path_buf())
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

/// The search's outcome on the status line or in the pane.
fn searched(s: &str) -> bool {
    s.contains(" hits for “") || s.contains(" hit for “") || s.contains("no hits")
}

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    let usage = "usage: first_frame BANK [--change N] [--memory [QUERY]] | PROJECT --cue TEXT";
    let bank = PathBuf::from(args.next().expect(usage));
    let mut change: Option<usize> = None;
    let mut memory_query: Option<String> = None;
    let mut cue: Option<String> = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--change" => {
                change = Some(
                    args.next()
                        .and_then(|n| n.parse().ok())
                        .expect("--change N"),
                );
            }
            "--memory" => {
                let query = args.next_if(|a| !a.starts_with("--"));
                memory_query = Some(query.unwrap_or_else(|| "translation".to_owned()));
            }
            "--cue" => cue = Some(args.next().expect("--cue TEXT")),
            other => panic!("unknown argument {other}; {usage}"),
        }
    }
    let bin = std::env::var_os("MEMBANK_BIN").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/membank"),
        PathBuf::from,
    );
    let home = tempfile::tempdir().unwrap();
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: ROWS,
            cols: COLS,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new(&bin);
    cmd.arg(&bank);
    cmd.env("TERM", "xterm-256color");
    cmd.env("HOME", home.path());
    cmd.env("MEMBANK_STATE_DIR", home.path());
    cmd.env("MEMBANK_CONFIG", home.path().join("none.toml"));
    let screen = Arc::new(Screen {
        parser: Mutex::new(vt100::Parser::new(ROWS, COLS, 0)),
        first_byte: Mutex::new(None),
    });
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut input = pair.master.take_writer().unwrap();
    let spawned = Instant::now();
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    {
        let screen = Arc::clone(&screen);
        thread::spawn(move || {
            let mut buf = [0u8; 65536];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                screen
                    .first_byte
                    .lock()
                    .unwrap()
                    .get_or_insert_with(Instant::now);
                screen.parser.lock().unwrap().process(&buf[..n]);
            }
        });
    }
    if let Some(cue) = &cue {
        let read = screen.wait("the project read", project_read);
        println!(
            "project read and on screen {:.2?} after start",
            read - spawned
        );
        describe(
            "keys typing the cue",
            cue_latencies(&screen, &mut input, cue),
        );
        quit(&mut input, child.as_mut());
        print_slow_steps(home.path());
        return;
    }
    let first_frame = screen.wait("the first frame", full_frame);
    let first_byte = screen.first_byte.lock().unwrap().unwrap();
    println!(
        "first byte {:.1?}, first full frame {:.1?} after start",
        first_byte - spawned,
        first_frame - spawned
    );
    let mut while_loading = Vec::new();
    let mut tree_at = None;
    while !loaded(&screen.text()) {
        if tree_at.is_none() && listed(&screen.text()) {
            tree_at = Some(Instant::now());
        }
        while_loading.extend(key_latencies(&screen, &mut input, 1));
        thread::sleep(Duration::from_millis(20));
    }
    match tree_at {
        Some(at) => println!(
            "tree of walked files on screen by {:.2?} after start",
            at - spawned
        ),
        None => println!("the tree showed no files before the bank was read"),
    }
    let read = screen.wait("the bank read", loaded);
    println!("bank read and on screen {:.2?} after start", read - spawned);
    describe("keys while reading", while_loading);
    describe("keys once read", key_latencies(&screen, &mut input, 10));

    if let Some(query) = &memory_query {
        let pid = child.process_id().expect("the program's process id");
        let bank_bytes = markdown_bytes(&bank);
        println!("bank: {:.0} MB of Markdown", bank_bytes as f64 / 1e6);
        let settled = settled_resident(pid);
        print_resident(
            "once read and checked",
            settled,
            bank_bytes,
            cpu_seconds(pid),
        );
        let sent = Instant::now();
        input.write_all(b"\x06").unwrap();
        input.write_all(query.as_bytes()).unwrap();
        input.write_all(b"\r").unwrap();
        input.flush().unwrap();
        let shown = screen.wait("the search's hits", searched);
        println!("search for {query:?} answered in {:.2?}", shown - sent);
        let settled = settled_resident(pid);
        print_resident("after one search", settled, bank_bytes, cpu_seconds(pid));
        // Leave the search popup so `q` below quits.
        input.write_all(b"\x1b").unwrap();
        input.flush().unwrap();
        thread::sleep(Duration::from_millis(200));
    }

    if let Some(n) = change {
        // Let the start-up work (search index, warm-up) settle first.
        thread::sleep(Duration::from_secs(2));
        let started = Instant::now();
        let changed = change_articles(&bank, n);
        println!(
            "{} files changed in {:.2?}",
            changed.len(),
            started.elapsed()
        );
        // The watcher may hand the change over in several batches; each
        // read says "reloaded K files".
        let (mut seen, mut last) = (0, String::new());
        let mut during = Vec::new();
        let mut on_screen = None;
        while seen < changed.len() && started.elapsed() < PATIENCE {
            during.extend(key_latencies(&screen, &mut input, 1));
            thread::sleep(Duration::from_millis(60));
            let said = reloaded_message(&screen.text());
            if let Some((text, k)) = said
                && text != last
            {
                seen += k;
                last = text;
                on_screen = Some(started.elapsed());
                println!("  {last} at {:.2?}", started.elapsed());
            }
        }
        match on_screen {
            Some(t) => println!("change on screen {t:.2?} after the files were written"),
            None => println!("the change was never said on screen"),
        }
        describe("keys while re-reading", during);
    }
    quit(&mut input, child.as_mut());
    print_slow_steps(home.path());
}

/// Ask the program to quit, and wait for it.
fn quit(input: &mut dyn Write, child: &mut (dyn portable_pty::Child + Send + Sync)) {
    input.write_all(b"q").unwrap();
    input.flush().unwrap();
    // A popup left open would swallow the `q`: stop the program then.
    let asked = Instant::now();
    while child.try_wait().ok().flatten().is_none() {
        if asked.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            break;
        }
        thread::sleep(Duration::from_millis(50));
    }
    let _ = child.wait();
}
