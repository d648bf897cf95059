//! Layout detection and `--format` as the command line shows them: every
//! command opens its path the same way, and a path that is no memory gets a
//! message naming what was looked for.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/flawed-bank");

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .output()
        .expect("membank runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

#[test]
fn a_folder_that_is_no_memory_names_every_layout_looked_for() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "notes/a.md", "# A\n");
    for command in ["check", "context", "inbox", "blocks"] {
        let out = membank(&[command, d.path().to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let err = stderr(&out);
        assert!(err.contains("is not a memory bank, a Deja Vu project or an everos memory root"));
        assert!(err.contains("00_INBOX … 06_TEMPLATES"), "{err}");
        assert!(
            err.contains("memory/impressions.jsonl or memory/summary.md"),
            "{err}"
        );
        assert!(err.contains("ome.toml"), "{err}");
    }
}

#[test]
fn format_forces_a_layout_and_rejects_unknown_names() {
    let out = membank(&["check", FIXTURE, "--format", "bank", "--json"]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let out = membank(&["check", FIXTURE, "--format", "everos"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not an everos memory root: looked for"));
    let out = membank(&["check", FIXTURE, "--format", "obsidian"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("bank") && err.contains("dejavu") && err.contains("everos"),
        "{err}"
    );
}

#[test]
fn bank_only_commands_name_the_layout_they_were_given() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "memory/summary.md", "# Summary\n");
    for args in [
        vec!["context"],
        vec!["inbox"],
        vec!["compile", "--reply", "-"],
    ] {
        let mut argv = vec![args[0], d.path().to_str().unwrap()];
        argv.extend(&args[1..]);
        let out = membank(&argv);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("is a Deja Vu project; this works on a memory bank only"),
            "{err}"
        );
    }
}

#[test]
fn two_layouts_in_one_folder_ask_for_format() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "01_CLIENTS/Acme.md",
        "---\nclient: Acme\n---\n# Acme\n",
    );
    write(d.path(), "memory/summary.md", "# Summary\n");
    let out = membank(&["check", d.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("choose one with --format bank|dejavu"));
    let out = membank(&["inbox", d.path().to_str().unwrap(), "--format", "bank"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_folder_inside_a_memory_is_answered_with_the_memory_to_give() {
    let inside = format!("{FIXTURE}/01_CLIENTS");
    let out = membank(&["check", &inside]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("is a folder inside the memory bank at") && err.contains("flawed-bank"),
        "{err}"
    );
}

/// A project that merely has a `users` folder two levels down (a Rails
/// app's controllers) is no everos root: `check` refuses it rather than
/// passing a CI job pointed at the wrong folder; `--format everos` still
/// reads it as one.
#[test]
fn a_folder_with_a_users_folder_is_not_taken_for_an_everos_root() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "app/controllers/users/s.rb", "class S; end\n");
    let root = d.path().to_str().unwrap();
    let out = membank(&["check", root]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is not a memory bank, a Deja Vu project or an everos memory root"),
        "{}",
        stderr(&out)
    );
    let out = membank(&["check", root, "--format", "everos"]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    // An owner folder of a real root is answered with the root.
    write(
        d.path(),
        "mem/default_app/default_project/users/u1/episodes/episode-2026-06-01.md",
        "---\nid: e\ntype: episode_daily\nuser_id: u1\ndate: '2026-06-01'\n---\n",
    );
    let owner = d.path().join("mem/default_app/default_project/users/u1");
    let out = membank(&["entries", owner.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!(
            "is a folder inside the everos memory root at {}; pass that folder",
            d.path().join("mem").display()
        )),
        "{}",
        stderr(&out)
    );
}
