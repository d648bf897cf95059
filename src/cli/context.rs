//! `membank context`: the ranked, budgeted context for a query, with the
//! reason for every decision.

use std::process::ExitCode;

use membank_core::bank::Bank;
use membank_core::context::{self, ExplainedEntry, ExplainedReport, Listed, RowRef, Streamed};
use membank_core::scoring::Query;
use membank_core::surface::Surface;

use super::common::safe;
use super::style;

pub use membank_args::context::{Args, BudgetArgs, QueryArgs};

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let (report, warnings) = rank(&args)?;
    for warning in warnings {
        eprintln!("membank: warning: {warning}");
    }
    // Each row is put into words only while it is written, so the whole
    // report is never held in words at once.
    if args.json {
        use anyhow::Context as _;
        use std::io::Write as _;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        report.write_json(&mut out).context("writing JSON")?;
        writeln!(out)?;
        out.flush()?;
    } else if args.render {
        let text = report
            .render()
            .map_err(|p| anyhow::anyhow!("{}", safe(&format!("{}: {}", p.path, p.message))))?;
        super::common::print_model_text(&text)?;
    } else {
        print_table(&report).map_err(super::common::stdout_error)?;
    }
    // Freeing every row, and closing the folders held open, only delays
    // the exit.
    std::mem::forget(report);
    Ok(ExitCode::SUCCESS)
}

/// The command's report, and a warning for each value of the query no
/// article carries, naming the closest ones the bank uses. Each article is
/// ranked as it is read and dropped: the bank is never held (see
/// `context::stream`), and read once: the values for the warnings are
/// gathered during that read.
fn rank(args: &Args) -> anyhow::Result<(Streamed, Vec<String>)> {
    let root = super::common::bank_root(&args.bank)?;
    let query = args.query.to_query();
    let report = context::stream(
        &root,
        &query,
        args.budget.options(),
        args.limit.unwrap_or(0),
    )
    .map_err(|e| anyhow::anyhow!(safe(&e.to_string())))?;
    tracing::info!(root = %root.display(), ranked = report.ranked, "ranked");
    let warnings = report
        .unknown_values
        .iter()
        .map(|unknown| safe(&unknown.to_string()))
        .collect();
    Ok((report, warnings))
}

/// The ranked, budgeted report for a query, listing the first `limit`
/// articles in rank order and every one the budget kept (0: every
/// article); `explain` of its report is what `--json` prints,
/// `context::render` the assembled context text. The context itself is
/// the same whatever the limit: it holds only kept articles.
pub fn build(bank: &Bank, query: &QueryArgs, budget: &BudgetArgs, limit: usize) -> Listed {
    context::build_listed(bank, &query.to_query(), budget.options(), limit)
}

/// The readable report as text, with style codes that `anstream` keeps or
/// strips; `total` is how many articles were ranked, listed or not.
pub fn table(r: &ExplainedReport, total: usize, surface: Surface) -> String {
    let mut out = Vec::new();
    let head = TableHead {
        query: &r.query,
        budget: r.budget,
        used_tokens: r.used_tokens,
        token_estimator: r.token_estimator,
        articles: total,
        listed: r.articles.len(),
        kept: r.articles.iter().filter(|e| e.included).count(),
    };
    let _ = write_table(
        &mut out,
        &head,
        r.articles.iter().map(ExplainedEntry::as_row),
        surface,
    );
    String::from_utf8_lossy(&out).into_owned()
}

/// What the table says above its rows.
struct TableHead<'a> {
    query: &'a Query,
    budget: usize,
    used_tokens: usize,
    token_estimator: &'static str,
    /// Articles ranked, listed or not.
    articles: usize,
    /// Rows that follow.
    listed: usize,
    kept: usize,
}

