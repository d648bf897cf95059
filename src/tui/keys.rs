//! Actions, the keys bound to them, and parsing of key names from the config.
//!
//! Keys are looked up per context: a pane's own bindings first, then the
//! global ones. Each pane lists the actions it answers to, which is what the
//! help popup shows.

use std::collections::BTreeMap;
use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// A key with its modifiers, normalised so that `Shift` is never recorded
/// for characters (the character itself carries the case).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Key {
    pub code: KeyCodeOrd,
    pub ctrl: bool,
    pub alt: bool,
    pub shift: bool,
}

/// `KeyCode` without the variants membank never binds, made orderable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyCodeOrd {
    Char(char),
    F(u8),
    Enter,
    Esc,
    Backspace,
    Tab,
    BackTab,
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
    PageUp,
    PageDown,
    Delete,
    Insert,
}

impl Key {
    pub const fn plain(code: KeyCodeOrd) -> Key {
        Key {
            code,
            ctrl: false,
            alt: false,
            shift: false,
        }
    }

    pub const fn ch(c: char) -> Key {
        Key::plain(KeyCodeOrd::Char(c))
    }

    pub const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCodeOrd::Char(c),
            ctrl: true,
            alt: false,
            shift: false,
        }
    }

    pub fn from_event(ev: &KeyEvent) -> Option<Key> {
        let code = match ev.code {
            KeyCode::Char(c) => KeyCodeOrd::Char(c),
            KeyCode::F(n) => KeyCodeOrd::F(n),
            KeyCode::Enter => KeyCodeOrd::Enter,
            KeyCode::Esc => KeyCodeOrd::Esc,
            KeyCode::Backspace => KeyCodeOrd::Backspace,
            KeyCode::Tab => KeyCodeOrd::Tab,
            KeyCode::BackTab => KeyCodeOrd::BackTab,
            KeyCode::Up => KeyCodeOrd::Up,
            KeyCode::Down => KeyCodeOrd::Down,
            KeyCode::Left => KeyCodeOrd::Left,
            KeyCode::Right => KeyCodeOrd::Right,
            KeyCode::Home => KeyCodeOrd::Home,
            KeyCode::End => KeyCodeOrd::End,
            KeyCode::PageUp => KeyCodeOrd::PageUp,
            KeyCode::PageDown => KeyCodeOrd::PageDown,
            KeyCode::Delete => KeyCodeOrd::Delete,
            KeyCode::Insert => KeyCodeOrd::Insert,
            _ => return None,
        };
        let is_char = matches!(code, KeyCodeOrd::Char(_));
        let is_backtab = code == KeyCodeOrd::BackTab;
        let m = ev.modifiers;
        let code = match code {
            // Terminals report Ctrl-letters in either case; store lowercase.
            KeyCodeOrd::Char(c) if m.contains(KeyModifiers::CONTROL) => {
                KeyCodeOrd::Char(c.to_ascii_lowercase())
            }
            other => other,
        };
        Some(Key {
            code,
            ctrl: m.contains(KeyModifiers::CONTROL),
            alt: m.contains(KeyModifiers::ALT),
            shift: m.contains(KeyModifiers::SHIFT) && !is_char && !is_backtab,
        })
    }

    /// Parse names such as `q`, `ctrl-p`, `shift-tab`, `enter`, `pgdn`, `f1`.
    pub fn parse(name: &str) -> anyhow::Result<Key> {
        let mut key = Key::ch(' ');
        let mut rest = name;
        loop {
            let lower = rest.to_ascii_lowercase();
            if let Some(r) = lower.strip_prefix("ctrl-").or(lower.strip_prefix("c-")) {
                key.ctrl = true;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower.strip_prefix("alt-").or(lower.strip_prefix("a-")) {
                key.alt = true;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower.strip_prefix("shift-").or(lower.strip_prefix("s-")) {
                key.shift = true;
                rest = &rest[rest.len() - r.len()..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        key.code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCodeOrd::Char(if key.ctrl { c.to_ascii_lowercase() } else { c }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" | "ret" => KeyCodeOrd::Enter,
                "esc" | "escape" => KeyCodeOrd::Esc,
                "backspace" | "bs" => KeyCodeOrd::Backspace,
                "tab" if key.shift => {
                    key.shift = false;
                    KeyCodeOrd::BackTab
                }
                "tab" => KeyCodeOrd::Tab,
                "backtab" => KeyCodeOrd::BackTab,
                "up" => KeyCodeOrd::Up,
                "down" => KeyCodeOrd::Down,
                "left" => KeyCodeOrd::Left,
                "right" => KeyCodeOrd::Right,
                "home" => KeyCodeOrd::Home,
                "end" => KeyCodeOrd::End,
                "pageup" | "pgup" => KeyCodeOrd::PageUp,
                "pagedown" | "pgdn" | "pgdown" => KeyCodeOrd::PageDown,
                "delete" | "del" => KeyCodeOrd::Delete,
                "insert" | "ins" => KeyCodeOrd::Insert,
                "space" => KeyCodeOrd::Char(' '),
                f if f.starts_with('f') && f.len() > 1 => {
                    let n: u8 = f[1..].parse().map_err(|_| unknown_key_name())?;
                    KeyCodeOrd::F(n)
                }
                _ => return Err(unknown_key_name()),
            },
        };
        if let KeyCodeOrd::Char(c) = key.code {
            // A character key arrives as the character shift makes (`S`,
            // `?`), so `shift-s` means `S`: clearing shift alone would
            // quietly bind `s`. Shift with a character that has no upper
            // case names no key of its own: refused rather than guessed.
            // (With ctrl the letter's case is ignored, as terminals do.)
            if key.shift && !key.ctrl {
                let mut upper = c.to_uppercase();
                match (upper.next(), upper.next()) {
                    (Some(u), None) if u != c => key.code = KeyCodeOrd::Char(u),
                    _ => anyhow::bail!(
                        "shift- goes with a letter (shift-s is S) or tab; for another \
                         character write the character shift makes, such as ?"
                    ),
                }
            }
            key.shift = false;
        }
        Ok(key)
    }
}

/// A key name membank does not know, told without quoting it (a key pasted
/// into the config file by mistake would be printed) but with what is known.
fn unknown_key_name() -> anyhow::Error {
    anyhow::anyhow!(
        "not a key name membank knows (names are one character, space, enter, esc, tab, \
         backspace, up, down, left, right, home, end, pgup, pgdn, del, ins or f1-f12, \
         after ctrl-, alt- or shift-: see docs/keys.md)"
    )
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.ctrl {
            f.write_str("Ctrl-")?;
        }
        if self.alt {
            f.write_str("Alt-")?;
        }
        if self.shift {
            f.write_str("Shift-")?;
        }
        match self.code {
            KeyCodeOrd::Char(' ') => f.write_str("Space"),
            KeyCodeOrd::Char(c) if self.ctrl => write!(f, "{}", c.to_ascii_uppercase()),
            KeyCodeOrd::Char(c) => write!(f, "{c}"),
            KeyCodeOrd::F(n) => write!(f, "F{n}"),
            KeyCodeOrd::Enter => f.write_str("Enter"),
            KeyCodeOrd::Esc => f.write_str("Esc"),
            KeyCodeOrd::Backspace => f.write_str("Backspace"),
            KeyCodeOrd::Tab => f.write_str("Tab"),
            KeyCodeOrd::BackTab => f.write_str("Shift-Tab"),
            KeyCodeOrd::Up => f.write_str("↑"),
            KeyCodeOrd::Down => f.write_str("↓"),
            KeyCodeOrd::Left => f.write_str("←"),
            KeyCodeOrd::Right => f.write_str("→"),
            KeyCodeOrd::Home => f.write_str("Home"),
            KeyCodeOrd::End => f.write_str("End"),
            KeyCodeOrd::PageUp => f.write_str("PgUp"),
            KeyCodeOrd::PageDown => f.write_str("PgDn"),
            KeyCodeOrd::Delete => f.write_str("Del"),
            KeyCodeOrd::Insert => f.write_str("Ins"),
        }
    }
}

macro_rules! actions {
    ($($action:ident => $name:literal, $desc:literal, [$($key:expr),*];)*) => {
        /// Everything a key can be bound to.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action { $($action,)* }

        impl Action {
            pub const ALL: &[Action] = &[$(Action::$action,)*];

            /// The name used in the config file's `[keys]` table.
            pub fn config_name(self) -> &'static str {
                match self { $(Action::$action => $name,)* }
            }

            pub fn description(self) -> &'static str {
                match self { $(Action::$action => $desc,)* }
            }

            fn default_keys(self) -> Vec<Key> {
                match self { $(Action::$action => vec![$($key),*],)* }
            }
        }
    };
}

