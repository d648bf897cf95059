//! A client or domain note renamed: the plain `client`/`domain` values
//! that named it by its old name (`domains: [Legal, Tax]`) name it by the
//! new one, so scoring finds it still. Values written as links are links,
//! rewritten with the others.

use std::ops::Range;

use super::value_keys;
use crate::article::Article;
use crate::bank::Bank;
use crate::layout::Folder;
use crate::wikilink::{fold, normalize_value};

/// One client or domain renamed: the keys whose values name it, and its
/// name before and after.
pub(super) struct RenamedValue {
    keys: &'static [&'static str],
    old: String,
    new: String,
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

/// The clients and domains whose note's name changes inside its folder
/// (a note moved to another folder is no longer that client or domain, and
/// the values stay). When another note of the same folder has the old
/// name, a value cannot tell which of them it names, and stays. `Err` when
/// values already name the new name: the rename would merge the two.
pub(super) fn renamed_values(
    bank: &Bank,
    moves: &[(String, String)],
) -> Result<Vec<RenamedValue>, String> {
    let top = |p: &str| p.split('/').next().and_then(Folder::from_dir_name);
    let mut renamed = Vec::new();
    for (old, new) in moves {
        let Some(folder) = top(old) else { continue };
        let keys = value_keys(folder);
        if bank.find(old).is_none()
            || keys.is_empty()
            || top(new) != Some(folder)
            || stem(old) == stem(new)
        {
            continue;
        }
        let shared = bank.articles().iter().any(|a| {
            a.rel_path != *old
                && top(&a.rel_path) == Some(folder)
                && fold(stem(&a.rel_path)) == fold(stem(old))
        });
        if shared {
            continue;
        }
        let wanted = fold(stem(new));
        if fold(stem(old)) != wanted
            && let Some(a) = bank.articles().iter().find(|a| {
                let meta = &a.meta;
                meta.clients
                    .iter()
                    .chain(meta.domains.iter())
                    .any(|v| keys.contains(&v.key) && fold(normalize_value(&v.raw)) == wanted)
            })
        {
            return Err(format!(
                "{new}: {} already names “{}” in its {} values, so the rename would merge the \
                 two; choose another name",
                a.rel_path,
                stem(new),
                keys[0]
            ));
        }
        renamed.push(RenamedValue {
            keys,
            old: stem(old).to_owned(),
            new: stem(new).to_owned(),
        });
    }
    Ok(renamed)
}

/// Does the note hold a plain value naming a renamed client or domain?
pub(super) fn affects(article: &Article, renamed: &[RenamedValue]) -> bool {
    let meta = &article.meta;
    meta.clients.iter().chain(meta.domains.iter()).any(|v| {
        !v.raw.contains("[[")
            && renamed
                .iter()
                .any(|r| r.keys.contains(&v.key) && fold(normalize_value(&v.raw)) == fold(&r.old))
    })
}

