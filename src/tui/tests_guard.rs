//! Keys that could cost money or lose work, driven through `update`
//! against a local fake provider: the quit question, letters typed outside
//! an agent's input, the questions before sending inbox notes and before
//! deciding several files, and notes held back from Process Inbox.

use insta::assert_snapshot;
use membank_llm::testing::{FakeReply, FakeServer};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Effect, Msg, Popup};
use super::tests::{app_at, copy_dir, fixture, key, keys, screen};
use super::tests_agents::{connect, is_done, pump_until};
use super::update::update;

/// Two proposed files for the one fixture inbox note.
const TWO_FILES: &str = "### FILE: 02_TERMINOLOGY/audit → audit.md
---
term_source: audit
---
# audit → audit
### FILE: 03_DOMAINS/Legal.md
---
domain: Legal
---
# Legal

Contracts use \"naleving\".
";

fn bank_copy() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bank");
    std::fs::create_dir_all(&root).unwrap();
    copy_dir(&fixture(), &root);
    (dir, root)
}

fn quits(app: &App) -> bool {
    app.effects.contains(&Effect::Quit)
}

fn ctrl_c(app: &mut App) {
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
    );
}

/// Process Inbox up to its review of `TWO_FILES`, both accepted.
fn reviewing(w: u16, h: u16) -> (tempfile::TempDir, std::path::PathBuf, App, FakeServer) {
    let (dir, root) = bank_copy();
    let server = FakeServer::start([FakeReply::openai_stream(&[TWO_FILES])]);
    let mut app = app_at(&root, w, h);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a2ry");
    pump_until(&mut app, &replies, is_done);
    assert!(app.panes.agents.inbox.review.is_some());
    (dir, root, app, server)
}

#[test]
fn quitting_with_accepted_files_unwritten_asks_first() {
    let (_dir, root, mut app, _server) = reviewing(80, 24);
    key(&mut app, KeyCode::Char('q'));
    assert!(!quits(&app), "q asks first");
    let s = screen(&app);
    assert_snapshot!("quit_question_at_80x24", s);
    assert!(
        s.contains("2 accepted files not written — quit anyway? y/N"),
        "{s}"
    );
    // No (or any key but y) goes back to the review, which is intact.
    key(&mut app, KeyCode::Char('N'));
    assert!(app.popup.is_none() && !quits(&app));
    assert_eq!(
        app.panes.agents.inbox.review.as_ref().unwrap().accepted(),
        2
    );
    assert!(root.join("00_INBOX/call notes.md").exists());
    // Ctrl-C asks too; a second Ctrl-C is the answer.
    ctrl_c(&mut app);
    assert!(matches!(app.popup, Some(Popup::Confirm(_))) && !quits(&app));
    ctrl_c(&mut app);
    assert!(quits(&app));
    // And y quits, of course.
    app.effects.clear();
    key(&mut app, KeyCode::Char('q'));
    key(&mut app, KeyCode::Char('y'));
    assert!(quits(&app));
}

#[test]
fn the_quit_question_at_160x45_says_a_reply_is_arriving() {
    // The role event, one piece, then silence with the connection open.
    let reply = FakeReply::openai_stream(&["Half an answer, ", "never sent"])
        .split_pieces()
        .stall_after(4);
    let server = FakeServer::start([reply]);
    let mut app = app_at(&fixture(), 160, 45);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a1iWhat is Acme?");
    // The first Enter warns that the context is empty; the second sends.
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    pump_until(&mut app, &replies, |e| {
        matches!(e, membank_llm::StreamEvent::Delta(_))
    });
    assert!(app.panes.agents.busy());
    // The status line names the fake server's port, which changes per run.
    app.status.message = None;
    key(&mut app, KeyCode::Char('q'));
    assert!(!quits(&app));
    let s = screen(&app);
    assert_snapshot!("quit_question_at_160x45", s);
    assert!(
        s.contains("a reply is still arriving — quit anyway? y/N"),
        "{s}"
    );
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none() && !quits(&app));
    assert!(app.panes.agents.busy(), "the reply keeps arriving");
}

