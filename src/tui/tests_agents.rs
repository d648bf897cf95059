//! The Agents pane driven through `update`, against a local fake provider:
//! the chat, the UI staying usable while a reply streams, and the review
//! of proposed files.

use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use insta::assert_snapshot;
use membank_llm::testing::{FakeReply, FakeServer};
use membank_llm::{ApiKey, JobEvent, LlmClient, LlmConfig, Provider, StreamEvent, WorkerMessage};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Msg, Pane};
use super::panes::agents::stream::StreamState;
use super::panes::context::Field;
use super::tests::{app_at, bank_of, copy_dir, fixture, key, keys, screen};
use super::update::update;

pub(super) fn client_for(server: &FakeServer) -> LlmClient {
    let mut config = LlmConfig::for_provider(Provider::OpenAi);
    config.base_url = server.openai_base_url();
    config.model = "test-model".into();
    config.timeout = Duration::from_secs(20);
    LlmClient::with_key(config, Some(ApiKey::new("k"))).unwrap()
}

/// The app talks to the fake server; its model messages arrive on the
/// returned channel, as they would on the runner's event channel.
pub(super) fn connect(app: &mut App, server: &FakeServer) -> Receiver<WorkerMessage> {
    let (tx, rx) = mpsc::channel();
    let connection = &mut app.panes.agents.connection;
    connection.use_client(client_for(server));
    connection.set_sink(move |m| {
        let _ = tx.send(m);
    });
    rx
}

/// Feed model messages to the app until a stream event matches `stop`.
pub(super) fn pump_until(
    app: &mut App,
    replies: &Receiver<WorkerMessage>,
    mut stop: impl FnMut(&StreamEvent) -> bool,
) {
    loop {
        let msg = replies
            .recv_timeout(Duration::from_secs(20))
            .expect("the worker went quiet");
        let done = matches!(&msg.event, JobEvent::Stream(e) if stop(e));
        update(app, Msg::Llm(msg));
        if done {
            return;
        }
    }
}

pub(super) fn is_done(e: &StreamEvent) -> bool {
    matches!(e, StreamEvent::Done { .. })
}

fn ask(app: &mut App, question: &str) {
    key(app, KeyCode::Char('a'));
    key(app, KeyCode::Char('1'));
    key(app, KeyCode::Char('i'));
    keys(app, question);
    key(app, KeyCode::Enter);
}

/// `ask` with no query in Context: the warning about the empty context
/// comes first, and Enter again sends the question anyway.
pub(super) fn ask_anyway(app: &mut App, question: &str) {
    ask(app, question);
    let problem = app.panes.agents.problem.clone().unwrap_or_default();
    assert!(problem.contains("the context is empty"), "{problem}");
    key(app, KeyCode::Enter);
}

