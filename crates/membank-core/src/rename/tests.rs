use std::fs;
use std::path::Path;
use std::time::Duration;

use super::*;
use crate::transaction::{Kind, Transaction};

/// A bank with every folder, holding `files`.
fn bank_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in Folder::ALL {
        fs::create_dir_all(dir.path().join(folder.dir_name())).unwrap();
    }
    for (path, text) in files {
        let at = dir.path().join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
    dir
}

fn plan_of(root: &Path, from: &str, to: &str) -> Result<RenamePlan, String> {
    plan(&Bank::load(root).unwrap(), from, to)
}

/// Rename, write, and give back the bank's files as text afterwards.
fn renamed(files: &[(&str, &str)], from: &str, to: &str) -> (tempfile::TempDir, RenamePlan) {
    let dir = bank_with(files);
    let plan = plan_of(dir.path(), from, to).unwrap();
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    (dir, plan)
}

fn text(dir: &tempfile::TempDir, path: &str) -> String {
    fs::read_to_string(dir.path().join(path)).unwrap()
}

const LEGAL: (&str, &str) = ("03_DOMAINS/Legal.md", "---\ndomain: Legal\n---\n# Legal\n");

/// One note linking to Legal with `line` in its body, renamed to Law: the
/// line as it reads afterwards.
fn body_after(line: &str) -> String {
    let note = format!("---\nclient: Acme\n---\n{line}\n");
    let (dir, _) = renamed(
        &[LEGAL, ("01_CLIENTS/Acme.md", &note)],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Law.md",
    );
    assert!(!dir.path().join("03_DOMAINS/Legal.md").exists());
    assert!(dir.path().join("03_DOMAINS/Law.md").exists());
    let t = text(&dir, "01_CLIENTS/Acme.md");
    t.strip_prefix("---\nclient: Acme\n---\n")
        .unwrap()
        .trim_end_matches('\n')
        .to_owned()
}

#[test]
fn a_plain_wikilink_follows_the_rename() {
    assert_eq!(body_after("See [[Legal]]."), "See [[Law]].");
}

#[test]
fn alias_heading_and_block_parts_are_kept() {
    assert_eq!(
        body_after("[[Legal|the law]] [[Legal#Terms]] [[legal#^b1|x]]"),
        "[[Law|the law]] [[Law#Terms]] [[Law#^b1|x]]"
    );
}

#[test]
fn embeds_and_escaped_table_pipes_are_kept() {
    assert_eq!(
        body_after("![[Legal]]\n| a | [[Legal\\|legal]] |"),
        "![[Law]]\n| a | [[Law\\|legal]] |"
    );
}

#[test]
fn path_and_relative_links_stay_paths() {
    assert_eq!(
        body_after("[[03_DOMAINS/Legal]] [[../03_DOMAINS/Legal.md]]"),
        "[[03_DOMAINS/Law]] [[../03_DOMAINS/Law.md]]"
    );
}

/// A link from the bank's root keeps its `/`: without it, a Markdown
/// viewer would look in the note's own folder.
#[test]
fn a_link_from_the_root_stays_from_the_root() {
    assert_eq!(
        body_after("[abs](/03_DOMAINS/Legal.md#Scope) and [[/03_DOMAINS/Legal]]"),
        "[abs](/03_DOMAINS/Law.md#Scope) and [[/03_DOMAINS/Law]]"
    );
}

#[test]
fn markdown_links_are_percent_encoded_unless_in_angle_brackets() {
    let note = "---\nclient: Acme\n---\n[t](../03_DOMAINS/Legal.md#Terms) [u](<Legal.md>)\n";
    let (dir, _) = renamed(
        &[LEGAL, ("01_CLIENTS/Acme.md", note)],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Tax Law.md",
    );
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\n[t](../03_DOMAINS/Tax%20Law.md#Terms) [u](<Tax Law.md>)\n"
    );
}

#[test]
fn code_and_other_bytes_are_left_alone() {
    assert_eq!(
        body_after("`[[Legal]]` [[Legal]] [[Legality]]\r"),
        "`[[Legal]]` [[Law]] [[Legality]]\r"
    );
}

