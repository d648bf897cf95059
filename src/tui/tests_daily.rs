//! Rendering tests of the everyday details: the Context pane's detail
//! box, the Health pane's folding and filter, in-article search, status
//! expiry and the key hints at 80 columns.

use std::path::PathBuf;

use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

use super::app::Pane;
use super::panes::context::Field;
use super::tests::{app_at, bank_of, key, keys, screen};

fn demo_bank() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("demo-bank")
}

fn focus(app: &mut super::app::App, pane: Pane) {
    while app.focus != pane {
        key(app, KeyCode::Tab);
    }
}

/// At 80 columns the summary needs more rows than it is given: the last
/// row shown ends in `…`, so it does not read as a sentence that stops.
#[test]
fn a_summary_longer_than_its_rows_ends_in_an_ellipsis() {
    let mut app = app_at(&demo_bank(), 80, 24);
    let theme = app.theme.clone();
    let ctx = &mut app.panes.context;
    for (field, value) in [
        (Field::Client, "Brightwell Pharma"),
        (Field::SourceLang, "en-US"),
        (Field::TargetLang, "nl-BE"),
        (Field::Budget, "1500"),
    ] {
        ctx.set_field(field, value, bank_of(app.memory.as_ref()), &theme);
    }
    focus(&mut app, Pane::Context);
    let s = screen(&app);
    assert!(
        app.panes.context.summary.contains("§8)"),
        "{}",
        app.panes.context.summary
    );
    assert!(
        !s.contains("§8)"),
        "the summary is longer than its rows: {s}"
    );
    assert!(
        s.lines()
            .any(|l| l.trim_end_matches(['"', '│', ' ']).ends_with("before any…")),
        "{s}"
    );
}

