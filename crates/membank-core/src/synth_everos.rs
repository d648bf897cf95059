//! A reproducible synthetic everos memory root of any size, for benches
//! and measurements (feature `synth`).
//!
//! 50 users in two projects keep episode logs of five entries a day; the
//! root grows by days until it holds the number of entries asked for. The
//! entries repeat a small vocabulary, so a query of three of its words
//! matches a large share of the root.

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// Owners the entries are spread over.
pub const USERS: usize = 50;
/// Entries per daily log.
pub const PER_FILE: usize = 5;

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

/// The `n`th day of the generated root (day 0 is 2024-01-01).
pub fn day(n: usize) -> jiff::civil::Date {
    jiff::civil::date(2024, 1, 1)
        .checked_add(jiff::Span::new().days(n as i64))
        .expect("a day within the calendar")
}

/// Write a root with `entries` entries into `root`; returns how many days
/// it spans.
pub fn generate(root: &Path, entries: usize) -> io::Result<usize> {
    let files = entries.div_ceil(PER_FILE);
    let days = files.div_ceil(USERS);
    let mut written = 0;
    for d in 0..days {
        let date = day(d);
        let compact = date.strftime("%Y%m%d").to_string();
        for u in 0..USERS {
            if written >= entries {
                return Ok(days);
            }
            let project = if u % 2 == 0 {
                "default_project"
            } else {
                "support-bot"
            };
            let owner = format!("user_{u:03}");
            let dir = root.join(format!("default_app/{project}/users/{owner}/episodes"));
            std::fs::create_dir_all(&dir)?;
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
            std::fs::write(dir.join(format!("episode-{date}.md")), text)?;
            written += n;
        }
    }
    Ok(days)
}
