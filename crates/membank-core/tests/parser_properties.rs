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

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        if let Ok(decoded) = text::decode(&bytes) {
            let a = Article::parse("02_TERMINOLOGY/x.md".into(), Folder::Terminology, decoded);
            prop_assert!(a.body_start <= a.text.len());
        }
    }

    #[test]
    fn markdownish_text_never_panics(s in markdownish()) {
        let a = Article::parse("01_CLIENTS/x.md".into(), Folder::Clients, text::decode(s.as_bytes()).unwrap());
        prop_assert!(a.body_start <= a.text.len());
        prop_assert!(a.text.is_char_boundary(a.body_start));
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
    fn normalisation_is_idempotent(s in "\\PC{0,30}") {
        let once = wikilink::normalize_value(&s);
        prop_assert_eq!(wikilink::normalize_value(once), once);
    }

    #[test]
    fn yaml_parser_never_panics(s in markdownish()) {
        let _ = frontmatter::parse_yaml(&s, 2);
    }

    #[test]
    fn sanitised_text_has_no_controls(s in "\\PC{0,20}[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}]{0,5}\\PC{0,20}") {
        let out = text::sanitize_for_terminal(&s, false);
        prop_assert!(!out.chars().any(|c| c.is_control()));
    }
}
