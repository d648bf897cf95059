//! Files changed on disk are read again on a worker thread: the memory on
//! screen stays in use meanwhile, changes that arrive during a read wait
//! for it, and the checks shown are those of the bank as it is now.

use std::sync::mpsc;
use std::time::Duration;

use membank_core::health::{HealthOptions, check};
use membank_core::memory::Memory;
use ratatui::crossterm::event::KeyCode;

use super::app::{App, Msg};
use super::tests::{app_at, bank_of, copy_dir, fixture, key, keys, screen};
use super::update::update;

/// Route background results through a channel, as the event loop does.
fn with_channel(app: &mut App) -> mpsc::Receiver<Msg> {
    let (tx, rx) = mpsc::channel();
    app.send_background_results_to(move |m| {
        let _ = tx.send(m);
    });
    rx
}

fn next(rx: &mpsc::Receiver<Msg>) -> Msg {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("the re-read reports back")
}

/// A copy of the fixture on screen whose Marketing article was just
/// rewritten with `text`, and the re-read's result, not yet delivered.
fn marketing_rewritten(text: &str) -> (tempfile::TempDir, App, Msg) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    let rx = with_channel(&mut app);
    let changed = dir.path().join("03_DOMAINS/Marketing.md");
    std::fs::write(&changed, text).unwrap();
    update(&mut app, Msg::FilesChanged(vec![changed]));
    let msg = next(&rx);
    (dir, app, msg)
}

fn findings(app: &App) -> Vec<String> {
    app.panes
        .health
        .report
        .findings
        .iter()
        .map(|f| format!("{} {}", f.code(), f.location()))
        .collect()
}

#[test]
fn a_change_during_a_re_read_waits_for_it_and_both_arrive() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    let rx = with_channel(&mut app);
    let first = dir.path().join("03_DOMAINS/Marketing.md");
    std::fs::write(
        &first,
        "---\ndomain: Marketing\n---\n# Marketing\n\nFirst change.\n",
    )
    .unwrap();
    update(&mut app, Msg::FilesChanged(vec![first.clone()]));
    // A second file changes and a new one appears while the first read runs.
    let added = dir.path().join("03_DOMAINS/Brand new.md");
    std::fs::write(
        &added,
        "---\ndomain: Brand\n---\n# Brand\n\nSee [[Nowhere at all]].\n",
    )
    .unwrap();
    update(&mut app, Msg::FilesChanged(vec![added.clone()]));
    // Keys are answered on the memory shown until then.
    key(&mut app, KeyCode::Down);
    assert!(
        bank_of(app.memory.as_ref())
            .find("03_DOMAINS/Brand new.md")
            .is_none()
    );
    // The first read arrives and starts the second, which brings the new file.
    let msg = next(&rx);
    update(&mut app, msg);
    let msg = next(&rx);
    update(&mut app, msg);
    let bank = bank_of(app.memory.as_ref());
    assert!(bank.find("03_DOMAINS/Brand new.md").is_some());
    let id = bank.find("03_DOMAINS/Marketing.md").unwrap();
    assert!(bank.article_text(id).unwrap().contains("First change."));
    // The checks are those of the bank as it is now, found again only
    // where the change reached.
    let full = check(bank, &HealthOptions::as_of(super::TESTS_CLOCK.today()));
    let full: Vec<String> = full
        .findings
        .iter()
        .map(|f| format!("{} {}", f.code(), f.location()))
        .collect();
    assert_eq!(findings(&app), full);
    assert!(
        findings(&app)
            .iter()
            .any(|f| f == "dead-link 03_DOMAINS/Brand new.md:6"),
        "{:?}",
        findings(&app)
    );
    assert!(rx.try_recv().is_err(), "nothing more to read");
}

#[test]
fn a_change_during_the_first_read_is_read_after_it() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let found = membank_core::memory::detect(dir.path(), None).unwrap();
    let mut app = super::prepare_unread(
        &found,
        &super::TuiOptions {
            clock: super::TESTS_CLOCK,
            ..super::TuiOptions::default()
        },
        ratatui::layout::Rect::new(0, 0, 100, 30),
    )
    .unwrap();
    let rx = with_channel(&mut app);
    // The first read happens before the change reaches the file.
    let read_early: Box<dyn Memory> = Box::new(membank_core::bank::Bank::load(dir.path()).unwrap());
    let path = dir.path().join("03_DOMAINS/Marketing.md");
    std::fs::write(
        &path,
        "---\ndomain: Marketing\n---\n# Marketing\n\nChanged early.\n",
    )
    .unwrap();
    update(&mut app, Msg::FilesChanged(vec![path]));
    assert!(
        rx.try_recv().is_err(),
        "nothing is read before the first read is in"
    );
    update(&mut app, Msg::Loaded(Box::new(Ok(read_early.into()))));
    let msg = next(&rx);
    update(&mut app, msg);
    let bank = bank_of(app.memory.as_ref());
    let id = bank.find("03_DOMAINS/Marketing.md").unwrap();
    assert!(bank.article(id).text.contains("Changed early."));
}

