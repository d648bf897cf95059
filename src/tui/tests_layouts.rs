//! Every layout in the same panes: an everos memory root and a Deja Vu
//! project drawn into a `TestBackend` after key presses.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use membank_core::dejavu::FEEDBACK_PATH;
use membank_core::dejavu::recall::Level;
use membank_core::memory;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::app::{App, Effect, Msg, Pane, Popup};
use super::keys::KeyMap;
use super::panes::slot::Slot;
use super::tests::{copy_dir, key, keys, screen, select_in_tree};
use super::theme::Theme;
use super::update::update;

pub(super) fn manifest(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn open(root: &Path, label: &str, w: u16, h: u16) -> App {
    let memory = memory::open(root, None).unwrap();
    let mut app = App::new(
        memory,
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, w, h),
        crate::tui::TESTS_CLOCK,
    );
    // The absolute path differs between machines; snapshots show a fixed one.
    app.bank_label = label.into();
    app.status.bank = app.bank_label.clone();
    app
}

fn everos(w: u16, h: u16) -> App {
    open(&manifest("demo-everos"), "demo-everos", w, h)
}

fn dejavu(w: u16, h: u16) -> App {
    open(&manifest("demo-dejavu"), "demo-dejavu", w, h)
}

fn ctrl(app: &mut App, c: char) {
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)),
    );
}

const EPISODE: &str = "default_app/support-bot/users/dmitri.k/episodes/episode-2026-06-01.md";

#[test]
fn everos_tree_nests_scopes_owners_and_kinds_with_entry_counts() {
    let app = everos(100, 30);
    assert_eq!(app.panes.slot, Slot::Search);
    let labels: Vec<String> = app
        .panes
        .bank
        .rows
        .iter()
        .map(|r| r.label().into_owned())
        .collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    // Default scopes read "default"; hidden kind folders are memory here.
    assert!(labels.contains(&"default"), "{labels:?}");
    assert!(
        !labels.iter().any(|l| l.starts_with("default_")),
        "{labels:?}"
    );
    assert!(labels.contains(&".atomic_facts"), "{labels:?}");
    assert!(
        !labels
            .iter()
            .any(|l| l.starts_with(".index") || l.starts_with(".tmp"))
    );
    assert_snapshot!(screen(&app));
}

#[test]
fn each_layout_names_its_own_documents_and_itself() {
    use super::panes::Component;
    let mut app = everos(120, 30);
    let s = screen(&app);
    assert!(s.contains("Select a file in the tree"), "{s}");
    app.open_article(EPISODE);
    let hints = app.panes.article.hints(&app.keymap);
    assert!(hints.starts_with("n entry ·"), "{hints}");
    key(&mut app, KeyCode::Char('?'));
    let s = screen(&app);
    assert!(s.contains("· everos memory root"), "{s}");
    assert!(!s.contains("Memory Bank Format"), "{s}");

    let mut app = dejavu(120, 30);
    let s = screen(&app);
    assert!(s.contains("Select a record in the tree"), "{s}");
    key(&mut app, KeyCode::Char('?'));
    let s = screen(&app);
    assert!(s.contains("· Deja Vu project"), "{s}");
    assert!(!s.contains("Memory Bank Format"), "{s}");
}

