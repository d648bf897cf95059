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

use crate::wikilink::{fold, fold_into};

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
    /// Every file's folded path, one after another in the order of
    /// `files`: one string, where a string per file was as many
    /// allocations as the bank has files.
    paths: String,
    /// Every file, sorted by folded file name (with extension), then
    /// shortest path first. One sorted array, no map: on a large bank a map
    /// of names held a string and a list per file, more memory than the
    /// paths themselves.
    files: Vec<Named>,
    /// Where each distinct name's files start in `files`, in an
    /// open-addressed table by the name's hash (a power of two long, at
    /// most half full, `EMPTY` where no name is): a lookup is one or two
    /// probes, each a name to compare, where a binary search missed the
    /// cache at every step, for each of the hundreds of thousands of links
    /// resolved on loading. Four bytes a slot: a slot holding the hash and
    /// the files' range took 16, most of the index's table. A name's files
    /// end where the next name starts: the files after its first are read
    /// from the same stretch of memory, where a separate array of where
    /// each name starts was one more place to miss the cache per link.
    name_slots: Vec<u32>,
    /// Seeded per process, so a bank's names cannot be chosen to collide.
    hasher: foldhash::fast::RandomState,
}

/// A file a link can reach: its folded path is `paths[start..end]`, its
/// name `paths[name_start..end]`. Offsets are 32-bit: the paths of a bank
/// that fits in memory are far from 4 GB together.
#[derive(Debug, Clone, Copy)]
struct Named {
    start: u32,
    name_start: u32,
    end: u32,
    file: PackedRef,
}

/// A [`FileRef`] in four bytes: the top bit set for `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PackedRef(u32);

const OTHER_BIT: u32 = 1 << 31;

impl PackedRef {
    /// `None` for an index no bank that fits in memory reaches.
    fn of(file: FileRef) -> Option<PackedRef> {
        let (i, bit) = match file {
            FileRef::Article(i) => (i, 0),
            FileRef::Other(i) => (i, OTHER_BIT),
        };
        let i = u32::try_from(i).ok().filter(|i| i & OTHER_BIT == 0)?;
        Some(PackedRef(i | bit))
    }

    fn get(self) -> FileRef {
        let i = (self.0 & !OTHER_BIT) as usize;
        if self.0 & OTHER_BIT == 0 {
            FileRef::Article(i)
        } else {
            FileRef::Other(i)
        }
    }
}

/// A free slot of the name table: no bank has `u32::MAX` names.
const EMPTY: u32 = u32::MAX;

