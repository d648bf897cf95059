use std::fs;
use std::time::Duration;

use super::*;
use crate::fix::{Action, FileFix};
use crate::transaction::{Kind, Transaction};

fn journal(dir: &Path) -> Journal {
    Journal::new(dir.join("journal"))
}

fn begin(root: &Path, j: &Journal, kind: Kind) -> Transaction {
    Transaction::begin(root, kind, Duration::ZERO, || {})
        .unwrap()
        .journal_to(j.clone())
}

fn undo(root: &Path, j: &Journal, kind: Kind) -> Result<(), Refused> {
    let (entries, corrupt) = j.entries(root);
    assert!(corrupt.is_empty(), "{corrupt:?}");
    let next = next_undo(&entries).ok_or(Refused::Nothing {
        listed: entries.len(),
    })?;
    let tx = begin(root, j, kind);
    revert_next(&tx, &next).map(|_| ())
}

fn bank() -> (tempfile::TempDir, tempfile::TempDir) {
    let bank = tempfile::tempdir().unwrap();
    fs::create_dir_all(bank.path().join("01_CLIENTS")).unwrap();
    fs::write(
        bank.path().join("01_CLIENTS/Acme.md"),
        "---\nclient: Acme\n---\nold\n",
    )
    .unwrap();
    (bank, tempfile::tempdir().unwrap())
}

fn read(root: &Path, rel: &str) -> Option<Vec<u8>> {
    fs::read(root.join(rel)).ok()
}

#[test]
fn a_fix_undone_leaves_every_byte_as_before() {
    let (bank, state) = bank();
    let j = journal(state.path());
    let before = read(bank.path(), "01_CLIENTS/Acme.md").unwrap();
    let fixes = vec![
        FileFix {
            path: "01_CLIENTS/Acme.md".into(),
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Change {
                before: before.clone(),
                after: b"---\nclient: Acme\n---\nnew\n".to_vec(),
            },
        },
        FileFix {
            path: "01_CLIENTS/Beta.md".into(),
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Create {
                after: b"---\nclient: Beta\n---\n".to_vec(),
            },
        },
    ];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    assert_eq!(
        read(bank.path(), "01_CLIENTS/Beta.md").unwrap(),
        b"---\nclient: Beta\n---\n"
    );

    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(read(bank.path(), "01_CLIENTS/Acme.md").unwrap(), before);
    assert_eq!(
        read(bank.path(), "01_CLIENTS/Beta.md"),
        None,
        "the created file is removed"
    );
    let (entries, _) = j.entries(bank.path());
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].kind, "fix");
    assert_eq!(entries[1].kind, UNDO_KIND);
    assert_eq!(entries[1].undoes.as_deref(), Some(entries[0].id.as_str()));
    assert_eq!(
        undo(bank.path(), &j, Kind::Bank),
        Err(Refused::Nothing { listed: 2 })
    );
}

#[test]
fn a_moved_file_comes_back_and_a_deleted_one_too() {
    let (bank, state) = bank();
    let j = journal(state.path());
    fs::write(bank.path().join("01_CLIENTS/x.md.abc123.tmp"), b"left\xff").unwrap();
    let before = read(bank.path(), "01_CLIENTS/Acme.md").unwrap();
    let fixes = vec![
        FileFix {
            path: "01_CLIENTS/Acme.md".into(),
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Move {
                to: "01_CLIENTS/Acme Ltd.md".into(),
                before: before.clone(),
                after: before.clone(),
            },
        },
        FileFix {
            path: "01_CLIENTS/x.md.abc123.tmp".into(),
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Delete {
                before: b"left\xff".to_vec(),
            },
        },
    ];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    assert_eq!(read(bank.path(), "01_CLIENTS/Acme.md"), None);

    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(read(bank.path(), "01_CLIENTS/Acme.md").unwrap(), before);
    assert_eq!(read(bank.path(), "01_CLIENTS/Acme Ltd.md"), None);
    assert_eq!(
        read(bank.path(), "01_CLIENTS/x.md.abc123.tmp").unwrap(),
        b"left\xff"
    );
}

