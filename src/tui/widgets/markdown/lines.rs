//! Assembling rendered lines: the quote and list prefixes, wrapping runs of
//! styled text to the width, and the helpers that measure and cut them.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{Frag, Renderer};
use crate::tui::widgets::cut::{MORE, head_within};

impl Renderer<'_> {
    pub(super) fn prefix_spans(&self, first: bool) -> Vec<Frag> {
        let mut out: Vec<Frag> = self.prefixes.clone();
        if first && let Some(p) = &self.first_prefix {
            // The marker replaces the last indentation level.
            out.pop();
            out.extend(p.iter().cloned());
        }
        out
    }

    /// Wrap and emit the collected paragraph.
    pub(super) fn flush(&mut self) {
        if self.current.is_empty() && self.first_prefix.is_none() {
            return;
        }
        let frags = std::mem::take(&mut self.current);
        let first = self.prefix_spans(true);
        let rest = self.prefix_spans(false);
        self.first_prefix = None;
        self.emit_wrapped(frags, first, rest);
        self.last_blank = false;
    }

    pub(super) fn emit_wrapped(&mut self, frags: Vec<Frag>, first: Vec<Frag>, rest: Vec<Frag>) {
        let mut prefix = first;
        let mut line: Vec<Frag> = Vec::new();
        let mut used = 0usize;
        let mut budget = self.width.saturating_sub(frag_width(&prefix)).max(4);
        let rest_budget = self.width.saturating_sub(frag_width(&rest)).max(4);
        for word in words(frags) {
            let w = frag_width(&word);
            let is_space = word.iter().all(|f| f.text.chars().all(|c| c == ' '));
            if used + w > budget && used > 0 {
                if is_space {
                    continue;
                }
                self.push_line(std::mem::replace(&mut prefix, rest.clone()), &mut line);
                used = 0;
                budget = rest_budget;
            }
            if used == 0 && is_space && !line.is_empty() {
                continue;
            }
            if w <= budget {
                line.extend(word);
                used += w;
                continue;
            }
            // A word longer than the line: break it by characters.
            for piece in word {
                let mut chunk = String::new();
                for c in piece.text.chars() {
                    let cw = c.width().unwrap_or(0);
                    if used + cw > budget {
                        line.push(Frag {
                            text: std::mem::take(&mut chunk),
                            ..piece.clone()
                        });
                        self.push_line(std::mem::replace(&mut prefix, rest.clone()), &mut line);
                        used = 0;
                        budget = rest_budget;
                    }
                    chunk.push(c);
                    used += cw;
                }
                line.push(Frag {
                    text: chunk,
                    ..piece
                });
            }
        }
        self.push_line(prefix, &mut line);
    }

    /// Emit one rendered line, merging neighbouring fragments of the same
    /// style and recording where links landed.
    pub(super) fn push_line(&mut self, prefix: Vec<Frag>, body: &mut Vec<Frag>) {
        let line_no = self.doc.lines.len();
        // The row's place in the file is where its own text came from: a
        // paragraph is collected whole, so `src_line` is its last line.
        let mut from_file = body
            .iter()
            .filter(|f| f.line > 0 && !f.text.trim().is_empty())
            .map(|f| f.line);
        let first = from_file.next();
        let (first, last) = match first {
            Some(first) => (first, from_file.next_back().unwrap_or(first)),
            None => (self.src_line, self.src_line),
        };
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut span_links: Vec<Option<usize>> = Vec::new();
        for frag in prefix.into_iter().chain(body.drain(..)) {
            if frag.text.is_empty() {
                continue;
            }
            if let (Some(last), Some(last_link)) = (spans.last_mut(), span_links.last())
                && last.style == frag.style
                && *last_link == frag.link
            {
                last.content.to_mut().push_str(&frag.text);
                continue;
            }
            spans.push(Span::styled(frag.text, frag.style));
            span_links.push(frag.link);
        }
        // Trailing spaces only cost bytes on the terminal.
        if let Some(last) = spans.last_mut() {
            let trimmed = last.content.trim_end().len();
            last.content.to_mut().truncate(trimmed);
        }
        for (i, link) in span_links.iter().enumerate() {
            if let Some(id) = link {
                let spot = &mut self.doc.links[*id];
                if spot.spans.is_empty() {
                    spot.line = line_no;
                }
                spot.spans.push((line_no, i));
            }
        }
        self.doc.lines.push(Line::from(spans));
        self.doc.source_lines.push(first);
        self.doc.source_ends.push(last);
    }

    pub(super) fn raw_line(&mut self, frags: Vec<Frag>) {
        let mut body = frags;
        let prefix = self.prefix_spans(false);
        self.push_line(prefix, &mut body);
        self.last_blank = false;
    }
}

pub(super) fn spaces(n: usize, style: Style) -> Frag {
    Frag {
        text: " ".repeat(n),
        style,
        link: None,
        line: 0,
    }
}

pub(super) fn frag_width(frags: &[Frag]) -> usize {
    frags.iter().map(|f| f.text.width()).sum()
}

/// Cut fragments to `width` columns, ending with `…` when cut.
pub(super) fn fit(frags: Vec<Frag>, width: usize) -> Vec<Frag> {
    if frag_width(&frags) <= width {
        return frags;
    }
    let mut out = Vec::new();
    let room = width.saturating_sub(1);
    let mut used = 0;
    for frag in frags {
        let (head, w) = head_within(&frag.text, room - used);
        let cut = head.len() < frag.text.len();
        used += w;
        out.push(Frag {
            text: head.to_owned(),
            ..frag
        });
        if cut {
            break;
        }
    }
    out.push(Frag {
        text: MORE.into(),
        style: Style::new(),
        link: None,
        line: 0,
    });
    out
}

pub(super) fn trim_prefix(prefix: Vec<Frag>) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = prefix
        .into_iter()
        .map(|f| Span::styled(f.text, f.style))
        .collect();
    if let Some(last) = spans.last_mut() {
        let t = last.content.trim_end().len();
        last.content.to_mut().truncate(t);
    }
    spans.retain(|s| !s.content.is_empty());
    spans
}

/// The fragments as words and runs of spaces, each made of the pieces of
/// the fragments it spans: a word styled in parts, such as `[[` and the
/// link text, or a link and the `.` after it, wraps as one.
fn words(frags: Vec<Frag>) -> Vec<Vec<Frag>> {
    let mut out: Vec<Vec<Frag>> = Vec::new();
    let mut last_space: Option<bool> = None;
    for frag in frags {
        for piece in split_keep_spaces(&frag.text) {
            let space = piece.starts_with(' ');
            let piece = Frag {
                text: piece.to_owned(),
                ..frag.clone()
            };
            match out.last_mut() {
                Some(word) if last_space == Some(space) => word.push(piece),
                _ => out.push(vec![piece]),
            }
            last_space = Some(space);
        }
    }
    out
}

/// Split into words and runs of spaces, keeping both, so wrapping can drop
/// spaces at line breaks and keep them elsewhere.
pub(super) fn split_keep_spaces(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space: Option<bool> = None;
    for (i, c) in s.char_indices() {
        let space = c == ' ';
        if in_space.is_some_and(|prev| prev != space) {
            out.push(&s[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}
