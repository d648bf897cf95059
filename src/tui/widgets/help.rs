//! The help popup: the keys of the focused pane, then the global ones.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::theme::Theme;
use crate::tui::widgets::fuzzy::centered;

/// Shown in the popup so a version mismatch can be diagnosed (spec §14).
const ABOUT: &str = concat!(
    "membank ",
    env!("CARGO_PKG_VERSION"),
    " · Memory Bank Format v",
    "1.1"
);

/// Rows prepared when the popup opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Help {
    pub title: String,
    pub sections: Vec<(String, Vec<(String, String)>)>,
    /// First line shown, when the keys are more than the screen holds.
    pub scroll: usize,
    /// The version line at the bottom, naming what is open.
    pub about: String,
    /// Text shown instead of keys (a Context candidate explained in full).
    pub body: Vec<Line<'static>>,
}

/// Actions shown on one row when a scope has both, to keep the popup
/// short enough for 24-line terminals.
const PAIRS: &[(Action, Action, &str)] = &[
    (Action::Up, Action::Down, "move up / down"),
    (Action::PageUp, Action::PageDown, "page up / down"),
    (Action::Top, Action::Bottom, "top / bottom"),
    (
        Action::Collapse,
        Action::Expand,
        "collapse / expand the folder",
    ),
    (
        Action::NextLink,
        Action::PrevLink,
        "select the next / previous link",
    ),
    (Action::Back, Action::Forward, "back / forward in history"),
    (
        Action::CopyPath,
        Action::CopyLink,
        "copy the path / a [[wikilink]] (OSC 52)",
    ),
    (
        Action::NarrowTree,
        Action::WidenTree,
        "make the tree pane narrower / wider",
    ),
    (Action::NextPane, Action::PrevPane, "next / previous pane"),
    (
        Action::Find,
        Action::Search,
        "fuzzy-find an article / full-text search",
    ),
    (
        Action::Rename,
        Action::NewArticle,
        "rename or move, links and all / new article here",
    ),
    (
        Action::FoldGroup,
        Action::UnfoldGroup,
        "fold / unfold the group",
    ),
    (
        Action::NextGroup,
        Action::PrevGroup,
        "next / previous group",
    ),
    (
        Action::AcceptAll,
        Action::DeclineAll,
        "accept all valid / decline all proposed files",
    ),
];

fn rows(scope: Scope, keymap: &KeyMap) -> Vec<(String, String)> {
    let actions = scope.actions();
    let mut out = Vec::new();
    for &a in actions {
        if let Some((first, second, desc)) = PAIRS
            .iter()
            .find(|(x, y, _)| (*x == a || *y == a) && actions.contains(x) && actions.contains(y))
        {
            if a == *first {
                let keys = format!("{}, {}", keymap.label(*first), keymap.label(*second));
                out.push((keys, (*desc).to_owned()));
            }
            continue;
        }
        out.push((keymap.label(a), a.description().to_owned()));
    }
    out
}

impl Help {
    pub fn new(pane_name: &str, scope: Scope, keymap: &KeyMap) -> Help {
        Help {
            title: format!("Keys: {pane_name}"),
            sections: vec![
                (pane_name.to_owned(), rows(scope, keymap)),
                ("everywhere".to_owned(), rows(Scope::Global, keymap)),
            ],
            scroll: 0,
            about: ABOUT.to_owned(),
            body: Vec::new(),
        }
    }

    /// The popup showing `body` instead of keys, scrolled the same way.
    pub fn text(title: String, body: Vec<Line<'static>>) -> Help {
        Help {
            title,
            sections: Vec::new(),
            scroll: 0,
            about: String::new(),
            body,
        }
    }

    /// Name the open layout at the bottom: the format version is a bank's
    /// only; "everos memory root", "Deja Vu project" say what else is open.
    pub fn for_layout(mut self, spec: &membank_core::memory::LayoutSpec) -> Help {
        if !crate::layouts::face(spec).help_shows_format_version {
            self.about = format!("membank {} · {}", env!("CARGO_PKG_VERSION"), spec.noun);
        }
        self
    }

