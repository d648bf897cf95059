//! Where a link points, decided the way Obsidian decides it (spec §6 is the
//! floor: case is ignored, the alias after `|` is not part of the name).
//!
//! - `Name` names a note (`Name.md`); a name with another extension
//!   (`diagram.png`, `report.pdf`) names that file, before a note
//!   `diagram.png.md`. Any file in the bank
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
// The last segment of a folded path.
use crate::article::file_name_of as name_of;

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
    /// resolved on loading. A name's files end where the next name starts:
    /// the files after its first are read from the same stretch of memory,
    /// where a separate array of where each name starts was one more place
    /// to miss the cache per link.
    name_slots: Vec<NameSlot>,
    /// Seeded per process, so a bank's names cannot be chosen to collide.
    hasher: foldhash::fast::RandomState,
}

/// A name's place in the table: its first file, and where the name's text
/// starts in `paths`. With both in the slot, the name is compared and its
/// files read at once: a slot holding only the first file made its text
/// wait for the file's record, three reads one after another per link,
/// each likely a miss in tables of megabytes.
#[derive(Debug, Clone, Copy)]
struct NameSlot {
    first: u32,
    name_start: u32,
}

const EMPTY_SLOT: NameSlot = NameSlot {
    first: EMPTY,
    name_start: 0,
};

/// A file a link can reach: its folded path is `paths[start..end]`, its
/// name `paths[name_start..end]`. Offsets are 31-bit: the paths of a bank
/// that fits in memory are far from 2 GB together.
#[derive(Debug, Clone, Copy)]
struct Named {
    start: u32,
    name_start: u32,
    /// The end, and `SAME_NAME` when the file before this one has the same
    /// name: a name's files are counted without reading their text, which
    /// lies far apart.
    end_and_same: u32,
    file: PackedRef,
}

const SAME_NAME: u32 = 1 << 31;

impl Named {
    fn end(&self) -> u32 {
        self.end_and_same & !SAME_NAME
    }

    fn same_name(&self) -> bool {
        self.end_and_same & SAME_NAME != 0
    }
}

