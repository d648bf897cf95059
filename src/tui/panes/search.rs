//! The Search pane: ranked full-text search (the engine of `membank
//! search`) over any layout. Type a query, Enter searches; each hit shows
//! its file and line, its entry id when it is an entry, and the best line
//! with the matched words marked; Enter on a hit opens it there. It is an
//! everos root's Context slot and a popup everywhere else.

use membank_core::memory::{Memory, SearchHit};
use membank_core::search::SearchIndex;
use membank_core::text::sanitize_for_terminal;
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::cursor::Cursor;
use super::document::EntryAt;
use super::{Component, Cx, hint_text, page};
use crate::tui::drop_later::drop_later;
use crate::tui::keys::{Action, KeyMap, Scope};
use crate::tui::messages::Effect;
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_lines;
use crate::tui::widgets::line_input;

/// Hits asked of the engine per query.
const LIMIT: usize = 200;
/// Rows above the hits: the query and the count.
const HEADER: u16 = 2;
/// Rows below the hits for the note on how the search ranks, when there
/// is one.
const NOTE: u16 = 3;

/// A search index built off the interface thread, for the memory of
/// `generation`.
pub struct Indexed {
    pub generation: u64,
    pub index: SearchIndex,
}

impl std::fmt::Debug for Indexed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Indexed({} units)", self.index.len())
    }
}

#[derive(Default)]
pub struct SearchPane {
    pub query: String,
    pub typing: bool,
    /// Built in the background on the first search and dropped when the
    /// memory changes.
    index: Option<SearchIndex>,
    /// Which memory the index is for: a build started before the memory
    /// changed is dropped when it arrives.
    generation: u64,
    /// An index is being built for the current memory.
    indexing: bool,
    /// A search was asked for before the index was ready; it runs when
    /// the index arrives.
    waiting: bool,
    pub hits: Vec<SearchHit>,
    /// Two lines per hit, prepared after each search.
    rows: Vec<[Line<'static>; 2]>,
    /// The query the hits are for, and what to say above them.
    summary: String,
    pub cursor: Cursor,
    note: Option<&'static str>,
}

fn safe(s: &str) -> String {
    sanitize_for_terminal(s, false)
}

impl SearchPane {
    /// The memory changed: index it again on the next search.
    /// A search still waits for an index: the generation of the index to
    /// build for the new memory.
    pub fn memory_changed(&mut self, memory: &dyn Memory) -> Option<u64> {
        // An index of a large memory takes longer to free than a key waits.
        drop_later(self.index.take());
        self.generation += 1;
        self.note = memory.search_note();
        // A build under way is for the old memory; a waiting search needs
        // one for the new memory.
        self.indexing = self.waiting;
        self.waiting.then_some(self.generation)
    }

    /// Search for the query now, or once the index is built: indexing a
    /// large memory takes seconds, so it happens off the interface thread
    /// (the app applies `Effect::IndexSearch`).
    pub fn search(&mut self, cx: &mut Cx) {
        if self.index.is_some() || self.query.trim().is_empty() {
            self.waiting = false;
            self.run(cx.memory, cx.theme);
            if let Some(said) = self.outcome() {
                cx.info(said);
            }
            return;
        }
        self.waiting = true;
        self.summary = "indexing…".to_owned();
        if !self.indexing {
            self.indexing = true;
            cx.effects.push(Effect::IndexSearch {
                generation: self.generation,
            });
        }
    }

    /// An index built in the background arrived: keep it when it is for
    /// the memory open now, and run the search that waited for it. True
    /// when that search ran.
    pub fn indexed(&mut self, built: Indexed, memory: &dyn Memory, theme: &Theme) -> bool {
        if built.generation != self.generation {
            // Built for a memory since replaced; as large as the one kept.
            drop_later(built);
            return false;
        }
        self.indexing = false;
        self.index = Some(built.index);
        let waited = std::mem::take(&mut self.waiting);
        if waited {
            self.run(memory, theme);
        }
        waited
    }

    /// What the status line says of the last search: always its newest
    /// outcome, so an earlier "no hits" never outlives the hits found
    /// since. `None` with no query.
    pub fn outcome(&self) -> Option<String> {
        if self.query.trim().is_empty() {
            None
        } else if self.hits.is_empty() {
            Some("no hits".to_owned())
        } else {
            Some(self.summary.clone())
        }
    }

    /// Hits that fit in a pane of `height` rows.
    fn visible_hits(&self, height: usize) -> usize {
        let note = if self.note.is_some() { NOTE } else { 0 };
        (height.saturating_sub(usize::from(HEADER + note)) / 2).max(1)
    }

    /// Run the query over the memory with the index built for it.
    fn run(&mut self, memory: &dyn Memory, theme: &Theme) {
        self.hits = match &self.index {
            Some(index) if !self.query.trim().is_empty() => {
                index.search(memory, &self.query, LIMIT)
            }
            _ => Vec::new(),
        };
        self.summary = match self.hits.len() {
            _ if self.query.trim().is_empty() => String::new(),
            // Said apart from "no hits": no memory could match it.
            0 if SearchIndex::query_terms(&self.query).is_empty() => {
                format!("“{}” has no words to search for", safe(&self.query))
            }
            0 => format!("no hits for “{}”", safe(&self.query)),
            LIMIT => format!("best {LIMIT} hits for “{}”", safe(&self.query)),
            n => format!(
                "{n} hit{} for “{}”",
                if n == 1 { "" } else { "s" },
                safe(&self.query)
            ),
        };
        self.rows = self.hits.iter().map(|h| hit_lines(h, theme)).collect();
        self.cursor = Cursor::default();
    }

