//! TBX-Basic: written in the TBX 2008 form (`martif`) or the ISO
//! 30042:2019 form (`tbx`); read in both, and in the shape MultiTerm
//! exports (`ntig`/`termGrp`, `descripGrp`).

use std::fmt::Write as _;

use super::xml::{self, Element, escape};
use super::{Concept, ReadTerms, Status, TbxVersion, TermRecord, lang_matches};

/// The language a file declares as its own: the first source language.
fn file_lang(concepts: &[Concept]) -> &str {
    concepts
        .first()
        .map(|c| c.source_lang.as_str())
        .filter(|l| !l.is_empty())
        .unwrap_or("en")
}

/// What an export says of its entries, in its header: each entry's first
/// language is its source, so a bank holding both directions of a pair
/// reads back as it was. (TBX-Basic has no data category for it.)
const SOURCE_FIRST: &str = "In each entry the first language is the source language.";

pub fn write(concepts: &[Concept], version: TbxVersion) -> String {
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let lang = escape(file_lang(concepts));
    let (entry, lang_el, term_el) = match version {
        TbxVersion::V2008 => {
            let _ = write!(
                out,
                "<martif type=\"TBX-Basic\" xml:lang=\"{lang}\">\n<martifHeader>\n<fileDesc>\n\
                 <sourceDesc>\n<p>Term articles of a memory bank, exported by membank</p>\n\
                 <p>{SOURCE_FIRST}</p>\n</sourceDesc>\n</fileDesc>\n<encodingDesc>\n\
                 <p type=\"XCSURI\">TBXBasicXCSV02.xcs</p>\n</encodingDesc>\n</martifHeader>\n"
            );
            ("termEntry", "langSet", "tig")
        }
        TbxVersion::V2019 => {
            let _ = write!(
                out,
                "<tbx type=\"TBX-Basic\" style=\"dca\" xml:lang=\"{lang}\" \
                 xmlns=\"urn:iso:std:iso:30042:ed-2\">\n<tbxHeader>\n<fileDesc>\n\
                 <sourceDesc>\n<p>Term articles of a memory bank, exported by membank</p>\n\
                 <p>{SOURCE_FIRST}</p>\n</sourceDesc>\n</fileDesc>\n</tbxHeader>\n"
            );
            ("conceptEntry", "langSec", "termSec")
        }
    };
    out.push_str("<text>\n<body>\n");
    for (i, c) in concepts.iter().enumerate() {
        let _ = writeln!(out, "<{entry} id=\"c{}\">", i + 1);
        if let Some(d) = &c.domain {
            let _ = writeln!(
                out,
                "<descrip type=\"subjectField\">{}</descrip>",
                escape(d)
            );
        }
        if let Some(date) = c.last_updated() {
            transac(&mut out, &date);
        }
        let _ = writeln!(out, "<{lang_el} xml:lang=\"{}\">", escape(&c.source_lang));
        let _ = writeln!(
            out,
            "<{term_el}>\n<term>{}</term>\n</{term_el}>",
            escape(&c.source)
        );
        let _ = writeln!(out, "</{lang_el}>");
        let _ = writeln!(out, "<{lang_el} xml:lang=\"{}\">", escape(&c.target_lang));
        for t in &c.targets {
            let _ = writeln!(out, "<{term_el}>\n<term>{}</term>", escape(&t.term));
            let _ = writeln!(
                out,
                "<termNote type=\"administrativeStatus\">{}</termNote>",
                t.status.tbx()
            );
            // TBX-Basic allows a customer subset at the term level only.
            for client in &c.clients {
                let _ = writeln!(
                    out,
                    "<admin type=\"customerSubset\">{}</admin>",
                    escape(client)
                );
            }
            if let Some(date) = &t.last_updated {
                transac(&mut out, date);
            }
            if let Some(note) = &t.note {
                let _ = writeln!(out, "<note>{}</note>", escape(note));
            }
            if !t.path.is_empty() {
                let _ = writeln!(out, "<admin type=\"source\">{}</admin>", escape(&t.path));
            }
            let _ = writeln!(out, "</{term_el}>");
        }
        let _ = writeln!(out, "</{lang_el}>\n</{entry}>");
    }
    out.push_str("</body>\n</text>\n");
    out.push_str(match version {
        TbxVersion::V2008 => "</martif>\n",
        TbxVersion::V2019 => "</tbx>\n",
    });
    out
}

