//! Search inside the open article: every match of the typed text in the
//! rendered lines (case-insensitive), stepped through with `n` / `N`, and
//! the lines holding matches restyled so the matches stand out.

use std::collections::HashMap;

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

/// One match: rendered row and the char range within it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub row: usize,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone, Default)]
pub struct ArticleSearch {
    pub query: String,
    /// Keys go to the query.
    pub typing: bool,
    pub hits: Vec<Hit>,
    /// Index into `hits` of the match shown.
    pub current: Option<usize>,
    /// The rows that hold matches, restyled; drawn instead of the plain row.
    pub lines: HashMap<usize, Line<'static>>,
}

/// Case folding for the comparison, char by char so positions stay put.
fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

impl ArticleSearch {
    /// Find the query in `rows` again (after typing, or a new layout) and
    /// make the first match at or below `from_row` the current one.
    pub fn find(&mut self, rows: &[Line<'static>], from_row: usize, theme: &Theme) {
        self.hits.clear();
        let needle: Vec<char> = self.query.chars().map(fold).collect();
        if !needle.is_empty() {
            for (row, line) in rows.iter().enumerate() {
                let hay: Vec<char> = line
                    .spans
                    .iter()
                    .flat_map(|s| s.content.chars())
                    .map(fold)
                    .collect();
                let mut at = 0;
                while at + needle.len() <= hay.len() {
                    if hay[at..at + needle.len()] == needle[..] {
                        self.hits.push(Hit {
                            row,
                            start: at,
                            end: at + needle.len(),
                        });
                        at += needle.len();
                    } else {
                        at += 1;
                    }
                }
            }
        }
        self.current = self
            .hits
            .iter()
            .position(|h| h.row >= from_row)
            .or((!self.hits.is_empty()).then_some(0));
        self.restyle(rows, theme);
    }

    /// Move to the next (`forward`) or previous match, wrapping around.
    /// Returns the row of the new current match.
    pub fn step(&mut self, forward: bool, rows: &[Line<'static>], theme: &Theme) -> Option<usize> {
        let n = self.hits.len();
        if n == 0 {
            return None;
        }
        let next = match self.current {
            None => 0,
            Some(i) if forward => (i + 1) % n,
            Some(i) => (i + n - 1) % n,
        };
        self.current = Some(next);
        self.restyle(rows, theme);
        Some(self.hits[next].row)
    }

    /// The row of the current match.
    pub fn current_row(&self) -> Option<usize> {
        self.current.map(|i| self.hits[i].row)
    }

    /// "3/12" or "no match".
    pub fn position(&self) -> String {
        match self.current {
            Some(i) => format!("{}/{}", i + 1, self.hits.len()),
            None => "no match".to_owned(),
        }
    }

    fn restyle(&mut self, rows: &[Line<'static>], theme: &Theme) {
        self.lines.clear();
        let current = self.current.map(|i| self.hits[i]);
        let mut by_row: HashMap<usize, Vec<(usize, usize, bool)>> = HashMap::new();
        for h in &self.hits {
            by_row
                .entry(h.row)
                .or_default()
                .push((h.start, h.end, Some(*h) == current));
        }
        for (row, ranges) in by_row {
            if let Some(line) = rows.get(row) {
                self.lines.insert(row, highlight(line, &ranges, theme));
            }
        }
    }
}

/// `line` with the char ranges restyled: matches underlined in the match
/// colour, the current one in reverse video.
fn highlight(
    line: &Line<'static>,
    ranges: &[(usize, usize, bool)],
    theme: &Theme,
) -> Line<'static> {
    let mark = |current: bool| -> Style {
        let base = theme.matched.add_modifier(Modifier::UNDERLINED);
        if current {
            base.add_modifier(Modifier::REVERSED)
        } else {
            base
        }
    };
    let mut spans = Vec::new();
    let mut pos = 0;
    for span in &line.spans {
        let chars: Vec<char> = span.content.chars().collect();
        let mut piece = String::new();
        let mut piece_style: Option<Style> = None;
        for c in chars {
            let hit = ranges.iter().find(|(s, e, _)| pos >= *s && pos < *e);
            let style = match hit {
                Some((_, _, cur)) => span.style.patch(mark(*cur)),
                None => span.style,
            };
            if piece_style != Some(style) && !piece.is_empty() {
                spans.push(Span::styled(
                    std::mem::take(&mut piece),
                    piece_style.unwrap_or(style),
                ));
            }
            piece_style = Some(style);
            piece.push(c);
            pos += 1;
        }
        if !piece.is_empty() {
            spans.push(Span::styled(piece, piece_style.unwrap_or(span.style)));
        }
    }
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_ignore_case_step_around_and_are_marked() {
        let theme = Theme::default_theme();
        let rows = vec![
            Line::from(vec![Span::raw("The "), Span::raw("Batch record")]),
            Line::raw("nothing here"),
            Line::raw("batch, BATCH"),
        ];
        let mut s = ArticleSearch {
            query: "batch".into(),
            ..ArticleSearch::default()
        };
        s.find(&rows, 1, &theme);
        assert_eq!(s.hits.len(), 3);
        // The first match at or below the row in view.
        assert_eq!(s.current_row(), Some(2));
        assert_eq!(s.position(), "2/3");
        assert_eq!(s.step(true, &rows, &theme), Some(2));
        assert_eq!(s.step(true, &rows, &theme), Some(0), "wraps around");
        let marked = &s.lines[&0];
        let text: String = marked.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "The Batch record", "the text is unchanged");
        let hit = marked.spans.iter().find(|s| s.content == "Batch").unwrap();
        assert!(hit.style.add_modifier.contains(Modifier::REVERSED));
        s.query = "zzz".into();
        s.find(&rows, 0, &theme);
        assert_eq!(s.position(), "no match");
    }
}
