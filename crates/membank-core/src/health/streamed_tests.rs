//! The streamed check must report exactly what a check of the loaded bank
//! reports: every finding, its words, and the order of the report.

use std::fs;
use std::path::Path;

use crate::bank::{Bank, LoadOptions};
use crate::health::{CODES, HealthOptions, HealthReport, check, check_streamed};
use crate::layout::Folder;

fn write(root: &Path, rel: &str, bytes: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, bytes).unwrap();
}

/// A small deterministic generator (a linear congruential one), so a
/// failing seed can be run again (the report's sort tests use it too).
pub(in crate::health) struct Rng(pub(in crate::health) u64);

impl Rng {
    pub(in crate::health) fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Few names in many folders, so links are ambiguous, dead or near misses
/// and names differ only in case; one name Windows refuses.
const NAMES: &[&str] = &[
    "Alpha", "alpha", "Beta", "Gamma", "Delta", "Epsilon", "Et|a", "CON",
];
const FOLDERS: &[&str] = &[
    "00_INBOX",
    "00_INBOX/_archive",
    "01_CLIENTS",
    "02_TERMINOLOGY",
    "02_TERMINOLOGY/sub",
    "02_TERMINOLOGY/wh?y",
    "03_DOMAINS",
    "04_STYLE",
    "05_INDICES",
];

/// One article's text: every frontmatter problem the checks know, terms
/// that conflict (or differ only in case, or meet in no client), and lines
/// with several findings of one code, some the same word for word (ties
/// the report's order must break the same way).
fn some_text(rng: &mut Rng, i: usize) -> Vec<u8> {
    match rng.below(24) {
        0 => return format!("no frontmatter, a link to [[Alpha]] {i}\n").into_bytes(),
        1 => return b"---\nclient: [unclosed\n---\n# Broken\n".to_vec(),
        2 => return b"---\nclient: Acme\n# never closed\n".to_vec(),
        3 => return b"\xef\xbb\xbf---\nclient: Acme\n---\n# Bom [[Beta]]\n".to_vec(),
        4 => return b"```yaml\n---\nclient: Acme\n---\n```\n# Fenced\n".to_vec(),
        5 => {
            let text = format!("---\nclient: Acme\n---\n# Wide {i} [[Gamma]]\n");
            return [0xFF, 0xFE]
                .into_iter()
                .chain(text.encode_utf16().flat_map(u16::to_le_bytes))
                .collect();
        }
        _ => {}
    }
    let mut fm = String::from("---\n");
    let term = rng.pick(&["run", "Run", "walk"]);
    let target = rng.pick(&["rennen", "lopen", "Lopen"]);
    if rng.below(3) > 0 {
        fm += &format!("term_source: {term}\nterm_target: {target}\n");
        fm += &format!(
            "source_lang: {}\ntarget_lang: nl\n",
            rng.pick(&["en", "EN", "xx-notalang"])
        );
    }
    fm += &format!(
        "status: {}\n",
        rng.pick(&["approved", "approved", "draft", "nonsense"])
    );
    match rng.below(4) {
        0 => fm += &format!("client: \"[[{}]]\"\n", rng.pick(NAMES)),
        1 => fm += "clients: [\"Acme\", \"Globex\"]\n",
        2 => fm += "related: [[Beta]]\n",
        _ => {}
    }
    if rng.below(3) == 0 {
        fm += "domain:\n";
    }
    if rng.below(3) == 0 {
        // A map is read by neither check (`unread-value`).
        fm += &format!(
            "languages: {}\n",
            rng.pick(&["[en]", "[english]", "[nl-BE]", "{source: en, target: nl}"])
        );
    }
    if rng.below(6) > 0 {
        fm += &format!(
            "last_updated: {}\n",
            rng.pick(&["2026-01-01", "2020-01-01", "2019-05-05", "not a date"])
        );
    }
    if rng.below(4) == 0 {
        fm += "compiled: true\n";
    }
    fm += "---\n# Title\n\n";
    for _ in 0..rng.below(5) {
        let link = |rng: &mut Rng| match rng.below(6) {
            0 => "Nowhere".to_owned(),
            1 => format!("{}.png", rng.pick(NAMES)),
            2 => format!("sub/{}", rng.pick(NAMES)),
            3 => "Alpah".to_owned(),
            _ => rng.pick(NAMES).to_owned(),
        };
        let (a, b) = (link(rng), link(rng));
        fm += &format!("See [[{a}]] and [[{b}]] and again [[{a}]].\n");
    }
    if rng.below(15) == 0 {
        fm += &format!("Upload with AKIA{} please.\n", "IOSFODNN7EXAMPLE");
    }
    fm.into_bytes()
}

/// A bank of `n` generated articles with every kind of file around them.
fn bank(n: usize, seed: u64) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let mut rng = Rng(seed);
    for i in 0..n {
        let folder = rng.pick(FOLDERS);
        // Folder 06 stays out of the mix; 05 is left missing now and then.
        if folder == "05_INDICES" && seed.is_multiple_of(2) {
            continue;
        }
        let name = rng.pick(NAMES);
        let rel = match rng.below(10) {
            0 => format!("{folder}/_{name}.md"),
            1 => format!("{folder}/{name}.png"),
            2 => format!("{folder}/{name}.md.{i}.tmp"),
            3 => format!("{folder}/{name} {i}.md"),
            _ => format!("{folder}/{name}.md"),
        };
        write(r, &rel, &some_text(&mut rng, i));
    }
    for f in ["01_CLIENTS", "03_DOMAINS", "04_STYLE", "06_TEMPLATES"] {
        fs::create_dir_all(r.join(f)).unwrap();
    }
    fs::create_dir_all(r.join("Projects")).unwrap();
    write(r, "03_DOMAINS/bad.md", b"\xff\xfd not text");
    write(r, "06_TEMPLATES/complie.md", b"x");
    write(r, "06_TEMPLATES/translate_with_kb.md", b"x");
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        write(outside.path(), "Out.md", b"# outside\n");
        std::os::unix::fs::symlink(outside.path(), r.join("03_DOMAINS/linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("Out.md"), r.join("04_STYLE/Out.md"))
            .unwrap();
        // A socket is a file, but not a regular one.
        drop(std::os::unix::net::UnixListener::bind(
            r.join("04_STYLE/Sock.md"),
        ));
        // Links with nothing to read behind them: to nothing, and a loop.
        std::os::unix::fs::symlink("Gone.md", r.join("04_STYLE/Dangling.md")).unwrap();
        std::os::unix::fs::symlink("Loop-b.md", r.join("04_STYLE/Loop-a.md")).unwrap();
        std::os::unix::fs::symlink("Loop-a.md", r.join("04_STYLE/Loop-b.md")).unwrap();
        // A FIFO where a file is expected.
        let fifo = std::ffi::CString::new(
            r.join("04_STYLE/Pipe.md")
                .into_os_string()
                .into_encoded_bytes(),
        );
        assert_eq!(unsafe { libc::mkfifo(fifo.unwrap().as_ptr(), 0o644) }, 0);
        // The bank is read while `outside` still exists.
        std::mem::forget(outside);
    }
    d
}

fn options(stale_after_days: u32) -> HealthOptions {
    HealthOptions {
        stale_after_days,
        today: jiff::civil::date(2026, 6, 1),
    }
}

/// Everything a reader of the report sees, in order.
fn shown(report: &HealthReport) -> (Vec<String>, String) {
    let findings = report
        .findings
        .iter()
        .map(|f| format!("{:?}|{}|{}", f.severity, f.location(), f.message()))
        .collect();
    (
        findings,
        format!("{:?} {:?}", report.counts, report.by_code),
    )
}

/// The two reports are the same; else the first finding that differs.
fn same(streamed: &HealthReport, loaded: &HealthReport, case: &str) {
    let ((got, got_counts), (want, want_counts)) = (shown(streamed), shown(loaded));
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        panic!(
            "{case}: finding {i} differs\nstreamed: {:?}\nloaded:   {:?}",
            got.get(i),
            want.get(i)
        );
    }
    assert_eq!(got_counts, want_counts, "{case}");
}

