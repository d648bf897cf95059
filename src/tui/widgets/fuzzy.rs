//! The fuzzy finder popup: a query line over a ranked list.
//!
//! Matching runs in `set_query` (on every keystroke), never while drawing.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, List, ListItem, ListState, Paragraph};
use ratatui_textarea::TextArea;

use crate::tui::theme::Theme;

/// One thing that can be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinderItem {
    /// What is matched and shown (already sanitised for the terminal).
    pub text: String,
    /// Index into the caller's own list.
    pub id: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinderMatch {
    pub item: usize,
    pub score: u32,
    /// Char positions in the item's text that matched the query.
    pub positions: Vec<u32>,
}

/// At most this many matches are kept; more never fit on a screen.
const MAX_SHOWN: usize = 500;

pub struct Finder {
    pub title: String,
    pub input: TextArea<'static>,
    pub items: Vec<FinderItem>,
    pub matches: Vec<FinderMatch>,
    pub selected: usize,
    matcher: Matcher,
}

impl std::fmt::Debug for Finder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Finder")
            .field("title", &self.title)
            .field("items", &self.items.len())
            .field("matches", &self.matches.len())
            .finish()
    }
}

impl Finder {
    pub fn new(title: &str, items: Vec<FinderItem>, theme: &Theme) -> Finder {
        let mut input = TextArea::default();
        input.set_cursor_line_style(Style::new());
        input.set_style(theme.text);
        input.set_placeholder_text("type to filter");
        input.set_placeholder_style(theme.muted);
        let mut finder = Finder {
            title: title.to_owned(),
            input,
            items,
            matches: Vec::new(),
            selected: 0,
            matcher: Matcher::new(Config::DEFAULT),
        };
        finder.refilter();
        finder
    }

    pub fn query(&self) -> &str {
        self.input.lines().first().map_or("", String::as_str)
    }

    /// Re-rank after the query changed.
    pub fn refilter(&mut self) {
        let query = self.query().to_owned();
        self.matches.clear();
        self.selected = 0;
        if query.trim().is_empty() {
            self.matches = self
                .items
                .iter()
                .enumerate()
                .take(MAX_SHOWN)
                .map(|(i, _)| FinderMatch {
                    item: i,
                    score: 0,
                    positions: Vec::new(),
                })
                .collect();
            return;
        }
        let pattern = Pattern::parse(&query, CaseMatching::Ignore, Normalization::Smart);
        let mut buf = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            let mut positions = Vec::new();
            let hay = Utf32Str::new(&item.text, &mut buf);
            if let Some(score) = pattern.indices(hay, &mut self.matcher, &mut positions) {
                positions.sort_unstable();
                positions.dedup();
                self.matches.push(FinderMatch {
                    item: i,
                    score,
                    positions,
                });
            }
        }
        // Best first; equal scores keep the caller's order (stable sort).
        self.matches.sort_by_key(|m| std::cmp::Reverse(m.score));
        self.matches.truncate(MAX_SHOWN);
    }

    pub fn move_selection(&mut self, delta: isize) {
        if self.matches.is_empty() {
            self.selected = 0;
            return;
        }
        let last = self.matches.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, last) as usize;
    }

    /// The caller's id of the selected item.
    pub fn selected_id(&self) -> Option<usize> {
        self.matches
            .get(self.selected)
            .map(|m| self.items[m.item].id)
    }

    fn line(&self, m: &FinderMatch, theme: &Theme) -> Line<'static> {
        let text = &self.items[m.item].text;
        let mut spans = Vec::new();
        let mut run = String::new();
        let mut run_matched = false;
        for (i, c) in text.chars().enumerate() {
            let matched = m.positions.binary_search(&(i as u32)).is_ok();
            if matched != run_matched && !run.is_empty() {
                let style = if run_matched {
                    theme.matched
                } else {
                    theme.text
                };
                spans.push(Span::styled(std::mem::take(&mut run), style));
            }
            run_matched = matched;
            run.push(c);
        }
        if !run.is_empty() {
            let style = if run_matched {
                theme.matched
            } else {
                theme.text
            };
            spans.push(Span::styled(run, style));
        }
        Line::from(spans)
    }
}

/// A rectangle of at most `w`×`h` centred in `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

pub fn draw(frame: &mut Frame, finder: &Finder, theme: &Theme) {
    let area = centered(frame.area(), 70, 20);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" {} ", finder.title), theme.title))
        .title_bottom(Line::from(vec![
            Span::styled(
                format!(" {}/{} ", finder.matches.len(), finder.items.len()),
                theme.muted,
            ),
            Span::styled("Enter", theme.hint_key),
            Span::styled(" open  ", theme.hint_text),
            Span::styled("Esc", theme.hint_key),
            Span::styled(" close ", theme.hint_text),
        ]));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [input_area, sep, list_area] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(inner);
    let [prompt, field] =
        Layout::horizontal([Constraint::Length(2), Constraint::Min(1)]).areas(input_area);
    frame.render_widget(Paragraph::new(Span::styled("> ", theme.hint_key)), prompt);
    frame.render_widget(&finder.input, field);
    frame.render_widget(
        Paragraph::new(Span::styled(
            "─".repeat(usize::from(sep.width)),
            theme.border,
        )),
        sep,
    );
    let visible = usize::from(list_area.height);
    let items: Vec<ListItem> = finder
        .matches
        .iter()
        .take(finder.selected.max(visible.saturating_sub(1)) + 1)
        .map(|m| ListItem::new(finder.line(m, theme)))
        .collect();
    let list = List::new(items).highlight_style(theme.selection);
    let mut state = ListState::default().with_selected(Some(finder.selected));
    frame.render_stateful_widget(list, list_area, &mut state);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(names: &[&str]) -> Vec<FinderItem> {
        names
            .iter()
            .enumerate()
            .map(|(id, t)| FinderItem {
                text: (*t).to_owned(),
                id,
            })
            .collect()
    }

    #[test]
    fn query_filters_and_ranks() {
        let theme = Theme::default_theme();
        let mut f = Finder::new(
            "Find",
            items(&["Acme Corporation", "compliance → naleving", "Legal"]),
            &theme,
        );
        assert_eq!(f.matches.len(), 3);
        f.input.insert_str("acme");
        f.refilter();
        assert_eq!(f.matches.len(), 1);
        assert_eq!(f.selected_id(), Some(0));
        assert_eq!(f.matches[0].positions, vec![0, 1, 2, 3]);
    }

    #[test]
    fn selection_stays_within_matches() {
        let theme = Theme::default_theme();
        let mut f = Finder::new("Find", items(&["a", "b"]), &theme);
        f.move_selection(5);
        assert_eq!(f.selected_id(), Some(1));
        f.move_selection(-9);
        assert_eq!(f.selected_id(), Some(0));
        f.input.insert_str("zzz");
        f.refilter();
        assert_eq!(f.selected_id(), None);
    }
}
