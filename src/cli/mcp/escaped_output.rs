//! The protocol's output (standard output, HTTP response bodies) with the
//! characters the `--json` writer escapes (C1 controls such as the one-byte
//! CSI U+009B, bidi overrides, zero-width characters) written as `\uXXXX`,
//! so a client that shows or logs the stream cannot be steered by an
//! article's text.
//!
//! The protocol's JSON is ASCII outside its strings, so every such
//! character found in the bytes is inside a string, where its escape means
//! exactly the same character to any JSON reader.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use http_body_util::BodyExt as _;
use http_body_util::combinators::BoxBody;
use hyper::body::{Body, Bytes};
use membank_core::json::needs_escape;
use tokio::io::AsyncWrite;

pub struct EscapedOutput<W> {
    inner: W,
    /// Escaped bytes not yet taken by `inner`.
    pending: Vec<u8>,
    /// The start of a UTF-8 sequence split between two writes.
    partial: Vec<u8>,
}

impl<W> EscapedOutput<W> {
    pub fn new(inner: W) -> EscapedOutput<W> {
        EscapedOutput {
            inner,
            pending: Vec::new(),
            partial: Vec::new(),
        }
    }
}

/// Append `input` to `out` with [`needs_escape`] characters escaped; an
/// incomplete UTF-8 sequence at the end is kept in `partial` for the next
/// call. Bytes that are not UTF-8 at all pass unchanged.
pub fn escape_into(partial: &mut Vec<u8>, input: &[u8], out: &mut Vec<u8>) {
    let joined;
    let mut bytes = input;
    if !partial.is_empty() {
        partial.extend_from_slice(input);
        joined = std::mem::take(partial);
        bytes = &joined;
    }
    loop {
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                escape_text(text, out);
                return;
            }
            Err(e) => {
                let (valid, rest) = bytes.split_at(e.valid_up_to());
                escape_text(std::str::from_utf8(valid).unwrap_or_default(), out);
                match e.error_len() {
                    // Cut off at the end: wait for the rest.
                    None => {
                        partial.extend_from_slice(rest);
                        return;
                    }
                    Some(bad) => {
                        out.extend_from_slice(&rest[..bad]);
                        bytes = &rest[bad..];
                    }
                }
            }
        }
    }
}

fn escape_text(text: &str, out: &mut Vec<u8>) {
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if needs_escape(c) {
            out.extend_from_slice(&text.as_bytes()[start..i]);
            out.extend_from_slice(format!("\\u{:04x}", u32::from(c)).as_bytes());
            start = i + c.len_utf8();
        }
    }
    out.extend_from_slice(&text.as_bytes()[start..]);
}

impl<W: AsyncWrite + Unpin> EscapedOutput<W> {
    /// Hand every pending byte to `inner`.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.pending.is_empty() {
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &self.pending))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.pending.drain(..n);
        }
        Poll::Ready(Ok(()))
    }
}

impl<W: AsyncWrite + Unpin> AsyncWrite for EscapedOutput<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        // New bytes are taken only once the last ones are out, so at most
        // one write's worth is ever held here.
        ready!(this.poll_drain(cx))?;
        escape_into(&mut this.partial, buf, &mut this.pending);
        // Start passing them on now; what is left goes on the next call.
        if let Poll::Ready(Err(e)) = this.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.partial.is_empty() {
            let cut = std::mem::take(&mut this.partial);
            this.pending.extend_from_slice(&cut);
        }
        ready!(this.poll_drain(cx))?;
        Pin::new(&mut this.inner).poll_shutdown(cx)
    }
}

/// An HTTP response body, escaped frame by frame (a server-sent event or
/// a JSON answer alike: both carry the JSON as it is).
pub fn escaped_body<B>(body: B) -> BoxBody<Bytes, B::Error>
where
    B: Body<Data = Bytes> + Send + Sync + 'static,
{
    let mut partial = Vec::new();
    body.map_frame(move |frame| {
        frame.map_data(|data| {
            let mut out = Vec::with_capacity(data.len());
            escape_into(&mut partial, &data, &mut out);
            Bytes::from(out)
        })
    })
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escaped_in_pieces(input: &str, cut: usize) -> String {
        let (mut partial, mut out) = (Vec::new(), Vec::new());
        escape_into(&mut partial, &input.as_bytes()[..cut], &mut out);
        escape_into(&mut partial, &input.as_bytes()[cut..], &mut out);
        assert!(partial.is_empty());
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn c1_and_bidi_characters_are_escaped_even_when_a_write_splits_them() {
        let input = "{\"text\":\"a\u{9b}31m b\u{202e}c é\"}";
        let want = "{\"text\":\"a\\u009b31m b\\u202ec é\"}";
        for cut in 0..=input.len() {
            assert_eq!(escaped_in_pieces(input, cut), want, "cut at {cut}");
        }
    }

    #[test]
    fn bytes_that_are_not_utf8_pass_unchanged() {
        let (mut partial, mut out) = (Vec::new(), Vec::new());
        escape_into(&mut partial, b"a\xffb\xc2\x9b", &mut out);
        assert_eq!(out, b"a\xffb\\u009b");
    }
}