#[test]
fn context_detail_box_explains_the_selected_candidate_and_the_tier_rule() {
    let mut app = app_at(&demo_bank(), 100, 40);
    app.bank_label = "demo-bank".into();
    app.status.bank = app.bank_label.clone();
    let theme = app.theme.clone();
    let ctx = &mut app.panes.context;
    ctx.set_field(
        Field::Client,
        "Brightwell Pharma",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    ctx.set_field(
        Field::SourceLang,
        "en-US",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    ctx.set_field(Field::Budget, "1500", bank_of(app.memory.as_ref()), &theme);
    focus(&mut app, Pane::Context);
    // Down past the form to the second candidate: a score-4 term the
    // budget dropped while lower-scoring articles were kept.
    for _ in 0..7 {
        key(&mut app, KeyCode::Down);
    }
    let s = screen(&app);
    assert!(
        app.panes.context.summary.contains("tier order"),
        "{}",
        app.panes.context.summary
    );
    assert!(
        s.contains("client profile, §8)"),
        "the summary wraps, not cut: {s}"
    );
    assert!(s.contains("batch record"), "{s}");
    assert!(
        s.contains("score 4 = client 3 + domain 0 + languages 1"),
        "{s}"
    );
    assert!(
        s.contains("budget rule (§8): terminology is dropped before any"),
        "{s}"
    );
    assert!(s.contains("dropped: over budget"), "{s}");
    assert_snapshot!(s);
    // On the form there is no detail box: the list shows the top of the
    // ranking, which is what typing changes.
    keys(&mut app, "g");
    assert!(app.panes.context.detail_rows() == 0);
}

#[test]
fn context_rows_wrap_every_reason_at_80_columns() {
    let mut app = app_at(&demo_bank(), 80, 24);
    let theme = app.theme.clone();
    let ctx = &mut app.panes.context;
    ctx.set_field(
        Field::Client,
        "Brightwell Pharma",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    ctx.set_field(
        Field::SourceLang,
        "en-US",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    ctx.set_field(Field::Budget, "1500", bank_of(app.memory.as_ref()), &theme);
    focus(&mut app, Pane::Context);
    for _ in 0..7 {
        key(&mut app, KeyCode::Down);
    }
    let s = screen(&app);
    // The drop reason's end is on screen, on a row of its own.
    assert!(s.contains("lowest score first"), "{s}");
}

#[test]
fn status_messages_expire_and_errors_last_longer() {
    use std::time::{Duration, Instant};
    let mut app = app_at(&demo_bank(), 80, 24);
    let start = Instant::now();
    app.status.info("copied x");
    super::update::update(&mut app, super::app::Msg::Tick(start));
    assert!(screen(&app).contains("copied x"));
    super::update::update(
        &mut app,
        super::app::Msg::Tick(start + Duration::from_secs(7)),
    );
    assert!(!screen(&app).contains("copied x"), "{}", screen(&app));
    app.status.error("the bank could not be read");
    super::update::update(
        &mut app,
        super::app::Msg::Tick(Instant::now() + Duration::from_secs(7)),
    );
    assert!(screen(&app).contains("could not be read"));
    super::update::update(
        &mut app,
        super::app::Msg::Tick(Instant::now() + Duration::from_secs(31)),
    );
    assert!(app.status.message.is_none());
}

#[test]
fn the_whole_screen_goes_out_in_the_16_standard_colour_codes() {
    use ratatui::backend::CrosstermBackend;
    use ratatui::layout::Rect;
    use ratatui::{Terminal, TerminalOptions, Viewport};
    let mut app = app_at(&demo_bank(), 100, 30);
    keys(&mut app, "j");
    key(&mut app, KeyCode::Enter);
    let mut out = super::terminal::Ansi16::new(Vec::new());
    {
        let options = TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, 100, 30)),
        };
        let mut term = Terminal::with_options(CrosstermBackend::new(&mut out), options).unwrap();
        term.draw(|f| super::ui::draw(f, &app)).unwrap();
    }
    let bytes = String::from_utf8(out.into_inner()).unwrap();
    assert!(
        !bytes.contains("38;5;") && !bytes.contains("48;5;"),
        "{bytes:?}"
    );
    assert!(
        bytes.contains("\x1b[36;") || bytes.contains("\x1b[36m"),
        "cyan as the standard code: {bytes:?}"
    );
}

#[test]
fn every_panes_hints_fit_at_80_columns_and_lead_to_the_keys() {
    for pane in super::app::Pane::ORDER {
        let mut app = app_at(&demo_bank(), 80, 24);
        focus(&mut app, pane);
        let s = screen(&app);
        let bottom = s.lines().rev().nth(1).expect("a bottom border").to_owned();
        assert!(bottom.contains("? keys "), "{pane:?}: {bottom}");
        assert!(
            bottom.contains("┘"),
            "{pane:?}: the border closes: {bottom}"
        );
    }
}

#[test]
fn the_help_popup_fits_80x24_and_scrolls() {
    let mut app = app_at(&demo_bank(), 80, 24);
    focus(&mut app, Pane::Agents);
    keys(&mut app, "?");
    let s = screen(&app);
    assert!(s.contains("↑/↓ scroll 1-"), "{s}");
    assert!(
        !s.contains("suspend to the shell"),
        "the last key is below: {s}"
    );
    key(&mut app, KeyCode::End);
    let s = screen(&app);
    assert!(s.contains("suspend to the shell"), "{s}");
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

#[test]
fn copies_are_the_path_as_shown_a_wikilink_or_the_assembled_context() {
    use super::app::Effect;
    let mut app = app_at(&demo_bank(), 100, 30);
    app.open_article("01_CLIENTS/Brightwell Pharma.md");
    keys(&mut app, "y");
    assert!(
        app.effects
            .contains(&Effect::Copy("01_CLIENTS/Brightwell Pharma.md".into())),
        "{:?}",
        app.effects
    );
    keys(&mut app, "Y");
    assert!(
        app.effects
            .contains(&Effect::Copy("[[Brightwell Pharma]]".into()))
    );
    let theme = app.theme.clone();
    app.panes.context.set_field(
        Field::Client,
        "Brightwell Pharma",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    focus(&mut app, Pane::Context);
    keys(&mut app, "C");
    let Some(Effect::Copy(text)) = app.effects.last() else {
        panic!("{:?}", app.effects)
    };
    assert!(
        text.starts_with("----- 01_CLIENTS/Brightwell Pharma.md -----"),
        "{text}"
    );
    assert!(screen(&app).contains("copied the assembled context"));
}

/// `Y` on a note whose name a wikilink cannot hold copies a link that
/// opens it: `[[C# notes]]` would open a note `C`, or nothing.
#[test]
fn a_copied_link_to_a_name_a_wikilink_cannot_hold_is_a_markdown_link() {
    use super::app::Effect;
    let d = tempfile::tempdir().unwrap();
    let domains = d.path().join("03_DOMAINS");
    std::fs::create_dir_all(&domains).unwrap();
    std::fs::write(domains.join("C# notes.md"), "---\ndomain: CS\n---\n# C#\n").unwrap();
    let mut app = app_at(d.path(), 100, 30);
    app.open_article("03_DOMAINS/C# notes.md");
    keys(&mut app, "Y");
    assert_eq!(
        app.effects.last(),
        Some(&Effect::Copy(
            "[C# notes](03_DOMAINS/C%23%20notes.md)".into()
        )),
        "{:?}",
        app.effects
    );
}

#[test]
fn search_in_the_article_steps_through_highlighted_matches() {
    let mut app = app_at(&demo_bank(), 100, 30);
    app.open_article("01_CLIENTS/Brightwell Pharma.md");
    keys(&mut app, "/");
    assert!(app.panes.article.search.as_ref().unwrap().typing);
    // Typed letters go to the search, not to the key map (`q` would quit).
    keys(&mut app, "batch");
    let search = app.panes.article.search.as_ref().unwrap();
    let hits = search.hits.len();
    assert!(hits >= 2, "{hits}");
    let s = screen(&app);
    assert!(s.contains(&format!("/batch▏  1/{hits}")), "{s}");
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "n");
    assert_eq!(
        app.panes.article.search.as_ref().unwrap().position(),
        format!("2/{hits}")
    );
    keys(&mut app, "N");
    assert_eq!(
        app.panes.article.search.as_ref().unwrap().position(),
        format!("1/{hits}")
    );
    let s = screen(&app);
    assert!(s.contains(&format!("match 1/{hits}")), "{s}");
    // Esc clears the search first, then goes back to the tree; the
    // position of a search that is gone leaves the status bar with it.
    key(&mut app, KeyCode::Esc);
    assert!(app.panes.article.search.is_none());
    assert_eq!(app.focus, Pane::Article);
    let s = screen(&app);
    assert!(!s.contains(&format!("match 1/{hits}")), "{s}");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Pane::Bank);
}

#[test]
fn enter_on_a_finding_opens_the_article_at_its_line_highlighted_with_its_findings_on_top() {
    let mut app = app_at(&demo_bank(), 100, 30);
    focus(&mut app, Pane::Health);
    // The first finding with a line.
    let target = loop {
        key(&mut app, KeyCode::Down);
        if let Some(f) = app.panes.health.selected_finding()
            && f.line().is_some()
            && !f.path.is_empty()
            && matches!(
                app.panes.health.rows[app.panes.health.cursor.selected],
                super::panes::health::HealthRow::Finding { .. }
            )
        {
            break f.clone();
        }
    };
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert_eq!(app.panes.article.rel.as_deref(), Some(&*target.path));
    assert_eq!(app.panes.article.marked_line, target.line());
    let s = screen(&app);
    assert!(s.contains("in this file:"), "{s}");
    assert!(s.contains(target.code()), "{s}");
    // The highlighted row is drawn reversed.
    let mut term = ratatui::Terminal::new(ratatui::backend::TestBackend::new(100, 30)).unwrap();
    term.draw(|f| super::ui::draw(f, &app)).unwrap();
    let buf = term.backend().buffer();
    let area = app.areas.of(Pane::Article).unwrap();
    let reversed_rows = (area.y + 1..area.y + area.height - 1)
        .filter(|&y| {
            buf[(area.x + area.width - 2, y)]
                .modifier
                .contains(ratatui::style::Modifier::REVERSED)
        })
        .count();
    assert!(reversed_rows >= 1, "{s}");
}

#[test]
fn health_groups_fold_jump_and_filter() {
    use super::panes::health::RowKind;
    let mut app = app_at(&demo_bank(), 100, 30);
    focus(&mut app, Pane::Health);
    let all_rows = app.panes.health.rows.len();
    // `]` goes to the next group row, `h` folds it.
    keys(&mut app, "]");
    let h = &app.panes.health;
    let Some(RowKind::Code(severity, code)) = h.row_kind(h.cursor.selected) else {
        panic!("{:?}", h.rows[h.cursor.selected])
    };
    keys(&mut app, "jh");
    let h = &app.panes.health;
    assert!(h.rows.len() < all_rows, "the group folded");
    // Folding from a finding puts the cursor back on its own group row.
    assert_eq!(
        h.row_kind(h.cursor.selected),
        Some(RowKind::Code(severity, code))
    );
    assert!(screen(&app).contains(&format!("▸ {code}")));
    keys(&mut app, "l");
    assert_eq!(app.panes.health.rows.len(), all_rows);
    // A filter narrows to one code; typed letters do not act as keys.
    keys(&mut app, "/");
    keys(&mut app, code);
    key(&mut app, KeyCode::Enter);
    let h = &app.panes.health;
    assert!((0..h.rows.len()).all(|r| match h.row_kind(r) {
        Some(RowKind::Finding(i)) => {
            let f = &h.report.findings[i];
            f.code().contains(code) || f.path.to_lowercase().contains(code)
        }
        _ => true,
    }));
    let s = screen(&app);
    assert!(s.contains(&format!("filter: {code}")), "{s}");
    assert!(s.contains(&format!("matches “{code}”")), "{s}");
    assert_snapshot!(s);
    keys(&mut app, "/");
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.panes.health.rows.len(), all_rows);
    // A kept filter is cleared by Esc too, without typing `/` again.
    keys(&mut app, "/");
    keys(&mut app, code);
    key(&mut app, KeyCode::Enter);
    assert!(app.panes.health.rows.len() < all_rows);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.panes.health.rows.len(), all_rows);
    assert!(!screen(&app).contains("match “"));
}

