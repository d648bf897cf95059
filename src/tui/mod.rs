//! The full-screen terminal interface.
//!
//! Shape: messages (keys, resizes, file changes, model events) go through
//! `app::update`, which routes keys through the key map to the focused
//! pane (`panes::Component`), applies the effects the panes queue, and
//! leaves those that need the terminal to the runner; `ui::draw` renders
//! the state. The screen is redrawn only after a message changed something.
//! docs/architecture.md has the picture.

pub mod app;
pub mod areas;
pub mod config;
pub mod drop_later;
pub mod event;
mod find;
mod jobs;
pub mod keys;
pub mod messages;
pub mod mouse;
pub mod osc52;
pub mod panes;
pub mod qa_job;
mod recall_job;
pub mod reload;
mod routing;
mod sort_job;
pub mod terminal;
pub mod theme;
pub mod ui;
pub mod unread;
pub mod update;
pub mod widgets;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_agents;
#[cfg(test)]
mod tests_daily;
#[cfg(test)]
mod tests_dejavu_agents;
#[cfg(test)]
mod tests_fit;
#[cfg(test)]
mod tests_fix;
#[cfg(test)]
mod tests_guard;
#[cfg(test)]
mod tests_jumps;
#[cfg(test)]
mod tests_layouts;
#[cfg(test)]
mod tests_monkey;
#[cfg(test)]
mod tests_qa;
#[cfg(test)]
mod tests_reload;
#[cfg(test)]
mod tests_tree;
#[cfg(test)]
mod tests_vault;
#[cfg(test)]
mod tests_write;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use anyhow::Context as _;
use membank_core::clock::Clock;
use membank_core::memory::{self, Detected, LayoutSpec};
use membank_core::text::sanitize_for_terminal;
use ratatui::layout::Rect;

use app::{App, Effect, Msg};
use event::InputReader;
pub use theme::ColorChoice;
use unread::Unread;
use update::update;

use crate::watch::{MemoryWatcher, Watched};

/// The day the interface's tests read their fixtures as of, whatever the
/// real date: the fixtures' dates were written to be neither stale nor in
/// the future then.
#[cfg(test)]
pub(crate) const TESTS_CLOCK: Clock =
    Clock::Pinned(jiff::civil::date(2026, 11, 26).at(12, 0, 0, 0));

/// How the interface is started.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    pub color: ColorChoice,
    /// The layout `--format` forces instead of detecting it.
    pub format: Option<&'static LayoutSpec>,
    /// Shown in the status bar instead of the folder's path.
    pub label: Option<String>,
    /// Said in the status bar on start (the demo says where it lives).
    pub notice: Option<String>,
    /// Leave the mouse to the terminal.
    pub no_mouse: bool,
    /// Where "today" comes from.
    pub clock: Clock,
    /// A translated file whose terminology check opens in the Health pane.
    pub qa: Option<PathBuf>,
}

/// Build the app for a memory without touching the terminal: config,
/// theme, key map, memory (any layout). Used by tests and benchmarks.
pub fn prepare(root: &Path, options: &TuiOptions, size: Rect) -> anyhow::Result<App> {
    let (cfg, theme) = settings(options)?;
    let keymap = cfg.keymap()?;
    let memory = memory::open(root, options.format).map_err(open_error)?;
    tracing::info!(
        layout = memory.spec().name,
        root = %memory.root().display(),
        documents = memory.len(),
        "opened in the interface"
    );
    let mut app = App::new(memory, theme, keymap, size, options.clock);
    say_key_clashes(&mut app);
    Ok(app)
}

/// Keys the user's `[keys]` bound to two actions in one place: only one of
/// them ever gets the key there, which would otherwise go unnoticed (one
/// action silently loses its key). Said in the log and on the status bar.
/// A `MEMBANK_CONFIG` naming no file is said there too: the interface's
/// screen hides what the command line printed before it.
fn say_key_clashes(app: &mut App) {
    let clashes = app.keymap.new_clashes();
    for clash in &clashes {
        tracing::warn!("{clash}");
    }
    let mut said: Vec<String> = clashes.iter().map(ToString::to_string).collect();
    if let Some(missing) = membank_llm::config::named_config_missing() {
        let warning = sanitize_for_terminal(
            &membank_llm::config::missing_config_warning(&missing),
            false,
        );
        tracing::warn!("{warning}");
        said.insert(0, warning);
    }
    if !said.is_empty() {
        // All of them: a bar too narrow ends in `…` and `m` shows the rest.
        app.status.start_warning(said.join(" · "));
    }
}

