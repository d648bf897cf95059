//! Where a loaded bank's memory goes: the heap in use and its peak after
//! each step, counted by a wrapping allocator (resident memory also counts
//! the allocator's spare pages; this counts only live allocations).
//!
//! `heap_profile DIR [everything|context|metadata|check]`

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};

use membank_core::bank::{Bank, LoadOptions};
use membank_core::health::{self, HealthOptions};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);
static BLOCKS: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only
// counters are updated around it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
            CALLS.fetch_add(1, Ordering::Relaxed);
            BLOCKS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        BLOCKS.fetch_sub(1, Ordering::Relaxed);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grow = new_size - layout.size();
                let now = LIVE.fetch_add(grow, Ordering::Relaxed) + grow;
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
            CALLS.fetch_add(1, Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn report(step: &str) {
    let mb = |n: usize| n as f64 / 1e6;
    println!(
        "{step:<10} live {:>8.1} MB in {:>9} blocks, peak {:>8.1} MB, allocations {:>10}",
        mb(LIVE.load(Ordering::Relaxed)),
        BLOCKS.load(Ordering::Relaxed),
        mb(PEAK.load(Ordering::Relaxed)),
        CALLS.load(Ordering::Relaxed)
    );
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(dir), mode) = (args.next(), args.next()) else {
        eprintln!("usage: heap_profile DIR [everything|context|metadata|check]");
        return ExitCode::from(2);
    };
    let options = match mode.as_deref().unwrap_or("everything") {
        "everything" => LoadOptions::EVERYTHING,
        "check" => LoadOptions::CHECK,
        "context" => LoadOptions::CONTEXT,
        "metadata" => LoadOptions::METADATA,
        other => {
            eprintln!("unknown mode {other:?}");
            return ExitCode::from(2);
        }
    };
    let bank = match Bank::load_only(&dir, options) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::FAILURE;
        }
    };
    report("loaded");
    {
        use membank_core::article::*;
        use std::mem::size_of;
        println!(
            "sizes: meta {} frontmatter {} encoding {} keyed {} language {}",
            size_of::<Meta>(),
            size_of::<FrontmatterState>(),
            size_of::<Encoding>(),
            size_of::<KeyedValue>(),
            size_of::<LanguageValue>()
        );
    }
    let a = bank.articles();
    let text: usize = a.iter().map(|a| a.text.capacity()).sum();
    let links: usize = a.iter().map(|a| a.links.len()).sum();
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
    let link_bytes: usize = a.iter().map(|a| a.links.heap_bytes()).sum();
    println!(
        "{} articles × {} bytes = {:.1} MB; text {:.1} MB; names {:.1} MB; {links} links: records and text {:.1} MB",
        a.len(),
        std::mem::size_of::<membank_core::article::Article>(),
        std::mem::size_of_val(a) as f64 / 1e6,
        text as f64 / 1e6,
        names as f64 / 1e6,
        link_bytes as f64 / 1e6,
    );
    if mode.as_deref() == Some("check") {
        let report_ = health::check(
            &bank,
            &HealthOptions::as_of(membank_core::clock::Clock::System.today()),
        );
        report("checked");
        println!("{} findings", report_.findings.len());
    }
    std::mem::forget(bank);
    ExitCode::SUCCESS
}
