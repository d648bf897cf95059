//! Jumps land on the line they name (search hits, findings, in-article
//! search), the search popup comes back with its results, a finding's
//! banner goes when the finding does, and `z` zooms the focused pane.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{Msg, Pane, Popup};
use super::tests::{app_at, copy_dir, fixture, key, keys, screen};
use super::update::update;

fn demo_bank() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-bank")
}

fn ctrl(app: &mut super::app::App, c: char) {
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    );
}

/// The text of the article rows drawn highlighted as the jump's line.
fn marked_text(app: &super::app::App) -> Vec<String> {
    let article = &app.panes.article;
    article
        .marked_rows()
        .iter()
        .map(|&i| article.doc.lines[i].to_string())
        .collect()
}

#[test]
fn a_search_hit_on_the_second_line_of_a_list_item_lands_on_that_line() {
    let mut app = app_at(&demo_bank(), 80, 24);
    ctrl(&mut app, 'f');
    keys(&mut app, "bijsluiter");
    key(&mut app, KeyCode::Enter);
    let hits = &app.panes.search.hits;
    let at = hits
        .iter()
        .position(|h| h.path == "03_DOMAINS/Pharmaceuticals.md")
        .expect("a hit in Pharmaceuticals.md");
    // The hit is on the item's second line, under the heading on line 15.
    assert_eq!(hits[at].line, 17);
    for _ in 0..at {
        key(&mut app, KeyCode::Down);
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    let marked = marked_text(&app);
    assert!(!marked.is_empty(), "no row marked");
    assert!(
        marked.iter().any(|r| r.contains("bijsluiter")),
        "{marked:?}"
    );
    assert!(
        !marked
            .iter()
            .any(|r| r.contains("Regulatory") || r.contains("SmPC")),
        "{marked:?}"
    );
    // And the marked row is on screen.
    let shown = screen(&app);
    assert!(shown.contains("([[bijsluiter]]"), "{shown}");
}

/// A bank with one long article whose rows are numbered list items.
fn long_article() -> (tempfile::TempDir, super::app::App) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut text = String::from("---\ndomain: Long\nlast_updated: 2026-01-01\n---\n# Long\n\n");
    for i in 1..=80 {
        text.push_str(&format!("- item {i:03}\n"));
    }
    std::fs::write(dir.path().join("03_DOMAINS/Long.md"), text).unwrap();
    let mut app = app_at(dir.path(), 80, 24);
    app.open_article("03_DOMAINS/Long.md");
    (dir, app)
}

#[test]
fn the_current_match_of_an_article_search_is_never_under_the_prompt() {
    let (_dir, mut app) = long_article();
    let h = app.height_of(Pane::Article);
    // The item on the pane's last row: the prompt takes that row.
    let last = app.panes.article.doc.lines[h - 1].to_string();
    let item = last.trim_start_matches("• ").to_owned();
    assert!(item.starts_with("item "), "{last}");
    keys(&mut app, "/");
    keys(&mut app, &item);
    let shown = screen(&app);
    assert!(shown.contains(&format!("• {item}")), "{shown}");
    key(&mut app, KeyCode::Enter);
    // `n` to a match further down scrolls it into view above the prompt.
    let (_dir2, mut app2) = long_article();
    keys(&mut app2, "/item 0");
    key(&mut app2, KeyCode::Enter);
    for _ in 0..(h - 2) {
        keys(&mut app2, "n");
    }
    let current = app2.panes.article.search.as_ref().unwrap().current_row();
    let row = current.expect("a current match");
    let wanted = app2.panes.article.doc.lines[row].to_string();
    let shown = screen(&app2);
    assert!(shown.contains(&wanted), "{wanted} not shown:\n{shown}");
}

#[test]
fn ctrl_f_again_shows_the_last_results_to_move_through() {
    let mut app = app_at(&fixture(), 80, 24);
    ctrl(&mut app, 'f');
    keys(&mut app, "Acme");
    key(&mut app, KeyCode::Enter);
    assert!(app.panes.search.hits.len() >= 2, "two hits wanted");
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
    ctrl(&mut app, 'f');
    assert!(matches!(app.popup, Some(Popup::Search)));
    assert!(!app.panes.search.typing, "the list has the keys");
    keys(&mut app, "j");
    assert_eq!(app.panes.search.cursor.selected, 1);
    assert_eq!(app.panes.search.query, "Acme");
    assert_snapshot!(screen(&app));
    // `/` (or `i`) edits the query; Ctrl-U clears it.
    keys(&mut app, "/");
    assert!(app.panes.search.typing);
    ctrl(&mut app, 'u');
    assert_eq!(app.panes.search.query, "");
    keys(&mut app, "x");
    assert_eq!(app.panes.search.query, "x");
}

