//! Health Check with the model: the deterministic report first, then the
//! model's review over the §12 snapshot; fixes it proposes as `### FILE:`
//! blocks go through the review.

use std::path::Path;

use membank_core::bank::Bank;
use membank_core::health::HealthReport;
use membank_core::snapshot;
use membank_core::text::sanitize_for_terminal;
use membank_llm::ChatRequest;
use membank_llm::agents::{self, MAX_LISTED_FINDINGS};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::review::{self, Purpose, Review};
use super::stream::{Finished, Stream, StreamState};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;
use crate::tui::widgets::wrap::wrap;

#[derive(Debug, Default)]
pub struct CheckAgent {
    /// The deterministic findings, sanitised, one per row.
    pub report: Vec<String>,
    summary: String,
    /// What the snapshot holds (and whether it was truncated).
    pub snapshot_note: Option<String>,
    pub reply: Stream,
    pub review: Option<Review>,
    /// The review is on screen (else the report and the reply).
    pub show_review: bool,
    /// Rows scrolled from the top of the report.
    pub scroll: usize,
}

impl CheckAgent {
    /// Put the current findings (run once per refresh by the app) in words.
    pub fn refresh(&mut self, report: &HealthReport) {
        self.summary = agents::findings_summary(report, MAX_LISTED_FINDINGS);
        self.report = if self.summary.is_empty() {
            vec!["The deterministic checks found no problems.".into()]
        } else {
            sanitize_for_terminal(&self.summary, true)
                .lines()
                .map(str::to_owned)
                .collect()
        };
    }

    pub fn prepare(&mut self, bank: &Bank, report: &HealthReport, template: &str) -> ChatRequest {
        self.refresh(report);
        let snap = snapshot::build(bank, snapshot::DEFAULT_CAP);
        let prepared = agents::prepare_lint(template, &self.summary, &snap);
        self.snapshot_note = Some(if prepared.truncated {
            format!(
                "snapshot: {}; truncated at {} characters, {} left out",
                crate::plural::count(prepared.snapshot_articles, "article"),
                snap.cap,
                prepared.omitted.len()
            )
        } else {
            format!(
                "snapshot: {}, not truncated",
                crate::plural::count(prepared.snapshot_articles, "article")
            )
        });
        self.review = None;
        self.show_review = false;
        self.scroll = 0;
        prepared.request
    }

    pub fn finish(&mut self, root: &Path, finished: Finished) {
        if !finished.complete {
            return;
        }
        let r = Review::new(root, &finished.text, Purpose::Write);
        if !r.blocks.is_empty() {
            self.review = Some(r);
        }
    }

    fn rows(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = vec![Line::styled(
            if self.reply.state == StreamState::Idle {
                "Deterministic checks · r asks the model to review"
            } else {
                "Deterministic checks:"
            },
            theme.title,
        )];
        // Once the model answers, the counts stand for the list (the
        // Health pane has it in full).
        let report = if self.reply.text.is_empty() {
            &self.report[..]
        } else {
            &self.report[..self.report.len().min(1)]
        };
        lines.extend(report.iter().flat_map(|r| {
            wrap(r, width)
                .into_iter()
                .map(|row| Line::styled(row, theme.text))
        }));
        if let Some(note) = &self.snapshot_note {
            lines.push(Line::styled(note.clone(), theme.muted));
        }
        for row in self.reply.status_rows(width) {
            lines.push(Line::styled(row, theme.muted));
        }
        if let Some(r) = &self.review {
            lines.push(Line::styled(
                format!(
                    "{} fix(es) proposed as files · Enter reviews them",
                    r.blocks.len()
                ),
                theme.warning,
            ));
        }
        if !self.reply.text.is_empty() {
            lines.push(Line::styled("The model's review:", theme.title));
            lines.extend(
                self.reply
                    .view
                    .rows(0..usize::MAX)
                    .map(|row| Line::styled(row.to_owned(), theme.text)),
            );
        }
        lines
    }
}

pub fn draw(frame: &mut Frame, area: Rect, agent: &CheckAgent, focused: bool, theme: &Theme) {
    if let (Some(r), true) = (&agent.review, agent.show_review) {
        review::draw(frame, area, r, focused, theme);
        return;
    }
    let mut lines = agent.rows(usize::from(area.width), theme);
    if agent.reply.is_running() {
        // Follow the reply while it arrives.
        let skip = lines.len().saturating_sub(usize::from(area.height));
        lines.drain(..skip);
    } else {
        let skip = agent.scroll.min(lines.len().saturating_sub(1));
        lines.drain(..skip);
    }
    frame.render_widget(Paragraph::new(cut_lines(lines, area.width)), area);
}
