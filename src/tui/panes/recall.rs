//! The Recall pane, a Deja Vu project's Context slot: type a cue and see
//! the level, the score, what a host would load and every impression's
//! tokens and arithmetic, updated on each key; save a feedback line for
//! the cue just tried; Enter opens the selected impression's record.
//!
//! A cue is scanned on a worker thread (`recall_job`): a large impressions
//! file takes longer than a key should wait. `draw` only reads the state.

use membank_core::dejavu::feedback::{self, OUTCOMES};
use membank_core::dejavu::js::{self, JsValue};
use membank_core::dejavu::paths::route_for_display;
use membank_core::dejavu::recall::{Considered, Explanation, Level};
use membank_core::dejavu::{self, IMPRESSIONS_PATH, Project, Recall};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::{Kind, Transaction};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{Component, Cx, hint_text, page};
use crate::tui::drop_later::drop_later;
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;
use crate::tui::widgets::line_input;
use crate::tui::widgets::wrap::{leading_spaces, wrap_line};

#[derive(Default)]
pub struct RecallPane {
    pub cue: String,
    pub typing: bool,
    recall: Option<Recall>,
    /// Every impression's arithmetic, in file order.
    explanations: Vec<Explanation>,
    /// Impression lines in display order: matches by rank, then the rest.
    order: Vec<usize>,
    /// The selected impression (index into `order`), shown at the top.
    pub selected: usize,
    outcome: usize,
    /// The lines drawn, prepared after every change.
    lines: Vec<Line<'static>>,
    /// Counts the scans asked for: a result for an earlier cue or memory
    /// is not shown.
    generation: u64,
    /// A scan is under way; the next waits for it.
    scanning: bool,
}

/// One cue's scan, made away from the interface's thread.
#[derive(Debug, Default)]
pub struct Recalled {
    recall: Option<Recall>,
    explanations: Vec<Explanation>,
    order: Vec<usize>,
}

impl Recalled {
    /// Scan `project`'s impressions for `cue`, with every impression's
    /// arithmetic in display order. None without a project.
    pub fn scan(project: Option<&Project>, cue: &str) -> Recalled {
        // One pass: the explanations are kept from the ranking scan.
        let scanned = project
            .map(|p| dejavu::recall::recall_explained(p.impressions.as_ref(), js::js_trim(cue)));
        let (recall, explanations): (Option<Recall>, Vec<Explanation>) = match scanned {
            Some((r, kept)) => (Some(r), kept.iter().collect()),
            None => (None, Vec::new()),
        };
        let mut order: Vec<usize> = (0..explanations.len()).collect();
        membank_core::shared_sort::sort_by_key(&mut order, |&i| {
            explanations[i].rank.unwrap_or(usize::MAX)
        });
        Recalled {
            recall,
            explanations,
            order,
        }
    }
}

/// Impressions laid out below the selected one.
const SHOWN: usize = 60;

fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

fn num(x: f64) -> String {
    js::number_to_string(x)
}

impl RecallPane {
    /// Ask for the cue to be scanned again (the project changed, or the
    /// cue did): the generation of the scan to wait for.
    pub fn ask(&mut self) -> u64 {
        self.generation += 1;
        self.generation
    }

    /// The cue to scan and its generation, unless a scan is under way (its
    /// result comes back stale, and the latest is scanned then).
    pub fn start(&mut self) -> Option<(String, u64)> {
        if self.scanning {
            return None;
        }
        self.scanning = true;
        Some((self.cue.clone(), self.generation))
    }

    /// A scan is under way: what is shown is of an earlier cue or memory.
    pub fn is_scanning(&self) -> bool {
        self.scanning
    }

    /// A scan could not be started.
    pub fn not_started(&mut self) {
        self.scanning = false;
    }

    /// A scan's result: shown when it is of the latest cue and memory, and
    /// then true; false means the latest is still to be scanned.
    pub fn recalled(&mut self, generation: u64, recalled: Recalled, theme: &Theme) -> bool {
        self.scanning = false;
        if generation != self.generation {
            return false;
        }
        let Recalled {
            recall,
            explanations,
            order,
        } = recalled;
        self.recall = recall;
        // Tens of thousands of explanations at 50,000 impressions.
        drop_later(std::mem::replace(&mut self.explanations, explanations));
        drop_later(std::mem::replace(&mut self.order, order));
        self.selected = self.selected.min(self.order.len().saturating_sub(1));
        self.lay_out(theme);
        true
    }

    pub fn level(&self) -> Option<Level> {
        self.recall.as_ref().map(|r| r.level)
    }

    /// The records a host would load for the cue.
    pub fn would_load(&self) -> Vec<String> {
        self.recall
            .as_ref()
            .map_or_else(Vec::new, Recall::would_load)
    }

