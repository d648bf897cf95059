//! The log file: where it goes, how its level is set, and what never goes
//! into it.

use std::path::{Path, PathBuf};
use std::process::Output;

use membank_llm::testing::{FakeReply, FakeServer};

mod support;

const KEY: &str = "sk-ant-log-test-key-0123456789";
const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/scoring-bank");

/// Runs membank with its state folder (and so its log) in `state`.
fn membank(state: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = support::membank();
    cmd.args(args)
        .env("XDG_STATE_HOME", state)
        .env_remove("MEMBANK_STATE_DIR")
        .env("MEMBANK_CONFIG", "/dev/null")
        .env_remove("MEMBANK_LOG");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("membank runs")
}

fn log_of(state: &Path) -> Option<String> {
    std::fs::read_to_string(log_path(state)).ok()
}

fn log_path(state: &Path) -> PathBuf {
    state.join("membank").join("membank.log")
}

#[test]
fn a_run_leaves_a_trail_in_the_state_folder_and_nothing_on_the_terminal() {
    let state = tempfile::tempdir().unwrap();
    let out = membank(state.path(), &["check", FIXTURE, "--json"], &[]);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("INFO"),
        "the log stays off the terminal"
    );
    let log = log_of(state.path()).expect("a log file");
    assert!(log.contains("membank started"), "{log}");
    assert!(
        log.contains("command=\"check\"") || log.contains("command=check"),
        "{log}"
    );
    assert!(
        log.contains("layout=\"bank\"") || log.contains("layout=bank"),
        "{log}"
    );
    assert!(log.contains("membank finished"), "{log}");
    // A second run appends.
    membank(state.path(), &["check", FIXTURE], &[]);
    let again = log_of(state.path()).unwrap();
    assert_eq!(again.matches("membank started").count(), 2);
    // It names memories and files: only its owner may read it.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(log_path(state.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }
}

#[test]
fn membank_state_dir_moves_the_log_with_the_rest_of_the_state() {
    let xdg = tempfile::tempdir().unwrap();
    let moved = tempfile::tempdir().unwrap();
    let out = membank(
        xdg.path(),
        &["check", FIXTURE],
        &[("MEMBANK_STATE_DIR", moved.path().to_str().unwrap())],
    );
    assert!(out.status.code().is_some());
    let log = std::fs::read_to_string(moved.path().join("membank.log")).expect("the moved log");
    assert!(log.contains("membank started"), "{log}");
    assert!(
        log_of(xdg.path()).is_none(),
        "nothing in the platform folder"
    );
}

#[test]
fn the_level_comes_from_the_flag_or_membank_log() {
    let state = tempfile::tempdir().unwrap();
    membank(state.path(), &["check", FIXTURE], &[("MEMBANK_LOG", "off")]);
    assert!(log_of(state.path()).is_none(), "off writes nothing");
    // A global option before the subcommand works as after it.
    let out = membank(state.path(), &["--log-level", "off", "check", FIXTURE], &[]);
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(log_of(state.path()).is_none());
    membank(
        state.path(),
        &["check", FIXTURE, "--log-level", "error"],
        &[],
    );
    assert!(log_of(state.path()).unwrap_or_default().is_empty());
    // The flag wins over the variable.
    membank(
        state.path(),
        &["check", FIXTURE, "--log-level", "info"],
        &[("MEMBANK_LOG", "off")],
    );
    assert!(log_of(state.path()).unwrap().contains("membank started"));
    let out = membank(
        state.path(),
        &["check", FIXTURE],
        &[("MEMBANK_LOG", "loud")],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("MEMBANK_LOG") && err.contains("loud"), "{err}");
    let out = membank(
        state.path(),
        &["check", FIXTURE, "--log-level", "loud"],
        &[],
    );
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn keys_and_reply_text_stay_out_of_the_log_even_at_trace_level() {
    let state = tempfile::tempdir().unwrap();
    let server = FakeServer::start([FakeReply::anthropic_stream(&["The secret answer"])]);
    let url = server.url();
    let env = [
        ("MEMBANK_PROVIDER", "anthropic"),
        ("MEMBANK_MODEL", "test-model"),
        ("MEMBANK_BASE_URL", url.as_str()),
        ("ANTHROPIC_API_KEY", KEY),
    ];
    let out = membank(
        state.path(),
        &["ask", FIXTURE, "What is naleving?", "--log-level", "info"],
        &env,
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = log_of(state.path()).unwrap();
    assert!(log.contains("model call done"), "{log}");
    assert!(
        !log.contains("secret answer"),
        "reply text above debug: {log}"
    );
    assert!(
        !log.contains("naleving"),
        "question text above debug: {log}"
    );
    let state = tempfile::tempdir().unwrap();
    let server = FakeServer::start([FakeReply::anthropic_stream(&["The secret answer"])]);
    let url = server.url();
    let env = [
        ("MEMBANK_PROVIDER", "anthropic"),
        ("MEMBANK_MODEL", "test-model"),
        ("MEMBANK_BASE_URL", url.as_str()),
        ("ANTHROPIC_API_KEY", KEY),
    ];
    membank(
        state.path(),
        &["ask", FIXTURE, "What is naleving?", "--log-level", "trace"],
        &env,
    );
    let log = log_of(state.path()).unwrap();
    assert!(!log.contains(KEY), "the key is never logged: {log}");
}

/// A bank whose folder name holds a newline and an escape cannot forge a
/// line of the log or put a raw escape into it.
#[test]
fn a_path_in_the_log_cannot_forge_a_line() {
    let state = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let bank = dir.path().join("b\nWARN forged line \u{1b}[31m");
    std::fs::create_dir_all(bank.join("06_TEMPLATES")).unwrap();
    let out = membank(state.path(), &["values", bank.to_str().unwrap()], &[]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let log = log_of(state.path()).expect("a log");
    assert!(!log.contains('\u{1b}'), "{log:?}");
    assert!(
        !log.lines().any(|l| l.starts_with("WARN forged")),
        "{log:?}"
    );
    assert!(
        log.contains("forged line"),
        "the path is still there: {log:?}"
    );
}
