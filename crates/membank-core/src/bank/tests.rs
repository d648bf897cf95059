use super::*;
use std::fs;

fn write(root: &Path, rel: &str, s: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, s).unwrap();
}

#[test]
fn a_file_in_place_of_the_bank_names_the_bank_that_holds_it() {
    let d = sample();
    let file = d.path().join("01_CLIENTS/Acme Corporation.md");
    let err = Bank::load(&file).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{} is a file; pass the bank folder ({})",
            file.display(),
            d.path().display()
        )
    );
}

fn sample() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, "01_CLIENTS/Acme Corporation.md", b"---\nclient: Acme Corporation\nlast_updated: 2026-01-01\n---\n# Acme\nSee [[legal]] and [[Nope]].\n");
    write(
        r,
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\n---\n# Legal\n[[Acme Corporation|Acme]]\n",
    );
    write(
        r,
        "03_DOMAINS/sub/Deep.md",
        b"---\ndomain: Deep\n---\n[[Legal#Scope]]\n",
    );
    write(r, "02_TERMINOLOGY/_EXAMPLE_Term.md", b"---\n---\n");
    write(r, "02_TERMINOLOGY/_draft.md", b"---\n---\n");
    write(r, "02_TERMINOLOGY/bad.md", b"\xff\xfd");
    write(r, "02_TERMINOLOGY/x.md.1234.tmp", b"partial");
    write(r, "04_STYLE/.hidden/secret.md", b"---\n---\n");
    write(r, ".obsidian/app.json", b"{}");
    write(r, "Projects/notes.md", b"hi");
    write(r, "06_TEMPLATES/query.md", b"prompt");
    write(r, "00_INBOX/new.md", b"raw note");
    write(r, "00_INBOX/done.md", b"---\ncompiled: true\n---\n");
    write(r, "00_INBOX/_archive/old.md", b"---\ncompiled: true\n---\n");
    d
}

#[test]
fn loads_and_classifies_everything() {
    let d = sample();
    let bank = Bank::load(d.path()).unwrap();
    let paths: Vec<&str> = bank
        .articles()
        .iter()
        .map(|a| a.rel_path.as_str())
        .collect();
    assert_eq!(
        paths,
        vec![
            "00_INBOX/_archive/old.md",
            "00_INBOX/done.md",
            "00_INBOX/new.md",
            "01_CLIENTS/Acme Corporation.md",
            "03_DOMAINS/Legal.md",
            "03_DOMAINS/sub/Deep.md",
        ]
    );
    assert_eq!(bank.skipped.len(), 2);
    assert_eq!(bank.problems.len(), 1);
    assert_eq!(bank.problems[0].kind, ProblemKind::NotUtf8);
    assert_eq!(bank.other_files, vec!["02_TERMINOLOGY/x.md.1234.tmp"]);
    assert_eq!(bank.templates, vec!["06_TEMPLATES/query.md"]);
    assert_eq!(bank.unknown_folders, vec!["Projects"]);
    assert_eq!(bank.missing_folders, vec![Folder::Indices]);
    let pending: Vec<&str> = bank
        .pending_inbox()
        .into_iter()
        .map(|i| bank.article(i).rel_path.as_str())
        .collect();
    assert_eq!(pending, vec!["00_INBOX/new.md"]);
}

#[test]
fn links_resolve_case_insensitively_with_backlinks() {
    let d = sample();
    let bank = Bank::load(d.path()).unwrap();
    let acme = bank.find("01_CLIENTS/Acme Corporation.md").unwrap();
    let legal = bank.find("03_DOMAINS/Legal.md").unwrap();
    let deep = bank.find("03_DOMAINS/sub/Deep.md").unwrap();
    let out: Vec<_> = bank.outgoing(acme).map(|(_, r)| r).collect();
    assert_eq!(out, vec![Resolution::One(legal), Resolution::Dead]);
    assert_eq!(bank.backlinks(legal).to_vec(), [acme, deep]);
    assert_eq!(bank.backlinks(acme).to_vec(), [legal]);
    assert_eq!(bank.resolve("03_DOMAINS/sub/deep"), Resolution::One(deep));
    assert_eq!(bank.resolve("Lega"), Resolution::Dead);
}

