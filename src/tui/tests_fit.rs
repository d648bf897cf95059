//! What has to fit on a small screen and be said plainly: the Context
//! candidate explained in full at 80×24, the demo's notice at 80 columns,
//! a client no article names, and what the numbers in an everos tree count.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

use super::app::{App, Pane, Popup};
use super::panes::bank::RowKind;
use super::panes::context::Field;
use super::tests::{app_at, bank_of, key, screen};

fn demo_bank() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-bank")
}

fn set(app: &mut App, field: Field, value: &str) {
    let theme = app.theme.clone();
    let bank = app.memory.clone();
    app.panes
        .context
        .set_field(field, value, bank_of(bank.as_ref()), &theme);
}

fn context_focused(app: &mut App) {
    while app.focus != Pane::Context {
        key(app, KeyCode::Tab);
    }
}

#[test]
fn a_candidate_too_long_for_the_pane_at_80x24_is_shown_in_full_on_request() {
    let mut app = app_at(&demo_bank(), 80, 24);
    set(&mut app, Field::Client, "Brightwell Pharma");
    set(&mut app, Field::SourceLang, "en-US");
    set(&mut app, Field::Budget, "1500");
    context_focused(&mut app);
    for _ in 0..7 {
        key(&mut app, KeyCode::Down);
    }
    // The box cannot hold it here: the hints say where it is.
    let s = screen(&app);
    assert!(s.contains("x in full"), "{s}");
    key(&mut app, KeyCode::Char('x'));
    assert!(matches!(app.popup, Some(Popup::Help(_))));
    let s = screen(&app);
    for said in [
        "score 4 = client 3 + domain 0 + languages 1",
        "clients: [[Brightwell Pharma]] → +3",
        "dropped: over budget",
        "the spec's budget rule (§8): terminology is dropped",
        "before any style guide, domain or client profile,",
    ] {
        assert!(s.contains(said), "{said} missing:\n{s}");
    }
    assert_snapshot!(s);
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

#[test]
fn a_client_no_article_names_is_answered_with_the_closest_one() {
    let mut app = app_at(&demo_bank(), 80, 24);
    set(&mut app, Field::Client, "Brightwell");
    let summary = &app.panes.context.summary;
    assert!(
        summary
            .starts_with("no client 'Brightwell' in this bank; did you mean 'Brightwell Pharma'?"),
        "{summary}"
    );
    context_focused(&mut app);
    let s = screen(&app);
    assert!(
        s.contains("did you mean") && s.contains("'Brightwell Pharma'?"),
        "{s}"
    );
    // A client the bank has says nothing of the kind.
    set(&mut app, Field::Client, "Brightwell Pharma");
    assert!(!app.panes.context.summary.contains("did you mean"));
}

#[test]
fn the_demo_notice_fits_80_columns_whole() {
    let mut app = app_at(&demo_bank(), 80, 24);
    app.bank_label = "demo (reset)".into();
    app.status.bank = app.bank_label.clone();
    let notice = "copy in /tmp/membank-demo-root, keep: membank init DIR --demo";
    app.status.notice(notice);
    let s = screen(&app);
    let bar = s.lines().last().unwrap();
    assert!(bar.contains(notice), "{bar}");
    assert!(bar.contains("demo (reset)"), "{bar}");
    // Once it is gone the count and the help hint are back.
    app.status.message = None;
    let bar = screen(&app).lines().last().unwrap().to_owned();
    assert!(
        bar.contains("31 articles") && bar.contains("? help"),
        "{bar}"
    );
}

#[test]
fn every_number_in_an_everos_tree_counts_entries() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-everos");
    let memory = membank_core::memory::open(&root, None).unwrap();
    let mut app = App::new(
        memory,
        super::theme::Theme::default_theme(),
        super::keys::KeyMap::default(),
        ratatui::layout::Rect::new(0, 0, 100, 40),
        crate::tui::TESTS_CLOCK,
    );
    // Open every folder, then check each folder's number is the sum of the
    // entries of the files right below it and of its subfolders.
    for _ in 0..500 {
        let closed = app.panes.bank.rows.iter().position(|r| {
            matches!(
                r.kind,
                RowKind::Folder {
                    expanded: false,
                    ..
                }
            )
        });
        let Some(i) = closed else { break };
        app.panes.bank.cursor.selected = i;
        key(&mut app, KeyCode::Right);
    }
    let rows = &app.panes.bank.rows;
    assert!(
        !rows.iter().any(|r| matches!(
            r.kind,
            RowKind::Folder {
                expanded: false,
                ..
            }
        )),
        "every folder is open"
    );
    let mut checked = 0;
    for (i, row) in rows.iter().enumerate() {
        if !matches!(row.kind, RowKind::Folder { .. }) {
            continue;
        }
        let below: u32 = rows[i + 1..]
            .iter()
            .take_while(|r| r.depth > row.depth)
            .filter(|r| r.depth == row.depth + 1)
            .filter_map(|r| r.count)
            .sum();
        // No number is shown for a folder without entries.
        let expected = (below > 0).then_some(below);
        assert_eq!(row.count, expected, "folder {}", row.label());
        checked += usize::from(below > 0);
    }
    assert!(checked > 3, "{checked} folders hold entries");
    // The top folders together count every entry of every file.
    let in_files: u32 = rows
        .iter()
        .filter(|r| matches!(r.kind, RowKind::File { .. }))
        .filter_map(|r| r.count)
        .sum();
    let in_top: u32 = rows
        .iter()
        .filter(|r| r.depth == 0)
        .filter_map(|r| r.count)
        .sum();
    assert!(in_files > 10, "{in_files}");
    assert_eq!(in_top, in_files);
}

