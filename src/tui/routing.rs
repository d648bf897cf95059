//! Where a key goes: Ctrl-C quits (asking first when work would be lost);
//! an open popup takes it (the search popup through the Search pane's
//! contract); a pane whose input is typing takes it, and so does an agent's
//! input for a letter that is no key there; otherwise the key map turns it
//! into an action for the app or the focused pane.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Effect, Pane, Popup};
use super::keys::{Action, Key, Scope};
use super::panes::Component;
use super::panes::write_dialog::AfterWrite;
use super::widgets::confirm::{Confirm, OnYes};
use super::widgets::help::Help;
use membank_core::transaction::{Kind, Transaction};

pub(super) fn on_key(app: &mut App, key: KeyEvent) {
    // Ctrl-C quits whatever has the keyboard; a second one answers the
    // question it put (the reply is kept on the way out all the same).
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        let asked = matches!(&app.popup, Some(Popup::Confirm(c)) if c.on_yes == OnYes::Quit);
        if asked {
            app.popup = None;
            app.effects.push(Effect::Quit);
        } else {
            quit(app);
        }
        return;
    }
    if matches!(app.popup, Some(Popup::Confirm(_))) {
        on_confirm_key(app, key);
        app.dirty = true;
        return;
    }
    if matches!(app.popup, Some(Popup::Search)) {
        on_search_popup_key(app, key);
        app.dirty = true;
        return;
    }
    if matches!(app.popup, Some(Popup::Write(_))) {
        super::panes::write_dialog::on_key(app, key);
        app.dirty = true;
        return;
    }
    if app.popup.is_some() {
        on_popup_key(app, key);
        app.dirty = true;
        return;
    }
    if app.panes.get(app.focus).is_typing() {
        let changed = app.dispatch(app.focus, |pane, cx| pane.on_typing_key(key, cx));
        app.dirty |= changed;
        return;
    }
    let scope = app.panes.get(app.focus).scope();
    let action = Key::from_event(&key).and_then(|k| app.keymap.lookup(scope, k));
    // Someone typing who thinks the input has the keyboard: the letters go
    // into it, never to a key that sends to the model.
    let agents_here = app.focus == Pane::Agents && app.panes.agents_work;
    // While zoomed the tab row names the zoom key: it puts the panes back
    // here too (outside the input), as every named key acts.
    let unzoom = app.zoomed && action == Some(Action::Zoom);
    if agents_here && !unzoom && app.panes.agents.is_stray_letter(&key, action) {
        app.panes.agents.editing = true;
        app.dispatch(Pane::Agents, |pane, cx| pane.on_typing_key(key, cx));
        app.dirty = true;
        return;
    }
    let Some(action) = action else {
        return;
    };
    let before = app.status.message.clone();
    if perform(app, action) {
        app.dirty = true;
    }
    if app.status.message != before {
        app.dirty = true;
    }
}

/// Quit, unless that would lose work: then ask first.
fn quit(app: &mut App) {
    match app.panes.agents.unfinished() {
        Some(what) => {
            let question = format!("{what} — quit anyway? y/N");
            let kept =
                "The reply is kept in a file only you can read; its name is shown on leaving.";
            app.popup = Some(Popup::Confirm(
                Confirm::new(question, OnYes::Quit).detail(kept),
            ));
            app.dirty = true;
        }
        None => app.effects.push(Effect::Quit),
    }
}

/// The quit question says what quitting would lose now: a reply that has
/// finished arriving is no reason to ask any more (the question closes),
/// and a review it opened is named instead.
pub(super) fn refresh_quit_question(app: &mut App) {
    let Some(Popup::Confirm(confirm)) = &app.popup else {
        return;
    };
    if confirm.on_yes != OnYes::Quit {
        return;
    }
    match app.panes.agents.unfinished() {
        None => {
            app.popup = None;
            app.status
                .info("the reply has arrived; nothing would be lost by quitting now");
        }
        Some(what) => {
            let question = format!("{what} — quit anyway? y/N");
            if confirm.question == question {
                return;
            }
            if let Some(Popup::Confirm(confirm)) = &mut app.popup {
                confirm.question = question;
            }
        }
    }
    app.dirty = true;
}

