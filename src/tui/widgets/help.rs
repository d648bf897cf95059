//! The help popup: the keys of the focused pane, then the global ones.

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use unicode_width::UnicodeWidthStr;

use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::theme::Theme;
use crate::tui::widgets::fuzzy::centered;
use crate::tui::widgets::wrap::{leading_spaces, wrap_line};

/// Shown in the popup so a version mismatch can be diagnosed (spec §14).
const ABOUT: &str = concat!(
    "membank ",
    env!("CARGO_PKG_VERSION"),
    " · Memory Bank Format v",
    "1.1"
);

/// Columns a description needs beside the keys; with fewer it goes under
/// them instead.
const NARROWEST_DESCRIPTION: usize = 24;

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

/// Keys that only do something in a memory bank: making articles, and
/// links in the bank's `[[wikilink]]` form.
const BANK_ONLY: &[Action] = &[Action::CreateTargets, Action::NewArticle, Action::CopyLink];

/// The words of the layout open, for the descriptions written for a bank.
struct Words {
    bank: bool,
    /// What the tree is called ("project").
    tree: String,
    /// What one document is called ("record").
    record: &'static str,
    /// What the whole is called ("project").
    place: &'static str,
}

impl Words {
    fn of(spec: &membank_core::memory::LayoutSpec) -> Words {
        let face = crate::layouts::face(spec);
        Words {
            bank: spec.kind == membank_core::memory::LayoutKind::Bank,
            tree: face.slot.tree_title().to_lowercase(),
            record: spec.record,
            place: spec.place,
        }
    }

    fn say(&self, desc: &str) -> String {
        if self.bank {
            return desc.to_owned();
        }
        let a = if self.record.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        desc.replace("the bank tree", &format!("the {} tree", self.tree))
            .replace("the bank", &format!("the {}", self.place))
            .replace("an article", &format!("{a} {}", self.record))
            .replace("article", self.record)
    }
}

/// The rows of `scope`'s keys, as keys pressed in `pane` act: a key bound
/// to two actions there (the pane's own over a global one, or two of a
/// `[keys]` table's making) is shown only for the one it does.
fn rows(scope: Scope, keymap: &KeyMap, words: &Words, pane: Scope) -> Vec<(String, String)> {
    let actions: Vec<Action> = scope
        .actions()
        .iter()
        .copied()
        .filter(|a| words.bank || !BANK_ONLY.contains(a))
        .collect();
    let label = |a: Action| {
        keymap
            .keys(a)
            .iter()
            .filter(|&&k| keymap.lookup(pane, k) == Some(a))
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" / ")
    };
    let mut out = Vec::new();
    for &a in &actions {
        if let Some((first, second, desc)) = PAIRS
            .iter()
            .find(|(x, y, _)| (*x == a || *y == a) && actions.contains(x) && actions.contains(y))
        {
            if a == *first {
                // A pair with one side keyless is shown as the other alone:
                // the shared description would name an action no key does.
                match (label(*first), label(*second)) {
                    (one, two) if one.is_empty() && two.is_empty() => {}
                    (one, two) if two.is_empty() => out.push((one, words.say(first.description()))),
                    (one, two) if one.is_empty() => {
                        out.push((two, words.say(second.description())))
                    }
                    (one, two) => out.push((format!("{one}, {two}"), words.say(desc))),
                }
            }
            continue;
        }
        let keys = label(a);
        if !keys.is_empty() {
            out.push((keys, words.say(a.description())));
        }
    }
    out
}

