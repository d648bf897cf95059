//! Property tests: the read-side parsers never panic on arbitrary input and
//! keep their invariants.

use membank_core::article::Article;
use membank_core::frontmatter::{self, Block};
use membank_core::layout::Folder;
use membank_core::text;
use membank_core::wikilink;
use proptest::prelude::*;

/// Text built from the characters the parsers care about, so the random
/// cases hit fences, delimiters and brackets often.
fn markdownish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just("---\n".to_owned()),
            Just("```markdown\n".to_owned()),
            Just("```\n".to_owned()),
            Just("~~~\n".to_owned()),
            Just("[[".to_owned()),
            Just("]]".to_owned()),
            Just("|".to_owned()),
            Just("#".to_owned()),
            Just("`".to_owned()),
            Just("    ".to_owned()),
            Just("key: value\n".to_owned()),
            Just("list: [\"[[A]]\", b]\n".to_owned()),
            Just("→".to_owned()),
            Just("\n".to_owned()),
            "[a-zA-Z0-9 :\\-\"']{0,8}",
            any::<char>().prop_map(|c| c.to_string()),
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// A link target as people name articles: several scripts, inner spaces.
fn target() -> impl Strategy<Value = String> {
    "[A-Za-zé漢한Ж][A-Za-zé漢한Ж0-9 ]{0,8}[a-z漢한0-9]"
}

/// One body line or block, with the targets of the links it holds (none
/// inside code).
fn body_part() -> impl Strategy<Value = (String, Vec<String>)> {
    prop_oneof![
        "[A-Za-z ]{1,12}".prop_map(|t| (format!("# {t}"), vec![])),
        "[a-zé .,;]{0,12}".prop_map(|t| (t, vec![])),
        (target(), "[a-z ,.]{0,8}").prop_map(|(t, after)| (format!("See [[{t}]]{after}"), vec![t])),
        (target(), "[a-z]{1,6}")
            .prop_map(|(t, alias)| (format!("- [[{t}|{alias}]] item"), vec![t])),
        (target(), "[a-z]{1,6}").prop_map(|(t, h)| (format!("[[{t}#{h}]]."), vec![t])),
        (target(), target()).prop_map(|(a, b)| (format!("[[{a}]], [[{b}]]"), vec![a, b])),
        (
            prop::sample::select(vec!["```", "~~~", "```markdown"]),
            target()
        )
            .prop_map(|(fence, t)| {
                let close = &fence[..3];
                (format!("{fence}\nnot a link: [[{t}]]\n{close}"), vec![])
            }),
        target().prop_map(|t| (format!("Inline `[[{t}]]` code"), vec![])),
    ]
}

/// An article's bytes, the link targets of its frontmatter if it has one,
/// and its body's link targets in order with their lines.
type WrittenArticle = (Vec<u8>, Option<Vec<String>>, Vec<(String, usize)>);

/// A well-formed article as saved by an editor: maybe a BOM, maybe a
/// frontmatter block whose values link, a body of headings, paragraphs,
/// lists and fences, LF or CRLF line ends. Returns the bytes, the link
/// targets of the frontmatter if there is one, and the body's link targets
/// in order with their lines.
fn article() -> impl Strategy<Value = WrittenArticle> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::option::of(prop::collection::vec(target(), 0..3)),
        prop::collection::vec(body_part(), 0..12),
    )
        .prop_map(|(bom, crlf, front, parts)| {
            let mut text = String::new();
            if let Some(domains) = &front {
                let quoted: Vec<String> = domains.iter().map(|d| format!("\"[[{d}]]\"")).collect();
                text.push_str(&format!(
                    "---\nclient: \"Acme\"\ndomains: [{}]\nlast_updated: 2026-04-04\n---\n",
                    quoted.join(", ")
                ));
            }
            // A fence on the first line would wrap the whole article (§4.3).
            text.push_str("# Notes\n");
            let mut body_links = Vec::new();
            for (part, links) in parts {
                let line = text.lines().count() + 1;
                body_links.extend(links.into_iter().map(|t| (t, line)));
                text.push_str(&part);
                text.push('\n');
            }
            if crlf {
                text = text.replace('\n', "\r\n");
            }
            let mut bytes = if bom { vec![0xEF, 0xBB, 0xBF] } else { vec![] };
            bytes.extend_from_slice(text.as_bytes());
            (bytes, front, body_links)
        })
}

/// What a damaged file holds where the article had something else.
const DAMAGE: &[&[u8]] = &[
    b"---\n",
    b"---",
    b"\r",
    b"\r\n",
    b"\n",
    b"```",
    b"```markdown\n",
    b"~~~\n",
    b"[[",
    b"]]",
    b"|",
    b"#",
    b": ",
    b"- ",
    b"\"",
    b"'",
    b"{",
    b"[",
    b"\t",
    b"\0",
    b"\x1b[2J",
    "\u{FEFF}".as_bytes(),
    "\u{202E}".as_bytes(),
    "漢".as_bytes(),
    b"\xFF",
    b"\xC3",
];

/// A well-formed article with a few cuts, copies and insertions at random
/// places; a cut may split a character, so not every result is UTF-8.
fn damaged_article() -> impl Strategy<Value = Vec<u8>> {
    (
        article(),
        prop::collection::vec(
            (
                0..3u8,
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                prop::sample::select(DAMAGE),
            ),
            1..5,
        ),
    )
        .prop_map(|((mut bytes, _, _), edits)| {
            for (kind, at, len, piece) in edits {
                let at = at.index(bytes.len() + 1);
                let end = (at + len.index(16)).min(bytes.len());
                match kind {
                    0 => {
                        bytes.splice(at..at, piece.iter().copied());
                    }
                    1 => {
                        bytes.drain(at..end);
                    }
                    _ => {
                        let copy = bytes[at..end].to_vec();
                        bytes.splice(at..at, copy);
                    }
                }
            }
            bytes
        })
}