#[test]
fn chat_turn_shows_the_answer_and_opens_a_cited_article() {
    let server = FakeServer::start([FakeReply::openai_stream(&[
        "Use \"naleving\" for compliance, ",
        "as [[compliance → naleving]] says.\x1b[2J",
    ])]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    let (bank, theme) = (bank_of(app.memory.as_ref()), &app.theme);
    app.panes
        .context
        .set_field(Field::Client, "Acme Corporation", bank, theme);

    ask(&mut app, "How do we translate compliance?");
    assert!(!app.panes.agents.editing, "sending leaves the input");
    pump_until(&mut app, &replies, is_done);

    let s = screen(&app);
    assert_snapshot!(s);
    assert!(
        !s.contains('\x1b'),
        "model text is sanitised before drawing"
    );
    let request = &server.requests()[0];
    let system = request.json()["messages"][0]["content"].to_string();
    assert!(
        system.contains("Client: Acme Corporation"),
        "the inspector's client went into the context"
    );

    // The turn's articles: Enter opens the selected one in the Article pane.
    let articles: Vec<String> = app
        .panes
        .agents
        .query
        .articles()
        .iter()
        .map(|a| a.path.clone())
        .collect();
    assert!(articles.contains(&"01_CLIENTS/Acme Corporation.md".to_owned()));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert_eq!(app.panes.article.rel.as_deref(), Some(articles[0].as_str()));
}

#[test]
fn keys_are_handled_while_a_reply_streams_and_esc_stops_it() {
    // The role event, two pieces, then silence with the connection open.
    let reply = FakeReply::openai_stream(&["First part, ", "second part, ", "never sent"])
        .split_pieces()
        .stall_after(6);
    let server = FakeServer::start([reply]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    ask_anyway(&mut app, "Tell me about Acme");
    let mut deltas = 0;
    pump_until(&mut app, &replies, |e| {
        if matches!(e, StreamEvent::Delta(_)) {
            deltas += 1;
        }
        deltas == 1
    });
    assert!(app.panes.agents.busy());
    assert!(screen(&app).contains("First part,"));

    // Between pieces the rest of the interface answers at once.
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Bank);
    let before = app.panes.bank.cursor.selected;
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(app.panes.bank.cursor.selected, before + 1);
    app.dirty = false;
    pump_until(&mut app, &replies, |e| matches!(e, StreamEvent::Delta(_)));
    assert!(app.dirty, "a new piece on screen asks for a redraw");
    let s = screen(&app);
    assert!(s.contains("second part,"), "{s}");
    assert!(s.contains("┌ Bank"), "the tree is still shown beside it");

    // Esc while typing only leaves the input: the reply keeps coming.
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Char('i'));
    assert!(app.panes.agents.editing);
    key(&mut app, KeyCode::Esc);
    assert!(!app.panes.agents.editing);
    assert!(app.panes.agents.busy());
    assert!(
        screen(&app).contains("s stop"),
        "the hints name the stop key"
    );
    // `s` stops the reply; what arrived is kept.
    key(&mut app, KeyCode::Char('s'));
    pump_until(&mut app, &replies, is_done);
    let turn = app.panes.agents.query.turns.last().unwrap();
    assert_eq!(turn.reply.text, "First part, second part, ");
    assert!(matches!(turn.reply.state, StreamState::Incomplete(_)));
    assert!(!app.panes.agents.busy());
    assert!(screen(&app).contains("INCOMPLETE: stopped (s)"));
}

fn review_bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bank");
    std::fs::create_dir_all(&root).unwrap();
    copy_dir(&fixture(), &root);
    dir
}

const COMPILE_REPLY: &str = "Two files, one fix.
### FILE: 02_TERMINOLOGY/audit → audit.md
---
term_source: audit
---
# audit → audit
### FILE: ../x.md
outside
### FILE: 06_TEMPLATES/query.md
owned
### FILE: 01_CLIENTS/Globex.md
---
client: \"Globex\"
---
# Globex

Declined by the user.
### FILE: 03_DOMAINS/Legal.md
---
domain: Legal
---
# Legal

Contracts use \"naleving\".
";

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

#[test]
fn process_inbox_review_writes_only_accepted_safe_blocks() {
    let dir = review_bank();
    let root = dir.path().join("bank");
    let server = FakeServer::start([FakeReply::openai_stream(&[COMPILE_REPLY])]);
    let mut app = app_at(&root, 80, 24);
    let replies = connect(&mut app, &server);
    let template_before = read(&root, "06_TEMPLATES/query.md");
    let globex_before = read(&root, "01_CLIENTS/Globex.md");

    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Char('2'));
    assert!(
        screen(&app).contains("call notes.md"),
        "pending files listed"
    );
    key(&mut app, KeyCode::Char('r'));
    key(&mut app, KeyCode::Char('y'));
    pump_until(&mut app, &replies, is_done);
    // Nothing is written before the user confirms.
    assert!(read(&root, "02_TERMINOLOGY/audit → audit.md").is_none());
    let s = screen(&app);
    assert_snapshot!(s);

    // Decline Globex (the fourth block), then write.
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char(' '));
    let review = app.panes.agents.inbox.review.as_ref().unwrap();
    let accepted: Vec<bool> = review.blocks.iter().map(|b| b.accepted).collect();
    assert_eq!(accepted, [true, false, false, false, true]);
    key(&mut app, KeyCode::Enter);
    // Two files to write: the question comes first, and nothing is
    // written before the answer.
    let s = screen(&app);
    assert!(s.contains("Write 2 files? y/N"), "{s}");
    assert!(s.contains("1 inbox note is stamped and archived."), "{s}");
    assert!(read(&root, "02_TERMINOLOGY/audit → audit.md").is_none());
    key(&mut app, KeyCode::Char('y'));

    assert!(read(&root, "02_TERMINOLOGY/audit → audit.md").is_some());
    assert!(
        read(&root, "03_DOMAINS/Legal.md")
            .unwrap()
            .contains("naleving")
    );
    assert_eq!(read(&root, "01_CLIENTS/Globex.md"), globex_before);
    assert_eq!(read(&root, "06_TEMPLATES/query.md"), template_before);
    assert!(!dir.path().join("x.md").exists(), "never written outside");
    // The source was stamped and archived; the bank was read again.
    assert!(read(&root, "00_INBOX/call notes.md").is_none());
    let archived: Vec<_> = std::fs::read_dir(root.join("00_INBOX/_archive"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("call notes"))
        .collect();
    assert_eq!(archived.len(), 1, "{archived:?}");
    assert!(
        bank_of(app.memory.as_ref())
            .find("02_TERMINOLOGY/audit → audit.md")
            .is_some()
    );
    // Only the changed files were read again, and the bank knows the move.
    assert!(
        bank_of(app.memory.as_ref())
            .find("00_INBOX/call notes.md")
            .is_none()
    );
    assert!(
        bank_of(app.memory.as_ref())
            .find(&format!("00_INBOX/_archive/{}", archived[0]))
            .is_some()
    );
    assert!(screen(&app).contains("archived"));
}

