//! File and folder names that break on other systems (Windows, macOS).

use std::collections::BTreeSet;
use std::hash::Hasher;

use rayon::prelude::*;
use rustc_hash::FxHasher;

use crate::article::split_rel_path;
use crate::bank::{Bank, ProblemKind};
use crate::wikilink::{fold, fold_into};

use super::{Finding, Severity, finding};

/// Every file path the bank knows about, for name checks.
fn all_paths(bank: &Bank) -> Vec<&str> {
    let articles = bank.articles().iter().map(|a| a.rel_path.as_str());
    paths_with(articles, bank)
}

/// The paths of the articles, in bank order, then of the bank's other
/// files.
pub(super) fn paths_with<'a>(
    articles: impl Iterator<Item = &'a str>,
    bank: &'a Bank,
) -> Vec<&'a str> {
    let mut paths: Vec<&str> = articles.collect();
    paths.extend(bank.skipped.iter().map(|s| s.path.as_str()));
    paths.extend(bank.other_files.iter().map(String::as_str));
    paths.extend(bank.templates.iter().map(String::as_str));
    paths.extend(
        bank.problems
            .iter()
            .filter(|p| p.kind == ProblemKind::NotUtf8)
            .map(|p| p.path.as_str()),
    );
    paths
}

pub(super) fn file_name_findings(bank: &Bank, out: &mut Vec<Finding>) {
    findings_of_paths(&all_paths(bank), out);
}

/// The names among `paths` (each file the bank knows, articles first in
/// bank order) that break elsewhere.
pub(super) fn findings_of_paths(paths: &[&str], out: &mut Vec<Finding>) {
    // Each path is read once, on all cores: on a large bank reading a path
    // is a cache miss, and three passes used to read each one again.
    let seen: Vec<Seen> = paths
        .par_iter()
        .map_init(String::new, |folded, &path| {
            // The last `/` found once per path, where each of the three
            // checks looked for it again (four searches a path).
            let (dir, name) = split_rel_path(path);
            Seen {
                case_key: case_key(dir, name, folded),
                bad_name: name_problem(name).is_some(),
                bad_folder: subfolders(dir).any(|(_, seg)| name_problem(seg).is_some()),
            }
        })
        .collect();
    for (&path, _) in paths.iter().zip(&seen).filter(|(_, s)| s.bad_name) {
        if let Some((severity, why)) = name_problem(file_name(path)) {
            out.push(bad_filename(path, severity, why));
        }
    }
    bad_folder_names(
        paths
            .iter()
            .zip(&seen)
            .filter(|(_, s)| s.bad_folder)
            .map(|(&p, _)| p),
        out,
    );
    same_but_for_case(paths, &seen, out);
}

/// What one pass over the paths finds about each: 16 bytes, where the
/// problem's words held 48 for every path (a few megabytes of fresh pages
/// at 100,000 files); the few bad names are put into words again.
struct Seen {
    /// Equal for names that differ only in case in the same folder.
    case_key: u64,
    /// The file's name is a problem.
    bad_name: bool,
    /// A folder on its path below the numbered folder has a bad name.
    bad_folder: bool,
}

fn file_name(path: &str) -> &str {
    split_rel_path(path).1
}

fn dir_of(path: &str) -> &str {
    split_rel_path(path).0
}

/// The folders of `dir` below the numbered folder, each as its path and
/// its own name.
fn subfolders(dir: &str) -> impl Iterator<Item = (&str, &str)> {
    // The numbered folder is fixed; only the ones below it are named (most
    // files sit right in it: no folder below).
    let first = memchr::memchr(b'/', dir.as_bytes());
    let mut prefix_len = first.unwrap_or(dir.len());
    let below = first.map(|slash| &dir[slash + 1..]);
    below
        .into_iter()
        .flat_map(|b| b.split('/'))
        .map(move |seg| {
            let end = prefix_len + 1 + seg.len();
            prefix_len = end;
            (&dir[..end], seg)
        })
}