/// How this memory is written, when membank writes it at all.
fn write_kind(app: &App) -> Option<Kind> {
    if crate::layouts::bank(&*app.memory).is_some() {
        Some(Kind::Bank)
    } else if crate::layouts::project(&*app.memory).is_some() {
        Some(Kind::Project)
    } else {
        None
    }
}

/// Show what the last journalled change was and ask before taking it back.
fn ask_undo(app: &mut App) {
    if write_kind(app).is_none() {
        app.status
            .info("membank only reads this memory: there is nothing to undo");
        return;
    }
    let Some(journal) = membank_core::journal::installed() else {
        app.status
            .warn("no state folder for the undo journal: nothing to undo");
        return;
    };
    // Asked as `membank undo` asks it, damaged entries included.
    let next = match crate::undo_journal::last_to_undo(&journal, app.memory.root()) {
        Ok((next, _)) => next,
        Err(said) => {
            app.status
                .info(membank_core::text::sanitize_for_terminal(&said, false));
            return;
        }
    };
    let last = &next.entry;
    let safe = |t: &str| membank_core::text::sanitize_for_terminal(t, false);
    let files: Vec<String> = last.files.iter().map(|f| safe(&f.path)).collect();
    let question = match (next.resumes.is_some(), last.unfinished) {
        (true, _) => format!(
            "Finish the interrupted undo of the last change ({}, {})? y/N",
            safe(&last.kind),
            safe(&last.time)
        ),
        (false, true) => format!(
            "Undo the last change ({}, {}), which was interrupted? y/N",
            safe(&last.kind),
            safe(&last.time)
        ),
        (false, false) => format!(
            "Undo the last change ({}, {})? y/N",
            safe(&last.kind),
            safe(&last.time)
        ),
    };
    let detail = if files.len() == 1 {
        format!(
            "Puts back {} as it was before it; nothing is reverted if it changed since.",
            files[0]
        )
    } else {
        format!(
            "Puts back {} as they were before it; nothing is reverted if one changed since.",
            files.join(", ")
        )
    };
    app.popup = Some(Popup::Confirm(
        Confirm::new(question, OnYes::Undo(last.id.clone())).detail(detail),
    ));
}

/// Take back the change the question named (`asked`, its entry's id),
/// then re-read the files it touched. Another change journalled since the
/// question (by another run) is not taken back in its place.
fn undo(app: &mut App, asked: &str) {
    let Some(kind) = write_kind(app) else {
        return;
    };
    let root = app.memory.root().to_path_buf();
    // Journalled as soon as it is done, as every write is: a warning of the
    // journal (an entry over its bound) is then said with the outcome.
    let undone = Transaction::begin(&root, kind, std::time::Duration::from_secs(2), || {})
        .and_then(|tx| {
            let done = crate::undo_journal::undo_last(&tx, Some(asked))?;
            Ok((done, tx.finish()))
        });
    match undone {
        Ok((done, journalled)) => {
            let paths: Vec<String> = done.entry.files.iter().map(|f| f.path.clone()).collect();
            let safe = |t: &str| membank_core::text::sanitize_for_terminal(t, false);
            let said = format!(
                "undone: {} ({})",
                safe(&done.entry.kind),
                crate::plural::count(files_of(&done.entry), "file")
            );
            let said = match journalled {
                Some(warning) => format!("{said} · warning: {}", safe(&warning)),
                None => said,
            };
            app.status.outcome(said.clone());
            // Once read back: select what is there again (a rename taken back
            // puts the file under its old name), and show the article shown
            // before under the name it has now. The re-read's own message
            // would hide what was undone, so it is said again after it.
            let exists = |p: &String| root.join(p).is_file();
            // What the undo brought back (a rename's old name, a deleted
            // file) is what to show; else the first file it changed.
            let restored = paths
                .iter()
                .find(|p| exists(p) && app.memory.find(p).is_none())
                .or_else(|| paths.iter().find(|p| exists(p)))
                .cloned();
            if let Some(select) = restored {
                let shown_gone = app
                    .panes
                    .article
                    .rel
                    .as_ref()
                    .is_some_and(|rel| paths.contains(rel) && !exists(rel));
                let open = shown_gone.then(|| select.clone());
                app.after_write = Some(AfterWrite::new(select, open, said));
            }
            app.effects.push(Effect::Reload(paths));
            app.apply_effects();
        }
        Err(why) => app
            .status
            .error(membank_core::text::sanitize_for_terminal(&why, false)),
    }
}

