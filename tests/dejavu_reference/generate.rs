//! Random Deja Vu memories with everything the reference tools treat
//! oddly: Unicode letters and digits, hyphens, aliases, weights and
//! statuses of every JSON type, broken and non-object lines, CRLF, BOMs,
//! secrets, transcripts, bad frontmatter.

use std::collections::BTreeMap;

/// A small deterministic generator (xorshift64*), so a seed names a case.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

const WORDS: &[&str] = &[
    "settings",
    "sync",
    "Settings-Sync",
    "SETTINGS",
    "café",
    "CAFÉ",
    "über",
    "ΟΔΟΣ",
    "οδος",
    "東京",
    "x",
    "a",
    "b2",
    "2026",
    "e2e",
    "naïve",
    "İstanbul",
    "straße",
    "STRASSE",
    "𝐀𝐁",
    "𝐀",
    "😀",
    "v1.2",
    "foo_bar",
    "don't",
    "ǅemal",
    "ﬁle",
    "١٢٣",
    "Ⅻ",
    "x²",
    "test-case",
    "k8s",
    "Σίσυφος",
    "migration",
    "legacy",
    "names",
    "engine",
    "protocol",
    "memory",
    "project",
    "task",
    "work",
    "data",
    "note",
    "info",
    "localStorage",
    "preferences",
    "recall",
    "ab\u{00AD}cd",
    "tab\tbed",
];

fn word(r: &mut Rng) -> String {
    r.pick(WORDS).to_owned()
}

fn phrase(r: &mut Rng, max: usize) -> String {
    let seps = [" ", " ", "-", ", ", "/", "_", ".", "  "];
    let n = 1 + r.below(max);
    let mut s = word(r);
    for _ in 1..n {
        s.push_str(seps[r.below(seps.len())]);
        s.push_str(&word(r));
    }
    s
}

fn js_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

fn string_array(r: &mut Rng, max: usize) -> String {
    let n = r.below(max + 1);
    let items: Vec<String> = (0..n)
        .map(|_| match r.below(12) {
            0 => "null".into(),
            1 => "7".into(),
            2 => "[\"nested\",[\"deep\",null]]".into(),
            3 => "{\"a\":1}".into(),
            4 => js_string(""),
            5 => js_string("  "),
            6 => js_string("ab\\ud800cd").replace("\\\\", "\\"),
            _ => js_string(&phrase(r, 2)),
        })
        .collect();
    format!("[{}]", items.join(","))
}

fn plain_array(r: &mut Rng, max: usize) -> String {
    let n = r.below(max + 1);
    let items: Vec<String> = (0..n).map(|_| js_string(&phrase(r, 2))).collect();
    format!("[{}]", items.join(","))
}

fn keywords_value(r: &mut Rng) -> Option<String> {
    Some(match r.below(20) {
        0 => return None,
        1 => "null".into(),
        2 => js_string(&phrase(r, 2)),
        3 => "5".into(),
        4 => "{}".into(),
        5 | 6 => string_array(r, 5),
        7 => "[]".into(),
        8 => format!(
            "[{}]",
            (0..14)
                .map(|i| js_string(&format!("kw{i}")))
                .collect::<Vec<_>>()
                .join(",")
        ),
        9 => r#"["memory","project","task","work"]"#.into(),
        10 => r#"["Alpha","alpha ","beta"]"#.into(),
        _ => plain_array(r, 6),
    })
}

fn weight_value(r: &mut Rng) -> Option<String> {
    let choices = [
        "0.9",
        "1",
        "0",
        "-0.5",
        "2",
        "\"0.9\"",
        "null",
        "true",
        "1e400",
        "-1e400",
        "1e-9",
        "0.30000000000000004",
        "[]",
        "{}",
        "0.7",
        "0.33",
        "1.0",
        "-0",
        "0.123456789",
        "5e-1",
    ];
    if r.chance(20) {
        return None;
    }
    if r.chance(30) {
        return Some(format!("0.{}", r.below(1000)));
    }
    Some(choices[r.below(choices.len())].to_owned())
}

fn status_value(r: &mut Rng) -> Option<String> {
    let choices = [
        "\"active\"",
        "\"\"",
        "\"superseded\"",
        "\"archived\"",
        "null",
        "0",
        "1",
        "false",
        "true",
        "[]",
        "\"Active\"",
        "\"active\"",
        "\"active\"",
    ];
    if r.chance(35) {
        return None;
    }
    Some(choices[r.below(choices.len())].to_owned())
}

fn pick_value(r: &mut Rng, choices: &[&str], absent_percent: usize) -> Option<String> {
    if r.chance(absent_percent) {
        None
    } else {
        Some(choices[r.below(choices.len())].to_owned())
    }
}

