use super::*;
use std::fs;

fn now() -> jiff::civil::DateTime {
    jiff::civil::date(2026, 4, 8).at(17, 10, 55, 0)
}

fn bank() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in ["00_INBOX", "01_CLIENTS", "02_TERMINOLOGY", "06_TEMPLATES"] {
        fs::create_dir_all(dir.path().join(f)).unwrap();
    }
    fs::write(dir.path().join("06_TEMPLATES/compile.md"), "template\n").unwrap();
    dir
}

fn write(root: &Path, rel: &str, text: &str) {
    fs::write(root.join(rel), text).unwrap();
}

fn read(root: &Path, rel: &str) -> String {
    fs::read_to_string(root.join(rel)).unwrap()
}

const REPLY: &str = "Notes first.\n### FILE: 01_CLIENTS/Acme.md\n```markdown\n---\nclient: \"Acme\"\n---\n# Acme\n```\n### FILE: 01_CLIENTS/../06_TEMPLATES/compile.md\nowned\n### FILE: 06_TEMPLATES/compile.md\nowned\n### FILE: 02_TERMINOLOGY\\compliance → naleving.md\n---\nterm_source: compliance\n---\n# compliance → naleving\n";

#[test]
fn plan_writes_nothing() {
    let dir = bank();
    let r = dir.path();
    let report = apply_reply(r, REPLY, Mode::Plan);
    let statuses: Vec<_> = report.blocks.iter().map(|b| b.status).collect();
    assert_eq!(
        statuses,
        vec![
            BlockStatus::Valid,
            BlockStatus::Rejected,
            BlockStatus::Rejected,
            BlockStatus::Valid
        ]
    );
    assert_eq!(report.rejected(), 2);
    assert!(!r.join("01_CLIENTS/Acme.md").exists());
    assert_eq!(
        report.blocks[3].path,
        "02_TERMINOLOGY/compliance → naleving.md"
    );
}

#[test]
fn apply_writes_only_valid_blocks() {
    let dir = bank();
    let r = dir.path();
    let report = apply_reply(r, REPLY, Mode::Apply);
    assert_eq!(report.blocks[0].status, BlockStatus::Created);
    assert_eq!(
        read(r, "01_CLIENTS/Acme.md"),
        "---\nclient: \"Acme\"\n---\n# Acme\n"
    );
    assert_eq!(read(r, "06_TEMPLATES/compile.md"), "template\n");
    assert!(report.blocks[1].reason.as_deref().unwrap().contains(".."));
    assert!(
        report.blocks[2]
            .reason
            .as_deref()
            .unwrap()
            .contains("06_TEMPLATES")
    );
    let again = apply_reply(r, REPLY, Mode::Apply);
    assert_eq!(again.blocks[0].status, BlockStatus::Unchanged);
}

#[test]
fn duplicate_targets_keep_the_last_block() {
    let dir = bank();
    let r = dir.path();
    let report = apply_reply(
        r,
        "### FILE: 01_CLIENTS/A.md\none\n### FILE: 01_CLIENTS/a.md\ntwo\n",
        Mode::Apply,
    );
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    assert_eq!(report.blocks[1].status, BlockStatus::Created);
    assert_eq!(read(r, "01_CLIENTS/a.md"), "two\n");
}

#[test]
fn the_archive_is_not_writable_by_blocks() {
    let dir = bank();
    let report = apply_reply(
        dir.path(),
        "### FILE: 00_INBOX/_archive/mail.md\nx\n### FILE: 00_INBOX/new.md\nx\n",
        Mode::Apply,
    );
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    assert_eq!(report.blocks[1].status, BlockStatus::Created);
}

#[test]
fn empty_blocks_are_rejected() {
    let dir = bank();
    let report = apply_reply(dir.path(), "### FILE: 01_CLIENTS/A.md\n\n", Mode::Apply);
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
}

#[test]
fn pending_skips_compiled_files() {
    let dir = bank();
    let r = dir.path();
    write(r, "00_INBOX/a.md", "new\n");
    write(r, "00_INBOX/b.md", "---\ncompiled: true\n---\n");
    assert_eq!(
        crate::inbox::pending_on_disk(r).unwrap(),
        vec!["00_INBOX/a.md"]
    );
}

