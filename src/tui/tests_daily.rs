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
        s.contains("terminology is dropped before any style guide"),
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
    assert!(s.contains("lowest score first)"), "{s}");
}
