//! What the interface holds once a bank is read, step by step: the live
//! heap (counted by a wrapping allocator; resident memory also counts the
//! allocator's spare pages) after each thing the interface builds, as the
//! loader thread builds it, then after the search index.
//!
//! ```sh
//! cargo run --release --example tui_heap -- BANK
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use membank::tui::app::{App, Msg};
use membank::tui::keys::KeyMap;
use membank::tui::messages::ReadMemory;
use membank::tui::panes::bank::{ListedTree, bank_rows, group_files};
use membank::tui::panes::health::{flagged_files, group_findings};
use membank::tui::theme::Theme;
use membank::tui::update::update;
use membank_core::bank::Bank;
use membank_core::clock::Clock;
use membank_core::health::HealthOptions;
use membank_core::memory::Memory;
use membank_core::search::SearchIndex;
use membank_core::vocabulary;
use ratatui::layout::Rect;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
/// Live allocations: each costs the allocator a header and rounding on top
/// of its bytes, so many small ones make resident memory exceed the count.
static BLOCKS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only
// the count of live bytes is updated around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
            BLOCKS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        BLOCKS.fetch_sub(1, Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// Prints what `make` left allocated, and gives back what it made.
fn step<T>(what: &str, make: impl FnOnce() -> T) -> T {
    let before = live();
    let blocks_before = BLOCKS.load(Ordering::Relaxed);
    let made = make();
    let added = live() as f64 - before as f64;
    let blocks = BLOCKS.load(Ordering::Relaxed) as f64 - blocks_before as f64;
    println!(
        "{what:<44} {:>8.1} MB {:>9.0} blocks   (live {:>7.1} MB)",
        added / 1e6,
        blocks,
        live() as f64 / 1e6
    );
    allocator_line();
    made
}

/// What glibc holds beyond the live blocks, all arenas together: its free
/// chunks (resident unless whole pages of them were given back) and the
/// blocks given mappings of their own.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn allocator_line() {
    // SAFETY: mallinfo2 only reads the allocator's counters, under its locks.
    let mi = unsafe { libc::mallinfo2() };
    println!(
        "{:<44} arenas {:.1} MB, {} free chunks {:.1} MB, {} own mappings {:.1} MB",
        "  allocator:",
        mi.arena as f64 / 1e6,
        mi.ordblks,
        mi.fordblks as f64 / 1e6,
        mi.hblks,
        mi.hblkhd as f64 / 1e6,
    );
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn allocator_line() {}

fn main() {
    let Some(root) = std::env::args().nth(1) else {
        eprintln!("usage: tui_heap BANK");
        std::process::exit(2);
    };
    // As the interface sets it, so the allocator's lines are its own.
    membank::tui::drop_later::keep_large_blocks_mapped();
    let clock = Clock::System;
    let size = Rect::new(0, 0, 140, 40);
    let mut app = step("the interface, empty", || {
        App::new(
            Box::new(Bank::unread(&root).expect("a bank")),
            Theme::default_theme(),
            KeyMap::default(),
            size,
            clock,
        )
    });
    let plan = app.plan();
    let expanded = BTreeSet::new();
    let files_read = AtomicUsize::new(0);
    let mut paths = Vec::new();
    let bank = step("the bank, read", || {
        Bank::load_listing(&root, &files_read, &mut |p| paths = p).expect("a bank")
    });
    // Handed to the interface with the bank (it makes the first tree of
    // them), so counted in the bank's step above, though not the bank's.
    println!(
        "  of which: the walked paths handed out {:.1} MB",
        (paths.capacity() * size_of::<String>() + paths.iter().map(String::capacity).sum::<usize>())
            as f64
            / 1e6
    );
    let listed = step("the tree of the walked paths", || {
        ListedTree::of(paths, &expanded)
    });
    drop(listed);
    {
        let a = bank.articles();
        let text: usize = a.iter().map(|a| a.text.capacity()).sum();
        let names: usize = a
            .iter()
            // A title that is the stem is not kept.
            .map(|a| {
                a.rel_path.capacity()
                    + if a.title() == a.stem() {
                        0
                    } else {
                        a.title().len()
                    }
            })
            .sum();
        let links: usize = a.iter().map(|a| a.links.len()).sum();
        let link_bytes: usize = a.iter().map(|a| a.links.heap_bytes()).sum();
        let with_links = a.iter().filter(|a| !a.links.is_empty()).count();
        println!(
            "  of which: {} articles × {} B = {:.1} MB, text {:.1} MB, path and title {:.1} MB, \
             {links} links: records and text {:.1} MB ({} articles with links, two allocations each)",
            a.len(),
            size_of::<membank_core::article::Article>(),
            std::mem::size_of_val(a) as f64 / 1e6,
            text as f64 / 1e6,
            names as f64 / 1e6,
            link_bytes as f64 / 1e6,
            with_links,
        );
    }
    bank_parts(&bank);
    let health = step("the health checks", || {
        bank.check(&HealthOptions::as_of(clock.today()))
    });
    println!(
        "  of which: {} findings × {} B",
        health.findings.len(),
        size_of::<membank_core::health::Finding>()
    );
    step("the scoring arrays", || {
        membank::tui::reload::prepare(&bank);
    });
    let flagged = step("the files with findings", || flagged_files(&health));
    let grouped = step("the files grouped for the tree", || {
        group_files(&bank, plan.sort, &flagged)
    });
    let rows = step("the tree's rows", || {
        bank_rows(Some(&bank), &grouped, &plan.expanded, &flagged)
    });
    let values = step("the vocabulary", || vocabulary::collect(&bank));
    // The core's report is what the loader hands over; the pane keeps
    // its candidates, made from the report's entries when it is shown.
    let report = step("the Context ranking, as handed over", || {
        plan.ranking.build(&bank)
    });
    let ranked = step("its entries made the candidates kept (net)", || {
        membank::tui::panes::context::Candidates::of(report.articles)
    });
    let findings = step("the findings grouped for Health", || {
        group_findings(&health, "")
    });
    println!(
        "  rows: {} tree rows × {} B, health rows × {} B",
        rows.len(),
        size_of::<membank::tui::panes::bank::TreeRow>(),
        size_of::<membank::tui::panes::health::HealthRow>()
    );
    let shared = std::sync::Arc::new(health);
    let pane = step("the Health pane's rows", || {
        let mut pane = membank::tui::panes::health::HealthPane::default();
        pane.refresh(shared.clone(), 30);
        pane
    });
    println!("  of which: {} health rows", pane.rows.len());
    drop(pane);
    let health = std::sync::Arc::into_inner(shared).expect("one owner");
    drop((flagged, grouped, rows, values, ranked, findings));
    let memory: Box<dyn Memory> = Box::new(bank);
    let derived = step("all of the above, as the loader builds it", || {
        membank::tui::reload::Derived::of(memory.as_ref(), &health, &plan)
    });
    step("shown by the interface", || {
        update(
            &mut app,
            Msg::Loaded(Box::new(Ok(ReadMemory {
                memory,
                health: Some(health),
                derived: Some(derived),
            }))),
        );
    });
    let index = step("the search index", || {
        SearchIndex::of_memory(app.memory.as_ref())
    });
    println!("total live {:.1} MB", live() as f64 / 1e6);
    std::mem::forget(index);
    std::mem::forget(app);
}

/// The bank's holders beyond the articles' records and strings: each
/// article's metadata lists and where its links point (the link index by
/// names is what the bank's step adds beyond all these).
fn bank_parts(bank: &Bank) {
    use membank_core::article::{KeyedValue, LanguageValue, Tags};
    use membank_core::bank::Resolution;
    let a = bank.articles();
    // Lists equal across articles are one shared copy: each counted once,
    // with the two counts before its items.
    let mut seen = std::collections::HashSet::new();
    let mut list = |ptr: *const u8, items: usize| {
        if items == 0 || !seen.insert(ptr) {
            0
        } else {
            2 * size_of::<usize>() + items
        }
    };
    let meta: usize = a
        .iter()
        .map(|a| {
            let m = &a.meta;
            let arc = size_of::<std::sync::Arc<str>>();
            list(m.empty_keys.as_ptr().cast(), m.empty_keys.len() * arc)
                + list(
                    m.clients.as_ptr().cast(),
                    m.clients.len() * size_of::<KeyedValue>(),
                )
                + list(
                    m.domains.as_ptr().cast(),
                    m.domains.len() * size_of::<KeyedValue>(),
                )
                + list(
                    m.languages.as_ptr().cast(),
                    m.languages.len() * size_of::<LanguageValue>()
                        + m.languages
                            .iter()
                            .map(|l| match &l.tags {
                                // The value's own copy, counted with it.
                                Tags::One(_) => 0,
                                Tags::Many(many) => many.len() * arc,
                            })
                            .sum::<usize>(),
                )
        })
        .sum();
    // Four bytes a link, and the articles of each ambiguous one.
    let resolutions: usize = (0..a.len())
        .flat_map(|id| bank.outgoing(id))
        .map(|(_, r)| {
            size_of::<u32>()
                + match r {
                    Resolution::Ambiguous(ids) => ids.len() * size_of::<u32>(),
                    _ => 0,
                }
        })
        .sum();
    let backlinks: usize = (0..a.len()).map(|id| bank.backlinks(id).len()).sum();
    println!(
        "  sizes: article {} B (metadata {} B, frontmatter state {} B, encoding {} B)",
        size_of::<membank_core::article::Article>(),
        size_of::<membank_core::article::Meta>(),
        size_of::<membank_core::article::FrontmatterState>(),
        size_of::<membank_core::article::Encoding>(),
    );
    println!(
        "  and: metadata lists {:.1} MB, where links point {:.1} MB, \
         {backlinks} backlinks {:.1} MB (+ offsets {:.1} MB), the names links are looked up by {:.1} MB",
        meta as f64 / 1e6,
        resolutions as f64 / 1e6,
        (backlinks * size_of::<u32>()) as f64 / 1e6,
        ((a.len() + 1) * size_of::<u32>()) as f64 / 1e6,
        bank.link_index_bytes() as f64 / 1e6,
    );
}