#[test]
fn frontmatter_links_quoted_or_not_and_domain_values_follow() {
    let note = "---\nclient: Acme\ndomains: [Legal, \"Tax\"]\nsee: \"[[Legal]]\"\nalso: [[Legal|l]]\n---\nx\n";
    let list = "---\nclient: Beta\ndomains:\n  - 'legal'\n  - Tax # main\n---\n";
    let (dir, _) = renamed(
        &[
            LEGAL,
            ("01_CLIENTS/Acme.md", note),
            ("01_CLIENTS/Beta.md", list),
        ],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Law.md",
    );
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\ndomains: [Law, \"Tax\"]\nsee: \"[[Law]]\"\nalso: [[Law|l]]\n---\nx\n"
    );
    assert_eq!(
        text(&dir, "01_CLIENTS/Beta.md"),
        "---\nclient: Beta\ndomains:\n  - 'Law'\n  - Tax # main\n---\n"
    );
    // The renamed note's own domain value was its old name: it follows.
    assert_eq!(
        text(&dir, "03_DOMAINS/Law.md"),
        "---\ndomain: Law\n---\n# Legal\n"
    );
}

#[test]
fn a_folder_move_moves_every_file_and_its_links() {
    let (dir, plan) = renamed(
        &[
            (
                "03_DOMAINS/legal/Contract.md",
                "---\ndomain: Legal\n---\n![[seal.png]] [[./Terms]]\n",
            ),
            ("03_DOMAINS/legal/Terms.md", "---\ndomain: Legal\n---\n"),
            ("03_DOMAINS/legal/seal.png", "png"),
            (
                "01_CLIENTS/Acme.md",
                "---\nclient: Acme\n---\n[[legal/Contract]] [[../03_DOMAINS/legal/Terms]]\n",
            ),
        ],
        "03_DOMAINS/legal",
        "03_DOMAINS/law",
    );
    assert_eq!(plan.moves.len(), 2);
    // Attachments stay (membank writes notes only); the link still finds it.
    assert_eq!(plan.left_in_place, ["03_DOMAINS/legal/seal.png"]);
    assert_eq!(text(&dir, "03_DOMAINS/legal/seal.png"), "png");
    assert_eq!(
        text(&dir, "03_DOMAINS/law/Contract.md"),
        "---\ndomain: Legal\n---\n![[seal.png]] [[./Terms]]\n"
    );
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\n[[law/Contract]] [[../03_DOMAINS/law/Terms]]\n"
    );
}

/// A folder given its own path gets the answer a file gets: there is
/// nothing to do. Moving it under itself is still refused as such.
#[test]
fn a_folder_moved_to_where_it_is_has_nothing_to_do() {
    let dir = bank_with(&[("03_DOMAINS/sub/n.md", "---\ndomain: N\n---\n")]);
    let root = dir.path();
    let file = plan_of(root, "03_DOMAINS/sub/n.md", "03_DOMAINS/sub/n.md").unwrap_err();
    assert_eq!(
        file,
        "03_DOMAINS/sub/n.md: already has that name; nothing to do"
    );
    for to in ["03_DOMAINS/sub", "03_DOMAINS/"] {
        let folder = plan_of(root, "03_DOMAINS/sub", to).unwrap_err();
        assert_eq!(
            folder, "03_DOMAINS/sub: already has that name; nothing to do",
            "{to}"
        );
    }
    for to in ["03_DOMAINS/sub/deeper", "03_DOMAINS/sub/"] {
        let inside = plan_of(root, "03_DOMAINS/sub", to).unwrap_err();
        assert!(
            inside.contains("cannot be moved into itself"),
            "{to}: {inside}"
        );
    }
}

#[test]
fn a_moved_note_keeps_its_own_relative_links_working() {
    let (dir, _) = renamed(
        &[
            LEGAL,
            ("03_DOMAINS/Tax.md", "---\ndomain: Tax\n---\n[[./Legal]]\n"),
        ],
        "03_DOMAINS/Tax.md",
        "03_DOMAINS/sub/",
    );
    assert_eq!(
        text(&dir, "03_DOMAINS/sub/Tax.md"),
        "---\ndomain: Tax\n---\n[[../Legal]]\n"
    );
}

/// A path free on a case-sensitive file system, next to a note whose name
/// differs in case only: refused for the links it would make ambiguous,
/// not as taken (nothing is there).
#[test]
fn a_name_differing_in_case_only_from_a_note_is_refused_as_ambiguous() {
    let dir = bank_with(&[LEGAL, ("03_DOMAINS/Tax.md", "---\ndomain: Tax\n---\n")]);
    if dir.path().join("03_DOMAINS/tax.md").exists() {
        // Case-insensitive: the path does open Tax.md, so it is taken.
        return;
    }
    let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/tax.md").unwrap_err();
    assert!(
        err.contains("03_DOMAINS/Tax.md has that name already")
            && err.contains("[[tax]] would become ambiguous"),
        "{err}"
    );
    assert!(!err.contains("taken"), "{err}");
}