#[test]
fn the_streamed_check_reports_what_the_loaded_check_reports() {
    let mut codes_seen = std::collections::BTreeSet::new();
    // Below and above the size where reading moves to the pool.
    for (n, seed) in [(40, 1), (90, 2), (700, 3), (1500, 4)] {
        let d = bank(n, seed);
        for days in [365, 0, 30] {
            let opts = options(days);
            let whole = check(&Bank::load(d.path()).unwrap(), &opts);
            let lean = check(
                &Bank::load_only(d.path(), LoadOptions::CHECK).unwrap(),
                &opts,
            );
            let (bank, streamed) = check_streamed(d.path(), &opts).unwrap();
            let case = format!("{n} files, seed {seed}, stale after {days} days");
            same(&streamed, &whole, &case);
            assert_eq!(streamed.findings, lean.findings, "{case}");
            assert_eq!(streamed.counts, whole.counts, "{case}");
            // The bank returned is the bank as read, less its articles.
            let loaded = Bank::load(d.path()).unwrap();
            assert!(bank.articles().is_empty(), "{case}");
            assert_eq!(bank.other_files, loaded.other_files, "{case}");
            assert_eq!(bank.problems, loaded.problems, "{case}");
            codes_seen.extend(whole.findings.iter().map(|f| f.code()));
        }
    }
    // A file over the size cap would take megabytes to write.
    let mut missing: Vec<&str> = CODES
        .iter()
        .map(|(code, _)| *code)
        .filter(|code| !codes_seen.contains(code) && *code != "oversized-file")
        .collect();
    if cfg!(not(unix)) {
        let unix_only = [
            "symlinked-folder",
            "not-a-file",
            "link-outside-bank",
            "unreadable-file",
        ];
        missing.retain(|c| !unix_only.contains(c));
    }
    assert!(missing.is_empty(), "no bank raised {missing:?}");
}

