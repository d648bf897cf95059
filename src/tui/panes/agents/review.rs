//! Reviewing the files a reply proposes (`### FILE:` blocks, spec §9–§11,
//! or a Deja Vu writeback's records and impression lines): each block is
//! shown as new, changed (with a diff against the disk), unchanged or
//! rejected with the reason; the user accepts or declines each one, and
//! nothing is written before Enter.

use std::path::Path;

use membank_core::clock::Clock;
use membank_core::compile::{self, BlockStatus, SentNote, SourceStatus};
use membank_core::dejavu::{self, Project};
use membank_core::outcome::outcome_line;
use membank_core::review::{self, Change};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::{Kind, Stopped, Transaction};
use membank_core::{archive, stamp};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::panes::cursor::Cursor;
use crate::tui::panes::highlight_row;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_line;
use crate::tui::widgets::wrap::wrap_line;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proposal {
    New,
    Changed,
    Unchanged,
    /// The checks refused it; never written.
    Rejected(String),
}

impl Proposal {
    fn label(&self) -> &'static str {
        match self {
            Proposal::New => "new",
            Proposal::Changed => "changed",
            Proposal::Unchanged => "unchanged",
            Proposal::Rejected(_) => "rejected",
        }
    }
}

#[derive(Debug, Clone)]
pub struct ReviewBlock {
    /// Sanitised for display.
    pub path: String,
    pub proposal: Proposal,
    pub accepted: bool,
    /// The diff (changed), the content (new) or the reason (rejected),
    /// sanitised.
    pub detail: Vec<String>,
    /// What the reply's parser dropped or found odd in this block (text
    /// after a closing fence, say), sanitised.
    pub warnings: Vec<String>,
    /// Inbox sources this file would be listed under (`compiled_to`).
    pub sources: Vec<String>,
}

/// An inbox note of a Process Inbox review: archived with the files
/// written for it, or kept in the inbox when the user says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRow {
    /// The bank path, as sent.
    pub path: String,
    pub keep: bool,
    /// Its frontmatter's size once stamped with no `compiled_to` paths
    /// (`None`: it cannot be read or stamped; applying says why).
    pub stamp_base: Option<usize>,
}

/// What applying does besides writing the files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Purpose {
    /// Process Inbox: stamp and archive these inbox sources afterwards,
    /// each only while its text is still the one `sent` to the model.
    Compile {
        sources: Vec<String>,
        sent: Vec<SentNote>,
        clock: Clock,
    },
    /// Only write the accepted files.
    Write,
    /// A Deja Vu writeback: records written atomically, impression lines
    /// appended, with the project's own checks (`dejavu::writeback`).
    Writeback,
}

#[derive(Debug)]
pub struct Review {
    /// What was shown, to compare with the disk before writing.
    classified: review::Proposal,
    reply: String,
    pub purpose: Purpose,
    pub blocks: Vec<ReviewBlock>,
    pub warnings: Vec<String>,
    /// The model's own words before its first file, sanitised.
    pub prose: Vec<String>,
    /// Process Inbox: the notes sent, each archived or kept.
    pub sources: Vec<SourceRow>,
    /// Over the blocks, then the sources.
    pub cursor: Cursor,
    /// Scroll of the selected block's detail.
    pub detail_scroll: usize,
    /// What applying did, once it has run.
    pub result: Option<Vec<String>>,
    /// First row of the result shown: a write of many files is longer
    /// than the pane, and its rejected blocks and archived notes come last.
    pub result_scroll: usize,
    /// The furthest the result can scroll, as last drawn (rows depend on
    /// the pane's size and the wrapping).
    result_max_scroll: std::cell::Cell<usize>,
    /// The journal's name for the write, when it is not a plain agent
    /// write (a distilled note is undone as a distill).
    pub journal_label: Option<&'static str>,
    /// Only new files are written (a distilled note): a block whose path
    /// holds a file is refused, whenever the reply is classified.
    only_new: bool,
}

