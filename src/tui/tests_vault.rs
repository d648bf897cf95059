//! Rendering tests on a real vault's articles: nested folders, notes with
//! several findings, links to attachments and near misses of names.

use std::fs;
use std::path::Path;

use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

use super::app::{App, Pane};
use super::panes::health::HealthRow;
use super::tests::{app_at, key, keys, screen};
use membank_core::layout::Folder;

const NOTE: &str = "03_DOMAINS/ObsidianHelp/Plugins/Core/Daily notes and templates.md";

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A bank with an Obsidian-like vault nested in `03_DOMAINS`: one note
/// with two missing keys, a near miss of an existing name and two links to
/// attachments nobody added.
fn vault() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    for folder in Folder::ALL {
        fs::create_dir_all(r.join(folder.dir_name())).unwrap();
    }
    write(
        r,
        "03_DOMAINS/Travel and Tourism.md",
        "---\ndomain: Travel\nlanguages: [en]\nlast_updated: 2026-04-01\n---\n\
         # Travel and Tourism\n[[Daily notes and templates]]\n",
    );
    write(
        r,
        NOTE,
        "---\nlast_updated: 2026-04-01\n---\n# Daily notes and templates\n\
         See [[Travel & Tourism]] for the trip.\n\n![[icon.svg]]\n\n\
         The manual is [[report.pdf]].\n",
    );
    d
}

fn open_note(app: &mut App) {
    keys(app, "/");
    keys(app, "Daily notes and templates");
    key(app, KeyCode::Enter);
    assert_eq!(app.panes.article.rel.as_deref(), Some(NOTE));
    app.focus = Pane::Article;
}

/// An attachment that is there is listed with its path, not as missing.
#[test]
fn a_link_to_an_attachment_that_is_there_is_listed_with_its_path() {
    let d = vault();
    fs::write(d.path().join("03_DOMAINS/ObsidianHelp/icon.svg"), "<svg/>").unwrap();
    let mut app = app_at(d.path(), 100, 30);
    open_note(&mut app);
    let s = screen(&app);
    assert!(
        s.contains("[[icon.svg]]  → 03_DOMAINS/ObsidianHelp/icon.svg (attachment)"),
        "{s}"
    );
    assert!(s.contains("[[report.pdf]]  (missing attachment)"), "{s}");
}

/// The findings at the top of an article are one line until `!` asks for
/// them; listed, a dead link says what it most likely is.
#[test]
fn an_articles_findings_are_one_line_until_asked_for() {
    let d = vault();
    let mut app = app_at(d.path(), 80, 24);
    open_note(&mut app);
    let s = screen(&app);
    assert!(s.contains("5 findings in this file · ! to show"), "{s}");
    assert!(!s.contains("attachment: no file named"), "{s}");
    // The link list says what a dead link to an attachment is.
    assert!(s.contains("[[icon.svg]]  (missing attachment)"), "{s}");
    assert!(s.contains("[[Travel & Tourism]]  (no such article)"), "{s}");
    // The article itself starts on the next row.
    assert!(s.contains("See "), "{s}");
    keys(&mut app, "!");
    let s = screen(&app);
    assert!(s.contains("5 findings in this file: (! hides them)"), "{s}");
    assert!(s.contains("Did you mean"), "{s}");
    assert!(s.contains("![[icon.svg]]: missing"), "{s}");
    assert_snapshot!(s);
    keys(&mut app, "!");
    assert!(screen(&app).contains("! to show"));
}

/// A file's several findings of one code sit under one row naming it.
#[test]
fn health_lists_a_files_findings_of_one_code_under_the_file() {
    let d = vault();
    let mut app = app_at(d.path(), 160, 45);
    while app.focus != Pane::Health {
        key(&mut app, KeyCode::Tab);
    }
    let rows = &app.panes.health.rows;
    let files: Vec<usize> = rows
        .iter()
        .filter_map(|r| match *r {
            HealthRow::File { first, .. } => Some(first as usize),
            _ => None,
        })
        .collect();
    let report = &app.panes.health.report;
    assert!(
        files
            .iter()
            .any(|&i| &*report.findings[i].path == NOTE && report.findings[i].code() == "dead-link"),
        "{files:?}"
    );
    let s = screen(&app);
    assert_snapshot!(s);
}

