//! Speed on a large synthetic everos memory root: loading it, listing one
//! user's entries since a day, and full-text search.
//!
//! `cargo bench -p membank-core --bench everos`; the root has 100,000
//! entries by default (`MEMBANK_BENCH_ENTRIES` changes it): 50 users in two
//! projects, 5 entries per daily log, as many days as that takes.

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use criterion::Criterion;
use membank_core::everos::query::{self, EntryFilter};
use membank_core::everos::{self, OwnerKind};
use membank_core::search::SearchIndex;

const USERS: usize = 50;
const PER_FILE: usize = 5;

const WORDS: &[&str] = &[
    "budget",
    "trip",
    "meeting",
    "invoice",
    "kyoto",
    "deadline",
    "migration",
    "coffee",
    "report",
    "release",
    "customer",
    "refund",
    "schema",
    "sprint",
    "holiday",
    "contract",
    "review",
    "latency",
    "backup",
    "design",
];

fn day(n: usize) -> jiff::civil::Date {
    jiff::civil::date(2024, 1, 1)
        .checked_add(jiff::Span::new().days(n as i64))
        .expect("in range")
}

/// Write a root with `entries` entries in episode logs; returns the days.
fn generate(root: &Path, entries: usize) -> usize {
    let files = entries.div_ceil(PER_FILE);
    let days = files.div_ceil(USERS);
    let mut written = 0;
    for d in 0..days {
        let date = day(d);
        let compact = date.strftime("%Y%m%d").to_string();
        for u in 0..USERS {
            if written >= entries {
                return days;
            }
            let project = if u % 2 == 0 {
                "default_project"
            } else {
                "support-bot"
            };
            let owner = format!("user_{u:03}");
            let dir = root.join(format!("default_app/{project}/users/{owner}/episodes"));
            std::fs::create_dir_all(&dir).unwrap();
            let n = PER_FILE.min(entries - written);
            let mut text = format!(
                "---\nid: episode_log_{owner}_{date}\ntype: episode_daily\nfile_type: episode_daily\nschema_version: 1\nuser_id: {owner}\ntrack: user\ndate: '{date}'\nentry_count: {n}\nlast_appended_at: '{date}T23:00:00+00:00'\n---\n"
            );
            for e in 1..=n {
                let id = format!("ep_{compact}_{e:08}");
                let w = |k: usize| WORDS[(d * 7 + u * 3 + e * 5 + k) % WORDS.len()];
                let _ = write!(
                    text,
                    "<!-- entry:{id} -->\n## {id}\n\n**owner_id**: {owner}\n**session_id**: sess_{d}_{u}_{e}\n**timestamp**: {date}T10:{e:02}:00+00:00\n**parent_type**: memcell\n\n### Subject\nThe {} and the {}\n\n### Content\n{owner} talked about the {} {} before the {}; the {} {} was settled.\n<!-- /entry:{id} -->\n",
                    w(0),
                    w(1),
                    w(2),
                    w(3),
                    w(4),
                    w(5),
                    w(6)
                );
            }
            std::fs::write(dir.join(format!("episode-{date}.md")), text).unwrap();
            written += n;
        }
    }
    days
}

fn main() {
    let entries: usize = std::env::var("MEMBANK_BENCH_ENTRIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let tmp = tempfile::tempdir().unwrap();
    let days = generate(tmp.path(), entries);
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
            black_box(index.search("kyoto budget deadline", 20).len());
            index
        })
    });
    let index = SearchIndex::of_memory(memory);
    g.bench_function(format!("search_query_only_{entries}"), |b| {
        b.iter(|| black_box(index.search("kyoto budget deadline", 20).len()))
    });
    g.finish();
    c.final_summary();
}
