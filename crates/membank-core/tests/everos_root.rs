//! The sample everos memory root read through the layout boundary.

use std::path::Path;

use membank_core::everos::query::{EntryFilter, entries, find};
use membank_core::everos::{self, OwnerKind};
use membank_core::memory::{self, HealthOptions};

const ROOT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/fixtures/everos-root"
);

#[test]
fn detected_opened_and_clean() {
    let found = memory::detect(Path::new(ROOT), None).unwrap();
    assert_eq!(found.spec.name, "everos");
    let m = memory::open(Path::new(ROOT), None).unwrap();
    assert_eq!(m.spec().name, "everos");
    let report = m.check(&HealthOptions::as_of(jiff::civil::date(2026, 4, 8)));
    assert!(!report.has_errors(), "{:#?}", report.findings);
    let id = m
        .find("default_app/default_project/users/u_alice/.atomic_facts/atomic_fact-2026-05-31.md")
        .expect("hidden kind folders are memory");
    let d = m.document(id);
    assert_eq!(d.title, "2026-05-31");
    assert_eq!(d.kind, "atomic_fact");
    assert_eq!(
        d.groups,
        ["default", "default", "users", "u_alice", ".atomic_facts"]
    );
    let skill = m
        .find("acme-crm/support-bot/agents/planner.v2/skills/skill_résumé_parsing/SKILL.md")
        .unwrap();
    assert_eq!(m.document(skill).title, "résumé_parsing");
}

#[test]
fn entries_filter_and_lookup_by_owner() {
    let root = everos::load(ROOT).unwrap();
    let all = entries(&root, &EntryFilter::default());
    assert!(all.len() > 50, "{}", all.len());
    let alice = EntryFilter {
        owner_kind: Some(OwnerKind::User),
        owner: Some("u_alice".into()),
        since: Some(jiff::civil::date(2026, 6, 1)),
        ..EntryFilter::default()
    };
    let rows = entries(&root, &alice);
    assert!(!rows.is_empty());
    for r in &rows {
        let j = r.to_json();
        assert_eq!(j.owner, Some("u_alice"));
        assert!(j.date.as_deref().unwrap() >= "2026-06-01");
        assert!(!j.text.starts_with('\n') && !j.text.ends_with('\n'));
    }
    // The same id exists for several users: (scope, owner, id) names one.
    let hits = find(&root, "ep_20260601_00000001", &EntryFilter::default());
    assert!(hits.len() > 1);
    let one = find(&root, "ep_20260601_00000001", &alice);
    assert_eq!(one.len(), 1);
    // The look-alike markers inside its code blocks stay text of entry 5.
    let five = find(&root, "ep_20260601_00000005", &alice)[0];
    assert!(five.text().contains("<!-- /entry:ep_20250101_00000001 -->"));
    assert!(five.text().ends_with("here both are only text."));
}

#[test]
fn search_units_are_entries_with_their_ids() {
    let m = memory::open(Path::new(ROOT), None).unwrap();
    let units = m.search_units();
    let with_ids = units.iter().filter(|u| u.entry_id.is_some()).count();
    let root = m.downcast_ref::<everos::MemoryRoot>().unwrap();
    assert_eq!(with_ids, root.entry_count());
    assert!(m.search_note().unwrap().contains("keyword"));
}

#[test]
fn since_reads_only_recent_logs_and_lists_what_the_whole_root_lists() {
    let whole = everos::load(ROOT).unwrap();
    let days = [
        "2026-01-01",
        "2026-05-31",
        "2026-06-01",
        "2026-06-02",
        "2027-01-01",
    ];
    for day in days {
        let since = EntryFilter {
            since: Some(day.parse().unwrap()),
            ..EntryFilter::default()
        };
        let narrow = everos::load_filtered(ROOT, &since.load_filter()).unwrap();
        // The rows must not depend on how much of the root was read.
        let expected: Vec<_> = entries(&whole, &since)
            .iter()
            .map(|r| r.to_json())
            .collect();
        let got: Vec<_> = entries(&narrow, &since)
            .iter()
            .map(|r| r.to_json())
            .collect();
        assert_eq!(got, expected, "since {day}");
        // Nothing older, and nothing that is not a daily log, was opened.
        for f in &narrow.files {
            let date = f.place.daily().and_then(|(_, d)| d);
            assert!(
                date.is_some_and(|d| d.to_string().as_str() >= day),
                "since {day}: {} was read",
                f.rel_path
            );
        }
    }
    let one_day = EntryFilter {
        since: Some("2026-06-02".parse().unwrap()),
        ..EntryFilter::default()
    };
    let narrow = everos::load_filtered(ROOT, &one_day.load_filter()).unwrap();
    assert!(narrow.files.len() < whole.files.len());
}