#[test]
fn everos_daily_log_lists_its_entries_and_opens_one() {
    let mut app = everos(120, 30);
    app.open_article(EPISODE);
    assert_eq!(app.focus, Pane::Article);
    let s = screen(&app);
    assert!(s.contains("Entries (2)"), "{s}");
    assert!(s.contains("ep_20260601_00000001  07:01  API keys"), "{s}");
    assert_snapshot!("everos_entry_list", s);
    // Select the first entry, open it, and copy its id.
    keys(&mut app, "n");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.entry.as_ref().map(|e| e.id.as_str()),
        Some("ep_20260601_00000001")
    );
    assert_snapshot!("everos_entry_view", screen(&app));
    // The line shown is the open marker's, as `entries --json` names it.
    let root = membank_core::everos::load(manifest("demo-everos")).unwrap();
    let file = root.file(EPISODE).unwrap();
    let marker = file.entries[0].line;
    assert!(
        screen(&app).contains(&format!("entry ep_20260601_00000001 · line {marker} ")),
        "line {marker}:\n{}",
        screen(&app)
    );
    keys(&mut app, "y");
    assert!(
        app.effects
            .contains(&Effect::Copy("ep_20260601_00000001".into())),
        "{:?}",
        app.effects
    );
    // Back returns to the list.
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.panes.article.entry, None);
    assert!(screen(&app).contains("Entries (2)"));
}

#[test]
fn everos_search_jumps_to_the_entry_of_a_hit() {
    let mut app = everos(120, 30);
    ctrl(&mut app, 'f');
    assert_eq!(app.focus, Pane::Context);
    keys(&mut app, "API keys");
    key(&mut app, KeyCode::Enter);
    let hits = &app.panes.search.hits;
    assert!(!hits.is_empty());
    assert!(
        hits.iter()
            .all(|h| h.entry_id.is_some() || !h.path.contains("episodes/"))
    );
    let s = screen(&app);
    assert!(s.contains("keyword search like everos"), "{s}");
    assert_snapshot!("everos_search", s);
    let first = app.panes.search.hits[0].clone();
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert_eq!(app.panes.article.rel.as_deref(), Some(first.path.as_str()));
    assert_eq!(
        app.panes.article.entry.as_ref().map(|e| e.id.clone()),
        first.entry_id
    );
}

/// Two entries of one log that share an id (`everos-duplicate-entry-id`)
/// are both listed; each opens as itself, from the list and from a
/// search hit, under the line of its own open marker.
#[test]
fn entries_sharing_an_id_each_open_as_themselves() {
    let tmp = tempfile::tempdir().unwrap();
    let rel = "default_app/default_project/users/u/episodes/episode-2026-06-01.md";
    let path = tmp.path().join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(tmp.path().join("ome.toml"), "").unwrap();
    let id = "ep_20260601_00000001";
    std::fs::write(
        &path,
        format!(
            "---\nid: episode_log_u_2026-06-01\ntype: episode_daily\nschema_version: 1\n\
             user_id: u\ntrack: user\ndate: '2026-06-01'\nentry_count: 2\n---\n\
             <!-- entry:{id} -->\nfirst text\n<!-- /entry:{id} -->\n\
             <!-- entry:{id} -->\nsecond text zebra\n<!-- /entry:{id} -->\n"
        ),
    )
    .unwrap();
    let mut app = open(tmp.path(), "dup", 120, 30);
    app.open_article(rel);
    assert!(screen(&app).contains("Entries (2)"), "{}", screen(&app));
    keys(&mut app, "nn");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains(&format!("entry {id} · line 13")), "{s}");
    assert!(s.contains("second text zebra"), "{s}");
    assert!(!s.contains("first text"), "{s}");
    // The first is still the first.
    key(&mut app, KeyCode::Backspace);
    keys(&mut app, "n");
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains(&format!("entry {id} · line 10")), "{s}");
    assert!(s.contains("first text"), "{s}");
    // A search hit in the second opens the second.
    let (tx, rx) = std::sync::mpsc::channel();
    app.send_background_results_to(move |m| {
        let _ = tx.send(m);
    });
    ctrl(&mut app, 'f');
    keys(&mut app, "zebra");
    key(&mut app, KeyCode::Enter);
    if app.panes.search.hits.is_empty() {
        let indexed = rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .expect("the index arrives");
        update(&mut app, indexed);
    }
    assert_eq!(app.panes.search.hits.len(), 1);
    key(&mut app, KeyCode::Enter);
    let s = screen(&app);
    assert!(s.contains(&format!("entry {id} · line 13")), "{s}");
    assert!(s.contains("second text zebra"), "{s}");
}