/// A private note stays private: moved, it keeps its permissions, and an
/// undo brings it back with them (they were the umask's before).
#[cfg(unix)]
#[test]
fn a_moved_file_keeps_its_permissions_and_the_undo_too() {
    use std::os::unix::fs::PermissionsExt;
    let (bank, state) = bank();
    let j = journal(state.path());
    let old = bank.path().join("01_CLIENTS/Acme.md");
    fs::set_permissions(&old, fs::Permissions::from_mode(0o600)).unwrap();
    let before = read(bank.path(), "01_CLIENTS/Acme.md").unwrap();
    let fixes = vec![FileFix {
        path: "01_CLIENTS/Acme.md".into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Move {
            to: "01_CLIENTS/Acme Ltd.md".into(),
            before: before.clone(),
            after: before,
        },
    }];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&bank.path().join("01_CLIENTS/Acme Ltd.md")), 0o600);
    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(mode(&old), 0o600);

    // A private folder moved keeps its permissions too, and so does the
    // folder the undo makes again.
    let sub = bank.path().join("01_CLIENTS/private");
    fs::create_dir(&sub).unwrap();
    fs::write(sub.join("Note.md"), "note\n").unwrap();
    fs::set_permissions(&sub, fs::Permissions::from_mode(0o700)).unwrap();
    let moved = vec![FileFix {
        path: "01_CLIENTS/private/Note.md".into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Move {
            to: "01_CLIENTS/kept/Note.md".into(),
            before: b"note\n".to_vec(),
            after: b"note\n".to_vec(),
        },
    }];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&moved)
        .unwrap();
    assert!(!sub.exists(), "the emptied folder goes");
    assert_eq!(mode(&bank.path().join("01_CLIENTS/kept")), 0o700);
    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(mode(&sub), 0o700);
}

/// A private folder that holds a note only in a subfolder: moved, every
/// folder the move makes keeps the permissions of the one it stands for,
/// and so does every folder the undo makes again.
#[cfg(unix)]
#[test]
fn every_folder_a_folder_move_or_its_undo_makes_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let (bank, state) = bank();
    let j = journal(state.path());
    let private = bank.path().join("01_CLIENTS/private");
    fs::create_dir_all(private.join("sub")).unwrap();
    fs::write(private.join("sub/Note.md"), "note\n").unwrap();
    fs::set_permissions(&private, fs::Permissions::from_mode(0o700)).unwrap();
    fs::set_permissions(private.join("sub"), fs::Permissions::from_mode(0o750)).unwrap();
    let moved = vec![FileFix {
        path: "01_CLIENTS/private/sub/Note.md".into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Move {
            to: "01_CLIENTS/secret/sub/Note.md".into(),
            before: b"note\n".to_vec(),
            after: b"note\n".to_vec(),
        },
    }];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&moved)
        .unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert!(!private.exists(), "the emptied folders go");
    let secret = bank.path().join("01_CLIENTS/secret");
    assert_eq!(mode(&secret), 0o700);
    assert_eq!(mode(&secret.join("sub")), 0o750);
    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert!(!secret.exists());
    assert_eq!(mode(&private), 0o700);
    assert_eq!(mode(&private.join("sub")), 0o750);
    assert_eq!(
        read(bank.path(), "01_CLIENTS/private/sub/Note.md").unwrap(),
        b"note\n"
    );
}

/// A note shared through its group stays so: rewritten, moved and put
/// back by an undo, it keeps its owner and group. Giving a file to another
/// user takes root, so elsewhere the test says it did not run.
#[cfg(unix)]
#[test]
fn a_rewritten_or_moved_file_keeps_its_owner_and_group_and_the_undo_too() {
    use std::os::unix::fs::MetadataExt;
    let (bank, state) = bank();
    let j = journal(state.path());
    let old = bank.path().join("01_CLIENTS/Acme.md");
    let other = bank.path().join("01_CLIENTS/Other.md");
    fs::write(&other, "other\n").unwrap();
    let nobody = (65534, 65534);
    for f in [&old, &other] {
        if std::os::unix::fs::chown(f, Some(nobody.0), Some(nobody.1)).is_err() {
            eprintln!(
                "SKIPPED a_rewritten_or_moved_file_keeps_its_owner_and_group_and_the_undo_too: \
                 giving a file to another user needs root"
            );
            return;
        }
    }
    let owner = |p: &Path| {
        let m = fs::metadata(p).unwrap();
        (m.uid(), m.gid())
    };
    let before = read(bank.path(), "01_CLIENTS/Acme.md").unwrap();
    let fixes = vec![
        FileFix {
            path: "01_CLIENTS/Acme.md".into(),
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Move {
                to: "01_CLIENTS/Acme Ltd.md".into(),
                before: before.clone(),
                after: before,
            },
        },
        FileFix {
            path: "01_CLIENTS/Other.md".into(),
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Change {
                before: b"other\n".to_vec(),
                after: b"changed\n".to_vec(),
            },
        },
    ];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    assert_eq!(owner(&bank.path().join("01_CLIENTS/Acme Ltd.md")), nobody);
    assert_eq!(owner(&other), nobody);
    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(owner(&old), nobody);
    assert_eq!(owner(&other), nobody);
}

