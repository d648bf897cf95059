//! The messages `update` takes and the effects panes queue: the words the
//! event loop, the panes and the app speak to each other.

use std::path::PathBuf;

use membank_core::health::HealthReport;
use membank_core::memory::Memory;
use ratatui::crossterm::event::{Event as TermEvent, KeyEvent, KeyEventKind, MouseEventKind};

use super::widgets::fuzzy::Finder;
use super::widgets::help::Help;

/// Messages `update` understands.
#[derive(Debug)]
pub enum Msg {
    Key(KeyEvent),
    Paste(String),
    Resize(u16, u16),
    /// Files changed on disk (absolute or bank-relative paths).
    FilesChanged(Vec<PathBuf>),
    /// The external editor closed; re-read this file.
    Edited(String),
    /// A message from the model connection.
    Llm(membank_llm::WorkerMessage),
    Error(String),
    /// Files read so far while the memory loads in the background.
    Loading(usize),
    /// The files of a bank being read, as its walk found them: the tree
    /// shows them until the bank arrives.
    Listed(Box<super::panes::bank::ListedTree>),
    /// The memory read in the background, replacing the empty one shown
    /// meanwhile.
    Loaded(Box<Result<ReadMemory, String>>),
    /// A click or the wheel (only when the mouse is on).
    Mouse(ratatui::crossterm::event::MouseEvent),
    /// Time passed: an expired status message goes.
    Tick(std::time::Instant),
    /// The search index built in the background.
    SearchIndexed(super::panes::search::Indexed),
    /// A bank's files grouped in another order in the background.
    TreeSorted(Box<super::panes::bank::SortedTree>),
    /// The memory read again whole in the background after files
    /// changed, with the notes that changed or went; `generation` tells a
    /// stale read from the latest.
    Reloaded {
        generation: u64,
        read: Box<Result<ReadMemory, String>>,
        news: super::reload::News,
    },
    /// The Recall pane's cue scanned in the background; `generation`
    /// tells a stale scan from the latest.
    Recalled {
        generation: u64,
        recalled: Box<super::panes::recall::Recalled>,
    },
    /// A translated file checked against the bank's terms in the
    /// background; `generation` tells a stale check from the latest.
    TermsChecked {
        generation: u64,
        checked: Box<super::qa_job::TermsChecked>,
    },
}

/// A memory read in the background, with its checks when they were run
/// there too (on a large memory they take as long as reading).
#[derive(Debug)]
pub struct ReadMemory {
    pub memory: Box<dyn Memory>,
    pub health: Option<HealthReport>,
    /// What the panes derive from the memory and `health`, built where they
    /// were read; none when `health` is none.
    pub derived: Option<super::reload::Derived>,
}

impl From<Box<dyn Memory>> for ReadMemory {
    fn from(memory: Box<dyn Memory>) -> ReadMemory {
        ReadMemory {
            memory,
            health: None,
            derived: None,
        }
    }
}

impl Msg {
    /// The message's name, for the log of slow steps.
    pub fn kind(&self) -> &'static str {
        match self {
            Msg::Key(_) => "key",
            Msg::Paste(_) => "paste",
            Msg::Resize(..) => "resize",
            Msg::FilesChanged(_) => "files changed",
            Msg::Edited(_) => "edited",
            Msg::Llm(_) => "model message",
            Msg::Error(_) => "error",
            Msg::Loading(_) => "loading",
            Msg::Listed(_) => "listed",
            Msg::Loaded(_) => "loaded",
            Msg::Mouse(_) => "mouse",
            Msg::Tick(_) => "tick",
            Msg::SearchIndexed(_) => "search indexed",
            Msg::TreeSorted(_) => "tree sorted",
            Msg::Reloaded { .. } => "reloaded",
            Msg::TermsChecked { .. } => "terms checked",
            Msg::Recalled { .. } => "recalled",
        }
    }

    /// Terminal events that matter; key releases and mouse moves do not.
    pub fn from_terminal(ev: TermEvent) -> Option<Msg> {
        match ev {
            TermEvent::Key(k) if k.kind != KeyEventKind::Release => Some(Msg::Key(k)),
            TermEvent::Paste(s) => Some(Msg::Paste(s)),
            TermEvent::Resize(w, h) => Some(Msg::Resize(w, h)),
            TermEvent::Mouse(m)
                if !matches!(m.kind, MouseEventKind::Moved | MouseEventKind::Drag(_)) =>
            {
                Some(Msg::Mouse(m))
            }
            _ => None,
        }
    }
}

/// What a pane asks of the rest of the program. The app applies the first
/// group as it updates; the rest need the terminal and are left in
/// `App::effects` for the runner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Show a file in the Article pane and focus it, scrolled to a file
    /// line and with a note above it when given.
    ShowArticle {
        rel: String,
        line: Option<usize>,
        banner: Option<String>,
    },
    /// Show one entry of a file that holds several, and focus the article.
    ShowEntry {
        rel: String,
        /// Its id, with the hit's line to tell apart entries that share it.
        entry: crate::tui::panes::document::EntryAt,
    },
    /// Select a file in the Bank pane.
    RevealInBank(String),
    /// These bank-relative paths changed on disk: read them again.
    Reload(Vec<String>),
    /// membank itself wrote these paths: read them again without saying
    /// so, now or when the file watcher reports the same write, so the
    /// message about the write stays.
    Wrote(Vec<String>),
    /// Run the health checks again and say what they found.
    RerunHealth,
    Info(String),
    /// Where the Article pane's selected link goes: a note about that
    /// selection, dropped once it is gone (another article, no link).
    LinkNote(String),
    /// Where the article search is: a note dropped once the search is
    /// cleared.
    SearchNote(String),
    Warn(String),
    Quit,
    Suspend,
    Edit {
        rel: String,
        line: Option<usize>,
    },
    Copy(String),
    /// The tree moved onto a file: show it in the Article pane, when both
    /// are on screen, without moving the focus.
    Preview(String),
    /// Group a bank's files in this order off the interface thread.
    SortTree {
        sort: super::panes::bank::TreeSort,
        generation: u64,
    },
    /// Build the search index of the open memory off the interface thread.
    IndexSearch {
        generation: u64,
    },
    /// Ask the user before going ahead (a yes carries the action out).
    Ask(super::widgets::confirm::Confirm),
    /// Make the tree pane this many columns wider (narrower when negative).
    ResizeTree(i16),
    /// Check a translated file against the bank's terms off the
    /// interface thread and show the report in the Health pane.
    CheckTerms(PathBuf),
    /// Scan the Recall pane's cue off the interface thread.
    Recall,
    /// Show text too long for its pane in a popup that scrolls.
    ShowText {
        title: String,
        lines: Vec<ratatui::text::Line<'static>>,
    },
}

impl Effect {
    pub fn open(rel: impl Into<String>) -> Effect {
        Effect::ShowArticle {
            rel: rel.into(),
            line: None,
            banner: None,
        }
    }

    pub(crate) fn needs_terminal(&self) -> bool {
        matches!(
            self,
            Effect::Quit | Effect::Suspend | Effect::Edit { .. } | Effect::Copy(_)
        )
    }
}

pub enum Popup {
    Help(Help),
    Finder(Box<Finder>),
    /// Full-text search over a layout whose Context slot is something else;
    /// the query and hits live in `Panes::search`.
    Search,
    /// A yes/no question that must be answered first.
    Confirm(super::widgets::confirm::Confirm),
    /// A rename, a new article or note: the line it needs, then what it
    /// writes, written on Enter.
    Write(Box<super::panes::write_dialog::WriteDialog>),
}