fn shown_lines(text: &str) -> Vec<String> {
    sanitize_for_terminal(text, true)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The journal's name for a distilled note, whose review only creates.
pub const DISTILL: &str = "distill";

impl Review {
    /// Check the reply's blocks against the bank without writing anything.
    /// Valid blocks start accepted; rejected ones cannot be accepted.
    pub fn new(root: &Path, reply: &str, purpose: Purpose) -> Review {
        let classified = classify(root, reply, &purpose);
        let mut review = Review::of(classified, reply, purpose);
        if let Purpose::Compile { clock, .. } = &review.purpose {
            let today = clock.now().date();
            for row in &mut review.sources {
                row.stamp_base = archive::stamped_base_bytes(root, &row.path, today).ok();
            }
        }
        review
    }

    /// A Deja Vu writeback reply, checked against the project as loaded.
    pub fn writeback(project: &Project, reply: &str) -> Review {
        let classified = dejavu::writeback::classify(project, reply);
        Review::of(classified, reply, Purpose::Writeback)
    }

    /// Format a classified reply; valid blocks start accepted.
    fn of(classified: review::Proposal, reply: &str, purpose: Purpose) -> Review {
        let sources: &[String] = match &purpose {
            Purpose::Compile { sources, .. } => sources,
            Purpose::Write | Purpose::Writeback => &[],
        };
        let blocks = classified
            .files
            .iter()
            .map(|f| {
                let name = match purpose {
                    Purpose::Writeback => entry_name(f),
                    _ => f.path.clone(),
                };
                let path = sanitize_for_terminal(&name, false);
                let (proposal, detail) = match f.change {
                    Change::Rejected => {
                        let shown = sanitize_for_terminal(f.reason.as_deref().unwrap_or(""), false);
                        (Proposal::Rejected(shown.clone()), vec![shown])
                    }
                    Change::New => (Proposal::New, shown_lines(&f.content)),
                    Change::Unchanged => (Proposal::Unchanged, vec!["(same as on disk)".into()]),
                    Change::Changed => (
                        Proposal::Changed,
                        shown_lines(f.diff.as_deref().unwrap_or("")),
                    ),
                };
                let accepted = !matches!(proposal, Proposal::Rejected(_));
                ReviewBlock {
                    path,
                    proposal,
                    accepted,
                    detail,
                    warnings: f
                        .warnings
                        .iter()
                        .map(|w| sanitize_for_terminal(w, false))
                        .collect(),
                    sources: f.sources.clone(),
                }
            })
            .collect();
        let prose = shown_lines(membank_core::fileblocks::parse_reply(reply).preamble.trim())
            .into_iter()
            .filter(|l| !l.trim().is_empty())
            .collect();
        let source_rows = sources
            .iter()
            .map(|p| SourceRow {
                path: p.clone(),
                keep: false,
                stamp_base: None,
            })
            .collect();
        let warnings = &classified.warnings;
        Review {
            classified: classified.clone(),
            reply: reply.to_owned(),
            purpose,
            blocks,
            warnings: warnings
                .iter()
                .map(|w| sanitize_for_terminal(w, false))
                .collect(),
            prose,
            sources: source_rows,
            cursor: Cursor::default(),
            detail_scroll: 0,
            result: None,
            result_scroll: 0,
            result_max_scroll: std::cell::Cell::new(0),
            journal_label: None,
            only_new: false,
        }
    }

    pub fn is_applied(&self) -> bool {
        self.result.is_some()
    }

    /// The model's reply as it arrived, to keep when the review is left.
    pub fn reply(&self) -> &str {
        &self.reply
    }

    /// How many files Enter would write.
    pub fn accepted(&self) -> usize {
        self.blocks.iter().filter(|b| b.accepted).count()
    }

    /// How many files accepting (or declining) all would change.
    pub fn would_change(&self, accepted: bool) -> usize {
        self.blocks
            .iter()
            .filter(|b| !matches!(b.proposal, Proposal::Rejected(_)) && b.accepted != accepted)
            .count()
    }

    pub fn toggle(&mut self) -> bool {
        if self.result.is_some() {
            return false;
        }
        let n = self.blocks.len();
        if let Some(src) = self
            .cursor
            .selected
            .checked_sub(n)
            .and_then(|i| self.sources.get_mut(i))
        {
            src.keep = !src.keep;
            return true;
        }
        match self.blocks.get_mut(self.cursor.selected) {
            Some(b) if !matches!(b.proposal, Proposal::Rejected(_)) => {
                b.accepted = !b.accepted;
                true
            }
            _ => false,
        }
    }

    /// Rows of the list: the proposed files, then the inbox notes.
    pub fn row_count(&self) -> usize {
        self.blocks.len() + self.sources.len()
    }

    /// The accepted files a note would be stamped `compiled_to`.
    /// How many inbox notes applying stamps and archives, as the review
    /// marks them `[x]`: not kept, and named by an accepted file (a note
    /// no accepted file is written for stays in the inbox).
    pub fn notes_to_archive(&self) -> usize {
        match &self.purpose {
            Purpose::Compile { .. } => self
                .sources
                .iter()
                .filter(|s| {
                    !s.keep
                        && !self.compiled_to(&s.path).is_empty()
                        && self.stamp_too_large(s).is_none()
                })
                .count(),
            _ => 0,
        }
    }

    /// Why a note the accepted files name stays in the inbox all the same:
    /// a `compiled_to` stamp listing them all would make its frontmatter
    /// larger than readers accept, so applying does not stamp or archive it.
    pub fn stamp_too_large(&self, source: &SourceRow) -> Option<String> {
        let base = source.stamp_base?;
        let to = self.compiled_to(&source.path);
        if to.is_empty() {
            return None;
        }
        let none: [&str; 0] = [];
        let bytes = base - stamp::compiled_to_bytes(&none) + stamp::compiled_to_bytes(&to);
        stamp::oversized(bytes, to.len())
    }

    /// How many notes the accepted files name stay in the inbox because
    /// their stamp would be too large.
    pub fn notes_too_large_to_stamp(&self) -> usize {
        self.sources
            .iter()
            .filter(|s| !s.keep && self.stamp_too_large(s).is_some())
            .count()
    }

    pub fn compiled_to(&self, source: &str) -> Vec<&str> {
        self.blocks
            .iter()
            .filter(|b| b.accepted && b.sources.iter().any(|s| s == source))
            .map(|b| b.path.as_str())
            .collect()
    }

    pub fn set_all(&mut self, accepted: bool) -> bool {
        if self.result.is_some() {
            return false;
        }
        for b in &mut self.blocks {
            b.accepted = accepted && !matches!(b.proposal, Proposal::Rejected(_));
        }
        true
    }

    pub fn move_by(&mut self, delta: isize, list_height: usize) {
        self.cursor.move_by(delta, self.row_count(), list_height);
        self.detail_scroll = 0;
    }

    pub fn scroll_detail(&mut self, delta: isize) {
        let len = self
            .blocks
            .get(self.cursor.selected)
            .map_or(0, |b| b.detail.len());
        self.detail_scroll = self
            .detail_scroll
            .saturating_add_signed(delta)
            .min(len.saturating_sub(1));
    }

    /// Scroll the result by `delta` rows (`isize::MIN`/`MAX`: to its top
    /// or end), no further than its last row at the bottom of the pane.
    pub fn scroll_result(&mut self, delta: isize) {
        let max = self.result_max_scroll.get();
        self.result_scroll = self
            .result_scroll
            .min(max)
            .saturating_add_signed(delta)
            .min(max);
    }

    /// Write the accepted blocks atomically (and, for Process Inbox, stamp
    /// and archive the sources; for a writeback, append the accepted
    /// impression lines). Returns the paths that changed on disk, so only
    /// those are read again, and how many entries were written; what
    /// happened, line by line, is kept in `result`.
    pub fn apply(&mut self, root: &Path) -> Applied {
        let declined: Vec<usize> = self
            .blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.accepted)
            .map(|(i, _)| i)
            .collect();
        let s = |t: &str| sanitize_for_terminal(t, false);
        let nothing = |why: String| Applied {
            changed: Vec::new(),
            written: 0,
            stale: Vec::new(),
            failed: Some(why),
        };
        // A command-line run changing the memory right now: write nothing.
        // The core's transaction takes the lock, refuses a file edited
        // since its diff was shown, and writes.
        let kind = match self.purpose {
            Purpose::Writeback => Kind::Project,
            _ => Kind::Bank,
        };
        let tx = match Transaction::begin(root, kind, std::time::Duration::from_secs(2), || {}) {
            Ok(tx) => tx,
            Err(e) => {
                self.result = Some(vec![s(&e)]);
                return nothing(s(&e));
            }
        };
        if let Some(label) = self.journal_label {
            tx.set_label(label);
        }
        let mut lines = Vec::new();
        let mut changed = Vec::new();
        let committed = match &self.purpose {
            Purpose::Compile { clock, sent, .. } => {
                // Notes the user keeps are not part of this batch: nothing
                // is stamped on them and they stay in the inbox.
                let chosen: Vec<SentNote> = sent
                    .iter()
                    .filter(|n| self.sources.iter().any(|r| !r.keep && r.path == n.path))
                    .cloned()
                    .collect();
                for kept in self.sources.iter().filter(|r| r.keep) {
                    lines.push(format!("kept in inbox  {}: you kept it", s(&kept.path)));
                }
                let (archive, changed_since_sent) = compile::still_as_sent(root, &chosen);
                for kept in &changed_since_sent {
                    lines.push(s(&kept.outcome_line()));
                }
                tx.commit_compile(
                    &self.classified,
                    &declined,
                    &self.reply,
                    &archive,
                    clock.now(),
                )
                .map(|done| {
                    for src in &done.report.sources {
                        if src.status == SourceStatus::Archived {
                            changed.push(src.source.clone());
                            changed.extend(src.archived_to.clone());
                        }
                        // Worded by the core, as the command line words it.
                        lines.push(s(&src.outcome_line()));
                    }
                    written_blocks(&done.report.blocks)
                })
            }
            Purpose::Write => tx
                .commit_blocks(&self.classified, &declined, &self.reply)
                .map(|done| written_blocks(&done.report.blocks)),
            Purpose::Writeback => tx
                .commit_writeback(&self.classified, &declined)
                .map(|done| {
                    done.report
                        .iter()
                        .map(|f| {
                            let wrote = matches!(f.change, Change::New | Change::Changed);
                            (f.outcome_line(), wrote.then(|| f.path.clone()))
                        })
                        .collect()
                }),
        };
        // Said in the result: an entry over the journal's bound, or one
        // that could not be kept.
        let journalled = tx.finish();
        drop(tx);
        let blocks = match committed {
            Ok(blocks) => blocks,
            // A file edited since its diff was shown: show the new diff
            // and ask again instead of overwriting the edit.
            Err(Stopped::Stale(stale)) => return self.show_stale(root, &stale),
            Err(e @ Stopped::Refused(_)) => {
                self.result = Some(vec![s(&e.to_string())]);
                return nothing(s(&e.to_string()));
            }
        };
        // Files, not entries: two impression lines go to one file.
        let mut written: Vec<String> = Vec::new();
        let mut block_lines = Vec::new();
        for (line, path) in blocks {
            // A declined file is said below in its own word, not as a
            // rejection by the checks.
            if path.is_none() && line.ends_with(": declined by the user") {
                continue;
            }
            // The result says "written" only of what was written.
            block_lines.push(match &path {
                Some(p) => s(&format!("{:<9}  {p}", "written")),
                None => s(&line),
            });
            if let Some(path) = path
                && !written.contains(&path)
            {
                written.push(path);
            }
        }
        // What the user declined is said as such, not left out.
        block_lines.extend(
            self.blocks
                .iter()
                .filter(|b| !b.accepted && !matches!(b.proposal, Proposal::Rejected(_)))
                .map(|b| format!("{:<9}  {}", "declined", b.path)),
        );
        let written_count = written.len();
        for path in written {
            if !changed.contains(&path) {
                changed.push(path);
            }
        }
        block_lines.append(&mut lines);
        block_lines.extend(journalled.map(|w| s(&format!("warning: {w}"))));
        self.result = Some(block_lines);
        Applied {
            changed,
            written: written_count,
            stale: Vec::new(),
            failed: None,
        }
    }

    /// Classify the reply again against the files as they are now,
    /// keeping what was accepted, the kept inbox notes and the cursor.
    fn reclassify(&mut self, root: &Path) {
        let accepted: Vec<bool> = self.blocks.iter().map(|b| b.accepted).collect();
        let cursor = self.cursor.selected;
        let kept = std::mem::take(&mut self.sources);
        let (label, only_new) = (self.journal_label, self.only_new);
        *self = Review::new(root, &self.reply.clone(), self.purpose.clone());
        self.sources = kept;
        self.journal_label = label;
        if only_new {
            self.creating_only();
        }
        // Entries keep their places: the reply is the same.
        for (b, was) in self.blocks.iter_mut().zip(accepted) {
            b.accepted = was && !matches!(b.proposal, Proposal::Rejected(_));
        }
        self.cursor.selected = cursor.min(self.blocks.len().saturating_sub(1));
    }

    /// A distilled note is a new note: a block whose path holds a file
    /// (one that appeared since it was proposed, or a name taken in the
    /// same second) is refused, as `membank distill` refuses it, rather
    /// than shown as a change that would replace that file.
    pub fn creating_only(&mut self) {
        self.only_new = true;
        for b in &mut self.blocks {
            if matches!(b.proposal, Proposal::Changed | Proposal::Unchanged) {
                let why = "a file is already at this path; a distilled note never replaces one";
                b.proposal = Proposal::Rejected(why.to_owned());
                b.accepted = false;
                b.detail = vec![why.to_owned()];
            }
        }
    }

    /// Files changed on disk while the review is open: every diff is made
    /// again against the file as it is now, and the files whose diff
    /// changed are named at the top. Returns whether any diff changed. An
    /// applied review is left as it is.
    pub fn refresh_diffs(&mut self, root: &Path) -> bool {
        if self.is_applied() {
            return false;
        }
        let before: Vec<(String, Vec<String>)> = self
            .blocks
            .iter()
            .map(|b| (b.path.clone(), b.detail.clone()))
            .collect();
        let (warnings, scroll) = (self.warnings.clone(), self.detail_scroll);
        self.reclassify(root);
        let changed: Vec<String> = self
            .blocks
            .iter()
            .zip(&before)
            .filter(|(b, (_, detail))| b.detail != *detail)
            .map(|(_, (path, _))| path.clone())
            .collect();
        // Warnings of earlier refreshes and stale writes stay until applied.
        for w in warnings.into_iter().rev() {
            if !self.warnings.contains(&w) {
                self.warnings.insert(0, w);
            }
        }
        if changed.is_empty() {
            // Nothing moved: the reader stays where they were in the diff.
            self.detail_scroll = scroll;
            return false;
        }
        self.warnings.insert(
            0,
            format!(
                "changed on disk: {}; the diff now shows the file as it is",
                changed.join(", ")
            ),
        );
        true
    }

    /// Files changed on disk since they were shown: classify the reply
    /// again against them, keep the user's choices, write nothing.
    fn show_stale(&mut self, root: &Path, stale: &[String]) -> Applied {
        self.reclassify(root);
        let names: Vec<String> = stale
            .iter()
            .map(|p| sanitize_for_terminal(p, false))
            .collect();
        self.warnings.insert(
            0,
            format!(
                "changed on disk since shown: {}; nothing was written. Check the new diff, \
                 then press Enter again",
                names.join(", ")
            ),
        );
        Applied {
            changed: Vec::new(),
            written: 0,
            stale: names,
            failed: None,
        }
    }
}

