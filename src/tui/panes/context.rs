//! The Context pane: the query edited in place, and every
//! candidate article in rank order with its points, the values that earned
//! them, its tokens and whether the budget kept it.
//!
//! Scoring and budgeting are the core's (`context::build`); this pane only
//! formats the report.

use crate::tui::drop_later::drop_later;
use membank_core::bank::Bank;
use membank_core::budget::{BudgetOptions, DEFAULT_BUDGET};
use membank_core::context::{self, ContextReport};
use membank_core::scoring::Query;
use membank_core::text::sanitize_for_terminal;
use membank_core::vocabulary::{self, Vocabulary};
use membank_core::wikilink::fold;
use ratatui::Frame;
use ratatui::crossterm::event::KeyEvent;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui_textarea::TextArea;

mod candidates;
mod draw;
mod explain;

pub use candidates::Candidates;

use draw::MAX_SUMMARY_ROWS;
pub use draw::{FORM_HEIGHT, draw};

use super::{Component, Cx, hint_text, page};
use crate::last_query::SavedQuery;
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;

/// The editable rows, in screen order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Client,
    Domain,
    SourceLang,
    TargetLang,
    Budget,
    Unscored,
}

impl Field {
    pub const ALL: [Field; 6] = [
        Field::Client,
        Field::Domain,
        Field::SourceLang,
        Field::TargetLang,
        Field::Budget,
        Field::Unscored,
    ];

    fn label(self) -> &'static str {
        match self {
            Field::Client => "client",
            Field::Domain => "domain",
            Field::SourceLang => "source lang",
            Field::TargetLang => "target lang",
            Field::Budget => "budget",
            Field::Unscored => "unscored",
        }
    }
}

const FORM_ROWS: usize = Field::ALL.len();

/// A query with its budget: what the pane ranks for. Compared so that a
/// report made on another thread is used only for what is still asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ranking {
    pub query: Query,
    pub options: BudgetOptions,
}

impl Ranking {
    pub fn build(&self, bank: &Bank) -> ContextReport {
        context::build(bank, &self.query, self.options)
    }
}

/// One candidate, formatted.
#[derive(Debug, Clone)]
pub struct CandidateRow {
    pub rel: String,
    pub included: bool,
    pub lines: Vec<Line<'static>>,
}

pub struct ContextPane {
    inputs: Vec<TextArea<'static>>,
    pub include_unscored: bool,
    /// Selected row: the form rows first, then the candidates.
    pub row: usize,
    /// First candidate shown.
    pub offset: usize,
    pub editing: bool,
    pub suggestions: Vec<String>,
    /// The suggestion `Tab` put in the field: the list stays as it was so
    /// `Tab` and `Shift-Tab` step through it, as a shell's completion does.
    pub picked: Option<usize>,
    /// The key that explains the selected candidate in full, named where
    /// the box under the list is too short for its text.
    pub explain_key: String,
    pub budget_error: Option<String>,
    pub summary: String,
    /// `client=… domain=…`, for the status bar.
    pub query_text: String,
    /// Every candidate in rank order, as the core reported it.
    pub entries: Candidates,
    /// The query `entries` were ranked for, to put them into words.
    active_query: Query,
    /// Formatted rows for the candidates from `offset` that fit the list;
    /// only these are formatted, so typing stays quick on large banks.
    pub visible: Vec<CandidateRow>,
    /// The selected candidate in full, for the detail box under the list.
    pub detail: Vec<Line<'static>>,
    /// `summary` wrapped to the pane's width (a tier-order note makes it
    /// longer than a row).
    summary_lines: Vec<Line<'static>>,
    /// Rows the selected candidate takes in the list.
    selected_height: usize,
    /// Rows under the form: the list and, when a candidate is selected
    /// and there is room, its detail box.
    list_height: usize,
    /// Columns of the pane's inside, which rows are wrapped to.
    width: usize,
    values: Vocabulary,
    budget: usize,
    /// The budget to fall back on while the field holds no valid number:
    /// the one in use before this edit began. Falling back to the last
    /// keystroke's value applied a prefix ("1" of "1x", 19 of 20 digits).
    budget_kept: usize,
}

