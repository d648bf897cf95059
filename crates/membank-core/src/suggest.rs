//! "Did you mean …?": the known values closest to one that matched nothing,
//! so a typo or a shortened name is answered with the spelling the bank uses.

use crate::scoring::{Query, languages_match};
use crate::vocabulary::Vocabulary;
use crate::wikilink::{fold, normalize_value};

/// How many suggestions are offered at most.
const MAX_SUGGESTIONS: usize = 3;

/// The known values closest to `wanted`, best first (at most three).
///
/// A value that contains what was typed (or is contained in it) comes first,
/// since a shortened name is the common case ("Brightwell" for "Brightwell
/// Pharma"); then values within a small edit distance, for typos.
pub fn closest<'a>(wanted: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let w = fold(wanted.trim());
    if w.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(u32, &str)> = Vec::new();
    for k in known {
        let f = fold(k);
        if f == w || f.is_empty() {
            continue;
        }
        let score = if f.starts_with(&w) {
            3000
        } else if f.contains(&w) || w.contains(&f) {
            2000
        } else {
            let similarity =
                strsim::jaro_winkler(&w, &f).max(strsim::normalized_levenshtein(&w, &f));
            if similarity < 0.75 {
                continue;
            }
            (similarity * 1000.0) as u32
        };
        scored.push((score, k));
    }
    // Best first; among equals the shorter (closer to what was typed), then
    // the caller's order.
    crate::shared_sort::sort_by(&mut scored, |a, b| {
        b.0.cmp(&a.0).then(a.1.len().cmp(&b.1.len()))
    });
    let mut out: Vec<&str> = Vec::new();
    for (_, k) in scored {
        if !out.iter().any(|o| fold(o) == fold(k)) {
            out.push(k);
        }
        if out.len() == MAX_SUGGESTIONS {
            break;
        }
    }
    out
}

/// "; did you mean 'A' or 'B'?" or "" when there is nothing close.
pub fn did_you_mean(suggestions: &[&str]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!("; did you mean '{one}'?"),
        [first @ .., last] => {
            let quoted: Vec<String> = first.iter().map(|s| format!("'{s}'")).collect();
            format!("; did you mean {} or '{last}'?", quoted.join(", "))
        }
    }
}

/// A query value no article carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownValue {
    /// `client`, `domain`, `source language` or `target language`.
    pub field: &'static str,
    pub value: String,
    pub suggestions: Vec<String>,
}

impl std::fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let refs: Vec<&str> = self.suggestions.iter().map(String::as_str).collect();
        write!(f, "no {} '{}' in this bank", self.field, self.value)?;
        if refs.is_empty() {
            write!(f, "; it scores nothing")
        } else {
            write!(f, "{}", did_you_mean(&refs))
        }
    }
}

/// The values of `query` that no content article carries, each with the
/// closest values the bank does use. Clients and domains compare as the
/// scoring does (exactly, ignoring case); a language code matches any tag it
/// is a prefix of, as in §7.
pub fn unknown_values(vocabulary: &Vocabulary, query: &Query) -> Vec<UnknownValue> {
    let mut out = Vec::new();
    let named = [
        ("client", &query.client, &vocabulary.clients),
        ("domain", &query.domain, &vocabulary.domains),
    ];
    for (field, wanted, values) in named {
        let Some(raw) = wanted.as_deref() else {
            continue;
        };
        let wanted = normalize_value(raw);
        if wanted.is_empty() {
            continue;
        }
        let folded = fold(wanted);
        if values.iter().any(|v| fold(&v.value) == folded) {
            continue;
        }
        out.push(UnknownValue {
            field,
            value: wanted.to_owned(),
            suggestions: closest(wanted, values.iter().map(|v| v.value.as_str()))
                .into_iter()
                .map(str::to_owned)
                .collect(),
        });
    }
    let langs = [
        ("source language", &query.source_lang),
        ("target language", &query.target_lang),
    ];
    for (field, wanted) in langs {
        let Some(code) = wanted.as_deref().map(str::trim).filter(|c| !c.is_empty()) else {
            continue;
        };
        if vocabulary
            .languages
            .iter()
            .any(|v| languages_match(code, &v.value))
        {
            continue;
        }
        // Only codes are offered: text such as "en-GB, nl-BE" matches
        // nothing (see `languages_match`), so typing it would not help.
        let codes = vocabulary
            .languages
            .iter()
            .map(|v| v.value.as_str())
            .filter(|v| crate::health::is_plausible_language_tag(v));
        out.push(UnknownValue {
            field,
            value: code.to_owned(),
            suggestions: closest(code, codes)
                .into_iter()
                .map(str::to_owned)
                .collect(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::Value;

    fn values(names: &[&str]) -> Vec<Value> {
        names
            .iter()
            .map(|n| Value {
                value: (*n).to_owned(),
                articles: 1,
            })
            .collect()
    }

    #[test]
    fn a_shortened_name_suggests_the_full_one() {
        let known = ["Copperleaf Software", "Brightwell Pharma", "Harbour Lines"];
        assert_eq!(closest("Brightwell", known), vec!["Brightwell Pharma"]);
        assert_eq!(closest("harbour", known), vec!["Harbour Lines"]);
    }

    #[test]
    fn a_typo_suggests_the_nearest_spelling_and_nonsense_suggests_nothing() {
        let known = ["Pharmaceuticals", "Medical Devices", "Travel and Tourism"];
        assert_eq!(closest("Pharmaceutcals", known), vec!["Pharmaceuticals"]);
        assert!(closest("zzzz", known).is_empty());
        assert!(closest("  ", known).is_empty());
    }

    #[test]
    fn unknown_query_values_are_named_with_suggestions() {
        let vocabulary = Vocabulary {
            clients: values(&["Brightwell Pharma", "Harbour Lines"]),
            domains: values(&["Pharmaceuticals"]),
            languages: values(&["en-US", "nl-BE", "fr-FR"]),
        };
        let query = Query {
            client: Some("Brightwell".into()),
            domain: Some("[[pharmaceuticals]]".into()),
            source_lang: Some("en".into()),
            target_lang: Some("nl-NL".into()),
        };
        let unknown = unknown_values(&vocabulary, &query);
        let shown: Vec<String> = unknown.iter().map(ToString::to_string).collect();
        assert_eq!(
            shown,
            vec![
                "no client 'Brightwell' in this bank; did you mean 'Brightwell Pharma'?",
                "no target language 'nl-NL' in this bank; did you mean 'nl-BE'?",
            ]
        );
        // Text that is no language code matches nothing and is never
        // offered, even when it starts with the code asked for.
        let vocabulary = Vocabulary {
            clients: Vec::new(),
            domains: Vec::new(),
            languages: values(&["en-GB, nl-BE", "en-", "en-GB to nl-BE", "en-US"]),
        };
        let query = Query {
            source_lang: Some("en-GB".into()),
            target_lang: Some("en".into()),
            ..Query::default()
        };
        let shown: Vec<String> = unknown_values(&vocabulary, &query)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            shown,
            vec!["no source language 'en-GB' in this bank; did you mean 'en-US'?"]
        );
        assert_eq!(
            did_you_mean(&["a", "b", "c"]),
            "; did you mean 'a', 'b' or 'c'?"
        );
    }
}
