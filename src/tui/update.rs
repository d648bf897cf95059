//! `update`: every message that changes what is on screen goes through
//! here, to the app's state, the focused pane or the re-read under way.

use membank_core::memory::changes;
use membank_core::text::sanitize_for_terminal;
use ratatui::layout::Rect;

use super::app::{App, LOADING, Msg, Pane, Popup};

/// Apply one message. Sets `app.dirty` when the screen must be redrawn
/// and leaves anything that needs the terminal in `app.effects`.
pub fn update(app: &mut App, msg: Msg) {
    match msg {
        Msg::Resize(w, h) => {
            app.size = Rect::new(0, 0, w, h);
            app.relayout();
            app.dirty = true;
        }
        Msg::Key(key) => super::routing::on_key(app, key),
        Msg::Paste(text) => {
            if let Some(Popup::Finder(f)) = &mut app.popup {
                f.input
                    .insert_str(sanitize_for_terminal(&text.replace('\n', " "), false));
                f.refilter();
                app.dirty = true;
            } else if let Some(Popup::Write(w)) = &mut app.popup {
                w.paste(&text);
                app.dirty = true;
            } else if app.dispatch(app.focus, |pane, cx| pane.on_paste(&text, cx)) {
                app.dirty = true;
            }
        }
        Msg::FilesChanged(paths) => {
            let memory = app.memory.as_ref();
            let rels = changes::changed_paths(memory.spec(), memory.root(), &paths);
            app.reload_paths(rels);
        }
        Msg::Edited(rel) => app.reload_paths(vec![rel]),
        Msg::Llm(message) => {
            let memory = app.memory.clone();
            let changed = app
                .panes
                .agents
                .on_message(message, memory.as_ref(), &mut app.effects);
            if changed && app.areas.visible(Pane::Agents) {
                app.dirty = true;
            }
            app.apply_effects();
            super::routing::refresh_quit_question(app);
        }
        Msg::Error(e) => {
            app.status.error(sanitize_for_terminal(&e, false));
            app.dirty = true;
        }
        Msg::Mouse(ev) => super::mouse::on_mouse(app, ev),
        Msg::Tick(now) => {
            if app.status.expire(now) {
                app.dirty = true;
            }
        }
        Msg::Listed(tree) => {
            // Only while nothing is read yet: a bank already shown has its
            // own files.
            if app.memory.is_empty() {
                app.files_listed = Some(tree.files);
                let bh = app.height_of(Pane::Bank);
                app.panes.bank.show_listing(*tree, app.memory.as_ref(), bh);
                app.dirty = true;
            }
        }
        Msg::Loading(files) => {
            // Progress never hides a message someone should read.
            if app.status.shows_loading() {
                let kind = app.memory_kind();
                let of = app
                    .files_listed
                    .map(|n| format!(" of {n}"))
                    .unwrap_or_default();
                app.status
                    .info(format!("{LOADING} {kind}… {files}{of} files"));
                app.dirty = true;
            }
        }
        Msg::Reloaded {
            generation,
            read,
            news,
        } => app.reloaded(generation, *read, &news),
        Msg::TermsChecked {
            generation,
            checked,
        } => app.terms_checked(generation, checked.0),
        Msg::Recalled {
            generation,
            recalled,
        } => app.recalled(generation, *recalled),
        Msg::TreeSorted(sorted) => app.tree_sorted(*sorted),
        Msg::SearchIndexed(built) => {
            let (memory, theme) = (app.memory.as_ref(), &app.theme);
            let search = &mut app.panes.search;
            if search.indexed(built, memory, theme)
                && let Some(said) = search.outcome()
            {
                app.status.info(said);
            }
            app.dirty = true;
        }
        Msg::Loaded(loaded) => match *loaded {
            Ok(read) => {
                app.install(read);
                // Ranked for it with the bank, on the thread that read it.
                if app.pending_query.take().is_some() {
                    app.say_query_restored();
                }
                // The bar already counts what was read; the progress goes.
                if app.status.shows_loading() {
                    app.status.message = None;
                    app.status.expires = None;
                }
                if app.panes.article.empty_note.is_some() {
                    app.status
                        .notice("only _EXAMPLE_ files: see the Article pane");
                }
                app.reread_queued();
                app.resume_term_check();
            }
            Err(e) => {
                app.status.error(sanitize_for_terminal(&e, false));
                app.dirty = true;
            }
        },
    }
    // The article shown was no longer the file the memory read.
    if let Some(rel) = app.panes.article.changed_on_disk.take() {
        app.reload_paths(vec![rel]);
    }
}
