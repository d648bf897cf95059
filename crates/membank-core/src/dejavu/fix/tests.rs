use std::fs;
use std::path::{Path, PathBuf};

use super::propose;
use crate::dejavu::checks;
use crate::dejavu::project::Project;
use crate::fix::{Action, FixProposal};

const SYNC: &str = "memory/decisions/settings-sync.md";
const LOCAL: &str = "memory/decisions/local-preferences.md";

/// The demo project (the reference sample's layout) copied into a
/// temporary folder.
fn demo() -> tempfile::TempDir {
    let from = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo-dejavu");
    let to = tempfile::tempdir().unwrap();
    copy_dir(&from, to.path());
    to
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

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// `rel` with `from` replaced by `to` (which must change it).
fn edit(root: &Path, rel: &str, from: &str, to: &str) {
    let text = read(root, rel);
    assert!(text.contains(from), "{rel} has no {from:?}");
    write(root, rel, &text.replacen(from, to, 1));
}

/// The fixes for every finding of the project, and the codes found.
fn proposal(root: &Path) -> (FixProposal, Vec<&'static str>) {
    let project = Project::load(root).unwrap();
    let report = checks::check(&project);
    let codes = report.findings.iter().map(|f| f.code()).collect();
    (
        propose(
            &project,
            &report.findings,
            crate::surface::Surface::CommandLine,
        ),
        codes,
    )
}

/// The proposal's changes written as they would be.
fn apply(root: &Path, p: &FixProposal) {
    for f in &p.fixes {
        let Action::Change { after, .. } = &f.action else {
            panic!("{}: only changes are proposed", f.path);
        };
        fs::write(root.join(&f.path), after).unwrap();
    }
}

fn codes_after(root: &Path) -> Vec<&'static str> {
    proposal(root).1
}

#[test]
fn the_demo_has_nothing_to_fix() {
    let d = demo();
    let (p, _) = proposal(d.path());
    assert!(p.fixes.is_empty(), "{:?}", p.fixes);
}

#[test]
fn the_index_gets_the_link_line_of_an_active_decision_and_open_loop() {
    let d = demo();
    write(
        d.path(),
        "memory/decisions/offline-cache.md",
        "---\nid: decision-offline-cache\ntitle: Cache notes [offline]\nstatus: active\nscope: project:quillnote\nupdated: 2026-06-01\n---\n\n# Cache notes offline\n",
    );
    write(
        d.path(),
        "memory/open-loops/sync-conflicts.md",
        "---\nid: open-loop-sync-conflicts\ntitle: Resolve sync conflicts\nstatus: active\nscope: project:quillnote\nupdated: 2026-06-01\n---\n\n# Resolve sync conflicts\n",
    );
    let (p, codes) = proposal(d.path());
    assert!(codes.contains(&"index-missing-link"));
    let fix = p
        .fixes
        .iter()
        .find(|f| f.path == "memory/index.md")
        .unwrap();
    assert_eq!(fix.codes, ["index-missing-link"]);
    apply(d.path(), &p);
    let index = read(d.path(), "memory/index.md");
    assert!(
        index.contains(
            "- [Settings sync stays server-backed](./decisions/settings-sync.md)\n\
             - [Cache notes \\[offline\\]](./decisions/offline-cache.md)\n\n## Active open loops\n\n\
             - [Migrate old setting names](./open-loops/settings-migration.md)\n\
             - [Resolve sync conflicts](./open-loops/sync-conflicts.md)\n\n## Context"
        ),
        "{index}"
    );
    assert!(!codes_after(d.path()).contains(&"index-missing-link"));
}