#[test]
fn search_indexes_in_the_background_and_runs_the_query_typed_meanwhile() {
    let mut app = everos(120, 30);
    let (tx, rx) = std::sync::mpsc::channel();
    app.send_background_results_to(move |m| {
        let _ = tx.send(m);
    });
    ctrl(&mut app, 'f');
    keys(&mut app, "API keys");
    key(&mut app, KeyCode::Enter);
    // Enter returns before the index exists: the screen says so.
    assert!(app.panes.search.hits.is_empty());
    let s = screen(&app);
    assert!(s.contains("indexing…"), "{s}");
    let indexed = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the index arrives");
    assert!(matches!(indexed, Msg::SearchIndexed(_)));
    update(&mut app, indexed);
    assert!(!app.panes.search.hits.is_empty());
    let s = screen(&app);
    assert!(!s.contains("indexing…"), "{s}");
    assert!(s.contains("hits for “API keys”"), "{s}");
    // A new query in the open search, and the screen it gives.
    let search_again = |app: &mut App, query: &str| {
        key(app, KeyCode::Char('i'));
        ctrl(app, 'u');
        keys(app, query);
        key(app, KeyCode::Enter);
        screen(app)
    };
    // The index is kept: the next query runs at once.
    let s = search_again(&mut app, "xyzzy");
    assert!(s.contains("no hits for “xyzzy”"), "{s}");
    // A query no memory could match says so, not "no hits".
    let s = search_again(&mut app, "—?!");
    assert!(s.contains("“—?!” has no words to search for"), "{s}");
    // No second index was started: once the interface is gone, the channel
    // closes as soon as every worker holding it has ended, and none sends.
    drop(app);
    let after = rx.recv_timeout(std::time::Duration::from_secs(30));
    assert!(
        matches!(after, Err(std::sync::mpsc::RecvTimeoutError::Disconnected)),
        "{after:?}"
    );
}

#[test]
fn an_index_built_for_a_memory_since_changed_is_dropped() {
    let mut app = everos(120, 30);
    let (tx, rx) = std::sync::mpsc::channel();
    app.send_background_results_to(move |m| {
        let _ = tx.send(m);
    });
    ctrl(&mut app, 'f');
    keys(&mut app, "API keys");
    key(&mut app, KeyCode::Enter);
    let stale = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the index arrives");
    // A file changed while it was built: it no longer fits the memory.
    let rel = "default_app/default_project/users/u_alice/user.md";
    assert!(manifest("demo-everos").join(rel).is_file());
    update(&mut app, Msg::Edited(rel.into()));
    let reloaded = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the root is read again");
    update(&mut app, reloaded);
    update(&mut app, stale);
    assert!(app.panes.search.hits.is_empty());
    assert!(screen(&app).contains("indexing…"));
    // An index of the memory read again follows, and the query runs.
    let fresh = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("a new index arrives");
    update(&mut app, fresh);
    assert!(!app.panes.search.hits.is_empty());
}

#[test]
fn a_changed_everos_file_is_read_in_the_background_keeping_the_selection() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&manifest("demo-everos"), dir.path());
    let mut app = open(dir.path(), "demo-everos", 120, 30);
    let (tx, rx) = std::sync::mpsc::channel();
    app.send_background_results_to(move |m| {
        let _ = tx.send(m);
    });
    app.open_article(EPISODE);
    let selected = app.panes.bank.selected().map(|r| r.label().into_owned());
    let file = dir.path().join(EPISODE);
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("API keys", "Token rotation")).unwrap();
    update(&mut app, Msg::FilesChanged(vec![file]));
    // The interface did not read the root: the old text is still shown.
    assert!(screen(&app).contains("API keys"));
    let reloaded = rx
        .recv_timeout(std::time::Duration::from_secs(30))
        .expect("the root is read again");
    assert!(matches!(reloaded, Msg::Reloaded { .. }));
    update(&mut app, reloaded);
    let s = screen(&app);
    assert!(s.contains("Token rotation"), "{s}");
    assert!(s.contains("reloaded"), "{s}");
    assert_eq!(app.panes.article.rel.as_deref(), Some(EPISODE));
    assert_eq!(
        app.panes.bank.selected().map(|r| r.label().into_owned()),
        selected
    );
}

