//! The Health tab: every finding of the project's checks, errors first;
//! Enter shows the file in the Records tab.

use membank_core::health::{HealthReport, Severity};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::super::theme::Theme;

pub struct HealthView {
    pub report: HealthReport,
    pub selected: usize,
}

impl HealthView {
    pub fn new(report: HealthReport) -> HealthView {
        HealthView {
            report,
            selected: 0,
        }
    }

    /// Returns the path to show when Enter is pressed on a finding.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<String> {
        let last = self.report.findings.len().saturating_sub(1);
        match key.code {
            KeyCode::Down | KeyCode::Char('j') => self.selected = (self.selected + 1).min(last),
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Enter => {
                return self
                    .report
                    .findings
                    .get(self.selected)
                    .map(|f| f.path.clone());
            }
            _ => {}
        }
        None
    }

    pub fn hints(&self) -> &'static str {
        "↑/↓ select · Enter show the file"
    }
}

pub fn draw(frame: &mut Frame, area: Rect, v: &HealthView, theme: &Theme) {
    let c = v.report.counts;
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{} errors, {} warnings, {} info",
            c.error, c.warning, c.info
        ),
        theme.title,
    ))];
    let rows = usize::from(area.height).saturating_sub(1);
    let skip = v.selected.saturating_sub(rows.saturating_sub(1));
    for (i, f) in v.report.findings.iter().enumerate().skip(skip).take(rows) {
        let style = match f.severity {
            Severity::Error => theme.error,
            Severity::Warning => theme.warning,
            Severity::Info => theme.info,
        };
        let line = Line::from(vec![
            Span::styled(format!("{:<8}", f.severity.as_str()), style),
            Span::styled(format!("{:<24} ", f.code), theme.muted),
            Span::styled(sanitize_for_terminal(&f.location(), false), theme.link),
            Span::raw("  "),
            Span::raw(sanitize_for_terminal(&f.message, false)),
        ]);
        lines.push(if i == v.selected {
            line.style(theme.selection)
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}
