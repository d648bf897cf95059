//! Rendering tests: the whole screen drawn into a `TestBackend` after a
//! sequence of key presses, compared with committed snapshots.

use std::path::{Path, PathBuf};

use insta::assert_snapshot;
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

use super::app::{App, Msg, Pane};
use super::keys::KeyMap;
use super::panes::context::Field;
use super::theme::Theme;
use super::ui;
use super::update::update;
use membank_core::bank::Bank;
use membank_core::memory::Memory;

pub(super) fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/bank")
}

/// The open memory as a bank; tests of bank behaviour open banks.
pub(super) fn bank_of(memory: &dyn Memory) -> &Bank {
    crate::layouts::bank(memory).expect("a bank is open")
}

pub(super) fn app_at(root: &Path, w: u16, h: u16) -> App {
    // As the interface reads it: no bodies, each read again when shown.
    let bank = Bank::load_only(root, membank_core::bank::LoadOptions::INTERFACE).unwrap();
    let mut app = App::new(
        Box::new(bank),
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, w, h),
        crate::tui::TESTS_CLOCK,
    );
    // The absolute path differs between machines; snapshots show a fixed one.
    app.bank_label = "fixtures/bank".into();
    app.status.bank = app.bank_label.clone();
    app
}

pub(super) fn key(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

pub(super) fn keys(app: &mut App, s: &str) {
    for c in s.chars() {
        key(app, KeyCode::Char(c));
    }
}

pub(super) fn screen(app: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    term.draw(|f| ui::draw(f, app)).unwrap();
    term.backend().to_string()
}

pub(super) fn select_in_tree(app: &mut App, label: &str) {
    let i = app
        .panes
        .bank
        .rows
        .iter()
        .position(|r| r.label() == label)
        .unwrap_or_else(|| panic!("{label} not in the tree"));
    let h = app.panes.bank.rows.len();
    app.panes.bank.cursor.select(i, h, 20);
}

#[test]
fn tree_pane_at_80x24() {
    let app = app_at(&fixture(), 80, 24);
    assert_snapshot!(screen(&app));
}

#[test]
fn tree_expands_the_inbox_archive() {
    let mut app = app_at(&fixture(), 80, 24);
    select_in_tree(&mut app, "00_INBOX");
    key(&mut app, KeyCode::Char('l'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Enter);
    let labels: Vec<String> = app
        .panes
        .bank
        .rows
        .iter()
        .map(|r| r.label().into_owned())
        .collect();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    assert_eq!(
        &labels[..4],
        ["00_INBOX", "_archive", "kickoff", "call notes"]
    );
    assert_snapshot!(screen(&app));
}

#[test]
fn preview_pane_renders_article_and_link_lists() {
    let mut app = app_at(&fixture(), 80, 24);
    select_in_tree(&mut app, "Acme Corporation");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert_snapshot!(screen(&app));
}

#[test]
fn following_a_link_and_coming_back() {
    let mut app = app_at(&fixture(), 80, 24);
    select_in_tree(&mut app, "Acme Corporation");
    key(&mut app, KeyCode::Enter);
    // The first link in the text is [[Legal]] (from the properties).
    keys(&mut app, "n");
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("03_DOMAINS/Legal.md")
    );
    assert_snapshot!(screen(&app));
    key(&mut app, KeyCode::Backspace);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Acme Corporation.md")
    );
    // The status names the article arrived at, not the link followed before.
    let (said, _) = app.status.message.clone().unwrap();
    assert!(said.contains("01_CLIENTS/Acme Corporation.md"), "{said}");
    keys(&mut app, "f");
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("03_DOMAINS/Legal.md")
    );
    let (said, _) = app.status.message.clone().unwrap();
    assert!(
        said.contains("forward") && said.contains("03_DOMAINS/Legal.md"),
        "{said}"
    );
    // `h` and Esc in the article go back to the tree.
    assert_eq!(app.focus, Pane::Article);
    keys(&mut app, "h");
    assert_eq!(app.focus, Pane::Bank);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Pane::Bank);
}

#[test]
fn dead_links_do_not_navigate() {
    let mut app = app_at(&fixture(), 80, 24);
    app.open_article("01_CLIENTS/Acme Corporation.md");
    let dead = app
        .panes
        .article
        .doc
        .links
        .iter()
        .position(|l| !l.live)
        .expect("the fixture has a dead link");
    for _ in 0..=dead {
        keys(&mut app, "n");
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Acme Corporation.md")
    );
    let (msg, _) = app.status.message.clone().unwrap();
    assert!(msg.contains("Acme Style Sheet"), "{msg}");
}