/// What a proposed entry is called in the list: its path, and for an
/// impression line (several may go to one file) the line's id too.
fn entry_name(file: &review::ProposedFile) -> String {
    if !dejavu::writeback::is_impression(file) {
        return file.path.clone();
    }
    let id = dejavu::js::parse(&file.content)
        .ok()
        .and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_owned));
    match id {
        Some(id) => format!("{} (line {id})", file.path),
        None => format!("{} (a line)", file.path),
    }
}

/// The reply classified in the core for its purpose; this module only
/// formats it.
fn classify(root: &Path, reply: &str, purpose: &Purpose) -> review::Proposal {
    match purpose {
        Purpose::Compile { sources, clock, .. } => {
            review::classify(root, reply, sources, clock.now())
        }
        // Nothing is archived, so no date goes into the plan.
        Purpose::Write => review::classify(root, reply, &[], Clock::System.now()),
        Purpose::Writeback => match Project::load(root) {
            Ok(project) => dejavu::writeback::classify(&project, reply),
            Err(e) => review::Proposal {
                files: Vec::new(),
                warnings: vec![e.to_string()],
            },
        },
    }
}

/// Each written block's outcome line, and its path when it was written.
fn written_blocks(blocks: &[compile::BlockResult]) -> Vec<(String, Option<String>)> {
    blocks
        .iter()
        .map(|b| {
            let wrote = matches!(b.status, BlockStatus::Created | BlockStatus::Updated);
            (
                outcome_line(b.change, &b.path, b.line, b.reason.as_deref()),
                wrote.then(|| b.path.clone()),
            )
        })
        .collect()
}