/// Each link keeps what resolving it again says, of every kind, and the
/// backlinks are the articles whose links open each one.
#[test]
fn links_keep_where_they_point_of_every_kind() {
    let d = sample();
    let r = d.path();
    write(
        r,
        "04_STYLE/legal.md",
        b"---\nscope: general\n---\n[[Deep]]\n",
    );
    write(r, "04_STYLE/img.png.tmp", b"x");
    write(
        r,
        "04_STYLE/All.md",
        b"---\nscope: general\n---\n[[Legal]] [[Nowhere]] [[_draft]] [[Acme Corporation]]\n\
          [[img.png.tmp]] [[query]] [x](../03_DOMAINS/sub/Deep.md) [[Legal|again]]\n",
    );
    let bank = Bank::load(r).unwrap();
    let all = bank.find("04_STYLE/All.md").unwrap();
    let kept: Vec<Resolution> = bank.outgoing(all).map(|(_, r)| r).collect();
    let legal = [
        bank.find("03_DOMAINS/Legal.md").unwrap(),
        bank.find("04_STYLE/legal.md").unwrap(),
    ];
    assert_eq!(kept.len(), 8);
    assert!(
        matches!(&kept[0], Resolution::Ambiguous(ids) if ids.len() == 2 && legal.contains(&ids[0]) && legal.contains(&ids[1]))
    );
    assert_eq!(kept[1], Resolution::Dead);
    assert!(
        matches!(kept[2], Resolution::File(i) if bank.link_file(i) == "02_TERMINOLOGY/_draft.md")
    );
    assert_eq!(
        kept[3],
        Resolution::One(bank.find("01_CLIENTS/Acme Corporation.md").unwrap())
    );
    assert!(matches!(kept[4], Resolution::File(i) if bank.link_file(i) == "04_STYLE/img.png.tmp"));
    assert!(matches!(kept[5], Resolution::File(i) if bank.link_file(i) == "06_TEMPLATES/query.md"));
    assert_eq!(
        kept[6],
        Resolution::One(bank.find("03_DOMAINS/sub/Deep.md").unwrap())
    );
    assert_eq!(kept[7], kept[0]);
    let n = bank.articles().len();
    for id in 0..n {
        let a = bank.article(id);
        let again: Vec<Resolution> = a
            .links
            .iter()
            .map(|l| bank.resolve_from(l.target(), Some(&a.rel_path)))
            .collect();
        let kept: Vec<Resolution> = bank.outgoing(id).map(|(_, r)| r).collect();
        assert_eq!(kept, again, "{}", a.rel_path);
        let linking: Vec<ArticleId> = (0..n)
            .filter(|&from| from != id && bank.outgoing(from).any(|(_, r)| r.target() == Some(id)))
            .collect();
        assert_eq!(bank.backlinks(id).to_vec(), linking, "{}", a.rel_path);
    }
}

#[test]
fn ambiguous_names_are_reported() {
    let d = sample();
    write(d.path(), "04_STYLE/legal.md", b"---\nscope: general\n---\n");
    let bank = Bank::load(d.path()).unwrap();
    assert!(matches!(bank.resolve("Legal"), Resolution::Ambiguous(v) if v.len() == 2));
}

#[test]
fn reload_touches_only_named_files() {
    let d = sample();
    let mut bank = Bank::load(d.path()).unwrap();
    write(
        d.path(),
        "04_STYLE/House.md",
        b"---\nscope: general\n---\n[[Legal]]\n",
    );
    fs::remove_file(d.path().join("00_INBOX/new.md")).unwrap();
    bank.reload(&["04_STYLE/House.md".into(), "00_INBOX/new.md".into()]);
    assert!(bank.find("04_STYLE/House.md").is_some());
    assert!(bank.find("00_INBOX/new.md").is_none());
    let legal = bank.find("03_DOMAINS/Legal.md").unwrap();
    assert_eq!(bank.backlinks(legal).len(), 3);
}

