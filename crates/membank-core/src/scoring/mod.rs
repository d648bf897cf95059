//! Relevance scoring and ranking (spec §7), exactly and reproducibly.

use std::borrow::Cow;
use std::cmp::Ordering;

use jiff::civil::Date;
use rayon::prelude::*;
use serde::Serialize;

use crate::article::{Article, KeyedValue};
use crate::bank::{ArticleId, Bank};
use crate::layout::Folder;
use crate::wikilink::{fold, normalize_value};
use index::{PackedQuery, ScoringIndex};

pub(crate) mod index;

pub const CLIENT_POINTS: u32 = 3;
pub const DOMAIN_POINTS: u32 = 2;
pub const LANGUAGE_POINTS: u32 = 1;

/// What the translator is working on.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Query {
    pub client: Option<String>,
    pub domain: Option<String>,
    pub source_lang: Option<String>,
    pub target_lang: Option<String>,
}

#[cfg(test)]
impl Query {
    /// A query of four values, an empty one not asked for.
    pub(crate) fn of(client: &str, domain: &str, src: &str, tgt: &str) -> Query {
        let asked = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        Query {
            client: asked(client),
            domain: asked(domain),
            source_lang: asked(src),
            target_lang: asked(tgt),
        }
    }
}

impl Query {
    pub fn is_empty(&self) -> bool {
        self.prepare().is_empty()
    }

    pub(crate) fn prepare(&self) -> Prepared {
        let norm = |v: &Option<String>| {
            v.as_deref()
                .map(normalize_value)
                .filter(|s| !s.is_empty())
                .map(fold)
        };
        let langs = [&self.source_lang, &self.target_lang]
            .into_iter()
            .enumerate()
            .filter_map(|(side, v)| {
                let code = v.as_deref()?.trim();
                (!code.is_empty()).then(|| (side as u8, code.to_owned()))
            })
            .collect();
        Prepared {
            client: norm(&self.client),
            domain: norm(&self.domain),
            langs,
        }
    }

    /// The active code on one side: 0 source, 1 target.
    pub(crate) fn lang(&self, side: u8) -> Option<&str> {
        let v = if side == 0 {
            &self.source_lang
        } else {
            &self.target_lang
        };
        v.as_deref().map(str::trim)
    }
}

pub(crate) struct Prepared {
    client: Option<String>,
    domain: Option<String>,
    /// (side, code): side 0 is the source language, 1 the target.
    langs: Vec<(u8, String)>,
}

impl Prepared {
    pub(crate) fn is_empty(&self) -> bool {
        self.client.is_none() && self.domain.is_none() && self.langs.is_empty()
    }
}

/// Which frontmatter value earned a signal's points.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignalMatch {
    pub key: &'static str,
    /// The value as written, e.g. `[[Acme Corporation]]` or `en-US → nl-BE`.
    pub value: String,
    /// For languages: the code inside the value that matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
    /// For languages: the active code it matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

