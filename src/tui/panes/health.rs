//! The Health pane: findings grouped by severity and code, with counts,
//! and a file's several findings of one code under the file; groups fold, a filter narrows by code or path, and Enter jumps to the
//! file and line.

use crate::tui::drop_later::drop_later;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use membank_core::fix::{FixProposal, Unfixed};
use membank_core::health::{Finding, HealthReport, Severity};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::Kind;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::cursor::Cursor;
use super::health_fix::{self, FixReview, Outcome};
use super::qa::QaOutcome;
use super::{Component, Cx, hint_text, page};
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::{cut_lines, cut_start};
use crate::tui::widgets::line_input;
use unicode_width::UnicodeWidthStr;

/// The same words as the command line: errors, warnings, notes.
fn severity_label(severity: Severity, count: usize) -> String {
    crate::severity::count(severity, count)
}

/// What a row shows, read from its [`HealthRow`] and the report; it names
/// the same row in the report that replaces this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    Severity(Severity),
    Code(Severity, &'static str),
    /// Index into `findings`.
    Finding(usize),
    /// A file with several findings of one code, listed under it: the
    /// index of its first.
    File(usize),
}

/// A group that can be folded: a whole severity, or one code in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Group {
    Severity(Severity),
    Code(Severity, &'static str),
}

/// One row, in 12 bytes: a large bank has a hundred thousand findings
/// and a row each, so a row holds indices into the report and counts, and
/// its text is made only when it is drawn ([`HealthPane::row_line`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HealthRow {
    /// A severity's group and how many findings it holds.
    Severity { severity: Severity, count: u32 },
    /// A code's group, named by its first finding, and how many it holds.
    Code { first: u32, count: u32 },
    /// A finding; `under_file` when listed under its file's row, which
    /// names the file.
    Finding { index: u32, under_file: bool },
    /// A file with several findings of one code, listed under it: the
    /// index of its first, and how many.
    File { first: u32, count: u32 },
}

impl HealthRow {
    /// What the row shows, from `findings`, the report it was laid out from.
    pub fn kind(&self, findings: &[Finding]) -> Option<RowKind> {
        Some(match *self {
            HealthRow::Severity { severity, .. } => RowKind::Severity(severity),
            HealthRow::Code { first, .. } => {
                let f = findings.get(first as usize)?;
                RowKind::Code(f.severity, f.code())
            }
            HealthRow::Finding { index, .. } => RowKind::Finding(index as usize),
            HealthRow::File { first, .. } => RowKind::File(first as usize),
        })
    }

    fn is_group(&self) -> bool {
        matches!(self, HealthRow::Severity { .. } | HealthRow::Code { .. })
    }
}