#[test]
fn non_banks_are_refused_clearly() {
    let d = tempfile::tempdir().unwrap();
    let e = Bank::load(d.path()).unwrap_err();
    assert!(e.to_string().contains("not a memory bank"));
    let e = Bank::load(d.path().join("missing")).unwrap_err();
    assert!(e.to_string().contains("no such folder"));
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[cfg(unix)]
#[test]
fn fifos_devices_and_links_out_are_reported_not_read() {
    use std::os::unix::fs::symlink;
    let d = sample();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("id_ed25519"), "PRIVATE KEY").unwrap();
    fs::create_dir(outside.path().join("notes")).unwrap();
    fs::write(outside.path().join("notes/n.md"), "---\n---\nOUTSIDE\n").unwrap();
    let r = d.path();
    mkfifo(&r.join("02_TERMINOLOGY/x.md"));
    symlink("/dev/zero", r.join("02_TERMINOLOGY/zero.md")).unwrap();
    symlink(outside.path().join("id_ed25519"), r.join("04_STYLE/key.md")).unwrap();
    symlink("../03_DOMAINS/Legal.md", r.join("04_STYLE/alias.md")).unwrap();
    symlink("../03_DOMAINS/Gone.md", r.join("04_STYLE/gone.md")).unwrap();
    // A numbered folder that is itself a link out of the bank.
    symlink(outside.path().join("notes"), r.join("05_INDICES")).unwrap();
    let bank = Bank::load(r).unwrap();
    let kinds: Vec<(&str, ProblemKind)> = bank
        .problems
        .iter()
        .map(|p| (p.path.as_str(), p.kind))
        .collect();
    assert_eq!(
        kinds,
        vec![
            ("02_TERMINOLOGY/bad.md", ProblemKind::NotUtf8),
            ("02_TERMINOLOGY/x.md", ProblemKind::NotRegular),
            ("02_TERMINOLOGY/zero.md", ProblemKind::LinkOutside),
            ("04_STYLE/gone.md", ProblemKind::DanglingLink),
            ("04_STYLE/key.md", ProblemKind::LinkOutside),
            ("05_INDICES", ProblemKind::SymlinkedFolder),
        ]
    );
    let today = jiff::civil::date(2026, 1, 1);
    let gone = crate::health::check(&bank, &crate::health::HealthOptions::as_of(today));
    let gone = gone
        .findings
        .iter()
        .find(|f| &*f.path == "04_STYLE/gone.md")
        .expect("the link to nothing is a finding");
    assert_eq!(gone.code(), "unreadable-file");
    assert!(
        gone.message()
            .contains("link to something that does not exist")
    );
    assert!(
        !gone.message().contains("permissions"),
        "{}",
        gone.message()
    );
    assert!(
        bank.find("04_STYLE/alias.md").is_some(),
        "a link inside is read"
    );
    assert!(
        bank.articles()
            .iter()
            .all(|a| !a.body().contains("PRIVATE") && !a.body().contains("OUTSIDE"))
    );

    // The user's opt-in follows links out, but a device is still no file.
    let open = ReadPolicy {
        follow_links_out: true,
        ..ReadPolicy::default()
    };
    let bank = Bank::load_with(r, open).unwrap();
    assert!(bank.find("04_STYLE/key.md").is_some());
    assert!(bank.find("05_INDICES/n.md").is_some());
    let zero = bank
        .problems
        .iter()
        .find(|p| p.path == "02_TERMINOLOGY/zero.md");
    assert_eq!(zero.map(|p| p.kind), Some(ProblemKind::NotRegular));
    let gone = bank.problems.iter().find(|p| p.path == "04_STYLE/gone.md");
    assert_eq!(gone.map(|p| p.kind), Some(ProblemKind::DanglingLink));
}

#[test]
fn files_over_the_size_cap_are_reported_and_the_rest_loads() {
    let d = sample();
    write(
        d.path(),
        "04_STYLE/huge.md",
        &vec![b'a'; 2 * 1024 * 1024 + 1],
    );
    let small = ReadPolicy {
        max_file_bytes: 2 * 1024 * 1024,
        ..ReadPolicy::default()
    };
    let bank = Bank::load_with(d.path(), small).unwrap();
    let huge = bank
        .problems
        .iter()
        .find(|p| p.path == "04_STYLE/huge.md")
        .unwrap();
    assert_eq!(huge.kind, ProblemKind::TooLarge);
    assert!(bank.find("03_DOMAINS/Legal.md").is_some());
    let mut bank = Bank::load(d.path()).unwrap();
    assert!(bank.find("04_STYLE/huge.md").is_some());
    assert!(
        bank.problems
            .iter()
            .all(|p| p.kind != ProblemKind::TooLarge)
    );
    bank.reload(&["04_STYLE/huge.md".into()]);
    assert!(bank.find("04_STYLE/huge.md").is_some());
}