impl Help {
    /// The keys of a pane showing `scope` on the memory `spec` describes,
    /// then the keys that work everywhere, in that layout's words.
    pub fn new(
        pane_name: &str,
        scope: Scope,
        keymap: &KeyMap,
        spec: &membank_core::memory::LayoutSpec,
    ) -> Help {
        let words = Words::of(spec);
        let about = if words.bank {
            ABOUT.to_owned()
        } else {
            format!("membank {} · {}", env!("CARGO_PKG_VERSION"), spec.noun)
        };
        Help {
            title: format!("Keys: {pane_name}"),
            sections: vec![
                (pane_name.to_owned(), rows(scope, keymap, &words, scope)),
                (
                    "everywhere".to_owned(),
                    rows(Scope::Global, keymap, &words, scope),
                ),
            ],
            scroll: 0,
            about,
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

    /// Lines of the popup's text on a screen `screen_width` columns wide,
    /// once the rows too long for it are wrapped.
    pub fn line_count(&self, screen_width: u16) -> usize {
        let plain = Style::new();
        self.lines([plain; 3], self.inner_width(screen_width)).len()
    }

    /// Scroll by `delta` lines on a screen of `screen` columns and rows,
    /// never past the point where the last line is at the bottom.
    pub fn scroll_by(&mut self, delta: isize, screen: (u16, u16)) {
        let (screen_width, screen_height) = screen;
        let visible = usize::from(screen_height.saturating_sub(2));
        let last = self.line_count(screen_width).saturating_sub(visible) as isize;
        self.scroll = (self.scroll as isize + delta).clamp(0, last) as usize;
    }

    /// Widest keys of any row, in columns.
    fn key_width(&self) -> usize {
        self.sections
            .iter()
            .flat_map(|(_, rows)| rows.iter().map(|(k, _)| k.width()))
            .max()
            .unwrap_or(0)
    }

    /// The popup's width on a screen `screen_width` columns wide: its
    /// widest row when the screen has room, else the whole screen.
    fn width_on(&self, screen_width: u16) -> u16 {
        let body_width = self.body.iter().map(Line::width).max().unwrap_or(0);
        let desc_width = self
            .sections
            .iter()
            .flat_map(|(_, rows)| rows.iter().map(|(_, d)| d.width()))
            .max()
            .unwrap_or(0);
        let width = (self.key_width() + desc_width + 6)
            .max(body_width + 2)
            .max(self.about.width() + 20)
            .min(usize::from(screen_width)) as u16;
        // A margin of one column cannot be split between the sides: it
        // would show a sliver of the pane beneath, so the popup takes it.
        if screen_width - width < 2 {
            screen_width
        } else {
            width
        }
    }

    /// Columns inside the popup's borders.
    fn inner_width(&self, screen_width: u16) -> usize {
        usize::from(self.width_on(screen_width).saturating_sub(2))
    }

    /// The popup's lines, each fitting `inner` columns: a description too
    /// long for its row goes on beneath itself, in its own column, so it
    /// never reads as a heading of its own. `styles` are the sections'
    /// titles, the keys and the descriptions.
    fn lines(&self, styles: [Style; 3], inner: usize) -> Vec<Line<'static>> {
        let [title, key, desc] = styles;
        if !self.body.is_empty() {
            return self
                .body
                .iter()
                .flat_map(|line| wrap_line(line, inner, leading_spaces(line)))
                .collect();
        }
        let key_width = self.key_width();
        // Too narrow for a column of descriptions beside the keys: each
        // description goes under its keys, indented, wrapping there.
        let stacked = key_width + 4 + NARROWEST_DESCRIPTION > inner;
        let mut lines = Vec::new();
        for (i, (name, rows)) in self.sections.iter().enumerate() {
            if i > 0 {
                lines.push(Line::default());
            }
            lines.push(Line::from(Span::styled(name.clone(), title)));
            for (keys, text) in rows {
                if stacked {
                    let keys = Line::from(Span::styled(format!("  {keys}"), key));
                    lines.extend(wrap_line(&keys, inner, 2));
                    let text = Line::from(Span::styled(format!("      {text}"), desc));
                    lines.extend(wrap_line(&text, inner, 6));
                    continue;
                }
                // The description is wrapped in its own column: wrapping
                // the whole row would drop an indent wider than half the
                // popup (`wrap_line`'s rule for text), and the rest of the
                // description would start under the keys.
                let column = key_width + 4;
                let pad = key_width.saturating_sub(keys.width());
                let text = Line::from(Span::styled(text.clone(), desc));
                for (j, piece) in wrap_line(&text, inner - column, 0).into_iter().enumerate() {
                    let lead = if j == 0 {
                        Span::styled(format!("  {keys}{}  ", " ".repeat(pad)), key)
                    } else {
                        Span::raw(" ".repeat(column))
                    };
                    let mut spans = vec![lead];
                    spans.extend(piece.spans);
                    lines.push(Line::from(spans));
                }
            }
        }
        lines
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
    let screen = frame.area();
    let width = help.width_on(screen.width);
    let lines = help.lines(
        [theme.title, theme.hint_key, theme.hint_text],
        usize::from(width.saturating_sub(2)),
    );
    let total = lines.len();
    let height = (total + 2).min(usize::from(screen.height)) as u16;
    let visible = usize::from(height.saturating_sub(2));
    let scroll = help.scroll.min(total.saturating_sub(visible));
    let area = centered(screen, width, height);
    crate::tui::areas::clear_popup(frame, area);
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
    frame.render_widget(Paragraph::new(shown).block(block), area);
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