/// An index or a count in a row. A report never holds four billion
/// findings; were it to, the row would point past the end and show
/// nothing rather than another finding.
fn packed(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[derive(Debug, Default)]
pub struct HealthPane {
    /// The report of the last refresh, shared with whoever else shows it.
    pub report: Arc<HealthReport>,
    pub rows: Vec<HealthRow>,
    pub cursor: Cursor,
    pub summary: String,
    /// Folded groups, kept across refreshes.
    pub folded: HashSet<Group>,
    /// Only findings whose code or path contains this (case-insensitive).
    pub filter: String,
    /// Keys type into the filter.
    pub filtering: bool,
    /// The report's findings grouped without a filter.
    grouped: Option<Grouping>,
    /// The fixes proposed for the chosen findings, under review.
    pub fix: Option<FixReview>,
    /// A translated file's terminology check, shown instead of the checks.
    pub qa: Option<super::qa::QaView>,
}

/// Indexes of a report's findings by severity and code.
#[derive(Debug, Default)]
pub struct Grouping(BTreeMap<Severity, BTreeMap<&'static str, Vec<usize>>>);

/// Group `report`'s findings whose code or path contains `filter`
/// (case-insensitive; empty keeps all).
pub fn group_findings(report: &HealthReport, filter: &str) -> Grouping {
    let needle = filter.to_lowercase();
    let mut groups: BTreeMap<Severity, BTreeMap<&'static str, Vec<usize>>> = BTreeMap::new();
    for (i, f) in report.findings.iter().enumerate() {
        if !matches_filter(f, &needle) {
            continue;
        }
        groups
            .entry(f.severity)
            .or_default()
            .entry(f.code())
            .or_default()
            .push(i);
    }
    Grouping(groups)
}

fn matches_filter(f: &Finding, needle: &str) -> bool {
    needle.is_empty()
        || f.code().to_lowercase().contains(needle)
        || f.path.to_lowercase().contains(needle)
}

/// What the Health pane's rows depend on besides the report: its folds
/// and its filter. Taken when a read begins, so the thread that reads can
/// lay out the rows of the new report.
#[derive(Debug, Clone)]
pub struct HealthView {
    pub folded: HashSet<Group>,
    pub filter: String,
}

/// A report's rows laid out for a [`HealthView`], away from the
/// interface's thread (a large bank has a hundred thousand findings, and a
/// row each): showing them is a move.
#[derive(Debug)]
pub struct HealthLayout {
    view: HealthView,
    /// The report's findings grouped without a filter.
    unfiltered: Grouping,
    rows: Vec<HealthRow>,
    summary: String,
}

impl HealthLayout {
    /// Lay out `report`, whose findings `unfiltered` groups (by
    /// [`group_findings`] with no filter), as `view` shows it.
    pub fn of(report: &HealthReport, unfiltered: Grouping, view: HealthView) -> HealthLayout {
        let filtered = (!view.filter.is_empty()).then(|| group_findings(report, &view.filter));
        let (rows, summary) = lay_out(
            report,
            filtered.as_ref().unwrap_or(&unfiltered),
            &view.folded,
            &view.filter,
        );
        HealthLayout {
            view,
            unfiltered,
            rows,
            summary,
        }
    }

    /// The rows laid out.
    pub fn rows(&self) -> &[HealthRow] {
        &self.rows
    }
}

/// The rows of `groups` (a report's findings grouped, filtered by `filter`
/// when it is not empty) with `folded` groups folded, and the pane's
/// summary.
fn lay_out(
    report: &HealthReport,
    groups: &Grouping,
    folded: &HashSet<Group>,
    filter: &str,
) -> (Vec<HealthRow>, String) {
    let groups = &groups.0;
    let mut rows = Vec::new();
    for (sev, codes) in groups {
        let total: usize = codes.values().map(Vec::len).sum();
        rows.push(HealthRow::Severity {
            severity: *sev,
            count: packed(total),
        });
        if folded.contains(&Group::Severity(*sev)) {
            continue;
        }
        for (code, items) in codes {
            // A group holds at least one finding: it is made by the first.
            let Some(&first) = items.first() else {
                continue;
            };
            rows.push(HealthRow::Code {
                first: packed(first),
                count: packed(items.len()),
            });
            if folded.contains(&Group::Code(*sev, code)) {
                continue;
            }
            push_findings(&report.findings, items, &mut rows);
        }
    }
    let shown: usize = groups.values().flat_map(|c| c.values()).map(Vec::len).sum();
    let summary = if report.findings.is_empty() {
        "no findings".to_owned()
    } else if !filter.is_empty() {
        format!(
            "{shown} of {} {} “{}”",
            report.findings.len(),
            if shown == 1 { "matches" } else { "match" },
            sanitize_for_terminal(filter, false)
        )
    } else {
        groups
            .iter()
            .map(|(s, c)| severity_label(*s, c.values().map(Vec::len).sum::<usize>()))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    // Grown by doubling, it would keep up to half again as much spare.
    rows.shrink_to_fit();
    (rows, summary)
}

/// The rows of one code's findings: one each, except that a file with
/// several gets a row of its own with them under it (two rows naming
/// the same file were noise). The report is in path order, so a file's
/// findings of one code are next to each other.
fn push_findings(findings: &[Finding], items: &[usize], rows: &mut Vec<HealthRow>) {
    let mut at = 0;
    while at < items.len() {
        let path = &findings[items[at]].path;
        let run = items[at..]
            .iter()
            .take_while(|&&i| findings[i].path == *path)
            .count();
        let under_file = run > 1 && !path.is_empty();
        if under_file {
            rows.push(HealthRow::File {
                first: packed(items[at]),
                count: packed(run),
            });
        }
        rows.extend(items[at..at + run].iter().map(|&i| HealthRow::Finding {
            index: packed(i),
            under_file,
        }));
        at += run;
    }
}

impl HealthPane {
    /// Group a new report, keeping the cursor near where it was. The checks
    /// are the core's and run once per refresh; this pane only formats them.
    pub fn refresh(&mut self, report: Arc<HealthReport>, height: usize) {
        self.refresh_laid_out(report, None, height);
    }

    /// What the rows depend on besides the report, for [`HealthLayout::of`].
    pub fn view(&self) -> HealthView {
        HealthView {
            folded: self.folded.clone(),
            filter: self.filter.clone(),
        }
    }

    /// What row `i` shows.
    pub fn row_kind(&self, i: usize) -> Option<RowKind> {
        self.rows.get(i)?.kind(&self.report.findings)
    }

    /// Row `i` as drawn, `width` columns wide.
    pub fn row_line(&self, i: usize, theme: &Theme, width: usize) -> Line<'static> {
        let findings = &self.report.findings;
        let muted = theme.muted;
        let severity_style = |sev| match sev {
            Severity::Error => theme.error,
            Severity::Warning => theme.warning,
            Severity::Info => theme.info,
        };
        match self.rows.get(i) {
            Some(&HealthRow::Severity { severity, count }) => Line::from(vec![
                Span::styled(
                    fold_mark(self.folded.contains(&Group::Severity(severity))),
                    muted,
                ),
                Span::styled(
                    severity_label(severity, count as usize),
                    severity_style(severity),
                ),
            ]),
            Some(&HealthRow::Code { first, count }) => {
                let Some(f) = findings.get(first as usize) else {
                    return Line::default();
                };
                let folded = self.folded.contains(&Group::Code(f.severity, f.code()));
                Line::from(vec![
                    Span::raw("  "),
                    Span::styled(fold_mark(folded), muted),
                    Span::styled(
                        sanitize_for_terminal(f.code(), false),
                        severity_style(f.severity),
                    ),
                    Span::styled(format!(" ({count})"), muted),
                ])
            }
            Some(&HealthRow::File { first, count }) => {
                let Some(f) = findings.get(first as usize) else {
                    return Line::default();
                };
                Line::from(vec![
                    Span::raw("      "),
                    Span::styled(sanitize_for_terminal(&f.path, false), theme.link),
                    Span::styled(format!(" ({count})"), muted),
                ])
            }
            Some(&HealthRow::Finding { index, under_file }) => match findings.get(index as usize) {
                Some(f) => finding_line(f, under_file, theme, width),
                None => Line::default(),
            },
            None => Line::default(),
        }
    }

    /// [`HealthPane::refresh`] with the report's rows already laid out
    /// where it was checked. They are moved in when the pane is still
    /// folded and filtered as they were laid out for; otherwise
    /// they are laid out again here from the grouping that came with them.
    pub fn refresh_laid_out(
        &mut self,
        report: Arc<HealthReport>,
        laid_out: Option<HealthLayout>,
        height: usize,
    ) {
        // Named before the report it indexes is replaced.
        let selected = self.row_kind(self.cursor.selected);
        let old = std::mem::replace(&mut self.report, report);
        let selected = selected.and_then(|kind| same_row(kind, &old, &self.report));
        drop_later(old);
        let Some(laid_out) = laid_out else {
            self.grouped = None;
            self.rebuild_keeping(selected, height);
            return;
        };
        self.grouped = Some(laid_out.unfiltered);
        let view = &laid_out.view;
        if view.folded == self.folded && view.filter == self.filter {
            self.summary = laid_out.summary;
            self.show_rows(laid_out.rows, selected, height);
        } else {
            drop_later(laid_out.rows);
            self.rebuild_keeping(selected, height);
        }
    }

    /// The rows for the report as folded and filtered now.
    pub fn rebuild(&mut self, height: usize) {
        let selected = self.row_kind(self.cursor.selected);
        self.rebuild_keeping(selected, height);
    }

    /// [`HealthPane::rebuild`], staying on the row `selected` names.
    fn rebuild_keeping(&mut self, selected: Option<RowKind>, height: usize) {
        // Grouped again only when filtered; the unfiltered grouping is kept
        // until the report changes.
        let unfiltered = match self.grouped.take() {
            Some(g) => g,
            None => group_findings(&self.report, ""),
        };
        let filtered =
            (!self.filter.is_empty()).then(|| group_findings(&self.report, &self.filter));
        let (rows, summary) = lay_out(
            &self.report,
            filtered.as_ref().unwrap_or(&unfiltered),
            &self.folded,
            &self.filter,
        );
        self.summary = summary;
        drop_later(filtered);
        self.grouped = Some(unfiltered);
        self.show_rows(rows, selected, height);
    }

    /// Replace the rows, staying on the row `selected` names when it is
    /// still there.
    fn show_rows(&mut self, rows: Vec<HealthRow>, selected: Option<RowKind>, height: usize) {
        drop_later(std::mem::replace(&mut self.rows, rows));
        let findings = &self.report.findings;
        if let Some(kind) = selected
            && let Some(i) = self
                .rows
                .iter()
                .position(|r| r.kind(findings).as_ref() == Some(&kind))
        {
            self.cursor.selected = i;
        }
        self.cursor.clamp(self.rows.len(), height);
    }

    /// The group the selected row belongs to (a finding: its code group).
    fn selected_group(&self) -> Option<Group> {
        Some(match self.row_kind(self.cursor.selected)? {
            RowKind::Severity(s) => Group::Severity(s),
            RowKind::Code(s, c) => Group::Code(s, c),
            RowKind::Finding(i) | RowKind::File(i) => {
                let f = self.report.findings.get(i)?;
                Group::Code(f.severity, f.code())
            }
        })
    }

    /// Fold the selected row's group (on a folded code, its severity),
    /// and select the group's row.
    fn fold(&mut self, height: usize) {
        let Some(mut group) = self.selected_group() else {
            return;
        };
        let on_group_row = self.rows[self.cursor.selected].is_group();
        if on_group_row
            && self.folded.contains(&group)
            && let Group::Code(sev, _) = group
        {
            group = Group::Severity(sev);
        }
        self.folded.insert(group);
        self.rebuild(height);
        self.select_group_row(group, height);
    }

    /// Unfold the selected group row.
    fn unfold(&mut self, height: usize) {
        if let Some(group) = self.selected_group() {
            self.folded.remove(&group);
            self.rebuild(height);
        }
    }

    fn select_group_row(&mut self, group: Group, height: usize) {
        let kind = match group {
            Group::Severity(s) => RowKind::Severity(s),
            Group::Code(s, c) => RowKind::Code(s, c),
        };
        let findings = &self.report.findings;
        if let Some(i) = self
            .rows
            .iter()
            .position(|r| r.is_group() && r.kind(findings).as_ref() == Some(&kind))
        {
            let delta = i as isize - self.cursor.selected as isize;
            self.cursor.move_by(delta, self.rows.len(), height);
        }
    }

    /// Move to the next (or previous) group row.
    fn jump_group(&mut self, forward: bool, height: usize) -> bool {
        let is_group = HealthRow::is_group;
        let here = self.cursor.selected;
        let found = if forward {
            (here + 1..self.rows.len()).find(|&i| is_group(&self.rows[i]))
        } else {
            (0..here).rev().find(|&i| is_group(&self.rows[i]))
        };
        match found {
            Some(i) => {
                self.cursor
                    .move_by(i as isize - here as isize, self.rows.len(), height);
                true
            }
            None => false,
        }
    }

    /// A key while the filter is typed.
    fn filter_key(&mut self, key: KeyEvent, height: usize) {
        match key.code {
            KeyCode::Esc => {
                self.filtering = false;
                self.filter.clear();
            }
            KeyCode::Enter => self.filtering = false,
            _ if line_input::edit(&mut self.filter, &key) => {}
            _ => return,
        }
        self.rebuild(height);
    }

    /// Files that have at least one finding, for the tree's markers.
    pub fn flagged(&self) -> Flagged {
        flagged_files(&self.report)
    }

    /// The findings of the selected row: a finding, a file's findings of
    /// one code, or every finding of a group (as filtered now).
    pub fn selected_findings(&self) -> Vec<Finding> {
        let Some(kind) = self.row_kind(self.cursor.selected) else {
            return Vec::new();
        };
        let findings = &self.report.findings;
        let grouped = group_findings(&self.report, &self.filter);
        let pick = |f: &dyn Fn(&Finding) -> bool| -> Vec<Finding> {
            grouped
                .0
                .values()
                .flat_map(|codes| codes.values())
                .flatten()
                .map(|&i| &findings[i])
                .filter(|x| f(x))
                .cloned()
                .collect()
        };
        match kind {
            RowKind::Severity(s) => pick(&|f| f.severity == s),
            RowKind::Code(s, c) => pick(&|f| f.severity == s && f.code() == c),
            RowKind::Finding(i) => findings.get(i).cloned().into_iter().collect(),
            RowKind::File(i) => {
                let Some(first) = findings.get(i) else {
                    return Vec::new();
                };
                pick(&|f| f.code() == first.code() && f.path == first.path)
            }
        }
    }

    /// Open the review of the fixes for the selected findings: as they
    /// are, only marking `stale` articles checked today, or only creating
    /// the articles dead links name.
    fn propose_fixes(&mut self, mode: FixMode, cx: &mut Cx) -> bool {
        let checked = mode == FixMode::CheckedToday;
        let project = crate::layouts::project(cx.memory);
        if cx.bank.is_none() && project.is_none() {
            cx.warn(format!(
                "membank does not change {}: nothing here is fixed",
                cx.memory.spec().title
            ));
            return true;
        }
        let mut chosen = self.selected_findings();
        if checked {
            chosen.retain(|f| f.code() == "stale");
            if chosen.is_empty() {
                cx.info("v marks a stale article checked: select a stale finding");
                return true;
            }
        }
        if mode == FixMode::CreateMissing {
            chosen.retain(|f| f.code() == "dead-link");
            if chosen.is_empty() || cx.bank.is_none() {
                cx.info("+ creates the article a dead link names: select a dead-link finding");
                return true;
            }
        }
        if chosen.is_empty() {
            return false;
        }
        let (proposal, kind) = match (cx.bank, project) {
            (Some(bank), _) => {
                let opts = membank_core::fix::Options {
                    tz: jiff::tz::TimeZone::system(),
                    checked_today: checked.then(|| cx.clock.today()),
                    // A dead link may be a deliberate forward reference:
                    // its article is made only when asked for with `+`.
                    create_missing: (mode == FixMode::CreateMissing).then(|| cx.clock.today()),
                    surface: membank_core::surface::Surface::CommandLine,
                };
                let proposal = match chosen.as_slice() {
                    // The translation kept is the one of the article chosen.
                    [one] if one.code() == "term-conflict" => keep_translation(bank, one),
                    _ => membank_core::fix::propose_with(bank, &chosen, &opts),
                };
                (proposal, Kind::Bank)
            }
            (None, Some(project)) => (
                membank_core::dejavu::fix::propose(
                    project,
                    &chosen,
                    membank_core::surface::Surface::CommandLine,
                ),
                Kind::Project,
            ),
            (None, None) => return true,
        };
        self.fix = Some(FixReview::new(proposal, &chosen, kind, cx.bank));
        true
    }

    /// The selected finding; on a group row, the group's first finding.
    pub fn selected_finding(&self) -> Option<&Finding> {
        self.rows[self.cursor.selected.min(self.rows.len())..]
            .iter()
            .find_map(|r| match *r {
                HealthRow::Finding { index, .. } => self.report.findings.get(index as usize),
                _ => None,
            })
    }
}

/// Which fixes `x`, `v` and `+` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FixMode {
    AsFound,
    CheckedToday,
    CreateMissing,
}

/// `kind`, a row of `old`, as a row of `new`: a finding's index in the
/// old report names another finding in the new one, so a finding is
/// found again by its code, path and line (its message telling apart two
/// on one line); `None` when it is gone, so the cursor keeps its place.
fn same_row(kind: RowKind, old: &HealthReport, new: &HealthReport) -> Option<RowKind> {
    let (index, file_row) = match kind {
        RowKind::Finding(i) => (i, false),
        RowKind::File(i) => (i, true),
        group => return Some(group),
    };
    let was = old.findings.get(index)?;
    let same =
        |f: &&Finding| f.code() == was.code() && f.path == was.path && f.line() == was.line();
    let at = new
        .findings
        .iter()
        .position(|f| same(&f) && f.message() == was.message())
        .or_else(|| new.findings.iter().position(|f| same(&f)))?;
    Some(if file_row {
        RowKind::File(at)
    } else {
        RowKind::Finding(at)
    })
}

fn fold_mark(folded: bool) -> &'static str {
    if folded { "▸ " } else { "▾ " }
}

