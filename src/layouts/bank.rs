//! A Supervertaler memory bank: the §7 Context pane, every agent, prompts.

use super::Face;
use crate::tui::panes::agents::AgentKind;
use crate::tui::panes::slot::Slot;

pub static FACE: Face = Face {
    slot: Slot::Context,
    agents: &AgentKind::BANK,
    status_noun: "articles",
    document_pane: "Article",
    missing_noun: "article",
    help_shows_format_version: true,
    mcp_prompts: true,
    mcp_about: "A translator's memory bank (Supervertaler Memory Bank Format): Markdown articles \
about clients, terminology, domains and style. Use `values` to see the clients, \
domains and languages it knows, `context` to get the articles that apply to a \
job (with why each scored), `read` for one article, `links` for its links and \
backlinks, `check` for problems. Prompts run the bank's own agent instructions.",
};