    fn selected_hit(&self) -> Option<&SearchHit> {
        self.hits.get(self.cursor.selected)
    }

    /// Open the selected hit: the entry it is in, or the file at its line.
    fn open_selected(&self, cx: &mut Cx) -> bool {
        let Some(hit) = self.selected_hit() else {
            return false;
        };
        cx.effects.push(match &hit.entry_id {
            Some(entry) => Effect::ShowEntry {
                rel: hit.path.clone(),
                // The hit's line is inside its entry: of several that
                // share an id, it opens the one the hit is in.
                entry: EntryAt {
                    id: entry.clone(),
                    line: hit.line,
                },
            },
            None => Effect::ShowArticle {
                rel: hit.path.clone(),
                line: Some(hit.line),
                banner: None,
            },
        });
        true
    }
}

/// A hit as two lines: where it is, then its best line with the matched
/// words marked.
fn hit_lines(hit: &SearchHit, theme: &Theme) -> [Line<'static>; 2] {
    // The entry id first: a long path would push it out of a narrow pane.
    let mut head = Vec::new();
    if let Some(id) = &hit.entry_id {
        head.push(Span::styled(format!("{}  ", safe(id)), theme.title));
    }
    head.push(Span::styled(format!("{:.2}  ", hit.score), theme.score));
    head.push(Span::styled(
        format!("{}:{}", safe(&hit.path), hit.line),
        theme.link,
    ));
    let mut snippet = vec![Span::raw("  ")];
    let mut at = 0;
    for r in &hit.highlights {
        let (Some(before), Some(word)) = (hit.snippet.get(at..r.start), hit.snippet.get(r.clone()))
        else {
            continue;
        };
        snippet.push(Span::styled(safe(before), theme.text));
        snippet.push(Span::styled(safe(word), theme.matched));
        at = r.end;
    }
    snippet.push(Span::styled(
        safe(hit.snippet.get(at..).unwrap_or("")),
        theme.text,
    ));
    [Line::from(head), Line::from(snippet)]
}

impl Component for SearchPane {
    fn scope(&self) -> Scope {
        Scope::Search
    }

    fn title(&self) -> String {
        "Search".to_owned()
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let h = self.visible_hits(cx.height);
        let len = self.hits.len();
        let c = &mut self.cursor;
        match action {
            Action::Up => c.move_by(-1, len, h),
            Action::Down => c.move_by(1, len, h),
            Action::PageUp => c.move_by(-page(h), len, h),
            Action::PageDown => c.move_by(page(h), len, h),
            Action::Top => c.to_top(),
            Action::Bottom => c.to_bottom(len, h),
            // `/` reaches here only in the popup (the finder's key elsewhere).
            Action::Type | Action::EditField | Action::Search | Action::Find => self.typing = true,
            Action::Open => return self.open_selected(cx),
            Action::Edit => {
                let Some(hit) = self.selected_hit() else {
                    return false;
                };
                let (rel, line) = (hit.path.clone(), hit.line);
                return cx.edit(Some(rel), Some(line));
            }
            Action::CopyPath => {
                let rel = self.selected_hit().map(|h| h.path.clone());
                return cx.copy_path(rel);
            }
            _ => return false,
        }
        true
    }

    fn is_typing(&self) -> bool {
        self.typing
    }

    fn on_typing_key(&mut self, key: KeyEvent, cx: &mut Cx) -> bool {
        match key.code {
            KeyCode::Enter => {
                self.typing = false;
                self.search(cx);
            }
            KeyCode::Esc => self.typing = false,
            _ if line_input::edit(&mut self.query, &key) => {}
            _ => return false,
        }
        true
    }

    fn on_paste(&mut self, text: &str, _cx: &mut Cx) -> bool {
        self.query.push_str(&safe(&text.replace(['\n', '\r'], " ")));
        self.typing = true;
        true
    }

    fn hints(&self, keymap: &KeyMap) -> String {
        if self.typing {
            return "type words · Enter search · Esc done · ^U clear".to_owned();
        }
        hint_text(keymap, &[(Action::Type, "query"), (Action::Open, "jump")])
    }

    fn draw(&self, frame: &mut Frame, area: Rect, focused: bool, theme: &Theme) {
        let note_h = if self.note.is_some() { NOTE } else { 0 };
        let [head, list, note] = Layout::vertical([
            Constraint::Length(HEADER),
            Constraint::Min(1),
            Constraint::Length(note_h),
        ])
        .areas(area);
        let cursor = if self.typing { "▏" } else { "" };
        let header = vec![
            Line::from(vec![
                Span::styled("search › ", theme.muted),
                Span::styled(safe(&self.query), theme.input),
                Span::styled(cursor, theme.muted),
            ]),
            Line::styled(self.summary.clone(), theme.muted),
        ];
        frame.render_widget(Paragraph::new(header), head);
        let selection = if focused {
            theme.selection
        } else {
            theme.selection_unfocused
        };
        let fit = usize::from(list.height) / 2;
        let lines: Vec<Line> = self
            .rows
            .iter()
            .enumerate()
            .skip(self.cursor.offset)
            .take(fit)
            .flat_map(|(i, [a, b])| {
                if i == self.cursor.selected {
                    [
                        super::highlight_row(a.clone(), list.width, selection),
                        b.clone(),
                    ]
                } else {
                    [a.clone(), b.clone()]
                }
            })
            .collect();
        frame.render_widget(Paragraph::new(cut_lines(lines, list.width)), list);
        if let Some(text) = self.note {
            frame.render_widget(
                Paragraph::new(Line::styled(text, theme.muted)).wrap(Wrap { trim: true }),
                note,
            );
        }
    }
}