use KeyCodeOrd as K;

actions! {
    Quit => "quit", "quit", [Key::ch('q'), Key::ctrl('c')];
    Help => "help", "show the keys of this pane", [Key::ch('?'), Key::plain(K::F(1))];
    NextPane => "next_pane", "next pane", [Key::plain(K::Tab)];
    PrevPane => "prev_pane", "previous pane", [Key::plain(K::BackTab)];
    Find => "find", "fuzzy-find an article", [Key::ch('/'), Key::ctrl('p')];
    Search => "search", "full-text search", [Key::ctrl('f')];
    Suspend => "suspend", "suspend to the shell", [Key::ctrl('z')];
    Zoom => "zoom", "zoom the pane to the full screen and back", [Key::ch('z')];
    Undo => "undo", "undo membank's last change to this memory", [Key::ch('u')];
    Capture => "capture", "quick note: the inbox, or a Deja Vu event", [Key::ch('c')];
    LastMessage => "last_message", "the last message on the status bar, in full", [Key::ch('m')];
    Rename => "rename", "rename or move the file or folder, links and all", [Key::ch('r')];
    NewArticle => "new_article", "new article in the selected folder", [Key::ch('n')];
    CreateTargets => "create_missing", "create the articles the dead links name", [Key::ch('+')];
    Up => "up", "move up", [Key::plain(K::Up), Key::ch('k')];
    Down => "down", "move down", [Key::plain(K::Down), Key::ch('j')];
    PageUp => "page_up", "page up", [Key::plain(K::PageUp), Key::ctrl('u')];
    PageDown => "page_down", "page down", [Key::plain(K::PageDown), Key::ctrl('d')];
    Top => "top", "go to the top", [Key::plain(K::Home), Key::ch('g')];
    Bottom => "bottom", "go to the bottom", [Key::plain(K::End), Key::ch('G')];
    Collapse => "collapse", "collapse the folder", [Key::plain(K::Left), Key::ch('h')];
    Expand => "expand", "expand the folder", [Key::plain(K::Right), Key::ch('l')];
    Open => "open", "open / follow", [Key::plain(K::Enter)];
    Back => "back", "back in history", [Key::plain(K::Backspace), Key::ch('b')];
    Forward => "forward", "forward in history", [Key::ch('f')];
    ToBank => "to_bank", "back to the bank tree", [Key::ch('h'), Key::plain(K::Esc)];
    NextLink => "next_link", "select the next link", [Key::ch('n')];
    PrevLink => "prev_link", "select the previous link", [Key::ch('N')];
    Edit => "edit", "open the file in $VISUAL / $EDITOR", [Key::ch('e')];
    CopyPath => "copy_path", "copy the path as shown (OSC 52)", [Key::ch('y')];
    CopyLink => "copy_link", "copy a [[wikilink]] to the file", [Key::ch('Y')];
    CopyContext => "copy_context", "copy the assembled context", [Key::ch('C')];
    Explain => "explain", "the selected candidate explained in full", [Key::ch('x')];
    SearchArticle => "search_article", "search in the article (n / N step, Esc clears)", [Key::ch('/')];
    ShowFindings => "show_findings", "show / hide the article's health findings", [Key::ch('!')];
    FoldGroup => "fold", "fold the group", [Key::plain(K::Left), Key::ch('h')];
    UnfoldGroup => "unfold", "unfold the group", [Key::plain(K::Right), Key::ch('l')];
    NextGroup => "next_group", "next group", [Key::ch(']'), Key::ch('}')];
    PrevGroup => "prev_group", "previous group", [Key::ch('['), Key::ch('{')];
    Filter => "filter", "filter by code or path (Esc clears)", [Key::ch('/')];
    ClearFilter => "clear_filter", "clear the kept filter", [Key::plain(K::Esc)];
    SortTree => "sort", "sort by name / date / findings", [Key::ch('s')];
    NarrowTree => "narrow_tree", "make the tree pane narrower", [Key::ch('<')];
    WidenTree => "widen_tree", "make the tree pane wider", [Key::ch('>')];
    Rerun => "rerun", "re-run the health checks", [Key::ch('r')];
    FixFindings => "fix", "fix the finding or group: review the changes, then write them", [Key::ch('x')];
    MarkChecked => "mark_checked", "stale: checked, still correct (last_updated becomes today)", [Key::ch('v')];
    CheckTerms => "check_terms", "check a translated file's terms (XLIFF, TMX…)", [Key::ch('Q')];
    CloseView => "close_view", "close the view: back to the list under it", [Key::plain(K::Esc)];
    ScrollDiffUp => "scroll_diff_up", "scroll the diff up", [Key::plain(K::PageUp), Key::ctrl('u')];
    ScrollDiffDown => "scroll_diff_down", "scroll the diff down", [Key::plain(K::PageDown), Key::ctrl('d')];
    EditField => "edit_field", "edit the field", [Key::ch('i')];
    Agents => "agents", "open the agents", [Key::ch('a')];
    QueryAgent => "chat_agent", "Query: chat with the bank", [Key::ch('1')];
    InboxAgent => "inbox_agent", "Process Inbox", [Key::ch('2')];
    CheckAgent => "lint_agent", "Health Check with the model", [Key::ch('3')];
    TranslateAgent => "translate_agent", "Translate with the bank", [Key::ch('4')];
    DistillAgent => "distill_agent", "Distill a document into an inbox note", [Key::ch('5')];
    Type => "type", "type in the input (Esc leaves it)", [Key::ch('i')];
    RunAgent => "run_agent", "run the agent", [Key::ch('r')];
    CancelReply => "cancel_reply", "stop the reply (what arrived is kept)", [Key::ch('s'), Key::plain(K::Esc)];
    ToggleBlock => "toggle_block", "accept / decline the proposed file", [Key::ch(' ')];
    TypeValue => "type_value", "type a value the file cannot give", [Key::ch('i')];
    AcceptAll => "accept_all", "accept every valid proposed file", [Key::ch('A')];
    DeclineAll => "decline_all", "decline every proposed file", [Key::ch('D')];
    Apply => "apply", "open the article / write the accepted files", [Key::plain(K::Enter)];
    CopyReply => "copy_reply", "copy the reply (OSC 52)", [Key::ch('y')];
    ClearChat => "clear_chat", "start a new conversation", [Key::ch('x')];
    FeedbackOutcome => "feedback_outcome", "next feedback outcome for the cue", [Key::ctrl('o')];
    SaveFeedback => "save_feedback", "append a feedback line for the cue", [Key::ch('F')];
    Close => "close", "close the popup", [Key::plain(K::Esc), Key::ch('q'), Key::plain(K::Enter)];
    Cancel => "cancel", "close without choosing", [Key::plain(K::Esc)];
    Choose => "choose", "open the chosen article", [Key::plain(K::Enter)];
    SelectPrev => "select_prev", "previous match", [Key::plain(K::Up), Key::ctrl('p'), Key::ctrl('k')];
    SelectNext => "select_next", "next match", [Key::plain(K::Down), Key::ctrl('n'), Key::ctrl('j')];
    SelectPageUp => "select_page_up", "ten matches up", [Key::plain(K::PageUp)];
    SelectPageDown => "select_page_down", "ten matches down", [Key::plain(K::PageDown)];
    ClearInput => "clear_input", "clear the typed text", [Key::ctrl('u')];
    Yes => "yes", "yes, go ahead", [Key::ch('y')];
    No => "no", "no, leave things as they are (any other key too)", [Key::ch('N'), Key::ch('n'), Key::plain(K::Esc)];
}

