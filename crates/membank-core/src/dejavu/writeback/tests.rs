use std::fs;
use std::path::Path;

use super::*;
use crate::dejavu::SUMMARY_PATH;

const SCOPE: &str = "project:demo";
const OLD_LINE: &str = r#"{"schema_version":1,"id":"decision-old","scope":"project:demo","title":"Old choice","keywords":["alpha","beta","gamma"],"record_path":"memory/decisions/old.md","updated":"2026-01-02","weight":0.5,"status":"active"}"#;

/// The project's write transaction, for one apply.
fn tx(root: &Path) -> crate::transaction::Transaction {
    crate::transaction::Transaction::begin(
        root,
        crate::transaction::Kind::Project,
        std::time::Duration::ZERO,
        || {},
    )
    .unwrap()
}

fn record(id: &str, title: &str, sections: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: {title}\nstatus: active\nscope: {SCOPE}\nupdated: 2026-03-04\n---\n\n# {title}\n\n{sections}\n## Related records\n\n- [Summary](../summary.md)\n"
    )
}

fn decision(id: &str, title: &str) -> String {
    record(
        id,
        title,
        "## Decision\n\nDo it.\n\n## Rationale\n\nBecause.\n\n## Consequences\n\nSome.\n",
    )
}

fn impression(id: &str, path: &str, keywords: &str) -> String {
    format!(
        r#"{{"schema_version":1,"id":"{id}","scope":"{SCOPE}","title":"T {id}","keywords":[{keywords}],"record_path":"{path}","updated":"2026-03-04","weight":0.8,"status":"active"}}"#
    )
}

/// A small project: AGENTS.md, a summary, one decision with its route.
/// `eol` is the impressions file's line ending.
fn project(eol: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    fs::create_dir_all(r.join("memory/decisions")).unwrap();
    fs::write(r.join("AGENTS.md"), "# Rules\n").unwrap();
    fs::write(
        r.join("memory/summary.md"),
        format!(
            "---\nid: summary\ntitle: Summary\nstatus: active\nscope: {SCOPE}\nupdated: 2026-01-02\n---\n\n# Summary\n\n- [Old choice](./decisions/old.md)\n"
        ),
    )
    .unwrap();
    fs::write(
        r.join("memory/decisions/old.md"),
        decision("decision-old", "Old choice"),
    )
    .unwrap();
    fs::write(
        r.join("memory/impressions.jsonl"),
        format!("{OLD_LINE}{eol}"),
    )
    .unwrap();
    dir
}

fn load(r: &Path) -> Project {
    Project::load(r).unwrap()
}

fn reply(blocks: &[(&str, String)]) -> String {
    let mut out = String::from("Here is what to keep.\n\n");
    for (path, body) in blocks {
        out.push_str(&format!("### FILE: {path}\n{body}\n"));
    }
    out
}

fn changes(p: &Proposal) -> Vec<(String, Change)> {
    p.files.iter().map(|f| (f.path.clone(), f.change)).collect()
}

#[test]
fn proposals_are_checked_against_the_layout_and_nothing_is_written() {
    let dir = project("\n");
    let r = dir.path();
    let before = fs::read(r.join("memory/impressions.jsonl")).unwrap();
    let text = reply(&[
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "Cache results"),
        ),
        (
            "memory/impressions.jsonl",
            [
                impression(
                    "decision-cache",
                    "memory/decisions/cache.md",
                    r#""cache","results","ttl""#,
                ),
                // Routes nowhere.
                impression(
                    "decision-ghost",
                    "memory/decisions/ghost.md",
                    r#""ghost","phantom","spook""#,
                ),
                // Weight out of range.
                impression(
                    "decision-heavy",
                    "memory/decisions/cache.md",
                    r#""heavy","load","weight""#,
                )
                .replace("0.8", "7"),
                "not json".to_owned(),
            ]
            .join("\n"),
        ),
        ("memory/private/notes.md", "secret plans\n".into()),
        ("src/main.rs", "fn main() {}\n".into()),
        ("memory/recall-feedback.jsonl", "{}\n".into()),
    ]);
    let p = classify(&load(r), &text);
    let imp = IMPRESSIONS_PATH.to_owned();
    assert_eq!(
        changes(&p),
        vec![
            ("memory/decisions/cache.md".into(), Change::New),
            (imp.clone(), Change::Changed),
            (imp.clone(), Change::Rejected),
            (imp.clone(), Change::Rejected),
            (imp, Change::Rejected),
            ("memory/private/notes.md".into(), Change::Rejected),
            ("src/main.rs".into(), Change::Rejected),
            ("memory/recall-feedback.jsonl".into(), Change::Rejected),
        ],
        "{p:#?}"
    );
    let reason = |i: usize| p.files[i].reason.clone().unwrap();
    assert!(reason(2).contains("record-path-missing"), "{}", reason(2));
    assert!(reason(3).contains("bad-weight"), "{}", reason(3));
    assert!(reason(4).contains("invalid-jsonl"), "{}", reason(4));
    assert!(reason(5).contains("private"), "{}", reason(5));
    let diff = p.files[1].diff.as_deref().unwrap();
    assert!(
        diff.contains("+{\"schema_version\":1,\"id\":\"decision-cache\""),
        "{diff}"
    );
    // The summary does not link the new decision: a warning for the whole reply.
    assert!(
        p.warnings
            .iter()
            .any(|w| w.contains("summary-missing-link")),
        "{:?}",
        p.warnings
    );
    assert!(!r.join("memory/decisions/cache.md").exists());
    assert_eq!(
        fs::read(r.join("memory/impressions.jsonl")).unwrap(),
        before
    );
}

