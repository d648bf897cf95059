//! The Bank pane: the memory's tree, expandable, with counts and a marker
//! on files and folders that have findings. A bank shows its seven folders
//! (the inbox with its archive, missing folders dimmed), each nesting its
//! files by their real folders; any other layout shows its documents nested
//! by their groups. Both use the one tree model in `groups.rs`.

use crate::tui::drop_later::drop_later;
use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use membank_core::bank::Bank;
use membank_core::layout::{ARCHIVE_DIR, Folder};
use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::cursor::Cursor;
use super::groups::{FolderTreeBuilder, GroupTree, folder_key};
use super::health::Flagged;
use super::{Component, Cx, hint_text, page};
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::{cut, cut_line};

/// Columns `<` and `>` take from or give to the tree pane.
const TREE_WIDTH_STEP: i16 = 4;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowKind {
    /// A folder; the key is its path relative to the bank.
    Folder { key: String, expanded: bool },
    /// A file; `rel` is its path relative to the bank, shared with the
    /// files grouped for the tree.
    File { rel: Arc<str> },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    pub depth: u8,
    /// What the row shows, shared with the tree it was laid out from;
    /// `None` for a file shown by its name, taken from its path when drawn
    /// (a large bank's tree has 100,000 rows, most of them such files).
    /// [`TreeRow::label`] reads either.
    pub text: Option<Arc<str>>,
    pub count: Option<u32>,
    pub kind: RowKind,
    /// The file has health findings.
    pub flagged: bool,
    /// Shown dimmed (a folder the bank lacks).
    pub muted: bool,
    /// A lifecycle word shown before the label (`superseded`, `archived`).
    pub badge: Option<Box<str>>,
    /// Never sent to a model; marked as private.
    pub private: bool,
}

impl TreeRow {
    /// What the row shows: its text, or a file's name without `.md`.
    pub fn label(&self) -> Cow<'_, str> {
        match (&self.text, &self.kind) {
            (Some(text), _) => Cow::Borrowed(text),
            (None, RowKind::File { rel }) => Cow::Owned(file_label(rel)),
            (None, RowKind::Folder { .. }) => Cow::Borrowed(""),
        }
    }
}

#[derive(Debug, Default)]
pub struct BankPane {
    pub rows: Vec<TreeRow>,
    pub cursor: Cursor,
    expanded: BTreeSet<String>,
    /// The bank's files grouped and sorted, kept until the bank changes so
    /// that folding and unfolding do not sort again.
    grouped: Option<Grouped>,
    /// The rows of `grouped`, laid out where the bank was read.
    laid_out: Option<LaidOut>,
    /// A bank's files as its walk found them, shown until it is read.
    listed: Option<Grouped>,
    /// The tree the rows are laid out from: a bank's files nested by their
    /// folders (built from `grouped`), or any other layout's documents
    /// nested by their groups.
    tree: Option<GroupTree>,
    /// The folders of a non-bank tree have been opened to their start depth.
    opened: bool,
    /// How a bank's files are ordered in their folders.
    pub sort: TreeSort,
    /// The order asked for whose grouping a worker is still making (at
    /// 100,000 files it takes longer than a key should wait).
    sorting: Option<TreeSort>,
    /// Tells the latest request for an order from those it replaced.
    sort_generation: u64,
    /// The pane's name: what the layout holds ("Bank", "Project", "Memory").
    pub name: &'static str,
}

/// The orders of a bank's files within a folder (`s` cycles them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TreeSort {
    /// Natural order of names.
    #[default]
    Name,
    /// Newest `last_updated` first; undated last.
    Date,
    /// Files with health findings first.
    Findings,
}

impl TreeSort {
    fn next(self) -> TreeSort {
        match self {
            TreeSort::Name => TreeSort::Date,
            TreeSort::Date => TreeSort::Findings,
            TreeSort::Findings => TreeSort::Name,
        }
    }

    pub fn word(self) -> &'static str {
        match self {
            TreeSort::Name => "name",
            TreeSort::Date => "date",
            TreeSort::Findings => "findings",
        }
    }
}