#[test]
fn the_streamed_check_keeps_finding_credentials_in_bodies() {
    let d = bank(30, 5);
    write(
        d.path(),
        "04_STYLE/Deploy.md",
        format!(
            "---\nscope: general\n---\n# Deploy\n\nUpload with AKIA{} please.\n",
            "IOSFODNN7EXAMPLE"
        )
        .as_bytes(),
    );
    let (_, report) = check_streamed(d.path(), &options(365)).unwrap();
    let secrets: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.code() == "secret" && &*f.path == "04_STYLE/Deploy.md")
        .map(|f| f.line())
        .collect();
    assert_eq!(secrets, vec![Some(6)]);
}

/// An article's findings, made as it was read and by the passes after,
/// hold one copy of its path: a report of 100,000s of findings is sorted
/// by comparing them, and one copy compares by pointer.
#[test]
fn an_articles_findings_share_one_copy_of_its_path() {
    let d = bank(40, 6);
    let lone = "03_DOMAINS/Lone.md";
    write(
        d.path(),
        lone,
        b"---\ndomain: Law\n---\n# Lone\n[[Nowhere at all]]\n",
    );
    let (_, report) = check_streamed(d.path(), &options(365)).unwrap();
    let of_lone: Vec<_> = report
        .findings
        .iter()
        .filter(|f| &*f.path == lone)
        .collect();
    let codes: std::collections::BTreeSet<&str> = of_lone.iter().map(|f| f.code()).collect();
    for code in ["orphan", "dead-link", "missing-key"] {
        assert!(codes.contains(code), "{code} not among {codes:?}");
    }
    assert!(
        of_lone
            .iter()
            .all(|f| std::sync::Arc::ptr_eq(&f.path, &of_lone[0].path))
    );
    // A term conflict, found by a pass over the whole bank, holds the
    // same copy as the article's own findings (here `stale`).
    for (name, target) in [("Conflict a", "naleving"), ("Conflict b", "nakoming")] {
        write(
            d.path(),
            &format!("02_TERMINOLOGY/{name}.md"),
            format!(
                "---\nterm_source: compliance\nterm_target: {target}\nsource_lang: en\n\
                 target_lang: nl\nstatus: approved\ndomain: a\nclients: b\n\
                 last_updated: 2001-01-01\n---\n[[Legal]]\n"
            )
            .as_bytes(),
        );
    }
    let (_, report) = check_streamed(d.path(), &options(365)).unwrap();
    for name in ["Conflict a", "Conflict b"] {
        let path = format!("02_TERMINOLOGY/{name}.md");
        let of_term: Vec<_> = report.findings.iter().filter(|f| *f.path == path).collect();
        let codes: std::collections::BTreeSet<&str> = of_term.iter().map(|f| f.code()).collect();
        for code in ["term-conflict", "stale"] {
            assert!(codes.contains(code), "{code} not among {codes:?}");
        }
        assert!(
            of_term
                .iter()
                .all(|f| std::sync::Arc::ptr_eq(&f.path, &of_term[0].path))
        );
    }
}

