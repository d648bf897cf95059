//! `membank mv` end to end: the plan shown without `--yes` changes
//! nothing, `--yes` moves the note and rewrites the links to it, and a
//! name that is taken is refused with the reason.

mod support;

use std::fs;
use std::path::Path;
use std::process::Output;

fn membank(args: &[&str]) -> Output {
    support::membank()
        .args(args)
        .args(["--today", support::TODAY])
        .output()
        .expect("membank runs")
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

fn bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDEXES",
        "06_TEMPLATES",
    ] {
        fs::create_dir_all(dir.path().join(folder)).unwrap();
    }
    write(
        dir.path(),
        "03_DOMAINS/Legal.md",
        "---\ndomain: Legal\nlast_updated: 2026-01-02\n---\n# Legal\n",
    );
    write(
        dir.path(),
        "01_CLIENTS/Acme.md",
        "---\nclient: Acme\ndomains: [Legal]\nlast_updated: 2026-01-02\n---\nSee [[Legal|the law]] and [l](../03_DOMAINS/Legal.md).\n",
    );
    dir
}

#[test]
fn the_plan_is_shown_and_nothing_is_written_without_yes() {
    let dir = bank();
    let root = dir.path().to_str().unwrap();
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Tax Law"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("moved"), "{stdout}");
    assert!(stdout.contains("+See [[Tax Law|the law]]"), "{stdout}");
    assert!(stdout.contains("--yes"), "{stdout}");
    assert!(dir.path().join("03_DOMAINS/Legal.md").exists());
    assert!(read(dir.path(), "01_CLIENTS/Acme.md").contains("[[Legal|the law]]"));
}

#[test]
fn yes_moves_the_note_and_rewrites_every_link_and_value() {
    let dir = bank();
    let root = dir.path().to_str().unwrap();
    let out = membank(&[
        "mv",
        root,
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Tax Law",
        "--yes",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["written"], true);
    assert_eq!(v["moves"][0]["to"], "03_DOMAINS/Tax Law.md");
    assert_eq!(v["links_rewritten"], 2);
    assert!(!dir.path().join("03_DOMAINS/Legal.md").exists());
    assert_eq!(
        read(dir.path(), "03_DOMAINS/Tax Law.md"),
        "---\ndomain: Tax Law\nlast_updated: 2026-01-02\n---\n# Legal\n"
    );
    assert_eq!(
        read(dir.path(), "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\ndomains: [Tax Law]\nlast_updated: 2026-01-02\n---\nSee [[Tax Law|the law]] and [l](../03_DOMAINS/Tax%20Law.md).\n"
    );
    // No link is left dead.
    let check = membank(&["check", root, "--json"]);
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(!report.contains("dead-link"), "{report}");
}

#[test]
fn a_taken_name_is_refused_and_nothing_changes() {
    let dir = bank();
    write(dir.path(), "04_STYLE/Law.md", "# Law\n");
    let root = dir.path().to_str().unwrap();
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law", "--yes"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("04_STYLE/Law.md") && stderr.contains("ambiguous"),
        "{stderr}"
    );
    assert!(dir.path().join("03_DOMAINS/Legal.md").exists());
    assert!(!dir.path().join("03_DOMAINS/Law.md").exists());
}

/// A footnote is no link and a reference-style link is one, whatever else
/// the note holds: a footnote naming the note does not stop its rename,
/// and a reference-style link, which the rename cannot rewrite, refuses it
/// with nothing moved, rather than the note moving and the link going dead.
#[test]
fn footnotes_are_no_links_and_reference_links_are_never_left_dead() {
    let dir = bank();
    let root = dir.path().to_str().unwrap();
    let footnote = "---\ndomain: Notes\nlast_updated: 2026-01-02\n---\n\
                    See [site](https://example.com).\n\nVault ID[^1] is here.\n\n[^1]: Legal\n";
    write(dir.path(), "03_DOMAINS/Notes.md", footnote);
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law", "--yes"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(dir.path().join("03_DOMAINS/Law.md").exists());
    assert_eq!(read(dir.path(), "03_DOMAINS/Notes.md"), footnote);

    // No other Markdown link in the note: the definition alone is enough.
    let reference = "---\ndomain: Terms\nlast_updated: 2026-01-02\n---\n\
                     See the [law][l] for terms.\n\n[l]: Law.md\n";
    write(dir.path(), "03_DOMAINS/Terms.md", reference);
    let links = membank(&["links", root, "Law"]);
    let stdout = String::from_utf8_lossy(&links.stdout);
    assert!(stdout.contains("03_DOMAINS/Terms.md"), "{stdout}");
    let out = membank(&[
        "mv",
        root,
        "03_DOMAINS/Law.md",
        "03_DOMAINS/Lexicon",
        "--yes",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("03_DOMAINS/Terms.md:5: the reference-style link [law][l] (to Law.md)"),
        "{stderr}"
    );
    assert!(dir.path().join("03_DOMAINS/Law.md").exists());
    assert!(!dir.path().join("03_DOMAINS/Lexicon.md").exists());
    assert_eq!(read(dir.path(), "03_DOMAINS/Terms.md"), reference);
}

/// A formula is not Markdown: `mv` leaves what looks like a link in it as
/// it is, and rewrites a link beside a price.
#[test]
fn links_in_maths_are_left_to_the_formula() {
    let dir = bank();
    let root = dir.path().to_str().unwrap();
    let head = "---\ndomain: Proof\nlast_updated: 2026-01-02\n---\n";
    let maths = "We compute $[(TS)R](Legal) = (TS)R(u)$ and $$[[Legal]]$$.\n";
    write(
        dir.path(),
        "03_DOMAINS/Proof.md",
        &format!("{head}{maths}It costs $5 and [[Legal]] $10.\n"),
    );
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law", "--yes"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        read(dir.path(), "03_DOMAINS/Proof.md"),
        format!("{head}{maths}It costs $5 and [[Law]] $10.\n")
    );
}

/// A line of megabytes (an impressions file's) is cut in the preview, with
/// how much was left out; the rename itself rewrites it whole.
#[test]
fn a_very_long_line_is_cut_in_the_preview_and_rewritten_whole() {
    let dir = bank();
    let long = format!("See [[Legal]] {}\n", "x".repeat(50_000));
    write(
        dir.path(),
        "04_STYLE/Long.md",
        &format!("---\nlast_updated: 2026-01-02\n---\n{long}"),
    );
    let root = dir.path().to_str().unwrap();
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law"]);
    let plan = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "only a plan");
    assert!(
        plan.contains("more characters)"),
        "{}",
        &plan[..plan.len().min(3000)]
    );
    assert!(
        plan.lines().all(|l| l.chars().count() < 600),
        "a line is shown whole"
    );
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law", "--yes"]);
    assert!(out.status.success());
    let after = read(dir.path(), "04_STYLE/Long.md");
    assert!(after.contains(&format!("See [[Law]] {}", "x".repeat(50_000))));
}