/// Why a skipped file is shown dimmed, in a few words.
fn skip_words(reason: membank_core::layout::SkipReason) -> &'static str {
    match reason {
        membank_core::layout::SkipReason::Example => "unused example",
        membank_core::layout::SkipReason::Reserved => "skipped: _ name",
        membank_core::layout::SkipReason::NotUnicode => "skipped: name not Unicode",
    }
}

/// When a bank has no content articles but `_EXAMPLE_` files (a starter
/// skeleton), what to say and how to start.
pub fn starter_note(bank: &Bank) -> Option<String> {
    let content = bank.articles().iter().any(|a| a.folder.is_content());
    let examples = bank
        .skipped
        .iter()
        .filter(|s| s.reason == membank_core::layout::SkipReason::Example)
        .count();
    let (shows, is) = if examples == 1 {
        ("it shows", "is")
    } else {
        ("they show", "are")
    };
    (!content && examples > 0).then(|| {
        format!(
            "This bank has only {}: {shows} the format and {is} never \
             used as content. To start, copy one (e.g. 01_CLIENTS/_EXAMPLE_Client_Profile.md) to a \
             name without the _EXAMPLE_ prefix and fill it in, or put notes in 00_INBOX/ for \
             Process Inbox. `membank init DIR --demo` makes a bank with sample content.",
            crate::plural::count(examples, "_EXAMPLE_ file"),
        )
    })
}

/// Files grouped for display: folder → (direct files, archived files).
/// The tree's rows share these paths: a large bank has 100,000 of them.
pub type Grouped = BTreeMap<Folder, (Vec<Arc<str>>, Vec<Arc<str>>)>;

/// Pure over the bank and its flagged files, so a worker can build it
/// before the bank is shown.
pub fn group_files(bank: &Bank, sort: TreeSort, flagged: &Flagged) -> Grouped {
    let mut files: BTreeSet<&str> = BTreeSet::new();
    files.extend(bank.articles().iter().map(|a| a.rel_path.as_str()));
    files.extend(bank.templates.iter().map(String::as_str));
    files.extend(bank.problems.iter().map(|p| p.path.as_str()));
    files.extend(bank.skipped.iter().map(|s| s.path.as_str()));
    // A file with findings is grouped under the findings' copy of its
    // path: most files of a large bank have one, and the interface keeps
    // the findings anyway.
    let shared = |rel: &str| flagged.get(rel).cloned().unwrap_or_else(|| Arc::from(rel));
    let mut grouped = group_paths(files.into_iter().map(shared));
    // Dates are read once per sort, not per comparison.
    let date = |rel: &str| {
        bank.find(rel)
            .and_then(|id| bank.article(id).meta.last_updated_date)
    };
    for (files, archived) in grouped.values_mut() {
        for list in [files, archived] {
            list.sort_by(natural_order);
            match sort {
                TreeSort::Name => {}
                TreeSort::Date => {
                    let mut keyed: Vec<_> = list.drain(..).map(|r| (date(&r), r)).collect();
                    // Newest first, undated last; names keep their order.
                    membank_core::shared_sort::sort_by(&mut keyed, |(x, _), (y, _)| y.cmp(x));
                    list.extend(keyed.into_iter().map(|(_, r)| r));
                }
                TreeSort::Findings => {
                    membank_core::shared_sort::sort_by_key(list, |r| !flagged.contains(&**r))
                }
            }
            // Kept until the bank changes: grown by doubling, 100,000
            // paths would hold room for as many again.
            list.shrink_to_fit();
        }
    }
    grouped
}

/// Sorted by date, each file shows the date it is sorted by (its
/// `last_updated`) before its `label` (its name when none), so the order
/// can be read.
fn dated_label(bank: &Bank, rel: &str, label: Option<String>) -> String {
    let name = label.unwrap_or_else(|| file_label(rel));
    let date = bank
        .find(rel)
        .and_then(|id| bank.article(id).meta.last_updated_date);
    match date {
        Some(date) => format!("{date}  {name}"),
        None => format!("{:<10}  {name}", "no date"),
    }
}

