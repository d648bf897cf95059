//! Fixing findings from the Health pane: `x` shows the fixes as agent
//! writes are shown, nothing is written before Enter, and the checks run
//! again after; `v` marks a stale article checked.

use std::path::Path;

use insta::assert_snapshot;
use ratatui::crossterm::event::KeyCode;

use super::app::{App, Pane};
use super::panes::health::{HealthRow, RowKind};
use super::tests::{app_at, key, keys, screen};

const FOLDERS: [&str; 7] = [
    "00_INBOX",
    "01_CLIENTS",
    "02_TERMINOLOGY",
    "03_DOMAINS",
    "04_STYLE",
    "05_INDICES",
    "06_TEMPLATES",
];

const ACME: &str = "---\nclient: \"Acme\"\ndomains: [[Legal]]\nlast_updated: 2026-4-8\n---\n# Acme\n\nAdhesives.\n";

fn bank(root: &Path) {
    for f in FOLDERS {
        std::fs::create_dir_all(root.join(f)).unwrap();
    }
    std::fs::write(root.join("01_CLIENTS/Acme.md"), ACME).unwrap();
    std::fs::write(
        root.join("03_DOMAINS/Legal.md"),
        "---\ndomain: \"Legal\"\nlast_updated: 2020-01-02\n---\n# Legal\n\nContracts.\n",
    )
    .unwrap();
}

fn to_health(app: &mut App) {
    key(app, KeyCode::BackTab);
    key(app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Health);
}

/// Select the first finding of `code`.
fn select_finding(app: &mut App, code: &str) {
    let pane = &mut app.panes.health;
    let at = pane
        .rows
        .iter()
        .position(|r| match r.kind(&pane.report.findings) {
            Some(RowKind::Finding(i)) => pane.report.findings[i].code() == code,
            _ => false,
        })
        .unwrap_or_else(|| panic!("no {code} finding shown"));
    pane.cursor.selected = at;
}

fn codes(app: &App) -> Vec<&'static str> {
    app.health.findings.iter().map(|f| f.code()).collect()
}

#[test]
fn x_shows_the_fix_with_its_diff_and_enter_writes_it() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    assert!(codes(&app).contains(&"bad-date"), "{:?}", codes(&app));
    select_finding(&mut app, "bad-date");
    key(&mut app, KeyCode::Char('x'));
    assert_snapshot!(screen(&app));
    // Shown, not written.
    let acme = dir.path().join("01_CLIENTS/Acme.md");
    assert_eq!(std::fs::read_to_string(&acme).unwrap(), ACME);
    key(&mut app, KeyCode::Enter);
    let fixed = std::fs::read_to_string(&acme).unwrap();
    assert_eq!(fixed, ACME.replace("2026-4-8", "2026-04-08"));
    let shown = screen(&app);
    assert!(shown.contains("changed    01_CLIENTS/Acme.md"), "{shown}");
    key(&mut app, KeyCode::Enter);
    assert!(app.panes.health.fix.is_none());
    // The checks ran again on what was written.
    assert!(!codes(&app).contains(&"bad-date"), "{:?}", codes(&app));
    assert!(codes(&app).contains(&"unquoted-link"));
}

#[test]
fn a_declined_fix_is_not_written_and_esc_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let acme = dir.path().join("01_CLIENTS/Acme.md");
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    select_finding(&mut app, "unquoted-link");
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Esc);
    assert!(app.panes.health.fix.is_none());
    assert_eq!(std::fs::read_to_string(&acme).unwrap(), ACME);
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Enter);
    let shown = screen(&app);
    assert!(shown.contains("declined   01_CLIENTS/Acme.md"), "{shown}");
    // Nothing was written, so nothing is called fixed.
    assert!(!shown.contains("Fixed:"), "{shown}");
    assert!(shown.contains("Not fixed:"), "{shown}");
    assert_eq!(std::fs::read_to_string(&acme).unwrap(), ACME);
}

