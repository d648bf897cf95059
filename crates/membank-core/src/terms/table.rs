//! Term tables: CSV in memoQ's termbase column layout, TSV as
//! Supervertaler's termbase import reads it, and any delimited glossary
//! with or without a header row when reading.

use super::tbx::day_of;
use super::{Concept, ReadTerms, Status, TermRecord};

/// memoQ's entry-level columns, in the order its exports have them.
const MEMOQ_ENTRY: [&str; 10] = [
    "Entry_ID",
    "Entry_Subject",
    "Entry_Domain",
    "Entry_ClientID",
    "Entry_ProjectID",
    "Entry_Created",
    "Entry_Creator",
    "Entry_LastModified",
    "Entry_Modifier",
    "Entry_Note",
];

/// Supervertaler's termbase columns, in its order.
const SUPERVERTALER: [&str; 8] = [
    "Source Term",
    "Target Term",
    "Priority",
    "Domain",
    "Notes",
    "Project",
    "Client",
    "Forbidden",
];

/// The `Term_Info` of a row's source term.
const SOURCE_INFO: &str = "source";

/// Several clients in one cell.
const CLIENT_SEPARATOR: &str = "; ";

fn field(s: &str, delimiter: char) -> String {
    // Tabs and line breaks are kept (quoted where they would end the
    // cell); other control characters have no place in a term.
    let clean: String = s
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    if clean.contains([delimiter, '"', '\n', '\r']) || clean.starts_with(' ') {
        format!("\"{}\"", clean.replace('"', "\"\""))
    } else {
        clean
    }
}

fn row(cells: &[String], delimiter: char, out: &mut String) {
    let line: Vec<String> = cells.iter().map(|c| field(c, delimiter)).collect();
    out.push_str(&line.join(&delimiter.to_string()));
    out.push_str("\r\n");
}

/// `YYYY-MM-DD` as memoQ writes dates: `M/d/yyyy h:mm:ss tt`, UTC;
/// empty for a date that is not a real one.
fn memoq_date(day: &str) -> String {
    let Some(day) = super::normal_day(day) else {
        return String::new();
    };
    let parts: Vec<&str> = day.split('-').collect();
    match parts.as_slice() {
        [y, m, d] => {
            let m = m.trim_start_matches('0');
            let d = d.trim_start_matches('0');
            format!("{m}/{d}/{y} 12:00:00 AM")
        }
        _ => String::new(),
    }
}

/// A memoQ date (`M/d/yyyy …`) or an ISO one as `YYYY-MM-DD`.
fn parse_date(s: &str) -> Option<String> {
    if let Some(d) = day_of(s) {
        return Some(d);
    }
    let date = s.split_whitespace().next()?;
    let mut it = date.split('/');
    let (m, d, y) = (it.next()?, it.next()?, it.next()?);
    let (m, d, y): (u32, u32, u32) = (m.parse().ok()?, d.parse().ok()?, y.parse().ok()?);
    if y <= 999 {
        return None;
    }
    super::normal_day(&format!("{y:04}-{m:02}-{d:02}"))
}