/// Paths grouped by numbered folder, the inbox's archive apart, in the
/// order given; paths outside the numbered folders are left out.
fn group_paths(paths: impl Iterator<Item = Arc<str>>) -> Grouped {
    let archive_prefix = format!("{}/{ARCHIVE_DIR}/", Folder::Inbox.dir_name());
    let mut grouped: Grouped = BTreeMap::new();
    for rel in paths {
        let Some(folder) = rel.split('/').next().and_then(Folder::from_dir_name) else {
            continue;
        };
        let entry = grouped.entry(folder).or_default();
        if rel.starts_with(&archive_prefix) {
            entry.1.push(rel);
        } else {
            entry.0.push(rel);
        }
    }
    grouped
}

/// The files a bank's walk found, grouped in the order of their names:
/// the tree shown while they are read.
pub fn group_listing(paths: Vec<String>) -> Grouped {
    let mut grouped = group_paths(paths.into_iter().map(Arc::from));
    for (files, archived) in grouped.values_mut() {
        files.sort_by(natural_order);
        archived.sort_by(natural_order);
    }
    grouped
}

/// [`natural_cmp`] of two listed paths: one function, so the listings
/// share one copy of the sorting code rather than one per closure.
fn natural_order(a: &Arc<str>, b: &Arc<str>) -> Ordering {
    natural_cmp(a, b)
}

/// The order people expect for names: letters without regard to case,
/// runs of digits by their value ("liability 4209" before "liability
/// 41989"), and the byte order only to break ties.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.chars().peekable(), b.chars().peekable());
    loop {
        match (x.peek().copied(), y.peek().copied()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let run = |it: &mut std::iter::Peekable<std::str::Chars>| {
                    let mut digits = String::new();
                    while let Some(c) = it.peek().copied().filter(char::is_ascii_digit) {
                        digits.push(c);
                        it.next();
                    }
                    digits
                };
                let (m, n) = (run(&mut x), run(&mut y));
                let (m_value, n_value) = (m.trim_start_matches('0'), n.trim_start_matches('0'));
                let by_value = m_value
                    .len()
                    .cmp(&n_value.len())
                    .then_with(|| m_value.cmp(n_value));
                if by_value != Ordering::Equal {
                    return by_value;
                }
            }
            (Some(c), Some(d)) => {
                let by_letter = c.to_lowercase().cmp(d.to_lowercase());
                if by_letter != Ordering::Equal {
                    return by_letter;
                }
                x.next();
                y.next();
            }
        }
    }
}

/// A file's name without its folders or `.md`, as the tree shows it.
fn file_label(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let name = name
        .strip_suffix(".md")
        .or_else(|| name.strip_suffix(".MD"))
        .unwrap_or(name);
    sanitize_for_terminal(name, false)
}

impl BankPane {
    pub fn new() -> BankPane {
        BankPane {
            rows: Vec::new(),
            cursor: Cursor::default(),
            // Content folders start open: that is what people browse.
            expanded: Folder::CONTENT
                .iter()
                .map(|f| f.dir_name().to_owned())
                .collect(),
            grouped: None,
            laid_out: None,
            listed: None,
            tree: None,
            opened: false,
            sort: TreeSort::Name,
            sorting: None,
            sort_generation: 0,
            name: "Bank",
        }
    }

    /// The memory's files changed: group them again on the next rebuild.
    pub fn files_changed(&mut self) {
        // A grouping still being made is of the files before: the order
        // asked for is taken now and the next rebuild groups in it.
        if let Some(sort) = self.sorting.take() {
            self.sort = sort;
            self.sort_generation += 1;
        }
        drop_later((
            self.grouped.take(),
            self.laid_out.take(),
            self.listed.take(),
            self.tree.take(),
        ));
    }

    /// The files changed and were grouped elsewhere in `sort`'s order: use
    /// that grouping unless the order was changed meanwhile.
    pub fn files_changed_grouped(
        &mut self,
        grouped: Grouped,
        sort: TreeSort,
        laid_out: Option<LaidOut>,
    ) {
        self.files_changed();
        if sort == self.sort {
            self.grouped = Some(grouped);
            self.laid_out = laid_out;
        }
    }