#[test]
fn an_index_without_the_section_gets_it_at_the_end() {
    let d = demo();
    edit(
        d.path(),
        "memory/index.md",
        "## Active open loops\n\n- [Migrate old setting names](./open-loops/settings-migration.md)\n\n",
        "",
    );
    let (p, _) = proposal(d.path());
    apply(d.path(), &p);
    let index = read(d.path(), "memory/index.md");
    assert!(
        index.ends_with(
            "(./decisions/settings-sync.md)\n\n## Active open loops\n\n\
             - [Migrate old setting names](./open-loops/settings-migration.md)\n"
        ),
        "{index}"
    );
    assert!(!codes_after(d.path()).contains(&"index-missing-link"));
}

#[test]
fn a_supersede_recorded_on_one_side_gets_the_other_side_back() {
    let d = demo();
    let (sync, local) = (read(d.path(), SYNC), read(d.path(), LOCAL));
    edit(
        d.path(),
        SYNC,
        "supersedes: memory/decisions/local-preferences.md\n",
        "",
    );
    let (p, codes) = proposal(d.path());
    assert!(codes.contains(&"supersedes-missing"), "{codes:?}");
    apply(d.path(), &p);
    assert_eq!(read(d.path(), SYNC), sync);

    edit(d.path(), LOCAL, "status: superseded\n", "status: active\n");
    edit(
        d.path(),
        LOCAL,
        "superseded_by: memory/decisions/settings-sync.md\n",
        "",
    );
    let (p, codes) = proposal(d.path());
    assert!(codes.contains(&"supersession-one-sided"), "{codes:?}");
    apply(d.path(), &p);
    assert_eq!(read(d.path(), LOCAL), local);
    let left = codes_after(d.path());
    assert!(!left.iter().any(|c| c.contains("supersed")), "{left:?}");
}

#[test]
fn a_block_list_of_superseded_records_is_extended_not_cut() {
    let d = demo();
    write(
        d.path(),
        "memory/decisions/older.md",
        "---\nid: decision-older\ntitle: Older\nstatus: superseded\nscope: project:quillnote\n\
         updated: 2026-05-01\nsuperseded_by: memory/decisions/settings-sync.md\n---\n\n# Older\n",
    );
    edit(
        d.path(),
        SYNC,
        "supersedes: memory/decisions/local-preferences.md\n",
        "supersedes:\n  - memory/decisions/local-preferences.md\n",
    );
    let (p, codes) = proposal(d.path());
    assert_eq!(
        codes.iter().filter(|c| **c == "supersedes-missing").count(),
        1,
        "only the record the list lacks: {codes:?}"
    );
    apply(d.path(), &p);
    assert!(
        read(d.path(), SYNC).contains(
            "supersedes:\n  - memory/decisions/local-preferences.md\n  - memory/decisions/older.md\n---"
        ),
        "{}",
        read(d.path(), SYNC)
    );
    let left = codes_after(d.path());
    assert!(!left.iter().any(|c| c.contains("supersed")), "{left:?}");
}

#[test]
fn a_superseded_record_nobody_replaces_is_left_with_why() {
    let d = demo();
    edit(
        d.path(),
        SYNC,
        "supersedes: memory/decisions/local-preferences.md\n",
        "",
    );
    edit(
        d.path(),
        LOCAL,
        "superseded_by: memory/decisions/settings-sync.md\n",
        "",
    );
    let (p, _) = proposal(d.path());
    assert!(p.fixes.iter().all(|f| f.path != LOCAL));
    let left = p
        .remaining
        .iter()
        .find(|u| u.code == "superseded-without-successor")
        .unwrap();
    assert!(left.reason.contains("author"), "{}", left.reason);
}

