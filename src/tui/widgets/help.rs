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
    (Action::NextPane, Action::PrevPane, "next / previous pane"),
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
        }
    }
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
    let desc_width = help
        .sections
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|(_, d)| d.chars().count()))
        .max()
        .unwrap_or(0);
    let height = lines.len() as u16 + 2;
    let width = (key_width + desc_width + 6).max(ABOUT.chars().count() + 20);
    let area = centered(
        frame.area(),
        width.min(usize::from(u16::MAX)) as u16,
        height,
    );
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" {} ", help.title), theme.title))
        .title_bottom(Span::styled(" Esc / ? close ", theme.muted))
        .title_bottom(Line::styled(format!(" {ABOUT} "), theme.muted).right_aligned());
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

#[cfg(test)]
mod tests {
    #[test]
    fn about_line_names_the_spec_version_the_core_implements() {
        assert!(super::ABOUT.ends_with(membank_core::SPEC_VERSION));
    }
}
