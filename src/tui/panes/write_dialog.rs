//! Writing to the memory from the interface outside the Health pane:
//! rename or move what the tree has selected (`r`), a new article in the
//! selected folder (`n`), a quick note (`c`), and the articles an
//! article's dead links name (`+`). Each asks one line where it needs one,
//! shows every file it would write as the fix review does (new, changed
//! or moved, with its diff), and writes only on Enter, through the
//! memory's one reviewed write, so `u` can take it back.

use membank_core::fix::{Action as FixAction, FileFix, FixProposal};
use membank_core::layout::Folder;
use membank_core::new_note::{self, Known};
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::{Kind, Stopped, Transaction};
use ratatui::Frame;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::{Constraint, Layout};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::bank::RowKind;
use super::health_fix::{self, FixReview};
use crate::tui::app::{App, Effect, Pane, Popup};
use crate::tui::areas::{inner, search_popup};
use crate::tui::keys::{Action, Key, Scope};
use crate::tui::theme::Theme;
use crate::tui::widgets::cut::cut_middle;
use crate::tui::widgets::line_input;
use crate::tui::widgets::wrap::wrap;

/// What the dialog writes.
#[derive(Debug, Clone)]
enum Purpose {
    /// Rename or move this file or folder (memory-relative).
    Rename { from: String },
    /// A new article in this folder of a bank.
    New { folder: Folder, known: Known },
    /// A quick note: a bank's inbox, a Deja Vu project's event ledger.
    Capture,
    /// The articles the open article's dead links name.
    CreateTargets,
}

#[derive(Debug, Clone)]
enum Stage {
    /// The line the plan is made from, while it is typed.
    Typing(String),
    /// What would be written, and a few lines saying what it amounts to.
    Review {
        review: Box<FixReview>,
        summary: Vec<Said>,
    },
}

/// A line of what a plan amounts to (sanitised).
#[derive(Debug, Clone)]
enum Said {
    /// A sentence, wrapped to the popup.
    Text(String),
    /// A file or folder moving: both paths are always shown, so each
    /// gets its own line when they do not fit on one.
    Move { from: String, to: String },
}

impl From<String> for Said {
    fn from(text: String) -> Said {
        Said::Text(text)
    }
}

/// The dialog, open as a popup over the panes.
#[derive(Debug, Clone)]
pub struct WriteDialog {
    purpose: Purpose,
    stage: Stage,
    /// Why the typed line or the write was refused (sanitised).
    refused: Option<String>,
    kind: Kind,
    /// "Enter writes · Esc closes", in the keys bound when it opened.
    keys: String,
}

impl WriteDialog {
    fn title(&self) -> &'static str {
        match self.purpose {
            Purpose::Rename { .. } => " Rename or move ",
            Purpose::New { .. } => " New article ",
            Purpose::Capture => " Quick note ",
            Purpose::CreateTargets => " Create the missing articles ",
        }
    }

    fn prompt(&self) -> String {
        let safe = |t: &str| sanitize_for_terminal(t, false);
        match &self.purpose {
            Purpose::Rename { from } => format!("New path of {}:", safe(from)),
            Purpose::New { folder, .. } => {
                format!("Name of the new article in {}:", folder.dir_name())
            }
            Purpose::Capture => "Note:".to_owned(),
            Purpose::CreateTargets => String::new(),
        }
    }

    /// How the journal names the write.
    fn label(&self) -> &'static str {
        match self.purpose {
            Purpose::Rename { .. } => "rename",
            Purpose::New { .. } => "new article",
            Purpose::Capture => "note",
            Purpose::CreateTargets => "fix",
        }
    }
}