impl std::fmt::Display for SignalMatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.key, self.value)?;
        if let (Some(tag), Some(q)) = (&self.tag, &self.query) {
            write!(f, " ({tag} ~ {q})")?;
        }
        Ok(())
    }
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Signals {
    pub client: u32,
    pub domain: u32,
    pub language: u32,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Matched {
    pub client: Option<SignalMatch>,
    pub domain: Option<SignalMatch>,
    pub language: Option<SignalMatch>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Score {
    pub signals: Signals,
    pub matched: Matched,
}

impl Score {
    pub fn total(&self) -> u32 {
        self.signals.client + self.signals.domain + self.signals.language
    }
}

/// Two language codes match when equal (ignoring case), or when one is a
/// bare primary subtag equal to the other's primary subtag.
///
/// Text that is no language code matches nothing, by the same test the
/// health check uses to report it: `"en-GB, nl-BE"` or `"en-"` would
/// otherwise pass for `en` through its first letters, while the check tells
/// the author that language matching fails for the article.
pub fn languages_match(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() || b.is_empty() {
        return false;
    }
    fn primary(s: &str) -> &str {
        s.split('-').next().unwrap_or(s)
    }
    let similar = a.eq_ignore_ascii_case(b)
        || (!a.contains('-') && a.eq_ignore_ascii_case(primary(b)))
        || (!b.contains('-') && b.eq_ignore_ascii_case(primary(a)));
    // Validity last: it is asked only of the few pairs that look alike, so
    // scoring a large bank pays for it almost never.
    similar
        && crate::health::is_plausible_language_tag(a)
        && crate::health::is_plausible_language_tag(b)
}

/// Where each signal's points came from, as positions in the article's
/// metadata: scoring a large bank allocates nothing, and the words are
/// looked up only for the rows someone reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hits {
    /// Index into `meta.clients`.
    pub client: Option<u16>,
    /// Index into `meta.domains`.
    pub domain: Option<u16>,
    /// Index into `meta.languages`, index of the tag, and the side of the
    /// query it matched (0 source, 1 target).
    pub language: Option<(u16, u16, u8)>,
}

impl Hits {
    pub fn signals(&self) -> Signals {
        Signals {
            client: if self.client.is_some() {
                CLIENT_POINTS
            } else {
                0
            },
            domain: if self.domain.is_some() {
                DOMAIN_POINTS
            } else {
                0
            },
            language: if self.language.is_some() {
                LANGUAGE_POINTS
            } else {
                0
            },
        }
    }

    pub fn total(&self) -> u32 {
        let s = self.signals();
        s.client + s.domain + s.language
    }

    /// The values behind the points, in words.
    pub fn explain(&self, a: &Article, query: &Query) -> Matched {
        let keyed = |values: &[KeyedValue], i: Option<u16>| {
            let v = values.get(usize::from(i?))?;
            Some(SignalMatch {
                key: v.key,
                value: v.raw.to_string(),
                tag: None,
                query: None,
            })
        };
        let language = self.language.and_then(|(vi, ti, side)| {
            let lv = a.meta.languages.get(usize::from(vi))?;
            Some(SignalMatch {
                key: lv.key,
                value: lv.raw.to_string(),
                tag: lv.tags.get(usize::from(ti)).map(|t| t.to_string()),
                query: query.lang(side).map(str::to_owned),
            })
        });
        Matched {
            client: keyed(&a.meta.clients, self.client),
            domain: keyed(&a.meta.domains, self.domain),
            language,
        }
    }
}

fn position(values: &[KeyedValue], wanted: &Option<String>) -> Option<u16> {
    let wanted = wanted.as_deref()?;
    values
        .iter()
        .position(|v| *v.folded == *wanted)
        .and_then(|i| u16::try_from(i).ok())
}

/// A value behind a signal's points, as written: its key, its text, and
/// for a language the code in it that matched.
pub(crate) type Earned<'a> = (&'static str, Cow<'a, str>);

/// [`hits_prepared`] over the values of a frontmatter block read where
/// they are written (see `article::ranked`), with the values that earned
/// the points: the same hits, with no article built. `folding` is room for
/// a value's folded form, reused from value to value.
pub(crate) fn hits_ranked<'a>(
    v: &crate::article::ranked::RankedValues<'_, 'a>,
    q: &Prepared,
    folding: &mut String,
) -> (Hits, [Option<Earned<'a>>; 2], Option<(Earned<'a>, String)>) {
    let mut hits = Hits::default();
    let mut earned: [Option<Earned<'a>>; 2] = [None, None];
    for (slot, (keys, wanted)) in [
        (&crate::article::CLIENT_KEYS, &q.client),
        (&crate::article::DOMAIN_KEYS, &q.domain),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(wanted) = wanted.as_deref() else {
            continue;
        };
        // The value's place among the signal's values, over its keys.
        let mut at = 0usize;
        for &key in keys {
            let more = v.each(key, &mut |raw| {
                folding.clear();
                crate::wikilink::fold_into(crate::wikilink::normalize_value(&raw), folding);
                if folding.as_str() == wanted {
                    earned[slot] = Some((key, raw));
                    return false;
                }
                at += 1;
                true
            });
            if !more {
                break;
            }
        }
        if earned[slot].is_some() {
            let at = u16::try_from(at).ok();
            match slot {
                0 => hits.client = at,
                _ => hits.domain = at,
            }
            // As `position`: a place past `u16` earns nothing.
            if at.is_none() {
                earned[slot] = None;
            }
        }
    }
    let mut language = None;
    if !q.langs.is_empty() {
        let mut vi = 0usize;
        for key in crate::article::LANGUAGE_KEYS {
            let more = v.each(key, &mut |raw| {
                let found = crate::article::ranked::language_codes(&raw)
                    .enumerate()
                    .find_map(|(ti, tag)| {
                        let (side, _) = q.langs.iter().find(|(_, ql)| languages_match(tag, ql))?;
                        Some((ti, *side, tag.to_owned()))
                    });
                let Some((ti, side, tag)) = found else {
                    vi += 1;
                    return true;
                };
                if let (Ok(vi), Ok(ti)) = (u16::try_from(vi), u16::try_from(ti)) {
                    hits.language = Some((vi, ti, side));
                    language = Some(((key, raw), tag));
                }
                false
            });
            if !more {
                break;
            }
        }
    }
    (hits, earned, language)
}

pub(crate) fn hits_prepared(a: &Article, q: &Prepared) -> Hits {
    let mut hits = Hits {
        client: position(&a.meta.clients, &q.client),
        domain: position(&a.meta.domains, &q.domain),
        language: None,
    };
    if q.langs.is_empty() {
        return hits;
    }
    'outer: for (vi, lv) in a.meta.languages.iter().enumerate() {
        for (ti, tag) in lv.tags.iter().enumerate() {
            for (side, ql) in &q.langs {
                if languages_match(tag, ql) {
                    if let (Ok(vi), Ok(ti)) = (u16::try_from(vi), u16::try_from(ti)) {
                        hits.language = Some((vi, ti, *side));
                    }
                    break 'outer;
                }
            }
        }
    }
    hits
}

