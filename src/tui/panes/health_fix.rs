//! Fixing what the health check found, from the Health pane: the fixes the
//! core proposes for the chosen findings are shown as agent writes are
//! (per file: new, changed, moved or deleted, with its diff), each accepted
//! or declined; Enter writes the accepted ones in one transaction, and the
//! findings no fix answers are listed with why.

use std::path::Path;

use membank_core::bank::Bank;
use membank_core::fix::{FileFix, FixProposal};
use membank_core::health::Finding;
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::{Kind, Stopped, Transaction};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::cursor::Cursor;
use super::{highlight_row, hint_text};
use crate::tui::keys::{Action, KeyMap};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_line;
use crate::tui::widgets::line_input;

/// One file's fixes, as shown.
#[derive(Debug, Clone)]
pub struct FixRow {
    pub fix: FileFix,
    pub accepted: bool,
    /// What the fixes do, then the diff; sanitised.
    pub detail: Vec<String>,
}

/// The review of a fix proposal, open over the Health pane's list.
#[derive(Debug, Clone)]
pub struct FixReview {
    pub rows: Vec<FixRow>,
    /// The findings left, each with why (sanitised).
    pub remaining: Vec<String>,
    pub cursor: Cursor,
    pub detail_scroll: usize,
    /// What writing did, once it ran (sanitised).
    pub result: Option<Vec<String>>,
    /// Whether that run wrote anything: a result of declines or of a
    /// refused write is not headed as fixed.
    pub wrote: bool,
    /// Missing keys whose value the file does not give: the user types
    /// them, one at a time (never a placeholder).
    pub asks: Vec<Ask>,
    /// The value typed for the first ask, while typing.
    pub typing: Option<String>,
    /// Why the last typed value was not taken (sanitised).
    pub refused: Option<String>,
    /// Which memory's rules the fixes are written by.
    pub kind: Kind,
}

/// A missing key only the user can give a value for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask {
    pub path: String,
    pub key: &'static str,
    /// Its line in `remaining`, dropped once a value is given.
    shown: String,
}

/// What a key did to the review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Still open.
    Open,
    /// Closed without writing anything more.
    Closed,
    /// Enter ran: the result is shown; these paths changed on disk.
    Applied(Vec<String>),
}

impl FixReview {
    /// Every proposed fix starts accepted: nothing is written before Enter.
    /// `kind` is the memory the fixes are written to; `bank` is the bank
    /// whose missing keys may be typed (nothing is asked without one).
    pub fn new(
        proposal: FixProposal,
        chosen: &[Finding],
        kind: Kind,
        bank: Option<&Bank>,
    ) -> FixReview {
        let rows = proposal
            .fixes
            .into_iter()
            .map(|fix| {
                let mut detail: Vec<String> = fix
                    .notes
                    .iter()
                    .map(|n| format!("· {}", sanitize_for_terminal(n, false)))
                    .collect();
                if let Some(diff) = fix.diff() {
                    detail.extend(
                        sanitize_for_terminal(&diff, true)
                            .lines()
                            .map(str::to_owned),
                    );
                }
                FixRow {
                    fix,
                    accepted: true,
                    detail,
                }
            })
            .collect();
        let mut asks = Vec::new();
        let remaining = proposal
            .remaining
            .iter()
            .map(|u| {
                let at = match u.line {
                    Some(l) => format!("{}:{l}", u.path),
                    None => u.path.clone(),
                };
                let reason = reason_here(u.code, &u.reason);
                let shown = sanitize_for_terminal(&format!("{}  {at} — {reason}", u.code), false);
                let key = chosen
                    .iter()
                    .find(|f| f.code() == u.code && *f.path == *u.path && f.line() == u.line)
                    .and_then(Finding::missing_key);
                // A file that takes no typed value (say, saved as UTF-16)
                // is not asked: every value would be refused and `i` would
                // never reach the files after it. It stays listed here,
                // with why no fix answers it.
                let takes = |bank| membank_core::fix::takes_typed_value(bank, &u.path).is_ok();
                if let Some(key) = key.filter(|_| bank.is_some_and(takes)) {
                    asks.push(Ask {
                        path: u.path.clone(),
                        key,
                        shown: shown.clone(),
                    });
                }
                shown
            })
            .collect();
        FixReview {
            rows,
            remaining,
            cursor: Cursor::default(),
            detail_scroll: 0,
            result: None,
            wrote: false,
            asks,
            typing: None,
            refused: None,
            kind,
        }
    }

