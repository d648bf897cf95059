//! The one JSON writer for every machine-readable output (`--json`, and
//! any server built on the core): pretty-printed, and with every character
//! a terminal or a reader could act on escaped as `\uXXXX`, so JSON that
//! quotes a hostile file is safe to print and shows what is really there.
//!
//! serde_json already escapes C0 controls; this also escapes DEL, the C1
//! controls (`0x9b` is a one-byte CSI), line/paragraph separators, bidi
//! overrides and zero-width characters.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

/// Characters escaped in JSON strings besides the ones JSON requires.
pub fn needs_escape(c: char) -> bool {
    matches!(c, '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}')
        || crate::text::is_invisible_format(c)
}

/// serde_json's pretty layout, with [`needs_escape`] applied to strings.
struct SafeFormatter<'a>(PrettyFormatter<'a>);

impl Formatter for SafeFormatter<'_> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // serde_json has split off what JSON itself escapes, so of ASCII
        // only DEL is left to escape: characters are looked at only from
        // the first byte at or above it, and plain text is written whole.
        let bytes = fragment.as_bytes();
        let mut start = 0;
        let mut at = 0;
        while let Some(off) = bytes[at..].iter().position(|&b| b >= 0x7f) {
            let i = at + off;
            let Some(c) = fragment[i..].chars().next() else {
                break;
            };
            at = i + c.len_utf8();
            if needs_escape(c) {
                writer.write_all(&bytes[start..i])?;
                write!(writer, "\\u{:04x}", c as u32)?;
                start = at;
            }
        }
        writer.write_all(&bytes[start..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Write `value` as pretty, escaped JSON (no trailing newline).
pub fn write<W: Write, T: Serialize + ?Sized>(writer: W, value: &T) -> serde_json::Result<()> {
    let mut ser =
        serde_json::Serializer::with_formatter(writer, SafeFormatter(PrettyFormatter::new()));
    value.serialize(&mut ser)
}

/// Write `head` as [`write`] would, its last field being an array that
/// `head` holds empty, filled with the `len` values `item` gives. The
/// values are written out on all cores, in blocks, in order; the bytes are
/// those [`write`] gives for the whole value (a test compares them).
pub fn write_with_items<W: Write, H: Serialize, T: Serialize>(
    writer: W,
    head: &H,
    len: usize,
    item: impl Fn(usize) -> T + Sync,
) -> io::Result<()> {
    // Each item is written straight into its block, indented as it goes:
    // no string per item, nor copies of it to indent and join.
    write_in_blocks(writer, head, len, |i, block: &mut Vec<u8>| {
        write(ItemIndent(block), &item(i)).map_err(io::Error::other)
    })
}

/// [`write_with_items`] for items that write their own text: `item`
/// appends item `i` to the block, laid out as [`write`] lays out an array
/// item two levels in (its first line as it is, each further line
/// indented by four more spaces than the item alone would be).
pub fn write_with_raw_items<W: Write, H: Serialize>(
    writer: W,
    head: &H,
    len: usize,
    item: impl Fn(usize, &mut String) -> io::Result<()> + Sync,
) -> io::Result<()> {
    write_in_blocks(writer, head, len, item)
}

/// A block of items being written: bytes from the serializer, or text.
trait Block: Default + Send {
    fn push_text(&mut self, text: &str);
    fn bytes(&self) -> &[u8];
}

impl Block for Vec<u8> {
    fn push_text(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
    fn bytes(&self) -> &[u8] {
        self
    }
}

impl Block for String {
    fn push_text(&mut self, text: &str) {
        self.push_str(text);
    }
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// The array's items written into blocks on all cores, the blocks written
/// out in order (see [`write_with_items`]).
fn write_in_blocks<W: Write, H: Serialize, B: Block>(
    mut writer: W,
    head: &H,
    len: usize,
    item: impl Fn(usize, &mut B) -> io::Result<()> + Sync,
) -> io::Result<()> {
    use rayon::prelude::*;
    let head = to_string(head).map_err(io::Error::other)?;
    let Some(before_items) = head.strip_suffix("[]\n}") else {
        return Err(io::Error::other("the last field is not an empty array"));
    };
    writer.write_all(before_items.as_bytes())?;
    if len == 0 {
        return writer.write_all(b"[]\n}");
    }
    writer.write_all(b"[")?;
    const PER_BLOCK: usize = 512;
    let starts: Vec<usize> = (0..len).step_by(PER_BLOCK).collect();
    let block_at = |&start: &usize| -> io::Result<B> {
        let mut block = B::default();
        for i in start..(start + PER_BLOCK).min(len) {
            block.push_text(if i == 0 { "\n    " } else { ",\n    " });
            item(i, &mut block)?;
        }
        Ok(block)
    };
    // A few items are written on this thread (see `parallel`).
    let parallel = crate::parallel::pays(len);
    for window in starts.chunks(16) {
        let blocks: Vec<io::Result<B>> = if parallel {
            window.par_iter().map(block_at).collect()
        } else {
            window.iter().map(block_at).collect()
        };
        for block in blocks {
            writer.write_all(block?.bytes())?;
        }
    }
    writer.write_all(b"\n  ]\n}")
}

/// `s` as a JSON string, quoted and escaped: the bytes [`write`] gives for
/// it (what JSON requires as serde_json writes it: `\"`, `\\`, the short
/// escapes, other controls as `\u00xx`; then every [`needs_escape`]
/// character as `\uxxxx`), appended without going through a serializer.
pub fn push_string(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    out.push('"');
    let bytes = s.as_bytes();
    let mut plain_from = 0;
    let mut at = 0;
    while at < bytes.len() {
        // Most of an entry is plain ASCII: passed over eight bytes at once.
        if let Some(Ok(word)) = bytes.get(at..at + 8).map(<[u8; 8]>::try_from)
            && !any_to_look_at(u64::from_le_bytes(word))
        {
            at += 8;
            continue;
        }
        let b = bytes[at];
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            at += 1;
            continue;
        }
        if b < 0x80 {
            out.push_str(&s[plain_from..at]);
            match b {
                b'"' => out.push_str("\\\""),
                b'\\' => out.push_str("\\\\"),
                0x08 => out.push_str("\\b"),
                0x0c => out.push_str("\\f"),
                b'\n' => out.push_str("\\n"),
                b'\r' => out.push_str("\\r"),
                b'\t' => out.push_str("\\t"),
                // The other controls, and DEL.
                _ => {
                    let _ = write!(out, "\\u{:04x}", b);
                }
            }
            at += 1;
            plain_from = at;
            continue;
        }
        let Some(c) = s[at..].chars().next() else {
            break;
        };
        if needs_escape(c) {
            out.push_str(&s[plain_from..at]);
            let _ = write!(out, "\\u{:04x}", c as u32);
            plain_from = at + c.len_utf8();
        }
        at += c.len_utf8();
    }
    out.push_str(&s[plain_from..]);
    out.push('"');
}

/// Is any of these eight bytes a control, `"`, `\`, DEL or not ASCII?
/// (Each test is exact for "some byte is": a borrow only ever starts at
/// a byte that matches.)
fn any_to_look_at(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    let below_space = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    let quote = zero_byte(word ^ (ONES * u64::from(b'"')));
    let backslash = zero_byte(word ^ (ONES * u64::from(b'\\')));
    let del = zero_byte(word ^ (ONES * 0x7f));
    (below_space | quote | backslash | del | (word & HIGH)) != 0
}

/// `n` in decimal, as serde_json writes an unsigned integer.
pub fn push_uint(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// An array item's bytes as [`write`] makes them, each line break followed
/// by the indent of an item two levels in. JSON strings hold no raw line
/// break, so only the item's own lines are indented.
struct ItemIndent<'a>(&'a mut Vec<u8>);

impl Write for ItemIndent<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.0.extend_from_slice(&rest[..=at]);
            self.0.extend_from_slice(b"    ");
            rest = &rest[at + 1..];
        }
        self.0.extend_from_slice(rest);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// [`write_with_items`] for items that arrive in order a few at a time,
/// their number unknown until the end: each is written as it comes, so
/// none of them needs to be held. The bytes are those [`write`] gives for
/// the whole value.
pub struct ItemStream<W: Write> {
    writer: W,
    written: usize,
}

impl<W: Write> ItemStream<W> {
    /// Write what `head` has before its last field's items; that field
    /// is an array `head` holds empty.
    pub fn start<H: Serialize>(mut writer: W, head: &H) -> io::Result<Self> {
        let head = to_string(head).map_err(io::Error::other)?;
        let Some(before_items) = head.strip_suffix("[]\n}") else {
            return Err(io::Error::other("the last field is not an empty array"));
        };
        writer.write_all(before_items.as_bytes())?;
        Ok(ItemStream { writer, written: 0 })
    }

    /// Write the next item, made by [`array_item`] (or several, joined
    /// by `,\n    ` as this joins them).
    pub fn push(&mut self, item: &str) -> io::Result<()> {
        let sep: &[u8] = if self.written == 0 {
            b"[\n    "
        } else {
            b",\n    "
        };
        self.written += 1;
        self.writer.write_all(sep)?;
        self.writer.write_all(item.as_bytes())
    }

    /// Close the array and the value; returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        let end: &[u8] = if self.written == 0 {
            b"[]\n}"
        } else {
            b"\n  ]\n}"
        };
        self.writer.write_all(end)?;
        Ok(self.writer)
    }
}

