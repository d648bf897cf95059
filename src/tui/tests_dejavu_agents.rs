//! The Agents pane on a Deja Vu project, against a local fake provider:
//! the chat sends the records recall selects (never private ones), and the
//! writeback's proposals are checked and reviewed per file before anything
//! is written.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use membank_core::memory;
use membank_llm::testing::{FakeReply, FakeServer};
use membank_llm::{JobEvent, JobId, LlmError, StreamEvent, WorkerMessage};
use ratatui::crossterm::event::KeyCode;
use ratatui::layout::Rect;

use super::app::{App, Msg, Pane};
use super::keys::KeyMap;
use super::panes::agents::AgentKind;
use super::panes::agents::review::Proposal;
use super::tests::{copy_dir, key, keys, screen};
use super::tests_agents::{connect, is_done, pump_until};
use super::theme::Theme;
use super::update::update;

const PRIVATE_LINE: &str = r#"{"schema_version":1,"id":"private-sync","scope":"project:quillnote","title":"Settings sync","keywords":["settings","sync"],"record_path":"memory/private/sync-notes.md","updated":"2026-05-16","weight":1,"status":"active"}"#;

/// A copy of the Deja Vu demo two folders down in a temporary folder (so a
/// path escaping it by `../../` still lands inside the temporary folder),
/// with a private record that recall routes the settings cue to.
fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("work/quillnote");
    std::fs::create_dir_all(&root).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("demo-dejavu"),
        &root,
    );
    std::fs::create_dir_all(root.join("memory/private")).unwrap();
    std::fs::write(
        root.join("memory/private/sync-notes.md"),
        "secret sync plan\n",
    )
    .unwrap();
    let impressions = root.join("memory/impressions.jsonl");
    let mut text = std::fs::read_to_string(&impressions).unwrap();
    text.push_str(PRIVATE_LINE);
    text.push('\n');
    std::fs::write(&impressions, text).unwrap();
    (dir, root)
}

fn open(root: &Path, w: u16, h: u16) -> App {
    let mut app = App::new(
        memory::open(root, None).unwrap(),
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, w, h),
        crate::tui::TESTS_CLOCK,
    );
    // The absolute path differs between machines; snapshots show a fixed one.
    app.bank_label = "quillnote".into();
    app.status.bank = app.bank_label.clone();
    app
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

#[test]
fn the_deja_vu_chat_sends_what_recall_selects_and_withholds_private_memory() {
    let (_dir, root) = demo_copy();
    let server = FakeServer::start([FakeReply::openai_stream(&[
        "Settings sync stays **server-backed** ",
        "(see `memory/decisions/settings-sync.md`).\x1b[2J\x07",
    ])]);
    let mut app = open(&root, 100, 30);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a");
    assert_eq!(app.panes.agents.offered, AgentKind::DEJAVU);
    assert!(screen(&app).contains("1 Chat 2 Writeback"));
    keys(&mut app, "1i");
    keys(&mut app, "settings sync?");
    key(&mut app, KeyCode::Enter);
    pump_until(&mut app, &replies, is_done);

    let s = screen(&app);
    assert_snapshot!(s);
    assert!(!s.contains('\x1b') && !s.contains('\x07'), "{s}");
    assert!(
        s.contains("recall strong 1: 1 record sent, 1 withheld"),
        "{s}"
    );
    assert!(s.contains("memory/private/sync-notes.md"), "{s}");

    // The question is the cue; the context is the selected record, whole.
    let request = server.requests()[0].json();
    let system = request["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        system.contains("### FILE: memory/decisions/settings-sync.md"),
        "{system}"
    );
    assert!(system.contains("Preferences live on the server"));
    assert!(
        !system.contains("secret sync plan") && !system.contains("memory/private"),
        "private memory never reaches the model"
    );
    assert_eq!(request["messages"][1]["content"], "settings sync?");

    // Enter opens the sent record in the Article pane.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("memory/decisions/settings-sync.md")
    );
}

fn decision(id: &str, title: &str) -> String {
    format!(
        "---\nid: {id}\ntitle: {title}\nstatus: active\nscope: project:quillnote\nupdated: \
         2026-11-23\n---\n\n# {title}\n\n## Date\n\n2026-11-23\n\n## Decision\n\nCache opened \
         notes in IndexedDB.\n\n## Rationale\n\nNotes must open offline.\n\n## Consequences\n\n\
         The cache is cleared on sign-out.\n\n## Related records\n\n- [Summary](../summary.md)\n"
    )
}