/// Subfolders below the numbered folders with a bad name, each once, from
/// the paths of the files under them.
fn bad_folder_names<'a>(paths: impl Iterator<Item = &'a str>, out: &mut Vec<Finding>) {
    let mut bad_dirs = BTreeSet::new();
    for path in paths {
        for (dir, seg) in subfolders(dir_of(path)) {
            if name_problem(seg).is_some() {
                bad_dirs.insert(dir);
            }
        }
    }
    for dir in bad_dirs {
        if let Some((severity, why)) = name_problem(file_name(dir)) {
            out.push(bad_filename(dir, severity, why));
        }
    }
}

/// A path's folder and its file name folded, hashed; `folded` is room for
/// the fold, reused from path to path: most names are terms' (`run →
/// rennen.md`), not ASCII, and were folded into a string of their own
/// each, then hashed a byte at a time.
fn case_key(dir: &str, name: &str, folded: &mut String) -> u64 {
    let mut h = FxHasher::default();
    h.write(dir.as_bytes());
    // Never part of UTF-8, so the folder ends where it should.
    h.write_u8(0xFF);
    folded.clear();
    fold_into(name, folded);
    h.write(folded.as_bytes());
    h.finish()
}

/// Files of one folder whose names differ only in case. Only names whose
/// hashes meet are compared.
fn same_but_for_case(paths: &[&str], seen: &[Seen], out: &mut Vec<Finding>) {
    let mut keyed: Vec<(u64, usize)> = seen
        .par_iter()
        .enumerate()
        .map(|(i, s)| (s.case_key, i))
        .collect();
    keyed.par_sort_unstable();
    for run in keyed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        // Indexes ascend within a run, so each group lists its files in
        // the bank's order.
        let mut groups: Vec<((&str, String), Vec<&str>)> = Vec::new();
        for &(_, i) in run {
            let path = paths[i];
            let key = (dir_of(path), fold(file_name(path)));
            match groups.iter_mut().find(|(k, _)| *k == key) {
                Some((_, group)) => group.push(path),
                None => groups.push((key, vec![path])),
            }
        }
        for (_, group) in groups.iter().filter(|(_, g)| g.len() > 1) {
            for &path in group {
                let others: Vec<&str> = group.iter().copied().filter(|&p| p != path).collect();
                out.push(bad_filename(
                    path,
                    Severity::Warning,
                    alike_why(path, &others),
                ));
            }
        }
    }
}

/// Why `path`'s name and those of `others` (in its folder) are one name
/// to Windows and macOS. Names that differ only in how their accented
/// letters are encoded print alike, so each is said to be composed (NFC)
/// or decomposed (NFD), which tells them apart.
fn alike_why(path: &str, others: &[&str]) -> String {
    use unicode_normalization::{UnicodeNormalization, is_nfc};
    let composed = |p: &str| file_name(p).nfc().collect::<String>();
    let form = |p: &str| {
        if is_nfc(file_name(p)) {
            "composed (NFC)"
        } else {
            "decomposed (NFD)"
        }
    };
    if others.iter().all(|o| composed(o) == composed(path)) {
        let listed: Vec<String> = others
            .iter()
            .map(|o| format!("“{o}”, whose accents are {}", form(o)))
            .collect();
        return format!(
            "its name is the same as {} but for how its accented letters are encoded: its own \
             are {}. The names print alike; macOS treats them as the same file, so one \
             overwrites the other when the bank is synced there",
            listed.join(", "),
            form(path)
        );
    }
    let listed: Vec<String> = others.iter().map(|o| format!("“{o}”")).collect();
    format!(
        "its name differs from {} only in upper/lower case. Windows and macOS treat them as the \
         same file, so one overwrites the other when the bank is synced there",
        listed.join(", ")
    )
}