/// Score one article against a query, with the matched values in words.
pub fn score(a: &Article, query: &Query) -> Score {
    let hits = hits_prepared(a, &query.prepare());
    Score {
        signals: hits.signals(),
        matched: hits.explain(a, query),
    }
}

/// Score one article against a query, compactly.
pub fn hits(a: &Article, query: &Query) -> Hits {
    hits_prepared(a, &query.prepare())
}

/// The §7 tie-break between equally scored articles: folder (01 first),
/// `last_updated` newest first (missing or invalid dates last), file name by
/// code point, then relative path.
pub fn tie_break(a: &Article, b: &Article) -> Ordering {
    TieKeys::of(a).cmp(&TieKeys::of(b))
}

/// What the §7 tie-break compares, for a ranking that keeps these rather
/// than whole articles.
#[derive(PartialEq, Eq)]
pub(crate) struct TieKeys<'a> {
    pub folder: Folder,
    pub date: Option<Date>,
    pub file_name: &'a str,
    pub rel_path: &'a str,
}

impl<'a> TieKeys<'a> {
    fn of(a: &'a Article) -> TieKeys<'a> {
        TieKeys {
            folder: a.folder,
            date: a.meta.last_updated_date,
            file_name: a.file_name(),
            rel_path: &a.rel_path,
        }
    }
}

impl Ord for TieKeys<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.folder
            .cmp(&other.folder)
            .then_with(|| match (self.date, other.date) {
                (Some(x), Some(y)) => y.cmp(&x),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            })
            .then_with(|| self.file_name.cmp(other.file_name))
            .then_with(|| self.rel_path.cmp(other.rel_path))
    }
}

impl PartialOrd for TieKeys<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ranked {
    pub id: ArticleId,
    pub score: Hits,
}

/// Every content article, best first.
pub fn rank(bank: &Bank, query: &Query) -> Vec<Ranked> {
    let ix = bank.scoring_index();
    rank_positions(bank, query)
        .into_iter()
        .map(|(pos, score)| Ranked {
            id: ix.ids[pos as usize],
            score,
        })
        .collect()
}

/// The query in the packed index's ids; `None` when it asks for nothing.
pub(crate) fn packed_query(ix: &ScoringIndex, query: &Query) -> Option<PackedQuery> {
    let q = query.prepare();
    (!q.is_empty()).then(|| ix.prepare(q.client.as_deref(), q.domain.as_deref(), &q.langs))
}

