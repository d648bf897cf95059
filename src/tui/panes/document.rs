//! How the Article pane lays out a document of a layout other than a bank:
//! frontmatter and Markdown body, the links and backlinks the layout
//! reports, and for a file that holds entries (an everos daily log) the
//! list of its entries or one entry on its own.

use std::collections::HashMap;

use membank_core::memory::{DocId, Memory, Resolution, SearchUnit};
use std::path::Path;

use membank_core::safe_read::RootReader;
use membank_core::text::{self, sanitize_for_terminal};
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;
use crate::tui::widgets::jsonl;
use crate::tui::widgets::markdown::{LinkSpot, RenderedDoc, render_article, render_markdown};

/// A document laid out for the Article pane.
pub struct Laid {
    pub doc: RenderedDoc,
    pub header: String,
    /// Where each link of `doc` leads (relative path), `None` when dead.
    pub dests: Vec<Option<String>>,
    /// For links that are rows of an entry list: the entry they open.
    pub entries: Vec<Option<EntryAt>>,
}

/// An entry of a file, as its row in the list or a search hit names it:
/// its id and a line of the file inside it. An id names one entry in a
/// log everos wrote, but a file may repeat one (`everos-duplicate-entry-id`)
/// and the list shows each: the line tells them apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryAt {
    pub id: String,
    /// 1-based: the open marker's, or any line of the entry.
    pub line: usize,
}

impl EntryAt {
    /// The entry of `units` this names: the last with its id that starts
    /// at or before its line, else the first with its id.
    fn find<'u, 'a>(&self, units: &'u [SearchUnit<'a>]) -> Option<&'u SearchUnit<'a>> {
        let same = || {
            units
                .iter()
                .filter(|u| u.entry_id == Some(self.id.as_str()))
        };
        same()
            .rfind(|u| u.entry_line.unwrap_or(u.line) <= self.line)
            .or_else(|| same().next())
    }
}

fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

/// Lay out `rel` (and the entry `entry` inside it, when given); in a
/// JSONL file, `record` is the record shown in full.
pub fn lay_out(
    memory: &dyn Memory,
    rel: &str,
    entry: Option<&EntryAt>,
    record: Option<usize>,
    theme: &Theme,
    width: u16,
) -> Laid {
    let Some(id) = memory.find(rel) else {
        return Laid {
            doc: other_file(memory, rel, theme, width),
            header: safe(rel),
            dests: Vec::new(),
            entries: Vec::new(),
        };
    };
    let d = memory.document(id);
    let units = memory.entries(id);
    let title = safe(&d.title);
    if let Some(wanted) = entry {
        let header = format!("{title} › {} — {}", safe(&wanted.id), safe(rel));
        let doc = match wanted.find(&units) {
            Some(u) => entry_doc(u, theme, width),
            None => message(&format!("{rel}: no entry {}", wanted.id), theme),
        };
        return Laid {
            doc,
            header,
            dests: Vec::new(),
            entries: Vec::new(),
        };
    }
    let header = format!("{title} — {}", safe(rel));
    let links = memory.links(id);
    // What each written target resolves to, from the layout itself: it
    // knows how its links resolve (relative paths, routes).
    let resolved: HashMap<&str, Option<String>> = links
        .iter()
        .map(|l| (l.target, destination(memory, &l.resolution)))
        .collect();
    let live = |t: &str| resolved.get(t).is_some_and(Option::is_some);
    let (mut doc, mut dests, mut entries);
    if units.is_empty() && jsonl::is_jsonl(rel) {
        doc = jsonl::render_jsonl(d.text, width, theme, record);
        dests = vec![None; doc.links.len()];
        entries = vec![None; doc.links.len()];
    } else if units.is_empty() {
        doc = render_article(d.text, width, theme, &live);
        dests = doc
            .links
            .iter()
            .map(|l| resolved.get(l.target.as_str()).cloned().flatten())
            .collect();
        entries = vec![None; doc.links.len()];
    } else {
        // The frontmatter as properties, then one row per entry.
        doc = render_article(
            &d.text[..d.body_start.min(d.text.len())],
            width,
            theme,
            &live,
        );
        dests = vec![None; doc.links.len()];
        entries = vec![None; doc.links.len()];
        append_entry_list(&units, rel, &mut doc, &mut dests, &mut entries, theme);
    }
    // A JSONL file's rows are its records; `n` steps through them alone.
    if !jsonl::is_jsonl(rel) {
        append_link_lists(memory, id, &mut doc, &mut dests, theme);
    }
    entries.resize(doc.links.len(), None);
    Laid {
        doc,
        header,
        dests,
        entries,
    }
}