/// One row per concept: the entry's fields, then per language its
/// definition column and, per term, the term, its status (`Term_Info`)
/// and its source article (`Term_Example`). Languages are the file's
/// source languages first, then its target languages.
pub fn write_csv(concepts: &[Concept]) -> String {
    let mut langs: Vec<String> = Vec::new();
    let mut add = |l: &str| {
        if !langs.iter().any(|x| x.eq_ignore_ascii_case(l)) {
            langs.push(l.to_owned());
        }
    };
    for c in concepts {
        add(&c.source_lang);
    }
    for c in concepts {
        add(&c.target_lang);
    }
    // As many term columns per language as its fullest entry needs.
    let width = |l: &str| -> usize {
        concepts
            .iter()
            .map(|c| {
                if c.source_lang.eq_ignore_ascii_case(l) {
                    1
                } else if c.target_lang.eq_ignore_ascii_case(l) {
                    c.targets.len()
                } else {
                    0
                }
            })
            .max()
            .unwrap_or(0)
            .max(1)
    };
    let widths: Vec<usize> = langs.iter().map(|l| width(l)).collect();
    let mut header: Vec<String> = MEMOQ_ENTRY.iter().map(|s| s.to_string()).collect();
    for (l, w) in langs.iter().zip(&widths) {
        header.push(format!("{l}_Def"));
        for _ in 0..*w {
            header.push(l.clone());
            header.push("Term_Info".into());
            header.push("Term_Example".into());
            header.push("Term_Note".into());
        }
    }
    let mut out = String::new();
    row(&header, ',', &mut out);
    for (i, c) in concepts.iter().enumerate() {
        let mut cells = vec![
            (i + 1).to_string(),
            String::new(),
            c.domain.clone().unwrap_or_default(),
            c.clients.join(CLIENT_SEPARATOR),
            String::new(),
            String::new(),
            String::new(),
            c.last_updated().map(|d| memoq_date(&d)).unwrap_or_default(),
            String::new(),
            // The entry's note only when its terms agree on it: each
            // term's own is in its `Term_Note`.
            shared_note(c).unwrap_or_default().to_owned(),
        ];
        for (l, w) in langs.iter().zip(&widths) {
            cells.push(String::new());
            // `source` marks the row's source term: a file may hold both
            // directions of a pair, and its columns cannot say which.
            let terms: Vec<[String; 4]> = if c.source_lang.eq_ignore_ascii_case(l) {
                vec![[
                    c.source.clone(),
                    SOURCE_INFO.to_owned(),
                    String::new(),
                    String::new(),
                ]]
            } else if c.target_lang.eq_ignore_ascii_case(l) {
                c.targets
                    .iter()
                    .map(|t| {
                        [
                            t.term.clone(),
                            t.status.as_str().to_owned(),
                            t.path.clone(),
                            t.note.clone().unwrap_or_default(),
                        ]
                    })
                    .collect()
            } else {
                Vec::new()
            };
            for k in 0..*w {
                cells.extend(terms.get(k).cloned().unwrap_or_default());
            }
        }
        row(&cells, ',', &mut out);
    }
    out
}

/// The note every target term of `c` has, if they all have the same.
fn shared_note(c: &Concept) -> Option<&str> {
    let first = c.targets.first()?.note.as_deref()?;
    c.targets
        .iter()
        .all(|t| t.note.as_deref() == Some(first))
        .then_some(first)
}

/// The cells of a CSV or TSV export of `concepts` that a spreadsheet
/// program would take for a formula on opening the file (a cell starting
/// with `=`, `+`, `-` or `@`), each named once, in order: a term, a
/// domain or the clients as quoted text, a note by its article (a note
/// may be a paragraph long). Every cell counts, not only the terms: a
/// domain, a client or a note runs as readily. They are exported as they
/// are: the text is the term's, and a guard character would change it for
/// every tool that reads the file back.
pub fn formula_like(concepts: &[Concept]) -> Vec<String> {
    let risky = |cell: &str| cell.trim_start().starts_with(['=', '+', '-', '@']);
    let mut out: Vec<String> = Vec::new();
    let mut name = |what: String| {
        if !out.contains(&what) {
            out.push(what);
        }
    };
    for c in concepts {
        if risky(&c.source) {
            name(format!("term “{}”", c.source));
        }
        if let Some(d) = c.domain.as_deref().filter(|d| risky(d)) {
            name(format!("domain “{d}”"));
        }
        // The clients share one cell, which starts with the first.
        let clients = c.clients.join(CLIENT_SEPARATOR);
        if risky(&clients) {
            name(format!("client “{}”", c.clients[0]));
        }
        for t in &c.targets {
            if risky(&t.term) {
                name(format!("term “{}”", t.term));
            }
            if t.note.as_deref().is_some_and(risky) {
                name(format!("the note of {}", t.path));
            }
        }
    }
    out
}

