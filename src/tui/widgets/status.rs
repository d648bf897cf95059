//! The status bar: bank, article count, active query, last message.
//! Messages expire (errors last longest) so the bar goes back to saying
//! where you are.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::tui::theme::Theme;
use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};

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
    /// When the message goes away.
    pub expires: Option<Instant>,
    /// The message is a start-up notice (background news does not hide it).
    pub is_notice: bool,
}

/// How long a message stays: long enough to read, short enough not to
/// linger over what the bar normally shows.
fn lifetime(level: Level) -> Duration {
    Duration::from_secs(match level {
        Level::Info => 6,
        Level::Warning => 12,
        Level::Error => 30,
    })
}

impl Status {
    /// Is the line empty or showing the background load's progress?
    pub fn shows_loading(&self) -> bool {
        self.message
            .as_ref()
            .is_none_or(|(m, _)| m.starts_with(crate::tui::app::LOADING))
    }

    fn say(&mut self, text: String, level: Level, lasts: Duration) {
        self.message = Some((text, level));
        self.expires = Some(Instant::now() + lasts);
        self.is_notice = false;
    }

    /// Is the message a start-up notice still showing?
    pub fn shows_notice(&self) -> bool {
        self.is_notice && self.message.is_some()
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.say(text.into(), Level::Info, lifetime(Level::Info));
    }
    pub fn warn(&mut self, text: impl Into<String>) {
        self.say(text.into(), Level::Warning, lifetime(Level::Warning));
    }
    pub fn error(&mut self, text: impl Into<String>) {
        self.say(text.into(), Level::Error, lifetime(Level::Error));
    }
    /// Something to read before starting, kept for half a minute.
    pub fn notice(&mut self, text: impl Into<String>) {
        self.say(text.into(), Level::Info, Duration::from_secs(30));
        self.is_notice = true;
    }

    /// Drop the message once its time is up. Returns whether it went.
    pub fn expire(&mut self, now: Instant) -> bool {
        if self.expires.is_some_and(|t| now >= t) {
            self.message = None;
            self.expires = None;
            return true;
        }
        false
    }

    /// When the runner should wake to expire the message.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.expires
    }
}

/// Columns of the " ? help " at the right end.
const HELP_WIDTH: u16 = 8;

/// `text` cut to `width` columns, ending in "…" when it was cut.
fn ellipsize(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

pub fn draw(frame: &mut Frame, area: Rect, status: &Status, theme: &Theme) {
    let base = theme.status_bar;
    let bank = Span::styled(format!(" {} ", status.bank), base.patch(theme.title));
    let count = Span::styled(
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
    );
    let query =
        (!status.query.is_empty()).then(|| Span::styled(format!("│ {} ", status.query), base));
    let room = usize::from(area.width.saturating_sub(HELP_WIDTH));
    let mut spans = vec![bank];
    if let Some((text, level)) = &status.message {
        let style = match level {
            Level::Info => theme.status_message,
            Level::Warning => theme.warning,
            Level::Error => theme.error,
        };
        // The message is what just happened: when the bar is too narrow
        // for everything, the count and then the query give way to it, and
        // what still does not fit ends in an ellipsis instead of mid-word.
        let used = |spans: &[Span]| spans.iter().map(Span::width).sum::<usize>();
        let message_width = 2 + text.width();
        if spans[0].width() + message_width > room
            && let Some((_, last)) = status.bank.trim_end_matches('/').rsplit_once('/')
        {
            // The folder's own name still says which bank this is.
            spans[0] = Span::styled(format!(" {last} "), base.patch(theme.title));
        }
        for optional in [Some(count), query] {
            if let Some(span) = optional
                && used(&spans) + span.width() + message_width <= room
            {
                spans.push(span);
            }
        }
        spans.push(Span::styled("│ ", base));
        let left_for_text = room.saturating_sub(used(&spans));
        spans.push(Span::styled(
            ellipsize(text, left_for_text),
            base.patch(style),
        ));
    } else {
        spans.push(count);
        spans.extend(query);
    }
    let [left, right] = ratatui::layout::Layout::horizontal([
        ratatui::layout::Constraint::Min(0),
        ratatui::layout::Constraint::Length(HELP_WIDTH),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(base), left);
    frame.render_widget(
        Paragraph::new(Line::from(" ? help ").right_aligned()).style(base),
        right,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    fn bar(status: &Status, width: u16) -> String {
        let mut term = Terminal::new(TestBackend::new(width, 1)).unwrap();
        term.draw(|f| draw(f, f.area(), status, &Theme::default_theme()))
            .unwrap();
        term.backend().to_string()
    }

    #[test]
    fn a_message_that_does_not_fit_is_kept_whole_before_the_counts_and_query() {
        let mut s = Status {
            bank: "/home/someone/banks/legal-nl".into(),
            articles: 1234,
            query: "client=Brightwell Pharma target=nl".into(),
            ..Status::default()
        };
        s.info("only _EXAMPLE_ files: see the Article pane");
        let shown = bar(&s, 80);
        assert!(shown.contains("see the Article pane"), "{shown}");
        assert!(shown.contains("legal-nl"), "{shown}");
        assert!(shown.contains("? help"), "{shown}");
        // With room to spare everything is there.
        let wide = bar(&s, 160);
        assert!(
            wide.contains("1234 articles") && wide.contains("client=Brightwell"),
            "{wide}"
        );
        // A message longer than the bar ends with an ellipsis, not mid-word.
        s.info("word ".repeat(30));
        let cut = bar(&s, 80);
        assert!(cut.contains('…'), "{cut}");
    }
}
