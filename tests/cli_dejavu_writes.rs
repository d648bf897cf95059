//! Deja Vu writes from several membank runs at once, and through links:
//! every run's change is kept, and nothing is written outside the project.

mod support;

use std::fs;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/demo-dejavu");
const FEEDBACK: &str = "memory/recall-feedback.jsonl";
const IMPRESSIONS: &str = "memory/impressions.jsonl";

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn spawn(args: &[&str]) -> Child {
    support::membank()
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("membank starts")
}

/// Start every run before waiting for any, so they overlap.
fn run_at_once(runs: Vec<Vec<String>>) -> Vec<Output> {
    let children: Vec<Child> = runs
        .iter()
        .map(|args| spawn(&args.iter().map(String::as_str).collect::<Vec<_>>()))
        .collect();
    children
        .into_iter()
        .map(|c| c.wait_with_output().expect("membank ends"))
        .collect()
}

fn assert_success(out: &Output) {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn feedback_added_by_twenty_runs_at_once_keeps_every_line() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let root_s = root.to_str().unwrap().to_owned();
    let before = fs::read_to_string(root.join(FEEDBACK)).unwrap();
    let mut expected: Vec<String> = before.lines().map(str::to_owned).collect();
    for round in 0..4 {
        let runs = (0..20)
            .map(|i| {
                vec![
                    "feedback".into(),
                    root_s.clone(),
                    "--add".into(),
                    "helpful".into(),
                    "--cue".into(),
                    format!("cue r{round} n{i}"),
                ]
            })
            .collect();
        for out in run_at_once(runs) {
            assert_success(&out);
        }
        let text = fs::read_to_string(root.join(FEEDBACK)).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), expected.len() + 20, "round {round}:\n{text}");
        // What was there stays first, byte for byte.
        assert_eq!(&lines[..expected.len()], &expected[..], "round {round}");
        for i in 0..20 {
            let query = format!("\"query\":\"cue r{round} n{i}\"");
            assert!(
                text.contains(&query),
                "round {round}: {query} lost:\n{text}"
            );
        }
        expected = lines.into_iter().map(str::to_owned).collect();
    }
}

/// A project with `pairs` old decisions, each routed by one impression
/// and listed in the index, and a newer decision for each.
fn supersede_project(root: &Path, pairs: usize) {
    let decisions = root.join("memory/decisions");
    fs::create_dir_all(&decisions).unwrap();
    fs::write(
        root.join("memory/summary.md"),
        "---\nid: summary\ntitle: Summary\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# Summary\n",
    )
    .unwrap();
    let mut index = String::from("# Memory Index\n\n## Active decisions\n\n");
    let mut impressions = String::new();
    for k in 0..pairs {
        for (name, title) in [("old", "Old"), ("new", "New")] {
            fs::write(
                decisions.join(format!("{name}-{k}.md")),
                format!(
                    "---\nid: {name}-{k}\ntitle: {title} {k}\nstatus: active\nscope: project:p\nupdated: 2026-01-01\n---\n\n# {title} {k}\n"
                ),
            )
            .unwrap();
        }
        index.push_str(&format!("- [Old {k}](./decisions/old-{k}.md)\n"));
        impressions.push_str(&format!(
            "{{\"schema_version\":1,\"id\":\"imp-old-{k}\",\"scope\":\"project:p\",\"title\":\"Old {k}\",\"keywords\":[\"alpha{k}\",\"beta{k}\",\"gamma{k}\"],\"record_path\":\"memory/decisions/old-{k}.md\",\"updated\":\"2026-01-01\",\"weight\":0.5,\"status\":\"active\"}}\n"
        ));
    }
    fs::write(root.join("memory/index.md"), index).unwrap();
    fs::write(root.join(IMPRESSIONS), impressions).unwrap();
}

