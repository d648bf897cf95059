//! The findings the health checks made on the file shown, listed at the
//! top of the Article pane.

use membank_core::health::{HealthReport, Severity};
use membank_core::text::sanitize_for_terminal;
use ratatui::text::{Line, Span};

use crate::tui::theme::Theme;

/// The article's own health findings, for the top of the article: one
/// line counting them, and when `open` each with its severity, code, line
/// and message, wrapped to `width`. A real vault's article may have a dozen;
/// listed unasked they pushed the article itself off the screen.
pub(super) fn findings_lines(
    report: &HealthReport,
    rel: &str,
    open: bool,
    theme: &Theme,
    width: u16,
) -> Vec<Line<'static>> {
    let mine: Vec<_> = report.findings.iter().filter(|f| *f.path == *rel).collect();
    let Some(worst) = mine.iter().map(|f| f.severity).min() else {
        return Vec::new();
    };
    let count = format!(
        "{} finding{}",
        mine.len(),
        if mine.len() == 1 { "" } else { "s" }
    );
    let summary = Line::from(vec![
        Span::styled(
            format!("{count} in this file"),
            severity_style(worst, theme),
        ),
        Span::styled(
            if open {
                ": (! hides them)"
            } else {
                " · ! to show"
            },
            theme.muted,
        ),
    ]);
    if !open {
        return vec![summary];
    }
    let mut lines = vec![summary];
    for f in mine {
        let style = severity_style(f.severity, theme);
        let at = f.line().map(|l| format!(" line {l}")).unwrap_or_default();
        let text = sanitize_for_terminal(&format!("{}{at}: {}", f.code(), f.message()), false);
        for (i, row) in crate::tui::widgets::wrap::wrap(&text, usize::from(width).saturating_sub(4))
            .into_iter()
            .enumerate()
        {
            let lead = if i == 0 { "  • " } else { "    " };
            lines.push(Line::from(vec![Span::raw(lead), Span::styled(row, style)]));
        }
    }
    lines.push(Line::styled("─".repeat(20), theme.rule));
    lines
}

fn severity_style(severity: Severity, theme: &Theme) -> ratatui::style::Style {
    match severity {
        Severity::Error => theme.error,
        Severity::Warning => theme.warning,
        Severity::Info => theme.info,
    }
}