#[test]
fn x_on_a_group_fixes_every_finding_of_it_and_lists_those_left_with_why() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    // The first row: the errors, or the warnings when there are none.
    app.panes.health.cursor.selected = 0;
    let chosen = app.panes.health.selected_findings();
    assert!(chosen.len() > 1, "{chosen:?}");
    key(&mut app, KeyCode::Char('x'));
    let review = app.panes.health.fix.as_ref().unwrap();
    // Every chosen finding is fixed in its file's row or listed with why.
    for f in &chosen {
        let fixed = review
            .rows
            .iter()
            .any(|r| r.fix.path == *f.path && r.fix.codes.contains(&f.code()));
        let left = review
            .remaining
            .iter()
            .any(|l| l.starts_with(&format!("{}  {}", f.code(), f.path)));
        assert!(fixed || left, "{f:?} neither fixed nor listed");
    }
}

#[test]
fn v_marks_a_stale_article_checked_today_after_review() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let legal = dir.path().join("03_DOMAINS/Legal.md");
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    select_finding(&mut app, "stale");
    // `x` alone never says an article is still right.
    key(&mut app, KeyCode::Char('x'));
    let review = app.panes.health.fix.as_ref().unwrap();
    assert!(review.rows.is_empty());
    assert!(
        review.remaining[0].contains("v on the finding marks it checked today"),
        "{:?}",
        review.remaining
    );
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "v");
    assert_snapshot!(screen(&app));
    key(&mut app, KeyCode::Enter);
    let today = crate::tui::TESTS_CLOCK.today().to_string();
    assert_eq!(
        std::fs::read_to_string(&legal).unwrap(),
        format!("---\ndomain: \"Legal\"\nlast_updated: {today}\n---\n# Legal\n\nContracts.\n")
    );
    key(&mut app, KeyCode::Enter);
    assert!(!codes(&app).contains(&"stale"), "{:?}", codes(&app));
}

/// A file edited after its review was shown is not written over, and the
/// way out is to propose it again, not `x` (which has no fix for a stale
/// article).
#[test]
fn a_review_of_a_file_edited_since_writes_nothing_and_says_to_propose_it_again() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let legal = dir.path().join("03_DOMAINS/Legal.md");
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    select_finding(&mut app, "stale");
    keys(&mut app, "v");
    let edited = format!("{}edit\n", std::fs::read_to_string(&legal).unwrap());
    std::fs::write(&legal, &edited).unwrap();
    key(&mut app, KeyCode::Enter);
    assert_eq!(std::fs::read_to_string(&legal).unwrap(), edited);
    let result = app.panes.health.fix.as_ref().unwrap().result.clone();
    let said = result.unwrap_or_default().join(" ");
    assert!(said.contains("changed on disk since"), "{said}");
    assert!(
        said.contains("propose it again") && !said.contains("x proposes"),
        "{said}"
    );
}

fn term(root: &Path, name: &str, target: &str) {
    std::fs::write(
        root.join(format!("02_TERMINOLOGY/{name}.md")),
        format!(
            "---\nterm_source: \"contract\"\nterm_target: \"{target}\"\nsource_lang: en\n\
             target_lang: nl\nstatus: approved\nlast_updated: 2026-11-01\n---\n# {name}\n"
        ),
    )
    .unwrap();
}

#[test]
fn x_on_a_term_conflict_keeps_that_articles_translation_and_rejects_the_other() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    term(dir.path(), "contract a", "overeenkomst");
    term(dir.path(), "contract b", "contract");
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    // On the group, no translation is chosen: the review says how to.
    let group = app
        .panes
        .health
        .rows
        .iter()
        .position(|r| {
            matches!(
                r.kind(&app.panes.health.report.findings),
                Some(RowKind::Code(_, "term-conflict"))
            )
        })
        .unwrap();
    app.panes.health.cursor.selected = group;
    key(&mut app, KeyCode::Char('x'));
    let review = app.panes.health.fix.as_ref().unwrap();
    assert!(review.rows.is_empty());
    assert!(review.remaining[0].contains("x on the finding of the article whose translation"));
    key(&mut app, KeyCode::Esc);
    // On the finding of “contract a”: its translation is kept.
    let at = app
        .panes
        .health
        .rows
        .iter()
        .position(|r| match r.kind(&app.panes.health.report.findings) {
            Some(RowKind::Finding(i)) => {
                let f = &app.panes.health.report.findings[i];
                f.code() == "term-conflict" && f.path.ends_with("contract a.md")
            }
            _ => false,
        })
        .unwrap();
    app.panes.health.cursor.selected = at;
    key(&mut app, KeyCode::Char('x'));
    let shown = screen(&app);
    assert!(shown.contains("02_TERMINOLOGY/contract b.md"), "{shown}");
    let review = app.panes.health.fix.as_ref().unwrap();
    assert!(
        review.rows[0].detail[0].contains("(“contract” gives way to “overeenkomst”)"),
        "{:?}",
        review.rows[0].detail
    );
    key(&mut app, KeyCode::Enter);
    let b = std::fs::read_to_string(dir.path().join("02_TERMINOLOGY/contract b.md")).unwrap();
    assert!(b.contains("\nstatus: rejected\n"), "{b}");
    let a = std::fs::read_to_string(dir.path().join("02_TERMINOLOGY/contract a.md")).unwrap();
    assert!(a.contains("\nstatus: approved\n"), "{a}");
    key(&mut app, KeyCode::Enter);
    assert!(!codes(&app).contains(&"term-conflict"), "{:?}", codes(&app));
}

