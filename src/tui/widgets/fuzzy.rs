//! The fuzzy finder popup: a query line over a ranked list.
//!
//! Matching runs in `set_query` (on every keystroke), never while drawing.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, List, ListItem, ListState, Paragraph};
use ratatui_textarea::TextArea;

pub use super::fuzzy_rank::{FinderItem, Placement};
use super::fuzzy_rank::{FuzzyRank, display_text};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::{cut_line, cut_start};
use unicode_width::UnicodeWidthStr;

/// One shown row: the item and the char positions of its text that matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FinderMatch {
    pub item: usize,
    pub positions: Vec<u32>,
}

/// Rows whose highlight is worked out at once; further rows get theirs as
/// the selection reaches them.
const HIGHLIGHTED_AHEAD: usize = 100;
/// Columns between a name and its folder.
const GAP: usize = 2;

pub struct Finder {
    pub title: String,
    pub input: TextArea<'static>,
    rank: FuzzyRank,
    /// The best matches in order, with highlights for the first rows.
    pub matches: Vec<FinderMatch>,
    /// How many items match in all (more than `matches` holds on a big bank).
    pub total: usize,
    pub selected: usize,
}

impl std::fmt::Debug for Finder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Finder")
            .field("title", &self.title)
            .field("items", &self.rank.items().len())
            .field("matches", &self.total)
            .finish()
    }
}

impl Finder {
    pub fn new(title: &str, items: Vec<FinderItem>, theme: &Theme) -> Finder {
        let mut input = TextArea::default();
        input.set_cursor_line_style(Style::new());
        input.set_style(theme.text);
        input.set_placeholder_text("type a name, a title or a folder");
        input.set_placeholder_style(theme.muted);
        let mut finder = Finder {
            title: title.to_owned(),
            input,
            rank: FuzzyRank::new(items),
            matches: Vec::new(),
            total: 0,
            selected: 0,
        };
        finder.refilter();
        finder
    }

    /// List the items with these ids (the caller's), latest first, before
    /// the rest while nothing is typed.
    pub fn with_recent(mut self, latest_first: &[usize]) -> Finder {
        let items = self.rank.items();
        let at: Vec<u32> = latest_first
            .iter()
            .filter_map(|id| items.iter().position(|i| i.id == *id))
            .map(|i| i as u32)
            .collect();
        self.rank.set_recent(&at);
        self.refilter();
        self
    }

    pub fn query(&self) -> &str {
        self.input.lines().first().map_or("", String::as_str)
    }

    pub fn items(&self) -> &[FinderItem] {
        self.rank.items()
    }

    /// Re-rank after the query changed.
    pub fn refilter(&mut self) {
        let query = self.query().to_owned();
        self.rank.set_query(&query);
        self.total = self.rank.total;
        self.selected = 0;
        self.matches = self
            .rank
            .ordered
            .iter()
            .map(|&i| FinderMatch {
                item: i as usize,
                positions: Vec::new(),
            })
            .collect();
        self.highlight_up_to(HIGHLIGHTED_AHEAD);
    }

    /// Work out the highlights of the rows before `end` that lack them.
    fn highlight_up_to(&mut self, end: usize) {
        let query = self.query().to_owned();
        if query.trim().is_empty() {
            return;
        }
        let end = end.min(self.matches.len());
        for m in &mut self.matches[..end] {
            if m.positions.is_empty() {
                m.positions = self.rank.positions(m.item as u32, &query);
            }
        }
    }

    pub fn move_selection(&mut self, delta: isize) {
        if self.matches.is_empty() {
            self.selected = 0;
            return;
        }
        let last = self.matches.len() as isize - 1;
        self.selected = (self.selected as isize + delta).clamp(0, last) as usize;
        self.highlight_up_to(self.selected + HIGHLIGHTED_AHEAD);
    }

    /// The caller's id of the selected item.
    pub fn selected_id(&self) -> Option<usize> {
        self.matches
            .get(self.selected)
            .map(|m| self.rank.items()[m.item].id)
    }