/// The files an entry changed, counted as its plan counted them: a file
/// moved is one file (its old and new paths are two records), and a
/// folder made is no file.
fn files_of(entry: &membank_core::journal::Entry) -> usize {
    use membank_core::journal::Recorded;
    let (mut files, mut created, mut deleted) = (0, 0, 0);
    for f in &entry.files {
        match &f.change {
            Recorded::FolderMade => continue,
            Recorded::Replaced { before: None, .. } => created += 1,
            Recorded::Replaced { after: None, .. } => deleted += 1,
            _ => {}
        }
        files += 1;
    }
    files - created.min(deleted)
}

/// A key for the yes/no question: `y` carries out what it asked about;
/// any other key answers no, and so does a key `[keys]` bound to both
/// (the Confirm scope looks up `no` first).
fn on_confirm_key(app: &mut App, key: KeyEvent) {
    let action = Key::from_event(&key).and_then(|k| app.keymap.lookup(Scope::Confirm, k));
    let Some(Popup::Confirm(confirm)) = app.popup.take() else {
        return;
    };
    if action != Some(Action::Yes) {
        return;
    }
    match confirm.on_yes {
        OnYes::Quit => app.effects.push(Effect::Quit),
        OnYes::Agents(action) => {
            app.panes.agents.approve(action);
            app.dispatch(Pane::Agents, |pane, cx| pane.on_action(action, cx));
            // A yes is for this once, even if the action no longer asked.
            app.panes.agents.forget_approval();
        }
        OnYes::Undo(asked) => undo(app, &asked),
        OnYes::SetClientAndAsk(client) => {
            app.set_context_client(&client);
            app.dispatch(Pane::Agents, |pane, cx| {
                pane.on_action(Action::RunAgent, cx)
            });
        }
    }
}

/// Keys for the search popup: typed while its query has the keyboard,
/// else through the Search scope; the key that closes a popup closes it.
fn on_search_popup_key(app: &mut App, key: KeyEvent) {
    if app.panes.search.typing {
        app.dispatch_search(|pane, cx| pane.on_typing_key(key, cx));
        return;
    }
    let action = Key::from_event(&key).and_then(|k| app.keymap.lookup(Scope::Search, k));
    let closes = Key::from_event(&key)
        .is_some_and(|k| app.keymap.keys(Action::Cancel).contains(&k))
        || action == Some(Action::Quit);
    match action {
        Some(a) if !closes => {
            app.dispatch_search(|pane, cx| pane.on_action(a, cx));
        }
        _ if closes => app.popup = None,
        _ => {}
    }
}

