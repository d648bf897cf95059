//! Entry markers and entry ids, read the way everos reads them.
//!
//! everos finds an open marker `<!-- entry:ID -->` anywhere in the body, then
//! the first `<!-- /entry:ID -->` for the same id after it; everything
//! between is the body, even code fences and marker look-alikes with other
//! ids. An open marker without its close ends the scan: everos does not see
//! the entries after it. The same rules are implemented here so that what
//! membank lists is exactly what everos indexes.

use std::ops::Range;
use std::sync::LazyLock;

use jiff::civil::Date;
use memchr::memmem::Finder;

/// One marker-delimited entry, as byte ranges into the body it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawEntry {
    pub id: String,
    /// From the `<` of the open marker to just past the `>` of the close.
    pub span: Range<usize>,
    /// Between the markers, one leading and one trailing newline removed
    /// (everos's own body).
    pub body: Range<usize>,
}

/// What a marker scan found: the entries and, if the scan stopped early,
/// where the open marker without a close is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    pub entries: Vec<RawEntry>,
    /// `(offset, id)` of an open marker that has no matching close.
    pub unclosed: Option<(usize, String)>,
}

const OPEN_PREFIX: &str = "<!-- entry:";
const CLOSE_PREFIX: &str = "<!-- /entry:";
const MARKER_SUFFIX: &str = " -->";

fn is_id_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

/// The id of a marker starting at `at` with `prefix`, if it is well formed:
/// one or more id characters followed by ` -->`.
fn marker_id_at<'a>(text: &'a str, at: usize, prefix: &str) -> Option<&'a str> {
    let rest = text.get(at..)?.strip_prefix(prefix)?;
    let len = rest.bytes().take_while(|&b| is_id_byte(b)).count();
    if len == 0 || !rest[len..].starts_with(MARKER_SUFFIX) {
        return None;
    }
    Some(&rest[..len])
}

/// The marker prefixes' searchers, built once: a daily log is scanned for
/// them once per entry, and building a searcher per call cost as much as
/// the search on a root of a million entries.
static OPEN_FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(OPEN_PREFIX));
static CLOSE_FINDER: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(CLOSE_PREFIX));

/// Offset of the first `finder` match at or after `from`, relative to it.
fn find_from(text: &str, from: usize, finder: &Finder) -> Option<usize> {
    finder.find(text.get(from..)?.as_bytes())
}

/// The next open marker at or after `from`: `(offset, id)`.
fn next_open(text: &str, mut from: usize) -> Option<(usize, &str)> {
    while let Some(rel) = find_from(text, from, &OPEN_FINDER) {
        let at = from + rel;
        if let Some(id) = marker_id_at(text, at, OPEN_PREFIX) {
            return Some((at, id));
        }
        from = at + OPEN_PREFIX.len();
    }
    None
}

/// Offset of the first close marker for `id` at or after `from`.
fn find_close(text: &str, from: usize, id: &str) -> Option<usize> {
    let needle_len = CLOSE_PREFIX.len() + id.len() + MARKER_SUFFIX.len();
    let mut pos = from;
    while let Some(rel) = find_from(text, pos, &CLOSE_FINDER) {
        let at = pos + rel;
        let tail = &text[at + CLOSE_PREFIX.len()..];
        if tail.starts_with(id) && tail[id.len()..].starts_with(MARKER_SUFFIX) {
            debug_assert!(at + needle_len <= text.len());
            return Some(at);
        }
        pos = at + CLOSE_PREFIX.len();
    }
    None
}

fn strip_one_newline(text: &str, mut range: Range<usize>) -> Range<usize> {
    let s = &text[range.clone()];
    if s.starts_with("\r\n") {
        range.start += 2;
    } else if s.starts_with('\n') {
        range.start += 1;
    }
    let s = &text[range.clone()];
    if s.ends_with("\r\n") {
        range.end -= 2;
    } else if s.ends_with('\n') {
        range.end -= 1;
    }
    range
}

/// Every entry of `body`, in order, exactly as everos's `split_entries`.
pub fn scan(body: &str) -> Scan {
    let mut out = Scan::default();
    let mut pos = 0;
    while let Some((open_at, id)) = next_open(body, pos) {
        let inner_start = open_at + OPEN_PREFIX.len() + id.len() + MARKER_SUFFIX.len();
        let Some(close_at) = find_close(body, inner_start, id) else {
            out.unclosed = Some((open_at, id.to_owned()));
            break;
        };
        let end = close_at + CLOSE_PREFIX.len() + id.len() + MARKER_SUFFIX.len();
        out.entries.push(RawEntry {
            id: id.to_owned(),
            span: open_at..end,
            body: strip_one_newline(body, inner_start..close_at),
        });
        pos = end;
    }
    out
}