#[test]
fn health_findings_of_another_layout_jump_to_their_file() {
    let mut app = open(
        &manifest("tests/fixtures/dejavu/flawed-project"),
        "flawed-project",
        120,
        30,
    );
    assert!(!app.panes.health.rows.is_empty());
    for _ in 0..3 {
        key(&mut app, KeyCode::Tab);
    }
    assert_eq!(app.focus, Pane::Health);
    // Down to the first finding that names a file, then Enter.
    let target = app
        .panes
        .health
        .report
        .findings
        .iter()
        .find(|f| !f.path.is_empty() && app.memory.find(&f.path).is_some())
        .map(|f| f.path.to_string());
    let target = target.expect("the flawed project has findings on its files");
    while app.panes.health.selected_finding().map(|f| &*f.path) != Some(target.as_str()) {
        let before = app.panes.health.cursor.selected;
        key(&mut app, KeyCode::Down);
        assert_ne!(
            before, app.panes.health.cursor.selected,
            "finding not reached"
        );
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.article.rel.as_deref(), Some(target.as_str()));
}

#[test]
fn agents_say_they_work_on_banks_for_other_layouts() {
    let mut app = everos(100, 30);
    keys(&mut app, "a");
    assert_eq!(app.focus, Pane::Agents);
    keys(&mut app, "1r");
    let s = screen(&app);
    assert!(
        s.contains("The agents work on memory banks and Deja Vu projects."),
        "{s}"
    );
    assert!(s.contains("an everos memory root"), "{s}");
    // It names the panes on the tabs, not a bank's.
    assert!(s.contains("browse it in the Memory and File"), "{s}");
    assert!(!s.contains("Bank and"), "{s}");
    let tabs = s.lines().next().unwrap_or("");
    assert!(tabs.contains("Memory") && tabs.contains("File"), "{tabs}");
}

#[test]
fn dejavu_tree_groups_records_by_kind_with_badges() {
    let app = dejavu(100, 30);
    assert_eq!(app.panes.slot, Slot::Recall);
    let s = screen(&app);
    assert!(s.contains("[superseded]"), "{s}");
    assert_snapshot!(s);
}

#[test]
fn dejavu_links_are_followed_in_the_article_pane() {
    let mut app = dejavu(120, 30);
    app.open_article("memory/decisions/local-preferences.md");
    assert!(!app.panes.article.doc.links.is_empty());
    keys(&mut app, "n");
    key(&mut app, KeyCode::Enter);
    let followed = app.panes.article.rel.clone().unwrap();
    assert_ne!(followed, "memory/decisions/local-preferences.md");
    key(&mut app, KeyCode::Backspace);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("memory/decisions/local-preferences.md")
    );
}

#[test]
fn recall_pane_shows_a_strong_match_with_its_arithmetic() {
    let mut app = dejavu(100, 24);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Context);
    keys(&mut app, "i");
    keys(&mut app, "settings sync");
    assert_eq!(app.panes.recall.level(), Some(Level::Strong));
    let s = screen(&app);
    assert!(s.contains("0.975"), "{s}");
    // What a host would load and where each match leads wrap, never cut.
    assert!(
        s.matches("memory/decisions/settings-sync.md").count() >= 2,
        "{s}"
    );
    assert!(s.contains("memory/open-loops/settings-migration.md"), "{s}");
    assert_snapshot!(s);
}