impl std::fmt::Debug for ContextPane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextPane")
            .field("row", &self.row)
            .field("editing", &self.editing)
            .field("query", &self.query_text)
            .finish()
    }
}

/// What the app should do after a key in this pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Ignored,
    Handled,
    Open(String),
}

impl ContextPane {
    pub fn new(theme: &Theme) -> ContextPane {
        let inputs = (0..5)
            .map(|_| {
                let mut t = TextArea::default();
                t.set_cursor_line_style(ratatui::style::Style::new());
                t.set_style(theme.input);
                t
            })
            .collect();
        let mut pane = ContextPane {
            inputs,
            include_unscored: false,
            row: 0,
            offset: 0,
            editing: false,
            suggestions: Vec::new(),
            picked: None,
            explain_key: "x".to_owned(),
            budget_error: None,
            summary: String::new(),
            query_text: String::new(),
            entries: Candidates::default(),
            active_query: Query::default(),
            visible: Vec::new(),
            detail: Vec::new(),
            summary_lines: Vec::new(),
            selected_height: 0,
            list_height: 20,
            width: 60,
            values: Vocabulary::default(),
            budget: DEFAULT_BUDGET,
            budget_kept: DEFAULT_BUDGET,
        };
        pane.inputs[4].insert_str(DEFAULT_BUDGET.to_string());
        pane
    }

    pub fn field_text(&self, field: Field) -> &str {
        match field {
            Field::Unscored => "",
            f => self.inputs[f as usize]
                .lines()
                .first()
                .map_or("", String::as_str),
        }
    }

    /// Put text into a field (used by tests and the command line).
    pub fn set_field(&mut self, field: Field, text: &str, bank: &Bank, theme: &Theme) {
        if field == Field::Unscored {
            return;
        }
        let input = &mut self.inputs[field as usize];
        input.select_all();
        input.cut();
        input.insert_str(text);
        self.recompute(bank, theme);
    }

    /// The form as it is, to be remembered for the next launch.
    pub fn saved_query(&self) -> SavedQuery {
        SavedQuery {
            client: self.field_text(Field::Client).to_owned(),
            domain: self.field_text(Field::Domain).to_owned(),
            source_lang: self.field_text(Field::SourceLang).to_owned(),
            target_lang: self.field_text(Field::TargetLang).to_owned(),
            // Never an invalid budget: read back at the next launch it
            // meant the default, not the budget that was in use.
            budget: if self.budget_error.is_some() {
                self.budget.to_string()
            } else {
                self.field_text(Field::Budget).to_owned()
            },
            include_unscored: self.include_unscored,
        }
    }

    /// Fill the form with a remembered query and rank for it.
    pub fn restore(&mut self, saved: &SavedQuery, bank: &Bank, theme: &Theme) {
        self.fill(saved);
        self.recompute(bank, theme);
    }

    /// Fill the form with a remembered query without ranking (the bank is
    /// still being read; it is ranked when it arrives).
    pub fn fill(&mut self, saved: &SavedQuery) {
        let fields = [
            (Field::Client, &saved.client),
            (Field::Domain, &saved.domain),
            (Field::SourceLang, &saved.source_lang),
            (Field::TargetLang, &saved.target_lang),
            (Field::Budget, &saved.budget),
        ];
        for (field, text) in fields {
            // One line of printable text; the file is the user's, but is
            // treated like any other input.
            let text = sanitize_for_terminal(text.lines().next().unwrap_or(""), false);
            let input = &mut self.inputs[field as usize];
            input.select_all();
            input.cut();
            input.insert_str(text);
        }
        self.include_unscored = saved.include_unscored;
    }

    pub fn selected_field(&self) -> Option<Field> {
        Field::ALL.get(self.row).copied()
    }

