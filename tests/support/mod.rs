//! What every test that runs the binary shares: the machine's own settings
//! kept out. Each run gets a state folder, config folder and home of the
//! build's, no config file, no model settings or keys from the environment,
//! and a clock pinned to one day, so a run gives the same result on any
//! machine and on any date.

// Each test crate uses only some of these.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

/// The day every run in the tests is as of (`MEMBANK_TODAY`). The fixtures'
/// dates were written to be neither stale nor in the future on it.
pub const TODAY: &str = "2026-11-26";

/// Variables of the user's that change what membank does; never inherited.
const REMOVED: &[&str] = &[
    "MEMBANK_LOG",
    "MEMBANK_PROVIDER",
    "MEMBANK_MODEL",
    "MEMBANK_BASE_URL",
    "MEMBANK_FAILPOINT",
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "EVEROS_ROOT",
    "EVEROS_MEMORY__ROOT",
    "EVEROS_CONFIG_FILE",
    "NO_COLOR",
    "CLICOLOR_FORCE",
    "VISUAL",
    "EDITOR",
];

/// The build's temporary folder, shared by every test of this build.
fn scratch() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// The state folder the tests' runs use, inside the build's temporary folder.
pub fn state_dir() -> PathBuf {
    scratch().join("membank-state")
}

/// No config file: `/dev/null` reads as empty, so the defaults apply (a
/// name that does not exist would be warned about).
pub fn no_config() -> PathBuf {
    PathBuf::from("/dev/null")
}

/// Every variable a test run sets, with its value.
pub fn isolated_vars() -> Vec<(&'static str, OsString)> {
    let home = scratch().join("membank-home");
    // A pseudo-terminal's child starts in its HOME, so it must exist.
    let _ = std::fs::create_dir_all(&home);
    vec![
        ("MEMBANK_STATE_DIR", state_dir().into()),
        ("MEMBANK_CONFIG", no_config().into()),
        ("MEMBANK_TODAY", TODAY.into()),
        ("XDG_STATE_HOME", home.join("state").into()),
        ("XDG_CONFIG_HOME", home.join("config").into()),
        ("HOME", home.into()),
    ]
}

/// Every variable a test run must not inherit.
pub fn removed_vars() -> &'static [&'static str] {
    REMOVED
}

/// Keep the machine out of `cmd` (any command builder: std, tokio, pty),
/// given how it sets and removes a variable. A test that wants one of these
/// set otherwise sets it after this.
pub fn isolate_with(mut set: impl FnMut(&str, OsString), mut remove: impl FnMut(&str)) {
    for var in REMOVED {
        remove(var);
    }
    for (var, value) in isolated_vars() {
        set(var, value);
    }
}

/// Keep the machine out of a `std::process::Command`.
pub fn isolate(cmd: &mut Command) -> &mut Command {
    let cell = std::cell::RefCell::new(&mut *cmd);
    isolate_with(
        |k, v| {
            cell.borrow_mut().env(k, v);
        },
        |k| {
            cell.borrow_mut().env_remove(k);
        },
    );
    cmd
}

/// `membank`, with the machine's settings, state and date kept out.
pub fn membank() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_membank"));
    isolate(&mut cmd);
    cmd
}

/// Says on the real stderr that a test could not run. The test harness keeps
/// `eprintln!` of a passing test to itself, so a skip written that way would
/// go unseen; a direct write shows in every `cargo test` run.
#[allow(dead_code)]
pub fn skip_loudly(why: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "\n!!!!! SKIPPED: {why} !!!!!\n");
}

/// True when the tests run as root, which reads and lists whatever the
/// permission bits say: a test of an unreadable file or folder then proves
/// nothing, so it calls this, skips, and says so.
#[cfg(unix)]
#[allow(dead_code)]
pub fn skipped_as_root(test: &str) -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        skip_loudly(&format!(
            "{test}: running as root, which permission bits do not stop"
        ));
    }
    root
}

/// A run's standard output as JSON, with its exit code; a run that printed
/// something else fails the test showing both outputs.
pub fn json_of(out: &std::process::Output) -> (serde_json::Value, Option<i32>) {
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code())
}

/// Every file under `root` with its bytes, and every folder as `path/`
/// with none: what a test compares before and after a write.
pub fn tree(root: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                out.insert(format!("{rel}/"), Vec::new());
                stack.push(path);
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}