#[test]
fn apply_writes_records_then_appends_lines_leaving_the_others_byte_for_byte() {
    let dir = project("\r\n");
    let r = dir.path();
    let new_line = impression(
        "decision-cache",
        "memory/decisions/cache.md",
        r#""cache","results","ttl""#,
    );
    let text = reply(&[
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "Cache results"),
        ),
        ("memory/impressions.jsonl", new_line.clone()),
    ]);
    let p = classify(&load(r), &text);
    let done = apply(&tx(r), &p, &[]).unwrap();
    assert_eq!(done[0].change, Change::New);
    assert_eq!(done[1].change, Change::Changed);
    assert_eq!(
        fs::read_to_string(r.join("memory/impressions.jsonl")).unwrap(),
        format!("{OLD_LINE}\r\n{new_line}\r\n")
    );
    assert_eq!(
        fs::read_to_string(r.join("memory/decisions/cache.md")).unwrap(),
        decision("decision-cache", "Cache results")
    );
    // Proposing the same again changes nothing.
    let again = classify(&load(r), &text);
    assert_eq!(
        again.files.iter().map(|f| f.change).collect::<Vec<_>>(),
        vec![Change::Unchanged, Change::Unchanged]
    );
}

#[test]
fn a_record_without_the_required_frontmatter_is_refused_and_so_is_its_route() {
    let dir = project("\n");
    let r = dir.path();
    let text = reply(&[
        (
            "memory/open-loops/todo.md",
            "# Todo\n\nSomething later.\n".into(),
        ),
        (
            "memory/impressions.jsonl",
            impression(
                "open-loop-todo",
                "memory/open-loops/todo.md",
                r#""todo","later","follow""#,
            ),
        ),
    ]);
    let p = classify(&load(r), &text);
    assert_eq!(p.files[0].change, Change::Rejected);
    assert!(
        p.files[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("missing-frontmatter")
    );
    assert_eq!(p.files[1].change, Change::Rejected, "{:#?}", p.files[1]);
    assert!(
        p.files[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("record-path-missing")
    );
}

#[test]
fn secrets_and_new_errors_refuse_a_record_but_old_problems_do_not() {
    let dir = project("\n");
    let r = dir.path();
    // The existing decision already lacks a section: keeping that is allowed.
    let old = decision("decision-old", "Old choice").replace("## Consequences\n\nSome.\n", "");
    fs::write(r.join("memory/decisions/old.md"), &old).unwrap();
    let updated = old.replace("Do it.", "Do it twice.");
    let leaked = decision("decision-keys", "Keys").replace(
        "Because.",
        "Because.\n-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
    );
    let text = reply(&[
        ("memory/decisions/old.md", updated),
        ("memory/decisions/keys.md", leaked),
    ]);
    let p = classify(&load(r), &text);
    assert_eq!(p.files[0].change, Change::Changed, "{:#?}", p.files[0]);
    assert!(
        p.files[0]
            .diff
            .as_deref()
            .unwrap()
            .contains("+Do it twice.")
    );
    assert_eq!(p.files[1].change, Change::Rejected);
    assert!(
        p.files[1]
            .reason
            .as_deref()
            .unwrap()
            .contains("a private key on line")
    );
}

#[test]
fn declined_entries_are_not_written_and_a_stale_file_stops_everything() {
    let dir = project("\n");
    let r = dir.path();
    let text = reply(&[
        ("memory/decisions/cache.md", decision("decision-cache", "Cache results")),
        (
            "memory/impressions.jsonl",
            impression("decision-cache", "memory/decisions/cache.md", r#""cache","results","ttl""#),
        ),
        ("memory/summary.md", "---\nid: summary\ntitle: Summary\nstatus: active\nscope: project:demo\nupdated: 2026-03-04\n---\n\n# Summary\n\n- [Old choice](./decisions/old.md)\n- [Cache](./decisions/cache.md)\n".into()),
    ]);
    let p = classify(&load(r), &text);
    assert!(
        p.files.iter().all(|f| f.change != Change::Rejected),
        "{p:#?}"
    );
    fs::write(r.join("memory/summary.md"), "edited by hand\n").unwrap();
    assert_eq!(
        apply(&tx(r), &p, &[]),
        Err(ApplyError::Stale(vec!["memory/summary.md".into()]))
    );
    assert!(!r.join("memory/decisions/cache.md").exists());
    // Declining the summary: the rest is written, the summary kept.
    let done = apply(&tx(r), &p, &[2]).unwrap();
    assert_eq!(done[2].change, Change::Rejected);
    assert_eq!(
        fs::read_to_string(r.join("memory/summary.md")).unwrap(),
        "edited by hand\n"
    );
    assert!(r.join("memory/decisions/cache.md").exists());
}

#[test]
fn a_later_block_for_the_same_record_wins() {
    let dir = project("\n");
    let r = dir.path();
    let text = reply(&[
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "First"),
        ),
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "Second"),
        ),
    ]);
    let p = classify(&load(r), &text);
    assert_eq!(p.files[0].change, Change::Rejected);
    assert_eq!(p.files[1].change, Change::New);
}

