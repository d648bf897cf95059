//! Drawing the Agents pane: the agent tabs, the notice when no model can
//! be used, and the agent on screen.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use ratatui_textarea::TextArea;

use super::{
    AgentKind, AgentsPane, check, connection, distill, inbox, query, translate, writeback,
};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_line;
use crate::tui::widgets::wrap::wrap;

/// Style an agent's text input for its state, in update: the cursor shows
/// only while typing, the placeholder in the theme's muted style.
pub fn style_input(input: &mut TextArea<'static>, editing: bool, theme: &Theme) {
    input.set_cursor_line_style(Style::default());
    input.set_cursor_style(if editing {
        Style::default().add_modifier(Modifier::REVERSED)
    } else {
        Style::default()
    });
    input.set_placeholder_style(theme.muted);
}

/// An agent's text input, drawn the same way by every agent: a rule on the
/// side that faces the agent's output, carrying its key hints. The input
/// itself was styled in update (`style_input`).
pub fn draw_input(
    frame: &mut Frame,
    area: Rect,
    input: &TextArea<'static>,
    rule: Borders,
    hints: &str,
    editing: bool,
    theme: &Theme,
) {
    let block = Block::default().borders(rule).border_style(if editing {
        theme.border_focused
    } else {
        theme.border
    });
    let hints = Span::styled(hints.to_owned(), theme.muted);
    let block = if rule == Borders::BOTTOM {
        block.title_bottom(hints)
    } else {
        block.title(hints)
    };
    let inside = block.inner(area);
    frame.render_widget(block, area);
    frame.render_widget(input, inside);
}

fn draw_tabs(frame: &mut Frame, area: Rect, pane: &AgentsPane, theme: &Theme) {
    let mut spans = Vec::new();
    for (i, kind) in pane.offered.iter().enumerate() {
        let style = if *kind == pane.kind {
            theme.selection
        } else {
            theme.muted
        };
        spans.push(Span::styled(format!("{} {} ", i + 1, kind.title()), style));
    }
    let tabs = cut_line(Line::from(spans), usize::from(area.width));
    frame.render_widget(Paragraph::new(tabs), area);
}

pub fn draw(frame: &mut Frame, area: Rect, pane: &AgentsPane, focused: bool, theme: &Theme) {
    let notice = pane
        .problem
        .clone()
        .or_else(|| pane.connection.describe().and_then(Result::err));
    let width = usize::from(area.width);
    let mut notice_lines: Vec<Line> = Vec::new();
    if let Some(text) = notice {
        let unavailable = pane.connection.describe().is_some_and(|d| d.is_err());
        notice_lines.extend(
            wrap(&text, width)
                .into_iter()
                .map(|r| Line::styled(r, theme.error)),
        );
        if unavailable {
            notice_lines.extend(
                wrap(connection::SETUP_HINT, width)
                    .into_iter()
                    .map(|r| Line::styled(r, theme.muted)),
            );
        }
    }
    // The notice never takes more than half the pane.
    notice_lines.truncate(usize::from(area.height / 2));
    let [tabs, note, body] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(notice_lines.len() as u16),
        Constraint::Fill(1),
    ])
    .areas(area);
    draw_tabs(frame, tabs, pane, theme);
    frame.render_widget(Paragraph::new(notice_lines), note);
    let editing = pane.editing && focused;
    match pane.kind {
        AgentKind::Query => query::draw(frame, body, &pane.query, editing, focused, theme),
        AgentKind::Inbox => inbox::draw(frame, body, &pane.inbox, focused, theme),
        AgentKind::Check => check::draw(frame, body, &pane.check, focused, theme),
        AgentKind::Translate => translate::draw(frame, body, &pane.translate, editing, theme),
        AgentKind::Distill => distill::draw(frame, body, &pane.distill, editing, focused, theme),
        AgentKind::Chat => query::draw(frame, body, &pane.chat, editing, focused, theme),
        AgentKind::Writeback => {
            writeback::draw(frame, body, &pane.writeback, editing, focused, theme)
        }
    }
}
