//! One reply as it arrives: the text so far and where the call stands.

use membank_core::text::sanitize_for_terminal;
use membank_llm::StreamEvent;

use ratatui::text::Line;

use crate::tui::theme::Theme;
use crate::tui::widgets::wrap::WrappedText;

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum StreamState {
    #[default]
    Idle,
    /// Sent; nothing has arrived yet.
    Waiting,
    Streaming,
    Retrying(String),
    Complete,
    /// Stopped early; the reason (cancelled, cut off, an error).
    Incomplete(String),
}

#[derive(Debug, Default)]
pub struct Stream {
    /// The raw text received (sanitised when shown).
    pub text: String,
    pub state: StreamState,
    error: Option<String>,
    cancelled: bool,
    /// `text` sanitised and wrapped at the pane's width, kept up to date as
    /// pieces arrive, so drawing never wraps.
    pub view: WrappedText,
    width: usize,
    /// Characters in `text`, counted as pieces arrive: the status line is
    /// drawn with every piece and must not count the whole reply each time.
    chars: usize,
}

/// A reply that has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub complete: bool,
    pub text: String,
    /// Why it ended early (sanitised), when it did.
    pub why: Option<String>,
}

impl Stream {
    pub fn start(&mut self) {
        *self = Stream {
            state: StreamState::Waiting,
            width: self.width,
            ..Stream::default()
        };
        self.view.update("", self.width);
    }

    /// Wrap at a new width (the pane was resized).
    pub fn set_width(&mut self, width: usize) {
        self.width = width;
        self.view.update(&self.text, width);
    }

    pub fn is_running(&self) -> bool {
        matches!(
            self.state,
            StreamState::Waiting | StreamState::Streaming | StreamState::Retrying(_)
        )
    }

    /// The call never started (no model); nothing arrived.
    pub fn fail(&mut self, why: String) {
        self.state = StreamState::Incomplete(why);
    }

    /// Why the call failed, shown when its `Done` arrives.
    pub fn note_error(&mut self, why: String) {
        self.error = Some(why);
    }

    /// The user asked to stop; the reason shown when `Done` arrives.
    pub fn mark_cancelled(&mut self) {
        self.cancelled = true;
    }

    /// Apply one event of this stream's job; returns the result at the end.
    pub fn apply(&mut self, event: StreamEvent) -> Option<Finished> {
        match event {
            StreamEvent::Delta(piece) => {
                self.text.push_str(&piece);
                self.chars += piece.chars().count();
                self.view.update(&self.text, self.width);
                self.state = StreamState::Streaming;
            }
            StreamEvent::Retrying {
                attempt,
                wait,
                reason,
            } => {
                let text = StreamEvent::retry_text(attempt, wait, &reason);
                self.state = StreamState::Retrying(sanitize_for_terminal(&text, false));
            }
            StreamEvent::Error(e) => {
                self.error = Some(sanitize_for_terminal(&e.to_string(), false));
            }
            StreamEvent::Done { complete, text } => {
                self.text = text;
                self.chars = self.text.chars().count();
                self.view.update(&self.text, self.width);
                let why = if complete {
                    None
                } else if self.cancelled {
                    Some("stopped (s)".to_owned())
                } else {
                    Some(
                        self.error
                            .clone()
                            .unwrap_or_else(|| "the reply ended early".into()),
                    )
                };
                self.state = match &why {
                    None => StreamState::Complete,
                    Some(why) => StreamState::Incomplete(why.clone()),
                };
                return Some(Finished {
                    complete,
                    text: self.text.clone(),
                    why,
                });
            }
        }
        None
    }

    /// Below what an agent sent: the account of the call, the agent's
    /// `note`, and as much of the reply's end as fits in `height` rows.
    pub fn push_progress(
        &self,
        lines: &mut Vec<Line<'static>>,
        note: Option<&str>,
        (width, height): (usize, usize),
        theme: &Theme,
    ) {
        for row in self.status_rows(width) {
            lines.push(Line::styled(row, theme.muted));
        }
        if let Some(note) = note {
            lines.push(Line::styled(note.to_owned(), theme.warning));
        }
        let room = height.saturating_sub(lines.len());
        lines.extend(
            self.view
                .tail(room)
                .map(|r| Line::styled(r.to_owned(), theme.text)),
        );
    }

    /// The account of the call wrapped to `width` (an error can be long).
    pub fn status_rows(&self, width: usize) -> Vec<String> {
        self.status_line()
            .map(|s| crate::tui::widgets::wrap::wrap(&format!("[{s}]"), width.max(10)))
            .unwrap_or_default()
    }

    /// A one-line account of the call, for a pane's header.
    pub fn status_line(&self) -> Option<String> {
        Some(match &self.state {
            StreamState::Idle => return None,
            StreamState::Waiting => "waiting for the model… (s stops)".into(),
            StreamState::Streaming => {
                format!("receiving… {} characters (s stops)", self.chars)
            }
            StreamState::Retrying(r) => r.clone(),
            StreamState::Complete => "reply complete".into(),
            // "Incomplete" would suggest part of a reply is here to read.
            StreamState::Incomplete(why) if self.text.is_empty() => format!("NO REPLY: {why}"),
            StreamState::Incomplete(why) => format!("INCOMPLETE: {why}"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_of_a_stream_says_whether_it_was_stopped_or_failed() {
        let mut s = Stream::default();
        s.set_width(40);
        s.start();
        assert!(s.is_running());
        s.apply(StreamEvent::Delta("par\x1b[2Jt\r\n".into()));
        assert_eq!(s.view.tail(9).collect::<Vec<_>>(), ["par␛[2Jt", ""]);
        s.mark_cancelled();
        let done = s.apply(StreamEvent::Done {
            complete: false,
            text: "par".into(),
        });
        assert_eq!(
            done,
            Some(Finished {
                complete: false,
                text: "par".into(),
                why: Some("stopped (s)".into()),
            })
        );
        assert_eq!(s.status_line().unwrap(), "INCOMPLETE: stopped (s)");
        assert!(!s.is_running());
    }

    #[test]
    fn a_call_that_brought_no_text_says_no_reply_rather_than_incomplete() {
        let mut s = Stream::default();
        s.start();
        s.apply(StreamEvent::Error(membank_llm::LlmError::KeyCommand(
            "the key command printed nothing".into(),
        )));
        s.apply(StreamEvent::Done {
            complete: false,
            text: String::new(),
        });
        assert!(s.status_line().unwrap().starts_with("NO REPLY: "));

        let mut never_sent = Stream::default();
        never_sent.fail("no model is set up".into());
        assert_eq!(
            never_sent.status_line().unwrap(),
            "NO REPLY: no model is set up"
        );
    }
}
