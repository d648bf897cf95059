use std::fs;

use super::*;
use crate::bank::Bank;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn bank() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "01_CLIENTS/Acme.md",
        "---\nclient: Acme\nstatus: active\n---\n# Acme Corp\nSee [[Legal]] and [[Nope]].\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Legal.md",
        "---\ndomain: Legal\n---\n# Legal\n",
    );
    d
}

#[test]
fn a_bank_is_detected_and_read_through_the_shared_model() {
    let d = bank();
    let found = detect(d.path(), None).unwrap();
    assert_eq!(found.spec.name, "bank");
    let memory = open(d.path(), None).unwrap();
    assert_eq!(memory.spec().name, "bank");
    assert_eq!(memory.len(), 2);
    let acme = memory.find("01_CLIENTS/Acme.md").unwrap();
    let doc = memory.document(acme);
    assert_eq!(doc.title, "Acme Corp");
    assert_eq!(doc.groups, ["01_CLIENTS"]);
    assert_eq!(doc.kind, "clients");
    assert_eq!(doc.status.as_deref(), Some("active"));
    assert_eq!(
        doc.frontmatter_text(),
        Some("client: Acme\nstatus: active\n")
    );
    assert!(doc.body().starts_with("# Acme Corp"));
    let legal = memory.resolve("legal");
    assert!(matches!(legal, Resolution::One(_)));
    let links = memory.links(acme);
    assert_eq!(links.len(), 2);
    assert_eq!(links[0].resolution, legal);
    assert_eq!(links[1].resolution, Resolution::Dead);
    assert_eq!(memory.backlinks(legal.target().unwrap()).to_vec(), [acme]);
    let report = memory.check(&HealthOptions::as_of(jiff::civil::date(2026, 4, 8)));
    assert!(report.findings.iter().any(|f| f.code() == "dead-link"));
    let units = memory.search_units();
    assert_eq!(units[acme].line, 5);
    assert!(memory.downcast_ref::<Bank>().is_some());
}

#[test]
fn bank_only_commands_refuse_other_layouts_by_name() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "memory/summary.md", "# Summary\n");
    let e = open_bank(d.path(), None).unwrap_err().to_string();
    assert!(e.contains("is a Deja Vu project"), "{e}");
    assert!(e.contains("memory bank"), "{e}");
    let d = bank();
    assert_eq!(open_bank(d.path(), None).unwrap().articles().len(), 2);
}

#[test]
fn a_deja_vu_project_is_found_from_the_project_or_its_memory_folder() {
    let d = tempfile::tempdir().unwrap();
    let project = d.path().join("proj");
    write(&project, "memory/impressions.jsonl", "");
    let from_project = detect(&project, None).unwrap();
    assert_eq!(from_project.spec.name, "dejavu");
    assert_eq!(from_project.root, project);
    let from_memory = detect(&project.join("memory"), None).unwrap();
    assert_eq!(from_memory.spec.name, "dejavu");
    assert_eq!(from_memory.root, project);
}

/// A root is taken on real evidence: a system file everos creates first,
/// or a file everos writes under an owner folder.
#[test]
fn an_everos_root_is_found_by_its_system_files_or_a_file_everos_writes() {
    let everos = |d: &tempfile::TempDir| {
        detect(d.path(), None).is_ok_and(|f| f.spec.name == "everos" && f.root == d.path())
    };
    for marker in ["ome.toml", "everos.toml"] {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), marker, "");
        assert!(everos(&d), "{marker}");
    }
    let d = tempfile::tempdir().unwrap();
    fs::create_dir_all(d.path().join(".index")).unwrap();
    assert!(
        everos(&d),
        ".index/ alone: a root everos made and never wrote to"
    );
    for file in [
        "default_app/support-bot/users/carol/episodes/episode-2026-06-01.md",
        "a/p/users/carol/.atomic_facts/atomic_fact-2026-02-30.md",
        "a/p/users/carol/.foresights/foresight-2026-06-01.md",
        "a/p/users/carol/user.md",
        "a/p/agents/bot/.cases/agent_case-2026-06-01.md",
        "a/p/agents/bot/skills/skill_x/SKILL.md",
    ] {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), file, "");
        assert!(everos(&d), "{file}");
    }
    // config.toml and .lock are common elsewhere: only beside the tree.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "config.toml", "");
    assert!(!everos(&d));
    fs::create_dir_all(d.path().join("default_app/default_project/users")).unwrap();
    assert!(everos(&d));
}

/// A tree that only has everos's folder names is not a root: a check
/// pointed at the wrong folder must not pass on nothing.
#[test]
fn a_folder_with_only_users_or_agents_folders_is_not_an_everos_root() {
    for file in [
        "app/controllers/users/s.rb",
        "run/systemd/users/1000",
        "a/p/users/carol/episodes/notes.md",
        "a/p/agents/bot/episodes/episode-2026-06-01.md",
        "a/p/users/carol/.cases/agent_case-2026-06-01.md",
        "a/p/users/carol/skills/skill_x/SKILL.md",
        "a/p/agents/bot/user.md",
    ] {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), file, "");
        let e = detect(d.path(), None).unwrap_err().to_string();
        assert!(
            e.contains("is not a memory bank, a Deja Vu project or an everos memory root"),
            "{file}: {e}"
        );
        // Unless the user says what it is.
        let forced = detect(d.path(), layout_named("everos")).unwrap();
        assert_eq!(forced.root, d.path(), "{file}");
    }
}