/// Repeated `Tab` steps through the completions shown, `Shift-Tab` back,
/// and the list stays on screen meanwhile.
#[test]
fn tab_cycles_through_the_completions_shown() {
    let mut app = app_at(&fixture(), 100, 30);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "o");
    let shown = app.panes.context.suggestions.clone();
    assert_eq!(shown.len(), 2, "{shown:?}");
    let client = |app: &App| app.panes.context.field_text(Field::Client).to_owned();
    key(&mut app, KeyCode::Tab);
    assert_eq!(client(&app), shown[0]);
    key(&mut app, KeyCode::Tab);
    assert_eq!(client(&app), shown[1]);
    assert_eq!(app.panes.context.suggestions, shown);
    assert!(screen(&app).contains(&format!("Tab {} · {}", shown[0], shown[1])));
    key(&mut app, KeyCode::Tab);
    assert_eq!(client(&app), shown[0]);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(client(&app), shown[1]);
    // Typing again completes what is typed now.
    key(&mut app, KeyCode::Backspace);
    assert_eq!(app.panes.context.picked, None);
}

/// A language value that is no code matches nothing, so typing a language
/// never completes to it; the codes the bank uses are offered.
#[test]
fn language_completion_offers_only_codes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("04_STYLE")).unwrap();
    for (name, langs) in [("A", "\"en-GB, nl-BE\""), ("B", "\"en-\""), ("C", "en-US")] {
        std::fs::write(
            dir.path().join(format!("04_STYLE/{name}.md")),
            format!("---\nscope: general\nlanguages: [{langs}]\nlast_updated: 2026-01-01\n---\n# {name}\n"),
        )
        .unwrap();
    }
    let mut app = app_at(dir.path(), 100, 30);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "en");
    assert_eq!(app.panes.context.selected_field(), Some(Field::SourceLang));
    assert_eq!(app.panes.context.suggestions, ["en-US"]);
}

#[test]
fn inspector_ranks_for_the_typed_client() {
    let mut app = app_at(&fixture(), 100, 30);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Context);
    key(&mut app, KeyCode::Enter);
    keys(&mut app, "glob");
    // Completion from values present in the bank.
    assert_eq!(app.panes.context.suggestions, ["Globex"]);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.panes.context.field_text(Field::Client), "Globex");
    assert_eq!(
        app.panes
            .context
            .entries
            .get(0)
            .unwrap()
            .path(bank_of(app.memory.as_ref())),
        "01_CLIENTS/Globex.md"
    );
    assert_snapshot!(screen(&app));

    let theme = app.theme.clone();
    app.panes.context.set_field(
        Field::Client,
        "Acme Corporation",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    assert_eq!(
        app.panes
            .context
            .entries
            .get(0)
            .unwrap()
            .path(bank_of(app.memory.as_ref())),
        "01_CLIENTS/Acme Corporation.md"
    );
}

#[test]
fn inspector_budget_drops_and_explains() {
    let mut app = app_at(&fixture(), 100, 30);
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
    let kept: Vec<bool> = app
        .panes
        .context
        .entries
        .iter()
        .map(|e| e.included)
        .collect();
    assert_eq!(kept[..2], [true, false]);
    assert!(
        app.panes
            .context
            .summary
            .starts_with("used 124 / 130 tokens")
    );
    app.panes
        .context
        .set_field(Field::Budget, "lots", bank_of(app.memory.as_ref()), &theme);
    assert!(app.panes.context.budget_error.is_some());
}