/// Which part of the screen a key press is meant for: a pane, a popup, or
/// everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Global,
    Bank,
    Article,
    Context,
    Health,
    Agents,
    /// A Deja Vu project's Context slot.
    Recall,
    /// Full-text search: an everos root's Context slot, a popup elsewhere.
    Search,
    /// The Health pane's review of proposed fixes.
    FixReview,
    /// The Health pane's terminology check of a translated file.
    TermCheck,
    /// The fuzzy finder: keys that are no action here are typed.
    Finder,
    /// The key help popup.
    Help,
    /// A yes/no question.
    Confirm,
}

impl Scope {
    pub const ALL: &[Scope] = &[
        Scope::Global,
        Scope::Bank,
        Scope::Article,
        Scope::Context,
        Scope::Health,
        Scope::Agents,
        Scope::Recall,
        Scope::Search,
        Scope::FixReview,
        Scope::TermCheck,
        Scope::Finder,
        Scope::Help,
        Scope::Confirm,
    ];

    /// Where the scope's keys act, as a warning names it.
    pub fn place(self) -> &'static str {
        match self {
            Scope::Global => "everywhere",
            Scope::Bank => "in the tree",
            Scope::Article => "in the Article pane",
            Scope::Context => "in the Context pane",
            Scope::Health => "in the Health pane",
            Scope::Agents => "in the Agents pane",
            Scope::Recall => "in the Recall pane",
            Scope::Search => "in the search",
            Scope::FixReview => "in a fix review",
            Scope::TermCheck => "in a terms check",
            Scope::Finder => "in the finder",
            Scope::Help => "in the key help",
            Scope::Confirm => "in a yes/no question",
        }
    }

    /// Popups take only their own keys: nothing global reaches past them.
    fn falls_back_to_global(self) -> bool {
        !matches!(self, Scope::Finder | Scope::Help | Scope::Confirm)
    }

    /// The actions a context answers to, in the order the help popup
    /// lists them.
    pub fn actions(self) -> &'static [Action] {
        use Action::*;
        match self {
            Scope::Global => &[
                Quit,
                Help,
                NextPane,
                PrevPane,
                Find,
                Search,
                Agents,
                Zoom,
                Suspend,
                Undo,
                Capture,
                LastMessage,
            ],
            Scope::Bank => &[
                Up, Down, PageUp, PageDown, Top, Bottom, Collapse, Expand, Open, SortTree,
                NarrowTree, WidenTree, Edit, CopyPath, CopyLink, Rename, NewArticle,
            ],
            Scope::Article => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                SearchArticle,
                ShowFindings,
                NextLink,
                PrevLink,
                Open,
                Back,
                Forward,
                ToBank,
                Edit,
                CopyPath,
                CopyLink,
                CreateTargets,
            ],
            Scope::Context => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                EditField,
                Open,
                Edit,
                CopyPath,
                CopyLink,
                CopyContext,
                Explain,
            ],
            Scope::Health => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                FoldGroup,
                UnfoldGroup,
                NextGroup,
                PrevGroup,
                Filter,
                ClearFilter,
                Open,
                Edit,
                Rerun,
                FixFindings,
                MarkChecked,
                CreateTargets,
                CheckTerms,
                CopyPath,
                CopyLink,
            ],
            Scope::Agents => &[
                QueryAgent,
                InboxAgent,
                CheckAgent,
                TranslateAgent,
                DistillAgent,
                Type,
                RunAgent,
                CancelReply,
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                ToggleBlock,
                AcceptAll,
                DeclineAll,
                Apply,
                CopyReply,
                ClearChat,
            ],
            Scope::Recall => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                Type,
                Open,
                FeedbackOutcome,
                SaveFeedback,
            ],
            Scope::Search => &[
                Up, Down, PageUp, PageDown, Top, Bottom, Type, Open, Edit, CopyPath,
            ],
            Scope::FixReview => &[
                Up,
                Down,
                ScrollDiffUp,
                ScrollDiffDown,
                ToggleBlock,
                AcceptAll,
                DeclineAll,
                TypeValue,
                Apply,
                CloseView,
            ],
            Scope::TermCheck => &[
                Up, Down, PageUp, PageDown, Top, Bottom, Open, Back, CheckTerms, CloseView,
            ],
            Scope::Finder => &[
                Choose,
                Cancel,
                SelectPrev,
                SelectNext,
                SelectPageUp,
                SelectPageDown,
                ClearInput,
            ],
            Scope::Help => &[Close, Help, Up, Down, PageUp, PageDown, Top, Bottom],
            // No first: a key bound to both answers no, so a key the
            // question offers as "no" never carries the change out.
            Scope::Confirm => &[No, Yes],
        }
    }
}