fn mouse(
    app: &mut super::app::App,
    kind: ratatui::crossterm::event::MouseEventKind,
    x: u16,
    y: u16,
) {
    use ratatui::crossterm::event::{KeyModifiers, MouseEvent};
    super::update::update(
        app,
        super::app::Msg::Mouse(MouseEvent {
            kind,
            column: x,
            row: y,
            modifiers: KeyModifiers::NONE,
        }),
    );
}

#[test]
fn a_click_focuses_and_selects_a_second_opens_and_the_wheel_scrolls() {
    use ratatui::crossterm::event::{MouseButton, MouseEventKind};
    let mut app = app_at(&demo_bank(), 100, 30);
    let left = MouseEventKind::Down(MouseButton::Left);
    // The tab row focuses a pane.
    let health_x = screen(&app).lines().next().unwrap().find("Health").unwrap() as u16 - 1;
    mouse(&mut app, left, health_x, 0);
    assert_eq!(app.focus, Pane::Health);
    // A click in the tree focuses it and selects the row under the pointer.
    let tree = app.areas.of(Pane::Bank).unwrap();
    mouse(&mut app, left, tree.x + 3, tree.y + 3);
    assert_eq!(app.focus, Pane::Bank);
    assert_eq!(app.panes.bank.cursor.selected, 2);
    let label = app.panes.bank.rows[2].label().into_owned();
    assert_eq!(label, "Brightwell Pharma");
    // Clicking the selected row opens it.
    mouse(&mut app, left, tree.x + 3, tree.y + 3);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Brightwell Pharma.md")
    );
    // The wheel scrolls the pane under the pointer.
    let article = app.areas.of(Pane::Article).unwrap();
    mouse(
        &mut app,
        MouseEventKind::ScrollDown,
        article.x + 5,
        article.y + 5,
    );
    assert_eq!(app.panes.article.scroll, 3);
    mouse(
        &mut app,
        MouseEventKind::ScrollUp,
        article.x + 5,
        article.y + 5,
    );
    assert_eq!(app.panes.article.scroll, 0);
}