/// One item as [`ItemStream::push`] takes it: made apart from the
/// stream, so that items can be made on any thread.
pub fn array_item<T: Serialize>(item: &T) -> io::Result<String> {
    // An item sits two levels in; JSON strings hold no raw line break,
    // so indenting after every line break indents the item's own lines.
    let text = to_string(item).map_err(io::Error::other)?;
    Ok(text.replace('\n', "\n    "))
}

/// [`array_item`] appended to `out`, made in `scratch`: items made one
/// after another reuse both buffers instead of two strings each.
pub fn push_array_item<T: Serialize>(
    out: &mut String,
    scratch: &mut Vec<u8>,
    item: &T,
) -> io::Result<()> {
    scratch.clear();
    write(&mut *scratch, item).map_err(io::Error::other)?;
    let text = std::str::from_utf8(scratch).map_err(io::Error::other)?;
    let mut lines = text.split('\n');
    out.push_str(lines.next().unwrap_or_default());
    for line in lines {
        out.push_str("\n    ");
        out.push_str(line);
    }
    Ok(())
}

/// `value` as pretty, escaped JSON.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    write(&mut out, value)?;
    // Only whole UTF-8 strings and ASCII were written.
    Ok(String::from_utf8(out).expect("serde_json writes UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn del_is_escaped_in_text_that_is_otherwise_plain_ascii() {
        assert_eq!(to_string("a\x7fb ~").unwrap(), "\"a\\u007fb ~\"");
        assert_eq!(to_string("plain ~ text").unwrap(), "\"plain ~ text\"");
    }

    #[test]
    fn items_written_on_all_cores_are_the_bytes_of_the_whole() {
        #[derive(Serialize)]
        struct Item {
            name: String,
            tags: Vec<&'static str>,
            nested: Option<Vec<u32>>,
        }
        #[derive(Serialize)]
        struct Whole {
            title: &'static str,
            items: Vec<Item>,
        }
        let item = |i: usize| Item {
            name: format!("n{i} \u{1b}\n\"q\" →"),
            tags: if i.is_multiple_of(3) {
                vec![]
            } else {
                vec!["a", "b"]
            },
            nested: i.is_multiple_of(2).then(|| vec![1, 2]),
        };
        for len in [0, 1, 2, 511, 512, 513, 20_000] {
            let whole = Whole {
                title: "t",
                items: (0..len).map(item).collect(),
            };
            let head = Whole {
                title: "t",
                items: Vec::new(),
            };
            let mut out = Vec::new();
            write_with_items(&mut out, &head, len, item).unwrap();
            assert!(
                out == to_string(&whole).unwrap().into_bytes(),
                "{len} items"
            );
        }
    }

    #[test]
    fn items_made_in_reused_buffers_and_pushed_a_group_at_a_time_are_the_whole() {
        #[derive(Serialize)]
        struct Whole {
            title: &'static str,
            items: Vec<serde_json::Value>,
        }
        let item = |i: usize| serde_json::json!({ "n": i, "s": format!("a\u{7f}\n{i}é") });
        let whole = Whole {
            title: "t",
            items: (0..10).map(item).collect(),
        };
        let head = Whole {
            title: "t",
            items: Vec::new(),
        };
        let mut stream = ItemStream::start(Vec::new(), &head).unwrap();
        let mut scratch = Vec::new();
        for group in [0..3, 3..4, 4..10] {
            let mut joined = String::new();
            for i in group {
                if !joined.is_empty() {
                    joined.push_str(",\n    ");
                }
                push_array_item(&mut joined, &mut scratch, &item(i)).unwrap();
            }
            stream.push(&joined).unwrap();
        }
        let out = String::from_utf8(stream.finish().unwrap()).unwrap();
        assert_eq!(out, to_string(&whole).unwrap());
    }

    #[test]
    fn every_character_that_needs_it_is_escaped_wherever_it_stands() {
        // serde_json's own escaping, then each character of needs_escape:
        // what writing a character at a time gives.
        let reference = |s: &str| {
            let mut out = String::new();
            for c in serde_json::to_string(s).unwrap().chars() {
                if needs_escape(c) {
                    out.push_str(&format!("\\u{:04x}", c as u32));
                } else {
                    out.push(c);
                }
            }
            out
        };
        let pieces = [
            "plain", "\u{7f}", "é", "\u{9b}", "\u{200b}", "→", "\"", "\n", "\u{1b}", "𝄞",
            "\u{feff}", "\u{ad}", "~",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}x{c}");
                    assert_eq!(to_string(&s).unwrap(), reference(&s), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn strings_written_by_hand_are_the_serializers_bytes() {
        // Every character class the escaping tells apart: each control
        // character, quotes and backslashes, DEL and the C1 controls, the
        // line and paragraph separators, every invisible format character,
        // plain ASCII, two- and three-byte text and characters beyond the
        // BMP; alone, at either end and next to each other.
        let mut pieces: Vec<String> = (0u32..0x20)
            .chain(0x7f..=0xa0)
            .chain([0x22, 0x5c, 0x2f, 0x27, 0x20, 0x7e, 0x41])
            .chain([0x2028, 0x2029, 0x2027, 0x202a, 0x202f, 0xad, 0xfeff, 0xfffd])
            .chain([
                0x61c, 0x180e, 0x200b, 0x200f, 0x2060, 0x2064, 0x2066, 0x2069,
            ])
            .chain([0xe9, 0x2192, 0x1d11e, 0x1f600, 0x10ffff, 0xe0001])
            .filter_map(char::from_u32)
            .map(String::from)
            .collect();
        pieces.extend(["".into(), "plain text".into(), "é→".into()]);
        let check = |s: &str| {
            let mut by_hand = String::new();
            push_string(&mut by_hand, s);
            assert_eq!(by_hand, to_string(s).unwrap(), "{s:?}");
        };
        for a in &pieces {
            check(a);
            for b in &pieces {
                check(&format!("{a}{b}"));
                check(&format!("x{a}y{b}z"));
            }
        }
        let all: String = pieces.concat();
        check(&all);
        check(&all.repeat(3));
    }

    #[test]
    fn every_byte_to_look_at_is_seen_in_every_place_of_a_word() {
        for b in 0..=255u8 {
            let look = b < 0x20 || b == b'"' || b == b'\\' || b >= 0x7f;
            for at in 0..8 {
                for fill in [b'a', b' ', b'~', b'!', b'0'] {
                    let mut word = [fill; 8];
                    word[at] = b;
                    assert_eq!(
                        any_to_look_at(u64::from_le_bytes(word)),
                        look,
                        "{b:#x} at {at}"
                    );
                }
            }
        }
    }

    #[test]
    fn integers_written_by_hand_are_the_serializers_bytes() {
        for n in [
            0,
            1,
            9,
            10,
            99,
            100,
            4000,
            u64::from(u32::MAX),
            u64::MAX - 1,
            u64::MAX,
        ]
        .into_iter()
        .chain((0..64).map(|bit| 1u64 << bit))
        .chain((1..20).map(|digits| 10u64.pow(digits) - 1))
        {
            let mut by_hand = String::new();
            push_uint(&mut by_hand, n);
            assert_eq!(by_hand, to_string(&n).unwrap());
        }
    }

    #[test]
    fn raw_items_fill_the_array_as_serialized_items_do() {
        #[derive(Serialize)]
        struct Whole {
            title: &'static str,
            items: Vec<String>,
        }
        let item = |i: usize| format!("n{i}\u{1b}\"");
        for len in [0, 1, 511, 512, 513, 9_000] {
            let head = Whole {
                title: "t",
                items: Vec::new(),
            };
            let whole = Whole {
                title: "t",
                items: (0..len).map(item).collect(),
            };
            let mut out = Vec::new();
            write_with_raw_items(&mut out, &head, len, |i, block| {
                push_string(block, &item(i));
                Ok(())
            })
            .unwrap();
            assert!(
                out == to_string(&whole).unwrap().into_bytes(),
                "{len} items"
            );
        }
    }

    #[test]
    fn streamed_items_are_the_bytes_of_the_whole() {
        #[derive(Serialize)]
        struct Whole {
            title: &'static str,
            items: Vec<serde_json::Value>,
        }
        let item =
            |i: usize| serde_json::json!({ "n": i, "s": format!("a\u{1b}\n{i}"), "v": [i, 1] });
        for len in [0, 1, 2, 7] {
            let whole = Whole {
                title: "t",
                items: (0..len).map(item).collect(),
            };
            let head = Whole {
                title: "t",
                items: Vec::new(),
            };
            let mut stream = ItemStream::start(Vec::new(), &head).unwrap();
            for i in 0..len {
                stream.push(&array_item(&item(i)).unwrap()).unwrap();
            }
            let out = stream.finish().unwrap();
            assert_eq!(
                String::from_utf8(out).unwrap(),
                to_string(&whole).unwrap(),
                "{len} items"
            );
        }
    }

    #[test]
    fn terminal_controls_are_escaped_and_the_text_round_trips() {
        let hostile = "a\u{1b}]0;title\u{7}b\u{9b}2J\u{202e}txt.md\u{200b}\u{7f}\u{2028}é→";
        let json = to_string(&serde_json::json!({ "path": hostile, "n": [1, 2] })).unwrap();
        assert!(
            json.chars()
                .all(|c| c == '\n' || !c.is_control() && !needs_escape(c)),
            "{json:?}"
        );
        assert!(
            json.contains("\\u001b]0;title\\u0007b\\u009b2J\\u202etxt.md\\u200b\\u007f\\u2028é→")
        );
        let back: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(back["path"], hostile);
        // The layout is serde_json's pretty one.
        assert_eq!(
            json,
            serde_json::to_string_pretty(&serde_json::json!({ "path": hostile, "n": [1, 2] }))
                .unwrap()
                .replace("\u{9b}", "\\u009b")
                .replace("\u{202e}", "\\u202e")
                .replace("\u{200b}", "\\u200b")
                .replace("\u{7f}", "\\u007f")
                .replace("\u{2028}", "\\u2028")
        );
    }
}