/// Open the dialog an action asks for, or say why it cannot be.
pub fn open(app: &mut App, action: crate::tui::keys::Action) {
    use crate::tui::keys::Action;
    if crate::layouts::is_unread(&*app.memory) {
        app.status
            .info("the memory is still being read: ask again once it is in");
        return;
    }
    let keys = format!(
        "{} writes · {} closes",
        first_key(app, Action::Apply),
        first_key(app, Action::CloseView)
    );
    let kind = if crate::layouts::bank(&*app.memory).is_some() {
        Kind::Bank
    } else if crate::layouts::project(&*app.memory).is_some() {
        Kind::Project
    } else {
        app.status.info(format!(
            "{} is only read by membank: nothing is written to it",
            app.memory_kind()
        ));
        return;
    };
    let selected = app.panes.bank.selected().map(|r| match &r.kind {
        RowKind::File { rel } => rel.to_string(),
        RowKind::Folder { key, .. } => key.clone(),
    });
    let purpose = match action {
        Action::Rename => {
            let Some(from) = selected else {
                app.status
                    .info("select a file or folder in the tree to rename it");
                return;
            };
            if super::groups::folder_path(&from).is_none() {
                app.status.info(
                    "select a file in the tree to rename it: this folder groups files \
                     by kind and is not renamed",
                );
                return;
            }
            Purpose::Rename { from }
        }
        Action::NewArticle => {
            if kind != Kind::Bank {
                app.status
                    .info("new articles go into a memory bank's folders; c writes a note here");
                return;
            }
            let Some((folder, sub)) = selected.as_deref().and_then(folder_of) else {
                app.status
                    .info("select a folder of the bank (or a file in it) for the new article");
                return;
            };
            let q = app.panes.context.query();
            let known = Known {
                client: q.client,
                domain: q.domain,
                source_lang: q.source_lang,
                target_lang: q.target_lang,
            };
            let dialog = WriteDialog {
                purpose: Purpose::New { folder, known },
                stage: Stage::Typing(sub),
                refused: None,
                kind,
                keys,
            };
            app.popup = Some(Popup::Write(Box::new(dialog)));
            return;
        }
        Action::Capture => Purpose::Capture,
        Action::CreateTargets => {
            if kind != Kind::Bank {
                app.status
                    .info("membank creates a dead link's article in a memory bank only");
                return;
            }
            let mut dialog = WriteDialog {
                purpose: Purpose::CreateTargets,
                stage: Stage::Typing(String::new()),
                refused: None,
                kind,
                keys,
            };
            match dialog.plan(app, "") {
                Ok(stage) => dialog.stage = stage,
                Err(why) => {
                    app.status.info(sanitize_for_terminal(&why, false));
                    return;
                }
            }
            app.popup = Some(Popup::Write(Box::new(dialog)));
            return;
        }
        _ => return,
    };
    let start = match &purpose {
        Purpose::Rename { from } => from.clone(),
        _ => String::new(),
    };
    app.popup = Some(Popup::Write(Box::new(WriteDialog {
        purpose,
        stage: Stage::Typing(start),
        refused: None,
        kind,
        keys,
    })));
}

/// The first key bound to `action` in the review, as the help shows it.
fn first_key(app: &App, action: Action) -> String {
    app.keymap
        .keys(action)
        .first()
        .map_or_else(|| "(unbound)".to_owned(), ToString::to_string)
}

/// The bank folder a tree path is in, and the subfolder prefix a new
/// name there starts with (`sub/`).
fn folder_of(path: &str) -> Option<(Folder, String)> {
    let (top, rest) = path.split_once('/').unwrap_or((path, ""));
    let folder = Folder::from_dir_name(top)?;
    // A file's own name is not part of the folder.
    let sub = match rest.rsplit_once('/') {
        Some((dirs, _)) if path.ends_with(".md") => format!("{dirs}/"),
        None if path.ends_with(".md") => String::new(),
        _ if rest.is_empty() => String::new(),
        _ => format!("{rest}/"),
    };
    Some((folder, sub))
}

