use super::*;
use crate::everos::load::tests::parsed as file;

fn codes_of(files: Vec<MemFile>) -> Vec<(&'static str, Option<usize>)> {
    let mut files = files;
    files.sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    let root = MemoryRoot {
        files,
        ..MemoryRoot::default()
    };
    check(&root)
        .findings
        .iter()
        .map(|f| (f.code(), f.line()))
        .collect()
}

const EP: &str = "a/p/users/u1/episodes/episode-2026-06-01.md";

fn daily(fm_extra: &str, count: usize, entries: &str) -> String {
    format!(
        "---\nid: episode_log_u1_2026-06-01\ntype: episode_daily\nfile_type: episode_daily\nschema_version: 1\nuser_id: u1\ntrack: user\ndate: '2026-06-01'\nentry_count: {count}\nlast_appended_at: '2026-06-01T09:00:00+00:00'\n{fm_extra}---\n{entries}"
    )
}

fn entry(id: &str, text: &str) -> String {
    format!("<!-- entry:{id} -->\n## {id}\n\n{text}\n<!-- /entry:{id} -->\n")
}

#[test]
fn a_clean_daily_log_has_no_findings() {
    let body = entry("ep_20260601_00000001", "one") + &entry("ep_20260601_00000002", "two");
    assert_eq!(codes_of(vec![file(EP, &daily("", 2, &body))]), []);
}

#[test]
fn marker_look_alikes_in_code_are_not_findings() {
    let text = "```md\n<!-- entry:ep_20250101_00000001 -->\nx\n<!-- /entry:ep_20250101_00000001 -->\n```\nand `<!-- entry:zz_1 -->` inline";
    let body = entry("ep_20260601_00000001", text);
    assert_eq!(codes_of(vec![file(EP, &daily("", 1, &body))]), []);
}

#[test]
fn the_issue_defects_are_each_found_on_their_line() {
    // duplicate id, wrong count, misdated id
    let body = entry("ep_20260601_00000001", "one")
        + &entry("ep_20260601_00000001", "again")
        + &entry("ep_20260602_00000002", "wrong day");
    let codes = codes_of(vec![file(EP, &daily("", 5, &body))]);
    assert!(
        codes.contains(&("everos-duplicate-entry-id", Some(17))),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("everos-entry-count", Some(9))),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("everos-entry-id-date", Some(22))),
        "{codes:?}"
    );
}

#[test]
fn unclosed_nested_and_stray_markers() {
    let body = entry(
        "ep_20260601_00000001",
        "one\n<!-- entry:ep_20260601_00000009 -->\nraw",
    ) + "<!-- /entry:ep_20260601_00000007 -->\n"
        + "<!-- entry:ep_20260601_00000002 -->\nno close\n";
    let codes = codes_of(vec![file(EP, &daily("", 1, &body))]);
    assert!(
        codes.contains(&("everos-nested-marker", Some(16))),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("everos-stray-close-marker", Some(19))),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("everos-unclosed-marker", Some(20))),
        "{codes:?}"
    );
}

/// The fields everos's schemas give defaults may be left out, and
/// `last_appended_at` may be null; a defaulted field written as null is
/// refused by the schema.
#[test]
fn fields_with_defaults_may_be_left_out() {
    let bare = "---\nid: episode_log_u1_2026-06-01\nuser_id: u1\ndate: '2026-06-01'\n---\n";
    assert_eq!(codes_of(vec![file(EP, bare)]), []);
    let nulled = daily("", 0, "").replace(
        "last_appended_at: '2026-06-01T09:00:00+00:00'",
        "last_appended_at: null",
    );
    assert_eq!(codes_of(vec![file(EP, &nulled)]), []);
    let null_count = daily("", 0, "").replace("entry_count: 0", "entry_count: null");
    assert_eq!(
        codes_of(vec![file(EP, &null_count)]),
        [("everos-bad-field", Some(9))]
    );
}

#[test]
fn frontmatter_fields_owner_and_dates() {
    let text = daily("", 0, "")
        .replace("user_id: u1", "user_id: someone")
        .replace("date: '2026-06-01'", "date: '2026-06-02'");
    let codes = codes_of(vec![file(EP, &text)]);
    assert!(
        codes.contains(&("everos-owner-mismatch", Some(6))),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("everos-date-mismatch", Some(8))),
        "{codes:?}"
    );
    let text = daily("", 0, "").replace("user_id: u1\n", "").replace(
        "last_appended_at: '2026-06-01T09:00:00+00:00'",
        "last_appended_at: '2026-05-31T23:00:00+00:00'",
    );
    let codes = codes_of(vec![file(EP, &text)]);
    assert!(
        codes.contains(&("everos-missing-field", Some(1))),
        "{codes:?}"
    );
    assert!(
        codes.contains(&("everos-appended-before-day", Some(9))),
        "{codes:?}"
    );
    let codes = codes_of(vec![file(
        "a/p/users/u1/user.md",
        "---\nid: [broken\n---\n",
    )]);
    assert_eq!(codes, [("everos-unparsable-yaml", Some(3))]);
    // A daily log's is the read's to report (see `load`).
    assert_eq!(codes_of(vec![file(EP, "---\nid: [broken\n---\n")]), []);
    // A list parses: everos reads it as no frontmatter, not as a file it
    // cannot read, and the entry after it is read.
    let listed = format!("---\n- a\n- b\n---\n{}", entry("ep_20260601_00000001", "x"));
    let codes = codes_of(vec![file(EP, &listed)]);
    // (The list is then text of the body, outside every entry.)
    assert_eq!(
        codes,
        [
            ("everos-missing-frontmatter", Some(1)),
            ("everos-text-outside-entries", Some(1))
        ]
    );
    let f = file(EP, &listed);
    assert_eq!(f.entries.len(), 1);
    let bad_day = "a/p/users/u1/episodes/episode-2026-02-30.md";
    let codes = codes_of(vec![file(
        bad_day,
        &daily("", 0, "").replace("2026-06-01", "2026-02-30"),
    )]);
    assert!(
        codes.iter().any(|c| c.0 == "everos-bad-file-date"),
        "{codes:?}"
    );
}

