//! Turning file bytes into the text every other module works on.

use std::borrow::Cow;

/// A file decoded for reading: BOM removed, CRLF folded to LF.
///
/// Line endings are folded so that token estimates, line numbers and links do
/// not depend on how git checked the file out; writers look at `crlf` to keep
/// the file's own convention.
///
/// `T` is `String`, or a `Cow<str>` that borrows the bytes when nothing had
/// to change ([`decode_borrowed`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded<T = String> {
    pub text: T,
    /// A UTF-8 byte-order mark was removed.
    pub had_bom: bool,
    pub crlf: bool,
    /// The file was UTF-16 (it starts with the UTF-16 byte-order mark
    /// `FF FE` or `FE FF`) and was converted.
    pub utf16: bool,
}

/// Where the bytes stopped being UTF-8.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotUtf8 {
    pub byte_offset: usize,
    pub line: usize,
    /// The file announced UTF-16 with a byte-order mark but is not valid
    /// UTF-16 either.
    pub utf16: bool,
}

impl std::fmt::Display for NotUtf8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not valid {} (first bad byte at offset {}, line {})",
            if self.utf16 { "UTF-16" } else { "UTF-8" },
            self.byte_offset,
            self.line
        )
    }
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

pub fn decode(bytes: &[u8]) -> Result<Decoded, NotUtf8> {
    decode_borrowed(bytes).map(|d| Decoded {
        text: d.text.into_owned(),
        had_bom: d.had_bom,
        crlf: d.crlf,
        utf16: d.utf16,
    })
}

/// [`decode`], borrowing the text from `bytes` when it is UTF-8 with LF line
/// endings (nearly every file): a bank is read without copying each file
/// only to drop the copy once its metadata is taken.
pub fn decode_borrowed(bytes: &[u8]) -> Result<Decoded<Cow<'_, str>>, NotUtf8> {
    if let Some(text) = decode_utf16(bytes) {
        let text = text?;
        let crlf = text.contains("\r\n");
        return Ok(Decoded {
            text: Cow::Owned(if crlf {
                text.replace("\r\n", "\n")
            } else {
                text
            }),
            had_bom: false,
            crlf,
            utf16: true,
        });
    }
    let (had_bom, body) = match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    };
    let text = std::str::from_utf8(body).map_err(|e| {
        let at = e.valid_up_to();
        NotUtf8 {
            byte_offset: at + if had_bom { 3 } else { 0 },
            line: body[..at].iter().filter(|&&b| b == b'\n').count() + 1,
            utf16: false,
        }
    })?;
    // A carriage return is rare: look for it alone first.
    let crlf = memchr::memchr(b'\r', body).is_some() && text.contains("\r\n");
    Ok(Decoded {
        text: if crlf {
            Cow::Owned(text.replace("\r\n", "\n"))
        } else {
            Cow::Borrowed(text)
        },
        had_bom,
        crlf,
        utf16: false,
    })
}

/// UTF-16 text announced by its byte-order mark (Windows Notepad's
/// “Unicode”); `None` when the file does not start with one.
/// Whether `bytes` begin as UTF-16 text saved without a byte-order mark
/// (some Windows tools write it so): four plain ASCII characters, each
/// with a zero byte after it (little-endian, `Some(true)`) or before it
/// (big-endian). Read as UTF-8 they would be valid text full of NULs,
/// which no Markdown note holds, so nothing else is taken for it.
pub(crate) fn utf16_without_bom(bytes: &[u8]) -> Option<bool> {
    let head = bytes.get(..8)?;
    let plain = |b: u8| matches!(b, b'\t' | b'\n' | b'\r' | 0x20..=0x7E);
    if head.chunks(2).all(|u| plain(u[0]) && u[1] == 0) {
        Some(true)
    } else if head.chunks(2).all(|u| u[0] == 0 && plain(u[1])) {
        Some(false)
    } else {
        None
    }
}

