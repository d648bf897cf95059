//! Word wrapping for text the agents show, so a pane knows how many rows
//! a reply takes (to keep the newest text in view).

use membank_core::text::sanitize_for_terminal;
use unicode_width::UnicodeWidthChar;

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
    use super::{WrappedText, shown, wrap};

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
}
