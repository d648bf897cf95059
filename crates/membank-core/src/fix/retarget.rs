//! `dead-link`: a link whose name is exactly one article's but for case,
//! width, spacing or `&` for "and" is pointed at that article, the text a
//! reader sees left as it was. A near miss that needs a letter, digit,
//! accent or punctuation changed is only suggested: "Liver" may mean
//! "Sliver", or an article not yet written.

use std::ops::Range;

use crate::article::Link;
use crate::bank::{Bank, Resolution};
use crate::health::Finding;
use crate::near_miss::NearMisses;
use crate::wikilink::LinkKind;

use super::line_links::{self, LineLinks, Replacement};

/// The names dead links are matched against: every article's file name.
pub(super) fn article_names(bank: &Bank) -> NearMisses {
    NearMisses::new(
        bank.articles()
            .iter()
            .map(|a| crate::article::stem_of(&a.rel_path)),
    )
}

/// Every dead link on the finding's line retargeted that can be, each on
/// its own and at its own bytes; `Err` says why the line itself cannot be
/// read.
pub(super) fn retarget(
    text: &str,
    f: &Finding,
    bank: &Bank,
    path: &str,
    names: &NearMisses,
) -> Result<LineLinks, String> {
    let line = f.line().ok_or("the finding names no line")?;
    let a = bank
        .find(path)
        .map(|id| bank.article(id))
        .ok_or("the article was not loaded")?;
    let line_text = super::edit::line_text(text, line)
        .ok_or_else(|| format!("line {line} is not in the file"))?;
    let on_line: Vec<_> = a.links.iter().filter(|l| l.line == line).collect();
    let ranges = line_links::body_ranges(text, line, &on_line);
    let mut edits = Vec::new();
    let mut changes = Vec::new();
    let mut left = Vec::new();
    let mut dead = 0;
    // A frontmatter value's links are found by their text, each after the
    // one before it: a YAML line holds no code span.
    let mut value_from = 0;
    for (link, range) in on_line.iter().zip(ranges) {
        if !matches!(
            bank.resolve_from(link.target(), Some(path)),
            Resolution::Dead
        ) {
            continue;
        }
        dead += 1;
        let at = match range {
            Some(range) => Ok(range),
            None if link.in_frontmatter => value_range(line_text, link, &mut value_from),
            None => Err(format!(
                "{} is not written on line {line} as read; the file changed",
                link.written()
            )),
        };
        match at.and_then(|at| retarget_one(link, bank, path, names, line_text, at)) {
            Ok((edit, change)) => {
                edits.push(edit);
                changes.push(change);
            }
            Err(reason) => left.push((link.written(), reason)),
        }
    }
    if dead == 0 {
        return Err(format!("no dead link found on line {line}"));
    }
    let edited = (!changes.is_empty()).then(|| {
        (
            super::replace_line(text, line, &line_links::replaced(line_text, edits)),
            format!("line {line}: {}", changes.join(", ")),
        )
    });
    Ok(LineLinks { edited, left })
}

/// Where a frontmatter value's link is written on its line: the link as
/// written, or a plain value's name alone (`domain: Travel & Tourism`).
fn value_range(line: &str, link: &Link<'_>, from: &mut usize) -> Result<Range<usize>, String> {
    let rest = line.get(*from..).unwrap_or_default();
    let written = link.written();
    let (at, len) = match rest.find(&written) {
        Some(at) => (at, written.len()),
        None => match rest.find(link.raw()) {
            Some(at) if rest.matches(link.raw()).count() == 1 => (at, link.raw().len()),
            _ => {
                return Err(format!(
                    "{written} is not written on its line as read; the file changed"
                ));
            }
        },
    };
    let range = *from + at..*from + at + len;
    *from = range.end;
    Ok(range)
}