fn decode_utf16(bytes: &[u8]) -> Option<Result<String, NotUtf8>> {
    let (little, start) = match bytes.get(..2)? {
        [0xFF, 0xFE] => (true, 2),
        [0xFE, 0xFF] => (false, 2),
        _ => (utf16_without_bom(bytes)?, 0),
    };
    let units = bytes[start..].chunks(2).map(|pair| match (pair, little) {
        ([a, b], true) => u16::from_le_bytes([*a, *b]),
        ([a, b], false) => u16::from_be_bytes([*a, *b]),
        // A lone last byte cannot be a character: report it below.
        _ => 0xDC00,
    });
    let mut text = String::with_capacity(bytes.len() / 2);
    let mut line = 1;
    for (i, c) in char::decode_utf16(units).enumerate() {
        match c {
            Ok(c) => {
                if c == '\n' {
                    line += 1;
                }
                text.push(c);
            }
            Err(_) => {
                return Some(Err(NotUtf8 {
                    byte_offset: start + 2 * i,
                    line,
                    utf16: true,
                }));
            }
        }
    }
    Some(Ok(text))
}

/// Why bytes that are not UTF-8 cannot be read as Windows-1252 without a
/// guess.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotWindows1252 {
    /// Valid UTF-8 letters sit beside the other bytes: two encodings in one
    /// file, and either reading spoils the other half.
    Mixed,
    /// A byte Windows-1252 leaves undefined.
    Undefined(u8),
}

/// The characters Windows-1252 puts at 0x80–0x9F (`None`: undefined);
/// every other byte is the Unicode code point of the same number.
const HIGH: [Option<char>; 32] = [
    Some('€'),
    None,
    Some('‚'),
    Some('ƒ'),
    Some('„'),
    Some('…'),
    Some('†'),
    Some('‡'),
    Some('ˆ'),
    Some('‰'),
    Some('Š'),
    Some('‹'),
    Some('Œ'),
    None,
    Some('Ž'),
    None,
    None,
    Some('\u{2018}'),
    Some('\u{2019}'),
    Some('\u{201C}'),
    Some('\u{201D}'),
    Some('•'),
    Some('–'),
    Some('—'),
    Some('˜'),
    Some('™'),
    Some('š'),
    Some('›'),
    Some('œ'),
    None,
    Some('ž'),
    Some('Ÿ'),
];

/// The bytes read as Windows-1252.
pub fn from_windows_1252(bytes: &[u8]) -> Result<String, NotWindows1252> {
    // Any valid multi-byte letter beside the stray bytes means a mix.
    if bytes.utf8_chunks().any(|chunk| !chunk.valid().is_ascii()) {
        return Err(NotWindows1252::Mixed);
    }
    bytes
        .iter()
        .map(|&b| match b {
            0x80..=0x9F => HIGH[usize::from(b - 0x80)].ok_or(NotWindows1252::Undefined(b)),
            _ => Ok(char::from(b)),
        })
        .collect()
}

/// [`str::trim`], answering at once when the text starts and ends with an
/// ASCII byte that is no white space, as nearly every name and value does:
/// the standard trim decodes a character at each end to test it. Such a
/// byte is a whole character, and `char::is_whitespace` holds for no
/// ASCII character but tab, line feed, vertical tab, form feed, carriage
/// return and space.
#[inline]
pub fn trim(s: &str) -> &str {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(&first), Some(&last)) if no_space_ascii(first) && no_space_ascii(last) => s,
        _ => s.trim(),
    }
}

/// `s` in composed form (NFC): `é` written as `e` and a combining accent
/// (file names from macOS, text pasted from some tools) becomes the one
/// character, so both spellings compare alike. Borrowed when `s` is
/// composed already, as nearly all text is.
pub fn nfc(s: &str) -> Cow<'_, str> {
    if s.is_ascii() || unicode_normalization::is_nfc(s) {
        Cow::Borrowed(s)
    } else {
        use unicode_normalization::UnicodeNormalization;
        Cow::Owned(s.nfc().collect())
    }
}

