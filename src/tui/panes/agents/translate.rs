//! Translate with the bank: the source text (typed or pasted), translated
//! with the context the inspector's settings assemble; the result can be
//! copied out with OSC 52.

use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::scoring::Query;
use membank_core::text::sanitize_for_terminal;
use membank_llm::ChatRequest;
use membank_llm::agents;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Borders, Paragraph};
use ratatui_textarea::TextArea;

use super::stream::Stream;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;

pub struct TranslateAgent {
    pub input: TextArea<'static>,
    pub reply: Stream,
    /// Articles in the context, sanitised.
    pub used: Vec<String>,
    pub dropped: usize,
}

impl Default for TranslateAgent {
    fn default() -> Self {
        let mut input = TextArea::default();
        input.set_placeholder_text("Source text (i to type or paste)");
        TranslateAgent {
            input,
            reply: Stream::default(),
            used: Vec::new(),
            dropped: 0,
        }
    }
}

impl TranslateAgent {
    pub fn prepare(
        &mut self,
        bank: &Bank,
        template: &str,
        query: &Query,
        budget: BudgetOptions,
    ) -> Result<ChatRequest, String> {
        let source = self.input.lines().join("\n");
        if source.trim().is_empty() {
            return Err("type or paste the text to translate first (i)".into());
        }
        let prepared = agents::prepare_translate(bank, template, query, budget, &source);
        self.used = prepared
            .used
            .iter()
            .map(|p| sanitize_for_terminal(p, false))
            .collect();
        self.dropped = prepared.dropped.len();
        Ok(prepared.request)
    }
}

pub fn draw(frame: &mut Frame, area: Rect, agent: &TranslateAgent, editing: bool, theme: &Theme) {
    // The account of the call can be a long error (what to fix): it gets
    // the rows it needs, up to a third of the pane, instead of being cut.
    let width = usize::from(area.width);
    let mut info_lines = vec![Line::styled(
        format!(
            "{} used, {} dropped",
            crate::plural::count(agent.used.len(), "article"),
            agent.dropped
        ),
        theme.muted,
    )];
    info_lines.extend(
        agent
            .reply
            .status_rows(width)
            .into_iter()
            .map(|row| Line::styled(row, theme.muted)),
    );
    info_lines.push(Line::styled(agent.used.join(", "), theme.link));
    let info_rows = u16::try_from(info_lines.len())
        .unwrap_or(u16::MAX)
        .min((area.height / 3).max(2));
    let [input, info, result] = Layout::vertical([
        Constraint::Percentage(40),
        Constraint::Length(info_rows),
        Constraint::Fill(1),
    ])
    .areas(area);
    let title = if editing {
        " source · Enter new line · Esc leaves "
    } else {
        " source · i type · after Esc, r translates · y copy "
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

    frame.render_widget(
        Paragraph::new(info_lines).wrap(ratatui::widgets::Wrap { trim: false }),
        info,
    );

    let rows: Vec<Line> = agent
        .reply
        .view
        .tail(usize::from(result.height))
        .map(|r| Line::styled(r.to_owned(), theme.text))
        .collect();
    frame.render_widget(Paragraph::new(cut_lines(rows, result.width)), result);
}
