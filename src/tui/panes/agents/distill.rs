//! Distill: a document (Markdown, text, DOCX, TMX, TBX…) turned into a
//! proposed note in `00_INBOX/`, reviewed like any other write.

use std::path::Path;

use membank_core::clock::Clock;
use membank_core::scoring::Query;
use membank_core::text::sanitize_for_terminal;
use membank_llm::ChatRequest;
use membank_llm::agents::{self, PreparedDistill};
use membank_llm::documents;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Borders, Paragraph};
use ratatui_textarea::TextArea;

use super::review::{self, Purpose, Review};
use super::stream::{Finished, Stream};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;

pub struct DistillAgent {
    /// The document's path, relative to the current folder.
    pub input: TextArea<'static>,
    prepared: Option<PreparedDistill>,
    pub note: Option<String>,
    pub reply: Stream,
    pub review: Option<Review>,
}

impl Default for DistillAgent {
    fn default() -> Self {
        let mut input = TextArea::default();
        input.set_placeholder_text("path of the document (i to type)");
        DistillAgent {
            input,
            prepared: None,
            note: None,
            reply: Stream::default(),
            review: None,
        }
    }
}

impl DistillAgent {
    pub fn prepare(
        &mut self,
        cwd: &Path,
        template: &str,
        query: &Query,
        clock: Clock,
    ) -> Result<ChatRequest, String> {
        let typed = self.input.lines().join("").trim().to_owned();
        if typed.is_empty() {
            return Err("type the path of a document first (i)".into());
        }
        let document = documents::read_document(&cwd.join(&typed))
            .map_err(|e| sanitize_for_terminal(&e.to_string(), false))?;
        let prepared = agents::prepare_distill(template, &document, query, clock.timestamp());
        let mut note = format!(
            "{} ({}) → {}",
            document.file_name,
            document.kind.label(),
            prepared.target_path
        );
        if prepared.input_truncated {
            note.push_str(&format!(
                "; only the first {} characters are sent",
                agents::DISTILL_INPUT_CAP
            ));
        }
        self.note = Some(sanitize_for_terminal(&note, false));
        self.review = None;
        let request = prepared.request.clone();
        self.prepared = Some(prepared);
        Ok(request)
    }

    pub fn finish(&mut self, root: &Path, finished: Finished) {
        if !finished.complete {
            return;
        }
        if let Some(prepared) = &self.prepared {
            let proposal = agents::distill_proposal(prepared, &finished.text);
            let mut review = Review::new(root, &proposal, Purpose::Write);
            review.journal_label = Some(super::review::DISTILL);
            review.creating_only();
            review.warnings.extend(
                agents::distill_left_out(&finished.text)
                    .iter()
                    .map(|w| sanitize_for_terminal(w, false)),
            );
            self.review = Some(review);
        }
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    agent: &DistillAgent,
    editing: bool,
    focused: bool,
    theme: &Theme,
) {
    let [input, info, body] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Fill(1),
    ])
    .areas(area);
    let title = if editing {
        " Enter distills · Esc leaves "
    } else {
        " i type the path · Enter distills "
    };
    super::draw::draw_input(
        frame,
        input,
        &agent.input,
        Borders::BOTTOM,
        title,
        editing,
        theme,
    );
    let status = agent.reply.status_line().unwrap_or_default();
    let note = agent.note.clone().unwrap_or_default();
    frame.render_widget(
        Paragraph::new(Line::styled(format!("{note} {status}"), theme.muted))
            .wrap(ratatui::widgets::Wrap { trim: false }),
        info,
    );
    if let Some(r) = &agent.review {
        review::draw(frame, body, r, focused, theme);
        return;
    }
    let rows: Vec<Line> = agent
        .reply
        .view
        .tail(usize::from(body.height))
        .map(|r| Line::styled(r.to_owned(), theme.text))
        .collect();
    frame.render_widget(Paragraph::new(cut_lines(rows, body.width)), body);
}
