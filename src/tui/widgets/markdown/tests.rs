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

/// A footnote is shown as written, its reference plain text: neither is
/// a link, as the bank reads them; a link in a footnote's text is one.
#[test]
fn footnotes_are_shown_and_are_no_links() {
    let theme = Theme::default_theme();
    let src = "Vault ID[^1] and [^2].\n\n[^1]: Glossary\n[^2]: See [[Legal]]\n";
    let doc = render_markdown(src, 80, &theme, &exists);
    let text = plain(&doc);
    assert!(text.iter().any(|l| l == "[^1]: Glossary"), "{text:?}");
    assert_eq!(doc.links.len(), 1, "{text:?}");
    assert_eq!(doc.links[0].target, "Legal");
}

/// A link in maths is part of the formula, as the bank reads it: shown as
/// written, not a link to select; a price is no formula.
#[test]
fn links_in_maths_are_part_of_the_formula() {
    let theme = Theme::default_theme();
    let src = "We compute $[(TS)R](u) = x$ and $$[[u]]$$, for $5 and [[Legal]] $10.";
    let doc = render_markdown(src, 120, &theme, &exists);
    assert_eq!(plain(&doc)[0], src);
    assert_eq!(doc.links.len(), 1);
    assert_eq!(doc.links[0].target, "Legal");
}

/// Obsidian writes an alias in a table with its pipe escaped; the link
/// still names the article before it.
#[test]
fn a_table_link_with_an_escaped_pipe_names_its_article() {
    let theme = Theme::default_theme();
    let src = "| a | b |\n|---|---|\n| x | [[legal\\|the law]] |\n";
    let doc = render_markdown(src, 80, &theme, &exists);
    assert_eq!(doc.links.len(), 1);
    assert_eq!(doc.links[0].target, "legal");
    assert!(doc.links[0].live);
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

/// Words of a paragraph as shown once rendered: links show their alias in
/// brackets, and the rest as written.
const WRAP_PIECES: &[(&str, &str)] = &[
    ("word", "word"),
    ("a", "a"),
    ("Übersetzung", "Übersetzung"),
    ("[[Legal]]", "[[Legal]]"),
    ("[[Legal|the law]]", "[[the law]]"),
    ("[[Gone]].", "[[Gone]]."),
    ("[[Legal]],", "[[Legal]],"),
    ("(see [[Gone]])", "(see [[Gone]])"),
    ("漢字の翻訳メモリ", "漢字の翻訳メモリ"),
    ("한국어", "한국어"),
    ("🙂🙂", "🙂🙂"),
    ("ｗｉｄｅ", "ｗｉｄｅ"),
    ("e\u{301}te\u{301}", "e\u{301}te\u{301}"),
    (
        "supercalifragilisticexpialidocious-and-then-some",
        "supercalifragilisticexpialidocious-and-then-some",
    ),
    (".", "."),
    ("—", "—"),
    // A line break inside the paragraph, which goes on in the block.
    ("\n", ""),
];

/// `src` as the text of a block opened by `prefix`: its later lines are
/// indented to stay in the block.
fn in_block(prefix: &str, src: &str) -> String {
    let rest = match prefix {
        "> " => "> ",
        "- top\n  - " => "    ",
        p => &" ".repeat(p.len()),
    };
    format!("{prefix}{}", src.replace('\n', &format!("\n{rest}")))
}

/// Paragraphs of `WRAP_PIECES`, the same for the same seed, with the text
/// they must show (spaces aside).
fn wrap_cases(seed: u64) -> impl Iterator<Item = (String, String, u16)> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    std::iter::from_fn(move || {
        let words = 1 + next() % 30;
        let (mut src, mut shown) = (String::new(), String::new());
        for _ in 0..words {
            let (written, visible) = WRAP_PIECES[(next() % WRAP_PIECES.len() as u64) as usize];
            // A break before any text would end the block's first line
            // empty, which Markdown reads differently.
            if written == "\n" && src.is_empty() {
                continue;
            }
            src.push_str(written);
            if written != "\n" {
                src.push(' ');
            }
            shown.push_str(visible);
        }
        if src.is_empty() {
            (src, shown) = ("word ".into(), "word".into());
        }
        // The renderer draws at least ten columns.
        let width = 10 + (next() % 40) as u16;
        Some((src, shown, width))
    })
}