/// An offset into the folded paths, if it leaves room for `SAME_NAME`.
fn offset(at: usize) -> Option<u32> {
    u32::try_from(at).ok().filter(|&at| at < SAME_NAME)
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

/// A name's first slot is the top bits of its hash, so names in the order
/// of their hashes fill the table front to back.
fn slot_shift(slots: usize) -> u32 {
    64 - slots.trailing_zeros()
}

impl LinkIndex {
    /// Bytes held on the heap, for measuring what a bank costs.
    pub fn heap_bytes(&self) -> usize {
        self.paths.capacity()
            + self.files.capacity() * size_of::<Named>()
            + self.name_slots.capacity() * size_of::<NameSlot>()
    }

    /// `files` are bank-relative `/`-separated paths.
    pub fn build<'a>(files: impl Iterator<Item = (&'a str, FileRef)> + Clone) -> LinkIndex {
        // Every path is folded straight into the one string, in the order
        // given: a string per file, sorted by its text and copied, was
        // 100,000 allocations and a sort whose every step read two paths
        // far apart in memory.
        let mut paths = String::with_capacity(files.clone().map(|(p, _)| p.len()).sum());
        let mut given = Vec::with_capacity(files.size_hint().0);
        for (path, file) in files {
            let start = paths.len();
            fold_into(path, &mut paths);
            let name_start = paths.len() - name_of(&paths[start..]).len();
            let offsets = (offset(start), offset(name_start), offset(paths.len()));
            // A file past what the offsets reach is left out (no link
            // finds it) rather than found under a wrong path.
            match (offsets, PackedRef::of(file)) {
                ((Some(start), Some(name_start), Some(end)), Some(file)) => given.push(Named {
                    start,
                    name_start,
                    end_and_same: end,
                    file,
                }),
                _ => paths.truncate(start),
            }
        }
        let hasher = foldhash::fast::RandomState::default();
        let parallel = crate::parallel::pays(given.len());
        let hashed = |n: Named| (hasher.hash_one(name_in(&paths, &n)), n);
        let mut hashed: Vec<(u64, Named)> = if parallel {
            given.into_par_iter().map(hashed).collect()
        } else {
            given.into_iter().map(hashed).collect()
        };
        // By the name's hash, so the sort compares numbers and the table
        // below is filled front to back; a name's files stay together,
        // shortest path first, and paths differing only in case in the
        // order given (where each starts in `paths`).
        let order = |(a_hash, a): &(u64, Named), (b_hash, b): &(u64, Named)| {
            a_hash.cmp(b_hash).then_with(|| {
                let key = |n: &Named| (name_in(&paths, n), n.end() - n.start, path_in(&paths, n));
                key(a).cmp(&key(b)).then(a.start.cmp(&b.start))
            })
        };
        if parallel {
            hashed.par_sort_unstable_by(order);
        } else {
            hashed.sort_unstable_by(order);
        }
        let name = |(hash, n): &(u64, Named)| (*hash, name_in(&paths, n));
        let first_of_name = |i: usize| i == 0 || name(&hashed[i]) != name(&hashed[i - 1]);
        let names = (0..hashed.len()).filter(|&i| first_of_name(i)).count();
        let mut name_slots = vec![EMPTY_SLOT; (names * 2).next_power_of_two().max(2)];
        let shift = slot_shift(name_slots.len());
        let mask = name_slots.len() - 1;
        for (i, (hash, file)) in hashed.iter().enumerate() {
            if !first_of_name(i) {
                continue;
            }
            let mut slot = (hash >> shift) as usize;
            while name_slots[slot].first != EMPTY {
                slot = (slot + 1) & mask;
            }
            name_slots[slot] = NameSlot {
                first: i as u32,
                name_start: file.name_start,
            };
        }
        let files = (0..hashed.len())
            .map(|i| {
                let mut file = hashed[i].1;
                if !first_of_name(i) {
                    file.end_and_same |= SAME_NAME;
                }
                file
            })
            .collect();
        LinkIndex {
            paths,
            files,
            name_slots,
            hasher,
        }
    }

    /// The files whose folded name is `name`, shortest path first.
    #[cfg(test)]
    fn named(&self, name: &str) -> &[Named] {
        self.named_hashed(name, self.hasher.hash_one(name))
    }

    /// [`LinkIndex::named`], `hash` being the name's hash.
    fn named_hashed(&self, name: &str, hash: u64) -> &[Named] {
        if self.name_slots.is_empty() {
            return &[];
        }
        let mask = self.name_slots.len() - 1;
        let mut slot = self.slot_of(hash);
        loop {
            let NameSlot { first, name_start } = self.name_slots[slot];
            if first == EMPTY {
                return &[];
            }
            // The name's text and its first file both follow from the
            // slot, so neither read waits for the other.
            let name_start = name_start as usize;
            let text = (self.paths.as_bytes().get(name_start..)).and_then(|t| t.get(..name.len()));
            let files = self.files.get(first as usize..).unwrap_or(&[]);
            let ends_there = |f: &Named| f.end() as usize == name_start + name.len();
            if text == Some(name.as_bytes()) && files.first().is_some_and(ends_there) {
                let len = 1 + files[1..].iter().take_while(|f| f.same_name()).count();
                return &files[..len];
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The first slot a name of this hash is looked for in.
    fn slot_of(&self, hash: u64) -> usize {
        (hash >> slot_shift(self.name_slots.len())) as usize
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
            static ONE: std::cell::RefCell<Prepared> = std::cell::RefCell::default();
        }
        ONE.with_borrow_mut(|one| {
            self.prepare(std::iter::once(target), one);
            self.resolve_prepared(one, 0, from, found);
        });
    }

    /// Fold and hash `targets` into `batch` (emptied first), to be resolved
    /// one by one with [`LinkIndex::resolve_prepared`], after
    /// [`LinkIndex::warm`] when they are many.
    pub fn prepare<'t>(&self, targets: impl IntoIterator<Item = &'t str>, batch: &mut Prepared) {
        batch.text.clear();
        batch.links.clear();
        for target in targets {
            let target = crate::text::trim(target);
            let relative_only = target.starts_with("./")
                || target.starts_with("../")
                || target == "."
                || target == "..";
            let start = batch.text.len();
            fold_into(target.trim_start_matches('/'), &mut batch.text);
            let folded_end = batch.text.len();
            let dead = folded_end == start || batch.text.ends_with('/');
            // Without an extension a link names a note; with one it may
            // still name a note whose name has a dot in it.
            batch.text.push_str(".md");
            let hash = self.hasher.hash_one(name_of(&batch.text[start..]));
            batch.links.push(PreparedLink {
                start,
                folded_end,
                hash,
                relative_only,
                dead,
            });
        }
    }

    /// Start reading the table where each link of `batch` is looked up: the
    /// reads of many links are then in flight together, where resolving
    /// link after link waited for each one's misses in turn (most of the
    /// time spent resolving a large bank's links).
    pub fn warm(&self, batch: &Prepared) {
        if self.name_slots.is_empty() {
            return;
        }
        let live = || batch.links.iter().filter(|l| !l.dead);
        let slots: u32 = live()
            .map(|l| self.name_slots[self.slot_of(l.hash)].first)
            .fold(0, |all, first| all ^ first);
        std::hint::black_box(slots);
        // With the slots at hand, each name's first file and text.
        let files_and_names = live()
            .map(|l| self.name_slots[self.slot_of(l.hash)])
            .filter(|s| s.first != EMPTY)
            .map(|s| {
                let file = self.files.get(s.first as usize).map_or(0, |f| f.start);
                let text = self.paths.as_bytes().get(s.name_start as usize);
                file ^ u32::from(text.copied().unwrap_or(0))
            })
            .fold(0, |all, read| all ^ read);
        std::hint::black_box(files_and_names);
    }

    /// [`LinkIndex::resolve_into`] for the `i`th link of `batch`.
    pub fn resolve_prepared(
        &self,
        batch: &Prepared,
        i: usize,
        from: Option<&str>,
        found: &mut Vec<FileRef>,
    ) {
        found.clear();
        let Some(&link) = batch.links.get(i) else {
            return;
        };
        if link.dead {
            return;
        }
        // Found and folded only for the few links that need the folder.
        let from_dir = FromDir {
            from,
            folded: std::cell::OnceCell::new(),
        };
        let with_md = &batch.text[link.start..link.folded_end + ".md".len()];
        let wanted = &batch.text[link.start..link.folded_end];
        let as_written = |found: &mut Vec<FileRef>| {
            let hash = self.hasher.hash_one(name_of(wanted));
            self.resolve_exact(wanted, hash, &from_dir, link.relative_only, found);
        };
        // `pic.png` names the file `pic.png` (format §6), and a note
        // `pic.png.md` only when no such file is there: Obsidian embeds
        // the image. A name with no other extension names a note first.
        let other_extension = has_other_extension(name_of(wanted));
        if other_extension {
            as_written(found);
            if !found.is_empty() {
                return;
            }
        }
        self.resolve_exact(with_md, link.hash, &from_dir, link.relative_only, found);
        if found.is_empty() && !other_extension {
            as_written(found);
        }
    }

    /// The files `wanted` (folded) reaches; `hash` is its name's.
    fn resolve_exact(
        &self,
        wanted: &str,
        hash: u64,
        from_dir: &FromDir<'_>,
        relative_only: bool,
        found: &mut Vec<FileRef>,
    ) {
        // Shorter than the whole target exactly when it holds a `/`.
        let name = name_of(wanted);
        let is_path = name.len() != wanted.len();
        let candidates = self.named_hashed(name, hash);
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

/// Whether a (folded) name ends in an extension other than `.md`: a dot
/// followed by letters and digits only, so `v1.2 notes` has none.
fn has_other_extension(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !ext.is_empty() && ext != "md" && ext.chars().all(char::is_alphanumeric)
    })
}