/// One impression line (sometimes not an object, or not JSON at all).
pub fn impression_line(r: &mut Rng, n: usize) -> String {
    match r.below(40) {
        0 => return "{\"id\": broken".into(),
        1 => return "null".into(),
        2 => return "5".into(),
        3 => return "\"just a string\"".into(),
        4 => return "[1,2]".into(),
        5 => return String::new(),
        6 => return "   ".into(),
        _ => {}
    }
    let mut fields: Vec<(String, String)> = Vec::new();
    let id = match r.below(10) {
        0 => None,
        1 => Some("null".into()),
        2 => Some("3".into()),
        3 => Some("{\"x\":1}".into()),
        4 => Some(js_string("dup-id")),
        _ => Some(js_string(&format!("imp-{n}"))),
    };
    let title = match r.below(10) {
        0 => None,
        1 => Some("42".into()),
        2 => Some("null".into()),
        3 => Some(plain_array(r, 3)),
        4 => Some(js_string("   ")),
        _ => Some(js_string(&phrase(r, 4))),
    };
    let record_paths = [
        "\"memory/decisions/d1.md\"",
        "\"memory/open-loops/l1.md\"",
        "\"memory/missing.md\"",
        "\"../../etc/passwd\"",
        "\"/etc/passwd\"",
        "\"\"",
        "\"memory/summary.md\"",
        "\"memory/\"",
        "7",
        "\"./memory/decisions/../summary.md\"",
    ];
    let schema = pick_value(r, &["1", "1", "1", "2", "\"1\"", "1.0"], 15);
    let scope = pick_value(
        r,
        &[
            "\"project:demo\"",
            "\"project:demo\"",
            "\"demo\"",
            "5",
            "\"\"",
        ],
        10,
    );
    let updated = pick_value(
        r,
        &[
            "\"2026-05-16\"",
            "\"2026-5-1\"",
            "\"2026-05-16T10:00:00Z\"",
            "\"2026-05-16T10:00:00.123Z\"",
            "\"2026-05-16T10:00\"",
            "20260516",
        ],
        10,
    );
    let aliases = if r.chance(60) {
        None
    } else if r.chance(80) {
        Some(plain_array(r, 3))
    } else {
        keywords_value(r)
    };
    let order: [(&str, Option<String>); 10] = [
        ("schema_version", schema),
        ("id", id),
        ("scope", scope),
        ("title", title),
        ("keywords", keywords_value(r)),
        ("aliases", aliases),
        ("record_path", pick_value(r, &record_paths, 10)),
        ("updated", updated),
        ("weight", weight_value(r)),
        ("status", status_value(r)),
    ];
    for (k, v) in order {
        if let Some(v) = v {
            fields.push((k.to_owned(), v));
        }
    }
    if r.chance(5) {
        // A repeated key: the last value wins.
        fields.push(("title".into(), js_string(&phrase(r, 2))));
    }
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("{}:{v}", js_string(k)))
        .collect();
    let sep = if r.chance(20) { ", " } else { "," };
    format!("{{{}}}", body.join(sep))
}

pub fn impressions(r: &mut Rng, lines: usize) -> String {
    let eol = if r.chance(20) { "\r\n" } else { "\n" };
    let mut out = String::new();
    if r.chance(5) {
        out.push('\u{feff}');
    }
    for n in 0..lines {
        out.push_str(&impression_line(r, n));
        out.push_str(eol);
    }
    out
}

pub fn cue(r: &mut Rng) -> String {
    let mut s = phrase(r, 5);
    if r.chance(30) {
        s = s.to_uppercase();
    }
    if r.chance(20) {
        s.push_str("?!");
    }
    s
}

fn feedback_line(r: &mut Rng) -> String {
    match r.below(25) {
        0 => return "{bad".into(),
        1 => return "null".into(),
        2 => return "7".into(),
        _ => {}
    }
    let mut f: Vec<String> = Vec::new();
    if let Some(v) = pick_value(r, &["1", "2"], 15) {
        f.push(format!("\"schema_version\":{v}"));
    }
    let query = match r.below(10) {
        0 => "\"\"".to_owned(),
        1 => "5".to_owned(),
        2 => js_string(&"long cue ".repeat(30)),
        _ => js_string(&phrase(r, 3)),
    };
    f.push(format!("\"query\":{query}"));
    if let Some(v) = pick_value(
        r,
        &[
            "\"imp-1\"",
            "\"imp-2\"",
            "\"unmatched\"",
            "\"nope\"",
            "5",
            "null",
            "\"\"",
            "\"dup-id\"",
        ],
        30,
    ) {
        f.push(format!("\"matched_id\":{v}"));
    }
    if let Some(v) = pick_value(
        r,
        &[
            "\"helpful\"",
            "\"irrelevant\"",
            "\"missed\"",
            "\"overloaded\"",
            "\"great\"",
            "null",
        ],
        5,
    ) {
        f.push(format!("\"outcome\":{v}"));
    }
    if let Some(v) = pick_value(
        r,
        &[
            "\"2026-05-16\"",
            "\"yesterday\"",
            "\"2026-05-16T10:00:00Z\"",
        ],
        10,
    ) {
        f.push(format!("\"created\":{v}"));
    }
    format!("{{{}}}", f.join(","))
}