#[test]
fn sequence_gaps_and_order() {
    let body = entry("ep_20260601_00000002", "a")
        + &entry("ep_20260601_00000001", "b")
        + &entry("ep_20260601_000000003", "c");
    let codes = codes_of(vec![file(EP, &daily("", 3, &body))]);
    let gap = codes
        .iter()
        .filter(|c| c.0 == "everos-sequence-gap")
        .count();
    let order = codes
        .iter()
        .filter(|c| c.0 == "everos-sequence-order")
        .count();
    assert_eq!((gap, order), (1, 1), "{codes:?}");
}

#[test]
fn temp_files_name_their_target() {
    let f = file(
        "a/p/users/u1/.episode-2026-06-01.md.tmp.00ff00ff00ff00ff",
        "",
    );
    let root = MemoryRoot {
        files: vec![f],
        ..MemoryRoot::default()
    };
    let report = check(&root);
    assert_eq!(report.findings[0].code(), "everos-tmp-leftover");
    assert!(
        report.findings[0]
            .message()
            .contains("a/p/users/u1/episode-2026-06-01.md"),
        "{}",
        report.findings[0].message()
    );
}

#[test]
fn skills_check_their_fields_and_references_are_free() {
    let skill = "---\nid: g_x\ntype: agent_skill\nschema_version: 1\nagent_id: g\ntrack: agent\nname: y\ndescription: d\nconfidence: 0.5\nmaturity_score: 0.5\ncreated_at: &id001 2026-06-02 12:00:00+00:00\nupdated_at: *id001\n---\nbody\n";
    let codes = codes_of(vec![
        file("a/p/agents/g/skills/skill_x/SKILL.md", skill),
        file(
            "a/p/agents/g/skills/skill_x/references/notes.md",
            "no frontmatter",
        ),
        file("a/p/agents/g/skills/skill_x/scripts/run.py", "print()"),
    ]);
    assert_eq!(codes, [("everos-skill-name-mismatch", Some(7))]);
}

#[test]
fn timestamps_in_everos_shapes() {
    for (s, day) in [
        ("2026-06-01T06:13:14+00:00", jiff::civil::date(2026, 6, 1)),
        (
            "2026-06-01 06:13:14.123456+00:00",
            jiff::civil::date(2026, 6, 1),
        ),
        ("2026-11-30T06:13:14", jiff::civil::date(2026, 11, 30)),
        ("2025-12-31T23:59:59Z", jiff::civil::date(2025, 12, 31)),
        // The day as written, not moved to another zone.
        ("2026-02-28T23:30:00-05:00", jiff::civil::date(2026, 2, 28)),
        ("2026-03-01t00:10:00+09:00", jiff::civil::date(2026, 3, 1)),
    ] {
        assert_eq!(timestamp_day(s), Some(day), "{s}");
    }
    assert!(timestamp_day("2026-06-01Tnoon").is_none());
    assert!(timestamp_day("yesterday").is_none());
}

/// Left out, `entry_count` is 0 to everos: a log with entries would have
/// its next entry numbered as its first.
#[test]
fn a_left_out_entry_count_is_reported_when_there_are_entries() {
    let body = entry("ep_20260601_00000001", "one") + &entry("ep_20260601_00000002", "two");
    let text = daily("", 2, &body).replace("entry_count: 2\n", "");
    assert_eq!(
        codes_of(vec![file(EP, &text)]),
        [("everos-entry-count", Some(1))]
    );
    let empty = daily("", 0, "").replace("entry_count: 0\n", "");
    assert_eq!(codes_of(vec![file(EP, &empty)]), []);
}