#[test]
fn a_missing_value_the_file_cannot_give_is_typed_never_filled_in() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let before = "---\nterm_source: deadline\nsource_lang: en\ntarget_lang: nl\nstatus: proposed\nlast_updated: 2026-11-01\n---\n# deadline\n";
    let path = dir.path().join("02_TERMINOLOGY/deadline.md");
    std::fs::write(&path, before).unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    let pane = &mut app.panes.health;
    let at = pane
        .rows
        .iter()
        .position(|r| match r.kind(&pane.report.findings) {
            Some(RowKind::Finding(i)) => {
                pane.report.findings[i].missing_key() == Some("term_target")
            }
            _ => false,
        })
        .expect("term_target is reported missing");
    pane.cursor.selected = at;
    key(&mut app, KeyCode::Char('x'));
    let review = app.panes.health.fix.as_ref().unwrap();
    assert!(review.rows.is_empty(), "no value is made up");
    assert!(screen(&app).contains("i types the term_target of 02_TERMINOLOGY/deadline.md"));
    key(&mut app, KeyCode::Char('i'));
    // Nothing typed is refused, and the question stays.
    key(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("term_target needs a value; nothing was typed"));
    keys(&mut app, "termijn");
    key(&mut app, KeyCode::Enter);
    let review = app.panes.health.fix.as_ref().unwrap();
    assert_eq!(review.rows.len(), 1);
    assert!(review.remaining.is_empty(), "{:?}", review.remaining);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before,
        "not before Enter"
    );
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        before.replace("---\n# deadline", "term_target: termijn\n---\n# deadline")
    );
}

#[test]
fn a_file_that_takes_no_typed_value_is_skipped_for_the_next() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    // Saved as UTF-16: no typed value can be written into it as it is.
    let acme = "\u{feff}---\nclient: \"Acme\"\nlast_updated: 2026-09-01\n---\n# Acme\n";
    let utf16: Vec<u8> = acme.encode_utf16().flat_map(u16::to_le_bytes).collect();
    std::fs::write(dir.path().join("01_CLIENTS/Acme.md"), &utf16).unwrap();
    let beta = "---\nclient: \"Beta\"\nlast_updated: 2026-09-01\n---\n# Beta\n";
    let beta_path = dir.path().join("01_CLIENTS/Beta.md");
    std::fs::write(&beta_path, beta).unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    let pane = &mut app.panes.health;
    let at = pane
        .rows
        .iter()
        .position(|r| {
            matches!(
                r.kind(&pane.report.findings),
                Some(RowKind::Code(_, "missing-key"))
            )
        })
        .expect("a missing-key group");
    pane.cursor.selected = at;
    key(&mut app, KeyCode::Char('x'));
    let shown = screen(&app);
    assert!(
        shown.contains("i types the languages of 01_CLIENTS/Beta.md (1 value to give)"),
        "{shown}"
    );
    // The UTF-16 file stays listed with why nothing fixes it.
    assert!(
        shown.contains("01_CLIENTS/Acme.md — the file is UTF-16"),
        "{shown}"
    );
    key(&mut app, KeyCode::Char('i'));
    keys(&mut app, "en-US → nl-BE");
    key(&mut app, KeyCode::Enter);
    let review = app.panes.health.fix.as_ref().unwrap();
    assert_eq!(review.rows.len(), 1, "{:?}", review.refused);
    assert_eq!(review.rows[0].fix.path, "01_CLIENTS/Beta.md");
    key(&mut app, KeyCode::Enter);
    let written = std::fs::read_to_string(&beta_path).unwrap();
    assert!(
        written.contains("languages: [\"en-US → nl-BE\"]"),
        "{written}"
    );
}