/// The entry text membank shows: the body without the blank lines around
/// it, as a range of `body`.
pub fn trimmed_range(body: &str) -> Range<usize> {
    let mut first = None;
    let mut last = 0..0;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        if !line.trim().is_empty() {
            first.get_or_insert(offset);
            last = offset..offset + line.trim_end_matches(['\n', '\r']).len();
        }
        offset += line.len();
    }
    match first {
        Some(start) => start..last.end,
        None => 0..0,
    }
}

/// [`trimmed_range`] as text.
pub fn trimmed_text(body: &str) -> &str {
    &body[trimmed_range(body)]
}

/// A parsed entry id `<prefix>_<YYYYMMDD>_<NNNNNNNN>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryId {
    pub prefix: String,
    pub date: Date,
    pub seq: u64,
    /// Digits in the sequence; everos writes at least 8.
    pub seq_digits: usize,
}

/// Why an id is not of the documented form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdProblem {
    Shape,
    EmptyPrefix,
    Date,
    Sequence,
}

impl IdProblem {
    pub fn describe(&self) -> &'static str {
        match self {
            IdProblem::Shape => "is not <prefix>_<YYYYMMDD>_<sequence>",
            IdProblem::EmptyPrefix => "has an empty prefix",
            IdProblem::Date => "has no real YYYYMMDD date",
            IdProblem::Sequence => "has a sequence that is not all digits",
        }
    }
}

impl EntryId {
    /// Parse like everos (the last two `_` split off date and sequence, so
    /// a prefix may contain `_`), but strictly: the date is exactly eight
    /// digits of a real day and the sequence is all digits.
    pub fn parse(s: &str) -> Result<EntryId, IdProblem> {
        let mut parts = s.rsplitn(3, '_');
        let (Some(seq), Some(date), Some(prefix)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(IdProblem::Shape);
        };
        if prefix.is_empty() {
            return Err(IdProblem::EmptyPrefix);
        }
        if date.len() != 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
            return Err(IdProblem::Date);
        }
        let num = |r: Range<usize>| date[r].parse::<i16>().ok();
        let (Some(y), Some(m), Some(d)) = (num(0..4), num(4..6), num(6..8)) else {
            return Err(IdProblem::Date);
        };
        let date = Date::new(y, m as i8, d as i8).map_err(|_| IdProblem::Date)?;
        if seq.is_empty() || !seq.bytes().all(|b| b.is_ascii_digit()) {
            return Err(IdProblem::Sequence);
        }
        let seq_digits = seq.len();
        let seq = seq.parse::<u64>().map_err(|_| IdProblem::Sequence)?;
        Ok(EntryId {
            prefix: prefix.to_owned(),
            date,
            seq,
            seq_digits,
        })
    }
}

/// Where a marker line sits relative to code, for the checks everos does
/// not make: a standalone marker line outside fenced code is meant as a
/// marker, one inside a fence or inline is only text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarkerLine {
    pub offset: usize,
    pub id: String,
    pub open: bool,
}

/// Standalone marker lines (`<!-- entry:ID -->` or `<!-- /entry:ID -->`
/// alone on their line) that are not inside a fenced code block.
pub fn marker_lines_outside_code(body: &str) -> Vec<MarkerLine> {
    let mut out = Vec::new();
    let mut fence: Option<(u8, usize)> = None;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some((ch, n, info_empty)) = fence_of(bare) {
            match fence {
                Some((c, len)) if c == ch && n >= len && info_empty => fence = None,
                Some(_) => {}
                None => fence = Some((ch, n)),
            }
        } else if fence.is_none() {
            let t = bare.trim();
            let lead = bare.len() - bare.trim_start().len();
            for (prefix, open) in [(OPEN_PREFIX, true), (CLOSE_PREFIX, false)] {
                if let Some(id) = marker_id_at(t, 0, prefix)
                    && prefix.len() + id.len() + MARKER_SUFFIX.len() == t.len()
                {
                    out.push(MarkerLine {
                        offset: offset + lead,
                        id: id.to_owned(),
                        open,
                    });
                }
            }
        }
        offset += line.len();
    }
    out
}