/// The folded path of `file`.
fn path_in<'a>(paths: &'a str, file: &Named) -> &'a str {
    paths
        .get(file.start as usize..file.end() as usize)
        .unwrap_or("")
}

/// The folded name of `file`.
fn name_in<'a>(paths: &'a str, file: &Named) -> &'a str {
    paths
        .get(file.name_start as usize..file.end() as usize)
        .unwrap_or("")
}

/// Link targets folded and hashed ahead of resolving them
/// ([`LinkIndex::prepare`]); kept to be filled again, batch after batch.
#[derive(Debug, Default)]
pub struct Prepared {
    /// Each target folded, then `.md`, one after another.
    text: String,
    links: Vec<PreparedLink>,
}

/// One target of a [`Prepared`] batch: folded, it is
/// `text[start..folded_end]`, followed by `.md`.
#[derive(Debug, Clone, Copy)]
struct PreparedLink {
    start: usize,
    folded_end: usize,
    /// The hash of the name of the target with `.md`, the name looked up
    /// first.
    hash: u64,
    /// `./` or `../`: only the path from the linking note counts.
    relative_only: bool,
    /// Nothing is left of the target, or it names a folder.
    dead: bool,
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

    /// `pic.png` names the image when there is one, even when a note
    /// `pic.png.md` exists too; the note when it is alone.
    #[test]
    fn a_name_with_another_extension_names_that_file_first() {
        let ix = index(&["04_STYLE/pic.png.md", "03_DOMAINS/pic.png"]);
        assert_eq!(first(&ix, "pic.png", "05_INDICES/Index.md"), Some(1));
        assert_eq!(first(&ix, "PIC.PNG", "05_INDICES/Index.md"), Some(1));
        assert_eq!(first(&ix, "pic.png.md", "05_INDICES/Index.md"), Some(0));
        assert_eq!(ix.resolve("pic.png", Some("05_INDICES/Index.md")).len(), 1);
        let alone = index(&["04_STYLE/pic.png.md"]);
        assert_eq!(first(&alone, "pic.png", "05_INDICES/Index.md"), Some(0));
        // A dot that starts no extension: the note first, as before.
        let notes = index(&["04_STYLE/v1.2 notes.md", "04_STYLE/v1.2 notes"]);
        assert_eq!(first(&notes, "v1.2 notes", "05_INDICES/Index.md"), Some(0));
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

    /// A batch resolves each of its links as that link alone resolves,
    /// whether its reads were started or not: bare names, paths, relative
    /// links, names with and without `.md`, case, dead links and targets
    /// that fold to nothing, in one batch, the same target twice.
    #[test]
    fn a_batch_resolves_each_link_as_alone() {
        let ix = index(&[
            "03_DOMAINS/Legal.md",
            "03_DOMAINS/legal/Contract.md",
            "02_TERMINOLOGY/Contract.md",
            "02_TERMINOLOGY/report.pdf",
            "02_TERMINOLOGY/v1.2 notes.md",
            "Root.md",
            "01_CLIENTS/ΟΔΟΣ.md",
        ]);
        let targets = [
            "Legal",
            "legal/contract",
            "contract",
            "CONTRACT",
            "./Contract",
            "../02_TERMINOLOGY/Contract",
            "report.pdf",
            "report",
            "v1.2 notes",
            "Root",
            "οδος",
            "Missing",
            "",
            "  ",
            "/",
            "03_DOMAINS/",
            "..",
            "/Legal",
            "Legal",
        ];
        for from in ["02_TERMINOLOGY/Contract.md", "03_DOMAINS/Legal.md"] {
            for warm in [false, true] {
                let mut batch = Prepared::default();
                ix.prepare(targets, &mut batch);
                if warm {
                    ix.warm(&batch);
                }
                for (i, target) in targets.iter().enumerate() {
                    let mut found = vec![FileRef::Other(99)];
                    ix.resolve_prepared(&batch, i, Some(from), &mut found);
                    assert_eq!(
                        found,
                        ix.resolve(target, Some(from)),
                        "{target:?} from {from}"
                    );
                }
                let mut found = vec![FileRef::Other(99)];
                ix.resolve_prepared(&batch, targets.len(), Some(from), &mut found);
                assert!(found.is_empty(), "past the batch's end");
            }
        }
        // Still the answers the rules give, not only the same ones twice.
        assert_eq!(ix.resolve("contract", Some("Root.md")).len(), 2);
        assert_eq!(first(&ix, "contract", "03_DOMAINS/Legal.md"), Some(2));
        assert!(ix.resolve("Missing", Some("Root.md")).is_empty());
        assert_eq!(first(&ix, "legal/contract", "Root.md"), Some(1));
        assert_eq!(first(&ix, "./Contract", "02_TERMINOLOGY/x.md"), Some(2));
        assert_eq!(first(&ix, "report.pdf", "Root.md"), Some(3));
        assert_eq!(first(&ix, "report", "Root.md"), None);
        assert_eq!(first(&ix, "v1.2 notes", "Root.md"), Some(4));
        let empty = LinkIndex::default();
        let mut batch = Prepared::default();
        empty.prepare(targets, &mut batch);
        empty.warm(&batch);
        let mut found = Vec::new();
        empty.resolve_prepared(&batch, 0, None, &mut found);
        assert!(found.is_empty());
    }

    /// Each name's files are the files whose folded path ends in it,
    /// ordered as a stable sort by (path length, folded path) orders them:
    /// names that fold together from different cases, a final sigma, the
    /// Kelvin sign, a dotted capital I, names with and without `.md`,
    /// attachments, files at the root and deep down, the same path twice.
    #[test]
    fn a_names_files_are_in_the_order_of_their_folded_paths() {
        let stems = [
            "Read Me",
            "read me",
            "READ ME",
            "ΟΔΟΣ",
            "οδος",
            "οδοσ",
            "\u{212A}elvin",
            "kelvin",
            "İstanbul",
            "i\u{307}stanbul",
            "run → rennen",
            "Run → Rennen",
            "a_b",
            "a b",
            "x.md",
        ];
        let dirs = [
            "",
            "01_CLIENTS/",
            "03_DOMAINS/a/",
            "03_DOMAINS/A/",
            "04_STYLE/x/y/",
        ];
        let exts = [".md", ".MD", ".png", ""];
        let mut paths = Vec::new();
        for (i, stem) in stems.iter().enumerate() {
            for (j, dir) in dirs.iter().enumerate() {
                let ext = exts[(i + j) % exts.len()];
                paths.push(format!("{dir}{stem}{ext}"));
                if (i + j) % 3 == 0 {
                    paths.push(format!("{dir}{stem}.md"));
                }
            }
        }
        paths.push("01_CLIENTS/Read Me.md".to_owned());
        let ix = index(&paths.iter().map(String::as_str).collect::<Vec<_>>());
        let folded: Vec<String> = paths.iter().map(|p| fold(p)).collect();
        let mut names: Vec<&str> = folded.iter().map(|p| name_of(p)).collect();
        names.sort();
        names.dedup();
        for name in names {
            let mut want: Vec<usize> = (0..paths.len())
                .filter(|&i| name_of(&folded[i]) == name)
                .collect();
            want.sort_by_key(|&i| (folded[i].len(), folded[i].as_str()));
            let got: Vec<usize> = ix
                .named(name)
                .iter()
                .map(|f| match f.file.get() {
                    FileRef::Article(i) | FileRef::Other(i) => i,
                })
                .collect();
            assert_eq!(got, want, "{name}");
        }
        assert!(ix.named("read").is_empty());
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
