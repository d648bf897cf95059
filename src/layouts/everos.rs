//! An everos memory root: full-text Search in the Context slot, no agents.

use super::Face;
use crate::tui::panes::slot::Slot;

pub static FACE: Face = Face {
    slot: Slot::Search,
    agents: &[],
    status_noun: "files",
    document_pane: "File",
    missing_noun: "document",
    help_shows_format_version: false,
    mcp_prompts: false,
    mcp_about: "An everos memory root: per app, project and user or agent, daily logs of \
episodes, atomic facts, foresights and agent cases. Use `entries` to list them \
(filtered by owner, kind and day), `read` for a document or an entry id, \
`search` for words, `check` for problems.",
};