/// An invalid budget keeps the budget in use, says why, and is never
/// saved: a prefix of it is not applied, and the next launch does not
/// read it as the default.
#[test]
fn an_invalid_budget_keeps_the_last_valid_one_and_is_not_saved() {
    let mut app = app_at(&fixture(), 100, 30);
    let theme = app.theme.clone();
    app.panes
        .context
        .set_field(Field::Budget, "130", bank_of(app.memory.as_ref()), &theme);
    // While editing: typed a key at a time, "1" then "1x".
    app.panes.context.editing = true;
    app.panes
        .context
        .set_field(Field::Budget, "1", bank_of(app.memory.as_ref()), &theme);
    app.panes
        .context
        .set_field(Field::Budget, "1x", bank_of(app.memory.as_ref()), &theme);
    assert_eq!(
        app.panes.context.budget_error.as_deref(),
        Some("not a whole number; still using 130")
    );
    assert_eq!(app.panes.context.budget_options().budget, 130);
    assert_eq!(app.panes.context.saved_query().budget, "130");
    app.panes.context.set_field(
        Field::Budget,
        "99999999999999999999",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    assert_eq!(
        app.panes.context.budget_error.as_deref(),
        Some("too large; still using 130")
    );
    assert_eq!(app.panes.context.budget_options().budget, 130);
    assert_eq!(app.panes.context.saved_query().budget, "130");
}

#[test]
fn inspector_scrolls_to_the_last_candidate() {
    let mut app = app_at(&fixture(), 80, 18);
    key(&mut app, KeyCode::Tab);
    key(&mut app, KeyCode::Tab);
    keys(&mut app, "G");
    let last = app
        .panes
        .context
        .entries
        .iter()
        .last()
        .unwrap()
        .path(bank_of(app.memory.as_ref()))
        .to_owned();
    assert_eq!(
        app.panes
            .context
            .selected_candidate(bank_of(app.memory.as_ref())),
        Some(last.as_str())
    );
    assert!(screen(&app).contains(&last), "{}", screen(&app));
    keys(&mut app, "g");
    assert_eq!(app.panes.context.offset, 0);
    assert!(
        screen(&app).contains(
            app.panes
                .context
                .entries
                .get(0)
                .unwrap()
                .path(bank_of(app.memory.as_ref()))
        )
    );
}

#[test]
fn health_pane_groups_findings_and_jumps() {
    let mut app = app_at(&fixture(), 80, 24);
    // Shift-Tab from the tree: Agents, then Health.
    key(&mut app, KeyCode::BackTab);
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.focus, Pane::Health);
    assert_snapshot!(screen(&app));
    // On a group row, Enter goes to the group's first finding.
    assert_eq!(app.panes.health.cursor.selected, 0);
    let path = app
        .panes
        .health
        .selected_finding()
        .unwrap()
        .path
        .to_string();
    let finding_line = app.panes.health.selected_finding().unwrap().line().unwrap();
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Pane::Article);
    assert_eq!(app.panes.article.rel.as_deref(), Some(path.as_str()));
    assert!(app.panes.article.banner.is_some());
    // The finding's line is on screen, found through the source map.
    let line = finding_line;
    let file_line = std::fs::read_to_string(fixture().join(&path))
        .unwrap()
        .lines()
        .nth(line - 1)
        .unwrap()
        .to_owned();
    let at = app.panes.article.doc.line_for_source(line).unwrap();
    assert!(
        app.panes.article.doc.lines[at]
            .to_string()
            .contains(&file_line)
    );
    assert!(app.panes.article.scroll <= at && at < app.panes.article.scroll + 20);
}

#[test]
fn finder_popup_filters_by_name_and_title() {
    let mut app = app_at(&fixture(), 80, 24);
    keys(&mut app, "/");
    keys(&mut app, "naleving");
    assert_snapshot!(screen(&app));
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("02_TERMINOLOGY/compliance → naleving.md")
    );
}

fn demo_bank() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("demo-bank")
}

#[test]
fn finder_puts_the_exact_name_first_shows_folders_and_counts_every_match() {
    let mut app = app_at(&demo_bank(), 100, 30);
    keys(&mut app, "/");
    keys(&mut app, "harbour lines");
    let s = screen(&app);
    let client = s.find("Harbour Lines  ").expect(&s);
    let inbox = s.find("Harbour Lines booking site strings").expect(&s);
    assert!(client < inbox, "{s}");
    assert!(s.contains("01_CLIENTS/"), "{s}");
    assert!(s.contains("00_INBOX/"), "{s}");
    let Some(super::app::Popup::Finder(f)) = &app.popup else {
        panic!("the finder is open");
    };
    assert_eq!(f.total, f.matches.len());
    assert!(
        s.contains(&format!(
            " {} of {} ",
            f.total,
            bank_of(app.memory.as_ref()).articles().len()
        )),
        "{s}"
    );
    assert_snapshot!(s);
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("01_CLIENTS/Harbour Lines.md")
    );
}

#[test]
fn help_popup_lists_the_focused_panes_keys() {
    let mut app = app_at(&fixture(), 80, 24);
    key(&mut app, KeyCode::Tab);
    keys(&mut app, "?");
    let s = screen(&app);
    assert!(s.contains("select the next / previous link"), "{s}");
    assert!(s.contains("Ctrl-Z"), "the global keys fit: {s}");
    assert_snapshot!(s);
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_none());
}