/// A modification date, when it is a real one: TBX-Basic's `date` is an
/// `xs:date`, and an invalid one fails the schema.
fn transac(out: &mut String, date: &str) {
    let Some(date) = super::normal_day(date) else {
        return;
    };
    let _ = writeln!(
        out,
        "<transacGrp>\n<transac type=\"transactionType\">modification</transac>\n\
         <date>{}</date>\n</transacGrp>",
        escape(&date)
    );
}

/// Entry-level elements in any of the shapes read.
const ENTRIES: [&str; 3] = ["termEntry", "conceptEntry", "conceptGrp"];
const LANGS: [&str; 3] = ["langSet", "langSec", "languageGrp"];
const TERMS: [&str; 4] = ["tig", "ntig", "termSec", "termGrp"];

/// One language of an entry: its tag and its terms with their details.
struct LangTerms {
    lang: String,
    terms: Vec<Details>,
}

#[derive(Default, Clone)]
struct Details {
    term: String,
    status: Option<Status>,
    /// A status value no mapping knows, kept for the message.
    unknown_status: Option<String>,
    date: Option<String>,
    note: Option<String>,
    domain: Option<String>,
    clients: Vec<String>,
}

/// Terms of a TBX (2008, 2019 or MultiTerm's shape): for each entry, each
/// target-language term paired with each source-language term.
pub fn read(text: &str) -> Result<Vec<TermRecord>, String> {
    read_with(text, None)
}

/// [`read`], with each entry's source language decided by, in turn: the
/// file's statement that entries come source first (a membank export),
/// `pair`'s source language, the language the root element names, and
/// else the entry's first language.
pub fn read_with(text: &str, pair: Option<&(String, String)>) -> Result<Vec<TermRecord>, String> {
    read_noting(text, pair).map(|t| t.records)
}

