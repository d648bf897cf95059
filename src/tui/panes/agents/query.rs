//! The chat: questions answered with a context the layout assembles (a
//! bank's §7 context from the inspector's settings, a Deja Vu project's
//! recall-selected records). Each turn lists the files it sent and the ones
//! left out with why; Enter on one opens it.

use membank_core::bank::Bank;
use membank_core::budget::BudgetOptions;
use membank_core::scoring::Query;
use membank_core::text::sanitize_for_terminal;
use membank_llm::agents::ChatSession;
use membank_llm::{ChatRequest, StreamEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Borders, Paragraph};
use ratatui_textarea::TextArea;

use super::stream::{Finished, Stream};
use crate::tui::panes::highlight_row;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;
use crate::tui::widgets::wrap::wrap;

#[derive(Debug)]
pub struct Turn {
    /// Sanitised.
    pub question: String,
    /// `question` wrapped beside its "You: " label.
    question_rows: Vec<String>,
    pub reply: Stream,
    /// The articles in the context (rank order), then the ones the
    /// budget dropped.
    pub articles: Vec<TurnArticle>,
    /// The finished reply rendered as Markdown (drawn instead of the
    /// plain rows it streamed in as).
    pub rendered: Option<Vec<Line<'static>>>,
    /// What went into the context, one line above the list (sanitised).
    pub heading: String,
}

/// One question as it is sent: the request and what its context holds.
pub struct PreparedTurn {
    pub request: ChatRequest,
    /// Sent files first, then the ones left out with why.
    pub articles: Vec<TurnArticle>,
    /// What went into the context, in a line.
    pub heading: String,
}

/// What a chat calls things on screen.
#[derive(Debug, Clone, Copy)]
pub struct ChatWords {
    pub placeholder: &'static str,
    /// Shown before the first question.
    pub empty: [&'static str; 2],
    /// Shown when the context holds nothing.
    pub nothing: &'static str,
}

/// The Query agent's words, over a bank.
pub const BANK_WORDS: ChatWords = ChatWords {
    placeholder: "Ask about the bank (i to type)",
    empty: [
        "Ask a question about the bank.",
        "The context comes from the Context pane's client, domain, languages and budget.",
    ],
    nothing: "(no article matched)",
};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnArticle {
    /// Bank-relative path (raw; sanitise to show).
    pub path: String,
    /// Why the budget left it out (sanitised); `None` if it went in.
    pub dropped: Option<String>,
}

pub struct QueryAgent {
    session: ChatSession,
    words: ChatWords,
    pub turns: Vec<Turn>,
    pub input: TextArea<'static>,
    /// The selected article of the last turn.
    pub article: usize,
    /// Rows scrolled up from the newest text; 0 follows the reply.
    pub scroll_back: usize,
    /// Columns the transcript is wrapped at.
    width: usize,
    /// The styles replies are rendered with.
    theme: Option<Theme>,
}

/// A finished reply as Markdown at `width`; its links are all styled as
/// live (they are checked when opened).
fn render_reply(text: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    let width = u16::try_from(width).unwrap_or(u16::MAX).max(10);
    crate::tui::widgets::markdown::render_article(text, width, theme, &|_| true).lines
}

/// Columns of the "You: " label before a question.
const LABEL: usize = 5;

fn question_input(words: &ChatWords) -> TextArea<'static> {
    let mut input = TextArea::default();
    input.set_placeholder_text(words.placeholder);
    input
}

impl Default for QueryAgent {
    fn default() -> Self {
        QueryAgent::new(BANK_WORDS)
    }
}

/// Why a question would reach the model with no article of the bank in
/// its context, if it would: nothing asked for in the Context pane, or
/// nothing kept. A client of the bank the question names is offered: it
/// comes back with the warning, to be set in one key.
pub fn empty_context_warning(
    bank: &Bank,
    query: &Query,
    budget: BudgetOptions,
    question: &str,
) -> Option<(String, Option<String>)> {
    let asked = [
        &query.client,
        &query.domain,
        &query.source_lang,
        &query.target_lang,
    ]
    .iter()
    .any(|v| v.is_some());
    if asked
        && membank_core::context::build(bank, query, budget)
            .articles
            .iter()
            .any(|e| e.included)
    {
        return None;
    }
    let why = if asked {
        "no article matched the Context pane's query"
    } else {
        "no client, domain or language is set in the Context pane"
    };
    let mut text =
        format!("the context is empty ({why}): the model would answer without the bank.");
    let folded = question.to_lowercase();
    let named = membank_core::vocabulary::collect(bank)
        .clients
        .into_iter()
        .find(|c| !c.value.is_empty() && folded.contains(&c.value.to_lowercase()));
    if let Some(client) = &named {
        text.push_str(&format!(
            " The question names the client {}: set it in Context (Tab, Enter) first.",
            sanitize_for_terminal(&client.value, false)
        ));
    }
    text.push_str(" Sending it again sends it as it is.");
    Some((text, named.map(|c| c.value)))
}

