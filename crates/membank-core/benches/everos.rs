//! Speed on a large synthetic everos memory root: loading it, listing one
//! user's entries since a day, and full-text search.
//!
//! `cargo bench -p membank-core --features synth --bench everos`; the root
//! has 100,000 entries by default (`MEMBANK_BENCH_ENTRIES` changes it): see
//! `membank_core::synth_everos`.

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use membank_core::everos::query::{self, EntryFilter};
use membank_core::everos::{self, OwnerKind};
use membank_core::search::SearchIndex;
use membank_core::synth_everos::{day, generate};

fn main() {
    let entries: usize = std::env::var("MEMBANK_BENCH_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let days = generate(tmp.path(), entries).expect("writes the root");
    let dir = tmp.path();
    let mut c = Criterion::default().configure_from_args();

    let mut g = c.benchmark_group("everos");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    g.bench_function(format!("load_{entries}"), |b| {
        b.iter_with_large_drop(|| everos::load(black_box(dir)).expect("loads"))
    });
    let since = day(days.saturating_sub(30));
    let filter = EntryFilter {
        owner_kind: Some(OwnerKind::User),
        owner: Some("user_007".into()),
        since: Some(since),
        ..EntryFilter::default()
    };
    // What `membank entries ROOT --user U --since D` does: load the user's
    // folders only, then filter.
    g.bench_function(format!("entries_user_since_{entries}"), |b| {
        b.iter(|| {
            let root = everos::load_filtered(dir, &filter.load_filter()).expect("loads");
            black_box(query::entries(&root, &filter).len())
        })
    });
    let root = everos::load(dir).expect("loads");
    let memory: &dyn membank_core::memory::Memory = &root;
    // What `membank search ROOT QUERY` does after loading: index and rank.
    g.bench_function(format!("search_index_and_query_{entries}"), |b| {
        b.iter_with_large_drop(|| {
            let index = SearchIndex::of_memory(memory);
            black_box(index.search(memory, "kyoto budget deadline", 20).len());
            index
        })
    });
    let index = SearchIndex::of_memory(memory);
    g.bench_function(format!("search_query_only_{entries}"), |b| {
        b.iter(|| black_box(index.search(memory, "kyoto budget deadline", 20).len()))
    });
    g.finish();
    c.final_summary();
}