#[test]
fn keys_bound_twice_in_one_place_are_warned_about_and_helped_once() {
    use std::collections::BTreeMap;
    let mut app = app_at(&fixture(), 120, 30);
    let mut overrides = BTreeMap::new();
    overrides.insert("find".to_owned(), vec!["ctrl-f".to_owned(), "/".to_owned()]);
    overrides.insert(
        "back".to_owned(),
        vec!["backspace".to_owned(), "h".to_owned()],
    );
    app.keymap = KeyMap::default().with_overrides(&overrides).unwrap();
    super::say_key_clashes(&mut app);
    let bar = screen(&app);
    assert!(
        bar.contains("[keys] Ctrl-F is both find and search everywhere: it does find"),
        "{bar}"
    );
    let (said, _) = app.status.last.clone().unwrap();
    assert!(
        said.contains("[keys] h is both back and to_bank in the Article pane: it does back"),
        "{said}"
    );
    // The help lists each key under the one action it does there.
    app.open_article("01_CLIENTS/Acme Corporation.md");
    keys(&mut app, "?");
    let help = screen(&app);
    let row = |what: &str| {
        help.lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no row for {what}: {help}"))
            .to_owned()
    };
    assert!(
        row("back / forward in history").contains("Backspace / h, f"),
        "{help}"
    );
    let to_bank = row("back to the bank tree");
    assert!(
        to_bank.contains("Esc") && !to_bank.contains(" h "),
        "{to_bank}"
    );
    assert!(row("fuzzy-find an article").contains("Ctrl-F"), "{help}");
    assert!(!help.contains("full-text search"), "no key does it: {help}");
}

#[test]
fn help_rows_too_long_for_the_screen_wrap_under_their_description() {
    let mut app = app_at(&fixture(), 80, 24);
    keys(&mut app, "?");
    let s = screen(&app);
    let lines: Vec<&str> = s.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("rename or move, links and all"))
        .unwrap_or_else(|| panic!("the rename row is shown: {s}"));
    // The rest of the description goes on in its own column, under the
    // text above it, not at the edge where a section's name would be.
    let column = |l: &str| l.find("rename").or_else(|| l.find("here"));
    let next = lines[at + 1];
    assert!(next.contains("here"), "the description goes on: {s}");
    assert_eq!(column(lines[at]), column(next), "{s}");
    // Scrolled to the bottom, the last global key is in view: the lines a
    // wrap adds are counted.
    keys(&mut app, "G");
    let s = screen(&app);
    assert!(s.contains("quick note"), "the last key is reachable: {s}");
}

/// At 60 columns the keys take half the popup: a description that wraps
/// still goes on in its own column, never from the popup's edge.
#[test]
fn help_at_60_columns_wraps_descriptions_in_their_column() {
    let mut app = app_at(&fixture(), 60, 15);
    keys(&mut app, "?");
    // Columns (characters) before `needle` on `line`.
    let col = |line: &str, needle: &str| line.find(needle).map(|at| line[..at].chars().count());
    let s = screen(&app);
    let column = s
        .lines()
        .find_map(|l| col(l.trim_matches('"'), "move up / down"));
    assert!(column.is_some(), "{s}");
    let mut seen = 0;
    for _ in 0..4 {
        let s = screen(&app);
        // The backend quotes each line.
        let lines: Vec<&str> = s.lines().map(|l| l.trim_matches('"')).collect();
        for l in &lines[1..lines.len() - 1] {
            let text = l.trim_matches('│').trim();
            if text.is_empty() || ["Bank", "everywhere"].contains(&text) {
                continue;
            }
            // Not a row of keys (those start two columns in): the rest of
            // a description, in the description column.
            if col(l, text) != Some(3) {
                seen += 1;
                assert_eq!(col(l, text), column, "{s}");
            }
        }
        for _ in 0..10 {
            key(&mut app, KeyCode::Down);
        }
    }
    assert!(seen > 0, "some description wraps at 60 columns");
}

#[test]
fn narrow_terminal_shows_one_pane() {
    let mut app = app_at(&fixture(), 60, 20);
    assert!(app.areas.bank.is_some() && app.areas.main.is_none());
    key(&mut app, KeyCode::Tab);
    assert!(app.areas.bank.is_none());
    assert_snapshot!(screen(&app));
}

#[test]
fn wide_terminal_shows_three_columns() {
    let mut app = app_at(&fixture(), 160, 30);
    app.open_article("03_DOMAINS/Legal.md");
    assert!(app.areas.side.is_some());
    assert_snapshot!(screen(&app));
}