#[test]
fn u_takes_back_a_fix_after_asking_and_the_finding_returns() {
    // The journal is the process's; a folder of this test's holds it.
    let journal = tempfile::tempdir().unwrap().keep();
    membank_core::journal::install(membank_core::journal::Journal::new(journal));
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    select_finding(&mut app, "bad-date");
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    let acme = dir.path().join("01_CLIENTS/Acme.md");
    assert_ne!(std::fs::read_to_string(&acme).unwrap(), ACME);

    key(&mut app, KeyCode::Char('u'));
    let asked = screen(&app);
    assert!(asked.contains("Undo the last change (fix"), "{asked}");
    assert!(asked.contains("01_CLIENTS/Acme.md"), "{asked}");
    assert_ne!(
        std::fs::read_to_string(&acme).unwrap(),
        ACME,
        "nothing is undone before yes"
    );
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(std::fs::read_to_string(&acme).unwrap(), ACME);
    assert!(codes(&app).contains(&"bad-date"), "{:?}", codes(&app));

    // The fix was the last change; undoing again says so instead of
    // reaching past it.
    key(&mut app, KeyCode::Char('u'));
    let again = screen(&app);
    assert!(!again.contains("Undo the last change (fix"), "{again}");

    // A damaged last entry (the undo's) is named, as `membank undo`
    // names it, not passed over for the change before it.
    key(&mut app, KeyCode::Esc);
    let journal = membank_core::journal::installed().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let newest = journal.entries(&root).0.last().unwrap().id.clone();
    let file = find_named(&journal.dir, &format!("{newest}.json")).unwrap();
    std::fs::write(&file, "{broken").unwrap();
    key(&mut app, KeyCode::Char('u'));
    let damaged = screen(&app);
    assert!(damaged.contains("cannot be read"), "{damaged}");
    assert!(!damaged.contains("Undo the last change"), "{damaged}");
}

/// The file called `name` somewhere under `dir`.
fn find_named(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_named(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n == name) {
            return Some(path);
        }
    }
    None
}

/// The memory at `root` (of any layout) opened, on the Health pane.
fn open_on_health(root: &Path) -> App {
    let memory = membank_core::memory::open(root, None).unwrap();
    let mut app = App::new(
        memory,
        super::theme::Theme::default_theme(),
        super::keys::KeyMap::default(),
        ratatui::layout::Rect::new(0, 0, 100, 30),
        crate::tui::TESTS_CLOCK,
    );
    for _ in 0..6 {
        if app.focus == Pane::Health {
            break;
        }
        key(&mut app, KeyCode::Tab);
    }
    assert_eq!(app.focus, Pane::Health);
    app
}

fn demo_copy(rel: &str, to: &Path) {
    super::tests::copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join(rel), to);
}

#[test]
fn x_in_a_dejavu_project_writes_the_missing_side_of_a_supersede() {
    let dir = tempfile::tempdir().unwrap();
    demo_copy("demo-dejavu", dir.path());
    let newer = dir.path().join("memory/decisions/settings-sync.md");
    let demo = std::fs::read_to_string(&newer).unwrap();
    let one_sided = demo.replace("supersedes: memory/decisions/local-preferences.md\n", "");
    assert_ne!(one_sided, demo);
    std::fs::write(&newer, &one_sided).unwrap();
    let mut app = open_on_health(dir.path());
    select_finding(&mut app, "supersedes-missing");
    key(&mut app, KeyCode::Char('x'));
    let review = app.panes.health.fix.as_ref().expect("the review opens");
    assert_eq!(review.rows.len(), 1);
    assert_eq!(review.rows[0].fix.path, "memory/decisions/settings-sync.md");
    let shown = screen(&app);
    assert!(
        shown.contains("+supersedes: memory/decisions/local-preferences.md"),
        "{shown}"
    );
    assert_eq!(std::fs::read_to_string(&newer).unwrap(), one_sided);
    key(&mut app, KeyCode::Enter);
    assert_eq!(std::fs::read_to_string(&newer).unwrap(), demo);
    key(&mut app, KeyCode::Enter);
    assert!(
        !codes(&app).contains(&"supersedes-missing"),
        "{:?}",
        codes(&app)
    );
}

