//! A synthetic memory bank, for benchmarks and load tests.
//!
//! The bank is reproducible from its seed: the same options always write the
//! same files with the same bytes. Articles are spread over 01–04 roughly the
//! way a working translator's bank grows (mostly terminology), carry the
//! frontmatter keys the format defines, and link to each other with
//! `[[wikilinks]]`, a few of them dead.

use std::collections::{BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::layout::{ARCHIVE_DIR, Folder};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SynthOptions {
    /// Content articles in 01–04 (the inbox notes come on top).
    pub articles: usize,
    pub seed: u64,
    /// Average size of an article file in bytes; sizes vary from half to one
    /// and a half times this.
    pub avg_bytes: usize,
}

impl Default for SynthOptions {
    fn default() -> Self {
        SynthOptions {
            articles: 1000,
            seed: 1,
            avg_bytes: 1000,
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    pub clients: usize,
    pub terminology: usize,
    pub domains: usize,
    pub style: usize,
    pub inbox_notes: usize,
    /// Every file written, templates and indices included.
    pub files: usize,
    pub total_bytes: u64,
    /// Wikilinks written, in frontmatter and bodies.
    pub links: usize,
    /// Links whose target names no article.
    pub dead_links: usize,
    /// The client named by the most articles, for a query that matches a lot.
    pub busiest_client: String,
    /// The domain named by the most articles.
    pub busiest_domain: String,
}

impl Stats {
    pub fn content_articles(&self) -> usize {
        self.clients + self.terminology + self.domains + self.style
    }
}

/// SplitMix64: tiny, fast, and good enough to spread test data.
#[derive(Debug, Clone)]
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// An independent stream for item `n`, so items can be built in parallel.
    fn for_item(seed: u64, n: u64) -> Rng {
        let mut r = Rng(seed ^ n.wrapping_mul(0xA24B_AED4_963E_E407));
        r.next();
        r
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 11) as u128 * n as u128) >> 53) as usize
    }

    /// True with probability `percent` / 100.
    fn chance(&mut self, percent: u32) -> bool {
        self.below(100) < percent as usize
    }

    /// Skewed towards the start: a few items get most of the picks, as a few
    /// clients and domains do in a real bank.
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((u * u * u) * n as f64) as usize % n
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

const SOURCE_SYLLABLES: [&str; 32] = [
    "com", "pli", "ance", "con", "tract", "ser", "vice", "lia", "bil", "ity", "in", "dem", "ni",
    "fy", "war", "ran", "ty", "ter", "mi", "na", "tion", "pro", "cure", "ment", "re", "port", "fi",
    "nan", "cial", "stat", "ute", "clause",
];
const TARGET_SYLLABLES: [&str; 32] = [
    "na", "le", "ving", "over", "een", "komst", "dienst", "aan", "spra", "ke", "lijk", "heid",
    "vrij", "wa", "ring", "ver", "be", "ein", "di", "ging", "in", "koop", "ver", "slag", "ge",
    "recht", "fi", "nan", "cieel", "wet", "be", "ding",
];
const CLIENT_SUFFIXES: [&str; 10] = [
    "Corporation",
    "Industries",
    "GmbH",
    "BV",
    "NV",
    "Ltd",
    "SA",
    "Group",
    "Labs",
    "Partners",
];
const DOMAIN_GROUPS: [&str; 8] = [
    "Legal",
    "Medical",
    "Finance",
    "Marketing",
    "Technical",
    "IT",
    "Patents",
    "Energy",
];
const TERM_SUBFOLDERS: [&str; 6] = ["legal", "medical", "finance", "it", "marketing", "archive"];
const LANGUAGE_PAIRS: [(&str, &str); 10] = [
    ("en-US", "nl-BE"),
    ("en-GB", "nl-NL"),
    ("en-US", "fr-FR"),
    ("de-DE", "en-GB"),
    ("fr-BE", "nl-BE"),
    ("en-US", "de-DE"),
    ("en", "es"),
    ("nl-NL", "en-US"),
    ("en-US", "ja-JP"),
    ("en-US", "no"),
];
const STATUSES: [&str; 3] = ["approved", "proposed", "rejected"];
const FILLER: [&str; 40] = [
    "the",
    "translator",
    "uses",
    "this",
    "term",
    "in",
    "contracts",
    "and",
    "regulatory",
    "texts",
    "always",
    "never",
    "prefer",
    "client",
    "style",
    "guide",
    "register",
    "formal",
    "source",
    "target",
    "context",
    "usage",
    "avoid",
    "literal",
    "rendering",
    "consistent",
    "approved",
    "reviewer",
    "notes",
    "that",
    "when",
    "where",
    "Belgian",
    "Dutch",
    "market",
    "legal",
    "copy",
    "glossary",
    "with",
    "a",
];

