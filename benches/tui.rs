//! How long one key press takes to reach the screen on a large bank, and
//! how many bytes a selection move sends to the terminal.
//!
//! Each measured step is what the event loop does for a key: `update`, then
//! one draw through a crossterm backend (into a byte counter instead of a
//! tty, so the escape-sequence encoding is included).

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use membank::tui::app::{App, Msg, Pane, ReadMemory};
use membank::tui::keys::KeyMap;
use membank::tui::theme::Theme;
use membank::tui::ui;
use membank::tui::update::update;
use membank_core::bank::Bank;
use membank_core::health::{self, HealthOptions, incremental};
use membank_core::memory::Memory;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

const WIDTH: u16 = 160;
const HEIGHT: u16 = 48;
const TERMS: usize = 4000;
const CLIENTS: usize = 200;
const DOMAINS: usize = 60;

/// Discards output, counting bytes.
#[derive(Clone, Default)]
struct Counter(Arc<AtomicUsize>);

impl Write for Counter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.fetch_add(buf.len(), Ordering::Relaxed);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn write_bank(root: &Path) {
    let w = |rel: String, text: String| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    for f in [
        "00_INBOX",
        "05_INDICES",
        "06_TEMPLATES",
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "03_DOMAINS",
        "04_STYLE",
    ] {
        std::fs::create_dir_all(root.join(f)).unwrap();
    }
    for c in 0..CLIENTS {
        w(
            format!("01_CLIENTS/Client {c}.md"),
            format!(
                "---\nclient: \"Client {c}\"\nlanguages: [\"en-US → nl-BE\"]\ndomains: [\"[[Domain {}]]\"]\nlast_updated: 2026-01-{:02}\n---\n# Client {c}\n\nProfile text for client {c}. See [[Domain {}]].\n",
                c % DOMAINS,
                c % 28 + 1,
                c % DOMAINS
            ),
        );
    }
    for d in 0..DOMAINS {
        w(
            format!("03_DOMAINS/Domain {d}.md"),
            format!(
                "---\ndomain: \"Domain {d}\"\nlanguages: [\"en-US → nl-BE\"]\nlast_updated: 2026-02-01\n---\n# Domain {d}\n\n{}\n",
                "Domain knowledge sentence. ".repeat(40)
            ),
        );
    }
    for t in 0..TERMS {
        w(
            format!("02_TERMINOLOGY/term {t} → term {t} nl.md"),
            format!(
                "---\nterm_source: \"term {t}\"\nterm_target: \"term {t} nl\"\nsource_lang: en-US\ntarget_lang: nl-BE\ndomain: \"[[Domain {}]]\"\nclients: [\"[[Client {}]]\"]\nstatus: approved\nlast_updated: 2026-03-{:02}\n---\n# term {t}\n\nUse *term {t} nl* in [[Domain {}]] texts.\n\n| a | b |\n|---|---|\n| x | y |\n",
                t % DOMAINS,
                t % CLIENTS,
                t % 28 + 1,
                t % DOMAINS
            ),
        );
    }
    w(
        "04_STYLE/House.md".into(),
        "---\nscope: general\nlanguages: [\"en → nl\"]\n---\n# House\n".into(),
    );
}

fn press(app: &mut App, code: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
}

fn setup(root: &Path) -> (App, Terminal<CrosstermBackend<Counter>>, Counter) {
    let bank = Bank::load(root).unwrap();
    let app = App::new(
        Box::new(bank),
        Theme::default_theme(),
        KeyMap::default(),
        Rect::new(0, 0, WIDTH, HEIGHT),
        membank_core::clock::Clock::pinned_at("2026-11-26").unwrap(),
    );
    let counter = Counter::default();
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT)),
    };
    let term = Terminal::with_options(CrosstermBackend::new(counter.clone()), options).unwrap();
    (app, term, counter)
}

/// One key and the redraw it causes.
fn step(app: &mut App, term: &mut Terminal<CrosstermBackend<Counter>>, code: KeyCode) {
    press(app, code);
    if app.dirty {
        term.draw(|f| ui::draw(f, app)).unwrap();
        app.dirty = false;
    }
}