/// What applying a review changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// Bank-relative paths written, stamped or moved.
    pub changed: Vec<String>,
    /// Files created or updated from accepted blocks.
    pub written: usize,
    /// Files changed on disk since the review showed them (sanitised);
    /// when any, nothing was written and the review shows the new diffs.
    pub stale: Vec<String>,
    /// Why nothing could be written (sanitised), e.g. another run holds
    /// the lock.
    pub failed: Option<String>,
}

/// What applying did, under a heading that says where the view is when
/// it does not all fit; scrolled as `Review::scroll_result` says.
fn draw_result(frame: &mut Frame, area: Rect, review: &Review, result: &[String], theme: &Theme) {
    let [head, body] = Layout::vertical([Constraint::Length(1), Constraint::Fill(1)]).areas(area);
    let rows: Vec<Line> = result
        .iter()
        .flat_map(|l| wrap_line(&Line::raw(format!("  {l}")), usize::from(body.width), 4))
        .collect();
    let height = usize::from(body.height);
    let max = rows.len().saturating_sub(height);
    review.result_max_scroll.set(max);
    let offset = review.result_scroll.min(max);
    let mut spans = vec![Span::styled("Applied:", theme.title)];
    if max > 0 {
        spans.push(Span::styled(
            format!(
                "  rows {}–{} of {} · ↑↓ PgUp/PgDn Home/End scroll",
                offset + 1,
                (offset + height).min(rows.len()),
                rows.len()
            ),
            theme.muted,
        ));
    }
    frame.render_widget(
        Paragraph::new(cut_line(Line::from(spans), usize::from(head.width))),
        head,
    );
    let shown: Vec<Line> = rows.into_iter().skip(offset).take(height).collect();
    frame.render_widget(Paragraph::new(shown), body);
}

