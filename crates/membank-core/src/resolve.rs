//! Where a link points, decided the way Obsidian decides it (spec §6 is the
//! floor: case is ignored, the alias after `|` is not part of the name).
//!
//! - `Name` names a note (`Name.md`); a name with another extension
//!   (`diagram.png`, `report.pdf`) names that file. Any file in the bank
//!   can be a target, not only articles.
//! - `./Name` and `../folder/Name` are relative to the linking note.
//! - Other paths are tried from the bank root, then relative to the linking
//!   note's folder, then as a path suffix (`legal/contract` finds
//!   `03_DOMAINS/legal/contract.md`).
//! - When several files match, the one in the linking note's folder wins,
//!   otherwise the shortest path.

use std::hash::BuildHasher;

use rayon::prelude::*;

use crate::wikilink::fold;

/// A file a link can reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileRef {
    Article(usize),
    /// Index into the bank's list of other files (attachments, skipped
    /// `_` files, templates, unreadable files).
    Other(usize),
}

#[derive(Debug, Default)]
pub struct LinkIndex {
    /// (folded path, file) for every file, sorted by folded file name
    /// (with extension), then shortest path first. One sorted array, no
    /// map: on a large bank a map of names held a string and a list per
    /// file, more memory than the paths themselves.
    files: Vec<(Box<str>, FileRef)>,
    /// Where each file's name starts in its path, so a lookup compares
    /// names without searching each path for its last `/`.
    name_starts: Vec<u32>,
    /// For each distinct name, its hash and where its files start in
    /// `files`, sorted by hash: a lookup searches these packed numbers
    /// instead of following a pointer to a path at every step.
    name_hashes: Vec<(u64, u32)>,
    /// Seeded per process, so a bank's names cannot be chosen to collide.
    hasher: foldhash::fast::RandomState,
}

/// The last segment of a folded path.
fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl LinkIndex {
    /// `files` are bank-relative `/`-separated paths.
    pub fn build<'a>(files: impl Iterator<Item = (&'a str, FileRef)>) -> LinkIndex {
        // Folding and sorting 100,000 paths is a good part of loading a
        // large bank: both run on all cores.
        let given: Vec<(&str, FileRef)> = files.collect();
        let mut files: Vec<(Box<str>, FileRef)> = given
            .into_par_iter()
            .map(|(path, file)| (fold(path).into_boxed_str(), file))
            .collect();
        // Stable: files whose paths differ only in case keep the order given.
        files.par_sort_by(|a, b| {
            (name_of(&a.0), a.0.len(), &a.0).cmp(&(name_of(&b.0), b.0.len(), &b.0))
        });
        let name_starts: Vec<u32> = files
            .iter()
            .map(|(p, _)| u32::try_from(p.len() - name_of(p).len()).unwrap_or(0))
            .collect();
        let hasher = foldhash::fast::RandomState::default();
        let mut name_hashes: Vec<(u64, u32)> = (0..files.len())
            .filter(|&i| i == 0 || name_of(&files[i].0) != name_of(&files[i - 1].0))
            .map(|i| (hasher.hash_one(name_of(&files[i].0)), i as u32))
            .collect();
        name_hashes.par_sort_unstable();
        LinkIndex {
            files,
            name_starts,
            name_hashes,
            hasher,
        }
    }

    fn name_at(&self, i: usize) -> &str {
        let path = &self.files[i].0;
        path.get(self.name_starts[i] as usize..).unwrap_or(path)
    }

    /// The files whose folded name is `name`, shortest path first.
    fn named(&self, name: &str) -> &[(Box<str>, FileRef)] {
        let hash = self.hasher.hash_one(name);
        let first = self.name_hashes.partition_point(|&(h, _)| h < hash);
        let start = self.name_hashes[first..]
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, start)| start as usize)
            .find(|&start| self.name_at(start) == name);
        let Some(lo) = start else {
            return &[];
        };
        let mut end = lo;
        while end < self.files.len() && self.name_at(end) == name {
            end += 1;
        }
        &self.files[lo..end]
    }

    /// Every file `target` may mean, best first (the first is the one the
    /// link opens), as seen from the note at `from` (a bank-relative path;
    /// `None` resolves from the bank root). Empty for a dead link.
    pub fn resolve(&self, target: &str, from: Option<&str>) -> Vec<FileRef> {
        let target = target.trim();
        // Folded only for the few links that need the folder.
        let from_dir = FromDir {
            raw: from.map(|f| f.rsplit_once('/').map_or("", |(dir, _)| dir)),
            folded: std::cell::OnceCell::new(),
        };
        let explicit_relative = target.starts_with("./")
            || target.starts_with("../")
            || target == "."
            || target == "..";
        let folded = fold(target.trim_start_matches('/'));
        if folded.is_empty() || folded.ends_with('/') {
            return Vec::new();
        }
        // Without an extension a link names a note; with one it may still
        // name a note whose name has a dot in it.
        let note = format!("{folded}.md");
        let found = self.resolve_exact(&note, &from_dir, explicit_relative);
        if !found.is_empty() {
            return found;
        }
        self.resolve_exact(&folded, &from_dir, explicit_relative)
    }

    fn resolve_exact(
        &self,
        wanted: &str,
        from_dir: &FromDir<'_>,
        relative_only: bool,
    ) -> Vec<FileRef> {
        let name = wanted.rsplit('/').next().unwrap_or(wanted);
        let candidates = self.named(name);
        if candidates.is_empty() {
            return Vec::new();
        }
        let is_path = wanted.contains('/');
        // Only a relative link or a path needs the joined path; most links
        // are bare names, resolved by the tens of thousands on loading.
        let relative = if relative_only || is_path {
            from_dir.folded().and_then(|dir| join(dir, wanted))
        } else {
            None
        };
        if relative_only {
            let Some(path) = relative else {
                return Vec::new();
            };
            return match candidates.iter().find(|(p, _)| **p == *path) {
                Some(&(_, f)) => vec![f],
                None => Vec::new(),
            };
        }
        // A bare name is matched against every file of that name, even when
        // one sits next to the linking note, so that a name several files
        // share is reported as ambiguous.
        let exact = |path: &str| candidates.iter().find(|(p, _)| **p == *path);
        if let Some(&(_, f)) = exact(wanted)
            .filter(|_| is_path)
            .or_else(|| relative.as_deref().filter(|_| is_path).and_then(exact))
        {
            return vec![f];
        }
        // Ends with "/{wanted}", without building that string per link.
        let under_a_folder = |p: &str| {
            p.strip_suffix(wanted)
                .is_some_and(|rest| rest.ends_with('/'))
        };
        let mut matches: Vec<&(Box<str>, FileRef)> = candidates
            .iter()
            .filter(|(p, _)| under_a_folder(p))
            .collect();
        if matches.len() > 1
            && let Some(dir) = from_dir.folded()
        {
            // A note in the linking note's own folder comes first.
            let in_dir = |p: &str| p.rsplit_once('/').is_some_and(|(d, _)| d == dir);
            if let Some(i) = matches.iter().position(|(p, _)| in_dir(p)) {
                let own = matches.remove(i);
                matches.insert(0, own);
            }
        }
        matches.into_iter().map(|&(_, f)| f).collect()
    }
}