/// The fixes that keep `f`'s article's translation of a conflicting term.
fn keep_translation(bank: &membank_core::bank::Bank, f: &Finding) -> FixProposal {
    match membank_core::fix::keep_translation(bank, &f.path) {
        Ok(fixes) => FixProposal {
            fixes,
            remaining: Vec::new(),
        },
        Err(reason) => FixProposal {
            fixes: Vec::new(),
            remaining: vec![Unfixed {
                code: f.code(),
                path: f.path.to_string(),
                line: f.line(),
                reason,
            }],
        },
    }
}

/// Lines under the list that show the selected finding in full, since a
/// message rarely fits on its row; none when the pane is very short.
/// The note above an article reached from a finding; the Article pane
/// compares it with each new report to drop it once the finding is gone.
pub fn jump_banner(f: &Finding) -> String {
    let text = format!("{} at {}: {}", f.code(), f.location(), f.message());
    sanitize_for_terminal(&text, false)
}

pub fn detail_height(pane_height: u16) -> u16 {
    match pane_height {
        0..12 => 0,
        12..18 => 4,
        _ => 7,
    }
}

/// Columns before a finding's location.
const FINDING_INDENT: &str = "      ";

/// One finding's row, `width` columns wide: where, then what. Under its
/// file's row, the line alone says where; elsewhere the folder is dimmed
/// and apart from the name, and a long folder gives way first, from its
/// start, so the last folders and the name still tell files apart.
fn finding_line(f: &Finding, under_file: bool, theme: &Theme, width: usize) -> Line<'static> {
    if under_file {
        let mut spans = vec![Span::raw("        ")];
        if let Some(l) = f.line() {
            spans.push(Span::styled(format!("line {l}"), theme.link));
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(
            sanitize_for_terminal(&f.message(), false),
            theme.text,
        ));
        return Line::from(spans);
    }
    let mut spans = vec![Span::raw(FINDING_INDENT)];
    let path = sanitize_for_terminal(&f.path, false);
    match path.rsplit_once('/').filter(|_| !f.path.is_empty()) {
        Some((folder, name)) => {
            let name = match f.line() {
                Some(line) => format!("{name}:{line}"),
                None => name.to_owned(),
            };
            let folder = format!("{folder}/");
            let room = width.saturating_sub(FINDING_INDENT.len());
            // However long the name, "…/" stays to say it is in a folder.
            let folder_room = folder
                .width()
                .min(room * 2 / 5)
                .min(room.saturating_sub(name.width()))
                .max(folder.width().min(2));
            spans.push(Span::styled(
                cut_start(&folder, folder_room).into_owned(),
                theme.muted,
            ));
            spans.push(Span::styled(name, theme.link));
        }
        None => spans.push(Span::styled(
            sanitize_for_terminal(&f.location(), false),
            theme.link,
        )),
    }
    spans.push(Span::raw("  "));
    spans.push(Span::styled(
        sanitize_for_terminal(&f.message(), false),
        theme.text,
    ));
    Line::from(spans)
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
                Span::styled(sanitize_for_terminal(f.code(), false), theme.muted),
                Span::raw("  "),
                Span::styled(sanitize_for_terminal(&f.location(), false), theme.link),
            ]),
            Line::styled(sanitize_for_terminal(&f.message(), false), theme.text),
        ];
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), detail_area);
    }
    let filter_row = u16::from(pane.filtering || !pane.filter.is_empty());
    let [area, filter_area] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(filter_row)]).areas(area);
    if filter_row > 0 {
        let cursor = if pane.filtering { "▏" } else { "" };
        let filter_line = Line::from(vec![
            Span::styled("filter: ", theme.hint_key),
            Span::styled(
                format!("{}{cursor}", sanitize_for_terminal(&pane.filter, false)),
                theme.input,
            ),
            Span::styled(
                if pane.filtering {
                    "  (code or path · Enter keeps · Esc clears)"
                } else {
                    "  (/ changes it)"
                },
                theme.muted,
            ),
        ]);
        frame.render_widget(
            Paragraph::new(cut_lines([filter_line], filter_area.width)),
            filter_area,
        );
    }
    let height = usize::from(area.height);
    let mut lines = Vec::with_capacity(height);
    if pane.rows.is_empty() {
        let empty = if pane.filter.is_empty() {
            "No findings."
        } else {
            "No finding matches the filter."
        };
        lines.push(Line::styled(empty, theme.muted));
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
            .map(|(i, _)| {
                let line = pane.row_line(i, theme, usize::from(area.width));
                if i == pane.cursor.selected {
                    super::highlight_row(line, area.width, selection)
                } else {
                    line
                }
            }),
    );
    frame.render_widget(Paragraph::new(cut_lines(lines, area.width)), area);
}