#[test]
fn a_file_edited_while_the_review_is_open_is_not_overwritten() {
    let dir = review_bank();
    let root = dir.path().join("bank");
    let server = FakeServer::start([FakeReply::openai_stream(&[COMPILE_REPLY])]);
    let mut app = app_at(&root, 100, 30);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a2ry");
    pump_until(&mut app, &replies, is_done);
    assert!(app.panes.agents.inbox.review.is_some());
    // The user edits a proposed file by hand while reading the diff.
    let edit = "---\ndomain: Legal\n---\n# Legal\n\nedited by hand\n";
    std::fs::write(root.join("03_DOMAINS/Legal.md"), edit).unwrap();
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));
    let s = screen(&app);
    assert!(
        s.contains("03_DOMAINS/Legal.md changed on disk since it was shown"),
        "{s}"
    );
    // Nothing at all was written: not the edited file, not the others,
    // and the inbox note was neither stamped nor archived.
    assert_eq!(read(&root, "03_DOMAINS/Legal.md").as_deref(), Some(edit));
    assert!(read(&root, "02_TERMINOLOGY/audit → audit.md").is_none());
    assert!(read(&root, "00_INBOX/call notes.md").is_some());
    let review = app.panes.agents.inbox.review.as_ref().unwrap();
    assert!(!review.is_applied());
    // The diff is now against the edit; a second Enter writes.
    let legal = review
        .blocks
        .iter()
        .position(|b| b.detail.iter().any(|l| l == "-edited by hand"));
    assert!(legal.is_some(), "the new diff shows the edit");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));
    assert!(
        read(&root, "03_DOMAINS/Legal.md")
            .unwrap()
            .contains("naleving")
    );
    assert!(read(&root, "02_TERMINOLOGY/audit → audit.md").is_some());
    assert!(read(&root, "00_INBOX/call notes.md").is_none());
}

#[test]
fn an_incomplete_inbox_reply_is_never_applied() {
    let dir = review_bank();
    let root = dir.path().join("bank");
    let server = FakeServer::start([FakeReply::openai_stream(&[COMPILE_REPLY]).cut_after(2)]);
    let mut app = app_at(&root, 80, 24);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a2ry");
    pump_until(&mut app, &replies, is_done);
    assert!(app.panes.agents.inbox.review.is_none());
    key(&mut app, KeyCode::Enter);
    assert!(read(&root, "00_INBOX/call notes.md").is_some());
    assert!(screen(&app).contains("nothing can be applied"));
}

#[test]
fn alt_enter_and_ctrl_j_add_lines_to_the_question() {
    let mut app = app_at(&fixture(), 80, 24);
    keys(&mut app, "a1i");
    keys(&mut app, "one");
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT)),
    );
    keys(&mut app, "two");
    update(
        &mut app,
        Msg::Key(KeyEvent::new(KeyCode::Char('j'), KeyModifiers::CONTROL)),
    );
    keys(&mut app, "three");
    assert_eq!(
        app.panes.agents.query.input.lines(),
        ["one", "two", "three"]
    );
    assert!(app.panes.agents.editing);
}

