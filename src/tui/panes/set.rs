//! The panes' states together, and which pane fills each slot on screen.

use super::Component;
use super::Pane;
use super::agents::AgentsPane;
use super::article::ArticlePane;
use super::bank::BankPane;
use super::context::ContextPane;
use super::health::HealthPane;
use super::no_agents::NoAgents;
use super::recall::RecallPane;
use super::search::SearchPane;
use super::slot::Slot;

/// The panes' states. The Context slot shows `context`, `recall` or
/// `search`, as the layout's `slot` says; the Agents slot shows `agents`
/// or, where the agents do not work, `no_agents`.
pub struct Panes {
    pub bank: BankPane,
    pub article: ArticlePane,
    pub context: ContextPane,
    pub recall: RecallPane,
    pub search: SearchPane,
    pub health: HealthPane,
    pub agents: AgentsPane,
    pub no_agents: NoAgents,
    pub slot: Slot,
    pub agents_work: bool,
    /// The document pane's name in the layout open ("Record").
    pub document_pane: &'static str,
}

impl Panes {
    pub fn get(&self, pane: Pane) -> &dyn Component {
        match pane {
            Pane::Bank => &self.bank,
            Pane::Article => &self.article,
            Pane::Context => match self.slot {
                Slot::Context => &self.context,
                Slot::Recall => &self.recall,
                Slot::Search => &self.search,
            },
            Pane::Health => &self.health,
            Pane::Agents if self.agents_work => &self.agents,
            Pane::Agents => &self.no_agents,
        }
    }

    pub(crate) fn get_mut(&mut self, pane: Pane) -> &mut dyn Component {
        match pane {
            Pane::Bank => &mut self.bank,
            Pane::Article => &mut self.article,
            Pane::Context => match self.slot {
                Slot::Context => &mut self.context,
                Slot::Recall => &mut self.recall,
                Slot::Search => &mut self.search,
            },
            Pane::Health => &mut self.health,
            Pane::Agents if self.agents_work => &mut self.agents,
            Pane::Agents => &mut self.no_agents,
        }
    }

    /// A pane's name on its tab: the Context slot is named for what fills it.
    pub fn name(&self, pane: Pane) -> &'static str {
        match pane {
            Pane::Bank => self.slot.tree_title(),
            Pane::Context => self.slot.title(),
            Pane::Article => self.document_pane,
            _ => pane.title(),
        }
    }
}