    fn line(&self, m: &FinderMatch, width: usize, theme: &Theme) -> Line<'static> {
        let item = &self.rank.items()[m.item];
        let text = display_text(item);
        let mut spans = Vec::new();
        let mut run = String::new();
        let mut run_matched = false;
        let text_style = match item.placement {
            Placement::Content | Placement::Other => theme.text,
            Placement::Inbox | Placement::Archived => theme.muted,
        };
        for (i, c) in text.chars().enumerate() {
            let matched = m.positions.binary_search(&(i as u32)).is_ok();
            if matched != run_matched && !run.is_empty() {
                let style = if run_matched {
                    theme.matched
                } else {
                    text_style
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
                text_style
            };
            spans.push(Span::styled(run, style));
        }
        // The folder dimmed at the right edge. When both do not fit, the
        // folder keeps its last parts (they tell similar long paths apart)
        // in up to two fifths of the row, and the name the rest.
        let used: usize = spans.iter().map(|s| s.width()).sum();
        let folder = format!("{}/", item.folder);
        let folder_width = folder.width();
        if used + GAP + folder_width <= width {
            let gap = width - used - folder_width;
            spans.push(Span::raw(" ".repeat(gap)));
            spans.push(Span::styled(folder, theme.muted));
            return Line::from(spans);
        }
        let folder_room = folder_width
            .min(width * 2 / 5)
            .max(width.saturating_sub(used + GAP));
        let name_room = width.saturating_sub(folder_room + GAP);
        let name = cut_line(Line::from(spans), name_room);
        let gap = width.saturating_sub(name.width() + folder_room.min(folder_width));
        let mut spans = name.spans;
        spans.push(Span::raw(" ".repeat(gap)));
        spans.push(Span::styled(
            cut_start(&folder, folder_room).into_owned(),
            theme.muted,
        ));
        cut_line(Line::from(spans), width)
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
    // Long names and deep folders need the room a wide terminal has.
    let full = frame.area();
    let w = (full.width / 5 * 4).clamp(70, 140);
    let h = (full.height / 5 * 4).clamp(20, 40);
    let area = centered(full, w, h);
    crate::tui::areas::clear_popup(frame, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" {} ", finder.title), theme.title))
        .title_bottom(Line::from(vec![
            Span::styled(
                format!(" {} of {} ", finder.total, finder.items().len()),
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
        .map(|m| ListItem::new(finder.line(m, usize::from(list_area.width), theme)))
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
                name: (*t).to_owned(),
                title: None,
                folder: "02_TERMINOLOGY".to_owned(),
                placement: Placement::Content,
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
        assert_eq!(f.total, 1);
        assert_eq!(f.selected_id(), Some(0));
        assert_eq!(f.matches[0].positions, vec![0, 1, 2, 3]);
    }

    /// Before anything is typed: the recently opened, latest first, then
    /// the rest from A to Z.
    #[test]
    fn an_empty_query_lists_the_recent_then_a_to_z() {
        let theme = Theme::default_theme();
        let f = Finder::new(
            "Find",
            items(&["delta", "Alpha", "charlie", "bravo", "echo"]),
            &theme,
        )
        .with_recent(&[4, 2]);
        let names: Vec<&str> = f
            .matches
            .iter()
            .map(|m| f.items()[m.item].name.as_str())
            .collect();
        assert_eq!(names, ["echo", "charlie", "Alpha", "bravo", "delta"]);
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

    #[test]
    fn a_name_too_long_for_the_list_is_cut_with_an_ellipsis() {
        let theme = Theme::default_theme();
        let f = Finder::new(
            "Find",
            items(&["marketing authorisation holder → houder", "Legal"]),
            &theme,
        );
        let row = |i: usize| f.line(&f.matches[i], 30, &theme).to_string();
        let long = (0..2)
            .map(row)
            .find(|r| r.starts_with("marketing"))
            .unwrap();
        assert_eq!(long, "marketing autho…  …ERMINOLOGY/");
        let short = (0..2).map(row).find(|r| r.starts_with("Legal")).unwrap();
        assert!(short.ends_with("02_TERMINOLOGY/"), "{short}");
    }

    #[test]
    fn the_same_long_name_in_two_deep_folders_is_told_apart_by_its_folder() {
        let theme = Theme::default_theme();
        let name = "A rather long help page title about linking notes";
        let items = ["Plugins/Core plugins", "Plugins/Community plugins"]
            .iter()
            .enumerate()
            .map(|(id, sub)| FinderItem {
                name: name.to_owned(),
                title: None,
                folder: format!("03_DOMAINS/ObsidianHelp/{sub}"),
                placement: Placement::Content,
                id,
            })
            .collect();
        let f = Finder::new("Find", items, &theme);
        let rows: Vec<Line> = (0..2).map(|i| f.line(&f.matches[i], 68, &theme)).collect();
        for row in &rows {
            assert_eq!(row.width(), 68);
            assert!(row.to_string().starts_with("A rather long help"), "{row}");
            // The folder is its own span, dimmed, and ends the row.
            let folder = row.spans.last().unwrap();
            assert_eq!(folder.style, theme.muted);
            assert!(folder.content.ends_with(" plugins/"), "{row}");
        }
        assert_ne!(rows[0].to_string(), rows[1].to_string());
        assert!(
            rows.iter()
                .any(|r| r.to_string().ends_with("Core plugins/"))
        );
        assert!(
            rows.iter()
                .any(|r| r.to_string().ends_with("Community plugins/"))
        );
    }
}