/// Keys bound to each action. One table for all scopes: a scope only
/// looks up the actions it lists, so the same key may serve different
/// actions in different panes without conflict.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: BTreeMap<Action, Vec<Key>>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap {
            bindings: Action::ALL.iter().map(|&a| (a, a.default_keys())).collect(),
        }
    }
}

impl KeyMap {
    /// Apply `[keys]` overrides: `action = ["key", ...]` replaces the keys
    /// of that action.
    pub fn with_overrides(
        mut self,
        overrides: &BTreeMap<String, Vec<String>>,
    ) -> Result<KeyMap, OverrideError> {
        for (name, keys) in overrides {
            let Some(action) = Action::ALL.iter().find(|a| a.config_name() == name) else {
                let known: Vec<&str> = Action::ALL.iter().map(|a| a.config_name()).collect();
                return Err(OverrideError {
                    action: name.clone(),
                    key: None,
                    what: format!(
                        "[keys]: not an action membank knows (known: {})",
                        known.join(", ")
                    ),
                });
            };
            let mut parsed = Vec::new();
            for (i, k) in keys.iter().enumerate() {
                let key = Key::parse(k).map_err(|e| OverrideError {
                    action: name.clone(),
                    key: Some(i),
                    // The action's name is one membank knows: safe to say.
                    what: format!("[keys] {name}: {e:#}"),
                })?;
                parsed.push(key);
            }
            self.bindings.insert(*action, parsed);
        }
        Ok(self)
    }

