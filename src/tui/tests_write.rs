//! Writing from the tree and anywhere: `r` renames with every link
//! rewritten, `n` makes a new article, `c` drops a quick note, `+` creates
//! what an article's dead links name. Nothing is written before Enter, and
//! `u` takes each write back.

use std::path::Path;

use insta::assert_snapshot;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Effect, Pane, Popup};
use super::panes::bank::RowKind;
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

const ACME: &str = "---\nclient: \"Acme\"\ndomains: \"[[Legal]]\"\nlast_updated: 2026-04-08\n---\n# Acme\n\nContracts go by [[Legal]]; patents by [[Patent Law]].\n";
const LEGAL: &str =
    "---\ndomain: \"Legal\"\nlast_updated: 2026-01-02\n---\n# Legal\n\nContracts.\n";

fn bank(root: &Path) {
    for f in FOLDERS {
        std::fs::create_dir_all(root.join(f)).unwrap();
    }
    std::fs::write(root.join("01_CLIENTS/Acme.md"), ACME).unwrap();
    std::fs::write(root.join("03_DOMAINS/Legal.md"), LEGAL).unwrap();
}

/// Every test's writes are journalled in a folder of this process's.
fn journal() {
    let journal = tempfile::tempdir().unwrap().keep();
    membank_core::journal::install(membank_core::journal::Journal::new(journal));
}

fn select(app: &mut App, path: &str) {
    let at = app
        .panes
        .bank
        .rows
        .iter()
        .position(|r| match &r.kind {
            RowKind::File { rel } => **rel == *path,
            RowKind::Folder { key, .. } => key == path,
        })
        .unwrap_or_else(|| panic!("{path} is not in the tree"));
    app.panes.bank.cursor.selected = at;
}

fn selected(app: &App) -> Option<String> {
    app.panes.bank.selected().map(|r| match &r.kind {
        RowKind::File { rel } => rel.to_string(),
        RowKind::Folder { key, .. } => key.clone(),
    })
}

fn undo(app: &mut App) {
    key(app, KeyCode::Char('u'));
    key(app, KeyCode::Char('y'));
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

#[test]
fn r_renames_the_article_rewrites_its_links_and_u_takes_it_back() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let mut app = app_at(root, 80, 24);
    app.open_article("03_DOMAINS/Legal.md");
    app.focus_pane(Pane::Bank);
    select(&mut app, "03_DOMAINS/Legal.md");
    key(&mut app, KeyCode::Char('r'));
    assert!(screen(&app).contains("03_DOMAINS/Legal.md▏"), "prefilled");
    for _ in "Legal.md".chars() {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "Law.md");
    key(&mut app, KeyCode::Enter);
    assert_snapshot!(screen(&app));
    assert_eq!(
        read(root, "03_DOMAINS/Legal.md").as_deref(),
        Some(LEGAL),
        "not before Enter"
    );

    key(&mut app, KeyCode::Enter);
    assert!(app.popup.is_none());
    assert_eq!(read(root, "03_DOMAINS/Legal.md"), None);
    assert!(read(root, "03_DOMAINS/Law.md").is_some());
    let acme = read(root, "01_CLIENTS/Acme.md").unwrap();
    assert!(acme.contains("by [[Law]];"), "{acme}");
    assert!(acme.contains("\"[[Law]]\""), "{acme}");
    assert_eq!(selected(&app).as_deref(), Some("03_DOMAINS/Law.md"));
    // The article shown moved with it.
    assert_eq!(app.panes.article.rel.as_deref(), Some("03_DOMAINS/Law.md"));
    assert!(screen(&app).contains("renamed 03_DOMAINS/Legal.md → 03_DOMAINS/Law.md"));
    // The file watcher's news of the same files does not hide what was done.
    app.say_reloaded(&super::reload::News {
        changed: vec!["03_DOMAINS/Law.md".into(), "01_CLIENTS/Acme.md".into()],
        removed: Vec::new(),
    });
    assert!(screen(&app).contains("renamed 03_DOMAINS/Legal.md → 03_DOMAINS/Law.md"));

    undo(&mut app);
    assert_eq!(read(root, "03_DOMAINS/Legal.md").as_deref(), Some(LEGAL));
    assert_eq!(read(root, "03_DOMAINS/Law.md"), None);
    assert_eq!(read(root, "01_CLIENTS/Acme.md").as_deref(), Some(ACME));
    // The article comes back under its old name, selected, and the status
    // says what was undone rather than what was read back.
    assert_eq!(selected(&app).as_deref(), Some("03_DOMAINS/Legal.md"));
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("03_DOMAINS/Legal.md")
    );
    let shown = screen(&app);
    // Counted as the plan counted them: the moved file once.
    assert!(shown.contains("undone: rename (2 files)"), "{shown}");
    app.say_reloaded(&super::reload::News {
        changed: vec!["03_DOMAINS/Legal.md".into(), "01_CLIENTS/Acme.md".into()],
        removed: Vec::new(),
    });
    assert!(screen(&app).contains("undone: rename"));
    assert!(!shown.contains("deleted"), "{shown}");
}