#[test]
fn without_anything_unwritten_q_quits_at_once() {
    let mut app = app_at(&fixture(), 80, 24);
    key(&mut app, KeyCode::Char('q'));
    assert!(quits(&app));
}

#[test]
fn letters_typed_outside_the_input_go_into_it_and_send_nothing() {
    let server = FakeServer::start([
        FakeReply::openai_stream(&["Hallo."]),
        FakeReply::openai_stream(&["Nochmal."]),
    ]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    // A question typed without `i` lands in the Query input.
    keys(&mut app, "a1hello there");
    assert!(app.panes.agents.editing);
    assert_eq!(app.panes.agents.query.input.lines(), ["hello there"]);
    key(&mut app, KeyCode::Esc);
    // `r` is a letter in a chat, never a send.
    keys(&mut app, "rephrase");
    assert_eq!(
        app.panes.agents.query.input.lines(),
        ["hello thererephrase"]
    );
    assert!(server.requests().is_empty());

    // Translate: `r` right after leaving the input sends, once.
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "4iHello");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('r'));
    pump_until(&mut app, &replies, is_done);
    assert_eq!(server.requests().len(), 1);
    // The user types on, thinking the input has the keyboard: the letters
    // go into it and nothing is sent again.
    keys(&mut app, "rather formal");
    assert_eq!(server.requests().len(), 1);
    assert!(app.panes.agents.editing);
    assert_eq!(
        app.panes.agents.translate.input.lines(),
        ["Hellorather formal"]
    );
    assert!(screen(&app).contains("Hellorather formal"));
}