#[test]
fn checks_without_bodies_find_exactly_what_checks_with_them_find() {
    let d = sample();
    let r = d.path();
    write(
        r,
        "02_TERMINOLOGY/t.md",
        b"---\nterm_source: a\nterm_target: b\nsource_lang: en\ntarget_lang: zz-9\nstatus: maybe\nlast_updated: 2020-02-30\nclients: [[Acme Corporation]]\n---\n# t\n[[Nowhere]] and `[[in code]]`\n",
    );
    write(
        r,
        "00_INBOX/n.md",
        b"---\ncompiled: true\ncompiled_date: soon\n---\nnote\n",
    );
    write(
        r,
        "04_STYLE/fenced.md",
        b"```markdown\n---\nscope: x\n---\n[[Legal]]\n```\n",
    );
    let opts = crate::health::HealthOptions {
        stale_after_days: 30,
        today: jiff::civil::date(2026, 6, 1),
    };
    let whole = Bank::load(r).unwrap();
    let lean = Bank::load_only(r, LoadOptions::CHECK).unwrap();
    assert!(lean.articles().iter().all(|a| a.body().is_empty()));
    let expected = crate::health::check(&whole, &opts).findings;
    assert!(expected.iter().any(|f| f.code() == "dead-link"));
    assert!(expected.iter().any(|f| f.code() == "bad-date"));
    assert_eq!(crate::health::check(&lean, &opts).findings, expected);
    // The links were resolved while loading; only the index for later
    // questions is gone.
    for id in 0..whole.articles().len() {
        let resolved = |b: &Bank| b.outgoing(id).map(|(_, r)| r).collect::<Vec<_>>();
        assert_eq!(resolved(&lean), resolved(&whole));
    }
    assert_ne!(whole.resolve("Legal"), Resolution::Dead);
    assert_eq!(lean.resolve("Legal"), Resolution::Dead);
}

#[test]
fn the_text_left_unloaded_is_read_again_as_it_was() {
    let d = sample();
    let r = d.path();
    write(
        r,
        "04_STYLE/fenced.md",
        b"\xEF\xBB\xBF```markdown\r\n---\r\nscope: x\r\n---\r\nbody\r\n```\r\n",
    );
    let whole = Bank::load(r).unwrap();
    for options in [LoadOptions::CONTEXT, LoadOptions::CHECK] {
        let lean = Bank::load_only(r, options).unwrap();
        for (id, a) in whole.articles().iter().enumerate() {
            assert_eq!(lean.article_text(id).unwrap(), a.text.as_str());
        }
    }
}

#[test]
fn text_read_again_from_a_changed_or_vanished_file_is_an_error_naming_it() {
    let d = sample();
    let r = d.path();
    let bank = Bank::load_only(r, LoadOptions::CONTEXT).unwrap();
    let id = bank.find("03_DOMAINS/Legal.md").unwrap();
    write(
        r,
        "03_DOMAINS/Legal.md",
        b"---\ndomain: Legal\n---\nlonger now\n",
    );
    let err = bank.article_text(id).unwrap_err();
    assert_eq!(err.path, "03_DOMAINS/Legal.md");
    assert!(err.message.contains("changed"), "{}", err.message);
    fs::remove_file(r.join("03_DOMAINS/Legal.md")).unwrap();
    assert_eq!(
        bank.article_text(id).unwrap_err().path,
        "03_DOMAINS/Legal.md"
    );
}

#[cfg(unix)]
#[test]
fn text_read_again_never_follows_a_link_out_of_the_bank() {
    let d = sample();
    let r = d.path();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    // Same length as the article it replaces, so only the link check stops it.
    let original = fs::read(r.join("03_DOMAINS/Legal.md")).unwrap();
    fs::write(&secret, vec![b'x'; original.len()]).unwrap();
    let bank = Bank::load_only(r, LoadOptions::CONTEXT).unwrap();
    let id = bank.find("03_DOMAINS/Legal.md").unwrap();
    fs::remove_file(r.join("03_DOMAINS/Legal.md")).unwrap();
    std::os::unix::fs::symlink(&secret, r.join("03_DOMAINS/Legal.md")).unwrap();
    let err = bank.article_text(id).unwrap_err();
    assert_eq!(err.kind, ProblemKind::LinkOutside);
}

#[test]
fn the_walk_lists_what_the_tree_shows_before_anything_is_read() {
    let d = sample();
    let r = d.path();
    write(r, "06_TEMPLATES/Client.md", b"# {{client}}\n");
    write(r, "04_STYLE/notes.txt", b"not Markdown\n");
    write(r, "04_STYLE/.hidden.md", b"hidden\n");
    let files_read = AtomicUsize::new(0);
    let mut listed = None;
    let mut seen_read = None;
    let bank = Bank::load_listing(r, &files_read, &mut |paths| {
        seen_read = Some(files_read.load(Ordering::Relaxed));
        listed = Some(paths);
    })
    .unwrap();
    assert_eq!(seen_read, Some(0), "listed before any file is read");
    let mut listed = listed.expect("the walk was listed");
    listed.sort();
    let mut shown: Vec<String> = bank
        .articles()
        .iter()
        .map(|a| a.rel_path.clone())
        .chain(bank.templates.iter().cloned())
        .chain(bank.skipped.iter().map(|s| s.path.clone()))
        // A file that could not be read is in the tree too, with why.
        .chain(bank.problems.iter().map(|p| p.path.clone()))
        .collect();
    shown.sort();
    assert_eq!(listed, shown);
    assert!(listed.contains(&"06_TEMPLATES/Client.md".to_owned()));
    assert!(
        !listed
            .iter()
            .any(|p| p.ends_with(".txt") || p.contains(".hidden"))
    );
}