    pub fn keys(&self, action: Action) -> &[Key] {
        self.bindings.get(&action).map_or(&[], Vec::as_slice)
    }

    /// The action a key triggers in `scope`: the scope's own actions
    /// win over the global ones.
    pub fn lookup(&self, scope: Scope, key: Key) -> Option<Action> {
        let global = scope.falls_back_to_global().then_some(Scope::Global);
        [Some(scope), global]
            .into_iter()
            .flatten()
            .flat_map(|c| c.actions().iter())
            .copied()
            .find(|&a| self.keys(a).contains(&key))
    }

    /// Every key bound to two actions where both are looked up: the one
    /// listed first in the scope (a pane's own before a global one) is the
    /// one the key does, and the other never gets it there.
    pub fn clashes(&self) -> Vec<Clash> {
        let mut out = Vec::new();
        for &scope in Scope::ALL {
            let global: &[Action] = if scope.falls_back_to_global() && scope != Scope::Global {
                Scope::Global.actions()
            } else {
                &[]
            };
            for &not in scope.actions().iter().chain(global) {
                for &key in self.keys(not) {
                    let Some(does) = self.lookup(scope, key).filter(|&a| a != not) else {
                        continue;
                    };
                    // Two global actions clash everywhere: said once.
                    if scope != Scope::Global && global.contains(&does) {
                        continue;
                    }
                    out.push(Clash {
                        scope,
                        key,
                        does,
                        not,
                    });
                }
            }
        }
        out
    }