/// A file of the memory's folder that the layout does not read as a
/// document (a finding can name one): read with the same limits as
/// loading, shown as Markdown.
fn other_file(memory: &dyn Memory, rel: &str, theme: &Theme, width: u16) -> RenderedDoc {
    let read = RootReader::for_root(memory.root())
        .map_err(|e| e.to_string())
        .and_then(|r| r.read(Path::new(rel)).map_err(|e| super::read_problem(&e)))
        .and_then(|bytes| text::decode(&bytes).map_err(|e| e.to_string()));
    match read {
        Ok(d) => render_article(&d.text, width, theme, &|_| false),
        Err(e) => message(&format!("{rel}: {e}"), theme),
    }
}

fn destination(memory: &dyn Memory, r: &Resolution) -> Option<String> {
    r.target().map(|to| memory.document(to).path.to_owned())
}

fn message(msg: &str, theme: &Theme) -> RenderedDoc {
    RenderedDoc {
        lines: vec![Line::styled(safe(msg), theme.error)],
        ..RenderedDoc::default()
    }
}

/// One entry rendered as Markdown, its lines counted as in the file.
fn entry_doc(u: &SearchUnit, theme: &Theme, width: u16) -> RenderedDoc {
    let mut doc = render_markdown(u.text, width, theme, &|_| false);
    for l in doc.source_lines.iter_mut().chain(&mut doc.source_ends) {
        *l += u.line - 1;
    }
    doc.lines.insert(
        0,
        Line::styled(
            // The marker's line, as `entries` and the MCP tools name it;
            // the text itself starts below it.
            format!(
                "entry {} · line {}",
                safe(u.entry_id.unwrap_or("")),
                u.entry_line.unwrap_or(u.line)
            ),
            theme.muted,
        ),
    );
    doc.source_lines.insert(0, u.line);
    doc.source_ends.insert(0, u.line);
    for l in &mut doc.links {
        l.line += 1;
        for s in &mut l.spans {
            s.0 += 1;
        }
    }
    doc
}

/// The time of day an entry records (`**timestamp**: 2026-06-01T07:01:47…`),
/// as `HH:MM`: only a real date and time, in any form everos's schema
/// reads one (`2026-06-01 07:45:00+00:00` too), never `25:99`.
pub fn entry_time(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let (key, value) = line.split_once(':')?;
        let key = key.trim().trim_matches('*').trim();
        if !key.eq_ignore_ascii_case("timestamp") {
            return None;
        }
        let (_, time) = membank_core::everos::lax_time::text_time_of_day(value)?;
        Some(time.strftime("%H:%M").to_string())
    })
}

/// The first line of an entry's content: headings and `**key**: value`
/// metadata lines are skipped.
pub fn entry_first_line(text: &str) -> &str {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let all: Vec<&str> = lines.by_ref().collect();
    all.iter()
        .find(|l| !(l.starts_with('#') || is_metadata(l)))
        .or(all.first())
        .copied()
        .unwrap_or("")
}

/// A `**key**: value` line, as everos writes an entry's fields.
fn is_metadata(line: &str) -> bool {
    line.starts_with("**") && line.contains("**:")
}