fn bytes_per_move(app: &mut App, term: &mut Terminal<CrosstermBackend<Counter>>, c: &Counter) {
    term.draw(|f| ui::draw(f, app)).unwrap();
    let moves = 20;
    let before = c.0.load(Ordering::Relaxed);
    for i in 0..moves {
        step(
            app,
            term,
            if i % 2 == 0 {
                KeyCode::Down
            } else {
                KeyCode::Up
            },
        );
    }
    let bytes = c.0.load(Ordering::Relaxed) - before;
    eprintln!(
        "bytes written per selection move ({:?} pane): {}",
        app.focus,
        bytes / moves
    );
}

/// A mass change (a `git pull`): `CHANGED` files read again into a copy of
/// the bank, their health re-checked, and the new bank put on screen. Only
/// the last step runs on the interface's thread. The files are read again
/// as they are (the bank is only read), so no link moves: the re-check does
/// the least it can beyond the changed files themselves.
fn mass_change(crit: &mut Criterion, root: &Path) {
    const CHANGED: usize = 2000;
    let bank = Bank::load(root).unwrap();
    let step = (bank.articles().len() / CHANGED).max(1);
    let changed: Vec<String> = bank
        .articles()
        .iter()
        .step_by(step)
        .take(CHANGED)
        .map(|a| a.rel_path.clone())
        .collect();
    let opts = HealthOptions::as_of(jiff::civil::date(2026, 11, 26));
    let report = health::check(&bank, &opts);
    eprintln!(
        "mass change: {} of {} articles, {} findings",
        changed.len(),
        bank.articles().len(),
        report.findings.len()
    );
    let mut group = crit.benchmark_group("mass change");
    group.sample_size(10);
    group.bench_function("worker: Bank::reloaded", |b| {
        b.iter(|| bank.reloaded(&changed).articles().len())
    });
    let after = bank.reloaded(&changed);
    group.bench_function("worker: health recheck", |b| {
        b.iter(|| {
            incremental::recheck(&bank, &report, &after, &changed, &opts)
                .findings
                .len()
        })
    });
    group.bench_function("worker: health check in full", |b| {
        b.iter(|| health::check(&after, &opts).findings.len())
    });
    // What the interface's thread does when the new bank arrives with what
    // the worker derived from it: swap it in, install the rest, draw.
    let (mut app, mut term, _) = setup(root);
    let plan = app.plan();
    group.bench_function("interface: new bank arrives → redraw", |b| {
        b.iter_batched(
            || {
                let fresh = bank.reloaded(&changed);
                membank::tui::reload::prepare(&fresh);
                let health = health::check(&fresh, &opts);
                let derived = membank::tui::reload::Derived::of(&fresh, &health, &plan);
                let memory: Box<dyn Memory> = Box::new(fresh);
                ReadMemory {
                    memory,
                    health: Some(health),
                    derived: Some(derived),
                }
            },
            |read| {
                update(&mut app, Msg::Loaded(Box::new(Ok(read))));
                term.draw(|f| ui::draw(f, &app)).unwrap();
                app.dirty = false;
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// A reply streaming in: one piece of 16 characters arriving (kept,
/// sanitised, wrapped) and the status line the pane draws, at several
/// lengths of the reply so far. Flat means the cost does not grow with it.
fn streaming(crit: &mut Criterion) {
    use membank::tui::panes::agents::stream::Stream;
    use membank_llm::StreamEvent;
    const PIECE: &str = "a word or three ";
    // Paragraphs of about 400 characters, as models write them.
    let paragraph = |i: usize| {
        if i % 25 == 24 {
            "and so on.\n\n".to_owned()
        } else {
            PIECE.to_owned()
        }
    };
    let stream_at = |len: usize| {
        let mut s = Stream::default();
        s.set_width(80);
        s.start();
        let mut i = 0;
        while s.text.len() < len {
            s.apply(StreamEvent::Delta(paragraph(i)));
            i += 1;
        }
        (s, i)
    };
    let mut group = crit.benchmark_group("streaming: one piece arrives");
    for len in [2_000, 20_000, 200_000] {
        group.bench_function(format!("reply of {len} characters"), |b| {
            b.iter_custom(|iters| {
                let mut took = std::time::Duration::ZERO;
                let mut left = iters;
                while left > 0 {
                    // A fresh reply every thousand pieces, so the length
                    // measured stays the one named.
                    let (mut s, mut i) = stream_at(len);
                    let batch = left.min(1000);
                    let start = std::time::Instant::now();
                    for _ in 0..batch {
                        s.apply(StreamEvent::Delta(paragraph(i)));
                        std::hint::black_box(s.status_rows(80));
                        i += 1;
                    }
                    took += start.elapsed();
                    left -= batch;
                }
                took
            })
        });
    }
    group.finish();
}

fn benches(crit: &mut Criterion) {
    let only = std::env::var("MEMBANK_BENCH_ONLY").ok();
    if only.as_deref() == Some("streaming") {
        streaming(crit);
        return;
    }
    // MEMBANK_BENCH_BANK measures an existing bank (e.g. one made by the
    // gen_bank example) instead of the small generated one; it is only
    // read, so the file-change bench is skipped.
    let given = std::env::var_os("MEMBANK_BENCH_BANK").map(std::path::PathBuf::from);
    let dir = tempfile::tempdir().unwrap();
    let root = match &given {
        Some(p) => p.clone(),
        None => {
            write_bank(dir.path());
            dir.path().to_path_buf()
        }
    };
    if only.as_deref() != Some("keys") {
        mass_change(crit, &root);
    }
    if only.as_deref() == Some("mass-change") {
        return;
    }
    let (mut app, mut term, counter) = setup(&root);
    eprintln!(
        "bank: {} articles; screen {WIDTH}x{HEIGHT}",
        app.bank().expect("the bench opens a bank").articles().len()
    );

    // An outside edit: one file re-read, everything derived from the bank
    // (health, tree, ranking) recomputed, one redraw.
    if given.is_none() {
        let edited = dir.path().join("02_TERMINOLOGY/term 7 → term 7 nl.md");
        let original = std::fs::read_to_string(&edited).unwrap();
        crit.bench_function("file changed → reload → redraw", |b| {
            b.iter(|| {
                std::fs::write(&edited, format!("{original}\nedited\n")).unwrap();
                update(&mut app, Msg::FilesChanged(vec![edited.clone()]));
                term.draw(|f| ui::draw(f, &app)).unwrap();
                app.dirty = false;
            })
        });
    }

    // Tree: move the selection down and back up.
    bytes_per_move(&mut app, &mut term, &counter);
    let mut down = true;
    crit.bench_function("tree: key → redraw", |b| {
        b.iter(|| {
            step(
                &mut app,
                &mut term,
                if down { KeyCode::Down } else { KeyCode::Up },
            );
            down = !down;
        })
    });

    // Inspector: move over the ranked candidates.
    app.focus = Pane::Bank;
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.focus, Pane::Context);
    for _ in 0..8 {
        press(&mut app, KeyCode::Down);
    }
    bytes_per_move(&mut app, &mut term, &counter);

    // Inspector: typing into the client field re-ranks the whole bank.
    for _ in 0..20 {
        press(&mut app, KeyCode::Up);
    }
    press(&mut app, KeyCode::Enter);
    for ch in "Client 1".chars() {
        press(&mut app, KeyCode::Char(ch));
    }
    // The core's share of that: ranking and budgeting alone.
    let query = membank_core::scoring::Query {
        client: Some("Client 17".into()),
        ..Default::default()
    };
    crit.bench_function("core context::build alone", |b| {
        b.iter(|| {
            membank_core::context::build(
                app.bank().expect("the bench opens a bank"),
                &query,
                Default::default(),
            )
            .articles
            .len()
        })
    });
    let mut typed = false;
    crit.bench_function("inspector: keystroke → re-rank → redraw", |b| {
        b.iter(|| {
            let code = if typed {
                KeyCode::Backspace
            } else {
                KeyCode::Char('7')
            };
            step(&mut app, &mut term, code);
            typed = !typed;
        })
    });
}

criterion_group! {
    name = tui;
    config = Criterion::default().sample_size(30);
    targets = benches
}
criterion_main!(tui);
