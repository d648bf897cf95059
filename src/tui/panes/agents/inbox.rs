//! Process Inbox: the pending inbox files go to the model with the related
//! articles; the `### FILE:` blocks of its reply are reviewed one by one.

use std::path::Path;

use membank_core::bank::Bank;
use membank_core::clock::Clock;
use membank_core::text::sanitize_for_terminal;
use membank_llm::ChatRequest;
use membank_llm::agents;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::review::{self, Purpose, Review};
use super::stream::{Finished, Stream};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;

/// Related articles sent along, in tokens (chars/4), as the CLI does.
const RELATED_BUDGET: usize = 16_000;

#[derive(Debug, Default)]
pub struct InboxAgent {
    /// Pending inbox files (sanitised).
    pub pending: Vec<String>,
    /// The files sent with the last request (raw bank paths).
    sources: Vec<String>,
    /// `path (why)` of the related articles sent, sanitised.
    pub related: Vec<String>,
    pub left_out: usize,
    pub reply: Stream,
    pub review: Option<Review>,
    pub note: Option<String>,
    /// The clock the request was dated by; the archive plan uses it too.
    clock: Clock,
}

impl InboxAgent {
    pub fn refresh(&mut self, bank: &Bank) {
        // The same notes `membank inbox` lists, unreadable ones marked.
        let pending = membank_core::inbox::pending(bank);
        self.pending = pending
            .readable
            .into_iter()
            .map(|id| sanitize_for_terminal(&bank.article(id).rel_path, false))
            .chain(pending.unreadable.iter().map(|u| {
                sanitize_for_terminal(&format!("{} (cannot be read; not sent)", u.path), false)
            }))
            .collect();
    }

    pub fn prepare(
        &mut self,
        bank: &Bank,
        template: &str,
        clock: Clock,
    ) -> Result<ChatRequest, String> {
        self.clock = clock;
        let today = clock.today().to_string();
        let Some(prepared) = agents::prepare_compile(bank, template, &today, RELATED_BUDGET) else {
            return Err("00_INBOX/ has no pending files; put new notes there first".into());
        };
        self.sources = prepared.inbox.clone();
        self.related = prepared
            .related
            .iter()
            .map(|r| {
                sanitize_for_terminal(&format!("{} ({})", r.path, r.reasons.join("; ")), false)
            })
            .collect();
        self.left_out = prepared.left_out.len();
        self.review = None;
        self.note = None;
        Ok(prepared.request)
    }

    /// The reply ended: a complete one is reviewed; an incomplete one is
    /// never applied.
    pub fn finish(&mut self, root: &Path, finished: Finished) {
        if finished.complete {
            let purpose = Purpose::Compile {
                sources: self.sources.clone(),
                clock: self.clock,
            };
            self.review = Some(Review::new(root, &finished.text, purpose));
        } else {
            self.note =
                Some("The reply is incomplete, so nothing can be applied. r asks again.".into());
        }
    }
}

pub fn draw(frame: &mut Frame, area: Rect, agent: &InboxAgent, focused: bool, theme: &Theme) {
    if let Some(r) = &agent.review {
        review::draw(frame, area, r, focused, theme);
        return;
    }
    let mut lines = Vec::new();
    if agent.pending.is_empty() {
        lines.push(Line::styled("00_INBOX/ has no pending files.", theme.muted));
    } else {
        lines.push(Line::styled(
            format!(
                "{} pending inbox file(s) · r sends them",
                agent.pending.len()
            ),
            theme.title,
        ));
        lines.extend(
            agent
                .pending
                .iter()
                .map(|p| Line::styled(format!("  {p}"), theme.link)),
        );
    }
    if !agent.related.is_empty() || agent.left_out > 0 {
        lines.push(Line::styled(
            format!(
                "related articles sent: {} ({} left out by the size limit)",
                agent.related.len(),
                agent.left_out
            ),
            theme.muted,
        ));
        lines.extend(
            agent
                .related
                .iter()
                .map(|r| Line::styled(format!("  {r}"), theme.text)),
        );
    }
    agent.reply.push_progress(
        &mut lines,
        agent.note.as_deref(),
        (usize::from(area.width), usize::from(area.height)),
        theme,
    );
    frame.render_widget(Paragraph::new(cut_lines(lines, area.width)), area);
}