#[test]
fn names_source_forms() {
    let s = "00_INBOX/mail 1.md";
    for v in [
        "00_INBOX/mail 1.md",
        "mail 1.md",
        "Mail 1",
        "[[mail 1]]",
        "[[mail 1|x]]",
        "00_INBOX\\mail 1.md",
    ] {
        assert!(names_source(v, s), "{v}");
    }
    assert!(!names_source("mail", s));
    assert!(!names_source("", s));
}

#[test]
fn compile_attributes_blocks_and_archives_sources() {
    let dir = bank();
    let r = dir.path();
    write(r, "00_INBOX/mail.md", "---\nfrom: a\n---\nAcme mail\n");
    write(r, "00_INBOX/glossary.md", "terms\n");
    let reply = "### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\ncompiled_from: \"[[mail]]\"\n---\n# Acme\n### FILE: 02_TERMINOLOGY/x.md\n---\nterm_source: x\n---\n### FILE: 06_TEMPLATES/compile.md\nx\n";
    let report = compile_pending(r, reply, Mode::Apply, now()).unwrap();
    assert_eq!(report.rejected(), 1);
    let by_source: HashMap<_, _> = report
        .sources
        .iter()
        .map(|s| (s.source.as_str(), s))
        .collect();
    let mail = by_source["00_INBOX/mail.md"];
    assert_eq!(mail.status, SourceStatus::Archived);
    assert_eq!(
        mail.compiled_to,
        vec!["01_CLIENTS/Acme.md", "02_TERMINOLOGY/x.md"]
    );
    let glossary = by_source["00_INBOX/glossary.md"];
    assert_eq!(glossary.compiled_to, vec!["02_TERMINOLOGY/x.md"]);
    let archived = read(r, "00_INBOX/_archive/mail.md");
    assert!(
        archived
            .contains("compiled_to:\n  - \"01_CLIENTS/Acme.md\"\n  - \"02_TERMINOLOGY/x.md\"\n"),
        "{archived}"
    );
    assert!(!archived.contains("06_TEMPLATES"));
    assert!(crate::inbox::pending_on_disk(r).unwrap().is_empty());
}

#[test]
fn compile_plan_touches_nothing() {
    let dir = bank();
    let r = dir.path();
    write(r, "00_INBOX/mail.md", "mail\n");
    let report = compile_pending(r, "### FILE: 01_CLIENTS/A.md\na\n", Mode::Plan, now()).unwrap();
    assert_eq!(report.sources[0].status, SourceStatus::WouldArchive);
    assert_eq!(read(r, "00_INBOX/mail.md"), "mail\n");
    assert!(!r.join("01_CLIENTS/A.md").exists());
    assert!(!r.join("00_INBOX/_archive").exists());
}

/// The plan says of each note what applying does: one that cannot be
/// stamped (not UTF-8) stays in both, with the same reason.
#[test]
fn the_plan_keeps_a_note_that_applying_could_not_stamp() {
    let reply = "### FILE: 01_CLIENTS/A.md\na\n";
    let [plan, applied] = [Mode::Plan, Mode::Apply].map(|mode| {
        let dir = bank();
        let r = dir.path();
        std::fs::write(r.join("00_INBOX/bad.md"), b"caf\xe9\n").unwrap();
        let report = compile_pending(r, reply, mode, now()).unwrap();
        assert!(r.join("00_INBOX/bad.md").exists(), "{mode:?}: it stays");
        report.sources
    });
    assert_eq!(plan.len(), 1);
    assert_eq!(plan[0].status, applied[0].status);
    assert_eq!(plan[0].reason, applied[0].reason);
    assert!(
        plan[0]
            .reason
            .as_deref()
            .unwrap_or("")
            .contains("not valid UTF-8"),
        "{plan:?}"
    );
}

