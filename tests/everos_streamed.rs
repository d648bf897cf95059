//! An everos root read once, a window of files at a time, as `entries`,
//! `check` and `search` read it, gives exactly what the loaded root gives:
//! the same findings, the same ranked hits and scores, the same bytes.
//! The root is generated (more files than one window holds) and holds the
//! fixture root's scopes, skills and defects besides.

mod support;

use std::fs;
use std::path::Path;

use membank_core::everos::{self, query};
use membank_core::memory::Memory;
use membank_core::search::one_pass;

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/everos-root");

fn copy_tree(from: &Path, to: &Path) {
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            fs::create_dir_all(&target).unwrap();
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// 1,400 generated daily logs, the fixture root, and a file of each kind
/// of trouble.
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    membank_core::synth_everos::generate(root, 7_000).unwrap();
    copy_tree(Path::new(FIXTURE), root);
    let episodes = root.join("default_app/default_project/users/user_000/episodes");
    fs::write(
        episodes.join(".episode-2024-01-01.md.tmp.1234"),
        "half written",
    )
    .unwrap();
    fs::write(
        episodes.join("episode-2024-01-03.md"),
        "---\nid: x\n---\nstray text\n<!-- entry:ep_20240103_00000001 -->\nkyoto\n",
    )
    .unwrap();
    fs::write(
        episodes.join("episode-2024-01-05.md"),
        b"---\nid: x\n---\n<!-- entry:ep_20240105_00000001 -->\n\xff\xfe\n<!-- /entry:ep_20240105_00000001 -->\n",
    )
    .unwrap();
    fs::write(
        episodes.join("episode-2024-01-07.md"),
        "\u{feff}---\nid: x\n---\n<!-- entry:ep_20240107_00000001 -->\nkyoto kyoto\n<!-- /entry:ep_20240107_00000001 -->\n",
    )
    .unwrap();
    fs::create_dir_all(root.join("default_app/default_project/agents/a1/skills/skill_empty"))
        .unwrap();
    dir
}

#[test]
fn a_streamed_check_finds_what_the_loaded_root_shows() {
    let dir = root();
    let loaded = everos::load(dir.path()).unwrap();
    let want = everos::check::check(&loaded);
    let (listing, got) = everos::check::check_streamed(dir.path()).unwrap();
    assert!(
        want.findings.len() > 8,
        "the root has defects: {:?}",
        want.findings
    );
    assert_eq!(got.findings, want.findings);
    assert_eq!(
        (got.counts.error, got.counts.warning, got.counts.info),
        (want.counts.error, want.counts.warning, want.counts.info)
    );
    assert_eq!(listing.problems, loaded.problems);
    assert!(listing.files.is_empty(), "no file is kept");
}

#[test]
fn a_streamed_search_ranks_what_the_loaded_root_ranks() {
    let dir = root();
    let loaded = everos::load(dir.path()).unwrap();
    let memory: &dyn Memory = &loaded;
    for query in [
        "kyoto budget deadline",
        "carol",
        "résumé contract",
        "user_007 refund",
        "",
        "nothing-matches-this",
    ] {
        for limit in [1, 10, 100_000] {
            let want = one_pass::search(memory, query, limit);
            let (_, got) = everos::search::search(dir.path(), query, limit).unwrap();
            assert_eq!(got.matches, want.matches, "{query:?} limit {limit}");
            assert_eq!(got.hits, want.hits, "{query:?} limit {limit}");
        }
    }
    let (_, kyoto) = everos::search::search(dir.path(), "kyoto", 10).unwrap();
    assert!(kyoto.matches > 1_000, "{}", kyoto.matches);
}

#[derive(serde::Serialize)]
struct Entries<'a> {
    entries: Vec<query::EntryJson<'a>>,
}

