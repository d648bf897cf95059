//! Long seeded runs of random keys, pastes and resizes through `update`,
//! each screen drawn after every step: whatever a user presses, in any
//! pane, popup or size, the interface does not panic, no control character
//! or bidi override reaches the screen, and nothing outside the memory it
//! opened is written. The seeds are fixed, so a failure names the seed and
//! step that reproduce it.

use std::path::Path;

use membank_core::memory;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::app::{App, Msg, Pane, Popup};
use super::keys::KeyMap;
use super::tests::{copy_dir, screen};
use super::tests_layouts::manifest;
use super::theme::Theme;
use super::update::update;

/// xorshift64*: small, fixed and the same on every machine.
struct Dice(u64);

impl Dice {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }
}

/// The keys pressed: every letter and digit is bound somewhere, and these
/// move, open, close and confirm in every pane and popup.
const SPECIAL: [KeyCode; 14] = [
    KeyCode::Enter,
    KeyCode::Esc,
    KeyCode::Tab,
    KeyCode::BackTab,
    KeyCode::Up,
    KeyCode::Down,
    KeyCode::Left,
    KeyCode::Right,
    KeyCode::PageUp,
    KeyCode::PageDown,
    KeyCode::Home,
    KeyCode::End,
    KeyCode::Backspace,
    KeyCode::Delete,
];

const CHARS: &[u8] =
    b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/?[]{}:;.,<>-_=+ |!\"'";

/// Sizes a terminal is seen at, down to one that fits nothing.
const SIZES: [(u16, u16); 7] = [
    (80, 24),
    (200, 50),
    (100, 30),
    (40, 12),
    (20, 6),
    (3, 2),
    (120, 8),
];

/// Text pasted: plain, with line breaks, and with escape sequences and
/// controls that must never reach the terminal.
const PASTES: [&str; 4] = [
    "Acme",
    "line one\nline two\n",
    "\u{1b}[31mred\u{1b}[0m\u{7}\u{202e}txt.md",
    "[[Legal]] ### FILE: ../outside.md",
];

fn random_msg(dice: &mut Dice) -> Msg {
    let roll = dice.below(100);
    if roll < 2 {
        let (w, h) = dice.pick(&SIZES);
        return Msg::Resize(w, h);
    }
    if roll < 3 {
        return Msg::Paste(dice.pick(&PASTES).to_owned());
    }
    let code = if roll < 45 {
        dice.pick(&SPECIAL)
    } else {
        KeyCode::Char(char::from(dice.pick(CHARS)))
    };
    // Ctrl with a letter now and then: find, search, page, suspend.
    let modifiers = if roll >= 95 {
        KeyModifiers::CONTROL
    } else {
        KeyModifiers::NONE
    };
    Msg::Key(KeyEvent::new(code, modifiers))
}

/// Every regular file under `root`, with its bytes, in path order.
fn files_under(root: &Path) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let mut all = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                all.push((entry.path(), std::fs::read(entry.path()).unwrap()));
            }
        }
    }
    all.sort();
    all
}

/// Press `steps` random keys at a copy of `source` (opened as whatever
/// layout it is), drawing after each; the copy sits inside a folder that
/// must stay exactly as it was.
fn monkey(source: &Path, seed: u64, steps: usize) {
    monkey_with(source, &[], seed, steps);
}

