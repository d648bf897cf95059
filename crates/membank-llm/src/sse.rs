//! A small incremental parser for `text/event-stream` bodies.
//!
//! Network chunks arrive at arbitrary boundaries, so the parser keeps the
//! unfinished line between calls and only decodes complete lines (a line
//! break never splits a UTF-8 sequence, so decoding per line is safe).

/// One dispatched server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if the server sent one.
    pub event: Option<String>,
    /// All `data:` lines of the event, joined with `\n`.
    pub data: String,
}

/// Why a body could not be read as an event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    /// A single line grew past the limit without a line break.
    LineTooLong { limit: usize },
    /// One event's `data:` lines together grew past the limit.
    EventTooLong { limit: usize },
}

impl std::fmt::Display for SseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SseError::LineTooLong { limit } => {
                write!(f, "an event-stream line exceeded {limit} bytes")
            }
            SseError::EventTooLong { limit } => {
                write!(f, "an event-stream event exceeded {limit} bytes")
            }
        }
    }
}

/// Lines longer than this are treated as garbage rather than buffered forever.
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;
/// Many `data:` lines without the blank line that ends an event would
/// otherwise be joined without bound.
pub const MAX_EVENT_BYTES: usize = 16 * 1024 * 1024;

/// Incremental event-stream parser. Feed it with [`SseParser::push`].
#[derive(Debug, Default)]
pub struct SseParser {
    partial_line: Vec<u8>,
    /// A `\r` ended the previous chunk; a `\n` starting the next one belongs to it.
    pending_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    /// Lines that were neither fields we know nor comments (diagnostics only).
    unknown_lines: usize,
    first_unknown_line: Option<String>,
}