#[test]
fn a_findings_banner_goes_when_the_finding_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    app.focus_pane(Pane::Health);
    for _ in 0..100 {
        let code = app.panes.health.selected_finding().map(|f| f.code());
        if code.is_some_and(|c| c == "unparsable-frontmatter") {
            break;
        }
        keys(&mut app, "j");
    }
    key(&mut app, KeyCode::Enter);
    let rel = "02_TERMINOLOGY/warranty → garantie.md";
    assert_eq!(app.panes.article.rel.as_deref(), Some(rel));
    let banner = app.panes.article.banner.clone().expect("a banner");
    assert!(banner.starts_with("unparsable-frontmatter"), "{banner}");
    // Another file changing leaves the finding, and the banner, in place.
    let other = dir.path().join("03_DOMAINS/Marketing.md");
    let marketing = std::fs::read_to_string(&other).unwrap();
    std::fs::write(&other, format!("{marketing}\nMore.\n")).unwrap();
    update(&mut app, Msg::FilesChanged(vec![other]));
    assert_eq!(app.panes.article.banner.as_deref(), Some(banner.as_str()));
    // Fixed: the watcher's re-check drops the finding and its banner.
    let path = dir.path().join(rel);
    std::fs::write(
        &path,
        "---\nterm: warranty\nlast_updated: 2026-01-01\n---\n# warranty → garantie\n",
    )
    .unwrap();
    update(&mut app, Msg::FilesChanged(vec![path]));
    assert_eq!(app.panes.article.banner, None);
    assert!(marked_text(&app).is_empty());
    assert!(!screen(&app).contains("unparsable-frontmatter at"));
}

#[test]
fn z_zooms_the_focused_pane_to_the_whole_screen_and_back() {
    let mut app = app_at(&fixture(), 80, 24);
    app.open_article("01_CLIENTS/Acme Corporation.md");
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Context);
    keys(&mut app, "z");
    assert!(app.areas.bank.is_none());
    let zoomed = screen(&app);
    assert_snapshot!("zoomed_context_80x24", zoomed);
    keys(&mut app, "z");
    assert!(app.areas.bank.is_some());
    assert!(!screen(&app).contains("[zoomed"));
}

#[test]
fn z_puts_the_panes_back_from_the_agents_pane_outside_its_input() {
    let mut app = app_at(&fixture(), 80, 24);
    app.focus_pane(Pane::Bank);
    keys(&mut app, "z");
    while app.focus != Pane::Agents {
        key(&mut app, KeyCode::Tab);
    }
    assert!(app.zoomed);
    assert!(screen(&app).contains("[zoomed: z]"));
    // In the input, `z` is a letter of the question.
    keys(&mut app, "iz");
    assert_eq!(app.panes.agents.query.input.lines(), ["z"]);
    assert!(app.zoomed);
    // Out of it, `z` does what the tab row says.
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "z");
    assert!(!app.zoomed, "{}", screen(&app));
    assert_eq!(app.panes.agents.query.input.lines(), ["z"]);
    assert!(app.areas.bank.is_some());

    // Rebound, the key named is the one bound.
    let mut overrides = std::collections::BTreeMap::new();
    overrides.insert("zoom".to_owned(), vec!["ctrl-w".to_owned()]);
    app.keymap = super::keys::KeyMap::default()
        .with_overrides(&overrides)
        .unwrap();
    ctrl(&mut app, 'w');
    assert!(app.zoomed);
    let shown = screen(&app);
    assert!(shown.contains("[zoomed: Ctrl-W]"), "{shown}");
    assert!(
        shown.contains("zoomed: Ctrl-W puts the panes back"),
        "{shown}"
    );
}

#[test]
fn z_zooms_the_article_at_160x45() {
    let mut app = app_at(&fixture(), 160, 45);
    app.open_article("01_CLIENTS/Acme Corporation.md");
    keys(&mut app, "z");
    assert!(app.areas.bank.is_none() && app.areas.side.is_none());
    assert_snapshot!("zoomed_article_160x45", screen(&app));
}

