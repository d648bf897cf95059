//! The help popup: the keys of the focused pane, then the global ones.

use ratatui::Frame;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::keys::{Context, KeyMap};
use crate::tui::theme::Theme;
use crate::tui::widgets::fuzzy::centered;

/// Rows prepared when the popup opens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Help {
    pub title: String,
    pub sections: Vec<(String, Vec<(String, String)>)>,
}

impl Help {
    pub fn new(pane_name: &str, context: Context, keymap: &KeyMap) -> Help {
        let rows = |c: Context| {
            c.actions()
                .iter()
                .map(|&a| (keymap.label(a), a.description().to_owned()))
                .collect::<Vec<_>>()
        };
        Help {
            title: format!("Keys: {pane_name}"),
            sections: vec![
                (pane_name.to_owned(), rows(context)),
                ("everywhere".to_owned(), rows(Context::Global)),
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
    let height = lines.len() as u16 + 2;
    let area = centered(frame.area(), 64, height);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(format!(" {} ", help.title), theme.title))
        .title_bottom(Span::styled(" Esc / ? close ", theme.muted));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