#[test]
fn moving_in_the_tree_previews_and_s_sorts_by_name_date_findings() {
    let mut app = app_at(&demo_bank(), 160, 40);
    assert_eq!(app.focus, Pane::Bank);
    keys(&mut app, "jj");
    assert_eq!(app.panes.bank.rows[2].label(), "Brightwell Pharma");
    // The article follows the tree; the focus stays in the tree.
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Brightwell Pharma.md")
    );
    assert_eq!(app.focus, Pane::Bank);
    keys(&mut app, "j");
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Copperleaf Software.md")
    );
    // Previews are not history.
    assert!(app.panes.article.back.is_empty());
    // s: by date (newest first), then by findings (flagged first).
    keys(&mut app, "s");
    assert!(screen(&app).contains("Bank — by date"));
    let files = |app: &super::app::App| -> Vec<(String, bool)> {
        app.panes
            .bank
            .rows
            .iter()
            .filter(|r| r.depth == 1 && matches!(r.kind, super::panes::bank::RowKind::File { .. }))
            .map(|r| (r.label().into_owned(), r.flagged))
            .collect()
    };
    keys(&mut app, "s");
    assert!(screen(&app).contains("Bank — by findings"));
    let terms: Vec<(String, bool)> = files(&app);
    let first_unflagged = terms.iter().position(|(_, f)| !f).unwrap();
    assert!(terms[..first_unflagged].iter().all(|(_, f)| *f));
    keys(&mut app, "s");
    assert!(screen(&app).contains("┌ Bank ─"));
}