/// Any folder inside a root, however deep, is answered with the root.
#[test]
fn a_folder_inside_an_everos_root_names_the_root() {
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        "default_app/default_project/users/u1/episodes/episode-2026-06-01.md",
        "",
    );
    write(
        d.path(),
        "default_app/default_project/agents/g/skills/skill_x/references/r.md",
        "",
    );
    for inner in [
        "default_app/default_project/users",
        "default_app/default_project/users/u1",
        "default_app/default_project/users/u1/episodes",
        "default_app/default_project/agents/g/skills/skill_x/references",
    ] {
        let e = detect(&d.path().join(inner), None).unwrap_err().to_string();
        assert!(
            e.contains(&format!(
                "is a folder inside the everos memory root at {}; pass that folder",
                d.path().display()
            )),
            "{inner}: {e}"
        );
    }
    let file = d
        .path()
        .join("default_app/default_project/users/u1/episodes/episode-2026-06-01.md");
    let e = detect(&file, None).unwrap_err().to_string();
    assert!(e.contains(&d.path().display().to_string()), "{e}");
}

#[test]
fn nothing_recognised_names_every_thing_looked_for() {
    let d = tempfile::tempdir().unwrap();
    write(d.path(), "notes/a.md", "hi");
    let e = detect(d.path(), None).unwrap_err().to_string();
    assert!(e.contains("is not a memory bank, a Deja Vu project or an everos memory root"));
    for l in LAYOUTS {
        assert!(e.contains(l.looked_for), "{e}");
    }
    let e = detect(&d.path().join("missing"), None).unwrap_err();
    assert!(e.to_string().contains("no such folder"));
    let e = detect(&d.path().join("notes/a.md"), None).unwrap_err();
    assert!(
        e.to_string()
            .contains("a.md is a file; pass the folder of a memory bank"),
        "{e}"
    );
}

#[test]
fn format_forces_a_layout_and_settles_ambiguity() {
    let d = bank();
    write(d.path(), "memory/summary.md", "# Summary\n");
    let e = detect(d.path(), None).unwrap_err().to_string();
    assert!(e.contains("--format bank|dejavu"), "{e}");
    let bank = layout_named("bank").unwrap();
    assert_eq!(detect(d.path(), Some(bank)).unwrap().spec.name, "bank");
    let dejavu = layout_named("dejavu").unwrap();
    assert_eq!(detect(d.path(), Some(dejavu)).unwrap().spec.name, "dejavu");
    let everos = layout_named("everos").unwrap();
    let e = detect(d.path(), Some(everos)).unwrap_err().to_string();
    assert!(
        e.contains("is not an everos memory root: looked for"),
        "{e}"
    );
    assert_eq!(layout_names(), ["bank", "dejavu", "everos"]);
}

#[test]
fn which_changed_paths_are_the_memorys_own_depends_on_the_layout() {
    let root = Path::new("/memories/m");
    let changed: Vec<PathBuf> = [
        "/memories/m/01_CLIENTS/Acme.md",
        "/memories/m/01_CLIENTS/Acme.md",
        "/memories/m/.obsidian/app.json",
        "/memories/m/01_CLIENTS/.Acme.md.swp",
        "/memories/m/u/carol/.atomic_facts/atomic_fact-2026-06-01.md",
        "/memories/m/.git/index",
        "/memories/m/.index/vectors.bin",
        "/memories/other/01_CLIENTS/Beta.md",
        "u/carol/.foresights/foresight-2026-06-01.md",
        "../escape.md",
        // An atomic write's temporary file, renamed over Acme.md.
        "/memories/m/01_CLIENTS/.membank-3bVPC2WH.tmp",
        "/memories/m/memory/.membank-aZ09xYq1.tmp",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    let bank = layout_named("bank").unwrap();
    assert_eq!(
        changes::changed_paths(bank, root, &changed),
        ["01_CLIENTS/Acme.md"]
    );
    let everos = layout_named("everos").unwrap();
    assert_eq!(
        changes::changed_paths(everos, root, &changed),
        [
            "01_CLIENTS/.Acme.md.swp",
            "01_CLIENTS/Acme.md",
            "u/carol/.atomic_facts/atomic_fact-2026-06-01.md",
            "u/carol/.foresights/foresight-2026-06-01.md",
        ]
    );
}

#[test]
fn a_refreshed_bank_reads_only_the_changed_files_unless_a_folder_changed() {
    let d = bank();
    let memory = open(d.path(), None).unwrap();
    write(
        d.path(),
        "01_CLIENTS/Acme.md",
        "---\nclient: Acme\nstatus: active\n---\n# Acme Ltd\n",
    );
    write(
        d.path(),
        "03_DOMAINS/Tax/Vat.md",
        "---\ndomain: Tax\n---\n# VAT\n",
    );
    let files = memory.refreshed(&["01_CLIENTS/Acme.md".into()]).unwrap();
    assert!(files.in_part);
    let acme = files.memory.find("01_CLIENTS/Acme.md").unwrap();
    assert_eq!(files.memory.document(acme).title, "Acme Ltd");
    assert!(files.memory.find("03_DOMAINS/Tax/Vat.md").is_none());
    // The memory refreshed from is left as it was.
    let old = memory.find("01_CLIENTS/Acme.md").unwrap();
    assert_eq!(memory.document(old).title, "Acme Corp");

    let folder = memory.refreshed(&["03_DOMAINS/Tax".into()]).unwrap();
    assert!(!folder.in_part);
    assert!(folder.memory.find("03_DOMAINS/Tax/Vat.md").is_some());
}

/// A front end chooses what it offers from `LayoutKind`, so every
/// registered layout has its own kind, listed in registry order.
#[test]
fn every_registered_layout_has_its_own_kind() {
    let kinds: Vec<LayoutKind> = LAYOUTS.iter().map(|l| l.kind).collect();
    assert_eq!(kinds, LayoutKind::ALL);
    for kind in LayoutKind::ALL {
        assert_eq!(kind.spec().kind, kind);
    }
}
