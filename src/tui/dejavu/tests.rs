//! The Deja Vu interface drawn into a `TestBackend` after key presses.

use std::path::Path;

use insta::assert_snapshot;
use membank_core::dejavu::recall::Level;
use membank_core::dejavu::{FEEDBACK_PATH, Project};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{DejavuApp, Tab, draw};
use crate::tui::theme::Theme;

fn demo_root() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu")
}

fn app() -> DejavuApp {
    DejavuApp::new(Project::load(&demo_root()).unwrap(), "demo-dejavu".into())
}

fn key(app: &mut DejavuApp, code: KeyCode) {
    app.on_key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn ctrl(app: &mut DejavuApp, c: char) {
    app.on_key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL));
}

fn typed(app: &mut DejavuApp, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

fn screen(app: &DejavuApp) -> String {
    let mut term = Terminal::new(TestBackend::new(100, 24)).unwrap();
    let theme = Theme::default_theme();
    term.draw(|f| draw(f, app, &theme)).unwrap();
    term.backend().to_string()
}

#[test]
fn recall_pane_shows_a_strong_match_with_its_arithmetic() {
    let mut a = app();
    typed(&mut a, "settings sync");
    assert_snapshot!(screen(&a));
}

#[test]
fn recall_pane_updates_as_the_cue_is_typed() {
    let mut a = app();
    let cue = "Continue the settings refactor.";
    typed(&mut a, cue);
    assert_eq!(a.recall.level(), Level::None);
    assert_snapshot!(screen(&a));
    for _ in 0..cue.len() {
        key(&mut a, KeyCode::Backspace);
    }
    typed(&mut a, "offline vault");
    assert_eq!(a.recall.level(), Level::Strong);
    assert!(screen(&a).contains("loads memory/context/project-context.md"));
}

#[test]
fn records_are_grouped_by_kind_with_badges_and_links_are_followed() {
    let mut a = app();
    key(&mut a, KeyCode::Tab);
    assert_eq!(a.tab, Tab::Records);
    // Down to the superseded decision: its badge shows.
    for _ in 0..4 {
        key(&mut a, KeyCode::Down);
    }
    let s = screen(&a);
    assert_snapshot!(s);
    // Follow its first link and come back.
    key(&mut a, KeyCode::Enter);
    assert!(screen(&a).contains("memory/decisions/settings-sync.md"));
    key(&mut a, KeyCode::Char('b'));
    assert!(screen(&a).contains("memory/decisions/local-preferences.md"));
}

#[test]
fn health_lists_findings_and_enter_shows_the_file() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/dejavu/flawed-project");
    let mut a = DejavuApp::new(Project::load(&root).unwrap(), "flawed".into());
    key(&mut a, KeyCode::BackTab);
    assert_eq!(a.tab, Tab::Health);
    let s = screen(&a);
    assert!(s.contains("errors,"), "{s}");
    assert!(
        s.contains("private-not-ignored") || s.contains("bad-matched-id"),
        "{s}"
    );
    key(&mut a, KeyCode::Enter);
    assert_eq!(a.tab, Tab::Records);
}

#[test]
fn feedback_is_saved_for_the_cue_just_tried() {
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    let tmp = tempfile::tempdir().unwrap();
    copy(&demo_root(), tmp.path());
    let mut a = DejavuApp::new(Project::load(tmp.path()).unwrap(), "p".into());
    typed(&mut a, "settings sync");
    ctrl(&mut a, 'o');
    ctrl(&mut a, 'f');
    assert!(
        a.recall.status.starts_with("appended"),
        "{}",
        a.recall.status
    );
    let text = std::fs::read_to_string(tmp.path().join(FEEDBACK_PATH)).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.contains(r#""query":"settings sync","matched_id":"decision-settings-sync","outcome":"irrelevant""#),
        "{last}"
    );
}
