//! Approved terms that contradict each other.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::bank::{ArticleId, Bank};
use crate::layout::Folder;
use crate::wikilink::fold;

use super::frontmatter::key_line;
use super::{Finding, Severity, finding};

pub(super) fn term_conflicts(bank: &Bank, out: &mut Vec<Finding>) {
    type Key = (String, String, String);
    let mut groups: HashMap<Key, Vec<ArticleId>> = HashMap::new();
    for (id, a) in bank.articles().iter().enumerate() {
        if a.folder != Folder::Terminology || a.meta.status.as_deref() != Some("approved") {
            continue;
        }
        let (Some(src), Some(_), Some(sl), Some(tl)) = (
            &a.meta.term_source,
            &a.meta.term_target,
            &a.meta.source_lang,
            &a.meta.target_lang,
        ) else {
            continue;
        };
        let key = (
            fold(src.trim()),
            sl.trim().to_ascii_lowercase(),
            tl.trim().to_ascii_lowercase(),
        );
        groups.entry(key).or_default().push(id);
    }
    const LISTED: usize = 5;
    for ((_, sl, tl), ids) in groups.into_iter().filter(|(_, ids)| ids.len() > 1) {
        let target = |id: ArticleId| -> &str {
            bank.article(id)
                .meta
                .term_target
                .as_deref()
                .unwrap_or("")
                .trim()
        };
        // Group by the exact target so each article lists only the others
        // that disagree with it; linear in the group size.
        let mut by_target: BTreeMap<&str, Vec<ArticleId>> = BTreeMap::new();
        for &id in &ids {
            by_target.entry(target(id)).or_default().push(id);
        }
        if by_target.len() < 2 {
            continue;
        }
        let only_case = by_target
            .keys()
            .map(|t| t.to_lowercase())
            .collect::<BTreeSet<_>>()
            .len()
            == 1;
        let severity = if only_case {
            Severity::Warning
        } else {
            Severity::Error
        };
        for &id in &ids {
            let a = bank.article(id);
            let mine = target(id);
            let others: Vec<ArticleId> =
                ids.iter().copied().filter(|&o| target(o) != mine).collect();
            let mut listed: Vec<String> = others
                .iter()
                .take(LISTED)
                .map(|&o| format!("“{}” ({})", bank.article(o).rel_path, target(o)))
                .collect();
            if others.len() > LISTED {
                listed.push(format!("and {} more", others.len() - LISTED));
            }
            let source = a.meta.term_source.as_deref().unwrap_or("").trim();
            let sl = a.meta.source_lang.as_deref().unwrap_or(&sl).trim();
            let tl = a.meta.target_lang.as_deref().unwrap_or(&tl).trim();
            let case_note = if only_case {
                " The translations differ only in upper/lower case."
            } else {
                ""
            };
            out.push(finding(
                "term-conflict",
                severity,
                &a.rel_path,
                key_line(a, "term_target"),
                format!(
                    "Approved term “{source}” ({sl} → {tl}) is translated “{mine}” here but \
                     differently in {}.{case_note} A translator or LLM gets contradictory \
                     instructions. Decide on one translation and set the other article to \
                     status: rejected, or make the source terms distinguishable.",
                    listed.join(", ")
                ),
            ));
        }
    }
}