    /// Rebuild the rows from the memory, keeping the selection on the same
    /// folder or file when it still exists.
    pub fn rebuild(&mut self, memory: &dyn Memory, flagged: &Flagged, height: usize) {
        let keep = self.selected_key();
        // The walk's files until the bank that was read replaces them.
        if let Some(listed) = &self.listed {
            let rows = match self.laid_out.take() {
                Some(ready) if ready.expanded == self.expanded => ready.rows,
                _ => bank_rows(None, listed, &self.expanded, flagged),
            };
            drop_later(std::mem::replace(&mut self.rows, rows));
        } else {
            self.rebuild_from(memory, flagged);
        }
        if let Some(key) = keep
            && let Some(i) = self.rows.iter().position(|r| row_key(r) == key)
        {
            self.cursor.selected = i;
        }
        self.cursor.clamp(self.rows.len(), height);
    }

    fn rebuild_from(&mut self, memory: &dyn Memory, flagged: &Flagged) {
        match crate::layouts::bank(memory) {
            Some(bank) => {
                let rows = self.bank_rows(bank, flagged);
                drop_later(std::mem::replace(&mut self.rows, rows));
            }
            None => {
                let tree = self.tree.take().unwrap_or_else(|| GroupTree::build(memory));
                if !self.opened && !tree.is_empty() {
                    self.expanded = tree.initially_open();
                    self.opened = true;
                }
                self.rows = tree.rows(&self.expanded, flagged);
                self.tree = Some(tree);
            }
        }
    }

    /// The seven folders of a bank, the inbox with its archive.
    fn bank_rows(&mut self, bank: &Bank, flagged: &Flagged) -> Vec<TreeRow> {
        let grouped = self
            .grouped
            .take()
            .unwrap_or_else(|| group_files(bank, self.sort, flagged));
        let rows = match self.laid_out.take() {
            // Laid out elsewhere with their dates when sorted by date.
            Some(ready) if ready.expanded == self.expanded => ready.rows,
            // Folding lays out the kept tree again; it is built once per
            // grouping, which matters in a bank of 100,000 files.
            _ => {
                let sort = self.sort;
                self.tree
                    .get_or_insert_with(|| bank_tree(Some(bank), &grouped, sort))
                    .rows(&self.expanded, flagged)
            }
        };
        self.grouped = Some(grouped);
        rows
    }

    /// Show a bank's files as its walk found them, while they are read.
    pub fn show_listing(&mut self, tree: ListedTree, memory: &dyn Memory, height: usize) {
        self.listed = Some(tree.grouped);
        self.laid_out = Some(tree.laid_out);
        self.rebuild(memory, &HashSet::new(), height);
    }

    /// An order's grouping arrived from its worker: shown when it is the
    /// latest asked for and the files have not changed since. Returns the
    /// order shown.
    pub fn sorted(
        &mut self,
        sorted: SortedTree,
        memory: &dyn Memory,
        flagged: &Flagged,
        height: usize,
    ) -> Option<TreeSort> {
        if sorted.generation != self.sort_generation || self.sorting != Some(sorted.sort) {
            drop_later(sorted);
            return None;
        }
        self.sorting = None;
        self.sort = sorted.sort;
        drop_later((
            self.grouped.replace(sorted.grouped),
            self.laid_out.replace(sorted.laid_out),
            self.tree.replace(sorted.tree),
        ));
        self.rebuild(memory, flagged, height);
        Some(self.sort)
    }

    /// What a new bank's tree shows, as it was when the bank was read.
    pub fn expanded(&self) -> &BTreeSet<String> {
        &self.expanded
    }

    pub fn selected(&self) -> Option<&TreeRow> {
        self.rows.get(self.cursor.selected)
    }
}

/// A bank's files as its walk found them, grouped and laid out away from
/// the interface's thread (sorting 100,000 names takes a tenth of a second).
#[derive(Debug)]
pub struct ListedTree {
    pub files: usize,
    pub grouped: Grouped,
    pub laid_out: LaidOut,
}

impl ListedTree {
    pub fn of(paths: Vec<String>, expanded: &BTreeSet<String>) -> ListedTree {
        let files = paths.len();
        let grouped = group_listing(paths);
        let rows = bank_rows(None, &grouped, expanded, &HashSet::new());
        ListedTree {
            files,
            grouped,
            laid_out: LaidOut {
                expanded: expanded.clone(),
                rows,
            },
        }
    }
}