/// A question to a bank: the context of the inspector's settings.
pub fn bank_turn(
    session: &mut ChatSession,
    bank: &Bank,
    template: &str,
    (query, budget): (Query, BudgetOptions),
    question: &str,
) -> PreparedTurn {
    session.query = query;
    session.budget = budget;
    let prepared = session.ask(bank, template, question);
    let dropped = prepared.dropped.len();
    PreparedTurn {
        heading: format!(
            "{} in the context, {dropped} dropped by the budget · Enter opens",
            crate::plural::count(prepared.used.len(), "article")
        ),
        articles: prepared
            .used
            .iter()
            .map(|p| TurnArticle {
                path: p.clone(),
                dropped: None,
            })
            .chain(prepared.dropped.iter().map(|d| TurnArticle {
                path: d.path.clone(),
                dropped: Some(sanitize_for_terminal(&d.reason, false)),
            }))
            .collect(),
        request: prepared.request,
    }
}

impl QueryAgent {
    pub fn new(words: ChatWords) -> QueryAgent {
        QueryAgent {
            session: ChatSession::default(),
            words,
            turns: Vec::new(),
            input: question_input(&words),
            article: 0,
            scroll_back: 0,
            width: 80,
            theme: None,
        }
    }

    /// The question in the input, if any, as the request `prepare` builds
    /// for it (given the session, whose history goes before it). The input
    /// is cleared.
    pub fn ask(
        &mut self,
        prepare: impl FnOnce(&mut ChatSession, &str) -> PreparedTurn,
    ) -> Option<ChatRequest> {
        let question = self.input.lines().join("\n");
        if question.trim().is_empty() {
            return None;
        }
        self.input = question_input(&self.words);
        let prepared = prepare(&mut self.session, question.trim());
        let question = sanitize_for_terminal(question.trim(), true);
        let mut reply = Stream::default();
        reply.set_width(self.width);
        self.turns.push(Turn {
            question_rows: wrap(&question, self.width.saturating_sub(LABEL)),
            question,
            reply,
            rendered: None,
            articles: prepared.articles,
            heading: sanitize_for_terminal(&prepared.heading, false),
        });
        self.article = 0;
        self.scroll_back = 0;
        Some(prepared.request)
    }

    /// The heading of the last turn's list.
    fn heading(&self) -> &str {
        self.turns.last().map_or("", |t| t.heading.as_str())
    }

    pub fn current(&mut self) -> Option<&mut Stream> {
        self.turns.last_mut().map(|t| &mut t.reply)
    }

    pub fn on_event(&mut self, event: StreamEvent) -> Option<Finished> {
        let finished = self.current()?.apply(event);
        if let Some(f) = &finished {
            // Partial text is kept as the answer; the turn shows it incomplete.
            self.session.record_reply(&f.text);
            let (width, theme) = (self.width, self.theme.clone());
            if let (Some(turn), Some(theme)) = (self.turns.last_mut(), theme) {
                turn.rendered = Some(render_reply(&turn.reply.text, width, &theme));
            }
        }
        finished
    }

    /// The question could not be sent; the turn says why.
    pub fn on_failed(&mut self, why: String) {
        if let Some(s) = self.current() {
            s.fail(why);
        }
        self.session.record_reply("");
    }

    pub fn clear(&mut self) {
        self.session.clear();
        self.turns.clear();
        self.article = 0;
        self.scroll_back = 0;
    }

    pub fn articles(&self) -> &[TurnArticle] {
        self.turns.last().map_or(&[], |t| t.articles.as_slice())
    }

    pub fn selected_article(&self) -> Option<&str> {
        self.articles().get(self.article).map(|a| a.path.as_str())
    }

    pub fn move_article(&mut self, delta: isize) {
        let n = self.articles().len();
        if n > 0 {
            self.article = self.article.saturating_add_signed(delta).min(n - 1);
        }
    }

    /// Wrap the transcript at a new width.
    pub fn set_width(&mut self, width: usize) {
        if width == self.width {
            return;
        }
        self.width = width;
        for t in &mut self.turns {
            t.question_rows = wrap(&t.question, width.saturating_sub(LABEL));
            t.reply.set_width(width);
            if let (Some(_), Some(theme)) = (&t.rendered, &self.theme) {
                t.rendered = Some(render_reply(&t.reply.text, width, theme));
            }
        }
    }

    /// The styles finished replies are rendered with.
    pub fn set_theme(&mut self, theme: &Theme) {
        if self.theme.as_ref() != Some(theme) {
            self.theme = Some(theme.clone());
        }
    }

    /// Rows of a turn's reply: rendered once finished, plain while it
    /// streams.
    fn reply_len(t: &Turn) -> usize {
        t.rendered.as_ref().map_or(t.reply.view.len(), Vec::len)
    }