/// A CommonMark code fence: the fence character, its length, and whether
/// the info string is empty (only such a line can close a fence).
fn fence_of(line: &str) -> Option<(u8, usize, bool)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = *t.as_bytes().first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = t.bytes().take_while(|&x| x == c).count();
    if n < 3 {
        return None;
    }
    let info = t[n..].trim();
    if c == b'`' && info.contains('`') {
        return None;
    }
    Some((c, n, info.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &Scan) -> Vec<&str> {
        s.entries.iter().map(|e| e.id.as_str()).collect()
    }

    #[test]
    fn body_runs_to_the_matching_close_through_code() {
        let text = "<!-- entry:ep_20260601_00000001 -->\nbefore\n```\n<!-- entry:ep_20250101_00000001 -->\nx\n<!-- /entry:ep_20250101_00000001 -->\n```\nafter\n<!-- /entry:ep_20260601_00000001 -->\n<!-- entry:ep_20260601_00000002 -->\ntwo\n<!-- /entry:ep_20260601_00000002 -->\n";
        let s = scan(text);
        assert_eq!(ids(&s), ["ep_20260601_00000001", "ep_20260601_00000002"]);
        let body = &text[s.entries[0].body.clone()];
        assert!(body.starts_with("before\n```"), "{body:?}");
        assert!(body.ends_with("```\nafter"), "{body:?}");
        assert_eq!(&text[s.entries[1].body.clone()], "two");
        assert!(s.unclosed.is_none());
    }

    #[test]
    fn an_unclosed_marker_ends_the_scan_like_everos() {
        let text = "<!-- entry:a_20260101_00000001 -->\none\n<!-- /entry:a_20260101_00000001 -->\n<!-- entry:a_20260101_00000002 -->\nno close\n<!-- entry:a_20260101_00000003 -->\nthree\n<!-- /entry:a_20260101_00000003 -->\n";
        let s = scan(text);
        assert_eq!(ids(&s), ["a_20260101_00000001"]);
        assert_eq!(s.unclosed.as_ref().unwrap().1, "a_20260101_00000002");
    }

    #[test]
    fn markers_are_found_inline_too_and_need_the_exact_spacing() {
        let s = scan("x <!-- entry:k1 --> y <!-- /entry:k1 --> <!--entry:k2--> <!-- entry:k3-->");
        assert_eq!(ids(&s), ["k1"]);
        assert_eq!(scan("<!-- entry:a b -->").entries.len(), 0);
    }

    #[test]
    fn one_newline_is_stripped_each_side() {
        let text = "<!-- entry:x -->\n\nbody\n\n<!-- /entry:x -->";
        let s = scan(text);
        assert_eq!(&text[s.entries[0].body.clone()], "\nbody\n");
        assert_eq!(trimmed_text("\nbody\n"), "body");
        assert_eq!(
            trimmed_text("  \n  indented\nlast  \n \n"),
            "  indented\nlast  "
        );
        assert_eq!(trimmed_text("\n \n"), "");
    }

    #[test]
    fn ids_parse_with_unknown_prefixes_and_long_sequences() {
        let id = EntryId::parse("my_kind_20260601_000000012").unwrap();
        assert_eq!(id.prefix, "my_kind");
        assert_eq!(id.seq, 12);
        assert_eq!(id.seq_digits, 9);
        assert_eq!(EntryId::parse("ep_20260230_00000001"), Err(IdProblem::Date));
        assert_eq!(EntryId::parse("ep_2026061_00000001"), Err(IdProblem::Date));
        assert_eq!(
            EntryId::parse("_20260601_00000001"),
            Err(IdProblem::EmptyPrefix)
        );
        assert_eq!(EntryId::parse("ep_20260601"), Err(IdProblem::Shape));
        assert_eq!(
            EntryId::parse("ep_20260601_0000000x"),
            Err(IdProblem::Sequence)
        );
    }

    #[test]
    fn marker_lines_in_fences_or_inline_are_text() {
        let body = "<!-- entry:a -->\n```md\n<!-- entry:b -->\n```\nsay `<!-- entry:c -->`\n  <!-- /entry:a -->  \n~~~\n<!-- /entry:z -->\n";
        let found = marker_lines_outside_code(body);
        let got: Vec<(&str, bool)> = found.iter().map(|m| (m.id.as_str(), m.open)).collect();
        assert_eq!(got, [("a", true), ("a", false)]);
        assert_eq!(&body[found[1].offset..found[1].offset + 4], "<!--");
    }
}