#[test]
fn a_move_into_new_folders_undone_leaves_no_empty_folder_behind() {
    let (bank, state) = bank();
    let j = journal(state.path());
    fs::create_dir_all(bank.path().join("01_CLIENTS/kept")).unwrap();
    let before = read(bank.path(), "01_CLIENTS/Acme.md").unwrap();
    let fixes = vec![FileFix {
        path: "01_CLIENTS/Acme.md".into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Move {
            to: "01_CLIENTS/kept/europe/west/Acme.md".into(),
            before: before.clone(),
            after: before.clone(),
        },
    }];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    assert!(
        bank.path()
            .join("01_CLIENTS/kept/europe/west/Acme.md")
            .is_file()
    );

    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(read(bank.path(), "01_CLIENTS/Acme.md").unwrap(), before);
    assert!(!bank.path().join("01_CLIENTS/kept/europe").exists());
    // A folder that was there before the change stays.
    assert!(bank.path().join("01_CLIENTS/kept").is_dir());
}

#[test]
fn a_move_out_of_a_subfolder_removes_it_when_empty_and_undo_brings_it_back() {
    let (bank, state) = bank();
    let j = journal(state.path());
    fs::create_dir_all(bank.path().join("01_CLIENTS/eu/west")).unwrap();
    fs::create_dir_all(bank.path().join("01_CLIENTS/other")).unwrap();
    fs::write(bank.path().join("01_CLIENTS/eu/west/Beta.md"), "beta\n").unwrap();
    fs::write(bank.path().join("01_CLIENTS/other/image.png"), b"png").unwrap();
    fs::write(bank.path().join("01_CLIENTS/other/Gamma.md"), "gamma\n").unwrap();
    let moved = |from: &str, to: &str, bytes: &[u8]| FileFix {
        path: from.into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Move {
            to: to.into(),
            before: bytes.to_vec(),
            after: bytes.to_vec(),
        },
    };
    let fixes = vec![
        moved(
            "01_CLIENTS/eu/west/Beta.md",
            "01_CLIENTS/Beta.md",
            b"beta\n",
        ),
        moved(
            "01_CLIENTS/other/Gamma.md",
            "01_CLIENTS/Gamma.md",
            b"gamma\n",
        ),
    ];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    assert!(!bank.path().join("01_CLIENTS/eu").exists());
    // A folder that still holds a file stays, and so do the format's own.
    assert!(bank.path().join("01_CLIENTS/other/image.png").is_file());
    assert!(bank.path().join("01_CLIENTS").is_dir());

    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert_eq!(
        read(bank.path(), "01_CLIENTS/eu/west/Beta.md").unwrap(),
        b"beta\n"
    );
    assert_eq!(
        read(bank.path(), "01_CLIENTS/other/Gamma.md").unwrap(),
        b"gamma\n"
    );
    assert_eq!(read(bank.path(), "01_CLIENTS/Beta.md"), None);
}

#[test]
fn an_appended_line_is_taken_back_and_nothing_else() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let j = journal(state.path());
    fs::create_dir_all(project.path().join("memory")).unwrap();
    fs::write(
        project.path().join("memory/impressions.jsonl"),
        "{\"id\":\"a\"}",
    )
    .unwrap();
    begin(project.path(), &j, Kind::Project)
        .append_line("memory/impressions.jsonl", "{\"id\":\"b\"}")
        .unwrap();
    undo(project.path(), &j, Kind::Project).unwrap();
    assert_eq!(
        read(project.path(), "memory/impressions.jsonl").unwrap(),
        b"{\"id\":\"a\"}"
    );
    let (entries, _) = j.entries(project.path());
    assert!(matches!(
        entries[0].files[0].change,
        Recorded::Appended { len_before: 10, .. }
    ));
}

/// A write after `finish` is a further entry of the same kind: the label
/// outlives the entry `finish` wrote.
#[test]
fn a_write_after_finish_is_journalled_under_the_same_label() {
    let project = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let j = journal(state.path());
    fs::create_dir_all(project.path().join("memory")).unwrap();
    fs::write(project.path().join("memory/impressions.jsonl"), "").unwrap();
    let tx = begin(project.path(), &j, Kind::Project);
    tx.set_label("feedback");
    tx.append_line("memory/impressions.jsonl", "{\"id\":\"a\"}")
        .unwrap();
    assert_eq!(tx.finish(), None);
    tx.append_line("memory/impressions.jsonl", "{\"id\":\"b\"}")
        .unwrap();
    drop(tx);
    let (entries, _) = j.entries(project.path());
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["feedback", "feedback"]);
}