const SAFETY: &[&str] = &[
    "key sk-abcdefghijklmnopqrstuvwx",
    "token ghp_abcdefghijklmnopqrstuvwxyz1234",
    "AKIAABCDEFGHIJKLMNOP",
    "write to ann@example.com",
    "User: what did we decide?",
    "assistant: we kept it",
    "<subagent_notification>",
    "Traceback (most recent call last)",
    "npm ERR!code",
    "  at run (main.js:10:5)",
    "password = \"hunter2hunter2hunter2\"",
    "api_key: abcdefghijklmnopqrstuvwxyz",
    "-----BEGIN OPENSSH PRIVATE KEY-----",
    "plain durable signal",
];

fn markdown(r: &mut Rng, kind: &str) -> String {
    let eol = if r.chance(15) { "\r\n" } else { "\n" };
    let mut lines: Vec<String> = Vec::new();
    let fm = r.below(10);
    if fm > 0 {
        lines.push("---".into());
        let fields = [
            ("id", &["d1", "", "\"quoted\""][..]),
            ("title", &["A title", "'single'", ""][..]),
            (
                "status",
                &["active", "superseded", "archived", "draft", ""][..],
            ),
            ("scope", &["project:demo", "demo", ""][..]),
            (
                "updated",
                &["2026-05-16", "May 2026", "2026-05-16T10:00:00Z"][..],
            ),
            ("superseded_by", &["memory/decisions/d2.md", ""][..]),
        ];
        for (k, vals) in fields {
            if r.chance(80) {
                lines.push(format!("{k}: {}", vals[r.below(vals.len())]));
            }
        }
        if fm > 1 {
            lines.push("---".into());
        }
    }
    lines.push(format!("# {}", phrase(r, 3)));
    let headings: &[&str] = match kind {
        "decision" => &[
            "## Decision",
            "## Rationale",
            "## Consequences",
            "### Decisions",
        ],
        "open-loop" => &[
            "## Owner",
            "## Opened",
            "## Next trigger",
            "## Why it matters",
        ],
        _ => &["## Current objective"],
    };
    for h in headings {
        if r.chance(75) {
            lines.push(String::new());
            lines.push((*h).to_owned());
            lines.push(phrase(r, 6));
        }
    }
    if r.chance(40) {
        lines.push(r.pick(SAFETY).to_owned());
    }
    if r.chance(5) {
        lines.push("filler ".repeat(3000));
    }
    let mut text = lines.join(eol);
    if r.chance(85) {
        text.push_str(eol);
    }
    text
}

/// A whole project: path → content.
pub fn project(r: &mut Rng) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    if r.chance(85) {
        let mut agents = "# Rules\n".to_owned();
        if r.chance(20) {
            agents.push_str(r.pick(SAFETY));
            agents.push('\n');
        }
        files.insert("AGENTS.md".into(), agents);
    }
    if r.chance(85) {
        files.insert("memory/summary.md".into(), markdown(r, "summary"));
    }
    if r.chance(90) {
        let n = 1 + r.below(8);
        files.insert("memory/impressions.jsonl".into(), impressions(r, n));
    }
    if r.chance(60) {
        let lines: Vec<String> = (0..1 + r.below(5)).map(|_| feedback_line(r)).collect();
        files.insert(
            "memory/recall-feedback.jsonl".into(),
            lines.join("\n") + "\n",
        );
    }
    for i in 1..=r.below(3) {
        files.insert(format!("memory/decisions/d{i}.md"), markdown(r, "decision"));
    }
    if r.chance(30) {
        files.insert(
            "memory/decisions/sub/deep.md".into(),
            markdown(r, "decision"),
        );
    }
    for i in 1..=r.below(3) {
        files.insert(
            format!("memory/open-loops/l{i}.md"),
            markdown(r, "open-loop"),
        );
    }
    if r.chance(30) {
        files.insert("memory/notes.txt".into(), r.pick(SAFETY).to_owned());
    }
    files
}
