//! Deja Vu writeback as a prompt: the notes or conversation to write back,
//! and the project memory the model needs to update rather than duplicate
//! it: the summary and index, the records recall selects for the notes, a
//! list of every record, and the impression lines. Private memory is never
//! part of it. The reply is checked and classified by
//! `membank_core::dejavu::writeback`.

use membank_core::dejavu::context::PRIVATE_LINE;
use membank_core::dejavu::js::JsValue;
use membank_core::dejavu::recall::{MAX_DETAIL_RECORDS, WEAK};
use membank_core::dejavu::{INDEX_PATH, Project, SUMMARY_PATH, paths, recall};

use crate::agents::WRITER_MAX_TOKENS;
use crate::quoting::{self, MEMORY_IS_DATA};
use crate::request::{ChatRequest, Message};

/// Notes or a conversation to write back, with the name it is shown under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub name: String,
    pub text: String,
}

/// What is sent, and what was kept back and why.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedWriteback {
    pub request: ChatRequest,
    /// Records sent whole, in the order sent.
    pub records: Vec<String>,
    /// Private or unreadable paths that were not sent, with the reason.
    pub withheld: Vec<(String, &'static str)>,
    /// Records that did not fit `budget_tokens`.
    pub left_out: Vec<String>,
    /// Records sent with lines naming private memory replaced by a
    /// marker, and how many lines.
    pub withheld_lines: Vec<(String, usize)>,
}

/// Impression lines listed for the model at most; ids beyond are still
/// refused as duplicates by the checks.
const MAX_LISTED_IMPRESSIONS: usize = 400;