#[test]
fn a_tree_order_changed_during_a_re_read_is_kept() {
    use super::panes::bank::{RowKind, TreeSort};
    let (_dir, mut app, msg) = marketing_rewritten(
        "---\ndomain: Marketing\nlast_updated: 2099-12-31\n---\n# Marketing\n\nNewest now.\n",
    );
    // The worker groups in the order of when it started; the user picks
    // another before the bank arrives.
    app.panes.bank.sort = TreeSort::Date;
    update(&mut app, msg);
    let files = |app: &App| -> Vec<String> {
        app.panes
            .bank
            .rows
            .iter()
            .filter_map(|r| match &r.kind {
                RowKind::File { rel } => Some(rel.to_string()),
                RowKind::Folder { .. } => None,
            })
            .collect()
    };
    let shown = files(&app);
    // Grouped again from scratch, in the order chosen.
    let flagged = app.panes.health.flagged();
    app.panes.bank.files_changed();
    app.panes
        .bank
        .rebuild(app.memory.as_ref(), &flagged, usize::from(u16::MAX));
    assert_eq!(shown, files(&app));
    let domains: Vec<&String> = shown.iter().filter(|r| r.starts_with("03_")).collect();
    assert_eq!(
        domains.first().map(|r| r.as_str()),
        Some("03_DOMAINS/Marketing.md"),
        "the newest first in date order: {domains:?}"
    );
}

#[test]
fn what_the_worker_laid_out_is_used_only_if_nothing_changed_meanwhile() {
    use crate::last_query::SavedQuery;
    let (_dir, mut app, msg) = marketing_rewritten(
        "---\ndomain: Marketing\nclient: Globex\n---\n# Marketing\n\nNow for Globex.\n",
    );
    // The worker lays out the tree and ranks for what was shown when it
    // started; meanwhile the inbox is opened and another client asked for.
    app.panes.bank.cursor.selected = 0;
    assert!(app.panes.bank.set_expanded(true), "the inbox opens");
    app.panes.context.fill(&SavedQuery {
        client: "Globex".into(),
        ..SavedQuery::default()
    });
    update(&mut app, msg);
    let shown_rows = app.panes.bank.rows.clone();
    let shown_entries = app.panes.context.entries.clone();
    // The same as made from scratch for what is asked now.
    let flagged = app.panes.health.flagged();
    app.panes.bank.files_changed();
    app.panes
        .bank
        .rebuild(app.memory.as_ref(), &flagged, usize::from(u16::MAX));
    assert_eq!(shown_rows, app.panes.bank.rows);
    assert!(
        shown_rows
            .iter()
            .any(|r| r.depth == 1 && r.label() == "_archive"),
        "the opened inbox shows its archive: {shown_rows:?}"
    );
    let bank = crate::layouts::bank(&*app.memory).unwrap();
    let fresh = app.panes.context.ranking().build(bank);
    assert_eq!(shown_entries.iter().collect::<Vec<_>>(), fresh.articles);
    assert!(
        shown_entries
            .iter()
            .any(|e| bank.article(e.id).rel_path == "03_DOMAINS/Marketing.md" && e.score > 0),
        "the changed article scores for the client asked for now"
    );
}

#[test]
fn the_health_rows_the_worker_laid_out_are_shown_as_they_are() {
    let (_dir, mut app, msg) = marketing_rewritten("# Marketing\n\nNo front matter now.\n");
    let Msg::Reloaded { read, .. } = &msg else {
        panic!("a re-read's result: {msg:?}");
    };
    let read = read.as_ref().as_ref().expect("the re-read succeeds");
    let laid_out = read.derived.as_ref().and_then(|d| d.health.as_ref());
    let laid_out = laid_out.expect("the worker lays out the Health rows");
    let (at, count) = (laid_out.rows().as_ptr(), laid_out.rows().len());
    assert!(count > 1, "the fixture has findings");
    update(&mut app, msg);
    // Moved in, not laid out again on the interface's thread.
    assert_eq!(app.panes.health.rows.as_ptr(), at);
    assert_eq!(app.panes.health.rows.len(), count);
    // And the same as laid out from scratch here.
    let shown = app.panes.health.rows.clone();
    let summary = app.panes.health.summary.clone();
    let height = app.height_of(super::app::Pane::Health);
    let health = &mut app.panes.health;
    health.refresh(std::sync::Arc::clone(&health.report), height);
    assert_eq!(shown, app.panes.health.rows);
    assert_eq!(summary, app.panes.health.summary);
    assert!(
        findings(&app).iter().any(|f| f.contains("Marketing.md")),
        "the new report's findings: {:?}",
        findings(&app)
    );
}

