//! The rename invariant on generated banks: after a rename, every link
//! that opened a file opens the same file (at its new path), no link
//! becomes dead or newly ambiguous, and `context` gives every article the
//! score it had. A refused rename writes nothing and says why.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::Duration;

use membank_core::bank::{Bank, Resolution};
use membank_core::layout::Folder;
use membank_core::rename;
use membank_core::scoring::{self, Query};
use membank_core::transaction::{Kind, Transaction};
use proptest::prelude::*;

const FOLDERS: [&str; 5] = [
    "01_CLIENTS",
    "03_DOMAINS",
    "03_DOMAINS/sub",
    "04_STYLE",
    "04_STYLE/deep/er",
];
const NAMES: [&str; 6] = ["Acme", "Legal", "Tax", "Court Rules", "Deed", "Lease"];
const NEW_NAMES: [&str; 4] = ["Legal", "Law", "Tax (EU)", "Deed"];

#[derive(Debug, Clone)]
struct Note {
    folder: usize,
    name: usize,
    /// (form, target note or `None` for a dead link)
    links: Vec<(usize, Option<usize>)>,
    domain: usize,
}

fn note() -> impl Strategy<Value = Note> {
    (
        0..FOLDERS.len(),
        0..NAMES.len(),
        prop::collection::vec((0..10usize, prop::option::weighted(0.9, 0..8usize)), 0..6),
        0..NAMES.len(),
    )
        .prop_map(|(folder, name, links, domain)| Note {
            folder,
            name,
            links,
            domain,
        })
}

fn path_of(n: &Note) -> String {
    format!("{}/{}.md", FOLDERS[n.folder], NAMES[n.name])
}

fn relative(from: &str, to: &str) -> String {
    let mut dir: Vec<&str> = from.split('/').collect();
    dir.pop();
    let to: Vec<&str> = to.split('/').collect();
    let common = dir.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let ups = dir.len() - common;
    let rest = to[common..].join("/");
    if ups == 0 {
        format!("./{rest}")
    } else {
        format!("{}{rest}", "../".repeat(ups))
    }
}

/// A link to `target` from `source` in one of the forms a user writes.
fn link(form: usize, source: &str, target: Option<&str>) -> String {
    let Some(target) = target else {
        return "[[Missing Note]]".into();
    };
    let stem = target.strip_suffix(".md").unwrap();
    let name = stem.rsplit('/').next().unwrap();
    let parent_and_name = stem.rsplitn(3, '/').take(2).collect::<Vec<_>>();
    match form {
        0 => format!("[[{name}]]"),
        1 => format!("[[{name}|shown]]"),
        2 => format!("[[{name}#Heading]]"),
        3 => format!("![[{name}]]"),
        4 => format!("[[{}/{}]]", parent_and_name[1], parent_and_name[0]),
        5 => format!("[[{stem}]]"),
        6 => format!("[[{}]]", relative(source, stem)),
        7 => format!("[md]({})", relative(source, target).replace(' ', "%20")),
        8 => format!("| a | [[{name}\\|b]] |"),
        _ => format!("[[{name}#^block|x]]"),
    }
}

fn build(notes: &[Note]) -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    for f in Folder::ALL {
        fs::create_dir_all(dir.path().join(f.dir_name())).unwrap();
    }
    let mut paths: Vec<String> = Vec::new();
    let mut kept: Vec<&Note> = Vec::new();
    for n in notes {
        let p = path_of(n);
        if !paths.contains(&p) {
            paths.push(p);
            kept.push(n);
        }
    }
    for (n, p) in kept.iter().zip(&paths) {
        let mut text = format!(
            "---\nclient: Acme\ndomain: {}\nsee: \"{}\"\n---\n",
            NAMES[n.domain],
            link(
                0,
                p,
                n.links
                    .first()
                    .and_then(|l| l.1)
                    .map(|t| paths[t % paths.len()].as_str())
            )
        );
        for (form, target) in &n.links {
            let target = target.map(|t| paths[t % paths.len()].as_str());
            text.push_str(&link(*form, p, target));
            text.push('\n');
        }
        let at = dir.path().join(p);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
    (dir, paths)
}