fn bad_filename(path: &str, severity: Severity, why: String) -> Finding {
    finding(
        "bad-filename",
        severity,
        path,
        None,
        format!("This name is a problem: {why}. Rename it."),
    )
}

/// Is every character of `name` a letter, a digit or one of `
/// -_.,()→`? Read a run of ASCII at a time, and a term's `→` without the
/// character tables: most names are terms', and asking the tables whether
/// `→` is a letter was most of the file names' pass.
fn is_plain(name: &str) -> bool {
    let mut rest = name;
    loop {
        let ascii = rest
            .bytes()
            .position(|b| {
                !(b.is_ascii_alphanumeric()
                    || matches!(b, b' ' | b'-' | b'_' | b'.' | b',' | b'(' | b')'))
            })
            .unwrap_or(rest.len());
        let mut chars = rest[ascii..].chars();
        match chars.next() {
            None => return true,
            Some(c) if c == '→' || (!c.is_ascii() && c.is_alphanumeric()) => {
                rest = chars.as_str()
            }
            Some(_) => return false,
        }
    }
}

const NTFS_FORBIDDEN: [char; 8] = ['<', '>', ':', '"', '|', '?', '*', '\\'];

/// What is wrong with one file or folder name, if anything.
pub(super) fn name_problem(name: &str) -> Option<(Severity, String)> {
    // Nearly every name is fine: decide that without allocating.
    let plain = is_plain(name);
    let ends_badly = name.ends_with('.') || name.ends_with(' ');
    let base = device_base(name);
    if plain && !ends_badly {
        // A plain name holds none of the characters the checks below look
        // for (no forbidden one, no control, no U+FFFD) and does not end
        // badly: only a short base can still be a device name.
        return if base.len() > 7 {
            None
        } else {
            device_name_problem(base)
        };
    }
    every_name_problem(name)
}

/// [`name_problem`] with every test made in turn: what the quick answers
/// for a plain name must agree with.
fn every_name_problem(name: &str) -> Option<(Severity, String)> {
    let forbidden: BTreeSet<char> = name
        .chars()
        .filter(|c| NTFS_FORBIDDEN.contains(c))
        .collect();
    if !forbidden.is_empty() {
        let list: Vec<String> = forbidden.iter().map(|c| format!("{c}")).collect();
        return Some((
            Severity::Error,
            format!(
                "it contains {} which Windows does not allow in file names (and the format \
                 forbids), so the bank cannot be copied or synced to Windows",
                list.join(" ")
            ),
        ));
    }
    if name.chars().any(char::is_control) {
        return Some((
            Severity::Error,
            "it contains invisible control characters, which Windows does not allow and which \
             make the name impossible to type"
                .into(),
        ));
    }
    if let Some(c) = crate::text::invisible_in_name(name) {
        return Some((
            Severity::Warning,
            format!(
                "it contains an invisible character (U+{:04X}) that can make it look like \
                 another name (a right-to-left override can disguise its extension), and no \
                 membank command makes or renames to such a name",
                u32::from(c)
            ),
        ));
    }
    if name.contains('\u{FFFD}') {
        return Some((
            Severity::Warning,
            "it is not valid Unicode, so other tools may show or sync it wrongly and no \
             membank command can name it (use a file manager or a shell)"
                .into(),
        ));
    }
    if name.ends_with('.') || name.ends_with(' ') {
        return Some((
            Severity::Warning,
            "it ends with a dot or a space, which Windows silently removes, so links and sync \
             break there"
                .into(),
        ));
    }
    device_name_problem(device_base(name))
}

/// The part of a name a device name would be: what comes before its first
/// dot, without white space at its end. Device names are at most seven
/// bytes of it. Found by a byte search: `split('.')` cost more than the
/// rest of a plain name's test.
fn device_base(name: &str) -> &str {
    name[..memchr::memchr(b'.', name.as_bytes()).unwrap_or(name.len())].trim_end()
}

