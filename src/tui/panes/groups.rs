//! The Bank pane's tree, one model for every layout: a bank's files nested
//! by their real folders under its numbered folders, and any other
//! layout's documents nested by their `groups` (Deja Vu kinds, everos app →
//! project → owner → kind), in the order given, with counts per folder,
//! finding marks that reach folded folders, and status badges.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;

use super::bank::{RowKind, TreeRow};
use super::health::Flagged;

/// Folders this deep or shallower start open: an everos root shows its
/// apps, projects, owners and their kinds; a kind's days stay folded.
const OPEN_DEPTH: usize = 3;

/// Marks a folder key so it never equals a file's path.
const FOLDER: char = '\u{1}';

#[derive(Debug, Default)]
pub struct GroupTree {
    nodes: Vec<Node>,
    /// The memory keeps entries inside its files (everos's daily logs):
    /// every number in the tree then counts entries, a folder's those of
    /// all its files, so folders and days add up the same way. Said by the
    /// layout, not guessed from whether some file has entries: a root whose
    /// logs are all empty would otherwise count its files.
    counts_entries: bool,
}

#[derive(Debug)]
enum Node {
    Folder {
        key: String,
        /// Shared with its rows.
        label: Arc<str>,
        /// Documents anywhere below.
        count: usize,
        /// Entries in the documents anywhere below.
        entries: usize,
        children: Vec<Node>,
        /// Shown dimmed (a bank folder that is missing on disk).
        muted: bool,
        /// Its files are not counted in the folders above it (the inbox's
        /// archive: processed notes are not waiting in the inbox).
        apart: bool,
    },
    File {
        rel: Arc<str>,
        /// Shared with its row; `None` shows the file's name (see
        /// [`TreeRow::label`]), taken from its path when drawn.
        label: Option<Arc<str>>,
        /// Entries inside the file, for layouts that keep several per file.
        entries: usize,
        badge: Option<Box<str>>,
        private: bool,
        /// Shown dimmed and left out of counts (a file a bank skips).
        skipped: bool,
    },
}

/// The path of the folder a tree key names, when it is a folder of the
/// memory (a bank's folders are keyed by their paths); `None` for a group
/// of documents (a Deja Vu kind, an everos owner), which is no path a user
/// could rename or paste.
pub fn folder_path(key: &str) -> Option<&str> {
    (!key.starts_with(FOLDER)).then_some(key)
}

/// The key of the folder at `groups`, as stored in the expanded set.
pub fn folder_key<S: AsRef<str>>(groups: &[S]) -> String {
    let mut key = String::from(FOLDER);
    for (i, g) in groups.iter().enumerate() {
        if i > 0 {
            key.push('/');
        }
        key.push_str(g.as_ref());
    }
    key
}

impl GroupTree {
    /// Nest every document under its groups, keeping the memory's order.
    pub fn build(memory: &dyn Memory) -> GroupTree {
        let mut tree = GroupTree {
            counts_entries: memory.keeps_entries(),
            ..GroupTree::default()
        };
        for id in 0..memory.len() {
            let d = memory.document(id);
            let badge = d
                .status
                .as_deref()
                .filter(|s| !s.is_empty() && *s != "active")
                .map(|s| sanitize_for_terminal(s, false).into_boxed_str());
            let file = Node::File {
                rel: Arc::from(d.path),
                label: Some(Arc::from(sanitize_for_terminal(&d.title, false))),
                entries: memory.entries(id).len(),
                badge,
                private: d.private,
                skipped: false,
            };
            let groups: Vec<&str> = d.groups.iter().map(|g| g.as_ref()).collect();
            insert(&mut tree.nodes, &groups, 0, file);
        }
        tally(&mut tree.nodes);
        tree
    }