/// Ranking as positions in the tie-break order, for callers that read the
/// packed per-article arrays.
pub(crate) fn rank_positions(bank: &Bank, query: &Query) -> Vec<(u32, Hits)> {
    const MOST: usize = (CLIENT_POINTS + DOMAIN_POINTS + LANGUAGE_POINTS) as usize;
    let q = query.prepare();
    let ix = bank.scoring_index();
    let n = ix.ids.len();
    let scored: Vec<Hits> = if q.is_empty() {
        vec![Hits::default(); n]
    } else {
        let packed = ix.prepare(q.client.as_deref(), q.domain.as_deref(), &q.langs);
        let hits = |pos| ix.hits(pos, &packed);
        if crate::parallel::pays(n) {
            (0..n)
                .into_par_iter()
                .with_min_len(4096)
                .map(hits)
                .collect()
        } else {
            (0..n).map(hits).collect()
        }
    };
    // Scores are 0–6: counting sort, stable, so equal scores keep the
    // precomputed tie-break order.
    let mut starts = [0usize; MOST + 2];
    for h in &scored {
        starts[MOST - h.total() as usize + 1] += 1;
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut out = vec![(0u32, Hits::default()); n];
    for (pos, h) in scored.into_iter().enumerate() {
        let slot = &mut starts[MOST - h.total() as usize];
        out[*slot] = (pos as u32, h);
        *slot += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::Folder;
    use crate::text::decode;

    fn art(rel: &str, folder: Folder, fm: &str) -> Article {
        Article::parse(
            rel.into(),
            folder,
            decode(format!("---\n{fm}\n---\nbody\n").as_bytes()).unwrap(),
        )
    }

    #[test]
    fn language_code_rule() {
        assert!(languages_match("en", "en-US"));
        assert!(languages_match("EN", "en-GB"));
        assert!(languages_match("en-us", "EN-US"));
        assert!(!languages_match("en-GB", "en-US"));
        assert!(!languages_match("en", "eng"));
        assert!(!languages_match("", "en"));
        assert!(languages_match("nl-BE", "nl"));
    }

    /// Client and domain names match ignoring case as full case folding
    /// does: the final sigma `ς` is a `σ`, so all three spellings agree.
    #[test]
    fn a_final_sigma_matches_the_sigma() {
        let spellings = ["ΟΔΟΣ", "οδοσ", "οδος"];
        for written in spellings {
            let a = art(
                "01_CLIENTS/c.md",
                Folder::Clients,
                &format!("client: {written}\ndomains: [\"[[{written}]]\"]"),
            );
            for asked in spellings {
                let q = Query::of(asked, asked, "", "");
                assert_eq!(hits(&a, &q).total(), 5, "{written} / {asked}");
            }
        }
    }

    /// A value the health check calls "not a language code" earns no
    /// language point, as the check tells the author, also when it starts
    /// with the code asked for; codes beside it still do.
    #[test]
    fn text_that_is_no_language_code_matches_nothing() {
        for bad in [
            "en-GB, nl-BE",
            "en-GB>nl-BE",
            "en-GB to nl-BE",
            "en-",
            "en_GB",
        ] {
            assert!(!crate::health::is_plausible_language_tag(bad), "{bad}");
            for code in ["en", "en-GB", bad] {
                assert!(!languages_match(bad, code), "{bad} ~ {code}");
                assert!(!languages_match(code, bad), "{code} ~ {bad}");
            }
            let a = art(
                "04_STYLE/s.md",
                Folder::Style,
                &format!("scope: general\nlanguages: [\"{bad}\"]"),
            );
            assert_eq!(hits(&a, &Query::of("", "", "en", "")).total(), 0, "{bad}");
        }
        let a = art(
            "04_STYLE/s.md",
            Folder::Style,
            "scope: general\nlanguages: [\"en-, x\", \"en-US -> nl-BE\"]",
        );
        assert_eq!(hits(&a, &Query::of("", "", "en", "")).total(), 1);
        assert_eq!(hits(&a, &Query::of("", "", "", "nl")).total(), 1);
    }

    #[test]
    fn exact_never_substring() {
        let a = art(
            "01_CLIENTS/N.md",
            Folder::Clients,
            "client: NotAcme Ltd\ndomain: Paralegal",
        );
        let s = score(&a, &Query::of("Acme", "Legal", "", ""));
        assert_eq!(hits(&a, &Query::of("Acme", "Legal", "", "")).total(), 0);
        assert_eq!(s.total(), 0);
    }

    #[test]
    fn all_signals_with_what_matched() {
        let a = art(
            "02_TERMINOLOGY/t.md",
            Folder::Terminology,
            "clients: [\"[[Acme Corporation|ACME]]\"]\ndomains: [\"[[Legal#Contracts]]\"]\nsource_lang: en-US\ntarget_lang: nl-BE",
        );
        let s = score(&a, &Query::of("acme corporation", "[[legal]]", "en", "fr"));
        assert_eq!(
            s.signals,
            Signals {
                client: 3,
                domain: 2,
                language: 1
            }
        );
        assert_eq!(s.matched.client.as_ref().unwrap().key, "clients");
        assert_eq!(
            s.matched.client.as_ref().unwrap().value,
            "[[Acme Corporation|ACME]]"
        );
        let l = s.matched.language.unwrap();
        assert_eq!(
            (l.key, l.tag.as_deref(), l.query.as_deref()),
            ("source_lang", Some("en-US"), Some("en"))
        );
    }

    #[test]
    fn language_point_is_given_once() {
        let a = art(
            "04_STYLE/s.md",
            Folder::Style,
            "languages: [\"en-US → nl-BE\", \"en->nl\"]\nlanguage_pair: en-US -> nl-BE",
        );
        assert_eq!(score(&a, &Query::of("", "", "en-US", "nl-BE")).total(), 1);
    }

    #[test]
    fn ranking_equals_scoring_each_article_and_sorting_stably() {
        let d = tempfile::tempdir().unwrap();
        let files = [
            (
                "01_CLIENTS/Ácme.md",
                "client: \"ÁCME\"\nlanguages: [\"EN → nl-be\"]",
            ),
            (
                "02_TERMINOLOGY/a.md",
                "clients: [\"[[Ácme|x]]\"]\nsource_lang: en-US\ntarget_lang: NL",
            ),
            (
                "02_TERMINOLOGY/b.md",
                "client: acme\ndomain: \"[[Legal#Scope]]\"\nlanguages: [\" de-DE -> en \"]",
            ),
            (
                "02_TERMINOLOGY/c.md",
                "domains: [legal, Tax]\nlanguage_pair: fr-BE→nl-NL",
            ),
            (
                "03_DOMAINS/Legal.md",
                "domain: Legal\nlanguages: [en-GB-oxendict → nl]",
            ),
            ("04_STYLE/s.md", "scope: general\nlanguages: [\"\"]"),
        ];
        for (rel, fm) in files {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("---\n{fm}\n---\nbody\n")).unwrap();
        }
        let bank = Bank::load(d.path()).unwrap();
        for client in ["", "ácme", "ACME", "[[acme]]", "nobody"] {
            for domain in ["", "legal", "[[TAX|t]]", "none"] {
                for (src, tgt) in [
                    ("", ""),
                    ("en", "nl"),
                    ("EN-us", "nl-BE"),
                    ("en-gb", "de"),
                    ("fr", "xx-YY"),
                    ("EN-GB-OXENDICT", ""),
                ] {
                    let query = Query::of(client, domain, src, tgt);
                    let mut naive: Vec<Ranked> = bank
                        .content_order()
                        .iter()
                        .map(|&id| Ranked {
                            id,
                            score: hits(bank.article(id), &query),
                        })
                        .collect();
                    naive.sort_by_key(|r| std::cmp::Reverse(r.score.total()));
                    assert_eq!(rank(&bank, &query), naive, "{query:?}");
                }
            }
        }
    }

    #[test]
    fn tie_break_order() {
        let mut v = [
            art("04_STYLE/a.md", Folder::Style, "last_updated: 2026-01-01"),
            art("01_CLIENTS/b.md", Folder::Clients, "last_updated: bad"),
            art(
                "01_CLIENTS/c.md",
                Folder::Clients,
                "last_updated: 2025-01-01",
            ),
            art(
                "01_CLIENTS/d.md",
                Folder::Clients,
                "last_updated: 2026-01-01",
            ),
            art("01_CLIENTS/a.md", Folder::Clients, ""),
        ];
        v.sort_by(tie_break);
        let names: Vec<_> = v.iter().map(|a| a.rel_path.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "01_CLIENTS/d.md",
                "01_CLIENTS/c.md",
                "01_CLIENTS/a.md",
                "01_CLIENTS/b.md",
                "04_STYLE/a.md"
            ]
        );
    }

    #[test]
    fn file_name_order_is_by_code_point_with_extension() {
        let mut v = [
            art("02_TERMINOLOGY/Acme.md", Folder::Terminology, ""),
            art("02_TERMINOLOGY/Acme Corp.md", Folder::Terminology, ""),
            art("02_TERMINOLOGY/acme.md", Folder::Terminology, ""),
        ];
        v.sort_by(tie_break);
        let names: Vec<_> = v.iter().map(|a| a.file_name()).collect();
        assert_eq!(names, vec!["Acme Corp.md", "Acme.md", "acme.md"]);
    }
}
