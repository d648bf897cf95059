//! The frontmatter block: whether it parses, which keys it has, and whether
//! their values are valid (spec §5).

use crate::article::{Article, FrontmatterState};
use crate::layout::Folder;

use super::finding::{KeyRule, Message};
use super::language::{is_plausible_language_tag, language_hint};
use super::{Finding, Severity, finding};

pub(super) fn frontmatter_findings(a: &Article, out: &mut Vec<Finding>) {
    // Inbox notes and indices need no frontmatter; a broken block there is
    // still worth fixing but hides nothing from translation context.
    let severity = if a.folder.is_content() {
        Severity::Error
    } else {
        Severity::Warning
    };
    let invisible = if a.folder.is_content() {
        " Until this is fixed, the article is invisible to other memory bank tools."
    } else {
        ""
    };
    match &a.frontmatter {
        FrontmatterState::Parsed(_) => {}
        FrontmatterState::Missing => {
            // A note that is all code is not an article missing its block.
            if a.folder.is_content() && !a.encoding.only_code {
                // Lines ended by a carriage return alone (old Mac files)
                // are one line to every tool: the block is there, unseen.
                let message = if a.encoding.cr_only {
                    format!(
                        "The file's lines end in a carriage return alone (as on old Macs), so \
                         to every tool it is one line and its frontmatter block cannot be \
                         seen.{invisible} Save it with LF (or CRLF) line endings."
                    )
                } else {
                    format!(
                        "The article does not start with a frontmatter block (a line “---”, \
                         the keys, and another “---”). Every article in {} needs one.{invisible} \
                         Add the block at the very top, with at least last_updated.",
                        a.folder.dir_name()
                    )
                };
                out.push(finding(
                    "missing-frontmatter",
                    Severity::Error,
                    &a.rel_path,
                    Some(1 + a.encoding.line_shift()),
                    message,
                ));
            }
        }
        FrontmatterState::Unclosed => out.push(finding(
            "unparsable-frontmatter",
            severity,
            &a.rel_path,
            Some(1 + a.encoding.line_shift()),
            format!(
                "The frontmatter opens with “---” but never closes, so none of its keys can be \
                 read.{invisible} Add a line “---” after the last key."
            ),
        )),
        FrontmatterState::Invalid(e) => {
            // Advice that fits what went wrong, and no "line shown" when
            // the parser could not say where.
            let not_a_mapping = e.message.contains("not a mapping");
            // membank's own bounds (size, nesting), not a YAML error.
            let over_bounds = e.message.contains("not parsed");
            let fix = if not_a_mapping {
                "Write the block as “key: value” lines."
            } else if over_bounds {
                "Keep the block to a handful of short keys: long text belongs in the body, \
                 below the closing “---”."
            } else if e.line.is_some() {
                "Fix the line shown; values containing “: ”, “#” or brackets need quotes."
            } else {
                "Check the block line by line; values containing “: ”, “#” or brackets need \
                 quotes."
            };
            out.push(finding(
                "unparsable-frontmatter",
                severity,
                &a.rel_path,
                e.line,
                if not_a_mapping {
                    format!(
                        "The {}, so none of its keys can be read.{invisible} {fix}",
                        e.message
                    )
                } else if over_bounds {
                    // Other tools may well read it: membank's bound is its own.
                    format!(
                        "The frontmatter is beyond what membank reads ({}), so membank reads \
                         none of its keys, though other tools may. {fix}",
                        e.message
                    )
                } else {
                    format!(
                        "The frontmatter is not valid YAML ({}), so none of its keys can be \
                         read.{invisible} {fix}",
                        e.message
                    )
                },
            ))
        }
    }
}

/// Required and recommended keys (spec §5).
pub(super) fn keys_for(folder: Folder) -> (&'static [&'static str], &'static [&'static str]) {
    match folder {
        Folder::Clients => (&["last_updated", "client", "languages"], &["domains"]),
        Folder::Terminology => (
            &[
                "last_updated",
                "term_source",
                "term_target",
                "source_lang",
                "target_lang",
                "status",
            ],
            &["domain", "clients"],
        ),
        Folder::Domains => (&["last_updated", "domain"], &["languages"]),
        Folder::Style => (&["last_updated", "scope", "languages"], &[]),
        _ => (&[], &[]),
    }
}

/// Keys an archived (or stamped) inbox file carries (spec §5, §11).
pub(super) const ARCHIVE_KEYS: [&str; 3] = ["compiled", "compiled_date", "compiled_to"];