fn word(rng: &mut Rng, syllables: &[&str], min: usize, max: usize) -> String {
    let n = min + rng.below(max - min + 1);
    let mut w = String::new();
    for _ in 0..n {
        w.push_str(rng.pick(syllables));
    }
    w
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Make `name` unique among `taken` (compared case-insensitively, as links
/// resolve) by numbering repeats.
fn unique(name: String, taken: &mut HashSet<String>) -> String {
    if taken.insert(name.to_lowercase()) {
        return name;
    }
    (2..)
        .map(|n| format!("{name} {n}"))
        .find(|n| taken.insert(n.to_lowercase()))
        .expect("some number is free")
}

struct Planned {
    folder: Folder,
    /// Subfolder inside the folder, if any.
    sub: Option<&'static str>,
    name: String,
    /// For terminology: source and target term.
    term: Option<(String, String)>,
}

impl Planned {
    fn rel_path(&self) -> String {
        match self.sub {
            Some(sub) => format!("{}/{sub}/{}.md", self.folder.dir_name(), self.name),
            None => format!("{}/{}.md", self.folder.dir_name(), self.name),
        }
    }
}

struct Plan {
    articles: Vec<Planned>,
    clients: Vec<usize>,
    domains: Vec<usize>,
}

fn plan(opts: &SynthOptions) -> Plan {
    let n = opts.articles;
    let mut rng = Rng::new(opts.seed);
    let clients = (n / 50).max(n.min(1));
    let domains = (n / 10).min(n - clients);
    let style = (n * 8 / 100).min(n - clients - domains);
    let terms = n - clients - domains - style;
    let mut taken = HashSet::new();
    let mut articles = Vec::with_capacity(n);
    for _ in 0..clients {
        let base = capitalised(&word(&mut rng, &SOURCE_SYLLABLES, 2, 3));
        let name = unique(format!("{base} {}", rng.pick(&CLIENT_SUFFIXES)), &mut taken);
        articles.push(Planned {
            folder: Folder::Clients,
            sub: None,
            name,
            term: None,
        });
    }
    for _ in 0..domains {
        let group = rng.pick(&DOMAIN_GROUPS);
        let topic = capitalised(&word(&mut rng, &SOURCE_SYLLABLES, 2, 3));
        let name = unique(format!("{group} {topic}"), &mut taken);
        let sub = rng.chance(40).then_some(group);
        articles.push(Planned {
            folder: Folder::Domains,
            sub,
            name,
            term: None,
        });
    }
    for _ in 0..terms {
        let source = word(&mut rng, &SOURCE_SYLLABLES, 2, 4);
        let target = word(&mut rng, &TARGET_SYLLABLES, 2, 4);
        let name = unique(format!("{source} → {target}"), &mut taken);
        let sub = rng.chance(30).then(|| rng.pick(&TERM_SUBFOLDERS));
        articles.push(Planned {
            folder: Folder::Terminology,
            sub,
            name,
            term: Some((source, target)),
        });
    }
    for i in 0..style {
        let (s, t) = rng.pick(&LANGUAGE_PAIRS);
        let name = unique(format!("Style guide {s} to {t} {}", i + 1), &mut taken);
        articles.push(Planned {
            folder: Folder::Style,
            sub: None,
            name,
            term: None,
        });
    }
    Plan {
        clients: (0..clients).collect(),
        domains: (clients..clients + domains).collect(),
        articles,
    }
}

/// One generated file and what it refers to.
struct Written {
    bytes: u64,
    links: usize,
    dead_links: usize,
    clients: Vec<usize>,
    domains: Vec<usize>,
}

fn date(rng: &mut Rng) -> String {
    format!(
        "20{:02}-{:02}-{:02}",
        23 + rng.below(4),
        1 + rng.below(12),
        1 + rng.below(28)
    )
}

fn pair(rng: &mut Rng) -> (&'static str, &'static str) {
    LANGUAGE_PAIRS[rng.skewed(LANGUAGE_PAIRS.len())]
}

struct Writer<'a> {
    plan: &'a Plan,
    rng: Rng,
    out: String,
    links: usize,
    dead_links: usize,
    clients: Vec<usize>,
    domains: Vec<usize>,
}

impl Writer<'_> {
    /// Name a client, favouring a few busy ones; `None` in a bank too small
    /// to have any.
    fn client(&mut self) -> Option<String> {
        let ids = &self.plan.clients;
        if ids.is_empty() {
            return None;
        }
        let id = ids[self.rng.skewed(ids.len())];
        self.clients.push(id);
        Some(self.plan.articles[id].name.clone())
    }

    fn domain(&mut self) -> Option<String> {
        let ids = &self.plan.domains;
        if ids.is_empty() {
            return None;
        }
        let id = ids[self.rng.skewed(ids.len())];
        self.domains.push(id);
        Some(self.plan.articles[id].name.clone())
    }

    /// A frontmatter list of quoted wikilinks, e.g. `["[[Legal]]"]`.
    fn quoted_links(&mut self, n: usize, each: fn(&mut Self) -> Option<String>) -> String {
        let mut items = Vec::new();
        for _ in 0..n {
            if let Some(name) = each(self) {
                self.links += 1;
                items.push(format!("\"[[{name}]]\""));
            }
        }
        format!("[{}]", items.join(", "))
    }

    /// A wikilink to some article, now and then with an alias or heading,
    /// and about one in twenty to an article that does not exist.
    fn link(&mut self) -> String {
        self.links += 1;
        let target = if self.rng.chance(5) {
            self.dead_links += 1;
            format!("Missing {}", word(&mut self.rng, &SOURCE_SYLLABLES, 2, 3))
        } else {
            let id = self.rng.below(self.plan.articles.len());
            self.plan.articles[id].name.clone()
        };
        match self.rng.below(10) {
            0 => format!("[[{target}|{}]]", word(&mut self.rng, &FILLER, 1, 2)),
            1 => format!("[[{target}#Usage]]"),
            _ => format!("[[{target}]]"),
        }
    }

    fn sentence(&mut self) {
        let words = 6 + self.rng.below(10);
        // About one article in six quotes a word as inline code.
        let code_at = self.rng.chance(2).then(|| 1 + self.rng.below(words - 1));
        for i in 0..words {
            let w = self.rng.pick(&FILLER);
            if i == 0 {
                self.out.push_str(&capitalised(w));
            } else {
                self.out.push(' ');
                if code_at == Some(i) {
                    self.out.push('`');
                    self.out.push_str(w);
                    self.out.push('`');
                } else {
                    self.out.push_str(w);
                }
            }
        }
        if self.rng.chance(12) {
            let l = self.link();
            self.out.push_str(" (see ");
            self.out.push_str(&l);
            self.out.push(')');
        }
        self.out.push_str(". ");
    }

    fn languages(&mut self) -> String {
        let n = 1 + self.rng.below(2);
        let items: Vec<String> = (0..n)
            .map(|_| {
                let (s, t) = pair(&mut self.rng);
                let arrow = if self.rng.chance(5) { "->" } else { "→" };
                format!("\"{s} {arrow} {t}\"")
            })
            .collect();
        format!("[{}]", items.join(", "))
    }

    fn last_updated(&mut self) {
        match self.rng.below(100) {
            0..=2 => {}
            3 => self.out.push_str("last_updated: last week\n"),
            _ => {
                let d = date(&mut self.rng);
                self.out.push_str(&format!("last_updated: {d}\n"));
            }
        }
    }

    fn frontmatter(&mut self, a: &Planned) {
        self.out.push_str("---\n");
        match a.folder {
            Folder::Clients => {
                self.out.push_str(&format!("client: \"{}\"\n", a.name));
                let langs = self.languages();
                self.out.push_str(&format!("languages: {langs}\n"));
                let n = 1 + self.rng.below(3);
                let domains = self.quoted_links(n, Self::domain);
                self.out.push_str(&format!("domains: {domains}\n"));
            }
            Folder::Terminology => {
                let (source, target) = a.term.as_ref().expect("terms have terms");
                let (s, t) = pair(&mut self.rng);
                self.out.push_str(&format!(
                    "term_source: \"{source}\"\nterm_target: \"{target}\"\nsource_lang: {s}\ntarget_lang: {t}\n"
                ));
                if self.rng.chance(85) {
                    let d = self.quoted_links(1, Self::domain);
                    // A single domain is usually written as a scalar.
                    let d = d.trim_start_matches('[').trim_end_matches(']');
                    if !d.is_empty() {
                        self.out.push_str(&format!("domain: {d}\n"));
                    }
                }
                match self.rng.below(10) {
                    0..=3 => {}
                    4 => {
                        if let Some(c) = self.client() {
                            self.out.push_str(&format!("client: {c}\n"));
                        }
                    }
                    _ => {
                        let n = 1 + self.rng.below(2);
                        let cs = self.quoted_links(n, Self::client);
                        self.out.push_str(&format!("clients: {cs}\n"));
                    }
                }
                let status = STATUSES[self.rng.skewed(STATUSES.len())];
                self.out.push_str(&format!("status: {status}\n"));
            }
            Folder::Domains => {
                self.out.push_str(&format!("domain: \"{}\"\n", a.name));
                let langs = self.languages();
                self.out.push_str(&format!("languages: {langs}\n"));
                if self.rng.chance(50) {
                    let n = 1 + self.rng.below(2);
                    let related = self.quoted_links(n, Self::domain);
                    self.out.push_str(&format!("related_domains: {related}\n"));
                }
            }
            _ => {
                match self.rng.chance(30).then(|| self.client()).flatten() {
                    Some(c) => {
                        self.links += 1;
                        self.out
                            .push_str(&format!("scope: client\nclient: \"[[{c}]]\"\n"));
                    }
                    None => self.out.push_str("scope: general\n"),
                }
                let langs = self.languages();
                self.out.push_str(&format!("languages: {langs}\n"));
            }
        }
        self.last_updated();
        if self.rng.chance(10) {
            let n = self.rng.below(1000);
            self.out
                .push_str(&format!("compiled_from: \"00_INBOX/note-{n}.md\"\n"));
        }
        self.out.push_str("---\n");
    }

    fn body(&mut self, a: &Planned, target_len: usize) {
        let title = match &a.term {
            Some((s, t)) => format!("{s} → {t}"),
            None => a.name.clone(),
        };
        self.out.push_str(&format!("\n# {title}\n\n"));
        if let Some((_, t)) = &a.term {
            self.out
                .push_str(&format!("## Preferred translation\n**{t}**\n\n"));
            self.out
                .push_str("## Rejected alternatives\n| Alternative | Reason |\n|---|---|\n");
            for _ in 0..1 + self.rng.below(3) {
                let alt = word(&mut self.rng, &TARGET_SYLLABLES, 2, 3);
                let why = self.rng.pick(&FILLER);
                self.out.push_str(&format!("| {alt} | {why} |\n"));
            }
            self.out.push('\n');
        }
        let sections = ["Context and usage", "Notes", "Examples", "Decisions"];
        let mut s = 0;
        while self.out.len() < target_len {
            self.out
                .push_str(&format!("## {}\n", sections[s % sections.len()]));
            s += 1;
            for _ in 0..2 + self.rng.below(3) {
                if self.out.len() >= target_len {
                    break;
                }
                self.sentence();
            }
            self.out.push_str("\n\n");
        }
        if self.rng.chance(40) {
            let l = self.link();
            self.out.push_str(&format!("## Related\n- {l}\n"));
        }
    }
}

