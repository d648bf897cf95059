//! Drawing: a pure function of the app state. Nothing here reads files,
//! parses or scores; it only places what `update` prepared.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::agents;
use super::app::{App, Pane, Popup, inner};
use super::panes::{health, inspector, preview, tree};
use super::widgets::{fuzzy, help, status};

fn pane_block<'a>(app: &'a App, pane: Pane, title: String) -> Block<'a> {
    let focused = app.focus == pane;
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused {
            app.theme.border_focused
        } else {
            app.theme.border
        })
        .title(Span::styled(format!(" {title} "), app.theme.title));
    if focused {
        let hint = if pane == Pane::Agents {
            agents::hint_line(&app.keymap, &app.agents)
        } else {
            app.hints[Pane::ORDER.iter().position(|p| *p == pane).unwrap_or(0)].clone()
        };
        block = block.title_bottom(Span::styled(format!(" {hint} "), app.theme.muted));
    }
    block
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let mut spans = Vec::new();
    for (i, pane) in Pane::ORDER.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" │ ", app.theme.muted));
        }
        let style = if app.focus == *pane {
            app.theme.selection
        } else if app.areas.visible(*pane) {
            app.theme.title
        } else {
            app.theme.muted
        };
        spans.push(Span::styled(format!(" {} ", pane.title()), style));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_pane(frame: &mut Frame, app: &App, pane: Pane, area: Rect) {
    let title = match pane {
        Pane::Preview if !app.preview.header.is_empty() => app.preview.header.clone(),
        Pane::Health => format!("Health — {}", app.health.summary),
        p => p.title().to_owned(),
    };
    frame.render_widget(pane_block(app, pane, title), area);
    let body = inner(area);
    let focused = app.focus == pane;
    match pane {
        Pane::Tree => tree::draw(frame, body, &app.tree, focused, &app.theme),
        Pane::Preview => preview::draw(frame, body, &app.preview, &app.theme),
        Pane::Inspector => inspector::draw(frame, body, &app.inspector, focused, &app.theme),
        Pane::Health => health::draw(frame, body, &app.health, focused, &app.theme),
        Pane::Agents => agents::draw(frame, body, &app.agents, focused, &app.theme),
    }
}

pub fn draw(frame: &mut Frame, app: &App) {
    let areas = &app.areas;
    draw_tabs(frame, areas.tabs, app);
    if let Some(r) = areas.tree {
        draw_pane(frame, app, Pane::Tree, r);
    }
    for (pane, r) in [areas.main, areas.side].into_iter().flatten() {
        draw_pane(frame, app, pane, r);
    }
    status::draw(frame, areas.status, &app.status, &app.theme);
    match &app.popup {
        Some(Popup::Help(h)) => help::draw(frame, h, &app.theme),
        Some(Popup::Finder(f)) => fuzzy::draw(frame, f, &app.theme),
        None => {}
    }
}