#[test]
fn health_folded_or_filtered_during_a_re_read_is_shown_so() {
    use super::panes::health::{Group, HealthRow, RowKind};
    use membank_core::health::Severity;
    let (_dir, mut app, msg) = marketing_rewritten("# Marketing\n\nNo front matter now.\n");
    // The worker laid out the rows for the pane as it was; meanwhile a
    // group is folded and a filter typed.
    let health = &mut app.panes.health;
    let folded = health
        .rows
        .iter()
        .find_map(|r| match *r {
            HealthRow::Severity { severity, .. } => Some(severity),
            _ => None,
        })
        .unwrap_or(Severity::Warning);
    health.folded.insert(Group::Severity(folded));
    health.filter = "md".to_owned();
    update(&mut app, msg);
    let shown = app.panes.health.rows.clone();
    let summary = app.panes.health.summary.clone();
    assert!(summary.contains("match “md”"), "{summary}");
    let health = &app.panes.health;
    let folded_row = (0..shown.len())
        .find(|&i| health.row_kind(i) == Some(RowKind::Severity(folded)))
        .expect("the folded group's row");
    let folded_line = health.row_line(folded_row, &app.theme, 80).to_string();
    assert!(folded_line.starts_with('▸'), "{folded_line:?}");
    assert!(
        !(0..shown.len())
            .any(|i| matches!(health.row_kind(i), Some(RowKind::Code(s, _)) if s == folded)),
        "nothing shows under a folded group"
    );
    // The same as laid out from scratch for the pane as it is now.
    let height = app.height_of(super::app::Pane::Health);
    let health = &mut app.panes.health;
    health.refresh(std::sync::Arc::clone(&health.report), height);
    assert_eq!(shown, app.panes.health.rows);
    assert_eq!(summary, app.panes.health.summary);
}

#[test]
fn an_article_changed_on_disk_unannounced_is_read_again_not_shown_stale() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut app = app_at(dir.path(), 100, 30);
    let rx = with_channel(&mut app);
    let memory = app.memory.clone();
    let rel = "03_DOMAINS/Marketing.md";
    app.panes.article.open(memory.as_ref(), rel, &app.theme, 60);
    assert!(screen(&app).contains("slogans"), "{}", screen(&app));
    // The file changes and no watcher says so (a network share): the text
    // the interface reads again is not the file the bank knows.
    std::fs::write(
        dir.path().join(rel),
        "---\ndomain: Marketing\n---\n# Marketing\n\nRewritten: taglines are transcreated.\n",
    )
    .unwrap();
    update(&mut app, Msg::Resize(90, 30));
    let s = screen(&app);
    assert!(s.contains("changed on disk"), "{s}");
    assert!(!s.contains("run the command"), "nothing to run here: {s}");
    assert!(!s.contains("slogans"), "the old text is not shown: {s}");
    // It is read again as a watched change would be, and then shown.
    let msg = next(&rx);
    update(&mut app, msg);
    let s = screen(&app);
    assert!(s.contains("taglines are transcreated"), "{s}");
    assert!(!s.contains("changed on disk"), "{s}");
}

/// Scrolled to the end of a long article that then shrinks on disk: the
/// pane shows the new text from its top, not rows past its end.
#[test]
fn an_article_that_shrinks_while_scrolled_is_shown_from_where_it_fits() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let rel = "03_DOMAINS/Marketing.md";
    let long: String = (1..=80)
        .map(|i| format!("Line {i} of the long text.\n\n"))
        .collect();
    std::fs::write(
        dir.path().join(rel),
        format!("---\ndomain: Marketing\n---\n{long}"),
    )
    .unwrap();
    let mut app = app_at(dir.path(), 80, 24);
    let rx = with_channel(&mut app);
    keys(&mut app, "/");
    keys(&mut app, "Marketing");
    key(&mut app, KeyCode::Enter);
    app.focus = super::app::Pane::Article;
    update(&mut app, Msg::Resize(80, 24));
    key(&mut app, KeyCode::Char('G'));
    assert!(screen(&app).contains("Line 80 of"), "{}", screen(&app));

    let changed = dir.path().join(rel);
    std::fs::write(
        &changed,
        "---\ndomain: Marketing\n---\n# Short\n\nOnly two lines now.\n",
    )
    .unwrap();
    update(&mut app, Msg::FilesChanged(vec![changed]));
    let msg = next(&rx);
    update(&mut app, msg);
    let s = screen(&app);
    assert!(s.contains("Only two lines now."), "{s}");
    assert_eq!(app.panes.article.scroll, 0, "{s}");
}

