//! How wrapping treats links, punctuation and list items.

use super::*;

fn rows(doc: &RenderedDoc) -> Vec<String> {
    doc.lines.iter().map(|l| l.to_string()).collect()
}

fn live(_: &str) -> bool {
    true
}

const PARAGRAPH: &str = "Contracts are reviewed by their in-house legal team; \
     see [[Legal]] and the term [[compliance → naleving]]. Ask [[Acme]], then \
     [[Globex]]: both (see [[Legal]]) agree.";

#[test]
fn no_row_starts_with_the_punctuation_or_brackets_that_end_a_link() {
    let theme = Theme::default_theme();
    // From the width of the longest word: a narrower row breaks words.
    for width in 12..=80 {
        let doc = render_markdown(PARAGRAPH, width, &theme, &live);
        for row in rows(&doc) {
            assert!(
                !row.starts_with(['.', ',', ':', ';', ')', ']']),
                "width {width}: {row:?} in {:#?}",
                rows(&doc)
            );
            assert!(
                !row.trim_end().ends_with("[["),
                "width {width}: {row:?} in {:#?}",
                rows(&doc)
            );
        }
    }
    // The case seen on screen: the full stop went to a row of its own.
    let doc = render_markdown(PARAGRAPH, 52, &theme, &live);
    assert!(
        rows(&doc).iter().all(|r| r.trim() != "."),
        "{:#?}",
        rows(&doc)
    );
}

#[test]
fn a_wrapped_link_is_highlighted_whole() {
    let theme = Theme::default_theme();
    for width in 10..=60 {
        let mut doc = render_markdown(PARAGRAPH, width, &theme, &live);
        let link = doc
            .links
            .iter()
            .position(|l| l.target.starts_with("compliance"))
            .expect("the link is found");
        doc.set_link_selected(link, true, &theme);
        let selected: String = doc
            .lines
            .iter()
            .flat_map(|l| &l.spans)
            .filter(|s| s.style == theme.link_selected)
            .map(|s| s.content.as_ref())
            .collect();
        // Only the space where the row broke may be missing.
        let all = "[[compliance → naleving]]";
        assert!(
            selected == all || selected.replace(' ', "") == all.replace(' ', ""),
            "width {width}: selected {selected:?} in {:#?}",
            rows(&doc)
        );
    }
}
