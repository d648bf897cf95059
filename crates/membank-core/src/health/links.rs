//! Links between articles: dead, ambiguous, and articles nobody links to.

use crate::bank::{ArticleId, Bank, Resolution};

use super::{Finding, Severity, finding};

pub(super) fn link_findings(bank: &Bank, id: ArticleId, out: &mut Vec<Finding>) {
    let a = bank.article(id);
    for (link, resolution) in bank.outgoing(id) {
        match resolution {
            Resolution::One(_) => {}
            Resolution::Dead => out.push(finding(
                "dead-link",
                Severity::Warning,
                &a.rel_path,
                Some(link.line),
                format!(
                    "[[{}]] does not match any article in 01_CLIENTS to 04_STYLE. This is fine \
                     for an article you still plan to write (a forward reference); otherwise \
                     correct the spelling. membank never removes links by itself.",
                    link.raw
                ),
            )),
            Resolution::Ambiguous(ids) => {
                let names: Vec<String> = ids
                    .iter()
                    .map(|&t| format!("“{}”", bank.article(t).rel_path))
                    .collect();
                let used = ids.first().map(|&t| bank.article(t).rel_path.as_str());
                out.push(finding(
                    "ambiguous-link",
                    Severity::Warning,
                    &a.rel_path,
                    Some(link.line),
                    format!(
                        "[[{}]] matches {} files: {}. membank uses “{}”, other tools may pick \
                         another. Rename one of the files so each name is unique.",
                        link.raw,
                        ids.len(),
                        names.join(" and "),
                        used.unwrap_or_default()
                    ),
                ));
            }
        }
    }
}