    /// A key while a value is typed (only a bank's missing keys are asked).
    fn type_key(&mut self, key: KeyEvent, bank: Option<&Bank>) {
        let Some(text) = &mut self.typing else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.typing = None,
            _ if line_input::edit(text, &key) => {}
            KeyCode::Enter => {
                let Some(ask) = self.asks.first() else {
                    self.typing = None;
                    return;
                };
                let given = match bank {
                    Some(bank) => membank_core::fix::given_value(bank, &ask.path, ask.key, text),
                    None => Err("values are typed for a memory bank's keys only".to_owned()),
                };
                match given {
                    Ok(fix) => {
                        let ask = self.asks.remove(0);
                        self.remaining.retain(|l| *l != ask.shown);
                        // A file with other fixes gets its own row for
                        // this one: each row is one reviewed change.
                        let mut review = FixReview::new(
                            FixProposal {
                                fixes: vec![fix],
                                remaining: Vec::new(),
                            },
                            &[],
                            self.kind,
                            None,
                        );
                        self.rows.append(&mut review.rows);
                        self.typing = None;
                        self.refused = None;
                    }
                    Err(why) => self.refused = Some(sanitize_for_terminal(&why, false)),
                }
            }
            _ => {}
        }
    }

    pub fn accepted(&self) -> usize {
        self.rows.iter().filter(|r| r.accepted).count()
    }

    /// A key while a value is typed.
    pub fn typing_key(&mut self, key: KeyEvent, bank: Option<&Bank>) -> Outcome {
        self.type_key(key, bank);
        Outcome::Open
    }

    /// An action from the key map while the review is open, on the memory
    /// at `root`. `list_height` is the rows the file list has on screen.
    /// `None`: not an action of the review.
    pub fn on_action(
        &mut self,
        action: Action,
        root: &Path,
        list_height: usize,
    ) -> Option<Outcome> {
        if self.result.is_some() {
            // What writing did stays until it is read and closed.
            return match action {
                Action::Apply | Action::CloseView => Some(Outcome::Closed),
                _ => None,
            };
        }
        let len = self.rows.len();
        match action {
            Action::CloseView => return Some(Outcome::Closed),
            Action::Up => self.move_by(-1, list_height),
            Action::Down => self.move_by(1, list_height),
            Action::ScrollDiffDown => self.scroll_detail(10),
            Action::ScrollDiffUp => self.scroll_detail(-10),
            Action::ToggleBlock => {
                if let Some(r) = self.rows.get_mut(self.cursor.selected) {
                    r.accepted = !r.accepted;
                }
            }
            Action::AcceptAll => self.rows.iter_mut().for_each(|r| r.accepted = true),
            Action::DeclineAll => self.rows.iter_mut().for_each(|r| r.accepted = false),
            Action::TypeValue if !self.asks.is_empty() => {
                self.typing = Some(String::new());
                self.refused = None;
            }
            Action::Apply if len == 0 => return Some(Outcome::Closed),
            Action::Apply => return Some(Outcome::Applied(self.apply(root))),
            _ => return None,
        }
        Some(Outcome::Open)
    }

    /// The key hints of the review as it stands.
    pub fn hints(&self, keymap: &KeyMap) -> String {
        if self.typing.is_some() {
            return "type the value · Enter adds it to the review · Esc cancels".to_owned();
        }
        if self.result.is_some() {
            return hint_text(keymap, &[(Action::Apply, "close")]);
        }
        if self.rows.is_empty() && self.asks.is_empty() {
            // Only what no fix answers is listed: nothing to write.
            return hint_text(keymap, &[(Action::CloseView, "close")]);
        }
        if self.rows.is_empty() && !self.asks.is_empty() {
            // Nothing to write until a value is typed.
            return hint_text(
                keymap,
                &[
                    (Action::TypeValue, "type a value"),
                    (Action::CloseView, "close"),
                ],
            );
        }
        let mut pick = vec![
            (Action::Apply, "write"),
            (Action::CloseView, "close"),
            (Action::ToggleBlock, "accept/decline"),
            (Action::ScrollDiffDown, "diff"),
        ];
        if !self.asks.is_empty() {
            pick.push((Action::TypeValue, "type a value"));
        }
        hint_text(keymap, &pick)
    }

    fn move_by(&mut self, delta: isize, list_height: usize) {
        self.cursor.move_by(delta, self.rows.len(), list_height);
        self.detail_scroll = 0;
    }

    fn scroll_detail(&mut self, delta: isize) {
        let len = self
            .rows
            .get(self.cursor.selected)
            .map_or(0, |r| r.detail.len());
        self.detail_scroll = self
            .detail_scroll
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
    }

    /// Write the accepted fixes in one transaction and keep what happened
    /// in `result`; the paths that changed on disk.
    fn apply(&mut self, root: &Path) -> Vec<String> {
        let s = |t: &str| sanitize_for_terminal(t, false);
        let accepted: Vec<FileFix> = self
            .rows
            .iter()
            .filter(|r| r.accepted)
            .map(|r| r.fix.clone())
            .collect();
        let mut lines = Vec::new();
        let mut changed = Vec::new();
        if accepted.is_empty() {
            lines.push("nothing written: every fix was declined".to_owned());
        } else {
            let written =
                Transaction::begin(root, self.kind, std::time::Duration::from_secs(2), || {})
                    .and_then(|tx| {
                        let done = tx.commit_fixes(&accepted).map_err(|e| match e {
                            // The file was edited since its diff was shown:
                            // its edit is kept; proposing again shows a new
                            // diff (by the key that opened this review: `x`
                            // has no fix for what `v` or `+` proposes).
                            Stopped::Stale(paths) => format!(
                                "{} changed on disk since the fix was shown; nothing was \
                                 written (propose it again to review the file as it is now)",
                                paths.join(", ")
                            ),
                            Stopped::Refused(why) => why,
                        })?;
                        Ok((done, tx.finish()))
                    });
            match written {
                Ok((done, journalled)) => {
                    self.wrote = true;
                    for c in &done.changes {
                        changed.push(c.path.clone());
                    }
                    changed.extend(done.report.iter().cloned());
                    // Said as the preview said it: a file deleted or a
                    // folder made was not "written".
                    for r in self.rows.iter().filter(|r| r.accepted) {
                        lines.push(s(&format!("{:<10} {}", r.fix.kind(), r.fix.path)));
                    }
                    lines.extend(journalled.map(|w| s(&format!("warning: {w}"))));
                }
                Err(why) => lines.push(s(&why)),
            }
        }
        lines.extend(
            self.rows
                .iter()
                .filter(|r| !r.accepted)
                .map(|r| s(&format!("{:<9}  {}", "declined", r.fix.path))),
        );
        self.result = Some(lines);
        changed
    }
}

