//! A Deja Vu project: the Recall pane, a chat over recall and the writeback.

use super::Face;
use crate::tui::panes::agents::AgentKind;
use crate::tui::panes::slot::Slot;

pub static FACE: Face = Face {
    slot: Slot::Recall,
    agents: &AgentKind::DEJAVU,
    status_noun: "files",
    document_pane: "Record",
    missing_noun: "document",
    help_shows_format_version: false,
    mcp_prompts: false,
    mcp_about: "A Deja Vu project memory: the decisions, open loops and context a software \
project keeps in memory/. Use `recall` with the task or question as the cue to \
find what applies (with the familiarity level and why each impression matched), \
`read` for a record, `search` for words anywhere, `check` for problems.",
};
