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
use crate::json::push_string;

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
    push_string(&mut head, shared.file);
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
        push_string(out, &entry.id);
        out.push_str(&middle);
        let _ = write!(out, "{}", entry.line);
        out.push_str(",\n      \"text\": ");
        push_string(out, file.entry_text(entry));
        out.push_str("\n    }");
    }
}

fn push_opt(out: &mut String, value: Option<&str>) {
    match value {
        Some(s) => push_string(out, s),
        None => out.push_str("null"),
    }
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