    /// Path of the selected candidate.
    pub fn selected_candidate<'b>(&self, bank: &'b Bank) -> Option<&'b str> {
        self.row
            .checked_sub(FORM_ROWS)
            .and_then(|i| self.entries.get(i))
            .map(|e| e.path(bank))
    }

    /// The settings as the agents use them.
    pub fn query(&self) -> Query {
        let opt = |f: Field| {
            let t = self.field_text(f).trim();
            (!t.is_empty()).then(|| t.to_owned())
        };
        Query {
            client: opt(Field::Client),
            domain: opt(Field::Domain),
            source_lang: opt(Field::SourceLang),
            target_lang: opt(Field::TargetLang),
        }
    }

    /// The budget as the agents use it.
    pub fn budget_options(&self) -> BudgetOptions {
        BudgetOptions {
            budget: self.budget,
            include_unscored: self.include_unscored,
        }
    }

    /// Refresh completions from the bank and rebuild the report.
    /// A new bank: its values, as read on the worker that read the bank
    /// when it came with them, then the ranking for the current query.
    /// `ranked` is the report for [`ContextPane::ranking`] as it was when
    /// the bank was read elsewhere; it is used only if the form still asks
    /// for the same.
    pub fn reload(
        &mut self,
        bank: &Bank,
        values: Option<Vocabulary>,
        ranked: Option<(Ranking, ContextReport)>,
        theme: &Theme,
    ) {
        let values = values.unwrap_or_else(|| vocabulary::collect(bank));
        drop_later(std::mem::replace(&mut self.values, values));
        match ranked {
            Some((asked, report)) if asked == self.ranking() => {
                self.read_budget();
                self.show_report(report, bank, theme);
            }
            _ => self.recompute(bank, theme),
        }
    }

    /// What the form asks for now: the query and the budget.
    pub fn ranking(&self) -> Ranking {
        let budget = match self.field_text(Field::Budget).trim() {
            "" => DEFAULT_BUDGET,
            typed => typed.parse().unwrap_or(self.budget_kept),
        };
        Ranking {
            query: self.query(),
            options: BudgetOptions {
                budget,
                include_unscored: self.include_unscored,
            },
        }
    }

    /// Take the typed budget, or say why it is not a number.
    fn read_budget(&mut self) {
        let raw_budget = self.field_text(Field::Budget).trim().to_owned();
        self.budget_error = None;
        if raw_budget.is_empty() {
            self.budget = DEFAULT_BUDGET;
        } else {
            match raw_budget.parse::<usize>() {
                Ok(n) => {
                    self.budget = n;
                    if !self.editing {
                        self.budget_kept = n;
                    }
                }
                Err(e) => {
                    self.budget = self.budget_kept;
                    let why = match e.kind() {
                        std::num::IntErrorKind::PosOverflow => "too large",
                        _ => "not a whole number",
                    };
                    self.budget_error = Some(format!("{why}; still using {}", self.budget));
                }
            }
        }
    }

    /// Score, budget and format every candidate for the current query.
    pub fn recompute(&mut self, bank: &Bank, theme: &Theme) {
        self.read_budget();
        let report = self.ranking().build(bank);
        self.show_report(report, bank, theme);
    }

    fn show_report(&mut self, report: ContextReport, bank: &Bank, theme: &Theme) {
        let query = report.query.clone();
        self.query_text = [
            ("client", &query.client),
            ("domain", &query.domain),
            ("source", &query.source_lang),
            ("target", &query.target_lang),
        ]
        .iter()
        .filter_map(|(k, v)| {
            v.as_ref()
                .map(|v| format!("{k}={}", sanitize_for_terminal(v, false)))
        })
        .collect::<Vec<_>>()
        .join(" ");
        // A client or domain no article carries scores nothing: say so
        // first, with the closest values the bank does use.
        let unknown: Vec<String> = membank_core::suggest::unknown_values(&self.values, &query)
            .iter()
            .map(|u| sanitize_for_terminal(&u.to_string(), false))
            .collect();
        self.summary = explain::summary(&report, bank);
        if !unknown.is_empty() {
            self.summary = format!("{} · {}", unknown.join(" · "), self.summary);
        }
        let entries = Candidates::of(report.articles);
        drop_later(std::mem::replace(&mut self.entries, entries));
        self.active_query = query;
        self.update_suggestions();
        self.row = self
            .row
            .min(FORM_ROWS + self.entries.len().saturating_sub(1));
        self.clamp_scroll(self.list_height, bank, theme);
    }

    /// Format the candidates that fit from `offset` on: only these are put
    /// into words, so a large bank costs nothing extra per keystroke.
    fn refresh_window(&mut self, bank: &Bank, theme: &Theme) {
        self.visible.clear();
        let mut used = 0;
        let rows = self.list_rows();
        for e in (self.offset..self.entries.len()).filter_map(|i| self.entries.get(i)) {
            if used >= rows {
                break;
            }
            let row = explain::candidate_row(&e, bank, &self.active_query, theme, self.width);
            used += row.lines.len();
            self.visible.push(row);
        }
    }

    fn update_suggestions(&mut self) {
        self.suggestions.clear();
        self.picked = None;
        if !self.editing {
            return;
        }
        let Some(field) = self.selected_field() else {
            return;
        };
        let pool = match field {
            Field::Client => &self.values.clients,
            Field::Domain => &self.values.domains,
            Field::SourceLang | Field::TargetLang => &self.values.languages,
            _ => return,
        };
        let typed = self.field_text(field).trim().to_owned();
        let languages = matches!(field, Field::SourceLang | Field::TargetLang);
        self.suggestions = Vocabulary::complete(pool, &typed)
            .into_iter()
            .filter(|v| fold(v) != fold(&typed))
            // A language value that is no code matches nothing, so it is
            // not offered (see `languages_match`).
            .filter(|v| !languages || membank_core::health::is_plausible_language_tag(v))
            .take(8)
            .map(|s| sanitize_for_terminal(s, false))
            .collect();
    }

    /// Lines a candidate takes in the list (see `explain::candidate_row`).
    fn candidate_height(&self, i: usize, bank: &Bank, theme: &Theme) -> usize {
        self.entries.get(i).map_or(1, |e| {
            explain::candidate_row(&e, bank, &self.active_query, theme, self.width)
                .lines
                .len()
        })
    }

    /// Rows of the selected candidate's detail box: none on the form
    /// (the list shows what typing changes) or when the pane is short.
    pub fn detail_rows(&self) -> usize {
        self.detail_rows_for(self.selected_height)
    }

    /// The box's rows when the selected candidate takes `selected` rows of
    /// the list: the row itself comes first, and a box too small to say
    /// anything is left out (the wrapped row already says it all).
    fn detail_rows_for(&self, selected: usize) -> usize {
        if self.row < FORM_ROWS || self.detail.is_empty() {
            return 0;
        }
        let summary_extra = self.wrapped_summary_rows().saturating_sub(1);
        let room = self
            .rows_for_list()
            .saturating_sub(summary_extra + selected);
        let cap = (self.rows_for_list() / 2).max(6);
        // A rule above the text.
        let rows = cap.min(room).min(1 + self.detail.len());
        if rows < 4 { 0 } else { rows }
    }

    /// The query fields fold to one line while a candidate is selected:
    /// at 80×24 the list needs those rows more than the form does.
    pub fn form_collapsed(&self) -> bool {
        self.row >= FORM_ROWS && !self.editing
    }

    /// Rows the form takes: every field and the hint, or the one line.
    fn form_rows(&self) -> usize {
        if self.form_collapsed() {
            1
        } else {
            FORM_ROWS + 1
        }
    }

    /// `list_height` is what is left under the whole form; a folded form
    /// gives its rows to the list.
    fn rows_for_list(&self) -> usize {
        self.list_height + (FORM_ROWS + 1 - self.form_rows())
    }

    /// Rows left for the candidate list.
    fn list_rows(&self) -> usize {
        let summary_extra = self.wrapped_summary_rows().saturating_sub(1);
        self.rows_for_list()
            .saturating_sub(self.detail_rows() + summary_extra)
            .max(1)
    }

    fn wrapped_summary(&self, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = explain::wrap_spans(&[(self.summary.clone(), theme.title)], 0, self.width);
        if lines.len() > MAX_SUMMARY_ROWS {
            // Said to go on: the last row shown ends in `…` (`z` shows all).
            lines.truncate(MAX_SUMMARY_ROWS);
            if let Some(mut last) = lines.pop() {
                let full = last.width() >= self.width;
                last.spans.push(ratatui::text::Span::styled(
                    if full { "……" } else { "…" },
                    theme.title,
                ));
                // A full row loses its last character to the `…`.
                lines.push(crate::tui::widgets::cut::cut_line(last, self.width));
            }
        }
        lines
    }

    fn wrapped_summary_rows(&self) -> usize {
        self.summary_lines.len().max(1)
    }

    /// The columns rows are wrapped to; set when the screen is laid out.
    pub fn set_width(&mut self, width: u16, bank: &Bank, theme: &Theme) {
        let width = usize::from(width).max(20);
        if width != self.width {
            self.width = width;
            self.clamp_scroll(self.list_height, bank, theme);
        }
    }

    /// Keep the selected candidate inside a list of `height` lines.
    pub fn clamp_scroll(&mut self, height: usize, bank: &Bank, theme: &Theme) {
        self.list_height = height.max(1);
        // The box and the summary take rows from the list: size them first.
        self.summary_lines = self.wrapped_summary(theme);
        self.detail = self.detail(bank, theme);
        self.selected_height = match self.row.checked_sub(FORM_ROWS) {
            Some(sel) => self.candidate_height(sel, bank, theme),
            None => 0,
        };
        let rows = self.list_rows();
        match self.row.checked_sub(FORM_ROWS) {
            // On the form, the list shows the top of the ranking: that is
            // what changes while typing.
            None => self.offset = 0,
            Some(sel) => {
                if sel < self.offset {
                    self.offset = sel;
                }
                // The first row that still shows all of `sel`, found by
                // walking up from it: only visible rows are measured.
                let mut first = sel;
                let mut used = self.candidate_height(sel, bank, theme);
                while first > self.offset {
                    let h = self.candidate_height(first - 1, bank, theme);
                    if used + h > rows {
                        break;
                    }
                    used += h;
                    first -= 1;
                }
                self.offset = first;
            }
        }
        self.refresh_window(bank, theme);
    }

    /// The row (form field or candidate, as in `row`) drawn `y` rows below
    /// the top of the pane's inside, if any.
    pub fn row_at(&self, y: usize) -> Option<usize> {
        if self.form_collapsed() && y == 0 {
            // The folded form: a click opens it at its first field.
            return Some(0);
        }
        if !self.form_collapsed() && y < FORM_ROWS {
            return Some(y);
        }
        let list_top = self.form_rows() + self.summary_lines.len().max(1) + 1;
        let mut top = list_top;
        for (k, c) in self.visible.iter().enumerate() {
            let bottom = top + c.lines.len();
            if (top..bottom).contains(&y) {
                return Some(FORM_ROWS + self.offset + k);
            }
            top = bottom;
        }
        None
    }

    /// The selected candidate in full, for the detail box.
    fn detail(&self, bank: &Bank, theme: &Theme) -> Vec<Line<'static>> {
        let Some(e) = self
            .row
            .checked_sub(FORM_ROWS)
            .and_then(|i| self.entries.get(i))
        else {
            return Vec::new();
        };
        // Only a budget drop can leave lower scores in: kept articles of a
        // tier trimmed later (§8's tier order), and ones the fill put back
        // (a lower score in a tier trimmed no later was dropped first, so
        // it is in only because it fitted what was left).
        let kept_below = match e.drop {
            Some(membank_core::budget::DropReason::OverBudget { .. }) => {
                let tier = bank.article(e.id).folder.drop_tier();
                self.entries
                    .iter()
                    .filter(|k| k.included && k.score < e.score)
                    .fold((0, 0), |(later, put_back), k| {
                        if k.score > 0 && bank.article(k.id).folder.drop_tier() > tier {
                            (later + 1, put_back)
                        } else {
                            (later, put_back + 1)
                        }
                    })
            }
            _ => (0, 0),
        };
        explain::detail_lines(&e, kept_below, bank, &self.active_query, theme, self.width)
    }

    pub fn move_row(&mut self, delta: isize, list_height: usize, bank: &Bank, theme: &Theme) {
        let last = FORM_ROWS + self.entries.len().saturating_sub(1);
        self.row = (self.row as isize + delta).clamp(0, last as isize) as usize;
        self.clamp_scroll(list_height, bank, theme);
    }

    pub fn start_editing(&mut self) -> bool {
        match self.selected_field() {
            Some(Field::Unscored) | None => false,
            Some(f) => {
                self.editing = true;
                if self.budget_error.is_none() {
                    self.budget_kept = self.budget;
                }
                self.inputs[f as usize].move_cursor(ratatui_textarea::CursorMove::End);
                self.update_suggestions();
                true
            }
        }
    }

    /// Enter on a row: edit a field, toggle a switch, open a candidate.
    pub fn activate(&mut self, bank: &Bank, theme: &Theme) -> Outcome {
        match self.selected_field() {
            Some(Field::Unscored) => {
                self.include_unscored = !self.include_unscored;
                self.recompute(bank, theme);
                Outcome::Handled
            }
            Some(_) => {
                self.start_editing();
                Outcome::Handled
            }
            None => match self.selected_candidate(bank) {
                Some(rel) => Outcome::Open(rel.to_owned()),
                None => Outcome::Ignored,
            },
        }
    }

    /// A key while a field is being edited.
    pub fn edit_key(
        &mut self,
        key: ratatui::crossterm::event::KeyEvent,
        bank: &Bank,
        theme: &Theme,
        list_height: usize,
    ) -> Outcome {
        use ratatui::crossterm::event::{KeyCode, KeyModifiers};
        let Some(field) = self.selected_field() else {
            self.editing = false;
            return Outcome::Ignored;
        };
        match key.code {
            KeyCode::Enter | KeyCode::Esc => {
                self.editing = false;
                self.suggestions.clear();
            }
            KeyCode::Tab | KeyCode::BackTab if !self.suggestions.is_empty() => {
                let n = self.suggestions.len();
                let next = match (self.picked, key.code) {
                    (None, KeyCode::Tab) => 0,
                    (None, _) => n - 1,
                    (Some(i), KeyCode::Tab) => (i + 1) % n,
                    (Some(i), _) => (i + n - 1) % n,
                };
                let shown = std::mem::take(&mut self.suggestions);
                self.set_field(field, &shown[next], bank, theme);
                self.suggestions = shown;
                self.picked = Some(next);
            }
            KeyCode::Tab | KeyCode::BackTab => {}
            KeyCode::Up | KeyCode::Down => {
                self.editing = false;
                self.suggestions.clear();
                self.move_row(
                    if key.code == KeyCode::Up { -1 } else { 1 },
                    list_height,
                    bank,
                    theme,
                );
            }
            // Ctrl-U clears to the line start, as in a shell.
            KeyCode::Char('u') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                if self.inputs[field as usize].delete_line_by_head() {
                    self.recompute(bank, theme);
                }
            }
            _ => {
                if self.inputs[field as usize].input(key) {
                    self.recompute(bank, theme);
                }
            }
        }
        Outcome::Handled
    }

    /// Pasted text goes into the field being edited, on one line.
    pub fn paste(&mut self, text: &str, bank: &Bank, theme: &Theme) -> bool {
        let Some(field) = self.selected_field().filter(|_| self.editing) else {
            return false;
        };
        if field == Field::Unscored {
            return false;
        }
        let clean = sanitize_for_terminal(&text.replace(['\n', '\r'], " "), false);
        self.inputs[field as usize].insert_str(clean);
        self.recompute(bank, theme);
        true
    }
}