#[test]
fn recall_scans_in_the_background_and_shows_only_the_latest_cue() {
    let typed = |app: &mut App| {
        key(app, KeyCode::Tab);
        key(app, KeyCode::Tab);
        keys(app, "i");
        keys(app, "offline vault");
    };
    // Without a channel back each scan runs at once: what should show.
    let mut at_once = dejavu(100, 24);
    typed(&mut at_once);
    let expected = screen(&at_once);
    assert_eq!(at_once.panes.recall.level(), Some(Level::Strong));

    let mut app = dejavu(100, 24);
    let (tx, rx) = std::sync::mpsc::channel();
    app.send_background_results_to(move |m| {
        let _ = tx.send(m);
    });
    let before = app.panes.recall.level();
    typed(&mut app);
    // The keys returned before any scan did: the cue shows as typed, the
    // result of before stays until its scan arrives.
    assert!(app.panes.recall.is_scanning());
    assert_eq!(app.panes.recall.level(), before);
    assert!(screen(&app).contains("cue › offline vault"));
    let next = || {
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("the scan reports back")
    };
    // One scan at a time: the first key's, which is stale when it arrives
    // and is not shown; then one of the cue as it is now.
    let first = next();
    assert!(matches!(first, Msg::Recalled { .. }), "{first:?}");
    update(&mut app, first);
    assert_eq!(app.panes.recall.level(), before);
    assert!(app.panes.recall.is_scanning(), "the latest cue is scanned");
    let latest = next();
    assert!(matches!(latest, Msg::Recalled { .. }), "{latest:?}");
    update(&mut app, latest);
    assert!(!app.panes.recall.is_scanning());
    assert_eq!(app.panes.recall.level(), Some(Level::Strong));
    assert_eq!(screen(&app), expected);
    assert!(
        rx.try_recv().is_err(),
        "no other scan was started for the keys typed"
    );
}

#[test]
fn recall_pane_updates_as_the_cue_is_typed() {
    let mut app = dejavu(100, 24);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    keys(&mut app, "i");
    let cue = "Continue the settings refactor.";
    keys(&mut app, cue);
    assert_eq!(app.panes.recall.level(), Some(Level::None));
    assert!(screen(&app).contains("0.2437"));
    assert_snapshot!(screen(&app));
    for _ in 0..cue.len() {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "offline vault");
    assert_eq!(app.panes.recall.level(), Some(Level::Strong));
    assert_eq!(
        app.panes.recall.would_load(),
        vec!["memory/context/project-context.md".to_owned()]
    );
    // Enter leaves the cue; Enter again opens the best match's record.
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert!(app.panes.article.rel.is_some());
}

#[test]
fn recall_feedback_is_saved_for_the_cue_just_tried() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&manifest("demo-dejavu"), tmp.path());
    let mut app = open(tmp.path(), "p", 100, 24);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    keys(&mut app, "i");
    keys(&mut app, "settings sync");
    ctrl(&mut app, 'o');
    ctrl(&mut app, 'f');
    let text = std::fs::read_to_string(tmp.path().join(FEEDBACK_PATH)).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.contains(
            r#""query":"settings sync","matched_id":"decision-settings-sync","outcome":"irrelevant""#
        ),
        "{last}"
    );
    let message = app.status.message.clone().unwrap().0;
    assert!(message.starts_with("appended"), "{message}");
    // The project it read is the one it wrote to.
    assert!(crate::layouts::project(&*app.memory).is_some());
    // The watcher reports the same write (with the append's temporary
    // file): read again, but the confirmation stays.
    let written = tmp.path().join(FEEDBACK_PATH);
    let temporary = tmp
        .path()
        .join(FEEDBACK_PATH)
        .with_file_name(".membank-aZ09xYq1.tmp");
    update(&mut app, Msg::FilesChanged(vec![written, temporary]));
    let message = app.status.message.clone().unwrap().0;
    assert!(message.starts_with("appended"), "{message}");
    // A change made elsewhere is still news.
    let other = "memory/decisions/settings-sync.md";
    update(&mut app, Msg::FilesChanged(vec![tmp.path().join(other)]));
    let message = app.status.message.clone().unwrap().0;
    assert_eq!(message, format!("reloaded {other}"));
}

