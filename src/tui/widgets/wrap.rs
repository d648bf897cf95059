//! Word wrapping for text the agents show, so a pane knows how many rows
//! a reply takes (to keep the newest text in view).

use membank_core::text::sanitize_for_terminal;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Split `text` into rows at most `width` columns wide, breaking at
/// spaces where possible and inside a word only when it is too long.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let w_of = |s: &str| s.chars().map(|c| c.width().unwrap_or(0)).sum::<usize>();
    let mut rows = Vec::new();
    for line in text.split('\n') {
        let mut row = String::new();
        let mut row_w = 0;
        let mut first = true;
        for word in line.split(' ') {
            let word_w = w_of(word);
            if !first {
                if row_w + 1 + word_w <= width {
                    row.push(' ');
                    row.push_str(word);
                    row_w += 1 + word_w;
                    continue;
                }
                rows.push(std::mem::take(&mut row));
                row_w = 0;
            }
            first = false;
            for c in word.chars() {
                let w = c.width().unwrap_or(0);
                if row_w + w > width && !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                    row_w = 0;
                }
                row.push(c);
                row_w += w;
            }
        }
        rows.push(row);
    }
    rows
}

/// Wrap a styled line to rows at most `width` columns wide, breaking at
/// spaces, each row after the first indented by `indent` columns so a
/// wrapped row still reads as part of its item.
pub fn wrap_line(line: &Line<'_>, width: usize, indent: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    // Past half the width an indent leaves too little room to be worth it.
    let indent = if indent * 2 > width { 0 } else { indent };
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    let push = |rows: &mut Vec<Vec<Span<'static>>>, text: &str, style: Style| {
        let row = rows.last_mut().expect("a row is always open");
        match row.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => row.push(Span::styled(text.to_owned(), style)),
        }
    };
    for word in words(line) {
        let word_w: usize = word.iter().map(|(t, _)| t.width()).sum();
        let is_space = word.iter().all(|(t, _)| t.chars().all(|c| c == ' '));
        if used + word_w > width && used > indent {
            if is_space {
                continue;
            }
            rows.push(vec![Span::styled(" ".repeat(indent), line.style)]);
            used = indent;
        }
        for (text, style) in word {
            for c in text.chars() {
                let w = c.width().unwrap_or(0);
                // Only a word longer than a whole row is broken inside.
                if used + w > width && used > indent {
                    rows.push(vec![Span::styled(" ".repeat(indent), line.style)]);
                    used = indent;
                }
                let mut buf = [0; 4];
                push(&mut rows, c.encode_utf8(&mut buf), style);
                used += w;
            }
        }
    }
    rows.into_iter()
        .map(|spans| Line::from(spans).style(line.style))
        .collect()
}

/// The line's text as runs of spaces and runs of other characters, each
/// run with the styles of its pieces: a word styled in parts is still
/// one word, and the punctuation after a link stays with it.
fn words<'a>(line: &'a Line<'_>) -> Vec<Vec<(&'a str, Style)>> {
    let mut out: Vec<Vec<(&str, Style)>> = Vec::new();
    let mut last_space: Option<bool> = None;
    for span in &line.spans {
        let style = line.style.patch(span.style);
        let text: &str = &span.content;
        let mut start = 0;
        for (i, c) in text.char_indices() {
            let space = c == ' ';
            if last_space != Some(space) {
                if i > start {
                    out.last_mut()
                        .expect("a run is open")
                        .push((&text[start..i], style));
                }
                out.push(Vec::new());
                start = i;
                last_space = Some(space);
            }
        }
        if start < text.len() {
            out.last_mut()
                .expect("a run is open")
                .push((&text[start..], style));
        }
    }
    out
}

/// The width of the spaces a line starts with.
pub fn leading_spaces(line: &Line<'_>) -> usize {
    let mut n = 0;
    for span in &line.spans {
        let t = span.content.trim_start_matches(' ');
        n += span.content.len() - t.len();
        if !t.is_empty() {
            break;
        }
    }
    n
}

/// Text that grows at its end (a streaming reply), kept sanitised and
/// wrapped as it grows: each piece costs only the re-wrapping of the line
/// it lands on, not of the whole text, and drawing reads ready rows.
#[derive(Debug, Clone, Default)]
pub struct WrappedText {
    width: usize,
    /// Bytes of the raw text covered by `done`: complete lines only.
    done_upto: usize,
    /// Rows of the complete lines.
    done: Vec<String>,
    /// Rows of the last, still open line.
    open: Vec<String>,
}