#[test]
fn a_file_changed_since_is_named_and_nothing_is_reverted() {
    let (bank, state) = bank();
    let j = journal(state.path());
    let tx = begin(bank.path(), &j, Kind::Bank);
    tx.replace("01_CLIENTS/Acme.md", b"one").unwrap();
    tx.create("01_CLIENTS/Beta.md", b"two").unwrap();
    drop(tx);
    fs::write(bank.path().join("01_CLIENTS/Acme.md"), "edited by hand").unwrap();

    let refused = undo(bank.path(), &j, Kind::Bank).unwrap_err();
    assert_eq!(
        refused,
        Refused::Changed {
            path: "01_CLIENTS/Acme.md".into(),
            how: "was changed".into()
        }
    );
    assert!(refused.to_string().contains("nothing was reverted"));
    assert_eq!(read(bank.path(), "01_CLIENTS/Beta.md").unwrap(), b"two");
    assert_eq!(
        read(bank.path(), "01_CLIENTS/Acme.md").unwrap(),
        b"edited by hand"
    );
}

#[test]
fn the_journal_is_pruned_oldest_first_by_size_and_by_age() {
    let state = tempfile::tempdir().unwrap();
    let mut j = journal(state.path());
    let entry = |text: &str| Entry {
        id: String::new(),
        time: String::new(),
        root: "/nowhere/bank".into(),
        memory: "bank".into(),
        kind: "fix".into(),
        undoes: None,
        unfinished: false,
        files: vec![FileRecord {
            mode: None,
            folder_mode: None,
            outer_folder_modes: Vec::new(),
            owner: None,
            path: "a.md".into(),
            change: Recorded::Replaced {
                before: None,
                after: Some(Blob::of(text.as_bytes())),
            },
        }],
    };
    let day = jiff::SignedDuration::from_hours(24);
    let t0 = jiff::Timestamp::from_second(1_700_000_000).unwrap();
    j.max_days = 10;
    j.record(entry("first"), t0).unwrap();
    j.record(entry("second"), t0 + day * 5).unwrap();
    let texts = |j: &Journal| -> Vec<Recorded> {
        j.entries(Path::new("/nowhere/bank"))
            .0
            .into_iter()
            .map(|e| e.files[0].change.clone())
            .collect()
    };
    assert_eq!(texts(&j).len(), 2);
    // Eleven days after the first: it is over the age bound.
    j.record(entry("third"), t0 + day * 11).unwrap();
    assert_eq!(texts(&j).len(), 2);
    assert!(!format!("{:?}", texts(&j)).contains("first"));
    // A size bound for about one entry keeps only the newest.
    j.max_bytes = 300;
    j.record(entry("fourth"), t0 + day * 12).unwrap();
    let left = format!("{:?}", texts(&j));
    assert!(left.contains("fourth") && !left.contains("third"), "{left}");
}

#[test]
fn an_entry_over_the_size_bound_is_kept_while_newest_and_spares_the_rest() {
    let state = tempfile::tempdir().unwrap();
    let mut j = journal(state.path());
    let entry = |root: &str, text: &str| Entry {
        id: String::new(),
        time: String::new(),
        root: root.into(),
        memory: "bank".into(),
        kind: "rename".into(),
        undoes: None,
        unfinished: false,
        files: vec![FileRecord {
            mode: None,
            folder_mode: None,
            outer_folder_modes: Vec::new(),
            owner: None,
            path: "a.md".into(),
            change: Recorded::Replaced {
                before: None,
                after: Some(Blob::of(text.as_bytes())),
            },
        }],
    };
    let count = |j: &Journal, root: &str| j.entries(Path::new(root)).0.len();
    let t0 = jiff::Timestamp::from_second(1_700_000_000).unwrap();
    let second = jiff::SignedDuration::from_secs(1);
    j.max_bytes = 1000;
    j.raise_bound = "Raise it.".into();
    let small = j.record(entry("/other", "small"), t0).unwrap();
    assert_eq!(small.warning, None);
    let big = j
        .record(entry("/bank", &"x".repeat(2000)), t0 + second)
        .unwrap();
    let said = big.warning.expect("the entry over the bound is said");
    assert!(
        said.contains("rename") && said.ends_with("Raise it."),
        "{said}"
    );
    // Kept, and the other memory's history with it.
    assert_eq!((count(&j, "/bank"), count(&j, "/other")), (1, 1));
    // The next entry makes it go first; what fits stays.
    j.record(entry("/other", "later"), t0 + second * 2).unwrap();
    assert_eq!((count(&j, "/bank"), count(&j, "/other")), (0, 2));
}