const CACHE_LINE: &str = r#"{"schema_version":1,"id":"decision-offline-cache","scope":"project:quillnote","title":"Cache notes for offline use","keywords":["offline","cache","indexeddb","startup"],"record_path":"memory/decisions/offline-cache.md","updated":"2026-11-23","weight":0.8,"status":"active"}"#;

fn writeback_reply(root: &Path) -> String {
    let open_loop = read(root, "memory/open-loops/settings-migration.md")
        .unwrap()
        .replace(
            "map every legacy name to its new key.",
            "map every legacy name to its new key; the theme names are done.",
        );
    format!(
        "One decision, its route, and the open loop moved on.\n\
         ### FILE: memory/decisions/offline-cache.md\n{}\
         ### FILE: memory/impressions.jsonl\n{CACHE_LINE}\n\
         ### FILE: memory/open-loops/settings-migration.md\n{open_loop}",
        decision("decision-offline-cache", "Cache notes for offline use")
    )
}

/// Open the Writeback agent, type notes and send them.
fn write_back(app: &mut App, notes: &str) {
    keys(app, "a2i");
    keys(app, notes);
    key(app, KeyCode::Esc);
    keys(app, "r");
}

#[test]
fn writeback_proposals_are_reviewed_and_only_accepted_ones_written() {
    let (_dir, root) = demo_copy();
    let server = FakeServer::start([FakeReply::openai_stream(&[&writeback_reply(&root)])]);
    let mut app = open(&root, 100, 30);
    let replies = connect(&mut app, &server);
    let impressions_before = std::fs::read(root.join("memory/impressions.jsonl")).unwrap();
    let loop_before = read(&root, "memory/open-loops/settings-migration.md");

    write_back(&mut app, "We now cache notes offline in IndexedDB.");
    pump_until(&mut app, &replies, is_done);
    // The notes went, with the project's records; never the private one.
    let sent = server.requests()[0].json()["messages"][1]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(sent.contains("We now cache notes offline in IndexedDB."));
    assert!(sent.contains("----- memory/summary.md -----"));
    assert!(!sent.contains("secret sync plan"));
    // Nothing is written before the user confirms.
    assert!(read(&root, "memory/decisions/offline-cache.md").is_none());
    let review = app.panes.agents.writeback.review.as_ref().unwrap();
    let proposals: Vec<_> = review.blocks.iter().map(|b| b.proposal.clone()).collect();
    assert_eq!(
        proposals,
        [Proposal::New, Proposal::Changed, Proposal::Changed],
        "{:?}",
        review.blocks
    );
    let s = screen(&app);
    assert_snapshot!(s);

    // Decline the open loop (the third entry), then write.
    keys(&mut app, "jj ");
    let review = app.panes.agents.writeback.review.as_ref().unwrap();
    let accepted: Vec<bool> = review.blocks.iter().map(|b| b.accepted).collect();
    assert_eq!(accepted, [true, true, false]);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));

    assert_eq!(
        read(&root, "memory/decisions/offline-cache.md").as_deref(),
        Some(decision("decision-offline-cache", "Cache notes for offline use").as_str())
    );
    assert_eq!(
        read(&root, "memory/open-loops/settings-migration.md"),
        loop_before,
        "the declined file is untouched"
    );
    // The route is appended after the file's bytes, which stay as they were.
    let after = std::fs::read(root.join("memory/impressions.jsonl")).unwrap();
    assert_eq!(after[..impressions_before.len()], impressions_before[..]);
    assert_eq!(
        &after[impressions_before.len()..],
        format!("{CACHE_LINE}\n").as_bytes()
    );
    let s = screen(&app);
    assert!(s.contains("Applied:"), "{s}");
    // Written files say so; the declined one is said to be declined.
    assert!(
        s.contains("declined   memory/open-loops/settings-migration.md"),
        "{s}"
    );
    assert!(
        s.contains("written    memory/decisions/offline-cache.md"),
        "{s}"
    );
    assert!(!s.contains("rejected"), "{s}");
    // The project was read again: the new record is in the tree.
    assert!(
        app.memory
            .find("memory/decisions/offline-cache.md")
            .is_some()
    );
}

