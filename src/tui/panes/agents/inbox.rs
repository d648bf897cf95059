//! Process Inbox: the pending inbox files the user selects go to the model
//! with the related articles; the `### FILE:` blocks of its reply are
//! reviewed one by one.

use std::collections::BTreeSet;
use std::path::Path;

use membank_core::bank::Bank;
use membank_core::clock::Clock;
use membank_core::compile::SentNote;
use membank_core::text::sanitize_for_terminal;
use membank_llm::ChatRequest;
use membank_llm::agents;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::review::{self, Purpose, Review};
use super::stream::{Finished, Stream};
use crate::tui::panes::cursor::Cursor;
use crate::tui::panes::highlight_row;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;

/// Related articles sent along, in tokens (chars/4), as the CLI does.
const RELATED_BUDGET: usize = 16_000;

/// A pending inbox note as the list shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingNote {
    /// The bank path (raw; sanitise to show).
    pub path: String,
    /// Bytes that would be sent.
    pub bytes: usize,
    /// An unreadable note is listed but can never be sent.
    pub readable: bool,
}

#[derive(Debug, Default)]
pub struct InboxAgent {
    /// Pending inbox files, readable ones first.
    pub pending: Vec<PendingNote>,
    /// Notes the user held back (bank paths): never sent, never stamped.
    /// Kept by path, so a re-read of the bank does not select them again.
    held_back: BTreeSet<String>,
    /// Over `pending`.
    pub cursor: Cursor,
    /// The files sent with the last request (raw bank paths).
    sources: Vec<String>,
    /// The same files with the text the model was given.
    sent: Vec<SentNote>,
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
            .map(|id| {
                let a = bank.article(id);
                // The bank keeps no bodies: the size is the text read again.
                let text = bank.article_text(id);
                PendingNote {
                    path: a.rel_path.clone(),
                    bytes: text.as_ref().map_or(0, |t| t.len()),
                    readable: true,
                }
            })
            .chain(pending.unreadable.iter().map(|u| PendingNote {
                path: u.path.clone(),
                bytes: 0,
                readable: false,
            }))
            .collect();
        let len = self.pending.len();
        self.cursor.clamp(len, len.max(1));
    }

    /// Whether a note goes with the next request.
    pub fn is_selected(&self, note: &PendingNote) -> bool {
        note.readable && !self.held_back.contains(&note.path)
    }

    /// The notes that would be sent, and their size in bytes.
    pub fn selected(&self) -> (usize, usize) {
        self.pending
            .iter()
            .filter(|n| self.is_selected(n))
            .fold((0, 0), |(n, bytes), note| (n + 1, bytes + note.bytes))
    }

    /// Space on the list: hold the note back, or select it again.
    pub fn toggle(&mut self) -> bool {
        let Some(note) = self.pending.get(self.cursor.selected) else {
            return false;
        };
        if !note.readable {
            return false;
        }
        if !self.held_back.remove(&note.path) {
            self.held_back.insert(note.path.clone());
        }
        true
    }

    pub fn move_by(&mut self, delta: isize, height: usize) {
        self.cursor.move_by(delta, self.pending.len(), height);
    }

    pub fn prepare(
        &mut self,
        bank: &Bank,
        template: &str,
        clock: Clock,
    ) -> Result<ChatRequest, String> {
        self.clock = clock;
        let today = clock.today().to_string();
        let held_back = &self.held_back;
        let send = |path: &str| !held_back.contains(path);
        let prepared = agents::prepare_compile_only(bank, template, &today, RELATED_BUDGET, &send);
        let Some(prepared) = prepared else {
            return Err(if self.pending.is_empty() {
                "00_INBOX/ has no pending files; put new notes there first".into()
            } else {
                "no inbox note is selected; Space selects one".into()
            });
        };
        self.sources = prepared.inbox.clone();
        self.sent = prepared.sent.clone();
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
                sent: self.sent.clone(),
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
        let (n, bytes) = agent.selected();
        lines.push(Line::styled(
            format!(
                "{n} of {} inbox notes selected ({})",
                agent.pending.len(),
                size_text(bytes)
            ),
            theme.title,
        ));
        for (i, note) in agent.pending.iter().enumerate().skip(agent.cursor.offset) {
            let path = sanitize_for_terminal(&note.path, false);
            let line = if note.readable {
                let mark = if agent.is_selected(note) {
                    "[x]"
                } else {
                    "[ ]"
                };
                Line::styled(
                    format!("{mark} {path}  {}", size_text(note.bytes)),
                    theme.link,
                )
            } else {
                Line::styled(
                    format!("    {path} (cannot be read; not sent)"),
                    theme.muted,
                )
            };
            lines.push(if focused && i == agent.cursor.selected {
                highlight_row(line, area.width, theme.selection)
            } else {
                line
            });
        }
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

/// "12 KB", "0.4 KB": a size as the confirmation and the list say it
/// (never "0.0 KB" for a note that has text).
pub fn size_text(bytes: usize) -> String {
    if bytes == 0 {
        "0 KB".into()
    } else if bytes < 10 * 1024 {
        format!("{:.1} KB", (bytes as f64 / 1024.0).max(0.1))
    } else {
        format!("{} KB", bytes.div_ceil(1024))
    }
}