#[test]
fn a_file_is_read_by_name_only_in_its_own_folder() {
    use super::walk::is_parent;
    let p = |s: &str| std::path::PathBuf::from(s);
    assert!(is_parent(&p("/b/03_DOMAINS"), &p("/b/03_DOMAINS/Legal.md")));
    assert!(is_parent(
        &p("/b/03_DOMAINS/"),
        &p("/b/03_DOMAINS/Legal.md")
    ));
    assert!(!is_parent(
        &p("/b/03_DOMAINS"),
        &p("/b/03_DOMAINS/sub/Legal.md")
    ));
    assert!(!is_parent(
        &p("/b/03_DOMAINS"),
        &p("/b/03_DOMAINSX/Legal.md")
    ));
    assert!(!is_parent(&p("/b/03_DOMAINS"), &p("/b/03_DOMAINS")));
    assert!(!is_parent(
        &p("/b/03_DOMAINS/sub"),
        &p("/b/03_DOMAINS/Legal.md")
    ));
}

#[test]
fn a_hidden_name_is_told_from_the_paths_bytes_as_from_its_file_name() {
    use super::walk::name_is_hidden;
    for path in [
        "/b/03_DOMAINS/.hidden.md",
        "/b/03_DOMAINS/Legal.md",
        "/b/.git/config",
        "/b/03_DOMAINS/.sub",
        "/b/03_DOMAINS/a.b/c.md",
        "/b/03_DOMAINS/é.md",
        "/b/03_DOMAINS/.é",
        "/b/03_DOMAINS/x/..md",
        "rel/.x",
        ".x",
        "x",
        "/b/03_DOMAINS/→.md",
    ] {
        let p = std::path::Path::new(path);
        let by_name = p
            .file_name()
            .is_some_and(|n| super::is_hidden(&n.to_string_lossy()));
        assert_eq!(name_is_hidden(p), by_name, "{path}");
    }
    // A name that is not UTF-8 is judged by its first byte too.
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        let p = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/b/02_TERMINOLOGY/.\xff.md"));
        assert!(name_is_hidden(p));
        let p = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/b/02_TERMINOLOGY/\xff.md"));
        assert!(!name_is_hidden(p));
    }
}

#[test]
fn files_are_classified_from_the_bytes_as_by_splitting_the_path() {
    use super::walk::classify_file;
    /// What a classification says, comparable.
    fn said(f: Option<Found>) -> Option<String> {
        f.map(|f| match f {
            Found::Article(rel, folder) => format!("article {rel} {folder:?}"),
            Found::Skipped(s) => format!("skipped {} {:?}", s.path, s.reason),
            Found::Template(rel) => format!("template {rel}"),
            Found::Other(rel) => format!("other {rel}"),
            Found::Problem(p) => format!("problem {}", p.path),
        })
    }
    /// The classification as it was: the relative path split three times.
    fn by_splitting(root: &std::path::Path, path: &std::path::Path) -> Option<Found> {
        let rel = super::rel_string(root, path);
        let folder = rel.split('/').next().and_then(Folder::from_dir_name)?;
        if rel.split('/').any(super::is_hidden) {
            return None;
        }
        let name = rel.rsplit('/').next().unwrap_or("");
        Some(if !crate::layout::is_markdown(name) {
            Found::Other(rel)
        } else if path.to_str().is_none() {
            Found::Skipped(SkippedFile {
                path: rel,
                reason: crate::layout::SkipReason::NotUnicode,
            })
        } else if folder == Folder::Templates {
            Found::Template(rel)
        } else if let Some(reason) = crate::layout::skip_reason(name) {
            Found::Skipped(SkippedFile { path: rel, reason })
        } else {
            Found::Article(rel, folder)
        })
    }
    let mut paths: Vec<std::path::PathBuf> = [
        "02_TERMINOLOGY/a → b.md",
        "02_TERMINOLOGY/sub/deeper/x.MD",
        "02_TERMINOLOGY/.hidden.md",
        "02_TERMINOLOGY/.sub/x.md",
        "02_TERMINOLOGY/sub./x.md",
        "02_TERMINOLOGY/a.b/c.md",
        "02_TERMINOLOGY//x.md",
        "02_TERMINOLOGY/x.md/",
        "02_TERMINOLOGY",
        "02_TERMINOLOGYX/x.md",
        "01_CLIENTS/_EXAMPLE_client.md",
        "01_CLIENTS/_reserved.md",
        "06_TEMPLATES/t.md",
        "06_TEMPLATES/t.txt",
        "03_DOMAINS/notes.txt",
        "03_DOMAINS/.md",
        "04_STYLE/é/ü.md",
        ".git/x.md",
        "x.md",
        "",
        "00_INBOX/_archive/old.md",
        "05_INDICES/i.md",
    ]
    .iter()
    .map(|rel| std::path::Path::new("/b").join(rel))
    .collect();
    paths.push("/elsewhere/02_TERMINOLOGY/x.md".into());
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        paths.push(std::ffi::OsStr::from_bytes(b"/b/02_TERMINOLOGY/\xff.md").into());
        paths.push(std::ffi::OsStr::from_bytes(b"/b/02_TERMINOLOGY/\xe9/x.md").into());
        paths.push(std::ffi::OsStr::from_bytes(b"/b/06_TEMPLATES/\xe9.md").into());
        paths.push(std::ffi::OsStr::from_bytes(b"/b/03_DOMAINS/\xe9.txt").into());
        paths.push(std::ffi::OsStr::from_bytes(b"/b/02_TERMINOLOGY/.\xff/x.md").into());
    }
    for root in ["/b", "/b/"] {
        let root = std::path::Path::new(root);
        for path in &paths {
            assert_eq!(
                said(classify_file(root, path)),
                said(by_splitting(root, path)),
                "{}",
                path.display()
            );
        }
    }
}