fn without_spaces(s: &str) -> String {
    s.chars().filter(|&c| c != ' ').collect()
}

#[test]
fn wrapped_paragraphs_keep_every_character_in_order_within_the_width() {
    let theme = Theme::default_theme();
    for (src, shown, width) in wrap_cases(0x9E37_79B9_7F4A_7C15).take(2000) {
        for (prefix, marker) in [
            ("", ""),
            ("- ", "•"),
            ("- top\n  - ", "•top•"),
            ("> ", ""),
            ("1. ", "1."),
        ] {
            let doc = render_markdown(&in_block(prefix, &src), width, &theme, &exists);
            let text = plain(&doc);
            for line in &doc.lines {
                assert!(line.width() <= width as usize, "{width}: {text:?}");
            }
            // The list and quote markers are drawn, not written.
            let body: String = text
                .iter()
                .map(|l| l.trim_start_matches(['│', ' ']))
                .collect();
            let body = without_spaces(&body);
            let Some(body) = body.strip_prefix(marker) else {
                panic!("{prefix}{src:?} at {width}: {text:?}");
            };
            assert_eq!(
                body,
                without_spaces(&shown),
                "{prefix}{src:?} at {width}: {text:?}"
            );
        }
    }
}

#[test]
fn punctuation_after_a_link_stays_with_it() {
    let theme = Theme::default_theme();
    for (src, _, width) in wrap_cases(0x2545_F491_4F6C_DD1D).take(2000) {
        // A `.` written apart from any word may wrap alone.
        if src.split_whitespace().any(|w| w == ".") {
            continue;
        }
        let text = plain(&render_markdown(&src, width, &theme, &exists));
        for line in &text {
            assert!(
                !matches!(line.trim(), "." | ","),
                "{src:?} at {width}: {text:?}"
            );
        }
    }
}