#[test]
fn resize_re_renders_the_article_to_the_new_width() {
    let mut app = app_at(&fixture(), 100, 24);
    app.open_article("01_CLIENTS/Acme Corporation.md");
    let wide = app.panes.article.doc.lines.len();
    update(&mut app, Msg::Resize(72, 24));
    assert!(app.panes.article.doc.lines.len() > wide);
    assert!(app.dirty);
}

#[test]
fn files_changed_outside_are_reloaded() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let mut app = app_at(dir.path(), 80, 24);
    app.open_article("03_DOMAINS/Marketing.md");
    let path = dir.path().join("03_DOMAINS/Marketing.md");
    std::fs::write(
        &path,
        "---\ndomain: Marketing\n---\n# Marketing\n\nNew text here.\n",
    )
    .unwrap();
    app.dirty = false;
    update(&mut app, Msg::FilesChanged(vec![path]));
    assert!(app.dirty);
    assert!(screen(&app).contains("New text here."));
    // Hidden folders are not the bank's business.
    app.dirty = false;
    update(
        &mut app,
        Msg::FilesChanged(vec![dir.path().join(".obsidian/app.json")]),
    );
    assert!(!app.dirty);
}

#[test]
fn a_renamed_folder_is_read_again_whole() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let sub = dir.path().join("02_TERMINOLOGY/legal");
    std::fs::create_dir_all(&sub).unwrap();
    std::fs::write(
        sub.join("tort → onrechtmatige daad.md"),
        "---\nlast_updated: 2026-01-01\n---\n# tort\n",
    )
    .unwrap();
    let mut app = app_at(dir.path(), 80, 24);
    assert!(
        bank_of(app.memory.as_ref())
            .find("02_TERMINOLOGY/legal/tort → onrechtmatige daad.md")
            .is_some()
    );
    let renamed = dir.path().join("02_TERMINOLOGY/law");
    std::fs::rename(&sub, &renamed).unwrap();
    update(&mut app, Msg::FilesChanged(vec![sub, renamed]));
    assert!(
        bank_of(app.memory.as_ref())
            .find("02_TERMINOLOGY/legal/tort → onrechtmatige daad.md")
            .is_none()
    );
    assert!(
        bank_of(app.memory.as_ref())
            .find("02_TERMINOLOGY/law/tort → onrechtmatige daad.md")
            .is_some()
    );
}

#[test]
fn escape_sequences_in_files_never_reach_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    std::fs::write(
        dir.path().join("03_DOMAINS/Evil.md"),
        "---\ndomain: \"x\x1b[2J\"\nlast_updated: 2026-01-01\n---\n# Evil\x1b]52;c;aGk=\x07\n\nclear \x1b[2J here \x1b[31mred\u{9b}1m\n",
    )
    .unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    app.open_article("03_DOMAINS/Evil.md");
    let mut out = Vec::new();
    {
        let options = TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, 100, 30)),
        };
        let mut term = Terminal::with_options(CrosstermBackend::new(&mut out), options).unwrap();
        term.draw(|f| ui::draw(f, &app)).unwrap();
    }
    let bytes = String::from_utf8_lossy(&out);
    assert!(
        !bytes.contains("\x1b[2J"),
        "raw clear-screen reached the terminal"
    );
    assert!(
        !bytes.contains("\x1b]52"),
        "raw OSC 52 reached the terminal"
    );
    assert!(
        !bytes.contains("\x1b[31mred"),
        "raw colour reached the terminal"
    );
    assert!(!bytes.contains('\u{9b}'), "raw CSI reached the terminal");
    assert!(bytes.contains("␛[2J"), "the escape is shown visibly");
}

/// A name holding a newline shows as `␊`, but copied as it is it would run
/// what follows the newline when pasted into a shell: `y` and `Y` copy
/// nothing and say why, in the article and in the tree.
#[test]
fn a_name_with_control_characters_is_not_copied() {
    use super::app::Effect;
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let rel = "03_DOMAINS/aaa\ntouch PWNED\nx.md";
    std::fs::write(dir.path().join(rel), "# x\n").unwrap();
    std::fs::write(dir.path().join("03_DOMAINS/bbb\x1b[2J.md"), "# y\n").unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    for (rel, shown) in [(rel, "U+000A"), ("03_DOMAINS/bbb\x1b[2J.md", "U+001B")] {
        app.open_article(rel);
        for k in ["y", "Y"] {
            app.effects.clear();
            keys(&mut app, k);
            assert!(
                !app.effects.iter().any(|e| matches!(e, Effect::Copy(_))),
                "{k}: {:?}",
                app.effects
            );
            let s = screen(&app);
            assert!(
                s.contains(&format!("not copied: the name holds {shown}")),
                "{k}: {s}"
            );
        }
    }
    key(&mut app, KeyCode::Esc);
    while app.focus != Pane::Bank {
        key(&mut app, KeyCode::Tab);
    }
    let h = app.size.height as usize;
    let p = &mut app.panes;
    p.bank.reveal(rel, app.memory.as_ref(), &app.flagged, h);
    app.effects.clear();
    keys(&mut app, "yY");
    assert!(
        !app.effects.iter().any(|e| matches!(e, Effect::Copy(_))),
        "{:?}",
        app.effects
    );
    assert!(screen(&app).contains("not copied: the name holds U+000A"));
}

