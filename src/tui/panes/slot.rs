//! Which pane fills the Context slot, and whether the agents work, for each
//! layout: the one place the interface looks at which layout is open.
//! Adding a layout needs no edit here unless it has a pane of its own; it
//! gets the Search pane.

use membank_core::memory::LayoutSpec;

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
    pub fn for_layout(spec: &LayoutSpec) -> Slot {
        match spec.name {
            "bank" => Slot::Context,
            "dejavu" => Slot::Recall,
            _ => Slot::Search,
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

/// Whether the agents work on this layout. They assemble a bank's §7
/// context and write with its rules; a layout whose writes they learn
/// (Deja Vu writeback) is added here.
pub fn agents_work_on(spec: &LayoutSpec) -> bool {
    spec.name == "bank"
}