    /// Rows a turn takes: question, reply, status (wrapped), a blank line.
    fn turn_rows(&self, t: &Turn) -> usize {
        t.question_rows.len() + Self::reply_len(t) + t.reply.status_rows(self.width).len() + 1
    }

    fn transcript_rows(&self) -> usize {
        self.turns.iter().map(|t| self.turn_rows(t)).sum()
    }

    /// Rows `start..end` of the transcript, styled; only these are built.
    fn transcript(&self, start: usize, end: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = Vec::with_capacity(end - start);
        let mut at = 0;
        for turn in &self.turns {
            let rows = self.turn_rows(turn);
            if at + rows <= start {
                at += rows;
                continue;
            }
            if at >= end {
                break;
            }
            let mut turn_lines = Vec::with_capacity(rows);
            for (i, row) in turn.question_rows.iter().enumerate() {
                let head = if i == 0 { "You: " } else { "     " };
                turn_lines.push(Line::from(vec![
                    Span::styled(head, theme.title),
                    Span::styled(row.clone(), theme.text),
                ]));
            }
            // Only the reply rows that show are copied.
            let skip = start.saturating_sub(at + turn_lines.len());
            let take = end.saturating_sub(at + turn_lines.len());
            let first_reply = turn_lines.len() + skip.min(Self::reply_len(turn));
            match &turn.rendered {
                Some(lines) => turn_lines.extend(
                    lines
                        .iter()
                        .skip(skip)
                        .take(take.saturating_sub(skip))
                        .cloned(),
                ),
                None => turn_lines.extend(
                    turn.reply
                        .view
                        .rows(skip..take)
                        .map(|r| Line::styled(r.to_owned(), theme.text)),
                ),
            }
            let style = if matches!(turn.reply.state, super::stream::StreamState::Incomplete(_))
                && !turn.reply.is_running()
            {
                theme.warning
            } else {
                theme.muted
            };
            for row in turn.reply.status_rows(self.width) {
                turn_lines.push(Line::styled(row, style));
            }
            turn_lines.push(Line::raw(""));
            // Row numbers of `turn_lines`: the question rows, then the reply
            // rows from `first_reply`, then the rest.
            let q = turn.question_rows.len();
            for (i, line) in turn_lines.into_iter().enumerate() {
                let row = if i < q {
                    at + i
                } else {
                    at + first_reply + (i - q)
                };
                if (start..end).contains(&row) {
                    lines.push(line);
                }
            }
            at += rows;
        }
        lines
    }
}

pub fn draw(
    frame: &mut Frame,
    area: Rect,
    chat: &QueryAgent,
    editing: bool,
    focused: bool,
    theme: &Theme,
) {
    let articles = chat.articles();
    let list_h = if chat.turns.is_empty() {
        0
    } else {
        (articles.len() as u16).clamp(1, 3) + 1
    };
    let [body, list, input] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(list_h),
        Constraint::Length(4),
    ])
    .areas(area);

    let total = chat.transcript_rows();
    let height = usize::from(body.height);
    let back = chat.scroll_back.min(total.saturating_sub(height));
    let end = total - back;
    let start = end.saturating_sub(height);
    if chat.turns.is_empty() {
        frame.render_widget(
            Paragraph::new(
                chat.words
                    .empty
                    .iter()
                    .map(|l| Line::styled(*l, theme.muted))
                    .collect::<Vec<_>>(),
            )
            .wrap(ratatui::widgets::Wrap { trim: true }),
            body,
        );
    } else {
        frame.render_widget(
            Paragraph::new(cut_lines(chat.transcript(start, end, theme), body.width)),
            body,
        );
    }

    if list_h > 0 {
        let mut rows = vec![Line::styled(chat.heading().to_owned(), theme.muted)];
        if articles.is_empty() {
            rows.push(Line::styled(
                format!("  {}", chat.words.nothing),
                theme.muted,
            ));
        }
        let shown = usize::from(list_h - 1);
        let first = chat.article.saturating_sub(shown.saturating_sub(1));
        for (i, a) in articles.iter().enumerate().skip(first).take(shown) {
            let path = sanitize_for_terminal(&a.path, false);
            let line = match &a.dropped {
                None => Line::styled(format!("  {path}"), theme.link),
                Some(why) => Line::styled(format!("  ✗ {path} — {why}"), theme.muted),
            };
            rows.push(if i == chat.article && focused && !editing {
                highlight_row(line, list.width, theme.selection)
            } else {
                line
            });
        }
        frame.render_widget(Paragraph::new(cut_lines(rows, list.width)), list);
    }

    let title = if editing {
        " Enter sends · Alt-Enter new line · Esc leaves "
    } else {
        " i (or any letter) types · Enter sends "
    };
    super::draw::draw_input(
        frame,
        input,
        &chat.input,
        Borders::TOP,
        title,
        editing,
        theme,
    );
}