fn print_table(r: &Streamed) -> std::io::Result<()> {
    use rayon::prelude::*;
    use std::io::Write;
    let stdout = std::io::stdout();
    // Styles kept or dropped as they would be for the real standard output,
    // decided once here and applied to each block where it is made.
    let choice = anstream::AutoStream::choice(&stdout);
    let styled = |block: Vec<u8>, write: &dyn Fn(&mut dyn Write) -> std::io::Result<()>| {
        style::styled_block_in(choice, block, write)
    };
    // One write per block, not per line: a 100,000-row table is otherwise
    // hundreds of thousands of system calls.
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let head = TableHead {
        query: &r.query,
        budget: r.budget,
        used_tokens: r.used_tokens,
        token_estimator: r.token_estimator,
        articles: r.ranked,
        listed: r.len(),
        kept: r.kept(),
    };
    out.write_all(&styled(Vec::new(), &|o| write_head(o, &head)))?;
    // Rows are put into words on all cores, a window at a time, so the
    // whole table is never held at once. Without colours they are written
    // plain rather than written with styles and stripped.
    let colored = choice != anstream::ColorChoice::Never;
    const ROWS_PER_BLOCK: usize = 1024;
    let block_of = |rows: std::ops::Range<usize>| {
        // Room for the usual rows from the start: grown from nothing, a
        // block was copied at each doubling, each copy into fresh pages
        // (about 260 of the 920 page faults of `context` on 2,000
        // articles). Room not written is never touched, and a block of
        // longer rows still grows.
        let block = Vec::with_capacity(rows.len() * ROW_BYTES);
        let borrowed = rows.map(|i| r.row(i));
        if colored {
            styled(block, &|o| {
                write_rows(o, borrowed.clone(), true, Surface::CommandLine)
            })
        } else {
            let mut block = block;
            let _ = write_rows(&mut block, borrowed, false, Surface::CommandLine);
            block
        }
    };
    // A short table is written on this thread: starting the pool would
    // cost more than it saves. A bank large enough to be read on the pool
    // has it started already, and two blocks on two cores finish sooner.
    let parallel = membank_core::parallel::pays(r.len());
    let blocks_of = |start: usize| {
        (start..r.len().min(start + ROWS_PER_BLOCK * 16))
            .step_by(ROWS_PER_BLOCK)
            .map(|b| b..r.len().min(b + ROWS_PER_BLOCK))
    };
    for window in (0..r.len()).step_by(ROWS_PER_BLOCK * 16) {
        let blocks: Vec<Vec<u8>> = if parallel {
            blocks_of(window)
                .collect::<Vec<_>>()
                .into_par_iter()
                .map(block_of)
                .collect()
        } else {
            blocks_of(window).map(block_of).collect()
        };
        for block in blocks {
            out.write_all(&block)?;
        }
    }
    out.write_all(&styled(Vec::new(), &|o| write_tail(o, &head)))?;
    out.flush()
}

/// Bytes a table's row takes, about: a row of 2,000 articles' table takes
/// 230 on average (its line, and its `why` or `left out` line).
const ROW_BYTES: usize = 256;

/// The readable report: the query, the budget, then every article in rank
/// order with why it scored and, for each one left out, why.
fn write_table<'a>(
    out: &mut impl std::io::Write,
    r: &TableHead<'_>,
    rows: impl Iterator<Item = RowRef<'a>>,
    surface: Surface,
) -> std::io::Result<()> {
    write_head(out, r)?;
    write_rows(out, rows, true, surface)?;
    write_tail(out, r)
}

/// The query and the budget, and the columns' heading.
fn write_head(out: &mut dyn std::io::Write, r: &TableHead<'_>) -> std::io::Result<()> {
    let q = r.query;
    let show = |v: &Option<String>| v.as_deref().map(safe).unwrap_or_else(|| "-".into());
    writeln!(
        out,
        "query: client {} | domain {} | {} → {}",
        show(&q.client),
        show(&q.domain),
        show(&q.source_lang),
        show(&q.target_lang)
    )?;
    let budget = if r.budget == 0 {
        "unlimited".to_owned()
    } else {
        r.budget.to_string()
    };
    writeln!(
        out,
        "budget: {} / {budget} tokens used ({}), {} of {} articles kept",
        r.used_tokens, r.token_estimator, r.kept, r.articles
    )?;
    writeln!(out)?;
    let heading = style::HEADING;
    writeln!(
        out,
        "{heading}{:>4}  {:>5}  {:>2} {:>2} {:>2}  {:>6}  {:<10}  {:<4}  path{heading:#}",
        "rank", "score", "C", "D", "L", "tokens", "updated", "kept"
    )
}

