//! The panes' names, as on screen, and the word the status line starts
//! with while a memory is read.

/// The panes, named as on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Pane {
    Bank,
    Article,
    Context,
    Health,
    Agents,
}

impl Pane {
    pub const ORDER: [Pane; 5] = [
        Pane::Bank,
        Pane::Article,
        Pane::Context,
        Pane::Health,
        Pane::Agents,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Pane::Bank => "Bank",
            Pane::Article => "Article",
            Pane::Context => "Context",
            Pane::Health => "Health",
            Pane::Agents => "Agents",
        }
    }
}

/// How the status line starts while the memory is read in the background.
pub const LOADING: &str = "reading";