    /// The clashes the defaults do not have: those a `[keys]` table made.
    /// (A pane's own `/` over the global finder is meant: `Ctrl-P` finds.)
    pub fn new_clashes(&self) -> Vec<Clash> {
        let meant = KeyMap::default().clashes();
        self.clashes()
            .into_iter()
            .filter(|c| !meant.contains(c))
            .collect()
    }

    /// "k / ↑"-style label of an action's keys.
    pub fn label(&self, action: Action) -> String {
        self.keys(action)
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" / ")
    }
}

/// A `[keys]` entry that cannot be used. Its text says what is wrong
/// without quoting the entry (a key pasted there by mistake is not
/// printed); `action` and `key` let the config file say where it is.
#[derive(Debug)]
pub struct OverrideError {
    /// The entry's action name as written (never shown).
    pub action: String,
    /// Which of its key names, when the action is known.
    pub key: Option<usize>,
    what: String,
}

impl fmt::Display for OverrideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for OverrideError {}

/// One key bound to two actions looked up in the same place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clash {
    pub scope: Scope,
    pub key: Key,
    /// What the key does there.
    pub does: Action,
    /// What it is bound to as well, and never does there.
    pub not: Action,
}

impl std::fmt::Display for Clash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[keys] {} is both {} and {} {}: it does {}",
            self.key,
            self.does.config_name(),
            self.not.config_name(),
            self.scope.place(),
            self.does.config_name()
        )
    }
}