impl Component for HealthPane {
    fn scope(&self) -> Scope {
        // An open view answers to its own keys (and `?` lists them).
        if self.qa.is_some() {
            Scope::TermCheck
        } else if self.fix.is_some() {
            Scope::FixReview
        } else {
            Scope::Health
        }
    }

    fn title(&self) -> String {
        match &self.qa {
            Some(view) => format!("Health — {}", view.title()),
            None => format!("Health — {}", self.summary),
        }
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.qa.is_some() {
            return self.term_check_action(action, cx);
        }
        if let Some(review) = &mut self.fix {
            let list_h = health_fix::list_height(review, cx.height as u16);
            return match review.on_action(action, cx.memory.root(), list_h) {
                None => false,
                Some(outcome) => {
                    self.after_review(outcome, cx);
                    true
                }
            };
        }
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
            Action::FoldGroup => self.fold(h),
            Action::UnfoldGroup => self.unfold(h),
            Action::NextGroup | Action::PrevGroup => {
                return self.jump_group(action == Action::NextGroup, h);
            }
            Action::Filter => self.filtering = true,
            Action::ClearFilter => {
                if self.filter.is_empty() {
                    return false;
                }
                self.filter.clear();
                self.rebuild(h);
            }
            Action::Rerun => cx.effects.push(Effect::RerunHealth),
            Action::CheckTerms => {
                let generation = self.qa.as_ref().map_or(0, |v| v.generation);
                self.qa = Some(super::qa::QaView::asking(generation));
            }
            Action::FixFindings => return self.propose_fixes(FixMode::AsFound, cx),
            Action::MarkChecked => return self.propose_fixes(FixMode::CheckedToday, cx),
            Action::CreateTargets => return self.propose_fixes(FixMode::CreateMissing, cx),
            Action::Open => {
                let Some(f) = self.selected_finding() else {
                    return false;
                };
                if f.path.is_empty() {
                    // About the bank as a whole: nothing to open.
                    let text = format!("{}: {}", f.code(), f.message());
                    cx.info(sanitize_for_terminal(&text, false));
                    return true;
                }
                cx.effects.push(Effect::ShowArticle {
                    rel: f.path.to_string(),
                    line: f.line(),
                    banner: Some(jump_banner(f)),
                });
            }
            Action::Edit => {
                let Some(f) = self.selected_finding().filter(|f| !f.path.is_empty()) else {
                    return false;
                };
                let (rel, line) = (f.path.to_string(), f.line());
                return cx.edit(Some(rel), line);
            }
            Action::CopyPath => {
                let rel = self.selected_finding().map(|f| f.path.to_string());
                return cx.copy_path(rel);
            }
            Action::CopyLink => {
                let rel = self.selected_finding().map(|f| f.path.to_string());
                return cx.copy_link(rel);
            }
            _ => return false,
        }
        true
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        if let Some(view) = &self.qa {
            return view.hints(keymap);
        }
        if let Some(review) = &self.fix {
            return review.hints(keymap);
        }
        if self.filtering {
            return "type a code or path · Enter done · Esc clear".to_owned();
        }
        hint_text(
            keymap,
            &[
                (Action::Open, "jump"),
                (Action::FoldGroup, "fold"),
                (Action::NextGroup, "group"),
                (Action::Filter, "filter"),
                (Action::Rerun, "re-run"),
                (Action::FixFindings, "fix"),
                (Action::CheckTerms, "terms"),
            ],
        )
    }

    fn is_typing(&self) -> bool {
        self.filtering
            || self.fix.as_ref().is_some_and(|f| f.typing.is_some())
            || self.qa.as_ref().is_some_and(|v| v.is_asking())
    }

    fn on_typing_key(&mut self, key: KeyEvent, cx: &mut Cx) -> bool {
        if let Some(view) = &mut self.qa {
            let outcome = view.type_key(key);
            self.after_term_check(outcome, cx);
            return true;
        }
        if let Some(review) = &mut self.fix {
            let outcome = review.typing_key(key, cx.bank);
            self.after_review(outcome, cx);
            return true;
        }
        self.filter_key(key, cx.height);
        true
    }

    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        match (&self.qa, &self.fix) {
            (Some(view), _) => super::qa::draw(frame, area, view, focused, theme),
            (None, Some(review)) => health_fix::draw(frame, area, review, focused, theme),
            (None, None) => draw(frame, area, self, focused, theme),
        }
    }
}

