//! Times what opening the interface on a bank costs, phase by phase.
//! `cargo run --release --example first_frame -- BANK`

use std::time::Instant;

use membank::tui::{TuiOptions, prepare};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

fn main() {
    let bank = std::env::args().nth(1).expect("usage: first_frame BANK");
    let t = Instant::now();
    let loaded = membank_core::bank::Bank::load(&bank).expect("bank");
    let load = t.elapsed();
    let t = Instant::now();
    let health = membank_core::health::check(&loaded, &Default::default());
    println!(
        "load {load:.2?}, health {:.2?} ({} findings)",
        t.elapsed(),
        health.findings.len()
    );
    drop(loaded);
    let t = Instant::now();
    let app = prepare(
        std::path::Path::new(&bank),
        &TuiOptions::default(),
        Rect::new(0, 0, 120, 32),
    )
    .expect("app");
    let prepared = t.elapsed();
    let t = Instant::now();
    let mut term = Terminal::new(TestBackend::new(120, 32)).unwrap();
    term.draw(|f| membank::tui::ui::draw(f, &app)).unwrap();
    println!("prepare {prepared:.2?}, first draw {:.2?}", t.elapsed());
}