/// The keys [`keys_for`] and [`ARCHIVE_KEYS`] name, each as a bit; 0 for
/// any other.
fn key_bit(key: &str) -> u32 {
    match key {
        "last_updated" => 1,
        "client" => 1 << 1,
        "languages" => 1 << 2,
        "domains" => 1 << 3,
        "term_source" => 1 << 4,
        "term_target" => 1 << 5,
        "source_lang" => 1 << 6,
        "target_lang" => 1 << 7,
        "status" => 1 << 8,
        "domain" => 1 << 9,
        "clients" => 1 << 10,
        "scope" => 1 << 11,
        "compiled" => 1 << 12,
        "compiled_date" => 1 << 13,
        "compiled_to" => 1 << 14,
        _ => 0,
    }
}

pub(super) fn key_findings(a: &Article, out: &mut Vec<Finding>) {
    let (required, recommended) = keys_for(a.folder);
    // The article's keys read once, where each key asked for was looked
    // for among them all (eight keys a term, each compared with each).
    let bits = |keys: &[std::sync::Arc<str>]| keys.iter().fold(0, |m, k| m | key_bit(k));
    let (present, empty_keys) = (bits(&a.meta.keys), bits(&a.meta.empty_keys));
    let mut report = |key: &'static str, severity: Severity, rule: KeyRule| {
        let bit = key_bit(key);
        let (has, empty) = if bit == 0 {
            (a.meta.has_key(key), a.meta.is_empty_key(key))
        } else {
            (present & bit != 0, empty_keys & bit != 0)
        };
        if has && !empty {
            return;
        }
        let line = if empty { key_line(a, key) } else { None };
        out.push(Finding::with_message(
            "missing-key",
            severity,
            &a.rel_path,
            line,
            Message::MissingKey { key, empty, rule },
        ));
    };
    for key in required {
        report(key, Severity::Error, KeyRule::Required(a.folder));
    }
    for key in recommended {
        report(key, Severity::Warning, KeyRule::Recommended(a.folder));
    }
    if a.folder == Folder::Inbox && (a.in_archive || a.meta.compiled) {
        for key in ARCHIVE_KEYS {
            report(key, Severity::Warning, KeyRule::Archive);
        }
    }
}

/// The message of a `missing-key` finding, appended to `out`: a large
/// bank has tens of thousands of these, each put into words when the
/// report is written.
pub(super) fn write_missing_key_message(out: &mut String, key: &str, empty: bool, rule: KeyRule) {
    // Pieces put down one after another, not through the formatting
    // machinery: a large bank's report writes tens of thousands of these.
    out.push_str("The key ");
    out.push_str(key);
    out.push_str(if empty {
        " is empty. "
    } else {
        " is missing. "
    });
    match rule {
        KeyRule::Required(folder) => {
            out.push_str("Every article in ");
            out.push_str(folder.dir_name());
            out.push_str(" must have it; tools rely on it to score and sort.");
        }
        KeyRule::Recommended(folder) => {
            out.push_str("It is recommended in ");
            out.push_str(folder.dir_name());
            out.push_str(": without it the article earns no points for a matching ");
            out.push_str(match key {
                "clients" => "client",
                "languages" => "language",
                _ => "domain",
            });
            out.push('.');
        }
        KeyRule::Archive => out.push_str(
            "Processed inbox files record when and into which articles they were compiled.",
        ),
    }
    out.push_str(" Add “");
    out.push_str(key);
    out.push_str(": …” to the frontmatter.");
}