/// The kept articles end in bank order, (folder, path), whether they
/// arrive in it (left as they are) or not (sorted): paths where a folder's
/// files and a longer name's sort apart (`a b/`, `a.md`, `a/`), and
/// folders out of order.
#[test]
fn the_kept_articles_end_in_bank_order() {
    use crate::layout::Folder;
    let kept = |list: &[(Folder, &str)]| -> Vec<super::Kept> {
        list.iter()
            .map(|&(folder, path)| super::Kept {
                path: path.into(),
                folder,
                links: Default::default(),
                term: None,
            })
            .collect()
    };
    let shown = |kept: &[super::Kept]| -> Vec<(Folder, String)> {
        kept.iter()
            .map(|k| (k.folder, k.path.to_string()))
            .collect()
    };
    let in_order = [
        (Folder::Clients, "01_CLIENTS/a b/x.md"),
        (Folder::Clients, "01_CLIENTS/a.md"),
        (Folder::Clients, "01_CLIENTS/a/x.md"),
        (Folder::Clients, "01_CLIENTS/é.md"),
        (Folder::Domains, "03_DOMAINS/a.md"),
        (Folder::Templates, "06_TEMPLATES/t.md"),
    ];
    let mut sorted = kept(&in_order);
    super::sort_kept(&mut sorted);
    let want: Vec<(Folder, String)> = in_order.iter().map(|&(f, p)| (f, p.into())).collect();
    assert_eq!(shown(&sorted), want);
    // Every rotation and the reverse come out in the same order.
    for turn in 0..in_order.len() {
        let mut list = in_order;
        list.rotate_left(turn);
        let mut turned = kept(&list);
        super::sort_kept(&mut turned);
        assert_eq!(shown(&turned), want, "rotated by {turn}");
    }
    let mut list = in_order;
    list.reverse();
    let mut reversed = kept(&list);
    super::sort_kept(&mut reversed);
    assert_eq!(shown(&reversed), want);
    // Many articles (sorted on the pool) out of order.
    let paths: Vec<String> = (0..5000)
        .map(|i| format!("03_DOMAINS/{}.md", (i * 7919) % 5000))
        .collect();
    let mut many: Vec<super::Kept> = kept(
        &paths
            .iter()
            .map(|p| (Folder::Domains, p.as_str()))
            .collect::<Vec<_>>(),
    );
    super::sort_kept(&mut many);
    let mut want: Vec<&String> = paths.iter().collect();
    want.sort();
    assert!(
        many.iter()
            .map(|k| &*k.path)
            .eq(want.iter().map(|p| p.as_str()))
    );
}

