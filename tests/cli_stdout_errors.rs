//! A command whose standard output cannot be written (a full disk) says so
//! on stderr and exits 2, never panicking; a reader that goes away (a
//! closed pipe) ends it quietly.

mod support;

const BANK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-bank");
const DEJAVU: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-dejavu");
const EVEROS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-everos");
const FLAWED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flawed-bank");

#[test]
fn every_command_reports_a_full_standard_output_and_exits_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        support::skip_loudly("no /dev/full here: standard output errors are not tested");
        return;
    };
    let runs: &[&[&str]] = &[
        &["values", BANK],
        &["values", BANK, "--json"],
        &["check", BANK],
        &["check", BANK, "--json"],
        &["context", BANK],
        &["inbox", BANK],
        &["undo", BANK, "--list"],
        &["undo", BANK, "--list", "--json"],
        &["links", BANK, "Medical Devices"],
        &["read", BANK, "Medical Devices"],
        &["blocks", BANK, "--reply", "/dev/null"],
        &["blocks", BANK, "--reply", "/dev/null", "--json"],
        &["search", BANK, "booking"],
        &["fix", FLAWED],
        &["recall", DEJAVU, "settings"],
        &["feedback", DEJAVU],
        &["everos", "--print"],
    ];
    for args in runs {
        let out = support::membank()
            .args(*args)
            .env("EVEROS_ROOT", EVEROS)
            .stdout(full.try_clone().unwrap())
            .output()
            .expect("membank runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    use std::io::Read as _;
    use std::process::Stdio;
    let mut child = support::membank()
        .args(["check", BANK])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    stdout.read_exact(&mut first).unwrap();
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(!err.contains("cannot write"), "{err}");
}