impl WriteDialog {
    /// The review of what the typed line would write, or why nothing can be.
    fn plan(&self, app: &App, typed: &str) -> Result<Stage, String> {
        let today = app.clock.today();
        let bank = crate::layouts::bank(&*app.memory);
        let project = crate::layouts::project(&*app.memory);
        let mut summary = Vec::new();
        let safe = |t: &str| sanitize_for_terminal(t, false);
        let fixes: Vec<FileFix> = match (&self.purpose, bank, project) {
            (Purpose::Rename { from }, Some(bank), _) => {
                let plan = membank_core::rename::plan(bank, from, typed.trim())?;
                for (a, b) in &plan.moves {
                    summary.push(Said::Move {
                        from: safe(a),
                        to: safe(b),
                    });
                }
                summary.push(links_line(plan.links_rewritten, &plan.fixes).into());
                for (what, paths) in [
                    (
                        "left in place (not notes, so no link names them)",
                        &plan.left_in_place,
                    ),
                    (
                        "could not be read, so a link in them is not rewritten",
                        &plan.unread,
                    ),
                    (
                        "links left (outside the bank's folders, not read)",
                        &plan.links_left,
                    ),
                    (
                        "links left (reached through a symbolic link, never written)",
                        &plan.through_link,
                    ),
                ] {
                    if !paths.is_empty() {
                        summary.push(Said::Text(format!("{what}: {}", safe(&paths.join(", ")))));
                    }
                }
                plan.fixes
            }
            (Purpose::Rename { from }, None, Some(project)) => {
                let fixes = membank_core::dejavu::rename::plan(project, from, typed.trim())?;
                for f in &fixes {
                    if let FixAction::Move { to, .. } = &f.action {
                        summary.push(Said::Move {
                            from: safe(&f.path),
                            to: safe(to),
                        });
                    }
                }
                fixes
            }
            (Purpose::New { folder, known }, Some(bank), _) => {
                vec![new_note::article(bank, *folder, typed, known, today)?]
            }
            (Purpose::Capture, Some(bank), _) => vec![new_note::capture(bank, typed, today)?],
            (Purpose::Capture, None, Some(_)) => {
                let month = format!("memory/events/{:04}-{:02}.md", today.year(), today.month());
                let ledger = read_ledger(app.memory.root(), &month)?;
                vec![new_note::event(typed, &[], today, ledger)?]
            }
            (Purpose::CreateTargets, Some(bank), _) => {
                let rel = app
                    .panes
                    .article
                    .rel
                    .clone()
                    .ok_or("open an article to create what its dead links name")?;
                let dead: Vec<_> = app
                    .health
                    .findings
                    .iter()
                    .filter(|f| f.code() == "dead-link" && *f.path == *rel)
                    .cloned()
                    .collect();
                if dead.is_empty() {
                    return Err(format!("{rel} has no dead link"));
                }
                let opts = membank_core::fix::Options {
                    tz: jiff::tz::TimeZone::system(),
                    checked_today: None,
                    create_missing: Some(today),
                    surface: membank_core::surface::Surface::CommandLine,
                };
                let proposal = membank_core::fix::propose_with(bank, &dead, &opts);
                for u in &proposal.remaining {
                    summary.push(Said::Text(format!(
                        "left: {} — {}",
                        safe(&u.path),
                        safe(&u.reason)
                    )));
                }
                if proposal.fixes.is_empty() {
                    return Err(format!(
                        "no article can be created for the dead links of {rel}"
                    ));
                }
                proposal.fixes
            }
            _ => return Err("membank does not write this memory".into()),
        };
        if fixes.is_empty() {
            return Err("nothing to write: the path is the same".into());
        }
        let review = FixReview::new(
            FixProposal {
                fixes,
                remaining: Vec::new(),
            },
            &[],
            self.kind,
            None,
        );
        Ok(Stage::Review {
            review: Box::new(review),
            summary,
        })
    }
}

/// "3 links rewritten in 2 files".
fn links_line(links: usize, fixes: &[FileFix]) -> String {
    let files = fixes
        .iter()
        .filter(|f| matches!(f.action, FixAction::Change { .. }))
        .count();
    format!(
        "{links} link{} rewritten in {files} other file{}",
        if links == 1 { "" } else { "s" },
        if files == 1 { "" } else { "s" }
    )
}

/// The month's event ledger as it is, bounded like any file membank reads.
fn read_ledger(root: &std::path::Path, rel: &str) -> Result<Option<Vec<u8>>, String> {
    let path = root.join(rel);
    match std::fs::symlink_metadata(&path) {
        Err(_) => Ok(None),
        Ok(m) if !m.is_file() => Err(format!("{rel} is not a regular file")),
        Ok(m) if m.len() > 8 << 20 => Err(format!("{rel} is too large to add to")),
        Ok(_) => std::fs::read(&path)
            .map(Some)
            .map_err(|e| format!("{rel}: {e}")),
    }
}

impl WriteDialog {
    /// Pasted text goes into the line being typed, on one line.
    pub fn paste(&mut self, text: &str) {
        if let Stage::Typing(typed) = &mut self.stage {
            let one_line: Vec<&str> = text.split_whitespace().collect();
            typed.push_str(&one_line.join(" "));
        }
    }
}

/// A key while the dialog is open.
pub fn on_key(app: &mut App, key: KeyEvent) {
    let Some(Popup::Write(mut dialog)) = app.popup.take() else {
        return;
    };
    let open = match &mut dialog.stage {
        Stage::Typing(text) => match key.code {
            KeyCode::Esc => false,
            _ if line_input::edit(text, &key) => true,
            KeyCode::Enter => {
                let typed = text.clone();
                match dialog.plan(app, &typed) {
                    Ok(stage) => {
                        dialog.stage = stage;
                        dialog.refused = None;
                    }
                    Err(why) => dialog.refused = Some(sanitize_for_terminal(&why, false)),
                }
                true
            }
            _ => true,
        },
        Stage::Review { review, .. } => {
            let action = Key::from_event(&key).and_then(|k| app.keymap.lookup(Scope::FixReview, k));
            match action {
                Some(Action::CloseView) => false,
                Some(Action::Apply) => return write(app, dialog),
                // Only the missing articles are chosen one by one: a rename
                // or a note is all or nothing, so no link is left behind.
                Some(Action::ToggleBlock | Action::AcceptAll | Action::DeclineAll)
                    if !matches!(dialog.purpose, Purpose::CreateTargets) =>
                {
                    true
                }
                Some(action) => {
                    let h = health_fix::list_height(review, app.size.height.saturating_sub(8));
                    review.on_action(action, app.memory.root(), h);
                    true
                }
                None => true,
            }
        }
    };
    if open {
        app.popup = Some(Popup::Write(dialog));
    }
}