#[test]
fn a_corrupt_entry_is_reported_with_its_file() {
    let (bank, state) = bank();
    let j = journal(state.path());
    begin(bank.path(), &j, Kind::Bank)
        .replace("01_CLIENTS/Acme.md", b"x")
        .unwrap();
    let dir = j.memory_dir(bank.path());
    fs::write(dir.join("999999999999999999999999-1.json"), "{not json").unwrap();
    let (entries, corrupt) = j.entries(bank.path());
    assert_eq!(entries.len(), 1);
    assert_eq!(corrupt.len(), 1);
    assert!(corrupt[0].file.ends_with("999999999999999999999999-1.json"));
}

#[test]
fn nothing_is_journalled_inside_the_memory_and_no_other_file_is_held() {
    let (bank, state) = bank();
    fs::write(
        bank.path().join("01_CLIENTS/Other.md"),
        "untouched secret-ish text",
    )
    .unwrap();
    let j = journal(state.path());
    begin(bank.path(), &j, Kind::Bank)
        .replace("01_CLIENTS/Acme.md", b"x")
        .unwrap();
    let names: Vec<_> = walkdir::WalkDir::new(bank.path())
        .into_iter()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(!names.iter().any(|n| n.ends_with(".json")), "{names:?}");
    let (entries, _) = j.entries(bank.path());
    let all = serde_json::to_string(&entries).unwrap();
    assert!(!all.contains("untouched"));
}

#[test]
fn a_new_bank_undone_leaves_its_folder_empty() {
    let parent = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let j = journal(state.path());
    let root = parent.path().join("bank");
    crate::init::init_journalled(&root, Some(j.clone())).unwrap();
    assert!(root.join("06_TEMPLATES/compile.md").is_file());
    let (entries, _) = j.entries(&root);
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].kind, "init");

    undo(&root, &j, Kind::Bank).unwrap();
    let left: Vec<_> = fs::read_dir(&root).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn laying_out_a_bank_never_replaces_a_file() {
    let (bank, state) = bank();
    let j = journal(state.path());
    let tx = begin(bank.path(), &j, Kind::Bank);
    let files = vec![("01_CLIENTS/Acme.md".to_owned(), &b"new"[..])];
    let e = tx.create_layout(&[], &files).unwrap_err();
    assert!(
        e.contains("01_CLIENTS/Acme.md") && e.contains("not overwritten"),
        "{e}"
    );
    assert_eq!(
        read(bank.path(), "01_CLIENTS/Acme.md").unwrap(),
        b"---\nclient: Acme\n---\nold\n"
    );
}

