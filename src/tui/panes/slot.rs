//! The panes that can fill the Context slot; which one a layout gets is
//! its face's choice (`crate::layouts`). A new layout needs no edit here
//! unless it has a pane of its own; otherwise it gets the Search pane.

/// The pane in the Context slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Slot {
    /// §7 context: a bank's ranking for a client, domain and languages.
    #[default]
    Context,
    /// A Deja Vu project's cue scan.
    Recall,
    /// Full-text search, for any layout without a ranking of its own.
    Search,
}

impl Slot {
    /// The name of the first pane, the tree: what the layout holds, as
    /// this slot is named for what fills it.
    pub fn tree_title(self) -> &'static str {
        match self {
            Slot::Context => "Bank",
            Slot::Recall => "Project",
            Slot::Search => "Memory",
        }
    }

    /// The name on the tab and the pane's border.
    pub fn title(self) -> &'static str {
        match self {
            Slot::Context => "Context",
            Slot::Recall => "Recall",
            Slot::Search => "Search",
        }
    }
}