#[test]
fn x_in_an_everos_root_says_it_is_only_read() {
    let dir = tempfile::tempdir().unwrap();
    demo_copy("demo-everos", dir.path());
    let before = std::fs::read_dir(dir.path()).unwrap().count();
    let mut app = open_on_health(dir.path());
    let first = app
        .panes
        .health
        .rows
        .iter()
        .position(|r| matches!(r, HealthRow::Finding { .. }))
        .expect("the demo root has findings");
    app.panes.health.cursor.selected = first;
    key(&mut app, KeyCode::Char('x'));
    assert!(app.panes.health.fix.is_none());
    let shown = screen(&app);
    assert!(shown.contains("does not change an everos"), "{shown}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), before);
}

#[test]
fn plus_on_a_dead_link_creates_the_article_its_use_implies_and_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    std::fs::write(
        dir.path().join("03_DOMAINS/Legal.md"),
        "---\ndomain: \"Legal\"\nlast_updated: 2026-01-02\n---\n# Legal\n\nSee [[Patent Drafting]].\n",
    )
    .unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    select_finding(&mut app, "dead-link");
    let created = dir.path().join("03_DOMAINS/Patent Drafting.md");
    // `x` leaves a forward reference alone.
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    assert!(!created.exists());
    key(&mut app, KeyCode::Esc);
    select_finding(&mut app, "dead-link");
    key(&mut app, KeyCode::Char('+'));
    let shown = screen(&app);
    assert!(shown.contains("Patent Drafting.md"), "{shown}");
    assert!(!created.exists(), "not before Enter");
    key(&mut app, KeyCode::Enter);
    let text = std::fs::read_to_string(&created).expect("created on Enter");
    assert!(text.starts_with("---\n"), "{text}");
    key(&mut app, KeyCode::Enter);
    assert!(!codes(&app).contains(&"dead-link"), "{:?}", codes(&app));
}

#[test]
fn the_review_answers_to_rebound_keys_and_lists_them_under_help() {
    use std::collections::BTreeMap;

    use super::keys::KeyMap;
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let acme = dir.path().join("01_CLIENTS/Acme.md");
    let mut app = app_at(dir.path(), 100, 30);
    let mut overrides = BTreeMap::new();
    overrides.insert("apply".to_owned(), vec!["w".to_owned()]);
    overrides.insert("close_view".to_owned(), vec!["ctrl-x".to_owned()]);
    app.keymap = KeyMap::default().with_overrides(&overrides).unwrap();
    to_health(&mut app);
    select_finding(&mut app, "bad-date");
    key(&mut app, KeyCode::Char('x'));
    // Enter and Esc are no longer the review's keys.
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert!(app.panes.health.fix.is_some(), "Esc no longer closes it");
    assert_eq!(std::fs::read_to_string(&acme).unwrap(), ACME);
    assert!(screen(&app).contains("w write"), "{}", screen(&app));
    // `?` lists the review's own keys, as bound.
    keys(&mut app, "?");
    let help = screen(&app);
    assert!(help.contains("scroll the diff down"), "{help}");
    assert!(help.contains("Ctrl-X"), "{help}");
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "w");
    assert_eq!(
        std::fs::read_to_string(&acme).unwrap(),
        ACME.replace("2026-4-8", "2026-04-08")
    );
}

/// A leftover deleted by a fix is said to be deleted, not written.
#[test]
fn a_deleted_leftover_is_reported_as_deleted() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    std::fs::write(dir.path().join("01_CLIENTS/Acme.md.tmp"), "half a save").unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    to_health(&mut app);
    select_finding(&mut app, "tmp-leftover");
    key(&mut app, KeyCode::Char('x'));
    key(&mut app, KeyCode::Enter);
    assert!(!dir.path().join("01_CLIENTS/Acme.md.tmp").exists());
    let shown = screen(&app);
    assert!(
        shown.contains("deleted    01_CLIENTS/Acme.md.tmp"),
        "{shown}"
    );
    assert!(!shown.contains("written"), "{shown}");
}
