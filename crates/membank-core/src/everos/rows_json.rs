//! The rows of `membank entries --json`, written straight from a read file.
//!
//! Each row is the bytes [`crate::json`]'s writer gives for the entry's
//! [`EntryJson`](super::query::EntryJson), indented as an array item, but
//! without building one: the entries of a daily log share every field but
//! their id, line and text, so those fields are escaped once per file, and
//! the text is escaped straight into the output. At a million entries the
//! general writer's per-character work and two strings per row were most
//! of the command's time.

use std::fmt::Write as _;

use super::MemFile;
use super::query::EntryRef;

/// Append the rows of `file`'s entries to `out`, joined by `,\n    ` as
/// [`crate::json::ItemStream::push`] joins items: the text that pushing
/// each row made by [`crate::json::push_array_item`] gives.
pub fn push_file_rows(out: &mut String, file: &MemFile) {
    let Some(first) = file.entries.first() else {
        return;
    };
    // The text, and about what the fields and escapes add to each row.
    out.reserve(file.text.len() + 320 * file.entries.len());
    // Every field but id, line and text is the file's.
    let shared = EntryRef { file, entry: first }.to_json();
    let mut head = String::from("{\n      \"file\": ");
    push_str(&mut head, shared.file);
    head.push_str(",\n      \"id\": ");
    let mut middle = String::from(",\n      \"app\": ");
    push_opt(&mut middle, shared.app);
    middle.push_str(",\n      \"project\": ");
    push_opt(&mut middle, shared.project);
    middle.push_str(",\n      \"owner_kind\": ");
    push_opt(&mut middle, shared.owner_kind);
    middle.push_str(",\n      \"owner\": ");
    push_opt(&mut middle, shared.owner);
    middle.push_str(",\n      \"kind\": ");
    push_opt(&mut middle, shared.kind);
    middle.push_str(",\n      \"date\": ");
    push_opt(&mut middle, shared.date.as_deref());
    middle.push_str(",\n      \"line\": ");
    for (i, entry) in file.entries.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n    ");
        }
        out.push_str(&head);
        push_str(out, &entry.id);
        out.push_str(&middle);
        let _ = write!(out, "{}", entry.line);
        out.push_str(",\n      \"text\": ");
        push_str(out, file.entry_text(entry));
        out.push_str("\n    }");
    }
}

fn push_opt(out: &mut String, value: Option<&str>) {
    match value {
        Some(s) => push_str(out, s),
        None => out.push_str("null"),
    }
}

/// `s` as a JSON string, escaped as [`crate::json`] escapes it: what JSON
/// requires as serde_json writes it (`\"`, `\\`, the short escapes, other
/// controls as `\u00xx`), then every [`crate::json::needs_escape`]
/// character as `\uxxxx`.
fn push_str(out: &mut String, s: &str) {
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
        if crate::json::needs_escape(c) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::everos::load::tests::parsed;

    /// What the general writer gives for the same rows.
    fn written_by_the_json_writer(file: &MemFile) -> String {
        let mut items = String::new();
        let mut scratch = Vec::new();
        for entry in &file.entries {
            if !items.is_empty() {
                items.push_str(",\n    ");
            }
            let row = EntryRef { file, entry }.to_json();
            crate::json::push_array_item(&mut items, &mut scratch, &row).unwrap();
        }
        items
    }

    #[test]
    fn rows_are_the_bytes_of_the_json_writer_for_every_kind_of_character() {
        // Every control, quote, backslash, DEL, C1 controls, separators,
        // invisible and bidi characters, accents, CJK and astral text.
        let mut awkward: String = (0u8..0x20).map(char::from).collect();
        awkward.push_str(
            "\"\\/ plain ~\u{7f}\u{80}\u{9b}\u{9f}\u{a0}é\u{ad}\u{61c}\u{180e}\u{200b}\u{200f}\
             \u{2028}\u{2029}\u{202e}\u{2060}\u{2066}\u{feff}日本\u{1F600}\u{E0001}\u{10FFFF}",
        );
        let body = |text: &str| {
            format!(
                "---\nid: x\n---\n<!-- entry:ep_20240601_00000001 -->\n{text}\n\
                 <!-- /entry:ep_20240601_00000001 -->\n\
                 <!-- entry:ep_20240601_00000002 -->\n\n  second \"entry\"\n\n\
                 <!-- /entry:ep_20240601_00000002 -->\n\
                 <!-- entry:ep_20240601_00000003 --><!-- /entry:ep_20240601_00000003 -->\n"
            )
        };
        let paths = [
            "default_app/default_project/users/user_007/episodes/episode-2024-06-01.md",
            "my \"app\"/p\u{7f}ro\\j/agents/a\u{202e}1/.cases/agent_case-2024-06-01.md",
            // A date that is not a day: a null field.
            "default_app/default_project/users/u/.foresights/foresight-2024-02-30.md",
            "acme/support/users/\u{e9}\t\u{2028}/.atomic_facts/atomic_fact-2024-06-01.md",
        ];
        let mut compared = 0;
        for path in paths {
            for text in [awkward.as_str(), "plain", "", "tab\there\nnew line \u{7f}"] {
                let file = parsed(path, &body(text));
                assert_eq!(file.entries.len(), 3, "{path}");
                let mut got = String::new();
                push_file_rows(&mut got, &file);
                assert_eq!(got, written_by_the_json_writer(&file), "{path} {text:?}");
                compared += 1;
            }
        }
        assert_eq!(compared, 16);
        // Character by character too, each alone and between plain text.
        for c in (0u32..0x3000)
            .chain(0xfe00..0x10000)
            .chain([0x1F600, 0xE0001, 0x10FFFF])
        {
            let Some(c) = char::from_u32(c) else {
                continue;
            };
            let file = parsed(paths[0], &body(&format!("a{c}b{c}")));
            let mut got = String::new();
            push_file_rows(&mut got, &file);
            assert_eq!(got, written_by_the_json_writer(&file), "U+{:04X}", c as u32);
        }
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
    fn a_file_without_entries_gives_no_rows() {
        let file = parsed(
            "default_app/default_project/users/u/user.md",
            "---\nid: x\n---\nbody",
        );
        let mut got = String::from("kept");
        push_file_rows(&mut got, &file);
        assert_eq!(got, "kept");
    }
}
