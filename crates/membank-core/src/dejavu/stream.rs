//! `impressions.jsonl` read in bounded pieces instead of held whole: a
//! command that only scans it (recall) keeps of each line what the scan
//! needs and where the line is, and reads again only the lines it shows.
//!
//! Lines are split as [`super::jsonl::split_lines`] splits the whole text
//! (`split(/\r?\n/)`, 1-based numbers counting blank lines) and decoded as
//! the whole text would be: a line feed is never part of a multi-byte
//! character, so decoding line by line replaces the same bytes.

use std::borrow::Cow;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io;

use super::js;

/// Bytes read per piece: a few thousand impressions, enough to keep two
/// cores busy, little beside the file's size.
pub(crate) const PIECE: usize = 1 << 20;

/// An impressions file opened for reading in pieces.
#[derive(Debug)]
pub struct StreamedJsonl {
    /// Relative to the project, for messages.
    pub path: String,
    file: File,
    /// The size when opened: no more is read, as a whole read would not
    /// either. 0 when the file system reports none.
    size: u64,
    /// The per-file cap, for a file whose size is not reported.
    cap: u64,
}

/// One non-blank line of a piece.
#[derive(Debug)]
pub struct ScannedLine<'a> {
    /// 1-based, counting blank lines too.
    pub line: usize,
    /// The line as the reference parses it: decoded and trimmed.
    pub raw: Cow<'a, str>,
    bytes: &'a [u8],
    offset: u64,
}

impl ScannedLine<'_> {
    /// The offset just past the line's bytes.
    pub fn end(&self) -> u64 {
        self.offset + self.bytes.len() as u64
    }

    /// Where the line is, to read it again and know it is the same line.
    pub fn place(&self) -> LinePlace {
        LinePlace {
            line: self.line,
            offset: self.offset,
            len: self.bytes.len(),
            hash: hash_of(self.bytes),
        }
    }
}

/// A piece of the file: whole lines, the first of them numbered
/// `first_line`.
pub struct Piece<'b, 'l> {
    pub first_line: usize,
    /// The piece's bytes, from the start of its first line to the end of
    /// its last (line feed included).
    pub bytes: &'b [u8],
    /// Its non-blank lines.
    pub lines: &'l [ScannedLine<'b>],
}

/// Where a scanned line is in the file, and a hash of its bytes then.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LinePlace {
    pub line: usize,
    offset: u64,
    len: usize,
    hash: u64,
}

/// The file could not be read, or a line read again is not the one
/// scanned: the file changed meanwhile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamError {
    pub path: String,
    pub line: Option<usize>,
    pub why: String,
}

impl std::fmt::Display for StreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}: {}", self.path, self.why),
            None => write!(f, "{}: {}", self.path, self.why),
        }
    }
}

impl std::error::Error for StreamError {}

fn hash_of(bytes: &[u8]) -> u64 {
    // Fixed keys: the same bytes give the same hash for the whole run.
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, offset)
}