/// Every article in rank order with why it scored and, for each one left
/// out, why.
fn write_rows<'a>(
    out: &mut dyn std::io::Write,
    rows: impl Iterator<Item = RowRef<'a>>,
    colored: bool,
    surface: Surface,
) -> std::io::Result<()> {
    let paint = |s: anstyle::Style| if colored { s } else { anstyle::Style::new() };
    let muted = paint(style::MUTED);
    let good = paint(style::GOOD);
    // Each style's codes written out once, not once a row.
    let (muted_on, muted_off) = (format!("{muted}"), format!("{muted:#}"));
    let (good_on, good_off) = (format!("{good}"), format!("{good:#}"));
    let unscored_line = {
        let mut l = String::from(ROW_INDENT);
        l.push_str(&muted_on);
        l.push_str("left out: ");
        let reason = membank_core::budget::unscored_reason(surface);
        membank_core::text::sanitize_into(&mut l, reason, false);
        l.push_str(&muted_off);
        l.push('\n');
        l
    };
    // Each row is put together by hand in one line reused for every row:
    // the formatting machinery padded the columns one character at a time,
    // most of the time a whole table took.
    let mut line = String::new();
    for e in rows {
        line.clear();
        // Each number right-aligned in its width, then the gap after it.
        push_numbers(
            &mut line,
            [
                (e.rank as u64, 4, 2),
                (u64::from(e.score), 5, 2),
                (u64::from(e.signals.client), 2, 1),
                (u64::from(e.signals.domain), 2, 1),
                (u64::from(e.signals.language), 2, 2),
                (e.tokens as u64, 6, 2),
            ],
        );
        push_left(&mut line, date_cell(e.last_updated, e.date_valid), 10);
        line.push_str("  ");
        let (kept_word, on, off) = if e.included {
            ("yes ", &good_on, &good_off)
        } else {
            ("no  ", &muted_on, &muted_off)
        };
        line.push_str(on);
        line.push_str(kept_word);
        line.push_str(off);
        line.push_str("  ");
        membank_core::text::sanitize_into(&mut line, e.path, false);
        line.push('\n');
        if e.score > 0 {
            line.push_str(ROW_INDENT);
            line.push_str("why: ");
            push_why(&mut line, &e);
            line.push('\n');
        }
        if !e.included {
            let reason = e.drop_reason.as_deref().unwrap_or("not in the context");
            if reason == membank_core::budget::UNSCORED_REASON {
                // Most rows of a table: the same line each time, made once.
                line.push_str(&unscored_line);
            } else {
                line.push_str(ROW_INDENT);
                line.push_str(&muted_on);
                line.push_str("left out: ");
                membank_core::text::sanitize_into(&mut line, reason, false);
                line.push_str(&muted_off);
                line.push('\n');
            }
        }
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Where a row's second and third lines start: under its path.
const ROW_INDENT: &str = concat!("                                        ", "  ");

/// Why a row scored: each matched value as it is written (key, value,
/// and for a language the code and the query's code) with its points,
/// `; ` between them. Text from files is made safe character by
/// character, so each piece is made safe where it is pushed.
fn push_why(line: &mut String, e: &RowRef<'_>) {
    use membank_core::text::sanitize_into;
    let points = [e.signals.client, e.signals.domain, e.signals.language];
    let mut any = false;
    for (m, points) in e.matched.iter().zip(points) {
        let Some(m) = m else { continue };
        if any {
            line.push_str("; ");
        }
        any = true;
        sanitize_into(line, m.key, false);
        line.push_str(": ");
        sanitize_into(line, m.value, false);
        if let (Some(tag), Some(query)) = (m.tag, m.query) {
            line.push_str(" (");
            sanitize_into(line, tag, false);
            line.push_str(" ~ ");
            sanitize_into(line, query, false);
            line.push(')');
        }
        line.push_str(" → +");
        membank_core::json::push_uint(line, u64::from(points));
    }
    if !any {
        line.push_str("no signal matched");
    }
}

/// The number columns of a row: each `(n, width, gap)` right-aligned in
/// `width` columns as `{:>width$}` writes it, then `gap` spaces. They are
/// put together in one buffer of spaces and pushed at once: a dozen
/// pushes of a few bytes each cost more than making the digits.
fn push_numbers(line: &mut String, cells: [(u64, usize, usize); 6]) {
    const MOST: usize = 20 + 8 + 8;
    let mut buf = [b' '; 6 * MOST];
    let mut at = 0;
    for (n, width, gap) in cells {
        let len = n.checked_ilog10().map_or(1, |l| l as usize + 1);
        // Widths and gaps are this file's constants, within `MOST`.
        at += width.saturating_sub(len).min(8);
        let Some(slot) = buf.get_mut(at..at + len) else {
            break;
        };
        // The digits written in place, from the last one.
        let mut rest = n;
        for digit in slot.iter_mut().rev() {
            *digit = b'0' + (rest % 10) as u8;
            rest /= 10;
        }
        at += len + gap.min(8);
    }
    // Digits and spaces only: always UTF-8.
    line.push_str(std::str::from_utf8(&buf[..at.min(buf.len())]).unwrap_or_default());
}

/// `text` left-aligned in `width` columns, as `{:<width$}` writes it.
fn push_left(line: &mut String, text: &str, width: usize) {
    line.push_str(text);
    push_spaces(line, width.saturating_sub(text.chars().count()));
}

/// `n` spaces, pushed a run at a time rather than one by one.
fn push_spaces(line: &mut String, mut n: usize) {
    // The indent is all spaces.
    while n > 0 {
        let spaces = &ROW_INDENT[..n.min(ROW_INDENT.len())];
        line.push_str(spaces);
        n -= spaces.len();
    }
}

/// How many articles the listing left out.
fn write_tail(out: &mut dyn std::io::Write, r: &TableHead<'_>) -> std::io::Result<()> {
    if r.articles > r.listed {
        let muted = style::MUTED;
        writeln!(
            out,
            "{muted}… {} more articles not listed (limit){muted:#}",
            r.articles - r.listed
        )?;
    }
    Ok(())
}

/// The `updated` column: the date, `-` when there is none, and `invalid`
/// for text that is not a `YYYY-MM-DD` date (shown raw it would break the
/// column and look like a date that counts).
/// `valid` says whether `raw` is such a date (see [`RowRef::date_valid`]).
fn date_cell(raw: Option<&str>, valid: bool) -> &str {
    match raw {
        None => "-",
        Some(d) if valid => d,
        Some(_) => "invalid",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;
    use membank_core::scoring::{Matched, SignalMatch, Signals};

    #[derive(clap::Parser)]
    struct Command {
        #[command(flatten)]
        args: Args,
    }

    fn describe(m: &Option<SignalMatch>, points: u32) -> Option<String> {
        m.as_ref()
            .map(|m| format!("{} → +{points}", safe(&m.to_string())))
    }

    /// The `why` of a row as it was put together from the owned row.
    fn why(e: &ExplainedEntry) -> String {
        let parts: Vec<String> = [
            describe(&e.matched.client, e.signals.client),
            describe(&e.matched.domain, e.signals.domain),
            describe(&e.matched.language, e.signals.language),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            "no signal matched".to_owned()
        } else {
            parts.join("; ")
        }
    }

    /// The rows as the formatting machinery wrote them before they were
    /// put together by hand: what [`write_rows`] must still write.
    fn rows_formatted(rows: &[ExplainedEntry], colored: bool) -> Vec<u8> {
        use std::io::Write as _;
        let paint = |s: anstyle::Style| if colored { s } else { anstyle::Style::new() };
        let muted = paint(style::MUTED);
        let mut out = Vec::new();
        for e in rows {
            let (kept_word, kept_style) = if e.included {
                ("yes", paint(style::GOOD))
            } else {
                ("no", muted)
            };
            writeln!(
                out,
                "{:>4}  {:>5}  {:>2} {:>2} {:>2}  {:>6}  {:<10}  {kept_style}{kept_word:<4}{kept_style:#}  {}",
                e.rank,
                e.score,
                e.signals.client,
                e.signals.domain,
                e.signals.language,
                e.tokens,
                date_cell(
                    e.last_updated.as_deref(),
                    e.last_updated
                        .as_deref()
                        .and_then(membank_core::frontmatter::parse_iso_date)
                        .is_some()
                ),
                safe(&e.path)
            )
            .unwrap();
            if e.score > 0 {
                writeln!(out, "{:>40}  why: {}", "", why(e)).unwrap();
            }
            if !e.included {
                let reason = e.drop_reason.as_deref().unwrap_or("not in the context");
                writeln!(
                    out,
                    "{:>40}  {muted}left out: {}{muted:#}",
                    "",
                    safe(reason)
                )
                .unwrap();
            }
        }
        out
    }

    #[test]
    fn rows_written_by_hand_are_the_formatted_rows() {
        let matched = |key: &'static str, value: &str| SignalMatch {
            key,
            value: value.to_owned(),
            tag: None,
            query: None,
        };
        let mut rows = Vec::new();
        for (i, (path, date, drop)) in [
            ("01_CLIENTS/Acme.md", Some("2025-11-27"), None),
            (
                "02_TERMINOLOGY/a\u{1b}[31mred.md",
                None,
                Some("over budget"),
            ),
            (
                "03_DOMAINS/Légal ünïcode.md",
                Some("2025-13-45"),
                Some("no\u{7}bell"),
            ),
            ("04_STYLE/s.md", Some("ééé"), None),
            ("04_STYLE/t.md", Some("not a date at all"), Some("")),
            (
                "02_TERMINOLOGY/u.md",
                Some("2025-02-30"),
                Some(membank_core::budget::UNSCORED_REASON),
            ),
            ("02_TERMINOLOGY/v.md", Some("2024-02-29"), Some("score 0")),
        ]
        .into_iter()
        .enumerate()
        {
            for (rank, score, tokens) in [
                (1, 0, 0),
                (12_345, 7, 123_456),
                (99, 123_456, 7),
                (9, 10, 999_999),
                (1_000, 99_999, 1_000_000),
            ] {
                let scored = score > 0;
                rows.push(ExplainedEntry {
                    rank: rank + i,
                    path: path.to_owned(),
                    folder: "01_CLIENTS",
                    score,
                    signals: Signals {
                        client: if scored { 3 } else { 0 },
                        domain: if scored { 100 } else { 0 },
                        language: if scored {
                            1 + (i as u32 % 5) * 1_000_000_000
                        } else {
                            0
                        },
                    },
                    // Every mix of matches, a scored row with none, and a
                    // language with its code but no query's code.
                    matched: Matched {
                        client: (scored && i % 2 == 0 && i != 4)
                            .then(|| matched("client", "Acme \u{1b}Corp\t\u{202e}")),
                        domain: (scored && i % 2 == 1)
                            .then(|| matched("domains", "[[Légal]]\u{85}")),
                        language: (scored && i < 3).then(|| SignalMatch {
                            tag: Some("en\u{7}".into()),
                            query: (i != 1).then(|| "en-GB\n".into()),
                            ..matched("languages", "en → de")
                        }),
                    },
                    last_updated: date.map(str::to_owned),
                    tokens,
                    included: drop.is_none(),
                    drop_reason: drop.filter(|d| !d.is_empty()).map(str::to_owned),
                });
            }
        }
        for colored in [false, true] {
            let mut by_hand = Vec::new();
            write_rows(
                &mut by_hand,
                rows.iter().map(ExplainedEntry::as_row),
                colored,
                Surface::CommandLine,
            )
            .unwrap();
            let formatted = rows_formatted(&rows, colored);
            assert_eq!(
                String::from_utf8_lossy(&by_hand),
                String::from_utf8_lossy(&formatted)
            );
        }
    }

    #[test]
    fn numbers_are_padded_as_formatted() {
        let mut values = vec![0, u64::MAX, u64::MAX / 10, 12_345_678_901];
        for k in 0..20 {
            let p = 10u64.pow(k);
            values.extend([p - 1, p, p + 1]);
        }
        for &n in &values {
            for &m in &[0, 7, n / 3] {
                let mut by_hand = String::new();
                push_numbers(
                    &mut by_hand,
                    [
                        (n, 4, 2),
                        (m, 5, 2),
                        (n, 2, 1),
                        (m, 2, 1),
                        (n, 2, 2),
                        (m, 6, 2),
                    ],
                );
                let formatted = format!("{n:>4}  {m:>5}  {n:>2} {m:>2} {n:>2}  {m:>6}  ");
                assert_eq!(by_hand, formatted, "{n} {m}");
            }
        }
    }

    #[test]
    fn a_value_no_article_carries_is_told_after_one_read_of_the_bank() {
        let d = tempfile::tempdir().unwrap();
        for (rel, text) in [
            (
                "01_CLIENTS/Acme.md",
                "---\nclient: Acme Corporation\n---\nbody\n",
            ),
            ("03_DOMAINS/Legal.md", "---\ndomain: Legal\n---\nbody\n"),
        ] {
            let path = d.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let bank = d.path().to_str().unwrap();
        for (query, want) in [
            (
                ["--client", "Acme"],
                vec!["no client 'Acme' in this bank; did you mean 'Acme Corporation'?"],
            ),
            (["--client", "acme corporation"], vec![]),
        ] {
            let args = Command::parse_from(["context", bank].into_iter().chain(query)).args;
            let reads = membank_core::bank::reads_begun_on_this_thread();
            let (report, warnings) = rank(&args).unwrap();
            assert_eq!(warnings, want, "{query:?}");
            assert_eq!(report.ranked, 2);
            assert_eq!(
                membank_core::bank::reads_begun_on_this_thread() - reads,
                1,
                "{query:?}: the bank was read more than once"
            );
        }
    }
}
