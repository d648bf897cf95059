//! Links between articles: dead, ambiguous, and articles nobody links to.

use std::borrow::Borrow;
use std::sync::Arc;

use rayon::prelude::*;

use crate::article::Link;
use crate::bank::{ArticleId, Bank, Resolution};
use crate::near_miss::NearMisses;

use super::finding::Message;
use super::{Finding, Severity, finding};

/// The names a dead link may have meant: indexed before the articles are
/// checked, and only when one of them has a dead link. Built up front on
/// every core, not on the first thread to meet a dead link while the
/// others wait for it. Shared with the report, so that a re-check after a
/// change that adds, removes or renames no file uses the same names again
/// instead of indexing every name of the bank for one changed article.
#[derive(Clone, Default)]
pub struct LinkNames(Option<Arc<NearMisses>>);

impl std::fmt::Debug for LinkNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The index itself is a few megabytes of names: not for a log.
        f.debug_struct("LinkNames")
            .field("indexed", &self.is_indexed())
            .finish()
    }
}

impl LinkNames {
    /// Were the names indexed (some checked article had a dead link)?
    pub fn is_indexed(&self) -> bool {
        self.0.is_some()
    }

    /// Are these the very names `other` holds (not a copy)?
    #[cfg(test)]
    pub(super) fn same_index(&self, other: &LinkNames) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }

    /// The names, if any of the articles `ids` (every article when
    /// `None`) has a dead link that is reported. The links of an inbox
    /// note or a template are not checked, so a dead one there asks for no
    /// suggestion: indexing 100,000 names for it was most of a re-check.
    pub(super) fn for_links_of(bank: &Bank, ids: Option<&[ArticleId]>) -> LinkNames {
        let has_dead = |id: ArticleId| {
            super::checks_links(bank.article(id).folder)
                && bank
                    .outgoing(id)
                    .any(|(_, resolution)| matches!(resolution, Resolution::Dead))
        };
        let all = bank.articles().len();
        let dead = match ids {
            Some(ids) if crate::parallel::pays(ids.len()) => ids.par_iter().any(|&id| has_dead(id)),
            Some(ids) => ids.iter().any(|&id| has_dead(id)),
            None if crate::parallel::pays(all) => (0..all).into_par_iter().any(has_dead),
            None => (0..all).any(has_dead),
        };
        if !dead {
            return LinkNames(None);
        }
        let paths = bank.articles().iter().map(|a| a.rel_path.as_str());
        LinkNames::of(paths, bank)
    }

    /// The names of the articles at `paths`, in bank order, and of the
    /// files of `bank` that are not articles.
    pub(super) fn of<'a>(paths: impl Iterator<Item = &'a str>, bank: &'a Bank) -> LinkNames {
        LinkNames(Some(Arc::new(NearMisses::new(names_of(paths, bank)))))
    }
}

/// The names a dead link may have meant: the stems of the articles at
/// `paths` and the names of the files of `bank` that are not articles.
pub(super) fn names_of<'a>(
    paths: impl Iterator<Item = &'a str>,
    bank: &'a Bank,
) -> impl Iterator<Item = &'a str> {
    let stems = paths.map(crate::article::stem_of);
    let files = bank
        .other_files
        .iter()
        .chain(&bank.templates)
        .chain(bank.skipped.iter().map(|s| &s.path))
        .map(|p| p.rsplit('/').next().unwrap_or(p.as_str()));
    stems.chain(files)
}

pub(super) fn link_findings(bank: &Bank, id: ArticleId, names: &LinkNames, out: &mut Vec<Finding>) {
    let path_of = |t: ArticleId| bank.article(t).rel_path.as_str();
    findings_of_links(
        &bank.article(id).rel_path,
        bank.outgoing(id),
        &path_of,
        names,
        out,
    );
}