/// The assembled context keeps its lines when copied, but not the escape
/// sequences an article holds: pasted into a terminal they would act.
#[test]
fn the_copied_context_leaves_out_escape_sequences() {
    use super::app::Effect;
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&fixture(), dir.path());
    let acme = dir.path().join("01_CLIENTS/Acme Corporation.md");
    let text = std::fs::read_to_string(&acme).unwrap();
    let text = text.replace(
        "# Acme Corporation",
        "# Acme Corporation\x1b]52;c;aGk=\x07\x1b[2J",
    );
    std::fs::write(&acme, text).unwrap();
    let mut app = app_at(dir.path(), 100, 30);
    let theme = app.theme.clone();
    app.panes.context.set_field(
        Field::Client,
        "Acme Corporation",
        bank_of(app.memory.as_ref()),
        &theme,
    );
    while app.focus != Pane::Context {
        key(&mut app, KeyCode::Tab);
    }
    keys(&mut app, "C");
    let Some(Effect::Copy(copied)) = app.effects.last() else {
        panic!("{:?}", app.effects)
    };
    assert!(copied.contains("# Acme Corporation\n"), "{copied}");
    assert!(
        !copied.contains('\x1b') && !copied.contains('\x07'),
        "{copied:?}"
    );
    assert!(screen(&app).contains("2 control characters left out"));
}

pub(super) fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn popups_take_keys_through_the_key_map() {
    use std::collections::BTreeMap;
    let mut app = app_at(&fixture(), 80, 24);
    let mut overrides = BTreeMap::new();
    overrides.insert("choose".to_owned(), vec!["ctrl-o".to_owned()]);
    overrides.insert("close".to_owned(), vec!["x".to_owned()]);
    app.keymap = KeyMap::default().with_overrides(&overrides).unwrap();
    // In the finder, `q` and `Tab` type or do nothing; they do not quit or
    // switch panes, and the rebound key chooses.
    keys(&mut app, "/");
    keys(&mut app, "qnaleving");
    assert!(app.effects.is_empty(), "q typed, did not quit");
    key(&mut app, KeyCode::Home);
    key(&mut app, KeyCode::Delete);
    key(&mut app, KeyCode::Enter);
    assert!(app.popup.is_some(), "Enter is no longer bound to choose");
    let ctrl_o = KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL);
    update(&mut app, Msg::Key(ctrl_o));
    assert!(app.popup.is_none());
    assert_eq!(
        app.panes.article.rel.as_deref(),
        Some("02_TERMINOLOGY/compliance → naleving.md")
    );
    // The help popup closes with its rebound key only.
    keys(&mut app, "?");
    key(&mut app, KeyCode::Esc);
    assert!(app.popup.is_some());
    keys(&mut app, "x");
    assert!(app.popup.is_none());
}

#[test]
fn the_interface_is_usable_before_the_bank_is_read_and_fills_in_after() {
    let root = fixture();
    let mut app = App::new(
        Box::new(Bank::unread(&root).unwrap()),
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, 100, 30),
        crate::tui::TESTS_CLOCK,
    );
    // Keys work on the empty bank while the loader thread reads.
    key(&mut app, KeyCode::Down);
    update(&mut app, Msg::Loading(3));
    assert!(screen(&app).contains("reading the memory bank… 3 files"));
    assert!(bank_of(app.memory.as_ref()).articles().is_empty());
    let files_read = std::sync::atomic::AtomicUsize::new(0);
    let loaded = Bank::load_counting(&root, &files_read)
        .map(|b| Box::new(b) as Box<dyn Memory>)
        .map_err(|e| e.to_string());
    update(&mut app, Msg::Loaded(Box::new(loaded.map(Into::into))));
    let n = bank_of(app.memory.as_ref()).articles().len();
    assert!(n > 0);
    assert!(files_read.load(std::sync::atomic::Ordering::Relaxed) >= n);
    // Said once, by the count, not again as a message.
    let s = screen(&app);
    assert!(s.contains(&format!("│ {n} articles ")), "{s}");
    assert!(
        !s.contains("articles read") && !s.contains("reading the bank"),
        "{s}"
    );
    assert!(app.panes.bank.rows.len() > 1, "the tree fills in");
}