/// An ASCII byte that is no white space for [`char::is_whitespace`].
#[inline]
fn no_space_ascii(b: u8) -> bool {
    b.is_ascii() && !matches!(b, b'\t'..=b'\r' | b' ')
}

/// Line starts of a text, for turning many byte offsets into line numbers.
///
/// Counting newlines from the start for each offset is quadratic in the
/// number of offsets per file (an index note with 100,000 links); this is
/// one pass to build and a binary search per lookup.
#[derive(Debug, Clone)]
pub struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        LineIndex {
            newlines: memchr::memchr_iter(b'\n', text.as_bytes()).collect(),
        }
    }

    /// 1-based line number of a byte offset (the same as [`line_of`]).
    pub fn line_of(&self, byte_offset: usize) -> usize {
        self.newlines.partition_point(|&nl| nl < byte_offset) + 1
    }
}

/// Line numbers of byte offsets taken in increasing order (links in
/// document order): only the line breaks between one offset and the next
/// are counted, so the text is scanned once, up to the last offset, and
/// nothing is allocated. An offset before the previous one counts again
/// from the start.
#[derive(Debug, Clone)]
pub struct LineCounter<'a> {
    bytes: &'a [u8],
    at: usize,
    line: usize,
}

impl<'a> LineCounter<'a> {
    pub fn new(text: &'a str) -> LineCounter<'a> {
        LineCounter {
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
        }
    }

    /// 1-based line number of a byte offset (the same as [`line_of`]).
    pub fn line_of(&mut self, byte_offset: usize) -> usize {
        let offset = byte_offset.min(self.bytes.len());
        if offset < self.at {
            self.at = 0;
            self.line = 1;
        }
        self.line += memchr::memchr_iter(b'\n', &self.bytes[self.at..offset]).count();
        self.at = offset;
        self.line
    }
}

/// 1-based line number of a byte offset. For many offsets into one text use
/// [`LineIndex`] or [`LineCounter`].
pub fn line_of(text: &str, byte_offset: usize) -> usize {
    let end = byte_offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Bidirectional controls and zero-width characters: they make a name
/// display as a different one (U+202E reverses `dm.txt` into `txt.md`).
/// Also the deprecated format controls, the interlinear annotation marks
/// and the tag characters, which show as nothing and can carry hidden
/// text.
pub fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206F}'
            | '\u{FEFF}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
    )
}

/// The first invisible format character of a file name, where one may
/// make it look like another name; a zero-width joiner between two emoji
/// (👨‍👩‍👧, 🏳️‍🌈) is part of the emoji people see, not hidden.
pub fn invisible_in_name(name: &str) -> Option<char> {
    let emoji = |c: Option<char>| {
        c.is_some_and(
            |c| matches!(c, '\u{2600}'..='\u{27BF}' | '\u{FE0F}' | '\u{1F000}'..='\u{1FAFF}'),
        )
    };
    let chars: Vec<char> = name.chars().collect();
    // Tag characters after a black flag spell a region's flag (🏴 and
    // `gbsct` make Scotland's), ended by the cancel tag.
    let mut in_flag = false;
    chars.iter().enumerate().find_map(|(i, &c)| {
        let joins_emoji = c == '\u{200D}'
            && emoji(i.checked_sub(1).map(|j| chars[j]))
            && emoji(chars.get(i + 1).copied());
        let flag_tag = in_flag && matches!(c, '\u{E0020}'..='\u{E007F}');
        in_flag = c == '\u{1F3F4}' || (flag_tag && c != '\u{E007F}');
        (is_invisible_format(c) && !joins_emoji && !flag_tag).then_some(c)
    })
}

/// Refuses text meant to be stored as an article that holds a C0 control
/// other than tab, LF and CR, DEL, a C1 control, or a bidirectional
/// override or isolate: stored, these would reach every terminal and tool
/// that later shows the file (an escape clears the screen, U+202E disguises
/// text). The reason names the character and its 1-based line.
pub fn refuse_control_characters(text: &str) -> Result<(), String> {
    let found = text.split('\n').enumerate().find_map(|(n, line)| {
        line.chars()
            .find(|&c| {
                (c.is_control() && !matches!(c, '\t' | '\r'))
                    || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
            })
            .map(|c| (n + 1, c))
    });
    match found {
        Some((line, c)) => Err(format!(
            "line {line} contains the control character U+{:04X}; articles are plain text, so \
             it is not written",
            u32::from(c)
        )),
        None => Ok(()),
    }
}

