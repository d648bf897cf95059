//! `fix --yes`, `mv` and `undo` on a bank with planted defects, judged by a
//! link resolver written in Python from the format's rules
//! (`tools/links-crosscheck/crosscheck.py`), which shares no code with
//! membank's: links open what they opened, scores stay, undo restores bytes.

mod support;

use std::path::Path;
use std::process::Command;

/// Runs the cross-check with `mode` (none, or `--renames`) on the demo bank.
fn cross_check(mode: Option<&str>) {
    let python_runs = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !python_runs {
        support::skip_loudly(
            "python3 is not installed, so fix, mv and undo were NOT checked against the \
             independent link resolver",
        );
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("python3");
    support::isolate(&mut cmd);
    // Its own journal: the undos must take back this run's writes only.
    cmd.env("MEMBANK_STATE_DIR", work.path().join("state"));
    cmd.arg(root.join("tools/links-crosscheck/crosscheck.py"));
    cmd.args(mode);
    let out = cmd
        .arg(env!("CARGO_BIN_EXE_membank"))
        .arg(root.join("demo-bank"))
        .arg(work.path())
        .output()
        .expect("the cross-check runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn fix_rename_and_undo_agree_with_an_independent_resolver() {
    cross_check(None);
}

#[test]
fn renaming_the_most_linked_notes_keeps_every_link_by_an_independent_resolver() {
    cross_check(Some("--renames"));
}