/// Write what the review shows, then re-read it and show where it went.
fn write(app: &mut App, mut dialog: Box<WriteDialog>) {
    let Stage::Review { review, .. } = &dialog.stage else {
        return;
    };
    let fixes: Vec<FileFix> = review
        .rows
        .iter()
        .filter(|r| r.accepted)
        .map(|r| r.fix.clone())
        .collect();
    if fixes.is_empty() {
        app.status.info("nothing written: every file was declined");
        return;
    }
    let root = app.memory.root().to_path_buf();
    let label = dialog.label();
    let written = Transaction::begin(&root, dialog.kind, std::time::Duration::from_secs(2), || {})
        .and_then(|tx| {
            tx.set_label(label);
            tx.commit_fixes(&fixes).map_err(|e| match e {
                Stopped::Stale(paths) => format!(
                    "{} changed on disk since this was shown; nothing was written",
                    paths.join(", ")
                ),
                Stopped::Refused(why) => why,
            })?;
            Ok(tx.finish())
        });
    let journalled = match written {
        Ok(journalled) => journalled,
        Err(why) => {
            dialog.refused = Some(sanitize_for_terminal(&why, false));
            app.popup = Some(Popup::Write(dialog));
            return;
        }
    };
    let mut changed = Vec::new();
    let mut landed = Vec::new();
    for f in &fixes {
        changed.push(f.path.clone());
        match &f.action {
            FixAction::Move { to, .. } => {
                changed.push(to.clone());
                landed.push(to.clone());
            }
            FixAction::Create { .. } => landed.push(f.path.clone()),
            _ => {}
        }
    }
    let safe = |t: &str| sanitize_for_terminal(t, false);
    let said = match &dialog.purpose {
        Purpose::Rename { from } => format!(
            "renamed {} → {} · u takes it back",
            safe(from),
            safe(&renamed_to(from, &fixes).unwrap_or_default())
        ),
        Purpose::CreateTargets => format!("created {} · u takes it back", safe(&landed.join(", "))),
        _ => format!("wrote {} · u takes it back", safe(&fixes[0].path)),
    };
    // An entry over the journal's bound (or not kept) is worth more than
    // the usual words.
    let said = match journalled {
        Some(warning) => format!("{said} · warning: {}", safe(&warning)),
        None => said,
    };
    let follow = landed.first().cloned().or_else(|| changed.first().cloned());
    // The article shown moved with the rename: show it where it went.
    let open = match (&dialog.purpose, &app.panes.article.rel) {
        (Purpose::Rename { from }, Some(shown)) => {
            shown == from || shown.starts_with(&format!("{from}/"))
        }
        _ => false,
    };
    let open = match (&dialog.purpose, &app.panes.article.rel) {
        (Purpose::Rename { from }, Some(shown)) if open && shown != from => landed
            .iter()
            .find(|to| to.ends_with(&shown[from.len()..]))
            .cloned(),
        _ if open => follow.clone(),
        // What the write made (a new article, a dead link's target, a note)
        // is selected in the tree: shown too, as a selection is.
        (Purpose::New { .. } | Purpose::CreateTargets | Purpose::Capture, _) => follow.clone(),
        _ => None,
    };
    app.after_write = follow
        .clone()
        .map(|select| AfterWrite { select, open, said });
    app.effects.push(Effect::Reload(changed));
    app.apply_effects();
    if let (Purpose::New { .. }, Some(rel)) = (&dialog.purpose, follow) {
        // The new article opens in the editor where one can run; the
        // tree has it selected either way.
        app.effects.push(Effect::Edit { rel, line: None });
    }
    if app.focus != Pane::Bank && matches!(dialog.purpose, Purpose::Rename { .. }) {
        app.focus_pane(Pane::Bank);
    }
}