/// [`read_with`], with each entry (or language set) left out named by
/// its id or number and its terms: one dropped without a word would leave
/// the import looking complete.
pub fn read_noting(text: &str, pair: Option<&(String, String)>) -> Result<ReadTerms, String> {
    let root = xml::parse(text)?;
    if !matches!(root.name.as_str(), "martif" | "tbx" | "mtf") {
        return Err(format!(
            "not a TBX file: its root element is <{}>, not <martif> or <tbx>",
            root.name
        ));
    }
    let header_lang = root.lang().unwrap_or("").to_owned();
    let mut paragraphs = Vec::new();
    for header in ["martifHeader", "tbxHeader"] {
        if let Some(h) = root.child(header) {
            h.descendants("p", &mut paragraphs);
        }
    }
    let source_first = paragraphs.iter().any(|p| p.plain() == SOURCE_FIRST);
    let mut entries = Vec::new();
    for name in ENTRIES {
        root.descendants(name, &mut entries);
    }
    let mut out = Vec::new();
    let mut left_out = Vec::new();
    for (n, entry) in entries.into_iter().enumerate() {
        let mut info = Details::default();
        // The terms of language sets that name no language.
        let mut nameless: Vec<String> = Vec::new();
        details_of(entry, &mut info);
        let mut langs: Vec<LangTerms> = Vec::new();
        for l in entry
            .elements()
            .filter(|e| LANGS.contains(&e.name.as_str()))
        {
            let lang = l
                .lang()
                .or_else(|| l.child("language").and_then(|x| x.lang()))
                .unwrap_or("")
                .trim()
                .to_owned();
            let mut terms = Vec::new();
            for t in l.elements().filter(|e| TERMS.contains(&e.name.as_str())) {
                let mut d = Details::default();
                details_of(t, &mut d);
                let mut found = Vec::new();
                t.descendants("term", &mut found);
                d.term = found.first().map(|e| e.plain()).unwrap_or_default();
                // Read as some default, an unknown status could make a
                // forbidden term one the check demands.
                if d.status.is_none()
                    && let Some(word) = &d.unknown_status
                {
                    return Err(format!(
                        "the term “{}” has the status “{word}”, which membank does not know \
                         (preferredTerm, admittedTerm, deprecatedTerm, supersededTerm, \
                         notRecommendedTerm, obsoleteTerm and their -admn-sts forms, or \
                         approved, proposed, rejected, forbidden)",
                        d.term
                    ));
                }
                if !d.term.is_empty() {
                    terms.push(d);
                }
            }
            if lang.is_empty() {
                nameless.extend(terms.into_iter().map(|t| t.term));
            } else if !terms.is_empty() {
                langs.push(LangTerms { lang, terms });
            }
        }
        let quoted = |terms: &mut dyn Iterator<Item = &String>| {
            terms
                .map(|t| format!("“{t}”"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let name = match entry.attr("id") {
            Some(id) => format!("entry {id}"),
            None => format!("entry {}", n + 1),
        };
        let no_lang = |terms: &[String]| {
            format!(
                "{} in a language set that names no language (xml:lang)",
                quoted(&mut terms.iter())
            )
        };
        if langs.len() < 2 {
            let known = quoted(&mut langs.iter().flat_map(|l| l.terms.iter().map(|t| &t.term)));
            let why = match (nameless.is_empty(), known.is_empty()) {
                (false, _) => no_lang(&nameless),
                (true, true) => "it has no term".to_owned(),
                (true, false) => format!("it has terms in one language only ({known})"),
            };
            left_out.push(format!("{name}: {why}"));
            continue;
        }
        if !nameless.is_empty() {
            left_out.push(format!("{name}: {}", no_lang(&nameless)));
        }
        let by_tag = |tag: &str| {
            langs
                .iter()
                .position(|l| !tag.is_empty() && lang_matches(tag, &l.lang))
        };
        let src_at = if source_first {
            0
        } else {
            pair.and_then(|(s, _)| by_tag(s))
                .or_else(|| by_tag(&header_lang))
                .unwrap_or(0)
        };
        let source_lang = langs[src_at].lang.clone();
        // Each source synonym is a term of its own, with every target.
        for source in langs[src_at].terms.iter().map(|t| &t.term) {
            for (i, l) in langs.iter().enumerate() {
                if i == src_at {
                    continue;
                }
                for t in &l.terms {
                    let mut clients = info.clients.clone();
                    for c in &t.clients {
                        if !clients.iter().any(|x| super::same_name(x, c)) {
                            clients.push(c.clone());
                        }
                    }
                    out.push(TermRecord {
                        path: String::new(),
                        source: source.clone(),
                        target: t.term.clone(),
                        source_lang: source_lang.clone(),
                        target_lang: l.lang.clone(),
                        // A term the file gives no status is proposed, as
                        // the import promises.
                        status: t.status.unwrap_or(Status::Proposed),
                        clients,
                        domain: t.domain.clone().or_else(|| info.domain.clone()),
                        last_updated: t.date.clone().or_else(|| info.date.clone()),
                        note: t.note.clone().or_else(|| info.note.clone()),
                    });
                }
            }
        }
    }
    Ok(ReadTerms {
        records: out,
        left_out,
    })
}

/// The data categories of an entry or a term this module maps, from the
/// element's own children (and those of its `descripGrp`s, `termGrp`).
fn details_of(e: &Element, d: &mut Details) {
    for c in e.elements() {
        let category = match c.name.as_str() {
            "descrip" | "termNote" | "admin" => {
                Some(c.attr("type").unwrap_or("").to_ascii_lowercase())
            }
            // TBX 2019's DCT style names the data category by the element
            // itself (`<basic:administrativeStatus>`, `<min:subjectField>`).
            "subjectField"
            | "customerSubset"
            | "administrativeStatus"
            | "normativeAuthorization"
            | "usage"
            | "definition"
            | "context" => Some(c.name.to_ascii_lowercase()),
            _ => None,
        };
        match (c.name.as_str(), category) {
            (_, Some(kind)) => match kind.as_str() {
                "subjectfield" | "subject" | "domain" => {
                    d.domain.get_or_insert_with(|| c.plain());
                }
                "customersubset" | "client" => {
                    let v = c.plain();
                    if !v.is_empty() {
                        d.clients.push(v);
                    }
                }
                "administrativestatus"
                | "status"
                | "normativeauthorization"
                | "usage"
                | "usagestatus"
                    if d.status.is_none() =>
                {
                    let value = c.plain();
                    d.status = Status::from_tbx(&value);
                    if d.status.is_none() && !value.is_empty() {
                        d.unknown_status.get_or_insert(value);
                    }
                }
                "definition" | "context" => {
                    d.note.get_or_insert_with(|| c.plain());
                }
                _ => {}
            },
            ("note", _) => {
                d.note.get_or_insert_with(|| c.plain());
            }
            ("transacGrp", _) => {
                if let Some(date) = c.child("date").map(|x| x.plain())
                    && let Some(day) = day_of(&date)
                {
                    // The latest change is the one `last_updated` keeps.
                    if d.date.as_deref().is_none_or(|old| old < day.as_str()) {
                        d.date = Some(day);
                    }
                }
            }
            ("descripGrp" | "termGrp" | "adminGrp" | "termNoteGrp", _) => details_of(c, d),
            _ => {}
        }
    }
}

/// `YYYY-MM-DD` from an ISO date or date-time that is a real date.
pub(super) fn day_of(s: &str) -> Option<String> {
    super::normal_day(s)
}
