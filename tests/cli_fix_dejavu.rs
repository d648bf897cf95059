//! `membank fix` on a Deja Vu project: the demo project (the reference
//! sample's layout) with defects planted, fixed with `--yes`, checked
//! clean of them, and undone to the byte; an everos root is refused.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Output;

fn run(state: &Path, args: &[&str]) -> Output {
    support::membank()
        .env("MEMBANK_STATE_DIR", state)
        .args(args)
        .output()
        .expect("membank runs")
}

fn json(state: &Path, args: &[&str]) -> (serde_json::Value, Option<i32>) {
    support::json_of(&run(state, args))
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Every file under `root` with its bytes.
fn snapshot(root: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let text = fs::read_to_string(root.join(rel)).unwrap();
    assert!(text.contains(from), "{rel} has no {from:?}");
    fs::write(root.join(rel), text.replacen(from, to, 1)).unwrap();
}

/// The demo project with one defect per fixed code: a decision the index
/// does not link, a supersede written on the older side only, a record
/// without its id and updated date and with its status in capitals, and a
/// short date.
fn flawed_project() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        d.path(),
    );
    let root = d.path();
    fs::write(
        root.join("memory/decisions/offline-cache.md"),
        "---\nid: decision-offline-cache\ntitle: Cache notes offline\nstatus: active\n\
         scope: project:quillnote\nupdated: 2026-6-1\n---\n\n# Cache notes offline\n",
    )
    .unwrap();
    edit(
        root,
        "memory/decisions/settings-sync.md",
        "supersedes: memory/decisions/local-preferences.md\n",
        "",
    );
    edit(
        root,
        "memory/open-loops/settings-migration.md",
        "id: open-loop-settings-migration\n",
        "",
    );
    edit(
        root,
        "memory/open-loops/settings-migration.md",
        "updated: 2026-05-16\n",
        "",
    );
    edit(
        root,
        "memory/open-loops/settings-migration.md",
        "status: active\n",
        "status: Active\n",
    );
    d
}

const FIXED: [&str; 5] = [
    "index-missing-link",
    "supersedes-missing",
    "record-missing-field",
    "bad-status",
    "bad-date",
];

fn codes(state: &Path, root: &Path) -> Vec<String> {
    let (report, _) = json(state, &["check", s(root), "--json"]);
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn fixes_are_shown_then_written_then_undone_to_the_byte() {
    let project = flawed_project();
    let state = tempfile::tempdir().unwrap();
    let root = project.path();
    let before = snapshot(root);
    let found = codes(state.path(), root);
    for code in FIXED {
        assert!(found.iter().any(|c| c == code), "{code} not in {found:?}");
    }

    let (shown, status) = json(state.path(), &["fix", s(root), "--json"]);
    assert_eq!(status, Some(1));
    assert_eq!(shown["written"], false);
    assert_eq!(snapshot(root), before, "nothing is written without --yes");
    let paths: Vec<&str> = shown["fixes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "memory/decisions/offline-cache.md",
            "memory/decisions/settings-sync.md",
            "memory/index.md",
            "memory/open-loops/settings-migration.md",
        ]
    );

    let (done, _) = json(state.path(), &["fix", s(root), "--yes", "--json"]);
    assert_eq!(done["written"], true);
    let left = codes(state.path(), root);
    for code in FIXED {
        assert!(!left.iter().any(|c| c == code), "{code} left: {left:?}");
    }
    // The supersede's missing side is written where the demo has it.
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu");
    let sync = "memory/decisions/settings-sync.md";
    assert_eq!(
        fs::read(root.join(sync)).unwrap(),
        fs::read(demo.join(sync)).unwrap()
    );
    let migration =
        fs::read_to_string(root.join("memory/open-loops/settings-migration.md")).unwrap();
    assert!(
        migration.contains("id: open-loop-settings-migration\n"),
        "{migration}"
    );
    assert!(migration.contains("updated: 2026-05-16\n"), "{migration}");
    let index = fs::read_to_string(root.join("memory/index.md")).unwrap();
    assert!(
        index.contains("- [Cache notes offline](./decisions/offline-cache.md)\n"),
        "{index}"
    );

    let undone = run(state.path(), &["undo", s(root)]);
    assert_eq!(
        undone.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&undone.stderr)
    );
    assert_eq!(snapshot(root), before, "undo leaves the project as it was");
}

#[test]
fn what_no_file_states_is_listed_as_needing_a_value() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = project.path();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        root,
    );
    fs::write(
        root.join("memory/decisions/offline-cache.md"),
        "---\nid: decision-offline-cache\ntitle: Cache notes offline\nstatus: active\n\
         scope: project:quillnote\n---\n\n# Cache notes offline\n",
    )
    .unwrap();
    let before = snapshot(root);
    let (out, status) = json(
        state.path(),
        &[
            "fix",
            s(root),
            "--code",
            "record-missing-field",
            "--yes",
            "--json",
        ],
    );
    assert_eq!(status, Some(1));
    assert!(out["fixes"].as_array().unwrap().is_empty(), "{out}");
    let left = &out["remaining"][0];
    assert_eq!(left["path"], "memory/decisions/offline-cache.md");
    assert!(
        left["reason"]
            .as_str()
            .unwrap()
            .contains("updated needs a value"),
        "{left}"
    );
    assert_eq!(snapshot(root), before);
}

#[test]
fn an_everos_root_is_only_read() {
    let state = tempfile::tempdir().unwrap();
    let root = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/everos-root"),
        root.path(),
    );
    let before = snapshot(root.path());
    let out = run(state.path(), &["fix", s(root.path()), "--yes"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only reads"));
    assert_eq!(snapshot(root.path()), before);
}

#[test]
fn the_older_side_of_a_supersede_is_written_and_undone() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let root = project.path();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu");
    copy_dir(&demo, root);
    let older = "memory/decisions/local-preferences.md";
    edit(root, older, "status: superseded\n", "status: active\n");
    edit(
        root,
        older,
        "superseded_by: memory/decisions/settings-sync.md\n",
        "",
    );
    let before = snapshot(root);
    assert!(
        codes(state.path(), root)
            .iter()
            .any(|c| c == "supersession-one-sided")
    );

    let (done, _) = json(
        state.path(),
        &[
            "fix",
            s(root),
            "--code",
            "supersession-one-sided",
            "--yes",
            "--json",
        ],
    );
    assert_eq!(done["written"], true, "{done}");
    assert_eq!(
        fs::read(root.join(older)).unwrap(),
        fs::read(demo.join(older)).unwrap()
    );
    assert!(
        !codes(state.path(), root)
            .iter()
            .any(|c| c.contains("supersed"))
    );

    let undone = run(state.path(), &["undo", s(root)]);
    assert_eq!(undone.status.code(), Some(0));
    assert_eq!(snapshot(root), before);
}