#[test]
fn recall_feedback_is_not_saved_while_another_run_changes_the_project() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&manifest("demo-dejavu"), tmp.path());
    let before = std::fs::read(tmp.path().join(FEEDBACK_PATH)).unwrap();
    let mut app = open(tmp.path(), "p", 100, 24);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    keys(&mut app, "i");
    keys(&mut app, "settings sync");
    let held = membank_core::lock::BankLock::try_acquire(tmp.path()).unwrap();
    ctrl(&mut app, 'f');
    let message = app.status.message.clone().unwrap().0;
    assert!(
        message.contains("feedback not saved") && message.contains("changing this project"),
        "{message}"
    );
    assert_eq!(
        std::fs::read(tmp.path().join(FEEDBACK_PATH)).unwrap(),
        before
    );
    drop(held);
}

#[test]
fn search_opens_as_a_popup_over_a_bank_and_jumps_to_the_line() {
    let mut app = super::tests::app_at(&super::tests::fixture(), 100, 30);
    ctrl(&mut app, 'f');
    assert!(matches!(app.popup, Some(Popup::Search)));
    keys(&mut app, "acme");
    // While typing, Esc leaves the input; the border does not also say it closes.
    let typing = screen(&app);
    assert!(typing.contains("Esc done"), "{typing}");
    assert!(!typing.contains("Esc close"), "{typing}");
    key(&mut app, KeyCode::Enter);
    assert!(!app.panes.search.hits.is_empty());
    assert_snapshot!(screen(&app));
    let hit = app.panes.search.hits[0].clone();
    key(&mut app, KeyCode::Enter);
    assert!(app.popup.is_none());
    assert_eq!(app.panes.article.rel.as_deref(), Some(hit.path.as_str()));
    // Esc closes it without choosing.
    ctrl(&mut app, 'f');
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

#[test]
fn every_layout_loads_in_the_background_behind_a_progress_line() {
    for (root, spec) in [
        (manifest("demo-everos"), &membank_core::everos::LAYOUT),
        (manifest("demo-dejavu"), &membank_core::dejavu::LAYOUT),
    ] {
        let placeholder = super::unread::Unread::new(spec, root.clone());
        let mut app = App::new(
            Box::new(placeholder),
            Theme::default_theme(),
            KeyMap::default(),
            Rect::new(0, 0, 100, 30),
            crate::tui::TESTS_CLOCK,
        );
        key(&mut app, KeyCode::Down);
        update(&mut app, Msg::Loading(7));
        assert!(screen(&app).contains("reading the "), "{}", screen(&app));
        assert!(app.panes.bank.rows.is_empty());
        let files_read = std::sync::atomic::AtomicUsize::new(0);
        let loaded = (spec.open_counting)(&root, &files_read).map_err(|e| e.to_string());
        update(&mut app, Msg::Loaded(Box::new(loaded.map(Into::into))));
        let n = app.memory.len();
        assert!(n > 0);
        assert!(files_read.load(std::sync::atomic::Ordering::Relaxed) > 0);
        let s = screen(&app);
        assert!(s.contains(&format!("{n} files")), "{s}");
        assert!(!s.contains("reading the "), "the progress goes: {s}");
        assert!(!app.panes.bank.rows.is_empty(), "the tree fills in");
    }
}

#[test]
fn a_change_in_a_hidden_kind_folder_is_read_again_but_not_one_in_the_index() {
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&manifest("demo-everos"), tmp.path());
    let mut app = open(tmp.path(), "copy", 100, 30);
    let facts = "default_app/support-bot/users/dmitri.k/.atomic_facts/atomic_fact-2026-06-02.md";
    let before = app.memory.entries(app.memory.find(facts).unwrap()).len();
    let path = tmp.path().join(facts);
    let text = std::fs::read_to_string(&path).unwrap();
    let id = "af_20260602_00000099";
    std::fs::write(
        &path,
        format!("{text}<!-- entry:{id} -->\nA fact added later.\n<!-- /entry:{id} -->\n"),
    )
    .unwrap();
    std::fs::create_dir_all(tmp.path().join(".index")).unwrap();
    let index = tmp.path().join(".index/memory.db");
    std::fs::write(&index, b"sqlite").unwrap();
    update(&mut app, Msg::FilesChanged(vec![index]));
    assert_eq!(
        app.memory.entries(app.memory.find(facts).unwrap()).len(),
        before,
        "a change in .index/ is not memory"
    );
    update(&mut app, Msg::FilesChanged(vec![path]));
    assert_eq!(
        app.memory.entries(app.memory.find(facts).unwrap()).len(),
        before + 1
    );
}

