//! The terminology check of a translated file in the Health pane: `Q`
//! asks for the file, the findings come grouped by term with the
//! untranslated segments apart, and Enter shows a finding's segment beside
//! its term's article. The file is never written.

use std::path::Path;

use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

use super::app::{App, Msg, Pane};
use super::panes::qa::{QaRow, State};
use super::tests::{app_at, key, keys, screen};
use super::update::update;

const FOLDERS: [&str; 7] = [
    "00_INBOX",
    "01_CLIENTS",
    "02_TERMINOLOGY",
    "03_DOMAINS",
    "04_STYLE",
    "05_INDICES",
    "06_TEMPLATES",
];

/// Relative to the package, where tests run: the same on every machine.
const JOB: &str = "tests/fixtures/terms/job.xlf";

fn term(root: &Path, source: &str, target: &str, status: &str, clients: &str) {
    std::fs::write(
        root.join(format!("02_TERMINOLOGY/{source} → {target}.md")),
        format!(
            "---\nterm_source: \"{source}\"\nterm_target: \"{target}\"\nsource_lang: en-US\n\
             target_lang: nl-BE\nclients: [{clients}]\nstatus: {status}\n\
             last_updated: 2026-01-15\n---\n# {source} → {target}\n\n\
             Use “{target}” in contracts.\n"
        ),
    )
    .unwrap();
}

fn bank(root: &Path) {
    for f in FOLDERS {
        std::fs::create_dir_all(root.join(f)).unwrap();
    }
    term(root, "compliance", "naleving", "approved", "");
    term(root, "compliance", "conformiteit", "rejected", "");
    term(
        root,
        "data controller",
        "verwerkingsverantwoordelijke",
        "approved",
        "",
    );
    term(root, "warranty", "garantie", "approved", "");
    term(root, "warranty", "waarborg", "approved", "");
}

fn to_health(app: &mut App) {
    key(app, KeyCode::BackTab);
    key(app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Health);
}

fn check_job(app: &mut App) {
    to_health(app);
    key(app, KeyCode::Char('Q'));
    keys(app, JOB);
    key(app, KeyCode::Enter);
}