#[test]
fn health_check_shows_the_report_then_reviews_the_models_fixes() {
    let dir = review_bank();
    let root = dir.path().join("bank");
    let reply = "Globex lacks a summary.\n### FILE: 01_CLIENTS/Globex.md\n---\nclient: \"Globex\"\n---\n# Globex\n\nFixed by review.\n";
    let server = FakeServer::start([FakeReply::openai_stream(&[reply])]);
    let mut app = app_at(&root, 80, 24);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a3");
    assert!(screen(&app).contains("Deterministic checks · r asks the model"));
    key(&mut app, KeyCode::Char('r'));
    pump_until(&mut app, &replies, is_done);
    let body = server.requests()[0].body.clone();
    assert!(
        body.contains("truncated: false"),
        "the snapshot's state is sent"
    );
    let s = screen(&app);
    assert!(s.contains("not truncated"), "{s}");
    assert!(s.contains("1 fix(es) proposed"), "{s}");
    assert!(
        !read(&root, "01_CLIENTS/Globex.md")
            .unwrap()
            .contains("Fixed")
    );

    key(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("[x] changed   01_CLIENTS/Globex.md"));
    key(&mut app, KeyCode::Enter);
    assert!(
        read(&root, "01_CLIENTS/Globex.md")
            .unwrap()
            .contains("Fixed by review.")
    );
}

#[test]
fn translate_uses_the_context_and_copies_the_result() {
    let server = FakeServer::start([FakeReply::openai_stream(&["De naleving ", "is streng."])]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    let (bank, theme) = (bank_of(app.memory.as_ref()), &app.theme);
    app.panes
        .context
        .set_field(Field::Client, "Acme Corporation", bank, theme);
    keys(&mut app, "a4i");
    update(&mut app, Msg::Paste("The compliance\nis strict.".into()));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('r'));
    pump_until(&mut app, &replies, is_done);
    let s = screen(&app);
    assert!(s.contains("De naleving is streng."), "{s}");
    assert!(s.contains("01_CLIENTS/Acme Corporation.md"), "{s}");
    let body = server.requests()[0].body.clone();
    assert!(body.contains("The compliance\\nis strict."));
    app.effects.clear();
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(
        app.effects,
        [super::app::Effect::Copy("De naleving is streng.".into())]
    );
}

/// A reply may hold escape sequences (a model repeating a hostile file):
/// the screen shows them harmlessly, and the copy leaves them out, keeping
/// the reply's own lines.
#[test]
fn a_copied_reply_leaves_out_escape_sequences_but_keeps_its_lines() {
    let server = FakeServer::start([FakeReply::openai_stream(&[
        "De naleving\x1b]52;c;cHduZWQ=\x07\nis\x1b[2J\rstreng.",
    ])]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a4i");
    update(&mut app, Msg::Paste("The compliance is strict.".into()));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('r'));
    pump_until(&mut app, &replies, is_done);
    app.effects.clear();
    key(&mut app, KeyCode::Char('y'));
    assert!(
        app.effects
            .contains(&super::app::Effect::Copy("De naleving\nisstreng.".into())),
        "{:?}",
        app.effects
    );
    assert!(screen(&app).contains("copied the reply; 3 control characters left out"));
}

#[test]
fn distill_proposes_an_inbox_note_written_only_after_review() {
    let dir = review_bank();
    let root = dir.path().join("bank");
    let doc = dir.path().join("style notes.txt");
    std::fs::write(&doc, "Always write naleving, never conformiteit.\n").unwrap();
    let note = "---\ntitle: Style notes\n---\n# Style notes\n\nUse naleving.\n";
    let server = FakeServer::start([FakeReply::openai_stream(&[note])]);
    let mut app = app_at(&root, 80, 24);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a5i");
    update(&mut app, Msg::Paste(doc.display().to_string()));
    key(&mut app, KeyCode::Enter);
    pump_until(&mut app, &replies, is_done);
    let inbox_notes = || {
        std::fs::read_dir(root.join("00_INBOX"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("distilled_style notes_"))
            .count()
    };
    assert_eq!(inbox_notes(), 0, "nothing is written before Enter");
    assert!(screen(&app).contains("[x] new       00_INBOX/distilled_"));
    // Every test of this binary journals to the one journal it installs
    // first; this bank's entries are this test's.
    membank_core::journal::install(membank_core::journal::Journal::new(
        tempfile::tempdir().unwrap().keep(),
    ));
    key(&mut app, KeyCode::Enter);
    assert_eq!(inbox_notes(), 1);
    let journal = membank_core::journal::installed().expect("a journal");
    let (entries, _) = journal.entries(&root);
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["distill"], "undo names it as what it was");
}