impl SseParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one network chunk and returns the events it completed.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        let mut events = Vec::new();
        let mut rest = chunk;
        if self.pending_cr {
            self.pending_cr = false;
            if let Some((&b'\n', tail)) = rest.split_first() {
                rest = tail;
            }
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            let (line_part, tail) = rest.split_at(pos);
            self.partial_line.extend_from_slice(line_part);
            let line = std::mem::take(&mut self.partial_line);
            let is_cr = tail[0] == b'\r';
            rest = &tail[1..];
            if is_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    None => self.pending_cr = true,
                    Some(_) => {}
                }
            }
            if let Some(event) = self.process_line(&line) {
                events.push(event);
            }
            if self.data.len() > MAX_EVENT_BYTES {
                self.data.clear();
                self.has_data = false;
                return Err(SseError::EventTooLong {
                    limit: MAX_EVENT_BYTES,
                });
            }
        }
        self.partial_line.extend_from_slice(rest);
        if self.partial_line.len() > MAX_LINE_BYTES {
            self.partial_line.clear();
            return Err(SseError::LineTooLong {
                limit: MAX_LINE_BYTES,
            });
        }
        Ok(events)
    }

    /// Ends the stream. An event that was never terminated by a blank line
    /// is returned anyway: a server that closes right after its last
    /// `data:` line still meant to send it.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let line = std::mem::take(&mut self.partial_line);
        let mut event = None;
        if !line.is_empty() {
            event = self.process_line(&line);
        }
        event.or_else(|| self.dispatch())
    }

    /// The body so far ends inside a line: had the stream ended here, that
    /// line was cut off rather than finished.
    pub fn ends_mid_line(&self) -> bool {
        !self.partial_line.is_empty()
    }

    /// How many lines were not valid event-stream fields or comments.
    pub fn unknown_lines(&self) -> usize {
        self.unknown_lines
    }

    /// The first such line, for error messages (unsanitised).
    pub fn first_unknown_line(&self) -> Option<&str> {
        self.first_unknown_line.as_deref()
    }

    fn process_line(&mut self, raw: &[u8]) -> Option<SseEvent> {
        if raw.is_empty() {
            return self.dispatch();
        }
        let line = String::from_utf8_lossy(raw);
        if line.starts_with(':') {
            return None;
        }
        let (field, value) = match line.find(':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(' ').unwrap_or(value))
            }
            None => (&line[..], ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            "id" | "retry" => {}
            _ => {
                self.unknown_lines += 1;
                if self.first_unknown_line.is_none() {
                    self.first_unknown_line = Some(line.chars().take(200).collect());
                }
            }
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for chunk in chunks {
            out.extend(parser.push(chunk).unwrap());
        }
        out.extend(parser.finish());
        out
    }

    fn data(s: &str) -> SseEvent {
        SseEvent {
            event: None,
            data: s.to_string(),
        }
    }

    #[test]
    fn plain_lf_events() {
        let events = parse_all(&[b"data: one\n\ndata: two\n\n"]);
        assert_eq!(events, vec![data("one"), data("two")]);
    }

    #[test]
    fn crlf_and_lone_cr_line_endings() {
        let events = parse_all(&[b"data: a\r\n\r\ndata: b\r\rdata: c\n\n"]);
        assert_eq!(events, vec![data("a"), data("b"), data("c")]);
    }

    #[test]
    fn crlf_split_between_chunks_is_one_line_break() {
        // If the "\n" after a chunk-final "\r" were a second line break, the
        // blank line would dispatch "x" early and "y" would become its own event.
        let events = parse_all(&[b"data: x\r", b"\ndata: y\r", b"\n\r", b"\n"]);
        assert_eq!(events, vec![data("x\ny")]);
    }

    #[test]
    fn multi_line_data_is_joined_with_newlines() {
        let events = parse_all(&[b"data: first\ndata:second\ndata:  third\n\n"]);
        assert_eq!(events, vec![data("first\nsecond\n third")]);
    }

    #[test]
    fn comments_and_ids_are_ignored() {
        let events = parse_all(&[b": keep-alive\nid: 7\nretry: 100\ndata: x\n\n:ping\n\n"]);
        assert_eq!(events, vec![data("x")]);
    }

    #[test]
    fn event_name_is_kept_and_reset_after_dispatch() {
        let events = parse_all(&[b"event: message_stop\ndata: {}\n\ndata: plain\n\n"]);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("message_stop".into()),
                    data: "{}".into()
                },
                data("plain")
            ]
        );
    }

    #[test]
    fn events_split_across_chunks_byte_by_byte() {
        let body = "event: delta\ndata: {\"t\":\"héllo wörld\"}\n\ndata: [DONE]\n\n";
        let chunks: Vec<&[u8]> = body.as_bytes().chunks(1).collect();
        let events = parse_all(&chunks);
        assert_eq!(
            events,
            vec![
                SseEvent {
                    event: Some("delta".into()),
                    data: "{\"t\":\"héllo wörld\"}".into()
                },
                data("[DONE]")
            ]
        );
    }

    #[test]
    fn unterminated_final_event_is_returned_by_finish() {
        let events = parse_all(&[b"data: tail"]);
        assert_eq!(events, vec![data("tail")]);
    }

    #[test]
    fn garbage_lines_are_counted_not_dispatched() {
        let mut parser = SseParser::new();
        let events = parser.push(b"<html>\n<body>oops</body>\n\n").unwrap();
        assert!(events.is_empty());
        assert!(parser.finish().is_none());
        assert_eq!(parser.unknown_lines(), 2);
        assert_eq!(parser.first_unknown_line(), Some("<html>"));
    }

    #[test]
    fn endless_event_is_an_error_not_unbounded_memory() {
        let mut parser = SseParser::new();
        let line = format!("data: {}\n", "x".repeat(1024 * 1024));
        let outcome = (0..=MAX_EVENT_BYTES / (1024 * 1024))
            .map(|_| parser.push(line.as_bytes()))
            .find(Result::is_err);
        assert!(matches!(outcome, Some(Err(SseError::EventTooLong { .. }))));
    }

    #[test]
    fn endless_line_is_an_error_not_unbounded_memory() {
        let mut parser = SseParser::new();
        let big = vec![b'x'; MAX_LINE_BYTES + 1];
        assert!(matches!(
            parser.push(&big),
            Err(SseError::LineTooLong { .. })
        ));
    }
}