/// The last segment of a folded path.
fn name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl LinkIndex {
    /// Bytes held on the heap, for measuring what a bank costs.
    pub fn heap_bytes(&self) -> usize {
        self.paths.capacity()
            + self.files.capacity() * size_of::<Named>()
            + self.name_slots.capacity() * size_of::<u32>()
    }

    /// `files` are bank-relative `/`-separated paths.
    pub fn build<'a>(files: impl Iterator<Item = (&'a str, FileRef)>) -> LinkIndex {
        // Folding and sorting 100,000 paths is a good part of loading a
        // large bank: both run on all cores.
        // (A small bank's, on this thread: see `parallel`.)
        let given: Vec<(&str, FileRef)> = files.collect();
        let parallel = crate::parallel::pays(given.len());
        // Folded one string per file, sorted, then written one after
        // another into one string and let go.
        let named = |(path, file): (&str, FileRef)| {
            let path = fold(path).into_boxed_str();
            let name_start = path.len() - name_of(&path).len();
            (path, name_start, file)
        };
        let mut folded: Vec<(Box<str>, usize, FileRef)> = if parallel {
            given.into_par_iter().map(named).collect()
        } else {
            given.into_iter().map(named).collect()
        };
        // Stable: files whose paths differ only in case keep the order given.
        let order = |(a, a_name, _): &(Box<str>, usize, FileRef),
                     (b, b_name, _): &(Box<str>, usize, FileRef)| {
            (&a[*a_name..], a.len(), a).cmp(&(&b[*b_name..], b.len(), b))
        };
        if parallel {
            folded.par_sort_by(order);
        } else {
            folded.sort_by(order);
        }
        let mut paths = String::with_capacity(folded.iter().map(|(p, ..)| p.len()).sum());
        let mut files = Vec::with_capacity(folded.len());
        for (path, name_start, file) in folded {
            let start = paths.len();
            paths.push_str(&path);
            let offsets = (
                u32::try_from(start),
                u32::try_from(start + name_start),
                u32::try_from(paths.len()),
            );
            // A file past what the offsets reach is left out (no link
            // finds it) rather than found under a wrong path.
            if let ((Ok(start), Ok(name_start), Ok(end)), Some(file)) =
                (offsets, PackedRef::of(file))
            {
                files.push(Named {
                    start,
                    name_start,
                    end,
                    file,
                });
            }
        }
        let hasher = foldhash::fast::RandomState::default();
        let name = |n: &Named| name_in(&paths, n);
        let first_of_name = |&i: &usize| i == 0 || name(&files[i]) != name(&files[i - 1]);
        let firsts: Vec<u32> = if parallel {
            (0..files.len())
                .into_par_iter()
                .filter(first_of_name)
                .map(|i| i as u32)
                .collect()
        } else {
            (0..files.len())
                .filter(first_of_name)
                .map(|i| i as u32)
                .collect()
        };
        let names = firsts.len();
        let mut name_slots = vec![EMPTY; (names * 2).next_power_of_two().max(2)];
        let mask = name_slots.len() - 1;
        for &start in &firsts {
            let hash = hasher.hash_one(name(&files[start as usize]));
            let mut slot = hash as usize & mask;
            while name_slots[slot] != EMPTY {
                slot = (slot + 1) & mask;
            }
            name_slots[slot] = start;
        }
        LinkIndex {
            paths,
            files,
            name_slots,
            hasher,
        }
    }

    /// The files whose folded name is `name`, shortest path first.
    fn named(&self, name: &str) -> &[Named] {
        if self.name_slots.is_empty() {
            return &[];
        }
        let hash = self.hasher.hash_one(name);
        let mask = self.name_slots.len() - 1;
        let mut slot = hash as usize & mask;
        let named = |f: &Named| name_in(&self.paths, f) == name;
        loop {
            let start = self.name_slots[slot];
            if start == EMPTY {
                return &[];
            }
            let files = self.files.get(start as usize..).unwrap_or(&[]);
            if files.first().is_some_and(named) {
                let len = 1 + files[1..].iter().take_while(|f| named(f)).count();
                return &files[..len];
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Every file `target` may mean, best first (the first is the one the
    /// link opens), as seen from the note at `from` (a bank-relative path;
    /// `None` resolves from the bank root). Empty for a dead link.
    #[cfg(test)]
    pub fn resolve(&self, target: &str, from: Option<&str>) -> Vec<FileRef> {
        let mut found = Vec::new();
        self.resolve_into(target, from, &mut found);
        found
    }

    /// [`LinkIndex::resolve`] into `found` (cleared first), reusing its
    /// room and a per-thread buffer for the folded name: loading resolves
    /// every link of the bank, and most resolve to one file.
    pub fn resolve_into(&self, target: &str, from: Option<&str>, found: &mut Vec<FileRef>) {
        thread_local! {
            static WANTED: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
        }
        found.clear();
        let target = target.trim();
        // Found and folded only for the few links that need the folder.
        let from_dir = FromDir {
            from,
            folded: std::cell::OnceCell::new(),
        };
        let explicit_relative = target.starts_with("./")
            || target.starts_with("../")
            || target == "."
            || target == "..";
        WANTED.with_borrow_mut(|wanted| {
            wanted.clear();
            fold_into(target.trim_start_matches('/'), wanted);
            if wanted.is_empty() || wanted.ends_with('/') {
                return;
            }
            // Without an extension a link names a note; with one it may
            // still name a note whose name has a dot in it.
            let folded_len = wanted.len();
            wanted.push_str(".md");
            self.resolve_exact(wanted, &from_dir, explicit_relative, found);
            if found.is_empty() {
                self.resolve_exact(&wanted[..folded_len], &from_dir, explicit_relative, found);
            }
        });
    }

    fn resolve_exact(
        &self,
        wanted: &str,
        from_dir: &FromDir<'_>,
        relative_only: bool,
        found: &mut Vec<FileRef>,
    ) {
        let (is_path, name) = match wanted.rfind('/') {
            Some(slash) => (true, &wanted[slash + 1..]),
            None => (false, wanted),
        };
        let candidates = self.named(name);
        if candidates.is_empty() {
            return;
        }
        let path = |c: &Named| path_in(&self.paths, c);
        // Only a relative link or a path needs the joined path; most links
        // are bare names, resolved by the tens of thousands on loading.
        let relative = if relative_only || is_path {
            from_dir.folded().and_then(|dir| join(dir, wanted))
        } else {
            None
        };
        if relative_only {
            if let Some(relative) = relative.as_deref()
                && let Some(c) = candidates.iter().find(|c| path(c) == relative)
            {
                found.push(c.file.get());
            }
            return;
        }
        // A bare name is matched against every file of that name, even when
        // one sits next to the linking note, so that a name several files
        // share is reported as ambiguous.
        let exact = |wanted: &str| candidates.iter().find(|c| path(c) == wanted);
        if let Some(c) = exact(wanted)
            .filter(|_| is_path)
            .or_else(|| relative.as_deref().filter(|_| is_path).and_then(exact))
        {
            found.push(c.file.get());
            return;
        }
        // Ends with "/{wanted}", without building that string per link. A
        // bare name is every candidate's name, so only a candidate at the
        // bank root (no folder before its name) does not end so: most
        // links are bare names, and their candidates' text is not read again.
        let under_a_folder = |c: &Named| {
            if is_path {
                path(c)
                    .strip_suffix(wanted)
                    .is_some_and(|rest| rest.ends_with('/'))
            } else {
                c.name_start > c.start
            }
        };
        let matches = || candidates.iter().filter(|c| under_a_folder(c));
        found.extend(matches().map(|c| c.file.get()));
        if found.len() > 1
            && let Some(dir) = from_dir.folded()
        {
            // A note in the linking note's own folder comes first.
            let in_dir = |p: &str| p.rsplit_once('/').is_some_and(|(d, _)| d == dir);
            if let Some(i) = matches().position(|c| in_dir(path(c))) {
                found[..=i].rotate_right(1);
            }
        }
    }
}

/// The folded path of `file`.
fn path_in<'a>(paths: &'a str, file: &Named) -> &'a str {
    paths
        .get(file.start as usize..file.end as usize)
        .unwrap_or("")
}

/// The folded name of `file`.
fn name_in<'a>(paths: &'a str, file: &Named) -> &'a str {
    paths
        .get(file.name_start as usize..file.end as usize)
        .unwrap_or("")
}