fn entries_cli(root: &Path, args: &[&str]) -> String {
    let out = support::membank()
        .arg("entries")
        .arg(root)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .expect("membank runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn streamed_entries_are_the_bytes_of_the_loaded_list() {
    let dir = root();
    let loaded = everos::load(dir.path()).unwrap();
    let cases: [(&[&str], query::EntryFilter); 3] = [
        (&[], query::EntryFilter::default()),
        (
            &["--since", "2024-01-20"],
            query::EntryFilter {
                since: jiff::civil::Date::new(2024, 1, 20).ok(),
                ..query::EntryFilter::default()
            },
        ),
        (
            &["--user", "user_001", "--project", "support-bot"],
            query::EntryFilter {
                owner_kind: Some(everos::OwnerKind::User),
                owner: Some("user_001".into()),
                project: Some("support-bot".into()),
                ..query::EntryFilter::default()
            },
        ),
    ];
    for (args, filter) in cases {
        let rows = query::entries(&loaded, &filter);
        assert!(!rows.is_empty(), "{args:?}");
        let want = Entries {
            entries: rows.iter().map(query::EntryRef::to_json).collect(),
        };
        let want = membank_core::json::to_string(&want).unwrap() + "\n";
        let json: Vec<&str> = [args, &["--json"]].concat();
        assert!(entries_cli(dir.path(), &json) == want, "{args:?}");
        let human = entries_cli(dir.path(), args);
        let lines: Vec<&str> = human.lines().collect();
        assert_eq!(lines.len(), rows.len() + 1, "{args:?}");
        assert_eq!(lines[rows.len()], format!("{} entries", rows.len()));
        for (line, row) in lines.iter().zip(&rows) {
            let at = format!(
                "{}:{}  {}  ",
                row.file.rel_path, row.entry.line, row.entry.id
            );
            assert!(line.starts_with(&at), "{line:?} {at:?}");
        }
    }
}

/// What `check --path P` keeps: the finding's path is P or inside it.
fn under(path: &str, part: &str) -> bool {
    path == part
        || path
            .strip_prefix(part)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Parts of the root a `--path` names: one defective log, an owner, a
/// project, a skill, the staging leftovers' folder, the whole root.
const PARTS: &[&str] = &[
    "default_app/default_project/users/user_000/episodes/episode-2024-01-03.md",
    "default_app/default_project/users/user_000/episodes/episode-2024-01-05.md",
    "default_app/default_project/users/user_000",
    "default_app/default_project",
    "acme-crm/support-bot",
    "default_app/default_project/agents/a1/skills/skill_empty",
    "",
];

#[test]
fn a_check_of_one_part_reads_only_it_and_finds_what_the_whole_root_shows() {
    let dir = root();
    let loaded = everos::load(dir.path()).unwrap();
    let whole = everos::check::check(&loaded);
    let mut compared = 0;
    for &part in PARTS {
        let want: Vec<_> = whole
            .findings
            .iter()
            .filter(|f| under(&f.path, part))
            .cloned()
            .collect();
        let (_, streamed) =
            everos::check::check_streamed_where(dir.path(), |rel| under(rel, part)).unwrap();
        let held = everos::check::check_where(&loaded, |rel| under(rel, part));
        for (how, got) in [("streamed", &streamed), ("held", &held)] {
            let kept: Vec<_> = got
                .findings
                .iter()
                .filter(|f| under(&f.path, part))
                .cloned()
                .collect();
            assert_eq!(kept, want, "{how} {part:?}");
        }
        // No file outside the part was read: what else is found is what
        // the walk alone finds (folders, skill folders), about no file.
        for f in streamed.findings.iter().filter(|f| !under(&f.path, part)) {
            assert!(
                loaded.files.iter().all(|file| file.rel_path != *f.path),
                "{part:?}: a file outside was read: {f:?}"
            );
        }
        compared += want.len();
    }
    assert!(compared > 8, "the parts hold defects: {compared}");
}

#[test]
fn an_entry_found_as_the_root_is_read_is_the_one_the_loaded_root_finds() {
    let dir = root();
    let user = |u: &str| query::EntryFilter {
        owner_kind: Some(everos::OwnerKind::User),
        owner: Some(u.into()),
        ..query::EntryFilter::default()
    };
    let cases = [
        // The same id in every user's log of the day.
        ("ep_20240103_00000001", query::EntryFilter::default()),
        ("ep_20240103_00000001", user("user_001")),
        ("ep_20240110_00000003", user("user_007")),
        // In the fixture root, and ids no file holds.
        ("ep_20260601_00000002", query::EntryFilter::default()),
        ("ep_20240103_00000001", user("nobody")),
        ("ep_19990101_00000001", query::EntryFilter::default()),
        ("not-an-id", query::EntryFilter::default()),
    ];
    let mut found = 0;
    for (id, filter) in cases {
        let loaded = everos::load_filtered(dir.path(), &filter.load_filter()).unwrap();
        let want: Vec<_> = query::find(&loaded, id, &filter)
            .iter()
            .map(query::EntryRef::to_json)
            .collect();
        let holding = query::load_holding(dir.path(), id, &filter).unwrap();
        let got: Vec<_> = query::find(&holding, id, &filter)
            .iter()
            .map(query::EntryRef::to_json)
            .collect();
        assert_eq!(got, want, "{id} {filter:?}");
        assert_eq!(
            holding.files.len(),
            want.len(),
            "only the files holding {id}"
        );
        found += want.len();
    }
    assert!(found > 50, "the cases find entries: {found}");
}

fn check_cli(root: &Path, args: &[&str]) -> serde_json::Value {
    let out = support::membank()
        .arg("check")
        .arg(root)
        .args(args)
        .args(["--json", "--limit", "0"])
        .output()
        .expect("membank runs");
    support::json_of(&out).0
}

#[test]
fn check_with_a_path_reports_what_the_whole_check_reports_there() {
    let dir = root();
    let whole = check_cli(dir.path(), &[]);
    let all = whole["findings"].as_array().unwrap();
    for &part in PARTS.iter().filter(|p| !p.is_empty()) {
        let got = check_cli(dir.path(), &["--path", part]);
        let want: Vec<&serde_json::Value> = all
            .iter()
            .filter(|f| under(f["path"].as_str().unwrap(), part))
            .collect();
        let got_findings: Vec<&serde_json::Value> =
            got["findings"].as_array().unwrap().iter().collect();
        assert_eq!(got_findings, want, "{part}");
        assert_eq!(got["total"], want.len(), "{part}");
    }
    // A path that names nothing still says so, with a suggestion.
    let out = support::membank()
        .arg("check")
        .arg(dir.path())
        .args(["--path", "default_app/default_project/users/user_00"])
        .output()
        .expect("membank runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("no such file or folder"), "{err}");
    assert!(err.contains("user_00"), "{err}");
}