#[test]
fn the_tree_shows_the_walked_files_before_they_are_read() {
    use super::panes::bank::RowKind;
    let root = fixture();
    let spec = membank_core::memory::LayoutKind::Bank.spec();
    let mut app = App::new(
        Box::new(super::unread::Unread::new(spec, root.clone())),
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, 100, 24),
        crate::tui::TESTS_CLOCK,
    );
    app.bank_label = "fixtures/bank".into();
    app.status.bank = app.bank_label.clone();
    // The loader's walk reports first, then the files are read.
    let files_read = std::sync::atomic::AtomicUsize::new(0);
    let mut listed = Vec::new();
    let open = spec.open_listing.expect("a bank lists its files first");
    let loaded = open(&root, &files_read, &mut |paths| listed = paths);
    let tree = super::panes::bank::ListedTree::of(listed, app.panes.bank.expanded());
    update(&mut app, Msg::Listed(Box::new(tree)));
    update(&mut app, Msg::Loading(4));
    assert_snapshot!(screen(&app));
    // The tree is usable: move to a client and open it.
    let acme = app
        .panes
        .bank
        .rows
        .iter()
        .position(
            |r| matches!(&r.kind, RowKind::File { rel } if rel.ends_with("Acme Corporation.md")),
        )
        .expect("the walked client is in the tree");
    app.panes.bank.cursor.selected = acme;
    key(&mut app, KeyCode::Enter);
    assert!(screen(&app).contains("01_CLIENTS/Acme Corporation.md"));
    // Finding by name needs what is in the files: it says so, not an
    // empty finder.
    let find = KeyEvent::new(KeyCode::Char('p'), KeyModifiers::CONTROL);
    update(&mut app, Msg::Key(find));
    assert!(app.popup.is_none());
    assert!(
        screen(&app).contains("the memory bank is still being read"),
        "{}",
        screen(&app)
    );
    assert!(!screen(&app).contains("0 files"), "nothing is counted yet");
    // The bank arrives: the same row stays selected, now with its findings.
    update(
        &mut app,
        Msg::Loaded(Box::new(loaded.map_err(|e| e.to_string()).map(Into::into))),
    );
    let selected = app.panes.bank.selected().map(|r| r.kind.clone());
    assert!(
        matches!(&selected, Some(RowKind::File { rel }) if rel.ends_with("Acme Corporation.md")),
        "{selected:?}"
    );
    assert!(!bank_of(app.memory.as_ref()).articles().is_empty());
    update(&mut app, Msg::Key(find));
    assert!(screen(&app).contains("Find article"));
}

/// The codes the interface's health report holds for `path`.
fn codes_of(app: &App, path: &str) -> Vec<&'static str> {
    app.health
        .findings
        .iter()
        .filter(|f| &*f.path == path)
        .map(|f| f.code())
        .collect()
}

#[test]
fn the_interface_measures_staleness_from_its_clock() {
    use membank_core::clock::Clock;
    let bank = || Box::new(Bank::load(fixture()).unwrap());
    let app = |clock| {
        App::new(
            bank(),
            Theme::default_theme(),
            KeyMap::default(),
            Rect::new(0, 0, 100, 30),
            clock,
        )
    };
    let now = app(crate::tui::TESTS_CLOCK);
    let legal = "03_DOMAINS/Legal.md";
    assert!(!codes_of(&now, legal).contains(&"stale"));
    let later = app(Clock::pinned_at("2029-11-26").unwrap());
    assert!(codes_of(&later, legal).contains(&"stale"));
}

/// `m` shows the last message in full, however long, even once it left
/// the bar.
#[test]
fn m_shows_the_last_message_in_full() {
    let mut app = app_at(&fixture(), 40, 12);
    let long = "copied; this message is much longer than the forty columns of the bar";
    app.status.info(long);
    let bar = screen(&app);
    assert!(bar.contains("m more"), "{bar}");
    app.status
        .expire(std::time::Instant::now() + std::time::Duration::from_secs(60));
    keys(&mut app, "m");
    let Some(super::app::Popup::Help(help)) = &app.popup else {
        panic!("no popup");
    };
    let said: Vec<String> = help.body.iter().map(ToString::to_string).collect();
    assert_eq!(said, [long]);
    let shown = screen(&app);
    assert!(shown.contains("forty columns"), "{shown}");
}