#[test]
fn lines_start_a_missing_impressions_file_and_end_an_unterminated_one() {
    let dir = project("");
    let r = dir.path();
    let line = impression(
        "decision-cache",
        "memory/decisions/cache.md",
        r#""cache","results","ttl""#,
    );
    let text = reply(&[
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "Cache results"),
        ),
        ("memory/impressions.jsonl", line.clone()),
    ]);
    // The last line has no line ending: the appended one starts on its own line.
    apply(&tx(r), &classify(&load(r), &text), &[]).unwrap();
    assert_eq!(
        fs::read_to_string(r.join("memory/impressions.jsonl")).unwrap(),
        format!("{OLD_LINE}\n{line}\n")
    );
    // No impressions file yet: the lines make it.
    fs::remove_file(r.join("memory/impressions.jsonl")).unwrap();
    fs::remove_file(r.join("memory/decisions/cache.md")).unwrap();
    let p = classify(&load(r), &text);
    assert_eq!(p.files[1].change, Change::New, "{:#?}", p.files[1]);
    apply(&tx(r), &p, &[]).unwrap();
    assert_eq!(
        fs::read_to_string(r.join("memory/impressions.jsonl")).unwrap(),
        format!("{line}\n")
    );
}

#[test]
fn a_line_routing_to_a_declined_new_record_is_not_appended() {
    let dir = project("\n");
    let r = dir.path();
    let before = fs::read(r.join("memory/impressions.jsonl")).unwrap();
    let text = reply(&[
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "Cache results"),
        ),
        (
            "memory/impressions.jsonl",
            impression(
                "decision-cache",
                "memory/decisions/cache.md",
                r#""cache","results","ttl""#,
            ),
        ),
    ]);
    let p = classify(&load(r), &text);
    assert_eq!(p.files[1].change, Change::Changed, "{p:#?}");
    let done = apply(&tx(r), &p, &[0]).unwrap();
    assert!(!r.join("memory/decisions/cache.md").exists());
    assert_eq!(done[1].change, Change::Rejected);
    assert!(
        done[1].reason.as_deref().unwrap().contains("not written"),
        "{:?}",
        done[1].reason
    );
    assert_eq!(
        fs::read(r.join("memory/impressions.jsonl")).unwrap(),
        before
    );
}