/// A bank's files grouped in another order on a worker, with the rows of
/// the folders open when it was asked for.
#[derive(Debug)]
pub struct SortedTree {
    pub sort: TreeSort,
    pub generation: u64,
    pub grouped: Grouped,
    pub laid_out: LaidOut,
    /// What the rows were laid out from: folding lays it out again.
    tree: GroupTree,
}

impl SortedTree {
    /// What the worker makes: pure over the bank and its flagged files.
    pub fn of(
        bank: &Bank,
        sort: TreeSort,
        generation: u64,
        flagged: &Flagged,
        expanded: BTreeSet<String>,
    ) -> SortedTree {
        let grouped = group_files(bank, sort, flagged);
        let tree = bank_tree(Some(bank), &grouped, sort);
        let rows = tree.rows(&expanded, flagged);
        SortedTree {
            sort,
            generation,
            grouped,
            laid_out: LaidOut { expanded, rows },
            tree,
        }
    }
}

/// The rows of a bank's `grouped` files, dated when sorted by date.
pub fn lay_out(
    bank: &Bank,
    grouped: &Grouped,
    sort: TreeSort,
    expanded: BTreeSet<String>,
    flagged: &Flagged,
) -> LaidOut {
    let rows = bank_tree(Some(bank), grouped, sort).rows(&expanded, flagged);
    LaidOut { expanded, rows }
}

/// A bank's rows laid out on the thread that read it, for the folders that
/// were open then.
#[derive(Debug)]
pub struct LaidOut {
    pub expanded: BTreeSet<String>,
    pub rows: Vec<TreeRow>,
}

/// The rows of a bank's seven folders, each nesting its files by their
/// real folders, the inbox with its archive first, with the folders in
/// `open_folders` open.
pub fn bank_rows(
    bank: Option<&Bank>,
    grouped: &Grouped,
    open_folders: &BTreeSet<String>,
    flagged: &Flagged,
) -> Vec<TreeRow> {
    bank_tree(bank, grouped, TreeSort::Name).rows(open_folders, flagged)
}

/// A bank's seven folders, the inbox with its archive, each nesting its
/// files by their real folders in the order `grouped` gives; sorted by
/// `sort`, which for dates shows each file's date before its name.
fn bank_tree(bank: Option<&Bank>, grouped: &Grouped, sort: TreeSort) -> GroupTree {
    // A bank still being read knows only its files' paths.
    let skipped: std::collections::HashMap<&str, &'static str> = bank
        .map(|b| b.skipped.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|s| (s.path.as_str(), skip_words(s.reason)))
        .collect();
    let mut tree = FolderTreeBuilder::default();
    for folder in Folder::ALL {
        let missing = bank.is_some_and(|b| b.missing_folders.contains(&folder));
        let name = folder.dir_name();
        tree.folder(&[name], missing, false);
        if folder == Folder::Inbox {
            tree.folder(&[name, ARCHIVE_DIR], false, true);
        }
        let (files, archived) = grouped
            .get(&folder)
            .map(|(a, b)| (a.as_slice(), b.as_slice()))
            .unwrap_or((&[], &[]));
        for rel in archived.iter().chain(files) {
            let skip = skipped.get(&**rel);
            // The reason first, so a narrow tree still shows it; a file
            // shown by its name has it taken from its path when drawn.
            let label = skip.map(|why| format!("({why}) {}", file_label(rel)));
            let label = match bank.filter(|_| sort == TreeSort::Date) {
                Some(bank) => Some(dated_label(bank, rel, label)),
                None => label,
            };
            tree.file(rel, label, skip.is_some());
        }
    }
    tree.finish()
}

impl BankPane {
    fn selected_key(&self) -> Option<String> {
        self.selected().map(|r| row_key(r).to_owned())
    }

    /// Open or close the selected folder. Returns whether anything changed.
    pub fn set_expanded(&mut self, open: bool) -> bool {
        let Some(RowKind::Folder { key, expanded }) = self.selected().map(|r| r.kind.clone())
        else {
            return false;
        };
        if expanded == open {
            return false;
        }
        if open {
            self.expanded.insert(key);
        } else {
            self.expanded.remove(&key);
        }
        true
    }

