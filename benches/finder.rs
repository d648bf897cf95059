//! The finder on a 100,000-article bank: one keystroke is a re-rank of the
//! whole bank (or of the previous query's matches when a character is
//! added) and one redraw of the popup through a crossterm backend.

use std::io::{self, Write};

use criterion::{Criterion, criterion_group, criterion_main};
use membank::tui::theme::Theme;
use membank::tui::widgets::fuzzy::{self, Finder, FinderItem, Placement};
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

const ARTICLES: usize = 100_000;
const WIDTH: u16 = 160;
const HEIGHT: u16 = 48;

struct Discard;

impl Write for Discard {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Names shaped like a large translation bank: mostly term articles, some
/// clients, domains, style guides and inbox notes.
fn items() -> Vec<FinderItem> {
    (0..ARTICLES)
        .map(|i| {
            let (name, folder, placement) = match i % 50 {
                0 => (format!("Client {i}"), "01_CLIENTS", Placement::Content),
                1 => (format!("Domain {i}"), "03_DOMAINS", Placement::Content),
                2 => (format!("Style guide {i}"), "04_STYLE", Placement::Content),
                3 => (
                    format!("meeting notes {i}"),
                    "00_INBOX/_archive",
                    Placement::Archived,
                ),
                _ => (
                    format!("term {i} → terme {i} traduit"),
                    "02_TERMINOLOGY",
                    Placement::Content,
                ),
            };
            FinderItem {
                name,
                title: None,
                folder: folder.to_owned(),
                placement,
                id: i,
            }
        })
        .collect()
}

fn benches(c: &mut Criterion) {
    let theme = Theme::default_theme();
    let mut finder = Finder::new("Find article", items(), &theme);
    let options = TerminalOptions {
        viewport: Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT)),
    };
    let mut term = Terminal::with_options(CrosstermBackend::new(Discard), options).unwrap();
    let mut redraw = |finder: &Finder| {
        term.draw(|f| fuzzy::draw(f, finder, &theme)).unwrap();
    };
    redraw(&finder);

    // Typing "client 4" and deleting it again, one key per iteration.
    let word = "client 4";
    let mut steps: Vec<usize> = (1..=word.chars().count()).collect();
    steps.extend((0..word.chars().count()).rev());
    let mut at = 0;
    c.bench_function("finder 100k: keystroke → re-rank → redraw", |b| {
        b.iter(|| {
            let n = steps[at % steps.len()];
            at += 1;
            let query: String = word.chars().take(n).collect();
            finder.input = ratatui_textarea::TextArea::from([query]);
            finder.refilter();
            redraw(&finder);
            finder.total
        })
    });

    // The slowest key: the first character, scored against every article;
    // then the query is cleared again (two keys and two redraws).
    c.bench_function(
        "finder 100k: first key over every article, then clear",
        |b| {
            b.iter(|| {
                for query in ["e", ""] {
                    finder.input = ratatui_textarea::TextArea::from([query.to_owned()]);
                    finder.refilter();
                    redraw(&finder);
                }
                finder.total
            })
        },
    );
}

criterion_group! {
    name = finder;
    config = Criterion::default().sample_size(20);
    targets = benches
}
criterion_main!(finder);