    fn lay_out(&mut self, theme: &Theme) {
        let mut lines = self.header(theme);
        lines.push(Line::raw(""));
        if let Some(r) = &self.recall {
            // More than a screen never shows; a huge impressions file
            // costs no more than this per key.
            for &i in self.order.iter().skip(self.selected).take(SHOWN) {
                lines.extend(impression_lines(r, &self.explanations[i], theme));
            }
        }
        if let Some(first) = lines.get_mut(4)
            && !self.order.is_empty()
        {
            let style = if self.typing {
                theme.selection_unfocused
            } else {
                theme.selection
            };
            *first = std::mem::take(first).style(style);
        }
        self.lines = lines;
    }

    /// Append a sanitized feedback line for the cue just tried.
    fn save_feedback(&self, cx: &mut Cx) {
        let Some(project) = crate::layouts::project(cx.memory) else {
            return;
        };
        let matched_id = match self
            .recall
            .as_ref()
            .and_then(|r| r.matches.first())
            .and_then(|m| m.id.as_ref())
        {
            Some(JsValue::String(id)) => Some(id.clone()),
            _ => None,
        };
        let today = cx.clock.today().to_string();
        let result = feedback::feedback_line(
            &self.cue,
            OUTCOMES[self.outcome],
            matched_id.as_deref(),
            None,
            &today,
        )
        .and_then(|line| {
            // A command-line run changing the project right now: give up
            // soon rather than freeze the interface.
            let wait = std::time::Duration::from_secs(2);
            let tx = Transaction::begin(&project.root, Kind::Project, wait, || {})?;
            feedback::append(&tx, &line)?;
            Ok((line, tx.finish()))
        });
        match result {
            Ok((line, journalled)) => {
                cx.effects
                    .push(Effect::Wrote(vec![dejavu::FEEDBACK_PATH.to_owned()]));
                let said = format!("appended to {}: {}", dejavu::FEEDBACK_PATH, safe(&line));
                // A journal that could not keep the change says so.
                match journalled {
                    Some(warning) => cx.warn(format!("{said} · warning: {}", safe(&warning))),
                    None => cx.info(said),
                }
            }
            Err(e) => cx.warn(format!("feedback not saved: {}", safe(&e))),
        }
    }

    fn cycle_outcome(&mut self, cx: &mut Cx) {
        self.outcome = (self.outcome + 1) % OUTCOMES.len();
        cx.info(format!("feedback outcome: {}", OUTCOMES[self.outcome]));
    }

    /// The selected impression's record, or the impression's own line.
    fn open_selected(&self, cx: &mut Cx) -> bool {
        let Some(r) = &self.recall else {
            return false;
        };
        let Some(e) = self
            .order
            .get(self.selected)
            .map(|&i| &self.explanations[i])
        else {
            return false;
        };
        let record =
            r.matches
                .iter()
                .find(|m| m.line == e.line)
                .and_then(|m| match &m.record_path {
                    Some(JsValue::String(p)) => cx.memory.find(p).map(|_| p.clone()),
                    _ => None,
                });
        cx.effects.push(match record {
            Some(rel) => Effect::open(rel),
            None => Effect::ShowArticle {
                rel: IMPRESSIONS_PATH.to_owned(),
                line: Some(e.line),
                banner: None,
            },
        });
        true
    }

    fn header(&self, theme: &Theme) -> Vec<Line<'static>> {
        let cursor = if self.typing { "▏" } else { "" };
        let mut lines = vec![Line::from(vec![
            Span::styled("cue › ", theme.muted),
            Span::styled(safe(&self.cue), theme.input),
            Span::styled(cursor, theme.muted),
        ])];
        let Some(r) = &self.recall else {
            lines.push(Line::styled("no Deja Vu project is open", theme.muted));
            return lines;
        };
        lines.push(Line::from(vec![
            Span::styled("cue tokens  ", theme.muted),
            Span::styled(safe(&r.cue_tokens.join(" ")), theme.text),
        ]));
        let level_style = match r.level {
            Level::Strong => theme.kept,
            Level::Weak => theme.warning,
            Level::None => theme.muted,
            Level::NotInitialized => theme.error,
        };
        let load = r.would_load();
        lines.push(Line::from(vec![
            Span::styled("level ", theme.muted),
            Span::styled(r.level.as_str().to_owned(), level_style),
            Span::styled("  score ", theme.muted),
            Span::styled(num(r.score), theme.score),
            Span::styled(
                format!("  {} of {} matched  loads ", r.matches.len(), r.scanned),
                theme.muted,
            ),
            Span::styled(
                if load.is_empty() {
                    "nothing".to_owned()
                } else {
                    safe(
                        &load
                            .iter()
                            .map(|p| route_for_display(p))
                            .collect::<Vec<_>>()
                            .join(", "),
                    )
                },
                theme.text,
            ),
        ]));
        lines
    }
}