/// An article that arrives in a bank and goes again: the Context pane's
/// rows are ranked again before they are laid out, never read from the
/// bank before (which panicked on an index past the new bank's end).
#[test]
fn an_article_added_then_removed_leaves_the_context_pane_working() {
    let dir = tempfile::tempdir().unwrap();
    for folder in membank_core::layout::Folder::ALL {
        std::fs::create_dir_all(dir.path().join(folder.dir_name())).unwrap();
    }
    let mut app = app_at(dir.path(), 100, 30);
    let rx = with_channel(&mut app);
    let acme = dir.path().join("01_CLIENTS/Acme.md");
    std::fs::write(
        &acme,
        "---\nclient: Acme\nlast_updated: 2026-04-01\n---\n# Acme\n",
    )
    .unwrap();
    update(&mut app, Msg::FilesChanged(vec![acme.clone()]));
    let msg = next(&rx);
    update(&mut app, msg);
    assert_eq!(app.memory.len(), 1);
    assert!(
        !app.panes.context.entries.is_empty(),
        "the article is ranked"
    );
    std::fs::remove_file(&acme).unwrap();
    update(&mut app, Msg::FilesChanged(vec![acme]));
    let msg = next(&rx);
    update(&mut app, msg);
    assert_eq!(app.memory.len(), 0);
    assert!(app.panes.context.entries.is_empty());
    let _ = screen(&app);
}

/// The status bar counts the notes a change brought, not the folders the
/// watcher names with them, and says a note that went was deleted.
#[test]
fn the_status_bar_counts_files_and_says_deleted() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut app = app_at(dir.path(), 120, 30);
    let root = dir.path().to_owned();
    let status = |app: &App| screen(app).lines().last().unwrap_or("").to_owned();
    let changed = |app: &mut App, rels: &[&str]| {
        update(
            app,
            Msg::FilesChanged(rels.iter().map(|r| root.join(r)).collect()),
        );
    };
    let note = "---\ndomain: Deep\n---\n# Deep\n";
    // One note in three new folders: one file.
    std::fs::create_dir_all(root.join("03_DOMAINS/a/b/c")).unwrap();
    std::fs::write(root.join("03_DOMAINS/a/b/c/Deep.md"), note).unwrap();
    let deep = [
        "03_DOMAINS/a",
        "03_DOMAINS/a/b",
        "03_DOMAINS/a/b/c",
        "03_DOMAINS/a/b/c/Deep.md",
    ];
    changed(&mut app, &deep);
    let s = status(&app);
    assert!(s.contains("reloaded 03_DOMAINS/a/b/c/Deep.md"), "{s}");
    // Two notes: two files, whatever the folders.
    std::fs::write(root.join("03_DOMAINS/a/b/Two.md"), note).unwrap();
    std::fs::write(root.join("03_DOMAINS/a/Three.md"), note).unwrap();
    changed(
        &mut app,
        &[
            "03_DOMAINS/a",
            "03_DOMAINS/a/b/Two.md",
            "03_DOMAINS/a/Three.md",
        ],
    );
    let s = status(&app);
    assert!(s.contains("reloaded 2 files"), "{s}");
    // A deleted note is said to be deleted, not reloaded.
    std::fs::remove_file(root.join("03_DOMAINS/a/Three.md")).unwrap();
    changed(&mut app, &["03_DOMAINS/a/Three.md"]);
    let s = status(&app);
    assert!(s.contains("deleted 03_DOMAINS/a/Three.md"), "{s}");
    // The whole folder deleted: its two notes, not its folders too.
    std::fs::remove_dir_all(root.join("03_DOMAINS/a")).unwrap();
    changed(&mut app, &deep);
    let s = status(&app);
    assert!(s.contains("deleted 2 files"), "{s}");
    assert!(!s.contains("reloaded"), "{s}");
    // A folder moved in whole, named alone: the note in it.
    std::fs::create_dir_all(root.join("04_STYLE/moved")).unwrap();
    std::fs::write(root.join("04_STYLE/moved/In.md"), note).unwrap();
    changed(&mut app, &["04_STYLE/moved"]);
    let s = status(&app);
    assert!(s.contains("reloaded 04_STYLE/moved/In.md"), "{s}");
}
