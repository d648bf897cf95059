//! The Health pane: findings grouped by severity and code, with counts;
//! Enter jumps to the file and line.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use membank_core::health::{Finding, HealthReport, Severity};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::cursor::Cursor;
use super::{Component, Cx, hint_text, page};
use crate::tui::app::Effect;
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::theme::Theme;

/// The same words as the command line: errors, warnings, notes.
fn severity_label(severity: Severity, count: usize) -> String {
    crate::severity::count(severity, count)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    Severity,
    Code,
    /// Index into `findings`.
    Finding(usize),
}

#[derive(Debug, Clone)]
pub struct HealthRow {
    pub kind: RowKind,
    pub line: Line<'static>,
}

#[derive(Debug, Default)]
pub struct HealthPane {
    /// The report of the last refresh, shared with whoever else shows it.
    pub report: Arc<HealthReport>,
    pub rows: Vec<HealthRow>,
    pub cursor: Cursor,
    pub summary: String,
}

impl HealthPane {
    /// Group a new report, keeping the cursor near where it was. The checks
    /// are the core's and run once per refresh; this pane only formats them.
    pub fn refresh(&mut self, report: Arc<HealthReport>, theme: &Theme, height: usize) {
        self.report = report;
        let mut groups: BTreeMap<Severity, BTreeMap<&'static str, Vec<usize>>> = BTreeMap::new();
        for (i, f) in self.report.findings.iter().enumerate() {
            groups
                .entry(f.severity)
                .or_default()
                .entry(f.code)
                .or_default()
                .push(i);
        }
        let mut rows = Vec::new();
        for (sev, codes) in &groups {
            let total: usize = codes.values().map(Vec::len).sum();
            let style = match sev {
                Severity::Error => theme.error,
                Severity::Warning => theme.warning,
                Severity::Info => theme.info,
            };
            rows.push(HealthRow {
                kind: RowKind::Severity,
                line: Line::styled(severity_label(*sev, total), style),
            });
            for (code, items) in codes {
                rows.push(HealthRow {
                    kind: RowKind::Code,
                    line: Line::from(vec![
                        Span::raw("  "),
                        Span::styled(sanitize_for_terminal(code, false), style),
                        Span::styled(format!(" ({})", items.len()), theme.muted),
                    ]),
                });
                for &i in items {
                    let f = &self.report.findings[i];
                    let at = f.location();
                    rows.push(HealthRow {
                        kind: RowKind::Finding(i),
                        line: Line::from(vec![
                            Span::raw("    "),
                            Span::styled(sanitize_for_terminal(&at, false), theme.link),
                            Span::raw("  "),
                            Span::styled(sanitize_for_terminal(&f.message, false), theme.text),
                        ]),
                    });
                }
            }
        }
        self.summary = if self.report.findings.is_empty() {
            "no findings".to_owned()
        } else {
            groups
                .iter()
                .map(|(s, c)| severity_label(*s, c.values().map(Vec::len).sum::<usize>()))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        self.rows = rows;
        self.cursor.clamp(self.rows.len(), height);
    }

    /// Files that have at least one finding, for the tree's markers.
    pub fn flagged(&self) -> HashSet<String> {
        self.report
            .findings
            .iter()
            .filter(|f| !f.path.is_empty())
            .map(|f| f.path.clone())
            .collect()
    }

    /// The selected finding; on a group row, the group's first finding.
    pub fn selected_finding(&self) -> Option<&Finding> {
        self.rows[self.cursor.selected.min(self.rows.len())..]
            .iter()
            .find_map(|r| match r.kind {
                RowKind::Finding(i) => self.report.findings.get(i),
                _ => None,
            })
    }
}

/// Lines under the list that show the selected finding in full, since a
/// message rarely fits on its row; none when the pane is very short.
pub fn detail_height(pane_height: u16) -> u16 {
    match pane_height {
        0..12 => 0,
        12..18 => 4,
        _ => 7,
    }
}

pub fn draw(frame: &mut Frame, area: Rect, pane: &HealthPane, focused: bool, theme: &Theme) {
    let detail = detail_height(area.height);
    let [area, detail_area] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(detail)]).areas(area);
    if detail > 0
        && let Some(f) = pane.selected_finding()
    {
        let text = vec![
            Line::styled("─".repeat(usize::from(detail_area.width)), theme.muted),
            Line::from(vec![
                Span::styled(sanitize_for_terminal(f.code, false), theme.muted),
                Span::raw("  "),
                Span::styled(sanitize_for_terminal(&f.location(), false), theme.link),
            ]),
            Line::styled(sanitize_for_terminal(&f.message, false), theme.text),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), detail_area);
    }
    let height = usize::from(area.height);
    let mut lines = Vec::with_capacity(height);
    if pane.rows.is_empty() {
        lines.push(Line::styled("No findings.", theme.muted));
    }
    let selection = if focused {
        theme.selection
    } else {
        theme.selection_unfocused
    };
    lines.extend(
        pane.rows
            .iter()
            .enumerate()
            .skip(pane.cursor.offset)
            .take(height)
            .map(|(i, r)| {
                if i == pane.cursor.selected {
                    super::highlight_row(r.line.clone(), area.width, selection)
                } else {
                    r.line.clone()
                }
            }),
    );
    frame.render_widget(Paragraph::new(lines), area);
}

impl Component for HealthPane {
    fn scope(&self) -> Scope {
        Scope::Health
    }

    fn title(&self) -> String {
        format!("Health — {}", self.summary)
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let h = cx.height;
        let len = self.rows.len();
        let c = &mut self.cursor;
        match action {
            Action::Up => c.move_by(-1, len, h),
            Action::Down => c.move_by(1, len, h),
            Action::PageUp => c.move_by(-page(h), len, h),
            Action::PageDown => c.move_by(page(h), len, h),
            Action::Top => c.to_top(),
            Action::Bottom => c.to_bottom(len, h),
            Action::Rerun => cx.effects.push(Effect::RerunHealth),
            Action::Open => {
                let Some(f) = self.selected_finding() else {
                    return false;
                };
                if f.path.is_empty() {
                    // About the bank as a whole: nothing to open.
                    let text = format!("{}: {}", f.code, f.message);
                    cx.info(sanitize_for_terminal(&text, false));
                    return true;
                }
                let banner = format!("{} at {}: {}", f.code, f.location(), f.message);
                cx.effects.push(Effect::ShowArticle {
                    rel: f.path.clone(),
                    line: f.line,
                    banner: Some(sanitize_for_terminal(&banner, false)),
                });
            }
            Action::Edit => {
                let Some(f) = self.selected_finding().filter(|f| !f.path.is_empty()) else {
                    return false;
                };
                let (rel, line) = (f.path.clone(), f.line);
                return cx.edit(Some(rel), line);
            }
            Action::CopyPath => {
                let rel = self.selected_finding().map(|f| f.path.clone());
                return cx.copy_path(rel);
            }
            Action::CopyLink => {
                let rel = self.selected_finding().map(|f| f.path.clone());
                return cx.copy_link(rel);
            }
            _ => return false,
        }
        true
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        hint_text(keymap, &[(Action::Open, "jump"), (Action::Rerun, "re-run")])
    }

    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        draw(frame, area, self, focused, theme);
    }
}