/// The dead and ambiguous links among the `links` of the article at
/// `path`, where `path_of` gives the path of the article an id names.
pub(super) fn findings_of_links<'a, 'l, L: Borrow<Link<'l>>, R: Borrow<Resolution>>(
    path: &str,
    links: impl Iterator<Item = (L, R)>,
    path_of: &dyn Fn(ArticleId) -> &'a str,
    names: &LinkNames,
    out: &mut Vec<Finding>,
) {
    for (link, resolution) in links {
        let link = link.borrow();
        match resolution.borrow() {
            Resolution::One(_) | Resolution::File(_) => {}
            Resolution::Dead => {
                let near = names
                    .0
                    .as_deref()
                    .and_then(|n| n.find(dead_link_name(link)));
                out.push(dead_link_finding(path, link, near));
            }
            Resolution::Ambiguous(ids) => {
                let names: Vec<String> = ids.iter().map(|&t| format!("“{}”", path_of(t))).collect();
                let used = path_of(ids[0]);
                let why = if used.rsplit_once('/').map(|(d, _)| d)
                    == path.rsplit_once('/').map(|(d, _)| d)
                {
                    "the one in this article's folder"
                } else {
                    "the shortest path"
                };
                let paths: Vec<&str> = ids.iter().map(|&t| path_of(t)).collect();
                let path_link = shortest_unique_path(&paths);
                out.push(finding(
                    "ambiguous-link",
                    Severity::Warning,
                    path,
                    Some(link.line),
                    format!(
                        "{} matches {} files: {}. It opens “{}” ({why}), as Obsidian does, so \
                         this link never reaches the other{}. Write the path to say which one you \
                         mean, e.g. [[{path_link}]], or rename one of the files so each name is \
                         unique.",
                        link.written(),
                        ids.len(),
                        names.join(" and "),
                        used,
                        if ids.len() > 2 { "s" } else { "" },
                    ),
                ));
            }
        }
    }
}

pub(super) fn orphan_finding(bank: &Bank, id: ArticleId, out: &mut Vec<Finding>) {
    if bank.backlinks(id).is_empty() {
        out.push(orphan(&bank.article(id).rel_path));
    }
}

/// The article at `path` has no backlinks.
pub(super) fn orphan(path: &str) -> Finding {
    Finding::with_message("orphan", Severity::Info, path, None, Message::Orphan)
}

/// File types a link names as an attachment rather than a note (Obsidian
/// embeds and links these; a note's name may still contain a dot).
const ATTACHMENT_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "avif", "tif", "tiff", "pdf", "mp3", "wav",
    "m4a", "ogg", "flac", "webm", "mp4", "mov", "mkv", "docx", "doc", "xlsx", "xls", "pptx", "ppt",
    "odt", "ods", "zip", "csv", "tsv", "tmx", "xliff", "xlf", "sdlxliff", "txt", "json", "jsonl",
    "canvas", "base",
];

/// Does the link target name an attachment (by its extension)?
pub fn is_attachment(target: &str) -> bool {
    let name = target.rsplit('/').next().unwrap_or(target);
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && ATTACHMENT_EXTENSIONS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(ext))
    })
}

/// The name a dead link's suggestion is looked up by: its target's last
/// part.
pub(super) fn dead_link_name<'a>(link: &Link<'a>) -> &'a str {
    let target = crate::text::trim(link.target());
    target.rsplit('/').next().unwrap_or(target)
}

/// The `dead-link` finding about `link` in the article at `path`, where
/// `near` is the name the index of near misses finds for
/// [`dead_link_name`].
pub(super) fn dead_link_finding(path: &str, link: &Link<'_>, near: Option<&str>) -> Finding {
    Finding::with_message(
        "dead-link",
        Severity::Warning,
        path,
        Some(link.line),
        dead_link_near(link, near),
    )
}