/// The tie-break order is kept as long as the bank: it holds the ids and
/// no room beyond them (collected in place, it kept the sort keys' buffer,
/// nine times the size), in the order the tie-break gives.
#[test]
fn the_content_order_holds_only_its_ids() {
    let d = sample();
    let bank = Bank::load(d.path()).unwrap();
    let order = bank.content_order().to_vec();
    let kept = bank.index.content_order.get().unwrap();
    assert!(kept.len() > 2, "{kept:?}");
    assert_eq!(kept.capacity(), kept.len());
    let mut by_tie_break: Vec<ArticleId> = bank.content_ids().collect();
    by_tie_break.sort_by(|&a, &b| crate::scoring::tie_break(bank.article(a), bank.article(b)));
    assert_eq!(order, by_tie_break);
}

#[test]
fn walked_paths_come_back_as_they_were_kept() {
    use super::walk::WalkedPaths;
    let mut kept = WalkedPaths::default();
    let mut paths: Vec<std::path::PathBuf> = [
        "/b/02_TERMINOLOGY/sign out → afmelden.md",
        "",
        "/b/03_DOMAINS/é/Legal.md",
        "relative/x.md",
        "/",
    ]
    .iter()
    .map(std::path::PathBuf::from)
    .collect();
    paths.push(std::path::PathBuf::from(format!(
        "/b/01_CLIENTS/{}.md",
        "long name ".repeat(100)
    )));
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt as _;
        paths.push(std::ffi::OsStr::from_bytes(b"/b/02_TERMINOLOGY/\xff\xfe.md").into());
    }
    let at: Vec<_> = paths.iter().map(|p| kept.push(p)).collect();
    // Read back out of order, each whole and nothing of its neighbours.
    for (path, at) in paths.iter().zip(&at).rev() {
        assert_eq!(kept.path(at), path.as_path());
        assert_eq!(kept.bytes(at), path.as_os_str().as_encoded_bytes());
    }
}

#[test]
fn a_bank_read_while_it_is_walked_has_every_file_once_in_order() {
    // Enough files that most are read in batches while the walk goes on,
    // and the rest after it; folders, skipped and other files among them.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let (mut expected, mut extras) = (Vec::new(), 0);
    for i in 0..(crate::parallel::SEQUENTIAL_BELOW + 9 * super::walk::EARLY_BATCH + 5) {
        let folder = [
            "01_CLIENTS",
            "03_DOMAINS/sub",
            "03_DOMAINS",
            "02_TERMINOLOGY",
        ][i % 4];
        let rel = format!("{folder}/note {i:04} → é.md");
        write(
            r,
            &rel,
            format!("---\ndomain: D{i}\n---\n# T{i}\n").as_bytes(),
        );
        expected.push(rel);
        if i % 50 == 0 {
            write(r, &format!("{folder}/_draft {i}.md"), b"---\n---\n");
            write(r, &format!("{folder}/leftover {i}.tmp"), b"x");
            extras += 1;
        }
    }
    let order = |p: &String| {
        (
            Folder::from_dir_name(p.split('/').next().unwrap()),
            p.clone(),
        )
    };
    expected.sort_by_key(order);
    let mut listed = Vec::new();
    let bank = Bank::load_listing(r, &AtomicUsize::new(0), &mut |paths| listed = paths).unwrap();
    let read: Vec<&str> = bank
        .articles()
        .iter()
        .map(|a| a.rel_path.as_str())
        .collect();
    assert_eq!(read, expected);
    for a in bank.articles() {
        // Each article is its own file's text, not a neighbour's.
        let n = &a.rel_path[a.rel_path.find("note ").unwrap() + 5..][..4];
        let n: usize = n.parse().unwrap();
        assert_eq!(a.title(), format!("T{n}"), "{}", a.rel_path);
    }
    assert_eq!(bank.skipped.len(), extras);
    assert_eq!(bank.other_files.len(), extras);
    // The listing is every Markdown file the walk met, skipped ones too.
    assert_eq!(listed.len(), expected.len() + extras);
    for path in &expected {
        assert!(listed.contains(path), "{path}");
    }
}