/// A root whose files hold no entry at all (empty days, a profile, only
/// skills) shows no number anywhere: the numbers count entries, never
/// files, whether or not some file has any.
#[test]
fn an_everos_tree_without_entries_has_no_numbers() {
    let write = |root: &Path, rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    let day = |d: &str| {
        format!("---\nid: e\ntype: episode_daily\nuser_id: u1\ndate: '{d}'\nentry_count: 0\n---\n")
    };
    let empty_days = tempfile::tempdir().unwrap();
    let users = "default_app/default_project/users/u1";
    write(
        empty_days.path(),
        &format!("{users}/episodes/episode-2026-06-01.md"),
        &day("2026-06-01"),
    );
    write(
        empty_days.path(),
        &format!("{users}/episodes/episode-2026-06-02.md"),
        &day("2026-06-02"),
    );
    write(
        empty_days.path(),
        &format!("{users}/user.md"),
        "---\nid: p\ntype: user_profile\nuser_id: u1\n---\nprofile\n",
    );
    let skills_only = tempfile::tempdir().unwrap();
    for skill in ["a", "b"] {
        write(
            skills_only.path(),
            &format!("default_app/default_project/agents/g/skills/skill_{skill}/SKILL.md"),
            &format!(
                "---\nid: s\nagent_id: g\nname: {skill}\ndescription: d\nconfidence: 0.5\nmaturity_score: 0.5\n---\nbody\n"
            ),
        );
    }
    for root in [empty_days.path(), skills_only.path()] {
        let memory = membank_core::memory::open(root, None).unwrap();
        let app = App::new(
            memory,
            super::theme::Theme::default_theme(),
            super::keys::KeyMap::default(),
            ratatui::layout::Rect::new(0, 0, 100, 40),
            crate::tui::TESTS_CLOCK,
        );
        let rows = &app.panes.bank.rows;
        assert!(rows.len() > 4, "{}", rows.len());
        let numbered: Vec<(String, Option<u32>)> = rows
            .iter()
            .filter(|r| r.count.is_some())
            .map(|r| (r.label().to_string(), r.count))
            .collect();
        assert_eq!(numbered, [], "{}", screen(&app));
    }
}

/// A pane too short for the whole query form shows the field being edited
/// rather than letting rows vanish: in 40×10, editing each field in turn
/// always shows its label and what is typed.
#[test]
fn a_form_too_tall_for_the_pane_keeps_the_edited_field_in_view() {
    let mut app = app_at(&demo_bank(), 40, 10);
    context_focused(&mut app);
    key(&mut app, KeyCode::Char('g'));
    for label in ["client", "domain", "source lang", "target lang", "budget"] {
        key(&mut app, KeyCode::Enter);
        key(&mut app, KeyCode::Char('7'));
        let s = screen(&app);
        let shown = s
            .lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("{label} not shown:\n{s}"));
        assert!(shown.contains('7'), "{label}: {shown}\n{s}");
        key(&mut app, KeyCode::Backspace);
        key(&mut app, KeyCode::Esc);
        key(&mut app, KeyCode::Down);
    }
}