#[test]
fn help_popup_lists_the_agents_keys() {
    let mut app = app_at(&fixture(), 80, 24);
    keys(&mut app, "a?");
    let s = screen(&app);
    assert_snapshot!(s);
    for want in [
        "run the agent",
        "accept all valid / decline all",
        "Process Inbox",
    ] {
        assert!(s.contains(want), "{want} missing:\n{s}");
    }
}

#[test]
fn a_turn_lists_what_the_budget_dropped_and_sends_only_the_rest() {
    let server = FakeServer::start([FakeReply::openai_stream(&["Short answer."])]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    let theme = app.theme.clone();
    app.panes.context.set_field(
        Field::Client,
        "acme corporation",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    app.panes
        .context
        .set_field(Field::Budget, "130", bank_of(app.memory.as_ref()), &theme);
    ask(&mut app, "What does Acme sell?");
    pump_until(&mut app, &replies, is_done);
    let articles = app.panes.agents.query.articles().to_vec();
    assert!(articles[0].dropped.is_none());
    let dropped = articles
        .iter()
        .find(|a| a.dropped.is_some())
        .expect("the budget drops one");
    let s = screen(&app);
    assert!(s.contains("1 article in the context, "), "{s}");
    assert!(s.contains(&format!("✗ {}", dropped.path)), "{s}");
    let system = server.requests()[0].json()["messages"][0]["content"].to_string();
    assert!(system.contains(&articles[0].path));
    assert!(!system.contains(&format!("----- {} -----", dropped.path)));
}

#[test]
fn process_inbox_review_names_the_notes_it_archives_and_can_keep_one() {
    let dir = review_bank();
    let root = dir.path().join("bank");
    let server = FakeServer::start([FakeReply::openai_stream(&[COMPILE_REPLY])]);
    let mut app = app_at(&root, 100, 30);
    let replies = connect(&mut app, &server);
    key(&mut app, KeyCode::Char('a'));
    key(&mut app, KeyCode::Char('2'));
    key(&mut app, KeyCode::Char('r'));
    key(&mut app, KeyCode::Char('y'));
    pump_until(&mut app, &replies, is_done);
    let s = screen(&app);
    // The note, and the files it would be stamped with.
    assert!(
        s.contains("inbox 00_INBOX/call notes.md archive → compiled_to"),
        "{s}"
    );
    // The model's words before its files are shown too.
    assert!(
        s.contains("the model wrote:") && s.contains("Two files, one fix."),
        "{s}"
    );
    // Down past the five files to the note: Space keeps it.
    for _ in 0..5 {
        key(&mut app, KeyCode::Char('j'));
    }
    key(&mut app, KeyCode::Char(' '));
    let review = app.panes.agents.inbox.review.as_ref().unwrap();
    assert!(review.sources[0].keep);
    assert!(screen(&app).contains("inbox 00_INBOX/call notes.md keep"));
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Char('y'));
    // The files are written; the kept note is neither stamped nor moved.
    assert!(read(&root, "02_TERMINOLOGY/audit → audit.md").is_some());
    let note = read(&root, "00_INBOX/call notes.md").expect("still in the inbox");
    assert!(!note.contains("compiled_to"), "{note}");
    assert!(screen(&app).contains("you kept it"));
}

#[test]
fn translate_warns_without_client_or_language_and_the_pane_names_the_model() {
    let server = FakeServer::start([FakeReply::openai_stream(&["Hallo."])]);
    let mut app = app_at(&fixture(), 120, 30);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a4i");
    update(&mut app, Msg::Paste("Hello.".into()));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('r'));
    let (msg, _) = app.status.message.clone().unwrap();
    assert!(msg.contains("no client or language set"), "{msg}");
    pump_until(&mut app, &replies, is_done);
    // The end of the reply does not wipe the warning before it is read.
    let (msg, _) = app.status.message.clone().unwrap();
    assert!(
        msg.contains("reply complete") && msg.contains("no client or language set"),
        "{msg}"
    );
    let s = screen(&app);
    assert!(s.contains("openai · test-model"), "{s}");
    assert!(
        !s.contains("127.0.0.1"),
        "the address stays out of the tab row: {s}"
    );
}