#[test]
fn a_bank_of_only_examples_lists_them_dimmed_and_says_how_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in [
        "00_INBOX",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
        "05_INDICES",
        "06_TEMPLATES",
    ] {
        std::fs::create_dir(root.join(folder)).unwrap();
    }
    std::fs::write(
        root.join("01_CLIENTS/_EXAMPLE_Client_Profile.md"),
        "---\nclient: Example\n---\n# Example\n",
    )
    .unwrap();
    std::fs::write(root.join("02_TERMINOLOGY/_draft.md"), "# draft\n").unwrap();
    let mut app = app_at(root, 100, 30);
    let s = screen(&app);
    assert!(
        s.contains("(unused example) _EXAMPLE_Cl…"),
        "cut, and says so: {s}"
    );
    assert!(s.contains("(skipped: _ name) _draft"), "{s}");
    assert!(
        s.contains("▾ 01_CLIENTS 0"),
        "examples are not counted: {s}"
    );
    assert!(s.contains("only 1 _EXAMPLE_ file"), "{s}");
    assert_snapshot!(s);
    // Opening an example still shows it.
    keys(&mut app, "jj");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/_EXAMPLE_Client_Profile.md")
    );
}

#[test]
fn a_start_up_notice_is_not_hidden_by_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    super::tests::copy_dir(&demo_bank(), dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    app.status.notice("the demo is a copy in /tmp/x");
    let a = dir.path().join("01_CLIENTS/Harbour Lines.md");
    let b = dir.path().join("01_CLIENTS/Brightwell Pharma.md");
    super::update::update(&mut app, super::app::Msg::FilesChanged(vec![a, b]));
    let (msg, _) = app.status.message.clone().unwrap();
    assert!(msg.contains("the demo is a copy"), "{msg}");
    // Anything the user does replaces it as usual.
    keys(&mut app, "jjy");
    assert!(!screen(&app).contains("the demo is a copy"));
}

#[test]
fn a_finding_in_the_frontmatter_opens_the_article_at_its_top() {
    let mut app = app_at(&demo_bank(), 80, 24);
    app.open_article("02_TERMINOLOGY/sign in → aanmelden.md");
    let h = 20;
    app.panes.article.scroll_to_source_line(3, h);
    assert_eq!(app.panes.article.scroll, 0);
    assert!(screen(&app).contains("in this file"));
}

#[cfg(unix)]
#[test]
fn a_file_that_is_not_read_says_why_in_full_with_its_findings() {
    let dir = tempfile::tempdir().unwrap();
    // A real file outside the bank, made by the test, so the link resolves.
    let elsewhere = tempfile::tempdir().unwrap();
    let outside = elsewhere.path().join("notes.md");
    std::fs::write(&outside, "# Kept out\n").unwrap();
    let root = dir.path();
    for folder in ["00_INBOX", "01_CLIENTS", "02_TERMINOLOGY", "03_DOMAINS"] {
        std::fs::create_dir(root.join(folder)).unwrap();
    }
    std::fs::write(root.join("02_TERMINOLOGY/bytes.md"), b"\xff\xfe\x00binary").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("03_DOMAINS/outside.md")).unwrap();
    let mut app = app_at(root, 80, 24);
    for (rel, tail) in [
        (
            "03_DOMAINS/outside.md",
            "(setting `follow_links_out` allows it)",
        ),
        ("02_TERMINOLOGY/bytes.md", "line 1)"),
    ] {
        app.open_article(rel);
        let s = screen(&app);
        let flat: String = s
            .lines()
            .map(|l| l.trim_matches(|c: char| c == '│' || c == ' ' || c == '"'))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(flat.contains(tail), "the reason is wrapped, not cut: {s}");
        assert!(s.contains("in this file:"), "its findings are listed: {s}");
        // The title is the file's name, then its path, not the path twice.
        let name = rel.rsplit('/').next().unwrap();
        assert_eq!(app.panes.article.header, format!("{name} — {rel}"));
    }
}