/// Per (source, link number): the file the link opens and whether it is
/// ambiguous; dead links are left out.
fn resolved(bank: &Bank) -> BTreeMap<(String, usize), (String, bool)> {
    let mut out = BTreeMap::new();
    for (id, a) in bank.articles().iter().enumerate() {
        for (i, (_, r)) in bank.outgoing(id).enumerate() {
            let target = match r {
                Resolution::Dead => continue,
                Resolution::One(t) => (bank.article(t).rel_path.clone(), false),
                Resolution::Ambiguous(ts) => (bank.article(ts[0]).rel_path.clone(), true),
                Resolution::File(f) => (bank.link_file(f).to_owned(), false),
            };
            out.insert((a.rel_path.clone(), i), target);
        }
    }
    out
}

fn scores(bank: &Bank, query: &Query) -> BTreeMap<String, u32> {
    scoring::rank(bank, query)
        .into_iter()
        .map(|r| (bank.article(r.id).rel_path.clone(), r.score.total()))
        .collect()
}

fn check(
    notes: Vec<Note>,
    pick: usize,
    to_folder: usize,
    to_name: usize,
) -> Result<(), TestCaseError> {
    let (dir, paths) = build(&notes);
    let from = paths[pick % paths.len()].clone();
    let to = format!("{}/{}.md", FOLDERS[to_folder], NEW_NAMES[to_name]);
    let before_bank = Bank::load(dir.path()).unwrap();
    let plan = match rename::plan(&before_bank, &from, &to) {
        Ok(plan) => plan,
        Err(reason) => {
            prop_assert!(!reason.is_empty());
            return Ok(());
        }
    };
    let moved = |p: &str| {
        plan.moves
            .iter()
            .find(|(a, _)| a == p)
            .map_or_else(|| p.to_owned(), |(_, b)| b.clone())
    };
    let stem = |p: &str| {
        p.rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".md")
            .to_owned()
    };
    // A client or domain note renamed in its folder renames the values
    // that named it, unless another note of that folder shares its name.
    let renamed_value = |folder: &str, value: &str| {
        let shared = paths
            .iter()
            .filter(|p| p.starts_with(folder))
            .filter(|p| stem(p) == stem(&from))
            .count()
            > 1;
        let inside = |p: &str| p.starts_with(folder);
        if inside(&from) && inside(&to) && stem(&from) == value && !shared {
            stem(&to)
        } else {
            value.to_owned()
        }
    };
    // The query names what is renamed (when it is a client or a domain),
    // so the rename must carry the values over for the scores to stay.
    let named = |folder: &str, otherwise: &str| {
        let own = from.starts_with(folder);
        if own {
            stem(&from)
        } else {
            otherwise.to_owned()
        }
    };
    let (client, domain) = (named("01_CLIENTS/", "Acme"), named("03_DOMAINS/", NAMES[1]));
    let (client, domain) = (client.as_str(), domain.as_str());
    let query = |client: &str, domain: &str| Query {
        client: Some(client.into()),
        domain: Some(domain.into()),
        ..Query::default()
    };
    let client_after = renamed_value("01_CLIENTS/", client);
    let domain_after = renamed_value("03_DOMAINS/", domain);
    let links_before: BTreeMap<_, _> = resolved(&before_bank)
        .into_iter()
        .map(|((s, i), (t, amb))| ((moved(&s), i), (moved(&t), amb)))
        .collect();
    let scores_before: BTreeMap<_, _> = scores(&before_bank, &query(client, domain))
        .into_iter()
        .map(|(p, s)| (moved(&p), s))
        .collect();
    drop(before_bank);
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    drop(tx);
    let after_bank = Bank::load(dir.path()).unwrap();
    let links_after = resolved(&after_bank);
    for (key, (target, was_ambiguous)) in &links_before {
        let now = links_after.get(key);
        prop_assert!(
            now.is_some_and(|(t, amb)| t == target && (!amb || *was_ambiguous)),
            "{from} → {to}: link {key:?} opened {target} (ambiguous: {was_ambiguous}), now {now:?}"
        );
    }
    for (key, (target, _)) in &links_after {
        prop_assert!(
            links_before.contains_key(key) || *target == moved(&from),
            "{from} → {to}: link {key:?} now opens {target} and led nowhere before"
        );
    }
    // A note moved to another of the format's folders is another kind of
    // note (a domain becomes a client), scored by that folder's rules; only
    // the others' scores must stay.
    let top = |p: &str| p.split('/').next().unwrap().to_owned();
    let mut scores_after = scores(&after_bank, &query(&client_after, &domain_after));
    let mut scores_before = scores_before;
    if top(&from) != top(&to) {
        scores_after.remove(&moved(&from));
        scores_before.remove(&moved(&from));
    }
    prop_assert_eq!(scores_after, scores_before);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn a_rename_keeps_every_link_and_every_score(
        notes in prop::collection::vec(note(), 1..9),
        pick in 0..9usize,
        to_folder in 0..FOLDERS.len(),
        to_name in 0..NEW_NAMES.len(),
    ) {
        check(notes, pick, to_folder, to_name)?;
    }
}