fn with(app: &mut App, c: char, modifiers: KeyModifiers) {
    super::update::update(
        app,
        super::app::Msg::Key(KeyEvent::new(KeyCode::Char(c), modifiers)),
    );
}

#[test]
fn ctrl_and_alt_keys_edit_a_typed_name_or_note_and_never_type_their_letter() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let mut app = app_at(root, 80, 24);
    app.focus_pane(Pane::Bank);
    select(&mut app, "03_DOMAINS/Legal.md");
    key(&mut app, KeyCode::Char('r'));
    // Ctrl-U clears the prefilled name, as in the finder and a shell.
    with(&mut app, 'u', KeyModifiers::CONTROL);
    keys(&mut app, "03_DOMAINS/Law.md");
    with(&mut app, 'a', KeyModifiers::CONTROL);
    with(&mut app, 'x', KeyModifiers::ALT);
    let shown = screen(&app);
    assert!(shown.contains("│03_DOMAINS/Law.md▏"), "{shown}");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert!(read(root, "03_DOMAINS/Law.md").is_some());

    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "Acme wants commas");
    // Ctrl-W takes back the last word.
    with(&mut app, 'w', KeyModifiers::CONTROL);
    keys(&mut app, "Oxford");
    with(&mut app, 'w', KeyModifiers::ALT);
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    let names = inbox(root);
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(names[0].ends_with("Acme wants Oxford.md"), "{names:?}");
}

#[test]
fn a_renamed_folder_is_named_by_its_new_folder() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    std::fs::create_dir_all(root.join("04_STYLE/lawfolder")).unwrap();
    std::fs::write(root.join("04_STYLE/lawfolder/Contracts.md"), LEGAL).unwrap();
    let mut app = app_at(root, 120, 24);
    app.focus_pane(Pane::Bank);
    select(&mut app, "04_STYLE/lawfolder");
    key(&mut app, KeyCode::Char('r'));
    with(&mut app, 'u', KeyModifiers::CONTROL);
    keys(&mut app, "03_DOMAINS/legal/lawfolder");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert!(read(root, "03_DOMAINS/legal/lawfolder/Contracts.md").is_some());
    let shown = screen(&app);
    assert!(
        shown.contains("renamed 04_STYLE/lawfolder → 03_DOMAINS/legal/lawfolder ·"),
        "{shown}"
    );
}

/// Enter on the folder's own path (as `r` fills it in, or with a space
/// typed after it) is the same "nothing to do" a file gets.
#[test]
fn a_folder_renamed_to_its_own_path_has_nothing_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    std::fs::create_dir_all(root.join("03_DOMAINS/sub")).unwrap();
    std::fs::write(root.join("03_DOMAINS/sub/Contracts.md"), LEGAL).unwrap();
    let mut app = app_at(root, 120, 24);
    for typed in ["", " "] {
        app.focus_pane(Pane::Bank);
        select(&mut app, "03_DOMAINS/sub");
        key(&mut app, KeyCode::Char('r'));
        keys(&mut app, typed);
        key(&mut app, KeyCode::Enter);
        let shown = screen(&app);
        assert!(
            shown.contains("already has that name; nothing to do"),
            "{typed:?}: {shown}"
        );
        assert!(!shown.contains("into itself"), "{typed:?}: {shown}");
        key(&mut app, KeyCode::Esc);
    }
    assert!(read(root, "03_DOMAINS/sub/Contracts.md").is_some());
}

