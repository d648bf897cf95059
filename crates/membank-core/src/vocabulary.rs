//! The clients, domains and language codes a bank actually uses, for
//! completion in the inspector and `membank values`, and for the "did you
//! mean" of a query value no article carries.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde::Serialize;

use crate::article::{KeyedValue, LanguageValue, Meta};
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
    /// Count `articles` articles that carry `spelling`, folded `folded`.
    fn add(&mut self, folded: String, spelling: &str, articles: usize, order: &mut usize) {
        let entry = self.seen.entry(folded).or_insert_with(|| {
            *order += 1;
            (0, BTreeMap::new(), *order)
        });
        entry.0 += articles;
        *entry.1.entry(spelling.to_owned()).or_default() += articles;
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

/// Count the values of one list, carried by `articles` articles.
fn tally_values(values: &[KeyedValue], articles: usize, tally: &mut Tally, order: &mut usize) {
    let mut done: Vec<&str> = Vec::new();
    for v in values {
        if v.folded.is_empty() || done.contains(&&*v.folded) {
            continue;
        }
        done.push(&v.folded);
        tally.add(
            v.folded.to_string(),
            normalize_value(&v.raw),
            articles,
            order,
        );
    }
}

/// Count the language codes of one list, carried by `articles` articles.
fn tally_languages(
    values: &[LanguageValue],
    articles: usize,
    tally: &mut Tally,
    order: &mut usize,
) {
    let mut done: Vec<String> = Vec::new();
    for lv in values {
        for tag in &lv.tags {
            let folded = tag.to_ascii_lowercase();
            if !done.contains(&folded) {
                tally.add(folded.clone(), tag, articles, order);
                done.push(folded);
            }
        }
    }
}

/// Collect every value used by the content articles.
pub fn collect(bank: &Bank) -> Vocabulary {
    let (mut clients, mut domains, mut languages) =
        (Tally::default(), Tally::default(), Tally::default());
    let mut order = 0;
    for id in bank.content_ids() {
        let meta = &bank.article(id).meta;
        tally_values(&meta.clients, 1, &mut clients, &mut order);
        tally_values(&meta.domains, 1, &mut domains, &mut order);
        tally_languages(&meta.languages, 1, &mut languages, &mut order);
    }
    Vocabulary {
        clients: clients.finish(),
        domains: domains.finish(),
        languages: languages.finish(),
    }
}

/// Which of the three kinds of value a [`Seen`] keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kinds {
    pub clients: bool,
    pub domains: bool,
    pub languages: bool,
}

/// Lists of values as a read met them, each with the articles that carry
/// it, so the folding and counting of [`collect`] happen once per distinct
/// list, only if the vocabulary is asked for. Found by what they hold: a
/// read that drops its articles gives each one lists of its own (see
/// `LoadOptions::share`), and one entry per article held them all.
#[derive(Default)]
struct Lists {
    clients: Counts<KeyedValue>,
    domains: Counts<KeyedValue>,
    languages: Counts<LanguageValue>,
}

type Counts<T> = HashMap<Arc<[T]>, usize, foldhash::fast::RandomState>;

fn count<T: std::hash::Hash + Eq>(lists: &mut Counts<T>, list: &Arc<[T]>) {
    if list.is_empty() {
        return;
    }
    match lists.get_mut(&**list) {
        Some(n) => *n += 1,
        None => {
            lists.insert(list.clone(), 1);
        }
    }
}

/// Places to count in: each reading thread mostly takes its own, so the
/// locks are seldom contended; which one is only a matter of speed.
const SLOTS: usize = 8;

/// The values of the content articles of one streamed read, gathered while
/// it goes on from whichever threads read them, so that the [`Vocabulary`]
/// [`collect`] would give on the loaded bank can be built afterwards
/// without reading the bank again.
pub struct Seen {
    kinds: Kinds,
    slots: [Mutex<Lists>; SLOTS],
}

impl Seen {
    pub fn new(kinds: Kinds) -> Seen {
        Seen {
            kinds,
            slots: std::array::from_fn(|_| Mutex::default()),
        }
    }

    /// Count one content article's values.
    pub fn add(&self, meta: &Meta) {
        let slot = rayon::current_thread_index().map_or(0, |i| (i + 1) % SLOTS);
        let Ok(mut lists) = self.slots[slot].lock() else {
            return;
        };
        if self.kinds.clients {
            count(&mut lists.clients, &meta.clients);
        }
        if self.kinds.domains {
            count(&mut lists.domains, &meta.domains);
        }
        if self.kinds.languages {
            count(&mut lists.languages, &meta.languages);
        }
    }

    /// The vocabulary of the articles counted, as [`collect`] builds it;
    /// a kind not kept is empty.
    pub fn finish(self) -> Vocabulary {
        let (mut clients, mut domains, mut languages) =
            (Tally::default(), Tally::default(), Tally::default());
        let mut order = 0;
        for slot in self.slots {
            let lists = slot.into_inner().unwrap_or_else(|e| e.into_inner());
            for (list, n) in &lists.clients {
                tally_values(list, *n, &mut clients, &mut order);
            }
            for (list, n) in &lists.domains {
                tally_values(list, *n, &mut domains, &mut order);
            }
            for (list, n) in &lists.languages {
                tally_languages(list, *n, &mut languages, &mut order);
            }
        }
        Vocabulary {
            clients: clients.finish(),
            domains: domains.finish(),
            languages: languages.finish(),
        }
    }
}

impl Vocabulary {
    /// Values starting with `prefix` (case-insensitive), best first, then
    /// values containing it.
    pub fn complete<'a>(values: &'a [Value], prefix: &str) -> Vec<&'a str> {
        // Folded as values are matched, so `οδοσ` completes to `ΟΔΟΣ`.
        let p = crate::wikilink::fold(prefix);
        let mut starts: Vec<&str> = Vec::new();
        let mut contains: Vec<&str> = Vec::new();
        for v in values {
            let l = crate::wikilink::fold(&v.value);
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
        // Folded as values match: a final sigma is a sigma.
        let greek = [Value {
            value: "ΟΔΟΣ".into(),
            articles: 1,
        }];
        assert_eq!(Vocabulary::complete(&greek, "οδοσ"), vec!["ΟΔΟΣ"]);
    }
}