#[test]
fn a_folder_move_keeps_every_link() {
    let notes: Vec<Note> = (0..6)
        .map(|i| Note {
            folder: i % FOLDERS.len(),
            name: i,
            links: (0..10).map(|f| (f, Some((i + f) % 6))).collect(),
            domain: i,
        })
        .collect();
    let (dir, _) = build(&notes);
    let bank = Bank::load(dir.path()).unwrap();
    let plan = rename::plan(&bank, "03_DOMAINS/sub", "04_STYLE/moved").unwrap();
    let before = resolved(&bank);
    drop(bank);
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    drop(tx);
    let after = resolved(&Bank::load(dir.path()).unwrap());
    let moved = |p: &str| p.replace("03_DOMAINS/sub/", "04_STYLE/moved/");
    let expected: BTreeMap<_, _> = before
        .into_iter()
        .map(|((s, i), (t, a))| ((moved(&s), i), (moved(&t), a)))
        .collect();
    assert_eq!(after, expected);
    assert!(!Path::new(&dir.path().join("03_DOMAINS/sub/Tax.md")).exists());
}

/// The invariant on a real vault, on demand: `MEMBANK_RENAME_BANK` names a
/// bank (a throwaway copy: the rename is written), `MEMBANK_RENAME_FROM`
/// and `MEMBANK_RENAME_TO` the rename. Ignored by default: it needs a bank
/// outside the repository.
#[test]
#[ignore = "needs MEMBANK_RENAME_BANK, _FROM and _TO naming a throwaway bank"]
fn a_rename_on_a_real_vault_keeps_every_link() {
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} is not set"));
    let (root, from, to) = (
        var("MEMBANK_RENAME_BANK"),
        var("MEMBANK_RENAME_FROM"),
        var("MEMBANK_RENAME_TO"),
    );
    let root = Path::new(&root);
    let bank = Bank::load(root).unwrap();
    let plan = rename::plan(&bank, &from, &to).unwrap();
    let moved = |p: &str| {
        plan.moves
            .iter()
            .find(|(a, _)| a == p)
            .map_or_else(|| p.to_owned(), |(_, b)| b.clone())
    };
    let before: BTreeMap<_, _> = resolved(&bank)
        .into_iter()
        .map(|((s, i), (t, a))| ((moved(&s), i), (moved(&t), a)))
        .collect();
    let query = Query {
        domain: Some("ObsidianHelp".into()),
        ..Query::default()
    };
    let scores_before: BTreeMap<_, _> = scores(&bank, &query)
        .into_iter()
        .map(|(p, s)| (moved(&p), s))
        .collect();
    drop(bank);
    let tx = Transaction::begin(root, Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    drop(tx);
    let after_bank = Bank::load(root).unwrap();
    let after = resolved(&after_bank);
    assert_eq!(after, before);
    assert_eq!(scores(&after_bank, &query), scores_before);
    eprintln!(
        "{} links resolved, {} rewritten in {} files; every one opens what it opened",
        after.len(),
        plan.links_rewritten,
        plan.fixes.len()
    );
}