#[test]
fn a_journal_folder_that_cannot_be_written_stops_the_transaction_before_it_begins() {
    let (bank, state) = bank();
    // A file where the journal's folder would be: no entry could be kept.
    let blocked = state.path().join("not-a-folder");
    fs::write(&blocked, "").unwrap();
    let j = Journal::new(blocked.join("journal"));
    let before: Vec<_> = fs::read_dir(bank.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let e = Transaction::begin_journalled(bank.path(), Kind::Bank, Duration::ZERO, || {}, Some(j))
        .unwrap_err();
    assert!(
        e.contains("not-a-folder/journal") && e.contains("nothing was changed"),
        "{e}"
    );
    let after: Vec<_> = fs::read_dir(bank.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
    // A usable journal lets it begin.
    let ok = journal(state.path());
    assert!(
        Transaction::begin_journalled(bank.path(), Kind::Bank, Duration::ZERO, || {}, Some(ok))
            .is_ok()
    );
}

/// An entry holds the whole text of what a change touched: on a machine
/// others use, only its owner may read the journal, also one an older
/// version left open.
#[cfg(unix)]
#[test]
fn the_journal_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let (bank, state) = bank();
    let j = journal(state.path());
    fs::create_dir_all(&j.dir).unwrap();
    fs::set_permissions(&j.dir, fs::Permissions::from_mode(0o755)).unwrap();
    let fixes = vec![FileFix {
        path: "01_CLIENTS/Beta.md".into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Create {
            after: b"---\nclient: Beta\n---\n".to_vec(),
        },
    }];
    begin(bank.path(), &j, Kind::Bank)
        .commit_fixes(&fixes)
        .unwrap();
    let mut files = 0;
    for entry in walkdir::WalkDir::new(&j.dir) {
        let entry = entry.unwrap();
        let mode = entry.metadata().unwrap().permissions().mode() & 0o777;
        if entry.file_type().is_dir() {
            assert_eq!(mode, 0o700, "{}", entry.path().display());
        } else {
            files += 1;
            assert_eq!(mode, 0o600, "{}", entry.path().display());
        }
    }
    assert_eq!(files, 1, "one entry written");
}

/// A reply's blocks are written by the reply's own writer, not file by
/// file through the transaction: the folders they needed are journalled
/// too, so an undo leaves no empty folder behind.
#[test]
fn the_folders_a_reply_made_go_with_its_undo() {
    let (bank, state) = bank();
    let j = journal(state.path());
    let reply = "### FILE: 01_CLIENTS/new/deeper/Gamma.md\n---\nclient: Gamma\n---\nx\n";
    let report = begin(bank.path(), &j, Kind::Bank).apply_blocks(reply);
    assert!(
        bank.path().join("01_CLIENTS/new/deeper/Gamma.md").exists(),
        "{report:?}"
    );
    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert!(!bank.path().join("01_CLIENTS/new").exists());
    assert!(bank.path().join("01_CLIENTS/Acme.md").exists());
}

/// A bank where `03_DOMAINS/Legal.md` is linked from `n` style notes, and
/// the rename of it to `Law.md` as `membank mv` plans it: the note moved,
/// then each link rewritten.
fn linked_bank(n: usize) -> (tempfile::TempDir, tempfile::TempDir, Vec<FileFix>) {
    let (bank, state) = bank();
    let root = bank.path();
    fs::create_dir_all(root.join("03_DOMAINS")).unwrap();
    fs::create_dir_all(root.join("04_STYLE")).unwrap();
    fs::write(root.join("03_DOMAINS/Legal.md"), "# Legal\n").unwrap();
    let mut fixes = vec![FileFix {
        path: "03_DOMAINS/Legal.md".into(),
        codes: Vec::new(),
        notes: Vec::new(),
        action: Action::Move {
            to: "03_DOMAINS/Law.md".into(),
            before: b"# Legal\n".to_vec(),
            after: b"# Legal\n".to_vec(),
        },
    }];
    for i in 0..n {
        let path = format!("04_STYLE/Style {i}.md");
        fs::write(root.join(&path), "See [[Legal]].\n").unwrap();
        fixes.push(FileFix {
            path,
            codes: Vec::new(),
            notes: Vec::new(),
            action: Action::Change {
                before: b"See [[Legal]].\n".to_vec(),
                after: b"See [[Law]].\n".to_vec(),
            },
        });
    }
    (bank, state, fixes)
}

/// Every style note's text and whether each name of the domain exists.
fn linked_state(root: &Path, n: usize) -> (Vec<String>, bool, bool) {
    let texts = (0..n)
        .map(|i| fs::read_to_string(root.join(format!("04_STYLE/Style {i}.md"))).unwrap())
        .collect();
    (
        texts,
        root.join("03_DOMAINS/Legal.md").exists(),
        root.join("03_DOMAINS/Law.md").exists(),
    )
}

/// A rename killed half-way (a signal, kill -9, a crash: nothing runs
/// after it) has its entry on disk before its first write: the next undo
/// takes back exactly what it wrote, not the change before it, and no
/// other write goes on top of it meanwhile.
#[test]
fn a_rename_killed_half_way_is_the_next_undo_and_every_link_comes_back() {
    let (bank, state, fixes) = linked_bank(6);
    let root = bank.path();
    let j = journal(state.path());
    // An earlier change, which must not be the one undone.
    begin(root, &j, Kind::Bank)
        .create("01_CLIENTS/Beta.md", b"beta\n")
        .unwrap();
    let untouched = linked_state(root, 6);

    crate::transaction::failing_write::kill_at(Some(4));
    let killed = begin(root, &j, Kind::Bank).commit_fixes(&fixes);
    crate::transaction::failing_write::kill_at(None);
    assert!(killed.is_err());
    let (texts, legal, law) = linked_state(root, 6);
    assert!(!legal && law, "the move was made before the kill");
    assert_eq!(texts.iter().filter(|t| t.contains("[[Law]]")).count(), 3);

    let (entries, _) = j.entries(root);
    let next = next_undo(&entries).unwrap();
    assert_eq!(next.entry.kind, "fix");
    assert!(next.entry.unfinished && next.interrupted());

    // No other write lands on the half-done change.
    let e = begin(root, &j, Kind::Bank)
        .create("01_CLIENTS/Gamma.md", b"gamma\n")
        .unwrap_err();
    assert!(
        e.contains("was interrupted") && e.contains("membank undo"),
        "{e}"
    );
    assert!(!root.join("01_CLIENTS/Gamma.md").exists());

    undo(root, &j, Kind::Bank).unwrap();
    assert_eq!(linked_state(root, 6), untouched);
    // The change before it is next, whole.
    assert_eq!(read(root, "01_CLIENTS/Beta.md").unwrap(), b"beta\n");
    let (entries, _) = j.entries(root);
    assert_eq!(
        next_undo(&entries).unwrap().entry.files[0].path,
        "01_CLIENTS/Beta.md"
    );
    // Writes go on again.
    begin(root, &j, Kind::Bank)
        .create("01_CLIENTS/Gamma.md", b"gamma\n")
        .unwrap();
}

/// A run killed after its entry was written and before any file was
/// touched leaves nothing to put back: the undo says so by being
/// journalled, and the change before it stays next.
#[test]
fn a_change_killed_before_its_first_write_is_undone_as_nothing() {
    let (bank, state, fixes) = linked_bank(2);
    let root = bank.path();
    let j = journal(state.path());
    crate::transaction::failing_write::kill_at(Some(0));
    assert!(begin(root, &j, Kind::Bank).commit_fixes(&fixes).is_err());
    crate::transaction::failing_write::kill_at(None);
    undo(root, &j, Kind::Bank).unwrap();
    assert!(root.join("03_DOMAINS/Legal.md").exists());
    let refused = undo(root, &j, Kind::Bank).unwrap_err();
    assert!(matches!(refused, Refused::Nothing { .. }), "{refused:?}");
}

/// An undo killed half-way is finished by the next undo, which writes over
/// its entry: the change is then undone whole, and once only.
#[test]
fn an_undo_killed_half_way_is_finished_by_the_next() {
    let (bank, state, fixes) = linked_bank(6);
    let root = bank.path();
    let j = journal(state.path());
    let untouched = linked_state(root, 6);
    begin(root, &j, Kind::Bank).commit_fixes(&fixes).unwrap();

    crate::transaction::failing_write::kill_at(Some(3));
    assert!(undo(root, &j, Kind::Bank).is_err());
    crate::transaction::failing_write::kill_at(None);
    assert_ne!(linked_state(root, 6), untouched, "half reverted");
    let (entries, _) = j.entries(root);
    let next = next_undo(&entries).unwrap();
    assert!(next.resumes.is_some(), "{next:?}");
    let e = begin(root, &j, Kind::Bank)
        .create("01_CLIENTS/Gamma.md", b"gamma\n")
        .unwrap_err();
    assert!(e.contains("an undo") && e.contains("membank undo"), "{e}");

    undo(root, &j, Kind::Bank).unwrap();
    assert_eq!(linked_state(root, 6), untouched);
    let (entries, _) = j.entries(root);
    let undos: Vec<&Entry> = entries.iter().filter(|e| e.kind == UNDO_KIND).collect();
    assert_eq!(undos.len(), 1);
    assert!(!undos[0].unfinished);
    assert!(matches!(
        undo(root, &j, Kind::Bank).unwrap_err(),
        Refused::Nothing { .. }
    ));
}

/// An undo whose write fails half-way (a folder made read-only, a full
/// disk) changes back what it had reverted: the change stays whole and is
/// still the next to undo, not the one before it.
#[test]
fn an_undo_failing_half_way_changes_back_and_the_change_stays_next() {
    let (bank, state, fixes) = linked_bank(4);
    let root = bank.path();
    let j = journal(state.path());
    begin(root, &j, Kind::Bank)
        .create("01_CLIENTS/Beta.md", b"beta\n")
        .unwrap();
    begin(root, &j, Kind::Bank).commit_fixes(&fixes).unwrap();
    let renamed = linked_state(root, 4);

    crate::transaction::failing_write::set(Some(3));
    let refused = undo(root, &j, Kind::Bank).unwrap_err();
    crate::transaction::failing_write::set(None);
    assert!(
        refused.to_string().contains("nothing was reverted"),
        "{refused}"
    );
    assert_eq!(linked_state(root, 4), renamed);
    let (entries, _) = j.entries(root);
    assert!(entries.iter().all(|e| e.kind != UNDO_KIND));
    assert_eq!(next_undo(&entries).unwrap().entry.kind, "fix");

    undo(root, &j, Kind::Bank).unwrap();
    assert!(root.join("03_DOMAINS/Legal.md").exists());
    assert_eq!(read(root, "01_CLIENTS/Beta.md").unwrap(), b"beta\n");
}

/// A damaged `before` in the entry is found before anything is written.
#[test]
fn a_damaged_entry_reverts_nothing() {
    let (bank, state, fixes) = linked_bank(3);
    let root = bank.path();
    let j = journal(state.path());
    begin(root, &j, Kind::Bank).commit_fixes(&fixes).unwrap();
    let renamed = linked_state(root, 3);
    let (entries, _) = j.entries(root);
    let file = fs::read_dir(j.memory_dir(root))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().contains(&entries[0].id))
        .unwrap();
    let mut entry = entries[0].clone();
    let last = entry.files.len() - 1;
    entry.files[0].change = match &entry.files[0].change {
        Recorded::Replaced { after, .. } => Recorded::Replaced {
            before: Some(Blob::Hex("zz".into())),
            after: after.clone(),
        },
        other => panic!("{other:?}"),
    };
    assert_ne!(last, 0);
    fs::write(&file, serde_json::to_vec(&entry).unwrap()).unwrap();
    let refused = undo(root, &j, Kind::Bank).unwrap_err();
    assert!(refused.to_string().contains("damaged"), "{refused}");
    assert_eq!(linked_state(root, 3), renamed);
}