/// The clients of `concepts` whose names hold `;`, each once, in order.
/// The clients of an entry share one CSV or TSV cell, separated by `;`,
/// so such a name reads back as two clients; it is exported as it is (a
/// stand-in character would rename the client for every tool that reads
/// the file), and the caller warns.
pub fn clients_split_on_reading(concepts: &[Concept]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in concepts {
        for client in &c.clients {
            if client.contains(';') && !out.contains(client) {
                out.push(client.clone());
            }
        }
    }
    out
}

/// Supervertaler's columns, one row per target term, with a byte-order
/// mark as its import expects. A rejected term is `Forbidden`; a
/// proposed one gets the lowest priority (99), an approved one 1.
pub fn write_tsv(concepts: &[Concept]) -> String {
    let mut out = String::from("\u{FEFF}");
    out.push_str(&SUPERVERTALER.join("\t"));
    out.push_str("\r\n");
    for c in concepts {
        for t in &c.targets {
            let cells = [
                c.source.clone(),
                t.term.clone(),
                match t.status {
                    Status::Proposed => "99",
                    _ => "1",
                }
                .to_owned(),
                c.domain.clone().unwrap_or_default(),
                t.note.clone().unwrap_or_default(),
                String::new(),
                c.clients.join(CLIENT_SEPARATOR),
                if t.status == Status::Rejected {
                    "TRUE"
                } else {
                    "FALSE"
                }
                .to_owned(),
            ];
            row(&cells, '\t', &mut out);
        }
    }
    out
}

/// Rows of a delimited file: quoted fields may hold the delimiter, quotes
/// (doubled) and line breaks. A quote never closed is an error naming the
/// line it opened on: read to the end, it would swallow every row after it.
pub fn parse_rows(text: &str, delimiter: char) -> Result<Vec<Vec<String>>, String> {
    Ok(numbered_rows(text, delimiter)?
        .into_iter()
        .map(|(_, r)| r)
        .collect())
}

/// [`parse_rows`], each row with the line it starts on, for messages.
fn numbered_rows(text: &str, delimiter: char) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut rows = Vec::new();
    let mut row_line = 1usize;
    let mut row: Vec<String> = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut at_start = true;
    let mut line = 1usize;
    let mut quote_line = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' {
            line += 1;
        } else if c.is_control() && c != '\t' && c != '\r' {
            // An escape or bell character would reach the term article and
            // whatever terminal shows it.
            return Err(format!(
                "line {line}: a cell holds the control character U+{:04X}",
                c as u32
            ));
        }
        if quoted {
            if c == '"' {
                if chars.peek() == Some(&'"') {
                    chars.next();
                    cell.push('"');
                } else {
                    quoted = false;
                }
            } else {
                cell.push(c);
            }
            continue;
        }
        match c {
            '"' if at_start => {
                quoted = true;
                quote_line = line;
                at_start = false;
            }
            c if c == delimiter => {
                row.push(std::mem::take(&mut cell));
                at_start = true;
            }
            '\r' => {}
            '\n' => {
                row.push(std::mem::take(&mut cell));
                if row.iter().any(|c| !c.trim().is_empty()) {
                    rows.push((row_line, std::mem::take(&mut row)));
                } else {
                    row.clear();
                }
                row_line = line;
                at_start = true;
            }
            c => {
                cell.push(c);
                at_start = false;
            }
        }
    }
    if quoted {
        return Err(format!(
            "line {quote_line}: a quoted field opens here and is never closed \
             (a stray \" in a cell? double it as \"\")"
        ));
    }
    row.push(cell);
    if row.iter().any(|c| !c.trim().is_empty()) {
        rows.push((row_line, row));
    }
    Ok(rows)
}