/// One dead link pointed at the one article its name is spelt as:
/// the edit of its bytes `at` in `line`, and what changed; or why it
/// cannot be.
fn retarget_one(
    link: &Link<'_>,
    bank: &Bank,
    path: &str,
    names: &NearMisses,
    line: &str,
    at: Range<usize>,
) -> Result<(Replacement, String), String> {
    if crate::health::is_attachment(link.target()) {
        return Err(format!(
            "{} names a missing attachment: restore the file or remove the link",
            link.written()
        ));
    }
    let meant = names.same_name(link.target()).ok_or_else(|| {
        let written = link.target();
        match names.only(written) {
            // A near miss is another name as often as a slip: the author
            // says which, and `--create-missing` creates neither.
            Some(near) => format!(
                "did you mean “{near}”? “{written}” differs from it by more than case, \
                 width, spacing or `&`, so it may name another article: point the link \
                 there or create the article by hand"
            ),
            None => format!(
                "no single article is a near miss of “{written}”; a dead link may be a \
                 deliberate forward reference (`fix --create-missing`, or + in the \
                 interface, creates it)"
            ),
        }
    })?;
    if !matches!(bank.resolve_from(meant, Some(path)), Resolution::One(_)) {
        return Err(format!(
            "“{meant}” names several articles; write the path by hand"
        ));
    }
    if link.kind == LinkKind::Markdown {
        return Err(format!(
            "{} is a Markdown link; point it at “{meant}” by hand",
            link.raw()
        ));
    }
    if link.raw().contains("\\|") {
        return Err(format!(
            "{} sits in a table; point it at “{meant}” by hand",
            link.written()
        ));
    }
    let old = &line[at.clone()];
    if old != link.written() {
        // A plain value (`domain: Travel & Tourism`): the name alone.
        return Ok((
            Replacement {
                range: at,
                new: meant.to_owned(),
            },
            format!("“{}” becomes “{meant}”", link.raw()),
        ));
    }
    let cut = link.raw().find(['#', '|']).unwrap_or(link.raw().len());
    let (name, rest) = link.raw().split_at(cut);
    let new = if link.in_frontmatter || link.kind == LinkKind::Embed || rest.contains('|') {
        // A value names its target; an embed shows the target itself;
        // a link with its own text keeps that text.
        crate::wikilink::WikiLink::written(&format!("{meant}{rest}"), link.kind)
    } else {
        format!("[[{meant}{rest}|{}]]", line_links::shown_name(name, rest))
    };
    let change = format!("{old} becomes {new}");
    Ok((Replacement { range: at, new }, change))
}

/// For a dead link no article is a near miss of, the one name to create
/// and the folder its use implies: a `client`/`domain` value names a
/// client or domain; a link in the text, a note beside the linking one.
/// The link is the one the finding's message names (each dead link of a
/// line has its own finding). `None` when the usual fix answers the link
/// (the name it is spelt as, the one near miss it suggests, an
/// attachment): a name one letter from another is as likely a slip as a
/// new article; `Some(Err(why))` when no article is near
/// it and none is made (a path: the author says where it goes).
pub(super) fn missing_article(
    bank: &Bank,
    f: &Finding,
    names: &NearMisses,
) -> Option<Result<(crate::layout::Folder, String), String>> {
    match article_to_create(bank, f, names) {
        Ok(made) => Some(Ok(made)),
        Err(why) => why.map(Err),
    }
}