#[test]
fn supersedes_of_different_pairs_at_once_keep_every_edit() {
    const ROUNDS: usize = 8;
    const AT_ONCE: usize = 2;
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    supersede_project(&root, ROUNDS * AT_ONCE);
    let root_s = root.to_str().unwrap().to_owned();
    for round in 0..ROUNDS {
        let pairs: Vec<usize> = (0..AT_ONCE).map(|j| round * AT_ONCE + j).collect();
        let runs = pairs
            .iter()
            .map(|k| {
                vec![
                    "supersede".into(),
                    root_s.clone(),
                    format!("memory/decisions/old-{k}.md"),
                    format!("memory/decisions/new-{k}.md"),
                    "--yes".into(),
                ]
            })
            .collect();
        for out in run_at_once(runs) {
            assert_success(&out);
        }
        let impressions = fs::read_to_string(root.join(IMPRESSIONS)).unwrap();
        let index = fs::read_to_string(root.join("memory/index.md")).unwrap();
        for k in 0..(round + 1) * AT_ONCE {
            let line = impressions
                .lines()
                .find(|l| l.contains(&format!("\"imp-old-{k}\"")))
                .unwrap();
            assert!(
                line.contains("\"status\":\"superseded\"")
                    && line.contains("\"superseded_by\":\"new-"),
                "round {round}: the route of old-{k} was not marked superseded:\n{impressions}"
            );
            let old =
                fs::read_to_string(root.join(format!("memory/decisions/old-{k}.md"))).unwrap();
            assert!(old.contains("status: superseded"), "round {round}: old-{k}");
            let new =
                fs::read_to_string(root.join(format!("memory/decisions/new-{k}.md"))).unwrap();
            assert!(
                new.contains(&format!("supersedes: memory/decisions/old-{k}.md")),
                "{new}"
            );
            assert!(
                index.contains(&format!("- [Old {k}](./decisions/old-{k}.md) — superseded by [New {k}](./decisions/new-{k}.md)")),
                "round {round}: old-{k} missing from the index:\n{index}"
            );
        }
    }
}

#[cfg(unix)]
#[test]
fn feedback_is_not_written_through_a_linked_memory_folder() {
    let tmp = tempfile::tempdir().unwrap();
    let elsewhere = tmp.path().join("elsewhere/mem");
    copy_tree(&Path::new(DEMO).join("memory"), &elsewhere);
    fs::remove_file(elsewhere.join("recall-feedback.jsonl")).unwrap();
    let project = tmp.path().join("proj");
    fs::create_dir(&project).unwrap();
    std::os::unix::fs::symlink("../elsewhere/mem", project.join("memory")).unwrap();
    let out = support::membank()
        .args(["feedback", project.to_str().unwrap()])
        .args(["--add", "helpful", "--cue", "settings sync"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("recall-feedback.jsonl: memory is a symbolic link"),
        "{stderr}"
    );
    assert!(!elsewhere.join("recall-feedback.jsonl").exists());
    assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 7);
}

#[test]
fn a_write_waits_for_the_run_holding_the_project_then_goes_ahead() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    copy_tree(Path::new(DEMO), &root);
    let held = membank_core::lock::BankLock::try_acquire(&root).unwrap();
    let mut child = spawn(&[
        "feedback",
        root.to_str().unwrap(),
        "--add",
        "missed",
        "--cue",
        "waited cue",
    ]);
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let deadline = Instant::now() + Duration::from_secs(25);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let said = rx.recv_timeout(left).expect("the run says it waits");
        if said.contains("waiting for it to finish") {
            break;
        }
    }
    // Nothing is written while the lock is held.
    let text = fs::read_to_string(root.join(FEEDBACK)).unwrap();
    assert!(!text.contains("waited cue"));
    drop(held);
    let out = child.wait_with_output().unwrap();
    assert_success(&out);
    let text = fs::read_to_string(root.join(FEEDBACK)).unwrap();
    assert!(text.contains("\"query\":\"waited cue\""), "{text}");
}