#[test]
fn control_characters_from_the_model_are_never_written() {
    let dir = project("\n");
    let r = dir.path();
    let hostile = decision("decision-escape", "Escape").replace("Do it.", "Do it.\x1b[2J\x07");
    let text = reply(&[
        ("memory/decisions/escape.md", hostile),
        (
            "memory/decisions/plain.md",
            decision("decision-plain", "Plain\tchoice"),
        ),
    ]);
    let p = classify(&load(r), &text);
    assert_eq!(p.files[0].change, Change::Rejected);
    let reason = p.files[0].reason.as_deref().unwrap();
    assert!(reason.contains("U+001B"), "{reason}");
    assert_ne!(p.files[1].change, Change::Rejected, "a tab is text: {p:#?}");
    apply(&tx(r), &p, &[]).unwrap();
    assert!(!r.join("memory/decisions/escape.md").exists());

    // Escaped in an impression line's JSON, it is the same escape.
    let line = impression(
        "decision-plain",
        "memory/decisions/plain.md",
        r#""plain","choice""#,
    )
    .replace("\"T decision-plain\"", "\"e\\u001b]0;pwned\\u0007\"");
    assert!(line.contains("\\u001b"), "{line}");
    let p = classify(&load(r), &reply(&[("memory/impressions.jsonl", line)]));
    assert_eq!(p.files[0].change, Change::Rejected, "{:#?}", p.files[0]);
    assert!(
        p.files[0].reason.as_deref().unwrap().contains("U+001B"),
        "{:#?}",
        p.files[0]
    );
}

#[test]
fn a_credential_is_refused_even_in_a_record_that_held_it_before() {
    let dir = project("\n");
    let r = dir.path();
    let token = format!("glpat-{}", "xY3zA6bC9dE2fG5hJ8kL");
    let old = decision("decision-old", "Old choice").replace("Because.", &format!("Use {token}."));
    fs::write(r.join("memory/decisions/old.md"), &old).unwrap();
    let updated = old.replace("Do it.", "Do it twice.");
    let p = classify(&load(r), &reply(&[("memory/decisions/old.md", updated)]));
    assert_eq!(p.files[0].change, Change::Rejected, "{:#?}", p.files[0]);
    let reason = p.files[0].reason.as_deref().unwrap();
    assert!(reason.contains("a GitLab token on line"), "{reason}");
    assert!(!reason.contains(&token), "{reason}");
}

#[test]
fn a_writeback_reports_each_file_it_changed_with_its_bytes_before_and_after() {
    let dir = project("\n");
    let r = dir.path();
    let new_line = impression(
        "decision-cache",
        "memory/decisions/cache.md",
        r#""cache","results","ttl""#,
    );
    let text = reply(&[
        (
            "memory/decisions/cache.md",
            decision("decision-cache", "Cache results"),
        ),
        ("memory/impressions.jsonl", new_line.clone()),
    ]);
    let p = classify(&load(r), &text);
    let lines_before = fs::read(r.join("memory/impressions.jsonl")).unwrap();
    let done = tx(r).commit_writeback(&p, &[]).unwrap();
    assert_eq!(
        done.written(),
        vec!["memory/decisions/cache.md", "memory/impressions.jsonl"]
    );
    let record = &done.changes[0];
    assert_eq!(record.before, None);
    assert_eq!(
        record.after.as_deref(),
        Some(decision("decision-cache", "Cache results").as_bytes())
    );
    // The impressions file: what was there, then the new line.
    let lines = &done.changes[1];
    assert_eq!(lines.before.as_deref(), Some(&lines_before[..]));
    let mut expected = lines_before.clone();
    expected.extend_from_slice(format!("{new_line}\n").as_bytes());
    assert_eq!(lines.after.as_deref(), Some(&expected[..]));
}