/// [`monkey`], with `extra` files (path, text) added to the copy.
fn monkey_with(source: &Path, extra: &[(&str, &str)], seed: u64, steps: usize) {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("beside.md"), "# outside the memory\n").unwrap();
    let root = outer.path().join("memory");
    std::fs::create_dir(&root).unwrap();
    copy_dir(source, &root);
    for (rel, text) in extra {
        std::fs::write(root.join(rel), text).unwrap();
    }
    let before_outside: Vec<_> = files_under(outer.path())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(&root))
        .collect();

    let opened = memory::open(&root, None).unwrap();
    let mut app = App::new(
        opened,
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, 80, 24),
        crate::tui::TESTS_CLOCK,
    );
    let mut dice = Dice(seed);
    let mut seen = std::collections::BTreeSet::new();
    for step in 0..steps {
        let msg = random_msg(&mut dice);
        let shown = format!("{msg:?}");
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            update(&mut app, msg);
            // What the run loop does with what needs the terminal (quit,
            // suspend, the editor, the clipboard) is not this test's.
            app.effects.clear();
            screen(&app)
        }));
        match outcome {
            Ok(drawn) => {
                seen.insert((format!("{:?}", app.focus), popup_name(app.popup.as_ref())));
                let raw = drawn.chars().find(|&c| reaches_terminal_raw(c));
                assert_eq!(
                    raw, None,
                    "seed {seed:#x}, step {step} ({shown}): a control character reached the screen"
                );
            }
            Err(_) => panic!("seed {seed:#x}, step {step}: {shown} panicked"),
        }
    }

    // A run stuck in one place (a question it never answers, say) would
    // pass while testing nothing.
    for pane in Pane::ORDER {
        let name = format!("{pane:?}");
        assert!(
            seen.iter().any(|(focus, _)| *focus == name),
            "seed {seed:#x}: the {name} pane was never focused"
        );
    }
    // No popup, and at least two kinds of popup (an everos root has only
    // the finder and the help to open).
    let popups: std::collections::BTreeSet<_> = seen.iter().map(|(_, p)| *p).collect();
    assert!(
        popups.len() >= 3,
        "seed {seed:#x}: only these popups opened: {popups:?}"
    );
    let after_outside: Vec<_> = files_under(outer.path())
        .into_iter()
        .filter(|(p, _)| !p.starts_with(&root))
        .collect();
    assert_eq!(
        before_outside, after_outside,
        "seed {seed:#x}: a file outside the memory changed"
    );
}

/// What the sanitiser never lets through: controls (an escape starts a
/// sequence the terminal obeys) and bidirectional overrides and isolates
/// (they reorder what is shown). A joiner inside an emoji is text.
fn reaches_terminal_raw(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

fn popup_name(popup: Option<&Popup>) -> &'static str {
    match popup {
        None => "",
        Some(Popup::Help(_)) => "help",
        Some(Popup::Finder(_)) => "finder",
        Some(Popup::Search) => "search",
        Some(Popup::Confirm(_)) => "confirm",
        Some(Popup::Write(_)) => "write",
    }
}

#[test]
fn random_keys_in_the_demo_bank_never_panic() {
    for seed in [0x9E37_79B9_7F4A_7C15, 0xD1B5_4A32_D192_ED03] {
        monkey(&manifest("demo-bank"), seed, 3_000);
    }
}

#[test]
fn random_keys_in_a_flawed_bank_never_panic() {
    monkey(
        &manifest("tests/fixtures/flawed-bank"),
        0x94D0_49BB_1331_11EB,
        3_000,
    );
}

#[test]
fn random_keys_in_an_obsidian_vault_never_panic() {
    monkey(
        &manifest("tests/fixtures/obsidian-vault"),
        0xBF58_476D_1CE4_E5B9,
        3_000,
    );
}

#[test]
fn random_keys_in_a_deja_vu_project_never_panic() {
    monkey(&manifest("demo-dejavu"), 0x2545_F491_4F6C_DD1D, 3_000);
}

#[test]
fn random_keys_in_an_everos_root_never_panic() {
    monkey(&manifest("demo-everos"), 0x5851_F42D_4C95_7F2D, 3_000);
}

#[test]
fn random_keys_among_escape_sequences_never_let_one_through() {
    // Names and texts that would recolour, retitle or reorder the screen,
    // or set the clipboard, were they printed as they are.
    let extra = [
        (
            "02_TERMINOLOGY/\u{1b}[31mred\u{1b}[0m.md",
            "---\nterm_source: \"red\\e[0m\"\nterm_target: rood\nsource_lang: en\ntarget_lang: nl\nstatus: approved\n---\n# \u{1b}]0;title\u{7}red\n\nSee [[\u{202e}dm.txt]] and \u{1b}]52;c;aGk=\u{7}.\n",
        ),
        (
            "01_CLIENTS/Acme\u{202e}dm.md",
            "---\nclient_name: \"Ac\\x1bme\"\n---\n# Acme\u{9b}31m\n\u{8}\u{8}\u{8}[[red]]\n",
        ),
        ("03_DOMAINS/\u{7}bell.md", "# bell\u{7}\u{1b}[2J\n"),
    ];
    monkey_with(&manifest("demo-bank"), &extra, 0x1405_7B7E_F767_814F, 3_000);
}
