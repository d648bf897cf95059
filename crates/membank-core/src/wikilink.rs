//! `[[wikilinks]]`: extraction from bodies and frontmatter, and the value
//! normalisation that scoring shares with link resolution (spec §6, §7).

use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use regex::Regex;

/// One `[[...]]` occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WikiLink {
    /// What is between the brackets, as written.
    pub raw: String,
    /// The part that names the article: before `|` and `#`, trimmed.
    pub target: String,
    /// Byte range of the whole `[[...]]` in the text it was found in.
    pub span: Range<usize>,
}

static LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[\[([^\[\]\n]+?)\]\]").expect("valid regex"));

/// The article name a link or frontmatter value points at: `[[ ]]` removed,
/// then everything after `|` or `#`, then surrounding whitespace.
pub fn normalize_value(value: &str) -> &str {
    let mut v = value.trim();
    if let Some(inner) = v.strip_prefix("[[").and_then(|s| s.strip_suffix("]]")) {
        v = inner;
    }
    if let Some(i) = v.find(['|', '#']) {
        v = &v[..i];
    }
    v.trim()
}

/// The lookup key for case-insensitive comparison.
pub fn fold(s: &str) -> String {
    s.to_lowercase()
}

/// Links in any string (a frontmatter value): no Markdown rules apply.
pub fn extract_plain(s: &str) -> Vec<WikiLink> {
    LINK.captures_iter(s)
        .map(|c| {
            let whole = c.get(0).expect("match");
            let raw = c[1].to_owned();
            WikiLink {
                target: normalize_value(&raw).to_owned(),
                raw,
                span: whole.range(),
            }
        })
        .filter(|l| !l.target.is_empty())
        .collect()
}

/// Links in a Markdown body, skipping code spans and code blocks.
pub fn extract_markdown(body: &str) -> Vec<WikiLink> {
    if !body.contains("[[") {
        return Vec::new();
    }
    let mut links = extract_plain(body);
    if links.is_empty() {
        return links;
    }
    // Only pay for a Markdown parse when code could hide a link. Code starts
    // at its opening backticks, fence or indentation, so if the first such
    // marker comes after the last link, no link can be inside code.
    let last_link = links.last().map_or(0, |l| l.span.start);
    let first_marker = [
        body.find('`'),
        body.find("~~~"),
        body.find("    "),
        body.find('\t'),
    ]
    .into_iter()
    .flatten()
    .min();
    if first_marker.is_some_and(|m| m < last_link) {
        let code = code_ranges(body);
        if !code.is_empty() {
            // Links and code ranges both come in document order, so one
            // sweep decides each link (a nested scan is quadratic on a
            // note with many links and many code spans).
            let mut next_code = 0;
            links.retain(|l| {
                while code.get(next_code).is_some_and(|r| r.end <= l.span.start) {
                    next_code += 1;
                }
                code.get(next_code).is_none_or(|r| r.start > l.span.start)
            });
        }
    }
    links
}

fn code_ranges(body: &str) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut block_start: Option<usize> = None;
    for (event, range) in Parser::new(body).into_offset_iter() {
        match event {
            Event::Code(_) => ranges.push(range),
            Event::Start(Tag::CodeBlock(_)) => block_start = Some(range.start),
            Event::End(TagEnd::CodeBlock) => {
                if let Some(s) = block_start.take() {
                    ranges.push(s..range.end);
                }
            }
            _ => {}
        }
    }
    ranges
}

#[cfg(test)]
mod tests {
    use super::*;

    fn targets(v: Vec<WikiLink>) -> Vec<String> {
        v.into_iter().map(|l| l.target).collect()
    }

    #[test]
    fn normalisation_strips_brackets_alias_and_heading() {
        assert_eq!(normalize_value("[[Acme Corporation]]"), "Acme Corporation");
        assert_eq!(normalize_value("[[Acme|the client]]"), "Acme");
        assert_eq!(normalize_value("[[Legal#Contracts]]"), "Legal");
        assert_eq!(normalize_value("  Legal  "), "Legal");
        assert_eq!(normalize_value("Legal|x"), "Legal");
    }

    #[test]
    fn body_links_skip_code() {
        let body =
            "See [[A]] and `[[B]]`.\n\n```\n[[C]]\n```\n\n    [[D]]\n\nand [[E|alias]] [[F#H]]\n";
        assert_eq!(targets(extract_markdown(body)), vec!["A", "E", "F"]);
    }

    #[test]
    fn code_after_the_last_link_hides_nothing_but_code_before_it_does() {
        assert_eq!(targets(extract_markdown("[[A]] then `x`\n")), vec!["A"]);
        assert_eq!(targets(extract_markdown("`[[A]]` [[B]]\n")), vec!["B"]);
        assert_eq!(
            targets(extract_markdown("[[A]]\n\n    [[B]]\n\n[[C]]\n")),
            vec!["A", "C"]
        );
        assert_eq!(
            targets(extract_markdown("[[A]]\n\n> ```\n> [[B]]\n> ```\n")),
            vec!["A"]
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 2000, ..Default::default() })]

        /// Skipping the Markdown parse never changes which links are found.
        #[test]
        fn skipping_the_parse_finds_the_same_links(
            parts in proptest::collection::vec(
                proptest::prop_oneof![
                    proptest::strategy::Just("[[A]]"),
                    proptest::strategy::Just("[[B|b]]"),
                    proptest::strategy::Just("`"),
                    proptest::strategy::Just("```\n"),
                    proptest::strategy::Just("~~~\n"),
                    proptest::strategy::Just("    "),
                    proptest::strategy::Just("\t"),
                    proptest::strategy::Just("> "),
                    proptest::strategy::Just("- "),
                    proptest::strategy::Just("\n"),
                    proptest::strategy::Just("\n\n"),
                    proptest::strategy::Just("text "),
                ],
                0..30,
            )
        ) {
            let body = parts.concat();
            let code = code_ranges(&body);
            let mut expected = extract_plain(&body);
            expected.retain(|l| !code.iter().any(|r| r.start <= l.span.start && l.span.start < r.end));
            proptest::prop_assert_eq!(extract_markdown(&body), expected, "{:?}", body);
        }
    }

    #[test]
    fn unicode_targets_and_arrows() {
        let l = extract_markdown("[[compliance → naleving]]");
        assert_eq!(l[0].target, "compliance → naleving");
        assert_eq!(l[0].span, 0.."[[compliance → naleving]]".len());
    }

    #[test]
    fn empty_and_broken_links_are_ignored() {
        assert!(extract_plain("[[]] [[ | x]] [[a").is_empty());
        assert!(extract_markdown("[[a\nb]]").is_empty());
    }

    #[test]
    fn plain_extraction_for_frontmatter() {
        assert_eq!(
            targets(extract_plain("[[Legal]], [[Marketing]]")),
            vec!["Legal", "Marketing"]
        );
    }
}