    /// Select the row of file `rel`, opening its folders if needed.
    pub fn reveal(&mut self, rel: &str, memory: &dyn Memory, flagged: &Flagged, height: usize) {
        if crate::layouts::bank(memory).is_some() || self.listed.is_some() {
            let mut parts: Vec<&str> = rel.split('/').collect();
            parts.pop();
            for i in 1..=parts.len() {
                self.expanded.insert(parts[..i].join("/"));
            }
        } else if let Some(id) = memory.find(rel) {
            let groups = memory.document(id).groups;
            for i in 1..=groups.len() {
                self.expanded.insert(folder_key(&groups[..i]));
            }
        }
        self.rebuild(memory, flagged, height);
        if let Some(i) = self
            .rows
            .iter()
            .position(|r| matches!(&r.kind, RowKind::File { rel: r } if **r == *rel))
        {
            self.cursor.select(i, self.rows.len(), height);
        }
    }

    /// The selected row's parent folder row, for collapsing from a file.
    pub fn select_parent(&mut self, height: usize) -> bool {
        let Some(row) = self.selected() else {
            return false;
        };
        let depth = row.depth;
        if depth == 0 {
            return false;
        }
        let at = self.cursor.selected;
        if let Some(i) = (0..at).rev().find(|&i| self.rows[i].depth < depth) {
            self.cursor.select(i, self.rows.len(), height);
            return true;
        }
        false
    }
}

fn row_key(r: &TreeRow) -> &str {
    match &r.kind {
        RowKind::Folder { key, .. } => key,
        RowKind::File { rel } => rel.as_ref(),
    }
}

