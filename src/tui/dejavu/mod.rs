//! The interface for a Deja Vu project: three tabs over one loaded project.
//! Recall (cue → level, score, every impression's arithmetic), Records
//! (files grouped by kind with status badges, links followed) and Health
//! (the checks' findings). Tab switches; Esc or Ctrl-C quits.
//!
//! `on_key` changes the state; `draw` only reads it.

pub mod health;
pub mod recall;
pub mod records;

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use membank_core::dejavu::{Project, checks};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::terminal;
use super::theme::Theme;
use health::HealthView;
use recall::RecallView;
use records::RecordsView;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    Recall,
    Records,
    Health,
}

impl Tab {
    const ALL: [Tab; 3] = [Tab::Recall, Tab::Records, Tab::Health];

    fn title(self) -> &'static str {
        match self {
            Tab::Recall => "Recall",
            Tab::Records => "Records",
            Tab::Health => "Health",
        }
    }
}

pub struct DejavuApp {
    pub label: String,
    pub tab: Tab,
    pub recall: RecallView,
    pub records: RecordsView,
    pub health: HealthView,
}

impl DejavuApp {
    pub fn new(project: Project, label: String) -> DejavuApp {
        let report = checks::check(&project);
        let project = Arc::new(project);
        DejavuApp {
            label,
            tab: Tab::Recall,
            recall: RecallView::new(project.clone()),
            records: RecordsView::new(project),
            health: HealthView::new(report),
        }
    }

    /// Handle a key; returns false when the user quits.
    pub fn on_key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return false,
            KeyCode::Char('c') if ctrl => return false,
            KeyCode::Tab | KeyCode::BackTab => {
                let at = Tab::ALL.iter().position(|t| *t == self.tab).unwrap_or(0);
                let step = if key.code == KeyCode::Tab { 1 } else { 2 };
                self.tab = Tab::ALL[(at + step) % Tab::ALL.len()];
            }
            _ => match self.tab {
                Tab::Recall => self.recall.on_key(key),
                Tab::Records => self.records.on_key(key),
                Tab::Health => {
                    if let Some(path) = self.health.on_key(key) {
                        self.records.show_path(&path);
                        self.tab = Tab::Records;
                    }
                }
            },
        }
        true
    }
}

/// Draw the whole screen from the state alone.
pub fn draw(frame: &mut Frame, app: &DejavuApp, theme: &Theme) {
    let [main, status] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(frame.area());
    let mut title = vec![Span::styled(
        format!(" {} ", sanitize_for_terminal(&app.label, false)),
        theme.title,
    )];
    for t in Tab::ALL {
        let style = if t == app.tab {
            theme.selection
        } else {
            theme.muted
        };
        title.push(Span::styled(format!(" {} ", t.title()), style));
    }
    let hints = match app.tab {
        Tab::Recall => app.recall.hints(),
        Tab::Records => app.records.hints().to_owned(),
        Tab::Health => app.health.hints().to_owned(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Line::from(title))
        .title_bottom(Span::styled(
            format!(" {hints} · Tab next tab · Esc quit "),
            theme.hint_text,
        ));
    let inner = block.inner(main);
    frame.render_widget(block, main);
    match app.tab {
        Tab::Recall => recall::draw(frame, inner, &app.recall, theme),
        Tab::Records => records::draw(frame, inner, &app.records, theme),
        Tab::Health => health::draw(frame, inner, &app.health, theme),
    }
    frame.render_widget(
        Paragraph::new(Line::from(Span::styled(
            app.recall.status.clone(),
            theme.status_message,
        ))),
        status,
    );
}

/// Run the interface on a project until the user quits.
pub fn run(root: &Path, project: Project, theme: &Theme) -> anyhow::Result<()> {
    let mut app = DejavuApp::new(project, root.display().to_string());
    terminal::install_panic_hook();
    let mut term = terminal::enter(false).context("setting up the terminal")?;
    let result = (|| -> anyhow::Result<()> {
        loop {
            term.draw(|f| draw(f, &app, theme))?;
            if let Event::Key(key) = event::read()?
                && key.kind != KeyEventKind::Release
                && !app.on_key(key)
            {
                return Ok(());
            }
        }
    })();
    let restored = terminal::leave();
    result?;
    restored?;
    Ok(())
}

#[cfg(test)]
mod tests;
