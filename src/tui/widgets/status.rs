//! The status bar: bank, article count, active query, last message.
//! Messages expire (errors last longest) so the bar goes back to saying
//! where you are.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_line;

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
    /// The memory is still being read: there is nothing to count yet.
    pub unread: bool,
    /// The active context query, e.g. `client=Acme domain=Legal`.
    pub query: String,
    pub message: Option<(String, Level)>,
    /// When the message goes away.
    pub expires: Option<Instant>,
    /// The last message said, kept after it left the bar, for the key
    /// that shows it in full.
    pub last: Option<(String, Level)>,
    /// That key's name, offered on the bar when a message is cut.
    pub more_key: String,
    /// The message is a start-up notice or what a write of the user's did:
    /// background news (the re-read that follows the write) does not hide it.
    pub is_notice: bool,
    /// The message says where the selected link of this article goes.
    pub link_note: Option<String>,
    /// The message is the article search's position (`match 2/3`).
    pub search_note: bool,
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
            .is_none_or(|(m, _)| m.starts_with(crate::tui::panes::LOADING))
    }

    fn say(&mut self, text: String, level: Level, lasts: Duration) {
        self.last = Some((text.clone(), level));
        self.message = Some((text, level));
        self.expires = Some(Instant::now() + lasts);
        self.is_notice = false;
        self.link_note = None;
        self.search_note = false;
    }

    /// Where the selected link of the article `rel` goes.
    pub fn link(&mut self, text: impl Into<String>, rel: &str) {
        self.info(text);
        self.link_note = Some(rel.to_owned());
    }

    /// Drop a note about a link of `rel` when that link is no longer
    /// selected in the article shown (`None`: no link selected).
    pub fn drop_stale_link_note(&mut self, shown: Option<&str>) {
        if self.link_note.is_some() && self.link_note.as_deref() != shown {
            self.message = None;
            self.expires = None;
            self.link_note = None;
        }
    }

    /// Where the article search is (`match 2/3`): said until the search
    /// is cleared.
    pub fn search_match(&mut self, text: impl Into<String>) {
        self.info(text);
        self.search_note = true;
    }

    /// Drop the search's position once there is no search: `match 2/3`
    /// left on the bar after Esc would speak of highlights that are gone.
    pub fn drop_stale_search_note(&mut self, searching: bool) {
        if self.search_note && !searching {
            self.message = None;
            self.expires = None;
            self.search_note = false;
        }
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

    /// A warning about the settings, said on start: kept as long as a
    /// notice, and not hidden by the news of files read again.
    pub fn start_warning(&mut self, text: impl Into<String>) {
        self.say(text.into(), Level::Warning, Duration::from_secs(30));
        self.is_notice = true;
    }

    /// What a write the user asked for did, kept over the news of the
    /// re-read it causes (the file watcher reports the same files again).
    pub fn outcome(&mut self, text: impl Into<String>) {
        self.say(text.into(), Level::Info, Duration::from_secs(10));
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

pub fn draw(frame: &mut Frame, area: Rect, status: &Status, theme: &Theme) {
    let base = theme.status_bar;
    let label = Span::styled(format!(" {} ", status.bank), base.patch(theme.title));
    // While the memory is read, the progress message gives the count.
    let reading = status
        .message
        .as_ref()
        .is_some_and(|(m, _)| m.starts_with(crate::tui::panes::LOADING));
    let count = if status.articles == 0 && (reading || status.unread) {
        Span::styled("", base)
    } else {
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
        )
    };
    let query =
        (!status.query.is_empty()).then(|| Span::styled(format!("│ {} ", status.query), base));
    let message = status.message.as_ref().map(|(text, level)| {
        let style = match level {
            Level::Info => theme.status_message,
            Level::Warning => theme.warning,
            Level::Error => theme.error,
        };
        [
            Span::styled("│ ", base),
            Span::styled(text.clone(), base.patch(style)),
        ]
    });
    const HELP: &str = " ? help ";
    let width = usize::from(area.width);
    let used = |spans: &[&Span]| spans.iter().map(|s| s.width()).sum::<usize>();
    let mut spans: Vec<&Span> = vec![&label, &count];
    spans.extend(&query);
    let mut help = true;
    if let Some(message) = &message {
        spans.extend(message);
        // A message someone should read (where the demo lives) goes before
        // the hint, the query and the count, in that order.
        if used(&spans) + HELP.len() > width {
            help = false;
        }
        if used(&spans) > width && query.is_some() {
            spans.remove(2);
        }
        if used(&spans) > width {
            spans.remove(1);
        }
    }
    // A message cut short says which key shows it whole, in the hint's place.
    let more = format!(" {} more ", status.more_key);
    let hint = if message.is_some() && !status.more_key.is_empty() && used(&spans) > width {
        help = true;
        more.as_str()
    } else {
        HELP
    };
    let line = Line::from(spans.into_iter().cloned().collect::<Vec<_>>());
    let help_width = if help { hint.width() as u16 } else { 0 };
    let [left, right] = ratatui::layout::Layout::horizontal([
        ratatui::layout::Constraint::Min(0),
        ratatui::layout::Constraint::Length(help_width),
    ])
    .areas(area);
    let line = cut_line(line, usize::from(left.width));
    frame.render_widget(Paragraph::new(line).style(base), left);
    if help {
        frame.render_widget(
            Paragraph::new(Line::from(hint).right_aligned()).style(base),
            right,
        );
    }
}

#[cfg(test)]
mod tests {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    use super::{Status, draw};
    use crate::tui::theme::Theme;

    fn bar(status: &Status, width: u16) -> String {
        let mut term = Terminal::new(TestBackend::new(width, 1)).unwrap();
        let theme = Theme::default_theme();
        term.draw(|f| draw(f, f.area(), status, &theme)).unwrap();
        let buffer = term.backend().buffer();
        (0..width)
            .map(|x| buffer[(x, 0)].symbol().to_owned())
            .collect()
    }

    #[test]
    fn a_message_too_long_for_the_bar_ends_in_an_ellipsis() {
        let mut status = Status {
            bank: "fixtures/bank".to_owned(),
            articles: 11,
            ..Status::default()
        };
        status.error("01_CLIENTS/Acme Corporation.md could not be read: permission denied");
        let shown = bar(&status, 50);
        assert_eq!(shown.chars().count(), 50);
        assert!(shown.trim_end().ends_with('…'), "{shown:?}");
        assert!(shown.contains("01_CLIENTS/Acme"), "{shown:?}");
    }

    /// A message cut short offers the key that shows it in full, in the
    /// place of the help hint.
    #[test]
    fn a_cut_message_names_the_key_that_shows_it_whole() {
        let mut status = Status {
            bank: "fixtures/bank".to_owned(),
            articles: 11,
            more_key: "m".to_owned(),
            ..Status::default()
        };
        status.error("01_CLIENTS/Acme Corporation.md could not be read: permission denied");
        let shown = bar(&status, 50);
        assert!(shown.ends_with(" m more "), "{shown:?}");
        assert!(shown.contains('…'), "{shown:?}");
        // A message that fits keeps the help hint.
        status.info("saved");
        assert!(bar(&status, 50).ends_with(" ? help "));
        // The message is kept for that key after it left the bar.
        status.expire(std::time::Instant::now() + std::time::Duration::from_secs(60));
        assert_eq!(status.message, None);
        assert_eq!(status.last.as_ref().map(|(m, _)| m.as_str()), Some("saved"));
    }

    /// The hint about copying inside tmux is read whole at 80 columns,
    /// beside a bank's full path.
    #[test]
    fn the_tmux_copy_hint_fits_an_80_column_bar() {
        let mut status = Status {
            bank: "/home/someone/banks/demo-bank".to_owned(),
            articles: 31,
            ..Status::default()
        };
        status.info(crate::tui::osc52::TMUX_HINT);
        let shown = bar(&status, 80);
        assert!(shown.contains(crate::tui::osc52::TMUX_HINT), "{shown:?}");
    }
}