/// Where a rename took `from`: the file's new path, or for a folder the
/// folder its moved files now sit in (not one of the files).
fn renamed_to(from: &str, fixes: &[FileFix]) -> Option<String> {
    fixes.iter().find_map(|f| {
        let FixAction::Move { to, .. } = &f.action else {
            return None;
        };
        if f.path == from {
            return Some(to.clone());
        }
        let rest = f.path.strip_prefix(from)?.strip_prefix('/')?;
        let folder = to.strip_suffix(rest)?.strip_suffix('/')?;
        Some(folder.to_owned())
    })
}

/// What the interface shows once a write is read back: where the file
/// went, and what was done (the re-read's own message would hide it).
#[derive(Debug, Clone)]
pub struct AfterWrite {
    select: String,
    /// The article shown was renamed: show it under its new path.
    open: Option<String>,
    said: String,
}

impl AfterWrite {
    /// Select `select` once the memory is read back, open `open` in the
    /// Article pane if given, and say `said`.
    pub(in crate::tui) fn new(select: String, open: Option<String>, said: String) -> AfterWrite {
        AfterWrite { select, open, said }
    }
}

/// The memory was read again: select what the last write made or moved.
pub(in crate::tui) fn settle(app: &mut App) {
    let Some(after) = app.after_write.take() else {
        return;
    };
    let h = app.height_of(Pane::Bank);
    let width = app.article_width();
    let (memory, p) = (app.memory.as_ref(), &mut app.panes);
    p.bank.reveal(&after.select, memory, &app.flagged, h);
    if let Some(rel) = &after.open {
        p.article.open_at(memory, rel, None, &app.theme, width);
    }
    app.status.outcome(after.said);
}

/// The rows a line of the plan's head takes at `width` columns. A move
/// too long for one row takes two, `FROM` and `→ TO`, each path shortened
/// in the middle when it is still too long: where it goes is always shown.
fn said_rows(said: &Said, width: usize) -> Vec<String> {
    match said {
        Said::Text(text) => wrap(text, width),
        Said::Move { from, to } => {
            let one = format!("{from} → {to}");
            if one.width() <= width {
                return vec![one];
            }
            vec![
                cut_middle(from, width).into_owned(),
                format!("→ {}", cut_middle(to, width.saturating_sub(2))),
            ]
        }
    }
}

pub fn draw(frame: &mut Frame, dialog: &WriteDialog, theme: &Theme) {
    let area = search_popup(frame.area());
    let hint = match dialog.stage {
        Stage::Typing(_) => " Enter shows what will be written · Esc closes ",
        Stage::Review { .. } => " Enter writes · ↑↓ file · PgUp/PgDn diff · Esc closes ",
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.border_focused)
        .title(Span::styled(dialog.title(), theme.title))
        .title_bottom(Span::styled(hint, theme.muted));
    crate::tui::areas::clear_popup(frame, area);
    frame.render_widget(block, area);
    let inside = inner(area);
    let refused = dialog
        .refused
        .as_ref()
        .map(|why| Line::styled(why.clone(), theme.error));
    match &dialog.stage {
        Stage::Typing(text) => {
            let mut lines = vec![
                Line::styled(dialog.prompt(), theme.text),
                Line::styled(
                    format!("{}▏", sanitize_for_terminal(text, false)),
                    theme.input,
                ),
            ];
            lines.extend(refused);
            frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inside);
        }
        Stage::Review { review, summary } => {
            // Laid out here, row by row, so the head is given the rows it
            // takes (a line wrapped by the widget is not counted).
            let width = usize::from(inside.width);
            let mut lines: Vec<Line> = Vec::new();
            if let Some(why) = &dialog.refused {
                lines.extend(
                    wrap(why, width)
                        .into_iter()
                        .map(|r| Line::styled(r, theme.error)),
                );
            }
            for said in summary {
                lines.extend(
                    said_rows(said, width)
                        .into_iter()
                        .map(|r| Line::styled(r, theme.title)),
                );
            }
            let head = (lines.len() as u16).min(inside.height / 3);
            let [top, rest] =
                Layout::vertical([Constraint::Length(head), Constraint::Fill(1)]).areas(inside);
            frame.render_widget(Paragraph::new(lines), top);
            health_fix::draw(frame, rest, review, true, theme);
            // The review's own head speaks of fixes; this writes other things.
            let n = review.accepted();
            let head = Line::styled(
                format!(
                    "{n} file{} to write · {}",
                    if n == 1 { "" } else { "s" },
                    dialog.keys
                ),
                theme.muted,
            );
            let row = ratatui::layout::Rect {
                height: rest.height.min(1),
                ..rest
            };
            frame.render_widget(Clear, row);
            frame.render_widget(Paragraph::new(head), row);
        }
    }
}