#[test]
fn missing_keys_get_the_values_the_record_and_project_state() {
    let d = demo();
    let sync = read(d.path(), SYNC);
    let bare = sync
        .replace("id: decision-settings-sync\n", "")
        .replace("title: Settings sync stays server-backed\n", "")
        .replace("scope: project:quillnote\n", "")
        .replace("updated: 2026-05-16\n", "")
        .replace("status: active\n", "status:\n");
    write(d.path(), SYNC, &bare);
    let (p, codes) = proposal(d.path());
    assert_eq!(
        codes
            .iter()
            .filter(|c| **c == "record-missing-field")
            .count(),
        5
    );
    apply(d.path(), &p);
    let fixed = read(d.path(), SYNC);
    for line in [
        "id: decision-settings-sync\n",
        "title: Settings sync stays server-backed\n",
        "status: active\n",
        "scope: project:quillnote\n",
        "updated: 2026-05-16\n",
    ] {
        assert!(fixed.contains(line), "{line:?} not in {fixed}");
    }
    assert!(!codes_after(d.path()).contains(&"record-missing-field"));
}

#[test]
fn a_key_no_file_supports_is_left_needing_a_value() {
    let d = demo();
    write(
        d.path(),
        "memory/decisions/offline-cache.md",
        "---\nid: decision-offline-cache\nstatus: active\nscope: project:quillnote\n---\n\nNotes are cached.\n",
    );
    let (p, _) = proposal(d.path());
    assert!(
        p.fixes
            .iter()
            .all(|f| f.path != "memory/decisions/offline-cache.md")
    );
    let reasons: Vec<&str> = p
        .remaining
        .iter()
        .filter(|u| {
            u.path == "memory/decisions/offline-cache.md" && u.code == "record-missing-field"
        })
        .map(|u| u.reason.as_str())
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons.iter().all(|r| r.contains("needs a value")),
        "{reasons:?}"
    );
}

#[test]
fn a_status_in_another_case_and_a_short_date_are_written_as_the_layout_spells_them() {
    let d = demo();
    edit(d.path(), SYNC, "status: active\n", "status: Active\n");
    edit(
        d.path(),
        SYNC,
        "updated: 2026-05-16\n",
        "updated: 2026-5-6\n",
    );
    let (p, codes) = proposal(d.path());
    assert!(codes.contains(&"bad-status") && codes.contains(&"bad-date"));
    apply(d.path(), &p);
    let fixed = read(d.path(), SYNC);
    assert!(fixed.contains("status: active\n") && fixed.contains("updated: 2026-05-06\n"));
    let left = codes_after(d.path());
    assert!(!left.contains(&"bad-status") && !left.contains(&"bad-date"));

    edit(
        d.path(),
        SYNC,
        "updated: 2026-05-06\n",
        "updated: 06/05/2026\n",
    );
    let (p, _) = proposal(d.path());
    assert!(p.fixes.is_empty());
    assert!(p.remaining.iter().any(|u| u.code == "bad-date"));
}

#[test]
fn a_record_whose_file_name_has_a_space_is_linked_so_the_link_reads_back() {
    let d = demo();
    write(
        d.path(),
        "memory/decisions/offline (v2) cache.md",
        "---\nid: decision-offline-cache\ntitle: Cache notes offline\nstatus: active\nscope: project:quillnote\nupdated: 2026-06-01\n---\n\n# Cache notes offline\n",
    );
    let (p, codes) = proposal(d.path());
    assert!(codes.contains(&"index-missing-link"));
    apply(d.path(), &p);
    let index = read(d.path(), "memory/index.md");
    assert!(
        index.contains("- [Cache notes offline](<./decisions/offline (v2) cache.md>)\n"),
        "{index}"
    );
    assert!(!codes_after(d.path()).contains(&"index-missing-link"));
}

#[test]
fn an_emptied_section_gets_its_item_after_the_blank_line_under_the_heading() {
    let d = demo();
    edit(
        d.path(),
        "memory/index.md",
        "- [Migrate old setting names](./open-loops/settings-migration.md)\n",
        "",
    );
    let (p, _) = proposal(d.path());
    apply(d.path(), &p);
    let index = read(d.path(), "memory/index.md");
    assert!(
        index.contains(
            "## Active open loops\n\n\
             - [Migrate old setting names](./open-loops/settings-migration.md)\n\n## Context"
        ),
        "{index}"
    );
}