/// The allocator's padding is set back once every thread of the pool has
/// read an article, once, and not for a thread outside the pool.
#[test]
fn the_padding_is_set_back_once_every_thread_of_the_pool_has_read() {
    use std::sync::atomic::Ordering::Relaxed;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(3)
        .build()
        .unwrap();
    let heaps = pool.install(super::HeapsMade::new);
    heaps.made_on_this_thread();
    assert!(!heaps.done.load(Relaxed), "not a thread of the pool");
    pool.install(|| heaps.made_on_this_thread());
    assert!(!heaps.done.load(Relaxed), "one thread of three");
    pool.broadcast(|_| heaps.made_on_this_thread());
    assert!(heaps.done.load(Relaxed));
    assert_eq!(heaps.seen.load(Relaxed), 0b111);
    // Set back after reading whatever the threads did; only once.
    let unseen = pool.install(super::HeapsMade::new);
    unseen.all_made();
    assert!(unseen.done.load(Relaxed));
    unseen.all_made();
    assert!(unseen.done.load(Relaxed));
}

/// The report's sort by severities and runs puts findings in the order a
/// plain sort does: findings in runs already in order but for their
/// severity, in no order at all, with ties and repeats, at sizes on either
/// side of the pool's.
#[test]
fn the_reports_sort_gives_a_plain_sorts_order() {
    use crate::health::{Finding, Severity};
    const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];
    let codes = ["stale", "orphan", "dead-link", "missing-key", "bad-date"];
    let mut rng = Rng(7);
    for (n, runs) in [(0, true), (1, true), (7, false), (300, true), (5000, true)]
        .into_iter()
        .chain([(5000, false), (20_000, true), (9000, false)])
    {
        let mut made = Vec::new();
        let mut article = 0;
        while made.len() < n {
            // In runs, articles come mostly in order with a few findings
            // each; else anywhere.
            article = if runs && rng.below(50) != 0 {
                article + rng.below(2)
            } else {
                rng.below(n / 3 + 1)
            };
            let path = format!("02_TERMINOLOGY/t{article:06} → x.md");
            for _ in 0..1 + rng.below(4) {
                let line = (rng.below(4) != 0).then(|| rng.below(6));
                let message = ["a", "b", "“é”\u{7}"][rng.below(3)];
                made.push(Finding::new(
                    codes[rng.below(codes.len())],
                    SEVERITIES[rng.below(3)],
                    &path,
                    line,
                    message,
                ));
            }
        }
        let mut want = made.clone();
        want.sort_unstable_by(Finding::report_order);
        let mut got = made;
        crate::health::sort_in_report_order(&mut got);
        assert_eq!(got.len(), want.len(), "{n} findings");
        assert!(got == want, "{n} findings, in runs: {runs}");
    }
}

/// A kept term's four texts read back as given from its one string:
/// empty ones, wide characters, one ending where the next starts.
#[test]
fn a_kept_terms_texts_read_back_as_given() {
    use super::Term;
    for parts in [
        ["run", "en", "nl-BE", "rennen"],
        ["", "", "", ""],
        ["", "en", "", "x"],
        ["café → ", "→", "日本", ""],
        ["Σσς", "", "nl", "İ"],
    ] {
        let t = Term::new(parts, 7, Some(12), std::sync::Arc::default()).unwrap();
        assert_eq!([t.part(0), t.part(1), t.part(2), t.part(3)], parts);
        assert_eq!(t.target_line, Some(12));
    }
}

/// What is gathered on the reading threads and the passes' groups come
/// out in parts of one severity each, listed under it, every finding once
/// and each severity's in the order given (a group of one severity kept
/// whole, a mixed one split).
#[test]
fn the_gathered_findings_come_out_by_severity() {
    use crate::health::{Finding, Severity};
    const SEVERITIES: [Severity; 3] = [Severity::Error, Severity::Warning, Severity::Info];
    let mut rng = Rng(5);
    let mut number = 0;
    let mut made = |rng: &mut Rng, severities: &[Severity], n: usize| -> Vec<Finding> {
        (0..n)
            .map(|_| {
                number += 1;
                let severity = severities[rng.below(severities.len())];
                Finding::new("stale", severity, format!("a{number}.md"), None, "m")
            })
            .collect()
    };
    let gathered = super::Gathered::new();
    let mut given = Vec::new();
    for _ in 0..40 {
        let n = rng.below(300);
        let mut found = made(&mut rng, &SEVERITIES, n);
        given.extend(found.iter().cloned());
        gathered.add(&mut found);
        assert!(found.is_empty());
    }
    let more = vec![
        made(&mut rng, &[Severity::Info], 50),
        Vec::new(),
        made(&mut rng, &SEVERITIES, 70),
        made(&mut rng, &[Severity::Warning], 1),
        made(&mut rng, &[Severity::Error, Severity::Info], 9),
    ];
    given.extend(more.iter().flatten().cloned());
    let by_severity = gathered.into_by_severity(more);
    for (s, parts) in by_severity.iter().enumerate() {
        assert!(parts.iter().flatten().all(|f| f.severity == SEVERITIES[s]));
        let want: Vec<&Finding> = given
            .iter()
            .filter(|f| f.severity == SEVERITIES[s])
            .collect();
        assert!(parts.iter().flatten().eq(want), "{:?}", SEVERITIES[s]);
    }
    let got: usize = by_severity.iter().flatten().map(Vec::len).sum();
    assert_eq!(got, given.len());
}