impl HealthPane {
    /// An action while the terminology check is shown.
    fn term_check_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let Some(view) = &mut self.qa else {
            return false;
        };
        // The list's rows: the pane less the heading above them.
        match view.on_action(action, cx.height.saturating_sub(1)) {
            None => false,
            Some(outcome) => {
                self.after_term_check(outcome, cx);
                true
            }
        }
    }

    fn after_term_check(&mut self, outcome: QaOutcome, cx: &mut Cx) {
        let Some(view) = &mut self.qa else {
            return;
        };
        match outcome {
            QaOutcome::Stay => {}
            QaOutcome::Close => self.qa = None,
            QaOutcome::Run(file) => cx.effects.push(Effect::CheckTerms(file)),
            QaOutcome::OpenFinding(i) => {
                let finding = view.report().and_then(|o| o.report.findings.get(i));
                // Read again: the bank keeps no bodies.
                let text = finding
                    .and_then(|f| cx.bank?.find(&f.article))
                    .and_then(|id| cx.bank?.article_text(id).ok());
                view.open(i, text.as_deref());
            }
        }
    }

    fn after_review(&mut self, outcome: Outcome, cx: &mut Cx) {
        match outcome {
            Outcome::Open => {}
            Outcome::Closed => self.fix = None,
            // The result stays on screen; the checks run again once the
            // written files are read back.
            Outcome::Applied(changed) => cx.effects.push(Effect::Wrote(changed)),
        }
    }
}