/// The folder of the linking note, folded when first asked for.
struct FromDir<'a> {
    raw: Option<&'a str>,
    folded: std::cell::OnceCell<Option<String>>,
}

impl FromDir<'_> {
    fn folded(&self) -> Option<&str> {
        self.folded.get_or_init(|| self.raw.map(fold)).as_deref()
    }
}

/// `dir/rel` with `.` and `..` applied; `None` when it climbs above the
/// bank root.
fn join(dir: &str, rel: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(paths: &[&str]) -> LinkIndex {
        LinkIndex::build(
            paths
                .iter()
                .enumerate()
                .map(|(i, p)| (*p, FileRef::Article(i))),
        )
    }

    fn first(ix: &LinkIndex, target: &str, from: &str) -> Option<usize> {
        ix.resolve(target, Some(from)).first().map(|f| match *f {
            FileRef::Article(i) | FileRef::Other(i) => i,
        })
    }

    #[test]
    fn relative_paths_climb_from_the_linking_note() {
        let ix = index(&[
            "03_DOMAINS/Legal.md",
            "03_DOMAINS/Finance.md",
            "01_CLIENTS/Acme.md",
        ]);
        assert_eq!(
            first(&ix, "../03_DOMAINS/Legal", "01_CLIENTS/Acme.md"),
            Some(0)
        );
        assert_eq!(first(&ix, "./Finance", "03_DOMAINS/Legal.md"), Some(1));
        assert_eq!(first(&ix, "./Finance", "01_CLIENTS/Acme.md"), None);
        assert_eq!(first(&ix, "../../Legal", "01_CLIENTS/Acme.md"), None);
    }

    #[test]
    fn path_suffix_prefers_the_shortest_match() {
        let ix = index(&[
            "03_DOMAINS/archive/old/legal/contract.md",
            "03_DOMAINS/legal/contract.md",
        ]);
        assert_eq!(first(&ix, "legal/contract", "01_CLIENTS/Acme.md"), Some(1));
        assert_eq!(
            first(&ix, "Legal/Contract.md", "01_CLIENTS/Acme.md"),
            Some(1)
        );
        assert_eq!(first(&ix, "egal/contract", "01_CLIENTS/Acme.md"), None);
    }

    #[test]
    fn the_linking_notes_folder_wins_then_the_shortest_path() {
        let ix = index(&["04_STYLE/Legal.md", "03_DOMAINS/sub/Legal.md"]);
        assert_eq!(first(&ix, "Legal", "03_DOMAINS/sub/Tax.md"), Some(1));
        assert_eq!(first(&ix, "Legal", "01_CLIENTS/Acme.md"), Some(0));
    }

    #[test]
    fn attachments_need_their_extension() {
        let ix = index(&["03_DOMAINS/img/diagram.png", "03_DOMAINS/diagram.md"]);
        assert_eq!(first(&ix, "diagram.png", "01_CLIENTS/Acme.md"), Some(0));
        assert_eq!(first(&ix, "diagram", "01_CLIENTS/Acme.md"), Some(1));
        assert_eq!(first(&ix, "img/Diagram.PNG", "01_CLIENTS/Acme.md"), Some(0));
    }
}