/// [`missing_article`], `Err(None)` standing for `None`.
fn article_to_create(
    bank: &Bank,
    f: &Finding,
    names: &NearMisses,
) -> Result<(crate::layout::Folder, String), Option<String>> {
    use crate::layout::Folder;
    let line = f.line().ok_or(None)?;
    let id = bank.find(&f.path).ok_or(None)?;
    let a = bank.article(id);
    let dead: Vec<_> = a
        .links
        .iter()
        .filter(|l| {
            l.line == line
                && matches!(
                    bank.resolve_from(l.target(), Some(&f.path)),
                    Resolution::Dead
                )
        })
        .collect();
    let message = f.message();
    let first = *dead.first().ok_or(None)?;
    let link = match dead
        .iter()
        .find(|l| message.starts_with(l.written().as_str()))
    {
        Some(own) => *own,
        // A finding that names none of them: only when they agree.
        None if dead.iter().all(|l| l.target() == first.target()) => first,
        None => return Err(None),
    };
    let target = link.target().trim().trim_end_matches(".md");
    if crate::health::is_attachment(link.target())
        || target.is_empty()
        || names.same_name(link.target()).is_some()
        || names.only(link.target()).is_some()
    {
        return Err(None);
    }
    // Said in place of the advice to use --create-missing, which was.
    let by_hand = |why: String| Err(Some(format!("{why}; create it by hand")));
    if target.contains('/') {
        return by_hand(format!(
            "“{target}” is a path, and where a new article goes is the author's choice: \
             --create-missing makes one only from a bare name"
        ));
    }
    if link.in_frontmatter {
        // Read again when the bank kept no frontmatter for the article.
        let text = bank.frontmatter_text(id).map_err(|_| None)?;
        let key = frontmatter_key(&text, line).ok_or(None)?;
        return match key.as_str() {
            "client" | "clients" => Ok((Folder::Clients, target.to_owned())),
            "domain" | "domains" => Ok((Folder::Domains, target.to_owned())),
            _ => by_hand(format!(
                "a {key} value says nothing of the folder a new article would go in"
            )),
        };
    }
    // A term's name says where it belongs, whoever links to it.
    if let Some((source, target_term)) = crate::new_note::term_of_name(target)
        && !source.is_empty()
        && !target_term.is_empty()
    {
        return Ok((Folder::Terminology, target.to_owned()));
    }
    // Links listed together are mostly of one kind: a client's "Terminology
    // decisions" list names terms, an index's "Domains" section domains.
    if let Some(folder) = neighbours_folder(bank, f, line) {
        return Ok((folder, target.to_owned()));
    }
    let folder = a.folder;
    let inside = a
        .rel_path
        .strip_prefix(folder.dir_name())
        .and_then(|r| r.strip_prefix('/'))
        .and_then(|r| r.rsplit_once('/'))
        .map(|(dir, _)| dir);
    let name = match inside {
        Some(dir) => format!("{dir}/{target}"),
        None => target.to_owned(),
    };
    // An index only lists other articles: its folder says nothing of theirs.
    match folder {
        Folder::Templates | Folder::Inbox | Folder::Indices => by_hand(format!(
            "a link from {} says nothing of the folder a new article would go in",
            folder.dir_name()
        )),
        _ => Ok((folder, name)),
    }
}

/// The folder most of the links resolved under the same heading as the
/// finding's line lead to, when one folder leads.
fn neighbours_folder(bank: &Bank, f: &Finding, line: usize) -> Option<crate::layout::Folder> {
    use crate::layout::Folder;
    let bytes = super::read(bank, &f.path).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let is_heading = |l: &str| l.starts_with('#');
    let lines: Vec<&str> = text.lines().collect();
    // 1-based bounds of the section: after its heading, before the next.
    let start = (1..line)
        .rev()
        .find(|n| lines.get(n - 1).is_some_and(|l| is_heading(l)))
        .unwrap_or(0);
    let end = (line + 1..=lines.len())
        .find(|n| is_heading(lines[n - 1]))
        .unwrap_or(lines.len() + 1);
    let a = bank.article(bank.find(&f.path)?);
    let mut counts: Vec<(Folder, usize)> = Vec::new();
    for l in a.links.iter() {
        if l.in_frontmatter || l.line <= start || l.line >= end {
            continue;
        }
        let Some(id) = bank.resolve_from(l.target(), Some(&f.path)).target() else {
            continue;
        };
        let folder = bank.article(id).folder;
        if matches!(folder, Folder::Templates | Folder::Inbox | Folder::Indices) {
            continue;
        }
        match counts.iter_mut().find(|(f, _)| *f == folder) {
            Some((_, n)) => *n += 1,
            None => counts.push((folder, 1)),
        }
    }
    let most = counts.iter().map(|(_, n)| *n).max()?;
    let mut leading = counts.iter().filter(|(_, n)| *n == most);
    let (folder, _) = leading.next()?;
    leading.next().is_none().then_some(*folder)
}

/// The key a frontmatter line belongs to: its own, or, for a list item,
/// the key above it.
fn frontmatter_key(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut at = line.checked_sub(1)?;
    loop {
        let l = lines.get(at)?;
        if !l.trim_start().starts_with('-') {
            return l.split_once(':').map(|(k, _)| k.trim().to_owned());
        }
        at = at.checked_sub(1)?;
    }
}