/// [`prepare`] without reading the memory: the app starts on an empty
/// memory of the detected layout, so the first frame does not wait for a
/// large one; [`spawn_loader`] reads the real one.
pub fn prepare_unread(found: &Detected, options: &TuiOptions, size: Rect) -> anyhow::Result<App> {
    let (cfg, theme) = settings(options)?;
    let keymap = cfg.keymap()?;
    let placeholder = Unread::new(found.spec, found.root.clone());
    let mut app = App::new(Box::new(placeholder), theme, keymap, size, options.clock);
    let kind = app.memory_kind();
    app.status.info(format!("{} {kind}…", app::LOADING));
    say_key_clashes(&mut app);
    Ok(app)
}

/// Read the memory on a worker thread with its layout's counting open,
/// reporting the files read every tenth of a second and then the memory
/// itself through `tx`.
fn spawn_loader(found: &Detected, plan: reload::Plan, clock: Clock, tx: mpsc::Sender<Msg>) {
    let (spec, root) = (found.spec, found.root.clone());
    let files_read = std::sync::Arc::new(AtomicUsize::new(0));
    let done = std::sync::Arc::new(AtomicBool::new(false));
    {
        let (tx, files_read, done) = (tx.clone(), files_read.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                let n = files_read.load(Ordering::Relaxed);
                if done.load(Ordering::Relaxed) || tx.send(Msg::Loading(n)).is_err() {
                    return;
                }
            }
        });
    }
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        // A layout whose tree can be drawn from paths hands them over
        // first, so the tree is there while the files are read.
        // Laid out on a thread of its own, so reading starts at once.
        let (listed_tx, expanded) = (tx.clone(), plan.expanded.clone());
        let mut walked = move |paths: Vec<String>| {
            let (tx, expanded) = (listed_tx.clone(), expanded.clone());
            let spawned = std::thread::Builder::new()
                .name("membank-listing".into())
                .spawn(move || {
                    let tree = panes::bank::ListedTree::of(paths, &expanded);
                    let _ = tx.send(Msg::Listed(Box::new(tree)));
                });
            if let Err(e) = spawned {
                tracing::warn!(error = %e, "the tree waits for the bank to be read");
            }
        };
        let loaded = match spec.open_listing {
            Some(open) => open(&root, &files_read, &mut walked),
            None => (spec.open_counting)(&root, &files_read),
        }
        .map_err(|e| sanitize_for_terminal(&e.to_string(), false));
        done.store(true, Ordering::Relaxed);
        // The checks run here too, so the screen stays live meanwhile.
        let loaded = loaded.map(|memory| {
            let health = memory.check(&membank_core::health::HealthOptions::as_of(clock.today()));
            reload::prepare(memory.as_ref());
            // What the panes showed when the read began; anything changed
            // before the bank arrived is made again on the interface's thread.
            let derived = reload::Derived::of(memory.as_ref(), &health, &plan);
            tracing::info!(
                layout = spec.name,
                documents = memory.len(),
                millis = started.elapsed().as_millis() as u64,
                "read and checked in the background"
            );
            app::ReadMemory {
                memory,
                health: Some(health),
                derived: Some(derived),
            }
        });
        let _ = tx.send(Msg::Loaded(Box::new(loaded)));
    });
}