pub fn draw(frame: &mut Frame, area: Rect, pane: &BankPane, focused: bool, theme: &Theme) {
    let height = usize::from(area.height);
    let lines: Vec<Line> = pane
        .rows
        .iter()
        .enumerate()
        .skip(pane.cursor.offset)
        .take(height)
        .map(|(i, row)| {
            let indent = "  ".repeat(usize::from(row.depth));
            let mut spans = vec![Span::raw(indent)];
            let label_style = match &row.kind {
                RowKind::Folder { expanded, .. } => {
                    spans.push(Span::styled(
                        if *expanded { "▾ " } else { "▸ " },
                        theme.muted,
                    ));
                    if row.muted { theme.muted } else { theme.folder }
                }
                RowKind::File { .. } => {
                    // Badges first, so a narrow tree still shows them.
                    if let Some(badge) = &row.badge {
                        spans.push(Span::styled(format!("[{badge}] "), theme.warning));
                    }
                    if row.private {
                        spans.push(Span::styled("[private] ", theme.error));
                    }
                    if row.muted { theme.muted } else { theme.text }
                }
            };
            let mut after = Vec::new();
            if let Some(n) = row.count {
                after.push(Span::styled(format!(" {n}"), theme.muted));
            }
            if row.flagged {
                after.push(Span::styled(" !", theme.marker));
            }
            // A long name gives way, not the count or the finding mark.
            let taken: usize = spans.iter().chain(&after).map(Span::width).sum();
            let room = usize::from(area.width).saturating_sub(taken);
            spans.push(Span::styled(
                cut(&row.label(), room).into_owned(),
                label_style,
            ));
            spans.extend(after);
            let line = cut_line(Line::from(spans), usize::from(area.width));
            if i == pane.cursor.selected {
                let style = if focused {
                    theme.selection
                } else {
                    theme.selection_unfocused
                };
                super::highlight_row(line, area.width, style)
            } else {
                line
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

impl BankPane {
    fn selected_file(&self) -> Option<String> {
        match self.selected().map(|r| &r.kind) {
            Some(RowKind::File { rel }) => Some(rel.to_string()),
            _ => None,
        }
    }
}

impl Component for BankPane {
    fn scope(&self) -> Scope {
        Scope::Bank
    }

    fn title(&self) -> String {
        match self.sort {
            TreeSort::Name => self.name.to_owned(),
            other => format!("{} — by {}", self.name, other.word()),
        }
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let h = cx.height;
        let len = self.rows.len();
        let selected_file = self.selected_file();
        match action {
            Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom => {
                match action {
                    Action::Up => self.cursor.move_by(-1, len, h),
                    Action::Down => self.cursor.move_by(1, len, h),
                    Action::PageUp => self.cursor.move_by(-page(h), len, h),
                    Action::PageDown => self.cursor.move_by(page(h), len, h),
                    Action::Top => self.cursor.to_top(),
                    _ => self.cursor.to_bottom(len, h),
                }
                // The Article pane follows the tree when both are shown.
                if let Some(rel) = self.selected_file() {
                    cx.effects.push(Effect::Preview(rel));
                }
            }
            Action::SortTree if crate::layouts::bank(cx.memory).is_some() => {
                // Grouped on a worker: the tree keeps its order until the
                // new one arrives (see `BankPane::sorted`).
                let sort = self.sorting.unwrap_or(self.sort).next();
                self.sorting = Some(sort);
                self.sort_generation += 1;
                cx.effects.push(Effect::SortTree {
                    sort,
                    generation: self.sort_generation,
                });
                cx.info(format!("sorting the tree by {}…", sort.word()));
            }
            Action::Expand | Action::Collapse => {
                let open = action == Action::Expand;
                if self.set_expanded(open) {
                    self.rebuild(cx.memory, cx.flagged, h);
                } else if !open {
                    return self.select_parent(h);
                } else if let Some(rel) = selected_file {
                    cx.effects.push(Effect::open(rel));
                } else {
                    return false;
                }
            }
            Action::Open => match selected_file {
                Some(rel) => cx.effects.push(Effect::open(rel)),
                None => {
                    let open = !matches!(
                        self.selected().map(|r| &r.kind),
                        Some(RowKind::Folder { expanded: true, .. })
                    );
                    self.set_expanded(open);
                    self.rebuild(cx.memory, cx.flagged, h);
                }
            },
            Action::NarrowTree => cx.effects.push(Effect::ResizeTree(-TREE_WIDTH_STEP)),
            Action::WidenTree => cx.effects.push(Effect::ResizeTree(TREE_WIDTH_STEP)),
            Action::Edit | Action::CopyPath | Action::CopyLink if selected_file.is_none() => {
                // A folder: its path is worth copying when it is one of the
                // memory's; the rest needs a file, and a key that did
                // nothing would look broken.
                let folder = match self.selected().map(|r| &r.kind) {
                    Some(RowKind::Folder { key, .. }) => super::groups::folder_path(key),
                    _ => None,
                };
                match (action, folder) {
                    (Action::CopyPath, Some(path)) => return cx.copy_path(Some(path.to_owned())),
                    (Action::Edit, _) => cx.info("select a file in the tree to edit it"),
                    (Action::CopyPath, None) => {
                        cx.info("select a file in the tree to copy its path")
                    }
                    _ => cx.info("select a file in the tree to copy a link to it"),
                }
            }
            Action::Edit => return cx.edit(selected_file, None),
            Action::CopyPath => return cx.copy_path(selected_file),
            Action::CopyLink => return cx.copy_link(selected_file),
            _ => return false,
        }
        true
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        hint_text(
            keymap,
            &[
                (Action::Open, "open"),
                (Action::Expand, "expand"),
                (Action::SortTree, "sort"),
                (Action::Find, "find"),
                (Action::Rename, "rename"),
                (Action::NewArticle, "new"),
            ],
        )
    }

    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        draw(frame, area, self, focused, theme);
    }
}

#[cfg(test)]
mod natural_order_tests {
    use super::natural_cmp;

    #[test]
    fn numbers_sort_by_value_and_letters_ignore_case() {
        let mut names = vec![
            "liability 42137",
            "liability 4209",
            "Liability 41989",
            "liability 007",
            "alpha",
            "Beta",
            "liability 8",
        ];
        names.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            names,
            vec![
                "alpha",
                "Beta",
                "liability 007",
                "liability 8",
                "liability 4209",
                "Liability 41989",
                "liability 42137",
            ]
        );
    }
}