fn render(plan: &Plan, index: usize, opts: &SynthOptions) -> (String, Written) {
    let a = &plan.articles[index];
    let mut w = Writer {
        plan,
        rng: Rng::for_item(opts.seed, index as u64),
        out: String::with_capacity(opts.avg_bytes * 2),
        links: 0,
        dead_links: 0,
        clients: Vec::new(),
        domains: Vec::new(),
    };
    let target_len = opts.avg_bytes / 2 + w.rng.below(opts.avg_bytes.max(1));
    w.frontmatter(a);
    w.body(a, target_len);
    let mut text = w.out;
    // A few files the way real banks have them: pasted inside a code fence
    // (§4.3) or saved with Windows line endings.
    if w.rng.chance(1) {
        text = format!("```markdown\n{text}```\n");
    }
    if w.rng.chance(2) {
        text = text.replace('\n', "\r\n");
    }
    let written = Written {
        bytes: text.len() as u64,
        links: w.links,
        dead_links: w.dead_links,
        clients: w.clients,
        domains: w.domains,
    };
    (text, written)
}

fn most_named(plan: &Plan, counts: &[usize], ids: &[usize]) -> String {
    ids.iter()
        .max_by_key(|&&id| (counts[id], std::cmp::Reverse(id)))
        .map(|&id| plan.articles[id].name.clone())
        .unwrap_or_default()
}

