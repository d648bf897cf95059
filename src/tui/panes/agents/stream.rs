//! One reply as it arrives: the text so far and where the call stands.

use membank_core::text::sanitize_for_terminal;
use membank_llm::StreamEvent;

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
}

/// A reply that has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    pub complete: bool,
    pub text: String,
}

impl Stream {
    pub fn start(&mut self) {
        *self = Stream {
            state: StreamState::Waiting,
            ..Stream::default()
        };
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

    /// The user asked to stop; the reason shown when `Done` arrives.
    pub fn mark_cancelled(&mut self) {
        self.cancelled = true;
    }

    /// Apply one event of this stream's job; returns the result at the end.
    pub fn apply(&mut self, event: StreamEvent) -> Option<Finished> {
        match event {
            StreamEvent::Delta(piece) => {
                self.text.push_str(&piece);
                self.state = StreamState::Streaming;
            }
            StreamEvent::Retrying {
                attempt,
                wait,
                reason,
            } => {
                self.state = StreamState::Retrying(sanitize_for_terminal(
                    &format!("retry {attempt} in {:.1}s: {reason}", wait.as_secs_f32()),
                    false,
                ));
            }
            StreamEvent::Error(e) => {
                self.error = Some(sanitize_for_terminal(&e.to_string(), false));
            }
            StreamEvent::Done { complete, text } => {
                self.text = text;
                self.state = if complete {
                    StreamState::Complete
                } else if self.cancelled {
                    StreamState::Incomplete("stopped with Esc".into())
                } else {
                    StreamState::Incomplete(
                        self.error
                            .clone()
                            .unwrap_or_else(|| "the reply ended early".into()),
                    )
                };
                return Some(Finished {
                    complete,
                    text: self.text.clone(),
                });
            }
        }
        None
    }

    /// The text as it may be drawn.
    pub fn shown(&self) -> String {
        // CRLF from some servers is a plain line break on screen.
        sanitize_for_terminal(&self.text.replace("\r\n", "\n"), true)
    }

    /// A one-line account of the call, for a pane's header.
    pub fn status_line(&self) -> Option<String> {
        Some(match &self.state {
            StreamState::Idle => return None,
            StreamState::Waiting => "waiting for the model… (Esc stops)".into(),
            StreamState::Streaming => format!(
                "receiving… {} characters (Esc stops)",
                self.text.chars().count()
            ),
            StreamState::Retrying(r) => r.clone(),
            StreamState::Complete => "reply complete".into(),
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
        s.start();
        assert!(s.is_running());
        s.apply(StreamEvent::Delta("par\x1b[2Jt\r\n".into()));
        assert_eq!(s.shown(), "par␛[2Jt\n");
        s.mark_cancelled();
        let done = s.apply(StreamEvent::Done {
            complete: false,
            text: "par".into(),
        });
        assert_eq!(
            done,
            Some(Finished {
                complete: false,
                text: "par".into()
            })
        );
        assert_eq!(s.status_line().unwrap(), "INCOMPLETE: stopped with Esc");
        assert!(!s.is_running());
    }
}