    /// The keys of the folders that start open.
    pub fn initially_open(&self) -> BTreeSet<String> {
        fn walk(nodes: &[Node], depth: usize, out: &mut BTreeSet<String>) {
            for n in nodes {
                if let Node::Folder { key, children, .. } = n
                    && depth <= OPEN_DEPTH
                {
                    out.insert(key.clone());
                    walk(children, depth + 1, out);
                }
            }
        }
        let mut out = BTreeSet::new();
        walk(&self.nodes, 0, &mut out);
        out
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The rows to show, folders open as `expanded` says.
    pub fn rows(&self, expanded: &BTreeSet<String>, flagged: &Flagged) -> Vec<TreeRow> {
        fn walk(
            nodes: &[Node],
            depth: u8,
            (expanded, by_entries): (&BTreeSet<String>, bool),
            flagged: &Flagged,
            rows: &mut Vec<TreeRow>,
        ) -> bool {
            let mut any_flagged = false;
            for n in nodes {
                match n {
                    Node::Folder {
                        key,
                        label,
                        count,
                        entries,
                        children,
                        muted,
                        ..
                    } => {
                        let open = expanded.contains(key);
                        let at = rows.len();
                        let count = match by_entries {
                            true => (*entries > 0).then_some(*entries),
                            false => Some(*count),
                        };
                        rows.push(TreeRow {
                            depth,
                            text: Some(Arc::clone(label)),
                            count: count.map(saturate),
                            kind: RowKind::Folder {
                                key: key.clone(),
                                expanded: open,
                            },
                            flagged: false,
                            muted: *muted,
                            badge: None,
                            private: false,
                        });
                        // Folded folders are still marked when a file below
                        // has findings: walk them into a scratch list.
                        let how = (expanded, by_entries);
                        let below = if open {
                            walk(children, depth + 1, how, flagged, rows)
                        } else {
                            walk(children, depth + 1, how, flagged, &mut Vec::new())
                        };
                        rows[at].flagged = below;
                        any_flagged |= below;
                    }
                    Node::File {
                        rel,
                        label,
                        entries,
                        badge,
                        private,
                        skipped,
                    } => {
                        let is_flagged = flagged.contains(&**rel);
                        any_flagged |= is_flagged;
                        rows.push(TreeRow {
                            depth,
                            text: label.clone(),
                            count: (*entries > 0).then(|| saturate(*entries)),
                            kind: RowKind::File { rel: rel.clone() },
                            flagged: is_flagged,
                            muted: *skipped,
                            badge: badge.clone(),
                            private: *private,
                        });
                    }
                }
            }
            any_flagged
        }
        let mut rows = Vec::new();
        let how = (expanded, self.counts_entries);
        walk(&self.nodes, 0, how, flagged, &mut rows);
        // Kept as long as the tree is shown: grown by doubling, a hundred
        // thousand rows would hold up to as many again spare.
        rows.shrink_to_fit();
        rows
    }

    /// The folder keys that lead to the file `rel`.
    pub fn path_to(&self, rel: &str) -> Option<Vec<String>> {
        fn walk(nodes: &[Node], rel: &str, trail: &mut Vec<String>) -> bool {
            for n in nodes {
                match n {
                    Node::File { rel: r, .. } if **r == *rel => return true,
                    Node::Folder { key, children, .. } => {
                        trail.push(key.clone());
                        if walk(children, rel, trail) {
                            return true;
                        }
                        trail.pop();
                    }
                    Node::File { .. } => {}
                }
            }
            false
        }
        let mut trail = Vec::new();
        walk(&self.nodes, rel, &mut trail).then_some(trail)
    }
}

/// A count as a row keeps it: no memory holds four billion files or
/// entries, and the largest number is shown rather than a wrong one.
fn saturate(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Put `file` under the folders `groups[depth..]`, creating them in the
/// order they are first seen.
fn insert(level: &mut Vec<Node>, groups: &[&str], depth: usize, file: Node) {
    if depth == groups.len() {
        level.push(file);
        return;
    }
    let key = folder_key(&groups[..=depth]);
    let at = level
        .iter()
        .rposition(|n| matches!(n, Node::Folder { key: k, .. } if *k == key))
        .unwrap_or_else(|| {
            level.push(Node::Folder {
                key,
                label: Arc::from(sanitize_for_terminal(groups[depth], false)),
                count: 0,
                entries: 0,
                children: Vec::new(),
                muted: false,
                apart: false,
            });
            level.len() - 1
        });
    if let Node::Folder { children, .. } = &mut level[at] {
        insert(children, groups, depth + 1, file);
    }
}

/// Fill in every folder's counts from what lies below it; returns what
/// `nodes` add to the folder that holds them.
fn tally(nodes: &mut [Node]) -> (usize, usize) {
    let (mut count, mut entries) = (0, 0);
    for n in nodes {
        match n {
            Node::Folder {
                count: c,
                entries: e,
                children,
                apart,
                ..
            } => {
                (*c, *e) = tally(children);
                if !*apart {
                    count += *c;
                    entries += *e;
                }
            }
            Node::File {
                entries: e,
                skipped,
                ..
            } => {
                if !*skipped {
                    count += 1;
                    entries += *e;
                }
            }
        }
    }
    (count, entries)
}

/// Subfolders before files at every level below the top, each keeping the
/// order it was given in, as file managers list a folder.
fn folders_first(nodes: &mut [Node], top: bool) {
    if !top {
        // A stable sort: folders and files each keep their order.
        membank_core::shared_sort::sort_by_key(nodes, |n| matches!(n, Node::File { .. }));
    }
    for n in nodes {
        if let Node::Folder { children, .. } = n {
            folders_first(children, false);
        }
    }
}

/// A bank's files laid into a tree by their real folders. Folder keys are
/// the folders' paths inside the bank (`01_CLIENTS/Acme`), so that opening
/// the folders on a file's path reveals it.
#[derive(Debug, Default)]
pub struct FolderTreeBuilder {
    tree: GroupTree,
    /// Where each folder made so far sits: its index at every level, so a
    /// folder of 100,000 files is found without a scan.
    at: HashMap<String, Vec<usize>>,
}

impl FolderTreeBuilder {
    /// Add the folder at `path` (and those above it) if missing; `muted`
    /// and `apart` apply to the folder at `path` itself.
    pub fn folder(&mut self, path: &[&str], muted: bool, apart: bool) {
        let spot = self.spot(path);
        if let Some(Node::Folder {
            muted: m, apart: a, ..
        }) = node_at(&mut self.tree.nodes, &spot)
        {
            *m = muted;
            *a = apart;
        }
    }

    /// Add the file `rel` (its folders made as needed) under `label`, or
    /// under its name for `None`.
    pub fn file(&mut self, rel: &Arc<str>, label: Option<String>, skipped: bool) {
        let parts: Vec<&str> = rel.split('/').collect();
        let folders = &parts[..parts.len().saturating_sub(1)];
        let node = Node::File {
            rel: Arc::clone(rel),
            label: label.map(Arc::from),
            entries: 0,
            badge: None,
            private: false,
            skipped,
        };
        let spot = self.spot(folders);
        // `spot` names a folder just made or found, so the level exists.
        if let Some(level) = children_at(&mut self.tree.nodes, &spot) {
            level.push(node);
        }
    }

    /// The index path of the folder at `path`, made if missing.
    fn spot(&mut self, path: &[&str]) -> Vec<usize> {
        let mut spot: Vec<usize> = Vec::new();
        for depth in 0..path.len() {
            let key = path[..=depth].join("/");
            if let Some(found) = self.at.get(&key) {
                spot.clone_from(found);
                continue;
            }
            let Some(level) = children_at(&mut self.tree.nodes, &spot) else {
                break;
            };
            level.push(Node::Folder {
                key: key.clone(),
                label: Arc::from(sanitize_for_terminal(path[depth], false)),
                count: 0,
                entries: 0,
                children: Vec::new(),
                muted: false,
                apart: false,
            });
            spot.push(level.len() - 1);
            self.at.insert(key, spot.clone());
        }
        spot
    }

    pub fn finish(mut self) -> GroupTree {
        folders_first(&mut self.tree.nodes, true);
        tally(&mut self.tree.nodes);
        self.tree
    }
}

/// The node at the index path `spot`.
fn node_at<'a>(nodes: &'a mut Vec<Node>, spot: &[usize]) -> Option<&'a mut Node> {
    let (&last, above) = spot.split_last()?;
    children_at(nodes, above)?.get_mut(last)
}

/// The children of the folder at `spot`; the top level for the empty path.
fn children_at<'a>(nodes: &'a mut Vec<Node>, spot: &[usize]) -> Option<&'a mut Vec<Node>> {
    let mut level = nodes;
    for &i in spot {
        level = match level.get_mut(i)? {
            Node::Folder { children, .. } => children,
            Node::File { .. } => return None,
        };
    }
    Some(level)
}