fn append_entry_list(
    units: &[SearchUnit],
    rel: &str,
    doc: &mut RenderedDoc,
    dests: &mut Vec<Option<String>>,
    entries: &mut Vec<Option<EntryAt>>,
    theme: &Theme,
) {
    doc.lines.push(Line::default());
    doc.lines.push(Line::styled(
        format!("Entries ({})", units.len()),
        theme.heading3,
    ));
    for u in units {
        let id = u.entry_id.unwrap_or("");
        let line_no = doc.lines.len();
        let mut spans = vec![Span::raw("  "), Span::styled(safe(id), theme.link)];
        if let Some(time) = entry_time(u.text) {
            spans.push(Span::styled(format!("  {time}"), theme.muted));
        }
        spans.push(Span::styled(
            format!("  {}", safe(entry_first_line(u.text))),
            theme.text,
        ));
        doc.lines.push(Line::from(spans));
        doc.source_lines.resize(line_no, 0);
        doc.source_lines.push(u.line);
        doc.links.push(LinkSpot {
            target: id.to_owned(),
            live: true,
            line: line_no,
            spans: vec![(line_no, 1)],
        });
        dests.push(Some(rel.to_owned()));
        entries.push(Some(EntryAt {
            id: id.to_owned(),
            line: u.entry_line.unwrap_or(u.line),
        }));
    }
}

/// "Links" and "Backlinks" sections whose rows are followed like links.
fn append_link_lists(
    memory: &dyn Memory,
    id: DocId,
    doc: &mut RenderedDoc,
    dests: &mut Vec<Option<String>>,
    theme: &Theme,
) {
    let links = memory.links(id);
    let backlinks = memory.backlinks(id);
    if links.is_empty() && backlinks.is_empty() {
        return;
    }
    doc.lines.push(Line::default());
    doc.lines.push(Line::styled("─".repeat(20), theme.rule));
    let mut seen = std::collections::BTreeSet::new();
    let outgoing: Vec<_> = links.iter().filter(|l| seen.insert(l.target)).collect();
    doc.lines.push(Line::styled(
        format!("Links ({})", outgoing.len()),
        theme.heading3,
    ));
    for l in outgoing {
        let dest = destination(memory, &l.resolution);
        let line_no = doc.lines.len();
        let shown = match &dest {
            Some(rel) => format!("→ {}", safe(rel)),
            None => "(nothing there)".to_owned(),
        };
        doc.lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(
                safe(l.target),
                if dest.is_some() {
                    theme.link
                } else {
                    theme.dead_link
                },
            ),
            Span::styled(format!("  L{}  {shown}", l.line), theme.muted),
        ]));
        doc.links.push(LinkSpot {
            target: l.target.to_owned(),
            live: dest.is_some(),
            line: line_no,
            spans: vec![(line_no, 1)],
        });
        dests.push(dest);
    }
    doc.lines.push(Line::default());
    doc.lines.push(Line::styled(
        format!("Backlinks ({})", backlinks.len()),
        theme.heading3,
    ));
    for from in backlinks {
        let path = memory.document(from).path.to_owned();
        let line_no = doc.lines.len();
        doc.lines.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(safe(&path), theme.link),
        ]));
        doc.links.push(LinkSpot {
            target: path.clone(),
            live: true,
            line: line_no,
            spans: vec![(line_no, 1)],
        });
        dests.push(Some(path));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_shows_its_time_and_first_line_of_content() {
        let text = "## ep_20260601_00000001\n\n**owner_id**: d\n**timestamp**: 2026-06-01T07:01:47+00:00\n\n### Subject\nAPI keys\n";
        assert_eq!(entry_time(text).as_deref(), Some("07:01"));
        assert_eq!(entry_first_line(text), "API keys");
        assert_eq!(entry_time("no time here"), None);
        // A time only when it is a real one, in every form a timestamp
        // takes; an impossible one is no time.
        let at = |t: &str| entry_time(&format!("**timestamp**: {t}\n"));
        assert_eq!(at("2026-06-01 07:45:00+00:00").as_deref(), Some("07:45"));
        assert_eq!(at("2026-06-01t23:05Z").as_deref(), Some("23:05"));
        assert_eq!(at("2026-06-01T25:99:00+00:00"), None);
        assert_eq!(at("2026-06-01T07:45:00+99:00"), None);
        assert_eq!(at("2026-06-01"), None);
        assert_eq!(entry_first_line("## only a heading"), "## only a heading");
    }
}