/// `(code, segment)` of the findings in the order the pane lists them.
fn listed(app: &App) -> Vec<(&'static str, String)> {
    let view = app.panes.health.qa.as_ref().expect("the check is shown");
    let out = view.report().expect("the check is done");
    view.rows
        .iter()
        .filter_map(|r| match r {
            QaRow::Finding(i) => {
                let f = &out.report.findings[*i];
                Some((f.code, f.segment.clone()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn q_asks_for_a_file_and_lists_its_findings_by_term() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let before = std::fs::read(JOB).unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    key(&mut app, KeyCode::Char('Q'));
    keys(&mut app, JOB);
    assert_snapshot!("qa_asks_100x30", screen(&app));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        listed(&app),
        [
            ("term-missing", "2".to_owned()),
            ("term-rejected", "2".to_owned()),
            ("term-missing", "3".to_owned()),
            ("term-inconsistent", "4".to_owned()),
        ]
    );
    let view = app.panes.health.qa.as_ref().unwrap();
    // Grouped by term, the untranslated segment apart and never a miss.
    assert!(view.rows.contains(&QaRow::Term("compliance".into(), 2)));
    assert!(view.rows.contains(&QaRow::Untranslated(1)));
    assert!(view.rows.contains(&QaRow::Ids("6".into())));
    assert_snapshot!("qa_findings_100x30", screen(&app));
    assert_eq!(std::fs::read(JOB).unwrap(), before, "the file is only read");
    // Esc goes back to the checks.
    key(&mut app, KeyCode::Esc);
    assert!(app.panes.health.qa.is_none());
    assert!(screen(&app).contains("Health — "));
}

#[test]
fn enter_shows_the_segment_beside_the_terms_article() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    check_job(&mut app);
    assert_snapshot!("qa_findings_80x24", screen(&app));
    // The first finding is selected; the next is compliance's rejected
    // target.
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    let view = app.panes.health.qa.as_ref().unwrap();
    let f = &view.report().unwrap().report.findings[view.opened.as_ref().unwrap().finding];
    assert_eq!((f.code, f.segment.as_str()), ("term-rejected", "2"));
    // The rejected target is marked; the marks are drawn as a style.
    assert!(f.target.contains("«conformiteit»"), "{}", f.target);
    let shown = screen(&app);
    assert!(shown.contains("De conformiteit wordt"), "{shown}");
    // Beside it, the article that rejects it.
    assert!(shown.contains("status: rejected"), "{shown}");
    assert!(shown.contains("Use “conformiteit” in"), "{shown}");
    assert_snapshot!("qa_segment_and_term_80x24", shown);
    key(&mut app, KeyCode::Esc);
    assert!(app.panes.health.qa.as_ref().unwrap().opened.is_none());
}

#[test]
fn a_file_that_cannot_be_read_says_why() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    key(&mut app, KeyCode::Char('Q'));
    keys(&mut app, "tests/fixtures/terms/no such file.xlf");
    key(&mut app, KeyCode::Enter);
    let view = app.panes.health.qa.as_ref().unwrap();
    assert!(matches!(view.state, State::Failed(_)), "{:?}", view.state);
    let shown = screen(&app);
    assert!(shown.contains("The file could not be checked"), "{shown}");
    assert!(shown.contains("no such file.xlf"), "{shown}");
}

#[test]
fn a_file_with_no_segments_is_not_shown_as_clean() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let empty = dir.path().join("empty.xlf");
    std::fs::write(&empty, "").unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    key(&mut app, KeyCode::Char('Q'));
    keys(&mut app, empty.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    let view = app.panes.health.qa.as_ref().unwrap();
    match &view.state {
        State::Failed(why) => assert!(why.contains("no segments found"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// A file none of whose segments has a confirmed translation was checked
/// against nothing: the status says so, not "0 findings", and the pane
/// lists the segment as not checked.
#[test]
fn a_file_with_no_confirmed_translation_is_not_shown_as_clean() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let draft = dir.path().join("draft.xlf");
    std::fs::write(
        &draft,
        "<?xml version=\"1.0\"?>\n<xliff version=\"1.2\" \
         xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n<file original=\"a\" \
         source-language=\"en-US\" target-language=\"nl-BE\" datatype=\"plaintext\"><body>\n\
         <trans-unit id=\"1\"><source>Read the warranty.</source>\
         <target state=\"needs-translation\">Lees de garantie.</target></trans-unit>\n\
         </body></file></xliff>\n",
    )
    .unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    key(&mut app, KeyCode::Char('Q'));
    keys(&mut app, draft.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    let view = app.panes.health.qa.as_ref().unwrap();
    let out = view.report().expect("the check is done");
    assert_eq!(out.report.checked, 0);
    let shown = screen(&app);
    assert!(
        shown.contains("nothing was checked: none of 1 segment has a confirmed"),
        "{shown}"
    );
    assert!(shown.contains("untranslated (1: not checked)"), "{shown}");
    assert!(!shown.contains("every term is translated"), "{shown}");
}

/// An XLIFF naming no target language is refused, with the way out in
/// the interface's own words; typed with its pair after the name, it is
/// checked against that pair's terms only.
#[test]
fn an_xliff_naming_no_target_language_is_checked_with_the_pair_typed_after_it() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let job = dir.path().join("no target.xlf");
    let text = std::fs::read_to_string(JOB)
        .unwrap()
        .replace(" target-language=\"nl-BE\"", "");
    std::fs::write(&job, text).unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    key(&mut app, KeyCode::Char('Q'));
    keys(&mut app, job.to_str().unwrap());
    key(&mut app, KeyCode::Enter);
    let view = app.panes.health.qa.as_ref().unwrap();
    match &view.state {
        State::Failed(why) => assert!(
            why.contains("names no target language") && why.contains("no target.xlf en-US:nl-BE"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
    key(&mut app, KeyCode::Char('Q'));
    keys(&mut app, &format!("{} en-US:nl-BE", job.to_str().unwrap()));
    key(&mut app, KeyCode::Enter);
    let title = app.panes.health.qa.as_ref().unwrap().title();
    assert!(
        title.starts_with("terms of no target.xlf:"),
        "the file's name, not what was typed: {title}"
    );
    let found = listed(&app);
    assert!(
        found.contains(&("term-rejected", "2".to_owned())),
        "the job's findings, as with its language named: {found:?}"
    );
}

#[test]
fn a_check_asked_for_at_start_waits_for_the_bank() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let root = dir.path().canonicalize().unwrap();
    let spec = membank_core::memory::LayoutKind::Bank.spec();
    let mut app = App::new(
        Box::new(super::unread::Unread::new(spec, root.clone())),
        super::theme::Theme::default_theme(),
        super::keys::KeyMap::default(),
        ratatui::layout::Rect::new(0, 0, 100, 30),
        crate::tui::TESTS_CLOCK,
    );
    app.check_terms(JOB.into());
    assert_eq!(app.focus, Pane::Health);
    assert!(app.panes.health.qa.as_ref().unwrap().waiting);
    assert!(screen(&app).contains("Waiting for the memory to be read"));
    let files_read = std::sync::atomic::AtomicUsize::new(0);
    let open = spec.open_listing.expect("a bank lists its files first");
    let loaded = open(&root, &files_read, &mut |_| {});
    update(
        &mut app,
        Msg::Loaded(Box::new(loaded.map_err(|e| e.to_string()).map(Into::into))),
    );
    assert_eq!(listed(&app).len(), 4);
}

#[test]
fn enter_on_a_terms_heading_opens_its_first_finding() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    check_job(&mut app);
    // Up from the first finding is its term's heading.
    key(&mut app, KeyCode::Char('k'));
    key(&mut app, KeyCode::Enter);
    let view = app.panes.health.qa.as_ref().unwrap();
    let opened = view.opened.as_ref().expect("a finding is shown");
    assert_eq!(opened.finding, 0);
}

#[test]
fn the_findings_list_answers_to_the_key_map_and_q_quits() {
    use std::collections::BTreeMap;

    use super::app::Effect;
    use super::keys::KeyMap;
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    let mut overrides = BTreeMap::new();
    overrides.insert("down".to_owned(), vec!["ctrl-n".to_owned()]);
    app.keymap = KeyMap::default().with_overrides(&overrides).unwrap();
    check_job(&mut app);
    let selected = |app: &App| app.panes.health.qa.as_ref().unwrap().cursor.selected;
    let first = selected(&app);
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(selected(&app), first, "j is no longer bound to down");
    let ctrl_n = ratatui::crossterm::event::KeyEvent::new(
        KeyCode::Char('n'),
        ratatui::crossterm::event::KeyModifiers::CONTROL,
    );
    update(&mut app, Msg::Key(ctrl_n));
    assert_eq!(selected(&app), first + 1);
    // The list is no text input: the global keys reach past it.
    keys(&mut app, "q");
    assert!(
        app.effects.iter().any(|e| matches!(e, Effect::Quit)),
        "q quits from the findings"
    );
}