/// A prompt too wide for its pane ends in "…".
#[test]
fn health_prompts_cut_at_the_pane_edge_end_in_an_ellipsis() {
    let mut app = app_at(&fixture(), 80, 24);
    app.focus_pane(Pane::Health);
    keys(&mut app, "/stale");
    let shown = screen(&app);
    let filter = shown.lines().find(|l| l.contains("filter: stale")).unwrap();
    assert!(filter.contains("…│"), "{filter}");
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "Q");
    let shown = screen(&app);
    let file = shown.lines().find(|l| l.contains("file:")).unwrap();
    assert!(file.contains("path of an XLIFF"), "{file}");
    assert!(file.contains("…│"), "{file}");
}

/// One finding shown agrees with its verb.
#[test]
fn health_filter_summary_agrees_in_number() {
    let mut app = app_at(&fixture(), 80, 24);
    app.focus_pane(Pane::Health);
    keys(&mut app, "/dead");
    assert_eq!(app.panes.health.summary, "1 of 5 matches “dead”");
    key(&mut app, KeyCode::Esc);
    keys(&mut app, "/orphan");
    assert_eq!(app.panes.health.summary, "2 of 5 match “orphan”");
}

/// At 40 columns every tab is in the row, and the focused one, Agents
/// too, is highlighted.
#[test]
fn every_tab_fits_a_narrow_screen_with_the_focused_one_highlighted() {
    let mut app = app_at(&fixture(), 40, 12);
    keys(&mut app, "a");
    assert_eq!(app.focus, Pane::Agents);
    let mut term = Terminal::new(TestBackend::new(40, 12)).unwrap();
    term.draw(|f| ui::draw(f, &app)).unwrap();
    let buffer = term.backend().buffer();
    let row: String = (0..40)
        .map(|x| buffer[(x, 0)].symbol().to_owned())
        .collect();
    for name in ["Bank", "Article", "Context", "Health", "Agents"] {
        assert!(row.contains(name), "{row}");
    }
    let at = row[..row.find("Agents").unwrap()].chars().count();
    let selection = app.theme.selection;
    let cell = &buffer[(at as u16, 0)];
    assert!(cell.modifier.contains(selection.add_modifier), "{cell:?}");
    if let Some(bg) = selection.bg {
        assert_eq!(cell.bg, bg);
    }
    // Narrower still, zoomed: the names are cut, and say so.
    let mut app = app_at(&fixture(), 30, 12);
    keys(&mut app, "z");
    let first = screen(&app).lines().next().unwrap().to_owned();
    assert!(first.contains('…'), "{first}");
    assert!(first.contains("[zoomed: z]"), "{first}");
}

/// The tree's hint names what → does.
#[test]
fn the_tree_hint_says_right_expands() {
    let app = app_at(&fixture(), 40, 12);
    let shown = screen(&app);
    assert!(shown.contains("→ expand"), "{shown}");
}

/// At 40 columns a description goes under its keys, whole phrases kept
/// together in its own column.
#[test]
fn narrow_key_help_puts_descriptions_under_their_keys() {
    let mut app = app_at(&fixture(), 40, 40);
    keys(&mut app, "?");
    let shown = screen(&app);
    assert!(shown.contains("│      open / follow"), "{shown}");
    assert!(!shown.contains("open /│"), "{shown}");
}

/// keys.md: a `[keys]` clash is warned about on the status bar at start.
/// The last query restored at start is said after it, not over it.
#[test]
fn a_key_clash_warning_survives_the_restored_query() {
    use std::collections::BTreeMap;
    let mut app = app_at(&fixture(), 200, 30);
    let mut overrides = BTreeMap::new();
    overrides.insert("find".to_owned(), vec!["ctrl-f".to_owned()]);
    app.keymap = KeyMap::default().with_overrides(&overrides).unwrap();
    super::say_key_clashes(&mut app);
    app.restore_query(&crate::last_query::SavedQuery {
        client: "Acme Corporation".into(),
        ..Default::default()
    });
    let (said, _) = app.status.last.clone().unwrap();
    assert!(
        said.contains("[keys] Ctrl-F is both find and search"),
        "{said}"
    );
    assert!(said.contains("last query restored: client="), "{said}");
}