/// The folder of the linking note, folded when first asked for.
struct FromDir<'a> {
    /// The linking note's path.
    from: Option<&'a str>,
    folded: std::cell::OnceCell<Option<String>>,
}

impl FromDir<'_> {
    fn folded(&self) -> Option<&str> {
        self.folded
            .get_or_init(|| {
                self.from
                    .map(|f| fold(f.rsplit_once('/').map_or("", |(dir, _)| dir)))
            })
            .as_deref()
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
    fn every_name_finds_its_files_and_no_other() {
        // Thousands of names, many shared by several files (in any case),
        // so the table's probes pass over names that are not the one
        // looked for: each name finds exactly the files of that name,
        // shortest path first, and a name no file has finds none.
        let mut paths = Vec::new();
        for i in 0..3000 {
            paths.push(format!("03_DOMAINS/d{}/Name {}.md", i % 7, i / 3));
        }
        paths.push("04_STYLE/x/y/Name 5.md".to_owned());
        paths.push("04_STYLE/NAME 5.md".to_owned());
        let ix = index(&paths.iter().map(String::as_str).collect::<Vec<_>>());
        for n in 0..1000 {
            let name = format!("name {n}.md");
            let mut want: Vec<(usize, usize)> = paths
                .iter()
                .enumerate()
                .filter(|(_, p)| fold(p).rsplit('/').next() == Some(name.as_str()))
                .map(|(i, p)| (p.len(), i))
                .collect();
            want.sort();
            let got: Vec<(usize, usize)> = ix
                .named(&name)
                .iter()
                .map(|f| match f.file.get() {
                    FileRef::Article(i) | FileRef::Other(i) => (paths[i].len(), i),
                })
                .collect();
            let mut sorted = got.clone();
            sorted.sort();
            assert_eq!(sorted, want, "{name}");
            assert!(got.windows(2).all(|w| w[0].0 <= w[1].0), "{name}");
        }
        for missing in ["name 1000.md", "name 5", "", "name 1.md.md"] {
            assert!(ix.named(missing).is_empty(), "{missing}");
        }
        assert!(LinkIndex::default().named("name 1.md").is_empty());
    }

    /// A bare name reaches every file of that name under a folder, but not
    /// one at the bank root (only a path from the root names that), in
    /// any case and with a name that is not ASCII; a path still reaches
    /// the root's file. The linking note's folder comes first.
    #[test]
    fn a_bare_name_reaches_files_under_folders_only() {
        let ix = index(&[
            "Read Me.md",
            "01_CLIENTS/read me.md",
            "03_DOMAINS/a/READ ME.md",
            "02_TERMINOLOGY/run → rennen.md",
            "run → rennen.md",
        ]);
        let all = |target: &str, from: &str| -> Vec<usize> {
            ix.resolve(target, Some(from))
                .iter()
                .map(|f| match *f {
                    FileRef::Article(i) | FileRef::Other(i) => i,
                })
                .collect()
        };
        assert_eq!(all("Read me", "04_STYLE/x.md"), vec![1, 2]);
        assert_eq!(all("read me", "03_DOMAINS/a/x.md"), vec![2, 1]);
        assert_eq!(all("Run → Rennen", "04_STYLE/x.md"), vec![3]);
        assert_eq!(all("/Read Me", "04_STYLE/x.md"), vec![1, 2]);
        assert_eq!(all("../Read Me", "04_STYLE/x.md"), vec![0]);
        assert_eq!(all("a/read me", "04_STYLE/x.md"), vec![2]);
    }

    #[test]
    fn attachments_need_their_extension() {
        let ix = index(&["03_DOMAINS/img/diagram.png", "03_DOMAINS/diagram.md"]);
        assert_eq!(first(&ix, "diagram.png", "01_CLIENTS/Acme.md"), Some(0));
        assert_eq!(first(&ix, "diagram", "01_CLIENTS/Acme.md"), Some(1));
        assert_eq!(first(&ix, "img/Diagram.PNG", "01_CLIENTS/Acme.md"), Some(0));
    }
}