/// The delimiter of the first line: the most frequent of tab, `;` and
/// `,` outside quotes.
pub fn sniff_delimiter(text: &str) -> char {
    let first = text.lines().next().unwrap_or("");
    let mut counts = [0usize; 3];
    let mut quoted = false;
    for c in first.chars() {
        match c {
            '"' => quoted = !quoted,
            '\t' if !quoted => counts[0] += 1,
            ';' if !quoted => counts[1] += 1,
            ',' if !quoted => counts[2] += 1,
            _ => {}
        }
    }
    let best = (0..3).max_by_key(|&i| (counts[i], 3 - i)).unwrap_or(0);
    if counts[best] == 0 {
        '\t'
    } else {
        ['\t', ';', ','][best]
    }
}

/// What a header column holds.
#[derive(Debug, Clone, PartialEq)]
enum Col {
    Source,
    Target,
    SourceLang,
    TargetLang,
    Domain,
    Client,
    Note,
    Status,
    Forbidden,
    Priority,
    Date,
    /// memoQ: a term in this language.
    Lang(String),
    /// memoQ: the status of the term column before it.
    TermInfo,
    /// memoQ: the term's source article.
    TermExample,
    /// The term's own note (membank's export adds it after memoQ's
    /// columns; the entry's note serves files without it).
    TermNote,
    Ignored,
}

fn column(name: &str) -> Col {
    let n = name.trim().to_ascii_lowercase().replace(['_', '-'], " ");
    match n.as_str() {
        "source term" | "source" | "term source" | "src" | "term" => Col::Source,
        "target term" | "target" | "term target" | "tgt" | "translation" => Col::Target,
        "source language" | "source lang" => Col::SourceLang,
        "target language" | "target lang" => Col::TargetLang,
        "domain" | "subject" | "subject field" | "entry domain" => Col::Domain,
        "client" | "clients" | "customer" | "entry clientid" => Col::Client,
        "notes" | "note" | "definition" | "entry note" => Col::Note,
        "status" => Col::Status,
        "forbidden" => Col::Forbidden,
        "priority" => Col::Priority,
        "last updated" | "date" | "modified" | "entry lastmodified" => Col::Date,
        "term info" => Col::TermInfo,
        "term example" => Col::TermExample,
        "term note" => Col::TermNote,
        _ if n.starts_with("entry ") || n.ends_with(" def") || n.starts_with("term ") => {
            Col::Ignored
        }
        "id" | "project" => Col::Ignored,
        _ if looks_like_lang(name.trim()) => Col::Lang(name.trim().replace('_', "-")),
        // `English`, `Dutch`: a language by its name, as a plain glossary's
        // header row has it.
        _ if memoq_language(name.trim()) != name.trim() => Col::Lang(memoq_language(name.trim())),
        _ => Col::Ignored,
    }
}

/// A language tag for memoQ's language names (`English_United_States`
/// is `en-US`); a name it does not know is kept as written.
fn memoq_language(name: &str) -> String {
    const LANGUAGES: [(&str, &str); 24] = [
        ("english", "en"),
        ("german", "de"),
        ("french", "fr"),
        ("dutch", "nl"),
        ("spanish", "es"),
        ("italian", "it"),
        ("portuguese", "pt"),
        ("hungarian", "hu"),
        ("polish", "pl"),
        ("czech", "cs"),
        ("slovak", "sk"),
        ("swedish", "sv"),
        ("danish", "da"),
        ("norwegian", "no"),
        ("finnish", "fi"),
        ("greek", "el"),
        ("russian", "ru"),
        ("ukrainian", "uk"),
        ("turkish", "tr"),
        ("japanese", "ja"),
        ("chinese", "zh"),
        ("korean", "ko"),
        ("arabic", "ar"),
        ("romanian", "ro"),
    ];
    const REGIONS: [(&str, &str); 16] = [
        ("united_states", "US"),
        ("united_kingdom", "GB"),
        ("belgium", "BE"),
        ("netherlands", "NL"),
        ("germany", "DE"),
        ("austria", "AT"),
        ("switzerland", "CH"),
        ("france", "FR"),
        ("canada", "CA"),
        ("spain", "ES"),
        ("mexico", "MX"),
        ("brazil", "BR"),
        ("portugal", "PT"),
        ("italy", "IT"),
        ("china", "CN"),
        ("taiwan", "TW"),
    ];
    let lower = name.to_ascii_lowercase();
    let (lang, region) = lower.split_once('_').unwrap_or((&lower, ""));
    let Some((_, code)) = LANGUAGES.iter().find(|(n, _)| *n == lang) else {
        return name.to_owned();
    };
    match REGIONS.iter().find(|(n, _)| *n == region) {
        Some((_, r)) => format!("{code}-{r}"),
        None => (*code).to_owned(),
    }
}

