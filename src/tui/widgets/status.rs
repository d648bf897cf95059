//! The status bar: bank, article count, active query, last message.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

/// Everything the bar shows, already formatted and sanitised.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Status {
    pub bank: String,
    pub articles: usize,
    /// What `articles` counts when it is not articles ("files").
    pub noun: &'static str,
    /// The active context query, e.g. `client=Acme domain=Legal`.
    pub query: String,
    pub message: Option<(String, Level)>,
}

impl Status {
    /// Is the line empty or showing the background load's progress?
    pub fn shows_loading(&self) -> bool {
        self.message
            .as_ref()
            .is_none_or(|(m, _)| m.starts_with(crate::tui::app::LOADING))
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Level::Info));
    }
    pub fn warn(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Level::Warning));
    }
    pub fn error(&mut self, text: impl Into<String>) {
        self.message = Some((text.into(), Level::Error));
    }
}

pub fn draw(frame: &mut Frame, area: Rect, status: &Status, theme: &Theme) {
    let base = theme.status_bar;
    let mut spans = vec![
        Span::styled(format!(" {} ", status.bank), base.patch(theme.title)),
        Span::styled(
            format!(
                "│ {} {} ",
                status.articles,
                if status.noun.is_empty() {
                    "articles"
                } else {
                    status.noun
                }
            ),
            base,
        ),
    ];
    if !status.query.is_empty() {
        spans.push(Span::styled(format!("│ {} ", status.query), base));
    }
    if let Some((text, level)) = &status.message {
        let style = match level {
            Level::Info => theme.status_message,
            Level::Warning => theme.warning,
            Level::Error => theme.error,
        };
        spans.push(Span::styled("│ ", base));
        spans.push(Span::styled(text.clone(), base.patch(style)));
    }
    let [left, right] = ratatui::layout::Layout::horizontal([
        ratatui::layout::Constraint::Min(0),
        ratatui::layout::Constraint::Length(8),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(base), left);
    frame.render_widget(
        Paragraph::new(Line::from(" ? help ").right_aligned()).style(base),
        right,
    );
}