#[test]
fn a_long_move_shows_where_it_goes_at_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let deep = "03_DOMAINS/Level1/Level2 with a rather long folder name indeed/Level3/Level4";
    std::fs::create_dir_all(root.join(deep)).unwrap();
    std::fs::write(root.join(deep).join("Deep Note.md"), LEGAL).unwrap();
    let mut app = app_at(root, 80, 24);
    let rename = |app: &mut App, to: &str| {
        // Opening it unfolds the folders it is in.
        app.open_article(&format!("{deep}/Deep Note.md"));
        app.focus_pane(Pane::Bank);
        select(app, &format!("{deep}/Deep Note.md"));
        key(app, KeyCode::Char('r'));
        with(app, 'u', KeyModifiers::CONTROL);
        keys(app, to);
        key(app, KeyCode::Enter);
        let shown = screen(app);
        key(app, KeyCode::Esc);
        shown
    };
    // The destination fits the popup: it is shown whole, on its own line.
    let shown = rename(
        &mut app,
        "03_DOMAINS/Elsewhere/Another long folder name/L4/Deep Note.md",
    );
    assert!(
        shown.contains("│→ 03_DOMAINS/Elsewhere/Another long folder name/L4/Deep Note.md "),
        "{shown}"
    );
    assert!(shown.contains("0 links rewritten"), "{shown}");
    // Too long even for its own line: both ends stay in view.
    let shown = rename(
        &mut app,
        "03_DOMAINS/Elsewhere/Another long folder name/L4/and/a/much/deeper/one/Level6/Deep Note.md",
    );
    assert!(shown.contains("│→ 03_DOMAINS/Elsewhere/"), "{shown}");
    assert!(shown.contains("…"), "{shown}");
    assert!(shown.contains("/Level6/Deep Note.md│"), "{shown}");
    assert!(
        shown.contains("/Level4/Deep Note.md│"),
        "the source's end: {shown}"
    );
}

#[test]
fn r_onto_a_taken_name_is_refused_with_the_reason_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    std::fs::write(
        root.join("03_DOMAINS/Law.md"),
        LEGAL.replace("Legal", "Law"),
    )
    .unwrap();
    let mut app = app_at(root, 80, 24);
    select(&mut app, "03_DOMAINS/Legal.md");
    key(&mut app, KeyCode::Char('r'));
    for _ in "Legal.md".chars() {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "Law.md");
    key(&mut app, KeyCode::Enter);
    let shown = screen(&app);
    assert!(matches!(app.popup, Some(Popup::Write(_))), "{shown}");
    assert!(shown.contains("03_DOMAINS/Law.md: is taken"), "{shown}");
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
    assert_eq!(read(root, "03_DOMAINS/Legal.md").as_deref(), Some(LEGAL));
    assert_eq!(read(root, "01_CLIENTS/Acme.md").as_deref(), Some(ACME));
}

#[test]
fn n_writes_a_new_article_with_its_folders_keys_and_u_removes_it() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let mut app = app_at(root, 80, 24);
    select(&mut app, "03_DOMAINS");
    key(&mut app, KeyCode::Char('n'));
    keys(&mut app, "Medical");
    key(&mut app, KeyCode::Enter);
    assert_snapshot!(screen(&app));
    assert_eq!(
        read(root, "03_DOMAINS/Medical.md"),
        None,
        "not before Enter"
    );

    key(&mut app, KeyCode::Enter);
    let written = read(root, "03_DOMAINS/Medical.md").expect("written on Enter");
    assert!(written.contains("domain: "), "{written}");
    assert!(written.contains("Medical"), "{written}");
    assert_eq!(selected(&app).as_deref(), Some("03_DOMAINS/Medical.md"));
    // The Article pane shows what the tree selects.
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("03_DOMAINS/Medical.md")
    );
    // It opens in the editor (the runner does that with the terminal).
    assert!(app.effects.contains(&Effect::Edit {
        rel: "03_DOMAINS/Medical.md".into(),
        line: None
    }));
    app.effects.clear();

    // One file: the question and the outcome speak of it in the singular.
    key(&mut app, KeyCode::Char('u'));
    let asked = screen(&app);
    assert!(asked.contains("as it was before it"), "{asked}");
    key(&mut app, KeyCode::Char('y'));
    assert_eq!(read(root, "03_DOMAINS/Medical.md"), None);
    let said = app.status.message.clone().unwrap().0;
    assert!(said.ends_with("(1 file)"), "{said}");
}