/// `en`, `en-US`, `zh-Hant-TW`: a language tag as a column name.
fn looks_like_lang(s: &str) -> bool {
    let mut parts = s.split(['-', '_']);
    let first = parts.next().unwrap_or("");
    (2..=3).contains(&first.len())
        && first.chars().all(|c| c.is_ascii_alphabetic())
        && parts.all(|p| (2..=8).contains(&p.len()) && p.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// The status a cell names, or an error naming the line and the word: a
/// word read as approved by default would turn a forbidden term into one
/// the check demands.
fn status_word(word: &str, line: usize) -> Result<Status, String> {
    Status::from_tbx(word).ok_or_else(|| {
        format!(
            "line {line}: the status “{}” is not one membank knows (approved, preferred, \
             standardized; proposed, admitted; rejected, forbidden, deprecated, superseded, \
             not recommended, obsolete)",
            word.chars().filter(|c| !c.is_control()).collect::<String>()
        )
    })
}

/// The status a row's own columns give its terms: a `Status` word (an
/// unknown one is an error naming the line), else Supervertaler's
/// `Forbidden` `TRUE` (rejected) or its `Priority` (99 proposed, any
/// other approved); `None` when the row says nothing.
fn row_status(get: &dyn Fn(&Col) -> Option<String>, line: usize) -> Result<Option<Status>, String> {
    if let Some(word) = get(&Col::Status) {
        return status_word(&word, line).map(Some);
    }
    let forbidden = get(&Col::Forbidden)
        .is_some_and(|f| matches!(f.to_ascii_lowercase().as_str(), "true" | "1" | "yes"));
    if forbidden {
        return Ok(Some(Status::Rejected));
    }
    Ok(
        match get(&Col::Priority).and_then(|p| p.parse::<u32>().ok()) {
            Some(99) => Some(Status::Proposed),
            Some(_) => Some(Status::Approved),
            None => None,
        },
    )
}

/// A term of a memoQ row: the term, its status and its own note.
type LangTerm = (String, Status, Option<String>);

/// Terms of a delimited file. A header is recognised by its column
/// names; without one the first two columns are source and target.
/// `pair` names the languages a file without language columns is in.
pub fn read(text: &str, pair: Option<&(String, String)>) -> Result<Vec<TermRecord>, String> {
    read_noting(text, pair).map(|t| t.records)
}

/// [`read`], with each row left out (no term in one of its languages,
/// no language to put it in) named by its line: a row dropped without a
/// word would leave the import looking complete.
pub fn read_noting(text: &str, pair: Option<&(String, String)>) -> Result<ReadTerms, String> {
    let text = text.strip_prefix('\u{FEFF}').unwrap_or(text);
    let delimiter = sniff_delimiter(text);
    let numbered = numbered_rows(text, delimiter)?;
    let lines: Vec<usize> = numbered.iter().map(|(l, _)| *l).collect();
    let rows: Vec<Vec<String>> = numbered.into_iter().map(|(_, r)| r).collect();
    let Some(first) = rows.first() else {
        return Ok(ReadTerms::default());
    };
    let mut cols: Vec<Col> = first.iter().map(|c| column(c)).collect();
    // memoQ names a term column by its language (`English_United_States`);
    // a column followed by `Term_Info` is one, whatever its name.
    for i in 0..cols.len() {
        if cols[i] == Col::Ignored && cols.get(i + 1) == Some(&Col::TermInfo) {
            cols[i] = Col::Lang(memoq_language(first[i].trim()));
        }
    }
    let has_header = cols
        .iter()
        .any(|c| matches!(c, Col::Source | Col::Target | Col::Lang(_)))
        && cols.iter().filter(|c| !matches!(c, Col::Ignored)).count() >= 2;
    let (body, body_lines) = if has_header {
        (&rows[1..], &lines[1..])
    } else {
        cols = vec![Col::Source, Col::Target];
        (&rows[..], &lines[..])
    };
    // A column named by a bare language (`English` is `en`) takes the
    // pair's regional tag for it, when the pair is given.
    if let Some((ps, pt)) = pair {
        for c in &mut cols {
            if let Col::Lang(l) = c
                && !l.contains('-')
            {
                if super::lang_matches(ps, l) {
                    *l = ps.clone();
                } else if super::lang_matches(pt, l) {
                    *l = pt.clone();
                }
            }
        }
    }
    let lang_cols: Vec<usize> = (0..cols.len())
        .filter(|&i| matches!(cols[i], Col::Lang(_)))
        .collect();
    let need_pair = lang_cols.is_empty() && !cols.contains(&Col::SourceLang);
    if need_pair && pair.is_none() {
        return Err("the file names no languages: give the pair (--pair SRC:TGT)".into());
    }
    if lang_cols.is_empty() && !cols.contains(&Col::Source) {
        return Err(
            "no source-term column: name it `Source Term` (or give a column per language)".into(),
        );
    }
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    // Rows left out for want of a language: when it is every row, the
    // file names no languages after all, which is an error.
    let mut without_langs = 0usize;
    // Rows that name a language of their own.
    let mut naming_langs = 0usize;
    for (r, &line) in body.iter().zip(body_lines) {
        let get = |want: &Col| -> Option<String> {
            cols.iter()
                .position(|c| c == want)
                .and_then(|i| r.get(i))
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
        };
        let mut clients: Vec<String> = get(&Col::Client)
            .map(|c| {
                c.split(';')
                    .map(|s| s.trim().to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        crate::shared_sort::sort_by_key(&mut clients, |c| c.to_lowercase());
        clients.dedup();
        let base = TermRecord {
            path: String::new(),
            source: String::new(),
            target: String::new(),
            source_lang: String::new(),
            target_lang: String::new(),
            status: Status::Proposed,
            clients,
            domain: get(&Col::Domain),
            last_updated: get(&Col::Date).and_then(|d| parse_date(&d)),
            note: get(&Col::Note),
        };
        if lang_cols.is_empty() {
            if get(&Col::SourceLang).is_some() || get(&Col::TargetLang).is_some() {
                naming_langs += 1;
            }
            let (source, target) = match (get(&Col::Source), get(&Col::Target)) {
                (Some(s), Some(t)) => (s, t),
                (s, _) => {
                    let empty = if s.is_none() { "source" } else { "target" };
                    left_out.push(format!("line {line}: it has no {empty} term"));
                    continue;
                }
            };
            // A language cell left empty is `--pair`'s.
            let (sl, tl) = match (
                get(&Col::SourceLang).or_else(|| pair.map(|p| p.0.clone())),
                get(&Col::TargetLang).or_else(|| pair.map(|p| p.1.clone())),
            ) {
                (Some(s), Some(t)) => (s, t),
                (s, _) => {
                    let which = if s.is_none() { "source" } else { "target" };
                    left_out.push(format!(
                        "line {line}: “{source}” → “{target}” names no {which} \
                         language (give the pair with --pair SRC:TGT)"
                    ));
                    without_langs += 1;
                    continue;
                }
            };
            // A row that says nothing of its status is proposed, as the
            // import promises.
            let status = row_status(&get, line)?.unwrap_or(Status::Proposed);
            out.push(TermRecord {
                source,
                target,
                source_lang: sl,
                target_lang: tl,
                status,
                ..base
            });
            continue;
        }
        // memoQ's layout: terms by language, each followed by its fields.
        // A row's `Status` (or `Forbidden`, `Priority`) column is its
        // target terms' status where no `Term_Info` gives one: a plain
        // glossary with a column per language has no `Term_Info`, and read
        // as proposed its rejected terms would become allowed synonyms.
        let row_status = row_status(&get, line)?;
        let has_term_notes = cols.contains(&Col::TermNote);
        let mut by_lang: Vec<(String, Vec<LangTerm>)> = Vec::new();
        // The language of a term marked as the row's source, if any.
        let mut marked_source: Option<String> = None;
        for &i in &lang_cols {
            let Col::Lang(l) = &cols[i] else { continue };
            let Some(term) = r.get(i).map(|s| s.trim()).filter(|s| !s.is_empty()) else {
                continue;
            };
            let mut status = row_status.unwrap_or(Status::Proposed);
            let mut note = None;
            for (k, c) in cols.iter().enumerate().skip(i + 1) {
                match c {
                    Col::TermNote => {
                        note = r
                            .get(k)
                            .map(|s| s.trim().to_owned())
                            .filter(|s| !s.is_empty());
                    }
                    Col::TermInfo => {
                        let info = r.get(k).map(|s| s.trim()).unwrap_or("");
                        if info.eq_ignore_ascii_case(SOURCE_INFO) && marked_source.is_none() {
                            marked_source = Some(l.clone());
                        }
                        if !info.is_empty() && !info.eq_ignore_ascii_case(SOURCE_INFO) {
                            status = status_word(info, line)?;
                        }
                    }
                    Col::TermExample => {}
                    _ => break,
                }
            }
            // A file with per-term notes says which terms have none; in
            // one without, the entry's note is every term's.
            let note = if has_term_notes {
                note
            } else {
                base.note.clone()
            };
            let entry = (term.to_owned(), status, note);
            match by_lang.iter_mut().find(|(x, _)| x.eq_ignore_ascii_case(l)) {
                Some((_, terms)) => terms.push(entry),
                None => by_lang.push((l.clone(), vec![entry])),
            }
        }
        let at = |tag: &str| {
            by_lang
                .iter()
                .position(|(l, _)| super::lang_matches(tag, l))
        };
        let src_at = marked_source
            .as_deref()
            .and_then(at)
            .or_else(|| pair.and_then(|(s, _)| at(s)))
            .unwrap_or(0);
        let shown = || {
            by_lang
                .iter()
                .flat_map(|(_, terms)| terms.iter().map(|(t, _, _)| format!("“{t}”")))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if by_lang.is_empty() {
            left_out.push(format!("line {line}: it has no term"));
            continue;
        }
        if by_lang.len() < 2 {
            left_out.push(format!(
                "line {line}: it has terms in one language only ({})",
                shown()
            ));
            continue;
        }
        let (sl, source_terms) = by_lang[src_at].clone();
        // Each source synonym is a term of its own, with every target.
        for (source, _, _) in &source_terms {
            for (i, (tl, terms)) in by_lang.iter().enumerate() {
                if i == src_at {
                    continue;
                }
                for (term, status, note) in terms {
                    out.push(TermRecord {
                        source: source.clone(),
                        target: term.clone(),
                        source_lang: sl.clone(),
                        target_lang: tl.clone(),
                        status: *status,
                        note: note.clone(),
                        ..base.clone()
                    });
                }
            }
        }
    }
    // The docs' rule: with no pair given, a file none of whose rows names
    // its languages is an error, whatever else its rows lack.
    if pair.is_none() && without_langs > 0 && naming_langs == 0 {
        return Err(
            "no row names its languages (the Source Language and Target Language cells are \
             empty): give the pair (--pair SRC:TGT)"
                .into(),
        );
    }
    Ok(ReadTerms {
        records: out,
        left_out,
    })
}