/// Build the writeback request. `budget_tokens` (chars/4, 0 = unlimited)
/// bounds the records sent whole; the summary comes first.
pub fn prepare_writeback(
    project: &Project,
    template: &str,
    notes: &[Note],
    today: &str,
    budget_tokens: usize,
) -> PreparedWriteback {
    let mut withheld: Vec<(String, &'static str)> = Vec::new();
    let mut withheld_lines = Vec::new();
    let mut user = format!("Today's date: {today}\n\n## Notes to write back\n\n");
    for note in notes {
        push_text(&mut user, &format!("note: {}", note.name), &note.text);
    }
    let cue = notes
        .iter()
        .map(|n| n.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let mut wanted: Vec<String> = vec![SUMMARY_PATH.into(), INDEX_PATH.into()];
    let found = recall(project.impressions.as_ref(), &cue);
    for m in found.matches.iter().filter(|m| m.score >= WEAK) {
        if let Some(JsValue::String(p)) = &m.record_path
            && let Some(p) = paths::resolve_from("", p)
            && !wanted.contains(&p)
        {
            wanted.push(p);
            if wanted.len() == 2 + MAX_DETAIL_RECORDS {
                break;
            }
        }
    }

    user.push_str(&format!("## The project's memory\n\n{MEMORY_IS_DATA}\n\n"));
    let mut memory = String::new();
    let mut records = Vec::new();
    let mut left_out = Vec::new();
    let mut used_tokens = 0;
    for path in wanted {
        if project.is_private(&path) {
            withheld.push((path, "private memory is never sent to a model"));
            continue;
        }
        let Some(record) = project.record(&path) else {
            continue;
        };
        let tokens = record.text.chars().count().div_ceil(4);
        if budget_tokens > 0 && used_tokens + tokens > budget_tokens {
            left_out.push(path);
            continue;
        }
        used_tokens += tokens;
        // A shared record's lines that link into private memory say what
        // it holds and where: they are withheld too.
        let (text, replaced) = membank_core::text::replace_lines(
            &record.text,
            &project.lines_naming_private(&path),
            PRIVATE_LINE,
        );
        if replaced > 0 {
            withheld_lines.push((path.clone(), replaced));
        }
        push_text(&mut memory, &path, &text);
        records.push(path);
    }

    memory.push_str("### Every record (path | id | title | status)\n\n");
    for r in &project.records {
        if r.private {
            // Once per record, though recall may have routed to it too.
            if !withheld.iter().any(|(p, _)| *p == r.path) {
                withheld.push((r.path.clone(), "private memory is never sent to a model"));
            }
            continue;
        }
        memory.push_str(&format!(
            "- {} | {} | {} | {}\n",
            r.path,
            r.id().unwrap_or("-"),
            r.title(),
            r.status()
        ));
    }
    memory.push_str("\n### memory/impressions.jsonl\n\n");
    let mut listed = 0;
    if let Some(imp) = &project.impressions {
        for (i, line) in imp.lines.iter().enumerate() {
            let routes_private = project
                .route(i)
                .and_then(|p| paths::resolve_from("", p))
                .is_some_and(|p| project.is_private(&p));
            if routes_private {
                continue;
            }
            if listed == MAX_LISTED_IMPRESSIONS {
                memory.push_str("(further lines left out)\n");
                break;
            }
            memory.push_str(imp.text[line.span.clone()].trim());
            memory.push('\n');
            listed += 1;
        }
    }
    if listed == 0 {
        memory.push_str("(no impressions yet)\n");
    }
    user.push_str(&quoting::quote(&memory));
    PreparedWriteback {
        request: ChatRequest {
            system: template.trim_end().to_owned(),
            messages: vec![Message::user(user)],
            max_tokens: WRITER_MAX_TOKENS,
            temperature: None,
        },
        records,
        withheld,
        left_out,
        withheld_lines,
    }
}

fn push_text(out: &mut String, name: &str, text: &str) {
    out.push_str(&format!("----- {name} -----\n{text}"));
    if !text.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn private_memory_never_reaches_the_prompt() {
        let tmp = tempfile::tempdir().unwrap();
        let r = tmp.path();
        fs::create_dir_all(r.join("memory/private")).unwrap();
        fs::create_dir_all(r.join("memory/decisions")).unwrap();
        fs::write(r.join("memory/summary.md"), "# Summary\nshared\n").unwrap();
        fs::write(r.join("memory/private/plan.md"), "hidden plan\n").unwrap();
        fs::write(r.join("memory/decisions/cache.md"), "cache decision text\n").unwrap();
        fs::write(
            r.join("memory/impressions.jsonl"),
            concat!(
                r#"{"id":"p","title":"cache","keywords":["cache"],"record_path":"memory/private/plan.md","weight":1}"#,
                "\n",
                r#"{"id":"c","title":"cache","keywords":["cache"],"record_path":"memory/decisions/cache.md","weight":1}"#,
                "\n"
            ),
        )
        .unwrap();
        let project = Project::load(r).unwrap();
        let notes = [Note {
            name: "session".into(),
            text: "We changed the cache.".into(),
        }];
        let p = prepare_writeback(&project, "TEMPLATE", &notes, "2026-03-04", 0);
        let user = &p.request.messages[0].content;
        assert_eq!(p.request.system, "TEMPLATE");
        assert!(user.contains("Today's date: 2026-03-04"));
        assert!(user.contains("We changed the cache."));
        assert!(user.contains("cache decision text"), "{user}");
        assert!(
            !user.contains("hidden plan") && !user.contains("memory/private"),
            "{user}"
        );
        assert_eq!(
            p.records,
            vec!["memory/summary.md", "memory/decisions/cache.md"]
        );
        // Once, though recall routed to it and it is also in the list.
        let named: Vec<&str> = p.withheld.iter().map(|(w, _)| w.as_str()).collect();
        assert_eq!(named, ["memory/private/plan.md"]);
    }

    /// A shared record is sent without its lines that link into private
    /// memory: the link's words and path say what it holds.
    #[test]
    fn a_shared_record_is_sent_without_its_links_into_private_memory() {
        let tmp = tempfile::tempdir().unwrap();
        let r = tmp.path();
        fs::create_dir_all(r.join("memory/private")).unwrap();
        fs::write(
            r.join("memory/summary.md"),
            "# Summary\nshared line\n- [Zebra takeover plan](./private/plan.md)\nlast line\n",
        )
        .unwrap();
        fs::write(r.join("memory/private/plan.md"), "hidden plan\n").unwrap();
        let project = Project::load(r).unwrap();
        let notes = [Note {
            name: "session".into(),
            text: "Summary".into(),
        }];
        let p = prepare_writeback(&project, "TEMPLATE", &notes, "2026-03-04", 0);
        let user = &p.request.messages[0].content;
        assert!(
            user.contains("shared line") && user.contains("last line"),
            "{user}"
        );
        assert!(
            !user.contains("Zebra") && !user.contains("private/plan"),
            "{user}"
        );
        assert!(user.contains(PRIVATE_LINE), "{user}");
        // Said, as the whole records withheld are.
        assert_eq!(p.withheld_lines, vec![("memory/summary.md".to_owned(), 1)]);
    }

    /// A link committed in a shared folder that leads into private memory
    /// is withheld like the file it leads to.
    #[cfg(unix)]
    #[test]
    fn a_link_into_private_memory_never_reaches_the_prompt() {
        let tmp = tempfile::tempdir().unwrap();
        let r = tmp.path();
        fs::create_dir_all(r.join("memory/private")).unwrap();
        fs::create_dir_all(r.join("memory/decisions")).unwrap();
        fs::write(r.join("memory/summary.md"), "# Summary\nshared\n").unwrap();
        fs::write(r.join("memory/private/plans.md"), "hidden plan\n").unwrap();
        std::os::unix::fs::symlink("../private/plans.md", r.join("memory/decisions/alias.md"))
            .unwrap();
        fs::write(
            r.join("memory/impressions.jsonl"),
            concat!(
                r#"{"id":"a","title":"cache","keywords":["cache"],"record_path":"memory/decisions/alias.md","weight":1}"#,
                "\n"
            ),
        )
        .unwrap();
        let project = Project::load(r).unwrap();
        let notes = [Note {
            name: "session".into(),
            text: "We changed the cache.".into(),
        }];
        let p = prepare_writeback(&project, "TEMPLATE", &notes, "2026-03-04", 0);
        let user = &p.request.messages[0].content;
        assert!(
            !user.contains("hidden plan") && !user.contains("alias.md"),
            "{user}"
        );
        assert_eq!(p.records, vec!["memory/summary.md"]);
        assert!(
            p.withheld
                .iter()
                .any(|(w, _)| w == "memory/decisions/alias.md")
        );
    }
}
