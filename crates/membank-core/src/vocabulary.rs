//! The clients, domains and language codes a bank actually uses, for
//! completion in the inspector and `membank values`.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::article::KeyedValue;
use crate::bank::Bank;
use crate::wikilink::normalize_value;

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Value {
    /// The normalised spelling most articles use (ties: first in bank order).
    pub value: String,
    /// How many content articles carry it.
    pub articles: usize,
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Vocabulary {
    pub clients: Vec<Value>,
    pub domains: Vec<Value>,
    pub languages: Vec<Value>,
}

#[derive(Default)]
struct Tally {
    /// Folded value → (spelling → count), articles counted once per value.
    seen: BTreeMap<String, (usize, BTreeMap<String, usize>, usize)>,
}

impl Tally {
    fn add(&mut self, folded: String, spelling: &str, order: &mut usize) {
        let entry = self.seen.entry(folded).or_insert_with(|| {
            *order += 1;
            (0, BTreeMap::new(), *order)
        });
        entry.0 += 1;
        *entry.1.entry(spelling.to_owned()).or_default() += 1;
    }

    fn finish(self) -> Vec<Value> {
        let mut v: Vec<Value> = self
            .seen
            .into_values()
            .map(|(articles, spellings, _)| {
                let best = spellings
                    .into_iter()
                    .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
                    .map(|(s, _)| s)
                    .unwrap_or_default();
                Value {
                    value: best,
                    articles,
                }
            })
            .collect();
        crate::shared_sort::sort_by(&mut v, |a, b| {
            b.articles
                .cmp(&a.articles)
                .then_with(|| a.value.to_lowercase().cmp(&b.value.to_lowercase()))
        });
        v
    }
}

fn tally_values(values: &[KeyedValue], tally: &mut Tally, order: &mut usize) {
    let mut done: Vec<&str> = Vec::new();
    for v in values {
        if v.folded.is_empty() || done.contains(&&*v.folded) {
            continue;
        }
        done.push(&v.folded);
        tally.add(v.folded.to_string(), normalize_value(&v.raw), order);
    }
}

/// Collect every value used by the content articles.
pub fn collect(bank: &Bank) -> Vocabulary {
    let (mut clients, mut domains, mut languages) =
        (Tally::default(), Tally::default(), Tally::default());
    let mut order = 0;
    for id in bank.content_ids() {
        let meta = &bank.article(id).meta;
        tally_values(&meta.clients, &mut clients, &mut order);
        tally_values(&meta.domains, &mut domains, &mut order);
        let mut done: Vec<String> = Vec::new();
        for lv in meta.languages.iter() {
            for tag in &lv.tags {
                let folded = tag.to_ascii_lowercase();
                if !done.contains(&folded) {
                    languages.add(folded.clone(), tag, &mut order);
                    done.push(folded);
                }
            }
        }
    }
    Vocabulary {
        clients: clients.finish(),
        domains: domains.finish(),
        languages: languages.finish(),
    }
}

impl Vocabulary {
    /// Values starting with `prefix` (case-insensitive), best first, then
    /// values containing it.
    pub fn complete<'a>(values: &'a [Value], prefix: &str) -> Vec<&'a str> {
        let p = prefix.to_lowercase();
        let mut starts: Vec<&str> = Vec::new();
        let mut contains: Vec<&str> = Vec::new();
        for v in values {
            let l = v.value.to_lowercase();
            if l.starts_with(&p) {
                starts.push(&v.value);
            } else if l.contains(&p) {
                contains.push(&v.value);
            }
        }
        starts.extend(contains);
        starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn values_are_counted_once_per_article_with_the_common_spelling() {
        let d = tempfile::tempdir().unwrap();
        for (rel, s) in [
            (
                "01_CLIENTS/Acme.md",
                "---\nclient: Acme\nclients: [\"[[Acme]]\"]\nlanguages: [\"en-US → nl-BE\"]\n---\n",
            ),
            (
                "02_TERMINOLOGY/a.md",
                "---\nclients: [\"[[acme|A]]\"]\ndomain: \"[[Legal]]\"\nsource_lang: en-US\n---\n",
            ),
            (
                "02_TERMINOLOGY/b.md",
                "---\nclients: [\"[[Acme]]\", Beta]\ndomain: Legal\n---\n",
            ),
            ("00_INBOX/n.md", "---\nclient: Inbox Only\n---\n"),
        ] {
            let p = d.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, s).unwrap();
        }
        let v = collect(&Bank::load(d.path()).unwrap());
        assert_eq!(
            v.clients,
            vec![
                Value {
                    value: "Acme".into(),
                    articles: 3
                },
                Value {
                    value: "Beta".into(),
                    articles: 1
                }
            ]
        );
        assert_eq!(
            v.domains,
            vec![Value {
                value: "Legal".into(),
                articles: 2
            }]
        );
        assert_eq!(
            v.languages[0],
            Value {
                value: "en-US".into(),
                articles: 2
            }
        );
        assert_eq!(Vocabulary::complete(&v.clients, "b"), vec!["Beta"]);
        assert_eq!(Vocabulary::complete(&v.clients, "cm"), vec!["Acme"]);
    }
}