/// Write a synthetic bank into `dir` (created if needed; existing files with
/// the same names are overwritten).
pub fn generate(dir: &Path, opts: SynthOptions) -> io::Result<Stats> {
    let plan = plan(&opts);
    let mut dirs = BTreeSet::new();
    for f in Folder::ALL {
        dirs.insert(dir.join(f.dir_name()));
    }
    dirs.insert(dir.join(Folder::Inbox.dir_name()).join(ARCHIVE_DIR));
    for a in &plan.articles {
        if let Some(sub) = a.sub {
            dirs.insert(dir.join(a.folder.dir_name()).join(sub));
        }
    }
    for d in &dirs {
        fs::create_dir_all(d)?;
    }
    let written: Vec<Written> = (0..plan.articles.len())
        .into_par_iter()
        .map(|i| {
            let (text, w) = render(&plan, i, &opts);
            fs::write(dir.join(plan.articles[i].rel_path()), text)?;
            Ok(w)
        })
        .collect::<io::Result<_>>()?;
    let mut stats = Stats::default();
    let mut counts = vec![0usize; plan.articles.len()];
    for (a, w) in plan.articles.iter().zip(&written) {
        match a.folder {
            Folder::Clients => stats.clients += 1,
            Folder::Terminology => stats.terminology += 1,
            Folder::Domains => stats.domains += 1,
            _ => stats.style += 1,
        }
        stats.total_bytes += w.bytes;
        stats.links += w.links;
        stats.dead_links += w.dead_links;
        for &id in w.clients.iter().chain(&w.domains) {
            counts[id] += 1;
        }
    }
    stats.files = plan.articles.len();
    stats.busiest_client = most_named(&plan, &counts, &plan.clients);
    stats.busiest_domain = most_named(&plan, &counts, &plan.domains);
    let mut extra = |rel: String, text: String| -> io::Result<()> {
        stats.total_bytes += text.len() as u64;
        stats.files += 1;
        fs::write(dir.join(rel), text)
    };
    let mut rng = Rng::for_item(opts.seed, u64::MAX);
    let notes = 3 + opts.articles / 20_000;
    for i in 0..notes {
        let mut text = format!("Call notes {}: ", date(&mut rng));
        for _ in 0..20 {
            text.push_str(rng.pick(&FILLER));
            text.push(' ');
        }
        text.push('\n');
        extra(format!("{}/note-{i}.md", Folder::Inbox.dir_name()), text)?;
    }
    extra(
        format!("{}/{ARCHIVE_DIR}/processed.md", Folder::Inbox.dir_name()),
        "---\ncompiled: true\ncompiled_date: 2026-01-05\ncompiled_to: []\n---\nDone.\n".into(),
    )?;
    let mut index = String::from("# Clients\n\n");
    for &id in plan.clients.iter().take(200) {
        index.push_str(&format!("- [[{}]]\n", plan.articles[id].name));
    }
    extra(format!("{}/Clients.md", Folder::Indices.dir_name()), index)?;
    extra(
        format!("{}/query.md", Folder::Templates.dir_name()),
        "Answer from the memory bank context below.\n".into(),
    )?;
    stats.inbox_notes = notes + 1;
    Ok(stats)
}

#[cfg(test)]
mod tests;