#[test]
fn sources_stay_when_nothing_was_written() {
    let dir = bank();
    let r = dir.path();
    write(r, "00_INBOX/mail.md", "mail\n");
    let report = compile_pending(
        r,
        "Sorry, I cannot.\n### FILE: 06_TEMPLATES/x.md\nx\n",
        Mode::Apply,
        now(),
    )
    .unwrap();
    assert_eq!(report.sources[0].status, SourceStatus::Kept);
    assert_eq!(read(r, "00_INBOX/mail.md"), "mail\n");
}

#[test]
fn a_block_may_not_overwrite_a_source_of_the_batch() {
    let dir = bank();
    let r = dir.path();
    write(r, "00_INBOX/mail.md", "mail\n");
    let report = compile_pending(
        r,
        "### FILE: 00_INBOX/mail.md\nhijack\n### FILE: 01_CLIENTS/A.md\na\n",
        Mode::Apply,
        now(),
    )
    .unwrap();
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    assert_eq!(
        read(r, "00_INBOX/_archive/mail.md").lines().last(),
        Some("mail")
    );
}

#[test]
fn preview_shows_content_and_current_text() {
    let dir = bank();
    let r = dir.path();
    write(r, "01_CLIENTS/A.md", "\u{feff}old\r\n");
    let (blocks, warnings) = preview_reply(
        r,
        "### FILE: 01_CLIENTS/A.md\nnew\n### FILE: 06_TEMPLATES/x.md\nx\n",
    );
    assert!(warnings.is_empty());
    assert_eq!(blocks[0].result.status, BlockStatus::Valid);
    assert_eq!(blocks[0].content, "new\n");
    assert_eq!(blocks[0].existing.as_deref(), Some("old\n"));
    assert_eq!(blocks[1].result.status, BlockStatus::Rejected);
    assert_eq!(blocks[1].existing, None);
    assert_eq!(read(r, "01_CLIENTS/A.md"), "\u{feff}old\r\n");
}

#[test]
fn declined_blocks_are_not_written_nor_listed() {
    let dir = bank();
    let r = dir.path();
    write(r, "00_INBOX/mail.md", "mail\n");
    let reply = "### FILE: 01_CLIENTS/A.md\na\n### FILE: 01_CLIENTS/B.md\nb\n";
    let report = compile_reply_declining(
        r,
        &["00_INBOX/mail.md".into()],
        reply,
        Mode::Apply,
        now(),
        &[0],
    );
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    assert!(!r.join("01_CLIENTS/A.md").exists());
    assert_eq!(report.sources[0].compiled_to, vec!["01_CLIENTS/B.md"]);
}