impl Component for ContextPane {
    fn scope(&self) -> Scope {
        Scope::Context
    }

    fn title(&self) -> String {
        "Context".to_owned()
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let Some(bank) = cx.bank else {
            return false;
        };
        let (h, theme) = (cx.height, cx.theme);
        match action {
            Action::Up => self.move_row(-1, h, bank, theme),
            Action::Down => self.move_row(1, h, bank, theme),
            Action::PageUp => self.move_row(-page(h / 2), h, bank, theme),
            Action::PageDown => self.move_row(page(h / 2), h, bank, theme),
            Action::Top => self.move_row(isize::MIN / 2, h, bank, theme),
            Action::Bottom => self.move_row(isize::MAX / 2, h, bank, theme),
            Action::EditField => {
                // From the list: the folded query opens at its first field.
                if self.form_collapsed() {
                    self.row = 0;
                    self.clamp_scroll(h, bank, theme);
                }
                return self.start_editing();
            }
            Action::Open => match self.activate(bank, theme) {
                Outcome::Open(rel) => cx.effects.push(Effect::open(rel)),
                Outcome::Handled => {}
                Outcome::Ignored => return false,
            },
            Action::Edit => {
                let rel = self.selected_candidate(bank).map(str::to_owned);
                return cx.edit(rel, None);
            }
            Action::CopyPath => {
                let rel = self.selected_candidate(bank).map(str::to_owned);
                return cx.copy_path(rel);
            }
            Action::CopyLink => {
                let rel = self.selected_candidate(bank).map(str::to_owned);
                return cx.copy_link(rel);
            }
            Action::Explain => {
                if self.detail.is_empty() {
                    return false;
                }
                cx.effects.push(Effect::ShowText {
                    title: "Why this candidate ranks here".into(),
                    lines: self.detail.clone(),
                });
            }
            Action::CopyContext => {
                let report = context::build(bank, &self.query(), self.budget_options());
                let kept = report.included().count();
                // The bank keeps no bodies: each kept article is read again.
                match context::try_render(bank, &report) {
                    Ok(text) => cx.copy_long(
                        &text,
                        format!(
                            "copied the assembled context: {kept} articles, {} tokens",
                            report.used_tokens
                        ),
                    ),
                    Err(p) => cx.warn(sanitize_for_terminal(
                        &format!(
                            "nothing copied: {}: {}",
                            p.path,
                            p.message.trim_end_matches("; run the command again")
                        ),
                        false,
                    )),
                }
            }
            _ => return false,
        }
        true
    }

    fn is_typing(&self) -> bool {
        self.editing
    }

    fn on_typing_key(&mut self, key: KeyEvent, cx: &mut Cx) -> bool {
        let Some(bank) = cx.bank else {
            return false;
        };
        self.edit_key(key, bank, cx.theme, cx.height);
        true
    }

    fn on_paste(&mut self, text: &str, cx: &mut Cx) -> bool {
        cx.bank.is_some_and(|bank| self.paste(text, bank, cx.theme))
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        // The box says it all when it fits; else the popup does.
        let clipped = !self.detail.is_empty() && self.detail_rows() < 1 + self.detail.len();
        let explain: &[(Action, &str)] = if clipped {
            &[(Action::Explain, "in full")]
        } else {
            &[]
        };
        let mut hints = vec![(Action::Open, "edit/open")];
        hints.extend_from_slice(explain);
        hints.push((Action::Down, "move"));
        hint_text(keymap, &hints)
    }

    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        draw(frame, area, self, focused, theme);
    }
}
