//! The health report: findings grouped by severity and code, with counts;
//! Enter jumps to the file and line.

use std::collections::{BTreeMap, HashSet};

use membank_core::article::FrontmatterState;
use membank_core::bank::{Bank, Resolution};
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::cursor::Cursor;
use crate::tui::theme::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    fn label(self, count: usize) -> String {
        let word = match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "note",
        };
        if count == 1 {
            format!("1 {word}")
        } else {
            format!("{count} {word}s")
        }
    }
}

/// One finding as the pane shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub code: String,
    pub severity: Severity,
    pub path: String,
    pub line: Option<usize>,
    pub message: String,
}

/// The bank's findings.
pub fn collect(bank: &Bank) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in &bank.problems {
        out.push(Finding {
            code: "unreadable".into(),
            severity: Severity::Error,
            path: p.path.clone(),
            line: p.line,
            message: p.message.clone(),
        });
    }
    for (id, a) in bank.articles().iter().enumerate() {
        if a.folder.is_content() {
            match &a.frontmatter {
                FrontmatterState::Missing => out.push(Finding {
                    code: "frontmatter-missing".into(),
                    severity: Severity::Error,
                    path: a.rel_path.clone(),
                    line: Some(1),
                    message: "content article without frontmatter".into(),
                }),
                FrontmatterState::Unclosed => out.push(Finding {
                    code: "frontmatter-unclosed".into(),
                    severity: Severity::Error,
                    path: a.rel_path.clone(),
                    line: Some(1 + a.encoding.line_shift),
                    message: "the opening --- is never closed".into(),
                }),
                FrontmatterState::Invalid(e) => out.push(Finding {
                    code: "frontmatter-yaml".into(),
                    severity: Severity::Error,
                    path: a.rel_path.clone(),
                    line: e.line,
                    message: e.message.clone(),
                }),
                FrontmatterState::Parsed(_) => {}
            }
        }
        for (link, res) in bank.outgoing(id) {
            if *res == Resolution::Dead {
                out.push(Finding {
                    code: "dead-link".into(),
                    severity: Severity::Warning,
                    path: a.rel_path.clone(),
                    line: Some(link.line),
                    message: format!("[[{}]] does not resolve", link.target),
                });
            }
        }
    }
    out
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
    pub findings: Vec<Finding>,
    pub rows: Vec<HealthRow>,
    pub cursor: Cursor,
    pub summary: String,
}

impl HealthPane {
    /// Re-run the checks and regroup, keeping the cursor near where it was.
    pub fn refresh(&mut self, bank: &Bank, theme: &Theme, height: usize) {
        self.findings = collect(bank);
        let mut groups: BTreeMap<Severity, BTreeMap<String, Vec<usize>>> = BTreeMap::new();
        for (i, f) in self.findings.iter().enumerate() {
            groups
                .entry(f.severity)
                .or_default()
                .entry(f.code.clone())
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
                line: Line::styled(sev.label(total), style),
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
                    let f = &self.findings[i];
                    let at = match f.line {
                        Some(l) => format!("{}:{l}", f.path),
                        None => f.path.clone(),
                    };
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
        self.summary = if self.findings.is_empty() {
            "no findings".to_owned()
        } else {
            groups
                .iter()
                .map(|(s, c)| s.label(c.values().map(Vec::len).sum::<usize>()))
                .collect::<Vec<_>>()
                .join(" · ")
        };
        self.rows = rows;
        self.cursor.clamp(self.rows.len(), height);
    }

    /// Files that have at least one finding, for the tree's markers.
    pub fn flagged(&self) -> HashSet<String> {
        self.findings.iter().map(|f| f.path.clone()).collect()
    }

    /// The selected finding; on a group row, the group's first finding.
    pub fn selected_finding(&self) -> Option<&Finding> {
        self.rows[self.cursor.selected.min(self.rows.len())..]
            .iter()
            .find_map(|r| match r.kind {
                RowKind::Finding(i) => self.findings.get(i),
                _ => None,
            })
    }
}

pub fn draw(frame: &mut Frame, area: Rect, pane: &HealthPane, focused: bool, theme: &Theme) {
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
