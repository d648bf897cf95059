//! What rendering gives: the lines, where each wikilink landed, and which
//! source line each row shows.

use ratatui::text::Line;

use crate::tui::theme::Theme;

/// One `[[wikilink]]` in the rendered text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkSpot {
    /// The link target (the part before any `|`), as written.
    pub target: String,
    pub live: bool,
    /// Rendered line the link starts on.
    pub line: usize,
    /// Every (line, span) the link's text occupies, to restyle it when the
    /// link is selected.
    pub spans: Vec<(usize, usize)>,
}

/// An article rendered for a given width.
#[derive(Debug, Clone, Default)]
pub struct RenderedDoc {
    pub lines: Vec<Line<'static>>,
    pub links: Vec<LinkSpot>,
    /// For each rendered line, the source line it came from (1-based, in
    /// the text given to the renderer plus `line_shift`); lines added
    /// after rendering have none.
    pub source_lines: Vec<usize>,
    /// For each rendered line, the last source line it shows: a paragraph
    /// joins its lines, so one row can hold the end of one and the start of
    /// the next. 0 for a blank row; rows without an entry show only
    /// `source_lines`' line.
    pub source_ends: Vec<usize>,
}

impl RenderedDoc {
    /// The first rendered line that shows source line `line` or a later one.
    pub fn line_for_source(&self, line: usize) -> Option<usize> {
        self.source_lines.iter().position(|&l| l >= line)
    }

    /// The rendered rows showing some of source line `line`.
    pub fn rows_showing(&self, line: usize) -> Vec<usize> {
        self.source_lines
            .iter()
            .enumerate()
            .filter(|&(i, &first)| match self.source_ends.get(i) {
                // A blank row between blocks shows nothing.
                Some(0) => false,
                Some(&last) => (first..=last.max(first)).contains(&line),
                None => first == line,
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Put `rows` (which show no source line) above the document.
    pub fn prepend_rows(&mut self, rows: Vec<Line<'static>>) {
        let n = rows.len();
        self.lines.splice(0..0, rows);
        self.source_lines.splice(0..0, std::iter::repeat_n(0, n));
        if !self.source_ends.is_empty() {
            self.source_ends.splice(0..0, std::iter::repeat_n(0, n));
        }
        for l in &mut self.links {
            l.line += n;
            for s in &mut l.spans {
                s.0 += n;
            }
        }
    }

    /// Give link `index` the selected style (or its normal style back).
    pub fn set_link_selected(&mut self, index: usize, selected: bool, theme: &Theme) {
        let Some(link) = self.links.get(index) else {
            return;
        };
        let style = if selected {
            theme.link_selected
        } else if link.live {
            theme.link
        } else {
            theme.dead_link
        };
        for &(l, s) in &link.spans {
            if let Some(span) = self.lines.get_mut(l).and_then(|line| line.spans.get_mut(s)) {
                span.style = style;
            }
        }
    }
}