#[test]
fn a_bank_read_while_walked_reads_every_file_once_and_keeps_the_walks_order() {
    // More files than are read on one thread, in folders walked before and
    // after the pool starts, a nested folder, files the bank skips or
    // cannot read, and other files: every article read once, none missed.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let mut expected = Vec::new();
    for (folder, n) in [
        ("01_CLIENTS", 40),
        ("02_TERMINOLOGY", 700),
        ("03_DOMAINS", 90),
        ("03_DOMAINS/sub", 30),
        ("04_STYLE", 5),
    ] {
        for i in 0..n {
            let rel = format!("{folder}/n{i:04}.md");
            write(
                r,
                &rel,
                format!("---\nclient: C{i}\n---\n# {rel}\n").as_bytes(),
            );
            expected.push(rel);
        }
    }
    write(r, "02_TERMINOLOGY/_draft.md", b"---\n---\n");
    write(r, "02_TERMINOLOGY/notes.txt", b"other\n");
    write(r, "02_TERMINOLOGY/bad.md", b"---\nclient: \xff\n---\n");
    let files_read = AtomicUsize::new(0);
    let bank = Bank::load_listing(r, &files_read, &mut |_| {}).unwrap();
    let got: Vec<&str> = bank
        .articles()
        .iter()
        .map(|a| a.rel_path.as_str())
        .collect();
    let mut want: Vec<&str> = expected.iter().map(String::as_str).collect();
    want.sort_by_key(|p| (p.split('/').next().unwrap(), *p));
    assert_eq!(got, want);
    for a in bank.articles() {
        let i: usize = a.rel_path[a.rel_path.len() - 7..a.rel_path.len() - 3]
            .parse()
            .unwrap();
        let client = a.meta.clients.first().map(|c| &*c.raw);
        assert_eq!(client, Some(&*format!("C{i}")), "{}", a.rel_path);
    }
    assert_eq!(bank.problems.len(), 1, "{:?}", bank.problems);
    assert_eq!(bank.problems[0].path, "02_TERMINOLOGY/bad.md");
    // Each walked file taken once: the articles, the draft, the other file
    // and the unreadable one.
    assert_eq!(files_read.load(Ordering::Relaxed), expected.len() + 3);
}

