//! Writeback on a Deja Vu project: notes or a conversation (typed or
//! pasted) go to the model with the summary, the index, the records recall
//! selects for them and every impression line; its proposed records and
//! impression lines are checked with the project's own checks and
//! reviewed one by one, as `membank writeback` shows them.

use membank_core::clock::Clock;
use membank_core::dejavu::{Project, writeback};
use membank_core::text::sanitize_for_terminal;
use membank_llm::ChatRequest;
use membank_llm::writeback::{Note, prepare_writeback};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Borders, Paragraph, Wrap};
use ratatui_textarea::TextArea;

use super::review::{self, Review};
use super::stream::{Finished, Stream};
use crate::tui::theme::Theme;

/// Records sent whole with the notes, in tokens (chars/4), as the command
/// line does by default.
const RECORD_BUDGET: usize = 16_000;

pub struct WritebackAgent {
    /// The notes or conversation to write back.
    pub input: TextArea<'static>,
    /// What was sent and kept back, one line each (sanitised).
    pub sent: Vec<String>,
    pub reply: Stream,
    pub review: Option<Review>,
    pub note: Option<String>,
}

impl Default for WritebackAgent {
    fn default() -> Self {
        let mut input = TextArea::default();
        // Short enough for a third of a wide screen; the text below the
        // input says what to write in full.
        input.set_placeholder_text("Notes to keep (i to type or paste)");
        WritebackAgent {
            input,
            sent: Vec::new(),
            reply: Stream::default(),
            review: None,
            note: None,
        }
    }
}

impl WritebackAgent {
    pub fn prepare(&mut self, project: &Project, clock: Clock) -> Result<ChatRequest, String> {
        let text = self.input.lines().join("\n");
        if text.trim().is_empty() {
            return Err("type or paste the notes to write back first (i)".into());
        }
        let notes = [Note {
            name: "notes typed in the interface".into(),
            text,
        }];
        let today = clock.today().to_string();
        let prepared =
            prepare_writeback(project, writeback::TEMPLATE, &notes, &today, RECORD_BUDGET);
        let s = |t: &str| sanitize_for_terminal(t, false);
        self.sent = prepared
            .records
            .iter()
            .map(|p| {
                let lines =
                    membank_core::dejavu::context::withheld_lines_note(&prepared.withheld_lines, p);
                format!("sent      {}{lines}", s(p))
            })
            .chain(
                prepared
                    .left_out
                    .iter()
                    .map(|p| format!("left out  {} (size limit)", s(p))),
            )
            .chain(
                prepared
                    .withheld
                    .iter()
                    .map(|(p, why)| format!("withheld  {} ({why})", s(p))),
            )
            .collect();
        self.review = None;
        self.note = None;
        Ok(prepared.request)
    }

    /// The reply ended: a complete one is checked and reviewed; an
    /// incomplete one is never applied.
    pub fn finish(&mut self, project: Option<&Project>, finished: Finished) {
        match project {
            Some(project) if finished.complete => {
                self.review = Some(Review::writeback(project, &finished.text));
            }
            _ => {
                self.note = Some(
                    "The reply is incomplete, so nothing can be applied. r asks again.".into(),
                );
            }
        }
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    agent: &WritebackAgent,
    editing: bool,
    focused: bool,
    theme: &Theme,
) {
    let input_h = if agent.review.is_some() && !editing {
        2
    } else {
        6
    };
    let [input, body] =
        Layout::vertical([Constraint::Length(input_h), Constraint::Fill(1)]).areas(area);
    let title = if editing {
        " Enter new line · Esc leaves, then r proposes "
    } else {
        " i type the notes · after Esc, r proposes records "
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
    if let Some(r) = &agent.review {
        review::draw(frame, body, r, focused, theme);
        return;
    }
    let mut lines: Vec<Line> = Vec::new();
    if agent.sent.is_empty() && !agent.reply.is_running() {
        lines.push(Line::styled(
            "The model proposes decision, open-loop, context, summary and index updates, \
             each durable record with its impression line. Every proposal is checked with \
             the project's own checks and shown with its diff; nothing is written before \
             you accept it and press Enter. Private memory is never sent.",
            theme.muted,
        ));
    }
    lines.extend(
        agent
            .sent
            .iter()
            .map(|l| Line::styled(format!("  {l}"), theme.muted)),
    );
    agent.reply.push_progress(
        &mut lines,
        agent.note.as_deref(),
        (usize::from(area.width), usize::from(body.height)),
        theme,
    );
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
}