/// Files with findings, by the paths their findings share: no copy of
/// each path (100,000 of them in a large bank's report).
pub type Flagged = HashSet<Arc<str>>;

/// The files that have findings.
pub fn flagged_files(report: &HealthReport) -> Flagged {
    report
        .findings
        .iter()
        .filter(|f| !f.path.is_empty())
        .map(|f| Arc::clone(&f.path))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(findings: &[(&'static str, Severity, &str)]) -> Arc<HealthReport> {
        Arc::new(HealthReport::new(
            findings
                .iter()
                .map(|&(code, severity, path)| {
                    Finding::new(code, severity, path, Some(1), "what is wrong")
                })
                .collect(),
        ))
    }

    fn texts(pane: &HealthPane) -> Vec<String> {
        let theme = Theme::default_theme();
        (0..pane.rows.len())
            .map(|i| pane.row_line(i, &theme, 80).to_string())
            .collect()
    }

    #[test]
    fn a_name_too_long_for_its_row_still_shows_it_is_in_a_folder() {
        let theme = Theme::default_theme();
        let long = format!("02_TERMINOLOGY/{}.md", "booking reference ".repeat(4));
        let f = Finding::new("stale", Severity::Warning, &long, Some(3), "old");
        let row = finding_line(&f, false, &theme, 40).to_string();
        assert!(row.trim_start().starts_with("…/booking"), "{row:?}");
        let short = Finding::new("stale", Severity::Warning, "03_DOMAINS/Tax.md", None, "old");
        let row = finding_line(&short, false, &theme, 80).to_string();
        assert!(row.contains("03_DOMAINS/Tax.md"), "{row:?}");
    }

    #[test]
    fn a_row_holds_indices_and_counts_only() {
        // A hundred thousand findings make as many rows: at 40 bytes with
        // a text per group and file row, they were 10 MB at 100,000
        // articles.
        assert!(size_of::<HealthRow>() <= 12, "{}", size_of::<HealthRow>());
    }

    #[test]
    fn rows_are_written_from_the_report_when_drawn() {
        let mut pane = HealthPane::default();
        pane.refresh(
            report(&[
                ("stale", Severity::Warning, "01_CLIENTS/a.md"),
                ("stale", Severity::Warning, "01_CLIENTS/a.md"),
                ("orphan", Severity::Warning, "02_DOMAINS/b.md"),
                ("dead-link", Severity::Error, "02_DOMAINS/b.md"),
            ]),
            30,
        );
        assert_eq!(
            texts(&pane),
            [
                "▾ 1 error",
                "  ▾ dead-link (1)",
                "      02_DOMAINS/b.md:1  what is wrong",
                "▾ 3 warnings",
                "  ▾ orphan (1)",
                "      02_DOMAINS/b.md:1  what is wrong",
                "  ▾ stale (2)",
                "      01_CLIENTS/a.md (2)",
                "        line 1  what is wrong",
                "        line 1  what is wrong",
            ]
        );
        pane.folded.insert(Group::Code(Severity::Warning, "stale"));
        pane.rebuild(30);
        assert_eq!(
            texts(&pane)[4..],
            [
                "  ▾ orphan (1)",
                "      02_DOMAINS/b.md:1  what is wrong",
                "  ▸ stale (2)"
            ]
        );
    }

    #[test]
    fn a_selected_group_stays_selected_when_its_findings_move_in_a_new_report() {
        let mut pane = HealthPane::default();
        pane.refresh(
            report(&[
                ("orphan", Severity::Warning, "02_DOMAINS/b.md"),
                ("stale", Severity::Warning, "01_CLIENTS/a.md"),
            ]),
            30,
        );
        let stale = Some(RowKind::Code(Severity::Warning, "stale"));
        pane.cursor.selected = (0..pane.rows.len())
            .find(|&i| pane.row_kind(i) == stale)
            .expect("the stale group's row");
        // Two errors come first now: every index in the report moves.
        pane.refresh(
            report(&[
                ("dead-link", Severity::Error, "03_X/c.md"),
                ("dead-link", Severity::Error, "03_X/d.md"),
                ("orphan", Severity::Warning, "02_DOMAINS/b.md"),
                ("stale", Severity::Warning, "01_CLIENTS/a.md"),
            ]),
            30,
        );
        assert_eq!(pane.row_kind(pane.cursor.selected), stale);
    }

    #[test]
    fn a_selected_finding_stays_selected_when_one_before_it_comes_back() {
        let mut pane = HealthPane::default();
        pane.refresh(
            report(&[
                ("orphan", Severity::Warning, "02_DOMAINS/b.md"),
                ("stale", Severity::Warning, "01_CLIENTS/a.md"),
            ]),
            30,
        );
        pane.cursor.selected = (0..pane.rows.len())
            .find(|&i| {
                matches!(pane.row_kind(i), Some(RowKind::Finding(f))
                    if pane.report.findings[f].code() == "stale")
            })
            .expect("the stale finding's row");
        // The finding fixed before comes back (undone) ahead of it.
        pane.refresh(
            report(&[
                ("dead-link", Severity::Error, "03_X/c.md"),
                ("orphan", Severity::Warning, "02_DOMAINS/b.md"),
                ("stale", Severity::Warning, "01_CLIENTS/a.md"),
            ]),
            30,
        );
        let f = pane.selected_finding().expect("a finding is selected");
        assert_eq!((f.code(), &*f.path), ("stale", "01_CLIENTS/a.md"));
    }
}
