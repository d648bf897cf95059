//! A JSON Lines file for the Article pane: one record a line, cut to the
//! pane, so the file reads as the list it is; the record asked for is shown
//! again in full, pretty-printed, under its line.

use membank_core::text::sanitize_for_terminal;
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut;
use crate::tui::widgets::markdown::{LinkSpot, RenderedDoc};
use crate::tui::widgets::wrap::wrap;

/// Is the file at `rel` one record a line?
pub fn is_jsonl(rel: &str) -> bool {
    rel.to_ascii_lowercase().ends_with(".jsonl")
}

/// Lay out `text` at `width`, with record `open` (0-based) pretty-printed.
/// Each record's line is a link spot, so `n` / `N` step through them.
pub fn render_jsonl(text: &str, width: u16, theme: &Theme, open: Option<usize>) -> RenderedDoc {
    let width = usize::from(width.max(10));
    let mut doc = RenderedDoc::default();
    let records = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    for (record, (at, raw)) in records.enumerate() {
        let row = doc.lines.len();
        let shown = sanitize_for_terminal(raw.trim(), false);
        doc.lines.push(Line::from(Span::styled(
            cut(&shown, width).into_owned(),
            theme.link,
        )));
        doc.source_lines.push(at + 1);
        doc.links.push(LinkSpot {
            target: format!("record {}", record + 1),
            live: true,
            line: row,
            spans: vec![(row, 0)],
        });
        if open != Some(record) {
            continue;
        }
        // A line that is not JSON says so and is shown as written.
        let full = match serde_json::from_str::<serde_json::Value>(raw) {
            // The one JSON writer: what it escapes is shown as its escape.
            Ok(value) => membank_core::json::to_string(&value).unwrap_or_else(|_| raw.to_owned()),
            Err(e) => format!("not valid JSON ({e}):\n{raw}"),
        };
        for pretty in full.lines() {
            let indent = pretty.len() - pretty.trim_start().len();
            let safe = sanitize_for_terminal(pretty.trim_start(), false);
            let room = width.saturating_sub(2 + indent).max(8);
            for (i, piece) in wrap(&safe, room).into_iter().enumerate() {
                let lead = " ".repeat(2 + indent + if i > 0 { 2 } else { 0 });
                doc.lines.push(Line::from(vec![
                    Span::raw(lead),
                    Span::styled(piece, theme.code_block),
                ]));
                doc.source_lines.push(at + 1);
            }
        }
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(doc: &RenderedDoc) -> Vec<String> {
        doc.lines.iter().map(|l| l.to_string()).collect()
    }

    const FILE: &str = "{\"id\":\"a\",\"title\":\"Settings sync stays server-backed\",\"weight\":0.9}\n\
                        \n{\"id\":\"b\",\"keywords\":[\"x\",\"y\"]}\nnot json\n";

    #[test]
    fn one_record_a_line_and_the_open_one_pretty() {
        let theme = Theme::default_theme();
        let closed = render_jsonl(FILE, 30, &theme, None);
        assert_eq!(
            rows(&closed),
            [
                "{\"id\":\"a\",\"title\":\"Settings s…",
                "{\"id\":\"b\",\"keywords\":[\"x\",\"y\"…",
                "not json",
            ]
        );
        assert_eq!(closed.links.len(), 3);
        assert_eq!(closed.source_lines, [1, 3, 4]);
        let open = render_jsonl(FILE, 30, &theme, Some(1));
        assert_eq!(
            rows(&open),
            [
                "{\"id\":\"a\",\"title\":\"Settings s…",
                "{\"id\":\"b\",\"keywords\":[\"x\",\"y\"…",
                "  {",
                "    \"id\": \"b\",",
                "    \"keywords\": [",
                "      \"x\",",
                "      \"y\"",
                "    ]",
                "  }",
                "not json",
            ]
        );
        assert_eq!(open.links[2].line, 9);
        let bad = render_jsonl(FILE, 40, &theme, Some(2));
        assert!(rows(&bad)[3].contains("not valid JSON"), "{:?}", rows(&bad));
    }
}