/// Rows for the list (files, then a heading and the inbox notes).
pub fn list_height(review: &Review, area_height: u16) -> usize {
    let max = usize::from(area_height / 2).max(3);
    let heading = usize::from(!review.sources.is_empty());
    (review.row_count() + heading).clamp(1, max)
}

pub fn draw(frame: &mut Frame, area: Rect, review: &Review, focused: bool, theme: &Theme) {
    if let Some(result) = &review.result {
        draw_result(frame, area, review, result, theme);
        return;
    }
    let list_h = list_height(review, area.height);
    let [head, list, detail] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(list_h as u16),
        Constraint::Fill(1),
    ])
    .areas(area);
    let accepted = review.blocks.iter().filter(|b| b.accepted).count();
    let summary = Line::styled(
        format!(
            "{} proposed, {accepted} accepted{}",
            review.blocks.len(),
            match (review.sources.is_empty(), review.notes_too_large_to_stamp()) {
                (true, _) => String::new(),
                (false, 0) => " · [x] notes get archived".into(),
                // Said here too: the note's own row may be out of view.
                (false, n) => format!(" · [x] notes get archived; {} stay: stamp too large", n),
            }
        ),
        theme.muted,
    );
    frame.render_widget(
        Paragraph::new(cut_line(summary, usize::from(head.width))),
        head,
    );
    if review.blocks.is_empty() {
        frame.render_widget(
            Paragraph::new(Line::styled(
                "The reply proposes no files (no ### FILE: blocks).",
                theme.muted,
            )),
            list,
        );
        return;
    }
    let selection = if focused {
        theme.selection
    } else {
        theme.selection_unfocused
    };
    // Keep the selected block in view whatever height the cursor assumed.
    let selected = review.cursor.selected;
    let offset = review
        .cursor
        .offset
        .min(selected)
        .max((selected + 1).saturating_sub(list_h));
    let mut all: Vec<Line> = review
        .blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mark = match (&b.proposal, b.accepted) {
                (Proposal::Rejected(_), _) => "[-]",
                (_, true) => "[x]",
                (_, false) => "[ ]",
            };
            let style = match b.proposal {
                Proposal::Rejected(_) => theme.error,
                Proposal::New => theme.info,
                Proposal::Changed => theme.warning,
                Proposal::Unchanged => theme.muted,
            };
            let mut spans = vec![
                Span::raw(format!("{mark} ")),
                Span::styled(format!("{:<9} ", b.proposal.label()), style),
                Span::styled(b.path.clone(), theme.text),
            ];
            if let Proposal::Rejected(reason) = &b.proposal {
                spans.push(Span::styled(format!(" — {reason}"), theme.muted));
            }
            let line = cut_line(Line::from(spans), usize::from(list.width));
            if i == review.cursor.selected {
                highlight_row(line, list.width, selection)
            } else {
                line
            }
        })
        .collect();
    // The inbox notes, each with what archiving would stamp on it.
    for (k, src) in review.sources.iter().enumerate() {
        let to = review.compiled_to(&src.path);
        let (mark, what, style) = if src.keep {
            ("[ ]", "keep".to_owned(), theme.muted)
        } else if to.is_empty() {
            ("[-]", "stays (no file for it)".to_owned(), theme.muted)
        } else if let Some(why) = review.stamp_too_large(src) {
            ("[-]", format!("stays: {why}"), theme.warning)
        } else {
            (
                "[x]",
                format!("archive → compiled_to {}", to.join(", ")),
                theme.info,
            )
        };
        let line = Line::from(vec![
            Span::raw(format!("{mark} ")),
            Span::styled(
                format!("inbox {} ", sanitize_for_terminal(&src.path, false)),
                theme.text,
            ),
            Span::styled(what, style),
        ]);
        let line = cut_line(line, usize::from(list.width));
        all.push(if review.blocks.len() + k == review.cursor.selected {
            highlight_row(line, list.width, selection)
        } else {
            line
        });
    }
    let rows: Vec<Line> = all.into_iter().skip(offset).take(list_h).collect();
    frame.render_widget(Paragraph::new(rows), list);
    let mut lines: Vec<Line> = review
        .warnings
        .iter()
        .map(|w| Line::styled(format!("warning: {w}"), theme.warning))
        .collect();
    if !review.prose.is_empty() {
        lines.push(Line::styled("the model wrote:", theme.muted));
        lines.extend(
            review
                .prose
                .iter()
                .take(3)
                .map(|l| Line::styled(format!("  {l}"), theme.quote)),
        );
    }
    let Some(block) = review.blocks.get(review.cursor.selected) else {
        lines.push(Line::styled(
            "Space keeps this note in the inbox (or archives it again): a kept note \
             is not stamped with the files of other notes.",
            theme.muted,
        ));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail);
        return;
    };
    lines.extend(
        block
            .warnings
            .iter()
            .filter(|w| !review.warnings.contains(w))
            .map(|w| Line::styled(format!("warning: {w}"), theme.warning)),
    );
    lines.extend(
        block
            .detail
            .iter()
            .skip(review.detail_scroll)
            .take(usize::from(detail.height))
            .map(|l| {
                let style = match &block.proposal {
                    Proposal::Rejected(_) => theme.error,
                    Proposal::Changed if l.starts_with('+') => theme.info,
                    Proposal::Changed if l.starts_with('-') => theme.error,
                    Proposal::Changed if l.starts_with("@@") => theme.muted,
                    _ => theme.text,
                };
                Line::styled(l.clone(), style)
            }),
    );
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), detail);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The count the write's question gives is the notes marked `[x]`: one
    /// no accepted file names stays, and so does one whose files were all
    /// declined.
    #[test]
    fn the_notes_to_archive_are_those_an_accepted_file_names() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["00_INBOX", "03_DOMAINS"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let (alpha, beta) = ("00_INBOX/alpha.md", "00_INBOX/beta.md");
        let reply = format!(
            "### FILE: 03_DOMAINS/Alpha.md\n---\ncompiled_from: [\"{alpha}\"]\n---\nA\n\
             ### FILE: 03_DOMAINS/Alpha2.md\n---\ncompiled_from: [\"{alpha}\"]\n---\nB\n"
        );
        let purpose = Purpose::Compile {
            sources: vec![alpha.to_owned(), beta.to_owned()],
            sent: Vec::new(),
            clock: crate::tui::TESTS_CLOCK,
        };
        let mut review = Review::new(root, &reply, purpose);
        assert_eq!(review.blocks.len(), 2);
        assert_eq!(review.notes_to_archive(), 1, "beta has no file");
        for b in &mut review.blocks {
            b.accepted = false;
        }
        assert_eq!(review.notes_to_archive(), 0, "alpha's files are declined");
    }

    /// A note named by so many accepted files that its stamp would not
    /// fit the frontmatter bound is said to stay before the write, not
    /// counted among the notes archived; declining files can make it fit.
    #[test]
    fn a_note_whose_stamp_would_be_too_large_is_said_to_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["00_INBOX", "03_DOMAINS"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        let alpha = "00_INBOX/alpha.md";
        let note = "---\ntitle: Alpha\n---\nNotes.\n";
        std::fs::write(root.join(alpha), note).unwrap();
        let mut reply = String::new();
        for i in 0..1500 {
            reply.push_str(&format!(
                "### FILE: 03_DOMAINS/A topic with a fairly long name {i:04}.md\n---\n\
                 compiled_from: [\"{alpha}\"]\n---\nA\n"
            ));
        }
        let purpose = Purpose::Compile {
            sources: vec![alpha.to_owned()],
            sent: vec![SentNote {
                path: alpha.to_owned(),
                text: note.to_owned(),
            }],
            clock: crate::tui::TESTS_CLOCK,
        };
        let mut review = Review::new(root, &reply, purpose);
        assert_eq!(review.accepted(), 1500);
        assert_eq!(review.notes_to_archive(), 0);
        assert_eq!(review.notes_too_large_to_stamp(), 1);
        let why = review.stamp_too_large(&review.sources[0]).unwrap();
        assert!(why.contains("would list 1500 files"), "{why}");
        assert!(why.contains("stays in the inbox"), "{why}");
        // What applying does agrees: the files are written, the note stays
        // unstamped, and the result says why in the same words.
        let mut fewer = Review::new(root, &reply, review.purpose.clone());
        for b in fewer.blocks.iter_mut().skip(10) {
            b.accepted = false;
        }
        assert_eq!(fewer.notes_to_archive(), 1, "ten paths fit");
        review.apply(root);
        let result = review.result.clone().unwrap().join("\n");
        assert!(result.contains("would list 1500 files"), "{result}");
        assert!(!result.contains("not valid YAML"), "{result}");
        assert!(root.join(alpha).exists());
    }

    /// A distilled note only creates: a file that appears at its path
    /// while the review is open (or was there already) is never replaced,
    /// whether the watcher or the write finds it first.
    #[test]
    fn a_distilled_note_never_replaces_a_file_that_appeared_at_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("00_INBOX")).unwrap();
        let reply = "### FILE: 00_INBOX/distilled.md\nfrom the model\n";
        let mut review = Review::new(root, reply, Purpose::Write);
        review.journal_label = Some(DISTILL);
        review.creating_only();
        assert_eq!(review.blocks[0].proposal, Proposal::New);
        std::fs::write(root.join("00_INBOX/distilled.md"), "MINE\n").unwrap();
        // The watcher's news first.
        assert!(review.refresh_diffs(root));
        assert!(matches!(review.blocks[0].proposal, Proposal::Rejected(_)));
        assert!(!review.blocks[0].accepted);
        assert_eq!(review.journal_label, Some(DISTILL));
        let applied = review.apply(root);
        assert_eq!(applied.written, 0);
        let mine = std::fs::read_to_string(root.join("00_INBOX/distilled.md")).unwrap();
        assert_eq!(mine, "MINE\n");
        // A file already there when the reply came: refused from the start.
        let mut again = Review::new(root, reply, Purpose::Write);
        again.creating_only();
        assert!(matches!(again.blocks[0].proposal, Proposal::Rejected(_)));
    }

    #[test]
    fn a_file_edited_after_its_diff_was_shown_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("01_CLIENTS")).unwrap();
        std::fs::write(root.join("01_CLIENTS/Acme.md"), "old\n").unwrap();
        let reply = "### FILE: 01_CLIENTS/Acme.md\nfrom the model\n";
        let mut review = Review::new(root, reply, Purpose::Write);
        assert_eq!(review.blocks[0].proposal, Proposal::Changed);
        // The user edits the file while the review is open.
        std::fs::write(root.join("01_CLIENTS/Acme.md"), "edited by hand\n").unwrap();
        let applied = review.apply(root);
        assert_eq!(applied.written, 0);
        assert_eq!(applied.stale, vec!["01_CLIENTS/Acme.md"]);
        assert!(!review.is_applied());
        assert_eq!(
            std::fs::read_to_string(root.join("01_CLIENTS/Acme.md")).unwrap(),
            "edited by hand\n"
        );
        // The review now shows the diff against the edit, and asks again.
        assert!(
            review.blocks[0]
                .detail
                .iter()
                .any(|l| l == "-edited by hand")
        );
        assert!(review.warnings[0].contains("changed on disk"));
        let applied = review.apply(root);
        assert_eq!(applied.written, 1);
        assert_eq!(
            std::fs::read_to_string(root.join("01_CLIENTS/Acme.md")).unwrap(),
            "from the model\n"
        );
    }

    /// A file edited while its review is open gets a new diff at once,
    /// against the edit, and says so.
    #[test]
    fn the_diff_is_made_again_when_the_file_changes_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("01_CLIENTS")).unwrap();
        std::fs::write(root.join("01_CLIENTS/Acme.md"), "old\n").unwrap();
        let reply = "### FILE: 01_CLIENTS/Acme.md\nfrom the model\n";
        let mut review = Review::new(root, reply, Purpose::Write);
        assert!(!review.refresh_diffs(root), "nothing changed yet");
        assert!(review.warnings.is_empty());
        std::fs::write(root.join("01_CLIENTS/Acme.md"), "edited by hand\n").unwrap();
        assert!(review.refresh_diffs(root));
        assert!(
            review.blocks[0]
                .detail
                .iter()
                .any(|l| l == "-edited by hand"),
            "{:?}",
            review.blocks[0].detail
        );
        assert!(review.warnings[0].contains("changed on disk: 01_CLIENTS/Acme.md"));
        // What the user now sees is what is written.
        assert_eq!(review.apply(root).written, 1);
    }

    /// The result says "written" of the files written and "declined" of
    /// the ones the user declined.
    #[test]
    fn the_result_says_written_and_declined() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("01_CLIENTS")).unwrap();
        let reply = "### FILE: 01_CLIENTS/Kept.md\nyes\n### FILE: 01_CLIENTS/Skipped.md\nno\n";
        let mut review = Review::new(root, reply, Purpose::Write);
        review.cursor.selected = 1;
        assert!(review.toggle());
        assert_eq!(review.apply(root).written, 1);
        assert_eq!(
            review.result.as_deref().unwrap(),
            [
                "written    01_CLIENTS/Kept.md",
                "declined   01_CLIENTS/Skipped.md"
            ]
        );
        assert!(!root.join("01_CLIENTS/Skipped.md").exists());
    }

    #[test]
    fn an_agent_block_holding_a_credential_is_rejected_and_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("01_CLIENTS")).unwrap();
        let key = format!("sk-{}", "proj-Ab3dEf6hIj9kLm2nOp5qRs8t");
        let reply = format!("### FILE: 01_CLIENTS/Acme.md\n# Acme\nKey: {key}\n");
        let mut review = Review::new(root, &reply, Purpose::Write);
        let Proposal::Rejected(reason) = &review.blocks[0].proposal else {
            panic!("not rejected: {:?}", review.blocks[0].proposal);
        };
        assert!(
            reason.contains("an OpenAI-style secret key on line 2"),
            "{reason}"
        );
        assert!(!reason.contains(&key), "{reason}");
        assert_eq!(review.apply(root).written, 0);
        assert!(!root.join("01_CLIENTS/Acme.md").exists());
    }
}
