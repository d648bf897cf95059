//! Drawing: a pure function of the app state. Nothing here reads files,
//! parses or scores; it only places what `update` prepared.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::app::{App, Pane, Popup};
use super::areas::{inner, search_popup};
use super::panes::Component;
use super::widgets::cut::{cut, cut_line};
use super::widgets::{fuzzy, help, status};

fn pane_block<'a>(app: &'a App, pane: Pane, width: u16) -> Block<'a> {
    let focused = app.focus == pane;
    let component = app.panes.get(pane);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused {
            app.theme.border_focused
        } else {
            app.theme.border
        })
        .title(Span::styled(
            // Corners and the spaces around the text.
            format!(
                " {} ",
                cut(&component.title(), usize::from(width).saturating_sub(4))
            ),
            app.theme.title,
        ));
    if focused {
        // Corners, a rule each side and the spaces around the text.
        let room = usize::from(width).saturating_sub(6);
        let hint = help::fit_hint(&component.hints(&app.keymap), room);
        block = block.title_bottom(Span::styled(format!(" {hint} "), app.theme.muted));
    }
    block
}

/// The tab row: every pane's name, the focused one highlighted. On a
/// narrow screen the separators shrink, then every name is cut to the same
/// length (ending in `…`), so each tab, the focused one too, stays in view.
fn tab_line(app: &App, width: usize) -> Line<'static> {
    // Says why the other panes are gone and how to bring them back.
    let zoomed = app.zoomed.then(|| match app.zoom_key() {
        Some(key) => format!("  [zoomed: {key}]"),
        None => "  [zoomed]".to_owned(),
    });
    let names: Vec<&str> = Pane::ORDER.iter().map(|p| app.panes.name(*p)).collect();
    let longest = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let line = |sep: &'static str, pad: &'static str, longest: usize| {
        let mut spans = Vec::new();
        for (i, (pane, name)) in Pane::ORDER.iter().zip(&names).enumerate() {
            if i > 0 {
                spans.push(Span::styled(sep, app.theme.muted));
            }
            let style = if app.focus == *pane {
                app.theme.selection
            } else if app.areas.visible(*pane) {
                app.theme.title
            } else {
                app.theme.muted
            };
            spans.push(Span::styled(
                format!("{pad}{}{pad}", cut(name, longest)),
                style,
            ));
        }
        spans.extend(zoomed.clone().map(|z| Span::styled(z, app.theme.warning)));
        Line::from(spans)
    };
    let full = line(" │ ", " ", longest);
    if full.width() <= width {
        return full;
    }
    (2..=longest)
        .rev()
        .map(|n| line("│", "", n))
        .find(|l| l.width() <= width)
        .unwrap_or_else(|| cut_line(line("│", "", 2), width))
}

fn draw_tabs(frame: &mut Frame, area: Rect, app: &App) {
    let line = tab_line(app, usize::from(area.width));
    frame.render_widget(Paragraph::new(line), area);
}

fn draw_pane(frame: &mut Frame, app: &App, pane: Pane, area: Rect) {
    frame.render_widget(pane_block(app, pane, area.width), area);
    let focused = app.focus == pane;
    app.panes
        .get(pane)
        .draw(frame, inner(area), focused, &app.theme);
}

pub fn draw(frame: &mut Frame, app: &App) {
    let areas = &app.areas;
    draw_tabs(frame, areas.tabs, app);
    if let Some(r) = areas.bank {
        draw_pane(frame, app, Pane::Bank, r);
    }
    for (pane, r) in [areas.main, areas.side].into_iter().flatten() {
        draw_pane(frame, app, pane, r);
    }
    status::draw(frame, areas.status, &app.status, &app.theme);
    match &app.popup {
        Some(Popup::Help(h)) => help::draw(frame, h, &app.theme),
        Some(Popup::Finder(f)) => fuzzy::draw(frame, f, &app.theme),
        Some(Popup::Search) => draw_search_popup(frame, app),
        Some(Popup::Confirm(c)) => super::widgets::confirm::draw(frame, c, &app.theme, &app.keymap),
        Some(Popup::Write(w)) => super::panes::write_dialog::draw(frame, w, &app.theme),
        None => {}
    }
}

fn draw_search_popup(frame: &mut Frame, app: &App) {
    let area = search_popup(frame.area());
    let search = &app.panes.search;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(app.theme.border_focused)
        .title(Span::styled(" Search ", app.theme.title))
        .title_bottom(Span::styled(
            // While typing, Esc only leaves the input (the pane's hint says so).
            if search.typing {
                format!(" {} ", search.hints(&app.keymap))
            } else {
                format!(" {} · Esc close ", search.hints(&app.keymap))
            },
            app.theme.muted,
        ));
    crate::tui::areas::clear_popup(frame, area);
    frame.render_widget(block, area);
    search.draw(frame, inner(area), true, &app.theme);
}