/// The status line says what the newest search found: a "no hits" from
/// an earlier query is replaced once a query finds something.
#[test]
fn the_status_says_the_newest_search_outcome() {
    use ratatui::crossterm::event::{KeyEvent, KeyModifiers};
    let mut app = app_at(&super::tests::fixture(), 80, 24);
    let ctrl_f = KeyEvent::new(KeyCode::Char('f'), KeyModifiers::CONTROL);
    super::update::update(&mut app, super::app::Msg::Key(ctrl_f));
    keys(&mut app, "xyzzy");
    key(&mut app, KeyCode::Enter);
    let said = |app: &App| app.status.message.clone().map(|(m, _)| m);
    assert_eq!(said(&app).as_deref(), Some("no hits"));
    // `i` in the popup edits the query again.
    key(&mut app, KeyCode::Char('i'));
    for _ in 0..5 {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "acme");
    key(&mut app, KeyCode::Enter);
    assert!(!app.panes.search.hits.is_empty());
    let now = said(&app).unwrap_or_default();
    assert!(now.contains("hit") && now.contains("acme"), "{now}");
    assert!(screen(&app).contains(&now), "{}", screen(&app));
}

/// An article deleted while shown says "deleted", not the system's error.
#[test]
fn a_file_deleted_while_shown_says_deleted() {
    let d = vault();
    let mut app = app_at(d.path(), 80, 24);
    open_note(&mut app);
    let gone = d.path().join(NOTE);
    fs::remove_file(&gone).unwrap();
    super::update::update(&mut app, super::app::Msg::FilesChanged(vec![gone]));
    let s = screen(&app);
    assert!(s.contains("deleted: the file is no longer on disk"), "{s}");
    assert!(!s.contains("os error"), "{s}");
}

/// Back returns to the link that was followed, selected, so `n` goes on
/// from there rather than from the first link again.
#[test]
fn back_restores_the_selected_link() {
    let mut app = app_at(&super::tests::fixture(), 80, 24);
    app.open_article("01_CLIENTS/Acme Corporation.md");
    app.focus = Pane::Article;
    let live = app
        .panes
        .article
        .doc
        .links
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, l)| l.live)
        .map(|(i, _)| i)
        .expect("the fixture has a second live link");
    for _ in 0..=live {
        keys(&mut app, "n");
    }
    key(&mut app, KeyCode::Enter);
    assert_ne!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Acme Corporation.md")
    );
    key(&mut app, KeyCode::Backspace);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Acme Corporation.md")
    );
    assert_eq!(app.panes.article.selected_link, Some(live));
}

/// A JSONL file reads one record a line; the selected record is shown in
/// full, pretty-printed, under its line.
#[test]
fn a_jsonl_file_shows_one_record_a_line_and_the_selected_one_in_full() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu");
    let mut app = project_app(&root);
    app.open_article("memory/impressions.jsonl");
    let records = app.panes.article.doc.links.len();
    assert!(records >= 3, "{records}");
    // One row each, before anything is selected.
    assert_eq!(app.panes.article.doc.lines.len(), records);
    keys(&mut app, "nn");
    let s = screen(&app);
    assert!(s.contains("  {"), "{s}");
    assert!(
        s.contains("\"id\": \"open-loop-settings-migration\","),
        "{s}"
    );
    assert_snapshot!(s);
    // Enter opens the file the record names, as in the Recall pane.
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("memory/open-loops/settings-migration.md")
    );
}

/// The interface on the Deja Vu project at `root`, 80×24.
fn project_app(root: &Path) -> App {
    let memory = membank_core::memory::open(root, None).unwrap();
    let mut app = App::new(
        memory,
        super::theme::Theme::default_theme(),
        super::keys::KeyMap::default(),
        ratatui::layout::Rect::new(0, 0, 80, 24),
        crate::tui::TESTS_CLOCK,
    );
    app.bank_label = "demo-dejavu".into();
    app.status.bank = app.bank_label.clone();
    app
}

/// A record with no record_path says so on Enter rather than doing nothing.
#[test]
fn enter_on_a_record_without_a_record_path_says_so() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    let from = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu");
    super::tests::copy_dir(&from, root);
    write(
        root,
        "memory/impressions.jsonl",
        "{\"schema_version\":1,\"id\":\"loose\",\"title\":\"Loose\"}\n",
    );
    let mut app = project_app(root);
    app.open_article("memory/impressions.jsonl");
    keys(&mut app, "n");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("memory/impressions.jsonl")
    );
    let s = screen(&app);
    assert!(s.contains("record 1 has no record_path"), "{s}");
}

/// Sorted by date, the tree shows the dates it is sorted by.
#[test]
fn sorting_the_tree_by_date_shows_the_dates() {
    let d = vault();
    let mut app = app_at(d.path(), 80, 24);
    assert_eq!(app.focus, Pane::Bank);
    keys(&mut app, "s");
    let s = screen(&app);
    assert!(s.contains("by date"), "{s}");
    assert!(s.contains("2026-04-01  "), "{s}");
    keys(&mut app, "s");
    assert!(!screen(&app).contains("2026-04-01"));
}