#[test]
fn a_bank_read_in_short_pieces_on_several_threads_is_the_bank_read_on_one() {
    // Several times more files than a piece of the read holds, so pieces
    // are taken by different threads and finish out of order. Names that
    // order one way by bytes and another by characters or by case, folders
    // whose files interleave with a sibling's (`a-b` sorts before `a/`),
    // files the bank skips, cannot decode or finds too large, a link.
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    let names = ["a", "A", "a-b", "a b", "é", "ｚ", "😀", "Z", "ǅ"];
    let folders = [
        "01_CLIENTS",
        "02_TERMINOLOGY",
        "02_TERMINOLOGY/a",
        "02_TERMINOLOGY/a-b",
        "03_DOMAINS/x/y",
        "04_STYLE",
    ];
    let (mut articles, mut refused) = (Vec::new(), Vec::new());
    for i in 0..(5 * crate::parallel::READ_PIECE_MOST + 77) {
        let folder = folders[i % folders.len()];
        let rel = format!("{folder}/{} {i:05}.md", names[i % names.len()]);
        if i % 97 == 5 {
            write(r, &rel, b"---\nclient: \xff\n---\n");
            refused.push(rel);
        } else if i % 89 == 3 {
            write(r, &rel, &vec![b'a'; 600]);
            refused.push(rel);
        } else {
            write(
                r,
                &rel,
                format!("---\nclient: C{i}\n---\n# T{i}\n").as_bytes(),
            );
            articles.push(rel);
        }
        if i % 150 == 0 {
            write(r, &format!("{folder}/_draft {i}.md"), b"---\n---\n");
            write(r, &format!("{folder}/left {i}.txt"), b"x");
        }
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(r.join(&articles[0]), r.join("04_STYLE/link.md")).unwrap();
        articles.push("04_STYLE/link.md".into());
    }
    let bank_order = |p: &String| {
        (
            Folder::from_dir_name(p.split('/').next().unwrap()),
            p.clone(),
        )
    };
    articles.sort_by_key(bank_order);
    refused.sort();
    let load = |threads| {
        let policy = ReadPolicy {
            max_file_bytes: 500,
            ..ReadPolicy::default()
        };
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Bank::load_with(r, policy))
            .unwrap()
    };
    let one = load(1);
    let many = load(3);
    let paths =
        |b: &Bank| -> Vec<String> { b.articles().iter().map(|a| a.rel_path.clone()).collect() };
    assert_eq!(paths(&one), articles);
    assert_eq!(paths(&many), articles);
    for a in many.articles() {
        // Each its own file's text, not a neighbour's.
        let i = &a.rel_path[a.rel_path.len() - 8..a.rel_path.len() - 3];
        if a.rel_path != "04_STYLE/link.md" {
            assert_eq!(a.title(), format!("T{}", i.parse::<usize>().unwrap()));
        }
    }
    let problems =
        |b: &Bank| -> Vec<String> { b.problems.iter().map(|p| p.path.clone()).collect() };
    assert_eq!(problems(&many), refused);
    assert_eq!(many.problems, one.problems);
    assert_eq!(many.skipped, one.skipped);
    assert_eq!(
        many.skipped.len(),
        (5 * crate::parallel::READ_PIECE_MOST + 77).div_ceil(150)
    );
    assert_eq!(many.other_files, one.other_files);
    assert_eq!(many.other_files.len(), many.skipped.len());
}

#[test]
fn an_empty_bank_reads_as_nothing_on_the_pool_or_off_it() {
    let d = tempfile::tempdir().unwrap();
    for f in Folder::ALL {
        fs::create_dir_all(d.path().join(f.dir_name())).unwrap();
    }
    for threads in [1, 3] {
        let bank = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| Bank::load(d.path()))
            .unwrap();
        assert!(bank.articles().is_empty());
        assert!(bank.problems.is_empty() && bank.skipped.is_empty());
        assert!(bank.other_files.is_empty() && bank.missing_folders.is_empty());
    }
}

/// The batches a bank's links are resolved in take every article once, in
/// order, so each link's resolution lands with its own article.
#[test]
fn link_batches_take_every_article_once_in_order() {
    for n in [0, 1, 15, 16, 17, 32, 33, 1000] {
        let ids: Vec<ArticleId> = (0..link_batches(n))
            .flat_map(|b| link_batch(b, n))
            .collect();
        assert_eq!(ids, (0..n).collect::<Vec<_>>(), "{n} articles");
    }
    assert!(link_batch(5, 10).is_empty());
}

/// A link to copy opens its article and no other: a name two files share
/// takes as many folders as it needs.
#[test]
fn the_link_to_copy_is_the_shortest_that_opens_only_the_article() {
    let d = tempfile::tempdir().unwrap();
    let r = d.path();
    write(r, "03_DOMAINS/Pharma.md", b"---\ndomain: Pharma\n---\n");
    write(r, "03_DOMAINS/Sub/Pharma.md", b"---\ndomain: Pharma\n---\n");
    write(
        r,
        "03_DOMAINS/Deep/Sub/Pharma.md",
        b"---\ndomain: Pharma\n---\n",
    );
    write(r, "04_STYLE/House.md", b"---\nscope: general\n---\n");
    let bank = Bank::load(r).unwrap();
    let name = |rel: &str| bank.unique_link_name(rel).unwrap();
    assert_eq!(name("04_STYLE/House.md"), "House");
    for rel in [
        "03_DOMAINS/Pharma.md",
        "03_DOMAINS/Sub/Pharma.md",
        "03_DOMAINS/Deep/Sub/Pharma.md",
    ] {
        let link = name(rel);
        assert!(link.contains('/'), "{rel}: {link}");
        match bank.resolve(&link) {
            Resolution::One(id) => assert_eq!(bank.article(id).rel_path, rel, "{link}"),
            other => panic!("{rel}: [[{link}]] resolves to {other:?}"),
        }
    }
    assert_eq!(bank.unique_link_name("04_STYLE/Nope.md"), None);
}