/// Keys for the open popup, through the key map's popup scopes; in the
/// finder, keys that are no action are typed.
fn on_popup_key(app: &mut App, key: KeyEvent) {
    let scope = match app.popup {
        Some(Popup::Help(_)) => Scope::Help,
        Some(Popup::Finder(_)) => Scope::Finder,
        Some(Popup::Search | Popup::Confirm(_) | Popup::Write(_)) | None => return,
    };
    let action = Key::from_event(&key).and_then(|k| app.keymap.lookup(scope, k));
    let Some(Popup::Finder(f)) = app.popup.as_mut() else {
        if let Some(Popup::Help(help)) = app.popup.as_mut() {
            let h = app.size.height;
            let screen = (app.size.width, h);
            let page = (isize::from(h as i16) - 4).max(1);
            match action {
                Some(Action::Close | Action::Help) => app.popup = None,
                Some(Action::Up) => help.scroll_by(-1, screen),
                Some(Action::Down) => help.scroll_by(1, screen),
                Some(Action::PageUp) => help.scroll_by(-page, screen),
                Some(Action::PageDown) => help.scroll_by(page, screen),
                Some(Action::Top) => help.scroll = 0,
                Some(Action::Bottom) => help.scroll_by(isize::MAX / 2, screen),
                _ => {}
            }
        }
        return;
    };
    match action {
        Some(Action::Cancel) => app.popup = None,
        Some(Action::Choose) => {
            let chosen = f.selected_id();
            app.popup = None;
            if let Some(id) = chosen.filter(|&id| id < app.memory.len()) {
                let rel = app.memory.document(id).path.to_owned();
                app.open_article(&rel);
            }
        }
        Some(Action::SelectPrev) => f.move_selection(-1),
        Some(Action::SelectNext) => f.move_selection(1),
        Some(Action::SelectPageUp) => f.move_selection(-10),
        Some(Action::SelectPageDown) => f.move_selection(10),
        Some(Action::ClearInput) => {
            if f.input.delete_line_by_head() {
                f.refilter();
            }
        }
        // The query is one line.
        _ if matches!(key.code, KeyCode::Enter | KeyCode::Tab) => {}
        _ => {
            if f.input.input(key) {
                f.refilter();
            }
        }
    }
}

/// Carry out an action: the app's own (quit, panes, popups) here, the
/// rest in the focused pane. Returns whether the screen changed.
fn perform(app: &mut App, action: Action) -> bool {
    match action {
        Action::Quit => {
            quit(app);
            true
        }
        Action::Suspend => {
            app.effects.push(Effect::Suspend);
            true
        }
        Action::Help => {
            let scope = app.panes.get(app.focus).scope();
            let name = match scope {
                Scope::FixReview => "Health: fix review",
                Scope::TermCheck => "Health: terms check",
                _ => app.panes.name(app.focus),
            };
            let help = Help::new(name, scope, &app.keymap, app.memory.spec());
            app.popup = Some(Popup::Help(help));
            true
        }
        Action::NextPane | Action::PrevPane => {
            let i = Pane::ORDER
                .iter()
                .position(|p| *p == app.focus)
                .unwrap_or(0);
            let n = Pane::ORDER.len();
            let next = if action == Action::NextPane {
                (i + 1) % n
            } else {
                (i + n - 1) % n
            };
            app.focus_pane(Pane::ORDER[next]);
            true
        }
        Action::Zoom => {
            app.toggle_zoom();
            true
        }
        Action::Undo => {
            ask_undo(app);
            true
        }
        Action::LastMessage => {
            let said = app.status.last.clone();
            let body = match said {
                Some((text, _)) => text
                    .lines()
                    .map(|l| ratatui::text::Line::styled(l.to_owned(), app.theme.text))
                    .collect(),
                None => vec![ratatui::text::Line::styled(
                    "nothing said yet",
                    app.theme.muted,
                )],
            };
            app.popup = Some(Popup::Help(Help::text("Last message".to_owned(), body)));
            true
        }
        // In Health, `+` makes the articles of the dead-link findings chosen
        // there, through the pane's own fix review.
        Action::CreateTargets if app.focus == Pane::Health => {
            app.dispatch(Pane::Health, |pane, cx| pane.on_action(action, cx))
        }
        Action::Rename | Action::NewArticle | Action::Capture | Action::CreateTargets => {
            super::panes::write_dialog::open(app, action);
            true
        }
        Action::Find => {
            app.open_finder();
            true
        }
        Action::Search => {
            app.open_search();
            true
        }
        Action::Agents => {
            app.focus_pane(Pane::Agents);
            true
        }
        Action::ToBank => {
            // The pane may have something to close first (a search).
            if !app.dispatch(app.focus, |pane, cx| pane.on_action(action, cx)) {
                app.focus_pane(Pane::Bank);
            }
            true
        }
        _ => app.dispatch(app.focus, |pane, cx| pane.on_action(action, cx)),
    }
}