#[test]
fn wrapped_lines_keep_the_indentation_of_their_block() {
    let theme = Theme::default_theme();
    for (src, _, width) in wrap_cases(0x2545_F491_4F6C_DD1D).take(2000) {
        for (prefix, skip, indent) in [
            ("- ", 1, "  "),
            ("1. ", 1, "   "),
            ("- top\n  - ", 2, "    "),
            ("> ", 0, "│ "),
        ] {
            let text = plain(&render_markdown(
                &in_block(prefix, &src),
                width,
                &theme,
                &exists,
            ));
            for line in text.iter().skip(skip) {
                assert!(
                    line.starts_with(indent) || line == indent.trim_end(),
                    "{prefix}{src:?} at {width}: {text:?}"
                );
            }
        }
    }
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

/// An Obsidian callout is a box titled with its kind and title, not a
/// quote starting with `[!note]`; a plain quote stays a quote.
#[test]
fn a_callout_renders_as_a_titled_box() {
    let theme = Theme::default_theme();
    let src = "Before.\n\n> [!tip]- Use **templates**\n> Press the button\n> to insert one.\n\n\
               > [!warning]\n> Careful.\n\n> plain quote\n\nAfter.\n";
    let doc = render_markdown(src, 30, &theme, &exists);
    assert_eq!(
        plain(&doc),
        [
            "Before.",
            "",
            "┌ Tip · Use templates ────────",
            "│ Press the button to insert",
            "│ one.",
            "└─────────────────────────────",
            "",
            "┌ Warning ────────────────────",
            "│ Careful.",
            "└─────────────────────────────",
            "",
            "│ plain quote",
            "│",
            "After.",
        ]
    );
    assert_eq!(doc.source_lines.len(), doc.lines.len());
}

/// A table too wide for the pane is shown a row at a time as
/// `header: value` lines, so every cell can be read in full.
#[test]
fn a_table_too_wide_for_the_pane_is_read_row_by_row_in_full() {
    let theme = Theme::default_theme();
    let src = "| Term | Translation | Note |\n|---|---|---|\n\
               | marketing authorisation holder | houder van de vergunning voor het in de handel brengen | [[Legal]] usage |\n\
               | shelf life | houdbaarheid | |\n";
    let doc = render_markdown(src, 40, &theme, &exists);
    let text = plain(&doc);
    assert_eq!(
        text,
        [
            "▪ Term: marketing authorisation holder",
            "  Translation: houder van de vergunning",
            "    voor het in de handel brengen",
            "  Note: [[Legal]] usage",
            "",
            "▪ Term: shelf life",
            "  Translation: houdbaarheid",
            "  Note:",
        ]
    );
    assert!(text.iter().all(|l| !l.contains('…')), "{text:?}");
    assert_eq!(doc.links.len(), 1);
    // A narrow table is still a grid.
    let narrow = plain(&render_markdown(src, 160, &theme, &exists));
    assert!(narrow.iter().any(|l| l.starts_with("│ Term")), "{narrow:?}");
}

#[test]
fn each_line_of_a_wrapped_list_item_is_found_on_its_own_row() {
    let theme = Theme::default_theme();
    // Lines 1–6; the items' second lines start mid-row when joined.
    let src = "## Regulatory documents\n\
               - SmPC (*Samenvatting van de productkenmerken*) and leaflet\n  \
               ([[package leaflet → bijsluiter|bijsluiter]]) follow the QRD template\n  \
               headings word for word.\n\
               - The holder\n  is always written out in full.\n";
    let doc = render_markdown(src, 40, &theme, &exists);
    let text = plain(&doc);
    let rows = |line: usize| -> Vec<&str> {
        doc.rows_showing(line)
            .into_iter()
            .map(|i| text[i].as_str())
            .collect()
    };
    assert_eq!(rows(1), ["## Regulatory documents"]);
    // Line 3 begins "([[bijsluiter": its rows hold that text, not the
    // heading and not only the item's first row.
    let third = rows(3);
    assert!(
        third.iter().any(|r| r.contains("([[bijsluiter")),
        "{third:?}"
    );
    assert!(!third.iter().any(|r| r.contains("Regulatory")), "{third:?}");
    assert!(!third.iter().any(|r| r.contains("• SmPC")), "{third:?}");
    assert!(rows(4).iter().any(|r| r.contains("headings")));
    // A short item joins its two lines on one row: both lines find it.
    let holder = text.iter().position(|r| r.contains("The holder")).unwrap();
    assert!(doc.rows_showing(5).contains(&holder));
    assert!(
        doc.rows_showing(6)
            .iter()
            .any(|&i| text[i].contains("full."))
    );
}

#[test]
fn each_line_of_a_code_block_keeps_its_own_line_number() {
    let theme = Theme::default_theme();
    let src = "# T\n\n```\nfirst\nsecond\nthird\n```\n";
    let doc = render_markdown(src, 40, &theme, &exists);
    let text = plain(&doc);
    let row = doc.rows_showing(6);
    assert_eq!(row.len(), 1);
    assert_eq!(text[row[0]].trim(), "third");
}

/// `![[…]]` says what it embeds, and a missing file or note is styled as
/// a dead link is, apart from one that is there.
#[test]
fn embeds_name_what_they_show_and_dead_ones_are_styled_apart() {
    let theme = Theme::default_theme();
    let there = |t: &str| matches!(t, "Legal" | "map.png");
    let src = "![[Legal]] ![[map.png]] ![[missing.png]] ![[report.pdf]]\n";
    let doc = render_markdown(src, 120, &theme, &there);
    assert_eq!(
        plain(&doc)[0],
        "[note: Legal] [image: map.png] [image: missing.png] [file: report.pdf]"
    );
    let targets: Vec<(&str, bool)> = doc
        .links
        .iter()
        .map(|l| (l.target.as_str(), l.live))
        .collect();
    assert_eq!(
        targets,
        [
            ("Legal", true),
            ("map.png", true),
            ("missing.png", false),
            ("report.pdf", false)
        ]
    );
    let style_of = |i: usize| {
        let (l, s) = doc.links[i].spans[0];
        doc.lines[l].spans[s].style
    };
    assert_eq!(style_of(0), theme.link);
    assert_eq!(style_of(1), theme.link);
    assert_eq!(style_of(2), theme.dead_link);
    assert_ne!(theme.link, theme.dead_link);
    // A Markdown image is still named as one, and is no link.
    let doc = render_markdown("![a map](img/map.png)\n", 80, &theme, &there);
    assert_eq!(plain(&doc)[0], "[image: a map]");
    assert!(doc.links.is_empty());
}

/// In Obsidian `|300` or `|300x200` after an image is its size, not a
/// caption: the image is still named by its file (or by a caption given
/// before the size).
#[test]
fn an_image_embeds_size_is_not_shown_as_its_name() {
    let theme = Theme::default_theme();
    let there = |t: &str| t == "map.png";
    let src = "![[map.png]] ![[map.png|300]] ![[map.png|300x200]] ![[map.png|Old map|300]]\n\n\
               ![a map|300](img/map.png) ![](img/map.png) ![[map.png|Harbour]]\n";
    let doc = render_markdown(src, 120, &theme, &there);
    let text = plain(&doc);
    assert_eq!(
        text[0],
        "[image: map.png] [image: map.png] [image: map.png] [image: Old map]"
    );
    assert_eq!(text[2], "[image: a map] [image: map.png] [image: Harbour]");
    // Still links to the image, styled as one that is there.
    assert!(doc.links.iter().all(|l| l.target == "map.png" && l.live));
    let (l, s) = doc.links[1].spans[0];
    assert_eq!(doc.lines[l].spans[s].style, theme.link);
}

/// `%% comments %%` are hidden as in Obsidian's reading view, with the
/// links in them; the lines after one keep their source lines.
#[test]
fn comments_are_hidden_and_lines_after_them_keep_their_numbers() {
    let theme = Theme::default_theme();
    let src = "Seen %%hidden [[Legal]]%% here.\n\n%%\nblock [[Legal]]\n%%\n\nAfter `%%code%%`\n";
    let doc = render_markdown(src, 60, &theme, &exists);
    let text = plain(&doc);
    assert_eq!(text, ["Seen here.", "", "After %%code%%"]);
    assert!(doc.links.is_empty(), "{:?}", doc.links);
    assert_eq!(doc.rows_showing(7), [2]);
}

/// `==highlight==` is drawn in the highlight style, its marks hidden; a
/// mark with no partner, or one that opens before a space, stays text.
#[test]
fn highlights_are_styled_and_their_marks_hidden() {
    let theme = Theme::default_theme();
    let src = "a ==marked **bold**== b == c ==open\n";
    let doc = render_markdown(src, 80, &theme, &exists);
    assert_eq!(plain(&doc)[0], "a marked bold b == c ==open");
    let style_of = |needle: &str| {
        doc.lines[0]
            .spans
            .iter()
            .find(|s| s.content.contains(needle))
            .map(|s| s.style)
            .unwrap()
    };
    assert_eq!(style_of("marked"), theme.text.patch(theme.highlight));
    assert_eq!(
        style_of("bold"),
        theme.text.patch(theme.strong).patch(theme.highlight)
    );
    assert_eq!(style_of(" b "), theme.text);
    assert_ne!(theme.highlight, Style::default());
    // Inside code, `==` is code.
    let doc = render_markdown("`==x==`\n", 80, &theme, &exists);
    assert_eq!(plain(&doc)[0], "==x==");
}