/// Fill `buf` from `offset` as far as the file goes; the bytes read.
fn read_full_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match read_at(file, &mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

impl StreamedJsonl {
    /// `file` was opened by the project's reader, which checked that it is
    /// a regular file inside the project of `size` bytes, within `cap`.
    pub(crate) fn new(path: String, file: File, size: u64, cap: u64) -> StreamedJsonl {
        StreamedJsonl {
            path,
            file,
            size,
            cap,
        }
    }

    /// The file's size when opened (0 when the file system reported
    /// none).
    pub fn size(&self) -> u64 {
        self.size
    }

    fn error(&self, line: Option<usize>, why: String) -> StreamError {
        StreamError {
            path: self.path.clone(),
            line,
            why,
        }
    }

    /// Hand every non-blank line to `each`, a piece at a time, in file
    /// order. Only one piece (and a line longer than a piece) is held.
    pub fn for_each_piece(
        &self,
        mut each: impl FnMut(&[ScannedLine<'_>]),
    ) -> Result<(), StreamError> {
        self.for_each_piece_with_bytes(|piece| each(piece.lines))
    }

    /// [`Self::for_each_piece`], with each piece's bytes as read (blank
    /// lines and line endings included), for what reads the file as text.
    pub fn for_each_piece_with_bytes(
        &self,
        mut each: impl FnMut(Piece<'_, '_>),
    ) -> Result<(), StreamError> {
        // Up to the size seen when opened; a file reported empty is read
        // to its end, one byte past the cap telling it is too large.
        let limit = if self.size > 0 {
            self.size
        } else {
            self.cap + 1
        };
        let mut buf: Vec<u8> = Vec::with_capacity(PIECE.min(limit as usize));
        // File offset of `buf[0]`, and the number of the line it starts.
        let mut start: u64 = 0;
        let mut number = 1;
        let mut done = false;
        while !done {
            let read_to = start + buf.len() as u64;
            let want = PIECE.min((limit - read_to) as usize);
            let held = buf.len();
            buf.resize(held + want, 0);
            let got = read_full_at(&self.file, &mut buf[held..], read_to)
                .map_err(|e| self.error(None, format!("could not be read: {e}")))?;
            buf.truncate(held + got);
            done = got < want || read_to + got as u64 >= limit;
            if self.size == 0 && start + buf.len() as u64 > self.cap {
                return Err(self.error(
                    None,
                    crate::safe_read::ReadError::TooLarge {
                        size: start + buf.len() as u64,
                        limit: self.cap,
                    }
                    .to_string(),
                ));
            }
            // The lines complete in this piece: up to the last line feed,
            // or all of it at the end of the file.
            let complete = if done {
                buf.len()
            } else {
                match memchr::memrchr(b'\n', &buf) {
                    Some(i) => i + 1,
                    // One line longer than a piece: read on.
                    None => continue,
                }
            };
            let first_line = number;
            let mut lines = Vec::new();
            let mut at = 0;
            loop {
                let (end, next) = match memchr::memchr(b'\n', &buf[at..complete]) {
                    Some(i) => (at + i, Some(at + i + 1)),
                    None if at < complete || done => (complete, None),
                    None => break,
                };
                // `\r\n` ends a line; a lone `\r` at the very end stays.
                let end = if next.is_some() && end > at && buf[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                };
                let bytes = &buf[at..end];
                let raw = match String::from_utf8_lossy(bytes) {
                    Cow::Borrowed(s) => Cow::Borrowed(js::js_trim(s)),
                    Cow::Owned(s) => Cow::Owned(js::js_trim(&s).to_owned()),
                };
                if !raw.is_empty() {
                    lines.push(ScannedLine {
                        line: number,
                        raw,
                        bytes,
                        offset: start + at as u64,
                    });
                }
                number += 1;
                match next {
                    Some(n) => at = n,
                    None => break,
                }
            }
            each(Piece {
                first_line,
                bytes: &buf[..complete],
                lines: &lines,
            });
            drop(lines);
            if done {
                break;
            }
            buf.drain(..complete);
            start += complete as u64;
        }
        Ok(())
    }

    /// The line at `place`, decoded and trimmed, read again from the file;
    /// an error when it is no longer the line that was scanned.
    pub fn read_line(&self, place: &LinePlace) -> Result<String, StreamError> {
        let mut bytes = vec![0; place.len];
        let got = read_full_at(&self.file, &mut bytes, place.offset)
            .map_err(|e| self.error(Some(place.line), format!("could not be read again: {e}")))?;
        if got != place.len || hash_of(&bytes) != place.hash {
            return Err(self.error(
                Some(place.line),
                "the file changed while it was read (this line is not the one scanned); run the command again".into(),
            ));
        }
        let text = String::from_utf8_lossy(&bytes);
        Ok(js::js_trim(&text).to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dejavu::jsonl::JsonlFile;

    fn streamed(dir: &std::path::Path, bytes: &[u8]) -> StreamedJsonl {
        let path = dir.join("impressions.jsonl");
        std::fs::write(&path, bytes).unwrap();
        let file = File::open(&path).unwrap();
        StreamedJsonl::new(
            "memory/impressions.jsonl".into(),
            file,
            bytes.len() as u64,
            1 << 30,
        )
    }

    /// Every non-blank line with its number, read in pieces.
    fn lines_of(s: &StreamedJsonl) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        s.for_each_piece(|piece| {
            out.extend(piece.iter().map(|l| (l.line, l.raw.to_string())));
        })
        .unwrap();
        out
    }

    /// The lines as the whole text, decoded at once, gives them.
    fn lines_whole(bytes: &[u8]) -> Vec<(usize, String)> {
        let f = JsonlFile::parse("m", String::from_utf8_lossy(bytes).into_owned());
        f.lines
            .iter()
            .map(|l| (l.line, l.raw().to_owned()))
            .collect()
    }

    #[test]
    fn pieces_split_and_decode_lines_as_the_whole_text_does() {
        let dir = tempfile::tempdir().unwrap();
        // Lines that straddle a piece boundary at every byte of a
        // multi-byte character, a `\r\n` cut between its two bytes, a
        // line longer than a piece, invalid UTF-8, blank lines, a lone
        // `\r` at the end and a last line without a line feed.
        for shift in 0..6 {
            let mut bytes = Vec::new();
            bytes.extend(std::iter::repeat_n(b'a', PIECE - 3 + shift));
            bytes.extend("é€𝐀\r\n\r\n  \n".as_bytes());
            bytes.extend(std::iter::repeat_n(b'b', PIECE * 2 + 7));
            bytes.extend(b"\n{\"id\":\"\xff\xfe\"}\r\n\n");
            bytes.extend(std::iter::repeat_n(b'c', PIECE - 1 - shift));
            bytes.extend(b"\r\nlast\r");
            let s = streamed(dir.path(), &bytes);
            let got = lines_of(&s);
            assert_eq!(got, lines_whole(&bytes), "shift {shift}");
            assert_eq!(got.len(), 5);
        }
        for text in ["", "\n", "x", "x\n", "\r\n\r\n", "a\nb", "\u{feff}{}\n"] {
            let s = streamed(dir.path(), text.as_bytes());
            assert_eq!(lines_of(&s), lines_whole(text.as_bytes()), "{text:?}");
        }
    }

    #[test]
    fn a_line_read_again_is_the_line_scanned_or_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let s = streamed(dir.path(), b"{\"id\":\"one\"}\r\n\n  {\"id\":\"two\"}  \n");
        let mut places = Vec::new();
        s.for_each_piece(|piece| places.extend(piece.iter().map(ScannedLine::place)))
            .unwrap();
        assert_eq!(places.len(), 2);
        assert_eq!(s.read_line(&places[0]).unwrap(), "{\"id\":\"one\"}");
        assert_eq!(s.read_line(&places[1]).unwrap(), "{\"id\":\"two\"}");
        // Rewritten in place (same handle, same length): detected.
        std::fs::write(
            dir.path().join("impressions.jsonl"),
            b"{\"id\":\"one\"}\r\n\n  {\"id\":\"TWO\"}  \n",
        )
        .unwrap();
        assert_eq!(s.read_line(&places[0]).unwrap(), "{\"id\":\"one\"}");
        let e = s.read_line(&places[1]).unwrap_err();
        assert_eq!(e.line, Some(3));
        assert!(e.to_string().contains("changed while it was read"), "{e}");
        // Cut short: detected too.
        std::fs::write(dir.path().join("impressions.jsonl"), b"{").unwrap();
        assert!(s.read_line(&places[0]).is_err());
    }
}