    /// Lines of the popup's text.
    pub fn line_count(&self) -> usize {
        if !self.body.is_empty() {
            return self.body.len();
        }
        self.sections
            .iter()
            .map(|(_, rows)| rows.len() + 2)
            .sum::<usize>()
            - 1
    }

    /// Scroll by `delta` lines on a screen `screen_height` rows high,
    /// never past the point where the last line is at the bottom.
    pub fn scroll_by(&mut self, delta: isize, screen_height: u16) {
        let visible = usize::from(screen_height.saturating_sub(2));
        let last = self.line_count().saturating_sub(visible) as isize;
        self.scroll = (self.scroll as isize + delta).clamp(0, last) as usize;
    }
}

/// A pane's key hints cut to `room` columns: whole hints from the left,
/// and the last one ("? keys", which leads to the rest) always kept.
pub fn fit_hint(hint: &str, room: usize) -> String {
    use unicode_width::UnicodeWidthStr;
    if hint.width() <= room {
        return hint.to_owned();
    }
    let parts: Vec<&str> = hint.split(" · ").collect();
    let Some((last, rest)) = parts.split_last() else {
        return String::new();
    };
    let mut kept: Vec<&str> = Vec::new();
    let mut used = last.width();
    for p in rest {
        if used + p.width() + 3 > room {
            break;
        }
        used += p.width() + 3;
        kept.push(p);
    }
    kept.push(last);
    kept.join(" · ")
}

pub fn draw(frame: &mut Frame, help: &Help, theme: &Theme) {
    let key_width = help
        .sections
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.chars().count()))
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for (i, (name, rows)) in help.sections.iter().enumerate() {
        if i > 0 {
            lines.push(Line::default());
        }
        lines.push(Line::from(Span::styled(name.clone(), theme.title)));
        for (keys, desc) in rows {
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<key_width$}  "), theme.hint_key),
                Span::styled(desc.clone(), theme.hint_text),
            ]));
        }
    }
    if !help.body.is_empty() {
        lines = help.body.clone();
    }
    let body_width = help.body.iter().map(Line::width).max().unwrap_or(0);
    let desc_width = help
        .sections
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(_, d)| d.chars().count()))
        .max()
        .unwrap_or(0);
    let screen = frame.area();
    let total = lines.len();
    let height = (total + 2).min(usize::from(screen.height)) as u16;
    let visible = usize::from(height.saturating_sub(2));
    let scroll = help.scroll.min(total.saturating_sub(visible));
    let mut width = (key_width + desc_width + 6)
        .max(body_width + 2)
        .max(help.about.chars().count() + 20)
        .min(usize::from(screen.width)) as u16;
    // A margin of one column cannot be split between the sides: it would
    // show a sliver of the pane beneath, so the popup takes it.
    if screen.width - width < 2 {
        width = screen.width;
    }
    let area = centered(screen, width, height);
    frame.render_widget(Clear, area);
    let more = if total > visible {
        format!(
            " ↑/↓ scroll {}-{}/{total} · Esc close ",
            scroll + 1,
            (scroll + visible).min(total)
        )
    } else {
        " Esc / ? close ".to_owned()
    };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" {} ", help.title), theme.title))
        .title_bottom(Span::styled(more, theme.muted));
    // The version goes where there is room for both.
    let about = &help.about;
    if !about.is_empty()
        && (usize::from(width) >= 2 * (about.chars().count() + 2) + 4 || total <= visible)
    {
        block = block.title_bottom(Line::styled(format!(" {about} "), theme.muted).right_aligned());
    }
    let shown: Vec<Line> = lines.into_iter().skip(scroll).collect();
    frame.render_widget(
        Paragraph::new(shown)
            .block(block)
            .wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}

#[cfg(test)]
mod tests {
    #[test]
    fn hints_keep_whole_items_and_the_way_to_the_rest() {
        let hint = "n link · Enter follow · Backspace back · ? keys";
        assert_eq!(super::fit_hint(hint, 80), hint);
        assert_eq!(super::fit_hint(hint, 30), "n link · Enter follow · ? keys");
        assert_eq!(super::fit_hint(hint, 5), "? keys");
    }

    #[test]
    fn about_line_names_the_spec_version_the_core_implements() {
        assert!(super::ABOUT.ends_with(membank_core::SPEC_VERSION));
    }
}