pub(super) fn value_findings(a: &Article, out: &mut Vec<Finding>) {
    unread_values(a, out);
    for (key, link) in a.meta.unquoted_links() {
        out.push(finding(
            "unquoted-link",
            Severity::Warning,
            &a.rel_path,
            key_line(a, key),
            format!(
                "{key} holds {link} without quotes, which YAML reads as a list inside a list, \
                 not as a link: other tools see neither the link nor the value. membank reads \
                 it as the link you meant. Put the link in quotes where it stands: \
                 “{key}: \"{link}\"” for a single value, “{key}: [\"{link}\", …]” in a list \
                 (keeping its other items)."
            ),
        ));
    }
    if a.meta.last_updated_date.is_none()
        && let Some(raw) = &a.meta.last_updated
    {
        out.push(bad_date(a, "last_updated", raw));
    }
    // Only inbox files carry compiled_date, and few: re-parsing them is cheap.
    if a.folder == Folder::Inbox && a.meta.has_key("compiled_date") {
        let raw = a.mapping().and_then(|m| {
            crate::frontmatter::strings(&m, "compiled_date")
                .into_iter()
                .next()
        });
        if let Some(raw) = raw.filter(|r| crate::frontmatter::parse_iso_date(r).is_none()) {
            out.push(bad_date(a, "compiled_date", &raw));
        }
    }
    let bad_status = a
        .meta
        .status
        .as_ref()
        .filter(|_| a.folder == Folder::Terminology)
        .filter(|s| !matches!(&***s, "approved" | "proposed" | "rejected"));
    if let Some(status) = bad_status {
        let hint = match status.trim().to_lowercase().as_str() {
            s @ ("approved" | "proposed" | "rejected") => format!(" Write it as “{s}”."),
            _ => String::new(),
        };
        out.push(finding(
            "bad-status",
            Severity::Error,
            &a.rel_path,
            key_line(a, "status"),
            format!(
                "status is “{status}”, but it must be approved, proposed or rejected. Tools \
                 that look for approved terms will not treat this term as approved.{hint}"
            ),
        ));
    }
    for value in a.meta.languages.iter() {
        let bad: Vec<&std::sync::Arc<str>> = value
            .tags
            .iter()
            .filter(|t| !is_plausible_language_tag(t))
            .collect();
        if bad.is_empty() && !value.tags.is_empty() {
            continue;
        }
        let shown = if bad.is_empty() {
            format!("“{}”", value.raw)
        } else {
            bad.iter()
                .map(|t| format!("“{t}”"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let hint = bad
            .first()
            .and_then(|t| language_hint(t))
            .unwrap_or_else(|| "Use a code such as en, en-US, nl-BE or pt-BR.".into());
        out.push(finding(
            "bad-language-code",
            Severity::Warning,
            &a.rel_path,
            key_line(a, value.key),
            format!(
                "{} contains {shown}, which is not a language code (BCP 47). Language matching \
                 then fails for this article, and term conflicts cannot be detected. {hint}",
                value.key
            ),
        ));
    }
}

/// A finding for each key scoring reads that is set to a shape it cannot
/// read (see [`crate::article::Meta::unread_scored_keys`]).
fn unread_values(a: &Article, out: &mut Vec<Finding>) {
    for &(key, shape) in a.meta.unread_scored_keys() {
        let (reads, example) = if crate::article::CLIENT_KEYS.contains(&key) {
            ("client names", "clients: [\"[[Acme Corporation]]\"]")
        } else if crate::article::DOMAIN_KEYS.contains(&key) {
            ("domain names", "domains: [\"[[Legal]]\"]")
        } else if key == "languages" || key == "language_pair" {
            ("language codes", "languages: [\"en-US → nl-BE\"]")
        } else {
            ("a language code", "source_lang: en-US")
        };
        out.push(finding(
            "unread-value",
            Severity::Warning,
            &a.rel_path,
            key_line(a, key),
            format!(
                "{key} is {shape}, where membank and other memory bank tools read {reads} \
                 as text or a list of texts: nothing in it is read, so the article earns no \
                 point for it. Write it like “{example}”."
            ),
        ));
    }
}

fn bad_date(a: &Article, key: &str, raw: &str) -> Finding {
    finding(
        "bad-date",
        Severity::Error,
        &a.rel_path,
        key_line(a, key),
        format!(
            "{key} is “{raw}”, which is not a real date written as YYYY-MM-DD. Sorting and \
             staleness checks cannot use it. Write it like 2026-04-08."
        ),
    )
}

/// The file line of a top-level frontmatter key, if it can be found: in
/// the block's text, or from the lines kept in its place.
pub(super) fn key_line(a: &Article, key: &str) -> Option<usize> {
    if let Some(lines) = a.kept_lines() {
        return lines.key_line(key);
    }
    crate::article::key_line_in(a.yaml()?, a.yaml_first_line(), key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every key a folder asks for, and an archive's, has a bit of its own
    /// (two keys on one bit would answer for each other); other text,
    /// whatever its likeness, has none and is looked for as written.
    #[test]
    fn each_key_asked_for_has_a_bit_of_its_own() {
        let mut asked: Vec<&str> = Folder::ALL
            .into_iter()
            .flat_map(|f| {
                let (required, recommended) = keys_for(f);
                required.iter().chain(recommended)
            })
            .copied()
            .chain(ARCHIVE_KEYS)
            .collect();
        asked.sort_unstable();
        asked.dedup();
        let mut seen = 0;
        for key in &asked {
            let bit = key_bit(key);
            assert_eq!(bit.count_ones(), 1, "{key}");
            assert_eq!(seen & bit, 0, "{key}");
            seen |= bit;
        }
        for other in [
            "",
            "Status",
            "status ",
            "\"status\"",
            "clientss",
            "compile",
            "x",
        ] {
            assert_eq!(key_bit(other), 0, "{other:?}");
        }
    }
}