/// Start watching the memory on a worker thread; what changed and a
/// failure arrive as messages on `tx`. The slot holds the watcher once it
/// runs.
fn spawn_watcher(found: &Detected, tx: mpsc::Sender<Msg>) -> Arc<Mutex<Option<MemoryWatcher>>> {
    let slot = Arc::new(Mutex::new(None));
    let (spec, root, kept) = (found.spec, found.root.clone(), Arc::clone(&slot));
    let sink_tx = tx.clone();
    let sink = move |watched| {
        let msg = match watched {
            Watched::Changed(rels) => Msg::FilesChanged(rels.into_iter().map(Into::into).collect()),
            Watched::Failed(e) => Msg::Error(e),
        };
        sink_tx.send(msg).is_ok()
    };
    let spawned = std::thread::Builder::new()
        .name("membank-watch-setup".into())
        .spawn(move || match MemoryWatcher::spawn(spec, &root, sink) {
            Ok(w) => *kept.lock().unwrap_or_else(|e| e.into_inner()) = Some(w),
            Err(e) => {
                let _ = tx.send(Msg::Error(format!(
                    "not watching the bank for changes: {e}"
                )));
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "could not start watching");
    }
    slot
}

/// The user's config and theme; also records their read policy (once per
/// process; the command line has usually set it already).
fn settings(options: &TuiOptions) -> anyhow::Result<(config::Config, theme::Theme)> {
    // One config file for everything: `MEMBANK_CONFIG`, else the per-user one.
    let config_path = membank_llm::config::config_file_path();
    let cfg = match &config_path {
        Some(p) => config::Config::load(p)?,
        None => config::Config::default(),
    };
    let no_color = std::env::var("NO_COLOR").ok();
    let use_color = options.color.use_color(no_color.as_deref());
    let theme_dir = config::themes_dir(config_path.as_deref());
    let theme = cfg.theme(theme_dir.as_deref(), use_color)?;
    membank_core::safe_read::set_user_policy(crate::read_settings::load(config_path.as_deref())?);
    Ok((cfg, theme))
}

/// Safe-to-print form of an open error (paths may hold control characters).
fn open_error(e: memory::OpenError) -> anyhow::Error {
    anyhow::anyhow!(sanitize_for_terminal(&e.to_string(), false))
}

/// Open the interface on a memory of any layout and run it until the user
/// quits.
pub fn run_tui(bank_root: &Path, options: TuiOptions) -> anyhow::Result<ExitCode> {
    // Detected before the terminal is taken over, so a wrong path is a
    // plain message on the shell.
    let found = memory::detect(bank_root, options.format).map_err(|e| {
        let hint = match e {
            memory::OpenError::NoLayout(_) => {
                "; pass a memory folder: membank PATH, or create a bank with `membank init`"
            }
            _ => "",
        };
        anyhow::anyhow!("{}{hint}", sanitize_for_terminal(&e.to_string(), false))
    })?;
    let root = found
        .root
        .canonicalize()
        .with_context(|| format!("opening {}", bank_root.display()))?;
    // Drawn into a pipe or a file, the interface would take keys blind
    // and leave screen codes in the output.
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() || !std::io::stdin().is_terminal() {
        anyhow::bail!(
            "the interface needs a terminal, and standard {} is not one; for scripts and pipes \
             use the commands (membank check, context, search, read, …; membank --help)",
            if std::io::stdout().is_terminal() {
                "input"
            } else {
                "output"
            }
        );
    }
    let found = Detected {
        spec: found.spec,
        root: root.clone(),
    };
    tracing::info!(layout = found.spec.name, root = %root.display(), "opening in the interface");
    drop_later::keep_large_blocks_mapped();
    // The first frame comes at once; the memory is read on a worker thread.
    let (w, h) = ratatui::crossterm::terminal::size().unwrap_or((80, 24));
    let mut app = prepare_unread(&found, &options, Rect::new(0, 0, w, h))?;
    if let Some(saved) = crate::last_query::load(&root) {
        app.restore_query(&saved);
    }
    let layout = crate::layout_state::load();
    if let Some(width) = layout.tree_width {
        app.restore_tree_width(width);
    }
    if let Some(label) = &options.label {
        app.bank_label = sanitize_for_terminal(label, false);
        app.status.bank = app.bank_label.clone();
    }
    if let Some(notice) = &options.notice {
        app.status.notice(sanitize_for_terminal(notice, false));
    }
    if let Some(file) = &options.qa {
        app.check_terms(file.clone());
    }
    // crossterm drops colours by itself when NO_COLOR is set; the theme has
    // already decided (NO_COLOR or --color), so make crossterm follow it.
    let no_color = std::env::var("NO_COLOR").ok();
    ratatui::crossterm::style::force_color_output(options.color.use_color(no_color.as_deref()));

    terminal::install_panic_hook();
    let mut term = terminal::enter(!options.no_mouse).context("setting up the terminal")?;
    let result = event_loop(&mut term, &mut app, &found);
    let restored = terminal::leave();
    // A reply paid for and not yet written is kept, and where is said on
    // the shell the user returns to.
    for said in app.panes.agents.keep_replies(&root, app.clock.now()) {
        eprintln!("membank: {said}");
    }
    // Only a bank has a §7 query to remember.
    let saved = match app.bank() {
        Some(_) => crate::last_query::save(&root, &app.panes.context.saved_query()),
        None => Ok(()),
    };
    // Written only when the user changed it, so a session that did not
    // leaves the state folder alone.
    let laid_out = crate::layout_state::SavedLayout {
        tree_width: app.tree_width,
    };
    let layout_saved = match laid_out != layout {
        true => crate::layout_state::save(&laid_out),
        false => Ok(()),
    };
    result?;
    restored.context("restoring the terminal")?;
    if let Err(e) = saved {
        eprintln!("membank: the last query could not be remembered: {e}");
    }
    if let Err(e) = layout_saved {
        eprintln!("membank: the tree's width could not be remembered: {e}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Keys should never wait longer than this; a step of the event loop
/// that takes longer is logged, to find what held them up.
const KEY_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

fn note_if_slow(step: &'static str, started: std::time::Instant) {
    let took = started.elapsed();
    if took > KEY_WAIT {
        tracing::info!(
            step,
            millis = took.as_millis() as u64,
            "the interface was busy longer than a key should wait"
        );
    }
}

fn event_loop(term: &mut terminal::Term, app: &mut App, found: &Detected) -> anyhow::Result<()> {
    let root = found.root.as_path();
    let (tx, rx) = mpsc::channel();
    let reader = InputReader::spawn(tx.clone());
    // Model messages arrive on the same channel as keys, so a streaming
    // reply is drawn as it arrives and never delays a key.
    let llm_tx = tx.clone();
    app.send_model_messages_to(move |m| {
        let _ = llm_tx.send(Msg::Llm(m));
    });
    let background_tx = tx.clone();
    app.send_background_results_to(move |m| {
        let _ = background_tx.send(m);
    });
    spawn_loader(found, app.plan(), app.clock, tx.clone());
    // Watching a large memory means visiting every folder of it first
    // (about a second at 100,000 files): done beside the first frame, not
    // before it. The watcher lives as long as this loop.
    let _watcher = spawn_watcher(found, tx);
    let size = term.size()?;
    update(app, Msg::Resize(size.width, size.height));
    let mut told_tmux = false;
    loop {
        if app.dirty {
            let started = std::time::Instant::now();
            term.draw(|f| ui::draw(f, app))?;
            app.dirty = false;
            note_if_slow("draw", started);
        }
        // Sleep until something happens (or a status message is due to
        // go), then take everything that is waiting before drawing once.
        let first = match app.status.next_expiry() {
            Some(due) => {
                let wait = due.saturating_duration_since(std::time::Instant::now());
                match rx.recv_timeout(wait) {
                    Ok(input) => input,
                    Err(mpsc::RecvTimeoutError::Timeout) => {
                        update(app, Msg::Tick(std::time::Instant::now()));
                        continue;
                    }
                    Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
                }
            }
            None => match rx.recv() {
                Ok(input) => input,
                Err(_) => return Ok(()),
            },
        };
        let mut inputs = vec![first];
        inputs.extend(rx.try_iter());
        for msg in inputs {
            let (kind, started) = (msg.kind(), std::time::Instant::now());
            update(app, msg);
            note_if_slow(kind, started);
            for effect in std::mem::take(&mut app.effects) {
                match effect {
                    Effect::Quit => return Ok(()),
                    Effect::Suspend => {
                        reader.pause();
                        let r = terminal::suspend(term);
                        reader.resume();
                        r.context("resuming after suspend")?;
                        app.dirty = true;
                    }
                    Effect::Edit { rel, line } => {
                        reader.pause();
                        let status = terminal::run_editor(term, &root.join(&rel), line);
                        reader.resume();
                        match status {
                            Ok(s) => {
                                update(app, Msg::Edited(rel));
                                if !s.success() {
                                    app.status.warn(format!("editor exited with {s}"));
                                }
                            }
                            Err(e) => app.status.error(e.to_string()),
                        }
                        app.dirty = true;
                    }
                    Effect::Copy(text) => {
                        osc52::copy(term.backend_mut(), &text)?;
                        if osc52::in_tmux() && !std::mem::replace(&mut told_tmux, true) {
                            app.status.info(osc52::TMUX_HINT);
                            app.dirty = true;
                        }
                    }
                    // `update` applies every other effect before returning.
                    _ => {}
                }
            }
        }
    }
}