fn inbox(root: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.join("00_INBOX"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn c_drops_a_note_into_the_inbox_from_any_pane_and_u_removes_it() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let mut app = app_at(root, 80, 24);
    app.open_article("01_CLIENTS/Acme.md");
    assert_eq!(app.focus, Pane::Article);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "Acme wants ");
    // A paste lands in the note, not in the pane behind it.
    super::update::update(&mut app, super::app::Msg::Paste("Oxford\ncommas".into()));
    key(&mut app, KeyCode::Enter);
    assert_snapshot!(screen(&app));
    assert!(inbox(root).is_empty(), "not before Enter");

    key(&mut app, KeyCode::Enter);
    let names = inbox(root);
    assert_eq!(names.len(), 1, "{names:?}");
    assert!(
        names[0].ends_with("Acme wants Oxford commas.md"),
        "{names:?}"
    );
    let note = read(root, &format!("00_INBOX/{}", names[0])).unwrap();
    assert_eq!(note, "Acme wants Oxford commas\n");

    // The same note again gets a name of its own: nothing is overwritten.
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "Acme wants Oxford commas");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert_eq!(inbox(root).len(), 2, "{:?}", inbox(root));

    undo(&mut app);
    assert_eq!(inbox(root), names);
    undo(&mut app);
    assert!(inbox(root).is_empty(), "{:?}", inbox(root));
}

#[test]
fn plus_creates_the_article_a_dead_link_names_and_u_removes_it() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let mut app = app_at(root, 80, 24);
    app.open_article("01_CLIENTS/Acme.md");
    key(&mut app, KeyCode::Char('+'));
    assert_snapshot!(screen(&app));
    let made = |root: &Path| {
        walk(root)
            .into_iter()
            .filter(|p| p.ends_with("Patent Law.md"))
            .collect::<Vec<_>>()
    };
    assert!(made(root).is_empty(), "not before Enter");

    key(&mut app, KeyCode::Enter);
    let created = made(root);
    assert_eq!(created.len(), 1, "{:?}", walk(root));
    assert!(
        !app.health
            .findings
            .iter()
            .any(|f| f.code() == "dead-link" && f.message().contains("Patent Law")),
        "the link resolves now"
    );

    undo(&mut app);
    assert!(made(root).is_empty(), "{:?}", walk(root));
}

fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for f in FOLDERS {
        for e in std::fs::read_dir(root.join(f)).into_iter().flatten() {
            let e = e.unwrap();
            out.push(format!("{f}/{}", e.file_name().to_string_lossy()));
        }
    }
    out
}

fn open_memory(root: &Path) -> App {
    let memory = membank_core::memory::open(root, None).unwrap();
    App::new(
        memory,
        super::theme::Theme::default_theme(),
        super::keys::KeyMap::default(),
        ratatui::layout::Rect::new(0, 0, 80, 24),
        crate::tui::TESTS_CLOCK,
    )
}

fn demo(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    super::tests::copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(name),
        dir.path(),
    );
    dir
}

#[test]
fn c_in_an_everos_root_says_it_is_read_only_and_writes_nothing() {
    let dir = demo("demo-everos");
    let before = walk_all(dir.path());
    let mut app = open_memory(dir.path());
    key(&mut app, KeyCode::Char('c'));
    assert!(app.popup.is_none());
    let shown = screen(&app);
    assert!(shown.contains("only read by membank"), "{shown}");
    assert_eq!(walk_all(dir.path()), before);
}

#[test]
fn c_in_a_deja_vu_project_adds_an_event_line_and_r_moves_a_record() {
    journal();
    let dir = demo("demo-dejavu");
    let root = dir.path();
    let mut app = open_memory(root);
    key(&mut app, KeyCode::Char('c'));
    keys(&mut app, "staging is frozen");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    let today = crate::tui::TESTS_CLOCK.today();
    let month = format!("memory/events/{:04}-{:02}.md", today.year(), today.month());
    let ledger = read(root, &month).expect("the month's ledger");
    assert!(
        ledger.ends_with(&format!("- `{today}` - `note` - staging is frozen\n")),
        "{ledger}"
    );
    undo(&mut app);
    assert_eq!(read(root, &month), None);

    let from = "memory/decisions/settings-sync.md";
    let index = read(root, "memory/index.md").unwrap();
    select(&mut app, from);
    key(&mut app, KeyCode::Char('r'));
    for _ in "settings-sync.md".chars() {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "sync-of-settings.md");
    key(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("→ memory/decisions/sync-of-settings.md"));
    key(&mut app, KeyCode::Enter);
    assert_eq!(read(root, from), None);
    assert!(read(root, "memory/decisions/sync-of-settings.md").is_some());
    undo(&mut app);
    assert!(read(root, from).is_some());
    assert_eq!(read(root, "memory/index.md").unwrap(), index);
}