#[test]
fn the_context_pane_fills_its_height_once_the_bank_is_read() {
    use super::app::App;
    use super::keys::KeyMap;
    use super::theme::Theme;
    use ratatui::layout::Rect;
    // As the program starts: the bank is read after the screen is laid out.
    let root = demo_bank();
    let spec = membank_core::memory::LayoutKind::Bank.spec();
    let mut app = App::new(
        Box::new(super::unread::Unread::new(spec, root.clone())),
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, 160, 45),
        crate::tui::TESTS_CLOCK,
    );
    app.bank_label = "demo-bank".into();
    app.status.bank = app.bank_label.clone();
    let files_read = std::sync::atomic::AtomicUsize::new(0);
    let open = spec.open_listing.expect("a bank lists its files first");
    let loaded = open(&root, &files_read, &mut |_| {});
    update(
        &mut app,
        Msg::Loaded(Box::new(loaded.map_err(|e| e.to_string()).map(Into::into))),
    );
    assert_eq!(app.areas.side.map(|(p, _)| p), Some(Pane::Context));
    let shown = screen(&app);
    // The pane's last row above its border holds a candidate, not nothing.
    let rows: Vec<&str> = shown.lines().collect();
    let last_inside = rows[rows.len() - 3];
    let context_part: String = last_inside.chars().skip(100).collect();
    assert!(
        !context_part.trim_matches(['│', ' ', '"']).is_empty(),
        "an empty row at the bottom of Context:\n{shown}"
    );
    assert_snapshot!("context_unfocused_160x45", shown);
}

#[test]
fn the_query_fields_fold_to_one_line_while_a_candidate_is_selected() {
    let mut app = app_at(&demo_bank(), 80, 24);
    app.focus_pane(Pane::Context);
    // On the form: every field has its row.
    assert!(screen(&app).contains("source lang"));
    // Down past the six fields to the first candidate.
    for _ in 0..6 {
        key(&mut app, KeyCode::Down);
    }
    let folded = screen(&app);
    assert!(!folded.contains("source lang"), "{folded}");
    assert!(folded.contains("query (any) · budget 4000"), "{folded}");
    let candidates = folded.lines().filter(|l| l.contains(" ✗ ")).count();
    assert!(candidates >= 3, "{candidates} candidates shown:\n{folded}");
    assert_snapshot!("context_folded_80x24", folded);
    // `i` opens the form at the client field, typing.
    keys(&mut app, "i");
    assert!(app.panes.context.editing);
    assert_eq!(app.panes.context.row, 0);
    assert!(screen(&app).contains("source lang"));
}

#[test]
fn the_note_on_where_a_link_goes_is_dropped_once_the_link_is_followed() {
    let mut app = app_at(&demo_bank(), 80, 24);
    app.open_article("02_TERMINOLOGY/boarding pass → carte d'embarquement.md");
    key(&mut app, KeyCode::Char('n'));
    let note = "→ 03_DOMAINS/Travel and Tourism.md";
    assert!(screen(&app).contains(note), "{}", screen(&app));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("03_DOMAINS/Travel and Tourism.md")
    );
    let shown = screen(&app);
    assert!(!shown.contains(note), "{shown}");
}

/// A remark pasted after a wrapper's closing fence is a line further down
/// in the file than in the article's text: a jump to a finding there
/// marks that remark, not the line above it.
#[test]
fn a_jump_past_a_wrappers_closing_fence_marks_the_line_named() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    std::fs::write(
        dir.path().join("01_CLIENTS/Wrapped.md"),
        "```markdown\n---\nclient: Wrapped\nlast_updated: 2026-01-01\n---\n# Wrapped\n\nBody text.\n```\nThanks! See also [[Nowhere at all]].\n\nBest regards.\n",
    )
    .unwrap();
    let mut app = app_at(dir.path(), 80, 24);
    app.open_article("01_CLIENTS/Wrapped.md");
    // Line 10 of the file: the line after the closing fence.
    app.panes.article.scroll_to_source_line(10, 20);
    let marked = marked_text(&app);
    assert!(
        marked.iter().any(|r| r.contains("Nowhere at all")),
        "{marked:?}"
    );
    assert!(!marked.iter().any(|r| r.contains("regards")), "{marked:?}");
}
