use super::*;

fn plain(doc: &RenderedDoc) -> Vec<String> {
    doc.lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect()
}

#[test]
fn rendered_lines_know_their_source_lines() {
    let theme = Theme::default_theme();
    let src = "---\na: 1\n---\n# Title\n\nfirst para\n\n- item\n\nlast line\n";
    let doc = render_article(src, 60, &theme, &exists);
    assert_eq!(doc.source_lines.len(), doc.lines.len());
    let text = plain(&doc);
    let at = |needle: &str| {
        let i = text.iter().position(|l| l.contains(needle)).unwrap();
        doc.source_lines[i]
    };
    assert_eq!(at("a  1"), 2);
    assert_eq!(at("# Title"), 4);
    assert_eq!(at("first para"), 6);
    assert_eq!(at("• item"), 8);
    assert_eq!(at("last line"), 10);
    assert_eq!(
        doc.line_for_source(7),
        Some(text.iter().position(|l| l == "• item").unwrap())
    );
}

fn exists(t: &str) -> bool {
    t.eq_ignore_ascii_case("Legal")
}

#[test]
fn frontmatter_becomes_a_property_block_with_links() {
    let src =
        "---\nclient: \"Acme\"\ndomains: [\"[[Legal]]\", \"[[Nowhere]]\"]\n---\n# Acme\n\nBody.\n";
    let theme = Theme::default_theme();
    let doc = render_article(src, 60, &theme, &exists);
    let text = plain(&doc);
    assert_eq!(text[0], "┌ properties");
    assert!(text[1].starts_with("│ client "), "{text:?}");
    assert!(text[2].contains("[[Legal]], [[Nowhere]]"), "{text:?}");
    assert!(text.iter().any(|l| l == "# Acme"));
    assert_eq!(doc.links.len(), 2);
    assert!(doc.links[0].live);
    assert!(!doc.links[1].live);
    let (l, s) = doc.links[1].spans[0];
    assert_eq!(doc.lines[l].spans[s].style, theme.dead_link);
    let (l, s) = doc.links[0].spans[0];
    assert_eq!(doc.lines[l].spans[s].style, theme.link);
}

#[test]
fn body_wikilinks_resolve_on_the_part_before_the_pipe() {
    let theme = Theme::default_theme();
    let doc = render_markdown("See [[legal|the law]] and [[Gone]].", 80, &theme, &exists);
    assert_eq!(doc.links.len(), 2);
    assert_eq!(doc.links[0].target, "legal");
    assert!(doc.links[0].live);
    assert!(!doc.links[1].live);
    assert_eq!(plain(&doc)[0], "See [[the law]] and [[Gone]].");
}

#[test]
fn escapes_in_files_are_made_visible() {
    let theme = Theme::default_theme();
    let src = "---\nclient: \"x\x1b[2Jy\"\n---\n# Head\x1b]52;c;AAAA\x07\n\ntext \x1b[31mred\n\n```\ncode\x1b[H\n```\n";
    let doc = render_article(src, 80, &theme, &exists);
    for line in &doc.lines {
        for span in &line.spans {
            assert!(
                !span.content.chars().any(|c| c.is_control()),
                "{:?}",
                span.content
            );
        }
    }
    assert!(plain(&doc).iter().any(|l| l.contains("␛[2J")));
}

#[test]
fn long_paragraphs_wrap_within_the_width() {
    let theme = Theme::default_theme();
    let src = "word ".repeat(50);
    let doc = render_markdown(&src, 20, &theme, &exists);
    assert!(doc.lines.len() >= 10);
    assert!(doc.lines.iter().all(|l| l.width() <= 20));
}

#[test]
fn lists_quotes_tables_and_code_render_readably() {
    let theme = Theme::default_theme();
    let src = "- one\n- two\n  1. nested\n\n> quoted text\n\n| a | bb |\n|---|---:|\n| 1 | 2 |\n\n```rust\nlet x = 1;\n```\n";
    let doc = render_markdown(src, 40, &theme, &exists);
    let text = plain(&doc);
    assert!(text.contains(&"• one".to_owned()), "{text:?}");
    assert!(
        text.iter().any(|l| l.trim_start() == "1. nested"),
        "{text:?}"
    );
    assert!(text.contains(&"│ quoted text".to_owned()), "{text:?}");
    assert!(text.contains(&"│ a │ bb │".to_owned()), "{text:?}");
    assert!(text.contains(&"│ 1 │  2 │".to_owned()), "{text:?}");
    assert!(text.contains(&"  let x = 1;".to_owned()), "{text:?}");
}

#[test]
fn invalid_yaml_is_shown_not_hidden() {
    let theme = Theme::default_theme();
    let doc = render_article("---\na: [\n---\nbody\n", 60, &theme, &exists);
    let text = plain(&doc);
    assert!(text.iter().any(|l| l.contains("invalid YAML")), "{text:?}");
    assert!(text.iter().any(|l| l == "body"));
}

#[test]
fn selecting_a_link_restyles_only_that_link() {
    let theme = Theme::default_theme();
    let mut doc = render_markdown("[[Legal]] [[Legal]]", 80, &theme, &exists);
    doc.set_link_selected(1, true, &theme);
    let (l, s) = doc.links[1].spans[0];
    assert_eq!(doc.lines[l].spans[s].style, theme.link_selected);
    let (l, s) = doc.links[0].spans[0];
    assert_eq!(doc.lines[l].spans[s].style, theme.link);
}

#[test]
fn a_block_of_key_value_lines_keeps_one_field_a_line() {
    let theme = Theme::default_theme();
    let src = "## af_20260601_00000001\n\n**owner_id**: carol\n**session_id**: sess_b2\n\
               **timestamp**: 2026-06-01T06:50:43+00:00\nkind: fact\n\n\
               A sentence that\nwraps softly.\n";
    let text = plain(&render_markdown(src, 60, &theme, &exists));
    for field in [
        "owner_id: carol",
        "session_id: sess_b2",
        "timestamp: 2026-06-01T06:50:43+00:00",
        "kind: fact",
    ] {
        assert!(text.iter().any(|l| l == field), "{field} in {text:?}");
    }
    // Prose still flows: its soft break is a space.
    assert!(
        text.iter().any(|l| l == "A sentence that wraps softly."),
        "{text:?}"
    );
}

#[test]
fn prose_with_one_colon_line_is_not_a_field_block() {
    let theme = Theme::default_theme();
    let src = "Note: this is\na sentence, see https://example.com here.\n";
    let text = plain(&render_markdown(src, 80, &theme, &exists));
    assert_eq!(
        text,
        vec!["Note: this is a sentence, see https://example.com here."]
    );
}