fn walk_all(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut todo = vec![root.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// The undo question names every file it puts back; on a short screen the
/// names give way, never the line that says how to answer.
#[test]
fn the_undo_question_keeps_its_answer_keys_on_a_short_screen() {
    use super::widgets::confirm::{Confirm, OnYes};
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let mut app = app_at(dir.path(), 60, 15);
    let files: Vec<String> = (1..=30)
        .map(|i| format!("03_DOMAINS/Linked note {i}.md"))
        .collect();
    let detail = format!(
        "Puts back {} as they were before it; nothing is reverted if one changed since.",
        files.join(", ")
    );
    app.popup = Some(Popup::Confirm(
        Confirm::new(
            "Undo the last change (rename, 10:00)? y/N",
            OnYes::Undo("1".into()),
        )
        .detail(detail),
    ));
    let s = screen(&app);
    assert!(s.contains("y yes · N / n / Esc no"), "{s}");
    assert!(s.contains("Undo the last change"), "{s}");
    assert!(s.contains('…'), "the cut text says so: {s}");
}

/// `[keys] yes = ["n"]` binds `n` to both answers. The question's hint says
/// the keys as bound, and `n`, which it offers as "no", never undoes.
#[test]
fn a_key_bound_to_both_answers_says_no() {
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let mut app = app_at(root, 80, 24);
    let mut overrides = std::collections::BTreeMap::new();
    overrides.insert("yes".to_owned(), vec!["n".to_owned(), "j".to_owned()]);
    app.keymap = super::keys::KeyMap::default()
        .with_overrides(&overrides)
        .unwrap();
    app.open_article("03_DOMAINS/Legal.md");
    app.focus_pane(Pane::Bank);
    select(&mut app, "03_DOMAINS/Legal.md");
    key(&mut app, KeyCode::Char('r'));
    for _ in "Legal.md".chars() {
        key(&mut app, KeyCode::Backspace);
    }
    keys(&mut app, "Law.md");
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Enter);
    assert!(
        read(root, "03_DOMAINS/Law.md").is_some(),
        "{}",
        screen(&app)
    );
    key(&mut app, KeyCode::Char('u'));
    let s = screen(&app);
    assert!(s.contains("j yes · N / n / Esc no"), "{s}");
    assert!(s.contains("? j/N"), "{s}");
    key(&mut app, KeyCode::Char('n'));
    assert!(app.popup.is_none());
    assert!(read(root, "03_DOMAINS/Law.md").is_some(), "n did not undo");
    key(&mut app, KeyCode::Char('u'));
    key(&mut app, KeyCode::Char('j'));
    assert_eq!(read(root, "03_DOMAINS/Legal.md").as_deref(), Some(LEGAL));
}

/// The empty Article pane names the finder's key as `[keys] find` binds it.
#[test]
fn the_empty_article_pane_names_the_bound_find_key() {
    let dir = tempfile::tempdir().unwrap();
    bank(dir.path());
    let bank = membank_core::bank::Bank::load(dir.path()).unwrap();
    let mut overrides = std::collections::BTreeMap::new();
    overrides.insert("find".to_owned(), vec!["ctrl-o".to_owned()]);
    let keymap = super::keys::KeyMap::default()
        .with_overrides(&overrides)
        .unwrap();
    let app = App::new(
        Box::new(bank),
        super::theme::Theme::default_theme(),
        keymap,
        ratatui::layout::Rect::new(0, 0, 100, 24),
        crate::tui::TESTS_CLOCK,
    );
    let s = screen(&app);
    assert!(s.contains("press Ctrl-O to find one by name"), "{s}");
}

/// The question names one change; when another run journals a change
/// while it is open, `y` takes back neither: not the newer one, which the
/// user was not asked about.
#[test]
fn a_yes_never_undoes_a_change_journalled_after_the_question() {
    use membank_core::transaction::{Kind, Transaction};
    journal();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    bank(root);
    let write = |rel: &str| {
        let tx = Transaction::begin(root, Kind::Bank, std::time::Duration::ZERO, || {}).unwrap();
        tx.create(rel, b"---\nclient: \"X\"\n---\n# X\n").unwrap();
    };
    write("01_CLIENTS/Asked.md");
    let mut app = app_at(root, 100, 30);
    key(&mut app, KeyCode::Char('u'));
    let asked = screen(&app);
    assert!(asked.contains("Undo the last change (write"), "{asked}");
    // Another run (`membank note`, an agent) writes meanwhile.
    write("01_CLIENTS/Newer.md");
    key(&mut app, KeyCode::Char('y'));
    assert!(
        root.join("01_CLIENTS/Newer.md").exists(),
        "the newer change was undone"
    );
    assert!(root.join("01_CLIENTS/Asked.md").exists());
    let said = screen(&app);
    assert!(
        said.contains("the last change is now another one"),
        "{said}"
    );
}