#[test]
fn an_impression_routing_into_private_memory_is_refused() {
    let dir = project("\n");
    let r = dir.path();
    let before = fs::read(r.join("memory/impressions.jsonl")).unwrap();
    let text = reply(&[(
        "memory/impressions.jsonl",
        impression("plan", "memory/private/plan.md", r#""plan""#),
    )]);
    let p = classify(&load(r), &text);
    assert_eq!(p.files[0].change, Change::Rejected, "{p:#?}");
    let reason = p.files[0].reason.as_deref().unwrap();
    assert!(reason.contains("routes into private memory"), "{reason}");
    apply(&tx(r), &p, &[]).unwrap();
    assert_eq!(
        fs::read(r.join("memory/impressions.jsonl")).unwrap(),
        before
    );
}

#[test]
fn each_impression_line_names_its_own_line_of_the_reply() {
    let dir = project("\n");
    let r = dir.path();
    let good = impression("again", "memory/decisions/old.md", r#""alpha""#);
    let private = impression("plan", "memory/private/plan.md", r#""plan""#);
    // Reply lines: 1 preamble, 2 blank, 3 marker, 4 fence, 5 good, 6 blank,
    // 7 private, 8 fence.
    let text = reply(&[(
        "memory/impressions.jsonl",
        format!("```jsonl\n{good}\n\n{private}\n```"),
    )]);
    let p = classify(&load(r), &text);
    let lines: Vec<(usize, Change)> = p.files.iter().map(|f| (f.line, f.change)).collect();
    assert_eq!(
        lines,
        [(5, Change::Changed), (7, Change::Rejected)],
        "{p:#?}"
    );
    assert!(
        p.files[1].outcome_line().contains("(line 7)"),
        "{}",
        p.files[1].outcome_line()
    );
}

/// A record refused because its folder is a link out of the project is
/// not written, and neither is the line routing to it: recall would load a
/// record membank never reads (or one that is not there at all).
#[cfg(unix)]
#[test]
fn a_route_to_a_record_refused_behind_a_linked_folder_is_refused_too() {
    let dir = project("\n");
    let r = dir.path();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), r.join("memory/open-loops")).unwrap();
    let before = fs::read(r.join("memory/impressions.jsonl")).unwrap();
    let text = reply(&[
        (
            "memory/open-loops/cache.md",
            record("open-loop-cache", "Cache", "## Next step\n\nMeasure.\n"),
        ),
        (
            "memory/impressions.jsonl",
            impression(
                "open-loop-cache",
                "memory/open-loops/cache.md",
                r#""cache","results","ttl""#,
            ),
        ),
    ]);
    // Whether or not a file of that name waits behind the link.
    for present in [false, true] {
        if present {
            fs::write(outside.path().join("cache.md"), "# Elsewhere\n").unwrap();
        }
        let p = classify(&load(r), &text);
        assert_eq!(p.files[0].change, Change::Rejected, "{p:#?}");
        assert_eq!(p.files[1].change, Change::Rejected, "{p:#?}");
        let reason = p.files[1].reason.as_deref().unwrap();
        assert!(reason.contains("record-path-missing"), "{reason}");
        apply(&tx(r), &p, &[]).unwrap();
        assert_eq!(
            fs::read(r.join("memory/impressions.jsonl")).unwrap(),
            before
        );
    }
}

#[test]
fn lines_withheld_from_the_model_are_put_back_or_the_block_is_refused() {
    let dir = project("\n");
    let r = dir.path();
    fs::create_dir_all(r.join("memory/private")).unwrap();
    fs::write(
        r.join("memory/private/plans.md"),
        format!(
            "---\nid: p\ntitle: P\nstatus: active\nscope: {SCOPE}\nupdated: 2026-05-16\n---\n# P\n"
        ),
    )
    .unwrap();
    let link = "- [Negotiation plans](./private/plans.md)";
    let summary = fs::read_to_string(r.join("memory/summary.md")).unwrap() + link + "\n";
    fs::write(r.join("memory/summary.md"), &summary).unwrap();
    // What the model was shown: the link line replaced by the marker.
    let project = load(r);
    let (shown, n) = crate::text::replace_lines(
        &summary,
        &project.lines_naming_private(SUMMARY_PATH),
        crate::dejavu::context::PRIVATE_LINE,
    );
    assert_eq!(n, 1);
    let edited = shown.replace("2026-01-02", "2026-03-04");

    // The marker kept: the user's line goes back where it stood.
    let p = classify(&project, &reply(&[(SUMMARY_PATH, edited.clone())]));
    assert_eq!(changes(&p), vec![(SUMMARY_PATH.into(), Change::Changed)]);
    apply(&tx(r), &p, &[]).unwrap();
    assert_eq!(
        fs::read_to_string(r.join(SUMMARY_PATH)).unwrap(),
        summary.replace("2026-01-02", "2026-03-04")
    );

    // The marker dropped: the block would delete the line; refused.
    let project = load(r);
    let dropped = edited.replace(crate::dejavu::context::PRIVATE_LINE, "");
    let p = classify(&project, &reply(&[(SUMMARY_PATH, dropped)]));
    assert_eq!(changes(&p), vec![(SUMMARY_PATH.into(), Change::Rejected)]);
    let why = p.files[0].reason.clone().unwrap();
    assert!(why.contains("drops 1 line"), "{why}");
    assert!(!why.contains("Negotiation"), "{why}");

    // A marker where nothing was withheld cannot be placed; refused.
    let ghost = decision("decision-new", "New").replace(
        "Do it.",
        &format!("Do it.\n{}", crate::dejavu::context::PRIVATE_LINE),
    );
    let p = classify(&project, &reply(&[("memory/decisions/new.md", ghost)]));
    assert_eq!(p.files[0].change, Change::Rejected, "{p:#?}");
    assert!(
        p.files[0].reason.as_deref().unwrap().contains("marker"),
        "{p:#?}"
    );
    assert!(
        fs::read_to_string(r.join(SUMMARY_PATH))
            .unwrap()
            .contains(link)
    );
}