/// The default key table as Markdown, one section per scope; the
/// source of `docs/keys.md`.
pub fn markdown_table(keymap: &KeyMap) -> String {
    let mut out = String::new();
    for (scope, title) in [
        (Scope::Global, "Everywhere"),
        (Scope::Bank, "Bank (folder tree)"),
        (Scope::Article, "Article"),
        (Scope::Context, "Context inspector"),
        (Scope::Health, "Health"),
        (
            Scope::FixReview,
            "Health: the review of proposed fixes (`x`, `v`, `+`)",
        ),
        (Scope::TermCheck, "Health: a translated file's terms (`Q`)"),
        (Scope::Agents, "Agents"),
        (Scope::Recall, "Recall (a Deja Vu project's Context pane)"),
        (
            Scope::Search,
            "Search (an everos root's Context pane; a popup elsewhere)",
        ),
        (Scope::Finder, "Find popup (other keys type)"),
        (Scope::Help, "Key help popup"),
        (
            Scope::Confirm,
            "A yes/no question (asked before quitting with work unwritten, sending inbox notes, or deciding several files at once)",
        ),
    ] {
        out.push_str(&format!(
            "\n### {title}\n\n| Keys | Action | Config name |\n|---|---|---|\n"
        ));
        for &a in scope.actions() {
            let keys = keymap
                .keys(a)
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ");
            out.push_str(&format!(
                "| {keys} | {} | `{}` |\n",
                a.description().replace('|', "\\|"),
                a.config_name()
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::crossterm::event::KeyEventKind;

    #[test]
    fn docs_keys_md_lists_the_default_keys() {
        let doc = include_str!("../../docs/keys.md");
        let table = markdown_table(&KeyMap::default());
        assert!(
            doc.contains(&table),
            "docs/keys.md is out of date; it should contain:\n{table}"
        );
    }

    fn ev(code: KeyCode, m: KeyModifiers) -> Key {
        Key::from_event(&KeyEvent::new_with_kind(code, m, KeyEventKind::Press)).unwrap()
    }

    #[test]
    fn arrows_and_vim_keys_both_move() {
        let km = KeyMap::default();
        for key in [ev(KeyCode::Down, KeyModifiers::NONE), Key::ch('j')] {
            assert_eq!(km.lookup(Scope::Bank, key), Some(Action::Down));
        }
        for key in [ev(KeyCode::Up, KeyModifiers::NONE), Key::ch('k')] {
            assert_eq!(km.lookup(Scope::Bank, key), Some(Action::Up));
        }
    }

    #[test]
    fn shift_tab_and_uppercase_letters_normalise() {
        let km = KeyMap::default();
        let backtab = ev(KeyCode::BackTab, KeyModifiers::SHIFT);
        assert_eq!(km.lookup(Scope::Article, backtab), Some(Action::PrevPane));
        let big_g = ev(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(km.lookup(Scope::Bank, big_g), Some(Action::Bottom));
        let ctrl_p = ev(
            KeyCode::Char('P'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT,
        );
        assert_eq!(km.lookup(Scope::Bank, ctrl_p), Some(Action::Find));
    }

    #[test]
    fn pane_keys_only_apply_in_their_pane() {
        let km = KeyMap::default();
        assert_eq!(km.lookup(Scope::Health, Key::ch('r')), Some(Action::Rerun));
        assert_eq!(km.lookup(Scope::Bank, Key::ch('r')), Some(Action::Rename));
        assert_eq!(km.lookup(Scope::Article, Key::ch('r')), None);
        assert_eq!(km.lookup(Scope::Bank, Key::ch('q')), Some(Action::Quit));
    }

    #[test]
    fn overrides_replace_keys_and_reject_unknown_names() {
        let mut o = BTreeMap::new();
        o.insert(
            "quit".to_owned(),
            vec!["ctrl-q".to_owned(), "F10".to_owned()],
        );
        let km = KeyMap::default().with_overrides(&o).unwrap();
        assert_eq!(km.lookup(Scope::Bank, Key::ch('q')), None);
        assert_eq!(km.lookup(Scope::Bank, Key::ctrl('q')), Some(Action::Quit));
        assert_eq!(km.label(Action::Quit), "Ctrl-Q / F10");

        let mut bad = BTreeMap::new();
        bad.insert("fly".to_owned(), vec!["x".to_owned()]);
        let e = KeyMap::default().with_overrides(&bad).unwrap_err();
        // Never quoted (a key pasted there would be printed), but the
        // known names are listed.
        assert!(!e.to_string().contains("fly"), "{e}");
        assert!(e.to_string().contains("not an action"), "{e}");
        assert!(e.to_string().contains("quit"), "{e}");
        let mut bad_key = BTreeMap::new();
        bad_key.insert("quit".to_owned(), vec!["hyper-x".to_owned()]);
        let e = KeyMap::default().with_overrides(&bad_key).unwrap_err();
        // shift-<letter> is the upper-case letter, never the lower-case one.
        assert_eq!(Key::parse("shift-s").unwrap(), Key::ch('S'));
        assert_eq!(Key::parse("S-a").unwrap(), Key::ch('A'));
        assert_eq!(Key::parse("ctrl-shift-p").unwrap(), Key::ctrl('p'));
        assert!(Key::parse("shift-1").is_err());
        assert!(Key::parse("shift-?").is_err());
        assert!(!e.to_string().contains("hyper"), "{e}");
        assert!(
            e.to_string().starts_with("[keys] quit: not a key name"),
            "{e}"
        );
        assert_eq!(e.key, Some(0));
    }

    #[test]
    fn the_default_keys_clash_only_where_a_pane_takes_the_finders_slash() {
        let clashes: Vec<String> = KeyMap::default()
            .clashes()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            clashes,
            [
                "[keys] / is both search_article and find in the Article pane: it does search_article",
                "[keys] / is both filter and find in the Health pane: it does filter",
            ]
        );
        assert!(KeyMap::default().new_clashes().is_empty());
    }

    #[test]
    fn a_key_bound_twice_in_one_place_is_a_clash_named_once() {
        let mut o = BTreeMap::new();
        o.insert("find".to_owned(), vec!["ctrl-f".to_owned(), "/".to_owned()]);
        o.insert(
            "back".to_owned(),
            vec!["backspace".to_owned(), "h".to_owned()],
        );
        o.insert("quit".to_owned(), vec!["x".to_owned()]);
        let km = KeyMap::default().with_overrides(&o).unwrap();
        let said: Vec<String> = km.new_clashes().iter().map(ToString::to_string).collect();
        assert_eq!(
            said,
            [
                "[keys] Ctrl-F is both find and search everywhere: it does find",
                "[keys] h is both back and to_bank in the Article pane: it does back",
                "[keys] x is both explain and quit in the Context pane: it does explain",
                "[keys] x is both fix and quit in the Health pane: it does fix",
                "[keys] x is both clear_chat and quit in the Agents pane: it does clear_chat",
            ]
        );
    }

    #[test]
    fn key_names_parse() {
        assert_eq!(Key::parse("shift-tab").unwrap(), Key::plain(K::BackTab));
        assert_eq!(Key::parse("C-P").unwrap(), Key::ctrl('p'));
        assert_eq!(Key::parse("pgdn").unwrap(), Key::plain(K::PageDown));
        assert_eq!(Key::parse("space").unwrap(), Key::ch(' '));
        assert!(Key::parse("fx").is_err());
    }
}
