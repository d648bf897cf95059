//! Which pane fills the Context slot, and whether the agents work, for each
//! layout: the one place the interface looks at which layout is open.
//! Adding a layout needs no edit here unless it has a pane of its own; it
//! gets the Search pane.

use membank_core::memory::LayoutSpec;

use super::agents::AgentKind;

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

/// The agents offered on this layout, in the order of their keys (`1`,
/// `2`, …); none means the Agents pane says what the layout offers instead.
/// A bank's agents assemble its §7 context and write with its rules; a Deja
/// Vu project gets a chat over recall and the writeback, checked with its
/// own rules.
pub fn agents_for(spec: &LayoutSpec) -> &'static [AgentKind] {
    match spec.name {
        "bank" => &AgentKind::BANK,
        "dejavu" => &AgentKind::DEJAVU,
        _ => &[],
    }
}