#[test]
fn a_name_another_file_has_is_refused() {
    let dir = bank_with(&[
        LEGAL,
        ("04_STYLE/Law.md", "x\n"),
        ("01_CLIENTS/Acme.md", "[[Legal]]\n"),
    ]);
    let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/Law").unwrap_err();
    assert!(
        err.contains("04_STYLE/Law.md") && err.contains("ambiguous"),
        "{err}"
    );
    let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "04_STYLE/Law.md").unwrap_err();
    assert!(err.contains("taken"), "{err}");
    let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/L|aw").unwrap_err();
    assert!(err.contains('|'), "{err}");
    let err = plan_of(dir.path(), "03_DOMAINS/Nope.md", "03_DOMAINS/Law2").unwrap_err();
    assert!(err.contains("no file or folder"), "{err}");
}

/// A symbolic link to another note: its text is that note's, rewritten at
/// the note's own path, so the link is left out of the plan (the write
/// would refuse it); one to the note being moved would point nowhere, and
/// one moved would become a copy: both refused.
#[cfg(unix)]
#[test]
fn symbolic_links_among_the_notes_are_never_written_through() {
    let dir = bank_with(&[
        LEGAL,
        ("01_CLIENTS/Acme.md", "---\nclient: Acme\n---\n[[Legal]]\n"),
        ("03_DOMAINS/Tax.md", "---\ndomain: Tax\n---\n"),
    ]);
    let link = |to: &str, at: &str| std::os::unix::fs::symlink(to, dir.path().join(at)).unwrap();
    link("../01_CLIENTS/Acme.md", "04_STYLE/Alias.md");
    let plan = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/Law").unwrap();
    assert!(
        plan.fixes.iter().all(|f| f.path != "04_STYLE/Alias.md"),
        "{:?}",
        plan.fixes
    );
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    assert!(text(&dir, "04_STYLE/Alias.md").contains("[[Law]]"));

    link("../03_DOMAINS/Tax.md", "04_STYLE/TaxAlias.md");
    let err = plan_of(dir.path(), "03_DOMAINS/Tax.md", "03_DOMAINS/Taxes").unwrap_err();
    assert!(err.contains("point nowhere"), "{err}");
    let err = plan_of(dir.path(), "04_STYLE/Alias.md", "04_STYLE/Other").unwrap_err();
    assert!(err.contains("symbolic link"), "{err}");
}

