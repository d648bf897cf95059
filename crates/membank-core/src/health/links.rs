//! Links between articles: dead, ambiguous, and articles nobody links to.

use crate::bank::{ArticleId, Bank, Resolution};

use super::finding::Message;
use super::{Finding, Severity, finding};

pub(super) fn link_findings(bank: &Bank, id: ArticleId, out: &mut Vec<Finding>) {
    let a = bank.article(id);
    for (link, resolution) in bank.outgoing(id) {
        match resolution {
            Resolution::One(_) | Resolution::File(_) => {}
            Resolution::Dead => out.push(Finding::with_message(
                "dead-link",
                Severity::Warning,
                &a.rel_path,
                Some(link.line),
                Message::DeadLink(link.written().into_boxed_str()),
            )),
            Resolution::Ambiguous(ids) => {
                let names: Vec<String> = ids
                    .iter()
                    .map(|&t| format!("“{}”", bank.article(t).rel_path))
                    .collect();
                let used = bank.article(ids[0]);
                let why = if used.rel_path.rsplit_once('/').map(|(d, _)| d)
                    == a.rel_path.rsplit_once('/').map(|(d, _)| d)
                {
                    "the one in this article's folder"
                } else {
                    "the shortest path"
                };
                let paths: Vec<&str> = ids
                    .iter()
                    .map(|&t| bank.article(t).rel_path.as_str())
                    .collect();
                let path_link = shortest_unique_path(&paths);
                out.push(finding(
                    "ambiguous-link",
                    Severity::Warning,
                    &a.rel_path,
                    Some(link.line),
                    format!(
                        "{} matches {} files: {}. It opens “{}” ({why}), as Obsidian does, so \
                         this link never reaches the other{}. Write the path to say which one you \
                         mean, e.g. [[{path_link}]], or rename one of the files so each name is \
                         unique.",
                        link.written(),
                        ids.len(),
                        names.join(" and "),
                        used.rel_path,
                        if ids.len() > 2 { "s" } else { "" },
                    ),
                ));
            }
        }
    }
}

pub(super) fn orphan_finding(bank: &Bank, id: ArticleId, out: &mut Vec<Finding>) {
    if !bank.backlinks(id).is_empty() {
        return;
    }
    let a = bank.article(id);
    out.push(Finding::with_message(
        "orphan",
        Severity::Info,
        &a.rel_path,
        None,
        Message::Orphan,
    ));
}

/// The message of a `dead-link` finding.
pub(super) fn dead_link_message(written: &str) -> String {
    format!(
        "{written} does not match any file in the bank. This is fine for an article you still \
         plan to write (a forward reference); otherwise correct the spelling. membank never \
         removes links by itself."
    )
}

/// The message of an `orphan` finding about the article with this stem.
pub(super) fn orphan_message(stem: &str) -> String {
    format!(
        "No other article links to “{stem}”. It is still used for context, but nobody browsing \
         the bank will be led to it. If it belongs to a client or domain, add a [[{stem}]] link \
         there."
    )
}

/// The shortest path link that names `paths[0]` and none of the others:
/// the fewest trailing folders that tell them apart, `.md` left out.
fn shortest_unique_path(paths: &[&str]) -> String {
    let stem = |p: &str| p.strip_suffix(".md").unwrap_or(p).to_lowercase();
    let used = paths[0].strip_suffix(".md").unwrap_or(paths[0]);
    let others: Vec<String> = paths[1..].iter().map(|p| stem(p)).collect();
    let segments: Vec<&str> = used.split('/').collect();
    (2..=segments.len())
        .map(|k| segments[segments.len() - k..].join("/"))
        .find(|suffix| {
            let folded = suffix.to_lowercase();
            let tail = format!("/{folded}");
            !others.iter().any(|o| *o == folded || o.ends_with(&tail))
        })
        .unwrap_or_else(|| used.to_owned())
}
