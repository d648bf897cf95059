//! The Bank pane's tree for layouts other than a bank: documents nested by
//! their `groups` (Deja Vu kinds, everos app → project → owner → kind), in
//! the order the layout lists them, with entry counts and status badges.

use std::collections::{BTreeSet, HashSet};

use membank_core::memory::Memory;
use membank_core::text::sanitize_for_terminal;

use super::bank::{RowKind, TreeRow};

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
    /// all its files, so folders and days add up the same way.
    counts_entries: bool,
}

#[derive(Debug)]
enum Node {
    Folder {
        key: String,
        label: String,
        /// Documents anywhere below.
        count: usize,
        /// Entries in the documents anywhere below.
        entries: usize,
        children: Vec<Node>,
    },
    File {
        rel: String,
        label: String,
        /// Entries inside the file, for layouts that keep several per file.
        entries: usize,
        badge: Option<String>,
        private: bool,
    },
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
        let mut tree = GroupTree::default();
        for id in 0..memory.len() {
            let d = memory.document(id);
            let badge = d
                .status
                .as_deref()
                .filter(|s| !s.is_empty() && *s != "active")
                .map(|s| sanitize_for_terminal(s, false));
            let file = Node::File {
                rel: d.path.to_owned(),
                label: sanitize_for_terminal(&d.title, false),
                entries: memory.entries(id).len(),
                badge,
                private: d.private,
            };
            tree.counts_entries |= matches!(file, Node::File { entries, .. } if entries > 0);
            let groups: Vec<&str> = d.groups.iter().map(|g| g.as_ref()).collect();
            insert(&mut tree.nodes, &groups, 0, file);
        }
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
    pub fn rows(&self, expanded: &BTreeSet<String>, flagged: &HashSet<String>) -> Vec<TreeRow> {
        fn walk(
            nodes: &[Node],
            depth: u8,
            (expanded, by_entries): (&BTreeSet<String>, bool),
            flagged: &HashSet<String>,
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
                    } => {
                        let open = expanded.contains(key);
                        let at = rows.len();
                        let count = match by_entries {
                            true => (*entries > 0).then_some(*entries),
                            false => Some(*count),
                        };
                        rows.push(TreeRow {
                            depth,
                            label: label.clone(),
                            count,
                            kind: RowKind::Folder {
                                key: key.clone(),
                                expanded: open,
                            },
                            flagged: false,
                            muted: false,
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
                    } => {
                        let is_flagged = flagged.contains(rel);
                        any_flagged |= is_flagged;
                        rows.push(TreeRow {
                            depth,
                            label: label.clone(),
                            count: (*entries > 0).then_some(*entries),
                            kind: RowKind::File { rel: rel.clone() },
                            flagged: is_flagged,
                            muted: false,
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
        rows
    }

    /// The folder keys that lead to the file `rel`.
    pub fn path_to(&self, rel: &str) -> Option<Vec<String>> {
        fn walk(nodes: &[Node], rel: &str, trail: &mut Vec<String>) -> bool {
            for n in nodes {
                match n {
                    Node::File { rel: r, .. } if r == rel => return true,
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

/// Put `file` under the folders `groups[depth..]`, creating them in the
/// order they are first seen.
fn insert(level: &mut Vec<Node>, groups: &[&str], depth: usize, file: Node) {
    let file_entries = match &file {
        Node::File { entries, .. } => *entries,
        Node::Folder { .. } => 0,
    };
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
                label: sanitize_for_terminal(groups[depth], false),
                count: 0,
                entries: 0,
                children: Vec::new(),
            });
            level.len() - 1
        });
    if let Node::Folder {
        count,
        entries,
        children,
        ..
    } = &mut level[at]
    {
        *count += 1;
        *entries += file_entries;
        insert(children, groups, depth + 1, file);
    }
}