/// Entries written by earlier versions (no `unfinished` field) read as
/// finished, and finished entries are written as before.
#[test]
fn entries_without_the_unfinished_field_are_finished_ones() {
    let (bank, state) = bank();
    let j = journal(state.path());
    begin(bank.path(), &j, Kind::Bank)
        .create("01_CLIENTS/Beta.md", b"beta\n")
        .unwrap();
    let dir = j.memory_dir(bank.path());
    let file = fs::read_dir(&dir).unwrap().flatten().next().unwrap().path();
    let text = fs::read_to_string(&file).unwrap();
    assert!(!text.contains("unfinished"), "{text}");
    let (entries, _) = j.entries(bank.path());
    assert!(!entries[0].unfinished);
    undo(bank.path(), &j, Kind::Bank).unwrap();
    assert!(!bank.path().join("01_CLIENTS/Beta.md").exists());
}

/// Process Inbox is finished by running it again: an interrupted run of
/// it stops every other write, not the next Process Inbox.
#[test]
fn an_interrupted_inbox_run_stops_other_writes_but_not_a_rerun() {
    let (bank, state) = bank();
    let root = bank.path();
    let j = journal(state.path());
    let mut entry = Entry {
        id: String::new(),
        time: "2026-04-08T09:00:00Z".into(),
        root: root.display().to_string(),
        memory: "bank".into(),
        kind: "inbox".into(),
        undoes: None,
        files: Vec::new(),
        unfinished: true,
    };
    j.write_unfinished(&mut entry, jiff::Timestamp::now())
        .unwrap();
    let e = begin(root, &j, Kind::Bank)
        .create("01_CLIENTS/Beta.md", b"beta\n")
        .unwrap_err();
    assert!(e.contains("was interrupted"), "{e}");
    let tx = begin(root, &j, Kind::Bank);
    tx.set_label("inbox");
    tx.create("01_CLIENTS/Beta.md", b"beta\n").unwrap();
}

