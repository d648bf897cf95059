//! What each front end offers for each layout, chosen once: the one place
//! outside the core that looks at which layout is open. Each layout has a
//! [`Face`] in a module of its own; [`face`] picks it with an exhaustive
//! `match`, so a layout added to the core and not described here does not
//! compile. What only one layout's own type can do is reached through the
//! typed accessors below, never by a cast at the call site.

mod bank;
mod dejavu;
mod everos;

use membank_core::bank::Bank;
use membank_core::dejavu::Project;
use membank_core::everos::MemoryRoot;
use membank_core::memory::{LayoutKind, LayoutSpec, Memory};

use crate::tui::panes::agents::AgentKind;
use crate::tui::panes::slot::Slot;
use crate::tui::unread::Unread;

/// What the interface, the command line and the MCP server offer on one
/// layout, beyond what every memory has.
pub struct Face {
    /// The pane in the interface's Context slot.
    pub slot: Slot,
    /// The agents offered, in the order of their keys; none means the
    /// Agents pane says what the layout offers instead.
    pub agents: &'static [AgentKind],
    /// What the status bar counts: "articles".
    pub status_noun: &'static str,
    /// The name of the pane that shows one document: "Article".
    pub document_pane: &'static str,
    /// What a name the command line could not find is called: "article".
    pub missing_noun: &'static str,
    /// Whether help shows the bank format's version rather than naming
    /// the layout.
    pub help_shows_format_version: bool,
    /// Whether the MCP server offers the agents' templates as prompts.
    pub mcp_prompts: bool,
    /// What an assistant connected over MCP is told about the memory.
    pub mcp_about: &'static str,
}

/// The face of the layout `spec` describes.
pub fn face(spec: &LayoutSpec) -> &'static Face {
    match spec.kind {
        LayoutKind::Bank => &bank::FACE,
        LayoutKind::DejaVu => &dejavu::FACE,
        LayoutKind::Everos => &everos::FACE,
    }
}

/// The open memory as a bank, for what only a bank has (§7 context, the
/// folder tree, templates).
pub fn bank(memory: &dyn Memory) -> Option<&Bank> {
    memory.downcast_ref::<Bank>()
}

/// The open memory as a Deja Vu project, for recall and the writeback.
pub fn project(memory: &dyn Memory) -> Option<&Project> {
    memory.downcast_ref::<Project>()
}

/// The open memory as an everos root, for its entries and owners.
pub fn memory_root(memory: &dyn Memory) -> Option<&MemoryRoot> {
    memory.downcast_ref::<MemoryRoot>()
}

/// Whether the memory shown is the placeholder of one still being read.
pub fn is_unread(memory: &dyn Memory) -> bool {
    memory.downcast_ref::<Unread>().is_some()
}