#[test]
fn a_hostile_writeback_reply_is_refused_and_shown_harmless() {
    let (dir, root) = demo_copy();
    let reply = format!(
        "Sure.\x1b]52;c;cHduZWQ=\x07 Here you go.\n\
         ### FILE: ../../etc/x\nescaped\n\
         ### FILE: memory/private/leak.md\n{}\
         ### FILE: memory/decisions/bell\x07.md\n{}\
         ### FILE: memory/context/terminal.md\n---\nid: context-terminal\ntitle: Terminal\n\
         status: active\nscope: project:quillnote\nupdated: 2026-11-23\n---\n\n# Terminal\x1b[2J\n",
        decision("decision-leak", "Leak"),
        decision("decision-bell", "Bell"),
    );
    let server = FakeServer::start([FakeReply::openai_stream(&[&reply])]);
    let mut app = open(&root, 100, 30);
    let replies = connect(&mut app, &server);
    write_back(&mut app, "notes");
    pump_until(&mut app, &replies, is_done);

    let review = app.panes.agents.writeback.review.as_ref().unwrap();
    let rejected = |i: usize| matches!(review.blocks[i].proposal, Proposal::Rejected(_));
    assert!(rejected(0) && rejected(1), "{:?}", review.blocks);
    let s = screen(&app);
    assert_snapshot!(s);
    for c in ['\x1b', '\x07'] {
        assert!(!s.contains(c), "{c:?} reached the screen: {s}");
    }
    // Accept everything that may be accepted and write: the escape and the
    // private path are never written, whatever the user does.
    keys(&mut app, "A");
    key(&mut app, KeyCode::Enter);
    assert!(!dir.path().join("etc/x").exists());
    assert!(!root.join("memory/private/leak.md").exists());
    for c in ['\x1b', '\x07'] {
        assert!(!screen(&app).contains(c));
    }
}

#[test]
fn without_a_model_the_deja_vu_agents_say_how_to_configure_one() {
    let (_dir, root) = demo_copy();
    let mut app = open(&root, 100, 30);
    keys(&mut app, "a");
    // What the configuration check sends when no model is configured.
    update(
        &mut app,
        Msg::Llm(WorkerMessage {
            job: JobId(1),
            event: JobEvent::Stream(StreamEvent::Error(LlmError::Config(
                "no provider is configured".into(),
            ))),
        }),
    );
    let s = screen(&app);
    assert!(s.contains("No model can be used"), "{s}");
    assert!(s.contains("MEMBANK_PROVIDER"), "{s}");
    assert!(s.contains("1 Chat 2 Writeback"), "{s}");
    // The rest of the interface keeps working.
    keys(&mut app, "2");
    assert_eq!(app.panes.agents.kind, AgentKind::Writeback);
}

#[test]
fn the_result_of_a_long_writeback_scrolls_to_its_last_line() {
    let (_dir, root) = demo_copy();
    let mut reply = writeback_reply(&root);
    for i in 0..40 {
        reply.push_str(&format!("### FILE: src/f{i:02}.rs\nfn main() {{}}\n"));
    }
    let server = FakeServer::start([FakeReply::openai_stream(&[&reply])]);
    let mut app = open(&root, 100, 30);
    let replies = connect(&mut app, &server);
    write_back(&mut app, "We now cache notes offline in IndexedDB.");
    pump_until(&mut app, &replies, is_done);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));
    let s = screen(&app);
    assert!(s.contains("Applied:"), "{s}");
    assert!(s.contains("memory/decisions/offline-cache.md"), "{s}");
    assert!(!s.contains("src/f39.rs"), "{s}");
    // End shows the last rejected block; PgUp and Home go back up.
    key(&mut app, KeyCode::End);
    let s = screen(&app);
    assert!(s.contains("src/f39.rs"), "{s}");
    assert!(!s.contains("memory/decisions/offline-cache.md"), "{s}");
    key(&mut app, KeyCode::PageUp);
    assert!(!screen(&app).contains("src/f39.rs"));
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Home);
    let s = screen(&app);
    assert!(s.contains("memory/decisions/offline-cache.md"), "{s}");
}