/// What may be drawn of raw model text: CRLF as a plain break, control
/// characters made visible.
fn shown(raw: &str) -> String {
    sanitize_for_terminal(&raw.replace("\r\n", "\n"), true)
}

impl WrappedText {
    /// Bring the rows up to date with `text` at `width`. `text` is the
    /// same as last time or longer by what arrived since; anything else
    /// (a new reply, another width) is wrapped afresh.
    pub fn update(&mut self, text: &str, width: usize) {
        let grew = width == self.width
            && text.len() >= self.done_upto
            && text.is_char_boundary(self.done_upto);
        if !grew {
            *self = WrappedText {
                width,
                ..WrappedText::default()
            };
        }
        let rest = &text[self.done_upto..];
        if let Some(end) = rest.rfind('\n') {
            // The line break may be CRLF: the `\r` belongs to the break.
            let complete = rest[..end].strip_suffix('\r').unwrap_or(&rest[..end]);
            self.done.extend(wrap(&shown(complete), width));
            self.done_upto += end + 1;
        }
        self.open = wrap(&shown(&text[self.done_upto..]), width);
    }

    pub fn len(&self) -> usize {
        self.done.len() + self.open.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Rows `range` of the wrapped text.
    pub fn rows(&self, range: std::ops::Range<usize>) -> impl Iterator<Item = &str> {
        let end = range.end.min(self.len());
        let start = range.start.min(end);
        self.done
            .iter()
            .chain(&self.open)
            .skip(start)
            .take(end - start)
            .map(String::as_str)
    }

    /// The last `n` rows.
    pub fn tail(&self, n: usize) -> impl Iterator<Item = &str> {
        let len = self.len();
        self.rows(len.saturating_sub(n)..len)
    }
}

#[cfg(test)]
mod tests {
    use super::{WrappedText, leading_spaces, shown, wrap, wrap_line};
    use ratatui::style::Style;
    use ratatui::text::{Line, Span};

    #[test]
    fn growing_text_wraps_like_the_whole() {
        let text = "First line of a reply\r\nthat keeps \x1b[2J coming in small pieces,\n\nwith long words: abcdefghijklmnop";
        let mut view = WrappedText::default();
        for end in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
            view.update(&text[..end], 9);
            let rows: Vec<&str> = view.rows(0..usize::MAX).collect();
            assert_eq!(rows, wrap(&shown(&text[..end]), 9), "after {end} bytes");
        }
        view.update("new", 9);
        assert_eq!(view.tail(5).collect::<Vec<_>>(), ["new"]);
        view.update("new reply", 4);
        assert_eq!(view.tail(1).collect::<Vec<_>>(), ["repl", "y"][1..]);
    }

    #[test]
    fn breaks_at_spaces_and_splits_long_words() {
        assert_eq!(wrap("aaa bbb ccc", 7), ["aaa bbb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("one\n\ntwo", 10), ["one", "", "two"]);
    }

    fn texts(rows: &[Line]) -> Vec<String> {
        rows.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn a_wrapped_row_keeps_the_indent_it_is_given() {
        let line = Line::from(vec![
            Span::raw("    "),
            Span::styled("offline vault markdown notes", Style::new().green()),
            Span::raw(" product definition"),
        ]);
        assert_eq!(leading_spaces(&line), 4);
        let rows = wrap_line(&line, 24, leading_spaces(&line));
        assert_eq!(
            texts(&rows),
            [
                "    offline vault ",
                "    markdown notes ",
                "    product definition"
            ]
        );
        // Styles survive the wrap.
        assert_eq!(rows[1].spans[1].style, Style::new().green());
    }

    #[test]
    fn a_word_styled_in_parts_wraps_as_one() {
        let line = Line::from(vec![
            Span::raw("see the term "),
            Span::styled("[[compliance]]", Style::new().underlined()),
            Span::raw(". Then"),
        ]);
        assert_eq!(
            texts(&wrap_line(&line, 26, 2)),
            ["see the term ", "  [[compliance]]. Then"]
        );
    }

    #[test]
    fn a_word_longer_than_a_row_fills_the_rows_it_needs() {
        let line = Line::raw("a memory/decisions/settings-sync.md");
        assert_eq!(
            texts(&wrap_line(&line, 14, 2)),
            ["a memory/decis", "  ions/setting", "  s-sync.md"]
        );
        let short = Line::raw("fits");
        assert_eq!(texts(&wrap_line(&short, 10, 4)), ["fits"]);
    }
}