/// One article read as the streamed check reads it
/// ([`LoadOptions::checked`]) and whole with the same options: its own findings (stale after 0 and
/// 365 days) and what is kept of it must be the same. `None` for bytes
/// that are no text; else whether the check's record is the leaner.
fn read_both_ways(rel: &str, folder: Folder, bytes: &[u8]) -> Option<bool> {
    use crate::article::Article;
    let read = |checked: bool| {
        let decoded = crate::text::decode_borrowed(bytes).ok()?;
        let load = LoadOptions {
            share: false,
            chars: false,
            checked,
            ..LoadOptions::CHECK
        };
        Some(Article::parse_with(rel.into(), folder, decoded, &load))
    };
    let (whole, checked) = (read(false)?, read(true)?);
    for days in [0, 365] {
        let opts = options(days);
        let cutoff = crate::health::stale_cutoff(&opts);
        let (mut want, mut got) = (Vec::new(), Vec::new());
        crate::health::own_findings(&whole, cutoff, &opts, &mut want);
        crate::health::own_findings(&checked, cutoff, &opts, &mut got);
        assert_eq!(got, want, "{rel}, stale after {days} days: {bytes:?}");
    }
    let leaner = whole.meta != checked.meta;
    let shown = |k: super::Kept| {
        let term = k.term.map(|t| {
            let parts = [t.part(0), t.part(1), t.part(2), t.part(3)].map(str::to_owned);
            format!("{} {parts:?} {:?} {:?}", t.hash, t.target_line, t.clients)
        });
        format!("{} {:?} {:?} {term:?}", k.path, k.folder, k.links)
    };
    let (want, got) = (
        shown(super::Kept::of(whole)),
        shown(super::Kept::of(checked)),
    );
    assert_eq!(got, want, "{rel}: {bytes:?}");
    Some(leaner)
}

/// Every file of the generated banks, the demo bank and the fixtures'
/// banks, read as the streamed check reads it, gives the findings and the
/// kept record of the whole reading; most of them on a leaner record.
#[test]
fn the_checks_own_reading_finds_what_the_whole_reading_finds() {
    let generated = [bank(600, 11), bank(300, 12)];
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut roots: Vec<std::path::PathBuf> =
        generated.iter().map(|d| d.path().to_path_buf()).collect();
    roots.push(workspace.join("demo-bank"));
    for f in ["bank", "flawed-bank", "obsidian-vault", "scoring-bank"] {
        roots.push(workspace.join("tests/fixtures").join(f));
    }
    let (mut compared, mut leaner) = (0, 0);
    for root in &roots {
        for entry in walkdir::WalkDir::new(root).into_iter().flatten() {
            let path = entry.path();
            if !entry.file_type().is_file() || path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let rel = path.strip_prefix(root).unwrap().to_string_lossy();
            let Some(folder) = rel.split('/').next().and_then(Folder::from_dir_name) else {
                continue;
            };
            let bytes = fs::read(path).unwrap();
            if let Some(lean) = read_both_ways(&rel, folder, &bytes) {
                compared += 1;
                leaner += usize::from(lean);
            }
        }
    }
    assert!(compared > 300, "{compared}");
    // The new reading is taken: most records leave something out.
    assert!(leaner * 4 > compared * 3, "{leaner} of {compared}");
}