/// Strings with what the text functions must handle: whitespace of every
/// kind, line ends, brackets, bidirectional and zero-width characters,
/// controls and escape sequences.
fn tricky_text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::sample::select(vec![
                "[[",
                "]]",
                "|",
                "#",
                "\\",
                " ",
                "\u{A0}",
                "\u{3000}",
                "\t",
                "\n",
                "\r\n",
                "\u{2028}",
                "\u{202E}",
                "\u{2066}",
                "\u{2069}",
                "\u{200B}",
                "\u{200F}",
                "\u{FEFF}",
                "\u{1b}[31m",
                "\u{1b}]52;c;AAAA\u{7}",
                "\u{7f}",
                "\u{85}",
                "\u{9b}",
                "\0",
                "Legal",
                "ß",
                "İ",
                "漢字",
                "한",
                "e\u{301}",
            ])
            .prop_map(str::to_owned),
            "[a-z ]{0,4}",
            any::<char>().prop_map(|c| c.to_string()),
        ],
        0..16,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn well_formed_articles_keep_every_link_and_its_line(
        (bytes, front_links, body_links) in article()
    ) {
        let decoded = text::decode(&bytes).unwrap();
        prop_assert_eq!(decoded.had_bom, bytes.starts_with(b"\xEF\xBB\xBF"));
        prop_assert!(!decoded.text.contains('\r'));
        let a = Article::parse("01_CLIENTS/x.md".into(), Folder::Clients, decoded);
        prop_assert_eq!(a.is_parsed(), front_links.is_some());
        let front_links = front_links.unwrap_or_default();
        let found_front: Vec<&str> =
            a.links.iter().filter(|l| l.in_frontmatter).map(|l| l.target()).collect();
        prop_assert_eq!(found_front, front_links.iter().map(String::as_str).collect::<Vec<_>>());
        let found_body: Vec<(&str, usize)> = a
            .links
            .iter()
            .filter(|l| !l.in_frontmatter)
            .map(|l| (l.target(), l.line))
            .collect();
        let expected: Vec<(&str, usize)> = body_links.iter().map(|(t, l)| (t.as_str(), *l)).collect();
        prop_assert_eq!(found_body, expected);
    }

    #[test]
    fn damaged_articles_never_panic(bytes in damaged_article()) {
        if let Ok(decoded) = text::decode(&bytes) {
            let lines = decoded.text.lines().count().max(1);
            let a = Article::parse("02_TERMINOLOGY/x.md".into(), Folder::Terminology, decoded);
            prop_assert!(a.body_start() <= a.text.len());
            prop_assert!(a.text.is_char_boundary(a.body_start()));
            for l in &a.links {
                prop_assert!(!l.target().is_empty());
                prop_assert!(l.line >= 1 && l.line <= lines + 1, "{} of {}", l.line, lines);
            }
        }
    }

    #[test]
    fn markdownish_text_never_panics(s in markdownish()) {
        let a = Article::parse("01_CLIENTS/x.md".into(), Folder::Clients, text::decode(s.as_bytes()).unwrap());
        prop_assert!(a.body_start() <= a.text.len());
        prop_assert!(a.text.is_char_boundary(a.body_start()));
        for l in &a.links {
            prop_assert!(l.line >= 1);
            prop_assert!(l.line <= s.lines().count().max(1) + 1);
        }
        let _ = wikilink::extract_markdown(&s);
    }

    #[test]
    fn unfenced_text_is_kept_verbatim(s in markdownish()) {
        prop_assume!(!s.trim_start().starts_with("```") && !s.trim_start().starts_with("~~~"));
        let l = frontmatter::locate(&s);
        prop_assert!(!l.fenced);
        prop_assert_eq!(&l.text, &s);
        if let Block::Present(r) = l.block {
            prop_assert!(r.end <= l.body_start);
        }
    }

    #[test]
    fn link_spans_point_at_brackets(s in markdownish()) {
        for l in wikilink::extract_plain(&s) {
            let whole = &s[l.span.clone()];
            prop_assert!(whole.starts_with("[[") && whole.ends_with("]]"));
            prop_assert!(!l.target.is_empty());
            prop_assert!(!l.target.contains('|') && !l.target.contains('#'));
        }
    }

    #[test]
    fn normalisation_is_idempotent(s in tricky_text()) {
        let once = wikilink::normalize_value(&s);
        prop_assert_eq!(wikilink::normalize_value(once), once);
    }

    #[test]
    fn yaml_parser_never_panics(s in markdownish()) {
        let _ = frontmatter::parse_yaml(&s, 2);
    }

    #[test]
    fn sanitised_text_has_no_controls(s in tricky_text(), keep_newlines in any::<bool>()) {
        let out = text::sanitize_for_terminal(&s, keep_newlines);
        let shown = |c: char| c == '\n' && keep_newlines;
        prop_assert!(!out.chars().any(|c| c.is_control() && !shown(c)), "{:?}", out);
        // Bidirectional overrides and isolates would reorder what follows.
        prop_assert!(!out.chars().any(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')), "{:?}", out);
    }
}