/// The Agents pane's bottom border: its hints.
fn agents_hints(app: &App) -> String {
    let shown = screen(app);
    shown
        .lines()
        .rev()
        .find(|l| l.contains("└"))
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn the_hints_name_x_and_y_only_once_they_act() {
    let server = FakeServer::start([
        FakeReply::openai_stream(&["Hallo."]),
        FakeReply::openai_stream(&["Hoi."]),
    ]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    // No reply yet: `x` is a letter of the question, and no hint says
    // otherwise.
    keys(&mut app, "a1");
    assert!(!agents_hints(&app).contains("x new"), "{}", screen(&app));
    key(&mut app, KeyCode::Char('x'));
    assert_eq!(app.panes.agents.query.input.lines(), ["x"]);
    key(&mut app, KeyCode::Backspace);
    keys(&mut app, "hello");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    pump_until(&mut app, &replies, is_done);
    // A conversation to clear: the hint names `x`, and `x` clears it.
    assert!(agents_hints(&app).contains("x new"), "{}", screen(&app));
    key(&mut app, KeyCode::Char('x'));
    assert!(app.panes.agents.query.turns.is_empty());
    assert!(app.panes.agents.query.input.lines().concat().is_empty());

    // Translate: `y` copies once there is a translation to copy.
    keys(&mut app, "4");
    assert!(!agents_hints(&app).contains("y copy"), "{}", screen(&app));
    keys(&mut app, "iHello");
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('r'));
    pump_until(&mut app, &replies, is_done);
    assert!(agents_hints(&app).contains("y copy"), "{}", screen(&app));
}

#[test]
fn accept_all_and_decline_all_ask_when_several_files_change() {
    let (_dir, _root, mut app, _server) = reviewing(80, 24);
    let accepted = |app: &App| app.panes.agents.inbox.review.as_ref().unwrap().accepted();
    key(&mut app, KeyCode::Char('D'));
    assert!(screen(&app).contains("Decline all: 2 files? y/N"));
    assert_eq!(accepted(&app), 2, "nothing changes before the answer");
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(accepted(&app), 2);
    key(&mut app, KeyCode::Char('D'));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(accepted(&app), 0);
    key(&mut app, KeyCode::Char('A'));
    assert!(screen(&app).contains("Accept all: 2 files? y/N"));
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(accepted(&app), 2);
    // One file changing needs no question.
    key(&mut app, KeyCode::Char(' '));
    key(&mut app, KeyCode::Char('A'));
    assert!(app.popup.is_none());
    assert_eq!(accepted(&app), 2);
}

#[test]
fn process_inbox_sends_only_the_notes_left_selected() {
    let (_dir, root) = bank_copy();
    let held = "00_INBOX/private draft.md";
    std::fs::write(
        root.join(held),
        "# Private draft\n\nNot for the model: SECRET-PLAN.\n",
    )
    .unwrap();
    let server = FakeServer::start([FakeReply::openai_stream(&[TWO_FILES])]);
    let mut app = app_at(&root, 80, 24);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a2");
    let s = screen(&app);
    assert_snapshot!("inbox_notes_to_choose_at_80x24", s);
    assert!(s.contains("2 of 2 inbox notes selected"), "{s}");
    // The draft is second: Space there holds it back.
    assert_eq!(
        app.panes.agents.inbox.pending[0].path,
        "00_INBOX/call notes.md"
    );
    keys(&mut app, "j ");
    let s = screen(&app);
    assert!(s.contains("[ ] 00_INBOX/private draft.md"), "{s}");
    assert!(s.contains("[x] 00_INBOX/call notes.md"), "{s}");
    key(&mut app, KeyCode::Char('r'));
    let s = screen(&app);
    assert!(s.contains("Send 1 inbox note ("), "{s}");
    assert!(server.requests().is_empty(), "nothing before the answer");
    key(&mut app, KeyCode::Char('y'));
    pump_until(&mut app, &replies, is_done);
    let sent = server.requests()[0].json().to_string();
    assert!(sent.contains("call notes"), "the selected note goes");
    assert!(!sent.contains("SECRET-PLAN"), "the held-back note does not");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));
    assert!(root.join("02_TERMINOLOGY/audit → audit.md").exists());
    assert!(!root.join("00_INBOX/call notes.md").exists(), "archived");
    let draft = std::fs::read_to_string(root.join(held)).unwrap();
    assert!(!draft.contains("compiled_to"), "never stamped: {draft}");
}

#[test]
fn asking_again_over_an_unwritten_review_asks_first() {
    let (_dir, _root, mut app, server) = reviewing(80, 24);
    key(&mut app, KeyCode::Char('r'));
    let s = screen(&app);
    assert!(
        s.contains("Ask the model again and drop this review (2 files accepted"),
        "{s}"
    );
    key(&mut app, KeyCode::Esc);
    assert_eq!(server.requests().len(), 1, "nothing sent again");
    assert_eq!(
        app.panes.agents.inbox.review.as_ref().unwrap().accepted(),
        2
    );
}

#[test]
fn the_quit_question_closes_once_the_reply_has_arrived() {
    let reply = FakeReply::openai_stream(&["A whole ", "answer."]).split_pieces();
    let server = FakeServer::start([reply]);
    let mut app = app_at(&fixture(), 100, 30);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a1iWhat is Acme?");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    pump_until(&mut app, &replies, |e| {
        matches!(e, membank_llm::StreamEvent::Delta(_))
    });
    assert!(app.panes.agents.busy());
    key(&mut app, KeyCode::Char('q'));
    assert!(matches!(app.popup, Some(Popup::Confirm(_))));
    // The reply's last event: nothing follows it.
    pump_until(&mut app, &replies, is_done);
    assert!(!app.panes.agents.busy());
    // Nothing would be lost now: the question is gone, and q quits.
    assert!(app.popup.is_none(), "{}", screen(&app));
    assert!(!quits(&app));
    key(&mut app, KeyCode::Char('q'));
    assert!(quits(&app));
}