/// Tricky blocks, in every folder (and the inbox's archive): the same
/// findings and kept record both ways.
#[test]
fn the_checks_own_reading_agrees_on_tricky_blocks() {
    let long = "x".repeat(100_000);
    let texts: Vec<Vec<u8>> = [
        "---\nterm_source: run\nterm_target: rennen\nsource_lang: en\ntarget_lang: nl\nstatus: approved\nclient: \"[[Acme]]\"\nclients: [Globex, \"[[Initech|I]]\"]\ndomain: Legal\nlast_updated: 2020-01-01\n---\n# T [[x]]\n",
        "\u{feff}---\r\nterm_source: run\r\nterm_target: lopen\r\nsource_lang: EN\r\ntarget_lang: nl-BE\r\nstatus: approved\r\nclients:\r\n  - Acme\r\n  - '[[Globex]]'\r\nlast_updated: 2026-02-30\r\n---\r\nbody [[a|b]]\r\n",
        "---\nterm_source: 'it''s'\nterm_target: \"a\\\"b\\tc\"\nsource_lang: [en, de]\ntarget_lang: nl\nstatus: \" approved\"\nclients: []\n---\n",
        "---\nstatus: Approved\nterm_source: a\nterm_target: b\nsource_lang: en\ntarget_lang: nl\n---\n",
        "---\nstatus: approved\nstatus: rejected\nterm_source: a\nterm_target: b\n---\n",
        "---\nstatus: approved\nterm_source: a\nterm_target: b\nsource_lang: en\ntarget_lang: nl\nmeta:\n  nested: [1, 2]\nclient: [[Unquoted]]\n---\n",
        "---\nstatus: nonsense\nlanguages: [\"en → nl\", \"English\", \"\", \"de->xx_YY\"]\nlanguage_pair: en -> de\nlast_updated: not a date\n---\n",
        "---\nlast_updated: [2026-01-01, x]\nclient:\ndomains: []\nscope: general\n---\n",
        "---\ncompiled: true\ncompiled_date: 2026-13-01\ncompiled_to: []\nlast_updated: 2026-01-01T10:00:00Z\n---\nnote\n",
        "---\ncompiled: \"True\"\nclient: 12\ndomain: true\nstatus: ~\n---\n",
        "---\n---\n",
        "---\n   \n---\nbody\n",
        "---\nclient: Acme\nno close\n",
        "```markdown\n---\nstatus: approved\nterm_source: a\nterm_target: b\nsource_lang: en\ntarget_lang: nl\n---\n# T\n```\n",
        "no block at all [[x]]",
        "",
        "---\n",
        "---\n- a list\n---\n",
        "---\nkey: [unclosed\n---\n",
        "---\naws: AKIAIOSFODNN7EXAMPLE\nlast_updated: 2026-01-01\n---\n",
    ]
    .iter()
    .map(|t| t.as_bytes().to_vec())
    .chain([
        format!("---\nstatus: approved\nterm_source: {long}\nterm_target: b\nsource_lang: en\ntarget_lang: nl\nclient: {long}\n---\n{long}\n").into_bytes(),
        b"---\nclient: Acme\n---\n\xff\xfe not text\n".to_vec(),
        "---\nstatus: approved\n---\n"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .fold(vec![0xFF, 0xFE], |mut v, b| {
                v.push(b);
                v
            }),
    ])
    .collect();
    let mut compared = 0;
    for (i, bytes) in texts.iter().enumerate() {
        for folder in Folder::ALL {
            for rel in [
                format!("{}/t{i}.md", folder.dir_name()),
                format!("{}/_archive/t{i}.md", folder.dir_name()),
            ] {
                compared += usize::from(read_both_ways(&rel, folder, bytes).is_some());
            }
        }
    }
    assert_eq!(compared, (texts.len() - 1) * 7 * 2);
}