/// Help on a Deja Vu project speaks of its tree and records, leaves out the
/// keys that make bank articles, and lists `/` once, where it applies.
#[test]
fn dejavu_help_uses_the_projects_words_and_lists_each_key_once() {
    let mut app = dejavu(100, 60);
    app.focus_pane(Pane::Article);
    keys(&mut app, "?");
    let shown = screen(&app);
    assert!(shown.contains("back to the project tree"), "{shown}");
    assert!(shown.contains("search in the record"), "{shown}");
    for bank_words in ["bank tree", "wikilink", "create the articles", "an article"] {
        assert!(!shown.contains(bank_words), "{bank_words}: {shown}");
    }
    // `/` searches the record here; the finder is still on Ctrl-P.
    let finder = shown.lines().find(|l| l.contains("fuzzy-find")).unwrap();
    assert!(finder.contains("  Ctrl-P, Ctrl-F"), "{finder}");
    assert!(finder.contains("fuzzy-find a record"), "{finder}");
}

/// A Deja Vu kind's folder groups records: `r` on it says to pick a
/// record, rather than offering to rename an internal key (it showed as
/// "␁decisions").
#[test]
fn r_on_a_dejavu_kind_folder_asks_for_a_record_and_shows_no_internal_name() {
    let mut app = dejavu(100, 30);
    app.focus_pane(Pane::Bank);
    select_in_tree(&mut app, "decisions");
    key(&mut app, KeyCode::Char('r'));
    assert!(app.popup.is_none());
    let shown = screen(&app);
    assert!(
        shown.contains("select a file in the tree to rename it"),
        "{shown}"
    );
    assert!(
        !shown.contains('\u{2401}') && !shown.contains('\u{1}'),
        "{shown}"
    );
}

/// Keys that need a file say so on a folder; `y` copies a bank folder's
/// own path.
#[test]
fn file_keys_on_a_folder_row_say_what_they_need_and_y_copies_a_bank_folder() {
    let mut app = open(&manifest("demo-bank"), "demo-bank", 100, 30);
    app.focus_pane(Pane::Bank);
    select_in_tree(&mut app, "03_DOMAINS");
    let said = |app: &App| app.status.message.clone().map(|m| m.0).unwrap_or_default();
    key(&mut app, KeyCode::Char('e'));
    assert_eq!(said(&app), "select a file in the tree to edit it");
    key(&mut app, KeyCode::Char('Y'));
    assert_eq!(said(&app), "select a file in the tree to copy a link to it");
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(said(&app), "copied 03_DOMAINS");
    let mut dv = dejavu(100, 30);
    dv.focus_pane(Pane::Bank);
    select_in_tree(&mut dv, "decisions");
    key(&mut dv, KeyCode::Char('y'));
    assert_eq!(said(&dv), "select a file in the tree to copy its path");
}
