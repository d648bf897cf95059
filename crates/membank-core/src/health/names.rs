//! File and folder names that break on other systems (Windows, macOS).

use std::collections::BTreeSet;
use std::hash::Hasher;

use rayon::prelude::*;
use rustc_hash::FxHasher;

use crate::bank::{Bank, ProblemKind};
use crate::wikilink::{fold, hash_folded};

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
        .map(|&path| Seen {
            case_key: case_key(path),
            name: name_problem(file_name(path)),
            bad_folder: subfolders(dir_of(path)).any(|(_, seg)| name_problem(seg).is_some()),
        })
        .collect();
    for (&path, seen) in paths.iter().zip(&seen) {
        if let Some((severity, why)) = &seen.name {
            out.push(bad_filename(path, *severity, why.clone()));
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

/// What one pass over the paths finds about each.
struct Seen {
    /// Equal for names that differ only in case in the same folder.
    case_key: u64,
    /// What is wrong with the file's name.
    name: Option<(Severity, String)>,
    /// A folder on its path below the numbered folder has a bad name.
    bad_folder: bool,
}

fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The folders of `dir` below the numbered folder, each as its path and
/// its own name.
fn subfolders(dir: &str) -> impl Iterator<Item = (&str, &str)> {
    // The numbered folder is fixed; only the ones below it are named.
    let mut prefix_len = dir.find('/').unwrap_or(dir.len());
    dir.split('/').skip(1).map(move |seg| {
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

/// A path's folder and its file name folded, hashed without building the
/// folded string.
fn case_key(path: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(dir_of(path).as_bytes());
    // Never part of UTF-8, so the folder ends where it should.
    h.write_u8(0xFF);
    hash_folded(file_name(path), &mut h);
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
                let others: Vec<String> = group
                    .iter()
                    .filter(|&&p| p != path)
                    .map(|p| format!("“{p}”"))
                    .collect();
                out.push(bad_filename(
                    path,
                    Severity::Warning,
                    format!(
                        "its name differs from {} only in upper/lower case. Windows and macOS \
                         treat them as the same file, so one overwrites the other when the bank \
                         is synced there",
                        others.join(", ")
                    ),
                ));
            }
        }
    }
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

const NTFS_FORBIDDEN: [char; 8] = ['<', '>', ':', '"', '|', '?', '*', '\\'];

/// What is wrong with one file or folder name, if anything.
pub(super) fn name_problem(name: &str) -> Option<(Severity, String)> {
    // Nearly every name is fine: decide that without allocating.
    let plain = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.' | ',' | '(' | ')' | '→'));
    let ends_badly = name.ends_with('.') || name.ends_with(' ');
    // Device names are at most seven bytes before the first dot.
    let long_base = name
        .split('.')
        .next()
        .is_some_and(|b| b.trim_end().len() > 7);
    if plain && !ends_badly && long_base {
        return None;
    }
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
    if name.contains('\u{FFFD}') {
        return Some((
            Severity::Warning,
            "it is not valid Unicode, so other tools may show or sync it wrongly".into(),
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
    let base = name.split('.').next().unwrap_or(name).trim_end();
    if crate::pathsafe::DEVICE_NAMES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(base))
    {
        return Some((
            Severity::Warning,
            format!("{base} is a reserved device name on Windows, so the file cannot exist there"),
        ));
    }
    None
}