/// Every crash point of a compile run, then a rerun: each article is
/// written once, each source archived exactly once, nothing lost.
#[test]
fn rerun_after_a_crash_at_any_step_converges() {
    let reply = "### FILE: 01_CLIENTS/A.md\n---\nclient: A\n---\n# A\n";
    for crash_after in 0..4 {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/mail.md", "---\nfrom: x\n---\nmail\n");
        let source = ["00_INBOX/mail.md".to_owned()];
        let path = pathsafe::validate("01_CLIENTS/A.md").unwrap();
        // The steps of one run, stopped after `crash_after` of them.
        if crash_after >= 1 {
            atomic::write_article(r, &path, "---\nclient: A\n---\n# A\n").unwrap();
        }
        if crash_after >= 2 {
            archive::stamp_source(r, &source[0], &["01_CLIENTS/A.md".into()], now().date())
                .unwrap();
        }
        if crash_after >= 3 {
            archive::move_to_archive(r, &source[0], now()).unwrap();
        }
        let report = compile_pending(r, reply, Mode::Apply, now()).unwrap();
        let archived: Vec<_> = fs::read_dir(r.join("00_INBOX/_archive"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(archived, vec!["mail.md"], "crash after step {crash_after}");
        assert!(!r.join("00_INBOX/mail.md").exists());
        let text = read(r, "00_INBOX/_archive/mail.md");
        assert!(crate::stamp::is_compiled(&text) && text.contains("mail\n"));
        assert_eq!(read(r, "01_CLIENTS/A.md"), "---\nclient: A\n---\n# A\n");
        let handled = (report.recovered.len(), report.sources.len());
        let expected = match crash_after {
            2 => (1, 0),
            3 => (0, 0),
            _ => (0, 1),
        };
        assert_eq!(
            handled, expected,
            "crash after step {crash_after}: {report:?}"
        );
    }
}

#[cfg(unix)]
#[test]
fn links_inside_the_bank_cannot_redirect_a_block_to_the_archive_or_a_source() {
    use std::os::unix::fs::symlink;
    let dir = bank();
    let r = dir.path();
    fs::create_dir_all(r.join("00_INBOX/_archive")).unwrap();
    fs::create_dir_all(r.join("01_CLIENTS/.git")).unwrap();
    write(r, "00_INBOX/mail.md", "the original note\n");
    symlink("../00_INBOX/_archive", r.join("01_CLIENTS/arch")).unwrap();
    symlink("../00_INBOX/mail.md", r.join("01_CLIENTS/srcalias.md")).unwrap();
    symlink(".git", r.join("01_CLIENTS/hooks")).unwrap();
    let reply = "### FILE: 01_CLIENTS/arch/x.md\nplanted\n\
                 ### FILE: 01_CLIENTS/srcalias.md\nblock text\n\
                 ### FILE: 01_CLIENTS/hooks/pre-commit.md\nplanted\n\
                 ### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\n---\n";
    let report = compile_reply(r, &["00_INBOX/mail.md".into()], reply, Mode::Apply, now());
    let statuses: Vec<_> = report.blocks.iter().map(|b| b.status).collect();
    assert_eq!(
        statuses,
        vec![
            BlockStatus::Rejected,
            BlockStatus::Rejected,
            BlockStatus::Rejected,
            BlockStatus::Created
        ],
        "{:?}",
        report.blocks
    );
    // No write goes through a link inside the bank, whatever it leads to.
    for (block, link) in report.blocks[..3].iter().zip([
        "01_CLIENTS/arch",
        "01_CLIENTS/srcalias.md",
        "01_CLIENTS/hooks",
    ]) {
        let reason = block.reason.as_deref().unwrap();
        assert!(
            reason.contains(&format!("{link} is a symbolic link")),
            "{reason}"
        );
    }
    assert!(!r.join("00_INBOX/_archive/x.md").exists());
    assert!(!r.join("01_CLIENTS/.git/pre-commit.md").exists());
    // The note was archived with its own text, stamped, not replaced.
    let archived = read(r, "00_INBOX/_archive/mail.md");
    assert!(archived.contains("the original note"), "{archived}");
    assert!(!archived.contains("block text"), "{archived}");
}

/// An inbox source that is a link to an article: a block for that article
/// would overwrite what this run stamps and archives, so it is refused.
#[cfg(unix)]
#[test]
fn a_block_for_the_file_an_inbox_link_reads_is_refused() {
    let dir = bank();
    let r = dir.path();
    write(r, "01_CLIENTS/Acme.md", "---\nclient: Acme\n---\nnotes\n");
    std::os::unix::fs::symlink("../01_CLIENTS/Acme.md", r.join("00_INBOX/alias.md")).unwrap();
    let reply = "### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\n---\nreplaced\n";
    let report = compile_reply(r, &["00_INBOX/alias.md".into()], reply, Mode::Plan, now());
    assert_eq!(
        report.blocks[0].status,
        BlockStatus::Rejected,
        "{:?}",
        report.blocks
    );
    assert!(
        report.blocks[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("00_INBOX/alias.md"),
        "{:?}",
        report.blocks
    );
}

#[test]
fn a_block_holding_a_credential_is_rejected_and_never_written() {
    let dir = bank();
    let r = dir.path();
    let token = format!("ghp_{}", "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6");
    let reply = format!(
        "### FILE: 01_CLIENTS/Acme.md\n---\nclient: Acme\n---\n# Acme\nDeploy with {token}\n\
         ### FILE: 01_CLIENTS/Beta.md\n---\nclient: Beta\n---\n# Beta\n"
    );
    let report = apply_reply(r, &reply, Mode::Apply);
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    let reason = report.blocks[0].reason.as_deref().unwrap();
    assert!(reason.contains("a GitHub token on line 5"), "{reason}");
    assert!(!reason.contains(&token), "{reason}");
    assert!(!r.join("01_CLIENTS/Acme.md").exists());
    // The rest of the reply is still written.
    assert_eq!(report.blocks[1].status, BlockStatus::Created);
}

#[test]
fn a_block_differing_from_a_file_only_in_case_is_rejected_naming_it() {
    let dir = bank();
    let r = dir.path();
    write(r, "01_CLIENTS/Brightwell Pharma.md", "# Brightwell\n");
    let reply = "### FILE: 01_CLIENTS/brightwell pharma.md\n# overwritten\n";
    let report = apply_reply(r, reply, Mode::Apply);
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    let reason = report.blocks[0].reason.as_deref().unwrap();
    assert!(
        reason.contains("01_CLIENTS/Brightwell Pharma.md already exists"),
        "{reason}"
    );
    assert_eq!(read(r, "01_CLIENTS/Brightwell Pharma.md"), "# Brightwell\n");
}

#[test]
fn a_folder_differing_only_in_case_is_rejected_too() {
    let dir = bank();
    let r = dir.path();
    fs::create_dir_all(r.join("01_CLIENTS/Brightwell")).unwrap();
    let reply = "### FILE: 01_CLIENTS/brightwell/notes.md\n# notes\n";
    let report = apply_reply(r, reply, Mode::Plan);
    let reason = report.blocks[0].reason.as_deref().unwrap_or("");
    assert!(
        reason.starts_with("01_CLIENTS/Brightwell already exists"),
        "{reason}"
    );
}

#[test]
fn a_block_differing_from_a_file_only_in_unicode_form_is_rejected() {
    let dir = bank();
    let r = dir.path();
    write(r, "01_CLIENTS/Caf\u{e9}.md", "# Café\n");
    let reply = "### FILE: 01_CLIENTS/Cafe\u{301}.md\n# decomposed\n";
    let report = apply_reply(r, reply, Mode::Plan);
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    let reason = report.blocks[0].reason.as_deref().unwrap();
    assert!(
        reason.contains("differs only in letter case or Unicode form"),
        "{reason}"
    );
}

#[test]
fn two_blocks_differing_only_in_unicode_form_are_one_file() {
    let dir = bank();
    let r = dir.path();
    let reply =
        "### FILE: 01_CLIENTS/Caf\u{e9}.md\n# one\n### FILE: 01_CLIENTS/Cafe\u{301}.md\n# two\n";
    let report = apply_reply(r, reply, Mode::Apply);
    assert_eq!(report.blocks[0].status, BlockStatus::Rejected);
    assert!(
        report.blocks[0]
            .reason
            .as_deref()
            .unwrap()
            .contains("a later block (line 3)")
    );
    assert_eq!(report.blocks[1].status, BlockStatus::Created);
    assert!(!r.join("01_CLIENTS/Caf\u{e9}.md").exists());
}

#[test]
fn control_characters_in_a_block_are_refused_naming_character_and_line() {
    let dir = bank();
    let r = dir.path();
    for (content, code) in [
        ("# A\nclear \u{1b}[2J screen\n", "U+001B"),
        ("# A\nring \u{7}\n", "U+0007"),
        ("# A\nflip \u{202e}dm.txt\n", "U+202E"),
        ("# A\nc1 \u{9b}31m\n", "U+009B"),
    ] {
        let reply = format!("### FILE: 01_CLIENTS/Acme.md\n{content}");
        let report = apply_reply(r, &reply, Mode::Apply);
        assert_eq!(
            report.blocks[0].status,
            BlockStatus::Rejected,
            "{content:?}"
        );
        let reason = report.blocks[0].reason.as_deref().unwrap();
        assert!(
            reason.contains(code) && reason.contains("line 2"),
            "{reason}"
        );
        assert!(!r.join("01_CLIENTS/Acme.md").exists());
    }
    let report = apply_reply(
        r,
        "### FILE: 01_CLIENTS/Acme.md\n# A\r\n\ttabbed\n",
        Mode::Apply,
    );
    assert_eq!(report.blocks[0].status, BlockStatus::Created);
}