/// A name whose part before its first dot, `base`, is a Windows device's.
fn device_name_problem(base: &str) -> Option<(Severity, String)> {
    crate::pathsafe::DEVICE_NAMES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(base))
        .then(|| {
            (
                Severity::Warning,
                format!(
                    "{base} is a reserved device name on Windows, so the file cannot exist there"
                ),
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `café.md` composed and decomposed print alike: the finding says
    /// which is which, and does not call it a difference of case.
    #[test]
    fn names_alike_but_for_their_accents_encoding_say_which_is_which() {
        let composed = "03_DOMAINS/caf\u{e9}.md";
        let decomposed = "03_DOMAINS/cafe\u{301}.md";
        let mut found = Vec::new();
        findings_of_paths(&[composed, decomposed, "03_DOMAINS/Law.md"], &mut found);
        assert_eq!(found.len(), 2, "{found:?}");
        for f in &found {
            let message = f.message();
            assert!(!message.contains("upper/lower"), "{message}");
            let (own, other) = if &*f.path == composed {
                ("composed (NFC)", "decomposed (NFD)")
            } else {
                ("decomposed (NFD)", "composed (NFC)")
            };
            assert!(
                message.contains(&format!("its own are {own}"))
                    && message.contains(&format!("whose accents are {other}")),
                "{message}"
            );
        }
        let mut found = Vec::new();
        findings_of_paths(&["03_DOMAINS/Law.md", "03_DOMAINS/law.md"], &mut found);
        assert!(found[0].message().contains("only in upper/lower case"));
    }

    /// A name is plain as reading it a character at a time says, for every
    /// ASCII character and others (letters, digits, marks, spaces, `→` and
    /// its neighbours) alone and joined.
    #[test]
    fn a_plain_name_is_what_every_character_says() {
        let by_char = |name: &str| {
            name.chars().all(|c| {
                c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ',' | '(' | ')' | '→')
            })
        };
        let pieces: Vec<String> = (0..128u8)
            .map(|b| char::from(b).to_string())
            .chain(
                [
                    "→",
                    "←",
                    "⇒",
                    "é",
                    "e\u{301}",
                    "\u{301}",
                    "Ω",
                    "٣",
                    "Ⅻ",
                    "\u{a0}",
                    "\u{2003}",
                    "😀",
                    "한",
                    "\u{fffd}",
                    "run → rennen",
                    "Ñandú, (zoölogy)",
                ]
                .map(str::to_owned),
            )
            .collect();
        for a in &pieces {
            for b in &pieces {
                let name = format!("{a}x{b}");
                assert_eq!(is_plain(&name), by_char(&name), "{name:?}");
                assert_eq!(is_plain(a), by_char(a), "{a:?}");
            }
        }
        assert!(is_plain(""));
    }

    /// The quick answer for a plain name is the one every test in turn
    /// gives: device names in both cases, with extensions, dots and
    /// spaces, short and long bases, forbidden and control characters,
    /// U+FFFD, `→` and other non-ASCII letters.
    #[test]
    fn a_plain_names_problem_is_found_as_by_every_test() {
        let pieces = [
            "CON", "con", "Nul", "COM1", "lpt9", "AUX", "prn", ".", "..", " ", "x", "abcdefg",
            "md", "COM¹", "→", "é", "\u{a0}", "\u{fffd}", ":", "?", "\u{7}", "-", "(", ",",
            "ab.cd",
        ];
        let names = crate::random_text::joined(&pieces, 4, 0x9E37_79B9_7F4A_7C15).take(30_000);
        for name in names.chain(pieces.iter().map(|p| (*p).to_owned())) {
            assert_eq!(name_problem(&name), every_name_problem(&name), "{name:?}");
            let by_split = name.split('.').next().unwrap_or(&name).trim_end();
            assert_eq!(device_base(&name), by_split, "{name:?}");
        }
        assert!(name_problem("con.md").is_some());
        assert!(name_problem("Legal").is_none());
    }

    #[test]
    fn an_invisible_character_in_a_name_is_named_but_an_emoji_joiner_is_not() {
        let (severity, why) = name_problem("invoice\u{202E}fdp.md").unwrap();
        assert_eq!(severity, Severity::Warning);
        assert!(why.contains("U+202E"), "{why}");
        assert!(name_problem("Ac\u{200B}me.md").is_some());
        assert_eq!(name_problem("Family 👨\u{200D}👩\u{200D}👧.md"), None);
    }

    /// A path split once at its last `/` reads as the splits by character
    /// did, and the folders below the numbered one are the same: at the
    /// root, deep down, with empty segments, non-ASCII names and slashes at
    /// either end.
    #[test]
    fn a_path_splits_as_its_characters_say() {
        let old_subfolders = |dir: &str| -> Vec<(String, String)> {
            let mut prefix_len = dir.find('/').unwrap_or(dir.len());
            dir.split('/')
                .skip(1)
                .map(|seg| {
                    let end = prefix_len + 1 + seg.len();
                    prefix_len = end;
                    (dir[..end].to_owned(), seg.to_owned())
                })
                .collect()
        };
        let pieces = [
            "/",
            "a",
            "02_TERMINOLOGY",
            "run → rennen.md",
            "é",
            "日本",
            "",
            ".md",
        ];
        for path in crate::random_text::joined(&pieces, 7, 0x2545_F491_4F6C_DD1D).take(5_000) {
            let (dir, name) = split_rel_path(&path);
            assert_eq!(name, path.rsplit_once('/').map_or(&*path, |(_, n)| n));
            assert_eq!(dir, path.rsplit_once('/').map_or("", |(d, _)| d));
            let new: Vec<(String, String)> = subfolders(dir)
                .map(|(d, s)| (d.to_owned(), s.to_owned()))
                .collect();
            assert_eq!(new, old_subfolders(dir), "{path:?}");
        }
    }

    /// Files of one folder are named as twins exactly when their names
    /// fold the same, whatever the fold's way through the name (ASCII,
    /// a term's arrow, accents, `Σ`, the Kelvin sign), and each lists the
    /// others in the order given; files of other folders never meet.
    #[test]
    fn case_twins_are_the_names_that_fold_the_same() {
        let names = [
            "run → rennen.md",
            "Run → Rennen.md",
            "RUN → RENNEN.md",
            "run → rennen .md",
            "ÄRGER.md",
            "ärger.md",
            "ärgeR.md",
            "ΟΔΟΣ.md",
            "οδος.md",
            "οδοσ.md",
            "\u{212A}elvin.md",
            "kelvin.md",
            "Legal.md",
            "legal.md",
            "Legal.MD",
            "unique.md",
        ];
        let mut paths: Vec<String> = Vec::new();
        for dir in ["02_TERMINOLOGY", "03_DOMAINS/sub", "03_DOMAINS/Sub"] {
            for (i, name) in names.iter().enumerate() {
                // A different set of twins in each folder.
                if (i + dir.len()) % 3 != 0 {
                    paths.push(format!("{dir}/{name}"));
                }
            }
        }
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let mut found = Vec::new();
        findings_of_paths(&paths, &mut found);
        let mut found: Vec<(String, String)> = found
            .iter()
            .map(|f| (f.path.to_string(), f.message().into_owned()))
            .collect();
        found.sort();
        let mut want = Vec::new();
        for &path in &paths {
            let twin = |p: &&&str| {
                **p != path
                    && dir_of(p) == dir_of(path)
                    && fold(file_name(p)) == fold(file_name(path))
            };
            let others: Vec<&str> = paths.iter().filter(twin).copied().collect();
            if !others.is_empty() {
                let finding = bad_filename(path, Severity::Warning, alike_why(path, &others));
                want.push((path.to_owned(), finding.message().into_owned()));
            }
        }
        want.sort();
        assert!(want.len() > 10, "{want:?}");
        assert_eq!(found, want);
    }
}