/// Why a finding is left, as said in this pane: where a key here fixes
/// it, the key (the core's reason names the command line's switch).
fn reason_here<'a>(code: &str, reason: &'a str) -> &'a str {
    match code {
        "stale" => {
            "only a reader can say whether it is still right: once checked, v on the \
             finding marks it checked today"
        }
        "term-conflict" => {
            "choosing the translation is the author's decision: x on the finding of the \
             article whose translation is kept rejects the others"
        }
        _ => reason,
    }
}

/// Rows for the file list.
pub fn list_height(review: &FixReview, area_height: u16) -> usize {
    let max = usize::from(area_height / 2).max(3);
    review.rows.len().clamp(1, max)
}

pub fn draw(frame: &mut Frame, area: Rect, review: &FixReview, focused: bool, theme: &Theme) {
    if let Some(result) = &review.result {
        let heading = if review.wrote { "Fixed:" } else { "Not fixed:" };
        let mut lines = vec![Line::styled(heading, theme.title)];
        lines.extend(result.iter().map(|l| Line::raw(format!("  {l}"))));
        lines.push(Line::styled(
            "The checks run again once this result is closed.",
            theme.muted,
        ));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
        return;
    }
    let list_h = list_height(review, area.height);
    let [head, list, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(list_h as u16),
        Constraint::Fill(1),
    ])
    .areas(area);
    let summary = Line::styled(
        format!(
            "{} to fix, {} accepted",
            match review.rows.len() {
                1 => "1 file".to_owned(),
                n => format!("{n} files"),
            },
            review.accepted()
        ),
        theme.muted,
    );
    frame.render_widget(
        Paragraph::new(cut_line(summary, usize::from(head.width))),
        head,
    );
    let mut lines: Vec<Line> = Vec::new();
    if review.rows.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "No automatic fix for these findings.",
                theme.muted,
            )),
            list,
        );
    } else {
        let selection = if focused {
            theme.selection
        } else {
            theme.selection_unfocused
        };
        let selected = review.cursor.selected;
        let offset = review
            .cursor
            .offset
            .min(selected)
            .max((selected + 1).saturating_sub(list_h));
        let rows: Vec<Line> = review
            .rows
            .iter()
            .enumerate()
            .skip(offset)
            .take(list_h)
            .map(|(i, r)| {
                let style = match r.fix.kind() {
                    "new" | "new folder" => theme.info,
                    "deleted" => theme.error,
                    _ => theme.warning,
                };
                let line = Line::from(vec![
                    Span::raw(if r.accepted { "[x] " } else { "[ ] " }),
                    Span::styled(format!("{:<10} ", r.fix.kind()), style),
                    Span::styled(sanitize_for_terminal(&r.fix.path, false), theme.text),
                    Span::styled(format!("  {}", r.fix.codes.join(", ")), theme.muted),
                ]);
                let line = cut_line(line, usize::from(list.width));
                if i == selected {
                    highlight_row(line, list.width, selection)
                } else {
                    line
                }
            })
            .collect();
        frame.render_widget(Paragraph::new(rows), list);
        if let Some(row) = review.rows.get(selected) {
            lines.extend(row.detail.iter().skip(review.detail_scroll).map(|l| {
                let style = if l.starts_with("+++") || l.starts_with("---") {
                    theme.muted
                } else if l.starts_with('+') {
                    theme.info
                } else if l.starts_with('-') {
                    theme.error
                } else if l.starts_with("@@") {
                    theme.muted
                } else {
                    theme.text
                };
                Line::styled(l.clone(), style)
            }));
        }
    }
    if let Some(ask) = review.asks.first() {
        let path = sanitize_for_terminal(&ask.path, false);
        match &review.typing {
            Some(text) => {
                lines.insert(
                    0,
                    Line::from(vec![
                        Span::styled(format!("{} for {path}: ", ask.key), theme.hint_key),
                        Span::styled(
                            format!("{}▏", sanitize_for_terminal(text, false)),
                            theme.input,
                        ),
                        Span::styled("  Enter adds it · Esc cancels", theme.muted),
                    ]),
                );
                if let Some(why) = &review.refused {
                    lines.insert(1, Line::styled(why.clone(), theme.error));
                }
            }
            None => lines.push(Line::styled(
                format!(
                    "i types the {} of {path} ({} value{} to give)",
                    ask.key,
                    review.asks.len(),
                    if review.asks.len() == 1 { "" } else { "s" }
                ),
                theme.hint_key,
            )),
        }
    }
    if !review.remaining.is_empty() {
        lines.push(Line::styled(
            format!("{} left without an automatic fix:", review.remaining.len()),
            theme.warning,
        ));
        lines.extend(
            review
                .remaining
                .iter()
                .map(|l| Line::styled(format!("  {l}"), theme.muted)),
        );
    }
    let lines: Vec<Line> = lines.into_iter().take(usize::from(detail.height)).collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail);
}