/// What a dead link is: a missing attachment, a near miss of an existing
/// name (`near`, what the names' index finds for it), or a name nothing
/// has yet (perhaps a note still to be written).
fn dead_link_near(link: &Link<'_>, near: Option<&str>) -> Message {
    let target = crate::text::trim(link.target());
    let name = dead_link_name(link);
    let written = link.written();
    if is_attachment(target) {
        let hint = match near {
            Some(near) => format!(" Did you mean “{near}”?"),
            None => " Add the file to the bank, or correct the name.".to_owned(),
        };
        return Message::Text(
            format!(
                "{written}: missing attachment: no file named “{name}” is in the bank.{hint} \
                 membank never removes links by itself."
            )
            .into(),
        );
    }
    match near {
        Some(near) => {
            // A name ending in a space is the one a link cannot spell
            // (links are trimmed): suggesting it as written would repeat
            // the dead link; with its `.md` it opens the file.
            let near = if near.trim() == name.trim() && near != near.trim_end() {
                format!("{near}.md")
            } else {
                near.to_owned()
            };
            Message::Text(
                format!(
                    "{written} does not match any file in the bank. Did you mean [[{near}]]? \
                     membank never removes links by itself."
                )
                .into(),
            )
        }
        None => Message::DeadLink(written.into()),
    }
}

/// The message of a `dead-link` finding, appended to `out`, the link as
/// written passed through `from_bank`.
pub(super) fn write_dead_link_message(
    out: &mut String,
    written: &str,
    from_bank: &dyn Fn(&mut String, &str),
) {
    from_bank(out, written);
    out.push_str(
        " does not match any file in the bank. This is fine for an article you still plan to \
         write (a forward reference); otherwise correct the spelling. membank never removes \
         links by itself.",
    );
}

/// The message of an `orphan` finding about the article at `path`,
/// appended to `out`, the parts from the bank passed through `from_bank`.
pub(super) fn write_orphan_message(
    out: &mut String,
    path: &str,
    from_bank: &dyn Fn(&mut String, &str),
) {
    let stem = crate::article::stem_of(path);
    out.push_str("No other article links to “");
    from_bank(out, stem);
    out.push_str(
        "”. It is still used for context, but nobody browsing the bank will be led to it. If \
         it belongs to a client or domain, add a ",
    );
    let file_name = path.rsplit('/').next().unwrap_or(path);
    match crate::wikilink::unlinkable_name(file_name) {
        None => {
            out.push_str("[[");
            from_bank(out, stem);
            out.push_str("]] link there.");
        }
        // Advice to write `[[C# notes]]` would make a link to another
        // file (or to none): a Markdown link can name it.
        Some(why) => {
            out.push_str("link there; a [[wikilink]] cannot name a file with ");
            from_bank(out, &why);
            out.push_str(" in its name, so write the Markdown link ");
            from_bank(out, &crate::wikilink::markdown_link_to(path));
            out.push('.');
        }
    }
}

/// The shortest path link that names `paths[0]` and none of the others:
/// the fewest trailing folders that tell them apart, `.md` left out.
fn shortest_unique_path(paths: &[&str]) -> String {
    // Folded as links resolve, so the path told apart is one links tell apart.
    let stem = |p: &str| crate::wikilink::fold(p.strip_suffix(".md").unwrap_or(p));
    let used = paths[0].strip_suffix(".md").unwrap_or(paths[0]);
    let others: Vec<String> = paths[1..].iter().map(|p| stem(p)).collect();
    let segments: Vec<&str> = used.split('/').collect();
    (2..=segments.len())
        .map(|k| segments[segments.len() - k..].join("/"))
        .find(|suffix| {
            let folded = crate::wikilink::fold(suffix);
            let tail = format!("/{folded}");
            !others.iter().any(|o| *o == folded || o.ends_with(&tail))
        })
        .unwrap_or_else(|| used.to_owned())
}

#[cfg(test)]
mod tests {
    /// The path link offered names one file as links fold names: a final
    /// sigma is a sigma, so `a/οδος` would still reach both files.
    #[test]
    fn the_path_offered_is_unique_as_links_fold() {
        let unique = super::shortest_unique_path;
        assert_eq!(unique(&["x/a/οδος.md", "y/a/οδοσ.md"]), "x/a/οδος");
        assert_eq!(unique(&["x/a/Legal.md", "y/b/legal.md"]), "a/Legal");
    }
}