#[test]
fn a_long_error_wraps_in_the_transcript() {
    let server = FakeServer::start([FakeReply::openai_stream(&[
        "First part, ",
        "second part, ",
        "never sent",
    ])
    .split_pieces()
    .stall_after(6)]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    ask_anyway(&mut app, "Tell me about Acme");
    pump_until(&mut app, &replies, |e| matches!(e, StreamEvent::Delta(_)));
    let why = "the connection was reset by the proxy in between, which happens when a long \
               reply passes through a server that closes idle streams";
    let turn = app.panes.agents.query.current().unwrap();
    turn.fail(why.into());
    let s = screen(&app);
    assert!(
        s.contains("closes idle streams]"),
        "the end of the error is on screen: {s}"
    );
}

#[test]
fn a_finished_reply_renders_as_markdown() {
    let server = FakeServer::start([FakeReply::openai_stream(&[
        "## Answer\n\n**naleving** is the term.\n\n",
        "- first point\n- second point\n",
    ])]);
    let mut app = app_at(&fixture(), 100, 30);
    let replies = connect(&mut app, &server);
    ask_anyway(&mut app, "Which term?");
    pump_until(&mut app, &replies, is_done);
    let s = screen(&app);
    assert!(s.contains("Answer"), "{s}");
    assert!(
        s.contains("naleving is the term.") && !s.contains("**"),
        "{s}"
    );
    assert!(s.contains("• first point"), "{s}");
}

#[test]
fn a_translate_error_is_shown_whole_at_80_columns() {
    let server = FakeServer::start([FakeReply::error(404, "not_found", "no such model")]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    keys(&mut app, "a4i");
    update(&mut app, Msg::Paste("Hello.".into()));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('r'));
    pump_until(&mut app, &replies, is_done);
    let s = screen(&app);
    // Every part of the error is on screen: what failed, why, and the end.
    for part in ["404 Not Found", "does not exist there", "base URL is wrong"] {
        assert!(s.contains(part), "{part}: {s}");
    }
}

/// Nothing listening at the model's address: the status says it could not
/// connect there, not that "the reply is incomplete".
#[test]
fn a_refused_connection_says_could_not_connect() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut config = LlmConfig::for_provider(Provider::OpenAi);
    config.base_url = format!("http://127.0.0.1:{port}/v1");
    config.model = "test-model".into();
    config.timeout = Duration::from_secs(20);
    let mut app = app_at(&fixture(), 80, 24);
    let (tx, replies) = mpsc::channel();
    let connection = &mut app.panes.agents.connection;
    connection.use_client(LlmClient::with_key(config, Some(ApiKey::new("k"))).unwrap());
    connection.set_sink(move |m| {
        let _ = tx.send(m);
    });
    ask_anyway(&mut app, "Anyone there?");
    pump_until(&mut app, &replies, is_done);
    let (msg, _) = app.status.message.clone().unwrap();
    assert!(
        msg.contains(&format!("could not connect to http://127.0.0.1:{port}")),
        "{msg}"
    );
    assert!(!msg.contains("incomplete"), "{msg}");
}

#[test]
fn a_question_with_an_empty_context_is_warned_about_before_it_is_sent() {
    let server = FakeServer::start([FakeReply::openai_stream(&["An answer."])]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    ask(&mut app, "What does Globex want?");
    let problem = app.panes.agents.problem.clone().unwrap_or_default();
    assert!(problem.contains("the context is empty"), "{problem}");
    assert!(problem.contains("names the client Globex"), "{problem}");
    assert!(screen(&app).contains("the context is empty"));
    assert_eq!(server.requests().len(), 0, "nothing is sent yet");
    // The client it names is offered; N leaves the question as it is.
    assert!(screen(&app).contains("Set it in Context and send? y/N"));
    key(&mut app, KeyCode::Char('n'));
    assert!(app.popup.is_none());
    assert_eq!(server.requests().len(), 0);
    // The same question again goes out as it is, without a client.
    key(&mut app, KeyCode::Enter);
    pump_until(&mut app, &replies, is_done);
    assert_eq!(server.requests().len(), 1);
    assert!(app.panes.context.query().client.is_none());
}

#[test]
fn a_client_the_question_names_is_set_and_sent_with_one_key() {
    let server = FakeServer::start([FakeReply::openai_stream(&["An answer."])]);
    let mut app = app_at(&fixture(), 80, 24);
    let replies = connect(&mut app, &server);
    ask(&mut app, "What does Globex want?");
    assert!(screen(&app).contains("Set it in Context and send? y/N"));
    key(&mut app, KeyCode::Char('y'));
    pump_until(&mut app, &replies, is_done);
    assert_eq!(server.requests().len(), 1);
    assert_eq!(app.panes.context.query().client.as_deref(), Some("Globex"));
    let sent = &server.requests()[0].body;
    assert!(sent.contains("01_CLIENTS/Globex.md"), "{sent}");
}
