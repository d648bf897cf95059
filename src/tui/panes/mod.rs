//! The panes, each behind the same contract ([`Component`]): it
//! handles an action, handles a key while its input has the keyboard,
//! names its key hints, and draws from its own state. Anything a pane
//! cannot do itself (open an article in another pane, copy, reload files,
//! say something in the status bar) it puts on the app's one effect queue.

pub mod agents;
pub mod article;
pub mod bank;
pub mod context;
pub mod cursor;
pub mod document;
pub mod groups;
pub mod health;
pub mod health_fix;
pub mod no_agents;
mod pane;
pub mod qa;
pub mod recall;
pub mod search;
pub mod set;
pub mod slot;
pub mod write_dialog;

pub use pane::{LOADING, Pane};

use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::clock::Clock;
use membank_core::health::HealthReport;
use membank_core::memory::Memory;
use membank_core::scoring::Query;
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::keys::{Action, KeyMap, Scope};
use super::messages::Effect;
use super::osc52;
use super::theme::Theme;
use health::Flagged;

/// What a pane is given for one call: the shared state to read, its size,
/// and the queue to put effects on.
pub struct Cx<'a> {
    /// The open memory, whatever its layout.
    pub memory: &'a dyn Memory,
    /// The same memory when it is a bank, for what only a bank does (§7
    /// context, the agents' context assembly, writes).
    pub bank: Option<&'a Bank>,
    pub theme: &'a Theme,
    /// The health report of the last refresh (run once, shown by several).
    pub health: &'a HealthReport,
    /// Files with health findings (the Bank pane marks them).
    pub flagged: &'a Flagged,
    /// Rows of the pane's list (its inside minus fixed parts).
    pub height: usize,
    /// Columns the article is laid out at.
    pub article_width: u16,
    /// The Context pane's settings, which the agents use too.
    pub query: Query,
    pub budget: BudgetOptions,
    /// Where "today" comes from, for every date the panes write.
    pub clock: Clock,
    pub effects: &'a mut Vec<Effect>,
}

impl Cx<'_> {
    pub fn info(&mut self, text: impl Into<String>) {
        self.effects.push(Effect::Info(text.into()));
    }

    pub fn warn(&mut self, text: impl Into<String>) {
        self.effects.push(Effect::Warn(text.into()));
    }

    /// Copy a file's path as shown (relative to the bank) and say so.
    pub fn copy_path(&mut self, rel: Option<String>) -> bool {
        let Some(rel) = rel else {
            return false;
        };
        self.copy_short(rel, "name", "; rename the file");
        true
    }

    /// Copy a short text taken from a file (a path, a link, an entry id) and
    /// say so, unless it holds a character that would act when pasted: a
    /// newline in a name runs what follows it in a shell. The screen shows
    /// such a name safely; the clipboard would not, so nothing is copied.
    pub fn copy_short(&mut self, text: String, what: &str, fix: &str) {
        match osc52::acts_when_pasted(&text) {
            Some(c) => self.warn(osc52::refusal(what, c, fix)),
            None => {
                self.info(format!("copied {}", sanitize_for_terminal(&text, false)));
                self.effects.push(Effect::Copy(text));
            }
        }
    }

    /// Copy a long text taken from files or a model (an assembled context, a
    /// reply), which has newlines of its own: escape sequences and other
    /// control characters are left out rather than the copy refused, and
    /// `said` (what the status bar reports) tells that they were.
    pub fn copy_long(&mut self, text: &str, said: String) {
        let (text, dropped) = osc52::pasteable(text);
        match dropped {
            0 => self.info(said),
            n => self.warn(format!(
                "{said}; {n} control character{} left out",
                if n == 1 { "" } else { "s" }
            )),
        }
        self.effects.push(Effect::Copy(text));
    }

    /// Copy a `[[wikilink]]` to a file (its name, as Obsidian writes it),
    /// or a Markdown link from the bank's root to a file whose name a
    /// wikilink cannot hold (`C# notes`: `[[C# notes]]` would open `C`).
    pub fn copy_link(&mut self, rel: Option<String>) -> bool {
        let Some(rel) = rel else {
            return false;
        };
        let file_name = rel.rsplit('/').next().unwrap_or(&rel);
        if membank_core::wikilink::unlinkable_name(file_name).is_some() {
            let link = membank_core::wikilink::markdown_link_to(&rel);
            self.copy_short(link, "name", "; rename the file");
            return true;
        }
        // A name other files share takes its folders, so the link opens
        // this file and no other.
        let name = match self.bank.and_then(|b| b.unique_link_name(&rel)) {
            Some(name) => name,
            None => {
                let name = rel.rsplit('/').next().unwrap_or(&rel);
                name.strip_suffix(".md").unwrap_or(name).to_owned()
            }
        };
        self.copy_short(format!("[[{name}]]"), "name", "; rename the file");
        true
    }

    /// Open a file in the external editor.
    pub fn edit(&mut self, rel: Option<String>, line: Option<usize>) -> bool {
        let Some(rel) = rel else {
            return false;
        };
        self.effects.push(Effect::Edit { rel, line });
        true
    }
}

/// The contract every pane keeps.
pub trait Component {
    /// The key-map scope its actions are looked up in.
    fn scope(&self) -> Scope;

    /// The border title.
    fn title(&self) -> String;

    /// An action from the key map. Returns whether the pane changed.
    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool;

    /// Whether keys go to the pane's text input instead of the key map.
    fn is_typing(&self) -> bool {
        false
    }

    /// A key while [`Component::is_typing`]. Returns whether the pane changed.
    fn on_typing_key(&mut self, _key: KeyEvent, _cx: &mut Cx) -> bool {
        false
    }

    /// Pasted text. Returns whether it was taken.
    fn on_paste(&mut self, _text: &str, _cx: &mut Cx) -> bool {
        false
    }

    /// The pane got the focus.
    fn on_focus(&mut self) {}

    /// One line of key hints for the bottom border.
    fn hints(&self, keymap: &KeyMap) -> String;

    /// Draw from the pane's state only: nothing is read, parsed or scored.
    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme);
}

/// "Enter open · → fold · ? keys": the first key of each action, then help.
pub fn hint_text(keymap: &KeyMap, pick: &[(Action, &str)]) -> String {
    let mut parts: Vec<String> = pick
        .iter()
        .filter_map(|(a, what)| keymap.keys(*a).first().map(|k| format!("{k} {what}")))
        .collect();
    if let Some(k) = keymap.keys(Action::Help).first() {
        parts.push(format!("{k} keys"));
    }
    parts.join(" · ")
}

/// Rows a page key moves in a list of `height` rows.
pub fn page(height: usize) -> isize {
    height.saturating_sub(1).max(1) as isize
}

/// A selected row: padded to the pane's width so the highlight spans the
/// whole row, not just the text.
pub fn highlight_row(line: Line<'static>, width: u16, style: Style) -> Line<'static> {
    let used = line.width();
    let mut line = line;
    let width = usize::from(width);
    if used < width {
        line.spans.push(Span::raw(" ".repeat(width - used)));
    }
    line.style(style)
}

/// Why a file shown in a pane cannot be read. A file deleted while it
/// was shown says so, rather than quoting the system's error.
pub(crate) fn read_problem(e: &membank_core::safe_read::ReadError) -> String {
    if e.is_not_found() {
        "deleted: the file is no longer on disk".to_owned()
    } else {
        e.to_string()
    }
}