/// With `follow_links_out` the bank reads the notes of a folder linked in
/// from outside it; nothing is written through the link, so a rename
/// leaves them out of its plan, says so, and writes the rest.
#[cfg(unix)]
#[test]
fn notes_in_a_linked_folder_are_left_out_and_listed() {
    let dir = bank_with(&[
        LEGAL,
        ("01_CLIENTS/Acme.md", "---\nclient: Acme\n---\n[[Legal]]\n"),
    ]);
    let outside = tempfile::tempdir().unwrap();
    let ext = "---\nclient: Ext\n---\nSee [[Legal]]\n";
    fs::write(outside.path().join("Ext.md"), ext).unwrap();
    fs::write(
        outside.path().join("Plain.md"),
        "---\nclient: P\n---\nNo links\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("01_CLIENTS/shared")).unwrap();
    let open = crate::safe_read::ReadPolicy {
        follow_links_out: true,
        ..Default::default()
    };
    let bank = Bank::load_with(dir.path(), open).unwrap();
    assert!(bank.find("01_CLIENTS/shared/Ext.md").is_some());
    let plan = plan(&bank, "03_DOMAINS/Legal.md", "03_DOMAINS/Law").unwrap();
    assert!(
        plan.fixes
            .iter()
            .all(|f| !f.path.starts_with("01_CLIENTS/shared/")),
        "{:?}",
        plan.fixes
    );
    assert_eq!(plan.through_link, vec!["01_CLIENTS/shared/Ext.md"]);
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    assert!(text(&dir, "01_CLIENTS/Acme.md").contains("[[Law]]"));
    assert_eq!(
        fs::read_to_string(outside.path().join("Ext.md")).unwrap(),
        ext
    );
    // A note in the linked folder is not moved: that would write through
    // the link.
    let err = super::plan(&bank, "01_CLIENTS/shared/Plain.md", "01_CLIENTS/Plain.md").unwrap_err();
    assert!(
        err.contains("reached through the symbolic link 01_CLIENTS/shared"),
        "{err}"
    );
}

/// A name the bank skips, or the inbox's archive, would make the article
/// vanish from every context and check: refused as `new` refuses it.
#[test]
fn a_move_that_would_hide_the_article_is_refused() {
    let dir = bank_with(&[LEGAL, ("00_INBOX/note.md", "x\n")]);
    let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/_Legal").unwrap_err();
    assert!(err.contains("would skip the article"), "{err}");
    let err = plan_of(
        dir.path(),
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/_EXAMPLE_Legal",
    )
    .unwrap_err();
    assert!(err.contains("would skip the article"), "{err}");
    let err = plan_of(dir.path(), "00_INBOX/note.md", "00_INBOX/_archive/note.md").unwrap_err();
    assert!(err.contains("archive"), "{err}");
    let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/ _Legal").unwrap_err();
    assert!(err.contains("starting with a space"), "{err}");
    assert!(plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/Law_x").is_ok());
}

#[test]
fn a_link_ambiguous_before_keeps_opening_what_it_opened() {
    // `[[Legal]]` from 01_CLIENTS opens the shortest path, 03_DOMAINS/Legal;
    // moving that one deeper would hand the name to 04_STYLE/x/Legal.
    let (dir, _) = renamed(
        &[
            LEGAL,
            ("04_STYLE/x/Legal.md", "x\n"),
            ("01_CLIENTS/Acme.md", "[[Legal]]\n"),
        ],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/a/b/c/",
    );
    assert_eq!(text(&dir, "01_CLIENTS/Acme.md"), "[[c/Legal]]\n");
}

#[test]
fn unaffected_files_are_not_in_the_plan() {
    let dir = bank_with(&[
        LEGAL,
        ("01_CLIENTS/Acme.md", "[[Legal]]\n"),
        ("01_CLIENTS/Beta.md", "[[Acme]] [[Nowhere]]\n"),
    ]);
    // Named without `.md`, as a link names it.
    let plan = plan_of(dir.path(), "03_DOMAINS/legal", "03_DOMAINS/Law").unwrap();
    let paths: Vec<&str> = plan.fixes.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["01_CLIENTS/Acme.md", "03_DOMAINS/Legal.md"]);
    assert_eq!(plan.links_rewritten, 1);
}

#[test]
fn a_note_in_another_encoding_moves_byte_for_byte() {
    let dir = bank_with(&[LEGAL, ("01_CLIENTS/Acme.md", "[[Legal]]\n")]);
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("# Tax\n".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    fs::write(dir.path().join("03_DOMAINS/Tax.md"), &utf16).unwrap();
    let plan = plan_of(dir.path(), "03_DOMAINS/Tax.md", "03_DOMAINS/Taxes").unwrap();
    let tx = Transaction::begin(dir.path(), Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    assert_eq!(
        fs::read(dir.path().join("03_DOMAINS/Taxes.md")).unwrap(),
        utf16
    );
}

#[test]
fn a_path_outside_the_bank_is_refused_as_it_was_written() {
    let dir = bank_with(&[LEGAL]);
    for outside in ["/tmp/abs", "../x.md", "C:\\Law.md", "\\\\server\\Law.md"] {
        let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", outside).unwrap_err();
        assert!(
            err.starts_with(&format!("{outside}: is not a path inside the bank")),
            "{err}"
        );
    }
    let err = plan_of(dir.path(), "/03_DOMAINS/Legal.md", "03_DOMAINS/Law.md").unwrap_err();
    assert!(err.contains("is not a path inside the bank"), "{err}");
}

#[test]
fn a_case_only_rename_respells_the_links_that_named_the_old_spelling() {
    let note = "---\nclient: Acme\ndomains: [\"[[Legal]]\"]\n---\n[[Legal]], [[Legal|the law]], \
                [[03_DOMAINS/Legal.md#Terms]], [[LEGAL]] and [Legal](../03_DOMAINS/Legal.md).\n";
    let (dir, plan) = renamed(
        &[LEGAL, ("01_CLIENTS/Acme.md", note)],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/legal.md",
    );
    assert!(dir.path().join("03_DOMAINS/legal.md").exists());
    assert!(!dir.path().join("03_DOMAINS/Legal.md").exists());
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\ndomains: [\"[[legal]]\"]\n---\n[[legal]], [[legal|the law]], \
         [[03_DOMAINS/legal.md#Terms]], [[LEGAL]] and [Legal](../03_DOMAINS/legal.md).\n"
    );
    assert_eq!(plan.links_rewritten, 5);
}

/// A Markdown link is a path: after a case-only rename its old spelling
/// opens nothing on a file system that tells case apart. Its `./`, `../`
/// and `/` steps stay as written, and a link that does not spell the old
/// name exactly is the author's and stays.
#[test]
fn a_case_only_rename_respells_relative_paths_keeping_their_steps() {
    let inside = "---\ndomain: Legal Sub\n---\n[up](../Legal.md), [here](./Other.md).\n";
    let note = "---\nclient: Acme\n---\n[a](./../03_DOMAINS/Legal.md), [b](/03_DOMAINS/Legal.md), \
                [c](../03_DOMAINS/LEGAL.md).\n";
    let (dir, plan) = renamed(
        &[
            LEGAL,
            ("03_DOMAINS/Sub/Other.md", "---\ndomain: Other\n---\n"),
            ("03_DOMAINS/Sub/Inside.md", inside),
            ("01_CLIENTS/Acme.md", note),
        ],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/legal.md",
    );
    assert_eq!(
        text(&dir, "03_DOMAINS/Sub/Inside.md"),
        "---\ndomain: Legal Sub\n---\n[up](../legal.md), [here](./Other.md).\n"
    );
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\n[a](./../03_DOMAINS/legal.md), [b](/03_DOMAINS/legal.md), \
         [c](../03_DOMAINS/LEGAL.md).\n"
    );
    assert_eq!(plan.links_rewritten, 3);
}

#[test]
fn a_folder_renamed_in_case_only_respells_the_paths_that_name_it() {
    let note = "---\nclient: Acme\n---\n[[Law/Contracts]] and [[Contracts]].\n";
    let (dir, plan) = renamed(
        &[
            (
                "03_DOMAINS/Law/Contracts.md",
                "---\ndomain: Contracts\n---\n",
            ),
            ("01_CLIENTS/Acme.md", note),
        ],
        "03_DOMAINS/Law",
        "03_DOMAINS/law",
    );
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\n[[law/Contracts]] and [[Contracts]].\n"
    );
    assert_eq!(plan.links_rewritten, 1);
}

#[test]
fn links_inside_a_note_wrapped_in_a_code_fence_follow_the_rename() {
    // §4.3: the bank reads through the fence, so the links are the note's.
    let fenced = "```markdown\n\n---\nclient: Acme\n---\nSee [[Legal]] and [l](../03_DOMAINS/Legal.md).\n```\n";
    let (dir, plan) = renamed(
        &[LEGAL, ("01_CLIENTS/Acme.md", fenced)],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Law.md",
    );
    assert_eq!(plan.links_rewritten, 2);
    assert_eq!(
        text(&dir, "01_CLIENTS/Acme.md"),
        "```markdown\n\n---\nclient: Acme\n---\nSee [[Law]] and [l](../03_DOMAINS/Law.md).\n```\n"
    );
}

#[test]
fn a_note_not_utf8_that_links_to_the_moved_note_refuses_and_an_unread_one_is_named() {
    let dir = bank_with(&[LEGAL]);
    let root = dir.path();
    // Windows-1252: not UTF-8, so the bank does not read it as a note.
    fs::write(
        root.join("04_STYLE/Latin.md"),
        b"---\nscope: general\n---\nSee [[Legal]], caf\xe9.\n",
    )
    .unwrap();
    let refused = plan_of(root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law.md").unwrap_err();
    assert!(
        refused.starts_with("04_STYLE/Latin.md: is not UTF-8, so its links cannot be rewritten"),
        "{refused}"
    );
    // Linking elsewhere, it does not stand in the way.
    fs::write(root.join("04_STYLE/Latin.md"), b"See [[Other]], caf\xe9.\n").unwrap();
    assert!(plan_of(root, "03_DOMAINS/Legal.md", "03_DOMAINS/Law.md").is_ok());

    // A note over the size cap cannot be looked in: the plan names it.
    fs::write(root.join("04_STYLE/Big.md"), "See [[Legal]].\n".repeat(100)).unwrap();
    let policy = crate::safe_read::ReadPolicy {
        max_file_bytes: 1000,
        ..Default::default()
    };
    let bank = Bank::load_with(root, policy).unwrap();
    let plan = plan(&bank, "03_DOMAINS/Legal.md", "03_DOMAINS/Law.md").unwrap();
    assert_eq!(plan.unread, ["04_STYLE/Big.md"]);
}

#[cfg(unix)]
#[test]
fn what_the_bank_has_but_cannot_move_is_named_and_a_trailing_space_is_kept() {
    let dir = bank_with(&[LEGAL, ("03_DOMAINS/old /n.md", "---\ndomain: N\n---\n")]);
    let root = dir.path();
    std::os::unix::fs::symlink("../04_STYLE", root.join("03_DOMAINS/Linked")).unwrap();
    std::os::unix::fs::symlink("Loop.md", root.join("03_DOMAINS/Loop.md")).unwrap();
    let why = plan_of(root, "03_DOMAINS/Linked", "03_DOMAINS/New").unwrap_err();
    assert!(why.contains("is a link to a folder"), "{why}");
    let why = plan_of(root, "03_DOMAINS/Loop.md", "03_DOMAINS/New").unwrap_err();
    assert!(why.contains("symbolic link loop"), "{why}");
    // The folder `check` asks to rename, named as it is.
    let plan = plan_of(root, "03_DOMAINS/old ", "03_DOMAINS/old").unwrap();
    assert_eq!(
        plan.moves,
        [(
            "03_DOMAINS/old /n.md".to_owned(),
            "03_DOMAINS/old/n.md".to_owned()
        )]
    );
    // Moved, it leaves no empty folder of the old name behind.
    let tx = Transaction::begin(root, Kind::Bank, Duration::ZERO, || {}).unwrap();
    tx.commit_fixes(&plan.fixes).unwrap();
    assert!(root.join("03_DOMAINS/old/n.md").is_file());
    assert!(!root.join("03_DOMAINS/old ").exists());
}

/// A file the bank skips (`_draft.md`) is still the author's note: its
/// links follow the rename, as Obsidian rewrites every Markdown file.
#[test]
fn links_in_a_skipped_note_follow_the_rename() {
    let (dir, plan) = renamed(
        &[
            LEGAL,
            (
                "03_DOMAINS/_draft.md",
                "---\ndomain: Draft\n---\n# draft, see [[Legal]] and [t](Legal.md)\n",
            ),
        ],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Law.md",
    );
    assert_eq!(
        text(&dir, "03_DOMAINS/_draft.md"),
        "---\ndomain: Draft\n---\n# draft, see [[Law]] and [t](Law.md)\n"
    );
    assert_eq!(plan.links_rewritten, 2);
    assert!(plan.fixes.iter().any(|f| f.path == "03_DOMAINS/_draft.md"));
}

#[test]
fn a_domain_value_written_as_a_block_follows_in_its_block() {
    let term =
        |value: &str| format!("---\nterm_source: a\ndomain: {value}\nstatus: approved\n---\n");
    let (dir, _) = renamed(
        &[
            LEGAL,
            ("02_TERMINOLOGY/t1.md", &term(">-\n  Legal")),
            ("02_TERMINOLOGY/t2.md", &term("|\n  Legal\n")),
            ("02_TERMINOLOGY/t3.md", &term(">  # folded\n    Legal")),
            (
                "02_TERMINOLOGY/t4.md",
                "---\ndomains:\n  - >-\n    Legal\n  - Tax\n---\n",
            ),
        ],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Law.md",
    );
    assert_eq!(text(&dir, "02_TERMINOLOGY/t1.md"), term(">-\n  Law"));
    assert_eq!(text(&dir, "02_TERMINOLOGY/t2.md"), term("|\n  Law\n"));
    assert_eq!(
        text(&dir, "02_TERMINOLOGY/t3.md"),
        term(">  # folded\n    Law")
    );
    assert_eq!(
        text(&dir, "02_TERMINOLOGY/t4.md"),
        "---\ndomains:\n  - >-\n    Law\n  - Tax\n---\n"
    );
    // Read back, each names the new domain, so `context` still finds it.
    let bank = Bank::load(dir.path()).unwrap();
    for a in bank.articles() {
        assert!(
            a.meta.domains.iter().all(|v| v.raw.trim() != "Legal"),
            "{}",
            a.rel_path
        );
    }
}

#[test]
fn a_domain_value_over_several_lines_refuses_the_rename() {
    let dir = bank_with(&[
        ("03_DOMAINS/Tax Law.md", "---\ndomain: Tax Law\n---\n"),
        (
            "02_TERMINOLOGY/t1.md",
            "---\nterm_source: a\ndomain: >-\n  Tax\n  Law\n---\n",
        ),
    ]);
    let err = plan_of(dir.path(), "03_DOMAINS/Tax Law.md", "03_DOMAINS/Fiscal.md").unwrap_err();
    assert!(
        err.starts_with("02_TERMINOLOGY/t1.md:3: its domain value"),
        "{err}"
    );
}

#[test]
fn only_the_name_part_changes_extension_full_path_and_angle_brackets_kept() {
    let index = "# Index\n[[Legal.MD]] [t](../03_DOMAINS/Legal.MD) [[03_DOMAINS/Legal|full path]] \
                 [u](<../03_DOMAINS/Legal.md#Terms>)\n";
    let (dir, _) = renamed(
        &[LEGAL, ("05_INDICES/Index.md", index)],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/sub/Tax Law.md",
    );
    assert_eq!(
        text(&dir, "05_INDICES/Index.md"),
        "# Index\n[[Tax Law.MD]] [t](../03_DOMAINS/sub/Tax%20Law.MD) \
         [[03_DOMAINS/sub/Tax Law|full path]] [u](<../03_DOMAINS/sub/Tax Law.md#Terms>)\n"
    );
}

#[test]
fn markdown_files_outside_the_folders_are_listed_as_links_left() {
    let dir = bank_with(&[
        LEGAL,
        ("Notes/mine.md", "my notes: [[Legal]]\n"),
        ("README.md", "[[Legal]]\n"),
        ("Notes/photo.png", "x"),
        (".obsidian/x.md", "[[Legal]]\n"),
        // Links to other notes only: nothing is left behind in it.
        ("Notes/other.md", "[[Tax]] and [[Nowhere]]\n"),
    ]);
    // A link is not followed, not even to a Markdown file.
    #[cfg(unix)]
    std::os::unix::fs::symlink("README.md", dir.path().join("Alias.md")).unwrap();
    let plan = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/Law.md").unwrap();
    assert_eq!(plan.links_left, ["Notes/mine.md", "README.md"]);
}

/// A reference-style link's destination is in its definition, which the
/// rename does not rewrite: it is refused, named as written, whatever else
/// the note holds, rather than moved with the link left dead.
#[test]
fn a_reference_style_link_refuses_the_rename() {
    for body in [
        "See the [legal][l] terms.\n\n[l]: Legal.md\n",
        "See [site](https://example.com) and [legal][l].\n\n[l]: Legal.md\n",
        "See [![icon](icon.png)][l].\n\n[l]: <Legal.md>\n",
    ] {
        let note = format!("---\nclient: Acme\n---\n{body}");
        let dir = bank_with(&[LEGAL, ("01_CLIENTS/Acme.md", &note)]);
        let err = plan_of(dir.path(), "03_DOMAINS/Legal.md", "03_DOMAINS/Law.md").unwrap_err();
        assert!(
            err.contains("01_CLIENTS/Acme.md:4: the reference-style link ["),
            "{err}"
        );
        assert!(err.contains("(to Legal.md)"), "{err}");
        assert!(
            err.ends_with("cannot be rewritten to open 03_DOMAINS/Law.md still; nothing is moved"),
            "{err}"
        );
    }
}

/// A footnote whose text is a note's name is no link to it: the rename
/// goes ahead and leaves the footnote as it was.
#[test]
fn a_footnote_naming_the_note_is_left_alone() {
    let body = "See [site](https://example.com).\n\nVault ID[^1] is here.\n\n[^1]: Legal\n";
    let note = format!("---\nclient: Acme\n---\n{body}");
    let (dir, plan) = renamed(
        &[LEGAL, ("01_CLIENTS/Acme.md", &note)],
        "03_DOMAINS/Legal.md",
        "03_DOMAINS/Law.md",
    );
    assert!(dir.path().join("03_DOMAINS/Law.md").exists());
    assert_eq!(text(&dir, "01_CLIENTS/Acme.md"), note);
    assert_eq!(plan.links_rewritten, 0);
}