/// `text` with each plain value of the renamed clients' and domains' keys
/// that is their old name replaced by the new one, quoting kept; and what
/// changed, in words.
pub(super) fn rewrite(text: &str, renamed: &[RenamedValue]) -> (String, Vec<String>) {
    let (Some(yaml), _) = super::links::frontmatter(text) else {
        return (text.to_owned(), Vec::new());
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut notes = Vec::new();
    let mut key: Option<&str> = None;
    let mut lines = Vec::new();
    let mut at = yaml.start;
    for line in text[yaml.clone()].split_inclusive('\n') {
        lines.push((at, line));
        at += line.len();
    }
    let mut i = 0;
    while i < lines.len() {
        let (start, line) = lines[i];
        i += 1;
        let bare = line.trim_end_matches(['\n', '\r']);
        let indented = bare.starts_with([' ', '\t']);
        let item = bare
            .trim_start()
            .strip_prefix('-')
            .filter(|r| r.is_empty() || r.starts_with(' '));
        let value = match item {
            Some(rest) if key.is_some() => Some((start + bare.len() - rest.len(), rest)),
            _ if !indented => match bare.split_once(':') {
                Some((k, rest)) if !k.trim().is_empty() && !k.starts_with('#') => {
                    key = Some(k.trim());
                    Some((start + k.len() + 1, rest))
                }
                _ => None,
            },
            _ => None,
        };
        let (Some(k), Some((offset, value))) = (key, value) else {
            continue;
        };
        // A block scalar (`domain: >-` with `Legal` on the line below) is
        // the text of the lines indented under it: its one line is the
        // value, rewritten where it stands so the block style stays. Its
        // lines are not read again as keys or items.
        let block = is_block_indicator(value);
        let (offset, value, tokens) = if block {
            let indent = bare.len() - bare.trim_start().len();
            let first = i;
            while i < lines.len() {
                let l = lines[i].1.trim_end_matches(['\n', '\r']);
                if !l.trim().is_empty() && l.len() - l.trim_start().len() <= indent {
                    break;
                }
                i += 1;
            }
            let mut content = lines[first..i].iter().filter(|(_, l)| !l.trim().is_empty());
            match (content.next(), content.next()) {
                (Some(&(s, l)), None) => {
                    let l = l.trim_end_matches(['\n', '\r']);
                    let lead = l.len() - l.trim_start().len();
                    (s, l, std::iter::once(lead..l.trim_end().len()).collect())
                }
                // A value over several lines is left as it is; the plan
                // refuses the rename when the value names the old name.
                _ => continue,
            }
        } else {
            (offset, value, scalars(value))
        };
        let Some(r) = renamed.iter().find(|r| r.keys.contains(&k)) else {
            continue;
        };
        for token in tokens {
            let written = &value[token.clone()];
            // A block's text is taken as it is: quotes in it are text.
            let (quote, inner) = match written.chars().next() {
                Some(q @ ('"' | '\'')) if !block && written.len() >= 2 && written.ends_with(q) => {
                    (Some(q), &written[1..written.len() - 1])
                }
                _ => (None, written),
            };
            if inner.contains("[[") || fold(inner.trim()) != fold(&r.old) {
                continue;
            }
            let new_value = match quote {
                Some('\'') => format!("'{}'", r.new.replace('\'', "''")),
                Some(_) => format!("\"{}\"", r.new.replace('"', "\\\"")),
                None if !block && needs_quotes(&r.new) => {
                    format!("\"{}\"", r.new.replace('"', "\\\""))
                }
                None => r.new.clone(),
            };
            let line_no = crate::text::line_of(text, offset);
            notes.push(format!(
                "line {line_no}: {k}: “{inner}” becomes “{}”",
                r.new
            ));
            edits.push((offset + token.start..offset + token.end, new_value));
        }
    }
    let mut out = text.to_owned();
    crate::shared_sort::sort_by_key(&mut edits, |(r, _)| std::cmp::Reverse(r.start));
    for (range, new) in edits {
        out.replace_range(range, &new);
    }
    (out, notes)
}

/// The ranges of the scalars in a value: each item of a `[a, b]` list, or
/// the value itself, trimmed and without a trailing comment.
pub(crate) fn scalars(value: &str) -> Vec<Range<usize>> {
    let trimmed_range = |from: usize, s: &str| {
        let lead = s.len() - s.trim_start().len();
        from + lead..from + s.trim_end().len()
    };
    let lead = value.len() - value.trim_start().len();
    let v = &value[lead..];
    if let Some(inner) = v.strip_prefix('[') {
        let Some(close) = inner.rfind(']') else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut from = lead + 1;
        for part in inner[..close].split(',') {
            out.push(trimmed_range(from, part));
            from += part.len() + 1;
        }
        out.retain(|r| !r.is_empty());
        return out;
    }
    let end = v.find(" #").unwrap_or(v.len());
    let r = trimmed_range(lead, &v[..end]);
    if r.is_empty() { Vec::new() } else { vec![r] }
}

/// `|` or `>` with its chomping and indentation indicators, and maybe a
/// comment: the value is the block of lines below.
fn is_block_indicator(value: &str) -> bool {
    let v = value.trim();
    let v = v.split_once(" #").map_or(v, |(v, _)| v.trim_end());
    let mut chars = v.chars();
    matches!(chars.next(), Some('|' | '>'))
        && chars.clone().count() <= 2
        && chars.all(|c| c == '+' || c == '-' || ('1'..='9').contains(&c))
}

/// Does the note, as `text`, still hold a plain value naming a renamed
/// client or domain (one written in a form [`rewrite`] leaves, such as a
/// block over several lines)? Its key and the line the key is on, when it
/// does.
pub(super) fn still_named(
    path: &str,
    folder: Folder,
    text: &str,
    renamed: &[RenamedValue],
) -> Option<(&'static str, usize)> {
    let article = Article::parse(
        path.to_owned(),
        folder,
        crate::text::decode(text.as_bytes()).ok()?,
    );
    let meta = &article.meta;
    meta.clients
        .iter()
        .chain(meta.domains.iter())
        .find_map(|v| {
            (!v.raw.contains("[[")
                && renamed.iter().any(|r| {
                    // A rename that changes only the case leaves a value
                    // that names the note still.
                    let value = fold(normalize_value(&v.raw));
                    r.keys.contains(&v.key) && value == fold(&r.old) && value != fold(&r.new)
                }))
            .then_some(v.key)
        })
        .map(|key| {
            let line = text
                .split_inclusive('\n')
                .position(|l| {
                    l.strip_prefix(key)
                        .is_some_and(|r| r.trim_start().starts_with(':'))
                })
                .map_or(1, |i| i + 1);
            (key, line)
        })
}

/// A plain YAML scalar that would not read back as the same text.
fn needs_quotes(s: &str) -> bool {
    s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.starts_with(|c: char| "!&*{}[]|>'\"%@`,?-#".contains(c))
}