/// `schema_version` and `entry_count` are read as pydantic's lax `int`
/// reads them: quoted whole numbers, `2.0`, and booleans are numbers.
#[test]
fn int_fields_take_what_pydantic_takes() {
    let body = entry("ep_20260601_00000001", "one") + &entry("ep_20260601_00000002", "two");
    for (version, count) in [
        ("'1'", "'2'"),
        ("\" 1 \"", "'+2'"),
        ("1.0", "'2.00'"),
        ("true", "'0_2'"),
        ("'1'", "2.0"),
    ] {
        let text = daily("", 2, &body)
            .replace("schema_version: 1", &format!("schema_version: {version}"))
            .replace("entry_count: 2", &format!("entry_count: {count}"));
        assert_eq!(codes_of(vec![file(EP, &text)]), [], "{version} {count}");
    }
    for bad in [
        "'1.5'", "1.5", "'1.'", "'0x10'", "'1e3'", "''", "'two'", "[2]", "'_2'",
    ] {
        let text = daily("", 2, &body).replace("entry_count: 2", &format!("entry_count: {bad}"));
        assert_eq!(
            codes_of(vec![file(EP, &text)]),
            [("everos-bad-field", Some(9))],
            "{bad}"
        );
    }
    // A quoted count that is a number but the wrong one is a wrong count.
    let text = daily("", 2, &body).replace("entry_count: 2", "entry_count: '3'");
    assert_eq!(
        codes_of(vec![file(EP, &text)]),
        [("everos-entry-count", Some(9))]
    );
}

/// `id` and the owner id are `str` to everos: pydantic v2 refuses a
/// list, a mapping, a number or a boolean there.
#[test]
fn a_text_field_that_is_not_text_is_a_bad_field() {
    let body = entry("ep_20260601_00000001", "one");
    for id in ["[a, b]", "{a: 1}", "123", "true"] {
        let text =
            daily("", 1, &body).replace("id: episode_log_u1_2026-06-01", &format!("id: {id}"));
        assert_eq!(
            codes_of(vec![file(EP, &text)]),
            [("everos-bad-field", Some(2))],
            "{id}"
        );
    }
    let text = daily("", 1, &body).replace("id: episode_log_u1_2026-06-01", "id: '123'");
    assert_eq!(codes_of(vec![file(EP, &text)]), []);
    let owner = "a/p/users/7/episodes/episode-2026-06-01.md";
    let text = daily("", 1, &body).replace("user_id: u1", "user_id: 7");
    assert_eq!(
        codes_of(vec![file(owner, &text)]),
        [("everos-bad-field", Some(6))]
    );
}

/// everos reads with YAML 1.1: `no` and a date are not text to it, `0o17`
/// and `1e3` are.
#[test]
fn text_fields_are_typed_as_everos_reads_them() {
    let with_id = |id: &str| {
        let text = daily("", 0, "").replace("id: episode_log_u1_2026-06-01", &format!("id: {id}"));
        codes_of(vec![file(EP, &text)])
            .into_iter()
            .filter(|(code, _)| *code == "everos-bad-field")
            .count()
    };
    assert_eq!(with_id("no"), 1);
    assert_eq!(with_id("2026-06-01"), 1);
    assert_eq!(with_id("7"), 1);
    assert_eq!(with_id("0o17"), 0);
    assert_eq!(with_id("1e3"), 0);
    assert_eq!(with_id("'no'"), 0);
}

/// A day or a moment in any form everos's schema loads (pydantic's lax
/// `date` and `datetime` over PyYAML) is no error: Unix time, a date and
/// time at midnight for the day. What it refuses still is.
#[test]
fn dates_and_times_everos_loads_are_not_bad_fields() {
    let base = daily("", 1, &entry("ep_20260601_00000001", "one"));
    let with = |from: &str, to: &str| {
        assert!(base.contains(from));
        codes_of(vec![file(EP, &base.replace(from, to))])
    };
    let date = "date: '2026-06-01'";
    let appended = "last_appended_at: '2026-06-01T09:00:00+00:00'";
    for to in [
        "date: 2026-06-01 00:00:00",
        "date: '2026-06-01T00:00:00'",
        "date: 2026-06-01T00:00:00+02:00",
        "date: 1780272000",
    ] {
        assert_eq!(with(date, to), [], "{to}");
    }
    for to in [
        "last_appended_at: 1780300800",
        "last_appended_at: '1780300800.5'",
        "last_appended_at: 2026-06-01 07:45:00",
        "last_appended_at: '2026-06-01 07:45'",
    ] {
        assert_eq!(with(appended, to), [], "{to}");
    }
    for to in [
        "date: 2026-06-01 00:00:01",
        "date: '2026-06-01T12:00:00'",
        "date: 1780272001",
        "date: true",
    ] {
        assert_eq!(with(date, to), [("everos-bad-field", Some(8))], "{to}");
    }
    for to in [
        "last_appended_at: true",
        "last_appended_at: .inf",
        "last_appended_at: '2026-06-01T25:99:00'",
        "last_appended_at: 1780300800000000",
    ] {
        assert_eq!(with(appended, to), [("everos-bad-field", Some(10))], "{to}");
    }
    // Unix time has its day in UTC: the day before the file's is early.
    assert_eq!(
        with(appended, "last_appended_at: 1780268400"),
        [("everos-appended-before-day", Some(10))]
    );
}