fn impression_lines(r: &Recall, e: &Explanation, theme: &Theme) -> Vec<Line<'static>> {
    let id = if e.id.is_empty() { "(no id)" } else { &e.id };
    let rank = e.rank.map_or("  -".to_owned(), |r| format!("#{r:<2}"));
    let mut head = vec![
        Span::styled(format!("{rank} "), theme.muted),
        Span::styled(format!("L{:<3} ", e.line), theme.muted),
        Span::styled(safe(id), theme.title),
    ];
    let detail = match &e.considered {
        Considered::Invalid { error } => {
            head.push(Span::styled(
                format!("  invalid: {}", safe(error)),
                theme.error,
            ));
            return vec![Line::from(head)];
        }
        Considered::Inactive { status } => {
            head.push(Span::styled(
                format!("  skipped, status {}", safe(status)),
                theme.muted,
            ));
            return vec![Line::from(head)];
        }
        Considered::Scored => format!(
            "    {}/min({}, {}) = {} × (0.75 + {}{} × 0.25) = {}",
            e.matched.len(),
            r.cue_tokens.len(),
            e.tokens.len(),
            num(js::round4(e.overlap)),
            num(e.weight),
            if e.weight_defaulted { " default" } else { "" },
            num(e.score)
        ),
    };
    head.push(Span::styled(format!("  {}", num(e.score)), theme.score));
    if let Some(m) = r.matches.iter().find(|m| m.line == e.line)
        && let Some(JsValue::String(path)) = &m.record_path
    {
        head.push(Span::styled(
            format!("  → {}", safe(&route_for_display(path))),
            theme.link,
        ));
    }
    let mut tokens = vec![Span::styled("    ", theme.muted)];
    for t in &e.tokens {
        let style = if e.matched.contains(t) {
            theme.matched
        } else {
            theme.muted
        };
        tokens.push(Span::styled(safe(t), style));
        tokens.push(Span::raw(" "));
    }
    vec![
        Line::from(head),
        Line::from(Span::styled(detail, theme.text)),
        Line::from(tokens),
    ]
}

impl Component for RecallPane {
    fn scope(&self) -> Scope {
        Scope::Recall
    }

    fn title(&self) -> String {
        match self.level() {
            Some(level) if !self.cue.is_empty() => format!("Recall — {}", level.as_str()),
            _ => "Recall".to_owned(),
        }
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let (h, len) = (cx.height / 3, self.order.len());
        let last = len.saturating_sub(1);
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => self.selected = (self.selected + 1).min(last),
            Action::PageUp => self.selected = self.selected.saturating_sub(page(h) as usize),
            Action::PageDown => self.selected = (self.selected + page(h) as usize).min(last),
            Action::Top => self.selected = 0,
            Action::Bottom => self.selected = last,
            Action::Type | Action::EditField => self.typing = true,
            Action::Open => return self.open_selected(cx),
            Action::FeedbackOutcome => self.cycle_outcome(cx),
            Action::SaveFeedback => self.save_feedback(cx),
            _ => return false,
        }
        self.lay_out(cx.theme);
        true
    }

    fn is_typing(&self) -> bool {
        self.typing
    }

    fn on_typing_key(&mut self, key: KeyEvent, cx: &mut Cx) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let before = self.cue.clone();
        match key.code {
            KeyCode::Esc | KeyCode::Enter | KeyCode::Tab => self.typing = false,
            KeyCode::Char('o') if ctrl => self.cycle_outcome(cx),
            KeyCode::Char('f') if ctrl => self.save_feedback(cx),
            _ if line_input::edit(&mut self.cue, &key) => {}
            KeyCode::Down => {
                self.selected = (self.selected + 1).min(self.order.len().saturating_sub(1));
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            _ => return false,
        }
        if !matches!(key.code, KeyCode::Up | KeyCode::Down) {
            self.selected = 0;
        }
        // The cue as typed shows at once; its matches when scanned.
        self.lay_out(cx.theme);
        if self.cue != before {
            cx.effects.push(Effect::Recall);
        }
        true
    }

    fn on_paste(&mut self, text: &str, cx: &mut Cx) -> bool {
        self.cue.push_str(&safe(&text.replace(['\n', '\r'], " ")));
        self.typing = true;
        self.lay_out(cx.theme);
        cx.effects.push(Effect::Recall);
        true
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        if self.typing {
            return format!(
                "type a cue · Esc done · ^O outcome: {} · ^F save feedback · ^U clear",
                OUTCOMES[self.outcome]
            );
        }
        hint_text(
            keymap,
            &[
                (Action::Type, "cue"),
                (Action::Open, "open"),
                (Action::SaveFeedback, "feedback"),
            ],
        )
    }

    fn draw(&self, frame: &mut Frame, area: Rect, _focused: bool, _theme: &Theme) {
        // Wrapped: the records a cue loads and a match's route are what
        // the pane is for, so they are never cut at the border. A wrapped
        // row is indented under its record's details.
        let lines: Vec<Line> = self
            .lines
            .iter()
            .take(usize::from(area.height))
            .flat_map(|l| wrap_line(l, usize::from(area.width), leading_spaces(l).max(4)))
            .collect();
        frame.render_widget(Paragraph::new(lines), area);
    }
}