/// Make text safe to put on a terminal: control characters and escape
/// sequences become visible (`\x1b` shows as `␛`, other C0/C1 controls as
/// their Unicode control pictures or `\u{..}`), tabs become spaces.
/// Newlines are kept only when `keep_newlines` is set.
pub fn sanitize_for_terminal(s: &str, keep_newlines: bool) -> String {
    let mut out = String::with_capacity(s.len());
    sanitize_into(&mut out, s, keep_newlines);
    out
}

/// How many bytes from the start come before the first character
/// [`sanitize_into`] may change: a control byte (below 0x20, or 0x7F), a C1
/// control (U+0080..U+009F) or a bidirectional override or isolate
/// (U+202A..U+202E, U+2066..U+2069). Eight bytes are looked at a time for
/// a byte below 0x20, 0x7F, or the first byte of U+0080..U+00BF (0xC2) or
/// of U+2000..U+2FFF (0xE2), none of which is ever in the middle of a
/// character; other non-ASCII text (`é`, `日`) passes as quickly as ASCII,
/// and the characters after those two lead bytes that are shown as they
/// are (`“`, `→`, in most of a report's lines) are passed over here rather
/// than decoded by the caller one at a time.
fn plain_run(bytes: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The bytes of `y` that are zero, marked by their top bit. A borrow
    // only runs upwards, so the lowest mark is always a true one.
    let zero = |y: u64| y.wrapping_sub(ONES) & !y & HIGH;
    let mut at = 0;
    while at < bytes.len() {
        // A whole word is loaded as one; only the last, short one is
        // copied out, padded with spaces (they never stop the run). A copy
        // of a length known only at run time is a call, for every word.
        let (x, n) = match bytes
            .get(at..at + 8)
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
        {
            Some(word) => (u64::from_le_bytes(word), 8),
            None => {
                let n = bytes.len() - at;
                let mut eight = [b' '; 8];
                eight[..n].copy_from_slice(&bytes[at..]);
                (u64::from_le_bytes(eight), n)
            }
        };
        let below_space = x.wrapping_sub(ONES * 0x20) & !x & HIGH;
        let marked = zero(x ^ (ONES * 0x7f)) | zero(x ^ (ONES * 0xc2)) | zero(x ^ (ONES * 0xe2));
        let stops = below_space | marked;
        if stops == 0 {
            at += n;
            continue;
        }
        at += (stops.trailing_zeros() / 8) as usize;
        // The text is UTF-8: a lead byte is followed by its whole character.
        let (changed, len) = match bytes[at] {
            0xc2 => (matches!(bytes.get(at + 1), Some(0x80..=0x9f)), 2),
            0xe2 => (
                matches!(
                    (bytes.get(at + 1), bytes.get(at + 2)),
                    (Some(0x80), Some(0xaa..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
                ),
                3,
            ),
            _ => (true, 1),
        };
        if changed {
            return at;
        }
        at += len;
    }
    bytes.len()
}

/// [`sanitize_for_terminal`], appending to `out`: a report of a hundred
/// thousand lines is written without a string per line.
pub fn sanitize_into(out: &mut String, s: &str, keep_newlines: bool) {
    let shown_as_is = |c: char| {
        !matches!(c, '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
            || (c == '\n' && keep_newlines)
    };
    // Nearly all text needs no change: what comes before each character
    // that does is copied in one piece.
    let mut rest = s;
    loop {
        let mut plain = 0;
        let changed = loop {
            plain += plain_run(&rest.as_bytes()[plain..]);
            match rest[plain..].chars().next() {
                Some(c) if shown_as_is(c) => plain += c.len_utf8(),
                other => break other,
            }
        };
        out.push_str(&rest[..plain]);
        let Some(c) = changed else {
            return;
        };
        rest = &rest[plain + c.len_utf8()..];
        match c {
            '\t' => out.push_str("    "),
            c if (c as u32) < 0x20 => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('?')),
            '\u{7f}' => out.push('\u{2421}'),
            // C1 controls; bidi overrides and isolates, which can disguise
            // what a line says.
            c => {
                use std::fmt::Write;
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
        }
    }
}

/// `s` in double quotes, escaped as `{:?}` escapes a string (a quote, a
/// backslash, a control or an invisible character as `\"`, `\\`, `\n`,
/// `\u{202e}`), for a message that echoes what the user typed. Unlike
/// `{:?}`, a combining mark after a character shown as itself is shown
/// as itself: `{:?}` escapes every one, and Thai, Devanagari or Khmer
/// written with them (`ปลั๊กอิน` as `ปล\u{e31}\u{e4a}กอ\u{e34}น`) cannot be
/// read. A mark with no letter before it (first, after a space, or after
/// an escape) stays escaped: shown, it would sit on the opening quote, on
/// nothing, or on the escape's last character (`\n` and U+0301 drawn as
/// `\ń`), and the reader could not tell it was there.
pub fn quoted(s: &str) -> String {
    use unicode_normalization::char::is_combining_mark;
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    // The last character was shown as itself and a mark may join it.
    let mut after_base = false;
    for c in s.chars() {
        // Half-width kana's voicing marks extend the kana as marks do.
        let mark = is_combining_mark(c) || matches!(c, '\u{FF9E}' | '\u{FF9F}');
        if (after_base && mark && !is_invisible_format(c)) || c == '\'' {
            // `{:?}` leaves a string's `'` as it is; marks stack.
            out.push(c);
            after_base = true;
            continue;
        }
        let escaped = c.escape_debug();
        after_base = escaped.len() == 1 && !c.is_whitespace();
        out.extend(escaped);
    }
    out.push('"');
    out
}

/// `text` with each of its (1-based) `lines` (sorted) replaced by
/// `marker`, so the other lines keep their numbers; and how many were
/// replaced. Whoever withholds a line says so in its place.
pub fn replace_lines(text: &str, lines: &[usize], marker: &str) -> (String, usize) {
    if lines.is_empty() {
        return (text.to_owned(), 0);
    }
    let mut out = String::with_capacity(text.len());
    let mut replaced = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if lines.binary_search(&(i + 1)).is_ok() {
            out.push_str(marker);
            if line.ends_with('\n') {
                out.push('\n');
            }
            replaced += 1;
        } else {
            out.push_str(line);
        }
    }
    (out, replaced)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Text with combining marks reads as written; everything else is
    /// quoted as `{:?}` quotes it, and a mark nothing joins stays escaped.
    #[test]
    fn quoting_shows_marks_on_their_letters_and_escapes_the_rest_as_debug() {
        for s in ["ปลั๊กอิน", "हिन्दी", "ភាសាខ្មែរ", "Café", "e\u{301}\u{316}", "ｶﾞ"]
        {
            assert_eq!(quoted(s), format!("\"{s}\""), "{s:?}");
        }
        for s in [
            "",
            "plain",
            "it's \"quoted\" \\ here",
            "tab\there\nline",
            "\u{1b}[2J",
            "bidi\u{202e}txt.md",
            "zero\u{200b}width",
            "日本語 → 中文",
        ] {
            assert_eq!(quoted(s), format!("{s:?}"), "{s:?}");
        }
        assert_eq!(quoted("a\u{200b}"), "\"a\\u{200b}\"", "invisible");
        assert_eq!(quoted("\u{301}a"), "\"\\u{301}a\"", "first: on the quote");
        assert_eq!(quoted("a \u{301}"), "\"a \\u{301}\"", "after a space");
        assert_eq!(quoted("a\n\u{301}"), "\"a\\n\\u{301}\"", "after an escape");
    }

    /// The quick trim gives what `str::trim` gives: every ASCII byte is
    /// tested against `char::is_whitespace`, and texts joined from ASCII
    /// and Unicode white space (tab, vertical tab, form feed, CR, LF, the
    /// no-break and ideographic spaces, U+0085, U+2028), control
    /// characters that are none (U+001C, U+007F), letters and `→`.
    /// Characters that show as nothing are told apart, whatever their
    /// kind; visible letters, marks and spaces are not.
    #[test]
    fn invisible_characters_include_tags_and_deprecated_controls() {
        for c in [
            '\u{202E}',
            '\u{200B}',
            '\u{206A}',
            '\u{206F}',
            '\u{FFF9}',
            '\u{E0041}',
        ] {
            assert!(is_invisible_format(c), "U+{:04X}", c as u32);
        }
        for c in ['a', 'é', '\u{0301}', ' ', '→', '\u{0600}'] {
            assert!(!is_invisible_format(c), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn nfc_composes_and_borrows_what_is_composed() {
        assert_eq!(nfc("Cafe\u{301}"), "Caf\u{e9}");
        assert!(matches!(nfc("Caf\u{e9}"), Cow::Borrowed(_)));
        assert!(matches!(nfc("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn trim_is_str_trim() {
        for b in 0..=255u8 {
            let want = b.is_ascii() && !char::from(b).is_whitespace();
            assert_eq!(no_space_ascii(b), want, "{b:#x}");
        }
        let pieces = [
            " ", "\t", "\u{b}", "\u{c}", "\r", "\n", "\u{a0}", "\u{3000}", "\u{85}", "\u{2028}",
            "\u{1c}", "\u{7f}", "a", "Z", "é", "→", "[[x]]", "",
        ];
        for text in crate::random_text::joined(&pieces, 6, 0x7215_11AE_5EED_0001).take(30_000) {
            assert_eq!(trim(&text), text.trim(), "{text:?}");
            // The same text, not a copy of it.
            assert_eq!(trim(&text).as_ptr(), text.trim().as_ptr(), "{text:?}");
        }
        for text in [
            "",
            " ",
            "a",
            " a",
            "a ",
            "\u{a0}a",
            "a\u{a0}",
            "a\u{b}",
            "\u{1c}a\u{1c}",
        ] {
            assert_eq!(trim(text), text.trim(), "{text:?}");
        }
    }

    #[test]
    fn bom_is_stripped_and_reported() {
        let d = decode(b"\xEF\xBB\xBF---\na: 1\n---\n").unwrap();
        assert!(d.had_bom);
        assert!(d.text.starts_with("---"));
    }

    #[test]
    fn utf16_with_a_byte_order_mark_is_read() {
        let words = "---\r\ndomain: Légal\r\n---\r\n[[Acme]] 日本\r\n";
        let le: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain(words.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        let be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain(words.encode_utf16().flat_map(u16::to_be_bytes))
            .collect();
        for bytes in [le, be] {
            let d = decode(&bytes).unwrap();
            assert!(d.utf16 && d.crlf && !d.had_bom);
            assert_eq!(d.text, words.replace("\r\n", "\n"));
        }
        let e = decode(&[0xFF, 0xFE, b'a', 0, b'\n', 0, 0x00, 0xDC]).unwrap_err();
        assert!(e.utf16);
        assert_eq!(e.line, 2);
        assert!(e.to_string().contains("UTF-16"));
    }

    /// Some Windows tools save UTF-16 with no byte-order mark: read as
    /// UTF-8 it is valid text full of NULs, and the note looked empty of
    /// frontmatter. Text that merely has a NUL late in it is not taken
    /// for it.
    #[test]
    fn utf16_without_a_byte_order_mark_is_read() {
        let words = "---\ndomain: Légal\n---\n[[Acme]] 日本\n";
        let le: Vec<u8> = words.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = words.encode_utf16().flat_map(u16::to_be_bytes).collect();
        for bytes in [le, be] {
            let d = decode(&bytes).unwrap();
            assert!(d.utf16 && !d.had_bom);
            assert_eq!(d.text, words);
        }
        let d = decode(b"---\ntitle: x\n---\nbody\0\n").unwrap();
        assert!(!d.utf16);
        assert!(!decode(b"ab").unwrap().utf16);
    }

    #[test]
    fn crlf_is_folded_and_reported() {
        let d = decode(b"a\r\nb\r\n").unwrap();
        assert!(d.crlf);
        assert_eq!(d.text, "a\nb\n");
    }

    #[test]
    fn invalid_utf8_names_the_line() {
        let e = decode(b"ok\nstill ok\n\xff bad").unwrap_err();
        assert_eq!(e.line, 3);
        assert_eq!(e.byte_offset, 12);
    }

    #[test]
    fn line_index_agrees_with_counting_newlines() {
        let text = "a\nbb\n\nccc\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                index.line_of(offset),
                line_of(text, offset),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn line_counter_agrees_with_counting_newlines_in_any_order() {
        let text = "a\nbb\n\nccc\n";
        let mut counter = LineCounter::new(text);
        let forward = 0..=text.len() + 2;
        let back = (0..=text.len()).rev();
        let jumps = [3, 9, 1, 12, 0, 5];
        for offset in forward.chain(back).chain(jumps) {
            assert_eq!(
                counter.line_of(offset),
                line_of(text, offset),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn sanitizing_changes_exactly_the_characters_it_names() {
        let pieces = [
            "a",
            "é",
            "“",
            "→",
            "\n",
            "\t",
            "\x1b",
            "\x7f",
            "\u{85}",
            "\u{9f}",
            "\u{a0}",
            "\u{202e}",
            "\u{2069}",
            "\u{2070}",
            "\u{2000}",
            "日",
            "plain words ",
            "~}|{ 0189AZaz",
            // Runs longer than a word, with non-ASCII text inside them
            // that is shown as is, and characters next to the changed ones.
            "a run well past eight bytes, ",
            "Âéß日本語 text ",
            "\u{202a}",
            "\u{2066}",
            "\u{2065}",
            // Neighbours of the changed ones that share their first bytes.
            "\u{2029}",
            "\u{202f}",
            "\u{206a}",
            "\u{2040}",
            "\u{bf}",
            "\u{7e}",
            "“a”",
            "\u{20ac}",
            "\u{c2}",
            "𝄞",
            "\r",
            "\u{1f}",
        ];
        for s in crate::random_text::joined(&pieces, 15, 0x2545_F491_4F6C_DD1D).take(20_000) {
            for keep in [false, true] {
                let expected: String = s
                    .chars()
                    .map(|c| match c {
                        '\n' if keep => "\n".to_owned(),
                        '\t' => "    ".to_owned(),
                        c if (c as u32) < 0x20 => {
                            char::from_u32(0x2400 + c as u32).unwrap().to_string()
                        }
                        '\u{7f}' => "\u{2421}".to_owned(),
                        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
                            format!("\\u{{{:x}}}", c as u32)
                        }
                        c => c.to_string(),
                    })
                    .collect();
                assert_eq!(sanitize_for_terminal(&s, keep), expected, "{s:?}");
            }
        }
    }

    #[test]
    fn escapes_never_survive_sanitizing() {
        let s = sanitize_for_terminal("a\x1b[31mred\x07\u{9b}2J\nb", false);
        assert!(!s.chars().any(|c| c.is_control()), "{s:?}");
        assert!(s.contains('␛'));
        let kept = sanitize_for_terminal("a\nb", true);
        assert_eq!(kept, "a\nb");
        // Text before, between and after what is changed stays as it was.
        assert_eq!(
            sanitize_for_terminal("ok → é\u{202e}x\ty\n\u{85}", false),
            "ok → é\\u{202e}x    y␊\\u{85}"
        );
        assert_eq!(sanitize_for_terminal("plain → text", false), "plain → text");
    }
}