/// Two files the bank has already that differ only in case are `check`'s
/// to report; they must not block renaming a third, nor moving onto one.
#[test]
fn names_already_alike_block_only_a_move_onto_them() {
    let dir = bank();
    write(dir.path(), "04_STYLE/Case.md", "# Case\n");
    write(dir.path(), "04_STYLE/case.md", "# case\n");
    let root = dir.path().to_str().unwrap();
    let out = membank(&["mv", root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law", "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.path().join("03_DOMAINS/Law.md").exists());

    let out = membank(&["mv", root, "03_DOMAINS/Law.md", "04_STYLE/CASE", "--yes"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    // No file is at 04_STYLE/CASE.md (on a file system telling case
    // apart): the clash is in the links, and that is the reason given.
    if !dir.path().join("04_STYLE/CASE.md").exists() {
        assert!(
            stderr.contains("04_STYLE/CASE.md: 04_STYLE/Case.md has that name already")
                && stderr.contains("[[CASE]] would become ambiguous"),
            "{stderr}"
        );
    } else {
        assert!(stderr.contains("04_STYLE/CASE.md: is taken"), "{stderr}");
    }
    assert!(dir.path().join("03_DOMAINS/Law.md").exists());
}

#[test]
fn a_dejavu_record_renamed_takes_its_route_and_links_along() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        &project,
    );
    let r = project.to_str().unwrap();
    let out = membank(&[
        "mv",
        r,
        "memory/decisions/settings-sync.md",
        "memory/decisions/server-sync",
        "--yes",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(project.join("memory/decisions/server-sync.md").exists());
    let impressions = read(&project, "memory/impressions.jsonl");
    assert!(impressions.contains("\"record_path\":\"memory/decisions/server-sync.md\""));
    assert!(!impressions.contains("settings-sync.md"));
    let index = read(&project, "memory/index.md");
    assert!(index.contains("(./decisions/server-sync.md)") && !index.contains("settings-sync.md"));
    let old = read(&project, "memory/decisions/local-preferences.md");
    assert!(
        old.contains("superseded_by: memory/decisions/server-sync.md"),
        "{old}"
    );
    // The project's own checks find nothing pointing nowhere.
    let check = membank(&["check", r, "--json"]);
    let report = String::from_utf8_lossy(&check.stdout);
    assert!(!report.contains("settings-sync.md"), "{report}");
}

/// A record that is a symbolic link (here into private memory) cannot be
/// moved, since no write follows a link: the preview says so, naming the
/// link, instead of a plan whose `--yes` could only report a change.
#[cfg(unix)]
#[test]
fn a_dejavu_record_that_is_a_symbolic_link_is_refused_in_the_preview() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("p");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        &project,
    );
    write(&project, "memory/private/plan.md", "# Plan\n");
    std::os::unix::fs::symlink(
        "../private/plan.md",
        project.join("memory/decisions/alias.md"),
    )
    .unwrap();
    let before = support::tree(&project);
    let r = project.to_str().unwrap();
    for yes in [false, true] {
        let mut args = vec![
            "mv",
            r,
            "memory/decisions/alias.md",
            "memory/decisions/a2.md",
        ];
        if yes {
            args.push("--yes");
        }
        let out = membank(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--yes {yes}: {stderr}");
        assert!(
            stderr.contains("memory/decisions/alias.md is a symbolic link"),
            "--yes {yes}: {stderr}"
        );
        assert!(!stderr.contains("Run again"), "{stderr}");
        assert!(
            out.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
    assert_eq!(support::tree(&project), before);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for e in fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            fs::copy(e.path(), target).unwrap();
        }
    }
}