/// An interrupted change is what its memory's next undo takes back: no
/// later change, of that memory or another, prunes it for age or size.
#[test]
fn an_unfinished_entry_is_never_pruned() {
    let state = tempfile::tempdir().unwrap();
    let mut j = journal(state.path());
    let entry = |root: &str, text: &str| Entry {
        id: String::new(),
        time: String::new(),
        root: root.into(),
        memory: "bank".into(),
        kind: "rename".into(),
        undoes: None,
        unfinished: false,
        files: vec![FileRecord {
            mode: None,
            folder_mode: None,
            outer_folder_modes: Vec::new(),
            owner: None,
            path: "a.md".into(),
            change: Recorded::Replaced {
                before: None,
                after: Some(Blob::of(text.as_bytes())),
            },
        }],
    };
    let day = jiff::SignedDuration::from_hours(24);
    let t0 = jiff::Timestamp::from_second(1_700_000_000).unwrap();
    j.max_days = 10;
    j.max_bytes = 300;
    let mut interrupted = entry("/nowhere/bank", &"x".repeat(400));
    j.write_unfinished(&mut interrupted, t0).unwrap();
    // Another memory's changes, past both bounds of the interrupted one.
    j.record(entry("/nowhere/other", "one"), t0 + day * 20)
        .unwrap();
    j.record(entry("/nowhere/other", "two"), t0 + day * 21)
        .unwrap();
    let kept = j.entries(Path::new("/nowhere/bank")).0;
    assert_eq!(kept.len(), 1, "the interrupted change was pruned");
    assert!(kept[0].unfinished);
    // A finished entry of the same size and age is pruned as before.
    j.record(entry("/nowhere/bank", &"y".repeat(400)), t0 + day * 22)
        .unwrap();
    j.record(entry("/nowhere/other", "three"), t0 + day * 23)
        .unwrap();
    let left = j.entries(Path::new("/nowhere/bank")).0;
    assert!(left.iter().all(|e| e.unfinished), "{left:?}");
}
